"""Record JAX's results of array creation next to sharded operands: the ``*_like`` functions,
``device=`` / ``out_sharding=`` of the creation functions, conversions and copies of placed
arrays (tests/cases_like_sharding.py lists the cases)."""

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jax  # noqa: E402
from cases_like_sharding import run  # noqa: E402


def main() -> None:
    out = run(jax)
    for r in out.values():
        # JAX's wording is not compared (spmd's is tested on its own), nor its class hierarchy
        r.pop("message", None)
        r.pop("classes", None)
    path = Path(__file__).resolve().parent.parent / "golden" / "like_sharding.json"
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(out)} cases to {path}")


if __name__ == "__main__":
    main()
