"""The partitioner (spmd/_src/interpreters/partitioner.py, partition_rules.py, lowering.py).

A sweep of programs over (8,), (2,4) and (4,2) meshes and every sharding of their inputs: the
partitioned program (one shard_map body with the collectives the rules insert) must compute
exactly the global program. The inputs are small integers stored as float32, so every sum and
product is exact whatever the order of its terms: values must be *equal*, not close. (With
general floats, a sum over a sharded dimension is a local sum per device folded in device
order by psum; ``test_float_sum_folds_in_device_order`` checks that order bit for bit.)

Then ``as_text()`` (the reasons of the inserted collectives), ``cost_analysis()`` (bytes moved
per device, as written in docs/partitioner.md) and ``spmd_partition='always'``.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd._src.interpreters.partitioner import Reason
from spmd._src.sharding import equivalent
from spmd.sharding import NamedSharding
from spmd.sharding import PartitionSpec as P

MESHES = [((8,), ("x",)), ((2, 4), ("x", "y")), ((4, 2), ("x", "y"))]


def _axes(e) -> tuple:
    return () if e is None else (e,) if isinstance(e, str) else tuple(e)


def specs_2d(names) -> list[P]:
    """Every spec of a 2-D array over these mesh axes (each axis used at most once)."""
    ents = [None, *names, *itertools.permutations(names, 2)] if len(names) > 1 else [None, *names]
    out = []
    for a, b in itertools.product(ents, ents):
        used = _axes(a) + _axes(b)
        if len(used) == len(set(used)):
            out.append(P(a, b))
    return out


def ints(shape, mod=7, seed=0) -> np.ndarray:
    n = int(np.prod(shape))
    return (
        ((np.arange(n) * (2 * seed + 3) + seed) % mod - mod // 2).astype(np.float32).reshape(shape)
    )


def check(f, arrays, specs, mesh, out_shardings=None):
    """Partition ``jit(f)`` for inputs placed by ``specs``: its values equal the global ones,
    its results carry the global path's shardings. Returns the Partitioned program."""
    placed = [spmd.device_put(a, NamedSharding(mesh, s)) for a, s in zip(arrays, specs)]
    jf = spmd.jit(f, out_shardings=out_shardings)
    ref = jf(*placed)
    part = jf.lower(*placed).partitioned
    assert part is not None
    outs = part.run(*arrays)
    refs = ref if isinstance(ref, (tuple, list)) else [ref]
    assert len(outs) == len(refs)
    for o, r, spec in zip(outs, refs, part.out_specs):
        np.testing.assert_array_equal(o, np.asarray(r))
        assert o.dtype == np.asarray(r).dtype
        if isinstance(r.sharding, NamedSharding):
            assert equivalent(NamedSharding(mesh, spec), r.sharding, r.ndim)
    return part


@pytest.mark.parametrize("mesh_shape,names", MESHES)
def test_matmul_every_sharding_combination(mesh_shape, names):
    mesh = spmd.make_mesh(mesh_shape, names)
    a, b = ints((8, 8), 7, 1), ints((8, 8), 5, 2)
    specs = specs_2d(names)
    for sa, sb in itertools.product(specs, specs):
        check(lambda x, y: x @ y, [a, b], [sa, sb], mesh)


@pytest.mark.parametrize("mesh_shape,names", MESHES)
def test_elementwise_and_sums_every_sharding(mesh_shape, names):
    mesh = spmd.make_mesh(mesh_shape, names)
    a, b = ints((8, 8), 7, 1), ints((8, 8), 5, 2)
    specs = specs_2d(names)
    for s in specs:
        check(lambda x: 2 * jnp.sin(x) + 1, [a], [s], mesh)
        check(lambda x: (x.sum(axis=0), x.sum(axis=1), x.sum()), [a], [s], mesh)
        check(lambda x: (x.max(axis=0), x.min(axis=1), jnp.argmax(x, axis=0)), [a], [s], mesh)
    for sa, sb in itertools.product(specs, specs[:5]):
        check(lambda x, y: x * y - x, [a, b], [sa, sb], mesh)


