"""``spmd.random``'s counting distributions, ``poisson``, ``binomial`` and ``multinomial``, with
JAX 0.10's draws.

They are JAX's whole-array rejection loops (``while_loop``: one key per iteration for the whole
array), with the same draws; their float arithmetic decides only acceptance and rounding to
integers, where last-bit differences almost never matter. Poisson's acceptance test cancels
most of its digits, so it uses XLA's own float32 ``lgamma`` (``lgamma_f32``).

>>> poisson(PRNGKey(0), 3.0, (3,))
Array([0, 0, 4], dtype=int32)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import dtypes
from spmd._src.api import jit
from spmd._src.lax import elementwise as lax
from spmd._src.lax import random_bits as rb
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.control_flow import scan, while_loop
from spmd._src.numpy import indexing as jnp_idx
from spmd._src.numpy import shape_ops as jnp_shape
from spmd._src.numpy import ufuncs as jnp_uf
from spmd._src.numpy import util as jnp_util
from spmd._src.numpy.lax_numpy import asarray as jnp_asarray
from spmd._src.numpy.util import with_out_sharding
from spmd._src.random import (
    PRNGKey,  # noqa: F401  (doctest namespace)
    _broadcast_shapes,
    _check_shape,
    _float_dtype,
    _shape_arg,
    uniform,
)
from spmd._src.random_gamma import _opt_shape
from spmd._src.random_keys import _check_key, key_impl_of

_F32 = np.float32
_F64 = np.float64
_U32 = np.dtype(np.uint32)


# ---------------------------------------------------------------------------------------------
# Counting distributions: whole-array rejection loops (one key per iteration, not per element)


def _xlog(x):
    return rb.xla_log(x) if dtypes.dtype(x) != _F64 else lax.log(x)


# ---------------------------------------------------------------------------------------------
# XLA's float32 lgamma (for Poisson's rejection test, where t = -lam + k log(lam) - lgamma(k + 1)
# cancels most of its digits and every bit of lgamma matters)

_LANCZOS = (
    676.520368121885098567009190444019,
    -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,
    -176.61502916214059906584551354,
    12.507343278686904814458936853,
    -0.13857109526572011689554707,
    9.984369578019570859563e-6,
    1.50563273514931155834e-7,
)


def lgamma_f32(x) -> np.ndarray:
    """XLA's float32 ``lgamma`` for ``x >= 0.5``: Lanczos' approximation (g = 7, 8 terms) as
    ``log(sqrt(2 pi)) + (z + 1/2 - t / log t) log t + log(a(z))``, ``z = x - 1``, ``t = z + 7.5``,
    ``log t = log(7.5) + log1p(z / 7.5)`` (the division becomes a multiplication by the rounded
    reciprocal, and the multiply-add is fused). Below 0.5 (the reflection) NumPy's value."""
    x = np.asarray(x, _F32)
    with np.errstate(all="ignore"):
        z = x - _F32(1)
        a = _F32(0.99999999999980993227684700473478)
        for i, coef in enumerate(_LANCZOS):
            a = a + _F32(coef) / (z + _F32(i + 1))
        t = _F32(7.5) + z
        log_t = _F32(math.log(7.5)) + rb.log1p_f32(z * (_F32(1) / _F32(7.5)))
        r = rb.fma32((z + _F32(0.5)) - t / log_t, log_t, _F32(math.log(2 * math.pi) / 2))
        out = r + rb.log_f32(a)
        small = x < _F32(0.5)
        if small.any():
            # Only the few small elements: NumPy's lgamma is a Python call per element (the
            # rejection loops pass whole arrays with a handful of negative candidates).
            out = np.array(out, _F32)
            out[small] = lax.lgamma_p.impl(x[small]).astype(_F32)
        out = np.where(np.isinf(x), _F32(np.inf), out)
    return np.asarray(out, _F32)


xla_lgamma_p = rb._xla_unop("xla_lgamma", lgamma_f32, lambda v: lax.lgamma_p.impl(v))


