"""The code cells of JAX's "Control autodiff's saved values with jax.checkpoint (aka
jax.remat)" tutorial, as one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd and records what
each cell prints: the text ``print_saved_residuals`` prints (source locations cut to the file's
name and line, so the record does not depend on where the checkout is), and, for the page's
``print_fwd_bwd`` (a rich table of two jaxprs), the forward and backward jaxprs' texts.

Left out or changed: ``print_fwd_bwd`` prints through ``rich`` (not a dependency here): the
program records the two texts the table shows. The cells that only define VJP functions to
read (``sin_vjp``, ``f_vjp``, ...) are called on small inputs with ``g = sin``, ``h = cos`` and
their values recorded; ``f_checkpoint_grad`` calls ``jax.vjp(h)`` with no primal (a typo of
the page): the program records its error class. The last section's code blocks are not cells
(plain ``python`` blocks); the scan-over-layers pattern they show is run once with the policy
and its gradient and saved residuals recorded.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import re
from functools import partial

from record import note

KNOWN: dict[str, tuple[object, str]] = {}


def _located(text: str) -> str:
    """``print_saved_residuals``'s text with each ``from /dir/file.py:LINE:COL (fn)`` cut to
    the file's name and the line counted from ``program``'s: the checkout's folder differs
    between runs, and the record stays when lines above ``program`` change."""
    first = program.__code__.co_firstlineno

    def cut(m: re.Match) -> str:
        return f"from {m.group(1)}:+{int(m.group(2)) - first}:"

    return re.sub(r"from \S*/([^/\s]+\.py):(\d+):", cut, text)


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    ad_checkpoint = importlib.import_module(jax.__name__ + ".ad_checkpoint")
    tree_util = jax.tree_util

    def saved(cell, f, *args):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            ad_checkpoint.print_saved_residuals(f, *args)
        rec(cell, _located(buf.getvalue()))

    def print_fwd_bwd(cell, f, *args, **kwargs) -> None:
        args, in_tree = tree_util.tree_flatten((args, kwargs))

        def f_(*args):
            args, kwargs = tree_util.tree_unflatten(in_tree, args)
            return f(*args, **kwargs)

        fwd = jax.make_jaxpr(lambda *args: jax.vjp(f_, *args))(*args).jaxpr
        y, f_vjp = jax.vjp(f_, *args)
        res, in_tree2 = tree_util.tree_flatten(f_vjp)

        def g_(*args):
            *res, y = args
            f_vjp = tree_util.tree_unflatten(in_tree2, res)
            return f_vjp(y)

        bwd = jax.make_jaxpr(g_)(*res, y).jaxpr
        rec(cell + ".fwd", str(fwd))
        rec(cell + ".bwd", str(bwd))

    # -- TL;DR
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
    saved("tldr.f", f, W1, W2, W3, x)

    def f2(W1, W2, W3, x):
        x = jax.checkpoint(g)(W1, x)
        x = jax.checkpoint(g)(W2, x)
        x = jax.checkpoint(g)(W3, x)
        return x

    saved("tldr.f2", f2, W1, W2, W3, x)

    f3 = jax.checkpoint(f, policy=jax.checkpoint_policies.checkpoint_dots_with_no_batch_dims)
    saved("tldr.f3", f3, W1, W2, W3, x)

    checkpoint_name = ad_checkpoint.checkpoint_name

    def f4(W1, W2, W3, x):
        x = checkpoint_name(g(W1, x), name="a")
        x = checkpoint_name(g(W2, x), name="b")
        x = checkpoint_name(g(W3, x), name="c")
        return x

    f4 = jax.checkpoint(f4, policy=jax.checkpoint_policies.save_only_these_names("a"))
    saved("tldr.f4", f4, W1, W2, W3, x)

    # The gradients all agree (beyond the page: the policies change what is saved only).
    grads = [jax.grad(lambda *a, h=h: h(*a).sum(), argnums=(0, 1, 2, 3)) for h in (f, f2, f3, f4)]
    rec("tldr.grads", grads[0](W1, W2, W3, x))
    rec("tldr.grads_agree", [
        bool(jnp.allclose(a, b)) for gr in grads[1:]
        for a, b in zip(gr(W1, W2, W3, x), grads[0](W1, W2, W3, x))
    ])  # fmt: skip

    print_fwd_bwd("fwd_bwd.f", f, W1, W2, W3, x)
    print_fwd_bwd("fwd_bwd.f3", f3, W1, W2, W3, x)

    # -- Fundamentals of jax.checkpoint
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

    g, h = jnp.sin, jnp.cos  # noqa: F811 -- the page's g and h of this section

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
    saved("fundamentals.f_checkpoint.saved", f_checkpoint, 0.5)

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
        (y_bar,) = h_vjp(1.0)  # step 3
        (x_bar,) = g_vjp(y_bar)  # step 5
        return x_bar

    rec("fundamentals.bad", [f_grad_bad(0.5), f_grad_bad2(0.5)])
    saved("fundamentals.checkpoint_f.saved", jax.checkpoint(f), 0.5)
    saved("fundamentals.checkpoint_h.saved", lambda x: jax.checkpoint(h)(g(x)), 0.5)

    # -- Custom policies for what's saveable
    def loss(params, x, y):
        return jnp.sum((predict(params, x) - y) ** 2)

    def predict(params, x):
        *Ws, Wlast = params
        for W in Ws:
            x = layer(W, x)
        x = jnp.dot(Wlast, x)
        return x

    def layer(W, x):
        return jnp.sin(jnp.dot(W, x))

    W1 = W2 = W3 = jnp.ones((4, 4))
    params = [W1, W2, W3]
    x = jnp.ones(4)
    y = jnp.ones(4)
    saved("policies.loss", loss, params, x, y)

    loss_checkpoint = jax.checkpoint(
        loss, policy=jax.checkpoint_policies.checkpoint_dots_with_no_batch_dims
    )
    saved("policies.loss_checkpoint", loss_checkpoint, params, x, y)

    def predict(params, x):  # noqa: F811 -- the page redefines it with names
        *Ws, Wlast = params
        for i, W in enumerate(Ws):
            x = layer(W, x)
            x = checkpoint_name(x, name=f"layer{i}_output")
        x = jnp.dot(Wlast, x)
        return x

    saved("policies.loss_named", loss, params, x, y)
    loss_checkpoint2 = jax.checkpoint(
        loss, policy=jax.checkpoint_policies.save_any_names_but_these("layer1_output")
    )
    saved("policies.loss_checkpoint2", loss_checkpoint2, params, x, y)

    # The policies the page lists, each on the named loss (beyond the page's cells).
    cp = jax.checkpoint_policies
    # The page's name for it; JAX 0.10.2 has save_anything_except_these_names.
    note(rec, "policies.save_anything_but_these_names", lambda: cp.save_anything_but_these_names)
    listed = {
        "everything_saveable": cp.everything_saveable,
        "nothing_saveable": cp.nothing_saveable,
        "checkpoint_dots": cp.checkpoint_dots,
        "dots_saveable": cp.dots_saveable,
        "dots_with_no_batch_dims_saveable": cp.dots_with_no_batch_dims_saveable,
        "save_anything_except_these_names": cp.save_anything_except_these_names("layer0_output"),
        "save_any_names_but_these": cp.save_any_names_but_these("layer0_output"),
        "save_only_these_names": cp.save_only_these_names("layer0_output", "layer1_output"),
        "offload": cp.save_and_offload_only_these_names(
            names_which_can_be_saved=["layer0_output"],
            names_which_can_be_offloaded=["layer1_output"],
            offload_src="device",
            offload_dst="pinned_host",
        ),
        "both": cp.save_from_both_policies(
            cp.save_only_these_names("layer0_output"), cp.checkpoint_dots
        ),
    }
    want = jax.grad(loss)(params, x, y)
    for name, policy in listed.items():
        lc = jax.checkpoint(loss, policy=policy)
        saved(f"policies.{name}", lc, params, x, y)
        rec(f"policies.{name}.grad_agrees", all(
            bool(jnp.allclose(a, b)) for a, b in zip(jax.grad(lc)(params, x, y), want)
        ))  # fmt: skip
    rec("policies.offload.jaxpr", str(jax.make_jaxpr(jax.grad(jax.checkpoint(
        loss, policy=listed["offload"])))(params, x, y)))  # fmt: skip

    # -- Advanced: recursive jax.checkpoint
    def chain_compose(funs):
        def f(x):
            for fun in funs:
                x = fun(x)
            return x

        return f

    f = chain_compose([jnp.sin] * 8)
    saved("recursive.chain8", f, 3.0)
    f = chain_compose([jnp.sin] * 16)
    saved("recursive.chain16", f, 3.0)

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
    saved("recursive.rc8", f, 3.0)
    f = recursive_checkpoint([jnp.sin] * 16)
    saved("recursive.rc16", f, 3.0)
    rec("recursive.grads", [
        jax.grad(chain_compose([jnp.sin] * 8))(3.0),
        jax.grad(recursive_checkpoint([jnp.sin] * 8))(3.0),
    ])  # fmt: skip

    f = chain_compose([jnp.sin] * 8)
    print_fwd_bwd("recursive.fwd_bwd.chain8", f, 3.0)
    f = recursive_checkpoint([jnp.sin] * 8)
    print_fwd_bwd("recursive.fwd_bwd.rc8", f, 3.0)

    # -- Practical notes: scan over layers with a checkpointed body
    key = jax.random.key(0)
    ws = jax.random.normal(key, (3, 4, 4))
    bs = jnp.ones((3, 4)) * 0.1
    x0 = jnp.ones(4)

    @partial(jax.checkpoint, policy=jax.checkpoint_policies.checkpoint_dots_with_no_batch_dims)
    def scan_layer(x, W_b_pair):
        W, b = W_b_pair
        out = jnp.maximum(jnp.dot(x, W) + b, 0.0)
        return out, None

    def net(all_weights, all_biases, x):
        x, _ = jax.lax.scan(scan_layer, x, (all_weights, all_biases))
        return x

    rec("practical.net", net(ws, bs, x0))
    rec("practical.grad", jax.grad(lambda *a: net(*a).sum(), argnums=(0, 1))(ws, bs, x0))
    saved("practical.saved", lambda w, b, x: net(w, b, x).sum(), ws, bs, x0)