@pytest.mark.parametrize("mesh_shape,names", MESHES)
def test_data_movement_every_sharding(mesh_shape, names):
    mesh = spmd.make_mesh(mesh_shape, names)
    a = ints((8, 8), 11, 3)
    for s in specs_2d(names):
        check(lambda x: x.T, [a], [s], mesh)
        check(lambda x: (x.reshape(64), x.reshape(2, 4, 8), x.reshape(8, 2, 4)), [a], [s], mesh)
        check(lambda x: (x[2:6], x[:, 1:7:2], x[None]), [a], [s], mesh)
        check(lambda x: (jnp.concatenate([x, x], axis=1), jnp.pad(x, 1)), [a], [s], mesh)
        check(lambda x: (jnp.broadcast_to(x[:, None, :], (8, 2, 8)), x[:, :1].squeeze(1)),
              [a], [s], mesh)  # fmt: skip
        check(lambda x: (jnp.cumsum(x, axis=0), (x @ x.T).reshape(64)), [a], [s], mesh)


@pytest.mark.parametrize("mesh_shape,names", MESHES)
def test_constraints_every_sharding(mesh_shape, names):
    mesh = spmd.make_mesh(mesh_shape, names)
    a = ints((8, 8), 9, 4)
    specs = specs_2d(names)
    for s, t in itertools.product(specs, specs):
        c = NamedSharding(mesh, t)
        part = check(lambda x, c=c: lax.with_sharding_constraint(x + 1, c), [a], [s], mesh)
        assert equivalent(NamedSharding(mesh, part.out_specs[0]), c, 2)


def test_reshape_of_a_split_leading_dim_moves_no_data():
    mesh = spmd.make_mesh((2, 4), ("x", "y"))
    # out_shardings pins the results where the reshape leaves them (whatever propagation says).
    out = NamedSharding(mesh, P("x"))
    part = check(lambda x: x.reshape(4, 2, 8) * 2, [ints((8, 8))], [P("x")], mesh, out)
    assert part.reasons == [] and part.out_specs == (P("x"),)
    out = NamedSharding(mesh, P(("x", "y")))
    part = check(lambda x: x.reshape(64), [ints((8, 8))], [P(("x", "y"))], mesh, out)
    assert part.reasons == [] and part.out_specs == (P(("x", "y")),)
    # 8 devices cannot split a leading dim of 4: 'y' is gathered, 'x' (2 ways) stays.
    out = NamedSharding(mesh, P("x"))
    part = check(lambda x: x.reshape(4, 2, 8), [ints((8, 8))], [P(("x", "y"))], mesh, out)
    assert [(r.collective, r.axes) for r in part.reasons] == [("all_gather", ("y",))]


def test_out_shardings_reshard_the_result():
    mesh = spmd.make_mesh((2, 4), ("x", "y"))
    out = NamedSharding(mesh, P(None, ("y", "x")))
    part = check(lambda x: x * 3, [ints((8, 8))], [P("x", "y")], mesh, out_shardings=out)
    assert part.out_specs == (P(None, ("y", "x")),)
    assert part.reasons and all(r.eqn is None for r in part.reasons)


def test_float_sum_folds_in_device_order():
    # Sums of general floats: a local sum per device, then psum folds the device results left
    # to right in device order. The reference does exactly that in NumPy.
    mesh = spmd.make_mesh((8,), ("x",))
    a = np.random.default_rng(0).standard_normal((64, 5)).astype(np.float32)
    jf = spmd.jit(lambda x: x.sum(axis=0))
    part = jf.lower(spmd.device_put(a, NamedSharding(mesh, P("x")))).partitioned
    got = part.run(a)[0]
    want = np.zeros(5, np.float32)
    for block in np.split(a, 8):
        want = want + np.sum(block, axis=0, dtype=np.float32)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got, a.sum(0), rtol=1e-5)


