"""Array creation: filled arrays (``zeros``, ``ones``, ``full``, ``empty`` and their ``*_like``),
ranges (``arange``, ``linspace``, ``logspace``, ``geomspace``), grids (``meshgrid``,
``indices``) and ``eye``/``identity``/``tri``.

Where JAX 0.10 wraps a function in an inner ``jit`` (``jnp.linspace`` is ``jit[name=_linspace]``),
this module does too, so printed jaxprs read the same.

>>> jnp.linspace(0.0, 1.0, 3)
Array([0. , 0.5, 1. ], dtype=float32)
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from spmd._src import dtypes
from spmd._src.array import Array
from spmd._src.core import Tracer
from spmd._src.errors import ConcretizationTypeError
from spmd._src.key_arrays import over_key_data
from spmd._src.lax import copies as lax_copies
from spmd._src.lax import elementwise as lax
from spmd._src.lax import shape as lax_shape
from spmd._src.numpy import ufuncs
from spmd._src.numpy.array_constructors import asarray
from spmd._src.numpy.shape_ops import broadcast_to
from spmd._src.numpy.util import (
    _axis,
    _bool,
    _canonical_shape,
    _check_nonneg_shape,
    _concrete_int,
    _dtype_arg,
    _full,
    _int32,
    _named_jit,
    _ndim_of,
    _scalar,
    _shape_of,
    check_arraylike,
    convert,
    with_out_sharding,
)

# ---------------------------------------------------------------------------------------------
# Filled arrays


@with_out_sharding("jnp.zeros", device=True)
def zeros(shape: Any, dtype: Any = None, *, device: Any = None, out_sharding: Any = None) -> Any:
    """An array of zeros (float32 unless ``dtype`` is given).

    >>> jnp.zeros((2, 2), jnp.int32)
    Array([[0, 0],
           [0, 0]], dtype=int32)
    """
    shp = _canonical_shape(shape, "zeros")
    _check_nonneg_shape(shp, "zeros")
    dt = dtypes.default_float_dtype() if dtype is None else _dtype_arg(dtype, "zeros")
    return _full(shp, 0, dt)


@with_out_sharding("jnp.ones", device=True)
def ones(shape: Any, dtype: Any = None, *, device: Any = None, out_sharding: Any = None) -> Any:
    """An array of ones (float32 unless ``dtype`` is given)."""
    shp = _canonical_shape(shape, "ones")
    _check_nonneg_shape(shp, "ones")
    dt = dtypes.default_float_dtype() if dtype is None else _dtype_arg(dtype, "ones")
    return _full(shp, 1, dt)


@with_out_sharding("jnp.empty", device=True)
def empty(shape: Any, dtype: Any = None, *, device: Any = None, out_sharding: Any = None) -> Any:
    """As ``zeros`` (arrays are immutable, so there is nothing to leave uninitialized)."""
    return zeros(shape, dtype)


@with_out_sharding("jnp.full", device=True)
def full(
    shape: Any, fill_value: Any, dtype: Any = None, *, device: Any = None, out_sharding: Any = None
) -> Any:
    """An array of ``shape`` filled with ``fill_value`` (a scalar, or an array broadcast to
    ``shape``). A Python scalar fill gives a weakly typed result unless ``dtype`` is given.

    >>> jnp.full((2,), 1.5)
    Array([1.5, 1.5], dtype=float32, weak_type=True)
    """
    check_arraylike("full", fill_value)
    shp = _canonical_shape(shape, "full")
    _check_nonneg_shape(shp, "full")
    dt = None if dtype is None else _dtype_arg(dtype, "full")
    if _ndim_of(fill_value) == 0:
        return lax_shape.full(shp, fill_value, dt)
    return broadcast_to(asarray(fill_value, dtype=dt), shp)


def _like_dtype_and_shape(a: Any, dtype: Any, shape: Any, fn: str):
    check_arraylike(fn, a)
    if dtype is None:
        dt = dtypes.dtype(a, canonicalize=True)
        weak = dtypes.is_weakly_typed(a)
    else:
        dt, weak = _dtype_arg(dtype, fn), False
    shp = _shape_of(a) if shape is None else _canonical_shape(shape, fn)
    _check_nonneg_shape(shp, fn)
    return dt, weak, shp


@over_key_data("jnp.zeros_like")
@with_out_sharding("jnp.zeros_like", like=True, device=True)
def zeros_like(
    a: Any, dtype: Any = None, shape: Any = None, *, device: Any = None, out_sharding: Any = None
) -> Any:
    """Zeros with the shape and dtype (and weak type) of ``a``."""
    dt, weak, shp = _like_dtype_and_shape(a, dtype, shape, "zeros_like")
    return _full(shp, 0, dt, weak)


@over_key_data("jnp.ones_like")
@with_out_sharding("jnp.ones_like", like=True, device=True)
def ones_like(
    a: Any, dtype: Any = None, shape: Any = None, *, device: Any = None, out_sharding: Any = None
) -> Any:
    """Ones with the shape and dtype (and weak type) of ``a``."""
    dt, weak, shp = _like_dtype_and_shape(a, dtype, shape, "ones_like")
    return _full(shp, 1, dt, weak)


@over_key_data("jnp.empty_like")
@with_out_sharding("jnp.empty_like", like=True, device=True, out=False)
def empty_like(
    prototype: Any,
    dtype: Any = None,
    shape: Any = None,
    *,
    device: Any = None,
) -> Any:
    """As ``zeros_like`` (JAX 0.10's ``empty_like`` takes no ``out_sharding``)."""
    dt, weak, shp = _like_dtype_and_shape(prototype, dtype, shape, "empty_like")
    return _full(shp, 0, dt, weak)


@over_key_data("jnp.full_like")
@with_out_sharding("jnp.full_like", like=True, device=True)
def full_like(
    a: Any,
    fill_value: Any,
    dtype: Any = None,
    shape: Any = None,
    *,
    device: Any = None,
    out_sharding: Any = None,
) -> Any:
    """An array like ``a`` (shape, dtype, weak type) filled with ``fill_value``."""
    check_arraylike("full_like", a, fill_value)
    dt, weak, shp = _like_dtype_and_shape(a, dtype, shape, "full_like")
    if _ndim_of(fill_value) == 0:
        if dtypes.is_python_scalar(fill_value):
            fill = Array(dtypes.coerce_scalar(fill_value, dt), weak_type=weak)
        else:
            fill = convert(fill_value, dt, weak_type=weak)
        return lax_shape.broadcast_in_dim(fill, shp, ())
    return broadcast_to(convert(fill_value, dt, weak_type=weak), shp)


# ---------------------------------------------------------------------------------------------
# Ranges


def _arange_scalar(x: Any, name: str) -> Any:
    if isinstance(x, Tracer):
        raise ConcretizationTypeError(
            x._concretization_message("jnp.arange")
            + f"\nIt arose in the jnp.arange argument '{name}'."
        )
    if isinstance(x, (Array, np.ndarray)):
        if x.ndim != 0:
            raise TypeError(f"jnp.arange: {name} must be a scalar, got an array of shape {x.shape}")
        x = x[()] if isinstance(x, np.ndarray) else x._value[()]
    if isinstance(x, (complex, np.complexfloating)):
        raise ValueError(
            "Passing complex start/stop/step to jnp.arange is no longer supported starting in "
            "JAX v0.10.0."
        )
    if not isinstance(x, (int, float, np.integer, np.floating, np.bool_, bool)):
        raise TypeError(f"must be real number, not {type(x).__name__}")
    return x


@with_out_sharding("jnp.arange", device=True)
def arange(
    start: Any,
    stop: Any = None,
    step: Any = None,
    dtype: Any = None,
    *,
    device: Any = None,
    out_sharding: Any = None,
) -> Any:
    """Evenly spaced values in ``[start, stop)``; the bounds must be concrete.

    Integer arguments give int32, floating ones float32 (as JAX with x64 off).

    >>> jnp.arange(1.0, 3.0, 0.5)
    Array([1. , 1.5, 2. , 2.5], dtype=float32)
    """
    args = {"start": start, "stop": stop, "step": step}
    vals = {k: _arange_scalar(v, k) for k, v in args.items() if v is not None}
    if "start" not in vals:
        raise TypeError("must be real number, not NoneType")
    if dtype is None:
        dt = dtypes.result_type(*(args[k] for k in vals))
        # A Python-scalar result is weak; arange gives the strong default dtype of its kind.
        dt = dtypes.canonicalize_dtype(dt)
    else:
        dt = _dtype_arg(dtype, "arange")
    if dt == _bool:
        raise TypeError(
            "iota does not accept dtype bool. Accepted dtypes are subtypes of integer, floating, "
            "complexfloating."
        )
    start_v = vals["start"]
    if stop is None and step is None:
        n = builtins.max(math.ceil(start_v), 0)
        return lax_shape.iota(dt, n)
    stop_v = vals["stop"] if stop is not None else start_v
    if stop is None:
        start_v = 0
    if step is None:
        n = builtins.max(math.ceil(stop_v - start_v), 0)
        out = lax_shape.iota(dt, n)
        if start_v != 0:
            out = lax.add(_scalar(start_v, dt), out)
        return out
    step_v = vals["step"]
    if step_v == 0:
        raise ZeroDivisionError("jnp.arange: step must not be zero (division by zero)")
    n = builtins.max(math.ceil((stop_v - start_v) / step_v), 0)
    out = lax_shape.iota(dt, n)
    out = lax.mul(_scalar(step_v, dt), out)
    return lax.add(_scalar(start_v, dt), out)


def _linspace_body(start, stop, num, endpoint, retstep, dtype, axis):
    dt = dtypes.result_type(start, stop) if dtype is None else dtype
    comp = dtypes.to_inexact_dtype(dt)
    out_dt = comp if dtype is None else dtype
    bounds = np.broadcast_shapes(_shape_of(start), _shape_of(stop))
    start = broadcast_to(convert(start, comp), bounds)
    stop = broadcast_to(convert(stop, comp), bounds)
    axis = _axis(axis, len(bounds) + 1, "linspace")
    bshape = list(bounds)
    bshape.insert(axis, 1)
    bshape = tuple(bshape)
    delta = None
    if num == 0:
        out = _full(bshape[:axis] + (0,) + bshape[axis + 1 :], 0, comp)
    elif num == 1:
        out = lax_shape.reshape(start, bshape)
    else:
        div = num - 1 if endpoint else num
        div_c = _scalar(div, comp)
        delta = lax.div(lax.sub(stop, start), div_c)
        iota_shape = [1] * len(bshape)
        iota_shape[axis] = div
        t = lax_shape.reshape(lax_shape.iota(comp, div), tuple(iota_shape))
        t = lax.div(t, div_c)
        lo = lax.mul(lax_shape.reshape(start, bshape), lax.sub(_scalar(1, comp), t))
        hi = lax.mul(lax_shape.reshape(stop, bshape), t)
        out = lax.add(lo, hi)
        if endpoint:
            out = lax_shape.concatenate([out, lax_shape.expand_dims(stop, (axis,))], axis)
    if dtypes.is_int(out_dt):
        out = lax.floor(out)
    out = convert(out, out_dt)
    if retstep:
        if delta is None:
            delta = _scalar(np.nan, comp)
        return out, delta
    return out


_linspace_jit = _named_jit(
    "_linspace", _linspace_body, ("num", "endpoint", "retstep", "dtype", "axis")
)


@with_out_sharding("jnp.linspace", device=True, out=False)
def linspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    retstep: bool = False,
    dtype: Any = None,
    axis: int = 0,
    *,
    device: Any = None,
) -> Any:
    """``num`` evenly spaced values from ``start`` to ``stop`` (inclusive if ``endpoint``).

    >>> jnp.linspace(0, 1, 5)
    Array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
    """
    check_arraylike("linspace", start, stop)
    num = _concrete_int(num, "linspace", "num")
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dt = None if dtype is None else _dtype_arg(dtype, "linspace")
    return _linspace_jit(
        start,
        stop,
        num=num,
        endpoint=bool(endpoint),
        retstep=bool(retstep),
        dtype=dt,
        axis=operator.index(axis),
    )


