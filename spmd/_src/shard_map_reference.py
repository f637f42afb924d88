"""shard_map's executable specification: a loop over every device.

``shard_map_reference`` slices the inputs per device, interprets the body device by device in
lockstep, does each collective by hand (sharing nothing with the batched path), and writes the
output blocks. ``spmd._src.shard_map.reference_mode`` switches shard_map and pmap to it; tests
compare the two.

The same loop runs a job of several processes (``spmd._src.multiprocess``): each process
interprets the body for its own devices only (``Exchange.local``), and a collective first hands
every device's operand to every process (``Exchange.gather``), then combines them by the same
code as in one process, so every process and device gets the bits one process would.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core
from spmd._src.array import Array
from spmd._src.core import ClosedJaxpr
from spmd._src.interpreters import batching
from spmd._src.lax import parallel
from spmd._src.lax.control_flow.while_loop import masked_update
from spmd._src.mesh import Mesh
from spmd._src.shard_map_check import _call_jaxpr

__all__ = ["Exchange", "block_text", "ref_eval", "shard_map_reference"]


class Exchange:
    """Which devices (indices into the mesh coordinates) this process runs, and how their
    values reach the others. In one process: every device, and nothing to exchange."""

    def __init__(self, n: int) -> None:
        self.local = list(range(n))

    def gather(self, local_vals: list, what: str) -> list:
        """Every device's value (by coordinate index) from this process's ``local_vals``."""
        return local_vals


# ---------------------------------------------------------------------------------------------
# The reference: a loop over devices, collectives by hand


def shard_map_reference(params: dict, args: Sequence[Any]) -> list[np.ndarray]:
    """Run a shard_map equation (its ``params``) on global NumPy ``args`` device by device.

    Each device gets its blocks of the inputs; the body is interpreted for all devices in
    lockstep, equation by equation: ordinary primitives run per device with their NumPy
    kernels, collectives combine the devices' values with plain loops (written here, sharing
    nothing with the batched path), and calls (jit) are entered. The output blocks of every
    device are written into the global results; devices an output is replicated over must
    agree bit for bit.
    """
    # spmd._src.shard_map imports this module, so its helpers are read at call time.
    from spmd._src.shard_map import _global_shape, _params_manual

    closed: ClosedJaxpr = params["jaxpr"]
    mesh: Mesh = params["mesh"]
    manual = _params_manual(params)
    sizes = dict(mesh.shape)
    coords = [dict(zip(manual, c)) for c in itertools.product(*(range(sizes[a]) for a in manual))]
    per_device_args = []
    for c in coords:
        blocks = []
        for x, spec in zip(args, params["in_specs"]):
            x = np.asarray(x)
            blocks.append(x[_block_index(x.shape, spec, sizes, c)])
        per_device_args.append(blocks)
    with np.errstate(all="ignore"):  # as the kernels run elsewhere: inf and nan, silently
        outs = ref_eval(closed.jaxpr, closed.consts, per_device_args, coords, sizes)
    results = []
    for i, (spec, aval) in enumerate(zip(params["out_specs"], closed.out_avals)):
        gshape = _global_shape(aval.shape, spec, sizes)
        out = np.empty(gshape, dtype=aval.dtype)
        written: dict = {}
        for dev, c in enumerate(coords):
            block = np.asarray(outs[dev][i], dtype=aval.dtype)
            idx = _block_index(gshape, spec, sizes, c)
            key = tuple((s.start, s.stop) for s in idx)
            if key in written:
                if block.tobytes() != written[key]:
                    raise ValueError(
                        f"shard_map reference: output {i} differs between devices along an "
                        f"axis its out_specs {spec} replicate (device {c})."
                    )
                continue
            written[key] = block.tobytes()
            out[idx] = block
        results.append(out)
    return results


def block_text(trace: Any, mesh: Mesh, specs, args) -> Callable[[Any], str]:
    """How a value of the body ``trace`` (traced for an eager call on the global ``args``,
    split by ``specs``) prints: every device's block, computed by running the equations traced
    so far device by device, as JAX's eager shard_map prints it (``On cpu:0 at mesh
    coordinates (i,) = (0,):`` and the block, one paragraph a device)."""
    sizes = dict(mesh.shape)
    names = tuple(mesh.axis_names)
    coords = [dict(zip(names, c)) for c in itertools.product(*(range(sizes[a]) for a in names))]
    # The blocks are cut when something prints, not for every eager call: the arguments may be
    # large, or (across processes) not readable whole.
    blocks: list = []

    def text(t: Any) -> str:
        if not blocks:
            blocks.extend(
                [np.asarray(x)[_block_index(np.shape(x), s, sizes, c)] for x, s in zip(args, specs)]
                for c in coords
            )
        j = core.Jaxpr(trace.constvars, trace.invars, [t._var], list(trace.eqns), None)
        with np.errstate(all="ignore"):
            outs = ref_eval(j, trace.constvals, blocks, coords, sizes)
        header = "(" + ", ".join(names) + ",)"
        parts = []
        for c, o in zip(coords, outs):
            where = tuple(c[a] for a in names)
            device = mesh.devices[where]
            parts.append(f"On {device} at mesh coordinates {header} = {where}:\n{o[0]}\n")
        return "\n".join(parts)

    return text


def _block_index(shape, spec, sizes, coord) -> tuple:
    # spmd._src.shard_map imports this module, so its helpers are read at call time.
    from spmd._src.shard_map import _spec_entries

    idx = []
    for d, axes in zip(shape, _spec_entries(spec, len(shape))):
        n, k = 1, 0
        for a in axes:
            k = k * sizes[a] + coord[a]
            n *= sizes[a]
        step = d // n
        idx.append(slice(k * step, (k + 1) * step))
    return tuple(idx)


def ref_eval(jaxpr: core.Jaxpr, consts, per_device_args, coords, sizes, ex=None) -> list[list]:
    """Interpret ``jaxpr`` in lockstep on the devices ``ex.local`` (default: all of
    ``coords``), whose arguments ``per_device_args`` gives in that order; their results, in
    the same order."""
    ex = Exchange(len(coords)) if ex is None else ex
    n = len(ex.local)
    envs = [dict() for _ in range(n)]
    for env, dev_args in zip(envs, per_device_args):
        for v, c in zip(jaxpr.constvars, consts):
            env[id(v)] = np.asarray(c._value if type(c) is Array else c)
        for v, x in zip(jaxpr.invars, dev_args):
            env[id(v)] = np.asarray(x)

    def read(env, a):
        if type(a) is core.Literal:
            return np.asarray(a.val, dtype=a.aval.dtype)
        return env[id(a)]

    for eqn in jaxpr.eqns:
        ins = [[read(env, a) for a in eqn.invars] for env in envs]
        prim = eqn.primitive
        if prim is parallel.ragged_all_to_all_p:
            outs = [[o] for o in _ref_ragged(eqn.params, ins, coords, sizes, ex)]
        elif prim in _REF_COLLECTIVES:
            outs = _ref_collective(eqn, [i[0] if i else None for i in ins], coords, sizes, ex)
            outs = [[o] for o in outs]
        elif any(batching.refers_to_axis(prim, eqn.params, a) for a in coords[0]):
            outs = _ref_higher_order(eqn, ins, coords, sizes, ex)
        else:
            outs = []
            for dev_ins in ins:
                o = prim.impl(*dev_ins, **eqn.params)
                outs.append(list(o) if prim.multiple_results else [o])
        for env, o in zip(envs, outs):
            for v, x in zip(eqn.outvars, o):
                env[id(v)] = np.asarray(x, dtype=v.aval.dtype)
    return [[read(env, a) for a in jaxpr.outvars] for env in envs]


def _ref_run(closed, ins, coords, sizes, ex):
    j = closed.jaxpr if isinstance(closed, ClosedJaxpr) else closed
    consts = closed.consts if isinstance(closed, ClosedJaxpr) else []
    return ref_eval(j, consts, ins, coords, sizes, ex)


def _ref_higher_order(eqn, ins, coords, sizes, ex) -> list[list]:
    """Equations whose inner jaxprs use the mesh axes, run in lockstep over the devices the
    way the batched program runs them: every branch of a cond (each device keeps its own),
    loops until no device continues (finished devices keep their carry)."""
    prim, p, n = eqn.primitive, eqn.params, len(ex.local)
    if prim.name == "cond" and "branches" in p:
        per_branch = [_ref_run(b, [i[1:] for i in ins], coords, sizes, ex) for b in p["branches"]]
        last = len(p["branches"]) - 1
        return [per_branch[min(max(int(ins[d][0]), 0), last)][d] for d in range(n)]
    if prim.name == "while" and "body_jaxpr" in p:
        cn, bn = p["cond_nconsts"], p["body_nconsts"]
        cc = [i[:cn] for i in ins]
        bc = [i[cn : cn + bn] for i in ins]
        carry = [i[cn + bn :] for i in ins]
        while True:
            preds = _ref_run(p["cond_jaxpr"], [c + k for c, k in zip(cc, carry)], coords, sizes, ex)
            # A batched predicate (a vmap inside the body) is a prefix of the carries'
            # shapes: the device goes on while any example does, updating those that do.
            masks = [np.asarray(q[0], bool) for q in preds]
            go = [bool(m.any()) for m in masks]
            # Every device of every process takes the same number of steps (the body's
            # collectives meet): the loop ends when no device anywhere continues.
            if not any(ex.gather(go, "while_loop's predicate")):
                return carry
            new = _ref_run(p["body_jaxpr"], [b + k for b, k in zip(bc, carry)], coords, sizes, ex)
            carry = [
                [
                    masked_update(masks[d], nv, ov).astype(np.asarray(ov).dtype)
                    for nv, ov in zip(new[d], carry[d])
                ]
                if go[d]
                else carry[d]
                for d in range(n)
            ]
    if prim.name == "scan" and "num_carry" in p:
        nc, nk, length = p["num_consts"], p["num_carry"], p["length"]
        consts = [i[:nc] for i in ins]
        carry = [i[nc : nc + nk] for i in ins]
        xs = [i[nc + nk :] for i in ins]
        ys: list[list] = [[None] * length for _ in range(n)]
        order = range(length - 1, -1, -1) if p["reverse"] else range(length)
        for t in order:
            step = [c + k + [x[t] for x in xx] for c, k, xx in zip(consts, carry, xs)]
            outs = _ref_run(p["jaxpr"], step, coords, sizes, ex)
            carry = [o[:nk] for o in outs]
            for d in range(n):
                ys[d][t] = outs[d][nk:]
        stacked = [
            [np.stack([ys[d][t][j] for t in range(length)]) for j in range(len(ys[d][0]))]
            if length
            else []
            for d in range(n)
        ]
        return [carry[d] + stacked[d] for d in range(n)]
    # spmd._src.shard_map imports this module, so its helpers are read at call time.
    from spmd._src.shard_map import shard_map_p

    inner = _call_jaxpr(eqn) if prim is not shard_map_p else None
    if inner is not None:
        consts = next(
            (v.consts for v in p.values() if isinstance(v, ClosedJaxpr) and v.jaxpr is inner), []
        )
        return ref_eval(inner, consts, ins, coords, sizes, ex)
    raise NotImplementedError(
        f"shard_map reference: collectives inside '{prim.name}' are not supported"
    )


_participants_cache: dict = {}


def _ref_participants(entries, lead_shape, dev, coords, sizes):
    """For device ``dev``: the devices of its collective, as (combined index, member device,
    local index) triples, and the combined index of each of its own local positions."""
    # The coordinates are the product of the mesh axes' ranges, in axis order, so the axes and
    # their sizes determine them: a structural key.
    key = (entries, tuple(lead_shape), dev, tuple(coords[0]), tuple(sizes.items()))
    got = _participants_cache.get(key)
    if got is None:
        if len(_participants_cache) >= 4096:
            _participants_cache.clear()
        got = _participants_cache[key] = _participants(entries, lead_shape, dev, coords, sizes)
    return got


def _participants(entries, lead_shape, dev, coords, sizes):
    names = [e for e in entries if type(e) is not int]
    me = coords[dev]
    members = [q for q, c in enumerate(coords) if all(c[a] == me[a] for a in me if a not in names)]
    local = list(itertools.product(*(range(s) for s in lead_shape)))
    table = []
    for q in members:
        for loc in local:
            idx = 0
            for e in entries:
                if type(e) is int:
                    idx = idx * lead_shape[e] + loc[e]
                else:
                    idx = idx * sizes[e] + coords[q][e]
            table.append((idx, q, loc))
    table.sort()
    return table


def _ref_collective(eqn, vals, coords, sizes, ex) -> list:
    prim, p = eqn.primitive, eqn.params
    if prim is parallel.axis_index_p:
        return [np.asarray(coords[d][p["axis_name"]], dtype=np.int32) for d in ex.local]
    key = "axes" if "axes" in p else "axis_name"
    entries = p[key] if isinstance(p[key], tuple) else (p[key],)
    k = sum(1 for e in entries if type(e) is int)
    shapes = ", ".join(f"{v.dtype.name}{list(v.shape)}" for v in vals[:1])
    vals = ex.gather(vals, f"{prim.name} over {entries} of {shapes}")
    # Devices with the same members and group get the same result from the collectives
    # whose result does not depend on the position in the group: computed once.
    shared = {} if prim in _SAME_FOR_GROUP else None
    outs = []
    for dev in ex.local:
        lead = vals[dev].shape[:k]
        table = _ref_participants(entries, lead, dev, coords, sizes)
        virt = [vals[q][loc] for _, q, loc in table]  # by combined index
        groups = p.get("axis_index_groups")
        if groups is None:
            groups = [list(range(len(virt)))]
        mine = {}
        for idx, q, loc in table:
            if q == dev:
                mine[loc] = idx
        results = {}
        for loc, idx in mine.items():
            grp = next(g for g in groups if idx in g)
            if shared is None:
                results[loc] = _ref_one(prim, p, virt, list(grp), idx, vals[dev].dtype)
                continue
            skey = (tuple((q, tuple(lc)) for _, q, lc in table), tuple(grp))
            r = shared.get(skey)
            if r is None:
                r = shared[skey] = _ref_one(prim, p, virt, list(grp), idx, vals[dev].dtype)
            results[loc] = r
        varying = prim not in (parallel.pbroadcast_p,) and (
            p.get("axis_index_groups") is not None
            or prim in (parallel.reduce_scatter_p, parallel.all_to_all_p, parallel.ppermute_p)
        )
        if k == 0:
            outs.append(results[()])
        elif varying:
            first = results[next(iter(results))]
            out = np.empty(tuple(lead) + np.shape(first), dtype=first.dtype)
            for loc, r in results.items():
                out[loc] = r
            outs.append(out)
        else:
            outs.append(results[next(iter(results))])
    return outs


def _ref_sum(vals, dtype):
    # Left fold; bfloat16 accumulates in float32 and rounds once (as XLA's CPU all-reduce).
    acc_dtype = np.float32 if np.dtype(dtype).name == "bfloat16" else dtype
    acc = np.array(vals[0], dtype=acc_dtype)
    for v in vals[1:]:
        acc = np.asarray(acc + np.asarray(v, acc_dtype), dtype=acc_dtype)
    return acc.astype(dtype)


def _ref_one(prim, p, virt, grp, me, dtype):
    pos = grp.index(me)
    if prim in (parallel.psum_p, parallel.psum_invariant_p):
        return _ref_sum([virt[i] for i in grp], dtype)
    if prim in (parallel.pmax_p, parallel.pmin_p):
        op = np.maximum if prim is parallel.pmax_p else np.minimum
        acc = np.array(virt[grp[0]], dtype=dtype)
        for i in grp[1:]:
            acc = np.asarray(op(acc, virt[i]), dtype=dtype)
        return acc
    if prim is parallel.pvary_p:
        return virt[me]
    if prim in (parallel.all_gather_p, parallel.all_gather_invariant_p):
        parts = [virt[i] for i in grp]
        a = p["all_gather_dimension"]
        return np.concatenate(parts, axis=a) if p["tiled"] else np.stack(parts, axis=a)
    if prim is parallel.reduce_scatter_p:
        total = _ref_sum([virt[i] for i in grp], dtype)
        sd = p["scatter_dimension"]
        block = np.split(total, len(grp), axis=sd)[pos]
        return block if p["tiled"] else np.squeeze(block, sd)
    if prim is parallel.all_to_all_p:
        parts = [np.split(virt[i], len(grp), axis=p["split_axis"])[pos] for i in grp]
        return np.concatenate(parts, axis=p["concat_axis"])
    if prim is parallel.ppermute_p:
        for s, d in p["perm"]:
            if d == me:
                return virt[s]
        return np.zeros_like(virt[me])
    if prim is parallel.pbroadcast_p:
        return virt[p["source"]]
    raise NotImplementedError(f"shard_map reference: no rule for {prim.name}")


def _ref_ragged(p, ins, coords, sizes, ex) -> list:
    """ragged_all_to_all device by device: each receiver copies, from each member of its
    group, the slices that member addresses to it (no checks: the batched path makes them)."""
    entries = p["axis_name"]
    if any(type(e) is int for e in entries):
        raise NotImplementedError("shard_map reference: ragged_all_to_all over vmapped axes")
    ins = ex.gather(ins, f"ragged_all_to_all over {entries}")
    outs = []
    for dev in ex.local:
        table = _ref_participants(entries, (), dev, coords, sizes)
        members = [q for _, q, _ in table]  # device of each combined index
        me = members.index(dev)
        grp = next((list(g) for g in p["axis_index_groups"] or () if me in g), None)
        grp = grp if grp is not None else list(range(len(members)))
        out = np.array(ins[dev][1], copy=True)
        s = len(ins[dev][2]) // len(grp)
        for src_idx in grp:
            op, _, io, ss, oo, _ = ins[members[src_idx]]
            for t in range(s):
                e = grp.index(me) * s + t
                n, i0, o0 = int(ss[e]), int(io[e]), int(oo[e])
                out[o0 : o0 + n] = op[i0 : i0 + n]
        outs.append(out)
    return outs


_REF_COLLECTIVES = frozenset(parallel.vma_rules)
_SAME_FOR_GROUP = frozenset(
    [parallel.psum_p, parallel.psum_invariant_p, parallel.pmax_p, parallel.pmin_p,
     parallel.all_gather_p, parallel.all_gather_invariant_p]
)  # fmt: skip
