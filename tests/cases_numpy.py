"""Golden cases for ``jax.numpy``/``lax`` behaviour: one list, run by JAX and by spmd.

Each case is a name, a maker ``make(jnp, lax) -> fn`` and a tuple of arguments built with plain
NumPy (or Python scalars). ``Case.build(jnp, lax)`` returns ``(fn, args)``. The same file serves:

- ``tests/golden_gen/numpy_gen.py`` (run under real JAX with ``jax.numpy``/``jax.lax``), which
  records for every output leaf its dtype, weak type, shape and values into
  ``tests/golden/numpy.json``, for ``fn(*args)`` and for ``jax.jit(fn)(*args)``;
- ``tests/test_golden_numpy.py`` (no JAX), which runs the case with ``spmd.numpy``/``spmd.lax``
  eagerly and under ``spmd.jit`` and compares.

NumPy array arguments are turned into arrays of the library under test before the call (so
operators on them are the library's, not NumPy's); Python scalars stay Python scalars (weakly
typed). Anything that must be static (shapes, axes, concrete masks) is closed over by ``fn``.

Inputs are deterministic: no random numbers, so the goldens are stable.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

bf16 = ml_dtypes.bfloat16

# Looser float tolerances for functions whose XLA and NumPy kernels round differently
# (transcendental functions, long accumulations). Keys are dtype names; missing keys use the
# default of the comparison (float32 1e-6, float16 1e-3, bfloat16 1e-2).
TRANS = {"float32": 2e-6, "float16": 2e-3, "bfloat16": 2e-2}
LOOSE = {"float32": 1e-5, "float16": 4e-3, "bfloat16": 4e-2}


@dataclasses.dataclass(frozen=True)
class Case:
    """One golden case: ``make(jnp, lax)`` gives the function to call on ``args``.

    ``tol`` overrides float tolerances by dtype name; ``jit=False`` skips the jitted run (for
    functions whose output shape depends on values); ``error`` names the exception class JAX
    raises (the case then checks that spmd raises the same class).
    """

    name: str
    make: Callable[[Any, Any], Callable]
    args: tuple
    tol: dict | None = None
    jit: bool = True
    error: str | None = None

    def build(self, jnp, lax) -> tuple[Callable, tuple]:
        return self.make(jnp, lax), self.args


CASES: list[Case] = []


def case(name: str, make, *args, tol=None, jit=True, error=None) -> None:
    if any(c.name == name for c in CASES):
        raise ValueError(f"duplicate case name {name!r}")
    CASES.append(Case(name, make, tuple(args), tol, jit, error))


def flatten(out: Any) -> tuple[str, list]:
    """A structure string and the leaves of a nested tuple/list/dict output (own, so that the
    JAX and the spmd side describe structures identically)."""
    if isinstance(out, (tuple, list)):
        parts = [flatten(o) for o in out]
        br = "()" if isinstance(out, tuple) else "[]"
        return br[0] + ",".join(s for s, _ in parts) + br[1], [x for _, ls in parts for x in ls]
    if isinstance(out, dict):
        keys = sorted(out)
        parts = [flatten(out[k]) for k in keys]
        s = "{" + ",".join(f"{k}:{p}" for k, (p, _) in zip(keys, parts)) + "}"
        return s, [x for _, ls in parts for x in ls]
    if out is None:
        return "None", []
    return "*", [out]


def _path(mod, path: str):
    for part in path.split("."):
        mod = getattr(mod, part)
    return mod


def J(path: str, *pre, **kw):
    """Maker of ``jnp.<path>(*pre, *args, **kw)``."""
    return lambda jnp, lax: lambda *a: _path(jnp, path)(*pre, *a, **kw)


def L(path: str, *pre, **kw):
    """Maker of ``lax.<path>(*pre, *args, **kw)``."""
    return lambda jnp, lax: lambda *a: _path(lax, path)(*pre, *a, **kw)


# ---------------------------------------------------------------------------------------------
# Inputs

F = ((np.arange(12, dtype=np.float32) - 5.5) / 3).reshape(3, 4)  # [-1.83, 1.83], no zero
FZ = ((np.arange(12, dtype=np.float32) - 6) / 3).reshape(3, 4)  # has a zero
FP = (np.arange(1, 13, dtype=np.float32) / 4).reshape(3, 4)  # (0, 3]
FU = np.linspace(-0.9, 0.9, 12, dtype=np.float32).reshape(3, 4)  # (-1, 1)
FG = FP + np.float32(1)  # >= 1.25
F1 = np.array([0.5, -1.25, 2.0, 3.5, -0.75], np.float32)
F2 = (np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 11) / 5
FS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.5, 1e-30], np.float32)
FT = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.4, -0.6, 1.4999999], np.float32)  # ties
FB = (np.arange(12, dtype=np.float32) + 1).reshape(3, 4) / 8 + 0.3  # for pow: positive bases
F16 = F.astype(np.float16)
FP16 = FP.astype(np.float16)
BF = F.astype(bf16)
FPBF = FP.astype(bf16)
I = (np.arange(12, dtype=np.int32) - 5).reshape(3, 4)  # [-5, 6]
IP = (np.arange(12, dtype=np.int32) % 5 + 1).reshape(3, 4)  # [1, 5]
IN = np.array([[7, -7, 7, -7], [3, -3, 8, -8], [0, 1, -1, 5]], np.int32)  # numerators
ID = np.array([[2, 2, -2, -2], [5, 5, -3, -3], [3, -3, 3, -3]], np.int32)  # divisors, nonzero
I1 = np.array([3, -1, 4, 1, -5, 9, 2, -6], np.int32)
I8 = np.array([[-128, -3, 0, 5], [127, 100, -100, 7], [1, 2, 3, 4]], np.int8)
U8 = np.array([[0, 1, 200, 255], [3, 128, 7, 64], [9, 10, 11, 12]], np.uint8)
B = np.array([[1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 0, 0]], np.bool_)
B2 = np.array([[1, 1, 0, 0], [0, 1, 0, 1], [1, 0, 1, 0]], np.bool_)
SH = np.array([[0, 1, 2, 3], [7, 15, 30, 31], [8, 16, 4, 5]], np.int32)  # shift amounts
M44 = (np.arange(16, dtype=np.float32).reshape(4, 4) - 7) / 4
V3 = np.array([1.0, -2.0, 0.5], np.float32)
V4 = np.array([0.25, 1.5, -1.0, 2.0], np.float32)

# ---------------------------------------------------------------------------------------------
# Creation

case("array_list_int", lambda jnp, lax: lambda: jnp.array([1, 2, 3]))
case("array_list_float", lambda jnp, lax: lambda: jnp.array([[1.0, 2.5], [3.0, -4.0]]))
case("array_list_mixed", lambda jnp, lax: lambda: jnp.array([1, 2.5, True]))
case("array_list_bool", lambda jnp, lax: lambda: jnp.array([True, False]))
case("array_scalar_int", lambda jnp, lax: lambda: jnp.array(3))
case("array_scalar_float", lambda jnp, lax: lambda: jnp.array(3.5))
case("array_dtype", lambda jnp, lax: lambda: jnp.array([1, 2, 3], dtype=jnp.float16))
case("array_dtype_bf16", lambda jnp, lax: lambda: jnp.array([1.1, 2, 3], dtype=jnp.bfloat16))
case("array_of_array", lambda jnp, lax: lambda x: jnp.array(x), F)
case("array_np_float64", lambda jnp, lax: lambda: jnp.array(np.arange(4.0) / 3))
case("array_np_int64", lambda jnp, lax: lambda: jnp.array(np.arange(4)))
case("asarray_scalar", lambda jnp, lax: lambda: jnp.asarray(2.0))
case("asarray_list", lambda jnp, lax: lambda: jnp.asarray([[1, 2], [3, 4]], dtype=jnp.int8))
case("asarray_np_uint8", lambda jnp, lax: lambda: jnp.asarray(U8))
case("asarray_np_scalar", lambda jnp, lax: lambda: jnp.asarray(np.float32(2.5)))
case("asarray_array_dtype", lambda jnp, lax: lambda x: jnp.asarray(x, dtype=jnp.int32), F)
case("arange_stop", lambda jnp, lax: lambda: jnp.arange(5))
case("arange_start_stop", lambda jnp, lax: lambda: jnp.arange(2, 7))
case("arange_step", lambda jnp, lax: lambda: jnp.arange(1, 10, 3))
case("arange_neg_step", lambda jnp, lax: lambda: jnp.arange(5, -3, -2))
case("arange_float", lambda jnp, lax: lambda: jnp.arange(0.0, 1.0, 0.25))
case("arange_float_stop", lambda jnp, lax: lambda: jnp.arange(3.5))
case("arange_dtype", lambda jnp, lax: lambda: jnp.arange(4, dtype=jnp.float32))
case("arange_empty", lambda jnp, lax: lambda: jnp.arange(3, 1))
case("zeros", lambda jnp, lax: lambda: jnp.zeros((2, 3)))
case("zeros_int", lambda jnp, lax: lambda: jnp.zeros(4, dtype=jnp.int32))
case("zeros_scalar_shape", lambda jnp, lax: lambda: jnp.zeros(()))
case("ones", lambda jnp, lax: lambda: jnp.ones((3,), dtype=jnp.bfloat16))
case("ones_bool", lambda jnp, lax: lambda: jnp.ones((2, 2), dtype=bool))
case("full_float", lambda jnp, lax: lambda: jnp.full((2, 2), 1.5))
case("full_int", lambda jnp, lax: lambda: jnp.full((3,), 7))
case("full_dtype", lambda jnp, lax: lambda: jnp.full((2,), 3, dtype=jnp.float16))
case("full_array_fill", lambda jnp, lax: lambda v: jnp.full((2, 3), v), V3)
case("eye", lambda jnp, lax: lambda: jnp.eye(3))
case("eye_rect_k", lambda jnp, lax: lambda: jnp.eye(3, 4, k=1))
case("eye_neg_k_int", lambda jnp, lax: lambda: jnp.eye(4, k=-2, dtype=jnp.int32))
case("identity", lambda jnp, lax: lambda: jnp.identity(3, dtype=jnp.int8))
case("linspace", lambda jnp, lax: lambda: jnp.linspace(0, 1, 5))
case("linspace_no_endpoint", lambda jnp, lax: lambda: jnp.linspace(-1, 2, 4, endpoint=False))
case("linspace_int_dtype", lambda jnp, lax: lambda: jnp.linspace(0, 10, 4, dtype=jnp.int32))
case("linspace_num1", lambda jnp, lax: lambda: jnp.linspace(2.0, 3.0, 1))
case("meshgrid_xy", lambda jnp, lax: lambda a, b: jnp.meshgrid(a, b), V3, V4)
case("meshgrid_ij", lambda jnp, lax: lambda a, b: jnp.meshgrid(a, b, indexing="ij"), V3, I1)
case("zeros_like", J("zeros_like"), F)
case("ones_like_int", J("ones_like"), I)
case("full_like", J("full_like"), F16, 2.5)
case("full_like_dtype", lambda jnp, lax: lambda x: jnp.full_like(x, 3, dtype=jnp.int8), F)
case("zeros_like_shape", lambda jnp, lax: lambda x: jnp.zeros_like(x, shape=(2,)), F)
case("ones_like_scalar", J("ones_like"), 3.0)
case("empty_zero_size", lambda jnp, lax: lambda: jnp.empty((2, 0, 3)))
case("tri", lambda jnp, lax: lambda: jnp.tri(3, 4, k=0))
case("copy", J("copy"), F)
case("indices", lambda jnp, lax: lambda: jnp.indices((2, 3)))

# ---------------------------------------------------------------------------------------------
# Unary elementwise functions

_UNARY_FLOAT = {  # name -> input
    "sin": F, "cos": F, "tan": FU, "arcsin": FU, "arccos": FU, "arctan": F,
    "sinh": F, "cosh": F, "tanh": F, "arcsinh": F, "arccosh": FG, "arctanh": FU,
    "exp": F, "exp2": F, "expm1": F, "log": FP, "log2": FP, "log10": FP, "log1p": FP,
    "sqrt": FP, "cbrt": F, "square": F, "abs": F, "absolute": F, "fabs": F, "negative": F,
    "positive": F, "sign": FZ, "floor": F, "ceil": F, "rint": FT, "trunc": F, "reciprocal": FP,
    "deg2rad": F, "rad2deg": F, "degrees": F, "radians": F, "sinc": FZ, "isnan": FS,
    "isinf": FS, "isfinite": FS, "signbit": FS, "logical_not": FZ, "conj": F, "conjugate": F,
    "real": F, "imag": F, "round": FT, "around": FT, "isposinf": FS, "isneginf": FS,
    "spacing": FP, "nan_to_num": FS, "i0": F, "angle": F,
}  # fmt: skip
_EXACT_UNARY = {
    "square", "abs", "absolute", "fabs", "negative", "positive", "sign", "floor", "ceil",
    "rint", "trunc", "isnan", "isinf", "isfinite", "signbit", "logical_not", "conj",
    "conjugate", "real", "imag", "round", "around", "isposinf", "isneginf", "nan_to_num",
    "deg2rad", "rad2deg", "degrees", "radians", "reciprocal", "spacing", "angle",
}  # fmt: skip
for _n, _x in _UNARY_FLOAT.items():
    _tol = None if _n in _EXACT_UNARY else TRANS
    if _n in ("i0", "sinc"):
        _tol = LOOSE
    case(f"{_n}_f32", J(_n), _x, tol=_tol)

# Special values through transcendental functions.
for _n in ["exp", "log", "sqrt", "tanh", "sin", "arctan", "log1p", "expm1", "sign", "floor"]:
    case(f"{_n}_special", J(_n), FS, tol=TRANS)

# Integer and bool inputs (promotion to float for transcendental functions).
for _n in ["sin", "exp", "sqrt", "log", "tanh", "arctan", "cbrt"]:
    case(f"{_n}_int", J(_n), IP, tol=TRANS)
case("sin_bool", J("sin"), B, tol=TRANS)
case("exp_uint8", J("exp"), np.array([0, 1, 2, 5], np.uint8), tol=TRANS)
case("sqrt_int8", J("sqrt"), np.array([0, 1, 4, 9, 100], np.int8), tol=TRANS)
for _n in ["abs", "negative", "positive", "sign", "square", "invert", "floor", "ceil", "round"]:
    case(f"{_n}_int32", J(_n), I)
for _n in ["abs", "negative", "sign", "square", "invert"]:
    case(f"{_n}_int8", J(_n), I8)
    case(f"{_n}_uint8", J(_n), U8)
case("invert_bool", J("invert"), B)
case("logical_not_int", J("logical_not"), I)
case("isnan_int", J("isnan"), I)
case("isfinite_int", J("isfinite"), I)
case("signbit_int", J("signbit"), I)
case("real_int", J("real"), I)
case("imag_int", J("imag"), I)
case("reciprocal_int", J("reciprocal"), IP)

# Lower precision floats.
for _n in ["sin", "exp", "log", "sqrt", "tanh", "floor", "abs", "negative", "square", "sign"]:
    _in16 = FP16 if _n in ("log", "sqrt") else F16
    _inbf = FPBF if _n in ("log", "sqrt") else BF
    _tol = TRANS if _n in ("sin", "exp", "log", "sqrt", "tanh") else None
    case(f"{_n}_f16", J(_n), _in16, tol=_tol)
    case(f"{_n}_bf16", J(_n), _inbf, tol=_tol)
case("round_decimals", lambda jnp, lax: lambda x: jnp.round(x, 2), F, tol=TRANS)
case("round_decimals_neg", lambda jnp, lax: lambda x: jnp.round(x * 37, -1), F, tol=TRANS)
case("round_f16", J("round"), FT.astype(np.float16))
case("round_bf16", J("round"), FT.astype(bf16))
case("nan_to_num_args", lambda jnp, lax: lambda x: jnp.nan_to_num(x, nan=1.0, posinf=9.0), FS)
case("frexp", J("frexp"), F)
case("modf", J("modf"), F)
case("ldexp", J("ldexp"), F, I)

# ---------------------------------------------------------------------------------------------
# Binary elementwise functions

_BINARY_FLOAT = {  # name -> (x, y)
    "add": (F, FP), "subtract": (F, FP), "multiply": (F, FP), "divide": (F, FP),
    "true_divide": (F, FZ), "floor_divide": (F, FU), "remainder": (F, FU), "mod": (F, FU),
    "fmod": (F, FU), "power": (FB, F), "float_power": (FB, F), "maximum": (F, FU),
    "minimum": (F, FU), "fmax": (FS, FS[::-1].copy()), "fmin": (FS, FS[::-1].copy()),
    "arctan2": (F, FZ), "hypot": (F, FP), "logaddexp": (F, FU), "logaddexp2": (F, FU),
    "copysign": (FP, F), "nextafter": (F, FZ), "heaviside": (FZ, FP),
    "equal": (FZ, FZ * 0), "not_equal": (FZ, FZ * 0), "less": (F, FU), "less_equal": (FZ, FZ * 0),
    "greater": (F, FU), "greater_equal": (FZ, FZ * 0), "logical_and": (FZ, F),
    "logical_or": (FZ, FZ * 0), "logical_xor": (FZ, F), "divmod": (F, FU),
}  # fmt: skip
_TRANS_BINARY = {"power", "float_power", "arctan2", "hypot", "logaddexp", "logaddexp2"}
for _n, (_x, _y) in _BINARY_FLOAT.items():
    _tol = TRANS if _n in _TRANS_BINARY else None
    if _n in ("floor_divide", "remainder", "mod", "fmod", "divmod"):
        _tol = LOOSE  # the quotient is computed from a division that rounds
    case(f"{_n}_f32", J(_n), _x, _y, tol=_tol)

# Special values.
case("maximum_nan", J("maximum"), FS, FS[::-1].copy())
case("minimum_nan", J("minimum"), FS, FS[::-1].copy())
case("add_inf", J("add"), FS, FS[::-1].copy())
case("multiply_inf_zero", J("multiply"), FS, np.zeros(8, np.float32))
case("divide_by_zero", J("divide"), FS, np.array([0, 0, 0, 0, 0, 0, -0.0, 0], np.float32))
case("equal_nan", J("equal"), FS, FS)
case("less_nan", J("less"), FS, FS[::-1].copy())
case("remainder_neg_zero", J("remainder"), np.array([-4.0, 4.0, -0.0, 3.0], np.float32), 2.0)

_BINARY_INT = {
    "add": (I, ID), "subtract": (I, ID), "multiply": (I, ID), "floor_divide": (IN, ID),
    "remainder": (IN, ID), "mod": (IN, ID), "fmod": (IN, ID), "true_divide": (IN, ID),
    "divide": (IN, ID), "power": (I, IP), "maximum": (I, ID), "minimum": (I, ID),
    "bitwise_and": (I, ID), "bitwise_or": (I, ID), "bitwise_xor": (I, ID),
    "left_shift": (I, SH), "right_shift": (I, SH), "equal": (I, ID), "less": (I, ID),
    "greater_equal": (I, ID), "logical_and": (I, ID), "gcd": (IN, ID), "lcm": (IN, ID),
    "divmod": (IN, ID), "heaviside": (I, ID), "copysign": (I, ID), "arctan2": (I, ID),
    "hypot": (I, ID), "logaddexp": (I, ID),
}  # fmt: skip
for _n, (_x, _y) in _BINARY_INT.items():
    _tol = TRANS if _n in ("arctan2", "hypot", "logaddexp") else None
    case(f"{_n}_int32", J(_n), _x, _y, tol=_tol)

_I8B = np.array([[3, -3, 2, -2], [7, 7, -7, 1], [1, 2, 3, 4]], np.int8)
_U8B = np.array([[1, 2, 3, 255], [5, 128, 2, 64], [3, 3, 3, 3]], np.uint8)
for _n in ["add", "subtract", "multiply", "floor_divide", "remainder", "maximum", "true_divide"]:
    case(f"{_n}_int8", J(_n), I8, _I8B)
    case(f"{_n}_uint8", J(_n), U8, _U8B)
for _n in ["left_shift", "right_shift"]:
    case(f"{_n}_int8", J(_n), I8, np.array([[0, 1, 7, 8], [1, 2, 3, 4], [5, 6, 7, 0]], np.int8))
    case(f"{_n}_uint8", J(_n), U8, np.array([[0, 1, 7, 8], [1, 2, 3, 4], [5, 6, 7, 0]], np.uint8))
case("left_shift_oversize", J("left_shift"), I, np.int32(33))
case("right_shift_oversize", J("right_shift"), I, np.int32(40))
for _n in [
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "equal",
    "not_equal",
    "less",
    "maximum",
    "minimum",
    "add",
    "multiply",
]:
    case(f"{_n}_bool", J(_n), B, B2)
for _n in ["add", "multiply", "true_divide", "maximum", "power", "subtract"]:
    case(f"{_n}_f16", J(_n), FP16, F16, tol=TRANS if _n in ("true_divide", "power") else None)
    case(f"{_n}_bf16", J(_n), FPBF, BF, tol=TRANS if _n in ("true_divide", "power") else None)

# Scalar operands (weak types).
case("add_f32_pyint", J("add"), F, 3)
case("add_f16_pyfloat", J("add"), F16, 1.5)
case("mul_int8_pyint", J("multiply"), I8, 3)
case("mul_uint8_pyint", J("multiply"), U8, 2)
case("add_bf16_pyfloat", J("add"), BF, 0.1)
case("sub_pyfloat_int32", J("subtract"), 2.5, I)
case("true_divide_int_pyint", J("true_divide"), I, 2)
case("power_int_pyint", J("power"), I, 3)
case("power_f32_pyfloat", J("power"), FP, 0.5, tol=TRANS)
case("power_pyint_int", J("power"), 2, IP)
case("maximum_pyint_pyfloat", J("maximum"), 1, 2.5)
case("add_pyint_pyint", J("add"), 1, 2)
case("add_npscalar", J("add"), I8, np.int32(1))
case("add_npf32_scalar_int8", J("add"), I8, np.float32(1.5))

# ---------------------------------------------------------------------------------------------
# Python operators on arrays

_OPS = {
    "add": lambda x, y: x + y, "sub": lambda x, y: x - y, "mul": lambda x, y: x * y,
    "truediv": lambda x, y: x / y, "floordiv": lambda x, y: x // y, "mod": lambda x, y: x % y,
    "pow": lambda x, y: x**y, "and": lambda x, y: x & y, "or": lambda x, y: x | y,
    "xor": lambda x, y: x ^ y, "lshift": lambda x, y: x << y, "rshift": lambda x, y: x >> y,
    "eq": lambda x, y: x == y, "ne": lambda x, y: x != y, "lt": lambda x, y: x < y,
    "le": lambda x, y: x <= y, "gt": lambda x, y: x > y, "ge": lambda x, y: x >= y,
}  # fmt: skip


def _op(name):
    return lambda jnp, lax: _OPS[name]


for _n in [
    "add",
    "sub",
    "mul",
    "truediv",
    "floordiv",
    "mod",
    "pow",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
]:
    case(f"op_{_n}_f32", _op(_n), FB if _n == "pow" else F, FU, tol=LOOSE)
for _n in ["add", "sub", "mul", "truediv", "floordiv", "mod", "and", "or", "xor", "eq", "lt"]:
    case(f"op_{_n}_int32", _op(_n), IN, ID)
case("op_pow_int32", _op("pow"), I, IP)
case("op_lshift_int32", _op("lshift"), I, SH)
case("op_rshift_int32", _op("rshift"), I, SH)
case("op_rshift_uint8", _op("rshift"), U8, np.array([1, 2, 3, 7], np.uint8))
for _n in ["and", "or", "xor", "eq", "ne", "add", "mul", "lt"]:
    case(f"op_{_n}_bool", _op(_n), B, B2)
# With Python scalars on either side.
case("op_radd_pyint", lambda jnp, lax: lambda x: 1 + x, F)
case("op_rsub_pyfloat", lambda jnp, lax: lambda x: 1.5 - x, I)
case("op_rmul_pyfloat_f16", lambda jnp, lax: lambda x: 0.5 * x, F16)
case("op_rtruediv_pyint", lambda jnp, lax: lambda x: 1 / x, IP)
case("op_floordiv_pyint_neg", lambda jnp, lax: lambda x: x // -3, I)
case("op_mod_pyint_neg", lambda jnp, lax: lambda x: x % -3, I)
case("op_rmod_pyint", lambda jnp, lax: lambda x: 7 % x, ID)
case("op_rfloordiv_pyint", lambda jnp, lax: lambda x: -7 // x, ID)
case("op_pow2", lambda jnp, lax: lambda x: x**2, F)
case("op_pow3_int", lambda jnp, lax: lambda x: x**3, I)
case("op_pow0", lambda jnp, lax: lambda x: x**0, I)
case("op_pow_neg1", lambda jnp, lax: lambda x: x**-1, FP)
case("op_pow_half", lambda jnp, lax: lambda x: x**0.5, FP, tol=TRANS)
case("op_rpow", lambda jnp, lax: lambda x: 2**x, IP)
case("op_rpow_float", lambda jnp, lax: lambda x: 2.0**x, F, tol=TRANS)
case("op_pow_int8_int", lambda jnp, lax: lambda x: x**2, I8)
case("op_lshift_pyint", lambda jnp, lax: lambda x: x << 3, I)
case("op_rshift_pyint", lambda jnp, lax: lambda x: x >> 1, I8)
case("op_and_pyint", lambda jnp, lax: lambda x: x & 6, U8)
case("op_or_pybool", lambda jnp, lax: lambda x: x | True, B)
case("op_eq_pyfloat", lambda jnp, lax: lambda x: x == 2.0, I)
case("op_gt_pyint", lambda jnp, lax: lambda x: x > 0, F)
case("op_neg", lambda jnp, lax: lambda x: -x, F)
case("op_neg_uint8", lambda jnp, lax: lambda x: -x, U8)
case("op_pos", lambda jnp, lax: lambda x: +x, I)
case("op_abs", lambda jnp, lax: lambda x: abs(x), I8)
case("op_invert_int", lambda jnp, lax: lambda x: ~x, I)
case("op_invert_bool", lambda jnp, lax: lambda x: ~x, B)
case("op_invert_uint8", lambda jnp, lax: lambda x: ~x, U8)
case("op_divmod", lambda jnp, lax: lambda x, y: divmod(x, y), IN, ID)
case("op_chain", lambda jnp, lax: lambda x, y: (x * 2 - y) / (1 + abs(y)), F, FU)
case("op_broadcast_row", _op("add"), F, V4)
case("op_broadcast_col", _op("mul"), F, V3.reshape(3, 1))
case("op_broadcast_rank", _op("sub"), F2, F)
case("op_broadcast_outer", _op("add"), V3.reshape(3, 1), V4)
case("op_mixed_int_float", _op("add"), I, F)
case("op_mixed_int8_uint8", _op("add"), I8, U8)
case("op_mixed_bool_int", _op("add"), B, I)
case("op_mixed_f16_bf16", _op("mul"), F16, BF)

# ---------------------------------------------------------------------------------------------
# where, clip, select

case("where", J("where"), B, F, FU)
case("where_scalar_branches", J("where"), B, 1.0, 0)
case("where_int_scalar", J("where"), B, I, -1)
case("where_broadcast", J("where"), V4 > 0, F, 0.0)
case("where_nonbool_cond", J("where"), I, F, FU)
case("where_mixed", J("where"), B, I8, F16)
case("where_one_arg", lambda jnp, lax: lambda x: jnp.where(x), B, jit=False)
case("clip", J("clip"), F, -0.5, 0.75)
case("clip_kw", lambda jnp, lax: lambda x: jnp.clip(x, min=0), I)
case("clip_max_only", lambda jnp, lax: lambda x: jnp.clip(x, max=1.0), F)
case("clip_array_bounds", J("clip"), F, FU, FP)
case("clip_int8_pyint", J("clip"), I8, -5, 50)
case("clip_nan", J("clip"), FS, -1.0, 1.0)
case("select", lambda jnp, lax: lambda c1, c2, x: jnp.select([c1, c2], [x, -x], 7.0), B, B2, F)
case("isclose", J("isclose"), F, F + 1e-7)
case("allclose", J("allclose"), F, F + 1e-7)
case("array_equal", J("array_equal"), F, F)
case("isnan_where", lambda jnp, lax: lambda x: jnp.where(jnp.isnan(x), 0.0, x), FS)

# ---------------------------------------------------------------------------------------------
# Reductions

for _n in [
    "sum",
    "mean",
    "max",
    "min",
    "prod",
    "argmax",
    "argmin",
    "any",
    "all",
    "var",
    "std",
    "ptp",
    "cumsum",
    "cumprod",
    "count_nonzero",
    "median",
    "nansum",
    "nanmean",
    "nanmax",
    "nanmin",
    "amax",
    "amin",
]:
    _tol = LOOSE if _n in ("mean", "var", "std", "nanmean", "prod", "cumprod") else None
    case(f"{_n}_all", J(_n), F, tol=_tol)
    case(f"{_n}_axis0", J(_n, axis=0), F, tol=_tol)
    if _n not in ("cumsum", "cumprod"):
        case(f"{_n}_axis1_keepdims", J(_n, axis=1, keepdims=True), F, tol=_tol)
    case(f"{_n}_axisneg_3d", J(_n, axis=-1), F2, tol=_tol)
for _n in ["sum", "mean", "max", "min", "prod", "any", "all", "var", "std"]:
    case(f"{_n}_axis_tuple", J(_n, axis=(0, 2)), F2, tol=LOOSE)
for _n in ["sum", "prod", "max", "min", "mean", "cumsum", "cumprod", "argmax", "var"]:
    case(f"{_n}_int32", J(_n), I)
    case(f"{_n}_int8", J(_n), I8)
    case(f"{_n}_uint8", J(_n), U8)
    case(f"{_n}_bool", J(_n), B)
for _n in ["sum", "mean", "max", "prod", "cumsum", "var"]:
    case(f"{_n}_f16", J(_n, axis=0), F16, tol=LOOSE)
    case(f"{_n}_bf16", J(_n, axis=0), BF, tol=LOOSE)
case("sum_where", lambda jnp, lax: lambda x, m: jnp.sum(x, where=m), F, B)
case("sum_where_axis", lambda jnp, lax: lambda x, m: jnp.sum(x, axis=1, where=m), I, B)
case("mean_where", lambda jnp, lax: lambda x, m: jnp.mean(x, axis=0, where=m), F, B, tol=LOOSE)
case("max_where", lambda jnp, lax: lambda x, m: jnp.max(x, axis=1, where=m, initial=-9.0), F, B)
case("min_where", lambda jnp, lax: lambda x, m: jnp.min(x, where=m, initial=100), I, B)
case("prod_where", lambda jnp, lax: lambda x, m: jnp.prod(x, axis=0, where=m), FP, B, tol=LOOSE)
case("any_where", lambda jnp, lax: lambda x, m: jnp.any(x > 0, axis=1, where=m), F, B)
case("all_where", lambda jnp, lax: lambda x, m: jnp.all(x > -1, where=m), F, B)
case("var_where", lambda jnp, lax: lambda x, m: jnp.var(x, where=m), F, B, tol=LOOSE)
case("sum_initial", lambda jnp, lax: lambda x: jnp.sum(x, axis=0, initial=10), I)
case("max_initial", lambda jnp, lax: lambda x: jnp.max(x, initial=5.0), F)
case("sum_dtype", lambda jnp, lax: lambda x: jnp.sum(x, dtype=jnp.float32), I8)
case("sum_dtype_int8", lambda jnp, lax: lambda x: jnp.sum(x, axis=0, dtype=jnp.int8), I8)
case("mean_dtype", lambda jnp, lax: lambda x: jnp.mean(x, dtype=jnp.float16), F, tol=LOOSE)
case("cumsum_dtype", lambda jnp, lax: lambda x: jnp.cumsum(x, dtype=jnp.float32), I)
case("cumsum_flat", lambda jnp, lax: lambda x: jnp.cumsum(x), F2, tol=LOOSE)
case("var_ddof", lambda jnp, lax: lambda x: jnp.var(x, axis=1, ddof=1), F, tol=LOOSE)
case("std_ddof", lambda jnp, lax: lambda x: jnp.std(x, ddof=1), F, tol=LOOSE)
case("argmax_nan", J("argmax"), FS)
case("argmin_nan", J("argmin"), FS)
case("max_nan", J("max"), FS)
case("sum_nan", J("sum"), FS)
case("argmax_keepdims", lambda jnp, lax: lambda x: jnp.argmax(x, axis=1, keepdims=True), F)
case("argmin_ties", J("argmin", axis=0), np.array([[1, 0], [1, 0], [0, 0]], np.int32))
case("sum_empty", J("sum"), np.zeros((0, 3), np.float32))
case("max_empty_axis_initial", J("max", axis=0, initial=-1.0), np.zeros((0, 3), np.float32))
case("prod_empty", J("prod", axis=0), np.zeros((0, 2), np.int32))
case("mean_int_axis", J("mean", axis=1), IN)
case("average", J("average"), F, tol=LOOSE)
case("average_weights", lambda jnp, lax: lambda x, w: jnp.average(x, 1, w), F, V4, tol=LOOSE)
case("logsumexp_like", lambda jnp, lax: lambda x: jnp.log(jnp.sum(jnp.exp(x))), F, tol=LOOSE)
case("sum_scalar", J("sum"), 3.0)
case("method_sum", lambda jnp, lax: lambda x: x.sum(axis=0), F)
case("method_mean", lambda jnp, lax: lambda x: x.mean(), I, tol=LOOSE)
case("method_max", lambda jnp, lax: lambda x: x.max(1), F)
case("method_argmax", lambda jnp, lax: lambda x: x.argmax(), F)
case("method_cumsum", lambda jnp, lax: lambda x: x.cumsum(1), I)
case("method_any_all", lambda jnp, lax: lambda x: (x.any(), x.all(0)), B)
case("method_std_var", lambda jnp, lax: lambda x: (x.std(), x.var(1)), F, tol=LOOSE)
case("cumulative_sum", lambda jnp, lax: lambda x: jnp.cumulative_sum(x, axis=1), I)
case("diff", J("diff"), F)
case("diff_axis0_n2", lambda jnp, lax: lambda x: jnp.diff(x, n=2, axis=0), I)
case("quantile", lambda jnp, lax: lambda x: jnp.quantile(x, 0.25), F, tol=LOOSE)
case("percentile_axis", lambda jnp, lax: lambda x: jnp.percentile(x, 50, axis=1), F, tol=LOOSE)
case("nancumsum", J("nancumsum"), FS, tol=LOOSE)

# ---------------------------------------------------------------------------------------------
# Shape operations

case("reshape", lambda jnp, lax: lambda x: jnp.reshape(x, (4, 3)), F)
case("reshape_neg1", lambda jnp, lax: lambda x: jnp.reshape(x, (2, -1)), F)
case("reshape_scalar", lambda jnp, lax: lambda x: jnp.reshape(x, ()), np.float32(2.0))
case("reshape_F_order", lambda jnp, lax: lambda x: jnp.reshape(x, (4, 3), order="F"), F)
case("method_reshape_args", lambda jnp, lax: lambda x: x.reshape(2, 6), I)
case("method_reshape_tuple", lambda jnp, lax: lambda x: x.reshape((6, -1)), I)
case("transpose", J("transpose"), F2)
case("transpose_axes", lambda jnp, lax: lambda x: jnp.transpose(x, (1, 0, 2)), F2)
case("method_T", lambda jnp, lax: lambda x: x.T, F)
case("method_transpose_args", lambda jnp, lax: lambda x: x.transpose(2, 0, 1), F2)
case("method_mT", lambda jnp, lax: lambda x: x.mT, F2)
case("permute_dims", lambda jnp, lax: lambda x: jnp.permute_dims(x, (2, 1, 0)), I.reshape(1, 3, 4))
case("swapaxes", lambda jnp, lax: lambda x: jnp.swapaxes(x, 0, 2), F2)
case("moveaxis", lambda jnp, lax: lambda x: jnp.moveaxis(x, 0, -1), F2)
case("moveaxis_multi", lambda jnp, lax: lambda x: jnp.moveaxis(x, (0, 1), (2, 0)), F2)
case("expand_dims", lambda jnp, lax: lambda x: jnp.expand_dims(x, 1), F)
case("expand_dims_tuple", lambda jnp, lax: lambda x: jnp.expand_dims(x, (0, -1)), F)
case("squeeze", J("squeeze"), F.reshape(1, 3, 1, 4))
case("squeeze_axis", lambda jnp, lax: lambda x: jnp.squeeze(x, axis=2), F.reshape(1, 3, 1, 4))
case("method_squeeze", lambda jnp, lax: lambda x: x.squeeze(0), F.reshape(1, 3, 1, 4))
case("broadcast_to", lambda jnp, lax: lambda x: jnp.broadcast_to(x, (2, 3, 4)), V4)
case("broadcast_to_scalar", lambda jnp, lax: lambda: jnp.broadcast_to(1.5, (2, 2)))
case("broadcast_arrays", J("broadcast_arrays"), V3.reshape(3, 1), V4)
case("broadcast_shapes", lambda jnp, lax: lambda: jnp.zeros(jnp.broadcast_shapes((3, 1), (4,))))
case("concatenate", lambda jnp, lax: lambda x, y: jnp.concatenate([x, y]), F, FU)
case("concatenate_axis1", lambda jnp, lax: lambda x, y: jnp.concatenate((x, y), axis=1), F, I)
case("concatenate_none", lambda jnp, lax: lambda x, y: jnp.concatenate([x, y], axis=None), F, V3)
case("concatenate_mixed", lambda jnp, lax: lambda x, y: jnp.concatenate([x, y]), I8, U8)
case("concat", lambda jnp, lax: lambda x, y: jnp.concat([x, y], axis=-1), F, FU)
case("stack", lambda jnp, lax: lambda x, y: jnp.stack([x, y]), F, FU)
case("stack_axis", lambda jnp, lax: lambda x, y: jnp.stack([x, y], axis=-1), I, ID)
case("stack_scalars", lambda jnp, lax: lambda: jnp.stack([1.0, 2.0, 3.0]))
case("hstack", lambda jnp, lax: lambda x, y: jnp.hstack([x, y]), V3, V4)
case("vstack", lambda jnp, lax: lambda x, y: jnp.vstack([x, y]), V4, F)
case("dstack", lambda jnp, lax: lambda x, y: jnp.dstack([x, y]), F, FU)
case("column_stack", lambda jnp, lax: lambda x, y: jnp.column_stack([x, y]), V4, V4)
case("split_int", lambda jnp, lax: lambda x: jnp.split(x, 2, axis=1), F)
case("split_indices", lambda jnp, lax: lambda x: jnp.split(x, [1, 3], axis=1), F)
case("array_split", lambda jnp, lax: lambda x: jnp.array_split(x, 3), I1)
case("hsplit", lambda jnp, lax: lambda x: jnp.hsplit(x, 2), F)
case("vsplit", lambda jnp, lax: lambda x: jnp.vsplit(x, 3), F)
case("tile", lambda jnp, lax: lambda x: jnp.tile(x, 2), V3)
case("tile_2d", lambda jnp, lax: lambda x: jnp.tile(x, (2, 1, 2)), F)
case("repeat", lambda jnp, lax: lambda x: jnp.repeat(x, 2), F)
case("repeat_axis", lambda jnp, lax: lambda x: jnp.repeat(x, 3, axis=0), I)
case("repeat_array", lambda jnp, lax: lambda x: jnp.repeat(x, np.array([1, 0, 2]), axis=0), F)
case(
    "repeat_total_length",
    lambda jnp, lax: lambda x, r: jnp.repeat(x, r, total_repeat_length=6),
    V3,
    np.array([1, 2, 3], np.int32),
)
case("method_repeat", lambda jnp, lax: lambda x: x.repeat(2, axis=1), I)
case("ravel", J("ravel"), F2)
case("method_ravel", lambda jnp, lax: lambda x: x.ravel(), F)
case("method_flatten", lambda jnp, lax: lambda x: x.flatten(), I)
case("flip", J("flip"), F)
case("flip_axis", lambda jnp, lax: lambda x: jnp.flip(x, axis=1), F2)
case("fliplr", J("fliplr"), F)
case("flipud", J("flipud"), F)
case("roll", lambda jnp, lax: lambda x: jnp.roll(x, 2), F)
case("roll_axis", lambda jnp, lax: lambda x: jnp.roll(x, -1, axis=1), F)
case("roll_multi", lambda jnp, lax: lambda x: jnp.roll(x, (1, 2), axis=(0, 2)), F2)
case("rot90", J("rot90"), F)
case("rot90_k2", lambda jnp, lax: lambda x: jnp.rot90(x, 2, axes=(1, 2)), F2)
case("pad_constant", lambda jnp, lax: lambda x: jnp.pad(x, 1), F)
case("pad_pairs", lambda jnp, lax: lambda x: jnp.pad(x, ((1, 0), (0, 2))), I)
case("pad_value", lambda jnp, lax: lambda x: jnp.pad(x, (2, 1), constant_values=-1.0), V3)
case("pad_edge", lambda jnp, lax: lambda x: jnp.pad(x, 2, mode="edge"), V4)
case("pad_reflect", lambda jnp, lax: lambda x: jnp.pad(x, ((1, 1), (2, 2)), mode="reflect"), F)
case("pad_symmetric", lambda jnp, lax: lambda x: jnp.pad(x, 2, mode="symmetric"), V4)
case("pad_wrap", lambda jnp, lax: lambda x: jnp.pad(x, (1, 3), mode="wrap"), V4)
case("atleast_1d", J("atleast_1d"), 2.0)
case("atleast_2d", J("atleast_2d"), V3)
case("atleast_3d", J("atleast_3d"), F)
case("diag_vec", J("diag"), V3)
case("diag_mat", J("diag"), F)
case("diag_k", lambda jnp, lax: lambda x: jnp.diag(x, k=1), M44)
case("diagonal", J("diagonal"), F)
case("diagonal_offset", lambda jnp, lax: lambda x: jnp.diagonal(x, offset=-1), M44)
case("method_diagonal", lambda jnp, lax: lambda x: x.diagonal(), M44)
case("trace", J("trace"), M44)
case("method_trace", lambda jnp, lax: lambda x: x.trace(), I)
case("tril", J("tril"), M44)
case("triu_k", lambda jnp, lax: lambda x: jnp.triu(x, k=1), F)
case("append", J("append"), V3, V4)
case("append_axis", lambda jnp, lax: lambda x, y: jnp.append(x, y, axis=0), F, FU)
case("delete", lambda jnp, lax: lambda x: jnp.delete(x, 1, axis=1), F)
case("insert", lambda jnp, lax: lambda x: jnp.insert(x, 1, 5.0, axis=0), F)
case("nonzero", J("nonzero"), B, jit=False)
case("nonzero_size", lambda jnp, lax: lambda x: jnp.nonzero(x, size=8, fill_value=-1), B)
case("argwhere", J("argwhere"), I, jit=False)
case("flatnonzero", J("flatnonzero"), I1, jit=False)
case("ndim_shape_size", lambda jnp, lax: lambda x: jnp.zeros((jnp.ndim(x), jnp.size(x))), F)
case("resize", lambda jnp, lax: lambda x: jnp.resize(x, (2, 5)), V3)
case("unravel_index", lambda jnp, lax: lambda i: jnp.unravel_index(i, (3, 4)), I1 + 5)
case(
    "ravel_multi_index",
    lambda jnp, lax: lambda i, j: jnp.ravel_multi_index((i, j), (3, 4), mode="clip"),
    np.array([0, 2, 1], np.int32),
    np.array([3, 0, 1], np.int32),
)

# ---------------------------------------------------------------------------------------------
# astype / dtype conversion

for _src, _x in [("f32", FS), ("f32n", F * 100), ("int32", I * 1000), ("bool", B), ("u8", U8)]:
    for _dst in ["float32", "float16", "bfloat16", "int32", "int8", "uint8", "bool"]:
        if _src in ("f32",) and _dst in ("int32", "int8", "uint8"):
            continue  # NaN/inf to int is implementation defined
        if _src == "f32n" and _dst in ("uint8", "int8"):
            continue  # out of range float to small int is implementation defined
        case(f"astype_{_src}_{_dst}", lambda jnp, lax, d=_dst: lambda x: x.astype(d), _x)
case("astype_f32_f16_overflow", lambda jnp, lax: lambda x: x.astype(jnp.float16), F * 1e5)
case("astype_f32_bf16_round", lambda jnp, lax: lambda x: x.astype(jnp.bfloat16), FU / 3)
case("astype_f16_f32", lambda jnp, lax: lambda x: x.astype(jnp.float32), F16)
case("astype_neg_float_int", lambda jnp, lax: lambda x: x.astype(jnp.int32), F * 3)
case("astype_fn", lambda jnp, lax: lambda x: jnp.astype(x, jnp.int8), I * 50)
case("float32_ctor", lambda jnp, lax: lambda x: jnp.float32(x), I)
case("int32_ctor_scalar", lambda jnp, lax: lambda: jnp.int32(7))
case("bfloat16_ctor", lambda jnp, lax: lambda x: jnp.bfloat16(x), F)
case("bool_ctor", lambda jnp, lax: lambda x: jnp.bool_(x), I)
case("result_type", lambda jnp, lax: lambda: jnp.zeros(1, jnp.result_type(jnp.int8, 1.0)))
case("promote_types", lambda jnp, lax: lambda: jnp.zeros(1, jnp.promote_types("int8", "uint8")))

# ---------------------------------------------------------------------------------------------
# Indexing

_IDX = {
    "int": lambda x: x[1],
    "neg_int": lambda x: x[-1],
    "int_int": lambda x: x[1, 2],
    "slice": lambda x: x[1:3],
    "slice_step": lambda x: x[::2, 1:],
    "slice_neg_step": lambda x: x[::-1, ::-2],
    "slice_oob": lambda x: x[1:10, -10:2],
    "slice_empty": lambda x: x[2:1],
    "none": lambda x: x[None],
    "none_mid": lambda x: x[:, None, 1],
    "ellipsis": lambda x: x[..., 0],
    "ellipsis_none": lambda x: x[..., None],
    "int_slice": lambda x: x[2, 1:],
    "array_1d": lambda x: x[np.array([0, 2, 2])],
    "array_neg": lambda x: x[np.array([-1, 0])],
    "array_2d": lambda x: x[np.array([[0, 1], [2, 0]])],
    "array_pair": lambda x: x[np.array([0, 2]), np.array([1, 3])],
    "array_broadcast_pair": lambda x: x[np.array([[0], [2]]), np.array([1, 3])],
    "slice_array": lambda x: x[1:, np.array([0, 3])],
    "array_slice": lambda x: x[np.array([2, 0]), :2],
    "array_none_array": lambda x: x[np.array([0, 1]), None, np.array([1, 2])],
    "int_array": lambda x: x[1, np.array([3, 0])],
    "bool_mask": lambda x: x[np.array([True, False, True])],
    "bool_mask_2d": lambda x: x[B],
    "bool_mask_cols": lambda x: x[:, np.array([True, False, False, True])],
    "bool_scalar": lambda x: x[True],
    "array_oob_clamp": lambda x: x[np.array([5, -7])],
    "np_int_scalar": lambda x: x[np.int32(2)],
    "list_of_ints_tuple": lambda x: x[(1, 2)],
}
for _n, _f in _IDX.items():
    case(f"getitem_{_n}", lambda jnp, lax, f=_f: f, F)
case("getitem_3d_mixed", lambda jnp, lax: lambda x: x[np.array([1, 0]), :, np.array([2, 3])], F2)
case("getitem_3d_ellipsis_arr", lambda jnp, lax: lambda x: x[..., np.array([0, 0, 3])], F2)
case("getitem_traced_index", lambda jnp, lax: lambda x, i: x[i], F, np.array([2, 0], np.int32))
case("getitem_traced_scalar", lambda jnp, lax: lambda x, i: x[i, 1], F, np.int32(1))
case("getitem_traced_neg", lambda jnp, lax: lambda x, i: x[:, i], F, np.array([-1, 1], np.int32))
case("getitem_int_pyscalar_arg", lambda jnp, lax: lambda x, i: x[i], V4, 2)
case("getitem_mask_eager", lambda jnp, lax: lambda x: x[x > 0], F, jit=False)
case("getitem_1d_scalar", lambda jnp, lax: lambda x: x[3], I1)
case("getitem_int8_array", lambda jnp, lax: lambda x: x[np.array([1, 0], np.int8)], F)
case("getitem_uint8_data", lambda jnp, lax: lambda x: x[1:, ::3], U8)
case(
    "getitem_dynamic_slice",
    lambda jnp, lax: lambda x, i: lax.dynamic_slice_in_dim(x, i, 2),
    V4,
    np.int32(1),
)

_AT = {
    "set_int": lambda x: x.at[1].set(0.0),
    "set_scalar_elem": lambda x: x.at[1, 2].set(9.0),
    "set_slice": lambda x: x.at[:, 1:3].set(-1.0),
    "set_array": lambda x: x.at[0].set(np.array([1.0, 2.0, 3.0, 4.0], np.float32)),
    "set_broadcast_col": lambda x: x.at[:, 0].set(np.array([7.0, 8.0, 9.0], np.float32)),
    "set_fancy": lambda x: x.at[np.array([0, 2]), np.array([1, 3])].set(5.0),
    "set_mask": lambda x: x.at[B].set(0.0),
    "set_oob_dropped": lambda x: x.at[np.array([1, 5])].set(3.0),
    "set_neg": lambda x: x.at[-1, -1].set(4.0),
    "set_int_value_cast": lambda x: x.at[0, 0].set(3),
    "add": lambda x: x.at[1].add(1.0),
    "add_dup": lambda x: x.at[np.array([0, 0, 2])].add(1.0),
    "add_fancy_dup": lambda x: x.at[np.array([1, 1]), np.array([2, 2])].add(10.0),
    "multiply": lambda x: x.at[:, 1].multiply(2.0),
    "divide": lambda x: x.at[0].divide(4.0),
    "power": lambda x: x.at[0].power(2),
    "min": lambda x: x.at[np.array([0, 0])].min(np.array([[0.0, 0.0, 0.0, 0.0]] * 2, np.float32)),
    "max": lambda x: x.at[:, np.array([1, 1])].max(0.5),
    "get": lambda x: x.at[np.array([2, 0])].get(),
    "get_fill": lambda x: x.at[np.array([1, 4])].get(mode="fill", fill_value=-1.0),
    "get_clip": lambda x: x.at[np.array([1, 4])].get(mode="clip"),
    "set_ellipsis": lambda x: x.at[...].set(2.0),
    "set_none": lambda x: x.at[None, 0].set(1.0),
}
for _n, _f in _AT.items():
    case(f"at_{_n}", lambda jnp, lax, f=_f: lambda x: f(jnp.asarray(x)), F)
case("at_add_int", lambda jnp, lax: lambda x: x.at[np.array([0, 1, 0])].add(5), I)
case("at_set_int8_wrap", lambda jnp, lax: lambda x: x.at[0].add(100), I8)
case("at_traced_index", lambda jnp, lax: lambda x, i, v: x.at[i].set(v), V4, np.int32(2), 7.5)
case("at_traced_values", lambda jnp, lax: lambda x, v: x.at[1:].add(v), V4, V3)
case("at_bool", lambda jnp, lax: lambda x: x.at[0, 0].set(False), B)
case("at_bf16", lambda jnp, lax: lambda x: x.at[1].add(0.5), BF)
case("take", lambda jnp, lax: lambda x: jnp.take(x, np.array([0, 5, 11])), F)
case("take_axis", lambda jnp, lax: lambda x: jnp.take(x, np.array([3, 0]), axis=1), F)
case("take_2d_idx", lambda jnp, lax: lambda x: jnp.take(x, np.array([[0, 1], [1, 2]]), axis=0), F)
case("take_clip", lambda jnp, lax: lambda x: jnp.take(x, np.array([-5, 20]), mode="clip"), I1)
case("take_wrap", lambda jnp, lax: lambda x: jnp.take(x, np.array([-1, 9]), mode="wrap"), I1)
case("take_fill_oob", lambda jnp, lax: lambda x: jnp.take(x, np.array([1, 20])), V4)
case("take_fill_value", lambda jnp, lax: lambda x: jnp.take(x, np.array([1, 20]), fill_value=0), I1)
case(
    "take_traced",
    lambda jnp, lax: lambda x, i: jnp.take(x, i, axis=0),
    F,
    np.array([2, 2, 0], np.int32),
)
case("method_take", lambda jnp, lax: lambda x: x.take(np.array([1, 2])), I1)
case(
    "take_along_axis",
    lambda jnp, lax: lambda x, i: jnp.take_along_axis(x, i, axis=1),
    F,
    np.array([[3, 0], [1, 1], [2, 0]], np.int32),
)
case(
    "take_along_axis_argsort",
    lambda jnp, lax: lambda x: jnp.take_along_axis(x, jnp.argsort(x, axis=0), axis=0),
    FU,
)
case(
    "take_along_axis_none",
    lambda jnp, lax: lambda x: jnp.take_along_axis(x, np.array([11, 0]), axis=None),
    F,
)
case(
    "put_along_axis",
    lambda jnp, lax: (
        lambda x: jnp.put_along_axis(x, np.array([[0], [1], [2]]), 0.0, axis=1, inplace=False)
    ),
    F,
)
case(
    "choose",
    lambda jnp, lax: lambda i: jnp.choose(i, [V4, V4 * 2, V4 * 3]),
    np.array([0, 2, 1, 0], np.int32),
    jit=False,
)
case(
    "compress",
    lambda jnp, lax: lambda x: jnp.compress(np.array([1, 0, 1]), x, axis=0),
    F,
    jit=False,
)
case("extract", lambda jnp, lax: lambda x: jnp.extract(B, x), F, jit=False)
case("searchsorted", J("searchsorted"), np.array([0.0, 1.0, 2.5, 4.0], np.float32), F1)
case(
    "searchsorted_right",
    lambda jnp, lax: lambda a, v: jnp.searchsorted(a, v, side="right"),
    np.array([1, 2, 2, 3], np.int32),
    np.array([2, 0, 5, 3], np.int32),
)
case("digitize", J("digitize"), F1, np.array([-1.0, 0.0, 1.0, 3.0], np.float32))

# ---------------------------------------------------------------------------------------------
# Sorting

case("sort", J("sort"), F)
case("sort_axis0", J("sort", axis=0), F)
case("sort_none", J("sort", axis=None), F)
case("sort_nan", J("sort"), FS)
case("sort_int", J("sort"), I1)
case("sort_bool", J("sort"), B)
case("sort_descending", J("sort", descending=True), I1)
case("sort_3d", J("sort", axis=1), F2)
case("sort_bf16", J("sort"), BF)
case("argsort", J("argsort"), F)
case("argsort_ties", J("argsort"), np.array([2, 1, 2, 1, 0, 2], np.int32))
case("argsort_axis0", J("argsort", axis=0), I)
case(
    "argsort_descending_stable",
    J("argsort", descending=True, stable=True),
    np.array([2, 1, 2, 1, 0, 2], np.int32),
)
case("argsort_nan", J("argsort"), FS)
case("method_sort", lambda jnp, lax: lambda x: x.sort(), I1)
case("method_argsort", lambda jnp, lax: lambda x: x.argsort(axis=0), F)
case(
    "lexsort",
    lambda jnp, lax: lambda a, b: jnp.lexsort((a, b)),
    np.array([1, 0, 1, 0], np.int32),
    np.array([2, 2, 1, 1], np.int32),
)
case("partition", lambda jnp, lax: lambda x: jnp.sort(jnp.partition(x, 3)), I1)
case("unique", J("unique"), np.array([3, 1, 3, 2, 1], np.int32), jit=False)
case(
    "unique_size",
    lambda jnp, lax: lambda x: jnp.unique(x, size=4, fill_value=0),
    np.array([3, 1, 3, 2, 1], np.int32),
)
case("top_k", lambda jnp, lax: lambda x: lax.top_k(x, 3), F)
case(
    "lax_sort_multi",
    lambda jnp, lax: lambda a, b: lax.sort((a, b), num_keys=1),
    np.array([3, 1, 2], np.int32),
    V3,
)

# ---------------------------------------------------------------------------------------------
# Linear algebra

A23 = (np.arange(6, dtype=np.float32).reshape(2, 3) - 2) / 3
A34 = F
A234 = F2
A243 = (np.arange(24, dtype=np.float32).reshape(2, 4, 3) + 1) / 9
case("dot_1d", J("dot"), V3, V3)
case("dot_2d", J("dot"), A23, A34)
case("dot_2d_1d", J("dot"), A34, V4)
case("dot_scalar", J("dot"), 2.0, V3)
case("dot_nd", J("dot"), A234, A243)
case("dot_int", J("dot"), I, ID.T.copy())
case("dot_int8", J("dot"), I8, _I8B.T.copy())
case("dot_bool", J("dot"), B, B2.T.copy())
case("dot_mixed", J("dot"), I, A34.T.copy())
case("dot_bf16", J("dot"), BF, BF.T.copy(), tol=LOOSE)
case("dot_f16", J("dot"), F16, F16.T.copy(), tol=LOOSE)
case("vdot", J("vdot"), A34, FU)
case("vdot_1d", J("vdot"), V4, V4)
case("matmul", J("matmul"), A23, A34)
case("matmul_batched", J("matmul"), A234, A243)
case("matmul_broadcast", J("matmul"), A234, A34.T.copy())
case("matmul_1d_2d", J("matmul"), V3, A34)
case("matmul_2d_1d", J("matmul"), A34, V4)
case("matmul_1d_1d", J("matmul"), V4, V4)
case("matmul_int", J("matmul"), I, ID.T.copy())
case(
    "matmul_preferred",
    lambda jnp, lax: lambda a, b: jnp.matmul(a, b, preferred_element_type=jnp.float32),
    BF,
    BF.T.copy(),
    tol=LOOSE,
)
case("op_matmul", lambda jnp, lax: lambda a, b: a @ b, A23, A34)
case("op_matmul_batched", lambda jnp, lax: lambda a, b: a @ b, A243, A34)
case("op_rmatmul_np", lambda jnp, lax: lambda b: A23 @ b, A34)
case("method_dot", lambda jnp, lax: lambda a, b: a.dot(b), A23, A34)
for _sub, _ops in [
    ("ij,jk->ik", (A23, A34)),
    ("ij,jk", (A23, A34)),
    ("ii->i", (M44,)),
    ("ii", (M44,)),
    ("ij->ji", (A34,)),
    ("ij->", (A34,)),
    ("ij->j", (A34,)),
    ("bij,bjk->bik", (A234, A243)),
    ("i,i->", (V4, V4)),
    ("i,j->ij", (V3, V4)),
    ("ij,j->i", (A34, V4)),
    ("...ij,...jk->...ik", (A234, A243)),
    ("bij,jk->bki", (A243, A34)),
    ("ijk,ikl->jl", (A234, A243[:, :, :2].copy())),
    ("ij,ij->ij", (A34, FU)),
    ("ab,bc,cd->ad", (A23, A34, M44)),
]:
    _nm = "einsum_" + _sub.replace(",", "_").replace("->", "_to_").replace("...", "E")
    case(_nm, lambda jnp, lax, s=_sub: lambda *ops: jnp.einsum(s, *ops), *_ops, tol=LOOSE)
case("einsum_int", lambda jnp, lax: lambda a, b: jnp.einsum("ij,kj->ik", a, b), I, ID)
case("einsum_mixed", lambda jnp, lax: lambda a, b: jnp.einsum("ij,kj->ik", a, b), I8, F)
case("tensordot_int_axes", lambda jnp, lax: lambda a, b: jnp.tensordot(a, b, 1), A23, A34)
case(
    "tensordot_2",
    lambda jnp, lax: lambda a, b: jnp.tensordot(a, b, 2),
    A234,
    A234.transpose(1, 2, 0) * 2,
)
case("tensordot_0", lambda jnp, lax: lambda a, b: jnp.tensordot(a, b, 0), V3, V4)
case(
    "tensordot_pairs",
    lambda jnp, lax: lambda a, b: jnp.tensordot(a, b, axes=([1, 0], [0, 2])),
    A234.transpose(1, 0, 2).copy(),
    A243,
)
case("outer", J("outer"), V3, V4)
case("outer_2d", J("outer"), A23, V3)
case("outer_int", J("outer"), I1, I1)
case("inner", J("inner"), A34, FU)
case("inner_1d", J("inner"), V4, V4)
case("kron", J("kron"), A23, np.eye(2, dtype=np.float32))
case("cross", J("cross"), V3, np.array([0.5, 1.0, -1.5], np.float32))
case("matrix_transpose", J("matrix_transpose"), A234)
case("vecdot", J("vecdot"), A34, FU)
for _n, _kw, _x in [
    ("default", {}, A34),
    ("vec", {}, V4),
    ("ord1_vec", {"ord": 1}, V4),
    ("ordinf_vec", {"ord": np.inf}, V4),
    ("ord0_vec", {"ord": 0}, np.array([0.0, 1.0, 0.0, 3.0], np.float32)),
    ("ord3_vec", {"ord": 3}, V4),
    ("fro", {"ord": "fro"}, A34),
    ("ord1_mat", {"ord": 1}, A34),
    ("ordinf_mat", {"ord": np.inf}, A34),
    ("axis", {"axis": 1}, A34),
    ("axis_keepdims", {"axis": 0, "keepdims": True}, A34),
    ("axis_tuple", {"axis": (1, 2)}, A234),
    ("int", {}, I1),
]:
    case(f"linalg_norm_{_n}", J("linalg.norm", **_kw), _x, tol=TRANS)
case("linalg_matmul", J("linalg.matmul"), A23, A34)
case("linalg_vector_norm", J("linalg.vector_norm"), A34, tol=TRANS)
case("linalg_matrix_norm", J("linalg.matrix_norm"), A234, tol=TRANS)
case("linalg_det", J("linalg.det"), M44 + 2 * np.eye(4, dtype=np.float32), tol=LOOSE)
case("linalg_inv", J("linalg.inv"), M44 + 3 * np.eye(4, dtype=np.float32), tol=LOOSE)
case("linalg_solve", J("linalg.solve"), M44 + 3 * np.eye(4, dtype=np.float32), V4, tol=LOOSE)

# ---------------------------------------------------------------------------------------------
# Convolution

case("convolve_full", J("convolve"), F1, V3)
case("convolve_same", J("convolve", mode="same"), F1, V3)
case("convolve_valid", J("convolve", mode="valid"), F1, V3)
case("convolve_int", J("convolve"), I1, np.array([1, -1, 2], np.int32))
case("convolve_swapped", J("convolve"), V3, F1)
case("convolve_same_even", J("convolve", mode="same"), F1, V4)
case("convolve_mixed", J("convolve"), I1, V3)
case("correlate_valid", J("correlate"), F1, V3)
case("correlate_full", J("correlate", mode="full"), F1, V3)

# ---------------------------------------------------------------------------------------------
# lax functions called directly

case("lax_add", L("add"), F, FU)
case("lax_add_pyscalar", L("add"), F, 2.0)
case("lax_sub_int", L("sub"), I, ID)
case("lax_div_int", L("div"), IN, ID)
case("lax_rem_int", L("rem"), IN, ID)
case("lax_rem_float", L("rem"), F, FU, tol=LOOSE)
case("lax_integer_pow", L("integer_pow", y=3), F)
case("lax_integer_pow_neg", L("integer_pow", y=-2), FP)
case("lax_pow", L("pow"), FB, F, tol=TRANS)
case("lax_rsqrt", L("rsqrt"), FP, tol=TRANS)
case("lax_erf", L("erf"), F, tol=TRANS)
case("lax_erfc", L("erfc"), F, tol=TRANS)
case("lax_erf_inv", L("erf_inv"), FU, tol=LOOSE)
case("lax_lgamma", L("lgamma"), FP, tol=LOOSE)
case("lax_digamma", L("digamma"), FP, tol=LOOSE)
case("lax_logistic", L("logistic"), F, tol=TRANS)
case("lax_round_even", L("round", rounding_method=1), FT)
case("lax_round_away", L("round"), FT)
case("lax_select", L("select"), B, F, FU)
case("lax_select_n", L("select_n"), np.array([0, 1, 2, 1], np.int32), V4, -V4, V4 * 2)
case("lax_clamp", L("clamp"), -0.5, F, 0.5)
case("lax_max", L("max"), FS, FS[::-1].copy())
case("lax_shift_right_logical", L("shift_right_logical"), I, SH)
case("lax_shift_right_arithmetic", L("shift_right_arithmetic"), I, SH)
case("lax_shift_left", L("shift_left"), I, SH)
case("lax_population_count", L("population_count"), I)
case("lax_clz", L("clz"), I)
case("lax_clz_uint8", L("clz"), U8)
case("lax_nextafter", L("nextafter"), F, FZ)
case("lax_convert_element_type", L("convert_element_type", new_dtype=np.int8), F * 10)
case("lax_convert_to_bf16", L("convert_element_type", new_dtype=bf16), F)
case("lax_bitcast", L("bitcast_convert_type", new_dtype=np.int32), F)
case("lax_bitcast_narrow", L("bitcast_convert_type", new_dtype=np.uint8), V4)
case("lax_bitcast_widen", L("bitcast_convert_type", new_dtype=np.float32), U8)
case("lax_reduce_precision", L("reduce_precision", exponent_bits=5, mantissa_bits=10), F / 3)
case(
    "lax_broadcast_in_dim",
    L("broadcast_in_dim", shape=(2, 3, 4), broadcast_dimensions=(1, 2)),
    V3.reshape(3, 1),
)
case("lax_broadcast", L("broadcast", sizes=(2,)), V3)
case("lax_reshape", L("reshape", new_sizes=(4, 3)), F)
case("lax_reshape_dims", L("reshape", new_sizes=(12,), dimensions=(1, 0)), F)
case("lax_transpose", L("transpose", permutation=(2, 0, 1)), F2)
case("lax_squeeze", L("squeeze", dimensions=(0,)), F.reshape(1, 3, 4))
case("lax_expand_dims", L("expand_dims", dimensions=(0, 2)), F)
case("lax_rev", L("rev", dimensions=(0, 1)), F)
case("lax_slice", L("slice", start_indices=(0, 1), limit_indices=(3, 4), strides=(2, 2)), F)
case("lax_slice_in_dim", L("slice_in_dim", start_index=1, limit_index=3, axis=1), F)
case("lax_index_in_dim", L("index_in_dim", index=2, axis=1, keepdims=False), F)
case("lax_pad", L("pad", padding_value=np.float32(0.5), padding_config=((1, 2, 1), (0, -1, 0))), F)
case("lax_pad_negative", L("pad", padding_value=np.int32(0), padding_config=((-1, 1, 0),)), I1)
case("lax_concatenate", lambda jnp, lax: lambda a, b: lax.concatenate([a, b], 1), F, FU)
case("lax_iota", lambda jnp, lax: lambda: lax.iota(np.int32, 5))
case("lax_broadcasted_iota", lambda jnp, lax: lambda: lax.broadcasted_iota(np.float32, (2, 3), 1))
case("lax_full", lambda jnp, lax: lambda: lax.full((2, 2), 3.0, np.int8))
case("lax_full_like", L("full_like", fill_value=7), F)
case("lax_reduce_sum", L("reduce_sum", axes=(0,)), F)
case("lax_reduce_max", L("reduce_max", axes=(1,)), I)
case("lax_reduce_min", L("reduce_min", axes=(0, 1)), F)
case("lax_reduce_prod", L("reduce_prod", axes=(1,)), IP)
case("lax_reduce_and", L("reduce_and", axes=(1,)), B)
case("lax_reduce_or", L("reduce_or", axes=(0,)), B)
case("lax_reduce_xor", L("reduce_xor", axes=(1,)), I)
case("lax_argmax", L("argmax", axis=1, index_dtype=np.int32), F)
case("lax_argmin", L("argmin", axis=0, index_dtype=np.int32), FS.reshape(2, 4))
case("lax_cumsum", L("cumsum", axis=1), F)
case("lax_cumsum_reverse", L("cumsum", axis=0, reverse=True), I)
case("lax_cumprod", L("cumprod", axis=1), IP)
case("lax_cummax", L("cummax", axis=1), F)
case("lax_cummin", L("cummin", axis=0, reverse=True), I)
case("lax_cumlogsumexp", L("cumlogsumexp", axis=1), F, tol=LOOSE)
case(
    "lax_dynamic_slice",
    lambda jnp, lax: lambda x, i: lax.dynamic_slice(x, (i, 1), (2, 2)),
    F,
    np.int32(1),
)
case("lax_dynamic_slice_clamp", lambda jnp, lax: lambda x: lax.dynamic_slice(x, (5, -3), (2, 2)), F)
case(
    "lax_dynamic_update_slice",
    lambda jnp, lax: lambda x, u: lax.dynamic_update_slice(x, u, (1, 2)),
    F,
    A23[:, :2].copy(),
)
case(
    "lax_dynamic_update_slice_clamp",
    lambda jnp, lax: lambda x, u: lax.dynamic_update_slice(x, u, (2, 3)),
    F,
    A23[:, :2].copy(),
)
case(
    "lax_dynamic_index_in_dim",
    lambda jnp, lax: lambda x: lax.dynamic_index_in_dim(x, 1, axis=1, keepdims=False),
    F,
)
case("lax_dot", L("dot"), A23, A34)
case(
    "lax_dot_general",
    L("dot_general", dimension_numbers=(((2,), (1,)), ((0,), (0,)))),
    A243,
    A234,
    tol=LOOSE,
)
case(
    "lax_dot_general_preferred",
    L("dot_general", dimension_numbers=(((1,), (0,)), ((), ())), preferred_element_type=np.float32),
    I8,
    _I8B.T.copy(),
)
case(
    "lax_conv",
    L("conv", window_strides=(1, 1), padding="SAME"),
    F2.reshape(1, 2, 3, 4),
    np.ones((3, 2, 2, 2), np.float32) / 4,
    tol=LOOSE,
)
case(
    "lax_conv_general_dilated",
    L(
        "conv_general_dilated",
        window_strides=(2,),
        padding=((1, 1),),
        lhs_dilation=(1,),
        rhs_dilation=(2,),
    ),
    F2.reshape(2, 3, 4)[:1],
    np.arange(6, dtype=np.float32).reshape(2, 3, 1) / 5,
    tol=LOOSE,
)
case("lax_sort", L("sort"), F)
case("lax_sort_dim", L("sort", dimension=0), I)

# ---------------------------------------------------------------------------------------------
# Errors: bad input raises the builtin class JAX raises (values are not compared).

for _n, _f, _err in [
    ("reshape_size", lambda jnp, lax: lambda x: jnp.reshape(x, (5,)), "TypeError"),
    ("broadcast_shapes", lambda jnp, lax: lambda x: x + jnp.zeros(3), "ValueError"),
    (
        "concatenate_shapes",
        lambda jnp, lax: lambda x: jnp.concatenate([x, jnp.zeros((2, 3))]),
        "TypeError",
    ),
    ("index_too_many", lambda jnp, lax: lambda x: x[1, 2, 3], "IndexError"),
    ("index_list", lambda jnp, lax: lambda x: x[[0, 1]], "TypeError"),
    ("index_float", lambda jnp, lax: lambda x: x[1.5], "TypeError"),
    (
        "lax_add_dtypes",
        lambda jnp, lax: lambda x: lax.add(x, jnp.zeros((3, 4), jnp.int32)),
        "TypeError",
    ),
    ("matmul_shapes", lambda jnp, lax: lambda x: x @ x, "TypeError"),
    ("dot_shapes", lambda jnp, lax: lambda x: jnp.dot(x, x), "TypeError"),
    ("einsum_sizes", lambda jnp, lax: lambda x: jnp.einsum("ij,jk->ik", x, x), "ValueError"),
    ("sum_axis", lambda jnp, lax: lambda x: jnp.sum(x, axis=2), "ValueError"),
    ("transpose_perm", lambda jnp, lax: lambda x: jnp.transpose(x, (0, 0)), "TypeError"),
    ("squeeze_size", lambda jnp, lax: lambda x: jnp.squeeze(x, 0), "ValueError"),
    ("split_uneven", lambda jnp, lax: lambda x: jnp.split(x, 3, axis=1), "ValueError"),
    ("stack_ranks", lambda jnp, lax: lambda x: jnp.stack([x, x[0]]), "ValueError"),
    ("moveaxis_axis", lambda jnp, lax: lambda x: jnp.moveaxis(x, 3, 0), "ValueError"),
    ("expand_dims_axis", lambda jnp, lax: lambda x: jnp.expand_dims(x, 4), "ValueError"),
    (
        "take_along_axis_rank",
        lambda jnp, lax: lambda x: jnp.take_along_axis(x, jnp.zeros((3,), jnp.int32), axis=1),
        "ValueError",
    ),
    ("argmax_empty", lambda jnp, lax: lambda x: jnp.argmax(x[:0, 0]), "ValueError"),
    ("bitwise_and_float", lambda jnp, lax: lambda x: jnp.bitwise_and(x, x), "TypeError"),
    ("lshift_float", lambda jnp, lax: lambda x: x << 1, "TypeError"),
    ("invert_float", lambda jnp, lax: lambda x: ~x, "TypeError"),
    ("astype_unknown", lambda jnp, lax: lambda x: x.astype("foo"), "TypeError"),
    ("zeros_negative", lambda jnp, lax: lambda x: jnp.zeros((-1,)), "TypeError"),
    ("eye_negative", lambda jnp, lax: lambda x: jnp.eye(-1), "ValueError"),
    ("pad_negative", lambda jnp, lax: lambda x: jnp.pad(x, -1), "ValueError"),
    ("full_fill_shape", lambda jnp, lax: lambda x: jnp.full((2, 3), jnp.zeros(4)), "ValueError"),
]:
    case(f"error_{_n}", _f, F, error=_err)
case("getitem_static_int_oob", lambda jnp, lax: lambda x: x[10], F)
case("getitem_static_neg_oob", lambda jnp, lax: lambda x: x[-10, 1], F)

# ---------------------------------------------------------------------------------------------
# Mixed-dtype promotion: the dtype and weak type of the result are what matter.

_PROMO_VALUES = {
    "bool": np.array([True, False, True]),
    "int8": np.array([-3, 0, 5], np.int8),
    "uint8": np.array([1, 2, 250], np.uint8),
    "int32": np.array([-7, 1, 4], np.int32),
    "float16": np.array([0.5, -1.5, 3.0], np.float16),
    "bfloat16": np.array([0.25, 2.5, -1.0], bf16),
    "float32": np.array([1.25, -0.5, 2.0], np.float32),
    "pyint": 3,
    "pyfloat": 2.5,
}
_PROMO_OPS = ["add", "multiply", "true_divide", "maximum"]
for _op_name in _PROMO_OPS:
    for (_a, _va), (_b, _vb) in itertools.product(_PROMO_VALUES.items(), repeat=2):
        _tol = TRANS if _op_name == "true_divide" else None
        case(f"promote_{_op_name}_{_a}_{_b}", J(_op_name), _va, _vb, tol=_tol)
_COND = np.array([True, False, False])
for (_a, _va), (_b, _vb) in itertools.product(_PROMO_VALUES.items(), repeat=2):
    case(f"promote_where_{_a}_{_b}", J("where"), _COND, _va, _vb)

__all__ = ["CASES", "Case", "flatten"]
