"""``debug_callback``: call Python with the values of a running program.

An effectful primitive (kept by dead-code elimination). Inside maps over devices (pmap,
shard_map) it runs once per device with that device's values, in device order, even when the
values do not vary over the devices (``debug.print("hi")`` inside a pmap over 4 devices prints 4
lines). Inside vmap it runs once per batch index when an argument is batched, and once when none
is (as in JAX).

How: vmap unrolls the call, as JAX does: one equation per batch index, on that index's slices.
Each trace of a map over devices moves its batch dimension into ``stacked`` place (broadcasting the
arguments that do not vary over it) and rebinds, adding its axis to ``stacked``; the kernel loops
over the stacked dimensions in row-major order. Usually the trace of an outer map meets the
callback after the inner ones, and its dimension goes in front. Not always: a map applied to a
shard_map (pmap inside pmap) batches the shard_map's body before the inner mesh axes do, so each
stacked axis records the axis names bound inside its map (``inside``), and a later trace of one of
those names goes after it. The result is row-major over (outer, inner) devices.

>>> spmd.jit(lambda x: spmd.debug.print("x = {}", x))(jnp.arange(3))  # doctest: +SKIP
x = [0 1 2]
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import itertools
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from spmd._src import core
from spmd._src.interpreters import ad, batching
from spmd._src.interpreters import partial_eval as pe


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


class _Stacked:
    """One stacked map dimension of a callback's arguments: the axis name (None for an unnamed
    vmap), its size, and the axis names bound inside that map when it was stacked."""

    __slots__ = ("name", "size", "inside")

    def __init__(self, name: Any, size: int, inside: frozenset) -> None:
        self.name, self.size, self.inside = name, size, inside

    def _key(self) -> tuple:
        return (self.name, self.size, self.inside)

    def __eq__(self, other) -> bool:
        return isinstance(other, _Stacked) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"{self.name}:{self.size}"


class Shown:
    """The parameters a callback equation prints in jaxprs: JAX's own for the same call (the
    parameters it runs with are not shown, except maps' ``stacked``/``masked``)."""

    __slots__ = ("items",)

    def __init__(self, items: Sequence[tuple[str, Any]]) -> None:
        self.items = tuple(items)

    # Compared by identity: one per traced call (its values need not be hashable).
    def __repr__(self) -> str:
        return f"Shown({dict(self.items)!r})"


def debug_callback(
    callback: Callable[..., Any],
    *args: Any,
    name: str = "callback",
    shown: Shown | None = None,
    primitive: str = "debug_callback",
) -> None:
    """Call ``callback(*values)`` when the program runs (once per device inside maps).
    ``primitive``: the name the equation has ("debug_print" for debug.print, as in JAX)."""
    p = debug_print_p if primitive == "debug_print" else debug_callback_p
    params = dict(callback=_Callback(callback, name), stacked=(), masked=False)
    if shown is not None:
        params["shown"] = shown
    p.bind(*args, **params)


# A per-device bool: whether the code being traced runs on this device (a device whose branch
# of a cond is not taken, or whose while loop has stopped, does not). Set while the control-flow
# batching rules re-trace a branch or body over device axes; callbacks bound meanwhile take it
# as a leading operand and run only where it is True.
_active: contextvars.ContextVar = contextvars.ContextVar("spmd_callback_active", default=None)


@contextlib.contextmanager
def effects_where(active: Any) -> Iterator[None]:
    """Callbacks bound inside run only on the devices where ``active`` is True. (Masks that
    callbacks already carry, from inner device axes, are combined with it when they are bound
    again; an enclosing mask reaches a nested loop or branch through ``mask_rules``.)"""
    token = _active.set(active)
    try:
        yield
    finally:
        _active.reset(token)


# prim -> rule(active, operands, **params) -> results: bind a higher-order primitive whose
# inner jaxprs hold callbacks so that they see the mask ``active`` (passed in as an extra
# operand). Filled by the control-flow modules.
mask_rules: dict[core.Primitive, Callable] = {}


def rebind_masked(eqn: core.JaxprEqn, ins: list) -> Any:
    """``core.eval_jaxpr``'s ``rebind`` under ``effects_where``: loops, branches and calls
    holding callbacks pass the mask on to them."""
    rule = mask_rules.get(eqn.primitive)
    active = _active.get()
    if rule is not None and active is not None and pe.has_effects(eqn):
        return rule(active, ins, **eqn.params)
    return eqn.primitive.bind(*ins, **eqn.params)


