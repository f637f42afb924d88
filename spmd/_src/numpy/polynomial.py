"""Polynomials of ``spmd.numpy`` as coefficient arrays, highest power first: evaluation
(``polyval``), arithmetic (``polyadd``, ``polysub``, ``polymul``, ``polydiv``), calculus
(``polyder``, ``polyint``), least-squares fitting (``polyfit``), polynomials from their roots
(``poly``) and Vandermonde matrices (``vander``).

As in JAX 0.10, results keep their shapes static: ``polydiv`` returns a remainder as long as
the dividend and ``polymul`` keeps leading zeros, unless ``trim_leading_zeros=True`` (which needs
concrete values). Arguments that fix a result's shape (``m``, ``deg``, ``N``, ``unroll``...) are
static, as JAX's inner jits make them: a traced value raises the ValueError JAX raises.

>>> jnp.polyval(jnp.array([1.0, 0.0, -1.0]), jnp.array([2.0, 3.0]))
Array([3., 8.], dtype=float32)
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np
from spmd._src import dtypes
from spmd._src.array import Array
from spmd._src.core import Tracer
from spmd._src.errors import ConcretizationTypeError, TracerBoolConversionError
from spmd._src.lax.control_flow import scan
from spmd._src.lax.dot import Precision
from spmd._src.numpy import ufuncs
from spmd._src.numpy.creation import eye, ones, zeros
from spmd._src.numpy.lax_numpy import where
from spmd._src.numpy.linalg import eigvals, inv, svd
from spmd._src.numpy.products import convolve, matmul, outer
from spmd._src.numpy.reductions import sum as _sum
from spmd._src.numpy.shape_ops import atleast_1d, broadcast_shapes, concatenate, reshape
from spmd._src.numpy.util import (
    _full,
    _named_jit,
    _scalar,
    check_arraylike,
    convert,
    promote_dtypes,
    promote_dtypes_inexact,
    to_array,
)

__all__ = [
    "poly",
    "polyadd",
    "polyder",
    "polydiv",
    "polyfit",
    "polyint",
    "polymul",
    "polysub",
    "polyval",
    "roots",
    "vander",
]

# ---------------------------------------------------------------------------------------------
# Argument helpers (numeric_extra uses them too)


def _check_static(fn: str, name: str, value: Any) -> None:
    """JAX makes ``name`` a static argument of ``fn``'s inner jit, so a traced value fails there
    with a ValueError (unhashable static argument); this says which argument it was."""
    if isinstance(value, Tracer):
        raise ValueError(
            f"{fn}: argument '{name}' is static (it fixes the result's shape or the program), "
            f"but got a traced value {value.aval.str_short()}. Pass a concrete Python value; "
            "under jit, mark it static (static_argnames)."
        )


def _static_int(fn: str, name: str, value: Any) -> int:
    _check_static(fn, name, value)
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(
            f"{fn}: {name} must be an integer, got {value!r} of type {type(value).__name__}."
        ) from None


def _coefficients(fn: str, name: str, a: Any, exc: type = TypeError) -> None:
    """JAX's polynomial functions read the length of their coefficient arrays, so 0-d input fails
    there: a TypeError (``len()`` of an unsized object), or an IndexError where JAX reads
    ``shape[0]``."""
    if a.ndim == 0:
        raise exc(
            f"{fn}: {name} must be an array of coefficients with at least one dimension, got a "
            "scalar (shape ())."
        )


def _no_bool(fn: str, a: Any) -> None:
    """Adding or negating bool coefficients is refused, as JAX's scatter-add and neg do."""
    if a.dtype == np.bool_:
        raise TypeError(
            f"{fn} does not accept bool coefficients (its additions and negations need a numeric "
            "dtype); convert them to an integer or floating dtype first."
        )


def _concrete_values(fn: str, a: Any) -> np.ndarray:
    if isinstance(a, Tracer):
        raise TracerBoolConversionError(
            a._concretization_message(fn) + f"\nIt arose in {fn} with trim_leading_zeros=True: "
            "trimming needs concrete coefficients (the result's length depends on their values)."
        )
    return np.asarray(a)


