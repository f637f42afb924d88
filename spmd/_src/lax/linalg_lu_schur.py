"""The decompositions behind ``jax.scipy.linalg`` that ``numpy.linalg`` has no kernel for:
``lu`` (partial pivoting, as LAPACK's getrf), ``hessenberg`` (Householder reduction, as
gehrd + orghr) and ``schur`` (real or complex Schur form). Each is batch-polymorphic like the
primitives of ``linalg.py`` (it maps over leading dimensions, so ``vmap`` moves the mapped
dimension to the front). ``lu`` has a derivative; ``hessenberg`` and ``schur`` have none, as in
JAX.

>>> from spmd._src.lax import linalg_lu_schur as ls
>>> lu, piv, perm = ls.lu(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
>>> piv
Array([1, 1], dtype=int32)
"""

from __future__ import annotations

import numpy as np

from spmd._src import core
from spmd._src.interpreters import ad
from spmd._src.lax import elementwise as ew
from spmd._src.lax.elementwise.conversion import convert_element_type
from spmd._src.lax.linalg import (
    _compute,
    _const,
    _each_matrix_outputs,
    _linalg_primitive,
    _mm,
    _mT,
    solve,
)
from spmd._src.lax.padding import pad
from spmd._src.lax.shape import broadcast_in_dim, concatenate, iota, slice_in_dim

# ---------------------------------------------------------------------------------------------
# lu


def lu(x):
    """LU decomposition with partial pivoting of (a batch of) ``m x n`` matrices:
    ``x[perm] = L @ U`` with ``L`` unit lower triangular (``m x k``, ``k = min(m, n)``) and
    ``U`` upper triangular (``k x n``), returned packed in one ``m x n`` array. Returns
    ``(lu, pivots, permutation)``: ``pivots[i]`` is the row swapped with row ``i`` at step
    ``i`` (LAPACK's, 0-based), ``permutation`` the resulting order of the rows (int32), as a
    list (JAX's ``lax.linalg.lu`` returns its primitive's list)."""
    if np.ndim(x) < 2:
        raise ValueError(f"lu: argument must have at least 2 dimensions, got shape {np.shape(x)}.")
    return list(lu_p.bind(x))


def _lu_abstract_eval(x):
    *batch, m, n = x.shape
    k = min(m, n)
    return [
        core.ShapedArray(x.shape, x.dtype),
        core.ShapedArray((*batch, k), np.dtype(np.int32)),
        core.ShapedArray((*batch, m), np.dtype(np.int32)),
    ]


def _lu_one(a: np.ndarray):
    """getrf on one matrix (right-looking, unblocked: same pivots, rounding may differ)."""
    a = a.copy()
    m, n = a.shape
    k = min(m, n)
    piv = np.zeros(k, np.int32)
    perm = np.arange(m, dtype=np.int32)
    for j in range(k):
        col = a[j:, j]
        # LAPACK's i?amax: |re| + |im| for complex entries; the first maximum wins.
        size = np.abs(col.real) + np.abs(col.imag) if a.dtype.kind == "c" else np.abs(col)
        p = j + int(np.argmax(size)) if col.size else j
        piv[j] = p
        if p != j:
            a[[j, p]] = a[[p, j]]
            perm[[j, p]] = perm[[p, j]]
        if a[j, j] != 0:  # a zero pivot leaves its column as it is (getrf reports it in info)
            a[j + 1 :, j] /= a[j, j]
        a[j + 1 :, j + 1 :] -= np.outer(a[j + 1 :, j], a[j, j + 1 :])
    return a, piv, perm


def _lu_impl(x):
    c = _compute(x)
    *batch, m, n = c.shape
    outs = [np.empty(c.shape, c.dtype), np.empty((*batch, min(m, n)), np.int32)]
    outs.append(np.empty((*batch, m), np.int32))
    for idx in np.ndindex(*batch):
        for o, r in zip(outs, _lu_one(c[idx])):
            o[idx] = r
    return [outs[0].astype(x.dtype), outs[1], outs[2]]


def _rows(x, lo: int, hi: int):
    return slice_in_dim(x, lo, hi, axis=x.ndim - 2)


