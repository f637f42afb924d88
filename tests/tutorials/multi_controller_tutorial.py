"""The programs of JAX's "Introduction to multi-controller JAX" page, for a job of two
processes of 4 CPU devices each; every rank writes what it records as JSON:

    python multi_controller_tutorial.py jax OUTDIR RANK PORT   # one of two JAX processes (gloo)
    spmd run -n 2 --devices 4 multi_controller_tutorial.py spmd OUTDIR

Recorded (tests/tutorials/record.py): what the page's programs print (the toy example's
shards and sum, process ids and devices, shardings), the error class of printing an array
spanning processes, and the sanity checks of its three ways of making process-spanning
arrays, with jax.experimental.multihost_utils around them. Shrunk: the page's 4096-sized
matmul is 64 x 32 and its 1024-example batch 32 examples of 8 x 3. Device ids are recorded as
positions in jax.devices() (JAX numbers process p's CPU devices from p * 2048, spmd
consecutively).
"""

import importlib
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from record import Recorder, note  # noqa: E402

backend, outdir = sys.argv[1], Path(sys.argv[2])
if backend == "jax":
    import jax

    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    proc_id, port = int(sys.argv[3]), sys.argv[4]
    num_procs = 2
    # The page: jax.distributed.initialize('localhost:10000', num_procs, proc_id)
    jax.distributed.initialize(f"127.0.0.1:{port}", num_procs, proc_id)
else:
    import spmd as jax

    jax.distributed.initialize()
    proc_id, num_procs = jax.process_index(), jax.process_count()

jnp = importlib.import_module(jax.__name__ + ".numpy")
multihost_utils = importlib.import_module(jax.__name__ + ".experimental.multihost_utils")
NamedSharding, P, Mesh = jax.sharding.NamedSharding, jax.sharding.PartitionSpec, jax.sharding.Mesh
rec = Recorder()


def make_mesh(shape, names):
    # The page's programs were written for Auto mesh axes (JAX 0.10.2's make_mesh defaults to
    # Explicit ones, where its x @ y is an ambiguous contraction): its meshes are Auto here.
    return jax.make_mesh(shape, names, (jax.sharding.AxisType.Auto,) * len(shape))


pos = {d.id: i for i, d in enumerate(jax.devices())}

# -- Toy example
assert jax.device_count() == 8
mesh = make_mesh((4, 2), ("i", "j"))
global_data = np.arange(32).reshape((4, 8))
sharding = NamedSharding(mesh, P("i", "j"))
global_array = jax.device_put(global_data, sharding)
assert global_array.shape == global_data.shape
rec("toy.shards", [[pos[s.device.id], s.data] for s in global_array.addressable_shards])
global_result = jnp.sum(jnp.sin(global_array))
rec("toy.result", [proc_id, global_result])

# -- Setting up multiple JAX processes (the GPU example's prints)
rec("process_index", jax.process_index())
rec("process_count", jax.process_count())
rec("devices", [[pos[d.id], d.process_index] for d in jax.devices()])
rec("local_devices", [pos[d.id] for d in jax.local_devices()])
rec("counts", [jax.device_count(), jax.local_device_count()])

# -- Meshes, shardings, and computations can span processes
mesh = Mesh(jax.devices(), ("a",))
mesh = make_mesh((jax.device_count(),), ("a",))
arr = jax.device_put(jnp.ones((32, 32)), NamedSharding(mesh, P("a")))
rec("span.arr", [arr.sharding.spec, [[pos[s.device.id], s.index] for s in arr.addressable_shards]])

mesh = make_mesh((jax.device_count() // 2, 2), ("a", "b"))


def device_put(x, spec):
    return jax.device_put(x, NamedSharding(mesh, spec))


x = device_put(jnp.ones((64, 32)), P("a", "b"))
y = device_put(jnp.ones((32, 64)), P("b", None))
z = jax.nn.relu(x @ y)
rec("matmul.sharding", str(z.sharding.spec))
rec(
    "matmul.shards",
    [[pos[s.device.id], s.data.shape, float(s.data.sum())] for s in z.addressable_shards],
)
note(rec, "print_spanning", lambda: str(z))
w = device_put(z, P(None, None))
rec("replicated", w)

# -- Making process-spanning arrays from external data
batch_size = 32
per_process_batch_size = batch_size // jax.process_count()
per_device_batch_size = batch_size // jax.device_count()
mesh = make_mesh((jax.device_count(),), ("batch"))
sharding = NamedSharding(mesh, P("batch"))
# The page's "data loader" draws np.random.rand; each process's examples are made distinct here.
process_batch = (
    np.arange(per_process_batch_size * 8 * 3, dtype=np.float32).reshape(
        per_process_batch_size, 8, 3
    )
    + 1000 * jax.process_index()
)
global_batch = jax.make_array_from_process_local_data(sharding, process_batch)
assert global_batch.shape[0] == batch_size
assert process_batch.shape[0] == per_process_batch_size
assert global_batch.addressable_shards[0].data.shape[0] == per_device_batch_size
rec("local_data.shape", global_batch.shape)
rec(
    "local_data.shards",
    [[pos[s.device.id], s.index, s.data] for s in global_batch.addressable_shards],
)
note(rec, "local_data.allgather", lambda: multihost_utils.process_allgather(global_batch))
rec("local_data.allgather.tiled", multihost_utils.process_allgather(global_batch, tiled=True))

shape = (jax.process_count(), jax.local_device_count())
mesh = make_mesh(shape, ("i", "j"))
sharding = NamedSharding(mesh, P("i", "j"))
local_arrays = [
    jax.device_put(jnp.array([[jax.process_index() * jax.local_device_count() + i]]), device)
    for i, device in enumerate(jax.local_devices())
]
global_array = jax.make_array_from_single_device_arrays(
    shape=shape, sharding=sharding, arrays=local_arrays
)
# The page gathers with process_allgather(global_array): JAX 0.10.2 refuses that (tiled=False)
# for an array spanning processes, so the check gathers tiled.
note(rec, "single_device_arrays.untiled", lambda: multihost_utils.process_allgather(global_array))
gathered = multihost_utils.process_allgather(global_array, tiled=True)
assert np.all(gathered == np.arange(jax.device_count()).reshape(global_array.shape))
rec("single_device_arrays", [gathered, global_array.sharding.spec])

# -- multihost_utils, as the page points to it
multihost_utils.sync_global_devices("tutorial")
rec(
    "broadcast_one_to_all",
    multihost_utils.broadcast_one_to_all(np.float32(7 + jax.process_index())),
)
rec(
    "process_allgather.local",
    multihost_utils.process_allgather(np.arange(3) + 10 * jax.process_index()),
)
rec(
    "process_allgather.tiled",
    multihost_utils.process_allgather(np.arange(3) + 10 * jax.process_index(), tiled=True),
)
note(
    rec,
    "assert_equal.differs",
    lambda: multihost_utils.assert_equal(np.array([jax.process_index()]), "differs"),
)
rec("assert_equal.same", multihost_utils.assert_equal(np.array([1, 2]), "same"))

(outdir / f"rank{jax.process_index()}.json").write_text(json.dumps(rec, indent=1, default=str))
