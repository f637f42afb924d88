"""The code blocks of JAX's "Memory spaces and host offloading" page (docs/201/memory-spaces.md),
as one program.

``program(jax, rec)`` runs the page's blocks in order with ``jax`` being JAX or spmd (8 CPU
devices; the page's mesh is one device) and records what they print: shardings as their text,
memory kinds, the arrays jit returns with their sharding, the gradients of the scanned,
rematerialized layers whose parameters live in host memory, and an optimizer step whose state
lives in host memory.

The page's blocks are not executed in its build ("illustrative"); JAX 0.10.2 runs them all on
CPU, whose client names ``device`` and ``pinned_host`` memories. Shrunk or replaced: the scanned
layers are 3 x (8 x 16) instead of 10 x (256 x 1024) with an 8 x 8 input; the optimizer-state
block uses optax, which neither environment has: the program writes its gradient clipping and
Adam by hand (the same state pytree kept in host memory, fetched with ``device_put`` inside the
step, sent back through ``out_shardings``), with a small MLP for the elided network. The
memory-analysis numbers are the accelerator's and XLA's, so the program records only the size
that does not depend on the compiler: the arguments'.
"""

from __future__ import annotations

import importlib

import numpy as np
import record

KNOWN: dict[str, tuple[object, str]] = {
    "jit_device_put": (
        None,
        "the sharding JAX gives a host-memory result of jit is the one XLA reports: replicated "
        "P() on this one-device mesh (on two devices P(None, 'x') even comes back as P('x')); "
        "spmd keeps the device_put's P('x'), the same layout on one device",
    ),
    "hybrid.grad_on_device": (
        None,
        "a jit whose arguments are uncommitted and whose body places values on a mesh: JAX lays "
        "its results out as XLA's propagation decides (replicated on that mesh here, one device "
        "for the unscanned grad of the same body); spmd as its own propagation does (one "
        "device here). The values agree",
    ),
}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one page, block after block
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    ad_checkpoint = importlib.import_module(jax.__name__ + ".ad_checkpoint")
    Mesh, NamedSharding = jax.sharding.Mesh, jax.sharding.NamedSharding
    P = jax.sharding.PartitionSpec

    def kind(x):
        return x.sharding.memory_kind

    def note(cell, fn):
        return record.note(rec, cell, fn)

    # -- Building blocks
    mesh = Mesh(jax.devices()[:1], "x")
    s_dev = NamedSharding(mesh, P("x"), memory_kind="device")
    s_host = s_dev.with_memory_kind("pinned_host")
    rec("s_dev", str(s_dev))
    rec("s_host", str(s_host))
    rec("s_host.memory_kind", s_host.memory_kind)
    rec("with_memory_kind.equal", [s_host == s_dev, s_host.with_memory_kind("device") == s_dev])

    arr = jnp.arange(8.0).reshape(2, 4)
    arr_host = jax.device_put(arr, s_host)
    arr_dev = jax.device_put(arr, s_dev)
    rec("arr_host.memory_kind", kind(arr_host))
    rec("arr_dev.memory_kind", kind(arr_dev))
    rec("arr_host", [arr_host, str(arr_host.sharding)])

    f = jax.jit(lambda x: x, out_shardings=s_host)
    out_host = f(arr_dev)
    rec("out_host", [out_host, kind(out_host)])
    g = jax.jit(lambda x: x + 1, out_shardings=s_dev)
    out_dev = g(arr_host)
    rec("out_dev", [out_dev, kind(out_dev)])

    # Inside jit, device_put moves values between the spaces (beyond the page: the results'
    # memory kinds, and the types the jaxpr gives them).
    h = jax.jit(lambda x: (jax.device_put(x, s_host), jax.device_put(x * 2, s_dev)))
    moved = h(arr_dev)
    rec("jit_device_put", [[m, kind(m)] for m in moved])
    rec("jit_device_put.values", [[np.asarray(m), kind(m)] for m in moved])
    rec("jit_device_put.jaxpr_types", [str(v.aval) for v in h.trace(arr_dev).jaxpr.jaxpr.outvars])

    # -- Offloading parameters
    checkpoint_name = ad_checkpoint.checkpoint_name
    cp = jax.checkpoint_policies
    policy = cp.save_and_offload_only_these_names(
        names_which_can_be_saved=[],
        names_which_can_be_offloaded=["x"],
        offload_src="device",
        offload_dst="pinned_host",
    )

    def hybrid_layer(x, w):
        w1, w2 = jax.tree.map(lambda w: jax.device_put(w, s_dev), w)
        x = checkpoint_name(x, "x")
        y = x @ w1
        return y @ w2, None

    def hybrid_scanned(w, x):
        remat_layer = jax.remat(hybrid_layer, policy=policy, prevent_cse=False)
        result = jax.lax.scan(remat_layer, x, w)[0]
        return jnp.sum(result)

    inputs = jnp.ones((8, 8), dtype=jnp.float32) * 0.1
    w1 = jnp.ones((3, 8, 16), dtype=jnp.float32) * 0.1
    w2 = jnp.ones((3, 16, 8), dtype=jnp.float32) * 0.1
    wh1 = jax.device_put(w1, s_host)
    wh2 = jax.device_put(w2, s_host)
    rec("params.memory_kind", [kind(wh1), kind(wh2), kind(inputs)])

    f = jax.jit(jax.grad(hybrid_scanned))
    result = f((wh1, wh2), inputs)
    rec("hybrid.grad", [[r, kind(r)] for r in result], tol=1e-5)
    rec("hybrid.value", jax.jit(hybrid_scanned)((wh1, wh2), inputs), tol=1e-5)
    # The same gradient with every array on the device: offloading changes no value.
    ref = jax.jit(jax.grad(hybrid_scanned))((w1, w2), inputs)
    rec("hybrid.grad_on_device", [r for r in ref], tol=1e-5)
    rec("hybrid.grad_on_device.values", [np.asarray(r) for r in ref], tol=1e-5)
    ma = f.lower((wh1, wh2), inputs).compile().memory_analysis()
    rec("hybrid.memory_analysis.argument_size", ma.argument_size_in_bytes)

    # -- Offloading optimizer state (optax's clip_by_global_norm(1.0) + adam(0.1), by hand)
    s_dev = jax.sharding.SingleDeviceSharding(jax.devices()[0], memory_kind="device")
    s_host = jax.sharding.SingleDeviceSharding(jax.devices()[0], memory_kind="pinned_host")
    rec("single.s_host", str(s_host))

    def init_params():
        k1, k2 = jax.random.split(jax.random.key(0))
        return {
            "w1": jax.random.normal(k1, (4, 8)) * 0.5,
            "w2": jax.random.normal(k2, (8, 2)) * 0.5,
        }

    def compute_loss(p, x):
        y = jnp.tanh(x @ p["w1"]) @ p["w2"]
        return jnp.mean((y - 1.0) ** 2)

    def opt_init(params):
        zeros = jax.tree.map(jnp.zeros_like, params)
        return {"count": jnp.zeros((), jnp.int32), "mu": zeros, "nu": zeros}

    def opt_update(grads, state, params):
        del params
        norm = jnp.sqrt(sum(jnp.sum(g**2) for g in jax.tree.leaves(grads)))
        grads = jax.tree.map(lambda g: g * jnp.minimum(1.0, 1.0 / norm), grads)
        count = state["count"] + 1
        mu = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, state["mu"], grads)
        nu = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g**2, state["nu"], grads)
        c1, c2 = 1 - 0.9**count, 1 - 0.999**count
        updates = jax.tree.map(lambda m, v: -0.1 * (m / c1) / (jnp.sqrt(v / c2) + 1e-8), mu, nu)
        return updates, {"count": count, "mu": mu, "nu": nu}

    def apply_updates(params, updates):
        return jax.tree.map(lambda p, u: p + u, params, updates)

    def step(params, opt_state, inputs):
        grads = jax.grad(lambda p: compute_loss(p, inputs))(params)
        opt_state = jax.device_put(opt_state, s_dev)
        updates, new_opt_state = opt_update(grads, opt_state, params)
        new_params = apply_updates(params, updates)
        return new_params, new_opt_state

    params = init_params()
    opt_state = opt_init(params)
    opt_state = jax.device_put(opt_state, s_host)
    rec("opt_state.memory_kind", jax.tree.map(kind, opt_state))
    inputs = jnp.linspace(-1.0, 1.0, 12).reshape(3, 4)

    step = jax.jit(step, donate_argnums=(0,), out_shardings=(s_dev, s_host))
    new_params, new_opt_state = step(params, opt_state, inputs)
    rec("step.params", new_params, tol=1e-5)
    rec("step.params.memory_kind", jax.tree.map(kind, new_params))
    rec("step.opt_state", new_opt_state, tol=1e-5)
    rec("step.opt_state.memory_kind", jax.tree.map(kind, new_opt_state))
    rec("step.donated", [x.is_deleted() for x in jax.tree.leaves(params)])
    for _ in range(3):
        new_params, new_opt_state = step(new_params, new_opt_state, inputs)
    rec("step.loss_after_4", compute_loss(new_params, inputs), tol=1e-5)
    rec("step.count", new_opt_state["count"])
    note("step.reuse_donated", lambda: step(params, opt_state, inputs))
