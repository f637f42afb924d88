"""The rest of ``jax.lax.linalg``: ``triangular_solve``, ``tridiagonal_solve`` (both with
derivatives and transposes, as in JAX), ``householder_product``, ``ormqr``,
``lu_pivots_to_permutation``, ``cholesky_update``, ``symmetric_product``, ``tridiagonal``
(LAPACK's sytrd/hetrd packed form), ``qdwh`` and the implementation enums. The NumPy kernels
follow LAPACK's conventions (Householder vectors with a unit leading entry, ``H = I - tau v
v^H``), so packed outputs agree with JAX's CPU results. Every primitive maps over leading batch
dimensions (``vmap`` moves the mapped dimension to the front).

>>> from spmd._src.lax import linalg_more as lm
>>> lm.lu_pivots_to_permutation(jnp.array([2, 2, 3, 3], jnp.int32), 5)
Array([2, 0, 3, 1, 4], dtype=int32)
"""

from __future__ import annotations

import enum

import numpy as np

from spmd._src import core
from spmd._src.interpreters import ad, sharding_rules
from spmd._src.lax import elementwise as ew
from spmd._src.lax.linalg import (
    _HIGHEST,
    _compute,
    _conj,
    _const,
    _linalg_primitive,
    _mm,
    _mT,
    _real_dtype,
)
from spmd._src.lax.linalg_lu_schur import _householder
from spmd._src.lax.padding import pad
from spmd._src.lax.shape import expand_dims, reshape

# ---------------------------------------------------------------------------------------------
# Implementation enums (accepted and recorded; the NumPy kernels are the same for each)


class EigImplementation(enum.Enum):
    """Which kernel ``eig`` uses on GPU in JAX; spmd has one CPU kernel."""

    CUSOLVER = "cusolver"
    MAGMA = "magma"
    LAPACK = "lapack"


class EighImplementation(enum.Enum):
    """Which algorithm ``eigh`` uses in JAX; spmd has one kernel."""

    QR = "qr"
    JACOBI = "jacobi"
    QDWH = "qdwh"


class SvdAlgorithm(enum.Enum):
    """Which algorithm ``svd`` uses in JAX; spmd has one kernel."""

    DEFAULT = "default"
    QR = "QR"
    JACOBI = "Jacobi"
    POLAR = "polar"
    DIVIDE_AND_CONQUER = "divide_and_conquer"


# ---------------------------------------------------------------------------------------------
# Shared checks


def _check_dtype(fn: str, pos: int, x, kinds: str = "fc") -> None:
    dt = np.dtype(x.dtype)
    if dt.kind not in kinds:
        what = {"fc": "floating or complex", "f": "floating", "i": "int32"}[kinds]
        raise TypeError(f"{fn}: argument {pos} must have a {what} dtype, got {dt.name}.")


def _check_rank(fn: str, pos: int, x, least: int) -> None:
    if x.ndim < least:
        raise TypeError(
            f"{fn}: argument {pos} must have rank at least {least}, got shape {x.shape}."
        )


def _asarray(x):
    from spmd import numpy as jnp  # lazy: asarray and the qdwh iteration are jnp-level, as in JAX

    return jnp.asarray(x)


def _trailing_rule(pos: int, keep: int):
    """Sharding propagation: the results keep the sharding of operand ``pos``'s leading
    ``ndim - keep`` (batch) dimensions; the other dimensions come out unsharded."""

    def rule(specs, avals, **_):
        spec = specs[pos] or (None,) * avals[pos].ndim
        return tuple(spec[: max(avals[pos].ndim - keep, 0)])

    return rule


# ---------------------------------------------------------------------------------------------
# triangular_solve


