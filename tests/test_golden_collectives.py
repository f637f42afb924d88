"""Collectives against JAX 0.10.2, bit for bit (``tests/golden/collectives.json``, recorded by
``tests/golden_gen/collectives_gen.py``).

JAX's 1-D results come from ``jax.pmap``; spmd must give them under pmap, under
``vmap(axis_name=...)`` and under shard_map on a 1-D mesh -- with axis_index_groups too, which
JAX accepts only in pmap (the semantics are the same). JAX's 2-D results come from shard_map on
2x4 and 4x2 meshes; spmd must give them eagerly, under jit and in the reference loop.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd._src.shard_map import reference_mode
from spmd.sharding import PartitionSpec as P

_HERE = Path(__file__).parent
G = json.loads((_HERE / "golden" / "collectives.json").read_text())
_spec = importlib.util.spec_from_file_location("collectives_gen", _HERE / "golden_gen" /
                                               "collectives_gen.py")  # fmt: skip
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)


def _want(out: dict) -> np.ndarray:
    dt = np.dtype(out["dtype"])
    raw = np.asarray(out["bits"], np.uint32 if dt == np.float32 else dt)
    return raw.view(dt).reshape(out["shape"]) if dt == np.float32 else raw.reshape(out["shape"])


def _same(got, want: np.ndarray) -> bool:
    got = np.asarray(got)
    return got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


def _label(c: dict) -> str:
    where = f"n={c['n']}" if "n" in c else f"mesh={c['mesh']} axes={c['axes']}"
    return f"{c['op']} {where} {c['dtype']} {c['kwargs']}"


@pytest.mark.parametrize("case", G["pmap"], ids=[_label(c) for c in G["pmap"]])
def test_1d_against_jax(case):
    x = gen.data(case["dtype"], case["shape"], case["seed"])
    want = _want(case["out"])
    n = case["n"]

    def fn(v):
        return gen.call(lax, case["op"], v, "i", case["kwargs"])

    mesh = spmd.make_mesh((n,), ("i",), devices=spmd.devices()[:n])
    smap = spmd.shard_map(lambda b: jnp.expand_dims(fn(b[0]), 0), mesh=mesh, in_specs=P("i"),
                          out_specs=P("i"))  # fmt: skip
    runs = {
        "pmap": lambda: spmd.pmap(fn, axis_name="i")(x),
        "vmap": lambda: spmd.vmap(fn, axis_name="i")(x),
        "shard_map": lambda: smap(x),
        "jit(shard_map)": lambda: spmd.jit(smap)(x),
    }
    for name, go in runs.items():
        got = go()
        assert _same(got, want), f"{name}: {np.asarray(got)} != {want}"


@pytest.mark.parametrize("case", G["shard_map"], ids=[_label(c) for c in G["shard_map"]])
def test_2d_against_jax(case):
    x = gen.data(case["dtype"], case["shape"], case["seed"])
    want = _want(case["out"])
    mesh = spmd.make_mesh(tuple(case["mesh"]), ("x", "y"))
    axes = tuple(case["axes"]) if isinstance(case["axes"], list) else case["axes"]
    f = spmd.shard_map(lambda v: gen.call(lax, case["op"], v, axes, case["kwargs"]), mesh=mesh,
                       in_specs=P("x", "y"), out_specs=P("x", "y"), check_vma=False)  # fmt: skip
    assert _same(f(x), want)
    assert _same(spmd.jit(f)(x), want)
    with reference_mode():
        assert _same(f(x), want)
