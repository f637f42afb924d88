"""spmd.numpy.linalg's cond, diagonal, eig, eigvals, lstsq, matrix_power, matrix_rank, pinv,
tensorinv, tensorsolve and trace (and spmd.lax.linalg.eig), and qr's derivatives, against
results recorded from JAX 0.10 (``tests/golden/linalg_more.json``, written by
``tests/golden_gen/linalg_more_gen.py`` from the cases of ``tests/cases_linalg_more.py``; JAX
is not needed here). Cases marked ``x64`` run with 64-bit types, compared within ``RTOL_X64``.

Each case runs eagerly and under ``spmd.jit``: dtypes, weak types and shapes must be exact,
integers and bools exact, floats within ``RTOL`` (relative, plus ``RTOL`` times the largest
magnitude of the output, for entries that cancel to near zero). Gradients of a scalar loss are
compared the same way. Error cases raise the builtin exception class JAX raises, with a message
that names the function and the sizes. ``vmap`` is checked against a loop over the examples.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from cases_linalg_more import A3, A3S, A4, AB, C3, C53, CASES, Q53, QB, R43, RD, T53, flatten
from golden_compare import assert_raises_like_jax, case_grad, mode_params, to_spmd

import spmd
import spmd.lax.linalg  # noqa: F401 -- makes spmd.lax.linalg an attribute, as in JAX
import spmd.numpy as jnp
from spmd import lax
from spmd._src.array import Array
from spmd.errors import ConcretizationTypeError

GOLDEN = json.loads((Path(__file__).parent / "golden" / "linalg_more.json").read_text())["cases"]

RTOL = 1e-5  # float32 results of LAPACK kernels that round differently from XLA's
RTOL_X64 = 1e-11  # float64: the same formulas, rounded in another order


def _rtol(case, request) -> float:
    """The case's tolerance; an ``x64`` case also turns 64-bit types on for the test."""
    if not case.x64:
        return RTOL
    request.getfixturevalue("x64")
    return RTOL_X64


def _decode(rec: dict) -> np.ndarray:
    def floats(vs):
        return np.array([float(v) for v in vs], np.float64)

    if rec["dtype"] == "bool":
        out = np.array(rec["values"], bool)
    elif rec["dtype"].startswith(("int", "uint")):
        out = np.array(rec["values"], np.int64)
    elif "imag" in rec:
        out = floats(rec["values"]) + 1j * floats(rec["imag"])
    else:
        out = floats(rec["values"])
    return out.reshape(rec["shape"])


def _assert_close(got, want, rtol: float, where: str, atol: float = 0.0) -> None:
    got = np.asarray(got).astype(want.dtype)
    parts = [(got.real, want.real), (got.imag, want.imag)] if want.dtype.kind == "c" else None
    for g, w in parts or [(got, want)]:
        nan_g, nan_w = np.isnan(g), np.isnan(w)
        assert np.array_equal(nan_g, nan_w), f"{where}: NaNs at {np.argwhere(nan_g != nan_w)}"
        inf_w = np.isinf(w)
        assert np.array_equal(g[inf_w], w[inf_w]), f"{where}: infinities differ"
        fin = ~(nan_w | inf_w)
        assert np.isfinite(g[fin]).all(), f"{where}: non-finite values where JAX has finite ones"
    fin = np.isfinite(want)
    if not fin.any():
        return
    scale = np.abs(want[fin]).max()
    err = np.abs(got[fin] - want[fin])
    bad = err > rtol * np.abs(want[fin]) + rtol * scale + atol
    assert not bad.any(), (
        f"{where}: {bad.sum()} of {bad.size} values differ beyond rtol={rtol}: got "
        f"{got[fin][bad][:4]}, expected {want[fin][bad][:4]}"
    )


