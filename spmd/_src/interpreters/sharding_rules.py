"""Sharding propagation: one deterministic rule per primitive.

A rule maps the operands' partition specs (one entry per dimension: None, an axis name, or a
tuple of names; ``None`` for an operand with no mesh sharding) and avals to the result's
spec(s):

    rule(specs_in, avals_in, **params) -> spec     (a list of specs for multiple results)

Eager operations on sharded arrays and jit's forward propagation both read this table. A
primitive without a rule gives a replicated result on the operands' mesh.

On Auto axes the rules reproduce what XLA's propagation chose on the golden sweep
(tests/golden/sharding_jit.json): per dimension the operands' shardings merge (one extending
another wins, conflicting ones keep their common leading axes), a mesh axis two dimensions want
goes to one of them (``resolve_conflicts``), and every result dimension keeps its axes only as
far as their shard count divides its size (``fit``). Results print as JAX prints them: trailing
Nones dropped, except that a jit result placed exactly like the first argument carries that
argument's sharding (``recover_input_sharding``). On Explicit axes (sharding in types)
``explicit_rules`` raise ``ShardingTypeError`` where JAX does, and the spec keeps every
dimension.
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Sequence
from typing import Any

from spmd._src import core
from spmd._src.sharding import NamedSharding, P, SingleDeviceSharding, spec_axes

sharding_rules: dict[core.Primitive, Callable] = {}
# Rules for meshes with Explicit axes (sharding in types): they raise ShardingTypeError where JAX
# does. A primitive without one uses its Auto rule.
explicit_rules: dict[core.Primitive, Callable] = {}
# Primitives whose rule gives a full Sharding of its own (constraints): they set the result's
# sharding even when no operand is sharded.
sets_sharding: set[core.Primitive] = set()
# Of those, the ones whose rule also reads its operands' specs (a shard_map over part of the
# mesh: the other axes' shardings flow through its body). The others get None.
wants_operand_specs: set[core.Primitive] = set()
# prim -> observer(shardings, avals, **params): a primitive that reports the shardings
# propagation gives its operands (inspect_array_sharding inside jit). Observers run once per
# propagation, after its last pass (a constraint's backward pass reruns the forward one), so
# they see the final shardings; a propagation run only to type-check (``effects=False``) runs
# none.
observers: dict[core.Primitive, Callable] = {}
# Primitives whose result on Explicit mesh axes has the sharding a parameter asks for, even
# with typed operands (reshape's and broadcast_in_dim's ``sharding``, as JAX names them, the
# reductions' ``out_sharding``): prim -> parameter name. Other primitives' ``out_sharding``
# places their result only when no operand is placed (or their rule reads it).
sharding_params: dict[core.Primitive, str] = {}
# prim -> rule(shardings, avals, **params) -> result sharding(s): a primitive that places its
# results from its operands' whole shardings (device_put into a memory space keeps the
# operand's sharding, in that memory). It decides alone, before any other rule; such a
# primitive is in ``sets_sharding`` too.
placing_rules: dict[core.Primitive, Callable] = {}
# The observers of the propagation under way, waiting for its last pass (None: none is).
_observed: contextvars.ContextVar = contextvars.ContextVar("spmd_observed", default=None)
_TYPE_CHECK = object()  # _observed's value in a propagation run with effects=False


class ShardingTypeError(Exception):
    """An operation on arrays sharded over Explicit mesh axes whose result sharding is
    ambiguous or illegal (JAX's ``ShardingTypeError``)."""


class _Context:
    """The mesh the rule being run shards over (rules read axis sizes from it)."""

    mesh: Any = None
    explicit: bool = False


ctx = _Context()


def axis_size(entry: Any) -> int:
    """How many shards one spec entry makes on the current mesh."""
    n = 1
    for a in spec_axes(entry):
        n *= ctx.mesh.shape[a]
    return n


def as_entry(axes: Sequence[str]) -> Any:
    """A spec entry naming ``axes`` (None, one name, or a tuple)."""
    axes = tuple(axes)
    return None if not axes else axes[0] if len(axes) == 1 else axes


def dividing_prefix(axes: Sequence[str], size: int, sizes: Any) -> tuple:
    """The longest prefix of ``axes`` whose shard count (``sizes``: axis -> devices) divides
    ``size``."""
    kept, n = [], 1
    for a in axes:
        if size % (n * sizes[a]):
            break
        n *= sizes[a]
        kept.append(a)
    return tuple(kept)


def fit(entry: Any, size: int) -> Any:
    """The longest prefix of ``entry``'s axes whose shard count divides ``size`` (the
    partitioner shards a dimension no further than it divides)."""
    return as_entry(dividing_prefix(spec_axes(entry), size, ctx.mesh.shape))


_SHORT = {
    "float32": "f32",
    "float64": "f64",
    "float16": "f16",
    "bfloat16": "bf16",
    "int32": "i32",
    "int64": "i64",
    "int8": "i8",
    "int16": "i16",
    "uint32": "u32",
    "uint8": "u8",
    "uint64": "u64",
    "bool": "bool",
    "complex64": "c64",
}


def type_str(aval: core.ShapedArray, spec: Sequence[Any] | None, short: bool = True) -> str:
    """``f32[8@x,16]``: an array type with the Explicit axes sharding each dimension."""
    dims = [str(d) for d in aval.shape]
    for i, e in enumerate(spec or ()):
        axes = spec_axes(e)
        if axes:
            dims[i] += "@" + (axes[0] if len(axes) == 1 else f"({','.join(axes)})")
    name = aval.dtype.name
    name = _SHORT.get(name, name) if short else name
    space = getattr(aval, "memory_space", core.DEVICE_SPACE)
    if space is not core.DEVICE_SPACE:  # f32<host>[8@x]
        name += f"<{space.name.lower()}>"
    return f"{name}[{','.join(dims)}]"


def _spec_of(sharding: Any, ndim: int, mesh: Any) -> tuple | None:
    if isinstance(sharding, NamedSharding) and sharding.mesh == mesh:
        s = sharding.spec
        # An unreduced or reduced spec stays a PartitionSpec (a tuple carrying those axes),
        # which rules of higher-order primitives pass through their bodies.
        return s._full_rank(ndim) if s.unreduced or s.reduced else s._normalized(ndim)
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


def _is_explicit(mesh: Any) -> bool:
    return any(t.name == "Explicit" for t in getattr(mesh, "axis_types", ()))


def propagate(
    prim: core.Primitive, shardings: Sequence[Any], avals: Sequence[core.ShapedArray], params
) -> Any:
    """Result sharding(s) of ``prim`` for operands with the given shardings (None where no
    operand has a NamedSharding: the default placement)."""
    out = _propagate(prim, shardings, avals, params)
    if prim in sets_sharding or prim in observers:
        return out  # a constraint's result is what it asks for, unreduced or not
    if reduction_states.carries(shardings, given_sharding(prim, params)):
        return reduction_states.apply(prim, shardings, avals, params, out)
    return out


def _propagate(prim, shardings, avals, params) -> Any:
    if prim in observers:
        return _observe(prim, shardings, avals, params)
    placing = placing_rules.get(prim)
    if placing is not None:
        return placing(shardings, avals, **params)
    call = call_jaxprs.get(prim)
    if call is not None:
        # A call bound eagerly (grad or vmap of a jit, run at once): its body's propagation.
        inner = call(core.JaxprEqn([], [], prim, params))
        return propagate_jaxpr(inner, shardings, _top=False)
    given = given_sharding(prim, params)
    if isinstance(given, NamedSharding) and not prim.multiple_results:
        full = prim in sharding_params and _is_explicit(given.mesh)
        if not any(isinstance(s, NamedSharding) for s in shardings) and not full:
            return given  # asked for (a contraction's out_sharding=): placed so
        if full:
            # On Explicit axes the result has the type asked for (every dimension's entry).
            ndim = prim.abstract_eval(*avals, **params).ndim
            return given.with_spec(given.spec._full_rank(ndim))
    if prim in sets_sharding:
        specs = None
        named = [s for s in shardings if isinstance(s, NamedSharding)]
        if prim in wants_operand_specs and named:
            specs = [
                _spec_of(s, a.ndim, named[0].mesh) if isinstance(s, NamedSharding) else None
                for s, a in zip(shardings, avals)
            ]
        return sharding_rules[prim](specs, avals, **params)
    named = [s for s in shardings if isinstance(s, NamedSharding)]
    if not named:
        return _on_one_device(prim, shardings, avals, params)
    mesh, kind = named[0].mesh, named[0].memory_kind
    specs = [_spec_of(s, a.ndim, mesh) for s, a in zip(shardings, avals)]
    explicit = _is_explicit(mesh)
    full_specs = None
    if explicit and not all(t.name == "Explicit" for t in mesh.axis_types):
        # A mesh with Auto axes too (inside auto_axes/explicit_axes): types carry only the
        # Explicit axes, and the rules of sharding in types see only those; the Auto axes are
        # placed by the Auto rule (below).
        keep = {a for a, t in zip(mesh.axis_names, mesh.axis_types) if t.name == "Explicit"}
        full_specs = specs
        specs = [
            None
            if sp is None
            else tuple(as_entry([a for a in spec_axes(e) if a in keep]) for e in sp)
            for sp in specs
        ]
    rule = (explicit_rules.get(prim) if explicit else None) or sharding_rules.get(prim)
    out_avals = prim.abstract_eval(*avals, **params)
    if not prim.multiple_results:
        out_avals = [out_avals]
    if rule is None:
        replicated = NamedSharding(mesh, P(), memory_kind=kind)
        return [replicated] * len(out_avals) if prim.multiple_results else replicated
    saved = ctx.mesh, ctx.explicit
    ctx.mesh, ctx.explicit = mesh, explicit
    try:
        out = rule(specs, avals, **params)
    finally:
        ctx.mesh, ctx.explicit = saved
    outs = out if prim.multiple_results else [out]
    result = []
    for o, aval in zip(outs, out_avals):
        states = {"unreduced": getattr(o, "unreduced", ()), "reduced": getattr(o, "reduced", ())}
        o = tuple(o) + (None,) * (aval.ndim - len(o))
        if explicit:
            _check_legal(prim, o, aval, specs, avals)
            spec = P(*o, **states)
        else:
            ctx.mesh = mesh
            try:
                o = tuple(fit(e, d) for e, d in zip(_dedupe(o), aval.shape))
            finally:
                ctx.mesh = saved[0]
            spec = _trim(P(*o))
        result.append(NamedSharding(mesh, spec, memory_kind=kind))
    if full_specs is not None and sharding_rules.get(prim) is not None:
        result = _with_auto_axes(prim, result, full_specs, avals, out_avals, params, mesh)
    return result if prim.multiple_results else result[0]


def _with_auto_axes(prim, typed, full_specs, avals, out_avals, params, mesh) -> list:
    """``typed`` (results over the Explicit axes of a mixed mesh) with the Auto axes the Auto
    rule places them on, where those are still free."""
    explicit = {a for a, t in zip(mesh.axis_names, mesh.axis_types) if t.name == "Explicit"}
    saved = ctx.mesh, ctx.explicit
    ctx.mesh, ctx.explicit = mesh, False
    try:
        auto = sharding_rules[prim](full_specs, avals, **params)
        autos = auto if prim.multiple_results else [auto]
        out = []
        for t, a, aval in zip(typed, autos, out_avals):
            spec = list(t.spec._normalized(aval.ndim))
            used = {x for e in spec for x in spec_axes(e)}
            a = tuple(a) + (None,) * (aval.ndim - len(a))
            for i, (e, d) in enumerate(zip(a, aval.shape)):
                extra = [x for x in spec_axes(e) if x not in explicit and x not in used]
                extra = list(spec_axes(fit(as_entry(extra), d))) if extra else []
                if extra:
                    spec[i] = as_entry([*spec_axes(spec[i]), *extra])
                    used.update(extra)
            out.append(NamedSharding(mesh, P(*spec), memory_kind=t.memory_kind))
        return out
    finally:
        ctx.mesh, ctx.explicit = saved


def _check_legal(prim, spec, aval, specs, avals) -> None:
    axes = [a for e in spec for a in spec_axes(e)]
    if len(axes) != len(set(axes)):
        ins = ", ".join(type_str(a, s) for a, s in zip(avals, specs))
        raise ShardingTypeError(
            f"{prim.name} operation with inputs: {ins} produces an illegally sharded result: "
            f"{type_str(aval, spec)} (a mesh axis may shard only one dimension)"
        )


def _trim(spec: P) -> P:
    parts = list(spec)
    while parts and parts[-1] is None:
        parts.pop()
    return P(*parts)


def recover_input_sharding(
    out: Any, out_aval: core.ShapedArray, in_shardings: Sequence[Any], in_avals: Sequence[Any]
) -> Any:
    """A jit result placed like the first argument (same rank, same placement) carries that
    argument's Sharding object, spelled as the user spelled it (JAX does the same), but on a
    mesh with Explicit axes, where results are spelled as their types: one entry per
    dimension (JAX 0.10: ``jit(lambda a: a * 2)`` of an f32[8@i,2] given ``P('i')`` gives
    ``P('i', None)``)."""
    if not isinstance(out, NamedSharding):
        return out
    if _is_explicit(out.mesh):
        spec = out.spec._full_rank(out_aval.ndim)
        return out if tuple(spec) == tuple(out.spec) else out.with_spec(spec)
    if not in_shardings:
        return out
    s, a = in_shardings[0], in_avals[0]
    if (
        isinstance(s, NamedSharding)
        and s.mesh == out.mesh
        and s.memory_kind == out.memory_kind
        and a.ndim == out_aval.ndim
        and s.spec._normalized(a.ndim) == out.spec._normalized(out_aval.ndim)
    ):
        return s
    # Otherwise the compiled program's own spelling: trailing unsharded dimensions dropped.
    trimmed = _trim(out.spec)
    if tuple(trimmed) == tuple(out.spec):
        return out
    return NamedSharding(out.mesh, trimmed, memory_kind=out.memory_kind)


# ---------------------------------------------------------------------------------------------
# Generic rules, used by the helpers that register primitives


def merge_entries(entries: Sequence[Any]) -> Any:
    """One dimension's sharding from several operands': a sharding that extends another wins;
    conflicting ones keep only their common leading axes."""
    return merge_with_source(entries)[0]


def merge_with_source(entries: Sequence[Any]) -> tuple[Any, int]:
    """``merge_entries`` and the index of the first entry whose axes the result starts with
    (which operand the dimension's sharding comes from: ties between dimensions go to the
    earlier operand)."""
    out: tuple = ()
    first = True
    for e in entries:
        axes = spec_axes(e)
        if not axes:
            continue
        if first:
            out, first = axes, False
        elif axes[: len(out)] == out:
            out = axes
        elif out[: len(axes)] != axes:
            n = 0
            while n < min(len(out), len(axes)) and out[n] == axes[n]:
                n += 1
            out = out[:n]
    src = next(
        (i for i, e in enumerate(entries) if out and spec_axes(e)[: len(out)] == out),
        len(entries),
    )
    return as_entry(out), src


def resolve_conflicts(
    entries: Sequence[Any], order: Sequence[Any] | None = None, by_size: bool = True
) -> list:
    """Give each mesh axis to one dimension: dimensions sharded more ways claim their axes
    first (``by_size``; ties, or all when not by size: smaller ``order`` key first, default
    left to right); the others keep their leading axes that are still free."""
    keys = list(order) if order is not None else list(range(len(entries)))

    def key(d):
        return (-axis_size(entries[d]) if by_size else 0, keys[d], d)

    by = sorted(range(len(entries)), key=key)
    used: set = set()
    out: list = [None] * len(entries)
    for d in by:
        kept = []
        for a in spec_axes(entries[d]):
            if a in used:
                break
            kept.append(a)
        used.update(kept)
        out[d] = as_entry(kept)
    return out


def explicit_broadcast(name: str, specs, avals) -> list:
    """Explicit axes: operands agree on each dimension's sharding (or leave it unsharded)."""
    rank = max(a.ndim for a in avals)
    out: list[Any] = [None] * rank
    for spec, aval in zip(specs, avals):
        if spec is None or aval.ndim == 0:
            continue
        off = rank - aval.ndim
        for i, (e, d) in enumerate(zip(spec, aval.shape)):
            if d == 1 or e is None:
                continue
            if out[off + i] is not None and spec_axes(out[off + i]) != spec_axes(e):
                shown = ", ".join(
                    str(tuple(s)) for s, a in zip(specs, avals) if s is not None and a.ndim
                )
                raise ShardingTypeError(
                    f"{name} got incompatible shardings for broadcasting: {shown}."
                )
            out[off + i] = e
    return out


def explicit_elementwise(name: str) -> Callable:
    """The Explicit-axes rule of broadcasting elementwise primitive ``name``."""

    def rule(specs, avals, **params):
        return tuple(explicit_broadcast(name, specs, avals))

    return rule


def elementwise_rule(specs, avals, **params):
    """Broadcasting elementwise: per result dimension, the operands' shardings merged; a mesh
    axis two dimensions want goes to the one sharded more ways, then to the earlier operand."""
    rank = max(a.ndim for a in avals)
    cols: list[list] = [[None] * len(specs) for _ in range(rank)]
    for k, (spec, aval) in enumerate(zip(specs, avals)):
        if spec is None or aval.ndim == 0:
            continue
        offset = rank - aval.ndim
        for i, (e, d) in enumerate(zip(spec, aval.shape)):
            if d != 1:
                cols[offset + i][k] = e
    merged = [merge_with_source(c) for c in cols]
    return tuple(resolve_conflicts([m[0] for m in merged], [m[1] for m in merged]))


def unary_rule(specs, avals, **params):
    spec = specs[0]
    return tuple(spec) if spec is not None else (None,) * avals[0].ndim


def reduction_rule(specs, avals, *, axes, **params):
    spec = specs[0] or (None,) * avals[0].ndim
    return tuple(e for i, e in enumerate(spec) if i not in axes)


def replicated_rule(specs, avals, **params):
    return (None,)


def reshape_spec(spec: Sequence[Any], in_shape, out_shape) -> tuple[tuple, bool]:
    """The result sharding of a reshape, and whether every mesh axis survived.

    Both shapes are split into common factors (each dimension is a run of factors, major
    first). A dimension's axes shard its factors in order, as far as each axis divides what is
    left of the factor; an output dimension is sharded by its factors' axes while the factors
    before are fully sharded."""
    in_cum, out_cum = _cumprods(in_shape), _cumprods(out_shape)
    bounds = sorted(set(in_cum) | set(out_cum))
    if any(b % a for a, b in zip([1, *bounds], bounds)):
        return (None,) * len(out_shape), not any(spec_axes(e) for e in spec)
    factors = [b // a for a, b in zip([1, *bounds], bounds)]

    # factor index ranges of each dimension
    def groups(cum):
        out, start = [], 0
        for c in cum:
            end = bounds.index(c) + 1 if c in bounds else start
            out.append(list(range(start, end)))
            start = end
        return out

    in_groups, out_groups = groups(in_cum), groups(out_cum)
    f_axes: list[list] = [[] for _ in factors]
    f_left = list(factors)
    lost = False
    for e, g in zip(spec, in_groups):
        axes = list(spec_axes(e))
        fi = 0
        while axes and fi < len(g):
            f = g[fi]
            n = ctx.mesh.shape[axes[0]]
            if f_left[f] == 1:
                fi += 1
                continue
            if f_left[f] % n:
                break
            f_axes[f].append(axes.pop(0))
            f_left[f] //= n
        lost = lost or bool(axes)
    out = []
    for g in out_groups:
        kept: list = []
        for f in g:
            kept += f_axes[f]
            if f_left[f] != 1:
                # later factors' axes cannot shard this dimension as one block
                rest = [a for f2 in g[g.index(f) + 1 :] for a in f_axes[f2]]
                lost = lost or bool(rest)
                break
        out.append(as_entry(kept))
    return tuple(out), not lost


def jaxpr_specs(closed: Any, specs: Sequence[Any], avals: Sequence[Any]) -> list:
    """The result specs of a (closed) jaxpr run on operands with the given specs, on the
    mesh of the rule being run (for rules of higher-order primitives)."""
    mesh = ctx.mesh
    shardings = [
        None if s is None else NamedSharding(mesh, s if isinstance(s, P) else P(*s)) for s in specs
    ]
    jaxpr = getattr(closed, "jaxpr", closed)
    outs = propagate_jaxpr(jaxpr, shardings, _top=False)
    res = []
    for o, v in zip(outs, jaxpr.outvars):
        nd = v.aval.ndim
        res.append(_spec_of(o, nd, o.mesh) if isinstance(o, NamedSharding) else (None,) * nd)
    return res


def merge_specs(specs: Sequence[Sequence[Any]]) -> tuple:
    """Several specs of one array merged dimension by dimension (``merge_entries``), unreduced
    or reduced over the axes all of them are."""
    merged = tuple(merge_entries(col) for col in zip(*specs))
    if not specs:
        return merged
    u = frozenset.intersection(*(frozenset(getattr(s, "unreduced", ())) for s in specs))
    r = frozenset.intersection(*(frozenset(getattr(s, "reduced", ())) for s in specs))
    return P(*merged, unreduced=u, reduced=r) if u or r else merged


def _cumprods(shape) -> list:
    out, n = [], 1
    for d in shape:
        n *= d
        out.append(n)
    return out


def _on_one_device(prim: core.Primitive, shardings: Sequence[Any], avals, params) -> Any:
    """Operands committed to one device (no mesh): the result stays there, committed, as JAX's
    (jit's results do the same); operands committed to different devices are refused, with
    JAX's class. None where no operand is committed."""
    one, first = None, -1
    for i, s in enumerate(shardings):
        if type(s) is not SingleDeviceSharding:
            continue
        if one is None:
            one, first = s, i
        elif s._device != one._device:
            raise ValueError(  # JAX's words (its eager operation is a jit of it)
                f"Received incompatible devices for jitted computation. Got argument {first} of "
                f"{prim.name} with shape {avals[first].str_short()} and device ids "
                f"[{one._device.id}] on platform CPU and argument {i} of {prim.name} with shape "
                f"{avals[i].str_short()} and device ids [{s._device.id}] on platform CPU."
            )
    if one is None or not prim.multiple_results:
        return one
    return [one] * len(prim.abstract_eval(*avals, **params))


def propagate_jaxpr(
    jaxpr: core.Jaxpr, in_shardings: Sequence[Any], _top: bool = True, effects: bool = True
) -> list[Any]:
    """Sharding propagation through a jaxpr: the sharding of each output (None: no mesh
    sharding reached it).

    Forward from the arguments' shardings; then, at the top level, backward from sharding
    constraints: a constrained value takes the constraint's sharding, and the values it is
    computed from elementwise take it on the dimensions their own sharding leaves free (a
    second forward pass carries that on). A result placed like the first argument carries
    that argument's sharding object."""
    if not _top:
        env = _forward(jaxpr, in_shardings, {})
    else:
        pending: list | None = [] if effects else None
        token = _observed.set(pending if effects else _TYPE_CHECK)
        try:
            env = _forward(jaxpr, in_shardings, {})
            pinned = _backward_from_constraints(jaxpr, env, in_shardings)
            if pinned:
                if pending:
                    pending.clear()
                env = _forward(jaxpr, in_shardings, pinned)
        finally:
            _observed.reset(token)
        for run in pending or ():
            run()
    outs = [None if type(a) is core.Literal else env.get(id(a)) for a in jaxpr.outvars]
    if not _top:
        return outs
    in_avals = [v.aval for v in jaxpr.invars]
    return [
        recover_input_sharding(s, a.aval, in_shardings, in_avals)
        if type(a) is not core.Literal
        else s
        for s, a in zip(outs, jaxpr.outvars)
    ]


def var_shardings(jaxpr: core.Jaxpr, in_shardings: Sequence[Any]) -> dict:
    """The sharding of each variable of ``jaxpr`` (by id) for inputs sharded so."""
    return _forward(jaxpr, in_shardings, {})


def _forward(jaxpr: core.Jaxpr, in_shardings: Sequence[Any], pinned: dict) -> dict:
    # A constant (a placed array a body closes over) has its sharding in its type, if any.
    env: dict[int, Any] = {id(v): v.sharding for v in jaxpr.constvars if v.sharding is not None}
    for v, s in zip(jaxpr.invars, in_shardings):
        env[id(v)] = pinned.get(id(v), s)

    def read(a):
        return None if type(a) is core.Literal else env.get(id(a))

    for eqn in jaxpr.eqns:
        outs = eqn_out_shardings(eqn, [read(a) for a in eqn.invars])
        for v, s in zip(eqn.outvars, outs):
            env[id(v)] = pinned.get(id(v), s)
    return env


def eqn_out_shardings(eqn: core.JaxprEqn, ins: list) -> list:
    """The shardings of ``eqn``'s results for operands sharded as ``ins`` (None: unplaced)."""
    inner = call_jaxpr_of(eqn)
    if inner is not None:
        return propagate_jaxpr(inner, ins, _top=False)
    if eqn.primitive in observers:
        return _observe(eqn.primitive, ins, [a.aval for a in eqn.invars], eqn.params)
    if any(isinstance(s, NamedSharding) for s in ins) or sets_sharding_here(eqn):
        outs = propagate(eqn.primitive, ins, [a.aval for a in eqn.invars], eqn.params)
        return outs if eqn.primitive.multiple_results else [outs]
    return [None] * len(eqn.outvars)


def sets_sharding_here(eqn: core.JaxprEqn) -> bool:
    """Whether ``eqn`` places its result itself: a constraint, or a primitive given an
    ``out_sharding``."""
    return eqn.primitive in sets_sharding or isinstance(
        given_sharding(eqn.primitive, eqn.params), NamedSharding
    )


def given_sharding(prim: core.Primitive, params: dict) -> Any:
    """The result sharding ``prim``'s parameters ask for (None: none)."""
    return params.get(sharding_params.get(prim, "out_sharding"))


def explicit_types(eqn: core.JaxprEqn, ins: list) -> list:
    """Sharding in types while tracing: the shardings ``eqn``'s results have in their types
    (None where no Explicit mesh axis shards them), for operands typed ``ins``. Raises
    ShardingTypeError where JAX's tracing does. Observers do not run: this is typing."""
    token = _observed.set(_TYPE_CHECK)
    try:
        outs = eqn_out_shardings(eqn, ins)
    finally:
        _observed.reset(token)
    return [explicit_or_none(s) for s in outs]


def type_sharding(x: Any) -> Any:
    """The sharding in ``x``'s type (Explicit mesh axes; None otherwise): an Array's own, a
    traced value's, or, under a derivative, that of the primal value it carries; under vmap,
    the batched value's without the mapped dimension."""
    mapped: list[tuple[int, int]] = []  # (batch dim, ndim of the batched value), inner first
    while True:
        var = getattr(x, "_var", None)
        if var is not None:
            return _unmapped(var.sharding, mapped)
        if hasattr(x, "_sharding"):
            return _unmapped(explicit_or_none(x._sharding), mapped)
        if hasattr(x, "batch_dim") and hasattr(x, "val"):  # a vmap tracer
            if x.batch_dim is not None:
                mapped.append((x.batch_dim, core.get_aval(x.val).ndim))
            x = x.val
            continue
        primal = getattr(x, "primal", None)
        if primal is None or primal is x:
            # A ShapeDtypeStruct standing in for an array: the sharding it names.
            return _unmapped(explicit_or_none(getattr(x, "_sharding_in_type", None)), mapped)
        x = primal


def _unmapped(s: Any, mapped: list[tuple[int, int]]) -> Any:
    for d, ndim in reversed(mapped):  # the outermost map's dimension goes first
        if s is None:
            return None
        spec = list(s.spec._normalized(ndim))
        del spec[d]
        s = s.with_spec(P(*spec))
    return s


def explicit_or_none(s: Any) -> Any:
    """``s`` if it is a NamedSharding on a mesh with Explicit axes (a sharding in a type)."""
    return s if isinstance(s, NamedSharding) and _is_explicit(s.mesh) else None


def _observe(prim: core.Primitive, shardings, avals, params) -> list:
    pending = _observed.get()
    if pending is not _TYPE_CHECK:
        run = lambda: observers[prim](shardings, avals, **params)  # noqa: E731
        if pending is None:
            run()  # eager, or not under a top-level propagation (nothing reruns): report now
        else:
            pending.append(run)
    return []  # observers have no results


# prim -> rule(want, in_avals, out_aval, **params) -> one spec (or None) per operand: what a
# wanted result sharding asks of each operand, for propagation backward from constraints.
# Primitives with the elementwise or unary forward rule pass it through (backward_elementwise)
# without registering.
backward_rules: dict[core.Primitive, Callable] = {}


def backward_elementwise(want, in_avals, out_aval, **params) -> list:
    """Operands of the result's shape take the wanted entries of the dimensions they share
    with it (not of broadcast size-1 ones)."""
    return [
        tuple(w if d == o else None for w, d, o in zip(want, a.shape, out_aval.shape))
        if a.ndim == out_aval.ndim
        else None
        for a in in_avals
    ]


def backward_same(want, in_avals, out_aval, **params) -> list:
    """Every operand of the result's rank takes the wanted spec as it is (slices, pads,
    concatenations: a dimension keeps its mesh axes)."""
    return [tuple(want) if a.ndim == out_aval.ndim else None for a in in_avals]


_CONSTRAINTS = ("sharding_constraint", "reshard")


def _backward_from_constraints(jaxpr: core.Jaxpr, env: dict, in_shardings) -> dict:
    """Shardings that constraints pull back onto the values they constrain (exactly) and, by
    each primitive's backward rule, onto the values those are computed from (on dimensions
    their own sharding leaves free). Arguments that come placed keep their shardings; unplaced
    ones (NumPy arrays, uncommitted values: JAX lets the compiler choose) take what the
    constraints pull back, which then flows forward to the argument's other uses."""
    if not any(e.primitive.name in _CONSTRAINTS for e in jaxpr.eqns):
        return {}
    args = {id(v) for v, s in zip(jaxpr.invars, in_shardings) if s is not None}
    wanted: dict[int, Any] = {}
    for eqn in reversed(jaxpr.eqns):
        prim = eqn.primitive
        if prim.name in _CONSTRAINTS:
            a, out = eqn.invars[0], env.get(id(eqn.outvars[0]))
            if type(a) is not core.Literal and id(a) not in args and isinstance(out, NamedSharding):
                wanted[id(a)] = out
            continue
        if len(eqn.outvars) != 1 or id(eqn.outvars[0]) not in wanted:
            continue
        rule = backward_rules.get(prim)
        if rule is None and sharding_rules.get(prim) in (elementwise_rule, unary_rule):
            rule = backward_elementwise
        if rule is None:
            continue
        w, ov = wanted[id(eqn.outvars[0])], eqn.outvars[0]
        saved, ctx.mesh = ctx.mesh, w.mesh
        try:
            wants = rule(
                w.spec._normalized(ov.aval.ndim),
                [a.aval for a in eqn.invars],
                ov.aval,
                **eqn.params,
            )
            for a, want in zip(eqn.invars, wants):
                if want is None or type(a) is core.Literal or id(a) in args or id(a) in wanted:
                    continue
                fwd = env.get(id(a))
                if isinstance(fwd, NamedSharding) and fwd.mesh != w.mesh:
                    continue
                nd = a.aval.ndim
                have = fwd.spec._normalized(nd) if isinstance(fwd, NamedSharding) else None
                want = tuple(fit(e, d) for e, d in zip(want, a.aval.shape))
                spec = _prefer(have, want, w.mesh)
                wanted[id(a)] = NamedSharding(w.mesh, _trim(P(*spec)), memory_kind=w.memory_kind)
        finally:
            ctx.mesh = saved
    return wanted


def _prefer(have: Sequence[Any] | None, want: Sequence[Any], mesh: Any) -> tuple:
    """``have`` with ``want`` filling the dimensions it leaves unsharded; on a mesh axis both
    use, ``have`` keeps it."""
    if have is None:
        return tuple(want)
    entries = [h if h is not None else w for h, w in zip(have, want)]
    keys = [0 if h is not None else 1 for h in have]
    saved = ctx.mesh
    ctx.mesh = mesh
    try:
        return tuple(resolve_conflicts(entries, keys, by_size=False))
    finally:
        ctx.mesh = saved


# prim -> fn(eqn) -> the jaxpr a call-like equation runs (propagation looks through it).
call_jaxprs: dict[core.Primitive, Callable] = {}


def call_jaxpr_of(eqn: core.JaxprEqn) -> core.Jaxpr | None:
    fn = call_jaxprs.get(eqn.primitive)
    return fn(eqn) if fn is not None else None


def has_constraints(jaxpr: core.Jaxpr) -> bool:
    """Whether propagation must run even for unsharded arguments: a constraint sets a
    sharding, an observer wants to hear one."""
    for eqn in jaxpr.eqns:
        if sets_sharding_here(eqn) or eqn.primitive in observers:
            return True
        inner = call_jaxpr_of(eqn)
        if inner is not None and has_constraints(inner):
            return True
    return False


__all__ = [
    "ShardingTypeError",
    "as_entry",
    "axis_size",
    "call_jaxprs",
    "elementwise_rule",
    "explicit_broadcast",
    "explicit_elementwise",
    "explicit_rules",
    "backward_elementwise",
    "backward_rules",
    "backward_same",
    "dividing_prefix",
    "fit",
    "has_constraints",
    "jaxpr_specs",
    "merge_entries",
    "merge_specs",
    "merge_with_source",
    "propagate",
    "propagate_jaxpr",
    "eqn_out_shardings",
    "explicit_types",
    "explicit_or_none",
    "type_sharding",
    "recover_input_sharding",
    "reduction_rule",
    "replicated_rule",
    "reshape_spec",
    "resolve_conflicts",
    "sets_sharding",
    "wants_operand_specs",
    "sharding_rules",
    "type_str",
    "unary_rule",
]


# Unreduced and reduced operands (P(unreduced=...)): their rules read this module's.
from spmd._src.interpreters import reduction_states  # noqa: E402