def _cols(x, lo: int, hi: int):
    return slice_in_dim(x, lo, hi, axis=x.ndim - 1)


def _masked(x, mask: np.ndarray):
    return ew.mul(x, _const(mask.astype(np.float64), x))


def _zeros(shape, like):
    return _const(np.zeros(shape), like)


def _lu_jvp(primals, tangents, outs):
    # x[perm] = L U. With dA the tangent's rows in the same order, for the square part (k x k):
    # L^-1 dA U^-1 = L^-1 dL + dU U^-1, a strictly lower plus an upper triangular matrix, so
    # dL = L tril(X, -1), dU = triu(X) U. Rows of a tall x below k: dL2 = (dA2 - L2 dU) U^-1;
    # columns of a wide x right of k: dU2 = L^-1 (dA2 - dL U2). Triangular solves are general
    # solves of the triangular factors (solve_p has the rules for its right-hand side).
    (x,), (t,) = primals, tangents
    lu_, piv, perm = outs
    *batch, m, n = x.shape
    k = min(m, n)
    nd = x.ndim
    # P[i, j] = (perm[i] == j): P @ t holds t's rows in the factorization's order.
    rows_of = broadcast_in_dim(perm, (*batch, m, m), tuple(range(nd - 1)))
    cols = broadcast_in_dim(iota(np.int32, m), (*batch, m, m), (nd - 1,))
    p_mat = convert_element_type(ew.eq(rows_of, cols), x.dtype)
    d_a = _mm(p_mat, t)
    l_full = ew.add(
        _masked(_cols(lu_, 0, k), np.tril(np.ones((m, k)), -1)), _const(np.eye(m, k), x)
    )
    u_full = _masked(_rows(lu_, 0, k), np.triu(np.ones((k, n))))
    l1, u1 = _rows(l_full, 0, k), _cols(u_full, 0, k)
    lsolve = lambda b: solve(l1, b)  # L1^-1 b
    rsolve = lambda b: _mT(solve(_mT(u1), _mT(b)))  # b U1^-1
    xk = rsolve(lsolve(_cols(_rows(d_a, 0, k), 0, k)))
    dl = _mm(l1, _masked(xk, np.tril(np.ones((k, k)), -1)))
    du = _mm(_masked(xk, np.triu(np.ones((k, k)))), u1)
    if m > n:
        dl2 = rsolve(ew.sub(_rows(d_a, k, m), _mm(_rows(l_full, k, m), du)))
        dl = concatenate([dl, dl2], nd - 2)  # m x k, strictly lower
    if n > m:
        du2 = lsolve(ew.sub(_cols(d_a, k, n), _mm(dl, _cols(u_full, k, n))))
        du = concatenate([du, du2], nd - 1)  # k x n, upper
    # Packed as lu is: dL's strict lower part and dU's upper part in one m x n array.
    if m > n:
        du = concatenate([du, _zeros((*batch, m - k, n), x)], nd - 2)
    if n > m:
        dl = concatenate([dl, _zeros((*batch, m, n - k), x)], nd - 1)
    return [ew.add(dl, du), _int_zero(piv), _int_zero(perm)]


def _int_zero(x):
    return ad.Zero(ad.tangent_aval(core.get_aval(x)))


lu_p = _linalg_primitive("lu", _lu_impl, _lu_abstract_eval, multiple_results=True)
ad.primitive_jvps[lu_p] = _lu_jvp


# ---------------------------------------------------------------------------------------------
# hessenberg


def hessenberg(x):
    """Upper Hessenberg form ``x = Q @ H @ Q^H`` of (a batch of) square matrices, by Householder
    reflections with LAPACK's conventions (gehrd, then orghr for ``Q``): returns ``(H, Q)``,
    ``H`` with zeros below the first subdiagonal."""
    from spmd._src.lax.linalg_more import householder_product

    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"hessenberg: argument must be a batch of square matrices, got shape {x.shape}."
        )
    packed, taus = hessenberg_p.bind(x)
    n = x.shape[-1]
    h = ew.mul(packed, _const(np.triu(np.ones((n, n)), -1), packed))
    if n <= 1:
        return h, _const(np.eye(n), x)
    # Q = diag(1, Q'), Q' the product of the reflectors stored below the sub-diagonal.
    vecs = slice_in_dim(slice_in_dim(packed, 1, n, axis=x.ndim - 2), 0, n - 1, axis=x.ndim - 1)
    inner = householder_product(vecs, taus)
    zero = core.make_concrete(np.asarray(0, x.dtype), False)
    q = pad(inner, zero, [(0, 0, 0)] * (x.ndim - 2) + [(1, 0, 0), (1, 0, 0)])
    corner = np.zeros((n, n))
    corner[0, 0] = 1
    return h, ew.add(q, _const(corner, q))


