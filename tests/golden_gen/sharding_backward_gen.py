"""Record JAX 0.10's shardings pulled back from a constraint onto an unplaced argument.

Each program takes an uncommitted input ``x`` (no sharding of its own: JAX lets the compiler
choose it), constrains one function of it with ``with_sharding_constraint`` and also returns
``x + 1``: the second result shows the sharding propagation gave ``x`` by walking backward from the
constraint through the program's operations (elementwise, transpose, reshape, reduction,
contraction, broadcast, slice, concatenate). The constraint's spec runs over every spec of the
constrained value on (8,), (2,4) and (4,2) Auto meshes.

Run with the JAX oracle (8 host devices). Importing this module does not import JAX: the cases
live here, so tests/test_sharding_backward.py drives spmd through the same sweep.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sharding_jit_gen import MESHES, _key, inputs, spec_json, specs_for  # noqa: E402

SHAPE = (8, 16)


def _w(ns):
    return ns.jnp.arange(16.0 * 24).reshape(16, 24) / 7


# name -> (f(ns, x) -> the constrained value, its rank).
PROGRAMS = {
    "elementwise": (lambda ns, x: ns.jnp.sin(x) * 2, 2),
    "transpose": (lambda ns, x: x.T * 2, 2),
    "reshape_merge": (lambda ns, x: x.reshape(4, 32), 2),
    "reshape_split": (lambda ns, x: x.reshape(8, 2, 8), 3),
    "reshape_flat": (lambda ns, x: x.reshape(128), 1),
    "sum0": (lambda ns, x: x.sum(axis=0), 1),
    "sum1": (lambda ns, x: x.sum(axis=1), 1),
    "matmul": (lambda ns, x: x @ _w(ns), 2),
    "broadcast": (lambda ns, x: ns.jnp.broadcast_to(x, (4, 8, 16)), 3),
    "expand_dims": (lambda ns, x: x[None] * 2, 3),
    "slice": (lambda ns, x: x[:, 4:12], 2),
    "concat": (lambda ns, x: ns.jnp.concatenate([x, x], axis=1), 2),
}


def program(ns, name, spec):
    f, _ = PROGRAMS[name]
    sharding = ns.NamedSharding(ns.mesh, ns.P(*spec))

    def g(x):
        return ns.lax.with_sharding_constraint(f(ns, x), sharding), x + 1

    return g


def cases():
    """(name, mesh key, program name, constraint spec)."""
    out = []
    for mk, (_, names) in MESHES.items():
        for prog, (_, rank) in PROGRAMS.items():
            for spec in specs_for(rank, names):
                out.append((f"{mk}:{prog}:{_key([spec])}", mk, prog, spec))
    return out


def main() -> None:
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    import types

    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    meshes = {
        mk: jax.make_mesh(shape, names, axis_types=(AxisType.Auto,) * len(names))
        for mk, (shape, names) in MESHES.items()
    }
    (x,) = inputs(np, [SHAPE])
    out = {}
    for name, mk, prog, spec in cases():
        ns = types.SimpleNamespace(jax=jax, jnp=jnp, lax=lax, NamedSharding=NamedSharding, P=P)
        ns.mesh = meshes[mk]
        try:
            a, b = jax.jit(program(ns, prog, spec))(jnp.asarray(x))
        except Exception as e:  # noqa: BLE001 - the error itself is the golden value
            out[name] = {"error": [type(e).__name__, str(e).split("\n")[0]]}
            continue
        out[name] = {
            "constrained": spec_json(a.sharding, NamedSharding),
            "x": spec_json(b.sharding, NamedSharding),
        }
    path = Path(__file__).resolve().parent.parent / "golden" / "sharding_backward.json"
    path.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")
    print(f"wrote {len(out)} cases to {path}")


if __name__ == "__main__":
    sys.exit(main())
