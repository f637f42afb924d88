"""Explicit sharding along the lines of JAX's tutorial (tests/golden_gen/explicit_sharding_gen.py):
every line the program says equals what JAX 0.10 says."""

from __future__ import annotations

import importlib.util
import json
import types
from pathlib import Path

import numpy as np

import spmd
import spmd.numpy as jnp
from spmd.sharding import AxisType, reshard
from spmd.sharding import PartitionSpec as P

_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location(
    "explicit_sharding_gen", _HERE / "golden_gen" / "explicit_sharding_gen.py"
)
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)
GOLDEN = json.loads((_HERE / "golden" / "explicit_sharding.json").read_text())["lines"]


def test_lines_match_jax():
    lines = []
    ns = types.SimpleNamespace(jax=spmd, jnp=jnp, np=np, P=P, AxisType=AxisType, reshard=reshard)
    gen.program(ns, lambda *a: lines.append(" ".join(str(x) for x in a)))
    assert lines == GOLDEN
