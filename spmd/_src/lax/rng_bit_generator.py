"""``rng_bit_generator``: XLA's bit generator (a key in, a new key and bits out), computing what
XLA's CPU backend computes, bit for bit; and ``rng_uniform``, XLA's stateful uniform numbers.

The key is ``uint32[4]`` (or ``uint64[2]`` with x64): two 64-bit words, the first little-endian
from ``key[0:2]``, the second from ``key[2:4]``. The first word is the cipher key and never
changes; the second is a counter that the call advances by the number of blocks it hashed, so
that calling again with the returned key gives fresh bits.

- Threefry (``RNG_THREE_FRY``): Threefry-2x32 (20 rounds) of 64-bit counters ``counter + i``
  split into (low, high) words. 32-bit output hashes half as many counters as elements: the
  shape is halved along its first even dimension (else its largest), and the two output words
  of counter ``i`` fill the neighbouring elements ``2i`` and ``2i + 1`` along that dimension.
  64-bit output hashes one counter per element and joins the words (low first).
- Philox (``RNG_PHILOX``, and ``RNG_DEFAULT`` on CPU): Philox-4x32 (10 rounds) of 128-bit
  counters ``counter + i`` (the high 64 bits start as the key word), each giving four 32-bit
  words that fill four consecutive elements (two 64-bit elements for 64-bit output, low word
  first).
- 8- and 16-bit output is the 32-bit output truncated, as XLA does.

Under ``vmap`` over keys this follows JAX's batching rule, which is not one generator per key:
the first key's generator fills the whole batch of outputs and only that key is advanced.

>>> new_key, bits = rng_bit_generator(np.array([1, 2, 3, 4], np.uint32), (3,))
>>> new_key
Array([1, 2, 4, 4], dtype=uint32)
"""

from __future__ import annotations

import enum
import math
import operator
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src.config import config
from spmd._src.core import ShapedArray
from spmd._src.interpreters import batching, sharding_rules
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.indexing import slicing
from spmd._src.lax.random_bits import threefry2x32_kernel
from spmd._src.lax.rules import defjvp_zero, moveaxis

_U32 = np.dtype(np.uint32)
_U64 = np.dtype(np.uint64)
_UINTS = tuple(np.dtype(t) for t in (np.uint8, np.uint16, np.uint32, np.uint64))


class RandomAlgorithm(enum.IntEnum):
    """The generator ``rng_bit_generator`` runs (``RNG_DEFAULT`` is Philox on CPU)."""

    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self) -> str:  # jaxprs print the name, as JAX's do
        return self.name


# ---------------------------------------------------------------------------------------------
# NumPy kernels

_PHILOX_MUL = (np.uint64(0xD2511F53), np.uint64(0xCD9E8D57))
_PHILOX_BUMP = (np.uint32(0x9E3779B9), np.uint32(0xBB67AE85))
_LOW = np.uint64(0xFFFFFFFF)
_32 = np.uint64(32)


