"""Elementwise ``spmd.numpy`` functions: promotion (JAX's lattice), rank promotion, then the
lax primitive.

>>> jnp.add(jnp.ones(3, jnp.float16), 1.0)
Array([2., 2., 2.], dtype=float16)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from spmd._src import dtypes
from spmd._src.api import jit
from spmd._src.array import Array
from spmd._src.custom_derivatives import custom_jvp
from spmd._src.lax import elementwise as lax
from spmd._src.lax import shape as lax_shape
from spmd._src.numpy.util import (
    _named_jit,
    check_arraylike,
    promote_args,
    promote_args_inexact,
    promote_args_numeric,
    promote_dtypes,
    promote_dtypes_inexact,
    promote_dtypes_numeric,
    promote_shapes,
    to_array,
)


def _one_to_one_unop(name: str, lax_fn: Callable, promote: str = "none") -> Callable:
    promoter = {
        "none": lambda x: promote_dtypes(x)[0],
        "inexact": lambda x: promote_dtypes_inexact(x)[0],
        "numeric": lambda x: promote_dtypes_numeric(x)[0],
    }[promote]

    def fn(x, /):
        check_arraylike(name, x)
        return lax_fn(promoter(x))

    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}``, as ``numpy.{name}`` (see ``lax.{lax_fn.__name__}``)."
    return fn


def _one_to_one_binop(name: str, lax_fn: Callable, promote: str = "none") -> Callable:
    promoter = {
        "none": promote_args,
        "inexact": promote_args_inexact,
        "numeric": promote_args_numeric,
    }[promote]

    def fn(x1, x2, /):
        return lax_fn(*promoter(name, x1, x2))

    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}``, as ``numpy.{name}`` (see ``lax.{lax_fn.__name__}``)."
    return fn


# --- unary --------------------------------------------------------------------------------------
negative = _one_to_one_unop("negative", lax.neg)
sign = _one_to_one_unop("sign", lax.sign)


def _int_identity(name: str, lax_fn: Callable) -> Callable:
    # floor/ceil of integers and bools are the values themselves (no float conversion).
    def fn(x, /):
        check_arraylike(name, x)
        (x,) = promote_dtypes(x)
        if not (dtypes.is_float(x.dtype) or dtypes.is_complex(x.dtype)):
            return x
        return lax_fn(x)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}``; integers and bools are returned unchanged."
    return fn


floor = _int_identity("floor", lax.floor)
ceil = _int_identity("ceil", lax.ceil)
exp = _one_to_one_unop("exp", lax.exp, "inexact")
exp2 = _one_to_one_unop("exp2", lax.exp2, "inexact")
log = _one_to_one_unop("log", lax.log, "inexact")
log1p = _one_to_one_unop("log1p", lax.log1p, "inexact")
expm1 = _one_to_one_unop("expm1", lax.expm1, "inexact")
tanh = _one_to_one_unop("tanh", lax.tanh, "inexact")
sin = _one_to_one_unop("sin", lax.sin, "inexact")
cos = _one_to_one_unop("cos", lax.cos, "inexact")
tan = _one_to_one_unop("tan", lax.tan, "inexact")
arcsin = _one_to_one_unop("arcsin", lax.asin, "inexact")
arccos = _one_to_one_unop("arccos", lax.acos, "inexact")
arctan = _one_to_one_unop("arctan", lax.atan, "inexact")
sinh = _one_to_one_unop("sinh", lax.sinh, "inexact")
cosh = _one_to_one_unop("cosh", lax.cosh, "inexact")
arcsinh = _one_to_one_unop("arcsinh", lax.asinh, "inexact")
# A jit in JAX 0.10 (it prints as `jit[name=arccosh]`), unlike the other unary ufuncs.
arccosh = _named_jit("arccosh", _one_to_one_unop("arccosh", lax.acosh, "inexact"))
arctanh = _one_to_one_unop("arctanh", lax.atanh, "inexact")
sqrt = _one_to_one_unop("sqrt", lax.sqrt, "inexact")
cbrt = _one_to_one_unop("cbrt", lax.cbrt, "inexact")
conjugate = _one_to_one_unop(
    "conjugate", lambda x: lax.conj(x) if dtypes.is_complex(x.dtype) else x
)
conj = conjugate
asin, acos, atan = arcsin, arccos, arctan
asinh, acosh, atanh = arcsinh, arccosh, arctanh


def positive(x, /):
    """Elementwise ``+x``."""
    check_arraylike("positive", x)
    return promote_dtypes_numeric(x)[0]


def absolute(x, /):
    """Elementwise absolute value."""
    check_arraylike("absolute", x)
    (x,) = promote_dtypes(x)
    if x.dtype == np.bool_ or dtypes.issubdtype(x.dtype, np.unsignedinteger):
        return x
    return lax.abs(x)


abs = absolute


def fabs(x, /):
    """Elementwise absolute value as floating point."""
    check_arraylike("fabs", x)
    return lax.abs(promote_dtypes_inexact(x)[0])


def square(x, /):
    """Elementwise ``x * x``."""
    check_arraylike("square", x)
    (x,) = promote_dtypes_numeric(x)
    # JAX 0.10 binds the `square` primitive here (`x ** 2` stays `integer_pow[y=2]`).
    return lax.square(x)


def reciprocal(x, /):
    """Elementwise ``1 / x``."""
    check_arraylike("reciprocal", x)
    (x,) = promote_dtypes_inexact(x)
    return lax.integer_pow(x, -1)


def rint(x, /):
    """Round to the nearest integer, ties to even."""
    check_arraylike("rint", x)
    (x,) = promote_dtypes_inexact(x)
    return lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)


def trunc(x, /):
    """Round toward zero."""
    check_arraylike("trunc", x)
    (x,) = promote_dtypes(x)
    if not dtypes.is_float(x.dtype):
        return x
    return _where_jit(lax.lt(x, lax.convert_element_type(0, x.dtype)), lax.ceil(x), lax.floor(x))


trunc = _named_jit("trunc", trunc)
fix = trunc


def round(a, decimals: int = 0, out=None):
    """Round to ``decimals`` places, ties to even (as NumPy)."""
    check_arraylike("round", a)
    (a,) = promote_dtypes(a)
    if dtypes.is_int(a.dtype) or a.dtype == np.bool_:
        if decimals < 0:
            raise NotImplementedError("integer np.round not implemented for decimals < 0")
        return a
    if decimals == 0:
        return lax.round(a, lax.RoundingMethod.TO_NEAREST_EVEN)
    factor = _const(a, 10.0**decimals)
    return lax.div(lax.round(lax.mul(a, factor), lax.RoundingMethod.TO_NEAREST_EVEN), factor)


# round, rint, isinf, signbit, remainder and fmod are jits in JAX 0.10, printed as
# `jit[name=...]`; around is a jit calling round's.
round = _named_jit("round", round, ("decimals", "out"))
rint = _named_jit("rint", rint)


def _around(a, decimals: int = 0, out=None):
    return round(a, decimals, out)


around = _named_jit("around", _around, ("decimals", "out"))


def _const(like, value):
    # Internal constants take the weak type of the value they combine with, so they do not
    # strengthen a weakly typed result.
    return Array(np.asarray(value, dtype=like.dtype), getattr(like, "weak_type", False))


def isfinite(x, /):
    """Elementwise test for finite values."""
    check_arraylike("isfinite", x)
    (x,) = promote_dtypes(x)
    if dtypes.is_float(x.dtype):
        return lax.is_finite(x)
    if dtypes.is_complex(x.dtype):
        return logical_and(lax.is_finite(lax.real(x)), lax.is_finite(lax.imag(x)))
    return full_like_bool(x, True)


def isinf(x, /):
    """Elementwise test for positive or negative infinity."""
    check_arraylike("isinf", x)
    (x,) = promote_dtypes(x)
    if dtypes.is_float(x.dtype):
        return lax.eq(lax.abs(x), _const(x, np.inf))
    if dtypes.is_complex(x.dtype):
        return logical_or(isinf(lax.real(x)), isinf(lax.imag(x)))
    return full_like_bool(x, False)


isinf = _named_jit("isinf", isinf)


def isnan(x, /):
    """Elementwise test for NaN."""
    check_arraylike("isnan", x)
    (x,) = promote_dtypes(x)
    if dtypes.is_float(x.dtype) or dtypes.is_complex(x.dtype):
        return lax.ne(x, x)
    return full_like_bool(x, False)


def isposinf(x, /):
    return logical_and(isinf(x), greater(x, 0))


def isneginf(x, /):
    return logical_and(isinf(x), less(x, 0))


def signbit(x, /):
    """Elementwise test of the sign bit (true for -0.0)."""
    check_arraylike("signbit", x)
    (x,) = promote_dtypes(x)
    if dtypes.is_int(x.dtype):
        return lax.lt(x, _const(x, 0))
    if x.dtype == np.bool_:
        return full_like_bool(x, False)
    # The sign bit shifted over the whole word, then compared with zero, as JAX computes it.
    bits = x.dtype.itemsize * 8
    itype = np.dtype(f"int{bits}")
    shifted = lax.shift_right_arithmetic(
        lax.bitcast_convert_type(x, itype), to_array(np.asarray(bits - 1, itype))
    )
    return lax.convert_element_type(shifted, np.bool_)


signbit = _named_jit("signbit", signbit)


def full_like_bool(x, value: bool):
    from spmd._src.lax.shape import full

    return full(np.shape(x), value, np.bool_)


def real(x, /):
    """Real part (the value itself for real input)."""
    check_arraylike("real", x)
    (x,) = promote_dtypes(x)
    return lax.real(x) if dtypes.is_complex(x.dtype) else x


def imag(x, /):
    """Imaginary part (zeros for real input)."""
    check_arraylike("imag", x)
    (x,) = promote_dtypes(x)
    if dtypes.is_complex(x.dtype):
        return lax.imag(x)
    return lax_shape.full_like(x, 0)  # weak for a weak x, as JAX's


def angle(z, deg: bool = False):
    """Angle of complex numbers (in radians unless ``deg``)."""
    check_arraylike("angle", z)
    (z,) = promote_dtypes_inexact(z)
    # A real z's imaginary part is a broadcast zero (imag's full_like), as JAX's.
    re, im = (lax.real(z), lax.imag(z)) if dtypes.is_complex(z.dtype) else (z, imag(z))
    out = lax.atan2(im, re)
    return lax.mul(out, _const(out, 180 / np.pi)) if deg else out


angle = _named_jit("angle", angle, ("deg",))


def logical_not(x, /):
    """Elementwise logical not."""
    check_arraylike("logical_not", x)
    return lax.bitwise_not(_to_bool(x))


def _to_bool(x):
    x = to_array(x)
    if x.dtype == np.bool_:
        return x
    return lax.ne(x, _const(x, 0))


def invert(x, /):
    """Elementwise bitwise not (logical not on bools)."""
    check_arraylike("invert", x)
    (x,) = promote_dtypes(x)
    if not (dtypes.is_int(x.dtype) or x.dtype == np.bool_):
        raise TypeError(f"invert is only defined on integer and boolean arrays, got {x.dtype.name}")
    return lax.bitwise_not(x)


bitwise_not = bitwise_invert = invert


# --- binary -------------------------------------------------------------------------------------
def _add_impl(x, y):
    return lax.bitwise_or(x, y) if x.dtype == np.bool_ else lax.add(x, y)


def _mul_impl(x, y):
    return lax.bitwise_and(x, y) if x.dtype == np.bool_ else lax.mul(x, y)


def _sub_impl(x, y):
    if x.dtype == np.bool_:
        raise TypeError(
            "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, "
            "the `^` operator, or the logical_xor function instead."
        )
    return lax.sub(x, y)


add = _one_to_one_binop("add", _add_impl)
multiply = _one_to_one_binop("multiply", _mul_impl)
subtract = _one_to_one_binop("subtract", _sub_impl)
maximum = _one_to_one_binop("maximum", lax.max)
minimum = _one_to_one_binop("minimum", lax.min)
equal = _one_to_one_binop("equal", lax.eq)
not_equal = _one_to_one_binop("not_equal", lax.ne)
less = _one_to_one_binop("less", lax.lt)
less_equal = _one_to_one_binop("less_equal", lax.le)
greater = _one_to_one_binop("greater", lax.gt)
greater_equal = _one_to_one_binop("greater_equal", lax.ge)
bitwise_and = _one_to_one_binop("bitwise_and", lax.bitwise_and)
bitwise_or = _one_to_one_binop("bitwise_or", lax.bitwise_or)
bitwise_xor = _one_to_one_binop("bitwise_xor", lax.bitwise_xor)
left_shift = _one_to_one_binop("left_shift", lax.shift_left)
bitwise_left_shift = left_shift
arctan2 = _one_to_one_binop("arctan2", lax.atan2, "inexact")
atan2 = arctan2
nextafter = _one_to_one_binop("nextafter", lax.nextafter, "inexact")


def right_shift(x1, x2, /):
    """Elementwise right shift (arithmetic for signed ints)."""
    x1, x2 = promote_args("right_shift", x1, x2)
    if dtypes.issubdtype(x1.dtype, np.unsignedinteger):
        return lax.shift_right_logical(x1, x2)
    return lax.shift_right_arithmetic(x1, x2)


bitwise_right_shift = right_shift


def logical_and(x1, x2, /):
    """Elementwise logical and."""
    x1, x2 = promote_shapes("logical_and", _to_bool(x1), _to_bool(x2))
    return lax.bitwise_and(x1, x2)


def logical_or(x1, x2, /):
    """Elementwise logical or."""
    x1, x2 = promote_shapes("logical_or", _to_bool(x1), _to_bool(x2))
    return lax.bitwise_or(x1, x2)


def logical_xor(x1, x2, /):
    """Elementwise logical exclusive or."""
    x1, x2 = promote_shapes("logical_xor", _to_bool(x1), _to_bool(x2))
    return lax.bitwise_xor(x1, x2)


def true_divide(x1, x2, /):
    """Elementwise ``x1 / x2`` (integers divide as floats)."""
    x1, x2 = promote_args_inexact("true_divide", x1, x2)
    return lax.div(x1, x2)


divide = true_divide


def floor_divide(x1, x2, /):
    """Elementwise ``x1 // x2``, rounding toward negative infinity."""
    x1, x2 = promote_args_numeric("floor_divide", x1, x2)
    dt = x1.dtype
    if dtypes.is_int(dt):
        if dtypes.issubdtype(dt, np.unsignedinteger):
            return lax.div(x1, x2)
        q = lax.div(x1, x2)
        # C division truncates; step down where the signs differ and it was inexact.
        fix = lax.bitwise_and(
            lax.ne(lax.sign(x1), lax.sign(x2)), lax.ne(lax.rem(x1, x2), _const(x1, 0))
        )
        return _where_jit(fix, lax.sub(q, _const(q, 1)), q)
    if dtypes.is_complex(dt):
        raise TypeError("floor_divide does not support complex-valued inputs")
    return _float_divmod(x1, x2)[0]


