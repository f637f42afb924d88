"""The primitive sweep's registry: for each primitive name, calls of it over shapes and dtypes
with a NumPy reference (used by ``tests/test_primitive_sweep.py``).

A ``Config`` is one call: ``fn(*args)`` must bind the primitive once (through its lax wrapper),
``ref(*args)`` computes the expected value with NumPy. Floating-point arguments reach ``ref``
as float64 (unless ``native``), so the reference is computed more precisely than the result
and then rounded to ``out_dtype``. ``tol=None`` means the result must be exact (the operations
are correctly rounded, or the inputs are chosen so the result is representable: sums over
multiples of 1/4, products of powers of two).

``REJECTS`` lists calls that must raise ``TypeError`` (dtypes the primitive does not accept).
"""

from __future__ import annotations

import dataclasses
import math
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import ml_dtypes
import numpy as np

import spmd
from spmd import lax
from spmd._src import dispatch
from spmd._src.lax import rules as _rules
from spmd._src.lax import special as _lax_special

bf16 = ml_dtypes.bfloat16

SHAPES = [(), (5,), (2, 3), (2, 3, 4)]
FLOATS = ["float32", "float16", "bfloat16"]
INTS = ["int32", "int8", "uint8"]
BOOL = ["bool"]
NUMERIC = FLOATS + INTS
ALL = NUMERIC + BOOL

TRANS = {"float32": 2e-6, "float16": 2e-3, "bfloat16": 2e-2}
LOOSE = {"float32": 2e-5, "float16": 1e-2, "bfloat16": 5e-2}


@dataclasses.dataclass
class Config:
    label: str
    fn: Callable
    args: tuple
    ref: Callable
    out_dtype: Any = None  # a dtype name, or a list of names for multiple results
    tol: dict | None = None
    native: bool = False


ENTRIES: dict[str, list[Config]] = {}

# Primitives without sweep calls yet: name -> reason. The rule sweep (test_sweep_rules.py)
# has nothing to drive them with either. An entry whose primitive gains calls must go.
KNOWN_UNSWEPT: dict[str, str] = {
    "sharding_constraint": "the identity on values; its effect (a sharding) is tested in "
    "tests/test_sharding.py",
    "device_put": "the identity on values; its effect (a memory space in the type, a "
    "placement) is tested in tests/test_memory_spaces.py",
    "debug_callback": "effectful, with no outputs to compare; tested in tests/test_debugging.py",
    "debug_print": "debug.print's debug_callback under JAX's name (the same rules); tested in "
    "tests/test_debug_print.py",
    "reshard": "sharding_constraint under JAX's name for reshard (the same rules); tested in "
    "tests/test_sharding_in_types.py",
    "inspect_sharding": "no outputs, computes nothing: its callback hears a sharding; tested in "
    "tests/test_inspect_sharding.py",
    "pure_callback": "runs a user's Python function (its vmap rule needs a vmap_method, its jvp "
    "raises, as in JAX); tested in tests/test_api_more.py",
    "io_callback": "runs a user's Python function for its effects (kept by dead-code elimination, "
    "sequential under vmap, its jvp raises, as in JAX); tested in tests/test_api_more2.py",
}

REJECTS: dict[str, list[tuple[str, Callable, tuple]]] = {}


def add(name: str, *configs: Config) -> None:
    ENTRIES.setdefault(name, []).extend(configs)


def reject(name: str, fn: Callable, *dtype_names: str, shape=(3,), nargs: int = 1) -> None:
    for dt in dtype_names:
        args = tuple(gen(dt, shape, seed=f"reject{name}{dt}{i}") for i in range(nargs))
        REJECTS.setdefault(name, []).append((dt, fn, args))


# ---------------------------------------------------------------------------------------------
# Inputs


def _rng(seed: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(seed.encode()))


def gen(dtype: str, shape: Sequence[int], domain: Any = None, seed: str = "") -> np.ndarray:
    """Deterministic values of ``dtype``. Float domains: ``(lo, hi)`` (uniform), ``"grid"``
    (multiples of 1/4 in [-2, 2]: sums stay exact), ``"pow2"`` (signed powers of two: products
    stay exact). Integer domains: ``(lo, hi)`` clipped to the dtype, ``"nonzero"``."""
    rng = _rng(f"{seed}{dtype}{tuple(shape)}{domain}")
    shape = tuple(shape)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("complex"):
        re, im = rng.uniform(-2, 2, shape), rng.uniform(-2, 2, shape)
        return (re + 1j * im).astype(dtype)
    dt = np.dtype(bf16) if dtype == "bfloat16" else np.dtype(dtype)
    if dt.kind == "f" or dtype == "bfloat16":
        if domain == "grid":
            v = rng.integers(-8, 9, shape) / 4
        elif domain == "pow2":
            v = rng.choice([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], shape)
        else:
            lo, hi = domain or (-3.0, 3.0)
            v = rng.uniform(lo, hi, shape)
        return np.asarray(v).astype(dt)
    info = np.iinfo(dt)
    if domain == "nonzero":
        lo, hi = (1, 50) if info.min == 0 else (-50, 50)
        v = rng.integers(lo, hi + 1, shape)
        v = np.where(v == 0, 1, v)
    else:
        lo, hi = domain or ((0, 200) if info.min == 0 else (-100, 100))
        lo, hi = max(lo, int(info.min)), min(hi, int(info.max))
        v = rng.integers(lo, hi + 1, shape)
    return np.asarray(v).astype(dt)


def _is_float(dtype_name: str) -> bool:
    return dtype_name in ("float32", "float16", "bfloat16", "float64")


# Domains by dtype: exact float sums (grid) and products (pow2); small ints.
_GRID = lambda dt: "grid" if _is_float(dt) else None  # noqa: E731
_POW2 = lambda dt: "pow2" if _is_float(dt) else (-3, 3)  # noqa: E731


def _vec(f: Callable) -> Callable:
    """Elementwise float64 reference from a scalar function."""
    return lambda x: np.vectorize(f, otypes=[np.float64])(x)


# ---------------------------------------------------------------------------------------------
# Builders


def unary(
    name: str,
    fn: Callable,
    ref: Callable,
    dtypes: Sequence[str],
    domain: Any = None,
    tol: dict | None = None,
    out: Callable[[str], str] | None = None,
    shapes: Sequence[tuple] = SHAPES,
    native: bool = False,
    extra: Sequence[np.ndarray] = (),
    tag: str = "",
) -> None:
    for dt in dtypes:
        dom = domain(dt) if callable(domain) else domain
        inputs = [gen(dt, s, dom, seed=name) for s in shapes]
        inputs += [np.asarray(e).astype(gen(dt, ()).dtype) for e in extra]
        for x in inputs:
            add(
                name,
                Config(f"{tag}{dt}{x.shape}", fn, (x,), ref, out(dt) if out else dt, tol, native),
            )


def binary(
    name: str,
    fn: Callable,
    ref: Callable,
    dtypes: Sequence[str],
    domain: Any = None,
    domain2: Any = None,
    tol: dict | None = None,
    out: Callable[[str], str] | None = None,
    native: bool = False,
) -> None:
    for dt in dtypes:
        d1 = domain(dt) if callable(domain) else domain
        d2 = domain2(dt) if callable(domain2) else (domain2 if domain2 is not None else d1)
        for s in SHAPES:
            x, y = gen(dt, s, d1, seed=name + "x"), gen(dt, s, d2, seed=name + "y")
            add(name, Config(f"{dt}{s}", fn, (x, y), ref, out(dt) if out else dt, tol, native))
        # A rank-0 operand broadcasts against any shape.
        x, y = gen(dt, (2, 3), d1, seed=name + "bx"), gen(dt, (), d2, seed=name + "by")
        add(name, Config(f"{dt}(2,3)+()", fn, (x, y), ref, out(dt) if out else dt, tol, native))


def _bool_out(dt: str) -> str:
    return "bool"


# ---------------------------------------------------------------------------------------------
# Elementwise: unary

_POS = (0.1, 3.0)
_UNIT = (-0.95, 0.95)

for _name, _fn, _ref, _dom, _tol in [
    ("exp", lax.exp, np.exp, None, TRANS),
    ("exp2", lax.exp2, np.exp2, None, TRANS),
    ("log", lax.log, np.log, _POS, TRANS),
    ("log1p", lax.log1p, np.log1p, (-0.9, 3.0), TRANS),
    ("expm1", lax.expm1, np.expm1, None, TRANS),
    ("tanh", lax.tanh, np.tanh, None, TRANS),
    ("logistic", lax.logistic, lambda x: 1 / (1 + np.exp(-x)), None, TRANS),
    ("sin", lax.sin, np.sin, None, TRANS),
    ("cos", lax.cos, np.cos, None, TRANS),
    ("tan", lax.tan, np.tan, (-1.2, 1.2), TRANS),
    ("asin", lax.asin, np.arcsin, _UNIT, TRANS),
    ("acos", lax.acos, np.arccos, _UNIT, TRANS),
    ("atan", lax.atan, np.arctan, None, TRANS),
    ("sinh", lax.sinh, np.sinh, None, TRANS),
    ("cosh", lax.cosh, np.cosh, None, TRANS),
    ("asinh", lax.asinh, np.arcsinh, None, TRANS),
    ("acosh", lax.acosh, np.arccosh, (1.0, 4.0), TRANS),
    ("atanh", lax.atanh, np.arctanh, _UNIT, TRANS),
    ("sqrt", lax.sqrt, np.sqrt, (0.0, 4.0), None),
    ("rsqrt", lax.rsqrt, lambda x: 1 / np.sqrt(x), _POS, TRANS),
    ("cbrt", lax.cbrt, np.cbrt, None, TRANS),
    ("erf", lax.erf, _vec(math.erf), None, TRANS),
    ("erfc", lax.erfc, _vec(math.erfc), None, TRANS),
    ("lgamma", lax.lgamma, _vec(math.lgamma), (0.5, 6.0), LOOSE),
    ("floor", lax.floor, np.floor, None, None),
    ("ceil", lax.ceil, np.ceil, None, None),
]:
    unary(_name, _fn, _ref, FLOATS, _dom, _tol)
    reject(_name, _fn, "int32", "bool")


def _erf_inv(y: float) -> float:
    # Newton's method on erf in float64.
    x = 0.0
    for _ in range(60):
        x -= (math.erf(x) - y) / (2 / math.sqrt(math.pi) * math.exp(-x * x))
    return x


def _digamma(x: float) -> float:
    h = 1e-4
    return (math.lgamma(x + h) - math.lgamma(x - h)) / (2 * h)


def _i0e(x: float) -> float:
    # The power series of I0, summed in float64 (enough terms for |x| <= 8).
    term, total, q = 1.0, 1.0, (x / 2) ** 2
    for k in range(1, 80):
        term *= q / (k * k)
        total += term
    return math.exp(-abs(x)) * total


unary("erf_inv", lax.erf_inv, _vec(_erf_inv), FLOATS, (-0.9, 0.9), LOOSE)
unary("digamma", lax.digamma, _vec(_digamma), FLOATS, (0.5, 6.0), LOOSE)
unary("bessel_i0e", lax.bessel_i0e, _vec(_i0e), FLOATS, (-8.0, 8.0), TRANS)
reject("erf_inv", lax.erf_inv, "int32")
reject("bessel_i0e", lax.bessel_i0e, "int32")
reject("digamma", lax.digamma, "int32")


def _i1e(x: float) -> float:
    # The power series of I1, summed in float64 (enough terms for |x| <= 8).
    term = x / 2
    total, q = term, (x / 2) ** 2
    for k in range(1, 80):
        term *= q / (k * (k + 1))
        total += term
    return math.exp(-abs(x)) * total


unary("bessel_i1e", lax.bessel_i1e, _vec(_i1e), FLOATS, (-8.0, 8.0), TRANS)
reject("bessel_i1e", lax.bessel_i1e, "int32")


def _polygamma(m: float, x: float) -> float:
    # (-1)^(m+1) m! sum_k (x + k)^-(m+1): 4000 terms, then the tail as an integral.
    if m == 0:
        return _digamma(x)
    n, ks = int(m), np.arange(4000.0)
    tail = np.sum((x + ks) ** -(n + 1)) + (x + 4000 - 0.5) ** -n / n
    return (-1) ** (n + 1) * math.factorial(n) * tail


for _dt in FLOATS:
    for _s in SHAPES:
        _m = np.floor(gen(_dt, _s, (0.0, 3.99), seed="polygamma_m").astype(np.float64))
        _x = gen(_dt, _s, (0.5, 5.0), seed="polygamma_x")
        add("polygamma", Config(f"{_dt}{_s}", lax.polygamma, (_m.astype(_x.dtype), _x),
                                lambda m, x: np.vectorize(_polygamma, otypes=[np.float64])(m, x),
                                _dt, LOOSE))  # fmt: skip
reject("polygamma", lax.polygamma, "int32", nargs=2)

_ROUND_EXTRA = [np.array([0.5, 1.5, 2.5, -0.5, -2.5, 0.49999997, -0.49999997, 3.0])]
unary(
    "round",
    lambda x: lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO),
    lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5),
    FLOATS,
    extra=_ROUND_EXTRA,
    tag="away ",
)
unary(
    "round",
    lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
    np.round,
    FLOATS,
    extra=_ROUND_EXTRA,
    tag="even ",
)
reject("round", lax.round, "int32")

_SPECIAL = [np.array([np.nan, np.inf, -np.inf, 0.0, -1.5, 1e4])]
unary("is_finite", lax.is_finite, np.isfinite, FLOATS, out=_bool_out, extra=_SPECIAL)
reject("is_finite", lax.is_finite, "int32")

