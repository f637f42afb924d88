"""Argument handling shared by the ``spmd.numpy`` functions: array-like checks, dtype
promotion (JAX's lattice, with weak types), NumPy-style rank promotion, and the scalar, shape,
axis and dtype-argument helpers of the array functions.

>>> x, y = promote_args("add", jnp.ones(3, jnp.float16), 2.0)
>>> x.dtype, y.dtype
(dtype('float16'), dtype('float16'))
"""

from __future__ import annotations

import functools
import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
from spmd._src import core, dtypes
from spmd._src.api import jit
from spmd._src.array import Array
from spmd._src.config import config
from spmd._src.core import Tracer
from spmd._src.errors import ConcretizationTypeError
from spmd._src.lax import elementwise as lax_elem
from spmd._src.lax import placing as lax_placing
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.sharding import apply_out_sharding
from spmd._src.sharding import (
    IndivisibleError,
    NamedSharding,
    Sharding,
    SingleDeviceSharding,
    uneven_dims,
    uneven_message,
)
from spmd._src.util import canonicalize_axis


def with_out_sharding(
    name: str,
    inner: bool = False,
    like: bool = False,
    device: bool = False,
    out: bool = True,
    data: bool = False,
):
    """Decorate a jnp function taking ``out_sharding=``: its result is moved to that sharding
    (never silently ignored; axes JAX refuses there are refused with JAX's ValueError).
    ``inner``: the function hands ``out_sharding`` to the primitive computing its result (a
    contraction, whose sharding in types it decides): only None is handled here. ``like``: a
    ``*_like`` function, whose result takes its first argument's sharding (see
    ``lax.placing.like_sharding``) when neither ``device`` nor ``out_sharding`` is given, as in JAX.
    ``device``: the function also takes ``device=`` (a device or a Sharding: the eager result
    is placed there; JAX refuses both at once). ``out``: False for a function that takes
    ``device=`` but no ``out_sharding=`` (JAX's ``empty_like``, ``eye``, ``linspace``).
    ``data``: a conversion (``array``, ``asarray``) whose first argument's data the result
    holds: a committed argument must already be on the devices ``device=`` names."""

    def deco(fn):
        if inner:
            return fn

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            dev = kwargs.pop("device", None) if device else None
            out_sharding = kwargs.pop("out_sharding", None) if out else None
            if dev is not None and out_sharding is not None:
                raise ValueError(
                    f"{name}: only one of `device` or `out_sharding` can be set. Got "
                    f"device={dev!r} and out_sharding={out_sharding!r}"
                )
            res = fn(*args, **kwargs)
            if dev is not None:
                return place_on_device(res, dev, name, args[0] if data and args else None)
            if like and out_sharding is None and args:
                s = lax_placing.like_sharding(args[0], res)
                if s is not None and type(res) is Array:
                    # The operand's own sharding, attached as it is (Auto axes too): JAX computes
                    # the result there, not by a reshard.
                    return lax_placing.place_alike(Array(res._value, res.weak_type, s))
                out_sharding = s
            return apply_out_sharding(res, out_sharding, name)

        return wrapped

    return deco


def place_on_device(x: Any, device: Any, name: str, data: Any = None) -> Any:
    """``x`` (a new result) placed on ``device`` (a device or a Sharding), committed and
    strongly typed, as JAX's ``device=`` argument does. Under a trace the placement is left to
    jit (JAX ignores it there too). ``data``: the operand ``x`` holds the data of (a
    conversion, whose result keeps its weak type), which, committed, must already be on the
    devices named (JAX cannot move a committed array inside a computation)."""
    from spmd._src import devices as dev
    from spmd._src.placement import device_put  # lazy: placement sits above the numpy modules

    if isinstance(device, dev.CpuDevice):
        target = SingleDeviceSharding(device)
    elif isinstance(device, Sharding):
        target = device
    else:
        raise TypeError(f"{name}: device must be a Device or a Sharding, got {device!r}")
    if type(x) is tuple:  # linspace's (samples, step): both placed, as JAX's
        return tuple(place_on_device(e, target, name, data) for e in x)
    if not isinstance(x, Array):
        return x
    if isinstance(target, NamedSharding):
        shape = tuple(x.shape)
        if len(target.spec) > len(shape):
            raise ValueError(
                f"{name}: device={target} has a spec of {len(target.spec)} entries, more "
                f"than the {len(shape)} dimensions of the result of shape {shape}"
            )
        bad = uneven_dims(target, shape)
        if bad and config.spmd_uneven != "pad":
            raise IndivisibleError(f"{name}: {uneven_message(target, shape, bad)}")
    if type(data) is Array and data._committed and data._sharding is not None:
        have = data._sharding.device_set
        if have != target.device_set:
            raise ValueError(
                f"{name}: the argument of shape {tuple(data.shape)} is committed to devices "
                f"{sorted(d.id for d in have)}, but device= names devices "
                f"{sorted(d.id for d in target.device_set)}; move it with device_put first."
            )
    if x.weak_type and data is None:
        x = Array(x._value, False)  # JAX's filled arrays given a device are strongly typed
    return device_put(x, target)


