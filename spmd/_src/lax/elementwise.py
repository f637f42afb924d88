"""Elementwise primitives: arithmetic, transcendental functions, comparisons, bitwise
operations, selection and conversion.

Each primitive is one block: its public wrapper, then any rule of its own, then its
registration. Operands of n-ary primitives share one dtype (``jnp`` does the promotion) and
equal shapes, except that rank-0 operands and size-1 dimensions broadcast.

>>> from spmd import lax
>>> lax.add(jnp.arange(3), 1)
Array([1, 2, 3], dtype=int32)
"""

from __future__ import annotations

import enum
import math

import numpy as np

from spmd._src import core, dtypes, tree_util
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching
from spmd._src.lax.rules import (
    bdim_at_front,
    defbroadcasting,
    defjvp,
    defjvp2,
    defjvp_zero,
    deflinear,
    defvectorized,
    moveaxis,
    unbroadcast,
)
from spmd._src.lax.utils import (
    any_dtype,
    binop,
    bool_or_int,
    broadcasting_shape,
    check_dtype_kind,
    float_dtypes,
    float_or_int,
    inexact,
    integer,
    numeric,
    standard_primitive,
    unop,
)


def _shape():
    # Imported when a rule runs, so that shape.py may import this module at load time.
    from spmd._src.lax import shape

    return shape


def _dtype(x):
    return core.get_aval(x).dtype


def _const(x, value):
    """A strongly typed scalar of ``x``'s dtype (printed as a literal in jaxprs)."""
    return core.make_concrete(np.array(value, dtype=_dtype(x)), False)


def _one(x):
    return _const(x, 1)


def _full(x, value):
    """An array of ``x``'s shape, dtype and weak type filled with ``value``."""
    aval = core.get_aval(x)
    fill = core.make_concrete(np.array(value, dtype=aval.dtype), aval.weak_type)
    return _shape().broadcast_in_dim(fill, aval.shape, ())


def _zeros(x):
    return _full(x, 0)


def _bcast_like(g, out):
    """``g`` broadcast to the shape of ``out`` (tangent terms of broadcasting operations must
    all have the result's shape)."""
    shape = tuple(np.shape(out))
    gs = tuple(np.shape(g))
    if gs == shape:
        return g
    dims = () if not gs else tuple(range(len(shape)))
    return _shape().broadcast_in_dim(g, shape, dims)


def _unbroadcast_ct(ct, x):
    """The cotangent for operand ``x`` (a value or UndefinedPrimal) of a broadcasting op."""
    if ct is None or type(ct) is ad.Zero:
        return ct
    return unbroadcast(ct, x.aval if ad.is_undefined_primal(x) else core.get_aval(x))


# ---------------------------------------------------------------------------------------------
# Unary arithmetic


def neg(x):
    """Elementwise negation: ``-x``."""
    return neg_p.bind(x)


neg_p = unop("neg", np.negative, numeric)
defvectorized(neg_p)
deflinear(neg_p, lambda ct, x: [neg(ct)])


def sign(x):
    """Elementwise sign: -1, 0 or 1 (NaN for NaN; x/|x| for complex)."""
    return sign_p.bind(x)


def _sign_impl(x):
    if np.iscomplexobj(x):
        with np.errstate(all="ignore"):
            a = np.abs(x)
            return np.where(a == 0, 0, x / np.where(a == 0, 1, a)).astype(x.dtype)
    if x.dtype.kind == "u":
        return (x != 0).astype(x.dtype)
    return np.sign(x)


sign_p = unop("sign", _sign_impl, numeric)
defvectorized(sign_p)
defjvp_zero(sign_p)


def floor(x):
    """Elementwise floor."""
    return floor_p.bind(x)


floor_p = unop("floor", np.floor, float_dtypes)
defvectorized(floor_p)
defjvp_zero(floor_p)


def ceil(x):
    """Elementwise ceiling."""
    return ceil_p.bind(x)


ceil_p = unop("ceil", np.ceil, float_dtypes)
defvectorized(ceil_p)
defjvp_zero(ceil_p)


class RoundingMethod(enum.IntEnum):
    """How ``round`` breaks ties: away from zero (0) or to the nearest even value (1)."""

    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):
    """Elementwise rounding to the nearest integer; ``rounding_method`` breaks ties.

    >>> lax.round(jnp.array([0.5, 1.5, -0.5]))
    Array([ 1.,  2., -1.], dtype=float32)
    """
    return round_p.bind(x, rounding_method=int(RoundingMethod(rounding_method)))


def _round_impl(x, *, rounding_method):
    if rounding_method == RoundingMethod.TO_NEAREST_EVEN:
        return np.rint(x)
    # x - trunc(x) is exact, so comparing it with 1/2 decides ties without the rounding
    # error of floor(|x| + 0.5) (which sends 0.49999997 to 1).
    whole = np.trunc(x)
    frac = x - whole
    half = np.asarray(0.5, x.dtype)
    return np.where(np.abs(frac) >= half, whole + np.sign(x), whole).astype(x.dtype)


round_p = standard_primitive(
    "round",
    lambda x, **_: x.shape,
    lambda x, **_: (check_dtype_kind("round", float_dtypes, x), x.dtype)[1],
    _round_impl,
)
defvectorized(round_p)
defjvp_zero(round_p)


def is_finite(x):
    """Elementwise test for finite values (not inf, not NaN)."""
    return is_finite_p.bind(x)


is_finite_p = standard_primitive(
    "is_finite",
    lambda x: x.shape,
    lambda x: (check_dtype_kind("is_finite", float_dtypes, x), np.dtype(bool))[1],
    np.isfinite,
)
defvectorized(is_finite_p)
defjvp_zero(is_finite_p)


def abs(x):
    """Elementwise absolute value (a real result for complex input)."""
    return abs_p.bind(x)


