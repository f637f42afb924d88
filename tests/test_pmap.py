"""pmap: the programs of seeds 000, 001, 002 and 003 with the import swapped, compositions with
jit and vmap, its arguments, and bad input.

Expected values are the seeds' printed values (they do not depend on the hardware) or JAX
0.10.2's results on 8 CPU devices.
"""

from __future__ import annotations

import time

import numpy as np
import pytest

import spmd as jax
import spmd.numpy as jnp
from spmd import lax
from spmd.sharding import NamedSharding
from spmd.sharding import PartitionSpec as P

# ---------------------------------------------------------------------------------------------
# Seed 000: all_gather, with and without axis_index_groups


def test_seed_000_all_gather(capsys):
    x = np.arange(4)

    def f(x):
        return jax.lax.all_gather(x, "i")

    def g(x):
        return jax.lax.all_gather(x, "i") + x

    print(jax.pmap(f, axis_name="i")(x))
    print(jax.pmap(g, axis_name="i")(x))
    assert capsys.readouterr().out == (
        "[[0 1 2 3]\n [0 1 2 3]\n [0 1 2 3]\n [0 1 2 3]]\n"
        "[[0 1 2 3]\n [1 2 3 4]\n [2 3 4 5]\n [3 4 5 6]]\n"
    )


def test_seed_000_all_gather_groups(capsys):
    x = np.arange(16).reshape(4, 4)

    def f(x):
        return jax.lax.all_gather(x, "i") + x

    def g(x):
        return jax.lax.all_gather(x, "i", axis_index_groups=[[0, 2], [3, 1]]) + x

    fy = jax.pmap(f, axis_name="i")(x)
    assert np.asarray(fy).tolist() == [(x + x[d]).tolist() for d in range(4)]
    gy = jax.pmap(g, axis_name="i")(x)
    print(gy)
    assert capsys.readouterr().out == (
        "[[[ 0  2  4  6]\n  [ 8 10 12 14]]\n\n"
        " [[16 18 20 22]\n  [ 8 10 12 14]]\n\n"
        " [[ 8 10 12 14]\n  [16 18 20 22]]\n\n"
        " [[24 26 28 30]\n  [16 18 20 22]]]\n"
    )


# ---------------------------------------------------------------------------------------------
# Seed 002: psum_scatter


def test_seed_002_psum_scatter(capsys):
    x = np.arange(16).reshape(4, 4)
    print(jax.pmap(lambda x: jax.lax.psum_scatter(x, "i"), axis_name="i")(x))
    print(jax.pmap(lambda x: jax.lax.psum_scatter(x, "i", tiled=True), axis_name="i")(x))

    def f(x):
        return jax.lax.psum_scatter(x, "i", axis_index_groups=[[0, 2], [3, 1]], tiled=True)

    print(jax.pmap(f, axis_name="i")(x))
    assert capsys.readouterr().out == (
        "[24 28 32 36]\n[[24]\n [28]\n [32]\n [36]]\n[[ 8 10]\n [20 22]\n [12 14]\n [16 18]]\n"
    )


# ---------------------------------------------------------------------------------------------
# Seed 001: vmap against pmap, too many devices, reshaping, compositions


def dot(v, u):
    return jnp.vdot(v, u)


def test_seed_001_too_many_logical_devices():
    # Ten million rows, never materialized: the error comes before any work on the data.
    v = np.broadcast_to(np.float32(1), (10_000_000, 3))
    start = time.perf_counter()
    with pytest.raises(ValueError) as e:
        jax.pmap(dot)(v, v)
    assert time.perf_counter() - start < 0.5
    msg = str(e.value)
    assert msg.startswith(
        "compiling computation that requires 10000000 logical devices, but only 8 XLA devices "
        "are available (num_replicas=10000000, num_partitions=1)"
    )
    assert "v.reshape(8, -1, 3) gives shape (8, 1250000, 3)" in msg and "pmap(vmap(f))" in msg


def test_too_many_devices_not_a_multiple():
    want = r"(?s)requires 10 logical devices.*10 is not a multiple of 8: pad the mapped axis"
    with pytest.raises(ValueError, match=want + r" to a multiple of 8 \(e\.g\. 16\)"):
        jax.pmap(lambda a: a)(np.zeros((10, 2)))


