"""Large reductions split across threads (spmd/_src/lax/threads.py): the values do not depend
on the number of threads, pieces of a kept axis are exactly the unsplit values, and blocks of a
reduced axis agree with NumPy to rounding."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd._src.lax import threads


@pytest.fixture
def small_split(monkeypatch):
    """Split every reduction, however small, so that the tests stay fast."""
    monkeypatch.setattr(threads, "_MIN_BYTES", 0)
    yield
    spmd.config.update("spmd_cpu_threads", 0)


def _with_threads(n, fn, *args):
    spmd.config.update("spmd_cpu_threads", n)
    return np.asarray(fn(*args))


REDUCTIONS = {
    "sum": (lambda x, a: jnp.sum(x, axis=a), np.sum),
    "prod": (lambda x, a: jnp.prod(x, axis=a), np.prod),
    "max": (lambda x, a: jnp.max(x, axis=a), np.max),
    "min": (lambda x, a: jnp.min(x, axis=a), np.min),
}


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("axes", [(0,), (1,), (0, 1), (2,), (1, 2), None])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_values_do_not_depend_on_threads(small_split, name, axes, dtype):
    ours, ref = REDUCTIONS[name]
    rng = np.random.default_rng(0)
    x = rng.uniform(0.5, 1.5, (37, 5, 6)) if name == "prod" else rng.normal(size=(37, 5, 6)) * 9
    x = jnp.asarray(x.astype(dtype))
    f = spmd.jit(lambda x: ours(x, axes))
    results = [_with_threads(n, f, x) for n in (1, 2, 3, 8)]
    for r in results[1:]:
        assert r.dtype == results[0].dtype and r.tobytes() == results[0].tobytes()
    want = ref(np.asarray(x), axis=axes).astype(dtype)
    if name in ("max", "min") or dtype == np.int32 or (axes is not None and 0 not in axes):
        # Exact: order-free reductions, integers (wrapping), and slices of a kept axis.
        if name == "prod" and dtype == np.int32:
            return  # int products of uniform(0.5, 1.5) truncate to 0/1: compared above
        np.testing.assert_array_equal(results[0], want)
    else:
        np.testing.assert_allclose(results[0], want, rtol=1e-5, atol=1e-4)


def test_kept_axis_pieces_are_exactly_unsplit(small_split, monkeypatch):
    x = np.random.default_rng(1).normal(size=(64, 300)).astype(np.float32)
    want = np.sum(x, axis=1, dtype=np.float32)
    got = _with_threads(2, spmd.jit(lambda x: jnp.sum(x, axis=1)), jnp.asarray(x))
    assert got.tobytes() == want.tobytes()


def test_nan_propagates_through_blocks(small_split):
    x = np.arange(64 * 3, dtype=np.float32).reshape(64, 3)
    x[50, 1] = np.nan
    for n in (1, 2):
        got = _with_threads(n, lambda v: jnp.max(v, axis=0), jnp.asarray(x))
        assert np.isnan(got[1]) and got[0] == x[:, 0].max() and got[2] == x[:, 2].max()


def test_worker_threads_keep_warnings_off(small_split):
    # An overflowing float32 sum is inf without a RuntimeWarning, on every thread.
    x = jnp.full((64, 4), 3e38, jnp.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _with_threads(2, lambda v: jnp.sum(v, axis=0), x)
    assert np.isinf(got).all()


def test_large_reduction_splits_by_default():
    # Above the size limit the blocks apply with the default settings too (one thread or
    # many): the result equals the block-wise sum combined in order.
    x = np.random.default_rng(2).normal(size=(8 * 1024, 520)).astype(np.float32)
    assert x.nbytes >= threads._MIN_BYTES
    got = np.asarray(jnp.sum(jnp.asarray(x), axis=0))
    blocks = np.array_split(x, threads._BLOCKS, axis=0)
    want = np.sum(blocks[0], axis=0, dtype=np.float32)
    for b in blocks[1:]:
        want = want + np.sum(b, axis=0, dtype=np.float32)
    assert got.tobytes() == want.tobytes()


def test_config_validates_thread_count():
    with pytest.raises(ValueError):
        spmd.config.update("spmd_cpu_threads", -1)


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_forked_child_makes_its_own_threads(small_split):
    import os

    x = jnp.asarray(np.arange(64.0 * 4, dtype=np.float32).reshape(64, 4))
    spmd.config.update("spmd_cpu_threads", 2)
    want = np.asarray(jnp.sum(x, axis=0))  # the parent's pool exists now
    pid = os.fork()
    if pid == 0:  # the child: a reduction must not wait on the parent's (absent) threads
        ok = np.array_equal(np.asarray(jnp.sum(x, axis=0)), want)
        os._exit(0 if ok else 1)
    # A child stuck on the parent's threads would hang: wait for it 30 s at most.
    import signal
    import time

    deadline = time.monotonic() + 30
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            pytest.fail("the forked child's reduction hung")
        time.sleep(0.01)
    assert os.WEXITSTATUS(status) == 0
