"""Run by tests/test_multiprocess.py as `spmd run -n 3 --devices 1`: a mesh whose size is no
power of two. Each rank writes <argv[1]>/rank<r>.json."""

import json
import sys
from pathlib import Path

import numpy as np

import spmd as jax
from spmd import lax
from spmd.experimental import multihost_utils as mhu
from spmd.sharding import NamedSharding
from spmd.sharding import PartitionSpec as P

me = jax.process_index()
mesh = jax.make_mesh((3,), ("x",))
g = jax.make_array_from_process_local_data(
    NamedSharding(mesh, P("x")), np.full((2,), me, np.float32)
)
s = jax.jit(jax.shard_map(lambda b: lax.psum(b, "x"), mesh=mesh, in_specs=P("x"), out_specs=P()))
out = {
    "shape": list(g.shape),
    "gathered": mhu.process_allgather(g, tiled=True).tolist(),
    "psum": np.asarray(s(g)).tolist(),
}
Path(sys.argv[1], f"rank{me}.json").write_text(json.dumps(out))
