"""A while loop over devices whose trip counts differ, with a collective and a debug print in
its body: run by tests/test_multiprocess.py in one process and in a job of two. Each device
prints at each of its own steps (every process for its own devices); the collective keeps the
processes in step though their devices stop at different iterations."""

import hashlib

import numpy as np

import spmd as jax
from spmd import lax
from spmd.experimental import multihost_utils as mhu
from spmd.experimental.shard_map import shard_map
from spmd.sharding import NamedSharding
from spmd.sharding import PartitionSpec as P

mesh = jax.make_mesh((8,), ("x",))


def body(v):
    n = lax.axis_index("x") % 3 + 1

    def step(c):
        i, w = c
        total = lax.psum(w, "x").sum()
        jax.debug.print("device {d} step {i} total {t}", d=lax.axis_index("x"), i=i, t=total)
        return i + 1, w + total

    return lax.while_loop(lambda c: c[0] < n, step, (0, v))[1]


x = jax.device_put(np.arange(16, dtype=np.int32), NamedSharding(mesh, P("x")))
out = shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(x)
v = np.asarray(mhu.process_allgather(out, tiled=True))
jax.effects_barrier()
if jax.process_index() == 0:
    print("result", hashlib.sha256(v.tobytes()).hexdigest()[:16], flush=True)
