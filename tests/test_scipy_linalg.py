"""spmd.scipy.linalg against results recorded from JAX 0.10.2 (``tests/golden/scipy_linalg.json``,
written by ``tests/golden_gen/scipy_linalg_gen.py`` from the cases of
``tests/cases_scipy_linalg.py``; JAX is not needed here).

Each case runs eagerly and under ``spmd.jit`` and is compared as in ``test_linalg_more.py``
(whose helpers this reuses): exact dtypes, weak types, shapes and integers, floats within the
case's relative tolerance; eigenvectors and singular vectors up to a phase, Schur forms by
their properties. Gradients of a scalar loss are compared the same way. Error cases raise
JAX's builtin exception class with a message naming the function and the sizes. ``vmap`` is
checked against a loop, and derivatives in float64 against central differences.
"""

from __future__ import annotations

import doctest
import json
from pathlib import Path

import numpy as np
import pytest
from cases_scipy_linalg import A5, AB, B3, B32, BB, CASES, LOW, R35, R53, SPD, UPP, flatten
from golden_compare import (
    assert_raises_like_jax,
    assert_vmap_matches_loop,
    case_grad,
    mode_params,
    to_spmd,
)
from test_linalg_more import (
    _check_jvp_and_vjp,
    _check_leaf,
    _compare_plain,
    _decode,
    _match_eigenvalues,
)
from test_linalg_more import _compare as _compare_more

import spmd
import spmd.numpy as jnp
import spmd.scipy.linalg as sla
from spmd import lax

GOLDEN = json.loads((Path(__file__).parent / "golden" / "scipy_linalg.json").read_text())["cases"]

RTOL = {"float32": 1e-5, "complex64": 1e-5, "float64": 1e-12, "complex128": 1e-12}


def _rtol(case, rec=None) -> float:
    if case.rtol is not None:
        return case.rtol
    return 1e-12 if case.x64 else 1e-5


def _check_svd(case, leaves, recs, rtol):
    """``(u, s, vh)``: s as it is, each singular vector up to a phase (sign)."""
    _check_leaf(leaves[1], recs[1], "s", rtol)
    for i, (axis, name) in ((0, (-2, "u")), (2, (-1, "vh"))):
        got, want = np.asarray(leaves[i]), _decode(recs[i])
        assert got.dtype.name == recs[i]["dtype"] and list(got.shape) == recs[i]["shape"], name
        overlap = np.sum(np.conj(got) * want, axis=axis, keepdims=True)
        aligned = got * overlap / np.where(overlap == 0, 1, np.abs(overlap))
        np.testing.assert_allclose(aligned, want, rtol=rtol, atol=rtol * 10, err_msg=name)


def _check_schur(case, leaves, recs, rtol):
    """``(t, z)``: z unitary, t (quasi-)upper triangular, z t z^H the input, and t's
    eigenvalues JAX's (the Schur form is unique only up to order and phases)."""
    t, z = (np.asarray(x) for x in leaves)
    for x, r, name in ((t, recs[0], "t"), (z, recs[1], "z")):
        assert x.dtype.name == r["dtype"] and list(x.shape) == r["shape"], name
    a = np.asarray(case.args[0])
    atol = rtol * 10 * max(1.0, np.abs(a).max())
    eye = np.eye(a.shape[-1])
    np.testing.assert_allclose(
        np.conj(np.swapaxes(z, -1, -2)) @ z, np.broadcast_to(eye, z.shape), atol=atol
    )
    np.testing.assert_allclose(z @ t @ np.conj(np.swapaxes(z, -1, -2)), a, atol=atol)
    assert not np.tril(t, -2).any(), "t has entries below the first subdiagonal"
    sub = np.diagonal(t, -1, -2, -1)
    if t.dtype.kind == "c":
        assert not sub.any(), "complex Schur form: t is not triangular"
    else:
        assert not (sub[..., 1:] != 0)[sub[..., :-1] != 0].any(), "2 x 2 blocks overlap"
    got_w = np.linalg.eigvals(t)
    want_w = np.linalg.eigvals(_decode(recs[0]))
    perm = _match_eigenvalues(got_w, want_w)
    np.testing.assert_allclose(
        np.take_along_axis(got_w, perm, -1), want_w, rtol=rtol * 10, atol=atol
    )


