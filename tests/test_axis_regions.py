"""``sharding.auto_axes`` and ``sharding.explicit_axes`` (spmd/_src/lax/axis_regions.py): the
types and axis types seen inside, the results' types and shardings (jitted and eager), the
jaxprs and the errors equal JAX 0.10's on the programs of tests/golden_gen/axis_regions_gen.py."""

from __future__ import annotations

import types

import numpy as np
import pytest
from golden_compare import load_golden_family

import spmd
import spmd.numpy as jnp
from spmd.sharding import AxisType, NamedSharding, auto_axes, explicit_axes
from spmd.sharding import PartitionSpec as P

gen, GOLDEN = load_golden_family("axis_regions")


def test_golden_cases_are_all_run():
    assert sorted(GOLDEN) == sorted(gen.CASES)


@pytest.mark.parametrize("name", sorted(gen.CASES))
def test_matches_jax(name):
    ns = types.SimpleNamespace(jax=spmd, jnp=jnp, NamedSharding=NamedSharding, P=P)
    ns.auto_axes, ns.explicit_axes = auto_axes, explicit_axes
    t = AxisType.Explicit if gen.CASES[name][1] == "explicit" else AxisType.Auto
    mesh = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(t, t))
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    with spmd.set_mesh(mesh):
        a = spmd.device_put(x, NamedSharding(mesh, P("x", "y")))
        # (A constraint given as a PartitionSpec prints on the abstract mesh in context, which
        # inside auto_axes has Auto axes, with that mesh as its context_mesh.)
        assert gen.run_case(ns, name, a) == GOLDEN[name]


def test_values_are_unchanged():
    mesh = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    with spmd.set_mesh(mesh):
        a = spmd.device_put(x, P("x", "y"))
        f = spmd.jit(auto_axes(lambda a: a @ a.T, out_sharding=P("x", None)))
        np.testing.assert_array_equal(np.asarray(f(a)), x @ x.T)


def test_without_a_mesh_the_arguments_mesh_is_used():
    # JAX needs a mesh in context to resolve a PartitionSpec here; spmd takes the arguments'.
    mesh = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    a = spmd.device_put(np.ones((8, 4), np.float32), NamedSharding(mesh, P("x", "y")))
    out = auto_axes(lambda a: a * 2, out_sharding=P("x"))(a)
    assert str(spmd.typeof(out)) == "float32[8@x,4]"
    with pytest.raises(ValueError, match="no mesh to work on"):
        auto_axes(lambda a: a * 2, out_sharding=P("x"))(np.ones((8, 4), np.float32))


def test_bad_axis_names_the_axis_and_the_mesh():
    mesh = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    with spmd.set_mesh(mesh), pytest.raises(KeyError, match=r"axis 'z' is not an axis of"):
        auto_axes(lambda a: a, axes=("x", "z"), out_sharding=P())(jnp.ones(4))
