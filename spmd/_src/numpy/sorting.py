"""Sorting, searching and counting in ``spmd.numpy``: sort, argsort, lexsort, partition,
searchsorted, unique, bincount, histogram, digitize.

Everything is built on ``lax.sort`` (with an iota operand for indices): sorting is stable, NaNs
sort to the end and -0.0 equals 0.0. Functions whose output size depends on the values
(``unique`` without ``size=``, ``bincount`` without ``length=``) need concrete input.

>>> jnp.argsort(jnp.array([3, 1, 2]))
Array([1, 2, 0], dtype=int32)
>>> jnp.searchsorted(jnp.array([1, 2, 2, 3]), jnp.array([2, 5]), side="right")
Array([3, 4], dtype=int32)
"""

from __future__ import annotations

import operator
from collections import namedtuple
from typing import Any

import numpy as np
from spmd._src import api, dtypes
from spmd._src.array import Array
from spmd._src.core import Tracer
from spmd._src.errors import ConcretizationTypeError
from spmd._src.lax import elementwise as lax
from spmd._src.lax import padding as lax_padding
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.lax import sorting as lax_sort
from spmd._src.numpy import reductions
from spmd._src.numpy.reductions import _broadcast_to, _canonical_axis, _const, _where
from spmd._src.numpy.util import (
    check_arraylike,
    convert,
    promote_dtypes,
    promote_dtypes_inexact,
    to_array,
    with_out_sharding,
)

# ---------------------------------------------------------------------------------------------
# Helpers


def _ravel(x: Any) -> Any:
    return x if x.ndim == 1 else lax_shape.reshape(x, (x.size,))


def _iota(n: int, dtype: Any = np.int32) -> Any:
    return lax_shape.iota(dtypes.canonicalize_dtype(dtype), n)


def _slice(x: Any, start: int, stop: int, axis: int = 0) -> Any:
    if start == 0 and stop == x.shape[axis]:
        return x
    return lax_shape.slice_in_dim(x, start, stop, 1, axis)


def _concrete(fn: str, arg: str, x: Any, hint: str) -> np.ndarray:
    """The value of ``x``, which must not be traced (its value sets an output shape)."""
    if isinstance(x, Tracer):
        raise ConcretizationTypeError(
            f"Abstract tracer value encountered where concrete value is expected: the argument "
            f"{arg} of jnp.{fn}() is traced ({x.aval.str_short()}), but its value determines the "
            f"shape of the result. {hint}"
        )
    return np.asarray(x)


def _check_sort_args(fn: str, kind: Any, order: Any) -> None:
    if kind is not None:
        raise TypeError(
            f"'kind' argument to {fn} is not supported. Use stable=True or stable=False to "
            "specify sort stability."
        )
    if order is not None:
        raise TypeError(f"'order' argument to {fn} is not supported.")


# ---------------------------------------------------------------------------------------------
# sort, argsort, lexsort


def _sort_impl(a, axis, stable, descending):
    if axis is None:
        a, axis = _ravel(a), 0
    out = lax_sort.sort(a, dimension=axis, is_stable=stable)
    return lax_shape.rev(out, (axis,)) if descending else out


_sort_impl.__name__ = _sort_impl.__qualname__ = "sort"
_sort_jit = api.jit(_sort_impl, static_argnames=("axis", "stable", "descending"))


def sort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
         descending: bool = False):  # fmt: skip
    """A sorted copy of ``a`` along ``axis`` (of the flattened array when None).

    >>> jnp.sort(jnp.array([[3, 1], [0, 2]]), axis=0)
    Array([[0, 1],
           [3, 2]], dtype=int32)
    """
    check_arraylike("sort", a)
    _check_sort_args("sort", kind, order)
    x = to_array(a)
    if axis is not None:
        axis = _canonical_axis("sort", axis, x.ndim)
    return _sort_jit(x, axis=axis, stable=bool(stable), descending=bool(descending))


