"""Typed key arrays in element-moving jnp and lax functions, eval_shape and the dtype hierarchy.

In JAX 0.10 a function that only moves elements (stack, where, take, reshape, ...) takes typed
keys and acts on their leading (key) dimensions; its key data is then NumPy's same function over
the data with the trailing key-data axis carried along. That is the reference here (each case
was also run under JAX 0.10.2, which printed the same key data).
"""

import numpy as np
import pytest

import spmd as jax
import spmd.numpy as jnp
from spmd import lax

KEYS = jax.random.split(jax.random.key(0), 4)
DATA = np.asarray(jax.random.key_data(KEYS))  # uint32[4, 2]
MASK = np.array([True, False, True, False])
IDX = np.array([2, 0])

# (name, function of a key array, NumPy reference on its uint32[..., 2] data)
CASES = [
    ("jnp.stack", lambda k: jnp.stack([k, k[::-1]]), lambda d: np.stack([d, d[::-1]])),
    ("jnp.stack axis 1", lambda k: jnp.stack([k, k], axis=1), lambda d: np.stack([d, d], 1)),
    (
        "jnp.concatenate",
        lambda k: jnp.concatenate([k, k[:2]]),
        lambda d: np.concatenate([d, d[:2]]),
    ),
    ("jnp.hstack", lambda k: jnp.hstack([k, k]), lambda d: np.concatenate([d, d])),
    (
        "jnp.where",
        lambda k: jnp.where(MASK, k, k[::-1]),
        lambda d: np.where(MASK[:, None], d, d[::-1]),
    ),
    (
        "jnp.select",
        lambda k: jnp.select([MASK], [k], k[::-1]),
        lambda d: np.where(MASK[:, None], d, d[::-1]),
    ),
    (
        "jnp.broadcast_to",
        lambda k: jnp.broadcast_to(k[0], (3,)),
        lambda d: np.broadcast_to(d[0], (3, 2)),
    ),
    ("jnp.expand_dims", lambda k: jnp.expand_dims(k, 0), lambda d: d[None]),
    ("jnp.take", lambda k: jnp.take(k, IDX), lambda d: d[IDX]),
    ("jnp.take_along_axis", lambda k: jnp.take_along_axis(k, IDX, 0), lambda d: d[IDX]),
    ("jnp.reshape", lambda k: jnp.reshape(k, (2, 2)), lambda d: d.reshape(2, 2, 2)),
    ("jnp.ravel", lambda k: jnp.ravel(k.reshape(2, 2)), lambda d: d),
    (
        "jnp.swapaxes",
        lambda k: jnp.swapaxes(k.reshape(2, 2), 0, 1),
        lambda d: d.reshape(2, 2, 2).swapaxes(0, 1),
    ),
    (
        "jnp.transpose",
        lambda k: jnp.transpose(k.reshape(2, 2)),
        lambda d: d.reshape(2, 2, 2).swapaxes(0, 1),
    ),
    ("jnp.squeeze", lambda k: jnp.squeeze(k[None]), lambda d: d),
    ("jnp.flip", lambda k: jnp.flip(k), lambda d: d[::-1]),
    ("jnp.roll", lambda k: jnp.roll(k, 1), lambda d: np.roll(d, 1, axis=0)),
    ("jnp.tile", lambda k: jnp.tile(k, 2), lambda d: np.tile(d, (2, 1))),
    ("jnp.repeat", lambda k: jnp.repeat(k, 2), lambda d: np.repeat(d, 2, axis=0)),
    ("jnp.zeros_like", lambda k: jnp.zeros_like(k), lambda d: np.zeros_like(d)),
    ("jnp.ones_like", lambda k: jnp.ones_like(k), lambda d: np.ones_like(d)),
    ("jnp.full_like", lambda k: jnp.full_like(k, 0), lambda d: np.zeros_like(d)),
    ("jnp.atleast_1d", lambda k: jnp.atleast_1d(k[0]), lambda d: d[:1]),
    ("jnp.asarray", lambda k: jnp.asarray(k), lambda d: d),
    ("jnp.array", lambda k: jnp.array(k), lambda d: d),
    ("jnp.copy", lambda k: jnp.copy(k), lambda d: d),
    ("lax.concatenate", lambda k: lax.concatenate([k, k], 0), lambda d: np.concatenate([d, d])),
    (
        "lax.select",
        lambda k: lax.select(MASK, k, k[::-1]),
        lambda d: np.where(MASK[:, None], d, d[::-1]),
    ),
    (
        "lax.select_n",
        lambda k: lax.select_n(MASK, k, k[::-1]),
        lambda d: np.where(MASK[:, None], d[::-1], d),
    ),
    ("lax.dynamic_slice", lambda k: lax.dynamic_slice(k, (1,), (2,)), lambda d: d[1:3]),
    (
        "lax.dynamic_update_slice",
        lambda k: lax.dynamic_update_slice(k, k[:1], (2,)),
        lambda d: np.concatenate([d[:2], d[:1], d[3:]]),
    ),
    (
        "lax.dynamic_index_in_dim",
        lambda k: lax.dynamic_index_in_dim(k, 3, keepdims=False),
        lambda d: d[3],
    ),
    ("lax.broadcast", lambda k: lax.broadcast(k[1], (3,)), lambda d: np.broadcast_to(d[1], (3, 2))),
    (
        "lax.broadcast_in_dim",
        lambda k: lax.broadcast_in_dim(k, (3, 4), (1,)),
        lambda d: np.broadcast_to(d, (3, 4, 2)),
    ),
    ("lax.expand_dims", lambda k: lax.expand_dims(k, (1,)), lambda d: d[:, None]),
    ("lax.reshape", lambda k: lax.reshape(k, (2, 2)), lambda d: d.reshape(2, 2, 2)),
    (
        "lax.transpose",
        lambda k: lax.transpose(k.reshape(2, 2), (1, 0)),
        lambda d: d.reshape(2, 2, 2).swapaxes(0, 1),
    ),
    ("lax.rev", lambda k: lax.rev(k, (0,)), lambda d: d[::-1]),
    ("lax.slice", lambda k: lax.slice(k, (1,), (4,), (2,)), lambda d: d[1:4:2]),
    ("lax.index_in_dim", lambda k: lax.index_in_dim(k, 2, keepdims=False), lambda d: d[2]),
]


