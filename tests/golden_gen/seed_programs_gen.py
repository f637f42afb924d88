"""Record what JAX 0.10 prints for the seed programs (``tests/seed_programs/seed_*.py``) into
``tests/golden/seed_programs/seed_*.out`` (read by ``tests/test_seed_programs.py``).

The programs import spmd (``import spmd as jax``); here they run with the import swapped back
to JAX, on 8 CPU devices::

    XLA_FLAGS=--xla_force_host_platform_device_count=8 /path/to/jax/python \\
        tests/golden_gen/seed_programs_gen.py [NAME ...]

With names (``seed_004_approaches``, or glob patterns such as ``'seed_00[01]'``), only those
programs are rerun; the others' recorded outputs are left as they are.
"""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
SRC = TESTS / "seed_programs"
OUT = TESTS / "golden" / "seed_programs"


def as_jax(source: str) -> str:
    """The program with its spmd imports written as JAX imports."""
    source = re.sub(r"^import spmd as jax$", "import jax", source, flags=re.M)
    source = re.sub(r"^import spmd\.(\w+) as", r"import jax.\1 as", source, flags=re.M)
    return re.sub(r"^from spmd(\.\w+)* import", r"from jax\1 import", source, flags=re.M)


def programs(names: list[str]) -> list[Path]:
    """The seed programs named (stems or glob patterns of stems), or all of them."""
    found = sorted(SRC.glob("seed_*.py"))
    if not names:
        return found
    chosen = [p for p in found if any(fnmatch.fnmatchcase(p.stem, n) for n in names)]
    missing = [n for n in names if not any(fnmatch.fnmatchcase(p.stem, n) for p in found)]
    if missing:
        raise SystemExit(f"no seed program named {missing}; have {[p.stem for p in found]}")
    return chosen


def main(argv: list[str] | None = None) -> None:
    names = sys.argv[1:] if argv is None else argv
    OUT.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
    for prog in programs(names):
        source = as_jax(prog.read_text())
        assert "spmd" not in source, f"{prog.name}: an import was not swapped"
        run = subprocess.run([sys.executable, "-c", source], env=env, capture_output=True,
                             text=True, check=True)  # fmt: skip
        (OUT / f"{prog.stem}.out").write_text(run.stdout)
        print(f"{prog.name}: {len(run.stdout.splitlines())} lines")


if __name__ == "__main__":
    main()
