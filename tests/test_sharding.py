"""Meshes and shardings against JAX 0.10 (tests/golden/sharding.json, recorded by
tests/golden_gen/sharding_gen.py): shard shapes, index maps, shards, reprs and pictures."""

import json
from pathlib import Path

import numpy as np
import pytest
from cases_sharding import MESHES, all_cases

import spmd
import spmd.numpy as jnp
from spmd.sharding import Mesh, NamedSharding, SingleDeviceSharding
from spmd.sharding import PartitionSpec as P

GOLDEN = json.loads((Path(__file__).parent / "golden" / "sharding.json").read_text())
MESH_OBJS = {k: spmd.make_mesh(shape, names) for k, (shape, names) in MESHES.items()}


def _idx(idx):
    return [[s.start, s.stop] for s in idx]


@pytest.mark.parametrize("name,mesh_name,shape,spec", list(all_cases()), ids=lambda x: str(x))
def test_index_math_matches_jax(name, mesh_name, shape, spec):
    want = GOLDEN[name]
    s = NamedSharding(MESH_OBJS[mesh_name], P(*spec))
    assert list(s.shard_shape(shape)) == want["shard_shape"]
    got = {str(d.id): _idx(i) for d, i in s.devices_indices_map(shape).items()}
    assert got == want["indices"]
    arr = spmd.device_put(jnp.zeros(shape), s)
    shards = [[sh.device.id, _idx(sh.index), sh.replica_id] for sh in arr.addressable_shards]
    assert shards == want["shards"]
    assert repr(s) == want["repr"]
    assert s.is_fully_replicated == want["fully_replicated"]
    if "picture" in want:
        assert spmd.debug.sharding_text(shape, s) == want["picture"]


def test_shard_data_are_views_of_the_global_buffer():
    x = spmd.device_put(
        jnp.arange(32.0).reshape(4, 8), NamedSharding(MESH_OBJS["2x4"], P("x", "y"))
    )
    sh = x.addressable_shards[5]
    np.testing.assert_array_equal(np.asarray(sh.data), np.arange(32.0).reshape(4, 8)[2:4, 2:4])
    assert sh.data._value.base is not None  # a view, not a copy


def test_default_placement_and_reprs():
    x = jnp.arange(3)
    assert repr(x.sharding) == "SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)"
    assert x.devices() == {spmd.devices()[0]}
    assert not x.committed
    assert repr(spmd.devices()[3]) == "CpuDevice(id=3)" and str(spmd.devices()[3]) == "cpu:3"
    assert spmd.device_count() == 8 and spmd.local_device_count() == 8
    assert spmd.process_index() == 0 and spmd.process_count() == 1
    assert spmd.default_backend() == "cpu"
    m = MESH_OBJS["2x4"]
    assert str(m) == "Mesh('x': 2, 'y': 4, axis_types=(Auto, Auto))"
    assert repr(m) == "Mesh(axis_sizes=(2, 4), axis_names=('x', 'y'), axis_types=(Auto, Auto))"
    assert (
        repr(P("x")) == "P('x',)" and repr(P("x", None, ("a", "b"))) == "P('x', None, ('a', 'b'))"
    )


def test_memory_kinds():
    m = MESH_OBJS["2x4"]
    host = NamedSharding(m, P("x", "y"), memory_kind="pinned_host")
    x = spmd.device_put(jnp.ones((4, 8)), host)
    assert x.sharding.memory_kind == "pinned_host"
    assert host.with_memory_kind("device").memory_kind == "device"
    y = spmd.jit(lambda a: a, out_shardings=host.with_memory_kind("device"))(x)
    assert y.sharding.memory_kind == "device"
    assert "memory kind: pinned_host" in spmd.debug.sharding_text((4, 8), host)


def test_eager_results_carry_jax_shardings():
    m = MESH_OBJS["2x4"]
    x = spmd.device_put(jnp.arange(32.0).reshape(4, 8), NamedSharding(m, P("x", "y")))
    assert (2 * jnp.sin(x) + 1).sharding == x.sharding
    assert x.sum(axis=0).sharding == NamedSharding(m, P("y"))
    assert x.sum(axis=1).sharding == NamedSharding(m, P("x"))
    assert spmd.jit(lambda a: a.sum(axis=0))(x).sharding == NamedSharding(m, P("y"))


def test_with_sharding_constraint_under_jit():
    m = MESH_OBJS["2x4"]
    x = spmd.device_put(jnp.arange(32.0).reshape(4, 8), NamedSharding(m, P("x", "y")))

    @spmd.jit
    def f(a):
        return spmd.lax.with_sharding_constraint(a.sum(axis=0), NamedSharding(m, P("x")))

    assert f(x).sharding.spec == P("x")


def test_typeof_on_explicit_mesh():
    from spmd.sharding import AxisType

    m = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    x = spmd.device_put(jnp.zeros((4, 8)), NamedSharding(m, P("x", "y")))
    assert str(spmd.typeof(x)) == "float32[4@x,8@y]"
    assert str(spmd.typeof(jnp.zeros((4, 8)))) == "float32[4,8]"


