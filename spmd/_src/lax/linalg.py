"""Matrix decompositions and solvers: ``cholesky``, ``eigh``, ``qr``, ``svd`` (as in
``jax.lax.linalg``) and the primitives behind ``jnp.linalg.det``, ``inv``, ``slogdet`` and
``solve``. The NumPy kernels call ``numpy.linalg`` (16-bit floats are computed in float32).

Every primitive here is batch-polymorphic: it maps over the leading dimensions of its operands,
so under ``vmap`` the mapped dimension moves to the front and the primitive applies as it is.
Derivatives follow the usual matrix-calculus identities (``d inv(A) = -inv(A) dA inv(A)``,
``d det(A) = det(A) tr(inv(A) dA)``, ...), written with ``dot_general`` and elementwise
primitives so that they transpose for reverse mode.

>>> from spmd._src.lax import linalg
>>> linalg.cholesky(jnp.array([[4.0, 2.0], [2.0, 5.0]]))
Array([[2., 0.],
       [1., 2.]], dtype=float32)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.lax import elementwise as ew
from spmd._src.lax.dot import Precision, dot_general
from spmd._src.lax.padding import pad
from spmd._src.lax.reductions import reduce_max, reduce_sum
from spmd._src.lax.rules import bdim_at_front
from spmd._src.lax.shape import broadcast_in_dim, concatenate, slice_in_dim, transpose

# ---------------------------------------------------------------------------------------------
# Shared pieces


def _compute(x: np.ndarray) -> np.ndarray:
    # LAPACK has no 16-bit floats: compute those in float32.
    if x.dtype.itemsize < 4 and x.dtype.kind != "c":
        return x.astype(np.float32)
    return x


def _real_dtype(dt: np.dtype) -> np.dtype:
    if dt == np.complex64:
        return np.dtype(np.float32)
    if dt == np.complex128:
        return np.dtype(np.float64)
    return dt


def _is_complex(x: Any) -> bool:
    return np.dtype(x.dtype).kind == "c"


def _each_matrix(fn: Callable, a: np.ndarray, *rest: np.ndarray) -> np.ndarray:
    """``fn`` over a batch of matrices; where LAPACK fails on a matrix (singular, not
    positive definite) that matrix's result is NaN and the others are still computed."""
    try:
        return fn(a, *rest)
    except np.linalg.LinAlgError:
        pass
    batch = a.shape[:-2]
    first = tuple(np.broadcast_to(r, (*batch, *r.shape[-2:])) for r in rest)
    shape = first[0].shape if rest else a.shape
    dt = np.result_type(a, *rest)
    out = np.full(shape, np.nan, dt)
    for idx in np.ndindex(*batch):
        try:
            out[idx] = fn(a[idx], *(r[idx] for r in first))
        except np.linalg.LinAlgError:
            pass
    return out


def _each_matrix_outputs(fn: Callable, a: np.ndarray) -> list[np.ndarray]:
    """``fn`` (one matrix -> several arrays, batched like NumPy's) over a batch of matrices;
    where LAPACK fails on a matrix (no convergence on NaN or inf entries), that matrix's
    outputs are NaN, as JAX returns them, instead of an exception for the whole batch."""
    finite = np.isfinite(a).all(axis=(-2, -1)) if a.size else np.ones(a.shape[:-2], bool)
    if finite.all():
        try:
            return list(fn(a))
        except np.linalg.LinAlgError:
            pass
    batch = a.shape[:-2]
    probe = fn(np.zeros(a.shape[-2:], a.dtype))  # each output's shape and dtype
    outs = [np.full((*batch, *np.shape(p)), np.nan, np.asarray(p).dtype) for p in probe]
    for idx in np.ndindex(*batch):
        if not finite[idx]:
            continue  # LAPACK would not converge (and would complain on stderr)
        try:
            got = fn(a[idx])
        except np.linalg.LinAlgError:
            continue
        for o, g in zip(outs, got):
            o[idx] = g
    return outs


def _vmap_leading(prim: core.Primitive) -> Callable:
    """Batching rule of a primitive that maps over its operands' leading dimensions: the
    mapped dimension goes to the front of every operand (unmapped operands are broadcast)."""

    def rule(axis_data, vals, dims, **params):
        args = [bdim_at_front(v, d, axis_data.size) for v, d in zip(vals, dims)]
        out = prim.bind(*args, **params)
        return out, ([0] * len(out) if prim.multiple_results else 0)

    return rule


def _linalg_primitive(name: str, impl, abstract_eval, multiple_results: bool = False):
    prim = core.Primitive(name, multiple_results=multiple_results)

    def quiet_impl(*args, **params):
        with np.errstate(all="ignore"):
            return impl(*(np.asarray(a) for a in args), **params)

    prim.def_impl(quiet_impl)
    prim.def_abstract_eval(abstract_eval)
    batching.primitive_batchers[prim] = _vmap_leading(prim)
    sharding_rules.sharding_rules[prim] = _batch_dims_rule(prim)
    return prim


