"""The code cells of JAX's "Manual parallelism with shard_map" tutorial, as one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd (8 CPU devices)
and records, through ``rec(cell, value)`` (tests/tutorials/record.py), what each cell prints
or shows: where the tutorial calls ``print`` or ``visualize_array_sharding`` on a value, or
leaves it as a cell's last expression, the program records the value (with its sharding), a
type (``jax.typeof``) or an error's class. Prints inside a shard_map body record the
per-instance type and shape (the body's values are per-device tracers).

Left out or shrunk: the timing cells; the 8192-sized arrays of some cells are smaller (the
programs' meaning does not depend on sizes that are multiples of the mesh).
"""

from __future__ import annotations

import importlib
from functools import partial

import numpy as np

_MESH = (
    "a jit whose arguments sit on a mesh other than the context mesh (same devices): JAX gives "
    "its replicated scalar result the context mesh, spmd the arguments' mesh"
)
# The tutorial relies on JAX 0.10's make_mesh default (spmd's is Auto: docs/DESIGN.md).
SPMD_CONFIG = {"spmd_default_axis_types": "explicit"}
# cell -> (what spmd records, None for any value unlike JAX's; why it differs from JAX 0.10.2).
KNOWN: dict[str, tuple[object, str]] = {
    "vma.out_specs_bug.unchecked": (
        {"error": "ValueError"},
        "with check_vma=False JAX keeps device 0's block of an output out_specs wrongly calls "
        "replicated (the tutorial: undefined behaviour); spmd refuses it when tracing",
    ),
    "fsdp_tp.loss": (None, _MESH),
    "pp.reference_loss": (None, _MESH),
}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    lax = jax.lax
    Mesh, P = jax.sharding.Mesh, jax.sharding.PartitionSpec
    NamedSharding = jax.sharding.NamedSharding
    Auto = jax.sharding.AxisType.Auto
    tree_map, tree_all = jax.tree_util.tree_map, jax.tree_util.tree_all

    def allclose(a, b):
        return tree_all(tree_map(partial(jnp.allclose, atol=1e-2, rtol=1e-2), a, b))

    # -- So, let's see a shard_map!
    mesh = jax.make_mesh((4, 2), ("x", "y"))
    jax.set_mesh(mesh)
    a = jax.device_put(jnp.arange(8 * 16.0).reshape(8, 16), P("x", "y"))
    b = jax.device_put(jnp.arange(16 * 4.0).reshape(16, 4), P("y", None))

    @jax.shard_map(in_specs=(P("x", "y"), P("y", None)), out_specs=P("x", None))
    def matmul_basic(a_block, b_block):
        rec("matmul_basic.blocks", [a_block.shape, b_block.shape])
        c_partialsum = jnp.dot(a_block, b_block)
        c_block = jax.lax.psum(c_partialsum, "y")
        rec("matmul_basic.c_block", c_block.shape)
        return c_block

    c = matmul_basic(a, b)
    rec("matmul_basic", c)
    rec("matmul_basic.allclose", allclose(c, jnp.dot(a, b, out_sharding=P("x", None))))

    a = jax.device_put(a, P("x", "y"))
    b = jax.device_put(b, P("y", None))

    @jax.jit
    def matmul_reference(a, b):
        return jnp.dot(a, b, out_sharding=P("x", None))

    c_ref = matmul_reference(a, b)
    rec("matmul_reference", c_ref)
    rec("matmul_reference.allclose", allclose(c_ref, jnp.dot(a, b, out_sharding=P("x", None))))
    rec("blocks", [a, b, c])

    # -- Rank-reducing vs rank-preserving maps
    def check_vmap(f, xs):
        ans = jax.vmap(f, in_axes=(0,), out_axes=0)(xs)
        expected = jnp.stack([f(x) for x in xs])
        return allclose(ans, expected)

    rec("check_vmap", check_vmap(lambda x: x @ x, jnp.arange(12).reshape(4, 3)))

    devices = np.array(jax.devices()[:4])
    mesh = Mesh(devices, ("i",))
    jax.set_mesh(mesh)

    def check_shmap(f, y):
        ans = jax.shard_map(f, in_specs=P("i"), out_specs=P("i"))(y)
        expected = jnp.concatenate([f(y_blk) for y_blk in jnp.split(y, mesh.shape["i"])])
        return [ans, allclose(ans, expected)]

    rec("check_shmap", check_shmap(lambda x: x.T @ x, jnp.arange(32).reshape(8, 4)))

    # -- in_specs
    mesh = jax.make_mesh((4, 2), ("i", "j"))
    jax.set_mesh(mesh)

    @jax.shard_map(in_specs=P("i", None), out_specs=P("i", "j"))
    def f1(x_block):
        rec("f1.x_block", x_block.shape)
        return x_block

    x1 = jax.device_put(jnp.arange(12 * 12).reshape(12, 12), P("i", None))
    y = f1(x1)
    rec("f1", y)

    @jax.shard_map(in_specs=P("i", "j"), out_specs=P("i", "j"))
    def f2(x_block):
        rec("f2.x_block", x_block.shape)
        return x_block

    x = jnp.arange(12 * 12).reshape(12, 12)
    x_ = jnp.tile(x, (1, mesh.shape["j"]))
    rec("tile", x_.shape)
    x_ = jax.device_put(x, P("i", "j"))
    y = f2(x_)
    rec("f2", y)

    # -- out_specs
    auto_mesh = jax.make_mesh((4, 2), ("i", "j"), (Auto, Auto))
    with jax.set_mesh(auto_mesh):
        x = jnp.array([[3.0]])
        z = jax.shard_map(lambda: x, in_specs=(), out_specs=P("i", "j"))()
        rec("untile.ij", z)
        z = jax.shard_map(lambda: x, in_specs=(), out_specs=P("i", None))()
        rec("untile.i", z)
        z = jax.shard_map(lambda: x, in_specs=(), out_specs=P(None, None))()
        rec("untile.none", z)

    @jax.shard_map(in_specs=P("i", "j"), out_specs=P("i", None))
    def f3(x_block):
        return jax.lax.psum(x_block, "j")

    x = jax.device_put(jnp.arange(12 * 12).reshape(12, 12), P("i", "j"))
    y3 = f3(x)
    rec("f3", y3)

    @jax.shard_map(in_specs=P("i", "j"), out_specs=P(None, "j"))
    def f4(x_block):
        return jax.lax.psum(x_block, "i")

    x = jax.device_put(jnp.arange(12 * 12).reshape(12, 12), P("i", "j"))
    y4 = f4(x)
    rec("f4", y4)

    @jax.shard_map(in_specs=P("i", "j"), out_specs=P(None, None))
    def f5(x_block):
        return jax.lax.psum(x_block, ("i", "j"))

    y5 = f5(x)
    rec("f5", y5)

    # -- Tracking how values vary over manual mesh axes, and check_vma=True
    mesh = jax.make_mesh((2,), ("i",))
    jax.set_mesh(mesh)

    @jax.shard_map(in_specs=P("i"), out_specs=P("i"))
    def f(x):
        rec("vary.split.x", [str(jax.typeof(x)), x.shape])
        return 2 * x

    x = jax.device_put(jnp.arange(6.0), P("i"))
    rec("vary.split", f(x))

    @jax.shard_map(in_specs=P(), out_specs=P())
    def f(x):
        rec("vary.replicated.x", [str(jax.typeof(x)), x.shape])
        return 2 * x

    x = jnp.arange(6.0)
    rec("vary.replicated", f(x))

    @jax.shard_map(in_specs=P("i"), out_specs=P())
    def f(x):
        y = jax.lax.psum(x, "i")
        rec("vary.psum.y", str(jax.typeof(y)))
        return y

    x = jax.device_put(jnp.arange(6.0), P("i"))
    rec("vary.psum", f(x))

    @jax.shard_map(in_specs=P("i"), out_specs=P())
    def f(x):
        rec("vma.x", str(jax.typeof(x)))
        y = jax.lax.psum(x, "i")
        rec("vma.y", str(jax.typeof(y)))
        return y

    x = jax.device_put(jnp.arange(6.0), P("i"))
    f(x)

    mesh = jax.make_mesh((4, 2), ("i", "j"))
    jax.set_mesh(mesh)

    @jax.shard_map(in_specs=P("i", "j"), out_specs=P("i"))
    def f(x):
        rec("vma2.x", str(jax.typeof(x)))
        y = jax.lax.psum(x, "j")
        # The tutorial asserts on jax.typeof(y).vma: JAX 0.10.2's types have no `vma`.
        rec("vma2.y", str(jax.typeof(y)))
        return y

    x = jax.device_put(jnp.arange(8 * 4.0).reshape(8, 4), P("i", "j"))
    rec("vma2", f(x))

    mesh = jax.make_mesh((2,), ("i",))
    jax.set_mesh(mesh)
    x = jax.device_put(jnp.arange(6.0), P("i"))
    note_err(
        rec,
        "vma.out_specs_bug",
        lambda: jax.shard_map(lambda x: x, in_specs=P("i"), out_specs=P())(x),
    )
    note_err(
        rec,
        "vma.out_specs_bug.unchecked",
        lambda: jax.shard_map(lambda x: x, in_specs=P("i"), out_specs=P(), check_vma=False)(x),
    )

    # Older versions of the tutorial spelled check_vma as check_rep, on
    # jax.experimental.shard_map.shard_map (deprecated, still there in JAX 0.10.2).
    note_err(
        rec,
        "check_rep.shard_map",
        lambda: jax.shard_map(lambda x: x, in_specs=P("i"), out_specs=P(), check_rep=False),
    )
    old_shard_map = importlib.import_module(jax.__name__ + ".experimental.shard_map").shard_map
    note_err(
        rec,
        "check_rep.experimental",
        lambda: old_shard_map(
            lambda x: x * 2, mesh=mesh, in_specs=P("i"), out_specs=P("i"), check_rep=False
        )(x),
    )

    @jax.shard_map(in_specs=P(), out_specs=None)
    def f(x):
        rec("pcast.x", str(jax.typeof(x)))
        y = jax.lax.pcast(x, "i", to="varying")
        rec("pcast.y", str(jax.typeof(y)))

    x = jnp.arange(6.0)
    rec("pcast", f(x))

    @jax.shard_map(in_specs=(P("i"), P()), out_specs=P("i"))
    def f(x, y):
        return x * y

    x = jax.device_put(jnp.arange(6.0), P("i"))
    y = jnp.arange(3.0)
    rec("pvary.jaxpr", str(jax.make_jaxpr(f)(x, y)))
    rec("pvary", f(x, y))

    @jax.shard_map(in_specs=(P("i"), P()), out_specs=P("i"))
    def f(x, y):
        def body(carry, _):
            c1, c2 = carry
            return (c2, c1), ()

        (x_, y_), _ = jax.lax.scan(body, (x, y), (), length=2)
        return x_, y_

    x = jnp.arange(6.0)
    y = jnp.arange(3.0)
    note_err(rec, "scan.vma_error", lambda: f(x, y))

    @jax.shard_map(in_specs=(P("i"), P()), out_specs=P("i"))
    def f(x, y):
        def body(carry, _):
            c1, c2 = carry
            return (c2, c1), ()

        y = jax.lax.pcast(y, "i", to="varying")
        (x_, y_), _ = jax.lax.scan(body, (x, y), (), length=2)
        return x_, y_

    x = jax.device_put(jnp.arange(6.0), P("i"))
    rec("scan.pcast", f(x, y))

    # Not a tutorial cell: the error cell above with its argument placed as in_specs says (on
    # JAX 0.10.2's Explicit mesh the unplaced argument fails in_specs before the scan).
    @jax.shard_map(in_specs=(P("i"), P()), out_specs=P("i"))
    def f(x, y):
        def body(carry, _):
            c1, c2 = carry
            return (c2, c1), ()

        (x_, y_), _ = jax.lax.scan(body, (x, y), (), length=2)
        return x_, y_

    note_err(rec, "scan.vma_error.placed", lambda: f(x, y))

    # -- Collectives tutorial: psum
    mesh1d = Mesh(jax.devices()[:4], ("i",))
    jax.set_mesh(mesh1d)  # JAX 0.10.2 wants shard_map's mesh= to be the context mesh

    @jax.shard_map(mesh=mesh1d, in_specs=P("i"), out_specs=P(None))
    def f1(x_block):
        rec("psum.before", [str(jax.typeof(x_block)), x_block.shape])
        y_block = jax.lax.psum(x_block, "i")
        rec("psum.after", str(jax.typeof(y_block)))
        return y_block

    x = jnp.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 1, 2])
    rec("psum", f1(x))

    mesh2d = Mesh(np.array(jax.devices()[:4]).reshape(2, 2), ("i", "j"))

    @jax.shard_map(mesh=mesh2d, in_specs=P("i", "j"), out_specs=P(None, "j"))
    def f2(x_block):
        return jax.lax.psum(x_block, "i")

    jax.set_mesh(mesh2d)
    y = f2(jnp.arange(16).reshape(4, 4))
    rec("psum.2d.i", y)

    @jax.shard_map(mesh=mesh2d, in_specs=P("i", "j"), out_specs=P(None, None))
    def f3(x_block):
        return jax.lax.psum(x_block, ("i", "j"))

    y = f3(jnp.arange(16).reshape(4, 4))
    rec("psum.2d.ij", y)

    # -- all_gather
    jax.set_mesh(mesh1d)

    @jax.shard_map(mesh=mesh1d, in_specs=P("i"), out_specs=P("i"))
    def f4(x_block):
        return jax.lax.all_gather(x_block, "i", tiled=True)

    x = jnp.array([3, 9, 5, 2])
    rec("all_gather.tiled", f4(x))

    @jax.shard_map(mesh=mesh1d, in_specs=P("i"), out_specs=P("i"))
    def f5(x_block):
        return jax.lax.all_gather(x_block, "i", tiled=False)

    rec("all_gather.untiled", f5(jnp.arange(8)))

    @jax.shard_map(mesh=mesh1d, in_specs=P("i"), out_specs=P("i"))
    def f5b(x_block):
        return jax.lax.all_gather(x_block, "i", axis=1)

    rec("all_gather.axis1", f5b(jnp.arange(8)))

    # -- psum_scatter
    @jax.shard_map(mesh=mesh1d, in_specs=P("i"), out_specs=P("i"))
    def f6(x_block):
        return jax.lax.psum_scatter(x_block, "i", tiled=True)

    x = jnp.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 1, 2])
    rec("psum_scatter.tiled", f6(x))

    @jax.shard_map(mesh=mesh1d, in_specs=P(None), out_specs=P("i"))
    def f6b(x_block):
        return jax.lax.psum_scatter(x_block.reshape(4, 4), "i")

    rec("psum_scatter.untiled", f6b(x))

    # -- ppermute
    @jax.shard_map(mesh=mesh1d, in_specs=P("i"), out_specs=P("i"))
    def f7(x_block):
        sz = jax.lax.axis_size("i")
        return jax.lax.ppermute(x_block, "i", [(i, (i + 1) % sz) for i in range(sz)])

    rec("ppermute.shift", f7(jnp.arange(8)))

    @jax.shard_map(mesh=mesh1d, in_specs=P("i"), out_specs=P("i"))
    def f7b(x_block):
        return jax.lax.ppermute(x_block, "i", [(0, 2), (2, 3)])  # unmapped: zeros

    rec("ppermute.partial", f7b(jnp.arange(1, 9)))

    def psum_scatter_ring(x, axis_name, *, tiled=False):
        size = jax.lax.axis_size(axis_name)
        idx = jax.lax.axis_index(axis_name)
        shift = partial(
            jax.lax.ppermute, axis_name=axis_name, perm=[(i, (i - 1) % size) for i in range(size)]
        )
        for i in range(1, size):
            update = shift(x[(idx + i) % size])
            x = x.at[(idx + i + 1) % size].add(update)
        y = x[(idx + size) % size]
        return y if not tiled else y.reshape(-1)  # noqa: RET504

    @jax.shard_map(mesh=mesh1d, in_specs=P(None), out_specs=P("i"))
    def f8(x_block):
        return psum_scatter_ring(x_block.reshape(4, 4), "i", tiled=True)

    x = jnp.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 1, 2])
    rec("ppermute.psum_scatter_ring", [f8(x), f6b(x).reshape(-1)])

    # -- all_to_all
    @jax.shard_map(mesh=mesh1d, in_specs=P("i"), out_specs=P("i"))
    def f9(x_block):
        return jax.lax.all_to_all(x_block, "i", 0, 0, tiled=True)

    rec("all_to_all", f9(jnp.arange(16)))

    @jax.shard_map(mesh=mesh1d, in_specs=P("i", None), out_specs=P("i", None))
    def f9b(x_block):
        return jax.lax.all_to_all(x_block, "i", 1, 0, tiled=True)

    rec("all_to_all.split1_concat0", f9b(jnp.arange(32).reshape(8, 4)))

    # -- Example 1: all_gather on one side
    mesh = Mesh(jax.devices()[:4], ("i",))
    jax.set_mesh(mesh)

    def device_put(x, pspec):
        return jax.device_put(x, NamedSharding(mesh, pspec))

    lhs_spec = P("i", None)
    lhs = device_put(jax.random.normal(jax.random.key(0), (8, 8)), lhs_spec)
    rhs_spec = P("i", None)
    rhs = device_put(jax.random.normal(jax.random.key(1), (8, 4)), rhs_spec)

    @jax.shard_map(in_specs=(lhs_spec, rhs_spec), out_specs=rhs_spec)
    def matmul_allgather(lhs_block, rhs_block):
        rhs = jax.lax.all_gather(rhs_block, "i", tiled=True)
        return lhs_block @ rhs

    out = matmul_allgather(lhs, rhs)
    rec("matmul_allgather", [out, jnp.allclose(out, lhs @ rhs, atol=1e-3, rtol=1e-3)])

    @jax.shard_map(in_specs=(lhs_spec, rhs_spec), out_specs=rhs_spec)
    def matmul_allgather_overlapped(lhs_block, rhs_block):
        size = jax.lax.axis_size("i")
        idx = jax.lax.axis_index("i")
        shift = partial(
            jax.lax.ppermute, axis_name="i", perm=[(i, (i + 1) % size) for i in range(size)]
        )
        B = lhs_block.shape[1] // size
        lhs_blocks = lambda i: lax.dynamic_slice_in_dim(lhs_block, i * B, B, 1)  # noqa: E731
        out_block = lhs_blocks(idx) @ rhs_block
        for i in range(1, size):
            rhs_block = shift(rhs_block)
            out_block += lhs_blocks((idx - i) % size) @ rhs_block
        return out_block

    out = matmul_allgather_overlapped(lhs, rhs)
    rec("matmul_allgather_overlapped", [out, jnp.allclose(out, lhs @ rhs, atol=1e-3, rtol=1e-3)])

    @jax.shard_map(in_specs=(lhs_spec, rhs_spec), out_specs=rhs_spec)
    def matmul_allgather_overlapped_bidi(lhs_block, rhs_block):
        size = jax.lax.axis_size("i")
        idx = jax.lax.axis_index("i")
        shift_up = partial(
            jax.lax.ppermute, axis_name="i", perm=[(i, (i + 1) % size) for i in range(size)]
        )
        shift_dn = partial(
            jax.lax.ppermute, axis_name="i", perm=[(i, (i - 1) % size) for i in range(size)]
        )
        B = lhs_block.shape[1] // size // 2
        lhs_blocks = lambda i, hi: lax.dynamic_slice_in_dim(lhs_block, (2 * i + hi) * B, B, 1)  # noqa: E731
        rhs_block_lo, rhs_block_hi = jnp.split(rhs_block, 2, axis=0)
        out_block = lhs_blocks(idx, 0) @ rhs_block_lo
        out_block += lhs_blocks(idx, 1) @ rhs_block_hi
        for i in range(1, size):
            rhs_block_lo = shift_up(rhs_block_lo)
            rhs_block_hi = shift_dn(rhs_block_hi)
            out_block += lhs_blocks((idx - i) % size, 0) @ rhs_block_lo
            out_block += lhs_blocks((idx + i) % size, 1) @ rhs_block_hi
        return out_block

    out = matmul_allgather_overlapped_bidi(lhs, rhs)
    rec("matmul_allgather_bidi", [out, jnp.allclose(out, lhs @ rhs, atol=1e-3, rtol=1e-3)])

    # -- Example 2: psum_scatter the result
    lhs_spec = P(None, "i")
    lhs = device_put(lhs, lhs_spec)
    rhs_spec = P("i", None)
    rhs = device_put(rhs, rhs_spec)

    @jax.shard_map(in_specs=(lhs_spec, rhs_spec), out_specs=rhs_spec)
    def matmul_psumscatter(lhs_block, rhs_block):
        out_summand = lhs_block @ rhs_block
        return jax.lax.psum_scatter(out_summand, "i", tiled=True)

    out = matmul_psumscatter(lhs, rhs)
    rec("matmul_psumscatter", [out, jnp.allclose(out, lhs @ rhs, atol=1e-3, rtol=1e-3)])

    @jax.shard_map(in_specs=(lhs_spec, rhs_spec), out_specs=rhs_spec)
    def matmul_psumscatter_overlapped(lhs_block, rhs_block):
        size = jax.lax.axis_size("i")
        idx = jax.lax.axis_index("i")
        shift = partial(
            jax.lax.ppermute, axis_name="i", perm=[(i, (i - 1) % size) for i in range(size)]
        )
        lhs_block = lhs_block.reshape(size, -1, lhs_block.shape[1])
        out_summand = lhs_block[(idx + 1) % size] @ rhs_block
        for i in range(1, size):
            out_summand = shift(out_summand)
            out_summand += lhs_block[(idx + i + 1) % size] @ rhs_block
        return out_summand

    out = matmul_psumscatter_overlapped(lhs, rhs)
    rec("matmul_psumscatter_overlapped", [out, jnp.allclose(out, lhs @ rhs, atol=1e-3, rtol=1e-3)])

    @jax.shard_map(in_specs=(lhs_spec, rhs_spec), out_specs=rhs_spec)
    def matmul_psumscatter_overlapped_bidi(lhs_block, rhs_block):
        size = jax.lax.axis_size("i")
        idx = jax.lax.axis_index("i")
        shift_up = partial(
            jax.lax.ppermute, axis_name="i", perm=[(i, (i + 1) % size) for i in range(size)]
        )
        shift_dn = partial(
            jax.lax.ppermute, axis_name="i", perm=[(i, (i - 1) % size) for i in range(size)]
        )
        B = lhs_block.shape[0] // size // 2
        lhs_blocks = lambda i, hi: lax.dynamic_slice_in_dim(lhs_block, (2 * i + hi) * B, B, 0)  # noqa: E731
        out_summand_lo = lhs_blocks((idx - 1) % size, 0) @ rhs_block
        out_summand_hi = lhs_blocks((idx + 1) % size, 1) @ rhs_block
        for i in range(1, size):
            out_summand_lo = shift_up(out_summand_lo)
            out_summand_hi = shift_dn(out_summand_hi)
            out_summand_lo += lhs_blocks((idx - i - 1) % size, 0) @ rhs_block
            out_summand_hi += lhs_blocks((idx + i + 1) % size, 1) @ rhs_block
        return jnp.concatenate([out_summand_lo, out_summand_hi])

    out = matmul_psumscatter_overlapped_bidi(lhs, rhs)
    rec("matmul_psumscatter_bidi", [out, jnp.allclose(out, lhs @ rhs, atol=1e-3, rtol=1e-3)])

    # -- Neural networks
    def predict(params, inputs):
        for W, b in params:
            outputs = jnp.dot(inputs, W) + b
            inputs = jax.nn.relu(outputs)
        return outputs

    def loss(params, batch):
        inputs, targets = batch
        predictions = predict(params, inputs)
        return jnp.mean(jnp.sum((predictions - targets) ** 2, axis=-1))

    def init_layer(key, n_in, n_out):
        k1, k2 = jax.random.split(key)
        W = jax.random.normal(k1, (n_in, n_out)) / jnp.sqrt(n_in)
        b = jax.random.normal(k2, (n_out,))
        return W, b

    def init(key, layer_sizes, batch_size):
        key, *keys = jax.random.split(key, len(layer_sizes))
        params = list(map(init_layer, keys, layer_sizes[:-1], layer_sizes[1:]))
        key, *keys = jax.random.split(key, 3)
        inputs = jax.random.normal(keys[0], (batch_size, layer_sizes[0]))
        targets = jax.random.normal(keys[1], (batch_size, layer_sizes[-1]))
        return params, (inputs, targets)

    layer_sizes = [784, 128, 128, 128, 128, 128, 8]
    batch_size = 32
    params, batch = init(jax.random.key(0), layer_sizes, batch_size)

    # 8-way batch data parallelism
    mesh = jax.make_mesh((8,), ("batch",), (Auto,))
    jax.set_mesh(mesh)
    batch = jax.device_put(batch, NamedSharding(mesh, P("batch")))
    params = jax.device_put(params, NamedSharding(mesh, P()))

    def loss_dp(params, batch):
        @jax.shard_map(in_specs=P("batch", None), out_specs=P())
        def loss_spmd(local_batch):
            inputs, targets = local_batch
            predictions = predict(params, inputs)
            local_loss = jnp.mean(jnp.sum((predictions - targets) ** 2, axis=-1))
            return jax.lax.pmean(local_loss, "batch")

        return loss_spmd(batch)

    rec("dp.loss", [jax.jit(loss)(params, batch), jax.jit(loss_dp)(params, batch)], tol=1e-5)
    rec(
        "dp.grad_allclose",
        allclose(jax.jit(jax.grad(loss))(params, batch), jax.jit(jax.grad(loss_dp))(params, batch)),
    )
    rec("dp.grad", jax.jit(jax.grad(loss_dp))(params, batch)[-1], tol=1e-5)

    # 8-way fully sharded data parallelism (FSDP), on the tutorial's 4 devices of `devices`
    mesh = Mesh(devices, ("batch",))
    jax.set_mesh(mesh)
    batch = jax.device_put(batch, NamedSharding(mesh, P("batch")))
    params = jax.device_put(params, NamedSharding(mesh, P("batch")))

    @partial(jax.remat, policy=lambda op, *_, **__: str(op) != "all_gather")
    def predict_fsdp(params_frag, inputs):
        for W_frag, b_frag in params_frag:
            W = jax.lax.all_gather(W_frag, "batch", tiled=True)
            b = jax.lax.all_gather(b_frag, "batch", tiled=True)
            outputs = jnp.dot(inputs, W) + b
            inputs = jax.nn.relu(outputs)
        return outputs

    def loss_fsdp(params, batch):
        @jax.shard_map(in_specs=P("batch"), out_specs=P())
        def loss_spmd(local_params, local_batch):
            inputs, targets = local_batch
            predictions = predict_fsdp(local_params, inputs)
            local_loss = jnp.mean(jnp.sum((predictions - targets) ** 2, axis=-1))
            return jax.lax.pmean(local_loss, "batch")

        return loss_spmd(params, batch)

    rec("fsdp.loss", [jax.jit(loss)(params, batch), jax.jit(loss_fsdp)(params, batch)], tol=1e-5)
    rec(
        "fsdp.grad_allclose",
        allclose(
            jax.jit(jax.grad(loss))(params, batch), jax.jit(jax.grad(loss_fsdp))(params, batch)
        ),
    )
    rec("fsdp.params", params[0][1])

    # 8-way tensor parallelism (TP)
    mesh = jax.make_mesh((8,), ("feats",), (Auto,))
    jax.set_mesh(mesh)
    batch = jax.device_put(batch, NamedSharding(mesh, P(None, "feats")))
    params = jax.device_put(params, NamedSharding(mesh, P("feats")))

    def predict_tp(params, inputs):
        for W, b in params:
            outputs = gemm_tp(inputs, W, b)
            inputs = jax.nn.relu(outputs)
        return outputs

    @jax.shard_map(
        in_specs=(P(None, "feats"), P("feats", None), P("feats")), out_specs=P(None, "feats")
    )
    def gemm_tp(inputs, W, b):
        block_result = jnp.dot(inputs, W)
        return jax.lax.psum_scatter(block_result, "feats", scatter_dimension=1, tiled=True) + b

    def loss_tp(params, batch):
        inputs, targets = batch
        predictions = predict_tp(params, inputs)
        return jnp.mean(jnp.sum((predictions - targets) ** 2, axis=-1))

    rec("tp.loss", [jax.jit(loss)(params, batch), jax.jit(loss_tp)(params, batch)], tol=1e-5)
    rec(
        "tp.grad_allclose",
        allclose(jax.jit(jax.grad(loss))(params, batch), jax.jit(jax.grad(loss_tp))(params, batch)),
    )
    rec("tp.predict", jax.jit(predict_tp)(params, batch[0]), tol=1e-5)

    # FSDP + TP, with shard_map at the top level
    mesh = jax.make_mesh((4, 2), ("batch", "feats"), (Auto, Auto))
    jax.set_mesh(mesh)
    batch_ = jax.device_put(batch, NamedSharding(mesh, P("batch", "feats")))
    params_ = jax.device_put(params, NamedSharding(mesh, P(("batch", "feats"))))

    @partial(jax.remat, policy=lambda op, *_, **__: str(op) != "all_gather")
    def predict_fsdp_tp(params_frag, inputs):
        for W_frag, b_frag in params_frag:
            W = jax.lax.all_gather(W_frag, "batch", tiled=True)
            b = jax.lax.all_gather(b_frag, "batch", tiled=True)
            block_result = jnp.dot(inputs, W)
            outputs = (
                jax.lax.psum_scatter(block_result, "feats", scatter_dimension=1, tiled=True) + b
            )
            inputs = jax.nn.relu(outputs)
        return outputs

    @jax.shard_map(in_specs=(P(("feats", "batch")), P("batch", "feats")), out_specs=P())
    def loss_fsdp_tp(local_params, local_batch):
        inputs, targets = local_batch
        predictions = predict_fsdp_tp(local_params, inputs)
        sq_err = jax.lax.psum(jnp.sum((predictions - targets) ** 2, axis=-1), "feats")
        return jax.lax.pmean(jnp.mean(sq_err), "batch")

    rec(
        "fsdp_tp.loss",
        [jax.jit(loss)(params, batch), jax.jit(loss_fsdp_tp)(params_, batch_)],
        tol=1e-5,
    )
    rec(
        "fsdp_tp.grad_allclose",
        allclose(
            jax.jit(jax.grad(loss))(params, batch), jax.jit(jax.grad(loss_fsdp_tp))(params, batch)
        ),
    )

    # SPMD pipeline parallelism (PP)
    L = len(params) - 2
    N = batch_size
    F = params[0][0].shape[1]
    S = 2
    B = 8
    M, ragged = divmod(N, B)
    K, ragged = divmod(M, S)
    rec("pp.sizes", [S, L // S, L, B, M])

    mesh = Mesh(jax.devices()[:S], ("stages",), (Auto,))

    def predict_pp(params, inputs):
        (W_first, b_first), inner_params, (W_last, b_last) = params
        inputs = jax.nn.relu(jnp.dot(inputs, W_first) + b_first)
        inputs = spmd_pipeline(lambda Wb, x: jax.nn.relu(x @ Wb[0] + Wb[1]), inner_params, inputs)
        return jnp.dot(inputs, W_last) + b_last

    @jax.shard_map(in_specs=((P(), P("stages"), P()), P("stages")), out_specs=P())
    def loss_pp(params, batch):
        inputs, targets = batch
        predictions = predict_pp(params, inputs.reshape(K, B, -1)).reshape(K * B, -1)
        local_loss = jnp.mean(jnp.sum((predictions - targets) ** 2, axis=-1))
        return jax.lax.pmean(local_loss, "stages")

    def spmd_pipeline(fn, stage_params, inputs):
        stage = jax.lax.axis_index("stages")
        outputs = jnp.zeros_like(inputs) * jnp.nan
        state = jnp.zeros((L // S, B, F)) * jnp.nan
        for i in range(M + L - 1):
            state = state.at[0].set(jnp.where(stage == 0, inputs[i % K], state[0]))
            state = jax.vmap(fn)(stage_params, state)
            outputs = outputs.at[(i - L + 1) % K].set(
                jnp.where(stage == S - 1, state[-1], outputs[(i - L + 1) % K])
            )
            state, inputs, outputs = shift(i, state, inputs, outputs)
        return jax.lax.ppermute(outputs, "stages", [(i, (i + 1) % S) for i in range(S)])

    def shift(i, state, inputs, outputs):
        sh = lambda x, d: jax.lax.ppermute(x, "stages", [(i, (i + d) % S) for i in range(S)])  # noqa: E731
        state = jnp.roll(state, +1, axis=0).at[0].set(sh(state[-1], +1))
        if (i % K) == (-1 % K):
            inputs = sh(inputs, +1)
        if ((i - L + 1) % K) == (-1 % K):
            outputs = sh(outputs, +1)
        return state, inputs, outputs

    first_params, *inner_params, last_params = params
    Ws, bs = zip(*inner_params)
    params_stacked = jnp.stack(Ws), jnp.stack(bs)
    first_params = jax.device_put(first_params, NamedSharding(mesh, P()))
    params_stacked = jax.device_put(params_stacked, NamedSharding(mesh, P("stages")))
    last_params = jax.device_put(last_params, NamedSharding(mesh, P()))
    params_ = first_params, params_stacked, last_params
    batch_ = jax.device_put(batch, NamedSharding(mesh, P("stages")))
    rec("pp.reference_loss", jax.jit(loss)(params, batch), tol=1e-5)
    jax.set_mesh(mesh)
    rec("pp.loss", jax.jit(loss_pp)(params_, batch_), tol=1e-5)
    _ = jax.jit(jax.grad(loss_pp))(params_, batch_)
    rec("pp.grad_last", _[2][1], tol=1e-5)


def note_err(rec, cell, fn):
    """Record the class of the error ``fn()`` raises (or its value, if it does not)."""
    try:
        value = fn()
    except Exception as e:  # noqa: BLE001 -- the class is the recorded value
        value = e
    rec(cell, value)
