"""``jax_debug_nans`` and ``jax_debug_infs``: raise FloatingPointError naming the primitive
that produced a NaN (or an inf).

Eagerly each primitive's results are checked as it runs (``check``). A jitted function runs
its compiled program, and when a result holds a NaN the function runs again op by op (jit
disabled, as JAX runs the "de-optimized" version), so that the primitive which made it raises.
A NaN that no result of a jitted function shows goes unreported, as in JAX. Off (the default),
this costs one attribute read per eager operation.

>>> with spmd.debug_nans(True):
...     jnp.log(-1.0)  # doctest: +SKIP
FloatingPointError: invalid value (nan) encountered in log
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Any

import numpy as np

from spmd._src import core
from spmd._src import tree_util as tu
from spmd._src.array import Array
from spmd._src.config import config, disable_jit

# Whether either option is on (kept in step by the options' on_change hooks): the one thing
# the eager path reads.
enabled = False
# True while a jitted function's program runs under the check: its nested calls are not
# checked one by one. A context value (per thread), like the current trace.
_busy: contextvars.ContextVar[bool] = contextvars.ContextVar("debug_floats_busy", default=False)


def _sync(_value: Any = None) -> None:
    global enabled
    enabled = bool(config.jax_debug_nans or config.jax_debug_infs)


def _bad(value: Any) -> str | None:
    """'nan' or 'inf' if ``value`` holds one that an option asks about, else None."""
    v = value._value if type(value) is Array else value
    if not isinstance(v, (np.ndarray, np.generic)) or v.dtype.kind not in "fc":
        return None
    if config.jax_debug_nans and np.isnan(v).any():
        return "nan"
    if config.jax_debug_infs and np.isinf(v).any():
        return "inf"
    return None


def _error(kind: str, where: str) -> FloatingPointError:
    return FloatingPointError(f"invalid value ({kind}) encountered in {where}")


def check(prim: core.Primitive, outs: Any, args: Any, params: dict) -> None:
    """Raise if an eager result of ``prim`` holds a NaN (inf). A jit call is first evaluated
    again equation by equation, so the error names the primitive inside it."""
    for o in outs if prim.multiple_results else [outs]:
        kind = _bad(o)
        if kind is None:
            continue
        closed = params.get("jaxpr") if prim.name == "jit" else None
        if isinstance(closed, core.ClosedJaxpr):
            core.eval_jaxpr(closed.jaxpr, closed.consts, *args)
        raise _error(kind, prim.name)


def call_jit(jitted: Callable, fun: Callable, name: str, args: tuple, kwargs: dict) -> Any:
    """``jitted(*args, **kwargs)``, its results checked; on a NaN (inf), ``fun`` runs op by op
    so that the primitive which produced it raises."""
    token = _busy.set(True)
    try:
        out = jitted(*args, **kwargs)
    finally:
        _busy.reset(token)
    for leaf in tu.tree_leaves(out):
        kind = _bad(leaf)
        if kind is not None:
            # JAX says so on stdout before it runs the function again.
            print(
                f"Invalid {kind} value encountered in the output of a spmd.jit function. "
                "Calling the de-optimized version."
            )
            with disable_jit():
                fun(*args, **kwargs)
            raise _error(kind, f"jit({name})")
    return out


def call_sharded(mapped: Callable, args: tuple, kwargs: dict) -> Any:
    """``mapped(*args, **kwargs)`` (a pmap), its results checked: JAX does not look inside a
    sharded computation either, and says so."""
    token = _busy.set(True)
    try:
        out = mapped(*args, **kwargs)
    finally:
        _busy.reset(token)
    for leaf in tu.tree_leaves(out):
        kind = _bad(leaf)
        if kind is not None:
            raise FloatingPointError(f"Invalid value ({kind}) encountered in sharded computation.")
    return out


def busy() -> bool:
    return _busy.get()


config._options["jax_debug_nans"].on_change = _sync
config._options["jax_debug_infs"].on_change = _sync
_sync()

__all__ = ["busy", "call_jit", "call_sharded", "check", "enabled"]