def triangular_solve(
    a,
    b,
    *,
    left_side: bool = False,
    lower: bool = False,
    transpose_a: bool = False,
    conjugate_a: bool = False,
    unit_diagonal: bool = False,
):
    """Solve ``op(a) @ x = b`` (``left_side``) or ``x @ op(a) = b`` for ``x``, reading only the
    ``lower`` (else upper) triangle of ``a`` (its diagonal taken as ones with
    ``unit_diagonal``); ``op`` transposes and/or conjugates ``a`` as asked. ``b`` may have one
    dimension fewer than ``a`` (a batch of vectors)."""
    a, b = _asarray(a), _asarray(b)
    for pos, x in enumerate((a, b)):
        _check_dtype("triangular_solve", pos, x)
    _check_rank("triangular_solve", 0, a, 2)
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(
            f"triangular_solve: a must be (a batch of) square matrices, got {a.shape}."
        )
    if np.dtype(a.dtype) != np.dtype(b.dtype):
        raise TypeError(
            f"triangular_solve: a and b must have the same dtype, got {a.dtype} and {b.dtype}."
        )
    vector = b.ndim == a.ndim - 1
    if vector:
        b = expand_dims(b, (b.ndim,) if left_side else (b.ndim - 1,))
    if b.ndim != a.ndim:
        raise TypeError(
            f"triangular_solve: a and b must have the same number of batch dimensions, got "
            f"shapes {a.shape} and {b.shape}."
        )
    m = a.shape[-1]
    if a.shape[:-2] != b.shape[:-2] or b.shape[-2 if left_side else -1] != m:
        raise ValueError(
            f"triangular_solve: incompatible shapes a {a.shape} and b {b.shape} for "
            f"left_side={left_side}."
        )
    out = triangular_solve_p.bind(
        a,
        b,
        left_side=bool(left_side),
        lower=bool(lower),
        transpose_a=bool(transpose_a),
        conjugate_a=bool(conjugate_a),
        unit_diagonal=bool(unit_diagonal),
    )
    if vector:
        return reshape(out, out.shape[:-1] if left_side else (*out.shape[:-2], out.shape[-1]))
    return out


def _ts_abstract_eval(a, b, **_):
    return core.ShapedArray(b.shape, b.dtype)


def _ts_triangle(n: int, lower: bool, unit_diagonal: bool) -> np.ndarray:
    mask = np.tril(np.ones((n, n))) if lower else np.triu(np.ones((n, n)))
    return mask - np.eye(n) if unit_diagonal else mask


def _ts_impl(a, b, *, left_side, lower, transpose_a, conjugate_a, unit_diagonal):
    n = a.shape[-1]
    t = _compute(a) * _ts_triangle(n, lower, unit_diagonal).astype(_compute(a).dtype)
    if unit_diagonal:
        t = t + np.eye(n, dtype=t.dtype)
    if conjugate_a:
        t = t.conj()
    if transpose_a:
        t = np.swapaxes(t, -1, -2)
    rhs = _compute(b)
    if not left_side:  # x op(a) = b  <=>  op(a)^T x^T = b^T
        t, rhs = np.swapaxes(t, -1, -2), np.swapaxes(rhs, -1, -2)
    # Substitution row by row (as LAPACK's trsm: a zero pivot gives inf/nan, not an error).
    eff_lower = lower != transpose_a if left_side else lower == transpose_a
    x = np.zeros(np.broadcast_shapes(t.shape[:-2], rhs.shape[:-2]) + rhs.shape[-2:], rhs.dtype)
    for i in range(n) if eff_lower else range(n - 1, -1, -1):
        acc = rhs[..., i, :] - np.einsum("...j,...jk->...k", t[..., i, :], x)
        x[..., i, :] = acc / t[..., i, i, None]
    if not left_side:
        x = np.swapaxes(x, -1, -2)
    return x.astype(b.dtype)


def _ts_jvp(primals, tangents, out, **params):
    # left: op(A) X = B, so dX = op(A)^-1 (dB - op(dA) X); right: dX = (dB - X op(dA)) op(A)^-1.
    # dA is masked to the triangle the kernel reads.
    (a, _), (ta, tb) = primals, tangents
    rhs = None if type(tb) is ad.Zero else tb
    if type(ta) is not ad.Zero:
        n = a.shape[-1]
        mask = _ts_triangle(n, params["lower"], params["unit_diagonal"])
        da = ew.mul(ta, _const(mask, ta))
        da = _conj(da) if params["conjugate_a"] else da
        if params["left_side"]:
            prod = _mm(da, out, ta=params["transpose_a"], precision=_HIGHEST)
        else:
            prod = _mm(out, da, tb=params["transpose_a"], precision=_HIGHEST)
        rhs = ew.neg(prod) if rhs is None else ew.sub(rhs, prod)
    return triangular_solve_p.bind(a, rhs, **params)


