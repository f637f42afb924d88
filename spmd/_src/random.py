"""``spmd.random``: JAX's threefry pseudo-random numbers, with the same bits and values.

Keys are either legacy ``uint32[..., 2]`` arrays (``PRNGKey``) or typed key arrays (``key``),
whose dtype prints as ``key<fry>`` and whose ``key_data`` is that uint32 array. Every function
takes both and returns keys of the kind it was given.

Samplers follow JAX 0.10's algorithms step by step, and their float arithmetic reproduces XLA
on CPU (fused multiply-adds, XLA's log/log1p/erf/erf_inv polynomials; see
``spmd._src.lax.random_bits``), so that for a given key they return JAX's values bit for bit
in float32, float16 and bfloat16, under either ``jax_threefry_partitionable`` setting.

>>> key = PRNGKey(42)
>>> key
Array([ 0, 42], dtype=uint32)
>>> uniform(key, (3,))
Array([0.48870957, 0.6797972 , 0.6162715 ], dtype=float32)
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import dtypes
from spmd._src.api import jit
from spmd._src.array import Array
from spmd._src.config import config
from spmd._src.core import Tracer
from spmd._src.errors import ConcretizationTypeError
from spmd._src.lax import copies as lax_copies
from spmd._src.lax import elementwise as lax
from spmd._src.lax import padding as lax_padding
from spmd._src.lax import random_bits as rb
from spmd._src.lax import random_math as rm
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.lax import sorting as lax_sort
from spmd._src.numpy import indexing as jnp_idx
from spmd._src.numpy import lax_numpy as jnp
from spmd._src.numpy import reductions as jnp_red
from spmd._src.numpy import sorting as jnp_sort
from spmd._src.numpy import ufuncs as jnp_uf
from spmd._src.numpy import util as jnp_util
from spmd._src.numpy.util import with_out_sharding
from spmd._src.random_keys import (
    _IMPL_NAME,
    _U32,
    IMPLS,
    KEY_CLASSES,
    KEY_DTYPE,
    KEY_DTYPES,
    KeyDtype,
    PRNGKeyArray,
    _check_key,
    _is_arraylike,
    _key_data_of,
    _ret,
    impl_name,
    key_impl_of,
)
from spmd._src.util import canonicalize_axis

# ---------------------------------------------------------------------------------------------
# Argument helpers


def _shape_arg(shape: Any, name: str) -> tuple[int, ...]:
    items = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    try:
        out = tuple(operator.index(d) for d in items)
    except TypeError:
        raise TypeError(
            f"{name}: shapes must be 1D sequences of concrete values of integer type, got "
            f"{shape!r}."
        ) from None
    if any(d < 0 for d in out):
        raise ValueError(f"{name}: shape must have nonnegative dimensions, got {out}")
    return out


def _dtype_arg(dtype: Any, default: Any) -> np.dtype:
    dtypes.check_user_dtype_supported(dtype)
    return dtypes.canonicalize_dtype(dtypes.dtype(default if dtype is None else dtype))


def _float_dtype(name: str, dtype: Any, what: str = "a float dtype") -> np.dtype:
    dt = _dtype_arg(dtype, float)
    if not dtypes.issubdtype(dt, np.floating):
        raise ValueError(f"dtype argument to `{name}` must be {what}, got {dt}")
    return dt


def _check_safe_to_cast(name: str, dtype: np.dtype, *args: Any) -> None:
    """JAX's check that a sampler's parameters convert to the sample dtype: a weakly typed
    value (a Python scalar) within its kind (complex only into complex), an array (its dtype
    canonicalized, so a NumPy float64 array is float32 with x64 off) without widening it."""
    for arg in args:
        src = dtypes.canonicalize_dtype(dtypes.dtype(arg))
        if src == dtype:
            continue
        if dtypes.is_python_scalar(arg) or dtypes.is_weakly_typed(arg):
            ok = not (dtypes.issubdtype(src, np.complexfloating) and dtype.kind != "c")
        else:
            ok = dtypes.result_type(src, dtype) == dtype
        if not ok:
            raise dtypes.TypePromotionError(
                f"In arguments to {name}, cannot safely cast argument of type {src} to {dtype}"
            )


def _exp(x):
    """exp as XLA's CPU code computes it (float64: NumPy's, which XLA's matches closely)."""
    return lax.exp(x) if dtypes.dtype(x) == np.float64 else rm.xla_exp(x)


def _pow(x, y):
    """x ** y (promoted as jnp.power) as XLA's CPU code computes it (C library powf)."""
    x, y = jnp_util.promote_args_numeric("power", x, y)
    return lax.pow(x, y) if dtypes.dtype(x) == np.float64 else rm.xla_pow(x, y)


def _check_shape(name: str, shape: tuple[int, ...], *param_shapes: Sequence[int]) -> None:
    if param_shapes:
        got = _broadcast_shapes(name, shape, *param_shapes)
        if tuple(got) != tuple(shape):
            raise ValueError(
                f"{name} parameter shapes must be broadcast-compatible with shape argument, "
                "and the result of broadcasting the shapes must equal the shape argument, "
                f"but got result {tuple(got)} for shape argument {shape}."
            )