def test_float_contraction_is_local_dots_folded_in_device_order():
    mesh = spmd.make_mesh((4,), ("x",), devices=spmd.devices()[:4])
    rng = np.random.default_rng(1)
    a = rng.standard_normal((8, 16)).astype(np.float32)
    b = rng.standard_normal((16, 4)).astype(np.float32)
    jf = spmd.jit(lambda x, y: x @ y)
    xa = spmd.device_put(a, NamedSharding(mesh, P(None, "x")))
    yb = spmd.device_put(b, NamedSharding(mesh, P("x")))
    got = jf.lower(xa, yb).partitioned.run(a, b)[0]
    want = np.zeros((8, 4), np.float32)
    for k in range(4):
        blk = slice(4 * k, 4 * k + 4)
        want = want + np.asarray(jnp.dot(a[:, blk], b[blk]))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got, a @ b, rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------------------------
# as_text, reasons, cost_analysis


def _placed(mesh):
    x = spmd.device_put(ints((8, 8)), NamedSharding(mesh, P("x", "y")))
    w = spmd.device_put(ints((8, 4), 5), NamedSharding(mesh, P("y", None)))
    return x, w


def test_as_text_shows_psum_and_its_reason_for_a_sharded_contraction():
    mesh = spmd.make_mesh((2, 4), ("x", "y"))
    x, w = _placed(mesh)
    # out_shardings keeps 'x' on the rows: the one collective is the psum over 'y'.
    f = spmd.jit(lambda a, b: a @ b, out_shardings=NamedSharding(mesh, P("x")))
    text = f.lower(x, w).as_text()
    lines = text.splitlines()
    i = next(k for k, ln in enumerate(lines) if "= psum[" in ln)
    assert lines[i - 1].strip().startswith("# psum over ('y',)")
    assert (
        "eqn 0 (dot_general) contracts dims (1,) of operand 0 and (0,) of operand 1"
        in (lines[i - 1])
    )
    assert "a:f32[4,2] b:f32[2,4]" in text
    cost = f.lower(x, w).compile().cost_analysis()
    # per device: a (4,2)@(2,4) dot = 2*16*2 flops; psum of f32[4,4] over 4 devices:
    # 2*(4-1)/4*64 bytes.
    assert cost["flops"] == 64 and cost["bytes moved"] == 96
    assert cost["bytes moved psum"] == 96


def test_as_text_shows_the_collective_a_constraint_inserts():
    mesh = spmd.make_mesh((2, 4), ("x", "y"))
    x, w = _placed(mesh)
    c = NamedSharding(mesh, P("x", "y"))
    f = spmd.jit(lambda a, b: lax.with_sharding_constraint(a @ b, c))
    lo = f.lower(x, w)
    text = lo.as_text()
    assert "reduce_scatter[" in text and "psum[" not in text
    assert "# psum_scatter over ('y',): eqn 1 (sharding_constraint) operand 0 dim 1" in text
    (r,) = lo.partitioned.reasons
    assert isinstance(r, Reason) and (r.collective, r.dim, r.axes) == ("psum_scatter", 1, ("y",))
    # reduce-scatter of the local f32[4,4] partial product over 4 devices: (4-1)/4*64 bytes.
    assert lo.compile().cost_analysis()["bytes moved"] == 48
    np.testing.assert_array_equal(f(x, w), np.asarray(x) @ np.asarray(w))


def test_constraint_moving_an_axis_between_dims_is_an_all_to_all():
    mesh = spmd.make_mesh((8,), ("x",))
    a = spmd.device_put(ints((8, 16)), NamedSharding(mesh, P("x")))
    c = NamedSharding(mesh, P(None, "x"))
    lo = spmd.jit(lambda v: lax.with_sharding_constraint(v, c)).lower(a)
    (r,) = lo.partitioned.reasons
    assert r.collective == "all_to_all" and r.axes == ("x",)
    assert "all_to_all[" in lo.as_text()


def test_no_rule_gathers_and_says_why():
    mesh = spmd.make_mesh((8,), ("x",))
    a = spmd.device_put(ints((8, 8)), NamedSharding(mesh, P("x")))
    lo = spmd.jit(lambda v: jnp.sort(v, axis=0)).lower(a)
    assert any("no partition rule for sort" in str(r) for r in lo.partitioned.reasons)
    assert "# all_gather over ('x',)" in lo.as_text()


