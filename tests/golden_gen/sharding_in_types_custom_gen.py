"""Record JAX 0.10's sharding in types (Explicit mesh axes) inside the bodies of custom_jvp and
custom_vjp functions (the primal function, the jvp rule, fwd and bwd), custom_gradient,
closure_convert, checkpoint, custom_vmap, named_call and linear_call: what ``jax.typeof`` says
there, the types ``make_jaxpr`` prints in their equations' inner jaxprs, the types of their
results, and the errors ambiguous shardings raise inside them (ShardingTypeError; ValueError
for a bwd cotangent typed otherwise than its input).

Run with the JAX oracle (8 host devices). As in sharding_in_types_gen.py, the programs are
functions of a namespace ``ns`` (``jax``, ``jnp``, ``P``, the Explicit 2x4 ``mesh``,
``named(spec)``, the placed arrays ``b`` (float32[8,4] on ``P(None, 'y')``) and ``v``
(float32[8] on ``P('x')``), and ``T``, which records ``tag:typeof(value)``), so
tests/test_sharding_in_types_custom.py runs the same ones without importing JAX. Each program
is made anew for each use (JAX caches the traces of a custom function by identity).

Recorded per case: the set of ``tag:type`` seen while tracing ``make_jaxpr(f)`` (sorted: JAX
traces a custom_jvp function's primal body only where it stages it, spmd also under
differentiation, so the order and count differ, not the types), the jaxpr text (derivative
programs too: grad seeds its cotangent with a ``reshard`` equation, and transposes give each
cotangent its operand's type, with ``reshape`` equations where needed; two cases excepted,
see CASES), and the types of ``jit(f)``'s results; or the error's class name.
"""

from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path

# ---------------------------------------------------------------------------------------------
# custom_jvp


def _jvp_fun(ns):
    @ns.jax.custom_jvp
    def f(x, y):
        ns.T("f.x", x)
        ns.T("f.y", y)
        out = ns.jnp.sin(x) * y
        ns.T("f.out", out)
        return out

    @f.defjvp
    def f_jvp(primals, tangents):
        x, y = primals
        xd, yd = tangents
        ns.T("jvp.x", x)
        ns.T("jvp.xd", xd)
        ns.T("jvp.y", y)
        out = f(x, y)
        ns.T("jvp.out", out)
        return out, ns.jnp.cos(x) * xd * y + ns.jnp.sin(x) * yd

    return f


def _jvp_primal(ns):
    return _jvp_fun(ns)


def _jvp_jvp(ns):
    f = _jvp_fun(ns)
    return lambda a: ns.jax.jvp(lambda x: f(x, x), (a,), (a,))


def _jvp_grad(ns):
    f = _jvp_fun(ns)
    return ns.jax.grad(lambda x, y: (f(x, y) * ns.b).sum(), argnums=(0, 1))


def _jvp_vmap(ns):
    return ns.jax.vmap(_jvp_fun(ns))


def _jvp_closure(ns):
    f = _jvp_fun(ns)
    return lambda a: f(a, ns.b)


def _jvp_closure_grad(ns):
    f = _jvp_fun(ns)
    return ns.jax.grad(lambda a: f(a, ns.b).sum())


def _jvp_nondiff(ns):
    @partial(ns.jax.custom_jvp, nondiff_argnums=(0,))
    def f(k, x):
        ns.T("f.x", x)
        return ns.jnp.sin(x) * k

    @f.defjvp
    def f_jvp(k, primals, tangents):
        ns.T("jvp.x", primals[0])
        ns.T("jvp.xd", tangents[0])
        return f(k, primals[0]), tangents[0] * k

    return ns.jax.grad(lambda a: (f(2.0, a) * ns.b).sum())


def _jvp_ambiguous(ns):
    @ns.jax.custom_jvp
    def f(x, w):
        return x @ w

    f.defjvp(lambda p, t: (f(*p), t[0] @ p[1] + p[0] @ t[1]))
    return f


