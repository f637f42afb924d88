"""Transformation rules of the linear-algebra primitives (``spmd._src.lax.linalg``): batching
against a per-slice loop, forward mode against central finite differences in float64 (real and
complex), reverse mode by <ct, J t> == <J^T ct, t>, and jnp.linalg on top of them (values and
gradients hard-coded from JAX 0.10.2).
"""

from __future__ import annotations

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd._src.lax import linalg as L

F32 = np.float32


def _rand(rng, shape, cplx=False):
    x = rng.standard_normal(shape)
    return x + 1j * rng.standard_normal(shape) if cplx else x


def _leaves(outs) -> list:
    return list(outs) if isinstance(outs, (tuple, list)) else [outs]


def check_derivatives(f, args, seed=0, eps=1e-6, tol=1e-7):
    """jvp against central differences along random tangents; vjp by the real pairing
    re(sum(ct * J t)) == re(sum(vjp(ct) * t)) (JAX's convention: no conjugation)."""
    rng = np.random.default_rng(seed)
    ts = [_rand(rng, np.shape(a), np.iscomplexobj(a)) for a in args]
    plus = _leaves(f(*[a + eps * t for a, t in zip(args, ts)]))
    minus = _leaves(f(*[a - eps * t for a, t in zip(args, ts)]))
    fd = [(np.asarray(p) - np.asarray(m)) / (2 * eps) for p, m in zip(plus, minus)]
    _, t_out = spmd.jvp(f, tuple(args), tuple(ts))
    scale = 1 + max(np.abs(d).max() for d in fd)
    for got, want in zip(_leaves(t_out), fd):
        np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol * scale)
    outs, pullback = spmd.vjp(f, *args)
    cts = [_rand(rng, np.shape(o), np.iscomplexobj(np.asarray(o))) for o in _leaves(outs)]
    cts_in = pullback(tuple(cts) if isinstance(outs, (tuple, list)) else cts[0])
    lhs = sum(np.real(np.sum(c * d)) for c, d in zip(cts, fd))
    rhs = sum(np.real(np.sum(np.asarray(c) * t)) for c, t in zip(cts_in, ts))
    assert abs(lhs - rhs) <= tol * (1 + abs(lhs)), (lhs, rhs)


def check_vmap(f, args, in_axes, size=3):
    got = _leaves(spmd.vmap(f, in_axes=in_axes)(*args))
    rows = [
        _leaves(f(*[a if ax is None else np.take(a, k, axis=ax) for a, ax in zip(args, in_axes)]))
        for k in range(size)
    ]
    for j, g in enumerate(got):
        want = np.stack([np.asarray(r[j]) for r in rows])
        np.testing.assert_allclose(np.asarray(g), want, rtol=1e-5, atol=1e-5)


def _spd(rng, n, batch=(), cplx=False):
    x = _rand(rng, (*batch, n, n), cplx)
    return x @ np.conj(np.swapaxes(x, -1, -2)) + n * np.eye(n)


# ---------------------------------------------------------------------------------------------
# Batching


VMAP_FNS = {
    "det": (L.det, [(3, 3)]),
    "inv": (L.inv, [(3, 3)]),
    "slogdet": (L.slogdet, [(3, 3)]),
    "solve_vec": (L.solve, [(3, 3), (3,)]),
    "solve_mat": (L.solve, [(2, 3, 3), (2, 3, 2)]),
    "eigh": (lambda x: L.eigh(x, symmetrize_input=False), [(3, 3)]),
    "qr": (lambda x: L.qr(x, full_matrices=False), [(4, 3)]),
    "svd": (lambda x: L.svd(x, full_matrices=False), [(4, 3)]),
    "svdvals": (lambda x: L.svd(x, compute_uv=False), [(2, 3, 4)]),
}


@pytest.mark.parametrize("name", sorted(VMAP_FNS))
def test_vmap_matches_loop(name):
    fn, shapes = VMAP_FNS[name]
    rng = np.random.default_rng(len(name))
    n = len(shapes)
    variants = [tuple([0] * n), tuple(len(s) for s in shapes)]
    if n == 2:
        variants += [(0, None), (None, 1)]
    for axes in variants:
        args = []
        for s, ax in zip(shapes, axes):
            shape = s if ax is None else s[:ax] + (3,) + s[ax:]
            args.append(rng.standard_normal(shape).astype(F32))
        check_vmap(fn, args, axes)


def test_vmap_cholesky():
    rng = np.random.default_rng(0)
    x = _spd(rng, 3, (3,)).astype(F32)
    check_vmap(L.cholesky, [x], (0,))
    check_vmap(jnp.linalg.cholesky, [np.moveaxis(x, 0, 2)], (2,))


