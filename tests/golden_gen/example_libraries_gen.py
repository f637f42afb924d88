"""Record what JAX's ``jax.flatten_util``, ``jax.example_libraries`` (stax, optimizers),
``jax.experimental.ode``, ``pjit``, ``compute_on`` and ``shard_alike`` give into
``tests/golden/example_libraries.json`` (read by ``tests/test_example_libraries.py``).

Each entry of ``PROGRAMS`` is ``name -> (fn(jax), tol)``: ``fn`` runs on the ``jax`` namespace
it is given (JAX's here, spmd's in the test) and returns a nest of arrays, Python scalars,
strings and containers; ``show`` turns it into plain data (arrays by dtype, weak type, shape and
values). A program that raises records its exception class. ``tol`` is the relative and absolute
float tolerance the test compares with (None: JAX's default test tolerance of the dtype).

Run with real JAX (not spmd), on CPU (8 host devices, set here unless XLA_FLAGS says otherwise):
``/path/to/jax/python tests/golden_gen/example_libraries_gen.py``.
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent
OUT = TESTS / "golden" / "example_libraries.json"


def sub(jax, name):
    """``jax.<name>`` (a submodule a bare ``import jax`` does not load)."""
    return importlib.import_module(f"{jax.__name__}.{name}")


def show(jax, v):
    """``v`` as plain data (see the module docstring)."""
    if isinstance(v, (tuple, list)):
        return {type(v).__name__: [show(jax, x) for x in v]}
    if isinstance(v, dict):
        return {"dict": {str(k): show(jax, v[k]) for k in sorted(v)}}
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, np.integer):
        return int(v)  # JAX's shape helpers give NumPy ints in shapes
    if isinstance(v, float):
        return {"float": v}
    if isinstance(v, (jax.Array, np.ndarray, np.generic)):
        a = np.asarray(v)
        vals = a.astype(
            np.float64 if a.dtype.kind in "fV" or a.dtype.name == "bfloat16" else a.dtype
        )
        if a.dtype.kind == "c":
            vals = np.stack([a.real, a.imag], -1).astype(np.float64)
        return {
            "dtype": a.dtype.name,
            "shape": list(a.shape),
            "weak_type": bool(getattr(v, "weak_type", False)),
            "values": vals.ravel().tolist(),
        }
    return {"text": type(v).__name__}


def run(jax, fn):
    try:
        return show(jax, fn(jax))
    except Exception as e:  # noqa: BLE001  (the class is the record)
        return {"error": type(e).__name__}


# --- ravel_pytree -------------------------------------------------------------------------


_TREE_NAMES = (
    "mixed_dict f16_i32 empty bool_i8 py_scalars py_int bf16_f16 c64_f32 nested_none".split()
)


def _trees(jnp):
    return {
        "mixed_dict": {"a": jnp.ones(3), "b": (jnp.arange(2), 2.0)},
        "f16_i32": [jnp.arange(2, dtype=jnp.float16), jnp.arange(2, dtype=jnp.int32) + 5],
        "empty": [],
        "bool_i8": [jnp.array([True, False]), jnp.int8(3)],
        "py_scalars": [1, 2.5],
        "py_int": [7],
        "bf16_f16": [jnp.ones(2, jnp.bfloat16), jnp.full((1,), 3, jnp.float16)],
        "c64_f32": [jnp.array([1 + 2j], jnp.complex64), jnp.float32(1.5)],
        "nested_none": (jnp.arange(6.0).reshape(2, 3), None, {"x": jnp.arange(3.0)}),
    }


def _ravel_round_trip(name):
    def fn(jax):
        flat, unravel = sub(jax, "flatten_util").ravel_pytree(_trees(jax.numpy)[name])
        return [flat, unravel(flat * 2) if flat.size else unravel(flat)]

    return fn


def _ravel_transforms(jax):
    jnp = jax.numpy
    rp = sub(jax, "flatten_util").ravel_pytree
    tree = {"w": jnp.arange(6.0).reshape(2, 3), "b": jnp.float32(0.5)}
    flat, unravel = rp(tree)

    def loss(t):
        v = rp(t)[0]
        return jnp.sum(jnp.sin(v) * jnp.arange(v.size))

    return [
        jax.jit(lambda t: rp(t)[0])(tree),
        jax.grad(loss)(tree),
        jax.vmap(lambda t: rp(t)[0])({"a": jnp.arange(6.0).reshape(3, 2), "b": jnp.ones(3)}),
        jax.vmap(unravel)(jnp.arange(21.0).reshape(3, 7)),
        jax.jit(unravel)(flat + 1),
        jax.grad(lambda f: jnp.sum(unravel(f)["w"] ** 2))(flat),
        jax.jacfwd(lambda f: rp(unravel(f))[0])(flat[:7]),
    ]


def _unravel_bad(tree_name, arg):
    def fn(jax):
        _, unravel = sub(jax, "flatten_util").ravel_pytree(_trees(jax.numpy)[tree_name])
        return unravel(arg(jax.numpy))

    return fn


PROGRAMS = {}
for _n in _TREE_NAMES:
    PROGRAMS[f"ravel_{_n}"] = (_ravel_round_trip(_n), None)
PROGRAMS["ravel_transforms"] = (_ravel_transforms, None)
PROGRAMS["unravel_wrong_dtype"] = (_unravel_bad("f16_i32", lambda jnp: jnp.ones(4)), None)
PROGRAMS["unravel_wrong_size"] = (
    _unravel_bad("f16_i32", lambda jnp: jnp.ones(3, jnp.float16)),
    None,
)
PROGRAMS["unravel_2d"] = (_unravel_bad("mixed_dict", lambda jnp: jnp.ones((2, 3))), None)
PROGRAMS["unravel_scalar"] = (_unravel_bad("py_int", lambda jnp: jnp.int32(1)), None)
PROGRAMS["unravel_list"] = (_unravel_bad("mixed_dict", lambda jnp: [1.0] * 6), None)
PROGRAMS["unravel_same_dtype_passes"] = (
    _unravel_bad("nested_none", lambda jnp: jnp.arange(9, dtype=jnp.int32)),
    None,
)


# --- stax and optimizers ------------------------------------------------------------------


def _cnn(stax):
    return stax.serial(
        stax.Conv(4, (3, 3), padding="SAME"),
        stax.Relu,
        stax.BatchNorm(),
        stax.MaxPool((2, 2), strides=(2, 2)),
        stax.Conv(6, (3, 3), strides=(2, 2)),
        stax.Tanh,
        stax.AvgPool((2, 2), padding="SAME"),
        stax.Flatten,
        stax.Dense(16),
        stax.Gelu,
        stax.Dense(10),
        stax.LogSoftmax,
    )


def _mnist_shaped_training(jax):
    """A few adam steps of a small CNN on random 12x12 'digits' (jit, grad, value_and_grad)."""
    jnp, stax = jax.numpy, sub(jax, "example_libraries.stax")
    opt = sub(jax, "example_libraries.optimizers")
    init, apply = _cnn(stax)
    kx, ky, kp = jax.random.split(jax.random.key(0), 3)
    x = jax.random.normal(kx, (8, 12, 12, 1))
    y = jax.nn.one_hot(jax.random.randint(ky, (8,), 0, 10), 10)
    out_shape, params = init(kp, (-1, 12, 12, 1))

    def loss(p):
        return -jnp.mean(jnp.sum(apply(p, x) * y, axis=1))

    opt_init, opt_update, get_params = opt.adam(opt.exponential_decay(1e-2, 2, 0.5))

    @jax.jit
    def step(i, state):
        value, g = jax.value_and_grad(loss)(get_params(state))
        return value, opt_update(i, g, state)

    state, losses = opt_init(params), []
    for i in range(3):
        value, state = step(i, state)
        losses.append(value)
    return [out_shape, params, losses, get_params(state)]


def _mlp(stax):
    return stax.serial(stax.Dense(5), stax.Softplus, stax.Dense(3), stax.Sigmoid)


def _optimizer_run(make):
    """Three steps of an optimizer on a small MLP's squared error (eagerly and jitted)."""

    def fn(jax):
        jnp, stax = jax.numpy, sub(jax, "example_libraries.stax")
        opt = sub(jax, "example_libraries.optimizers")
        init, apply = _mlp(stax)
        _, params = init(jax.random.key(1), (4, 6))
        params = [params[0], {"extra": jnp.arange(3.0)}, params[2], params[3]]
        x = jnp.linspace(-1, 1, 24).reshape(4, 6)

        def loss(p):
            return jnp.sum((apply(p, x) - 0.3) ** 2) + jnp.sum(p[1]["extra"] ** 2)

        opt_init, opt_update, get_params = make(opt)
        state, out = opt_init(params), []
        for i in range(3):
            g = jax.grad(loss)(get_params(state))
            state = opt_update(i, g, state) if i < 2 else jax.jit(opt_update)(i, g, state)
            out.append(loss(get_params(state)))
        leaves = jax.tree_util.tree_leaves(state)
        return [out, get_params(state), len(leaves)]

    return fn


