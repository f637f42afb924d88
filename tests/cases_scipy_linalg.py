"""Golden cases for ``jax.scipy.linalg``: one list, run by JAX
(``tests/golden_gen/scipy_linalg_gen.py`` records ``tests/golden/scipy_linalg.json``) and by
spmd (``tests/test_scipy_linalg.py`` compares). The case structure, output flattening and
losses are those of ``tests/cases_linalg_more.py``; here a case may also run with 64-bit types
on (``x64``) and name its own relative tolerance (``rtol``).

``compare`` names how outputs are compared where a factorization is unique only up to signs,
phases or the order of eigenvalues: ``"eigh"`` (leaf 0 the eigenvalues, leaf 1
the eigenvectors, each up to a phase), ``"svd"`` (singular vectors up to a
common sign or phase per singular value), ``"schur"`` (``(t, z)`` checked by its properties:
``z`` unitary, ``t`` (quasi-)triangular, ``z t z^H`` the input, the same eigenvalues as JAX's
``t``). Inputs are deterministic.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from cases_linalg_more import A3, A3S, A4, AB, C3, R43, Case, eigvecs_loss, flatten, weights
from cases_linalg_more import weighted_sum as weighted_sum

__all__ = ["CASES", "flatten", "weights"]


@dataclasses.dataclass(frozen=True)
class LinalgCase(Case):
    """A ``cases_linalg_more.Case`` with ``x64`` (run with 64-bit types on) and ``rtol``."""

    x64: bool = False
    rtol: float | None = None


CASES: list[LinalgCase] = []


def case(name: str, make, *args, **kw) -> None:
    if any(c.name == name for c in CASES):
        raise ValueError(f"duplicate case name {name!r}")
    CASES.append(LinalgCase(name, make, tuple(args), **kw))


def S(path: str, *pre, **kw):
    """Maker of ``jax.scipy.linalg.<path>(*pre, *args, **kw)`` (``lax`` is unused)."""

    def make(jnp, lax):
        import importlib

        mod = importlib.import_module(jnp.__name__.split(".")[0] + ".scipy.linalg")
        fn = getattr(mod, path)
        return lambda *a: fn(*pre, *a, **kw)

    return make


def Sf(body):
    """Maker of ``body(scipy_linalg, jnp)``: a function built from several calls."""

    def make(jnp, lax):
        import importlib

        mod = importlib.import_module(jnp.__name__.split(".")[0] + ".scipy.linalg")
        return body(mod, jnp)

    return make


def sv_loss(jnp, out):
    """Invariant under the singular vectors' signs: the singular values and |u|^2."""
    u, s, vh = out
    w = weights(u.shape[-2:])
    return jnp.sum(s**3) + jnp.sum(jnp.abs(u) ** 2 * w) + jnp.sum(jnp.abs(vh) ** 4)


# ---------------------------------------------------------------------------------------------
# Inputs

f32, f64 = np.float32, np.float64
SPD = (A3 @ A3.T + np.eye(3, dtype=f32)).astype(f32)  # symmetric positive definite
SPDB = np.stack([SPD, SPD + np.diag([1.0, 0.5, 2.0]).astype(f32)])
HPD = (C3 @ C3.conj().T + np.eye(3)).astype(np.complex64)  # Hermitian positive definite
LOW = np.tril(A3 + 1.0).astype(f32)  # well-conditioned triangular matrices
UPP = np.triu(A3 - 0.5).astype(f32) + np.eye(3, dtype=f32)
B3 = np.array([1.0, -0.5, 2.0], f32)
B32 = np.array([[1.0, 0.0], [-2.0, 1.0], [0.5, 2.0]], f32)
BB = np.stack([B32, B32[::-1]])
A5 = np.array(
    [[1, 2, 0.5, 3, 1], [4, -1, 2, 0, 2], [0.5, 3, -2, 1, 0], [2, 2, 1, 1, -1], [0, 1, 3, 2, 5]],
    f32,
)
R35 = A5[:3].copy()
R53 = A5[:, :3].copy()
RS = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, 0.0], [3.0, 0.0, 4.0]], f32)  # singular: col0 ~ col2
SING = np.array([[1.0, 2.0], [2.0, 4.0]], f32)
I3 = np.array([[2, 1, 0], [1, 3, 1], [0, 1, 4]], np.int32)
E3 = np.array([[0.0, 0.5, -0.25], [0.25, 0.0, 0.5], [-0.5, 0.25, 0.0]], f32)  # small direction
BIG = (4 * A3).astype(f32)  # needs scaling and squaring in expm
# A real Schur form with one 2 x 2 block, and an orthogonal Z (for rsf2csf).
T_RSF = np.array([[1.0, 2.0, 0.5, 1.0], [0, 0.5, -2.0, 0.3], [0, 1.5, 0.5, 0.7], [0, 0, 0, 3.0]])
Z_RSF = np.linalg.qr(A4.astype(f64))[0]

