"""Record JAX's result shardings of eager operations on sharded arrays (Auto mesh axes)."""

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from cases_sharding import MESHES  # noqa: E402
from cases_sharding_ops import CASES, OPS  # noqa: E402
from jax.sharding import AxisType, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402


def spec_json(s):
    if not isinstance(s, NamedSharding):
        return None
    return [list(e) if isinstance(e, tuple) else e for e in s.spec]


def main() -> None:
    meshes = {
        k: jax.make_mesh(shape, names, axis_types=(AxisType.Auto,) * len(names))
        for k, (shape, names) in MESHES.items()
    }
    out = {}
    for name, mesh_key, shape, spec, op in CASES:
        x = jax.device_put(
            jnp.arange(float(jnp.prod(jnp.array(shape)))).reshape(shape),
            NamedSharding(meshes[mesh_key], P(*spec)),
        )
        r = OPS[op](jnp, x)
        out[name] = spec_json(r.sharding)
    path = Path(__file__).resolve().parent.parent / "golden" / "sharding_ops.json"
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(out)} cases to {path}")


if __name__ == "__main__":
    main()