class _CallbackPrimitive(core.Primitive):
    __slots__ = ()

    def bind(self, *args: Any, **params: Any) -> Any:
        active = _active.get()
        if active is not None:
            # The mask, like the arguments, carries the dimensions already stacked (inner
            # device axes, over which this per-device value does not vary).
            sizes = tuple(s.size for s in params["stacked"])
            if sizes:
                from spmd._src.lax.shape import broadcast_in_dim  # lazy: shape imports rules

                active = broadcast_in_dim(active, sizes, ())
            if params["masked"]:
                from spmd._src.lax.elementwise import bitwise_and  # lazy: as above

                args = (bitwise_and(active, args[0]), *args[1:])
            else:
                args, params = (active, *args), dict(params, masked=True)
        return super().bind(*args, **params)


def _impl(*args, callback: _Callback, stacked: tuple, masked: bool, shown=None):
    # Every argument carries all the stacked dimensions in front (the rule broadcasts); a mask
    # (the first argument when ``masked``) says which of them run.
    mask, args = (args[0], args[1:]) if masked else (None, args)
    for idx in itertools.product(*(range(s.size) for s in stacked)):
        if mask is not None and not np.asarray(mask)[idx]:
            continue
        callback.fn(*(np.asarray(a[idx]) if idx else a for a in args))
    return []


def _abstract_eval(*avals, callback, stacked, masked, shown=None):
    return []


def _vmap_rule(p, axis_data, vals, dims, *, callback, stacked, masked, **params):
    from spmd._src.lax.rules import bdim_to

    if not axis_data.per_device:
        # vmap (not a map over devices): as JAX's, one equation per index of the batch, bound
        # in index order on that index's slices (unbatched values as they are). A nested vmap's
        # inner axis is unrolled first, so its index is the major one when the prints run.
        from spmd._src.lax.shape import index_in_dim  # lazy: shape imports rules

        for i in range(axis_data.size):
            ins = [v if d is None else index_in_dim(v, i, d, False) for v, d in zip(vals, dims)]
            p.bind(*ins, callback=callback, stacked=stacked, masked=masked, **params)
        return [], []
    name = axis_data.name
    # Go after the stacked axes of maps that enclose this one (see the module docstring).
    k = 0
    while k < len(stacked) and name is not None and name in stacked[k].inside:
        k += 1
    moved = [bdim_to(v, d, k, axis_data.size) for v, d in zip(vals, dims)]
    here = _Stacked(name, axis_data.size, batching.names_bound_inside(axis_data))
    new_stacked = stacked[:k] + (here,) + stacked[k:]
    p.bind(*moved, callback=callback, stacked=new_stacked, masked=masked, **params)
    return [], []


def _pp_params(params: dict) -> list:
    # JAX's parameters where the call has them (``shown``), else the running ones; maps'
    # ``stacked`` only when there are some, ``masked`` only where a mask is there.
    shown = params.get("shown")
    if shown is None:
        out = [(k, v) for k, v in sorted(params.items()) if k not in ("masked", "stacked")]
    else:
        out = list(shown.items)
    if params["stacked"] or shown is None:
        out.append(("stacked", params["stacked"]))
    if params["masked"]:
        out.append(("masked", True))
    return out


def _callback_primitive(name: str) -> _CallbackPrimitive:
    p = _CallbackPrimitive(name, multiple_results=True, effectful=True)
    p.def_impl(_impl)
    p.def_abstract_eval(_abstract_eval)
    batching.primitive_batchers[p] = functools.partial(_vmap_rule, p)
    batching.per_device_primitives.add(p)
    core.pp_param_rules[p] = _pp_params
    # A callback has no outputs: nothing to differentiate, it just sees the primal values.
    ad.primitive_jvps[p] = lambda primals, tangents, out, **params: []
    return p


debug_callback_p = _callback_primitive("debug_callback")
# debug.print's equations (a name of their own, as in JAX's jaxprs; the same rules).
debug_print_p = _callback_primitive("debug_print")

__all__ = ["debug_callback", "effects_where", "mask_rules", "rebind_masked"]
