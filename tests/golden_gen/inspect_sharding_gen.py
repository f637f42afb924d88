"""Record what JAX 0.10's ``jax.debug.inspect_array_sharding`` reports inside transformations.

Run with the JAX oracle (8 host devices). Each case (defined here, so that
tests/test_inspect_sharding.py runs exactly the same programs without importing JAX) is a
function of a namespace ``ns`` (``jax``, ``jnp``, ``lax``, ``P``, ``NamedSharding``, the 2x4
``mesh``, the sharded input ``a`` and ``report``, the callback to pass) that runs a program;
recorded: the reported shardings in order (their specs, as JAX prints them), after running the
program twice (the callback runs once per compilation, not per call).
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def _jit_three(ns):
    def f(a):
        ns.jax.debug.inspect_array_sharding(a, callback=ns.report)
        b = a.sum(0)
        ns.jax.debug.inspect_array_sharding(b, callback=ns.report)
        ns.jax.debug.inspect_array_sharding(a @ a.T, callback=ns.report)
        return b

    return ns.jax.jit(f)


def _inspect(ns):
    return lambda x: ns.jax.debug.inspect_array_sharding(x, callback=ns.report)


# name -> program(ns) -> a callable of ``a`` (each case runs it twice).
CASES = {
    "jit": lambda ns: _jit_three(ns),
    "jit_vmap": lambda ns: ns.jax.jit(ns.jax.vmap(_inspect(ns))),
    "vmap_eager": lambda ns: ns.jax.vmap(_inspect(ns)),
    "jit_grad": lambda ns: ns.jax.jit(ns.jax.grad(lambda x: (_inspect(ns)(x), (x * x).sum())[1])),
    "grad_eager": lambda ns: ns.jax.grad(lambda x: (_inspect(ns)(x), (x * x).sum())[1]),
    "shard_map_jit": lambda ns: ns.jax.jit(
        ns.jax.shard_map(
            lambda x: (_inspect(ns)(x), x)[1], mesh=ns.mesh, in_specs=ns.P("x"), out_specs=ns.P("x")
        )
    ),
    "shard_map_eager": lambda ns: ns.jax.shard_map(
        lambda x: (_inspect(ns)(x), x)[1], mesh=ns.mesh, in_specs=ns.P("x"), out_specs=ns.P("x")
    ),
    "constraint_forward": lambda ns: ns.jax.jit(
        lambda a: _inspect(ns)(
            ns.jax.lax.with_sharding_constraint(a * 2, ns.NamedSharding(ns.mesh, ns.P("y")))
        )
    ),
    # The constraint's backward pass reaches the value inspected before it: JAX reports the
    # operand's sharding all the same (the backward pass does not override an input's).
    "constraint_backward": lambda ns: ns.jax.jit(
        lambda a: (
            _inspect(ns)(a * 2),
            ns.jax.lax.with_sharding_constraint(a * 2, ns.NamedSharding(ns.mesh, ns.P("y"))),
        )[1]
    ),
    "cond": lambda ns: ns.jax.jit(
        lambda a: ns.lax.cond(a.sum() > 0, lambda a: (_inspect(ns)(a), a)[1], lambda a: a, a)
    ),
    "scan": lambda ns: ns.jax.jit(
        lambda a: ns.lax.scan(lambda c, r: (_inspect(ns)(r), (c, r))[1], 0.0, a)
    ),
    "matmul_rows_win": lambda ns: ns.jax.jit(
        lambda a: _inspect(ns)(a @ ns.jnp.ones((4, 8)) + a @ a.T)
    ),
}


def spec_json(s) -> list | None:
    spec = getattr(s, "spec", None)
    if spec is None:
        return None
    return [list(e) if isinstance(e, tuple) else e for e in spec]


def main() -> None:
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    import types

    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    out = {}
    for name, make in CASES.items():
        seen = []
        ns = types.SimpleNamespace(jax=jax, jnp=jnp, lax=lax, NamedSharding=NamedSharding, P=P)
        ns.mesh, ns.report = mesh, seen.append
        a = jax.device_put(
            np.arange(32.0, dtype=np.float32).reshape(8, 4), NamedSharding(mesh, P("x", "y"))
        )
        f = make(ns)
        f(a)
        f(a)
        out[name] = [spec_json(s) for s in seen]
    path = Path(__file__).resolve().parent.parent / "golden" / "inspect_sharding.json"
    path.write_text(json.dumps({"jax": jax.__version__, "cases": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
