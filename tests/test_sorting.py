"""Sorting primitives (lax.sort, lax.top_k) and the sorting, searching and counting functions of
spmd.numpy, against NumPy and against literals read from JAX 0.10."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd.errors import ConcretizationTypeError

BF16 = ml_dtypes.bfloat16
DTYPES = {
    "float32": np.float32,
    "int32": np.int32,
    "bool": np.bool_,
    "float16": np.float16,
    "bfloat16": BF16,
}
SHAPES = [(7,), (3, 5), (2, 3, 4)]


def arr(x, dtype=None, weak_type=False):
    return spmd.Array(np.asarray(x, dtype), weak_type=weak_type)


def make(shape, name, seed=0, nan=False):
    rng = np.random.default_rng(seed)
    dt = DTYPES[name]
    if name == "bool":
        return rng.random(shape) > 0.5
    if np.dtype(dt).kind == "i":
        return rng.integers(-4, 5, shape).astype(dt)  # many ties
    v = np.round(rng.standard_normal(shape) * 2) / 2  # ties too
    if nan:
        v.flat[:: max(1, v.size // 3)] = np.nan
    return v.astype(dt)


def same(out, ref):
    """Exact equality, with ``ref`` rounded to ``out``'s dtype first (NaNs equal)."""
    out = np.asarray(out)
    ref = np.asarray(ref)
    assert out.shape == ref.shape, (out.shape, ref.shape)
    if out.dtype != np.bool_:
        ref = ref.astype(out.dtype)
    np.testing.assert_array_equal(out.astype(np.float64), ref.astype(np.float64))


X_SPECIAL = np.array([3.0, np.nan, -0.0, 0.0, -np.inf, 1.0, np.nan, -np.nan, np.inf], np.float32)


# ---------------------------------------------------------------------------------------------
# lax.sort, lax.top_k


@pytest.mark.parametrize("name", list(DTYPES))
def test_lax_sort_matches_numpy(name):
    for shape in SHAPES:
        x = make(shape, name, nan=name not in ("int32", "bool"))
        for dim in range(-len(shape), len(shape)):
            out = lax.sort(x, dimension=dim)
            assert out.dtype == x.dtype
            same(out, np.sort(x.astype(np.float64) if name == "bfloat16" else x, axis=dim))
            # Stable: the permutation NumPy's stable argsort gives.
            idx = lax.broadcasted_iota(np.int32, shape, dim % len(shape))
            _, perm = lax.sort((x, idx), dimension=dim, num_keys=1)
            ref = np.argsort(x.astype(np.float64), axis=dim, kind="stable")
            same(perm, ref)


def test_lax_sort_special_values():
    same(lax.sort(X_SPECIAL), [-np.inf, -0.0, 0.0, 1, 3, np.inf, np.nan, np.nan, np.nan])
    # -0.0 equals 0.0: a stable sort keeps their order.
    out = np.asarray(lax.sort(np.array([0.0, -0.0, 0.0], np.float32)))
    assert list(np.signbit(out)) == [False, True, False]
    out = lax.sort(np.array([1 + 2j, 1 + 1j, 5j], np.complex64))
    same(np.asarray(out).real, [0, 1, 1])
    same(np.asarray(out).imag, [5, 1, 2])


def test_lax_sort_multiple_operands():
    k = np.array([2, 1, 2, 1], np.int32)
    v = np.array([0.5, 1.5, 0.1, 0.2], np.float32)
    a, b = lax.sort((k, v), num_keys=2)
    same(a, [1, 1, 2, 2])
    same(b, [0.2, 1.5, 0.1, 0.5])
    a, b = lax.sort((k, v), num_keys=1)
    same(b, [1.5, 0.2, 0.5, 0.1])
    a, b = lax.sort_key_val(np.array([3, 1, 2]), np.array([0.0, 1.0, 2.0], np.float32))
    same(a, [1, 2, 3])
    same(b, [1, 2, 0])
    out = lax.sort([np.array([2, 1], np.int32)])
    assert isinstance(out, tuple) and len(out) == 1
    wf = arr(np.array([2.0, 1.0], np.float32), weak_type=True)
    assert lax.sort(wf).weak_type