def test_mesh_context_resolves_bare_specs():
    m = MESH_OBJS["8"]
    with spmd.sharding.use_mesh(m):
        x = spmd.device_put(jnp.zeros(8), P("x"))
    assert x.sharding == NamedSharding(m, P("x"))
    assert spmd.sharding.get_abstract_mesh().empty


def test_pictures_of_higher_rank_arrays():
    s = NamedSharding(MESH_OBJS["2x2x2"], P("x", "y", "z"))
    text = spmd.debug.sharding_text((2, 2, 2), s)
    assert text.count("[0:1, :, :]") == 1 and text.count("[1:2, :, :]") == 1
    assert "CPU 0" in text and "CPU 7" in text


def test_make_array_from_callback():
    s = NamedSharding(MESH_OBJS["2x4"], P("x", "y"))
    data = np.arange(32.0, dtype=np.float32).reshape(4, 8)
    x = spmd.make_array_from_callback((4, 8), s, lambda idx: data[idx])
    np.testing.assert_array_equal(np.asarray(x), data)
    assert x.sharding == s


# --- bad input, one test each ------------------------------------------------------------------


def test_error_spec_names_missing_axis():
    with pytest.raises(ValueError, match="Resource axis: z of P\\('z',\\) is not found in mesh"):
        NamedSharding(MESH_OBJS["2x4"], P("z"))


def test_error_spec_longer_than_rank():
    s = NamedSharding(MESH_OBJS["2x4"], P("x", "y"))
    with pytest.raises(ValueError, match="rank at least 2.*rank 1"):
        spmd.device_put(jnp.ones(8), s)


def test_error_axis_used_twice():
    with pytest.raises(ValueError, match="duplicate entries for `x`"):
        NamedSharding(MESH_OBJS["2x4"], P("x", "x"))


def test_error_shape_not_divisible():
    s = NamedSharding(MESH_OBJS["2x4"], P("x", "y"))
    with pytest.raises(ValueError) as e:
        spmd.device_put(jnp.ones((3, 8)), s)
    msg = str(e.value)
    assert "array axis 0 is partitioned 2 times" in msg and "dimension size is 3" in msg
    assert "('x',)" in msg and "2 and 4" in msg


def test_make_mesh_takes_the_first_devices_and_refuses_too_few():
    # JAX 0.10.2: a mesh smaller than the device list uses its first devices.
    m = spmd.make_mesh((3, 2), ("a", "b"))
    assert [d.id for d in m.devices.ravel()] == [0, 1, 2, 3, 4, 5]
    m = spmd.make_mesh((2,), ("a",), devices=spmd.devices()[3:7])
    assert [d.id for d in m.devices.ravel()] == [3, 4]
    with pytest.raises(ValueError, match=r"Number of devices 8 must be >= the product of mesh_sh"):
        spmd.make_mesh((16,), ("a",))
    with pytest.raises(ValueError, match=r"Number of devices 2 must be >= .* needs 4 devices"):
        spmd.make_mesh((4,), ("a",), devices=spmd.devices()[:2])


def test_error_mesh_duplicate_devices():
    d = spmd.devices()
    with pytest.raises(ValueError, match="must be distinct"):
        Mesh(np.array(d[:4] + d[:4], dtype=object).reshape(2, 4), ("a", "b"))


def test_error_mesh_duplicate_axis_names():
    with pytest.raises(ValueError, match="axis names must be unique"):
        Mesh(np.array(spmd.devices(), dtype=object).reshape(2, 4), ("a", "a"))


def test_error_mesh_rank_mismatch():
    with pytest.raises(ValueError, match="devices.ndim == 2 and len\\(axis_names\\) == 1"):
        Mesh(np.array(spmd.devices(), dtype=object).reshape(2, 4), ("a",))


def test_error_unknown_memory_kind():
    with pytest.raises(ValueError, match="Got memory kind: gpu"):
        NamedSharding(MESH_OBJS["2x4"], P("x"), memory_kind="gpu")
    with pytest.raises(ValueError, match="Got memory kind: hbm"):
        SingleDeviceSharding(spmd.devices()[0], memory_kind="hbm")


def test_error_bare_spec_without_mesh():
    with pytest.raises(ValueError, match="needs a mesh"):
        spmd.device_put(jnp.ones(8), P("x"))


def test_device_count_from_environment_and_config():
    import os
    import subprocess
    import sys

    def count(env, code="import spmd; print(spmd.device_count())"):
        e = {k: v for k, v in os.environ.items() if k not in ("SPMD_NUM_DEVICES", "XLA_FLAGS")}
        e.update(env)
        out = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True)
        return out.stdout.strip() or out.stderr.strip().splitlines()[-1]

    assert count({}) == "8"
    assert count({"SPMD_NUM_DEVICES": "4"}) == "4"
    assert count({"XLA_FLAGS": "--xla_force_host_platform_device_count=3"}) == "3"
    code = "import spmd; spmd.config.update('jax_num_cpu_devices', 2); print(spmd.device_count())"
    assert count({}, code) == "2"
    late = "import spmd; spmd.devices(); spmd.config.update('jax_num_cpu_devices', 2)"
    assert "RuntimeError" in count({}, late)


