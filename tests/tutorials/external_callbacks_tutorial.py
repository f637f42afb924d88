"""The code cells of JAX's "External callbacks" page (docs/notebooks/external_callbacks.md), as
one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd and records what
each prints or shows: a cell's printed text is captured (stdout, after ``effects_barrier``) and
recorded as text beside its value; errors record their class.

Changed from the page: ``pure_callback(..., vectorized=True)`` is gone from JAX 0.10 (the
keyword goes on to the callback, which fails when it runs: cell ``jv.vectorized_kwarg``); the
program's ``jv`` uses ``vmap_method="broadcast_all"``, as the page's later versions do. Added at
the end: the vmap methods side by side, callbacks on sharded arrays (what the host function
receives, how the result is placed), ordered effects, and the error cases (wrong shapes,
dtypes, a failing callback, vmap without a method).
"""

from __future__ import annotations

import contextlib
import importlib
import io
from functools import partial

import numpy as np
import scipy.special

KNOWN: dict[str, tuple[object, str]] = {}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    io_callback = importlib.import_module(jax.__name__ + ".experimental").io_callback
    debug = jax.debug

    def run(cell, fn, value=True, lines=False):
        """Run a cell; record its printed text (``cell.out``; with ``lines``, its lines sorted)
        and its value or error class."""
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            try:
                result = fn()
                jax.effects_barrier()
            except Exception as e:  # noqa: BLE001 -- the class is the recorded value
                result = e
        text = buf.getvalue()
        rec(cell + ".out", sorted(text.splitlines()) if lines else text)
        if value or isinstance(result, BaseException):
            rec(cell, result)
        return result

    # -- Why callbacks?
    @jax.jit
    def f(x):
        y = x + 1
        print("intermediate value: {}".format(y))  # noqa: UP032 -- the page's code
        return y * 2

    run("why.print", lambda: f(2))

    @jax.jit
    def f(x):  # noqa: F811 -- the page redefines it
        y = x + 1
        jax.debug.print("intermediate value: {}", y)
        return y * 2

    run("why.debug_print", lambda: f(2))

    # -- Exploring pure_callback
    def f_host(x):
        # call a numpy (not jax.numpy) operation:
        return np.sin(x).astype(x.dtype)

    def f(x):  # noqa: F811 -- the page redefines it
        result_shape = jax.ShapeDtypeStruct(x.shape, x.dtype)
        return jax.pure_callback(f_host, result_shape, x)

    x = jnp.arange(5.0)
    run("pure.f", lambda: f(x))
    run("pure.jit", lambda: jax.jit(f)(x))
    run("pure.vmap", lambda: jax.vmap(f)(x))

    def body_fun(_, x):
        return _, f(x)

    run("pure.scan", lambda: jax.lax.scan(body_fun, None, jnp.arange(5.0))[1])
    run("pure.grad", lambda: jax.grad(f)(x))

    def print_something():
        print("printing something")
        return np.int32(0)

    @jax.jit
    def f1():
        return jax.pure_callback(print_something, np.int32(0))

    run("pure.f1", f1)

    @jax.jit
    def f2():
        jax.pure_callback(print_something, np.int32(0))
        return 1.0

    run("pure.f2", f2)

    # -- Exploring io_callback
    global_rng = np.random.default_rng(0)

    def host_side_random_like(x):
        """Generate a random array like x using the global_rng state"""
        print(f"generating {x.dtype}{list(x.shape)}")
        return global_rng.uniform(size=x.shape).astype(x.dtype)

    @jax.jit
    def numpy_random_like(x):
        return io_callback(host_side_random_like, x, x)

    x = jnp.zeros(5)
    run("io.random", lambda: numpy_random_like(x))
    run("io.vmap", lambda: jax.vmap(numpy_random_like)(x))

    @jax.jit
    def numpy_random_like_ordered(x):
        return io_callback(host_side_random_like, x, x, ordered=True)

    run("io.vmap_ordered", lambda: jax.vmap(numpy_random_like_ordered)(x))

    def body_fun(_, x):  # noqa: F811 -- the page redefines it
        return _, numpy_random_like_ordered(x)

    run("io.scan", lambda: jax.lax.scan(body_fun, None, jnp.arange(5.0))[1])
    run("io.grad", lambda: jax.grad(numpy_random_like)(x))

    @jax.jit
    def f(x):  # noqa: F811 -- the page redefines it
        io_callback(lambda: print("hello"), None)
        return x

    run("io.grad_unused", lambda: jax.grad(f)(1.0))

    # -- Exploring debug.callback
    def log_value(x):
        print("log:", x)

    @jax.jit
    def f(x):  # noqa: F811 -- the page redefines it
        debug.callback(log_value, x)
        return x

    run("debug.jit", lambda: f(1.0), value=False)
    x = jnp.arange(5.0)
    run("debug.vmap", lambda: jax.vmap(f)(x), value=False)
    run("debug.grad", lambda: jax.grad(f)(1.0), value=False)

    # -- Example: pure_callback with custom_jvp
    def jv(v, z):
        v, z = jnp.asarray(v), jnp.asarray(z)
        assert jnp.issubdtype(v.dtype, jnp.integer)
        z = z.astype(jnp.result_type(float, z.dtype))
        _scipy_jv = lambda v, z: scipy.special.jv(v, z).astype(z.dtype)  # noqa: E731
        result_shape_dtype = jax.ShapeDtypeStruct(
            shape=jnp.broadcast_shapes(v.shape, z.shape), dtype=z.dtype
        )
        return jax.pure_callback(_scipy_jv, result_shape_dtype, v, z, vmap_method="broadcast_all")

    j1 = partial(jv, 1)
    z = jnp.arange(5.0)
    run("jv.eager", lambda: print(j1(z)))
    run("jv.jit", lambda: print(jax.jit(j1)(z)))
    run("jv.vmap", lambda: print(jax.vmap(j1)(z)))
    run("jv.grad", lambda: jax.grad(j1)(z))

    # The page's vectorized=True: JAX 0.10 hands the keyword on to the callback.
    def jv_vectorized(v, z):
        shape = jax.ShapeDtypeStruct(z.shape, z.dtype)
        cb = lambda v, z: scipy.special.jv(v, z).astype(z.dtype)  # noqa: E731
        return jax.pure_callback(cb, shape, v, z, vectorized=True)

    run("jv.vectorized_kwarg", lambda: jv_vectorized(jnp.asarray(1), z))

    jv = jax.custom_jvp(jv)

    @jv.defjvp
    def _jv_jvp(primals, tangents):
        v, z = primals
        _, z_dot = tangents  # Note: v_dot is always 0 because v is integer.
        jv_minus_1, jv_plus_1 = jv(v - 1, z), jv(v + 1, z)
        djv_dz = jnp.where(v == 0, -jv_plus_1, 0.5 * (jv_minus_1 - jv_plus_1))
        return jv(v, z), z_dot * djv_dz

    j1 = partial(jv, 1)
    run("jv.custom_grad", lambda: print(jax.grad(j1)(2.0)))
    run("jv.hessian", lambda: jax.hessian(j1)(2.0))
    run("jv.vmap_grad", lambda: jax.vmap(jax.grad(j1))(z))

    # -- Beyond the page: the vmap methods side by side (what the host function receives).
    def shapes_host(a, b):
        print("called with", a.shape, b.shape)
        return (a + b).astype(np.float32)

    def add_cb(a, b, method):
        out = jax.ShapeDtypeStruct(jnp.broadcast_shapes(a.shape, b.shape), jnp.float32)
        return jax.pure_callback(shapes_host, out, a, b, vmap_method=method)

    a, b = jnp.arange(6.0).reshape(3, 2), jnp.ones(2)
    for method in ["sequential", "expand_dims", "broadcast_all", "legacy_vectorized"]:
        g = jax.vmap(partial(add_cb, method=method), in_axes=(0, None))
        run(f"vmap_method.{method}", lambda g=g: g(a, b))
    run("vmap_method.none", lambda: jax.vmap(partial(add_cb, method=None), (0, None))(a, b))
    run("vmap_method.bad", lambda: add_cb(a, b, "vectorize"))
    run("vmap_method.nested", lambda: jax.vmap(jax.vmap(partial(add_cb, method="expand_dims")))(
        jnp.ones((2, 3, 2)), jnp.ones((2, 3, 2))))  # fmt: skip

    # -- Callbacks on sharded arrays: the host function sees the whole array.
    mesh = jax.make_mesh((8,), ("x",))
    P, NamedSharding = jax.sharding.PartitionSpec, jax.sharding.NamedSharding
    xs = jax.device_put(jnp.arange(16.0), NamedSharding(mesh, P("x")))

    def sin_host(x):
        print("host sees", isinstance(x, jax.Array), x.shape)
        return np.sin(x).astype(x.dtype)

    def sin_cb(x):
        return jax.pure_callback(sin_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)

    def placed(fn):
        """The values and whether they are replicated: JAX places a callback's own result on
        device 0 (GSPMDSharding {maximal device=0}, replicated), spmd replicates it."""
        out = fn()
        return [np.asarray(out), out.sharding.is_fully_replicated]

    run("sharded.pure_jit", lambda: placed(lambda: jax.jit(sin_cb)(xs)))
    run("sharded.pure_jit_plus_x", lambda: jax.jit(lambda x: sin_cb(x) + x)(xs))
    run("sharded.pure_jit_out", lambda: jax.jit(sin_cb, out_shardings=NamedSharding(mesh, P("x")))(
        xs))  # fmt: skip
    run("sharded.io_jit", lambda: placed(lambda: jax.jit(lambda x: io_callback(sin_host, x, x))(
        xs)))  # fmt: skip
    run("sharded.io_ordered", lambda: placed(lambda: jax.jit(
        lambda x: io_callback(sin_host, x, x, ordered=True))(xs)))  # fmt: skip
    dev0 = jax.sharding.SingleDeviceSharding(jax.devices()[0])
    run("sharded.pure_device", lambda: placed(lambda: jax.jit(lambda x: jax.pure_callback(
        sin_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x, sharding=dev0))(xs)))  # fmt: skip
    run("sharded.debug", lambda: jax.jit(lambda x: debug.callback(log_value, x.sum()))(xs),
        value=False)  # fmt: skip

    # Inside shard_map a callback runs once per device, on that device's block (printed lines
    # sorted: the devices' callbacks may interleave).
    def per_device(x):
        y = jax.pure_callback(sin_host, jax.ShapeDtypeStruct(x.shape, x.dtype), x)
        debug.print("block {}", x)
        return y

    sm = jax.jit(jax.shard_map(per_device, mesh=mesh, in_specs=P("x"), out_specs=P("x")))
    run("sharded.shard_map", lambda: sm(xs), lines=True)

    # -- Ordered effects: the callbacks run in program order.
    def say(tag, v):
        print(tag, int(v))

    @jax.jit
    def ordered_io(x):
        io_callback(partial(say, "a"), None, x, ordered=True)
        io_callback(partial(say, "b"), None, x + 1, ordered=True)
        io_callback(partial(say, "c"), None, x + 2, ordered=True)
        return x

    run("ordered.io", lambda: ordered_io(1), value=False)

    @jax.jit
    def ordered_debug(x):
        debug.callback(partial(say, "a"), x, ordered=True)
        debug.print("b {}", x + 1, ordered=True)
        debug.callback(partial(say, "c"), x + 2, ordered=True)
        return x

    run("ordered.debug", lambda: ordered_debug(1), value=False)

    @jax.jit
    def loop(x):
        def body(c, _):
            debug.print("step {c}", c=c)
            return c + 1, c * 2

        return jax.lax.scan(body, x, None, length=3)

    run("ordered.scan_print", lambda: loop(10))

    # -- Error cases: what the callback returns must match what was declared.
    def cb(shape, dtype, out):
        return jax.jit(lambda: jax.pure_callback(lambda: out, jax.ShapeDtypeStruct(shape, dtype)))

    run("error.shape", lambda: cb((3,), jnp.float32, np.zeros(4, np.float32))())
    run("error.dtype", lambda: cb((3,), jnp.float32, np.zeros(3, np.int32))())
    run("error.float64_ok", lambda: cb((3,), jnp.float32, np.zeros(3))())
    two = lambda: (np.float32(1), np.float32(2))  # noqa: E731
    run("error.count", lambda: jax.jit(
        lambda: jax.pure_callback(two, jax.ShapeDtypeStruct((), jnp.float32)))())  # fmt: skip

    def boom(x):
        raise ValueError("callback failed")

    run("error.raises", lambda: jax.jit(lambda x: jax.pure_callback(boom, x, x))(jnp.ones(2)))
    run("error.raises_eager", lambda: jax.pure_callback(boom, jnp.ones(2), jnp.ones(2)))
    run("error.io_raises", lambda: jax.jit(lambda x: io_callback(boom, x, x))(jnp.ones(2)))
    run("error.io_not_array", lambda: io_callback(print, None, "text"))
    run("error.pure_jvp", lambda: jax.jvp(sin_cb, (jnp.ones(2),), (jnp.ones(2),)))
    run("error.io_jvp", lambda: jax.jvp(lambda x: io_callback(sin_host, x, x), (jnp.ones(2),),
                                        (jnp.ones(2),)))  # fmt: skip
    run("error.debug_raises", lambda: jax.jit(lambda x: debug.callback(boom, x))(jnp.ones(2)))
    run("error.debug_raises_eager", lambda: debug.callback(boom, jnp.ones(2)))
    run("error.debug_returns", lambda: jax.jit(lambda x: debug.callback(lambda x: x, x))(1.0))