def _batch_dims_rule(prim):
    """Propagation: results keep the leading (batch) dimensions' sharding of the first
    operand's matrices, as JAX does; matrix dimensions come out unsharded."""

    def rule(specs, avals, **params):
        first = specs[0] or (None,) * avals[0].ndim
        batch = tuple(first[: max(avals[0].ndim - 2, 0)])
        if not prim.multiple_results:
            return batch
        return [batch] * len(prim.abstract_eval(*avals, **params))

    return rule


def _zero_tangent(x: Any) -> ad.Zero:
    return ad.Zero(ad.tangent_aval(core.get_aval(x)))


# Matrix helpers on (batches of) matrices in the last two dimensions. Transposes of operands
# are folded into dot_general's dimension numbers, so tangents never pass through `transpose`.


def _mm(a, b, ta: bool = False, tb: bool = False, precision=None):
    """``op(a) @ op(b)`` over leading batch dimensions; ``op`` transposes when asked."""
    nd = a.ndim
    batch = tuple(range(nd - 2))
    ca = nd - 2 if ta else nd - 1
    cb = nd - 1 if tb else nd - 2
    return dot_general(a, b, (((ca,), (cb,)), (batch, batch)), precision=precision)


def _mv(a, x, precision=None):
    """``a @ x`` for a batch of matrices ``a`` and vectors ``x``."""
    nd = a.ndim
    batch = tuple(range(nd - 2))
    return dot_general(a, x, (((nd - 1,), (nd - 2,)), (batch, batch)), precision=precision)


# JAX computes the products of the cholesky, eigh, eig and solve (so inv) derivatives at
# HIGHEST precision, whatever jax_default_matmul_precision says; these rules do too.
_HIGHEST = Precision.HIGHEST


def _conj(x):
    return ew.conj(x) if _is_complex(x) else x


def _mT(x):
    nd = x.ndim
    return transpose(x, (*range(nd - 2), nd - 1, nd - 2))


def _H(x):
    return _conj(_mT(x))


def _const(value: np.ndarray, like: Any):
    """A constant of ``like``'s dtype, broadcast over ``like``'s leading dimensions."""
    c = core.make_concrete(np.asarray(value, like.dtype), False)
    if c.ndim == like.ndim:
        return c
    nd = like.ndim
    shape = (*like.shape[: nd - c.ndim], *c.shape)
    return broadcast_in_dim(c, shape, tuple(range(nd - c.ndim, nd)))


def _trace_mm(a, t):
    """``trace(a @ t)`` over the last two dimensions: the sum of ``a.T * t``."""
    nd = t.ndim
    return reduce_sum(ew.mul(_mT(a), t), (nd - 2, nd - 1))


def _diag(x):
    """The diagonals of a batch of square matrices (a linear map: mask and sum)."""
    n = x.shape[-1]
    return reduce_sum(ew.mul(x, _const(np.eye(n), x)), (x.ndim - 1,))


def _hermitian_part(t, lower: bool):
    """``P`` with ``P + P^H`` the Hermitian matrix the kernels see when given ``t``: they read
    only the ``lower`` (else upper) triangle, and only the real part of the diagonal."""
    n = t.shape[-1]
    strict = np.tril(np.ones((n, n)), -1) if lower else np.triu(np.ones((n, n)), 1)
    return ew.mul(t, _const(strict + 0.5 * np.eye(n), t))


def _symmetrize(x):
    """``(x + x^H) / 2``."""
    two = core.make_concrete(np.asarray(2, x.dtype), False)
    return ew.div(ew.add(x, _H(x)), two)


# ---------------------------------------------------------------------------------------------
# cholesky


def cholesky(x, *, symmetrize_input: bool = True):
    """Lower Cholesky factor ``L`` (``L @ L^H == x``) of (a batch of) Hermitian
    positive-definite matrices; NaNs where ``x`` is not positive definite.

    With ``symmetrize_input`` the factor is of ``(x + x^H) / 2``; else only the lower
    triangle of ``x`` is read.

    >>> linalg.cholesky(jnp.array([[4.0, 0.0], [0.0, 9.0]]))
    Array([[2., 0.],
           [0., 3.]], dtype=float32)
    """
    if symmetrize_input:
        x = _symmetrize(x)
    return cholesky_p.bind(x)


def _square_same(x, **_):
    return core.ShapedArray(x.shape, x.dtype)


def _cholesky_impl(x):
    # JAX gives NaNs for matrices that are not positive definite.
    return _each_matrix(np.linalg.cholesky, _compute(x)).astype(x.dtype)


