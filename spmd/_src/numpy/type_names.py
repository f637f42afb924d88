"""Type names JAX re-exports from NumPy (``object_``, ``character``, ``flexible``,
``ComplexWarning``) and ``jnp.ufunc``, a universal function built from a Python function."""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
from spmd._src import dtypes
from spmd._src.core import Tracer
from spmd._src.errors import ConcretizationTypeError
from spmd._src.lax import control_flow as lax_cf
from spmd._src.lax import elementwise as lax
from spmd._src.lax import shape as lax_shape
from spmd._src.numpy.array_constructors import asarray
from spmd._src.numpy.functional import vectorize
from spmd._src.numpy.shape_ops import (
    concatenate,
    expand_dims,
    moveaxis,
    reshape,
)
from spmd._src.numpy.util import (
    _axis,
    _full,
    check_arraylike,
    convert,
)

_int32 = np.dtype(np.int32)
_uint8 = np.dtype(np.uint8)
_bool = np.dtype(np.bool_)

# ---------------------------------------------------------------------------------------------
# Type names

object_ = np.object_
character = np.character
flexible = np.flexible
ComplexWarning = np.exceptions.ComplexWarning


class ufunc:
    """A universal function made from a Python function of ``nin`` scalars giving ``nout``
    results, with NumPy's methods ``outer``, ``reduce``, ``accumulate``, ``at`` and
    ``reduceat`` (built on ``vectorize`` and ``lax.scan``, so they work under ``jit`` and
    ``grad``). ``call``, ``reduce``, ... override the generic implementations.

    >>> muladd = jnp.ufunc(lambda x, y: x * y + 1, 2, 1, name="muladd")
    >>> muladd.reduce(jnp.array([1, 2, 3, 4]))
    Array(41, dtype=int32)
    """

    def __init__(self, func: Callable[..., Any], /, nin: int, nout: int, *,
                 name: str | None = None, nargs: int | None = None, identity: Any = None,
                 call: Callable | None = None, reduce: Callable | None = None,
                 accumulate: Callable | None = None, at: Callable | None = None,
                 reduceat: Callable | None = None):  # fmt: skip
        self.__name__ = name or getattr(func, "__name__", "ufunc")
        self._func = func
        self.nin, self.nout = operator.index(nin), operator.index(nout)
        self.nargs = self.nin if nargs is None else operator.index(nargs)
        self.identity = identity
        self._call, self._reduce, self._accumulate = call, reduce, accumulate
        self._at, self._reduceat = at, reduceat
        self._vectorized = vectorize(func)

    def _props(self) -> tuple:
        methods = (self._call, self._reduce, self._accumulate, self._at, self._reduceat)
        return (self._func, self.__name__, self.nin, self.nout, self.nargs, self.identity, *methods)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ufunc) and self._props() == other._props()

    def __hash__(self) -> int:
        try:
            return hash(self._props())
        except TypeError:
            return id(self)

    def __repr__(self) -> str:
        return f"<jnp.ufunc '{self.__name__}'>"

    def __call__(self, *args: Any, out: None = None, where: None = None) -> Any:
        if out is not None:
            raise NotImplementedError(f"{self.__name__}: the 'out' argument is not supported.")
        if where is not None:
            raise NotImplementedError(f"{self.__name__}: the 'where' argument is not supported.")
        if len(args) != self.nin:
            raise TypeError(
                f"{self.__name__}() takes {self.nin} positional argument(s) but {len(args)} "
                "were given"
            )
        if self._call is not None:
            return self._call(*args)
        return self._vectorized(*args)

    def _check_binary(self, method: str) -> None:
        if self.nin != 2 or self.nout != 1:
            raise ValueError(
                f"{method} only supported for binary ufuncs (nin=2, nout=1); "
                f"{self.__name__} has nin={self.nin}, nout={self.nout}"
            )

    def outer(self, A: Any, B: Any, /) -> Any:
        """``self(a, b)`` for every pair of elements: the result has shape
        ``A.shape + B.shape``.

        >>> jnp.ufunc(lambda x, y: x * y + 1, 2, 1).outer(jnp.arange(2), jnp.arange(3))
        Array([[1, 1, 1],
               [1, 2, 3]], dtype=int32)
        """
        self._check_binary("outer")
        check_arraylike(f"{self.__name__}.outer", A, B)
        a, b = asarray(A), asarray(B)
        return self(reshape(a, tuple(a.shape) + (1,) * b.ndim), b)

    def _fold_axis(self, fn: str, a: Any, axis: Any, dtype: Any) -> tuple[Any, int]:
        check_arraylike(f"{self.__name__}.{fn}", a)
        x = asarray(a)
        if dtype is not None:
            x = convert(x, dtypes.canonicalize_dtype(np.dtype(dtype)))
        if axis is None:
            return reshape(x, (x.size,)), 0
        return x, _axis(axis, x.ndim, f"{self.__name__}.{fn}")

    def reduce(self, a: Any, axis: int | None = 0, dtype: Any = None, out: None = None,
               keepdims: bool = False, initial: Any = None, where: Any = None) -> Any:  # fmt: skip
        """``a`` folded along ``axis`` (all axes when None) by the binary function, left to
        right, starting from ``initial`` (or the first element); ``where`` leaves entries out
        (it needs ``initial`` or an ``identity``).

        >>> jnp.ufunc(lambda x, y: x * y + 1, 2, 1).reduce(jnp.array([1, 2, 3]), initial=2)
        Array(22, dtype=int32)
        """
        self._check_binary("reduce")
        if out is not None:
            raise NotImplementedError(f"{self.__name__}.reduce: 'out' is not supported.")
        if self._reduce is not None and where is None and initial is None:
            return self._reduce(a, axis=axis, dtype=dtype, keepdims=keepdims)
        x, ax = self._fold_axis("reduce", a, axis, dtype)
        ndim = asarray(a).ndim
        if where is not None and initial is None and self.identity is None:
            raise ValueError(
                f"reduction operation {self.__name__!r} does not have an identity, so to use a "
                "where mask one has to specify 'initial'."
            )
        xs = moveaxis(x, ax, 0)
        rest = tuple(xs.shape[1:])
        start = initial if initial is not None else self.identity
        if start is None and xs.shape[0] == 0:
            raise ValueError(
                f"zero-size array to reduction operation {self.__name__} which has no identity"
            )
        mask = None
        if where is not None:
            check_arraylike(f"{self.__name__}.reduce", where)
            full = tuple(x.shape)
            m = convert(asarray(where), _bool)
            m = lax_shape.broadcast_in_dim(
                m, full, tuple(builtins.range(len(full) - m.ndim, len(full)))
            )
            mask = moveaxis(m, ax, 0)
        if start is None:
            carry, xs = lax_shape.index_in_dim(xs, 0, 0, keepdims=False), xs[1:]
        else:
            carry = convert(lax_shape.broadcast_in_dim(asarray(start), rest, ()), x.dtype)

        def step(c, item):
            v, m = item
            new = convert(self(c, v), c.dtype)
            return (new if m is None else lax.select_n(m, c, new)), None

        if xs.shape[0]:
            carry, _ = lax_cf.scan(step, carry, (xs, mask))
        if keepdims:
            carry = expand_dims(carry, ax) if axis is not None else reshape(carry, (1,) * ndim)
        return carry

    def accumulate(self, a: Any, axis: int = 0, dtype: Any = None, out: None = None) -> Any:
        """The running fold of ``a`` along ``axis``: entry ``i`` folds entries ``0..i``.

        >>> jnp.ufunc(lambda x, y: x * y + 1, 2, 1).accumulate(jnp.array([1, 2, 3, 4]))
        Array([ 1,  3, 10, 41], dtype=int32)
        """
        self._check_binary("accumulate")
        if out is not None:
            raise NotImplementedError(f"{self.__name__}.accumulate: 'out' is not supported.")
        if self._accumulate is not None:
            return self._accumulate(a, axis=axis, dtype=dtype)
        x, ax = self._fold_axis("accumulate", a, axis, dtype)
        xs = moveaxis(x, ax, 0)
        if xs.shape[0] == 0:
            return x
        first = lax_shape.index_in_dim(xs, 0, 0, keepdims=False)

        def step(c, v):
            new = convert(self(c, v), c.dtype)
            return new, new

        _, ys = lax_cf.scan(step, first, xs[1:])
        ys = concatenate([expand_dims(first, 0), ys], axis=0)
        return moveaxis(ys, 0, ax)

    def at(self, a: Any, indices: Any, b: Any = None, /, *, inplace: bool = True) -> Any:
        """A copy of ``a`` with ``a[i] = self(a[i], b)`` (or ``self(a[i])``) applied for each
        index ``i`` of ``indices`` in turn (repeated indices apply repeatedly). Pass
        ``inplace=False``.

        >>> add = jnp.ufunc(lambda x, y: x + y, 2, 1)
        >>> add.at(jnp.zeros(3, int), jnp.array([0, 0, 2]), 5, inplace=False)
        Array([10,  0,  5], dtype=int32)
        """
        if inplace:
            raise NotImplementedError(
                "Because JAX arrays are immutable, jnp.ufunc.at() cannot operate inplace like "
                "np.ufunc.at(). Instead, pass inplace=False and capture the result; e.g. "
                f"arr = {self.__name__}.at(arr, ind, val, inplace=False)"
            )
        if self._at is not None:
            return self._at(a, indices, b)
        if self.nout != 1 or self.nin not in (1, 2):
            raise ValueError(
                f"at only supported for ufuncs with nout=1 and nin of 1 or 2; {self.__name__} "
                f"has nin={self.nin}, nout={self.nout}"
            )
        if (b is None) != (self.nin == 1):
            raise TypeError(
                f"{self.__name__}.at: {'no' if self.nin == 1 else 'a'} value argument b is "
                f"needed for a ufunc of {self.nin} input(s)"
            )
        check_arraylike(f"{self.__name__}.at", a)
        x = asarray(a)
        idx = indices if isinstance(indices, tuple) else (indices,)
        idx = [asarray(i) for i in idx]
        idx = [reshape(i, (i.size,)) for i in _broadcast_all(idx)]
        count = idx[0].shape[0] if idx else 0
        if b is not None:
            vals = asarray(b)
            if vals.ndim == 0:
                vals = lax_shape.broadcast_in_dim(vals, (count,), ())
            vals = reshape(vals, (count,))
        else:
            vals = _full((count,), 0, x.dtype)

        def step(c, item):
            *ii, v = item
            ii = tuple(ii)
            cur = c[ii]
            new = self(cur, v) if self.nin == 2 else self(cur)
            return c.at[ii].set(convert(new, c.dtype)), None

        if count == 0:
            return x
        out, _ = lax_cf.scan(step, x, (*idx, vals))
        return out

    def reduceat(self, a: Any, indices: Any, axis: int = 0, dtype: Any = None,
                 out: None = None) -> Any:  # fmt: skip
        """Folds of the slices of ``a`` between consecutive ``indices`` along ``axis``
        (``a[indices[i]]`` alone where the next index is not larger). ``indices`` must be
        concrete.

        >>> add = jnp.ufunc(lambda x, y: x + y, 2, 1)
        >>> add.reduceat(jnp.arange(6), jnp.array([0, 2, 5]))
        Array([1, 9, 5], dtype=int32)
        """
        self._check_binary("reduceat")
        if out is not None:
            raise NotImplementedError(f"{self.__name__}.reduceat: 'out' is not supported.")
        if self._reduceat is not None:
            return self._reduceat(a, indices, axis=axis, dtype=dtype)
        x, ax = self._fold_axis("reduceat", a, axis, dtype)
        if isinstance(indices, Tracer):
            raise ConcretizationTypeError(
                f"{self.__name__}.reduceat: indices must be concrete (they fix the slices), "
                f"got a traced value {indices.aval.str_short()}"
            )
        ind = np.asarray(indices).astype(np.int64).reshape(-1)
        n = x.shape[ax]
        if ind.size and (ind.min() < 0 or ind.max() >= n):
            raise IndexError(f"{self.__name__}.reduceat: index out of bounds for axis of size {n}")
        parts = []
        for k, i in enumerate(ind):
            j = int(ind[k + 1]) if k + 1 < ind.size else n
            seg = lax_shape.slice_in_dim(x, int(i), j if j > i else int(i) + 1, 1, ax)
            parts.append(self.reduce(seg, axis=ax, keepdims=True))
        if not parts:
            return lax_shape.slice_in_dim(x, 0, 0, 1, ax)
        return concatenate(parts, axis=ax)