def _broadcast_shapes(name: str, *shapes: Sequence[int]) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        raise ValueError(
            f"{name}: incompatible shapes for broadcasting: shapes={[tuple(s) for s in shapes]}"
        ) from None


def _concrete_int(x: Any, context: str) -> int:
    if isinstance(x, Tracer):
        raise ConcretizationTypeError(
            f"Abstract tracer value encountered where concrete value is expected: {x!r}. {context}"
        )
    return int(x)


def _finfo(dtype: np.dtype):
    return dtypes.finfo(dtype)


def _const(value: Any, dtype: Any) -> Array:
    return Array(np.asarray(value, dtype=dtype))


def _exact_unary(name: str):
    """The lax function for ``name`` as XLA computes it (float64 has no XLA-exact kernel)."""
    exact = {"log": rb.xla_log, "log1p": rb.xla_log1p, "erf": rb.xla_erf, "erf_inv": rb.xla_erf_inv}
    plain = {"log": lax.log, "log1p": lax.log1p, "erf": lax.erf, "erf_inv": lax.erf_inv}

    def f(x):
        return (plain if dtypes.dtype(x) == np.float64 else exact)[name](x)

    return f


_log, _log1p, _erf, _erf_inv = (_exact_unary(n) for n in ("log", "log1p", "erf", "erf_inv"))


# ---------------------------------------------------------------------------------------------
# Keys


def _seed_value(name: str, seed: Any) -> Any:
    if isinstance(seed, PRNGKeyArray):
        raise TypeError(f"{name} accepts a scalar seed, but was given a PRNG key.")
    if np.ndim(seed):
        raise TypeError(
            f"{name} accepts a scalar seed, but was given an array of shape {np.shape(seed)} "
            "!= (). Use jax.vmap for batching"
        )
    if type(seed) is bool:
        return np.asarray(seed)
    if type(seed) is int:
        # As JAX: a Python int seed is an int64 (OverflowError beyond), then canonicalized.
        v = np.asarray(np.int64(seed))
        return v if config.jax_enable_x64 else v.astype(np.int32)
    if isinstance(seed, (np.ndarray, np.generic)):
        v = np.asarray(seed)
        if v.dtype.kind in "iub" and not config.jax_enable_x64 and v.dtype.itemsize == 8:
            v = v.astype(np.uint32 if v.dtype.kind == "u" else np.int32)
        if v.dtype.kind not in "iub":
            raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
        return v
    if isinstance(seed, (Array, Tracer)):
        if not (dtypes.issubdtype(seed.dtype, np.integer) or seed.dtype == np.bool_):
            raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
        return seed
    raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")


def _offset(seed: Any) -> Any:
    # jax_random_seed_offset: added in the seed's own dtype (a weak Python int).
    off = config.jax_random_seed_offset
    return seed if not off else seed + off


def _check_impl(impl: Any) -> str:
    return impl_name(impl)


def _seed(name: str, seed: Any, impl: str) -> Any:
    """Key data from a seed: threefry's ``[hi, lo]``; the rbg PRNGs' is that twice."""
    data = rb.random_seed(_offset(_seed_value(name, seed)))
    if IMPLS[impl][1] == 4:
        data = lax_shape.concatenate([data, data], 0)
    return data


def PRNGKey(seed: Any, *, impl: Any = None) -> Any:
    """A legacy key: ``uint32[2]`` key data from an integer seed (``uint32[4]`` for the rbg
    implementations).

    >>> PRNGKey(42)
    Array([ 0, 42], dtype=uint32)
    """
    return _seed("PRNGKey", seed, _check_impl(impl))


def key(seed: Any, *, impl: Any = None, dtype: Any = None) -> PRNGKeyArray:
    """A typed key (dtype ``key<fry>``, or ``key<rbg>``/``key<urbg>`` for ``impl='rbg'`` or
    ``'unsafe_rbg'``; shape ``()``) from an integer seed.

    >>> key(42)
    Array((), dtype=key<fry>) overlaying:
    [ 0 42]
    """
    if dtype is not None and impl is not None:
        raise ValueError("Cannot specify both `impl` and `dtype` arguments to jax.random.key")
    name = _check_impl(impl if dtype is None else dtype)
    return KEY_CLASSES[name](_seed("key", seed, name))


def key_data(keys: Any) -> Any:
    """The ``uint32[..., w]`` key data of a key array (legacy keys are returned as they are)."""
    data, _ = _check_key("key_data", keys, allow_batched=True)
    return data


def wrap_key_data(key_bits_array: Any, *, impl: Any = None, dtype: Any = None) -> PRNGKeyArray:
    """A typed key array over ``uint32[..., w]`` key data (w = 2 for threefry, 4 for rbg).

    >>> wrap_key_data(PRNGKey(1))
    Array((), dtype=key<fry>) overlaying:
    [0 1]
    """
    if dtype is not None and impl is not None:
        raise ValueError(
            "Cannot specify both `impl` and `dtype` arguments to jax.random.wrap_key_data"
        )
    name = _check_impl(impl if dtype is None else dtype)
    if isinstance(key_bits_array, PRNGKeyArray):
        raise TypeError("wrap_key_data: expected key data (uint32), got a PRNG key array")
    if isinstance(key_bits_array, (list, tuple)):
        key_bits_array = np.asarray(key_bits_array)
    data, _ = _key_data_of("wrap_key_data", key_bits_array, name)
    return KEY_CLASSES[name](data)


