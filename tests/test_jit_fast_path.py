"""jit's fast call path: NumPy arrays and Python scalars as arguments, argument shardings, and
the constant-1 cache of logistic's kernel. Every fast-path result is compared with the slow path
(keyword arguments always take it)."""

import pickle

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd._src.lax.elementwise.transcendental import _logistic_impl
from spmd.sharding import AxisType, NamedSharding
from spmd.sharding import PartitionSpec as P


def _layer(x, w, b):
    return spmd.nn.sigmoid(jnp.dot(x, w) + b)


def _inputs():
    rng = np.random.default_rng(0)
    return rng.normal(size=(8,)), rng.normal(size=(8, 3)), rng.normal(size=(3,))


def test_numpy_arguments_take_the_fast_path_and_match_the_slow_path():
    f = spmd.jit(_layer)
    x, w, b = _inputs()
    first = f(x, w, b)
    assert len(f._fast) == 1  # the miss stored a fast entry for float64 NumPy arguments
    again = f(x, w, b)  # a hit
    slow = f(x, w, b=b)  # keyword arguments: the slow path
    assert again.dtype == slow.dtype == np.float32
    np.testing.assert_array_equal(np.asarray(again), np.asarray(slow))
    np.testing.assert_array_equal(np.asarray(first), np.asarray(slow))


def test_numpy_arguments_of_canonical_dtype_are_passed_as_they_are():
    f = spmd.jit(lambda x: x + 1)
    x32 = np.arange(4, dtype=np.float32)
    x64 = np.arange(4, dtype=np.float64)
    f(x32), f(x64)
    assert len(f._fast) == 2  # one per NumPy dtype, both on the one traced program
    assert f._cache_size() == 1
    for x in (x32, x64):
        out = f(x)
        assert out.dtype == np.float32 and not out.weak_type
        np.testing.assert_array_equal(np.asarray(out), [1, 2, 3, 4])


def test_numpy_and_array_arguments_key_differently():
    f = spmd.jit(lambda x: x * 2)
    x = np.arange(3, dtype=np.int32)
    f(x), f(jnp.asarray(x))
    assert len(f._fast) == 2
    np.testing.assert_array_equal(np.asarray(f(x)), np.asarray(f(jnp.asarray(x))))


def test_python_scalars_take_the_fast_path_and_keep_weak_types():
    f = spmd.jit(lambda x, y: x * y)
    a = jnp.arange(3, dtype=jnp.float32)
    f(a, 2), f(a, 2.5), f(a, True)
    assert len(f._fast) == 3  # int, float and bool are different programs
    assert f(a, 3).dtype == np.float32
    np.testing.assert_array_equal(np.asarray(f(a, 3)), [0, 3, 6])
    np.testing.assert_array_equal(np.asarray(f(a, 0.5)), [0, 0.5, 1])
    out = f(2, 3)  # two weak ints: a weak int32 result
    assert out.dtype == np.int32 and out.weak_type and int(out) == 6


def test_x64_is_part_of_the_fast_key():
    f = spmd.jit(lambda x: x * 2)
    x = np.arange(3, dtype=np.float64)
    assert f(x).dtype == np.float32
    old = spmd.config.jax_enable_x64
    spmd.config.update("jax_enable_x64", True)
    try:
        assert f(x).dtype == np.float64
    finally:
        spmd.config.update("jax_enable_x64", old)
    assert f(x).dtype == np.float32


def test_sharded_single_result_keeps_its_sharding_on_a_hit():
    mesh = spmd.make_mesh((8,), ("x",), axis_types=(AxisType.Auto,))
    s = NamedSharding(mesh, P("x"))
    f = spmd.jit(lambda x: 2 * x)
    x = spmd.device_put(np.arange(8, dtype=np.float32), s)
    for _ in range(2):  # the miss, then a fast-path hit
        out = f(x)
        assert out.sharding == s and out.committed
        np.testing.assert_array_equal(np.asarray(out), 2 * np.arange(8))
    plain = f(jnp.arange(8, dtype=jnp.float32))  # no argument sharding: none on the result
    assert not plain.committed


def test_named_sharding_hash_is_cached_and_not_pickled():
    mesh = spmd.make_mesh((8,), ("x",), axis_types=(AxisType.Auto,))
    s = NamedSharding(mesh, P("x"))
    h = hash(s)
    assert s.__dict__["_hash"] == h  # computed once
    assert hash(s) == h == hash(NamedSharding(mesh, P("x", None)))
    assert "_hash" not in s.__getstate__()
    back = pickle.loads(pickle.dumps(s))
    assert back == s and hash(back) == h


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64])
def test_logistic_kernel_keeps_dtype_and_values(dtype):
    x = (np.random.default_rng(1).normal(size=(5,)) * 40).astype(dtype)
    with np.errstate(all="ignore"):
        want = 1 / (1 + np.exp(-x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)))
        out = _logistic_impl(x)
    assert out.dtype == dtype and out.shape == (5,)
    np.testing.assert_allclose(out, want.astype(dtype), rtol=1e-2 if dtype == np.float16 else 1e-5)
    assert _logistic_impl(x[0]).dtype == dtype  # NumPy scalars too
