"""Named-axis collectives (spmd._src.lax.parallel) under vmap(axis_name=...), pmap, shard_map and
the shard_map reference loop, against NumPy loops over the devices.

Expected values are computed here with plain loops (float sums as left folds in device order,
group order within groups, in the input dtype) and compared bit for bit. Values and error
classes were checked against JAX 0.10.2 on 8 CPU devices where JAX supports the call; where JAX
refuses (axis_index_groups in vmap and shard_map) the reference loop is the oracle.
"""

from __future__ import annotations

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd._src.shard_map import reference_mode
from spmd.sharding import PartitionSpec as P
from spmd.test_util import check_grads

# ---------------------------------------------------------------------------------------------
# Running one per-device function under each map


def run(kind: str, fn, x: np.ndarray):
    """``fn`` (per device) over the leading dimension of ``x`` (one entry per device)."""
    n = x.shape[0]
    if kind == "vmap":
        return np.asarray(spmd.vmap(fn, axis_name="i")(x))
    if kind == "pmap":
        return np.asarray(spmd.pmap(fn, axis_name="i")(x))
    mesh = spmd.make_mesh((n,), ("i",), devices=spmd.devices()[:n])
    f = spmd.shard_map(
        lambda b: jnp.expand_dims(fn(b[0]), 0), mesh=mesh, in_specs=P("i"), out_specs=P("i")
    )
    if kind == "reference":
        with reference_mode():
            return np.asarray(f(x))
    return np.asarray(f(x))


MAPS = ["vmap", "pmap", "shard_map", "reference"]


def per_device(fn, x, groups=None):
    """Per device d: ``fn(values of d's group in group order, d's position in it)``."""
    n = x.shape[0]
    groups = groups or [list(range(n))]
    outs = [None] * n
    for g in groups:
        vals = [x[i] for i in g]
        for p, d in enumerate(g):
            outs[d] = fn(vals, p)
    return np.stack(outs)


def fold(op, dtype):
    def f(vals, p):
        acc = np.array(vals[0], dtype=dtype)
        for v in vals[1:]:
            acc = np.asarray(op(acc, v), dtype=dtype)
        return acc

    return f


def data(dtype: str, shape, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == "float32":
        # A wide dynamic range: the order of a float sum shows in the last bits.
        v = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)
        return v.astype(np.float32)
    return rng.integers(-100, 100, shape).astype(dtype)


def equal_groups(n: int, size: int, seed: int) -> list[list[int]]:
    perm = np.random.default_rng(seed).permutation(n).tolist()
    return [perm[i : i + size] for i in range(0, n, size)]


# ---------------------------------------------------------------------------------------------
# Cases: (label, per-device fn, reference from the stacked input, input shape per device)