def _argsort_impl(a, axis, stable, descending, dtype):
    if axis is None:
        a, axis = _ravel(a), 0
    idx = lax_shape.broadcasted_iota(dtype, a.shape, axis)
    if descending:
        # Reversing before and after a stable ascending sort gives a stable descending one.
        a, idx = lax_shape.rev(a, (axis,)), lax_shape.rev(idx, (axis,))
    _, perm = lax_sort.sort((a, idx), dimension=axis, is_stable=stable, num_keys=1)
    return lax_shape.rev(perm, (axis,)) if descending else perm


_argsort_impl.__name__ = _argsort_impl.__qualname__ = "argsort"
_argsort_jit = api.jit(_argsort_impl, static_argnames=("axis", "stable", "descending", "dtype"))


def argsort(a, axis: int | None = -1, *, kind=None, order=None, stable: bool = True,
            descending: bool = False, dtype=None):  # fmt: skip
    """Indices that sort ``a`` along ``axis`` (int32; ties keep their order).

    >>> jnp.argsort(jnp.array([2, 1, 2, 0]), descending=True)
    Array([0, 2, 1, 3], dtype=int32)
    """
    check_arraylike("argsort", a)
    _check_sort_args("argsort", kind, order)
    x = to_array(a)
    if axis is not None:
        axis = _canonical_axis("argsort", axis, x.ndim)
    dtype = dtypes.default_int_dtype() if dtype is None else dtypes.canonicalize_dtype(dtype)
    if not dtypes.issubdtype(dtype, np.integer):
        raise TypeError(f"argsort: dtype must be an integer type, got {dtype}")
    return _argsort_jit(x, axis=axis, stable=bool(stable), descending=bool(descending), dtype=dtype)


def _lexsort_impl(keys, axis):
    idx = lax_shape.broadcasted_iota(np.int32, keys[0].shape, axis)
    out = lax_sort.sort((*reversed(keys), idx), dimension=axis, num_keys=len(keys))
    return out[-1]


_lexsort_impl.__name__ = _lexsort_impl.__qualname__ = "lexsort"
_lexsort_jit = api.jit(_lexsort_impl, static_argnames=("axis",))


def lexsort(keys, axis: int = -1):
    """Indices that sort by several keys: the last key is the primary one.

    >>> jnp.lexsort((jnp.array([1, 0, 1]), jnp.array([0, 0, 1])))
    Array([1, 0, 2], dtype=int32)
    """
    if isinstance(keys, (Array, Tracer, np.ndarray)):
        k = to_array(keys)
        keys = [lax_shape.index_in_dim(k, i, 0, keepdims=False) for i in range(k.shape[0])]
    keys = tuple(keys)
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    check_arraylike("lexsort", *keys)
    keys = tuple(to_array(k) for k in keys)
    if len({k.shape for k in keys}) != 1:
        raise ValueError(
            f"all keys need to be the same shape, got {[tuple(k.shape) for k in keys]} in lexsort"
        )
    if keys[0].ndim == 0:
        return Array(np.asarray(0, np.int32))
    axis = _canonical_axis("lexsort", axis, keys[0].ndim)
    return _lexsort_jit(keys, axis=axis)


# ---------------------------------------------------------------------------------------------
# partition


def _partition(fn: str, a, kth, axis):
    check_arraylike(fn, a)
    x = to_array(a)
    axis = _canonical_axis(fn, axis, x.ndim)
    n = x.shape[axis]
    kth = operator.index(kth)
    if not -n <= kth < n:
        raise ValueError(f"{fn}: kth={kth} is out of bounds for axis {axis} of size {n}")
    kth %= n
    idx = lax_shape.broadcasted_iota(np.int32, x.shape, axis)
    vals, perm = lax_sort.sort((x, idx), dimension=axis, num_keys=1)
    lo_vals, lo_idx = _slice(vals, 0, kth + 1, axis), _slice(perm, 0, kth + 1, axis)
    hi_vals, hi_idx = _slice(vals, kth + 1, n, axis), _slice(perm, kth + 1, n, axis)
    # The upper part comes out as top_k would give it: largest first, ties by index. Restore
    # index order, then sort descending stably (reverse, sort, reverse).
    hi_idx, hi_vals = lax_sort.sort((hi_idx, hi_vals), dimension=axis, num_keys=1)
    hi_vals, hi_idx = lax_shape.rev(hi_vals, (axis,)), lax_shape.rev(hi_idx, (axis,))
    hi_vals, hi_idx = lax_sort.sort((hi_vals, hi_idx), dimension=axis, num_keys=1)
    hi_vals, hi_idx = lax_shape.rev(hi_vals, (axis,)), lax_shape.rev(hi_idx, (axis,))
    return (
        lax_shape.concatenate([lo_vals, hi_vals], axis),
        lax_shape.concatenate([lo_idx, hi_idx], axis),
    )