_OPTIMIZERS = {
    "sgd": lambda o: o.sgd(0.1),
    "sgd_piecewise": lambda o: o.sgd(o.piecewise_constant([0, 1], [0.1, 0.05, 0.01])),
    "momentum": lambda o: o.momentum(o.inverse_time_decay(0.1, 1, 0.5), 0.9),
    "momentum_staircase": lambda o: o.momentum(o.inverse_time_decay(0.1, 2, 0.5, True), 0.5),
    "nesterov": lambda o: o.nesterov(0.05, 0.9),
    "adagrad": lambda o: o.adagrad(0.1),
    "rmsprop": lambda o: o.rmsprop(o.polynomial_decay(0.05, 2, 0.01)),
    "rmsprop_momentum": lambda o: o.rmsprop_momentum(0.01, momentum=0.5),
    "adam": lambda o: o.adam(0.05),
    "adamax": lambda o: o.adamax(0.05),
    "sm3": lambda o: o.sm3(0.1),
}
for _n, _make in _OPTIMIZERS.items():
    PROGRAMS[f"optimizer_{_n}"] = (_optimizer_run(_make), 1e-5)


def _optimizer_utils(jax):
    jnp = jax.numpy
    opt = sub(jax, "example_libraries.optimizers")
    tree = {"a": jnp.arange(4.0), "b": [jnp.full((2, 2), -2.0)]}
    opt_init, opt_update, get_params = opt.momentum(0.1, 0.9)
    state = opt_update(0, tree, opt_init(tree))
    unpacked = opt.unpack_optimizer_state(state)
    repacked = opt.pack_optimizer_state(unpacked)
    return [
        opt.l2_norm(tree),
        opt.clip_grads(tree, 1.0),
        opt.clip_grads(tree, 100.0),
        [opt.exponential_decay(0.1, 3, 0.5)(i) for i in (0, 3, jnp.int32(5))],
        [opt.polynomial_decay(1.0, 4, 0.1, 2.0)(i) for i in (0, 2, 9)],
        [opt.piecewise_constant([2, 4], [1.0, 0.5, 0.25])(i) for i in (0, 2, 3, 5)],
        opt.make_schedule(0.3)(7),
        type(unpacked["a"]).__name__,
        get_params(repacked),
        repacked.tree_def == state.tree_def,
        jax.tree_util.tree_leaves(repacked),
    ]