# ---------------------------------------------------------------------------------------------
# solve_triangular, cholesky, cho_factor, cho_solve

for lower, a in ((True, LOW), (False, UPP)):
    tag = "lower" if lower else "upper"
    case(f"solve_triangular_{tag}", S("solve_triangular", lower=lower), a, B3, grad=(0, 1))
    case(f"solve_triangular_{tag}_mat", S("solve_triangular", lower=lower), a, B32, grad=(0, 1))
    for trans in (1, 2, "T", "C", "N"):
        case(
            f"solve_triangular_{tag}_trans_{trans}",
            S("solve_triangular", trans=trans, lower=lower),
            a,
            B32,
        )
    case(
        f"solve_triangular_{tag}_unit",
        S("solve_triangular", lower=lower, unit_diagonal=True),
        a,
        B3,
        grad=(0, 1),
    )
case("solve_triangular_full_matrix", S("solve_triangular"), A3, B3)  # only the upper triangle
case("solve_triangular_batch", S("solve_triangular", lower=True), np.stack([LOW, LOW.T.T * 2]), BB)
case("solve_triangular_batch_b", S("solve_triangular", lower=True), LOW, BB)
case("solve_triangular_batch_a_vector", S("solve_triangular", lower=True), AB, B3, grad=(0, 1))
case("solve_triangular_batch_a_matrix", S("solve_triangular"), AB, B32)
case("solve_triangular_batched_vectors", S("solve_triangular"), AB, np.stack([B3, -B3]))
case("solve_triangular_complex", S("solve_triangular", trans=2), np.triu(C3), B3, grad=(0, 1))
case(
    "solve_triangular_int",
    S("solve_triangular", lower=True),
    np.tril(I3),
    np.array([1, 2, 3], np.int32),
)
case(
    "solve_triangular_x64",
    S("solve_triangular", trans=1),
    UPP.astype(f64),
    B32.astype(f64),
    grad=(0, 1),
    x64=True,
    rtol=1e-12,
)

case("cholesky", S("cholesky"), SPD, grad=(0,))
case("cholesky_lower", S("cholesky", lower=True), SPD, grad=(0,))
case(
    "cholesky_reads_one_triangle",
    S("cholesky", lower=True),
    np.tril(SPD) + np.triu(np.ones((3, 3), f32), 1),
)
case("cholesky_upper_reads_upper", S("cholesky"), np.triu(SPD) + np.tril(np.ones((3, 3), f32), -1))
case("cholesky_batch", S("cholesky"), SPDB, grad=(0,))
case("cholesky_complex", S("cholesky"), HPD, grad=(0,))
case("cholesky_not_pd", S("cholesky"), A3S - 3 * np.eye(3, dtype=f32))  # NaN
case("cholesky_int", S("cholesky", lower=True), I3)
case("cholesky_x64", S("cholesky", lower=True), SPD.astype(f64), grad=(0,), x64=True, rtol=1e-12)
case("cho_factor", S("cho_factor"), SPD)
case("cho_factor_lower", S("cho_factor", lower=True), SPD)
for lower in (False, True):
    mk = Sf(lambda s, jnp, lower=lower: lambda a, b: s.cho_solve(s.cho_factor(a, lower=lower), b))
    case(f"cho_solve_lower_{lower}", mk, SPD, B3, grad=(0, 1))
    case(f"cho_solve_mat_lower_{lower}", mk, SPD, B32, grad=(0, 1))
