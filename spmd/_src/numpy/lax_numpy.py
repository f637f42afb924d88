"""NumPy's array creation, shape manipulation and array utilities on spmd arrays: ``jnp.zeros``,
``jnp.arange``, ``jnp.reshape``, ``jnp.concatenate``, ``jnp.pad``, ``jnp.where`` and friends.

Each function checks its arguments first (raising the error class JAX raises, with a message that
names the function and the offending shape or axis), promotes dtypes by JAX's rules (weak types
included), then calls lax wrappers, so a traced program holds the primitives JAX's would. Where
JAX 0.10 wraps a function in an inner ``jit`` (``jnp.where`` is ``jit[name=_where]``), this module
does too, so printed jaxprs read the same.

>>> jnp.arange(6).reshape(2, 3).T
Array([[0, 3],
       [1, 4],
       [2, 5]], dtype=int32)
"""

from __future__ import annotations

import builtins
import math
import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from spmd._src import dtypes
from spmd._src.api import jit
from spmd._src.array import Array
from spmd._src.core import Tracer
from spmd._src.errors import ConcretizationTypeError
from spmd._src.lax import elementwise as lax
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.numpy import ufuncs
from spmd._src.numpy.util import (
    check_arraylike,
    convert,
    promote_dtypes,
    promote_dtypes_inexact,
    to_array,
)
from spmd._src.util import canonicalize_axis, prod

_int32 = np.dtype(np.int32)
_bool = np.dtype(np.bool_)

# ---------------------------------------------------------------------------------------------
# Constants and dtype utilities (re-exported as jnp.*)

pi = np.pi
e = np.e
euler_gamma = np.euler_gamma
inf = np.inf
nan = np.nan
newaxis = None

dtype = np.dtype
iinfo = dtypes.iinfo
finfo = dtypes.finfo
issubdtype = dtypes.issubdtype
isdtype = dtypes.isdtype
promote_types = dtypes.promote_types


def result_type(*args: Any) -> np.dtype:
    """The dtype JAX's promotion rules give for ``args`` (arrays, scalars or dtypes).

    >>> jnp.result_type(jnp.int8, 1.0)
    dtype('float32')
    """
    return dtypes.result_type(*args)


def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
    """Whether NumPy's ``casting`` rule allows a cast from ``from_`` to ``to``."""
    return bool(np.can_cast(_as_dtype(from_), _as_dtype(to), casting=casting))


def _as_dtype(x: Any) -> np.dtype:
    if isinstance(x, (Array, Tracer, np.ndarray, np.generic)):
        return x.dtype
    return dtypes.dtype(x)


def _dtype_arg(dt: Any, fn: str = "") -> np.dtype:
    """A user's dtype argument, checked and canonicalized (float64 -> float32 without x64)."""
    try:
        out = dtypes.dtype(dt)
    except TypeError as err:
        where = f" in {fn}" if fn else ""
        raise TypeError(
            f"JAX only supports number and bool dtypes, got dtype {dt!r}{where}"
        ) from err
    return dtypes.canonicalize_dtype(out)


# ---------------------------------------------------------------------------------------------
# Small helpers


def _shape_of(x: Any) -> tuple[int, ...]:
    if isinstance(x, (Array, Tracer)):
        return tuple(x.shape)
    return np.shape(x)


def _ndim_of(x: Any) -> int:
    return len(_shape_of(x))


def _scalar(value: Any, dt: Any, weak: bool = False) -> Array:
    """A concrete scalar constant of dtype ``dt`` (a literal when traced)."""
    return Array(np.asarray(value, dtype=dt), weak_type=weak)


def _full(shape: Sequence[int], value: Any, dt: Any, weak: bool = False) -> Any:
    return lax_shape.broadcast_in_dim(_scalar(value, dt, weak), tuple(shape), ())


def _canonical_shape(shape: Any, fn: str) -> tuple[int, ...]:
    """A shape argument (an int or a sequence of ints) as a tuple of Python ints."""
    if isinstance(shape, (list, tuple)):
        items = tuple(shape)
    elif isinstance(shape, (np.ndarray, Array)) and shape.ndim == 1:
        items = tuple(shape)
    else:
        items = (shape,)
    try:
        out = tuple(operator.index(d) for d in items)
    except TypeError:
        raise TypeError(
            f"Shapes must be 1D sequences of concrete values of integer type, got {items}"
            + (f" (in {fn})." if fn else ".")
        ) from None
    return out


def _check_nonneg_shape(shape: tuple[int, ...], fn: str) -> None:
    if any(d < 0 for d in shape):
        raise TypeError(f"{fn}: shape must have every element be nonnegative, got {shape}.")


def _axis(axis: Any, ndim: int, fn: str, name: str = "axis") -> int:
    return canonicalize_axis(axis, ndim, name=name, fn=fn)


def _axes_tuple(axis: Any, ndim: int, fn: str) -> tuple[int, ...]:
    """``axis`` (an int or a sequence of ints) canonicalized; repeated axes are an error."""
    axes = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    out = tuple(_axis(a, ndim, fn) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}: repeated axis in {axes}")
    return out


def _named_jit(name: str, fun, static_argnames: Sequence[str] = ()):
    """``jit(fun)`` shown as ``jit[name=<name>]`` in jaxprs, as JAX's inner jits are."""
    fun.__name__ = fun.__qualname__ = name
    return jit(fun, static_argnames=tuple(static_argnames))


def _concrete_int(x: Any, fn: str, argname: str) -> int:
    if isinstance(x, Tracer):
        raise ConcretizationTypeError(
            x._concretization_message(fn) + f"\nIt arose in the {fn} argument '{argname}'."
        )
    try:
        return operator.index(x)
    except TypeError:
        raise TypeError(
            f"{fn}: {argname} must be an integer, got {x!r} of type {type(x).__name__}."
        ) from None


# ---------------------------------------------------------------------------------------------
# Inspecting values


def shape(a: Any) -> tuple[int, ...]:
    """The shape of an array or array-like (``jnp.shape(1.0) == ()``)."""
    return _shape_of(a)


def ndim(a: Any) -> int:
    """The number of dimensions of an array or array-like."""
    return _ndim_of(a)


def size(a: Any, axis: int | None = None) -> int:
    """The number of elements of ``a`` (along ``axis`` when given)."""
    s = _shape_of(a)
    if axis is None:
        return prod(s)
    return s[_axis(axis, len(s), "size")]


def isscalar(element: Any) -> bool:
    """True for scalars and 0-d arrays (not for lists), as ``jnp.isscalar``."""
    if hasattr(element, "__jax_array__"):
        element = element.__jax_array__()
    if dtypes.is_python_scalar(element) or isinstance(element, np.generic):
        return True
    if isinstance(element, (np.ndarray, Array, Tracer)):
        return element.ndim == 0
    return False


def _value_dtype(x: Any) -> np.dtype:
    if isinstance(x, (Array, Tracer, np.ndarray, np.generic)):
        return x.dtype
    return np.asarray(x).dtype


def iscomplexobj(x: Any) -> bool:
    """True if ``x`` has a complex dtype."""
    if x is None:
        return False
    return dtypes.issubdtype(_value_dtype(x), np.complexfloating)


def isrealobj(x: Any) -> bool:
    """True unless ``x`` has a complex dtype."""
    return not iscomplexobj(x)


# ---------------------------------------------------------------------------------------------
# array / asarray


def _leaves(obj: Any) -> list[Any]:
    if isinstance(obj, (list, tuple)):
        out = []
        for o in obj:
            out.extend(_leaves(o))
        return out
    return [obj]


def _check_valid_value(x: Any) -> None:
    if x is None:
        raise ValueError("None is not a valid value for jnp.array")
    if isinstance(x, (Array, Tracer)) or dtypes.is_python_scalar(x):
        return
    v = x if isinstance(x, (np.ndarray, np.generic)) else np.asarray(x)
    if v.dtype not in dtypes._SUPPORTED:
        raise TypeError(
            f"Value {x!r} with dtype {v.dtype} is not a valid JAX array type. Only arrays of "
            "numeric types are supported by JAX."
        )


def _from_python_scalars(obj: Any, dt: np.dtype | None) -> np.ndarray:
    v = np.array(obj)
    target = dt if dt is not None else dtypes.canonicalize_dtype(v.dtype)
    if v.dtype.kind in "iu" and target.kind in "iu" and v.size:
        info = np.iinfo(target)
        lo, hi = v.min(), v.max()
        if lo < info.min or hi > info.max:
            bad = hi if hi > info.max else lo
            raise OverflowError(f"Python int {int(bad)} too large to convert to {target.name}")
    with np.errstate(all="ignore"):
        return v if v.dtype == target else v.astype(target)


def _stack_nested(obj: Any, dt: np.dtype) -> Any:
    """A nested list holding tracers as one traced array: leaves converted, then each level
    stacked by expanding a leading axis and concatenating (the primitives JAX emits)."""
    if isinstance(obj, (list, tuple)):
        if not obj:
            return Array(np.zeros((0,), dt))
        parts = [lax_shape.expand_dims(_stack_nested(o, dt), (0,)) for o in obj]
        return lax_shape.concatenate(parts, 0)
    return convert(obj, dt, weak_type=False)


def array(
    object: Any,
    dtype: Any = None,
    copy: bool = True,
    order: str | None = "K",
    ndmin: int = 0,
    *,
    device: Any = None,
    out_sharding: Any = None,
) -> Any:
    """An array from ``object``: an array, a scalar, or nested lists/tuples of them.

    Python scalars give weakly typed arrays (``jnp.array(1.0).weak_type`` is True); lists give
    strongly typed ones with the promoted dtype of their elements.

    >>> jnp.array([1, 2.5])
    Array([1. , 2.5], dtype=float32)
    """
    if order is not None and order not in ("K", "A", "C", "F"):
        raise ValueError(f"array: unexpected value for order {order!r}")
    ndmin = operator.index(ndmin)
    if hasattr(object, "__jax_array__"):
        object = object.__jax_array__()
    dt = None if dtype is None else _dtype_arg(dtype, "array")

    if isinstance(object, (Array, Tracer)):
        out = lax.copy_p.bind(object) if copy else object
        if dt is not None:
            out = convert(out, dt, weak_type=False)
    elif isinstance(object, (list, tuple)):
        leaves = _leaves(object)
        if all(dtypes.is_python_scalar(leaf) for leaf in leaves):
            # NumPy infers what JAX's lattice gives for Python scalars (bool < int < float <
            # complex), up to x64 canonicalization.
            out = Array(_from_python_scalars(object, dt))
        else:
            for leaf in leaves:
                _check_valid_value(leaf)
            if dt is None:
                dt = dtypes.result_type(*leaves)
            if any(isinstance(leaf, Tracer) for leaf in leaves):
                out = _stack_nested(object, dt)
            else:
                with np.errstate(all="ignore"):
                    out = Array(np.array(object, dtype=dt))
    else:
        _check_valid_value(object)
        if dtypes.is_python_scalar(object):
            weak = dt is None and dtypes.is_weakly_typed(object)
            out = Array(dtypes.coerce_scalar(object, dt), weak_type=weak)
        else:
            v = np.array(object) if copy else np.asarray(object)
            target = dt if dt is not None else dtypes.canonicalize_dtype(v.dtype)
            with np.errstate(all="ignore"):
                out = Array(v if v.dtype == target else v.astype(target))
    nd = _ndim_of(out)
    if nd < ndmin:
        out = lax_shape.expand_dims(out, tuple(range(ndmin - nd)))
    return out


