"""Traced, Lowered and Compiled (``jit(f).trace/.lower/.compile``) and the partitioned program.

``jit(f).lower(*args)`` over sharded arguments runs the partitioner
(``interpreters.partitioner``): the global program becomes one ``shard_map`` over the mesh
whose body works on per-device blocks, with the collectives its rules need. ``as_text()``
prints that body, each inserted collective preceded by a comment giving its reason;
``compile().cost_analysis()`` counts per-device flops and bytes moved. Over unsharded
arguments the program is the traced jaxpr itself.

Bytes moved per device, for a per-device operand of B bytes over n devices: all_gather
(n-1)*B (the other blocks arrive); psum, pmax, pmin 2*(n-1)/n*B (a ring all-reduce: reduce
scatter then all-gather); psum_scatter and all_to_all (n-1)/n*B; a dynamic slice at
axis_index 0 (no communication). The same formulas applied to the collectives of XLA's HLO
give the comparison in docs/partitioner.md.

>>> # spmd.jit(f).lower(x_sharded).as_text()
"""

from __future__ import annotations

import math
import weakref
from typing import Any

import numpy as np

from spmd._src import compiled_call, core, dispatch, memory_spaces
from spmd._src import tree_util as tu
from spmd._src.array import Array
from spmd._src.core import ClosedJaxpr, PPContext, ShapedArray
from spmd._src.core_printing import pp_eqn, pp_vars
from spmd._src.interpreters import partial_eval as pe
from spmd._src.interpreters import partition_rules as _rules  # noqa: F401  (registers rules)
from spmd._src.interpreters import sharding_rules
from spmd._src.interpreters.partitioner import (
    Collectives,
    NotPartitionable,
    Partitioner,
    State,
    fit_spec,
    from_spec,
    is_elementwise,
    to_spec,
)
from spmd._src.lax import callback, parallel
from spmd._src.lax import elementwise as lax_ew
from spmd._src.lax.indexing.slicing import dynamic_slice_in_dim
from spmd._src.sharding import NamedSharding, P

__all__ = ["Compiled", "Lowered", "Partitioned", "Traced", "partition", "run_partitioned"]


# ---------------------------------------------------------------------------------------------
# The emitter: collectives on per-device values, bound under the body's trace


class _Emitter(Collectives):
    def __init__(self) -> None:
        self.marks: dict[int, Any] = {}  # id(body var) -> Reason

    def psum(self, x, axes):
        return parallel.psum(x, tuple(axes))

    def pmax(self, x, axes):
        return parallel.pmax(x, tuple(axes))

    def pmin(self, x, axes):
        return parallel.pmin(x, tuple(axes))

    def psum_scatter(self, x, axes, dim):
        return parallel.psum_scatter(x, tuple(axes), scatter_dimension=dim, tiled=True)

    def all_gather(self, x, axes, dim):
        return parallel.all_gather(x, tuple(axes), axis=dim, tiled=True)

    def all_to_all(self, x, axes, split_dim, concat_dim):
        return parallel.all_to_all(x, tuple(axes), split_dim, concat_dim, tiled=True)

    def slice(self, x, axes, dim, block):
        idx = parallel.axis_index(tuple(axes))
        return dynamic_slice_in_dim(x, idx * block, block, axis=dim)

    def once(self, eqn, vals, axes):
        if eqn.primitive not in callback.mask_rules and core._jaxprs_in_params(eqn.params):
            raise NotPartitionable(
                f"{eqn.primitive.name} holds a debug callback that spmd cannot confine to one "
                "device"
            )
        first = None
        for a in axes:
            at0 = lax_ew.eq(parallel.axis_index(a), np.int32(0))
            first = at0 if first is None else lax_ew.bitwise_and(first, at0)
        if first is None:
            return eqn.primitive.bind(*vals, **eqn.params)
        with callback.effects_where(first):
            return callback.rebind_masked(eqn, vals)

    def mark(self, x, reason) -> None:
        var = getattr(x, "_var", None)
        if var is not None:
            self.marks[id(var)] = reason


# ---------------------------------------------------------------------------------------------
# partition


