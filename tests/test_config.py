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


# ---------------------------------------------------------------------------------------------
# JAX's other options: the ones that act, the ones refused away from their default, and the
# ones accepted without effect


def test_log_compiles_logs_each_trace_once(caplog):
    f = spmd.jit(lambda x: x + 1)
    with caplog.at_level("WARNING", logger="spmd"), spmd.log_compiles(True):
        f(1.0)
        f(2.0)  # cached: no line
        f(np.int32(1))
    lines = [r.getMessage() for r in caplog.records if r.name == "spmd"]
    assert lines == [
        "Compiling jit(<lambda>) with global shapes and types (f32[]{weak_type=True}).",
        "Compiling jit(<lambda>) with global shapes and types (i32[]).",
    ]
    assert spmd.config.jax_log_compiles is False  # restored


def test_explain_cache_misses_names_the_argument_that_changed(caplog):
    def mul(x, y):
        return x * y

    g = spmd.jit(mul)
    with caplog.at_level("WARNING", logger="spmd"), spmd.explain_cache_misses(True):
        g(1.0, 2.0)
        g(1.0, 2)
        g(np.ones(3, np.float32), 2)
        g(1.0, y=2.0)  # a keyword: another pytree of arguments
    msgs = [r.getMessage() for r in caplog.records if r.name == "spmd"]
    assert len(msgs) == 4
    assert all(m.startswith("TRACING CACHE MISS for jit(mul) defined at ") for m in msgs)
    assert msgs[0].endswith("never seen function")
    assert msgs[1].endswith("* at y, now i32[]{weak_type=True} and before f32[]{weak_type=True}")
    # The closest cached call is the one whose y was an int too.
    assert msgs[2].endswith("* at x, now f32[3] and before f32[]{weak_type=True}")
    assert "different input pytree structure" in msgs[3]


def test_explain_cache_misses_with_equal_types_blames_the_static_context(caplog):
    h = spmd.jit(lambda x, n: x * n, static_argnums=1)
    with caplog.at_level("WARNING", logger="spmd"), spmd.explain_cache_misses(True):
        h(1.0, 2)
        h(1.0, 3)
    assert "static arguments" in caplog.records[-1].getMessage()


def test_no_tracing_refuses_a_new_trace_but_runs_cached_ones():
    f = spmd.jit(lambda x: x * 2)
    f(1.0)
    with spmd.no_tracing(True):
        assert float(f(3.0)) == 6.0
        with pytest.raises(RuntimeError, match=r"tracing .* \(f32\[2\]\) is disallowed"):
            f(np.ones(2, np.float32))
    f(np.ones(2, np.float32))  # allowed again


def test_random_seed_offset_shifts_every_seed_and_retraces_jit():
    key_of = spmd.jit(lambda s: spmd.random.key_data(spmd.random.PRNGKey(s)))
    before = np.asarray(key_of(3))
    want = np.asarray(spmd.random.PRNGKey(8))
    spmd.config.update("jax_random_seed_offset", 5)
    try:
        for got in (spmd.random.PRNGKey(3), spmd.random.key_data(spmd.random.key(3)), key_of(3)):
            np.testing.assert_array_equal(np.asarray(got), want)
        # The offset is added in the seed's dtype (uint32 wraps), as in JAX's jaxpr.
        assert "add a 5" in str(spmd.make_jaxpr(spmd.random.PRNGKey)(np.int32(3)))
    finally:
        spmd.config.update("jax_random_seed_offset", 0)
    np.testing.assert_array_equal(np.asarray(key_of(3)), before)


def test_high_dynamic_range_gumbel_sets_the_default_mode():
    k = spmd.random.key(0)
    spmd.config.update("jax_high_dynamic_range_gumbel", True)
    try:
        got = np.asarray(spmd.random.gumbel(k, (5,)))
    finally:
        spmd.config.update("jax_high_dynamic_range_gumbel", False)
    np.testing.assert_array_equal(got, np.asarray(spmd.random.gumbel(k, (5,), mode="high")))
    assert not np.array_equal(got, np.asarray(spmd.random.gumbel(k, (5,))))


def test_logging_level_sets_the_spmd_logger():
    import logging

    spmd.config.update("jax_logging_level", "error")
    try:
        assert logging.getLogger("spmd").level == logging.ERROR
    finally:
        spmd.config.update("jax_logging_level", "NOTSET")
    assert logging.getLogger("spmd").level == logging.NOTSET


@pytest.mark.parametrize(
    "name,value",
    [
        ("jax_debug_key_reuse", True),
        ("jax_enable_custom_prng", True),
        ("jax_no_execution", True),
        ("jax_transfer_guard", "disallow"),
        ("jax_transfer_guard_host_to_device", "log"),
    ],
)
def test_unimplemented_options_are_refused_away_from_their_default(name, value):
    default = spmd.config.read(name)
    with pytest.raises(NotImplementedError, match=f"config.update.*{name}.*does not implement"):
        spmd.config.update(name, value)
    assert spmd.config.read(name) == default
    spmd.config.update(name, default)  # the default itself is fine


def test_context_managers_of_refused_options():
    with spmd.checking_leaks():  # (implemented: tests/test_leak_check.py)
        assert spmd.config.jax_check_tracer_leaks
    with pytest.raises(NotImplementedError, match="transfer guards"):
        with spmd.transfer_guard("disallow"):
            pass
    with spmd.transfer_guard("allow"), spmd.check_tracer_leaks(False):
        assert spmd.config.jax_transfer_guard_device_to_host == "allow"
    assert spmd.config.jax_transfer_guard_device_to_host is None


@pytest.mark.parametrize(
    "name,value",
    [
        ("jax_compilation_cache_dir", "/tmp/cache"),
        ("jax_persistent_cache_min_compile_time_secs", 0),
        ("jax_traceback_filtering", "off"),
        ("jax_softmax_custom_jvp", True),
        ("jax_remat3", True),
        ("jax_cpu_collectives_implementation", "mpi"),
        ("jax_platform_name", "cpu"),
    ],
)
def test_options_without_counterpart_are_kept(name, value):
    default = spmd.config.read(name)
    spmd.config.update(name, value)
    try:
        assert spmd.config.read(name) == value
        assert float(spmd.jit(lambda x: x + 1)(1.0)) == 2.0
    finally:
        spmd.config.update(name, default)


def test_platform_and_prng_impl_other_than_spmds_are_invalid():
    with pytest.raises(ValueError, match="CPU devices only"):
        spmd.config.update("jax_platform_name", "gpu")
    # JAX's philox and threefry4x32 implementations are not spmd's.
    with pytest.raises(ValueError, match="'threefry2x32' .*, 'rbg' or 'unsafe_rbg'"):
        spmd.config.update("jax_default_prng_impl", "philox4x32")
