"""Primitives for counter-based random numbers, and float kernels that compute as XLA on CPU.

Keys are raw threefry2x32 key data: ``uint32[..., 2]``. Leading dimensions are a batch of keys
(that is how ``vmap`` over keys batches these primitives: one call for every key).

- ``threefry2x32(k1, k2, x1, x2)``: the Threefry-2x32 block cipher (20 rounds), elementwise.
- ``random_seed(seeds)``: key data from integer seeds.
- ``random_bits(keys, bit_width, shape)``, ``random_split(keys, shape)``,
  ``random_fold_in(keys, msgs)``: JAX's threefry PRNG. Where counters come from depends on
  ``jax_threefry_partitionable`` (read when the kernel runs, as JAX reads it when lowering):
  on (the default), element ``i`` of the result hashes the 64-bit counter ``i``; off, the
  counters ``0..n-1`` are hashed in two halves and concatenated (JAX's original layout).

The ``xla_*`` primitives are ``log``, ``log1p``, ``erf``, ``erf_inv`` and ``a * b + c`` computed
the way XLA's CPU backend computes them in float32, bit for bit: the same polynomial
approximations, the same operation order, fused multiply-adds where LLVM contracts them. (XLA
treats denormal inputs differently in different contexts; these kernels follow its vectorized
code without flushing.) ``spmd.random``'s samplers use them so that their values equal
JAX's; float16 and bfloat16 go through float32 (as XLA does), float64 uses NumPy.

>>> key = np.array([0, 42], np.uint32)
>>> random_bits(key, 32, (3,))
Array([2098992034, 2919706841, 2646866425], dtype=uint32)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src.config import config
from spmd._src.core import ShapedArray
from spmd._src.interpreters import batching, sharding_rules
from spmd._src.lax import elementwise as _ew
from spmd._src.lax import shape as _shape
from spmd._src.lax.rules import (
    defbroadcasting,
    defjvp,
    defjvp2,
    defjvp_zero,
    defvectorized,
    moveaxis,
)
from spmd._src.lax.utils import broadcasting_shape, check_dtype_kind, float_dtypes

_U32 = np.dtype(np.uint32)
_F32 = np.float32
UINT_DTYPES = {8: np.dtype(np.uint8), 16: np.dtype(np.uint16), 32: _U32, 64: np.dtype(np.uint64)}

# ---------------------------------------------------------------------------------------------
# NumPy kernels of the hash and of JAX's counter layouts

_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))


def _threefry_scalar(k1: int, k2: int, x1: int, x2: int) -> tuple[int, int]:
    m = 0xFFFFFFFF
    ks = (k1, k2, k1 ^ k2 ^ 0x1BD11BDA)
    a, b = (x1 + k1) & m, (x2 + k2) & m
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            a = (a + b) & m
            b = (((b << r) & m) | (b >> (32 - r))) ^ a
        a = (a + ks[(i + 1) % 3]) & m
        b = (b + ks[(i + 2) % 3] + i + 1) & m
    return a, b


def threefry2x32_kernel(k1, k2, x1, x2) -> tuple[np.ndarray, np.ndarray]:
    """Threefry-2x32 with 20 rounds on broadcasting uint32 arrays (Salmon et al., 2011)."""
    k1 = np.asarray(k1, _U32)
    k2 = np.asarray(k2, _U32)
    x1 = np.asarray(x1, _U32)
    x2 = np.asarray(x2, _U32)
    shape = np.broadcast_shapes(k1.shape, k2.shape, x1.shape, x2.shape)
    if math.prod(shape) <= 4:
        # A few words (splitting one key, folding in): Python ints beat ~120 NumPy calls.
        args = [a.ravel().tolist() for a in np.broadcast_arrays(k1, k2, x1, x2)]
        out = [_threefry_scalar(*v) for v in zip(*args)]
        y1 = np.array([o[0] for o in out], _U32).reshape(shape)
        y2 = np.array([o[1] for o in out], _U32).reshape(shape)
        return y1, y2
    if len(shape) >= 2 and 1 < shape[-1] < 16 and math.prod(shape[:-1]) >= 64:
        # A key per row of a few counters (splitting a batch of keys): NumPy's inner loop
        # would run over the short last axis, once per row and operation; the cipher runs
        # with that axis moved first instead, and the result is laid out back once.
        nd = len(shape)
        moved = [
            np.moveaxis(v.reshape((1,) * (nd - v.ndim) + v.shape), -1, 0) for v in (k1, k2, x1, x2)
        ]
        return tuple(_last_axis_back(y, shape) for y in threefry2x32_kernel(*moved))
    ks = (k1, k2, k1 ^ k2 ^ np.uint32(0x1BD11BDA))
    a = np.add(np.asarray(x1, _U32), k1)
    b = np.add(np.asarray(x2, _U32), k2)
    a, b = np.broadcast_arrays(a, b)
    a, b = a.copy(), b.copy()
    tmp = np.empty_like(b)
    for i in range(5):
        for r in _ROTATIONS[i % 2]:
            a += b
            # b = rotl(b, r) ^ a, in place
            np.right_shift(b, np.uint32(32 - r), out=tmp)
            b <<= np.uint32(r)
            b |= tmp
            b ^= a
        a += ks[(i + 1) % 3]
        b += ks[(i + 2) % 3]
        b += np.uint32(i + 1)
    return a, b


def _last_axis_back(y: np.ndarray, shape) -> np.ndarray:
    """``moveaxis(y, 0, -1)`` laid out in ``shape``: one strided copy per (short) first axis
    entry, faster than NumPy's copy of the transposed view."""
    out = np.empty(shape, y.dtype)
    for j in range(shape[-1]):
        out[..., j] = y[j]
    return out