def _jvp_rule_ambiguous(ns):
    # The primal body is fine; the jvp rule contracts the sharded dimension of its tangent.
    @ns.jax.custom_jvp
    def f(x, w):
        return x * 2

    f.defjvp(lambda p, t: (f(*p), t[0] @ p[1]))
    return ns.jax.grad(lambda x, w: f(x, w).sum())


# ---------------------------------------------------------------------------------------------
# custom_vjp


def _vjp_fun(ns, reduce=True):
    @ns.jax.custom_vjp
    def g(x):
        ns.T("g.x", x)
        out = ns.jnp.sin(x).sum(1) if reduce else ns.jnp.sin(x) * 2
        ns.T("g.out", out)
        return out

    def g_fwd(x):
        ns.T("fwd.x", x)
        return g(x), ns.jnp.cos(x)

    def g_bwd(r, ct):
        ns.T("bwd.r", r)
        ns.T("bwd.ct", ct)
        return (r * ct[:, None],) if reduce else (r * ct,)

    g.defvjp(g_fwd, g_bwd)
    return g


def _vjp_primal(ns):
    return _vjp_fun(ns)


def _vjp_grad(ns):
    # The cotangent reaches bwd typed through the product with ns.v (float32[8@x]).
    g = _vjp_fun(ns)
    return ns.jax.grad(lambda a: (g(a) * ns.v).sum())


def _vjp_vmap(ns):
    return ns.jax.vmap(_vjp_fun(ns, reduce=False))


def _vjp_vmap_grad(ns):
    g = _vjp_fun(ns, reduce=False)
    return ns.jax.vmap(ns.jax.grad(lambda r: (g(r) * ns.b[0]).sum()))


def _vjp_closure(ns):
    @ns.jax.custom_vjp
    def g(x):
        ns.T("g.x", x)
        return x * ns.b

    def g_fwd(x):
        ns.T("fwd.x", x)
        return g(x), None

    def g_bwd(_, ct):
        ns.T("bwd.ct", ct)
        return (ct * ns.b,)

    g.defvjp(g_fwd, g_bwd)
    return g


def _vjp_closure_grad(ns):
    g = _vjp_closure(ns)
    return ns.jax.grad(lambda a: (g(a) * a).sum())


def _vjp_ambiguous(ns):
    @ns.jax.custom_vjp
    def g(x, w):
        return x @ w

    g.defvjp(lambda x, w: (g(x, w), None), lambda r, ct: (ct, ct))
    return g


def _vjp_bwd_ambiguous(ns):
    @ns.jax.custom_vjp
    def g(x, w):
        return x * 2

    g.defvjp(lambda x, w: (x * 2, (x, w)), lambda r, ct: (ct, r[0] @ r[1]))
    return ns.jax.grad(lambda x, w: g(x, w).sum(), argnums=1)


# ---------------------------------------------------------------------------------------------
# checkpoint, custom_vmap, named_call, linear_call


def _remat_body(ns):
    def h(x):
        ns.T("remat.x", x)
        y = ns.jnp.sin(ns.jnp.sin(x)) * ns.b
        ns.T("remat.y", y)
        return y

    return h


def _remat(ns):
    return ns.jax.checkpoint(_remat_body(ns))


def _remat_jvp(ns):
    h = ns.jax.checkpoint(_remat_body(ns))
    return lambda a: ns.jax.jvp(h, (a,), (a,))


def _remat_vmap(ns):
    return ns.jax.vmap(ns.jax.checkpoint(lambda x: (ns.T("remat.x", x), ns.jnp.sin(x) * 2)[1]))


def _remat_grad(ns):
    h = ns.jax.checkpoint(_remat_body(ns))
    return ns.jax.grad(lambda a: h(a).sum())


def _remat_policy_grad(ns):
    policy = ns.jax.checkpoint_policies.everything_saveable
    h = ns.jax.checkpoint(_remat_body(ns), policy=policy)
    return ns.jax.grad(lambda a: h(a).sum())