def test_seed_001_reshaped_and_composed():
    rng = np.random.default_rng(42)
    v = rng.normal(size=(8 * 64, 3)).astype(np.float32)
    u = rng.normal(size=(8 * 64, 3)).astype(np.float32)
    vp = v.reshape(jax.local_device_count(), -1, 3)
    up = u.reshape(jax.local_device_count(), -1, 3)
    res = jax.pmap(dot)(vp, up)
    assert res.shape == (8,)
    assert np.allclose(np.asarray(res), np.einsum("dij,dij->d", vp, up), rtol=1e-5)
    res = jax.pmap(jax.vmap(dot))(vp, up)
    assert res.shape == (8, 64)
    assert np.allclose(np.asarray(res), np.einsum("dij,dij->di", vp, up), rtol=1e-5)
    v1s, v2s = v[:8], u[:8]
    want = np.asarray(jax.vmap(dot)(v1s, v2s))
    for f in (jax.pmap(dot), jax.jit(jax.pmap(dot)), jax.pmap(jax.jit(dot))):
        assert np.asarray(f(v1s, v2s)).tobytes() == want.tobytes()
    text = str(jax.make_jaxpr(jax.pmap(dot))(vp, up))
    assert "shard_map[" in text and "d:f32[1,64,3]" in text and "check_vma=False" in text


def test_results_are_sharded_over_devices():
    r = jax.pmap(lambda a: a * 2, axis_name="i")(np.arange(4.0))
    assert isinstance(r, jax.Array)
    mesh = r.sharding.mesh
    assert mesh.axis_names == ("i",) and list(mesh.devices) == jax.devices()[:4]
    assert r.sharding == NamedSharding(mesh, P("i"))
    assert [s.device.id for s in r.addressable_shards] == [0, 1, 2, 3]
    assert np.asarray(r.addressable_shards[2].data).tolist() == [4.0]


# ---------------------------------------------------------------------------------------------
# Seed 003: a computation over 8 devices; data-parallel training


def convolve(x, w):
    output = []
    for i in range(1, len(x) - 1):
        output.append(jnp.dot(x[i - 1 : i + 2], w))
    return jnp.array(output)


def test_seed_003_convolve():
    n_devices = jax.local_device_count()
    xs = np.arange(5 * n_devices).reshape(-1, 5)
    w = np.array([2.0, 3.0, 4.0])
    ws = np.stack([w] * n_devices)
    want = [[np.dot(r[i - 1 : i + 2], w) for i in range(1, 4)] for r in xs]
    assert np.asarray(jax.pmap(convolve)(xs, ws)).tolist() == want
    assert np.asarray(jax.pmap(convolve, in_axes=(0, None))(xs, w)).tolist() == want
    assert want[0] == [11.0, 20.0, 29.0] and want[-1] == [326.0, 335.0, 344.0]


def test_seed_003_data_parallel_training_step():
    rng = np.random.default_rng(0)
    xs = rng.normal(size=(8 * 16, 3)).astype(np.float32)
    ys = (xs @ np.array([1.0, -2.0, 0.5], np.float32) + 0.3).astype(np.float32)
    params = (jnp.zeros(3), jnp.zeros(()))

    def loss(p, x, y):
        w, b = p
        return jnp.mean((x @ w + b - y) ** 2)

    def update(p, x, y):
        value, grads = jax.value_and_grad(loss)(p, x, y)
        grads = lax.pmean(grads, axis_name="batch")
        value = lax.pmean(value, axis_name="batch")
        return jax.tree_util.tree_map(lambda a, g: a - 0.1 * g, p, grads), value

    step = jax.pmap(update, axis_name="batch", in_axes=(None, 0, 0), out_axes=(None, None))
    p_dp, l_dp = step(params, xs.reshape(8, 16, 3), ys.reshape(8, 16))
    value, grads = jax.value_and_grad(loss)(params, xs, ys)
    p_one = jax.tree_util.tree_map(lambda a, g: a - 0.1 * g, params, grads)
    assert np.allclose(float(l_dp), float(value), rtol=1e-5)
    for a, b in zip(p_dp, p_one):
        assert np.allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------------
# Arguments and compositions


