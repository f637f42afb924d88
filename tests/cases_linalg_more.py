"""Golden cases for the ``jnp.linalg`` functions cond, diagonal, eig, eigvals, lstsq,
matrix_power, matrix_rank, pinv, tensorinv, tensorsolve and trace (and ``lax.linalg.eig``), and
for the derivatives of ``qr`` (``lax.linalg``, ``jnp.linalg``, ``jax.scipy.linalg``): one list,
run by JAX and by spmd.

Each case is a name, a maker ``make(jnp, lax) -> fn`` and a tuple of arguments built with plain
NumPy (or Python values, passed as they are). The same file serves:

- ``tests/golden_gen/linalg_more_gen.py`` (run under real JAX), which records every output leaf
  (dtype, weak type, shape, values) of ``fn(*args)`` and ``jax.jit(fn)(*args)``, the gradient of
  ``loss(fn(*args))`` for the cases that have ``grad`` argnums, or the exception class JAX
  raises, into ``tests/golden/linalg_more.json``;
- ``tests/test_linalg_more.py`` (no JAX), which runs the cases with ``spmd`` and compares.

``compare`` names how outputs are compared where JAX leaves something unspecified:
``"eigvals"`` (leaf 0 holds eigenvalues: compared as multisets, their order is not specified),
``"eig"`` (eigenvalues as multisets and each eigenvector up to a phase), ``"lax_eig"`` (the
same for ``[w, vl, vr]``). Inputs are deterministic (no random numbers).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np


@dataclasses.dataclass(frozen=True)
class Case:
    """One case: ``make(jnp, lax)`` gives the function to call on ``args``.

    ``grad``: the argnums to differentiate ``loss(jnp, fn(*args))`` by (None: no gradient).
    ``jit=False`` skips the jitted run. ``error``: the exception class JAX raises; ``match``: a
    regular expression spmd's message must match (it names the function and the sizes).
    ``x64``: run with ``jax_enable_x64`` on (float64 arguments stay float64).
    """

    name: str
    make: Callable[[Any, Any], Callable]
    args: tuple
    grad: tuple[int, ...] | None = None
    loss: Callable | None = None
    compare: str | None = None
    jit: bool = True
    error: str | None = None
    match: str | None = None
    x64: bool = False

    def build(self, jnp, lax) -> tuple[Callable, tuple]:
        return self.make(jnp, lax), self.args

    def loss_fn(self, jnp) -> Callable:
        return self.loss or weighted_sum


CASES: list[Case] = []


def case(name: str, make, *args, **kw) -> None:
    if any(c.name == name for c in CASES):
        raise ValueError(f"duplicate case name {name!r}")
    CASES.append(Case(name, make, tuple(args), **kw))


def flatten(out: Any) -> tuple[str, list]:
    """A structure string and the leaves of a nested tuple/list/dict output (own, so that the
    JAX and the spmd side describe structures identically; named tuples count as tuples)."""
    if isinstance(out, dict):
        parts = [(k, flatten(out[k])) for k in sorted(out)]
        s = "{" + ",".join(f"{k}:{p[0]}" for k, p in parts) + "}"
        return s, [x for _, p in parts for x in p[1]]
    if isinstance(out, (tuple, list)):
        parts = [flatten(o) for o in out]
        br = "()" if isinstance(out, tuple) else "[]"
        return br[0] + ",".join(s for s, _ in parts) + br[1], [x for _, ls in parts for x in ls]
    return "*", [out]


def weights(shape) -> np.ndarray:
    """Deterministic weights in [0.5, 1.5] (no two neighbours alike), for weighted sums."""
    n = int(np.prod(shape, dtype=np.int64))
    return (1 + 0.5 * np.cos(np.arange(n) * 1.3)).astype(np.float32).reshape(shape)


def weighted_sum(jnp, out):
    """A scalar loss: the weighted sum of the float outputs' real (and imaginary) parts."""
    total = 0.0
    for leaf in flatten(out)[1]:
        dt = np.dtype(leaf.dtype)
        if dt.kind not in "fc":
            continue  # ranks: not differentiable
        w = weights(leaf.shape)
        total = total + jnp.sum(jnp.real(leaf) * w)
        if dt.kind == "c":
            total = total + jnp.sum(jnp.imag(leaf) * w.ravel()[::-1].reshape(w.shape))
    return total


