"""shard_map: seed 004's cells, a systematic comparison of the batched execution with the
reference loop over devices, transformations of shard_map, replication checking and bad input.

Expected values come from seed 004, from JAX 0.10.2 on 8 CPU devices (Auto mesh axes), or from
the reference loop (``shard_map_reference``), which interprets the body device by device.
"""

from __future__ import annotations

import itertools
import zlib
from functools import partial

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd._src.shard_map import reference_mode
from spmd.experimental.shard_map import shard_map as old_shard_map
from spmd.sharding import NamedSharding
from spmd.sharding import PartitionSpec as P
from spmd.test_util import check_grads


def mesh_of(shape, names):
    n = int(np.prod(shape))
    return spmd.make_mesh(shape, names, devices=spmd.devices()[:n])


# ---------------------------------------------------------------------------------------------
# Seed 004


def test_seed_004_shard_map_cells(capsys):
    mesh = spmd.make_mesh((8,), ("x",))
    x = jnp.arange(32)

    def f(x):
        print(f"device local shape: {x.shape=}")
        return x * 2

    y = old_shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(x)
    assert capsys.readouterr().out == "device local shape: x.shape=(4,)\n"
    assert np.asarray(y).tolist() == (2 * np.arange(32)).tolist()

    def g(x):
        return jnp.sum(x, keepdims=True)

    out = old_shard_map(g, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(x)
    assert repr(out) == "Array([  6,  22,  38,  54,  70,  86, 102, 118], dtype=int32)"

    def h(x):
        sum_in_shard = x.sum()
        return lax.psum(sum_in_shard, "x")

    out = old_shard_map(h, mesh=mesh, in_specs=P("x"), out_specs=P())(x)
    assert repr(out) == "Array(496, dtype=int32)"
    assert out.sharding == NamedSharding(mesh, P())


def test_seed_004_layer_bitwise_as_jax():
    mesh = spmd.make_mesh((8,), ("x",))
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32,))
    weights = rng.normal(size=(32, 4))
    bias = rng.normal(size=(4,))

    @spmd.jit
    @partial(old_shard_map, mesh=mesh, in_specs=(P("x"), P("x", None), P(None)),
             out_specs=P(None))  # fmt: skip
    def layer_sharded(x, weights, bias):
        return spmd.nn.sigmoid(lax.psum(x @ weights, "x") + bias)

    out = layer_sharded(x, weights, bias)
    # The bits JAX 0.10.2 gives on CPU.
    assert np.asarray(out).view(np.int32).tolist() == [
        1018116178, 1063559930, 1058624203, 1064974472,
    ]  # fmt: skip
    assert repr(out) == "Array([0.02138916, 0.8931118 , 0.5989196 , 0.9774251 ], dtype=float32)"


def test_jaxpr_of_jit_shard_map():
    mesh = spmd.make_mesh((8,), ("x",))
    f = spmd.shard_map(lambda x: lax.psum(x.sum(), "x"), mesh=mesh, in_specs=P("x"),
                       out_specs=P())  # fmt: skip
    text = str(spmd.make_jaxpr(f)(jnp.arange(32)))
    # As JAX 0.10.2 prints it: the body's types carry the mesh axes they vary over ({V:x}).
    assert text == (
        "{ lambda ; a:i32[32]. let\n"
        "    b:i32[] = shard_map[\n"
        "      check_vma=True\n"
        "      in_specs=(P('x',),)\n"
        "      jaxpr={ lambda ; c:i32[4]{V:x}. let\n"
        "          d:i32[]{V:x} = reduce_sum[axes=(0,) out_sharding=None] c\n"
        "          e:i32[] = psum_invariant[axes=('x',)] d\n"
        "        in (e,) }\n"
        "      mesh=Mesh('x': 8, axis_types=(Auto,))\n"
        "      newly_manual_axes=frozenset({'x'})\n"
        "      out_specs=(P(),)\n"
        "    ] a\n"
        "  in (b,) }"
    )


# ---------------------------------------------------------------------------------------------
# Systematic: functions x meshes x shapes x specs, eager and jit, against the reference loop

MESHES = [((1,), ("a",)), ((2,), ("a",)), ((2, 2), ("a", "b")), ((2, 4), ("a", "b")),
          ((4, 2), ("a", "b"))]  # fmt: skip
SHAPES = [(8,), (8, 4), (4, 8, 2)]


def _sample_spec(rng, names, ndim):
    free = list(names)
    rng.shuffle(free)
    parts = []
    for _ in range(ndim):
        k = rng.integers(0, 3)
        take, free = free[:k], free[k:]
        parts.append(None if not take else take[0] if len(take) == 1 else tuple(take))
    while parts and parts[-1] is None:
        parts.pop()
    return P(*parts)


def _mentioned(spec):
    out = set()
    for e in spec:
        if e is None:
            continue
        out.update(e if isinstance(e, tuple) else (e,))
    return out


def _extend(rng, spec, names, ndim):
    """An out_spec naming at least the axes of ``spec`` (others added where they fit)."""
    parts = list(spec) + [None] * (ndim - len(spec))
    used = _mentioned(spec)
    for a in names:
        if a not in used and rng.random() < 0.5:
            j = int(rng.integers(0, ndim))
            e = parts[j]
            parts[j] = a if e is None else (*(e if isinstance(e, tuple) else (e,)), a)
            used.add(a)
    return P(*parts)


def _bodies(names):
    first = names[0]
    return {
        "elementwise": (lambda x: jnp.sin(x) * 2 + 1, "same"),
        "psum_all": (lambda x: lax.psum(x * x, names), "replicated"),
        "pmean_first": (lambda x: lax.pmean(jnp.cos(x), first), "drop_first"),
        "ppermute_first": (
            lambda x: (
                lax.ppermute(x, first, [(i, (i + 1) % 2) for i in range(2)])
                if lax.axis_size(first) == 2
                else x + 1
            ),
            "same_plus_first",
        ),
        "axis_index": (lambda x: x * lax.axis_index(names).astype(x.dtype), "all"),
        "gather_mean": (
            lambda x: lax.all_gather(x, first, axis=0, tiled=True).mean(0, keepdims=True) + x,
            "same_plus_first",
        ),
    }


def _systematic_cases():
    rng = np.random.default_rng(0)
    out = []
    for (shape_m, names), shape, body in itertools.product(MESHES, SHAPES, range(6)):
        bname = sorted(_bodies(names))[body]
        for _ in range(2):
            in_spec = _sample_spec(rng, names, len(shape))
            sizes = dict(zip(names, shape_m))
            ok = all(
                d % int(np.prod([sizes[a] for a in (e if isinstance(e, tuple) else (e,))])) == 0
                for d, e in zip(shape, list(in_spec))
                if e is not None
            )
            if not ok:
                continue
            out.append((shape_m, names, shape, bname, in_spec, int(rng.integers(1 << 30))))
    return out


