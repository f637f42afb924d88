"""``spmd.experimental.multihost_utils``: values exchanged between the processes of a job.

Host-local values (NumPy arrays, Python scalars, Arrays whose data this process holds) go to
every process through the communicator (``spmd._src.backends``), in process order, so every
process gets the same bits. With one process each function is a copy, as in JAX.

>>> import numpy as np
>>> process_allgather(np.arange(3))  # one process: a stack of one
array([[0, 1, 2]])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spmd._src import backends
from spmd._src import tree_util as tu
from spmd._src.global_array import GlobalArray

__all__ = [
    "assert_equal",
    "broadcast_one_to_all",
    "host_local_array_to_global_array",
    "global_array_to_host_local_array",
    "process_allgather",
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
    return np.asarray(x)


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
    leaves, tree = tu.tree_flatten(in_tree)
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
    or concatenated along the first axis with ``tiled=True``. A leaf that is an Array over the
    devices of several processes gives its whole value (``tiled`` does not apply)."""
    world = backends.world()
    leaves, tree = tu.tree_flatten(in_tree)
    if any(type(x) is GlobalArray for x in leaves):
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
        return tu.tree_unflatten(tree, [np.array(v) if tiled else v[None] for v in vals])
    if tiled and any(v.ndim == 0 for v in vals):
        raise ValueError(
            "process_allgather: tiled=True concatenates along the first axis, which a scalar "
            "leaf does not have; use tiled=False to stack the scalars"
        )
    got = world.allgather(vals, "process_allgather")
    _check_same([_signature(g) for g in got], "process_allgather", "leaves of the same shapes")
    join = np.concatenate if tiled else np.stack
    out = [join([g[i] for g in got]) for i in range(len(vals))]
    return tu.tree_unflatten(tree, out)


def assert_equal(in_tree: Any, fail_message: str = "") -> None:
    """Raise AssertionError on every process unless all processes passed equal values."""
    world = backends.world()
    leaves, _ = tu.tree_flatten(in_tree)
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
    """This process's part of each global array -> the global Array sharded by ``pspecs``."""
    return _convert(local_inputs, global_mesh, pspecs, "host_local_array_to_global_array")


def global_array_to_host_local_array(global_inputs: Any, global_mesh: Any, pspecs: Any) -> Any:
    """Each global Array -> this process's part of it."""
    return _convert(global_inputs, global_mesh, pspecs, "global_array_to_host_local_array")


def _convert(tree: Any, mesh: Any, pspecs: Any, fn: str) -> Any:
    from spmd._src.placement import device_put
    from spmd._src.sharding import NamedSharding, PartitionSpec

    if backends.world().size > 1:
        raise NotImplementedError(
            f"{fn}: Arrays spanning several processes are not supported yet; use "
            "process_allgather/broadcast_one_to_all on host-local values"
        )
    leaves, tree_def = tu.tree_flatten(tree)
    specs = (
        [pspecs] * len(leaves)
        if isinstance(pspecs, PartitionSpec)
        else tu.tree_flatten(pspecs, is_leaf=lambda s: isinstance(s, PartitionSpec))[0]
    )
    if len(specs) != len(leaves):
        raise ValueError(f"{fn}: {len(specs)} pspecs for {len(leaves)} inputs")
    out = [device_put(x, NamedSharding(mesh, s)) for x, s in zip(leaves, specs)]
    return tu.tree_unflatten(tree_def, out)
