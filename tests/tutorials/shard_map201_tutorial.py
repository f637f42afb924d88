"""The code cells of JAX's "Manual parallelism with shard_map" page (docs/201/shard-map.md), as
one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd (8 CPU devices)
and records what each prints or shows: arrays with their sharding, types (``jax.typeof``) and
manual axis types, a jaxpr's text, the text ``visualize_array_sharding`` draws, error classes.
Where a shard_map body prints a value, the program records its text (each device's block, in
an eager call) and, in a cell of its own, its type and shape.

Left out or shrunk: ``jax.config.update('jax_num_cpu_devices', 8)`` (the runner gives both
backends 8 devices); the ``python`` blocks that are not run (the API signature, the reference
semantics sketches); the profiles. The page's shapes are kept (they are small already).
"""

from __future__ import annotations

import contextlib
import importlib
import io
from functools import partial

import record

# The page relies on JAX 0.10's Explicit make_mesh default (spmd's is Auto: docs/DESIGN.md).
SPMD_CONFIG = {"spmd_default_axis_types": "explicit"}
# cell -> (what spmd records, None for any value unlike JAX's; why it differs from JAX 0.10.2).
KNOWN: dict[str, tuple[object, str]] = {
    "manual_types.inside": (
        ["float32[4]{V:i}", "float32[4]", "float32[]", "float32[4]"],
        "spmd's shard_map has no unreduced or reduced manual values yet (as the sharding_ad301 "
        "program lists): in_specs P(unreduced={'i'}) and P(reduced={'i'}) give invarying blocks",
    ),
}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one page, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    lax = jax.lax
    tree_map, tree_all = jax.tree_util.tree_map, jax.tree_util.tree_all
    Explicit = jax.sharding.AxisType.Explicit  # noqa: F841 -- the page's cell defines both
    Auto = jax.sharding.AxisType.Auto

    def note(cell, fn):
        return record.note(rec, cell, fn)

    def shown(fn):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            fn()
        return buf.getvalue()

    def visualize(cell, x):
        rec(cell, shown(lambda: jax.debug.visualize_array_sharding(x)))

    def printed(cell, x):
        """A body's ``print(x)``: its text, and (cell.type) its type and shape."""
        rec(cell, str(x))
        rec(cell + ".type", [str(jax.typeof(x)), list(x.shape)])

    # -- So, let's see a shard_map!
    mesh = jax.make_mesh((4, 2), ("x", "y"))
    jax.set_mesh(mesh)
    a = jax.device_put(jnp.arange(8 * 16.0).reshape(8, 16), jax.P("x", "y"))
    b = jax.device_put(jnp.arange(16 * 4.0).reshape(16, 4), jax.P("y", None))

    @jax.shard_map(in_specs=(jax.P("x", "y"), jax.P("y", None)), out_specs=jax.P("x", None))
    def matmul_basic(a_block, b_block):
        rec("matmul_basic.blocks", [list(a_block.shape), list(b_block.shape)])
        c_partialsum = jnp.dot(a_block, b_block)
        c_block = jax.lax.psum(c_partialsum, "y")
        rec("matmul_basic.c_block", list(c_block.shape))
        return c_block

    c = matmul_basic(a, b)
    rec("matmul_basic", c)

    def allclose(a, b):
        return tree_all(tree_map(partial(jnp.allclose, atol=1e-2, rtol=1e-2), a, b))

    rec("matmul_basic.allclose", allclose(c, jnp.dot(a, b, out_sharding=jax.P("x", None))))
    visualize("matmul_basic.visualize", c)

    a = jax.device_put(a, jax.P("x", "y"))
    b = jax.device_put(b, jax.P("y", None))

    @jax.jit
    def matmul_reference(a, b):
        return jnp.dot(a, b, out_sharding=jax.P("x", None))

    c_ref = matmul_reference(a, b)
    rec("matmul_reference", c_ref)
    rec("matmul_reference.allclose", allclose(c_ref, jnp.dot(a, b, out_sharding=jax.P("x", None))))
    visualize("blocks.a", a)
    visualize("blocks.b", b)
    visualize("blocks.c", c)

    # -- Rank-reducing vs rank-preserving maps
    def check_vmap(f, xs):
        ans = jax.vmap(f, in_axes=(0,), out_axes=0)(xs)
        expected = jnp.stack([f(x) for x in xs])
        return allclose(ans, expected)

    rec("check_vmap", check_vmap(lambda x: x @ x, jnp.arange(12).reshape(4, 3)))

    mesh = jax.make_mesh((4,), ("i",), (Auto,))
    jax.set_mesh(mesh)

    def check_shmap(f, y):
        ans = jax.shard_map(f, in_specs=jax.P("i"), out_specs=jax.P("i"))(y)
        expected = jnp.concatenate([f(y_blk) for y_blk in jnp.split(y, mesh.shape["i"])])
        return [ans, allclose(ans, expected)]

    rec("check_shmap", check_shmap(lambda x: x.T @ x, jnp.arange(32).reshape(8, 4)))

    # -- in_specs
    mesh = jax.make_mesh((4, 2), ("i", "j"))
    jax.set_mesh(mesh)

    @jax.shard_map(in_specs=jax.P("i", None), out_specs=jax.P("i", "j"))
    def f1(x_block):
        rec("f1.x_block", list(x_block.shape))
        return x_block

    x1 = jax.device_put(jnp.arange(12 * 12).reshape(12, 12), jax.P("i", None))
    y = f1(x1)
    rec("f1", y)

    @jax.shard_map(in_specs=jax.P("i", "j"), out_specs=jax.P("i", "j"))
    def f2(x_block):
        rec("f2.x_block", list(x_block.shape))
        return x_block

    x = jnp.arange(12 * 12).reshape(12, 12)
    x_ = jnp.tile(x, (1, mesh.shape["j"]))
    rec("tile", list(x_.shape))
    x_ = jax.device_put(x, jax.P("i", "j"))
    y = f2(x_)
    rec("f2", y)

    # -- out_specs
    auto_mesh = jax.make_mesh((4, 2), ("i", "j"), (Auto, Auto))
    with jax.set_mesh(auto_mesh):
        x = jnp.array([[3.0]])
        z = jax.shard_map(lambda: x, in_specs=(), out_specs=jax.P("i", "j"))()
        rec("untile.ij", z)
        z = jax.shard_map(lambda: x, in_specs=(), out_specs=jax.P("i", None))()
        rec("untile.i", z)
        z = jax.shard_map(lambda: x, in_specs=(), out_specs=jax.P(None, None))()
        rec("untile.none", z)

    @jax.shard_map(in_specs=jax.P("i", "j"), out_specs=jax.P("i", None))
    def f3(x_block):
        return jax.lax.psum(x_block, "j")

    x = jax.device_put(jnp.arange(12 * 12).reshape(12, 12), jax.P("i", "j"))
    y3 = f3(x)
    rec("f3.shape", list(y3.shape))
    rec("f3", y3)

    @jax.shard_map(in_specs=jax.P("i", "j"), out_specs=jax.P(None, "j"))
    def f4(x_block):
        return jax.lax.psum(x_block, "i")

    x = jax.device_put(jnp.arange(12 * 12).reshape(12, 12), jax.P("i", "j"))
    y4 = f4(x)
    rec("f4.shape", list(y4.shape))

    @jax.shard_map(in_specs=jax.P("i", "j"), out_specs=jax.P(None, None))
    def f5(x_block):
        return jax.lax.psum(x_block, ("i", "j"))

    y5 = f5(x)
    rec("f5.shape", list(y5.shape))
    rec("f5", y5)

    # -- Tracking how values vary over manual mesh axes, and check_vma=True
    mesh = jax.make_mesh((2,), ("i",))
    jax.set_mesh(mesh)

    @jax.shard_map(in_specs=jax.P("i"), out_specs=jax.P("i"))
    def f(x):
        printed("vary.split.print", x)
        return 2 * x

    x = jax.device_put(jnp.arange(6.0), jax.P("i"))
    rec("vary.split", f(x))

    @jax.shard_map(in_specs=jax.P(), out_specs=jax.P())
    def f(x):
        printed("vary.replicated.print", x)
        return 2 * x

    x = jnp.arange(6.0)
    rec("vary.replicated", f(x))

    @jax.shard_map(in_specs=jax.P("i"), out_specs=jax.P())
    def f(x):
        y = jax.lax.psum(x, "i")
        printed("vary.psum.print", y)
        return y

    x = jax.device_put(jnp.arange(6.0), jax.P("i"))
    rec("vary.psum", f(x))

    @jax.shard_map(in_specs=jax.P("i"), out_specs=jax.P())
    def f(x):
        rec("vma.x", str(jax.typeof(x)))
        y = jax.lax.psum(x, "i")
        rec("vma.y", str(jax.typeof(y)))
        rec("vma.manual_axis_type", [repr(jax.typeof(t).manual_axis_type) for t in (x, y)])
        return y

    x = jax.device_put(jnp.arange(6.0), jax.P("i"))
    rec("vma", f(x))

    mesh = jax.make_mesh((4, 2), ("i", "j"))
    jax.set_mesh(mesh)

    @jax.shard_map(in_specs=jax.P("i", "j"), out_specs=jax.P("i"))
    def f(x):
        rec("vma2.x", str(jax.typeof(x)))
        y = jax.lax.psum(x, "j")
        rec("vma2.varying", sorted(jax.typeof(y).manual_axis_type.varying))
        assert jax.typeof(y).manual_axis_type.varying == {"i"}
        rec("vma2.y", str(jax.typeof(y)))
        return y

    x = jax.device_put(jnp.arange(8 * 4.0).reshape(8, 4), jax.P("i", "j"))
    rec("vma2", f(x))

    mesh = jax.make_mesh((2,), ("i",))
    jax.set_mesh(mesh)
    x = jax.device_put(jnp.arange(6.0), jax.P("i"))
    note(
        "out_specs_bug",
        lambda: jax.shard_map(lambda x: x, in_specs=jax.P("i"), out_specs=jax.P())(x),
    )

    @jax.shard_map(in_specs=jax.P(), out_specs=None)
    def f(x):
        rec("pcast.x", str(jax.typeof(x)))
        y = jax.lax.pcast(x, "i", to="varying")
        rec("pcast.y", str(jax.typeof(y)))

    x = jnp.arange(6.0)
    rec("pcast", f(x))

    @jax.shard_map(in_specs=(jax.P("i"), jax.P()), out_specs=jax.P("i"))
    def f(x, y):
        return x * y

    x = jax.device_put(jnp.arange(6.0), jax.P("i"))
    y = jnp.arange(3.0)
    rec("pvary.jaxpr", str(jax.jit(f).trace(x, y).jaxpr))
    rec("pvary", f(x, y))

    mesh = jax.make_mesh((2,), ("i",))
    jax.set_mesh(mesh)

    @jax.shard_map(in_specs=(jax.P("i"), jax.P()), out_specs=jax.P("i"))
    def f(x, y):
        def body(carry, _):
            c1, c2 = carry
            return (c2, c1), ()

        (x_, y_), _ = jax.lax.scan(body, (x, y), (), length=2)
        return x_, y_

    x = jnp.arange(6.0)
    y = jnp.arange(3.0)
    note("scan.vma_error", lambda: f(x, y))

    @jax.shard_map(in_specs=(jax.P("i"), jax.P()), out_specs=jax.P("i"))
    def f(x, y):
        def body(carry, _):
            c1, c2 = carry
            return (c2, c1), ()

        y = jax.lax.pcast(y, "i", to="varying")
        (x_, y_), _ = jax.lax.scan(body, (x, y), (), length=2)
        return x_, y_

    x = jax.device_put(jnp.arange(6.0), jax.P("i"))
    y = jnp.arange(3.0)
    rec("scan.pcast", f(x, y))

    # -- Two more manual types: unreduced and reduced
    mesh = jax.make_mesh((2,), ("i",))
    jax.set_mesh(mesh)
    x_sharded = jax.device_put(jnp.arange(8.0), jax.P("i"))
    x_replicated = jnp.arange(4.0)
    x_unreduced = jnp.einsum("i,i->", x_sharded, x_sharded, out_sharding=jax.P(unreduced={"i"}))
    x_reduced = jax.reshard(x_replicated, jax.P(reduced={"i"}))
    rec("manual_types.outside", [str(jax.typeof(v)) for v in (x_unreduced, x_reduced)])

    @jax.shard_map(
        in_specs=(jax.P("i"), jax.P(), jax.P(unreduced={"i"}), jax.P(reduced={"i"})),
        out_specs=jax.P("i"),
    )
    def f(a, b, c, d):
        rec("manual_types.inside", [str(jax.typeof(v)) for v in (a, b, c, d)])
        return a

    note("manual_types", lambda: f(x_sharded, x_replicated, x_unreduced, x_reduced))

    # -- Collectives tutorial: psum
    mesh1d = jax.make_mesh((4,), ("i",), (Auto,))
    jax.set_mesh(mesh1d)

    @jax.shard_map(in_specs=jax.P("i"), out_specs=jax.P(None))
    def f1(x_block):
        printed("psum.before", x_block)
        y_block = jax.lax.psum(x_block, "i")
        printed("psum.after", y_block)
        return y_block

    x = jnp.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 1, 2])
    rec("psum", f1(x))

    mesh2d = jax.make_mesh((2, 2), ("i", "j"), (Auto, Auto))
    jax.set_mesh(mesh2d)

    @jax.shard_map(in_specs=jax.P("i", "j"), out_specs=jax.P(None, "j"))
    def f2(x_block):
        printed("psum.2d.i.before", x_block)
        y_block = jax.lax.psum(x_block, "i")
        printed("psum.2d.i.after", y_block)
        return y_block

    rec("psum.2d.i", f2(jnp.arange(16).reshape(4, 4)))

    @jax.shard_map(in_specs=jax.P("i", "j"), out_specs=jax.P(None, None))
    def f3(x_block):
        printed("psum.2d.ij.before", x_block)
        y_block = jax.lax.psum(x_block, ("i", "j"))
        printed("psum.2d.ij.after", y_block)
        return y_block

    rec("psum.2d.ij", f3(jnp.arange(16).reshape(4, 4)))

    # -- all_gather
    jax.set_mesh(mesh1d)

    @jax.shard_map(in_specs=jax.P("i"), out_specs=jax.P("i"))
    def f4(x_block):
        printed("all_gather.tiled.before", x_block)
        y_block = jax.lax.all_gather(x_block, "i", tiled=True)
        printed("all_gather.tiled.after", y_block)
        return y_block

    x = jnp.array([3, 9, 5, 2])
    rec("all_gather.tiled", f4(x))

    @jax.shard_map(in_specs=jax.P("i"), out_specs=jax.P("i"))
    def f5(x_block):
        y_block = jax.lax.all_gather(x_block, "i", tiled=False)
        printed("all_gather.untiled.after", y_block)
        return y_block

    rec("all_gather.untiled", f5(x))

    # -- psum_scatter
    @jax.shard_map(in_specs=jax.P("i"), out_specs=jax.P("i"))
    def f6(x_block):
        y_block = jax.lax.psum_scatter(x_block, "i", tiled=True)
        printed("psum_scatter.after", y_block)
        return y_block

    x = jnp.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 1, 2])
    rec("psum_scatter", f6(x))

    # -- ppermute
    @jax.shard_map(in_specs=jax.P("i"), out_specs=jax.P("i"))
    def f7(x_block):
        sz = jax.lax.axis_size("i")
        y_block = jax.lax.ppermute(x_block, "i", [(i, (i + 1) % sz) for i in range(sz)])
        printed("ppermute.after", y_block)
        return y_block

    rec("ppermute", f7(jnp.arange(8)))

    def psum_scatter(x, axis_name, *, tiled=False):
        size = jax.lax.axis_size(axis_name)
        idx = jax.lax.axis_index(axis_name)
        if tiled:
            x = x.reshape(size, -1, *x.shape[1:])
        shift = partial(
            jax.lax.ppermute, axis_name=axis_name, perm=[(i, (i - 1) % size) for i in range(size)]
        )
        for i in range(1, size):
            update = shift(x[(idx + i) % size])
            x = x.at[(idx + i + 1) % size].add(update)
        return x[idx]

    @jax.shard_map(in_specs=jax.P("i"), out_specs=jax.P("i"))
    def f8(x_block):
        y_block = psum_scatter(x_block, "i", tiled=True)
        printed("ppermute.ring.after", y_block)
        return y_block

    x = jnp.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 1, 2])
    rec("ppermute.ring", f8(x))

    # -- all_to_all
    @jax.shard_map(in_specs=jax.P("i"), out_specs=jax.P("i"))
    def f9(x_block):
        y_block = jax.lax.all_to_all(x_block, "i", split_axis=0, concat_axis=0, tiled=True)
        printed("all_to_all.after", y_block)
        return y_block

    x = jnp.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 1, 2])
    rec("all_to_all", f9(x))

    # -- Toy examples: matrix multiplies
    mesh = jax.make_mesh((4,), ("i",), (Auto,))
    jax.set_mesh(mesh)

    def device_put(x, pspec):
        return jax.device_put(x, pspec)

    lhs_spec = jax.P("i", None)
    lhs = device_put(jax.random.normal(jax.random.key(0), (8, 8)), lhs_spec)
    rhs_spec = jax.P("i", None)
    rhs = device_put(jax.random.normal(jax.random.key(1), (8, 4)), rhs_spec)

    def check(cell, out):
        rec(cell, [out, jnp.allclose(out, lhs @ rhs, atol=1e-3, rtol=1e-3)], tol=1e-5)

    @jax.jit
    @jax.shard_map(in_specs=(lhs_spec, rhs_spec), out_specs=rhs_spec)
    def matmul_allgather(lhs_block, rhs_block):
        rhs = jax.lax.all_gather(rhs_block, "i", tiled=True)
        return lhs_block @ rhs

    check("matmul_allgather", matmul_allgather(lhs, rhs))

    @jax.jit
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

    check("matmul_allgather_overlapped", matmul_allgather_overlapped(lhs, rhs))

    @jax.jit
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

        def block_matmul(rhs_lo, rhs_hi, i_lo, i_hi):
            lhs_lo = jnp.pad(lhs_blocks(i_lo, 0), [(0, 0), (0, B)])
            lhs_hi = jnp.pad(lhs_blocks(i_hi, 1), [(0, 0), (B, 0)])
            rhs_lo = jnp.pad(rhs_lo, [(0, B), (0, 0)])
            rhs_hi = jnp.pad(rhs_hi, [(B, 0), (0, 0)])
            return (lhs_lo + lhs_hi) @ (rhs_lo + rhs_hi)

        rhs_block_lo, rhs_block_hi = jnp.split(rhs_block, 2, axis=0)
        out_block = block_matmul(rhs_block_lo, rhs_block_hi, idx, idx)
        for i in range(1, size):
            rhs_block_lo = shift_up(rhs_block_lo)
            rhs_block_hi = shift_dn(rhs_block_hi)
            out_block += block_matmul(
                rhs_block_lo, rhs_block_hi, (idx - i) % size, (idx + i) % size
            )
        return out_block

    check("matmul_allgather_bidi", matmul_allgather_overlapped_bidi(lhs, rhs))

    lhs_spec = jax.P(None, "i")
    lhs = device_put(lhs, lhs_spec)
    rhs_spec = jax.P("i", None)
    rhs = device_put(rhs, rhs_spec)

    @jax.shard_map(in_specs=(lhs_spec, rhs_spec), out_specs=rhs_spec)
    def matmul_psumscatter(lhs_block, rhs_block):
        out_summand = lhs_block @ rhs_block
        return jax.lax.psum_scatter(out_summand, "i", tiled=True)

    check("matmul_psumscatter", matmul_psumscatter(lhs, rhs))

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

    check("matmul_psumscatter_overlapped", matmul_psumscatter_overlapped(lhs, rhs))

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

    check("matmul_psumscatter_bidi", matmul_psumscatter_overlapped_bidi(lhs, rhs))

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
    mesh = jax.make_mesh((8,), ("batch",))
    jax.set_mesh(mesh)
    batch = jax.device_put(batch, jax.P("batch"))
    params = jax.device_put(params, jax.P())

    @jax.shard_map(out_specs=jax.P())
    def loss_dp(params, local_batch):
        inputs, targets = local_batch
        predictions = predict(params, inputs)
        local_loss = jnp.mean(jnp.sum((predictions - targets) ** 2, axis=-1))
        return jax.lax.pmean(local_loss, "batch")

    rec("dp.loss", [jax.jit(loss)(params, batch), jax.jit(loss_dp)(params, batch)], tol=1e-5)
    rec(
        "dp.grad_allclose",
        allclose(jax.jit(jax.grad(loss))(params, batch), jax.jit(jax.grad(loss_dp))(params, batch)),
    )
    rec("dp.grad", jax.jit(jax.grad(loss_dp))(params, batch)[-1], tol=1e-5)

    # 8-way fully sharded data parallelism (FSDP), on the page's 4-device mesh
    mesh = jax.make_mesh((4,), ("batch",))
    jax.set_mesh(mesh)
    batch = jax.device_put(batch, jax.P("batch"))
    params = jax.device_put(params, jax.P("batch"))

    @partial(jax.remat, policy=lambda op, *_, **__: str(op) != "all_gather")
    def predict_fsdp(params_frag, inputs):
        for W_frag, b_frag in params_frag:
            W = jax.lax.all_gather(W_frag, "batch", tiled=True)
            b = jax.lax.all_gather(b_frag, "batch", tiled=True)
            outputs = jnp.dot(inputs, W) + b
            inputs = jax.nn.relu(outputs)
        return outputs

    @jax.shard_map(out_specs=jax.P())
    def loss_fsdp(local_params, local_batch):
        inputs, targets = local_batch
        predictions = predict_fsdp(local_params, inputs)
        local_loss = jnp.mean(jnp.sum((predictions - targets) ** 2, axis=-1))
        return jax.lax.pmean(local_loss, "batch")

    repl_params = jax.device_put(params, jax.P())
    repl_batch = jax.device_put(batch, jax.P())
    rec(
        "fsdp.loss",
        [jax.jit(loss)(repl_params, repl_batch), jax.jit(loss_fsdp)(params, batch)],
        tol=1e-5,
    )
    rec(
        "fsdp.grad_allclose",
        allclose(
            jax.jit(jax.grad(loss))(repl_params, repl_batch),
            jax.jit(jax.grad(loss_fsdp))(params, batch),
        ),
    )
    rec("fsdp.params", params[0][1])

    # 8-way tensor parallelism (TP)
    mesh = jax.make_mesh((8,), ("feats",))
    jax.set_mesh(mesh)
    batch = jax.device_put(batch, jax.P(None, "feats"))
    params = jax.device_put(params, jax.P("feats"))

    def predict_tp(params, inputs):
        for W, b in params:
            outputs = gemm_tp(inputs, W, b)
            inputs = jax.nn.relu(outputs)
        return outputs

    @jax.shard_map(
        in_specs=(jax.P(None, "feats"), jax.P("feats", None), jax.P("feats")),
        out_specs=jax.P(None, "feats"),
    )
    def gemm_tp(inputs, W, b):
        block_result = jnp.dot(inputs, W)
        return jax.lax.psum_scatter(block_result, "feats", scatter_dimension=1, tiled=True) + b

    def loss_tp(params, batch):
        inputs, targets = batch
        predictions = predict_tp(params, inputs)
        return jnp.mean(jnp.sum((predictions - targets) ** 2, axis=-1))

    # (The page defines loss_tp without calling it; the program evaluates it.)
    note("tp.loss", lambda: jax.jit(loss_tp)(params, batch))

    # FSDP + TP, with shard_map at the top level
    mesh = jax.make_mesh((4, 2), ("batch", "feats"))
    jax.set_mesh(mesh)
    batch = jax.device_put(batch, jax.P("batch", "feats"))
    params = jax.device_put(params, jax.P(("feats", "batch")))

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

    @jax.shard_map(in_specs=(jax.P(("feats", "batch")), jax.P("batch", "feats")), out_specs=jax.P())
    def loss_fsdp_tp(local_params, local_batch):
        inputs, targets = local_batch
        predictions = predict_fsdp_tp(local_params, inputs)
        sq_err = jax.lax.psum(jnp.sum((predictions - targets) ** 2, axis=-1), "feats")
        return jax.lax.pmean(jnp.mean(sq_err), "batch")

    repl_params = jax.device_put(params, jax.P())
    repl_batch = jax.device_put(batch, jax.P())
    rec(
        "fsdp_tp.loss",
        [jax.jit(loss)(repl_params, repl_batch), jax.jit(loss_fsdp_tp)(params, batch)],
        tol=1e-5,
    )
    rec(
        "fsdp_tp.grad_allclose",
        allclose(
            jax.jit(jax.grad(loss))(repl_params, repl_batch),
            jax.jit(jax.grad(loss_fsdp_tp))(params, batch),
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
    rec(
        "pp.sizes",
        [
            f"{S} stages, {L // S} layer(s) per stage, {L} pipelined layers total",
            f"{B} examples per microbatch, {M} microbatches total",
        ],
    )

    mesh = jax.make_mesh((S,), ("stages",), (Auto,))

    def predict_pp(params, inputs):
        (W_first, b_first), inner_params, (W_last, b_last) = params
        inputs = jax.nn.relu(jnp.dot(inputs, W_first) + b_first)
        inputs = spmd_pipeline(lambda Wb, x: jax.nn.relu(x @ Wb[0] + Wb[1]), inner_params, inputs)
        return jnp.dot(inputs, W_last) + b_last

    @jax.shard_map(
        in_specs=((jax.P(), jax.P("stages"), jax.P()), jax.P("stages")), out_specs=jax.P()
    )
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

    NamedSharding = jax.sharding.NamedSharding
    first_params, *inner_params, last_params = params
    Ws, bs = zip(*inner_params)
    params_stacked = jnp.stack(Ws), jnp.stack(bs)
    first_params = jax.device_put(first_params, NamedSharding(mesh, jax.P()))
    params_stacked = jax.device_put(params_stacked, NamedSharding(mesh, jax.P("stages")))
    last_params = jax.device_put(last_params, NamedSharding(mesh, jax.P()))
    params_ = first_params, params_stacked, last_params
    batch_ = jax.device_put(batch, NamedSharding(mesh, jax.P("stages")))

    jax.set_mesh(mesh)
    rec("pp.loss", jax.jit(loss_pp)(params_, batch_), tol=1e-5)
    _ = jax.jit(jax.grad(loss_pp))(params_, batch_)
    rec("pp.grad_last", _[2][1], tol=1e-5)