SYSTEMATIC = _systematic_cases()


@pytest.mark.parametrize(
    "case", SYSTEMATIC, ids=[f"{c[0]}-{c[2]}-{c[3]}-{c[4]}" for c in SYSTEMATIC]
)
def test_systematic_against_reference(case):
    shape_m, names, shape, bname, in_spec, seed = case
    rng = np.random.default_rng(seed)
    mesh = mesh_of(shape_m, names)
    fn, kind = _bodies(names)[bname]
    varying = _mentioned(in_spec)
    if kind == "replicated":
        base = P()
    elif kind == "drop_first":
        base = P(*[tuple(a for a in (e if isinstance(e, tuple) else (e,)) if a != names[0])
                   or None if e is not None else None for e in in_spec])  # fmt: skip
    elif kind == "all":
        base = _extend(np.random.default_rng(1), in_spec, names, len(shape))
        base = _force(base, names, len(shape))
    elif kind == "same_plus_first":
        base = in_spec if names[0] in varying else _force_axis(in_spec, names[0], len(shape))
    else:
        base = in_spec
    out_spec = _extend(rng, base, names, len(shape))
    x = rng.uniform(-2, 2, shape).astype(np.float32)
    f = spmd.shard_map(fn, mesh=mesh, in_specs=P(*in_spec), out_specs=out_spec)
    eager = np.asarray(f(x))
    jitted = np.asarray(spmd.jit(f)(x))
    with reference_mode():
        ref = np.asarray(f(x))
    assert eager.shape == ref.shape
    assert eager.tobytes() == ref.tobytes(), (eager, ref)
    assert jitted.tobytes() == ref.tobytes()


def _force_axis(spec, a, ndim):
    parts = list(spec) + [None] * (ndim - len(spec))
    e = parts[0]
    parts[0] = a if e is None else (*(e if isinstance(e, tuple) else (e,)), a)
    return P(*parts)


def _force(spec, names, ndim):
    for a in names:
        if a not in _mentioned(spec):
            spec = _force_axis(spec, a, ndim)
    return spec


# ---------------------------------------------------------------------------------------------
# Transformations of shard_map


def test_vmap_of_shard_map():
    mesh = mesh_of((2, 2), ("x", "y"))
    f = spmd.shard_map(lambda b: lax.psum(b, "x") * lax.axis_index("y"), mesh=mesh,
                       in_specs=P("x", "y"), out_specs=P(None, "y"))  # fmt: skip
    xs = np.arange(3 * 4 * 6, dtype=np.float32).reshape(3, 4, 6)
    want = np.stack([np.asarray(f(x)) for x in xs])
    for in_axes, out_axes in [(0, 0), (1, 2)]:
        got = spmd.vmap(f, in_axes=in_axes, out_axes=out_axes)(np.moveaxis(xs, 0, in_axes))
        assert np.moveaxis(np.asarray(got), out_axes, 0).tolist() == want.tolist()
    got = spmd.jit(spmd.vmap(f))(xs)
    assert np.asarray(got).tolist() == want.tolist()


def test_vmap_of_shard_map_spells_the_new_dimension_as_jax():
    # The vmapped dimension enters the specs as None, kept even at the end (JAX's spelling):
    # out_specs P() batched at 0 is P(None,), P('x') batched at 1 is P('x', None).
    mesh = mesh_of((4,), ("x",))
    xs = np.arange(32.0).reshape(8, 4)
    got = spmd.vmap(spmd.shard_map(lambda a: lax.psum(a, "x"), mesh=mesh, in_specs=P("x"),
                                   out_specs=P()))(xs)  # fmt: skip
    assert got.sharding.spec == P(None) and str(got.sharding.spec) == "P(None,)"
    got = spmd.vmap(spmd.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P("x"),
                                   out_specs=P("x")), in_axes=1, out_axes=1)(xs.T)  # fmt: skip
    assert str(got.sharding.spec) == "P('x', None)"
    assert np.asarray(got).tolist() == (2 * xs.T).tolist()


def test_vmap_with_axis_name_used_inside_shard_map():
    mesh = mesh_of((2,), ("x",))
    f = spmd.shard_map(lambda b: lax.psum(b, "v") + lax.psum(b, "x"), mesh=mesh,
                       in_specs=P("x"), out_specs=P("x"))  # fmt: skip
    xs = np.arange(12.0).reshape(3, 4)
    got = spmd.vmap(f, axis_name="v")(xs)
    want = xs.sum(0, keepdims=True) + np.concatenate([xs[:, :2] + xs[:, 2:]] * 2, axis=1)
    assert np.asarray(got).tolist() == want.tolist()


def test_grads_of_shard_map(x64):
    mesh = mesh_of((2, 2), ("x", "y"))

    def body(a, w):
        h = jnp.tanh(a @ w)
        g = lax.all_gather(h, "y", axis=1, tiled=True)
        s = lax.psum(g * g, "x")
        t = lax.psum(lax.all_to_all(h, "y", 1, 1, tiled=True).sum(), "x")
        return lax.ppermute(s, "y", [(0, 1), (1, 0)]) + t

    f = spmd.shard_map(body, mesh=mesh, in_specs=(P("x", None), P(None, "y")),
                       out_specs=P(None, "y"))  # fmt: skip
    rng = np.random.default_rng(0)
    a, w = rng.normal(size=(4, 3)), rng.normal(size=(3, 4))
    check_grads(f, (a, w), order=2, modes=("fwd", "rev"))
    check_grads(spmd.jit(f), (a, w), order=1, modes=("rev",))


def test_grad_inside_shard_map_body(x64):
    mesh = mesh_of((4,), ("x",))

    def body(b):
        return spmd.grad(lambda v: (lax.pmean(v, "x") ** 2).sum())(b)

    f = spmd.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    x = np.arange(8.0)
    got = np.asarray(f(x))
    # Per device: d/dv of sum(mean(v)^2) with the mean invariant (JAX's check_vma semantics).
    mean = x.reshape(4, 2).mean(0)
    assert np.allclose(got, np.tile(2 * mean / 4, 4))