class Partitioned:
    """A global program rewritten as a shard_map body: ``body`` (per-device jaxpr; its first
    ``n_consts`` operands are the program's constants, replicated), ``in_specs``,
    ``out_specs``, ``reasons`` (one per inserted collective, in order), ``run`` (NumPy
    arrays in, NumPy arrays out, global)."""

    def __init__(self, body, consts, mesh, in_specs, out_specs, reasons, marks, name) -> None:
        self.body, self.consts, self.mesh = body, consts, mesh
        self.in_specs, self.out_specs = tuple(in_specs), tuple(out_specs)
        self.reasons, self._marks, self.name = reasons, marks, name
        self._run = None

    def params(self) -> dict:
        return dict(
            jaxpr=self.body,
            mesh=self.mesh,
            in_specs=tuple([P()] * len(self.consts)) + self.in_specs,
            out_specs=self.out_specs,
            check_vma=False,
            newly_manual_axes=frozenset(self.mesh.axis_names),
        )

    def run(self, *args) -> list:
        if self._run is None:
            from spmd._src.shard_map import shard_map_p  # lazy: shard_map sits beside us

            params = self.params()
            n = len(self.consts)
            avals = [v.aval for v in self.body.jaxpr.invars[n:]]
            g_avals = [
                ShapedArray(_global(a.shape, s, self.mesh), a.dtype, a.weak_type)
                for a, s in zip(avals, self.in_specs)
            ]
            consts = self.consts

            def top(*xs):
                return shard_map_p.bind(*consts, *xs, **params)

            # (Compiling traces the body batched over the devices: untyped, as partition's.)
            with memory_spaces.untyped():
                closed = pe.trace_to_jaxpr(top, g_avals)
                self._run = dispatch.compile_jaxpr(closed.jaxpr, closed.consts)
        return list(self._run(*args))

    def as_text(self) -> str:
        """The body, one equation a line, each collective after a comment with its reason."""
        j = self.body.jaxpr
        ctx = PPContext()
        mesh = ", ".join(f"{k!r}: {v}" for k, v in self.mesh.shape.items())
        cost = self.cost_analysis()
        lines = [
            f"# jit({self.name}) partitioned into one shard_map over Mesh({mesh})",
            f"# in_specs={_specs(self.in_specs)} out_specs={_specs(self.out_specs)}",
            f"# {len(self.reasons)} collective(s) inserted; per device: {cost['flops']:g} flops,"
            f" {cost['bytes moved']:g} bytes moved",
        ]
        if self.consts:
            lines.append(f"# the first {len(self.consts)} operand(s): constants, replicated")
        head = pp_vars(j.invars, ctx).format(10**6)
        lines.append(f"{{ lambda ; {head}. let")
        for e in j.eqns:
            r = next((self._marks[id(v)] for v in e.outvars if id(v) in self._marks), None)
            if r is not None:
                lines.append(f"    # {r}")
            for ln in pp_eqn(e, ctx).format(96).splitlines():
                lines.append("    " + ln)
        outs = pp_vars(j.outvars, ctx, separator=",", shapes=False).format(10**6)
        lines.append(f"  in ({outs}{',' if len(j.outvars) == 1 else ''}) }}")
        return "\n".join(lines)

    def cost_analysis(self) -> dict:
        """Per-device flops and bytes moved, in total and per primitive."""
        return _cost(self.body.jaxpr.eqns, dict(self.mesh.shape))


def _cost(eqns, sizes) -> dict:
    """Flops and bytes moved of ``eqns`` over a mesh of axis ``sizes``, in total and per
    primitive."""
    out: dict[str, float] = {"flops": 0.0, "bytes moved": 0.0}
    for e in eqns:
        flops, moved = _eqn_cost(e, sizes)
        name = e.primitive.name
        if flops:
            out["flops"] += flops
            out[f"flops {name}"] = out.get(f"flops {name}", 0.0) + flops
        if moved:
            out["bytes moved"] += moved
            out[f"bytes moved {name}"] = out.get(f"bytes moved {name}", 0.0) + moved
    return out


def _specs(specs) -> str:
    return "(" + ", ".join(str(s) for s in specs) + ("," if len(specs) == 1 else "") + ")"


