"""Summary statistics of samples: ``mode``, ``rankdata`` and ``sem``
(``spmd.scipy.stats``).

``mode`` and ``rankdata`` work on a sorted copy: runs of equal values (NaNs count as equal
to each other and sort last) are found from where the sorted values change, so both are
O(n log n) and have static shapes under ``jit``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from spmd._src import dtypes
from spmd._src.numpy.util import check_arraylike
from spmd._src.scipy.stats._common import jnp, nan, where
from spmd._src.util import canonicalize_axis

__all__ = ["ModeResult", "mode", "rankdata", "sem"]

_NAN_POLICIES = ("propagate", "omit", "raise")


class ModeResult(NamedTuple):
    """The most common value along an axis and how often it occurs."""

    mode: Any
    count: Any


def _check_nan_policy(fn: str, nan_policy: str) -> None:
    if nan_policy not in _NAN_POLICIES:
        raise ValueError(
            f"Illegal nan_policy value {nan_policy!r}; expected one of "
            "{'propagate', 'omit', 'raise'}"
        )
    if nan_policy == "omit":
        raise NotImplementedError("Logic for `nan_policy` of omit is not implemented")
    if nan_policy == "raise":
        raise NotImplementedError(
            f"In order to best JIT compile `{fn}`, we cannot know whether `x` contains nans. "
            f"Please check if nans exist in `x` outside of the `{fn}` function."
        )


def _runs(s):
    """For values ``s`` sorted along the last axis: each position's run index (0-based) and
    the start positions of the runs (padded with ``n``), along the last axis."""
    n = s.shape[-1]
    prev, cur = s[..., :-1], s[..., 1:]
    both_nan = jnp.isnan(prev) & jnp.isnan(cur) if dtypes.issubdtype(s.dtype, np.inexact) else False
    changed = (prev != cur) & ~both_nan
    first = jnp.ones(s.shape[:-1] + (1,), dtype=bool)
    is_start = jnp.concatenate([first, changed], axis=-1)
    run = jnp.cumsum(is_start, axis=-1, dtype=np.int32) - 1
    pos = jnp.arange(n, dtype=np.int32)
    starts = jnp.sort(where(is_start, pos, n), axis=-1)
    return run, starts


def mode(a: Any, axis: int | None = 0, nan_policy: str = "propagate", keepdims: bool = False):
    """The smallest of the most common values along ``axis`` (all of ``a`` for None) and its
    count. An empty axis gives NaN with count 0 (both of the default float type)."""
    check_arraylike("mode", a)
    _check_nan_policy("mode", nan_policy)
    x = jnp.asarray(a)
    ndim, flat = x.ndim, axis is None
    if flat:
        x = jnp.ravel(x)
        axis = 0
    else:
        x = jnp.atleast_1d(x)
        axis = canonicalize_axis(axis, x.ndim)
    x = jnp.moveaxis(x, axis, -1)
    n = x.shape[-1]
    if n == 0:
        float_ = dtypes.default_float_dtype()
        m, c = jnp.full(x.shape[:-1], nan, float_), jnp.zeros(x.shape[:-1], float_)
    elif x.size == 0:  # no slices to take a mode of
        m, c = jnp.zeros(x.shape[:-1], x.dtype), jnp.zeros(x.shape[:-1], np.int32)
    else:
        s = jnp.sort(x, axis=-1)
        _, starts = _runs(s)
        ends = jnp.concatenate([starts[..., 1:], jnp.full(starts.shape[:-1] + (1,), n)], axis=-1)
        counts = jnp.where(starts < n, ends - starts, 0).astype(np.int32)
        best = jnp.argmax(counts, axis=-1)[..., None]
        first = jnp.take_along_axis(starts, best, axis=-1)
        m = jnp.take_along_axis(s, first, axis=-1)[..., 0]
        c = jnp.take_along_axis(counts, best, axis=-1)[..., 0]
    if keepdims and flat:  # every dimension of a kept, as size 1
        m, c = jnp.reshape(m, (1,) * ndim), jnp.reshape(c, (1,) * ndim)
    elif keepdims:
        m, c = jnp.expand_dims(m, axis), jnp.expand_dims(c, axis)
    return ModeResult(m, c)


def rankdata(
    a: Any, method: str = "average", *, axis: int | None = None, nan_policy: str = "propagate"
) -> Any:
    """Ranks (from 1) of the values along ``axis`` (of the flattened array for None), ties
    resolved by ``method``: "average", "min", "max", "dense" or "ordinal" (by position). The
    ranks are of the default float type; a slice holding a NaN is all NaN."""
    check_arraylike("rankdata", a)
    _check_nan_policy("rankdata", nan_policy)
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    x = jnp.asarray(a)
    if axis is None:
        x, axis = jnp.ravel(x), 0
    axis = canonicalize_axis(axis, x.ndim)
    x = jnp.moveaxis(x, axis, -1)
    n = x.shape[-1]
    float_ = dtypes.default_float_dtype()
    order = jnp.argsort(x, axis=-1, stable=True)
    inverse = jnp.argsort(order, axis=-1, stable=True)  # each element's position when sorted
    if method == "ordinal":
        ranks = inverse + 1
    elif n == 0:
        ranks = inverse
    else:
        s = jnp.take_along_axis(x, order, axis=-1)
        run, starts = _runs(s)
        run = jnp.take_along_axis(run, inverse, axis=-1)
        if method == "dense":
            ranks = run + 1
        else:
            ends = jnp.concatenate([starts[..., 1:], jnp.full(starts.shape[:-1] + (1,), n)], -1)
            low = jnp.take_along_axis(starts, run, axis=-1) + 1
            high = jnp.take_along_axis(ends, run, axis=-1)
            ranks = {"min": low, "max": high}.get(method)
            if ranks is None:
                ranks = (low.astype(float_) + high.astype(float_)) / 2
    ranks = ranks.astype(float_)
    if dtypes.issubdtype(x.dtype, np.inexact):
        ranks = where(jnp.any(jnp.isnan(x), axis=-1, keepdims=True), nan, ranks)
    return jnp.moveaxis(ranks, -1, axis)


def sem(
    a: Any,
    axis: int | None = 0,
    ddof: int = 1,
    nan_policy: str = "propagate",
    *,
    keepdims: bool = False,
) -> Any:
    """The standard error of the mean: ``std(a, ddof=ddof) / sqrt(count)`` along ``axis``
    (all of ``a`` for None). ``nan_policy="omit"`` leaves NaNs out of both."""
    check_arraylike("sem", a)
    if nan_policy not in ("propagate", "omit"):
        raise ValueError(f"{nan_policy} is not supported")
    x = jnp.asarray(a)
    if axis is not None and not -x.ndim <= axis < x.ndim:
        raise IndexError(
            f"sem: axis {axis} is out of range for an array of shape {x.shape} (tuple index "
            "out of range)"
        )
    if nan_policy == "omit":
        count = jnp.sum(~jnp.isnan(x), axis=axis, keepdims=keepdims)
        std = jnp.nanstd(x, axis=axis, ddof=ddof, keepdims=keepdims)
        return std / jnp.sqrt(count.astype(std.dtype))
    size = x.size if axis is None else x.shape[axis]
    std = jnp.std(x, axis=axis, ddof=ddof, keepdims=keepdims)
    return std / jnp.sqrt(jnp.asarray(size, std.dtype))
