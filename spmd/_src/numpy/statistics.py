"""Statistics of ``spmd.numpy``: means and moments (``mean``, ``var``, ``std``, ``average``),
order statistics (``quantile``, ``percentile``, ``median``), and their NaN-ignoring variants.

Means and variances of bools and integers give float32 (x64 off), as in JAX.

>>> jnp.mean(jnp.arange(6).reshape(2, 3), axis=1, keepdims=True)
Array([[1.],
       [4.]], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from spmd._src import dtypes
from spmd._src.lax import elementwise as lax
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.lax import sorting as lax_sort
from spmd._src.numpy import ufuncs
from spmd._src.numpy.reductions import (
    _broadcast_to,
    _canonical_axes,
    _check_out,
    _check_where,
    _const,
    _dtype_arg,
    _is_inexact,
    _isnan,
    _keepdims_shape,
    _real_dtype,
    _scalar_operand,
    _static_axis,
    _upcast_f16,
    _where,
    any,
    nansum,
    sum,
)
from spmd._src.numpy.ufuncs import _where_jit
from spmd._src.numpy.util import (
    _named_jit,
    check_arraylike,
    convert,
    promote_dtypes_inexact,
    to_array,
)

# ---------------------------------------------------------------------------------------------
# Means and moments


def _count(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    n = 1
    for d in axes:
        n *= shape[d]
    return n


def mean(a, axis=None, dtype=None, out=None, keepdims: bool = False, *, where=None):
    """Arithmetic mean over ``axis``; with ``where``, of the selected elements only.

    >>> jnp.mean(jnp.array([1, 2, 3, 4]))
    Array(2.5, dtype=float32)
    """
    check_arraylike("mean", a)
    _check_out("mean", out)
    x = to_array(a)
    axes = _canonical_axes("mean", axis, x.ndim)
    dtype = _dtype_arg(dtype, "mean")
    if dtype is None:
        result_dt = dtypes.to_inexact_dtype(x.dtype)
        comp_dt = _upcast_f16(result_dt)
    else:
        result_dt = comp_dt = dtype
    if where is None:
        normalizer = _const(_count(x.shape, axes), comp_dt)
    else:
        w = _broadcast_to(_check_where("mean", where, x.shape), x.shape)
        normalizer = sum(w, axes, dtype=comp_dt, keepdims=keepdims)
    total = sum(x, axes, dtype=comp_dt, keepdims=keepdims, where=where)
    r = lax.div(total, normalizer)
    return convert(r, result_dt) if comp_dt != result_dt else r


def _var_dtypes(fn: str, a_dt: np.dtype, dtype: Any) -> tuple[np.dtype, np.dtype]:
    """(computation dtype, result dtype) of var/std."""
    dtype = _dtype_arg(dtype, fn)
    if dtype is not None:
        if not _is_inexact(dtype):
            if fn == "std":
                raise ValueError(f"dtype argument to jnp.std must be inexact; got {dtype}")
            return dtype, dtype
        return _upcast_f16(dtype), dtype
    if not _is_inexact(a_dt):
        dt = dtypes.to_inexact_dtype(a_dt)
        return dt, dt
    if a_dt.kind == "c":
        return a_dt, _real_dtype(a_dt)
    return _upcast_f16(a_dt), a_dt


def _correction(ddof: Any, correction: Any) -> Any:
    if correction is None:
        return ddof
    if not (isinstance(ddof, int) and ddof == 0):
        raise ValueError("ddof and correction can't be provided simultaneously.")
    return correction


def _abs2(centered: Any) -> Any:
    if centered.dtype.kind == "c":
        return lax.real(lax.mul(centered, lax.conj(centered)))
    return lax.square(centered)


def _moment(fn, a, axis, dtype, out, ddof, keepdims, where, mean_arg, correction):
    check_arraylike(fn, a)
    _check_out(fn, out)
    correction = _correction(ddof, correction)
    x = to_array(a)
    axes = _canonical_axes(fn, axis, x.ndim)
    comp_dt, result_dt = _var_dtypes(fn, x.dtype, dtype)
    real_dt = _real_dtype(comp_dt)
    x = convert(x, comp_dt)
    w = None if where is None else _broadcast_to(_check_where(fn, where, x.shape), x.shape)
    if mean_arg is None:
        mu = mean(x, axes, dtype=comp_dt, keepdims=True, where=w)
    else:
        check_arraylike(fn, mean_arg)
        mu = convert(mean_arg, comp_dt)
        # A scalar mean is subtracted as it is (lax broadcasts rank 0), as in JAX.
        mu = mu if np.ndim(mu) == 0 else _broadcast_to(mu, x.shape)
    centered = _abs2(lax.sub(x, mu))
    if w is None:
        n = _const(_count(x.shape, axes), real_dt)
    else:
        n = sum(w, axes, dtype=real_dt, keepdims=keepdims)
    normalizer = lax.sub(n, _scalar_operand(fn, "correction", correction, real_dt))
    r = sum(centered, axes, dtype=real_dt, keepdims=keepdims, where=w)
    r = lax.div(r, normalizer)
    if r.dtype != result_dt:
        r = convert(r, result_dt)
    return _where(lax.gt(normalizer, _const(0, real_dt)), r, np.nan)


def var(
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof: int = 0,
    keepdims: bool = False,
    *,
    where=None,
    mean=None,
    correction=None,
):
    """Variance over ``axis``, dividing by ``N - correction`` (``ddof`` is its old name).

    >>> jnp.var(jnp.array([1.0, 2.0, 3.0, 4.0]))
    Array(1.25, dtype=float32)
    """
    correction, axes = _moment_args("var", a, axis, dtype, out, ddof, correction)
    return _var_jit(a, mean, correction, where, axis=axes, dtype=_checked(dtype), keepdims=keepdims)


def std(
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof: int = 0,
    keepdims: bool = False,
    *,
    where=None,
    mean=None,
    correction=None,
):
    """Standard deviation over ``axis`` (the square root of ``var``).

    >>> jnp.std(jnp.array([1.0, 3.0]))
    Array(1., dtype=float32)
    """
    correction, axes = _moment_args("std", a, axis, dtype, out, ddof, correction)
    return _std_jit(a, mean, correction, where, axis=axes, dtype=_checked(dtype), keepdims=keepdims)


def _checked(dtype: Any) -> np.dtype | None:
    """A dtype the public function checked (and warned about): canonical, so the jit's
    trace does not warn about it again."""
    return None if dtype is None else dtypes.canonicalize_dtype(dtype)


def _moment_args(fn, a, axis, dtype, out, ddof, correction):
    """(correction, canonical axes) of var/std, with their argument errors raised before
    tracing, under the public function's name."""
    check_arraylike(fn, a)
    _check_out(fn, out)
    _var_dtypes(fn, dtypes.dtype(a, canonicalize=True), dtype)
    return _correction(ddof, correction), _canonical_axes(fn, axis, np.ndim(a))


