"""Arithmetic primitives: negation, sign, rounding, absolute value, powers, the four operations,
remainder, max/min, and the parts of complex numbers.

>>> from spmd import lax
>>> lax.add(jnp.arange(3), 1)
Array([1, 2, 3], dtype=int32)
"""

from __future__ import annotations

import enum

import numpy as np

from spmd._src import core, dtypes
from spmd._src.interpreters import ad
from spmd._src.lax.elementwise.bitwise import eq, ge
from spmd._src.lax.elementwise.common import (
    _bcast_like,
    _const,
    _dtype,
    _full,
    _shape,
    _unbroadcast_ct,
    _zeros,
)
from spmd._src.lax.elementwise.conversion import convert_element_type
from spmd._src.lax.elementwise.selection import select_n
from spmd._src.lax.rules import (
    defbroadcasting,
    defjvp,
    defjvp2,
    defjvp_zero,
    deflinear,
    defvectorized,
)
from spmd._src.lax.utils import (
    any_dtype,
    binop,
    broadcasting_shape,
    check_dtype_kind,
    float_dtypes,
    float_or_int,
    inexact,
    numeric,
    scalar_as_row,
    standard_primitive,
    unop,
)

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
    # The exponent enters as a constant like the operand (weak if it is), as JAX builds it,
    # so the gradient of a Python scalar stays weak.
    if y == 1:
        return g
    c = core.make_concrete(np.array(y, dtype=x.dtype), core.get_aval(x).weak_type)
    # x**1 is x itself (no equation for it, as in JAX's jaxprs).
    jac = mul(c, x if y == 2 else integer_pow(x, y - 1))
    return mul(g, jac)


defvectorized(integer_pow_p)
defjvp(integer_pow_p, _integer_pow_jvp)


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
    # transcendental imports this module, so log is looked up when the rule runs.
    from spmd._src.lax.elementwise.transcendental import log

    # d/dy x**y = log(x) * x**y, with log(0) taken as 0 (so the slope at x = 0 is 0, not NaN).
    safe_x = select_n(eq(x, _const(x, 0)), x, _full(x, 1))
    return mul(g, mul(log(safe_x), ans))


defbroadcasting(pow_p)
defjvp2(pow_p, _pow_jvp_base, _pow_jvp_exponent)


def max(x, y):
    """Elementwise maximum (NaN if either operand is NaN)."""
    return max_p.bind(x, y)


max_p = binop("max", np.maximum, any_dtype)
max_p.typed_impl = scalar_as_row(np.maximum)  # ReLU's max(x, 0.0)


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
min_p.typed_impl = scalar_as_row(np.minimum)
defbroadcasting(min_p)
defjvp2(
    min_p,
    lambda g, ans, x, y: mul(g, _balanced_eq(x, ans, y)),
    lambda g, ans, x, y: mul(g, _balanced_eq(y, ans, x)),
)


def nextafter(x1, x2):
    """The next representable value after ``x1`` in the direction of ``x2``."""
    return nextafter_p.bind(x1, x2)


nextafter_p = binop("nextafter", np.nextafter, float_dtypes)
defbroadcasting(nextafter_p)
# Piecewise constant (JAX itself has no rule and raises).
defjvp_zero(nextafter_p)


__all__ = [
    "RoundingMethod",
    "abs",
    "abs_p",
    "add",
    "add_p",
    "ceil",
    "ceil_p",
    "complex",
    "complex_p",
    "conj",
    "conj_p",
    "div",
    "div_p",
    "floor",
    "floor_p",
    "imag",
    "imag_p",
    "integer_pow",
    "integer_pow_p",
    "is_finite",
    "is_finite_p",
    "max",
    "max_p",
    "min",
    "min_p",
    "mul",
    "mul_p",
    "neg",
    "neg_p",
    "nextafter",
    "nextafter_p",
    "pow",
    "pow_p",
    "real",
    "real_p",
    "rem",
    "rem_p",
    "round",
    "round_p",
    "sign",
    "sign_p",
    "square",
    "square_p",
    "sub",
    "sub_p",
]