def _check_leaf(got, rec: dict, where: str, rtol: float, atol: float = 0.0) -> None:
    a = np.asarray(got)
    assert a.dtype.name == rec["dtype"], f"{where}: dtype {a.dtype.name}, want {rec['dtype']}"
    assert getattr(got, "weak_type", None) == rec["weak_type"], f"{where}: weak type"
    assert list(a.shape) == rec["shape"], f"{where}: shape {a.shape}, want {rec['shape']}"
    want = _decode(rec)
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(a, want, err_msg=where)
    else:
        _assert_close(a, want, rtol, where, atol)


def _match_eigenvalues(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """For each expected eigenvalue (last axis) the index of the nearest unused computed one:
    the order of eigenvalues is not specified."""
    perm = np.zeros(want.shape, np.int64)
    for idx in np.ndindex(*want.shape[:-1]):
        g, w = got[idx], want[idx]
        if not np.isfinite(w).all():
            perm[idx] = np.arange(w.shape[-1])  # NaN results: compared as they are
            continue
        free = list(range(len(g)))
        for i, wi in enumerate(w):
            j = min(free, key=lambda k: abs(g[k] - wi))
            perm[idx + (i,)] = j
            free.remove(j)
    return perm


def _check_eigvecs(got_v, want_v, perm, where: str, rtol: float) -> None:
    """Eigenvectors (columns) paired as their eigenvalues were, each equal up to a phase."""
    got_v = np.take_along_axis(np.asarray(got_v), perm[..., None, :], axis=-1)
    want_v = np.asarray(want_v)
    if want_v.size == 0:
        return
    if not np.isfinite(want_v).all():
        _assert_close(got_v, want_v, rtol, where)
        return
    # LAPACK's normalisation: unit norm, largest-magnitude component real.
    np.testing.assert_allclose(np.linalg.norm(got_v, axis=-2), 1.0, rtol=1e-5, err_msg=where)
    top = np.take_along_axis(got_v, np.abs(got_v).argmax(axis=-2)[..., None, :], axis=-2)
    np.testing.assert_allclose(top.imag, 0.0, atol=1e-6, err_msg=where)
    overlap = np.sum(np.conj(got_v) * want_v, axis=-2, keepdims=True)
    aligned = got_v * overlap / np.abs(overlap)
    _assert_close(aligned, want_v, rtol, where)


# Absolute tolerances: the residuals of systems that lstsq solves exactly are rounding noise
# (about 1e-13 in JAX and here, with no relation between the two).
ATOL = {name: 1e-6 for name in ("lstsq_wide", "lstsq_square", "lstsq_int", "lstsq_complex")}


def _compare(case, out, golden: dict, rtol: float = RTOL) -> None:
    tree, leaves = flatten(out)
    assert tree == golden["tree"], f"output structure {tree}, expected {golden['tree']}"
    recs = golden["leaves"]
    if case.compare is None:
        for i, (g, r) in enumerate(zip(leaves, recs)):
            _check_leaf(g, r, f"leaf {i}", rtol, ATOL.get(case.name, 0.0))
        return
    # Eigenvalues first: sort the computed ones into JAX's order, then compare as usual.
    w = np.asarray(leaves[0])
    want_w = _decode(recs[0])
    perm = _match_eigenvalues(w, want_w)
    assert leaves[0].weak_type == recs[0]["weak_type"], "eigenvalues: weak type"
    ordered = Array(np.take_along_axis(w, perm, axis=-1))  # not weak, as JAX's
    _check_leaf(ordered, recs[0], "eigenvalues", rtol)
    for i, (g, r) in enumerate(zip(leaves[1:], recs[1:]), 1):
        a = np.asarray(g)
        assert a.dtype.name == r["dtype"] and list(a.shape) == r["shape"], f"leaf {i}"
        _check_eigvecs(a, _decode(r), perm, f"eigenvectors (leaf {i})", rtol)


def _run(case, mode):
    fn, args = case.build(jnp, lax)
    args = [to_spmd(a) for a in args]
    return (spmd.jit(fn) if mode == "jit" else fn)(*args)


@pytest.mark.parametrize("case,mode", mode_params(CASES, lambda c: not c.error))
def test_values(case, mode, request):
    rtol = _rtol(case, request)
    golden = GOLDEN[case.name]
    _compare(case, _run(case, mode), golden.get(mode, golden["eager"]), rtol)


@pytest.mark.parametrize(
    "case,mode", mode_params(CASES, lambda c: c.grad is not None, ("eager", "jit"))
)
def test_grad(case, mode, request):
    rtol = _rtol(case, request)
    got = case_grad(case, mode, jnp, lax)
    _compare_plain(got, GOLDEN[case.name]["grad"], rtol)


def _compare_plain(out, golden, rtol):
    tree, leaves = flatten(out)
    assert tree == golden["tree"]
    for i, (g, r) in enumerate(zip(leaves, golden["leaves"])):
        _check_leaf(g, r, f"gradient {i}", rtol)


def _error_params():
    # A list is no jit argument: such cases (arguments that are not arrays) run eagerly only.
    modes = lambda c: ("eager",) if any(isinstance(a, list) for a in c.args) else ("eager", "jit")
    return [pytest.param(c, m, id=f"{c.name}-{m}") for c in CASES if c.error for m in modes(c)]


@pytest.mark.parametrize("case,mode", _error_params())
def test_errors(case, mode):
    assert_raises_like_jax(case, GOLDEN[case.name], mode, jnp, lax)


def test_every_case_has_a_golden():
    assert sorted(c.name for c in CASES) == sorted(GOLDEN)


# ---------------------------------------------------------------------------------------------
# vmap: against a loop over the examples


def _stack(outs):
    leaves = [flatten(o)[1] for o in outs]
    return [np.stack([np.asarray(x[i]) for x in leaves]) for i in range(len(leaves[0]))]


A4B = np.stack([A4, A4.T.copy(), A4 + np.eye(4, dtype=np.float32)])
AB3 = np.stack([A3, A3S, A3 * 2])
R43B = np.stack([R43, RD, R43[::-1].copy()])
B4B = np.array([[1.0, -2.0, 0.5, 3.0], [0.0, 1.0, 2.0, -1.0], [1.0, 1.0, 1.0, 1.0]], np.float32)
QB3 = np.concatenate([QB, (Q53 * 2 - 1)[None]])


def _qr_loss(x):
    # Every column of the full Q, including the m - n trailing ones, weighs in.
    q, r = lax.linalg.qr(x)
    w = np.cos(np.arange(q.size)).reshape(q.shape).astype(np.float32)
    return (q * w).sum() + (r * r).sum()


def _qr_jvp(x, t):
    return spmd.jvp(lambda a: lax.linalg.qr(a), (x,), (t,))


VMAP_CASES = {
    "diagonal": (lambda x: jnp.linalg.diagonal(x, offset=1), (AB3,), 0),
    "trace": (lambda x: jnp.linalg.trace(x, offset=-1), (AB3,), 0),
    "cond": (jnp.linalg.cond, (AB3,), 0),
    "cond_1": (lambda x: jnp.linalg.cond(x, 1), (AB3,), 0),
    "eig": (jnp.linalg.eig, (A4B,), 0),
    "eigvals": (jnp.linalg.eigvals, (A4B,), 0),
    "lstsq": (jnp.linalg.lstsq, (R43B, B4B), 0),
    "lstsq_in_axes": (jnp.linalg.lstsq, (R43B, B4B[0]), (0, None)),
    "matrix_power": (lambda x: jnp.linalg.matrix_power(x, 5), (AB3,), 0),
    "matrix_power_neg": (lambda x: jnp.linalg.matrix_power(x, -2), (AB3,), 0),
    "matrix_rank": (jnp.linalg.matrix_rank, (R43B,), 0),
    "pinv": (jnp.linalg.pinv, (R43B,), 0),
    "pinv_axis1": (jnp.linalg.pinv, (np.moveaxis(R43B, 0, 1).copy(),), 1),
    "pinv_hermitian": (lambda x: jnp.linalg.pinv(x, hermitian=True), (AB3[:2],), 0),
    "tensorinv": (lambda x: jnp.linalg.tensorinv(x, ind=1), (AB3,), 0),
    "tensorsolve": (jnp.linalg.tensorsolve, (AB3, B4B[:, :3]), 0),
    "grad_pinv": (spmd.grad(lambda x: jnp.linalg.pinv(x).sum()), (R43B,), 0),
    "grad_eigvals": (spmd.grad(lambda x: jnp.real(jnp.linalg.eigvals(x) ** 2).sum()), (A4B,), 0),
    "grad_lstsq": (spmd.grad(lambda a, b: jnp.linalg.lstsq(a, b)[0].sum()), (R43B, B4B), 0),
    "grad_matrix_power": (spmd.grad(lambda x: jnp.linalg.matrix_power(x, -3).sum()), (AB3,), 0),
    "grad_qr_full_tall": (spmd.grad(_qr_loss), (QB3,), 0),
    "grad_qr_full_tall_axis1": (spmd.grad(_qr_loss), (np.moveaxis(QB3, 0, 1).copy(),), 1),
    "grad_qr_full_wide": (spmd.grad(_qr_loss), (QB3.transpose(0, 2, 1).copy(),), 0),
    "jvp_qr_full_tall": (_qr_jvp, (QB3, np.stack([T53, T53[::-1], -T53])), (0, 0)),
    "jvp_qr_full_tall_one_tangent": (_qr_jvp, (QB3, T53), (0, None)),
}


@pytest.mark.parametrize("name", sorted(VMAP_CASES))
def test_vmap_matches_loop(name):
    fn, args, in_axes = VMAP_CASES[name]
    axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
    size = next(a.shape[ax] for a, ax in zip(args, axes) if ax is not None)
    loop = [
        fn(*(a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, axes)))
        for i in range(size)
    ]
    for mapped in (spmd.vmap(fn, in_axes=in_axes), spmd.jit(spmd.vmap(fn, in_axes=in_axes))):
        got = flatten(mapped(*args))[1]
        want = _stack(loop)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            g = np.asarray(g)
            assert g.dtype == w.dtype and g.shape == w.shape, name
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6, err_msg=name)