# Jitted as in JAX 0.10, with the correction, mean and where traced (its arguments in this
# order), so that they print as `jit[name=_var]` and `jit[name=_std]`.
def _var_body(a, mean_arg, correction, where, *, axis, dtype, keepdims):
    return _moment("var", a, axis, dtype, None, correction, keepdims, where, mean_arg, None)


def _std_body(a, mean_arg, correction, where, *, axis, dtype, keepdims):
    return lax.sqrt(
        _var_jit(a, mean_arg, correction, where, axis=axis, dtype=dtype, keepdims=keepdims)
    )


_var_jit = _named_jit("_var", _var_body, ("axis", "dtype", "keepdims"))
_std_jit = _named_jit("_std", _std_body, ("axis", "dtype", "keepdims"))


def average(a, axis=None, weights=None, returned: bool = False, keepdims: bool = False):
    """Weighted average over ``axis``; with ``returned``, also the sum of the weights.

    >>> jnp.average(jnp.array([1.0, 2.0, 4.0]), weights=jnp.array([1.0, 1.0, 2.0]))
    Array(2.75, dtype=float32)
    """
    if weights is None:
        check_arraylike("average", a)
        x = to_array(a)
        axes = _canonical_axes("average", axis, x.ndim)
        avg = mean(x, axes, keepdims=keepdims)
        if not returned:
            return avg
        n = _count(x.shape, axes)
        return avg, lax_shape.full(avg.shape, n, avg.dtype)
    check_arraylike("average", a, weights)
    x, w = promote_dtypes_inexact(a, weights)
    x, w = convert(x, x.dtype), convert(w, w.dtype)
    axes = _canonical_axes("average", axis, x.ndim)
    if x.shape != w.shape:
        if axis is None:
            raise ValueError("Axis must be specified when shapes of a and weights differ.")
        want = tuple(x.shape[d] for d in axes)
        if w.shape != want:
            raise ValueError(
                "Shape of weights must be consistent with shape of a along specified axis: "
                f"average got a of shape {x.shape}, axis={axis} and weights of shape {w.shape} "
                f"(expected {want})."
            )
        order = sorted(range(len(axes)), key=lambda i: axes[i])
        w = lax_shape.transpose(w, order)
        w = lax_shape.reshape(
            w, _keepdims_shape(x.shape, tuple(d for d in range(x.ndim) if d not in axes))
        )
    weights_sum = sum(w, axes, keepdims=keepdims)
    avg = lax.div(sum(lax.mul(x, w), axes, keepdims=keepdims), weights_sum)
    if not returned:
        return avg
    if weights_sum.shape != avg.shape:
        weights_sum = _broadcast_to(weights_sum, avg.shape)
    return avg, weights_sum