def test_failures_stay_per_matrix():
    # One singular / indefinite matrix in a batch gives NaNs for it only (as a per-matrix loop).
    x = np.stack([2 * np.eye(2), np.zeros((2, 2)), -np.eye(2)]).astype(F32)
    inv = np.asarray(L.inv(x))
    np.testing.assert_array_equal(inv[0], 0.5 * np.eye(2))
    assert np.isnan(inv[1]).all()
    np.testing.assert_array_equal(inv[2], -np.eye(2))
    chol = np.asarray(L.cholesky(x))
    np.testing.assert_allclose(chol[0], np.sqrt(2) * np.eye(2), rtol=1e-6)
    assert np.isnan(chol[1:]).all()
    sol = np.asarray(L.solve(x, np.ones((3, 2), F32)))
    np.testing.assert_array_equal(sol[[0, 2]], [[0.5, 0.5], [-1, -1]])
    assert np.isnan(sol[1]).all()
    # vmap over the same matrices agrees with the loop.
    check_vmap(L.inv, [x], (0,))


# ---------------------------------------------------------------------------------------------
# Derivatives (float64 and complex128)


def _recon(x):
    # Singular vectors are unique up to phase: check quantities that do not depend on it.
    u, s, vh = L.svd(x, full_matrices=False)
    return (u[..., :2] * s[..., None, :2]) @ vh[..., :2, :], jnp.abs(u), jnp.abs(vh), s


def _eig_proj(x):
    v, w = L.eigh(x)
    return v[..., :2] @ jnp.conj(jnp.swapaxes(v[..., :2], -1, -2)), jnp.abs(v), w


N = 4
DERIV_CASES = {
    "det": (L.det, lambda r, c: [_rand(r, (N, N), c) + 3 * np.eye(N)]),
    "det_batch": (L.det, lambda r, c: [_rand(r, (2, N, N), c) + 3 * np.eye(N)]),
    "inv": (L.inv, lambda r, c: [_rand(r, (N, N), c) + 3 * np.eye(N)]),
    "slogdet": (L.slogdet, lambda r, c: [_rand(r, (N, N), c) + 3 * np.eye(N)]),
    "solve_vec": (L.solve, lambda r, c: [_rand(r, (N, N), c) + 3 * np.eye(N), _rand(r, N, c)]),
    "solve_mat": (
        L.solve,
        lambda r, c: [_rand(r, (2, N, N), c) + 3 * np.eye(N), _rand(r, (2, N, 3), c)],
    ),
    "cholesky": (L.cholesky, lambda r, c: [_spd(r, N, cplx=c)]),
    "cholesky_lower_only": (
        lambda x: L.cholesky(x, symmetrize_input=False),
        lambda r, c: [_spd(r, N, (2,), cplx=c)],
    ),
    "eigh": (_eig_proj, lambda r, c: [_rand(r, (N, N), c)]),
    "eigh_upper": (
        lambda x: (
            _eig_proj(jnp.triu(x) + jnp.conj(jnp.triu(x, 1)).swapaxes(0, 1))
            + L.eigh(x, lower=False, symmetrize_input=False)[1:]
        ),
        lambda r, c: [_rand(r, (N, N), c)],
    ),
    "svd_tall": (_recon, lambda r, c: [_rand(r, (5, 3), c)]),
    "svd_wide": (_recon, lambda r, c: [_rand(r, (3, 5), c)]),
    "svd_square": (_recon, lambda r, c: [_rand(r, (2, N, N), c)]),
    "svdvals": (lambda x: L.svd(x, compute_uv=False), lambda r, c: [_rand(r, (3, 5), c)]),
    "qr_tall": (lambda x: L.qr(x, full_matrices=False), lambda r, c: [_rand(r, (5, 3), c)]),
    "qr_square": (L.qr, lambda r, c: [_rand(r, (N, N), c)]),
}


@pytest.mark.parametrize("cplx", [False, True], ids=["real", "complex"])
@pytest.mark.parametrize("name", sorted(DERIV_CASES))
def test_derivatives(name, cplx, x64):
    fn, make = DERIV_CASES[name]
    rng = np.random.default_rng(len(name) + 7 * cplx)
    check_derivatives(fn, make(rng, cplx), seed=len(name))


def test_real_vectors_directly(x64):
    # For real matrices the vectors are unique up to sign, which is locally constant: the
    # tangents of v, u, vh, q themselves match finite differences.
    rng = np.random.default_rng(1)
    check_derivatives(lambda x: L.eigh(x), [rng.standard_normal((N, N))])
    check_derivatives(lambda x: L.svd(x, full_matrices=False), [rng.standard_normal((5, 3))])
    check_derivatives(lambda x: L.svd(x), [rng.standard_normal((N, N))])


def test_slogdet_sign_tangent_is_zero_for_real(x64):
    x = np.random.default_rng(2).standard_normal((3, 3)) + 3 * np.eye(3)
    _, (t_sign, _) = spmd.jvp(L.slogdet, (x,), (np.ones((3, 3)),))
    assert np.asarray(t_sign) == 0