case(
    "cho_solve_batch",
    Sf(lambda s, jnp: lambda a, b: s.cho_solve((a, False), b)),
    np.linalg.cholesky(SPDB).transpose(0, 2, 1).copy(),
    BB,
)
case(
    "cho_solve_batch_vector",
    Sf(lambda s, jnp: lambda a, b: s.cho_solve(s.cho_factor(a), b)),
    SPDB,
    B3,
    grad=(0, 1),
)
case(
    "cho_solve_batch_matrix",
    Sf(lambda s, jnp: lambda a, b: s.cho_solve(s.cho_factor(a, True), b)),
    SPDB,
    B32,
)
case(
    "cho_solve_complex",
    Sf(lambda s, jnp: lambda a, b: s.cho_solve(s.cho_factor(a, True), b)),
    HPD,
    B3.astype(np.complex64),
    grad=(0, 1),
)

# ---------------------------------------------------------------------------------------------
# lu, lu_factor, lu_solve

case("lu", S("lu"), A5, grad=(0,))
case("lu_permute_l", S("lu", permute_l=True), A5, grad=(0,))
case("lu_tall", S("lu"), R53, grad=(0,))
case("lu_wide", S("lu"), R35, grad=(0,))
case("lu_wide_permute_l", S("lu", permute_l=True), R35)
case("lu_complex", S("lu"), C3, grad=(0,))
case("lu_int", S("lu"), I3)
case("lu_singular", S("lu"), RS)
case("lu_zeros", S("lu"), np.zeros((3, 3), f32))
case("lu_x64", S("lu"), A5.astype(f64), grad=(0,), x64=True, rtol=1e-12)
case("lu_factor", S("lu_factor"), A5, grad=(0,))
case("lu_factor_wide", S("lu_factor"), R35)
case("lu_factor_batch", S("lu_factor"), AB)
for trans in (0, 1, 2):
    mk = Sf(lambda s, jnp, t=trans: lambda a, b: s.lu_solve(s.lu_factor(a), b, trans=t))
    case(f"lu_solve_trans{trans}", mk, A5, np.arange(5, dtype=f32) - 2, grad=(0, 1))
    case(f"lu_solve_complex_trans{trans}", mk, C3, B32.astype(np.complex64), grad=(0, 1))
case("lu_solve_mat", Sf(lambda s, jnp: lambda a, b: s.lu_solve(s.lu_factor(a), b)), A3, B32)
case(
    "lu_solve_batch_a_vector", Sf(lambda s, jnp: lambda a, b: s.lu_solve(s.lu_factor(a), b)), AB, B3
)
case(
    "lu_solve_batch_a_matrix",
    Sf(lambda s, jnp: lambda a, b: s.lu_solve(s.lu_factor(a), b, trans=1)),
    AB,
    B32,
)
case(
    "lu_solve_batch",
    Sf(lambda s, jnp: lambda a, b: s.lu_solve(s.lu_factor(a), b)),
    AB,
    BB,
    grad=(0, 1),
)

# ---------------------------------------------------------------------------------------------
# solve, det, inv

for assume_a in ("gen", "sym", "her", "pos"):
    case(f"solve_{assume_a}", S("solve", assume_a=assume_a), SPD, B32, grad=(0, 1))
case("solve_pos_lower", S("solve", assume_a="pos", lower=True), SPD, B3, grad=(0, 1))
case("solve_vector", S("solve"), A4, np.arange(4, dtype=f32), grad=(0, 1))
case("solve_batch", S("solve"), AB, BB, grad=(0, 1))
case("solve_batch_a_vector", S("solve"), AB, B3, grad=(0, 1))
case("solve_batch_a_matrix", S("solve"), AB, B32, grad=(0, 1))
case("solve_pos_batched_vectors", S("solve", assume_a="pos"), SPDB, BB[:, :, 0].copy(), grad=(0, 1))
case("solve_batch_pos", S("solve", assume_a="pos"), SPDB, BB, grad=(0, 1))
case("solve_int", S("solve"), I3, np.array([1, 0, 2], np.int32))
case("solve_complex", S("solve"), C3, B32, grad=(0, 1))
case(
    "solve_x64",
    S("solve", assume_a="pos"),
    SPD.astype(f64),
    B3.astype(f64),
    grad=(0, 1),
    x64=True,
    rtol=1e-12,
)
case("det", S("det"), A4, grad=(0,))
case("det_batch", S("det"), AB, grad=(0,))
case("det_int", S("det"), I3)
case("det_complex", S("det"), C3, grad=(0,))
case("inv", S("inv"), A4, grad=(0,))
case("inv_batch", S("inv"), AB, grad=(0,))
case("inv_complex", S("inv"), C3)
case("inv_x64", S("inv"), A4.astype(f64), grad=(0,), x64=True, rtol=1e-12)