def _abs_dtype(x):
    check_dtype_kind("abs", numeric, x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return np.dtype(np.float64 if x.dtype == np.complex128 else np.float32)
    return x.dtype


abs_p = standard_primitive("abs", lambda x: x.shape, _abs_dtype, np.abs)


def _abs_jvp(g, ans, x):
    if dtypes.issubdtype(_dtype(x), np.complexfloating):
        # d|x| = Re(conj(x) dx) / |x|, taking |x| = 1 where x = 0 (the slope there is 0).
        a = convert_element_type(ans, _dtype(x))
        safe = select_n(eq(a, _const(a, 0)), a, _full(a, 1))
        return real(mul(g, div(conj(x), safe)))
    # The slope at 0 (and -0.0) is 1, as in JAX.
    return select_n(ge(x, _const(x, 0)), neg(g), g)


defvectorized(abs_p)
defjvp2(abs_p, _abs_jvp)


def square(x):
    """Elementwise square."""
    return square_p.bind(x)


square_p = unop("square", np.square, numeric)
defvectorized(square_p)
defjvp(square_p, lambda g, x: mul(g, mul(_const(x, 2), x)))


def integer_pow(x, y: int):
    """Elementwise power with a static integer exponent: ``x ** y``."""
    return integer_pow_p.bind(x, y=int(y))


def _integer_pow_impl(x, *, y):
    with np.errstate(all="ignore"):
        if y >= 0:
            # Repeated squaring in the operand dtype, as XLA expands it (so ints wrap).
            acc = np.ones_like(x)
            base = x
            n = y
            while n:
                if n & 1:
                    acc = acc * base
                n >>= 1
                if n:
                    base = base * base
            return acc
        return (np.ones_like(x) / _integer_pow_impl(x, y=-y)).astype(x.dtype)


def _integer_pow_dtype(x, *, y):
    check_dtype_kind("integer_pow", numeric, x)
    if y < 0 and dtypes.issubdtype(x.dtype, np.integer):
        raise TypeError(f"integer_pow: negative exponent {y} is not supported for integer dtypes")
    return x.dtype


integer_pow_p = standard_primitive(
    "integer_pow", lambda x, **_: x.shape, _integer_pow_dtype, _integer_pow_impl
)


def _integer_pow_jvp(g, x, *, y):
    # y * x**(y-1); x**0 is constant (so its slope at x = 0 is 0, not 0 * inf).
    if y == 0:
        return None
    jac = _const(x, y) if y == 1 else mul(_const(x, y), integer_pow(x, y - 1))
    return mul(g, jac)


defvectorized(integer_pow_p)
defjvp(integer_pow_p, _integer_pow_jvp)


# ---------------------------------------------------------------------------------------------
# Transcendental functions (floating point only)


def exp(x):
    """Elementwise exponential."""
    return exp_p.bind(x)


exp_p = unop("exp", np.exp, inexact)
defvectorized(exp_p)
defjvp2(exp_p, lambda g, ans, x: mul(g, ans))


def exp2(x):
    """Elementwise base-2 exponential."""
    return exp2_p.bind(x)


exp2_p = unop("exp2", np.exp2, inexact)
defvectorized(exp2_p)
defjvp2(exp2_p, lambda g, ans, x: mul(log(_const(x, 2)), mul(g, ans)))


def log(x):
    """Elementwise natural logarithm."""
    return log_p.bind(x)


log_p = unop("log", np.log, inexact)
defvectorized(log_p)
defjvp(log_p, lambda g, x: div(g, x))


def log1p(x):
    """Elementwise ``log(1 + x)``."""
    return log1p_p.bind(x)


log1p_p = unop("log1p", np.log1p, inexact)
defvectorized(log1p_p)
defjvp(log1p_p, lambda g, x: div(g, add(x, _one(x))))


def expm1(x):
    """Elementwise ``exp(x) - 1``."""
    return expm1_p.bind(x)


expm1_p = unop("expm1", np.expm1, inexact)
defvectorized(expm1_p)
defjvp2(expm1_p, lambda g, ans, x: mul(g, add(ans, _one(ans))))


def tanh(x):
    """Elementwise hyperbolic tangent."""
    return tanh_p.bind(x)


tanh_p = unop("tanh", np.tanh, inexact)
defvectorized(tanh_p)
defjvp2(tanh_p, lambda g, ans, x: mul(g, sub(_one(x), mul(ans, ans))))


def logistic(x):
    """Elementwise logistic sigmoid ``1 / (1 + exp(-x))``."""
    return logistic_p.bind(x)


def _logistic_impl(x):
    with np.errstate(all="ignore"):
        one = np.ones((), x.dtype)
        return (one / (one + np.exp(-x))).astype(x.dtype)


logistic_p = unop("logistic", _logistic_impl, inexact)
defvectorized(logistic_p)
defjvp2(logistic_p, lambda g, ans, x: mul(g, mul(ans, sub(_one(ans), ans))))


def sin(x):
    """Elementwise sine."""
    return sin_p.bind(x)


sin_p = unop("sin", np.sin, inexact)
defvectorized(sin_p)
defjvp(sin_p, lambda g, x: mul(g, cos(x)))


def cos(x):
    """Elementwise cosine."""
    return cos_p.bind(x)


cos_p = unop("cos", np.cos, inexact)
defvectorized(cos_p)
defjvp(cos_p, lambda g, x: neg(mul(g, sin(x))))


def tan(x):
    """Elementwise tangent."""
    return tan_p.bind(x)


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
defjvp(asinh_p, lambda g, x: mul(g, rsqrt(add(square(x), _one(x)))))


def acosh(x):
    """Elementwise inverse hyperbolic cosine."""
    return acosh_p.bind(x)


acosh_p = unop("acosh", np.arccosh, inexact)
defvectorized(acosh_p)
defjvp(acosh_p, lambda g, x: mul(g, rsqrt(sub(square(x), _one(x)))))


def atanh(x):
    """Elementwise inverse hyperbolic tangent."""
    return atanh_p.bind(x)


atanh_p = unop("atanh", np.arctanh, inexact)
defvectorized(atanh_p)
defjvp(atanh_p, lambda g, x: mul(integer_pow(add(_one(x), x), -1), div(g, sub(_one(x), x))))


def sqrt(x):
    """Elementwise square root."""
    return sqrt_p.bind(x)


sqrt_p = unop("sqrt", np.sqrt, inexact)
defvectorized(sqrt_p)
defjvp2(sqrt_p, lambda g, ans, x: mul(g, div(_const(x, 0.5), ans)))


def rsqrt(x):
    """Elementwise reciprocal square root."""
    return rsqrt_p.bind(x)


def _rsqrt_impl(x):
    with np.errstate(all="ignore"):
        return (np.ones((), x.dtype) / np.sqrt(x)).astype(x.dtype)


rsqrt_p = unop("rsqrt", _rsqrt_impl, inexact)
defvectorized(rsqrt_p)
defjvp2(rsqrt_p, lambda g, ans, x: mul(g, mul(_const(x, -0.5), div(ans, x))))


def cbrt(x):
    """Elementwise cube root."""
    return cbrt_p.bind(x)


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
    if v <= 0 and v == math.floor(v):
        return math.nan
    result = 0.0
    if v < 0:
        # Reflection: psi(1 - x) - psi(x) = pi cot(pi x).
        return _digamma_scalar(1.0 - v) - math.pi / math.tan(math.pi * v)
    while v < 6.0:
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
    while a < max(10.0, float(s)):
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
        return math.nan
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


# ---------------------------------------------------------------------------------------------
# Complex parts


def real(x):
    """Real part of a complex array."""
    return real_p.bind(x)


def _complex_part_dtype(name):
    def rule(x):
        check_dtype_kind(name, frozenset({"complex"}), x)
        return np.dtype(np.float64 if x.dtype == np.complex128 else np.float32)

    return rule


real_p = standard_primitive("real", lambda x: x.shape, _complex_part_dtype("real"), np.real)
defvectorized(real_p)
deflinear(real_p, lambda ct, x: [complex(ct, _const(ct, 0))])


def imag(x):
    """Imaginary part of a complex array."""
    return imag_p.bind(x)


imag_p = standard_primitive("imag", lambda x: x.shape, _complex_part_dtype("imag"), np.imag)
defvectorized(imag_p)
deflinear(imag_p, lambda ct, x: [complex(_const(ct, 0), neg(ct))])


def conj(x):
    """Complex conjugate (of a real input: the input as complex)."""
    return conj_p.bind(x, input_dtype=np.dtype(x.dtype))


def _conj_dtype(x, *, input_dtype):
    check_dtype_kind("conj", inexact, x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return x.dtype
    return np.dtype(np.complex128 if x.dtype == np.float64 else np.complex64)


conj_p = standard_primitive(
    "conj",
    lambda x, *, input_dtype: x.shape,
    _conj_dtype,
    lambda x, *, input_dtype: np.conj(x).astype(
        x.dtype if x.dtype.kind == "c" else np.complex128 if x.dtype == np.float64 else np.complex64
    ),
)


def _conj_transpose(ct, x, *, input_dtype):
    # conj of a real input embeds it in the complex numbers; its transpose takes the real part.
    if dtypes.issubdtype(input_dtype, np.complexfloating):
        return [conj(ct)]
    return [real(ct)]


defvectorized(conj_p)
deflinear(conj_p, _conj_transpose)


def complex(x, y):
    """Build complex numbers from real and imaginary parts."""
    return complex_p.bind(x, y)


def _complex_dtype(x, y):
    check_dtype_kind("complex", float_dtypes, x, y)
    return np.dtype(np.complex128 if x.dtype == np.float64 else np.complex64)


complex_p = standard_primitive(
    "complex",
    lambda x, y: broadcasting_shape("complex", x.shape, y.shape),
    _complex_dtype,
    lambda x, y: x + 1j * y,
)
defbroadcasting(complex_p)
deflinear(
    complex_p, lambda ct, x, y: [_unbroadcast_ct(real(ct), x), _unbroadcast_ct(neg(imag(ct)), y)]
)


# ---------------------------------------------------------------------------------------------
# Binary arithmetic


def add(x, y):
    """Elementwise addition: ``x + y``."""
    return add_p.bind(x, y)


add_p = binop("add", np.add, numeric)


def _add_sub_jvp(negate_y):
    def rule(primals, tangents, primal_out):
        tx, ty = tangents
        # A constant operand adds nothing: pass the other tangent on (broadcast), instead of
        # adding a zero array.
        if type(ty) is ad.Zero:
            return _bcast_like(tx, primal_out)
        if type(tx) is ad.Zero:
            ty = _bcast_like(ty, primal_out)
            return neg(ty) if negate_y else ty
        return (sub if negate_y else add)(tx, ty)

    return rule


defbroadcasting(add_p)
deflinear(add_p, lambda ct, x, y: [_unbroadcast_ct(ct, x), _unbroadcast_ct(ct, y)])
ad.primitive_jvps[add_p] = _add_sub_jvp(False)


def sub(x, y):
    """Elementwise subtraction: ``x - y``."""
    return sub_p.bind(x, y)


sub_p = binop("sub", np.subtract, numeric)
defbroadcasting(sub_p)
deflinear(sub_p, lambda ct, x, y: [_unbroadcast_ct(ct, x), _unbroadcast_ct(neg(ct), y)])
ad.primitive_jvps[sub_p] = _add_sub_jvp(True)


def mul(x, y):
    """Elementwise multiplication: ``x * y``."""
    return mul_p.bind(x, y)


mul_p = binop("mul", np.multiply, numeric)
defbroadcasting(mul_p)
defjvp(mul_p, lambda g, x, y: mul(g, y), lambda g, x, y: mul(x, g))


def _mul_transpose(ct, x, y):
    # mul is linear in whichever operand is undefined (the other is a constant).
    if ad.is_undefined_primal(x):
        return [_unbroadcast_ct(mul(ct, y), x), None]
    return [None, _unbroadcast_ct(mul(x, ct), y)]


ad.primitive_transposes[mul_p] = _mul_transpose


def div(x, y):
    """Elementwise division; integer division rounds toward zero (C semantics).

    >>> lax.div(jnp.array([7, -7]), jnp.array([2, 2]))
    Array([ 3, -3], dtype=int32)
    """
    return div_p.bind(x, y)


def _div_impl(x, y):
    with np.errstate(all="ignore"):
        if x.dtype.kind in "iu":
            zero = y == 0
            ys = np.where(zero, 1, y).astype(y.dtype)
            q = np.floor_divide(x, ys)
            if x.dtype.kind == "i":
                # Floor division rounds down; XLA truncates toward zero.
                fix = (np.remainder(x, ys) != 0) & ((x < 0) != (ys < 0))
                q = np.where(fix, q + 1, q).astype(x.dtype)
            # Division by zero gives all bits set (-1 signed, max unsigned), as on XLA:CPU.
            return np.where(zero, np.array(-1).astype(x.dtype), q).astype(x.dtype)
        return np.true_divide(x, y).astype(x.dtype, copy=False)


div_p = binop("div", _div_impl, numeric)
defbroadcasting(div_p)
defjvp(
    div_p,
    lambda g, x, y: div(g, y),
    lambda g, x, y: mul(mul(neg(g), x), integer_pow(y, -2)),
)


def _div_transpose(ct, x, y):
    # Linear in the numerator only.
    if ad.is_undefined_primal(y):
        raise ValueError("div is not linear in its denominator: it cannot be transposed there")
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval), None]
    return [_unbroadcast_ct(div(ct, y), x), None]


