"""The code cells of JAX's 301 page "Gradient checkpointing with jax.checkpoint (jax.remat)"
(docs/301/remat.md), as one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd, with the page's
``jax_remat3`` flag on, and records what each cell prints: the text ``print_saved_residuals``
prints (source locations cut to the file's name and a line counted from ``program``'s), printed
values, and for the page's ``print_fwd_bwd`` (a rich table of the forward and backward jaxprs)
what the table shows that does not depend on how a jaxpr names its internal calls: the types
the forward pass hands to the backward pass (its outputs after the primal output), and how many
``sin``, ``cos``, ``dot_general`` and ``mul`` each pass computes (counted into nested jaxprs).

Left out or changed: ``print_fwd_bwd`` renders through ``rich``: the program records the
summary above instead. The cells that only define VJP functions to read (``sin_vjp``,
``f_vjp``, ...) are called on small inputs with ``g = sin``, ``h = cos`` and their values
recorded; ``f_checkpoint_grad`` calls ``jax.vjp(h)`` with no primal (the page's typo): the
program records its error class. The ``custom_remat`` section is left out: JAX 0.10.2 has no
``jax.custom_remat`` (nor ``checkpoint_policies.SaveOnlyTheseNames``). The last section's
scan-over-layers network is run once, plain and with the checkpointed ``layer``, and its
values, gradients and saved residuals recorded.
"""

from __future__ import annotations

import collections
import contextlib
import importlib
import io
import re
from functools import partial

from record import note

_REMAT3_NAMES = (
    "JAX 0.10.2's experimental remat3 (jax_remat3, which the page turns on) makes checkpoint a "
    "functools.partial without the function's signature, so its residual report names the "
    "arguments args[i]; spmd accepts the flag and keeps the arguments' names (its checkpoint "
    "is the classic one, whose report JAX prints without the flag)"
)
# cell -> (what spmd records, why it differs from JAX 0.10.2).
KNOWN: dict[str, tuple[object, str]] = {
    "saved.f4": (
        (
            "f32[5,4] from the argument W1\n"
            "f32[6,5] from the argument W2\n"
            "f32[7,6] from the argument W3\n"
            "f32[4] from the argument x\n"
            "f32[5] named 'a' from remat301_tutorial.py:+63:12 (program.<locals>.f4)\n"
        ),
        _REMAT3_NAMES,
    ),
    "fundamentals.checkpoint_f.saved": (
        ("f32[] from the argument x\n"),
        _REMAT3_NAMES,
    ),
    "policies.loss_checkpoint": (
        (
            "f32[4,4] from the argument params[0]\n"
            "f32[4,4] from the argument params[1]\n"
            "f32[4,4] from the argument params[2]\n"
            "f32[4] from the argument x\n"
            "f32[4] from the argument y\n"
            "f32[4] named 'layer0_output' from remat301_tutorial.py:+174:16 "
            "(program.<locals>.predict)\n"
        ),
        _REMAT3_NAMES,
    ),
    "offload.saved": (
        (
            "f32[4] from the argument x\n"
            "f32[4] named 'y' from remat301_tutorial.py:+207:12 (program.<locals>.f_offload)\n"
            "f32<host>[4] output of device_put from \n"
        ),
        "JAX 0.10.2's remat3 neither saves nor offloads under save_and_offload_only_these_names "
        "(its report shows the argument only, named args[0]); spmd saves 'y' and offloads 'z' "
        "to host memory as the page describes (and as JAX does without the flag)",
    ),
}

_COUNTED = ("sin", "cos", "dot_general", "mul")


def _located(text: str) -> str:
    """``print_saved_residuals``'s text with each ``from /dir/file.py:LINE:COL (fn)`` cut to
    the file's name and the line counted from ``program``'s."""
    first = program.__code__.co_firstlineno

    def cut(m: re.Match) -> str:
        return f"from {m.group(1)}:+{int(m.group(2)) - first}:"

    return re.sub(r"from \S*/([^/\s]+\.py):(\d+):", cut, text)