def test_jit_closure_over_traced_value():
    mesh = mesh_of((4,), ("x",))

    @spmd.jit
    def f(x, c):
        return spmd.shard_map(lambda b: b * c, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(x)

    assert np.asarray(f(jnp.arange(8.0), 3.0)).tolist() == (3 * np.arange(8.0)).tolist()


# ---------------------------------------------------------------------------------------------
# Types of the body (varying manual axes) and autodiff as shard_map


def _psum_matmul(check_vma=True, mesh=None):
    mesh = mesh or mesh_of((2, 4), ("x", "y"))
    return spmd.shard_map(lambda a, b: lax.psum(a @ b, "y"), mesh=mesh,
                          in_specs=(P("x", "y"), P("y", None)), out_specs=P("x", None),
                          check_vma=check_vma)  # fmt: skip


A = np.arange(128, dtype=np.float32).reshape(8, 16) / 100
B = np.arange(64, dtype=np.float32).reshape(16, 4) / 50


def _body_of(fn, *args):
    (eqn,) = [e for e in spmd.make_jaxpr(fn)(*args).eqns if e.primitive.name == "shard_map"]
    return eqn.params["jaxpr"].jaxpr


def test_vma_is_part_of_the_type_and_prints_in_mesh_order():
    from spmd._src.core import ShapedArray, Vma

    f32 = np.dtype(np.float32)
    a = ShapedArray((4,), f32, vma=Vma(("y", "x")))
    assert a.str_short() == "f32[4]{V:(y,x)}"
    assert ShapedArray((), f32, vma=Vma(("x",))).str_short() == "f32[]{V:x}"
    assert a == ShapedArray((4,), f32, vma=frozenset({"x", "y"}))
    assert a != ShapedArray((4,), f32)
    assert hash(a) == hash(ShapedArray((4,), f32, vma=frozenset({"x", "y"})))


def test_body_types_pvary_and_psum_invariant():
    body = _body_of(_psum_matmul(), A, B)
    assert [v.aval.str_short() for v in body.invars] == ["f32[4,4]{V:(x,y)}", "f32[4,4]{V:y}"]
    assert [e.primitive.name for e in body.eqns] == ["pvary", "dot_general", "psum_invariant"]
    assert body.eqns[0].params["axes"] == ("x",)
    assert body.outvars[0].aval.str_short() == "f32[4,4]{V:x}"


def test_unchecked_body_has_no_types_and_no_casts():
    def f(a, b):
        return lax.psum(lax.pvary(a, "x") @ b, "y")

    g = spmd.shard_map(f, mesh=mesh_of((2, 4), ("x", "y")), in_specs=(P("x", "y"), P("y")),
                       out_specs=P("x", None), check_vma=False)  # fmt: skip
    body = _body_of(g, A, B)
    assert [v.aval.str_short() for v in body.invars] == ["f32[4,4]", "f32[4,4]"]
    # As in JAX, the cast is no operation without check_vma (and so is not transposed).
    assert [e.primitive.name for e in body.eqns] == ["dot_general", "psum"]


def test_cast_to_axes_already_varying_is_dropped():
    g = spmd.shard_map(lambda a: lax.pvary(jnp.sin(a), "x") * a, mesh=mesh_of((4,), ("x",)),
                       in_specs=P("x"), out_specs=P("x"))  # fmt: skip
    assert [e.primitive.name for e in _body_of(g, np.ones(8, np.float32)).eqns] == ["sin", "mul"]


def test_literals_consts_and_outputs_are_cast_up():
    c = np.arange(4, dtype=np.float32)
    g = spmd.shard_map(lambda a: (a * 2.0 + c, lax.psum(a, "x")), mesh=mesh_of((2,), ("x",)),
                       in_specs=P("x"), out_specs=(P("x"), P("x")))  # fmt: skip
    text = str(spmd.make_jaxpr(g)(np.ones(8, np.float32)))
    # The closed-over constant is a replicated operand, as in JAX.
    assert "in_specs=(P(), P('x',))" in text
    assert "g:f32[]{V:x} = pvary[axes=('x',)] 2.0:f32[]" in text
    assert "i:f32[4]{V:x} = pvary[axes=('x',)] e" in text
    # An invariant output under an out_specs naming 'x' is cast to varying at the end.
    assert "l:f32[4]{V:x} = pvary[axes=('x',)] k\n        in (j, l) }" in text
    out = g(np.ones(8, np.float32))
    assert np.asarray(out[0]).tolist() == np.tile(c + 2, 2).tolist()
    assert np.asarray(out[1]).tolist() == [2.0] * 8


def test_newly_manual_axes_print_in_mesh_order():
    mesh = mesh_of((2, 4), ("y", "x"))
    g = spmd.shard_map(lambda a: a, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))
    text = str(spmd.make_jaxpr(g)(np.ones((8, 8), np.float32)))
    assert "newly_manual_axes=frozenset({'y', 'x'})" in text
    assert "{V:(y,x)}" in text


def test_grad_of_shard_map_is_two_shard_maps():
    g = _psum_matmul()
    jaxpr = spmd.make_jaxpr(spmd.grad(lambda a, b: g(a, b).sum(), argnums=(0, 1)))(A, B)
    sms = [e for e in jaxpr.eqns if e.primitive.name == "shard_map"]
    assert len(sms) == 2
    assert all(e.primitive.name != "psum" for e in jaxpr.eqns)
    fwd, bwd = sms
    # The forward returns its residual (the cast b) first, stacked over the axes it varies over.
    assert fwd.params["out_specs"] == (P(("x", "y")), P("x", None))
    assert [v.aval.str_short() for v in fwd.outvars] == ["f32[32,4]", "f32[8,4]"]
    # The transposed body: psum_invariant's transpose is the cast; pvary's is psum_invariant.
    names = [e.primitive.name for e in bwd.params["jaxpr"].eqns]
    assert names == ["pvary", "dot_general", "transpose", "dot_general", "psum_invariant"]
    assert bwd.params["in_specs"] == (P("x", None), P(("x", "y")), P("x", "y"))


def test_jvp_of_shard_map_is_one_shard_map():
    g = _psum_matmul()
    jaxpr = spmd.make_jaxpr(lambda a, b, t, u: spmd.jvp(g, (a, b), (t, u)))(A, B, A, B)
    (eqn,) = jaxpr.eqns
    assert eqn.params["in_specs"] == (P("x", "y"), P("y", None)) * 2
    assert eqn.params["out_specs"] == (P("x", None),) * 2