def eigvals_loss(jnp, w):
    """Invariant under reordering of the eigenvalues (their order is not specified)."""
    return jnp.sum(jnp.real(w) ** 3) + jnp.sum(jnp.imag(w) ** 2)


def eigvecs_loss(jnp, out):
    """Invariant under reordering the eigenpairs and under each eigenvector's phase."""
    w, v = out
    mag = jnp.real(v * jnp.conj(v))
    rows = weights(v.shape[-2:-1])[:, None]
    return jnp.sum(mag * mag * rows) + jnp.sum(jnp.real(w)[None, :] * mag * rows)


def J(path: str, *pre, **kw):
    """Maker of ``jnp.linalg.<path>(*pre, *args, **kw)``."""
    return lambda jnp, lax: lambda *a: getattr(jnp.linalg, path)(*pre, *a, **kw)


# ---------------------------------------------------------------------------------------------
# Inputs: small well-conditioned matrices (their results are stable to float32 rounding).

f32 = np.float32
bf16 = ml_dtypes.bfloat16
A3 = (np.arange(9, dtype=f32).reshape(3, 3) % 4 - 1.5) / 2 + 3 * np.eye(3, dtype=f32)
A3S = A3.T[::-1].copy() + np.eye(3, dtype=f32)  # symmetric, one negative eigenvalue
AB = np.stack([A3, A3S])  # a batch of two
A4 = np.array([[1, -2, 0.5, 0], [2, 1, 0, 0.25], [0, 0.5, 3, -1], [0.25, 0, 1.5, 2]], f32)
R43 = (np.arange(12, dtype=f32).reshape(4, 3) % 5 - 2) / 2 + np.eye(4, 3, dtype=f32)
R34 = R43.T.copy()
RD = np.array([[1, 2, 3], [0, 1, 1], [2, -1, 1], [1, 1, 2]], f32)  # rank 2: c3 = c1 + c2
RD2 = np.array([[1, 2], [2, 4], [3, 6]], f32)  # rank 1
C3 = (A3 + 1j * ((np.arange(9).reshape(3, 3) % 3 - 1) / 4)).astype(np.complex64)
I3 = np.array([[2, 1, 0], [1, 3, 1], [0, 1, 4]], np.int32)
D3 = np.diag([10.0, 1.0, 0.1]).astype(f32)
Z2 = np.zeros((2, 2), f32)
NAN2 = np.array([[np.nan, 1], [1, 1]], f32)
B4 = np.array([1.0, -2.0, 0.5, 3.0], f32)
B42 = np.array([[1.0, 0.0], [-2.0, 1.0], [0.5, 2.0], [3.0, -1.0]], f32)
B3 = np.array([1.0, -0.5, 2.0], f32)
T6 = (A3.repeat(2, 0).repeat(2, 1) / 3 + 2 * np.eye(6, dtype=f32)).astype(f32)  # invertible
X34 = np.arange(12, dtype=f32).reshape(3, 4) / 4 - 1
X234 = np.arange(24, dtype=np.int8).reshape(2, 3, 4) - 10

# ---------------------------------------------------------------------------------------------
# diagonal and trace

case("diagonal", J("diagonal"), X34, grad=(0,))
case("diagonal_offset", J("diagonal", offset=1), X34, grad=(0,))
case("diagonal_neg_offset", J("diagonal", offset=-1), X34)
case("diagonal_batch_int8", J("diagonal", offset=2), X234)
case("diagonal_offset_past_end", J("diagonal", offset=5), X234)
case("diagonal_bool", J("diagonal"), I3 > 1)
case("trace", J("trace"), X34, grad=(0,))
case("trace_offset", J("trace", offset=1), X34, grad=(0,))
case("trace_neg_offset", J("trace", offset=-2), X34)
case("trace_batch_int8", J("trace"), X234)  # sums in int32
case("trace_uint8", J("trace"), X234.astype(np.uint8))  # sums in uint32
case("trace_dtype", J("trace", dtype=np.float32), X234)
case("trace_bool", J("trace"), I3 > 1)
case("trace_complex", J("trace", offset=-1), C3, grad=(0,))

