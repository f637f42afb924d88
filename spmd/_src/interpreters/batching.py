"""The batching interpreter: vmap, and the engine of named-axis SPMD execution.

A ``BatchTracer`` is a value with one extra dimension, ``batch_dim`` (or ``None`` when the value
does not depend on the mapped axis: it stays unbatched and is computed once). A ``BatchTrace``
interprets each primitive with its rule from ``primitive_batchers``:

    rule(axis_data, vals, dims, **params) -> (out, out_dim)    # lists when multiple results

Rules run with the parent trace current, so the operations they emit go to whatever was
interpreting before vmap (eager evaluation, a jaxpr being built, another vmap...). The axis
carries a name and size (``AxisData``): collectives over that name are the batching rules of
their primitives, reducing or permuting over the batch dimension.

An axis whose indices are devices (shard_map's mesh axes, hence pmap) runs the program once per
device: a primitive in ``per_device_primitives`` (a debug callback) happens on every device even
when none of its operands varies over the axis, so its rule runs though nothing is batched. A
vmap axis keeps JAX's vmap semantics: such a primitive, unbatched, happens once.

>>> # spmd.vmap(f)(x) runs f once on BatchTracers whose batch_dim is 0.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any

from spmd._src import core
from spmd._src.core import ShapedArray, Tracer
from spmd._src.interpreters import partial_eval as pe

not_mapped = None

# prim -> rule(axis_data, vals, dims, **params) -> (out, out_dim)
primitive_batchers: dict[core.Primitive, Callable] = {}

# Collectives: prim -> fn(params) -> the axis names the primitive refers to. A BatchTrace runs
# the rule of a primitive that names its axis even when no operand is batched: psum over 'i' of
# a value that does not vary over 'i' still sums size-of-'i' copies, and axis_index('i') has no
# operand at all. Higher-order primitives (jit, control flow, shard_map) are looked into.
axis_name_params: dict[core.Primitive, Callable[[dict], tuple]] = {}
_jaxpr_axis_names: dict[int, tuple[Any, frozenset]] = {}

# Primitives whose batching rule runs on a device axis (``AxisData.per_device``) even when no
# operand is batched: their effect happens once per device, not once for all devices.
# Higher-order primitives whose inner jaxprs hold one are batched too, so that it is reached.
per_device_primitives: set[core.Primitive] = set()
_jaxpr_per_device: dict[int, tuple[Any, bool]] = {}


def _names_in_jaxpr(jaxpr: core.Jaxpr) -> frozenset:
    hit = _jaxpr_axis_names.get(id(jaxpr))
    if hit is not None and hit[0] is jaxpr:
        return hit[1]
    names: set = set()
    for eqn in jaxpr.eqns:
        fn = axis_name_params.get(eqn.primitive)
        if fn is not None:
            names.update(fn(eqn.params))
        for inner in core._jaxprs_in_params(eqn.params):
            names.update(_names_in_jaxpr(inner))
    out = frozenset(names)
    if len(_jaxpr_axis_names) > 512:
        _jaxpr_axis_names.clear()
    # The jaxpr is kept alive with its entry, so its id cannot be reused meanwhile.
    _jaxpr_axis_names[id(jaxpr)] = (jaxpr, out)
    return out


def _per_device_in_jaxpr(jaxpr: core.Jaxpr) -> bool:
    hit = _jaxpr_per_device.get(id(jaxpr))
    if hit is not None and hit[0] is jaxpr:
        return hit[1]
    out = any(
        eqn.primitive in per_device_primitives
        or any(_per_device_in_jaxpr(j) for j in core._jaxprs_in_params(eqn.params))
        for eqn in jaxpr.eqns
    )
    if len(_jaxpr_per_device) > 512:
        _jaxpr_per_device.clear()
    _jaxpr_per_device[id(jaxpr)] = (jaxpr, out)
    return out


def runs_per_device(prim: core.Primitive, params: dict) -> bool:
    """Is ``prim`` (or a primitive in its inner jaxprs) one that happens once per device?"""
    return prim in per_device_primitives or any(
        _per_device_in_jaxpr(j) for j in core._jaxprs_in_params(params)
    )


def refers_to_axis(prim: core.Primitive, params: dict, name: Any) -> bool:
    """Does ``prim`` (with ``params``) use the named axis, itself or in an inner jaxpr?"""
    fn = axis_name_params.get(prim)
    if fn is not None:
        return name in fn(params)
    return any(name in _names_in_jaxpr(j) for j in core._jaxprs_in_params(params))


class Span:
    """A device axis shared by several processes (a job under MPI): this process holds the
    indices ``offset .. offset + size - 1`` of an axis of ``total`` devices, and ``peers`` are
    the ranks that hold its slices, in index order (this one among them). ``groups``: every
    process's peers (the same on every process; they partition the job). A collective over the
    axis gathers the slices from the peers (``lax.parallel.processes``)."""

    __slots__ = ("total", "offset", "peers", "groups")

    def __init__(self, total: int, offset: int, peers: tuple, groups: tuple | None = None) -> None:
        self.total, self.offset, self.peers = total, offset, tuple(peers)
        self.groups = (self.peers,) if groups is None else tuple(map(tuple, groups))

    def _key(self) -> tuple:
        return (self.total, self.offset, self.peers, self.groups)

    def __eq__(self, other) -> bool:
        return isinstance(other, Span) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"Span(total={self.total}, offset={self.offset}, peers={self.peers}, "
            f"groups={self.groups})"
        )


class AxisData:
    """The mapped axis of a BatchTrace: its name (or None), size, SPMD mesh axis name, and
    whether its indices are devices (``per_device``: shard_map and pmap; vmap's are not).
    ``span``: where the axis's devices lie in several processes, this process's slice of them
    (``size`` is then the slice's length, the batch dimension's; ``axis_size`` the axis's)."""

    __slots__ = ("name", "size", "spmd_name", "per_device", "env_depth", "span")

    def __init__(
        self,
        name: Any,
        size: int,
        spmd_name: Any = None,
        per_device: bool | None = None,
        span: Span | None = None,
    ) -> None:
        self.name, self.size, self.spmd_name = name, size, spmd_name
        self.per_device = per_device
        self.span = span
        # How many axis names were bound when the map started (set by batch_fun; not part of
        # the identity): names bound after that belong to maps running inside this one.
        self.env_depth: int | None = None

    @property
    def axis_size(self) -> int:
        """The number of devices (or indices) along the axis: what ``lax.axis_size`` says."""
        return self.size if self.span is None else self.span.total

    def _key(self) -> tuple:
        return (self.name, self.size, self.spmd_name, self.per_device, self.span)

    def __repr__(self) -> str:
        span = "" if self.span is None else f", span={self.span!r}"
        return (
            f"AxisData(name={self.name!r}, size={self.size}, spmd_name={self.spmd_name!r}, "
            f"per_device={self.per_device!r}{span})"
        )

    def __eq__(self, other) -> bool:
        return isinstance(other, AxisData) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


def _aval_without(aval: ShapedArray, dim: int) -> ShapedArray:
    # ``update`` keeps the rest of the type: a Ref's stays a Ref's, a host array's in host
    # memory. (Not the varying axes: a batched value's vma is its per-example one, unknown here.)
    return aval.update(shape=aval.shape[:dim] + aval.shape[dim + 1 :], vma=frozenset())


class BatchTracer(Tracer):
    __slots__ = ("val", "batch_dim")

    def __init__(self, trace: BatchTrace, val: Any, batch_dim: int | None) -> None:
        self._trace = trace
        self.val = val
        self.batch_dim = batch_dim

    @property
    def aval(self) -> ShapedArray:
        a = core.get_aval(self.val)
        if self.batch_dim is None:
            return a
        return _aval_without(a, self.batch_dim)


class BatchTrace(core.Trace):
    __slots__ = ("parent_trace", "axis_data")

    def __init__(self, parent_trace: core.Trace, axis_data: AxisData) -> None:
        self.parent_trace = parent_trace
        self.axis_data = axis_data

    def to_batch_info(self, x: Any) -> tuple[Any, int | None]:
        if isinstance(x, BatchTracer) and x._trace is self:
            return x.val, x.batch_dim
        return x, None

    def wrap(self, val: Any, dim: int | None) -> Any:
        return val if dim is None else BatchTracer(self, val, dim)

    def process_primitive(self, prim, args, params):
        vals, dims = [], []
        for x in args:
            v, d = self.to_batch_info(x)
            vals.append(v)
            dims.append(d)
        axis = self.axis_data
        if (
            all(d is None for d in dims)
            and (axis.name is None or not refers_to_axis(prim, params, axis.name))
            and not (axis.per_device and runs_per_device(prim, params))
        ):
            # Nothing here depends on the mapped axis: compute once, unbatched.
            with core.set_current_trace(self.parent_trace):
                return prim.bind(*vals, **params)
        rule = primitive_batchers.get(prim)
        if rule is None:
            raise NotImplementedError(
                f"vmap: batching rule for the primitive '{prim.name}' is not implemented"
            )
        with core.set_current_trace(self.parent_trace):
            out, out_dim = rule(self.axis_data, vals, dims, **params)
        if prim.multiple_results:
            return [self.wrap(o, d) for o, d in zip(out, out_dim, strict=True)]
        return self.wrap(out, out_dim)

    def describe_tracer(self, tracer: Tracer) -> str:
        name = self.axis_data.name
        what = f"vmap over axis {name!r}" if name is not None else "vmap"
        return f"The value is batched by {what} (size {self.axis_data.size})."


def batch_subtrace_values(
    trace: BatchTrace, outs: Sequence[Any]
) -> tuple[list[Any], list[int | None]]:
    vals, dims = [], []
    for o in outs:
        v, d = trace.to_batch_info(o)
        vals.append(v)
        dims.append(d)
    return vals, dims


def batch_fun(
    fun: Callable[..., Sequence[Any]],
    axis_data: AxisData,
    in_vals: Sequence[Any],
    in_dims: Sequence[int | None],
) -> tuple[list[Any], list[int | None]]:
    """Run ``fun`` (flat args -> flat outputs) with the given args batched along ``in_dims``;
    returns the output values and their batch dimensions (``None``: unbatched)."""
    # Only maps over devices (shard_map's mesh axes; pmap is shard_map) say per_device=True.
    per_device = bool(axis_data.per_device)
    depth = axis_data.env_depth
    axis_data = AxisData(
        axis_data.name, axis_data.size, axis_data.spmd_name, per_device, axis_data.span
    )
    # A map batching an inner jaxpr (a shard_map or jit in its body) is the same map: it keeps
    # the depth at which it started.
    axis_data.env_depth = len(core.trace_ctx.axis_env) if depth is None else depth
    trace = BatchTrace(core.trace_ctx.trace, axis_data)
    tracers = [trace.wrap(v, d) for v, d in zip(in_vals, in_dims, strict=True)]
    with core.set_current_trace(trace):
        if axis_data.name is None:
            outs = fun(*tracers)
        else:
            with core.extend_axis_env(axis_data.name, axis_data.axis_size):
                outs = fun(*tracers)
    return batch_subtrace_values(trace, outs)


def names_bound_inside(axis_data: AxisData) -> frozenset:
    """The axis names bound by maps running inside the map of ``axis_data`` (its trace's rules
    run within it): those bound since that map started, not already bound then. A map applied to
    a shard_map batches the shard_map's body under the mesh axes, which are then inside it."""
    start = axis_data.env_depth
    if start is None:
        return frozenset()
    env = core.trace_ctx.axis_env
    before = {name for name, _ in env[:start]}
    return frozenset(name for name, _ in env[start:] if name not in before)


# closed jaxpr -> {(axis, in_dims): result}, kept as long as the jaxpr lives.
_batched_jaxprs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def batch_jaxpr(
    closed: core.ClosedJaxpr,
    axis_data: AxisData,
    in_dims: Sequence[int | None],
    in_shardings: Sequence[Any] | None = None,
) -> tuple[core.ClosedJaxpr, list[int | None]]:
    """The jaxpr of ``closed`` batched along ``in_dims`` (cached per jaxpr, axis and dims);
    ``in_shardings``: the batched inputs' shardings in types (Explicit mesh axes), if any."""
    per_jaxpr = _batched_jaxprs.setdefault(closed, {})
    shs = tuple(in_shardings) if in_shardings is not None else None
    key = (axis_data, tuple(in_dims), shs)
    hit = per_jaxpr.get(key)
    if hit is not None:
        return hit
    in_avals = []
    for a, d in zip(closed.in_avals, in_dims, strict=True):
        if d is None:
            in_avals.append(a)
        else:
            shape = a.shape[:d] + (axis_data.size,) + a.shape[d:]
            in_avals.append(ShapedArray(shape, a.dtype, a.weak_type))
    box = []

    def f(*args):
        vals, dims = batch_fun(
            lambda *xs: core.eval_jaxpr(closed.jaxpr, closed.consts, *xs), axis_data, args, in_dims
        )
        box.append(dims)
        return vals

    batched = pe.trace_to_jaxpr(f, in_avals, None, shs)
    out = (batched, box[0])
    if len(per_jaxpr) < 64:
        per_jaxpr[key] = out
    return out
