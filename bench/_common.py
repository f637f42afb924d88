"""Pieces the benchmarks share: where to find an interpreter with JAX."""

from __future__ import annotations

import importlib.util
import os
import sys

# Environment variable naming a Python interpreter that has JAX (e.g. another virtualenv's).
ENV_JAX_PYTHON = "SPMD_BENCH_JAX_PYTHON"


def find_jax_python(explicit: str | None) -> tuple[str | None, str]:
    """The interpreter to run JAX with, and why that one (or why none)."""
    if explicit:
        return explicit, "--jax-python"
    env = os.environ.get(ENV_JAX_PYTHON)
    if env:
        return env, ENV_JAX_PYTHON
    if importlib.util.find_spec("jax") is not None:
        return sys.executable, "current interpreter"
    return None, "not found"


def instrumented_program(program, clock):
    """A compiled spmd program (``dispatch.compile_jaxpr``'s result) re-executed from its
    generated source with a clock reading after each kernel call: ``(run, spent, eqns)`` where
    ``run(*args)`` calls it once and ``spent[i]`` accumulates the seconds of equation ``eqns[i]``
    (one assignment per equation, in source order)."""
    eqns = program.__spmd_eqns__
    lines, n = [], 0
    for line in program.__spmd_source__.splitlines():
        lines.append(line)
        if line.startswith("    ") and " = " in line and not line.lstrip().startswith("return"):
            lines.append(f"    _tick({n})")
            n += 1
    assert n == len(eqns), "one assignment per equation"
    spent, last = [0.0] * n, [0.0]

    def tick(i):
        t = clock()
        spent[i] += t - last[0]
        last[0] = t

    ns = dict(program.__globals__, _tick=tick)
    exec(compile("\n".join(lines), "<profiled program>", "exec"), ns)
    timed = ns["_program"]

    def run(*args):
        last[0] = clock()
        return timed(*args)

    return run, spent, eqns