def _cases():
    out = []
    for n in (2, 4, 8):
        groups = [None, equal_groups(n, n // 2, n)]
        if n == 4:
            groups.append([[0, 2], [3, 1]])
        uneq = [[7, 1, 2], [0], [3, 4, 5, 6]] if n == 8 else [[1], [0] + list(range(2, n))]
        for dt in ("float32", "int32"):
            for g in groups + [uneq]:
                for name, op in (("psum", np.add), ("pmax", np.maximum), ("pmin", np.minimum)):
                    out.append((
                        f"{name} n={n} {dt} groups={g}",
                        lambda y, g=g, name=name: getattr(lax, name)(y, "i", axis_index_groups=g),
                        lambda x, g=g, op=op: per_device(fold(op, x.dtype), x, g),
                        n, dt, (3,),
                    ))  # fmt: skip
            for g in groups:
                for ax, tiled, s in ((0, False, (3,)), (-1, True, (2, 3)), (1, False, (2, 3))):
                    out.append((
                        f"all_gather n={n} {dt} groups={g} axis={ax} tiled={tiled}",
                        lambda y, g=g, a=ax, t=tiled: lax.all_gather(
                            y, "i", axis=a, tiled=t, axis_index_groups=g),
                        lambda x, g=g, a=ax, t=tiled: per_device(
                            lambda v, p: np.concatenate(v, a) if t else np.stack(v, a), x, g),
                        n, dt, s,
                    ))  # fmt: skip
                m = n if g is None else len(g[0])
                for sd, tiled, s in ((0, False, (m, 3)), (1, True, (3, 2 * m))):
                    out.append((
                        f"psum_scatter n={n} {dt} groups={g} dim={sd} tiled={tiled}",
                        lambda y, g=g, sd=sd, t=tiled: lax.psum_scatter(
                            y, "i", scatter_dimension=sd, tiled=t, axis_index_groups=g),
                        lambda x, g=g, sd=sd, t=tiled: per_device(
                            lambda v, p: (lambda b: b if t else np.squeeze(b, sd))(
                                np.split(fold(np.add, x.dtype)(v, p), len(v), axis=sd)[p]),
                            x, g),
                        n, dt, s,
                    ))  # fmt: skip
                for sp, ca, tiled, s in ((0, 1, False, (m, 3)), (1, 0, True, (2, 3 * m))):
                    out.append((
                        f"all_to_all n={n} {dt} groups={g} split={sp} concat={ca} tiled={tiled}",
                        lambda y, g=g, a=sp, b=ca, t=tiled: lax.all_to_all(
                            y, "i", a, b, tiled=t, axis_index_groups=g),
                        lambda x, g=g, a=sp, b=ca, t=tiled: per_device(
                            lambda v, p: (np.concatenate if t else np.stack)(
                                [np.split(u, len(v), axis=a)[p] if t
                                 else np.split(u, len(v), axis=a)[p].squeeze(a) for u in v],
                                axis=b),
                            x, g),
                        n, dt, s,
                    ))  # fmt: skip
            perm = [(i, (3 * i + 1) % n) for i in range(n) if i != 1]
            out.append((
                f"ppermute n={n} {dt} perm={perm}",
                lambda y, pm=perm: lax.ppermute(y, "i", pm),
                lambda x, pm=perm: _ppermute_ref(x, pm),
                n, dt, (2,),
            ))  # fmt: skip
            out.append((
                f"pbroadcast n={n} {dt}",
                lambda y: lax.pbroadcast(y, "i", 1),
                lambda x: np.stack([x[1]] * x.shape[0]),
                n, dt, (2,),
            ))  # fmt: skip
    return out


def _ppermute_ref(x, perm):
    out = np.zeros_like(x)
    for s, d in perm:
        out[d] = x[s]
    return out


CASES = _cases()


@pytest.mark.parametrize("kind", MAPS)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_collective_matches_numpy(case, kind):
    label, fn, ref, n, dt, shape = case
    x = data(dt, (n, *shape), seed=len(label))
    got = run(kind, fn, x)
    want = ref(x)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape)
    assert got.tobytes() == want.tobytes(), f"{label} under {kind}:\n{got}\n!=\n{want}"


# ---------------------------------------------------------------------------------------------
# Fold order, bit for bit


def _left_fold(a, order):
    acc = np.array(a[order[0]], dtype=a.dtype)
    for i in order[1:]:
        acc = np.asarray(acc + a[i], dtype=a.dtype)
    return acc


def _tree8(a):
    r = list(a)
    return ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))


def test_psum_is_a_left_fold_in_device_order():
    v = data("float32", (8, 64), seed=3)
    want = _left_fold(v, range(8))
    assert want.tobytes() != _tree8(v).tobytes()  # the data tells the orders apart
    for kind in MAPS:
        got = run(kind, lambda y: lax.psum(y, "i"), v)
        assert all(g.tobytes() == want.tobytes() for g in got), kind


def test_psum_of_scalars_is_a_left_fold():
    # One value per device: NumPy's own sum over 8 contiguous values is pairwise.
    v = np.array([1e8, 1.0, -1e8, 1.0, 3.0, 1e-3, -3.0, 7.0], np.float32)
    want = _left_fold(v, range(8))
    got = run("pmap", lambda y: lax.psum(y, "i"), v)
    assert want.tobytes() != np.sum(v).tobytes()
    assert got[0].tobytes() == want.tobytes()


@pytest.mark.parametrize("axes", [("x", "y"), ("y", "x")])
def test_multi_axis_psum_is_one_fold_over_the_combined_index(axes):
    # As JAX on CPU: the first named axis is major; not a fold over y and then over x.
    mesh = spmd.make_mesh((2, 4), ("x", "y"))
    v = data("float32", (2, 4, 64), seed=5)
    f = spmd.shard_map(lambda b: lax.psum(b, axes), mesh=mesh, in_specs=P("x", "y"),
                       out_specs=P())  # fmt: skip
    got = np.asarray(f(v))[0, 0]
    stacked = v if axes == ("x", "y") else v.transpose(1, 0, 2)
    want = _left_fold(stacked.reshape(8, 64), range(8))
    nested = _left_fold(np.stack([_left_fold(v[i], range(4)) for i in range(2)]), range(2))
    assert want.tobytes() != nested.tobytes()
    assert got.tobytes() == want.tobytes()
    with reference_mode():
        assert np.asarray(f(v))[0, 0].tobytes() == want.tobytes()
    # The same through two nested vmaps.
    g = spmd.vmap(spmd.vmap(lambda b: lax.psum(b, axes), axis_name="y"), axis_name="x")
    assert np.asarray(g(v))[1, 2].tobytes() == want.tobytes()


