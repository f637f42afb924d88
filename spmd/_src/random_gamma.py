"""``spmd.random``'s gamma family and counting distributions, bit for bit as JAX 0.10 on CPU.

``gamma`` and ``loggamma`` sample with the ``random_gamma`` primitive: one key per element
(each key of the batch split into as many keys as it has elements), and for each element
Marsaglia and Tsang's rejection method, ``a < 1`` boosted to ``a + 1`` and corrected by
``u ** (1 / a)`` (in log space for ``loggamma``). Its kernel runs the rejection loops on NumPy
arrays of the elements still looping and computes as XLA does on CPU, so float32 values equal
JAX's bit for bit:

- ``c = (1/3) / sqrt(d)`` is ``(1/3) * rsqrt(d)`` (XLA's simplifier rewrites the division), and
  XLA's ``rsqrt`` is the processor's ``rsqrtss`` estimate refined by two Newton steps with fused
  multiply-adds. The estimate comes from a table indexed by the exponent's parity and the
  top 10 mantissa bits; ``_RSQRT_STEPS`` holds that table (measured on x86-64 with
  ``_mm_rsqrt_ss`` over every float32 in [1, 4); Intel's estimates, which are what JAX computes on
  the machines its goldens come from).
- ``pow`` is the C library's ``powf``; XLA runs with denormals flushed to zero, so the boosted
  samples and their products flush too.
- Multiplies that feed adds are fused where LLVM fuses them (``1 + x c``, ``1 - 0.0331 X^2``,
  ``X/2 + d (1 - V + log V)``).

The distributions built on gamma (``beta``, ``dirichlet``, ``chisquare``, ``f``, ``t``,
``generalized_normal``) follow JAX's compositions, with XLA's ``exp`` and ``pow`` and the
rewrites XLA's simplifier makes (``1 / (1 / p)`` is ``p``; ``(n / a) / (d / b)`` is
``(n b) / (a d)``; softmax multiplies by the reciprocal of a left-to-right sum).

The counting samplers (``poisson``, ``binomial``, ``multinomial``) are in
``spmd._src.random_counting``.

float16/bfloat16 and float64 samples are close to JAX's (a few ulps), not bit-exact: XLA keeps
some narrow-float intermediates in float32, and its float64 kernels are not reproduced.

>>> gamma(PRNGKey(0), 2.0, (3,))
Array([1.5897877, 1.7599413, 1.1290071], dtype=float32)
"""

from __future__ import annotations

import base64
import functools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src.api import jit
from spmd._src.core import ShapedArray
from spmd._src.interpreters import batching
from spmd._src.lax import elementwise as lax
from spmd._src.lax import random_bits as rb
from spmd._src.lax import random_math as rm
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.lax import special
from spmd._src.lax.rules import bdim_at_front, defjvp2
from spmd._src.numpy import shape_ops as jnp_shape
from spmd._src.numpy import ufuncs as jnp_uf
from spmd._src.numpy.util import with_out_sharding
from spmd._src.random import (
    PRNGKey,  # noqa: F401  (doctest namespace)
    _broadcast_shapes,
    _check_safe_to_cast,
    _check_shape,
    _exp,
    _float_dtype,
    _pow,
    _shape_arg,
    normal,
    rademacher,
)
from spmd._src.random_keys import _check_key

_F32 = np.float32
_F64 = np.float64
_U32 = np.dtype(np.uint32)

# ---------------------------------------------------------------------------------------------
# XLA CPU's float32 rsqrt