def _custom_vmap_fun(ns):
    @ns.jax.custom_batching.custom_vmap
    def cv(x):
        ns.T("cv.x", x)
        return ns.jnp.sin(x) * ns.b

    @cv.def_vmap
    def rule(axis_size, in_batched, x):
        ns.T("rule.x", x)
        return ns.jnp.cos(x) * ns.b, in_batched[0]

    return cv


def _custom_vmap(ns):
    return _custom_vmap_fun(ns)


def _custom_vmap_vmap(ns):
    return ns.jax.vmap(_custom_vmap_fun(ns))


def _named_call(ns):
    return ns.jax.named_call(_remat_body(ns), name="body")


def _named_call_jit(ns):
    return ns.jax.jit(ns.jax.named_call(_remat_body(ns), name="body"))


def _custom_vmap_jvp(ns):
    # No closed-over value: its zero tangent would print as an untyped broadcast in spmd.
    @ns.jax.custom_batching.custom_vmap
    def cv(x, y):
        ns.T("cv.x", x)
        return ns.jnp.sin(x) * y

    cv.def_vmap(lambda axis_size, in_batched, x, y: (x * y, in_batched[0]))
    return lambda a, b: ns.jax.jvp(cv, (a, b), (a, b))


def _custom_gradient_fun(ns):
    @ns.jax.custom_gradient
    def f(x):
        ns.T("cg.x", x)

        def vjp_fn(g):
            ns.T("cg.g", g)
            return g * ns.jnp.cos(x) * ns.b

        return ns.jnp.sin(x), vjp_fn

    return f


def _custom_gradient(ns):
    return _custom_gradient_fun(ns)


def _custom_gradient_grad(ns):
    f = _custom_gradient_fun(ns)
    return ns.jax.grad(lambda a: (f(a) * a).sum())


def _closure_convert(ns):
    def f(a):
        g, consts = ns.jax.closure_convert(lambda y: (ns.T("cc.y", y), y * ns.b * a)[1], a)
        return g(a, *consts)

    return f


def _linear_call(ns):
    def fun(r, x):
        ns.T("fun.r", r)
        ns.T("fun.x", x)
        return x * r

    def fun_t(r, ct):
        ns.T("fun_t.ct", ct)
        return ct * r

    return lambda a: ns.jax.custom_derivatives.linear_call(fun, fun_t, ns.b, a)


def _linear_call_grad(ns):
    f = _linear_call(ns)
    return ns.jax.grad(lambda a: (f(a) * a).sum())


