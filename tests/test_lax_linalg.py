"""spmd.lax.linalg's functions beyond the decompositions (triangular_solve, tridiagonal_solve,
householder_product, ormqr, lu_pivots_to_permutation, cholesky_update, symmetric_product,
tridiagonal, hessenberg, schur, qdwh, the implementation enums) against JAX 0.10.2's results
(``tests/golden/lax_linalg.json`` from ``tests/golden_gen/lax_linalg_gen.py`` and the cases of
``tests/cases_lax_linalg.py``), compared as ``test_linalg_more`` compares: eagerly and under
jit, gradients of a scalar loss, errors by class and message. vmap is checked against a loop,
and the derivative rules of the two solves against finite differences.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from cases_lax_linalg import CASES, grid
from golden_compare import assert_raises_like_jax, case_grad, mode_params, to_spmd
from test_linalg_more import _compare, _compare_plain

import spmd
import spmd.lax.linalg  # noqa: F401 -- makes spmd.lax.linalg an attribute, as in JAX
import spmd.numpy as jnp
from spmd import lax
from spmd.test_util import check_grads

GOLDEN = json.loads((Path(__file__).parent / "golden" / "lax_linalg.json").read_text())["cases"]
RTOL = 2e-5  # float32 LAPACK-style kernels, rounded in another order than JAX's


def _run(case, mode):
    fn, args = case.build(jnp, lax)
    args = [to_spmd(a) for a in args]
    return (spmd.jit(fn) if mode == "jit" else fn)(*args)


@pytest.mark.parametrize("case,mode", mode_params(CASES, lambda c: not c.error))
def test_values(case, mode, request):
    if case.x64:
        request.getfixturevalue("x64")
    golden = GOLDEN[case.name]
    _compare(case, _run(case, mode), golden.get(mode, golden["eager"]), RTOL)


@pytest.mark.parametrize(
    "case,mode", mode_params(CASES, lambda c: c.grad is not None, ("eager", "jit"))
)
def test_grad(case, mode):
    _compare_plain(case_grad(case, mode, jnp, lax), GOLDEN[case.name]["grad"], 1e-4)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES if c.error])
def test_errors(case, request):
    if case.x64:
        request.getfixturevalue("x64")
    assert_raises_like_jax(case, GOLDEN[case.name], "eager", jnp, lax)


def test_every_case_has_a_golden():
    assert sorted(c.name for c in CASES) == sorted(GOLDEN)


def test_public_names_are_jax_s():
    # dir(jax.lax.linalg) in JAX 0.10.2, less the module's own imports.
    names = (
        "EigImplementation EighImplementation SvdAlgorithm cholesky cholesky_p cholesky_update "
        "cholesky_update_p eig eig_p eigh eigh_p hessenberg hessenberg_p householder_product "
        "householder_product_p lu lu_p lu_pivots_to_permutation lu_pivots_to_permutation_p "
        "ormqr ormqr_p qdwh qr qr_p schur schur_p svd svd_p symmetric_product "
        "symmetric_product_p triangular_solve triangular_solve_p tridiagonal tridiagonal_p "
        "tridiagonal_solve tridiagonal_solve_p"
    ).split()
    missing = [n for n in names if not hasattr(spmd.lax.linalg, n)]
    assert not missing, missing


def test_enums_are_jax_s():
    L = spmd.lax.linalg
    assert [(e.name, e.value) for e in L.SvdAlgorithm] == [
        ("DEFAULT", "default"), ("QR", "QR"), ("JACOBI", "Jacobi"), ("POLAR", "polar"),
        ("DIVIDE_AND_CONQUER", "divide_and_conquer"),
    ]  # fmt: skip
    assert [e.value for e in L.EighImplementation] == ["qr", "jacobi", "qdwh"]
    assert [e.value for e in L.EigImplementation] == ["cusolver", "magma", "lapack"]


# ---------------------------------------------------------------------------------------------
# vmap against a loop over the examples; derivatives against finite differences


def _vmap_cases():
    L = lambda: spmd.lax.linalg  # noqa: E731
    a = grid((3, 4, 4), 1) + 3 * np.eye(4, dtype=np.float32)
    return [
        ("triangular_solve", lambda x, b: L().triangular_solve(x, b, left_side=True, lower=True),
         (a, grid((3, 4, 2), 2)), (0, 0)),
        ("triangular_solve_b_only", lambda x, b: L().triangular_solve(x, b, transpose_a=True),
         (a[0], grid((3, 2, 4), 3)), (None, 0)),
        ("tridiagonal_solve", L().tridiagonal_solve,
         (grid((3, 4), 4), grid((3, 4), 5) + 4, grid((3, 4), 6), grid((3, 4, 2), 7)),
         (0, 0, 0, 0)),
        ("householder_product", L().householder_product,
         (grid((3, 4, 2), 8), np.abs(grid((3, 2), 9))), (0, 0)),
        ("tridiagonal", lambda x: L().tridiagonal(x), (a + np.swapaxes(a, 1, 2),), (0,)),
        ("hessenberg", lambda x: L().hessenberg(x), (a,), (0,)),
        ("lu_pivots_to_permutation", lambda p: L().lu_pivots_to_permutation(p, 4),
         (np.array([[3, 1, 2], [0, 2, 2], [1, 1, 3]], np.int32),), (0,)),
    ]  # fmt: skip


@pytest.mark.parametrize(
    "name,fn,args,axes", _vmap_cases(), ids=lambda v: v if isinstance(v, str) else ""
)
def test_vmap_matches_loop(name, fn, args, axes):
    got = spmd.vmap(fn, in_axes=axes)(*args)
    n = next(a.shape[0] for a, ax in zip(args, axes) if ax is not None)
    for i in range(n):
        one = fn(*(a if ax is None else a[i] for a, ax in zip(args, axes)))
        for g, w in zip(spmd.tree_util.tree_leaves(got), spmd.tree_util.tree_leaves(one)):
            np.testing.assert_allclose(np.asarray(g)[i], np.asarray(w), rtol=1e-5, atol=1e-6)


def _ts_with(kw):
    return lambda x, y: spmd.lax.linalg.triangular_solve(x, y, **kw)


def test_triangular_solve_derivatives_match_finite_differences():
    with spmd.enable_x64(True):
        a = jnp.asarray((grid((3, 3), 1) + 3 * np.eye(3)).astype(np.float64))
        b = jnp.asarray(grid((3, 2), 2).astype(np.float64))
        check_grads(_ts_with(dict(left_side=True, lower=True)), (a, b), 1, ("fwd", "rev"))
        kw = dict(transpose_a=True, unit_diagonal=True)
        check_grads(_ts_with(kw), (a, b.T), 1, ("fwd", "rev"))
        c = jnp.asarray(grid((3, 3), 3, np.complex128) + 3 * np.eye(3))
        kw = dict(left_side=True, transpose_a=True, conjugate_a=True)
        check_grads(_ts_with(kw), (c, b.astype(c.dtype)), 1, ("fwd", "rev"))


def test_tridiagonal_solve_derivatives_match_finite_differences():
    with spmd.enable_x64(True):
        args = [jnp.asarray(grid((4,), s).astype(np.float64)) for s in (1, 2, 3)]
        args[1] = args[1] + 4
        b = jnp.asarray(grid((4, 2), 4).astype(np.float64))
        check_grads(spmd.lax.linalg.tridiagonal_solve, (*args, b), order=1, modes=("fwd", "rev"))


def test_scipy_hessenberg_still_rebuilds_its_input():
    # hessenberg_p now returns gehrd's packed form; scipy's (H, Q) is rebuilt from it.
    import spmd.scipy.linalg

    x = jnp.asarray(grid((4, 4), 3))
    h, q = spmd.scipy.linalg.hessenberg(x, calc_q=True)
    np.testing.assert_allclose(np.asarray(q @ h @ q.T), np.asarray(x), atol=1e-5)
    assert np.all(np.tril(np.asarray(h), -2) == 0)
