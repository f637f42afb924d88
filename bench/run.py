"""Run every benchmark: each ``bench/bench_*.py`` module's ``main(argv)``, in name order.

    python bench/run.py                      # all of them
    python bench/run.py dispatch             # only bench_dispatch.py
    python bench/run.py pmap collectives     # the SPMD ones: bench_pmap.py, bench_collectives.py
    python bench/run.py sharding             # sharded arrays and jit: bench_sharding.py
    python bench/run.py --jax-python PATH    # options are passed on to every benchmark

Benchmarks: dispatch (per-call overhead), mlp (a training step), pmap (seed 001's
pmap(vmap(dot)) and pmap/shard_map dispatch), collectives (psum, all_gather, psum_scatter,
all_to_all, ppermute bandwidth next to memcpy), sharding (device_put, jit on sharded arrays and
seed 004's layer with jit, constraints and shard_map), multiprocess (a job of two processes:
psum, all_gather and a data-parallel step, next to JAX's two-process run).

Benchmarks print their own tables; they are not tests and assert nothing.
"""

from __future__ import annotations

import importlib
import sys
import time
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent

# Options of the benchmarks that take no value: the word after one of these is a name.
FLAGS = {"--profile"}


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    # Bare words select benchmarks by name; everything else is for the benchmarks themselves
    # (a word right after an option is that option's value, not a name).
    wanted, passed, prev_opt = [], [], False
    for a in argv:
        if a.startswith("-"):
            passed.append(a)
            prev_opt = "=" not in a and a not in FLAGS
        elif prev_opt:
            passed.append(a)
            prev_opt = False
        else:
            wanted.append(a)
    if str(BENCH_DIR) not in sys.path:
        sys.path.insert(0, str(BENCH_DIR))
    names = [p.stem for p in sorted(BENCH_DIR.glob("bench_*.py"))]
    if wanted:
        unknown = [w for w in wanted if f"bench_{w}" not in names and w not in names]
        if unknown:
            raise SystemExit(f"run.py: no benchmark named {unknown}; have {names}")
        names = [n for n in names if n in wanted or n.removeprefix("bench_") in wanted]
    for name in names:
        print(f"== {name} ==", flush=True)
        start = time.perf_counter()
        importlib.import_module(name).main(passed)
        print(f"({name}: {time.perf_counter() - start:.1f} s)\n", flush=True)


if __name__ == "__main__":
    main()