def nanmean(a, axis=None, dtype=None, out=None, keepdims: bool = False, where=None):
    """``mean`` of the non-NaN elements.

    >>> jnp.nanmean(jnp.array([1.0, jnp.nan, 3.0]))
    Array(2., dtype=float32)
    """
    return _nanmean_jit(
        a, axis=_static_axis(axis), dtype=dtype, out=out, keepdims=keepdims, where=where
    )


def _nanmean(a, axis=None, dtype=None, out=None, keepdims: bool = False, where=None):
    check_arraylike("nanmean", a)
    _check_out("nanmean", out)
    x = to_array(a)
    if not _is_inexact(x.dtype):
        return mean(x, axis, dtype, keepdims=keepdims, where=where)
    axes = _canonical_axes("nanmean", axis, x.ndim)
    dtype = _dtype_arg(dtype, "nanmean")
    if dtype is None:
        dtype = x.dtype
    valid = lax.bitwise_not(_isnan(x))
    normalizer = sum(valid, axes, dtype=dtype, keepdims=keepdims, where=where)
    total = nansum(x, axes, dtype=dtype, keepdims=keepdims, where=where)
    return lax.div(total, normalizer)


# A jit in JAX 0.10, printed as `jit[name=nanmean]`.
_nanmean_jit = _named_jit("nanmean", _nanmean, ("axis", "dtype", "out", "keepdims"))


def nanvar(
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof: int = 0,
    keepdims: bool = False,
    where=None,
    mean=None,
    *,
    correction=None,
):
    """``var`` of the non-NaN elements.

    >>> jnp.nanvar(jnp.array([1.0, jnp.nan, 3.0]))
    Array(1., dtype=float32)
    """
    kw = _nan_moment_args("nanvar", a, axis, dtype, out, ddof, where, mean, correction)
    return _nanvar_jit(a, axis=_static_axis(axis), dtype=_checked(dtype), keepdims=keepdims, **kw)


def nanstd(
    a,
    axis=None,
    dtype=None,
    out=None,
    ddof: int = 0,
    keepdims: bool = False,
    where=None,
    mean=None,
    *,
    correction=None,
):
    """``std`` of the non-NaN elements.

    >>> jnp.nanstd(jnp.array([1.0, jnp.nan, 3.0]))
    Array(1., dtype=float32)
    """
    kw = _nan_moment_args("nanstd", a, axis, dtype, out, ddof, where, mean, correction)
    return _nanstd_jit(a, axis=_static_axis(axis), dtype=_checked(dtype), keepdims=keepdims, **kw)


def _nan_moment_args(fn, a, axis, dtype, out, ddof, where, mean_arg, correction) -> dict:
    """The traced keyword arguments of the nanvar/nanstd jits (those given: JAX's jit flattens
    keywords in name order), after the argument errors under the public function's name."""
    check_arraylike(fn, a)
    _check_out(fn, out)
    _var_dtypes(fn, dtypes.dtype(a, canonicalize=True), dtype)
    _canonical_axes(fn, axis, np.ndim(a))
    ddof = _correction(ddof, correction)
    kw = {"where": where, "mean": mean_arg}
    kw = {k: v for k, v in kw.items() if v is not None}
    if not (type(ddof) is int and ddof == 0):
        kw["ddof"] = ddof
    return kw


