"""Unreduced and reduced arrays on Explicit mesh axes (JAX 0.10's ``P(unreduced=...)`` and
``P(reduced=...)``): their types, which operations take them, the cotangent map (a reduced
primal's cotangent is unreduced) and their shards. The expected texts and errors are JAX
0.10.2's on the same programs (docs/301/sharding-ad.md and probes of it)."""

from __future__ import annotations

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd.sharding import AxisType
from spmd.sharding import PartitionSpec as P

ShardingTypeError = spmd._src.interpreters.sharding_rules.ShardingTypeError


@pytest.fixture
def mesh():
    m = spmd.make_mesh((2,), ("X",), axis_types=(AxisType.Explicit,))
    with spmd.set_mesh(m):
        yield m


def _ab():
    a = spmd.device_put(jnp.arange(4.0).reshape(2, 2), P(None, "X"))
    b = spmd.device_put(jnp.arange(4.0, 8.0).reshape(2, 2), P("X", None))
    return a, b


def _partial(a, b):
    return jnp.einsum("ij,jk->ik", a, b, out_sharding=P(None, None, unreduced={"X"}))


def test_unreduced_contraction_is_typed_and_resharding_sums_it(mesh):
    a, b = _ab()
    c = _partial(a, b)
    assert str(spmd.typeof(c)) == "float32[2,2]{U:X}"
    assert c.sharding.spec.unreduced == {"X"}
    want = np.arange(4.0).reshape(2, 2) @ np.arange(4.0, 8.0).reshape(2, 2)
    r = spmd.reshard(c, P(None, None))
    assert str(spmd.typeof(r)) == "float32[2,2]"
    np.testing.assert_array_equal(np.asarray(r), want)
    # The shards are addends of the value: spmd's are the value on device 0, zeros on device 1.
    shards = [np.asarray(s.data) for s in c.addressable_shards]
    np.testing.assert_array_equal(shards[0] + shards[1], want)
    np.testing.assert_array_equal(shards[1], 0)


def test_linear_operations_keep_unreduced_others_refuse_it(mesh):
    a, b = _ab()
    c, c2 = _partial(a, b), _partial(2.0 * a, b)
    assert str(spmd.typeof(c + c2)) == "float32[2,2]{U:X}"
    assert str(spmd.typeof(c.T)) == "float32[2,2]{U:X}"
    assert str(spmd.typeof(c.sum())) == "float32[]{U:X}"
    assert str(spmd.typeof(c.astype(jnp.float16))) == "float16[2,2]{U:X}"
    np.testing.assert_array_equal(np.asarray(spmd.reshard(c + c2, P())), 3 * np.asarray(c))
    with pytest.raises(NotImplementedError, match=r"unreduced rule for cos .*float32\[2,2\]"
                                                  r"\{U:X\}"):  # fmt: skip
        jnp.cos(c)
    with pytest.raises(ShardingTypeError, match=r"lhs is unreduced while rhs is not. `add`.*"
                                                r"rhs=float32\[2,2\]$"):  # fmt: skip
        c + jnp.ones((2, 2))
    with pytest.raises(ShardingTypeError, match="cannot be unreduced since mul is bilinear"):
        c * c
    with pytest.raises(ShardingTypeError, match="RHS should be reduced along the same axes"):
        c * jnp.ones((2, 2))
    # Under jit too (the types are checked while tracing).
    with pytest.raises(NotImplementedError, match="unreduced rule for cos"):
        spmd.jit(jnp.cos)(c)
    assert str(spmd.typeof(spmd.jit(lambda u: u + u)(c))) == "float32[2,2]{U:X}"


def test_reduced_is_replicated_in_the_forward_pass(mesh):
    w = spmd.device_put(jnp.arange(8.0).reshape(4, 2), P())
    wr = spmd.reshard(w, P(None, None, reduced={"X"}))
    assert str(spmd.typeof(wr)) == "float32[4,2]{R:X}"
    assert str(spmd.typeof(jnp.sin(wr))) == "float32[4,2]{R:X}"
    assert str(spmd.typeof(wr * 2)) == "float32[4,2]{R:X}"
    x = spmd.device_put(jnp.ones((8, 4)), P("X", None))
    assert str(spmd.typeof(x @ wr)) == "float32[8@X,2]"  # X shards the result
    with pytest.raises(ShardingTypeError, match="add: inputs cannot be replicated on the same"):
        wr + w
    np.testing.assert_array_equal(np.asarray(wr), np.asarray(w))