# ---------------------------------------------------------------------------------------------
# Behaviour beyond values


def test_eig_result_is_a_named_tuple():
    res = jnp.linalg.eig(A4)
    w, v = res
    assert res.eigenvalues is w and res.eigenvectors is v
    assert type(spmd.jit(jnp.linalg.eig)(A4)).__name__ == "EigResult"
    # The eigen-equation holds (in float32).
    w, v = np.asarray(w), np.asarray(v)
    np.testing.assert_allclose(A4 @ v, v * w, atol=1e-5)


def test_eig_vectors_are_not_differentiable():
    # As in JAX: the derivative of eig's vectors needs an opt-in (lax.linalg.eig's
    # enable_eigvec_derivs), so eig refuses derivatives; eigvals has them.
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        spmd.grad(lambda x: jnp.real(jnp.linalg.eig(x)[0]).sum())(A4)
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        spmd.jvp(lambda x: lax.linalg.eig(x)[0], (A4,), (A4,))
    g = spmd.grad(lambda x: jnp.real(jnp.linalg.eigvals(x)).sum())(A4)
    np.testing.assert_allclose(np.asarray(g), np.eye(4), atol=1e-5)  # d trace = I


def test_eigvals_second_derivative_needs_the_opt_in():
    # As JAX: the eigenvalues' derivative uses the eigenvectors, so differentiating it again
    # needs enable_eigvec_derivs (then it works; the values are JAX 0.10.2's).
    t = np.sin(np.arange(16.0)).reshape(4, 4).astype(np.float32)
    second = lambda f: spmd.jvp(lambda x: spmd.jvp(f, (x,), (t,))[1], (A4,), (t,))[1]
    with pytest.raises(NotImplementedError, match="enable_eigvec_derivs"):
        second(jnp.linalg.eigvals)
    got = second(
        lambda x: lax.linalg.eig(
            x,
            compute_left_eigenvectors=False,
            compute_right_eigenvectors=False,
            enable_eigvec_derivs=True,
        )[0]
    )
    want = [-0.72875977 + 0.55070144j, -0.72875965 - 0.5507014j, 0.72875977 - 1.77717j]
    want.append(0.72875977 + 1.77717j)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5)