# ---------------------------------------------------------------------------------------------
# eigh, svd, qr, qr_multiply

case("eigh", S("eigh"), A3S, compare="eigh", grad=(0,), loss=eigvecs_loss)
case(
    "eigh_upper",
    S("eigh", lower=False),
    np.triu(A3S) + np.tril(np.ones((3, 3), f32), -1),
    compare="eigh",
)
case("eigh_eigvals_only", S("eigh", eigvals_only=True), A3S, grad=(0,))
case("eigh_batch", S("eigh", eigvals_only=True), np.stack([A3S, SPD]), grad=(0,))
case("eigh_complex", S("eigh"), HPD, compare="eigh")
case("eigh_int", S("eigh", eigvals_only=True), I3)
case("svd", S("svd"), R43, compare="svd")
case("svd_grad", S("svd", full_matrices=False), R43, compare="svd", grad=(0,), loss=sv_loss)
case("svd_economic", S("svd", full_matrices=False), R43, compare="svd")
case("svd_values", S("svd", compute_uv=False), R43, grad=(0,))
case("svd_batch", S("svd", compute_uv=False, lapack_driver="gesvd"), AB)
case("svd_complex", S("svd", full_matrices=False), C3, compare="svd")
for mode in ("full", "economic", "r"):
    case(f"qr_{mode}", S("qr", mode=mode), R53, grad=(0,))
    case(f"qr_wide_{mode}", S("qr", mode=mode), R35)
    case(f"qr_pivoting_{mode}", S("qr", mode=mode, pivoting=True), R53)
case("qr_pivoting_square", S("qr", pivoting=True), A5, grad=(0,))
case("qr_pivoting_wide", S("qr", pivoting=True, mode="economic"), R35)
case("qr_batch", S("qr"), AB, grad=(0,))
case("qr_complex", S("qr"), C3, grad=(0,))
case("qr_int", S("qr"), I3)
case(
    "qr_multiply_right",
    S("qr_multiply"),
    R53,
    np.ones((2, 5), f32) + np.eye(2, 5, dtype=f32),
)
case("qr_multiply_left", S("qr_multiply", mode="left"), R53, B32)
case("qr_multiply_vector", S("qr_multiply"), R53, np.arange(5, dtype=f32))
case("qr_multiply_left_vector", S("qr_multiply", mode="left"), R53, B3)
case(
    "qr_multiply_conjugate", S("qr_multiply", conjugate=True), C3, B32.T.astype(np.complex64).copy()
)
case("qr_multiply_pivoting", S("qr_multiply", pivoting=True), A5, np.ones((1, 5), f32))

# ---------------------------------------------------------------------------------------------
# hessenberg, schur, rsf2csf

case("hessenberg", S("hessenberg"), A5)
case("hessenberg_calc_q", S("hessenberg", calc_q=True), A5)
case("hessenberg_batch", S("hessenberg", calc_q=True), AB)
case("hessenberg_complex", S("hessenberg", calc_q=True), C3)
case("hessenberg_x64", S("hessenberg", calc_q=True), A5.astype(f64), x64=True, rtol=1e-12)
case("schur", S("schur"), A4, compare="schur")
case("schur_real_spectrum", S("schur"), A3S, compare="schur")
case("schur_complex_output", S("schur", output="complex"), A4, compare="schur")
case("schur_complex", S("schur"), C3, compare="schur")
case("schur_batch", S("schur"), np.stack([A4, A4.T]), compare="schur")
case("schur_x64", S("schur"), A5.astype(f64), compare="schur", x64=True, rtol=1e-12)
case("rsf2csf", S("rsf2csf"), T_RSF.astype(f32), Z_RSF.astype(f32))
case("rsf2csf_x64", S("rsf2csf"), T_RSF, Z_RSF, x64=True, rtol=1e-12)
case("rsf2csf_triangular", S("rsf2csf"), np.triu(A4), np.eye(4, dtype=f32))

# ---------------------------------------------------------------------------------------------
# expm, expm_frechet, funm, sqrtm, polar, solve_sylvester, eigh_tridiagonal

