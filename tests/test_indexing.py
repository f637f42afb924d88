"""Indexing: ``x[idx]``, ``x.at[idx]`` updates, ``take``/``take_along_axis``/``put`` and the
index helpers (spmd.numpy), and the dynamic_slice/gather/scatter primitives (spmd.lax).

Values are checked against NumPy (including property tests over random index expressions,
eagerly and under jit); the printed programs against texts taken from JAX 0.10.
"""

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd._src import dtypes
from spmd._src.array import Array
from spmd._src.numpy.indexing import NonConcreteBooleanIndexError


def A(v, dtype=None):
    """An spmd array holding ``v`` (64-bit NumPy values canonicalized, as jnp.asarray does)."""
    v = np.asarray(v, dtype)
    return Array(v.astype(dtypes.canonicalize_dtype(v.dtype)))


def arange(*shape, dtype=np.float32):
    return A(np.arange(int(np.prod(shape))).reshape(shape).astype(dtype))


def check(out, ref, dtype=None):
    out = np.asarray(out)
    ref = np.asarray(ref)
    assert out.shape == ref.shape
    assert out.dtype == (ref.dtype if dtype is None else np.dtype(dtype))
    np.testing.assert_array_equal(out, ref)


def jaxpr(f, *args):
    return str(spmd.make_jaxpr(f)(*args))


# ---------------------------------------------------------------------------------------------
# Printed programs (texts from jax.make_jaxpr in JAX 0.10)


def test_jaxpr_static_slices():
    assert jaxpr(lambda x: x[1:3, ::2] + x[0, :3], arange(4, 6)) == (
        "{ lambda ; a:f32[4,6]. let\n"
        "    b:f32[2,3] = slice[limit_indices=(3, 6) start_indices=(1, 0) strides=(1, 2)] a\n"
        "    c:f32[1,3] = slice[limit_indices=(1, 3) start_indices=(0, 0) strides=None] a\n"
        "    d:f32[3] = squeeze[dimensions=(0,)] c\n"
        "    e:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] d\n"
        "    f:f32[2,3] = add b e\n"
        "  in (f,) }"
    )
    assert jaxpr(lambda x: x[::-1, 1:-1:2], arange(4, 6)) == (
        "{ lambda ; a:f32[4,6]. let\n"
        "    b:f32[4,2] = slice[limit_indices=(4, 5) start_indices=(0, 1) strides=(1, 2)] a\n"
        "    c:f32[4,2] = rev[dimensions=(0,)] b\n"
        "  in (c,) }"
    )
    assert jaxpr(lambda x: x[None, ..., None], arange(4, 6)) == (
        "{ lambda ; a:f32[4,6]. let\n"
        "    b:f32[1,4,6,1] = broadcast_in_dim[broadcast_dimensions=(1, 2)] a\n"
        "  in (b,) }"
    )
    assert jaxpr(lambda x: x[...], arange(3)) == "{ lambda ; a:f32[3]. let  in (a,) }"


def test_jaxpr_integer_array_index():
    idx = A(np.array([0, 2], np.int32))
    assert jaxpr(lambda x: x[idx], arange(4, 6)) == (
        "{ lambda a:i32[2]; b:f32[4,6]. let\n"
        "    c:bool[2] = lt a 0:i32[]\n"
        "    d:i32[2] = add a 4:i32[]\n"
        "    e:i32[2] = select_n c a d\n"
        "    f:i32[2,1] = broadcast_in_dim[broadcast_dimensions=(0,)] e\n"
        "    g:f32[2,6] = gather[\n"
        "      dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), "
        "collapsed_slice_dims=(0,), start_index_map=(0,), operand_batching_dims=(), "
        "start_indices_batching_dims=())\n"
        "      fill_value=None\n"
        "      indices_are_sorted=False\n"
        "      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n"
        "      slice_sizes=(1, 6)\n"
        "      unique_indices=False\n"
        "    ] b f\n"
        "  in (g,) }"
    )


def test_jaxpr_at_set_and_add():
    expected = (
        "{ lambda ; a:f32[4,6]. let\n"
        "    b:i32[1] = broadcast_in_dim 0:i32[]\n"
        "    c:f32[6] = broadcast_in_dim 3.0:f32[]\n"
        "    d:f32[4,6] = scatter[\n"
        "      dimension_numbers=ScatterDimensionNumbers(update_window_dims=(0,), "
        "inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), "
        "scatter_indices_batching_dims=())\n"
        "      indices_are_sorted=True\n"
        "      mode=GatherScatterMode.FILL_OR_DROP\n"
        "      unique_indices=True\n"
        "      update_consts=()\n"
        "      update_jaxpr=None\n"
        "    ] a b c\n"
        "  in (d,) }"
    )
    assert jaxpr(lambda x: x.at[0].set(3.0), arange(4, 6)) == expected
    add = expected.replace("scatter[", "scatter-add[").replace(
        "update_jaxpr=None",
        "update_jaxpr={ lambda ; e:f32[] f:f32[]. let g:f32[] = add e f in (g,) }",
    )
    assert jaxpr(lambda x: x.at[0].add(3.0), arange(4, 6)) == add


