"""Computing on Arrays that span several processes (a job started by ``spmd run -n N``).

Every process runs the same program. A computation whose operands include a ``GlobalArray``
is rewritten by the partitioner (``lowering.partition``) into one shard_map body over the
mesh, whose collectives are explicit. Each process then runs that body once, batched over its
own devices, as one process runs a shard_map over all of them (DESIGN.md, "One idea carries the
design"): a mesh axis whose devices lie in several processes holds this process's slice of it,
and a collective over it first gathers the other processes' slices through the communicator
(``lax.parallel.processes``), then combines the whole axis with the one-process code. So
results are the bits a single process gets running the same partitioned program
(``spmd.config.update('spmd_partition', 'always')``) or the same shard_map on all the devices,
on every process.

That needs each process's devices to form a box of the mesh, all boxes of one shape (what
``make_mesh`` gives). Other meshes, and ``shard_map.reference_mode``, take the executable
specification: the reference loop (``shard_map_reference.ref_eval``) interprets the body device
by device and hands every device's operand to every process at each collective. Tests run both
and compare their bits. Eager operations, ``jit`` and ``shard_map`` all come here when an
operand spans processes.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import backends, core, dispatch, dtypes
from spmd._src.array import Array
from spmd._src.core import ShapedArray
from spmd._src.global_array import GlobalArray
from spmd._src.interpreters import partial_eval as pe
from spmd._src.interpreters.partitioner import from_spec
from spmd._src.lowering import Partitioned, partition, partitioned_for
from spmd._src.shard_map_reference import Exchange, _block_index, ref_eval
from spmd._src.sharding import NamedSharding, P, Sharding, check_divisible

__all__ = [
    "call_jit",
    "gather_global",
    "globalize",
    "local_part",
    "make_from_callback",
    "make_from_process_local_data",
    "put",
    "spanning",
    "spans_processes",
]


def spans_processes(leaves: Sequence[Any]) -> bool:
    """Whether any of ``leaves`` is an Array over devices of other processes."""
    for x in leaves:
        if type(x) is GlobalArray:
            return True
    return False


# ---------------------------------------------------------------------------------------------
# Making and reading GlobalArrays


def _check_even(sharding: Sharding, shape: tuple, who: str) -> None:
    if isinstance(sharding, NamedSharding):
        try:
            check_divisible(sharding, shape)
        except ValueError as e:
            raise type(e)(
                f"{who}: {e} (uneven shards are not supported across processes yet)"
            ) from None


def make_from_callback(shape: tuple, sharding: Sharding, cb, dtype=None) -> GlobalArray:
    """A GlobalArray whose blocks on this process's devices are ``cb(index)``."""
    _check_even(sharding, shape, "make_array_from_callback")
    blocks: dict = {}
    by_index: dict = {}
    dt = None
    for d, idx in sharding.addressable_devices_indices_map(shape).items():
        key = tuple((s.start, s.stop, s.step) for s in idx)
        block = by_index.get(key)
        if block is None:
            block = np.asarray(cb(idx))
            if dt is None:
                dt = dtypes.canonicalize_dtype(dtype if dtype is not None else block.dtype)
            want = tuple(len(range(*s.indices(n))) for s, n in zip(idx, shape))
            if block.shape != want:
                raise ValueError(
                    f"make_array_from_callback: the callback returned shape {block.shape} for "
                    f"device {d} at index {idx}, but the shard shape is {want}."
                )
            block = by_index[key] = np.asarray(block, dtype=dt, order="C")
        blocks[d] = block
    if dt is None:  # this process has no device of the sharding
        dt = dtypes.canonicalize_dtype(dtype if dtype is not None else np.float32)
    # (An array in host memory is typed there: f32<host>[8].)
    space = core.mem_kind_to_space(getattr(sharding, "memory_kind", None))
    return GlobalArray(ShapedArray(tuple(shape), dt, False, memory_space=space), sharding, blocks)