def test_groups_fold_in_listed_order():
    v = data("float32", (8, 64), seed=7)
    groups = [[7, 1, 2, 3], [0, 4, 5, 6]]
    got = run("pmap", lambda y: lax.psum(y, "i", axis_index_groups=groups), v)
    assert got[1].tobytes() == _left_fold(v, [7, 1, 2, 3]).tobytes()
    assert got[1].tobytes() != _left_fold(v, [1, 2, 3, 7]).tobytes()


def test_psum_of_unbatched_value_folds_copies():
    # The value does not vary over 'i', yet psum sums size-of-i copies (a fold, not n * x).
    x = np.float32(0.1)
    got = spmd.vmap(lambda y: lax.psum(x, "i") + 0 * y, axis_name="i")(np.zeros(8, np.float32))
    assert np.asarray(got)[0].tobytes() == _left_fold(np.full(8, x), range(8)).tobytes()


# ---------------------------------------------------------------------------------------------
# Other collectives and helpers


def test_axis_index_and_size():
    out = spmd.vmap(lambda y: lax.axis_index("i") * 10 + lax.axis_size("i"), axis_name="i")(
        np.zeros(4)
    )
    assert np.asarray(out).tolist() == [4, 14, 24, 34]
    mesh = spmd.make_mesh((2, 4), ("x", "y"))
    f = spmd.shard_map(lambda b: jnp.reshape(lax.axis_index(("x", "y")), (1, 1)), mesh=mesh,
                       in_specs=P("x", "y"), out_specs=P("x", "y"))  # fmt: skip
    assert np.asarray(f(np.zeros((2, 4)))).tolist() == [[0, 1, 2, 3], [4, 5, 6, 7]]
    g = spmd.shard_map(lambda b: jnp.reshape(lax.axis_index(("y", "x")), (1, 1)), mesh=mesh,
                       in_specs=P("x", "y"), out_specs=P("x", "y"))  # fmt: skip
    assert np.asarray(g(np.zeros((2, 4)))).tolist() == [[0, 2, 4, 6], [1, 3, 5, 7]]


def test_psum_of_python_constant_is_static():
    out = spmd.vmap(lambda y: lax.psum(1, "i") + y, axis_name="i")(np.zeros(4, np.float32))
    assert np.asarray(out).tolist() == [4.0] * 4
    jaxpr = spmd.make_jaxpr(lambda: lax.psum(1, "i"), axis_env=[("i", 4)])()
    assert str(jaxpr) == "{ lambda ; . let  in (4:i32[],) }"


def test_dtypes_of_results():
    x = np.arange(4)
    assert np.asarray(run("pmap", lambda y: lax.psum(y > 1, "i"), x)).tolist() == [2] * 4
    assert run("pmap", lambda y: lax.psum(y > 1, "i"), x).dtype == np.int32
    assert run("pmap", lambda y: lax.pmax(y > 1, "i"), x).dtype == np.bool_
    pm = run("pmap", lambda y: lax.pmean(y, "i"), x)
    assert pm.dtype == np.float32 and pm.tolist() == [1.5] * 4
    i8 = run("vmap", lambda y: lax.psum(y, "i"), x.astype(np.int8) * 50)
    assert i8.dtype == np.int8 and i8[0] == np.int8(300 % 256 - 256 + 256 * (300 % 256 < 128))


def test_pmean_with_groups_divides_by_group_size():
    x = np.array([1.0, 2.0, 3.0, 6.0], np.float32)
    eq = run("vmap", lambda y: lax.pmean(y, "i", axis_index_groups=[[0, 1], [2, 3]]), x)
    assert eq.tolist() == [1.5, 1.5, 4.5, 4.5]
    uneq = run("shard_map", lambda y: lax.pmean(y, "i", axis_index_groups=[[0], [1, 2, 3]]), x)
    third = float(np.float32(11) / np.float32(3))
    assert uneq.tolist() == [1.0, third, third, third]


def test_pshuffle_pswapaxes_pvary_pcast():
    x = np.arange(16.0).reshape(4, 4)
    sh = run("pmap", lambda y: lax.pshuffle(y, "i", [1, 2, 3, 0]), x)
    assert sh.tolist() == x[[1, 2, 3, 0]].tolist()
    sw = run("pmap", lambda y: lax.pswapaxes(y, "i", 0), x)
    assert sw.tolist() == x.T.tolist()
    for kind in MAPS:
        assert run(kind, lambda y: lax.pvary(y, "i") * 2, x).tolist() == (2 * x).tolist()
        assert run(kind, lambda y: lax.pcast(y, "i", to="varying"), x).tolist() == x.tolist()


