"""Record JAX 0.10's sharding in types (Explicit mesh axes) while tracing: what ``jax.typeof``
says inside a traced function, the types ``make_jaxpr`` prints (``f32[8@x,4]``), and the
errors ambiguous shardings raise.

Run with the JAX oracle (8 host devices). The programs live here, as functions of a namespace
``ns`` (``jax``, ``jnp``, ``lax``, ``P``, ``NamedSharding``, the Explicit 2x4 ``mesh``,
``named(spec)`` and ``seen``, a list the programs append ``str(jax.typeof(...))`` to), so
tests/test_sharding_in_types.py runs the same ones without importing JAX. No mesh is set as the
context (a set mesh adds ``ctx_mesh`` to JAX's jit equations, which spmd does not print).
Recorded per case: the types seen while tracing ``make_jaxpr(f)``, its text, the text of
``make_jaxpr(jit(f))``, the result's type; or the error's class name.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def _elementwise(ns):
    def f(a):
        ns.seen.append(str(ns.jax.typeof(a)))
        b = ns.jnp.sin(a) * 2
        ns.seen.append(str(ns.jax.typeof(b)))
        c, d = a.sum(0), a.sum(1)
        ns.seen.append(str(ns.jax.typeof(c)))
        ns.seen.append(str(ns.jax.typeof(d)))
        return b, c, d

    return f


def _reshard(ns):
    def f(a):
        b = ns.jax.sharding.reshard(a, ns.named(ns.P(None, "y")))
        ns.seen.append(str(ns.jax.typeof(b)))
        return b * 2

    return f


def _dot_out_sharding(ns):
    def f(a, w):
        c = ns.jnp.dot(a, w, out_sharding=ns.named(ns.P("x", None)))
        ns.seen.append(str(ns.jax.typeof(c)))
        return c

    return f


def _nested_jit(ns):
    @ns.jax.jit
    def inner(x):
        ns.seen.append(str(ns.jax.typeof(x)))
        return ns.jnp.cos(x).T

    def f(a):
        y = inner(a)
        ns.seen.append(str(ns.jax.typeof(y)))
        return y + 1

    return f


def _broadcast(ns):
    def f(a):
        b = a + ns.jnp.ones(4)
        ns.seen.append(str(ns.jax.typeof(b)))
        c = a * a[0]
        ns.seen.append(str(ns.jax.typeof(c)))
        return b, c

    return f


def _grad(body, argnums=0):
    # make_jaxpr(grad(f)): JAX seeds the cotangent with a ``reshard`` of 1.0 and its
    # transposes give each cotangent its primal's type (typed broadcast_in_dim, reshape with
    # ``sharding=``, reduce_sum with ``out_sharding=``, dot_general asked for it).
    return lambda ns: ns.jax.grad(lambda *args: body(ns, *args), argnums=argnums)


def _broadcast_in_dim_out_sharding(ns):
    def f(a):
        b = ns.lax.broadcast_in_dim(a.sum(0), (8, 4), (1,), out_sharding=ns.named(ns.P("x")))
        ns.seen.append(str(ns.jax.typeof(b)))
        c = ns.lax.broadcast_in_dim(a.sum(0), (2, 4), (1,), out_sharding=ns.named(ns.P("x", "y")))
        ns.seen.append(str(ns.jax.typeof(c)))
        return b, c

    return f


def _reshape_out_sharding(ns):
    def f(a):
        b = ns.lax.reshape(a, (32,), out_sharding=ns.named(ns.P("y")))
        ns.seen.append(str(ns.jax.typeof(b)))
        return b

    return f


# name -> (program(ns), input specs: "a" is float32[8,4], "w" float32[4,8])
CASES = {
    "elementwise": (_elementwise, [("x", "y")]),
    "reshard": (_reshard, [("x", "y")]),
    "dot_out_sharding": (_dot_out_sharding, [("x", "y"), ("y", None)]),
    "dot_ambiguous": (lambda ns: lambda a, w: a @ w, [("x", "y"), ("y", None)]),
    "dot_free": (lambda ns: lambda a, w: a @ w, [("x", None), (None, "y")]),
    "nested_jit": (_nested_jit, [("x", None)]),
    "broadcast": (_broadcast, [("x", "y")]),
    "transpose_replicated": (lambda ns: lambda a: a.T * 3, [(None, "y")]),
    "broadcast_in_dim_out_sharding": (_broadcast_in_dim_out_sharding, [("x", "y")]),
    "reshape_out_sharding": (_reshape_out_sharding, [("x", "y")]),
    "jnp_reshape_out_sharding": (
        lambda ns: lambda a: ns.jnp.reshape(a, (4, 8), out_sharding=ns.named(ns.P(None, "x"))),
        [("x", "y")],
    ),
    "vmap_broadcast_in_dim_out_sharding": (
        lambda ns: ns.jax.vmap(
            lambda r: ns.lax.broadcast_in_dim(r, (2, 4), (1,), out_sharding=ns.named(ns.P("x")))
        ),
        [("y", None)],
    ),
    # vmap: a result that does not depend on the mapped axis is split as the mapped
    # dimensions are (the others keep their sharding in type), wherever out_axes puts it.
    "vmap_unbatched_constant": (lambda ns: ns.jax.vmap(lambda r: ns.jnp.ones(4)), [("x", None)]),
    "vmap_unbatched_typed": (
        lambda ns: lambda a, w: ns.jax.vmap(lambda r: w, out_axes=1)(a),
        [("x", None), (None, "y")],
    ),
    "vmap_unbatched_mixed": (
        lambda ns: ns.jax.vmap(lambda r: (r.sum(), 1.0, ns.jnp.zeros((2, 4)))),
        [("x", "y")],
    ),
    # vmap: the mapped dimensions must be sharded alike (ValueError otherwise).
    "vmap_mapped_alike": (
        lambda ns: ns.jax.vmap(lambda r, c: r + c, in_axes=(0, 1)),
        [("x", "y"), (None, "x")],
    ),
    "vmap_mapped_differ": (
        lambda ns: ns.jax.vmap(lambda r, c: r + c, in_axes=(0, 1)),
        [("x", None), (None, "y")],
    ),
    "vmap_mapped_unsharded": (
        lambda ns: ns.jax.vmap(lambda r, c: r + c, in_axes=(0, 1)),
        [(None, "y"), ("y", "x")],
    ),
    "grad_sum": (_grad(lambda ns, a: a.sum()), [("x", "y")]),
    "grad_sum_replicated": (_grad(lambda ns, a: a.sum()), [(None, None)]),
    "grad_mul": (_grad(lambda ns, a: (a * a).sum()), [("x", "y")]),
    "grad_sin": (_grad(lambda ns, a: ns.jnp.sin(a).sum()), [("x", "y")]),
    # JAX's tanh, log1p, ... jvps reshard their 1.0 (tan, atan, ... write it as a literal).
    "grad_tanh": (_grad(lambda ns, a: ns.lax.tanh(a).sum()), [("x", "y")]),
    "grad_log1p_atanh": (
        _grad(lambda ns, a: (ns.lax.log1p(a) + ns.lax.atanh(a / 8.0)).sum()),
        [("x", "y")],
    ),
    "grad_atan": (_grad(lambda ns, a: ns.lax.atan(a).sum()), [("x", "y")]),
    "grad_dot": (_grad(lambda ns, a, w: (a @ w).sum(), (0, 1)), [("x", None), (None, "y")]),
    "grad_reshape": (_grad(lambda ns, a: a.reshape(32).sum()), [("x", "y")]),
    "grad_reduce_axis": (_grad(lambda ns, a: (a.sum(1) * 2.0).sum()), [("x", "y")]),
    "grad_expand_dims": (_grad(lambda ns, a: (a[:, None, :] * 2.0).sum()), [("x", "y")]),
    "grad_broadcast_mul": (
        _grad(lambda ns, a: (a[None] * ns.jnp.ones((3, 8, 4))).sum()),
        [("x", "y")],
    ),
    "grad_transpose": (_grad(lambda ns, a: (a.T * 2.0).sum()), [("x", "y")]),
}
SHAPES = [(8, 4), (4, 8)]
# Gradients whose value does not depend on the arguments' values: JAX's jit of them raises
# (ValueError: its device assignment has one device, the types' mesh 8) with no mesh set as
# the context, so their results' types are not recorded.
CONSTANT_RESULTS = {
    "grad_sum",
    "grad_sum_replicated",
    "grad_reshape",
    "grad_reduce_axis",
    "grad_expand_dims",
    "grad_broadcast_mul",
    "grad_transpose",
}


def inputs(np, specs):
    return [
        (np.arange(int(np.prod(s))) % 7).astype(np.float32).reshape(s)
        for s, _ in zip(SHAPES, specs)
    ]


def run_case(ns, name: str, arrays) -> dict:
    make, _ = CASES[name]
    ns.seen = []
    f = make(ns)
    try:
        text = str(ns.jax.make_jaxpr(f)(*arrays))
    except Exception as e:  # noqa: BLE001 - the error is the golden value
        return {"error": type(e).__name__}
    rec = {"seen": list(ns.seen), "jaxpr": text}
    ns.seen = []
    f = make(ns)
    rec["jaxpr_jit"] = str(ns.jax.make_jaxpr(ns.jax.jit(f))(*arrays))
    ns.seen = []
    if name in CONSTANT_RESULTS:
        return rec
    out = ns.jax.jit(make(ns))(*arrays)
    leaves = ns.jax.tree.leaves(out)
    rec["out"] = [str(ns.jax.typeof(x)) for x in leaves]
    return rec


def main() -> None:
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    import types

    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    ns = types.SimpleNamespace(jax=jax, jnp=jnp, lax=lax, NamedSharding=NamedSharding, P=P)
    ns.mesh = mesh
    ns.named = lambda spec: NamedSharding(mesh, spec)
    out = {}
    for name, (_, specs) in CASES.items():
        arrays = [
            jax.device_put(x, NamedSharding(mesh, P(*s))) for x, s in zip(inputs(np, specs), specs)
        ]
        out[name] = run_case(ns, name, arrays)
    path = Path(__file__).resolve().parent.parent / "golden" / "sharding_in_types.json"
    path.write_text(json.dumps({"jax": jax.__version__, "cases": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