ad.primitive_transposes[div_p] = _div_transpose


def rem(x, y):
    """Elementwise remainder with the sign of the dividend (C's ``fmod``)."""
    return rem_p.bind(x, y)


def _rem_impl(x, y):
    with np.errstate(all="ignore"):
        if x.dtype.kind in "iu":
            zero = y == 0
            r = np.fmod(x, np.where(zero, 1, y).astype(y.dtype))
            return np.where(zero, x, r).astype(x.dtype)
        return np.fmod(x, y).astype(x.dtype, copy=False)


rem_p = binop("rem", _rem_impl, float_or_int)
defbroadcasting(rem_p)
defjvp2(
    rem_p,
    lambda g, ans, x, y: _bcast_like(g, ans),
    # rem(x, y) = x - y * trunc(x / y), and trunc is locally constant.
    lambda g, ans, x, y: mul(neg(g), mul(sign(div(x, y)), floor(abs(div(x, y))))),
)


def pow(x, y):
    """Elementwise power ``x ** y`` (floating-point or complex base)."""
    return pow_p.bind(x, y)


def _pow_dtype(x, y):
    check_dtype_kind("pow", inexact, x)
    check_dtype_kind("pow", numeric, y)
    if not dtypes.issubdtype(y.dtype, np.integer) and y.dtype != x.dtype:
        raise TypeError(
            f"lax.pow requires the exponent to be an integer or to have the base's dtype "
            f"{x.dtype.name}, got {y.dtype.name}."
        )
    return x.dtype


