"""Bessel functions J_n, the hypergeometric functions 1F1 and 2F1 and spherical harmonics
(``spmd.scipy.special``), written in array operations.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src.custom_derivatives import custom_jvp
from spmd._src.lax import elementwise as lax
from spmd._src.numpy import creation, reductions, shape_ops
from spmd._src.numpy.array_constructors import asarray
from spmd._src.numpy.util import promote_args_inexact
from spmd._src.scipy.special import gamma
from spmd._src.scipy.special_common import _c, _real_only, _where

__all__ = [
    "bessel_jn",
    "hyp1f1",
    "hyp2f1",
    "sph_harm_y",
]

# ---------------------------------------------------------------------------------------------
# Bessel functions of the first kind J_0 .. J_v by Miller's backward recurrence
# f_{k-1} = (2k / z) f_k - f_{k+1} from k = n_iter, normalized by J_0 + 2 sum J_2k = 1 and
# rescaled whenever the values grow large.


def _bessel_jn_impl(z, v, n_iter):
    big = _c(z, 1e10 if z.dtype != np.float64 else 1e100)
    az = lax.abs(z)
    safe = _where(az == 0, _c(z, 1), az)
    f_next, f = (
        creation.zeros_like(z),
        creation.full_like(z, 1e-30 if z.dtype != np.float64 else 1e-300),
    )
    norm = creation.zeros_like(z)
    outs: list[Any] = [creation.zeros_like(z) for _ in range(v + 1)]
    for k in range(n_iter, 0, -1):
        # f holds f_k: record it, add it to the normalization, step down to f_{k-1}.
        if k <= v:
            outs[k] = f
        if k % 2 == 0:
            norm = norm + _c(z, 2) * f
        f_prev = _c(z, 2 * k) / safe * f - f_next
        scale = _where(lax.abs(f_prev) > big, _c(z, 1) / big, _c(z, 1))
        f_next, f = f * scale, f_prev * scale
        norm = norm * scale
        outs = [o * scale for o in outs]
    outs[0] = f
    norm = norm + f
    res = []
    for n, o in enumerate(outs):
        val = o / norm
        if n % 2:
            val = _where(z < 0, -val, val)  # J_n(-z) = (-1)^n J_n(z)
        val = _where(az == 0, _c(z, 1.0 if n == 0 else 0.0), val)
        res.append(val)
    return shape_ops.stack(res)


def bessel_jn(z: Any, *, v: int, n_iter: int = 50) -> Any:
    """Bessel functions of the first kind ``J_0(z) .. J_v(z)``, stacked on a new leading axis
    (shape ``(v + 1, *z.shape)``); ``n_iter`` is where the backward recurrence starts."""
    v = operator.index(v)
    n_iter = operator.index(n_iter)
    (z,) = promote_args_inexact("bessel_jn", z)
    if dtypes.issubdtype(z.dtype, np.complexfloating):
        raise TypeError(f"bessel_jn does not accept dtype {z.dtype} (real arguments only).")
    if v < 0:  # as in JAX: no orders, an empty leading axis
        return creation.zeros((0, *z.shape), z.dtype)
    return _bessel_jn_impl(z, v, max(n_iter, v + 1))


# ---------------------------------------------------------------------------------------------
# The confluent hypergeometric function 1F1(a; b; x) = sum_k (a)_k / (b)_k x^k / k!: the series
# for |x| < 100, the large-x expansion Gamma(b) / Gamma(a) e^x x^(a-b) sum_k (b-a)_k (1-a)_k /
# k! x^-k beyond, each summed until its terms fall below eps of the sum (at most 250 terms).
# The loops run over whole arrays: an element stops changing once it has converged.


def _summed(first_term, step, weight=None, max_terms=250):
    """sum_k term_k * weight(k) from term_1 = first_term with term_{k+1} = term_k * step(k),
    starting from 1 (weight None) or 0."""
    from spmd._src.lax.control_flow import while_loop

    x = first_term
    eps = _c(x, dtypes.finfo(x.dtype).eps)
    start = creation.ones_like(x) if weight is None else creation.zeros_like(x)

    def active(total, k, term):
        return (k < _c(x, max_terms)) & (lax.abs(term) > eps * lax.abs(total))

    def cond(state):
        total, k, term = state
        return reductions.any(active(total, k, term))

    def body(state):
        total, k, term = state
        live = active(total, k, term)
        add = term if weight is None else term * weight(k)
        new_total = _where(live, total + add, total)
        new_term = _where(live, term * step(k), term)
        return new_total, _where(live, k + _c(x, 1), k), new_term

    k0 = creation.ones_like(x)
    return while_loop(cond, body, (start, k0, first_term))[0]


def _hyp1f1_series(a, b, x):
    return _summed(a / b * x, lambda k: (a + k) / (b + k) * x / (k + _c(x, 1)))


def _hyp1f1_asymptotic(a, b, x):
    total = _summed(
        (b - a) * (_c(x, 1) - a) / x,
        lambda k: (b - a + k) * (_c(x, 1) - a + k) / (k + _c(x, 1)) / x,
    )
    return gamma(b) / gamma(a) * lax.exp(x) * x ** (a - b) * total


def _hyp1f1_value(a, b, x):
    small = lax.abs(x) < _c(x, 100)
    xs = _where(small, x, _c(x, 0))
    xl = _where(small, _c(x, 100), x)
    out = _where(small, _hyp1f1_series(a, b, xs), _hyp1f1_asymptotic(a, b, xl))
    # Conventions of JAX: 1 for a = 0 (also when b = 0), e^x for a = b, inf for b = 0.
    out = _where((b == 0) & (a != 0), _c(x, np.inf), out)
    out = _where((a == b) & (a != 0), lax.exp(x), out)
    return _where(a == 0, _c(x, 1), out)


@custom_jvp
def _hyp1f1(a, b, x):
    return _hyp1f1_value(a, b, x)


def _hyp1f1_da(t, ans, a, b, x):
    first = a / b * x
    step = lambda k: (a + k) / (b + k) * x / (k + _c(x, 1))  # noqa: E731
    return _summed(first, step, lambda k: lax.digamma(a + k) - lax.digamma(a)) * t


def _hyp1f1_db(t, ans, a, b, x):
    first = a / b * x
    step = lambda k: (a + k) / (b + k) * x / (k + _c(x, 1))  # noqa: E731
    return _summed(first, step, lambda k: lax.digamma(b) - lax.digamma(b + k)) * t


def _hyp1f1_dx(t, ans, a, b, x):
    return a / b * _hyp1f1(a + _c(a, 1), b + _c(b, 1), x) * t


_hyp1f1.defjvps(_hyp1f1_da, _hyp1f1_db, _hyp1f1_dx)
_hyp1f1.__name__ = "hyp1f1"


def hyp1f1(a: Any, b: Any, x: Any) -> Any:
    """The confluent hypergeometric function ``1F1(a; b; x)`` for real arguments (1 at
    ``a = b = 0``, as in JAX)."""
    a, b, x = promote_args_inexact("hyp1f1", a, b, x)
    _real_only("hyp1f1", x)
    shape = np.broadcast_shapes(a.shape, b.shape, x.shape)
    a, b, x = (shape_ops.broadcast_to(v, shape) for v in (a, b, x))
    return _hyp1f1(a, b, x)


# ---------------------------------------------------------------------------------------------
# The Gauss hypergeometric function 2F1(a, b; c; x) for real arguments and x < 1: the series
# for |x| <= 0.9 (it ends by itself when a or b is a non-positive integer); near 1, the
# connection formula in 1 - x when c - a - b is not an integer; below -0.5, Pfaff's
# transformation 2F1(a, b; c; x) = (1 - x)^-a 2F1(a, c - b; c; x / (x - 1)). The special
# values (x = 0, poles in c, x = 1, b = c, a = c, x > 1) follow JAX's conventions.


def _hyp2f1_series(a, b, c, x, max_terms=250):
    first = a * b / c * x
    step = lambda k: (a + k) * (b + k) / (c + k) / (k + _c(x, 1)) * x  # noqa: E731
    return _summed(first, step, max_terms=max_terms)


def _hyp2f1_near_one(a, b, c, x):
    # Connection formula (c - a - b not an integer).
    d = c - a - b
    s = _c(x, 1) - x
    t1 = gamma(c) * gamma(d) / (gamma(c - a) * gamma(c - b))
    t2 = gamma(c) * gamma(-d) / (gamma(a) * gamma(b))
    f1 = _hyp2f1_series(a, b, _c(x, 1) - d, s)
    f2 = _hyp2f1_series(c - a, c - b, d + _c(x, 1), s)
    return t1 * f1 + s**d * t2 * f2


def _hyp2f1_unit(a, b, c, x):
    """2F1 for -0.5 <= x < 1."""
    eps = _c(x, dtypes.finfo(x.dtype).eps * 50)
    d = c - a - b
    integer_d = lax.abs(d - lax.round(d)) < eps
    terminating = ((a <= 0) & (lax.abs(a - lax.round(a)) < eps)) | (
        (b <= 0) & (lax.abs(b - lax.round(b)) < eps)
    )
    near = (x > _c(x, 0.9)) & ~integer_d & ~terminating
    xs = _where(near, _c(x, 0), x)
    xn = _where(near, x, _c(x, 0.95))
    dn = _where(near, d, _c(x, 0.5))
    an, bn = _where(near, a, _c(x, 1)), _where(near, b, _c(x, 1))
    # With an integer c - a - b the connection formula degenerates (JAX switches to a
    # digamma series there); the series itself is summed further instead (4000 terms reach
    # float32 precision up to x ~ 0.996).
    slow = (x > _c(x, 0.9)) & integer_d & ~terminating
    xslow = _where(slow, x, _c(x, 0))
    long = _hyp2f1_series(a, b, c, xslow, max_terms=4000)
    short = _hyp2f1_series(a, b, c, _where(slow, _c(x, 0), xs))
    series = _where(slow, long, short)
    return _where(near, _hyp2f1_near_one(an, bn, an + bn + dn, xn), series)


def _hyp2f1_value(a, b, c, x):
    low = x < _c(x, -0.5)
    xl = _where(low, x, _c(x, -1))
    z = xl / (xl - _c(x, 1))
    pfaff = (_c(x, 1) - xl) ** -a * _hyp2f1_unit(a, c - b, c, z)
    xu = _where(low | (x >= 1), _c(x, 0), x)
    main = _where(low, pfaff, _hyp2f1_unit(a, b, c, xu))
    d = c - a - b
    s = _c(x, 1) - x
    inf = _c(x, np.inf)
    # The special cases, in JAX's order of precedence.
    out = _where(x > 1, inf, main)
    out = _where((x == 1) & (d > 0), gamma(c) * gamma(d) / (gamma(c - a) * gamma(c - b)), out)
    out = _where((x < 1) & (a == c), s ** (-b), out)
    out = _where((x < 1) & (b == c), s ** (-a), out)
    out = _where((d <= 0) & (x == 1), inf, out)
    pole_c = (c == 0) | ((c < 0) & (c % 1 == 0))
    out = _where(pole_c, inf, out)
    one = (x == 0) | (((a == 0) | (b == 0)) & (c != 0))
    return _where(one, _c(x, 1), out)


@custom_jvp
def _hyp2f1(a, b, c, x):
    return _hyp2f1_value(a, b, c, x)


def _hyp2f1_param_jvp(weight):
    def rule(t, ans, a, b, c, x):
        first = a * b / c * x
        step = lambda k: (a + k) * (b + k) / (c + k) / (k + _c(x, 1)) * x  # noqa: E731
        return _summed(first, step, lambda k: weight(a, b, c, k)) * t

    return rule


_hyp2f1.defjvps(
    _hyp2f1_param_jvp(lambda a, b, c, k: lax.digamma(a + k) - lax.digamma(a)),
    _hyp2f1_param_jvp(lambda a, b, c, k: lax.digamma(b + k) - lax.digamma(b)),
    _hyp2f1_param_jvp(lambda a, b, c, k: lax.digamma(c) - lax.digamma(c + k)),
    lambda t, ans, a, b, c, x: a * b / c * _hyp2f1(a + 1, b + 1, c + 1, x) * t,
)
_hyp2f1.__name__ = "hyp2f1"


def hyp2f1(a: Any, b: Any, c: Any, x: Any) -> Any:
    """The Gauss hypergeometric function ``2F1(a, b; c; x)`` for real arguments."""
    a, b, c, x = promote_args_inexact("hyp2f1", a, b, c, x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise TypeError(f"hyp2f1 does not accept dtype {x.dtype} (real arguments only).")
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape, x.shape)
    a, b, c, x = (shape_ops.broadcast_to(v, shape) for v in (a, b, c, x))
    return _hyp2f1(a, b, c, x)


# ---------------------------------------------------------------------------------------------
# Spherical harmonics Y_n^m(theta, phi) (theta polar, phi azimuthal, Condon-Shortley phase),
# from fully normalized associated Legendre functions: P_k^k by the diagonal recurrence, then
# upwards in the degree, each element stopping at its own (m, n), up to the static n_max.


def _sph_legendre(n, am, x, sin_t, n_max):
    """Normalized P_n^|m|(cos theta) for integer-valued float arrays n >= |m| >= 0."""
    pmm = creation.full_like(x, 1 / math.sqrt(4 * math.pi))
    for k in range(1, n_max + 1):
        step = -_c(x, math.sqrt((2 * k + 1) / (2 * k))) * sin_t * pmm
        pmm = _where(am >= _c(x, k), step, pmm)
    # Upward in the degree l from |m|: p_prev = P_{l-1}, p = P_l.
    p_prev, p = creation.zeros_like(x), pmm
    out = _where(n == am, pmm, creation.zeros_like(x))
    for lvl in range(1, n_max + 1):
        level = am + _c(x, lvl)  # the degree reached at this step
        lf = level
        a_l = lax.sqrt((_c(x, 4) * lf * lf - _c(x, 1)) / (lf * lf - am * am))
        lp = lf - _c(x, 1)
        denom = lp * lp - am * am
        a_prev = lax.sqrt((_c(x, 4) * lp * lp - _c(x, 1)) / _where(denom > 0, denom, _c(x, 1)))
        prev_term = _where(denom > 0, p_prev / a_prev, creation.zeros_like(x))
        nxt = a_l * (x * p - prev_term)
        p_prev, p = p, nxt
        out = _where(n == level, p, out)
    return out


def sph_harm_y(
    n: Any, m: Any, theta: Any, phi: Any, diff_n: int | None = None, n_max: int | None = None
) -> Any:
    """The spherical harmonic ``Y_n^m(theta, phi)``: degree ``n``, order ``m`` (integer
    arrays), polar angle ``theta`` and azimuth ``phi``. ``n_max`` (static) bounds the degree;
    by default ``max(n)``, which must then be concrete. ``diff_n`` (derivatives in ``n``, as
    in SciPy) is rejected for any value, 0 included, as JAX 0.10 does."""
    if diff_n is not None:
        raise NotImplementedError(
            f"sph_harm_y: the argument diff_n (got {diff_n!r}) is not supported; JAX's "
            "jax.scipy.special.sph_harm_y does not support it either."
        )
    n_arr, m_arr = asarray(n), asarray(m)
    if n_max is None:
        n_max = int(core.concrete_or_error(np.max, n_arr, "n_max of sph_harm_y"))
    theta, phi = promote_args_inexact("sph_harm_y", theta, phi)
    shape = np.broadcast_shapes(n_arr.shape, m_arr.shape, theta.shape, phi.shape)
    theta, phi = shape_ops.broadcast_to(theta, shape), shape_ops.broadcast_to(phi, shape)
    x = lax.cos(theta)
    nf = shape_ops.broadcast_to(n_arr.astype(theta.dtype), shape)
    mf = shape_ops.broadcast_to(m_arr.astype(theta.dtype), shape)
    am = lax.abs(mf)
    p = _sph_legendre(nf, am, x, lax.sin(theta), int(n_max))
    # Y_n^-m = (-1)^m conj(Y_n^m): with e^{i m phi} for either sign, P picks up (-1)^m.
    sign = _where((mf < 0) & (am % 2 == 1), _c(x, -1), _c(x, 1))
    p = _where(am > nf, creation.zeros_like(x), p * sign)
    angle = mf * phi
    cdt = np.complex128 if theta.dtype == np.float64 else np.complex64
    re = lax.convert_element_type(p * lax.cos(angle), cdt)
    im = lax.convert_element_type(p * lax.sin(angle), cdt)
    return re + im * np.array(1j, cdt)
