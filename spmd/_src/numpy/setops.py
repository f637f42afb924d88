"""Set operations on arrays: ``jnp.isin`` and the 1-D set functions ``setdiff1d``, ``union1d``,
``intersect1d`` and ``setxor1d``.

Everything is built on ``lax.sort`` (stable, NaNs last): a sorted copy marks the first element
of each run of equal values, and the selected elements are moved to the front by one more
stable sort. The number of results depends on the values, so the set functions need concrete
input unless ``size=`` is given: the result then has exactly ``size`` entries, truncated or
padded with ``fill_value``, and works under ``jit``, ``vmap`` and ``grad``.

>>> jnp.setdiff1d(jnp.array([5, 1, 3, 7]), jnp.array([3, 4]))
Array([1, 5, 7], dtype=int32)
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from spmd._src import dtypes
from spmd._src.core import Tracer
from spmd._src.errors import ConcretizationTypeError
from spmd._src.lax import elementwise as lax
from spmd._src.lax import padding as lax_padding
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.lax import sorting as lax_sort
from spmd._src.numpy.array_constructors import asarray
from spmd._src.numpy.indexing import take
from spmd._src.numpy.sorting import searchsorted
from spmd._src.numpy.util import (
    _full,
    _scalar,
    check_arraylike,
    convert,
    promote_dtypes,
)

_int32 = np.dtype(np.int32)
_bool = np.dtype(np.bool_)

# ---------------------------------------------------------------------------------------------
# Helpers


def _flat(x: Any) -> Any:
    x = asarray(x)
    return x if x.ndim == 1 else lax_shape.reshape(x, (x.size,))


def _slice(x: Any, start: int, stop: int) -> Any:
    if start == 0 and stop == x.shape[0]:
        return x
    return lax_shape.slice_in_dim(x, start, stop, 1, 0)


def _iota(n: int) -> Any:
    return lax_shape.iota(_int32, n)


def _is_nan(x: Any) -> Any:
    if not dtypes.issubdtype(x.dtype, np.inexact):
        return _full(x.shape, False, _bool)
    return lax.ne(x, x)


def _static_size(fn: str, size: Any) -> int | None:
    if size is None:
        return None
    if isinstance(size, Tracer):
        raise ConcretizationTypeError(
            f"jnp.{fn}: the size argument must be static (a Python int), got a traced value "
            f"{size.aval.str_short()}."
        )
    try:
        out = operator.index(size)
    except TypeError:
        raise TypeError(f"jnp.{fn}: size must be a non-negative integer, got {size!r}") from None
    if out < 0:
        raise TypeError(f"jnp.{fn}: size must be a non-negative integer, got {out}")
    return out


def _require_concrete(fn: str, **args: Any) -> None:
    """Without ``size``, the result's length depends on the values: they must be known."""
    for name, x in args.items():
        if isinstance(x, Tracer):
            raise ConcretizationTypeError(
                f"Abstract tracer value encountered where concrete value is expected: the "
                f"argument {name} of jnp.{fn}() is traced ({x.aval.str_short()}), and the "
                f"length of the result depends on its values. Under jit, vmap or grad pass a "
                f"static size= argument (and optionally fill_value=) to jnp.{fn}."
            )


def _fill(fn: str, fill_value: Any, dtype: np.dtype, weak: bool) -> Any:
    check_arraylike(fn, fill_value)
    f = asarray(fill_value)
    if f.ndim != 0:
        raise ValueError(
            f"jnp.{fn}: fill_value must be a scalar, got an array of shape {tuple(f.shape)}"
        )
    return convert(f, dtype, weak)


def _not_equal_nan(x: Any, y: Any) -> Any:
    """``x != y``, with NaN equal to NaN (runs of NaN collapse into one value)."""
    ne = lax.ne(x, y)
    if dtypes.issubdtype(x.dtype, np.inexact):
        ne = lax.bitwise_and(ne, lax.bitwise_not(lax.bitwise_and(_is_nan(x), _is_nan(y))))
    return ne