def test_top_k():
    rng = np.random.default_rng(3)
    x = rng.permutation(40).reshape(5, 8).astype(np.float32)
    vals, idx = lax.top_k(x, 3)
    ref = np.argsort(-x, axis=-1, kind="stable")[:, :3]
    same(idx, ref)
    same(vals, np.take_along_axis(x, ref, axis=-1))
    assert idx.dtype == np.int32 and vals.dtype == np.float32
    vals, idx = lax.top_k(x, 2, axis=0)
    same(idx, np.argsort(-x, axis=0, kind="stable")[:2])
    # JAX: ties keep the lower index first; NaN ranks highest, -NaN lowest; 0.0 above -0.0.
    vals, idx = lax.top_k(X_SPECIAL, 4)
    same(idx, [1, 6, 8, 0])
    vals, idx = lax.top_k(np.array([1, 3, 3, 2], np.int32), 3)
    same(vals, [3, 3, 2])
    same(idx, [1, 2, 3])
    vals, idx = lax.top_k(np.array([-0.0, 0.0, -0.0], np.float32), 3)
    same(idx, [1, 0, 2])
    vals, idx = lax.top_k(np.array([True, False, True]), 2)
    same(idx, [0, 2])
    out = lax.top_k(np.array([1, 3, 2], BF16), 2)
    assert isinstance(out, list)  # as in JAX
    same(out[0], [3, 2])
    assert lax.top_k(np.ones((2, 5), np.float32), 0)[0].shape == (2, 0)


# ---------------------------------------------------------------------------------------------
# jnp.sort, argsort, lexsort, partition


@pytest.mark.parametrize("name", list(DTYPES))
def test_sort_argsort(name):
    for shape in SHAPES:
        x = make(shape, name, nan=name in ("float32", "float16"))
        x64 = x.astype(np.float64)
        for axis in [None, *range(-len(shape), len(shape))]:
            out = jnp.sort(x, axis=axis)
            same(out, np.sort(x64, axis=axis))
            assert out.dtype == x.dtype and not out.weak_type
            ref = np.flip(np.sort(x64, axis=axis), -1 if axis is None else axis)
            same(jnp.sort(x, axis=axis, descending=True), ref)
            perm = jnp.argsort(x, axis=axis)
            assert perm.dtype == np.int32
            same(perm, np.argsort(x64, axis=axis, kind="stable"))
            # Descending and still stable: equal elements keep their order.
            ax = -1 if axis is None else axis
            src = x64.ravel() if axis is None else x64
            ref = np.flip(np.argsort(np.flip(src, ax), axis=ax, kind="stable"), ax)
            ref = src.shape[ax] - 1 - ref
            same(jnp.argsort(x, axis=axis, descending=True), ref)


def test_sort_details():
    same(jnp.argsort(X_SPECIAL), [4, 2, 3, 5, 0, 8, 1, 6, 7])
    same(jnp.argsort(X_SPECIAL, descending=True), [1, 6, 7, 8, 0, 5, 2, 3, 4])
    same(jnp.argsort(np.array([2, 1, 2, 1, 3]), descending=True), [4, 0, 2, 1, 3])
    assert jnp.argsort(np.array([2, 1]), dtype=jnp.int8).dtype == np.int8
    wf = arr(np.array([2.0, 1.0], np.float32), weak_type=True)
    assert jnp.sort(wf).weak_type and not jnp.argsort(wf).weak_type
    x = arr(np.array([3, 1, 2], np.int32))
    same(x.sort(), [1, 2, 3])
    same(x.argsort(), [1, 2, 0])


def test_lexsort():
    rng = np.random.default_rng(5)
    keys = tuple(rng.integers(0, 3, (4, 6)) for _ in range(3))
    same(jnp.lexsort(keys), np.lexsort(keys))
    same(jnp.lexsort(keys, axis=0), np.lexsort(keys, axis=0))
    same(jnp.lexsort(np.stack(keys)), np.lexsort(np.stack(keys)))
    assert int(jnp.lexsort((np.array(1),))) == 0


