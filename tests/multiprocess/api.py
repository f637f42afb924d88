"""Run by tests/test_multiprocess.py under `spmd run -n 2 --devices 4`: each rank writes what it
sees to <argv[1]>/rank<r>.json (the test checks them against values worked out by hand)."""

import json
import sys
from pathlib import Path

import numpy as np

import spmd as jax
from spmd.experimental import multihost_utils as mhu
from spmd.sharding import NamedSharding
from spmd.sharding import PartitionSpec as P

jax.distributed.initialize()  # as a JAX program would; the launcher already joined the ranks
me = jax.process_index()
out = {
    "rank": me,
    "count": jax.process_count(),
    "devices": [d.id for d in jax.devices()],
    "device_procs": [d.process_index for d in jax.devices()],
    "local": [d.id for d in jax.local_devices()],
    "initialized": jax.distributed.is_initialized(),
}
try:
    jax.distributed.initialize()
except RuntimeError as e:
    out["second_initialize"] = str(e)

mesh = jax.make_mesh((2, 4), ("x", "y"))  # rows are the two processes
value = np.arange(32, dtype=np.float32).reshape(4, 8)
rows = jax.device_put(value, NamedSharding(mesh, P("x", "y")))
out["type"] = type(rows).__name__
out["isinstance"] = isinstance(rows, jax.Array)
out["fully_addressable"] = rows.is_fully_addressable
out["shards"] = [
    [d.id, [[s.start, s.stop] for s in idx]]
    for d, idx in [(s.device, s.index) for s in rows.addressable_shards]
]
out["shard_data"] = [np.asarray(s.data).tolist() for s in rows.addressable_shards][:1]
try:
    np.asarray(rows)
except RuntimeError as e:
    out["asarray_error"] = str(e)
# Split only within each process, replicated across them: each process holds it all.
cols = jax.device_put(value, NamedSharding(mesh, P(None, "y")))
out["covered"] = np.asarray(cols).tolist() == value.tolist()
out["gathered"] = mhu.process_allgather(rows, tiled=True).tolist() == value.tolist()

local = np.full((2, 8), me, np.float32)  # this process's rows of a (4, 8) array
g = jax.make_array_from_process_local_data(NamedSharding(mesh, P("x", "y")), local)
out["from_local"] = [list(g.shape), mhu.process_allgather(g, tiled=True).tolist()]
cb = jax.make_array_from_callback((4, 8), NamedSharding(mesh, P("x")), lambda idx: value[idx])
out["from_callback"] = mhu.process_allgather(cb, tiled=True).tolist() == value.tolist()
out["sum"] = float((rows * 2).sum())

out["allgather"] = mhu.process_allgather(np.array([me, 10 + me])).tolist()
out["allgather_tiled"] = mhu.process_allgather(np.array([me, 10 + me]), tiled=True).tolist()
b = mhu.broadcast_one_to_all({"a": np.float32(me + 7)}, is_source=me == 1)
out["broadcast"] = [b["a"].dtype.name, float(b["a"])]
mhu.assert_equal(np.arange(3))
try:
    mhu.assert_equal(np.arange(3) + me, "ranks differ:")
except AssertionError as e:
    out["assert_equal"] = str(e)
try:
    mhu.broadcast_one_to_all(np.zeros(2), is_source=True)
except ValueError as e:
    out["two_sources"] = str(e)
try:
    mhu.process_allgather(np.zeros(2 + me))
except ValueError as e:
    out["shape_mismatch"] = str(e)
with mhu.live_devices(jax.devices()) as live:
    out["live_devices"] = [d.id for d in live]
out["preemption"] = mhu.reached_preemption_sync_point(3)
out["local_mesh"] = mesh.local_mesh.device_ids.tolist()
mhu.sync_global_devices("done")
jax.distributed.shutdown()
Path(sys.argv[1], f"rank{me}.json").write_text(json.dumps(out))
