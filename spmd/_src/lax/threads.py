"""Intra-op threads: a large reduction split across this process's CPU cores.

A reduction over a large array is bound by memory bandwidth, which one core cannot use alone
(XLA's CPU runtime splits such loops across its thread pool too). NumPy releases the GIL in its
loops, so pieces of the operand can be reduced on threads of their own. Each thread streams a
contiguous piece (pieces cut along the outermost axis: threads reading interleaved columns of the
same rows gain almost nothing). Two cases:

- the outermost axis is kept: each piece gives its own slice of the result, computed exactly as
  without threads;
- the outermost axis is reduced: the operand is cut into ``_BLOCKS`` blocks along it, each
  reduced on its own, and the block results are combined in block order. The blocks depend on
  the shape only, never on the number of threads, so the values are the same with any number
  of threads (one included), bit for bit.

``spmd.config.update('spmd_cpu_threads', n)`` sets the number of threads (1: none); the default
is the number of CPUs this process may run on.
"""

from __future__ import annotations

import contextvars
import functools
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from spmd._src.config import config

# Operands smaller than this are reduced in one piece: threads would cost more than they save.
_MIN_BYTES = 1 << 24
# Blocks of a large reduction over the outermost axis (a constant: the values may not depend
# on the number of threads).
_BLOCKS = 8

_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_pool_pid = 0  # a forked child has the pool object but none of its threads: it makes its own


def cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _threads() -> int:
    n = config.spmd_cpu_threads
    return cpu_count() if n == 0 else n


def _run_split(fn: Callable, count: int) -> list:
    """``[fn(0), ..., fn(count - 1)]``, contiguous runs of indices on this thread and on up
    to ``spmd_cpu_threads - 1`` pool threads (in the caller's context: NumPy's error state)."""
    n = min(_threads(), count)
    if n < 2:
        return [fn(i) for i in range(count)]
    global _pool, _pool_size, _pool_pid
    if _pool_pid != os.getpid():
        _pool, _pool_size, _pool_pid = None, 0, os.getpid()
    if _pool_size < n - 1:
        if _pool is not None:
            _pool.shutdown(wait=False)  # its idle threads exit; the larger pool replaces it
        _pool = ThreadPoolExecutor(max_workers=n - 1, thread_name_prefix="spmd-cpu")
        _pool_size = n - 1
    bounds = [count * t // n for t in range(n + 1)]

    def run(t: int) -> list:
        return [fn(i) for i in range(bounds[t], bounds[t + 1])]

    ctx = contextvars.copy_context()
    futures = [_pool.submit(ctx.copy().run, run, t) for t in range(1, n)]
    out = run(0)
    for f in futures:
        out += f.result()
    return out


def split_reduction(combine: np.ufunc) -> Callable:
    """Decorate a reduction ``impl(x, *, axes, **params)`` whose block results ``combine``
    joins (``np.add`` for a sum, ``np.maximum`` for a max, ...)."""

    def wrap(impl: Callable) -> Callable:
        @functools.wraps(impl)
        def run(x, *, axes, **params):
            if getattr(x, "nbytes", 0) < _MIN_BYTES or x.shape[0] < 2:
                return impl(x, axes=axes, **params)
            size = x.shape[0]
            if 0 not in axes:
                n = min(_threads(), size)
                if n < 2:
                    return impl(x, axes=axes, **params)
                cuts = [size * i // n for i in range(n + 1)]
                parts = _run_split(lambda i: impl(x[cuts[i] : cuts[i + 1]], axes=axes, **params), n)
                return np.concatenate(parts, axis=0)
            blocks = min(_BLOCKS, size)
            cuts = [size * i // blocks for i in range(blocks + 1)]
            parts = _run_split(
                lambda i: impl(x[cuts[i] : cuts[i + 1]], axes=axes, **params), blocks
            )
            out = parts[0]
            for p in parts[1:]:
                out = combine(out, p)
            return out

        return run

    return wrap