def _cholesky_jvp(primals, tangents, low):
    # dL = L phi(L^-1 dA L^-H), phi: the lower triangle with the diagonal halved.
    (t,) = tangents
    low_inv = inv_p.bind(low)
    p = _hermitian_part(t, lower=True)
    s_low_h = ew.add(
        _mm(p, _conj(low_inv), tb=True, precision=_HIGHEST),
        _mm(_conj(p), _conj(low_inv), ta=True, tb=True, precision=_HIGHEST),
    )
    inner = _mm(low_inv, s_low_h, precision=_HIGHEST)
    n = t.shape[-1]
    phi = _const(np.tril(np.ones((n, n)), -1) + 0.5 * np.eye(n), t)
    return _mm(low, ew.mul(inner, phi), precision=_HIGHEST)


cholesky_p = _linalg_primitive("cholesky", _cholesky_impl, _square_same)
ad.primitive_jvps[cholesky_p] = _cholesky_jvp


# ---------------------------------------------------------------------------------------------
# eigh


def eigh(
    x,
    *,
    lower: bool = True,
    symmetrize_input: bool = True,
    sort_eigenvalues: bool = True,
    subset_by_index=None,
    implementation=None,
):
    """Eigenvectors ``v`` and eigenvalues ``w`` (ascending) of (a batch of) Hermitian
    matrices, ``x @ v == v * w``. Returns ``(v, w)``.

    With ``symmetrize_input`` the decomposition is of ``(x + x^H) / 2``; else only the
    ``lower`` (or upper) triangle of ``x`` is read.

    >>> v, w = linalg.eigh(jnp.array([[2.0, 0.0], [0.0, 1.0]]))
    >>> w
    Array([1., 2.], dtype=float32)
    """
    del implementation  # an EighImplementation: spmd has one kernel
    if subset_by_index is not None:
        raise NotImplementedError("eigh: subset_by_index is not supported.")
    if symmetrize_input:
        x = _symmetrize(x)
    v, w = eigh_p.bind(x, lower=bool(lower))
    return v, w


def _eigh_abstract_eval(x, *, lower):
    return [
        core.ShapedArray(x.shape, x.dtype),
        core.ShapedArray(x.shape[:-1], _real_dtype(x.dtype)),
    ]


def _eigh_impl(x, *, lower):
    uplo = "L" if lower else "U"
    w, v = _each_matrix_outputs(lambda m: np.linalg.eigh(m, UPLO=uplo), _compute(x))
    return [v.astype(x.dtype), w.astype(_real_dtype(x.dtype))]


def _eigh_jvp(primals, tangents, outs, *, lower):
    # With S the (Hermitian) tangent and C = V^H S V: dw = diag(C) and
    # dV = V (F * C), F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it.
    (t,) = tangents
    v, w = outs
    p = _hermitian_part(t, lower)
    s_v = ew.add(_mm(p, v, precision=_HIGHEST), _mm(_conj(p), v, ta=True, precision=_HIGHEST))
    c = _mm(_conj(v), s_v, ta=True, precision=_HIGHEST)
    dw = _diag(c)
    if _is_complex(dw):
        dw = ew.real(dw)
    n = w.shape[-1]
    nd = w.ndim
    shape = (*w.shape, n)
    w_j = broadcast_in_dim(w, shape, (*range(nd - 1), nd))
    w_i = broadcast_in_dim(w, shape, tuple(range(nd)))
    eye = _const(np.eye(n), w_j)
    f = ew.sub(ew.div(_const(1, eye), ew.add(ew.sub(w_j, w_i), eye)), eye)
    if f.dtype != c.dtype:
        f = ew.convert_element_type(f, c.dtype)
    dv = _mm(v, ew.mul(f, c), precision=_HIGHEST)
    return [dv, dw]


eigh_p = _linalg_primitive("eigh", _eigh_impl, _eigh_abstract_eval, multiple_results=True)
ad.primitive_jvps[eigh_p] = _eigh_jvp


# ---------------------------------------------------------------------------------------------
# qr


def qr(x, *, pivoting: bool = False, full_matrices: bool = True, use_magma=None):
    """QR decomposition ``x = q @ r`` of (a batch of) matrices: ``q`` with orthonormal
    columns, ``r`` upper triangular. Returns ``(q, r)``; with ``full_matrices`` ``q`` is
    square (``m x m``), else ``m x min(m, n)``.

    >>> q, r = linalg.qr(jnp.array([[3.0], [4.0]]), full_matrices=False)
    >>> r
    Array([[-5.]], dtype=float32)
    """
    if pivoting:
        raise NotImplementedError("qr: pivoting is not supported.")
    q, r = qr_p.bind(x, full_matrices=bool(full_matrices))
    return q, r


def _qr_abstract_eval(x, *, full_matrices):
    *batch, m, n = x.shape
    k = m if full_matrices else min(m, n)
    return [core.ShapedArray((*batch, m, k), x.dtype), core.ShapedArray((*batch, k, n), x.dtype)]


def _qr_impl(x, *, full_matrices):
    q, r = np.linalg.qr(_compute(x), mode="complete" if full_matrices else "reduced")
    return [q.astype(x.dtype), r.astype(x.dtype)]


