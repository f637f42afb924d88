"""Transformation rules of the reductions, cumulative reductions and sorting primitives
(spmd/_src/lax/reductions.py, spmd/_src/lax/sorting.py).

- vmap against a per-slice Python loop (``np.stack``), with the batch dimension before, between
  and after the reduced axes, and operands batched along different dimensions;
- jvp and vjp against central finite differences in float64 (vjp through the identity
  ``<c, J t> = <J^T c, t>``), including zeros and negative values for products;
- gradient conventions read from JAX 0.10 (x64 on): ties of max/min and of cummax/cummin
  (which split the slope along JAX's associative-scan tree), products with zeros, sort and
  top_k ties.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax

# Every test here runs with 64-bit types on (the fixture is in conftest.py).
pytestmark = pytest.mark.usefixtures("x64")


def rng(seed=0):
    return np.random.default_rng(seed)


def _slice(x, axis, i):
    return x if axis is None else np.take(x, i, axis=axis)


def check_vmap(f, args, in_axes, out_axes=0):
    """vmap(f, in_axes) against stacking f over the slices (outputs may be lists)."""
    size = next(np.shape(a)[d] for a, d in zip(args, in_axes) if d is not None)
    got = spmd.vmap(f, in_axes=in_axes, out_axes=out_axes)(*args)
    slices = [f(*[_slice(a, d, i) for a, d in zip(args, in_axes)]) for i in range(size)]
    multi = isinstance(got, (tuple, list))
    got = list(got) if multi else [got]
    slices = [list(s) if multi else [s] for s in slices]
    for k, g in enumerate(got):
        want = np.stack([np.asarray(s[k]) for s in slices], axis=out_axes)
        assert np.asarray(g).dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(g), want)


def _fd(f, args, ts, eps=1e-6):
    plus = f(*[a + eps * t for a, t in zip(args, ts)])
    minus = f(*[a - eps * t for a, t in zip(args, ts)])
    return [
        (np.asarray(p) - np.asarray(m)) / (2 * eps) for p, m in zip(_leaves(plus), _leaves(minus))
    ]


def _leaves(x):
    return list(x) if isinstance(x, (tuple, list)) else [x]


def check_grads(f, args, rtol=1e-6, atol=1e-7, seed=0):
    """jvp and vjp of ``f`` (float64 arguments; outputs may be lists) against central
    differences."""
    r = rng(seed)
    args = [np.asarray(a, np.float64) for a in args]
    ts = [r.standard_normal(a.shape) for a in args]
    num = _fd(f, args, ts)
    _, tangent = spmd.jvp(f, tuple(args), tuple(ts))
    for got, want in zip(_leaves(tangent), num):
        if np.asarray(got).dtype != spmd.dtypes.float0:
            np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)
    out, pullback = spmd.vjp(f, *args)
    cs = [r.standard_normal(np.shape(o)) for o in _leaves(out)]
    float_out = [np.asarray(o).dtype.kind == "f" for o in _leaves(out)]
    lhs = sum(np.sum(c * n) for c, n, fl in zip(cs, num, float_out) if fl)
    cts_in = [
        c if fl else np.zeros(np.shape(c), spmd.dtypes.float0) for c, fl in zip(cs, float_out)
    ]
    cts = pullback(type(out)(cts_in) if isinstance(out, (tuple, list)) else cts_in[0])
    rhs = sum(np.sum(np.asarray(g) * t) for g, t in zip(cts, ts))
    np.testing.assert_allclose(rhs, lhs, rtol=rtol, atol=atol)


def distinct(shape, seed):
    """Values without ties (so max/min/sort are differentiable there), including negatives."""
    n = int(np.prod(shape))
    return rng(seed).permutation(n).reshape(shape) * 0.37 - n * 0.15


# ---------------------------------------------------------------------------------------------
# Reductions

REDUCTIONS = {
    "reduce_sum": lax.reduce_sum,
    "reduce_prod": lax.reduce_prod,
    "reduce_max": lax.reduce_max,
    "reduce_min": lax.reduce_min,
}
AXES = [(0,), (1,), (2,), (0, 2), (1, 2), (0, 1, 2), ()]


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("axes", AXES, ids=str)
def test_reduction_grads(name, axes):
    f = REDUCTIONS[name]
    check_grads(lambda x: f(x, axes), [distinct((2, 3, 4), 1)])


def test_reduce_prod_grads_with_zeros():
    x = np.array([[0.0, 2.0, -3.0], [0.0, 0.0, 1.5], [1.0, -2.0, 0.5]])
    for axes in [(0,), (1,), (0, 1)]:
        check_grads(lambda x, axes=axes: lax.reduce_prod(x, axes), [x])


@pytest.mark.parametrize("name", sorted(REDUCTIONS) + ["reduce_and", "reduce_or", "reduce_xor"])
@pytest.mark.parametrize("bdim", [0, 1, 2])
@pytest.mark.parametrize("axes", [(0,), (1,), (0, 1)], ids=str)
def test_reduction_vmap(name, bdim, axes):
    if name in REDUCTIONS:
        f = lambda x: REDUCTIONS[name](x, axes)  # noqa: E731
        # Small integers: sums and products are exact in any order.
        x = rng(3).integers(-3, 4, (3, 4, 5)).astype(np.float64)
    else:
        f = lambda x: getattr(lax, name)(x, axes)  # noqa: E731
        x = rng(4).integers(0, 16, (3, 4, 5)).astype(np.int32)
    check_vmap(f, [x], (bdim,))


@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("bdim", [0, 1, 2])
@pytest.mark.parametrize("axis", [0, 1])
def test_arg_reduction_vmap(name, bdim, axis):
    fn = getattr(lax, name)
    x = rng(2).integers(0, 4, (3, 4, 5)).astype(np.float64)  # ties: the first one wins
    check_vmap(lambda x: fn(x, axis, np.int32), [x], (bdim,))


@pytest.mark.parametrize("name", ["reduce_and", "reduce_or", "reduce_xor"])
def test_logical_reductions_vmap_bool(name):
    x = rng(5).random((3, 4, 2)) > 0.5
    check_vmap(lambda x: getattr(lax, name)(x, (1,)), [x], (2,))


def test_argmax_has_zero_tangent():
    x = distinct((3, 4), 6)
    _, t = spmd.jvp(lambda x: lax.argmax(x, 1, np.int32), (x,), (x,))
    assert np.asarray(t).dtype == spmd.dtypes.float0
    g = spmd.grad(lambda x: (x * lax.argmin(x, 0, np.int32)).sum())(x)
    np.testing.assert_array_equal(np.asarray(g), np.broadcast_to(np.argmin(x, 0), (3, 4)))


def test_reduction_conventions():
    g = lambda f, x: np.asarray(spmd.grad(f)(jnp.array(x)))  # noqa: E731
    # Ties share the slope evenly (JAX: jax.grad(jnp.max)(jnp.array([1., 3., 3.]))).
    np.testing.assert_array_equal(g(jnp.max, [1.0, 3.0, 3.0]), [0.0, 0.5, 0.5])
    np.testing.assert_array_equal(
        g(lambda x: lax.reduce_min(x, (0,)), [1.0, 1.0, 3.0]), [0.5, 0.5, 0]
    )
    np.testing.assert_array_equal(
        g(lambda x: lax.reduce_max(x, (0, 1)), [[2.0, 1.0], [2.0, 0.0]]), [[0.5, 0], [0.5, 0]]
    )
    # Products with zeros: exact, no division.
    np.testing.assert_array_equal(g(lambda x: lax.reduce_prod(x, (0,)), [0.0, 3.0, 3.0]), [9, 0, 0])
    np.testing.assert_array_equal(g(lambda x: lax.reduce_prod(x, (0,)), [0.0, 0.0, 3.0]), [0, 0, 0])
    got = g(lambda x: lax.reduce_prod(x, (0, 2)).sum(), np.arange(12.0).reshape(2, 3, 2) - 4)
    want = [[[-18, -24], [-20, -40], [42, 0]], [[36, 24], [10, 8], [0, 0]]]
    np.testing.assert_array_equal(got, want)


def test_reduce_prod_hessian():
    h = spmd.hessian(lambda x: lax.reduce_prod(x, (0,)))(jnp.array([1.0, 2.0, 0.0]))
    np.testing.assert_array_equal(np.asarray(h), [[0, 0, 2], [0, 0, 1], [2, 1, 0]])


# ---------------------------------------------------------------------------------------------
# Cumulative reductions

CUMULATIVE = ["cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"]


@pytest.mark.parametrize("name", CUMULATIVE)
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_cumulative_grads(name, axis, reverse, n):
    fn = getattr(lax, name)
    shape = (n, 3) if axis == 0 else (3, n)
    x = distinct(shape, 7) / max(n, 2)
    if name == "cumprod":
        x = x + np.where(rng(8).random(shape) > 0.7, -x, 0.0)  # some exact zeros
    check_grads(lambda x: fn(x, axis, reverse=reverse), [x])


@pytest.mark.parametrize("name", CUMULATIVE)
@pytest.mark.parametrize("bdim", [0, 1, 2])
@pytest.mark.parametrize("axis", [0, 1])
def test_cumulative_vmap(name, bdim, axis):
    fn = getattr(lax, name)
    x = distinct((3, 4, 5), 9) / 10
    check_vmap(lambda x: fn(x, axis), [x], (bdim,))
    check_vmap(lambda x: fn(x, axis, reverse=True), [x], (bdim,), out_axes=1)


def test_cumulative_vmap_ints():
    x = rng(10).integers(-5, 5, (3, 4)).astype(np.int32)
    for name in ("cumsum", "cumprod", "cummax", "cummin"):
        check_vmap(lambda x, name=name: getattr(lax, name)(x, 0), [x], (1,))


def test_cumulative_conventions():
    # From JAX: ties split along its associative-scan tree; products with zeros.
    g = lambda f, x: np.asarray(spmd.grad(lambda x: f(x).sum())(jnp.array(x)))  # noqa: E731
    cummax = lambda x: lax.cummax(x, 0)  # noqa: E731
    np.testing.assert_array_equal(g(cummax, [1.0, 3.0, 3.0, 2.0, 5.0]), [1, 2, 1, 0, 1])
    np.testing.assert_array_equal(g(cummax, [3.0] * 5), [2.125, 1.125, 0.875, 0.375, 0.5])
    np.testing.assert_array_equal(
        g(cummax, [3.0] * 7), [2.3125, 1.3125, 1.0625, 0.5625, 0.875, 0.375, 0.5]
    )
    np.testing.assert_array_equal(
        g(lambda x: lax.cummax(x, 0, reverse=True), [3.0] * 7),
        [0.5, 0.375, 0.875, 0.5625, 1.0625, 1.3125, 2.3125],
    )
    np.testing.assert_array_equal(
        g(lambda x: lax.cummin(x, 0), [1.0, 3.0, 1.0, 0.0, 5.0]), [2.5, 0, 0.5, 2, 0]
    )
    np.testing.assert_array_equal(
        g(lambda x: lax.cummin(x, 0, reverse=True), [2.0, 1.0, 1.0, 3.0, 1.0]), [0, 0.5, 1, 0, 3.5]
    )
    np.testing.assert_array_equal(
        g(lambda x: lax.cumprod(x, 0), [1.0, 0.0, 3.0, 0.0, 5.0]), [1, 4, 0, 0, 0]
    )
    cle = lambda x: lax.cumlogsumexp(x, 0)  # noqa: E731
    np.testing.assert_allclose(g(cle, [-math.inf, 0.0, 1.0]), [1, 1.26894142, 0.73105858])
    np.testing.assert_allclose(
        g(cle, [0.0, -math.inf, 1.0, 2.0]), [2.35897199, 0, 0.97578705, 0.66524096]
    )


def test_cumsum_transpose_is_reverse_cumsum():
    x = distinct((4,), 11)
    c = np.array([1.0, 2.0, 3.0, 4.0])
    for reverse, want in [(False, np.cumsum(c[::-1])[::-1]), (True, np.cumsum(c))]:
        _, pullback = spmd.vjp(lambda x, r=reverse: lax.cumsum(x, 0, reverse=r), x)
        np.testing.assert_array_equal(np.asarray(pullback(c)[0]), want)


# ---------------------------------------------------------------------------------------------
# sort and top_k


@pytest.mark.parametrize("dimension", [0, 1, 2])
def test_sort_grads(dimension):
    check_grads(lambda x: lax.sort(x, dimension=dimension), [distinct((2, 3, 4), 12)])


def test_sort_multiple_operands_grads():
    k = distinct((3, 4), 13)
    v = rng(14).standard_normal((3, 4))
    check_grads(lambda k, v: lax.sort((k, v), dimension=1, num_keys=1), [k, v])
    check_grads(lambda v: lax.sort((k, v), dimension=0, num_keys=1)[1], [v])
    # Two keys, the second breaking ties of the first; an integer operand along for the ride.
    k1 = np.array([[1.0, 0.0, 1.0, 0.0], [2.0, 2.0, 1.0, 1.0]])
    ints = np.arange(8, dtype=np.int32).reshape(2, 4)
    k2, v2 = distinct((2, 4), 19), rng(20).standard_normal((2, 4))
    check_grads(lambda k2, v: lax.sort((k1, k2, v, ints), num_keys=2)[1:], [k2, v2])


@pytest.mark.parametrize("dimension", [0, 1])
@pytest.mark.parametrize("bdims", [(0, 0), (1, 1), (2, 0), (None, 1), (0, None)], ids=str)
def test_sort_vmap(dimension, bdims):
    r = rng(15)
    # A batch of 3 examples of shape (4, 5), batched along each operand's own dimension.
    k = r.integers(0, 3, (3, 4, 5)).astype(np.float64)  # ties: the sort is stable
    v = r.standard_normal((3, 4, 5))
    kd, vd = bdims
    k = k[0] if kd is None else np.moveaxis(k, 0, kd)
    v = v[0] if vd is None else np.moveaxis(v, 0, vd)
    check_vmap(lambda k, v: lax.sort((k, v), dimension=dimension, num_keys=1), [k, v], (kd, vd))
    if kd is not None:
        check_vmap(lambda k: lax.sort(k, dimension=dimension), [k], (kd,))


def test_sort_ties_and_batched_gradients():
    g = spmd.grad(lambda x: jnp.sort(x)[0])(jnp.array([1.0, 1.0]))
    np.testing.assert_array_equal(np.asarray(g), [1, 0])
    g = spmd.grad(lambda x: lax.sort(x)[0])(jnp.array([1.0, 1.0, 0.0]))
    np.testing.assert_array_equal(np.asarray(g), [0, 0, 1])
    x = distinct((3, 5), 16)
    w = np.arange(5.0)
    per_row = spmd.vmap(spmd.grad(lambda x: (lax.sort(x) * w).sum()))(x)
    want = np.stack([w[np.argsort(np.argsort(row))] for row in x])
    np.testing.assert_array_equal(np.asarray(per_row), want)
    through_vmap = spmd.grad(lambda x: (spmd.vmap(lax.sort)(x) * w).sum())(x)
    np.testing.assert_array_equal(np.asarray(through_vmap), want)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_top_k_grads(axis):
    check_grads(lambda x: lax.top_k(x, 2, axis=axis), [distinct((3, 4, 5), 17)])


@pytest.mark.parametrize("bdim", [0, 1, 2])
@pytest.mark.parametrize("axis", [0, 1])
def test_top_k_vmap(bdim, axis):
    x = rng(18).integers(0, 4, (3, 4, 5)).astype(np.float64)
    check_vmap(lambda x: lax.top_k(x, 2, axis=axis), [x], (bdim,))


def test_top_k_conventions():
    g = spmd.grad(lambda x: lax.top_k(x, 2)[0].sum())(jnp.array([1.0, 3.0, 3.0, 3.0]))
    np.testing.assert_array_equal(np.asarray(g), [0, 1, 1, 0])
    x = jnp.array([1.0, math.nan, 3.0, 3.0, -0.0, 0.0])
    g = spmd.grad(lambda x: lax.top_k(x, 3)[0] @ jnp.array([1.0, 2.0, 3.0]))(x)
    np.testing.assert_array_equal(np.asarray(g), [0, 1, 2, 3, 0, 0])
    _, t = spmd.jvp(lambda x: lax.top_k(x, 2)[1], (x,), (x,))
    assert np.asarray(t).dtype == spmd.dtypes.float0


NESTED = {
    "cummax": lambda x: (lax.cummax(x, 0) * np.arange(1.0, 7.0)).sum(),
    "cumprod": lambda x: (lax.cumprod(x, 0, reverse=True) ** 2).sum(),
    "cumlogsumexp": lambda x: lax.cumlogsumexp(x, 0).sum(),
    "sort": lambda x: (lax.sort(x) * np.arange(6.0)).sum(),
    "top_k": lambda x: (lax.top_k(x, 3)[0] * np.arange(3.0)).sum(),
    "reduce_prod": lambda x: lax.reduce_prod(x, (0,)),
    "reduce_max": lambda x: lax.reduce_max(x, (0,)),
}


@pytest.mark.parametrize("name", sorted(NESTED))
def test_gradients_under_vmap_and_jit(name):
    # Rules composed: vmap of grad (eager and jitted), grad of vmap, and jacfwd of vmap.
    f = NESTED[name]
    x = rng(21).standard_normal((4, 6))
    want = np.stack([np.asarray(spmd.grad(f)(r)) for r in x])
    np.testing.assert_allclose(np.asarray(spmd.vmap(spmd.grad(f))(x)), want, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(spmd.jit(spmd.vmap(spmd.grad(f)))(x)), want, rtol=1e-12)
    got = spmd.grad(lambda x: spmd.vmap(f)(x).sum())(x)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12)
    jac = np.asarray(spmd.jacfwd(spmd.vmap(f))(x))
    np.testing.assert_allclose(np.einsum("iij->ij", jac), want, rtol=1e-12)