def _global(shape, spec, mesh) -> tuple:
    sp = from_spec(spec, len(shape))
    return tuple(d * math.prod(mesh.shape[a] for a in e) for d, e in zip(shape, sp))


def _axes_of(params) -> tuple:
    a = params.get("axes", params.get("axis_name", ()))
    return tuple(a) if isinstance(a, (tuple, list)) else (a,)


# Collectives by how they move bytes (a shard_map body's own ones count too).
_REDUCING = ("psum", "psum_invariant", "pmax", "pmin")
_GATHERING = ("all_gather", "all_gather_invariant")
_COLLECTIVES = (*_REDUCING, *_GATHERING, "reduce_scatter", "all_to_all", "ppermute")


def _eqn_cost(e, sizes) -> tuple[float, float]:
    name = e.primitive.name
    if name in _COLLECTIVES:
        n = math.prod(sizes[a] for a in _axes_of(e.params) if isinstance(a, str))
        b = sum(a.aval.size * a.aval.dtype.itemsize for a in e.invars)
        if name in _GATHERING:
            return 0.0, float((n - 1) * b)
        if name in _REDUCING:
            return 0.0, 2.0 * (n - 1) / n * b
        if name == "ppermute":
            return 0.0, float(b)  # at most one block sent per device
        return 0.0, (n - 1) / n * b
    if name == "dot_general":
        (lc, _), _ = e.params["dimension_numbers"]
        k = math.prod(e.invars[0].aval.shape[d] for d in lc)
        return 2.0 * e.outvars[0].aval.size * k, 0.0
    if is_elementwise(e.primitive):
        return float(sum(v.aval.size for v in e.outvars)), 0.0
    if sharding_rules.sharding_rules.get(e.primitive) is sharding_rules.reduction_rule:
        return float(e.invars[0].aval.size), 0.0
    return 0.0, 0.0