def _trim_leading(fn: str, a: Any, tol: float) -> Any:
    """``a`` without its leading entries of magnitude <= ``tol`` (all of them if all are)."""
    v = _concrete_values(fn, a)
    big = np.flatnonzero(np.abs(v) > tol)
    start = int(big[0]) if big.size else v.shape[0]
    return a[start:] if start else a


# ---------------------------------------------------------------------------------------------
# Evaluation and arithmetic


def _polyval_body(p, x, unroll):
    # Horner's rule as a scan over the coefficients; the carry starts as a (strong) zero of the
    # broadcast shape, so the result is never weakly typed (as JAX's).
    y0 = _full(broadcast_shapes(x.shape, p.shape[1:]), 0, p.dtype)
    y, _ = scan(lambda y, c: (y * x + c, None), y0, p, unroll=unroll)
    return y


_polyval_jit = _named_jit("polyval", _polyval_body, ("unroll",))


def polyval(p, x, *, unroll: int = 16):
    """The polynomial with coefficients ``p`` (highest power first) evaluated at ``x``, by
    Horner's rule in a ``lax.scan`` unrolled ``unroll`` times.

    >>> jnp.polyval(jnp.array([3, 0, 1]), 2)
    Array(13, dtype=int32)
    """
    check_arraylike("polyval", p, x)
    _check_static("polyval", "unroll", unroll)
    p, x = promote_dtypes(p, x)
    if p.ndim == 0:
        # JAX indexes p.shape[0] here (an IndexError).
        raise IndexError(
            "polyval: p must be an array of coefficients with at least one dimension, got a "
            "scalar (shape ())."
        )
    return _polyval_jit(p, x, unroll)


def _polyadd_body(a1, a2):
    longer, shorter = (a2, a1) if a1.shape[0] <= a2.shape[0] else (a1, a2)
    return longer.at[-shorter.shape[0] :].add(shorter)


_polyadd_jit = _named_jit("polyadd", _polyadd_body)


def _polyadd(fn: str, a1, a2):
    _coefficients(fn, "a1", a1, IndexError)
    _coefficients(fn, "a2", a2, IndexError)
    longer, shorter = (a2, a1) if a1.shape[0] <= a2.shape[0] else (a1, a2)
    n, m = longer.shape[0], shorter.shape[0]
    tail = (m, *longer.shape[1:]) if m else longer.shape
    # JAX adds the shorter array into the tail of the longer one (a scatter-add), so the shorter
    # must broadcast to that tail; an empty one addresses the whole longer array (``[-0:]``) and
    # only fits when that is empty too.
    try:
        fits = np.broadcast_shapes(shorter.shape, tail) == tail
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"{fn}: cannot add coefficients of shape {shorter.shape} into the last {m or n} "
            f"rows of shape {tail} of the other operand (shapes {a1.shape} and {a2.shape})."
        )
    return _polyadd_jit(a1, a2)


def polyadd(a1, a2):
    """The sum of two polynomials (the shorter is aligned with the end of the longer).

    >>> jnp.polyadd(jnp.array([1, 2, 3]), jnp.array([10, 20]))
    Array([ 1, 12, 23], dtype=int32)
    """
    check_arraylike("polyadd", a1, a2)
    a1, a2 = promote_dtypes(a1, a2)
    _no_bool("polyadd", a1)
    return _polyadd("polyadd", a1, a2)


def polysub(a1, a2):
    """The difference of two polynomials, ``a1 - a2``.

    >>> jnp.polysub(jnp.array([1, 2, 3]), jnp.array([10, 20]))
    Array([  1,  -8, -17], dtype=int32)
    """
    check_arraylike("polysub", a1, a2)
    a1, a2 = promote_dtypes(a1, a2)
    _no_bool("polysub", a1)
    _coefficients("polysub", "a2", a2, IndexError)
    return _polyadd("polysub", a1, ufuncs.negative(a2))


def _inexact(*args: Any) -> list:
    """The arguments as arrays of their common inexact dtype."""
    return [to_array(a) for a in promote_dtypes_inexact(*args)]