def _pow_impl(x, y):
    with np.errstate(all="ignore"):
        return np.power(x, y.astype(x.dtype) if y.dtype != x.dtype else y).astype(x.dtype)


pow_p = standard_primitive(
    "pow", lambda x, y: broadcasting_shape("pow", x.shape, y.shape), _pow_dtype, _pow_impl
)


def _pow_jvp_base(g, ans, x, y):
    # d/dx x**y = y * x**(y-1).
    if dtypes.issubdtype(_dtype(y), np.integer):
        # An integer exponent of 0 makes x**y constant: slope 0, even at x = 0.
        shape = tuple(np.shape(ans))
        y = _bcast_like(y, ans)
        x = _bcast_like(x, ans)
        is_zero = eq(y, _const(y, 0))
        yf = convert_element_type(select_n(is_zero, y, _full(y, 1)), _dtype(x))
        jac = mul(yf, pow(x, sub(yf, _full(yf, 1))))
        jac = select_n(is_zero, jac, _shape().full(shape, 0, _dtype(x)))
    else:
        jac = mul(y, pow(x, sub(y, _full(y, 1))))
    return mul(g, jac)


def _pow_jvp_exponent(g, ans, x, y):
    # d/dy x**y = log(x) * x**y, with log(0) taken as 0 (so the slope at x = 0 is 0, not NaN).
    safe_x = select_n(eq(x, _const(x, 0)), x, _full(x, 1))
    return mul(g, mul(log(safe_x), ans))


defbroadcasting(pow_p)
defjvp2(pow_p, _pow_jvp_base, _pow_jvp_exponent)


def max(x, y):
    """Elementwise maximum (NaN if either operand is NaN)."""
    return max_p.bind(x, y)


max_p = binop("max", np.maximum, any_dtype)


def _balanced_eq(x, z, y):
    """Where ``x`` attains ``z``: 1, or 1/2 when ``y`` attains it too (ties split the slope
    evenly between the operands); 0 elsewhere."""
    # (Operations in JAX's order, so that jaxprs print alike.)
    at = eq(x, z)
    one, zero = _full(z, 1), _zeros(z)
    hit = select_n(at, zero, one)
    also = eq(y, z)
    two, one = _full(z, 2), _full(z, 1)
    return div(hit, select_n(also, one, two))


defbroadcasting(max_p)
defjvp2(
    max_p,
    lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
    lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)),
)


def min(x, y):
    """Elementwise minimum (NaN if either operand is NaN)."""
    return min_p.bind(x, y)


min_p = binop("min", np.minimum, any_dtype)
defbroadcasting(min_p)
defjvp2(
    min_p,
    lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
    lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)),
)


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