def test_jaxpr_traced_int_uses_dynamic_slice():
    assert jaxpr(lambda x, i: x[i], arange(4, 6), 1) == (
        "{ lambda ; a:f32[4,6] b:i32[]. let\n"
        "    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n"
        "    d:bool[] = lt c 0:i32[]\n"
        "    e:i32[] = add c 4:i32[]\n"
        "    f:i32[] = select_n d c e\n"
        "    g:bool[] = lt 0:i32[] 0:i32[]\n"
        "    h:i32[] = add 0:i32[] 6:i32[]\n"
        "    i:i32[] = select_n g 0:i32[] h\n"
        "    j:f32[1,6] = dynamic_slice[slice_sizes=(1, 6)] a f i\n"
        "    k:f32[6] = squeeze[dimensions=(0,)] j\n"
        "  in (k,) }"
    )
    # lax.dynamic_slice: static starts stay literals; a weak index is converted before `add`.
    assert jaxpr(lambda x, i: lax.dynamic_slice(x, (i, 2), (2, 3)), arange(4, 6), 1) == (
        "{ lambda ; a:f32[4,6] b:i32[]. let\n"
        "    c:bool[] = lt b 0:i32[]\n"
        "    d:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b\n"
        "    e:i32[] = add d 4:i32[]\n"
        "    f:i32[] = select_n c b e\n"
        "    g:f32[2,3] = dynamic_slice[slice_sizes=(2, 3)] a f 2:i32[]\n"
        "  in (g,) }"
    )


def test_jaxpr_strided_slice_with_traced_int_is_a_gather():
    assert jaxpr(lambda x, i: x[i, ::2], arange(4, 6), 1) == (
        "{ lambda ; a:f32[4,6] b:i32[]. let\n"
        "    c:bool[] = lt b 0:i32[]\n"
        "    d:i32[] = add b 4:i32[]\n"
        "    e:i32[] = select_n c b d\n"
        "    f:i32[] = convert_element_type[new_dtype=int32 weak_type=False] e\n"
        "    g:i32[3] = iota[dimension=0 dtype=int32 shape=(3,) sharding=None] \n"
        "    h:i32[3] = mul 2:i32[] g\n"
        "    i:i32[3] = add 0:i32[] h\n"
        "    j:i32[3,1] = broadcast_in_dim f\n"
        "    k:i32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] i\n"
        "    l:i32[3,2] = concatenate[dimension=1] j k\n"
        "    m:f32[3] = gather[\n"
        "      dimension_numbers=GatherDimensionNumbers(offset_dims=(), "
        "collapsed_slice_dims=(0, 1), start_index_map=(0, 1), operand_batching_dims=(), "
        "start_indices_batching_dims=())\n"
        "      fill_value=None\n"
        "      indices_are_sorted=True\n"
        "      mode=GatherScatterMode.PROMISE_IN_BOUNDS\n"
        "      slice_sizes=(1, 1)\n"
        "      unique_indices=True\n"
        "    ] a l\n"
        "  in (m,) }"
    )


def test_jaxpr_fill_mode_and_non_adjacent_advanced_indices():
    text = jaxpr(lambda x: x.at[::2, 1, ::-2].get(mode="fill"), arange(4, 6, 5))
    assert "    h:i32[3] = rev[dimensions=(0,)] g\n" in text
    assert "fill_value=nan" in text and "mode=GatherScatterMode.FILL_OR_DROP" in text
    assert text.endswith("    n:f32[2,3] = rev[dimensions=(1,)] m\n  in (n,) }")
    # Advanced indices separated by a slice put their dimensions first (NumPy's rule).
    a = A(np.array([0, 1], np.int32))
    text = jaxpr(lambda x: x[a, ::2, a], arange(4, 6, 5))
    assert "start_index_map=(0, 2, 1)" in text and "p:f32[2,3] = gather" in text


def test_print_forms_of_modes_and_dimension_numbers():
    assert str(lax.GatherScatterMode.CLIP) == "GatherScatterMode.CLIP"
    assert [m.value for m in lax.GatherScatterMode] == [1, 2, 3, 4]
    assert lax.GatherScatterMode.from_any(None) is lax.GatherScatterMode.FILL_OR_DROP
    assert lax.GatherScatterMode.from_any("drop") is lax.GatherScatterMode.FILL_OR_DROP
    assert lax.GatherScatterMode.from_any("clip") is lax.GatherScatterMode.CLIP
    with pytest.raises(ValueError, match='Unknown gather mode "bad"'):
        lax.GatherScatterMode.from_any("bad")
    assert repr(lax.GatherDimensionNumbers((1,), (0,), (0,))) == (
        "GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), "
        "start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=())"
    )
    assert repr(lax.ScatterDimensionNumbers((1,), (0,), (0,))) == (
        "ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,), "
        "scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), "
        "scatter_indices_batching_dims=())"
    )