def polymul(a1, a2, *, trim_leading_zeros: bool = False):
    """The product of two polynomials (a full convolution of their coefficients); leading zeros
    of the inputs are kept unless ``trim_leading_zeros`` (which needs concrete values).

    >>> jnp.polymul(jnp.array([1, 1]), jnp.array([1, -1]))
    Array([ 1.,  0., -1.], dtype=float32)
    """
    check_arraylike("polymul", a1, a2)
    _check_static("polymul", "trim_leading_zeros", trim_leading_zeros)
    a1, a2 = _inexact(a1, a2)
    _coefficients("polymul", "a1", a1)
    _coefficients("polymul", "a2", a2)
    if a1.ndim > 1 or a2.ndim > 1:
        raise ValueError(
            "polymul: coefficient arrays must be 1-D (convolve() only supports 1-dimensional "
            f"inputs), got shapes {a1.shape} and {a2.shape}."
        )
    if trim_leading_zeros:
        a1 = _trim_leading("polymul", a1, 0)
        a2 = _trim_leading("polymul", a2, 0)
    # An empty coefficient array is the zero polynomial.
    if a1.shape[0] == 0:
        a1 = zeros((1,), a1.dtype)
    if a2.shape[0] == 0:
        a2 = zeros((1,), a2.dtype)
    return convolve(a1, a2)


def polydiv(u, v, *, trim_leading_zeros: bool = False):
    """Quotient and remainder of the polynomial division ``u / v``. The remainder has ``u``'s
    length (leading zeros included) unless ``trim_leading_zeros``, which drops its leading
    entries of magnitude up to the square root of the dtype's epsilon (concrete values only).

    >>> q, r = jnp.polydiv(jnp.array([1.0, 3.0, 2.0]), jnp.array([1.0, 1.0]))
    >>> q, r
    (Array([1., 2.], dtype=float32), Array([0., 0., 0.], dtype=float32))
    """
    check_arraylike("polydiv", u, v)
    _check_static("polydiv", "trim_leading_zeros", trim_leading_zeros)
    u, v = _inexact(u, v)
    _coefficients("polydiv", "u", u)
    _coefficients("polydiv", "v", v)
    m, n = u.shape[0], v.shape[0]
    if n == 0:
        # JAX reads v[0] (an IndexError).
        raise IndexError(
            "polydiv: the divisor v has no coefficients (shape (0,)); it needs a leading one."
        )
    # Long division with static lengths: the quotient starts as a (strong) zero and the
    # remainder as u, so a weakly typed u gives a weakly typed remainder, as in JAX.
    scale = 1 / v[0]
    q = zeros((max(m - n + 1, 1),), u.dtype)
    r = u
    for k in range(m - n + 1):
        d = scale * r[k]
        q = q.at[k].set(d)
        r = r.at[k : k + n].add(-d * v)
    if trim_leading_zeros:
        tol = float(np.sqrt(dtypes.finfo(r.dtype).eps))
        r = _trim_leading("polydiv", r, tol)
    return q, r


# ---------------------------------------------------------------------------------------------
# Derivatives and integrals


def _polyder_body(p, m):
    n = p.shape[0]
    if m >= n:
        return (p[:0] * _scalar(0, p.dtype)).reshape((0,) + p.shape[1:])
    # Coefficient of x**(n-1-i) times (n-1-i)(n-2-i)...(n-m-i), exact small integers.
    powers = np.arange(n - 1, m - 1, -1)
    factor = np.ones(n - m)
    for j in range(m):
        factor = factor * (powers - j)
    return p[: n - m] * Array(factor.astype(p.dtype))


_polyder_jit = _named_jit("polyder", _polyder_body, ("m",))


def polyder(p, m: int = 1):
    """The ``m``-th derivative of the polynomial ``p`` (inexact dtype).

    >>> jnp.polyder(jnp.array([1, 2, 3, 4]))
    Array([3., 4., 3.], dtype=float32)
    """
    check_arraylike("polyder", p)
    m = _static_int("polyder", "m", m)
    if m < 0:
        raise ValueError(f"Order of derivative must be positive (polyder got m={m}).")
    (p,) = _inexact(p)
    _coefficients("polyder", "p", p)
    if m == 0:
        return p
    return _polyder_jit(p, m)