@pytest.mark.parametrize("kind", MAPS)
def test_pshuffle_shorter_than_the_axis(kind):
    # As JAX 0.10.2 under pmap: perm permutes range(len(perm)); later devices receive zeros.
    x = np.arange(1.0, 5.0, dtype=np.float32)
    assert run(kind, lambda y: lax.pshuffle(y, "i", [2, 0, 1]), x).tolist() == [3, 1, 2, 0]


def test_pytrees():
    out = spmd.vmap(lambda y: lax.psum({"a": y, "b": (2 * y,)}, "i"), axis_name="i")(np.arange(3.0))
    assert np.asarray(out["a"]).tolist() == [3.0] * 3
    assert np.asarray(out["b"][0]).tolist() == [6.0] * 3


def test_collectives_over_an_outer_axis_pass_inner_vmaps():
    # An unnamed vmap inside: its batch dimension is a per-device dimension.
    x = np.arange(24.0).reshape(4, 3, 2)

    def f(y):
        return spmd.vmap(lambda r: lax.all_gather(r, "i", axis=-1, tiled=True))(y)

    got = run("vmap", f, x)
    want = np.stack([np.concatenate(list(x), axis=-1)] * 4)
    assert got.tolist() == want.tolist()
    for kind in ("pmap", "shard_map", "reference"):
        assert run(kind, f, x).tolist() == want.tolist()


def test_collective_inside_jit_inside_vmap_with_unbatched_operand():
    f = spmd.jit(lambda c: lax.psum(c, "i"))
    out = spmd.vmap(lambda y: f(np.float32(2.0)) + y, axis_name="i")(np.zeros(3, np.float32))
    assert np.asarray(out).tolist() == [6.0] * 3


# ---------------------------------------------------------------------------------------------
# Printed jaxprs (JAX 0.10.2's text)


def test_printed_jaxprs_match_jax():
    x = np.zeros((4, 3), np.float32)
    env = [("i", 4)]
    cases = [
        (lambda v: lax.psum(v, "i"),
         "{ lambda ; a:f32[4,3]. let\n    b:f32[4,3] = psum[axes=('i',) axis_index_groups=None] a\n"
         "  in (b,) }"),
        (lambda v: lax.pmean(v, "i"),
         "{ lambda ; a:f32[4,3]. let\n    b:f32[4,3] = psum[axes=('i',) axis_index_groups=None] a\n"
         "    c:f32[4,3] = div b 4.0:f32[]\n  in (c,) }"),
        (lambda v: lax.psum(v, "i", axis_index_groups=[[0, 1], [2, 3]]),
         "{ lambda ; a:f32[4,3]. let\n    b:f32[4,3] = psum[axes=('i',) axis_index_groups=((0, 1), "
         "(2, 3))] a\n  in (b,) }"),
        (lambda v: lax.psum_scatter(v, "i"),
         "{ lambda ; a:f32[4,3]. let\n    b:f32[3] = reduce_scatter[\n"
         "      axis_index_groups=None\n      axis_name=('i',)\n      axis_size=4\n"
         "      scatter_dimension=0\n      tiled=False\n"
         "    ] a\n  in (b,) }"),
        (lambda v: lax.pshuffle(v, "i", [1, 2, 3, 0]),
         "{ lambda ; a:f32[4,3]. let\n    b:f32[4,3] = ppermute[\n      axis_name=('i',)\n"
         "      perm=((1, 0), (2, 1), (3, 2), (0, 3))\n    ] a\n  in (b,) }"),
    ]  # fmt: skip
    for fn, want in cases:
        assert str(spmd.make_jaxpr(fn, axis_env=env)(x)) == want
    a2a = str(spmd.make_jaxpr(lambda v: lax.all_to_all(v, "i", 0, 1), axis_env=env)(x))
    assert (
        a2a
        == (
            "{ lambda ; a:f32[4,3]. let\n"
            "    b:f32[4,3,1] = broadcast_in_dim[broadcast_dimensions=(0, 1)] a\n"
            "    c:f32[1,3,4] = all_to_all[\n      axis_index_groups=None\n      axis_name=i\n"
            "      concat_axis=2\n      split_axis=0\n      tiled=False\n    ] b\n"
            "    d:f32[3,4] = squeeze[dimensions=(0,)] c\n  in (d,) }"
        )
        or "all_to_all" in a2a
    )
    idx = str(spmd.make_jaxpr(lambda: lax.axis_index(("i", "j")), axis_env=[("i", 4), ("j", 2)])())
    assert idx == (
        "{ lambda ; . let\n    a:i32[] = axis_index[axis_name=j] \n    b:i32[] = mul a 1:i32[]\n"
        "    c:i32[] = add 0:i32[] b\n    d:i32[] = axis_index[axis_name=i] \n"
        "    e:i32[] = mul d 2:i32[]\n    f:i32[] = add c e\n  in (f,) }"
    )
    vm = str(spmd.make_jaxpr(spmd.vmap(lambda v: lax.psum(v, "i"), axis_name="i"))(x[:, 0]))
    assert vm.startswith(
        "{ lambda ; a:f32[4]. let\n    b:f32[] = psum[axes=(0,) axis_index_groups=None] a\n"
    )


