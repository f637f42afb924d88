"""``array`` and ``asarray`` (arrays from nested sequences, scalars and arrays, with JAX's dtype
rules), ``copy`` and ``astype``: the constructors every other ``spmd.numpy`` function starts from.

>>> jnp.array([1, 2.5])
Array([1. , 2.5], dtype=float32)
"""

from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np
from spmd._src import core, dtypes
from spmd._src.array import Array
from spmd._src.core import Tracer
from spmd._src.dispatch import on_context_mesh
from spmd._src.key_arrays import over_key_data
from spmd._src.lax import elementwise as lax
from spmd._src.lax import shape as lax_shape
from spmd._src.numpy.util import (
    _dtype_arg,
    _ndim_of,
    _value_dtype,
    check_arraylike,
    convert,
    place_on_device,
    with_out_sharding,
)

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


@over_key_data("jnp.array")
@with_out_sharding("jnp.array", device=True, data=True)
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
            out = core.python_float_scalar(
                Array(dtypes.coerce_scalar(object, dt), weak_type=weak), object
            )
        else:
            v = np.array(object) if copy else np.asarray(object)
            target = dt if dt is not None else dtypes.canonicalize_dtype(v.dtype)
            with np.errstate(all="ignore"):
                out = Array(v if v.dtype == target else v.astype(target))
    nd = _ndim_of(out)
    if nd < ndmin:
        out = lax_shape.expand_dims(out, tuple(range(ndmin - nd)))
    return on_context_mesh(out)  # under set_mesh a host value lands on the mesh, as in JAX


@over_key_data("jnp.asarray")
@with_out_sharding("jnp.asarray", device=True, data=True)
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


@over_key_data("jnp.copy")
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
    if device is not None:
        out = place_on_device(out, device, "jnp.astype", data=x)
    return out


__all__ = [
    "array",
    "asarray",
    "astype",
    "copy",
]