def test_debug_callback_in_a_global_branch_runs_once(always):
    # A cond of the global program holding a print: its operands are gathered and the print,
    # reached through the cond's mask rule, happens on the first device only.
    mesh = spmd.make_mesh((2, 4), ("x", "y"))
    a = spmd.device_put(np.arange(8.0), NamedSharding(mesh, P(("x", "y"))))
    calls = []

    def f(v):
        def yes(w):
            spmd.debug.callback(lambda s: calls.append(float(s)), w.sum())
            return w * 2

        return spmd.lax.cond(v.sum() > 0, yes, lambda w: w, v)

    jf = spmd.jit(f)
    out = jf(a)
    assert calls == [28.0]
    np.testing.assert_array_equal(np.asarray(out), np.arange(8.0) * 2)
    assert jf.lower(a).partitioned is not None


def test_indivisible_dims_are_split_as_far_as_they_divide():
    # With spmd_uneven='pad', placements may split 10 elements over 8 devices. The Arrays keep
    # that (padded) layout; the partitioned body splits each dimension only over the leading
    # mesh axes that divide it, so the program still runs partitioned.
    before = spmd.config.spmd_uneven
    spmd.config.update("spmd_uneven", "pad")
    try:
        m8 = spmd.make_mesh((8,), ("x",))
        c = NamedSharding(m8, P("x"))
        jf = spmd.jit(lambda v: lax.with_sharding_constraint(v * 2, c))
        lo = jf.lower(jnp.arange(10.0))
        assert lo.partitioned is not None and lo.partitioned.out_specs == (P(),)
        assert "not partitioned" not in lo.as_text()
        m24 = spmd.make_mesh((2, 4), ("x", "y"))
        c2 = NamedSharding(m24, P(("x", "y")))
        jg = spmd.jit(lambda v: lax.with_sharding_constraint(v + 1, c2) * 3)
        part = jg.lower(jnp.arange(4.0)).partitioned
        assert part.out_specs == (P("x"),)
        assert (
            "split as far as the dimensions divide: P('x',)" in jg.lower(jnp.arange(4.0)).as_text()
        )
        spmd.config.update("spmd_partition", "always")
        out = jf(jnp.arange(10.0))
        assert out.sharding == c and out.tolist() == [2.0 * i for i in range(10)]
        assert jg(jnp.arange(4.0)).tolist() == [3.0, 6.0, 9.0, 12.0]
        x = spmd.device_put(jnp.arange(6.0), c)  # uneven input, padded layout
        y = spmd.jit(lambda a: a + 1, out_shardings=c)(x)
        assert y.sharding == c and y.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
        assert float(spmd.jit(lambda a: (a * 3).sum())(x)) == 45.0
    finally:
        spmd.config.update("spmd_uneven", before)
        spmd.config.update("spmd_partition", "auto")


def test_unsharded_lowering_is_the_plain_jaxpr():
    lo = spmd.jit(lambda v: v + 1).lower(jnp.ones(4))
    assert lo.partitioned is None and lo.as_text().startswith("{ lambda")
    assert lo.compile().cost_analysis()["flops"] == 4.0  # the jaxpr's own: one add of 4


# ---------------------------------------------------------------------------------------------
# spmd_partition='always'


@pytest.fixture
def always():
    spmd.config.update("spmd_partition", "always")
    yield
    spmd.config.update("spmd_partition", "auto")


def test_partition_always_gives_the_same_values_and_shardings(always):
    mesh = spmd.make_mesh((2, 4), ("x", "y"))
    x, w = _placed(mesh)
    fns = [
        lambda a, b: a @ b,
        lambda a, b: (2 * jnp.sin(a) + 1).sum(axis=0),
        lambda a, b: lax.with_sharding_constraint(a @ b, NamedSharding(mesh, P("x", "y"))),
    ]
    for fn in fns:
        got = spmd.jit(fn)(x, w)
        spmd.config.update("spmd_partition", "auto")
        want = spmd.jit(fn)(x, w)
        spmd.config.update("spmd_partition", "always")
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
        assert got.sharding == want.sharding


