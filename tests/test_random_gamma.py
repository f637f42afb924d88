"""spmd.random's gamma family against JAX 0.10, bit for bit in float32.

``tests/golden/random_gamma.json`` holds JAX's outputs for the cases of
``tests/golden_gen/random_gamma_gen.py`` (regenerate with ``/path/to/jax/python
tests/golden_gen/random_gamma_gen.py``), in the three modes of ``test_random.py``. float32
samples are compared as bit patterns; ``NOT_EXACT`` lists what is checked to within a few ulps
and why. The rest checks the dtype and shape rules, errors (JAX's classes), the
``random_gamma`` primitive's rules and the kernels behind it.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from test_random import threefry_mode

import spmd
import spmd.numpy as jnp
from spmd import random
from spmd._src import random_counting
from spmd._src import random_gamma as rg
from spmd._src.lax import random_math

_HERE = Path(__file__).parent
_spec = importlib.util.spec_from_file_location(
    "random_gamma_gen", _HERE / "golden_gen" / "random_gamma_gen.py"
)
GEN = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(GEN)
GOLDEN = json.loads((_HERE / "golden" / "random_gamma.json").read_text())["records"]


def _allowed_ulps(mode: str, case: dict, dtype: str) -> int:
    """Ulps allowed; 0 (bit-exact) for every float32 sample."""
    if case.get("via") == "grad":
        # random_gamma_grad: spmd computes it in float64 and rounds once; JAX's float32 series
        # and continued fractions are off by a few ulps.
        return NOT_EXACT["grad"]
    if dtype == "float64":
        return NOT_EXACT["float64"]
    if dtype in GEN.NARROW:
        return NOT_EXACT["narrow"]
    if case["fn"] == "f" and case.get("b") == [[2.0, 9.0, 30.0]]:
        return NOT_EXACT["f_partial_broadcast"]
    return 0


NOT_EXACT = {
    # XLA's float64 log/log1p/erf_inv and pow are not reproduced (NumPy's are used); logs of
    # samples near 1 are small, so their ulps are too.
    "float64": 256,
    # float16/bfloat16: most samples are exact; XLA keeps some intermediates of its fusions in
    # float32 where spmd rounds after each operation.
    "narrow": 32,
    "grad": 64,
    # f's (n / dfnum) / (d / dfden) is (n dfden) / (dfnum d) after XLA's simplifier for scalar
    # and full-shape parameters (exact); parameters broadcast along some axes only (here
    # (2, 1) against (1, 3)) are simplified otherwise, in a way not reproduced.
    "f_partial_broadcast": 2,
}


def _is_nan(dtype: str, bits: np.ndarray) -> np.ndarray:
    width = 8 * GEN.param(np, [0], dtype).dtype.itemsize
    udt = {16: np.uint16, 32: np.uint32, 64: np.uint64}[width]
    return np.isnan(bits.astype(udt).view(GEN.param(np, [0], dtype).dtype).astype(np.float64))


def _mismatch(mode: str, case: dict, want: dict) -> str | None:
    got = GEN.encode(np, GEN.call(random, np, case))
    if (got["dtype"], got["shape"]) != (want["dtype"], want["shape"]):
        return f"{case}: got {got['dtype']}{got['shape']}, JAX gives {want['dtype']}{want['shape']}"
    g = np.array(got["bits"], np.uint64).astype(np.int64)
    w = np.array(want["bits"], np.uint64).astype(np.int64)
    ulps = _allowed_ulps(mode, case, want["dtype"])
    # NaNs (a <= 0, a NaN) match whatever their sign and payload.
    nan = _is_nan(got["dtype"], g) & _is_nan(want["dtype"], w)
    bad = np.flatnonzero((np.abs(g - w) > ulps) & ~nan)
    if bad.size:
        return f"{case}: {bad.size} of {w.size} differ, e.g. at {bad[:3].tolist()}"
    return None


@pytest.mark.parametrize("mode", ["partitionable", "original", "x64"])
def test_golden(mode):
    records = [r for r in GOLDEN if r["mode"] == mode]
    assert records
    with threefry_mode(mode):
        errors = [e for r in records if (e := _mismatch(mode, r["case"], r["out"]))]
    assert not errors, "\n".join(errors)


def test_golden_covers_the_family():
    fns = {r["case"]["fn"] for r in GOLDEN}
    want = "gamma loggamma beta dirichlet chisquare f t generalized_normal poisson binomial"
    assert set((want + " multinomial").split()) <= fns
    vias = {r["case"].get("via") for r in GOLDEN}
    assert {None, "jit", "vmap_keys", "vmap_a", "grad"} <= vias
    dts = {r["out"]["dtype"] for r in GOLDEN}
    assert {"float32", "float16", "bfloat16", "float64", "int32", "int16"} <= dts


# ---------------------------------------------------------------------------------------------
# The kernels behind the sampler


def test_rsqrt_is_xlas():
    # Bits of jax.jit(lax.rsqrt) on XLA:CPU (x86-64) in float32.
    x = np.array([0.7, 2.5, 3.0, 1e-3, 12345.0, 2 / 3], np.float32)
    want = [1066990912, 1059186843, 1058262330, 1107098482, 1007908294, 1067238513]
    assert rg.rsqrt_f32(x).view(np.uint32).tolist() == want
    # The estimates (rsqrtss) at the two ends of the table.
    est = rg.rsqrt_estimate_f32(np.array([1.0, 2.0, 4.0], np.float32)).view(np.uint32)
    assert est.tolist() == [0x3F7FF000, 0x3F34F800, 0x3EFFF000]


def test_rsqrt_is_close_to_the_true_value_everywhere():
    # A wrong table entry would show up as an estimate off by more than its 12 bits, and the
    # Newton steps keep the result within about one ulp.
    rng = np.random.default_rng(0)
    x = np.exp(rng.uniform(-80, 80, 50000)).astype(np.float32)
    true = 1 / np.sqrt(x.astype(np.float64))
    est = rg.rsqrt_estimate_f32(x).astype(np.float64)
    assert np.max(np.abs(est / true - 1)) < 2.0**-11
    ulps = np.abs(rg.rsqrt_f32(x) - true) / (np.spacing(rg.rsqrt_f32(x)).astype(np.float64))
    assert ulps.max() < 1.5
    special = np.array([0.0, -1.0, np.inf, np.nan, 1e-40], np.float32)
    out = rg.rsqrt_f32(special)
    assert out[0] == np.inf and out[2] == 0 and out[4] == np.inf
    assert np.isnan(out[1]) and np.isnan(out[3])


def test_kernel_matches_the_sampler():
    keys = random.split(random.PRNGKey(3), 4)
    a = np.array([0.3, 1.0, 2.5, 40.0], np.float32)
    via = [np.asarray(rg.random_gamma_p.bind(k, jnp.asarray(v), log_space=False))
           for k, v in zip(keys, a)]  # fmt: skip
    # The primitive splits each key once more, into one key per element.
    first = [np.asarray(random.split(k, 1))[0] for k in keys]
    assert np.array(via).tolist() == rg.gamma_kernel(np.stack(first), a, False).tolist()


# ---------------------------------------------------------------------------------------------
# dtypes, shapes and keys


def test_shapes_and_dtypes():
    k = random.PRNGKey(0)
    assert random.gamma(k, 2.0).shape == ()
    assert random.gamma(k, jnp.ones((2, 3))).shape == (2, 3)
    out = random.gamma(k, jnp.ones(3), (4, 2, 3))
    assert (out.shape, out.dtype) == ((4, 2, 3), np.float32)
    assert random.gamma(k, 2, (2,)).dtype == np.float32  # int a: float samples
    assert random.gamma(k, jnp.ones(3, jnp.float16)).dtype == np.float32  # dtype, not a's
    assert random.loggamma(k, 2.0, (2,), dtype=jnp.bfloat16).dtype == jnp.bfloat16
    assert random.gamma(k, 2.0, [5]).shape == (5,)


def test_typed_keys_give_the_legacy_values():
    a = jnp.array([0.4, 1.0, 3.0])
    for fn in (random.gamma, random.loggamma):
        assert fn(random.key(5), a).tolist() == fn(random.PRNGKey(5), a).tolist()


def test_loggamma_is_the_log_of_gamma():
    k = random.PRNGKey(9)
    a = jnp.array([0.2, 0.7, 1.0, 4.0, 60.0] * 20)
    g = np.asarray(random.gamma(k, a), np.float64)
    lg = np.asarray(random.loggamma(k, a), np.float64)
    np.testing.assert_allclose(np.exp(lg), g, rtol=2e-5)


def test_jit_vmap_and_jvp():
    k = random.PRNGKey(0)
    a = jnp.array([[0.5, 2.0, 3.0]] * 2)
    got = spmd.vmap(lambda a: random.gamma(k, a, (2,)), in_axes=1)(a)
    # JAX's values (vmap with the batch dimension not in front).
    want = [[0.8845648, 1.0290775], [1.5897877, 1.7599413], [2.5691018, 2.784202]]
    np.testing.assert_array_equal(got, np.array(want, np.float32))
    out, tangent = spmd.jvp(lambda a: random.gamma(k, a, (3,)), (2.0,), (1.0,))
    np.testing.assert_array_equal(out, np.array([1.5897877, 1.7599413, 1.1290071], np.float32))
    np.testing.assert_allclose(tangent, [0.9656762, 1.0179105, 0.8033617], rtol=1e-5)
    both = spmd.vmap(lambda k, a: random.gamma(k, a))(random.split(k, 3), jnp.array([1.0, 2, 3]))
    one = [random.gamma(kk, v) for kk, v in zip(random.split(k, 3), [1.0, 2.0, 3.0])]
    assert both.tolist() == [float(v) for v in one]


def test_the_primitive():
    k = random.PRNGKey(0)
    jaxpr = spmd.make_jaxpr(lambda k, a: rg.random_gamma_p.bind(k, a, log_space=False))
    text = str(jaxpr(k, jnp.ones(3)))
    assert "random_gamma[log_space=False]" in text and "f32[3]" in text
    with pytest.raises(TypeError, match="key batch shape"):
        rg.random_gamma_p.bind(jnp.zeros((2, 2), jnp.uint32), jnp.ones(3), log_space=False)
    with pytest.raises(TypeError, match="float dtype"):
        rg.random_gamma_p.bind(k, jnp.ones(3, jnp.int32), log_space=False)
    assert random.random_gamma_p is rg.random_gamma_p


# ---------------------------------------------------------------------------------------------
# Errors (JAX's classes)


@pytest.mark.parametrize("fn", [random.gamma, random.loggamma])
def test_errors(fn):
    k = random.PRNGKey(0)
    with pytest.raises(ValueError, match=r"accepts a single key.*\(2, 2\)"):
        fn(random.split(k, 2), 1.0)
    with pytest.raises(ValueError, match=r"accepts a single key.*\(2,\)"):
        fn(random.split(random.key(0), 2), 1.0)
    with pytest.raises(TypeError, match="uint32"):
        fn(jnp.zeros(2, jnp.int32), 1.0)
    with pytest.raises(TypeError, match=r"end with \(2,\)"):
        fn(jnp.zeros(3, jnp.uint32), 1.0)
    with pytest.raises(ValueError, match="dtype argument to `gamma` must be a float dtype"):
        fn(k, 1.0, dtype=jnp.int32)
    with pytest.raises(ValueError, match=r"gamma.*shapes.*\(4,\).*\(3,\)"):
        fn(k, jnp.ones(3), (4,))
    with pytest.raises(ValueError, match=r"gamma parameter shapes must be broadcast-compatible"):
        fn(k, jnp.ones((2, 3)), (3,))
    with pytest.raises(ValueError, match="nonnegative"):
        fn(k, 1.0, (-1,))


# ---------------------------------------------------------------------------------------------
# The distributions built on gamma


def test_family_shapes_and_dtypes():
    k = random.PRNGKey(1)
    assert random.beta(k, jnp.ones(3), 2.0).shape == (3,)
    assert random.beta(k, jnp.ones((2, 1)), jnp.ones(3)).shape == (2, 3)
    assert random.dirichlet(k, jnp.ones(4)).shape == (4,)
    assert random.dirichlet(k, jnp.ones((2, 3)), (5, 2)).shape == (5, 2, 3)
    assert random.chisquare(k, 3.0).shape == ()
    assert random.f(k, jnp.ones(3), 2.0).shape == (3,)
    assert random.t(k, 2, (4,)).dtype == np.float32
    assert random.generalized_normal(k, 2.0).shape == ()
    assert random.generalized_normal(k, jnp.ones(3), (2, 3)).shape == (2, 3)
    assert random.t(k, 2.0, (2,), dtype=jnp.float16).dtype == np.float16
    d = random.dirichlet(k, jnp.array([0.1, 1.0, 10.0]), (50,))
    np.testing.assert_allclose(np.asarray(d).sum(-1), 1, rtol=1e-6)
    b = np.asarray(random.beta(k, 0.5, 0.5, (200,)))
    assert ((b >= 0) & (b <= 1)).all()


def test_family_typed_keys_and_vmap_over_parameters():
    a = jnp.array([0.5, 2.0, 7.0])
    for fn in (random.chisquare, random.t):
        assert fn(random.key(3), a).tolist() == fn(random.PRNGKey(3), a).tolist()
        per = [fn(random.PRNGKey(3), v) for v in (0.5, 2.0, 7.0)]
        batched = spmd.vmap(lambda v, fn=fn: fn(random.PRNGKey(3), v))(a)
        assert batched.tolist() == [float(v) for v in per]
    got = spmd.jit(lambda k, a, b: random.beta(k, a, b))(random.key(2), a, 2.0)
    assert got.tolist() == random.beta(random.PRNGKey(2), a, 2.0).tolist()


def test_generalized_normal_uses_p_for_one_over_one_over_p():
    # XLA turns gamma's 1 / (1 / p) into p: the boost uses p itself, not 1 / (1 / p), which
    # differs from it in the last bit for some p (and then moves the sample).
    p = np.exp(np.linspace(np.log(1.5), np.log(10), 400)).astype(np.float32)
    inv = np.float32(1) / p
    assert (np.float32(1) / inv != p).any()
    k0 = random.split(random.PRNGKey(5))[0]
    with_p = rg._gamma_jit(k0, inv, (400,), np.dtype(np.float32), False, p)
    plain = rg._gamma_jit(k0, inv, (400,), np.dtype(np.float32), False, None)
    assert (np.asarray(with_p) != np.asarray(plain)).any()
    got = np.abs(np.asarray(random.generalized_normal(random.PRNGKey(5), p, (400,))))
    assert got.tolist() == random_math.pow_f32(np.asarray(with_p), inv).tolist()


@pytest.mark.parametrize(
    "name,call",
    [
        ("beta", lambda k, **kw: random.beta(k, 1.0, 2.0, **kw)),
        ("dirichlet", lambda k, **kw: random.dirichlet(k, jnp.ones(3), **kw)),
        ("chisquare", lambda k, **kw: random.chisquare(k, 2.0, **kw)),
        ("f", lambda k, **kw: random.f(k, 2.0, 3.0, **kw)),
        ("t", lambda k, **kw: random.t(k, 2.0, **kw)),
        ("gamma", lambda k, **kw: random.generalized_normal(k, 2.0, **kw)),
    ],
)
def test_family_dtype_and_key_errors(name, call):
    k = random.PRNGKey(0)
    with pytest.raises(ValueError, match=f"dtype argument to `{name}` must be a float dtype"):
        call(k, dtype=jnp.int32)
    with pytest.raises(ValueError, match="accepts a single key"):
        call(random.split(k, 2))
    with pytest.raises(TypeError, match="uint32"):
        call(jnp.zeros(2, jnp.int32))


def test_family_shape_errors():
    k = random.PRNGKey(0)
    cases = [
        ("beta", lambda: random.beta(k, jnp.ones(3), 2.0, (4,)), r"\(4,\), \(3,\), \(\)"),
        ("dirichlet", lambda: random.dirichlet(k, jnp.ones((2, 3)), (4,)), r"\(4,\), \(2,\)"),
        ("chisquare", lambda: random.chisquare(k, jnp.ones(3), (4,)), r"\(4,\), \(3,\)"),
        ("f", lambda: random.f(k, jnp.ones(3), 3.0, (4,)), r"\(4,\), \(3,\)"),
        ("t", lambda: random.t(k, jnp.ones(3), (4,)), r"\(4,\), \(3,\)"),
        ("gamma", lambda: random.generalized_normal(k, jnp.ones(3), (4,)), r"\(4,\), \(3,\)"),
    ]
    for name, fn, sizes in cases:
        with pytest.raises(ValueError, match=f"{name}.*shapes.*{sizes}"):
            fn()
    with pytest.raises(ValueError, match="dirichlet requires alpha.ndim >= 1, got alpha.ndim == 0"):
        random.dirichlet(k, 1.0)


def test_family_unsafe_casts():
    k = random.PRNGKey(0)
    msg = "In arguments to beta, cannot safely cast argument of type complex64 to float32"
    with pytest.raises(spmd.dtypes.TypePromotionError, match=msg):
        random.beta(k, jnp.ones(3, jnp.complex64), 1.0)
    with pytest.raises(ValueError, match="chisquare, cannot safely cast .* complex"):
        random.chisquare(k, 1 + 0j, (2,))
    with pytest.raises(ValueError, match="In arguments to f, cannot safely cast argument of "
                       "type float32 to float16"):  # fmt: skip
        random.f(k, 2.0, jnp.ones(2, jnp.float32), dtype=jnp.float16)
    # Ints and Python floats convert safely.
    assert random.t(k, jnp.ones(2, jnp.int32)).dtype == np.float32
    assert random.f(k, 2.0, jnp.ones(2, jnp.float16), dtype=jnp.float16).dtype == np.float16


def test_docstring_examples():
    import doctest

    for mod, examples in ((rg, 2), (random_counting, 1)):
        result = doctest.testmod(mod, extraglobs={"jnp": jnp}, verbose=False)
        assert result.attempted >= examples and result.failed == 0, mod.__name__


# ---------------------------------------------------------------------------------------------
# Counting distributions


def test_counting_shapes_and_dtypes():
    k = random.PRNGKey(0)
    out = random.poisson(k, jnp.ones(3))
    assert (out.shape, out.dtype) == ((3,), np.int32)
    assert random.poisson(k, 2.0, (2, 3), dtype=jnp.int16).dtype == np.int16
    b = random.binomial(k, 10.0, jnp.array([0.1, 0.9]))
    assert (b.shape, b.dtype) == ((2,), np.float32)
    assert random.binomial(k, jnp.ones((2, 1)), jnp.ones(3) / 2).shape == (2, 3)
    m = random.multinomial(k, 10.0, jnp.array([0.2, 0.3, 0.5]), shape=(4, 3))
    assert (m.shape, m.dtype) == ((4, 3), np.float32)
    np.testing.assert_array_equal(np.asarray(m).sum(-1), 10)
    assert random.multinomial(k, 7, jnp.array([1, 2]), dtype=jnp.int32).dtype == np.int32
    # Large rates go through the rejection samplers: their means are close to the rate.
    assert abs(float(random.poisson(k, 400.0, (2000,)).mean()) - 400) < 3
    assert abs(float(random.binomial(k, 1000.0, 0.3, (2000,)).mean()) - 300) < 3


def test_counting_errors():
    k = random.PRNGKey(0)
    with pytest.raises(ValueError, match="dtype argument to `poisson` must be an integer"):
        random.poisson(k, 3.0, (3,), dtype=jnp.float32)
    with pytest.raises(ValueError):
        random.poisson(k, jnp.ones(3), (4,))
    with pytest.raises(ValueError, match="dtype argument to `binomial` must be a float dtype"):
        random.binomial(k, 5.0, 0.5, (3,), dtype=jnp.int32)
    with pytest.raises(ValueError, match=r"binomial.*shapes.*\(4,\), \(3,\), \(\)"):
        random.binomial(k, jnp.ones(3), 0.5, (4,))
    with pytest.raises(TypeError, match="binomial requires ndarray or scalar arguments"):
        random.binomial(k, [5.0], 0.5)
    with pytest.raises(TypeError, match="multinomial requires ndarray or scalar arguments"):
        random.multinomial(k, 5.0, [0.5, 0.5])
    for fn in (
        lambda kk: random.poisson(kk, 3.0),
        lambda kk: random.binomial(kk, 3.0, 0.5),
        lambda kk: random.multinomial(kk, 3.0, jnp.ones(2) / 2),
    ):
        with pytest.raises(ValueError, match="accepts a single key"):
            fn(random.split(k, 2))
        with pytest.raises(TypeError, match="uint32"):
            fn(jnp.zeros(2, jnp.int32))


def test_lgamma_is_xlas():
    # Bits of jax.jit(lax.lgamma) on XLA:CPU in float32 (lgamma(1) is not exactly 0 there).
    x = np.array([1, 2, 3.5, 10, 10001, 0.7, 123.25], np.float32)
    want = [889192448, 0, 1067039106, 1095554124, 1201692279, 1048940656, 1139429033]
    assert random_counting.lgamma_f32(x).view(np.uint32).tolist() == want
    assert random_counting.lgamma_f32(np.float32(np.inf)) == np.inf


def test_generalized_normal_under_vmap_and_jit():
    # The boost's 1 / a comes in as a third operand of random_gamma: it batches with the rest.
    keys = random.split(random.PRNGKey(2), 3)
    p = jnp.array([0.7, 2.0, 4.5, 9.0])
    per_key = [random.generalized_normal(k, p, (4,)).tolist() for k in keys]
    batched = spmd.vmap(lambda k: random.generalized_normal(k, p, (4,)))(keys)
    assert batched.tolist() == per_key
    ps = jnp.array([[0.7, 2.0], [4.5, 9.0]])
    over_p = spmd.vmap(lambda p: random.generalized_normal(keys[0], p, (2,)))(ps)
    assert over_p.tolist() == [random.generalized_normal(keys[0], q, (2,)).tolist() for q in ps]
    jitted = spmd.jit(random.generalized_normal, static_argnums=2)(keys[1], p, (4,))
    assert jitted.tolist() == per_key[1]
