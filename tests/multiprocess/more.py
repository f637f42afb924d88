"""Run by tests/test_multiprocess_more.py as one process of 8 devices, two of 4 and four of 2:
what JAX multi-process programs do beyond tests/multiprocess/bitwise.py (typed PRNG keys on a
mesh spanning processes, host-local <-> global arrays, the examples of JAX's multi-process docs,
Explicit meshes, device_put/pickle/device_get rules, errors). Prints one line per numeric result
(name, dtype, shape, hash of the gathered bytes: the same in every run) and writes what rank r
sees to <argv[1]>/rank<r>.json."""

import hashlib
import json
import pickle
import sys
from pathlib import Path

import numpy as np

import spmd as jax
import spmd.numpy as jnp
from spmd.experimental import multihost_utils as mhu
from spmd.experimental.shard_map import shard_map
from spmd.sharding import AxisType, NamedSharding, SingleDeviceSharding
from spmd.sharding import PartitionSpec as P

jax.config.update("spmd_partition", "always")  # the one-process run a job reproduces bit for bit
me, count = jax.process_index(), jax.process_count()
results, out = {}, {"rank": me, "count": count}


def record(name, x):
    results[name] = np.asarray(mhu.process_allgather(x, tiled=True))


def error(name, fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what the test checks
        out[name] = [type(e).__name__, str(e)]
    else:
        out[name] = None


mesh1 = jax.make_mesh((8,), ("x",))
mesh2 = jax.make_mesh((2, 4), ("x", "y"))
s1 = NamedSharding(mesh1, P("x"))

# -- 1. typed PRNG keys on a mesh spanning the processes ------------------------------------------
ks = jax.random.split(jax.random.key(0), 8)
K = jax.device_put(ks, s1)
record("key_put", jax.random.key_data(K))
out["key_type"] = [type(K).__name__, str(K.dtype), list(K.shape), str(K.sharding.spec)]
out["key_typeof"] = str(jax.typeof(jax.device_put(ks, NamedSharding(jax.make_mesh(
    (8,), ("x",), axis_types=(AxisType.Explicit,)), P("x")))))  # fmt: skip
out["key_shards"] = [[sh.device.id, sh.index[0].start, str(sh.data.dtype)]
                     for sh in K.addressable_shards]  # fmt: skip
out["key_addressable"] = K.is_fully_addressable
normal3 = jax.vmap(lambda k: jax.random.normal(k, (3,)))
record("key_jit_vmap_normal", jax.jit(normal3)(K))
record("key_eager_vmap_bits", jax.vmap(lambda k: jax.random.bits(k, (2,)))(K))
record("key_eager_index_normal", jax.random.normal(K[3], (4,)))
record("key_eager_fold_in", jax.random.key_data(jax.vmap(jax.random.fold_in)(K, jnp.arange(8))))
per_dev = shard_map(lambda kk: jax.random.uniform(kk[0], (1, 3)), mesh=mesh1,
                    in_specs=P("x"), out_specs=P("x"))  # fmt: skip
record("key_shard_map_uniform", jax.jit(per_dev)(K))
split8 = jax.jit(lambda k: jax.random.split(k, 8), out_shardings=s1)(jax.random.key(1))
record("key_jit_out_shardings", jax.random.key_data(split8))
out["key_jit_out"] = [type(split8).__name__, type(split8._base).__name__,
                      str(jax.typeof(split8)), str(split8.sharding.spec)]  # fmt: skip
placed = {
    "out_shardings": jax.jit(lambda a: a * 2, out_shardings=s1)(np.arange(8.0)),
    "in_shardings": jax.jit(lambda a: a * 2, in_shardings=s1)(np.arange(8.0)),
    "constraint": jax.lax.with_sharding_constraint(jnp.arange(8.0), s1),
    "constraint_jit": jax.jit(lambda a: jax.lax.with_sharding_constraint(a * 2, s1))(
        jnp.arange(8.0)),
    "put_in_jit": jax.jit(lambda a: jax.device_put(a * 2, s1))(jnp.arange(8.0)),
    "normal_out_sharding": jax.random.normal(jax.random.key(0), (8,), out_sharding=s1),
}  # fmt: skip
out["placed_from_host"] = {k: [type(v).__name__, str(v.sharding.spec)] for k, v in placed.items()}
for k, v in placed.items():
    record(f"placed_{k}", v)
K2 = jax.device_put(
    jax.random.split(jax.random.key(2), 8).reshape(2, 4), NamedSharding(mesh2, P("x", "y"))
)
record("key_2d_uniform", jax.jit(jax.vmap(jax.vmap(lambda k: jax.random.uniform(k, (2,)))))(K2))
out["key_wrap"] = str(jax.random.wrap_key_data(jax.random.key_data(K)).sharding.spec)
record("key_replicated_normal", jax.random.normal(jax.device_put(jax.random.key(3),
                                                  NamedSharding(mesh1, P())), (5,)))  # fmt: skip

# -- 2. host-local <-> global arrays ------------------------------------------------------------
V = np.arange(64, dtype=np.float32).reshape(8, 8)
out["g2h"] = {}
for spec in [P("x"), P("x", "y"), P(None, "y"), P(), P("y", "x")]:
    G = jax.device_put(V, NamedSharding(mesh2, spec))
    L = mhu.global_array_to_host_local_array(G, mesh2, spec)
    G2 = mhu.host_local_array_to_global_array(L, mesh2, spec)
    out["g2h"][str(spec)] = [
        type(L).__name__, L.is_fully_addressable, list(L.shape), str(L.sharding.spec),
        list(L.sharding.mesh.devices.shape), np.asarray(L).tolist(), list(G2.shape),
        str(G2.sharding.spec),
    ]  # fmt: skip
    record(f"h2g_roundtrip_{spec}", G2)
    record(f"h2g_jit_{spec}", jax.jit(lambda a: jnp.tanh(a) @ a.T)(G2))
# Each process's own rows (different on each process), as JAX's docstring example.
local = np.arange(8, dtype=np.int32) * (me + 1)
line = mhu.host_local_array_to_global_array(local, jax.make_mesh((8,), ("x",)), P("x"))
out["h2g_docstring"] = [list(line.shape), mhu.process_allgather(line, tiled=True).tolist()]
tree = mhu.host_local_array_to_global_array(
    {"w": np.ones((2, 4), np.float32), "b": np.float32(me + 1)}, mesh2, {"w": P("x"), "b": P()}
)
out["h2g_tree"] = [list(tree["w"].shape), list(tree["b"].shape)]
keys_local = mhu.global_array_to_host_local_array(K, mesh1, P("x"))
keys_back = mhu.host_local_array_to_global_array(keys_local, mesh1, P("x"))
out["h2g_keys"] = [type(keys_local).__name__, list(keys_local.shape), list(keys_back.shape)]
record("h2g_keys_roundtrip", jax.random.key_data(keys_back))
error("h2g_none", lambda: mhu.host_local_array_to_global_array(V, mesh2, None))
error("h2g_prefix", lambda: mhu.host_local_array_to_global_array((V, V), mesh2, (P(),)))
error("h2g_indivisible", lambda: mhu.host_local_array_to_global_array(np.ones((3, 3)), mesh2,
                                                                       P(None, "y")))  # fmt: skip
k = jax.local_device_count()
interleaved = jax.sharding.Mesh(np.array(sorted(jax.devices(), key=lambda d: (d.id % k, d.id))),
                                ("x",))  # fmt: skip
error("h2g_not_contiguous", lambda: mhu.host_local_array_to_global_array(V, interleaved, P()))
error("h2g_rank", lambda: mhu.host_local_array_to_global_array(np.ones(4), mesh2, P("x", "y")))

# -- 3. the examples of JAX's multi-process docs ---------------------------------------------------
xs = jnp.ones(jax.local_device_count())
r = jax.pmap(lambda x: jax.lax.psum(x, "i"), axis_name="i")(xs)
out["pmap_psum"] = [type(r).__name__, np.asarray(r).tolist(), str(r.sharding)]
record("pmap_psum", r)  # each process's part, gathered in process order
batch = np.arange(16 * 3, dtype=np.float32).reshape(16, 3)
mine = batch[me * 16 // count : (me + 1) * 16 // count]  # this process's rows of the batch
gb = jax.make_array_from_process_local_data(s1, mine)
loss = jax.jit(lambda b: jnp.mean(jnp.sin(b) ** 2))(gb)
out["docs_loss"] = [type(loss).__name__, loss.is_fully_addressable, float(loss)]
record("docs_loss", loss)
# local_data may hold a dimension whole (each process takes its part), as JAX allows.
record("local_data_whole", jax.make_array_from_process_local_data(s1, batch, batch.shape))
error("local_data_wrong", lambda: jax.make_array_from_process_local_data(s1, batch[:3], (16, 3)))
uneven = batch[me * 5 // count : (me + 1) * 5 // count]
error("local_data_uneven", lambda: jax.make_array_from_process_local_data(s1, uneven, (5, 3)))
out["allgather_scalars"] = [mhu.process_allgather(np.float32(me * 2 + 1)).tolist(),
                            mhu.process_allgather(np.int32(me), tiled=True).tolist()]  # fmt: skip

# -- 4. Explicit meshes (sharding in types) ------------------------------------------------------
em = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
E = jax.device_put(V, NamedSharding(em, P("x", "y")))
types = {}


def typed(a):
    types["in"] = str(jax.typeof(a))
    y = a * 2
    types["mul"] = str(jax.typeof(y))
    s = jnp.sum(y, axis=1)
    types["sum"] = str(jax.typeof(s))
    return y, s


ye, se = jax.jit(typed)(E)
out["explicit"] = [str(jax.typeof(E)), types, str(jax.typeof(ye)), str(jax.typeof(se))]
with jax.sharding.use_mesh(em):
    R = jax.sharding.reshard(E, P("y", None))
    Rj = jax.jit(lambda a: jax.sharding.reshard(a * 3, P(None, "x")))(E)
    Ma = jnp.matmul(E, E, out_sharding=P("x", None))
    Au = jax.sharding.auto_axes(lambda a: a * 2, out_sharding=P("x", None))(E)
    Nr = jax.random.normal(jax.random.key(0), (8, 4), out_sharding=P("x", "y"))
    error("explicit_matmul", lambda: E @ E)
out["explicit_reshard"] = [type(R).__name__, str(jax.typeof(R)), str(jax.typeof(Rj))]
out["explicit_more"] = [str(jax.typeof(v)) for v in (Ma, Au, Nr)]
record("explicit_matmul_out_sharding", Ma)
record("explicit_auto_axes", Au)
record("explicit_normal_out_sharding", Nr)
record("explicit_mul", ye)
record("explicit_sum", se)
record("explicit_reshard", R)
record("explicit_reshard_jit", Rj)

# -- 5. device_put, pickling, device_get, jit's outputs ------------------------------------------
spread = jax.device_put(V, NamedSharding(mesh2, P("x", "y")))
rep = jax.device_put(V, NamedSharding(mesh2, P()))
error("put_differs", lambda: jax.device_put(np.float32(me), NamedSharding(mesh1, P())))
# Equal NaNs are equal (JAX's check compares with ==, which refuses any NaN).
record("put_nan", jax.device_put(np.array([np.nan, 1.0], np.float32), NamedSharding(mesh1, P())))
error("put_to_device", lambda: jax.device_put(spread, jax.local_devices()[0]))
error("put_to_local_sharding",
      lambda: jax.device_put(spread, SingleDeviceSharding(jax.local_devices()[0])))  # fmt: skip
committed = jax.device_put(np.ones(8, np.float32), jax.local_devices()[0])
error("put_committed", lambda: jax.device_put(committed, s1))
error("pickle_spread", lambda: pickle.dumps(spread))
error("device_get_spread", lambda: jax.device_get(spread))
error("allgather_untiled", lambda: mhu.process_allgather(spread))
error("allgather_key", lambda: mhu.process_allgather(K, tiled=True))
error("eager_committed", lambda: spread + jax.device_put(V, jax.local_devices()[0]))
out["repr_spread"] = [repr(spread), str(spread)]
out["pickle_replicated"] = np.asarray(pickle.loads(pickle.dumps(rep))).tolist() == V.tolist()
out["device_get_replicated"] = type(jax.device_get(rep)).__name__
resharded = jax.device_put(spread, NamedSharding(mesh2, P("y", "x")))
record("put_reshard", resharded)
mixed = jax.jit(lambda a: (a.sum(), a * 2, jnp.ones(3), 5))(spread)
out["jit_mixed"] = [[type(v).__name__, str(getattr(v, "sharding", None) and v.sharding.spec)]
                    for v in mixed]  # fmt: skip
record("jit_mixed_sum", mixed[0])
record("jit_mixed_ones", mixed[2])
donated = jax.jit(lambda a: a + 1, donate_argnums=0)(jax.device_put(V, s1))
record("jit_donate", donated)
tok = jax.jit(lambda a, t: (a * 2, t))(spread, jax.lax.create_token())
out["jit_token"] = [type(v).__name__ for v in tok]
ready = jax.block_until_ready({"a": spread, "k": K})
out["block_until_ready"] = [type(ready["a"]).__name__, type(ready["k"]).__name__]

for name, v in results.items():
    digest = hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest()[:16]
    if me == 0:
        print(name, v.dtype.name, list(v.shape), digest)
Path(sys.argv[1], f"rank{me}.json").write_text(json.dumps(out))