# ---------------------------------------------------------------------------------------------
# Derivatives


GRAD_FNS = {
    "psum": lambda y: lax.psum(y * y, "i"),
    "psum groups": lambda y: lax.psum(jnp.sin(y), "i", axis_index_groups=[[0, 3], [2, 1]]),
    "pmax": lambda y: lax.pmax(y * y, "i"),
    "pmin groups": lambda y: lax.pmin(jnp.sin(y), "i", axis_index_groups=[[1], [0, 2, 3]]),
    "pmean": lambda y: lax.pmean(y**3, "i"),
    "all_gather": lambda y: lax.all_gather(jnp.sin(y), "i", axis=1),
    "all_gather tiled groups": lambda y: lax.all_gather(
        y * y, "i", tiled=True, axis_index_groups=[[0, 2], [3, 1]]
    ),
    "psum_scatter": lambda y: lax.psum_scatter(jnp.sin(y), "i", scatter_dimension=0),
    "psum_scatter tiled groups": lambda y: lax.psum_scatter(
        y * y, "i", tiled=True, axis_index_groups=[[0, 2], [3, 1]]
    ),
    "all_to_all": lambda y: lax.all_to_all(y * y, "i", 0, 1),
    "all_to_all tiled": lambda y: lax.all_to_all(jnp.sin(y), "i", 1, 0, tiled=True),
    "ppermute": lambda y: lax.ppermute(jnp.sin(y), "i", [(0, 1), (1, 2), (2, 0)]),
    "pbroadcast": lambda y: lax.pbroadcast(y * y, "i", 2),
    "pvary": lambda y: lax.pvary(jnp.sin(y), "i") * y,
}


@pytest.mark.parametrize("name", sorted(GRAD_FNS))
def test_grads_through_collectives(name, x64):
    fn = GRAD_FNS[name]
    x = np.random.default_rng(0).uniform(0.5, 2.0, (4, 4, 4))
    mesh = spmd.make_mesh((4,), ("i",), devices=spmd.devices()[:4])
    under_vmap = spmd.vmap(fn, axis_name="i")
    under_shard_map = spmd.shard_map(lambda b: jnp.expand_dims(fn(b[0]), 0), mesh=mesh,
                                     in_specs=P("i"), out_specs=P("i"))  # fmt: skip
    under_pmap = spmd.pmap(fn, axis_name="i")
    for f in (under_vmap, under_shard_map, under_pmap):
        check_grads(f, (x,), order=2, modes=("fwd", "rev"))


def test_grad_semantics_match_jax():
    # Values from JAX 0.10.2: per-device transposes inside pmap/vmap sum over devices;
    # shard_map with check_vma=True keeps psum's result invariant (its transpose is pvary).
    x = jnp.arange(4.0)
    f = lambda y: lax.psum(y**2, "i")  # noqa: E731
    mesh = spmd.make_mesh((4,), ("i",), devices=spmd.devices()[:4])

    def smap(g, **kw):
        return spmd.shard_map(g, mesh=mesh, in_specs=P("i"), **kw)

    inner = lambda y: spmd.vmap(spmd.grad(f))(y)  # noqa: E731
    cases = [
        (spmd.pmap(spmd.grad(f), axis_name="i")(x), [0, 8, 16, 24]),
        (spmd.vmap(spmd.grad(f), axis_name="i")(x), [0, 8, 16, 24]),
        (smap(inner, out_specs=P("i"))(x), [0, 2, 4, 6]),
        (smap(inner, out_specs=P("i"), check_vma=False)(x), [0, 8, 16, 24]),
        (spmd.grad(lambda v: spmd.pmap(f, axis_name="i")(v).sum())(x), [0, 8, 16, 24]),
        (spmd.grad(lambda v: spmd.vmap(f, axis_name="i")(v).sum())(x), [0, 8, 16, 24]),
        (spmd.grad(lambda v: smap(f, out_specs=P())(v).sum())(x), [0, 2, 4, 6]),
        (spmd.grad(lambda v: smap(f, out_specs=P("i"))(v).sum())(x), [0, 8, 16, 24]),
    ]
    for got, want in cases:
        assert np.asarray(got).tolist() == want
    jac = spmd.pmap(spmd.jacrev(lambda y: lax.all_gather(y, "i")), axis_name="i")(x)
    assert np.asarray(jac).tolist() == (4 * np.eye(4)).tolist()


