"""Golden cases for ``jax.lax.linalg``'s functions beyond the decompositions (triangular_solve,
tridiagonal_solve, householder_product, ormqr, lu_pivots_to_permutation, cholesky_update,
symmetric_product, tridiagonal, hessenberg, schur, qdwh, and the implementation arguments),
run by JAX (``tests/golden_gen/lax_linalg_gen.py`` writes ``tests/golden/lax_linalg.json``)
and by spmd (``tests/test_lax_linalg.py``). The case format is ``cases_linalg_more``'s.

Schur forms are not unique (the order of eigenvalues, the signs of the vectors): those cases
record what is determined, ``Z T Z^H`` and the trace of ``T``. Inputs are deterministic.
"""

from __future__ import annotations

import numpy as np
from cases_linalg_more import Case, flatten, weighted_sum  # noqa: F401 -- re-exported

CASES: list[Case] = []


def case(name: str, make, *args, **kw) -> None:
    if any(c.name == name for c in CASES):
        raise ValueError(f"duplicate case name {name!r}")
    CASES.append(Case(name, make, tuple(args), **kw))


def grid(shape, seed: int = 0, dtype=np.float32) -> np.ndarray:
    """Deterministic values in about [-1.5, 1.5], no two neighbours alike (as matrices, of
    rank 2 at most: add a multiple of the identity where full rank matters)."""
    n = int(np.prod(shape))
    v = np.sin(np.arange(n) * 1.7 + seed) * 1.5
    if np.dtype(dtype).kind == "c":
        v = v + 1j * np.cos(np.arange(n) * 0.9 + seed)
    return v.reshape(shape).astype(dtype)


def _tri(n, seed=0, dtype=np.float32, batch=()):
    """A matrix whose triangles are well conditioned: diagonal 3 + grid values."""
    return (grid((*batch, n, n), seed, dtype) + 3 * np.eye(n)).astype(dtype)


C64 = np.complex64
A4 = _tri(4)
B42 = grid((4, 2), 1)
B24 = grid((2, 4), 2)
AB = _tri(3, 3, batch=(2,))
BB = grid((2, 3, 2), 4)
AC = _tri(3, 5, C64)
BC = grid((3, 2), 6, C64)

# ---- triangular_solve -----------------------------------------------------------------------


def _ts(**kw):
    return lambda jnp, lax: lambda a, b: lax.linalg.triangular_solve(a, b, **kw)


case("ts_left_lower", _ts(left_side=True, lower=True), A4, B42, grad=(0, 1))
case("ts_left_upper_trans", _ts(left_side=True, transpose_a=True), A4, B42, grad=(0, 1))
case("ts_right_lower_unit", _ts(lower=True, unit_diagonal=True), A4, B24, grad=(0, 1))
case("ts_right_upper_trans", _ts(transpose_a=True), A4, B24, grad=(0, 1))
case("ts_vector_left", _ts(left_side=True, lower=True), A4, grid((4,), 7), grad=(0, 1))
case("ts_vector_right", _ts(lower=False), A4, grid((4,), 8))
case("ts_batched", _ts(left_side=True, lower=True, transpose_a=True), AB, BB, grad=(0, 1))
case("ts_complex_conj", _ts(left_side=True, lower=True, conjugate_a=True), AC, BC, grad=(0, 1))
case("ts_complex_adjoint", _ts(left_side=True, transpose_a=True, conjugate_a=True), AC, BC)
case("ts_err_square", _ts(left_side=True), grid((3, 4)), B42, error="ValueError",
     match="triangular_solve.*(3, 4)")  # fmt: skip
case("ts_err_shapes", _ts(), A4, B42, error="ValueError", match="triangular_solve.*(4, 2)")
case("ts_err_dtype", _ts(left_side=True), A4.astype(np.int32), B42, error="TypeError",
     match="triangular_solve.*int32")  # fmt: skip
case("ts_err_dtypes", _ts(left_side=True), A4, B42.astype(np.float64), x64=True,
     error="TypeError", match="triangular_solve.*float32.*float64")  # fmt: skip
case("tds_err_dtypes", lambda jnp, lax: lax.linalg.tridiagonal_solve, np.ones(3, np.float32),
     np.ones(3) * 4, np.ones(3), np.ones((3, 1)), x64=True, error="TypeError",
     match="tridiagonal_solve.*float32")  # fmt: skip
case("ts_err_batch", _ts(), grid((2, 2)), grid((3, 2, 2)), error="TypeError",
     match="triangular_solve.*(3, 2, 2)")  # fmt: skip

# ---- tridiagonal_solve ----------------------------------------------------------------------


def _tds(jnp, lax):
    return lax.linalg.tridiagonal_solve