def test_partition_always_leaves_unsharded_calls_alone(always):
    assert spmd.jit(lambda v: v * 2)(jnp.arange(3)).tolist() == [0, 2, 4]


def test_partition_option_rejects_unknown_values():
    with pytest.raises(ValueError, match="spmd_partition"):
        spmd.config.update("spmd_partition", "sometimes")


def test_broadcast_operands_keep_size_one_dims_whole():
    # x @ w + b: the bias is broadcast as f32[1,8] against f32[8,8]; its size-1 dim is not split.
    mesh = spmd.make_mesh((2, 4), ("x", "y"))
    rng = np.random.default_rng(0)
    put = lambda v, s: spmd.device_put(v.astype(np.float32), NamedSharding(mesh, s))  # noqa: E731
    x = put(rng.integers(-3, 4, (8, 16)), P("x", None))
    w = put(rng.integers(-3, 4, (16, 8)), P(None, "y"))
    b = put(rng.integers(-3, 4, (8,)), P("y"))
    f = spmd.jit(lambda x, w, b: spmd.nn.relu(x @ w + b) - jnp.arange(8.0))
    text = f.lower(x, w, b).as_text()
    assert "not partitioned" not in text.splitlines()[0]
    want = np.maximum(np.asarray(x) @ np.asarray(w) + np.asarray(b), 0) - np.arange(8.0)
    spmd.config.update("spmd_partition", "always")
    try:
        got = f(x, w, b)
    finally:
        spmd.config.update("spmd_partition", "auto")
    assert np.asarray(got).tobytes() == want.astype(np.float32).tobytes()


def test_debug_callback_runs_once_when_partitioning_is_asked(always):
    # A side effect of the global program is not partitioned into one per device: the body
    # gathers its operands and runs it on the first device only.
    mesh = spmd.make_mesh((2, 4), ("x", "y"))
    data = np.arange(64.0, dtype=np.float32).reshape(8, 8)
    a = spmd.device_put(data, NamedSharding(mesh, P("x", "y")))
    calls = []

    def f(v):
        spmd.debug.callback(lambda s, w: calls.append((float(s), np.asarray(w))), v.sum(), v)
        return v * 2

    out = spmd.jit(f)(a)
    assert len(calls) == 1 and calls[0][0] == data.sum()
    np.testing.assert_array_equal(calls[0][1], data)
    np.testing.assert_array_equal(np.asarray(out), data * 2)
    part = spmd.jit(f).lower(a).partitioned
    assert part is not None
    text = spmd.jit(f).lower(a).as_text()
    assert "has a debug callback: it sees the global values, once" in text
    assert "masked=True" in text


def test_shard_map_over_part_of_the_mesh_runs_partitioned(always):
    # The body is walked over the axes the shard_map leaves automatic: its values keep their
    # split there, and a collective over the manual axis needs nothing inserted.
    mesh = spmd.make_mesh((2, 4), ("x", "y"))
    data = np.arange(32.0).reshape(8, 4)
    x = spmd.device_put(data, NamedSharding(mesh, P("x", "y")))
    f = spmd.jit(
        spmd.shard_map(
            lambda a: spmd.lax.psum(a, "x") * 2,
            mesh=mesh,
            in_specs=P("x"),
            out_specs=P(),
            axis_names={"x"},
        )
    )
    part = f.lower(x).partitioned
    assert part is not None and part.reasons == [] and part.out_specs == (P(None, "y"),)
    # The body's own psum over 'x' (2 devices) moves its f32[4, 1] block: 2 * (1/2) * 16 bytes.
    assert f.lower(x).compile().cost_analysis()["bytes moved"] == 16.0
    out = f(x)
    assert out.sharding == NamedSharding(mesh, P(None, "y"))
    np.testing.assert_array_equal(np.asarray(out), (data[:4] + data[4:]) * 2)
