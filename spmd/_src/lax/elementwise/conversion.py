"""Conversion primitives: ``convert_element_type``, ``bitcast_convert_type``,
``reduce_precision``, and the identities ``copy`` and ``stop_gradient``."""

from __future__ import annotations

import numpy as np

from spmd._src import core, dtypes, tree_util
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.interpreters import partial_eval as pe
from spmd._src.lax.elementwise.common import _dtype
from spmd._src.lax.rules import defjvp_zero, deflinear, defvectorized, moveaxis
from spmd._src.lax.utils import any_dtype, check_dtype_kind, float_dtypes, standard_primitive, unop

# ---------------------------------------------------------------------------------------------
# Conversion


def convert_element_type(operand, new_dtype, *, weak_type: bool = False, sharding=None):
    """Convert to ``new_dtype`` (floats to ints truncate and saturate; NaN gives 0).

    >>> lax.convert_element_type(jnp.array([2.7, -1e10]), jnp.int32)
    Array([          2, -2147483648], dtype=int32)
    """
    dtypes.check_user_dtype_supported(new_dtype, "convert_element_type")
    new_dtype = dtypes.canonicalize_dtype(new_dtype)
    return convert_element_type_p.bind(
        operand, new_dtype=new_dtype, weak_type=bool(weak_type), sharding=sharding
    )


def _convert_impl(x, *, new_dtype, weak_type, sharding):
    if x.dtype == new_dtype:
        return x
    if new_dtype == np.bool_:
        return x != 0
    src_float = x.dtype.kind in "fc" or dtypes.issubdtype(x.dtype, np.floating)
    if src_float and new_dtype.kind in "iu":
        # XLA saturates out-of-range values and maps NaN to 0; NumPy leaves them undefined.
        info = np.iinfo(new_dtype)
        with np.errstate(all="ignore"):
            v = np.real(x).astype(np.float64) if x.dtype.kind == "c" else x.astype(np.float64)
            v = np.trunc(np.nan_to_num(v, nan=0.0, posinf=info.max, neginf=info.min))
            v = np.clip(v, info.min, info.max)
            return v.astype(new_dtype)
    with np.errstate(all="ignore"):
        if x.dtype.kind == "c" and new_dtype.kind != "c":
            return np.real(x).astype(new_dtype)
        return x.astype(new_dtype)


def _convert_abstract_eval(x, *, new_dtype, weak_type, sharding):
    return ShapedArray(x.shape, new_dtype, weak_type)


convert_element_type_p = core.Primitive("convert_element_type")
convert_element_type_p.def_impl(_convert_impl)
convert_element_type_p.def_abstract_eval(_convert_abstract_eval)
core.pp_param_rules[convert_element_type_p] = lambda p: [
    (k, v) for k, v in sorted(p.items()) if not (k == "sharding" and v is None)
]


def _convert_jvp(primals, tangents, primal_out, *, new_dtype, weak_type, sharding):
    (t,) = tangents
    out_aval = ad.tangent_aval(core.get_aval(primal_out))
    # Integer and bool results carry no tangent; nor do integer inputs.
    if type(t) is ad.Zero or out_aval.dtype == dtypes.float0 or _dtype(t) == dtypes.float0:
        return ad.Zero(out_aval)
    return convert_element_type_p.bind(
        t, new_dtype=np.dtype(new_dtype), weak_type=weak_type, sharding=sharding
    )


def _convert_transpose(ct, x, *, new_dtype, weak_type, sharding):
    aval = x.aval
    if type(ct) is ad.Zero or ad.tangent_dtype(aval.dtype) == dtypes.float0:
        return [ad.Zero(ad.tangent_aval(aval))]
    # Back to the operand's type (complex to real keeps the real part, as the forward
    # conversion from real to complex embeds it).
    return [
        convert_element_type_p.bind(
            ct, new_dtype=aval.dtype, weak_type=aval.weak_type, sharding=sharding
        )
    ]


def _convert_const_fold(x, *, new_dtype, weak_type, sharding):
    # A scalar constant is converted when traced, not staged, as JAX does: ``x * jnp.array(0.1)``
    # with a float32 ``x`` prints the converted literal, with no convert_element_type equation.
    if sharding is not None or np.shape(x) != ():
        return None
    with core.set_current_trace(core.eval_trace):
        return convert_element_type_p.bind(
            x, new_dtype=new_dtype, weak_type=weak_type, sharding=sharding
        )


defvectorized(convert_element_type_p)
pe.const_fold_rules[convert_element_type_p] = _convert_const_fold
ad.primitive_jvps[convert_element_type_p] = _convert_jvp
ad.primitive_transposes[convert_element_type_p] = _convert_transpose


def bitcast_convert_type(operand, new_dtype):
    """Reinterpret the bits of each element as ``new_dtype`` (a trailing dimension is added
    or removed when the widths differ)."""
    return bitcast_convert_type_p.bind(operand, new_dtype=dtypes.canonicalize_dtype(new_dtype))


