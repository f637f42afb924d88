"""Record JAX 0.10's results for the vmap/jit/make_jaxpr cells of seed notebook 001 into
``tests/golden/seed001.json`` (read by ``tests/test_seed_001.py``).

Run with real JAX (not spmd):  ``/path/to/jax/python tests/golden_gen/seed001_gen.py``.

The notebook draws ``vs = random.normal(random.PRNGKey(42), shape=(16, 3))``, splits it into
``v1s = vs[:8]`` and ``v2s = vs[8:]`` and maps ``dot(v1, v2) = jnp.vdot(v1, v2)`` over the rows
with ``jax.vmap``, ``jax.jit(jax.vmap(dot))``, and prints their jaxprs. The notebook's own
outputs come from an old JAX (other random bits, ``xla_call`` in jaxprs); the goldens are
today's. Float32 values are stored as their bit patterns (uint32), so they compare exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "golden" / "seed001.json"


def bits(x) -> dict:
    a = np.asarray(x)
    assert a.dtype == np.float32, a.dtype
    return {"shape": list(a.shape), "bits": a.view(np.uint32).ravel().tolist()}


def main() -> None:
    import jax
    import jax.numpy as jnp
    from jax import random

    def dot(v1, v2):
        return jnp.vdot(v1, v2)

    vs = random.normal(random.PRNGKey(42), shape=(16, 3))
    v1s, v2s = vs[:8, :], vs[8:, :]
    golden = {
        "jax_version": jax.__version__,
        "key_data": np.asarray(random.PRNGKey(42)).tolist(),
        "vs": bits(vs),
        "dot_ones": bits(dot(jnp.ones(shape=(3,)), jnp.ones(shape=(3,)))),
        "vmap_dot": bits(jax.vmap(dot)(v1s, v2s)),
        "jit_vmap_dot": bits(jax.jit(jax.vmap(dot))(v1s, v2s)),
        "vmap_dot_repr": repr(jax.vmap(dot)(v1s, v2s)),
        "jaxpr_vmap_dot": str(jax.make_jaxpr(jax.vmap(dot))(v1s, v2s)),
        "jaxpr_jit_vmap_dot": str(jax.make_jaxpr(jax.jit(jax.vmap(dot)))(v1s, v2s)),
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
