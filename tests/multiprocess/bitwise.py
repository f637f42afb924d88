"""A program run three ways by tests/test_multiprocess.py: one process with 8 devices, two
processes with 4, four with 2. It prints one line per result: name, dtype, shape and the hash of
its bytes (the whole value, gathered), which must be the same in all three runs."""

import hashlib
import sys

import numpy as np

import spmd as jax
import spmd.numpy as jnp
from spmd import lax
from spmd.experimental import multihost_utils as mhu
from spmd.experimental.shard_map import shard_map
from spmd.sharding import NamedSharding
from spmd.sharding import PartitionSpec as P

if "--partition" in sys.argv:
    jax.config.update("spmd_partition", "always")
if "--reference" in sys.argv:
    # The executable specification: every body interpreted device by device.
    from spmd._src.shard_map import reference_mode

    reference_mode().__enter__()

results = {}


def record(name, x):
    v = np.asarray(mhu.process_allgather(x, tiled=True))
    results[name] = v


rng = np.random.default_rng(0)
a = rng.standard_normal((16, 16)).astype(np.float32)
b = rng.standard_normal((16, 8)).astype(np.float32)
ints = rng.integers(-50, 50, (8, 16)).astype(np.int32)

mesh1 = jax.make_mesh((8,), ("x",))
mesh2 = jax.make_mesh((2, 4), ("x", "y"))
mesh3 = jax.make_mesh((4, 2), ("x", "y"))

# Placement and reading back.
A = jax.device_put(a, NamedSharding(mesh2, P("x", "y")))
B = jax.device_put(b, NamedSharding(mesh2, P("y", None)))
I = jax.device_put(ints, NamedSharding(mesh1, P(None, "x")))
record("put_a", A)
record("put_ints", I)


# shard_map with every collective.
def body(blk):
    s = lax.psum(blk, "y")
    m = lax.pmax(blk, ("x", "y"))
    g = lax.all_gather(blk, "y", tiled=True)
    rs = lax.psum_scatter(blk, "y", scatter_dimension=1, tiled=True)
    t = lax.all_to_all(blk, "y", 1, 0, tiled=True)
    n = lax.psum(1, ("x", "y"))
    pp = lax.ppermute(blk, "y", [(i, (i + 1) % 4) for i in range(4)])
    idx = lax.axis_index("y") + 10 * lax.axis_index("x")
    grp = lax.psum(blk, "y", axis_index_groups=[[0, 1], [2, 3]])
    return s, m, g, rs, t, pp, blk * idx + n, grp


outs = shard_map(
    body,
    mesh=mesh2,
    in_specs=P("x", "y"),
    out_specs=(
        P("x"),
        P(),
        P("x", "y"),
        P("x", "y"),
        P(("x", "y")),
        P("x", "y"),
        P("x", "y"),
        P("x", "y"),
    ),
)(A)
for k, o in enumerate(outs):
    record(f"shard_map_{k}", o)


# A product with the weights transposed, 8 rows per device: BLAS computes a device's rows
# alone with other kernels than a product of all 64 rows folded together (other bits).
W = rng.standard_normal((128, 128)).astype(np.float32)
X64 = jax.device_put(
    rng.standard_normal((64, 128)).astype(np.float32), NamedSharding(mesh1, P("x"))
)
record(
    "shard_map_dot",
    shard_map(lambda blk, w: blk @ w.T, mesh=mesh1, in_specs=(P("x"), P()), out_specs=P("x"))(
        X64, W
    ),
)


# A while loop whose trip count differs across devices, with a collective inside.
def loop_body(blk):
    n = lax.axis_index("x") + 1

    def step(c):
        i, v = c
        return i + 1, v + lax.psum(v, "x") * 0.5

    return lax.while_loop(lambda c: c[0] < n, step, (0, blk))[1]


record(
    "while",
    shard_map(loop_body, mesh=mesh3, in_specs=P("x"), out_specs=P("x"))(
        jax.device_put(a, NamedSharding(mesh3, P("x")))
    ),
)


# jit: a contraction over a split dimension, elementwise work, reductions.
@jax.jit
def model(x, w):
    h = jnp.tanh(x @ w)
    return h, h.sum(axis=0), jnp.max(h), (h * h).mean()


for k, o in enumerate(model(A, B)):
    record(f"jit_{k}", o)

# A data-parallel training step: grad of a jitted loss, params replicated, batch split.
params = {
    "w": jax.device_put(b, NamedSharding(mesh1, P())),
    "c": jax.device_put(np.float32(0.5), NamedSharding(mesh1, P())),
}
X = jax.device_put(a, NamedSharding(mesh1, P("x")))


def loss(p, x):
    return jnp.mean((jnp.tanh(x @ p["w"]) - p["c"]) ** 2)


@jax.jit
def sgd(p, x):
    lv, g = jax.value_and_grad(loss)(p, x)
    return lv, jax.tree.map(lambda w, d: w - 0.1 * d, p, g)