def _gehrd_abstract(x):
    k = max(x.shape[-1] - 1, 0)
    return [core.ShapedArray(x.shape, x.dtype), core.ShapedArray((*x.shape[:-2], k), x.dtype)]


def _householder(x: np.ndarray):
    """LAPACK's larfg: ``(v, tau, beta)`` with ``(I - tau v v^H)^H x = beta e1``, ``v[0] = 1``
    and ``beta`` real; ``tau = 0`` (no reflection) when ``x`` is already so."""
    alpha, rest = x[0], x[1:]
    xnorm = np.linalg.norm(rest)
    v = np.zeros_like(x)
    v[0] = 1
    if xnorm == 0 and np.imag(alpha) == 0:
        return v, x.dtype.type(0), alpha
    beta = -np.copysign(np.sqrt(abs(alpha) ** 2 + xnorm**2), np.real(alpha))
    tau = (beta - np.real(alpha)) / beta - 1j * np.imag(alpha) / beta
    tau = tau if x.dtype.kind == "c" else np.real(tau)
    v[1:] = rest / (alpha - beta)
    return v, x.dtype.type(tau), beta


def _hessenberg_one(a: np.ndarray):
    """gehrd: the reduced matrix with the reflectors' vectors below its sub-diagonal, and
    their taus."""
    h = a.copy()
    n = a.shape[0]
    taus = np.zeros(max(n - 1, 0), a.dtype)
    vecs = np.zeros_like(a)  # kept apart: the later reflections would overwrite them in h
    # n - 1 reflectors: the last (of length 1) makes a complex last subdiagonal entry real.
    for j in range(n - 1):
        v, tau, beta = _householder(h[j + 1 :, j])
        taus[j] = tau
        if tau == 0:
            continue
        vv = np.outer(v, v.conj())
        # H <- P^H H P with P = I - tau v v^H acting on rows/columns j+1..n-1.
        h[j + 1 :, :] -= np.conj(tau) * (vv @ h[j + 1 :, :])
        h[:, j + 1 :] -= tau * (h[:, j + 1 :] @ vv)
        h[j + 2 :, j] = 0
        h[j + 1, j] = beta
        vecs[j + 2 :, j] = v[1:]
    return h + vecs, taus


def _hessenberg_impl(x):
    c = _compute(x)
    h, taus = np.empty_like(c), np.empty((*c.shape[:-2], max(c.shape[-1] - 1, 0)), c.dtype)
    for idx in np.ndindex(*c.shape[:-2]):
        h[idx], taus[idx] = _hessenberg_one(c[idx])
    return [h.astype(x.dtype), taus.astype(x.dtype)]


hessenberg_p = _linalg_primitive("hessenberg", _hessenberg_impl, _gehrd_abstract, True)


# ---------------------------------------------------------------------------------------------
# schur


def schur(x, *, output: str = "real"):
    """Schur decomposition ``x = Z @ T @ Z^H`` of (a batch of) square matrices: ``T`` upper
    triangular (``output='complex'``) or, for real input and ``output='real'``, quasi upper
    triangular with a 2 x 2 block on the diagonal for each complex-conjugate eigenvalue pair.
    Returns ``(T, Z)``. The order of the eigenvalues on the diagonal is not specified."""
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"schur: argument must be a batch of square matrices, got shape {x.shape}."
        )
    t, z = schur_p.bind(x, real=output == "real" and np.dtype(x.dtype).kind != "c")
    return t, z