def _ts_transpose(ct, a, b, **params):
    # Linear in b: the transpose of b -> op(A)^-1 b is ct -> op(A)^-T ct (right: ct op(A)^-T).
    if ad.is_undefined_primal(a):
        raise NotImplementedError("triangular_solve transpose: a is a linear input.")
    flipped = dict(params, transpose_a=not params["transpose_a"])
    return [None, triangular_solve_p.bind(a, ct, **flipped)]


triangular_solve_p = _linalg_primitive("triangular_solve", _ts_impl, _ts_abstract_eval)
ad.primitive_jvps[triangular_solve_p] = _ts_jvp
ad.primitive_transposes[triangular_solve_p] = _ts_transpose


# ---------------------------------------------------------------------------------------------
# tridiagonal_solve


def tridiagonal_solve(dl, d, du, b, *, perturb_singular: bool = False):
    """Solve ``A @ x = b`` for the tridiagonal ``A`` with sub-diagonal ``dl`` (``dl[..., 0]``
    unused), diagonal ``d`` and super-diagonal ``du`` (``du[..., -1]`` unused); ``b`` has shape
    ``d.shape + (k,)``. ``perturb_singular`` is accepted (it only changes singular systems)."""
    del perturb_singular
    dl, d, du, b = (_asarray(x) for x in (dl, d, du, b))
    for pos, x in enumerate((dl, d, du, b)):
        _check_dtype("tridiagonal_solve", pos, x)
    _check_rank("tridiagonal_solve", 3, b, 2)
    if not dl.shape == d.shape == du.shape:
        raise TypeError(
            f"tridiagonal_solve: dl, d and du must have the same shape, got {dl.shape}, "
            f"{d.shape} and {du.shape}."
        )
    if b.shape[:-1] != d.shape:
        raise TypeError(
            f"tridiagonal_solve: b's shape without its last dimension must be the diagonals' "
            f"shape {d.shape}, got b.shape={b.shape}."
        )
    if len({np.dtype(x.dtype) for x in (dl, d, du, b)}) != 1:
        raise TypeError(
            f"tridiagonal_solve: all arguments must have the same dtype, got {dl.dtype}, "
            f"{d.dtype}, {du.dtype} and {b.dtype}."
        )
    return tridiagonal_solve_p.bind(dl, d, du, b)


def _tds_abstract_eval(dl, d, du, b):
    return core.ShapedArray(b.shape, b.dtype)


def _tds_impl(dl, d, du, b):
    dl, d, du, rhs = (_compute(x) for x in (dl, d, du, b))
    m = d.shape[-1]
    mat = np.zeros((*d.shape, m), d.dtype)
    idx = np.arange(m)
    mat[..., idx, idx] = d
    mat[..., idx[1:], idx[:-1]] = dl[..., 1:]
    mat[..., idx[:-1], idx[1:]] = du[..., :-1]
    out = np.empty_like(rhs)
    for i in np.ndindex(*d.shape[:-1]):
        try:
            out[i] = np.linalg.solve(mat[i], rhs[i])
        except np.linalg.LinAlgError:
            out[i] = np.nan
    return out.astype(b.dtype)


def _tds_matmul(dl, d, du, x):
    """``A @ x`` for the tridiagonal ``A`` given by its diagonals (as lax ops, so linear)."""
    nd = x.ndim
    m = x.shape[-2]
    zero = core.make_concrete(np.asarray(0, x.dtype), False)
    keep = [(0, 0, 0)] * (nd - 2)
    below = pad(x, zero, [*keep, (1, -1, 0), (0, 0, 0)])  # x[i - 1] (0 at i = 0)
    above = pad(x, zero, [*keep, (-1, 1, 0), (0, 0, 0)])  # x[i + 1] (0 at i = m - 1)
    col = (*x.shape[:-1], 1)
    mask_lo = _const(np.arange(m) > 0, dl)
    mask_hi = _const(np.arange(m) < m - 1, du)
    lo = ew.mul(reshape(ew.mul(dl, mask_lo), col), below)
    hi = ew.mul(reshape(ew.mul(du, mask_hi), col), above)
    return ew.add(ew.add(lo, ew.mul(reshape(d, col), x)), hi)