def nextafter(x1, x2):
    """The next representable value after ``x1`` in the direction of ``x2``."""
    return nextafter_p.bind(x1, x2)


nextafter_p = binop("nextafter", np.nextafter, float_dtypes)
defbroadcasting(nextafter_p)
# Piecewise constant (JAX itself has no rule and raises).
defjvp_zero(nextafter_p)


# ---------------------------------------------------------------------------------------------
# Bitwise and logical operations (logical on bool operands)


def bitwise_not(x):
    """Elementwise bitwise (or, on bools, logical) negation."""
    return not_p.bind(x)


not_p = unop("not", np.invert, bool_or_int)
defvectorized(not_p)
defjvp_zero(not_p)


def bitwise_and(x, y):
    """Elementwise bitwise (or logical) and."""
    return and_p.bind(x, y)


and_p = binop("and", np.bitwise_and, bool_or_int)
defbroadcasting(and_p)
defjvp_zero(and_p)


def bitwise_or(x, y):
    """Elementwise bitwise (or logical) or."""
    return or_p.bind(x, y)


or_p = binop("or", np.bitwise_or, bool_or_int)
defbroadcasting(or_p)
defjvp_zero(or_p)


def bitwise_xor(x, y):
    """Elementwise bitwise (or logical) exclusive or."""
    return xor_p.bind(x, y)


xor_p = binop("xor", np.bitwise_xor, bool_or_int)
defbroadcasting(xor_p)
defjvp_zero(xor_p)


def population_count(x):
    """Number of set bits of each element."""
    return population_count_p.bind(x)


def _popcount_impl(x):
    # np.bitwise_count counts the bits of |x| for signed ints; XLA counts the two's
    # complement bits, so count the unsigned view.
    return np.bitwise_count(x.view(np.dtype(f"u{x.dtype.itemsize}"))).astype(x.dtype)


population_count_p = unop("population_count", _popcount_impl, integer)
defvectorized(population_count_p)
defjvp_zero(population_count_p)


def clz(x):
    """Number of leading zero bits of each element."""
    return clz_p.bind(x)


def _clz_impl(x):
    bits = x.dtype.itemsize * 8
    u = x.view(np.dtype(f"u{x.dtype.itemsize}"))
    out = np.full(x.shape, bits, dtype=np.int64)
    v = u.astype(np.uint64)
    nz = v != 0
    # floor(log2(v)) via the bit length of each value.
    lengths = np.zeros(x.shape, dtype=np.int64)
    tmp = v.copy()
    for shift in (32, 16, 8, 4, 2, 1):
        big = tmp >= (np.uint64(1) << np.uint64(shift))
        lengths = np.where(big, lengths + shift, lengths)
        tmp = np.where(big, tmp >> np.uint64(shift), tmp)
    out = np.where(nz, bits - 1 - lengths, bits)
    return out.astype(x.dtype)


clz_p = unop("clz", _clz_impl, integer)
defvectorized(clz_p)
defjvp_zero(clz_p)


def _shift_impl(kind):
    def impl(x, y):
        bits = x.dtype.itemsize * 8
        udt = np.dtype(f"u{x.dtype.itemsize}")
        ys = y.astype(np.int64)
        out_of_range = (ys < 0) | (ys >= bits)
        s = np.where(out_of_range, 0, ys).astype(udt)
        if kind == "left":
            r = np.left_shift(x.view(udt) if x.dtype.kind == "i" else x, s).astype(udt)
            r = np.where(out_of_range, 0, r).astype(udt)
            return r.view(x.dtype) if x.dtype.kind == "i" else r.astype(x.dtype)
        if kind == "logical":
            r = np.right_shift(x.view(udt), s)
            r = np.where(out_of_range, 0, r).astype(udt)
            return r.view(x.dtype)
        # Arithmetic: out-of-range shifts fill with the sign bit.
        sdt = np.dtype(f"i{x.dtype.itemsize}")
        xs = x.view(sdt)
        r = np.right_shift(xs, np.where(out_of_range, bits - 1, ys).astype(sdt))
        return r.astype(sdt).view(x.dtype)

    return impl


def shift_left(x, y):
    """Elementwise left shift (shifts of the bit width or more give 0)."""
    return shift_left_p.bind(x, y)


shift_left_p = binop("shift_left", _shift_impl("left"), integer)
defbroadcasting(shift_left_p)
defjvp_zero(shift_left_p)


def shift_right_logical(x, y):
    """Elementwise logical right shift."""
    return shift_right_logical_p.bind(x, y)


shift_right_logical_p = binop("shift_right_logical", _shift_impl("logical"), integer)
defbroadcasting(shift_right_logical_p)
defjvp_zero(shift_right_logical_p)


def shift_right_arithmetic(x, y):
    """Elementwise arithmetic right shift (sign-filling)."""
    return shift_right_arithmetic_p.bind(x, y)


shift_right_arithmetic_p = binop("shift_right_arithmetic", _shift_impl("arith"), integer)
defbroadcasting(shift_right_arithmetic_p)
defjvp_zero(shift_right_arithmetic_p)


# ---------------------------------------------------------------------------------------------
# Comparisons


def eq(x, y):
    """Elementwise ``x == y``."""
    return eq_p.bind(x, y)


eq_p = binop("eq", np.equal, any_dtype, result_dtype=np.bool_)
defbroadcasting(eq_p)
defjvp_zero(eq_p)


def ne(x, y):
    """Elementwise ``x != y``."""
    return ne_p.bind(x, y)


ne_p = binop("ne", np.not_equal, any_dtype, result_dtype=np.bool_)
defbroadcasting(ne_p)
defjvp_zero(ne_p)


def lt(x, y):
    """Elementwise ``x < y``."""
    return lt_p.bind(x, y)


lt_p = binop("lt", np.less, any_dtype, result_dtype=np.bool_)
defbroadcasting(lt_p)
defjvp_zero(lt_p)


def le(x, y):
    """Elementwise ``x <= y``."""
    return le_p.bind(x, y)