# --- result shardings of eager operations, against JAX (tests/golden/sharding_ops.json) --------

from cases_sharding_ops import CASES as OP_CASES  # noqa: E402
from cases_sharding_ops import OPS  # noqa: E402

OP_GOLDEN = json.loads((Path(__file__).parent / "golden" / "sharding_ops.json").read_text())


def _spec_json(s):
    if not isinstance(s, NamedSharding):
        return None
    return [list(e) if isinstance(e, tuple) else e for e in s.spec]


@pytest.mark.parametrize("name,mesh_key,shape,spec,op", OP_CASES, ids=[c[0] for c in OP_CASES])
def test_eager_result_shardings_match_jax(name, mesh_key, shape, spec, op):
    x = spmd.device_put(
        jnp.arange(float(np.prod(shape))).reshape(shape),
        NamedSharding(MESH_OBJS[mesh_key], P(*spec)),
    )
    assert _spec_json(OPS[op](jnp, x).sharding) == OP_GOLDEN[name]


def test_error_out_shardings_not_divisible():
    s = NamedSharding(MESH_OBJS["8"], P("x"))
    f = spmd.jit(lambda a: a * 2, out_shardings=s)
    with pytest.raises(ValueError, match="partitioned 8 times.*dimension size is 6"):
        f(jnp.arange(6.0))
    assert f(jnp.arange(8.0)).sharding == s


def test_default_axis_types_switch():
    from spmd.sharding import AxisType

    assert spmd.make_mesh((8,), ("x",)).axis_types == (AxisType.Auto,)
    spmd.config.update("spmd_default_axis_types", "explicit")
    try:
        m = spmd.make_mesh((2, 4), ("x", "y"))
        assert m.axis_types == (AxisType.Explicit, AxisType.Explicit)
        assert str(m) == "Mesh('x': 2, 'y': 4, axis_types=(Explicit, Explicit))"
        # Only make_mesh's default changes: Mesh and AbstractMesh default to Auto (as JAX's).
        devs = np.array(spmd.devices()[:4])
        assert spmd.sharding.Mesh(devs, ("i",)).axis_types == (AxisType.Auto,)
        assert spmd.sharding.AbstractMesh((4,), ("i",)).axis_types == (AxisType.Auto,)
    finally:
        spmd.config.update("spmd_default_axis_types", "auto")
    assert repr(spmd.sharding.AbstractMesh((2, 4), ("x", "y"))).startswith("AbstractMesh('x': 2")


def test_set_mesh_context():
    m = MESH_OBJS["2x4"]
    with spmd.set_mesh(m):
        assert spmd.sharding.get_abstract_mesh() == m.abstract_mesh
        x = spmd.device_put(jnp.zeros((4, 8)), P("x"))
    assert x.sharding == NamedSharding(m, P("x"))
    assert spmd.sharding.get_mesh() is None


def test_is_equivalent_to_as_jax():
    # Each case's answer is JAX 0.10.2's (both directions agree).
    P, NS = spmd.sharding.PartitionSpec, spmd.sharding.NamedSharding
    mesh = spmd.make_mesh((4, 2), ("a", "b"))
    flat, other, one = (spmd.make_mesh((8,), ("z",)), spmd.make_mesh((2, 4), ("a", "b")),
                        spmd.make_mesh((1,), ("q",)))  # fmt: skip
    single = spmd.sharding.SingleDeviceSharding
    d0 = spmd.devices()[0]
    cases = [
        (NS(mesh, P("a", "b")), NS(mesh, P("a", "b", None)), 2, True),
        (NS(mesh, P("a", "b")), NS(mesh, P("a")), 2, False),
        (single(d0), NS(one, P()), 2, True),
        (NS(mesh, P(("a", "b"))), NS(flat, P("z")), 1, True),
        (NS(mesh, P(("b", "a"))), NS(flat, P("z")), 1, False),
        (NS(mesh, P()), NS(flat, P()), 1, True),
        (NS(mesh, P()), NS(mesh, P(), memory_kind="pinned_host"), 1, False),
        (NS(mesh, P("a")), NS(other, P("a")), 1, False),
        (NS(one, P("q")), single(d0), 1, True),
        (single(d0), single(spmd.devices()[1]), 1, False),
    ]
    for a, b, ndim, want in cases:
        assert a.is_equivalent_to(b, ndim) is want and b.is_equivalent_to(a, ndim) is want
    with pytest.raises(TypeError, match="is_equivalent_to: other must be a Sharding"):
        NS(mesh, P()).is_equivalent_to(P(), 1)