def test_partition():
    a = np.array([5, 3, 1, 4, 2], np.int32)
    same(jnp.partition(a, 2), [1, 2, 3, 5, 4])  # JAX's layout: sorted head, descending tail
    same(jnp.argpartition(a, 2), [2, 4, 1, 0, 3])
    same(jnp.argpartition(a, -2), [2, 4, 1, 3, 0])
    same(jnp.argpartition(np.array([1, 1, 1, 1, 0]), 1), [4, 0, 1, 2, 3])
    b = np.array([[5, 3, 1, 4, 2], [1, 1, 1, 0, 0]], np.int32)
    same(jnp.partition(b, 1, axis=1), [[1, 2, 5, 4, 3], [0, 0, 1, 1, 1]])
    x = make((6, 5), "float32", seed=2)
    for kth in range(6):
        p = np.asarray(jnp.partition(x, kth, axis=0))
        s = np.sort(x, axis=0)
        same(p[kth], s[kth])
        assert np.all(p[:kth] <= p[kth]) and np.all(p[kth + 1 :] >= p[kth])
        ip = np.asarray(jnp.argpartition(x, kth, axis=0))
        same(np.take_along_axis(x, ip, axis=0), p)


# ---------------------------------------------------------------------------------------------
# searchsorted, digitize


@pytest.mark.parametrize("method", ["scan", "sort", "compare_all", "scan_unrolled"])
def test_searchsorted(method):
    rng = np.random.default_rng(7)
    for name in ("float32", "int32", "float16", "bfloat16"):
        a = np.sort(make((9,), name, seed=1).astype(np.float64)).astype(DTYPES[name])
        v = make((3, 4), name, seed=2)
        for side in ("left", "right"):
            out = jnp.searchsorted(a, v, side=side, method=method)
            assert out.dtype == np.int32 and out.shape == v.shape
            same(out, np.searchsorted(a.astype(np.float64), v.astype(np.float64), side=side))
    a = np.array([3, 1, 2], np.int32)
    sorter = np.array([1, 2, 0], np.int32)
    assert int(jnp.searchsorted(a, 2, sorter=sorter, method=method)) == 1
    perm = rng.permutation(10)
    a = np.arange(10.0, dtype=np.float32)[np.argsort(perm)]
    same(jnp.searchsorted(a, np.array([3.5, 0.0]), sorter=np.argsort(a), method=method), [4, 0])
    # NaN sorts last and equals itself; -0.0 equals 0.0.
    an = np.array([1.0, 2.0, np.nan], np.float32)
    vn = np.array([np.nan, 3.0, 0.0], np.float32)
    same(jnp.searchsorted(an, vn, method=method), [2, 2, 0])
    same(jnp.searchsorted(an, vn, side="right", method=method), [3, 2, 0])
    z = np.array([-0.0, 0.0], np.float32)
    same(jnp.searchsorted(z, np.array([0.0, -0.0], np.float32), method=method), [0, 0])
    same(jnp.searchsorted(np.zeros(0, np.float32), np.ones(2, np.float32), method=method), [0, 0])
    # dtypes promote: an int8 array searched for a float.
    same(jnp.searchsorted(np.array([1, 2, 3], np.int8), np.array([2.5], np.float32)), [2])


def test_digitize():
    x = np.array([0.0, 1.0, 1.5, 3.0, 5.0], np.float32)
    for bins in ([1.0, 2.0, 3.0], [3.0, 2.0, 1.0]):
        b = np.array(bins, np.float32)
        for right in (False, True):
            out = jnp.digitize(x, b, right=right)
            assert out.dtype == np.int32
            same(out, np.digitize(x, b, right=right))
    same(jnp.digitize(np.array([[2, 3], [0, 9]]), np.array([1.5, 2.5])), [[1, 2], [0, 2]])
    same(jnp.digitize(x, np.zeros(0, np.float32)), np.zeros(5))


# ---------------------------------------------------------------------------------------------
# unique


