"""The fast paths of spmd.random's XLA-exact kernels against their reference paths, bit for bit.

``tan_f32``/``pow_f32`` call the C library's ``tanf``/``powf`` from a NumPy ufunc loop; the
per-element ctypes calls (``tan_f32_reference``, ``pow_f32_reference``) are their executable
spec, on random bit patterns (every exponent, both signs, NaNs, infinities, subnormals) and
edge values. One known difference, where the ufunc is the faithful one: a Python float cannot
carry a signaling NaN, so the ctypes path quiets it before the C function sees it, and
``powf(sNaN, 0)`` is then 1 instead of the NaN XLA returns. ``fma32``'s rounding is checked
against exact rationals, and ``xla_log``'s shortcut for elements equal to 1 against the plain
kernel.
"""

from __future__ import annotations

import numpy as np

import spmd
import spmd.numpy as jnp
from spmd import random
from spmd._src import random_counting
from spmd._src.lax import elementwise as lax
from spmd._src.lax import random_bits as rb
from spmd._src.lax import random_math as rm

EDGES = np.float32(
    [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1e-40, 1.1754942e-38,
     1.1754944e-38, 1.0, -1.0, 0.5, 2.0, 3.0, -3.0, 1.5707963, 1.5707964, -1.5707964, 3.1415927,
     0.785398, 1e4, 1e10, 3.4028235e38, -3.4028235e38, 8388608.0, 8388609.0, 16777216.0,
     -2.5, 0.99999994, 1.0000001, 126.0, 127.0, 128.0, -126.0, -149.0, -150.0, 0.1]
)  # fmt: skip


def _bits(rng, n):
    """``n`` float32 values with uniformly random bit patterns, signaling NaNs made quiet."""
    x = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), np.float32(np.nan), x)


def _same(a, b):
    return np.array_equal(np.asarray(a).view(np.uint32), np.asarray(b).view(np.uint32))


def test_tan_ufunc_is_the_per_element_call():
    rng = np.random.default_rng(0)
    x = np.concatenate([_bits(rng, 200_000), EDGES, rng.normal(0, 4, 50_000).astype(np.float32)])
    assert rm._libm_ufunc("tanf", 1) is not None  # the fast path is taken on this machine
    assert _same(rm.tan_f32(x), rm.tan_f32_reference(x))
    # Shapes and broadcasting: the same values in a 2-d array and as scalars.
    x2 = x[:60_000].reshape(300, 200)
    assert rm.tan_f32(x2).shape == (300, 200)
    assert _same(rm.tan_f32(x2), rm.tan_f32_reference(x2))
    assert _same(rm.tan_f32(np.float32(1.5704856)), np.uint32(0x454922D6).view(np.float32))


def test_pow_ufunc_is_the_per_element_call():
    rng = np.random.default_rng(1)
    n = 150_000
    x, y = _bits(rng, n), _bits(rng, n)
    y_small = rng.normal(0, 4, n).astype(np.float32)
    assert rm._libm_ufunc("powf", 2) is not None
    assert _same(rm.pow_f32(x, y), rm.pow_f32_reference(x, y))
    assert _same(rm.pow_f32(np.abs(x), y_small), rm.pow_f32_reference(np.abs(x), y_small))
    # Every pair of edge values, and broadcasting a row against a column.
    ex, ey = np.meshgrid(EDGES, EDGES)
    assert _same(rm.pow_f32(ex, ey), rm.pow_f32_reference(ex, ey))
    col, row = EDGES[:, None], np.abs(x[:500])[None, :]
    assert rm.pow_f32(col, row).shape == (EDGES.size, 500)
    assert _same(rm.pow_f32(col, row), rm.pow_f32_reference(col, row))