def _polyint_body(p, k, m):
    n = p.shape[0]
    k = reshape(k, (-1,))
    if k.shape[0] != m:
        k = ones((m,), k.dtype) * k
    # The coefficient of x**r is divided by r(r-1)...(r-m+1), the constants k by r! (their
    # power r < m): each factor is max(1, r - j).
    r = np.arange(n + m - 1, -1, -1)
    divisor = np.ones(n + m)
    for j in range(m):
        divisor = divisor * np.maximum(1, r - j)
    coeffs = concatenate([p, k])
    return coeffs / Array(divisor.astype(coeffs.dtype))


_polyint_jit = _named_jit("polyint", _polyint_body, ("m",))


def polyint(p, m: int = 1, k=None):
    """The ``m``-th antiderivative of the polynomial ``p``; ``k`` holds the integration
    constants (a scalar, or one per integration, the first for the first integration).

    >>> jnp.polyint(jnp.array([3.0, 2.0, 1.0]), k=5.0)
    Array([1., 1., 1., 5.], dtype=float32)
    """
    m = _static_int("polyint", "m", m)
    if m < 0:
        raise ValueError(f"Order of integral must be positive (see polyder); polyint got m={m}.")
    k = 0 if k is None else k
    check_arraylike("polyint", p, k)
    p, k = _inexact(p, k)
    _coefficients("polyint", "p", p)
    if m == 0:
        return p
    if k.ndim > 1 or k.size not in (1, m):
        raise ValueError(
            "k must be a scalar or a rank-1 array of length 1 or m: polyint got k of shape "
            f"{k.shape} for m={m}."
        )
    return _polyint_jit(p, k, m)


# ---------------------------------------------------------------------------------------------
# Fitting, roots to coefficients, Vandermonde matrices


def _vander_body(x, N, increasing):
    exps = np.arange(N) if increasing else np.arange(N - 1, -1, -1)
    # The powers go through ``pow`` with exponents of x's own dtype, as JAX's do.
    e = Array(exps.astype(x.dtype))
    return ufuncs.power(reshape(x, (-1, 1)), reshape(e, (1, -1)))


_vander_jit = _named_jit("vander", _vander_body, ("N", "increasing"))


def vander(x, N: int | None = None, increasing: bool = False):
    """The Vandermonde matrix of ``x``: column ``j`` is ``x ** (N - 1 - j)`` (``x ** j`` when
    ``increasing``); ``N`` defaults to ``len(x)``.

    >>> jnp.vander(jnp.array([1, 2, 3]), 3)
    Array([[1, 1, 1],
           [4, 2, 1],
           [9, 3, 1]], dtype=int32)
    """
    check_arraylike("vander", x)
    _check_static("vander", "increasing", increasing)
    x = to_array(x)
    if x.ndim != 1:
        raise ValueError(f"x must be a one-dimensional array (vander got shape {x.shape}).")
    N = x.shape[0] if N is None else _static_int("vander", "N", N)
    if N < 0:
        raise ValueError(f"N must be nonnegative (vander got N={N}).")
    if x.dtype == np.bool_:
        raise TypeError("vander does not accept bool x (its powers need a numeric dtype).")
    return _vander_jit(x, N, bool(increasing))


def _lstsq(a, b, rcond):
    """Least squares ``a @ x ~ b`` through the SVD, with residuals computed whatever the rank
    (as JAX's ``lstsq`` does for polyfit): ``(x, resid, rank, s)``."""
    a, b = promote_dtypes_inexact(a, b)
    b1 = b.ndim == 1
    if b1:
        b = reshape(b, (-1, 1))
    real_dt = dtypes.finfo(a.dtype).dtype
    rc = _scalar(rcond, real_dt)
    rc = where(rc < 0, _scalar(dtypes.finfo(a.dtype).eps, real_dt), rc)
    u, s, vt = svd(a, full_matrices=False)
    mask = (s > 0) & (s >= rc * s[0])
    rank = _sum(mask, dtype=np.int32)
    s_inv = where(mask, 1 / where(mask, s, 1), 0)
    # At HIGHEST precision, as JAX's lstsq, whatever jax_default_matmul_precision says.
    hi = Precision.HIGHEST
    u_h_b = matmul(ufuncs.conj(u).T, b, precision=hi)
    x = matmul(ufuncs.conj(vt).T, reshape(s_inv, (-1, 1)) * u_h_b, precision=hi)
    resid = ufuncs.square(ufuncs.abs(b - matmul(a, x, precision=hi)))
    resid = _sum(resid, axis=0)
    if b1:
        x = reshape(x, (-1,))
    return x, resid, rank, s