floor_divide = _named_jit("floor_divide", floor_divide)


def _float_divmod(x1, x2):
    mod = lax.rem(x1, x2)
    # x1 itself where x2 is 0, so that x // 0 is +-inf (NaN for 0 // 0), as JAX's.
    div = lax.div(_where_jit(lax.eq(x2, _const(x2, 0)), x1, lax.sub(x1, mod)), x2)
    zero = _const(mod, 0)
    ind = lax.bitwise_and(lax.ne(mod, zero), lax.ne(lax.sign(x2), lax.sign(mod)))
    mod = lax.select_n(ind, mod, lax.add(mod, x2))
    div = lax.select_n(ind, div, lax.sub(div, _const(div, 1)))
    return lax.round(div), mod


def remainder(x1, x2, /):
    """Elementwise remainder with the sign of the divisor (Python's ``%``)."""
    x1, x2 = promote_args_numeric("remainder", x1, x2)
    zero = _const(x1, 0)
    if dtypes.is_int(x2.dtype):
        # An integer divisor of zero divides by one instead (the remainder is then 0), as
        # in JAX.
        x2 = _where_jit(lax.eq(x2, _const(x2, 0)), _const(x2, 1), x2)
    trunc_mod = lax.rem(x1, x2)
    trunc_mod_not_zero = lax.ne(trunc_mod, zero)
    do_plus = lax.bitwise_and(lax.ne(lax.lt(trunc_mod, zero), lax.lt(x2, zero)), trunc_mod_not_zero)
    return lax.select_n(do_plus, trunc_mod, lax.add(trunc_mod, x2))