def put(x: Any, sharding: Sharding) -> Any:
    """``device_put`` onto a sharding over devices of several processes (or of a GlobalArray
    onto any sharding). A host value must be the same on every process (checked, as JAX's
    ``device_put`` does, when the sharding spans every process); each keeps its own blocks."""
    if type(x) is GlobalArray:
        if x._sharding == sharding:
            return x
        if sharding.is_fully_addressable:
            # JAX's class: it cannot reshard an array it does not hold onto its own devices.
            raise NotImplementedError(
                f"device_put: cannot move an Array {x.aval.str_short()} spread over the devices "
                f"of several processes ({x._sharding}) onto this process's devices only "
                f"({sharding}); gather it with multihost_utils.process_allgather(x, tiled=True), "
                "or reshard it within its devices."
            )
        if sharding.device_set != x._sharding.device_set:
            raise ValueError(
                "device_put: for a reshard across processes the input and target shardings must "
                f"have the same set of devices; got the input's device ids "
                f"{sorted(d.id for d in x._sharding.device_set)} and the target's "
                f"{sorted(d.id for d in sharding.device_set)}"
            )
        value = gather_global(x)
        weak = x.weak_type
    else:
        if type(x) is Array and x._committed:
            raise ValueError(
                "device_put: an Array committed to this process's devices "
                f"({x._sharding}) cannot be moved onto devices of other processes ({sharding}); "
                "pass the host value (np.asarray(x)) that every process holds, or build the "
                "Array with jax.make_array_from_process_local_data."
            )
        aval = core.get_aval(x)
        value = np.asarray(x._value if type(x) is Array else x)
        if value.dtype != aval.dtype:
            value = value.astype(aval.dtype)
        weak = aval.weak_type
        _check_same_everywhere(x, value, sharding)
    if sharding.is_fully_addressable:
        return Array(value, weak, sharding)
    out = make_from_callback(value.shape, sharding, lambda idx: value[idx], value.dtype)
    out.aval = out.aval.update(weak_type=weak)
    return out


def _check_same_everywhere(x: Any, value: np.ndarray, sharding: Sharding) -> None:
    # Every process must place the same value (JAX's AssertionError otherwise). Where some
    # process holds no device of the sharding, JAX cannot tell a mistake from a value meant
    # for a subset of processes and checks nothing; neither do we. The bytes are compared (a
    # digest of them travels), so equal NaNs are equal.
    world = backends.world()
    if world.size == 1 or len({d.process_index for d in sharding.device_set}) != world.size:
        return
    import hashlib

    mine = (value.shape, value.dtype.str, hashlib.sha256(value.tobytes()).hexdigest())
    got = world.allgather(mine, "device_put's check that every process passes the same value")
    differ = [r for r, g in enumerate(got) if g != got[0]]
    if differ:
        kind = type(x)
        raise AssertionError(
            f"{kind} passed to device_put is not the same on each process. Make sure you are "
            f"passing the same value of {kind} on each process: processes {differ} passed "
            f"values that differ from process 0's ({np.dtype(got[0][1]).name}{list(got[0][0])})."
        )


def spanning(shardings: Sequence[Any]) -> bool:
    """Whether any of ``shardings`` (Shardings or None) places data on other processes."""
    return any(s is not None and not s.is_fully_addressable for s in shardings)


def globalize(x: Array) -> GlobalArray:
    """An Array this process computed whole, whose sharding spans processes (a result of jit
    or of an eager operation on host-local inputs, which every process holds alike): the
    GlobalArray keeping this process's blocks of it."""
    value = x._value
    out = make_from_callback(value.shape, x._sharding, lambda idx: value[idx], value.dtype)
    out.aval = out.aval.update(weak_type=x.weak_type)
    return out


