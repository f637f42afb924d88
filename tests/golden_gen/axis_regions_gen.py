"""Record JAX 0.10's ``jax.sharding.auto_axes`` and ``explicit_axes``: the types and mesh axis
types seen inside, the result's type and sharding, ``make_jaxpr``'s text, and errors.

Run with the JAX oracle (8 host devices). The programs live here, as functions of a namespace
``ns`` (``jax``, ``jnp``, ``P``, ``NamedSharding``, ``auto_axes``, ``explicit_axes``, ``seen``:
a list the programs append what they see to), so tests/test_axis_regions.py runs the same ones
without importing JAX. Each case runs with its mesh set (``set_mesh``); jaxprs are those of the
un-jitted program, but for the ``*ctx_mesh`` cases, which check the ``ctx_mesh`` parameter a jit
equation traced under ``set_mesh`` prints.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def _look(ns, x):
    ns.seen.append(f"{ns.jax.typeof(x)} {ns.jax.sharding.get_abstract_mesh().axis_types}")


def _auto_matmul(ns):
    def g(a):
        _look(ns, a)
        return a @ a.T

    return lambda a: ns.auto_axes(g, out_sharding=ns.P("x", None))(a) * 2


def _auto_one_axis(ns):
    def g(a):
        _look(ns, a)
        return ns.jnp.sin(a)

    return lambda a: ns.auto_axes(g, axes="x", out_sharding=ns.P("x", "y"))(a)


def _auto_pytree(ns):
    return lambda a: ns.auto_axes(lambda a, b: (a * 2, b + 1), out_sharding=ns.P("x"))(a, a)


def _auto_constraint(ns):
    def g(a):
        return ns.jax.lax.with_sharding_constraint(a, ns.P(None, "x"))

    return lambda a: ns.auto_axes(g, out_sharding=ns.P("x"))(a)


def _explicit_one_axis(ns):
    def g(a):
        _look(ns, a)
        return a * 2

    return lambda a: ns.explicit_axes(g, axes="y", in_sharding=ns.P(None, "y"))(a) + 1


def _explicit_all(ns):
    def g(a, b):
        _look(ns, a)
        return a * 2, b

    return lambda a: ns.explicit_axes(g, in_sharding=(ns.P("x"), ns.P()))(a, a)


# name -> (program(ns), mesh axis type "explicit"|"auto")
CASES = {
    "auto_matmul": (_auto_matmul, "explicit"),
    "auto_one_axis": (_auto_one_axis, "explicit"),
    "auto_pytree": (_auto_pytree, "explicit"),
    "auto_constraint": (_auto_constraint, "explicit"),
    "auto_bad_axis": (
        lambda ns: lambda a: ns.auto_axes(lambda a: a, axes="z", out_sharding=ns.P())(a),
        "explicit",
    ),
    "auto_no_out_sharding": (lambda ns: lambda a: ns.auto_axes(lambda a: a)(a), "explicit"),
    "auto_reshard_inside": (
        lambda ns: (
            lambda a: ns.auto_axes(
                lambda a: ns.jax.sharding.reshard(a, ns.P("x")), out_sharding=ns.P("x")
            )(a)
        ),
        "explicit",
    ),
    "auto_illegal_dot": (
        lambda ns: lambda a: ns.auto_axes(lambda a: a @ a.T, axes="y", out_sharding=ns.P("x"))(a),
        "explicit",
    ),
    "explicit_one_axis": (_explicit_one_axis, "auto"),
    "explicit_all": (_explicit_all, "auto"),
    "explicit_no_in_sharding": (lambda ns: lambda a: ns.explicit_axes(lambda a: a)(a), "auto"),
    # A jit traced with a mesh set records it (ctx_mesh), and so do the calls grad and vmap
    # derive from it.
    "jit_ctx_mesh": (lambda ns: lambda a: ns.jax.jit(lambda b: b * 2)(a), "explicit"),
    "grad_jit_ctx_mesh": (
        lambda ns: lambda a: ns.jax.grad(ns.jax.jit(lambda b: (b * b).sum()))(a),
        "auto",
    ),
    "vmap_jit_ctx_mesh": (lambda ns: ns.jax.vmap(ns.jax.jit(lambda b: b * 2)), "auto"),
}


def _spec(s):
    spec = getattr(s, "spec", None)
    if spec is None:
        return None
    return [list(e) if isinstance(e, tuple) else e for e in spec]


def run_case(ns, name: str, a) -> dict:
    make, _ = CASES[name]
    ns.seen = []
    try:
        text = str(ns.jax.make_jaxpr(make(ns))(a))
    except Exception as e:  # noqa: BLE001 - the error is the golden value
        return {"error": type(e).__name__}
    rec = {"seen": list(ns.seen), "jaxpr": text}
    outs = ns.jax.tree.leaves(ns.jax.jit(make(ns))(a))
    rec["types"] = [str(ns.jax.typeof(x)) for x in outs]
    rec["specs"] = [_spec(x.sharding) for x in outs]
    eager = ns.jax.tree.leaves(make(ns)(a))
    rec["eager_specs"] = [_spec(x.sharding) for x in eager]
    return rec


def main() -> None:
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    import types

    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import AxisType, NamedSharding, auto_axes, explicit_axes
    from jax.sharding import PartitionSpec as P

    ns = types.SimpleNamespace(jax=jax, jnp=jnp, NamedSharding=NamedSharding, P=P)
    ns.auto_axes, ns.explicit_axes = auto_axes, explicit_axes
    out = {}
    for name, (_, kind) in CASES.items():
        t = AxisType.Explicit if kind == "explicit" else AxisType.Auto
        mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(t, t))
        x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
        with jax.set_mesh(mesh):
            a = jax.device_put(x, NamedSharding(mesh, P("x", "y")))
            out[name] = run_case(ns, name, a)
    path = Path(__file__).resolve().parent.parent / "golden" / "axis_regions.json"
    path.write_text(json.dumps({"jax": jax.__version__, "cases": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
