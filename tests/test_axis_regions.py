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


def test_the_call_may_name_out_sharding_and_in_sharding():
    # As JAX 0.10's (and the explicit-sharding tutorial's): without one given to the decorator,
    # the call takes out_sharding (auto_axes) or in_sharding (explicit_axes) among its keywords;
    # given to the decorator, a keyword of that name goes to the function.
    explicit = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    x = np.arange(16, dtype=np.int32).reshape(4, 4)
    seen = {}

    def add(a, b, **kw):
        seen["kw"] = kw
        return a + b

    with spmd.set_mesh(explicit):
        a = spmd.reshard(x, P("x", None))
        b = spmd.reshard(x, P(None, "x"))
        out = auto_axes(add)(a, b, out_sharding=P("x", None))
        assert str(spmd.typeof(out)) == "int32[4@x,4]" and seen["kw"] == {}
        np.testing.assert_array_equal(np.asarray(out), 2 * x)
        out = auto_axes(add, out_sharding=P("x"))(a, b, out_sharding=P(None, "x"))
        assert str(spmd.typeof(out)) == "int32[4@x,4]"
        assert seen["kw"] == {"out_sharding": P(None, "x")}
        with pytest.raises(TypeError, match=r"auto_axes\(add\): missing required keyword "
                                            r"argument: 'out_sharding'"):  # fmt: skip
            auto_axes(add)(a, b)
    auto = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Auto,) * 2)

    def g(y, w=None):
        seen["types"] = (str(spmd.typeof(y)), w if w is None else str(spmd.typeof(w)))
        return y * 2

    with spmd.set_mesh(auto):
        y = spmd.device_put(x, P("x", "y"))
        out = spmd.jit(lambda y: explicit_axes(g)(y, in_sharding=P("x", "y")))(y)
        assert seen["types"][0] == "int32[4@x,4@y]"
        np.testing.assert_array_equal(np.asarray(out), 2 * x)
        # Keyword arguments go in as they are: in_sharding covers the positional ones.
        explicit_axes(g, in_sharding=P("x"))(y, w=y)
        assert seen["types"] == ("int32[4@x,4]", "int32[4,4]")
        with pytest.raises(TypeError, match=r"explicit_axes\(g\): missing required keyword "
                                            r"argument: 'in_sharding'"):  # fmt: skip
            explicit_axes(g)(y)


def test_a_region_may_not_retype_shard_maps_manual_axes():
    # JAX 0.10.2: inside shard_map its axes are Manual; auto_axes or explicit_axes naming one
    # (all axes by default) is a NotImplementedError, under jit too, and in a partial
    # shard_map (axis_names={'x'}) for its manual axis.
    mesh = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    with spmd.set_mesh(mesh):
        a = spmd.device_put(np.arange(8.0), P("x"))
        body = auto_axes(lambda w: w * 2, out_sharding=P())
        whole = spmd.shard_map(body, in_specs=P("x"), out_specs=P("x"))
        with pytest.raises(NotImplementedError, match=r"auto_axes\(<lambda>\).*\['x', 'y'\]"):
            whole(a)
        with pytest.raises(NotImplementedError, match="Manual"):
            spmd.jit(whole)(a)
        body = explicit_axes(lambda w: w * 2, axes="x", in_sharding=P())
        part = spmd.shard_map(body, in_specs=P("x"), out_specs=P("x"), axis_names={"x"})
        with pytest.raises(NotImplementedError, match=r"explicit_axes\(<lambda>\).*\['x'\]"):
            part(a)
