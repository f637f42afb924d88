"""spmd.random's transformed distributions against JAX 0.10, bit for bit in float32.

``tests/golden/random_more.json`` holds JAX's outputs for the cases of
``tests/golden_gen/random_more_gen.py`` (regenerate with ``/path/to/jax/python
tests/golden_gen/random_more_gen.py``), in the three modes of ``test_random.py``. float32,
float16 and bfloat16 samples (and integer ones) are compared as bit patterns; float64 (x64's
default) within ``F64_ULPS``, as XLA's float64 kernels are not reproduced. The rest checks the
XLA-exact kernels behind them, jit and vmap (over keys and over parameters), typed keys, the
shape and dtype rules and errors (JAX's classes).
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from test_random import threefry_mode

import spmd
import spmd.numpy as jnp
from spmd import random
from spmd._src import dtypes
from spmd._src import random_more as rmore
from spmd._src.lax import random_math as rm

_HERE = Path(__file__).parent
_spec = importlib.util.spec_from_file_location(
    "random_more_gen", _HERE / "golden_gen" / "random_more_gen.py"
)
GEN = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(GEN)
GOLDEN = json.loads((_HERE / "golden" / "random_more.json").read_text())["records"]

F64_ULPS = 128
# Samplers through a matrix decomposition: spmd's factors (NumPy's LAPACK calls) and XLA's
# contraction orders for these shapes differ from JAX's in the last bits.
LINALG = {"multivariate_normal": 2e-5, "orthogonal": 2e-5}
LINALG_F16 = 4e-3
# ball's float16/bfloat16 draws come from generalized_normal (spmd._src.random_gamma), whose
# narrow-type samples are off by an ulp or two; its own arithmetic is checked exactly on JAX's
# draws (test_ball_arithmetic_on_jax_draws).
NARROW_BALL_ULPS = 8


def _mismatch(case: dict, want: dict) -> str | None:
    out = GEN.call(random, np, case)
    got = GEN.encode(np, out)
    if (got["dtype"], got["shape"]) != (want["dtype"], want["shape"]):
        return f"{case}: got {got['dtype']}{got['shape']}, JAX gives {want['dtype']}{want['shape']}"
    if case["fn"] in LINALG:
        w = np.array(want["bits"], np.uint64).astype(f"u{np.dtype(want['dtype']).itemsize}")
        w = w.view(want["dtype"]).astype(np.float64).reshape(want["shape"])
        tol = LINALG_F16 if want["dtype"] == "float16" else LINALG[case["fn"]]
        if not np.allclose(np.asarray(out, np.float64), w, rtol=tol, atol=tol):
            return f"{case}: differs from JAX beyond {tol}"
        return None
    g = np.array(got["bits"], np.uint64).astype(np.int64)
    w = np.array(want["bits"], np.uint64).astype(np.int64)
    ulps = F64_ULPS if want["dtype"] == "float64" else 0
    if case["fn"] == "ball" and want["dtype"] in ("float16", "bfloat16"):
        ulps = NARROW_BALL_ULPS
    bad = np.flatnonzero(np.abs(g - w) > ulps)
    if bad.size:
        return f"{case}: {bad.size} of {w.size} differ, e.g. at {bad[:3].tolist()}"
    return None


@pytest.mark.parametrize("mode", ["partitionable", "original", "x64"])
def test_golden(mode):
    records = [r for r in GOLDEN if r["mode"] == mode and r["case"]["fn"] != "ball_parts"]
    assert records
    with threefry_mode(mode):
        errors = [e for r in records if (e := _mismatch(r["case"], r["out"]))]
    assert not errors, "\n".join(errors)


def test_golden_covers_the_samplers_and_dtypes():
    fns = {r["case"]["fn"] for r in GOLDEN} - {"ball_parts"}
    assert fns == set(
        "cauchy lognormal pareto rayleigh maxwell double_sided_maxwell weibull_min wald "
        "triangular geometric multivariate_normal orthogonal ball".split()
    )
    dts = {(r["case"]["fn"], r["out"]["dtype"]) for r in GOLDEN}
    for fn in fns - {"geometric", "multivariate_normal", "orthogonal", "ball"}:
        assert {(fn, "float32"), (fn, "float16"), (fn, "bfloat16"), (fn, "float64")} <= dts, fn
    assert {("geometric", "int32"), ("geometric", "int8"), ("geometric", "int64")} <= dts


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_ball_arithmetic_on_jax_draws(dtype):
    # ball's transformation of JAX's own generalized normal and exponential draws gives JAX's
    # ball bit for bit (XLA's float16/bfloat16 roundings, reciprocal and power rewrites).
    def record(fn):
        return next(r for r in GOLDEN if r["mode"] == "partitionable"
                    and r["case"]["fn"] == fn and r["case"].get("dtype") == dtype)  # fmt: skip

    parts, want = record("ball_parts"), record("ball")
    case = want["case"]
    dt = dtypes.dtype(dtype)
    bits = np.array(parts["out"]["bits"], np.uint16).view(dt)
    n, d = case["shape"][0], case["d"]
    g, e = jnp.asarray(bits[: n * d].reshape(n, d)), jnp.asarray(bits[n * d :])
    got = np.asarray(rmore._ball_from(g, e, case["p"])).view(np.uint16).ravel()
    assert got.tolist() == want["out"]["bits"]


# ---------------------------------------------------------------------------------------------
# The kernels


def test_exp_kernel_known_values():
    # Bits of jax.jit(jnp.exp) on XLA:CPU in float32 for 8 elements (XLA's own vectorized exp;
    # a lone exp of 3, 5, 6 or 7 elements calls the C library instead, which samplers never
    # do: their exp is fused with the draws). NumPy's differ, denormals flush to zero.
    x = np.float32([-7.928934, 34.338745, 17.778652, -87.4209, 88.72, 0.0, -np.inf, 1.0])
    want = [0x39BCD536, 0x583A26E9, 0x4C48BD0C, 0, 0x7F7F4643, 0x3F800000, 0, 0x402DF854]
    assert rm.exp_f32(x).view(np.uint32).tolist() == want
    assert np.exp(x).view(np.uint32).tolist() != want
    assert np.isnan(rm.exp_f32(np.float32(np.nan))) and rm.exp_f32(np.float32(np.inf)) == np.inf


def test_tan_and_pow_call_the_c_library():
    libm = ctypes.CDLL(ctypes.util.find_library("m"))
    libm.tanf.restype = ctypes.c_float
    libm.tanf.argtypes = [ctypes.c_float]
    x = np.linspace(-1.57, 1.57, 101, dtype=np.float32)
    want = np.array([libm.tanf(float(v)) for v in x], np.float32)
    assert rm.tan_f32(x).tobytes() == want.tobytes()
    # Known bits of XLA's tan/pow on this machine (glibc's tanf and powf).
    assert rm.tan_f32(np.float32(1.5704856)).view(np.uint32) == 0x454922D6
    got = rm.pow_f32(np.float32([2.0, 0.3, 7.5]), np.float32([0.5, 1.7, -2.25]))
    assert (
        got.tolist()
        == np.float32([1.4142135381698608, 0.12915349006652832, 0.010742668062448502]).tolist()
    )


def test_pow_flushes_denormals_as_xla():
    # jax.jit(jnp.power) gives 0 for a denormal operand or result; tan returns a tiny operand.
    got = rm.pow_f32(np.float32([1e-40, 1e-20, 2.0]), np.float32([1.0, 2.0, -130.0]))
    assert got.tolist() == [0.0, 0.0, 0.0]
    assert rm.tan_f32(np.float32(1e-40)) == np.float32(1e-40)


def test_fma16_rounds_once():
    a = np.float16([1 + 2**-6] * 4 + [0.1])
    c = np.float16(2**-11) * np.float16([1, -1, 3, -3, 7])
    got = rm.fma_f16(a, a, c)
    for x, z, g in zip(a, c, got):
        exact = float(x) * float(x) + float(z)  # exact in float64
        lo = np.float16(exact)
        cands = [lo, np.nextafter(lo, np.float16(-1e4)), np.nextafter(lo, np.float16(1e4))]
        best = min(cands, key=lambda v: (abs(float(v) - exact), int(v.view(np.uint16)) & 1))
        assert g == best


def test_kernel_primitives_under_transformations():
    x = jnp.array([0.5, 1.0, 2.0])
    np.testing.assert_array_equal(spmd.jit(rm.xla_exp)(x), rm.xla_exp(x))
    np.testing.assert_array_equal(spmd.vmap(rm.xla_pow, (0, None))(x, jnp.float32(2)), x * x)
    assert float(spmd.grad(rm.xla_exp)(1.0)) == float(rm.xla_exp(1.0))
    assert float(spmd.grad(lambda a: rm.xla_pow(a, jnp.float32(3)))(2.0)) == 12.0
    assert float(spmd.grad(lambda b: rm.xla_pow(jnp.float32(2), b))(3.0)) == pytest.approx(
        8 * np.log(2), rel=1e-6
    )
    assert float(spmd.grad(rm.xla_tan)(0.0)) == 1.0
    assert rm.xla_exp(jnp.bfloat16(2.0)).dtype == dtypes.dtype("bfloat16")
    with pytest.raises(TypeError, match="same dtypes"):
        rm.xla_pow(jnp.float32(2), jnp.float16(2))
    with pytest.raises(TypeError, match="float16 arguments"):
        rm.xla_fma16(jnp.float32(1), jnp.float32(1), jnp.float32(1))


# ---------------------------------------------------------------------------------------------
# Transformations

_SAMPLERS = {
    "cauchy": lambda k: random.cauchy(k, (3,)),
    "lognormal": lambda k: random.lognormal(k, 0.5, (3,)),
    "pareto": lambda k: random.pareto(k, 2.0, (3,)),
    "rayleigh": lambda k: random.rayleigh(k, 1.5, (3,)),
    "maxwell": lambda k: random.maxwell(k, (3,)),
    "double_sided_maxwell": lambda k: random.double_sided_maxwell(k, 1.0, 2.0, (3,)),
    "weibull_min": lambda k: random.weibull_min(k, 1.0, 1.5, (3,)),
    "wald": lambda k: random.wald(k, 2.0, (3,)),
    "triangular": lambda k: random.triangular(k, 0.0, 0.3, 1.0, (3,)),
    "geometric": lambda k: random.geometric(k, 0.3, (3,)),
    "multivariate_normal": lambda k: random.multivariate_normal(
        k, jnp.zeros(2), jnp.array([[2.0, 0.5], [0.5, 1.0]]), (3,)
    ),
    "orthogonal": lambda k: random.orthogonal(k, 3, (2,)),
    "ball": lambda k: random.ball(k, 3, 1.5, (2,)),
}


@pytest.mark.parametrize("name", sorted(_SAMPLERS))
def test_jit_and_vmap_over_keys(name):
    f = _SAMPLERS[name]
    keys = random.split(random.PRNGKey(3), 4)
    loop = np.stack([np.asarray(f(k)) for k in keys])
    np.testing.assert_array_equal(spmd.vmap(f)(keys), loop)
    np.testing.assert_array_equal(spmd.vmap(f, in_axes=1)(keys.T), loop)
    np.testing.assert_array_equal(spmd.jit(f)(keys[0]), loop[0])
    # Typed keys give the same samples (as arrays, not keys).
    typed = spmd.vmap(f)(random.wrap_key_data(keys))
    np.testing.assert_array_equal(typed, loop)


_BY_PARAM = {
    "lognormal": lambda s: random.lognormal(random.PRNGKey(1), s, (3,)),
    "pareto": lambda s: random.pareto(random.PRNGKey(1), s, (3,)),
    "rayleigh": lambda s: random.rayleigh(random.PRNGKey(1), s, (3,)),
    "wald": lambda s: random.wald(random.PRNGKey(1), s, (3,)),
    "weibull_min": lambda s: random.weibull_min(random.PRNGKey(1), s, s + 0.5, (3,)),
    "double_sided_maxwell": lambda s: random.double_sided_maxwell(random.PRNGKey(1), s, 1.0, (3,)),
    "triangular": lambda s: random.triangular(random.PRNGKey(1), 0.0, s * 0.2, 1.0, (3,)),
    "geometric": lambda s: random.geometric(random.PRNGKey(1), s * 0.2, (3,)),
}


@pytest.mark.parametrize("name", sorted(_BY_PARAM))
def test_jit_and_vmap_over_parameters(name):
    f = _BY_PARAM[name]
    ps = jnp.array([0.5, 1.0, 2.0, 3.0])
    loop = np.stack([np.asarray(f(p)) for p in ps])
    np.testing.assert_array_equal(spmd.vmap(f)(ps), loop)
    np.testing.assert_array_equal(spmd.jit(f)(ps[2]), loop[2])


def test_parameter_arrays_broadcast_against_shape():
    k = random.PRNGKey(0)
    sigma = jnp.array([[0.5], [2.0]])
    out = random.lognormal(k, sigma, (2, 3))
    assert out.shape == (2, 3)
    # A parameter of the full shape is used element by element.
    full = jnp.broadcast_to(sigma, (2, 3))
    np.testing.assert_allclose(random.lognormal(k, full), out, rtol=1e-6)
    assert random.pareto(k, jnp.ones(3)).shape == (3,)
    assert random.triangular(k, 0.0, jnp.array([0.2, 0.8]), 1.0).shape == (2,)


def test_shapes_and_dtypes_as_jax():
    k = random.PRNGKey(0)
    assert random.cauchy(k).shape == () and random.maxwell(k).shape == ()
    assert random.lognormal(k).shape == () and random.lognormal(k).dtype == np.float32
    # double_sided_maxwell appends the parameters' shape (twice when shape is empty).
    assert random.double_sided_maxwell(k, jnp.zeros(3), 1.0).shape == (3, 3)
    assert random.double_sided_maxwell(k, jnp.zeros(3), 1.0, (2,)).shape == (2, 3)
    # weibull_min broadcasts its parameters against the samples without checking.
    assert random.weibull_min(k, jnp.ones(3), 1.0, (2, 1)).shape == (2, 3)
    # jnp's promotion: a float32 concentration makes float16 samples float32.
    assert random.weibull_min(k, 1.0, jnp.float32(2), (2,), jnp.float16).dtype == np.float32
    assert random.geometric(k, 0.5, (4,)).dtype == np.int32
    # p = 0 never succeeds: floor(log(u) / -0) + 1 saturates (JAX's values).
    assert random.geometric(k, jnp.array([0, 1]), (2,)).tolist() == [2147483647, 1]
    assert random.geometric(k, jnp.array([0.5, 1.0]), (2,), jnp.int8).dtype == np.int8
    assert random.pareto(k, jnp.array([1, 2]), (2,)).dtype == np.float32
    assert random.geometric(k, 1.0, (5,)).tolist() == [1] * 5
    assert random.pareto(k, 1.0, (2, 0)).shape == (2, 0)
    # Complex log-normal samples (JAX's values; complex exp is not XLA-exact here).
    z = random.lognormal(k, 1.0, (2,), jnp.complex64)
    assert z.dtype == np.complex64
    np.testing.assert_allclose(z, [-0.31656384 - 2.009093j, 0.06900182 - 0.5222918j], rtol=1e-6)


def test_lognormal_reassociates_as_xla_only_for_broadcast_sigma():
    # XLA computes exp(erf_inv(u) * (sigma * sqrt2)) for a broadcast sigma and
    # exp(normal * sigma) for a sigma of the samples' shape; the bits differ.
    k = random.PRNGKey(2)
    got = random.lognormal(k, 3.0, (8,))
    want = [1077725390, 1111287957, 1038042900, 1108026666, 1057607914, 1034426668, 1087349348,
            1032782988]  # fmt: skip
    assert np.asarray(got).view(np.uint32).tolist() == want  # jax.random.lognormal's
    full = random.lognormal(k, jnp.full((8,), 3.0, jnp.float32))
    np.testing.assert_array_equal(full, rm.xla_exp(random.normal(k, (8,)) * jnp.float32(3.0)))
    assert not np.array_equal(got, full)


# ---------------------------------------------------------------------------------------------
# Errors (classes as JAX raises them)


def _k():
    return random.PRNGKey(0)


ERRORS = {
    "key data of the wrong shape": (
        lambda: random.cauchy(jnp.ones(3), (2,)), TypeError, "key_data.shape to end with (2,)"),
    "a batch of keys": (
        lambda: random.pareto(random.split(_k(), 3), 1.0), ValueError, "shape (3, 2) != ()"),
    "a batch of typed keys": (
        lambda: random.wald(random.split(random.key(0), 3), 1.0), ValueError, "(3,) != ()"),
    "cauchy int dtype": (
        lambda: random.cauchy(_k(), (2,), jnp.int32), ValueError, "`cauchy` must be a float"),
    "lognormal int dtype": (
        lambda: random.lognormal(_k(), 1.0, (2,), jnp.int32), ValueError, "float or complex"),
    "pareto int dtype": (
        lambda: random.pareto(_k(), 1.0, (2,), jnp.int32), ValueError, "`pareto` must be"),
    "rayleigh int dtype": (
        lambda: random.rayleigh(_k(), 1.0, (2,), jnp.int32), ValueError, "`rayleigh` must"),
    "maxwell int dtype": (
        lambda: random.maxwell(_k(), (2,), jnp.int32), ValueError, "`maxwell` must be a float"),
    "double_sided_maxwell int dtype": (
        lambda: random.double_sided_maxwell(_k(), 0.0, 1.0, (2,), jnp.int32), ValueError,
        "`double_sided_maxwell` must be a float"),
    "weibull_min int dtype": (
        lambda: random.weibull_min(_k(), 1.0, 1.0, (2,), jnp.int32), ValueError,
        "`weibull_min` must be a float"),
    "wald int dtype": (
        lambda: random.wald(_k(), 1.0, (2,), jnp.int32), ValueError, "`wald` must be a float"),
    "triangular int dtype": (
        lambda: random.triangular(_k(), 0.0, 0.5, 1.0, (2,), jnp.int32), ValueError,
        "`triangular` must be a float"),
    "geometric float dtype": (
        lambda: random.geometric(_k(), 0.5, (2,), jnp.float32), ValueError, "must be an int"),
    "pareto b against shape": (
        lambda: random.pareto(_k(), jnp.ones(3), (2,)), ValueError, "shapes=[(2,), (3,)]"),
    "rayleigh scale against shape": (
        lambda: random.rayleigh(_k(), jnp.ones((2, 3)), (3,)), ValueError,
        "broadcast-compatible with shape argument"),
    "lognormal sigma against shape": (
        lambda: random.lognormal(_k(), jnp.ones(4), (3,)), ValueError, "shapes=[(3,), (4,)]"),
    "wald mean against shape": (
        lambda: random.wald(_k(), jnp.ones(2), (2, 3)), ValueError, "(2, 3)"),
    "triangular mode against shape": (
        lambda: random.triangular(_k(), 0.0, jnp.ones(4) * 0.5, 1.0, (3,)), ValueError,
        "shapes=[(3,), (), (4,), ()]"),
    "geometric p against shape": (
        lambda: random.geometric(_k(), jnp.ones(2) * 0.5, (3,)), ValueError, "[(3,), (2,)]"),
    "double_sided_maxwell parameters": (
        lambda: random.double_sided_maxwell(_k(), jnp.zeros(2), jnp.ones(3)), ValueError,
        "shapes=[(2,), (3,)]"),
    "rayleigh float32 scale to bfloat16": (
        lambda: random.rayleigh(_k(), jnp.ones(3), (3,), jnp.bfloat16),
        dtypes.TypePromotionError, "cannot safely cast argument of type float32 to bfloat16"),
    "wald float32 mean to float16": (
        lambda: random.wald(_k(), jnp.ones(3), None, jnp.float16), dtypes.TypePromotionError,
        "In arguments to wald"),
    "pareto list": (lambda: random.pareto(_k(), [1.0, 2.0]), TypeError, "argument b"),
    "geometric list": (lambda: random.geometric(_k(), [0.5], (1,)), TypeError, "argument p"),
    "weibull_min list": (
        lambda: random.weibull_min(_k(), [1.0], 1.0), TypeError, "argument scale"),
    "negative shape": (lambda: random.cauchy(_k(), (-1,)), ValueError, "nonnegative"),
    "multivariate_normal method": (
        lambda: random.multivariate_normal(_k(), jnp.zeros(2), jnp.eye(2), method="lu"),
        ValueError, "method must be one of"),
    "multivariate_normal scalar mean": (
        lambda: random.multivariate_normal(_k(), 0.0, jnp.eye(2)), ValueError,
        "mean.ndim >= 1, got mean.ndim == 0"),
    "multivariate_normal vector cov": (
        lambda: random.multivariate_normal(_k(), jnp.zeros(2), jnp.ones(2)), ValueError,
        "cov.ndim >= 2, got cov.ndim == 1"),
    "multivariate_normal cov of the wrong size": (
        lambda: random.multivariate_normal(_k(), jnp.zeros(2), jnp.eye(3)), ValueError,
        "cov.shape == (..., n, n) for n=2, but got cov.shape == (3, 3)"),
    "multivariate_normal batch against shape": (
        lambda: random.multivariate_normal(_k(), jnp.zeros((3, 2)), jnp.eye(2), (4,)),
        ValueError, "shapes=[(4,), (3,), ()]"),
    "multivariate_normal int dtype": (
        lambda: random.multivariate_normal(_k(), jnp.zeros(2), jnp.eye(2), dtype=jnp.int32),
        ValueError, "`multivariate_normal` must be a float"),
    "orthogonal traced n": (
        lambda: spmd.jit(lambda n: random.orthogonal(_k(), n))(3),
        spmd.errors.ConcretizationTypeError, "jax.random.orthogonal()"),
    "orthogonal float n": (lambda: random.orthogonal(_k(), 3.0), TypeError, "integer"),
    "ball traced d": (
        lambda: spmd.jit(lambda d: random.ball(_k(), d))(3),
        spmd.errors.ConcretizationTypeError, "jax.random.ball()"),
    "ball float d": (lambda: random.ball(_k(), 2.5), TypeError, "integer"),
    "orthogonal int dtype": (
        lambda: random.orthogonal(_k(), 2, dtype=jnp.int32), ValueError, "`orthogonal` must"),
}  # fmt: skip


def test_multivariate_normal_and_orthogonal_shapes():
    k = random.PRNGKey(0)
    mean, cov = jnp.zeros((3, 2)), jnp.array([[1.0, 0.9], [0.9, 1.0]])
    assert random.multivariate_normal(k, mean, cov).shape == (3, 2)
    assert random.multivariate_normal(k, mean, cov, (4, 3)).shape == (4, 3, 2)
    ints = random.multivariate_normal(k, jnp.zeros(2, jnp.int32), jnp.eye(2, dtype=jnp.int32))
    assert ints.dtype == np.float32
    # Not positive definite: NaNs (as JAX's Cholesky factor).
    assert np.isnan(random.multivariate_normal(k, jnp.zeros(2), -jnp.eye(2))).all()
    # A singular covariance through eigh: samples on the line x0 == x1.
    s = random.multivariate_normal(k, jnp.zeros(2), jnp.ones((2, 2)), (5,), method="eigh")
    np.testing.assert_allclose(s[:, 0], s[:, 1], rtol=1e-5, atol=1e-5)
    q = random.orthogonal(k, 4, (2,))
    assert q.shape == (2, 4, 4)
    np.testing.assert_allclose(q @ jnp.swapaxes(q, -1, -2), np.broadcast_to(np.eye(4), q.shape),
                               atol=1e-5)  # fmt: skip
    wide = random.orthogonal(k, 2, m=5)
    assert wide.shape == (2, 5)
    np.testing.assert_allclose(wide @ wide.T, np.eye(2), atol=1e-5)
    u = random.orthogonal(k, 3, dtype=jnp.complex64)
    assert u.dtype == np.complex64
    np.testing.assert_allclose(u @ jnp.conj(u).T, np.eye(3), atol=1e-5)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    fn, cls, fragment = ERRORS[name]
    with pytest.raises(cls) as info:
        fn()
    assert fragment in str(info.value)


def test_numpy_float64_parameters_are_canonicalized_before_the_cast_check():
    # JAX 0.10.2 with x64 off: a float64 NumPy parameter is float32 and passes the safe-cast
    # check (pareto, rayleigh and lognormal raised TypePromotionError here); complex still fails.
    k = random.PRNGKey(0)
    for fn, arg in [(random.pareto, np.ones(2)), (random.rayleigh, np.ones(2))]:
        assert fn(k, arg).dtype == np.float32
    assert random.lognormal(k, np.ones(2), (2,)).dtype == np.float32
    with pytest.raises(dtypes.TypePromotionError, match="complex64 to float32"):
        random.pareto(k, 1j)