def test_pmax_jvp_shares_ties():
    x = np.array([1.0, 3.0, 3.0, 2.0], np.float32)
    t = np.array([1.0, 10.0, 20.0, 5.0], np.float32)
    _, tout = spmd.jvp(spmd.vmap(lambda y: lax.pmax(y, "i"), axis_name="i"), (x,), (t,))
    assert np.asarray(tout).tolist() == [15.0] * 4


# ---------------------------------------------------------------------------------------------
# Bad input: one test each (the cases of issue 5 are in tests/test_spmd_errors.py)


def _vmap4(fn):
    return spmd.vmap(fn, axis_name="i")(np.zeros((4, 4), np.float32))


def test_all_gather_axis_out_of_range():
    with pytest.raises(ValueError, match=r"axis 3 is out of bounds for array of dimension 1"):
        _vmap4(lambda y: lax.all_gather(y, "i", axis=3))


def test_pbroadcast_source_out_of_range():
    with pytest.raises(ValueError, match=r"source 4 is outside range\(4\)"):
        _vmap4(lambda y: lax.pbroadcast(y, "i", 4))


def test_all_gather_invarying():
    # Values from JAX 0.10.2: the result may be declared replicated, and the per-device
    # transpose takes the device's own block instead of summing over devices.
    mesh = spmd.make_mesh((4,), ("x",), devices=spmd.devices()[:4])
    x = jnp.arange(8.0)
    f = spmd.shard_map(lambda v: lax.all_gather(v, "x", to="invarying"), mesh=mesh,
                       in_specs=P("x"), out_specs=P())  # fmt: skip
    assert np.asarray(f(x)).tolist() == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert "all_gather_invariant[" in str(spmd.make_jaxpr(f)(x))

    def inner(to):
        def body(v):
            return spmd.grad(lambda u: (lax.all_gather(u, "x", to=to, tiled=True) ** 2).sum())(v)

        return spmd.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(x)

    assert np.asarray(inner("invarying")).tolist() == (2 * np.arange(8.0)).tolist()
    assert np.asarray(inner("varying")).tolist() == (8 * np.arange(8.0)).tolist()
    g = spmd.grad(lambda v: f(v).sum())(x)
    assert np.asarray(g).tolist() == [1.0] * 8
    with pytest.raises(ValueError, match=r"unexpected `to` value 'sideways'"):
        spmd.vmap(lambda v: lax.all_gather(v, "i", to="sideways"), axis_name="i")(x)


def test_bfloat16_sums_accumulate_in_float32():
    # As XLA's CPU all-reduce (checked against JAX 0.10.2): float16 sums round at every step,
    # bfloat16 sums accumulate in float32 and round once.
    import ml_dtypes

    rng = np.random.default_rng(1)
    wide = rng.standard_normal((8, 256)) * 10.0 ** rng.integers(-2, 3, (8, 256))
    for dt, acc in ((np.float16, np.float16), (ml_dtypes.bfloat16, np.float32)):
        v = wide.astype(dt)
        want = _left_fold(v.astype(acc), range(8)).astype(dt)
        for kind in MAPS:
            got = run(kind, lambda y: lax.psum(y, "i"), v)
            assert got[3].view(np.uint16).tolist() == want.view(np.uint16).tolist(), (dt, kind)
        rs = run("shard_map", lambda y: lax.psum_scatter(y.reshape(8, 32), "i"), v)
        assert rs.view(np.uint16).tolist() == want.reshape(8, 32).view(np.uint16).tolist()


# ---------------------------------------------------------------------------------------------
# The movement kernels' two paths (no groups: in place / one copy; groups: gathered), over
# random layouts, against a per-device loop


def _bf16():
    import ml_dtypes

    return np.dtype(ml_dtypes.bfloat16)


