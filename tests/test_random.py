"""spmd.random against JAX 0.10: the same bits and float values, bit for bit.

``tests/golden/random.json`` holds JAX's outputs for the cases of
``tests/golden_gen/random_gen.py`` (regenerate with ``/path/to/jax/python
tests/golden_gen/random_gen.py``) in three modes: partitionable threefry (JAX's default),
the original counter layout (``jax_threefry_partitionable=False``), and x64. Every result is
compared as bit patterns; the only inexact case is float64 ``normal`` (XLA's float64
erf_inv/log1p are not reproduced), checked to within a few ulp. The rest of the file checks
keys (typed and legacy), transformations (jit, vmap over keys, grad) and errors (JAX's
classes; messages checked by a fragment).
"""

from __future__ import annotations

import importlib.util
import json
import math
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import random
from spmd._src.lax import random_bits as rb

_HERE = Path(__file__).parent
_spec = importlib.util.spec_from_file_location("random_gen", _HERE / "golden_gen" / "random_gen.py")
GEN = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(GEN)
GOLDEN = json.loads((_HERE / "golden" / "random.json").read_text())["records"]

# (mode, fn, dtype) -> ulps allowed. Everything else must be bit-exact.
NOT_EXACT = {("x64", "normal", "float64"): 16}


@contextmanager
def threefry_mode(mode: str):
    old = (spmd.config.jax_threefry_partitionable, spmd.config.jax_enable_x64)
    spmd.config.update("jax_threefry_partitionable", mode != "original")
    spmd.config.update("jax_enable_x64", mode == "x64")
    try:
        yield
    finally:
        spmd.config.update("jax_threefry_partitionable", old[0])
        spmd.config.update("jax_enable_x64", old[1])


def _mismatch(mode: str, case: dict, want: dict) -> str | None:
    got = GEN.encode(np, GEN.call(random, np, case))
    if (got["dtype"], got["shape"]) != (want["dtype"], want["shape"]):
        return f"{case}: got {got['dtype']}{got['shape']}, JAX gives {want['dtype']}{want['shape']}"
    g = np.array(got["bits"], np.uint64).astype(np.int64)
    w = np.array(want["bits"], np.uint64).astype(np.int64)
    ulps = NOT_EXACT.get((mode, case["fn"], want["dtype"]), 0)
    bad = np.flatnonzero(np.abs(g - w) > ulps)
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


def test_golden_covers_the_samplers():
    fns = {r["case"]["fn"] for r in GOLDEN}
    want = "PRNGKey key split fold_in bits uniform normal randint bernoulli permutation choice"
    want += " categorical truncated_normal gumbel exponential laplace logistic rademacher"
    assert set(want.split()) <= fns
    dts = {r["out"]["dtype"] for r in GOLDEN}
    assert {"float32", "float16", "bfloat16", "int32", "uint32", "uint8", "int8"} <= dts


def test_partitionable_is_the_default():
    assert spmd.config.jax_threefry_partitionable is True


# ---------------------------------------------------------------------------------------------
# The hash and the float kernels


def test_threefry_known_answers():
    # Random123's known-answer vectors for Threefry-2x32 with 20 rounds.
    u = np.uint32
    cases = [
        ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
        ((0xFFFFFFFF,) * 2, (0xFFFFFFFF,) * 2, (0x1CB996FC, 0xBB002BE7)),
        ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
    ]
    for (k1, k2), (x1, x2), want in cases:
        y1, y2 = rb.threefry2x32(u(k1), u(k2), u(x1), u(x2))
        assert (int(y1), int(y2)) == want


def test_fma32_rounds_once():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(400).astype(np.float32)
    b = rng.standard_normal(400).astype(np.float32)
    c = rng.standard_normal(400).astype(np.float32)
    # Cases where rounding a*b+c to float64 first lands exactly between two float32 values.
    a[:4] = np.float32(1 + 2**-12)
    b[:4] = np.float32(1 + 2**-12)
    c[:4] = np.float32(2**-24) * np.array([1, -1, 3, -3], np.float32)
    got = rb.fma32(a, b, c)
    for x, y, z, g in zip(a, b, c, got):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        lo = np.float32(float(exact))
        cands = [lo, np.nextafter(lo, np.float32(-np.inf)), np.nextafter(lo, np.float32(np.inf))]
        best = min(cands, key=lambda v: (abs(Fraction(float(v)) - exact),
                                         int(np.asarray(v).view(np.uint32)) & 1))  # fmt: skip
        assert g == best, (x, y, z)


