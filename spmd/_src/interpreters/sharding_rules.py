"""Sharding propagation: one deterministic rule per primitive.

A rule maps the operands' partition specs (one entry per dimension: None, an axis name, or a
tuple of names; ``None`` for an operand with no mesh sharding) and avals to the result's
spec(s):

    rule(specs_in, avals_in, **params) -> spec     (a list of specs for multiple results)

Eager operations on sharded arrays and jit's forward propagation both read this table. A
primitive without a rule gives a replicated result on the operands' mesh.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from spmd._src import core
from spmd._src.sharding import NamedSharding, P, spec_axes

sharding_rules: dict[core.Primitive, Callable] = {}
# Primitives whose rule gives a full Sharding of its own (constraints): they set the result's
# sharding even when no operand is sharded.
sets_sharding: set[core.Primitive] = set()


def _spec_of(sharding: Any, ndim: int, mesh: Any) -> tuple | None:
    if isinstance(sharding, NamedSharding) and sharding.mesh == mesh:
        return sharding.spec._normalized(ndim)
    return None


def _dedupe(spec: Sequence[Any]) -> tuple:
    """Drop repeated uses of a mesh axis (a later dimension loses it)."""
    used: set = set()
    out = []
    for e in spec:
        axes = tuple(a for a in spec_axes(e) if a not in used)
        used.update(axes)
        out.append(None if not axes else axes[0] if len(axes) == 1 else axes)
    return tuple(out)


def propagate(
    prim: core.Primitive, shardings: Sequence[Any], avals: Sequence[core.ShapedArray], params
) -> Any:
    """Result sharding(s) of ``prim`` for operands with the given shardings (None where no
    operand has a NamedSharding: the default placement)."""
    if prim in sets_sharding:
        return sharding_rules[prim](None, avals, **params)
    named = [s for s in shardings if isinstance(s, NamedSharding)]
    if not named:
        return None
    mesh, kind = named[0].mesh, named[0].memory_kind
    specs = [_spec_of(s, a.ndim, mesh) for s, a in zip(shardings, avals)]
    rule = sharding_rules.get(prim)
    out_avals = prim.abstract_eval(*avals, **params)
    if rule is None:
        replicated = NamedSharding(mesh, P(), memory_kind=kind)
        return [replicated] * len(out_avals) if prim.multiple_results else replicated
    out = rule(specs, avals, **params)
    if prim.multiple_results:
        return [NamedSharding(mesh, _trim(P(*_dedupe(o))), memory_kind=kind) for o in out]
    return NamedSharding(mesh, _trim(P(*_dedupe(out))), memory_kind=kind)


def _trim(spec: P) -> P:
    parts = list(spec)
    while parts and parts[-1] is None:
        parts.pop()
    return P(*parts)


# ---------------------------------------------------------------------------------------------
# Generic rules, used by the helpers that register primitives


def elementwise_rule(specs, avals, **params):
    """Broadcasting elementwise: per result dimension, the first operand that shards it."""
    rank = max(a.ndim for a in avals)
    out: list[Any] = [None] * rank
    for spec, aval in zip(specs, avals):
        if spec is None or aval.ndim == 0:
            continue
        offset = rank - aval.ndim
        for i, (e, d) in enumerate(zip(spec, aval.shape)):
            if out[offset + i] is None and e is not None and d != 1:
                out[offset + i] = e
    return tuple(out)


def unary_rule(specs, avals, **params):
    spec = specs[0]
    return tuple(spec) if spec is not None else (None,) * avals[0].ndim


def reduction_rule(specs, avals, *, axes, **params):
    spec = specs[0] or (None,) * avals[0].ndim
    return tuple(e for i, e in enumerate(spec) if i not in axes)


def replicated_rule(specs, avals, **params):
    return (None,)


def propagate_jaxpr(jaxpr: core.Jaxpr, in_shardings: Sequence[Any]) -> list[Any]:
    """Forward sharding propagation through a jaxpr: the sharding of each output (None: no
    mesh sharding reached it)."""
    env: dict[int, Any] = {}
    for v, s in zip(jaxpr.invars, in_shardings):
        env[id(v)] = s

    def read(a):
        return None if type(a) is core.Literal else env.get(id(a))

    for eqn in jaxpr.eqns:
        ins = [read(a) for a in eqn.invars]
        inner = call_jaxpr_of(eqn)
        if inner is not None:
            outs = propagate_jaxpr(inner, ins)
        elif any(isinstance(s, NamedSharding) for s in ins) or eqn.primitive in sets_sharding:
            avals = [a.aval for a in eqn.invars]
            outs = propagate(eqn.primitive, ins, avals, eqn.params)
            if not eqn.primitive.multiple_results:
                outs = [outs]
        else:
            outs = [None] * len(eqn.outvars)
        for v, s in zip(eqn.outvars, outs):
            env[id(v)] = s
    return [read(a) for a in jaxpr.outvars]


# prim -> fn(eqn) -> the jaxpr a call-like equation runs (propagation looks through it).
call_jaxprs: dict[core.Primitive, Callable] = {}


def call_jaxpr_of(eqn: core.JaxprEqn) -> core.Jaxpr | None:
    fn = call_jaxprs.get(eqn.primitive)
    return fn(eqn) if fn is not None else None


def has_constraints(jaxpr: core.Jaxpr) -> bool:
    for eqn in jaxpr.eqns:
        if eqn.primitive in sets_sharding:
            return True
        inner = call_jaxpr_of(eqn)
        if inner is not None and has_constraints(inner):
            return True
    return False