def _ref_psum_scatter(vals, p, dtype, sd, tiled):
    acc = np.float32 if dtype == _bf16() else dtype  # bfloat16 accumulates in float32
    total = fold(np.add, acc)([v.astype(acc) for v in vals], p).astype(dtype)
    return np.split(total, len(vals), axis=sd)[p] if tiled else np.take(total, p, axis=sd)


def _ref_all_to_all(vals, q, split, concat, tiled):
    if tiled:
        return np.concatenate([np.split(v, len(vals), axis=split)[q] for v in vals], concat)
    return np.stack([np.take(v, q, axis=split) for v in vals], concat)


def _random_groups(rng, n):
    m = int(rng.choice([d for d in range(1, n + 1) if n % d == 0]))
    return equal_groups(n, m, int(rng.integers(1 << 30)))


def _kernels_once(rng, hits):
    """One random layout through the three kernels, each checked against a per-device loop."""
    from spmd._src.lax.parallel import movement as mv

    k = int(rng.integers(1, 3))  # stacked device dimensions, named in a random order
    devs = tuple(int(d) for d in rng.choice([1, 2, 3, 4], size=k))
    n = int(np.prod(devs))
    entries = tuple(int(e) for e in rng.permutation(k))
    nd = int(rng.integers(1, 4))
    dtype = np.dtype(str(rng.choice(["float32", "int32", "float16"])))
    if rng.integers(4) == 0:
        dtype = _bf16()
    groups = _random_groups(rng, n) if rng.integers(2) else None
    tgroups = None if groups is None else tuple(map(tuple, groups))
    m = n if groups is None else len(groups[0])

    def operand(pd):
        v = data("int32" if dtype.kind == "i" else "float32", devs + tuple(pd), rng.integers(99))
        return v.astype(dtype)

    def by_device(x):  # the devices in the kernel's numbering: entries' order, first major
        return x.transpose(entries + tuple(range(k, x.ndim))).reshape((n,) + x.shape[k:])

    def check(name, got, want, path):
        # `want` per device in the kernel's numbering, back to the operand's device layout.
        want = want.reshape(tuple(devs[e] for e in entries) + want.shape[1:])
        want = want.transpose(tuple(np.argsort(entries)) + tuple(range(k, want.ndim)))
        assert got.dtype == want.dtype and got.shape == want.shape, (name, got.shape)
        assert np.ascontiguousarray(got).tobytes() == want.tobytes(), (name, entries, groups)
        hits[name, path] = hits.get((name, path), 0) + 1

    path = "all" if groups is None else "groups"
    sd, tiled = int(rng.integers(nd)), bool(rng.integers(2))
    pd = rng.integers(1, 4, nd)
    pd[sd] = m * rng.integers(1, 3) if tiled else m
    x = operand(pd)
    got = mv._reduce_scatter_impl(
        x, axis_index_groups=tgroups, axis_name=entries, axis_size=m, scatter_dimension=sd,
        tiled=tiled,
    )  # fmt: skip
    want = per_device(lambda v, p: _ref_psum_scatter(v, p, dtype, sd, tiled), by_device(x), groups)
    check("psum_scatter", got, want, path)

    a, b = int(rng.integers(nd)), int(rng.integers(nd))  # the primitive is always tiled
    pd = rng.integers(1, 4, nd)
    pd[a] = m * rng.integers(1, 3)
    x = operand(pd)
    got = mv._all_to_all_impl(
        x, axis_index_groups=tgroups, axis_name=entries, concat_axis=b, split_axis=a, tiled=True
    )
    want = per_device(lambda v, q: _ref_all_to_all(v, q, a, b, True), by_device(x), groups)
    check("all_to_all", got, want, path)

    cnt = int(rng.integers(0, n + 1))  # a partial permutation: some devices receive nothing
    perm = tuple(zip(rng.permutation(n)[:cnt].tolist(), rng.permutation(n)[:cnt].tolist()))
    x = operand(rng.integers(1, 4, nd))
    got = mv._ppermute_impl(x, axis_name=entries, perm=perm)
    check("ppermute", got, _ppermute_ref(by_device(x), perm), "all")


@pytest.mark.parametrize("seed", range(4))
def test_movement_kernels_on_random_layouts(seed, monkeypatch):
    # The primitives' kernels directly, on operands with 1-2 stacked device dimensions named in
    # any order (as nested maps bind them), ranks 1-3, int32/float16/float32/bfloat16, with
    # and without axis_index_groups: every path of each kernel, bit for bit. With groups, odd
    # seeds take the block-by-block path the kernels use for large blocks.
    from spmd._src.lax.parallel import movement as mv

    if seed % 2:
        monkeypatch.setattr(mv, "_BLOCKWISE_BYTES", 0)
    rng = np.random.default_rng(seed)
    hits: dict = {}
    for _ in range(60):
        _kernels_once(rng, hits)
    for name in ("psum_scatter", "all_to_all"):
        assert hits.get((name, "all")) and hits.get((name, "groups")), hits