def _count(jaxpr, counts: collections.Counter) -> collections.Counter:
    """How many of each ``_COUNTED`` primitive a jaxpr applies, its nested jaxprs included."""
    for eqn in jaxpr.eqns:
        if eqn.primitive.name in _COUNTED:
            counts[eqn.primitive.name] += 1
        for p in eqn.params.values():
            for sub in p if isinstance(p, (tuple, list)) else (p,):
                inner = getattr(sub, "jaxpr", sub)
                if hasattr(inner, "eqns"):
                    _count(inner, counts)
    return counts


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jax.config.update("jax_remat3", True)
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    ad_checkpoint = importlib.import_module(jax.__name__ + ".ad_checkpoint")
    tree_flatten, tree_unflatten = jax.tree_util.tree_flatten, jax.tree_util.tree_unflatten

    def print_saved_residuals(cell, f, *args):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            ad_checkpoint.print_saved_residuals(f, *args)
        rec(cell, _located(buf.getvalue()))

    def print_fwd_bwd(cell, f, *args, **kwargs) -> None:
        args, in_tree = tree_flatten((args, kwargs))

        def f_(*args):
            args, kwargs = tree_unflatten(in_tree, args)
            return f(*args, **kwargs)

        fwd = jax.jit(lambda *args: jax.vjp(f_, *args)).trace(*args).jaxpr.jaxpr

        y, f_vjp = jax.vjp(f_, *args)
        res, in_tree = tree_flatten(f_vjp)

        def g_(*args):
            *res, y = args
            f_vjp = tree_unflatten(in_tree, res)
            return f_vjp(y)

        bwd = jax.jit(g_).trace(*res, y).jaxpr.jaxpr
        n_out = len(tree_flatten(y)[0])
        rec(cell + ".residuals", [str(v.aval) for v in fwd.outvars[n_out:]])
        rec(cell + ".fwd", dict(_count(fwd, collections.Counter())))
        rec(cell + ".bwd", dict(_count(bwd, collections.Counter())))

    # -- Seeing what's saved
    def g(W, x):
        y = jnp.dot(W, x)
        return jnp.sin(y)

    def f(W1, W2, W3, x):
        x = g(W1, x)
        x = g(W2, x)
        x = g(W3, x)
        return x

    W1 = jnp.ones((5, 4))
    W2 = jnp.ones((6, 5))
    W3 = jnp.ones((7, 6))
    x = jnp.ones(4)
    print_saved_residuals("saved.f", f, W1, W2, W3, x)

    def f2(W1, W2, W3, x):
        x = jax.checkpoint(g)(W1, x)
        x = jax.checkpoint(g)(W2, x)
        x = jax.checkpoint(g)(W3, x)
        return x

    print_saved_residuals("saved.f2", f2, W1, W2, W3, x)

    checkpoint_name = ad_checkpoint.checkpoint_name

    def f4(W1, W2, W3, x):
        x = checkpoint_name(g(W1, x), name="a")
        x = checkpoint_name(g(W2, x), name="b")
        x = checkpoint_name(g(W3, x), name="c")
        return x

    f4 = jax.checkpoint(f4, policy=jax.checkpoint_policies.save_only_these_names("a"))
    print_saved_residuals("saved.f4", f4, W1, W2, W3, x)

    # The gradients agree (not printed by the page: the policies change what is saved only).
    grads = [jax.grad(lambda *a, h=h: h(*a).sum(), argnums=(0, 1, 2, 3)) for h in (f, f2, f4)]
    rec("saved.grads", grads[0](W1, W2, W3, x))
    rec("saved.grads_agree", [
        bool(jnp.allclose(a, b)) for gr in grads[1:]
        for a, b in zip(gr(W1, W2, W3, x), grads[0](W1, W2, W3, x))
    ])  # fmt: skip

    print_fwd_bwd("fwd_bwd.f", f, W1, W2, W3, x)
    print_fwd_bwd("fwd_bwd.f4", f4, W1, W2, W3, x)

    # -- jax.checkpoint fundamentals
    def sin_vjp(x):
        y = jnp.sin(x)
        cos_x = jnp.cos(x)
        return y, lambda y_bar: cos_x * y_bar

    def sin_vjp2(x):
        y = jnp.sin(x)
        return y, lambda y_bar: jnp.cos(x) * y_bar

    y1, b1 = sin_vjp(0.5)
    y2, b2 = sin_vjp2(0.5)
    rec("fundamentals.sin_vjp", [y1, b1(1.0), y2, b2(1.0)])

    g, h = jnp.sin, jnp.cos  # noqa: F811 -- the g and h this section leaves to the reader

    def f(x):
        y = g(x)
        z = h(y)
        return z

    def f_vjp(x):
        y, g_vjp = jax.vjp(g, x)
        z, h_vjp = jax.vjp(h, y)

        def f_bwd(z_bar):
            (y_bar,) = h_vjp(z_bar)
            (x_bar,) = g_vjp(y_bar)
            return x_bar

        return z, f_bwd

    def f_vjp_checkpoint(x):
        y = g(x)
        z, h_vjp = jax.vjp(h, y)

        def f_bwd2(z_bar):
            (y_bar,) = h_vjp(z_bar)
            _, g_vjp = jax.vjp(g, x)
            (x_bar,) = g_vjp(y_bar)
            return x_bar

        return z, f_bwd2

    z1, bwd1 = f_vjp(0.5)
    z2, bwd2 = f_vjp_checkpoint(0.5)
    rec("fundamentals.f_vjp", [z1, bwd1(1.0), z2, bwd2(1.0)])

    def f_checkpoint(x):
        y = jax.checkpoint(g)(x)
        z = h(y)
        return z

    rec("fundamentals.f_checkpoint", [f_checkpoint(0.5), jax.grad(f_checkpoint)(0.5)])
    print_saved_residuals("fundamentals.f_checkpoint.saved", f_checkpoint, 0.5)

    def f_checkpoint_grad(x):
        y = g(x)  # step 1
        _, h_vjp = jax.vjp(h)(y)  # step 2 (the page's typo: no primal)
        (y_bar,) = h_vjp(1.0)  # step 3
        _, g_vjp = jax.vjp(g, x)  # step 4
        (x_bar,) = g_vjp(y_bar)  # step 5
        return x_bar

    note(rec, "fundamentals.f_checkpoint_grad", lambda: f_checkpoint_grad(0.5))

    def f_grad_bad(x):
        _ = f(x)  # step 1
        _, f_vjp = jax.vjp(f, x)  # step 2
        (x_bar,) = f_vjp(1.0)  # step 3
        return x_bar

    def f_grad_bad2(x):
        y, g_vjp = jax.vjp(g, x)  # step 1
        z = h(y)  # step 2  # noqa: F841 -- the page's line
        _, h_vjp = jax.vjp(h, y)  # step 3
        (y_bar,) = h_vjp(1.0)  # step 4
        (x_bar,) = g_vjp(y_bar)  # step 5
        return x_bar

    rec("fundamentals.bad", [f_grad_bad(0.5), f_grad_bad2(0.5)])
    print_saved_residuals("fundamentals.checkpoint_f.saved", jax.checkpoint(f), 0.5)
    print_saved_residuals("fundamentals.checkpoint_h.saved", lambda x: jax.checkpoint(h)(g(x)), 0.5)

    # -- Policies: naming what's saveable
    def loss(params, x, y):
        return jnp.sum((predict(params, x) - y) ** 2)

    def predict(params, x):
        *Ws, Wlast = params
        for i, W in enumerate(Ws):
            x = layer(W, x)
            x = checkpoint_name(x, name=f"layer{i}_output")
        x = jnp.dot(Wlast, x)
        return x

    def layer(W, x):
        return jnp.sin(jnp.dot(W, x))

    W1 = W2 = W3 = jnp.ones((4, 4))
    params = [W1, W2, W3]
    x = jnp.ones(4)
    y = jnp.ones(4)
    print_saved_residuals("policies.loss", loss, params, x, y)

    loss_checkpoint = jax.checkpoint(
        loss, policy=jax.checkpoint_policies.save_any_names_but_these("layer1_output")
    )
    print_saved_residuals("policies.loss_checkpoint", loss_checkpoint, params, x, y)
    # (Not printed by the page: the gradient is the plain one.)
    rec("policies.grad_agrees", all(
        bool(jnp.allclose(a, b))
        for a, b in zip(jax.grad(loss_checkpoint)(params, x, y), jax.grad(loss)(params, x, y))
    ))  # fmt: skip

    # -- Offloading instead of recomputing
    policy = jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=["y"],
        names_which_can_be_offloaded=["z"],
        offload_src="device",
        offload_dst="pinned_host",
    )

    @partial(jax.checkpoint, policy=policy)
    def f_offload(x):
        y = checkpoint_name(jnp.sin(x), "y")
        z = checkpoint_name(jnp.sin(y), "z")
        w = checkpoint_name(jnp.sin(z), "w")
        return jnp.sum(w)

    note(rec, "offload.grad", lambda: jax.grad(f_offload)(jnp.arange(4.0)))
    print_saved_residuals("offload.saved", f_offload, jnp.arange(4.0))

    # -- Advanced: recursive jax.checkpoint
    def chain_compose(funs):
        def f(x):
            for fun in funs:
                x = fun(x)
            return x

        return f

    f = chain_compose([jnp.sin] * 8)
    print_saved_residuals("recursive.chain8", f, 3.0)
    f = chain_compose([jnp.sin] * 16)
    print_saved_residuals("recursive.chain16", f, 3.0)

    def recursive_checkpoint(funs):
        if len(funs) == 1:
            return funs[0]
        elif len(funs) == 2:
            f1, f2 = funs
            return lambda x: f1(f2(x))
        else:
            f1 = recursive_checkpoint(funs[: len(funs) // 2])
            f2 = recursive_checkpoint(funs[len(funs) // 2 :])
            return lambda x: f1(jax.checkpoint(f2)(x))

    f = recursive_checkpoint([jnp.sin] * 8)
    print_saved_residuals("recursive.rc8", f, 3.0)
    f = recursive_checkpoint([jnp.sin] * 16)
    print_saved_residuals("recursive.rc16", f, 3.0)
    # (Not printed by the page: both chains have one gradient.)
    rec("recursive.grads", [
        jax.grad(chain_compose([jnp.sin] * 8))(3.0),
        jax.grad(recursive_checkpoint([jnp.sin] * 8))(3.0),
    ])  # fmt: skip

    f = chain_compose([jnp.sin] * 8)
    print_fwd_bwd("recursive.fwd_bwd.chain8", f, 3.0)
    f = recursive_checkpoint([jnp.sin] * 8)
    print_fwd_bwd("recursive.fwd_bwd.rc8", f, 3.0)

    # -- Practical notes: scan over layers
    LayerParam = tuple[jnp.ndarray, jnp.ndarray]
    ParamsList = list[LayerParam]

    def net(params: ParamsList, x: jnp.ndarray):
        for W, b in params:
            x = jnp.maximum(jnp.dot(x, W) + b, 0.0)
        return x

    params = [
        (jnp.array([[0.5, 0.5], [1.0, 1.0]]), jnp.array([0.5, 0.5])),
        (jnp.array([[0.5, 0.5], [1.0, 1.0]]), jnp.array([0.5, 0.5])),
    ]
    rec("practical.loop_net", net(params, jnp.ones(2)))  # (run once: not by the page)

    all_weights = jnp.stack([W for W, _ in params])
    all_biases = jnp.stack([b for _, b in params])

    def layer(x, W_b_pair):  # noqa: F811 -- the page's scan-body layer
        W, b = W_b_pair
        out = jnp.maximum(jnp.dot(x, W) + b, 0.0)
        return out, None

    def net(all_weights, all_biases, x):
        x, _ = jax.lax.scan(layer, x, (all_weights, all_biases))
        return x

    x0 = jnp.array([1.0, 0.5])
    loss_of = lambda *a: net(*a).sum()  # noqa: E731
    rec("practical.scan_net", net(all_weights, all_biases, x0))
    rec("practical.scan_grad", jax.grad(loss_of, argnums=(0, 1))(all_weights, all_biases, x0))
    print_saved_residuals("practical.scan_saved", loss_of, all_weights, all_biases, x0)

    @partial(jax.checkpoint, policy=jax.checkpoint_policies.save_only_these_names("preactivation"))
    def layer(x, W_b_pair):  # noqa: F811 -- the checkpointed version
        W, b = W_b_pair
        pre = checkpoint_name(jnp.dot(x, W) + b, "preactivation")
        out = jnp.maximum(pre, 0.0)
        return out, None

    rec("practical.remat_net", net(all_weights, all_biases, x0))
    rec("practical.remat_grad", jax.grad(loss_of, argnums=(0, 1))(all_weights, all_biases, x0))
    print_saved_residuals("practical.remat_saved", loss_of, all_weights, all_biases, x0)