def is_arraylike(x: Any) -> bool:
    return (
        isinstance(x, (Array, Tracer, np.ndarray, np.generic))
        or (dtypes.is_python_scalar(x))
        or hasattr(x, "__jax_array__")
    )


def check_arraylike(fun_name: str, *args: Any, emit_warning: bool = False) -> None:
    """Raise TypeError naming the position of the first argument that is not an array."""
    for pos, arg in enumerate(args):
        if not is_arraylike(arg):
            raise TypeError(
                f"{fun_name} requires ndarray or scalar arguments, got {type(arg)} at position "
                f"{pos}."
            )


def to_array(x: Any) -> Any:
    """An Array or tracer for an array-like (Python scalars become weakly typed)."""
    if isinstance(x, (Array, Tracer)):
        return x
    if hasattr(x, "__jax_array__"):
        return to_array(x.__jax_array__())
    if dtypes.is_python_scalar(x):
        return Array(dtypes.coerce_scalar(x), weak_type=dtypes.is_weakly_typed(x))
    v = np.asarray(x)
    d = dtypes.canonicalize_dtype(v.dtype)
    return Array(v if v.dtype == d else v.astype(d))


def convert(x: Any, dtype: np.dtype, weak_type: bool = False) -> Any:
    """``x`` as ``dtype``; Python scalars convert at once, arrays through a primitive."""
    dtype = np.dtype(dtype)
    if dtypes.is_python_scalar(x):
        # A Python scalar operand converts as a weakly typed value does in JAX: through its
        # default dtype, wrapping (int8_array + 300 is int8_array + 44), not raising.
        # No conversion in JAX when the float keeps its default type: the Python float itself
        # reaches the primitive, and a jaxpr prints it as Python writes it (``add f 1e-05``).
        return core.python_float_scalar(
            Array(dtypes.coerce_scalar(x, dtype, weak=True), weak_type=weak_type), x
        )
    x = to_array(x)
    if x.dtype == dtype and x.weak_type == weak_type:
        return x
    return lax_elem.convert_element_type(x, dtype, weak_type=weak_type)


def promote_dtypes(*args: Any) -> list[Any]:
    """Convert all arguments to their common dtype (JAX's promotion lattice)."""
    if len(args) < 2:
        return [to_array(x) for x in args]
    # Fast path: operands that are already spmd values of one type need no promotion.
    if _uniform_spmd_values(args):
        return list(args)
    dt, weak = _result_type(args)
    return [convert(x, dt, weak) for x in args]


# result_type of operands described by type: (dtype, weak) for arrays, the Python type for
# Python scalars. The lattice walk is the slow part of promotion; the answer depends only on
# these and the promotion config, which is part of the key.
_RESULT_TYPES: dict = {}


def _type_key(x: Any) -> Any:
    t = type(x)
    if t is Array or isinstance(x, Tracer):
        return (x.dtype, x.weak_type)
    if t in (int, float, complex, bool):
        return t
    return None


def _result_type(args) -> tuple[np.dtype, bool]:
    keys = tuple(_type_key(a) for a in args)
    if None in keys:
        return dtypes.result_type(*args, return_weak_type_flag=True)
    key = (keys, config.jax_enable_x64, config.jax_numpy_dtype_promotion)
    out = _RESULT_TYPES.get(key)
    if out is None:
        out = dtypes.result_type(*args, return_weak_type_flag=True)
        if len(_RESULT_TYPES) > 4096:
            _RESULT_TYPES.clear()
        _RESULT_TYPES[key] = out
    return out


def _uniform_spmd_values(args) -> bool:
    a0 = args[0]
    if not isinstance(a0, (Array, Tracer)):
        return False
    d0, w0 = a0.dtype, a0.weak_type
    for a in args[1:]:
        if not (isinstance(a, (Array, Tracer)) and a.dtype == d0 and a.weak_type == w0):
            return False
    return True


_INEXACT: dict[np.dtype, bool] = {}


def _is_inexact(dt: np.dtype) -> bool:
    r = _INEXACT.get(dt)
    if r is None:
        r = _INEXACT[dt] = dtypes.to_inexact_dtype(dt) == dt
    return r


