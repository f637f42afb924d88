"""``lax.rng_bit_generator`` and the 'rbg'/'unsafe_rbg' PRNGs against JAX 0.10.2, bit for bit.

``tests/golden/rng_bit_generator.json`` holds JAX's outputs for the cases of
``tests/golden_gen/rng_bit_generator_gen.py`` (every algorithm, uint8/16/32/64, several shapes
and keys, counters that wrap, uint64[2] keys, jit, vmap over keys, the jaxpr; the rbg PRNGs'
keys, split, fold_in, bits, uniform, normal, randint, key data, typed and legacy; the first
``rng_uniform`` call of a process). The rest of the file checks the key arrays of the rbg PRNGs,
``rng_uniform``'s stream, and bad input (JAX's error classes).
"""

from __future__ import annotations

import importlib.util
import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax, random
from spmd._src.lax import rng_bit_generator as rbg_mod

_HERE = Path(__file__).parent
_spec = importlib.util.spec_from_file_location(
    "rng_bit_generator_gen", _HERE / "golden_gen" / "rng_bit_generator_gen.py"
)
GEN = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(GEN)
GOLDEN = json.loads((_HERE / "golden" / "rng_bit_generator.json").read_text())["records"]
KEY = np.array([1, 2, 3, 4], np.uint32)


def _mismatches(records) -> list[str]:
    errors = []
    for r in records:
        got = GEN.run_case(spmd, np, r["case"])
        if got != r["out"]:
            if r["case"]["fn"] == "rbg_jaxpr":
                got = bytes(got[0]["bits"]).decode()
                errors.append(f"jaxpr:\n{got}\nJAX prints:\n{bytes(r['out'][0]['bits']).decode()}")
                continue
            brief = [(o["dtype"], o["shape"], o["bits"][:4]) for o in got]
            want = [(o["dtype"], o["shape"], o["bits"][:4]) for o in r["out"]]
            errors.append(f"{r['case']}: got {brief}, JAX gives {want}")
    return errors


@pytest.mark.parametrize("group", ["rbg", "rbg_transformed", "prng"])
def test_golden(group):
    def in_group(fn):
        if group == "rbg":
            return fn == "rbg"
        return fn.startswith("rbg_") if group == "rbg_transformed" else not fn.startswith("rbg")

    records = [r for r in GOLDEN if in_group(r["case"]["fn"])]
    assert records
    errors = _mismatches(records)
    assert not errors, "\n".join(errors[:20])


def test_golden_covers_algorithms_dtypes_and_impls():
    cases = [r["case"] for r in GOLDEN]
    combos = {(c["alg"], c["dtype"]) for c in cases if c["fn"] == "rbg"}
    assert combos == {
        (a, d) for a in GEN.ALGORITHMS for d in ("uint8", "uint16", "uint32", "uint64")
    }
    assert sum(c["fn"] == "rng_uniform_first" for c in cases) >= 4
    fns = {(c.get("impl"), c["fn"]) for c in cases if "impl" in c}
    for impl in ("rbg", "unsafe_rbg"):
        for fn in "PRNGKey split fold_in bits uniform normal randint wrap_key_data".split():
            assert (impl, fn) in fns


# ---------------------------------------------------------------------------------------------
# The generators


def test_philox_known_answer():
    # Random123's known-answer vector for Philox-4x32-10 with a zero key and counter.
    words = rbg_mod._philox_blocks(np.uint64(0), np.uint64(0), 1)
    assert [int(w[0]) for w in words] == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]


@pytest.mark.parametrize("alg", list(lax.RandomAlgorithm))
def test_returned_key_continues_the_stream(alg):
    # Philox blocks are 4 words, Threefry's 32-bit output uses a counter per 2 words: two
    # calls of 8 words through the returned key are one call of 16.
    k1, a = lax.rng_bit_generator(KEY, (8,), algorithm=alg)
    _, b = lax.rng_bit_generator(k1, (8,), algorithm=alg)
    _, ab = lax.rng_bit_generator(KEY, (16,), algorithm=alg)
    np.testing.assert_array_equal(np.concatenate([a, b]), ab)
    assert not np.array_equal(a, b)


def test_default_is_philox_on_cpu():
    for dt in (np.uint8, np.uint32):
        d = lax.rng_bit_generator(KEY, (9,), dt)
        p = lax.rng_bit_generator(KEY, (9,), dt, lax.RandomAlgorithm.RNG_PHILOX)
        np.testing.assert_array_equal(d[0], p[0])
        np.testing.assert_array_equal(d[1], p[1])


def test_narrow_dtypes_truncate_the_32_bit_words():
    _, b32 = lax.rng_bit_generator(KEY, (2, 3))
    _, b8 = lax.rng_bit_generator(KEY, (2, 3), np.uint8)
    np.testing.assert_array_equal(np.asarray(b32).astype(np.uint8), b8)


