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

from spmd._src import core, dtypes
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad
from spmd._src.lax.rules import (
    defbroadcasting,
    defjvp,
    defjvp2,
    deflinear,
    defvectorized,
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


def _one(x):
    return core.make_concrete(np.ones((), x.dtype), False)


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


def floor(x):
    """Elementwise floor."""
    return floor_p.bind(x)


floor_p = unop("floor", np.floor, float_dtypes)


def ceil(x):
    """Elementwise ceiling."""
    return ceil_p.bind(x)


ceil_p = unop("ceil", np.ceil, float_dtypes)


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


def is_finite(x):
    """Elementwise test for finite values (not inf, not NaN)."""
    return is_finite_p.bind(x)


is_finite_p = standard_primitive(
    "is_finite",
    lambda x: x.shape,
    lambda x: (check_dtype_kind("is_finite", float_dtypes, x), np.dtype(bool))[1],
    np.isfinite,
)


def abs(x):
    """Elementwise absolute value (a real result for complex input)."""
    return abs_p.bind(x)


def _abs_dtype(x):
    check_dtype_kind("abs", numeric, x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return np.dtype(np.float64 if x.dtype == np.complex128 else np.float32)
    return x.dtype


abs_p = standard_primitive("abs", lambda x: x.shape, _abs_dtype, np.abs)


def square(x):
    """Elementwise square."""
    return square_p.bind(x)


square_p = unop("square", np.square, numeric)


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


def expm1(x):
    """Elementwise ``exp(x) - 1``."""
    return expm1_p.bind(x)


expm1_p = unop("expm1", np.expm1, inexact)


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


def asin(x):
    """Elementwise arc sine."""
    return asin_p.bind(x)


asin_p = unop("asin", np.arcsin, inexact)


def acos(x):
    """Elementwise arc cosine."""
    return acos_p.bind(x)


acos_p = unop("acos", np.arccos, inexact)


def atan(x):
    """Elementwise arc tangent."""
    return atan_p.bind(x)


atan_p = unop("atan", np.arctan, inexact)


def sinh(x):
    """Elementwise hyperbolic sine."""
    return sinh_p.bind(x)


sinh_p = unop("sinh", np.sinh, inexact)


def cosh(x):
    """Elementwise hyperbolic cosine."""
    return cosh_p.bind(x)


cosh_p = unop("cosh", np.cosh, inexact)


def asinh(x):
    """Elementwise inverse hyperbolic sine."""
    return asinh_p.bind(x)


asinh_p = unop("asinh", np.arcsinh, inexact)


def acosh(x):
    """Elementwise inverse hyperbolic cosine."""
    return acosh_p.bind(x)


acosh_p = unop("acosh", np.arccosh, inexact)


def atanh(x):
    """Elementwise inverse hyperbolic tangent."""
    return atanh_p.bind(x)


atanh_p = unop("atanh", np.arctanh, inexact)


def sqrt(x):
    """Elementwise square root."""
    return sqrt_p.bind(x)


sqrt_p = unop("sqrt", np.sqrt, inexact)


def rsqrt(x):
    """Elementwise reciprocal square root."""
    return rsqrt_p.bind(x)


def _rsqrt_impl(x):
    with np.errstate(all="ignore"):
        return (np.ones((), x.dtype) / np.sqrt(x)).astype(x.dtype)


rsqrt_p = unop("rsqrt", _rsqrt_impl, inexact)


def cbrt(x):
    """Elementwise cube root."""
    return cbrt_p.bind(x)


cbrt_p = unop("cbrt", np.cbrt, float_dtypes)


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


def erfc(x):
    """Elementwise complementary error function."""
    return erfc_p.bind(x)


erfc_p = unop("erfc", _vectorized_math(math.erfc), float_dtypes)


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


def lgamma(x):
    """Elementwise log of the absolute value of the gamma function."""
    return lgamma_p.bind(x)


def _lgamma_scalar(v: float) -> float:
    try:
        return math.lgamma(v)
    except ValueError:
        return math.inf


lgamma_p = unop("lgamma", _vectorized_math(_lgamma_scalar), float_dtypes)


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


def imag(x):
    """Imaginary part of a complex array."""
    return imag_p.bind(x)


imag_p = standard_primitive("imag", lambda x: x.shape, _complex_part_dtype("imag"), np.imag)


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


# ---------------------------------------------------------------------------------------------
# Binary arithmetic


def add(x, y):
    """Elementwise addition: ``x + y``."""
    return add_p.bind(x, y)


add_p = binop("add", np.add, numeric)
defbroadcasting(add_p)
deflinear(add_p, lambda ct, x, y: [_unbroadcast_ct(ct, x), _unbroadcast_ct(ct, y)])


def sub(x, y):
    """Elementwise subtraction: ``x - y``."""
    return sub_p.bind(x, y)


sub_p = binop("sub", np.subtract, numeric)
defbroadcasting(sub_p)
deflinear(sub_p, lambda ct, x, y: [_unbroadcast_ct(ct, x), _unbroadcast_ct(neg(ct), y)])


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


def max(x, y):
    """Elementwise maximum (NaN if either operand is NaN)."""
    return max_p.bind(x, y)


max_p = binop("max", np.maximum, any_dtype)


def min(x, y):
    """Elementwise minimum (NaN if either operand is NaN)."""
    return min_p.bind(x, y)


min_p = binop("min", np.minimum, any_dtype)


def atan2(x, y):
    """Elementwise arc tangent of ``x / y`` using the signs of both."""
    return atan2_p.bind(x, y)


atan2_p = binop("atan2", np.arctan2, float_dtypes)


def nextafter(x1, x2):
    """The next representable value after ``x1`` in the direction of ``x2``."""
    return nextafter_p.bind(x1, x2)


nextafter_p = binop("nextafter", np.nextafter, float_dtypes)


# ---------------------------------------------------------------------------------------------
# Bitwise and logical operations (logical on bool operands)


def bitwise_not(x):
    """Elementwise bitwise (or, on bools, logical) negation."""
    return not_p.bind(x)


not_p = unop("not", np.invert, bool_or_int)


def bitwise_and(x, y):
    """Elementwise bitwise (or logical) and."""
    return and_p.bind(x, y)


and_p = binop("and", np.bitwise_and, bool_or_int)


def bitwise_or(x, y):
    """Elementwise bitwise (or logical) or."""
    return or_p.bind(x, y)


or_p = binop("or", np.bitwise_or, bool_or_int)


def bitwise_xor(x, y):
    """Elementwise bitwise (or logical) exclusive or."""
    return xor_p.bind(x, y)


xor_p = binop("xor", np.bitwise_xor, bool_or_int)


def population_count(x):
    """Number of set bits of each element."""
    return population_count_p.bind(x)


def _popcount_impl(x):
    # np.bitwise_count counts the bits of |x| for signed ints; XLA counts the two's
    # complement bits, so count the unsigned view.
    return np.bitwise_count(x.view(np.dtype(f"u{x.dtype.itemsize}"))).astype(x.dtype)


population_count_p = unop("population_count", _popcount_impl, integer)


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


def shift_right_logical(x, y):
    """Elementwise logical right shift."""
    return shift_right_logical_p.bind(x, y)


shift_right_logical_p = binop("shift_right_logical", _shift_impl("logical"), integer)


def shift_right_arithmetic(x, y):
    """Elementwise arithmetic right shift (sign-filling)."""
    return shift_right_arithmetic_p.bind(x, y)


shift_right_arithmetic_p = binop("shift_right_arithmetic", _shift_impl("arith"), integer)


# ---------------------------------------------------------------------------------------------
# Comparisons


def eq(x, y):
    """Elementwise ``x == y``."""
    return eq_p.bind(x, y)


eq_p = binop("eq", np.equal, any_dtype, result_dtype=np.bool_)


def ne(x, y):
    """Elementwise ``x != y``."""
    return ne_p.bind(x, y)


ne_p = binop("ne", np.not_equal, any_dtype, result_dtype=np.bool_)


def lt(x, y):
    """Elementwise ``x < y``."""
    return lt_p.bind(x, y)


lt_p = binop("lt", np.less, any_dtype, result_dtype=np.bool_)


def le(x, y):
    """Elementwise ``x <= y``."""
    return le_p.bind(x, y)


le_p = binop("le", np.less_equal, any_dtype, result_dtype=np.bool_)


def gt(x, y):
    """Elementwise ``x > y``."""
    return gt_p.bind(x, y)


gt_p = binop("gt", np.greater, any_dtype, result_dtype=np.bool_)


def ge(x, y):
    """Elementwise ``x >= y``."""
    return ge_p.bind(x, y)


ge_p = binop("ge", np.greater_equal, any_dtype, result_dtype=np.bool_)


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


def _copy_impl(x):
    return np.array(x, copy=True)


copy_p = unop("copy", _copy_impl, any_dtype | frozenset({"other"}))


__all__ = [
    "bessel_i0e",
    "bessel_i0e_p",
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
    "sub_p",
    "tan",
    "tan_p",
    "tanh",
    "tanh_p",
    "xor_p",
]
