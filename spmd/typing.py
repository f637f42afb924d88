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

from typing import Any, Protocol, runtime_checkable

import numpy as np

from spmd._src.array import Array


@runtime_checkable
class SupportsDType(Protocol):
    """An object with a ``dtype`` (an array, a ``ShapeDtypeStruct``)."""

    @property
    def dtype(self, /) -> np.dtype: ...


ArrayLike = Array | np.ndarray | np.bool_ | np.number | bool | int | float | complex
DTypeLike = str | type[Any] | np.dtype | SupportsDType

__all__ = ["ArrayLike", "DTypeLike"]
