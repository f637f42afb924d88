"""Where a new array goes: the sharding an array made after another takes (``like_sharding``,
JAX's rule for ``full_like`` and the ``*_like`` functions), and placing a constant there
(``place``; ``place_alike`` over the devices of several processes)."""

from __future__ import annotations

from typing import Any

import numpy as np

from spmd._src import core
from spmd._src.interpreters import sharding_rules

__all__ = ["like_sharding", "place", "place_alike"]


def like_sharding(a: Any, res: Any) -> Any:
    """The sharding a result ``res`` made after ``a`` (``full_like`` and the ``*_like``
    functions) takes, None for the default placement. As in JAX: a traced ``a`` passes on the
    sharding in its type when the shapes agree; a concrete, committed array (this process's,
    or spread over several) passes on its own sharding unless the result is weakly typed, or
    of another shape while that sharding splits some dimension."""
    if isinstance(a, core.Tracer):
        return sharding_rules.type_sharding(a) if np.shape(res) == np.shape(a) else None
    s = getattr(a, "_sharding", None)
    if (
        s is None
        or not getattr(a, "_committed", False)
        or isinstance(res, core.Tracer)
        or getattr(res, "weak_type", True)
        or (np.shape(res) != np.shape(a) and not s.is_fully_replicated)
    ):
        return None
    return s


def place(x: Any, sharding: Any, strong: bool = True) -> Any:
    """A new array ``x`` placed on ``sharding``, strongly typed if ``strong`` (as JAX's, whose
    placement of a constant is a device_put). Under a trace it is left to jit, as in JAX (a
    jitted ``lax.full(..., sharding=s)`` comes out where jit puts its results)."""
    from spmd._src.placement import device_put  # lazy: placing sits above the lax layer

    if isinstance(x, core.Tracer):
        return x
    if strong and getattr(x, "weak_type", False):
        x = core.make_concrete(np.asarray(x), False)
    if not sharding.is_fully_addressable:
        # Each process places its own value, unchecked, as JAX's computed placement does.
        weak = getattr(x, "weak_type", False)
        return place_alike(core.make_concrete(np.asarray(x), weak), sharding)
    return device_put(x, sharding)


def place_alike(x: Any, sharding: Any = None) -> Any:
    """``x`` (an Array this process made as every process did: a fill, a constant) with its
    sharding (or ``sharding``): over devices of several processes, each keeps its own blocks;
    no check that the processes agree, as they do by construction (``device_put`` of a host
    value compares them)."""
    from spmd._src.array import Array  # lazy: arrays sit above the lax layer

    if sharding is not None:
        x = Array(x._value, x.weak_type, sharding)
    if x._sharding.is_fully_addressable:
        return x
    from spmd._src import multiprocess  # lazy: placing over processes sits above the lax layer

    return multiprocess.globalize(x)