remainder = _named_jit("remainder", remainder)
mod = remainder


def fmod(x1, x2, /):
    """Elementwise remainder with the sign of the dividend (C's ``fmod``)."""
    x1, x2 = promote_args_numeric("fmod", x1, x2)
    return lax.rem(x1, x2)


fmod = _named_jit("fmod", fmod)


def divmod(x1, x2, /):
    """``(floor_divide(x1, x2), remainder(x1, x2))``."""
    return floor_divide(x1, x2), remainder(x1, x2)


def power(x1, x2, /):
    """Elementwise ``x1 ** x2``; a static integer exponent uses repeated multiplication."""
    check_arraylike("power", x1, x2)
    if isinstance(x2, int) and not isinstance(x2, bool):
        (x1,) = promote_dtypes_numeric(x1)
        if x2 >= 0 or not dtypes.is_int(x1.dtype):
            return lax.integer_pow(x1, x2)
    x1, x2 = promote_args_numeric("power", x1, x2)
    if dtypes.is_int(x1.dtype):
        return _integer_power(x1, x2)
    return lax.pow(x1, x2)


def _integer_power(x1, x2):
    # Square-and-multiply over the bits of a traced integer exponent (negative gives 0,
    # except for bases 1 and -1), as JAX does.
    from spmd._src.lax.shape import full

    shape = np.broadcast_shapes(np.shape(x1), np.shape(x2))
    acc = full(shape, 1, x1.dtype)
    base = x1
    e = x2
    one = _const(x2, 1)
    zero = _const(x2, 0)
    for _ in range(x1.dtype.itemsize * 8):
        bit = lax.ne(lax.bitwise_and(e, one), zero)
        acc = where_(bit, lax.mul(acc, base), acc)
        base = lax.mul(base, base)
        e = lax.shift_right_logical(e, one)
    return where_(lax.lt(x2, zero), where_(lax.eq(lax.abs(x1), _const(x1, 1)), acc, 0), acc)


