"""One multi-process program for JAX and spmd alike: each rank writes what it sees as JSON.

    python semantics.py jax OUTDIR RANK PORT     # one of two JAX processes (gloo collectives)
    spmd run -n 2 --devices 4 semantics.py spmd OUTDIR

``tests/golden_gen/multiprocess_gen.py`` runs it under JAX (two processes of 4 CPU devices) and
keeps both ranks' records in ``tests/golden/multiprocess.json``; ``tests/test_multiprocess_golden
.py`` runs it under spmd and compares, record by record: ints, dtypes, shapes, shardings and
error classes exactly, floats to 1e-6.
"""

import json
import sys
from pathlib import Path

import numpy as np

backend, outdir = sys.argv[1], Path(sys.argv[2])
if backend == "jax":
    import jax

    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    rank, port = int(sys.argv[3]), sys.argv[4]
    jax.distributed.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=rank)
else:
    import spmd as jax

    jax.distributed.initialize()

import importlib  # noqa: E402

jnp = importlib.import_module(jax.__name__ + ".numpy")
lax = jax.lax
mhu = importlib.import_module(jax.__name__ + ".experimental.multihost_utils")
NamedSharding = jax.sharding.NamedSharding
P = jax.sharding.PartitionSpec
AxisType = jax.sharding.AxisType

rec: dict = {}


def val(x):
    """A JSON form of an array-like: dtype, shape and values."""
    a = np.asarray(x)
    return [a.dtype.name, list(a.shape), a.tolist()]


def note(name, fn):
    """Record ``fn()`` or the class of the error it raises."""
    try:
        rec[name] = fn()
    except Exception as e:  # noqa: BLE001 -- the class is what is compared
        rec[name] = ["error", type(e).__name__]


def shards(x):
    return [
        [d.id, [[s.start, s.stop] for s in idx], val(data)]
        for d, idx, data in sorted(
            ((s.device, s.index, s.data) for s in x.addressable_shards), key=lambda t: t[0].id
        )
    ]


def spec(x):
    return str(tuple(x.sharding.spec))


me = jax.process_index()
rec["process"] = [me, jax.process_count(), jax.device_count(), jax.local_device_count()]
rec["devices"] = [[d.id, d.process_index] for d in jax.devices()]
rec["local_devices"] = [d.id for d in jax.local_devices()]

auto = (AxisType.Auto, AxisType.Auto)
mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=auto)
mesh1 = jax.make_mesh((8,), ("i",), axis_types=(AxisType.Auto,))
value = np.arange(32, dtype=np.float32).reshape(4, 8)

# Arrays from each process's part of the data.
local = (np.arange(16, dtype=np.float32) + 100 * me).reshape(2, 8)
g = jax.make_array_from_process_local_data(NamedSharding(mesh, P("x", "y")), local)
rec["local_data"] = [list(g.shape), g.is_fully_addressable, g.is_fully_replicated, shards(g)]
g1 = jax.make_array_from_process_local_data(NamedSharding(mesh1, P("i")), np.arange(4.0) + me)
rec["local_data_1d"] = [list(g1.shape), str(g1.dtype), shards(g1)]
rec["local_data_global_shape"] = list(
    jax.make_array_from_process_local_data(NamedSharding(mesh, P("x", "y")), local, (4, 8)).shape
)
cb = jax.make_array_from_callback((4, 8), NamedSharding(mesh, P(None, "y")), lambda i: value[i])
rec["callback"] = [shards(cb), cb.is_fully_replicated]
note("asarray_split", lambda: val(g))
note("asarray_covered", lambda: val(cb))

# Gathering and broadcasting.
rec["allgather_host"] = val(mhu.process_allgather(np.array([me, 10 + me], np.int32)))
rec["allgather_host_tiled"] = val(
    mhu.process_allgather(np.array([me, 10 + me], np.int32), tiled=True)
)
note("allgather_global", lambda: val(mhu.process_allgather(g)))
rec["allgather_global_tiled"] = val(mhu.process_allgather(g, tiled=True))
rec["allgather_scalar"] = val(mhu.process_allgather(np.float32(me + 0.5)))
rec["broadcast"] = val(mhu.broadcast_one_to_all(np.array([me + 1.0, me + 2.0], np.float32)))
rec["broadcast_src1"] = val(
    mhu.broadcast_one_to_all(np.array([me + 1, 7], np.int32), is_source=me == 1)
)
mhu.sync_global_devices("records")

# jit over arrays spread over processes.
f = jax.jit(lambda a: (jnp.sin(a) * 2, a.sum(axis=0), a.sum(), (a @ a.T)[0]))
outs = f(g)
rec["jit"] = [[spec(o), o.is_fully_replicated, val(mhu.process_allgather(o, tiled=True))]
              for o in outs]  # fmt: skip
rec["jit_out_shardings"] = spec(
    jax.jit(lambda a: a * 3, out_shardings=NamedSharding(mesh, P(None, "x")))(g)
)
rec["eager"] = [spec(g + 1), val(mhu.process_allgather(g * 2, tiled=True))]
note("eager_float_replicated", lambda: float(g.sum()))

# Arrays made like a spread one (an optimizer's state): placed as it is, committed.
likes = {
    "zeros_like": jnp.zeros_like(g),
    "ones_like_int": jnp.ones_like(g, dtype=jnp.int32),
    "full_like": jnp.full_like(g, 3.0),
    "lax_full_like": lax.full_like(g, 2.0),
    "tree": jax.tree.map(jnp.zeros_like, {"w": g})["w"],
    "other_shape": jnp.zeros_like(g, shape=(8,)),
}
rec["likes"] = {
    k: [spec(v) if v.sharding.__class__.__name__ == "NamedSharding" else "one device",
        v.committed, v.is_fully_addressable, val(mhu.process_allgather(v, tiled=True))]
    for k, v in likes.items()
}  # fmt: skip

# Arrays in host memory: typed there (f32<host>[...]), and so are jit's results on them.
hs = NamedSharding(mesh1, P("i"), memory_kind="pinned_host")
hx = jax.device_put(np.arange(16.0, dtype=np.float32), hs)
hy = jax.jit(lambda a: a * 2)(hx)
rec["host_memory"] = [
    [v.sharding.memory_kind, str(jax.typeof(v)), val(mhu.process_allgather(v, tiled=True))]
    for v in (hx, hy)
]

# shard_map with collectives across processes.
sm = jax.jit(
    jax.shard_map(
        lambda b: (
            lax.psum(b, "x"),
            lax.all_gather(b, "y", tiled=True),
            jnp.reshape(lax.axis_index("x"), (1,)),
        ),
        mesh=mesh,
        in_specs=P("x", "y"),
        out_specs=(P(None, "y"), P("x", "y"), P("x")),
    )
)
rec["shard_map"] = [val(mhu.process_allgather(o, tiled=True)) for o in sm(g)]

# pmap: each process passes its own devices' part.
pm = jax.pmap(lambda v: (lax.psum(v, "i"), lax.axis_index("i"), v * 2), axis_name="i")
rec["pmap"] = [val(o) for o in pm(np.arange(4, dtype=np.float32) + 10 * me)]
note("pmap_wrong_size", lambda: pm(np.arange(3, dtype=np.float32)))

mhu.sync_global_devices("done")
outdir.mkdir(parents=True, exist_ok=True)
(outdir / f"rank{me}.json").write_text(json.dumps(rec))