def _check_eigh(case, leaves, recs, rtol):
    """``(w, v)`` of a Hermitian matrix: w (ascending) as it is, each eigenvector up to a
    phase (the kernels normalise phases differently)."""
    _check_leaf(leaves[0], recs[0], "eigenvalues", rtol)
    got, want = np.asarray(leaves[1]), _decode(recs[1])
    assert got.dtype.name == recs[1]["dtype"] and list(got.shape) == recs[1]["shape"]
    overlap = np.sum(np.conj(got) * want, axis=-2, keepdims=True)
    aligned = got * overlap / np.abs(overlap)
    np.testing.assert_allclose(aligned, want, rtol=rtol, atol=rtol * 10, err_msg="eigenvectors")


def _compare(case, out, golden, rtol):
    tree, leaves = flatten(out)
    assert tree == golden["tree"], f"output structure {tree}, expected {golden['tree']}"
    if case.compare == "eigh":
        _check_eigh(case, leaves, golden["leaves"], rtol)
    elif case.compare == "svd":
        _check_svd(case, leaves, golden["leaves"], rtol)
    elif case.compare == "schur":
        _check_schur(case, leaves, golden["leaves"], rtol)
    else:
        _compare_more(case, out, golden, rtol)


def _x64(case, request):
    if case.x64:
        request.getfixturevalue("x64")


@pytest.mark.parametrize("case,mode", mode_params(CASES, lambda c: not c.error))
def test_values(case, mode, request):
    _x64(case, request)
    fn, args = case.build(jnp, lax)
    args = [to_spmd(a) for a in args]
    out = (spmd.jit(fn) if mode == "jit" else fn)(*args)
    golden = GOLDEN[case.name]
    _compare(case, out, golden.get(mode, golden["eager"]), _rtol(case))


@pytest.mark.parametrize(
    "case,mode", mode_params(CASES, lambda c: c.grad is not None, ("eager", "jit"))
)
def test_grad(case, mode, request):
    _x64(case, request)
    got = case_grad(case, mode, jnp, lax)
    _compare_plain(got, GOLDEN[case.name]["grad"], 10 * _rtol(case))


@pytest.mark.parametrize("case,mode", mode_params(CASES, lambda c: c.error, ("eager", "jit")))
def test_errors(case, mode):
    assert_raises_like_jax(case, GOLDEN[case.name], mode, jnp, lax)


def test_every_case_has_a_golden():
    assert sorted(c.name for c in CASES) == sorted(GOLDEN)


def test_public_names_are_jax_s():
    names = """block_diag cho_factor cho_solve cholesky circulant companion convolution_matrix det
    dft eigh eigh_tridiagonal expm expm_frechet fiedler fiedler_companion funm hadamard hankel
    helmert hessenberg hilbert inv invhilbert invpascal leslie lu lu_factor lu_solve pascal polar
    qr qr_multiply rsf2csf schur solve solve_sylvester solve_triangular sqrtm svd toeplitz"""
    assert sorted(n for n in dir(sla) if not n.startswith("_")) == sorted(names.split())


# ---------------------------------------------------------------------------------------------
# vmap: against a loop over the examples