@pytest.mark.parametrize("check_vma", [True, False])
def test_grads_eager_jit_reference_and_numpy_agree(check_vma):
    g = _psum_matmul(check_vma)

    def loss(a, b):
        return jnp.sin(g(a, b)).sum()

    got = spmd.grad(loss, argnums=(0, 1))(A, B)
    jitted = spmd.jit(spmd.grad(loss, argnums=(0, 1)))(A, B)
    with reference_mode():
        ref = spmd.grad(loss, argnums=(0, 1))(A, B)
    c = np.cos(A.astype(np.float64) @ B)
    for x, y, r, want in zip(got, jitted, ref, (c @ B.T, A.T @ c)):
        assert np.asarray(x).tobytes() == np.asarray(y).tobytes() == np.asarray(r).tobytes()
        assert np.allclose(np.asarray(x), want, rtol=1e-5, atol=1e-5)


def test_scalar_residuals_get_a_dimension():
    g = spmd.shard_map(lambda a: a * jnp.sin(a.sum()), mesh=mesh_of((2, 4), ("x", "y")),
                       in_specs=P("x", "y"), out_specs=P("x", "y"))  # fmt: skip
    a = np.arange(128, dtype=np.float32).reshape(8, 16) / 100
    jaxpr = spmd.make_jaxpr(lambda a, ct: spmd.vjp(g, a)[1](ct))(a, a)
    fwd, bwd = jaxpr.eqns
    assert [v.aval.str_short() for v in fwd.outvars] == ["f32[8]", "f32[8]", "f32[8,16]"]
    assert [e.primitive.name for e in bwd.params["jaxpr"].eqns][:2] == ["squeeze", "squeeze"]
    (got,) = spmd.vjp(g, a)[1](np.ones_like(a))
    blocks = a.reshape(2, 4, 4, 4).transpose(0, 2, 1, 3)
    # d/da of a * sin(S), S the sum of the block, against ones: sin(S) + S cos(S).
    s = blocks.astype(np.float64).sum((2, 3), keepdims=True)
    want = np.broadcast_to(np.sin(s) + s * np.cos(s), blocks.shape)
    want = want.transpose(0, 2, 1, 3).reshape(8, 16)
    assert np.allclose(np.asarray(got), want, rtol=1e-5)


def test_eager_calls_with_a_closed_over_constant_use_the_fast_path():
    c = np.arange(4.0, dtype=np.float32)
    g = spmd.shard_map(lambda a: a + c, mesh=mesh_of((2,), ("x",)), in_specs=P("x"),
                       out_specs=P("x"))  # fmt: skip
    x = jnp.ones(8)
    first, second = g(x), g(x)
    assert np.asarray(first).tolist() == np.asarray(second).tolist() == np.tile(c + 1, 2).tolist()


# ---------------------------------------------------------------------------------------------
# Meshes, specs and signatures


def test_mesh_from_context_and_inferred_in_specs():
    mesh = mesh_of((4,), ("x",))
    x = spmd.device_put(jnp.arange(8.0), NamedSharding(mesh, P("x")))
    with spmd.sharding.use_mesh(mesh):
        f = spmd.shard_map(lambda b: b.sum(keepdims=True), out_specs=P("x"))
        assert np.asarray(f(x)).tolist() == [1.0, 5.0, 9.0, 13.0]
        # An unsharded argument is replicated: every device sees all of it.
        assert np.asarray(f(np.arange(8.0))).tolist() == [28.0] * 4
    with spmd.set_mesh(mesh):
        g = spmd.shard_map(lambda b: b * 2, in_specs=P("x"), out_specs=P("x"))
        assert np.asarray(g(np.arange(4.0))).tolist() == [0, 2, 4, 6]


def test_inferred_in_specs_under_jit_come_from_the_argument_types():
    # JAX 0.10.2 (the shard_map 201 page's FSDP cell): with no in_specs on an Explicit mesh, a
    # traced argument is split as its type shards it, under jit as eagerly (spmd replicated
    # traced arguments: the body saw the whole array).
    mesh = spmd.make_mesh((4,), ("x",), axis_types=(spmd.sharding.AxisType.Explicit,))
    with spmd.set_mesh(mesh):
        w = spmd.device_put(jnp.ones((16, 4)), P("x"))
        seen = []

        @spmd.shard_map(out_specs=P())
        def total(a):
            seen.append(str(spmd.typeof(a)))
            return lax.psum(a.sum(), "x")

        assert float(total(w)) == float(spmd.jit(total)(w)) == 64.0
        assert float(spmd.jit(lambda a: total(a * 2))(w)) == 128.0
        assert seen and set(seen) == {"float32[4,4]{V:x}"}
        # An unsharded traced argument stays replicated.
        assert float(spmd.jit(total)(jnp.ones((16, 4)))) == 256.0


def test_print_in_an_eager_body_shows_each_devices_block():
    # JAX 0.10.2 runs an eager shard_map body on every device's block: print(x) there shows
    # each block with its device and mesh coordinates (the shard_map 201 page's cells). Under
    # jit the body's values are tracers.
    mesh = mesh_of((2, 2), ("i", "j"))
    shown = []

    @spmd.shard_map(mesh=mesh, in_specs=P("i", "j"), out_specs=P(None, "j"))
    def f(x):
        y = lax.psum(x, "i")
        shown.append((str(x), repr(y)))
        return y

    f(np.arange(16).reshape(4, 4))
    x_text, y_text = shown[0]
    assert x_text == (
        "On cpu:0 at mesh coordinates (i, j,) = (0, 0):\n[[0 1]\n [4 5]]\n\n"
        "On cpu:1 at mesh coordinates (i, j,) = (0, 1):\n[[2 3]\n [6 7]]\n\n"
        "On cpu:2 at mesh coordinates (i, j,) = (1, 0):\n[[ 8  9]\n [12 13]]\n\n"
        "On cpu:3 at mesh coordinates (i, j,) = (1, 1):\n[[10 11]\n [14 15]]\n"
    )
    assert y_text.startswith("On cpu:0 at mesh coordinates (i, j,) = (0, 0):\n[[ 8 10]\n [16 18]]")
    g = spmd.shard_map(lambda x: shown.append(str(x)) or x, mesh=mesh, in_specs=P("i"),
                       out_specs=P("i"))  # fmt: skip
    spmd.jit(g)(np.arange(4.0))
    assert shown[-1] == "JitTracer(float32[2]{V:i})"


def test_output_shardings():
    mesh = mesh_of((2, 4), ("x", "y"))
    f = spmd.shard_map(lambda b: (b, lax.psum(b, "x")), mesh=mesh, in_specs=P("x", "y"),
                       out_specs=(P("x", "y"), P(None, "y")))  # fmt: skip
    a, b = f(np.arange(32.0).reshape(4, 8))
    assert a.sharding == NamedSharding(mesh, P("x", "y"))
    assert b.sharding == NamedSharding(mesh, P(None, "y"))
    assert b.shape == (2, 8)
    assert [s.index for s in a.addressable_shards][1] == (slice(0, 2), slice(2, 4))
    a2, b2 = spmd.jit(f)(np.arange(32.0).reshape(4, 8))
    assert b2.sharding == NamedSharding(mesh, P(None, "y"))


