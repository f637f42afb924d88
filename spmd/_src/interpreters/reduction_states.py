"""Unreduced and reduced arrays in sharding propagation (JAX 0.10's ``P(unreduced={'X'})`` and
``P(reduced={'X'})`` on Explicit mesh axes).

An array *unreduced* over mesh axis X is, on the devices along X, partial sums whose sum is its
value (``f32[2,2]{U:X}``): a contraction over a dimension X shards can stop before its
all-reduce (``out_sharding=P(None, None, unreduced={'X'})``) and ``reshard`` to an ordinary
sharding performs it. Only linear operations have a rule for it: sums of arrays unreduced over
the same axes, a product of one with an array *reduced* over those axes, and the ops that move
elements without combining them. Every other operation refuses it (the cosine of a sum is not
the sum of the cosines). An array *reduced* over X (``{R:X}``) is placed as a replicated one;
what differs is its cotangent, which is unreduced over X (``autodiff.cotangent_sharding``), so a
program's gradient all-reduce happens where its forward pass casts to reduced.

spmd holds an array's value, not its partial sums (one process computes the global value): an
unreduced array's value is the sum, and its shards show it on the first device along the
unreduced axes and zeros on the others, as JAX places a replicated array resharded to unreduced.
``apply`` gives an operation's result sharding these states; sharding_rules.propagate calls it
when an operand or the sharding an operation asks for carries one.
"""

from __future__ import annotations

from typing import Any

from spmd._src.interpreters import sharding_rules as sr
from spmd._src.sharding import NamedSharding, P, reduction_str, spec_axes

# Operations linear in their one operand that move or convert elements: an unreduced operand
# gives an unreduced result.
_MOVES = frozenset(
    {
        "transpose",
        "reduce_sum",
        "convert_element_type",
        "copy",
        "copy_p",
        "broadcast_in_dim",
        "squeeze",
        "expand_dims",
        "reshape",
        "rev",
        "slice",
        "dynamic_slice",
        "pad",
        "gather",
        "cumsum",
    }
)
_SUMS = frozenset({"add", "add_any"})  # every operand unreduced over the same axes
_PRODUCTS = frozenset({"mul", "dot_general"})  # one unreduced operand, the others reduced


def _states(s: Any) -> tuple[frozenset, frozenset]:
    if type(s) is NamedSharding:
        return s.spec.unreduced, s.spec.reduced
    return frozenset(), frozenset()


def carries(shardings, given) -> bool:
    """Whether an operand or the asked-for result sharding is unreduced or reduced."""
    for s in (*shardings, given):
        if type(s) is NamedSharding and (s.spec.unreduced or s.spec.reduced):
            return True
    return False


def _type(aval, s) -> str:
    spec = s.spec._normalized(aval.ndim) if type(s) is NamedSharding else None
    return sr.type_str(aval, spec, short=False) + (reduction_str(s.spec) if spec else "")


def _unreduced(prim, shardings, avals) -> frozenset:
    """The axes ``prim``'s result is unreduced over, for operands some of which are unreduced
    (ShardingTypeError or NotImplementedError where the operation has no such rule, as JAX)."""
    states = [_states(s) for s in shardings]
    us = [u for u, _ in states]
    axes = frozenset().union(*us)
    name = prim.name
    if name in _MOVES or (name in _SUMS and len(us) == 1):
        return axes
    if name in _SUMS:
        for i, u in enumerate(us):
            if u != axes:
                side, other = ("rhs", "lhs") if i else ("lhs", "rhs")  # (other: unreduced)
                raise sr.ShardingTypeError(
                    f"{other} is unreduced while {side} is not. `{name}` operation does not "
                    "allow this because there will be implicit communication. Please reduce "
                    f"{other} via `reshard` before calling `{name}`. Got lhs="
                    f"{_type(avals[0], shardings[0])} and rhs={_type(avals[1], shardings[1])}"
                )
        return axes
    if name in _PRODUCTS and len(us) == 2:
        if us[0] and us[1]:
            raise sr.ShardingTypeError(
                f"lhs and rhs to `{name}` cannot be unreduced since {name} is bilinear. Got "
                f"lhs={_type(avals[0], shardings[0])}, rhs={_type(avals[1], shardings[1])}"
            )
        u, other = (0, 1) if us[0] else (1, 0)
        if not us[u] <= states[other][1]:
            sides = ("LHS", "RHS")
            raise sr.ShardingTypeError(
                f"{sides[other]} should be reduced along the same axes {sides[u]} is unreduced "
                f"on in `{name}`. Got lhs={_type(avals[0], shardings[0])} and "
                f"rhs={_type(avals[1], shardings[1])}"
            )
        return axes
    ins = ", ".join(_type(a, s) for a, s in zip(avals, shardings))
    raise NotImplementedError(
        f"unreduced rule for {name} is not implemented (operands {ins}): only linear "
        "operations take unreduced arrays; reshard to an ordinary sharding first. Please file "
        "an issue at https://github.com/jax-ml/jax/issues"
    )


def _reduced(prim, shardings, avals) -> frozenset:
    """The axes operands are reduced over; an operand of rank > 0 replicated over one of them
    is refused (ShardingTypeError, as JAX: the cotangents would mix states)."""
    axes = frozenset().union(*(_states(s)[1] for s in shardings))
    if not axes:
        return axes
    for s, a in zip(shardings, avals):
        if type(s) is not NamedSharding or not a.ndim:
            continue
        placed = {x for e in s.spec for x in spec_axes(e)} | s.spec.unreduced | s.spec.reduced
        if not axes <= placed:
            raise sr.ShardingTypeError(
                f"{prim.name}: inputs cannot be replicated on the same axes that another input "
                f"is reduced on. Got input type: {_type(a, s)} and reduced spec: "
                f"{set(sorted(axes))}"
            )
    return axes


def apply(prim, shardings, avals, params, out):
    """``out`` (the result sharding ``propagate`` found, or a list for several results) with
    the unreduced and reduced axes of the result."""
    if isinstance(out, (list, tuple)) or type(out) is not NamedSharding:
        return out
    given = sr.given_sharding(prim, params)
    unreduced, reduced = frozenset(), frozenset()
    if any(_states(s)[0] for s in shardings):
        unreduced = _unreduced(prim, shardings, avals)
    reduced = _reduced(prim, shardings, avals)
    if type(given) is NamedSharding:
        unreduced, reduced = unreduced | given.spec.unreduced, reduced | given.spec.reduced
    # A mesh axis that shards a dimension of the result is not replicated over it.
    used = {x for e in out.spec for x in spec_axes(e)}
    reduced = reduced - used - unreduced
    if unreduced == out.spec.unreduced and reduced == out.spec.reduced:
        return out
    return out.with_spec(P(*out.spec, unreduced=unreduced, reduced=reduced))


def cotangent_sharding(s: Any) -> Any:
    """The sharding in the type of a cotangent of a value typed ``s``: the same but for its
    unreduced and reduced axes, which swap (JAX's cotangent map: replication's transpose is a
    sum, which a reduced primal's cotangent leaves pending)."""
    if type(s) is not NamedSharding or not (s.spec.unreduced or s.spec.reduced):
        return s
    return s.with_spec(P(*s.spec, unreduced=s.spec.reduced, reduced=s.spec.unreduced))