def promote_dtypes_inexact(*args: Any) -> list[Any]:
    """Like ``promote_dtypes``, then ints and bools go to the default float type."""
    if args and _uniform_spmd_values(args) and _is_inexact(args[0].dtype):
        return list(args)
    dt, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    dt = dtypes.to_inexact_dtype(dt)
    return [convert(x, dt, weak) for x in args]


def promote_dtypes_numeric(*args: Any) -> list[Any]:
    """Like ``promote_dtypes``, then bools go to the default int type."""
    dt, weak = dtypes.result_type(*args, return_weak_type_flag=True)
    dt = dtypes.to_numeric_dtype(dt)
    return [convert(x, dt, weak) for x in args]


def promote_shapes(fun_name: str, *args: Any) -> list[Any]:
    """NumPy rank promotion: prepend size-1 dimensions so ranks agree (scalars stay)."""
    if len(args) < 2:
        return list(args)
    shapes = [x.shape if isinstance(x, (Array, Tracer)) else np.shape(x) for x in args]
    r0 = len(shapes[0])
    if all(len(s) == r0 or not s for s in shapes):
        # Equal ranks (or scalars): the lax primitive checks the sizes (a TypeError, as JAX).
        return list(args)
    ranks = {len(s) for s in shapes if len(s)}
    if len(ranks) <= 1:
        # Equal ranks: the lax primitive checks the sizes (a TypeError, as in JAX).
        return list(args)
    _check_broadcastable(fun_name, shapes)
    mode = config.jax_numpy_rank_promotion
    if mode != "allow":
        # JAX's messages.
        shown = " ".join(str(tuple(s)) for s in shapes)
        doc = "https://docs.jax.dev/en/latest/rank_promotion_warning.html"
        if mode == "raise":
            raise ValueError(
                f"Operands could not be broadcast together for {fun_name} on shapes {shown} and "
                f"with the config option jax_numpy_rank_promotion='raise'. For more "
                f"information, see {doc}."
            )
        warnings.warn(
            f"Following NumPy automatic rank promotion for {fun_name} on shapes {shown}. Set "
            "the jax_numpy_rank_promotion config option to 'allow' to disable this warning; "
            f"for more information, see {doc}.",
            stacklevel=3,
        )
    rank = max(ranks)
    out = []
    for x, s in zip(args, shapes):
        if len(s) and len(s) < rank:
            x = lax_shape.broadcast_in_dim(
                x, (1,) * (rank - len(s)) + tuple(s), tuple(range(rank - len(s), rank))
            )
        out.append(x)
    return out


def _check_broadcastable(fun_name: str, shapes) -> None:
    rank = max(len(s) for s in shapes)
    for i in range(1, rank + 1):
        sizes = {s[-i] for s in shapes if len(s) >= i and s[-i] != 1}
        if len(sizes) > 1:
            raise ValueError(
                f"{fun_name}: incompatible shapes for broadcasting: "
                + ", ".join(str(tuple(s)) for s in shapes)
                + f" (dimension {-i} has sizes {sorted(sizes)})."
            )


def promote_args(fun_name: str, *args: Any) -> list[Any]:
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes(*args))


def promote_args_inexact(fun_name: str, *args: Any) -> list[Any]:
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_inexact(*args))


def promote_args_numeric(fun_name: str, *args: Any) -> list[Any]:
    check_arraylike(fun_name, *args)
    return promote_shapes(fun_name, *promote_dtypes_numeric(*args))


def ndim(x: Any) -> int:
    return len(np.shape(x)) if not isinstance(x, (Array, Tracer)) else x.ndim


def shape_of(x: Any) -> tuple[int, ...]:
    if isinstance(x, (Array, Tracer)):
        return x.shape
    return np.shape(x)


def aval_of(x: Any) -> core.ShapedArray:
    return core.get_aval(x)


# ---------------------------------------------------------------------------------------------
# Scalars, shapes, axes, dtype arguments and inner jits of the array functions (array_constructors,
# creation, shape_ops, rearranging, lax_numpy)

_int32 = np.dtype(np.int32)
_bool = np.dtype(np.bool_)


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
    dtypes.check_user_dtype_supported(dt, fn)
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
            f"Shapes must be 1D sequences of concrete values of integer type, got {items}."
            + (f"\nThe shape was given to {fn}." if fn else "")
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


def _value_dtype(x: Any) -> np.dtype:
    if isinstance(x, (Array, Tracer, np.ndarray, np.generic)):
        return x.dtype
    return np.asarray(x).dtype