def _schur_one(a: np.ndarray, real: bool):
    # The eigenvectors, in the order of their eigenvalues, span nested invariant subspaces;
    # orthonormalising them (QR) gives Z with Z^H A Z (block) upper triangular. For a real
    # matrix each complex pair contributes the real and imaginary parts of one eigenvector,
    # a real basis of its 2-dimensional invariant subspace.
    w, v = np.linalg.eig(a)
    n = a.shape[0]
    starts = np.zeros(n, bool)  # where a 2 x 2 block starts
    if real:
        cols, i = [], 0
        while i < n:
            if w[i].imag != 0 and i + 1 < n:
                cols += [v[:, i].real, v[:, i].imag]
                starts[i] = True
                i += 2
            else:
                cols.append(v[:, i].real)
                i += 1
        basis = np.stack(cols, axis=1) if n else np.zeros((0, 0), a.dtype)
    else:
        basis = v
    z, _ = np.linalg.qr(basis)
    t = z.conj().T @ a @ z
    mask = np.triu(np.ones((n, n), bool)) | np.diag(starts[: n - 1], -1)
    return np.where(mask, t, 0), z


def _schur_impl(x, *, real):
    c = _compute(x)
    if not real and c.dtype.kind != "c":
        c = c.astype(np.complex64 if c.dtype == np.float32 else np.complex128)
    dt = _schur_abstract(x, real=real)[0].dtype
    return [o.astype(dt) for o in _each_matrix_outputs(lambda a: _schur_batch(a, real), c)]


def _schur_batch(a: np.ndarray, real: bool):
    t, z = np.empty_like(a), np.empty_like(a)
    for idx in np.ndindex(*a.shape[:-2]):
        ti, zi = _schur_one(a[idx], real)
        t[idx], z[idx] = ti, zi
    return t, z


def _schur_abstract(x, *, real):
    dt = np.dtype(x.dtype)
    if not real and dt.kind != "c":
        dt = np.dtype(np.complex64 if dt.itemsize <= 4 else np.complex128)
    return [core.ShapedArray(x.shape, dt), core.ShapedArray(x.shape, dt)]


schur_p = _linalg_primitive("schur", _schur_impl, _schur_abstract, True)


# ---------------------------------------------------------------------------------------------
# qr_pivots: the column order of QR with column pivoting (LAPACK's geqp3)


def qr_pivots(x):
    """The column order ``p`` (int32) that QR with column pivoting picks for (a batch of)
    matrices: at each step the remaining column of largest norm after the previous
    reflections (the first of equal ones), so that ``x[..., p]`` has a QR decomposition with
    a non-increasing ``|diag(r)|``."""
    return qr_pivots_p.bind(x)


def _qr_pivots_abstract_eval(x):
    return core.ShapedArray((*x.shape[:-2], x.shape[-1]), np.dtype(np.int32))


def _qr_pivots_one(a: np.ndarray) -> np.ndarray:
    r = a.copy()
    m, n = r.shape
    order = np.arange(n, dtype=np.int32)
    for j in range(min(m, n)):
        norms = np.linalg.norm(r[j:, j:], axis=0)
        p = j + int(np.argmax(norms))
        r[:, [j, p]] = r[:, [p, j]]
        order[[j, p]] = order[[p, j]]
        v, tau, _ = _householder(r[j:, j])
        r[j:, j:] -= np.conj(tau) * np.outer(v, v.conj() @ r[j:, j:])
    return order


def _qr_pivots_impl(x):
    c = _compute(x)
    out = np.empty((*c.shape[:-2], c.shape[-1]), np.int32)
    for idx in np.ndindex(*c.shape[:-2]):
        out[idx] = _qr_pivots_one(c[idx])
    return out


def _qr_pivots_jvp(primals, tangents, out):
    return _int_zero(out)  # an integer result: no derivative


qr_pivots_p = _linalg_primitive("qr_pivots", _qr_pivots_impl, _qr_pivots_abstract_eval)
ad.primitive_jvps[qr_pivots_p] = _qr_pivots_jvp


__all__ = [
    "hessenberg",
    "hessenberg_p",
    "lu",
    "lu_p",
    "qr_pivots",
    "qr_pivots_p",
    "schur",
    "schur_p",
]
