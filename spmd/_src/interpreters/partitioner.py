"""The partitioner: a global program and its inputs' shardings -> an SPMD body over the mesh.

GSPMD-lite. The equations of the global jaxpr are walked in order with a *state* per value:
its spec (per dimension, the tuple of mesh axes that split it, first axis major) and the mesh
axes over which it is still a *partial sum* (a local dot or sum over a sharded dimension leaves
one; it is summed only when a consumer needs the value). For each equation a partition rule
(``partition_rules``, keyed by primitive name) decides which specs its operands must have and
what spec its results get; ``Partitioner.reshard`` inserts the collectives that move an operand
from the spec it has to the spec needed, in this order:

1. a pending partial sum: ``psum_scatter`` when the needed spec splits a dimension over exactly
   those axes (the sum and the split in one step), else ``psum``;
2. ``all_to_all`` when a mesh axis moves from the minor end of one dimension to another;
3. ``all_gather`` (tiled) of the axes a dimension must lose;
4. a dynamic slice at ``axis_index`` for axes a dimension must gain (no communication).

Every inserted collective is recorded as a ``Reason``: which equation, which operand, which
dimension and mesh axes, and why. A primitive without a partition rule has its operands
gathered to replicated and runs on the whole arrays ("no partition rule for <prim>").

The partitioner builds nothing itself: it binds the global program's primitives on per-device
values and asks an *emitter* (``Collectives``; ``spmd._src.lowering`` gives the real one, built
on ``lax.parallel``) for the collectives, all under whatever trace is current -- traced inside
a shard_map body context, the walk *is* the body.

Numerics: elementwise operations and data movement give the global program's bits. A sum or
contraction over a sharded dimension is a local sum per device, then a ``psum`` that folds the
per-device partial results left to right in device order; NumPy's global sum groups the terms
differently, so float results can differ in the last bits (integers and exactly representable
sums are equal).

>>> # body, in_specs, out_specs, reasons: see spmd._src.lowering.partition
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from spmd._src import core
from spmd._src.interpreters import batching
from spmd._src.interpreters import sharding_rules as sr
from spmd._src.sharding import NamedSharding, P, spec_axes

__all__ = [
    "Collectives",
    "NotPartitionable",
    "Partitioner",
    "Reason",
    "State",
    "fit_spec",
    "from_spec",
    "is_elementwise",
    "partition_rules",
    "to_spec",
]

Spec = tuple  # one tuple of mesh axis names per dimension


def from_spec(spec: Any, ndim: int) -> Spec:
    """A PartitionSpec (or None: replicated) as one tuple of axes per dimension."""
    if spec is None:
        return ((),) * ndim
    parts = list(spec) + [None] * (ndim - len(spec))
    return tuple(tuple(spec_axes(e)) for e in parts[:ndim])


def to_spec(spec: Spec) -> P:
    """The PartitionSpec of a per-dimension axes tuple (trailing replicated dims dropped)."""
    parts: list[Any] = [None if not e else e[0] if len(e) == 1 else tuple(e) for e in spec]
    while parts and parts[-1] is None:
        parts.pop()
    return P(*parts)


class NotPartitionable(ValueError):
    """The program holds something the partitioner cannot express in one body over the whole
    mesh (a shard_map over part of the mesh, a dimension that does not divide over the axes
    it must be split over): under ``spmd_partition='always'`` it runs unpartitioned."""


class State:
    """What the walk knows about a per-device value: its spec and pending partial-sum axes."""

    __slots__ = ("spec", "partial", "reduce", "origin")

    def __init__(
        self, spec: Spec, partial: tuple = (), reduce: str = "sum", origin: str = ""
    ) -> None:
        self.spec, self.partial, self.reduce = tuple(spec), tuple(partial), reduce
        # Where a pending partial result comes from (for the reason of the collective that
        # finally combines it).
        self.origin = origin

    def __repr__(self) -> str:
        p = f" partial-{self.reduce}{self.partial}" if self.partial else ""
        return f"{to_spec(self.spec)}{p}"


class Reason:
    """Why one collective was inserted: equation (index path, primitive), operand, dimension,
    mesh axes, the collective, and a sentence."""

    __slots__ = ("eqn", "primitive", "operand", "dim", "axes", "collective", "why")

    def __init__(self, eqn, primitive, operand, dim, axes, collective, why) -> None:
        self.eqn, self.primitive, self.operand = eqn, primitive, operand
        self.dim, self.axes, self.collective, self.why = dim, tuple(axes), collective, why

    def __str__(self) -> str:
        dim = f" dim {self.dim}" if self.dim is not None else ""
        where = self.primitive if self.eqn is None else f"eqn {self.eqn} ({self.primitive})"
        what = " ".join(w for w in (where, self.operand) if w)
        return f"{self.collective} over {self.axes}: {what}{dim}: {self.why}"

    __repr__ = __str__


class Collectives:
    """The emitter protocol: each method returns the new per-device value. ``mark`` attaches a
    Reason to the value just produced (the lowering keeps it with the program)."""

    def psum(self, x, axes): ...
    def pmax(self, x, axes): ...
    def pmin(self, x, axes): ...
    def psum_scatter(self, x, axes, dim): ...
    def all_gather(self, x, axes, dim): ...
    def all_to_all(self, x, axes, split_dim, concat_dim): ...
    def slice(self, x, axes, dim, block): ...
    def once(self, eqn, vals, axes):
        """Bind ``eqn`` on ``vals`` so that its debug callbacks (its own, or those in the
        loops and branches it holds) run on the first device of ``axes`` only."""

    def mark(self, x, reason: Reason) -> None: ...


# prim name -> rule(p: Partitioner, ctx: Ctx, vals, states, params) -> (outs, out_states)
partition_rules: dict[str, Callable] = {}


class Ctx:
    """The equation a rule is partitioning (for reasons)."""

    __slots__ = ("path", "prim", "eqn")

    def __init__(self, path: str, eqn: core.JaxprEqn) -> None:
        self.path, self.prim, self.eqn = path, eqn.primitive.name, eqn


class Partitioner:
    """Walks a jaxpr on per-device values, inserting collectives (see the module docstring)."""

    def __init__(self, mesh: Any, emit: Collectives) -> None:
        self.mesh = mesh
        self.sizes = dict(mesh.shape)
        self.emit = emit
        self.reasons: list[Reason] = []

    def propagate(self, ctx: Ctx, sts: Sequence[State]) -> list[Spec]:
        """The result specs sharding propagation gives ``ctx``'s equation for operands in
        states ``sts`` (through ``sharding_rules.propagate``, as jit's own pass does)."""
        eqn = ctx.eqn
        shs = [NamedSharding(self.mesh, to_spec(s.spec)) for s in sts]
        avals = [a.aval for a in eqn.invars]
        got = sr.propagate(eqn.primitive, shs, avals, eqn.params)
        gots = got if eqn.primitive.multiple_results else [got]
        return [
            from_spec(g.spec if isinstance(g, NamedSharding) else None, v.aval.ndim)
            for g, v in zip(gots, eqn.outvars)
        ]

    def size(self, axes: Sequence[str]) -> int:
        return math.prod(self.sizes[a] for a in axes)

    def fit(self, spec: Spec, shape: Sequence[int]) -> Spec:
        """``spec`` with each dimension split only over the leading mesh axes whose shards
        divide its (global) size: a dimension that does not divide (``spmd_uneven='pad'``
        lays such shards out padded) is computed split as far as it divides."""
        return fit_spec(spec, shape, self.sizes)

    def _note(self, x, ctx, operand, dim, axes, collective, why):
        r = Reason(ctx.path, ctx.prim, operand, dim, axes, collective, why)
        self.reasons.append(r)
        self.emit.mark(x, r)
        return x

    # -- resharding ----------------------------------------------------------------------
    def reshard(self, x, st: State, dst: Spec, ctx: Ctx, operand: str, why: str):
        """Move ``x`` (state ``st``) to spec ``dst`` with no partial sums left."""
        cur = list(st.spec)
        dst = tuple(dst)
        if st.partial:
            x = self._resolve_partial(x, st, cur, dst, ctx, operand, why)
        # all_to_all: axis a leaves the minor end of dim i and joins the minor end of dim j.
        moved = True
        while moved:
            moved = False
            for i, ci in enumerate(cur):
                if not ci or dst[i][: len(ci)] == ci:
                    continue
                a = ci[-1]
                if dst[i] != ci[:-1]:
                    continue
                for j, cj in enumerate(cur):
                    n = self.sizes[a]
                    if j != i and dst[j] == cj + (a,) and x.shape[j] % n == 0:
                        x = self.emit.all_to_all(x, (a,), j, i)
                        self._note(
                            x, ctx, operand, i, (a,), "all_to_all",
                            f"{why}: move mesh axis {a!r} from dim {i} to dim {j}",
                        )  # fmt: skip
                        cur[i], cur[j] = ci[:-1], cj + (a,)
                        moved = True
                        break
                if moved:
                    break
        for d, (c, t) in enumerate(zip(cur, dst)):
            k = 0
            while k < len(c) and k < len(t) and c[k] == t[k]:
                k += 1
            if k < len(c):
                axes = c[k:]
                x = self.emit.all_gather(x, axes, d)
                self._note(
                    x, ctx, operand, d, axes, "all_gather",
                    f"{why}: dim {d} must be {_entry(t)}, is {_entry(c)}",
                )  # fmt: skip
                cur[d] = c[:k]
        for d, (c, t) in enumerate(zip(cur, dst)):
            if len(t) > len(c):
                axes = t[len(c) :]
                n = self.size(axes)
                if x.shape[d] % n:
                    raise NotPartitionable(
                        f"partitioner: eqn {ctx.path} ({ctx.prim}) {operand}: dimension {d} of "
                        f"size {x.shape[d]} per device does not divide over mesh axes {axes} "
                        f"({n} devices)"
                    )
                x = self.emit.slice(x, axes, d, x.shape[d] // n)
                self._note(
                    x, ctx, operand, d, axes, "dynamic_slice",
                    f"{why}: dim {d} must be {_entry(t)}, is {_entry(c)} (local slice, "
                    "no communication)",
                )  # fmt: skip
                cur[d] = t
        return x

    def _resolve_partial(self, x, st, cur, dst, ctx, operand, why):
        axes = st.partial
        if st.reduce != "sum":
            fn = self.emit.pmax if st.reduce == "max" else self.emit.pmin
            x = fn(x, axes)
            why = f"{why}: {st.origin}; the per-device results are combined"
            return self._note(x, ctx, operand, None, axes, f"p{st.reduce}", why)
        for d, (c, t) in enumerate(zip(cur, dst)):
            n = self.size(axes)
            if t[: len(c)] == c and set(t[len(c) :]) == set(axes) and x.shape[d] % n == 0:
                order = t[len(c) :]
                x = self.emit.psum_scatter(x, order, d)
                cur[d] = t
                return self._note(
                    x, ctx, operand, d, order, "psum_scatter",
                    f"{why}: {st.origin}; the partial sums are summed and split over dim {d}",
                )  # fmt: skip
        x = self.emit.psum(x, axes)
        return self._note(
            x, ctx, operand, None, axes, "psum", f"{why}: {st.origin}; the partial sums are summed"
        )

    # -- the walk ------------------------------------------------------------------------
    def run(self, jaxpr: core.Jaxpr, consts, args, states, path: str = "") -> tuple:
        """Evaluate ``jaxpr`` on per-device ``args`` with the given states: (outs, states)."""
        env: dict[int, tuple] = {}
        for v, c in zip(jaxpr.constvars, consts):
            env[id(v)] = (c, State(((),) * len(getattr(c, "shape", ()))))
        for v, a, s in zip(jaxpr.invars, args, states):
            env[id(v)] = (a, s)

        def read(a):
            if type(a) is core.Literal:
                return a.val, State(())
            return env[id(a)]

        for i, eqn in enumerate(jaxpr.eqns):
            ins = [read(a) for a in eqn.invars]
            vals = [v for v, _ in ins]
            sts = [s for _, s in ins]
            ctx = Ctx(f"{path}{i}", eqn)
            inner = sr.call_jaxpr_of(eqn)
            if inner is not None:
                consts_i = _call_consts(eqn)
                outs, out_sts = self.run(inner, consts_i, vals, sts, path=f"{path}{i}/")
            elif eqn.primitive.name not in partition_rules and batching.runs_per_device(
                eqn.primitive, eqn.params
            ):
                # A debug callback of the global program (or a loop or branch holding one)
                # happens once, on global values: the operands are gathered, and the callbacks
                # run on the first device only. (A primitive with a partition rule of its own
                # handles its callbacks: a shard_map's are per-device code already.)
                why = f"{eqn.primitive.name} has a debug callback: it sees the global values, once"
                vals = [
                    self.reshard(v, s, ((),) * a.aval.ndim, ctx, f"operand {k}", why)
                    if s.spec != ((),) * a.aval.ndim or s.partial
                    else v
                    for k, (v, s, a) in enumerate(zip(vals, sts, eqn.invars))
                ]
                outs = self.emit.once(eqn, vals, tuple(self.mesh.axis_names))
                if not eqn.primitive.multiple_results:
                    outs = [outs]
                out_sts = [State(((),) * v.aval.ndim) for v in eqn.outvars]
            else:
                rule = partition_rules.get(eqn.primitive.name) or _rule_for(eqn.primitive)
                outs, out_sts = rule(self, ctx, vals, sts, dict(eqn.params))
                outs, out_sts = self._follow_propagation(ctx, sts, outs, out_sts)
            for v, o, s in zip(eqn.outvars, outs, out_sts):
                env[id(v)] = (o, s)
        res = [read(a) for a in jaxpr.outvars]
        return [v for v, _ in res], [s for _, s in res]

    def _follow_propagation(self, ctx, sts, outs, out_sts):
        """Results of primitives with a propagation rule of their own (not the generic
        elementwise/reduction ones, which the partition rules already follow) are resharded
        to the spec that rule gives; a pending partial result whose spec already agrees stays
        pending (a later consumer may sum and split it in one step)."""
        prim = ctx.eqn.primitive
        rule = sr.sharding_rules.get(prim)
        if rule is None or prim in sr.sets_sharding or rule in _GENERIC:
            return outs, out_sts
        wants = self.propagate(ctx, sts)
        new_outs, new_sts = [], []
        for k, (o, st, t) in enumerate(zip(outs, out_sts, wants)):
            if t != st.spec:
                why = f"sharding propagation gives the result {to_spec(t)}"
                o = self.reshard(o, st, t, ctx, f"result {k}", why)
                st = State(t)
            new_outs.append(o)
            new_sts.append(st)
        return new_outs, new_sts


_GENERIC = (sr.elementwise_rule, sr.unary_rule, sr.reduction_rule, sr.replicated_rule)


def fit_spec(spec: Spec, shape: Sequence[int], sizes: dict) -> Spec:
    """Per dimension, the longest run of leading axes of ``spec`` whose shards divide the
    dimension's size (see ``Partitioner.fit``)."""
    return tuple(sr.dividing_prefix(e, d, sizes) for e, d in zip(spec, shape))


def _entry(e: tuple) -> str:
    return "replicated" if not e else f"split over {e}"


def _call_consts(eqn: core.JaxprEqn) -> list:
    for p in eqn.params.values():
        if isinstance(p, core.ClosedJaxpr):
            return list(p.consts)
    return []


def _rule_for(prim: core.Primitive) -> Callable:
    from spmd._src.interpreters import partition_rules as pr  # lazy: the rules import us

    if is_elementwise(prim):
        return pr.elementwise
    return pr.default


def is_elementwise(prim: core.Primitive) -> bool:
    """Registered by lax's elementwise helpers (``defvectorized``/``defbroadcasting``): the
    generic propagation rule *and* the generic batching rule. (The propagation rule alone does
    not tell: cumulative ops and ``rev`` keep their operand's spec but are not elementwise.)"""
    rule = sr.sharding_rules.get(prim)
    if rule is not sr.elementwise_rule and rule is not sr.unary_rule:
        return False
    batcher = batching.primitive_batchers.get(prim)
    name = getattr(batcher, "__qualname__", "")
    return name.startswith(("_vectorized_batcher.", "_broadcast_batcher."))