def _broadcast_all(arrays: list) -> list:
    if len(arrays) < 2:
        return arrays
    shape = np.broadcast_shapes(*[tuple(a.shape) for a in arrays])
    return [
        lax_shape.broadcast_in_dim(a, shape, tuple(range(len(shape) - a.ndim, len(shape))))
        for a in arrays
    ]


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *, identity: Any = None):
    """A ``jnp.ufunc`` from a Python function of ``nin`` scalars giving ``nout`` results (traced
    once per call through ``vectorize``, so it works under ``jit``, ``vmap`` and ``grad``).

    >>> f = jnp.frompyfunc(lambda x, y: x * y + 1, 2, 1, identity=1)
    >>> f.accumulate(jnp.array([1.0, 2.0, 3.0]))
    Array([ 1.,  3., 10.], dtype=float32)
    """
    return ufunc(func, nin, nout, identity=identity)


def from_dlpack(x: Any, /, *, device: Any = None, copy: bool | None = None):
    """An array from any object exporting DLPack (``__dlpack__``): a NumPy array, a PyTorch
    CPU tensor, ... The data is copied, as spmd's arrays own their buffers.

    >>> jnp.from_dlpack(np.arange(3))
    Array([0, 1, 2], dtype=int32)
    """
    if copy is False:
        raise ValueError("from_dlpack: copy=False is not supported: spmd arrays own their data")
    if device is not None and getattr(device, "platform", device) != "cpu":
        raise ValueError(f"from_dlpack: device must be a CPU device, got {device!r}")
    return asarray(np.from_dlpack(x))


__all__ = [
    "ComplexWarning",
    "character",
    "flexible",
    "from_dlpack",
    "frompyfunc",
    "object_",
    "ufunc",
]