unary("neg", lax.neg, np.negative, NUMERIC, native=True)
unary("sign", lax.sign, lambda x: np.sign(x) if x.dtype.kind != "u" else (x != 0), NUMERIC)
unary("abs", lax.abs, np.abs, NUMERIC, native=True)
unary("square", lax.square, np.square, NUMERIC, native=True)
for _name, _fn in [("neg", lax.neg), ("sign", lax.sign), ("abs", lax.abs), ("square", lax.square)]:
    reject(_name, _fn, "bool")


def _int_pow_ref(y):
    def ref(x):
        with np.errstate(all="ignore"):
            if x.dtype.kind in "iu":
                acc = np.ones_like(x)
                for _ in range(y):
                    acc = acc * x
                return acc
            return x**y

    return ref


for _y in [0, 1, 2, 3, 5]:
    unary(
        "integer_pow",
        lambda x, y=_y: lax.integer_pow(x, y),
        _int_pow_ref(_y),
        NUMERIC,
        _GRID if _y else None,
        native=False,
        tol=TRANS,
        tag=f"y={_y} ",
    )
unary("integer_pow", lambda x: lax.integer_pow(x, -2), lambda x: x**-2.0, FLOATS, (0.5, 2.0),
      tol=TRANS, tag="y=-2 ")  # fmt: skip
reject("integer_pow", lambda x: lax.integer_pow(x, 2), "bool")

unary("real", lax.real, np.real, ["complex64"], out=lambda d: "float32")
unary("imag", lax.imag, np.imag, ["complex64"], out=lambda d: "float32")
unary("conj", lax.conj, np.conj, ["complex64"])
reject("real", lax.real, "float32")
reject("imag", lax.imag, "float32")
binary("complex", lax.complex, lambda x, y: x + 1j * y, ["float32"], out=lambda d: "complex64")
reject("complex", lax.complex, "int32", nargs=2)

unary("copy", lambda x: lax.copy_p.bind(x), lambda x: x, ALL, native=True)

unary("not", lax.bitwise_not, np.invert, INTS + BOOL, native=True)
reject("not", lax.bitwise_not, "float32")


def _popcount(x):
    u = x.view(np.dtype(f"uint{x.dtype.itemsize * 8}"))
    return np.vectorize(lambda v: bin(int(v)).count("1"), otypes=[np.int64])(u)


def _clz(x):
    bits = x.dtype.itemsize * 8
    u = x.view(np.dtype(f"uint{bits}"))
    return np.vectorize(lambda v: bits - int(v).bit_length(), otypes=[np.int64])(u)


_WIDE_INT = lambda dt: (-(2**31), 2**31 - 1)  # noqa: E731 -- every bit pattern
unary("population_count", lax.population_count, _popcount, INTS, _WIDE_INT)
unary("clz", lax.clz, _clz, INTS, _WIDE_INT, extra=[np.array([0, 1, 2, 3])])
reject("population_count", lax.population_count, "float32", "bool")
reject("clz", lax.clz, "float32", "bool")
unary("stop_gradient", lax.stop_gradient, lambda x: x, ALL, native=True)

# ---------------------------------------------------------------------------------------------
# Elementwise: binary

binary("add", lax.add, np.add, NUMERIC, native=False)
binary("sub", lax.sub, np.subtract, NUMERIC)
binary("mul", lax.mul, np.multiply, NUMERIC)
binary("add_any", _rules.add_any, np.add, NUMERIC, native=False)
for _name, _fn in [("add", lax.add), ("sub", lax.sub), ("mul", lax.mul)]:
    reject(_name, _fn, "bool", nargs=2)


def _int_native(f):
    """Integer references run on the integer values (wrapping as the dtype does)."""

    def ref(x, y):
        with np.errstate(all="ignore"):
            return f(x, y)

    return ref


def _div_ref(x, y):
    if x.dtype.kind in "iu":
        a, b = x.astype(np.int64), y.astype(np.int64)
        q = np.abs(a) // np.abs(b)
        return np.where((a < 0) != (b < 0), -q, q)
    return x / y


_NONZERO = lambda dt: "nonzero" if not _is_float(dt) else (0.5, 3.0)  # noqa: E731
_DIVIDEND = lambda dt: None if _is_float(dt) else ((0, 100) if dt == "uint8" else (-100, 100))  # noqa: E731
binary("div", lax.div, _div_ref, NUMERIC, _DIVIDEND, _NONZERO)
binary("rem", lax.rem, np.fmod, NUMERIC, _DIVIDEND, _NONZERO)
reject("div", lax.div, "bool", nargs=2)
reject("rem", lax.rem, "bool", nargs=2)
binary("pow", lax.pow, np.power, FLOATS, (0.1, 3.0), (-2.0, 2.0), tol=TRANS)
for _dt in FLOATS:
    _x, _y = gen(_dt, (2, 3), (0.5, 2.0), seed="powi"), gen("int32", (2, 3), (-3, 3), seed="powi")
    add("pow", Config(f"{_dt}^int32", lax.pow, (_x, _y), lambda x, y: x ** y.astype(float),
                      _dt, TRANS))  # fmt: skip
reject("pow", lax.pow, "int32", nargs=2)
binary("max", lax.max, np.maximum, ALL, native=True)
binary("min", lax.min, np.minimum, ALL, native=True)
binary("atan2", lax.atan2, np.arctan2, FLOATS, tol=TRANS)
reject("atan2", lax.atan2, "int32", nargs=2)
binary("nextafter", lax.nextafter, np.nextafter, FLOATS, native=True)
reject("nextafter", lax.nextafter, "int32", nargs=2)
binary("and", lax.bitwise_and, np.bitwise_and, INTS + BOOL, native=True)
binary("or", lax.bitwise_or, np.bitwise_or, INTS + BOOL, native=True)
binary("xor", lax.bitwise_xor, np.bitwise_xor, INTS + BOOL, native=True)
for _name, _fn in [("and", lax.bitwise_and), ("or", lax.bitwise_or), ("xor", lax.bitwise_xor)]:
    reject(_name, _fn, "float32", nargs=2)


def _shift_ref(kind):
    def ref(x, y):
        bits = x.dtype.itemsize * 8
        udt = np.dtype(f"uint{bits}")
        amount = y.view(udt) if y.dtype.kind == "i" else y.astype(udt)
        big = amount >= bits
        s = np.where(big, 0, amount).astype(udt)
        with np.errstate(all="ignore"):
            if kind == "left":
                out = (x.view(udt) << s).view(x.dtype)
                return np.where(big, 0, out).astype(x.dtype)
            if kind == "logical":
                out = (x.view(udt) >> s).view(x.dtype)
                return np.where(big, 0, out).astype(x.dtype)
            sdt = np.dtype(f"int{bits}")
            xs = x.view(sdt)
            out = (xs >> np.minimum(s, bits - 1).astype(sdt)).view(x.dtype)
            fill = np.where(xs < 0, -1, 0).astype(sdt).view(x.dtype)
            return np.where(big, fill, out).astype(x.dtype)

    return ref


_SHIFT_AMOUNT = lambda dt: (-2, np.dtype(dt).itemsize * 8 + 2)  # noqa: E731 -- out of range too
for _name, _fn, _kind in [
    ("shift_left", lax.shift_left, "left"),
    ("shift_right_logical", lax.shift_right_logical, "logical"),
    ("shift_right_arithmetic", lax.shift_right_arithmetic, "arith"),
]:
    binary(_name, _fn, _shift_ref(_kind), INTS, _WIDE_INT, _SHIFT_AMOUNT, native=True)
    reject(_name, _fn, "float32", "bool", nargs=2)


def _mulhi_ref(x, y):
    # Python integers: the exact double-width product, then its high half (two's complement).
    bits = x.dtype.itemsize * 8
    x, y = np.broadcast_arrays(x, y)
    hi = [(int(a) * int(b)) >> bits for a, b in zip(x.ravel(), y.ravel())]
    return np.array([h % (1 << bits) for h in hi], np.uint64).astype(x.dtype).reshape(x.shape)


binary("mulhi", lax.mulhi, _mulhi_ref, INTS, _WIDE_INT, native=True)
reject("mulhi", lax.mulhi, "float32", "bool", nargs=2)


for _name, _fn, _ref in [
    ("eq", lax.eq, np.equal),
    ("ne", lax.ne, np.not_equal),
    ("lt", lax.lt, np.less),
    ("le", lax.le, np.less_equal),
    ("gt", lax.gt, np.greater),
    ("ge", lax.ge, np.greater_equal),
]:
    # A small domain so that equal pairs occur.
    binary(_name, _fn, _ref, ALL, lambda dt: "grid" if _is_float(dt) else (0, 3), native=True,
           out=_bool_out)  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Selection and conversion

for _dt in ALL:
    for _s in SHAPES:
        _c = gen("bool", _s, seed="selc")
        _a, _b = gen(_dt, _s, seed="sela"), gen(_dt, _s, seed="selb")
        add("select_n", Config(f"{_dt}{_s}", lax.select_n, (_c, _a, _b),
                               lambda c, a, b: np.where(c, b, a), _dt, native=True))  # fmt: skip
    _w = gen("int32", (2, 3), (0, 2), seed="selw")
    _cases = tuple(gen(_dt, (2, 3), seed=f"selcase{i}") for i in range(3))
    add("select_n", Config(f"{_dt} int32 which", lax.select_n, (_w, *_cases),
                           lambda w, *cs: np.choose(w, cs), _dt, native=True))  # fmt: skip
    _cases = tuple(gen(_dt, (2, 3), seed=f"selcs{i}") for i in range(2))
    add("select_n", Config(f"{_dt} scalar which", lax.select_n, (np.bool_(True), *_cases),
                           lambda w, a, b: b if w else a, _dt, native=True))  # fmt: skip

for _dt in NUMERIC:
    for _s in SHAPES:
        _x = gen(_dt, _s, seed="clampx")
        _lo, _hi = (
            np.asarray(5 if _dt == "uint8" else -1).astype(_x.dtype),
            np.asarray(50 if _dt == "uint8" else 1).astype(_x.dtype),
        )
        add("clamp", Config(f"{_dt}{_s}", lax.clamp, (_lo, _x, _hi),
                            lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi), _dt,
                            native=True))  # fmt: skip
    _x = gen(_dt, (2, 3), seed="clampa")
    _lo, _hi = gen(_dt, (2, 3), seed="clamplo"), gen(_dt, (2, 3), seed="clamphi")
    _lo, _hi = np.minimum(_lo, _hi), np.maximum(_lo, _hi)
    add("clamp", Config(f"{_dt} array bounds", lax.clamp, (_lo, _x, _hi),
                        lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi), _dt,
                        native=True))  # fmt: skip


def _np_dtype(name: str) -> np.dtype:
    return np.dtype(bf16) if name == "bfloat16" else np.dtype(name)


for _src in ALL:
    for _dst in ALL:
        if _src == _dst:
            continue  # the wrapper returns the operand unchanged: nothing is bound
        for _s in [(), (2, 3)]:
            _x = gen(_src, _s, (0, 100) if _is_float(_src) else (-1000, 1000), seed="cvt")
            add("convert_element_type", Config(
                f"{_src}->{_dst}{_s}",
                lambda x, d=_dst: lax.convert_element_type(x, _np_dtype(d)),
                (_x,),
                lambda x, d=_dst: x.astype(_np_dtype(d)),
                _dst,
                native=True,
            ))  # fmt: skip