def test_reduced_primal_has_unreduced_cotangent(mesh):
    w = spmd.device_put(jnp.arange(8.0).reshape(4, 2) / 10.0, P())
    x = spmd.device_put(jnp.arange(32.0).reshape(8, 4), P("X", None))

    def loss(w, x):
        return jnp.sum((x @ spmd.reshard(w, P(None, None, reduced={"X"}))) ** 2)

    text = str(spmd.jit(spmd.grad(loss)).trace(w, x).jaxpr)
    assert "j:f32[2,4]{U:X} = dot_general" in text
    assert "k:f32[4,2]{U:X} = transpose" in text
    assert "l:f32[4,2] = reshard k\n  in (l,) }" in text
    g = spmd.grad(loss)(w, x)
    assert str(spmd.typeof(g)) == "float32[4,2]"
    want = 2 * np.asarray(x).T @ (np.asarray(x) @ np.asarray(w))
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-6)
    wr = spmd.reshard(w, P(None, None, reduced={"X"}))
    gr = spmd.grad(lambda w: jnp.sum(jnp.sin(w)))(wr)
    assert str(spmd.typeof(gr)) == "float32[4,2]{U:X}"
    np.testing.assert_allclose(np.asarray(spmd.reshard(gr, P())), np.cos(np.asarray(w)), 1e-6)


def _loss3(ws, xs):
    def layer(h, w):
        return jnp.tanh(h @ w), None

    return jnp.sum(spmd.lax.scan(layer, xs, ws)[0] ** 2)


def _loss3_np(ws, xs):
    h = xs
    for w in ws:
        h = np.tanh(h @ w)
    return (h**2).sum()


def test_grad_through_scan_over_a_sharded_batch(mesh):
    # The transposed scan body's contraction over the sharded batch needs the weights' type
    # (its cotangent's): spmd's linear scan body was untyped and the contraction ambiguous.
    ws = spmd.device_put(jnp.stack([jnp.eye(4) / 2] * 3), P())
    xs = spmd.device_put(jnp.ones((2, 4)), P("X", None))
    g = spmd.jit(spmd.grad(_loss3))(ws, xs)
    assert str(spmd.typeof(g)) == "float32[3,4,4]"
    eps, w0 = 1e-3, np.asarray(ws, np.float64)
    d = np.zeros_like(w0)
    d[1, 2, 3] = eps
    num = (_loss3_np(w0 + d, np.ones((2, 4))) - _loss3_np(w0 - d, np.ones((2, 4)))) / (2 * eps)
    assert abs(float(g[1, 2, 3]) - num) < 1e-4


def test_unreduced_accumulator_in_a_scan(mesh):
    ws = spmd.device_put(jnp.stack([jnp.eye(4) / 2] * 3), P(reduced={"X"}))
    xs = spmd.device_put(jnp.ones((5, 2, 4)), P(None, "X", None))

    @spmd.jit
    def step(ws, xs):
        def micro(acc, x):
            g = spmd.grad(_loss3)(ws, x)
            assert spmd.typeof(g).sharding.spec.unreduced == {"X"}
            return acc + g, None

        acc = spmd.reshard(jnp.zeros_like(ws), P(unreduced={"X"}))
        acc, _ = spmd.lax.scan(micro, acc, xs)
        assert str(spmd.typeof(acc)) == "float32[3,4,4]{U:X}"
        return spmd.reshard(ws, P()) - 0.01 * spmd.reshard(acc, P())

    out = step(ws, xs)
    assert str(spmd.typeof(out)) == "float32[3,4,4]"
    ref = spmd.jit(spmd.grad(_loss3))(spmd.reshard(ws, P()), xs[0])
    np.testing.assert_allclose(np.asarray(out), np.asarray(ws) - 0.05 * np.asarray(ref), 1e-6)


def test_shard_map_with_unreduced_out_specs_sums_the_partial_sums(mesh):
    a, b = _ab()

    @spmd.shard_map(in_specs=(P(None, "X"), P("X", None)),
                    out_specs=P(None, None, unreduced={"X"}))  # fmt: skip
    def partial_matmul(a, b):
        return spmd.lax.pcast(a @ b, "X", to="unreduced")

    c = partial_matmul(a, b)
    assert str(spmd.typeof(c)) == "float32[2,2]{U:X}"
    want = np.arange(4.0).reshape(2, 2) @ np.arange(4.0, 8.0).reshape(2, 2)
    np.testing.assert_array_equal(np.asarray(spmd.reshard(c, P())), want)

    def loss(a, b):
        return jnp.sum(spmd.reshard(partial_matmul(a, b), P(None, None)))

    ga, gb = spmd.jit(spmd.grad(loss, argnums=(0, 1)))(a, b)
    assert [str(spmd.typeof(g)) for g in (ga, gb)] == ["float32[2,2@X]", "float32[2@X,2]"]
    np.testing.assert_array_equal(np.asarray(ga), [[9.0, 13.0], [9.0, 13.0]])
    np.testing.assert_array_equal(np.asarray(gb), [[2.0, 2.0], [4.0, 4.0]])
