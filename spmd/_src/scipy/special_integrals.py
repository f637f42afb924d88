"""Exponential, sine/cosine, Fresnel and Dawson integrals, Spence's function, erfcx, the
Faddeeva function and Owen's T (``spmd.scipy.special``), written in array operations.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from spmd._src import dtypes
from spmd._src.custom_derivatives import custom_jvp
from spmd._src.lax import elementwise as lax
from spmd._src.numpy import creation, shape_ops, ufuncs
from spmd._src.numpy.util import promote_args_inexact
from spmd._src.scipy.special import _ndtr
from spmd._src.scipy.special_common import _c, _check_float, _real_only, _where

__all__ = [
    "dawsn",
    "erfcx",
    "exp1",
    "expi",
    "expn",
    "fresnel",
    "owens_t",
    "sici",
    "spence",
    "wofz",
]

# ---------------------------------------------------------------------------------------------
# Exponential integrals. Below 1.5 the power series; above, the (even part of the) continued
# fraction, evaluated backwards at a fixed depth that reaches float64 precision from 1.5 on.
# Derivatives are custom rules (as in JAX), so untaken branches do not leak NaNs into them.

_EULER = 0.5772156649015329
_CF_DEPTH = 60
_SERIES_TERMS = 30


def _e1_positive(x):
    """E1(x) for x > 0 (other x give garbage that callers mask)."""
    small = x <= _c(x, 1.5)
    xs = _where(small, x, _c(x, 1))
    term, total = creation.ones_like(x), creation.zeros_like(x)
    for k in range(1, _SERIES_TERMS + 1):
        term = term * -xs / _c(x, k)
        total = total + term / _c(x, k)
    series = -_c(x, _EULER) - lax.log(xs) - total
    xl = _where(small, _c(x, 2), x)
    f = xl + _c(x, 2 * _CF_DEPTH + 1)
    for k in range(_CF_DEPTH, 0, -1):
        f = xl + _c(x, 2 * k - 1) - _c(x, k * k) / f
    return _where(small, series, lax.exp(-xl) / f)


@custom_jvp
def _exp1(x):
    e1 = _e1_positive(_where(x > 0, x, _c(x, 1)))
    # As in JAX: inf at 0, NaN for x < 0 and (sic) at +inf.
    out = _where(x == 0, _c(x, np.inf), e1)
    return _where((x < 0) | ufuncs.isnan(x) | ufuncs.isinf(x), _c(x, np.nan), out)


_exp1.defjvps(lambda t, ans, x: -lax.exp(-x) / x * t)
_exp1.__name__ = "exp1"


def exp1(x: Any) -> Any:
    """The exponential integral ``E1(x) = int_1^inf exp(-x t) / t dt`` (real ``x >= 0``)."""
    (x,) = promote_args_inexact("exp1", x)
    _real_only("exp1", x)
    return _exp1(x)


def _ei_positive(x):
    """Ei(x) for x > 0: the series (positive terms) up to a bound that depends on the dtype,
    the asymptotic series e^x / x sum k! / x^k beyond it."""
    big_at, terms = (40.0, 110) if x.dtype == np.float64 else (20.0, 55)
    small = x <= _c(x, big_at)
    xs = _where(small, x, _c(x, 1))
    term, total = creation.ones_like(x), creation.zeros_like(x)
    for k in range(1, terms + 1):
        term = term * xs / _c(x, k)
        total = total + term / _c(x, k)
    series = _c(x, _EULER) + lax.log(xs) + total
    xl = _where(small, _c(x, 2 * big_at), x)
    term, asym = creation.ones_like(x), creation.ones_like(x)
    for k in range(1, int(big_at)):
        term = term * _c(x, k) / xl
        asym = asym + term
    return _where(small, series, lax.exp(xl) / xl * asym)


@custom_jvp
def _expi(x):
    pos = _ei_positive(_where(x > 0, x, _c(x, 1)))
    neg = -_e1_positive(_where(x < 0, -x, _c(x, 1)))
    out = _where(x > 0, pos, neg)
    # As in JAX: NaN at 0 (not -inf) and at +-inf.
    return _where((x == 0) | ufuncs.isnan(x) | ufuncs.isinf(x), _c(x, np.nan), out)


_expi.defjvps(lambda t, ans, x: lax.exp(x) / x * t)
_expi.__name__ = "expi"


def expi(x: Any) -> Any:
    """The exponential integral ``Ei(x)`` (real ``x``; ``Ei(x) = -E1(-x)`` for ``x < 0``)."""
    (x,) = promote_args_inexact("expi", x)
    _real_only("expi", x)
    return _expi(x)


def _en_positive(n, x):
    """E_n(x) for integer n >= 1 (as floats) and x > 0."""
    small = x <= _c(x, 1.5)
    xs = _where(small, x, _c(x, 1))
    # E_n(x) = (-x)^(n-1) / (n-1)! (psi(n) - log x) - sum_{k != n-1} (-x)^k / (k! (k - n + 1)).
    term = creation.ones_like(x)  # (-x)^k / k!
    total = creation.zeros_like(x)
    lead = creation.zeros_like(x)
    for k in range(_SERIES_TERMS + 1):
        if k:
            term = term * -xs / _c(x, k)
        at_pole = n == _c(x, k + 1)
        denom = _where(at_pole, _c(x, 1), _c(x, k + 1) - n)
        total = total + _where(at_pole, _c(x, 0), term / denom)
        lead = _where(at_pole, term, lead)
    # For n beyond the series' reach the leading term is below its precision anyway.
    series = lead * (lax.digamma(n) - lax.log(xs)) - total
    xl = _where(small, _c(x, 2), x)
    f = xl + n + _c(x, 2 * _CF_DEPTH)
    for k in range(_CF_DEPTH, 0, -1):
        f = xl + n + _c(x, 2 * (k - 1)) - _c(x, k) * (n + _c(x, k - 1)) / f
    return _where(small, series, lax.exp(-xl) / f)


def _expn_impl(n, x):
    safe_n = _where(n >= 1, n, _c(x, 1))
    body = _en_positive(safe_n, _where(x > 0, x, _c(x, 1)))
    e0 = lax.exp(-x) / x
    # At x = 0, JAX 0.10 gives 1/n for n >= 2 (the limit is 1/(n-1)): kept for parity.
    at_zero = _where(n == 1, _c(x, np.inf), _c(x, 1) / safe_n)
    out = _where(x == 0, at_zero, body)
    out = _where(n == 0, e0, out)
    bad = (n < 0) | (x < 0) | ufuncs.isnan(x) | ufuncs.isinf(x) | (n != lax.floor(n))
    return _where(bad, _c(x, np.nan), out)


def _expn_cjvp():
    @custom_jvp
    def f(n, x):
        return _expn_impl(n, x)

    def rule(primals, tangents):
        (n, x), (_, t) = primals, tangents
        # d/dx E_n = -E_{n-1}, with E_{-1}(x) = e^-x (x + 1) / x^2.
        e_minus_1 = lax.exp(-x) * (x + _c(x, 1)) / (x * x)
        lower = _where(n == 0, e_minus_1, _expn_impl(n - _c(n, 1), x))
        return f(n, x), -lower * t

    f.defjvp(rule)
    f.__name__ = "expn"
    return f


_expn = _expn_cjvp()


def expn(n: Any, x: Any) -> Any:
    """The generalized exponential integral ``E_n(x) = int_1^inf exp(-x t) / t^n dt`` for
    integer ``n >= 0`` and ``x >= 0``; the derivative is taken in ``x`` only."""
    n, x = promote_args_inexact("expn", n, x)
    _real_only("expn", x)
    shape = np.broadcast_shapes(n.shape, x.shape)
    n, x = shape_ops.broadcast_to(n, shape), shape_ops.broadcast_to(x, shape)
    return _expn(lax.stop_gradient(n), x)


# ---------------------------------------------------------------------------------------------
# Spence's function spence(x) = Li2(1 - x), x >= 0. The argument of Li2 is brought into
# |y| <= 1/2 by the reflection Li2(y) = pi^2/6 - log(y) log(1 - y) - Li2(1 - y), Landen's
# Li2(y) = -Li2(y / (y - 1)) - log(1 - y)^2 / 2 and, for x > 2, spence(x) = -spence(1/x) -
# log(x)^2 / 2; there the Bernoulli series in u = -log(1 - y) converges fast.

# B_2k / (2k + 1)! for k = 1..10.
_LI2_COEF = tuple(
    b / math.factorial(2 * k + 1)
    for k, b in enumerate(
        (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
         43867 / 798, -174611 / 330),
        start=1,
    )
)  # fmt: skip


def _li2_small(y):
    u = -lax.log1p(-y)
    u2 = u * u
    total = u - u2 / _c(y, 4)
    power = u * u2
    for c in _LI2_COEF:
        total = total + _c(y, c) * power
        power = power * u2
    return total


def _li2_unit(y):
    """Li2(y) for -1 <= y <= 1."""
    pi2_6 = _c(y, math.pi**2 / 6)
    hi = y > _c(y, 0.5)
    lo = y < _c(y, -0.5)
    y_hi = _where(hi, y, _c(y, 0.75))
    logs = lax.log(y_hi) * lax.log1p(-y_hi)  # 0 * -inf at y = 1, where the limit is 0
    refl = pi2_6 - _where(y_hi == 1, _c(y, 0), logs) - _li2_small(_c(y, 1) - y_hi)
    y_lo = _where(lo, y, _c(y, -0.75))
    l1 = lax.log1p(-y_lo)
    landen = -_li2_small(y_lo / (y_lo - _c(y, 1))) - _c(y, 0.5) * l1 * l1
    mid = _li2_small(_where(hi | lo, _c(y, 0), y))
    return _where(hi, refl, _where(lo, landen, mid))


@custom_jvp
def _spence(x):
    big = x > _c(x, 2)
    xb = _where(big, x, _c(x, 4))
    lx = lax.log(xb)
    inv = -_li2_unit(_c(x, 1) - _c(x, 1) / xb) - _c(x, 0.5) * lx * lx
    near = _li2_unit(_c(x, 1) - _where(big, _c(x, 1), x))
    out = _where(big, inv, near)
    # As in JAX: NaN for x < 0 and at +inf.
    return _where((x < 0) | ufuncs.isnan(x) | ufuncs.isinf(x), _c(x, np.nan), out)


# d/dx spence(x) = log(x) / (1 - x) (-1 at x = 1).
_spence.defjvps(
    lambda t, ans, x: (
        _where(
            x == 1, -creation.ones_like(x), lax.log(x) / (_c(x, 1) - _where(x == 1, _c(x, 0), x))
        )
        * t
    )
)
_spence.__name__ = "spence"


def spence(x: Any) -> Any:
    """Spence's function ``int_1^x log(t) / (1 - t) dt`` (``Li2(1 - x)``) for real ``x >= 0``."""
    return _spence(_check_float("spence", x))


