"""Smaller pieces of JAX's API a program may touch on its way: ``experimental.mesh_utils``,
``experimental.compilation_cache``, ``stages``, ``Device``, ``version`` and
``print_environment_info`` (JAX 0.10.2's behaviour, read from its docs and checked by running
it)."""

from __future__ import annotations

import subprocess
import sys
import types

import numpy as np
import pytest

import spmd
from spmd.experimental import mesh_utils


def test_create_device_mesh_is_row_major_in_the_order_given():
    devs = spmd.devices()
    m = mesh_utils.create_device_mesh((2, 4))
    assert m.shape == (2, 4) and m.dtype == object
    assert [d.id for d in m.ravel()] == [d.id for d in devs]
    r = mesh_utils.create_device_mesh((4, 2), devices=devs[::-1])
    assert [[d.id for d in row] for row in r] == [[7, 6], [5, 4], [3, 2], [1, 0]]
    assert mesh_utils.create_device_mesh((2, 2), devices=devs[:4]).shape == (2, 2)
    # It feeds a Mesh as JAX's does.
    mesh = spmd.sharding.Mesh(m, ("x", "y"))
    assert dict(mesh.shape) == {"x": 2, "y": 4}


def test_create_device_mesh_errors():
    with pytest.raises(ValueError, match=r"Number of devices 8 must equal the product of "
                                         r"mesh_shape \(3, 4\)"):  # fmt: skip
        mesh_utils.create_device_mesh((3, 4))
    with pytest.raises(TypeError, match="mesh_shape must be a sequence of ints"):
        mesh_utils.create_device_mesh(4)


def _fake_devices(n_procs: int, per: int) -> list:
    return [
        types.SimpleNamespace(id=p * per + i, process_index=p)
        for p in range(n_procs)
        for i in range(per)
    ]


def test_create_hybrid_device_mesh_tiles_one_block_per_process():
    devs = _fake_devices(2, 4)
    m = mesh_utils.create_hybrid_device_mesh((1, 4), (2, 1), devs, process_is_granule=True)
    assert [[d.id for d in row] for row in m] == [[0, 1, 2, 3], [4, 5, 6, 7]]
    m = mesh_utils.create_hybrid_device_mesh((2, 2), (1, 2), devs, process_is_granule=True)
    assert [[d.id for d in row] for row in m] == [[0, 1, 4, 5], [2, 3, 6, 7]]
    single = mesh_utils.create_hybrid_device_mesh((2, 4), (1, 1), process_is_granule=True)
    assert single.shape == (2, 4)


def test_create_hybrid_device_mesh_errors():
    with pytest.raises(ValueError, match="Number of slices 1 must equal the product of "
                                         r"dcn_mesh_shape \(2, 1\)"):  # fmt: skip
        mesh_utils.create_hybrid_device_mesh((2, 2), (2, 1), process_is_granule=True)
    with pytest.raises(ValueError, match="does not have attribute slice_index"):
        mesh_utils.create_hybrid_device_mesh((2, 2), (2, 1))
    with pytest.raises(ValueError, match="must have the same length"):
        mesh_utils.create_hybrid_device_mesh((2, 2), (2,), process_is_granule=True)


def test_compilation_cache_records_the_directory():
    from spmd.experimental.compilation_cache import compilation_cache as cc

    cc.set_cache_dir("/tmp/spmd-cache")
    try:
        assert spmd.config.jax_compilation_cache_dir == "/tmp/spmd-cache"
        assert float(spmd.jit(lambda x: x * 2)(2.0)) == 4.0
    finally:
        cc.reset_cache()
    assert spmd.config.jax_compilation_cache_dir is None


def test_stages_device_and_version():
    f = spmd.jit(lambda x: x + 1)
    assert isinstance(f, spmd.stages.Wrapped)
    lowered = f.lower(np.float32(1))
    assert isinstance(lowered, spmd.stages.Lowered)
    assert isinstance(lowered.compile(), spmd.stages.Compiled)
    assert isinstance(f.trace(np.float32(1)), spmd.stages.Traced)
    assert all(isinstance(d, spmd.Device) for d in spmd.devices())
    assert spmd.version.__version__ == spmd.__version__
    assert spmd.__version_info__ == tuple(int(p) for p in spmd.__version__.split("."))


def test_print_environment_info(capsys):
    text = spmd.print_environment_info(return_string=True)
    assert text.startswith(f"spmd:   {spmd.__version__}\nnumpy:  {np.__version__}\n")
    assert f"device info: cpu-{spmd.device_count()}, " in text
    assert "process_count: 1" in text
    assert spmd.print_environment_info() is None
    assert capsys.readouterr().out == text