# The rsqrtss estimate of x in [1, 2) (first 1024 entries) and [2, 4): the top 12 mantissa bits
# of a result in [0.5, 1). Entries fall by 1 to 4 from one to the next; each step is stored as
# 2 bits (fall - 1), four to a byte, lowest first, after the first entry of each half.
_RSQRT_FIRST = (4094, 1695)
_RSQRT_STEPS = (
    "/////v/v//vvv7+/v+/7vu+777677+7u7u66u+6667rrurquq6urq666qqu6qrqqqq6qqqqqqqqqqpqqqpqqmqqm"
    "aqqpppqampqapqZpmqZpmmaaZpqZZqaZmWlmZmZmZpmZWWaWWWaZZZZlmWVZlmVlWVZWlpWVlVVWVllllVVWZVVZ"
    "VVZVVlVZVVVWVVVVWVVVVVVVVVVVVVVVVFVVVVFVVVFVFVVVVBVVRVVRFVVRRRVVVFFFRRUVFRUVFRUVRUVRUVQU"
    "RVFRFEVRFEUURRFFUUQRRRFFFBFFFBFFRBERRUREFBERERFFRERERAQREREREURERBARQUQQEUQEkammmppqmpqm"
    "pmmapplmmmlmmpmZZmZmmZmZZWaZZZZllmVZlmVZWVZWVlZWVllllVVZlVVlVWVVVVZVVZVVVVVVVVVVVVVVRVVV"
    "VVFVVVRVVFVUFVVRFVVUUUUVVVRUVFRUVBQVRUVRVBRFURRFUURRFFFEUUQRRUQRUUQUERFFREREERERERERQURE"
    "RAQREUFEEBFEBBFEEEEEEQQRBBEEQQRBEARBEARBQBAEAUFAEBAEBAEBAQEBAQEBAQEEBBAQQAABBBBAAAQQAAEQ"
    "AAEQAAQAAUAAEAAQAEAAAAEABAAAAQAAAQAABAAAAAQAAAAAEAAAAAAAAAAAAAAAAAA="
)


@functools.cache
def _rsqrt_table() -> np.ndarray:
    packed = np.frombuffer(base64.b64decode(_RSQRT_STEPS), np.uint8)
    steps = np.stack([(packed >> s) & 3 for s in (0, 2, 4, 6)], -1).reshape(-1).astype(np.int64)
    halves = []
    for h, first in enumerate(_RSQRT_FIRST):
        falls = steps[h * 1023 : (h + 1) * 1023] + 1
        halves.append(first - np.concatenate([[0], np.cumsum(falls)]))
    return np.concatenate(halves).astype(_U32)


def rsqrt_estimate_f32(x) -> np.ndarray:
    """The ``rsqrtss`` estimate of ``1 / sqrt(x)`` for positive normal float32 ``x`` (12 bits)."""
    bits = np.asarray(x, _F32).view(_U32).astype(np.int64)
    e = ((bits >> 23) & 0xFF) - 127
    idx = ((e & 1) << 10) | ((bits >> 13) & 0x3FF)
    out = ((126 - (e >> 1)) << 23) | (_rsqrt_table()[idx].astype(np.int64) << 11)
    return out.astype(_U32).view(_F32)


def rsqrt_f32(x) -> np.ndarray:
    """XLA CPU's float32 ``rsqrt``: the estimate and two Newton steps ``y + (-y/2)(x y y - 1)``
    (``x y`` rounded, the rest fused). Denormal inputs count as 0 (XLA flushes them)."""
    x = np.asarray(x, _F32)
    with np.errstate(all="ignore"):
        y = rsqrt_estimate_f32(x)
        for _ in range(2):
            y = rb.fma32(y * _F32(-0.5), rb.fma32(x * y, y, _F32(-1)), y)
        y = np.where(x < np.finfo(_F32).tiny, _F32(np.inf), y)
        y = np.where(x == np.inf, _F32(0), y)
        y = np.where(x < 0, _DEFAULT_NAN, y)  # the processor's NaN for invalid operands
        return np.where(np.isnan(x), x, y).astype(_F32)


_DEFAULT_NAN = np.uint32(0xFFC00000).view(_F32)


def _ftz(x: np.ndarray) -> np.ndarray:
    """Denormal results flushed to (signed) zero, as XLA's CPU code runs."""
    return np.where(np.abs(x) < np.finfo(x.dtype).tiny, x * 0, x).astype(x.dtype)


# ---------------------------------------------------------------------------------------------
# The sampler's NumPy kernel