def test_eigvals_jvp_forward_mode():
    # The derivative of the eigenvalues along dA = A is the eigenvalues themselves.
    w, dw = spmd.jvp(jnp.linalg.eigvals, (A4,), (A4,))
    np.testing.assert_allclose(np.asarray(dw), np.asarray(w), rtol=1e-5)


def test_lax_eig_left_eigenvectors():
    w, vl, vr = (np.asarray(a) for a in lax.linalg.eig(C3))
    np.testing.assert_allclose(vl.conj().T @ C3, w[:, None] * vl.conj().T, atol=1e-5)
    np.testing.assert_allclose(C3 @ vr, vr * w, atol=1e-5)
    np.testing.assert_allclose(np.linalg.norm(vl, axis=0), 1.0, rtol=1e-6)


def test_lax_eig_refuses_integer_input():
    # jnp.linalg.eig promotes integers to float32; lax.linalg.eig takes floats only, as JAX's.
    with pytest.raises(TypeError, match="eig does not accept dtype int32"):
        lax.linalg.eig(np.ones((2, 2), np.int32))


def test_lstsq_numpy_resid_needs_a_concrete_rank():
    with pytest.raises(ConcretizationTypeError):
        spmd.jit(lambda a, b: jnp.linalg.lstsq(a, b, numpy_resid=True))(R43, R43[:, 0])
    x, resid, rank, s = jnp.linalg.lstsq(RD, R43[:, 0], rcond=1e-4, numpy_resid=True)
    assert resid.shape == (0,) and int(rank) == 2