# name -> (program(ns), input specs of float32[8,4] arrays (a "w" spec marks float32[4,4]),
# whether its jaxpr text is not recorded: two derivative programs whose text differs from
# spmd's in ways outside sharding in types (vmap of x[0] is a gather in JAX, a slice in spmd,
# with NumPy-integer axes; a remat policy's saved residuals come in another order))
CASES = {
    "jvp_primal": (_jvp_primal, [("x", None), (None, "y")], False),
    "jvp_jvp": (_jvp_jvp, [("x", None)], False),
    "jvp_grad": (_jvp_grad, [("x", None), ("x", None)], False),
    "jvp_vmap": (_jvp_vmap, [("x", None), ("x", "y")], False),
    "jvp_closure": (_jvp_closure, [("x", None)], False),
    "jvp_closure_grad": (_jvp_closure_grad, [("x", None)], False),
    "jvp_nondiff_grad": (_jvp_nondiff, [("x", None)], False),
    "jvp_ambiguous": (_jvp_ambiguous, [("x", "y"), ("w", "y", None)], False),
    "jvp_rule_ambiguous": (_jvp_rule_ambiguous, [("x", "y"), ("w", "y", None)], False),
    "vjp_primal": (_vjp_primal, [("x", None)], False),
    "vjp_grad": (_vjp_grad, [("x", None)], False),
    "vjp_vmap": (_vjp_vmap, [(None, "y")], False),
    "vjp_vmap_grad": (_vjp_vmap_grad, [("x", None)], True),
    "vjp_closure": (_vjp_closure, [("x", None)], False),
    "vjp_closure_grad": (_vjp_closure_grad, [(None, "y")], False),
    # bwd's cotangent float32[8@x,4@y] for an input float32[8@x,4]: JAX's ValueError.
    "vjp_bwd_type_error": (_vjp_closure_grad, [("x", None)], False),
    "vjp_ambiguous": (_vjp_ambiguous, [("x", "y"), ("w", "y", None)], False),
    "vjp_bwd_ambiguous": (_vjp_bwd_ambiguous, [("x", "y"), ("w", "y", None)], False),
    "remat": (_remat, [("x", None)], False),
    "remat_jvp": (_remat_jvp, [("x", None)], False),
    "remat_vmap": (_remat_vmap, [("x", None)], False),
    "remat_grad": (_remat_grad, [("x", None)], False),
    "remat_policy_grad": (_remat_policy_grad, [("x", None)], True),
    "custom_vmap": (_custom_vmap, [("x", None)], False),
    "custom_vmap_vmap": (_custom_vmap_vmap, [("x", None)], False),
    "named_call": (_named_call, [("x", None)], False),
    "named_call_jit": (_named_call_jit, [("x", None)], False),
    "custom_vmap_jvp": (_custom_vmap_jvp, [("x", None), (None, "y")], False),
    "custom_gradient": (_custom_gradient, [("x", None)], False),
    "custom_gradient_grad": (_custom_gradient_grad, [("x", "y")], False),
    "closure_convert": (_closure_convert, [("x", None)], False),
    "linear_call": (_linear_call, [("x", None)], False),
    "linear_call_grad": (_linear_call_grad, [(None, "y")], False),
}


def inputs(np, specs):
    """The arguments' values and PartitionSpec entries."""
    out = []
    for spec in specs:
        shape = (4, 4) if spec[0] == "w" else (8, 4)
        entries = spec[1:] if spec[0] == "w" else spec
        x = (np.arange(int(np.prod(shape))) % 7).astype(np.float32).reshape(shape) + 1
        out.append((x, entries))
    return out


def setup(ns, np):
    """The namespace's placed constants and recorder (``ns.jax``, ``ns.mesh`` and ``ns.named``
    set)."""
    ns.b = ns.jax.device_put(
        (np.arange(32) % 5).astype(np.float32).reshape(8, 4) + 1, ns.named(ns.P(None, "y"))
    )
    ns.v = ns.jax.device_put(np.arange(8, dtype=np.float32) + 1, ns.named(ns.P("x")))
    ns.seen = []
    ns.T = lambda tag, x: ns.seen.append(f"{tag}:{ns.jax.typeof(x)}")


def run_case(ns, name: str, arrays) -> dict:
    make, _, no_text = CASES[name]
    ns.seen = []
    try:
        text = str(ns.jax.make_jaxpr(make(ns))(*arrays))
    except Exception as e:  # noqa: BLE001 - the error is the golden value
        return {"error": type(e).__name__}
    rec = {"seen": sorted(set(ns.seen))}
    if not no_text:
        rec["jaxpr"] = text
    ns.seen = []
    # Run under the mesh: JAX asks for it to run some of these programs.
    with ns.jax.set_mesh(ns.mesh):
        out = ns.jax.jit(make(ns))(*arrays)
    rec["out"] = [str(ns.jax.typeof(x)) for x in ns.jax.tree.leaves(out)]
    return rec


def main() -> None:
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    import types

    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    ns = types.SimpleNamespace(jax=jax, jnp=jnp, P=P)
    ns.mesh = mesh
    ns.named = lambda spec: NamedSharding(mesh, spec)
    setup(ns, np)
    out = {}
    for name, (_, specs, _) in CASES.items():
        arrays = [jax.device_put(x, ns.named(P(*s))) for x, s in inputs(np, specs)]
        out[name] = run_case(ns, name, arrays)
    path = Path(__file__).resolve().parent.parent / "golden" / "sharding_in_types_custom.json"
    path.write_text(json.dumps({"jax": jax.__version__, "cases": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