class _Arith:
    """XLA's elementwise float arithmetic in one dtype: float32 with XLA CPU's kernels and
    fused multiply-adds; float16 and bfloat16 computed in float32 and rounded after every
    operation (which also keeps LLVM from fusing); float64 with NumPy."""

    def __init__(self, dtype: np.dtype):
        self.dtype = dtype
        self.wide = dtype == _F64
        self.ct = _F64 if self.wide else _F32

    def r(self, x):
        x = np.asarray(x, self.ct)
        if self.dtype in (_F32, _F64):
            return x
        return x.astype(self.dtype).astype(self.ct)

    def const(self, v):
        return self.r(np.asarray(v, self.dtype))

    def mul(self, a, b):
        return self.r(np.multiply(a, b, dtype=self.ct))

    def add(self, a, b):
        return self.r(np.add(a, b, dtype=self.ct))

    def sub(self, a, b):
        return self.r(np.subtract(a, b, dtype=self.ct))

    def div(self, a, b):
        return self.r(np.divide(a, b, dtype=self.ct))

    def fma(self, a, b, c):
        if self.dtype == _F32:
            return rb.fma32(a, b, c)
        return self.add(self.mul(a, b), c)

    def _unary(self, f32, f64, x):
        return self.r(f64(x) if self.wide else f32(x))

    def log(self, x):
        return self._unary(rb.log_f32, np.log, x)

    def log1p(self, x):
        return self._unary(rb.log1p_f32, np.log1p, x)

    def erf_inv(self, x):
        return self._unary(rb.erf_inv_f32, lambda v: lax.erf_inv_p.impl(v), x)

    def rsqrt(self, x):
        return self._unary(rsqrt_f32, lambda v: 1 / np.sqrt(v), x)

    def pow(self, x, y):
        if self.wide:
            return np.power(x, y)
        return self.r(_ftz(rm.pow_f32(x, y)))

    # -- draws of shape () from a batch of keys ------------------------------------------
    def unit(self, keys):
        """uniform(key, (), dtype) for each key: floats in [0, 1)."""
        fi = dtypes.finfo(self.dtype)
        nbits, nmant = fi.bits, fi.nmant
        rng_bits = 8 if nmant < 8 else nbits
        uint = rb.UINT_DTYPES[nbits]
        b = rb.random_bits_kernel(keys, rng_bits, ()).astype(uint)
        b = (b >> uint.type(rng_bits - nmant)) | np.array(1.0, self.dtype).view(uint)
        return self.sub(b.view(self.dtype).astype(self.ct), 1)

    def normal(self, keys):
        """normal(key, (), dtype) for each key: sqrt(2) erf_inv(u), u uniform in (-1, 1)."""
        lo = np.nextafter(np.array(-1.0, self.dtype), np.array(0.0, self.dtype)).astype(self.ct)
        u = self.fma(self.unit(keys), self.sub(1, lo), lo)
        return self.mul(self.const(np.sqrt(2)), self.erf_inv(np.maximum(lo, u)))


def _split(keys: np.ndarray, n: int) -> np.ndarray:
    return rb.random_split_kernel(keys, (n,))


def _marsaglia_tsang(ar: _Arith, keys: np.ndarray, d: np.ndarray) -> np.ndarray:
    """``V`` of each element's accepted draw; ``keys`` are the loop's keys."""
    n = d.shape[0]
    one = ar.const(1)
    c = ar.mul(ar.const(1 / 3), ar.rsqrt(d))
    # The state before the first draw (X=0, V=1, U=2) is rejected by construction.
    X = np.zeros(n, ar.ct)
    V = np.ones(n, ar.ct)
    U = np.full(n, 2, ar.ct)
    live = np.arange(n)
    keys = keys.copy()
    while True:
        Xl, Vl, Ul, dl = X[live], V[live], U[live], d[live]
        squeeze = ar.fma(-ar.mul(Xl, Xl), ar.const(0.0331), one)
        bound = ar.fma(Xl, ar.const(0.5), ar.mul(dl, ar.add(ar.sub(one, Vl), ar.log(Vl))))
        with np.errstate(invalid="ignore"):
            reject = (Ul >= squeeze) & (ar.log(Ul) >= bound)
        live = live[reject]
        if not live.size:
            return V
        k3 = _split(keys[live], 3)
        keys[live] = k3[:, 0]
        x, v = _positive_v(ar, k3[:, 1], c[live])
        X[live] = ar.mul(x, x)
        V[live] = ar.mul(ar.mul(v, v), v)
        U[live] = ar.unit(k3[:, 2])


