"""The code of JAX's 501 page "Distributed data loading" (docs/501/data-loading.md), as one
program run in a single process of 8 CPU devices.

``program(jax, rec)`` runs the page's two code blocks with ``jax`` being JAX or spmd and
records what they build: the per-process batch, the global batch array with its sharding,
and which slice (and replica) of the global batch each device holds.

Changed: the blocks read their batches through ``tf.data`` (TensorFlow is not a dependency
here); the program shards the same list of batches the way ``Dataset.shard(num_shards,
index)`` does (every ``num_shards``-th element from ``index``) and takes the first, as
``as_numpy_iterator().next()`` does. With one process, ``jax.local_devices(0)`` is all 8
devices, so the second block's mesh is 2 model replicas of 4 devices. Beyond the blocks
(marked): the page's Option 4 (load column-sharded, reshard inside the computation with
``with_sharding_constraint``) and the page's sharding examples of a (64, 128) array (1D over
the second dimension, 2D, full and partial replication) as shardings with the slices each
device holds.
"""

from __future__ import annotations

import importlib

import numpy as np
from record import note

KNOWN: dict[str, tuple[object, str]] = {}


def _shard(items: list, num_shards: int, index: int) -> list:
    """``tf.data.Dataset.shard``: every ``num_shards``-th element, from ``index``."""
    return items[index::num_shards]


def _slices(index: tuple) -> list:
    return [[s.start, s.stop] for s in index]


def _held(arr) -> list:
    """Per device (by id): the slice of the global array it holds and its replica id."""
    shards = sorted(arr.addressable_shards, key=lambda s: s.device.id)
    return [[s.device.id, _slices(s.index), s.replica_id, list(s.data.shape)] for s in shards]


def _dev(shard) -> int:
    return shard.device.id


def _indices(sharding, shape) -> list:
    """Per device (by id): the slice of a ``shape`` array ``sharding`` gives it."""
    m = sharding.devices_indices_map(shape)
    return [[d.id, _slices(m[d])] for d in sorted(m, key=lambda d: d.id)]


def program(jax, rec) -> None:
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    P = jax.sharding.PartitionSpec

    # -- Data parallelism (the tf.data example)
    ds = [np.ones((16, 3)) * i for i in range(100)]
    ds = _shard(ds, num_shards=jax.process_count(), index=jax.process_index())
    per_process_batch = ds[0]

    mesh = jax.make_mesh((jax.device_count(),), ("batch",))
    sharding = jax.NamedSharding(mesh, jax.sharding.PartitionSpec("batch"))
    global_batch_array = jax.make_array_from_process_local_data(sharding, per_process_batch)
    rec("dp.process", [jax.process_count(), jax.process_index(), jax.device_count()])
    rec("dp.global_batch_array", global_batch_array)
    rec("dp.held", _held(global_batch_array))
    rec("dp.addressable_devices", sorted(d.id for d in sharding.addressable_devices))

    # -- Model parallelism within a process (the second tf.data example)
    per_process_batches = [np.ones((16, 3)) * i for i in range(100)]
    ds = _shard(per_process_batches, num_shards=jax.process_count(), index=jax.process_index())
    per_process_batch = ds[0]

    num_model_replicas_per_process = 2
    num_model_replicas_total = num_model_replicas_per_process * jax.process_count()
    mesh_devices = np.array(
        [jax.local_devices(process_idx) for process_idx in range(jax.process_count())]
    )
    mesh_devices = mesh_devices.reshape(num_model_replicas_total, -1)
    for replica_devices in mesh_devices:
        num_processes = len(set(d.process_index for d in replica_devices))
        assert num_processes == 1
    mesh = jax.sharding.Mesh(mesh_devices, ["model_replicas", "data_parallelism"])
    rec("mp.mesh", [dict(mesh.shape), [[d.id for d in row] for row in mesh.devices]])
    sharding = jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec("model_replicas"))
    global_batch_array = jax.make_array_from_process_local_data(sharding, per_process_batch)
    rec("mp.global_batch_array", global_batch_array)
    rec("mp.held", _held(global_batch_array))
    rec("mp.is_fully_replicated", sharding.is_fully_replicated)
    # (Beyond the block: a batch whose rows differ, to see each replica's rows on its devices;
    # and local data that the sharding cannot split.)
    rows = np.arange(48.0).reshape(16, 3)
    arr = jax.make_array_from_process_local_data(sharding, rows)
    rec("mp.rows_per_device", [s.data for s in sorted(arr.addressable_shards, key=_dev)])
    note(rec, "mp.uneven", lambda: jax.make_array_from_process_local_data(sharding, rows[:15]))

    # -- Beyond the blocks: Option 4, load column-sharded and reshard in the computation
    # Auto axes: with_sharding_constraint reshards over them (JAX 0.10's default is Explicit).
    auto = (jax.sharding.AxisType.Auto,) * 2
    mesh2d = jax.make_mesh((2, 4), ("x", "y"), axis_types=auto)
    data = np.arange(64 * 128, dtype=np.float32).reshape(64, 128)
    by_column = jax.NamedSharding(mesh2d, P(None, ("x", "y")))
    target = jax.NamedSharding(mesh2d, P("x", "y"))
    loaded = jax.make_array_from_process_local_data(by_column, data)
    rec("option4.loaded_held", _held(loaded))

    @jax.jit
    def step(batch):
        batch = jax.lax.with_sharding_constraint(batch, target)
        return batch * 2

    out = step(loaded)
    rec("option4.out", [out.sharding.spec, out.shape, bool(jnp.array_equal(out, data * 2))])
    rec("option4.out_held", _held(out))

    # -- Beyond the blocks: the page's sharding examples of a (64, 128) array
    shape = (64, 128)
    one_d = jax.NamedSharding(jax.make_mesh((8,), ("d",)), P(None, "d"))
    rec("examples.1d_second_dim", _indices(one_d, shape))
    rec("examples.2d", _indices(jax.NamedSharding(mesh2d, P("x", "y")), shape))
    full = jax.NamedSharding(mesh2d, P())
    rec("examples.full_replication", [_indices(full, shape), full.is_fully_replicated])
    # Partial replication: each copy sharded over a process's two devices (4 copies), and
    # each copy sharded over two devices of different processes.
    per_process = jax.NamedSharding(jax.make_mesh((4, 2), ("copies", "pair")), P(None, "pair"))
    rec("examples.partial_within", _indices(per_process, shape))
    across = jax.NamedSharding(jax.make_mesh((2, 4), ("rows", "copies")), P("rows"))
    rec("examples.partial_across", _indices(across, shape))