def _qr_jvp(primals, tangents, outs, *, full_matrices):
    # Every shape JAX differentiates: tall and square through the reduced rule, wide through
    # its leading square block, and the trailing columns of a tall matrix's full Q through
    # the Householder form LAPACK gives them (_qr_trailing_jvp).
    (x,), (t,) = primals, tangents
    q, r = outs
    m, n = x.shape[-2:]
    if m < n:
        # x = Q [R1 R2] with R1 square: (Q, R1) is the QR of x's first m columns, and
        # dR2 = Q^H (dA2 - dQ R2) from dA2 = dQ R2 + Q dR2.
        r1, r2 = _cols(r, 0, m), _cols(r, m, n)
        dq, dr1 = _qr_reduced_jvp(q, r1, _cols(t, 0, m))
        dr2 = _mm(_conj(q), ew.sub(_cols(t, m, n), _mm(dq, r2)), ta=True)
        return [dq, concatenate([dr1, dr2], r.ndim - 1)]
    if not full_matrices or m == n:
        return list(_qr_reduced_jvp(q, r, t))
    q1, r1 = _cols(q, 0, n), _rows(r, 0, n)
    dq1, dr1 = _qr_reduced_jvp(q1, r1, t)
    dq = concatenate([dq1, _qr_trailing_jvp(q1, dq1)], q.ndim - 1)
    nd = r.ndim
    zero = core.make_concrete(np.zeros((), dr1.dtype), False)
    dr = pad(dr1, zero, [(0, 0, 0)] * (nd - 2) + [(0, m - n, 0), (0, 0, 0)])
    return [dq, dr]


def _qr_reduced_jvp(q, r, t):
    """``(dQ, dR)`` of a reduced QR (``q`` m x n, ``r`` n x n, m >= n) along ``t``."""
    # Q^H dA R^-1 = Q^H dQ + dR R^-1: a skew-Hermitian part W (from the strictly lower
    # triangle) plus an upper triangular one; dQ = dA R^-1 - Q (C - W), dR = (C - W) R.
    n = r.shape[-1]
    r_inv = inv_p.bind(r)
    t_rinv = _mm(t, r_inv)
    c = _mm(_conj(q), t_rinv, ta=True)
    low = ew.mul(c, _const(np.tril(np.ones((n, n)), -1), c))
    w = ew.sub(low, _H(low))
    if _is_complex(c):
        # The diagonal of W is imaginary: it keeps R's diagonal real.
        imag = ew.sub(c, ew.convert_element_type(ew.real(c), c.dtype))
        w = ew.add(w, ew.mul(imag, _const(np.eye(n), c)))
    upper = ew.sub(c, w)
    dq = ew.sub(t_rinv, _mm(q, upper))
    dr = _mm(upper, r)
    return dq, dr


def _qr_trailing_jvp(q1, dq1):
    """The tangent of the last m - n columns Q2 of LAPACK's full m x m Q, given its first n
    columns ``q1`` = [Q11; Q21] (Q11 n x n) and their tangent ``dq1``."""
    # LAPACK's Q = I - V T V^H (V unit lower trapezoidal, T upper triangular: Householder
    # reflectors in compact WY form), so with X = Q11 - I = -V1 T V1^H and P = Q21 X^-1
    # (= V2 V1^-1), Q1 - E1 = [I; P] X and Q2 = E2 + (Q1 - E1) P^H (E = the identity's
    # columns). Hence dQ2 = dQ1 P^H + (Q1 - E1) dP^H with dP = (dQ21 - P dQ11) X^-1.
    # X is singular where a reflector is the identity (tau = 0): NaN there, as in JAX.
    m, n = q1.shape[-2:]
    e1 = _const(np.eye(m, n), q1)
    x_inv = inv_p.bind(ew.sub(_rows(q1, 0, n), _const(np.eye(n), q1)))
    p = _mm(_rows(q1, n, m), x_inv)
    g = _mm(ew.sub(q1, e1), _conj(x_inv), tb=True)  # (Q1 - E1) X^-H
    d_p = ew.sub(_rows(dq1, n, m), _mm(p, _rows(dq1, 0, n)))  # dP X, (m - n) x n
    return ew.add(_mm(dq1, _conj(p), tb=True), _mm(g, _conj(d_p), tb=True))


def _rows(x, start: int, stop: int):
    return slice_in_dim(x, start, stop, axis=x.ndim - 2)


def _cols(x, start: int, stop: int):
    return slice_in_dim(x, start, stop, axis=x.ndim - 1)


qr_p = _linalg_primitive("qr", _qr_impl, _qr_abstract_eval, multiple_results=True)
ad.primitive_jvps[qr_p] = _qr_jvp


# ---------------------------------------------------------------------------------------------
# svd


