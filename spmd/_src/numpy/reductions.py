"""Reductions of ``spmd.numpy``: sums, products, extrema, logical reductions, arg-reductions and
cumulative reductions, with their NaN-ignoring variants (means, moments and order statistics
are in ``statistics``).

Result dtypes follow JAX (x64 off): sums and products of bools and of integers narrower than
int32 give int32 (uint32 for unsigned ints); float16 and bfloat16 are summed in float32 and
converted back. Weak types never survive a reduction.

>>> jnp.sum(jnp.ones((2, 3), jnp.int8), axis=0)
Array([2, 2, 2], dtype=int32)
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
from spmd._src.numpy.util import _named_jit, check_arraylike, convert, promote_dtypes, to_array

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


def _dtype_arg(dtype: Any, fn: str | None = None) -> np.dtype | None:
    dtypes.check_user_dtype_supported(dtype, fn)
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
    dtype = _dtype_arg(dtype, fn)
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


def _nansum(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    check_arraylike("nansum", a)
    x = to_array(a)
    if _is_inexact(x.dtype):
        x = _replace_nan(x, 0)
    return sum(x, axis, dtype, out, keepdims, initial, where)


def _nanprod(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
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
    r = reduce_fn(_where(_isnan(x), _const(fill, x.dtype), x), axis, out, keepdims, initial, where)
    if initial is None:
        # All-NaN slices give NaN (the fill value would otherwise leak out); the mask is
        # computed again, as JAX does.
        all_nan = all(_isnan(x), axis, keepdims=keepdims, where=where)
        r = _where(all_nan, _const(np.nan, x.dtype), r)
    return r


def _nanmax(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
    return _nan_extremum("nanmax", max, -np.inf, a, axis, out, keepdims, initial, where)


def _nanmin(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
    return _nan_extremum("nanmin", min, np.inf, a, axis, out, keepdims, initial, where)


# The NaN-ignoring reductions are jits in JAX 0.10 (printed as `jit[name=nansum]`...), with
# the array, initial and where as operands.
_STATIC = ("axis", "dtype", "out", "keepdims")
_nansum_jit = _named_jit("nansum", _nansum, _STATIC)
_nanprod_jit = _named_jit("nanprod", _nanprod, _STATIC)
_nanmax_jit = _named_jit("nanmax", _nanmax, ("axis", "out", "keepdims"))
_nanmin_jit = _named_jit("nanmin", _nanmin, ("axis", "out", "keepdims"))


def _static_axis(axis: Any) -> Any:
    # A static argument must be hashable: a list of axes is taken as the tuple (JAX 0.10
    # raises for a list here, though jnp.sum takes one).
    return tuple(axis) if isinstance(axis, list) else axis


def nansum(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """``sum`` treating NaNs as zero.

    >>> jnp.nansum(jnp.array([1.0, jnp.nan, 2.0]))
    Array(3., dtype=float32)
    """
    axis = _static_axis(axis)
    return _nansum_jit(
        a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, initial=initial, where=where
    )


def nanprod(a, axis=None, dtype=None, out=None, keepdims: bool = False, initial=None, where=None):
    """``prod`` treating NaNs as one.

    >>> jnp.nanprod(jnp.array([2.0, jnp.nan, 3.0]))
    Array(6., dtype=float32)
    """
    axis = _static_axis(axis)
    return _nanprod_jit(
        a, axis=axis, dtype=dtype, out=out, keepdims=keepdims, initial=initial, where=where
    )


def nanmax(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
    """``max`` ignoring NaNs (NaN where a slice is all NaN).

    >>> jnp.nanmax(jnp.array([1.0, jnp.nan, 3.0]))
    Array(3., dtype=float32)
    """
    axis = _static_axis(axis)
    return _nanmax_jit(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)


def nanmin(a, axis=None, out=None, keepdims: bool = False, initial=None, where=None):
    """``min`` ignoring NaNs (NaN where a slice is all NaN).

    >>> jnp.nanmin(jnp.array([1.0, jnp.nan, 3.0]))
    Array(1., dtype=float32)
    """
    axis = _static_axis(axis)
    return _nanmin_jit(a, axis=axis, out=out, keepdims=keepdims, initial=initial, where=where)


# ---------------------------------------------------------------------------------------------
# Cumulative reductions


def _cumulative_body(lax_fn, x, axis, dtype, nan_value=None):
    """The running reduction of ``x`` in ``dtype`` (flattened when ``axis`` is None), NaNs first
    replaced by ``nan_value`` unless it is None."""
    if axis is None:
        x, axis = _ravel(x), 0
    if nan_value is not None:
        x = _replace_nan(x, nan_value)
    if dtype == np.bool_:
        # A boolean running sum/product runs in the default int and is cast back, as JAX's.
        if x.dtype != np.bool_:
            x = lax.ne(x, _const(0, x.dtype))
        x = convert(x, dtypes.default_int_dtype())
        return convert(lax_fn(x, axis), np.bool_)
    return lax_fn(convert(x, dtype), axis)


def _cumulative_impl(kind: str, nan_value=None):
    lax_fn = lax_red.cumsum if kind.endswith("cumsum") else lax_red.cumprod

    def impl(x, axis, dtype):
        return _cumulative_body(lax_fn, x, axis, dtype, nan_value)

    return _named_jit(kind, impl, ("axis", "dtype"))


_cumsum = _cumulative_impl("cumsum")
_cumprod = _cumulative_impl("cumprod")
# The NaN-ignoring forms are jits of their own (not calls of the cumsum/cumprod jits), as JAX's.
_nancumsum = _cumulative_impl("nancumsum", 0)
_nancumprod = _cumulative_impl("nancumprod", 1)


def _cumulative(fn: str, jitted, a, axis, dtype, out):
    check_arraylike(fn, a)
    _check_out(fn, out)
    x = to_array(a)
    if axis is not None:
        axis = _canonical_axis(fn, axis, x.ndim)
    dtype = _dtype_arg(dtype, fn)
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
    return _cumulative("nancumsum", _nancumsum, a, axis, dtype, out)


def nancumprod(a, axis=None, dtype=None, out=None):
    """``cumprod`` treating NaNs as one."""
    return _cumulative("nancumprod", _nancumprod, a, axis, dtype, out)


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
    dtype = _dtype_arg(dtype, fn)
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


__all__ = [
    "all",
    "amax",
    "amin",
    "any",
    "argmax",
    "argmin",
    "count_nonzero",
    "cumprod",
    "cumsum",
    "cumulative_prod",
    "cumulative_sum",
    "max",
    "min",
    "nanargmax",
    "nanargmin",
    "nancumprod",
    "nancumsum",
    "nanmax",
    "nanmin",
    "nanprod",
    "nansum",
    "prod",
    "ptp",
    "sum",
]