# ---------------------------------------------------------------------------------------------
# x[idx] against NumPy


X = np.arange(4 * 6 * 5, dtype=np.float32).reshape(4, 6, 5)
I2 = np.array([0, -1], np.int32)
I22 = np.array([[1, 2], [3, -4]], np.int32)
MASK = np.array([True, False, True, True])
INDICES = [
    1, -1, (1, 2, 3), (-4, -6, -5), slice(None), slice(1, 3), slice(None, None, -1),
    slice(3, 0, -2), slice(-10, 10, 3), slice(2, 2), slice(1, 3, -1), (1, slice(None, None, 2)),
    (slice(1, 3), 0, slice(None, None, -2)), Ellipsis, (Ellipsis, 1), (None, 1, None, Ellipsis),
    (0, None), (), I2, (I2,), (slice(None), I2), (I2, I2), (I2, slice(None), I2),
    (slice(None), I22, None, slice(1, 3)), (1, slice(None), I2), (I22, Ellipsis, I2),
    (I2[:, None], I2), MASK, (MASK, 1), (slice(None), [0, 2, 5]), ([0, 3], [1, 2], [0, 0]),
    (None, I22, Ellipsis, None), (slice(None, None, 2), I2, slice(None, None, -1)),
    True, (False, 1), (Ellipsis, True),
]  # fmt: skip


@pytest.mark.parametrize("idx", INDICES, ids=[repr(i).replace("\n", "") for i in INDICES])
def test_getitem_matches_numpy(idx):
    ref = X[idx]
    check(A(X)[idx], ref)
    # The same expression with its arrays traced under jit (masks stay concrete).
    arrays = [e for e in (idx if isinstance(idx, tuple) else (idx,)) if isinstance(e, np.ndarray)]
    traced = [a for a in arrays if a.dtype != np.bool_]

    def f(x, *ts):
        it = iter(ts)
        items = idx if isinstance(idx, tuple) else (idx,)
        new = tuple(
            next(it) if isinstance(e, np.ndarray) and e.dtype != np.bool_ else e for e in items
        )
        return x[new if isinstance(idx, tuple) else new[0]]

    check(spmd.jit(f)(A(X), *[A(t) for t in traced]), ref)


def test_getitem_traced_and_out_of_bounds_scalars():
    x = arange(4, 6)
    f = spmd.jit(lambda x, i, j: x[i, j:], static_argnums=2)
    check(f(x, 2, 3), np.asarray(x)[2, 3:])
    g = spmd.jit(lambda x, i: (x[i], x[i, ::-1], x[1:3, i], x[i, ::2]))
    for i in (0, 3, -1, -4):
        out = g(x, i)
        ref = np.asarray(x)
        for o, r in zip(out, (ref[i], ref[i, ::-1], ref[1:3, i], ref[i, ::2])):
            check(o, r)
    # Out-of-range indices clamp (JAX's promise_in_bounds on CPU), statically or not.
    check(x[7], np.asarray(x)[3])
    check(g(x, 9)[0], np.asarray(x)[3])
    check(g(x, -9)[0], np.asarray(x)[0])
    check(arange(5)[A(np.array([7, -7, 2], np.int32))], np.array([4.0, 0.0, 2.0], np.float32))
    # A concrete spmd scalar works as an index and inside slices.
    check(x[A(np.int32(1)), A(np.int32(1)) :], np.asarray(x)[1, 1:])


def test_getitem_dtypes_and_weak_types():
    for dt in (np.int8, np.uint8, np.int32, np.float16, ml_dtypes.bfloat16, np.complex64, bool):
        v = (np.arange(12) % 3).astype(dt).reshape(3, 4)
        check(A(v)[1, ::-1], v[1, ::-1])
        check(A(v)[I2, 1:], v[I2, 1:])
        check(A(v).at[0, 1].set(v[2, 2]), np.where(np.arange(12).reshape(3, 4) == 1, v[2, 2], v))
    w = lax.broadcast_in_dim(1.0, (3,), ())  # a weakly typed array
    assert w[0].weak_type and w[A(np.array([0], np.int32))].weak_type
    assert w.at[0].set(2).weak_type and not arange(3)[0].weak_type
    assert not lax.dynamic_update_slice(w, w[:1], (0,)).weak_type
    for idx_dtype in (np.int8, np.uint8, np.int16, np.uint32):
        i = np.array([2, 0], idx_dtype)
        check(arange(3)[A(i)], np.array([2.0, 0.0], np.float32))


def test_masks_scalar_bools_and_lists():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    m = np.array([[True, False, True, False]] * 3)
    check(A(x)[A(m)], x[m])
    check(A(x)[m[:, :3][0]], x[m[:, :3][0]])
    check(A(x)[True], x[True])
    check(A(x)[False], x[False])
    check(A(x)[None, True, ..., False], x[None, True, ..., False])
    check(A(x)[:, [0, 3]], x[:, [0, 3]])
    check(A(x)[([0, 2],)], x[([0, 2],)])
    check(A(x)[np.array(1), [1]], x[1, [1]])