def _sm3_scalar_and_matrix(jax):
    jnp = jax.numpy
    opt = sub(jax, "example_libraries.optimizers")
    params = {"s": jnp.float32(2.0), "m": jnp.arange(6.0).reshape(2, 3)}
    opt_init, opt_update, get_params = opt.sm3(0.5, momentum=0.5)
    state = opt_init(params)
    for i in range(2):
        g = jax.grad(lambda p: p["s"] ** 2 + jnp.sum(jnp.sin(p["m"])))(get_params(state))
        state = opt_update(i, g, state)
    return [get_params(state), jax.tree_util.tree_leaves(state)]


def _stax_layers(jax):
    """Each remaining layer's init and apply, with their shapes."""
    jnp, stax = jax.numpy, sub(jax, "example_libraries.stax")
    x = jnp.linspace(-2, 2, 2 * 6 * 6 * 3).reshape(2, 6, 6, 3)
    key = jax.random.key(3)
    out = []
    layers = [
        stax.SumPool((3, 3), strides=(1, 2), padding="SAME"),
        stax.AvgPool((2, 2), strides=(2, 2)),
        stax.MaxPool((2, 3), spec="NHWC"),
        stax.AvgPool((3, 3), strides=(2, 2), padding="SAME", spec="NWHC"),
        stax.BatchNorm(axis=(0, 1), center=False),
        stax.BatchNorm(axis=(0, 2), scale=False),
        stax.Identity,
        stax.serial(stax.Exp, stax.Elu, stax.LeakyRelu, stax.Selu, stax.Softmax),
        stax.GeneralConv(("NCHW", "OIHW", "NHWC"), 2, (2, 2), strides=(1, 2)),
        stax.ConvTranspose(2, (3, 3), strides=(2, 2), padding="SAME"),
        stax.serial(
            stax.FanOut(3), stax.parallel(stax.Relu, stax.Identity, stax.Tanh), stax.FanInSum
        ),  # fmt: skip
        stax.serial(
            stax.FanOut(2), stax.parallel(stax.Dense(2), stax.Identity), stax.FanInConcat(axis=-1)
        ),  # fmt: skip
        stax.shape_dependent(lambda s: stax.Dense(s[-1] + 1)),
    ]
    for init, apply in layers:
        shape, params = init(key, x.shape)
        y = apply(params, x)
        out.append([shape, params, y, list(y.shape)])
    c1d = stax.Conv1DTranspose(2, (2,), strides=(2,))
    shape, params = c1d[0](key, (2, 5, 3))
    out.append([shape, params, c1d[1](params, x[:, 0, :5, :])])
    return out


