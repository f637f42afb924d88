"""The code cells of JAX's "Autodiff and sharding" page (docs/301/sharding-ad.md: cotangent
types follow primal types; unreduced and reduced arrays in explicit mode and in shard_map), as
one program: ``program(jax, rec)`` (see tests/tutorials/record.py and shard_map_tutorial.py).

The page asks for two CPU devices (``jax_num_cpu_devices``); the program runs on the first two
of the 8 (``make_mesh((2,), ('X',))`` takes those). It is written for JAX 0.10's make_mesh,
whose axes default to Explicit: SPMD_CONFIG asks spmd for the same default. Types and jaxprs
are recorded as their text, arrays as values with their sharding, an error as its class (and
whether its message names the operation), ``addressable_shards`` as (device id, data) pairs,
``print_all_reduces`` as the op names it prints.
"""

from __future__ import annotations

import importlib
import re

import numpy as np
from record import note

SPMD_CONFIG = {"spmd_default_axis_types": "explicit"}

# cell -> (what spmd records, None for any value unlike JAX's; why it differs from JAX 0.10.2).
_HLO = (
    "Compiled.as_text() is the Python program spmd runs (one process computes the global "
    "value), not XLA's partitioned HLO: it names no all-reduce"
)
_MANUAL = (
    "spmd's shard_map bodies have no unreduced values: an unreduced out_specs sums the body's "
    "values at the boundary (a psum in the body, then a cast of the result to {U:X}), where "
    "JAX's body ends in vary_unreduced_cast and its transpose starts with reduced_vary_cast"
)
KNOWN: dict[str, tuple[object, str]] = {
    "einsum.unreduced.shards": (
        None,
        "spmd holds an unreduced array's value (the sum), placed on the first device along the "
        "unreduced axes with zeros on the others; JAX's devices hold their own partial sums",
    ),
    "step.all_reduces": ([], _HLO),
    "step_replicated.all_reduces": ([], _HLO),
    "manual.matmul_loss.jaxpr": (None, _MANUAL),
}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")

    def text(x):
        return str(x)

    def error(cell, fn, *words):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 -- the class is the recorded value
            rec(cell, e)
            rec(cell + ".message", [bool(re.search(w, str(e))) for w in words])
        else:
            rec(cell, "no error")

    def shards(cell, x):
        rec(cell, [[s.device.id, s.data] for s in x.addressable_shards])

    jax.set_mesh(jax.make_mesh((2,), ("X",)))  # explicit mode by default

    # -- Cotangent shardings are a function of primal shardings
    x = jax.device_put(jnp.arange(8 * 4.0).reshape(8, 4), jax.P("X", None))
    w = jax.device_put(jnp.arange(4 * 2.0).reshape(4, 2) / 10.0, jax.P(None, None))

    def loss(w, x):
        return jnp.sum((x @ w) ** 2)

    dw, dx = jax.grad(loss, argnums=(0, 1))(w, x)
    rec("grad.types", [text(jax.typeof(w)), text(jax.typeof(dw))])
    rec("grad.x_types", [text(jax.typeof(x)), text(jax.typeof(dx))])
    rec("grad.values", [dw, dx])
    rec("grad.jaxpr", text(jax.jit(jax.grad(loss)).trace(w, x).jaxpr))

    # -- Unreduced: a reduction waiting to happen
    a = jax.device_put(jnp.arange(4.0).reshape(2, 2), jax.P(None, "X"))
    b = jax.device_put(jnp.arange(4.0, 8.0).reshape(2, 2), jax.P("X", None))
    rec("ab.types", [text(jax.typeof(a)), text(jax.typeof(b))])
    error("ab.matmul", lambda: a @ b, "[Cc]ontracting dimensions are sharded", "out_sharding")

    c = jnp.einsum("ij,jk->ik", a, b, out_sharding=jax.P(None, None))
    rec("einsum.replicated.type", text(jax.typeof(c)))
    rec("einsum.replicated", c)

    c = jnp.einsum("ij,jk->ik", a, b, out_sharding=jax.P(None, None, unreduced={"X"}))
    rec("einsum.unreduced.type", text(jax.typeof(c)))
    rec("einsum.unreduced.sharding", text(c.sharding.spec))
    shards("einsum.unreduced.shards", c)
    rec("einsum.unreduced.reshard", jax.reshard(c, jax.P(None, None)))

    c2 = jnp.einsum("ij,jk->ik", 2.0 * a, b, out_sharding=jax.P(None, None, unreduced={"X"}))
    rec("unreduced.add.type", text(jax.typeof(c + c2)))
    rec("unreduced.add", jax.reshard(c + c2, jax.P(None, None)))
    error("unreduced.cos", lambda: jnp.cos(c), "unreduced rule for cos")

    # -- Reduced: choosing unreduced gradients
    w_ = jax.reshard(w, jax.P(None, None, reduced={"X"}))
    rec("reduced.type", text(jax.typeof(w_)))
    rec("reduced", np.asarray(w_))  # (record.py reads specs as tuples: JAX's refuses)

    def loss2(w, x):
        w = jax.reshard(w, jax.P(None, None, reduced={"X"}))
        return jnp.sum((x @ w) ** 2)

    rec("loss2.jaxpr", text(jax.jit(jax.grad(loss2)).trace(w, x).jaxpr))
    dw2 = jax.grad(loss2)(w, x)  # (beyond the page: the same gradient as loss's)
    rec("loss2.grad", np.asarray(dw2))
    rec("loss2.grad.type", text(jax.typeof(dw2)))

    def loss_fanout(w, x1, x2):
        w = jax.reshard(w, jax.P(None, None, reduced={"X"}))
        return jnp.sum(x1 @ w) + jnp.sum(x2 @ w)

    x1 = jax.device_put(jnp.ones((8, 4)), jax.P("X", None))
    x2 = jax.device_put(jnp.ones((8, 4)), jax.P("X", None))
    rec("fanout.jaxpr", text(jax.jit(jax.grad(loss_fanout)).trace(w, x1, x2).jaxpr))
    rec("fanout.grad", jax.grad(loss_fanout)(w, x1, x2))

    # -- Example: microbatch gradient accumulation
    def predict(stacked_ws, xs):  # stacked_ws: [layer, features, features]
        def apply_layer(xs, w):
            return jnp.tanh(xs @ w), None

        final_xs, _ = jax.lax.scan(apply_layer, xs, stacked_ws)
        return final_xs

    def loss3(stacked_ws, batch):
        return jnp.sum(predict(stacked_ws, batch) ** 2)

    @jax.jit
    def step(stacked_ws, xs):  # xs: [microbatch, batch@X, features]
        def microbatch_step(grad_acc, xs_mb):
            grads = jax.grad(loss3)(stacked_ws, xs_mb)
            # ws are reduced, so grads are unreduced -- and we can check it!
            rec("step.grads.unreduced", sorted(jax.typeof(grads).sharding.spec.unreduced))
            return grad_acc + grads, None

        grad_acc = jax.reshard(jnp.zeros_like(stacked_ws), jax.P(unreduced={"X"}))
        grad_acc, _ = jax.lax.scan(microbatch_step, grad_acc, xs)
        grads = jax.reshard(grad_acc, jax.P())  # the one AllReduce
        ws = jax.reshard(stacked_ws, jax.P())  # free: full copies already
        return ws - 0.01 * grads

    stacked_ws = jax.device_put(jnp.stack([jnp.eye(4) / 2] * 3), jax.P(reduced={"X"}))
    xs = jax.device_put(jnp.ones((5, 2, 4)), jax.P(None, "X", None))
    new_ws = step(stacked_ws, xs)
    rec("step.type", text(jax.typeof(new_ws)))
    rec("step", new_ws)

    def print_all_reduces(jitted, *args):
        hlo = jitted.lower(*args).compile().as_text()
        names = []
        for line in hlo.splitlines():
            if "all-reduce(" in line or "all-reduce-start(" in line:
                names.append(re.search(r'op_name="([^"]*)"', line).group(1))
        return names

    rec("step.all_reduces", print_all_reduces(step, stacked_ws, xs))

    @jax.jit
    def step_replicated(stacked_ws, xs):
        def microbatch_step(grad_acc, xs_mb):
            grads = jax.grad(loss3)(stacked_ws, xs_mb)  # replicated: AllReduce inside!
            return grad_acc + grads, None

        grad_acc = jnp.zeros_like(stacked_ws)
        grad_acc, _ = jax.lax.scan(microbatch_step, grad_acc, xs)
        return stacked_ws - 0.01 * grad_acc

    ws_replicated = jax.reshard(stacked_ws, jax.P())
    rec("step_replicated.all_reduces", print_all_reduces(step_replicated, ws_replicated, xs))
    rec("step_replicated", step_replicated(ws_replicated, xs))

    # -- Manual mode: autodiff and shard_map
    @jax.shard_map(
        in_specs=(jax.P(None, "X"), jax.P("X", None)),
        out_specs=jax.P(None, None, unreduced={"X"}),
    )
    def matmul_partial(a, b):
        out = a @ b  # a local matmul of this device's pieces: a partial sum
        return jax.lax.pcast(out, "X", to="unreduced")

    def manual_matmul():
        return matmul_partial(a, b)

    note(rec, "manual.matmul.type", lambda: text(jax.typeof(manual_matmul())))
    note(rec, "manual.matmul", lambda: jax.reshard(manual_matmul(), jax.P(None, None)))

    def matmul_loss(a, b):
        return jnp.sum(jax.reshard(matmul_partial(a, b), jax.P(None, None)))

    grad = jax.jit(jax.grad(matmul_loss, argnums=(0, 1)))
    note(rec, "manual.matmul_loss.jaxpr", lambda: text(grad.trace(a, b).jaxpr))
    note(rec, "manual.matmul_loss.grad", lambda: grad(a, b))

    w_r = jax.reshard(w, jax.P(None, None, reduced={"X"}))

    @jax.shard_map(
        in_specs=(jax.P("X", None), jax.P(None, None, reduced={"X"})),
        out_specs=jax.P("X", None),
    )
    def apply_layer(x, w):
        return jnp.tanh(x @ w)

    dw = jax.grad(lambda w, x: jnp.sum(apply_layer(x, w) ** 2))(w_r, x)
    rec("manual.reduced.type", text(jax.typeof(dw)))
    # (tanh saturates: 1 - tanh(x)**2 keeps few of float32's digits)
    rec("manual.reduced", jax.reshard(dw, jax.P(None, None)), tol=1e-4)