def test_jaxpr_and_grad_of_a_sampler():
    jaxpr = spmd.make_jaxpr(lambda k: lax.rng_bit_generator(k, (2,)))(KEY)
    assert "rng_bit_generator[" in str(jaxpr) and "algorithm=RNG_DEFAULT" in str(jaxpr)

    # Bits carry no derivative: the gradient flows through the float arithmetic only.
    def f(scale, k):
        _, bits = lax.rng_bit_generator(k, (4,))
        return jnp.sum(scale * bits.astype(jnp.float32))

    _, bits = lax.rng_bit_generator(KEY, (4,))
    g = spmd.grad(f)(2.0, KEY)
    np.testing.assert_allclose(g, np.asarray(bits, np.float32).sum(), rtol=1e-6)


def test_mesh_sharded_key_gives_replicated_bits():
    mesh = spmd.make_mesh((2,), ("x",))
    sharded = spmd.device_put(jnp.asarray(KEY), spmd.NamedSharding(mesh, spmd.P("x")))
    new_key, bits = spmd.jit(lambda k: lax.rng_bit_generator(k, (4, 2)))(sharded)
    _, want = lax.rng_bit_generator(KEY, (4, 2))
    np.testing.assert_array_equal(bits, want)
    assert bits.sharding.is_fully_replicated


# ---------------------------------------------------------------------------------------------
# rbg key arrays


@pytest.mark.parametrize("impl,tag", [("rbg", "rbg"), ("unsafe_rbg", "urbg")])
def test_rbg_key_arrays(impl, tag):
    keys = random.split(random.key(0, impl=impl), (2, 3))
    assert keys.shape == (2, 3) and str(keys.dtype) == f"key<{tag}>"
    assert keys.dtype == random.key_dtype(impl) and keys.dtype != random.key_dtype()
    assert random.key_data(keys).shape == (2, 3, 4)
    assert random.key_impl(keys) == impl
    assert keys[1].shape == (3,) and keys.reshape(6).shape == (6,) and keys.T.shape == (3, 2)
    assert f"dtype=key<{tag}>" in repr(keys[0, 0])
    stacked = jnp.stack([keys[0], keys[1]])
    assert stacked.dtype == keys.dtype
    np.testing.assert_array_equal(random.key_data(stacked), random.key_data(keys))
    # Through jit as a pytree, and eval_shape reports the key dtype.
    out = spmd.jit(lambda k: random.split(k[0, 0]))(keys)
    assert out.dtype == keys.dtype
    assert spmd.eval_shape(lambda k: random.split(k[0, 0]), keys).dtype == keys.dtype


def test_default_prng_impl_config_makes_rbg_keys():
    old = spmd.config.jax_default_prng_impl
    spmd.config.update("jax_default_prng_impl", "unsafe_rbg")
    try:
        assert random.PRNGKey(3).shape == (4,)
        assert random.key_impl(random.key(3)) == "unsafe_rbg"
    finally:
        spmd.config.update("jax_default_prng_impl", old)
    assert random.PRNGKey(3).shape == (2,)


# ---------------------------------------------------------------------------------------------
# Bad input: JAX's error classes


def test_error_key_of_three_words():
    with pytest.raises(AssertionError, match=r"key must be uint32\[4\].*got uint32\[3\]"):
        lax.rng_bit_generator(np.zeros(3, np.uint32), (2,))


def test_error_key_of_two_uint32_words():
    with pytest.raises(AssertionError, match=r"got uint32\[2\]"):
        lax.rng_bit_generator(np.zeros(2, np.uint32), (2,))


def test_error_batched_key_without_vmap():
    with pytest.raises(AssertionError, match=r"got uint32\[2, 4\]"):
        lax.rng_bit_generator(np.zeros((2, 4), np.uint32), (2,))


def test_error_signed_key():
    with pytest.raises(AssertionError, match=r"got int32\[4\]"):
        lax.rng_bit_generator(np.zeros(4, np.int32), (2,))


def test_error_float_key():
    with pytest.raises(AssertionError, match=r"got float32\[4\]"):
        lax.rng_bit_generator(np.zeros(4, np.float32), (2,))


def test_error_list_key():
    with pytest.raises(TypeError, match="rng_bit_generator .*list"):
        lax.rng_bit_generator([1, 2, 3, 4], (2,))


def test_error_signed_dtype():
    with pytest.raises(TypeError, match="rng_bit_generator: unsupported dtype int32"):
        lax.rng_bit_generator(KEY, (2,), dtype=np.int32)


def test_error_float_dtype():
    with pytest.raises(TypeError, match="rng_bit_generator: unsupported dtype float32"):
        lax.rng_bit_generator(KEY, (2,), dtype=np.float32)


def test_error_bool_dtype():
    with pytest.raises(TypeError, match="rng_bit_generator: unsupported dtype bool"):
        lax.rng_bit_generator(KEY, (2,), dtype=np.bool_)


def test_error_algorithm_number():
    with pytest.raises(AssertionError, match="algorithm must be a lax.RandomAlgorithm, got 5"):
        lax.rng_bit_generator(KEY, (2,), algorithm=5)