def test_unique():
    a = np.array([3, 1, 2, 1, 3], np.int32)
    vals, index, inverse, counts = jnp.unique(a, True, True, True)
    for got, ref in zip((vals, index, inverse, counts), np.unique(a, True, True, True)):
        same(got, ref)
        assert got.dtype == (np.int32 if got is not vals else a.dtype)
    rng = np.random.default_rng(4)
    for name in ("float32", "int32", "bool", "float16", "bfloat16"):
        x = make((4, 5), name, seed=int(rng.integers(100)))
        flags = {"return_index": True, "return_inverse": True, "return_counts": True}
        ref = np.unique(x.astype(np.float64), **flags)
        got = jnp.unique(x, **flags)
        assert got[0].dtype == x.dtype
        for g, r in zip(got, ref):
            same(g, r)
    # size= pads with the smallest value (index of its first occurrence, count 0) or truncates.
    out = jnp.unique(a, size=5, return_index=True, return_inverse=True, return_counts=True)
    same(out[0], [1, 2, 3, 1, 1])
    same(out[1], [1, 2, 0, 1, 1])
    same(out[2], [2, 0, 1, 0, 2])
    same(out[3], [2, 1, 2, 0, 0])
    same(jnp.unique(a, size=5, fill_value=9), [1, 2, 3, 9, 9])
    out = jnp.unique(a, size=2, return_counts=True)
    same(out[0], [1, 2])
    same(out[1], [2, 1])
    nan = np.array([np.nan, 1.0, np.nan], np.float32)
    same(jnp.unique(nan), [1, np.nan])
    same(jnp.unique(nan, equal_nan=False), [1, np.nan, np.nan])
    same(jnp.unique_values(nan), [1, np.nan, np.nan])
    inv = jnp.unique(np.array([[3, 1], [2, 1]]), return_inverse=True)[1]
    same(inv, [[2, 0], [1, 0]])  # the input's shape
    rows = np.array([[3, 1], [2, 1], [3, 1]], np.int32)
    flags = {"return_index": True, "return_inverse": True, "return_counts": True}
    for g, r in zip(jnp.unique(rows, axis=0, **flags), np.unique(rows, axis=0, **flags)):
        same(g, np.reshape(r, np.shape(g)))
    same(jnp.unique(np.array([[3, 1, 3], [2, 1, 2]]), axis=1), [[1, 3], [1, 2]])
    out = jnp.unique(3)
    assert out.shape == (1,) and out.weak_type
    v, c = jnp.unique(np.zeros(0, np.float32), return_counts=True)
    assert v.shape == c.shape == (0,)
    r = jnp.unique_all(a)
    assert r._fields == ("values", "indices", "inverse_indices", "counts")
    same(r.counts, [2, 1, 2])
    same(jnp.unique_counts(a).counts, [2, 1, 2])
    same(jnp.unique_inverse(a).inverse_indices, [2, 0, 1, 0, 2])


def test_unique_under_jit():
    a = np.array([3, 1, 1], np.int32)
    with pytest.raises(ConcretizationTypeError, match="size"):
        spmd.jit(jnp.unique)(a)
    out = spmd.jit(lambda x: jnp.unique(x, size=3, return_counts=True))(a)
    same(out[0], [1, 3, 1])
    same(out[1], [2, 1, 0])


# ---------------------------------------------------------------------------------------------
# bincount, histogram


def test_bincount():
    x = np.array([0, 1, 1, 3], np.int32)
    out = jnp.bincount(x)
    assert out.dtype == np.int32
    same(out, np.bincount(x))
    w = np.array([0.5, 1, 1, 2], np.float32)
    out = jnp.bincount(x, weights=w, length=6)
    assert out.dtype == np.float32
    same(out, np.bincount(x, w, minlength=6))
    same(jnp.bincount(x, length=2), [1, 2])  # values past the end are dropped
    same(jnp.bincount(np.array([0, -1, 1, 3])), [2, 1, 0, 1])  # negatives count as 0
    same(jnp.bincount(x, minlength=6), np.bincount(x, minlength=6))
    same(jnp.bincount(np.array([True, False])), [1, 1])
    same(jnp.bincount(x, weights=np.array([1, 2, 3, 4])), [1, 5, 0, 4])
    assert jnp.bincount(np.array([0, 1]), weights=np.ones(2, np.float16)).dtype == np.float16
    same(jnp.bincount(np.zeros(0, np.int32), minlength=3), [0, 0, 0])
    assert jnp.bincount(x, length=0).shape == (0,)
    with pytest.raises(ConcretizationTypeError, match="length"):
        spmd.jit(jnp.bincount)(x)
    same(spmd.jit(lambda v: jnp.bincount(v, length=5))(x), [1, 2, 0, 1, 0])