@pytest.mark.parametrize("name,fn,ref", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_element_moving_functions_take_typed_keys(name, fn, ref, mode):
    out = (jax.jit(fn) if mode == "jit" else fn)(KEYS)
    want = ref(DATA)
    assert out.dtype == jax.random.key_dtype(), name
    assert out.shape == want.shape[:-1]
    np.testing.assert_array_equal(np.asarray(jax.random.key_data(out)), want)


def test_functions_returning_several_key_arrays():
    parts = jnp.split(KEYS, 2)
    assert [p.shape for p in parts] == [(2,), (2,)]
    np.testing.assert_array_equal(jax.random.key_data(parts[1]), DATA[2:])
    rows = jnp.unstack(KEYS)
    assert len(rows) == 4 and rows[3].shape == ()
    np.testing.assert_array_equal(jax.random.key_data(rows[3]), DATA[3])


def test_key_functions_under_vmap_act_per_example():
    # Per example the key array is (2,): stacking two copies gives (2, 2) keys per example.
    out = jax.vmap(lambda k: jnp.stack([k, k[::-1]]))(KEYS.reshape(2, 2))
    assert out.shape == (2, 2, 2)
    d = DATA.reshape(2, 2, 2)
    np.testing.assert_array_equal(jax.random.key_data(out), np.stack([d, d[:, ::-1]], axis=1))


def test_keys_from_element_moving_functions_still_draw_the_same_numbers():
    picked = jnp.take(KEYS, IDX)
    np.testing.assert_array_equal(
        jax.vmap(jax.random.uniform)(picked), jax.vmap(jax.random.uniform)(KEYS)[IDX]
    )


@pytest.mark.parametrize(
    "fn",
    [
        lambda k, u: jnp.where(MASK, k, u),
        lambda k, u: jnp.stack([k, u]),
        lambda k, u: jnp.concatenate([k, u]),
        lambda k, u: jnp.select([MASK], [k], 0),
    ],
    ids=["where", "stack", "concatenate", "select"],
)
def test_mixing_keys_and_numbers_is_a_value_error_as_in_jax(fn):
    u = jnp.zeros((4, 2), jnp.uint32)
    with pytest.raises(ValueError, match=r"typed key arrays \(dtype key<fry>\).*wrap_key_data"):
        fn(KEYS, u)


def test_lax_select_mixing_keys_and_numbers_is_a_type_error_as_in_jax():
    with pytest.raises(TypeError, match=r"lax.select: cannot combine typed key arrays"):
        lax.select(MASK, KEYS, jnp.zeros((4, 2), jnp.uint32))


def test_eval_shape_reports_keys_with_their_own_shape_and_dtype():
    key_sds = jax.ShapeDtypeStruct((), jax.random.key_dtype())
    assert repr(key_sds) == "ShapeDtypeStruct(shape=(), dtype=key<fry>)"
    out = jax.eval_shape(lambda k: (jax.random.split(k, 3), jax.random.normal(k, (2,))), key_sds)
    assert out == (
        jax.ShapeDtypeStruct((3,), jax.random.key_dtype()),
        jax.ShapeDtypeStruct((2,), jnp.float32),
    )
    # The same from a concrete key, and through a jitted function's eval_shape.
    assert jax.eval_shape(lambda k: jax.random.split(k, 3), jax.random.key(1)) == out[0]
    assert jax.jit(lambda k: jax.random.split(k, 3)).eval_shape(key_sds) == out[0]


def test_key_dtype_is_an_extended_prng_key_dtype():
    dt = KEYS.dtype
    assert jnp.issubdtype(dt, jax.dtypes.prng_key)
    assert jnp.issubdtype(dt, jax.dtypes.extended)
    assert not jnp.issubdtype(dt, np.integer)
    assert not jnp.issubdtype(np.uint32, jax.dtypes.prng_key)


def test_public_pytree_functions_treat_key_arrays_as_leaves():
    # As in JAX, where a key array is an array: its leaves are not its uint32 data.
    tree = {"k": KEYS, "x": jnp.ones(3)}
    assert jax.tree_util.tree_map(lambda a: a.shape, tree) == {"k": (4,), "x": (3,)}
    assert jax.tree.map(lambda a: a.dtype, tree)["k"] == jax.random.key_dtype()
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    assert leaves[0] is KEYS and treedef.num_leaves == 2
    assert [a.shape for a in jax.tree.leaves(tree)] == [(4,), (3,)]
    assert jax.tree_util.tree_leaves_with_path(tree)[0][1] is KEYS
    assert jax.tree.structure(tree) == jax.tree.structure({"k": 0, "x": 0})
    stacked = jax.tree.map(lambda a, b: jnp.stack([a, b]), tree, tree)
    assert stacked["k"].shape == (2, 4) and stacked["k"].dtype == jax.random.key_dtype()
    # A user's is_leaf still applies next to the key rule.
    assert jax.tree_util.tree_leaves([KEYS, (1, 2)], is_leaf=lambda x: isinstance(x, tuple)) == [
        KEYS,
        (1, 2),
    ]
    # Transformations still carry keys through (their own flattening sees the key data).
    out = jax.jit(lambda t: jax.tree.map(lambda a: a[::-1], t))(tree)
    np.testing.assert_array_equal(jax.random.key_data(out["k"]), DATA[::-1])


def test_one_level_flattening_sees_a_key_array_as_a_leaf_as_jax_does():
    with pytest.raises(ValueError, match="can't tree-flatten type"):
        jax.tree_util.flatten_one_level(KEYS)
    assert not jax.tree_util.is_tree_node(type(KEYS))
    assert jax.tree_util.default_registry.flatten_one_level(KEYS) is None


def test_vmapped_random_functions_draw_where_their_keys_are_placed():
    # JAX 0.10.2 (8 CPU devices): a jit of vmapped samplers over keys placed P('x') gives
    # results placed P('x') (spmd gave them unplaced: the random primitives had no sharding
    # rule), eagerly too.
    NamedSharding, P = jax.sharding.NamedSharding, jax.sharding.PartitionSpec

    mesh = jax.make_mesh((4, 2), ("x", "y"))
    ks = jax.device_put(jax.random.split(jax.random.key(0), 8), NamedSharding(mesh, P("x")))
    fns = {
        "bits": jax.vmap(lambda k: jax.random.bits(k, (2,))),
        "bits1": jax.vmap(lambda k: jax.random.bits(k, ())),
        "uniform": jax.vmap(lambda k: jax.random.uniform(k, (2,))),
        "split": jax.vmap(jax.random.split),
        "fold_in": jax.vmap(lambda k: jax.random.fold_in(k, 3)),
    }
    for name, f in fns.items():
        for g in (f, jax.jit(f)):
            r = g(ks)
            assert r.sharding.mesh is mesh and r.sharding.spec[:1] == ("x",), (name, r.sharding)
            assert all(e is None for e in r.sharding.spec[1:]), (name, r.sharding)
    # The values are those of the unplaced keys (bit for bit).
    plain = jax.random.split(jax.random.key(0), 8)
    np.testing.assert_array_equal(fns["uniform"](ks), fns["uniform"](plain))