def make_from_process_local_data(
    sharding: Sharding, local_data: Any, global_shape: Sequence[int] | None
) -> GlobalArray:
    """The GlobalArray whose blocks on this process's devices come from ``local_data``: the
    part of the global value that those devices' shards span (a box, whose size in each
    dimension is ``global_shape``'s scaled by the share of shards this process holds)."""
    data = np.asarray(local_data)
    n_dims = data.ndim
    # Shard positions, read off a probe shape every dimension's shard count divides: the
    # number of devices (each count is a product of mesh axis sizes, which divide it).
    probe = len(sharding.device_set)
    all_idx = sharding.devices_indices_map((probe,) * n_dims)
    mine = sharding.addressable_devices_indices_map((probe,) * n_dims)
    shape = []
    for d in range(n_dims):
        starts = sorted({idx[d].indices(probe)[0] for idx in all_idx.values()})
        local = sorted({idx[d].indices(probe)[0] for idx in mine.values()})
        n, k = len(starts), len(local)
        if global_shape is not None:
            shape.append(int(global_shape[d]))
        else:
            if data.shape[d] * n % k:
                raise ValueError(
                    f"make_array_from_process_local_data: local_data dimension {d} "
                    f"({data.shape[d]}) does not split into {k} shards"
                )
            shape.append(data.shape[d] * n // k)
    shape = tuple(shape)
    _check_even(sharding, shape, "make_array_from_process_local_data")
    imap = sharding.addressable_devices_indices_map(shape)
    lo = [min(idx[d].indices(shape[d])[0] for idx in imap.values()) for d in range(n_dims)]
    hi = [max(idx[d].indices(shape[d])[1] for idx in imap.values()) for d in range(n_dims)]
    box = tuple(h - low for low, h in zip(lo, hi))
    for d, (n, b) in enumerate(zip(data.shape, box)):
        # A dimension of local_data is either this process's part or the whole dimension (of
        # which the process takes its part), as in JAX.
        if n == shape[d] and n != b:
            lo[d] = 0
        elif n != b:
            raise ValueError(
                "make_array_from_process_local_data: invalid host data, each dimension should "
                f"match either the global or the process shape. In dimension {d}, the process "
                f"data has {n} elements; this process addresses {b} elements (the part "
                f"{slice(lo[d], hi[d])}) and global_shape={shape}."
            )

    def cb(idx):
        return data[
            tuple(
                slice(s.indices(n)[0] - a, s.indices(n)[1] - a) for s, n, a in zip(idx, shape, lo)
            )
        ]

    return make_from_callback(shape, sharding, cb, data.dtype)


def local_part(x: Any) -> Any:
    """This process's part of ``x``: the box its devices' shards span (the whole value when
    they cover it), as an Array on those devices (placed by the same spec on this process's
    sub-mesh, as JAX's pmap results and ``global_array_to_host_local_array`` are, where the
    devices form one)."""
    if type(x) is not GlobalArray:
        return x
    imap = x._sharding.addressable_devices_indices_map(x.shape)
    lo = [min(idx[d].indices(n)[0] for idx in imap.values()) for d, n in enumerate(x.shape)]
    hi = [max(idx[d].indices(n)[1] for idx in imap.values()) for d, n in enumerate(x.shape)]
    out = np.empty(tuple(h - low for low, h in zip(lo, hi)), x.dtype)
    for d, idx in imap.items():
        out[tuple(slice(s.indices(n)[0] - a, s.indices(n)[1] - a)
                  for s, n, a in zip(idx, x.shape, lo))] = x._blocks[d]  # fmt: skip
    s = x._sharding
    sub = s.mesh.local_submesh() if isinstance(s, NamedSharding) else None
    return Array(out, x.weak_type, None if sub is None else NamedSharding(sub, s.spec))


def gather_global(x: GlobalArray) -> np.ndarray:
    """The whole value of ``x`` on every process (a collective: every process calls it)."""
    world = backends.world()
    imap = x._sharding.addressable_devices_indices_map(x.shape)
    mine = [(idx, x._blocks[d]) for d, idx in imap.items() if _replica0(x, d)]
    parts = world.allgather(mine, f"gather of an Array {x.aval.str_short()} ({x._sharding})")
    out = np.empty(x.shape, x.dtype)
    for got in parts:
        for idx, block in got:
            out[idx] = block
    return out


def _replica0(x: GlobalArray, d) -> bool:
    # One copy of each block travels: the first device (in device order) that holds it.
    from spmd._src.sharding import shard_replica_ids

    return shard_replica_ids(x._sharding, x.shape)[d] == 0


# ---------------------------------------------------------------------------------------------
# Running a partitioned program


class _WorldExchange(Exchange):
    """The devices of this process, and the communicator that joins them to the others."""

    def __init__(self, devs: list) -> None:
        self.world = backends.world()
        me = self.world.rank
        self.local = [i for i, d in enumerate(devs) if d.process_index == me]
        self.by_rank = [
            [i for i, d in enumerate(devs) if d.process_index == r] for r in range(self.world.size)
        ]
        self.n = len(devs)

    def gather(self, local_vals: list, what: str) -> list:
        got = self.world.allgather(local_vals, what)
        full: list = [None] * self.n
        for idxs, vals in zip(self.by_rank, got):
            for i, v in zip(idxs, vals):
                full[i] = v
        return full


def run_body(part: Partitioned, args: Sequence[Any]) -> list:
    """Run a partitioned program on this process's devices: GlobalArray results. The body
    runs once, batched over the devices (``_run_batched``), where the processes' devices
    form a regular grid of boxes in the mesh; else (and in ``shard_map.reference_mode``)
    device by device (``_run_reference``)."""
    from spmd._src import shard_map  # lazy: shard_map sits above this module's callers

    layout = None if shard_map._mode.reference else _layout(part.mesh)
    if layout is None:
        return _run_reference(part, args)
    return _run_batched(part, args, layout)


def _operands(part: Partitioned, args: Sequence[Any]) -> tuple[list, list, list]:
    """The program's operands (its constants, then ``args``), their specs, and for each one
    not already split as the body needs, its whole value (gathered once, by every process
    alike, where it is spread over processes); ``None`` for the others."""
    values = [*part.consts, *args]
    specs = [P()] * len(part.consts) + list(part.in_specs)
    wholes = []
    for x, s in zip(values, specs):
        if type(x) is GlobalArray:
            ok = isinstance(x._sharding, NamedSharding) and x._sharding.mesh == part.mesh
            if ok and from_spec(x._sharding.spec, x.ndim) == from_spec(s, x.ndim):
                wholes.append(None)
                continue
            wholes.append(gather_global(x))
        elif type(x) is Array:
            wholes.append(x._value)
        else:
            wholes.append(dispatch.canonical_value(x))
    return values, specs, wholes


def _global_result(part: Partitioned, k: int, blocks: dict) -> GlobalArray:
    a = part.body.jaxpr.outvars[k].aval
    spec = part.out_specs[k]
    sizes = dict(part.mesh.shape)
    sp = from_spec(spec, a.ndim)
    gshape = tuple(d * math.prod(sizes[x] for x in e) for d, e in zip(a.shape, sp))
    # A result typed in host memory lands there, as one process's jit puts it.
    kind = "pinned_host" if a.memory_space is core.HOST else None
    sharding = NamedSharding(part.mesh, spec, memory_kind=kind)
    return GlobalArray(a.update(shape=gshape), sharding, blocks)


def _run_reference(part: Partitioned, args: Sequence[Any]) -> list:
    """The executable specification: the body interpreted device by device, every collective
    handing every device's operand to every process."""
    mesh = part.mesh
    axes = tuple(mesh.axis_names)
    sizes = dict(mesh.shape)
    coords = [dict(zip(axes, c)) for c in itertools.product(*(range(sizes[a]) for a in axes))]
    devs = [mesh.devices[tuple(c[a] for a in axes)] for c in coords]
    ex = _WorldExchange(devs)
    values, specs, wholes = _operands(part, args)
    per_device = []
    for i in ex.local:
        blocks = []
        for x, s, w in zip(values, specs, wholes):
            if w is None:
                blocks.append(x._blocks[devs[i]])
            else:
                blocks.append(w[_block_index(w.shape, s, sizes, coords[i])])
        per_device.append(blocks)
    body = part.body
    with np.errstate(all="ignore"):
        outs = ref_eval(body.jaxpr, body.consts, per_device, coords, sizes, ex)
    results = []
    for k, v in enumerate(body.jaxpr.outvars):
        blocks = {
            devs[i]: np.asarray(outs[j][k], dtype=v.aval.dtype) for j, i in enumerate(ex.local)
        }
        results.append(_global_result(part, k, blocks))
    return results


# ---------------------------------------------------------------------------------------------
# The batched path: the body once over this process's devices


_layouts: dict = {}


def _layout(mesh: Any) -> tuple[dict, dict] | None:
    """Where this process's devices lie in ``mesh``: per axis, the first index and the count
    of this process's slice of it, and the axis's ``Span`` (None where this process holds the
    whole axis). None unless every process's devices form a box of the mesh, all of the same
    shape, tiling each axis in order (what ``make_mesh`` gives): the same answer on every
    process, so all take the same path."""
    world = backends.world()
    key = (mesh, world.size, world.rank)
    if key in _layouts:
        return _layouts[key]
    out = _find_layout(mesh, world)
    if len(_layouts) >= 64:
        _layouts.clear()
    _layouts[key] = out
    return out


def _find_layout(mesh: Any, world: Any) -> tuple[dict, dict] | None:
    from spmd._src.interpreters.batching import Span

    axes = tuple(mesh.axis_names)
    owner = np.vectorize(lambda d: d.process_index, otypes=[np.int64])(mesh.devices)
    boxes = {}
    for r in range(world.size):
        where = np.argwhere(owner == r)
        if len(where) == 0:
            return None  # a process without devices here: the reference path pairs them all
        lo, hi = where.min(0), where.max(0) + 1
        if len(where) != math.prod(int(n) for n in hi - lo):
            return None
        boxes[r] = tuple((int(a), int(b - a)) for a, b in zip(lo, hi))
    if len({tuple(n for _, n in b) for b in boxes.values()}) != 1:
        return None
    mine = boxes[world.rank]
    first, count, spans = {}, {}, {}
    for k, a in enumerate(axes):
        lo, n = mine[k]
        first[a], count[a] = lo, n
        total = int(mesh.devices.shape[k])
        if n == total:
            spans[a] = None
            continue
        # Each process's peers on this axis: the processes holding its slice of every other
        # axis, in the order of their slices of this one.
        groups = set()
        for box in boxes.values():
            peers = sorted(
                (b[k][0], r)
                for r, b in boxes.items()
                if all(b[j] == box[j] for j in range(len(axes)) if j != k)
            )
            if [start for start, _ in peers] != list(range(0, total, n)):
                return None
            groups.add(tuple(r for _, r in peers))
        mine_peers = next(g for g in groups if world.rank in g)
        spans[a] = Span(total, lo, mine_peers, tuple(sorted(groups)))
    return {"first": first, "count": count}, spans


def _batched_program(part: Partitioned, layout: tuple) -> tuple:
    """The body batched over this process's devices, compiled (kept on ``part``): inputs
    carry a leading dimension per mesh axis their spec names (this process's slice of it),
    results one per axis they vary over (listed, per result)."""
    hit = getattr(part, "_batched", None)
    if hit is not None:
        return hit
    from spmd._src import shard_map  # lazy: shard_map sits above this module's callers
    from spmd._src.interpreters import batching

    mesh = part.mesh
    where, spans = layout
    count = where["count"]
    names = tuple(mesh.axis_names)
    body = part.body
    specs = [P()] * len(part.consts) + list(part.in_specs)
    mentioned = []
    in_avals = []
    for v, s in zip(body.jaxpr.invars, specs):
        named = {a for e in from_spec(s, v.aval.ndim) for a in e}
        m = [a for a in names if a in named]
        mentioned.append(m)
        a = v.aval  # (update keeps the rest of its type: its memory space)
        in_avals.append(a.update(shape=tuple(count[x] for x in m) + tuple(a.shape)))
    axes = [batching.AxisData(a, count[a], per_device=True, span=spans[a]) for a in names]
    box: list = []

    def fn(*xs):
        outs, presents = shard_map.run_batched(body, mesh, axes, mentioned, list(xs))
        box.append(presents)
        return outs

    closed = pe.trace_to_jaxpr(fn, in_avals)
    out = (dispatch.compile_jaxpr(closed.jaxpr, closed.consts), mentioned, box[0])
    part._batched = out
    return out


def _job_any(go: bool) -> bool:
    return any(backends.world().allgather(go, "while_loop's predicate"))


def _run_batched(part: Partitioned, args: Sequence[Any], layout: tuple) -> list:
    from spmd._src.lax.control_flow.while_loop import job_predicates

    run, mentioned, presents = _batched_program(part, layout)
    mesh = part.mesh
    where = layout[0]
    first, count = where["first"], where["count"]
    names = tuple(mesh.axis_names)
    sizes = dict(mesh.shape)
    # This process's devices: their mesh coordinates, and their positions in its slices.
    devs = []
    for c in itertools.product(*(range(first[a], first[a] + count[a]) for a in names)):
        coord = dict(zip(names, c))
        devs.append((mesh.devices[c], coord, {a: coord[a] - first[a] for a in names}))
    values, specs, wholes = _operands(part, args)
    stacked = []
    for x, s, w, m in zip(values, specs, wholes, mentioned):
        out = None
        if w is None and m and x._stacked is not None and x._stacked[0] == tuple(m):
            stacked.append(x._stacked[1])
            continue
        for dev, coord, pos in devs:
            block = x._blocks[dev] if w is None else w[_block_index(w.shape, s, sizes, coord)]
            if not m:
                out = block  # the same on every device
                break
            if out is None:
                out = np.empty(tuple(count[a] for a in m) + np.shape(block), np.result_type(block))
            out[tuple(pos[a] for a in m)] = block
        if w is None and m:
            x._stacked = (tuple(m), out)
        stacked.append(out)
    with np.errstate(all="ignore"), job_predicates(_job_any):
        outs = run(*stacked)
    results = []
    for k, (v, present) in enumerate(zip(outs, presents)):
        dtype = part.body.jaxpr.outvars[k].aval.dtype
        v = np.asarray(v, dtype=dtype)
        # (The Ellipsis keeps a block of a scalar result an array, not a NumPy scalar.)
        blocks = {dev: v[(*(pos[a] for a in present), ...)] for dev, _, pos in devs}
        g = _global_result(part, k, blocks)
        if present:
            g._stacked = (tuple(present), v)
        results.append(g)
    return results


def _mesh_of(shardings) -> Any:
    for s in shardings:
        if isinstance(s, NamedSharding):
            return s.mesh
    return None


def _spec_of(s, ndim: int, mesh) -> P:
    if isinstance(s, NamedSharding) and s.mesh == mesh:
        return P(*s.spec._normalized(ndim))
    return P()


_eager_cache: dict = {}


def apply_primitive(prim: core.Primitive, args: Sequence[Any], params: dict) -> Any:
    """An eager operation with an operand over devices of several processes: a program of one
    equation, partitioned and run on every process."""
    avals = [core.get_aval(x) for x in args]
    shs = [x._sharding if type(x) in (Array, GlobalArray) else None for x in args]
    mesh = _mesh_of(shs)
    for i, x in enumerate(args):
        if type(x) is Array and x._committed:
            # JAX's rule: an operand committed to this process's devices cannot join one
            # spread over the job's (an uncommitted one is taken as replicated).
            g = next(a for a in args if type(a) is GlobalArray)
            raise ValueError(
                f"Received incompatible devices for {prim.name}: operand {i} of shape "
                f"{x.shape} is committed to device ids {sorted(d.id for d in x.devices())}, "
                f"and an operand of shape {g.shape} is on device ids "
                f"{sorted(d.id for d in g.devices())} of several processes; place it on the "
                "same mesh (device_put of its host value) or pass an uncommitted value"
            )
    specs = tuple(_spec_of(s, a.ndim, mesh) for s, a in zip(shs, avals))
    try:
        key = (prim, tuple(params.items()), tuple(avals), mesh, specs)
        hash(key)
    except TypeError:
        key = None
    part = _eager_cache.get(key) if key is not None else None
    if part is None:
        closed = pe.trace_to_jaxpr(lambda *xs: _as_list(prim.bind(*xs, **params)), avals)
        part = partition(closed, mesh, specs, None, prim.name)
        if key is not None:
            if len(_eager_cache) >= 256:
                _eager_cache.clear()
            _eager_cache[key] = part
    outs = run_body(part, args)
    return outs if prim.multiple_results else outs[0]


def _as_list(out: Any) -> list:
    return list(out) if isinstance(out, (list, tuple)) else [out]


def call_jit(wrapped: Any, entry: Any, leaves: list, kwargs: dict) -> Any:
    """A jitted function called with arguments over devices of several processes."""
    in_s = tuple(x._sharding if type(x) in (Array, GlobalArray) else None for x in leaves)
    leaves, out_s = wrapped._placements(entry, leaves, kwargs, in_s)
    in_s = [x._sharding if type(x) in (Array, GlobalArray) else None for x in leaves]
    part = partitioned_for(entry, in_s, out_s, wrapped.__name__)
    if part is None:
        raise NotImplementedError(
            f"jit({wrapped.__name__}): arguments spread over several processes must be placed "
            "by a NamedSharding (a mesh over the devices of the job)"
        )
    outs = run_body(part, leaves)
    wanted = out_s if out_s is not None else [None] * len(outs)
    for o, a, w, s in zip(outs, entry.jaxpr.out_avals, entry.out_weak, wanted):
        # As in one process: a result is in the memory out_shardings names, else in the one
        # its type says (host memory for f32<host>[8]).
        host = a.memory_space is core.HOST if s is None else s.memory_kind == "pinned_host"
        if host != (o._sharding.memory_kind == "pinned_host"):
            o._sharding = o._sharding.with_memory_kind("pinned_host" if host else "device")
        space = core.HOST if host else core.DEVICE_SPACE
        if o.aval.weak_type != w or o.aval.memory_space is not space:
            o.aval = o.aval.update(weak_type=w, memory_space=space)
    if entry.token_outs:
        from spmd._src.lax.tokens import Token

        for i in entry.token_outs:
            outs[i] = Token()  # (as jit's results in one process: new tokens, no data)
    return entry.out_tree.unflatten(outs)


dispatch.set_global_apply(apply_primitive)