def _logspace_body(start, stop, base, num, endpoint, dtype, axis):
    dt = dtypes.result_type(start, stop) if dtype is None else dtype
    comp = dtypes.to_inexact_dtype(dt)
    start, stop = convert(start, comp), convert(stop, comp)
    lin = _linspace_jit(
        start, stop, num=num, endpoint=endpoint, retstep=False, dtype=None, axis=axis
    )
    out = lax.pow(convert(base, comp), lin)
    if dtype is not None and dtype != comp:
        if dtypes.is_int(dtype):
            out = lax.round(out)
        out = convert(out, dtype)
    return out


_logspace_jit = _named_jit("_logspace", _logspace_body, ("num", "endpoint", "dtype", "axis"))


def logspace(
    start: Any,
    stop: Any,
    num: int = 50,
    endpoint: bool = True,
    base: Any = 10.0,
    dtype: Any = None,
    axis: int = 0,
) -> Any:
    """``base ** linspace(start, stop, num)``.

    >>> jnp.logspace(0, 2, 3)
    Array([  1.,  10., 100.], dtype=float32)
    """
    check_arraylike("logspace", start, stop, base)
    num = _concrete_int(num, "logspace", "num")
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dt = None if dtype is None else _dtype_arg(dtype, "logspace")
    return _logspace_jit(
        start, stop, base, num=num, endpoint=bool(endpoint), dtype=dt, axis=operator.index(axis)
    )


