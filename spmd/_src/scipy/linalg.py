"""``jax.scipy.linalg``'s decompositions and solvers, on ``spmd.numpy`` and ``spmd.lax`` (so jit,
vmap and grad work through them): cholesky, cho_factor, cho_solve, det, eigh, hessenberg, inv,
lu, lu_factor, lu_solve, qr, qr_multiply, schur, solve, solve_triangular and svd. The
``overwrite_*`` and ``check_finite`` arguments are accepted and ignored, as in JAX.

The matrix functions (expm, funm, sqrtm, polar, ...) are in ``linalg_functions.py``, the
special matrices (toeplitz, hilbert, ...) in ``linalg_matrices.py``.

>>> from spmd.scipy import linalg
>>> linalg.solve_triangular(jnp.array([[2.0, 0.0], [1.0, 1.0]]), jnp.array([2.0, 3.0]), lower=True)
Array([1., 2.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from spmd._src.custom_derivatives import custom_jvp
from spmd._src.lax import linalg as lax_linalg
from spmd._src.lax import linalg_lu_schur as lu_schur
from spmd._src.lax.control_flow.solves import custom_linear_solve
from spmd._src.lax.dot import Precision
from spmd._src.lax.elementwise.conversion import stop_gradient
from spmd._src.numpy import util
from spmd._src.scipy import linalg_jnp as jnp


def _mT(x):
    return jnp.swapaxes(x, -1, -2)


def _mH(x):
    return jnp.conj(_mT(x))


def _inexact(fn: str, *xs):
    util.check_arraylike(fn, *xs)
    out = util.promote_dtypes_inexact(*xs)
    return out


def _square(fn: str, x, name: str = "a", cls=ValueError):
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise cls(f"{fn}: {name} must be a (batch of) square matrices, got {name}.shape={x.shape}.")


def _float_only(fn: str, x):
    # The lax kernels take inexact dtypes only (JAX: TypeError naming the dtype).
    if not jnp.issubdtype(x.dtype, jnp.inexact):
        raise TypeError(f"{fn} does not accept dtype {x.dtype}: it needs a float or complex array.")


def _is_vector(a, b) -> bool:
    return b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape[-1] == a.shape[-1])


def _check_rhs(fn: str, a, b) -> bool:
    """Whether ``b`` is a (batch of) vector(s) for the square ``a``; raises ValueError naming
    ``fn`` and both shapes when ``b``'s rows do not match ``a``. As JAX: a 1-D ``b`` is one
    vector for every matrix; ``b`` with one dimension less than ``a`` and ending in ``n`` is a
    batch of vectors (``solve`` refuses that case, as ``jnp.linalg.solve`` since JAX 0.5)."""
    vector = _is_vector(a, b)
    if fn == "solve" and vector and b.ndim > 1:
        raise ValueError(
            f"solve: invalid shapes a.shape={a.shape}, b.shape={b.shape}: b with one dimension "
            "less than a is no batch of vectors; use b[..., None] for that."
        )
    n = a.shape[-1]
    rows = b.shape[-1] if vector else (b.shape[-2] if b.ndim >= 2 else None)
    if rows != n:
        raise ValueError(
            f"{fn}: b must have {n} rows for a of shape {a.shape}, got b.shape={b.shape}."
        )
    return vector


def _broadcast_batch(a, b, vector: bool):
    """``a`` and ``b`` with their batch dimensions broadcast together (as JAX's vectorized
    solvers do)."""
    tail = 1 if vector else 2
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-tail])
    return (
        jnp.broadcast_to(a, (*batch, *a.shape[-2:])),
        jnp.broadcast_to(b, (*batch, *b.shape[-tail:])),
    )


def _triangular(a, lower: bool, unit_diagonal: bool = False):
    t = jnp.tril(a) if lower else jnp.triu(a)
    if unit_diagonal:
        eye = jnp.eye(a.shape[-1], dtype=bool)
        t = jnp.where(eye, jnp.ones((), a.dtype), t)
    return t


def _tri_solve(a, b, *, lower: bool, trans: int = 0, unit_diagonal: bool = False):
    """``op(T)^-1 b`` for the triangle ``T`` of ``a`` (shapes already checked): solved as a
    general system on the masked matrix, whose derivative rules cover ``a`` and ``b``."""
    t = _triangular(a, lower, unit_diagonal)
    if trans == 1:
        t = _mT(t)
    elif trans == 2:
        t = _mH(t)
    t, b = _broadcast_batch(t, b, _is_vector(a, b))
    return lax_linalg.solve(t, b)


# ---------------------------------------------------------------------------------------------
# Triangular solves and Cholesky


_TRANS = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}


def solve_triangular(
    a,
    b,
    trans=0,
    lower: bool = False,
    unit_diagonal: bool = False,
    overwrite_b: bool = False,
    debug=None,
    check_finite: bool = True,
):
    """Solve ``op(a) @ x = b`` for the lower (``lower``) or upper triangle of ``a``; ``trans``
    0/'N', 1/'T' or 2/'C' picks ``op`` (none, transpose, conjugate transpose); with
    ``unit_diagonal`` the diagonal of ``a`` is taken as ones."""
    del overwrite_b, debug, check_finite
    if isinstance(trans, (str, int)) and not isinstance(trans, bool) and trans in _TRANS:
        op = _TRANS[trans]
    else:
        raise ValueError(f"solve_triangular: invalid 'trans' value {trans!r}.")
    a, b = _inexact("solve_triangular", a, b)
    _square("solve_triangular", a)
    _check_rhs("solve_triangular", a, b)
    return _tri_solve(a, b, lower=bool(lower), trans=op, unit_diagonal=bool(unit_diagonal))


def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """Cholesky factor of (a batch of) Hermitian positive-definite matrices: upper ``u`` with
    ``a = u^H u``, or lower ``l`` with ``a = l l^H``. Only that triangle of ``a`` is read; a
    matrix that is not positive definite gives NaN."""
    del overwrite_a, check_finite
    (a,) = _inexact("cholesky", a)
    _square("cholesky", a)
    if lower:
        return _cholesky_lower(a)
    return _mH(_cholesky_lower(_mH(a)))


@custom_jvp
def _cholesky_lower(a):
    # tril: where the matrix is not positive definite, NaN stays in the factor's triangle and
    # the other holds zeros, as JAX's kernel leaves it.
    return jnp.tril(lax_linalg.cholesky(a, symmetrize_input=False))


@_cholesky_lower.defjvp
def _cholesky_lower_jvp(primals, tangents):
    # The primal reads one triangle, but (as JAX) the derivative takes the whole tangent dA:
    # dL = L phi(L^-1 dA L^-H), phi the lower triangle with the diagonal halved.
    (a,), (t,) = primals, tangents
    low = _cholesky_lower(a)
    t_linv_h = _mH(lax_linalg.solve(low, _mH(t)))  # dA L^-H
    inner = lax_linalg.solve(low, t_linv_h)
    n = a.shape[-1]
    phi = np.tril(np.ones((n, n)), -1) + 0.5 * np.eye(n)
    return low, low @ (inner * phi.astype(inner.dtype))


def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """``(c, lower)`` for ``cho_solve``: ``c`` the Cholesky factor (zeros in its other
    triangle)."""
    del overwrite_a, check_finite
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True):
    """Solve ``a @ x = b`` given ``cho_factor(a) = (c, lower)``."""
    del overwrite_b, check_finite
    c, lower = c_and_lower
    c, b = _inexact("cho_solve", c, b)
    _square("cho_solve", c, "c")
    _check_rhs("cho_solve", c, b)
    if lower:  # a = L L^H
        y = _tri_solve(c, b, lower=True)
        return _tri_solve(c, y, lower=True, trans=2)
    y = _tri_solve(c, b, lower=False, trans=2)  # a = U^H U
    return _tri_solve(c, y, lower=False)


# ---------------------------------------------------------------------------------------------
# LU


def _lu_parts(a):
    (a,) = _inexact("lu", a)
    if a.ndim < 2:
        raise TypeError(f"lu: input must have rank at least 2, got shape {a.shape}.")
    return lu_schur.lu(a)


def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """LU decomposition with partial pivoting ``a = p @ l @ u``: returns ``(p, l, u)``, or
    ``(p @ l, u)`` with ``permute_l``. ``p`` is a permutation matrix of ``a``'s real dtype."""
    del overwrite_a, check_finite
    packed, _, perm = _lu_parts(a)
    *_, m, n = packed.shape
    k = min(m, n)
    l_ = jnp.tril(packed[..., :, :k], -1) + jnp.eye(m, k, dtype=packed.dtype)
    u = jnp.triu(packed[..., :k, :])
    if permute_l:
        inverse = jnp.argsort(perm, axis=-1)
        return jnp.take_along_axis(l_, inverse[..., :, None], axis=-2), u
    real = jnp.real(packed).dtype
    p = (perm[..., None, :] == jnp.arange(m, dtype=perm.dtype)[:, None]).astype(real)
    return p, l_, u