# ---------------------------------------------------------------------------------------------
# erfcx and Dawson's integral


def _two_product(x):
    """(hi, lo) with hi + lo = x * x exactly (Dekker's splitting)."""
    split = _c(x, 4097.0 if x.dtype == np.float32 else 134217729.0)
    t = split * x
    xh = t - (t - x)
    xl = x - xh
    hi = x * x
    lo = ((xh * xh - hi) + _c(x, 2) * xh * xl) + xl * xl
    return hi, lo


_ERFCX_CF_AT = 5.0
_ERFCX_DEPTH = 30


@custom_jvp
def _erfcx(x):
    # exp(x^2) erfc(x) with x^2 split exactly into hi + lo (exp(hi) exp(lo)), so the square's
    # rounding does not get amplified by the exponential; for large x the continued fraction
    # 1 / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...)))).
    large = x > _c(x, _ERFCX_CF_AT)
    xs = _where(large, _c(x, 0), x)
    hi, lo = _two_product(xs)
    direct = lax.exp(hi) * lax.exp(lo) * lax.erfc(xs)
    xl = _where(large, x, _c(x, 2 * _ERFCX_CF_AT))
    f = xl
    for k in range(_ERFCX_DEPTH, 0, -1):
        f = xl + _c(x, k / 2) / f
    out = _where(large, _c(x, 1 / math.sqrt(math.pi)) / f, direct)
    # erfcx(-inf) = inf, erfcx(inf) = 0 (the splitting gives NaN there).
    out = _where(x == -np.inf, _c(x, np.inf), out)
    return _where(x == np.inf, _c(x, 0), out)