le_p = binop("le", np.less_equal, any_dtype, result_dtype=np.bool_)
defbroadcasting(le_p)
defjvp_zero(le_p)


def gt(x, y):
    """Elementwise ``x > y``."""
    return gt_p.bind(x, y)


gt_p = binop("gt", np.greater, any_dtype, result_dtype=np.bool_)
defbroadcasting(gt_p)
defjvp_zero(gt_p)


def ge(x, y):
    """Elementwise ``x >= y``."""
    return ge_p.bind(x, y)


ge_p = binop("ge", np.greater_equal, any_dtype, result_dtype=np.bool_)
defbroadcasting(ge_p)
defjvp_zero(ge_p)


# ---------------------------------------------------------------------------------------------
# Selection


def select_n(which, *cases):
    """``cases[which]`` elementwise; ``which`` is bool (two cases) or int32.

    >>> lax.select_n(jnp.array([True, False]), jnp.array([1, 2]), jnp.array([3, 4]))
    Array([3, 2], dtype=int32)
    """
    if not cases:
        raise ValueError("select_n: at least one case is required")
    return select_n_p.bind(which, *cases)


def _select_n_shape(which, *cases):
    shape = cases[0].shape
    for c in cases[1:]:
        if c.shape != shape:
            raise TypeError(
                f"select_n: cases must have the same shape, got {[c.shape for c in cases]}."
            )
    if which.shape and which.shape != shape:
        raise TypeError(
            f"select_n: the predicate must be a scalar or have the cases' shape {shape}, got "
            f"{which.shape}."
        )
    return shape


def _select_n_dtype(which, *cases):
    if which.dtype != np.bool_ and which.dtype != np.int32:
        raise TypeError(f"select_n: the predicate must be bool or int32, got {which.dtype.name}.")
    if which.dtype == np.bool_ and len(cases) > 2:
        raise TypeError("select_n: a bool predicate selects between at most two cases.")
    dts = {c.dtype for c in cases}
    if len(dts) > 1:
        raise TypeError(
            f"select_n: cases must have the same dtype, got {[c.dtype.name for c in cases]}."
        )
    return cases[0].dtype


def _select_n_impl(which, *cases):
    if len(cases) == 1:
        return cases[0]
    if len(cases) == 2:
        return np.where(which, cases[1], cases[0])
    return np.choose(which, cases)


select_n_p = standard_primitive(
    "select_n",
    _select_n_shape,
    _select_n_dtype,
    _select_n_impl,
    weak_type_rule=lambda which, *cases: all(c.weak_type for c in cases),
)


def _select_n_vmap(axis_data, vals, dims):
    which, *cases = vals
    wd, *cds = dims
    d0 = next((d for d in cds if d is not None), None)
    case_nd = np.ndim(cases[0]) - (cds[0] is not None)
    which_nd = np.ndim(which) - (wd is not None)
    # Common case: the cases share one batch dimension, and the predicate is an unbatched
    # scalar or batched like them.
    if (
        d0 is not None
        and all(d == d0 for d in cds)
        and ((wd is None and which_nd == 0) or (wd == d0 and which_nd == case_nd))
    ):
        return select_n_p.bind(which, *cases), d0
    size = axis_data.size
    cases = [bdim_at_front(c, d, size) for c, d in zip(cases, cds)]
    full_shape = tuple(np.shape(cases[0]))
    if wd is not None or which_nd != 0:
        which = bdim_at_front(which, wd, size)
        if which_nd != case_nd:
            # A batched scalar predicate picks whole cases: expand it over the case's shape.
            which = _shape().broadcast_in_dim(which, full_shape, (0,))
    return select_n_p.bind(which, *cases), 0


def _select_n_jvp(primals, tangents, primal_out):
    # The predicate is piecewise constant: the tangent selects among the cases' tangents.
    which = primals[0]
    case_tangents = tangents[1:]
    if all(type(t) is ad.Zero for t in case_tangents):
        return ad.Zero(ad.tangent_aval(core.get_aval(primal_out)))
    return select_n_p.bind(which, *[ad.instantiate(t) for t in case_tangents])


def _select_n_transpose(ct, which, *cases):
    if ad.is_undefined_primal(which):
        raise ValueError("select_n is not linear in its predicate: it cannot be transposed there")
    if type(ct) is ad.Zero:
        return [None] + [ad.Zero(c.aval) if ad.is_undefined_primal(c) else None for c in cases]
    zeros = _zeros(ct)
    # Each linear case receives the cotangent where it was selected, zero elsewhere.
    return [None] + [
        select_n(which, *[ct if i == j else zeros for j in range(len(cases))])
        if ad.is_undefined_primal(c)
        else None
        for i, c in enumerate(cases)
    ]


batching.primitive_batchers[select_n_p] = _select_n_vmap
ad.primitive_jvps[select_n_p] = _select_n_jvp
ad.primitive_transposes[select_n_p] = _select_n_transpose


def select(pred, on_true, on_false):
    """``on_true`` where ``pred`` else ``on_false`` (``select_n(pred, on_false, on_true)``)."""
    return select_n_p.bind(pred, on_false, on_true)


def clamp(min, x, max):
    """Elementwise ``min(max(x, min), max)``; ``min`` and ``max`` may be scalars."""
    return clamp_p.bind(min, x, max)


def _clamp_shape(lo, x, hi):
    for name, b in (("min", lo), ("max", hi)):
        if b.shape and b.shape != x.shape:
            raise TypeError(
                f"clamp: {name} must be a scalar or have the operand's shape {x.shape}, got "
                f"{b.shape}."
            )
    return x.shape


def _clamp_dtype(lo, x, hi):
    if not (lo.dtype == x.dtype == hi.dtype):
        raise TypeError(
            f"clamp requires min, operand and max to have the same dtype, got "
            f"{lo.dtype.name}, {x.dtype.name}, {hi.dtype.name}."
        )
    return x.dtype