def _nanvar_body(a, axis=None, dtype=None, ddof=0, keepdims=False, where=None, mean=None):
    # JAX 0.10's order of operations: an int count of the non-NaN elements less ddof (with
    # jnp promotion), a NaN where it is not positive, else the sum divided by it.
    comp_dt, result_dt = _var_dtypes("nanvar", dtypes.dtype(a, canonicalize=True), dtype)
    x = convert(to_array(a), comp_dt)
    axes = _canonical_axes("nanvar", axis, x.ndim)
    if where is not None:
        where = _check_where("nanvar", where, x.shape)
    if mean is None:
        mu = nanmean(x, axes, dtype=comp_dt, keepdims=True, where=where)
    else:
        check_arraylike("nanvar", mean)
        mu = convert(mean, comp_dt)
        mu = mu if np.ndim(mu) in (0, x.ndim) else _broadcast_to(mu, x.shape)
    centered = _abs2(_where_jit(_isnan(x), 0, lax.sub(x, mu)))
    count = sum(lax.bitwise_not(_isnan(x)), axes, keepdims=keepdims, where=where)
    count = ufuncs.subtract(count, ddof)
    empty = lax.le(count, _const(0, count.dtype))
    r = _where_jit(empty, np.nan, sum(centered, axes, keepdims=keepdims, where=where))
    divisor = _where_jit(empty, 1, count)
    return convert(lax.div(r, convert(divisor, r.dtype)), result_dt)


def _nanstd_body(a, axis=None, dtype=None, ddof=0, keepdims=False, where=None, mean=None):
    kw = {"where": where, "mean": mean}
    kw = {k: v for k, v in kw.items() if v is not None}
    # ddof always reaches the nanvar jit (an operand there), as in JAX.
    v = _nanvar_jit(a, axis=axis, dtype=dtype, keepdims=keepdims, ddof=ddof, **kw)
    return lax.sqrt(v)


_nanvar_jit = _named_jit("nanvar", _nanvar_body, ("axis", "dtype", "keepdims"))
_nanstd_jit = _named_jit("nanstd", _nanstd_body, ("axis", "dtype", "keepdims"))


# ---------------------------------------------------------------------------------------------
# Order statistics

_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest", "inverted_cdf")


def _gather_last(s: Any, idx: Any, out_shape: tuple[int, ...]) -> Any:
    """``s[..., idx]`` for an integer index per output element, as a one-hot selection.

    ``s`` has shape ``R + (n,)``; ``idx`` broadcasts to ``out_shape = Q + R``.
    """
    n = s.shape[-1]
    full = out_shape + (n,)
    onehot = lax.eq(
        lax_shape.broadcasted_iota(np.int32, full, len(full) - 1),
        _broadcast_to(
            lax_shape.broadcast_in_dim(idx, np.shape(idx) + (1,), tuple(range(np.ndim(idx)))), full
        ),
    )
    picked = lax.select_n(
        onehot, _broadcast_to(_const(-np.inf, s.dtype), full), _broadcast_to(s, full)
    )
    # Max against -inf keeps the picked value exactly (its sign of zero and NaN included).
    return lax_red.reduce_max(picked, (len(full) - 1,))


