"""The mesh in context, against JAX 0.10.2 (the "Distributed arrays and automatic
parallelization" page, tests/tutorials/parallel_tutorial.py): ``use_abstract_mesh`` under a
jit, and where eager results land under ``set_mesh``."""

from __future__ import annotations

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd.sharding import AbstractMesh, AxisType, NamedSharding
from spmd.sharding import PartitionSpec as P

E = AxisType.Explicit


@pytest.fixture
def mesh():
    m = spmd.make_mesh((4, 2), ("X", "Y"), (E, E))
    with spmd.set_mesh(m):
        yield m


def test_reshard_on_an_abstract_mesh_of_another_shape(mesh):
    # The spec names the abstract mesh's axis; the result lies on the context mesh's devices
    # laid out in the abstract mesh's shape.
    x = spmd.device_put(jnp.arange(32.0).reshape(8, 4), P("X", "Y"))

    @spmd.jit
    def f(x):
        with spmd.sharding.use_abstract_mesh(AbstractMesh((8,), ("A",), (E,))):
            y = spmd.reshard(x, P("A", None))
            assert str(spmd.typeof(y)) == "float32[8@A,4]"
            return y * 2

    z = f(x)
    assert str(spmd.typeof(z)) == "float32[8@A,4]"
    assert dict(z.sharding.mesh.shape) == {"A": 8}
    assert [d.id for d in z.sharding.mesh.devices.flat] == [d.id for d in mesh.devices.flat]
    np.testing.assert_array_equal(z, np.arange(32.0).reshape(8, 4) * 2)


def test_use_abstract_mesh_keeps_the_size(mesh):
    with pytest.raises(ValueError, match=r"use_abstract_mesh cannot change the size of the mesh"
                                         r".*'A': 4.*size=4.*'X': 4, 'Y': 2.*size=8"):  # fmt: skip
        with spmd.sharding.use_abstract_mesh(AbstractMesh((4,), ("A",), (E,))):
            pass


def test_abstract_mesh_prints_device_kind_only_of_a_concrete_mesh(mesh):
    assert repr(AbstractMesh((8,), ("A",), (E,))) == "AbstractMesh('A': 8, axis_types=(Explicit,))"
    assert repr(mesh.abstract_mesh) == (
        "AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit), device_kind=cpu, "
        "num_cores=None, platform=cpu)"
    )


# --- eager operations under set_mesh (JAX runs each as a jit on the mesh in context) -------


@pytest.mark.parametrize("types", ["Explicit", "Auto"])
def test_eager_results_land_on_the_context_mesh(types):
    t = getattr(AxisType, types)
    m = spmd.make_mesh((4, 2), ("X", "Y"), (t, t))
    v = jnp.ones(4)  # made before: unplaced, and stays so
    # JAX 0.10.2 spells the spec with one None per dimension on Explicit meshes (from arrays
    # or nothing), P() on Auto meshes and from host values.
    full = P(None) if types == "Explicit" else P()
    with spmd.set_mesh(m):
        cases = {
            "ones": (jnp.ones(4), full),
            "arange": (jnp.arange(8), full),
            "v+1": (v + 1, full),
            "sum(np)": (jnp.sum(np.ones(4)), P()),
            "array(np)": (jnp.array(np.ones(3)), P()),
            "asarray(np)": (jnp.asarray(np.ones(3)), P()),
            "float32": (jnp.float32(2.0), P()),
            "normal": (spmd.random.normal(spmd.random.key(0), (8, 4)), P(None, None)),
        }
        for name, (r, spec) in cases.items():
            assert r.sharding == NamedSharding(m, spec if types == "Explicit" else P()), name
            assert r.committed, name
        # Not a computation: left uncommitted, as JAX's.
        assert not spmd.device_put(np.ones(4)).committed
        assert jnp.asarray(v) is v and not v.committed
    # After the block, the default placement again.
    assert not (v + 1).committed