pow = power


def float_power(x1, x2, /):
    """``x1 ** x2`` in floating point."""
    x1, x2 = promote_args_inexact("float_power", x1, x2)
    return lax.pow(x1, x2)


def _replace_posinf(x):
    # +inf -> 0: an infinite operand or result must not make the slope's inf - inf a NaN.
    return lax.select_n(lax.eq(x, _const(x, np.inf)), x, lax_shape.full_like(x, 0))


def _log_add_exp(name: str, exp: Callable, scale: float | None) -> Callable:
    """``log_b(b**x1 + b**x2)`` (``exp`` is b**x; ``scale`` is 1/ln(b), None for e) with JAX's
    custom JVP: the slope b**(x1 - out) is split evenly at x1 == x2 (lax.max's would go to one
    side) and stays finite at infinities (+inf is replaced by 0 first, as JAX does, so
    gradients agree at -inf and +inf too)."""

    def impl(x1, x2):
        amax = lax.max(x1, x2)
        delta = lax.sub(x1, x2)
        # Where delta is NaN (inf - inf, or a NaN operand), x1 + x2 is the answer.
        nan = lax.ne(delta, delta)
        both = lax.add(x1, x2)
        tail = lax.log1p(exp(lax.neg(lax.abs(delta))))
        if scale is not None:
            tail = lax.mul(_const(x1, scale), tail)
        return lax.select_n(nan, lax.add(amax, tail), both)

    impl.__name__ = name
    fn = custom_jvp(impl)

    def jvp(primals, tangents):
        (x1, x2), (t1, t2) = primals, tangents
        out = fn(x1, x2)
        slope1 = exp(lax.sub(_replace_posinf(x1), _replace_posinf(out)))
        slope2 = exp(lax.sub(_replace_posinf(x2), _replace_posinf(out)))
        return out, lax.add(lax.mul(t1, slope1), lax.mul(t2, slope2))

    jvp.__name__ = f"_{name}_jvp"  # the name jaxprs print, as JAX's
    fn.defjvp(jvp)
    return fn


