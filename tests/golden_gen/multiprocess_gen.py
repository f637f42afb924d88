"""Golden records of JAX's multi-process semantics: tests/multiprocess/semantics.py run as two
JAX processes of 4 CPU devices each (gloo collectives), both ranks' records kept.

Run with a Python that has JAX: ``python tests/golden_gen/multiprocess_gen.py``.
"""

import json
import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROGRAM = HERE.parent / "multiprocess" / "semantics.py"
OUT = HERE.parent / "golden" / "multiprocess.json"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def two_jax_processes(program: Path, tmp: str) -> dict:
    """Run ``program jax TMP RANK PORT`` as two JAX processes of 4 CPU devices (gloo
    collectives); each writes ``TMP/rank{r}.json``: both ranks' records."""
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=4"}
    port = str(free_port())
    procs = [
        subprocess.Popen(
            [sys.executable, str(program), "jax", tmp, str(rank), port],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank in range(2)
    ]
    for p in procs:
        _, err = p.communicate(timeout=300)
        if p.returncode:
            sys.exit(f"a JAX process failed:\n{err[-3000:]}")
    return {f"rank{r}": json.loads(Path(tmp, f"rank{r}.json").read_text()) for r in range(2)}


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        records = two_jax_processes(PROGRAM, tmp)
    import jax

    records["jax_version"] = jax.__version__
    OUT.write_text(json.dumps(records, indent=1, sort_keys=True) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