def _sorted_first(x: Any) -> tuple[Any, Any, Any]:
    """The 1-D ``x`` sorted (stably, NaNs last), the permutation that sorts it, and a mask of the
    first element of each run of equal values."""
    n = x.shape[0]
    s, perm = lax_sort.sort((x, _iota(n)), num_keys=1)
    if n == 0:
        return s, perm, _full((0,), True, _bool)
    changed = _not_equal_nan(_slice(s, 1, n), _slice(s, 0, n - 1))
    first = lax_shape.concatenate([_full((1,), True, _bool), changed], 0)
    return s, perm, first


def _resize(x: Any, size: int) -> Any:
    n = x.shape[0]
    if size <= n:
        return _slice(x, 0, size)
    return lax_padding.pad(x, _scalar(0, x.dtype, x.weak_type), [(0, size - n, 0)])


def _compact(values: list, mask: Any, size: int | None) -> tuple[list, Any, Any, int]:
    """The entries of each of ``values`` where ``mask`` holds, moved to the front in order, and
    cut or zero-padded to ``size`` (to their number when None: ``mask`` is concrete then).

    Returns ``(values, valid, count, size)``: ``valid`` marks the real entries, ``count`` is
    their number (a traced int32 under jit)."""
    n = mask.shape[0]
    count = lax_red.reduce_sum(convert(mask, _int32), (0,)) if n else _scalar(0, _int32)
    if size is None:
        size = int(np.asarray(count))
    if n:
        key = lax.select_n(mask, _full((n,), 1, _int32), _full((n,), 0, _int32))
        values = list(lax_sort.sort((key, *values), num_keys=1, is_stable=True)[1:])
    values = [_resize(v, size) for v in values]
    valid = lax.lt(_iota(size), lax_shape.broadcast_in_dim(count, (size,), ()))
    return values, valid, count, size


def _first_or_zero(v: Any, count: Any, size: int, nan_wins: bool = False) -> Any:
    """The default fill: the first (smallest) result, 0 when there is none; with ``nan_wins``
    NaN when any result is NaN (the minimum as ``jnp.min`` computes it)."""
    zero = _full((), 0, v.dtype, v.weak_type)
    if size == 0:
        return zero
    first = lax_shape.reshape(_slice(v, 0, 1), ())
    if nan_wins and dtypes.issubdtype(v.dtype, np.floating):
        valid = lax.lt(_iota(size), lax_shape.broadcast_in_dim(count, (size,), ()))
        any_nan = lax_red.reduce_or(lax.bitwise_and(valid, _is_nan(v)), (0,))
        first = lax.select_n(any_nan, first, _full((), np.nan, v.dtype, v.weak_type))
    return lax.select_n(lax.gt(count, _scalar(0, _int32)), zero, first)


def _apply_fill(v: Any, valid: Any, fill: Any) -> Any:
    size = v.shape[0]
    return lax.select_n(valid, lax_shape.broadcast_in_dim(fill, (size,), ()), v)


# ---------------------------------------------------------------------------------------------
# isin

_ISIN_METHODS = ("auto", "compare_all", "binary_search", "sort")


def _in1d(e: Any, t: Any, method: str) -> Any:
    """For each element of ``e`` (any shape), whether it equals an element of the 1-D ``t``
    (same dtype)."""
    shape, m, n = tuple(e.shape), e.size, t.shape[0]
    if m == 0 or n == 0:
        return _full(shape, False, _bool)
    ef = lax_shape.reshape(e, (m,))
    complex_ = dtypes.issubdtype(e.dtype, np.complexfloating)
    if method == "auto":
        method = "compare_all" if complex_ or m * n <= 4096 else "sort"
    if method == "compare_all" or complex_:
        # Complex numbers have no order for a search; every pair is compared instead.
        full = (m, n)
        hit = lax.eq(
            lax_shape.broadcast_in_dim(ef, full, (0,)), lax_shape.broadcast_in_dim(t, full, (1,))
        )
        out = lax_red.reduce_or(hit, (1,))
    else:
        st = lax_sort.sort(t)
        pos = lax.min(searchsorted(st, ef, side="left"), _scalar(n - 1, _int32))
        out = lax.eq(take(st, pos), ef)
    return lax_shape.reshape(out, shape)