def asarray(
    a: Any,
    dtype: Any = None,
    order: str | None = None,
    *,
    copy: bool | None = None,
    device: Any = None,
    out_sharding: Any = None,
) -> Any:
    """``a`` as an array, without copying when it already is one of the right dtype.

    >>> jnp.asarray(np.ones(2)).dtype  # float64 input becomes float32 (x64 off)
    dtype('float32')
    """
    if isinstance(a, (Array, Tracer)) and not copy:
        if dtype is None:
            return a
        return convert(a, _dtype_arg(dtype, "asarray"), weak_type=False)
    return array(a, dtype=dtype, copy=bool(copy), order=order)


def copy(a: Any, order: str | None = None) -> Any:
    """A copy of ``a``."""
    check_arraylike("copy", a)
    return array(a, copy=True, order=order)


def astype(x: Any, dtype: Any, /, *, copy: bool = False, device: Any = None) -> Any:
    """``x`` converted to ``dtype`` (the result is strongly typed).

    >>> jnp.astype(jnp.array([1.7, -2.5]), jnp.int32)
    Array([ 1, -2], dtype=int32)
    """
    check_arraylike("astype", x)
    if dtype is None:
        raise TypeError("astype: dtype must be given, got None")
    dt = _dtype_arg(dtype, "astype")
    if dtypes.is_complex(_value_dtype(x)) and not dtypes.is_complex(dt):
        warnings.warn(
            "Casting from complex to real dtypes will soon raise a ValueError. Please first use "
            "jnp.real or jnp.imag to take the real/imaginary component of your input.",
            DeprecationWarning,
            stacklevel=2,
        )
    out = convert(x, dt, weak_type=False)
    if copy and out is x:
        out = lax.copy_p.bind(out)
    return out


# ---------------------------------------------------------------------------------------------
# Filled arrays


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


def ones(shape: Any, dtype: Any = None, *, device: Any = None, out_sharding: Any = None) -> Any:
    """An array of ones (float32 unless ``dtype`` is given)."""
    shp = _canonical_shape(shape, "ones")
    _check_nonneg_shape(shp, "ones")
    dt = dtypes.default_float_dtype() if dtype is None else _dtype_arg(dtype, "ones")
    return _full(shp, 1, dt)


def empty(shape: Any, dtype: Any = None, *, device: Any = None, out_sharding: Any = None) -> Any:
    """As ``zeros`` (arrays are immutable, so there is nothing to leave uninitialized)."""
    return zeros(shape, dtype)


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


def zeros_like(
    a: Any, dtype: Any = None, shape: Any = None, *, device: Any = None, out_sharding: Any = None
) -> Any:
    """Zeros with the shape and dtype (and weak type) of ``a``."""
    dt, weak, shp = _like_dtype_and_shape(a, dtype, shape, "zeros_like")
    return _full(shp, 0, dt, weak)


def ones_like(
    a: Any, dtype: Any = None, shape: Any = None, *, device: Any = None, out_sharding: Any = None
) -> Any:
    """Ones with the shape and dtype (and weak type) of ``a``."""
    dt, weak, shp = _like_dtype_and_shape(a, dtype, shape, "ones_like")
    return _full(shp, 1, dt, weak)


def empty_like(
    prototype: Any,
    dtype: Any = None,
    shape: Any = None,
    *,
    device: Any = None,
    out_sharding: Any = None,
) -> Any:
    """As ``zeros_like``."""
    dt, weak, shp = _like_dtype_and_shape(prototype, dtype, shape, "empty_like")
    return _full(shp, 0, dt, weak)


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
    return lax_shape.stack(out, 0)


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


def _tri_select(m, k, lower):
    n_, m_ = m.shape[-2:]
    mask = _offset_mask(n_, m_, k if lower else k - 1, lax.ge)
    if m.ndim > 2:
        mask = lax_shape.broadcast_in_dim(mask, m.shape, (m.ndim - 2, m.ndim - 1))
    zeros_ = _full(m.shape, 0, m.dtype)
    return lax.select_n(mask, zeros_, m) if lower else lax.select_n(mask, m, zeros_)


_tril_jit = _named_jit("tril", lambda m, k: _tri_select(m, k, True), ("k",))
_triu_jit = _named_jit("triu", lambda m, k: _tri_select(m, k, False), ("k",))


def tril(m: Any, k: int = 0) -> Any:
    """``m`` with the elements above the ``k``-th diagonal zeroed (on the last two axes)."""
    check_arraylike("tril", m)
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError("Argument to jax.numpy.tril must be at least 2D")
    return _tril_jit(m, k=operator.index(k))


def triu(m: Any, k: int = 0) -> Any:
    """``m`` with the elements below the ``k``-th diagonal zeroed (on the last two axes)."""
    check_arraylike("triu", m)
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError("Argument to jax.numpy.triu must be at least 2D")
    return _triu_jit(m, k=operator.index(k))


def _diagonal_body(a, offset, axis1, axis2):
    nd = a.ndim
    rest = [i for i in range(nd) if i not in (axis1, axis2)]
    perm = (*rest, axis1, axis2)
    a = lax_shape.transpose(a, perm)
    *batch, n, m = a.shape
    batch = tuple(batch)
    if offset >= 0:
        m2 = builtins.max(m - offset, 0)
        a = lax_shape.slice_in_dim(a, builtins.min(offset, m), m, axis=nd - 1)
        n2 = n
    else:
        n2 = builtins.max(n + offset, 0)
        a = lax_shape.slice_in_dim(a, builtins.min(-offset, n), n, axis=nd - 2)
        m2 = m
    d = builtins.max(builtins.min(n2, m2), 0)
    if d == 0:
        return _full(batch + (0,), 0, a.dtype, a.weak_type)
    # The diagonal of a (d, m2) block, read as a flat vector, is every (m2 + 1)-th element:
    # static slices and a reshape, no gather.
    a = lax_shape.slice_in_dim(a, 0, d, axis=nd - 2)
    flat = lax_shape.reshape(a, batch + (d * m2,))
    return lax_shape.slice_in_dim(flat, 0, (d - 1) * (m2 + 1) + 1, m2 + 1, axis=nd - 2)


_diagonal_jit = _named_jit("diagonal", _diagonal_body, ("offset", "axis1", "axis2"))


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """The ``offset``-th diagonal of the 2-D slices of ``a`` over ``axis1`` and ``axis2``
    (as the last axis of the result).

    >>> jnp.diagonal(jnp.arange(6).reshape(2, 3), 1)
    Array([1, 5], dtype=int32)
    """
    check_arraylike("diagonal", a)
    a = asarray(a)
    if a.ndim < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    ax1 = _axis(axis1, a.ndim, "diagonal", "axis1")
    ax2 = _axis(axis2, a.ndim, "diagonal", "axis2")
    if ax1 == ax2:
        raise TypeError(
            f"diagonal: axis1 and axis2 must be different, got axis1={axis1}, axis2={axis2} for "
            f"shape {tuple(a.shape)}."
        )
    return _diagonal_jit(a, offset=operator.index(offset), axis1=ax1, axis2=ax2)


def _diag_body(v, k):
    if v.ndim == 2:
        return diagonal(v, k)
    n = v.shape[0] + builtins.abs(k)
    v = lax_shape.pad(v, _scalar(0, v.dtype), ((builtins.max(0, -k), builtins.max(0, k), 0),))
    mask = _offset_mask(n, n, k, lax.eq)
    col = lax_shape.broadcast_in_dim(v, (n, 1), (0,))
    return where(mask, col, _scalar(0, v.dtype))


_diag_jit = _named_jit("_diag", _diag_body, ("k",))


def diag(v: Any, k: int = 0) -> Any:
    """The ``k``-th diagonal of a 2-D array, or a 2-D array with 1-D ``v`` on its diagonal.

    >>> jnp.diag(jnp.array([1, 2]))
    Array([[1, 0],
           [0, 2]], dtype=int32)
    """
    check_arraylike("diag", v)
    v = asarray(v)
    if v.ndim not in (1, 2):
        raise ValueError("diag input must be 1d or 2d")
    return _diag_jit(v, k=operator.index(k))


def diagflat(v: Any, k: int = 0) -> Any:
    """A 2-D array with the flattened ``v`` on its ``k``-th diagonal."""
    check_arraylike("diagflat", v)
    return diag(ravel(v), k)


def _sum_dtype(dt: np.dtype) -> np.dtype:
    # What jnp.sum accumulates in: small ints and bool widen to the default int (unsigned to
    # the default uint); everything else sums in its own dtype.
    if dt == _bool:
        return dtypes.default_int_dtype()
    if dtypes.issubdtype(dt, np.unsignedinteger) and dt.itemsize < 4:
        return dtypes.default_uint_dtype()
    if dtypes.issubdtype(dt, np.signedinteger) and dt.itemsize < 4:
        return dtypes.default_int_dtype()
    return dt


def _trace_body(a, offset=0, *, axis1, axis2, dtype):
    nd = a.ndim
    rest = [i for i in range(nd) if i not in (axis1, axis2)]
    a = lax_shape.transpose(a, (*rest, axis1, axis2))
    n, m = a.shape[-2:]
    mask = _offset_mask(n, m, offset, lax.eq)
    a = where(mask, a, _full(a.shape, 0, a.dtype))
    out_dt = _sum_dtype(a.dtype) if dtype is None else dtype
    a = convert(a, dtypes.reduction_accum_dtype(out_dt))
    out = lax_red.reduce_sum(a, (nd - 2, nd - 1))
    return convert(out, out_dt)


# An offset left at its default is closed over (a literal), as in JAX; one that is given is an
# operand of the inner jit.
_trace_jit = _named_jit("trace", _trace_body, ("axis1", "axis2", "dtype"))