def test_second_order(x64):
    x = np.random.default_rng(3).standard_normal((3, 3)) + 3 * np.eye(3)
    # d/dx of d det / dx = det * inv^T: check a hessian-vector product against differences.
    g = spmd.grad(L.det)
    t = np.random.default_rng(4).standard_normal((3, 3))
    eps = 1e-6
    fd = (np.asarray(g(x + eps * t)) - np.asarray(g(x - eps * t))) / (2 * eps)
    _, hvp = spmd.jvp(g, (x,), (t,))
    np.testing.assert_allclose(hvp, fd, rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(g(x), np.linalg.det(x) * np.linalg.inv(x).T, rtol=1e-10)


@pytest.mark.parametrize(
    "fn, shape, msg",
    [
        # (qr differentiates every shape and mode, as JAX 0.10.2's: tests/test_linalg_more.py)
        (lambda x: L.svd(x, full_matrices=True), (5, 3), "full_matrices=False"),
    ],
)
def test_unsupported_derivatives_raise(fn, shape, msg):
    x = np.ones(shape, F32)
    with pytest.raises(NotImplementedError, match=msg):
        spmd.jvp(fn, (x,), (x,))


def test_solve_transposes_in_b_only(x64):
    a = np.random.default_rng(5).standard_normal((3, 3)) + 3 * np.eye(3)
    b = np.ones(3)
    ct = spmd.vjp(lambda b: L.solve(a, b), b)[1](np.arange(3.0))[0]
    np.testing.assert_allclose(ct, np.linalg.solve(a.T, np.arange(3.0)), rtol=1e-12)


# ---------------------------------------------------------------------------------------------
# jnp.linalg: values and gradients as JAX 0.10.2 gives them

A_NONSYM = np.array([[2, 2, 1], [1, 3, 2], [0, 1, 4]], F32)


def test_jnp_cholesky_symmetrizes_as_jax():
    want = [[1.4142135, 0, 0], [1.0606601, 1.3693064, 0], [0.35355338, 0.8215838, 1.7888544]]
    np.testing.assert_allclose(jnp.linalg.cholesky(A_NONSYM), want, rtol=1e-6)
    g = spmd.grad(lambda m: jnp.linalg.cholesky(m).sum())(A_NONSYM)
    want = [
        [0.23026922, 0.1191808, 0.1355938],
        [0.1191808, 0.24668242, 0.19744329],
        [0.1355938, 0.19744329, 0.2795085],
    ]
    np.testing.assert_allclose(g, want, rtol=2e-5)


def test_jnp_eigh_grad_as_jax():
    g = spmd.grad(lambda m: jnp.linalg.eigh(m)[0].sum() + jnp.linalg.eigh(m)[0][0])(A_NONSYM)
    want = [
        [1.55235, -0.47749454, 0.13877419],
        [-0.47749454, 1.4127839, -0.11996733],
        [0.13877419, -0.11996733, 1.0348663],
    ]
    np.testing.assert_allclose(g, want, rtol=2e-5, atol=2e-6)


def test_jnp_linalg_grads():
    a = np.array([[3.0, 1.0], [2.0, 4.0]], F32)
    np.testing.assert_allclose(spmd.grad(jnp.linalg.det)(a), [[4, -2], [-1, 3]])
    g = spmd.grad(lambda m: jnp.linalg.slogdet(m)[1])(a)
    np.testing.assert_allclose(g, np.linalg.inv(a).T, rtol=1e-6)
    g = spmd.grad(lambda m: jnp.linalg.inv(m).sum())(a)
    inv = np.linalg.inv(a)
    np.testing.assert_allclose(g, -(inv.T @ np.ones((2, 2)) @ inv.T), rtol=1e-6)
    g = spmd.grad(lambda b: jnp.linalg.solve(a, b).sum())(np.ones(2, F32))
    np.testing.assert_allclose(g, np.linalg.solve(a.T, np.ones(2)), rtol=1e-6)


def test_vmap_of_jnp_linalg():
    rng = np.random.default_rng(6)
    a = rng.standard_normal((5, 3, 3)).astype(F32) + 3 * np.eye(3, dtype=F32)
    b = rng.standard_normal((5, 3)).astype(F32)
    np.testing.assert_allclose(spmd.vmap(jnp.linalg.det)(a), np.linalg.det(a), rtol=1e-5)
    got = spmd.vmap(jnp.linalg.solve)(a, b)
    np.testing.assert_allclose(got, np.linalg.solve(a, b[..., None])[..., 0], rtol=1e-5)
    got = spmd.vmap(jnp.linalg.solve, in_axes=(None, 0))(a[0], b)
    np.testing.assert_allclose(got, np.linalg.solve(a[0], b.T).T, rtol=1e-5)
    got = spmd.vmap(spmd.grad(jnp.linalg.det))(a)
    want = np.linalg.det(a)[:, None, None] * np.swapaxes(np.linalg.inv(a), 1, 2)
    np.testing.assert_allclose(got, want, rtol=1e-4)


def test_jnp_linalg_prints_its_primitives():
    a = np.eye(3, dtype=F32)
    assert str(spmd.make_jaxpr(jnp.linalg.det)(a)) == (
        "{ lambda ; a:f32[3,3]. let b:f32[] = det a in (b,) }"
    )
    text = str(spmd.make_jaxpr(jnp.linalg.slogdet)(a))
    assert "slogdet a" in text