case("expm", S("expm"), A3 / 4, grad=(0,))
case("expm_scaled", S("expm"), BIG, grad=(0,), rtol=2e-5)
case("expm_zero", S("expm"), np.zeros((3, 3), f32))
case("expm_batch", S("expm"), np.stack([A3 / 4, -A3S / 2]), grad=(0,))
case("expm_int", S("expm"), I3 - 2)
case("expm_complex", S("expm"), C3 / 3, grad=(0,))
case("expm_upper_triangular", S("expm", upper_triangular=True), np.triu(A4) / 2)
case("expm_max_squarings", S("expm", max_squarings=1), BIG, rtol=2e-5)  # just enough
case("expm_max_squarings_0", S("expm", max_squarings=0), BIG)  # too few: NaN
case("expm_x64", S("expm"), BIG.astype(f64), grad=(0,), x64=True, rtol=1e-11)
case("expm_frechet", S("expm_frechet"), A3 / 4, E3, grad=(0, 1))
case("expm_frechet_only", S("expm_frechet", compute_expm=False), A3 / 4, E3)
case("expm_frechet_batch", S("expm_frechet"), np.stack([A3 / 4, A3S / 4]), np.stack([E3, E3.T]))
case("expm_frechet_x64", S("expm_frechet"), BIG.astype(f64), E3.astype(f64), x64=True, rtol=1e-10)
case("funm_exp", Sf(lambda s, jnp: lambda a: s.funm(a, jnp.exp)), A3 / 2, rtol=2e-5)
case(
    "funm_disp_false",
    Sf(lambda s, jnp: lambda a: s.funm(a, jnp.exp, disp=False)),
    A3 / 2,
    rtol=2e-5,
)
case("funm_sin", Sf(lambda s, jnp: lambda a: s.funm(a, jnp.sin)), A4 / 2, rtol=2e-5)
case("funm_complex", Sf(lambda s, jnp: lambda a: s.funm(a, jnp.exp)), C3 / 2, rtol=2e-5)
case(
    "funm_x64",
    Sf(lambda s, jnp: lambda a: s.funm(a, jnp.log)),
    SPD.astype(f64),
    x64=True,
    rtol=1e-11,
)
case("sqrtm", S("sqrtm"), SPD, rtol=2e-5)
case("sqrtm_nonsymmetric", S("sqrtm"), A4, rtol=2e-5)
case("sqrtm_complex", S("sqrtm"), C3, rtol=2e-5)
case("sqrtm_negative_eigenvalue", S("sqrtm"), A3S, rtol=2e-5)
case("sqrtm_x64", S("sqrtm"), A5.astype(f64) + 6 * np.eye(5), x64=True, rtol=1e-11)
for side in ("right", "left"):
    case(f"polar_svd_{side}", S("polar", side=side, method="svd"), A4, grad=(0,), rtol=2e-5)
case("polar", S("polar"), A4, rtol=2e-5)  # qdwh: no reverse mode in JAX (a while loop)
case("polar_tall", S("polar"), R53, rtol=2e-5)
case("polar_wide_left", S("polar", side="left"), R35, rtol=2e-5)
case("polar_svd_wide", S("polar", method="svd"), R35, rtol=2e-5)
case("polar_batch", S("polar"), AB, rtol=2e-5)
case("polar_complex", S("polar"), C3, rtol=2e-5)
case("polar_x64", S("polar"), A5.astype(f64), x64=True, rtol=1e-10)
case("solve_sylvester", S("solve_sylvester"), A3, A4[:2, :2], B32)
case("solve_sylvester_eigen", S("solve_sylvester", method="eigen"), A3, A3S, SPD)
case("solve_sylvester_int", S("solve_sylvester"), I3, I3[:2, :2], B32)
case("solve_sylvester_complex", S("solve_sylvester"), C3, A3S, A3)
D4 = np.array([1.0, 2.0, 3.0, 4.0], f32)
E4 = np.array([0.5, -0.25, 0.75], f32)
case("eigh_tridiagonal", S("eigh_tridiagonal", eigvals_only=True), D4, E4)
case("eigh_tridiagonal_vectors", S("eigh_tridiagonal"), D4, E4, compare="eigh")
case(
    "eigh_tridiagonal_select_i",
    S("eigh_tridiagonal", eigvals_only=True, select="i", select_range=(1, 2)),
    D4,
    E4,
)
case(
    "eigh_tridiagonal_complex_e",
    S("eigh_tridiagonal", eigvals_only=True),
    D4.astype(np.complex64),
    (E4 * 1j).astype(np.complex64),
)
case(
    "eigh_tridiagonal_x64",
    S("eigh_tridiagonal", eigvals_only=True),
    D4.astype(f64),
    E4.astype(f64),
    x64=True,
    rtol=1e-11,
)