def _poisson_knuth(k, lam, shape, dtype, max_iters):
    # Multiply uniforms (add their logs) until the product drops below exp(-lam).
    def body(carry):
        i, count, key, log_prod = carry
        keys = rb.random_split(key, (2,))
        going = lax.gt(log_prod, lax.neg(lam))
        count = lax.select(going, lax.add(count, _ones(count)), count)
        u = uniform(keys[1], shape, np.float32)
        # A finished lane stays finished (log u <= 0) and only its count is returned: its u is
        # set to 1, whose log (0, leaving its product alone) xla_log does not compute.
        u = lax.select(going, u, _ones(u))
        return i + 1, count, keys[0], lax.add(log_prod, _xlog(u))

    def cond(carry):
        i, log_prod = carry[0], carry[3]
        going = lax_red.reduce_or(lax.gt(log_prod, lax.neg(lam)), tuple(range(len(shape))))
        return lax.bitwise_and(going, lax.lt(i, max_iters))

    init = (
        jnp_asarray(0, max_iters.dtype),
        lax_shape.full(shape, 0, dtype),
        k,
        lax_shape.full(shape, 0, np.float32),
    )
    count = while_loop(cond, body, init)[1]
    return lax.sub(count, _ones(count))


def _ones(x):
    return lax_shape.full_like(x, 1)


def _rejection_loop(body, k, shape, max_iters, count_dtype, dtype, used):
    """Run ``body`` over carries ``(i, counts, accepted, key)`` until every element is accepted
    or ``max_iters`` iterations have run (JAX's whole-array rejection loop); the counts (-1 where
    never accepted) as ``dtype``. When no element is ``used`` (the caller selects the result
    only where ``used``), every element starts accepted and the loop does not run: JAX runs it
    anyway, but its result is selected away. (Starting only the unused elements accepted would
    change the used ones: a later acceptance overwrites an earlier one.)"""

    def cond(carry):
        i, accepted = carry[0], carry[2]
        going = lax_red.reduce_or(lax.bitwise_not(accepted), tuple(range(len(shape))))
        return lax.bitwise_and(going, lax.lt(i, max_iters))

    init = (
        jnp_asarray(0, max_iters.dtype),
        lax_shape.full(shape, -1, count_dtype),
        _none_used(used, shape),
        k,
    )
    return lax.convert_element_type(while_loop(cond, body, init)[1], dtype)


def _none_used(used, shape):
    """``shape``-shaped: True everywhere if no element of ``used`` holds, else False."""
    none = lax.bitwise_not(lax_red.reduce_or(used, tuple(range(len(shape)))))
    return lax_shape.broadcast_in_dim(none, shape, ())


def _poisson_rejection(k, lam, shape, dtype, max_iters, used):
    # Hormann's transformed rejection (PTRS).
    f = jnp_uf
    log_lam = _xlog(lam)
    b = f.add(0.931, f.multiply(2.53, lax.sqrt(lam)))
    a = f.add(-0.059, f.multiply(0.02483, b))
    inv_alpha = f.add(1.1239, f.true_divide(1.1328, f.subtract(b, 3.4)))
    v_r = f.subtract(0.9277, f.true_divide(3.6224, f.subtract(b, 2)))

    def body(carry):
        i, k_out, accepted, key = carry
        keys = rb.random_split(key, (3,))
        u = f.subtract(uniform(keys[1], shape, lam.dtype), 0.5)
        v = uniform(keys[2], shape, lam.dtype)
        us = f.subtract(0.5, f.abs(u))
        kk = f.floor(
            f.add(f.add(f.multiply(f.add(f.true_divide(f.multiply(2, a), us), b), u), lam), 0.43)
        )
        s = _xlog(
            f.true_divide(f.multiply(v, inv_alpha), f.add(f.true_divide(a, f.multiply(us, us)), b))
        )
        t = f.subtract(rb.xla_fma(kk, log_lam, lax.neg(lam)), xla_lgamma_p.bind(f.add(kk, 1)))
        accept1 = f.logical_and(f.greater_equal(us, 0.07), f.less_equal(v, v_r))
        reject = f.logical_or(f.less(kk, 0), f.logical_and(f.less(us, 0.013), f.greater(v, us)))
        accept = f.logical_or(accept1, f.logical_and(f.logical_not(reject), f.less_equal(s, t)))
        return i + 1, lax.select(accept, kk, k_out), f.logical_or(accepted, accept), keys[0]

    return _rejection_loop(body, k, shape, max_iters, lam.dtype, dtype, used)


