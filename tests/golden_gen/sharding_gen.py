"""Record JAX's shard index math and sharding pictures (run with JAX, 8 CPU devices)."""

import io
import json
import os
import sys
from contextlib import redirect_stdout
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from cases_sharding import MESHES, all_cases  # noqa: E402
from jax.sharding import AxisType, NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402


def idx_json(idx):
    return [[s.start, s.stop] for s in idx]


def main() -> None:
    out = {}
    meshes = {
        k: jax.make_mesh(shape, names, axis_types=(AxisType.Auto,) * len(names))
        for k, (shape, names) in MESHES.items()
    }
    for name, mesh_name, shape, spec in all_cases():
        s = NamedSharding(meshes[mesh_name], P(*spec))
        arr = jax.device_put(jnp.zeros(shape), s)
        rec = {
            "shard_shape": list(s.shard_shape(shape)),
            "indices": {str(d.id): idx_json(i) for d, i in s.devices_indices_map(shape).items()},
            "shards": [
                [sh.device.id, idx_json(sh.index), sh.replica_id] for sh in arr.addressable_shards
            ],
            "repr": repr(s),
            "fully_replicated": s.is_fully_replicated,
        }
        if len(shape) <= 2:
            buf = io.StringIO()
            with redirect_stdout(buf):
                jax.debug.visualize_sharding(shape, s, use_color=False)
            rec["picture"] = buf.getvalue()
        out[name] = rec
    path = Path(__file__).resolve().parent.parent / "golden" / "sharding.json"
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(out)} cases to {path}")


if __name__ == "__main__":
    main()