# ---------------------------------------------------------------------------------------------
# Special matrices

C = np.array([1.0, 2.0, 3.0], f32)
case("block_diag", S("block_diag"), np.ones((2, 2), np.int32), 3.0, C, grad=(2,))
case("block_diag_empty", S("block_diag"))
case("block_diag_ints", S("block_diag"), np.int32(1), np.array([[2, 3]], np.int32))
case("circulant", S("circulant"), C, grad=(0,))
case("circulant_batch", S("circulant"), np.stack([C, -C]))
case("circulant_int", S("circulant"), np.arange(3, dtype=np.int32))
case("companion", S("companion"), np.array([2.0, 1.0, -3.0, 4.0], f32), grad=(0,))
case("companion_int", S("companion"), np.arange(1, 4, dtype=np.int32))
case("companion_batch", S("companion"), np.stack([C, C + 1]))
for mode in ("full", "same", "valid"):
    case(f"convolution_matrix_{mode}", S("convolution_matrix", n=4, mode=mode), C, grad=(0,))
    case(f"convolution_matrix_{mode}_short", S("convolution_matrix", n=2, mode=mode), C)
case("convolution_matrix_int", S("convolution_matrix", n=2), np.arange(3, dtype=np.int32))
case("dft", S("dft", 3))
case("dft_sqrtn", S("dft", 4, "sqrtn"))
case("dft_n", S("dft", 3, "n"))
case("dft_x64", S("dft", 3, dtype=np.complex128), x64=True, rtol=1e-13)
case("fiedler", S("fiedler"), C, grad=(0,))
case("fiedler_int", S("fiedler"), np.array([3, 1, 4], np.int32))
case("fiedler_batch", S("fiedler"), np.stack([C, C[::-1]]))
case(
    "fiedler_companion", S("fiedler_companion"), np.array([1.0, 2.0, 3.0, 4.0, 5.0], f32), grad=(0,)
)
case("fiedler_companion_4", S("fiedler_companion"), np.array([2.0, 1.0, 3.0, -4.0], f32))
case("fiedler_companion_6", S("fiedler_companion"), np.arange(1.0, 7.0, dtype=f32))
case("fiedler_companion_int", S("fiedler_companion"), np.arange(1, 5, dtype=np.int32))
case("fiedler_companion_2", S("fiedler_companion"), C[:2])
case("fiedler_companion_1", S("fiedler_companion"), C[:1])
case("hadamard", S("hadamard", 4))
case("hadamard_1", S("hadamard", 1))
case("hadamard_float", S("hadamard", 8, np.float32))
case("hankel", S("hankel"), C, grad=(0,))
case("hankel_r", S("hankel"), C, np.arange(4, dtype=f32), grad=(0, 1))
case("hankel_int", S("hankel"), np.arange(3, dtype=np.int32), np.arange(2, dtype=np.int32))
case("helmert", S("helmert", 4))
case("helmert_full", S("helmert", 5, full=True))
case("hilbert", S("hilbert", 4))
case("invhilbert", S("invhilbert", 4), rtol=1e-4)
for kind in (None, "symmetric", "lower", "upper"):
    case(f"pascal_{kind}", S("pascal", 5, kind))
    case(f"invpascal_{kind}", S("invpascal", 5, kind), rtol=2e-5)
case("leslie", S("leslie"), C, C[:2] / 4, grad=(0, 1))
case("leslie_int", S("leslie"), np.arange(3, dtype=np.int32), np.array([1, 2], np.int32))
case("leslie_batch", S("leslie"), np.stack([C, C * 2]), C[:2])
case("toeplitz", S("toeplitz"), C, grad=(0,))
case("toeplitz_r", S("toeplitz"), C, np.arange(4, dtype=f32), grad=(0, 1))
case("toeplitz_complex", S("toeplitz"), (C * 1j).astype(np.complex64))
case("toeplitz_int", S("toeplitz"), np.arange(3, dtype=np.int32))
case("toeplitz_batch", S("toeplitz"), np.stack([C, -C]), np.stack([C[::-1], C]))

# ---------------------------------------------------------------------------------------------
# Errors: JAX's exception class is recorded; spmd's message must match `match`.