def svd(
    x,
    *,
    full_matrices: bool = True,
    compute_uv: bool = True,
    subset_by_index=None,
    algorithm=None,
):
    """Singular value decomposition ``x = u @ diag(s) @ vh`` of (a batch of) matrices, the
    singular values ``s`` descending. Returns ``(u, s, vh)``, or ``s`` alone when not
    ``compute_uv``.

    >>> linalg.svd(jnp.array([[3.0, 0.0], [0.0, 4.0]]), compute_uv=False)
    Array([4., 3.], dtype=float32)
    """
    if subset_by_index is not None:
        raise NotImplementedError("svd: subset_by_index is not supported.")
    outs = svd_p.bind(
        x,
        full_matrices=bool(full_matrices),
        compute_uv=bool(compute_uv),
        subset_by_index=None,
        algorithm=algorithm,
    )
    if not compute_uv:
        return outs[0]
    s, u, vh = outs
    return u, s, vh


def _svd_abstract_eval(x, *, full_matrices, compute_uv, subset_by_index, algorithm):
    *batch, m, n = x.shape
    k = min(m, n)
    s = core.ShapedArray((*batch, k), _real_dtype(x.dtype))
    if not compute_uv:
        return [s]
    um, vn = (m, n) if full_matrices else (k, k)
    return [
        s,
        core.ShapedArray((*batch, m, um), x.dtype),
        core.ShapedArray((*batch, vn, n), x.dtype),
    ]


def _svd_impl(x, *, full_matrices, compute_uv, subset_by_index, algorithm):
    out_dt = x.dtype
    xc = _compute(x)
    if not compute_uv:
        s = (
            _each_matrix_outputs(lambda m: (np.linalg.svd(m, compute_uv=False),), xc)[0]
            if x.size
            else np.zeros((*x.shape[:-2], min(x.shape[-2:])), xc.dtype)
        )
        return [np.asarray(s).astype(_real_dtype(out_dt))]
    u, s, vh = _each_matrix_outputs(lambda m: np.linalg.svd(m, full_matrices=full_matrices), xc)
    return [s.astype(_real_dtype(out_dt)), u.astype(out_dt), vh.astype(out_dt)]


def _row_of(s, rows: int, dtype):
    """``s`` (a batch of vectors) repeated as the rows of ``rows`` x len(s) matrices."""
    nd = s.ndim
    out = broadcast_in_dim(s, (*s.shape[:-1], rows, s.shape[-1]), (*range(nd - 1), nd))
    return out if out.dtype == dtype else ew.convert_element_type(out, dtype)


def _svd_jvp(primals, tangents, outs, *, full_matrices, compute_uv, subset_by_index, algorithm):
    # With P = U^H dA V: ds = re diag(P); for the vectors (Townsend, "Differentiating the
    # singular value decomposition"), F[i, j] = 1 / (s[j]^2 - s[i]^2) off the diagonal and
    # dU = U (F * (P S + S P^H) + D) + (I - U U^H) dA V S^-1,
    # dV = V (F * (S P + P^H S)) + (I - V V^H) dA^H U S^-1,
    # D = (P - P^H) / 2 / S on the diagonal (zero for real matrices).
    (x,), (t,) = primals, tangents
    m, n = x.shape[-2:]
    if compute_uv:
        s, u, vh = outs
        if full_matrices and m != n:
            raise NotImplementedError(
                "Differentiation of svd with full_matrices=True is implemented for square "
                f"matrices only, got a {m}x{n} matrix; use full_matrices=False."
            )
    else:
        (s,) = outs
        s, u, vh = svd_p.bind(
            x, full_matrices=False, compute_uv=True, subset_by_index=None, algorithm=algorithm
        )
    p = _mm(_mm(_conj(u), t, ta=True), _conj(vh), tb=True)
    ds = _diag(p)
    if _is_complex(ds):
        ds = ew.real(ds)
    if not compute_uv:
        return [ds]
    k = s.shape[-1]
    nd = s.ndim
    shape = (*s.shape, k)
    s_j = broadcast_in_dim(s, shape, (*range(nd - 1), nd))  # s_j[..., i, j] = s[j]
    s_i = broadcast_in_dim(s, shape, tuple(range(nd)))  # s_i[..., i, j] = s[i]
    eye = _const(np.eye(k), s_j)
    diffs = ew.mul(ew.add(s_j, s_i), ew.sub(s_j, s_i))
    f = ew.sub(ew.div(_const(1, eye), ew.add(diffs, eye)), eye)
    if _is_complex(p):
        f, s_j, s_i = (ew.convert_element_type(a, p.dtype) for a in (f, s_j, s_i))
        eye = ew.convert_element_type(eye, p.dtype)
    p_s = ew.mul(p, s_j)
    s_p = ew.mul(s_i, p)
    du_core = ew.mul(f, ew.add(p_s, _H(p_s)))
    dv_core = ew.mul(f, ew.add(s_p, _H(s_p)))
    if _is_complex(p):
        # eye / s on the diagonal, 0 off it (s + 1 there keeps zeros from dividing by 0).
        s_inv = ew.div(eye, ew.add(s_j, ew.sub(_const(1, eye), eye)))
        half_skew = ew.mul(ew.sub(p, _H(p)), _const(0.5, p))
        du_core = ew.add(du_core, ew.mul(half_skew, s_inv))
    du = _mm(u, du_core)
    dv = _mm(_conj(vh), dv_core, ta=True)
    if m > k:
        # The part of dA V outside the column space of U.
        t_v = _mm(t, _conj(vh), tb=True)
        rest = ew.sub(t_v, _mm(u, _mm(_conj(u), t_v, ta=True)))
        du = ew.add(du, ew.div(rest, _row_of(s, m, p.dtype)))
    if n > k:
        t_u = _mm(_conj(t), u, ta=True)
        rest = ew.sub(t_u, _mm(_conj(vh), _mm(vh, t_u), ta=True))
        dv = ew.add(dv, ew.div(rest, _row_of(s, n, p.dtype)))
    return [ds, du, _H(dv)]