def test_partial_manual_axis_names():
    mesh = mesh_of((2, 4), ("x", "y"))
    f = spmd.shard_map(lambda b: lax.psum(b, "x"), mesh=mesh, in_specs=P("x"), out_specs=P(),
                       axis_names={"x"})  # fmt: skip
    out = f(np.arange(8.0))
    assert out.shape == (4,) and np.asarray(out).tolist() == [4.0, 6.0, 8.0, 10.0]
    g = old_shard_map(lambda b: lax.psum(b, "x"), mesh, P("x"), P(), auto=frozenset({"y"}))
    assert np.asarray(g(np.arange(8.0))).tolist() == [4.0, 6.0, 8.0, 10.0]


def test_pytree_specs_and_scalars():
    mesh = mesh_of((4,), ("x",))
    f = spmd.shard_map(
        lambda d, s: {"y": d["a"] * s, "n": lax.psum(s, "x")},
        mesh=mesh,
        in_specs=({"a": P("x")}, P()),
        out_specs={"y": P("x"), "n": P()},
    )
    out = f({"a": np.arange(4.0)}, 2.0)
    assert np.asarray(out["y"]).tolist() == [0, 2, 4, 6] and float(out["n"]) == 8.0


def test_smap():
    mesh = mesh_of((4,), ("x",))
    with spmd.sharding.use_mesh(mesh):
        f = spmd.smap(lambda b: b - b.mean(), in_axes=0, out_axes=0, axis_name="x")
        got = f(np.arange(8.0))
    assert np.asarray(got).tolist() == [-0.5, 0.5] * 4


def test_reference_mode_under_jit_reads_the_mode_at_run_time():
    mesh = mesh_of((4,), ("x",))
    f = spmd.jit(spmd.shard_map(lambda b: lax.psum(b, "x"), mesh=mesh, in_specs=P("x"),
                                out_specs=P()))  # fmt: skip
    x = np.random.default_rng(0).normal(size=(8,)).astype(np.float32)
    fast = np.asarray(f(x))
    with reference_mode():
        ref = np.asarray(f(x))
    assert fast.tobytes() == ref.tobytes()


# ---------------------------------------------------------------------------------------------
# Replication checking (check_vma) and bad input


def test_check_vma_rejects_varying_output_claimed_replicated():
    mesh = mesh_of((4,), ("x",))
    f = spmd.shard_map(lambda b: b * 2, mesh=mesh, in_specs=P("x"), out_specs=P())
    with pytest.raises(ValueError, match=r"out_specs is P\(\), which claims the output is the "
                                         r"same on every device along mesh axis 'x'.*varies "
                                         r"over it"):  # fmt: skip
        f(np.arange(8.0))


def test_check_vma_names_the_output_path():
    mesh = mesh_of((2, 4), ("x", "y"))
    f = spmd.shard_map(lambda b: {"ok": lax.psum(b, ("x", "y")), "bad": lax.psum(b, "x")},
                       mesh=mesh, in_specs=P("y"), out_specs=P())  # fmt: skip
    with pytest.raises(ValueError, match=r"out_specs\['bad'\] is P\(\).*mesh axis 'y'"):
        f(np.arange(8.0))


def test_check_vma_all_gather_is_varying():
    # As in JAX: all_gather's result is typed as varying.
    mesh = mesh_of((4,), ("x",))
    f = spmd.shard_map(lambda b: lax.all_gather(b, "x"), mesh=mesh, in_specs=P("x"),
                       out_specs=P())  # fmt: skip
    with pytest.raises(ValueError, match=r"mesh axis 'x'"):
        f(np.arange(8.0))
    g = spmd.shard_map(lambda b: lax.all_gather(b, "x"), mesh=mesh, in_specs=P("x"),
                       out_specs=P(), check_vma=False)  # fmt: skip
    assert np.asarray(g(np.arange(8.0))).tolist() == np.arange(8.0).reshape(4, 2).tolist()


def test_check_vma_through_control_flow():
    mesh = mesh_of((4,), ("x",))

    def body(b):
        s = lax.fori_loop(0, 3, lambda i, c: c + lax.psum(b.sum(), "x"), 0.0)
        return lax.cond(s > 0, lambda: s, lambda: -s)

    f = spmd.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P())
    assert float(f(np.arange(8.0))) == 84.0


def test_control_flow_with_collectives_against_reference():
    mesh = mesh_of((2, 4), ("x", "y"))

    def body(b):
        c = lax.cond(b.sum() > 20, lambda v: lax.psum(v, "y"), lambda v: -lax.pmax(v, "y"), b)

        def step(s):
            i, acc = s
            return i + 1, acc + lax.pmean(acc, "x")

        _, w = lax.while_loop(lambda s: lax.psum(s[0], "x") < 6, step, (0, c))
        sc, ys = lax.scan(lambda k, r: (k + lax.psum(r.sum(), ("x", "y")), k), 0.0, b)
        return w, sc[None, None], ys

    f = spmd.shard_map(body, mesh=mesh, in_specs=P("x", "y"),
                       out_specs=(P("x", "y"), P("x", "y"), P(("x", "y"))))  # fmt: skip
    x = np.arange(32.0).reshape(4, 8)
    outs = f(x)
    with reference_mode():
        refs = f(x)
    for o, r in zip(outs, refs):
        assert np.asarray(o).tobytes() == np.asarray(r).tobytes()
    assert np.asarray(outs[1]).tolist() == [[496.0] * 4] * 2


def test_nested_shard_map():
    mesh = mesh_of((2, 4), ("x", "y"))

    def outer(b):
        inner = spmd.shard_map(lambda c: lax.psum(c, "y"), mesh=mesh, in_specs=P(None, "y"),
                               out_specs=P(), axis_names={"y"})  # fmt: skip
        return inner(b)

    g = spmd.shard_map(outer, mesh=mesh, in_specs=P("x"), out_specs=P("x"), axis_names={"x"})
    x = np.arange(32.0).reshape(4, 8)
    want = x.reshape(4, 4, 2).sum(1)
    assert np.asarray(g(x)).tolist() == want.tolist()
    with reference_mode():
        assert np.asarray(g(x)).tolist() == want.tolist()


