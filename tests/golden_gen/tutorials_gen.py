"""Golden records of JAX's tutorials run as programs (tests/tutorials/):

- ``tests/golden/tutorials/NAME.json``: the program ``tests/tutorials/NAME_tutorial.py`` run in
  a process of its own on 8 CPU devices, every cell's record (``{"jax_version", "cells"}``);
- ``tests/golden/tutorials_multiprocess.json``: the multi-controller page's programs run as
  two JAX processes of 4 CPU devices each (gloo collectives), both ranks' records.

Run with a Python that has JAX: ``python tests/golden_gen/tutorials_gen.py [NAME ...]`` (names:
those programs only; none: every program and the multi-controller job).
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
MULTI = "multi_controller"  # a job of two processes, not a program of run.py's


def programs() -> list[str]:
    names = (p.name.removesuffix("_tutorial.py") for p in TUTORIALS.glob("*_tutorial.py"))
    return sorted(n for n in names if n != MULTI)


def single_process(name: str, tmp: str) -> dict:
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
    out = Path(tmp, f"{name}.json")
    run = [sys.executable, str(TUTORIALS / "run.py"), "jax", name, str(out)]
    subprocess.run(run, env=env, check=True, timeout=600)
    return json.loads(out.read_text())


def two_processes(tmp: str) -> dict:
    return two_jax_processes(TUTORIALS / "multi_controller_tutorial.py", tmp)


def write(path: Path, records: dict) -> None:
    path.write_text(json.dumps(records, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}")


def main(names: list[str]) -> None:
    import jax

    unknown = sorted(set(names) - set(programs()))
    if unknown:
        raise SystemExit(f"no program tests/tutorials/NAME_tutorial.py for {unknown}")
    with tempfile.TemporaryDirectory() as tmp:
        for name in names or programs():
            cells = single_process(name, tmp)
            write(
                GOLDEN / "tutorials" / f"{name}.json",
                {"jax_version": jax.__version__, "cells": cells},
            )
        if not names:
            multi = two_processes(tmp)
            write(GOLDEN / "tutorials_multiprocess.json", {**multi, "jax_version": jax.__version__})


if __name__ == "__main__":
    main(sys.argv[1:])