def _positive_v(ar: _Arith, keys: np.ndarray, c: np.ndarray):
    """Normal draws ``x`` until ``v = 1 + x c`` is positive (the loop starts at v = -1)."""
    m = keys.shape[0]
    x = np.zeros(m, ar.ct)
    v = np.full(m, -1, ar.ct)
    keys = keys.copy()
    live = np.arange(m)
    while True:
        with np.errstate(invalid="ignore"):
            live = live[v[live] <= 0]
        if not live.size:
            return x, v
        k2 = _split(keys[live], 2)
        keys[live] = k2[:, 0]
        xl = ar.normal(k2[:, 1])
        x[live] = xl
        v[live] = ar.fma(xl, c[live], ar.const(1))


def gamma_kernel(keys: np.ndarray, alpha: np.ndarray, log_space: bool, recip=None) -> np.ndarray:
    """One Gamma(alpha) sample (its log if ``log_space``) per key: ``keys`` ``uint32[n, 2]``,
    ``alpha`` a float ``[n]`` array; ``recip``, if given, is used for ``1 / alpha``."""
    dtype = np.dtype(alpha.dtype)
    ar = _Arith(dtype)
    alpha = np.asarray(alpha, ar.ct)
    one, zero = ar.const(1), ar.const(0)
    with np.errstate(all="ignore"):
        boost = alpha >= one
        a = np.where(boost, alpha, ar.add(alpha, one))
        d = ar.sub(a, ar.const(1 / 3))
        k2 = _split(keys, 2)
        V = _marsaglia_tsang(ar, k2[:, 0], d)
        inv = ar.div(one, alpha) if recip is None else np.asarray(recip, ar.ct)
        if log_space:
            # -exponential(): the two negations cancel.
            log_u = ar.log1p(-ar.unit(k2[:, 1]))
            log_boost = np.where(boost | (log_u == 0), zero, ar.mul(log_u, inv))
            out = ar.add(ar.add(ar.log(d), ar.log(V)), log_boost)
        else:
            u = ar.sub(one, ar.unit(k2[:, 1]))
            pw = np.where(boost, one, ar.pow(np.where(boost, one, u), inv))
            dv = ar.mul(d, V)
            out = ar.mul(dv, pw) if ar.wide else _ftz(ar.mul(_ftz(dv), pw))
    return np.asarray(out, ar.ct).astype(dtype)


# ---------------------------------------------------------------------------------------------
# random_gamma


def random_gamma(keys, a, recip=None, *, log_space: bool = False):
    """Gamma(a) samples (their logs if ``log_space``) of ``a``'s shape and float dtype, from key
    data ``uint32[*b, 2]`` whose batch shape ``b`` leads ``a``'s shape: each key is split into
    one key per element of its slice of ``a``.

    ``recip`` (spmd only; a's shape and dtype) stands for ``1 / a`` in the ``a < 1`` boost: where
    ``a`` is itself ``1 / p``, XLA simplifies ``1 / (1 / p)`` to ``p``, and so must we."""
    operands = (keys, a) if recip is None else (keys, a, recip)
    return random_gamma_p.bind(*operands, log_space=bool(log_space))


def _random_gamma_impl(keys, a, *recip, log_space):
    keys = np.asarray(keys)
    a = np.asarray(a)
    batch = keys.shape[:-1]
    per_key = math.prod(a.shape[len(batch) :])
    sub = _split(keys.reshape(-1, 2), per_key).reshape(-1, 2)
    r = np.asarray(recip[0]).reshape(-1) if recip else None
    return gamma_kernel(sub, a.reshape(-1), log_space, r).reshape(a.shape)


