"""``spmd.profiler``: a host trace of what a program ran, written as a Chrome trace.

Between ``start_trace(log_dir)`` and ``stop_trace()`` (or inside ``with trace(log_dir):``)
every jitted call that executes records a span named ``jit(<function>)``, and every
``TraceAnnotation``/``StepTraceAnnotation`` block (or ``annotate_function`` call) a span with
its name and keyword arguments. ``stop_trace`` writes them, gzipped, to
``<log_dir>/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/<host>.trace.json.gz``: JSON trace events
(``ph: "X"``) that Perfetto (ui.perfetto.dev) and chrome://tracing open. JAX writes XLA's
XSpace protobuf there instead, with device activity spmd does not have.

Outside a trace the annotations cost a flag check, and jit one attribute read per call.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

# Read by jit on every call: keep it a plain module attribute.
recording = False

_events: list[dict] = []
_log_dir: str | None = None
_perfetto = False
_lock = threading.Lock()
_t0 = 0.0


def _now_us() -> float:
    return (time.perf_counter() - _t0) * 1e6


def _record(name: str, start: float, end: float, args: dict | None) -> None:
    event = {
        "name": name,
        "ph": "X",
        "ts": start,
        "dur": max(end - start, 0.0),
        "pid": os.getpid(),
        "tid": threading.get_ident(),
    }
    if args:
        event["args"] = {k: v if isinstance(v, (int, float, bool)) else str(v)
                         for k, v in args.items()}  # fmt: skip
    with _lock:
        _events.append(event)


def start_trace(
    log_dir: os.PathLike | str,
    create_perfetto_link: bool = False,
    create_perfetto_trace: bool = False,
    profiler_options: Any = None,
) -> None:
    """Start recording spans; ``stop_trace`` writes them under ``log_dir``.

    ``create_perfetto_trace`` also writes ``perfetto_trace.json.gz`` beside the trace (the same
    events); ``create_perfetto_link`` is refused (spmd serves no trace)."""
    global recording, _log_dir, _perfetto, _t0
    if recording:
        raise RuntimeError(
            "Profile has already been started. Only one profile may be run at a time."
        )
    if create_perfetto_link:
        raise NotImplementedError(
            "start_trace: create_perfetto_link is not implemented in spmd (it serves no trace); "
            "open the written trace.json.gz in ui.perfetto.dev"
        )
    _log_dir, _perfetto = os.fspath(log_dir), bool(create_perfetto_trace)
    _events.clear()
    _t0 = time.perf_counter()
    recording = True


def stop_trace() -> str:
    """Stop recording and write the trace; returns the path of the file written."""
    global recording
    if not recording:
        raise RuntimeError("No profile started")
    recording = False
    with _lock:
        events = list(_events)
        _events.clear()
    run = time.strftime("%Y_%m_%d_%H_%M_%S")
    out_dir = os.path.join(_log_dir, "plugins", "profile", run)
    os.makedirs(out_dir, exist_ok=True)
    data = json.dumps({"displayTimeUnit": "ms", "traceEvents": events}).encode()
    path = os.path.join(out_dir, f"{socket.gethostname()}.trace.json.gz")
    with gzip.open(path, "wb") as f:
        f.write(data)
    if _perfetto:
        with gzip.open(os.path.join(out_dir, "perfetto_trace.json.gz"), "wb") as f:
            f.write(data)
    return path


@contextlib.contextmanager
def trace(
    log_dir: os.PathLike | str,
    create_perfetto_link: bool = False,
    create_perfetto_trace: bool = False,
    profiler_options: Any = None,
) -> Iterator[None]:
    """Record the block's spans and write them under ``log_dir`` (see ``start_trace``)."""
    start_trace(log_dir, create_perfetto_link, create_perfetto_trace, profiler_options)
    try:
        yield
    finally:
        stop_trace()


class TraceAnnotation:
    """A named span (with keyword arguments as its args) while a trace records.

    >>> with profiler.TraceAnnotation("load batch", size=128):
    ...     batch = next(it)
    """

    __slots__ = ("name", "kwargs", "_start")

    def __init__(self, name: str, **kwargs: Any) -> None:
        self.name, self.kwargs, self._start = name, kwargs, None

    def __enter__(self) -> TraceAnnotation:
        self._start = _now_us() if recording else None
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._start is not None and recording:
            _record(self.name, self._start, _now_us(), self.kwargs)


class StepTraceAnnotation(TraceAnnotation):
    """A ``TraceAnnotation`` for one training step: ``StepTraceAnnotation("train",
    step_num=i)``."""

    __slots__ = ()

    def __init__(self, name: str, **kwargs: Any) -> None:
        super().__init__(name, **kwargs)


def annotate_function(func: Callable, name: str | None = None, **decorator_kwargs: Any):
    """``func`` with each call recorded as a span named ``name`` (default: its qualified
    name)."""
    label = name or getattr(func, "__qualname__", getattr(func, "__name__", "function"))

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with TraceAnnotation(label, **decorator_kwargs):
            return func(*args, **kwargs)

    return wrapper


def record_jit_call(jitted: Any, args: tuple, kwargs: dict) -> Any:
    """Run one jitted call as a span (jit calls this while ``recording``). Results are
    computed when the call returns (spmd does not dispatch asynchronously)."""
    global recording
    start = _now_us()
    recording = False  # one span per outer call: the call's own jit calls are not separate
    try:
        out = jitted(*args, **kwargs)
    finally:
        recording = True
    _record(f"jit({jitted.__name__})", start, _now_us(), None)
    return out


class ProfileOptions:
    """Options of ``start_trace`` (accepted; spmd's host trace has no levels to set)."""

    def __init__(self) -> None:
        self.host_tracer_level = 2
        self.python_tracer_level = 0
        self.enable_hlo_proto = True
        self.start_timestamp_ns = 0
        self.duration_ms = 0
        self.repository_path = ""
        self.raise_error_on_start_failure = False
        self.advanced_configuration: dict = {}


def _no_device_profiles(what: str) -> Callable:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f"profiler.{what} is not implemented in spmd: it has no device memory or profiler "
            "server (use start_trace/stop_trace, or spmd.live_arrays() for what is allocated)"
        )

    refuse.__name__ = what
    return refuse


start_server = _no_device_profiles("start_server")
stop_server = _no_device_profiles("stop_server")
device_memory_profile = _no_device_profiles("device_memory_profile")
save_device_memory_profile = _no_device_profiles("save_device_memory_profile")

__all__ = [
    "ProfileOptions",
    "StepTraceAnnotation",
    "TraceAnnotation",
    "annotate_function",
    "device_memory_profile",
    "save_device_memory_profile",
    "start_server",
    "start_trace",
    "stop_server",
    "stop_trace",
    "trace",
]