def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True):
    """``(lu, piv)``: ``l`` (unit diagonal, not stored) and ``u`` packed in one array, and the
    row interchanges ``piv`` (int32; row ``i`` was swapped with row ``piv[i]``)."""
    del overwrite_a, check_finite
    packed, piv, _ = _lu_parts(a)
    return packed, piv


def _pivots_to_permutation(piv, m: int):
    """The row order that the interchanges ``piv`` produce, applied one after another."""
    idx = jnp.arange(m, dtype=piv.dtype)
    perm = jnp.broadcast_to(idx, (*piv.shape[:-1], m))
    for i in range(piv.shape[-1]):
        j = piv[..., i : i + 1]
        pi = perm[..., i : i + 1]
        pj = jnp.take_along_axis(perm, j, axis=-1)
        perm = jnp.where(idx == i, pj, jnp.where(idx == j, pi, perm))
    return perm


def lu_solve(lu_and_piv, b, trans: int = 0, overwrite_b: bool = False, check_finite: bool = True):
    """Solve ``a @ x = b`` (``trans=0``), ``a^T @ x = b`` (1) or ``a^H @ x = b`` (2) given
    ``lu_factor(a)``."""
    del overwrite_b, check_finite
    packed, piv = lu_and_piv
    if trans not in (0, 1, 2) or isinstance(trans, bool):
        raise ValueError(f"lu_solve: 'trans' value must be 0, 1, or 2, got {trans!r}.")
    packed, b = _inexact("lu_solve", packed, b)
    _square("lu_solve", packed, "lu")
    vector = _check_rhs("lu_solve", packed, b)
    piv = jnp.asarray(piv)
    m = packed.shape[-1]
    packed, b = _broadcast_batch(packed, b, vector)
    perm = jnp.broadcast_to(_pivots_to_permutation(piv, m), b.shape[: b.ndim - (not vector)])
    rows = perm if vector else perm[..., None]
    axis = -1 if vector else -2
    if trans == 0:  # a[perm] = L U
        y = _tri_solve(
            packed, jnp.take_along_axis(b, rows, axis=axis), lower=True, unit_diagonal=True
        )
        return _tri_solve(packed, y, lower=False)
    # a^T = U^T L^T P^T: (P^T x) = L^-T U^-T b, and x[perm] = that.
    y = _tri_solve(packed, b, lower=False, trans=trans)
    y = _tri_solve(packed, y, lower=True, trans=trans, unit_diagonal=True)
    inverse = jnp.argsort(perm, axis=-1)
    return jnp.take_along_axis(y, inverse if vector else inverse[..., None], axis=axis)