clamp_p = standard_primitive(
    "clamp",
    _clamp_shape,
    _clamp_dtype,
    lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi),
    weak_type_rule=lambda lo, x, hi: x.weak_type,
)


def _clamp_vmap(axis_data, vals, dims):
    (lo, x, hi), (ld, xd, hd) = vals, dims
    x_nd = np.ndim(x) - (xd is not None)
    # Common case: bounds are unbatched scalars or batched like the operand.
    if xd is not None and all(
        (d is None and np.ndim(b) == 0) or (d == xd and np.ndim(b) == np.ndim(x))
        for b, d in ((lo, ld), (hi, hd))
    ):
        return clamp_p.bind(lo, x, hi), xd
    size = axis_data.size
    x = bdim_at_front(x, xd, size)
    bounds = []
    for b, d in ((lo, ld), (hi, hd)):
        if d is not None or np.ndim(b) != 0:
            b = bdim_at_front(b, d, size)
            if np.ndim(b) != x_nd + 1:
                # A batched scalar bound: expand it over the operand's shape.
                b = _shape().broadcast_in_dim(b, tuple(np.shape(x)), (0,))
        bounds.append(b)
    return clamp_p.bind(bounds[0], x, bounds[1]), 0


defjvp(
    clamp_p,
    # The bound that is attained carries the slope (the operand keeps it only strictly inside).
    lambda g, lo, x, hi: select_n(bitwise_and(gt(lo, x), lt(lo, hi)), _zeros(x), _bcast_like(g, x)),
    lambda g, lo, x, hi: select_n(bitwise_and(gt(x, lo), lt(x, hi)), _zeros(x), g),
    lambda g, lo, x, hi: select_n(lt(hi, x), _zeros(x), _bcast_like(g, x)),
)
batching.primitive_batchers[clamp_p] = _clamp_vmap


# ---------------------------------------------------------------------------------------------
# Conversion


def convert_element_type(operand, new_dtype, *, weak_type: bool = False, sharding=None):
    """Convert to ``new_dtype`` (floats to ints truncate and saturate; NaN gives 0).

    >>> lax.convert_element_type(jnp.array([2.7, -1e10]), jnp.int32)
    Array([          2, -2147483648], dtype=int32)
    """
    new_dtype = dtypes.canonicalize_dtype(new_dtype)
    return convert_element_type_p.bind(
        operand, new_dtype=new_dtype, weak_type=bool(weak_type), sharding=sharding
    )


def _convert_impl(x, *, new_dtype, weak_type, sharding):
    if x.dtype == new_dtype:
        return x
    if new_dtype == np.bool_:
        return x != 0
    src_float = x.dtype.kind in "fc" or dtypes.issubdtype(x.dtype, np.floating)
    if src_float and new_dtype.kind in "iu":
        # XLA saturates out-of-range values and maps NaN to 0; NumPy leaves them undefined.
        info = np.iinfo(new_dtype)
        with np.errstate(all="ignore"):
            v = np.real(x).astype(np.float64) if x.dtype.kind == "c" else x.astype(np.float64)
            v = np.trunc(np.nan_to_num(v, nan=0.0, posinf=info.max, neginf=info.min))
            v = np.clip(v, info.min, info.max)
            return v.astype(new_dtype)
    with np.errstate(all="ignore"):
        if x.dtype.kind == "c" and new_dtype.kind != "c":
            return np.real(x).astype(new_dtype)
        return x.astype(new_dtype)


def _convert_abstract_eval(x, *, new_dtype, weak_type, sharding):
    return ShapedArray(x.shape, new_dtype, weak_type)


convert_element_type_p = core.Primitive("convert_element_type")
convert_element_type_p.def_impl(_convert_impl)
convert_element_type_p.def_abstract_eval(_convert_abstract_eval)
core.pp_param_rules[convert_element_type_p] = lambda p: [
    (k, v) for k, v in sorted(p.items()) if not (k == "sharding" and v is None)
]


def _convert_jvp(primals, tangents, primal_out, *, new_dtype, weak_type, sharding):
    (t,) = tangents
    out_aval = ad.tangent_aval(core.get_aval(primal_out))
    # Integer and bool results carry no tangent; nor do integer inputs.
    if type(t) is ad.Zero or out_aval.dtype == dtypes.float0 or _dtype(t) == dtypes.float0:
        return ad.Zero(out_aval)
    return convert_element_type_p.bind(
        t, new_dtype=np.dtype(new_dtype), weak_type=weak_type, sharding=sharding
    )


def _convert_transpose(ct, x, *, new_dtype, weak_type, sharding):
    aval = x.aval
    if type(ct) is ad.Zero or ad.tangent_dtype(aval.dtype) == dtypes.float0:
        return [ad.Zero(ad.tangent_aval(aval))]
    # Back to the operand's type (complex to real keeps the real part, as the forward
    # conversion from real to complex embeds it).
    return [
        convert_element_type_p.bind(
            ct, new_dtype=aval.dtype, weak_type=aval.weak_type, sharding=sharding
        )
    ]


defvectorized(convert_element_type_p)
ad.primitive_jvps[convert_element_type_p] = _convert_jvp
ad.primitive_transposes[convert_element_type_p] = _convert_transpose


def bitcast_convert_type(operand, new_dtype):
    """Reinterpret the bits of each element as ``new_dtype`` (a trailing dimension is added
    or removed when the widths differ)."""
    return bitcast_convert_type_p.bind(operand, new_dtype=dtypes.canonicalize_dtype(new_dtype))


