"""Bitwise operations (logical ones on bool operands), shifts, bit counts and comparisons: the
elementwise primitives whose results are bits or booleans, so none has a nonzero derivative."""

from __future__ import annotations

import numpy as np

from spmd._src.lax.rules import defbroadcasting, defjvp_zero, defvectorized
from spmd._src.lax.utils import any_dtype, binop, bool_or_int, integer, unop

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
# High half of an integer product


def _mulhi_u64(a, b):
    # 64 x 64 -> high 64 bits from 32-bit halves (each partial product fits in 64 bits; the
    # middle sums are split so that no carry is lost).
    m = np.uint64(0xFFFFFFFF)
    s = np.uint64(32)
    a0, a1, b0, b1 = a & m, a >> s, b & m, b >> s
    t = a1 * b0 + ((a0 * b0) >> s)
    u = a0 * b1 + (t & m)
    return a1 * b1 + (t >> s) + (u >> s)


def _mulhi_impl(x, y):
    bits = x.dtype.itemsize * 8
    if bits < 64:
        # The full product fits in 64 bits: widen, multiply, shift (arithmetically if signed).
        wide = np.int64 if x.dtype.kind == "i" else np.uint64
        out = (x.astype(wide) * y.astype(wide)) >> wide(bits)
        return out.astype(x.dtype)
    with np.errstate(over="ignore"):
        hi = _mulhi_u64(x.view(np.uint64), y.view(np.uint64))
        if x.dtype.kind == "i":
            # Signed from unsigned: subtract the other operand for each negative one (mod 2**64).
            hi = hi - np.where(x < 0, y.view(np.uint64), np.uint64(0))
            hi = hi - np.where(y < 0, x.view(np.uint64), np.uint64(0))
    return hi.astype(np.uint64).view(x.dtype)


def mulhi(x, y, /):
    """Elementwise high half of the integer product ``x * y`` (the bits above the operands'
    width of the double-width product), for integer operands of one dtype.

    >>> lax.mulhi(jnp.uint32(0xFFFFFFFF), jnp.uint32(0xFFFFFFFF))
    Array(4294967294, dtype=uint32)
    """
    return mulhi_p.bind(x, y)


mulhi_p = binop("mulhi", _mulhi_impl, integer)
defbroadcasting(mulhi_p)
defjvp_zero(mulhi_p)


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


__all__ = [
    "and_p",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "clz",
    "clz_p",
    "eq",
    "eq_p",
    "ge",
    "ge_p",
    "gt",
    "gt_p",
    "le",
    "le_p",
    "lt",
    "lt_p",
    "mulhi",
    "mulhi_p",
    "ne",
    "ne_p",
    "not_p",
    "or_p",
    "population_count",
    "population_count_p",
    "shift_left",
    "shift_left_p",
    "shift_right_arithmetic",
    "shift_right_arithmetic_p",
    "shift_right_logical",
    "shift_right_logical_p",
    "xor_p",
]