def _geomspace_body(start, stop, num, endpoint, dtype, axis):
    dt = dtypes.result_type(start, stop) if dtype is None else dtype
    comp = dtypes.to_inexact_dtype(dt)
    start, stop = convert(start, comp), convert(stop, comp)
    sign = lax.sign(start)
    inv_ln10 = _scalar(1 / np.log(10), comp)
    lo = lax.mul(lax.log(lax.div(start, sign)), inv_ln10)
    hi = lax.mul(lax.log(lax.div(stop, sign)), inv_ln10)
    out = _logspace_jit(lo, hi, 10.0, num=num, endpoint=endpoint, dtype=comp, axis=axis)
    out = ufuncs.multiply(sign, out)
    if dtype is not None and dtype != comp:
        if dtypes.is_int(dtype):
            out = lax.round(out)
        out = convert(out, dtype)
    return out


_geomspace_jit = _named_jit("_geomspace", _geomspace_body, ("num", "endpoint", "dtype", "axis"))


def geomspace(
    start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None, axis: int = 0
) -> Any:
    """``num`` values spaced evenly on a log scale from ``start`` to ``stop``."""
    check_arraylike("geomspace", start, stop)
    num = _concrete_int(num, "geomspace", "num")
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dt = None if dtype is None else _dtype_arg(dtype, "geomspace")
    return _geomspace_jit(
        start, stop, num=num, endpoint=bool(endpoint), dtype=dt, axis=operator.index(axis)
    )