def _poisson(k, lam, shape, dtype):
    # As TensorFlow and NumPy: Knuth's method below lam = 10, PTRS above; both loops run over
    # the whole array, each with the other's elements set to a harmless rate.
    use_knuth = lax.bitwise_or(lax.ne(lam, lam), lax.lt(lam, lax_shape.full_like(lam, 10)))
    lam_knuth = lax.select(use_knuth, lam, lax_shape.full_like(lam, 0))
    lam_rejection = lax.select(use_knuth, lax_shape.full_like(lam, 1e5), lam)
    max_iters = jnp_asarray(dtypes.iinfo(dtype).max, dtype)
    # Knuth's loop already stops at once where no element uses it (its rate is then 0).
    result = lax.select(
        use_knuth,
        _poisson_knuth(k, lam_knuth, shape, dtype, max_iters),
        _poisson_rejection(k, lam_rejection, shape, dtype, max_iters, lax.bitwise_not(use_knuth)),
    )
    return lax.select(
        lax.eq(lam, lax_shape.full_like(lam, 0)), lax_shape.full_like(result, 0), result
    )


_poisson_jit = jit(_poisson, static_argnums=(2, 3))


@with_out_sharding("random.poisson")
def poisson(key: Any, lam: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Poisson(lam) counts (int32 by default): Knuth's method for lam < 10, Hormann's
    transformed rejection above."""
    k, _ = _check_key("poisson", key)
    if key_impl_of(key) != "threefry2x32":
        raise NotImplementedError(
            f"`poisson` is only implemented for the threefry2x32 RNG, not {key_impl_of(key)}"
        )
    dt = dtypes.canonicalize_dtype(dtypes.dtype(int if dtype is None else dtype))
    if not dtypes.issubdtype(dt, np.integer):
        raise ValueError(f"dtype argument to `poisson` must be an integer dtype, got {dt}")
    shape = tuple(np.shape(lam)) if shape is None else _shape_arg(shape, "poisson")
    lam = jnp_shape.broadcast_to(lam, shape)
    lam = lax.convert_element_type(lam, np.float32)
    return _poisson_jit(k, lam, shape, dt)


_STIRLING_TAIL = (
    0.0810614667953272,
    0.0413406959554092,
    0.0276779256849983,
    0.02079067210376509,
    0.0166446911898211,
    0.0138761288230707,
    0.0118967099458917,
    0.0104112652619720,
    0.00925546218271273,
    0.00833056343336287,
)


def _stirling_approx_tail(k):
    """log(k!) minus Stirling's approximation: tabulated for k <= 9, a series above."""
    f = jnp_uf
    table = jnp_asarray(np.array(_STIRLING_TAIL, dtypes.dtype(k)))
    use_table = f.less_equal(k, 9)
    k = lax.clamp(lax_shape.full((), 0, k.dtype), k, lax_shape.full((), 9, k.dtype))
    kp1 = f.add(k, 1)
    kp1sq = f.multiply(kp1, kp1)
    approx = f.true_divide(
        f.subtract(
            1.0 / 12, f.true_divide(f.subtract(1.0 / 360, f.true_divide(1.0 / 1260, kp1sq)), kp1sq)
        ),
        kp1,
    )
    idx = lax.convert_element_type(f.floor(k), np.int32)
    return lax.select(use_table, jnp_idx.take(table, idx), approx)


def _binomial_inversion(k, count, prob, shape, dtype, max_iters, used):
    # Count geometric waiting times until their sum passes count.
    f = jnp_uf
    log1m_prob = _xlog1p(f.negative(prob))

    def body(carry):
        i, num_geom, geom_sum, key = carry
        keys = rb.random_split(key, (2,))
        going = f.less_equal(geom_sum, count)
        num_geom_out = lax.select(going, f.add(num_geom, 1), num_geom)
        u = uniform(keys[0], shape, prob.dtype)
        # As in Knuth's loop: a finished lane's sum only grows (or turns NaN: 0 / log1p(-0)),
        # and only the counts are returned, so its u is 1 and its log is not computed.
        u = lax.select(going, u, _ones(u))
        geom = f.ceil(f.true_divide(_xlog(u), log1m_prob))
        return i + 1, num_geom_out, f.add(geom_sum, geom), keys[1]

    def cond(carry):
        i, geom_sum = carry[0], carry[2]
        going = lax_red.reduce_or(f.less_equal(geom_sum, count), tuple(range(len(shape))))
        return lax.bitwise_and(going, lax.lt(i, max_iters))

    zero = lax_shape.full(shape, 0, prob.dtype)
    # Where no element uses this loop (its result is selected away), the sums start at inf:
    # the loop does not run. Otherwise they start at 0, as in JAX.
    inf = lax_shape.full(shape, np.inf, prob.dtype)
    init = (
        jnp_asarray(0, max_iters.dtype),
        zero,
        lax.select(_none_used(used, shape), inf, zero),
        k,
    )
    num = while_loop(cond, body, init)[1]
    return lax.convert_element_type(f.subtract(num, 1), dtype)


def _btrs(k, count, prob, shape, dtype, max_iters, used):
    # Hormann's transformed rejection with squeeze (BTRS).
    f = jnp_uf
    stddev = lax.sqrt(f.multiply(f.multiply(count, prob), f.subtract(1, prob)))
    b = f.add(1.15, f.multiply(2.53, stddev))
    a = f.add(f.add(-0.0873, f.multiply(0.0248, b)), f.multiply(0.01, prob))
    c = f.add(f.multiply(count, prob), 0.5)
    v_r = f.subtract(0.92, f.true_divide(4.2, b))
    r = f.true_divide(prob, f.subtract(1, prob))
    alpha = f.multiply(f.add(2.83, f.true_divide(5.1, b)), stddev)
    m = f.floor(f.multiply(f.add(count, 1), prob))

    def body(carry):
        i, k_out, accepted, key = carry
        keys = rb.random_split(key, (3,))
        u = uniform(keys[1], shape, prob.dtype)
        v = uniform(keys[2], shape, prob.dtype)
        u = f.subtract(u, 0.5)
        us = f.subtract(0.5, f.abs(u))
        accept1 = f.logical_and(f.greater_equal(us, 0.07), f.less_equal(v, v_r))
        kk = f.floor(f.add(f.multiply(f.add(f.true_divide(f.multiply(2, a), us), b), u), c))
        reject = f.logical_or(f.less(kk, 0), f.greater(kk, count))
        v = _xlog(
            f.true_divide(f.multiply(v, alpha), f.add(f.true_divide(a, f.multiply(us, us)), b))
        )
        cm1 = f.add(f.subtract(count, m), 1)
        ck1 = f.add(f.subtract(count, kk), 1)
        ub = f.multiply(f.add(m, 0.5), _xlog(f.true_divide(f.add(m, 1), f.multiply(r, cm1))))
        ub = f.add(ub, f.multiply(f.add(count, 1), _xlog(f.true_divide(cm1, ck1))))
        ub = f.add(
            ub, f.multiply(f.add(kk, 0.5), _xlog(f.true_divide(f.multiply(r, ck1), f.add(kk, 1))))
        )
        ub = f.add(ub, _stirling_approx_tail(m))
        ub = f.add(ub, _stirling_approx_tail(f.subtract(count, m)))
        ub = f.subtract(ub, _stirling_approx_tail(kk))
        ub = f.subtract(ub, _stirling_approx_tail(f.subtract(count, kk)))
        accept = f.logical_or(accept1, f.logical_and(f.logical_not(reject), f.less_equal(v, ub)))
        return i + 1, lax.select(accept, kk, k_out), f.logical_or(accepted, accept), keys[0]

    return _rejection_loop(body, k, shape, max_iters, prob.dtype, dtype, used)


def _xlog1p(x):
    return rb.xla_log1p(x) if dtypes.dtype(x) != _F64 else lax.log1p(x)


def _binomial(k, count, prob, shape, dtype):
    # As TensorFlow: inversion where count * q <= 10, BTRS elsewhere (q = min(p, 1 - p)); both
    # loops run over the whole array, each with the other's elements set to harmless values.
    f = jnp_uf
    if shape is None:
        shape = _broadcast_shapes("binomial", np.shape(count), np.shape(prob))
    else:
        _check_shape("binomial", shape, np.shape(count), np.shape(prob))
    (prob,) = jnp_util.promote_dtypes_inexact(prob)
    count = lax.convert_element_type(count, prob.dtype)
    count = jnp_shape.broadcast_to(count, shape)
    prob = jnp_shape.broadcast_to(prob, shape)
    p_lt_half = f.less(prob, 0.5)
    q = lax.select(p_lt_half, prob, f.subtract(1.0, prob))
    count_nan_or_neg = f.logical_or(f.isnan(count), f.less(count, 0.0))
    count_inf = f.isinf(count)
    q_is_nan = f.isnan(q)
    q_l_0 = f.less(q, 0.0)
    q = lax.select(f.logical_or(q_is_nan, q_l_0), lax_shape.full_like(q, 0.01), q)
    use_inversion = f.logical_or(count_nan_or_neg, f.less_equal(f.multiply(count, q), 10.0))
    count = f.floor(count)
    count_inv = lax.select(use_inversion, count, lax_shape.full_like(count, 0.0))
    count_btrs = lax.select(use_inversion, lax_shape.full_like(count, 1e4), count)
    q_btrs = lax.select(use_inversion, lax_shape.full_like(q, 0.5), q)
    max_iters = jnp_asarray(dtypes.finfo(dtype).max, dtype)
    samples = lax.select(
        use_inversion,
        _binomial_inversion(k, count_inv, q, shape, dtype, max_iters, use_inversion),
        _btrs(k, count_btrs, q_btrs, shape, dtype, max_iters, lax.bitwise_not(use_inversion)),
    )
    # NaN for a NaN or negative q or count; inf for an infinite count.
    invalid = f.logical_or(f.logical_or(q_l_0, q_is_nan), count_nan_or_neg)
    samples = lax.select(invalid, lax_shape.full_like(samples, np.nan), samples)
    samples = lax.select(
        f.logical_and(count_inf, f.logical_not(invalid)),
        lax_shape.full_like(samples, np.inf),
        samples,
    )
    direct = f.logical_or(
        f.logical_or(p_lt_half, count_nan_or_neg), f.logical_or(q_is_nan, count_inf)
    )
    return lax.select(direct, samples, f.subtract(lax.convert_element_type(count, dtype), samples))


_binomial_jit = jit(_binomial, static_argnums=(3, 4))


def binomial(key: Any, n: Any, p: Any, shape: Sequence[int] | None = None, dtype: Any = None):
    """Binomial(n, p) counts, as floats (float32 by default): inversion for small ``n q``,
    Hormann's BTRS otherwise."""
    k, _ = _check_key("binomial", key)
    jnp_util.check_arraylike("binomial", n, p)
    dt = _float_dtype("binomial", dtype)
    return _binomial_jit(k, n, p, _opt_shape(shape, "binomial"), dt)


def multinomial(
    key: Any,
    n: Any,
    p: Any,
    *,
    shape: Sequence[int] | None = None,
    dtype: Any = None,
    unroll: int | bool = 1,
) -> Any:
    """Multinomial counts of ``n`` trials over the outcomes of ``p``'s last axis: a binomial
    draw per outcome (with its own key) from what the earlier outcomes left."""
    k, _ = _check_key("multinomial", key)
    jnp_util.check_arraylike("multinomial", n, p)
    n, p = jnp_util.promote_dtypes_inexact(n, p)
    shape = tuple(p.shape) if shape is None else _shape_arg(shape, "multinomial")
    n = jnp_shape.broadcast_to(n, shape[:-1])
    p = jnp_shape.broadcast_to(p, shape)

    def step(remainder, ratio_key):
        ratio, key = ratio_key
        count = binomial(key, remainder, jnp_uf.clip(ratio, 0, 1), dtype=remainder.dtype)
        return jnp_uf.subtract(remainder, count), count

    p = jnp_shape.moveaxis(p, -1, 0)
    remaining = lax_red.cumsum(p, 0, reverse=True)
    zero = jnp_uf.equal(remaining, 0)
    ratios = jnp_uf.true_divide(p, lax.select(zero, lax_shape.full_like(remaining, 1), remaining))
    keys = rb.random_split(k, (ratios.shape[0],))
    _, counts = scan(step, n, (ratios, keys), unroll=unroll)
    counts = jnp_shape.moveaxis(counts, 0, -1)
    # JAX's astype(None) is the default float dtype.
    dt = dtypes.canonicalize_dtype(dtypes.dtype(float if dtype is None else dtype))
    return lax.convert_element_type(counts, dt)


__all__ = ["binomial", "multinomial", "poisson"]