def test_pinv_derivative_at_a_rank_deficient_matrix_is_finite():
    # pinv's own derivative rule (where the rank is locally constant), not the SVD's, which
    # would divide by the zero singular value.
    g = np.asarray(spmd.grad(lambda x: jnp.linalg.pinv(x).sum())(RD))
    assert np.isfinite(g).all()
    # Finite differences along a direction that keeps the rank (scaling).
    eps = 1e-2
    f = lambda x: float(np.asarray(jnp.linalg.pinv(x)).sum())
    fd = (f(RD * (1 + eps)) - f(RD * (1 - eps))) / (2 * eps)
    np.testing.assert_allclose(np.sum(g * RD), fd, rtol=1e-3)


def test_matrix_power_keeps_integer_and_bool_dtypes_under_jit():
    i = spmd.jit(lambda x: jnp.linalg.matrix_power(x, 4))(np.array([[1, 1], [0, 1]], np.int32))
    assert i.dtype == np.int32 and np.asarray(i).tolist() == [[1, 4], [0, 1]]
    b = jnp.linalg.matrix_power(np.array([[True, False], [True, True]]), 3)
    assert b.dtype == np.bool_


def test_trace_and_diagonal_with_traced_arguments():
    x = AB.copy()
    got = spmd.jit(lambda a, k: jnp.linalg.trace(a, offset=k))(x, 1)
    np.testing.assert_allclose(np.asarray(got), np.trace(x, 1, axis1=-2, axis2=-1), rtol=1e-6)
    g = spmd.grad(lambda a: jnp.linalg.diagonal(a, offset=-1).sum())(x)
    np.testing.assert_array_equal(np.asarray(g), np.broadcast_to(np.eye(3, k=-1), x.shape))


# ---------------------------------------------------------------------------------------------
# Derivatives in float64 (and complex128) against central differences


