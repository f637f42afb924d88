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