def test_signaling_nans_reach_the_c_library():
    # jax.jit(lax.pow)(x, y) and jax.jit(lax.tan)(x) on XLA:CPU for these bit patterns (the
    # second operands are subnormals, read as zero): powf(sNaN, 0) is a quiet NaN, not 1.
    x = np.uint32([0x7FB50EED, 0x7F81060D, 0xFFB1D064, 0x7FA00000, 0x3F800000]).view(np.float32)
    y = np.uint32([0x802C00DA, 0x127E8A, 0x4B080C, 0, 0]).view(np.float32)
    want_pow = [0x7FF50EED, 0x7FC1060D, 0xFFF1D064, 0x7FE00000, 0x3F800000]
    want_tan = [0x7FF50EED, 0x7FC1060D, 0xFFF1D064, 0x7FE00000, 0x3FC75923]
    assert rm.pow_f32(x, y).view(np.uint32).tolist() == want_pow
    assert rm.tan_f32(x).view(np.uint32).tolist() == want_tan
    # The reference quiets the NaN first (a Python float), hence pow(qNaN, 0) = 1.
    assert rm.pow_f32_reference(x, y).view(np.uint32).tolist()[0] == 0x3F800000


def test_lgamma_evaluates_small_arguments_one_by_one():
    # Below 0.5 lgamma_f32 takes NumPy's lgamma for those elements only; each element's value
    # must not depend on its neighbours.
    rng = np.random.default_rng(2)
    x = rng.uniform(-20, 60, 5000).astype(np.float32)
    x[::7] = np.float32([0.0, -1.0, 0.25, -3.5, np.inf, 0.4999, 0.5])[np.arange(715) % 7]
    got = random_counting.lgamma_f32(x)
    alone = np.concatenate([random_counting.lgamma_f32(x[i : i + 1]) for i in range(x.size)])
    assert _same(got, alone)
    small = x < 0.5
    assert _same(got[small], lax.lgamma_p.impl(x[small]).astype(np.float32))


def _fma_exact(a, b, c):
    """``a * b + c`` rounded once to float32 (ties to even), from exact rationals."""
    from fractions import Fraction

    out = []
    for x, y, z in zip(a.tolist(), b.tolist(), c.tolist()):
        exact = Fraction(x) * Fraction(y) + Fraction(z)
        near = np.float32(float(exact))
        cands = [near, np.nextafter(near, np.float32(np.inf)), np.nextafter(near, -np.inf)]
        out.append(
            min(cands, key=lambda v: (abs(Fraction(float(v)) - exact), v.view(np.uint32) & 1))
        )
    return np.array(out, np.float32)


def test_fma32_rounds_once_on_ties():
    # Few-bit operands with far-apart exponents: many float64 sums land exactly halfway between
    # two float32 values, some exactly (the cast's tie to even is right) and some not.
    rng = np.random.default_rng(3)
    n = 4000
    a = (rng.integers(-64, 64, n) * 2.0 ** rng.integers(-30, 30, n)).astype(np.float32)
    b = (rng.integers(-64, 64, n) * 2.0 ** rng.integers(-30, 30, n)).astype(np.float32)
    c = (rng.integers(-(2**24), 2**24, n) * 2.0 ** rng.integers(-60, 60, n)).astype(np.float32)
    r = np.multiply(a, b, dtype=np.float64) + c
    tie = (r.view(np.uint64) & rb._TIE_MASK) == rb._TIE
    assert tie.sum() > 50
    got = rb.fma32(a, b, c)
    assert _same(got, _fma_exact(a, b, c))
    # Broadcast operands take the same path: a scalar, and a row against a column.
    assert _same(rb.fma32(a, b[0], c), _fma_exact(a, np.full(n, b[0]), c))
    col, row, full = a[:60, None], b[None, :60], c[:3600].reshape(60, 60)
    got = rb.fma32(col, row, full)
    assert got.shape == (60, 60)
    flat = [np.broadcast_to(v, (60, 60)).reshape(-1) for v in (col, row, full)]
    assert _same(got.reshape(-1), _fma_exact(*flat))
    r2 = np.multiply(*flat[:2], dtype=np.float64) + flat[2]
    assert ((r2.view(np.uint64) & rb._TIE_MASK) == rb._TIE).sum() > 20