def meshgrid(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> list:
    """Coordinate arrays from 1-D coordinate vectors (``indexing='xy'`` swaps the first two
    output axes, as NumPy).

    >>> [g.shape for g in jnp.meshgrid(jnp.arange(3), jnp.arange(2))]
    [(2, 3), (2, 3)]
    """
    check_arraylike("meshgrid", *xi)
    if indexing not in ("xy", "ij"):
        raise ValueError(f"Valid values for indexing are 'xy' and 'ij', got {indexing}")
    args = [asarray(x) for x in xi]
    if any(a.ndim != 1 for a in args):
        raise ValueError(
            "Arguments to jax.numpy.meshgrid must be 1D, got shapes "
            f"{[tuple(a.shape) for a in args]}"
        )
    if indexing == "xy" and len(args) >= 2:
        args[0], args[1] = args[1], args[0]
    sizes = [a.shape[0] for a in args]
    out = []
    for i, a in enumerate(args):
        if sparse:
            shp = tuple(s if j == i else 1 for j, s in enumerate(sizes))
        else:
            shp = tuple(sizes)
        out.append(lax_shape.broadcast_in_dim(a, shp, (i,)))
    if indexing == "xy" and len(out) >= 2:
        out[0], out[1] = out[1], out[0]
    return out


def indices(dimensions: Sequence[int], dtype: Any = None, sparse: bool = False) -> Any:
    """Arrays of the indices of a grid of shape ``dimensions`` (stacked unless ``sparse``).

    >>> jnp.indices((2, 2))[0]
    Array([[0, 0],
           [1, 1]], dtype=int32)
    """
    dims = _canonical_shape(dimensions, "indices")
    dt = _int32 if dtype is None else _dtype_arg(dtype, "indices")
    out = []
    for i, d in enumerate(dims):
        shp = tuple(d if j == i else 1 for j in range(len(dims))) if sparse else dims
        out.append(lax_shape.broadcast_in_dim(lax_shape.iota(dt, d), shp, (i,)))
    if sparse:
        return tuple(out)
    if not out:
        return zeros((0,), dt)
    return lax_copies.stack(out, 0)


# ---------------------------------------------------------------------------------------------
# Matrices: eye, tri, tril, triu, diag, diagonal, trace


def _offset_mask(n: int, m: int, k: Any, cmp) -> Any:
    """``cmp(row + k, col)`` over an (n, m) grid: the diagonal masks of eye/tri/tril/trace.

    The equations come in the order JAX emits them: eye-like masks (``eq``) make both iotas
    before adding ``k``, triangular ones (``ge``) add ``k`` to the row iota first.
    """
    rows = lax_shape.broadcasted_iota(_int32, (n, m), 0)
    if cmp is lax.eq:
        cols = lax_shape.broadcasted_iota(_int32, (n, m), 1)
        return lax.eq(lax.add(rows, _offset(k)), cols)
    rows = lax.add(rows, _offset(k))
    cols = lax_shape.broadcasted_iota(_int32, (n, m), 1)
    return cmp(rows, cols)


def _offset(k: Any) -> Any:
    if isinstance(k, (Array, Tracer)):
        return convert(k, _int32)
    return _scalar(operator.index(k), _int32)


def _matrix_dims(N: Any, M: Any, fn: str) -> tuple[int, int]:
    dims = []
    for name, d in (("N", N), ("M", N if M is None else M)):
        try:
            dims.append(operator.index(d))
        except TypeError:
            raise TypeError(
                "Shapes must be 1D sequences of concrete values of integer type, got "
                f"({d!r},). argument of {name!r} jnp.{fn}()."
            ) from None
    n, m = dims
    if n < 0 or m < 0:
        raise ValueError(f"negative dimensions are not allowed, got {N} and {M}")
    return n, m


@with_out_sharding("jnp.eye", device=True, out=False)
def eye(N: int, M: int | None = None, k: Any = 0, dtype: Any = None, *, device: Any = None) -> Any:
    """A 2-D array with ones on the ``k``-th diagonal and zeros elsewhere.

    >>> jnp.eye(2, 3, k=1)
    Array([[0., 1., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    n, m = _matrix_dims(N, M, "eye")
    dt = dtypes.default_float_dtype() if dtype is None else _dtype_arg(dtype, "eye")
    mask = _offset_mask(n, m, k, lax.eq)
    return convert(mask, dt)


def identity(n: int, dtype: Any = None) -> Any:
    """The ``n`` x ``n`` identity matrix."""
    return eye(n, dtype=dtype)


def tri(N: int, M: int | None = None, k: int = 0, dtype: Any = None) -> Any:
    """Ones at and below the ``k``-th diagonal, zeros above."""
    n, m = _matrix_dims(N, M, "tri")
    dt = dtypes.default_float_dtype() if dtype is None else _dtype_arg(dtype, "tri")
    return convert(_offset_mask(n, m, k, lax.ge), dt)


__all__ = [
    "arange",
    "empty",
    "empty_like",
    "eye",
    "full",
    "full_like",
    "geomspace",
    "identity",
    "indices",
    "linspace",
    "logspace",
    "meshgrid",
    "ones",
    "ones_like",
    "tri",
    "zeros",
    "zeros_like",
]