# ---------------------------------------------------------------------------------------------
# solve, det, inv


def solve(
    a,
    b,
    lower: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    debug: bool = False,
    check_finite: bool = True,
    assume_a: str = "gen",
):
    """Solve ``a @ x = b``. ``assume_a='pos'`` solves by Cholesky (reading the ``lower`` or
    upper triangle of ``a``); 'gen', 'sym' and 'her' by LU."""
    del overwrite_a, overwrite_b, debug, check_finite
    valid = ["gen", "sym", "her", "pos"]
    if assume_a not in valid:
        raise ValueError(f"solve: expected assume_a to be one of {valid}; got {assume_a!r}.")
    a, b = _inexact("solve", a, b)
    _square("solve", a)
    if assume_a != "pos":
        vector = _check_rhs("solve", a, b)
        return lax_linalg.solve(*_broadcast_batch(a, b, vector))
    # As JAX's: no broadcasting here, and b with one dimension less than a is a batch of
    # vectors.
    vector = b.ndim == a.ndim - 1
    rows = b.shape[-1] if vector else (b.shape[-2] if b.ndim == a.ndim else None)
    if rows != a.shape[-1] or b.shape[: a.ndim - 2] != a.shape[:-2]:
        raise ValueError(
            "solve: with assume_a='pos', a and b must have shapes [..., m, m] and [..., m, k] or "
            f"[..., m] (the same batch dimensions), got a.shape={a.shape}, b.shape={b.shape}."
        )
    # As JAX: Cholesky of a (no derivative through the factor); derivatives come from the
    # implicit function x = a^-1 b, with a's full matrix in the matrix-vector product.
    factors = cho_factor(stop_gradient(a), lower=lower)
    if vector:
        matvec = lambda x: jnp.matmul(a, x[..., None], precision=Precision.HIGHEST)[..., 0]
    else:
        matvec = lambda x: jnp.matmul(a, x, precision=Precision.HIGHEST)
    return custom_linear_solve(
        matvec,
        b,
        solve=lambda _, x: cho_solve(factors, x),
        symmetric=True,
    )


