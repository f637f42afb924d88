"""The code cells of JAX's "Explicit sharding (a.k.a. sharding in types)" tutorial
(docs/notebooks/explicit-sharding.md), as one program: ``program(jax, rec)`` (see
tests/tutorials/record.py and shard_map_tutorial.py).

Where a cell prints an f-string, the program records the text the f-string shows (``str`` of a
type or mesh, ``repr`` for ``{x = }``). The page imports ``reshard, auto_axes, explicit_axes``
from ``jax.experimental.shard`` and enters a mesh with ``jax.sharding.use_mesh``; JAX 0.10.2 has
neither (the first cell records the failed import), so the program takes them from
``jax.sharding`` and uses ``jax.set_mesh`` as the context manager, as JAX 0.10.2's own docs do.
The page's cells are followed by small cells for the rules its prose states (nullary ops,
binary ops, reshape splits and merges, cond, scan, vmap, make_jaxpr, grad), under the same mesh.
"""

from __future__ import annotations

import functools
import importlib

import numpy as np
import record


def _message_names(e: BaseException, *parts: str) -> bool:
    """Whether an error's message names every part (the operation, the arguments' types)."""
    return all(p in str(e) for p in parts)


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    P, AxisType = jax.sharding.PartitionSpec, jax.sharding.AxisType
    set_mesh, get_abstract_mesh = jax.sharding.set_mesh, jax.sharding.get_abstract_mesh
    reshard, auto_axes = jax.sharding.reshard, jax.sharding.auto_axes
    explicit_axes = jax.sharding.explicit_axes

    def note(cell, fn):
        return record.note(rec, cell, fn)

    def text(x):
        return str(x)

    try:
        importlib.import_module(jax.__name__ + ".experimental.shard")
        rec("import.experimental_shard", "imported")
    except ImportError as e:
        rec("import.experimental_shard", e)

    # -- Setting up an explicit mesh
    some_array = np.arange(8)
    rec("typeof.numpy", f"JAX-level type of some_array: {jax.typeof(some_array)}")

    @jax.jit
    def foo(x):
        rec("typeof.traced", f"JAX-level type of x during tracing: {jax.typeof(x)}")
        return x + x

    rec("foo", foo(some_array))

    mesh = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
    set_mesh(mesh)
    rec("mesh", f"Current mesh is: {get_abstract_mesh()}")

    replicated_array = np.arange(8).reshape(4, 2)
    sharded_array = reshard(replicated_array, P("X", None))
    rec("reshard.replicated", f"replicated_array type: {jax.typeof(replicated_array)}")
    rec("reshard.sharded", f"sharded_array type: {jax.typeof(sharded_array)}")
    rec("reshard.sharded.value", sharded_array)

    arg0 = reshard(np.arange(4).reshape(4, 1), P("X", None))
    arg1 = reshard(np.arange(8).reshape(1, 8), P(None, "Y"))
    result = arg0 + arg1
    rec("add.arg0", f"arg0 sharding: {jax.typeof(arg0)}")
    rec("add.arg1", f"arg1 sharding: {jax.typeof(arg1)}")
    rec("add.result", f"result sharding: {jax.typeof(result)}")
    rec("add.result.value", result)

    @jax.jit
    def add_arrays(x, y):
        ans = x + y
        rec("add_arrays.x", f"x sharding: {jax.typeof(x)}")
        rec("add_arrays.y", f"y sharding: {jax.typeof(y)}")
        rec("add_arrays.ans", f"ans sharding: {jax.typeof(ans)}")
        return ans

    rec("add_arrays", add_arrays(arg0, arg1))

    # -- Working around unimplemented sharding rules using auto_axes
    some_x = reshard(np.arange(16).reshape(4, 4), P("X", None))
    some_y = reshard(np.arange(16).reshape(4, 4), P(None, "X"))
    try:
        some_x + some_y
        rec("add.error", "no error")
    except Exception as e:  # noqa: BLE001 -- the page prints it
        rec("add.error", e)
        # The page prints the message: it names the operation, both operands' types and the
        # illegal result's.
        rec(
            "add.error.message",
            _message_names(e, "add", "i32[4@X,4]", "i32[4,4@X]", "i32[4@X,4@X]"),
        )

    @auto_axes
    def add_with_out_sharding_kwarg(x, y):
        rec("auto_axes.mesh", f"This is the current mesh: {get_abstract_mesh()}")
        return x + y

    result = add_with_out_sharding_kwarg(some_x, some_y, out_sharding=P("X", None))
    rec("auto_axes.result", f"Result type: {jax.typeof(result)}")
    rec("auto_axes.result.value", result)
    note("auto_axes.no_out_sharding", lambda: add_with_out_sharding_kwarg(some_x, some_y))

    # -- Using a mixture of sharding modes
    rec("mesh.again", f"Current mesh is: {get_abstract_mesh()}")

    @functools.partial(auto_axes, axes="X")
    def g(y):
        rec("g.mesh", f"mesh inside g: {get_abstract_mesh()}")
        rec("g.y", f"y.sharding inside g: {jax.typeof(y) = }")
        return y * 2

    @jax.jit
    def f(arr1):
        rec("f.mesh", f"mesh inside f: {get_abstract_mesh()}")
        x = jnp.sin(arr1)
        rec("f.x", f"x.sharding: {jax.typeof(x)}")
        z = g(x, out_sharding=P("X", "Y"))
        rec("f.z", f"z.sharding: {jax.typeof(z)}")
        return z + 1

    some_x = reshard(np.arange(16).reshape(4, 4), P("X", "Y"))
    rec("f", f(some_x))

    auto_mesh = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Auto, AxisType.Auto))

    @functools.partial(explicit_axes, axes=("X", "Y"))
    def explicit_g(y):
        rec("explicit_g.mesh", f"mesh inside g: {get_abstract_mesh()}")
        rec("explicit_g.y", f"y.sharding inside g: {jax.typeof(y) = }")
        z = y * 2
        rec("explicit_g.z", f"z.sharding inside g: {jax.typeof(z) = }")
        return z

    @jax.jit
    def f2(arr1):
        rec("f2.mesh", f"mesh inside f: {get_abstract_mesh()}")
        x = jnp.sin(arr1)
        z = explicit_g(x, in_sharding=P("X", "Y"))
        rec("f2.z", text(jax.typeof(z)))
        return z + 1

    with jax.set_mesh(auto_mesh):
        some_x = jax.device_put(np.arange(16).reshape(4, 4), P("X", "Y"))
        rec("f2", f2(some_x))
    rec("mesh.after_with", text(get_abstract_mesh()))

    # -- Concrete array shardings can mention Auto mesh axes
    def compare_shardings(cell, x):
        rec(cell + ".mesh", f"=== with mesh: {get_abstract_mesh()} ===")
        rec(cell + ".concrete", f"Concrete value sharding: {x.sharding.spec}")
        rec(cell + ".type", f"Type-specified sharding: {jax.typeof(x).sharding.spec}")

    my_array = jnp.sin(reshard(np.arange(8), P("X")))
    compare_shardings("compare.top", my_array)

    @auto_axes
    def check_in_auto_context(x):
        compare_shardings("compare.auto", x)
        return x

    rec("compare.result", check_in_auto_context(my_array, out_sharding=P("X")))

    # -- The rules the prose states, each in a small cell.
    # Nullary ops are unsharded unless out_sharding says otherwise.
    rec("rule.zeros", text(jax.typeof(jnp.zeros((8, 4)))))
    rec("rule.zeros.out", text(jax.typeof(jnp.zeros((8, 4), out_sharding=P("X", "Y")))))
    rec("rule.arange", text(jax.typeof(jnp.arange(8))))
    rec("rule.arange.out", text(jax.typeof(jnp.arange(8, out_sharding=P("Y")))))
    iota = jax.lax.broadcasted_iota(jnp.int32, (8, 4), 0, out_sharding=P("X"))
    rec("rule.iota.out", [text(jax.typeof(iota)), iota])
    # Unary elementwise ops keep the operand's sharding.
    a = reshard(jnp.arange(32.0).reshape(8, 4), P("X", "Y"))
    rec("rule.exp", text(jax.typeof(jnp.exp(a))))
    # Binary ops: zipped dimensions must agree (or be None); outer dimensions keep theirs.
    b = reshard(jnp.arange(32.0).reshape(8, 4), P("Y", None))
    try:
        a * b
        rec("rule.mul.conflict", "no error")
    except Exception as e:  # noqa: BLE001
        rec("rule.mul.conflict", e)
        rec("rule.mul.conflict.message", _message_names(e, "mul", "('X', 'Y'), ('Y', None)"))
    c = reshard(jnp.arange(4.0), P("Y"))
    rec("rule.mul.broadcast", text(jax.typeof(a * c)))
    rec("rule.outer", text(jax.typeof(arg0 * arg1)))
    # Reshape: a split or merge of unsharded dimensions keeps the others' sharding.
    r = reshard(jnp.arange(64.0).reshape(8, 8), P("X", None))
    rec("rule.reshape.split", text(jax.typeof(r.reshape(8, 2, 4))))
    r3 = reshard(jnp.arange(64.0).reshape(2, 8, 4), P("X", None, None))
    s1 = reshard(jnp.arange(8.0).reshape(1, 8), P(None, "X"))
    rec("rule.reshape.merge", text(jax.typeof(r3.reshape(2, 32))))
    rec("rule.reshape.singleton", text(jax.typeof(r.reshape(8, 1, 8))))
    rec("rule.reshape.squeeze", text(jax.typeof(r.reshape(8, 1, 8).reshape(8, 8))))
    rec("rule.reshape.squeeze_front", text(jax.typeof(s1.reshape(8))))
    note("rule.reshape.other", lambda: text(jax.typeof(r.reshape(4, 16))))
    note("rule.reshape.sharded_merge", lambda: text(jax.typeof(r3.reshape(16, 4))))
    rec(
        "rule.reshape.out_sharding",
        text(jax.typeof(jnp.reshape(r3, (16, 4), out_sharding=P("X", None)))),
    )
    # Indexing a sharded dimension (gather, scatter) has no sharding rule: out_sharding says
    # where the result goes, or auto_axes leaves it to the compiler.
    note("rule.index.sharded", lambda: a[0])
    note("rule.index.sharded_slice", lambda: a[2:6])
    rec("rule.index.jit_slice", text(jax.typeof(jax.jit(lambda x: x[2:6])(a))))
    note("rule.index.scatter", lambda: a.at[0].set(-1.0))
    rec("rule.index.get", a.at[0].get(out_sharding=P("Y")))
    rec("rule.index.set", a.at[0].set(-1.0, out_sharding=P("X", "Y")))
    first_row = auto_axes(lambda x: x[0], out_sharding=P("Y"))
    rec("rule.index.auto_axes", first_row(a))
    rec("rule.index.unsharded", reshard(a, P(None, "Y"))[2])
    # Both sides of a cond must agree on their results' shardings.
    s = reshard(jnp.arange(8.0), P("X"))
    t = reshard(jnp.arange(8.0), P("Y"))
    try:
        jax.lax.cond(True, lambda: s, lambda: t)
        rec("rule.cond.mismatch", "no error")
    except Exception as e:  # noqa: BLE001
        rec("rule.cond.mismatch", e)
        rec("rule.cond.mismatch.message", _message_names(e, "float32[8@X]", "float32[8@Y]"))
    rec("rule.cond", jax.lax.cond(True, lambda: s, lambda: s * 2))
    # A scan's carry keeps its sharding from input to output.
    note(
        "rule.scan.carry_mismatch",
        lambda: jax.lax.scan(lambda c, _: (reshard(c, P("Y")), None), s, None, length=2),
    )
    carry, ys = jax.lax.scan(lambda c, x: (c + x, c), s, jnp.ones((3, 8)))
    rec("rule.scan", [text(jax.typeof(carry)), text(jax.typeof(ys))])
    # The scanned dimension of the xs must be unsharded.
    note("rule.scan.sharded_xs", lambda: jax.lax.scan(lambda c, x: (c, x), 0.0, a))
    # vmap's new dimension takes its sharding from the arguments.
    v = reshard(jnp.arange(32.0).reshape(8, 4), P("X", None))
    rec("rule.vmap", text(jax.typeof(jax.vmap(lambda row: row * 2)(v))))
    rec("rule.vmap.sum", text(jax.typeof(jax.vmap(jnp.sum)(v))))
    # ... and the arguments must agree on it.
    note("rule.vmap.mismatch", lambda: jax.vmap(lambda p, q: p + q)(s, t))
    note("rule.vmap.spmd_axis_name", lambda: jax.vmap(lambda p: p, spmd_axis_name="Y")(v))
    # make_jaxpr without concrete arguments needs the shardings in the types.
    spec = jax.ShapeDtypeStruct((8, 4), jnp.float32, sharding=P("X", "Y"))
    rec("rule.make_jaxpr.spec", text(spec))
    rec("rule.make_jaxpr", text(jax.make_jaxpr(lambda x: jnp.sin(x) * 2)(spec)))
    # Tangents are sharded as their primals.
    grads = jax.grad(lambda x: jnp.sum(jnp.sin(x)))(a)
    rec("rule.grad", text(jax.typeof(grads)))
    rec("rule.grad.value", grads)
    _, pullback = jax.vjp(jnp.sin, a)
    note("rule.vjp.unsharded_cotangent", lambda: pullback(jnp.ones((8, 4))))
    rec("rule.vjp", text(jax.typeof(pullback(jnp.cos(a))[0])))
    rec("rule.jacrev", text(jax.typeof(jax.jacrev(jnp.sin)(s))))
    rec("rule.jacfwd", text(jax.typeof(jax.jacfwd(jnp.sin)(s))))