# ---------------------------------------------------------------------------------------------
# Property test: random basic + advanced index tuples against NumPy


@st.composite
def index_exprs(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=0, max_size=3)))
    items, dim, ellipsis = [], 0, False
    for _ in range(draw(st.integers(0, len(shape) + 1))):
        kind = draw(st.sampled_from(["none", "ellipsis", "int", "slice", "array", "mask"]))
        if kind == "none":
            items.append(None)
            continue
        if kind == "ellipsis":
            if not ellipsis:
                items.append(Ellipsis)
                ellipsis = True
            continue
        if dim >= len(shape):
            break
        n = shape[dim]
        if kind == "int":
            items.append(draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            bound = st.none() | st.integers(-n - 2, n + 2)
            step = st.none() | st.sampled_from([1, 2, 3, -1, -2])
            items.append(slice(draw(bound), draw(bound), draw(step)))
        elif kind == "array":
            ishape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=2)))
            vals = draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(ishape)),
                                 max_size=int(np.prod(ishape))))  # fmt: skip
            items.append(np.array(vals, np.int32).reshape(ishape))
        else:
            items.append(np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n))))
        dim += 1
    return shape, tuple(items)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index_exprs(), st.booleans())
def test_property_getitem_and_updates_match_numpy(case, under_jit):
    shape, idx = case
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    try:
        ref = x[idx]
    except IndexError:  # e.g. advanced shapes that do not broadcast
        return
    if under_jit:
        out = spmd.jit(lambda a: a[idx])(A(x))
    else:
        out = A(x)[idx]
    check(out, ref)
    # .at[].add accumulates repeated indices like np.add.at; .at[].max like np.maximum.at.
    # (The reference works on flat positions: np.add.at rejects some of these indices.)
    v = (np.arange(ref.size, dtype=np.float32) % 7 - 3).reshape(ref.shape)
    pos = np.arange(x.size).reshape(shape)[idx].ravel()
    ref_add, ref_max = x.copy().ravel(), x.copy().ravel()
    np.add.at(ref_add, pos, v.ravel())
    np.maximum.at(ref_max, pos, v.ravel())
    add = (
        (lambda a, b: a.at[idx].add(b))
        if not under_jit
        else spmd.jit(lambda a, b: a.at[idx].add(b))
    )
    check(add(A(x), A(v)), ref_add.reshape(shape))
    check(A(x).at[idx].max(A(v)), ref_max.reshape(shape))
    if len(set(pos.tolist())) == pos.size:
        ref_set = x.copy().ravel()
        ref_set[pos] = v.ravel()
        check(A(x).at[idx].set(A(v)), ref_set.reshape(shape))


# ---------------------------------------------------------------------------------------------
# .at updates


def test_at_updates_match_numpy():
    x = np.arange(10, dtype=np.float32) + 1
    i = np.array([1, 3, 1, -1, 3, 3], np.int32)
    v = np.array([2, 3, 4, 5, 6, 7], np.float32)
    ref = x.copy()
    np.add.at(ref, i, v)
    check(A(x).at[A(i)].add(A(v)), ref)
    ref = x.copy()
    np.subtract.at(ref, i, v)
    check(A(x).at[A(i)].subtract(A(v)), ref)
    for name, uf in (("multiply", np.multiply), ("mul", np.multiply), ("min", np.minimum),
                     ("max", np.maximum)):  # fmt: skip
        ref = x.copy()
        uf.at(ref, i, v)
        check(getattr(A(x).at[A(i)], name)(A(v)), ref)
    ref = x.copy()
    ref[[2, 5]] = [-1, -2]
    check(A(x).at[A(np.array([2, 5], np.int32))].set([-1, -2]), ref)
    ref = x.copy()
    np.multiply.at(ref, [1, 1], np.float32(0.5))
    ref_div = x / np.where(np.arange(10) == 1, 4.0, 1.0).astype(np.float32)
    check(A(x).at[A(np.array([1, 1], np.int32))].divide(2.0), ref_div)
    check(A(x).at[2].power(2), np.where(np.arange(10) == 2, x**2, x))
    # Integer arrays: divide is a true division, set casts (and truncates) the value.
    check(arange(5, dtype=np.int32).at[2].divide(2), np.array([0, 1, 1, 3, 4], np.float32))
    check(arange(5, dtype=np.int32).at[2].set(2.7), np.array([0, 1, 2, 3, 4], np.int32))
    check(A(np.zeros(3, np.int8)).at[0].set(1000), np.array([-24, 0, 0], np.int8))
    check(A(np.zeros(3, bool)).at[1].max(True), np.array([False, True, False]))
    check(A(x).at[...].set(0.0), np.zeros_like(x))