def key_impl(keys: Any) -> str:
    """The name of the keys' PRNG implementation (``'threefry2x32'``, ``'rbg'``, ...)."""
    _check_key("key_impl", keys, allow_batched=True)
    return key_impl_of(keys)


def key_dtype(impl: Any = None) -> KeyDtype:
    """The dtype of typed keys (``key<fry>`` for threefry)."""
    return KEY_DTYPES[_check_impl(impl)]


def clone(key: Any) -> Any:
    """The same key (keys are immutable values here)."""
    return key


def fold_in(key: Any, data: Any) -> Any:
    """A new key that depends on ``key`` and the 32-bit integer ``data``.

    >>> fold_in(PRNGKey(0), 7)
    Array([2716826189,  292468403], dtype=uint32)
    """
    k, typed = _check_key("fold_in", key)
    if np.ndim(data):
        raise TypeError(
            f"fold_in accepts a scalar, but was given an array of shape {np.shape(data)} != (). "
            "Use jax.vmap for batching."
        )
    msg = jnp.asarray(data, dtype=_U32)
    return _ret(rb.random_fold_in(k, msg, _rbg_impl(key)), typed)


def split(key: Any, num: int | Sequence[int] = 2) -> Any:
    """``num`` new keys (or a tuple ``num``: an array of keys of that shape).

    >>> split(PRNGKey(42))
    Array([[1832780943,  270669613],
           [  64467757, 2916123636]], dtype=uint32)
    """
    k, typed = _check_key("split", key)
    shape = _shape_arg(num, "split")
    return _ret(rb.random_split(k, shape, _rbg_impl(key)), typed)


def _rbg_impl(key: Any) -> str | None:
    """A typed rbg key's implementation, for the key primitives (None: threefry keys, whose
    primitives need none, and legacy keys, read as ``jax_default_prng_impl``). Samplers that
    split inside without taking it (those of random_more, random_gamma, random_counting) split
    an rbg key by the default's implementation ('rbg' unless the default is 'unsafe_rbg')."""
    return key._impl if isinstance(key, PRNGKeyArray) and key._impl != _IMPL_NAME else None


# ---------------------------------------------------------------------------------------------
# Bits and uniform floats