def _bitcast_shape(x, *, new_dtype):
    a, b = x.dtype.itemsize, np.dtype(new_dtype).itemsize
    if a == b:
        return x.shape
    if a > b:
        return (*x.shape, a // b)
    if not x.shape or x.shape[-1] != b // a:
        raise TypeError(
            f"bitcast_convert_type: converting {x.dtype.name} to {np.dtype(new_dtype).name} "
            f"needs a last dimension of size {b // a}, got shape {x.shape}."
        )
    return x.shape[:-1]


def _bitcast_impl(x, *, new_dtype):
    a, b = x.dtype.itemsize, np.dtype(new_dtype).itemsize
    # Not np.ascontiguousarray: it makes a rank-0 operand rank 1.
    x = np.asarray(x)
    if not x.flags.c_contiguous:
        x = x.copy(order="C")
    if a >= b:
        # NumPy changes the itemsize of a rank-0 array only through a rank-1 view.
        return (
            x.reshape(x.shape or (1,))
            .view(new_dtype)
            .reshape(_bitcast_shape(ShapedArray(x.shape, x.dtype), new_dtype=new_dtype))
        )
    return x.view(new_dtype).reshape(x.shape[:-1])


bitcast_convert_type_p = standard_primitive(
    "bitcast_convert_type",
    _bitcast_shape,
    lambda x, *, new_dtype: np.dtype(new_dtype),
    _bitcast_impl,
    weak_type_rule=lambda x, **_: False,
)


def _bitcast_vmap(axis_data, vals, dims, *, new_dtype):
    (x,), (d,) = vals, dims
    # Narrow-to-wide conversion consumes the operand's last dimension: keep the batch
    # dimension out of it.
    if _dtype(x).itemsize < np.dtype(new_dtype).itemsize and d == np.ndim(x) - 1:
        x, d = moveaxis(x, d, 0), 0
    return bitcast_convert_type_p.bind(x, new_dtype=new_dtype), d


batching.primitive_batchers[bitcast_convert_type_p] = _bitcast_vmap


def _bitcast_sharding(specs, avals, *, new_dtype):
    # The dimensions both sides share keep their sharding; a last dimension the conversion
    # adds comes out unsharded, one it consumes goes.
    (x,) = avals
    if x.dtype.itemsize < np.dtype(new_dtype).itemsize:
        return tuple(specs[0][:-1])
    return tuple(specs[0])


sharding_rules.sharding_rules[bitcast_convert_type_p] = _bitcast_sharding
defjvp_zero(bitcast_convert_type_p)


def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
    """Round to the precision of a float type with the given exponent and mantissa bits."""
    return reduce_precision_p.bind(
        operand, exponent_bits=int(exponent_bits), mantissa_bits=int(mantissa_bits)
    )


def _reduce_precision_impl(x, *, exponent_bits, mantissa_bits):
    for dt in (np.float16, dtypes.bfloat16, np.float32, np.float64):
        fi = dtypes.finfo(dt)
        if fi.nmant == mantissa_bits and int(np.log2(fi.maxexp)) + 1 == exponent_bits:
            return x.astype(dt).astype(x.dtype)
    raise NotImplementedError(
        f"reduce_precision to {exponent_bits} exponent and {mantissa_bits} mantissa bits"
    )


reduce_precision_p = standard_primitive(
    "reduce_precision",
    lambda x, **_: x.shape,
    lambda x, **_: (check_dtype_kind("reduce_precision", float_dtypes, x), x.dtype)[1],
    _reduce_precision_impl,
)
defvectorized(reduce_precision_p)
deflinear(reduce_precision_p, lambda ct, x, **params: [reduce_precision_p.bind(ct, **params)])


def _copy_impl(x):
    return np.array(x, copy=True)


copy_p = unop("copy", _copy_impl, any_dtype | frozenset({"other"}))
defvectorized(copy_p)
deflinear(copy_p, lambda ct, x: [copy_p.bind(ct)])


# ---------------------------------------------------------------------------------------------
# stop_gradient


def stop_gradient(x):
    """The identity, as a constant to differentiation: its output has a zero derivative.
    Applies to every leaf of a pytree.

    >>> spmd.grad(lambda x: x * lax.stop_gradient(x))(3.0)
    Array(3., dtype=float32, weak_type=True)
    """
    return tree_util.tree_map(stop_gradient_p.bind, x)


stop_gradient_p = unop("stop_gradient", lambda x: x, any_dtype | frozenset({"other"}))
defvectorized(stop_gradient_p)
defjvp_zero(stop_gradient_p)


__all__ = [
    "bitcast_convert_type",
    "bitcast_convert_type_p",
    "convert_element_type",
    "convert_element_type_p",
    "copy_p",
    "reduce_precision",
    "reduce_precision_p",
    "stop_gradient",
    "stop_gradient_p",
]
