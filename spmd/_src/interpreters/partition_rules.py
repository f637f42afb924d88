"""Per-primitive partition rules for the partitioner (see ``partitioner``'s docstring).

A rule gets the partitioner, the equation context, the per-device operand values and their
states, and the equation's params; it reshards operands as it needs (each reshard records its
reasons), binds the primitive on the per-device blocks with per-device params, and returns the
results with their states. Rules are keyed by primitive *name*: the interpreters layer never
imports the primitive modules.

>>> sorted(partition_rules)[:3]
['argmax', 'argmin', 'broadcast_in_dim']
"""

from __future__ import annotations

import math
from typing import Any

from spmd._src import core
from spmd._src.interpreters.partitioner import (
    NotPartitionable,
    State,
    from_spec,
    partition_rules,
    to_spec,
)
from spmd._src.sharding import NamedSharding

__all__ = ["default", "elementwise"]


def _bind(ctx, vals, params):
    prim = ctx.eqn.primitive
    for k in ("sharding", "out_sharding"):
        if k in params:
            params[k] = None
    out = prim.bind(*vals, **params)
    return list(out) if prim.multiple_results else [out]


def _rep(ndim: int) -> tuple:
    return ((),) * ndim


def _local(shape, spec, sizes) -> tuple:
    return tuple(d // math.prod(sizes[a] for a in e) for d, e in zip(shape, spec))


def _ndim(ctx, k: int) -> int:
    return ctx.eqn.invars[k].aval.ndim


def default(p, ctx, vals, sts, params):
    """No rule: gather every operand to replicated and run the primitive on whole arrays."""
    why = f"no partition rule for {ctx.prim}"
    vals = [
        p.reshard(v, s, _rep(_ndim(ctx, k)), ctx, f"operand {k}", why)
        for k, (v, s) in enumerate(zip(vals, sts))
    ]
    outs = _bind(ctx, vals, params)
    return outs, [State(_rep(v.aval.ndim)) for v in ctx.eqn.outvars]


def elementwise(p, ctx, vals, sts, params):
    """Operands are resharded to the result's spec (the propagation rule's choice); an operand
    of lower rank lines up with the result's trailing dimensions, and a dimension of size 1
    (broadcast against the result's) stays whole."""
    avals = [a.aval for a in ctx.eqn.invars]
    target = p.propagate(ctx, sts)[0]
    out_shape = ctx.eqn.outvars[0].aval.shape
    why = f"{ctx.prim} is elementwise: operands take the result's sharding"
    new = []
    for k, (v, s, a) in enumerate(zip(vals, sts, avals)):
        off = len(target) - a.ndim
        t = tuple(
            target[off + d] if a.shape[d] == out_shape[off + d] else () for d in range(a.ndim)
        )
        new.append(p.reshard(v, s, t, ctx, f"operand {k}", why) if s.spec != t or s.partial else v)
    outs = _bind(ctx, new, params)
    return outs, [State(target) for _ in outs]


partition_rules["select_n"] = elementwise
partition_rules["clamp"] = elementwise


def _reduction(kind: str | None):
    def rule(p, ctx, vals, sts, params):
        (x,), (st,) = vals, sts
        axes = params["axes"]
        spec = st.spec
        if kind is None:
            # No collective combines these: the reduced dimensions come whole.
            t = tuple(() if d in axes else e for d, e in enumerate(spec))
            why = f"{ctx.prim} needs whole reduced dimensions"
            x = p.reshard(x, st, t, ctx, "operand 0", why)
            partial: tuple = ()
            spec = t
        else:
            if st.partial:
                x = p.reshard(x, st, spec, ctx, "operand 0", f"{ctx.prim} of a partial value")
            partial = tuple(a for d in axes for a in spec[d])
        outs = _bind(ctx, [x], params)
        out_spec = tuple(e for d, e in enumerate(spec) if d not in axes)
        origin = (
            f"eqn {ctx.path} ({ctx.prim}) reduces dims {tuple(axes)} split over {partial} locally"
        )
        return outs, [State(out_spec, partial, kind or "sum", origin)]

    return rule


partition_rules["reduce_sum"] = _reduction("sum")
partition_rules["reduce_max"] = _reduction("max")
partition_rules["reduce_min"] = _reduction("min")
for _name in ("reduce_prod", "reduce_and", "reduce_or", "reduce_xor", "argmax", "argmin"):
    partition_rules[_name] = _reduction(None)


def _dot_general(p, ctx, vals, sts, params):
    (lhs, rhs), (ls, rs) = vals, sts
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    lnd, rnd = len(ls.spec), len(rs.spec)
    lfree = [d for d in range(lnd) if d not in lc and d not in lb]
    rfree = [d for d in range(rnd) if d not in rc and d not in rb]
    used: set = set()

    def take(entry):
        e = tuple(a for a in entry if a not in used)
        used.update(e)
        return e

    lt: list = [()] * lnd
    rt: list = [()] * rnd
    # Batch dims first, then free dims (their sharding costs nothing to keep), then contracting
    # dims (sharded on both sides: a local dot of partial sums, summed later).
    for l, r in zip(lb, rb):
        lt[l] = rt[r] = take(ls.spec[l] or rs.spec[r])
    for d in lfree:
        lt[d] = take(ls.spec[d])
    for d in rfree:
        rt[d] = take(rs.spec[d])
    partial: list = []
    for l, r in zip(lc, rc):
        lt[l] = rt[r] = e = take(ls.spec[l] or rs.spec[r])
        partial.extend(e)
    why = "dot_general operands: batch and contracting dims split alike, mesh axes used once"
    if ls.spec != tuple(lt) or ls.partial:
        lhs = p.reshard(lhs, ls, tuple(lt), ctx, "operand 0", why)
    if rs.spec != tuple(rt) or rs.partial:
        rhs = p.reshard(rhs, rs, tuple(rt), ctx, "operand 1", why)
    outs = _bind(ctx, [lhs, rhs], params)
    out_spec = tuple([lt[d] for d in lb] + [lt[d] for d in lfree] + [rt[d] for d in rfree])
    origin = (
        f"eqn {ctx.path} (dot_general) contracts dims {tuple(lc)} of operand 0 and "
        f"{tuple(rc)} of operand 1 split over {tuple(partial)}: a local dot per device"
    )
    return outs, [State(out_spec, tuple(partial), "sum", origin)]


partition_rules["dot_general"] = _dot_general


def _transpose(p, ctx, vals, sts, params):
    (x,), (st,) = vals, sts
    perm = params["permutation"]
    outs = _bind(ctx, [x], params)
    # Moving data keeps a pending sum (or max, min) pending.
    return outs, [State(tuple(st.spec[d] for d in perm), st.partial, st.reduce, st.origin)]


partition_rules["transpose"] = _transpose


def _reshape_groups(a, b):
    out = []
    i = j = 0
    while i < len(a) or j < len(b):
        gi, gj, pa, pb = [], [], 1, 1
        if i < len(a):
            gi.append(i)
            pa *= a[i]
            i += 1
        if j < len(b):
            gj.append(j)
            pb *= b[j]
            j += 1
        while pa != pb:
            if pa < pb and i < len(a):
                gi.append(i)
                pa *= a[i]
                i += 1
            elif j < len(b):
                gj.append(j)
                pb *= b[j]
                j += 1
            else:
                return None
        out.append((gi, gj))
    return out


def _reshape(p, ctx, vals, sts, params):
    (x,), (st,) = vals, sts
    in_shape = ctx.eqn.invars[0].aval.shape
    out_shape = tuple(params["new_sizes"])
    groups = None
    if params.get("dimensions") is None and 0 not in in_shape:
        groups = _reshape_groups(in_shape, out_shape)
    if groups is None:
        return default(p, ctx, vals, sts, params)
    target = list(st.spec)
    out_spec: list = [()] * len(out_shape)
    for gi, gj in groups:
        lead_i = next((d for d in gi if in_shape[d] != 1), None)
        lead_j = next((d for d in gj if out_shape[d] != 1), None)
        sharded = [d for d in gi if st.spec[d]]
        if not sharded:
            continue
        # A device's block of the leading dim is one contiguous run of the flattened group,
        # which is a block of the leading result dim when that dim splits as many ways: keep
        # the longest prefix of the axes that divides it, gather the rest.
        keep: tuple = ()
        if sharded == [lead_i] and lead_j is not None:
            for a in st.spec[lead_i]:
                if out_shape[lead_j] % p.size(keep + (a,)):
                    break
                keep += (a,)
            out_spec[lead_j] = keep
        for d in sharded:
            target[d] = keep if d == lead_i else ()
    why = "reshape merges or splits these dims: only a leading dim's sharding carries over"
    if tuple(target) != st.spec or st.partial:
        x = p.reshard(x, st, tuple(target), ctx, "operand 0", why)
    params["new_sizes"] = _local(out_shape, out_spec, p.sizes)
    outs = _bind(ctx, [x], params)
    return outs, [State(tuple(out_spec))]


partition_rules["reshape"] = _reshape


def _broadcast_in_dim(p, ctx, vals, sts, params):
    x, st = vals[0], sts[0]
    in_shape = ctx.eqn.invars[0].aval.shape
    shape, bd = tuple(params["shape"]), params["broadcast_dimensions"]
    if len(vals) > 1:
        return default(p, ctx, vals, sts, params)
    target = tuple(st.spec[k] if in_shape[k] == shape[d] else () for k, d in enumerate(bd))
    if target != st.spec or st.partial:
        why = "broadcast_in_dim expands size-1 dims: they come whole"
        x = p.reshard(x, st, target, ctx, "operand 0", why)
    out_spec = [()] * len(shape)
    for k, d in enumerate(bd):
        out_spec[d] = target[k]
    params["shape"] = _local(shape, out_spec, p.sizes)
    outs = _bind(ctx, [x], params)
    return outs, [State(tuple(out_spec))]


partition_rules["broadcast_in_dim"] = _broadcast_in_dim


def _squeeze(p, ctx, vals, sts, params):
    (x,), (st,) = vals, sts
    dims = [d % len(st.spec) for d in params["dimensions"]]
    target = tuple(() if d in dims else e for d, e in enumerate(st.spec))
    if target != st.spec or st.partial:
        x = p.reshard(x, st, target, ctx, "operand 0", "squeezed dims come whole")
    outs = _bind(ctx, [x], params)
    return outs, [State(tuple(e for d, e in enumerate(target) if d not in dims))]


partition_rules["squeeze"] = _squeeze


def _slice(p, ctx, vals, sts, params):
    (x,), (st,) = vals, sts
    shape = ctx.eqn.invars[0].aval.shape
    starts, limits = params["start_indices"], params["limit_indices"]
    strides = params["strides"] or (1,) * len(shape)
    whole = [s == 0 and lim == n and k == 1 for s, lim, n, k in zip(starts, limits, shape, strides)]
    target = tuple(e if w else () for e, w in zip(st.spec, whole))
    if target != st.spec or st.partial:
        x = p.reshard(x, st, target, ctx, "operand 0", "sliced dims come whole")
    params["limit_indices"] = _local(limits, target, p.sizes)
    outs = _bind(ctx, [x], params)
    return outs, [State(target)]


partition_rules["slice"] = _slice


def _concatenate(p, ctx, vals, sts, params):
    dim = params["dimension"]
    target = tuple(() if d == dim else e for d, e in enumerate(sts[0].spec))
    why = f"concatenate along dim {dim}: that dim comes whole, the others split alike"
    new = [
        p.reshard(v, s, target, ctx, f"operand {k}", why) if s.spec != target or s.partial else v
        for k, (v, s) in enumerate(zip(vals, sts))
    ]
    outs = _bind(ctx, new, params)
    return outs, [State(target)]


partition_rules["concatenate"] = _concatenate


def _pad(p, ctx, vals, sts, params):
    (x, pv), (st, ps) = vals, sts
    cfg = params["padding_config"]
    target = tuple(e if tuple(c) == (0, 0, 0) else () for e, c in zip(st.spec, cfg))
    if target != st.spec or st.partial:
        x = p.reshard(x, st, target, ctx, "operand 0", "padded dims come whole")
    if ps.partial:
        pv = p.reshard(pv, ps, (), ctx, "operand 1", "the padding value")
    outs = _bind(ctx, [x, pv], params)
    return outs, [State(target)]


partition_rules["pad"] = _pad


def _same_layout(a, b) -> bool:
    """Meshes that differ at most in their axis types."""
    return (
        a.axis_names == b.axis_names
        and a.devices.shape == b.devices.shape
        and all(x.id == y.id for x, y in zip(a.devices.flat, b.devices.flat))
    )


def _sharding_constraint(p, ctx, vals, sts, params):
    (x,), (st,) = vals, sts
    s: Any = params["sharding"]
    ndim = len(st.spec)
    if isinstance(s, NamedSharding):
        # (auto_axes/explicit_axes constrain on the program's mesh with other axis types:
        # the same devices and names, so the same layout.)
        if s.mesh != p.mesh and not _same_layout(s.mesh, p.mesh):
            raise NotPartitionable(
                f"eqn {ctx.path} (sharding_constraint) asks for mesh {s.mesh}, not the program's "
                f"{p.mesh}"
            )
        target = from_spec(s.spec, ndim)
    else:
        # (A device target inside jit keeps the operand's layout: JAX does not check it.)
        target = st.spec
    why = f"sharding_constraint asks for {getattr(s, 'spec', s)}"
    fitted = p.fit(target, ctx.eqn.invars[0].aval.shape)
    if fitted != target:
        # spmd_uneven='pad' keeps an indivisible constraint: the padding is the layout's
        # business; the body splits the dimension as far as it divides.
        why += f", split as far as the dimensions divide: {to_spec(fitted)}"
        target = fitted
    if target != st.spec or st.partial:
        x = p.reshard(x, st, target, ctx, "operand 0", why)
    # The constraint itself is the identity on values: nothing is bound.
    return [x], [State(target)]


partition_rules["sharding_constraint"] = _sharding_constraint
partition_rules["reshard"] = _sharding_constraint


def _copy(p, ctx, vals, sts, params):
    outs = _bind(ctx, vals, params)
    st = sts[0]
    return outs, [State(st.spec, st.partial, st.reduce, st.origin)]


partition_rules["copy"] = _copy


def _observer(p, ctx, vals, sts, params):
    # inspect_sharding: its callback ran when propagation placed the program; the per-device
    # program has nothing to do (gathering its operand would only add collectives).
    return [], []


partition_rules["inspect_sharding"] = _observer


def _shard_map(p, ctx, vals, sts, params):
    """A shard_map already is per-device code over its manual axes: its operands are resharded
    to its in_specs there, and its body runs inline on the blocks. Over the whole mesh that is
    all; over part of it, the body is walked like the program (its values keep their split over
    the other axes, and its results keep it too)."""
    mesh, manual = params["mesh"], set(params["newly_manual_axes"])
    if dict(mesh.shape) != p.sizes:
        raise NotPartitionable(
            f"eqn {ctx.path}: a shard_map over mesh {dict(mesh.shape)} inside a program "
            f"partitioned over {p.sizes}"
        )
    why = "shard_map's in_specs"
    body = params["jaxpr"]
    new, body_sts = [], []
    for k, (v, s, spec) in enumerate(zip(vals, sts, params["in_specs"])):
        want = from_spec(spec, _ndim(ctx, k))
        # Manual axes first in each dimension (the body's blocks), then the operand's own
        # split over the other axes, kept.
        t = tuple(
            w + tuple(a for a in e if a not in manual and a not in w) for w, e in zip(want, s.spec)
        )
        new.append(p.reshard(v, s, t, ctx, f"operand {k}", why) if s.spec != t or s.partial else v)
        body_sts.append(State(tuple(e[len(w) :] for w, e in zip(want, t))))
    if manual >= set(p.sizes):
        outs = core.eval_jaxpr(body.jaxpr, body.consts, *new)
        return list(outs), [
            State(from_spec(s, v.aval.ndim)) for s, v in zip(params["out_specs"], ctx.eqn.outvars)
        ]
    outs, out_sts = p.run(body.jaxpr, body.consts, new, body_sts, path=f"{ctx.path}/")
    res, res_sts = [], []
    for k, (o, st, spec, v) in enumerate(zip(outs, out_sts, params["out_specs"], ctx.eqn.outvars)):
        if st.partial:
            o = p.reshard(o, st, st.spec, ctx, f"result {k}", "shard_map's result")
        placed = from_spec(spec, v.aval.ndim)
        res.append(o)
        res_sts.append(State(tuple(m + e for m, e in zip(placed, st.spec))))
    return res, res_sts


partition_rules["shard_map"] = _shard_map


def _keep_split(p, ctx, vals, sts, params):
    """A collective over a shard_map's manual axes, in a body walked over the other axes:
    elementwise across those, so the operand keeps its split (pending sums resolved first)."""
    (x,), (st,) = vals, sts
    if st.partial:
        x = p.reshard(x, st, st.spec, ctx, "operand 0", f"{ctx.prim} needs whole values")
    return _bind(ctx, [x], params), [State(st.spec)]


for _name in ("psum", "pmax", "pmin", "psum_invariant", "pvary", "ppermute", "pbroadcast"):
    partition_rules[_name] = _keep_split


def _along(key: str, what: str):
    """Primitives that read whole lines along some dims (cumulative ops along ``axis``,
    ``rev`` along ``dimensions``): those dims come whole, the others keep their sharding."""

    def rule(p, ctx, vals, sts, params):
        (x,), (st,) = vals, sts
        dims = params[key]
        dims = {dims} if isinstance(dims, int) else set(dims)
        target = tuple(() if d in dims else e for d, e in enumerate(st.spec))
        if target != st.spec or st.partial:
            x = p.reshard(x, st, target, ctx, "operand 0", f"{ctx.prim} {what}")
        outs = _bind(ctx, [x], params)
        return outs, [State(target)]

    return rule


for _name in ("cumsum", "cumprod", "cummax", "cummin", "cumlogsumexp"):
    partition_rules[_name] = _along("axis", "runs along its axis: that dim comes whole")
partition_rules["rev"] = _along("dimensions", "reverses whole dims")