def det(a, overwrite_a: bool = False, check_finite: bool = True):
    """Determinant of (a batch of) square matrices."""
    del overwrite_a, check_finite
    (a,) = _inexact("det", a)
    _square("det", a)
    return jnp.linalg.det(a)


def inv(a, overwrite_a: bool = False, check_finite: bool = True):
    """Inverse of (a batch of) square matrices."""
    del overwrite_a, check_finite
    (a,) = _inexact("inv", a)
    _square("inv", a)
    return jnp.linalg.inv(a)


# ---------------------------------------------------------------------------------------------
# eigh, svd, qr


def eigh(
    a,
    b=None,
    lower: bool = True,
    eigvals_only: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    turbo: bool = True,
    eigvals=None,
    type: int = 1,  # noqa: A002 -- SciPy's name
    check_finite: bool = True,
):
    """Eigenvalues (ascending) and eigenvectors of (a batch of) Hermitian matrices, from the
    ``lower`` (else upper) triangle. Returns ``w``, or ``(w, v)``. The generalized problem
    (``b``) and ``eigvals`` subsets are not implemented, as in JAX."""
    del overwrite_a, overwrite_b, turbo, check_finite, type
    if b is not None:
        raise NotImplementedError("eigh: only the b=None case of eigh is implemented.")
    if eigvals is not None:
        raise NotImplementedError("eigh: only the eigvals=None case of eigh is implemented.")
    (a,) = _inexact("eigh", a)
    _square("eigh", a, cls=TypeError)
    v, w = lax_linalg.eigh(a, lower=bool(lower))
    return w if eigvals_only else (w, v)


def svd(
    a,
    full_matrices: bool = True,
    compute_uv: bool = True,
    overwrite_a: bool = False,
    check_finite: bool = True,
    lapack_driver: str = "gesdd",
):
    """Singular value decomposition: ``(u, s, vh)``, or ``s`` without ``compute_uv``."""
    del overwrite_a, check_finite, lapack_driver
    (a,) = _inexact("svd", a)
    return jnp.linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)


