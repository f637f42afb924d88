"""Tests for spmd._src.dtypes against golden results recorded from JAX (no JAX needed here)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from spmd._src import dtypes
from spmd._src.config import config

GOLDEN = json.loads((Path(__file__).parent / "golden" / "promotion.json").read_text())
MODES = {"x32": (False, "standard"), "x64": (True, "standard"), "strict": (False, "strict")}


@pytest.fixture(autouse=True)
def _default_modes():
    """Every test starts from x64 off and standard promotion, whatever the environment says."""
    saved = config.jax_enable_x64, config.jax_numpy_dtype_promotion
    config.update("jax_enable_x64", False)
    config.update("jax_numpy_dtype_promotion", "standard")
    yield
    config.update("jax_enable_x64", saved[0])
    config.update("jax_numpy_dtype_promotion", saved[1])


@pytest.fixture
def mode(request):
    """Set x64 and the promotion mode for one golden mode, restoring both afterwards."""
    saved = config.jax_enable_x64, config.jax_numpy_dtype_promotion
    x64, promotion = MODES[request.param]
    config.update("jax_enable_x64", x64)
    config.update("jax_numpy_dtype_promotion", promotion)
    yield GOLDEN[request.param]
    config.update("jax_enable_x64", saved[0])
    config.update("jax_numpy_dtype_promotion", saved[1])


@pytest.fixture
def strict():
    saved = config.jax_numpy_dtype_promotion
    config.update("jax_numpy_dtype_promotion", "strict")
    yield
    config.update("jax_numpy_dtype_promotion", saved)


all_modes = pytest.mark.parametrize("mode", list(MODES), indirect=True)


class Value:
    """Stands in for an spmd array or tracer: just ``dtype`` and ``weak_type``."""

    def __init__(self, dtype, weak_type):
        self.dtype, self.weak_type = np.dtype(dtype), weak_type


def np_dtype(name):
    return dtypes.float0 if name == "float0" else np.dtype(name)


def name_of(dt) -> str:
    return "float0" if dt == dtypes.float0 else np.dtype(dt).name


def make(label, golden):
    """Rebuild an argument from its label (see tests/golden_gen/dtypes_gen.py)."""
    kind, _, name = label.rpartition(":")
    if kind == "":
        return np_dtype(name)
    if kind == "py":
        return {"bool": True, "int": 1, "float": 1.0, "complex": 1j}[name]
    if kind == "pytype":
        return {"bool": bool, "int": int, "float": float, "complex": complex}[name]
    if kind == "np":
        return np.zeros((), name)
    if kind == "npscalar":
        return np.dtype(name).type(1)
    if kind == "weak":
        return Value(*golden["args"][label])
    raise ValueError(label)


def outcome(f, *args):
    try:
        r = f(*args)
    except Exception as e:  # noqa: BLE001 -- compared against the class JAX raised
        return "error:" + type(e).__name__
    if isinstance(r, tuple):
        return [name_of(r[0]), bool(r[1])]
    return name_of(r)


def mismatches(golden_table, compute):
    bad = {}
    for key, want in golden_table.items():
        got = compute(key)
        if got != want:
            bad[key] = {"jax": want, "spmd": got}
    return bad


@all_modes
def test_result_type_matches_jax(mode):
    def compute(key):
        args = [make(label, mode) for label in key.split(",")]
        return outcome(lambda: dtypes.result_type(*args, return_weak_type_flag=True))

    assert mismatches(mode["result_type"], compute) == {}


@all_modes
def test_result_type_without_flag_is_the_dtype(mode):
    for key, want in mode["result_type"].items():
        if isinstance(want, list):
            args = [make(label, mode) for label in key.split(",")]
            assert name_of(dtypes.result_type(*args)) == want[0], key


@all_modes
def test_promote_types_matches_jax(mode):
    def compute(key):
        a, b = (make(label, mode) for label in key.split(","))
        return outcome(dtypes.promote_types, a, b)

    assert mismatches(mode["promote_types"], compute) == {}


@all_modes
def test_dtype_of_value_matches_jax(mode):
    def compute(label):
        return outcome(lambda: dtypes.dtype(make(label, mode), canonicalize=True))

    assert mismatches(mode["dtype"], compute) == {}


@all_modes
def test_canonicalize_dtype_matches_jax(mode):
    def compute(label):
        return outcome(dtypes.canonicalize_dtype, make(label, mode))

    assert mismatches(mode["canonicalize_dtype"], compute) == {}


@all_modes
def test_short_names_match_jaxpr_printing(mode):
    # make_jaxpr canonicalizes its inputs first, so the recorded name is of the canonical dtype.
    def compute(name):
        return dtypes.short_dtype_name(dtypes.canonicalize_dtype(np_dtype(name)))

    assert mismatches(mode["short_name"], compute) == {}


def test_golden_covers_what_the_brief_asks():
    table = GOLDEN["x32"]["result_type"]
    for key in ["bfloat16,py:float", "py:int,weak:float32", "uint32,int32", "float16,bfloat16"]:
        assert key in table


# --- canonicalization and defaults ----------------------------------------------------------


def test_canonicalize_dtype_x32():
    c = dtypes.canonicalize_dtype
    assert c(np.int64) == np.int32 and c(np.uint64) == np.uint32
    assert c(np.float64) == np.float32 and c(np.complex128) == np.complex64
    assert c(int) == np.int32 and c(float) == np.float32 and c(complex) == np.complex64
    assert c(bool) == np.bool_ and c("bfloat16") == dtypes.bfloat16
    assert c(dtypes.bfloat16) == np.dtype(ml_dtypes.bfloat16)
    assert c(np.int8) == np.int8 and c("float16") == np.float16
    assert c(None) == np.float32
    assert isinstance(c(np.float32), np.dtype)


def test_canonicalize_dtype_x64(x64):
    c = dtypes.canonicalize_dtype
    assert c(np.int64) == np.int64 and c(float) == np.float64 and c(np.uint64) == np.uint64
    assert dtypes.default_int_dtype() == np.int64
    assert dtypes.default_uint_dtype() == np.uint64
    assert dtypes.default_float_dtype() == np.float64
    assert dtypes.default_complex_dtype() == np.complex128


def test_defaults_x32():
    assert dtypes.default_int_dtype() == np.int32
    assert dtypes.default_uint_dtype() == np.uint32
    assert dtypes.default_float_dtype() == np.float32
    assert dtypes.default_complex_dtype() == np.complex64


def test_dtype_of_values():
    d = dtypes.dtype
    assert (
        d(1) == np.int32 and d(1.0) == np.float32 and d(True) == np.bool_ and d(1j) == np.complex64
    )
    assert d(np.zeros(2)) == np.float64
    assert d(np.zeros(2), canonicalize=True) == np.float32
    assert d(np.float64(1.0)) == np.float64  # a NumPy scalar is not a Python float
    assert d("bfloat16") == dtypes.bfloat16
    # values carrying weak_type keep their dtype even when canonicalizing (an x64-made array)
    assert d(Value(np.float64, False), canonicalize=True) == np.float64
    with pytest.raises(ValueError):
        d(None)
    with pytest.raises(TypeError, match="not a valid array dtype"):
        d("U5")
    with pytest.raises(TypeError, match="not a valid array dtype"):
        d(np.array(["a"]))
    with pytest.raises(TypeError, match="Cannot determine"):
        d([1, 2])


def test_dtype_of_python_scalars_x64(x64):
    assert dtypes.dtype(1) == np.int64 and dtypes.dtype(float) == np.float64


def test_is_python_scalar_and_weak():
    assert all(dtypes.is_python_scalar(x) for x in (True, 1, 1.0, 1j))
    assert not any(dtypes.is_python_scalar(x) for x in (np.float64(1), np.int32(1), np.zeros(())))
    assert dtypes.is_weakly_typed(1) and dtypes.is_weakly_typed(2.0) and dtypes.is_weakly_typed(1j)
    assert not dtypes.is_weakly_typed(True)  # bools never are, as in JAX
    assert not dtypes.is_weakly_typed(np.float32(1))
    assert dtypes.is_weakly_typed(Value(np.float32, True))
    assert not dtypes.is_weakly_typed(Value(np.float32, False))


# --- promotion ----------------------------------------------------------------------------------


def test_result_type_examples():
    rt = dtypes.result_type
    assert rt(1.0, np.float16) == np.float16
    assert rt(1.0, np.float16, return_weak_type_flag=True) == (np.float16, False)
    assert rt(np.int8, 1, return_weak_type_flag=True) == (np.int8, False)
    assert rt(np.int8, 1.0, return_weak_type_flag=True) == (np.float32, True)
    assert rt(1, 1, return_weak_type_flag=True) == (np.int32, True)
    assert rt(True, 1, return_weak_type_flag=True) == (np.int32, True)
    assert rt(np.uint32, np.int32) == np.int32  # x32: no 64-bit type from 32-bit inputs
    assert rt(dtypes.bfloat16, np.float16) == np.float32
    assert rt(None) == np.float32
    w8 = Value(np.uint8, True)
    assert rt(w8, w8, return_weak_type_flag=True) == (np.uint32, True)
    with pytest.raises(ValueError, match="at least one"):
        rt()


def test_result_type_x64(x64):
    rt = dtypes.result_type
    assert rt(np.uint32, np.int32) == np.int64
    assert rt(np.uint64, np.int64, return_weak_type_flag=True) == (np.float64, True)
    assert rt(1.0, return_weak_type_flag=True) == (np.float64, True)


def test_narrow_types_do_not_promote():
    with pytest.raises(dtypes.TypePromotionError, match="8-, 6- and 4-bit floats"):
        dtypes.result_type(dtypes.float8_e4m3fn, np.float16)
    with pytest.raises(dtypes.TypePromotionError, match="4-bit integers"):
        dtypes.result_type(dtypes.int4, np.int8)
    assert dtypes.result_type(dtypes.float8_e4m3fn, 1.0) == dtypes.float8_e4m3fn
    assert dtypes.result_type(dtypes.int4, 1) == dtypes.int4


def test_strict_promotion_error(strict):
    assert issubclass(dtypes.TypePromotionError, ValueError)
    with pytest.raises(dtypes.TypePromotionError, match="strict") as info:
        dtypes.result_type(np.int32, np.float32)
    assert "int32" in str(info.value) and "float32" in str(info.value)
    with pytest.raises(dtypes.TypePromotionError):
        dtypes.promote_types(np.int8, np.int16)
    with pytest.raises(dtypes.TypePromotionError):
        dtypes.result_type(np.int8, 1.0)
    # same dtype, or a weak scalar of a kind the strong type holds, is still fine
    assert dtypes.result_type(np.int8, np.int8) == np.int8
    assert dtypes.result_type(np.int8, 1) == np.int8
    assert dtypes.result_type(np.float16, 1) == np.float16


def test_float0_does_not_promote():
    assert dtypes.result_type(dtypes.float0, dtypes.float0) == dtypes.float0
    with pytest.raises(ValueError, match="float0"):
        dtypes.result_type(dtypes.float0, np.float32)


def test_promote_types_examples():
    pt = dtypes.promote_types
    assert pt(np.int8, np.uint8) == np.int16
    assert pt("uint8", int) == np.uint8
    assert pt("float16", float) == np.float16
    assert pt(float, float) == np.float64  # not canonicalized, as jnp.promote_types
    assert pt(np.float64, np.float32) == np.float64
    assert isinstance(pt(np.int8, np.int8), np.dtype)


# --- hierarchy and predicates --------------------------------------------------------------------


def test_issubdtype():
    sub = dtypes.issubdtype
    for t in (dtypes.bfloat16, dtypes.float8_e4m3fn, dtypes.float8_e5m2):
        assert sub(t, np.floating) and sub(t, np.inexact) and sub(t, np.number)
        assert sub(t, np.generic) and not sub(t, np.integer)
    assert sub(dtypes.int4, np.signedinteger) and sub(dtypes.uint4, np.unsignedinteger)
    assert sub(dtypes.int4, np.integer) and not sub(dtypes.int4, int)
    assert sub("bfloat16", dtypes.bfloat16) and not sub(dtypes.bfloat16, np.float16)
    assert not sub(np.float32, dtypes.bfloat16)
    assert sub(float, np.floating) and sub(int, np.int64) and not sub(np.int32, int)
    assert not sub(np.bool_, np.number) and not sub(np.uint8, np.signedinteger)
    assert sub(np.complex64, np.complexfloating) and sub(np.dtype("int32"), "int32")
    assert sub(dtypes.float0, np.void) and not sub(dtypes.float0, np.number)
    assert sub(np.floating, np.inexact) and not sub(np.inexact, np.floating)


def test_isdtype():
    assert dtypes.isdtype(dtypes.bfloat16, "real floating")
    assert dtypes.isdtype(dtypes.int4, "signed integer") and dtypes.isdtype(dtypes.int4, "integral")
    assert not dtypes.isdtype(np.bool_, "numeric") and dtypes.isdtype(np.bool_, "bool")
    assert dtypes.isdtype(np.float32, (np.float32, "bool"))
    assert dtypes.isdtype(np.complex64, "complex floating")
    with pytest.raises(TypeError):
        dtypes.isdtype(np.float32, np.floating)
    with pytest.raises(ValueError):
        dtypes.isdtype(np.float32, "floats")


def test_predicates():
    assert dtypes.is_float(dtypes.bfloat16) and dtypes.is_float(np.zeros(2))
    assert not dtypes.is_float(np.int32) and not dtypes.is_float(np.complex64)
    assert dtypes.is_int(np.uint8) and dtypes.is_int(dtypes.int4) and not dtypes.is_int(bool)
    assert dtypes.is_complex(np.complex128) and dtypes.is_bool(np.bool_)
    assert not dtypes.is_bool(np.int8)


def test_scalar_type_of():
    st = dtypes.scalar_type_of
    assert st(1) is int and st(1.0) is float and st(True) is bool and st(1j) is complex
    assert st(np.zeros(2, dtypes.bfloat16)) is float and st(np.dtype("uint8")) is int
    assert st(np.float16(1)) is float and st(dtypes.int4) is int


def test_to_inexact_and_numeric():
    ti = dtypes.to_inexact_dtype
    for t in (np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint32, dtypes.int4):
        assert ti(t) == np.float32, t
    assert ti(np.int64) == np.float64 and ti(np.uint64) == np.float64
    for t in (np.float16, dtypes.bfloat16, np.float32, np.complex64, dtypes.float8_e5m2):
        assert ti(t) == np.dtype(t)
    assert dtypes.to_numeric_dtype(np.bool_) == np.int32
    assert dtypes.to_numeric_dtype(np.int8) == np.int8


def test_reduction_accum_dtype():
    r = dtypes.reduction_accum_dtype
    assert r(np.float16) == np.float32 and r(dtypes.bfloat16) == np.float32
    for t in (np.float32, np.float64, np.int8, np.bool_, np.complex64, dtypes.float8_e4m3fn):
        assert r(t) == np.dtype(t)


def test_short_names():
    s = dtypes.short_dtype_name
    expect = {
        np.float32: "f32", np.float64: "f64", np.float16: "f16", dtypes.bfloat16: "bf16",
        np.int8: "i8", np.int16: "i16", np.int32: "i32", np.int64: "i64", np.uint8: "u8",
        np.uint16: "u16", np.uint32: "u32", np.uint64: "u64", np.bool_: "bool",
        np.complex64: "c64", np.complex128: "c128", dtypes.float8_e4m3fn: "f8_e4m3fn",
        dtypes.int4: "i4", dtypes.uint4: "u4", dtypes.float0: "float0",
    }  # fmt: skip
    for t, want in expect.items():
        assert s(t) == want, t


def test_info():
    fi = dtypes.finfo(dtypes.bfloat16)
    assert fi.bits == 16 and float(fi.eps) == 2.0**-7 and fi.dtype == dtypes.bfloat16
    assert dtypes.finfo(np.float32).bits == 32
    assert dtypes.finfo(np.zeros(2, np.float16)).dtype == np.float16
    assert dtypes.finfo(np.complex64).dtype == np.float32
    assert float(dtypes.finfo(dtypes.float8_e4m3fn).max) == 448.0
    assert dtypes.iinfo(np.int8).max == 127 and dtypes.iinfo(np.uint32).max == 2**32 - 1
    assert int(dtypes.iinfo(dtypes.int4).min) == -8
    with pytest.raises(ValueError):
        dtypes.finfo(np.int32)


def test_dtype_objects():
    assert dtypes.float32 is np.float32 and dtypes.bfloat16 is ml_dtypes.bfloat16
    assert dtypes.float0 == np.dtype([("float0", np.void, 0)]) and dtypes.float0.itemsize == 0
    for name in ("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "int4", "uint4", "int2"):
        assert getattr(dtypes, name) is getattr(ml_dtypes, name)


# --- Python scalars to arrays --------------------------------------------------------------------


def test_coerce_scalar():
    cs = dtypes.coerce_scalar
    a = cs(3)
    assert isinstance(a, np.ndarray) and a.shape == () and a.dtype == np.int32 and a == 3
    assert cs(1.5).dtype == np.float32 and cs(1j).dtype == np.complex64 and cs(True).dtype == bool
    assert cs(3, np.int8).dtype == np.int8
    assert cs(2**31, np.uint32) == 2**31
    assert cs(True, np.float32) == 1.0
    assert cs(2.5, np.int32) == 2
    assert cs(2**40, dtypes.bfloat16).dtype == dtypes.bfloat16
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isinf(cs(1e300))  # large floats become inf, quietly
        assert np.isinf(cs(1e6, np.float16, weak=True))


def test_coerce_scalar_overflow():
    with pytest.raises(
        OverflowError, match="Python int 1099511627776 too large to convert to int32"
    ):
        dtypes.coerce_scalar(2**40)
    with pytest.raises(OverflowError, match="-1099511627776 .*int32"):
        dtypes.coerce_scalar(-(2**40))
    with pytest.raises(OverflowError, match="300.*int8"):
        dtypes.coerce_scalar(300, np.int8)
    with pytest.raises(OverflowError, match="-1 out of bounds for uint32"):
        dtypes.coerce_scalar(-1, np.uint32)
    with pytest.raises(OverflowError, match="int4"):
        dtypes.coerce_scalar(8, dtypes.int4)


def test_coerce_scalar_x64(x64):
    assert dtypes.coerce_scalar(2**40).dtype == np.int64
    with pytest.raises(OverflowError, match="int64"):
        dtypes.coerce_scalar(2**63)
    # a weak Python int wraps once it fits the default int, as int8_array + 1000 does in JAX
    assert dtypes.coerce_scalar(2**32, np.uint32, weak=True) == 0


def test_coerce_scalar_weak():
    cs = dtypes.coerce_scalar
    assert cs(1000, np.int8, weak=True) == -24
    assert cs(-1, np.uint8, weak=True) == 255
    with pytest.raises(OverflowError, match="4294967296 too large to convert to int32"):
        cs(2**32, np.uint32, weak=True)


# ---------------------------------------------------------------------------------------------
# The narrow types as jnp scalar types: every ml_dtypes type JAX names (float8/6/4, int1/2/4)


_NARROW_FLOAT_NAMES = [
    "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz",
    "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float6_e3m2fn",
    "float4_e2m1fn",
]  # fmt: skip


def _same(got, want) -> None:
    # Through float32, where NumPy knows NaN (equal NaNs count as equal).
    np.testing.assert_array_equal(np.asarray(got).astype(np.float32), want.astype(np.float32))


@pytest.mark.parametrize("name", _NARROW_FLOAT_NAMES)
def test_narrow_float_arithmetic_rounds_a_float32_result(name):
    # XLA computes these in float32 and rounds once (JAX 0.10.2 gives these values for the
    # float8 and float4 types; its CPU runtime cannot run float6 at all).
    import spmd
    import spmd.numpy as jnp

    t = getattr(jnp, name)
    dt = np.dtype(getattr(ml_dtypes, name))
    assert np.dtype(t) == dt and t(1.5).dtype == dt
    x = np.linspace(-3.3, 7.7, 9).astype(np.float32)
    a = jnp.asarray(x).astype(t)
    ref = x.astype(dt)
    _same(a, ref)
    r32 = ref.astype(np.float32)
    _same(a * a, (r32 * r32).astype(dt))
    got = spmd.jit(lambda v: v - v * v)(a)
    want = (r32 - (r32 * r32).astype(dt).astype(np.float32)).astype(dt)
    _same(got, want)
    assert float(jnp.finfo(t).max) == float(ml_dtypes.finfo(dt).max)
    with pytest.raises(dtypes.TypePromotionError):
        jnp.promote_types(t, jnp.float32)


@pytest.mark.parametrize("name", ["int2", "uint2", "int4", "uint4", "int1", "uint1"])
def test_narrow_int_types_wrap(name):
    import spmd.numpy as jnp

    if not hasattr(ml_dtypes, name):
        pytest.skip(f"ml_dtypes {ml_dtypes.__version__} has no {name}")
    t = getattr(jnp, name)
    dt = np.dtype(getattr(ml_dtypes, name))
    info = ml_dtypes.iinfo(dt)
    assert int(jnp.iinfo(t).max) == info.max and int(jnp.iinfo(t).min) == info.min
    a = jnp.asarray(np.array([info.min, 0, info.max]), dtype=t)
    assert a.dtype == dt
    bits = int(name[-1])
    wrapped = [((2 * v - info.min) % (1 << bits)) + info.min for v in (info.min, 0, info.max)]
    assert np.asarray((a + a).astype(jnp.int32)).tolist() == wrapped


def test_itemsize_bits_and_scalar_type_of():
    import spmd
    import spmd.numpy as jnp

    d = spmd.dtypes
    # JAX 0.10.2's values.
    assert [d.itemsize_bits(t) for t in (jnp.int4, np.float32, jnp.bool_, jnp.float4_e2m1fn)] == [
        4, 32, 8, 4,
    ]  # fmt: skip
    assert d.itemsize_bits(jnp.int2) == 2 and d.itemsize_bits(jnp.float6_e3m2fn) == 6
    with pytest.raises(ValueError, match="unexpected input: dtype=key<fry>"):
        d.itemsize_bits(spmd.random.key(0).dtype)
    assert d.scalar_type_of(1.0) is float and d.scalar_type_of(jnp.int8(1)) is int
    assert d.scalar_type_of(np.uint32(1)) is int and d.scalar_type_of(True) is bool


# --- the warning that a requested 64-bit dtype is truncated (x64 off) ---------------------------


def _truncation_warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [w for w in caught if "64-bit dtypes are disabled" in str(w.message)]


def _requests():
    import spmd
    import spmd.numpy as jnp

    lax, random, f64 = spmd.lax, spmd.random, np.float64
    one = jnp.ones(2)
    return {
        "zeros": lambda: jnp.zeros(2, f64),
        "array": lambda: jnp.array([1.0], "float64"),
        "asarray": lambda: jnp.asarray([1], jnp.int64),
        "astype": lambda: one.astype(f64),
        "arange": lambda: jnp.arange(3, dtype=f64),
        "linspace": lambda: jnp.linspace(0, 1, 3, dtype=f64),
        "eye": lambda: jnp.eye(2, dtype=f64),
        "full_like": lambda: jnp.full_like(one, 1, np.complex128),
        "sum": lambda: jnp.sum(one, dtype=f64),
        "mean": lambda: jnp.mean(one, dtype=f64),
        "var": lambda: jnp.var(one, dtype=f64),
        "cumsum": lambda: jnp.cumsum(one, dtype=f64),
        "float64(3)": lambda: jnp.float64(3),
        "normal": lambda: random.normal(random.key(0), (2,), f64),
        "randint": lambda: random.randint(random.key(0), (2,), 0, 3, np.int64),
        "bits": lambda: random.bits(random.key(0), (2,), np.uint64),
        "convert_element_type": lambda: lax.convert_element_type(one, f64),
        "lax.full": lambda: lax.full((2,), 1.0, f64),
        "lax.full_like": lambda: lax.full_like(one, 1.0, f64),
        "broadcasted_iota": lambda: lax.broadcasted_iota(np.int64, (2,), 0),
        "dot": lambda: jnp.dot(one, one, preferred_element_type=f64),
        "jit": lambda: spmd.jit(lambda v: v.astype(f64))(one),
    }


@pytest.mark.parametrize("name", sorted(_requests()))
def test_requested_64bit_dtype_warns_once_naming_it(name):
    # JAX 0.10.2 warns (UserWarning) for each of these: the result is silently 32-bit otherwise.
    caught = _truncation_warnings(_requests()[name])
    assert len(caught) == 1, [str(w.message) for w in caught]
    assert caught[0].category is UserWarning
    message = str(caught[0].message)
    assert "was requested" in message and "truncated to" in message and "jax_enable_x64" in message
    assert caught[0].filename == __file__  # the user's line, however deep the check ran


def test_truncation_warning_names_the_function():
    import spmd.numpy as jnp

    (w,) = _truncation_warnings(lambda: jnp.zeros(2, np.int64))
    assert str(w.message).startswith("zeros: dtype int64 ") and "int32" in str(w.message)


def test_no_truncation_warning_without_a_64bit_request():
    import spmd
    import spmd.numpy as jnp

    quiet = [
        lambda: jnp.zeros(2, float),  # Python's float and int name the default, not a width
        lambda: jnp.array([1, 2], dtype=int),
        lambda: jnp.ones(2, complex),
        lambda: jnp.zeros(2, np.float32),
        lambda: jnp.asarray(np.ones(2)),  # a NumPy float64 input is no request
        lambda: spmd.lax.full_like(np.ones(2), 0.0),  # its dtype is the input's, canonicalized
        lambda: jnp.var(np.ones(3)),
    ]
    for fn in quiet:
        assert _truncation_warnings(fn) == []


def test_no_truncation_warning_with_x64():
    import spmd.numpy as jnp

    config.update("jax_enable_x64", True)
    assert _truncation_warnings(lambda: jnp.zeros(2, np.float64)) == []
    assert jnp.zeros(2, np.float64).dtype == np.float64