def test_xla_kernels_known_values():
    # Bits of jax.jit(jnp.log) and jax.jit(jnp.log1p) on XLA:CPU in float32.
    x = np.array([0.3, 1.7, 1e-3, 0.9], np.float32)
    assert rb.log_f32(x).view(np.uint32).tolist() == [3214547912, 1057478465, 3235712085,
                                                      3185035077]  # fmt: skip
    want_log1p = [0.2623642683029175, 0.9932518005371094, 0.00099950039293617, 0.6418538689613342]
    assert rb.log1p_f32(x).tolist() == want_log1p
    assert rb.erf_inv_f32(np.float32(0.5)) == np.float32(0.47693628)


# ---------------------------------------------------------------------------------------------
# Keys


def test_legacy_and_typed_key_reprs():
    assert repr(random.PRNGKey(42)) == "Array([ 0, 42], dtype=uint32)"
    assert repr(random.key(42)) == "Array((), dtype=key<fry>) overlaying:\n[ 0 42]"
    keys = random.split(random.key(1), 3)
    assert str(keys) == (
        "Array((3,), dtype=key<fry>) overlaying:\n[[ 507451445 1853169794]\n"
        " [1948878966 4237131848]\n [2441914641 3819641963]]"
    )


def test_typed_keys_behave_like_key_arrays():
    k = random.key(1)
    assert (k.shape, k.ndim, k.size, str(k.dtype), k.itemsize) == ((), 0, 1, "key<fry>", 8)
    keys = random.split(k, (2, 3))
    assert isinstance(keys, random.PRNGKeyArray) and keys.shape == (2, 3)
    assert keys[:, 1].shape == (2,) and keys[1, 2].shape == ()
    assert keys.reshape(3, 2).shape == (3, 2) and keys.ravel().shape == (6,)
    assert keys.T.shape == (3, 2) and len(keys) == 2 and len(list(keys)) == 2
    assert bool(keys[0, 0] == keys.ravel()[0]) and not bool(keys[0, 0] == keys[0, 1])
    assert random.key_impl(k) == "threefry2x32" and str(random.key_dtype()) == "key<fry>"
    data = random.key_data(keys)
    assert data.shape == (2, 3, 2) and data.dtype == np.uint32
    assert bool(random.wrap_key_data(data)[1, 1] == keys[1, 1])
    np.testing.assert_array_equal(random.key_data(random.key(7)), random.PRNGKey(7))
    # Typed in, typed out; legacy in, legacy out.
    assert isinstance(random.fold_in(k, 3), random.PRNGKeyArray)
    assert not isinstance(random.fold_in(random.PRNGKey(1), 3), random.PRNGKeyArray)
    np.testing.assert_array_equal(
        random.key_data(random.fold_in(k, 3)), random.fold_in(random.PRNGKey(1), 3)
    )


def test_typed_keys_through_jit_and_tree():
    k = random.key(1)
    out = spmd.jit(lambda k: random.split(k))(k)
    assert isinstance(out, random.PRNGKeyArray) and out.shape == (2,)
    np.testing.assert_array_equal(random.key_data(out), random.key_data(random.split(k)))
    # As in JAX, a key array is one leaf of its own shape, not its uint32[2] data.
    leaves = spmd.tree_util.tree_leaves({"k": k})
    assert len(leaves) == 1 and leaves[0] is k and leaves[0].shape == ()


def test_seeds_as_jax_canonicalizes_them():
    # x64 off: a Python int seed wraps to 32 bits; 2**63 and beyond overflow (as in JAX).
    assert random.PRNGKey(2**40 + 3).tolist() == [0, 3]
    assert random.PRNGKey(-1).tolist() == [0, 4294967295]
    assert random.PRNGKey(True).tolist() == [0, 1]
    assert random.PRNGKey(jnp.int8(-3)).tolist() == [0, 4294967293]
    assert spmd.jit(random.PRNGKey)(jnp.int32(9)).tolist() == [0, 9]
    assert spmd.vmap(random.PRNGKey)(jnp.arange(3)).tolist() == [[0, 0], [0, 1], [0, 2]]


# ---------------------------------------------------------------------------------------------
# Transformations


_SAMPLERS = {
    "normal": lambda k: random.normal(k, (3,)),
    "uniform": lambda k: random.uniform(k, (2, 3), minval=-1.0, maxval=2.0),
    "bits": lambda k: random.bits(k, (4,), jnp.uint8),
    "randint": lambda k: random.randint(k, (5,), 0, 9),
    "split": lambda k: random.split(k, 3),
    "fold_in": lambda k: random.fold_in(k, 11),
    "permutation": lambda k: random.permutation(k, 6),
    "choice": lambda k: random.choice(k, 5, (3,), p=jnp.array([0.1, 0.2, 0.3, 0.2, 0.2])),
    "categorical": lambda k: random.categorical(k, jnp.zeros((2, 4))),
    "bernoulli": lambda k: random.bernoulli(k, 0.3, (4,)),
    "truncated_normal": lambda k: random.truncated_normal(k, -1.0, 1.0, (3,)),
    "gumbel": lambda k: random.gumbel(k, (3,), jnp.bfloat16),
}


