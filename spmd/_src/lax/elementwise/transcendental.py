"""Transcendental primitives (floating point only): exponentials and logarithms, trigonometric and
hyperbolic functions and their inverses, roots, the error function, Bessel and gamma functions.

>>> lax.sqrt(jnp.array([4.0, 9.0]))
Array([2., 3.], dtype=float32)
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from spmd._src import dtypes
from spmd._src.lax.accuracy import with_accuracy
from spmd._src.lax.elementwise.arithmetic import (
    abs,
    add,
    div,
    integer_pow,
    mul,
    neg,
    sign,
    square,
    sub,
)
from spmd._src.lax.elementwise.bitwise import gt
from spmd._src.lax.elementwise.common import _const, _dtype, _full, _one, _one_typed
from spmd._src.lax.elementwise.selection import select_n
from spmd._src.lax.rules import defbroadcasting, defjvp, defjvp2, defvectorized
from spmd._src.lax.utils import binop, float_dtypes, inexact, unop

# ---------------------------------------------------------------------------------------------
# Transcendental functions (floating point only)


def exp(x, *, accuracy=None):
    """Elementwise exponential.

    ``accuracy`` (a ``lax.Tolerance`` or ``lax.AccuracyMode``) is recorded in jaxprs; on CPU it
    changes no value, only derivatives (see ``spmd._src.lax.accuracy``).
    """
    return exp_p.bind(x) if accuracy is None else with_accuracy(exp_p, x, accuracy)


exp_p = unop("exp", np.exp, inexact)
defvectorized(exp_p)
defjvp2(exp_p, lambda g, ans, x: mul(g, ans))


def exp2(x, *, accuracy=None):
    """Elementwise base-2 exponential.

    ``accuracy`` (a ``lax.Tolerance`` or ``lax.AccuracyMode``) is recorded in jaxprs; on CPU it
    changes no value, only derivatives (see ``spmd._src.lax.accuracy``).
    """
    return exp2_p.bind(x) if accuracy is None else with_accuracy(exp2_p, x, accuracy)


exp2_p = unop("exp2", np.exp2, inexact)
defvectorized(exp2_p)
defjvp2(exp2_p, lambda g, ans, x: mul(log(_const(x, 2)), mul(g, ans)))


def log(x, *, accuracy=None):
    """Elementwise natural logarithm.

    ``accuracy`` (a ``lax.Tolerance`` or ``lax.AccuracyMode``) is recorded in jaxprs; on CPU it
    changes no value, only derivatives (see ``spmd._src.lax.accuracy``).
    """
    return log_p.bind(x) if accuracy is None else with_accuracy(log_p, x, accuracy)


log_p = unop("log", np.log, inexact)
defvectorized(log_p)
defjvp(log_p, lambda g, x: div(g, x))


def log1p(x, *, accuracy=None):
    """Elementwise ``log(1 + x)``.

    ``accuracy`` (a ``lax.Tolerance`` or ``lax.AccuracyMode``) is recorded in jaxprs; on CPU it
    changes no value, only derivatives (see ``spmd._src.lax.accuracy``).
    """
    return log1p_p.bind(x) if accuracy is None else with_accuracy(log1p_p, x, accuracy)


log1p_p = unop("log1p", np.log1p, inexact)
defvectorized(log1p_p)
defjvp(log1p_p, lambda g, x: div(g, add(x, _one_typed(x))))


def expm1(x, *, accuracy=None):
    """Elementwise ``exp(x) - 1``.

    ``accuracy`` (a ``lax.Tolerance`` or ``lax.AccuracyMode``) is recorded in jaxprs; on CPU it
    changes no value, only derivatives (see ``spmd._src.lax.accuracy``).
    """
    return expm1_p.bind(x) if accuracy is None else with_accuracy(expm1_p, x, accuracy)


expm1_p = unop("expm1", np.expm1, inexact)
defvectorized(expm1_p)
defjvp2(expm1_p, lambda g, ans, x: mul(g, add(ans, _one_typed(ans))))


def tanh(x, *, accuracy=None):
    """Elementwise hyperbolic tangent.

    ``accuracy`` (a ``lax.Tolerance`` or ``lax.AccuracyMode``) is recorded in jaxprs; on CPU it
    changes no value, only derivatives (see ``spmd._src.lax.accuracy``).
    """
    return tanh_p.bind(x) if accuracy is None else with_accuracy(tanh_p, x, accuracy)


tanh_p = unop("tanh", np.tanh, inexact)
defvectorized(tanh_p)
# g * (1 + tanh) * (1 - tanh), not g * (1 - tanh**2): near |tanh| = 1 the square loses the
# small difference to rounding (and this is JAX's formula, so values agree bit for bit).
defjvp2(tanh_p, lambda g, ans, x: mul(add(g, mul(g, ans)), sub(_one_typed(x), ans)))


def logistic(x, *, accuracy=None):
    """Elementwise logistic sigmoid ``1 / (1 + exp(-x))``.

    ``accuracy`` (a ``lax.Tolerance`` or ``lax.AccuracyMode``) is recorded in jaxprs; on CPU it
    changes no value, only derivatives (see ``spmd._src.lax.accuracy``).
    """
    return logistic_p.bind(x) if accuracy is None else with_accuracy(logistic_p, x, accuracy)


# The constant 1 of each dtype _logistic_impl has seen (a 0-d array, so NumPy promotes exactly as
# with a fresh one): making it per call cost more than the arithmetic on small operands.
_LOGISTIC_ONE: dict = {}


def _logistic_impl(x):
    # No errstate: eager and jit run kernels with NumPy's warnings off (dispatch.run_quietly),
    # and entering errstate per call costs a microsecond.
    one = _LOGISTIC_ONE.get(x.dtype)
    if one is None:
        one = _LOGISTIC_ONE[x.dtype] = np.ones((), x.dtype)
    return (one / (one + np.exp(-x))).astype(x.dtype, copy=False)


logistic_p = unop("logistic", _logistic_impl, inexact)
defvectorized(logistic_p)
defjvp2(logistic_p, lambda g, ans, x: mul(g, mul(ans, sub(_one_typed(ans), ans))))


def sin(x, *, accuracy=None):
    """Elementwise sine.

    ``accuracy`` (a ``lax.Tolerance`` or ``lax.AccuracyMode``) is recorded in jaxprs; on CPU it
    changes no value, only derivatives (see ``spmd._src.lax.accuracy``).
    """
    return sin_p.bind(x) if accuracy is None else with_accuracy(sin_p, x, accuracy)


sin_p = unop("sin", np.sin, inexact)
defvectorized(sin_p)
defjvp(sin_p, lambda g, x: mul(g, cos(x)))


def cos(x, *, accuracy=None):
    """Elementwise cosine.

    ``accuracy`` (a ``lax.Tolerance`` or ``lax.AccuracyMode``) is recorded in jaxprs; on CPU it
    changes no value, only derivatives (see ``spmd._src.lax.accuracy``).
    """
    return cos_p.bind(x) if accuracy is None else with_accuracy(cos_p, x, accuracy)


cos_p = unop("cos", np.cos, inexact)
defvectorized(cos_p)
defjvp(cos_p, lambda g, x: neg(mul(g, sin(x))))


def tan(x, *, accuracy=None):
    """Elementwise tangent.

    ``accuracy`` (a ``lax.Tolerance`` or ``lax.AccuracyMode``) is recorded in jaxprs; on CPU it
    changes no value, only derivatives (see ``spmd._src.lax.accuracy``).
    """
    return tan_p.bind(x) if accuracy is None else with_accuracy(tan_p, x, accuracy)


tan_p = unop("tan", np.tan, inexact)
defvectorized(tan_p)
defjvp2(tan_p, lambda g, ans, x: mul(g, add(_one(x), square(ans))))


def asin(x):
    """Elementwise arc sine."""
    return asin_p.bind(x)


asin_p = unop("asin", np.arcsin, inexact)
defvectorized(asin_p)
defjvp(asin_p, lambda g, x: mul(g, rsqrt(sub(_one(x), square(x)))))


def acos(x):
    """Elementwise arc cosine."""
    return acos_p.bind(x)


acos_p = unop("acos", np.arccos, inexact)
defvectorized(acos_p)
defjvp(acos_p, lambda g, x: mul(g, neg(rsqrt(sub(_one(x), square(x))))))


def atan(x):
    """Elementwise arc tangent."""
    return atan_p.bind(x)


atan_p = unop("atan", np.arctan, inexact)
defvectorized(atan_p)
defjvp(atan_p, lambda g, x: div(g, add(_one(x), square(x))))


def sinh(x):
    """Elementwise hyperbolic sine."""
    return sinh_p.bind(x)


sinh_p = unop("sinh", np.sinh, inexact)
defvectorized(sinh_p)
defjvp(sinh_p, lambda g, x: mul(g, cosh(x)))


def cosh(x):
    """Elementwise hyperbolic cosine."""
    return cosh_p.bind(x)


cosh_p = unop("cosh", np.cosh, inexact)
defvectorized(cosh_p)
defjvp(cosh_p, lambda g, x: mul(g, sinh(x)))


def asinh(x):
    """Elementwise inverse hyperbolic sine."""
    return asinh_p.bind(x)


asinh_p = unop("asinh", np.arcsinh, inexact)
defvectorized(asinh_p)
defjvp(asinh_p, lambda g, x: mul(g, rsqrt(add(square(x), _one_typed(x)))))


def acosh(x):
    """Elementwise inverse hyperbolic cosine."""
    return acosh_p.bind(x)


acosh_p = unop("acosh", np.arccosh, inexact)
defvectorized(acosh_p)
defjvp(acosh_p, lambda g, x: mul(g, rsqrt(sub(square(x), _one_typed(x)))))


def atanh(x):
    """Elementwise inverse hyperbolic tangent."""
    return atanh_p.bind(x)


atanh_p = unop("atanh", np.arctanh, inexact)
defvectorized(atanh_p)
defjvp(
    atanh_p,
    lambda g, x: mul(integer_pow(add(_one_typed(x), x), -1), div(g, sub(_one_typed(x), x))),
)


def sqrt(x, *, accuracy=None):
    """Elementwise square root.

    ``accuracy`` (a ``lax.Tolerance`` or ``lax.AccuracyMode``) is recorded in jaxprs; on CPU it
    changes no value, only derivatives (see ``spmd._src.lax.accuracy``).
    """
    return sqrt_p.bind(x) if accuracy is None else with_accuracy(sqrt_p, x, accuracy)


sqrt_p = unop("sqrt", np.sqrt, inexact)
defvectorized(sqrt_p)
defjvp2(sqrt_p, lambda g, ans, x: mul(g, div(_const(x, 0.5), ans)))


def rsqrt(x, *, accuracy=None):
    """Elementwise reciprocal square root.

    ``accuracy`` (a ``lax.Tolerance`` or ``lax.AccuracyMode``) is recorded in jaxprs; on CPU it
    changes no value, only derivatives (see ``spmd._src.lax.accuracy``).
    """
    return rsqrt_p.bind(x) if accuracy is None else with_accuracy(rsqrt_p, x, accuracy)


def _rsqrt_impl(x):
    with np.errstate(all="ignore"):
        return (np.ones((), x.dtype) / np.sqrt(x)).astype(x.dtype)


rsqrt_p = unop("rsqrt", _rsqrt_impl, inexact)
defvectorized(rsqrt_p)
defjvp2(rsqrt_p, lambda g, ans, x: mul(g, mul(_const(x, -0.5), div(ans, x))))


def cbrt(x, *, accuracy=None):
    """Elementwise cube root.

    ``accuracy`` (a ``lax.Tolerance`` or ``lax.AccuracyMode``) is recorded in jaxprs; on CPU it
    changes no value, only derivatives (see ``spmd._src.lax.accuracy``).
    """
    return cbrt_p.bind(x) if accuracy is None else with_accuracy(cbrt_p, x, accuracy)


cbrt_p = unop("cbrt", np.cbrt, float_dtypes)
defvectorized(cbrt_p)
defjvp2(cbrt_p, lambda g, ans, x: mul(g, mul(_const(x, 1 / 3), integer_pow(ans, -2))))


def _vectorized_math(fn):
    # Special functions NumPy lacks: evaluated in float64 with the math module, rounded once.
    vf = np.vectorize(fn, otypes=[np.float64])

    def impl(x):
        if x.size == 0:
            return x.copy()
        with np.errstate(all="ignore"):
            return vf(x.astype(np.float64)).astype(x.dtype)

    return impl


def erf(x):
    """Elementwise error function."""
    return erf_p.bind(x)


erf_p = unop("erf", _vectorized_math(math.erf), float_dtypes)
defvectorized(erf_p)
defjvp(erf_p, lambda g, x: mul(_const(x, 2 / math.sqrt(math.pi)), mul(g, exp(neg(square(x))))))


def erfc(x):
    """Elementwise complementary error function."""
    return erfc_p.bind(x)


erfc_p = unop("erfc", _vectorized_math(math.erfc), float_dtypes)
defvectorized(erfc_p)
defjvp(erfc_p, lambda g, x: mul(_const(x, -2 / math.sqrt(math.pi)), mul(g, exp(neg(square(x))))))


def _erf_inv_scalar(y: float) -> float:
    if y <= -1.0:
        return -math.inf if y == -1.0 else math.nan
    if y >= 1.0:
        return math.inf if y == 1.0 else math.nan
    # Initial guess (Giles' approximation), then Newton steps on erf(x) - y in float64.
    w = -math.log((1.0 - y) * (1.0 + y))
    if w < 5.0:
        w -= 2.5
        p = 2.81022636e-08
        for c in (
            3.43273939e-07,
            -3.5233877e-06,
            -4.39150654e-06,
            0.00021858087,
            -0.00125372503,
            -0.00417768164,
            0.246640727,
            1.50140941,
        ):
            p = c + p * w
    else:
        w = math.sqrt(w) - 3.0
        p = -0.000200214257
        for c in (
            0.000100950558,
            0.00134934322,
            -0.00367342844,
            0.00573950773,
            -0.0076224613,
            0.00943887047,
            1.00167406,
            2.83297682,
        ):
            p = c + p * w
    x = p * y
    for _ in range(3):
        err = math.erf(x) - y
        x -= err / (2.0 / math.sqrt(math.pi) * math.exp(-x * x))
    return x


def erf_inv(x):
    """Elementwise inverse error function."""
    return erf_inv_p.bind(x)


erf_inv_p = unop("erf_inv", _vectorized_math(_erf_inv_scalar), float_dtypes)
defvectorized(erf_inv_p)
defjvp2(
    erf_inv_p, lambda g, ans, x: mul(_const(x, math.sqrt(math.pi) / 2), mul(g, exp(square(ans))))
)


def bessel_i0e(x):
    """Exponentially scaled modified Bessel function of order 0: ``exp(-|x|) * I0(x)``."""
    return bessel_i0e_p.bind(x)


def _i0e_impl(x):
    # np.i0 overflows for |x| > ~700 in float64; beyond that the asymptotic series is exact
    # to float32 precision.
    v = np.abs(x.astype(np.float64))
    small = v < 500
    out = np.empty_like(v)
    out[small] = np.i0(v[small]) * np.exp(-v[small])
    big = v[~small]
    out[~small] = (1 + 1 / (8 * big) + 9 / (128 * big**2)) / np.sqrt(2 * np.pi * big)
    return out.astype(x.dtype)


bessel_i0e_p = unop("bessel_i0e", _i0e_impl, float_dtypes)
defvectorized(bessel_i0e_p)
# d/dx [exp(-|x|) I0(x)] = exp(-|x|) (I1(x) - sign(x) I0(x)).
defjvp2(bessel_i0e_p, lambda g, ans, x: mul(g, sub(bessel_i1e(x), mul(sign(x), ans))))


def bessel_i1e(x):
    """Exponentially scaled modified Bessel function of order 1: ``exp(-|x|) * I1(x)``."""
    return bessel_i1e_p.bind(x)


def _i1e_scalar(x: float) -> float:
    if math.isnan(x):
        return math.nan
    a = math.fabs(x)
    if math.isinf(a):
        return math.copysign(0.0, x)
    if a < 30.0:
        # The power series of I1: positive terms, so no cancellation.
        q, term = a * a / 4.0, a / 2.0
        total, k = term, 0
        while term > 1e-17 * total:
            k += 1
            term *= q / (k * (k + 1))
            total += term
        r = total * math.exp(-a)
    else:
        # The asymptotic expansion of exp(-x) I1(x), summed while its terms decrease.
        total, term = 1.0, 1.0
        for k in range(1, 60):
            nxt = -term * (4.0 - (2 * k - 1) ** 2) / (8.0 * k * a)
            if math.fabs(nxt) >= math.fabs(term) or math.fabs(nxt) < 1e-17:
                break
            term = nxt
            total += term
        r = total / math.sqrt(2.0 * math.pi * a)
    return math.copysign(r, x)


def _i1e_jvp(g, ans, x):
    # exp(-|x|) (I0(x) - I1(x) (sign(x) + 1/x)); near 0 that is 0/0, with limit 1/2.
    eps = dtypes.finfo(_dtype(x)).eps
    not_tiny = gt(abs(x), _const(x, eps))
    safe_x = select_n(not_tiny, _full(x, eps), x)
    slope = sub(bessel_i0e(safe_x), mul(ans, add(sign(safe_x), integer_pow(safe_x, -1))))
    return mul(g, select_n(not_tiny, _full(x, 0.5), slope))


bessel_i1e_p = unop("bessel_i1e", _vectorized_math(_i1e_scalar), float_dtypes)
defvectorized(bessel_i1e_p)
defjvp2(bessel_i1e_p, _i1e_jvp)


def lgamma(x):
    """Elementwise log of the absolute value of the gamma function."""
    return lgamma_p.bind(x)


def _lgamma_scalar(v: float) -> float:
    try:
        return math.lgamma(v)
    except ValueError:
        return math.inf


lgamma_p = unop("lgamma", _vectorized_math(_lgamma_scalar), float_dtypes)
defvectorized(lgamma_p)
defjvp(lgamma_p, lambda g, x: mul(g, digamma(x)))


def _digamma_scalar(v: float) -> float:
    if math.isnan(v):
        return math.nan
    if math.isinf(v):  # log growth at +inf; no limit at -inf (poles at every negative integer)
        return math.inf if v > 0 else math.nan
    if v <= 0 and v == math.floor(v):
        return math.nan
    result = 0.0
    if v < 0:
        # Reflection: psi(1 - x) - psi(x) = pi cot(pi x).
        return _digamma_scalar(1.0 - v) - math.pi / math.tan(math.pi * v)
    while v < 12.0:  # the series below is then within 3e-15 of digamma
        result -= 1.0 / v
        v += 1.0
    f = 1.0 / (v * v)
    series = f * (1 / 12 - f * (1 / 120 - f * (1 / 252 - f * (1 / 240 - f * (1 / 132)))))
    return result + math.log(v) - 0.5 / v - series


def digamma(x):
    """Elementwise digamma function (derivative of lgamma)."""
    return digamma_p.bind(x)


digamma_p = unop("digamma", _vectorized_math(_digamma_scalar), float_dtypes)
defvectorized(digamma_p)
defjvp(digamma_p, lambda g, x: mul(g, polygamma(_const(x, 1), x)))


def polygamma(m, x):
    """The ``m``-th derivative of digamma at ``x`` (``m`` a non-negative integer value of
    ``x``'s float dtype; NaN otherwise).

    >>> lax.polygamma(jnp.float32(1), jnp.float32(1))  # pi**2 / 6
    Array(1.644934, dtype=float32)
    """
    return polygamma_p.bind(m, x)


# Bernoulli numbers B_2, B_4, ..., B_18 (the Euler-Maclaurin tail of the Hurwitz zeta).
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798)


def _hurwitz_zeta_int(s: int, a: float) -> float:
    """sum_{k >= 0} (a + k)**-s for an integer s >= 2 and a not a pole."""
    total = 0.0
    # Sum terms directly until a is large next to s: then the tail's expansion converges fast.
    while a < builtins.max(10.0, float(s)):
        total += a**-s
        a += 1.0
    tail = a ** (1 - s) / (s - 1) + 0.5 * a**-s
    rising, fact, power = float(s), 2.0, a ** -(s + 1)
    for j, b in enumerate(_BERNOULLI, start=1):
        tail += b / fact * rising * power
        rising *= (s + 2 * j - 1) * (s + 2 * j)
        fact *= (2 * j + 1) * (2 * j + 2)
        power /= a * a
    return total + tail


def _polygamma_scalar(m: float, x: float) -> float:
    if math.isnan(m) or math.isnan(x) or m < 0 or m != math.floor(m):
        return math.nan
    if m == 0:
        return _digamma_scalar(x)
    n = int(m)
    if math.isinf(x):
        # As in JAX: +inf for odd orders at -inf (the poles' common sign), NaN otherwise.
        return math.inf if x < 0 and n % 2 else math.nan
    if x <= 0 and x == math.floor(x):
        # A pole: +inf from both sides for odd n; the sign flips across it for even n.
        return math.inf if n % 2 else math.nan
    try:
        scale = float(math.factorial(n))
    except OverflowError:
        scale = math.inf
    # psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x).
    return (scale if n % 2 else -scale) * _hurwitz_zeta_int(n + 1, x)


_polygamma_vec = np.vectorize(_polygamma_scalar, otypes=[np.float64])


def _polygamma_impl(m, x):
    mb, xb = np.broadcast_arrays(m, x)
    if xb.size == 0:
        return np.empty(xb.shape, x.dtype)
    with np.errstate(all="ignore"):
        return _polygamma_vec(mb.astype(np.float64), xb.astype(np.float64)).astype(x.dtype)


def _polygamma_jvp_m(g, m, x):
    raise ValueError("polygamma: the gradient with respect to m is not supported")


polygamma_p = binop("polygamma", _polygamma_impl, float_dtypes)
defbroadcasting(polygamma_p)
defjvp(polygamma_p, _polygamma_jvp_m, lambda g, m, x: mul(g, polygamma(add(m, _one(m)), x)))


def atan2(x, y):
    """Elementwise arc tangent of ``x / y`` using the signs of both."""
    return atan2_p.bind(x, y)


atan2_p = binop("atan2", np.arctan2, float_dtypes)
defbroadcasting(atan2_p)
defjvp(
    atan2_p,
    lambda g, x, y: mul(g, div(y, add(square(x), square(y)))),
    lambda g, x, y: mul(g, div(neg(x), add(square(x), square(y)))),
)


__all__ = [
    "bessel_i0e",
    "bessel_i0e_p",
    "bessel_i1e",
    "bessel_i1e_p",
    "acos",
    "acos_p",
    "acosh",
    "acosh_p",
    "asin",
    "asin_p",
    "asinh",
    "asinh_p",
    "atan",
    "atan2",
    "atan2_p",
    "atan_p",
    "atanh",
    "atanh_p",
    "cbrt",
    "cbrt_p",
    "cos",
    "cos_p",
    "cosh",
    "cosh_p",
    "digamma",
    "digamma_p",
    "erf",
    "erf_inv",
    "erf_inv_p",
    "erf_p",
    "erfc",
    "erfc_p",
    "exp",
    "exp2",
    "exp2_p",
    "exp_p",
    "expm1",
    "expm1_p",
    "lgamma",
    "lgamma_p",
    "log",
    "log1p",
    "log1p_p",
    "log_p",
    "logistic",
    "logistic_p",
    "polygamma",
    "polygamma_p",
    "rsqrt",
    "rsqrt_p",
    "sin",
    "sin_p",
    "sinh",
    "sinh_p",
    "sqrt",
    "sqrt_p",
    "tan",
    "tan_p",
    "tanh",
    "tanh_p",
]