def test_at_apply_and_get():
    x = np.arange(6, dtype=np.float32)
    i = A(np.array([0, 5, 9, -1], np.int32))
    # Repeated indices apply the function again (5 and -1 are the same element).
    ref = x.copy()
    ref[0] = np.sin(ref[0])
    ref[5] = np.sin(np.sin(ref[5]))
    np.testing.assert_allclose(np.asarray(A(x).at[i].apply(jnp.sin)), ref, rtol=1e-6)
    np.testing.assert_allclose(
        np.asarray(spmd.jit(lambda a, j: a.at[j].apply(jnp.sin))(A(x), i)), ref, rtol=1e-6
    )
    check(A(x).at[i].get(), np.array([0, 5, 5, 5], np.float32))
    check(A(x).at[i].get(mode="clip"), np.array([0, 5, 5, 5], np.float32))
    check(A(x).at[i].get(mode="fill", fill_value=-1), np.array([0, 5, -1, 5], np.float32))
    out = np.asarray(A(x).at[A(np.array([-7, 2], np.int32))].get(mode="fill"))
    assert np.isnan(out[0]) and out[1] == 2
    assert A(np.arange(3, dtype=np.int32)).at[5].get(mode="fill").tolist() == -(2**31)
    assert A(np.arange(3, dtype=np.uint8)).at[5].get(mode="fill").tolist() == 255


def test_update_modes():
    x = np.zeros(4, np.float32)
    i = A(np.array([9, -9, 2, -1], np.int32))
    v = A(np.array([1, 2, 3, 4], np.float32))
    # Default (drop): out-of-bounds updates vanish; negative indices count from the end.
    check(A(x).at[i].set(v), np.array([0, 0, 3, 4], np.float32))
    check(A(x).at[i].add(v, mode="clip"), np.array([2, 0, 3, 5], np.float32))
    check(A(x).at[i].add(v, mode="promise_in_bounds"), np.array([0, 0, 3, 4], np.float32))
    check(spmd.jit(lambda a, j, b: a.at[j].add(b))(A(x), i, v), np.array([0, 0, 3, 4], "f4"))


def test_at_on_tracers_and_newaxis_reversed_updates():
    x = np.ones((3, 2), np.float32)
    y = np.arange(3, dtype=np.float32)[:, None]
    ref = x.copy()
    ref[::-1] = y
    check(spmd.jit(lambda a, b: a.at[::-1].set(b))(A(x), A(y)), ref)
    ref = x.copy()
    ref[None, 0] = [5, 6]
    check(A(x).at[None, 0].set(A(np.array([5, 6], np.float32))), ref)


# ---------------------------------------------------------------------------------------------
# take, take_along_axis, put, helpers


def test_take():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    i = np.array([0, 5, -1, -20], np.int32)
    nan = np.nan
    np.testing.assert_array_equal(np.asarray(jnp.take(A(x), A(i))), [0, 5, 11, nan])
    np.testing.assert_array_equal(
        np.asarray(jnp.take(A(x), A(i), axis=1)),
        [[0, nan, 3, nan], [4, nan, 7, nan], [8, nan, 11, nan]],  # fmt: skip
    )
    check(jnp.take(A(x), A(i), axis=1, mode="clip"), x[:, np.clip(i, 0, 3)])
    check(jnp.take(A(x), A(i), axis=1, mode="wrap"), x[:, i % 4])
    filled = np.array([[0, -1, 3, -1], [4, -1, 7, -1], [8, -1, 11, -1]], np.float32)
    check(jnp.take(A(x), A(i), axis=-1, fill_value=-1), filled)
    check(jnp.take(A(x), A(np.array([[0, 1]], np.int32)), axis=0), x[[[0, 1]]])
    assert spmd.jit(lambda a, b: jnp.take(a, b, axis=1))(A(x), A(i)).shape == (3, 4)


def test_take_along_axis():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    i = np.array([[0, 3, -1], [3, 1, 2], [0, 0, 0]], np.int32)
    check(jnp.take_along_axis(A(x), A(i), axis=1), np.take_along_axis(x, i % 4, axis=1))
    for ishape, axis in (((2, 1), 0), ((1, 2), 1), ((3, 1), 1)):
        j = (np.arange(int(np.prod(ishape))) % 2).reshape(ishape).astype(np.int32)
        check(jnp.take_along_axis(A(x), A(j), axis=axis), np.take_along_axis(x, j, axis=axis))
    y = np.arange(8.0, dtype=np.float32).reshape(2, 1, 4)
    j = np.array([[[1], [2], [3]]], np.int32)
    check(jnp.take_along_axis(A(y), A(j), axis=2), np.take_along_axis(y, j, axis=2))
    flat = np.array([0, 3, 11, 4], np.int32)
    check(jnp.take_along_axis(A(x), A(flat), axis=None), x.ravel()[flat])
    out = np.asarray(jnp.take_along_axis(A(x), A(np.array([[5]] * 3, np.int32)), axis=1))
    assert np.isnan(out).all()  # out of bounds: filled
    check(jnp.take_along_axis(A(x), A(np.array([[5]] * 3, np.int32)), axis=1, mode="clip"),
          x[:, 3:])  # fmt: skip


