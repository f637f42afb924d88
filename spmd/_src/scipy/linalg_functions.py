"""``jax.scipy.linalg``'s matrix functions and equations: expm, expm_frechet, funm, sqrtm,
rsf2csf, polar, solve_sylvester and eigh_tridiagonal, on ``spmd.numpy`` (jit, vmap and grad go
through them; funm and sqrtm use the Schur form, which has no derivative, as in JAX).

>>> from spmd.scipy import linalg
>>> linalg.expm(jnp.zeros((2, 2)))
Array([[1., 0.],
       [0., 1.]], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from spmd._src.lax.dot import Precision
from spmd._src.lax.elementwise.conversion import stop_gradient
from spmd._src.scipy import linalg_jnp as jnp
from spmd._src.scipy.linalg import _inexact, _mH, _mT, _square, schur

# ---------------------------------------------------------------------------------------------
# expm and expm_frechet: scaling and squaring with a diagonal Padé approximant (Higham 2005)

# Numerators' coefficients b_0..b_d of the [d/d] Padé approximants of exp.
_PADE = {
    3: [120.0, 60.0, 12.0, 1.0],
    5: [30240.0, 15120.0, 3360.0, 420.0, 30.0, 1.0],
    7: [17297280.0, 8648640.0, 1995840.0, 277200.0, 25200.0, 1512.0, 56.0, 1.0],
    9: [
        17643225600.0,
        8821612800.0,
        2075673600.0,
        302702400.0,
        30270240.0,
        2162160.0,
        110880.0,
        3960.0,
        90.0,
        1.0,
    ],
    13: [
        64764752532480000.0,
        32382376266240000.0,
        7771770303897600.0,
        1187353796428800.0,
        129060195264000.0,
        10559470521600.0,
        670442572800.0,
        33522128640.0,
        1323241920.0,
        40840800.0,
        960960.0,
        16380.0,
        182.0,
        1.0,
    ],
}
# As JAX, by the bits of the dtype: the degrees, the 1-norms below which each but the last is
# accurate to the unit roundoff (the lowest such degree is used, chosen by the unscaled norm),
# and the 1-norm the last degree takes, to which larger matrices are scaled by halvings.
_DEGREES = {
    32: ((3, 5, 7), (0.4258730016922831, 1.880152677804762), 3.925724783138660),
    64: (
        (3, 5, 7, 9, 13),
        (0.01495585217958292, 0.2539398330063230, 0.9504178996162932, 2.097847961257068),
        5.371920351148152,
    ),
}


def _dot(a, b):
    # As JAX: expm's and sqrtm's products at HIGHEST precision, whatever
    # jax_default_matmul_precision says.
    return jnp.matmul(a, b, precision=Precision.HIGHEST)


def _terms(b, powers, parity: int, out=None):
    """``out`` + sum of b[2k + parity] * powers[k], highest power first (JAX's order of the
    sums)."""
    for k in reversed(range(len(powers))):
        term = b[2 * k + parity] * powers[k]
        out = term if out is None else out + term
    return out


def _pade(a, degree: int):
    """``(U, V)``: the odd and even parts of the Padé numerator, ``exp(a) ~ (V-U)^-1 (V+U)``."""
    b = _PADE[degree]
    eye = jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    a2 = _dot(a, a)
    powers = [eye, a2]  # even powers a^0, a^2, ... (a^6 at most for degree 13)
    while len(powers) <= (3 if degree == 13 else degree // 2):
        powers.append(_dot(powers[-1], a2))
    if degree < 13:
        return _dot(a, _terms(b, powers, 1)), _terms(b, powers, 0)
    # Degree 13 from a^6 times a polynomial in a^2..a^6 (no a^8..a^12 products).
    a6 = powers[3]
    hi_u = _dot(a6, b[13] * a6 + b[11] * powers[2] + b[9] * a2)
    hi_v = _dot(a6, b[12] * a6 + b[10] * powers[2] + b[8] * a2)
    return _dot(a, _terms(b, powers, 1, hi_u)), _terms(b, powers, 0, hi_v)


def _expm(a, max_squarings: int):
    degrees, bounds, theta = _DEGREES[64 if jnp.finfo(a.dtype).bits > 32 else 32]
    norm = jnp.max(jnp.sum(jnp.abs(a), axis=-2), axis=-1, initial=0)  # 1-norm of each matrix
    # As JAX: floor, not ceil, so the scaled norm may reach twice theta (this fixes how many
    # squarings a max_squarings allows).
    ratio = norm / theta
    s = jnp.where(ratio > 1, jnp.floor(jnp.log2(jnp.maximum(ratio, 1))), 0)
    s = stop_gradient(s)
    scaled = a / (2.0**s)[..., None, None].astype(a.dtype)
    # Every degree, then each matrix's own (JAX switches on it; a batch selects alike).
    which = stop_gradient(jnp.digitize(norm, np.asarray(bounds, norm.dtype)))[..., None, None]
    u = v = None
    for i, degree in enumerate(degrees):
        ui, vi = _pade(scaled, degree)
        u = ui if u is None else jnp.where(which == i, ui, u)
        v = vi if v is None else jnp.where(which == i, vi, v)
    r = jnp.linalg.solve(v - u, v + u)
    for i in range(max_squarings):
        r = jnp.where((i < s)[..., None, None], _dot(r, r), r)
    # More squarings than allowed: no accurate answer (NaN, as JAX).
    return jnp.where((s > max_squarings)[..., None, None], jnp.nan, r)


def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16):
    """Matrix exponential of (a batch of) square matrices, by scaling and squaring with a Padé
    approximant; NaN where more than ``max_squarings`` squarings would be needed."""
    del upper_triangular  # the same algorithm serves triangular matrices
    (a,) = _inexact("expm", A)
    _square("expm", a, "A")
    return _expm(a, int(max_squarings))


def expm_frechet(A, E, *, method: str | None = None, compute_expm: bool = True):
    """The Fréchet derivative of ``expm`` at ``A`` in the direction ``E``: ``L``, or
    ``(expm(A), L)`` with ``compute_expm``. Computed as the upper right block of
    ``expm([[A, E], [0, A]])``."""
    del method
    a, e = _inexact("expm_frechet", A, E)
    _square("expm_frechet", a, "A")
    _square("expm_frechet", e, "E")
    if a.shape != e.shape:
        raise ValueError(f"expm_frechet: A.shape={a.shape} and E.shape={e.shape} differ.")
    n = a.shape[-1]
    top = jnp.concatenate([a, e], axis=-1)
    bottom = jnp.concatenate([jnp.zeros_like(a), a], axis=-1)
    big = _expm(jnp.concatenate([top, bottom], axis=-2), 16)
    exp_a, frechet = big[..., :n, :n], big[..., :n, n:]
    return (exp_a, frechet) if compute_expm else frechet


# ---------------------------------------------------------------------------------------------
# funm and sqrtm: on the complex Schur form, one superdiagonal at a time


def _square_2d(fn: str, a):
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"{fn}: expected a square matrix, got A.shape={a.shape}.")


def _superdiagonal(n: int, p: int) -> np.ndarray:
    return np.eye(n, k=p, dtype=bool)


def funm(A, func, disp: bool = True):
    """``func`` applied to a square matrix through its Schur form (Parlett's recurrence);
    the result is complex. ``disp=False`` also returns an error estimate."""
    (a,) = _inexact("funm", A)
    _square_2d("funm", a)
    t, z = schur(a, output="complex")
    n = a.shape[0]
    d = jnp.diagonal(t)
    f = jnp.diag(func(d)).astype(t.dtype)
    den = d[None, :] - d[:, None]  # den[i, j] = t[j, j] - t[i, i]
    # Entry (i, j) at distance p: (t f - f t)[i, j] with f's unknown entry still zero is the
    # recurrence's numerator; dividing by den gives it (f commutes with t).
    for p in range(1, n):
        mask = _superdiagonal(n, p)
        num = t @ f - f @ t
        f = jnp.where(mask, num / jnp.where(mask, den, 1), f)
    out = z @ f @ _mH(z)
    if disp:
        return out
    eps = jnp.finfo(t.dtype).eps
    upper = np.triu(np.ones((n, n), bool), 1)
    minden = jnp.min(jnp.where(upper, jnp.abs(den), jnp.inf), initial=jnp.abs(t[0, 0]))
    minden = jnp.where(minden == 0, eps, minden)
    strict = jnp.max(jnp.sum(jnp.abs(jnp.triu(t, 1)), axis=0))
    err = jnp.minimum(1.0, jnp.maximum(eps, (eps / minden) * strict)).astype(minden.dtype)
    return out, err


def sqrtm(A, blocksize: int = 1):
    """Principal square root of a square matrix (complex), through its Schur form."""
    if blocksize > 1:
        raise NotImplementedError("sqrtm: the blocked version (blocksize > 1) is not implemented.")
    (a,) = _inexact("sqrtm", A)
    _square_2d("sqrtm", a)
    t, z = schur(a, output="complex")
    n = a.shape[0]
    d = jnp.sqrt(jnp.diagonal(t))
    r = jnp.diag(d)
    den = d[:, None] + d[None, :]
    for p in range(1, n):
        mask = _superdiagonal(n, p)
        r = jnp.where(mask, (t - _dot(r, r)) / jnp.where(mask, den, 1), r)
    return _dot(_dot(z, r), _mH(z))


# ---------------------------------------------------------------------------------------------
# rsf2csf


def rsf2csf(T, Z, check_finite: bool = True):
    """Complex Schur form ``(T, Z)`` from a real one: each 2 x 2 block of ``T`` is made
    triangular by a complex Givens rotation, applied to ``Z`` too."""
    del check_finite
    t, z = _inexact("rsf2csf", T, Z)
    for name, x in (("T", t), ("Z", z)):
        if x.ndim != 2 or x.shape[0] != x.shape[1]:
            raise ValueError(f"rsf2csf: input {name!r} must be square, got {name}.shape={x.shape}.")
    if t.shape != z.shape:
        raise ValueError(f"rsf2csf: T.shape={t.shape} and Z.shape={z.shape} differ.")
    cdt = jnp.result_type(t.dtype, jnp.complex64)
    t, z = t.astype(cdt), z.astype(cdt)
    n = t.shape[0]
    eps = jnp.finfo(cdt).eps
    for m in range(n - 1, 0, -1):
        blk = t[m - 1 : m + 1, m - 1 : m + 1]
        sub = blk[1, 0]
        split = jnp.abs(sub) > eps * (jnp.abs(blk[0, 0]) + jnp.abs(blk[1, 1]))
        # The block's eigenvalue with positive imaginary part, minus its lower diagonal entry.
        half_tr = (blk[0, 0] + blk[1, 1]) / 2
        disc = jnp.sqrt(((blk[0, 0] - blk[1, 1]) / 2) ** 2 + blk[0, 1] * blk[1, 0])
        mu = half_tr + disc - blk[1, 1]
        r = jnp.sqrt(jnp.abs(mu) ** 2 + jnp.abs(sub) ** 2)
        r = jnp.where(split, r, 1)
        c, s = mu / r, sub / r
        g = jnp.stack([jnp.stack([jnp.conj(c), s]), jnp.stack([-s, c])])
        new_rows = g @ t[m - 1 : m + 1, m - 1 :]
        t2 = t.at[m - 1 : m + 1, m - 1 :].set(new_rows)
        t2 = t2.at[: m + 1, m - 1 : m + 1].set(t2[: m + 1, m - 1 : m + 1] @ _mH(g))
        z2 = z.at[:, m - 1 : m + 1].set(z[:, m - 1 : m + 1] @ _mH(g))
        t = jnp.where(split, t2, t)
        z = jnp.where(split, z2, z)
        t = t.at[m, m - 1].set(0)
    return t, z


# ---------------------------------------------------------------------------------------------
# polar


def polar(a, side: str = "right", *, method: str = "qdwh", eps=None, max_iterations=None):
    """Polar decomposition: ``(u, p)`` with ``a = u @ p`` (``side='right'``) or ``a = p @ u``
    ('left'), ``u`` with orthonormal columns (rows) and ``p`` Hermitian positive
    semi-definite. Computed from the SVD for both methods (the results agree)."""
    del eps, max_iterations
    if side not in ("right", "left"):
        raise ValueError(
            f"polar: the argument `side` must be either 'right' or 'left', got {side!r}."
        )
    if method not in ("qdwh", "svd"):
        raise ValueError(f"polar: unknown polar decomposition method {method!r}.")
    arr = jnp.asarray(a)
    if not jnp.issubdtype(arr.dtype, jnp.inexact):
        raise ValueError(f"polar: data type {arr.dtype} not inexact.")
    if arr.ndim < 2:
        raise ValueError(f"polar: a must have at least 2 dimensions, got a.shape={arr.shape}.")
    m, n = arr.shape[-2:]
    # JAX's QDWH path takes m >= n for side='right' and m < n (strictly) for side='left'.
    if method == "qdwh" and ((side == "right" and m < n) or (side == "left" and m >= n)):
        raise NotImplementedError(
            f"polar: method='qdwh' needs m >= n for side='right' and m < n for side='left', got "
            f"a.shape={arr.shape} with side={side!r}."
        )
    u, s, vh = jnp.linalg.svd(arr, full_matrices=False)
    unitary = u @ vh
    if side == "right":
        posdef = (_mH(vh) * s[..., None, :].astype(arr.dtype)) @ vh
    else:
        posdef = (u * s[..., None, :].astype(arr.dtype)) @ _mH(u)
    return unitary, posdef


# ---------------------------------------------------------------------------------------------
# solve_sylvester


def solve_sylvester(A, B, C, *, method: str = "schur", tol: float = 1e-8):
    """``X`` with ``A @ X + X @ B = C``, solved as the linear system
    ``(kron(A, I) + kron(I, B^T)) vec(X) = vec(C)`` (row-major ``vec``)."""
    del tol
    if method not in ("schur", "eigen"):
        raise ValueError(
            f'solve_sylvester: unrecognized method {method!r}; the valid methods are "schur" '
            'and "eigen".'
        )
    a, b, c = _inexact("solve_sylvester", A, B, C)
    m, n = (a.shape[0] if a.ndim == 2 else -1), (b.shape[0] if b.ndim == 2 else -1)
    if a.shape != (m, m) or b.shape != (n, n) or c.shape != (m, n):
        raise ValueError(
            "solve_sylvester: incompatible shapes for Sylvester equation: "
            f"A: {a.shape}, B: {b.shape}, C: {c.shape}."
        )
    big = jnp.kron(a, jnp.eye(n, dtype=a.dtype)) + jnp.kron(jnp.eye(m, dtype=b.dtype), _mT(b))
    return jnp.linalg.solve(big, c.reshape(-1)).reshape(m, n)


# ---------------------------------------------------------------------------------------------
# eigh_tridiagonal


def eigh_tridiagonal(
    d,
    e,
    *,
    eigvals_only: bool = False,
    select: str = "a",
    select_range=None,
    tol=None,
    key=None,
):
    """Eigenvalues (ascending; and eigenvectors unless ``eigvals_only``) of the Hermitian
    tridiagonal matrix with diagonal ``d`` and off-diagonal ``e``. ``select='i'`` keeps the
    eigenvalues with indices ``select_range[0]..select_range[1]``."""
    del tol, key
    d, e = jnp.asarray(d), jnp.asarray(e)
    if (
        not (jnp.issubdtype(d.dtype, jnp.inexact) and jnp.issubdtype(e.dtype, jnp.inexact))
        or jnp.finfo(d.dtype).bits < 32
    ):
        raise TypeError(
            "eigh_tridiagonal: only float32 and float64 inputs are supported, got "
            f"{d.dtype} and {e.dtype}."
        )
    if select not in ("a", "i", "v"):
        raise ValueError(f"eigh_tridiagonal: select must be 'a', 'i' or 'v', got {select!r}.")
    if select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented.")
    if d.ndim != 1 or e.shape != (d.shape[0] - 1,):
        raise TypeError(
            f"eigh_tridiagonal: e must be one shorter than d, got d.shape={d.shape}, "
            f"e.shape={e.shape}."
        )
    real = jnp.real(d).dtype
    if jnp.issubdtype(e.dtype, jnp.complexfloating) and not eigvals_only:
        mat = jnp.diag(d) + jnp.diag(e, 1) + jnp.diag(jnp.conj(e), -1)
    else:
        # A Hermitian tridiagonal matrix is similar (by a diagonal unitary) to the real
        # symmetric one with off-diagonal |e|: the same eigenvalues, in d's real dtype.
        off = e if jnp.issubdtype(e.dtype, jnp.floating) else jnp.abs(e).astype(real)
        mat = jnp.diag(jnp.real(d).astype(real)) + jnp.diag(off, 1) + jnp.diag(off, -1)
    w, v = jnp.linalg.eigh(mat)
    w = w.astype(real)
    if select == "i":
        lo, hi = select_range
        w, v = w[lo : hi + 1], v[:, lo : hi + 1]
    return w if eigvals_only else (w, v)