A5B = np.stack([A5, A5.T.copy(), A5 + np.eye(5, dtype=np.float32)])
AB3 = np.stack([*AB, AB[0] * 2])
LOWB = np.stack([LOW, LOW * 2, LOW + np.eye(3, dtype=np.float32)])
BB3 = np.stack([*BB, BB[0] + 1])
B3B = np.stack([B3, -B3, B3 * 2])
SPDB3 = np.stack([SPD, SPD * 2, SPD + np.eye(3, dtype=np.float32)])
VMAP_CASES = {
    "lu": (sla.lu, (A5B,), 0),
    "lu_wide": (sla.lu_factor, (np.stack([R35, R35[::-1].copy()]),), 0),
    "lu_solve": (lambda a, b: sla.lu_solve(sla.lu_factor(a), b), (AB3, B3B), 0),
    "lu_solve_in_axes": (
        lambda a, b: sla.lu_solve(sla.lu_factor(a), b, trans=1),
        (AB3, B32),
        (0, None),
    ),
    "solve_triangular": (lambda a, b: sla.solve_triangular(a, b, lower=True), (LOWB, BB3), 0),
    "cho_solve": (lambda a, b: sla.cho_solve(sla.cho_factor(a), b), (SPDB3, B3B), 0),
    "solve_pos": (lambda a, b: sla.solve(a, b, assume_a="pos"), (SPDB3, BB3), 0),
    "qr_pivoting": (lambda a: sla.qr(a, pivoting=True), (np.stack([R53, R53[::-1].copy()]),), 0),
    "hessenberg": (lambda a: sla.hessenberg(a, calc_q=True), (A5B,), 0),
    "schur_axis1": (sla.schur, (np.moveaxis(A5B, 0, 1).copy(),), 1),
    "expm": (sla.expm, (AB3,), 0),
    "expm_frechet": (sla.expm_frechet, (AB3 / 4, AB3[::-1] / 4), 0),
    "sqrtm": (sla.sqrtm, (SPDB3,), 0),
    "funm": (lambda a: sla.funm(a, jnp.exp), (AB3 / 2,), 0),
    "polar": (sla.polar, (AB3,), 0),
    "toeplitz": (sla.toeplitz, (B3B, B3B[::-1]), 0),
    "eigh_tridiagonal": (
        lambda d, e: sla.eigh_tridiagonal(d, e, eigvals_only=True),
        (B3B, B3B[:, :2]),
        0,
    ),
    "solve_sylvester": (sla.solve_sylvester, (AB3, AB3[::-1], SPDB3), 0),
    "grad_lu": (spmd.grad(lambda a: sla.lu(a)[2].sum()), (A5B,), 0),
    "grad_expm": (spmd.grad(lambda a: sla.expm(a).sum()), (AB3,), 0),
}


@pytest.mark.parametrize("name", sorted(VMAP_CASES))
def test_vmap_matches_loop(name):
    fn, args, in_axes = VMAP_CASES[name]
    assert_vmap_matches_loop(fn, args, in_axes, flatten, name)


# ---------------------------------------------------------------------------------------------
# Behaviour beyond the golden values


def test_schur_and_hessenberg_have_no_derivative():
    # As in JAX: neither decomposition has a differentiation rule (nor sqrtm and funm, which
    # are built on schur).
    for f in (lambda a: sla.schur(a)[0], sla.hessenberg, sla.sqrtm):
        with pytest.raises(NotImplementedError, match="Differentiation rule"):
            spmd.jvp(f, (A5,), (A5,))


def test_lu_reconstructs_and_pivots_like_getrf():
    p, l, u = (np.asarray(x) for x in sla.lu(A5))
    np.testing.assert_allclose(p @ l @ u, A5, atol=1e-5)
    assert np.all(np.abs(np.tril(l, -1)) <= 1)  # partial pivoting: multipliers at most 1
    lu, piv = sla.lu_factor(np.array([[0.0, 1.0], [2.0, 3.0]], np.float32))
    assert np.asarray(piv).tolist() == [1, 1]


def test_qr_pivoting_orders_columns_by_norm():
    q, r, p = (np.asarray(x) for x in sla.qr(R53, pivoting=True))
    np.testing.assert_allclose(q @ r, R53[:, p], atol=1e-5)
    d = np.abs(np.diagonal(r))
    assert np.all(d[:-1] >= d[1:] - 1e-6)


def test_expm_of_a_rotation_generator():
    theta = 0.7
    got = np.asarray(sla.expm(np.array([[0.0, -theta], [theta, 0.0]], np.float32)))
    want = [[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]]
    np.testing.assert_allclose(got, want, atol=1e-6)


def test_expm_products_ignore_the_default_matmul_precision():
    # jax: expm's Padé products and squarings are dots at HIGHEST precision, so under
    # default_matmul_precision('F16_F16_F16') expm(A) is unchanged ([0.47539124, -0.12109489,
    # ...] for this A); float16 products made it NaN (Padé coefficients beyond float16's range)
    a = (np.arange(16, dtype=np.float32).reshape(4, 4) % 5 - 2) / 3
    want, scaled = np.asarray(sla.expm(a)), np.asarray(sla.expm(a * 8))  # squarings too
    np.testing.assert_allclose(want.ravel()[:2], [0.47539124, -0.12109489], rtol=1e-6)
    with spmd.default_matmul_precision("F16_F16_F16"):
        np.testing.assert_array_equal(np.asarray(sla.expm(a)), want)
        np.testing.assert_array_equal(np.asarray(spmd.jit(sla.expm)(a * 8)), scaled)


