"""``debug.inspect_array_sharding`` and ``visualize_array_sharding`` inside transformations
(spmd/_src/lax/inspect_sharding.py): the shardings reported equal JAX 0.10's on the programs of
tests/golden_gen/inspect_sharding_gen.py, once per compilation under jit and on every eager
call; jit with the partitioner inserts no collective for them; the jaxpr prints as JAX's."""

from __future__ import annotations

import contextlib
import io
import types

import numpy as np
import pytest
from golden_compare import load_golden_family

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd.sharding import AxisType, NamedSharding
from spmd.sharding import PartitionSpec as P

gen, GOLDEN = load_golden_family("inspect_sharding")


def _mesh():
    return spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Auto,) * 2)


def _input(mesh):
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    return spmd.device_put(x, NamedSharding(mesh, P("x", "y")))


def test_golden_cases_are_all_run():
    assert sorted(GOLDEN) == sorted(gen.CASES)


@pytest.mark.parametrize("name", sorted(gen.CASES))
def test_reported_shardings_match_jax(name):
    mesh, seen = _mesh(), []
    ns = types.SimpleNamespace(jax=spmd, jnp=jnp, lax=lax, NamedSharding=NamedSharding, P=P)
    ns.mesh, ns.report = mesh, seen.append
    a = _input(mesh)
    f = gen.CASES[name](ns)
    f(a)
    f(a)
    assert all(isinstance(s, NamedSharding) and s.mesh == mesh for s in seen), seen
    assert [gen.spec_json(s) for s in seen] == GOLDEN[name]


def test_unsharded_input_reports_the_default_device():
    # JAX reports a replicated GSPMDSharding here; spmd has no such class and reports where
    # the value lives: the default device.
    seen = []
    spmd.jit(lambda x: spmd.debug.inspect_array_sharding(x, callback=seen.append))(jnp.ones(4))
    assert seen == [spmd.sharding.SingleDeviceSharding(spmd.devices()[0])]


def test_new_placement_reports_again():
    mesh, seen = _mesh(), []
    f = spmd.jit(lambda x: spmd.debug.inspect_array_sharding(x * 2, callback=seen.append))
    a = _input(mesh)
    f(a)
    f(spmd.device_put(a, NamedSharding(mesh, P("y"))))
    f(a)
    assert [s.spec for s in seen] == [P("x", "y"), P("y")]


def test_visualize_inside_jit_prints_the_propagated_sharding():
    mesh = _mesh()
    a = _input(mesh)
    f = spmd.jit(lambda a: spmd.debug.visualize_array_sharding(a.sum(0)))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        f(a)
    want = spmd.debug.sharding_text((4,), NamedSharding(mesh, P("y")))
    assert out.getvalue() == want


def test_partitioned_jit_reports_without_collectives():
    mesh, seen = _mesh(), []
    f = spmd.jit(
        lambda a: (spmd.debug.inspect_array_sharding(a.sum(1), callback=seen.append), a)[1]
    )
    a = _input(mesh)
    spmd.config.update("spmd_partition", "always")
    try:
        r = f(a)
        reasons = f.lower(a).partitioned.reasons
    finally:
        spmd.config.update("spmd_partition", "auto")
    assert [s.spec for s in seen] == [P("x")]
    assert reasons == []
    np.testing.assert_array_equal(np.asarray(r), np.asarray(a))


def test_jaxpr_prints_the_callback_as_jax_does():
    def report(s):
        return None

    text = str(
        spmd.make_jaxpr(lambda x: spmd.debug.inspect_array_sharding(x, callback=report))(
            jnp.ones(3)
        )
    )
    assert "inspect_sharding[\n      callback=<function " in text, text
    assert "report at 0x" in text


def test_explicit_mesh_type_check_does_not_report_twice():
    # On Explicit meshes jit type-checks the program with a propagation of its own at trace
    # time: the observers run only in the placement's propagation.
    mesh = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    seen = []
    a = spmd.device_put(np.ones((8, 4), np.float32), NamedSharding(mesh, P("x", "y")))
    spmd.jit(lambda a: spmd.debug.inspect_array_sharding(a * 2, callback=seen.append))(a)
    assert [s.spec for s in seen] == [P("x", "y")]