def test_histogram():
    a = np.array([0.0, 1.0, 1.0, 3.0, 5.0], np.float32)
    for kw in (
        {"bins": 3},
        {"bins": 3, "range": (0, 4)},
        {"bins": 3, "density": True},
        {"bins": 3, "range": (0, 4), "density": True},
        {"bins": np.array([0, 2, 5.0], np.float32)},
        {"bins": 2, "weights": np.arange(5.0, dtype=np.float32)},
    ):
        counts, edges = jnp.histogram(a, **kw)
        rc, re = np.histogram(a, **kw)
        assert counts.dtype == edges.dtype == np.float32
        np.testing.assert_allclose(counts, rc, rtol=1e-6)
        np.testing.assert_allclose(edges, re, rtol=1e-6)
    counts, edges = jnp.histogram(np.array([2.0, 2.0], np.float32), bins=2)
    same(counts, [0, 2])
    same(edges, [1.5, 2, 2.5])
    counts, edges = jnp.histogram(np.array([0, 1, 1, 3, 5]), bins=3)
    assert counts.dtype == np.float32
    same(counts, [3, 1, 1])
    counts, edges = jnp.histogram(a.astype(np.float16), bins=3)
    assert counts.dtype == edges.dtype == np.float16


# ---------------------------------------------------------------------------------------------
# jit, printed jaxprs (texts from JAX 0.10), errors


FUNCS_FOR_JIT = {
    "sort": lambda x: jnp.sort(x, axis=0, descending=True),
    "argsort": lambda x: jnp.argsort(x, axis=None),
    "lexsort": lambda x: jnp.lexsort((x, -x), axis=0),
    "top_k": lambda x: lax.top_k(x, 2),
    "partition": lambda x: jnp.argpartition(x, 1, axis=1),
    "searchsorted": lambda x: jnp.searchsorted(jnp.sort(x[0]), x),
    "unique": lambda x: jnp.unique(x, size=6, return_inverse=True, return_index=True),
    "bincount": lambda x: jnp.bincount(jnp.argsort(x[0]), length=6),
    "histogram": lambda x: jnp.histogram(x, bins=4),
    "digitize": lambda x: jnp.digitize(x, jnp.sort(x[1])),
}


@pytest.mark.parametrize("name", sorted(FUNCS_FOR_JIT))
def test_eager_equals_jit(name):
    fn = FUNCS_FOR_JIT[name]
    x = arr(make((3, 5), "float32", seed=9))
    eager = spmd.tree_util.tree_leaves(fn(x))
    jitted = spmd.tree_util.tree_leaves(spmd.jit(fn)(x))
    for e, j in zip(eager, jitted, strict=True):
        assert e.dtype == j.dtype and e.shape == j.shape and e.weak_type == j.weak_type
        np.testing.assert_array_equal(np.asarray(e), np.asarray(j))