DL, DD, DU = grid((5,), 1), grid((5,), 2) + 4, grid((5,), 3)
case("tds_basic", _tds, DL, DD, DU, grid((5, 2), 4), grad=(0, 1, 2, 3))
case("tds_batched", _tds, grid((2, 4), 5), grid((2, 4), 6) + 4, grid((2, 4), 7),
     grid((2, 4, 3), 8), grad=(0, 1, 2, 3))  # fmt: skip
case("tds_complex", _tds, grid((3,), 1, C64), grid((3,), 2, C64) + 4, grid((3,), 3, C64),
     grid((3, 1), 4, C64))  # fmt: skip
case("tds_err_rank", _tds, DL, DD, DU, grid((5,), 4), error="TypeError",
     match="tridiagonal_solve.*(5,)")  # fmt: skip
case("tds_err_diag", _tds, DL[:4], DD, DU, grid((5, 2), 4), error="TypeError",
     match="tridiagonal_solve.*(4,)")  # fmt: skip
case("tds_err_b", _tds, DL, DD, DU, grid((4, 2), 4), error="TypeError",
     match="tridiagonal_solve.*(4, 2)")  # fmt: skip
case("tds_err_dtype", _tds, DL.astype(np.int32), DD, DU, grid((5, 2), 4), error="TypeError",
     match="tridiagonal_solve.*int32")  # fmt: skip

# ---- householder_product and ormqr ----------------------------------------------------------


def _hp(jnp, lax):
    return lax.linalg.householder_product


V53 = grid((5, 3), 1)
T3 = np.array([1.2, 0.5, 0.3], np.float32)
case("hp_full", _hp, V53, T3)
case("hp_fewer_taus", _hp, V53, T3[:2])
case("hp_batched", _hp, grid((2, 4, 2), 2), np.array([[1.1, 0.4], [0.7, 1.9]], np.float32))
case("hp_complex", _hp, grid((3, 2), 3, C64), np.array([1.2 + 0.3j, 0.5 - 0.2j], C64))
case("hp_err_taus", _hp, V53, np.ones(4, np.float32), error="ValueError",
     match="householder_product.*(4,)")  # fmt: skip
case("hp_err_wide", _hp, V53.T, T3, error="ValueError", match="householder_product.*(3, 5)")
case("hp_err_rank", _hp, T3, T3, error="TypeError", match="householder_product.*(3,)")
case("hp_err_batch", _hp, V53, np.ones((2, 2), np.float32), error="TypeError",
     match="householder_product.*(2, 2)")  # fmt: skip


def _ormqr(**kw):
    return lambda jnp, lax: lambda a, t, c: lax.linalg.ormqr(a, t, c, **kw)


C52 = grid((5, 2), 4)
case("ormqr_left", _ormqr(), V53, T3, C52)
case("ormqr_left_t", _ormqr(transpose=True), V53, T3, C52)
case("ormqr_right", _ormqr(left=False), V53, T3, C52.T)
case("ormqr_right_t", _ormqr(left=False, transpose=True), V53, T3, C52.T)
case("ormqr_complex_t", _ormqr(transpose=True), grid((3, 2), 3, C64),
     np.array([1.2 + 0.3j, 0.5 - 0.2j], C64), grid((3, 2), 5, C64))  # fmt: skip
case("ormqr_err_rows", _ormqr(), V53, T3, C52[:4], error="ValueError",
     match="ormqr.*(4, 2)")  # fmt: skip

# ---- lu_pivots_to_permutation ---------------------------------------------------------------


def _lpp(size):
    return lambda jnp, lax: lambda p: lax.linalg.lu_pivots_to_permutation(p, size)


case("lpp_basic", _lpp(5), np.array([2, 2, 3, 3], np.int32))
case("lpp_batched", _lpp(4), np.array([[3, 1, 2], [0, 2, 2]], np.int32))
case("lpp_err_size", _lpp(3), np.array([2, 2, 3, 3], np.int32), error="ValueError",
     match="lu_pivots_to_permutation.*3.*4")  # fmt: skip
case("lpp_err_dtype", _lpp(5), np.array([1.0, 2.0], np.float32), error="TypeError",
     match="lu_pivots_to_permutation.*float32")  # fmt: skip

# ---- cholesky_update and symmetric_product --------------------------------------------------


def _cu(jnp, lax):
    return lax.linalg.cholesky_update


R4 = (np.triu(grid((4, 4), 1)) + 3 * np.eye(4)).astype(np.float32)
case("cu_basic", _cu, R4, grid((4,), 2))
case("cu_err_size", _cu, R4, grid((3,), 2), error="ValueError", match="cholesky_update.*(3,)")
case("cu_err_rank", _cu, R4[None], grid((1, 4), 2), error="TypeError",
     match="cholesky_update.*(1, 4, 4)")  # fmt: skip
