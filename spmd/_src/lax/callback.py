"""``debug_callback``: call Python with the values of a running program.

An effectful primitive (kept by dead-code elimination). Under a named-axis map (vmap, pmap,
shard_map) it runs once per device with that device's values, in device order: each batching
trace moves its batch dimension to the front and rebinds, counting the stacked dimensions in
``stacked``; the trace of the first mesh axis is outermost, so its dimension ends up first and
the kernel's row-major loop over the stacked dimensions visits devices in mesh order.

>>> spmd.jit(lambda x: spmd.debug.print("x = {}", x))(jnp.arange(3))  # doctest: +SKIP
x = [0 1 2]
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from spmd._src import core
from spmd._src.interpreters import ad, batching


class _Callback:
    """A Python callable as a hashable parameter (equal when it is the same callable)."""

    __slots__ = ("fn", "name")

    def __init__(self, fn: Callable, name: str) -> None:
        self.fn, self.name = fn, name

    def __eq__(self, other) -> bool:
        return isinstance(other, _Callback) and self.fn is other.fn

    def __hash__(self) -> int:
        return hash(id(self.fn))

    def __repr__(self) -> str:
        return self.name


def debug_callback(callback: Callable[..., Any], *args: Any, name: str = "callback") -> None:
    """Call ``callback(*values)`` when the program runs (once per device inside maps)."""
    debug_callback_p.bind(*args, callback=_Callback(callback, name), stacked=0)


def _impl(*args, callback: _Callback, stacked: int):
    if not stacked:
        callback.fn(*args)
        return []
    lead = args[0].shape[:stacked] if args else ()
    for idx in itertools.product(*(range(n) for n in lead)):
        callback.fn(*(np.asarray(a[idx]) for a in args))
    return []


def _abstract_eval(*avals, callback, stacked):
    return []


def _vmap_rule(axis_data, vals, dims, *, callback, stacked):
    from spmd._src.lax.rules import bdim_at_front

    # This trace's dimension goes in front of the ones inner traces stacked: the outermost
    # trace (the first mesh axis) ends up first, which makes the loop run in device order.
    moved = [bdim_at_front(v, d, axis_data.size) for v, d in zip(vals, dims)]
    debug_callback_p.bind(*moved, callback=callback, stacked=stacked + 1)
    return [], []


debug_callback_p = core.Primitive("debug_callback", multiple_results=True, effectful=True)
debug_callback_p.def_impl(_impl)
debug_callback_p.def_abstract_eval(_abstract_eval)
batching.primitive_batchers[debug_callback_p] = _vmap_rule
# A callback has no outputs: nothing to differentiate, it just sees the primal values.
ad.primitive_jvps[debug_callback_p] = lambda primals, tangents, out, **params: []

__all__: list[str] = []