for _src, _dst, _shape in [
    ("float32", "int32", (2, 3)),
    ("int32", "float32", (2, 3)),
    ("float32", "uint8", (2, 3)),
    ("uint8", "float32", (2, 3, 4)),
    ("float16", "uint8", (3,)),
    ("bfloat16", "int8", (2,)),
    ("int8", "uint8", (5,)),
    ("uint8", "float16", (3, 2)),
]:
    _x = gen(_src, _shape, _WIDE_INT(_src) if not _is_float(_src) else None, seed="bitcast")

    def _bitcast_ref(x, d=_dst):
        out = x.view(_np_dtype(d))
        if _np_dtype(d).itemsize < x.dtype.itemsize:
            return out.reshape(x.shape + (x.dtype.itemsize // _np_dtype(d).itemsize,))
        if _np_dtype(d).itemsize > x.dtype.itemsize:
            return out.reshape(x.shape[:-1])
        return out

    add("bitcast_convert_type", Config(
        f"{_src}->{_dst}{_shape}",
        lambda x, d=_dst: lax.bitcast_convert_type(x, _np_dtype(d)),
        (_x,),
        _bitcast_ref,
        _dst,
        native=True,
    ))  # fmt: skip

for _s in SHAPES:
    _x = gen("float32", _s, (0.01, 100.0), seed="rp")
    _x = _x * np.where(gen("bool", _s, seed="rps"), 1, -1).astype(np.float32)
    add(
        "reduce_precision",
        Config(f"f16 bits{_s}", lambda x: lax.reduce_precision(x, 5, 10), (_x,),
               lambda x: x.astype(np.float16).astype(np.float32), "float32", native=True),
        Config(f"bf16 bits{_s}", lambda x: lax.reduce_precision(x, 8, 7), (_x,),
               lambda x: x.astype(bf16).astype(np.float32), "float32", native=True),
    )  # fmt: skip

# ---------------------------------------------------------------------------------------------
# Reductions


def _reduce_axes(shape):
    n = len(shape)
    if n == 0:
        return [()]
    if n == 1:
        return [(0,)]
    if n == 2:
        return [(0,), (1,), (0, 1)]
    return [(0,), (1, 2), (0, 1, 2), (2,)]


def _reduction(name, lax_fn, np_fn, dtypes, domain=None, tol=None):
    for dt in dtypes:
        dom = domain(dt) if callable(domain) else domain
        for s in SHAPES:
            x = gen(dt, s, dom, seed=name)
            for axes in _reduce_axes(s):
                add(name, Config(
                    f"{dt}{s} axes={axes}",
                    lambda x, a=axes: lax_fn(x, a),
                    (x,),
                    lambda x, a=axes: np_fn(x, a),
                    dt,
                    tol,
                    native=not _is_float(dt),
                ))  # fmt: skip


def _np_reduce(ufunc):
    def f(x, axes):
        with np.errstate(all="ignore"):
            if not axes:
                return x
            dt = x.dtype if x.dtype.kind != "f" else None
            return ufunc.reduce(x, axis=axes, dtype=dt)

    return f


_reduction("reduce_sum", lax.reduce_sum, _np_reduce(np.add), NUMERIC, _GRID)
_reduction("reduce_prod", lax.reduce_prod, _np_reduce(np.multiply), NUMERIC, _POW2)
_reduction("reduce_max", lax.reduce_max, _np_reduce(np.maximum), ALL)
_reduction("reduce_min", lax.reduce_min, _np_reduce(np.minimum), ALL)
_reduction("reduce_and", lax.reduce_and, _np_reduce(np.bitwise_and), INTS + BOOL)
_reduction("reduce_or", lax.reduce_or, _np_reduce(np.bitwise_or), INTS + BOOL)
_reduction("reduce_xor", lax.reduce_xor, _np_reduce(np.bitwise_xor), INTS + BOOL)
reject("reduce_sum", lambda x: lax.reduce_sum(x, (0,)), "bool")
reject("reduce_and", lambda x: lax.reduce_and(x, (0,)), "float32")

for _name, _fn, _ref in [("argmax", lax.argmax, np.argmax), ("argmin", lax.argmin, np.argmin)]:
    for _dt in ALL:
        for _s in SHAPES[1:]:
            _x = gen(_dt, _s, "grid" if _is_float(_dt) else (0, 5), seed=_name)
            for _axis in range(len(_s)):
                add(_name, Config(
                    f"{_dt}{_s} axis={_axis}",
                    lambda x, a=_axis, f=_fn: f(x, a, np.int32),
                    (_x,),
                    lambda x, a=_axis, r=_ref: r(x, axis=a),
                    "int32",
                    native=True,
                ))  # fmt: skip


def _cumulative(name, lax_fn, ufunc, dtypes, domain=None, tol=None):
    def ref(x, axis, reverse):
        if x.ndim == 0:
            return x
        if reverse:
            x = np.flip(x, axis)
        with np.errstate(all="ignore"):
            out = ufunc.accumulate(x, axis=axis, dtype=x.dtype if x.dtype.kind != "f" else None)
        return np.flip(out, axis) if reverse else out

    for dt in dtypes:
        dom = domain(dt) if callable(domain) else domain
        for s in SHAPES[1:]:
            x = gen(dt, s, dom, seed=name)
            for axis in range(len(s)):
                for reverse in (False, True):
                    add(name, Config(
                        f"{dt}{s} axis={axis} reverse={reverse}",
                        lambda x, a=axis, r=reverse: lax_fn(x, a, reverse=r),
                        (x,),
                        lambda x, a=axis, r=reverse: ref(x, a, r),
                        dt,
                        tol,
                        native=not _is_float(dt),
                    ))  # fmt: skip


_cumulative("cumsum", lax.cumsum, np.add, NUMERIC, _GRID)
_cumulative("cumprod", lax.cumprod, np.multiply, NUMERIC, _POW2)
_cumulative("cummax", lax.cummax, np.maximum, ALL)
_cumulative("cummin", lax.cummin, np.minimum, ALL)
_cumulative("cumlogsumexp", lax.cumlogsumexp, np.logaddexp, FLOATS, tol=LOOSE)
reject("cumsum", lambda x: lax.cumsum(x, 0), "bool")
reject("cumlogsumexp", lambda x: lax.cumlogsumexp(x, 0), "int32")

# ---------------------------------------------------------------------------------------------
# Shape operations


def _shape_op(name, fn, ref, cases, dtypes=ALL):
    """``cases``: list of (input shape, static params dict)."""
    for dt in dtypes:
        for shape, kw in cases:
            x = gen(dt, shape, seed=name)
            add(name, Config(
                f"{dt}{shape} {kw}",
                lambda x, kw=kw: fn(x, **kw),
                (x,),
                lambda x, kw=kw: ref(x, **kw),
                dt,
                native=True,
            ))  # fmt: skip


def _bid_ref(x, shape, broadcast_dimensions):
    full = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        full[d] = x.shape[i]
    return np.broadcast_to(x.reshape(full), shape)


_shape_op("broadcast_in_dim", lax.broadcast_in_dim, _bid_ref, [
    ((), {"shape": (2, 3), "broadcast_dimensions": ()}),
    ((3,), {"shape": (2, 3), "broadcast_dimensions": (1,)}),
    ((2,), {"shape": (2, 3), "broadcast_dimensions": (0,)}),
    ((2, 1), {"shape": (2, 3, 4), "broadcast_dimensions": (0, 2)}),
    ((5,), {"shape": (5, 1), "broadcast_dimensions": (0,)}),
])  # fmt: skip
_shape_op("reshape", lax.reshape, lambda x, new_sizes: np.reshape(x, new_sizes), [
    ((), {"new_sizes": (1, 1)}),
    ((5,), {"new_sizes": (5, 1)}),
    ((2, 3), {"new_sizes": (3, 2)}),
    ((2, 3, 4), {"new_sizes": (6, 4)}),
    ((2, 3, 4), {"new_sizes": (24,)}),
])  # fmt: skip
_shape_op("transpose", lax.transpose, lambda x, permutation: np.transpose(x, permutation), [
    ((2, 3), {"permutation": (1, 0)}),
    ((2, 3, 4), {"permutation": (2, 0, 1)}),
    ((2, 3, 4), {"permutation": (0, 2, 1)}),
])  # fmt: skip
_shape_op("squeeze", lax.squeeze, lambda x, dimensions: np.squeeze(x, dimensions), [
    ((1,), {"dimensions": (0,)}),
    ((1, 3, 1), {"dimensions": (0, 2)}),
    ((2, 1, 4), {"dimensions": (1,)}),
])  # fmt: skip
_shape_op("rev", lax.rev, lambda x, dimensions: np.flip(x, dimensions), [
    ((5,), {"dimensions": (0,)}),
    ((2, 3), {"dimensions": (1,)}),
    ((2, 3, 4), {"dimensions": (0, 2)}),
])  # fmt: skip


def _slice_ref(x, start_indices, limit_indices, strides=None):
    strides = strides or (1,) * x.ndim
    return x[tuple(slice(a, b, s) for a, b, s in zip(start_indices, limit_indices, strides))]


_shape_op("slice", lax.slice, _slice_ref, [
    ((5,), {"start_indices": (1,), "limit_indices": (4,)}),
    ((5,), {"start_indices": (0,), "limit_indices": (5,), "strides": (2,)}),
    ((2, 3), {"start_indices": (1, 0), "limit_indices": (2, 2)}),
    ((2, 3, 4), {"start_indices": (0, 1, 1), "limit_indices": (2, 3, 4), "strides": (1, 2, 2)}),
])  # fmt: skip


def _pad_ref(x, pv, padding_config):
    out = x
    for axis, (lo, hi, interior) in enumerate(padding_config):
        n = out.shape[axis]
        size = n + max(n - 1, 0) * interior
        shape = list(out.shape)
        shape[axis] = size + max(lo, 0) + max(hi, 0)
        buf = np.full(shape, pv, dtype=x.dtype)
        idx = [slice(None)] * out.ndim
        idx[axis] = slice(max(lo, 0), max(lo, 0) + size, interior + 1)
        buf[tuple(idx)] = out
        idx[axis] = slice(-min(lo, 0), shape[axis] - (-min(hi, 0)))
        out = buf[tuple(idx)]
    return out


for _dt in ALL:
    for _shape, _cfg in [
        ((), ()),
        ((5,), ((1, 2, 0),)),
        ((5,), ((0, 0, 2),)),
        ((5,), ((-1, 2, 1),)),
        ((2, 3), ((1, 0, 1), (0, -1, 0))),
        ((2, 3, 4), ((0, 1, 0), (1, 1, 0), (-2, 0, 1))),
    ]:
        _x = gen(_dt, _shape, seed="pad")
        _pv = gen(_dt, (), seed="padv")
        add("pad", Config(f"{_dt}{_shape} {_cfg}", lambda x, v, c=_cfg: lax.pad(x, v, c),
                          (_x, _pv), lambda x, v, c=_cfg: _pad_ref(x, v, c), _dt,
                          native=True))  # fmt: skip

for _dt in ALL:
    for _shapes, _dim in [
        (((2,), (3,)), 0),
        (((2, 3), (2, 1), (2, 2)), 1),
        (((1, 3, 4), (2, 3, 4)), 0),
        (((2, 3, 1), (2, 3, 2)), 2),
    ]:
        _xs = tuple(gen(_dt, s, seed=f"cat{i}") for i, s in enumerate(_shapes))
        add("concatenate", Config(f"{_dt}{_shapes} dim={_dim}",
                                  lambda *xs, d=_dim: lax.concatenate(xs, d), _xs,
                                  lambda *xs, d=_dim: np.concatenate(xs, d), _dt,
                                  native=True))  # fmt: skip
    for _shape, _n, _axis in [((), 2, 0), ((3,), 3, 1), ((2, 3), 2, 0), ((2, 3), 2, 2)]:
        _xs = tuple(gen(_dt, _shape, seed=f"stack{i}") for i in range(_n))
        add("stack", Config(f"{_dt}{_shape}x{_n} axis={_axis}",
                            lambda *xs, a=_axis: lax.stack(xs, a), _xs,
                            lambda *xs, a=_axis: np.stack(xs, a), _dt, native=True))  # fmt: skip
    for _shape, _sizes, _axis in [((5,), (2, 3), 0), ((2, 3, 4), (1, 3), 2), ((2, 3), (0, 2), 0)]:
        _x = gen(_dt, _shape, seed="split")
        add("split", Config(
            f"{_dt}{_shape} sizes={_sizes} axis={_axis}",
            lambda x, s=_sizes, a=_axis: lax.split(x, s, a),
            (_x,),
            lambda x, s=_sizes, a=_axis: np.split(x, np.cumsum(s)[:-1], a),
            [_dt] * len(_sizes),
            native=True,
        ))  # fmt: skip

_shape_op("tile", lambda x, reps: lax.tile(x, reps), lambda x, reps: np.tile(x, reps), [
    ((5,), {"reps": (2,)}),
    ((2, 3), {"reps": (2, 1)}),
    ((2, 3, 4), {"reps": (1, 2, 2)}),
])  # fmt: skip

for _dt in ["int32", "int8", "uint8", "float32", "float16", "bfloat16"]:
    add("iota", Config(f"{_dt} iota(5)", lambda d=_dt: lax.iota(_np_dtype(d), 5), (),
                       lambda d=_dt: np.arange(5), _dt, native=True))  # fmt: skip
    add("iota", Config(f"{_dt} broadcasted (2,3) dim 1",
                       lambda d=_dt: lax.broadcasted_iota(_np_dtype(d), (2, 3), 1), (),
                       lambda: np.broadcast_to(np.arange(3), (2, 3)), _dt,
                       native=True))  # fmt: skip

# ---------------------------------------------------------------------------------------------
# Contractions, indexing, sorting and convolution

for _dt in NUMERIC:
    for _ls, _rs, _dn in [
        ((3,), (3,), (((0,), (0,)), ((), ()))),
        ((2, 3), (3, 4), (((1,), (0,)), ((), ()))),
        ((2, 3), (4, 3), (((1,), (1,)), ((), ()))),
        ((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,)))),
        ((2, 3), (4,), (((), ()), ((), ()))),
    ]:
        _l, _r = gen(_dt, _ls, _GRID(_dt), seed="dl"), gen(_dt, _rs, _GRID(_dt), seed="dr")

        def _dot_ref(l, r, dn=_dn):
            (lc, rc), (lb, rb) = dn
            ls = "abcdefgh"[: l.ndim]
            rs = "ijklmnop"[: r.ndim]
            rs = list(rs)
            for a, b in zip(lc + lb, rc + rb):
                rs[b] = ls[a]
            rs = "".join(rs)
            out = "".join(ls[i] for i in lb)
            out += "".join(c for i, c in enumerate(ls) if i not in lc and i not in lb)
            out += "".join(c for i, c in enumerate(rs) if i not in rc and i not in rb)
            if l.dtype.kind in "iub":
                l, r = l.astype(np.int64), r.astype(np.int64)
            return np.einsum(f"{ls},{rs}->{out}", l, r)

        add("dot_general", Config(
            f"{_dt}{_ls}x{_rs} {_dn}",
            lambda l, r, dn=_dn: lax.dot_general(l, r, dn),
            (_l, _r),
            _dot_ref,
            _dt,
        ))  # fmt: skip

for _dt in ALL:
    for _shape, _start, _sizes in [
        ((5,), (1,), (3,)),
        ((5,), (4,), (3,)),  # clamped
        ((2, 3, 4), (1, 0, 2), (1, 2, 2)),
        ((2, 3), (-1, 1), (2, 2)),  # clamped from below
    ]:
        _x = gen(_dt, _shape, seed="ds")

        def _ds_ref(x, *idx, sizes=_sizes):
            st = [min(max(int(i), 0), d - s) for i, d, s in zip(idx, x.shape, sizes)]
            return x[tuple(slice(a, a + s) for a, s in zip(st, sizes))]

        _idx = tuple(np.int32(i) for i in _start)
        add("dynamic_slice", Config(
            f"{_dt}{_shape} start={_start} sizes={_sizes}",
            lambda x, *i, s=_sizes: lax.dynamic_slice(x, i, s),
            (_x, *_idx),
            _ds_ref,
            _dt,
            native=True,
        ))  # fmt: skip

