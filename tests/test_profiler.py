"""spmd.profiler: spans of jitted calls and annotations, written as a gzipped Chrome trace
where JAX writes its profile (``<log_dir>/plugins/profile/<run>/``)."""

from __future__ import annotations

import glob
import gzip
import json
import os

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import profiler


def _events(log_dir) -> list[dict]:
    (path,) = glob.glob(os.path.join(log_dir, "plugins", "profile", "*", "*.trace.json.gz"))
    return json.loads(gzip.open(path).read())["traceEvents"]


def test_trace_records_jit_calls_and_annotations(tmp_path):
    f = spmd.jit(lambda x: jnp.sin(x) * 2)

    @profiler.annotate_function
    def step(x):
        return f(x) + f(x)  # two jitted calls

    x = np.ones(100, np.float32)
    with profiler.trace(tmp_path):
        for i in range(2):
            with profiler.StepTraceAnnotation("train", step_num=i):
                step(x)
        with profiler.TraceAnnotation("eval", split="test"):
            spmd.jit(lambda x: x.sum())(x)
    events = _events(tmp_path)
    names = [e["name"] for e in events]
    assert names.count("jit(<lambda>)") == 5
    assert names.count("train") == 2 and names.count("eval") == 1
    assert any(n.endswith("step") for n in names)
    assert [e["args"] for e in events if e["name"] == "train"] == [{"step_num": 0}, {"step_num": 1}]
    assert next(e for e in events if e["name"] == "eval")["args"] == {"split": "test"}
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in events)
    # Spans nest: each train step contains the jitted calls made inside it.
    train = next(e for e in events if e["name"] == "train")
    end = train["ts"] + train["dur"]
    jits = [e for e in events if e["name"] == "jit(<lambda>)"]
    assert sum(train["ts"] <= e["ts"] and e["ts"] + e["dur"] <= end for e in jits) == 2


def test_nothing_is_recorded_outside_a_trace(tmp_path):
    with profiler.TraceAnnotation("outside"):
        spmd.jit(lambda x: x + 1)(1.0)
    profiler.start_trace(tmp_path)
    spmd.jit(lambda x: x * 3)(2.0)
    path = profiler.stop_trace()
    assert path.endswith(".trace.json.gz")
    assert [e["name"] for e in _events(tmp_path)] == ["jit(<lambda>)"]


def test_traced_calls_are_not_spans(tmp_path):
    # Inside an outer jit's trace, an inner jitted function is traced, not executed.
    inner = spmd.jit(lambda x: x * 2)
    outer = spmd.jit(lambda x: inner(x) + 1)
    with profiler.trace(tmp_path, create_perfetto_trace=True):
        outer(1.0)
    assert [e["name"] for e in _events(tmp_path)] == ["jit(<lambda>)"]
    assert glob.glob(os.path.join(tmp_path, "plugins", "profile", "*", "perfetto_trace.json.gz"))


def test_start_and_stop_errors(tmp_path):
    with pytest.raises(RuntimeError, match="No profile started"):
        profiler.stop_trace()
    profiler.start_trace(tmp_path)
    try:
        with pytest.raises(RuntimeError, match="already been started"):
            profiler.start_trace(tmp_path)
    finally:
        profiler.stop_trace()
    with pytest.raises(NotImplementedError, match="create_perfetto_link"):
        profiler.start_trace(tmp_path, create_perfetto_link=True)


@pytest.mark.parametrize(
    "fn", ["start_server", "stop_server", "device_memory_profile", "save_device_memory_profile"]
)
def test_device_profiles_and_server_are_refused(fn):
    with pytest.raises(NotImplementedError, match=f"profiler.{fn} is not implemented"):
        getattr(profiler, fn)(9999) if fn != "stop_server" else profiler.stop_server()