@pytest.mark.parametrize("mode", ["partitionable", "original"])
@pytest.mark.parametrize("name", sorted(_SAMPLERS))
def test_vmap_over_keys_and_jit(name, mode):
    f = _SAMPLERS[name]
    with threefry_mode(mode):
        keys = random.split(random.PRNGKey(3), 4)
        loop = np.stack([np.asarray(f(k)) for k in keys])
        np.testing.assert_array_equal(spmd.vmap(f)(keys), loop)
        # Keys batched along their last axis.
        np.testing.assert_array_equal(spmd.vmap(f, in_axes=1)(keys.T), loop)
        np.testing.assert_array_equal(spmd.jit(f)(keys[0]), loop[0])


def test_vmap_over_typed_keys_and_fold_in_data():
    keys = random.split(random.key(0), 4)
    got = spmd.vmap(lambda k: random.normal(k, (3,)))(keys)
    np.testing.assert_array_equal(got, np.stack([random.normal(k, (3,)) for k in keys]))
    out = spmd.vmap(random.split)(keys)
    assert isinstance(out, random.PRNGKeyArray) and out.shape == (4, 2)
    k = random.PRNGKey(0)
    got = spmd.vmap(lambda d: random.fold_in(k, d))(jnp.arange(3))
    np.testing.assert_array_equal(got, np.stack([random.fold_in(k, i) for i in range(3)]))


def test_grad_through_samplers():
    key = random.PRNGKey(0)
    w = jnp.array([1.0, 2.0, 3.0])
    g = spmd.grad(lambda w: (random.normal(key, (3,)) * w).sum())(w)
    np.testing.assert_array_equal(g, random.normal(key, (3,)))
    # Values from jax.grad on the same functions.
    g = spmd.grad(lambda lo: random.truncated_normal(key, lo, 2.0, (5,)).sum())(-1.0)
    assert np.float32(g) == np.float32(1.1687777)
    g = spmd.grad(lambda m: random.uniform(key, (5,), minval=m, maxval=3.0).sum())(0.5)
    assert np.float32(g) == np.float32(1.7029047)


def test_jaxpr_has_the_random_primitives():
    text = str(spmd.make_jaxpr(lambda k: random.normal(k, (3,)))(random.PRNGKey(0)))
    assert "random_bits[bit_width=32 shape=(3,)]" in text and "xla_erf_inv" in text
    text = str(spmd.make_jaxpr(random.split)(random.PRNGKey(0)))
    assert "random_split[shape=(2,)]" in text


# ---------------------------------------------------------------------------------------------
# Errors (classes as JAX raises them)


def _k():
    return random.PRNGKey(0)