def test_eager_operand_on_other_devices_than_the_context_mesh():
    m = spmd.make_mesh((4, 2), ("X", "Y"), (E, E))
    d3 = spmd.device_put(np.ones(4, np.float32), spmd.devices()[3])
    with spmd.set_mesh(m):
        with pytest.raises(ValueError, match=r"incompatible devices.*argument 0 of sin with "
                                             r"shape f32\[4\] and device ids \[3\].*mesh in "
                                             r"context.*\[0, 1, 2, 3, 4, 5, 6, 7\]"):  # fmt: skip
            jnp.sin(d3)
        # An array typed on another mesh's Explicit axes (the same devices) does not match.
        other = spmd.make_mesh((8,), ("A",), (E,))
        a = spmd.device_put(np.arange(8.0), NamedSharding(other, P("A")))
        with pytest.raises(ValueError, match=r"For primitive mul, context mesh AbstractMesh"
                                             r"\('X': 4, 'Y': 2.*should match the aval mesh "
                                             r"AbstractMesh\('A': 8.*float32\[8@A\]"):  # fmt: skip
            a * 2
    assert (a * 2).sharding == a.sharding  # (outside the block it is fine)


def test_legacy_mesh_context_leaves_eager_results_unplaced():
    # ``with mesh:`` sets no context mesh for computations, in JAX as in spmd.
    m = spmd.make_mesh((4, 2), ("X", "Y"), (E, E))
    with m:
        assert not jnp.ones(4).committed


def test_make_mesh_auto_by_default_lets_out_sharding_through():
    # spmd's make_mesh is Auto by default where JAX 0.10's is Explicit: a JAX program's
    # out_sharding= on it runs (a Mesh given Auto types explicitly refuses it, as JAX's).
    m = spmd.make_mesh((8,), ("x",))
    r = spmd.random.normal(spmd.random.key(0), (8,), out_sharding=NamedSharding(m, P("x")))
    assert r.sharding == NamedSharding(m, P("x"))
    auto = spmd.make_mesh((8,), ("x",), (AxisType.Auto,))
    with pytest.raises(ValueError, match=r"random.normal: .*cannot name mesh axes of type Auto"):
        spmd.random.normal(spmd.random.key(0), (8,), out_sharding=NamedSharding(auto, P("x")))


def test_the_sharding_in_a_type_prints_on_the_abstract_mesh(mesh):
    x = spmd.device_put(jnp.arange(32.0).reshape(8, 4), P("X", "Y"))
    want = (
        "NamedSharding(mesh=AbstractMesh('X': 4, 'Y': 2, axis_types=(Explicit, Explicit), "
        "device_kind=cpu, num_cores=None, platform=cpu), spec=P('X', 'Y'))"
    )
    assert str(spmd.typeof(x).sharding) == want
    seen = []
    spmd.jit(lambda a: seen.append(str(spmd.typeof(a).sharding)))(x)
    assert seen == [want]
    # It is still the array's sharding (the concrete value is on the concrete mesh).
    assert spmd.typeof(x).sharding == x.sharding
    assert str(x.sharding).startswith("NamedSharding(mesh=Mesh('X': 4")


def test_page_errors_name_the_operation_and_the_operand_types(mesh):
    from spmd.errors import ShardingTypeError

    x = spmd.device_put(jnp.arange(32.0).reshape(8, 4), P(None, "X"))
    y = spmd.device_put(jnp.arange(64.0).reshape(4, 16), P("X", None))
    with pytest.raises(ShardingTypeError, match=r"ambiguous.*`out_sharding`.*lhs_contracting_"
                                                r"spec=\('X',\).*dot_general of lhs "
                                                r"f32\[8,4@X\] and rhs f32\[4@X,16\]"):  # fmt: skip
        jnp.dot(x, y)
    assert str(spmd.typeof(jnp.dot(x, y, out_sharding=P("X", None)))) == "float32[8@X,16]"
    a = spmd.device_put(np.arange(16).reshape(4, 4), P("X", None))
    b = spmd.device_put(np.arange(16).reshape(4, 4), P(None, "X"))
    with pytest.raises(ShardingTypeError, match=r"add operation with inputs: i32\[4@X,4\], "
                                                r"i32\[4,4@X\] produces an illegally sharded "
                                                r"result: i32\[4@X,4@X\]"):  # fmt: skip
        a + b
