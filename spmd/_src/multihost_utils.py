"""``spmd.experimental.multihost_utils``: values exchanged between the processes of a job.

Host-local values (NumPy arrays, Python scalars, Arrays whose data this process holds) go to
every process through the communicator (``spmd._src.backends``), in process order, so every
process gets the same bits. With one process each function is a copy, as in JAX.

>>> import numpy as np
>>> process_allgather(np.arange(3))  # one process: a stack of one
array([[0, 1, 2]])
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from spmd._src import backends, dtypes
from spmd._src import tree_util as tu
from spmd._src.global_array import GlobalArray

__all__ = [
    "ProcessFailureError",
    "assert_equal",
    "broadcast_one_to_all",
    "host_local_array_to_global_array",
    "global_array_to_host_local_array",
    "live_devices",
    "process_allgather",
    "reached_preemption_sync_point",
    "sync_global_devices",
]


def _host_value(x: Any, fn: str) -> np.ndarray:
    if type(x) is GlobalArray:
        v = x.local_value()
        if v is None:
            raise ValueError(
                f"{fn}: an Array {x.aval.str_short()} sharded over the devices of several "
                f"processes ({x.sharding}) is not host-local data; process_allgather gathers it"
            )
        return v
    # JAX puts host values on a device first, so their dtypes are canonical (an int64 NumPy
    # array gathers as int32 unless x64 is on).
    v = np.asarray(x)
    want = dtypes.canonicalize_dtype(v.dtype)
    return v if want == v.dtype else v.astype(want)


def _host_leaves(tree: Any, fn: str) -> tuple[list, Any]:
    """The leaves of ``tree``; a typed key array is refused as JAX does (its values are not
    numbers to gather: ``random.key_data`` gives them)."""
    leaves, tree_def = tu.tree_flatten(tree, is_leaf=_is_key)
    for x in leaves:
        if _is_key(x):
            raise TypeError(
                f"{fn}: JAX array with PRNGKey dtype cannot be converted to a NumPy array. Use "
                "jax.random.key_data(arr) if you wish to extract the underlying integer array."
            )
    return leaves, tree_def


def _signature(vals: list) -> list:
    return [(v.shape, v.dtype.str) for v in vals]


def _check_same(sigs: list, fn: str, what: str) -> None:
    if any(s != sigs[0] for s in sigs):
        lines = "\n".join(
            f"  process {r}: " + ", ".join(f"{np.dtype(d).name}{list(s)}" for s, d in sig)
            for r, sig in enumerate(sigs)
        )
        raise ValueError(f"{fn}: every process must pass {what}; they passed:\n{lines}")


def sync_global_devices(name: str) -> None:
    """Wait until every process has called ``sync_global_devices`` with this ``name`` (a
    different name on some process is an error naming each process's call)."""
    backends.world().barrier(f"sync_global_devices({name!r})")


def broadcast_one_to_all(in_tree: Any, is_source: bool | None = None) -> Any:
    """The source process's ``in_tree`` (process 0's unless ``is_source`` says otherwise) on
    every process, as NumPy arrays. Every process passes leaves of the same shapes and dtypes."""
    world = backends.world()
    leaves, tree = _host_leaves(in_tree, "broadcast_one_to_all")
    vals = [_host_value(x, "broadcast_one_to_all") for x in leaves]
    if world.size == 1:
        return tu.tree_unflatten(tree, [np.array(v) for v in vals])
    if is_source is None:
        is_source = world.rank == 0
    got = world.allgather(
        (bool(is_source), _signature(vals), vals if is_source else None),
        "broadcast_one_to_all",
    )
    _check_same([s for _, s, _ in got], "broadcast_one_to_all", "leaves of the same shapes")
    sources = [r for r, (s, _, _) in enumerate(got) if s]
    if len(sources) != 1:
        raise ValueError(
            "broadcast_one_to_all: exactly one process must be the source (is_source=True); "
            f"got {len(sources)}: processes {sources} of {world.size}"
        )
    return tu.tree_unflatten(tree, [np.array(v) for v in got[sources[0]][2]])


def process_allgather(in_tree: Any, tiled: bool = False) -> Any:
    """Every process's leaves, as NumPy arrays: stacked on a new leading axis (process order),
    or concatenated along the first axis with ``tiled=True`` (scalars are stacked either way).
    A leaf that is an Array over the devices of several processes gives its whole value, and
    only with ``tiled=True`` (JAX's ValueError otherwise)."""
    world = backends.world()
    leaves, tree = _host_leaves(in_tree, "process_allgather")
    if any(type(x) is GlobalArray for x in leaves):
        if not tiled:
            bad = next(x for x in leaves if type(x) is GlobalArray)
            raise ValueError(
                "process_allgather: gathering an Array spread over the devices of several "
                f"processes ({bad.aval.str_short()} sharded as {bad.sharding}) only supports "
                "tiled=True (it gives the global value, stacking nothing)"
            )
        from spmd._src.multiprocess import gather_global  # lazy: runs programs (above us)

        # One collective per spread leaf, then one for the host-local ones: the same calls in
        # the same order on every process.
        spread = {i: gather_global(x) for i, x in enumerate(leaves) if type(x) is GlobalArray}
        rest = process_allgather([x for x in leaves if type(x) is not GlobalArray], tiled)
        it = iter(rest)
        return tu.tree_unflatten(
            tree, [spread[i] if i in spread else next(it) for i in range(len(leaves))]
        )
    vals = [_host_value(x, "process_allgather") for x in leaves]
    if world.size == 1:
        # (One process: a scalar stays a scalar with tiled=True, as in JAX.)
        return tu.tree_unflatten(tree, [np.array(v) if tiled else v[None] for v in vals])
    got = world.allgather(vals, "process_allgather")
    _check_same([_signature(g) for g in got], "process_allgather", "leaves of the same shapes")
    # A scalar has no first axis to concatenate along: stacked, with tiled or not (as JAX's).
    out = [
        (np.concatenate if tiled and vals[i].ndim else np.stack)([g[i] for g in got])
        for i in range(len(vals))
    ]
    return tu.tree_unflatten(tree, out)


def assert_equal(in_tree: Any, fail_message: str = "") -> None:
    """Raise AssertionError on every process unless all processes passed equal values."""
    world = backends.world()
    leaves, _ = _host_leaves(in_tree, "assert_equal")
    vals = [_host_value(x, "assert_equal") for x in leaves]
    if world.size == 1:
        return
    got = world.allgather(vals, "assert_equal")
    differ = [
        r
        for r, g in enumerate(got)
        if len(g) != len(vals)
        or any(a.dtype != b.dtype or not np.array_equal(a, b) for a, b in zip(g, got[0]))
    ]
    if differ:
        raise AssertionError(
            f"{fail_message} assert_equal: processes {differ} hold values that differ from "
            f"process 0's: expected {got[0]}; process {differ[0]} has {got[differ[0]]}."
        )


def host_local_array_to_global_array(local_inputs: Any, global_mesh: Any, pspecs: Any) -> Any:
    """This process's part of each global array -> the global Array sharded by ``pspecs`` on
    ``global_mesh``. A dimension split over mesh axes that span processes grows by their
    share outside this process (``np.arange(4)`` with ``P('x')`` over 2 processes gives 8
    elements, process ``p``'s at ``4p:4p+4``); replicated dimensions keep their size (every
    process should then pass the same values, as in JAX). This process's devices must form
    a sub-box of the mesh (JAX's contiguous mesh)."""
    fn = "host_local_array_to_global_array"
    leaves, tree_def, specs = _with_specs(local_inputs, pspecs, fn)
    out = [_to_global(x, global_mesh, s, fn) for x, s in zip(leaves, specs)]
    return tu.tree_unflatten(tree_def, out)


def global_array_to_host_local_array(global_inputs: Any, global_mesh: Any, pspecs: Any) -> Any:
    """Each global Array -> this process's part of it: an Array sharded by ``pspecs`` over
    this process's sub-box of ``global_mesh`` (the inverse of
    ``host_local_array_to_global_array``). An Array this process holds whole (fully
    addressable) comes back as it is."""
    fn = "global_array_to_host_local_array"
    leaves, tree_def, specs = _with_specs(global_inputs, pspecs, fn)
    out = [_to_local(x, global_mesh, s, fn) for x, s in zip(leaves, specs)]
    return tu.tree_unflatten(tree_def, out)


def _is_key(x: Any) -> bool:
    from spmd._src.key_arrays import is_key_array

    return is_key_array(x)


def _with_specs(tree: Any, pspecs: Any, fn: str) -> tuple:
    from spmd._src.sharding import PartitionSpec

    # Key arrays are leaves here (JAX's are arrays of a key dtype), not their key data.
    leaves, tree_def = tu.tree_flatten(tree, is_leaf=_is_key)
    if pspecs is None:
        raise ValueError(
            f"{fn}: `None` is not a valid input to the pspecs argument. Please use "
            "jax.sharding.PartitionSpec() if you wanted to replicate your input."
        )
    if isinstance(pspecs, PartitionSpec):
        return leaves, tree_def, [pspecs] * len(leaves)
    try:
        specs = tu.broadcast_prefix(
            pspecs, tu.tree_unflatten(tree_def, [0] * len(leaves)),
            is_leaf=lambda s: isinstance(s, PartitionSpec) or s is None,
        )  # fmt: skip
    except ValueError as e:
        raise ValueError(
            f"{fn}: pspecs must be a PartitionSpec or a pytree prefix of the inputs "
            f"({tree_def}), one PartitionSpec per input array; "
            f"{str(e).split('; ', 1)[-1]}"
        ) from None
    for s in specs:
        if not isinstance(s, PartitionSpec):
            raise ValueError(
                f"{fn}: pspecs must hold a PartitionSpec per input array, got {s!r}; use "
                "PartitionSpec() to replicate an input."
            )
    return leaves, tree_def, specs


def _local_mesh(mesh: Any, fn: str) -> Any:
    """The sub-mesh of this process's devices (JAX's ``mesh.local_mesh``): they must fill a
    box of the mesh's device array."""
    local = mesh.local_submesh()
    if local is None:
        me = backends.world().rank
        raise ValueError(
            f"{fn}: the devices of process {me} do not form a contiguous sub-box of the mesh "
            f"{mesh} (device ids {mesh.device_ids.tolist()}); use jax.make_array_from_callback "
            "or make_array_from_single_device_arrays for such meshes."
        )
    return local


def _factors(mesh: Any, local: Any, spec: Any, ndim: int, fn: str) -> list[int]:
    """Per dimension, how many times the global size is the local one (the share of the
    dimension's mesh axes that lies outside this process)."""
    from spmd._src.sharding import spec_axes

    if len(spec) > ndim:
        raise ValueError(
            f"{fn}: the PartitionSpec {spec} has {len(spec)} entries, more than the rank "
            f"{ndim} of its input"
        )
    out = []
    for e in spec._normalized(ndim):
        axes = spec_axes(e)
        g = int(np.prod([mesh.shape[a] for a in axes])) if axes else 1
        n = int(np.prod([local.shape[a] for a in axes])) if axes else 1
        out.append(g // n)
    return out


def _to_global(x: Any, mesh: Any, spec: Any, fn: str) -> Any:
    from spmd._src.array import Array
    from spmd._src.placement import device_put, make_array_from_process_local_data
    from spmd._src.sharding import NamedSharding

    if _is_key(x):
        return type(x)(_to_global(x._base, mesh, spec, fn))
    if type(x) is GlobalArray:
        return x  # already global (JAX passes non-fully-addressable Arrays through)
    if backends.world().size == 1:
        return device_put(x, NamedSharding(mesh, spec))
    local = _local_mesh(mesh, fn)
    value = x if isinstance(x, Array) else np.asarray(x)
    weak = getattr(value, "weak_type", False)
    value = np.asarray(value)
    f = _factors(mesh, local, spec, value.ndim, fn)
    try:
        from spmd._src.sharding import check_divisible

        check_divisible(NamedSharding(local, spec), value.shape)
    except ValueError as e:
        raise type(e)(f"{fn}: this process's input of shape {value.shape}: {e}") from None
    gshape = tuple(d * k for d, k in zip(value.shape, f))
    out = make_array_from_process_local_data(NamedSharding(mesh, spec), value, gshape)
    if weak:
        from spmd._src.core import ShapedArray

        out.aval = ShapedArray(out.shape, out.dtype, True)
    return out


def _to_local(x: Any, mesh: Any, spec: Any, fn: str) -> Any:
    from spmd._src.array import Array
    from spmd._src.placement import device_put
    from spmd._src.sharding import NamedSharding

    if _is_key(x):
        return type(x)(_to_local(x._base, mesh, spec, fn))
    if backends.world().size == 1:
        return device_put(x, NamedSharding(mesh, spec))
    if type(x) is Array:
        return x  # this process holds it whole already (JAX returns it unchanged)
    local = _local_mesh(mesh, fn)
    if type(x) is not GlobalArray:  # host data: this process's part already
        return device_put(np.asarray(x), NamedSharding(local, spec))
    from spmd._src import multiprocess  # lazy: runs programs (above us)

    _factors(mesh, local, spec, x.ndim, fn)  # checks the spec's rank
    target = NamedSharding(mesh, spec)
    x = multiprocess.put(x, target)  # a collective when it must be resharded
    part = multiprocess.local_part(x)
    return Array(part._value, x.weak_type, NamedSharding(local, spec))


# ---------------------------------------------------------------------------------------------
# Preemption and failures. spmd's jobs get no preemption notices, and a failing process ends the
# whole MPI job (its traceback printed), so the devices of a running job are all live.


class ProcessFailureError(Exception):
    """A process of the job failed (JAX's class; spmd's jobs end instead)."""


def reached_preemption_sync_point(step_id: int) -> bool:
    """Whether every process has reached the step at which to checkpoint before a
    preemption. spmd's jobs receive no preemption notices: always False."""
    return False


@contextlib.contextmanager
def live_devices(devices: Sequence[Any]) -> Iterator[list]:
    """The live ones of ``devices``, agreed on by every process (a barrier first). In spmd a
    failing process ends the whole job, so while it runs every device is live."""
    from spmd._src import distributed  # lazy: the public runtime sits above us

    if not distributed.is_initialized():
        raise RuntimeError("Distributed JAX not initialized.")
    backends.world().barrier("live_devices")
    yield list(devices)