def _random_gamma_abstract_eval(keys, a, *recip, log_space):
    rb._check_keys("random_gamma", keys)
    if keys.shape[-1] == 4:
        # JAX draws rbg bits inside a vmapped rejection loop (the first key's generator feeds
        # every lane, finished ones too); spmd's loop draws for the live lanes only.
        raise NotImplementedError(
            "random_gamma: Gamma-family samplers (gamma, loggamma, beta, dirichlet, chisquare, "
            "f, t) with rbg keys are not implemented in spmd"
        )
    if not dtypes.issubdtype(a.dtype, np.floating):
        raise TypeError(f"random_gamma: a must have a float dtype, got {a.dtype.name}")
    batch = tuple(keys.shape[:-1])
    if tuple(a.shape[: len(batch)]) != batch:
        raise TypeError(
            f"random_gamma: the key batch shape {batch} must lead a's shape {tuple(a.shape)}"
        )
    if recip and (recip[0].shape, recip[0].dtype) != (a.shape, a.dtype):
        raise TypeError("random_gamma: recip must have a's shape and dtype")
    return ShapedArray(a.shape, a.dtype)


def _random_gamma_vmap(axis_data, vals, dims, *, log_space):
    vals = [bdim_at_front(v, d, axis_data.size) for v, d in zip(vals, dims)]
    return random_gamma_p.bind(*vals, log_space=log_space), 0


def _gamma_grad(sample, a, log_space):
    """d sample / d a at fixed quantile (of log(sample) for loggamma), as JAX computes it."""
    if not log_space:
        return special.random_gamma_grad(a, sample)
    # d log(s) = ds / s; exp(log s) may underflow to 0: JAX uses the smallest normal instead.
    s = rm.xla_exp(sample)
    tiny = lax_shape.full_like(s, dtypes.finfo(s.dtype).tiny)
    s = lax.select(lax.eq(s, lax_shape.full_like(s, 0)), tiny, s)
    return lax.div(special.random_gamma_grad(a, s), s)


def _random_gamma_jvp_a(t, ans, keys, a, *recip, log_space):
    return lax.mul(t, _gamma_grad(ans, a, log_space))


random_gamma_p = core.Primitive("random_gamma")
random_gamma_p.def_impl(_random_gamma_impl)
random_gamma_p.def_abstract_eval(_random_gamma_abstract_eval)
batching.primitive_batchers[random_gamma_p] = _random_gamma_vmap
defjvp2(random_gamma_p, None, _random_gamma_jvp_a, None)


# ---------------------------------------------------------------------------------------------
# gamma and loggamma


def _opt_shape(shape: Any, name: str) -> tuple[int, ...] | None:
    return None if shape is None else _shape_arg(shape, name)


def _gamma(k, a, shape, dtype, log_space=False, recip=None):
    if shape is None:
        shape = tuple(np.shape(a))
    else:
        _check_shape("gamma", shape, np.shape(a))
    a = lax.convert_element_type(a, dtype)
    if tuple(np.shape(a)) != tuple(shape):
        a = jnp_shape.broadcast_to(a, shape)
    if recip is not None:
        recip = jnp_shape.broadcast_to(lax.convert_element_type(recip, dtype), shape)
    return random_gamma(k, a, recip, log_space=log_space)


_gamma_jit = jit(_gamma, static_argnums=(2, 3, 4))