def trace(
    a: Any,
    offset: Any = 0,
    axis1: int = 0,
    axis2: int = 1,
    dtype: Any = None,
    out: None = None,
) -> Any:
    """The sum along the ``offset``-th diagonal over ``axis1`` and ``axis2``.

    >>> jnp.trace(jnp.arange(4).reshape(2, 2))
    Array(3, dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
    check_arraylike("trace", a, offset)
    a = asarray(a)
    ax1 = _axis(axis1, a.ndim, "trace", "axis1")
    ax2 = _axis(axis2, a.ndim, "trace", "axis2")
    if ax1 == ax2:
        raise ValueError(f"trace: axis1 and axis2 must be different, got {axis1} and {axis2}.")
    dt = None if dtype is None else _dtype_arg(dtype, "trace")
    if type(offset) is int and offset == 0:
        return _trace_jit(a, axis1=ax1, axis2=ax2, dtype=dt)
    return _trace_jit(a, offset, axis1=ax1, axis2=ax2, dtype=dt)


# ---------------------------------------------------------------------------------------------
# Reshaping


def _reshape_sizes(a_shape: tuple[int, ...], newshape: Any, fn: str) -> tuple[int, ...]:
    dims = _canonical_shape(newshape, fn)
    total = prod(a_shape)
    if dims.count(-1) > 1:
        raise TypeError(
            f"can only specify one unknown axis size with a `-1` value, got {tuple(dims)}"
        )
    if -1 in dims:
        known = prod(d for d in dims if d != -1)
        if any(d < -1 for d in dims) or known == 0 or total % known:
            raise TypeError(
                f"cannot reshape array of shape {a_shape} (size {total}) into shape {dims} "
                f"because the product of specified axis sizes ({known}) does not evenly divide "
                f"{total}"
            )
        dims = tuple(total // known if d == -1 else d for d in dims)
    if prod(dims) != total or any(d < 0 for d in dims):
        raise TypeError(
            f"cannot reshape array of shape {a_shape} (size {total}) into shape {dims} "
            f"(size {prod(dims)})"
        )
    return dims


def reshape(
    a: Any, shape: Any = None, order: str = "C", *, copy: bool | None = None, out_sharding=None
) -> Any:
    """``a`` with a new shape of the same size (one entry may be -1, to be inferred).

    >>> jnp.reshape(jnp.arange(6), (2, -1))
    Array([[0, 1, 2],
           [3, 4, 5]], dtype=int32)
    """
    check_arraylike("reshape", a)
    if shape is None:
        raise TypeError("reshape: the new shape must be given")
    a = asarray(a)
    dims = _reshape_sizes(tuple(a.shape), shape, "reshape")
    if order == "C":
        return lax_shape.reshape(a, dims)
    if order == "F":
        nd = a.ndim
        out = lax_shape.reshape(a, dims[::-1], tuple(range(nd - 1, -1, -1)))
        return lax_shape.transpose(out, tuple(range(len(dims) - 1, -1, -1)))
    if order == "A":
        raise NotImplementedError("jnp.reshape does not support order='A'.")
    raise ValueError(f"reshape: unexpected value for order {order!r}; expected 'C' or 'F'")


def _method_reshape(self: Any, *args: Any, order: str = "C") -> Any:
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``."""
    if len(args) == 1 and not isinstance(args[0], int) and np.ndim(args[0]) != 0:
        newshape = args[0]
    elif any(isinstance(s, (list, tuple)) for s in args):
        raise TypeError(
            f"Shapes must be 1D sequences of concrete values of integer type, got {args}."
        )
    else:
        newshape = args
    return reshape(self, newshape, order=order)


def ravel(a: Any, order: str = "C") -> Any:
    """``a`` flattened to one dimension."""
    check_arraylike("ravel", a)
    a = asarray(a)
    if order == "F":
        return lax_shape.reshape(a, (a.size,), tuple(range(a.ndim - 1, -1, -1)))
    if order not in ("C", "K", "A"):
        raise ValueError(f"ravel: unexpected value for order {order!r}")
    return lax_shape.reshape(a, (a.size,))


def transpose(a: Any, axes: Sequence[int] | None = None) -> Any:
    """``a`` with its axes permuted (reversed when ``axes`` is None).

    >>> jnp.transpose(jnp.ones((2, 3, 4)), (1, 0, 2)).shape
    (3, 2, 4)
    """
    check_arraylike("transpose", a)
    a = asarray(a)
    nd = a.ndim
    if axes is None:
        perm = tuple(range(nd - 1, -1, -1))
    else:
        perm = tuple(_axis(ax, nd, "transpose") for ax in axes)
    return lax_shape.transpose(a, perm)


def _method_transpose(self: Any, *args: Any) -> Any:
    """``x.transpose()``, ``x.transpose(1, 0)`` or ``x.transpose((1, 0))``."""
    if not args or (len(args) == 1 and args[0] is None):
        return transpose(self)
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return transpose(self, args[0])
    return transpose(self, args)


def _property_T(self: Any) -> Any:
    """``x.T``: all axes reversed."""
    return transpose(self)


def _property_mT(self: Any) -> Any:
    """``x.mT``: the last two axes swapped."""
    if self.ndim < 2:
        raise ValueError(
            f"x must be at least two-dimensional for matrix_transpose; got ndim={self.ndim}"
        )
    perm = (*range(self.ndim - 2), self.ndim - 1, self.ndim - 2)
    return lax_shape.transpose(self, perm)


def swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    """``a`` with ``axis1`` and ``axis2`` interchanged."""
    check_arraylike("swapaxes", a)
    a = asarray(a)
    nd = a.ndim
    try:
        ax1 = _axis(axis1, nd, "swapaxes", "axis1")
        ax2 = _axis(axis2, nd, "swapaxes", "axis2")
    except ValueError as err:
        # JAX raises IndexError here; NumPy's AxisError is both an IndexError and a ValueError.
        raise np.exceptions.AxisError(str(err)) from None
    perm = list(range(nd))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    return lax_shape.transpose(a, tuple(perm))