def _polyfit_body(x, y, w, deg, rcond, full, cov):
    order = deg + 1
    lhs = vander(x, order)
    rhs = y
    if w is not None:
        lhs = lhs * w[:, None]
        rhs = rhs * (w if rhs.ndim == 1 else w[:, None])
    # Columns scaled to unit norm (``lhs * lhs``, not |lhs|**2, as JAX and NumPy do).
    scale = ufuncs.sqrt(_sum(lhs * lhs, axis=0))
    lhs = lhs / scale[None, :]
    c, resids, rank, s = _lstsq(lhs, rhs, rcond)
    c = (c.T / scale).T
    if full:
        rc = np.asarray(rcond, dtypes.default_float_dtype())
        return c, resids, rank, s, Array(rc, weak_type=True)
    if not cov:
        return c
    vbase = inv(matmul(lhs.T, lhs)) / outer(scale, scale)
    if cov == "unscaled":
        fac = 1
    else:
        fac = resids / (x.shape[0] - order)
    if y.ndim == 1:
        return c, vbase * fac
    return c, vbase[:, :, None] * fac


_polyfit_jit = _named_jit("polyfit", _polyfit_body, ("deg", "rcond", "full", "cov"))


def polyfit(x, y, deg: int, rcond: float | None = None, full: bool = False, w=None, cov=False):
    """Least-squares fit of a polynomial of degree ``deg`` to the points ``(x, y)`` (``y`` may
    hold several data sets as columns), optionally weighted by ``w``. With ``full``, also the
    residuals, rank, singular values and ``rcond``; with ``cov``, also the covariance of the
    coefficients (``cov='unscaled'`` leaves it unscaled by the residuals).

    >>> jnp.polyfit(jnp.array([0.0, 1.0, 2.0]), jnp.array([1.0, 3.0, 5.0]), 1).round(4)
    Array([2., 1.], dtype=float32)
    """
    for name, val in (("deg", deg), ("rcond", rcond), ("full", full), ("cov", cov)):
        _check_static("polyfit", name, val)
    check_arraylike("polyfit", x, y)
    # JAX reads deg with int() (so 1.0 is accepted).
    deg = int(deg)
    x, y = to_array(x), to_array(y)
    if deg < 0:
        raise ValueError(f"expected deg >= 0 (polyfit got deg={deg})")
    if x.ndim != 1:
        raise TypeError(f"expected 1D vector for x (polyfit got x of shape {x.shape})")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x (polyfit got x of shape (0,))")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError(f"expected 1D or 2D array for y (polyfit got y of shape {y.shape})")
    if x.shape[0] != y.shape[0]:
        raise TypeError(
            f"expected x and y to have same length (polyfit got x of shape {x.shape} and y of "
            f"shape {y.shape})"
        )
    if w is not None:
        check_arraylike("polyfit", w)
        w = to_array(w)
        if w.ndim != 1:
            raise TypeError(f"expected a 1-d array for weights (polyfit got shape {w.shape})")
        if w.shape[0] != y.shape[0]:
            raise TypeError(
                f"expected w and y to have the same length (polyfit got w of shape {w.shape} "
                f"and y of shape {y.shape})"
            )
    if rcond is None:
        # JAX derives the default from x's own dtype, so integer x is refused (finfo fails).
        if not dtypes.issubdtype(x.dtype, np.inexact):
            raise ValueError(
                f"polyfit: data type {x.dtype} of x is not inexact; the default rcond "
                "(len(x) * eps) needs a floating or complex x."
            )
        rcond = x.shape[0] * float(dtypes.finfo(x.dtype).eps)
    else:
        rcond = float(rcond)
    lhs_dt = dtypes.result_type(x, y)
    if w is not None:
        lhs_dt = dtypes.result_type(lhs_dt, w)
    if dtypes.to_inexact_dtype(lhs_dt) in (np.dtype(np.float16), np.dtype(dtypes.bfloat16)):
        # JAX's SVD has no half-precision kernel (NotImplementedError "Unsupported dtype").
        raise NotImplementedError(
            f"polyfit: unsupported dtype {dtypes.to_inexact_dtype(lhs_dt)} (the SVD of the least "
            "squares solve has no half-precision kernel); use float32."
        )
    if cov and not full and cov != "unscaled" and x.shape[0] <= deg + 1:
        raise ValueError(
            "the number of data points must exceed order to scale the covariance matrix "
            f"(polyfit got {x.shape[0]} points for order {deg + 1})"
        )
    return _polyfit_jit(x, y, w, deg, rcond, bool(full), cov)