JAXPRS = {
    "lax_sort": (
        lambda x: lax.sort(x, dimension=1),
        """\
{ lambda ; a:f32[4,6]. let
    b:f32[4,6] = sort[dimension=1 is_stable=True num_keys=1] a
  in (b,) }""",
    ),
    "sort_key_val": (
        lambda x: lax.sort((x, x), num_keys=2),
        """\
{ lambda ; a:f32[4,6]. let
    b:f32[4,6] c:f32[4,6] = sort[dimension=1 is_stable=True num_keys=2] a a
  in (b, c) }""",
    ),
    "top_k": (
        lambda x: lax.top_k(x, 3),
        """\
{ lambda ; a:f32[4,6]. let
    b:f32[4,3] c:i32[4,3] = top_k[axis=1 k=3] a
  in (b, c) }""",
    ),
    "jnp_sort": (
        lambda x: jnp.sort(x),
        """\
{ lambda ; a:f32[4,6]. let
    b:f32[4,6] = jit[
      name=sort
      jaxpr={ lambda ; a:f32[4,6]. let
          b:f32[4,6] = sort[dimension=1 is_stable=True num_keys=1] a
        in (b,) }
    ] a
  in (b,) }""",
    ),
    "argsort_descending": (
        lambda x: jnp.argsort(x, axis=0, descending=True),
        "\n".join(
            [
                "{ lambda ; a:f32[4,6]. let",
                "    b:i32[4,6] = jit[",
                "      name=argsort",
                "      jaxpr={ lambda ; a:f32[4,6]. let",
                # JAX prints a space after an equation without operands.
                "          c:i32[4,6] = iota[dimension=0 dtype=int32 shape=(4, 6) sharding=None] ",
                "          d:f32[4,6] = rev[dimensions=(0,)] a",
                "          e:i32[4,6] = rev[dimensions=(0,)] c",
                "          f:f32[4,6] g:i32[4,6] = sort[dimension=0 is_stable=True num_keys=1] d e",
                "          b:i32[4,6] = rev[dimensions=(0,)] g",
                "        in (b,) }",
                "    ] a",
                "  in (b,) }",
            ]
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(JAXPRS))
def test_jaxpr_text(name):
    fn, want = JAXPRS[name]
    assert str(spmd.make_jaxpr(fn)(np.ones((4, 6), np.float32))) == want


def test_errors():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2"):
        lax.sort(x, dimension=2)
    with pytest.raises(ValueError, match="axis -1 is out of bounds for array of dimension 0"):
        lax.sort(np.float32(1))
    with pytest.raises(TypeError, match=r"must have equal shapes, got: \(2, 3\) \(3, 2\)"):
        lax.sort((x, x.T))
    with pytest.raises(ValueError, match=r"num_keys=3 must be between 1 and len\(operand\)=2"):
        lax.sort((x, x), num_keys=3)
    with pytest.raises(ValueError, match="k argument to top_k must be nonnegative, got -1"):
        lax.top_k(x, -1)
    with pytest.raises(ValueError, match="k argument to top_k must be no larger than size"):
        lax.top_k(x, 4)
    with pytest.raises(ValueError, match="axis -1 is out of bounds for array of dimension 0"):
        lax.top_k(np.float32(1), 1)
    for fn in (jnp.sort, jnp.argsort):
        with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2"):
            fn(x, axis=2)
        with pytest.raises(TypeError, match="'kind' argument"):
            fn(x, kind="quicksort")
        with pytest.raises(TypeError, match="'order' argument"):
            fn(x, order="x")
    with pytest.raises(TypeError, match="need sequence of keys with len > 0 in lexsort"):
        jnp.lexsort(())
    with pytest.raises(ValueError, match="all keys need to be the same shape"):
        jnp.lexsort((np.ones(3), np.ones(4)))
    with pytest.raises(ValueError, match="kth"):
        jnp.partition(np.arange(5), 5)
    with pytest.raises(ValueError, match="invalid argument side='middle'"):
        jnp.searchsorted(np.arange(3), 2, side="middle")
    with pytest.raises(ValueError, match="invalid argument method='foo'"):
        jnp.searchsorted(np.arange(3), 2, method="foo")
    with pytest.raises(ValueError, match="a should be 1-dimensional"):
        jnp.searchsorted(x, 2)
    with pytest.raises(TypeError, match="x argument to bincount must have an integer type"):
        jnp.bincount(np.array([0.0, 1.0], np.float32))
    with pytest.raises(ValueError, match="only 1-dimensional input supported"):
        jnp.bincount(np.ones((2, 2), np.int32))
    with pytest.raises(ValueError, match="weights"):
        jnp.bincount(np.array([0, 1]), weights=np.ones(3, np.float32))
    with pytest.raises(ValueError, match="bins must be a 1-dimensional array"):
        jnp.digitize(np.ones(2, np.float32), np.ones((2, 2), np.float32))
    with pytest.raises(TypeError):
        jnp.sort([3, 1])
