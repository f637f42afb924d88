"""Record JAX 0.10's ``jax.debug.breakpoint`` sessions: a script run with commands on stdin.

Run with the JAX oracle. The script and the command lists live here, so
tests/test_debugger.py runs the same sessions under spmd (the script's first line imports the
library as ``jax``). Recorded per session: the standard output, with the script's path written
``<script>`` (the end of input quits, as in JAX; what is then written to stderr is not compared).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SCRIPT = """{imports}
def f(x, k):
    y = x * 3 + k
    z = y - 1
    jax.debug.breakpoint()
    return z + 1

g = jax.jit(f, static_argnums=1)
print(g(jnp.arange(3.0), 2))
print(jax.vmap(lambda v: f(v, 1))(jnp.arange(2.0)))
"""

SESSIONS = {
    "values": ["p y", "pp z", "p k", "p x + 1", "p nope", "c", "c", "c"],
    "frames": ["l", "w", "u", "p type(f).__name__", "d", "bt", "c", "c", "c"],
    "help_and_eof": ["help", "frobnicate", "y"],
}


def run(python: str, imports: str, session: str, env: dict | None = None) -> str:
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "script.py")
        Path(path).write_text(SCRIPT.format(imports=imports))
        proc = subprocess.run(
            [python, path],
            input="\n".join(SESSIONS[session]) + "\n",
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            check=False,
        )
        # (stdout only: how each library reports the quit at the end of input differs)
        return proc.stdout.replace(path, "<script>")


def main() -> None:
    import jax

    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
    imports = "import jax; import jax.numpy as jnp"
    out = {name: run(sys.executable, imports, name, env) for name in SESSIONS}
    path = Path(__file__).resolve().parent.parent / "golden" / "debugger.json"
    path.write_text(json.dumps({"jax": jax.__version__, "sessions": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