for _dt in ALL:
    for _shape, _ushape, _start in [
        ((5,), (2,), (1,)),
        ((5,), (3,), (4,)),  # clamped
        ((2, 3, 4), (1, 2, 2), (1, 0, 2)),
    ]:
        _x, _u = gen(_dt, _shape, seed="dus"), gen(_dt, _ushape, seed="dusu")

        def _dus_ref(x, u, *idx):
            st = [min(max(int(i), 0), d - s) for i, d, s in zip(idx, x.shape, u.shape)]
            out = x.copy()
            out[tuple(slice(a, a + s) for a, s in zip(st, u.shape))] = u
            return out

        _idx = tuple(np.int32(i) for i in _start)
        add("dynamic_update_slice", Config(
            f"{_dt}{_shape} update{_ushape} at {_start}",
            lambda x, u, *i: lax.dynamic_update_slice(x, u, i),
            (_x, _u, *_idx),
            _dus_ref,
            _dt,
            native=True,
        ))  # fmt: skip

for _dt in ALL:
    for _shape in SHAPES[1:]:
        _x = gen(_dt, _shape, "grid" if _is_float(_dt) else (0, 5), seed="sort")
        for _dim in range(len(_shape)):
            add("sort", Config(f"{_dt}{_shape} dim={_dim}",
                               lambda x, d=_dim: lax.sort(x, dimension=d), (_x,),
                               lambda x, d=_dim: np.sort(x, axis=d, kind="stable"), _dt,
                               native=True))  # fmt: skip
    _k = gen(_dt, (6,), "grid" if _is_float(_dt) else (0, 3), seed="sortk")
    _v = gen("int32", (6,), seed="sortv")
    add("sort", Config(
        f"{_dt} key+int32 values",
        lambda k, v: lax.sort((k, v), num_keys=1),
        (_k, _v),
        lambda k, v: [k[np.argsort(k, kind="stable")], v[np.argsort(k, kind="stable")]],
        [_dt, "int32"],
        native=True,
    ))  # fmt: skip

for _dt in NUMERIC:
    for _shape in [(5,), (2, 6)]:
        _x = gen(_dt, _shape, seed="topk")

        def _topk_ref(x):
            idx = np.argsort(-x.astype(np.float64), axis=-1, kind="stable")[..., :3]
            return [np.take_along_axis(x, idx, -1), idx]

        add("top_k", Config(f"{_dt}{_shape} k=3", lambda x: lax.top_k(x, 3), (_x,),
                            _topk_ref, [_dt, "int32"], native=True))  # fmt: skip

for _dt in FLOATS:
    _x = gen(_dt, (2, 6), seed="approxk")

    def _approx_ref(x, largest=True):
        key = -x.astype(np.float64) if largest else x.astype(np.float64)
        idx = np.argsort(key, axis=-1, kind="stable")[..., :3]
        return [np.take_along_axis(x, idx, -1), idx]

    add("approx_top_k",
        Config(f"{_dt}(2, 6) max k=3", lambda x: lax.approx_max_k(x, 3), (_x,), _approx_ref,
               [_dt, "int32"], native=True),
        Config(f"{_dt}(2, 6) min k=3", lambda x: lax.approx_min_k(x, 3), (_x,),
               lambda x: _approx_ref(x, False), [_dt, "int32"], native=True))  # fmt: skip


def _ragged_ref(a, b, gs):
    out = np.zeros((a.shape[0], b.shape[2]), np.result_type(a, b))
    start = 0
    for i, n in enumerate(gs):
        end = min(start + max(int(n), 0), a.shape[0])
        out[start:end] = a[start:end] @ b[i]
        start = end
    return out


for _dt in ["float32", "float16"]:
    add("ragged_dot_general", Config(
        f"{_dt} (5, 3) x (3, 3, 2) groups [2, 0, 2]",
        lambda a, b, g: lax.ragged_dot(a, b, g),
        (gen(_dt, (5, 3), seed="rda"), gen(_dt, (3, 3, 2), seed="rdb"),
         np.array([2, 0, 2], np.int32)),
        _ragged_ref, _dt, LOOSE))  # fmt: skip

_GD = lax.GatherDimensionNumbers
_ROWS = _GD(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
_POINTS = _GD(offset_dims=(), collapsed_slice_dims=(0, 1), start_index_map=(0, 1))
_WINDOWS = _GD(offset_dims=(1,), collapsed_slice_dims=(), start_index_map=(0,))


def _rows_ref(x, i, mode, fill=None):
    i = i[:, 0].astype(np.int64)
    if mode == "clip":
        return x[np.clip(i, 0, x.shape[0] - 1)]
    ok = (i >= 0) & (i < x.shape[0])
    out = x[np.where(ok, i, 0)]
    return np.where(ok[:, None], out, np.asarray(fill).astype(x.dtype))


def _points_ref(x, i, mode):
    r = np.clip(i[:, 0], 0, x.shape[0] - 1)
    c = np.clip(i[:, 1], 0, x.shape[1] - 1)
    return x[r, c]


def _windows_ref(x, i, mode):
    st = np.clip(i[:, 0], 0, x.shape[0] - 2)
    return np.stack([x[a : a + 2] for a in st])


for _dt in ALL:
    _x = gen(_dt, (4, 3), seed="gather")
    _fill = 0 if _dt != "bool" else False
    for _mode, _idx in [
        ("promise_in_bounds", [[2], [0], [3]]),
        ("clip", [[5], [-2], [1]]),
        ("fill", [[1], [4], [-1], [3]]),
    ]:
        _i = np.array(_idx, np.int32)
        _kw = {"fill_value": _fill} if _mode == "fill" else {}
        add("gather", Config(
            f"{_dt} rows mode={_mode}",
            lambda x, i, m=_mode, kw=_kw: lax.gather(x, i, _ROWS, (1, 3), mode=m, **kw),
            (_x, _i),
            lambda x, i, m=_mode, f=_fill: _rows_ref(x, i, m, f),
            _dt,
            native=True,
        ))  # fmt: skip
    _i = np.array([[0, 1], [2, 3], [1, 0], [2, 2], [0, 0]], np.int32)
    add("gather", Config(f"{_dt} points", lambda x, i: lax.gather(x, i, _POINTS, (1, 1),
                         mode="clip"), (_x, _i), lambda x, i: _points_ref(x, i, "clip"),
                         _dt, native=True))  # fmt: skip
    _v = gen(_dt, (5,), seed="gatherw")
    _i = np.array([[0], [3], [4]], np.int32)
    add("gather", Config(f"{_dt} windows", lambda x, i: lax.gather(x, i, _WINDOWS, (2,),
                         mode="clip"), (_v, _i), lambda x, i: _windows_ref(x, i, "clip"),
                         _dt, native=True))  # fmt: skip

_SD = lax.ScatterDimensionNumbers
_S_POINTS = _SD(update_window_dims=(), inserted_window_dims=(0,),
                scatter_dims_to_operand_dims=(0,))  # fmt: skip
_S_ROWS = _SD(update_window_dims=(1,), inserted_window_dims=(0,),
              scatter_dims_to_operand_dims=(0,))  # fmt: skip


def _scatter_ref(ufunc):
    def ref(x, i, u):
        out = x.copy()
        idx = i[:, 0].astype(np.int64)
        ok = (idx >= 0) & (idx < x.shape[0])  # out-of-bounds updates are dropped
        with np.errstate(all="ignore"):
            if ufunc is None:
                out[idx[ok]] = u[ok]
            else:
                ufunc.at(out, idx[ok], u[ok])
        return out

    return ref


for _name, _fn, _uf, _dts in [
    ("scatter", lax.scatter, None, ALL),
    ("scatter-add", lax.scatter_add, np.add, NUMERIC),
    ("scatter-sub", lax.scatter_sub, np.subtract, NUMERIC),
    ("scatter-mul", lax.scatter_mul, np.multiply, NUMERIC),
    ("scatter-min", lax.scatter_min, np.minimum, ALL),
    ("scatter-max", lax.scatter_max, np.maximum, ALL),
]:
    # Repeated indices only where the combination does not depend on order.
    _pts = [[3], [0], [7], [1]] if _uf is None else [[0], [2], [0], [7]]
    for _dt in _dts:
        _dom = _POW2(_dt) if _uf is np.multiply else _GRID(_dt)
        _x = gen(_dt, (5,), _dom, seed="scatter")
        _u = gen(_dt, (4,), _dom, seed="scatteru")
        add(_name, Config(
            f"{_dt} points",
            lambda x, i, u, f=_fn: f(x, i, u, _S_POINTS, mode="drop"),
            (_x, np.array(_pts, np.int32), _u),
            _scatter_ref(_uf),
            _dt,
            native=not _is_float(_dt),
        ))  # fmt: skip
        _x = gen(_dt, (4, 3), _dom, seed="scatter2")
        _u = gen(_dt, (2, 3), _dom, seed="scatter2u")
        add(_name, Config(
            f"{_dt} rows",
            lambda x, i, u, f=_fn: f(x, i, u, _S_ROWS, mode="drop"),
            (_x, np.array([[2], [0]], np.int32), _u),
            _scatter_ref(_uf),
            _dt,
            native=not _is_float(_dt),
        ))  # fmt: skip


def _conv_ref(lhs, rhs, strides, padding, lhs_dil, rhs_dil, groups):
    """Direct convolution (cross-correlation) in NC<spatial>/OI<spatial> layouts."""
    nsp = lhs.ndim - 2
    x = lhs
    for a, d in enumerate(lhs_dil):
        if d > 1:
            shape = list(x.shape)
            shape[a + 2] = (shape[a + 2] - 1) * d + 1
            y = np.zeros(shape, x.dtype)
            sl = [slice(None)] * x.ndim
            sl[a + 2] = slice(None, None, d)
            y[tuple(sl)] = x
            x = y
    cfg = ((0, 0, 0), (0, 0, 0)) + tuple((lo, hi, 0) for lo, hi in padding)
    x = _pad_ref(x, 0, cfg)
    w = rhs
    for a, d in enumerate(rhs_dil):
        if d > 1:
            shape = list(w.shape)
            shape[a + 2] = (shape[a + 2] - 1) * d + 1
            y = np.zeros(shape, w.dtype)
            sl = [slice(None)] * w.ndim
            sl[a + 2] = slice(None, None, d)
            y[tuple(sl)] = w
            w = y
    ksp = w.shape[2:]
    win = np.lib.stride_tricks.sliding_window_view(x, ksp, axis=tuple(range(2, 2 + nsp)))
    win = win[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in strides)]
    cin = w.shape[1]
    outs = []
    opg = w.shape[0] // groups
    for g in range(groups):
        xg = win[:, g * cin : (g + 1) * cin]
        wg = w[g * opg : (g + 1) * opg]
        sp = "xyz"[:nsp]
        k = "uvw"[:nsp]
        outs.append(np.einsum(f"nc{sp}{k},oc{k}->no{sp}", xg, wg))
    return np.concatenate(outs, axis=1)


for _dt in FLOATS + ["int32"]:
    for _ls, _rs, _st, _pad, _ld, _rd, _g in [
        ((1, 2, 7), (3, 2, 3), (1,), ((0, 0),), (1,), (1,), 1),
        ((2, 2, 7), (3, 2, 3), (2,), ((1, 2),), (1,), (1,), 1),
        ((1, 1, 6), (2, 1, 2), (1,), ((1, 1),), (2,), (1,), 1),
        ((1, 2, 8), (2, 2, 3), (1,), ((2, 2),), (1,), (2,), 1),
        ((1, 4, 5), (4, 2, 2), (1,), ((0, 1),), (1,), (1,), 2),
        ((1, 2, 4, 5), (3, 2, 2, 3), (1, 2), ((1, 0), (1, 1)), (1, 1), (1, 1), 1),
    ]:
        _l = gen(_dt, _ls, _GRID(_dt), seed="convl")
        _r = gen(_dt, _rs, _GRID(_dt), seed="convr")
        add("conv_general_dilated", Config(
            f"{_dt} lhs{_ls} rhs{_rs} strides={_st} pad={_pad} lhs_dil={_ld} "
            f"rhs_dil={_rd} groups={_g}",
            lambda l, r, st=_st, p=_pad, ld=_ld, rd=_rd, g=_g: lax.conv_general_dilated(
                l, r, st, p, ld, rd, feature_group_count=g),
            (_l, _r),
            lambda l, r, st=_st, p=_pad, ld=_ld, rd=_rd, g=_g: _conv_ref(
                l, r, st, p, ld, rd, g),
            _dt,
            native=not _is_float(_dt),
        ))  # fmt: skip

# ---------------------------------------------------------------------------------------------
# Windowed reductions (spmd._src.lax.windowed_reductions). The reference walks every window
# element by element: dilated operand positions outside it or between its elements are init.

_RW_INIT = {
    "sum": lambda dt: 0,
    "max": lambda dt: (
        -np.inf if dt.kind == "f" else (False if dt.kind == "b" else np.iinfo(dt).min)
    ),
    "min": lambda dt: np.inf if dt.kind == "f" else (True if dt.kind == "b" else np.iinfo(dt).max),
}