def test_put_and_index_helpers():
    x = np.arange(12.0, dtype=np.float32).reshape(3, 4)
    i, v = A(np.array([0, 5, 30], np.int32)), A(np.array([-1.0, -2.0], np.float32))
    ref = x.copy()
    ref.flat[[0, 5, 11]] = [-1, -2, -1]
    check(jnp.put(A(x), i, v, inplace=False), ref)
    ref = x.copy()
    ref.flat[[0, 5, 6]] = [-1, -2, -1]
    check(jnp.put(A(x), i, v, mode="wrap", inplace=False), ref)
    with pytest.raises(ValueError, match="inplace=False"):
        jnp.put(A(x), i, v)
    ref = x.copy()
    np.put_along_axis(ref, np.array([[0], [3], [1]]), np.array([[-1], [-2], [-3]]), axis=1)
    out = jnp.put_along_axis(
        A(x), A(np.array([[0], [3], [-3]], np.int32)), A(np.array([[-1.0], [-2.0], [-3.0]])),
        axis=1, inplace=False,
    )  # fmt: skip
    check(out, ref)
    ref = x.copy()
    ref[:, 0] = 9  # the index 5 is out of bounds: dropped
    check(jnp.put_along_axis(A(x), A(np.array([[0, 5]], np.int32)), 9.0, 1, False), ref)
    with pytest.raises(ValueError, match="inplace=False"):
        jnp.put_along_axis(A(x), A(np.array([[0]], np.int32)), 9.0, 1)
    assert jnp.index_exp is np.index_exp and jnp.s_ is np.s_
    assert [a.tolist() for a in jnp.diag_indices(3)] == [[0, 1, 2]] * 2
    assert len(jnp.diag_indices(2, ndim=3)) == 3
    for ours, ref in zip(jnp.tril_indices(3, 1, 4), np.tril_indices(3, 1, 4)):
        check(ours, ref.astype(np.int32))
    for ours, ref in zip(jnp.triu_indices_from(A(x), k=1), np.triu_indices_from(x, k=1)):
        check(ours, ref.astype(np.int32))
    rows, cols = jnp.ix_(A(np.array([0, 2], np.int32)), A(np.array([1, 3], np.int32)))
    check(A(x)[rows, cols], x[np.ix_([0, 2], [1, 3])])
    assert jnp.ix_() == ()


# ---------------------------------------------------------------------------------------------
# lax primitives


def test_dynamic_slice_and_update_clamp():
    x = np.arange(10, dtype=np.int32)
    check(lax.dynamic_slice(A(x), (8,), (4,)), x[6:])
    check(lax.dynamic_slice(A(x), (-3,), (4,)), x[6:])
    check(lax.dynamic_slice(A(x), (-13,), (4,)), x[:4])
    check(lax.dynamic_slice(A(x), (A(np.int32(-3)),), (2,)), x[7:9])
    u = A(np.array([-1, -2, -3], np.int32))
    check(lax.dynamic_update_slice(A(x), u, (9,)), np.r_[x[:7], -1, -2, -3])
    check(lax.dynamic_update_slice(A(x), u, (-2,)), np.r_[x[:7], -1, -2, -3])
    y = np.arange(24, dtype=np.float32).reshape(4, 6)
    check(lax.dynamic_slice_in_dim(A(y), 5, 2, axis=1), y[:, 4:])
    check(lax.dynamic_index_in_dim(A(y), -1, axis=1, keepdims=False), y[:, -1])
    check(lax.dynamic_update_index_in_dim(A(y), A(np.zeros(4, np.float32)), 2, axis=1),
          np.where(np.arange(6) == 2, 0, y))  # fmt: skip
    check(lax.dynamic_update_slice_in_dim(A(y), A(np.zeros((1, 6), np.float32)), -1, axis=0),
          np.where(np.arange(4)[:, None] == 3, 0, y))  # fmt: skip
    f = spmd.jit(lambda a, i: lax.dynamic_slice(a, (i, i), (2, 3)))
    check(f(A(y), 3), y[2:, 3:])


def _naive_gather(op, idx, dn, sizes, mode, fill):
    """XLA's gather, one index vector at a time."""
    batch = idx.shape[:-1]
    wdims = [d for d in range(op.ndim)
             if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims]  # fmt: skip
    rank = len(batch) + len(wdims)
    out_shape, b_it, w_it = [], iter(batch), iter(sizes[d] for d in wdims)
    for p in range(rank):
        out_shape.append(next(w_it) if p in dn.offset_dims else next(b_it))
    out = np.zeros(out_shape, op.dtype)
    for b in np.ndindex(*batch):
        start = [0] * op.ndim
        for k, d in enumerate(dn.start_index_map):
            start[d] = int(idx[b + (k,)])
        for od, ib in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
            start[od] = b[ib]
        oob = any(not 0 <= start[d] <= op.shape[d] - sizes[d] for d in dn.start_index_map)
        start = [min(max(s, 0), n - z) for s, n, z in zip(start, op.shape, sizes)]
        win = op[tuple(slice(s, s + z) for s, z in zip(start, sizes))]
        win = win.reshape([sizes[d] for d in wdims])
        if mode == "fill" and oob:
            win = np.full(win.shape, fill, op.dtype)
        for w in np.ndindex(*win.shape):
            pos, bi, wi = [], iter(b), iter(w)
            for p in range(rank):
                pos.append(next(wi) if p in dn.offset_dims else next(bi))
            out[tuple(pos)] = win[w]
    return out