def _dropout(jax):
    jnp, stax = jax.numpy, sub(jax, "example_libraries.stax")
    x = jnp.arange(1.0, 25.0).reshape(4, 6)
    init, apply = stax.serial(stax.Dense(6), stax.Dropout(0.6), stax.Relu)
    shape, params = init(jax.random.key(0), x.shape)
    _, test_apply = stax.Dropout(0.6, mode="test")
    return [
        apply(params, x, rng=jax.random.key(7)),
        jax.jit(apply)(params, x, rng=jax.random.key(7)),
        test_apply((), x, rng=jax.random.key(1)),
        stax.Dropout(0.5)[1]((), x, rng=jax.random.PRNGKey(2)),
    ]


def _dropout_without_rng(jax):
    stax = sub(jax, "example_libraries.stax")
    return stax.Dropout(0.5)[1]((), jax.numpy.ones(3))


def _update_wrong_tree(jax):
    jnp = jax.numpy
    opt = sub(jax, "example_libraries.optimizers")
    opt_init, opt_update, _ = opt.adam(0.1)
    return opt_update(0, {"b": jnp.ones(2)}, opt_init({"a": jnp.ones(2)}))


def _pack_not_joinpoints(jax):
    return sub(jax, "example_libraries.optimizers").pack_optimizer_state([1.0])


def _piecewise_bad_lengths(jax):
    return sub(jax, "example_libraries.optimizers").piecewise_constant([1, 2], [0.1, 0.2])


def _piecewise_not_sequences(jax):
    return sub(jax, "example_libraries.optimizers").piecewise_constant(1, [0.1, 0.2])


