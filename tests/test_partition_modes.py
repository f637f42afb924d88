"""The sharding tests in both modes: with ``spmd_partition='always'`` every jit over sharded
arguments runs through the partitioner (one shard_map body with inserted collectives) instead of
computing on the global data; the same tests must pass, with the same values and shardings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parent
SHARDING_TESTS = ["test_sharding.py", "test_jit_shardings.py", "test_seed_004.py",
                  "test_shard_map.py", "test_seed_programs.py",
                  "test_sharding_propagation.py", "test_sharding_backward.py",
                  "test_debugging.py"]  # fmt: skip


def test_sharding_tests_pass_with_every_jit_partitioned():
    env = {**os.environ, "SPMD_PARTITION": "always", "OMP_NUM_THREADS": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x",
         *[str(TESTS / t) for t in SHARDING_TESTS]],
        env=env, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "[100%]" in run.stdout  # the run reached its end