svd_p = _linalg_primitive("svd", _svd_impl, _svd_abstract_eval, multiple_results=True)
ad.primitive_jvps[svd_p] = _svd_jvp


# ---------------------------------------------------------------------------------------------
# det, inv, slogdet, solve (the primitives behind jnp.linalg's functions)


def det(x):
    """Determinant of (a batch of) square matrices."""
    return det_p.bind(x)


def _batch_scalar(x, **_):
    return core.ShapedArray(x.shape[:-2], x.dtype)


def _det_impl(x):
    return np.asarray(np.linalg.det(_compute(x))).astype(x.dtype)


def _det_jvp(primals, tangents, out):
    # d det(A) = det(A) tr(A^-1 dA). (NaN at singular A, where A^-1 does not exist.)
    (x,), (t,) = primals, tangents
    return ew.mul(out, _trace_mm(inv_p.bind(x), t))


det_p = _linalg_primitive("det", _det_impl, _batch_scalar)
ad.primitive_jvps[det_p] = _det_jvp


def inv(x):
    """Inverse of (a batch of) square matrices (NaNs for singular ones)."""
    return inv_p.bind(x)


def _inv_impl(x):
    # XLA gives inf/nan for singular matrices rather than raising.
    return _each_matrix(np.linalg.inv, _compute(x)).astype(x.dtype)


def _inv_jvp(primals, tangents, out):
    # d inv(A) = -inv(A) dA inv(A)
    (t,) = tangents
    return ew.neg(_mm(_mm(out, t, precision=_HIGHEST), out, precision=_HIGHEST))


inv_p = _linalg_primitive("inv", _inv_impl, _square_same)
ad.primitive_jvps[inv_p] = _inv_jvp


def slogdet(x):
    """``(sign, log|det|)`` of (a batch of) square matrices."""
    sign, logdet = slogdet_p.bind(x)
    return sign, logdet


def _slogdet_abstract_eval(x):
    return [
        core.ShapedArray(x.shape[:-2], x.dtype),
        core.ShapedArray(x.shape[:-2], _real_dtype(x.dtype)),
    ]


def _slogdet_impl(x):
    sign, logdet = np.linalg.slogdet(_compute(x))
    return [np.asarray(sign).astype(x.dtype), np.asarray(logdet).astype(_real_dtype(x.dtype))]


def _slogdet_jvp(primals, tangents, outs):
    # With tau = tr(A^-1 dA): d log|det| = re(tau); the sign of a complex determinant turns
    # by i im(tau) (a real sign is constant).
    (x,), (t,) = primals, tangents
    sign, _ = outs
    tau = _trace_mm(inv_p.bind(x), t)
    if not _is_complex(tau):
        return [_zero_tangent(sign), tau]
    re = ew.real(tau)
    return [ew.mul(sign, ew.sub(tau, ew.convert_element_type(re, tau.dtype))), re]


slogdet_p = _linalg_primitive("slogdet", _slogdet_impl, _slogdet_abstract_eval, True)
ad.primitive_jvps[slogdet_p] = _slogdet_jvp


def solve(a, b):
    """``x`` with ``a @ x == b``: ``b`` a batch of vectors (one dimension less than ``a``)
    or of matrices (as many dimensions as ``a``)."""
    return solve_p.bind(a, b)


def _solve_abstract_eval(a, b):
    return core.ShapedArray(b.shape, b.dtype)


def _solve_impl(a, b):
    a_c, b_c = _compute(a), _compute(b)
    if b.ndim == a.ndim - 1:
        out = _each_matrix(np.linalg.solve, a_c, b_c[..., None])[..., 0]
    else:
        out = _each_matrix(np.linalg.solve, a_c, b_c)
    return np.asarray(out).astype(b.dtype)


def _solve_jvp(primals, tangents, out):
    # x = A^-1 b: dx = A^-1 (db - dA x).
    (a, b), (ta, tb) = primals, tangents
    rhs = None if type(tb) is ad.Zero else tb
    if type(ta) is not ad.Zero:
        if b.ndim == a.ndim - 1:
            ta_x = _mv(ta, out, precision=_HIGHEST)
        else:
            ta_x = _mm(ta, out, precision=_HIGHEST)
        rhs = ew.neg(ta_x) if rhs is None else ew.sub(rhs, ta_x)
    return solve_p.bind(a, rhs)