def partition(a, kth: int, axis: int = -1):
    """``a`` with the ``kth`` smallest element in its sorted place: the first ``kth + 1``
    entries along ``axis`` are the smallest, in ascending order, the rest follow descending.

    >>> jnp.partition(jnp.array([5, 3, 1, 4, 2]), 2)
    Array([1, 2, 3, 5, 4], dtype=int32)
    """
    return _partition("partition", a, kth, axis)[0]


def argpartition(a, kth: int, axis: int = -1):
    """Indices that ``partition`` ``a``.

    >>> jnp.argpartition(jnp.array([5, 3, 1, 4, 2]), 2)
    Array([2, 4, 1, 0, 3], dtype=int32)
    """
    return _partition("argpartition", a, kth, axis)[1]


# ---------------------------------------------------------------------------------------------
# searchsorted, digitize


def _rank(x: Any) -> Any:
    """Position of each element of the 1-D ``x`` in its stable ascending sort."""
    n = x.shape[0]
    idx = _iota(n)
    _, perm = lax_sort.sort((x, idx), num_keys=1)
    _, inv = lax_sort.sort((perm, idx), num_keys=1)
    return inv


def _take_perm(a: Any, perm: Any) -> Any:
    """``a[perm]`` for a permutation ``perm`` of ``range(len(a))``, by sorting."""
    inv = _rank(perm)
    return lax_sort.sort_key_val(inv, a)[1]


def _less_total(x: Any, y: Any) -> Any:
    """``x < y`` in sort order (NaN above everything, equal to itself)."""
    lt = lax.lt(x, y)
    if not dtypes.issubdtype(x.dtype, np.inexact):
        return lt
    x_nan, y_nan = lax.ne(x, x), lax.ne(y, y)
    return lax.bitwise_or(lt, lax.bitwise_and(lax.bitwise_not(x_nan), y_nan))


_SEARCH_METHODS = ("compare_all", "scan", "scan_unrolled", "sort")


def searchsorted(a, v, side: str = "left", sorter=None, *, method: str = "scan"):
    """Indices where the elements of ``v`` would be inserted into the sorted 1-D ``a`` to
    keep it sorted (before equal elements for ``side='left'``, after them for ``'right'``).

    >>> jnp.searchsorted(jnp.array([1, 2, 2, 3]), jnp.array([0, 2, 2.5, 5]))
    Array([0, 1, 3, 4], dtype=int32)
    """
    check_arraylike("searchsorted", a, v)
    if side not in ("left", "right"):
        raise ValueError(f"invalid argument side={side!r}, expected 'left' or 'right'")
    if method not in _SEARCH_METHODS:
        raise ValueError(
            f"invalid argument method={method!r}, expected one of {list(_SEARCH_METHODS)}"
        )
    if np.ndim(a) != 1:
        raise ValueError(f"a should be 1-dimensional, got shape {np.shape(a)}")
    a, v = promote_dtypes(a, v)
    if sorter is not None:
        check_arraylike("searchsorted", sorter)
        sorter = to_array(sorter)
        if sorter.shape != a.shape or not dtypes.issubdtype(sorter.dtype, np.integer):
            raise ValueError(
                f"searchsorted: sorter must be an integer array of a's shape {a.shape}, got "
                f"{sorter.aval.str_short()}"
            )
        a = _take_perm(a, sorter)
    out_shape = v.shape
    n, m = a.shape[0], v.size
    if n == 0 or m == 0:
        return lax_shape.full(out_shape, 0, np.int32)
    vf = _ravel(v) if v.ndim != 1 else v
    if method == "compare_all":
        full = (m, n)
        ab = lax_shape.broadcast_in_dim(a, full, (1,))
        vb = lax_shape.broadcast_in_dim(vf, full, (0,))
        hit = _less_total(ab, vb) if side == "left" else lax.bitwise_not(_less_total(vb, ab))
        idx = reductions.sum(hit, axis=1, dtype=np.int32)
    else:
        # In a stable sort of the queries next to ``a``, a query's position counts the elements
        # of ``a`` before it (queries first for 'left': ties go after them) plus the queries
        # before it, which its rank among the queries alone removes.
        if side == "left":
            pos = _slice(_rank(lax_shape.concatenate([vf, a], 0)), 0, m)
        else:
            pos = _slice(_rank(lax_shape.concatenate([a, vf], 0)), n, n + m)
        idx = lax.sub(pos, _rank(vf))
    return lax_shape.reshape(idx, out_shape)