def _bitcast_shape(x, *, new_dtype):
    a, b = x.dtype.itemsize, np.dtype(new_dtype).itemsize
    if a == b:
        return x.shape
    if a > b:
        return (*x.shape, a // b)
    if not x.shape or x.shape[-1] != b // a:
        raise TypeError(
            f"bitcast_convert_type: converting {x.dtype.name} to {np.dtype(new_dtype).name} "
            f"needs a last dimension of size {b // a}, got shape {x.shape}."
        )
    return x.shape[:-1]


def _bitcast_impl(x, *, new_dtype):
    a, b = x.dtype.itemsize, np.dtype(new_dtype).itemsize
    x = np.ascontiguousarray(x)
    if a >= b:
        return x.view(new_dtype).reshape(
            _bitcast_shape(ShapedArray(x.shape, x.dtype), new_dtype=new_dtype)
        )
    return x.view(new_dtype).reshape(x.shape[:-1])


bitcast_convert_type_p = standard_primitive(
    "bitcast_convert_type",
    _bitcast_shape,
    lambda x, *, new_dtype: np.dtype(new_dtype),
    _bitcast_impl,
    weak_type_rule=lambda x, **_: False,
)


def _bitcast_vmap(axis_data, vals, dims, *, new_dtype):
    (x,), (d,) = vals, dims
    # Narrow-to-wide conversion consumes the operand's last dimension: keep the batch
    # dimension out of it.
    if _dtype(x).itemsize < np.dtype(new_dtype).itemsize and d == np.ndim(x) - 1:
        x, d = moveaxis(x, d, 0), 0
    return bitcast_convert_type_p.bind(x, new_dtype=new_dtype), d


batching.primitive_batchers[bitcast_convert_type_p] = _bitcast_vmap
defjvp_zero(bitcast_convert_type_p)


def reduce_precision(operand, exponent_bits: int, mantissa_bits: int):
    """Round to the precision of a float type with the given exponent and mantissa bits."""
    return reduce_precision_p.bind(
        operand, exponent_bits=int(exponent_bits), mantissa_bits=int(mantissa_bits)
    )


def _reduce_precision_impl(x, *, exponent_bits, mantissa_bits):
    for dt in (np.float16, dtypes.bfloat16, np.float32, np.float64):
        fi = dtypes.finfo(dt)
        if fi.nmant == mantissa_bits and int(np.log2(fi.maxexp)) + 1 == exponent_bits:
            return x.astype(dt).astype(x.dtype)
    raise NotImplementedError(
        f"reduce_precision to {exponent_bits} exponent and {mantissa_bits} mantissa bits"
    )


reduce_precision_p = standard_primitive(
    "reduce_precision",
    lambda x, **_: x.shape,
    lambda x, **_: (check_dtype_kind("reduce_precision", float_dtypes, x), x.dtype)[1],
    _reduce_precision_impl,
)
defvectorized(reduce_precision_p)
deflinear(reduce_precision_p, lambda ct, x, **params: [reduce_precision_p.bind(ct, **params)])


def _copy_impl(x):
    return np.array(x, copy=True)


copy_p = unop("copy", _copy_impl, any_dtype | frozenset({"other"}))
defvectorized(copy_p)
deflinear(copy_p, lambda ct, x: [copy_p.bind(ct)])


# ---------------------------------------------------------------------------------------------
# stop_gradient


def stop_gradient(x):
    """The identity, as a constant to differentiation: its output has a zero derivative.
    Applies to every leaf of a pytree.

    >>> spmd.grad(lambda x: x * lax.stop_gradient(x))(3.0)
    Array(3., dtype=float32, weak_type=True)
    """
    return tree_util.tree_map(stop_gradient_p.bind, x)


stop_gradient_p = unop("stop_gradient", lambda x: x, any_dtype | frozenset({"other"}))
defvectorized(stop_gradient_p)
defjvp_zero(stop_gradient_p)


__all__ = [
    "bessel_i0e",
    "bessel_i0e_p",
    "bessel_i1e",
    "bessel_i1e_p",
    "RoundingMethod",
    "abs",
    "abs_p",
    "acos",
    "acos_p",
    "acosh",
    "acosh_p",
    "add",
    "add_p",
    "and_p",
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
    "bitcast_convert_type",
    "bitcast_convert_type_p",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "cbrt",
    "cbrt_p",
    "ceil",
    "ceil_p",
    "clamp",
    "clamp_p",
    "clz",
    "clz_p",
    "complex",
    "complex_p",
    "conj",
    "conj_p",
    "convert_element_type",
    "convert_element_type_p",
    "copy_p",
    "cos",
    "cos_p",
    "cosh",
    "cosh_p",
    "digamma",
    "digamma_p",
    "div",
    "div_p",
    "eq",
    "eq_p",
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
    "floor",
    "floor_p",
    "ge",
    "ge_p",
    "gt",
    "gt_p",
    "imag",
    "imag_p",
    "integer_pow",
    "integer_pow_p",
    "is_finite",
    "is_finite_p",
    "le",
    "le_p",
    "lgamma",
    "lgamma_p",
    "log",
    "log1p",
    "log1p_p",
    "log_p",
    "logistic",
    "logistic_p",
    "lt",
    "lt_p",
    "max",
    "max_p",
    "min",
    "min_p",
    "mul",
    "mul_p",
    "ne",
    "ne_p",
    "neg",
    "neg_p",
    "nextafter",
    "nextafter_p",
    "not_p",
    "or_p",
    "population_count",
    "population_count_p",
    "polygamma",
    "polygamma_p",
    "pow",
    "pow_p",
    "real",
    "real_p",
    "reduce_precision",
    "reduce_precision_p",
    "rem",
    "rem_p",
    "round",
    "round_p",
    "rsqrt",
    "rsqrt_p",
    "select",
    "select_n",
    "select_n_p",
    "shift_left",
    "shift_left_p",
    "shift_right_arithmetic",
    "shift_right_arithmetic_p",
    "shift_right_logical",
    "shift_right_logical_p",
    "sign",
    "sign_p",
    "sin",
    "sin_p",
    "sinh",
    "sinh_p",
    "sqrt",
    "sqrt_p",
    "square",
    "square_p",
    "sub",
    "stop_gradient",
    "stop_gradient_p",
    "sub_p",
    "tan",
    "tan_p",
    "tanh",
    "tanh_p",
    "xor_p",
]