def partition(closed: ClosedJaxpr, mesh, in_specs, out_specs=None, name: str = "f") -> Partitioned:
    """Rewrite ``closed`` (global) into a shard_map body over ``mesh`` for inputs split by
    ``in_specs``; results end split by ``out_specs`` (default: sharding propagation's)."""
    from spmd._src.shard_map_check import _BodyContext  # lazy: shard_map sits beside us

    jaxpr = closed.jaxpr
    in_specs = [P() if s is None else s for s in in_specs]
    if out_specs is None:
        in_s = [NamedSharding(mesh, s) for s in in_specs]
        outs = sharding_rules.propagate_jaxpr(jaxpr, in_s, effects=False)
        out_specs = [o.spec if isinstance(o, NamedSharding) else P() for o in outs]
    out_specs = [P() if s is None else s for s in out_specs]
    sizes = dict(mesh.shape)
    # Uneven placements (spmd_uneven='pad') are split in the body only as far as each
    # dimension divides; the padded layout stays with the Arrays outside.
    in_specs = [_fitted(s, v.aval, sizes) for s, v in zip(in_specs, jaxpr.invars)]
    out_specs = [_fitted(s, v.aval, sizes) for s, v in zip(out_specs, jaxpr.outvars)]
    pd_avals = []
    for v, s in zip(jaxpr.invars, in_specs):
        a = v.aval
        sp = from_spec(s, a.ndim)
        pd_avals.append(
            ShapedArray(
                tuple(d // math.prod(sizes[x] for x in e) for d, e in zip(a.shape, sp)),
                a.dtype,
                a.weak_type,
            )
        )
    emit = _Emitter()
    part = Partitioner(mesh, emit)

    def body(*blocks):
        states = [State(from_spec(s, v.aval.ndim)) for v, s in zip(jaxpr.invars, in_specs)]
        outs, sts = part.run(jaxpr, closed.consts, blocks, states)
        res = []
        for k, (o, st, s, v) in enumerate(zip(outs, sts, out_specs, jaxpr.outvars)):
            t = from_spec(s, v.aval.ndim)
            if st.spec != t or st.partial:
                ctx = _OutCtx(k)
                o = part.reshard(o, st, t, ctx, "", f"the result has out_spec {s}")
            res.append(o)
        return res

    manual = tuple(mesh.axis_names)
    # (Memory spaces are no layout: the body's blocks and its index arrays mix them freely.)
    with _BodyContext(mesh, manual, False), memory_spaces.untyped():
        body_closed = pe.trace_to_jaxpr(body, pd_avals, pe.DebugInfo("partition", name, None))
    consts: list = []
    if body_closed.consts:
        j, consts = pe.convert_constvars_jaxpr(body_closed)
        body_closed = ClosedJaxpr(j, [])
    out_specs = [to_spec(from_spec(s, v.aval.ndim)) for s, v in zip(out_specs, jaxpr.outvars)]
    return Partitioned(
        body_closed, consts, mesh, in_specs, out_specs, part.reasons, emit.marks, name
    )


def _fitted(spec, aval, sizes) -> P:
    sp = from_spec(spec, aval.ndim)
    fit = fit_spec(sp, aval.shape, sizes)
    return spec if fit == sp else to_spec(fit)


class _OutCtx:
    def __init__(self, k: int) -> None:
        self.path, self.prim, self.eqn = None, f"output {k}", None


# ---------------------------------------------------------------------------------------------
# jit's side: which mesh and specs, cached per program and placement

_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def partitioned_for(entry, in_s, out_s, name: str = "f") -> Partitioned | None:
    """The partitioned program of a jit cache ``entry`` for arguments and results placed as
    ``in_s``/``out_s`` (Shardings or None); None when no NamedSharding is among them."""
    named = [s for s in (*in_s, *out_s) if isinstance(s, NamedSharding)]
    if not named:
        return None
    mesh = named[0].mesh

    def specs(shs, avals):
        return tuple(
            P(*s.spec._normalized(a.ndim))
            if isinstance(s, NamedSharding) and s.mesh == mesh
            else P()
            for s, a in zip(shs, avals)
        )

    in_specs = specs(in_s, entry.jaxpr.in_avals)
    out_specs = specs(out_s, entry.jaxpr.out_avals)
    key = (mesh, in_specs, out_specs)
    per = _cache.setdefault(entry.jaxpr, {})
    got = per.get(key)
    if got is None:
        if len(per) >= 64:
            per.clear()
        try:
            got = partition(entry.jaxpr, mesh, in_specs, out_specs, name)
        except NotPartitionable as e:
            # Remembered, so a program that cannot be partitioned is not traced again per call.
            got = e
        per[key] = got
    if isinstance(got, NotPartitionable):
        raise got
    return got


def run_partitioned(entry, leaves, out_s, name: str = "f") -> list | None:
    """Run a jit cache ``entry`` partitioned (``spmd_partition='always'``) on placed
    ``leaves`` with result shardings ``out_s``: the output Arrays, or None when nothing is
    sharded (the caller runs the global program)."""
    in_s = [x._sharding if type(x) is Array else None for x in leaves]
    try:
        part = partitioned_for(entry, in_s, out_s, name)
    except NotPartitionable:
        return None
    if part is None:
        return None
    args = [x._value if type(x) is Array else dispatch.canonical_value(x) for x in leaves]
    outs = part.run(*args)
    # The results carry the shardings jit gives them (the same placements, spelled as given).
    shs = [
        s if isinstance(s, NamedSharding) else NamedSharding(part.mesh, p)
        for s, p in zip(out_s, part.out_specs)
    ]
    return [
        Array(o if type(o) is np.ndarray else np.asarray(o), w, s)
        for o, w, s in zip(outs, entry.out_weak, shs)
    ]


def _lowered_partition(wrapped, entry, leaves) -> Partitioned | None:
    if leaves is None:
        return None
    placed, out_s = wrapped._placements(entry, list(leaves), {})
    in_s = [x._sharding if type(x) is Array else None for x in placed]
    return partitioned_for(entry, in_s, out_s, wrapped.__name__)


# ---------------------------------------------------------------------------------------------
# Traced / Lowered / Compiled


_DIALECTS = (None, "stablehlo", "hlo")


class Traced:
    """A traced jitted function: ``.jaxpr``, ``.out_info``, ``.lower()``. ``traced_with``:
    the trace's (args, kwargs), whose static arguments the compiled function keeps."""

    def __init__(self, wrapped, entry, leaves, traced_with=((), {})) -> None:
        self._wrapped, self._entry, self._leaves = wrapped, entry, leaves
        self._traced_with = traced_with

    @property
    def jaxpr(self) -> ClosedJaxpr:
        return self._entry.jaxpr

    @property
    def out_info(self):
        from spmd._src.api import ShapeDtypeStruct  # lazy: api imports this module

        return tu.tree_unflatten(
            self._entry.out_tree,
            [
                ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)
                for a in self.jaxpr.out_avals
            ],
        )

    def lower(self) -> Lowered:
        return Lowered(self._wrapped, self._entry, self._leaves, self._traced_with)