def _words(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) uint32 words of uint64 values."""
    return (x & _LOW).astype(_U32), (x >> _32).astype(_U32)


def _join(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return lo.astype(_U64) | (hi.astype(_U64) << _32)


def _threefry_32(key: np.uint64, counter: np.uint64, shape: tuple[int, ...]):
    """32-bit Threefry output of ``shape`` and the number of counters it used."""
    if not shape:
        out, used = _threefry_32(key, counter, (1,))
        return out.reshape(()), used
    evens = [i for i, d in enumerate(shape) if d % 2 == 0]
    dim = evens[0] if evens else int(np.argmax(shape))
    half = (*shape[:dim], -(-shape[dim] // 2), *shape[dim + 1 :])
    n = math.prod(half)
    ctr_lo, ctr_hi = _words(counter + np.arange(n, dtype=_U64))
    k_lo, k_hi = _words(np.asarray(key, _U64))
    y0, y1 = threefry2x32_kernel(k_lo, k_hi, ctr_lo, ctr_hi)
    # The two words of a counter sit next to each other along the halved dimension.
    both = np.stack([y0.reshape(half), y1.reshape(half)], axis=dim + 1)
    full = both.reshape(*shape[:dim], 2 * half[dim], *shape[dim + 1 :])
    return full[(slice(None),) * dim + (slice(0, shape[dim]),)], n


def _threefry_64(key: np.uint64, counter: np.uint64, shape: tuple[int, ...]):
    n = math.prod(shape)
    ctr_lo, ctr_hi = _words(counter + np.arange(n, dtype=_U64))
    k_lo, k_hi = _words(np.asarray(key, _U64))
    y0, y1 = threefry2x32_kernel(k_lo, k_hi, ctr_lo, ctr_hi)
    return _join(y0, y1).reshape(shape), n


def _philox_blocks(key: np.uint64, counter: np.uint64, n: int, high=None) -> list[np.ndarray]:
    """Philox-4x32-10 of the 128-bit counters ``counter + i`` (i < n): four uint32[n]. With a
    two-word key XLA takes the 128-bit counter as the key words reversed: the cipher key is
    also the counter's high half."""
    low = counter + np.arange(n, dtype=_U64)
    high = key if high is None else high  # rng_uniform's counters have their own high half
    high = high + (low < counter).astype(_U64)  # with the carry out of the low 64 bits
    x = [*_words(low), *_words(high)]
    k0, k1 = (np.uint32(w) for w in _words(np.asarray(key, _U64)))
    for _ in range(10):
        p0 = x[0].astype(_U64) * _PHILOX_MUL[0]
        p1 = x[2].astype(_U64) * _PHILOX_MUL[1]
        lo0, hi0 = _words(p0)
        lo1, hi1 = _words(p1)
        x = [hi1 ^ x[1] ^ k0, lo1, hi0 ^ x[3] ^ k1, lo0]
        k0 = np.uint32((int(k0) + int(_PHILOX_BUMP[0])) & 0xFFFFFFFF)
        k1 = np.uint32((int(k1) + int(_PHILOX_BUMP[1])) & 0xFFFFFFFF)
    return x