def digitize(x, bins, right: bool = False, *, method: str | None = None):
    """Index of the bin of ``bins`` (increasing or decreasing) each ``x`` falls in.

    >>> jnp.digitize(jnp.array([0.0, 1.0, 1.5, 3.0]), jnp.array([1.0, 2.0, 3.0]))
    Array([0, 1, 1, 3], dtype=int32)
    """
    check_arraylike("digitize", x, bins)
    x, b = to_array(x), to_array(bins)
    if b.ndim != 1:
        raise ValueError(
            f"digitize: bins must be a 1-dimensional array; got bins of shape {b.shape}"
        )
    n = b.shape[0]
    if n == 0:
        return lax_shape.full(x.shape, 0, np.int32)
    side = "left" if right else "right"
    kw = {} if method is None else {"method": method}
    inc = searchsorted(b, x, side=side, **kw)
    dec = lax.sub(_const(n, np.int32), searchsorted(lax_shape.rev(b, (0,)), x, side=side, **kw))
    first, last = _slice(b, 0, 1), _slice(b, n - 1, n)
    increasing = lax_shape.reshape(lax.ge(*promote_dtypes(last, first)), ())
    return _where(increasing, inc, dec)


# ---------------------------------------------------------------------------------------------
# unique

_UniqueAllResult = namedtuple(
    "_UniqueAllResult", ["values", "indices", "inverse_indices", "counts"]
)
_UniqueCountsResult = namedtuple("_UniqueCountsResult", ["values", "counts"])
_UniqueInverseResult = namedtuple("_UniqueInverseResult", ["values", "inverse_indices"])


def _not_equal(x: Any, y: Any, equal_nan: bool) -> Any:
    ne = lax.ne(x, y)
    if equal_nan and dtypes.issubdtype(x.dtype, np.inexact):
        both_nan = lax.bitwise_and(lax.ne(x, x), lax.ne(y, y))
        ne = lax.bitwise_and(ne, lax.bitwise_not(both_nan))
    return ne


def _prefix(x: Any, size: int) -> Any:
    """The first ``size`` rows of ``x`` (zero-padded when ``x`` is shorter)."""
    n = x.shape[0]
    if size <= n:
        return _slice(x, 0, size)
    pad = [(0, size - n, 0)] + [(0, 0, 0)] * (x.ndim - 1)
    return lax_padding.pad(x, _const(0, x.dtype), pad)