def _tds_jvp(primals, tangents, out):
    # A x = b: dx = A^-1 (db - dA x), dA tridiagonal with the tangents of the diagonals.
    dl, d, du, b = primals
    tdl, td, tdu, tb = (ad.instantiate(t) if type(t) is ad.Zero else t for t in tangents)
    rhs = ew.sub(tb, _tds_matmul(tdl, td, tdu, out))
    return tridiagonal_solve_p.bind(dl, d, du, rhs)


def _tds_transpose(ct, dl, d, du, b):
    # Linear in b: the transpose solves with A^T, whose sub-diagonal is du shifted down one
    # place and whose super-diagonal is dl shifted up one place.
    if any(ad.is_undefined_primal(x) for x in (dl, d, du)):
        raise NotImplementedError("tridiagonal_solve transpose: a diagonal is a linear input.")
    zero = core.make_concrete(np.asarray(0, d.dtype), False)
    keep = [(0, 0, 0)] * (d.ndim - 1)
    dl_t = pad(du, zero, [*keep, (1, -1, 0)])
    du_t = pad(dl, zero, [*keep, (-1, 1, 0)])
    return [None, None, None, tridiagonal_solve_p.bind(dl_t, d, du_t, ct)]


tridiagonal_solve_p = _linalg_primitive("tridiagonal_solve", _tds_impl, _tds_abstract_eval)
ad.primitive_jvps[tridiagonal_solve_p] = _tds_jvp
ad.primitive_transposes[tridiagonal_solve_p] = _tds_transpose
sharding_rules.sharding_rules[tridiagonal_solve_p] = _trailing_rule(3, 2)


# ---------------------------------------------------------------------------------------------
# householder_product


def householder_product(a, taus):
    """The first ``n`` columns of ``Q = H(0) ... H(k-1)`` for the ``m x n`` (``m >= n``)
    ``a`` holding Householder vectors below its diagonal (LAPACK's orgqr): ``H(i) = I -
    taus[i] v v^H`` with ``v[i] = 1``, ``v[i+1:] = a[i+1:, i]`` and zeros above."""
    a, taus = _asarray(a), _asarray(taus)
    for pos, x in enumerate((a, taus)):
        _check_dtype("householder_product", pos, x)
    _check_rank("householder_product", 0, a, 2)
    _check_rank("householder_product", 1, taus, 1)
    if taus.ndim - 1 != a.ndim - 2:
        raise TypeError(
            f"householder_product: a and taus must have the same number of batch dimensions, "
            f"got a.shape={a.shape} and taus.shape={taus.shape}."
        )
    m, n = a.shape[-2:]
    if m < n:
        raise ValueError(f"householder_product: a must have m >= n, got shape {a.shape}.")
    if taus.shape[:-1] != a.shape[:-2] or taus.shape[-1] > min(m, n):
        raise ValueError(
            f"householder_product: taus must have shape batch + (k,) with k <= min(m, n), got "
            f"a.shape={a.shape} and taus.shape={taus.shape}."
        )
    return householder_product_p.bind(a, taus)


def _hp_abstract_eval(a, taus):
    return core.ShapedArray(a.shape, a.dtype)


