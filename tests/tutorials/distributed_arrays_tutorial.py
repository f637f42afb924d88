"""The code cells of JAX's "Distributed arrays and automatic parallelization" tutorial, as one
program: ``program(jax, rec)`` (see tests/tutorials/record.py and shard_map_tutorial.py).

Shrunk: the 8192 x 8192 arrays are 64 x 64 and the network's 8192-wide layers and batch 64
(the shardings do not depend on the sizes, which stay multiples of the mesh); the timing cells
are left out; ``visualize_array_sharding`` is recorded as the text it prints.
"""

from __future__ import annotations

import contextlib
import importlib
import io
from typing import Optional

import numpy as np

N = 64  # the tutorial's 8192


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    from_sharding = jax.sharding
    P, NamedSharding, Mesh = (
        from_sharding.PartitionSpec,
        from_sharding.NamedSharding,
        from_sharding.Mesh,
    )
    PartitionSpec = P
    Auto = from_sharding.AxisType.Auto

    def make_mesh(shape, names):
        # The tutorial was written for Auto mesh axes (JAX 0.10.2's make_mesh defaults to
        # Explicit ones, where its matmul cell raises): its meshes are made Auto here.
        return jax.make_mesh(shape, names, (Auto,) * len(shape))

    def show(cell, x):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            jax.debug.visualize_array_sharding(x)
        rec(cell, buf.getvalue())
        rec(cell + ".sharding", spec(x))

    def spec(x):
        from record import spec_of

        return spec_of(x.sharding)

    rec("enough_devices", len(jax.local_devices()) >= 8)

    # -- Intro and a quick example
    mesh = make_mesh((4, 2), ("x", "y"))
    x = jax.random.normal(jax.random.key(0), (N, N))
    y = jax.device_put(x, NamedSharding(mesh, P("x", "y")))
    show("intro.y", y)
    z = jnp.sin(y)
    show("intro.sin", z)
    rec("intro.sin.values", z)

    # -- Sharding basics
    x = jax.random.normal(jax.random.key(0), (N, N))
    show("basics.x", x)
    mesh = make_mesh((4, 2), ("a", "b"))
    y = jax.device_put(x, NamedSharding(mesh, P("a", "b")))
    show("basics.ab", y)

    default_mesh = make_mesh((4, 2), ("a", "b"))

    def mesh_sharding(pspec: PartitionSpec, mesh: Optional[Mesh] = None) -> NamedSharding:  # noqa: UP045
        if mesh is None:
            mesh = default_mesh
        return NamedSharding(mesh, pspec)

    for name, p in [("ab2", P("a", "b")), ("ba", P("b", "a")), ("a_none", P("a", None)),
                    ("none_b", P(None, "b")), ("none_a", P(None, "a")),
                    ("ab_none", P(("a", "b"), None))]:  # fmt: skip
        y = jax.device_put(x, mesh_sharding(p))
        show("basics." + name, y)
        rec(
            "basics." + name + ".shards",
            sorted(
                [s.device.id, [[i.start, i.stop] for i in s.index]] for s in y.addressable_shards
            ),
        )

    # -- Computation follows data sharding
    mesh = make_mesh((4, 2), ("a", "b"))
    x = jax.device_put(x, NamedSharding(mesh, P("a", "b")))
    show("follows.input", x)
    y = jnp.sin(x)
    show("follows.output", y)

    y = jax.device_put(x, NamedSharding(mesh, P("a", None)))
    z = jax.device_put(x, NamedSharding(mesh, P(None, "b")))
    show("matmul.lhs", y)
    show("matmul.rhs", z)
    w = jnp.dot(y, z)
    show("matmul.out", w)
    rec("matmul.values", w, tol=1e-5)

    x_single = jax.device_put(x, jax.devices()[0])
    show("single", x_single)
    rec("single.allclose", bool(np.allclose(jnp.dot(x_single, x_single), jnp.dot(y, z))))
    w_copy = jnp.copy(w)
    show("copy", w_copy)

    # -- When explicit shardings disagree, JAX errors
    sharding1 = NamedSharding(Mesh(jax.devices()[:4], "x"), P("x"))
    sharding2 = NamedSharding(Mesh(jax.devices()[4:], "x"), P("x"))
    y = jax.device_put(x, sharding1)
    z = jax.device_put(x, sharding2)
    try:
        y + z
        rec("disagree.devices", "no error")
    except ValueError as e:
        rec("disagree.devices", e)

    devices = jax.devices()
    permuted_devices = [devices[i] for i in [0, 1, 2, 3, 6, 7, 4, 5]]
    sharding1 = NamedSharding(Mesh(devices, "x"), P("x"))
    sharding2 = NamedSharding(Mesh(permuted_devices, "x"), P("x"))
    y = jax.device_put(x, sharding1)
    z = jax.device_put(x, sharding2)
    try:
        y + z
        rec("disagree.order", "no error")
    except ValueError as e:
        rec("disagree.order", e)

    y = jax.device_put(x, sharding1)
    rec("uncommitted.ones", spec(y + jnp.ones_like(y)))
    rec("uncommitted.arange", spec(y + jnp.arange(y.size).reshape(y.shape)))

    # -- Constraining shardings of intermediates in jitted code
    mesh = make_mesh((4, 2), ("x", "y"))
    x = jax.random.normal(jax.random.key(0), (N, N))
    x = jax.device_put(x, NamedSharding(mesh, P("x", "y")))

    @jax.jit
    def f(x):
        x = x + 1
        y = jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P("y", "x")))
        return y

    show("constraint.x", x)
    y = f(x)
    show("constraint.yx", y)
    rec("constraint.yx.values", y)

    @jax.jit
    def f(x):
        x = x + 1
        y = jax.lax.with_sharding_constraint(x, NamedSharding(mesh, P()))
        return y

    y = f(x)
    show("constraint.replicated", y)

    # -- Examples: neural networks
    def predict(params, inputs):
        for W, b in params:
            outputs = jnp.dot(inputs, W) + b
            inputs = jnp.maximum(outputs, 0)
        return outputs

    def loss(params, batch):
        inputs, targets = batch
        predictions = predict(params, inputs)
        return jnp.mean(jnp.sum((predictions - targets) ** 2, axis=-1))

    loss_jit = jax.jit(loss)
    gradfun = jax.jit(jax.grad(loss))

    def init_layer(key, n_in, n_out):
        k1, k2 = jax.random.split(key)
        W = jax.random.normal(k1, (n_in, n_out)) / jnp.sqrt(n_in)
        b = jax.random.normal(k2, (n_out,))
        return W, b

    def init_model(key, layer_sizes, batch_size):
        key, *keys = jax.random.split(key, len(layer_sizes))
        params = list(map(init_layer, keys, layer_sizes[:-1], layer_sizes[1:]))
        key, *keys = jax.random.split(key, 3)
        inputs = jax.random.normal(keys[0], (batch_size, layer_sizes[0]))
        targets = jax.random.normal(keys[1], (batch_size, layer_sizes[-1]))
        return params, (inputs, targets)

    layer_sizes = [784, N, N, N, 10]
    batch_size = N
    params, batch = init_model(jax.random.key(0), layer_sizes, batch_size)

    # 8-way batch data parallelism
    mesh = make_mesh((8,), ("batch",))
    sharding = NamedSharding(mesh, P("batch"))
    replicated_sharding = NamedSharding(mesh, P())
    batch = jax.device_put(batch, sharding)
    params = jax.device_put(params, replicated_sharding)
    rec("dp.loss0", loss_jit(params, batch), tol=1e-5)
    step_size = 1e-5
    for _ in range(30):
        grads = gradfun(params, batch)
        params = [
            (W - step_size * dW, b - step_size * db) for (W, b), (dW, db) in zip(params, grads)
        ]
    rec("dp.loss30", loss_jit(params, batch), tol=1e-5)
    rec("dp.grads.shardings", [spec(g) for wb in grads for g in wb])
    batch_single = jax.device_put(batch, jax.devices()[0])
    params_single = jax.device_put(params, jax.devices()[0])
    rec("dp.single", gradfun(params_single, batch_single)[0][1], tol=1e-5)

    # 4-way batch data parallelism and 2-way model tensor parallelism
    mesh = make_mesh((4, 2), ("batch", "model"))
    batch = jax.device_put(batch, NamedSharding(mesh, P("batch", None)))
    show("tp.batch0", batch[0])
    show("tp.batch1", batch[1])
    replicated_sharding = NamedSharding(mesh, P())
    (W1, b1), (W2, b2), (W3, b3), (W4, b4) = params
    W1 = jax.device_put(W1, replicated_sharding)
    b1 = jax.device_put(b1, replicated_sharding)
    W2 = jax.device_put(W2, NamedSharding(mesh, P(None, "model")))
    b2 = jax.device_put(b2, NamedSharding(mesh, P("model")))
    W3 = jax.device_put(W3, NamedSharding(mesh, P("model", None)))
    b3 = jax.device_put(b3, replicated_sharding)
    W4 = jax.device_put(W4, replicated_sharding)
    b4 = jax.device_put(b4, replicated_sharding)
    params = (W1, b1), (W2, b2), (W3, b3), (W4, b4)
    show("tp.W2", W2)
    show("tp.W3", W3)
    rec("tp.loss0", loss_jit(params, batch), tol=1e-5)
    step_size = 1e-5
    for _ in range(30):
        grads = gradfun(params, batch)
        params = [
            (W - step_size * dW, b - step_size * db) for (W, b), (dW, db) in zip(params, grads)
        ]
    rec("tp.loss30", loss_jit(params, batch), tol=1e-5)
    (W1, b1), (W2, b2), (W3, b3), (W4, b4) = params
    show("tp.W2.after", W2)
    show("tp.W3.after", W3)

    # -- Sharp bits: generating random numbers
    @jax.jit
    def f(key, x):
        numbers = jax.random.uniform(key, x.shape)
        return x + numbers

    key = jax.random.key(42)
    mesh = Mesh(jax.devices(), "x")
    x_sharding = NamedSharding(mesh, P("x"))
    x = jax.device_put(jnp.arange(24), x_sharding)
    show("random.f", f(key, x))
    # The tutorial inspects the compiled HLO for a collective-permute (`f.lower(...).compile()
    # .as_text()`): an XLA artifact spmd does not produce, left out.
    jax.config.update("jax_threefry_partitionable", False)
    rec("random.stable", f(key, x))
    jax.config.update("jax_threefry_partitionable", True)
    rec("random.partitionable", f(key, x))
