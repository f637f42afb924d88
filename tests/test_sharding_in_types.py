"""Sharding in types while tracing (Explicit mesh axes): ``typeof`` inside traced functions,
the types ``make_jaxpr`` prints (``f32[8@x,4]``), ``reshard`` equations and ``out_sharding`` of
contractions, against JAX 0.10 on the programs of tests/golden_gen/sharding_in_types_gen.py."""

from __future__ import annotations

import types

import numpy as np
import pytest
from golden_compare import load_golden_family

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd.sharding import AxisType, NamedSharding
from spmd.sharding import PartitionSpec as P

gen, GOLDEN = load_golden_family("sharding_in_types")


def _ns():
    mesh = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    ns = types.SimpleNamespace(jax=spmd, jnp=jnp, lax=lax, NamedSharding=NamedSharding, P=P)
    ns.mesh = mesh
    ns.named = lambda spec: NamedSharding(mesh, spec)
    return ns


def test_golden_cases_are_all_run():
    assert sorted(GOLDEN) == sorted(gen.CASES)


@pytest.mark.parametrize("name", sorted(gen.CASES))
def test_matches_jax(name):
    ns = _ns()
    specs = gen.CASES[name][1]
    arrays = [spmd.device_put(x, ns.named(P(*s))) for x, s in zip(gen.inputs(np, specs), specs)]
    assert gen.run_case(ns, name, arrays) == GOLDEN[name]


def test_unsharded_programs_have_no_types():
    # Auto axes (spmd's default) and unplaced arguments: nothing is typed, nothing printed.
    mesh = spmd.make_mesh((2, 4), ("x", "y"))
    a = spmd.device_put(np.ones((8, 4), np.float32), NamedSharding(mesh, P("x", "y")))
    seen = []

    def f(x):
        seen.append(str(spmd.typeof(x)))
        return x * 2

    text = str(spmd.make_jaxpr(f)(a))
    assert seen == ["float32[8,4]"] and "@" not in text


def test_trace_time_typing_does_not_run_observers():
    ns, heard = _ns(), []
    a = spmd.device_put(np.ones((8, 4), np.float32), ns.named(P("x", "y")))
    f = spmd.jit(lambda a: spmd.debug.inspect_array_sharding(a * 2, callback=heard.append))
    spmd.make_jaxpr(f)(a)
    assert heard == []  # typing only: the callback waits for a placement
    f(a)
    assert [s.spec for s in heard] == [P("x", "y")]


def test_reshard_prints_bare_and_constraints_keep_their_parameters():
    ns = _ns()
    a = spmd.device_put(np.ones((8, 4), np.float32), ns.named(P("x", "y")))
    text = str(spmd.make_jaxpr(lambda a: spmd.sharding.reshard(a, ns.named(P())))(a))
    assert "b:f32[8,4] = reshard a" in text
    auto = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    text = str(
        spmd.make_jaxpr(lambda a: lax.with_sharding_constraint(a, NamedSharding(auto, P("x"))))(
            np.ones((8, 4), np.float32)
        )
    )
    assert "sharding_constraint[" in text and "spec=P('x',)" in text


def test_dot_out_sharding_on_auto_axes_raises_naming_the_function():
    auto = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    with pytest.raises(ValueError, match=r"dot_general: .*cannot name mesh axes of type Auto"):
        lax.dot_general(
            jnp.ones((8, 4)), jnp.ones((4, 8)), (((1,), (0,)), ((), ())),
            out_sharding=NamedSharding(auto, P("x")),
        )  # fmt: skip


def test_eager_dot_out_sharding_places_the_result():
    ns = _ns()
    out = jnp.dot(jnp.ones((8, 4)), jnp.ones((4, 8)), out_sharding=ns.named(P("x", None)))
    assert out.sharding == ns.named(P("x", None))
    np.testing.assert_array_equal(np.asarray(out), np.full((8, 8), 4.0, np.float32))


def test_out_sharding_spec_needs_a_mesh_and_shards_that_divide():
    ns = _ns()
    a = spmd.device_put(np.ones((8, 4), np.float32), ns.named(P("x", "y")))
    with pytest.raises(ValueError, match=r"lax.broadcast_in_dim out_sharding: .*P\('x',\)"):
        lax.broadcast_in_dim(a, (2, 8, 4), (1, 2), out_sharding=P("x"))
    with pytest.raises(ValueError, match=r"lax.reshape out_sharding: .*needs a mesh"):
        lax.reshape(a, (32,), out_sharding=P("x"))
    with pytest.raises(ValueError, match=r"lax.reshape: .*axis 0 is partitioned 4 times"):
        lax.reshape(a, (2, 16), out_sharding=ns.named(P("y")))
    with pytest.raises(
        ValueError,
        match=r"lax.broadcast_in_dim: out_sharding .* has 3 entries, but the result has rank 2",
    ):
        lax.broadcast_in_dim(a.sum(0), (2, 4), (1,), out_sharding=ns.named(P("x", "y", None)))
    with spmd.set_mesh(ns.mesh):  # a PartitionSpec names the axes of the mesh in context
        out = lax.broadcast_in_dim(a.sum(0), (8, 4), (1,), out_sharding=P("x"))
    assert str(spmd.typeof(out)) == "float32[8@x,4]"
    np.testing.assert_array_equal(np.asarray(out), np.full((8, 4), 8.0, np.float32))


def test_grad_seed_is_resharded_under_an_explicit_mesh_in_context():
    # As JAX 0.10 prints it: the arguments are unplaced, the mesh in context is Explicit.
    ns = _ns()
    with spmd.set_mesh(ns.mesh):
        text = str(spmd.make_jaxpr(spmd.grad(lambda x: (x * 2).sum()))(np.ones((8, 4), "f4")))
    assert "c:f32[] = reshard 1.0:f32[]\n    d:f32[8,4] = broadcast_in_dim c" in text
    text = str(spmd.make_jaxpr(spmd.grad(lambda x: (x * 2).sum()))(np.ones((8, 4), "f4")))
    assert "reshard" not in text
    g = spmd.grad(lambda x: (x * x).sum())(
        spmd.device_put(np.arange(32, dtype=np.float32).reshape(8, 4), ns.named(P("x", "y")))
    )
    assert g.sharding.spec == P("x", "y")
    np.testing.assert_array_equal(np.asarray(g), 2 * np.arange(32, dtype=np.float32).reshape(8, 4))


def test_vmap_of_inputs_mapped_along_differently_sharded_dimensions_raises():
    ns = _ns()
    a = spmd.device_put(np.ones((8, 4), np.float32), ns.named(P("x", None)))
    b = spmd.device_put(np.ones((8, 4), np.float32), ns.named(P(("x", "y"))))
    with pytest.raises(ValueError, match=r"vmap: .*inconsistent axis specs: x vs \('x', 'y'\)"):
        spmd.vmap(lambda d: d["a"] + d["b"])({"a": a, "b": b})
    with pytest.raises(ValueError, match=r"vmap: .*inconsistent axis specs: x vs None"):
        spmd.vmap(lambda r, c: r + c)(a, np.ones((8, 4), np.float32))
    # Unmapped inputs are not compared; unplaced inputs alone are not typed at all.
    out = spmd.vmap(lambda r, c: r + c, in_axes=(0, None))(a, np.ones(4, np.float32))
    assert str(spmd.typeof(out)) == "float32[8@x,4]"
    out = spmd.vmap(lambda r, c: r + c)(np.ones((8, 4), "f4"), np.ones((8, 4), "f4"))
    assert out.shape == (8, 4)