def test_sqrtm_products_ignore_the_default_matmul_precision():
    # jax: sqrtm's products are at HIGHEST precision: unchanged under a float16 default
    s = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, 0.2, 2.0]], np.float32)
    want = np.asarray(sla.sqrtm(s))
    with spmd.default_matmul_precision("F16_F16_F16"):
        np.testing.assert_array_equal(np.asarray(sla.sqrtm(s)), want)


# Derivatives in float64 against central differences (lu's own rule; the rest compose).


@pytest.mark.parametrize("shape", [(5, 5), (5, 3), (3, 5)])
def test_lu_derivatives_float64(x64, shape):
    a = A5[: shape[0], : shape[1]].astype(np.float64)
    t = np.sin(np.arange(a.size, dtype=np.float64)).reshape(a.shape)
    _check_jvp_and_vjp(lambda m: sla.lu(m), a, t)
    # Complex: |re| + |im| picks the pivots; no ties in a + 0.3i a^T.
    c = a + 0.3j * a[::-1, ::-1]
    _check_jvp_and_vjp(lambda m: sla.lu_factor(m)[0], c, t + 0.5j * t)


def test_solver_derivatives_float64(x64):
    t = np.cos(np.arange(9.0)).reshape(3, 3)
    b = B32.astype(np.float64)
    _check_jvp_and_vjp(lambda m: sla.solve_triangular(m, b, trans=1), UPP.astype(np.float64), t)
    _check_jvp_and_vjp(
        lambda m: sla.cho_solve(sla.cho_factor(m), b), SPD.astype(np.float64), t + t.T
    )
    _check_jvp_and_vjp(
        lambda m: sla.lu_solve(sla.lu_factor(m), b, trans=2), A5[:3, :3].astype(np.float64), t
    )
    _check_jvp_and_vjp(sla.expm, A5[:3, :3].astype(np.float64), t, tol=1e-6)


def test_schur_of_a_defective_matrix():
    # A Jordan block in disguise: the eigenvectors are (nearly) parallel, and the Schur form
    # must still reconstruct the matrix with a unitary Z.
    s = np.cos(np.arange(16.0)).reshape(4, 4) + 2 * np.eye(4)
    j = np.array([[2.0, 1, 0, 0], [0, 2, 1, 0], [0, 0, 2, 0], [0, 0, 0, 3]])
    a = (s @ j @ np.linalg.inv(s)).astype(np.float32)
    for output in ("real", "complex"):
        t, z = (np.asarray(x) for x in sla.schur(a, output=output))
        np.testing.assert_allclose(z @ t @ z.conj().T, a, atol=1e-4)
        np.testing.assert_allclose(z.conj().T @ z, np.eye(4), atol=1e-5)
        assert not np.tril(t, -1 if output == "complex" else -2).any()


@pytest.mark.parametrize(
    "name",
    [
        "spmd._src.scipy.linalg",
        "spmd._src.scipy.linalg_functions",
        "spmd._src.scipy.linalg_matrices",
        "spmd._src.lax.linalg_lu_schur",
    ],
)
def test_docstring_examples(name):
    import importlib

    mod = importlib.import_module(name)
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(mod, extraglobs={"jnp": jnp, "np": np}, optionflags=flags)
    assert result.failed == 0 and result.attempted > 0


def test_empty_matrices():
    # JAX 0.10.2 returns empty results for 0 x 0 input here (shapes recorded from it).
    a = np.zeros((0, 0), np.float32)
    assert sla.expm(a).shape == (0, 0)
    assert [x.shape for x in sla.lu(a)] == [(0, 0)] * 3
    assert [x.shape for x in sla.schur(a)] == [(0, 0)] * 2
    assert [x.shape for x in sla.polar(a)] == [(0, 0)] * 2
    assert sla.hessenberg(a).shape == sla.cholesky(a).shape == sla.inv(a).shape == (0, 0)
    assert sla.lu_factor(np.zeros((0, 3), np.float32))[0].shape == (0, 3)