def _quantile(fn, a, q, axis, out, method, keepdims, weights, *, ignore_nan, percent=False):
    check_arraylike(fn, a, q)
    _check_out(fn, out)
    if weights is not None:
        raise NotImplementedError(f"jnp.{fn}: the 'weights' argument is not supported.")
    if method not in _QUANTILE_METHODS:
        raise ValueError(
            "method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or "
            f"'inverted_cdf', got {method!r}"
        )
    (x,) = promote_dtypes_inexact(a)
    dt = x.dtype
    x = convert(x, dt)
    if dt.kind == "c":
        raise TypeError(f"jnp.{fn} does not support complex input, got {dt}")
    qa = to_array(q)
    if qa.ndim > 1:
        raise ValueError(f"q must be have rank <= 1, got shape {qa.shape}")
    if percent:
        (qa,) = promote_dtypes_inexact(qa)
        qa = lax.div(qa, _const(100, qa.dtype))
    qa = convert(qa, dt)
    shape = x.shape
    if axis is None:
        axes = tuple(range(x.ndim))
    else:
        axes = _canonical_axes(fn, axis, x.ndim)
    keep = tuple(d for d in range(x.ndim) if d not in axes)
    rest = tuple(shape[d] for d in keep)
    n = _count(shape, axes)
    if n == 0:
        raise TypeError(
            f"jnp.{fn}: cannot take a quantile over an empty axis (array of shape {shape}, "
            f"axis={axis})"
        )
    x = lax_shape.reshape(lax_shape.transpose(x, keep + axes), rest + (n,))
    last = len(rest)
    if ignore_nan:
        s = lax_sort.sort(x, dimension=last)
        count = sum(lax.bitwise_not(_isnan(x)), last, dtype=dt)  # per slice, shape rest
    else:
        any_nan = any(_isnan(x), last, keepdims=True)
        x = _where(any_nan, np.nan, x)
        s = lax_sort.sort(x, dimension=last)
        count = _const(n, dt)
    qshape = qa.shape
    out_shape = qshape + rest
    qb = lax_shape.broadcast_in_dim(qa, out_shape, tuple(range(len(qshape))))
    count = _broadcast_to(count, out_shape)
    one, zero = _const(1, dt), _const(0, dt)
    n1 = lax.sub(count, one)
    if method == "inverted_cdf":
        pos = lax.sub(lax.ceil(lax.mul(qb, count)), one)
        pos = lax.clamp(_broadcast_to(zero, out_shape), pos, n1)
        r = _gather_last(s, lax.convert_element_type(pos, np.int32), out_shape)
    else:
        m = lax.mul(qb, n1)
        low, high = lax.floor(m), lax.ceil(m)
        high_w = lax.sub(m, low)
        low_w = lax.sub(one, high_w)
        zero_b = _broadcast_to(zero, out_shape)
        low = lax.convert_element_type(lax.clamp(zero_b, low, n1), np.int32)
        high = lax.convert_element_type(lax.clamp(zero_b, high, n1), np.int32)
        lo_v = _gather_last(s, low, out_shape)
        hi_v = _gather_last(s, high, out_shape)
        if method == "linear":
            r = lax.add(lax.mul(lo_v, low_w), lax.mul(hi_v, high_w))
        elif method == "lower":
            r = lo_v
        elif method == "higher":
            r = hi_v
        elif method == "midpoint":
            r = lax.mul(lax.add(lo_v, hi_v), _const(0.5, dt))
        else:  # nearest: ties go to the lower neighbour, as in JAX
            r = lax.select_n(lax.le(high_w, _const(0.5, dt)), hi_v, lo_v)
    if ignore_nan:
        r = _where(lax.eq(count, zero), _const(np.nan, dt), r)
    if keepdims:
        r = lax_shape.reshape(r, qshape + _keepdims_shape(shape, axes))
    return r


def quantile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights=None,
):
    """The ``q``-th quantiles (``q`` a scalar or 1-D, in [0, 1]) over ``axis``; a slice with a
    NaN gives NaN.

    >>> jnp.quantile(jnp.array([1.0, 2.0, 3.0, 4.0]), 0.5)
    Array(2.5, dtype=float32)
    """
    return _quantile("quantile", a, q, axis, out, method, keepdims, weights, ignore_nan=False)


def nanquantile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights=None,
):
    """``quantile`` of the non-NaN elements (NaN for all-NaN slices)."""
    return _quantile("nanquantile", a, q, axis, out, method, keepdims, weights, ignore_nan=True)


def percentile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights=None,
):
    """``quantile`` with ``q`` in percent.

    >>> jnp.percentile(jnp.array([1.0, 2.0, 3.0, 4.0, 5.0]), 50)
    Array(3., dtype=float32)
    """
    return _quantile(
        "percentile", a, q, axis, out, method, keepdims, weights, ignore_nan=False, percent=True
    )


def nanpercentile(
    a,
    q,
    axis=None,
    out=None,
    overwrite_input: bool = False,
    method: str = "linear",
    keepdims: bool = False,
    *,
    weights=None,
):
    """``nanquantile`` with ``q`` in percent."""
    return _quantile(
        "nanpercentile", a, q, axis, out, method, keepdims, weights, ignore_nan=True, percent=True
    )


def median(a, axis=None, out=None, overwrite_input: bool = False, keepdims: bool = False):
    """Median over ``axis`` (the mean of the two middle values for even counts).

    >>> jnp.median(jnp.array([3.0, 1.0, 4.0, 2.0]))
    Array(2.5, dtype=float32)
    """
    return _quantile("median", a, 0.5, axis, out, "midpoint", keepdims, None, ignore_nan=False)


def nanmedian(a, axis=None, out=None, overwrite_input: bool = False, keepdims: bool = False):
    """``median`` of the non-NaN elements."""
    return _quantile("nanmedian", a, 0.5, axis, out, "midpoint", keepdims, None, ignore_nan=True)


__all__ = [
    "average",
    "mean",
    "median",
    "nanmean",
    "nanmedian",
    "nanpercentile",
    "nanquantile",
    "nanstd",
    "nanvar",
    "percentile",
    "quantile",
    "std",
    "var",
]
