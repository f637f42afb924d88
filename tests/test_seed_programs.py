"""The seed programs run unchanged (imports swapped) and print what JAX 0.10 prints.

Each ``tests/seed_programs/seed_*.py`` is a seed notebook's code, cell by cell at its own sizes
(seed 001 draws 60 million normals), importing spmd as ``jax``. It runs here in a fresh process
on spmd's 8 default devices; its output must equal, line by line, what the same program printed
under JAX 0.10.2 on 8 CPU devices (``tests/golden/seed_programs/*.out``, recorded by
``tests/golden_gen/seed_programs_gen.py``). Text must match exactly; numbers in the text within
float32 tolerance (a different summation order moves the last printed digit). For seeds 000 and
002 JAX 0.10's output is also the seed's printed output, character for character.

Deliberate differences are listed below with the reason, and checked: spmd must print exactly
the listed line there.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

TESTS = Path(__file__).resolve().parent
PROGRAMS = sorted((TESTS / "seed_programs").glob("seed_*.py"))

# (program, line number from 1) -> (what spmd prints, why it is not what JAX 0.10 prints).
DELIBERATE: dict[tuple[str, int], tuple[str, str]] = {
    ("seed_001", 4): (
        "\N{CROSS MARK}\N{POLICE CARS REVOLVING LIGHT}compiling computation that requires "
        "10000000 logical devices, but only 8 XLA devices are available (num_replicas=10000000, "
        "num_partitions=1)",
        "JAX 0.10 fails inside pmap's squeeze with a message about shapes; spmd gives the "
        "seed's message (and, on the following lines of the error, how to reshape)",
    ),
}

_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _agree(got: str, want: str) -> bool:
    """Same text, numbers equal to float32 tolerance (whitespace runs may differ in length:
    NumPy pads columns to the widest number)."""
    g_text, w_text = _NUMBER.split(got), _NUMBER.split(want)
    if [" ".join(t.split()) for t in g_text] != [" ".join(t.split()) for t in w_text]:
        return False
    g_num, w_num = _NUMBER.findall(got), _NUMBER.findall(want)
    for g, w in zip(g_num, w_num, strict=True):
        if _is_int(g) and _is_int(w):
            if int(g) != int(w):
                return False
        elif not np.isclose(float(g), float(w), rtol=1e-6, atol=1e-6):
            return False
    return True


def _is_int(token: str) -> bool:
    return not any(c in token for c in ".eE")


@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_seed_program_prints_what_jax_prints(program):
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    # One BLAS thread: the suite runs two workers on two cores.
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    run = subprocess.run([sys.executable, str(program)], capture_output=True, text=True,
                         env=env, timeout=600, check=False)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    got = run.stdout.splitlines()
    want = (TESTS / "golden" / "seed_programs" / f"{program.stem}.out").read_text().splitlines()
    assert len(got) == len(want), "\n".join(got)
    for n, (g, w) in enumerate(zip(got, want), start=1):
        deliberate = DELIBERATE.get((program.stem, n))
        if deliberate is not None:
            assert g == deliberate[0], f"line {n}: {g!r}"
        else:
            assert _agree(g, w), f"{program.name} line {n}:\n spmd: {g}\n  jax: {w}"


def test_deliberate_differences_name_real_lines():
    for (stem, n), _ in DELIBERATE.items():
        lines = (TESTS / "golden" / "seed_programs" / f"{stem}.out").read_text().splitlines()
        assert n <= len(lines)


def test_agree_is_strict_about_text_and_numbers():
    assert _agree("Array([ 0.73252517, -1.2848393 ], dtype=float32)",
                  "Array([ 0.73252517, -1.2848394 ], dtype=float32)")  # fmt: skip
    assert not _agree(
        "Array([0.7325, -1.28], dtype=float32)", "Array([0.7325, -1.2], dtype=float32)"
    )
    assert not _agree("Array([1.0], dtype=float32)", "Array([1.0], dtype=float64)")
    assert not _agree("(8, 1250000)", "(8, 1250001)")