case("cu_err_complex", _cu, R4.astype(C64), grid((4,), 2, C64), error="TypeError",
     match="cholesky_update.*complex64")  # fmt: skip


def _sp(**kw):
    return lambda jnp, lax: lambda a, c: lax.linalg.symmetric_product(a, c, **kw)


A34, C33 = grid((3, 4), 1), grid((3, 3), 2)
case("sp_default", _sp(), A34, C33)
case("sp_alpha_beta", _sp(alpha=2.0, beta=0.5), A34, C33)
case("sp_symmetrize", _sp(alpha=2.0, beta=0.5, symmetrize_output=True), A34, C33)
case("sp_err_shape", _sp(), A34, grid((4, 4), 2), error="ValueError",
     match="symmetric_product.*(4, 4)")  # fmt: skip
case("sp_err_complex", _sp(), A34.astype(C64), C33.astype(C64), error="TypeError",
     match="symmetric_product.*complex64")  # fmt: skip

# ---- tridiagonal and hessenberg -------------------------------------------------------------


def _tri_fn(lower):
    return lambda jnp, lax: lambda a: lax.linalg.tridiagonal(a, lower=lower)


S4 = grid((4, 4), 1) + grid((4, 4), 1).T
H3 = grid((3, 3), 2, C64) + grid((3, 3), 2, C64).conj().T
case("tri_lower", _tri_fn(True), S4)
case("tri_upper", _tri_fn(False), S4)
case("tri_nonsym_lower", _tri_fn(True), grid((4, 4), 3))  # reads one triangle only
case("tri_complex", _tri_fn(True), H3)
case("tri_complex_upper", _tri_fn(False), H3)
case("tri_batched", _tri_fn(True), np.stack([S4, S4 * 2 - 1]))
case("tri_err_square", _tri_fn(True), grid((3, 4)), error="ValueError", match="tridiagonal.*(3, 4)")


def _hess(jnp, lax):
    return lax.linalg.hessenberg


case("hess_real", _hess, grid((4, 4), 4))
case("hess_complex", _hess, grid((3, 3), 5, C64))
case("hess_batched", _hess, grid((2, 3, 3), 6))
case("hess_err_square", _hess, grid((3, 4)), error="ValueError", match="hessenberg.*(3, 4)")

# ---- schur (what is determined), qdwh, implementation arguments -----------------------------


def _schur_rebuilt(jnp, lax):
    def fn(x):
        t, z = lax.linalg.schur(x)
        return z @ t @ jnp.conj(z).T, jnp.trace(t), t.dtype == x.dtype

    return fn


def _schur_trace(jnp, lax):
    def fn(x):
        out = lax.linalg.schur(x, compute_schur_vectors=False)
        return len(out), jnp.trace(out[0])

    return fn


case("schur_real", _schur_rebuilt, grid((4, 4), 7), jit=False)
case("schur_complex", _schur_rebuilt, grid((3, 3), 8, C64), jit=False)
case("schur_novecs", _schur_trace, grid((4, 4), 7), jit=False)
case("schur_err_square", lambda jnp, lax: lax.linalg.schur, grid((3, 4)), error="ValueError",
     match="schur.*(3, 4)")  # fmt: skip


def _qdwh(**kw):
    return lambda jnp, lax: lambda x: lax.linalg.qdwh(x, **kw)


case("qdwh_tall", _qdwh(), grid((4, 3), 9) + 3 * np.eye(4, 3, dtype=np.float32))  # full rank
case("qdwh_square", _qdwh(), _tri(3, 10))
case("qdwh_complex", _qdwh(), grid((4, 2), 12, C64) + np.eye(4, 2, dtype=C64))
case("qdwh_ill_conditioned", _qdwh(), np.diag([1, 1e-3, 1e-5]).astype(np.float32))
case("qdwh_float64", _qdwh(), grid((5, 2), 13, np.float64) + np.eye(5, 2), x64=True)
# Stopped early, the iterate depends on the scaling and first weights (not specified): only the
# count and the flag are compared.
case("qdwh_max_iterations", lambda jnp, lax: lambda x: lax.linalg.qdwh(x, max_iterations=2)[2:],
     _tri(3, 10))  # fmt: skip
case("qdwh_err_wide", _qdwh(), grid((3, 4)), error="ValueError", match="qdwh.*(3, 4)")


def _eigh_impl(jnp, lax):
    impl = lax.linalg.EighImplementation.QR
    return lambda x: lax.linalg.eigh(x, implementation=impl)[1]


def _svd_algo(jnp, lax):
    algo = lax.linalg.SvdAlgorithm.QR
    return lambda x: lax.linalg.svd(x, compute_uv=False, algorithm=algo)


case("eigh_implementation", _eigh_impl, S4)
case("svd_algorithm", _svd_algo, grid((4, 3), 11))