def test_error_algorithm_name():
    with pytest.raises(AssertionError, match="got 'philox'"):
        lax.rng_bit_generator(KEY, (2,), algorithm="philox")


def test_error_negative_shape():
    # JAX fails in MLIR (invalid tensor dimension size); spmd says which dimension.
    with pytest.raises(ValueError, match=r"nonnegative dimensions, got \(3, -2\)"):
        lax.rng_bit_generator(KEY, (3, -2))


def test_uint64_without_x64_warns_and_gives_uint32():
    with pytest.warns(UserWarning, match="uint64 .* truncated to dtype uint32"):
        _, bits = lax.rng_bit_generator(KEY, (2,), dtype=np.uint64)
    assert bits.dtype == np.uint32


def test_uint64_key_data_without_x64_is_uint32():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        key = jnp.asarray(np.array([1, 2, 3, 4], np.uint64))  # canonicalized to uint32[4]
    np.testing.assert_array_equal(
        lax.rng_bit_generator(key, (3,))[1], [512747620, 1298009047, 1267190206]
    )


def test_error_key_data_of_no_width_under_rbg():
    old = spmd.config.jax_default_prng_impl
    spmd.config.update("jax_default_prng_impl", "rbg")
    try:
        with pytest.raises(
            TypeError, match=r"impl rbg: expected key_data.shape to end with \(4,\)"
        ):
            random.split(np.zeros(3, np.uint32))
    finally:
        spmd.config.update("jax_default_prng_impl", old)


def test_error_poisson_with_rbg_keys():
    # JAX's class and message.
    with pytest.raises(NotImplementedError, match="threefry2x32 RNG, not rbg"):
        random.poisson(random.key(0, impl="rbg"), 3.0, (4,))


def test_error_gamma_family_with_rbg_keys():
    # JAX draws these in a vmapped rejection loop (the first key feeding every lane); spmd
    # refuses rather than give other numbers.
    k = random.key(0, impl="unsafe_rbg")
    for f in (lambda: random.gamma(k, 2.5, (3,)), lambda: random.beta(k, 2.0, 3.0, (3,))):
        with pytest.raises(NotImplementedError, match="Gamma-family samplers .* rbg keys"):
            f()


def test_error_wrap_key_data_width():
    with pytest.raises(TypeError, match=r"wrap_key_data: .*impl unsafe_rbg.*shape=\(3, 2\)"):
        random.wrap_key_data(np.zeros((3, 2), np.uint32), impl="unsafe_rbg")


def test_error_unknown_impl():
    with pytest.raises(ValueError, match='unrecognized PRNG implementation "philox".*"rbg"'):
        random.key(0, impl="philox")


# ---------------------------------------------------------------------------------------------
# rng_uniform (its first call in a process is in the golden file)


def test_rng_uniform_stream_advances_and_prints_as_jax():
    a = lax.rng_uniform(0.0, 1.0, (100,))
    b = lax.rng_uniform(0.0, 1.0, (100,))
    assert a.dtype == np.float32 and a.weak_type
    assert not np.array_equal(a, b) and 0.0 <= float(a.min()) and float(a.max()) < 1.0
    ints = lax.rng_uniform(jnp.uint32(3), jnp.uint32(7), (200,))
    assert ints.dtype == np.uint32 and set(np.asarray(ints).tolist()) == {3, 4, 5, 6}
    text = str(spmd.make_jaxpr(lambda x, y: lax.rng_uniform(x, y, (3,)))(0.0, 1.0))
    # JAX 0.10.2's text for the same function.
    assert (
        text == "{ lambda ; a:f32[] b:f32[]. let c:f32[3] = rng_uniform[shape=(3,)] a b in (c,) }"
    )


def test_rng_uniform_error_mixed_dtypes():
    with pytest.raises(ValueError, match="identical dtypes, got float32 and int32"):
        lax.rng_uniform(0.0, 1, (3,))


def test_rng_uniform_error_non_scalar_bounds():
    with pytest.raises(ValueError, match=r"must be scalars; got shapes \(2,\) and \(2,\)"):
        lax.rng_uniform(jnp.zeros(2), jnp.ones(2), (2,))


def test_rng_uniform_error_bool():
    # JAX's XLA aborts the process here; spmd refuses the dtype.
    with pytest.raises(TypeError, match="rng_uniform: dtype bool is not supported"):
        lax.rng_uniform(True, False, (2,))


def test_rng_uniform_error_shape_not_a_sequence():
    with pytest.raises(TypeError):
        lax.rng_uniform(0.0, 1.0, 3)


def test_rng_uniform_has_no_batching_or_derivative():
    with pytest.raises(NotImplementedError, match="rng_uniform"):
        spmd.vmap(lambda a: lax.rng_uniform(a, 1.0, (2,)))(jnp.zeros(3))
    with pytest.raises(NotImplementedError, match="rng_uniform"):
        spmd.grad(lambda a: lax.rng_uniform(a, 1.0, ()))(0.0)