def qr(
    a,
    overwrite_a: bool = False,
    lwork=None,
    mode: str = "full",
    pivoting: bool = False,
    check_finite: bool = True,
):
    """QR decomposition: ``(q, r)`` (``mode`` 'full' or 'economic') or ``(r,)`` ('r'); with
    ``pivoting``, also the column order ``p`` (int32) with ``a[:, p] = q @ r``."""
    del overwrite_a, lwork, check_finite
    if mode not in ("full", "r", "economic"):
        raise ValueError(f"qr: unsupported QR decomposition mode {mode!r}.")
    (a,) = _inexact("qr", a)
    if a.ndim < 2:
        raise ValueError(f"qr: a must have at least 2 dimensions, got a.shape={a.shape}.")
    p = None
    if pivoting:
        p = lu_schur.qr_pivots(a)
        a = jnp.take_along_axis(a, p[..., None, :], axis=-1)
    if mode == "r":
        # The full m x n r is the reduced one over zero rows (no full Q to compute).
        _, r = lax_linalg.qr(a, full_matrices=False)
        m, n = a.shape[-2:]
        if m > n:
            r = jnp.concatenate([r, jnp.zeros((*r.shape[:-2], m - n, n), r.dtype)], axis=-2)
        out = (r,)
    else:
        out = lax_linalg.qr(a, full_matrices=mode == "full")
    return (*out, p) if pivoting else out


def qr_multiply(
    a,
    c,
    mode: str = "right",
    pivoting: bool = False,
    conjugate: bool = False,
    overwrite_a: bool = False,
    overwrite_c: bool = False,
):
    """``(c @ q, r)`` (``mode='right'``) or ``(q @ c, r)`` ('left') for the economic QR
    decomposition of ``a`` (``q`` conjugated with ``conjugate``); with ``pivoting`` also ``p``."""
    del overwrite_a, overwrite_c
    if mode not in ("right", "left"):
        raise ValueError(f"qr_multiply: mode must be 'right' or 'left', got {mode!r}.")
    q, r, *p = qr(a, mode="economic", pivoting=pivoting)
    (c,) = _inexact("qr_multiply", c)
    if conjugate:
        q = jnp.conj(q)
    if mode == "left":
        rows = c.shape[0] if c.ndim else None
        if rows != q.shape[-1]:
            raise ValueError(
                f"qr_multiply: Q @ c needs c with {q.shape[-1]} rows for a.shape={a.shape}, "
                f"got c.shape={c.shape}."
            )
        cq = q @ c
    else:
        cols = c.shape[-1] if c.ndim else None
        if cols != q.shape[-2]:
            raise ValueError(
                f"qr_multiply: c @ Q needs c with {q.shape[-2]} columns for "
                f"a.shape={a.shape}, got c.shape={c.shape}."
            )
        cq = c @ q
    return (cq, r, *p)


# ---------------------------------------------------------------------------------------------
# hessenberg, schur


def hessenberg(a, *, calc_q: bool = False, overwrite_a: bool = False, check_finite: bool = True):
    """Upper Hessenberg form ``h`` of ``a`` (``a = q @ h @ q^H``): ``h``, or ``(h, q)`` with
    ``calc_q``."""
    del overwrite_a, check_finite
    a = jnp.asarray(a)
    _float_only("hessenberg", a)
    _square("hessenberg", a)
    h, q = lu_schur.hessenberg(a)
    return (h, q) if calc_q else h


def schur(a, output: str = "real"):
    """Schur decomposition ``a = z @ t @ z^H``: ``(t, z)``; ``output='complex'`` gives a
    triangular ``t`` (complex), 'real' a quasi-triangular one for real ``a``."""
    if output not in ("real", "complex"):
        raise ValueError(f"schur: expected 'output' to be 'real' or 'complex', got {output!r}.")
    a = jnp.asarray(a)
    _float_only("schur", a)
    _square("schur", a)
    t, z = lu_schur.schur(a, output=output)
    return [t, z]  # a list, as JAX's
