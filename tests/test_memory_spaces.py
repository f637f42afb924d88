"""Memory spaces in types (spmd/_src/memory_spaces.py, spmd/_src/lax/device_put.py) against
JAX 0.10.2 on the programs of tests/golden_gen/memory_spaces_gen.py: ``typeof`` and jaxprs say
``float32<host>[8]`` / ``f32<host>[8]`` for arrays in pinned_host memory, operations keep it,
``device_put`` inside a trace is the ``device_put`` primitive, jit equations print the
in/out_shardings they were given, and jitted and eager results are placed (and typed) as JAX's.
Then the errors, one test per case, with the messages spmd gives."""

from __future__ import annotations

import types

import numpy as np
import pytest
from golden_compare import load_golden, load_golden_family

import spmd
import spmd.memory
import spmd.numpy as jnp
from spmd.sharding import AxisType, NamedSharding
from spmd.sharding import PartitionSpec as P

gen, GOLDEN = load_golden_family("memory_spaces")
STRUCTS = load_golden("memory_spaces", "structs")
NS = types.SimpleNamespace(
    jax=spmd, jnp=jnp, P=P, NamedSharding=NamedSharding, AxisType=AxisType,
    Space=spmd.memory.Space,
)  # fmt: skip
Space = spmd.memory.Space
MESH = spmd.make_mesh((8,), ("x",), axis_types=(AxisType.Auto,))
HOST = NamedSharding(MESH, P("x"), memory_kind="pinned_host")


def test_golden_cases_are_all_run():
    assert sorted(GOLDEN) == sorted(gen.CASES)


def _same_outs(got, want):
    if "error" in want:
        assert got == want
        return
    assert got["types"] == want["types"]
    assert got["shardings"] == want["shardings"]
    for g, w in zip(got["values"], want["values"], strict=True):
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6, atol=1e-6)


# JAX 0.10.2's jit of a program calling a jit whose out_shardings name pinned_host places the
# outer results in device memory (their types are f32[8]); spmd's outer jit, placing results as
# their types say, does the same. JAX's jit of grad through a device_put to Space.Device on a
# one-device host array gives the cotangent a one-device sharding; spmd's too.
#
# Eagerly, JAX 0.10.2 indexes a host array with a static integer through a gather with indices
# in device memory, which its memory-space rule refuses (ValueError); traced, the same index is a
# slice and works. spmd indexes eagerly as it traces: the result is the jitted one.
@pytest.mark.parametrize("name", sorted(gen.CASES))
def test_matches_jax(name):
    got, want = gen.run_case(NS, name), GOLDEN[name]
    assert got["arg_types"] == want["arg_types"]
    assert got["jaxpr"] == want["jaxpr"]
    _same_outs(got["jit"], want["jit"])
    if name == "index":
        assert want["eager"] == {"error": "ValueError"}
        _same_outs(got["eager"], want["jit"])
        return
    _same_outs(got["eager"], want["eager"])


def test_shape_dtype_struct_in_host_memory():
    assert gen.run_structs(NS) == STRUCTS


def test_space_is_jax_memory_space():
    assert list(Space) == [Space.Device, Space.Host, Space.Any]
    assert repr(Space.Host) == "MemorySpace.Host"
    assert spmd.typeof(spmd.device_put(np.ones(3, np.float32), Space.Host)).memory_space is (
        Space.Host
    )


def test_host_and_device_arguments_are_different_programs():
    # The jit cache keys a program on its arguments' memory spaces: a host argument after a
    # device one is traced again (its program's types say <host>).
    f = spmd.jit(lambda a: a * 2)
    dev = spmd.device_put(np.arange(8.0, dtype=np.float32), HOST.with_memory_kind("device"))
    host = spmd.device_put(np.arange(8.0, dtype=np.float32), HOST)
    assert str(spmd.typeof(f(dev))) == "float32[8]"
    assert str(spmd.typeof(f(host))) == "float32<host>[8]"
    assert str(spmd.typeof(f(dev))) == "float32[8]"


# -- errors ----------------------------------------------------------------------------------


def _host(shape=(8,)):
    return spmd.device_put(
        np.ones(shape, np.float32), NamedSharding(MESH, P("x"), memory_kind="pinned_host")
    )