GATHERS = [
    # operand shape, indices, dimension numbers, slice sizes
    ((5, 4), [[3], [0], [4]], lax.GatherDimensionNumbers((1,), (0,), (0,)), (1, 4)),
    ((5, 4), [[1, 2], [4, 3]], lax.GatherDimensionNumbers((), (0, 1), (0, 1)), (1, 1)),
    ((5, 4), [[1, 2], [4, 3]], lax.GatherDimensionNumbers((1, 2), (), (1, 0)), (2, 3)),
    ((5, 4), [[[2]], [[7]]], lax.GatherDimensionNumbers((0,), (0,), (0,)), (1, 3)),
    ((3, 4, 2), [[1], [3], [0]], lax.GatherDimensionNumbers((1,), (1,), (1,), (0,), (0,)),
     (1, 1, 2)),
    ((2, 5, 3), [[[4], [0]], [[1], [2]]],
     lax.GatherDimensionNumbers((2,), (1,), (1,), (0,), (0,)), (1, 1, 3)),
    ((4, 3), np.zeros((2, 0), np.int32), lax.GatherDimensionNumbers((1, 2), (), ()), (2, 3)),
]  # fmt: skip


@pytest.mark.parametrize("case", GATHERS, ids=[str(i) for i in range(len(GATHERS))])
@pytest.mark.parametrize("mode", ["clip", "fill", "promise_in_bounds"])
def test_gather_matches_naive_reference(case, mode):
    shape, idx, dn, sizes = case
    op = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    idx = np.asarray(idx, np.int32)
    out = lax.gather(A(op), A(idx), dn, sizes, mode=mode, fill_value=-1.0)
    check(out, _naive_gather(op, idx, dn, sizes, "fill" if mode == "fill" else "clip", -1.0))


def test_scatter_general_dimension_numbers():
    op = np.zeros((3, 4, 2), np.float32)
    dn = lax.ScatterDimensionNumbers((1,), (1,), (1,), (0,), (0,))
    idx = np.array([[1], [3], [0]], np.int32)
    upd = np.arange(6, dtype=np.float32).reshape(3, 2) + 1
    ref = op.copy()
    for b in range(3):
        ref[b, idx[b, 0]] += upd[b]
    check(lax.scatter_add(A(op), A(idx), A(upd), dn), ref)
    # A window of 2 rows; the one starting at 4 does not fit and is dropped.
    dn = lax.ScatterDimensionNumbers((1, 2), (), (0,))
    idx = np.array([[1], [4], [1]], np.int32)
    upd = np.ones((3, 2, 3), np.float32)
    ref = np.zeros((5, 3), np.float32)
    ref[1:3] += 2
    check(lax.scatter_add(A(np.zeros((5, 3), np.float32)), A(idx), A(upd), dn), ref)
    ref[3:5] += 1  # clipped to start 3
    check(lax.scatter_add(A(np.zeros((5, 3), np.float32)), A(idx), A(upd), dn, mode="clip"), ref)
    check(
        lax.scatter_apply(A(np.ones(4, np.float32)), A(np.array([[1], [1]], np.int32)),
                          lambda v: v * 3.0, lax.ScatterDimensionNumbers((), (0,), (0,)),
                          update_shape=(2,)),
        np.array([1, 9, 1, 1], np.float32),
    )  # fmt: skip


def test_large_gather_and_scatter_are_fast():
    import time

    x = A(np.random.default_rng(0).random((1000, 32), dtype=np.float32))
    i = A(np.random.default_rng(1).integers(-1000, 1000, 20000).astype(np.int32))
    t = time.perf_counter()
    y = x[i]
    z = x.at[i].add(y)
    assert time.perf_counter() - t < 2.0
    ref = np.asarray(x).copy()
    np.add.at(ref, np.asarray(i), np.asarray(y))
    np.testing.assert_allclose(np.asarray(z), ref, rtol=1e-5)


# ---------------------------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize(
    "idx, exc, match",
    [
        ((0, 0, 0), IndexError, "Too many indices: array is 2-dimensional, but 3 were indexed"),
        ((Ellipsis, 0, Ellipsis), IndexError, "single ellipsis"),
        (1.5, TypeError, "Indexer must have integer or boolean type, got indexer with type"),
        ("a", TypeError, "string indexing"),
        ([0, 1], TypeError, "non-tuple sequence"),
        (object(), IndexError, "only integers, slices"),
        (slice(0, 2.5), TypeError, None),
        (slice(None, None, 0), ValueError, "slice step cannot be zero"),
        (np.array([True, False]), IndexError, "boolean index did not match"),
        ((np.array([0, 1]), np.array([0, 1, 2])), IndexError, "could not be broadcast"),
    ],
)
def test_getitem_errors(idx, exc, match):
    with pytest.raises(exc, match=match):
        arange(3, 4)[idx]