def _poly_body(a):
    if a.ndim == 2:
        # The characteristic polynomial from the eigenvalues (stable, unlike expanding
        # det(tI - a) by Faddeev-LeVerrier, whose error grows fast with the size).
        return _poly_body(eigvals(a))
    if a.shape[0] == 0:
        return ones((), a.dtype)
    one = ones((1,), a.dtype)
    out = one
    for i in range(a.shape[0]):
        out = convolve(out, concatenate([one, -a[i : i + 1]]))
    return out


_poly_jit = _named_jit("poly", _poly_body)


def poly(seq_of_zeros):
    """The monic polynomial with the given roots (from a 1-D array), or the characteristic
    polynomial of a square matrix (then complex: it goes through the eigenvalues).

    >>> jnp.poly(jnp.array([1.0, 2.0]))
    Array([ 1., -3.,  2.], dtype=float32)
    """
    check_arraylike("poly", seq_of_zeros)
    (a,) = _inexact(seq_of_zeros)
    a = atleast_1d(a)
    if a.ndim > 2 or (a.ndim == 2 and (a.shape[0] != a.shape[1] or a.shape[0] == 0)):
        raise ValueError(
            f"input must be 1d or non-empty square 2d array (poly got shape {a.shape})."
        )
    if a.ndim == 2 and a.dtype in (np.dtype(np.float16), np.dtype(dtypes.bfloat16)):
        # JAX's eigenvalue kernel has no half-precision version.
        raise NotImplementedError(
            f"poly: unsupported dtype {a.dtype} for a matrix argument; use float32."
        )
    return _poly_jit(a)


def roots(p, *, strip_zeros: bool = True):
    """The roots of the polynomial with coefficients ``p`` (highest power first), as the
    eigenvalues of its companion matrix; complex, in no particular order. ``strip_zeros``
    drops leading zero coefficients (which needs concrete values: not under ``jit``); without
    it a leading zero makes the roots NaN.

    >>> jnp.sort_complex(jnp.roots(jnp.array([1.0, -3.0, 2.0])))
    Array([1.+0.j, 2.+0.j], dtype=complex64)
    """
    check_arraylike("roots", p)
    (p,) = _inexact(p)
    p = atleast_1d(p)
    if p.ndim != 1:
        raise ValueError(f"roots: p must be a rank-1 array of coefficients, got shape {p.shape}.")
    cdt = np.promote_types(p.dtype, np.complex64)
    n_zero_roots = 0
    if strip_zeros:
        if isinstance(p, Tracer):
            raise ConcretizationTypeError(
                "roots: strip_zeros=True needs the coefficients' values (to find the leading "
                "and trailing zeros), but they are traced (under jit or another "
                "transformation); pass strip_zeros=False there."
            )
        nz = np.flatnonzero(np.asarray(p))
        if nz.size == 0:
            return zeros((0,), cdt)
        # Trailing zero coefficients are roots at 0, leading ones are no roots at all.
        n_zero_roots = p.shape[0] - 1 - int(nz[-1])
        p = p[int(nz[0]) : int(nz[-1]) + 1]
    n = p.shape[0] - 1
    if n < 1:
        return zeros((n_zero_roots,), cdt)
    companion = concatenate([reshape(-p[1:] / p[0], (1, n)), eye(n - 1, n, dtype=p.dtype)])
    found = convert(eigvals(companion), cdt)
    if n_zero_roots:
        found = concatenate([zeros((n_zero_roots,), cdt), found])
    return found