def _check_jvp_and_vjp(f, x, t, eps=1e-6, tol=1e-7):
    """jvp along ``t`` against central differences, and reverse mode by the pairing
    re(sum(ct * J t)) == re(sum(vjp(ct) * t)) (JAX's convention: no conjugation)."""
    plus, minus = flatten(f(x + eps * t))[1], flatten(f(x - eps * t))[1]
    fd = [(np.asarray(p) - np.asarray(m)) / (2 * eps) for p, m in zip(plus, minus)]
    _, t_out = spmd.jvp(f, (x,), (t,))
    for got, want in zip(flatten(t_out)[1], fd):
        np.testing.assert_allclose(np.asarray(got), want, rtol=tol, atol=tol * np.abs(want).max())
    out, pullback = spmd.vjp(f, x)
    cts = [np.cos(np.arange(np.size(o))).reshape(np.shape(o)) * (1 - 0.5j) for o in fd]
    cts = [c if np.iscomplexobj(o) else c.real for c, o in zip(cts, fd)]
    (ct_in,) = pullback(type(out)(cts) if isinstance(out, (tuple, list)) else cts[0])
    lhs = sum(np.real(np.sum(c * d)) for c, d in zip(cts, fd))
    rhs = np.real(np.sum(np.asarray(ct_in) * t))
    assert abs(lhs - rhs) <= tol * (1 + abs(lhs)), (lhs, rhs)


def _eig_vectors(x):
    return lax.linalg.eig(x, compute_left_eigenvectors=False, enable_eigvec_derivs=True)


@pytest.mark.parametrize("cplx", [False, True], ids=["float64", "complex128"])
def test_eig_derivatives_float64(x64, cplx):
    x = A4.astype(np.float64) + (1j * A4.T if cplx else 0)
    t = np.sin(np.arange(16.0)).reshape(4, 4) + (
        1j * np.cos(np.arange(16.0)).reshape(4, 4) if cplx else 0
    )

    # The kernel's order of the eigenpairs does not change under differences this small; the
    # vectors' normalisation (unit norm, largest component real) is what the derivative keeps.
    _check_jvp_and_vjp(jnp.linalg.eigvals, x, t)
    _check_jvp_and_vjp(_eig_vectors, x, t)


@pytest.mark.parametrize("cplx", [False, True], ids=["float64", "complex128"])
def test_pinv_and_lstsq_derivatives_float64(x64, cplx):
    a = R43.astype(np.float64) + (1j * R43[::-1] if cplx else 0)
    t = np.sin(np.arange(12.0)).reshape(4, 3) + (
        1j * np.cos(np.arange(12.0)).reshape(4, 3) if cplx else 0
    )
    _check_jvp_and_vjp(jnp.linalg.pinv, a, t)
    _check_jvp_and_vjp(jnp.linalg.pinv, a.T.copy(), t.T.copy())
    _check_jvp_and_vjp(lambda m: jnp.linalg.lstsq(m, np.arange(4.0))[:2], a, t)
    # A rank-deficient matrix, along a direction that keeps its rank (its column space).
    _check_jvp_and_vjp(jnp.linalg.pinv, RD.astype(np.float64), RD @ np.diag([1.0, -2.0, 0.5]))


@pytest.mark.parametrize("cplx", [False, True], ids=["float64", "complex128"])
@pytest.mark.parametrize("shape", ["tall", "square", "wide", "batch"])
def test_qr_full_derivatives_float64(x64, cplx, shape):
    # The full Q of a tall matrix: its last m - n columns are LAPACK's completion, which the
    # derivative follows (finite differences of the kernel agree).
    x = (C53 if cplx else Q53).astype(np.complex128 if cplx else np.float64)
    t = T53.astype(np.float64) + (1j * np.cos(np.arange(15.0)).reshape(5, 3) if cplx else 0)
    if shape == "square":
        x, t = x[:3], t[:3]
    elif shape == "wide":
        x, t = x.T.copy(), t.T.copy()
    elif shape == "batch":
        x, t = np.stack([x, x[::-1] * 2]), np.stack([t, -t])
    _check_jvp_and_vjp(lambda a: lax.linalg.qr(a), x, t)
    _check_jvp_and_vjp(lambda a: lax.linalg.qr(a, full_matrices=False), x, t)