def _reflect_all(a: np.ndarray, taus: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``H(0) ... H(k-1) @ q`` for one matrix of Householder vectors ``a``."""
    q = q.copy()
    for i in range(taus.shape[-1] - 1, -1, -1):
        v = np.zeros(a.shape[0], q.dtype)
        v[i] = 1
        v[i + 1 :] = a[i + 1 :, i]
        q -= taus[i] * np.outer(v, v.conj() @ q)
    return q


def _hp_impl(a, taus):
    c, t = _compute(a), _compute(taus)
    m, n = c.shape[-2:]
    out = np.empty_like(c)
    for i in np.ndindex(*c.shape[:-2]):
        out[i] = _reflect_all(c[i], t[i], np.eye(m, n, dtype=c.dtype))
    return out.astype(a.dtype)


householder_product_p = _linalg_primitive("householder_product", _hp_impl, _hp_abstract_eval)


# ---------------------------------------------------------------------------------------------
# ormqr


def ormqr(a, taus, c, *, left: bool = True, transpose: bool = False):
    """``op(Q) @ c`` (``left``) or ``c @ op(Q)`` for the ``m x m`` ``Q = H(0) ... H(k-1)`` of
    the Householder vectors in ``a`` and ``taus`` (as ``householder_product``); ``op`` is the
    conjugate transpose with ``transpose`` (LAPACK's ormqr/unmqr)."""
    a, taus, c = (_asarray(x) for x in (a, taus, c))
    for pos, x in enumerate((a, taus, c)):
        _check_dtype("ormqr", pos, x)
    _check_rank("ormqr", 0, a, 2)
    _check_rank("ormqr", 2, c, 2)
    m = a.shape[-2]
    if taus.shape[:-1] != a.shape[:-2] or taus.shape[-1] > min(a.shape[-2:]):
        raise ValueError(
            f"ormqr: taus must have shape batch + (k,) with k <= min(m, n), got "
            f"a.shape={a.shape} and taus.shape={taus.shape}."
        )
    if c.shape[-2 if left else -1] != m or c.shape[:-2] != a.shape[:-2]:
        side = "rows" if left else "columns"
        raise ValueError(
            f"ormqr: with left={left}, c must have as many {side} as a has rows ({m}) and a's "
            f"batch dimensions, got a.shape={a.shape} and c.shape={c.shape}."
        )
    return ormqr_p.bind(a, taus, c, left=bool(left), transpose=bool(transpose))


def _ormqr_abstract_eval(a, taus, c, **_):
    return core.ShapedArray(c.shape, c.dtype)


def _ormqr_impl(a, taus, c, *, left, transpose):
    ac, tc, cc = _compute(a), _compute(taus), _compute(c)
    m = ac.shape[-2]
    out = np.empty_like(cc)
    for i in np.ndindex(*ac.shape[:-2]):
        q = _reflect_all(ac[i], tc[i], np.eye(m, dtype=ac.dtype))
        q = q.conj().T if transpose else q
        out[i] = q @ cc[i] if left else cc[i] @ q
    return out.astype(c.dtype)


ormqr_p = _linalg_primitive("ormqr", _ormqr_impl, _ormqr_abstract_eval)
sharding_rules.sharding_rules[ormqr_p] = _trailing_rule(2, 2)


# ---------------------------------------------------------------------------------------------
# lu_pivots_to_permutation


def lu_pivots_to_permutation(pivots, permutation_size: int):
    """The permutation (int32, length ``permutation_size``) that LU's row swaps make: swap
    entries ``i`` and ``pivots[..., i]`` of ``arange(permutation_size)`` for each ``i`` in
    order."""
    pivots = _asarray(pivots)
    if np.dtype(pivots.dtype) != np.int32:
        raise TypeError(f"lu_pivots_to_permutation: pivots must be int32, got {pivots.dtype}.")
    _check_rank("lu_pivots_to_permutation", 0, pivots, 1)
    size = int(permutation_size)
    if size < pivots.shape[-1]:
        raise ValueError(
            f"lu_pivots_to_permutation: permutation_size {size} must be at least the number of "
            f"pivots {pivots.shape[-1]}."
        )
    return lu_pivots_to_permutation_p.bind(pivots, permutation_size=size)


def _lpp_abstract_eval(pivots, *, permutation_size):
    return core.ShapedArray((*pivots.shape[:-1], permutation_size), np.dtype(np.int32))


def _lpp_impl(pivots, *, permutation_size):
    batch = pivots.shape[:-1]
    perm = np.broadcast_to(np.arange(permutation_size, dtype=np.int32), (*batch, permutation_size))
    perm = perm.copy()
    for i in range(pivots.shape[-1]):
        j = np.clip(pivots[..., i : i + 1], 0, permutation_size - 1)
        pi, pj = perm[..., i : i + 1].copy(), np.take_along_axis(perm, j, -1)
        perm[..., i : i + 1] = pj
        np.put_along_axis(perm, j, pi, -1)
    return perm


lu_pivots_to_permutation_p = _linalg_primitive(
    "lu_pivots_to_permutation", _lpp_impl, _lpp_abstract_eval
)
sharding_rules.sharding_rules[lu_pivots_to_permutation_p] = _trailing_rule(0, 1)


# ---------------------------------------------------------------------------------------------
# cholesky_update


def cholesky_update(r_matrix, w_vector):
    """The upper Cholesky factor of ``r^T r + w w^T`` given the upper factor ``r`` of a
    matrix (a rank-one update by Givens rotations); real ``n x n`` ``r`` and length-``n``
    ``w`` only."""
    r, w = _asarray(r_matrix), _asarray(w_vector)
    for pos, x in enumerate((r, w)):
        _check_dtype("cholesky_update", pos, x, "f")
    if r.ndim != 2:
        raise TypeError(f"cholesky_update: r_matrix must have rank 2, got shape {r.shape}.")
    if r.shape[0] != r.shape[1] or w.shape != r.shape[:1]:
        raise ValueError(
            f"cholesky_update: r_matrix must be n x n and w_vector of length n, got shapes "
            f"{r.shape} and {w.shape}."
        )
    return cholesky_update_p.bind(r, w)


def _cu_abstract_eval(r, w):
    return core.ShapedArray(r.shape, r.dtype)


def _cu_one(r: np.ndarray, w: np.ndarray) -> np.ndarray:
    r, w = r.copy(), w.copy()
    for k in range(r.shape[0]):
        rkk = np.hypot(r[k, k], w[k])
        c, s = rkk / r[k, k], w[k] / r[k, k]
        r[k, k] = rkk
        r[k, k + 1 :] = (r[k, k + 1 :] + s * w[k + 1 :]) / c
        w[k + 1 :] = c * w[k + 1 :] - s * r[k, k + 1 :]
    return r


def _cu_impl(r, w):
    rc, wc = _compute(r), _compute(w)
    out = np.empty_like(rc)
    for i in np.ndindex(*rc.shape[:-2]):
        out[i] = _cu_one(rc[i], wc[i])
    return out.astype(r.dtype)


cholesky_update_p = _linalg_primitive("cholesky_update", _cu_impl, _cu_abstract_eval)


# ---------------------------------------------------------------------------------------------
# symmetric_product


def symmetric_product(a_matrix, c_matrix, *, alpha: float = 1.0, beta: float = 0.0,
                      symmetrize_output: bool = False):  # fmt: skip
    """``alpha * a @ a^T + beta * c`` (BLAS's syrk) for real ``m x n`` ``a`` and ``m x m``
    ``c``; with ``symmetrize_output`` the lower triangle is mirrored into the upper one."""
    a, c = _asarray(a_matrix), _asarray(c_matrix)
    for pos, x in enumerate((a, c)):
        _check_dtype("symmetric_product", pos, x, "f")
    _check_rank("symmetric_product", 0, a, 2)
    m = a.shape[-2]
    if c.shape != (*a.shape[:-2], m, m):
        raise ValueError(
            f"symmetric_product: c_matrix must have shape {(*a.shape[:-2], m, m)} for "
            f"a_matrix of shape {a.shape}, got {c.shape}."
        )
    out = symmetric_product_p.bind(a, c, alpha=float(alpha), beta=float(beta))
    if symmetrize_output:
        low = ew.mul(out, _const(np.tril(np.ones((m, m))), out))
        strict = ew.mul(out, _const(np.tril(np.ones((m, m)), -1), out))
        out = ew.add(low, _mT(strict))
    return out


def _sp_abstract_eval(a, c, **_):
    return core.ShapedArray(c.shape, c.dtype)


def _sp_impl(a, c, *, alpha, beta):
    ac, cc = _compute(a), _compute(c)
    out = alpha * (ac @ np.swapaxes(ac, -1, -2)) + beta * cc
    return out.astype(c.dtype)


symmetric_product_p = _linalg_primitive("symmetric_product", _sp_impl, _sp_abstract_eval)


# ---------------------------------------------------------------------------------------------
# tridiagonal


def tridiagonal(a, *, lower: bool = True):
    """Reduce the Hermitian ``a`` (its ``lower`` or upper triangle) to real symmetric
    tridiagonal form as LAPACK's sytrd/hetrd: returns ``(packed, d, e, taus)`` with the
    diagonal ``d``, off-diagonal ``e`` and the Householder vectors (stored below the
    sub-diagonal, or above the super-diagonal, of ``packed``) with their ``taus``."""
    a = _asarray(a)
    _check_dtype("tridiagonal", 0, a)
    _check_rank("tridiagonal", 0, a, 2)
    if a.shape[-1] != a.shape[-2]:
        raise ValueError(f"tridiagonal: a must be (a batch of) square matrices, got {a.shape}.")
    packed, d, e, taus = tridiagonal_p.bind(a, lower=bool(lower))
    return [packed, d, e, taus]


def _tri_abstract_eval(a, *, lower):
    n, batch, real = a.shape[-1], a.shape[:-2], _real_dtype(np.dtype(a.dtype))
    k = max(n - 1, 0)
    return [
        core.ShapedArray(a.shape, a.dtype),
        core.ShapedArray((*batch, n), real),
        core.ShapedArray((*batch, k), real),
        core.ShapedArray((*batch, k), a.dtype),
    ]


def _hermitian_from(a: np.ndarray, lower: bool) -> np.ndarray:
    strict = np.tril(a, -1) if lower else np.triu(a, 1)
    return strict + strict.conj().T + np.diag(np.real(np.diag(a))).astype(a.dtype)


def _sytrd_one(a: np.ndarray, lower: bool):
    n = a.shape[0]
    full, packed = _hermitian_from(a, lower), a.copy()
    d, e = np.zeros(n, _real_dtype(a.dtype)), np.zeros(max(n - 1, 0), _real_dtype(a.dtype))
    taus = np.zeros(max(n - 1, 0), a.dtype)
    for i in range(n - 1) if lower else range(n - 2, -1, -1):
        if lower:  # annihilate column i below the sub-diagonal; act on rows/cols i+1..n-1
            v, tau, beta = _householder(full[i + 1 :, i])
            span = slice(i + 1, n)
        else:  # annihilate column i+1 above the super-diagonal; act on rows/cols 0..i
            vr, tau, beta = _householder(np.concatenate([full[i : i + 1, i + 1], full[:i, i + 1]]))
            v = np.concatenate([vr[1:], vr[:1]])
            span = slice(0, i + 1)
        if tau != 0:
            sub = full[span, span]
            x = tau * (sub @ v)
            w = x + (-0.5 * tau * np.vdot(x, v)) * v
            full[span, span] = sub - np.outer(v, w.conj()) - np.outer(w, v.conj())
        e[i], taus[i] = np.real(beta), tau
        if lower:
            packed[i + 1, i], packed[i + 2 :, i] = beta, v[1:]
        else:
            packed[i, i + 1], packed[:i, i + 1] = beta, v[:-1]
    d[:] = np.real(np.diag(full))
    idx = np.arange(n)
    packed[idx, idx] = d
    return packed, d, e, taus


def _tri_impl(a, *, lower):
    c = _compute(a)
    outs = [np.empty(o.shape, o.dtype) for o in _tri_abstract_eval(c, lower=lower)]
    for i in np.ndindex(*c.shape[:-2]):
        for o, got in zip(outs, _sytrd_one(c[i], lower)):
            o[i] = got
    dts = [o.dtype for o in _tri_abstract_eval(a, lower=lower)]
    return [o.astype(dt) for o, dt in zip(outs, dts)]


tridiagonal_p = _linalg_primitive("tridiagonal", _tri_impl, _tri_abstract_eval, True)


# ---------------------------------------------------------------------------------------------
# qdwh


def qdwh(x, *, is_hermitian: bool = False, max_iterations=None, eps=None, dynamic_shape=None):
    """Polar decomposition ``x = u @ h`` of a full-rank ``m x n`` (``m >= n``) matrix by the
    QR-based dynamically weighted Halley iteration (Nakatsukasa, Bai and Gygi): ``u`` with
    orthonormal columns, ``h`` Hermitian positive semi-definite. Returns ``(u, h, num_iters,
    is_converged)``: the iteration stops once ``|u_k - u_k-1| < |u_k| (4 eps)^(1/3)`` (Frobenius
    norms) with the weights' lower bound at 1, or after ``max_iterations`` (default 10)."""
    del is_hermitian  # unused, as in JAX
    from spmd import lax as slax  # lazy: qdwh iterates with while_loop
    from spmd import numpy as jnp  # lazy: asarray and the qdwh iteration are jnp-level, as in JAX

    x = _asarray(x)
    _check_dtype("qdwh", 0, x)
    if x.ndim != 2 or x.shape[0] < x.shape[1]:
        raise ValueError(f"qdwh: x must be an m x n matrix with m >= n, got shape {x.shape}.")
    if dynamic_shape is not None:
        raise NotImplementedError("qdwh: dynamic_shape is not supported.")
    m, n = x.shape
    dt, rdt = x.dtype, _real_dtype(np.dtype(x.dtype))
    eps = float(np.finfo(rdt).eps) if eps is None else float(eps)
    max_iterations = 10 if max_iterations is None else int(max_iterations)
    tol = np.cbrt(4 * eps)

    def step(state):
        k, u, low, _ = state
        # The weights (a, b, c) that map [low, 1] into [low', 1] with low' closest to 1.
        l2 = low * low
        dd = jnp.cbrt(4 * (1 - l2) / (l2 * l2))
        sqd = jnp.sqrt(1 + dd)
        a = sqd + 0.5 * jnp.sqrt(8 - 4 * dd + 8 * (2 - l2) / (l2 * sqd))
        b = (a - 1) ** 2 / 4
        c = a + b - 1
        low = low * (a + b * l2) / (1 + c * l2)
        stacked = jnp.concatenate([jnp.sqrt(c).astype(dt) * u, jnp.eye(n, dtype=dt)])
        q, _ = jnp.linalg.qr(stacked, mode="reduced")
        new = (b / c).astype(dt) * u + ((a - b / c) / jnp.sqrt(c)).astype(dt) * (
            q[:m] @ jnp.conj(q[m:]).T
        )
        moved = jnp.linalg.norm(new - u) < jnp.linalg.norm(new) * tol
        return k + 1, new, low, moved & (jnp.abs(1 - low) < 5 * eps)

    def going(state):
        return (state[0] < max_iterations) & ~state[3]

    u0 = x / jnp.linalg.norm(x).astype(dt)
    init = (jnp.asarray(0), u0, jnp.asarray(eps, rdt), jnp.asarray(False))
    k, u, _, converged = slax.while_loop(going, step, init)
    h = jnp.conj(u).T @ x
    return u, (h + jnp.conj(h).T) / 2, k, converged


# ---------------------------------------------------------------------------------------------
# hessenberg and schur in jax.lax.linalg's form


def hessenberg(a):
    """Upper Hessenberg reduction as LAPACK's gehrd: ``(packed, taus)`` with ``H`` on and above
    the sub-diagonal of ``packed`` and the Householder vectors of ``Q`` below it (``Q = diag(1,
    householder_product(packed[..., 1:, :-1], taus))`` with ``a = Q H Q^H``)."""
    from spmd._src.lax.linalg_lu_schur import hessenberg_p

    a = _asarray(a)
    _check_dtype("hessenberg", 0, a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"hessenberg: a must be (a batch of) square matrices, got {a.shape}.")
    packed, taus = hessenberg_p.bind(a)
    return [packed, taus]


def schur(x, *, compute_schur_vectors: bool = True, sort_eig_vals: bool = False,
          select_callable=None):  # fmt: skip
    """Schur form ``x = Z T Z^H``: ``[T, Z]`` (``[T]`` without ``compute_schur_vectors``), ``T``
    quasi upper triangular (real input) or upper triangular (complex input)."""
    from spmd._src.lax.linalg_lu_schur import schur_p

    x = _asarray(x)
    _check_dtype("schur", 0, x)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"schur: x must be (a batch of) square matrices, got {x.shape}.")
    if sort_eig_vals or select_callable is not None:
        raise NotImplementedError("schur: sort_eig_vals and select_callable are not supported.")
    t, z = schur_p.bind(x, real=np.dtype(x.dtype).kind != "c")
    return [t, z] if compute_schur_vectors else [t]


__all__ = [
    "EigImplementation",
    "EighImplementation",
    "SvdAlgorithm",
    "cholesky_update",
    "cholesky_update_p",
    "hessenberg",
    "householder_product",
    "householder_product_p",
    "lu_pivots_to_permutation",
    "lu_pivots_to_permutation_p",
    "ormqr",
    "ormqr_p",
    "qdwh",
    "schur",
    "symmetric_product",
    "symmetric_product_p",
    "triangular_solve",
    "triangular_solve_p",
    "tridiagonal",
    "tridiagonal_p",
    "tridiagonal_solve",
    "tridiagonal_solve_p",
]