_logaddexp = _log_add_exp("logaddexp", lax.exp, None)
_logaddexp2 = _log_add_exp("logaddexp2", lax.exp2, np.log2(np.e))


def logaddexp(x1, x2, /):
    """``log(exp(x1) + exp(x2))`` without overflow."""
    x1, x2 = promote_args_inexact("logaddexp", x1, x2)
    return _logaddexp(x1, x2)


def logaddexp2(x1, x2, /):
    """``log2(2**x1 + 2**x2)`` without overflow."""
    x1, x2 = promote_args_inexact("logaddexp2", x1, x2)
    return _logaddexp2(x1, x2)


def log2(x, /):
    """Base-2 logarithm."""
    (x,) = promote_dtypes_inexact(x)
    return lax.div(lax.log(x), _const(x, np.log(2)))


def log10(x, /):
    """Base-10 logarithm."""
    (x,) = promote_dtypes_inexact(x)
    return lax.div(lax.log(x), _const(x, np.log(10)))


def hypot(x1, x2, /):
    """``sqrt(x1**2 + x2**2)``, without overflow: the larger leg times
    ``sqrt(1 + (smaller / larger)**2)`` (so ``hypot(1e30, 1e30)`` is finite in float32)."""
    x1, x2 = promote_args_inexact("hypot", x1, x2)
    if dtypes.issubdtype(x1.dtype, np.complexfloating):
        raise ValueError(
            f"jnp.hypot is not defined for complex inputs (got {x1.dtype.name}): take abs() first."
        )
    a, b = lax.abs(x1), lax.abs(x2)
    inf = _const(a, np.inf)
    either_inf = lax.bitwise_or(lax.eq(a, inf), lax.eq(b, inf))
    big, small = lax.max(a, b), lax.min(a, b)
    # JAX's order of operations: the outer test, then the inner one and its ones.
    zero = lax.eq(big, _const(big, 0))
    safe = _where_jit(lax.eq(big, _const(big, 0)), lax_shape.full_like(big, 1), big)
    ratio = lax.div(small, safe)
    scaled = lax.mul(big, lax.sqrt(lax.add(_const(big, 1), lax.square(ratio))))
    out = _where_jit(zero, big, scaled)
    # inf beats NaN here, as in NumPy: hypot(inf, nan) is inf.
    return _where_jit(either_inf, inf, out)


hypot = _named_jit("hypot", hypot)


def deg2rad(x, /):
    (x,) = promote_dtypes_inexact(x)
    return lax.mul(x, _const(x, np.pi / 180))


def rad2deg(x, /):
    (x,) = promote_dtypes_inexact(x)
    return lax.mul(x, _const(x, 180 / np.pi))


radians, degrees = deg2rad, rad2deg


def copysign(x1, x2, /):
    x1, x2 = promote_args_inexact("copysign", x1, x2)
    return _where_jit(signbit(x2), lax.neg(lax.abs(x1)), lax.abs(x1))


copysign = _named_jit("copysign", copysign)


def fmax(x1, x2):
    """Elementwise maximum ignoring NaNs."""
    x1, x2 = promote_args("fmax", x1, x2)
    return _where_jit(lax.bitwise_or(lax.gt(x1, x2), isnan(x2)), x1, x2)


fmax = _named_jit("fmax", fmax)


def fmin(x1, x2):
    """Elementwise minimum ignoring NaNs."""
    x1, x2 = promote_args("fmin", x1, x2)
    return _where_jit(lax.bitwise_or(lax.lt(x1, x2), isnan(x2)), x1, x2)


fmin = _named_jit("fmin", fmin)


def heaviside(x1, x2, /):
    """0 for negative ``x1``, 1 for positive, ``x2`` at zero (and NaN for NaN ``x1``)."""
    x1, x2 = promote_args_inexact("heaviside", x1, x2)
    zero, one = _const(x1, 0), _const(x1, 1)
    return _where_jit(
        lax.lt(x1, zero),
        zero,
        _where_jit(lax.gt(x1, zero), one, _where_jit(isnan(x1), x1, x2)),
    )


