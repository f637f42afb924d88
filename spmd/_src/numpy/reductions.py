"""Reductions of ``spmd.numpy``: sums, products, extrema, means and moments, logical
reductions, arg-reductions, cumulative reductions, NaN-ignoring variants and order statistics.

Result dtypes follow JAX (x64 off): sums and products of bools and of integers narrower than
int32 give int32 (uint32 for unsigned ints); means and variances of bools and integers give
float32; float16 and bfloat16 are summed in float32 and converted back. Weak types never survive
a reduction.

>>> jnp.sum(jnp.ones((2, 3), jnp.int8), axis=0)
Array([2, 2, 2], dtype=int32)
>>> jnp.mean(jnp.arange(6).reshape(2, 3), axis=1, keepdims=True)
Array([[1.],
       [4.]], dtype=float32)
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np
from spmd._src import api, dtypes
from spmd._src.array import Array
from spmd._src.lax import elementwise as lax
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.lax import sorting as lax_sort
from spmd._src.numpy.util import (
    check_arraylike,
    convert,
    promote_dtypes,
    promote_dtypes_inexact,
    to_array,
)

AxisError = np.exceptions.AxisError

_F16_TYPES = (np.dtype(np.float16), np.dtype(dtypes.bfloat16))

# ---------------------------------------------------------------------------------------------
# Argument handling


def _canonical_axes(fn: str, axis: Any, ndim: int) -> tuple[int, ...]:
    """``axis`` (None, an int or a sequence of ints, possibly negative) as non-negative ints, in
    the given order. Out-of-range axes raise NumPy's AxisError, which is both a ValueError and
    an IndexError: JAX raises one or the other depending on the function."""
    if axis is None:
        return tuple(range(ndim))
    items = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for a in items:
        try:
            a = operator.index(a)
        except TypeError:
            raise TypeError(
                f"{fn}: axis must be None, an integer or a tuple of integers, got {axis!r}"
            ) from None
        if not -ndim <= a < ndim:
            raise AxisError(a, ndim, fn)
        out.append(a % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}: duplicate value in 'axis': {items}")
    return tuple(out)


def _canonical_axis(fn: str, axis: Any, ndim: int) -> int:
    try:
        a = operator.index(axis)
    except TypeError:
        raise TypeError(f"{fn}: axis must be an integer or None, got {axis!r}") from None
    if not -ndim <= a < ndim:
        raise AxisError(a, ndim, fn)
    return a % ndim


def _check_out(fn: str, out: Any) -> None:
    if out is not None:
        raise NotImplementedError(f"The 'out' argument to jnp.{fn} is not supported.")


def _dtype_arg(dtype: Any) -> np.dtype | None:
    return None if dtype is None else dtypes.canonicalize_dtype(dtype)


def _const(value: Any, dtype: Any) -> Array:
    """A strongly typed scalar constant (a literal in printed jaxprs). Python numbers convert
    with C semantics, as a weakly typed scalar would (ints wrap, floats truncate)."""
    with np.errstate(all="ignore"):
        return Array(np.asarray(value).astype(dtype))


def _scalar_operand(fn: str, name: str, value: Any, dtype: np.dtype) -> Any:
    """``initial=`` and similar scalars, converted to the computation dtype."""
    if dtypes.is_python_scalar(value) or isinstance(value, (np.generic, np.ndarray)):
        if np.ndim(value) != 0:
            raise ValueError(
                f"{fn}: {name} value must be a scalar. Got array of shape {np.shape(value)}"
            )
        return _const(value, dtype)
    check_arraylike(fn, value)
    if np.ndim(value) != 0:
        raise ValueError(
            f"{fn}: {name} value must be a scalar. Got array of shape {np.shape(value)}"
        )
    return convert(value, dtype)


def _upcast_f16(dt: np.dtype) -> np.dtype:
    return np.dtype(np.float32) if dt in _F16_TYPES else dt


def _is_inexact(dt: np.dtype) -> bool:
    return dtypes.issubdtype(dt, np.inexact)


def _real_dtype(dt: np.dtype) -> np.dtype:
    return np.dtype(dtypes.finfo(dt).dtype) if dt.kind == "c" else dt


def _promoted_int_dtype(dt: np.dtype) -> np.dtype:
    """Sums of bools and of narrow integers accumulate in the default int (uint) type."""
    if dt == np.bool_:
        return dtypes.default_int_dtype()
    if dtypes.issubdtype(dt, np.unsignedinteger):
        du = dtypes.default_uint_dtype()
        return du if dt.itemsize < du.itemsize else dt
    if dtypes.issubdtype(dt, np.integer):
        di = dtypes.default_int_dtype()
        return di if dt.itemsize < di.itemsize else dt
    return dt


def _broadcast_to(x: Any, shape: tuple[int, ...]) -> Any:
    """NumPy-style broadcast of ``x`` to ``shape`` (leading dimensions added)."""
    xs = np.shape(x)
    if tuple(xs) == tuple(shape):
        return x
    nd = len(xs)
    return lax_shape.broadcast_in_dim(x, shape, tuple(range(len(shape) - nd, len(shape))))


def _where(condition, x, y):
    # ``condition ? x : y`` with NumPy broadcasting; the condition stays a scalar when it is
    # one (select_n takes a scalar predicate). Jitted so printed jaxprs read as JAX's.
    x, y = promote_dtypes(x, y)
    shape = np.broadcast_shapes(np.shape(condition), np.shape(x), np.shape(y))
    if np.ndim(condition):
        condition = _broadcast_to(condition, shape)
    return lax.select_n(condition, _broadcast_to(y, shape), _broadcast_to(x, shape))


_where = api.jit(_where)


def _check_where(fn: str, where: Any, shape: tuple[int, ...]) -> Any:
    check_arraylike(fn, where)
    w = to_array(where)
    if w.dtype != np.bool_:
        raise ValueError(
            f"jnp.{fn}: where must be None or a boolean array; got where.dtype={w.dtype!r}."
        )
    try:
        ok = np.broadcast_shapes(w.shape, shape) == tuple(shape)
    except ValueError:
        ok = False
    if not ok:
        raise ValueError(
            f"jnp.{fn}: where mask of shape {w.shape} does not broadcast to the shape {shape} "
            "of the array."
        )
    return w


def _keepdims_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if i in axes else d for i, d in enumerate(shape))


def _keepdims(r: Any, shape: tuple[int, ...], axes: tuple[int, ...]) -> Any:
    if not axes:
        return r
    kept = tuple(i for i in range(len(shape)) if i not in axes)
    return lax_shape.broadcast_in_dim(r, _keepdims_shape(shape, axes), kept)


def _ravel(x: Any) -> Any:
    return x if x.ndim == 1 else lax_shape.reshape(x, (x.size,))


def _isnan(x: Any) -> Any:
    return lax.ne(x, x)


# ---------------------------------------------------------------------------------------------
# The generic reduction

# kind -> (lax reduction, lax binary op for ``initial``, has an identity)
_KINDS = {
    "sum": (lax_red.reduce_sum, lax.add, True),
    "prod": (lax_red.reduce_prod, lax.mul, True),
    "max": (lax_red.reduce_max, lax.max, False),
    "min": (lax_red.reduce_min, lax.min, False),
    "any": (lax_red.reduce_or, lax.bitwise_or, True),
    "all": (lax_red.reduce_and, lax.bitwise_and, True),
}
_BOOL_KINDS = {"sum": "any", "prod": "all"}


def _identity(kind: str, dt: np.dtype) -> Any:
    if kind in ("sum", "any"):
        return False if dt == np.bool_ else 0
    if kind in ("prod", "all"):
        return True if dt == np.bool_ else 1
    big = kind == "min"
    if dt == np.bool_:
        return big
    if dtypes.issubdtype(dt, np.integer):
        info = dtypes.iinfo(dt)
        return info.max if big else info.min
    return np.inf if big else -np.inf


def _reduction(
    fn: str,
    kind: str,
    a: Any,
    axis: Any,
    dtype: Any,
    out: Any,
    keepdims: bool,
    initial: Any,
    where: Any,
    *,
    promote_integers: bool = False,
    upcast_f16: bool = False,
) -> Any:
    check_arraylike(fn, a)
    _check_out(fn, out)
    x = to_array(a)
    shape = x.shape
    axes = _canonical_axes(fn, axis, x.ndim)
    dtype = _dtype_arg(dtype)
    if kind in ("any", "all"):
        result_dt = comp_dt = np.dtype(np.bool_)
    elif dtype is not None:
        result_dt = comp_dt = dtype
    else:
        result_dt = x.dtype
        if kind in ("sum", "prod") and (promote_integers or x.dtype == np.bool_):
            result_dt = _promoted_int_dtype(x.dtype)
        comp_dt = _upcast_f16(result_dt) if upcast_f16 else result_dt
    _, _, has_identity = _KINDS[kind]
    if not has_identity and initial is None:
        if builtins.any(shape[d] == 0 for d in axes):
            raise ValueError(f"zero-size array to reduction operation {kind} which has no identity")
        if where is not None:
            raise ValueError(
                f"reduction operation {kind} does not have an identity, so to use a where mask "
                "one has to specify 'initial'"
            )
    w = None if where is None else _check_where(fn, where, shape)
    if kind in ("sum", "prod") and x.dtype == np.bool_:
        # Booleans are counted as integers first (JAX's "numeric" preprocessing).
        x = convert(x, dtypes.default_int_dtype())
    x = convert(x, comp_dt)
    if comp_dt == np.bool_ and kind in _BOOL_KINDS:
        kind = _BOOL_KINDS[kind]
    reduce_fn, binop, _ = _KINDS[kind]
    if w is not None:
        x = _where(w, x, _const(_identity(kind, comp_dt), comp_dt))
    r = reduce_fn(x, axes)
    if initial is not None:
        r = binop(_scalar_operand(fn, "initial", initial, comp_dt), r)
    if keepdims:
        r = _keepdims(r, shape, axes)
    if comp_dt != result_dt:
        r = convert(r, result_dt)
    return r


def sum(
    a,
    axis=None,
    dtype=None,
    out=None,
    keepdims: bool = False,
    initial=None,
    where=None,
    promote_integers: bool = True,
):
    """Sum over ``axis`` (all axes when None).

    >>> jnp.sum(jnp.array([[1, 2], [3, 4]]), axis=0)
    Array([4, 6], dtype=int32)
    """
    return _reduction(
        "sum", "sum", a, axis, dtype, out, keepdims, initial, where,
        promote_integers=promote_integers, upcast_f16=True,
    )  # fmt: skip


def prod(
    a,
    axis=None,
    dtype=None,
    out=None,
    keepdims: bool = False,
    initial=None,
    where=None,
    promote_integers: bool = True,
):
    """Product over ``axis``.

    >>> jnp.prod(jnp.array([1, 2, 3, 4]))
    Array(24, dtype=int32)
    """
    return _reduction(
        "prod", "prod", a, axis, dtype, out, keepdims, initial, where,
        promote_integers=promote_integers, upcast_f16=True,
    )  # fmt: skip


def max(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
    """Maximum over ``axis`` (NaN propagates; an empty reduction needs ``initial``).

    >>> jnp.max(jnp.array([[1, 5], [3, 2]]), axis=1)
    Array([5, 3], dtype=int32)
    """
    return _reduction("max", "max", a, axis, None, out, keepdims, initial, where)


def min(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
    """Minimum over ``axis`` (NaN propagates; an empty reduction needs ``initial``).

    >>> jnp.min(jnp.array([[1, 5], [3, 2]]), axis=1)
    Array([1, 2], dtype=int32)
    """
    return _reduction("min", "min", a, axis, None, out, keepdims, initial, where)


amax = max
amin = min


def any(a, axis=None, out=None, keepdims: bool = False, *, where=None):
    """Whether any element over ``axis`` is nonzero.

    >>> jnp.any(jnp.array([0, 0, 2]))
    Array(True, dtype=bool)
    """
    return _reduction("any", "any", a, axis, None, out, keepdims, None, where)


def all(a, axis=None, out=None, keepdims: bool = False, *, where=None):
    """Whether all elements over ``axis`` are nonzero.

    >>> jnp.all(jnp.array([1, 0, 2]))
    Array(False, dtype=bool)
    """
    return _reduction("all", "all", a, axis, None, out, keepdims, None, where)


def _ptp(a, axis, keepdims):
    return lax.sub(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


_ptp = api.jit(_ptp, static_argnames=("axis", "keepdims"))


def ptp(a, axis=None, out=None, keepdims: bool = False):
    """Range (maximum minus minimum) over ``axis``.

    >>> jnp.ptp(jnp.array([[1, 5], [3, 2]]), axis=1)
    Array([4, 1], dtype=int32)
    """
    check_arraylike("ptp", a)
    _check_out("ptp", out)
    x = to_array(a)
    axes = _canonical_axes("ptp", axis, x.ndim)
    if x.dtype == np.bool_:
        raise TypeError(
            "ptp: sub does not accept dtype bool. Accepted dtypes are subtypes of integer, "
            "floating, complexfloating."
        )
    return _ptp(x, axis=None if axis is None else axes, keepdims=bool(keepdims))


def _count_nonzero(a, axis, keepdims):
    return sum(
        lax.ne(a, _const(0, a.dtype)), axis, dtype=dtypes.default_int_dtype(), keepdims=keepdims
    )


_count_nonzero.__name__ = "count_nonzero"
_count_nonzero = api.jit(_count_nonzero, static_argnames=("axis", "keepdims"))


def count_nonzero(a, axis=None, keepdims: bool = False):
    """The number of nonzero elements over ``axis`` (int32).

    >>> jnp.count_nonzero(jnp.array([[0, 1], [2, 3]]), axis=0)
    Array([1, 2], dtype=int32)
    """
    check_arraylike("count_nonzero", a)
    x = to_array(a)
    axes = _canonical_axes("count_nonzero", axis, x.ndim)
    return _count_nonzero(x, axis=None if axis is None else axes, keepdims=bool(keepdims))


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
    dtype = _dtype_arg(dtype)
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
    dtype = _dtype_arg(dtype)
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


def _moment(fn, a, axis, dtype, out, ddof, keepdims, where, mean_arg, correction, *, nan):
    check_arraylike(fn, a)
    _check_out(fn, out)
    correction = _correction(ddof, correction)
    x = to_array(a)
    axes = _canonical_axes(fn, axis, x.ndim)
    comp_dt, result_dt = _var_dtypes(fn, x.dtype, dtype)
    real_dt = _real_dtype(comp_dt)
    x = convert(x, comp_dt)
    w = None if where is None else _broadcast_to(_check_where(fn, where, x.shape), x.shape)
    mean_fn = nanmean if nan else mean
    if mean_arg is None:
        mu = mean_fn(x, axes, dtype=comp_dt, keepdims=True, where=w)
    else:
        check_arraylike(fn, mean_arg)
        mu = _broadcast_to(convert(mean_arg, comp_dt), x.shape)
    centered = lax.sub(x, mu)
    if nan:
        centered = _where(_isnan(x), _const(0, comp_dt), centered)
    centered = _abs2(centered)
    if nan:
        n = sum(lax.bitwise_not(_isnan(x)), axes, dtype=real_dt, keepdims=keepdims, where=w)
    elif w is None:
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
    return _moment("var", a, axis, dtype, out, ddof, keepdims, where, mean, correction, nan=False)


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
    v = _moment("std", a, axis, dtype, out, ddof, keepdims, where, mean, correction, nan=False)
    return lax.sqrt(v)


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


# ---------------------------------------------------------------------------------------------
# argmax / argmin


def _arg_reduction(fn: str, lax_fn, a, axis, out, keepdims):
    check_arraylike(fn, a)
    _check_out(fn, out)
    x = to_array(a)
    index_dt = dtypes.default_int_dtype()
    if axis is None:
        if x.size == 0:
            raise ValueError(f"attempt to get {fn} of an empty sequence")
        r = lax_fn(_ravel(x) if x.ndim != 1 else x, 0, index_dt)
        if keepdims:
            r = lax_shape.broadcast_in_dim(r, (1,) * x.ndim, ())
        return r
    ax = _canonical_axis(fn, axis, x.ndim)
    if x.shape[ax] == 0:
        raise ValueError(f"attempt to get {fn} of an empty sequence (axis {ax} of shape {x.shape})")
    r = lax_fn(x, ax, index_dt)
    return _keepdims(r, x.shape, (ax,)) if keepdims else r


def argmax(a, axis=None, out=None, keepdims=None):
    """Index of the maximum over ``axis`` (the flattened array when None); the first one on
    ties, and NaN counts as the maximum.

    >>> jnp.argmax(jnp.array([[1, 5], [7, 2]]), axis=1)
    Array([1, 0], dtype=int32)
    """
    return _arg_reduction("argmax", lax_red.argmax, a, axis, out, keepdims)


def argmin(a, axis=None, out=None, keepdims=None):
    """Index of the minimum over ``axis`` (the flattened array when None).

    >>> jnp.argmin(jnp.array([[1, 5], [7, 2]]), axis=1)
    Array([0, 1], dtype=int32)
    """
    return _arg_reduction("argmin", lax_red.argmin, a, axis, out, keepdims)


def _nanarg(fn: str, arg_fn, fill: float, a, axis, out, keepdims):
    check_arraylike(fn, a)
    _check_out(fn, out)
    x = to_array(a)
    if not _is_inexact(x.dtype):
        return arg_fn(x, axis, keepdims=keepdims)
    mask = _isnan(x)
    r = arg_fn(_where(mask, fill, x), axis, keepdims=keepdims)
    return _where(all(mask, axis, keepdims=bool(keepdims)), -1, r)


def nanargmax(a, axis=None, out=None, keepdims=None):
    """``argmax`` ignoring NaNs (-1 where a slice is all NaN).

    >>> jnp.nanargmax(jnp.array([1.0, jnp.nan, 3.0]))
    Array(2, dtype=int32)
    """
    return _nanarg("nanargmax", argmax, -np.inf, a, axis, out, keepdims)


def nanargmin(a, axis=None, out=None, keepdims=None):
    """``argmin`` ignoring NaNs (-1 where a slice is all NaN).

    >>> jnp.nanargmin(jnp.array([1.0, jnp.nan, 0.5]))
    Array(2, dtype=int32)
    """
    return _nanarg("nanargmin", argmin, np.inf, a, axis, out, keepdims)


# ---------------------------------------------------------------------------------------------
# NaN-ignoring reductions


def _replace_nan(x: Any, value: Any) -> Any:
    return _where(_isnan(x), _const(value, x.dtype), x)


def nansum(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """``sum`` treating NaNs as zero.

    >>> jnp.nansum(jnp.array([1.0, jnp.nan, 2.0]))
    Array(3., dtype=float32)
    """
    check_arraylike("nansum", a)
    x = to_array(a)
    if _is_inexact(x.dtype):
        x = _replace_nan(x, 0)
    return sum(x, axis, dtype, out, keepdims, initial, where)


def nanprod(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """``prod`` treating NaNs as one.

    >>> jnp.nanprod(jnp.array([2.0, jnp.nan, 3.0]))
    Array(6., dtype=float32)
    """
    check_arraylike("nanprod", a)
    x = to_array(a)
    if _is_inexact(x.dtype):
        x = _replace_nan(x, 1)
    return prod(x, axis, dtype, out, keepdims, initial, where)


def _nan_extremum(fn, reduce_fn, fill, a, axis, out, keepdims, initial, where):
    check_arraylike(fn, a)
    x = to_array(a)
    if not _is_inexact(x.dtype):
        return reduce_fn(x, axis, out, keepdims, initial, where)
    mask = _isnan(x)
    r = reduce_fn(_where(mask, _const(fill, x.dtype), x), axis, out, keepdims, initial, where)
    if initial is None:
        # All-NaN slices give NaN (the fill value would otherwise leak out).
        r = _where(all(mask, axis, keepdims=keepdims, where=where), _const(np.nan, x.dtype), r)
    return r


def nanmax(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
    """``max`` ignoring NaNs (NaN where a slice is all NaN).

    >>> jnp.nanmax(jnp.array([1.0, jnp.nan, 3.0]))
    Array(3., dtype=float32)
    """
    return _nan_extremum("nanmax", max, -np.inf, a, axis, out, keepdims, initial, where)


def nanmin(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
    """``min`` ignoring NaNs (NaN where a slice is all NaN).

    >>> jnp.nanmin(jnp.array([1.0, jnp.nan, 3.0]))
    Array(1., dtype=float32)
    """
    return _nan_extremum("nanmin", min, np.inf, a, axis, out, keepdims, initial, where)


def nanmean(a, axis=None, dtype=None, out=None, keepdims: bool = False, where=None):
    """``mean`` of the non-NaN elements.

    >>> jnp.nanmean(jnp.array([1.0, jnp.nan, 3.0]))
    Array(2., dtype=float32)
    """
    check_arraylike("nanmean", a)
    _check_out("nanmean", out)
    x = to_array(a)
    if not _is_inexact(x.dtype):
        return mean(x, axis, dtype, keepdims=keepdims, where=where)
    axes = _canonical_axes("nanmean", axis, x.ndim)
    dtype = _dtype_arg(dtype)
    if dtype is None:
        dtype = x.dtype
    valid = lax.bitwise_not(_isnan(x))
    normalizer = sum(valid, axes, dtype=dtype, keepdims=keepdims, where=where)
    total = nansum(x, axes, dtype=dtype, keepdims=keepdims, where=where)
    return lax.div(total, normalizer)


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
    return _moment("nanvar", a, axis, dtype, out, ddof, keepdims, where, mean, correction, nan=True)


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
    v = _moment("nanstd", a, axis, dtype, out, ddof, keepdims, where, mean, correction, nan=True)
    return lax.sqrt(v)


# ---------------------------------------------------------------------------------------------
# Cumulative reductions


def _cumulative_impl(kind: str):
    lax_fn, bool_fn = {
        "cumsum": (lax_red.cumsum, lax_red.cummax),
        "cumprod": (lax_red.cumprod, lax_red.cummin),
    }[kind]

    def impl(x, axis, dtype):
        if axis is None:
            x, axis = _ravel(x), 0
        x = convert(x, dtype)
        # On booleans, a running "or" is the cumulative sum and a running "and" the product.
        return (bool_fn if dtype == np.bool_ else lax_fn)(x, axis)

    impl.__name__ = impl.__qualname__ = kind
    return api.jit(impl, static_argnames=("axis", "dtype"))


_cumsum = _cumulative_impl("cumsum")
_cumprod = _cumulative_impl("cumprod")


def _cumulative(fn: str, jitted, a, axis, dtype, out):
    check_arraylike(fn, a)
    _check_out(fn, out)
    x = to_array(a)
    if axis is not None:
        axis = _canonical_axis(fn, axis, x.ndim)
    dtype = _dtype_arg(dtype)
    if dtype is None:
        dtype = dtypes.default_int_dtype() if x.dtype == np.bool_ else x.dtype
    return jitted(x, axis=axis, dtype=dtype)


def cumsum(a, axis=None, dtype=None, out=None):
    """Cumulative sum along ``axis`` (of the flattened array when None).

    >>> jnp.cumsum(jnp.array([1, 2, 3]))
    Array([1, 3, 6], dtype=int32)
    """
    return _cumulative("cumsum", _cumsum, a, axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None):
    """Cumulative product along ``axis`` (of the flattened array when None).

    >>> jnp.cumprod(jnp.array([1, 2, 3]))
    Array([1, 2, 6], dtype=int32)
    """
    return _cumulative("cumprod", _cumprod, a, axis, dtype, out)


def nancumsum(a, axis=None, dtype=None, out=None):
    """``cumsum`` treating NaNs as zero."""
    check_arraylike("nancumsum", a)
    x = to_array(a)
    if _is_inexact(x.dtype):
        x = _replace_nan(x, 0)
    return cumsum(x, axis, dtype, out)


def nancumprod(a, axis=None, dtype=None, out=None):
    """``cumprod`` treating NaNs as one."""
    check_arraylike("nancumprod", a)
    x = to_array(a)
    if _is_inexact(x.dtype):
        x = _replace_nan(x, 1)
    return cumprod(x, axis, dtype, out)


def _cumulative_array_api(fn, kind, x, axis, dtype, include_initial):
    check_arraylike(fn, x)
    x = to_array(x)
    what = "sum" if kind == "cumsum" else "product"
    if x.ndim == 0:
        raise ValueError(
            f"The input must be non-scalar to take a cumulative {what}, however a scalar value "
            "or scalar array was given."
        )
    if axis is None:
        if x.ndim > 1:
            raise ValueError(
                f"The input array has rank {x.ndim}, however axis was not set to an explicit "
                "value. The axis argument is only optional for one-dimensional arrays."
            )
        axis = 0
    axis = _canonical_axis(fn, axis, x.ndim)
    dtype = _dtype_arg(dtype)
    if dtype is None:
        dtype = _promoted_int_dtype(x.dtype)
    out = (_cumsum if kind == "cumsum" else _cumprod)(x, axis=axis, dtype=dtype)
    if include_initial:
        init_shape = tuple(1 if i == axis else d for i, d in enumerate(x.shape))
        init = lax_shape.full(init_shape, 0 if kind == "cumsum" else 1, dtype)
        out = lax_shape.concatenate([init, out], axis)
    return out


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial: bool = False):
    """Cumulative sum (array API): ``axis`` is required beyond 1-D; ``include_initial``
    prepends a zero.

    >>> jnp.cumulative_sum(jnp.array([1, 2, 3]), include_initial=True)
    Array([0, 1, 3, 6], dtype=int32)
    """
    return _cumulative_array_api("cumulative_sum", "cumsum", x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial: bool = False):
    """Cumulative product (array API): ``include_initial`` prepends a one.

    >>> jnp.cumulative_prod(jnp.array([1, 2, 3]))
    Array([1, 2, 6], dtype=int32)
    """
    return _cumulative_array_api("cumulative_prod", "cumprod", x, axis, dtype, include_initial)


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
    "all",
    "amax",
    "amin",
    "any",
    "argmax",
    "argmin",
    "average",
    "count_nonzero",
    "cumprod",
    "cumsum",
    "cumulative_prod",
    "cumulative_sum",
    "max",
    "mean",
    "median",
    "min",
    "nanargmax",
    "nanargmin",
    "nancumprod",
    "nancumsum",
    "nanmax",
    "nanmean",
    "nanmedian",
    "nanmin",
    "nanpercentile",
    "nanprod",
    "nanquantile",
    "nanstd",
    "nansum",
    "nanvar",
    "percentile",
    "prod",
    "ptp",
    "quantile",
    "std",
    "sum",
    "var",
]