def _reduce_window_ref(kind, dims, strides, pads, base, wdil):
    def ref(x):
        ufunc = {"sum": np.add, "max": np.maximum, "min": np.minimum}[kind]
        dt = x.dtype
        init = np.array(_RW_INIT[kind](np.dtype(dt) if dt.name != "bfloat16" else np.dtype("f")))
        sizes = [(n - 1) * b + 1 + lo + hi if n else lo + hi for n, b, (lo, hi)
                 in zip(x.shape, base, pads)]  # fmt: skip
        out_shape = [max(0, (n - ((k - 1) * d + 1)) // s + 1) if n >= (k - 1) * d + 1 else 0
                     for n, k, d, s in zip(sizes, dims, wdil, strides)]  # fmt: skip
        out = np.empty(out_shape, dt)
        for o in np.ndindex(*out_shape):
            acc = init.astype(dt)
            for k in np.ndindex(*dims):
                p = [oi * s + ki * d for oi, s, ki, d in zip(o, strides, k, wdil)]
                q = [pi - lo for pi, (lo, _) in zip(p, pads)]
                inside = all(qi >= 0 and qi % b == 0 and qi // b < n
                             for qi, b, n in zip(q, base, x.shape))  # fmt: skip
                if inside:
                    with np.errstate(all="ignore"):
                        acc = ufunc(acc, x[tuple(qi // b for qi, b in zip(q, base))], dtype=dt)
            out[o] = acc
        return out

    return ref


_RW_CALLS = [
    # (shape, window, strides, padding, base_dilation, window_dilation)
    ((7,), (3,), (1,), ((0, 0),), (1,), (1,)),
    ((7,), (2,), (2,), ((1, 2),), (1,), (1,)),
    ((3, 4), (2, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1)),
    ((3, 4), (2, 3), (2, 1), ((1, 0), (1, 1)), (1, 1), (1, 1)),
    ((3, 5), (2, 2), (1, 2), ((0, 1), (0, 0)), (2, 1), (1, 2)),
    ((2, 3, 4), (1, 2, 2), (1, 1, 2), ((0, 0), (1, -1), (0, 1)), (1, 1, 1), (1, 2, 1)),
    ((4,), (5,), (1,), ((0, 0),), (1,), (1,)),  # window larger than the operand: empty
]

for _kind, _dts in (("sum", NUMERIC), ("max", ALL), ("min", ALL)):
    _name = f"reduce_window_{_kind}"
    _op = {"sum": lax.add, "max": lax.max, "min": lax.min}[_kind]
    for _dt in _dts:
        for _s, _k, _st, _pd, _bd, _wd in _RW_CALLS:
            _x = gen(_dt, _s, _GRID(_dt), seed=_name)
            _npdt = np.dtype(bf16) if _dt == "bfloat16" else np.dtype(_dt)
            _init = np.array(_RW_INIT[_kind](_npdt if _dt != "bfloat16" else np.dtype("f")),
                             _npdt)  # fmt: skip
            add(_name, Config(
                f"{_dt}{_s} window={_k} strides={_st} pad={_pd} base={_bd} wdil={_wd}",
                lambda x, i=_init, op=_op, k=_k, st=_st, pd=_pd, bd=_bd, wd=_wd: lax.reduce_window(
                    x, i, op, k, st, pd, bd, wd),
                (_x,),
                _reduce_window_ref(_kind, _k, _st, _pd, _bd, _wd),
                _dt,
                native=not _is_float(_dt),
            ))  # fmt: skip
# The generic reduce_window primitive: a computation that is no monoid (two operands, a running
# "x * 0.5 + y" and a product), against the same window walk, which folds in only the operand's
# elements (padding and dilation holes are skipped, as XLA's CPU reduce_window does).


def _rw_generic_ref(dims, strides, pads, base, wdil):
    def ref(x, y):
        def walk(v, init, comb):
            sizes = [(n - 1) * b + 1 + lo + hi for n, b, (lo, hi) in zip(v.shape, base, pads)]
            out_shape = [max(0, (n - ((k - 1) * d + 1)) // s + 1)
                         for n, k, d, s in zip(sizes, dims, wdil, strides)]  # fmt: skip
            out = np.empty(out_shape, v.dtype)
            for o in np.ndindex(*out_shape):
                acc = np.array(init, v.dtype)
                for k in np.ndindex(*dims):
                    p = [oi * s + ki * d for oi, s, ki, d in zip(o, strides, k, wdil)]
                    q = [pi - lo for pi, (lo, _) in zip(p, pads)]
                    inside = all(qi >= 0 and qi % b == 0 and qi // b < n
                                 for qi, b, n in zip(q, base, v.shape))  # fmt: skip
                    if inside:  # padding and dilation holes are skipped, as XLA does
                        acc = comb(acc, v[tuple(qi // b for qi, b in zip(q, base))])
                out[o] = acc
            return out

        return [walk(x, 0.0, lambda a, e: a * 0.5 + e), walk(y, 1.0, lambda a, e: a * e)]

    return ref


for _dt in FLOATS:
    for _s, _k, _st, _pd, _bd, _wd in _RW_CALLS[:6]:
        _x = gen(_dt, _s, "grid", seed="rwg")
        _y = gen(_dt, _s, "pow2", seed="rwg2")
        add("reduce_window", Config(
            f"{_dt}{_s} window={_k} strides={_st} pad={_pd} base={_bd} wdil={_wd}",
            lambda x, y, k=_k, st=_st, pd=_pd, bd=_bd, wd=_wd: list(lax.reduce_window(
                (x, y), (np.array(0, x.dtype), np.array(1, y.dtype)),
                lambda p, q: (p[0] * 0.5 + q[0], p[1] * q[1]), k, st, pd, bd, wd)),
            (_x, _y),
            _rw_generic_ref(_k, _st, _pd, _bd, _wd),
            [_dt, _dt],
            LOOSE,
        ))  # fmt: skip

reject("reduce_window_sum", lambda x: lax.reduce_window(x, False, lax.add, (2,), (1,), "VALID"),
       "bool")  # fmt: skip

# lax.reduce with a computation that is no monoid: the generic reduce primitive folds it over
# the reduced elements in row-major order from the init value.


def _reduce_fold_ref(dims, comp):
    def ref(x, y):
        kept = [k for k in range(x.ndim) if k not in dims]
        perm = kept + list(dims)
        m = int(np.prod([x.shape[k] for k in kept], dtype=np.int64))
        xs, ys = (np.transpose(v, perm).reshape(m, -1) for v in (x, y))
        a, b = np.zeros(m, x.dtype), np.ones(m, y.dtype)
        for j in range(xs.shape[1]):
            a, b = comp(a, b, xs[:, j], ys[:, j])
        out = tuple(x.shape[k] for k in kept)
        return [a.reshape(out), b.reshape(out)]

    return ref


def _reduce_pair(a, b, x, y):
    # Two results from two operands: a weighted running sum and a product.
    return a * 0.5 + x, b * y


for _dt in FLOATS:
    for _s, _dims in (((5,), (0,)), ((2, 3), (1,)), ((2, 3, 4), (0, 2)), ((2, 3), ())):
        _x = gen(_dt, _s, "grid", seed="reduce")
        _y = gen(_dt, _s, "pow2", seed="reduce2")
        add("reduce", Config(
            f"{_dt}{_s} dims={_dims}",
            lambda x, y, d=_dims: list(lax.reduce(
                (x, y), (np.array(0, x.dtype), np.array(1, y.dtype)),
                lambda p, q: (p[0] * 0.5 + q[0], p[1] * q[1]), d)),
            (_x, _y),
            _reduce_fold_ref(_dims, _reduce_pair),
            [_dt, _dt],
            LOOSE,
        ))  # fmt: skip
for _dt in ("int32", "uint8"):
    _x = gen(_dt, (3, 4), (0, 5), seed="reducei")
    add("reduce", Config(
        f"{_dt} (3, 4) dims=(0,)",
        lambda x, y: list(lax.reduce(
            (x, y), (np.array(0, x.dtype), np.array(1, y.dtype)),
            lambda p, q: (p[0] * 2 + q[0], p[1] * q[1]), (0,))),
        (_x, _x),
        _reduce_fold_ref((0,), lambda a, b, x, y: (a * 2 + x, b * y)),
        [_dt, _dt],
        native=True,
    ))  # fmt: skip

# optimization_barrier (the identity on several operands) and unstack (slices along an axis).

for _dt in ALL:
    for _s in SHAPES:
        _x = gen(_dt, _s, _GRID(_dt), seed="barrier")
        _y = gen(_dt, (3,), _GRID(_dt), seed="barrier2")
        add("optimization_barrier", Config(
            f"{_dt}{_s} and (3,)",
            lambda x, y: list(lax.optimization_barrier((x, y))),
            (_x, _y),
            lambda x, y: [x, y],
            [_dt, _dt],
            native=True,
        ))  # fmt: skip
    for _s in SHAPES[1:]:
        _x = gen(_dt, _s, _GRID(_dt), seed="unstack")
        for _axis in range(len(_s)):
            add("unstack", Config(
                f"{_dt}{_s} axis={_axis}",
                lambda x, a=_axis: list(lax.unstack(x, a)),
                (_x,),
                lambda x, a=_axis: [np.take(x, i, axis=a) for i in range(x.shape[a])],
                [_dt] * _s[_axis],
                native=True,
            ))  # fmt: skip

# ---------------------------------------------------------------------------------------------
# Linear algebra (spmd._src.lax.linalg). Inputs are random normal matrices (well conditioned
# enough at these sizes); the Cholesky factorization gets x @ x^T + n I, built with lax ops.
# Decompositions whose vectors are unique only up to sign are compared with NumPy on the same
# float32 input (native), so both take the same LAPACK path.

from spmd._src.lax import linalg as _linalg  # noqa: E402


def _lin_gen(shape, seed):
    return _rng(f"linalg{seed}{shape}").standard_normal(shape).astype(np.float32)


def _spd_lax(x):
    nd = x.ndim
    batch = tuple(range(nd - 2))
    xxt = lax.dot_general(x, x, (((nd - 1,), (nd - 1,)), (batch, batch)))
    n = x.shape[-1]
    eye = lax.broadcast_in_dim(np.eye(n, dtype=x.dtype) * n, xxt.shape, (nd - 2, nd - 1))
    return lax.add(xxt, eye)


def _spd_np(x):
    return x @ np.swapaxes(x, -1, -2) + np.eye(x.shape[-1], dtype=x.dtype) * x.shape[-1]


for _s in [(3, 3), (2, 4, 4)]:
    _x = _lin_gen(_s, "sq")
    add("det", Config(f"float32{_s}", _linalg.det, (_x,), np.linalg.det, "float32", LOOSE))
    add("inv", Config(f"float32{_s}", _linalg.inv, (_x,), np.linalg.inv, "float32", LOOSE))
    add("slogdet", Config(f"float32{_s}", _linalg.slogdet, (_x,),
                          lambda x: list(np.linalg.slogdet(x)), ["float32", "float32"],
                          LOOSE))  # fmt: skip
    add("cholesky", Config(
        f"float32{_s} of x x^T + n I",
        lambda x: _linalg.cholesky(_spd_lax(x), symmetrize_input=False),
        (_x,),
        lambda x: np.linalg.cholesky(_spd_np(x)),
        "float32",
        LOOSE,
    ))  # fmt: skip
    add("eigh", Config(f"float32{_s}", lambda x: _linalg.eigh(x, symmetrize_input=False), (_x,),
                       lambda x: list(np.linalg.eigh(x))[::-1], ["float32", "float32"], LOOSE,
                       native=True))  # fmt: skip


def _eig_ref(x, vectors=True):
    # NumPy's eig on the same float32 input (the same LAPACK geev, so the same order and
    # normalisation of the eigenvectors), made complex as lax.linalg.eig's results are.
    w, v = np.linalg.eig(x)
    return [w.astype(np.complex64), v.astype(np.complex64)] if vectors else w.astype(np.complex64)


# Eigenvector derivatives (an opt-in) hold for distinct eigenvalues and a unique largest
# component per vector, which this matrix has; the batch sweeps the eigenvalues alone (their
# second derivative needs the vectors' derivative, hence the opt-in there too).
add("eig", Config("float32(3, 3) right eigenvectors",
                  lambda x: _linalg.eig(x, compute_left_eigenvectors=False,
                                        enable_eigvec_derivs=True),
                  (_lin_gen((3, 3), "eig"),), _eig_ref, ["complex64", "complex64"], LOOSE,
                  native=True))  # fmt: skip
add("eig", Config("float32(2, 4, 4) eigenvalues",
                  lambda x: _linalg.eig(x, compute_left_eigenvectors=False,
                                        compute_right_eigenvectors=False,
                                        enable_eigvec_derivs=True)[0],
                  (_lin_gen((2, 4, 4), "eig"),), lambda x: _eig_ref(x, False), "complex64",
                  LOOSE, native=True))  # fmt: skip
for _as, _bs in [((3, 3), (3,)), ((2, 3, 3), (2, 3, 2))]:
    add("solve", Config(f"float32{_as} b{_bs}", _linalg.solve,
                        (_lin_gen(_as, "sa"), _lin_gen(_bs, "sb")),
                        lambda a, b: np.linalg.solve(a, b[..., None])[..., 0]
                        if b.ndim == a.ndim - 1 else np.linalg.solve(a, b),
                        "float32", LOOSE))  # fmt: skip
for _s, _full in [((4, 3), False), ((3, 3), True), ((2, 3, 3), True)]:
    add("qr", Config(f"float32{_s} full_matrices={_full}",
                     lambda x, f=_full: _linalg.qr(x, full_matrices=f), (_lin_gen(_s, "qr"),),
                     lambda x, f=_full: list(np.linalg.qr(x, "complete" if f else "reduced")),
                     ["float32", "float32"], LOOSE, native=True))  # fmt: skip
for _s, _full, _uv in [((4, 3), False, True), ((3, 4), False, True), ((3, 3), True, True),
                       ((2, 3, 4), True, False)]:  # fmt: skip

    def _svd_ref(x, f=_full, uv=_uv):
        if not uv:
            return np.linalg.svd(x, compute_uv=False)
        u, s_, vh = np.linalg.svd(x, full_matrices=f)
        return [u, s_, vh]

    add("svd", Config(f"float32{_s} full_matrices={_full} compute_uv={_uv}",
                      lambda x, f=_full, uv=_uv: _linalg.svd(x, full_matrices=f, compute_uv=uv),
                      (_lin_gen(_s, "svd"),), _svd_ref,
                      ["float32"] * 3 if _uv else "float32", LOOSE, native=True))  # fmt: skip

# ---------------------------------------------------------------------------------------------
# spmd._src.lax.linalg_lu_schur (the kernels of spmd.scipy.linalg): lu against a float64 NumPy
# loop with partial pivoting, qr_pivots against greedy selection of the column with the
# largest residual norm, hessenberg and schur through their reconstruction z t z^H == x.
from spmd._src.lax import linalg_lu_schur as _lu_schur  # noqa: E402


def _lu_ref(x):
    lu = x.astype(np.float64).copy()
    *batch, m, n = x.shape
    piv = np.zeros((*batch, min(m, n)), np.int32)
    perm = np.broadcast_to(np.arange(m, dtype=np.int32), (*batch, m)).copy()
    for idx in np.ndindex(*batch):
        a, p, q = lu[idx], piv[idx], perm[idx]
        for j in range(min(m, n)):
            p[j] = j + np.argmax(np.abs(a[j:, j]))
            a[[j, p[j]]], q[[j, p[j]]] = a[[p[j], j]], q[[p[j], j]]
            a[j + 1 :, j] /= a[j, j]
            a[j + 1 :, j + 1 :] -= np.outer(a[j + 1 :, j], a[j, j + 1 :])
    return [lu.astype(x.dtype), piv, perm]


def _qr_pivots_ref(x):
    out = np.zeros((*x.shape[:-2], x.shape[-1]), np.int32)
    for idx in np.ndindex(*x.shape[:-2]):
        r, order = x[idx].astype(np.float64), []
        for _ in range(min(r.shape)):
            norms = np.linalg.norm(r, axis=0)
            norms[order] = -1
            j = int(np.argmax(norms))
            order.append(j)
            q = r[:, j] / norms[j]
            r = r - np.outer(q, q @ r)
        out[idx][: len(order)] = order
        out[idx][len(order) :] = [j for j in range(x.shape[-1]) if j not in order]
    return out


def _reconstruct(decompose):
    def fn(x):
        t, z = decompose(x)
        nd = x.ndim
        b = tuple(range(nd - 2))
        zt = lax.dot_general(z, t, (((nd - 1,), (nd - 2,)), (b, b)))
        return lax.dot_general(zt, z, (((nd - 1,), (nd - 1,)), (b, b)))  # real z: z^H = z^T

    return fn


for _s in [(4, 4), (5, 3), (3, 5), (2, 3, 3)]:
    add("lu", Config(f"float32{_s}", _lu_schur.lu, (_lin_gen(_s, "lu"),), _lu_ref,
                     ["float32", "int32", "int32"], LOOSE, native=True))  # fmt: skip
for _s in [(5, 3), (2, 4, 4)]:
    add("qr_pivots", Config(f"float32{_s}", _lu_schur.qr_pivots, (_lin_gen(_s, "qrp"),),
                            _qr_pivots_ref, "int32", native=True))  # fmt: skip
for _s in [(4, 4), (2, 3, 3)]:
    add("hessenberg", Config(f"float32{_s} q h q^T", _reconstruct(_lu_schur.hessenberg),
                             (_lin_gen(_s, "hess"),), lambda x: x, "float32", LOOSE,
                             native=True))  # fmt: skip
    add("schur", Config(f"float32{_s} z t z^T", _reconstruct(_lu_schur.schur),
                        (_lin_gen(_s, "schur"),), lambda x: x, "float32", LOOSE,
                        native=True))  # fmt: skip

# spmd._src.lax.linalg_more (the rest of jax.lax.linalg), against float64 NumPy written from
# the definitions: explicit Householder matrices, dense solves, Lanczos from e1 for the
# tridiagonal form (unique up to the signs of the off-diagonal, compared in absolute value).
from spmd._src.lax import linalg_more as _lm  # noqa: E402


def _reflectors(a, taus, m):
    q = np.eye(m)
    for i in range(taus.shape[-1]):
        v = np.concatenate([np.zeros(i), [1.0], a[i + 1 :, i]])
        q = q @ (np.eye(m) - taus[i] * np.outer(v, v))
    return q


def _lanczos(x):
    n = x.shape[-1]
    a = np.tril(x) + np.tril(x, -1).T
    d, e, q, q_prev, beta = np.zeros(n), np.zeros(n - 1), np.eye(n)[0], np.zeros(n), 0.0
    for k in range(n):
        w = a @ q - beta * q_prev
        d[k] = q @ w
        w -= d[k] * q
        if k < n - 1:
            beta = e[k] = np.linalg.norm(w)
            q_prev, q = q, w / beta
    return np.concatenate([d, e])


def _tri_de(x):
    _, d, e, _ = _lm.tridiagonal(x)
    return lax.concatenate([d, lax.abs(e)], x.ndim - 2)


def _tds_dense(dl, d, du):
    return np.diag(d) + np.diag(dl[1:], -1) + np.diag(du[:-1], 1)


for _s in [(4, 4), (2, 3, 3)]:
    _a = _lin_gen(_s, "ts") + 4 * np.eye(_s[-1], dtype=np.float32)
    _b = _lin_gen((*_s[:-1], 2), "tsb")
    add("triangular_solve", Config(
        f"float32{_s} left lower", lambda a, b: _lm.triangular_solve(a, b, left_side=True,
                                                                     lower=True),
        (_a, _b), lambda a, b: np.linalg.solve(np.tril(a), b), "float32", LOOSE))  # fmt: skip
    add("tridiagonal_solve", Config(
        f"float32{_s[:-1]}", _lm.tridiagonal_solve,
        (_lin_gen(_s[:-1], "dl"), _a[..., 0] + 3, _lin_gen(_s[:-1], "du"), _b),
        lambda dl, d, du, b: np.stack([np.linalg.solve(_tds_dense(dl[i], d[i], du[i]), b[i])
                                       for i in np.ndindex(*d.shape[:-1])]).reshape(b.shape),
        "float32", LOOSE))  # fmt: skip
    _t = (np.abs(_lin_gen(_s[:-1], "tau")) % 1.5).astype(np.float32)
    add("householder_product", Config(
        f"float32{_s}", _lm.householder_product, (_lin_gen(_s, "hp"), _t),
        lambda a, t: np.stack([_reflectors(a[i], t[i], a.shape[-2])[:, : a.shape[-1]]
                               for i in np.ndindex(*a.shape[:-2])]).reshape(a.shape),
        "float32", LOOSE))  # fmt: skip
    add("ormqr", Config(
        f"float32{_s} transpose", lambda a, t, c: _lm.ormqr(a, t, c, transpose=True),
        (_lin_gen(_s, "om"), _t, _b),
        lambda a, t, c: np.stack([_reflectors(a[i], t[i], a.shape[-2]).T @ c[i]
                                  for i in np.ndindex(*a.shape[:-2])]).reshape(c.shape),
        "float32", LOOSE))  # fmt: skip
    add("tridiagonal", Config(
        f"float32{_s} d |e|",
        _tri_de,
        (_lin_gen(_s, "tri"),),
        lambda x: np.stack([_lanczos(x[i]) for i in np.ndindex(*x.shape[:-2])]).reshape(
            *x.shape[:-2], 2 * x.shape[-1] - 1),
        "float32", LOOSE))  # fmt: skip
for _s in [(3, 4), (2, 2, 3)]:
    add("symmetric_product", Config(
        f"float32{_s}", lambda a, c: _lm.symmetric_product(a, c, alpha=2.0, beta=0.5),
        (_lin_gen(_s, "sp"), _lin_gen((*_s[:-1], _s[-2]), "spc")),
        lambda a, c: 2 * a @ np.swapaxes(a, -1, -2) + 0.5 * c, "float32", LOOSE))  # fmt: skip
_piv = np.array([[2, 2, 3, 3], [1, 3, 2, 4]], np.int32)


def _perm_ref(piv, size=5):
    out = np.broadcast_to(np.arange(size, dtype=np.int32), (*piv.shape[:-1], size)).copy()
    for i in np.ndindex(*piv.shape[:-1]):
        for j, p in enumerate(piv[i]):
            out[i][[j, p]] = out[i][[p, j]]
    return out


add("lu_pivots_to_permutation", Config(
    "int32(2, 4) size 5", lambda p: _lm.lu_pivots_to_permutation(p, 5), (_piv,), _perm_ref,
    "int32"))  # fmt: skip
_r = np.triu(_lin_gen((4, 4), "cu")) * 0.3 + 3 * np.eye(4, dtype=np.float32)
add("cholesky_update", Config(
    "float32(4, 4)", _lm.cholesky_update, (_r, _lin_gen((4,), "cuw")),
    lambda r, w: np.linalg.cholesky(r.T @ r + np.outer(w, w)).T, "float32", LOOSE))  # fmt: skip

# ---------------------------------------------------------------------------------------------
# Control flow (spmd._src.lax.control_flow): cond (also through switch), scan, while. The
# bodies use exact operations (max, add on grid values) so results equal the NumPy loops.


def _cond_ref(p, x, y):
    return np.maximum(x, y) if p else np.add(x, y)


def _switch_ref(i, x):
    i = min(max(int(i), 0), 2)
    return [x, np.maximum(x, -x), np.add(x, x)][i]


def _scan_ref(c, xs, reverse=False):
    ys = np.empty_like(xs)
    order = range(len(xs))[::-1] if reverse else range(len(xs))
    for i in order:
        c, ys[i] = np.maximum(c, xs[i]), np.add(c, xs[i])
    return [c, ys]


def _while_ref(acc, x):
    for _ in range(3):
        acc = np.add(acc, x)
    return acc


for _dt in NUMERIC:
    for _s in [(), (5,), (2, 3)]:
        _x = gen(_dt, _s, _GRID(_dt), seed="condx")
        _y = gen(_dt, _s, _GRID(_dt), seed="condy")
        for _p in (True, False):
            add("cond", Config(
                f"{_dt}{_s} pred={_p}",
                lambda p, x, y: lax.cond(p, lambda a, b: lax.max(a, b), lambda a, b: lax.add(a, b),
                                         x, y),
                (np.array(_p), _x, _y), _cond_ref, _dt, native=not _is_float(_dt)))  # fmt: skip
        for _i in (1, 2, 7):
            add("cond", Config(
                f"switch {_dt}{_s} index={_i}",
                lambda i, x: lax.switch(i, [lambda a: a, lambda a: lax.max(a, lax.neg(a)),
                                            lambda a: lax.add(a, a)], x),
                (np.array(_i, np.int32), _x), _switch_ref, _dt,
                native=not _is_float(_dt)))  # fmt: skip
        _c = gen(_dt, _s, _GRID(_dt), seed="scanc")
        _xs = gen(_dt, (4, *_s), _GRID(_dt), seed="scanxs")
        for _rev in (False, True):
            add("scan", Config(
                f"{_dt}{_s} reverse={_rev}",
                lambda c, xs, r=_rev: lax.scan(
                    lambda c, x: (lax.max(c, x), lax.add(c, x)), c, xs, reverse=r),
                (_c, _xs), lambda c, xs, r=_rev: _scan_ref(c, xs, r), [_dt, _dt],
                native=not _is_float(_dt)))  # fmt: skip
        add("scan", Config(
            f"{_dt}{_s} closing over an operand",
            lambda c, xs, k: lax.scan(lambda c, x: (lax.max(c, k), lax.add(x, k)), c, xs),
            (_c, _xs, _x), lambda c, xs, k: [np.maximum(c, k), np.add(xs, k)], [_dt, _dt],
            native=not _is_float(_dt)))  # fmt: skip
        add("while", Config(
            f"{_dt}{_s}",
            lambda acc, x: lax.while_loop(
                lambda c: lax.lt(c[0], np.int32(3)),
                lambda c: (lax.add(c[0], np.int32(1)), lax.add(c[1], x)), (np.int32(0), acc))[1],
            (_c, _x), _while_ref, _dt, native=not _is_float(_dt)))  # fmt: skip

# empty2: the placeholder a cond branch returns for a residual it does not make (a zero here).
from spmd._src.lax.control_flow import conditionals as _conditionals  # noqa: E402

# Added to an operand, so the rule sweeps see its (zero) derivative and its batching.
for _dt in NUMERIC:
    add("empty2", Config(
        f"{_dt}", lambda x: lax.add(x, _conditionals.empty2(x.dtype)),
        (gen(_dt, (2, 3), _GRID(_dt), seed="empty2"),), lambda x: x, _dt,
        native=not _is_float(_dt)))  # fmt: skip
add("empty2", Config("bool", lambda: _conditionals.empty2(np.dtype(bool)), (),
                     lambda: np.zeros((), bool), "bool"))  # fmt: skip

# ---------------------------------------------------------------------------------------------
# Random bits (spmd._src.lax.random_bits): the threefry primitives against a scalar Python
# Threefry-2x32 and JAX's partitionable counter layout (the default); the xla_* float kernels
# against float64 NumPy.

from spmd._src.lax import random_bits as _rb  # noqa: E402
from spmd._src.lax import random_math as _rm  # noqa: E402

_M32 = 0xFFFFFFFF


def _tf_ref(k1: int, k2: int, x1: int, x2: int) -> tuple[int, int]:
    ks = (k1, k2, k1 ^ k2 ^ 0x1BD11BDA)
    a, b = (x1 + k1) & _M32, (x2 + k2) & _M32
    for i in range(5):
        for r in ((13, 15, 26, 6), (17, 29, 16, 24))[i % 2]:
            a = (a + b) & _M32
            b = (((b << r) | (b >> (32 - r))) & _M32) ^ a
        a = (a + ks[(i + 1) % 3]) & _M32
        b = (b + ks[(i + 2) % 3] + i + 1) & _M32
    return a, b


def _tf_arrays_ref(k1, k2, x1, x2):
    k1, k2, x1, x2 = np.broadcast_arrays(k1, k2, x1, x2)
    pairs = [_tf_ref(*map(int, v)) for v in zip(k1.ravel(), k2.ravel(), x1.ravel(), x2.ravel())]
    out = np.array(pairs, np.uint32).reshape(k1.shape + (2,))
    return [out[..., 0], out[..., 1]]


def _keys_ref(keys, fn):
    """``fn(k1, k2)`` (Python ints) for every key of ``keys`` (uint32[..., 2]), stacked."""
    flat = keys.reshape(-1, 2)
    outs = [np.asarray(fn(int(k[0]), int(k[1]))) for k in flat]
    return np.stack(outs).reshape(keys.shape[:-1] + outs[0].shape)


def _bits_ref(keys, width, shape):
    n = math.prod(shape)

    def one(k1, k2):
        words = [a ^ b for a, b in (_tf_ref(k1, k2, i >> 32, i & _M32) for i in range(n))]
        return np.array(words, np.uint64).astype(f"u{width // 8}").reshape(shape)

    return _keys_ref(keys, one)


def _split_ref(keys, shape):
    n = math.prod(shape)
    return _keys_ref(keys, lambda k1, k2: np.array(
        [_tf_ref(k1, k2, 0, i) for i in range(n)], np.uint32).reshape(shape + (2,)))  # fmt: skip


def _key_data(shape, seed):
    return _rng(f"keys{shape}{seed}").integers(0, 2**32, shape + (2,), dtype=np.uint32)


for _s in [(), (5,), (2, 3)]:
    _args = tuple(
        _rng(f"threefry{_s}{i}").integers(0, 2**32, _s, dtype=np.uint32) for i in range(4)
    )
    add("threefry2x32", Config(f"uint32{_s}", lambda *a: _rb.threefry2x32(*a), _args,
                               _tf_arrays_ref, ["uint32", "uint32"], native=True))  # fmt: skip
add("threefry2x32", Config(
    "uint32 scalar key, vector counters", lambda *a: _rb.threefry2x32(*a),
    (np.uint32(7), np.uint32(0xFFFFFFFF), np.arange(4, dtype=np.uint32),
     np.arange(4, 8, dtype=np.uint32)),
    _tf_arrays_ref, ["uint32", "uint32"], native=True))  # fmt: skip
reject("threefry2x32", lambda *a: _rb.threefry2x32(*a), "int32", "float32", nargs=4)

for _kb in [(), (3,)]:
    for _w in (8, 16, 32):
        for _s in [(), (5,), (2, 3)]:
            add("random_bits", Config(
                f"keys{_kb} bits{_w} shape{_s}",
                lambda k, w=_w, s=_s: _rb.random_bits(k, w, s), (_key_data(_kb, _w),),
                lambda k, w=_w, s=_s: _bits_ref(k, w, s), f"uint{_w}", native=True))  # fmt: skip
    for _s in [(2,), (2, 3)]:
        add("random_split", Config(
            f"keys{_kb} shape{_s}", lambda k, s=_s: _rb.random_split(k, s),
            (_key_data(_kb, "split"),), lambda k, s=_s: _split_ref(k, s), "uint32",
            native=True))  # fmt: skip
    _msgs = _rng(f"msgs{_kb}").integers(0, 2**32, _kb, dtype=np.uint32)
    add("random_fold_in", Config(
        f"keys{_kb}", _rb.random_fold_in, (_key_data(_kb, "fold"), _msgs),
        lambda k, m: np.stack(_tf_arrays_ref(k[..., 0], k[..., 1], np.zeros_like(m), m), -1),
        "uint32", native=True))  # fmt: skip
for _dt in ("int32", "int8", "uint8", "uint32"):
    _x = gen(_dt, (4,), seed="seed")
    add("random_seed", Config(
        f"{_dt}(4,)", _rb.random_seed, (_x,),
        lambda x: np.stack([np.zeros(x.shape, np.uint32),
                            x.astype(np.int64).astype(np.uint32)], -1),
        "uint32", native=True))  # fmt: skip
reject("random_seed", _rb.random_seed, "float32")

for _name, _fn, _ref, _dom in [
    ("xla_log", _rb.xla_log, np.log, (0.01, 100.0)),
    ("xla_log1p", _rb.xla_log1p, np.log1p, (-0.9, 10.0)),
    ("xla_erf", _rb.xla_erf, _vec(math.erf), (-4.0, 4.0)),
    ("xla_erf_inv", _rb.xla_erf_inv, _vec(_erf_inv), (-0.99, 0.99)),
]:
    unary(_name, _fn, _ref, FLOATS, _dom, TRANS)
    reject(_name, _fn, "int32")
for _dt in FLOATS:
    for _s in SHAPES:
        _abc = tuple(gen(_dt, _s, (-2.0, 2.0), seed=f"fma{i}") for i in range(3))
        add("xla_fma", Config(f"{_dt}{_s}", _rb.xla_fma, _abc, lambda a, b, c: a * b + c, _dt,
                              TRANS))  # fmt: skip
    _abc = (gen(_dt, (2, 3), None, seed="fma0"), gen(_dt, (1, 3), None, seed="fma1"),
            gen(_dt, (), None, seed="fma2"))  # fmt: skip
    add("xla_fma", Config(f"{_dt} broadcast", _rb.xla_fma, _abc, lambda a, b, c: a * b + c, _dt,
                          TRANS))  # fmt: skip
reject("xla_fma", _rb.xla_fma, "int32", nargs=3)
# XLA CPU's exp (its own polynomial), tan and pow (the C library's), and float16 fma, which
# spmd.random's samplers use to give JAX's bits.
for _name, _fn, _ref, _dom in [
    ("xla_exp", _rm.xla_exp, np.exp, (-10.0, 10.0)),
    ("xla_tan", _rm.xla_tan, np.tan, (-1.5, 1.5)),
]:
    unary(_name, _fn, _ref, FLOATS, _dom, TRANS)
    reject(_name, _fn, "int32")
for _dt in FLOATS:
    for _s in SHAPES:
        _xy = (gen(_dt, _s, (0.1, 4.0), seed="pow0"), gen(_dt, _s, (-2.0, 2.0), seed="pow1"))
        add("xla_pow", Config(f"{_dt}{_s}", _rm.xla_pow, _xy, np.power, _dt, TRANS))
reject("xla_pow", _rm.xla_pow, "int32", nargs=2)
for _s in SHAPES:
    _abc = tuple(gen("float16", _s, (-2.0, 2.0), seed=f"fma16{i}") for i in range(3))
    add(
        "xla_fma16",
        Config(f"float16{_s}", _rm.xla_fma16, _abc, lambda a, b, c: a * b + c, "float16", TRANS),
    )
reject("xla_fma16", _rm.xla_fma16, "float32", nargs=3)

# ---------------------------------------------------------------------------------------------
# The jit call primitive.

for _dt in NUMERIC:
    for _s in SHAPES:
        _x = gen(_dt, _s, _GRID(_dt), seed="jit")

        def _body(y):
            return lax.add(lax.mul(y, y), y)

        add("jit", Config(f"{_dt}{_s}", lambda x: spmd.jit(_body)(x), (_x,),
                          lambda x: x * x + x, _dt, native=not _is_float(_dt)))  # fmt: skip
    _x = gen(_dt, (2, 3), _GRID(_dt), seed="jit2")
    _c = gen(_dt, (3,), _GRID(_dt), seed="jitc")

    def _body2(y, c=_c):
        return lax.max(y, lax.broadcast_in_dim(c, (2, 3), (1,))), lax.neg(y)

    add("jit", Config(f"{_dt} two results and a constant", lambda x, b=_body2: spmd.jit(b)(x),
                      (_x,), lambda x, c=_c: [np.maximum(x, c), -x], [_dt, _dt],
                      native=True))  # fmt: skip

JIT_PRIMITIVE = dispatch.jit_p


def all_primitives() -> dict[str, Any]:
    """Every Primitive object defined at module level under spmd._src.lax (subpackages
    included), plus jit_p."""
    import importlib
    import pkgutil

    import spmd._src.lax as lax_pkg
    from spmd._src import core

    prims: dict[str, Any] = {}
    # Subpackages too (control_flow/...), so no primitive escapes the sweep.
    for info in pkgutil.walk_packages(lax_pkg.__path__, prefix="spmd._src.lax."):
        mod = importlib.import_module(info.name)
        for value in vars(mod).values():
            if isinstance(value, core.Primitive):
                other = prims.setdefault(value.name, value)
                assert other is value, f"two primitives are named {value.name!r}"
    prims[JIT_PRIMITIVE.name] = JIT_PRIMITIVE
    return prims


__all__ = [
    "ENTRIES",
    "JIT_PRIMITIVE",
    "KNOWN_UNSWEPT",
    "REJECTS",
    "Config",
    "all_primitives",
    "gen",
]

# ---------------------------------------------------------------------------------------------
# Collectives (spmd._src.lax.parallel), each called through vmap(axis_name='i'): the operand's
# leading dimension holds the devices, and the traced call binds the collective once in its
# stacked (global) form. References are loops over the devices; float sums are left folds in
# device order (group order within groups) in the input dtype, compared bit for bit (native).

KNOWN_UNSWEPT.update({
    "psum_invariant": "exists only in shard_map bodies before they are batched, where it "
    "becomes psum (swept); see tests/test_collectives.py",
    "pvary": "an identity on values whose batching rule drops it; see tests/test_collectives.py",
    "axis_index": "no operands: batched, it is an iota; see tests/test_collectives.py",
})  # fmt: skip


def _per_device(fn, x, groups=None):
    """Per device d: ``fn(values of d's group in group order, position of d)``."""
    n = x.shape[0]
    groups = groups or [list(range(n))]
    outs = [None] * n
    for g in groups:
        vals = [x[i] for i in g]
        for p, d in enumerate(g):
            outs[d] = fn(vals, p)
    return np.stack(outs)


def _fold_ref(op, dtype):
    def f(vals, p):
        acc = np.array(vals[0], dtype=dtype)
        for v in vals[1:]:
            acc = np.asarray(op(acc, v), dtype=dtype)
        return acc

    return f


def _coll(name, lax_fn, ref, dts, shapes, groups_list, label=""):
    for dt in dts:
        for n, s in shapes:
            for groups in groups_list(n):
                x = gen(dt, (n, *s), (-3.0, 3.0) if _is_float(dt) else None,
                        seed=f"coll{name}{label}")  # fmt: skip
                add(name, Config(
                    f"{dt}{s} n={n} groups={groups}{label}",
                    lambda x, g=groups: spmd.vmap(lambda y: lax_fn(y, g), axis_name="i")(x),
                    (x,), lambda x, g=groups: ref(x, g), dt, native=True))  # fmt: skip


def _groups_none_and_some(n):
    out = [None]
    if n == 4:
        out += [[[0, 2], [3, 1]], [[1, 2, 3], [0]]]
    return out


def _equal_groups(n):
    return [None] + ([[[0, 2], [3, 1]]] if n == 4 else [])


_CSHAPES = [(2, ()), (4, (3,)), (4, (2, 3))]
for _name, _op in [("psum", np.add), ("pmax", np.maximum), ("pmin", np.minimum)]:
    _coll(_name,
          lambda y, g, nm=_name: getattr(lax, nm)(y, "i", axis_index_groups=g),
          lambda x, g, op=_op: _per_device(_fold_ref(op, x.dtype), x, g),
          ["float32", "int32", "float16", "int8"], _CSHAPES, _groups_none_and_some)  # fmt: skip

for _ax, _tiled in [(0, False), (-1, False), (0, True), (-1, True)]:
    _coll("all_gather",
          lambda y, g, a=_ax, t=_tiled: lax.all_gather(y, "i", axis=a, tiled=t,
                                                       axis_index_groups=g),
          lambda x, g, a=_ax, t=_tiled: _per_device(
              lambda vals, p: np.concatenate(vals, axis=a) if t else np.stack(vals, axis=a),
              x, g),
          ["float32", "int32"], [(2, (3,)), (4, (2, 4))], _equal_groups,
          f" axis={_ax} tiled={_tiled}")  # fmt: skip


def _scatter_ref(x, g, sd, tiled):
    def f(vals, p):
        total = _fold_ref(np.add, x.dtype)(vals, p)
        block = np.split(total, len(vals), axis=sd)[p]
        return block if tiled else np.squeeze(block, sd)

    return _per_device(f, x, g)


for _sd, _tiled, _s in [(0, False, (4, 3)), (-1, True, (3, 8)), (1, False, (2, 4))]:
    _coll("reduce_scatter",
          lambda y, g, sd=_sd, t=_tiled: lax.psum_scatter(y, "i", scatter_dimension=sd,
                                                          tiled=t, axis_index_groups=g),
          lambda x, g, sd=_sd, t=_tiled: _scatter_ref(x, g, sd, t),
          ["float32", "int32"],
          [(4, _s)] + ([(2, (2, 2))] if _tiled else []),
          lambda n, tl=_tiled: [None] if n == 2 or not tl else [None, [[0, 2], [3, 1]]],
          f" scatter_dimension={_sd} tiled={_tiled}")  # fmt: skip


def _a2a_ref(x, g, split, concat, tiled):
    def f(vals, p):
        parts = [np.split(v, len(vals), axis=split)[p] for v in vals]
        if tiled:
            return np.concatenate(parts, axis=concat)
        parts = [np.squeeze(q, split) for q in parts]
        return np.stack(parts, axis=concat)

    return _per_device(f, x, g)


for _sp, _ca, _tiled, _s in [(0, 0, False, (4, 3)), (0, 1, False, (4, 3)),
                             (1, 0, True, (2, 8)), (-1, -2, True, (3, 4))]:  # fmt: skip
    _coll("all_to_all",
          lambda y, g, a=_sp, b=_ca, t=_tiled: lax.all_to_all(y, "i", a, b, tiled=t,
                                                              axis_index_groups=g),
          lambda x, g, a=_sp, b=_ca, t=_tiled: _a2a_ref(x, g, a % 2, b % 2, t),
          ["float32", "int32"], [(4, _s)],
          lambda n, tl=_tiled: [None, [[0, 2], [3, 1]]] if tl else [None],
          f" split={_sp} concat={_ca} tiled={_tiled}")  # fmt: skip


def _ppermute_ref(x, perm):
    out = np.zeros_like(x)
    for s, d in perm:
        out[d] = x[s]
    return out


for _perm in [[(0, 1), (1, 2), (2, 3), (3, 0)], [(0, 2), (3, 1)], []]:
    _coll("ppermute",
          lambda y, g, pm=_perm: lax.ppermute(y, "i", pm),
          lambda x, g, pm=_perm: _ppermute_ref(x, pm),
          ["float32", "int32", "bool"], [(4, (3,)), (4, (2, 3))], lambda n: [None],
          f" perm={_perm}")  # fmt: skip

for _src in (0, 3):
    _coll("pbroadcast",
          lambda y, g, s=_src: lax.pbroadcast(y, "i", s),
          lambda x, g, s=_src: np.stack([x[s]] * x.shape[0]),
          ["float32", "int32"], [(4, (3,)), (4, ())], lambda n: [None],
          f" source={_src}")  # fmt: skip


def _ragged_a2a_ref(op, out, io, ss, oo, rs, groups):
    """Each sender's entry e (of s per member) goes to member e // s of its group, at the
    sender's output_offsets[e]."""
    res = np.array(out, copy=True)
    for grp in groups or [list(range(op.shape[0]))]:
        s = io.shape[1] // len(grp)
        for src in grp:
            for e in range(io.shape[1]):
                dst, n = grp[e // s], int(ss[src, e])
                res[dst, oo[src, e] : oo[src, e] + n] = op[src, io[src, e] : io[src, e] + n]
    return res


def _ragged_a2a_case(groups, ss):
    """Offsets and receive sizes that agree with send sizes ``ss``: each sender's slices in
    entry order with a gap of one row, each receiver's in sender order."""
    ss = np.asarray(ss)
    n_dev, k = ss.shape
    io = np.cumsum(np.concatenate([np.zeros((n_dev, 1), int), ss[:, :-1] + 1], 1), 1)
    oo, rs = np.zeros_like(ss), np.zeros_like(ss)
    s = k // len(groups[0])
    for grp in groups:
        for q, dst in enumerate(grp):
            at = 0
            for p, src in enumerate(grp):
                for t in range(s):
                    oo[src, q * s + t], rs[dst, p * s + t] = at, ss[src, q * s + t]
                    at += ss[src, q * s + t]
    return io, ss, oo, rs, int((io + ss).max()), int((oo + ss).max()) + 1


# Two devices (JAX's docstring example), and four in groups [0, 2], [3, 1] with two slices per
# pair (sizes 0 included).
_RAGGED = [
    (None, [[0, 1], [0, 1]], [[1, 2], [1, 1]], [[0, 0], [1, 2]], [[1, 1], [2, 1]], 3, 4),
    ([[0, 2], [3, 1]],
     *_ragged_a2a_case([[0, 2], [3, 1]], [[1, 0, 2, 1], [0, 1, 1, 1], [2, 1, 0, 0], [1, 0, 1, 2]])),
]  # fmt: skip
for _dt in ("float32", "int32", "bool"):
    for _g, _io, _ss, _oo, _rs, _n, _m in _RAGGED:
        _k = len(_io)
        _args = (gen(_dt, (_k, _n, 2), seed="ragged_op"), gen(_dt, (_k, _m, 2), seed="ragged_out"),
                 *(np.asarray(a, np.int32) for a in (_io, _ss, _oo, _rs)))  # fmt: skip
        add("ragged_all_to_all", Config(
            f"{_dt} n={_k} groups={_g}",
            lambda *a, g=_g: spmd.vmap(lambda *b: lax.ragged_all_to_all(
                *b, axis_name="i", axis_index_groups=g), axis_name="i")(*a),
            _args, lambda *a, g=_g: _ragged_a2a_ref(*a, g), _dt, native=True))  # fmt: skip

for _ax, _tiled in [(0, False), (-1, True)]:
    _coll("all_gather_invariant",
          lambda y, g, a=_ax, t=_tiled: lax.all_gather(y, "i", axis=a, tiled=t, to="invarying"),
          lambda x, g, a=_ax, t=_tiled: _per_device(
              lambda vals, p: np.concatenate(vals, axis=a) if t else np.stack(vals, axis=a), x),
          ["float32", "int32"], [(2, (3,)), (4, (2, 4))], lambda n: [None],
          f" axis={_ax} tiled={_tiled}")  # fmt: skip

KNOWN_UNSWEPT["peer_gather"] = (
    "joins the slices of a device axis held by the processes of an MPI job (in one process it "
    "joins one slice); its impl and vmap rule run in the jobs of tests/test_multiprocess.py, "
    "whose 48 results match one process's bit for bit, and in one process in "
    "tests/test_multiprocess.py"
)

# ---------------------------------------------------------------------------------------------
# Fourier transforms (spmd._src.lax.fft), through the un-jitted lax.fft (so that the call binds
# fft itself, after the operand's conversion to complex where the type asks for it). The kernel
# and the references both compute in double precision and round once, so complex results are
# compared exactly; IRFFT's real ones within LOOSE. The derivative sweep takes 4 of the 7
# float32 calls, evenly spaced (the 1st, 3rd, 5th and 7th): they are one per transform type.

from spmd._src.lax import fft as _fft_mod  # noqa: E402


def _fft_ref(kind, lengths):
    def ref(x):
        axes = tuple(range(x.ndim - len(lengths), x.ndim))
        if kind == "RFFT":
            return np.fft.rfftn(np.asarray(x, np.float64), axes=axes)
        x = np.asarray(x, np.complex128)
        if kind == "IRFFT":
            return np.fft.irfftn(x, s=lengths, axes=axes)
        return (np.fft.fftn if kind == "FFT" else np.fft.ifftn)(x, axes=axes)

    return ref


for _kind, _lengths, _shape, _dt in [
    ("FFT", (5,), (2, 5), "float32"),
    ("RFFT", (7,), (2, 7), "float32"),
    ("IFFT", (3, 4), (2, 3, 4), "float32"),
    ("FFT", (2, 3), (2, 3), "float32"),
    ("RFFT", (6,), (3, 6), "float32"),
    ("RFFT", (3, 4), (2, 3, 4), "float32"),
    ("IRFFT", (6,), (3, 4), "float32"),
    ("FFT", (8,), (8,), "complex64"),
    ("FFT", (3, 4), (2, 3, 4), "complex64"),
    ("FFT", (2, 3, 4), (2, 3, 4), "complex64"),
    ("IFFT", (7,), (3, 7), "complex64"),
    ("IRFFT", (7,), (2, 4), "complex64"),
    ("IRFFT", (3, 6), (2, 3, 4), "complex64"),
    ("IRFFT", (1,), (3, 1), "complex64"),
]:
    _out = "float32" if _kind == "IRFFT" else "complex64"
    add("fft", Config(
        f"{_kind} {_dt}{_shape} fft_lengths={_lengths}",
        lambda x, k=_kind, n=_lengths: _fft_mod._fft(x, _fft_mod.FftType[k], n),
        (gen(_dt, _shape, seed="fft"),),
        _fft_ref(_kind, _lengths),
        _out,
        LOOSE,
    ))  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Special functions (spmd._src.lax.special), against float64 references written independently of
# the kernels: the incomplete gamma series, the zeta sum with an integral tail, the incomplete
# beta hypergeometric series.


def _igamma_ref(a: float, x: float) -> float:
    return math.fsum(
        math.exp((a + n) * math.log(x) - x - math.lgamma(a + n + 1)) for n in range(300)
    )


def _igamma_grad_a_ref(a: float, x: float) -> float:
    h = 1e-6
    return (_igamma_ref(a + h, x) - _igamma_ref(a - h, x)) / (2 * h)


def _random_gamma_grad_ref(a: float, x: float) -> float:
    # -(dP/da) / (dP/dx), dP/dx the Gamma(a) density.
    return -_igamma_grad_a_ref(a, x) / math.exp((a - 1) * math.log(x) - x - math.lgamma(a))


def _igamma_grad_aa_ref(a: float, x: float) -> float:
    h = 1e-3
    return (_igamma_ref(a + h, x) - 2 * _igamma_ref(a, x) + _igamma_ref(a - h, x)) / (h * h)


def _zeta_ref(s: float, q: float) -> float:
    ks = np.arange(4000.0)
    return float(np.sum((q + ks) ** -s) + (q + 4000 - 0.5) ** (1 - s) / (s - 1))


def _betainc_ref(a: float, b: float, x: float) -> float:
    # B(x; a, b) = x^a sum_n (1 - b)_n x^n / (n! (a + n)), over B(a, b).
    total, coef = 0.0, 1.0
    for n in range(3000):
        total += coef / (a + n)
        coef *= (n + 1 - b) * x / (n + 1)
    lbeta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    return math.exp(a * math.log(x) - lbeta) * total


def _special_binary(name, fn, ref, dom1, dom2, tol):
    for _dt in FLOATS:
        for _s in SHAPES:
            _a = gen(_dt, _s, dom1, seed=name + "a")
            _x = gen(_dt, _s, dom2, seed=name + "x")
            add(name, Config(f"{_dt}{_s}", fn, (_a, _x),
                             lambda a, x: np.vectorize(ref, otypes=[np.float64])(a, x),
                             _dt, tol))  # fmt: skip
    reject(name, fn, "int32", nargs=2)


_special_binary("igamma", lax.igamma, _igamma_ref, (0.5, 5.0), (0.1, 6.0), LOOSE)
_special_binary("igammac", lax.igammac, lambda a, x: 1 - _igamma_ref(a, x),
                (0.5, 5.0), (0.1, 6.0), LOOSE)  # fmt: skip
_FD_TOL = {"float32": 1e-4, "float16": 1e-2, "bfloat16": 5e-2}  # the reference differences
_special_binary("igamma_grad_a", lax.igamma_grad_a, _igamma_grad_a_ref,
                (0.5, 5.0), (0.1, 6.0), _FD_TOL)  # fmt: skip
_special_binary("zeta", lax.zeta, _zeta_ref, (1.5, 6.0), (0.5, 4.0), LOOSE)
_special_binary("random_gamma_grad", lax.random_gamma_grad, _random_gamma_grad_ref,
                (0.5, 5.0), (0.1, 6.0), _FD_TOL)  # fmt: skip
_special_binary("igamma_grad_aa", lambda a, x: _lax_special._igamma_grad_aa_p.bind(a, x),
                _igamma_grad_aa_ref, (0.5, 5.0), (0.1, 6.0), _FD_TOL)  # fmt: skip
KNOWN_UNSWEPT["forward_only"] = (
    "an identity marking random_gamma_grad's tangents as having no transpose (as JAX's loops "
    "do); see test_random_gamma_grad_* in tests/test_scipy_special.py"
)

for _dt in FLOATS:
    for _s in SHAPES:
        _args = tuple(gen(_dt, _s, d, seed=f"betainc{i}")
                      for i, d in enumerate([(0.5, 4.0), (0.5, 4.0), (0.05, 0.9)]))  # fmt: skip
        add("regularized_incomplete_beta", Config(
            f"{_dt}{_s}", lax.betainc, _args,
            lambda a, b, x: np.vectorize(_betainc_ref, otypes=[np.float64])(a, b, x), _dt, LOOSE,
        ))  # fmt: skip
reject("regularized_incomplete_beta", lax.betainc, "int32", nargs=3)

KNOWN_UNSWEPT["custom_linear_solve"] = (
    "takes its matvec, solve and transpose solve as jaxprs; its impl, vmap, jvp, transpose and "
    "jit rules are checked against JAX in tests/test_solves.py"
)

KNOWN_UNSWEPT.update({
    "scaled_dot": "four operands (data and block scales) with shape constraints between them; "
    "tested against JAX in tests/test_scaled_dot.py",
    "create_token": "no operands, a token result (no values); tested in tests/test_tokens.py",
    "after_all": "token operands and result (no values); tested in tests/test_tokens.py",
})  # fmt: skip

# ---------------------------------------------------------------------------------------------
# XLA's bit generators (spmd._src.lax.rng_bit_generator)

KNOWN_UNSWEPT.update({
    "rng_bit_generator": "its vmap rule is JAX's, not per example (the first key makes every "
    "example's bits); checked bit for bit against JAX goldens in tests/test_rng_bit_generator.py",
    "rng_uniform": "stateful (each call draws new numbers), with no vmap or jvp rule as in JAX; "
    "tested in tests/test_rng_bit_generator.py",
})  # fmt: skip

# Mutable array references (spmd._src.lax.refs): their operand or result is a Ref, a buffer
# that they read or write in place, not a value the sweep's kernels can take and compare.
KNOWN_UNSWEPT.update({
    name: "reads, writes, makes or ends a Ref (a mutable buffer, not a value); tested against "
    "JAX's results eagerly, under jit, grad and vmap in tests/test_refs.py"
    for name in ("new_ref", "empty_ref", "get", "swap", "addupdate", "freeze", "free_ref")
})  # fmt: skip