class Lowered:
    """A lowered program: ``.as_text()`` shows it (partitioned when arguments are sharded),
    ``.compile()`` gives an executable."""

    def __init__(self, wrapped, entry, leaves=None, traced_with=((), {})) -> None:
        self._wrapped, self._entry, self._leaves = wrapped, entry, leaves
        self._traced_with = traced_with

    @property
    def partitioned(self) -> Partitioned | None:
        """The partitioned program (None when nothing is sharded)."""
        return _lowered_partition(self._wrapped, self._entry, self._leaves)

    def as_text(self, dialect: str | None = None, *, debug_info: bool = False) -> str:
        """The program's text: its jaxpr, or the partitioned body when arguments are sharded.
        spmd has one text, whichever ``dialect`` JAX's names (JAX's are StableHLO and HLO);
        ``debug_info`` is accepted, as the jaxpr has no source locations to add."""
        if dialect not in _DIALECTS:
            raise ValueError(f"Lowered.as_text: unknown dialect: {dialect}")
        try:
            part = self.partitioned
        except NotPartitionable as e:
            return f"# not partitioned: {e}\n{self._entry.jaxpr}"
        if part is not None:
            return part.as_text()
        return str(self._entry.jaxpr)

    @property
    def in_avals(self) -> list[ShapedArray]:
        return self._entry.jaxpr.in_avals

    @property
    def out_info(self):
        return Traced(self._wrapped, self._entry, None).out_info

    def compile(self, compiler_options: dict | None = None, *, device_assignment=None) -> Compiled:
        """The executable. ``compiler_options`` (XLA flags in JAX) and ``device_assignment``
        are accepted and have no effect: spmd runs the program in NumPy, with no compiler."""
        if compiler_options is not None and not hasattr(compiler_options, "items"):
            # (JAX fails on the missing .items() too: AttributeError.)
            raise AttributeError(
                f"Lowered.compile: compiler_options must be a dict of option names to values, "
                f"got {type(compiler_options).__name__}"
            )
        return Compiled(self._wrapped, self._entry, self._leaves, self._traced_with)


class Compiled:
    """An executable for fixed argument types; calling it with other types raises (see
    ``compiled_call``). It takes the dynamic arguments only."""

    def __init__(self, wrapped, entry, leaves=None, traced_with=((), {})) -> None:
        self._wrapped, self._entry, self._leaves = wrapped, entry, leaves
        self._traced_with = traced_with

    def as_text(self) -> str:
        return self._entry.compiled.__spmd_source__

    def __call__(self, *args, **kwargs):
        args, kwargs = compiled_call.call_args(
            self._wrapped, self._entry, self._traced_with, args, kwargs
        )
        return self._wrapped(*args, **kwargs)

    def _partitioned(self) -> Partitioned | None:
        return Lowered(self._wrapped, self._entry, self._leaves).partitioned

    def cost_analysis(self) -> dict:
        """Per-device ``flops`` and ``bytes moved`` (and per primitive) of the partitioned
        program, or the program's flops when nothing is sharded; empty when it cannot be
        partitioned."""
        try:
            part = self._partitioned()
        except NotPartitionable:
            return {}
        if part is not None:
            return part.cost_analysis()
        return _cost(self._entry.jaxpr.jaxpr.eqns, {})

    def memory_analysis(self) -> compiled_call.CompiledMemoryStats:
        """Bytes of arguments, results and peak intermediates, per device (of the partitioned
        program when arguments are sharded)."""
        try:
            part = self._partitioned()
        except NotPartitionable:
            part = None
        jaxpr = part.body.jaxpr if part is not None else self._entry.jaxpr.jaxpr
        return compiled_call.memory_stats(jaxpr)
