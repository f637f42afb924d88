"""Reading and writing arrays (``jnp.load``, ``save``, ``frombuffer``, ...) and NumPy's printing
options, as JAX exposes them."""

from __future__ import annotations

from typing import Any

import numpy as np
from spmd._src import dtypes
from spmd._src.array import Array
from spmd._src.core import Tracer
from spmd._src.numpy.array_constructors import asarray

_int32 = np.dtype(np.int32)
_uint8 = np.dtype(np.uint8)
_bool = np.dtype(np.bool_)

# ---------------------------------------------------------------------------------------------
# Reading and writing arrays


def frombuffer(buffer: Any, dtype: Any = float, count: int = -1, offset: int = 0) -> Any:
    """An array of the values in a bytes-like ``buffer`` (read as NumPy reads them, then
    converted as ``jnp.asarray`` does: float64 becomes float32 with x64 off).

    >>> jnp.frombuffer(b"\\x01\\x02\\x03", dtype=jnp.uint8)
    Array([1, 2, 3], dtype=uint8)
    """
    return asarray(np.frombuffer(buffer, dtype=np.dtype(dtype), count=count, offset=offset))


def fromstring(string: str, dtype: Any = float, count: int = -1, *, sep: str) -> Any:
    """An array of the numbers in a text ``string``, separated by ``sep``.

    >>> jnp.fromstring("1 2 3", dtype=int, sep=" ")
    Array([1, 2, 3], dtype=int32)
    """
    return asarray(np.fromstring(string, dtype=np.dtype(dtype), count=count, sep=sep))


def _impure(name: str) -> str:
    return (
        f"jnp.{name}() is not implemented because it may be non-pure and thus unsafe for use "
        "with jit and other transformations. Consider using "
        f"jnp.asarray(np.{name}(...)) instead, outside of transformed functions."
    )


def fromfile(*args: Any, **kwargs: Any) -> Any:
    """Not implemented (reading a file is a side effect): use ``jnp.asarray(np.fromfile(...))``.

    >>> jnp.fromfile("data.bin")
    Traceback (most recent call last):
    NotImplementedError: jnp.fromfile() is not implemented ...
    """
    raise NotImplementedError(_impure("fromfile"))


def fromiter(*args: Any, **kwargs: Any) -> Any:
    """Not implemented (an iterator may have side effects): use
    ``jnp.asarray(np.fromiter(...))``.

    >>> jnp.fromiter(range(3), int)
    Traceback (most recent call last):
    NotImplementedError: jnp.fromiter() is not implemented ...
    """
    raise NotImplementedError(_impure("fromiter"))


def load(file: Any, *args: Any, **kwargs: Any) -> Any:
    """``np.load``, with an array read from a ``.npy`` file returned as a spmd array (bfloat16
    data, which NumPy stores as 2-byte void, comes back as bfloat16). ``.npz`` archives are
    returned as NumPy gives them.

    >>> import io
    >>> f = io.BytesIO(); jnp.save(f, jnp.array([1.5, 2.0], jnp.bfloat16)); _ = f.seek(0)
    >>> jnp.load(f)
    Array([1.5, 2], dtype=bfloat16)
    """
    out = np.load(file, *args, **kwargs)
    if isinstance(out, np.ndarray):
        if out.dtype == np.dtype("V2"):
            out = out.view(dtypes.bfloat16)
        try:
            return asarray(out)
        except TypeError:
            # Data JAX has no dtype for (strings, objects) stays a NumPy array.
            return out
    return out


save = np.save
savez = np.savez


# ---------------------------------------------------------------------------------------------
# Printing


def printoptions(*args: Any, **kwargs: Any) -> Any:
    """A context manager setting NumPy's print options, which spmd arrays print with
    (``np.printoptions``).

    >>> with jnp.printoptions(precision=2):
    ...     print(jnp.array([1.23456, 2.0]))
    [1.23 2.  ]
    """
    return np.printoptions(*args, **kwargs)


def get_printoptions() -> dict:
    """NumPy's current print options, which spmd arrays print with (``np.get_printoptions``).

    >>> jnp.get_printoptions()["precision"]
    8
    """
    return np.get_printoptions()


def set_printoptions(*args: Any, **kwargs: Any) -> None:
    """Set NumPy's print options, which spmd arrays print with (``np.set_printoptions``).

    >>> jnp.set_printoptions(precision=3); print(jnp.array([1 / 3])); jnp.set_printoptions()
    [0.333]
    """
    return np.set_printoptions(*args, **kwargs)


array_repr = np.array_repr
array_str = np.array_str


def iterable(y: Any) -> bool:
    """Whether ``y`` can be iterated over, as ``np.iterable`` says (a 0-d array cannot: spmd's
    arrays only refuse when iteration starts, which ``np.iterable`` does not try).

    >>> jnp.iterable(jnp.arange(3)), jnp.iterable(jnp.array(3))
    (True, False)
    """
    if isinstance(y, (Array, Tracer)) and not y.shape:
        return False
    return np.iterable(y)


__all__ = [
    "array_repr",
    "array_str",
    "frombuffer",
    "fromfile",
    "fromiter",
    "fromstring",
    "get_printoptions",
    "iterable",
    "load",
    "printoptions",
    "save",
    "savez",
    "set_printoptions",
]