ERRORS = {
    "key data of the wrong shape": (
        lambda: random.normal(jnp.ones(3), (2,)), TypeError, "key_data.shape to end with (2,)"),
    "uint32 key data of the wrong shape": (
        lambda: random.split(jnp.zeros(3, jnp.uint32)), TypeError, "got shape=(3,)"),
    "key data of the wrong dtype": (
        lambda: random.split(jnp.zeros(2, jnp.int32)), TypeError, "dtype = uint32"),
    "not an array": (lambda: random.split(3), TypeError, "ndim, shape, and dtype"),
    "a batch of legacy keys": (
        lambda: random.normal(jnp.zeros((4, 2), jnp.uint32)), ValueError, "shape (4, 2) != ()"),
    "a batch of typed keys": (
        lambda: random.normal(random.split(random.key(0), 4)), ValueError, "shape (4,) != ()"),
    "array seed": (lambda: random.PRNGKey(jnp.ones(3)), TypeError, "scalar seed"),
    "float seed": (lambda: random.PRNGKey(1.5), TypeError, "must be an integer"),
    "key as seed": (lambda: random.key(random.key(0)), TypeError, "given a PRNG key"),
    "seed too large": (lambda: random.PRNGKey(2**63), OverflowError, "too large"),
    "fold_in array data": (lambda: random.fold_in(_k(), jnp.arange(3)), TypeError, "scalar"),
    "fold_in negative data": (lambda: random.fold_in(_k(), -1), OverflowError, "uint32"),
    "uniform int dtype": (
        lambda: random.uniform(_k(), (2,), jnp.int32), ValueError, "must be a float dtype"),
    "normal int dtype": (
        lambda: random.normal(_k(), (2,), jnp.int32), ValueError, "float or complex dtype"),
    "bits signed dtype": (
        lambda: random.bits(_k(), (2,), jnp.int32), ValueError, "unsigned int dtype"),
    "randint float dtype": (
        lambda: random.randint(_k(), (2,), 0, 10, jnp.float32), TypeError, "integer dtypes"),
    "uniform bounds of the wrong shape": (
        lambda: random.uniform(_k(), (2, 3), minval=jnp.zeros(4)), TypeError, "(4,)"),
    "bernoulli int p": (
        lambda: random.bernoulli(_k(), 1, (3,)), TypeError, "must have a floating dtype"),
    "bernoulli p and shape disagree": (
        lambda: random.bernoulli(_k(), jnp.array([0.1, 0.9]), (3,)), ValueError, "(2,)"),
    "bernoulli mode": (lambda: random.bernoulli(_k(), 0.5, mode="x"), ValueError, "mode='x'"),
    "gumbel mode": (lambda: random.gumbel(_k(), (2,), mode="x"), ValueError, "valid mode"),
    "permutation of a float": (
        lambda: random.permutation(_k(), 1.5), TypeError, "at least 1-dimensional"),
    "choice too many without replacement": (
        lambda: random.choice(_k(), 5, (7,), replace=False), ValueError, "larger sample"),
    "choice shape not a sequence": (
        lambda: random.choice(_k(), 5, 3), TypeError, "must be a sequence"),
    "choice from nothing": (lambda: random.choice(_k(), 0, (3,)), ValueError, "greater than 0"),
    "choice p of the wrong shape": (
        lambda: random.choice(_k(), 5, (3,), p=jnp.ones(4) / 4), ValueError, "p has shape (4,)"),
    "categorical shape": (
        lambda: random.categorical(_k(), jnp.zeros((3, 4)), shape=(2,)), ValueError, "(3,)"),
    "truncated_normal int dtype": (
        lambda: random.truncated_normal(_k(), 0.0, 1.0, (2,), jnp.int32), ValueError, "float"),
    "wrap_key_data of the wrong shape": (
        lambda: random.wrap_key_data(jnp.zeros(3, jnp.uint32)), TypeError, "end with (2,)"),
    "negative split": (lambda: random.split(_k(), -1), ValueError, "nonnegative"),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    fn, cls, fragment = ERRORS[name]
    with pytest.raises(cls) as info:
        fn()
    assert fragment in str(info.value)


def test_sampler_sizes_and_defaults():
    k = random.PRNGKey(0)
    assert random.uniform(k).shape == () and random.uniform(k, 3).shape == (3,)
    assert random.normal(k, (2, 0)).shape == (2, 0)
    assert random.split(k, 0).shape == (0, 2)
    assert random.bits(k, (2,)).dtype == np.uint32
    assert random.randint(k, (2,), 0, 5).dtype == np.int32
    assert random.rademacher(k, (50,)).tolist().count(0) == 0
    assert math.isfinite(float(random.logistic(k)))


def test_xla_kernels_blockwise_and_split_branches_match_elementwise():
    # Large inputs run block by block, each branch of log1p/erf_inv on its own elements; every
    # element must come out as it does alone.
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, 3 * 8192 + 5).astype(np.float32)
    x[::50] = np.float32(1) - rng.uniform(0, 1e-3, x[::50].size).astype(np.float32)
    x[1:4] = [0.0, -1.0, np.nan]
    for prim, kernel in ((rb.xla_erf_inv_p, rb.erf_inv_f32), (rb.xla_log1p_p, rb.log1p_f32)):
        with np.errstate(all="ignore"):
            got = prim.impl(x)
            want = np.array([kernel(np.float32(v)) for v in x[::13]], np.float32)
        assert got[::13].tobytes() == want.tobytes(), prim


def test_threefry_partitionable_context_manager_switches_the_bits_and_restores():
    # JAX 0.10.2: uniform(PRNGKey(0), (3,)) under each layout (recorded with JAX).
    f = spmd.jit(lambda k: random.uniform(k, (3,)))
    k = random.PRNGKey(0)
    on = [0.947667, 0.9785799, 0.33229148]
    off = [0.9653214, 0.31468165, 0.63302994]
    assert spmd.threefry_partitionable.value is True
    np.testing.assert_allclose(f(k), on, rtol=1e-6)
    with spmd.threefry_partitionable(False):
        assert spmd.config.jax_threefry_partitionable is False
        np.testing.assert_allclose(f(k), off, rtol=1e-6)
        with spmd.threefry_partitionable(True):
            np.testing.assert_allclose(f(k), on, rtol=1e-6)
    np.testing.assert_allclose(f(k), on, rtol=1e-6)
    with pytest.raises(RuntimeError), spmd.threefry_partitionable(False):
        raise RuntimeError("restored on the way out")
    assert spmd.threefry_partitionable.value is True
