"""Explicit sharding along the lines of JAX's tutorial (tests/golden_gen/explicit_sharding_gen.py):
every line the program says equals what JAX 0.10 says."""

from __future__ import annotations

import types

import numpy as np
from golden_compare import load_golden_family

import spmd
import spmd.numpy as jnp
from spmd.sharding import AxisType, reshard
from spmd.sharding import PartitionSpec as P

gen, GOLDEN = load_golden_family("explicit_sharding", "lines")


def test_lines_match_jax():
    lines = []
    ns = types.SimpleNamespace(jax=spmd, jnp=jnp, np=np, P=P, AxisType=AxisType, reshard=reshard)
    gen.program(ns, lambda *a: lines.append(" ".join(str(x) for x in a)))
    assert lines == GOLDEN
