"""Static type annotations (``jax.typing``).

- ``ArrayLike``: any value that may be passed where an array is expected and is converted to
  one implicitly: an ``spmd.Array``, a NumPy array, a NumPy scalar (``np.float32(1)``,
  ``np.bool_(True)``) or a Python ``bool``, ``int``, ``float`` or ``complex``.
- ``DTypeLike``: any value naming a dtype: a string (``"float32"``), a scalar type (``float``,
  ``np.int32``, ``jnp.float32``), a ``np.dtype``, or an object with a ``dtype`` attribute.

Annotate inputs with ``ArrayLike`` and outputs with ``spmd.Array``::

    def f(x: ArrayLike) -> spmd.Array:
        return jnp.asarray(x) + 1

Both are unions. ``isinstance(x, ArrayLike)`` works at run time (False for tracers, as in
JAX); ``DTypeLike`` holds a parameterized ``type[Any]``, so ``isinstance`` rejects it with a
TypeError, as JAX's does.
"""

from typing import Any, Protocol, Union, runtime_checkable

import numpy as np

from spmd._src.array import PublicArray as Array


@runtime_checkable
class SupportsDType(Protocol):
    """An object with a ``dtype`` (an array, a ``ShapeDtypeStruct``)."""

    @property
    def dtype(self, /) -> np.dtype: ...


# typing.Union, not ``|``, as JAX: isinstance against it tests each member as a subclass of the
# value's type, so a tracer (an instance of spmd.Array but not a subclass) is not ArrayLike.
ArrayLike = Union[Array, np.ndarray, np.bool_, np.number, bool, int, float, complex]  # noqa: UP007
DTypeLike = str | type[Any] | np.dtype | SupportsDType

__all__ = ["ArrayLike", "DTypeLike"]
