"""The code cells of JAX's "Distributed arrays and automatic parallelization" page in its new
form (docs/notebooks/parallel.md: meshes, shardings, Explicit / Auto / Manual axes), as one
program: ``program(jax, rec)`` (see tests/tutorials/record.py and shard_map_tutorial.py).

The page is written for JAX 0.10's make_mesh, whose axes default to Explicit: SPMD_CONFIG
asks spmd for the same default. What a cell prints is recorded as text where the page prints
a text (types, shardings, meshes), and as the value otherwise; prints inside a traced function
record the traced value's text; ``visualize_array_sharding`` is recorded as the text it prints;
an error as its class, and its message is checked to name the operation and the shardings.
The class definitions of AbstractMesh / AxisType / Mesh (illustrations, not API) are left out.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import re

import numpy as np

SPMD_CONFIG = {"spmd_default_axis_types": "explicit"}

# cell -> (what spmd records, None for any value unlike JAX's; why it differs from JAX 0.10.2).
KNOWN: dict[str, tuple[object, str]] = {
    "unreduced.shards": (
        None,
        "spmd holds an unreduced array's value (the sum of its addends), placed on the first "
        "device along Y with zeros on the others; JAX's device_put splits each block into "
        "disjoint addends over Y",
    ),
    "sum0.all_reduce": (
        False,
        "Compiled.as_text() is the Python program spmd runs (one process computes the global "
        "value), not XLA's partitioned HLO: it names no all-reduce. The partitioned program "
        "(Lowered.as_text()) shows the collective as a psum over ('X',)",
    ),
}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    sharding = importlib.import_module(jax.__name__ + ".sharding")
    auto_axes, explicit_axes = sharding.auto_axes, sharding.explicit_axes

    def printed(fn):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            fn()
        return buf.getvalue()

    def show(cell, x):
        rec(cell, printed(lambda: jax.debug.visualize_array_sharding(x)))

    def shards(cell, x):
        rec(cell, [[s.device.id, s.data] for s in x.addressable_shards])

    def error(cell, fn, *words):
        """Record the class of the error ``fn`` raises, and whether its message names every
        one of ``words`` (regular expressions)."""
        try:
            fn()
        except Exception as e:  # noqa: BLE001 -- the class is the recorded value
            rec(cell, e)
            rec(cell + ".message", [bool(re.search(w, str(e))) for w in words])
        else:
            rec(cell, "no error")

    # -- A quick example using explicit mode
    jax.set_mesh(jax.make_mesh((4, 2), ("X", "Y")))  # explicit mode by default
    x = jnp.arange(8 * 4.0).reshape(8, 4)
    x = jax.device_put(x, jax.P("X", "Y"))
    rec("intro.typeof", str(jax.typeof(x)))  # f32[8@X, 4@Y]
    rec("intro.x", x)
    show("intro.visualize", x)
    y = jnp.sin(x).T
    rec("intro.sin_T.typeof", str(jax.typeof(y)))  # f32[4@Y, 8@X]
    rec("intro.sin_T", y)

    # -- A Mesh is a grid of devices with named axes
    mesh = jax.make_mesh((4, 2), ("X", "Y"))
    rec("mesh", str(mesh))
    rec("mesh.axis_types", [str(t) for t in mesh.axis_types])
    jax.set_mesh(mesh)
    rec("get_mesh", str(jax.sharding.get_mesh()))

    @jax.jit
    def f(x):
        abstract_mesh = jax.sharding.AbstractMesh((8,), ("A",), (jax.sharding.AxisType.Explicit,))
        with jax.sharding.use_abstract_mesh(abstract_mesh):
            rec("use_abstract_mesh.inside", str(jax.sharding.get_abstract_mesh()))
            y = jax.reshard(x, jax.P("A", None))
            return y * 2

    z = f(x)
    rec("use_abstract_mesh.typeof", str(jax.typeof(z)))  # f32[8@A, 4]
    rec("use_abstract_mesh", z)

    # -- A Sharding describes how array values are laid out over a Mesh
    rec("x.sharding", str(x.sharding))
    show("x.visualize", x)
    shards("x.shards", x)

    y = jax.device_put(x, jax.P("Y", "X"))
    rec("YX.sharding", str(y.sharding))
    show("YX.visualize", y)

    y = jax.device_put(x, jax.P("X", None))
    rec("X_None.sharding", str(y.sharding))
    show("X_None.visualize", y)
    shards("X_None.shards", y)

    y = jax.device_put(x, jax.P(("X", "Y")))
    rec("XY.sharding", str(y.sharding))
    show("XY.visualize", y)

    y = jax.device_put(x, jax.P("X", None, unreduced={"Y"}))
    rec("unreduced.sharding", str(y.sharding))
    rec("unreduced.typeof", str(jax.typeof(y)))
    shards("unreduced.shards", y)

    mesh2 = jax.make_mesh((8,), ("A",))
    z = jax.device_put(x, jax.NamedSharding(mesh2, jax.P("A", None)))
    rec("mesh2.z.sharding", str(z.sharding))
    rec("mesh2.y.sharding", str(y.sharding))

    # -- Explicit sharding mode makes sharding queryable at trace-time
    rec("typeof.sharding", str(jax.typeof(x).sharding))
    jax.jit(lambda x: rec("typeof.sharding.jit", str(jax.typeof(x).sharding)))(x)

    arg0 = jax.device_put(np.arange(4).reshape(4, 1), jax.P("X", None))
    arg1 = jax.device_put(np.arange(8).reshape(1, 8), jax.P(None, "Y"))
    result = arg0 + arg1
    rec("propagate.arg0", f"{jax.typeof(arg0)=!s}")
    rec("propagate.arg1", f"{jax.typeof(arg1)=!s}")
    rec("propagate.result", f"{jax.typeof(result)=!s}")
    rec("propagate.result.value", result)

    @jax.jit
    def add_arrays(x, y):
        ans = x + y
        rec("add_arrays.printed", [
            f"{jax.typeof(arg0)=!s}", f"{jax.typeof(arg1)=!s}", f"{jax.typeof(result)=!s}",
            str(jax.typeof(ans)),
        ])  # fmt: skip
        return ans

    rec("add_arrays", add_arrays(arg0, arg1))

    x = jax.random.normal(jax.random.key(0), (8, 4), out_sharding=jax.P("X", "Y"))
    rec("normal.typeof", str(jax.typeof(x)))
    rec("normal", x)
    y = x.sum(0)
    rec("sum0.typeof", str(jax.typeof(y)))
    rec("sum0", y)
    compile_txt = jax.jit(lambda x: x.sum(0)).lower(x).compile().as_text()
    rec("sum0.all_reduce", "all-reduce(" in compile_txt)

    # -- Result shardings follow simple rules, or error and require annotation
    # (the eager values made under the mesh: JAX places them on it, replicated)
    rec("arange.under_mesh", jnp.arange(8 * 4.0).reshape(8, 4))
    x = jax.device_put(jnp.arange(8 * 4.0).reshape(8, 4), jax.P(None, "X"))
    y = jax.device_put(jnp.arange(4 * 16.0).reshape(4, 16), jax.P("X", None))
    error("dot.error", lambda: jnp.dot(x, y), "out_sharding", "(?i)contracting", r"\('X',\)")
    z = jnp.dot(x, y, out_sharding=jax.P("X", None))
    rec("dot.out_sharding.typeof", str(jax.typeof(z)))
    rec("dot.out_sharding", z)

    # -- With @auto_axes the compiler chooses shardings within the decorated function
    x = jax.device_put(np.arange(16).reshape(4, 4), jax.P("X", None))
    y = jax.device_put(np.arange(16).reshape(4, 4), jax.P(None, "X"))
    error("add.error", lambda: x + y, "add", r"4@X,4\]", r"4,4@X\]", r"4@X,4@X\]")

    @auto_axes
    def add2(x, y):
        rec("add2.mesh", str(jax.sharding.get_abstract_mesh()))
        return x + y

    result = add2(x, y, out_sharding=jax.P("X", None))
    rec("add2.typeof", f"Result type: {jax.typeof(result)}")
    rec("add2", result)

    # -- Concrete array shardings can mention Auto mesh axes
    def compare_shardings(cell, x):
        rec(cell, [
            f"=== with mesh: {jax.sharding.get_abstract_mesh()} ===",
            f"Concrete value sharding: {x.sharding.spec}",
            f"Type-specified sharding: {jax.typeof(x).sharding.spec}",
        ])  # fmt: skip

    my_array = jnp.sin(jax.device_put(np.arange(8), jax.P("X")))
    compare_shardings("compare.top", my_array)

    @auto_axes
    def check_in_auto_context(x):
        compare_shardings("compare.auto", x)
        return x

    out = check_in_auto_context(my_array, out_sharding=jax.P("X"))
    rec("compare.auto.out", out)

    # -- Auto sharding mode decides shardings automatically during compilation
    Auto = jax.sharding.AxisType.Auto
    auto_mesh = jax.make_mesh((4, 2), ("X", "Y"), (Auto, Auto))
    jax.set_mesh(auto_mesh)
    x = jax.device_put(jnp.arange(8 * 4.0).reshape(8, 4), jax.P(None, "X"))
    y = jax.device_put(jnp.arange(4 * 16.0).reshape(4, 16), jax.P("X", None))
    z = jnp.dot(x, y)  # not an error!
    rec("auto.dot", z)  # (its sharding is the compiler's choice: the page prints it)
    rec("auto.dot.typeof", str(jax.typeof(z)))

    @jax.jit
    def f(x, y):
        z = jnp.dot(x, y)
        z = jax.lax.with_sharding_constraint(z, jax.P("X", None))
        return z

    z = f(x, y)
    rec("auto.constraint.sharding", str(z.sharding))
    rec("auto.constraint", z)

    @explicit_axes
    def explicit_g(y):
        rec("explicit_g.printed", [
            f"mesh inside g: {jax.sharding.get_abstract_mesh()}",
            f"y.sharding inside g: {jax.typeof(y) = }",
        ])  # fmt: skip
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

    # -- Manual mode lets you write explicit collectives with a per-device view of data
    mesh = jax.make_mesh((4, 2), ("X", "Y"))
    jax.set_mesh(mesh)
    x = jax.device_put(jnp.arange(8 * 4.0).reshape(8, 4), jax.P(None, "X"))
    y = jax.device_put(jnp.arange(4 * 16.0).reshape(4, 16), jax.P("X", None))

    @jax.shard_map(out_specs=jax.P("X", None))
    def matmul(x_shard, y_shard):
        z_summand = jnp.dot(x_shard, y_shard)
        return jax.lax.psum_scatter(z_summand, "X", tiled=True)

    z = matmul(x, y)
    rec("shard_map.typeof", str(jax.typeof(z)))
    rec("shard_map", z)
    z_ref = jnp.dot(x, y, out_sharding=jax.P("X", None))
    rec("shard_map.allclose", bool(jnp.allclose(z_ref, z)))
