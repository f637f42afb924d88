"""Sharding in types (Explicit mesh axes) inside custom_jvp / custom_vjp functions (primal
body, jvp rule, fwd and bwd), custom_gradient, closure_convert, checkpoint, custom_vmap,
named_call and linear_call, against JAX 0.10 on the programs of
tests/golden_gen/sharding_in_types_custom_gen.py: ``typeof`` inside the bodies, the types of
their inner jaxprs and results, and the errors raised in them."""

from __future__ import annotations

import types

import numpy as np
import pytest
from golden_compare import load_golden_family

import spmd
import spmd.numpy as jnp
from spmd.sharding import AxisType, NamedSharding
from spmd.sharding import PartitionSpec as P

gen, GOLDEN = load_golden_family("sharding_in_types_custom")


def _ns():
    mesh = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    ns = types.SimpleNamespace(jax=spmd, jnp=jnp, P=P, mesh=mesh)
    ns.named = lambda spec: NamedSharding(mesh, spec)
    gen.setup(ns, np)
    return ns


def test_golden_cases_are_all_run():
    assert sorted(GOLDEN) == sorted(gen.CASES)


@pytest.mark.parametrize("name", sorted(gen.CASES))
def test_matches_jax(name):
    ns = _ns()
    specs = gen.CASES[name][1]
    arrays = [spmd.device_put(x, ns.named(P(*s))) for x, s in gen.inputs(np, specs)]
    assert gen.run_case(ns, name, arrays) == GOLDEN[name]
