"""The code cells of JAX's "First-class VJPs" page (docs/301/vjp-objects.md: the VJP object
``vjp`` returns is a pytree of its residuals; splitting forward and backward passes into jitted
functions), as one program: ``program(jax, rec)`` (see tests/tutorials/record.py).

Left out: every cell that uses ``saveable_args`` (``NotSaveable``, restoring, the light
pipeline, the FSDP decorator and its all-gather counts, the Details example): JAX 0.10.2's
``vjp`` has no such argument (TypeError), and its VJP object no ``structured_residuals``.
Beyond the page: what ``opaque_residuals`` holds, an argument the backward pass does not need
(``NotNeeded()``), a VJP object passed through jit and rebuilt from its leaves, and the FSDP
example's layer as it runs in 0.10.2 (the gathered weights stay in the VJP object; restoring
``args_res`` is an assignment), checked against the unsharded gradients.
"""

from __future__ import annotations

import importlib

# The FSDP example relies on JAX 0.10's make_mesh default (spmd's is Auto: docs/DESIGN.md).
SPMD_CONFIG = {"spmd_default_axis_types": "explicit"}
# cell -> (what spmd records, None for any value unlike JAX's; why it differs from JAX 0.10.2).
KNOWN: dict[str, tuple[object, str]] = {}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    grad, jit = jax.grad, jax.jit

    # -- Splitting the forward and backward passes
    def fwd_and_bwd(f):
        def fwd(*args):
            return jax.vjp(f, *args)

        def bwd(f_vjp, y_bar):
            return f_vjp(y_bar)

        return jit(fwd), jit(bwd)

    def layer(W, x):
        return jnp.tanh(x @ W)

    fwd, bwd = fwd_and_bwd(layer)

    W1, W2 = jnp.ones((3, 3)), 2.0 * jnp.ones((3, 3))
    x0 = jnp.ones((2, 3))

    # forward through two layers, then backward, on our own schedule:
    x1, res1 = fwd(W1, x0)
    x2, res2 = fwd(W2, x1)
    dW2, dx1 = bwd(res2, jnp.ones_like(x2))
    dW1, dx0 = bwd(res1, dx1)
    rec("split.grads", [dW1, dW2, dx0])

    def two_layers(W1, W2, x):
        return jnp.sum(layer(W2, layer(W1, x)))

    dW1_ref, dW2_ref = grad(two_layers, argnums=(0, 1))(W1, W2, x0)
    rec("split.allclose", [bool(jnp.allclose(dW1, dW1_ref)), bool(jnp.allclose(dW2, dW2_ref))])

    fwd, bwd = jax.fwd_and_bwd(layer, argnums=(0, 1))

    y, residuals = fwd(W1, x0)
    dW1, dx0 = bwd(residuals, jnp.ones_like(y))
    rec("fwd_and_bwd.shapes", [dW1.shape, dx0.shape])
    rec("fwd_and_bwd", [dW1, dx0])

    # -- What the VJP object saves
    y, f_vjp = jax.vjp(layer, W1, x0)
    rec("args_res", f_vjp.args_res)
    # Beyond the page: the computed residuals, the leaves, an argument not needed.
    rec("opaque_residuals", f_vjp.opaque_residuals)
    rec("leaves", [leaf.shape for leaf in jax.tree.leaves(f_vjp)])
    _, g_vjp = jax.vjp(lambda W, x: jnp.sin(x) + 2 * W, W1, W2)
    rec("not_needed", [repr(r) for r in g_vjp.args_res])
    rec("not_needed.leaves", len(jax.tree.leaves(g_vjp)))
    d = {"hi": jnp.ones((4, 5)), "bye": jnp.ones((3, 4)), "unused": jnp.ones(2)}
    _, d_vjp = jax.vjp(lambda d: d["bye"] @ d["hi"] + d["unused"].sum(), d)
    rec("dict.args_res", [[repr(r) == "NotNeeded()" for r in d_vjp.args_res[0]]])
    rec("dict.grad", d_vjp(jnp.ones((3, 5))))
    _, s_vjp = jax.vjp(lambda a, b: a * b, 2.0, jnp.arange(3.0))
    rec("scalar.args_res", [repr(s_vjp.args_res[0]), s_vjp.args_res[1]])
    rec("scalar.opaque_residuals", s_vjp.opaque_residuals)
    # A VJP object rebuilt around other residuals, and one returned by jit.
    leaves, tree = jax.tree_util.tree_flatten(f_vjp)
    doubled = jax.tree_util.tree_unflatten(tree, [leaf * 2 for leaf in leaves])
    rec("rebuilt", doubled(jnp.ones((2, 3))), tol=1e-4)  # (1 - tanh(3)**2: few digits)
    rec("jit_out", jit(lambda a: jax.vjp(jnp.sin, a)[1])(1.0)(1.0))

    # -- Example: the FSDP layer, in 0.10.2 (no saveable_args: the VJP object keeps the
    # gathered weights, and the backward rule overwrites them with the re-gathered ones).
    jax.set_mesh(jax.make_mesh((4,), ("devices",)))

    def gather(w_frag):
        return jax.tree.map(lambda a: jax.lax.all_gather(a, "devices", tiled=True), w_frag)

    def scatter(w_bar):
        return jax.tree.map(
            lambda a: jax.lax.psum_scatter(a, "devices", scatter_dimension=0, tiled=True), w_bar
        )

    def fsdp(layer, prevent_cse=True):
        @jax.custom_vjp
        def f(w_frag, x):
            return layer(gather(w_frag), x)

        def f_fwd(w_frag, x):
            y, layer_vjp = jax.vjp(layer, gather(w_frag), x)
            return y, (layer_vjp, w_frag)

        def f_bwd(res, y_bar):
            layer_vjp, w_frag = res
            if prevent_cse:
                w_frag = jax.lax.optimization_barrier(w_frag)
            layer_vjp.args_res[0] = gather(w_frag)  # re-gather
            w_bar, x_bar = layer_vjp(y_bar)
            return scatter(w_bar), x_bar

        f.defvjp(f_fwd, f_bwd)
        return f

    def dense(W, x):
        return jnp.tanh(x @ W)

    def make_loss(layer):
        @jax.shard_map(in_specs=(jax.P("devices"), jax.P("devices")), out_specs=jax.P())
        def loss(Ws, xs):
            for W in Ws:
                xs = layer(W, xs)
            return jax.lax.pmean(jnp.mean(xs**2), "devices")

        return loss

    def loss_ref(Ws, xs):
        for W in Ws:
            xs = dense(W, xs)
        return jnp.mean(xs**2)

    Ws = [jax.random.normal(jax.random.key(i), (16, 16)) / 4 for i in range(3)]
    xs = jax.random.normal(jax.random.key(3), (8, 16))
    Ws_sharded, xs_sharded = jax.device_put((Ws, xs), jax.P("devices"))

    loss_fsdp = make_loss(fsdp(dense))
    grads = jax.jit(jax.grad(loss_fsdp))(Ws_sharded, xs_sharded)
    grads_ref = jax.jit(jax.grad(loss_ref))(Ws, xs)
    rec(
        "fsdp.allclose",
        all(bool(jnp.allclose(g, g_ref, atol=1e-5)) for g, g_ref in zip(grads, grads_ref)),
    )
    rec("fsdp.typeof", str(jax.typeof(grads[0])))  # sharded like the weights
    rec("fsdp.grads", grads, tol=1e-5)