@with_out_sharding("random.bits")
def bits(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Uniform random bits as unsigned integers (uint32 by default; uint64 with x64)."""
    k, _ = _check_key("bits", key)
    dt = _dtype_arg(dtype, dtypes.default_uint_dtype())
    if not dtypes.issubdtype(dt, np.unsignedinteger):
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dt}")
    return rb.random_bits(k, dt.itemsize * 8, _shape_arg(shape, "bits"))


def _uniform_floats(k: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """Floats in [0, 1): random mantissa bits under the exponent of 1.0, minus 1."""
    fi = _finfo(dtype)
    nbits, nmant = fi.bits, fi.nmant
    if nbits not in (8, 16, 32, 64):
        raise TypeError(f"uniform only accepts 8-, 16-, 32-, or 64-bit dtypes, got {dtype}.")
    rng_bits = 8 if nmant < 8 else nbits
    uint = rb.UINT_DTYPES[nbits]
    b = rb.random_bits(k, rng_bits, shape)
    if rng_bits != nbits:
        b = lax.convert_element_type(b, uint)
    b = lax.shift_right_logical(b, _const(rng_bits - nmant, uint))
    b = lax.bitwise_or(b, _const(np.array(1.0, dtype).view(uint), uint))
    return lax.sub(_bitcast(b, dtype), _const(1.0, dtype))


def _bitcast(x: Any, dtype: np.dtype) -> Any:
    # lax.bitcast_convert_type's kernel returns shape (1,) for rank-0 operands under jit
    # (np.ascontiguousarray makes them 1-D): go through a 1-element vector.
    if np.ndim(x):
        return lax.bitcast_convert_type(x, dtype)
    one = lax.bitcast_convert_type(lax_shape.reshape(x, (1,)), dtype)
    return lax_shape.reshape(one, ())


def _affine(f: Any, span: Any, lo: Any, dtype: np.dtype) -> Any:
    """``f * span + lo`` as XLA computes it: fused in float32/float64, rounded twice in the
    narrower types (XLA computes those in float32 and rounds after each operation)."""
    if dtype in (np.dtype(np.float32), np.dtype(np.float64)):
        return rb.xla_fma(f, span, lo)
    return lax.add(lax.mul(f, span), lo)


def _as_dtype(x: Any, dtype: np.dtype) -> Any:
    if isinstance(x, Array) and x.dtype == dtype and not x.weak_type:
        return x
    return lax.convert_element_type(x, dtype)


def _uniform(k, minval, maxval, shape, dtype):
    for what, v in (("minval", minval), ("maxval", maxval)):
        vs = tuple(np.shape(v))
        if len(vs) > len(shape) or any(
            d not in (1, s) for d, s in zip(vs[::-1], tuple(shape)[::-1])
        ):
            raise TypeError(
                f"uniform: {what} of shape {vs} does not broadcast to the sample shape {shape}"
            )
    minval = lax_shape.broadcast_to_rank(_as_dtype(minval, dtype), len(shape))
    maxval = lax_shape.broadcast_to_rank(_as_dtype(maxval, dtype), len(shape))
    f = _uniform_floats(k, shape, dtype)
    u = _affine(f, lax.sub(maxval, minval), minval, dtype)
    return lax.max(minval, u)


_uniform_jit = jit(_uniform, static_argnums=(3, 4))


@with_out_sharding("random.uniform")
def uniform(
    key: Any, shape: Sequence[int] = (), dtype: Any = None, minval: Any = 0.0, maxval: Any = 1.0
) -> Any:
    """Uniform floats in ``[minval, maxval)``.

    >>> uniform(PRNGKey(0), (2,))
    Array([0.947667 , 0.9785799], dtype=float32)
    """
    k, _ = _check_key("uniform", key)
    dt = _float_dtype("uniform", dtype)
    return _uniform_jit(k, minval, maxval, _shape_arg(shape, "uniform"), dt)


def _tiny_uniform(k: Any, shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """``uniform(k, shape, dtype, minval=tiny, maxval=1)`` as XLA simplifies it: with constant
    bounds, ``f * (1 - tiny) + tiny`` becomes ``max(tiny, f)`` (the same in float32 and
    bfloat16; different, and what XLA computes, in float16)."""
    return lax.max(_const(_finfo(dtype).tiny, dtype), _uniform_floats(k, shape, dtype))


# ---------------------------------------------------------------------------------------------
# Integers


def _convert_and_clip_integer(val: Any, dtype: np.dtype) -> Any:
    """``val`` converted to ``dtype``, clipped to the range both dtypes hold (no wrapping)."""
    src = dtypes.iinfo(val.dtype)
    dst = dtypes.iinfo(dtype)
    lo = _const(max(int(dst.min), int(src.min)), val.dtype)
    hi = _const(min(int(dst.max), int(src.max)), val.dtype)
    return lax.convert_element_type(lax.clamp(lo, val, hi), dtype)


def _randint(k, minval, maxval, shape, dtype, impl=None):
    if not dtypes.issubdtype(minval.dtype, np.integer):
        minval = lax.convert_element_type(minval, dtypes.default_int_dtype())
    if not dtypes.issubdtype(maxval.dtype, np.integer):
        maxval = lax.convert_element_type(maxval, dtypes.default_int_dtype())
    top = _convert_and_clip_integer(_const(dtypes.iinfo(dtype).max, dtype), maxval.dtype)
    maxval_out_of_range = lax.gt(maxval, top)
    minval = _convert_and_clip_integer(minval, dtype)
    maxval = _convert_and_clip_integer(maxval, dtype)
    minval = lax_shape.broadcast_to_rank(minval, len(shape))
    maxval = lax_shape.broadcast_to_rank(maxval, len(shape))
    maxval_out_of_range = lax_shape.broadcast_to_rank(maxval_out_of_range, len(shape))
    nbits = dtypes.iinfo(dtype).bits
    keys = rb.random_split(k, (2,), impl)
    higher = rb.random_bits(keys[0], nbits, shape)
    lower = rb.random_bits(keys[1], nbits, shape)
    unsigned = rb.UINT_DTYPES[nbits]
    span = lax.convert_element_type(lax.sub(maxval, minval), unsigned)
    one = _const(1, unsigned)
    # maxval <= minval always gives minval (span 1); an out-of-range maxval widens the span
    # by one (wrapping to 0, which makes the remainders no-ops: the full range).
    span = lax.select(lax.le(maxval, minval), lax_shape.full_like(span, 1), span)
    span = lax.select(
        lax.bitwise_and(maxval_out_of_range, lax.gt(maxval, minval)), lax.add(span, one), span
    )
    # 2**nbits % span without overflow: (a * b) % n == ((a % n) * (b % n)) % n.
    mult = lax.rem(_const(2 ** (nbits // 2), unsigned), span)
    mult = lax.rem(lax.mul(mult, mult), span)
    offset = lax.add(lax.mul(lax.rem(higher, span), mult), lax.rem(lower, span))
    offset = lax.rem(offset, span)
    return lax.add(minval, lax.convert_element_type(offset, dtype))


_randint_jit = jit(_randint, static_argnums=(3, 4, 5))


@with_out_sharding("random.randint")
def randint(key: Any, shape: Sequence[int], minval: Any, maxval: Any, dtype: Any = None) -> Any:
    """Uniform integers in ``[minval, maxval)`` (int32 by default).

    >>> randint(PRNGKey(0), (4,), 0, 10)
    Array([9, 0, 2, 3], dtype=int32)
    """
    k, _ = _check_key("randint", key)
    dt = _dtype_arg(dtype, int)
    if not dtypes.issubdtype(dt, np.integer):
        raise TypeError(f"randint only accepts integer dtypes, got {dt}")
    shape = _shape_arg(shape, "randint")
    info = dtypes.iinfo(dt)
    minval = jnp.asarray(minval)
    maxval = jnp.asarray(maxval)
    _check_shape("randint", shape, minval.shape, maxval.shape)
    sampling = dt
    if info.bits < 32:
        # Sampled in 32 bits, as JAX does, so that narrow types are not biased.
        sampling = np.dtype(np.int32)
        minval = jnp_uf.clip(minval.astype(np.int32), int(info.min), int(info.max))
        maxval = jnp_uf.clip(maxval.astype(np.int32), int(info.min), int(info.max) + 1)
    out = _randint_jit(k, minval, maxval, shape, sampling, _rbg_impl(key))
    return out if sampling == dt else lax.convert_element_type(out, dt)


# ---------------------------------------------------------------------------------------------
# Normal and its relatives


def _normal_real(k, shape, dtype):
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype))
    u = _uniform(k, _const(lo, dtype), _const(1.0, dtype), shape, dtype)
    return lax.mul(_const(np.sqrt(2), dtype), _erf_inv(u))


def _normal(k, shape, dtype, impl=None):
    if dtypes.issubdtype(dtype, np.complexfloating):
        real = np.dtype(np.float64 if dtype == np.complex128 else np.float32)
        keys = rb.random_split(k, (2,), impl)
        re = lax.convert_element_type(_normal_real(keys[0], shape, real), dtype)
        im = lax.convert_element_type(_normal_real(keys[1], shape, real), dtype)
        z = lax.add(re, lax.mul(_const(1j, dtype), im))
        return lax.div(z, _const(np.sqrt(2), dtype))
    return _normal_real(k, shape, dtype)


_normal_jit = jit(_normal, static_argnums=(1, 2, 3))


@with_out_sharding("random.normal")
def normal(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Standard normal samples: ``sqrt(2) * erf_inv(u)`` for u uniform in (-1, 1).

    >>> normal(PRNGKey(42), (3,))
    Array([-0.02830462,  0.46713185,  0.29570296], dtype=float32)
    """
    k, _ = _check_key("normal", key)
    dt = _dtype_arg(dtype, float)
    if not dtypes.issubdtype(dt, np.inexact):
        raise ValueError(f"dtype argument to `normal` must be a float or complex dtype, got {dt}")
    return _normal_jit(k, _shape_arg(shape, "normal"), dt, _rbg_impl(key))


def _truncated_normal(k, lower, upper, shape, dtype):
    if shape is None:
        shape = _broadcast_shapes("truncated_normal", np.shape(lower), np.shape(upper))
    else:
        _check_shape("truncated_normal", shape, np.shape(lower), np.shape(upper))
    lower = lax.convert_element_type(lower, dtype)
    upper = lax.convert_element_type(upper, dtype)
    # XLA turns the division by sqrt(2) into a multiplication by its rounded reciprocal.
    inv_sqrt2 = _const(np.array(1, dtype) / np.array(np.sqrt(2), dtype), dtype)
    a = _erf(lax.mul(lower, inv_sqrt2))
    b = _erf(lax.mul(upper, inv_sqrt2))
    u = _uniform(k, a, b, shape, dtype)
    out = lax.mul(_const(np.sqrt(2), dtype), _erf_inv(u))
    inf = _const(np.inf, dtype)
    lo = lax.nextafter(lax.stop_gradient(lower), inf)
    hi = lax.nextafter(lax.stop_gradient(upper), lax.neg(inf))
    return jnp_uf.clip(out, lo, hi)


_truncated_normal_jit = jit(_truncated_normal, static_argnums=(3, 4))


@with_out_sharding("random.truncated_normal")
def truncated_normal(
    key: Any, lower: Any, upper: Any, shape: Sequence[int] | None = None, dtype: Any = None
) -> Any:
    """Standard normal samples conditioned on ``lower < x < upper``."""
    if shape is not None:
        shape = _shape_arg(shape, "truncated_normal")
    k, _ = _check_key("truncated_normal", key)
    dt = _float_dtype("truncated_normal", dtype)
    return _truncated_normal_jit(k, lower, upper, shape, dt)


def _bernoulli(k, p, shape, mode):
    if shape is None:
        shape = tuple(np.shape(p))
    else:
        _check_shape("bernoulli", shape, np.shape(p))
    dtype = dtypes.dtype(p)
    if mode == "high":
        u = _uniform(k, _const(0.0, dtype), _const(1.0, dtype), (2, *shape), dtype)
        u1, u2 = u[0], u[1]
        u2 = lax.mul(u2, _const(2.0 ** -_finfo(dtype).nmant, dtype))
        return lax.lt(u2, lax.sub(p, u1))
    u = _uniform(k, _const(0.0, dtype), _const(1.0, dtype), shape, dtype)
    return jnp_uf.less(u, p)


_bernoulli_jit = jit(_bernoulli, static_argnums=(2, 3))


@with_out_sharding("random.bernoulli")
def bernoulli(key: Any, p: Any = 0.5, shape: Sequence[int] | None = None, mode: str = "low"):
    """Booleans that are True with probability ``p``.

    >>> bernoulli(PRNGKey(0), 0.5, (4,))
    Array([False, False,  True,  True], dtype=bool)
    """
    if shape is not None:
        shape = _shape_arg(shape, "bernoulli")
    if mode not in ("high", "low"):
        raise ValueError(f"got {mode=}, expected 'high' or 'low'")
    k, _ = _check_key("bernoulli", key)
    dt = dtypes.dtype(p)
    if not dtypes.issubdtype(dt, np.floating):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {dt}.")
    if not isinstance(p, (Array, Tracer)):
        p = jnp.asarray(p, dtype=dt)
    return _bernoulli_jit(k, p, shape, mode)


def _exponential(k, shape, dtype):
    u = _uniform(k, _const(0.0, dtype), _const(1.0, dtype), shape, dtype)
    return lax.neg(_log1p(lax.neg(u)))


_exponential_jit = jit(_exponential, static_argnums=(1, 2))


@with_out_sharding("random.exponential")
def exponential(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Exponential samples (rate 1): ``-log1p(-u)``."""
    k, _ = _check_key("exponential", key)
    dt = _float_dtype("exponential", dtype)
    return _exponential_jit(k, _shape_arg(shape, "exponential"), dt)


def _gumbel(k, shape, dtype, mode):
    fi = _finfo(dtype)
    if mode == "highest" and dtype == np.float32:
        return _gumbel_highest(k, shape)
    if mode in ("high", "highest"):
        hl = _uniform(k, _const(0.0, dtype), _const(1.0, dtype), (2, *shape), dtype)
        high, low = hl[0], hl[1]
        x = lax.add(
            _affine(_const(2.0**-fi.nmant, dtype), low, high, dtype), _const(fi.tiny, dtype)
        )
        x = lax.select(lax.ge(high, _const(0.5, dtype)), high, x)
        return lax.neg(_log(lax.neg(_log1p(lax.neg(x)))))
    u = _tiny_uniform(k, shape, dtype)
    return lax.neg(_log(lax.neg(_log(u))))


def _gumbel_highest(k, shape):
    """float32 Gumbel samples from 64 random bits each (JAX's mode='highest')."""
    u32 = np.dtype(np.uint32)
    b = rb.random_bits(k, 32, (2, *shape))
    neg = lax.bitwise_not(b)
    lo_bits = neg[1]
    carry = lax.convert_element_type(lax.eq(lo_bits, _const(0xFFFFFFFF, u32)), u32)
    neg = lax.add(neg, lax_copies.stack([carry, lax_shape.full_like(lo_bits, 1)]))
    flip = lax.lt(b[0], _const(1 << 31, u32))
    x = _safe_int_to_float(
        lax.select(lax_shape.broadcast_in_dim(flip, b.shape, tuple(range(1, b.ndim))), b, neg)
    )
    return lax.select(
        flip, lax.neg(_log(lax.neg(_log1p(lax.neg(x))))), lax.neg(_log(lax.neg(_log(x))))
    )


def _safe_int_to_float(b):
    """u32[2, ...] (a 64-bit fraction) -> float32 in (0, 1), keeping the leading bits."""
    u32 = np.dtype(np.uint32)
    fi = _finfo(np.dtype(np.float32))
    hi, lo = b[0], b[1]
    hiclz, loclz = lax.clz(hi), lax.clz(lo)
    full = lax.eq(hiclz, _const(32, u32))
    mant = lax.bitwise_or(
        lax.shift_left(hi, hiclz),
        lax.select(
            full,
            lax.shift_left(lo, loclz),
            lax.shift_right_logical(lo, lax.sub(_const(32, u32), hiclz)),
        ),
    )
    mant = lax.shift_right_logical(mant, _const(32 - fi.nmant - 1, u32))
    mant = lax.bitwise_and(mant, _const((1 << fi.nmant) - 1, u32))
    lead = lax.select(full, lax.add(_const(32, u32), loclz), hiclz)
    exp = lax.shift_left(lax.sub(_const(-fi.minexp, u32), lead), _const(fi.nmant, u32))
    exp = lax.bitwise_and(exp, _const((1 << 30) - (1 << (fi.nmant - 1)), u32))
    return _bitcast(lax.bitwise_or(exp, mant), np.dtype(np.float32))


_gumbel_jit = jit(_gumbel, static_argnums=(1, 2, 3))


@with_out_sharding("random.gumbel")
def gumbel(key: Any, shape: Sequence[int] = (), dtype: Any = None, mode: str | None = None):
    """Gumbel samples: ``-log(-log(u))``."""
    k, _ = _check_key("gumbel", key)
    dt = _float_dtype("gumbel", dtype)
    shape = _shape_arg(shape, "gumbel")
    if mode is None:
        mode = "high" if config.jax_high_dynamic_range_gumbel else "low"
    if mode not in ("highest", "high", "low"):
        raise ValueError(f"Must provide valid mode for gumbel got: {mode}")
    return _gumbel_jit(k, shape, dt, mode)


def _laplace(k, shape, dtype):
    lo = _const(-1.0 + float(_finfo(dtype).epsneg), dtype)
    u = _uniform(k, lo, _const(1.0, dtype), shape, dtype)
    return lax.mul(lax.sign(u), _log1p(lax.neg(lax.abs(u))))


_laplace_jit = jit(_laplace, static_argnums=(1, 2))


@with_out_sharding("random.laplace")
def laplace(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Laplace samples (density ``exp(-|x|) / 2``)."""
    k, _ = _check_key("laplace", key)
    dt = _float_dtype("laplace", dtype)
    return _laplace_jit(k, _shape_arg(shape, "laplace"), dt)


def _logistic(k, shape, dtype):
    x = _tiny_uniform(k, shape, dtype)
    return lax.sub(_log(x), _log1p(lax.neg(x)))


_logistic_jit = jit(_logistic, static_argnums=(1, 2))


@with_out_sharding("random.logistic")
def logistic(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Logistic samples: ``log(u) - log1p(-u)``."""
    k, _ = _check_key("logistic", key)
    dt = _float_dtype("logistic", dtype)
    return _logistic_jit(k, _shape_arg(shape, "logistic"), dt)


@with_out_sharding("random.rademacher")
def rademacher(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """-1 or 1 with equal probability (int32 by default)."""
    k, _ = _check_key("rademacher", key)
    dt = _dtype_arg(dtype, int)
    b = bernoulli(k, 0.5, _shape_arg(shape, "rademacher"))
    return lax.convert_element_type(
        lax.sub(
            lax.mul(_const(2, np.int32), lax.convert_element_type(b, np.int32)), _const(1, np.int32)
        ),
        dt,
    )


# ---------------------------------------------------------------------------------------------
# Permutations and choices


def _shuffle(k, x, axis, impl=None):
    n = int(np.prod(np.shape(x)))
    # Sorting by fresh 32-bit keys, enough times that ties are unlikely (JAX's criterion).
    rounds = int(np.ceil(3 * np.log(max(1, n)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        keys = rb.random_split(k, (2,), impl)
        k, sub = keys[0], keys[1]
        sort_keys = rb.random_bits(sub, 32, tuple(np.shape(x)))
        _, x = lax_sort.sort_key_val(sort_keys, x, axis)
    return x


_shuffle_jit = jit(_shuffle, static_argnums=(2, 3))


@with_out_sharding("random.permutation")
def permutation(key: Any, x: Any, axis: int = 0, independent: bool = False) -> Any:
    """A random permutation of ``arange(x)`` (int ``x``) or of ``x`` along ``axis``.

    >>> permutation(PRNGKey(0), 5)
    Array([0, 1, 4, 3, 2], dtype=int32)
    """
    k, _ = _check_key("permutation", key)
    impl = _rbg_impl(key)
    if not (_is_arraylike(x) or isinstance(x, (int, float, complex, bool, list, tuple))):
        raise TypeError(f"permutation requires ndarray or scalar arguments, got {type(x)}")
    ndim = np.ndim(x)
    axis = canonicalize_axis(axis, ndim or 1, fn="permutation")
    if not ndim:
        if not dtypes.issubdtype(dtypes.dtype(x), np.integer):
            raise TypeError("x must be an integer or at least 1-dimensional")
        r = _concrete_int(x, "argument x of jax.random.permutation()")
        return _shuffle_jit(k, jnp.arange(r), axis, impl)
    x = jnp.asarray(x)
    if independent or ndim == 1:
        return _shuffle_jit(k, x, axis, impl)
    ind = _shuffle_jit(k, jnp.arange(x.shape[axis]), 0, impl)
    return jnp_idx.take(x, ind, axis, unique_indices=True)


def _cumsum_xla(p: Any) -> Any:
    """1-D cumulative sum in XLA CPU's order: sequential within blocks of 16, the blocks'
    totals scanned the same way (recursively), each block offset by the total before it."""
    n = p.shape[0]
    if n <= 16:
        return lax_red.cumsum(p, 0)
    m = -(-n // 16)
    dt = p.dtype
    padded = lax_padding.pad(p, _const(0, dt), [(0, m * 16 - n, 0)])
    inner = lax_red.cumsum(lax_shape.reshape(padded, (m, 16)), 1)
    totals = _cumsum_xla(lax_shape.reshape(lax_shape.slice(inner, (0, 15), (m, 16)), (m,)))
    before = lax_shape.concatenate(
        [lax_shape.full((1,), 0, dt), lax_shape.slice(totals, (0,), (m - 1,))], 0
    )
    out = lax.add(inner, lax_shape.broadcast_in_dim(before, (m, 16), (0,)))
    return lax_shape.slice(lax_shape.reshape(out, (m * 16,)), (0,), (n,))


def choice(
    key: Any,
    a: Any,
    shape: Sequence[int] = (),
    replace: bool = True,
    p: Any = None,
    axis: int = 0,
    mode: str | None = None,
) -> Any:
    """Samples from ``a`` (an array, or ``arange(a)`` for an int) along ``axis``, with or
    without replacement, uniformly or with probabilities ``p``."""
    k, typed = _check_key("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError(f"shape argument of jax.random.choice must be a sequence, got {shape}")
    shape = _shape_arg(shape, "choice")
    arr = jnp.asarray(a)
    if arr.ndim == 0:
        n_inputs = _concrete_int(a, "The error occurred in jax.random.choice()")
    else:
        axis = canonicalize_axis(axis, arr.ndim, fn="choice")
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return jnp.zeros(shape, dtype=arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(
            f"Cannot take a larger sample (size {n_draws}) than population (size {n_inputs}) "
            "when 'replace=False'"
        )
    if p is None:
        if replace:
            ind = randint(key, shape, 0, n_inputs)
            result = ind if arr.ndim == 0 else jnp_idx.take(arr, ind, axis)
        else:
            perm = permutation(key, n_inputs if arr.ndim == 0 else arr, axis)
            result = lax_shape.slice_in_dim(perm, 0, n_draws, axis=axis)
    else:
        p_arr = jnp.asarray(p)
        if not dtypes.issubdtype(p_arr.dtype, np.inexact):
            p_arr = p_arr.astype(dtypes.default_float_dtype())
        if p_arr.shape != (n_inputs,):
            raise ValueError(
                "p must be None or a 1D vector with the same size as a.shape[axis]. "
                f"p has shape {p_arr.shape} and a.shape[axis] is {n_inputs}."
            )
        if replace:
            p_cuml = _cumsum_xla(p_arr)
            u = uniform(k, shape, dtype=p_cuml.dtype)
            r = lax.mul(p_cuml[-1], lax.sub(_const(1, p_cuml.dtype), u))
            ind = jnp_sort.searchsorted(p_cuml, r).astype(dtypes.default_int_dtype())
        else:
            g = lax.add(gumbel(k, (n_inputs,), dtype=p_arr.dtype, mode=mode), _log(p_arr))
            ind = lax_sort.top_k(g, n_draws)[1].astype(dtypes.default_int_dtype())
        result = ind if arr.ndim == 0 else jnp_idx.take(arr, ind, axis)
    out_shape = shape if arr.ndim == 0 else arr.shape[:axis] + tuple(shape) + arr.shape[axis + 1 :]
    return result.reshape(out_shape)


@with_out_sharding("random.categorical")
def categorical(
    key: Any,
    logits: Any,
    axis: int = -1,
    shape: Sequence[int] | None = None,
    replace: bool = True,
    mode: str | None = None,
) -> Any:
    """Indices sampled from the categorical distributions ``softmax(logits, axis)`` (the
    Gumbel-max trick; without replacement, the Gumbel top-k trick)."""
    k, _ = _check_key("categorical", key)
    logits_arr = jnp.asarray(logits)
    ndim = logits_arr.ndim
    axis_c = canonicalize_axis(axis, ndim, fn="categorical")
    batch_shape = tuple(int(d) for d in np.delete(logits_arr.shape, axis_c))
    if shape is None:
        shape = batch_shape
    else:
        shape = _shape_arg(shape, "categorical")
        _check_shape("categorical", shape, batch_shape)
    prefix = shape[: len(shape) - len(batch_shape)]
    if replace:
        neg_axis = axis_c - ndim
        logits_shape = list(shape[len(shape) - len(batch_shape) :])
        logits_shape.insert(neg_axis % ndim, logits_arr.shape[neg_axis])
        g = gumbel(k, (*prefix, *logits_shape), logits_arr.dtype, mode=mode)
        expanded = lax_shape.expand_dims(logits_arr, tuple(range(len(prefix))))
        return jnp_red.argmax(jnp_uf.add(g, expanded), axis=neg_axis)
    logits_arr = jnp_uf.add(logits_arr, gumbel(k, logits_arr.shape, logits_arr.dtype, mode=mode))
    n = math.prod(prefix)
    if n > logits_arr.shape[axis_c]:
        raise ValueError(
            f"Number of samples without replacement ({n}) cannot exceed number of categories "
            f"({logits_arr.shape[axis_c]})."
        )
    _, indices = lax_sort.top_k(jnp.moveaxis(logits_arr, axis_c, -1), n)
    dims = (indices.ndim - 1, *range(indices.ndim - 1))
    return lax_shape.reshape(indices, shape, dims)


__all__ = [
    "KEY_DTYPE",
    "PRNGKey",
    "bernoulli",
    "bits",
    "categorical",
    "choice",
    "clone",
    "exponential",
    "fold_in",
    "gumbel",
    "key",
    "key_data",
    "key_dtype",
    "key_impl",
    "laplace",
    "logistic",
    "normal",
    "permutation",
    "rademacher",
    "randint",
    "split",
    "truncated_normal",
    "uniform",
    "wrap_key_data",
]