PROGRAMS["mnist_shaped_training"] = (_mnist_shaped_training, 1e-5)
PROGRAMS["optimizer_utils"] = (_optimizer_utils, 1e-6)
PROGRAMS["optimizer_sm3_scalar_and_matrix"] = (_sm3_scalar_and_matrix, 1e-5)
PROGRAMS["stax_layers"] = (_stax_layers, 1e-5)
PROGRAMS["stax_dropout"] = (_dropout, 1e-6)
PROGRAMS["stax_dropout_without_rng"] = (_dropout_without_rng, None)
PROGRAMS["optimizer_update_wrong_tree"] = (_update_wrong_tree, None)
PROGRAMS["optimizer_pack_not_joinpoints"] = (_pack_not_joinpoints, None)
PROGRAMS["piecewise_constant_bad_lengths"] = (_piecewise_bad_lengths, None)
PROGRAMS["piecewise_constant_not_sequences"] = (_piecewise_not_sequences, None)


# --- odeint -------------------------------------------------------------------------------


def _pendulum(jnp):
    def f(y, t, b, c):
        theta, omega = y
        return jnp.stack([omega, -b * omega - c * jnp.sin(theta)])

    return f


def _ode_x64(jax):
    """Values and adjoint gradients (y0, args, times) at float64, where JAX's and spmd's step
    sequences agree to rounding; also under jit, vmap, hmax and a tight mxstep."""
    jnp = jax.numpy
    odeint = sub(jax, "experimental.ode").odeint
    with jax.enable_x64(True):
        f = _pendulum(jnp)
        ts = jnp.array([0.0, 0.5, 1.5])
        y0 = jnp.array([jnp.pi - 0.1, 0.0])

        def loss(y0, b, c, ts):
            return jnp.sum(odeint(f, y0, ts, b, c, rtol=1e-7, atol=1e-7) ** 2)

        decay = lambda y, t, k: -k * y  # noqa: E731
        return [
            odeint(f, y0, ts, 0.25, 5.0),
            jax.grad(loss, argnums=(0, 1, 2, 3))(y0, 0.25, 5.0, ts),
            jax.jit(lambda k: odeint(decay, 1.0, ts, k, rtol=1e-3, atol=1e-3))(2.0),
            jax.vmap(lambda k: odeint(decay, 1.0, ts, k))(jnp.array([1.0, 2.0])),
            odeint(decay, 1.0, ts, 2.0, hmax=0.1),
            odeint(decay, 1.0, ts, 2.0, mxstep=3),
        ]


def _ode_float32(jax):
    """float32 with moderate tolerances: pytree states, time-dependent dynamics, a closed-over
    parameter's gradient (closure conversion), jit of grad."""
    jnp = jax.numpy
    odeint = sub(jax, "experimental.ode").odeint
    ts = jnp.linspace(0.0, 1.5, 3)

    def f(state, t, w):
        x, v = state["x"], state["v"]
        return {"x": v, "v": -w * x + jnp.cos(t)}

    y0 = {"x": jnp.array([1.0, 0.5]), "v": jnp.array([0.0, 0.2])}
    kw = dict(rtol=1e-6, atol=1e-6)

    def loss_closure(a):
        return jnp.sum(odeint(lambda y, t: -a * y + t, jnp.ones(2), ts, **kw)[-1])

    def loss(y0, w):
        out = odeint(f, y0, ts, w, **kw)
        return jnp.sum(out["x"] ** 2) + jnp.sum(out["v"])

    return [
        odeint(f, y0, ts, 2.0, **kw),
        jax.grad(loss, argnums=(0, 1))(y0, 2.0),
        jax.jit(jax.grad(loss_closure))(0.7),
    ]


def _ode_bad_args(jax):
    return sub(jax, "experimental.ode").odeint(
        lambda y, t, k: -y, 1.0, jax.numpy.array([0.0, 1.0]), "k"
    )


def _ode_int_times(jax):
    return sub(jax, "experimental.ode").odeint(lambda y, t: -y, 1.0, jax.numpy.array([0, 1]))