def _solve_transpose(ct, a, b):
    # Linear in b: the transpose of b -> A^-1 b is ct -> A^-T ct.
    if ad.is_undefined_primal(a):
        raise NotImplementedError("solve transpose: the matrix operand is a linear input.")
    return [None, solve_p.bind(_mT(a), ct)]


solve_p = _linalg_primitive("solve", _solve_impl, _solve_abstract_eval)
ad.primitive_jvps[solve_p] = _solve_jvp
ad.primitive_transposes[solve_p] = _solve_transpose


# ---------------------------------------------------------------------------------------------
# eig (general, non-Hermitian matrices; CPU kernel: LAPACK geev through numpy.linalg)


def eig(
    x,
    *,
    compute_left_eigenvectors: bool = True,
    compute_right_eigenvectors: bool = True,
    enable_eigvec_derivs: bool = False,
    implementation=None,
    use_magma=None,
):
    """Eigenvalues ``w`` (complex, in no particular order) and optionally the left and right
    eigenvectors of (a batch of) square matrices: ``x @ vr == vr * w`` and
    ``vl^H @ x == w[:, None] * vl^H``. Returns the list ``[w, vl, vr]`` without the vectors
    that were not asked for.

    Each eigenvector has unit 2-norm and its largest-magnitude component real (LAPACK geev's
    normalisation). Matrices with NaN or inf entries give NaN results. Eigenvalues can be
    differentiated; right eigenvectors only with ``enable_eigvec_derivs`` (their derivative is
    valid for distinct eigenvalues and a unique largest-magnitude component).

    >>> [w] = linalg.eig(jnp.array([[2.0, 0.0], [0.0, 3.0]]), compute_left_eigenvectors=False,
    ...                  compute_right_eigenvectors=False)
    >>> w
    Array([2.+0.j, 3.+0.j], dtype=complex64)
    """
    del use_magma  # a GPU option: the CPU kernel is the only one here
    _eig_check(core.get_aval(x))
    return eig_p.bind(
        x,
        compute_left_eigenvectors=bool(compute_left_eigenvectors),
        compute_right_eigenvectors=bool(compute_right_eigenvectors),
        enable_eigvec_derivs=bool(enable_eigvec_derivs),
        implementation=implementation,
    )


def _complex_dtype(dt: np.dtype) -> np.dtype:
    """The complex dtype of eigenvalues of a matrix of dtype ``dt`` (float or complex)."""
    dt = np.dtype(dt)
    if dt.kind == "c":
        return dt
    return np.dtype(np.complex128 if dt == np.float64 else np.complex64)


def _eig_check(aval, fn: str = "eig") -> None:
    shape, dt = tuple(aval.shape), np.dtype(aval.dtype)
    if len(shape) < 2:
        raise TypeError(f"{fn}: the input must have rank at least 2, but got shape={shape}.")
    if shape[-1] != shape[-2]:
        raise ValueError(
            f"{fn}: the input must be a square matrix (or a batch of them), got shape {shape}."
        )
    floating = dtypes.issubdtype(dt, np.floating)  # bfloat16's NumPy kind is "V", not "f"
    if not (floating or dt.kind == "c"):
        raise TypeError(
            f"{fn} does not accept dtype {dt.name}: it takes floating or complex input."
        )
    if floating and dt.itemsize < 4:
        # As JAX's CPU kernel: LAPACK has no 16-bit eigensolver, and there is no 16-bit complex
        # type for the results.
        raise NotImplementedError(f"{fn}: unsupported dtype {dt.name}; use float32 or float64.")


def _eig_abstract_eval(x, *, compute_left_eigenvectors, compute_right_eigenvectors, **_):
    _eig_check(x)
    cdt = _complex_dtype(x.dtype)
    outs = [core.ShapedArray(x.shape[:-1], cdt)]
    n_vectors = int(compute_left_eigenvectors) + int(compute_right_eigenvectors)
    return outs + [core.ShapedArray(x.shape, cdt)] * n_vectors


def _unit_columns(v: np.ndarray) -> np.ndarray:
    """Columns scaled to unit 2-norm with their largest-magnitude component real positive."""
    v = v / np.linalg.norm(v, axis=-2, keepdims=True)
    top = np.take_along_axis(v, np.argmax(np.abs(v), axis=-2)[..., None, :], axis=-2)
    return v * (np.conj(top) / np.abs(top))