# ---------------------------------------------------------------------------------------------
# cond

for p in [None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc"]:
    case(f"cond_{p}", J("cond", p=p), A3)
    case(f"cond_zeros_{p}", J("cond", p=p), Z2)  # singular: inf (NaN for p None/2: 0/0)
    case(f"cond_nan_{p}", J("cond", p=p), NAN2)  # NaN stays NaN
case("cond_batch", J("cond"), AB)
case("cond_batch_1", J("cond", p=1), AB)
case("cond_rect", J("cond"), R43)
case("cond_rect_m2", J("cond", p=-2), R34)
case("cond_int", J("cond"), I3)
case("cond_complex", J("cond"), C3)
case("cond_complex_inf", J("cond", p=np.inf), C3, grad=(0,))
case("cond_grad", J("cond"), A4, grad=(0,))
case("cond_grad_1", J("cond", p=1), A4, grad=(0,))
case("cond_grad_fro", J("cond", p="fro"), A4, grad=(0,))
case("cond_grad_batch_m2", J("cond", p=-2), AB, grad=(0,))

# ---------------------------------------------------------------------------------------------
# eig, eigvals, lax.linalg.eig

case("eig", J("eig"), A4, compare="eig")
case("eig_real_spectrum", J("eig"), A3S, compare="eig")
case("eig_batch", J("eig"), AB, compare="eig")
case("eig_complex", J("eig"), C3, compare="eig")
case("eig_int", J("eig"), I3, compare="eig")
case("eig_empty", J("eig"), np.zeros((2, 0, 0), f32), compare="eig")
case("eig_nan", J("eig"), NAN2)  # LAPACK fails: all NaN
case("eigvals", J("eigvals"), A4, compare="eigvals", grad=(0,), loss=eigvals_loss)
case("eigvals_batch", J("eigvals"), AB, compare="eigvals", grad=(0,), loss=eigvals_loss)
case("eigvals_int", J("eigvals"), I3, compare="eigvals")
case("eigvals_complex", J("eigvals"), C3, compare="eigvals", grad=(0,), loss=eigvals_loss)
case(
    "eigvals_nan_in_batch",
    J("eigvals"),
    np.stack([np.array([[np.inf, 1], [1, 1]], f32), np.eye(2, dtype=f32)]),
    compare="eigvals",
)
case("lax_eig", lambda jnp, lax: lambda x: lax.linalg.eig(x), A4, compare="lax_eig")
case(
    "lax_eig_vector_grad",
    lambda jnp, lax: (
        lambda x: lax.linalg.eig(x, compute_left_eigenvectors=False, enable_eigvec_derivs=True)
    ),
    A4,
    compare="eig",
    grad=(0,),
    loss=eigvecs_loss,
)

# ---------------------------------------------------------------------------------------------
# lstsq

case("lstsq", J("lstsq"), R43, B4, grad=(0, 1))
case("lstsq_2d_b", J("lstsq"), R43, B42, grad=(0, 1))
case("lstsq_wide", J("lstsq"), R34, B3, grad=(0, 1))
case("lstsq_square", J("lstsq"), A3, B3, grad=(0, 1))
case("lstsq_rank_deficient", J("lstsq", rcond=1e-4), RD, B4)
case("lstsq_rank_one", J("lstsq"), RD2, B3)
case("lstsq_rcond", J("lstsq", rcond=0.5), np.diag([1.0, 0.1, 0.6]).astype(f32), B3)
case("lstsq_rcond_negative", J("lstsq", rcond=-1.0), R43, B4)
case("lstsq_int", J("lstsq"), I3, np.array([1, 2, 3], np.int32))
case("lstsq_complex", J("lstsq"), C3, B3.astype(np.complex64), grad=(0, 1))
case("lstsq_empty_rows", J("lstsq"), np.zeros((0, 3), f32), np.zeros((0,), f32))
case("lstsq_empty_cols", J("lstsq"), np.zeros((4, 0), f32), B42)
case("lstsq_numpy_resid", J("lstsq", numpy_resid=True), R43, B42, jit=False)
case("lstsq_numpy_resid_wide", J("lstsq", numpy_resid=True), R34, B3, jit=False)

# ---------------------------------------------------------------------------------------------
# matrix_power

for n in [0, 1, 2, 3, 5, 8, -1, -3]:
    case(f"matrix_power_{n}", J("matrix_power", n=n), A3, grad=(0,) if n else None)
case("matrix_power_int", J("matrix_power", n=3), I3)
case("matrix_power_int_0", J("matrix_power", n=0), I3)
case("matrix_power_int_negative", J("matrix_power", n=-2), I3)  # through inv: float32
case("matrix_power_int8", J("matrix_power", n=2), X234[:, :, :3].copy())
case("matrix_power_bool", J("matrix_power", n=2), I3 > 1)
case("matrix_power_bool_0", J("matrix_power", n=0), I3 > 1)
case("matrix_power_batch", J("matrix_power", n=4), AB, grad=(0,))
case("matrix_power_batch_negative", J("matrix_power", n=-2), AB, grad=(0,))
case("matrix_power_complex", J("matrix_power", n=-3), C3, grad=(0,))
case("matrix_power_np_int", J("matrix_power", n=np.int64(2)), A3)
case("matrix_power_empty", J("matrix_power", n=-2), np.zeros((2, 0, 0), f32))

# ---------------------------------------------------------------------------------------------
# matrix_rank

case("matrix_rank", J("matrix_rank"), A3)
case("matrix_rank_deficient", J("matrix_rank"), RD)
case("matrix_rank_one", J("matrix_rank"), RD2)
case("matrix_rank_batch", J("matrix_rank"), np.stack([RD, R43]))
case("matrix_rank_rtol", J("matrix_rank", rtol=0.5), D3)  # rtol is absolute in JAX
case("matrix_rank_rtol_2", J("matrix_rank", rtol=2.0), D3)
case("matrix_rank_tol", J("matrix_rank", tol=0.05), D3)
case(
    "matrix_rank_rtol_batch",
    lambda jnp, lax: lambda m, t: jnp.linalg.matrix_rank(m, t),
    np.stack([D3, D3]),
    np.array([2.0, 0.5], f32),
)
case("matrix_rank_hermitian", J("matrix_rank", hermitian=True), A3S)
case("matrix_rank_hermitian_tol", J("matrix_rank", rtol=1.2, hermitian=True), A3S)
case("matrix_rank_int", J("matrix_rank"), I3)
case("matrix_rank_zeros", J("matrix_rank"), Z2)
case("matrix_rank_1d", J("matrix_rank"), np.array([0.0, 1.0], f32))
case("matrix_rank_1d_zero", J("matrix_rank"), np.zeros(3, f32))
case("matrix_rank_0d", J("matrix_rank"), np.array(3.0, f32))
case("matrix_rank_complex", J("matrix_rank"), C3)

# ---------------------------------------------------------------------------------------------
# pinv

case("pinv", J("pinv"), A3, grad=(0,))
case("pinv_tall", J("pinv"), R43, grad=(0,))
case("pinv_wide", J("pinv"), R34, grad=(0,))
case("pinv_rank_deficient", J("pinv"), RD, grad=(0,))
case("pinv_rank_one", J("pinv"), RD2, grad=(0,))
case("pinv_batch", J("pinv"), AB, grad=(0,))
case("pinv_complex", J("pinv"), C3, grad=(0,))
case("pinv_int", J("pinv"), I3)
case("pinv_rtol", J("pinv", rtol=0.05), D3)  # relative to the largest singular value
case("pinv_rtol_2", J("pinv", rtol=0.2), D3)
case("pinv_rcond", J("pinv", rcond=0.2), D3)
case("pinv_rtol_negative", J("pinv", rtol=-1.0), D3)
case(
    "pinv_rtol_batch",
    lambda jnp, lax: lambda m, t: jnp.linalg.pinv(m, t),
    np.stack([D3, D3]),
    np.array([0.5, 0.05], f32),
)
case("pinv_hermitian", J("pinv", hermitian=True), A3S, grad=(0,))
case("pinv_hermitian_rtol", J("pinv", rtol=0.4, hermitian=True), A3S)
case("pinv_zeros", J("pinv"), Z2, grad=(0,))
case("pinv_empty", J("pinv"), np.zeros((2, 0, 3), f32))

# ---------------------------------------------------------------------------------------------
# tensorinv and tensorsolve

T423 = T6[:4, :4].reshape(4, 2, 2).copy()
T2323 = T6.reshape(2, 3, 2, 3).copy()
case("tensorinv", J("tensorinv", ind=1), T423, grad=(0,))
case("tensorinv_ind2", J("tensorinv"), T2323, grad=(0,))
case("tensorinv_int", J("tensorinv", ind=1), I3)
case("tensorinv_complex", J("tensorinv", ind=1), C3, grad=(0,))
case("tensorsolve", J("tensorsolve"), T6.reshape(2, 3, 6), np.arange(6, dtype=f32).reshape(2, 3))
B23 = np.arange(6, dtype=f32).reshape(2, 3) - 2
case("tensorsolve_grad", J("tensorsolve"), T2323, B23, grad=(0, 1))
case("tensorsolve_axes", J("tensorsolve", axes=(0,)), T6.reshape(6, 2, 3), B23)
case("tensorsolve_axes2", J("tensorsolve", axes=(0, 1)), T2323, np.ones((2, 3), f32))
case("tensorsolve_axes2_rev", J("tensorsolve", axes=(1, 0)), T2323, np.ones((2, 3), f32))
case("tensorsolve_int", J("tensorsolve"), I3, np.array([1, 2, 3], np.int32))

# ---------------------------------------------------------------------------------------------
# qr's derivatives: tall, square and wide; reduced and full Q. The last m - n columns of a tall
# matrix's full Q are LAPACK's (Householder) completion, differentiated as JAX does.


def _jax(jnp):
    import importlib

    return importlib.import_module(jnp.__name__.split(".")[0])


def LQ(full_matrices: bool = True):
    """Maker of ``lax.linalg.qr(x, full_matrices=...)``."""
    return lambda jnp, lax: lambda x: lax.linalg.qr(x, full_matrices=full_matrices)


def QR_JVP(full_matrices: bool = True):
    """Maker of ``jax.jvp`` of ``lax.linalg.qr`` at ``x`` along ``t``: ``((q, r), (dq, dr))``."""

    def make(jnp, lax):
        qr = lambda a: lax.linalg.qr(a, full_matrices=full_matrices)
        return lambda x, t: _jax(jnp).jvp(qr, (x,), (t,))

    return make


def QR_JAC(kind: str):
    """Maker of ``jax.jacfwd``/``jax.jacrev`` of the full Q and R of ``lax.linalg.qr``."""
    return lambda jnp, lax: getattr(_jax(jnp), kind)(lambda x: lax.linalg.qr(x))


def SQ(**kw):
    """Maker of ``jax.scipy.linalg.qr(x, **kw)``."""

    def make(jnp, lax):
        import importlib

        mod = importlib.import_module(jnp.__name__.split(".")[0] + ".scipy.linalg")
        return lambda x: mod.qr(x, **kw)

    return make


Q53 = np.array([[2, -1, 0.5], [1, 3, -1], [0.5, 0, 2.5], [-1, 1, 1], [0.25, -0.5, 1.5]], f32)
C53 = (Q53 + 1j * np.cos(np.arange(15)).reshape(5, 3) / 2).astype(np.complex64)
QB = np.stack([Q53, Q53[::-1] + np.eye(5, 3, dtype=f32)])  # a batch of two tall matrices
T53 = np.sin(np.arange(15, dtype=f32)).reshape(5, 3)  # a tangent
CT53 = (T53 + 1j * np.cos(np.arange(15, dtype=f32)).reshape(5, 3)).astype(np.complex64)
TRI42 = np.array([[2, 1], [0, 3], [0, 0], [0, 0]], f32)  # LAPACK's reflectors are identities

case("qr_full_tall", LQ(), Q53, grad=(0,))
case("qr_full_tall_4x3", LQ(), R43, grad=(0,))
case("qr_full_tall_column", LQ(), Q53[:, :1].copy(), grad=(0,))
case("qr_full_tall_complex", LQ(), C53, grad=(0,))
case("qr_full_tall_batch", LQ(), QB, grad=(0,))
case("qr_full_square", LQ(), A3, grad=(0,))
case("qr_full_square_complex", LQ(), C3, grad=(0,))
case("qr_full_wide", LQ(), R34, grad=(0,))
case("qr_full_wide_complex", LQ(), C53.T.copy(), grad=(0,))
case("qr_full_wide_batch", LQ(), QB.transpose(0, 2, 1).copy(), grad=(0,))
case("qr_reduced_tall", LQ(False), Q53, grad=(0,))
case("qr_reduced_wide", LQ(False), R34, grad=(0,))
case("qr_full_tall_empty_cols", LQ(), np.zeros((3, 0), f32), grad=(0,))
case("qr_full_wide_empty_rows", LQ(), np.zeros((0, 3), f32), grad=(0,))
case("qr_full_tall_jvp", QR_JVP(), Q53, T53)
case("qr_full_tall_jvp_complex", QR_JVP(), C53, CT53)
case("qr_full_wide_jvp", QR_JVP(), Q53.T.copy(), T53.T.copy())
case("qr_full_tall_jvp_identity_reflectors", QR_JVP(), TRI42, T53[:4, :2].copy())  # NaN
case("qr_full_tall_jacfwd", QR_JAC("jacfwd"), R43)
case("qr_full_tall_jacrev", QR_JAC("jacrev"), R43)
case("qr_full_wide_jacrev", QR_JAC("jacrev"), R34)
case("jnp_qr_complete_tall", J("qr", mode="complete"), Q53, grad=(0,))
case("jnp_qr_complete_wide", J("qr", mode="complete"), R34, grad=(0,))
case("jnp_qr_reduced_wide", J("qr"), R34, grad=(0,))
case("jnp_qr_r_wide", J("qr", mode="r"), R34, grad=(0,))
case("scipy_qr_full_tall", SQ(mode="full"), Q53, grad=(0,))
case("scipy_qr_full_tall_complex", SQ(mode="full"), C53, grad=(0,))
case("scipy_qr_economic_wide", SQ(mode="economic"), R34, grad=(0,))
case("qr_full_tall_x64", LQ(), Q53.astype(np.float64), grad=(0,), x64=True)
case("qr_full_tall_complex_x64", LQ(), C53.astype(np.complex128), grad=(0,), x64=True)
case("qr_full_wide_x64", LQ(), R34.astype(np.float64), grad=(0,), x64=True)
case("qr_full_tall_batch_x64", LQ(), QB.astype(np.float64), grad=(0,), x64=True)
case(
    "qr_full_tall_jvp_x64",
    QR_JVP(),
    Q53.astype(np.float64),
    T53.astype(np.float64),
    x64=True,
)
case(
    "qr_full_tall_jvp_complex_x64",
    QR_JVP(),
    C53.astype(np.complex128),
    CT53.astype(np.complex128),
    x64=True,
)

# ---------------------------------------------------------------------------------------------
# Errors: JAX's exception class is recorded; spmd's message must match `match`.


def _error(cls: str):
    def add(name, make, *args, match):
        case(name, make, *args, error=cls, match=match)

    return add


VE, TE, NIE = _error("ValueError"), _error("TypeError"), _error("NotImplementedError")


VE("err_diagonal_1d", J("diagonal"), B3, match=r"jnp.linalg.diagonal.*x.shape=\(3,\)")
TE("err_diagonal_offset_float", J("diagonal", offset=1.0), A3, match="diagonal: offset")
TE("err_diagonal_list", J("diagonal"), [[1.0, 2.0]], match="jnp.linalg.diagonal requires ndarray")
VE("err_trace_1d", J("trace"), B3, match=r"jnp.linalg.trace.*x.shape=\(3,\)")
VE("err_trace_offset_float", J("trace", offset=1.0), A3, match="trace: offset must be")
VE("err_cond_1d", J("cond"), B3, match=r"jnp.linalg.cond.*at least 2D.*\(3,\)")
VE("err_cond_empty", J("cond"), np.zeros((0, 0), f32), match=r"cond.*empty.*\(0, 0\)")
VE("err_cond_nonsquare", J("cond", p=1), R43, match=r"cond: for p=1.*square.*\(4, 3\)")
VE("err_cond_order", J("cond", p=3), A3, match="cond: invalid order p=3")
TE("err_eig_1d", J("eig"), B3, match=r"jnp.linalg.eig.*rank at least 2.*\(3,\)")
VE("err_eig_nonsquare", J("eig"), R43, match=r"jnp.linalg.eig.*square.*\(4, 3\)")
VE("err_eigvals_nonsquare", J("eigvals"), R34, match=r"jnp.linalg.eigvals.*square.*\(3, 4\)")
NIE("err_eig_float16", J("eig"), A3.astype(np.float16), match="eig: unsupported dtype float16")
NIE("err_eigvals_bfloat16", J("eigvals"), A3.astype(bf16), match="eigvals: unsupported dtype")
VE("err_lstsq_rows", J("lstsq"), R43, B3, match=r"lstsq.*a.shape=\(4, 3\), b.shape=\(3,\)")
TE("err_lstsq_a_3d", J("lstsq"), AB, np.ones((2, 3), f32), match=r"lstsq: 3-dim.*\(2, 3, 3\)")
TE("err_lstsq_a_1d", J("lstsq"), B4, B4, match=r"lstsq: 1-dim.*\(4,\)")
TE("err_lstsq_b_3d", J("lstsq"), R43, np.ones((4, 2, 2), f32), match=r"lstsq: 3-dim.*for b")
TE("err_matrix_power_float", J("matrix_power", n=1.0), A3, match="exponent must be an integer")
VE("err_matrix_power_array", J("matrix_power", n=np.array(2)), A3, match="static Python int")
TE("err_matrix_power_1d", J("matrix_power", n=2), B3, match=r"matrix_power: 1-dim.*\(3,\)")
TE("err_matrix_power_rect", J("matrix_power", n=2), R43, match=r"matrix_power.*square.*\(4, 3\)")
VE("err_matrix_rank_both", J("matrix_rank", rtol=0.1, tol=0.1), A3, match="only one of tol or rtol")
VE("err_matrix_rank_empty", J("matrix_rank"), np.zeros((0, 3), f32), match=r"rank.*\(0, 3\)")
TE(
    "err_matrix_rank_rtol_shape",
    J("matrix_rank", rtol=np.ones(3, f32)),
    AB,
    match=r"matrix_rank: rtol of shape \(3,\)",
)
TE(
    "err_matrix_rank_hermitian_rect",
    J("matrix_rank", hermitian=True),
    R43,
    match=r"matrix_rank: hermitian.*\(4, 3\)",
)
VE("err_pinv_1d", J("pinv"), B3, match=r"jnp.linalg.pinv: a must.*\(3,\)")
VE("err_pinv_both", J("pinv", rtol=0.1, rcond=0.1), A3, match="only one of rtol and rcond")
TE("err_pinv_hermitian_rect", J("pinv", hermitian=True), R43, match=r"pinv: hermitian.*\(4, 3\)")
TE("err_pinv_rtol_shape", J("pinv", rtol=np.ones(3, f32)), AB, match=r"pinv: rtol of shape \(3,\)")
VE("err_tensorinv_ind0", J("tensorinv", ind=0), T423, match="tensorinv: ind must be a positive")
TE("err_tensorinv_ind_float", J("tensorinv", ind=1.0), T423, match="tensorinv: ind must be an")
VE(
    "err_tensorinv_shape",
    J("tensorinv"),
    np.ones((2, 3, 4), f32),
    match=r"tensorinv.*\(6\).*\(4\).*a.shape=\(2, 3, 4\) with ind=2",
)
VE(
    "err_tensorsolve_shape",
    J("tensorsolve"),
    T6.reshape(2, 3, 6),
    np.ones((3, 2), f32),
    match=r"tensorsolve.*a.shape=\(2, 3, 6\), b.shape=\(3, 2\)",
)
VE(
    "err_tensorsolve_nonsquare",
    J("tensorsolve"),
    np.ones((2, 3, 5), f32),
    np.ones((2, 3), f32),
    match=r"tensorsolve.*a.shape=\(2, 3, 5\), b.ndim=2",
)
VE(
    "err_tensorsolve_axes",
    J("tensorsolve", axes=(5,)),
    T6.reshape(2, 3, 6),
    np.ones((2, 3), f32),
    match="tensorsolve.*5",
)