PROGRAMS["odeint_x64"] = (_ode_x64, 1e-8)
PROGRAMS["odeint_float32"] = (_ode_float32, 1e-4)
PROGRAMS["odeint_bad_args"] = (_ode_bad_args, None)
PROGRAMS["odeint_int_times"] = (_ode_int_times, None)


# --- pjit, compute_on ---------------------------------------------------------------------


def _pjit(jax):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pjit = sub(jax, "experimental.pjit").pjit
    x = jax.numpy.arange(4.0)
    return [
        [w.category.__name__ for w in caught],
        pjit(lambda x: x * 2)(x),
        pjit(lambda x, n: x**n, static_argnums=1)(x, 3),
    ]


def _compute_on(jax):
    jnp = jax.numpy
    compute_on = sub(jax, "experimental.compute_on").compute_on
    x = jnp.arange(3.0)
    out = []
    with compute_on("device_host"):
        out.append(x * 3)

    @compute_on("device_host")
    @jax.jit
    def g(x):
        return x + 1

    out.append(g(x))
    out.append(jax.jit(lambda x: compute_on("device")(lambda y: y * 5)(x))(x))
    with compute_on("device_host"), compute_on("device"):
        out.append(jnp.sin(x))
    for compute_type in ("tpu_sparsecore", "gpu_stream:1", "gpu_stream:", "host", 3, None):
        try:
            with compute_on(compute_type):
                out.append(x - 1)
        except Exception as e:  # noqa: BLE001  (the class is the record)
            out.append(type(e).__name__)
    return out


PROGRAMS["pjit"] = (_pjit, None)
PROGRAMS["compute_on"] = (_compute_on, None)


# --- shard_alike (8 CPU devices) ----------------------------------------------------------


def _placement(r):
    """The mesh axes along each dimension (trailing unsharded ones dropped): JAX 0.10's default
    Explicit mesh writes a typed spec at full rank, spmd's Auto default does not
    (docs/DESIGN.md); the placement is what shard_alike decides."""
    spec = getattr(r.sharding, "spec", None)
    if spec is None:
        return None
    spec = [str(e) for e in spec]
    while spec and spec[-1] == "None":
        spec.pop()
    return spec


def _shard_alike(jax):
    jnp = jax.numpy
    shard_alike = sub(jax, "experimental.shard_alike").shard_alike
    mesh = jax.make_mesh((8,), ("x",))
    x, y = jnp.arange(16.0).reshape(8, 2), jnp.ones((8, 2))
    xs = jax.device_put(x, jax.NamedSharding(mesh, jax.P("x")))
    out = []
    for fn in (shard_alike, jax.jit(shard_alike)):
        for a, b in ((xs, y), (y, xs), (x, y)):
            ra, rb = fn(a, b)
            specs = [_placement(r) for r in (ra, rb)]
            out.append([ra, rb, specs])
    out.append(str(jax.make_jaxpr(shard_alike)(x, y)))
    out.append(jax.grad(lambda a, b: jnp.sum(shard_alike(a, b)[0] * b))(x, y))
    out.append(jax.vmap(shard_alike, in_axes=(0, None))(x, y[0]))
    out.append(shard_alike({"a": x}, {"a": y}))
    return out


def _shard_alike_shapes_differ(jax):
    jnp = jax.numpy
    return sub(jax, "experimental.shard_alike").shard_alike(jnp.ones(8), jnp.ones(4))


PROGRAMS["shard_alike"] = (_shard_alike, None)
PROGRAMS["shard_alike_shapes_differ"] = (_shard_alike_shapes_differ, None)


def main() -> None:
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    import jax

    jax.config.update("jax_platforms", "cpu")
    golden = {name: {"tol": tol, "out": run(jax, fn)} for name, (fn, tol) in PROGRAMS.items()}
    OUT.write_text(
        json.dumps({"jax_version": jax.__version__, "programs": golden}, indent=1) + "\n"
    )
    print(f"wrote {OUT} ({len(golden)} programs)")


if __name__ == "__main__":
    main()