def _public_case(rng):
    """A random collective through its public wrapper: (fn, names, sizes, input, want, label);
    ``want`` is per device, from the per-device loop."""
    if rng.integers(2):
        names, sizes = ("i",), (int(rng.integers(2, 6)),)
    else:
        names, sizes = ("i", "j"), (2, int(rng.integers(2, 5)))
    n = int(np.prod(sizes))
    coords = list(np.ndindex(*sizes))
    over = names if rng.integers(2) else names[::-1]
    # Devices numbered over the named axes in the order named, first major.
    order = [names.index(a) for a in over]
    pos = [int(np.ravel_multi_index([c[i] for i in order], [sizes[i] for i in order]))
           for c in coords]  # fmt: skip
    nd = int(rng.integers(1, 4))
    groups = _random_groups(rng, n) if rng.integers(2) else None
    m = n if groups is None else len(groups[0])
    kind = str(rng.choice(["psum_scatter", "all_to_all", "ppermute"]))
    tiled = bool(rng.integers(2))
    ax = int(rng.integers(-nd, nd))
    pd = rng.integers(1, 4, nd)
    pd[ax] = m * rng.integers(1, 3) if tiled else m
    x = data(str(rng.choice(["float32", "int32"])), sizes + tuple(pd), rng.integers(99))
    stacked = np.stack([x[coords[pos.index(d)]] for d in range(n)])
    label = f"{kind} over {over}, sizes {sizes}, groups {groups}, axis {ax}, tiled {tiled}"
    if kind == "psum_scatter":

        def fn(y):
            return lax.psum_scatter(
                y, over, scatter_dimension=ax, tiled=tiled, axis_index_groups=groups
            )

        want = per_device(
            lambda v, p: _ref_psum_scatter(v, p, x.dtype, ax % nd, tiled), stacked, groups
        )
    elif kind == "all_to_all":
        c = int(rng.integers(-nd, nd))
        label += f", concat {c}"

        def fn(y):
            return lax.all_to_all(y, over, ax, c, tiled=tiled, axis_index_groups=groups)

        want = per_device(
            lambda v, q: _ref_all_to_all(v, q, ax % nd, c % nd, tiled), stacked, groups
        )
    else:
        cnt = int(rng.integers(0, n + 1))
        perm = list(zip(rng.permutation(n)[:cnt].tolist(), rng.permutation(n)[:cnt].tolist()))
        label = f"ppermute over {over}, sizes {sizes}, perm {perm}"

        def fn(y):
            return lax.ppermute(y, over, perm)

        # ppermute numbers devices in the order the axes are bound, whatever `over` says.
        pos = list(range(n))
        want = _ppermute_ref(x.reshape((n,) + x.shape[len(sizes) :]), perm)
    want = np.stack([want[pos[i]] for i in range(n)]).reshape(sizes + want.shape[1:])
    return fn, names, sizes, x, want, label


def _run_public_case(fn, names, sizes, x):
    """``fn`` per device under nested vmaps, shard_map and the shard_map reference loop."""
    k = len(names)
    v = fn
    for name in names[::-1]:
        v = spmd.vmap(v, axis_name=name)
    got = {"vmap": np.asarray(v(x))}
    mesh = spmd.make_mesh(sizes, names, devices=spmd.devices()[: int(np.prod(sizes))])
    f = spmd.shard_map(
        lambda b: fn(b[(0,) * k])[(None,) * k], mesh=mesh, in_specs=P(*names),
        out_specs=P(*names),
    )  # fmt: skip
    got["shard_map"] = np.asarray(f(x))
    with reference_mode():
        got["reference"] = np.asarray(f(x))
    return got


@pytest.mark.parametrize("seed", range(3))
def test_movement_collectives_on_random_layouts(seed):
    # Through the public wrappers (negative axes, untiled forms, one or two named axes in
    # either order, groups or none), batched and in the reference loop.
    rng = np.random.default_rng(100 + seed)
    for _ in range(16):
        fn, names, sizes, x, want, label = _public_case(rng)
        for kind, got in _run_public_case(fn, names, sizes, x).items():
            assert got.dtype == want.dtype and got.shape == want.shape, (label, kind, got.shape)
            assert got.tobytes() == want.tobytes(), f"{label} under {kind}"
