"""Golden records of JAX's parallelism tutorials run as programs (tests/tutorials/):

- ``tests/golden/tutorials.json``: the shard_map and distributed-arrays tutorials, each run in
  a process of its own on 8 CPU devices, every cell's record;
- ``tests/golden/tutorials_multiprocess.json``: the multi-controller page's programs run as
  two JAX processes of 4 CPU devices each (gloo collectives), both ranks' records.

Run with a Python that has JAX: ``python tests/golden_gen/tutorials_gen.py``.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from multiprocess_gen import two_jax_processes  # (this directory is on sys.path as the script's)

HERE = Path(__file__).resolve().parent
TUTORIALS = HERE.parent / "tutorials"
GOLDEN = HERE.parent / "golden"
PROGRAMS = ("shard_map", "distributed_arrays")


def single_process(tmp: str) -> dict:
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
    records = {}
    for name in PROGRAMS:
        out = Path(tmp, f"{name}.json")
        run = [sys.executable, str(TUTORIALS / "run.py"), "jax", name, str(out)]
        subprocess.run(run, env=env, check=True, timeout=600)
        records[name] = json.loads(out.read_text())
    return records


def two_processes(tmp: str) -> dict:
    return two_jax_processes(TUTORIALS / "multi_controller_tutorial.py", tmp)


def main() -> None:
    import jax

    with tempfile.TemporaryDirectory() as tmp:
        single = single_process(tmp)
        multi = two_processes(tmp)
    for records, name in ((single, "tutorials"), (multi, "tutorials_multiprocess")):
        records["jax_version"] = jax.__version__
        out = GOLDEN / f"{name}.json"
        out.write_text(json.dumps(records, indent=1, sort_keys=True) + "\n")
        print(f"wrote {out}")


if __name__ == "__main__":
    main()