lv, new = sgd(params, X)
record("loss", lv)
record("new_w", new["w"])
record("new_c", new["c"])

# Eager operations on spread arrays (sums of integers: exact in any grouping).
record("eager_add", I + 1)
record("eager_sum", I.sum(axis=1))
record("eager_mul", A * 2.0)
record("eager_index", A[3])
record("eager_slice", A[:, 2:9])
record("eager_reshape", A.reshape(8, 32))
record("eager_transpose", A.T)
record("eager_cumsum", jnp.cumsum(I, axis=1))
record("eager_sort", jnp.sort(A, axis=0))
record("eager_argmax", jnp.argmax(I))
record("eager_concat", jnp.concatenate([A, A * 2], axis=0))
record("eager_where", jnp.where(A > 0, A, -1.0))
record("eager_vmap", jax.vmap(lambda r: r[::-1] * 3)(A))
record("eager_grad", jax.grad(lambda m: (jnp.sin(m) * m).sum())(A))


# More collectives over axes whose devices lie in several processes (two processes split 'x',
# four split both): over both axes at once, inside scan, cond and vmap.
def body2(blk):
    g2 = lax.all_gather(blk, ("x", "y"), tiled=True)
    rs2 = lax.psum_scatter(blk, ("x", "y"), scatter_dimension=0, tiled=True)
    pp = lax.ppermute(blk, "x", [(0, 1), (1, 0)])
    idx = lax.axis_index(("x", "y")) * 1.0 + blk
    a2a = lax.all_to_all(blk, ("x", "y"), 0, 0, tiled=True)

    def step(c, r):
        c = c + lax.psum(r, "x")
        return c, c * lax.axis_index("y")

    c, ys = lax.scan(step, lax.pvary(jnp.zeros(blk.shape[1:], blk.dtype), "y"), blk)
    br = lax.cond(lax.axis_index("x") == 0, lambda v: lax.psum(v, "y"), lambda v: v * 2, blk)
    vm = jax.vmap(lambda r: lax.psum(r, "v") + lax.pmax(r, "x"), axis_name="v")(blk)
    return g2, rs2, pp, idx, a2a, c, ys, br, vm


outs = shard_map(
    body2,
    mesh=mesh2,
    in_specs=P("x", "y"),
    out_specs=(
        P("x", "y"),
        P(("x", "y")),
        P("x", "y"),
        P("x", "y"),
        P("x", "y"),
        P("y"),
        P(None, "y"),
        P("x", "y"),
        P("x", "y"),
    ),
)(A)
for k, o in enumerate(outs):
    record(f"shard_map2_{k}", o)

# ragged_all_to_all over 'x': device i sends its row j to device j, which writes it at row i.
n_dev = 8
ragged_args = [
    rng.integers(0, 100, (n_dev * n_dev, 2)).astype(np.int32),
    np.zeros((n_dev * n_dev, 2), np.int32),
    np.tile(np.arange(n_dev, dtype=np.int32), n_dev),
    np.ones(n_dev * n_dev, np.int32),
    np.repeat(np.arange(n_dev, dtype=np.int32), n_dev),
    np.ones(n_dev * n_dev, np.int32),
]
record(
    "shard_map_ragged",
    shard_map(
        lambda *xs: lax.ragged_all_to_all(*xs, axis_name="x"),
        mesh=mesh1,
        in_specs=P("x"),
        out_specs=P("x"),
    )(*[jax.device_put(v, NamedSharding(mesh1, P("x"))) for v in ragged_args]),
)

# A mesh whose devices interleave the processes: no process holds a box of it, so the body
# runs device by device (the reference path), with the same bits.
mesh_mixed = jax.sharding.Mesh(np.array(jax.devices())[[0, 4, 1, 5, 2, 6, 3, 7]], ("x",))
record(
    "shard_map_mixed",
    shard_map(
        lambda v: lax.psum(v, "x") + lax.ppermute(v, "x", [(i, (i + 3) % 8) for i in range(8)]),
        mesh=mesh_mixed,
        in_specs=P("x"),
        out_specs=P("x"),
    )(jax.device_put(a, NamedSharding(mesh_mixed, P("x")))),
)

# pmap: each process passes the rows of its own devices and gets their results back.
xs = rng.standard_normal((8, 5)).astype(np.float32)
n_local = jax.local_device_count()
mine = xs[jax.process_index() * n_local : (jax.process_index() + 1) * n_local]
pm = jax.pmap(
    lambda v: (lax.psum(v, "i"), lax.pmax(v * v, "i"), lax.all_gather(v, "i"), lax.axis_index("i")),
    axis_name="i",
)(mine)
for k, o in enumerate(pm):
    record(f"pmap_{k}", o)

for name, v in results.items():
    digest = hashlib.sha256(np.ascontiguousarray(v).tobytes()).hexdigest()[:16]
    line = f"{name} {v.dtype.name}{list(v.shape)} {digest}"
    if jax.process_index() == 0:
        print(line, flush=True)