def unique(ar, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None, *, equal_nan: bool = True,
           size: int | None = None, fill_value=None, sorted: bool = True):  # fmt: skip
    """The sorted unique values of ``ar`` (rows or slices along ``axis``), optionally with the
    index of each one's first occurrence, the inverse mapping and the counts.

    The number of unique values sets the output shape, so ``ar`` must be concrete unless
    ``size`` is given: then the output has ``size`` entries, padded with ``fill_value``
    (default: the smallest unique value) or truncated.

    >>> jnp.unique(jnp.array([3, 1, 2, 1]), return_counts=True)
    (Array([1, 2, 3], dtype=int32), Array([2, 1, 1], dtype=int32))
    """
    check_arraylike("unique", ar)
    x = to_array(ar)
    if axis is None:
        orig_shape = x.shape
        x2 = lax_shape.reshape(x, (x.size, 1))
        cols_shape = ()
    else:
        axis = _canonical_axis("unique", axis, x.ndim)
        perm = (axis,) + tuple(d for d in range(x.ndim) if d != axis)
        xt = lax_shape.transpose(x, perm)
        cols_shape = xt.shape[1:]
        k = int(np.prod(cols_shape, dtype=np.int64))
        x2 = lax_shape.reshape(xt, (xt.shape[0], k))
        orig_shape = (x.shape[axis],)
    n, k = x2.shape
    cols = [lax_shape.reshape(_slice(x2, j, j + 1, 1), (n,)) for j in range(k)]
    if n == 0 or k == 0:
        out_n = 0 if size is None else operator.index(size)
        values = lax_shape.full(
            (out_n, *cols_shape), 0 if fill_value is None else fill_value, x.dtype
        )
        if axis is not None:
            values = lax_shape.transpose(values, _inverse_perm(perm))
        return _unique_result(
            values,
            lax_shape.full((out_n,), 0, np.int32),
            lax_shape.full(orig_shape, 0, np.int32),
            lax_shape.full((out_n,), 0, np.int32),
            return_index, return_inverse, return_counts,
        )  # fmt: skip
    idx = _iota(n)
    *scols, sperm = lax_sort.sort((*cols, idx), num_keys=k)
    diffs = [_not_equal(_slice(c, 1, n), _slice(c, 0, n - 1), equal_nan) for c in scols]
    changed = diffs[0]
    for d in diffs[1:]:
        changed = lax.bitwise_or(changed, d)
    is_first = lax_shape.concatenate([lax_shape.full((1,), True, np.bool_), changed], 0)
    count = reductions.sum(is_first, dtype=np.int32)
    if size is None:
        # The count of distinct values is known whenever the values are: under grad of a
        # concrete array too (comparisons carry no tangent), not under jit.
        if isinstance(count, Tracer):
            _concrete(
                "unique", "ar", x,
                "To use jnp.unique under jit or another transformation, pass a concrete size= "
                "argument, which fixes the number of outputs.",
            )  # fmt: skip
        size = int(np.asarray(count))
    size = operator.index(size)
    # Compaction: sorting by (position if first else n + position) brings the first element of
    # each group to the front, in order.
    key = lax.select_n(is_first, lax.add(idx, _const(n, np.int32)), idx)
    ckey, cperm, *ccols = lax_sort.sort((key, sperm, *scols), num_keys=1)
    valid = lax.lt(_iota(size), count)
    # Values: rows of the first elements, then fill (default: the smallest value).
    crow = lax_shape.concatenate([lax_shape.broadcast_in_dim(c, (n, 1), (0,)) for c in ccols], 1)
    vals = _prefix(crow, size)
    if fill_value is None:
        fill = _broadcast_to(_slice(crow, 0, 1), (size, k))
    else:
        check_arraylike("unique", fill_value)
        fill = _broadcast_to(convert(fill_value, x.dtype, x.weak_type), (size, k))
    vals = lax.select_n(
        _broadcast_to(lax_shape.broadcast_in_dim(valid, (size, 1), (0,)), (size, k)), fill, vals
    )
    values = lax_shape.reshape(vals, (size, *cols_shape))
    if axis is None:
        values = lax_shape.reshape(values, (size,))
    else:
        values = lax_shape.transpose(values, _inverse_perm(perm))
    index = counts = inverse = None
    if return_index:
        first_idx = _broadcast_to(_slice(cperm, 0, 1), (size,))
        index = lax.select_n(valid, first_idx, _prefix(cperm, size))
    if return_counts:
        nn = _const(n, np.int32)
        starts = lax.min(ckey, _broadcast_to(nn, (n,)))
        ends = lax_shape.concatenate([_slice(starts, 1, n), lax_shape.full((1,), n, np.int32)], 0)
        counts = lax.select_n(
            valid, lax_shape.full((size,), 0, np.int32), _prefix(lax.sub(ends, starts), size)
        )
    if return_inverse:
        group = lax.sub(lax_red.cumsum(convert(is_first, np.int32), 0), _const(1, np.int32))
        inverse = lax_shape.reshape(lax_sort.sort_key_val(sperm, group)[1], orig_shape)
    return _unique_result(
        values, index, inverse, counts, return_index, return_inverse, return_counts
    )


