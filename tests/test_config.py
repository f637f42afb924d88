"""spmd.config: JAX's option names, attribute reads, validation and environment variables."""

import os
import subprocess
import sys

import numpy as np
import pytest

import spmd


def test_read_and_update_roundtrip():
    assert spmd.config.jax_enable_x64 is False
    spmd.config.update("jax_enable_x64", True)
    try:
        assert spmd.config.jax_enable_x64 is True
        assert spmd.config.read("jax_enable_x64") is True
    finally:
        spmd.config.update("jax_enable_x64", False)


def test_unknown_option_raises():
    with pytest.raises(AttributeError, match="Unrecognized config option: jax_nope"):
        spmd.config.update("jax_nope", 1)
    with pytest.raises(AttributeError, match="jax_nope"):
        spmd.config.jax_nope  # noqa: B018


def test_invalid_value_raises():
    with pytest.raises(ValueError, match="jax_numpy_rank_promotion"):
        spmd.config.update("jax_numpy_rank_promotion", "sometimes")


def test_attribute_assignment_is_refused():
    with pytest.raises(AttributeError, match="config.update"):
        spmd.config.jax_enable_x64 = True


def test_x64_switches_default_dtypes_and_jit_retraces():
    f = spmd.jit(lambda x: x * 2)
    x = np.arange(3)
    assert f(x).dtype == np.int32
    spmd.config.update("jax_enable_x64", True)
    try:
        assert f(x).dtype == np.int64
        assert spmd.numpy.add(1.0, np.float64(1)).dtype == np.float64
    finally:
        spmd.config.update("jax_enable_x64", False)
    assert f(x).dtype == np.int32


def test_environment_variable_is_read_at_import():
    env = dict(os.environ, JAX_ENABLE_X64="1")
    out = subprocess.run(
        [sys.executable, "-c", "import spmd; print(spmd.config.jax_enable_x64)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "True"


def test_rank_promotion_raise():
    spmd.config.update("jax_numpy_rank_promotion", "raise")
    try:
        with pytest.raises(ValueError, match="rank"):
            spmd.numpy.add(np.ones((2, 3), np.float32), np.ones(3, np.float32))
    finally:
        spmd.config.update("jax_numpy_rank_promotion", "allow")


def test_disable_jit_runs_the_python_body_eagerly_inside_the_block_only():
    calls = []

    @spmd.jit
    def f(x):
        calls.append(type(x).__name__)
        return x * 2

    f(np.float32(1.0))
    f(np.float32(2.0))
    assert len(calls) == 1  # traced once, then cached
    with spmd.disable_jit():
        assert float(f(np.float32(3.0))) == 6.0
        f(np.float32(4.0))
        # Eager: the body runs on every call, on the arguments as given (as in JAX).
        assert calls[1:] == ["float32", "float32"]
        with spmd.disable_jit(False):
            f(np.float32(4.0))  # jit again: cached, the body does not run
    f(np.float32(5.0))
    assert len(calls) == 3
    assert not spmd.config.jax_disable_jit