def test_traced_masks_and_slice_bounds_raise():
    x = arange(3)
    with pytest.raises(NonConcreteBooleanIndexError, match="boolean indices must be concrete"):
        spmd.jit(lambda a, m: a[m])(x, A(np.array([True, False, True])))
    assert issubclass(NonConcreteBooleanIndexError, IndexError)
    with pytest.raises(IndexError, match="Slice entries must be static integers"):
        spmd.jit(lambda a, i: a[i : i + 1])(x, 1)
    with pytest.raises(IndexError, match="out of bounds for axis 0 with size 0"):
        A(np.zeros((0,), np.float32))[0]


def test_update_and_function_errors():
    x = arange(3, 2)
    with pytest.raises(ValueError, match="fewer dimensions"):
        x.at[0].set(A(np.ones((1, 2), np.float32)))
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        x.at[0].set(A(np.ones(3, np.float32)))
    with pytest.raises(TypeError, match="scatter-add does not accept dtype bool"):
        A(np.zeros(3, bool)).at[0].add(True)
    with pytest.raises(NotImplementedError, match="'raise' mode"):
        jnp.take(x, A(np.array([0], np.int32)), mode="raise")
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.take(x, A(np.array([0], np.int32)), axis=2)
    with pytest.raises(ValueError, match="integer type"):
        jnp.take(x, A(np.array([0.0], np.float32)))
    with pytest.raises(ValueError, match="same number of dimensions; 1 vs. 2"):
        jnp.take_along_axis(x, A(np.array([0], np.int32)), axis=1)
    with pytest.raises(NotImplementedError, match="Boolean"):
        jnp.ix_(A(np.array([True, False])))


def test_lax_errors():
    x = arange(4, 6)
    with pytest.raises(ValueError, match="one per operand dimension"):
        lax.dynamic_slice(x, (1,), (2, 3))
    with pytest.raises(TypeError, match="at most the operand shape"):
        lax.dynamic_slice(x, (1, 1), (5, 3))
    with pytest.raises(TypeError, match="must be integers of the same type, got: float32, int32"):
        lax.dynamic_slice(x, (1.0, 1), (2, 3))
    with pytest.raises(TypeError, match="got: int32, int16"):
        lax.dynamic_slice(x, (A(np.int32(1)), A(np.int16(1))), (2, 3))
    with pytest.raises(TypeError, match="must be scalars"):
        lax.dynamic_slice(x, (A(np.array([1], np.int32)), 1), (2, 3))
    with pytest.raises(TypeError, match="same dtypes, got float32, int32"):
        lax.dynamic_update_slice(x, A(np.ones((2, 1), np.int32)), (0, 0))
    with pytest.raises(TypeError, match="rank"):
        lax.dynamic_update_slice(x, A(np.ones(2, np.float32)), (0, 0))
    dn = lax.GatherDimensionNumbers((1,), (0,), (0,))
    with pytest.raises(TypeError, match="integer type"):
        lax.gather(x, A(np.array([[0.0]], np.float32)), dn, (1, 6))
    with pytest.raises(TypeError, match="offset_dims"):
        lax.gather(x, A(np.array([[0]], np.int32)), dn._replace(offset_dims=()), (1, 6))
    with pytest.raises(TypeError, match="start_index_map"):
        lax.gather(x, A(np.array([[0, 1]], np.int32)), dn, (1, 6))
    sdn = lax.ScatterDimensionNumbers((1,), (0,), (0,))
    with pytest.raises(TypeError, match="same dtype"):
        lax.scatter(x, A(np.array([[0]], np.int32)), A(np.ones((1, 6), np.int32)), sdn)
    with pytest.raises(TypeError, match="batch shape"):
        lax.scatter(x, A(np.array([[0]], np.int32)), A(np.ones((2, 6), np.float32)), sdn)


@pytest.mark.parametrize("idx", [[0, 1], (0, 0, 0), 1.5])
def test_bad_index_raises_under_tracing_too(idx):
    with pytest.raises((TypeError, IndexError)):
        spmd.make_jaxpr(lambda a: a[idx])(arange(3, 4))


def test_boolean_mask_under_jit_names_the_mask_type_on_its_first_line():
    # jax: NonConcreteBooleanIndexError('Array boolean indices must be concrete; got bool[5]\n...')
    import spmd
    from spmd.errors import NonConcreteBooleanIndexError

    x = spmd.numpy.array([1.0, 2.0, np.nan, 3.0, 4.0])
    with pytest.raises(NonConcreteBooleanIndexError) as info:
        spmd.jit(lambda x: x[~spmd.numpy.isnan(x)].sum())(x)
    assert str(info.value).splitlines()[0] == "Array boolean indices must be concrete; got bool[5]"