def _inverse_perm(perm: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in np.argsort(perm))


def _unique_result(values, index, inverse, counts, return_index, return_inverse, return_counts):
    out = [values]
    if return_index:
        out.append(index)
    if return_inverse:
        out.append(inverse)
    if return_counts:
        out.append(counts)
    return out[0] if len(out) == 1 else tuple(out)


def unique_values(x, /, *, size: int | None = None, fill_value=None):
    """The sorted unique values (array API: NaNs are all distinct)."""
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def unique_counts(x, /, *, size: int | None = None, fill_value=None):
    """``(values, counts)`` of the unique values, as a named tuple."""
    v, c = unique(x, return_counts=True, equal_nan=False, size=size, fill_value=fill_value)
    return _UniqueCountsResult(v, c)


def unique_inverse(x, /, *, size: int | None = None, fill_value=None):
    """``(values, inverse_indices)`` of the unique values, as a named tuple."""
    v, i = unique(x, return_inverse=True, equal_nan=False, size=size, fill_value=fill_value)
    return _UniqueInverseResult(v, i)


def unique_all(x, /, *, size: int | None = None, fill_value=None):
    """``(values, indices, inverse_indices, counts)`` of the unique values."""
    v, i, inv, c = unique(
        x, return_index=True, return_inverse=True, return_counts=True, equal_nan=False,
        size=size, fill_value=fill_value,
    )  # fmt: skip
    return _UniqueAllResult(v, i, inv, c)


# ---------------------------------------------------------------------------------------------
# bincount, histogram


@with_out_sharding("jnp.bincount")
def bincount(x, weights=None, minlength: int = 0, *, length: int | None = None, out_sharding=None):
    """Counts (or summed ``weights``) of each non-negative integer value of the 1-D ``x``;
    negative values count as 0 and values past ``length`` are dropped.

    Without ``length`` the result length is ``max(x) + 1`` (at least ``minlength``), so ``x``
    must be concrete.

    >>> jnp.bincount(jnp.array([0, 1, 1, 3]))
    Array([1, 2, 0, 1], dtype=int32)
    """
    check_arraylike("bincount", x)
    xa = to_array(x)
    if not (dtypes.issubdtype(xa.dtype, np.integer) or xa.dtype == np.bool_):
        raise TypeError(f"x argument to bincount must have an integer type; got {xa.dtype}")
    if xa.ndim != 1:
        raise ValueError(f"bincount: only 1-dimensional input supported, got shape {xa.shape}.")
    minlength = operator.index(minlength)
    if length is None:
        v = _concrete("bincount", "x", xa, "To avoid this error, pass a static `length` argument.")
        length = max(minlength, int(v.max()) + 1 if v.size else 0)
    length = operator.index(length)
    if length < 0:
        raise ValueError(f"bincount: length must be non-negative, got {length}")
    n = xa.shape[0]
    if weights is None:
        w = None
        out_dt = dtypes.default_int_dtype()
    else:
        check_arraylike("bincount", weights)
        w = to_array(weights)
        if w.shape != xa.shape:
            raise ValueError(
                f"bincount: weights must have the shape of x, got x of shape {xa.shape} and "
                f"weights of shape {w.shape}"
            )
        if w.dtype == np.bool_:
            raise TypeError("bincount: weights of dtype bool are not supported (add them as ints)")
        w = convert(w, w.dtype)
        out_dt = w.dtype
    if length == 0 or n == 0:
        return lax_shape.full((length,), 0, out_dt)
    xi = convert(xa, np.int32)
    # One-hot accumulation: entry (i, b) says whether x[i] falls in bin b.
    full = (n, length)
    xb = lax_shape.broadcast_in_dim(lax.max(xi, _const(0, np.int32)), full, (0,))
    hit = lax.eq(xb, lax_shape.broadcasted_iota(np.int32, full, 1))
    if w is None:
        return reductions.sum(hit, axis=0, dtype=out_dt)
    wb = lax_shape.broadcast_in_dim(w, full, (0,))
    return lax_red.reduce_sum(lax.select_n(hit, _broadcast_to(_const(0, out_dt), full), wb), (0,))