def moveaxis(a: Any, source: int | Sequence[int], destination: int | Sequence[int]) -> Any:
    """``a`` with axes ``source`` moved to positions ``destination``.

    >>> jnp.moveaxis(jnp.ones((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
    check_arraylike("moveaxis", a)
    a = asarray(a)
    nd = a.ndim
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError(f"Inconsistent number of elements: {len(src)} vs {len(dst)}")
    src = tuple(_axis(s, nd, "moveaxis", "source") for s in src)
    dst = tuple(_axis(d, nd, "moveaxis", "destination") for d in dst)
    perm = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return lax_shape.transpose(a, tuple(perm))


def expand_dims(a: Any, axis: int | Sequence[int]) -> Any:
    """``a`` with size-1 axes inserted at ``axis`` (positions in the result).

    >>> jnp.expand_dims(jnp.ones((2, 3)), (0, 2)).shape
    (1, 2, 1, 3)
    """
    check_arraylike("expand_dims", a)
    a = asarray(a)
    axes = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    nd = a.ndim + len(axes)
    canon = tuple(_axis(ax, nd, "expand_dims") for ax in axes)
    if len(set(canon)) != len(canon):
        raise ValueError(f"repeated axis in lax.expand_dims: {axes}")
    return lax_shape.expand_dims(a, canon)


def squeeze(a: Any, axis: int | Sequence[int] | None = None) -> Any:
    """``a`` without the given size-1 axes (all of them when ``axis`` is None)."""
    check_arraylike("squeeze", a)
    a = asarray(a)
    shp = tuple(a.shape)
    if axis is None:
        dims = tuple(i for i, d in enumerate(shp) if d == 1)
    else:
        dims = _axes_tuple(axis, len(shp), "squeeze")
        if any(shp[d] != 1 for d in dims):
            raise ValueError(
                "cannot select an axis to squeeze out which has size not equal to one, got "
                f"shape={shp} and dimensions={dims}"
            )
    return lax_shape.squeeze(a, dims)


def broadcast_shapes(*shapes: Any) -> tuple[int, ...]:
    """The shape the given shapes broadcast to (NumPy's rules).

    >>> jnp.broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    shps = [(s,) if isinstance(s, (int, np.integer)) else tuple(s) for s in shapes]
    if not shps:
        return ()
    rank = builtins.max(len(s) for s in shps)
    out = []
    for i in range(rank, 0, -1):
        sizes = {s[-i] for s in shps if len(s) >= i}
        big = sizes - {1}
        if len(big) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={shps}")
        out.append(big.pop() if big else 1)
    return tuple(int(d) for d in out)


def broadcast_to(array: Any, shape: Any) -> Any:
    """``array`` broadcast to ``shape`` (NumPy's rules).

    >>> jnp.broadcast_to(jnp.arange(3), (2, 3))
    Array([[0, 1, 2],
           [0, 1, 2]], dtype=int32)
    """
    check_arraylike("broadcast_to", array)
    arr = asarray(array)
    shp = _canonical_shape(shape, "broadcast_to")
    arr_shape = tuple(arr.shape)
    if arr_shape == shp:
        return arr
    if len(shp) < len(arr_shape):
        raise ValueError(
            f"Cannot broadcast to shape with fewer dimensions: arr_shape={arr_shape} shape={shp}"
        )
    lead = len(shp) - len(arr_shape)
    if any(d != 1 and d != s for d, s in zip(arr_shape, shp[lead:])) or any(d < 0 for d in shp):
        aval = arr.aval
        want = aval.update(shape=shp)
        raise ValueError(
            f"Incompatible types for broadcasting: input type={_type_str(aval)} and requested "
            f"type={_type_str(want)}"
        )
    return lax_shape.broadcast_in_dim(arr, shp, tuple(range(lead, len(shp))))


def _type_str(aval) -> str:
    return aval.str_short(short_dtypes=False)


def broadcast_arrays(*args: Any) -> list:
    """The arguments broadcast against each other."""
    check_arraylike("broadcast_arrays", *args)
    shp = broadcast_shapes(*(_shape_of(a) for a in args))
    return [broadcast_to(a, shp) for a in args]


def atleast_1d(*arys: Any) -> Any:
    """Each argument as an array with at least one dimension (a list if several)."""
    return _atleast("atleast_1d", _atleast_1d_jit, arys)


def atleast_2d(*arys: Any) -> Any:
    """Each argument as an array with at least two dimensions (1-D ``(n,)`` becomes
    ``(1, n)``)."""
    return _atleast("atleast_2d", _atleast_2d_jit, arys)


def atleast_3d(*arys: Any) -> Any:
    """Each argument as an array with at least three dimensions (``(n,)`` becomes
    ``(1, n, 1)``, ``(n, m)`` becomes ``(n, m, 1)``)."""
    return _atleast("atleast_3d", _atleast_3d_jit, arys)


def _atleast(name: str, fn, arys: tuple) -> Any:
    check_arraylike(name, *arys)
    if not arys:
        return []
    out = fn(*arys)
    return out[0] if len(arys) == 1 else list(out)


def _expand_1d(x):
    x = asarray(x)
    return lax_shape.broadcast_in_dim(x, (1,), ()) if x.ndim == 0 else x


def _expand_2d(x):
    x = asarray(x)
    if x.ndim == 0:
        return lax_shape.broadcast_in_dim(x, (1, 1), ())
    if x.ndim == 1:
        return lax_shape.broadcast_in_dim(x, (1, x.shape[0]), (1,))
    return x


def _expand_3d(x):
    x = asarray(x)
    if x.ndim == 0:
        return lax_shape.broadcast_in_dim(x, (1, 1, 1), ())
    if x.ndim == 1:
        return lax_shape.broadcast_in_dim(x, (1, x.shape[0], 1), (1,))
    if x.ndim == 2:
        return lax_shape.broadcast_in_dim(x, (*x.shape, 1), (0, 1))
    return x


_atleast_1d_jit = _named_jit("atleast_1d", lambda *xs: [_expand_1d(x) for x in xs])
_atleast_2d_jit = _named_jit("atleast_2d", lambda *xs: [_expand_2d(x) for x in xs])
_atleast_3d_jit = _named_jit("atleast_3d", lambda *xs: [_expand_3d(x) for x in xs])


# ---------------------------------------------------------------------------------------------
# Joining


def _unstack(x: Any) -> list:
    return [lax_shape.index_in_dim(x, i, 0, keepdims=False) for i in range(x.shape[0])]


def _as_array_list(arrays: Any, fn: str) -> list:
    if isinstance(arrays, (Array, Tracer, np.ndarray)):
        return _unstack(asarray(arrays))
    arrays = list(arrays)
    check_arraylike(fn, *arrays)
    return arrays


def concatenate(arrays: Any, axis: int | None = 0, dtype: Any = None) -> Any:
    """Join arrays along an existing axis (``axis=None`` flattens them first); dtypes are
    promoted.

    >>> jnp.concatenate([jnp.zeros(2), jnp.arange(2)])
    Array([0., 0., 0., 1.], dtype=float32)
    """
    if isinstance(arrays, (Array, Tracer, np.ndarray)):
        return _concatenate_array(asarray(arrays), axis, dtype)
    arrays = list(arrays)
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    check_arraylike("concatenate", *arrays)
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    shapes = [_shape_of(a) for a in arrays]
    if any(len(s) == 0 for s in shapes):
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    if len({len(s) for s in shapes}) > 1:
        raise TypeError(
            "Cannot concatenate arrays with different numbers of dimensions: got "
            + ", ".join(str(tuple(s)) for s in shapes)
            + "."
        )
    ax = _axis(axis, len(shapes[0]), "concatenate")
    if dtype is None:
        arrays = promote_dtypes(*arrays)
    else:
        dt = _dtype_arg(dtype, "concatenate")
        arrays = [convert(a, dt) for a in arrays]
    return lax_shape.concatenate(arrays, ax)


def _concatenate_array(arr: Any, axis: int | None, dtype: Any) -> Any:
    # Concatenating the rows of one array is a transpose and a reshape.
    if dtype is not None:
        arr = convert(arr, _dtype_arg(dtype, "concatenate"))
    if axis is None:
        return ravel(arr)
    if arr.ndim == 0:
        raise ValueError("Need at least one array to concatenate.")
    if arr.ndim == 1:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    ax = _axis(axis, arr.ndim - 1, "concatenate")
    dims = list(range(1, arr.ndim))
    dims.insert(ax, 0)
    shp = list(arr.shape[1:])
    shp[ax] *= arr.shape[0]
    return lax_shape.reshape(arr, tuple(shp), tuple(dims))


def stack(arrays: Any, axis: int = 0, out: None = None, dtype: Any = None) -> Any:
    """Join equal-shaped arrays along a new axis.

    >>> jnp.stack([jnp.zeros(2), jnp.ones(2)], axis=1)
    Array([[0., 1.],
           [0., 1.]], dtype=float32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
    if isinstance(arrays, (Array, Tracer, np.ndarray)):
        arr = asarray(arrays)
        if dtype is not None:
            arr = convert(arr, _dtype_arg(dtype, "stack"))
        if arr.ndim == 0:
            raise ValueError("Need at least one array to stack.")
        ax = _axis(axis, arr.ndim, "stack")
        # Stacking the rows of one array along ``ax`` moves its first axis there.
        nd = arr.ndim
        col = lax_shape.broadcast_in_dim(arr, (*arr.shape, 1), tuple(range(nd)))
        dims = list(range(1, nd))
        dims.insert(ax, 0)
        dims.append(nd)
        new = [arr.shape[d] for d in dims[:-1]]
        return lax_shape.reshape(col, tuple(new), tuple(dims))
    arrays = list(arrays)
    if not arrays:
        raise ValueError("Need at least one array to stack.")
    check_arraylike("stack", *arrays)
    shapes = [_shape_of(a) for a in arrays]
    if len({len(s) for s in shapes}) > 1:
        raise ValueError(
            "Cannot stack arrays with different numbers of dimensions: got "
            + ", ".join(str(tuple(s)) for s in shapes)
            + "."
        )
    if len({tuple(s) for s in shapes}) > 1:
        raise ValueError(
            "All input arrays must have the same shape. Got "
            + ", ".join(str(tuple(s)) for s in shapes)
            + "."
        )
    ax = _axis(axis, len(shapes[0]) + 1, "stack")
    if dtype is None:
        arrays = promote_dtypes(*arrays)
    else:
        dt = _dtype_arg(dtype, "stack")
        arrays = [convert(a, dt) for a in arrays]
    return lax_shape.stack(arrays, ax)


def hstack(tup: Any, dtype: Any = None) -> Any:
    """Join arrays column-wise (along axis 1; axis 0 for 1-D inputs)."""
    arrs = [atleast_1d(a) for a in _as_array_list(tup, "hstack")]
    if not arrs:
        raise ValueError("Need at least one array to concatenate.")
    return concatenate(arrs, 0 if arrs[0].ndim == 1 else 1, dtype=dtype)


def vstack(tup: Any, dtype: Any = None) -> Any:
    """Join arrays row-wise (1-D inputs become rows)."""
    arrs = [atleast_2d(a) for a in _as_array_list(tup, "vstack")]
    if not arrs:
        raise ValueError("Need at least one array to concatenate.")
    return concatenate(arrs, 0, dtype=dtype)


row_stack = vstack


def dstack(tup: Any, dtype: Any = None) -> Any:
    """Join arrays depth-wise (along axis 2)."""
    arrs = [atleast_3d(a) for a in _as_array_list(tup, "dstack")]
    if not arrs:
        raise ValueError("Need at least one array to concatenate.")
    return concatenate(arrs, 2, dtype=dtype)


def column_stack(tup: Any) -> Any:
    """Join 1-D arrays as columns (2-D arrays as they are) into a 2-D array."""
    arrs = []
    for a in _as_array_list(tup, "column_stack"):
        arrs.append(_property_T(atleast_2d(a)) if _ndim_of(a) < 2 else asarray(a))
    if not arrs:
        raise ValueError("Need at least one array to concatenate.")
    return concatenate(arrs, 1)


def append(arr: Any, values: Any, axis: int | None = None) -> Any:
    """``values`` appended to ``arr`` (both flattened when ``axis`` is None)."""
    check_arraylike("append", arr, values)
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis)


# ---------------------------------------------------------------------------------------------
# Splitting


def _split_sizes(size_: int, indices_or_sections: Any, fn: str, even: bool) -> tuple:
    if isinstance(indices_or_sections, Tracer):
        raise ConcretizationTypeError(
            indices_or_sections._concretization_message(fn)
            + f"\n{fn}: indices_or_sections must be concrete."
        )
    ios = np.asarray(indices_or_sections)
    if ios.ndim == 0:
        n = operator.index(ios[()])
        if n <= 0:
            raise ValueError(f"{fn}: number sections must be larger than 0, got {n}.")
        if even:
            if size_ % n:
                raise ValueError(
                    f"array split does not result in an equal division: rest is {size_ % n}"
                )
            return tuple(np.int64(size_ // n) for _ in range(n))
        q, r = divmod(size_, n)
        return tuple(np.int64(q + 1) for _ in range(r)) + tuple(np.int64(q) for _ in range(n - r))
    if ios.ndim != 1 or not (ios.size == 0 or np.issubdtype(ios.dtype, np.integer)):
        raise TypeError(f"{fn}: indices_or_sections must be an int or a 1-D list of ints.")
    bounds = np.concatenate([[0], ios.astype(np.int64), [size_]]).astype(np.int64)
    sizes = tuple(np.diff(bounds))
    if any(s < 0 for s in sizes):
        # As JAX (NumPy instead allows negative, decreasing and too-large indices).
        raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
    return sizes


def _split(fn: str, ary: Any, indices_or_sections: Any, axis: int, even: bool) -> list:
    check_arraylike(fn, ary)
    ary = asarray(ary)
    ax = _axis(axis, ary.ndim, fn)
    sizes = _split_sizes(ary.shape[ax], indices_or_sections, fn, even)
    return list(lax_shape.split(ary, sizes, ax))


def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """Split into equal sections (an int, which must divide the axis) or at indices.

    >>> [p.shape for p in jnp.split(jnp.ones((2, 6)), [1, 4], axis=1)]
    [(2, 1), (2, 3), (2, 2)]
    """
    return _split("split", ary, indices_or_sections, axis, True)


def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """As ``split``, but sections need not be equal (the first ones are one larger)."""
    return _split("array_split", ary, indices_or_sections, axis, False)


def hsplit(ary: Any, indices_or_sections: Any) -> list:
    """Split along axis 1 (axis 0 for 1-D arrays)."""
    check_arraylike("hsplit", ary)
    return _split("hsplit", ary, indices_or_sections, 1 if _ndim_of(ary) > 1 else 0, True)


def vsplit(ary: Any, indices_or_sections: Any) -> list:
    """Split along axis 0."""
    return _split("vsplit", ary, indices_or_sections, 0, True)


def dsplit(ary: Any, indices_or_sections: Any) -> list:
    """Split along axis 2 (the array must have at least three dimensions)."""
    check_arraylike("dsplit", ary)
    if _ndim_of(ary) < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return _split("dsplit", ary, indices_or_sections, 2, True)


# ---------------------------------------------------------------------------------------------
# Tiling and repeating


def tile(A: Any, reps: int | Sequence[int]) -> Any:
    """``A`` repeated ``reps[i]`` times along axis i (NumPy's rank alignment).

    >>> jnp.tile(jnp.array([1, 2]), 2)
    Array([1, 2, 1, 2], dtype=int32)
    """
    check_arraylike("tile", A)
    A = asarray(A)
    reps_t = _canonical_shape(reps, "tile")
    if any(r < 0 for r in reps_t):
        raise ValueError(f"tile: reps must be non-negative, got {reps_t}")
    nd = A.ndim
    if len(reps_t) > nd:
        lead = len(reps_t) - nd
        A = lax_shape.broadcast_in_dim(
            A, (1,) * lead + tuple(A.shape), tuple(range(lead, len(reps_t)))
        )
    reps_t = (1,) * (A.ndim - len(reps_t)) + reps_t
    return lax_shape.tile(A, reps_t)


def _repeat_scalar(a: Any, r: int, axis: int) -> Any:
    # Broadcast a new axis of size r after ``axis``, then merge the two (what JAX emits).
    shp = tuple(a.shape)
    nd = len(shp)
    big = shp[: axis + 1] + (r,) + shp[axis + 1 :]
    dims = tuple(range(axis + 1)) + tuple(range(axis + 2, nd + 1))
    out = lax_shape.broadcast_in_dim(a, big, dims)
    return lax_shape.reshape(out, shp[:axis] + (shp[axis] * r,) + shp[axis + 1 :])


def _take_static(a: Any, idx: np.ndarray, axis: int) -> Any:
    """``a`` indexed along ``axis`` by concrete indices, from slices (runs of equal indices
    become one broadcast slice, runs of consecutive ones one slice)."""
    pieces = []
    i, n = 0, len(idx)
    while i < n:
        j = i
        while j + 1 < n and idx[j + 1] == idx[i]:
            j += 1
        if j > i:
            piece = lax_shape.slice_in_dim(a, int(idx[i]), int(idx[i]) + 1, axis=axis)
            pieces.append(_repeat_scalar(piece, j - i + 1, axis))
            i = j + 1
            continue
        while (
            j + 1 < n and idx[j + 1] == idx[j] + 1 and not (j + 2 < n and idx[j + 2] == idx[j + 1])
        ):
            j += 1
        pieces.append(lax_shape.slice_in_dim(a, int(idx[i]), int(idx[j]) + 1, axis=axis))
        i = j + 1
    if not pieces:
        return lax_shape.slice_in_dim(a, 0, 0, axis=axis)
    return lax_shape.concatenate(pieces, axis)


def _take_along(a: Any, idx: Any, axis: int) -> Any:
    from spmd._src.numpy import indexing  # same layer; imported late to avoid a cycle

    take = getattr(indexing, "take", None)
    if take is None:
        raise NotImplementedError("traced indices need spmd.numpy.take, which is not available")
    return take(a, idx, axis=axis)


def repeat(
    a: Any,
    repeats: Any,
    axis: int | None = None,
    *,
    total_repeat_length: int | None = None,
    out_sharding: Any = None,
) -> Any:
    """Each element of ``a`` repeated ``repeats`` times (a scalar, or one count per element
    along ``axis``; ``axis=None`` flattens first). Traced ``repeats`` need a static
    ``total_repeat_length``.

    >>> jnp.repeat(jnp.array([1, 2]), 2)
    Array([1, 1, 2, 2], dtype=int32)
    """
    check_arraylike("repeat", a, repeats)
    a = asarray(a)
    if axis is None:
        a = ravel(a)
        ax = 0
    else:
        ax = _axis(axis, a.ndim, "repeat")
    n = a.shape[ax]
    if isinstance(repeats, Tracer):
        if total_repeat_length is None:
            raise ConcretizationTypeError(
                repeats._concretization_message("jnp.repeat")
                + "\njnp.repeat with a non-constant `repeats` is supported only when "
                "`total_repeat_length` is not None."
            )
        return _repeat_traced(a, repeats, ax, operator.index(total_repeat_length))
    r = np.asarray(repeats)
    if not (np.issubdtype(r.dtype, np.integer) or r.dtype == np.bool_):
        raise TypeError(f"repeat: repeats must be integers, got dtype {r.dtype}")
    r = r.astype(np.int64)
    if r.ndim == 0 and total_repeat_length is None:
        if r < 0:
            raise TypeError(f"repeat: repeats must be non-negative, got {int(r)}")
        return _repeat_scalar(a, int(r), ax)
    if r.ndim > 1 or r.size not in (1, n):
        raise ValueError(
            f"repeat: repeats of shape {r.shape} must be a scalar or have shape ({n},), the "
            f"size of axis {ax} of the array (shape {tuple(a.shape)})."
        )
    r = np.broadcast_to(r.reshape(-1), (n,))
    if (r < 0).any():
        raise ValueError(f"repeat: repeats must be non-negative, got {r.tolist()}")
    idx = np.repeat(np.arange(n), r)
    if total_repeat_length is not None:
        trl = operator.index(total_repeat_length)
        # Too short: truncated. Too long: padded with the last element (as JAX).
        idx = idx[:trl]
        if len(idx) < trl:
            idx = np.concatenate([idx, np.full(trl - len(idx), builtins.max(n - 1, 0))])
    return _take_static(a, idx, ax)


def _repeat_traced(a: Any, repeats: Any, axis: int, trl: int) -> Any:
    n = a.shape[axis]
    reps = broadcast_to(convert(repeats, _int32), (n,))
    ends = lax_red.cumsum(reps, 0)
    pos = lax_shape.iota(_int32, trl)
    # Output position j takes element #{i : ends[i] <= j} (clamped to the last element).
    before = lax.le(
        lax_shape.broadcast_in_dim(ends, (trl, n), (1,)),
        lax_shape.broadcast_in_dim(pos, (trl, n), (0,)),
    )
    idx = lax_red.reduce_sum(convert(before, _int32), (1,))
    idx = lax.min(idx, _scalar(builtins.max(n - 1, 0), _int32))
    return _take_along(a, idx, axis)


# ---------------------------------------------------------------------------------------------
# Flipping, rolling, rotating


def _flip_body(m, axis):
    nd = m.ndim
    dims = tuple(range(nd)) if axis is None else tuple(_axis(ax, nd, "flip") for ax in axis)
    return lax_shape.rev(m, dims)


_flip_jit = _named_jit("_flip", _flip_body, ("axis",))


def flip(m: Any, axis: int | Sequence[int] | None = None) -> Any:
    """``m`` with the order of elements reversed along ``axis`` (all axes if None).

    >>> jnp.flip(jnp.arange(3))
    Array([2, 1, 0], dtype=int32)
    """
    check_arraylike("flip", m)
    m = asarray(m)
    if axis is not None:
        axis = _axes_tuple(axis, m.ndim, "flip")
    return _flip_jit(m, axis=axis)


def fliplr(m: Any) -> Any:
    """``m`` reversed along axis 1."""
    check_arraylike("fliplr", m)
    if _ndim_of(m) < 2:
        raise ValueError(
            "fliplr requires an array of at least 2 dimensions (Input must be >= 2-d)."
        )
    return flip(m, 1)


def flipud(m: Any) -> Any:
    """``m`` reversed along axis 0."""
    check_arraylike("flipud", m)
    if _ndim_of(m) < 1:
        raise ValueError("flipud requires an array of at least 1 dimension (Input must be >= 1-d).")
    return flip(m, 0)


def _roll_body(a, shift, axis):
    for s, ax in zip(shift, axis):
        n = a.shape[ax]
        if n == 0:
            continue
        i = (-s) % n
        a = lax_shape.concatenate(
            [
                lax_shape.slice_in_dim(a, i, n, axis=ax),
                lax_shape.slice_in_dim(a, 0, i, axis=ax),
            ],
            ax,
        )
    return a


_roll_jit = _named_jit("_roll_static", _roll_body, ("shift", "axis"))


def roll(a: Any, shift: Any, axis: int | Sequence[int] | None = None) -> Any:
    """``a`` with elements shifted by ``shift`` along ``axis``, wrapping around (``axis=None``
    rolls the flattened array).

    >>> jnp.roll(jnp.arange(4), 1)
    Array([3, 0, 1, 2], dtype=int32)
    """
    check_arraylike("roll", a)
    if not isinstance(shift, (tuple, list)):
        check_arraylike("roll", a, shift)
    a = asarray(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), tuple(a.shape))
    axes = np.asarray(axis)
    if not np.issubdtype(axes.dtype, np.integer):
        raise TypeError(f"roll: axis must be an int or a sequence of ints, got {axis!r}")
    if isinstance(shift, Tracer):
        return _roll_traced(a, shift, axes)
    sh = np.asarray(shift)
    if not (np.issubdtype(sh.dtype, np.integer) or sh.dtype == np.bool_):
        raise TypeError(f"roll: shift must be integers, got dtype {sh.dtype}")
    try:
        sh, axes = np.broadcast_arrays(sh, axes)
    except ValueError:
        raise ValueError(
            f"roll: shift {sh.tolist()} and axis {axes.tolist()} cannot be broadcast together."
        ) from None
    if sh.ndim > 1:
        raise ValueError("roll: shift and axis must be scalars or 1-D sequences")
    axes_c = tuple(_axis(int(x), a.ndim, "roll") for x in axes.reshape(-1))
    shifts = tuple(int(x) for x in sh.reshape(-1))
    return _roll_jit(a, shift=shifts, axis=axes_c)


def _roll_traced(a: Any, shift: Any, axes: np.ndarray) -> Any:
    shift = asarray(shift)
    if shift.ndim > 1 or axes.ndim > 1:
        raise ValueError("roll: shift and axis must be scalars or 1-D sequences")
    k = builtins.max(shift.size if shift.ndim else 1, axes.size if axes.ndim else 1)
    shifts = broadcast_to(shift, (k,))
    for i, ax in enumerate(np.broadcast_to(axes, (k,)).tolist()):
        ax = _axis(ax, a.ndim, "roll")
        n = a.shape[ax]
        if n == 0:
            continue
        s = lax_shape.index_in_dim(shifts, i, 0, keepdims=False) if shifts.shape else shifts
        idx = ufuncs.remainder(ufuncs.subtract(lax_shape.iota(_int32, n), s), n)
        a = _take_along(a, idx, ax)
    return a


def _rot90_body(m, k, axes):
    ax1, ax2 = axes
    k = k % 4
    if k == 0:
        return m
    if k == 2:
        return _flip_jit(_flip_jit(m, axis=(ax1,)), axis=(ax2,))
    perm = list(range(m.ndim))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    if k == 1:
        return lax_shape.transpose(_flip_jit(m, axis=(ax2,)), tuple(perm))
    return _flip_jit(lax_shape.transpose(m, tuple(perm)), axis=(ax2,))


_rot90_jit = _named_jit("rot90", _rot90_body, ("k", "axes"))


def rot90(m: Any, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Any:
    """``m`` rotated by 90 degrees ``k`` times in the plane of ``axes`` (from the first axis
    towards the second)."""
    check_arraylike("rot90", m)
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError(
            "rot90 requires its first argument to have ndim at least two, but got first "
            f"argument of shape {tuple(m.shape)}, which has ndim {m.ndim}"
        )
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError(f"rot90: len(axes) must be 2, got {axes}")
    ax = tuple(_axis(x, m.ndim, "rot90") for x in axes)
    if ax[0] == ax[1]:
        raise ValueError("Axes must be different")
    return _rot90_jit(m, k=operator.index(k), axes=ax)


# ---------------------------------------------------------------------------------------------
# Padding

_PAD_KWARGS = {
    "constant": {"constant_values"},
    "edge": set(),
    "wrap": set(),
    "reflect": {"reflect_type"},
    "symmetric": {"reflect_type"},
    "empty": set(),
}
_UNSUPPORTED_PAD_MODES = ("linear_ramp", "maximum", "mean", "median", "minimum")


def _pad_pairs(pad_width: Any, nd: int) -> tuple:
    if isinstance(pad_width, Tracer):
        raise ConcretizationTypeError(
            pad_width._concretization_message("jnp.pad") + "\njnp.pad: pad_width must be concrete."
        )
    pw = np.asarray(pad_width)
    if pw.size and not np.issubdtype(pw.dtype, np.integer):
        raise TypeError("`pad_width` must be of integral type.")
    valid = [(nd, 2), (1, 2), (2,), (1,), ()]
    if pw.shape not in valid:
        raise ValueError(
            f"jnp.pad: pad_width with nd={nd} has unsupported shape {pw.shape}. Valid shapes are "
            + ", ".join(str(s) for s in valid[:-1])
            + ", or ()."
        )
    pw = np.broadcast_to(pw.astype(np.int64), (nd, 2))
    if (pw < 0).any():
        raise ValueError("index can't contain negative values")
    return tuple((pw[i, 0], pw[i, 1]) for i in range(nd))


def _pad_constant(x, pairs, constant_values):
    cv = asarray(constant_values)
    if cv.ndim == 0:
        cfg = tuple((lo, hi, 0) for lo, hi in pairs)
        return lax_shape.pad(x, convert(cv, x.dtype), cfg)
    cv = convert(broadcast_to(cv, (x.ndim, 2)), x.dtype)
    for i, (lo, hi) in enumerate(pairs):
        for side, amount in ((0, lo), (1, hi)):
            val = lax_shape.reshape(lax_shape.slice(cv, (i, side), (i + 1, side + 1)), ())
            cfg = [(0, 0, 0)] * x.ndim
            cfg[i] = (amount, 0, 0) if side == 0 else (0, amount, 0)
            x = lax_shape.pad(x, val, tuple(cfg))
    return x


def _check_nonempty_axis(x, i, lo, hi, mode):
    if x.shape[i] == 0 and (lo > 0 or hi > 0):
        raise ValueError(f"Cannot apply '{mode}' padding to empty axis")


def _pad_edge(x, pairs):
    for i, (lo, hi) in enumerate(pairs):
        _check_nonempty_axis(x, i, lo, hi, "edge")
        n = x.shape[i]
        first = _repeat_scalar(lax_shape.slice_in_dim(x, 0, 1, axis=i), int(lo), i)
        last = _repeat_scalar(lax_shape.slice_in_dim(x, n - 1, n, axis=i), int(hi), i)
        x = lax_shape.concatenate([first, x, last], i)
    return x


def _pad_wrap(x, pairs):
    for i, (lo, hi) in enumerate(pairs):
        _check_nonempty_axis(x, i, lo, hi, "wrap")
        n = x.shape[i]
        if n == 0:
            continue
        left, right = [], []
        if lo % n:
            left.append(lax_shape.slice_in_dim(x, n - int(lo % n), n, axis=i))
        if hi % n:
            right.append(lax_shape.slice_in_dim(x, 0, int(hi % n), axis=i))
        pieces = left + [x] * int(lo // n) + [x] + [x] * int(hi // n) + right
        x = lax_shape.concatenate(pieces, i)
    return x


def _pad_reflect(x, pairs, mode, reflect_type):
    for i, (lo, hi) in enumerate(pairs):
        _check_nonempty_axis(x, i, lo, hi, mode)
        n = x.shape[i]
        # 'reflect' leaves the edge out of the mirror image; a single element is its own edge.
        offset = 1 if (mode == "reflect" and n > 1) else 0
        for before, amount in ((True, int(lo)), (False, int(hi))):
            size_ = x.shape[i]
            edge = lax_shape.slice_in_dim(
                x, 0 if before else size_ - 1, 1 if before else size_, axis=i
            )
            while amount > 0:
                cur = builtins.min(amount, n - offset)
                amount -= cur
                size_ = x.shape[i]
                if before:
                    part = lax_shape.slice_in_dim(x, offset, offset + cur, axis=i)
                else:
                    part = lax_shape.slice_in_dim(x, size_ - cur - offset, size_ - offset, axis=i)
                part = _flip_jit(part, axis=(i,))
                if reflect_type == "odd":
                    part = ufuncs.subtract(ufuncs.multiply(2, edge), part)
                x = lax_shape.concatenate([part, x] if before else [x, part], i)
                if reflect_type == "odd":
                    size_ = x.shape[i]
                    edge = lax_shape.slice_in_dim(
                        x, 0 if before else size_ - 1, 1 if before else size_, axis=i
                    )
    return x


def _pad_empty(x, pairs):
    for i, (lo, hi) in enumerate(pairs):
        shp = list(x.shape)
        shp[i] = int(lo)
        first = _full(tuple(shp), 0, x.dtype)
        shp[i] = int(hi)
        last = _full(tuple(shp), 0, x.dtype)
        x = lax_shape.concatenate([first, x, last], i)
    return x


def _pad_body(array, constant_values, pad_width, mode, reflect_type):
    if mode == "constant":
        return _pad_constant(array, pad_width, constant_values)
    if mode == "edge":
        return _pad_edge(array, pad_width)
    if mode == "wrap":
        return _pad_wrap(array, pad_width)
    if mode in ("reflect", "symmetric"):
        return _pad_reflect(array, pad_width, mode, reflect_type)
    return _pad_empty(array, pad_width)


_pad_jit = _named_jit("_pad", _pad_body, ("pad_width", "mode", "reflect_type"))


def pad(array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Any:
    """``array`` padded: ``pad_width`` is an int, a (before, after) pair, or one pair per axis.

    Modes: 'constant' (``constant_values``), 'edge', 'reflect' and 'symmetric'
    (``reflect_type`` 'even' or 'odd'), 'wrap', 'empty'.

    >>> jnp.pad(jnp.array([1, 2]), (1, 2), mode="edge")
    Array([1, 1, 2, 2, 2], dtype=int32)
    """
    check_arraylike("pad", array)
    array = asarray(array)
    if callable(mode) or not isinstance(mode, str):
        raise NotImplementedError("jnp.pad: callable modes are not supported.")
    if mode in _UNSUPPORTED_PAD_MODES:
        raise NotImplementedError(f"jnp.pad: mode '{mode}' is not implemented in spmd.")
    if mode not in _PAD_KWARGS:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    extra = set(kwargs) - _PAD_KWARGS[mode]
    if extra:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {extra}")
    pairs = _pad_pairs(pad_width, array.ndim)
    constant_values = kwargs.get("constant_values", 0)
    if not isinstance(constant_values, (tuple, list)):
        check_arraylike("pad", constant_values)
    reflect_type = kwargs.get("reflect_type", "even")
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"jnp.pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    return _pad_jit(array, constant_values, pad_width=pairs, mode=mode, reflect_type=reflect_type)


# ---------------------------------------------------------------------------------------------
# where, select, nonzero


def _where_body(condition, x, y):
    return ufuncs.where_(condition, x, y)


_where_jit = _named_jit("_where", _where_body)


def where(
    condition: Any,
    x: Any = None,
    y: Any = None,
    /,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """``x`` where ``condition`` holds, else ``y`` (broadcast together, dtypes promoted).

    With only ``condition``, the indices of its nonzero elements (``nonzero``): concrete
    inputs only, unless a static ``size`` is given.

    >>> jnp.where(jnp.array([True, False]), 1.0, 0)
    Array([1., 0.], dtype=float32)
    """
    if x is None and y is None:
        check_arraylike("where", condition)
        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        pos = 1 if x is None else 2
        raise TypeError(
            f"where requires ndarray or scalar arguments, got {type(None)} at position {pos}."
        )
    if size is not None or fill_value is not None:
        raise ValueError(
            "size and fill_value arguments cannot be used in three-term where function."
        )
    check_arraylike("where", condition, x, y)
    return _where_jit(condition, x, y)


def _fill_values(fill_value: Any, nd: int) -> list:
    if fill_value is None:
        return [0] * nd
    if isinstance(fill_value, (tuple, list)):
        if len(fill_value) != nd:
            raise ValueError(
                f"nonzero: fill_value must be a scalar or a tuple of length {nd}; got "
                f"{fill_value!r}"
            )
        return list(fill_value)
    if _ndim_of(fill_value) != 0:
        raise ValueError(f"nonzero: fill_value must be a scalar or a tuple of length {nd}")
    return [fill_value] * nd


def nonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> tuple:
    """The indices of the nonzero elements of ``a``, one array per axis.

    The number of results depends on the values, so a traced ``a`` needs a static ``size``:
    the result is then truncated, or padded with ``fill_value`` (default 0).

    >>> jnp.nonzero(jnp.array([0, 3, 0, 5]))
    (Array([1, 3], dtype=int32),)
    """
    check_arraylike("nonzero", a)
    nd = _ndim_of(a)
    if nd == 0:
        raise ValueError(
            "Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar).nonzero() "
            "instead."
        )
    if size is not None:
        size = _concrete_int(size, "nonzero", "size")
    fills = _fill_values(fill_value, nd)
    if not isinstance(a, Tracer):
        idx = np.nonzero(np.asarray(a))
        if size is None:
            return tuple(Array(i.astype(_int32)) for i in idx)
        out = []
        for i, f in zip(idx, fills):
            i = i[:size]
            fv = np.asarray(f).astype(_int32) if not isinstance(f, Tracer) else None
            if fv is None:
                raise ConcretizationTypeError(
                    f._concretization_message("jnp.nonzero") + "\nfill_value must be concrete."
                )
            i = np.concatenate([i, np.full(size - len(i), fv)]).astype(_int32)
            out.append(Array(i))
        return tuple(out)
    if size is None:
        raise ConcretizationTypeError(
            a._concretization_message("jnp.nonzero")
            + "\nThe size argument of jnp.nonzero must be statically specified to use "
            "jnp.nonzero within JAX transformations."
        )
    return _nonzero_traced(a, size, fills)


def _nonzero_traced(a: Any, size: int, fills: list) -> tuple:
    shp = tuple(a.shape)
    n = prod(shp)
    mask = a if a.dtype == _bool else lax.ne(a, _scalar(0, a.dtype))
    flat = convert(lax_shape.reshape(mask, (n,)), _int32)
    counts = lax_red.cumsum(flat, 0) if n else flat
    pos = lax_shape.iota(_int32, size)
    # Result j is the flat index of the (j+1)-th nonzero: the number of elements whose running
    # count of nonzeros is still <= j. A count of n means "no such element": fill.
    before = lax.le(
        lax_shape.broadcast_in_dim(counts, (size, n), (1,)),
        lax_shape.broadcast_in_dim(pos, (size, n), (0,)),
    )
    flat_idx = lax_red.reduce_sum(convert(before, _int32), (1,))
    valid = lax.lt(flat_idx, _scalar(n, _int32))
    out = []
    stride = n
    for d, f in zip(shp, fills):
        stride //= builtins.max(d, 1)
        coord = lax.rem(
            lax.div(flat_idx, _scalar(builtins.max(stride, 1), _int32)),
            _scalar(builtins.max(d, 1), _int32),
        )
        out.append(lax.select_n(valid, broadcast_to(convert(f, _int32), (size,)), coord))
    return tuple(out)


def flatnonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The indices of the nonzero elements of the flattened ``a``."""
    check_arraylike("flatnonzero", a)
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The indices of the nonzero elements of ``a``, one row per element.

    >>> jnp.argwhere(jnp.array([[0, 1], [2, 0]]))
    Array([[0, 1],
           [1, 0]], dtype=int32)
    """
    check_arraylike("argwhere", a)
    nd = _ndim_of(a)
    idx = nonzero(atleast_1d(a) if nd == 0 else a, size=size, fill_value=fill_value)
    if nd == 0:
        return zeros((idx[0].shape[0], 0), _int32)
    return lax_shape.stack(list(idx), 1)


def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Any:
    """The element of ``choicelist[i]`` for the first ``condlist[i]`` that holds, else
    ``default``.

    >>> x = jnp.arange(4)
    >>> jnp.select([x < 1, x > 2], [x, -x], 9)
    Array([ 0,  9,  9, -3], dtype=int32)
    """
    condlist, choicelist = list(condlist), list(choicelist)
    if len(condlist) != len(choicelist):
        raise ValueError(
            f"condlist must have length equal to choicelist ({len(condlist)} vs {len(choicelist)})"
        )
    if not condlist:
        raise ValueError("condlist must be non-empty")
    check_arraylike("select", *condlist, *choicelist, default)
    choices = promote_dtypes(default, *choicelist)
    shp = broadcast_shapes(*(_shape_of(x) for x in condlist + choices))
    conds = [_full(shp, False, _bool)]
    for c in condlist:
        c = asarray(c)
        if c.dtype != _bool:
            c = convert(c, _bool)
        conds.append(broadcast_to(c, shp))
    which = lax_red.argmax(lax_shape.stack(conds, 0), 0, _int32)
    return lax.select_n(which, *(broadcast_to(c, shp) for c in choices))


# ---------------------------------------------------------------------------------------------
# Deleting, inserting, selecting along an axis (static indices)


def _static_indices(obj: Any, n: int, fn: str) -> np.ndarray:
    if isinstance(obj, Tracer):
        raise ConcretizationTypeError(
            obj._concretization_message(f"jnp.{fn}") + f"\n{fn}: the indices must be concrete."
        )
    if isinstance(obj, builtins.slice):
        return np.arange(n)[obj]
    idx = np.asarray(obj)
    if idx.size and not np.issubdtype(idx.dtype, np.integer):
        raise TypeError(f"{fn}: indices must be integers, got dtype {idx.dtype}")
    return idx.astype(np.int64)


def delete(arr: Any, obj: Any, axis: int | None = None, *, assume_unique_indices: bool = False):
    """``arr`` without the entries at ``obj`` (an int, a slice or concrete indices) along
    ``axis`` (flattened when None).

    >>> jnp.delete(jnp.arange(5), 1)
    Array([0, 2, 3, 4], dtype=int32)
    """
    check_arraylike("delete", arr)
    if not isinstance(obj, builtins.slice):
        check_arraylike("delete", arr, obj)
    a = asarray(arr)
    if axis is None:
        a, axis = ravel(a), 0
    ax = _axis(axis, a.ndim, "delete")
    n = a.shape[ax]
    idx = _static_indices(obj, n, "delete").reshape(-1)
    if ((idx < -n) | (idx >= n)).any():
        bad = idx[(idx < -n) | (idx >= n)][0]
        raise ValueError(f"delete: index {bad} is out of bounds for axis {ax} with size {n}")
    keep = np.ones(n, bool)
    keep[idx % n if n else idx] = False
    return _take_static(a, np.nonzero(keep)[0], ax)


def insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Any:
    """``values`` inserted into ``arr`` before the indices ``obj`` (concrete) along ``axis``
    (flattened when None); ``values`` takes ``arr``'s dtype.

    >>> jnp.insert(jnp.arange(3), 1, 9)
    Array([0, 9, 1, 2], dtype=int32)
    """
    check_arraylike("insert", arr, values)
    if not isinstance(obj, builtins.slice):
        check_arraylike("insert", arr, obj)
    a = asarray(arr)
    if axis is None:
        a, axis = ravel(a), 0
    ax = _axis(axis, a.ndim, "insert")
    n = a.shape[ax]
    idx = _static_indices(obj, n + 1, "insert")
    scalar_obj = idx.ndim == 0
    idx = idx.reshape(-1)
    if ((idx < -n) | (idx > n)).any():
        bad = idx[(idx < -n) | (idx > n)][0]
        raise IndexError(f"insert: index {bad} is out of bounds for axis {ax} with size {n}")
    idx = np.where(idx < 0, idx + n, idx)
    vals = array(values, dtype=a.dtype, ndmin=a.ndim, copy=False)
    if scalar_obj:
        # NumPy's rule: with one index, the leading axis of ``values`` is the inserted one.
        vals = moveaxis(vals, 0, ax)
        k = vals.shape[ax]
    else:
        k = len(idx)
    vshape = list(a.shape)
    vshape[ax] = k
    vals = broadcast_to(vals, tuple(vshape))
    if scalar_obj:
        idx = np.full(k, idx[0])
    # Each inserted element goes before original element idx[j] (stable for equal indices).
    order = np.argsort(idx, kind="stable")
    new_pos = idx[order] + np.arange(k)
    out_idx = np.empty(n + k, np.int64)
    is_new = np.zeros(n + k, bool)
    is_new[new_pos] = True
    out_idx[new_pos] = n + order
    out_idx[~is_new] = np.arange(n)
    both = lax_shape.concatenate([a, vals], ax) if k else a
    return _take_static(both, out_idx, ax)


def resize(a: Any, new_shape: Any) -> Any:
    """An array of ``new_shape`` filled with the elements of ``a``, repeated cyclically.

    >>> jnp.resize(jnp.arange(3), 5)
    Array([0, 1, 2, 0, 1], dtype=int32)
    """
    check_arraylike("resize", a)
    shp = _canonical_shape(new_shape, "resize")
    _check_nonneg_shape(shp, "resize")
    flat = ravel(a)
    total = prod(shp)
    if flat.shape[0] == 0:
        return _full(shp, 0, flat.dtype, flat.weak_type)
    reps = -(-total // flat.shape[0])
    out = lax_shape.tile(flat, (reps,)) if reps != 1 else flat
    return reshape(lax_shape.slice_in_dim(out, 0, total), shp)


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """The ``n``-th discrete difference along ``axis`` (bools: ``!=``).

    >>> jnp.diff(jnp.array([1, 4, 9]))
    Array([3, 5], dtype=int32)
    """
    check_arraylike("diff", a)
    n = _concrete_int(n, "diff", "n")
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    a = asarray(a)
    if a.ndim == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    if n == 0:
        return a
    ax = _axis(axis, a.ndim, "diff")
    parts = []
    for extra in (prepend, append):
        if extra is None:
            parts.append(None)
            continue
        check_arraylike("diff", extra)
        e_ = asarray(extra)
        if e_.ndim == 0:
            shp = list(a.shape)
            shp[ax] = 1
            e_ = broadcast_to(e_, tuple(shp))
        parts.append(e_)
    if parts[0] is not None or parts[1] is not None:
        a = concatenate([p for p in (parts[0], a, parts[1]) if p is not None], ax)
    op = ufuncs.not_equal if a.dtype == _bool else ufuncs.subtract
    for _ in range(n):
        m = a.shape[ax]
        a = op(
            lax_shape.slice_in_dim(a, 1, m, axis=ax), lax_shape.slice_in_dim(a, 0, m - 1, axis=ax)
        )
    return a


def compress(
    condition: Any,
    a: Any,
    axis: int | None = None,
    *,
    size: int | None = None,
    fill_value: Any = 0,
    out: None = None,
) -> Any:
    """The slices of ``a`` along ``axis`` where the (concrete, 1-D) ``condition`` holds.

    >>> jnp.compress(np.array([1, 0, 1]), jnp.arange(3))
    Array([0, 2], dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    check_arraylike("compress", condition, a)
    if isinstance(condition, Tracer):
        raise ConcretizationTypeError(
            condition._concretization_message("jnp.compress")
            + "\ncompress: the condition must be concrete."
        )
    cond = np.asarray(condition)
    if cond.ndim != 1:
        raise ValueError("condition must be a 1D array")
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    ax = _axis(axis, a.ndim, "compress")
    n = a.shape[ax]
    if len(cond) > n and cond[n:].any():
        raise ValueError("condition contains entries that are out of bounds")
    idx = np.nonzero(cond[:n])[0]
    if size is None:
        return _take_static(a, idx, ax)
    size = _concrete_int(size, "compress", "size")
    out_ = _take_static(a, idx[:size], ax)
    if len(idx) < size:
        shp = list(a.shape)
        shp[ax] = size - len(idx)
        fill = broadcast_to(convert(fill_value, a.dtype, a.weak_type), tuple(shp))
        out_ = lax_shape.concatenate([out_, fill], ax)
    return out_


def extract(condition: Any, arr: Any, *, size: int | None = None, fill_value: Any = 0) -> Any:
    """The elements of ``arr`` where the (concrete) ``condition`` holds, flattened."""
    check_arraylike("extract", condition, arr)
    if isinstance(condition, Tracer):
        raise ConcretizationTypeError(
            condition._concretization_message("jnp.extract")
            + "\nextract: the condition must be concrete."
        )
    return compress(np.ravel(np.asarray(condition)), ravel(arr), size=size, fill_value=fill_value)


def choose(a: Any, choices: Sequence[Any], out: None = None, mode: str = "raise") -> Any:
    """``choices[a[i]][i]`` elementwise (all broadcast together); ``mode='raise'`` needs
    concrete indices, 'wrap' and 'clip' do not.

    >>> jnp.choose(jnp.array([1, 0]), [jnp.array([1, 2]), jnp.array([3, 4])])
    Array([3, 2], dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    choices = list(choices)
    check_arraylike("choose", a, *choices)
    if not choices:
        raise ValueError("choose: choices must be a non-empty sequence")
    if not dtypes.issubdtype(_value_dtype(a), np.integer):
        raise ValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        if isinstance(a, Tracer):
            raise ConcretizationTypeError(
                a._concretization_message("jnp.choose")
                + "\nThe error occurred because jnp.choose was jit-compiled with mode='raise'. "
                "Use mode='wrap' or mode='clip' instead."
            )
        v = np.asarray(a)
        if v.size and ((v < 0).any() or (v >= n).any()):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        a = ufuncs.remainder(a, n)
    elif mode == "clip":
        a = ufuncs.clip(a, 0, n - 1)
    else:
        raise ValueError(f"invalid mode: {mode!r}; expected 'raise', 'wrap' or 'clip'")
    choices = promote_dtypes(*choices)
    a = convert(a, _int32)
    shp = broadcast_shapes(_shape_of(a), *(_shape_of(c) for c in choices))
    return lax.select_n(broadcast_to(a, shp), *(broadcast_to(c, shp) for c in choices))


def concat(arrays: Sequence[Any], /, *, axis: int | None = 0) -> Any:
    """Array-API name of ``concatenate``."""
    return concatenate(arrays, axis=axis)


def permute_dims(a: Any, /, axes: Sequence[int]) -> Any:
    """Array-API name of ``transpose`` (``axes`` required)."""
    return transpose(a, axes)


# ---------------------------------------------------------------------------------------------
# Index conversion


def ravel_multi_index(
    multi_index: Sequence[Any], dims: Sequence[int], mode: str = "raise", order: str = "C"
) -> Any:
    """The flat index of each coordinate tuple in an array of shape ``dims``
    (``mode``: 'raise' needs concrete indices, 'wrap' or 'clip' do not).

    >>> jnp.ravel_multi_index((jnp.array([1]), jnp.array([2])), (3, 4))
    Array([6], dtype=int32)
    """
    dims_t = _canonical_shape(dims, "ravel_multi_index")
    multi_index = list(multi_index)
    if len(multi_index) != len(dims_t):
        raise ValueError(
            f"ravel_multi_index: multi_index has {len(multi_index)} entries but dims has "
            f"{len(dims_t)} ({dims_t})."
        )
    if order not in ("C", "F"):
        raise ValueError(f"ravel_multi_index: order must be 'C' or 'F', got {order!r}")
    check_arraylike("ravel_multi_index", *multi_index)
    for i in multi_index:
        if not dtypes.issubdtype(_value_dtype(i), np.integer):
            raise TypeError("only int indices permitted")
    if mode == "raise":
        for i in multi_index:
            if isinstance(i, Tracer):
                raise ConcretizationTypeError(
                    i._concretization_message("jnp.ravel_multi_index")
                    + "\nThe error occurred because ravel_multi_index was jit-compiled with "
                    "mode='raise'. Use mode='wrap' or mode='clip' instead."
                )
        for i, d in zip(multi_index, dims_t):
            v = np.asarray(i)
            if v.size and ((v < 0).any() or (v >= d).any()):
                raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        multi_index = [ufuncs.clip(i, 0, d - 1) for i, d in zip(multi_index, dims_t)]
    elif mode == "wrap":
        multi_index = [ufuncs.remainder(i, d) for i, d in zip(multi_index, dims_t)]
    else:
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap' or 'clip'")
    strides = []
    acc = 1
    order_dims = range(len(dims_t) - 1, -1, -1) if order == "C" else range(len(dims_t))
    strides = [0] * len(dims_t)
    for i in order_dims:
        strides[i] = acc
        acc *= dims_t[i]
    result = 0
    for i, s in zip(multi_index, strides):
        result = ufuncs.add(result, ufuncs.multiply(i, s))
    return to_array(result)


def unravel_index(indices: Any, shape: Sequence[int]) -> tuple:
    """The coordinates in an array of ``shape`` of each flat index (negative indices count
    from the end; out-of-range ones are clipped).

    >>> jnp.unravel_index(5, (3, 4))
    (Array(1, dtype=int32, weak_type=True), Array(1, dtype=int32, weak_type=True))
    """
    check_arraylike("unravel_index", indices)
    if not dtypes.issubdtype(_value_dtype(indices), np.integer):
        raise TypeError("only int indices permitted")
    shp = _canonical_shape(shape, "unravel_index")
    total = prod(shp)
    idx = to_array(indices)
    if total == 0:
        raise ValueError(f"unravel_index: cannot unravel into an empty shape {shp}")
    idx = ufuncs.where_(ufuncs.less(idx, 0), ufuncs.add(idx, total), idx)
    idx = ufuncs.clip(idx, 0, total - 1)
    # Non-negative from here on, so truncating division is floor division.
    weak = dtypes.is_weakly_typed(idx)
    out = []
    for d in reversed(shp):
        d_c = _scalar(d, idx.dtype, weak)
        out.append(lax.rem(idx, d_c))
        idx = lax.div(idx, d_c)
    return tuple(reversed(out))


# ---------------------------------------------------------------------------------------------
# Comparisons of whole arrays


def _isclose_body(a, b, rtol, atol, equal_nan):
    a, b = promote_dtypes_inexact(a, b)
    real = dtypes.finfo(a.dtype).dtype if dtypes.is_complex(a.dtype) else a.dtype
    rtol = convert(rtol, real)
    atol = convert(atol, real)
    a_nan = lax.ne(a, a)
    b_nan = lax.ne(b, b)
    both_nan = ufuncs.logical_and(a_nan, b_nan)
    finite_b = ufuncs.isfinite(b)
    diff = lax.abs(lax.sub(a, b))
    tol = lax.add(atol, lax.mul(rtol, lax.abs(b)))
    close = lax.le(*_same_rank(diff, tol))
    out = ufuncs.logical_or(lax.eq(*_same_rank(a, b)), ufuncs.logical_and(finite_b, close))
    if equal_nan:
        out = ufuncs.logical_or(out, both_nan)
    return out


def _same_rank(x, y):
    if np.shape(x) == np.shape(y) or not np.shape(x) or not np.shape(y):
        return x, y
    shp = broadcast_shapes(np.shape(x), np.shape(y))
    return broadcast_to(x, shp), broadcast_to(y, shp)


# Tolerances left at their defaults are closed over (literals), as in JAX.
_isclose_jit = _named_jit(
    "isclose",
    lambda a, b, rtol=1e-05, atol=1e-08, *, equal_nan: _isclose_body(a, b, rtol, atol, equal_nan),
    ("equal_nan",),
)


def isclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    """Elementwise ``|a - b| <= atol + rtol * |b|`` (infinities close only to themselves; NaN
    close to NaN only with ``equal_nan``).

    >>> jnp.isclose(jnp.array([1.0, 1.1]), 1.0)
    Array([ True, False], dtype=bool)
    """
    check_arraylike("isclose", a, b, rtol, atol)
    a, b = _broadcast_pair("isclose", a, b)
    if _default_tolerances(rtol, atol):
        return _isclose_jit(a, b, equal_nan=bool(equal_nan))
    return _isclose_jit(a, b, rtol, atol, equal_nan=bool(equal_nan))


def _default_tolerances(rtol: Any, atol: Any) -> bool:
    # Python-scalar defaults are closed over by the inner jit (as in JAX); anything else is
    # passed to it as an operand.
    return (
        dtypes.is_python_scalar(rtol)
        and dtypes.is_python_scalar(atol)
        and rtol == 1e-05
        and atol == 1e-08
    )


def _broadcast_pair(fn: str, a: Any, b: Any):
    sa, sb = _shape_of(a), _shape_of(b)
    if sa == sb or not sa or not sb:
        return a, b
    try:
        shp = broadcast_shapes(sa, sb)
    except ValueError:
        raise ValueError(f"{fn}: incompatible shapes for broadcasting: {sa}, {sb}") from None
    return broadcast_to(a, shp), broadcast_to(b, shp)


def _allclose_body(a, b, rtol=1e-05, atol=1e-08, *, equal_nan):
    close = _isclose_jit(a, b, rtol, atol, equal_nan=equal_nan)
    return lax_red.reduce_and(close, tuple(range(close.ndim)))


_allclose_jit = _named_jit("allclose", _allclose_body, ("equal_nan",))


def allclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    """True if ``isclose(a, b, rtol, atol)`` holds everywhere (a bool array, as JAX)."""
    check_arraylike("allclose", a, b, rtol, atol)
    a, b = _broadcast_pair("allclose", a, b)
    if _default_tolerances(rtol, atol):
        return _allclose_jit(a, b, equal_nan=bool(equal_nan))
    return _allclose_jit(a, b, rtol, atol, equal_nan=bool(equal_nan))


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Any:
    """True if the arrays have the same shape and elements (False for different shapes)."""
    check_arraylike("array_equal", a1, a2)
    if _shape_of(a1) != _shape_of(a2):
        return Array(np.asarray(False))
    a1, a2 = promote_dtypes(a1, a2)
    eq = lax.eq(a1, a2)
    if equal_nan:
        eq = ufuncs.logical_or(eq, ufuncs.logical_and(lax.ne(a1, a1), lax.ne(a2, a2)))
    return lax_red.reduce_and(eq, tuple(range(eq.ndim)))


def array_equiv(a1: Any, a2: Any) -> Any:
    """True if the arrays are equal after broadcasting against each other."""
    check_arraylike("array_equiv", a1, a2)
    try:
        shp = broadcast_shapes(_shape_of(a1), _shape_of(a2))
    except ValueError:
        return Array(np.asarray(False))
    a1, a2 = promote_dtypes(a1, a2)
    a1, a2 = broadcast_to(a1, shp), broadcast_to(a2, shp)
    eq = lax.eq(a1, a2)
    return lax_red.reduce_and(eq, tuple(range(eq.ndim)))


__all__ = [
    "allclose",
    "append",
    "arange",
    "argwhere",
    "array",
    "array_equal",
    "array_equiv",
    "array_split",
    "asarray",
    "astype",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_arrays",
    "broadcast_shapes",
    "broadcast_to",
    "can_cast",
    "choose",
    "column_stack",
    "compress",
    "concat",
    "concatenate",
    "copy",
    "delete",
    "diag",
    "diagflat",
    "diagonal",
    "diff",
    "dsplit",
    "dstack",
    "dtype",
    "e",
    "empty",
    "empty_like",
    "euler_gamma",
    "expand_dims",
    "extract",
    "eye",
    "finfo",
    "flatnonzero",
    "flip",
    "fliplr",
    "flipud",
    "full",
    "full_like",
    "geomspace",
    "hsplit",
    "hstack",
    "identity",
    "iinfo",
    "indices",
    "inf",
    "insert",
    "isclose",
    "iscomplexobj",
    "isdtype",
    "isrealobj",
    "isscalar",
    "issubdtype",
    "linspace",
    "logspace",
    "meshgrid",
    "moveaxis",
    "nan",
    "ndim",
    "newaxis",
    "nonzero",
    "ones",
    "ones_like",
    "pad",
    "permute_dims",
    "pi",
    "promote_types",
    "ravel",
    "ravel_multi_index",
    "repeat",
    "reshape",
    "resize",
    "result_type",
    "roll",
    "rot90",
    "row_stack",
    "select",
    "shape",
    "size",
    "split",
    "squeeze",
    "stack",
    "swapaxes",
    "tile",
    "trace",
    "transpose",
    "tri",
    "tril",
    "triu",
    "unravel_index",
    "vsplit",
    "vstack",
    "where",
    "zeros",
    "zeros_like",
]