def _eig_impl(x, *, compute_left_eigenvectors, compute_right_eigenvectors, **_):
    cdt = _complex_dtype(x.dtype)
    n = x.shape[-1]

    def kernel(m):
        # NumPy returns real arrays when every eigenvalue is real: always make them complex,
        # so that a batch computed matrix by matrix has one dtype.
        if not (compute_left_eigenvectors or compute_right_eigenvectors):
            return [np.linalg.eigvals(m).astype(cdt)]
        w, vr = np.linalg.eig(m)
        vr = vr.astype(cdt)
        outs = [w.astype(cdt)]
        if compute_left_eigenvectors:
            # The rows of vr^-1 are the left eigenvectors (conjugated), in the order of w.
            outs.append(_unit_columns(np.conj(np.swapaxes(np.linalg.inv(vr), -1, -2))))
        if compute_right_eigenvectors:
            outs.append(vr)
        return outs

    if n == 0:
        w = np.zeros(x.shape[:-1], cdt)
        vectors = int(compute_left_eigenvectors) + int(compute_right_eigenvectors)
        return [w] + [np.zeros(x.shape, cdt) for _ in range(vectors)]
    outs = [np.asarray(o, cdt) for o in _each_matrix_outputs(kernel, x)]
    for o in outs:
        # Where LAPACK failed the results are NaN; JAX's are NaN in both parts.
        o[np.isnan(o.real)] = complex(np.nan, np.nan)
    return outs


def _eig_jvp(
    primals,
    tangents,
    outs,
    *,
    compute_left_eigenvectors,
    compute_right_eigenvectors,
    enable_eigvec_derivs,
    implementation,
):
    # With A V = V diag(w) and C = V^-1 dA V: dw = diag(C), and dV = V (F * C + diag(d)),
    # F[i, j] = 1 / (w[j] - w[i]) off the diagonal. The free diagonal d keeps each column's
    # normalisation: re(d) = -re(v^H dv) (unit norm), im(d) = -im(dv[p]) / v[p] with p the
    # largest-magnitude component (kept real).
    if compute_left_eigenvectors or (compute_right_eigenvectors and not enable_eigvec_derivs):
        raise NotImplementedError(
            "Derivatives of non-symmetric eigenvectors are only valid under assumptions on the "
            "input that cannot be checked (distinct eigenvalues, a unique largest-magnitude "
            "component); pass enable_eigvec_derivs=True to lax.linalg.eig to opt in for right "
            "eigenvectors (left eigenvectors have no derivative). Eigenvalues alone "
            "(jnp.linalg.eigvals) can be differentiated."
        )
    (x,), (t,) = primals, tangents
    w = outs[0]
    if compute_right_eigenvectors:
        v = outs[-1]
    else:
        # The vectors inherit the opt-in: with it, the eigenvalues' derivative (which uses them)
        # can be differentiated again.
        _, v = eig_p.bind(
            x,
            compute_left_eigenvectors=False,
            compute_right_eigenvectors=True,
            enable_eigvec_derivs=enable_eigvec_derivs,
            implementation=implementation,
        )
    if t.dtype != v.dtype:
        t = ew.convert_element_type(t, v.dtype)
    c = solve_p.bind(v, _mm(t, v, precision=_HIGHEST))
    dw = _diag(c)
    if not compute_right_eigenvectors:
        return [dw]
    n = w.shape[-1]
    nd = w.ndim
    shape = (*w.shape, n)
    w_j = broadcast_in_dim(w, shape, (*range(nd - 1), nd))
    w_i = broadcast_in_dim(w, shape, tuple(range(nd)))
    eye = _const(np.eye(n), w_j)
    f = ew.sub(ew.div(_const(1, eye), ew.add(ew.sub(w_j, w_i), eye)), eye)
    dv = _mm(v, ew.mul(f, c), precision=_HIGHEST)
    # The normalisation: `top` marks each column's largest-magnitude component.
    mag = ew.abs(v)
    col_max = broadcast_in_dim(reduce_max(mag, (v.ndim - 2,)), v.shape, (*range(nd - 1), nd))
    top = ew.convert_element_type(ew.eq(mag, col_max), v.dtype)
    v_top = ew.real(reduce_sum(ew.mul(v, top), (v.ndim - 2,)))
    norm_part = ew.real(reduce_sum(ew.mul(_conj(v), dv), (v.ndim - 2,)))
    phase_part = ew.div(ew.imag(reduce_sum(ew.mul(dv, top), (v.ndim - 2,))), v_top)
    d = ew.neg(
        ew.add(
            ew.convert_element_type(norm_part, v.dtype),
            ew.mul(ew.convert_element_type(phase_part, v.dtype), _const(1j, w)),
        )
    )
    dv = ew.add(dv, ew.mul(v, broadcast_in_dim(d, v.shape, (*range(nd - 1), nd))))
    return [dw, dv]


eig_p = _linalg_primitive("eig", _eig_impl, _eig_abstract_eval, multiple_results=True)
ad.primitive_jvps[eig_p] = _eig_jvp


__all__ = [
    "cholesky",
    "cholesky_p",
    "eig",
    "eig_p",
    "eigh",
    "eigh_p",
    "qr",
    "qr_p",
    "svd",
    "svd_p",
]