def _key_halves(keys: np.ndarray, extra_dims: int) -> tuple[np.ndarray, np.ndarray]:
    """The two words of each key, with ``extra_dims`` size-1 dimensions appended."""
    idx = (...,) + (None,) * extra_dims
    return keys[..., 0][idx], keys[..., 1][idx]


def _hash_counters(keys: np.ndarray, n: int) -> np.ndarray:
    """JAX's original layout: hash the counters 0..n-1 under each key (``uint32[*b, n]``): the
    counters, padded to even length, are split in halves that form the cipher's two words."""
    counts = np.arange(n, dtype=_U32)
    if n % 2:
        counts = np.append(counts, np.uint32(0))
    half = counts.size // 2
    k1, k2 = _key_halves(keys, 1)
    y1, y2 = threefry2x32_kernel(k1, k2, counts[:half], counts[half:])
    return np.concatenate([y1, y2], axis=-1)[..., :n]


def _hash_iota(keys: np.ndarray, shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The partitionable layout: element ``i`` (row-major) hashes the 64-bit counter ``i``,
    split into high and low words. Results are ``uint32[*b, *shape]``."""
    n = math.prod(shape)
    if n > 2**32:
        idx = np.arange(n, dtype=np.uint64).reshape(shape)
        hi = (idx >> np.uint64(32)).astype(_U32)
        lo = idx.astype(_U32)
    else:
        hi = np.uint32(0)
        lo = np.arange(n, dtype=_U32).reshape(shape)
    k1, k2 = _key_halves(keys, len(shape))
    return threefry2x32_kernel(k1, k2, hi, lo)


def random_bits_kernel(keys: np.ndarray, bit_width: int, shape: tuple[int, ...]) -> np.ndarray:
    """``uint{bit_width}[*keys.shape[:-1], *shape]`` random bits from key data."""
    if keys.shape[-1] == 4:  # an rbg key: XLA's bit generator (see rng_bit_generator)
        from spmd._src.lax import rng_bit_generator as rbg

        return rbg.rbg_bits_kernel(keys, bit_width, shape)
    batch = keys.shape[:-1]
    dtype = UINT_DTYPES[bit_width]
    if config.jax_threefry_partitionable:
        y1, y2 = _hash_iota(keys, shape)
        if bit_width == 64:
            return (y1.astype(dtype) << np.uint64(32)) | y2.astype(dtype)
        out = y1 ^ y2
        return out if bit_width == 32 else out.astype(dtype)
    size = math.prod(shape)
    words = -(-bit_width * size // 32)
    if words >= 2**32 - 1:
        raise NotImplementedError("random_bits: more than 2**32 - 2 words of random bits")
    bits = _hash_counters(keys, words)
    if bit_width == 64:
        hi, lo = bits[..., : words // 2], bits[..., words // 2 :]
        bits = (hi.astype(dtype) << np.uint64(32)) | lo.astype(dtype)
    elif bit_width < 32:
        # The bytes (or half-words) of each word, least significant first.
        per = 32 // bit_width
        shifts = np.arange(per, dtype=_U32) * np.uint32(bit_width)
        parts = (bits[..., None] >> shifts) & np.uint32((1 << bit_width) - 1)
        bits = parts.reshape(batch + (words * per,))[..., :size].astype(dtype)
    return bits.reshape(batch + tuple(shape))


def random_split_kernel(keys: np.ndarray, shape: tuple[int, ...], impl=None) -> np.ndarray:
    """``uint32[*keys.shape[:-1], *shape, 2]``: new keys derived from each key."""
    if keys.shape[-1] == 4:
        from spmd._src.lax import rng_bit_generator as rbg

        return rbg.rbg_split_kernel(keys, shape, impl)
    batch = keys.shape[:-1]
    if config.jax_threefry_partitionable:
        y1, y2 = _hash_iota(keys, shape)
        return np.stack([y1, y2], axis=-1)
    n = math.prod(shape)
    return _hash_counters(keys, 2 * n).reshape(batch + tuple(shape) + (2,))


def random_fold_in_kernel(keys: np.ndarray, msgs: np.ndarray, impl=None) -> np.ndarray:
    """Each key hashed with the counter pair ``(0, msg)``: ``uint32[*keys.shape]``."""
    if keys.shape[-1] == 4:
        from spmd._src.lax import rng_bit_generator as rbg

        return rbg.rbg_fold_in_kernel(keys, msgs, impl)
    y1, y2 = threefry2x32_kernel(keys[..., 0], keys[..., 1], np.uint32(0), msgs)
    return np.stack([y1, y2], axis=-1)


def random_seed_kernel(seeds: np.ndarray) -> np.ndarray:
    """Key data ``[seed >> 32, seed & 0xFFFFFFFF]`` (the high word is 0 for 32-bit seeds)."""
    s = np.asarray(seeds)
    if s.dtype == np.bool_:
        s = s.astype(np.uint8)
    wide = s.astype(np.int64).view(np.uint64) if s.dtype.kind == "i" else s.astype(np.uint64)
    lo = (wide & np.uint64(0xFFFFFFFF)).astype(_U32)
    if s.dtype.itemsize == 8:
        hi = (wide >> np.uint64(32)).astype(_U32)
    else:
        hi = np.zeros_like(lo)
    return np.stack([hi, lo], axis=-1)


# ---------------------------------------------------------------------------------------------
# Key checks shared by the abstract evaluation rules


def _check_keys(name: str, keys: ShapedArray) -> None:
    if keys.dtype != _U32:
        raise TypeError(f"{name}: key data must have dtype uint32, got {keys.dtype.name}")
    if not keys.shape or keys.shape[-1] not in (2, 4):
        raise TypeError(
            f"{name}: key data must have shape (..., 2) (threefry) or (..., 4) (rbg), got shape "
            f"{tuple(keys.shape)}"
        )


def _batch_to_front(x: Any, d: int | None) -> Any:
    return x if d is None or d == 0 else moveaxis(x, d, 0)


def _check_shape_param(name: str, shape: Sequence[int]) -> tuple[int, ...]:
    shape = tuple(int(d) for d in shape)
    if any(d < 0 for d in shape):
        raise ValueError(f"{name}: shape must have nonnegative dimensions, got {shape}")
    return shape


# ---------------------------------------------------------------------------------------------
# threefry2x32


def threefry2x32(k1, k2, x1, x2):
    """The Threefry-2x32 hash of the counter words ``(x1, x2)`` under the key ``(k1, k2)``.

    All operands are uint32 and broadcast like lax's n-ary elementwise operations.

    >>> threefry2x32(np.uint32(0), np.uint32(0), np.uint32(0), np.uint32(0))
    [Array(1797259609, dtype=uint32), Array(2579123966, dtype=uint32)]
    """
    return threefry2x32_p.bind(k1, k2, x1, x2)


def _threefry2x32_abstract_eval(*avals):
    for a in avals:
        if a.dtype != _U32:
            raise TypeError(
                f"threefry2x32: arguments must have dtype uint32, got "
                f"{', '.join(x.dtype.name for x in avals)}"
            )
    shape = broadcasting_shape("threefry2x32", *(a.shape for a in avals))
    return [ShapedArray(shape, _U32), ShapedArray(shape, _U32)]


def _threefry2x32_impl(k1, k2, x1, x2):
    y1, y2 = threefry2x32_kernel(k1, k2, x1, x2)
    return [np.asarray(y1), np.asarray(y2)]


threefry2x32_p = core.Primitive("threefry2x32", multiple_results=True)
threefry2x32_p.def_impl(_threefry2x32_impl)
threefry2x32_p.def_abstract_eval(_threefry2x32_abstract_eval)
defbroadcasting(threefry2x32_p)
defjvp_zero(threefry2x32_p)


# ---------------------------------------------------------------------------------------------
# random_seed


def random_seed(seeds):
    """Key data ``uint32[*seeds.shape, 2]`` from integer seeds (a 64-bit seed fills both
    words; a narrower one is converted to uint32 and the high word is 0)."""
    return random_seed_p.bind(seeds)


def _random_seed_abstract_eval(seeds):
    if not (dtypes.issubdtype(seeds.dtype, np.integer) or seeds.dtype == np.bool_):
        raise TypeError(f"PRNG key seed must be an integer; got a {seeds.dtype.name} value.")
    return ShapedArray(tuple(seeds.shape) + (2,), _U32)


def _random_seed_vmap(axis_data, vals, dims):
    (x,), (d,) = vals, dims
    return random_seed(x), d


random_seed_p = core.Primitive("random_seed")
random_seed_p.def_impl(random_seed_kernel)
random_seed_p.def_abstract_eval(_random_seed_abstract_eval)
batching.primitive_batchers[random_seed_p] = _random_seed_vmap
defjvp_zero(random_seed_p)


def _key_batch(specs, avals) -> tuple:
    """The sharding of the key batch dimensions (all but the key data's last): results keep it
    (the keys of a vmapped random function placed over devices draw there, as in JAX)."""
    keys = avals[0]
    first = specs[0] if specs and specs[0] is not None else (None,) * keys.ndim
    return tuple(first[: keys.ndim - 1])


# ---------------------------------------------------------------------------------------------
# random_bits


def random_bits(keys, bit_width: int, shape: Sequence[int]):
    """Uniform random bits ``uint{bit_width}[*batch, *shape]`` from key data
    ``uint32[*batch, 2]`` (bit_width 8, 16, 32 or 64)."""
    return random_bits_p.bind(keys, bit_width=int(bit_width), shape=tuple(int(d) for d in shape))


def _random_bits_abstract_eval(keys, *, bit_width, shape):
    _check_keys("random_bits", keys)
    if bit_width not in UINT_DTYPES:
        raise TypeError(f"random_bits: bit_width must be 8, 16, 32 or 64, got {bit_width}")
    shape = _check_shape_param("random_bits", shape)
    return ShapedArray(tuple(keys.shape[:-1]) + shape, UINT_DTYPES[bit_width])


def _random_bits_vmap(axis_data, vals, dims, *, bit_width, shape):
    (keys,), (d,) = vals, dims
    return random_bits(_batch_to_front(keys, d), bit_width, shape), 0


random_bits_p = core.Primitive("random_bits")
random_bits_p.def_impl(random_bits_kernel)
random_bits_p.def_abstract_eval(_random_bits_abstract_eval)
batching.primitive_batchers[random_bits_p] = _random_bits_vmap
sharding_rules.sharding_rules[random_bits_p] = lambda specs, avals, *, bit_width, shape: (
    _key_batch(specs, avals) + (None,) * len(shape)
)
defjvp_zero(random_bits_p)


# ---------------------------------------------------------------------------------------------
# random_split


def random_split(keys, shape: Sequence[int], impl: str | None = None):
    """New key data ``uint32[*batch, *shape, w]`` derived from key data ``uint32[*batch, w]``
    (w = 2 for threefry, 4 for rbg keys, whose ``impl`` is 'rbg' or 'unsafe_rbg': None reads
    ``jax_default_prng_impl``)."""
    params = {} if impl is None else {"impl": impl}
    return random_split_p.bind(keys, shape=tuple(int(d) for d in shape), **params)


def _random_split_abstract_eval(keys, *, shape, **params):
    _check_keys("random_split", keys)
    shape = _check_shape_param("random_split", shape)
    return ShapedArray(tuple(keys.shape[:-1]) + shape + (keys.shape[-1],), _U32)


def _random_split_vmap(axis_data, vals, dims, *, shape, **params):
    (keys,), (d,) = vals, dims
    return random_split_p.bind(_batch_to_front(keys, d), shape=shape, **params), 0


random_split_p = core.Primitive("random_split")
random_split_p.def_impl(random_split_kernel)
random_split_p.def_abstract_eval(_random_split_abstract_eval)
batching.primitive_batchers[random_split_p] = _random_split_vmap
sharding_rules.sharding_rules[random_split_p] = lambda specs, avals, *, shape, **_: (
    _key_batch(specs, avals) + (None,) * (len(shape) + 1)
)
defjvp_zero(random_split_p)


# ---------------------------------------------------------------------------------------------
# random_fold_in


def random_fold_in(keys, msgs, impl: str | None = None):
    """Key data ``uint32[*batch, w]`` with the uint32 ``msgs[*batch]`` folded in (``impl`` as
    for ``random_split``)."""
    params = {} if impl is None else {"impl": impl}
    return random_fold_in_p.bind(keys, msgs, **params)


def _random_fold_in_abstract_eval(keys, msgs, **params):
    _check_keys("random_fold_in", keys)
    if msgs.dtype != _U32:
        raise TypeError(f"random_fold_in: data must have dtype uint32, got {msgs.dtype.name}")
    if tuple(msgs.shape) != tuple(keys.shape[:-1]):
        raise TypeError(
            f"random_fold_in: data of shape {tuple(msgs.shape)} does not match the key batch "
            f"shape {tuple(keys.shape[:-1])}"
        )
    return ShapedArray(keys.shape, _U32)


def _random_fold_in_vmap(axis_data, vals, dims, **params):
    keys, msgs = vals
    dk, dm = dims
    keys = _batch_to_front(keys, dk)
    msgs = _batch_to_front(msgs, dm)
    if dm is None and keys.shape[-1] == 4:
        from spmd._src.lax import rng_bit_generator as rbg

        if rbg._rbg_impl(params.get("impl")) == "unsafe_rbg":
            # unsafe_rbg XORs each key with bits drawn from the message alone: an unbatched
            # message draws them once for all keys (as JAX), folded into a zero key here.
            zero = _shape.full((*msgs.shape, 4), 0, _U32)
            bits = random_fold_in_p.bind(zero, msgs, **params)
            bits = _shape.broadcast_in_dim(bits, keys.shape, tuple(range(1, len(keys.shape))))
            return _ew.bitwise_xor(keys, bits), 0
    if dk is None:
        keys = _shape.broadcast(keys, (axis_data.size,))
    if dm is None:
        msgs = _shape.broadcast(msgs, (axis_data.size,))
    return random_fold_in_p.bind(keys, msgs, **params), 0


random_fold_in_p = core.Primitive("random_fold_in")
random_fold_in_p.def_impl(random_fold_in_kernel)
random_fold_in_p.def_abstract_eval(_random_fold_in_abstract_eval)
batching.primitive_batchers[random_fold_in_p] = _random_fold_in_vmap
sharding_rules.sharding_rules[random_fold_in_p] = lambda specs, avals, **_: (
    _key_batch(specs, avals) + (None,)
)
defjvp_zero(random_fold_in_p)


# ---------------------------------------------------------------------------------------------
# XLA CPU's float32 arithmetic, emulated in NumPy


@functools.cache
def _c(bits: int) -> np.float32:
    """The float32 with the given bit pattern (the constants XLA's code generator emits)."""
    return np.uint32(bits).view(_F32)


_TINY32 = np.finfo(_F32).tiny
_NAN32 = _c(0xFFFFFFFF)  # the NaN XLA's log returns


_TIE_MASK = np.uint64(0x1FFFFFFF)
_TIE = np.uint64(0x10000000)


def fma32(a, b, c) -> np.ndarray:
    """``a * b + c`` rounded once to float32 (an FMA instruction's result)."""
    p = np.multiply(a, b, dtype=np.float64)  # exact: 24-bit times 24-bit significands
    r = np.add(p, c, dtype=np.float64)
    out = r.astype(_F32)
    # Rounding to float64 and then to float32 differs from rounding once only where r lands
    # exactly halfway between two float32 values; there the exact sum decides.
    tie = (r.view(np.uint64) & _TIE_MASK) == _TIE
    if tie.any():
        out = _fix_ties(p, r, c, out, tie)
    return out


def _fix_ties(p, r, c, out, tie):
    # Sums of two float32 values are exact in float64 and often land on a tie: only the few
    # tie elements are looked at again, and only the inexact ones among them are changed.
    shape = np.shape(r)

    def at(v, idx):
        # The tie elements of v broadcast to r's shape, without materializing the broadcast
        # (a scalar coefficient would otherwise be copied out to the block's size).
        v = np.asarray(v)
        if v.shape == shape:
            return v.reshape(-1)[idx]
        if v.size == 1:
            return np.full(idx.shape, v.reshape(-1)[0], v.dtype)
        return np.broadcast_to(v, shape)[np.unravel_index(idx, shape)]

    idx = np.flatnonzero(tie)
    pb, cb, rb = at(p, idx), at(c, idx).astype(np.float64), np.reshape(r, -1)[idx]
    bb = rb - pb
    err = (pb - (rb - bb)) + (cb - bb)  # exact: p + c == r + err (TwoSum)
    inexact = err != 0
    if not inexact.any():
        return out  # exact ties: the cast rounded them to even, as a single rounding does
    idx, rb, err = idx[inexact], rb[inexact], err[inexact]
    out = np.array(out, _F32).reshape(-1)
    o = out[idx]
    # The exact sum lies on err's side of the tie r: o is right if it is on that side too, else
    # its neighbour on that side is.
    wrong = (o.astype(np.float64) > rb) != (err > 0)
    toward = np.where(err > 0, _F32(np.inf), _F32(-np.inf))
    out[idx] = np.where(wrong, np.nextafter(o, toward), o)
    return out.reshape(shape)


def log_f32(x) -> np.ndarray:
    """XLA CPU's float32 ``log`` (Cephes-style: exponent, mantissa in [sqrt(1/2), sqrt(2)),
    degree-8 polynomial with fused multiply-adds)."""
    x = np.asarray(x, _F32)
    xm = np.maximum(x, _TINY32)
    bits = xm.view(np.uint32)
    e = ((bits >> np.uint32(23)).astype(np.int32) - 127).astype(_F32) + _F32(1)
    m = ((bits & np.uint32(0x807FFFFF)) | np.uint32(0x3F000000)).view(_F32)
    small = m < _c(0x3F3504F3)
    e = e - np.where(small, _F32(1), _F32(0))
    r = (m + _F32(-1)) + np.where(small, m, _F32(0))
    r2 = r * r
    r3 = r2 * r
    # fma32 computes in float64: the operands used several times are widened once.
    r64, r3_64 = r.astype(np.float64), r3.astype(np.float64)
    p1 = fma32(fma32(r64, _c(0x3D9021BB), _c(0xBDEBD1B8)), r64, _c(0x3DEF251A))
    p2 = fma32(fma32(r64, _c(0xBDFE5D4F), _c(0x3E11E9BF)), r64, _c(0xBE2AAE50))
    p3 = fma32(fma32(r64, _c(0x3E4CCEAC), _c(0xBE7FFFFC)), r64, _c(0x3EAAAAAA))
    q = fma32(fma32(p1, r3_64, p2), r3_64, p3)
    y = fma32(q, r3_64, e * _c(0xB95E8083))
    # The last two fused multiply-adds have exact float32 products (r2 / 2 is normal: |r| is 0
    # or at least 2**-24; e has at most 8 bits and 0x3F318000 9), so they round once as
    # float32 sums do.
    y = (r - r2 * _F32(0.5)) + y
    y = e * _c(0x3F318000) + y
    y = np.where(x == _F32(np.inf), _F32(np.inf), y)
    y = np.where(x == 0, _F32(-np.inf), y)
    return np.where((x < 0) | np.isnan(x), _NAN32, y).astype(_F32)


_LOG1P_DEN = (0x417101AD, 0x42A6185B, 0x435DC32D, 0x439A8CA3, 0x43586D8A, 0x42707982)
_LOG1P_NUM = (0x3EFF40C5, 0x40D284FA, 0x41EF4B9C, 0x4273CC76, 0x426473AD, 0x41A05101)


def log1p_f32(x) -> np.ndarray:
    """XLA CPU's float32 ``log1p``: a Cephes rational approximation for |x| < sqrt(2) - 1,
    ``log(1 + x)`` elsewhere."""
    x = np.asarray(x, _F32)
    if x.ndim != 1:
        return log1p_f32(x.reshape(-1)).reshape(x.shape)
    small = np.abs(x) < _c(0x3ED413CD)
    if small.all():
        return _log1p_small(x)
    if not small.any():
        return log_f32(x + _F32(1))
    # Each branch on its own elements only: XLA computes both and selects, with the same bits.
    out = np.empty_like(x)
    out[small] = _log1p_small(x[small])
    large = ~small
    out[large] = log_f32(x[large] + _F32(1))
    return out


def _log1p_small(x: np.ndarray) -> np.ndarray:
    x2 = x * x
    x64 = x.astype(np.float64)  # widened once for the two Horner chains' fma32s
    den = np.ones_like(x)
    for h in _LOG1P_DEN:
        den = fma32(den, x64, _c(h))
    num = np.full_like(x, _F32(4.527e-05))
    for h in _LOG1P_NUM:
        num = fma32(num, x64, _c(h))
    return (x + fma32(x2, _F32(-0.5), (x * x2) * (num / den))).astype(_F32)


_ERF_INV_LT5 = np.array(
    [2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
     -0.00125372503, -0.00417768164, 0.246640727, 1.50140941], _F32,
)  # fmt: skip
_ERF_INV_GE5 = np.array(
    [-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
     -0.0076224613, 0.00943887047, 1.00167406, 2.83297682], _F32,
)  # fmt: skip


def erf_inv_f32(x) -> np.ndarray:
    """XLA's float32 ``erf_inv`` (Giles' single-precision polynomials in ``w = -log1p(-x*x)``)
    with XLA CPU's log1p and fused multiply-adds."""
    x = np.asarray(x, _F32)
    if x.ndim != 1:
        return erf_inv_f32(x.reshape(-1)).reshape(x.shape)
    nl = log1p_f32(-(x * x))  # -w
    lt = nl > _F32(-5)
    # |x| < 0.9966 (w < 5) for all but a few elements: evaluate that polynomial everywhere and
    # redo the tail elements with the other one (XLA evaluates both and selects).
    p = _erf_inv_poly(_F32(-2.5) - nl, _ERF_INV_LT5)
    if not lt.all():
        ge = ~lt
        p[ge] = _erf_inv_poly(np.sqrt(-nl[ge]) - _F32(3), _ERF_INV_GE5)
    p = np.where(np.abs(x) == 1, _F32(np.inf), p)
    return (x * p).astype(_F32)


def _erf_inv_poly(z: np.ndarray, coefs: np.ndarray) -> np.ndarray:
    p = np.full_like(z, coefs[0])
    z64 = z.astype(np.float64)
    for c in coefs[1:]:
        p = fma32(p, z64, c)
    return p


_ERF_P = (0x3D50B6EB, 0x3E3DA740, 0x3F906EBA)
_ERF_Q = (0x3A856D28, 0x3C6687D4, 0x3DE34C21, 0x3EFEB44A, 0x3F800000)


def erf_f32(x) -> np.ndarray:
    """XLA CPU's float32 ``erf``: a rational approximation, clamped to +-3.744 (where it is
    +-1 in float32). This is the variant XLA emits for scalar operands; its vectorized variant
    clamps at 3.8326 instead, so results differ in that band only."""
    x = np.asarray(x, _F32)
    big = np.abs(x) >= _c(0x406F9C68)
    xc = np.minimum(np.maximum(x, _c(0xC06F9C68)), _c(0x406F9C68))
    x2 = xc * xc
    x2w = x2.astype(np.float64)
    p = fma32(x2w, _c(0x39702D51), _c(0x3B5F5DA2))
    for h in _ERF_P:
        p = fma32(p, x2w, _c(h))
    q = fma32(x2w, _c(0xB3FD3906), _c(0x37C588DF))
    for h in _ERF_Q:
        q = fma32(q, x2w, _c(h))
    return np.where(big, np.copysign(_F32(1), x), (xc * p) / q).astype(_F32)


# Unary kernels run over blocks of this many elements: their few hundred NumPy passes then stay
# in cache, and temporaries stay small (big ones cost page faults on every allocation).
_BLOCK = 8192


def _blockwise(kernel):
    def run(x):
        x = np.asarray(x)
        if x.size <= _BLOCK:
            return kernel(x)
        flat = x.reshape(-1)
        out = np.empty(flat.shape, _F32)
        for i in range(0, flat.size, _BLOCK):
            out[i : i + _BLOCK] = kernel(flat[i : i + _BLOCK])
        return out.reshape(x.shape)

    return run


def _via_f32(kernel, f64_kernel):
    """The NumPy kernel of an ``xla_*`` primitive: float32 kernel for float32 (and, through
    float32, for narrower floats), ``f64_kernel`` for float64."""

    def impl(*args):
        dt = np.result_type(*args)
        if dt == np.float64:
            return np.asarray(f64_kernel(*args), np.float64)
        if dt == _F32:
            return kernel(*args)
        return kernel(*(np.asarray(a).astype(_F32) for a in args)).astype(dt)

    return impl


def _skip_ones(kernel):
    """``kernel`` (a float32 ``log``) with the elements exactly 1 left out when they are at
    least a quarter of the array: their log is +0 exactly. The counting samplers' loops set the
    uniforms of their finished lanes to 1, and after a few iterations most lanes are finished."""

    def run(x):
        x = np.asarray(x)
        if x.size < 64:
            return kernel(x)
        ones = x == _F32(1)
        n_ones = int(np.count_nonzero(ones))
        if 4 * n_ones < x.size:
            return kernel(x)
        out = np.zeros(x.shape, _F32)
        if n_ones < x.size:
            rest = ~ones
            out[rest] = kernel(x[rest])
        return out

    return run


def _xla_unop(name: str, kernel, f64_kernel, outer=None) -> core.Primitive:
    prim = core.Primitive(name)
    run = _blockwise(kernel)
    prim.def_impl(_via_f32(run if outer is None else outer(run), f64_kernel))

    def abstract_eval(x):
        check_dtype_kind(name, float_dtypes, x)
        return ShapedArray(x.shape, x.dtype, x.weak_type)

    prim.def_abstract_eval(abstract_eval)
    defvectorized(prim)
    return prim


def _const(x, v):
    return core.make_concrete(np.asarray(v, dtypes.dtype(x)), False)


# ---------------------------------------------------------------------------------------------
# xla_log


def xla_log(x):
    """Natural logarithm, computed as XLA CPU computes it (bit-exact in float32)."""
    return xla_log_p.bind(x)


xla_log_p = _xla_unop("xla_log", log_f32, np.log, outer=_skip_ones)
defjvp(xla_log_p, lambda g, x: _ew.div(g, x))


# ---------------------------------------------------------------------------------------------
# xla_log1p


def xla_log1p(x):
    """``log(1 + x)``, computed as XLA CPU computes it (bit-exact in float32)."""
    return xla_log1p_p.bind(x)


xla_log1p_p = _xla_unop("xla_log1p", log1p_f32, np.log1p)
defjvp(xla_log1p_p, lambda g, x: _ew.div(g, _ew.add(x, _const(x, 1))))


# ---------------------------------------------------------------------------------------------
# xla_erf


def xla_erf(x):
    """The error function, computed as XLA CPU computes it (bit-exact in float32)."""
    return xla_erf_p.bind(x)


xla_erf_p = _xla_unop("xla_erf", erf_f32, _ew.erf_p.impl)
defjvp(
    xla_erf_p,
    lambda g, x: _ew.mul(
        _const(x, 2 / math.sqrt(math.pi)), _ew.mul(g, _ew.exp(_ew.neg(_ew.square(x))))
    ),
)


# ---------------------------------------------------------------------------------------------
# xla_erf_inv


def xla_erf_inv(x):
    """The inverse error function, computed as XLA computes it (bit-exact in float32)."""
    return xla_erf_inv_p.bind(x)


xla_erf_inv_p = _xla_unop("xla_erf_inv", erf_inv_f32, _ew.erf_inv_p.impl)
defjvp2(
    xla_erf_inv_p,
    lambda g, ans, x: _ew.mul(
        _const(x, math.sqrt(math.pi) / 2), _ew.mul(g, _ew.exp(_ew.square(ans)))
    ),
)


# ---------------------------------------------------------------------------------------------
# xla_fma


def xla_fma(a, b, c):
    """``a * b + c`` with one rounding, as XLA CPU computes a multiply feeding an add in
    float32 (LLVM contracts them into an FMA instruction). Operands share a float dtype and
    broadcast like lax's n-ary elementwise operations; float64 rounds twice."""
    return xla_fma_p.bind(a, b, c)


def _xla_fma_abstract_eval(a, b, c):
    check_dtype_kind("xla_fma", float_dtypes, a, b, c)
    if not a.dtype == b.dtype == c.dtype:
        raise TypeError(
            f"xla_fma requires arguments to have the same dtypes, got "
            f"{a.dtype.name}, {b.dtype.name}, {c.dtype.name}"
        )
    shape = broadcasting_shape("xla_fma", a.shape, b.shape, c.shape)
    return ShapedArray(shape, a.dtype, a.weak_type and b.weak_type and c.weak_type)


def _fma_f64(a, b, c):
    return np.asarray(a) * np.asarray(b) + np.asarray(c)


def _xla_fma_impl(a, b, c):
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    return np.broadcast_to(_via_f32(fma32, _fma_f64)(a, b, c), shape).copy()


def _fma_tangent(which: int):
    """The tangent term of operand ``which``, broadcast to the result's shape."""

    def term(t, a, b, c):
        shape = broadcasting_shape("xla_fma", np.shape(a), np.shape(b), np.shape(c))
        x = _ew.mul(t, b) if which == 0 else _ew.mul(a, t) if which == 1 else t
        xs = tuple(np.shape(x))
        if xs == shape:
            return x
        dims = () if not xs else tuple(range(len(shape)))
        return _shape.broadcast_in_dim(x, shape, dims)

    return term


xla_fma_p = core.Primitive("xla_fma")
xla_fma_p.def_impl(_xla_fma_impl)
xla_fma_p.def_abstract_eval(_xla_fma_abstract_eval)
defbroadcasting(xla_fma_p)
defjvp(xla_fma_p, _fma_tangent(0), _fma_tangent(1), _fma_tangent(2))


__all__ = [
    "UINT_DTYPES",
    "erf_f32",
    "erf_inv_f32",
    "fma32",
    "log1p_f32",
    "log_f32",
    "random_bits",
    "random_bits_kernel",
    "random_bits_p",
    "random_fold_in",
    "random_fold_in_kernel",
    "random_fold_in_p",
    "random_seed",
    "random_seed_kernel",
    "random_seed_p",
    "random_split",
    "random_split_kernel",
    "random_split_p",
    "threefry2x32",
    "threefry2x32_kernel",
    "threefry2x32_p",
    "xla_erf",
    "xla_erf_inv",
    "xla_erf_inv_p",
    "xla_erf_p",
    "xla_fma",
    "xla_fma_p",
    "xla_log",
    "xla_log1p",
    "xla_log1p_p",
    "xla_log_p",
]
