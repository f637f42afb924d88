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
