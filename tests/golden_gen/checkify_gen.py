"""Record JAX's checkify: the error messages of user and automatic checks, under jit, vmap,
grad and control flow, and the errors of bad input (cases in tests/cases_checkify.py)."""

import json
import os
import sys
from pathlib import Path

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import jax  # noqa: E402
from cases_checkify import run  # noqa: E402
from jax.experimental import checkify  # noqa: E402


def main() -> None:
    out = run(jax, checkify)
    path = Path(__file__).resolve().parent.parent / "golden" / "checkify.json"
    path.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(out)} cases to {path}")


if __name__ == "__main__":
    main()