def isin(element, test_elements, assume_unique: bool = False, invert: bool = False, *,
         method: str = "auto"):  # fmt: skip
    """Whether each element of ``element`` is in ``test_elements`` (a bool array of
    ``element``'s shape); ``invert=True`` gives the opposite. Values compare in their promoted
    dtype; NaN is in nothing.

    ``method`` picks the algorithm ('compare_all': all pairs; 'sort'/'binary_search': a search
    in the sorted ``test_elements``); the results are the same, as they are with
    ``assume_unique`` (accepted for NumPy compatibility).

    >>> jnp.isin(jnp.array([1, 2, 3, 4]), jnp.array([2, 4, 6]))
    Array([False,  True, False,  True], dtype=bool)
    """
    check_arraylike("isin", element, test_elements)
    if method not in _ISIN_METHODS:
        raise ValueError(
            f"jnp.isin: method={method!r} is not implemented; options are 'compare_all', "
            "'binary_search', 'sort', and 'auto'"
        )
    e, t = promote_dtypes(element, test_elements)
    out = _in1d(e, _flat(t), method)
    if invert:
        out = lax.bitwise_not(out)
    return convert(out, _bool)


# ---------------------------------------------------------------------------------------------
# setdiff1d, union1d, intersect1d, setxor1d


def _set_args(name: str, ar1, ar2, size, *, promote: bool) -> tuple:
    """The two inputs of a set function, flattened (and promoted to one dtype unless the
    function keeps ``ar1``'s), and its static ``size``; without a size the values must be
    concrete, since they fix the result's length."""
    check_arraylike(name, ar1, ar2)
    size = _static_size(name, size)
    a1, a2 = _flat(ar1), _flat(ar2)
    if promote:
        a1, a2 = promote_dtypes(a1, a2)
    if size is None:
        _require_concrete(name, ar1=a1, ar2=a2)
    return a1, a2, size


def setdiff1d(ar1, ar2, assume_unique: bool = False, *, size: int | None = None,
              fill_value=None):  # fmt: skip
    """The sorted unique values of ``ar1`` that are not in ``ar2`` (both flattened), in
    ``ar1``'s dtype. With ``assume_unique=True`` the values keep ``ar1``'s order.

    With ``size``, the result has ``size`` entries, padded with ``fill_value`` (default 0):
    that makes it usable under ``jit``.

    >>> jnp.setdiff1d(jnp.array([5, 1, 3, 3]), jnp.array([3]), size=3, fill_value=-1)
    Array([ 1,  5, -1], dtype=int32)
    """
    a1, a2, size = _set_args("setdiff1d", ar1, ar2, size, promote=False)
    n = a1.shape[0]
    if assume_unique:
        vals, mask = a1, _full((n,), True, _bool)
    else:
        vals, _, mask = _sorted_first(a1)
    if n and a2.shape[0]:
        v, t = promote_dtypes(vals, a2)
        mask = lax.bitwise_and(mask, lax.bitwise_not(_in1d(v, t, "auto")))
    (out,), valid, _, size = _compact([vals], mask, size)
    fill = _fill("setdiff1d", 0 if fill_value is None else fill_value, a1.dtype, a1.weak_type)
    return _apply_fill(out, valid, fill)


def union1d(ar1, ar2, *, size: int | None = None, fill_value=None):
    """The sorted unique values found in either of ``ar1`` and ``ar2`` (flattened; dtypes
    promoted).

    With ``size``, the result has ``size`` entries, padded with ``fill_value`` (default: the
    smallest value of the union).

    >>> jnp.union1d(jnp.array([3, 1, 3]), jnp.array([2, 1]))
    Array([1, 2, 3], dtype=int32)
    """
    a1, a2, size = _set_args("union1d", ar1, ar2, size, promote=True)
    both = lax_shape.concatenate([a1, a2], 0)
    if both.shape[0] == 0 and size and fill_value is None:
        raise ValueError(
            "jnp.union1d: both inputs are empty, so there is no smallest value to pad the "
            f"result to size={size} with; pass fill_value"
        )
    vals, _, mask = _sorted_first(both)
    (out,), valid, count, size = _compact([vals], mask, size)
    if fill_value is None:
        fill = _first_or_zero(out, count, size)
    else:
        fill = _fill("union1d", fill_value, out.dtype, out.weak_type)
    return _apply_fill(out, valid, fill)