def test_in_axes_out_axes_static_and_axis_size():
    x = jnp.arange(12.0).reshape(3, 4)
    assert jax.pmap(lambda v: v * 2, in_axes=1)(x).shape == (4, 3)
    out = jax.pmap(lambda v: v * 2, in_axes=1, out_axes=1)(x)
    assert np.asarray(out).tolist() == (2 * np.asarray(x)).tolist()
    out = jax.pmap(lambda v, k: v * k, static_broadcasted_argnums=1)(x, 3)
    assert np.asarray(out).tolist() == (3 * np.asarray(x)).tolist()
    out = jax.pmap(lambda v, w: v + w, in_axes=(0, None))(x, jnp.ones(4))
    assert np.asarray(out).tolist() == (np.asarray(x) + 1).tolist()
    out = jax.pmap(lambda v: lax.psum(v, "i"), axis_name="i", out_axes=None)(x)
    assert np.asarray(out).tolist() == [12.0, 15.0, 18.0, 21.0]
    out = jax.pmap(lambda: lax.axis_index("i"), axis_name="i", axis_size=3)()
    assert np.asarray(out).tolist() == [0, 1, 2]
    out = jax.pmap(lambda a, b: a - b)(x, b=x)
    assert np.asarray(out).tolist() == np.zeros((3, 4)).tolist()
    out = jax.pmap(lambda a: a + 1, donate_argnums=0, devices=jax.devices()[2:5])(x)
    assert [d.id for d in out.sharding.mesh.devices] == [2, 3, 4]


def test_nested_pmap_and_vmap_of_pmap():
    x = jnp.arange(8.0).reshape(2, 4)
    f = jax.pmap(
        jax.pmap(lambda v: lax.psum(v, "i") + lax.axis_index("j"), axis_name="j"), axis_name="i"
    )
    assert np.asarray(f(x)).tolist() == [[4.0, 7.0, 10.0, 13.0]] * 2
    g = jax.vmap(jax.pmap(lambda v: lax.psum(v, "i"), axis_name="i"))
    assert np.asarray(g(x)).tolist() == [[6.0] * 4, [22.0] * 4]
    h = jax.pmap(jax.vmap(lambda v: lax.psum(v, ("i", "k")), axis_name="k"), axis_name="i")
    assert np.asarray(h(x)).tolist() == [[28.0] * 4] * 2


def test_pmap_of_pytrees_and_multiple_outputs():
    tree = {"a": np.arange(4.0), "b": (np.ones((4, 2)),)}
    out = jax.pmap(lambda t: (t["a"] * 2, lax.psum(t["b"][0], "i")), axis_name="i")(tree)
    assert np.asarray(out[0]).tolist() == [0.0, 2.0, 4.0, 6.0]
    assert np.asarray(out[1]).tolist() == [[4.0, 4.0]] * 4


def test_grad_of_pmap_with_replicated_argument():
    w = jnp.array(2.0)
    xs = jnp.arange(4.0)
    g = jax.grad(lambda w: jax.pmap(lambda x, w: w * x, in_axes=(0, None))(xs, w).sum())(w)
    assert float(g) == 6.0


# ---------------------------------------------------------------------------------------------
# Bad input


def test_devices_and_mapped_size_differ():
    with pytest.raises(ValueError, match=r"mapped axis has size 3, but 2 devices were passed"):
        jax.pmap(lambda a: a, devices=jax.devices()[:2])(np.zeros(3))


def test_in_axes_out_of_range():
    with pytest.raises(ValueError, match=r"along axis 2, which implies that its rank should be "
                                         r"at least 3, but is only 2"):  # fmt: skip
        jax.pmap(lambda a: a, in_axes=2)(np.zeros((2, 2)))


def test_nothing_mapped():
    with pytest.raises(ValueError, match=r"at least one argument with a mapped axis"):
        jax.pmap(lambda a: a, in_axes=None)(np.zeros(2))


def test_unhashable_static_argument():
    with pytest.raises(ValueError, match=r"static_broadcasted_argnums arguments must be hashable"):
        jax.pmap(lambda a, k: a, static_broadcasted_argnums=1)(np.zeros(2), [1])


def test_pmap_of_jit_over_different_device_counts():
    g = jax.jit(lambda v: lax.all_gather(v, "i"))
    assert jax.pmap(g, axis_name="i")(np.arange(4.0)).shape == (4, 4)
    assert jax.pmap(g, axis_name="i")(np.arange(8.0)).shape == (8, 8)
