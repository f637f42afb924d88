"""The code cells of JAX's "Distributed arrays and automatic parallelization" page
(docs/201/sharding.md), as one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd (8 CPU devices)
and records what each prints: types and shardings as their text (an f-string's text where the
cell prints one), arrays with their sharding, each shard's device and data, the text
``visualize_array_sharding`` draws, and error classes.

Left out: ``jax.config.update('jax_num_cpu_devices', 8)`` (the runner gives both backends 8
devices); the cells that only define the illustrative ``AbstractMesh``/``Mesh`` classes; the
"Device-local layout" section, whose blocks are not executed in the page's build (its
``Layout.AUTO`` choices are the accelerator's; on CPU XLA picks row-major everywhere) and use
``jax.experimental.layout``, which spmd does not provide.
"""

from __future__ import annotations

import contextlib
import importlib
import io

import numpy as np
import record

# The page relies on JAX 0.10's Explicit make_mesh default (spmd's is Auto: docs/DESIGN.md).
SPMD_CONFIG = {"spmd_default_axis_types": "explicit"}
# cell -> (what spmd records, None for any value unlike JAX's; why it differs from JAX 0.10.2),
# as the parallel101 program lists the same two cells.
KNOWN: dict[str, tuple[object, str]] = {
    "unreduced.shards": (
        None,
        "spmd holds an unreduced array's value (the sum of its addends), placed on the first "
        "device along Y with zeros on the others; JAX's device_put of an array split over Y "
        "keeps each device's block as its addend (zeros elsewhere)",
    ),
    "sum0.all_reduce": (
        False,
        "Compiled.as_text() is the Python program spmd runs (one process computes the global "
        "value), not XLA's partitioned HLO: it names no all-reduce. The partitioned program "
        "(Lowered.as_text()) shows the collective as a psum over ('X',)",
    ),
}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one page, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    auto_axes, explicit_axes = jax.sharding.auto_axes, jax.sharding.explicit_axes

    def note(cell, fn):
        return record.note(rec, cell, fn)

    def shown(fn):
        """What ``fn()`` prints."""
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            fn()
        return buf.getvalue()

    def visualize(cell, x):
        rec(cell, shown(lambda: jax.debug.visualize_array_sharding(x)))

    def shards(cell, x):
        rec(cell, [[str(s.device), s.data] for s in x.addressable_shards])

    jax.set_mesh(jax.make_mesh((4, 2), ("X", "Y")))
    x = jnp.arange(8 * 4.0).reshape(8, 4)
    x = jax.device_put(x, jax.P("X", "Y"))
    rec("quick.typeof", str(jax.typeof(x)))
    visualize("quick.visualize", x)
    y = jnp.sin(x).T
    rec("quick.sin_T", str(jax.typeof(y)))
    rec("quick.sin_T.value", y)

    # -- A Mesh is a grid of devices with named axes
    mesh = jax.make_mesh((4, 2), ("X", "Y"))
    rec("mesh", str(mesh))
    rec("mesh.axis_types", [str(t) for t in mesh.axis_types])
    ctor = jax.sharding.Mesh(np.array(jax.devices()).reshape(4, 2), ("X", "Y"))
    rec("mesh.constructor_axis_types", [str(t) for t in ctor.axis_types])
    jax.set_mesh(mesh)
    rec("get_mesh", str(jax.sharding.get_mesh()))

    @jax.jit
    def f(x):
        abstract_mesh = jax.sharding.AbstractMesh((8,), ("A",), (jax.sharding.AxisType.Explicit,))
        with jax.sharding.use_abstract_mesh(abstract_mesh):
            y = jax.reshard(x, jax.P("A", None))
            rec("use_abstract_mesh.inside", str(jax.sharding.get_abstract_mesh()))
            return y * 2

    z = f(x)
    rec("use_abstract_mesh.typeof", str(jax.typeof(z)))
    rec("use_abstract_mesh.value", z)

    # -- A Sharding describes how array values are laid out over a Mesh
    rec("x.sharding", str(x.sharding))
    visualize("x.visualize", x)
    shards("x.shards", x)

    y = jax.device_put(x, jax.P("Y", "X"))
    rec("YX.sharding", str(y.sharding))
    visualize("YX.visualize", y)
    y = jax.reshard(x, jax.P("Y", "X"))
    rec("YX.reshard.sharding", str(y.sharding))
    y = jax.device_put(x, jax.P("X", None))
    rec("XNone.sharding", str(y.sharding))
    visualize("XNone.visualize", y)
    shards("XNone.shards", y)
    y = jax.device_put(x, jax.P(("X", "Y")))
    rec("XY.sharding", str(y.sharding))
    visualize("XY.visualize", y)

    y = jax.device_put(x, jax.P("X", None, unreduced={"Y"}))
    rec("unreduced.sharding", str(y.sharding))
    shards("unreduced.shards", y)
    rec("unreduced.typeof", str(jax.typeof(y)))

    mesh2 = jax.make_mesh((8,), ("A",))
    z = jax.device_put(x, jax.NamedSharding(mesh2, jax.P("A", None)))
    rec("mesh2.z", str(z.sharding))
    rec("mesh2.y", str(y.sharding))

    # -- Explicit sharding mode makes sharding queryable at trace time
    rec("typeof.sharding", str(jax.typeof(x).sharding))
    jax.jit(lambda x: rec("typeof.sharding.jit", str(jax.typeof(x).sharding)))(x)

    x = jax.device_put(np.arange(4).reshape(4, 1), jax.P("X", None))
    y = jax.device_put(np.arange(8).reshape(1, 8), jax.P(None, "Y"))
    z = x + y
    rec("add.types", [f"{jax.typeof(x)=!s}", f"{jax.typeof(y)=!s}", f"{jax.typeof(z)=!s}"])
    rec("add.z", z)

    @jax.jit
    def add_arrays(x, y):
        z = x + y
        rec(
            "add_arrays.types",
            [f"{jax.typeof(x)=!s}", f"{jax.typeof(y)=!s}", f"{jax.typeof(z)=!s}"],
        )
        return z

    rec("add_arrays", add_arrays(x, y))

    x = jax.random.normal(jax.random.key(0), (8, 4), out_sharding=jax.P("X", "Y"))
    rec("normal.typeof", str(jax.typeof(x)))
    rec("normal", x)
    y = x.sum(0)
    rec("sum0.typeof", str(jax.typeof(y)))
    rec("sum0", y)
    compile_txt = jax.jit(lambda x: x.sum(0)).lower(x).compile().as_text()
    rec("sum0.all_reduce", "all-reduce(" in compile_txt)

    # -- Result shardings follow simple rules, or error and require annotation
    x = jax.device_put(jnp.arange(8 * 4.0).reshape(8, 4), jax.P(None, "X"))
    y = jax.device_put(jnp.arange(4 * 16.0).reshape(4, 16), jax.P("X", None))
    note("dot.error", lambda: jnp.dot(x, y))
    z = jnp.dot(x, y, out_sharding=jax.P("X", None))
    rec("dot.out_sharding.typeof", str(jax.typeof(z)))
    rec("dot.out_sharding", z)
    # The prose: an unsharded operand against a sharded contraction all-gathers, no error.
    xr = jax.device_put(x, jax.P())
    z = jnp.dot(xr, y)
    rec("dot.fsdp.typeof", str(jax.typeof(z)))
    rec("dot.fsdp", z)

    # -- With @auto_axes the compiler chooses shardings within the decorated function
    x = jax.device_put(np.arange(16).reshape(4, 4), jax.P("X", None))
    y = jax.device_put(np.arange(16).reshape(4, 4), jax.P(None, "X"))
    note("add.conflict", lambda: x + y)

    @auto_axes
    def add2(x, y):
        rec("add2.mesh", f"{jax.sharding.get_abstract_mesh()}")
        return x + y

    result = add2(x, y, out_sharding=jax.P("X", None))
    rec("add2.typeof", f"Result type: {jax.typeof(result)}")
    rec("add2", result)

    # -- Auto sharding mode decides shardings automatically during compilation
    Auto = jax.sharding.AxisType.Auto
    auto_mesh = jax.make_mesh((4, 2), ("X", "Y"), (Auto, Auto))
    jax.set_mesh(auto_mesh)
    x = jax.device_put(jnp.arange(8 * 4.0).reshape(8, 4), jax.P(None, "X"))
    y = jax.device_put(jnp.arange(4 * 16.0).reshape(4, 16), jax.P("X", None))
    z = jnp.dot(x, y)
    rec("auto.dot", z)
    rec("auto.dot.typeof", str(jax.typeof(z)))

    @jax.jit
    def f(x, y):
        z = jnp.dot(x, y)
        z = jax.lax.with_sharding_constraint(z, jax.P("X", None))
        return z

    z = f(x, y)
    rec("auto.wsc.sharding", str(z.sharding))
    rec("auto.wsc", z)

    @explicit_axes
    def explicit_g(y):
        rec("explicit_g.mesh", f"mesh inside g: {jax.sharding.get_abstract_mesh()}")
        rec("explicit_g.y", f"y.sharding inside g: {jax.typeof(y) = }")
        z = y * 2
        rec("explicit_g.z", f"z.sharding inside g: {jax.typeof(z) = }")
        return z

    @jax.jit
    def f(arr1):
        rec("explicit_f.mesh", f"mesh inside f: {jax.sharding.get_abstract_mesh()}")
        x = jnp.sin(arr1)
        z = explicit_g(x, in_sharding=jax.P("X", "Y"))
        return z + 1

    x = jax.device_put(np.arange(16).reshape(4, 4), jax.P("X", "Y"))
    out = f(x)
    rec("explicit_f", out)
    rec("explicit_f.typeof", str(jax.typeof(out)))

    # -- Concrete array shardings can mention Auto mesh axes
    jax.set_mesh(jax.make_mesh((4, 2), ("X", "Y")))

    def compare_shardings(cell, x):
        rec(
            cell,
            [
                f"=== with mesh: {jax.sharding.get_abstract_mesh()} ===",
                f"Concrete value sharding: {x.sharding.spec}",
                f"Type-specified sharding: {jax.typeof(x).sharding.spec}",
            ],
        )

    my_array = jnp.sin(jax.device_put(np.arange(8), jax.P("X")))
    compare_shardings("compare.top", my_array)

    @auto_axes
    def check_in_auto_context(x):
        compare_shardings("compare.auto", x)
        return x

    out = check_in_auto_context(my_array, out_sharding=jax.P("X"))
    rec("compare.out", out)

    # The prose: with_sharding_constraint on Explicit axes asserts the argument's sharding;
    # use_abstract_mesh keeps the mesh's total size; auto_axes refuses Manual axes.
    xs = jax.device_put(np.arange(8.0), jax.P("X"))
    wsc = jax.lax.with_sharding_constraint
    note("prose.wsc_explicit_match", lambda: jax.jit(lambda v: wsc(v, jax.P("X")))(xs))
    note("prose.wsc_explicit_mismatch", lambda: jax.jit(lambda v: wsc(v, jax.P("Y")))(xs))
    small = jax.sharding.AbstractMesh((4,), ("A",), (jax.sharding.AxisType.Explicit,))

    def shrink(v):
        with jax.sharding.use_abstract_mesh(small):
            return v * 2

    note("prose.use_abstract_mesh_size", lambda: jax.jit(shrink)(xs))

    @jax.shard_map(in_specs=jax.P("X"), out_specs=jax.P("X"))
    def manual_auto(v):
        return auto_axes(lambda w: w * 2, out_sharding=jax.P())(v)

    note("prose.auto_axes_in_manual", lambda: manual_auto(xs))

    # -- Manual mode lets you write explicit collectives with a per-device view of data
    mesh = jax.make_mesh((4, 2), ("X", "Y"))
    jax.set_mesh(mesh)
    x = jax.device_put(jnp.arange(8 * 4.0).reshape(8, 4), jax.P(None, "X"))
    y = jax.device_put(jnp.arange(4 * 16.0).reshape(4, 16), jax.P("X", None))

    @jax.shard_map(out_specs=jax.P("X", None))
    def matmul(x_shard, y_shard):
        rec("matmul.shards", [str(jax.typeof(x_shard)), str(jax.typeof(y_shard))])
        z_summand = jnp.dot(x_shard, y_shard)
        return jax.lax.psum_scatter(z_summand, "X", tiled=True)

    z = matmul(x, y)
    rec("matmul.typeof", str(jax.typeof(z)))
    z_ref = jnp.dot(x, y, out_sharding=jax.P("X", None))
    rec("matmul.allclose", jnp.allclose(z_ref, z))
    rec("matmul", z)