_erfcx.defjvps(lambda t, ans, x: (_c(x, 2) * x * ans - _c(x, 2 / math.sqrt(math.pi))) * t)
_erfcx.__name__ = "erfcx"


def erfcx(x: Any) -> Any:
    """The scaled complementary error function ``exp(x**2) erfc(x)``; for complex ``x``, the
    Faddeeva function at ``i x``."""
    (x,) = promote_args_inexact("erfcx", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        # erfcx(z) = w(iz). i z is built from the parts (-Im z + i Re z): multiplying by 1j
        # would turn infinite parts into NaN (inf * 0).
        return _wofz(lax.complex(-lax.imag(x), lax.real(x)))
    return _erfcx(x)


_DAWSON_H = 0.25
_DAWSON_M = 13
_DAWSON_ASYM = 50.0


@custom_jvp
def _dawsn(x):
    ax = lax.abs(x)
    # |x| < 0.2: the Taylor series sum (-2 x^2)^k x / (2k + 1)!!.
    small = ax < _c(x, 0.2)
    xs = _where(small, x, _c(x, 0))
    term, total = xs, xs
    for k in range(1, 12):
        term = term * _c(x, -2) * xs * xs / _c(x, 2 * k + 1)
        total = total + term
    # |x| > 50: the asymptotic series 1/(2x) sum (2k - 1)!! / (2x^2)^k.
    large = ax > _c(x, _DAWSON_ASYM)
    xl = _where(large, x, _c(x, 2 * _DAWSON_ASYM))
    inv = _c(x, 1) / (_c(x, 2) * xl * xl)
    term, asym = creation.ones_like(x), creation.ones_like(x)
    for k in range(1, 8):
        term = term * _c(x, 2 * k - 1) * inv
        asym = asym + term
    asym = asym / (_c(x, 2) * xl)
    # Otherwise Rybicki's sum (1/sqrt(pi)) sum_{n odd} exp(-(x - n h)^2) / n, over the odd n
    # within 2M of x / h (the terms beyond are below exp(-(2 M h)^2)); its error is of order
    # exp(-(pi / (2h))^2) ~ 1e-17.
    xm = _where(small | large, _c(x, 1), ax)
    h = _c(x, _DAWSON_H)
    center = lax.round(((xm / h) - _c(x, 1)) / _c(x, 2))
    ryb = creation.zeros_like(x)
    for j in range(-_DAWSON_M, _DAWSON_M + 1):
        n = _c(x, 2) * (center + _c(x, j)) + _c(x, 1)
        d = xm - n * h
        ryb = ryb + lax.exp(-d * d) / n
    # Odd n <= 0 would appear only for xm < 2 M h; there they belong to the sum too (negative
    # n), and the formula holds term by term.
    ryb = ryb * _c(x, 1 / math.sqrt(math.pi))
    ryb = _where(x < 0, -ryb, ryb)
    return _where(small, total, _where(large, asym, ryb))


_dawsn.defjvps(lambda t, ans, x: (_c(x, 1) - _c(x, 2) * x * ans) * t)
_dawsn.__name__ = "dawsn"


def dawsn(x: Any) -> Any:
    """Dawson's integral ``exp(-x**2) int_0^x exp(t**2) dt``."""
    (x,) = promote_args_inexact("dawsn", x)
    _real_only("dawsn", x)
    return _dawsn(x)


# ---------------------------------------------------------------------------------------------
# Sine and cosine integrals and Fresnel integrals: power series near 0, and beyond it the
# continued fractions of E1(ix) and of erfc((1 - i) sqrt(pi) x / 2), evaluated backwards at a
# fixed depth in real arithmetic on (real, imaginary) pairs.


def _cdiv(ar, ai, br, bi):
    den = br * br + bi * bi
    return (ar * br + ai * bi) / den, (ai * br - ar * bi) / den


def _sici_impl(x):
    ax = lax.abs(x)
    small = ax <= _c(x, 4)
    xs = _where(small, ax, _c(x, 1))
    x2 = xs * xs
    # Si = sum (-1)^k x^(2k+1) / ((2k+1) (2k+1)!), Ci = gamma + log x + sum_{k>=1} (-1)^k
    # x^(2k) / (2k (2k)!).
    odd, si_s = xs, xs
    even, ci_s = creation.ones_like(x), creation.zeros_like(x)
    for k in range(1, 22):
        even = -even * x2 / _c(x, (2 * k - 1) * (2 * k))
        odd = -odd * x2 / _c(x, (2 * k) * (2 * k + 1))
        ci_s = ci_s + even / _c(x, 2 * k)
        si_s = si_s + odd / _c(x, 2 * k + 1)
    ci_s = ci_s + _c(x, _EULER) + lax.log(xs)
    # E1(ix) = -Ci(x) + i (Si(x) - pi/2) = e^(-ix) / (ix + 1 - 1 / (ix + 3 - 4 / (ix + ...))).
    xl = _where(small, _c(x, 8), ax)
    fr, fi = creation.full_like(x, 2 * _CF_DEPTH + 1), xl
    for k in range(_CF_DEPTH, 0, -1):
        qr, qi = _cdiv(_c(x, k * k), _c(x, 0), fr, fi)
        fr, fi = _c(x, 2 * k - 1) - qr, xl - qi
    er, ei = _cdiv(lax.cos(xl), -lax.sin(xl), fr, fi)
    si = _where(small, si_s, _c(x, math.pi / 2) + ei)
    ci = _where(small, ci_s, -er)
    # Edge values as in JAX: Si(+-inf) = +-pi/2, Ci(0) = -inf, Ci(inf) = 0, Ci(-inf) NaN.
    si = _where(ax == np.inf, _c(x, math.pi / 2), si)
    ci = _where(ax == np.inf, _c(x, 0), _where(x == 0, _c(x, -np.inf), ci))
    ci = _where(x == -np.inf, _c(x, np.nan), ci)
    si = _where(x < 0, -si, si)
    return si, ci


@custom_jvp
def _sici(x):
    return _sici_impl(x)


def _sici_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    si, ci = _sici(x)
    # Si' = sin(x) / x (1 at 0), Ci' = cos(x) / x.
    safe = _where(x == 0, _c(x, 1), x)
    dsi = _where(x == 0, _c(x, 1), lax.sin(safe) / safe)
    return (si, ci), (dsi * t, lax.cos(x) / x * t)


_sici.defjvp(_sici_jvp)
_sici.__name__ = "sici"


def sici(x: Any) -> tuple[Any, Any]:
    """The sine and cosine integrals ``(Si(x), Ci(x))`` for real ``x`` (``Ci(-x) = Ci(x)``)."""
    (x,) = promote_args_inexact("sici", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError(f"Argument `x` to sici must be real-valued. Got dtype {x.dtype}.")
    return _sici(x)


_FRESNEL_SERIES_TO = 2.0


def _fresnel_impl(x):
    ax = lax.abs(x)
    # The series cancels (its terms reach 100 at 2): in float32 the fraction takes over sooner.
    series_to = _FRESNEL_SERIES_TO if x.dtype == np.float64 else 1.2
    small = ax <= _c(x, series_to)
    xs = _where(small, ax, _c(x, 1))
    # S = sum (-1)^k t^(2k+1) x / ((2k+1)! (4k+3)), C = sum (-1)^k t^(2k) x / ((2k)! (4k+1)),
    # t = pi x^2 / 2.
    t = _c(x, math.pi / 2) * xs * xs
    term = xs  # x t^j / j!
    s_s, c_s = creation.zeros_like(x), xs
    for j in range(1, 40):
        term = term * t / _c(x, j)
        k, odd = divmod(j, 2)
        sign = -1.0 if k % 2 else 1.0
        if odd:
            s_s = s_s + _c(x, sign / (4 * k + 3)) * term
        else:
            c_s = c_s + _c(x, sign / (4 * k + 1)) * term
    # C + iS = (1 + i)/2 (1 - erfc(z)), z = (1 - i) sqrt(pi) x / 2, where erfc(z) =
    # e^(-z^2) / sqrt(pi) / (z + (1/2) / (z + 1 / (z + (3/2) / ...))) and e^(-z^2) =
    # e^(i pi x^2 / 2).
    xl = _where(small, _c(x, 2 * series_to), ax)
    zr = _c(x, math.sqrt(math.pi) / 2) * xl
    zi = -zr
    fr, fi = zr, zi
    for k in range(_CF_DEPTH, 0, -1):
        qr, qi = _cdiv(_c(x, k / 2), _c(x, 0), fr, fi)
        fr, fi = zr + qr, zi + qi
    # pi x^2 / 2 taken modulo 2 pi exactly: x^2 = hi + lo exactly, and hi mod 4 is exact.
    hi, lo = _two_product(xl)
    phase = _c(x, math.pi / 2) * (lax.rem(hi, _c(x, 4)) + lo)
    er, ei = _cdiv(lax.cos(phase), lax.sin(phase), fr, fi)
    er, ei = er * _c(x, 1 / math.sqrt(math.pi)), ei * _c(x, 1 / math.sqrt(math.pi))
    # (1 + i)/2 (1 - er - i ei) = ((1 - er + ei) + i (1 - er - ei)) / 2.
    c_l = _c(x, 0.5) * (_c(x, 1) - er + ei)
    s_l = _c(x, 0.5) * (_c(x, 1) - er - ei)
    s = _where(small, s_s, s_l)
    c = _where(small, c_s, c_l)
    s = _where(ax == np.inf, _c(x, 0.5), s)
    c = _where(ax == np.inf, _c(x, 0.5), c)
    neg = x < 0
    return _where(neg, -s, s), _where(neg, -c, c)


@custom_jvp
def _fresnel(x):
    return _fresnel_impl(x)


def _fresnel_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    s, c = _fresnel(x)
    hi, lo = _two_product(x)
    arg = _c(x, math.pi / 2) * (lax.rem(hi, _c(x, 4)) + lo)
    return (s, c), (lax.sin(arg) * t, lax.cos(arg) * t)


_fresnel.defjvp(_fresnel_jvp)
_fresnel.__name__ = "fresnel"


def fresnel(x: Any) -> tuple[Any, Any]:
    """The Fresnel integrals ``(S(x), C(x))``: ``int_0^x sin(pi t^2 / 2) dt`` and the cosine
    one, for real ``x``."""
    (x,) = promote_args_inexact("fresnel", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise NotImplementedError("Support for complex-valued inputs is not implemented yet.")
    return _fresnel(x)


# ---------------------------------------------------------------------------------------------
# The Faddeeva function w(z) = exp(-z^2) erfc(-iz), by Weideman's rational expansion (N = 40
# terms: relative error ~1e-14 over the upper half-plane) and w(z) = 2 exp(-z^2) - w(-z) below.


def _weideman_coefficients(n: int) -> tuple[np.ndarray, float]:
    m = 2 * n
    k = np.arange(-m + 1, m)
    length = math.sqrt(n / math.sqrt(2))
    t = length * np.tan(k * np.pi / (2 * m))
    f = np.concatenate([[0.0], np.exp(-(t**2)) * (length**2 + t**2)])
    a = np.real(np.fft.fft(np.fft.fftshift(f))) / (2 * m)
    return a[1 : n + 1][::-1].copy(), length


_WOFZ_A, _WOFZ_L = _weideman_coefficients(40)


def _wofz_upper(z):
    iz = z * _c(z, 1j)
    den = _c(z, _WOFZ_L) - iz
    big_z = (_c(z, _WOFZ_L) + iz) / den
    p = creation.zeros_like(z)
    for coef in _WOFZ_A:
        p = p * big_z + _c(z, coef)
    return _c(z, 2) * p / (den * den) + _c(z, 1 / math.sqrt(math.pi)) / den


@custom_jvp
def _wofz(z):
    upper = ufuncs.imag(z) >= 0
    zu = _where(upper, z, -z)
    w = _wofz_upper(zu)
    return _where(upper, w, _c(z, 2) * lax.exp(-(z * z)) - w)


# w'(z) = -2 z w(z) + 2i / sqrt(pi).
_wofz.defjvps(lambda t, ans, z: (_c(z, -2) * z * ans + _c(z, 2j / math.sqrt(math.pi))) * t)
_wofz.__name__ = "wofz"


def wofz(z: Any) -> Any:
    """The Faddeeva function ``exp(-z**2) erfc(-i z)`` (complex result)."""
    (z,) = promote_args_inexact("wofz", z)
    if not dtypes.issubdtype(z.dtype, np.complexfloating):
        cdt = np.complex128 if z.dtype == np.float64 else np.complex64
        z = lax.convert_element_type(z, cdt)
    return _wofz(z)


# ---------------------------------------------------------------------------------------------
# Owen's T function T(h, a) = 1/(2 pi) int_0^a exp(-h^2 (1 + x^2) / 2) / (1 + x^2) dx. For
# |a| <= 1, Gauss-Legendre quadrature on [0, min(a, 8.5 / h)] (the integrand's factor
# exp(-h^2 x^2 / 2) is below 1e-15 of its peak beyond); for |a| > 1, Owen's identity
# T(h, a) = Q(h) / 2 + Q(ah) / 2 - Q(h) Q(ah) - T(ah, 1/a) (h >= 0, Q the normal tail).

_GL_X, _GL_W = np.polynomial.legendre.leggauss(40)


def _owens_t_unit(h, a):
    """T(h, a) for h >= 0 and 0 <= a <= 1."""
    span = _where(h > 0, _c(h, 8.5) / _where(h > 0, h, _c(h, 1)), a)
    b = lax.min(a, span)
    total = creation.zeros_like(h)
    for xi, wi in zip(_GL_X, _GL_W):
        x = b * _c(h, (xi + 1) / 2)
        x2 = x * x
        total = total + _c(h, wi / 2) * lax.exp(_c(h, -0.5) * h * h * x2) / (_c(h, 1) + x2)
    return total * b * lax.exp(_c(h, -0.5) * h * h) * _c(h, 1 / (2 * math.pi))


@custom_jvp
def _owens_t(h, a):
    ah, aa = lax.abs(h), lax.abs(a)
    le1 = aa <= _c(h, 1)
    a_in = _where(le1, aa, _c(h, 0.5))
    direct = _owens_t_unit(ah, a_in)
    a_out = _where(le1, _c(h, 2), aa)
    finite_a = _where(ufuncs.isinf(a_out), _c(h, 2), a_out)
    qh = _ndtr(-ah)
    qah = _ndtr(-ah * finite_a)
    flipped = _c(h, 0.5) * (qh + qah) - qh * qah - _owens_t_unit(ah * finite_a, _c(h, 1) / finite_a)
    flipped = _where(ufuncs.isinf(a_out), _c(h, 0.5) * qh, flipped)
    out = _where(le1, direct, flipped)
    out = _where(ah == np.inf, _c(h, 0), out)
    out = _where(a < 0, -out, out)
    return _where(ufuncs.isnan(h) | ufuncs.isnan(a), _c(h, np.nan), out)


def _owens_t_dh(t, ans, h, a):
    # dT/dh = -phi(h) erf(a h / sqrt(2)) / 2.
    phi = lax.exp(_c(h, -0.5) * h * h) * _c(h, 1 / math.sqrt(2 * math.pi))
    return -phi * lax.erf(a * h * _c(h, 1 / math.sqrt(2))) * _c(h, 0.5) * t


def _owens_t_da(t, ans, h, a):
    # dT/da = exp(-h^2 (1 + a^2) / 2) / (2 pi (1 + a^2)).
    s = _c(a, 1) + a * a
    return lax.exp(_c(a, -0.5) * h * h * s) / (_c(a, 2 * math.pi) * s) * t


_owens_t.defjvps(_owens_t_dh, _owens_t_da)
_owens_t.__name__ = "owens_t"


def owens_t(h: Any, a: Any) -> Any:
    """Owen's T function ``1/(2 pi) int_0^a exp(-h^2 (1 + x^2) / 2) / (1 + x^2) dx``."""
    h, a = promote_args_inexact("owens_t", h, a)
    _real_only("owens_t", h)
    return _owens_t(h, a)