def intersect1d(ar1, ar2, assume_unique: bool = False, return_indices: bool = False, *,
                size: int | None = None, fill_value=None):  # fmt: skip
    """The sorted unique values found in both ``ar1`` and ``ar2`` (flattened; dtypes promoted);
    with ``return_indices``, also the index in each (flattened) input of the first occurrence of
    each value.

    With ``size``, the result has ``size`` entries, values padded with ``fill_value`` (default:
    the smallest value of the intersection, or 0) and indices with the inputs' sizes (out of
    bounds).

    >>> jnp.intersect1d(jnp.array([5, 1, 3, 1]), jnp.array([3, 1, 8]), return_indices=True)
    (Array([1, 3], dtype=int32), Array([1, 2], dtype=int32), Array([1, 0], dtype=int32))
    """
    a1, a2, size = _set_args("intersect1d", ar1, ar2, size, promote=True)
    n1, n2 = a1.shape[0], a2.shape[0]
    # assume_unique only promises there are no repeats; finding them anyway gives the same
    # result for unique input.
    s1, p1, mask = _sorted_first(a1)
    s2, p2 = lax_sort.sort((a2, _iota(n2)), num_keys=1)
    if n1 and n2:
        # The stable sort keeps equal values in input order, so the leftmost match in ``s2``
        # is the first occurrence in ``ar2``.
        pos = lax.min(searchsorted(s2, s1, side="left"), _scalar(n2 - 1, _int32))
        mask = lax.bitwise_and(mask, lax.eq(take(s2, pos), s1))
        i2 = take(p2, pos)
    else:
        mask = _full((n1,), False, _bool)
        i2 = _full((n1,), 0, _int32)
    (out, i1, i2), valid, count, size = _compact([s1, p1, i2], mask, size)
    if fill_value is None:
        fill = _first_or_zero(out, count, size)
    else:
        fill = _fill("intersect1d", fill_value, out.dtype, out.weak_type)
    out = _apply_fill(out, valid, fill)
    if not return_indices:
        return out
    i1 = _apply_fill(i1, valid, _scalar(n1, _int32))
    i2 = _apply_fill(i2, valid, _scalar(n2, _int32))
    return out, i1, i2


def setxor1d(ar1, ar2, assume_unique: bool = False, *, size: int | None = None,
             fill_value=None):  # fmt: skip
    """The sorted unique values found in exactly one of ``ar1`` and ``ar2`` (flattened; dtypes
    promoted). NaN is never found in the other input, so each input's NaN is kept.

    With ``size``, the result has ``size`` entries, padded with ``fill_value`` (default: the
    smallest value of the result, NaN if it holds one; 0 when it is empty).

    >>> jnp.setxor1d(jnp.array([1, 2, 3]), jnp.array([3, 4]))
    Array([1, 2, 4], dtype=int32)
    """
    a1, a2, size = _set_args("setxor1d", ar1, ar2, size, promote=True)
    parts, masks = [], []
    for x, other in ((a1, a2), (a2, a1)):
        n = x.shape[0]
        if assume_unique:
            vals, first = x, _full((n,), True, _bool)
        else:
            vals, _, first = _sorted_first(x)
        if n and other.shape[0]:
            first = lax.bitwise_and(first, lax.bitwise_not(_in1d(vals, other, "auto")))
        parts.append(vals)
        masks.append(first)
    vals = lax_shape.concatenate(parts, 0)
    mask = lax_shape.concatenate(masks, 0)
    if vals.shape[0]:
        # Sort by value so the selected entries come out in order.
        vals, mask = lax_sort.sort((vals, mask), num_keys=1)
    (out,), valid, count, size = _compact([vals], mask, size)
    if fill_value is None:
        fill = _first_or_zero(out, count, size, nan_wins=True)
    else:
        fill = _fill("setxor1d", fill_value, out.dtype, out.weak_type)
    return _apply_fill(out, valid, fill)


__all__ = [
    "intersect1d",
    "isin",
    "setdiff1d",
    "setxor1d",
    "union1d",
]
