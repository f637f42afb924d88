"""shard_map's replication check: the mesh axes each value of the body varies over.

JAX calls these the varying manual axes (vma). ``infer_vma`` propagates them through a jaxpr
(collectives by their rules in ``spmd._src.lax.parallel``, control flow to a fixed point);
``_check_vma`` rejects out_specs that claim an output is replicated over an axis it varies over.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from spmd._src import core
from spmd._src.core import ClosedJaxpr
from spmd._src.lax import parallel
from spmd._src.sharding import spec_axes

__all__ = ["infer_vma"]


# ---------------------------------------------------------------------------------------------
# Replication checking: the mesh axes each value varies over (JAX's varying manual axes)


def _union(sets) -> frozenset:
    out: frozenset = frozenset()
    for s in sets:
        out = out | s
    return out


def _call_jaxpr(eqn: core.JaxprEqn) -> core.Jaxpr | None:
    for v in eqn.params.values():
        j = v.jaxpr if isinstance(v, ClosedJaxpr) else v if isinstance(v, core.Jaxpr) else None
        if (
            j is not None
            and len(j.invars) == len(eqn.invars)
            and len(j.outvars) == len(eqn.outvars)
        ):
            return j
    return None


def _jaxpr_of(v: Any) -> core.Jaxpr:
    return v.jaxpr if isinstance(v, ClosedJaxpr) else v


def infer_vma(jaxpr: core.Jaxpr, in_vmas: Sequence[frozenset]) -> list[frozenset]:
    """The mesh axes each output of ``jaxpr`` may vary over, given its inputs'."""
    env: dict[int, frozenset] = {id(v): frozenset(s) for v, s in zip(jaxpr.invars, in_vmas)}

    def read(a) -> frozenset:
        return frozenset() if type(a) is core.Literal else env.get(id(a), frozenset())

    for eqn in jaxpr.eqns:
        ins = [read(a) for a in eqn.invars]
        outs = _eqn_vma(eqn, ins)
        for v, s in zip(eqn.outvars, outs):
            env[id(v)] = s
    return [read(a) for a in jaxpr.outvars]


def _eqn_vma(eqn: core.JaxprEqn, ins: list[frozenset]) -> list[frozenset]:
    prim, params, n_out = eqn.primitive, eqn.params, len(eqn.outvars)
    rule = parallel.vma_rules.get(prim)
    if rule is not None:
        return [frozenset(rule(params, set(_union(ins))))] * n_out
    name = prim.name
    if name == "cond" and "branches" in params:
        outs = [ins[0]] * n_out
        for br in params["branches"]:
            got = infer_vma(_jaxpr_of(br), ins[1:])
            outs = [o | g for o, g in zip(outs, got)]
        return outs
    if name == "scan" and "num_carry" in params:
        nc, nk = params["num_consts"], params["num_carry"]
        consts, carry, xs = ins[:nc], ins[nc : nc + nk], ins[nc + nk :]
        body = _jaxpr_of(params["jaxpr"])
        while True:
            got = infer_vma(body, consts + carry + xs)
            new = [c | g for c, g in zip(carry, got[:nk])]
            if new == carry:
                return got[:nk] + got[nk:]
            carry = new
    if name == "while" and "body_jaxpr" in params:
        cn, bn = params["cond_nconsts"], params["body_nconsts"]
        cconsts, bconsts, carry = ins[:cn], ins[cn : cn + bn], ins[cn + bn :]
        body, cond = _jaxpr_of(params["body_jaxpr"]), _jaxpr_of(params["cond_jaxpr"])
        while True:
            pred = infer_vma(cond, cconsts + carry)[0]
            got = infer_vma(body, bconsts + carry)
            # A predicate that varies makes the trip count, hence every carry, vary.
            new = [c | g | pred for c, g in zip(carry, got)]
            if new == carry:
                return carry
            carry = new
    inner = _call_jaxpr(eqn)
    if inner is not None:
        return infer_vma(inner, ins)
    return [_union(ins)] * n_out


def _check_vma(
    closed: ClosedJaxpr, in_vmas, out_specs, out_paths, manual, mesh, fun_name: str
) -> None:
    outs = infer_vma(closed.jaxpr, in_vmas)
    for vma, spec, path in zip(outs, out_specs, out_paths):
        named = {a for e in spec for a in spec_axes(e)}
        stray = [a for a in manual if a in vma and a not in named]
        if stray:
            a = stray[0]
            raise ValueError(
                f"shard_map applied to the function '{fun_name}' was given out_specs which "
                f"claim replication the body does not establish: out_specs{path} is {spec}, "
                f"which claims the output is the same on every device along mesh axis {a!r} "
                f"(the mesh has shape {dict(mesh.shape)}), but the value varies over it"
                + (f" (it varies over {sorted(map(str, vma))})" if len(vma) > 1 else "")
                + f". Name {a!r} in that out_specs entry, reduce over the axis (lax.psum, "
                f"lax.pmean, ...), or pass check_vma=False if the values are equal anyway."
            )