def test_submodules_after_a_bare_import():
    code = (
        "import spmd as jax\n"
        "jax.experimental.mesh_utils.create_device_mesh((8,))\n"
        "jax.experimental.compilation_cache.compilation_cache.set_cache_dir('/tmp/x')\n"
        "jax.lax.linalg.cholesky\n"
        "assert isinstance(jax.jit(abs), jax.stages.Wrapped)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_process_functions_and_their_old_names():
    assert spmd.process_indices() == [0] == spmd.host_ids()
    assert spmd.host_count() == spmd.process_count() == 1
    assert spmd.host_id() == spmd.process_index() == 0


def test_shards_copy_to_host_and_process_local_data():
    mesh = spmd.make_mesh((8,), ("x",))
    s = spmd.sharding.NamedSharding(mesh, spmd.P("x"))
    local = np.arange(16.0, dtype=np.float32).reshape(8, 2)
    a = spmd.make_array_from_process_local_data(s, local)
    assert a.sharding == s and a.shape == (8, 2)
    np.testing.assert_array_equal(np.asarray(a), local)
    assert all(isinstance(sh, spmd.Shard) for sh in a.addressable_shards)
    assert spmd.make_array_from_process_local_data(s, local, (8, 2)).shape == (8, 2)
    with pytest.raises(ValueError, match=r"global_shape should be None or equal to "
                                         r"local_data.shape.*\(16, 2\).*\(8, 2\)"):  # fmt: skip
        spmd.make_array_from_process_local_data(s, local, (16, 2))
    assert spmd.copy_to_host_async(a) is a


def test_dlpack_and_frompyfunc():
    got = spmd.numpy.from_dlpack(np.arange(3))
    assert got.dtype == np.int32 and got.tolist() == [0, 1, 2]
    assert spmd.dlpack.from_dlpack(np.ones(2, np.float32)).tolist() == [1.0, 1.0]
    assert spmd.dlpack.is_supported_dtype(np.float32) and spmd.dlpack.is_supported_dtype("bfloat16")
    assert not spmd.dlpack.is_supported_dtype(np.str_)
    with pytest.raises(ValueError, match="copy=False"):
        spmd.numpy.from_dlpack(np.arange(3), copy=False)
    # Values as JAX 0.10.2 gives them.
    jnp = spmd.numpy
    f = jnp.frompyfunc(lambda x, y: x * y + 1, 2, 1, identity=1)
    assert isinstance(f, jnp.ufunc) and f.identity == 1
    assert f(jnp.arange(3.0), 2.0).tolist() == [1.0, 3.0, 5.0]
    assert float(f.reduce(jnp.arange(1.0, 4.0))) == 16.0
    assert f.accumulate(jnp.arange(1.0, 4.0)).tolist() == [1.0, 3.0, 10.0]
    assert f.outer(jnp.arange(2.0), jnp.arange(3.0)).tolist() == [[1, 1, 1], [1, 2, 3]]
    assert float(spmd.jit(f.reduce)(jnp.arange(1.0, 4.0))) == 16.0


def test_use_abstract_mesh_and_single_device_sharding():
    from spmd.sharding import AbstractMesh, get_abstract_mesh, use_abstract_mesh

    am = AbstractMesh((2, 4), ("x", "y"))
    assert get_abstract_mesh().axis_names == ()
    with use_abstract_mesh(am):
        assert get_abstract_mesh() == am
        assert spmd.sharding.get_mesh() is None  # the concrete mesh is left alone
    assert get_abstract_mesh().axis_names == ()
    with pytest.raises(ValueError, match="Expected mesh of type `spmd.sharding.AbstractMesh`"):
        with use_abstract_mesh(spmd.make_mesh((8,), ("x",))):
            pass
    d = spmd.devices()[3]
    s = spmd.sharding.make_single_device_sharding(d)
    assert isinstance(s, spmd.sharding.SingleDeviceSharding) and s.device_set == {d}
    assert spmd.device_put(np.ones(3), s).devices() == {d}


def test_lax_linalg_lu_as_jax():
    # JAX 0.10.2: a list (lu packed, pivots, permutation).
    out = spmd.lax.linalg.lu(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    assert isinstance(out, list)
    np.testing.assert_allclose(np.asarray(out[0]), [[3.0, 4.0], [1 / 3, 2 / 3]], rtol=1e-6)
    assert out[1].tolist() == [1, 1] and out[2].tolist() == [1, 0]
    assert out[1].dtype == np.int32


def test_names_jax_removed_say_what_replaces_them():
    # JAX 0.10.2 raises AttributeError naming jax.device_put as the replacement.
    import spmd

    for name in ("device_put_replicated", "device_put_sharded"):
        with pytest.raises(
            AttributeError, match=rf"jax\.{name} is deprecated; use jax\.device_put"
        ):
            getattr(spmd, name)
        assert not hasattr(spmd, name)
    with pytest.raises(AttributeError, match="module 'spmd' has no attribute 'xla_computation'"):
        spmd.xla_computation  # noqa: B018