heaviside = _named_jit("heaviside", heaviside)


def _sinc_maclaurin_impl(k, x):
    # The k-th derivative of sin(x)/x at 0, as a function of x (so that it has one).
    if k % 2:
        return lax.mul(x, _const(x, 0))
    return lax.add(lax.mul(x, _const(x, 0)), _const(x, (-1) ** (k // 2) / (k + 1)))


_sinc_maclaurin_impl.__name__ = "_sinc_maclaurin"  # the name jaxprs print, as JAX's
_sinc_maclaurin = custom_jvp(_sinc_maclaurin_impl, nondiff_argnums=(0,))


def _sinc_maclaurin_jvp(k, primals, tangents):
    (x,), (t,) = primals, tangents
    return _sinc_maclaurin(k, x), lax.mul(_sinc_maclaurin(k + 1, x), t)


_sinc_maclaurin.defjvp(_sinc_maclaurin_jvp)


def sinc(x, /):
    """``sin(pi x) / (pi x)``, 1 at 0 (with the Maclaurin series' derivatives there)."""
    check_arraylike("sinc", x)
    (x,) = promote_dtypes_inexact(x)
    eq_zero = lax.eq(x, _const(x, 0))
    pi_x = lax.mul(_const(x, np.pi), x)
    safe = _where_jit(eq_zero, _const(x, 1), pi_x)
    return _where_jit(eq_zero, _sinc_maclaurin(0, pi_x), lax.div(lax.sin(safe), safe))


sinc = _named_jit("sinc", sinc)


def where_(cond, x, y):
    """``where`` with all three arguments (the selection of ``spmd.numpy.where``)."""
    check_arraylike("where", cond, x, y)
    cond = _to_bool(cond)
    x, y = promote_dtypes(x, y)
    if np.ndim(cond) == 0:
        # select_n takes a scalar predicate as it is (JAX broadcasts only the cases then).
        x, y = _broadcast_all("where", x, y)
    else:
        cond, x, y = _broadcast_all("where", cond, x, y)
    return lax.select_n(cond, y, x)


def _where_body(condition, x, y):
    return where_(condition, x, y)


# jnp.where's three-argument form, a jit named _where as in JAX (other jnp functions call it).
_where_jit = _named_jit("_where", _where_body)


def _broadcast_all(name: str, *args: Any) -> list[Any]:
    from spmd._src.lax.shape import broadcast_in_dim

    shapes = [np.shape(a) for a in args]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(
            f"{name}: incompatible shapes for broadcasting: "
            + ", ".join(str(tuple(s)) for s in shapes)
        ) from None
    out = []
    for a, s in zip(args, shapes):
        if tuple(s) != shape:
            nd = len(s)
            a = broadcast_in_dim(a, shape, tuple(range(len(shape) - nd, len(shape))))
        out.append(a)
    return out


def _has_complex_dtype(x) -> bool:
    dt = getattr(x, "dtype", None)
    if dt is None:
        return isinstance(x, complex)
    return dtypes.issubdtype(dt, np.complexfloating)


# Jitted as in JAX 0.10, so that it prints as `jit[name=clip]`, its Python-scalar bounds
# arguments of the call (weak `0:i32[]`, converted inside).
@jit
def clip(arr=None, /, min=None, max=None):
    """Clip values to ``[min, max]`` (either bound may be None); where ``min > max`` the
    result is ``max``.

    >>> jnp.clip(jnp.arange(5), 1, 3)
    Array([1, 1, 2, 3, 3], dtype=int32)
    """
    if arr is None:
        raise ValueError("No input was provided to the clip function.")
    check_arraylike("clip", arr)
    if any(_has_complex_dtype(t) for t in (arr, min, max)):
        raise ValueError(
            "Clip received a complex value either through the input or the min/max keywords. "
            "Complex values have no ordering and cannot be clipped: take the real or imaginary "
            "part first (jnp.real / jnp.imag)."
        )
    if min is not None:
        arr = maximum(min, arr)
    if max is not None:
        arr = minimum(max, arr)
    return to_array(arr)


def spacing(x, /):
    """Distance from ``x`` to the nearest adjacent number of larger magnitude (for float16,
    toward +inf, as JAX's)."""
    check_arraylike("spacing", x)
    (x,) = promote_dtypes_inexact(x)
    if x.dtype == np.float16:
        return lax.sub(lax.nextafter(x, _const(x, np.inf)), x)
    out = lax.sub(lax.nextafter(x, copysign(_const(x, np.inf), x)), x)
    # Where nextafter flushes a subnormal step to zero, the smallest subnormal, signed.
    tiny = _const(x, dtypes.finfo(x.dtype).smallest_subnormal)
    return _where_jit(lax.eq(out, _const(out, 0)), copysign(tiny, x), out)


def nan_to_num(x, copy: bool = True, nan=0.0, posinf=None, neginf=None):
    """Replace NaN by ``nan`` and infinities by ``posinf``/``neginf`` (default: the dtype's
    largest and smallest finite values)."""
    check_arraylike("nan_to_num", x)
    (x,) = promote_dtypes(x)
    if not (dtypes.is_float(x.dtype) or dtypes.is_complex(x.dtype)):
        return x
    if dtypes.is_complex(x.dtype):
        # Each part through the jit again, the replacements as keyword operands, as JAX's.
        re = nan_to_num(lax.real(x), nan=nan, posinf=posinf, neginf=neginf)
        im = nan_to_num(lax.imag(x), nan=nan, posinf=posinf, neginf=neginf)
        return lax.complex(re, im)
    info = dtypes.finfo(x.dtype)
    cast = lambda v: lax.convert_element_type(v, x.dtype)  # noqa: E731
    out = _where_jit(isnan(x), cast(nan), x)
    out = _where_jit(
        lax.eq(out, _const(x, np.inf)), cast(info.max if posinf is None else posinf), out
    )
    return _where_jit(
        lax.eq(out, _const(x, -np.inf)), cast(info.min if neginf is None else neginf), out
    )


# A jit named nan_to_num: nan, posinf and neginf are operands (only copy is static), as JAX's.
nan_to_num = _named_jit("nan_to_num", nan_to_num, ("copy",))


def modf(x, /, out=None):
    """Fractional and integral parts, each with the sign of ``x``."""
    check_arraylike("modf", x)
    (x,) = promote_dtypes_inexact(x)
    whole = trunc(x)
    return lax.sub(x, whole), whole


def ldexp(x1, x2, /):
    """``x1 * 2**x2`` for an integer ``x2``."""
    check_arraylike("ldexp", x1, x2)
    dt1, dt2 = dtypes.dtype(x1, canonicalize=True), dtypes.dtype(x2, canonicalize=True)
    if not (dtypes.is_int(dt2) or dt2 == np.bool_):
        raise ValueError(f"ldexp not supported for input types {(dt1, dt2)}")
    (x1,) = promote_dtypes_inexact(x1)
    x2 = lax.convert_element_type(x2, x1.dtype)
    # JAX's steps: the mantissa and exponent of x1, the mantissa doubled where the exponent
    # is positive (so 2**e stays finite one step longer), x1 itself at 0 and infinities.
    m, e = frexp(x1)
    e = lax.add(lax.convert_element_type(e, x1.dtype), x2)
    m = _where_jit(lax.gt(e, _const(e, 0)), lax.mul(m, _const(m, 2)), m)
    e = _where_jit(lax.gt(e, _const(e, 0)), lax.sub(e, _const(e, 1)), e)
    out = lax.mul(m, lax.pow(_const(e, 2), e))
    special = lax.bitwise_or(isinf(x1), lax.eq(x1, _const(x1, 0)))
    return _where_jit(special, x1, out)


ldexp = _named_jit("ldexp", ldexp)


def _frexp_impl(x):
    info = dtypes.finfo(x.dtype)
    nmant, nbits = info.nmant, info.bits
    itype = np.dtype(f"int{nbits}")
    exp_bits = nbits - 1 - nmant
    bias = (1 << (exp_bits - 1)) - 1

    def iconst(v):
        return Array(np.asarray(v).astype(itype))

    # Subnormals are scaled into the normal range first (and their exponent lowered).
    is_sub = lax.lt(lax.abs(x), _const(x, info.smallest_normal))
    xs = _where_jit(is_sub, lax.mul(x, _const(x, 2.0**nmant)), x)
    shift = _where_jit(is_sub, iconst(-nmant), iconst(0))
    bits = lax.bitcast_convert_type(xs, itype)
    field = lax.bitwise_and(
        lax.shift_right_arithmetic(bits, iconst(nmant)), iconst((1 << exp_bits) - 1)
    )
    exponent = lax.add(shift, lax.add(lax.sub(field, iconst(bias)), iconst(1)))
    keep = iconst(~(((1 << exp_bits) - 1) << nmant))
    mant_bits = lax.bitwise_or(lax.bitwise_and(bits, keep), iconst((bias - 1) << nmant))
    mantissa = lax.bitcast_convert_type(mant_bits, x.dtype)
    special = lax.bitwise_or(lax.bitwise_or(isinf(x), isnan(x)), lax.eq(x, _const(x, 0)))
    exponent = _where_jit(special, lax_shape.full_like(exponent, 0), exponent)
    mantissa = _where_jit(special, x, mantissa)
    if exponent.dtype != np.int32:
        exponent = lax.convert_element_type(exponent, np.int32)
    return mantissa, exponent


_frexp_impl.__name__ = "_frexp"  # the name jaxprs print, as JAX's
_frexp = custom_jvp(_frexp_impl)


def _frexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    mantissa, exponent = _frexp(x)
    # d(mantissa) = dx * 2**-exponent; the integer exponent has no tangent.
    scale = lax.exp2(lax.neg(lax.convert_element_type(exponent, x.dtype)))
    return (mantissa, exponent), (lax.mul(t, scale), np.zeros(exponent.shape, dtypes.float0))


_frexp.defjvp(_frexp_jvp)


def frexp(x, /):
    """Mantissa in [0.5, 1) and integer exponent with ``x == mantissa * 2**exponent``."""
    check_arraylike("frexp", x)
    (x,) = promote_dtypes_inexact(x)
    if dtypes.is_complex(x.dtype):
        raise TypeError("frexp does not support complex-valued inputs")
    return _frexp(x)


frexp = _named_jit("frexp", frexp)


def _gcd_cond(xs):
    from spmd._src.numpy.reductions import any as any_

    return any_(lax.ne(xs[1], _const(xs[1], 0)))


def _gcd_body(xs):
    x1, x2 = xs
    nz = lax.ne(x2, _const(x2, 0))
    x1 = _where_jit(nz, x2, x1)
    x2 = _where_jit(lax.ne(x2, _const(x2, 0)), lax.rem(xs[0], x2), _const(x2, 0))
    # The larger first again (an elementwise swap).
    return _where_jit(lax.lt(x1, x2), x2, x1), _where_jit(lax.lt(x1, x2), x1, x2)


def gcd(x1, x2, /):
    """Greatest common divisor of integers (non-negative)."""
    from spmd._src.lax.control_flow.while_loop import while_loop

    x1, x2 = promote_args_numeric("gcd", x1, x2)
    if not dtypes.is_int(x1.dtype):
        raise ValueError("Arguments to jax.numpy.gcd must be integers.")
    x1, x2 = _broadcast_all("gcd", x1, x2)
    # Euclid's algorithm in a while loop until every divisor is zero, as JAX's.
    return while_loop(_gcd_cond, _gcd_body, (lax.abs(x1), lax.abs(x2)))[0]


gcd = _named_jit("gcd", gcd)


def lcm(x1, x2, /):
    """Least common multiple of integers (non-negative)."""
    x1, x2 = promote_args_numeric("lcm", x1, x2)
    if not dtypes.is_int(x1.dtype):
        raise ValueError("Arguments to jax.numpy.lcm must be integers.")
    x1, x2 = lax.abs(x1), lax.abs(x2)
    d = gcd(x1, x2)
    zero = _const(d, 0)
    return _where_jit(lax.eq(d, zero), zero, lax.mul(x1, floor_divide(x2, d)))


lcm = _named_jit("lcm", lcm)


def _i0_impl(x):
    ax = lax.abs(x)
    return lax.mul(lax.exp(ax), lax.bessel_i0e(ax))


_i0_impl.__name__ = "_i0"  # the name jaxprs print, as JAX's
_i0 = custom_jvp(_i0_impl)


def _i0_jvp(primals, tangents):
    from spmd._src.autodiff import jvp

    (x,) = primals
    out, t_out = jvp(_i0_impl, primals, tangents)
    # abs has no slope at zero: the tangent there is zero (i0 is flat), as JAX's.
    return out, _where_jit(lax.eq(x, _const(x, 0)), 0, t_out)


_i0.defjvp(_i0_jvp)


def i0(x):
    """Modified Bessel function of the first kind, order 0."""
    check_arraylike("i0", x)
    (x,) = promote_dtypes_inexact(x)
    return _i0(x)


i0 = _named_jit("i0", i0)


__all__ = [
    "abs",
    "absolute",
    "acos",
    "acosh",
    "add",
    "angle",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "around",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "bitwise_and",
    "bitwise_invert",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "cbrt",
    "ceil",
    "clip",
    "conj",
    "conjugate",
    "copysign",
    "cos",
    "cosh",
    "deg2rad",
    "degrees",
    "divide",
    "divmod",
    "equal",
    "exp",
    "exp2",
    "expm1",
    "fabs",
    "fix",
    "float_power",
    "floor",
    "floor_divide",
    "fmax",
    "fmin",
    "fmod",
    "frexp",
    "gcd",
    "greater",
    "greater_equal",
    "heaviside",
    "hypot",
    "i0",
    "imag",
    "invert",
    "isfinite",
    "isinf",
    "isnan",
    "isneginf",
    "isposinf",
    "lcm",
    "ldexp",
    "left_shift",
    "less",
    "less_equal",
    "log",
    "log10",
    "log1p",
    "log2",
    "logaddexp",
    "logaddexp2",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "maximum",
    "minimum",
    "mod",
    "modf",
    "multiply",
    "nan_to_num",
    "negative",
    "nextafter",
    "not_equal",
    "positive",
    "pow",
    "power",
    "rad2deg",
    "radians",
    "real",
    "reciprocal",
    "remainder",
    "right_shift",
    "rint",
    "round",
    "sign",
    "signbit",
    "sin",
    "sinc",
    "sinh",
    "spacing",
    "sqrt",
    "square",
    "subtract",
    "tan",
    "tanh",
    "true_divide",
    "trunc",
]