@with_out_sharding("random.gamma")
def gamma(key: Any, a: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Gamma(a, 1) samples (density ``x**(a-1) e**-x / Gamma(a)``) of ``shape`` (default:
    ``a``'s shape).

    >>> gamma(PRNGKey(1), jnp.array([0.5, 1.0, 4.0]))
    Array([0.02227679, 0.47469407, 6.423118  ], dtype=float32)
    """
    k, _ = _check_key("gamma", key)
    dt = _float_dtype("gamma", dtype)
    return _gamma_jit(k, a, _opt_shape(shape, "gamma"), dt, False)


@with_out_sharding("random.loggamma")
def loggamma(key: Any, a: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """The logs of Gamma(a, 1) samples, computed in log space (accurate for small ``a``, whose
    samples underflow); ``exp(loggamma(...))`` is close to ``gamma(...)`` with the same key."""
    k, _ = _check_key("loggamma", key)
    dt = _float_dtype("gamma", dtype)  # JAX's message names gamma here too
    return _gamma_jit(k, a, _opt_shape(shape, "loggamma"), dt, True)


# ---------------------------------------------------------------------------------------------
# Distributions built on gamma


def _sample_shape(name: str, shape: Any, *params: Any) -> tuple[int, ...]:
    """``shape`` checked against the parameters' shapes, or their broadcast shape."""
    shapes = [tuple(np.shape(p)) for p in params]
    if shape is None:
        return _broadcast_shapes(name, *shapes) if shapes else ()
    shape = _shape_arg(shape, name)
    _check_shape(name, shape, *shapes)
    return shape


def _split2(k):
    keys = rb.random_split(k, (2,))
    return keys[0], keys[1]


def _beta(k, a, b, shape, dtype):
    a = lax.convert_element_type(a, dtype)
    b = lax.convert_element_type(b, dtype)
    key_a, key_b = _split2(k)
    a = jnp_shape.broadcast_to(a, shape)
    b = jnp_shape.broadcast_to(b, shape)
    log_a = loggamma(key_a, a, shape, dtype)
    log_b = loggamma(key_b, b, shape, dtype)
    # gamma_a / (gamma_a + gamma_b), both scaled by the larger so that neither underflows.
    log_max = lax.max(log_a, log_b)
    scaled_a = _exp(lax.sub(log_a, log_max))
    scaled_b = _exp(lax.sub(log_b, log_max))
    return lax.div(scaled_a, lax.add(scaled_a, scaled_b))


_beta_jit = jit(_beta, static_argnums=(3, 4))


@with_out_sharding("random.beta")
def beta(key: Any, a: Any, b: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Beta(a, b) samples: ``G_a / (G_a + G_b)`` for gamma samples drawn in log space."""
    k, _ = _check_key("beta", key)
    dt = _float_dtype("beta", dtype)
    _check_safe_to_cast("beta", dt, a, b)
    return _beta_jit(k, a, b, _sample_shape("beta", shape, a, b), dt)


def _softmax_last(x):
    """JAX's softmax over the last axis: ``exp(x - max)`` over its sum."""
    axis = x.ndim - 1
    m = lax_shape.expand_dims(lax_red.reduce_max(x, (axis,)), (axis,))
    unnormalized = _exp(lax.sub(x, lax_shape.broadcast_in_dim(m, x.shape, range(x.ndim))))
    # XLA sums the row left to right and multiplies by the reciprocal of the sum.
    total = lax_shape.index_in_dim(unnormalized, 0, axis, keepdims=False)
    for i in range(1, x.shape[axis]):
        total = lax.add(total, lax_shape.index_in_dim(unnormalized, i, axis, keepdims=False))
    recip = lax.div(lax_shape.full_like(total, 1), total)
    return lax.mul(unnormalized, lax_shape.broadcast_in_dim(recip, x.shape, range(x.ndim - 1)))


def _dirichlet(k, alpha, shape, dtype):
    if np.ndim(alpha) < 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {np.ndim(alpha)}")
    batch = tuple(np.shape(alpha)[:-1])
    if shape is None:
        shape = batch
    else:
        _check_shape("dirichlet", shape, batch)
    alpha = lax.convert_element_type(alpha, dtype)
    # Gamma samples in log space: small alphas would underflow.
    log_g = loggamma(k, alpha, tuple(shape) + tuple(np.shape(alpha)[-1:]), dtype)
    return _softmax_last(log_g)


_dirichlet_jit = jit(_dirichlet, static_argnums=(2, 3))


@with_out_sharding("random.dirichlet")
def dirichlet(key: Any, alpha: Any, shape: Sequence[int] | None = None, dtype: Any = None):
    """Dirichlet(alpha) samples over ``alpha``'s last axis, of shape
    ``shape + alpha.shape[-1:]`` (default: ``alpha.shape``)."""
    k, _ = _check_key("dirichlet", key)
    dt = _float_dtype("dirichlet", dtype)
    return _dirichlet_jit(k, alpha, _opt_shape(shape, "dirichlet"), dt)


def _chisquare(k, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    two = lax_shape.full_like(df, 2)
    log_g = loggamma(k, lax.div(df, two), shape, dtype)
    return lax.mul(_exp(log_g), lax_shape.full((), 2, dtype))


_chisquare_jit = jit(_chisquare, static_argnums=(2, 3))


@with_out_sharding("random.chisquare")
def chisquare(key: Any, df: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Chi-square samples with ``df`` degrees of freedom: ``2 Gamma(df / 2)`` (from log space)."""
    k, _ = _check_key("chisquare", key)
    dt = _float_dtype("chisquare", dtype)
    shape = _sample_shape("chisquare", shape, df)
    _check_safe_to_cast("chisquare", dt, df)
    return _chisquare_jit(k, df, shape, dt)


def _f(k, dfnum, dfden, shape, dtype):
    dfden = lax.convert_element_type(dfden, dtype)
    dfnum = lax.convert_element_type(dfnum, dtype)
    key_den, key_num = _split2(k)
    chi2_num = chisquare(key_num, dfnum, shape, dtype)
    chi2_den = chisquare(key_den, dfden, shape, dtype)
    # (n / a) / (d / b), as XLA's simplifier rewrites it: (n b) / (a d).
    return lax.div(lax.mul(chi2_num, dfden), lax.mul(dfnum, chi2_den))


_f_jit = jit(_f, static_argnums=(3, 4))


@with_out_sharding("random.f")
def f(key: Any, dfnum: Any, dfden: Any, shape: Sequence[int] | None = None, dtype: Any = None):
    """F-distribution samples: ``(X_num / dfnum) / (X_den / dfden)`` for chi-square X."""
    k, _ = _check_key("f", key)
    dt = _float_dtype("f", dtype)
    shape = _sample_shape("f", shape, dfnum, dfden)
    _check_safe_to_cast("f", dt, dfnum, dfden)
    return _f_jit(k, dfnum, dfden, shape, dt)


def _t(k, df, shape, dtype):
    df = lax.convert_element_type(df, dtype)
    key_n, key_g = _split2(k)
    n = normal(key_n, shape, dtype)
    half_df = lax.div(df, lax_shape.full_like(df, 2))
    g = gamma(key_g, half_df, shape, dtype)
    return lax.mul(n, lax.sqrt(lax.div(half_df, g)))


_t_jit = jit(_t, static_argnums=(2, 3))


@with_out_sharding("random.t")
def t(key: Any, df: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Student's t samples with ``df`` degrees of freedom: ``N sqrt((df/2) / Gamma(df/2))``."""
    k, _ = _check_key("t", key)
    dt = _float_dtype("t", dtype)
    shape = _sample_shape("t", shape, df)
    _check_safe_to_cast("t", dt, df)
    return _t_jit(k, df, shape, dt)


def _generalized_normal(k, p, shape, dtype):
    keys = rb.random_split(k, (2,))
    inv_p = jnp_uf.true_divide(1, p)
    # In gamma's boost, XLA simplifies 1 / (1 / p) to p (unless a conversion comes between).
    recip = p if dtypes.dtype(inv_p) == dtype else None
    g = _gamma_jit(keys[0], inv_p, shape, dtype, False, recip)
    r = rademacher(keys[1], shape, dtype)
    return jnp_uf.multiply(r, _pow(g, inv_p))


_generalized_normal_jit = jit(_generalized_normal, static_argnums=(2, 3))


@with_out_sharding("random.generalized_normal")
def generalized_normal(key: Any, p: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Generalized normal samples (density proportional to ``exp(-|x|**p)``):
    ``r * Gamma(1/p) ** (1/p)`` with a random sign ``r``."""
    shape = _shape_arg(shape, "generalized_normal")
    k, _ = _check_key("generalized_normal", key)
    dt = _float_dtype("gamma", dtype)  # JAX's check is gamma's
    return _generalized_normal_jit(k, p, shape, dt)


__all__ = [
    "beta",
    "chisquare",
    "dirichlet",
    "f",
    "gamma",
    "generalized_normal",
    "loggamma",
    "random_gamma_p",
    "t",
]