def test_log_leaves_out_ones():
    # xla_log computes only the elements that are not exactly 1 when those are many (the
    # counting samplers' finished lanes); log(1) is +0 and the rest is unchanged.
    rng = np.random.default_rng(4)
    x = rng.random(50_000).astype(np.float32)
    for frac in (0.0, 0.2, 0.3, 0.9, 1.0):
        y = np.where(rng.random(x.size) < frac, np.float32(1), x)
        assert _same(rb.xla_log_p.impl(y), rb.log_f32(y))
    assert _same(rb.log_f32(np.float32([1.0])), np.float32([0.0]))
    assert rb.xla_log_p.impl(np.ones((3, 40), np.float32)).shape == (3, 40)


def test_threefry_with_a_key_per_row_of_few_counters():
    # A key per row and a few counters per row (splitting a batch of keys) runs with the short
    # axis moved first; the words must equal the same cipher on the flattened operands and the
    # scalar reference.
    rng = np.random.default_rng(5)
    for rows, m in ((500, 2), (300, 3), (200, 15), (100, 1)):
        k1 = rng.integers(0, 2**32, (rows, 1), dtype=np.uint64).astype(np.uint32)
        k2 = rng.integers(0, 2**32, (rows, 1), dtype=np.uint64).astype(np.uint32)
        x1 = np.arange(m, dtype=np.uint32)
        x2 = x1 + np.uint32(m)
        y1, y2 = rb.threefry2x32_kernel(k1, k2, x1, x2)
        assert y1.shape == y2.shape == (rows, m) and y1.dtype == np.uint32
        flat = [np.broadcast_to(v, (rows, m)).reshape(-1) for v in (k1, k2, x1, x2)]
        f1, f2 = rb.threefry2x32_kernel(*flat)
        assert np.array_equal(y1.reshape(-1), f1) and np.array_equal(y2.reshape(-1), f2)
        for i in (0, rows - 1):
            want = rb._threefry_scalar(int(k1[i, 0]), int(k2[i, 0]), int(x1[-1]), int(x2[-1]))
            assert (int(y1[i, -1]), int(y2[i, -1])) == want
    # Three dimensions: keys (4, 50, 1) against counters (2,).
    k = rng.integers(0, 2**32, (4, 50, 1), dtype=np.uint64).astype(np.uint32)
    y1, _ = rb.threefry2x32_kernel(k, k, np.uint32([0, 1]), np.uint32([2, 3]))
    flat = [np.broadcast_to(v, (4, 50, 2)).reshape(-1) for v in (k, k, [0, 1], [2, 3])]
    assert np.array_equal(y1.reshape(-1), rb.threefry2x32_kernel(*flat)[0])


def test_counting_samplers_under_vmap_of_rates_match_each_example():
    # vmap over the rate with a mix of examples on Knuth's / inversion loop and on the rejection
    # loop, large enough (8 x 1100 elements) for the whole-array kernels' block paths. Each row
    # must equal the sampler run alone; the row sums are JAX 0.10.2's (jax.jit(jax.vmap(...))
    # on the same keys).
    keys = random.split(random.PRNGKey(0), 8)
    lams = jnp.linspace(1.0, 40.0, 8)
    got = np.asarray(
        spmd.jit(spmd.vmap(lambda k, lam: random.poisson(k, lam, (1100,))))(keys, lams)
    )
    assert got.sum(axis=1).tolist() == [1107, 7281, 13155, 19519, 25750, 31642, 38051, 44052]
    for i in (0, 3, 7):
        assert np.array_equal(got[i], np.asarray(random.poisson(keys[i], lams[i], (1100,))))
    ns = jnp.linspace(5.0, 300.0, 8)
    got = np.asarray(spmd.vmap(lambda k, n: random.binomial(k, n, 0.3, (1100,)))(keys, ns))
    want = [1672.0, 15547.0, 29226.0, 43191.0, 57181.0, 70830.0, 84646.0, 99217.0]
    assert got.sum(axis=1).tolist() == want
    for i in (0, 7):
        assert np.array_equal(got[i], np.asarray(random.binomial(keys[i], ns[i], 0.3, (1100,))))