def _error(cls: str):
    def add(name, make, *args, match):
        case(name, make, *args, error=cls, match=match)

    return add


VE, TE, NIE = _error("ValueError"), _error("TypeError"), _error("NotImplementedError")
B4 = np.ones(4, f32)
R34 = np.ones((3, 4), f32)

VE(
    "err_solve_triangular_rows",
    S("solve_triangular"),
    A3,
    B4,
    match=r"solve_triangular.*\(3, 3\).*\(4,\)",
)
VE("err_solve_triangular_rect", S("solve_triangular"), R34, B3, match=r"solve_triangular.*\(3, 4\)")
VE(
    "err_solve_triangular_trans",
    S("solve_triangular", trans=5),
    A3,
    B3,
    match="solve_triangular: invalid 'trans' value 5",
)
VE("err_cholesky_rect", S("cholesky"), R34, match=r"cholesky.*\(3, 4\)")
VE(
    "err_cho_solve_rows",
    Sf(lambda s, jnp: lambda a, b: s.cho_solve((a, False), b)),
    SPD,
    B4,
    match=r"cho_solve.*\(3, 3\).*\(4,\)",
)
TE("err_lu_1d", S("lu"), B3, match=r"lu: .*rank at least 2.*\(3,\)")
VE(
    "err_lu_solve_rows",
    Sf(lambda s, jnp: lambda a, b: s.lu_solve(s.lu_factor(a), b)),
    A3,
    B4,
    match=r"lu_solve.*\(4,\)",
)
VE(
    "err_lu_solve_trans",
    Sf(lambda s, jnp: lambda a, b: s.lu_solve(s.lu_factor(a), b, trans=3)),
    A3,
    B3,
    match="lu_solve: 'trans'.*3",
)
VE(
    "err_lu_solve_rect",
    Sf(lambda s, jnp: lambda a, b: s.lu_solve(s.lu_factor(a), b)),
    R34,
    B3,
    match=r"lu_solve.*\(3, 4\)",
)
VE("err_solve_assume_a", S("solve", assume_a="xx"), A3, B3, match="solve: expected assume_a.*'xx'")
VE("err_solve_rows", S("solve"), A3, B4, match=r"solve.*\(3, 3\).*\(4,\)")
VE(
    "err_solve_batched_vectors",
    S("solve"),
    AB,
    np.stack([B3, B3]),
    match=r"solve: invalid shapes.*\(2, 3, 3\).*\(2, 3\)",
)
VE(
    "err_solve_pos_broadcast",
    S("solve", assume_a="pos"),
    SPDB,
    B32,
    match=r"solve: with assume_a='pos'.*\(2, 3, 3\).*\(3, 2\)",
)
VE(
    "err_solve_pos_vector",
    S("solve", assume_a="pos"),
    SPDB,
    B3,
    match=r"solve: with assume_a='pos'.*\(3,\)",
)
VE("err_solve_rect", S("solve"), R34, B3, match=r"solve.*\(3, 4\)")
VE("err_det_rect", S("det"), R34, match=r"det.*\(3, 4\)")
VE("err_inv_rect", S("inv"), R34, match=r"inv.*\(3, 4\)")
NIE("err_eigh_b", S("eigh"), A3S, A3S, match="eigh: only the b=None")
NIE("err_eigh_eigvals", S("eigh", eigvals=(0, 1)), A3S, match="eigh: only the eigvals=None")
TE("err_eigh_rect", S("eigh"), R34, match=r"eigh.*\(3, 4\)")
VE("err_qr_mode", S("qr", mode="raw"), R43, match="qr: unsupported QR decomposition mode 'raw'")
VE("err_qr_multiply_mode", S("qr_multiply", mode="x"), R43, B32, match="qr_multiply: mode must be")
VE(
    "err_qr_multiply_left_rows",
    S("qr_multiply", mode="left"),
    R43,
    B4,
    match=r"qr_multiply.*\(4, 3\).*\(4,\)",
)
VE("err_hessenberg_rect", S("hessenberg"), R34, match=r"hessenberg.*\(3, 4\)")
TE("err_hessenberg_int", S("hessenberg"), I3, match="hessenberg does not accept dtype int32")
VE("err_schur_output", S("schur", output="x"), A3, match="schur: expected 'output'.*'x'")
VE("err_schur_rect", S("schur"), R34, match=r"schur.*\(3, 4\)")
TE("err_schur_int", S("schur"), I3, match="schur does not accept dtype int32")
VE(
    "err_rsf2csf_rect_t",
    S("rsf2csf"),
    R34,
    R34,
    match=r"rsf2csf: input 'T' must be square.*\(3, 4\)",
)
VE(
    "err_rsf2csf_rect_z",
    S("rsf2csf"),
    A3,
    R34,
    match=r"rsf2csf: input 'Z' must be square.*\(3, 4\)",
)
VE("err_expm_rect", S("expm"), R34, match=r"expm.*A.shape=\(3, 4\)")
VE("err_expm_frechet_rect", S("expm_frechet"), A3, R34, match=r"expm_frechet.*E.shape=\(3, 4\)")
VE("err_funm_rect", Sf(lambda s, jnp: lambda a: s.funm(a, jnp.exp)), R34, match=r"funm.*\(3, 4\)")
VE("err_sqrtm_rect", S("sqrtm"), R34, match=r"sqrtm.*\(3, 4\)")
NIE("err_sqrtm_blocksize", S("sqrtm", blocksize=2), A3, match="sqrtm: the blocked version")
VE("err_polar_side", S("polar", side="x"), A3, match="polar: the argument `side`")
VE(
    "err_polar_method",
    S("polar", method="x"),
    A3,
    match="polar: unknown polar decomposition method 'x'",
)
NIE("err_polar_qdwh_wide", S("polar"), R34, match=r"polar: method='qdwh'.*\(3, 4\)")
NIE(
    "err_polar_qdwh_left_square",
    S("polar", side="left"),
    A3,
    match=r"polar: method='qdwh'.*\(3, 3\)",
)
VE("err_polar_int", S("polar"), I3, match="polar: data type int32 not inexact")
VE(
    "err_sylvester_shapes",
    S("solve_sylvester"),
    A3,
    A3[:2, :2],
    SPD,
    match=r"solve_sylvester.*A: \(3, 3\), B: \(2, 2\), C: \(3, 3\)",
)
VE(
    "err_sylvester_method",
    S("solve_sylvester", method="x"),
    A3,
    A3,
    A3,
    match="solve_sylvester: unrecognized method 'x'",
)
TE(
    "err_eigh_tridiagonal_int",
    S("eigh_tridiagonal", eigvals_only=True),
    np.arange(3),
    np.arange(2),
    match="eigh_tridiagonal: only float32 and float64",
)
TE(
    "err_eigh_tridiagonal_shapes",
    S("eigh_tridiagonal", eigvals_only=True),
    B3,
    B3,
    match=r"eigh_tridiagonal.*d.shape=\(3,\), e.shape=\(3,\)",
)
VE(
    "err_eigh_tridiagonal_select",
    S("eigh_tridiagonal", eigvals_only=True, select="x"),
    B3,
    B3[:2],
    match="eigh_tridiagonal: select must be",
)
NIE(
    "err_eigh_tridiagonal_select_v",
    S("eigh_tridiagonal", eigvals_only=True, select="v", select_range=(0.0, 1.0)),
    B3,
    B3[:2],
    match="select='v'",
)
VE(
    "err_block_diag_3d",
    S("block_diag"),
    np.ones((2, 2, 2), f32),
    match=r"block_diag.*\(2, 2, 2\) at argument 0",
)
VE("err_companion_short", S("companion"), C[:1], match=r"companion.*at least 2.*\(1,\)")
VE(
    "err_convolution_matrix_mode",
    S("convolution_matrix", n=2, mode="x"),
    C,
    match="convolution_matrix: mode must be",
)
VE(
    "err_convolution_matrix_n",
    S("convolution_matrix", n=0),
    C,
    match="convolution_matrix: n must be a positive integer; got 0",
)
VE("err_dft_scale", S("dft", 3, "x"), match="dft: scale must be")
VE("err_hadamard_3", S("hadamard", 3), match="hadamard: n must be a positive power of 2; got 3")
VE("err_pascal_kind", S("pascal", 3, "x"), match="pascal: expected kind.*'x'")
VE("err_invpascal_kind", S("invpascal", 3, "x"), match="invpascal: expected kind.*'x'")
VE("err_leslie_lengths", S("leslie"), C, C, match=r"leslie.*f shape \(3,\) and s shape \(3,\)")
