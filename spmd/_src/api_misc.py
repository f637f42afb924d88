"""Small top-level utilities of JAX's API: ``named_call``, ``named_scope``,
``ensure_compile_time_eval``, ``default_matmul_precision``, ``clear_caches``, ``live_arrays``,
``effects_barrier``.

Names (``named_call``, ``named_scope``) only label XLA operations in JAX; jaxprs print without
them there, and here they change nothing. ``default_matmul_precision`` is accepted and checked:
NumPy computes in the operands' precision, which on CPU is what every setting gives for float32.

>>> with spmd.named_scope("layer1"):
...     y = jnp.sin(1.0)
"""

from __future__ import annotations

import contextlib
import functools
import gc
from collections.abc import Callable, Iterator
from typing import Any

from spmd._src import core
from spmd._src.config import MATMUL_PRECISIONS, config

# ---------------------------------------------------------------------------------------------
# Names


def named_call(fun: Callable, *, name: str | None = None) -> Callable:
    """``fun`` with a name for its operations (a no-op here; JAX's jaxprs do not show it, and
    the function keeps its own ``__name__``, which a ``jit`` of it prints, as in JAX)."""

    @functools.wraps(fun)
    def named(*args: Any, **kwargs: Any) -> Any:
        return fun(*args, **kwargs)

    return named


@contextlib.contextmanager
def named_scope(name: str) -> Iterator[None]:
    """A name for the operations traced inside the block (a no-op here, as for values in JAX)."""
    if not isinstance(name, str):
        raise TypeError("named_scope name argument must be a string.")
    yield


# ---------------------------------------------------------------------------------------------
# ensure_compile_time_eval


class _CompileTimeEvalTrace(core.Trace):
    """Runs primitives on concrete operands at once (eagerly, even inside jit) and hands those
    with a traced operand to the trace that was current (``inner``)."""

    __slots__ = ("inner",)

    def __init__(self, inner: core.Trace) -> None:
        self.inner = inner

    def process_primitive(self, prim, args, params):
        if any(isinstance(x, core.Tracer) for x in args):
            with core.set_current_trace(self.inner):
                return self.inner.process_primitive(prim, args, params)
        with core.set_current_trace(core.eval_trace):
            return prim.bind(*args, **params)

    def describe_tracer(self, tracer: core.Tracer) -> str:
        return self.inner.describe_tracer(tracer)


@contextlib.contextmanager
def ensure_compile_time_eval() -> Iterator[None]:
    """Inside the block, operations on concrete values compute concrete values, even under jit
    (so ``int()``, ``bool()`` and Python control flow work on them); operations on traced values
    are traced as usual.

    >>> @spmd.jit
    ... def f(x):
    ...     with spmd.ensure_compile_time_eval():
    ...         n = int(jnp.arange(3).sum())  # concrete: 3
    ...     return x * n
    """
    with core.set_current_trace(_CompileTimeEvalTrace(core.trace_ctx.trace)):
        yield


# ---------------------------------------------------------------------------------------------
# default_matmul_precision


@contextlib.contextmanager
def default_matmul_precision(value: str | None) -> Iterator[None]:
    """Set ``jax_default_matmul_precision`` inside the block (checked as JAX checks it)."""
    if value is not None and not (isinstance(value, str) and value in MATMUL_PRECISIONS):
        raise ValueError(
            f"new enum value must be None or in {MATMUL_PRECISIONS}, got {value} of type "
            f"{type(value)}."
        )
    before = config.jax_default_matmul_precision
    config.update("jax_default_matmul_precision", value)
    try:
        yield
    finally:
        config.update("jax_default_matmul_precision", before)


# ---------------------------------------------------------------------------------------------
# Caches and live arrays


def clear_caches() -> None:
    """Forget every traced and compiled program: jitted functions trace again when next
    called."""
    from spmd._src import api, dispatch, lowering
    from spmd._src.api import JitWrapped

    api._TRACES.clear()

    # Jitted functions keep their caches themselves; they are found among live objects
    # (clearing is rare, and a registry would cost every jit a weak reference).
    for obj in gc.get_objects():
        if isinstance(obj, JitWrapped):
            obj.clear_cache()
    dispatch._aval_cache.clear()
    dispatch._compiled_cache.clear()
    dispatch._transposed_cache.clear()
    dispatch._jit_splits.clear()
    lowering._cache.clear()


def effects_barrier() -> None:
    """Wait until the side effects (callbacks) of running programs are done: programs run to
    completion when called here, so there is nothing to wait for."""


def live_arrays() -> list[Any]:
    """The Arrays that are alive (referenced) now."""
    from spmd._src.array import Array

    return [obj for obj in gc.get_objects() if type(obj) is Array]


__all__ = [
    "clear_caches",
    "default_matmul_precision",
    "effects_barrier",
    "ensure_compile_time_eval",
    "live_arrays",
    "named_call",
    "named_scope",
]


# ---------------------------------------------------------------------------------------------
# print_environment_info


def print_environment_info(return_string: bool = False) -> str | None:
    """Print (or return) the versions of spmd, NumPy and Python, the devices, the process
    topology, the platform, and the ``JAX_*``/``SPMD_*``/``XLA_FLAGS`` environment variables:
    what a bug report needs."""
    import os
    import platform
    import sys
    import textwrap

    import numpy as np

    from spmd._src import devices
    from spmd.version import __version__  # lazy: the version lives in the public package

    env = "\n".join(
        f"{k}={v}"
        for k, v in sorted(os.environ.items())
        if k.startswith(("JAX_", "SPMD_")) or k == "XLA_FLAGS"
    )
    info = textwrap.dedent(
        f"""\
        spmd:   {__version__}
        numpy:  {np.__version__}
        python: {sys.version.replace(chr(10), " ")}
        device info: cpu-{devices.device_count()}, {devices.local_device_count()} local devices
        process_count: {devices.process_count()}
        platform: {platform.uname()}
        """
    )
    if env:
        info += env + "\n"
    if return_string:
        return info
    print(info, end="")
    return None