def test_error_mixing_host_and_device_traced():
    # The message names the primitive and both operand types (with their sizes).
    msg = r"`add` must be the same\. .* float32<host>\[8\] .* float32\[8\]"
    with pytest.raises(ValueError, match=msg):
        spmd.make_jaxpr(lambda a, b: a + b)(_host(), np.ones(8, np.float32))


def test_error_mixing_host_and_device_eager():
    msg = r"`mul` must be the same\. .* float32<host>\[8\] .* float32\[8\]"
    with pytest.raises(ValueError, match=msg):
        _host() * jnp.ones(8)


def test_error_mixing_host_and_device_under_jit():
    with pytest.raises(ValueError, match=r"`sub` must be the same.*float32<host>\[8\]"):
        spmd.jit(lambda a: a - jnp.arange(8.0))(_host())


def test_error_grad_of_host_result():
    msg = r"VJP function: got float32\[\], but expected float32<host>\[\]"
    with pytest.raises(ValueError, match=msg):
        spmd.grad(lambda a: jnp.sum(a * a))(_host())


def test_error_device_put_space_any_eager():
    # JAX raises AssertionError here (an internal "unreachable"); spmd says why.
    with pytest.raises(AssertionError, match=r"device_put: MemorySpace\.Any names no memory"):
        spmd.device_put(np.ones(3, np.float32), Space.Any)


def test_error_device_put_bad_target():
    with pytest.raises(ValueError, match=r"device_put: expected None, .* got 'host' of type str"):
        spmd.device_put(np.ones(3, np.float32), "host")


def test_error_shape_dtype_struct_with_space():
    with pytest.raises(ValueError, match=r"ShapeDtypeStruct: .*MemorySpace\.Host .*shape \(8,\)"):
        spmd.ShapeDtypeStruct((8,), np.float32, sharding=Space.Host)


def test_error_device_put_host_sharding_rank():
    # A traced device_put into host memory checks the sharding against the value's rank.
    with pytest.raises(ValueError, match=r"device_put"):
        spmd.make_jaxpr(
            lambda a: spmd.device_put(
                a, NamedSharding(MESH, P("x", None), memory_kind="pinned_host")
            )
        )(np.ones(8, np.float32))


def _one_device_shardings():
    mesh = spmd.sharding.Mesh(np.array(spmd.devices()[0]).reshape(1, 1), ("x", "y"))
    dev = NamedSharding(mesh, P("x", "y"), memory_kind="device")
    return dev, dev.with_memory_kind("pinned_host")


def test_grad_through_scan_of_host_xs_is_in_host_memory():
    # As JAX 0.10.2: the slices of xs in host memory, their tangents and the stacked
    # cotangents of the transposed scan are typed there (f32<host>), and so is the gradient.
    dev, host = _one_device_shardings()
    wh = spmd.device_put(jnp.ones((2, 4, 8)), host)

    def g(w):
        body = lambda c, x: (c + jnp.sum(spmd.device_put(x, dev)), None)  # noqa: E731
        return spmd.lax.scan(body, 0.0, w)[0]

    text = str(spmd.make_jaxpr(spmd.grad(g))(wh))
    assert "_:f32[] i:f32<host>[2,4,8] = scan[" in text.replace("h:", "i:")
    got = spmd.jit(spmd.grad(g))(wh)
    assert got.sharding.memory_kind == "pinned_host"
    np.testing.assert_array_equal(got, 1.0)


def test_jit_result_takes_the_first_named_argument_sharding_of_its_layout():
    # JAX names a result whose layout (on a 1x1 mesh: every layout), rank and memory are
    # the first NamedSharding argument's with that argument's sharding.
    dev, host = _one_device_shardings()
    w = spmd.device_put(jnp.ones((2, 4, 8)), host)
    out = spmd.jit(lambda w, x: (w * 2, x.T, jnp.ones((2, 4, 8))))(w, jnp.ones((3, 5)))
    assert out[0].sharding == host  # P('x', 'y'), not the spec propagation gives
    assert out[1].sharding.memory_kind == "device"
    assert out[2].sharding.memory_kind == "device"