def _philox_32(key: np.uint64, counter: np.uint64, shape: tuple[int, ...], high=None):
    size = math.prod(shape)
    n = -(-size // 4)
    words = np.stack(_philox_blocks(key, counter, n, high), axis=1).reshape(-1)
    return words[:size].reshape(shape), n


def _philox_64(key: np.uint64, counter: np.uint64, shape: tuple[int, ...], high=None):
    size = math.prod(shape)
    n = -(-size // 2)
    x = _philox_blocks(key, counter, n, high)
    words = np.stack([_join(x[0], x[1]), _join(x[2], x[3])], axis=1).reshape(-1)
    return words[:size].reshape(shape), n


_GENERATORS = {
    RandomAlgorithm.RNG_THREE_FRY: (_threefry_32, _threefry_64),
    RandomAlgorithm.RNG_PHILOX: (_philox_32, _philox_64),
    RandomAlgorithm.RNG_DEFAULT: (_philox_32, _philox_64),
}


def rng_bit_generator_kernel(key, shape, dtype, algorithm):
    """(new key, bits) for one key: ``uint32[4]`` or ``uint64[2]``."""
    key = np.asarray(key)
    wide = key.dtype == _U64
    words = key if wide else _join(key[0::2], key[1::2])
    gen32, gen64 = _GENERATORS[RandomAlgorithm(algorithm)]
    with np.errstate(over="ignore"):
        if dtype.itemsize == 8:
            bits, used = gen64(words[0], words[1], shape)
        else:
            bits, used = gen32(words[0], words[1], shape)
            bits = bits.astype(dtype)
        counter = words[1] + np.uint64(used)
    if wide:
        new_key = np.array([words[0], counter], _U64)
    else:
        new_key = np.concatenate([key[:2], np.stack(_words(counter))])
    return new_key, np.array(bits, dtype)


# ---------------------------------------------------------------------------------------------
# JAX's 'rbg' and 'unsafe_rbg' PRNGs on uint32[..., 4] key data (the kernels of random_bits'
# primitives for such keys). Leading dimensions are a batch of keys, run as JAX runs them: one
# key at a time under vmap, so a batched rng_bit_generator call follows its batching rule.


def _first_key_bits(keys: np.ndarray, shape: tuple[int, ...], dtype) -> np.ndarray:
    """Bits ``[*batch, *shape]`` as vmap over each batch dimension gives them: the first key
    generates them all."""
    batch = keys.shape[:-1]
    return rng_bit_generator_kernel(
        keys.reshape(-1, 4)[0] if math.prod(batch) else np.zeros(4, _U32),
        (*batch, *shape),
        np.dtype(dtype),
        RandomAlgorithm.RNG_DEFAULT,
    )[1]


def _rbg_impl(impl: str | None) -> str:
    if impl is None:
        impl = config.jax_default_prng_impl
    return impl if impl in ("rbg", "unsafe_rbg") else "rbg"


def rbg_bits_kernel(keys: np.ndarray, bit_width: int, shape: tuple[int, ...]) -> np.ndarray:
    """Both rbg PRNGs' bits: ``rng_bit_generator``'s, the new key dropped."""
    return _first_key_bits(keys, shape, f"uint{bit_width}")


def rbg_split_kernel(keys: np.ndarray, shape: tuple[int, ...], impl: str | None) -> np.ndarray:
    """'rbg': each half of the key split as a threefry key (the new keys' halves are the
    halves' splits); 'unsafe_rbg': every tenth row of ``10 * n`` generated 4-word rows."""
    from spmd._src.lax.random_bits import random_split_kernel

    batch = keys.shape[:-1]
    if _rbg_impl(impl) == "rbg":
        halves = random_split_kernel(keys.reshape(*batch, 2, 2), shape)  # [*b, 2, *shape, 2]
        return np.moveaxis(halves, len(batch), -2).reshape(*batch, *shape, 4)
    n = math.prod(shape)
    rows = _first_key_bits(keys, (10 * n, 4), _U32)
    return rows[..., ::10, :].reshape(*batch, *shape, 4)


def rbg_fold_in_kernel(keys: np.ndarray, msgs: np.ndarray, impl: str | None) -> np.ndarray:
    """'rbg': each half folded as a threefry key; 'unsafe_rbg': the key XOR the last of ten
    rows generated from the message as a seed (``[0, msg, 0, msg]``)."""
    from spmd._src.lax.random_bits import random_fold_in_kernel

    batch = keys.shape[:-1]
    msgs = np.asarray(msgs, _U32)
    if _rbg_impl(impl) == "rbg":
        halves = keys.reshape(*batch, 2, 2)
        return random_fold_in_kernel(halves, msgs[..., None]).reshape(keys.shape)
    zero = np.zeros_like(msgs)
    seeds = np.stack([zero, msgs, zero, msgs], axis=-1)
    return keys ^ _first_key_bits(seeds, (10, 4), _U32)[..., -1, :]


# ---------------------------------------------------------------------------------------------
# The primitive


def rng_bit_generator(
    key: Any,
    shape: Sequence[int],
    dtype: Any = np.uint32,
    algorithm: RandomAlgorithm = RandomAlgorithm.RNG_DEFAULT,
    *,
    out_sharding: Any = None,
):
    """Random bits of ``shape`` and unsigned ``dtype`` from ``key`` (``uint32[4]``, or
    ``uint64[2]`` with x64) by XLA's ``algorithm``, and the key advanced past them.

    Returns ``(new_key, bits)``. The generators are XLA's, not ``jax.random``'s: the same key
    gives the same bits here and in JAX on CPU, but other backends may pick another default.

    >>> key = np.array([1, 2, 3, 4], np.uint32)
    >>> rng_bit_generator(key, (2,), algorithm=RandomAlgorithm.RNG_THREE_FRY)[1]
    Array([1576285164, 2249660814], dtype=uint32)
    """
    if not core.valid_jaxtype(key):
        raise TypeError(
            "Error interpreting argument to rng_bit_generator as a JAX value. The problematic "
            f"value is of type {type(key)} and was passed to rng_bit_generator at position 0."
        )
    shape = _shape_param(shape)
    dt = np.dtype(dtypes.dtype(dtype))
    if dt not in _UINTS:
        raise TypeError(f"rng_bit_generator: unsupported dtype {dt.name}")
    if dt == _U64 and not config.jax_enable_x64:
        warnings.warn(
            "Explicitly requested dtype uint64 requested in rng_bit_generator is not available, "
            "and will be truncated to dtype uint32. To enable more dtypes, set the "
            "jax_enable_x64 configuration option.",
            stacklevel=2,
        )
        dt = _U32
    if not isinstance(algorithm, RandomAlgorithm):
        # JAX asserts on the type of the algorithm.
        raise AssertionError(
            f"rng_bit_generator: algorithm must be a lax.RandomAlgorithm, got {algorithm!r}"
        )
    new_key, bits = rng_bit_generator_p.bind(
        key, shape=shape, dtype=dt, algorithm=algorithm, out_sharding=out_sharding
    )
    return new_key, bits


def _shape_param(shape: Any, name: str = "rng_bit_generator") -> tuple[int, ...]:
    items = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
    try:
        out = tuple(operator.index(d) for d in items)
    except TypeError:
        raise TypeError(f"{name}: shape must be a sequence of integers, got {shape!r}") from None
    if any(d < 0 for d in out):
        raise ValueError(f"{name}: shape must have nonnegative dimensions, got {out}")
    return out


def _check_key_aval(key: ShapedArray) -> None:
    shape, dt = tuple(key.shape), key.dtype
    if not ((shape == (4,) and dt == _U32) or (shape == (2,) and dt == _U64)):
        # JAX asserts on the key's type when lowering (AssertionError, as here).
        raise AssertionError(
            f"rng_bit_generator: key must be uint32[4] (or uint64[2] with x64), got "
            f"{dt.name}{list(shape)}"
        )


def _rng_bit_generator_impl(key, *, shape, dtype, algorithm, out_sharding):
    return list(rng_bit_generator_kernel(key, shape, dtype, algorithm))


def _rng_bit_generator_abstract_eval(key, *, shape, dtype, algorithm, out_sharding):
    _check_key_aval(key)
    return [ShapedArray(key.shape, key.dtype), ShapedArray(shape, dtype)]


def _rng_bit_generator_vmap(axis_data, vals, dims, *, shape, **params):
    """JAX's rule: the first key's generator makes the whole batch of bits, and only that key
    is advanced (the other keys come back unchanged)."""
    (keys,), (d,) = vals, dims
    if d is None:
        return rng_bit_generator_p.bind(keys, shape=shape, **params), [None, None]
    keys = moveaxis(keys, d, 0)
    first = lax_shape.squeeze(lax_shape.slice(keys, (0, 0), (1, keys.shape[1])), (0,))
    new_key, bits = rng_bit_generator_p.bind(first, shape=(keys.shape[0], *shape), **params)
    new_keys = slicing.dynamic_update_slice(
        keys, lax_shape.reshape(new_key, (1, keys.shape[1])), (0, 0)
    )
    return [new_keys, bits], [0, 0]


def _rng_bit_generator_sharding(specs, avals, *, shape, out_sharding, **params):
    # Every element depends on the whole key: the bits are replicated unless asked otherwise.
    bits = tuple(out_sharding.spec) if out_sharding is not None else ()
    bits = bits + (None,) * (len(shape) - len(bits))
    return [specs[0], bits]


rng_bit_generator_p = core.Primitive("rng_bit_generator", multiple_results=True)
rng_bit_generator_p.def_impl(_rng_bit_generator_impl)
rng_bit_generator_p.def_abstract_eval(_rng_bit_generator_abstract_eval)
batching.primitive_batchers[rng_bit_generator_p] = _rng_bit_generator_vmap
# Integer outputs: no derivative (a zero tangent, as for the other random primitives).
defjvp_zero(rng_bit_generator_p)
sharding_rules.sharding_rules[rng_bit_generator_p] = _rng_bit_generator_sharding


# ---------------------------------------------------------------------------------------------
# rng_uniform: XLA's stateful uniform numbers

# XLA's CPU runtime keeps a Philox counter per compiled rng op, starting at 0x7012395 and
# advanced by the 32-bit words each call draws, under a cipher key fixed when the op is compiled
# from the process's compile history (module ids and a global sequence). spmd keeps one stream
# under the key JAX's first compiled rng op of a process gets: a program's first rng_uniform
# gives JAX's numbers (any dtype, bounds and shape, eager or jitted); later calls, for which JAX
# draws keys from its compile history, give other numbers than JAX's.
_UNIFORM_KEY = np.uint64(0xBAA1723EBDE0C74F)
_UNIFORM_COUNTER_START = np.uint64(0x7012395)
_uniform_counter = [_UNIFORM_COUNTER_START]


def rng_uniform(a: Any, b: Any, shape: Sequence[int]):
    """Uniform numbers in ``[a, b)`` of ``shape`` and the scalars' dtype, from a stream that
    every call advances (XLA's stateful ``Rng`` op: not reproducible across programs in JAX
    either; use ``jax.random`` for reproducible numbers).

    >>> rng_uniform(0.0, 1.0, (2,)).shape
    (2,)
    """
    shape = tuple(shape)  # JAX's TypeError for a non-sequence
    av, bv = core.get_aval(a), core.get_aval(b)
    if av.dtype != bv.dtype:
        raise ValueError(
            f"Arguments to rng_uniform must have identical dtypes, got {av.dtype.name} and "
            f"{bv.dtype.name}."
        )
    if av.shape != () or bv.shape != ():
        raise ValueError(
            f"Arguments to rng_uniform must be scalars; got shapes {tuple(av.shape)} and "
            f"{tuple(bv.shape)}."
        )
    return rng_uniform_p.bind(a, b, shape=_shape_param(shape, "rng_uniform"))


def _uniform_kind(dt: np.dtype) -> str:
    if dt.kind == "f" or dt == dtypes.bfloat16:
        return "float"
    if dt.kind in "iu" and dt.itemsize >= 4:
        return "int"
    # XLA's CPU compiler aborts on narrower integers and bool, and rejects complex.
    raise TypeError(
        f"rng_uniform: dtype {dt.name} is not supported: XLA's CPU rng takes floating types and "
        "32- or 64-bit integers"
    )


def _rng_uniform_abstract_eval(a, b, *, shape):
    _uniform_kind(a.dtype)
    return ShapedArray(shape, a.dtype, a.weak_type and b.weak_type)


def _rng_uniform_impl(a, b, *, shape):
    dt = np.asarray(a).dtype
    wide = dt.itemsize == 8
    size = math.prod(shape)
    counter = _uniform_counter[0]
    with np.errstate(over="ignore"):
        _uniform_counter[0] = counter + np.uint64(size * (2 if wide else 1))
        gen = _philox_64 if wide else _philox_32
        bits = (
            gen(_UNIFORM_KEY, counter, (size,), _U64.type(0))[0]
            if size
            else np.zeros(0, _U64 if wide else _U32)
        )
        if _uniform_kind(dt) == "float":
            # Narrow floats are drawn in float32 and rounded, as XLA does.
            ft = np.dtype(np.float64 if wide else np.float32)
            nmant = 52 if wide else 23
            unit = (bits >> (bits.dtype.type(bits.dtype.itemsize * 8 - nmant))).astype(ft)
            unit = unit * ft.type(2.0**-nmant)
            lo, hi = ft.type(np.asarray(a, ft)), ft.type(np.asarray(b, ft))
            out = unit * (hi - lo) + lo
        else:
            # XLA's integer map: the remainder by the unsigned span, added back in two halves.
            ut = bits.dtype
            span = np.asarray(b).astype(dt).view(ut) - np.asarray(a).astype(dt).view(ut)
            dist = bits % span if span else bits
            half = dist >> ut.type(1)
            out = np.asarray(a).astype(dt) + half.view(dt) + (dist - half).view(dt)
    return np.asarray(out, dt).reshape(shape)


rng_uniform_p = core.Primitive("rng_uniform")
rng_uniform_p.def_impl(_rng_uniform_impl)
rng_uniform_p.def_abstract_eval(_rng_uniform_abstract_eval)
# No batching rule and no derivative, as in JAX (vmap and grad raise NotImplementedError).

__all__ = [
    "RandomAlgorithm",
    "rng_bit_generator",
    "rng_bit_generator_p",
    "rng_uniform",
    "rng_uniform_p",
]