def _linspace_edges(lo: Any, hi: Any, bins: int, dt: np.dtype) -> Any:
    t = lax.div(lax_shape.iota(dt, bins), _const(bins, dt))
    lo_b, hi_b = _broadcast_to(lo, (bins,)), _broadcast_to(hi, (bins,))
    inner = lax.add(lax.mul(lo_b, lax.sub(_const(1, dt), t)), lax.mul(hi_b, t))
    return lax_shape.concatenate([inner, lax_shape.reshape(hi, (1,))], 0)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The bin edges ``histogram`` uses: ``bins`` itself when it is an array, else ``bins + 1``
    evenly spaced edges over ``range`` (default: the data's min and max)."""
    check_arraylike("histogram_bin_edges", a)
    (x,) = promote_dtypes_inexact(a)
    dt = x.dtype
    if not (dtypes.is_python_scalar(bins) or np.ndim(bins) == 0):
        check_arraylike("histogram_bin_edges", bins)
        if np.ndim(bins) != 1:
            raise TypeError(
                f"histogram: bins must be an int or a 1-D array, got shape {np.shape(bins)}"
            )
        return convert(bins, dtypes.to_inexact_dtype(dtypes.result_type(bins, dt)))
    nbins = operator.index(bins)
    if nbins < 1:
        raise ValueError(f"histogram: `bins` must be positive, got {nbins}")
    x = convert(x, dt)
    if range is None:
        if x.size == 0:
            lo, hi = _const(0, dt), _const(1, dt)
        else:
            lo, hi = reductions.min(x), reductions.max(x)
    else:
        if len(range) != 2:
            raise ValueError(f"histogram: range must be a pair (min, max), got {range!r}")
        lo, hi = convert(range[0], dt), convert(range[1], dt)
    # Equal bounds widen by 1/2 on each side, as NumPy does.
    same = lax.eq(lo, hi)
    half = _const(0.5, dt)
    lo = lax.select_n(same, lo, lax.sub(lo, half))
    hi = lax.select_n(same, hi, lax.add(hi, half))
    return _linspace_edges(lo, hi, nbins, dt)


def histogram(a, bins=10, range=None, weights=None, density: bool | None = None):
    """Counts (or summed ``weights``) of ``a`` in bins, and the bin edges. Bins are half-open
    except the last, which includes its upper edge; values outside are dropped.

    >>> jnp.histogram(jnp.array([0.0, 1.0, 1.0, 3.0]), bins=3)[0]
    Array([1., 2., 1.], dtype=float32)
    """
    check_arraylike("histogram", a)
    (x,) = promote_dtypes_inexact(a)
    x = _ravel(convert(x, x.dtype)) if x.ndim != 1 else convert(x, x.dtype)
    if weights is not None:
        check_arraylike("histogram", weights)
        if np.shape(weights) != np.shape(a):
            raise ValueError(
                f"histogram: weights should have the same shape as a, got {np.shape(weights)} "
                f"and {np.shape(a)}"
            )
    edges = histogram_bin_edges(x, bins, range, weights)
    nb = edges.shape[0]
    idx = searchsorted(edges, x, side="right")
    last = lax_shape.reshape(_slice(edges, nb - 1, nb), ())
    x_, last_ = promote_dtypes(x, last)
    idx = _where(lax.eq(x_, last_), nb - 1, idx)
    if weights is None:
        w = lax_shape.full(x.shape, 1, x.dtype)
    else:
        (w,) = promote_dtypes_inexact(weights)
        w = _ravel(convert(w, w.dtype)) if w.ndim != 1 else convert(w, w.dtype)
    counts = _slice(bincount(idx, w, length=nb + 1), 1, nb)
    if density:
        db = lax.sub(_slice(edges, 1, nb), _slice(edges, 0, nb - 1))
        c, db = promote_dtypes(counts, db)
        counts = lax.div(lax.div(c, db), reductions.sum(c))
    return counts, edges


__all__ = [
    "argpartition",
    "argsort",
    "bincount",
    "digitize",
    "histogram",
    "histogram_bin_edges",
    "lexsort",
    "partition",
    "searchsorted",
    "sort",
    "unique",
    "unique_all",
    "unique_counts",
    "unique_inverse",
    "unique_values",
]