def test_unchecked_varying_output_raises_before_running():
    mesh = mesh_of((4,), ("x",))
    f = spmd.shard_map(lambda b: b * 2, mesh=mesh, in_specs=P("x"), out_specs=P(),
                       check_vma=False)  # fmt: skip
    with pytest.raises(ValueError, match=r"output 0 varies over mesh axis 'x', but its "
                                         r"out_specs entry P\(\) does not name 'x'"):  # fmt: skip
        f(np.arange(8.0))


def test_in_spec_longer_than_rank():
    mesh = mesh_of((4,), ("x",))
    f = spmd.shard_map(lambda v: v, mesh=mesh, in_specs=P("x", None), out_specs=P("x"))
    with pytest.raises(ValueError, match=r"in_specs entry which is too long.*has length 2, but "
                                         r"the input args\[0\].*rank 1"):  # fmt: skip
        f(np.arange(8.0))


def test_out_spec_longer_than_rank():
    mesh = mesh_of((4,), ("x",))
    f = spmd.shard_map(lambda v: v.sum(), mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    with pytest.raises(ValueError, match=r"out_specs entry which is too long.*rank 0"):
        f(np.arange(8.0))


def test_in_spec_does_not_divide():
    mesh = mesh_of((4,), ("x",))
    f = spmd.shard_map(lambda v: v, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    with pytest.raises(ValueError, match=r"args\[0\] \(bound to <lambda>'s parameter 'v'\) of "
                                         r"shape float32\[6\].*maps array axis 0 "
                                         r"\(of size 6\) to mesh axes \('x',\) \(of total size 4\)"
                                         r".*nearest sizes it divides are 4 and 8"):  # fmt: skip
        f(np.zeros(6, np.float32))


def test_in_spec_names_an_unknown_axis():
    mesh = mesh_of((4,), ("x",))
    f = spmd.shard_map(lambda v: v, mesh=mesh, in_specs=P("z"), out_specs=P("x"))
    with pytest.raises(ValueError, match=r"refers to 'z' \(the mesh has axes \{'x': 4\}\)"):
        f(np.arange(8.0))


def test_in_spec_names_a_non_manual_axis():
    mesh = mesh_of((2, 2), ("x", "y"))
    f = spmd.shard_map(lambda v: v, mesh=mesh, in_specs=P("y"), out_specs=P("y"),
                       axis_names={"x"})  # fmt: skip
    with pytest.raises(ValueError, match=r"must refer only to manual axes \('x',\).*refers to "
                                         r"'y'"):  # fmt: skip
        f(np.arange(8.0))


def test_spec_uses_an_axis_twice():
    mesh = mesh_of((2, 2), ("x", "y"))
    f = spmd.shard_map(lambda v: v, mesh=mesh, in_specs=P("x", "x"), out_specs=P("x"))
    with pytest.raises(ValueError, match=r"uses mesh axis 'x' for both dimension 0 and "
                                         r"dimension 1"):  # fmt: skip
        f(np.zeros((4, 4)))


def test_no_mesh():
    f = spmd.shard_map(lambda v: v, in_specs=P("x"), out_specs=P("x"))
    with pytest.raises(ValueError, match=r"needs a mesh: pass mesh=\.\.\. or set one"):
        f(np.arange(8.0))


def test_keyword_arguments():
    mesh = mesh_of((4,), ("x",))
    f = spmd.shard_map(lambda v: v, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    with pytest.raises(TypeError, match=r"got keyword arguments \['v'\]"):
        f(v=np.arange(8.0))


# ---------------------------------------------------------------------------------------------
# axis_index_groups on 2-D meshes (JAX refuses groups in shard_map: the reference loop is the
# oracle)


def _random_groups(n: int, size: int, rng) -> list[list[int]]:
    perm = rng.permutation(n).tolist()
    return [perm[i : i + size] for i in range(0, n, size)]


_GROUP_OPS = {
    "psum": lambda v, a, g: lax.psum(v, a, axis_index_groups=g),
    "pmax": lambda v, a, g: lax.pmax(v, a, axis_index_groups=g),
    "all_gather": lambda v, a, g: lax.all_gather(v, a, axis_index_groups=g, axis=1, tiled=True),
    "psum_scatter": lambda v, a, g: lax.psum_scatter(
        v, a, axis_index_groups=g, scatter_dimension=1, tiled=True
    ),
    "all_to_all": lambda v, a, g: lax.all_to_all(v, a, 1, 0, axis_index_groups=g, tiled=True),
}


@pytest.mark.parametrize("op", sorted(_GROUP_OPS))
@pytest.mark.parametrize("mesh_shape", [(2, 4), (4, 2)])
@pytest.mark.parametrize("axes", [("x", "y"), ("y", "x"), "x", "y"])
def test_groups_on_2d_meshes_against_reference(op, mesh_shape, axes):
    rng = np.random.default_rng(zlib.crc32(f"{op} {mesh_shape} {axes}".encode()))
    sizes = dict(zip(("x", "y"), mesh_shape))
    n = int(np.prod([sizes[a] for a in (axes if isinstance(axes, tuple) else (axes,))]))
    groups = _random_groups(n, n // 2, rng)
    mesh = mesh_of(mesh_shape, ("x", "y"))
    x = rng.integers(-50, 50, (mesh_shape[0] * 2, mesh_shape[1] * 8)).astype(np.int32)
    f = spmd.shard_map(lambda v: _GROUP_OPS[op](v, axes, groups), mesh=mesh,
                       in_specs=P("x", "y"), out_specs=P("x", "y"), check_vma=False)  # fmt: skip
    with reference_mode():
        want = np.asarray(f(x))
    assert np.asarray(f(x)).tobytes() == want.tobytes()
    assert np.asarray(spmd.jit(f)(x)).tobytes() == want.tobytes()


# --- shard_map over part of the mesh: the other axes' shardings flow through ------------------
# (in spec, body, in_specs, out_specs) -> the result spec JAX 0.10 gives, under jit and eagerly,
# on Explicit and Auto (2, 4) meshes with axis_names={"x"} (read from the oracle).
_PARTIAL = [
    (("x", "y"), "psum", ("x",), (), ((None, "y"), (None, "y"))),
    (("x", "y"), "double", ("x",), ("x",), (("x", "y"), ("x", "y"))),
    (("y", "x"), "sum0", (None, "x"), (None, "x"), ((None, "x"), (None, "x"))),
    ((None, "y"), "add1", (), (), ((None, "y"), (None, "y"))),
    (("x", None), "psum", ("x",), (), ((None, None), ())),
]


@pytest.mark.parametrize("case", _PARTIAL, ids=lambda c: f"{c[0]}-{c[1]}-{c[3]}")
def test_partial_manual_results_keep_the_other_axes_shardings(case):
    from spmd.sharding import AxisType, NamedSharding

    in_spec, body, in_s, out_s, (want_explicit, want_auto) = case
    bodies = {
        "psum": lambda a: spmd.lax.psum(a, "x"),
        "double": lambda a: a * 2,
        "sum0": lambda a: a.sum(0, keepdims=True),
        "add1": lambda a: a + 1,
    }
    data = np.arange(32.0).reshape(8, 4)
    for kind, want in ((AxisType.Explicit, want_explicit), (AxisType.Auto, want_auto)):
        mesh = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(kind,) * 2)
        x = spmd.device_put(data, NamedSharding(mesh, P(*in_spec)))
        f = spmd.shard_map(
            bodies[body], mesh=mesh, in_specs=P(*in_s), out_specs=P(*out_s), axis_names={"x"}
        )
        for g in (spmd.jit(f), f, f):  # eager twice: the second call takes the fast path
            assert g(x).sharding.spec == P(*want), (kind, g)


def test_reference_mode_runs_a_vmapped_while_whose_predicate_reads_the_mesh():
    # vmap inside the body gives the while a batched predicate; it also reads the device's
    # index, so the reference evaluator runs it in lockstep over devices, per example.
    mesh = mesh_of((4,), ("x",))

    def body(a):
        def loop(c0, hi):
            def below(c):
                return c < hi + lax.axis_index("x").astype(hi.dtype)

            return lax.while_loop(below, lambda c: c + 1.0, c0)

        return spmd.vmap(loop)(jnp.zeros_like(a), a)

    f = spmd.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"))
    a = np.array([0.5, 2.0, 1.0, 0.0, 3.5, 1.0, 0.0, 2.5], np.float32)
    want = np.ceil(a + np.repeat(np.arange(4), 2)).astype(np.float32)
    got = f(a)
    with reference_mode():
        ref = f(a)
    np.testing.assert_array_equal(np.asarray(got), want)
    np.testing.assert_array_equal(np.asarray(ref), want)


def test_typeof_in_the_body_shows_the_axes_a_value_varies_over():
    # While the body is traced (not only in the printed jaxpr), as in JAX 0.10: JAX's
    # manual_axis_type.varying, and vma as older JAX releases spelled it.
    mesh = spmd.make_mesh((2, 4), ("i", "j"))
    seen = {}

    def body(a, b, c):
        seen["a"], seen["b"], seen["c"] = spmd.typeof(a), spmd.typeof(b), spmd.typeof(c)
        s = a + b
        seen["sum"], seen["psum"] = spmd.typeof(s), spmd.typeof(lax.psum(s, "j"))
        seen["grad"] = spmd.grad(lambda u: (seen.setdefault("in_grad", spmd.typeof(u)), u)[1])(c)
        spmd.vmap(lambda r: (seen.setdefault("vmap", spmd.typeof(r)), r)[1])(a)
        return s

    f = spmd.shard_map(body, mesh=mesh, in_specs=(P("i", "j"), P("i"), P()), out_specs=P("i", "j"))
    f(jnp.ones((4, 8)), jnp.ones((4, 1)), jnp.ones(()))
    assert str(seen["a"]) == "float32[2,2]{V:(i,j)}"
    assert str(seen["b"]) == "float32[2,1]{V:i}"
    assert str(seen["c"]) == "float32[]"
    assert str(seen["sum"]) == "float32[2,2]{V:(i,j)}"
    assert str(seen["psum"]) == "float32[2,2]{V:i}"
    assert seen["sum"].vma == {"i", "j"} and seen["c"].vma == frozenset()
    assert seen["b"].manual_axis_type.varying == {"i"}
    assert seen["b"].manual_axis_type.unreduced == frozenset()
    assert str(seen["in_grad"]) == "float32[]"  # a JVP tracer types as its value
    assert str(seen["vmap"]) == "float32[2]{V:(i,j)}"  # a row of a
    # Outside a body (and with check_vma=False) values vary over nothing.
    assert spmd.typeof(jnp.ones(3)).vma == frozenset()
    g = spmd.shard_map(
        lambda a: (seen.__setitem__("unchecked", spmd.typeof(a)), a)[1],
        mesh=mesh, in_specs=P("i"), out_specs=P("i"), check_vma=False,
    )  # fmt: skip
    g(jnp.ones(4))
    assert str(seen["unchecked"]) == "float32[2]"


@pytest.mark.parametrize("length", [1, 2])
def test_grad_through_a_scan_passing_blocks_around_a_ring(length):
    # A residual made by the scan's partial evaluation varies over the axis (the carried
    # block is ppermuted): it must be returned stacked over it, not as replicated. Values from
    # JAX 0.10.2 (8 CPU devices).
    mesh = spmd.make_mesh((8,), ("i",))
    perm = [(j, (j + 1) % 8) for j in range(8)]

    def body(q, k):
        def step(c, _):
            k, acc = c
            return (lax.ppermute(k, "i", perm), acc + (q * k).sum()), None

        init = (k, lax.pcast(jnp.zeros(()), "i", to="varying"))
        (_, acc), _ = lax.scan(step, init, None, length=length)
        return acc[None]

    f = spmd.shard_map(body, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
    x = jnp.arange(16.0)
    gq, gk = spmd.grad(lambda q, k: f(q, k).sum(), argnums=(0, 1))(x, x)
    if length == 1:
        want_q = want_k = np.arange(16.0)
    else:
        want_q = [14, 16, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28]
        want_k = [2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 14, 16]
    np.testing.assert_array_equal(gq, np.asarray(want_q, np.float32))
    np.testing.assert_array_equal(gk, np.asarray(want_k, np.float32))


def test_transformed_jit_of_shard_map_places_results_as_the_jit_call():
    # A jit bound eagerly by vjp/linearize/vmap (its known or transposed part run at once)
    # places results as calling it does, though no operand is placed (JAX 0.10.2: the same
    # shardings as below).
    mesh = spmd.make_mesh((8,), ("i",))
    x = jnp.arange(16.0)
    g = spmd.jit(spmd.shard_map(lambda q, k: q * k, mesh=mesh, in_specs=P("i"), out_specs=P("i")))
    y, f_vjp = spmd.vjp(lambda q: g(q, x), x)
    (ct,) = f_vjp(jnp.ones(16))
    _, f_lin = spmd.linearize(lambda q: g(q, x), x)
    v = spmd.vmap(g, in_axes=(0, None))(jnp.ones((3, 16)), x)
    for r, spec in [(y, P("i")), (ct, P("i")), (f_lin(x), P("i")), (v, P(None, "i"))]:
        assert r.sharding == NamedSharding(mesh, spec), r.sharding
        assert r.committed
    np.testing.assert_array_equal(ct, x)
    # Without a placing body the results stay where they were (uncommitted, default device).
    h = spmd.grad(lambda q: spmd.jit(lambda q: q.sum())(q))(x)
    assert not h.committed and isinstance(h.sharding, spmd.sharding.SingleDeviceSharding)


def _explicit_mesh(shape, names, types=None):
    from spmd.sharding import AxisType

    return spmd.make_mesh(shape, names, axis_types=types or (AxisType.Explicit,) * len(names))


def test_explicit_mesh_shard_map_takes_arguments_as_their_types_shard_them():
    # JAX 0.10.2: on a mesh whose axes are all Explicit, a shard_map over all of them does not
    # reshard its arguments; in_specs must match each argument's type (ValueError before any
    # work, eagerly and under jit). Over part of the mesh, or with an Auto axis, it reshards.
    from spmd.sharding import AxisType

    e = _explicit_mesh((8,), ("i",))
    x = jnp.arange(16.0).reshape(8, 2)
    xi = spmd.device_put(x, NamedSharding(e, P("i")))
    double = lambda a: a * 2  # noqa: E731

    def sm(mesh, spec, **kw):
        return spmd.shard_map(double, mesh=mesh, in_specs=spec, out_specs=spec, **kw)

    msg = (
        r"in_specs passed to shard_map: P\('i', None\) does not match the specs of the input: "
        r"P\(None, None\) for arg: float32\[8,2\]\. shard_map applied to the function "
        r"'<lambda>' takes its argument args\[0\] .*all Explicit \(\{'i': 8\}\)"
    )
    with pytest.raises(ValueError, match=msg):
        sm(e, P("i"))(x)
    with pytest.raises(ValueError, match=msg):
        spmd.jit(sm(e, P("i")))(x)
    with pytest.raises(ValueError, match=msg):
        sm(e, P("i"))(np.asarray(x))
    with pytest.raises(ValueError, match=r"P\(None, None\) does not match .* P\('i', None\) "
                                         r"for arg: float32\[8@i,2\]"):  # fmt: skip
        sm(e, P())(xi)
    e2 = _explicit_mesh((2, 4), ("i", "j"))
    xij = spmd.device_put(jnp.arange(32.0).reshape(8, 4), NamedSharding(e2, P(("i", "j"))))
    with pytest.raises(ValueError, match=r"P\(\('j', 'i'\), None\) does not match"):
        sm(e2, P(("j", "i")))(xij)
    # Matching specs (trailing Nones or not) run; so do replicated scalars and inferred specs.
    assert sm(e, P("i", None))(xi).sharding.spec == P("i", None)
    assert sm(e2, P(("i", "j")))(xij).sharding.spec == P(("i", "j"))
    two = spmd.shard_map(lambda a, b: a * b, mesh=e, in_specs=(P("i"), P()), out_specs=P("i"))
    np.testing.assert_array_equal(two(xi, 2.0), 2 * np.asarray(x))
    # Over part of an all-Explicit mesh, or on a mesh with an Auto axis: resharded, no error.
    y = jnp.arange(32.0).reshape(8, 4)
    assert sm(e2, P("i"), axis_names={"i"})(y).sharding.spec == P("i", None)
    assert sm(e2, P(), axis_names={"i"})(y).sharding.spec == P(None, None)
    mixed = _explicit_mesh((2, 4), ("i", "j"), (AxisType.Explicit, AxisType.Auto))
    assert sm(mixed, P("i"))(y).sharding.spec == P("i")


def test_jit_results_on_explicit_meshes_are_spelled_as_their_types():
    # JAX 0.10.2 on (2, 4) meshes: a jit result placed like its argument carries the
    # argument's spelling on an Auto mesh, but is spelled as its type (one entry per
    # dimension) on a mesh with an Explicit axis; out_shardings keep theirs.
    from spmd.sharding import AxisType

    a = jnp.arange(32.0).reshape(8, 4)
    want = {
        "explicit": ["P('i', None)", "P(None, 'j')", "P(None, None)", "P('i', None)", "P()"],
        "mixed": ["P('i', None)", "P(None, 'j')", "P(None, None)", "P('i', None)", "P()"],
        "auto": ["P('i',)", "P(None, 'j')", "P()", "P('i',)", "P()"],
    }
    kinds = {
        "explicit": (AxisType.Explicit, AxisType.Explicit),
        "mixed": (AxisType.Explicit, AxisType.Auto),
        "auto": (AxisType.Auto, AxisType.Auto),
    }
    for kind, types in kinds.items():
        m = _explicit_mesh((2, 4), ("i", "j"), types)
        x, y, z = (spmd.device_put(a, NamedSharding(m, s)) for s in (P("i"), P(None, "j"), P()))
        sm = spmd.shard_map(lambda b: b * 2, mesh=m, in_specs=P("i"), out_specs=P("i"))
        got = [
            spmd.jit(lambda b: b * 2)(x),
            spmd.jit(lambda b: b * 2)(y),
            spmd.jit(lambda b: b * 2)(z),
            spmd.jit(sm)(x),
            spmd.jit(lambda: jnp.zeros(3), out_shardings=NamedSharding(m, P()))(),
        ]
        assert [str(r.sharding.spec) for r in got] == want[kind], kind


def test_jaxpr_of_a_shard_map_on_the_context_mesh_prints_its_abstract_mesh():
    # JAX 0.10.2: shard_map without mesh= (the mesh set_mesh put in context) prints the
    # abstract mesh in its jaxpr, through transformations too; with mesh= the concrete one.
    mesh = spmd.make_mesh((2,), ("i",))
    x = jnp.ones(4)
    abstract = "mesh=AbstractMesh('i': 2, axis_types=(Auto,), device_kind=cpu, num_cores=None, "
    abstract += "platform=cpu)"
    with spmd.set_mesh(mesh):
        g = spmd.shard_map(lambda a: a * 2, in_specs=P("i"), out_specs=P("i"))
        for f, arg in [(g, x), (spmd.grad(lambda a: g(a).sum()), x), (spmd.vmap(g), x[None])]:
            text = str(spmd.make_jaxpr(f)(arg))
            assert abstract in text and "mesh=Mesh(" not in text, text
        assert g(x).sharding == NamedSharding(mesh, P("i"))
        h = spmd.shard_map(lambda a: a * 2, mesh=mesh, in_specs=P("i"), out_specs=P("i"))
        assert "mesh=Mesh('i': 2, axis_types=(Auto,))" in str(spmd.make_jaxpr(h)(x))
