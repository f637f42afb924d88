"""Reductions of spmd.numpy (sum ... quantile) and their lax primitives.

Values are checked against NumPy (computed in float64) over shapes, axes and dtypes; dtypes,
weak types, printed jaxprs and error classes against literals read from JAX 0.10 (x64 off).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax

BF16 = ml_dtypes.bfloat16
DTYPES = {
    "float32": np.float32,
    "int32": np.int32,
    "bool": np.bool_,
    "float16": np.float16,
    "bfloat16": BF16,
    "int8": np.int8,
    "uint8": np.uint8,
}
SHAPES = [(), (5,), (3, 4), (2, 3, 4)]
TOL = {"float32": 2e-5, "float16": 2e-3, "bfloat16": 2e-2}


def arr(x, dtype=None, weak_type=False):
    """A spmd Array of exactly this NumPy value (no dtype canonicalization)."""
    return spmd.Array(np.asarray(x, dtype), weak_type=weak_type)


def make(shape, name, seed=0, lo=-4, hi=5, positive=False):
    rng = np.random.default_rng(seed)
    dt = DTYPES[name]
    if name == "bool":
        return rng.random(shape) > 0.5
    if np.dtype(dt).kind in "iu":
        lo = 0 if np.dtype(dt).kind == "u" else lo
        return rng.integers(lo, hi, shape).astype(dt)
    v = rng.uniform(0.5, 1.5, shape) if positive else rng.standard_normal(shape)
    return v.astype(dt)


def axes_for(ndim):
    out = [None]
    if ndim >= 1:
        out += [0, -1]
    if ndim >= 2:
        out += [(0, -1), (1,)]
    if ndim == 3:
        out += [(2, 0)]
    return out


def close(out, ref, name, *, rtol=None):
    got = np.asarray(out).astype(np.float64)
    ref = np.asarray(ref, np.float64)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    tol = rtol if rtol is not None else TOL.get(name, 0)
    np.testing.assert_allclose(got, ref, rtol=tol, atol=tol, equal_nan=True)


# Result dtypes of jnp.<fn>(x, axis=0) on a (3, 4) array, read from JAX 0.10.
EXPECTED_DTYPES = {
    "sum": ["float32", "int32", "int32", "float16", "bfloat16", "int32", "uint32"],
    "prod": ["float32", "int32", "int32", "float16", "bfloat16", "int32", "uint32"],
    "max": ["float32", "int32", "bool", "float16", "bfloat16", "int8", "uint8"],
    "min": ["float32", "int32", "bool", "float16", "bfloat16", "int8", "uint8"],
    "mean": ["float32", "float32", "float32", "float16", "bfloat16", "float32", "float32"],
    "var": ["float32", "float32", "float32", "float16", "bfloat16", "float32", "float32"],
    "std": ["float32", "float32", "float32", "float16", "bfloat16", "float32", "float32"],
    "any": ["bool"] * 7,
    "all": ["bool"] * 7,
    "argmax": ["int32"] * 7,
    "argmin": ["int32"] * 7,
    "ptp": ["float32", "int32", "TypeError", "float16", "bfloat16", "int8", "uint8"],
    "count_nonzero": ["int32"] * 7,
    "cumsum": ["float32", "int32", "int32", "float16", "bfloat16", "int8", "uint8"],
    "cumprod": ["float32", "int32", "int32", "float16", "bfloat16", "int8", "uint8"],
    "cumulative_sum": ["float32", "int32", "int32", "float16", "bfloat16", "int32", "uint32"],
    "nansum": ["float32", "int32", "int32", "float16", "bfloat16", "int32", "uint32"],
    "nanprod": ["float32", "int32", "int32", "float16", "bfloat16", "int32", "uint32"],
    "nanmax": ["float32", "int32", "bool", "float16", "bfloat16", "int8", "uint8"],
    "nanmin": ["float32", "int32", "bool", "float16", "bfloat16", "int8", "uint8"],
    "nanmean": ["float32", "float32", "float32", "float16", "bfloat16", "float32", "float32"],
    "nanvar": ["float32", "float32", "float32", "float16", "bfloat16", "float32", "float32"],
    "nanstd": ["float32", "float32", "float32", "float16", "bfloat16", "float32", "float32"],
    "nanargmax": ["int32"] * 7,
    "median": ["float32", "float32", "float32", "float16", "bfloat16", "float32", "float32"],
    "quantile": ["float32", "float32", "float32", "float16", "bfloat16", "float32", "float32"],
    "average": ["float32", "float32", "float32", "float16", "bfloat16", "float32", "float32"],
}


@pytest.mark.parametrize("fn", sorted(EXPECTED_DTYPES))
def test_result_dtypes(fn):
    for name, want in zip(DTYPES, EXPECTED_DTYPES[fn]):
        x = arr(np.ones((3, 4), DTYPES[name]))
        f = getattr(jnp, fn)
        args = (x, 0.5) if fn == "quantile" else (x,)
        if want == "TypeError":
            with pytest.raises(TypeError):
                f(*args, axis=0)
            continue
        out = f(*args, axis=0)
        assert out.dtype == np.dtype(want), (fn, name, out.dtype, want)
        assert not out.weak_type, (fn, name)


# ---------------------------------------------------------------------------------------------
# Values against NumPy

VALUE_DTYPES = ["float32", "int32", "bool", "float16", "bfloat16"]


def _np_ref(fn, x, axis, keepdims):
    x64 = x.astype(np.float64)
    kw = {"axis": axis, "keepdims": keepdims}
    if fn in ("sum", "prod", "max", "min", "mean", "var", "std", "any", "all", "ptp"):
        if x.dtype == np.bool_ and fn in ("max", "min", "any", "all"):
            return getattr(np, {"max": "any", "min": "all"}.get(fn, fn))(x, **kw)
        return getattr(np, fn)(x64, **kw)
    if fn == "count_nonzero":
        return np.count_nonzero(x, axis=axis, keepdims=keepdims)
    raise AssertionError(fn)


@pytest.mark.parametrize("name", VALUE_DTYPES)
@pytest.mark.parametrize(
    "fn", ["sum", "prod", "max", "min", "mean", "var", "std", "any", "all", "ptp", "count_nonzero"]
)
def test_reduction_values(fn, name):
    if fn == "ptp" and name == "bool":
        pytest.skip("ptp of bool is a TypeError (tested below)")
    for shape in SHAPES:
        x = make(shape, name, lo=-2, hi=3, positive=fn == "prod")
        for axis in axes_for(len(shape)):
            for keepdims in (False, True):
                out = getattr(jnp, fn)(x, axis=axis, keepdims=keepdims)
                ref = _np_ref(fn, x, axis, keepdims)
                tol = TOL.get(np.dtype(out.dtype).name, 0)
                if fn in ("var", "std") and name in ("float16", "bfloat16"):
                    tol = 3 * tol
                close(out, ref, name, rtol=tol)


@pytest.mark.parametrize("name", VALUE_DTYPES)
def test_arg_reductions(name):
    for shape in SHAPES[1:]:
        x = make(shape, name)
        for fn in ("argmax", "argmin"):
            ref_fn = getattr(np, fn)
            np.testing.assert_array_equal(getattr(jnp, fn)(x), ref_fn(x))
            for axis in range(-len(shape), len(shape)):
                out = getattr(jnp, fn)(x, axis=axis)
                np.testing.assert_array_equal(out, ref_fn(x, axis=axis))
                kd = getattr(jnp, fn)(x, axis=axis, keepdims=True)
                np.testing.assert_array_equal(kd, ref_fn(x, axis=axis, keepdims=True))
            assert getattr(jnp, fn)(x, keepdims=True).shape == (1,) * len(shape)


@pytest.mark.parametrize("name", VALUE_DTYPES)
def test_cumulative_values(name):
    for shape in SHAPES:
        x = make(shape, name, lo=-2, hi=3, positive=True)
        for fn in ("cumsum", "cumprod"):
            ref_fn = getattr(np, fn)
            x64 = x.astype(np.float64)
            close(getattr(jnp, fn)(x), ref_fn(x64), name, rtol=5 * TOL.get(name, 0))
            for axis in range(-len(shape), len(shape)):
                close(getattr(jnp, fn)(x, axis=axis), ref_fn(x64, axis=axis), name,
                      rtol=5 * TOL.get(name, 0))  # fmt: skip


def test_cumulative_array_api():
    x = np.arange(1, 7, dtype=np.int8).reshape(2, 3)
    out = jnp.cumulative_sum(x, axis=1, include_initial=True)
    np.testing.assert_array_equal(out, [[0, 1, 3, 6], [0, 4, 9, 15]])
    assert out.dtype == np.int32  # unlike cumsum, which keeps int8
    assert jnp.cumsum(x).dtype == np.int8
    out = jnp.cumulative_prod(np.array([1.0, 2.0, 3.0], np.float32), include_initial=True)
    np.testing.assert_array_equal(out, [1, 1, 2, 6])
    with pytest.raises(ValueError, match="non-scalar"):
        jnp.cumulative_sum(np.float32(2))
    with pytest.raises(ValueError, match="rank 2"):
        jnp.cumulative_sum(np.ones((2, 3), np.float32))


def test_nan_reductions():
    x = np.array([[1.0, np.nan, 3.0, 4.0], [np.nan, np.nan, np.nan, np.nan], [2, 0, 5, 1]])
    x = x.astype(np.float32)
    with np.errstate(all="ignore"), pytest.warns(RuntimeWarning):
        refs = {
            "nansum": np.nansum(x, axis=1),
            "nanprod": np.nanprod(x, axis=1),
            "nanmean": np.nanmean(x, axis=1),
            "nanvar": np.nanvar(x, axis=1),
            "nanstd": np.nanstd(x, axis=1),
            "nanmax": np.nanmax(x, axis=1),
            "nanmin": np.nanmin(x, axis=1),
            "nanmedian": np.nanmedian(x, axis=1),
        }
    for fn, ref in refs.items():
        close(getattr(jnp, fn)(x, axis=1), ref, "float32")
    np.testing.assert_array_equal(jnp.nanargmax(x, axis=1), [3, -1, 2])
    np.testing.assert_array_equal(jnp.nanargmin(x, axis=1), [0, -1, 1])
    close(jnp.nanvar(x[0], ddof=1), np.nanvar(x[0], ddof=1), "float32")
    assert np.isnan(jnp.nanvar(np.array([1.0, np.nan], np.float32), ddof=1))
    assert float(jnp.nanmax(x[1], initial=3.0)) == 3.0
    close(
        jnp.nanquantile(x, np.array([0.25, 0.5], np.float32), axis=1),
        np.array([[2.0, np.nan, 0.75], [3.0, np.nan, 1.5]]),
        "float32",
    )
    close(jnp.nancumsum(x[0]), [1, 1, 4, 8], "float32")
    # Integer inputs have no NaNs: the plain reductions.
    assert jnp.nanmax(np.array([1, 2], np.int32)).dtype == np.int32
    assert jnp.nansum(np.array([1, 2], np.int32), where=np.array([True, False])) == 1


def test_where_and_initial():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    m = np.array([True, False, True])
    np.testing.assert_array_equal(jnp.sum(x, axis=0, where=m), [3, 0, 7])
    np.testing.assert_array_equal(jnp.mean(x, axis=1, where=m), [1, 4])  # divides by the count
    assert np.all(np.isnan(jnp.mean(x, axis=1, where=np.zeros(3, bool))))
    np.testing.assert_array_equal(jnp.max(x, axis=1, where=m, initial=-1), [2, 5])
    np.testing.assert_array_equal(
        jnp.min(x, axis=1, where=np.zeros(3, bool), initial=100), [100, 100]
    )
    assert bool(jnp.all(np.zeros(3, np.float32), where=np.zeros(3, bool)))
    assert not bool(jnp.any(np.ones(3, np.float32), where=np.zeros(3, bool)))
    close(jnp.var(np.arange(6.0, dtype=np.float32), where=np.arange(6) % 2 == 0), 8 / 3, "float32")
    close(
        jnp.std(np.arange(6.0, dtype=np.float32), where=np.arange(6) % 2 == 0, ddof=1), 2, "float32"
    )
    assert float(jnp.sum(np.arange(6.0, dtype=np.float32), initial=10)) == 25
    out = jnp.sum(np.arange(3, dtype=np.int32), initial=10.5)  # initial takes a's dtype
    assert out.dtype == np.int32 and int(out) == 13
    out = jnp.max(np.arange(3, dtype=np.int8), initial=1000)  # wraps to -24, as in JAX
    assert out.dtype == np.int8 and int(out) == 2
    np.testing.assert_array_equal(jnp.max(np.ones((0, 3), np.float32), axis=1), np.ones((0,)))
    assert float(jnp.max(np.ones((0, 3), np.float32), initial=1.0)) == 1.0


def test_dtype_argument():
    f = np.ones((4, 6), np.float32) * np.float32(1.7)
    out = jnp.sum(f, dtype=jnp.int8)
    assert out.dtype == np.int8 and int(out) == 24
    assert jnp.sum(f, dtype=bool).dtype == np.bool_
    out = jnp.mean(f, dtype=jnp.int32)
    assert out.dtype == np.int32 and int(out) == 1
    assert jnp.sum(np.ones(3, np.int8), promote_integers=False).dtype == np.int8
    assert jnp.sum(np.ones(3, np.uint16)).dtype == np.uint32
    assert jnp.mean(np.arange(6), dtype=jnp.float16).dtype == np.float16
    assert jnp.var(np.arange(6.0, dtype=np.float32), dtype=jnp.float16).dtype == np.float16
    # JAX's quirk: an integer dtype computes the variance in ints, then meets a NaN fill.
    out = jnp.var(np.arange(6.0, dtype=np.float32), dtype=jnp.int32)
    assert (out.dtype, out.weak_type, float(out)) == (np.float32, True, 3.0)
    assert jnp.cumsum(np.ones(3, np.int8), dtype=np.float32).dtype == np.float32


def test_var_std_options():
    x = np.arange(4.0, dtype=np.float32)
    close(jnp.var(x, correction=1), np.var(x, ddof=1), "float32")
    close(jnp.var(x, ddof=1), np.var(x, ddof=1), "float32")
    close(jnp.var(np.arange(6.0, dtype=np.float32), mean=2.5), 35 / 12, "float32")
    y = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    close(jnp.var(y, axis=1, mean=np.array([[1.0], [4.0]], np.float32)), [2 / 3, 2 / 3], "float32")
    assert np.isnan(jnp.var(np.arange(3.0, dtype=np.float32), ddof=5))
    z = np.arange(4.0, dtype=np.float32) * np.complex64(1j)
    out = jnp.var(z)
    assert out.dtype == np.float32 and float(out) == 1.25


def test_average():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    w = np.array([1.0, 2.0, 3.0], np.float32)
    avg, ws = jnp.average(x, axis=1, weights=w, returned=True)
    close(avg, np.average(x, axis=1, weights=w), "float32")
    np.testing.assert_array_equal(ws, [6, 6])
    out = jnp.average(np.arange(6).reshape(2, 3), axis=1, weights=np.array([1, 2, 3]))
    assert out.dtype == np.float32
    x3 = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    w2 = np.arange(8.0, dtype=np.float32).reshape(4, 2)
    close(
        jnp.average(x3, axis=(2, 0), weights=w2), np.average(x3, axis=(2, 0), weights=w2), "float32"
    )
    avg, ws = jnp.average(x, axis=1, returned=True, keepdims=True)
    assert avg.shape == ws.shape == (2, 1) and float(ws[0, 0]) == 3
    assert np.isnan(jnp.average(np.arange(3.0, dtype=np.float32), weights=np.zeros(3, np.float32)))
    with pytest.raises(ValueError, match="Axis must be specified"):
        jnp.average(x, weights=w)
    with pytest.raises(ValueError, match="Shape of weights"):
        jnp.average(x, axis=1, weights=np.ones(2, np.float32))


def test_quantiles():
    x = np.arange(5.0, dtype=np.float32)
    q = np.array([0.1, 0.3, 0.5, 0.62, 0.9], np.float32)
    for method in ("linear", "lower", "higher", "midpoint", "inverted_cdf"):
        close(jnp.quantile(x, q, method=method), np.quantile(x, q, method=method), "float32")
    # 'nearest' rounds ties down in JAX (NumPy rounds half to even).
    qn = np.array([0.1, 0.3, 0.5, 0.625, 0.875, 0.9], np.float32)
    np.testing.assert_array_equal(jnp.quantile(x, qn, method="nearest"), [0, 1, 2, 2, 3, 4])
    y = np.random.default_rng(1).standard_normal((2, 3, 4)).astype(np.float32)
    for axis in (None, 0, -1, (0, 2)):
        for keepdims in (False, True):
            ref = np.quantile(y, [0.3, 0.5], axis=axis, keepdims=keepdims)
            close(
                jnp.quantile(y, np.array([0.3, 0.5], np.float32), axis=axis, keepdims=keepdims),
                ref,
                "float32",
            )
            ref = np.median(y, axis=axis, keepdims=keepdims)
            close(jnp.median(y, axis=axis, keepdims=keepdims), ref, "float32")
    close(jnp.percentile(x, np.array([10, 50], np.float32)), [0.4, 2.0], "float32")
    assert np.isnan(jnp.quantile(np.array([2.0, np.nan, 3.0], np.float32), 0.5))
    assert float(jnp.quantile(x, 1.5)) == 4.0  # JAX clamps instead of raising
    assert jnp.median(np.arange(6).reshape(2, 3), axis=0, keepdims=True).dtype == np.float32
    out = jnp.quantile(np.arange(5.0, dtype=np.float16), np.array([0.1], np.float32))
    assert out.dtype == np.float16


def test_methods_and_weak_types():
    x = arr(np.arange(6, dtype=np.int32).reshape(2, 3))
    np.testing.assert_array_equal(x.sum(0), [3, 5, 7])
    assert float(x.mean()) == 2.5
    np.testing.assert_array_equal(x.max(axis=1), [2, 5])
    np.testing.assert_array_equal(x.argmax(axis=1), [2, 2])
    np.testing.assert_array_equal(x.cumsum(1), [[0, 1, 3], [3, 7, 12]])
    assert int(x.ptp()) == 5 and bool(x.any()) and not bool(x.all())
    np.testing.assert_array_equal(x.prod(axis=1, keepdims=True), [[0], [60]])
    close(x.var(), np.var(np.arange(6)), "float32")
    close(x.std(axis=1, ddof=1), [1, 1], "float32")
    assert int(x.min()) == 0 and int(x.argmin()) == 0
    # Reductions of weakly typed values are strongly typed (JAX).
    wf = arr(np.array([0.5, 1.5, 2.5], np.float32), weak_type=True)
    for fn in ("sum", "prod", "max", "mean", "var", "cumsum", "median", "nanmax"):
        out = getattr(jnp, fn)(wf)
        assert out.dtype == np.float32 and not out.weak_type, fn
    for v, dt in ((2.0, np.float32), (2, np.int32)):
        out = jnp.sum(v)
        assert out.dtype == dt and not out.weak_type
    # ... but the lax reductions keep it, except the logical ones.
    wi = arr(np.array([1, 2, 3], np.int32), weak_type=True)
    assert lax.reduce_sum(wf, (0,)).weak_type and lax.reduce_max(wf, (0,)).weak_type
    assert not lax.reduce_and(wi, (0,)).weak_type and not lax.reduce_or(wi, (0,)).weak_type
    assert not lax.argmax(wf, 0, np.int32).weak_type
    assert lax.cumsum(wf, 0).weak_type


FUNCS_FOR_JIT = {
    "sum_bf16": (lambda x: jnp.sum(x, axis=0), "bfloat16"),
    "mean_kd": (lambda x: jnp.mean(x, axis=1, keepdims=True), "int32"),
    "var": (lambda x: jnp.var(x, axis=(0, 1), ddof=1), "float32"),
    "std_where": (lambda x: jnp.std(x, axis=0, where=x > 0), "float32"),
    "max_init": (lambda x: jnp.max(x, axis=1, initial=0.5), "float16"),
    "argmin": (lambda x: jnp.argmin(x, axis=-1, keepdims=True), "float32"),
    "cumprod": (lambda x: jnp.cumprod(x, axis=0), "int32"),
    "nanmean": (lambda x: jnp.nanmean(x / x, 0), "int32"),
    "quantile": (lambda x: jnp.quantile(x, np.array([0.2, 0.7], np.float32), axis=1), "float32"),
    "nanmedian": (lambda x: jnp.nanmedian(x, axis=0), "float32"),
    "count_nonzero": (lambda x: jnp.count_nonzero(x, axis=0), "int32"),
    "average": (lambda x: jnp.average(x, 0, weights=np.arange(3.0, dtype=np.float32)), "float32"),
    "any_all": (lambda x: (jnp.any(x > 0, axis=0), jnp.all(x, axis=1)), "int32"),
}


@pytest.mark.parametrize("name", sorted(FUNCS_FOR_JIT))
def test_eager_equals_jit(name):
    fn, dt = FUNCS_FOR_JIT[name]
    x = arr(make((3, 4), dt))
    eager = spmd.tree_util.tree_leaves(fn(x))
    jitted = spmd.tree_util.tree_leaves(spmd.jit(fn)(x))
    for e, j in zip(eager, jitted, strict=True):
        assert e.dtype == j.dtype and e.shape == j.shape and e.weak_type == j.weak_type
        np.testing.assert_array_equal(np.asarray(e), np.asarray(j))


# ---------------------------------------------------------------------------------------------
# Printed jaxprs (texts from JAX 0.10)

JAXPRS = {
    "sum_bf16": (
        lambda x: jnp.sum(x),
        np.ones((4, 6), BF16),
        """\
{ lambda ; a:bf16[4,6]. let
    b:f32[4,6] = convert_element_type[new_dtype=float32 weak_type=False] a
    c:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] b
    d:bf16[] = convert_element_type[new_dtype=bfloat16 weak_type=False] c
  in (d,) }""",
    ),
    "mean_f32": (
        lambda x: jnp.mean(x),
        np.ones((4, 6), np.float32),
        """\
{ lambda ; a:f32[4,6]. let
    b:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] a
    c:f32[] = div b 24.0:f32[]
  in (c,) }""",
    ),
    "mean_i8_keepdims": (
        lambda x: jnp.mean(x, axis=0, keepdims=True),
        np.ones((4, 6), np.int8),
        """\
{ lambda ; a:i8[4,6]. let
    b:f32[4,6] = convert_element_type[new_dtype=float32 weak_type=False] a
    c:f32[6] = reduce_sum[axes=(0,) out_sharding=None] b
    d:f32[1,6] = broadcast_in_dim[broadcast_dimensions=(1,)] c
    e:f32[1,6] = div d 4.0:f32[]
  in (e,) }""",
    ),
    "sum_where": (
        lambda x: jnp.sum(x, where=x > 0),
        np.ones((4, 6), np.float32),
        """\
{ lambda ; a:f32[4,6]. let
    b:bool[4,6] = gt a 0.0:f32[]
    c:f32[4,6] = jit[
      name=_where
      jaxpr={ lambda ; b:bool[4,6] a:f32[4,6] d:f32[]. let
          e:f32[4,6] = broadcast_in_dim d
          c:f32[4,6] = select_n b e a
        in (c,) }
    ] b a 0.0:f32[]
    f:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] c
  in (f,) }""",
    ),
    "max_initial_bf16": (
        lambda x: jnp.max(x, initial=2.0),
        np.ones((4, 6), BF16),
        """\
{ lambda ; a:bf16[4,6]. let
    b:bf16[] = reduce_max[axes=(0, 1)] a
    c:bf16[] = max 2.0:bf16[] b
  in (c,) }""",
    ),
    "argmax_flat_keepdims": (
        lambda x: jnp.argmax(x, keepdims=True),
        np.ones((4, 6), np.float32),
        """\
{ lambda ; a:f32[4,6]. let
    b:f32[24] = reshape[dimensions=None new_sizes=(24,) sharding=None] a
    c:i32[] = argmax[axes=(0,) index_dtype=int32] b
    d:i32[1,1] = broadcast_in_dim c
  in (d,) }""",
    ),
    "cumsum_bf16": (
        lambda x: jnp.cumsum(x),
        np.ones((4, 6), BF16),
        """\
{ lambda ; a:bf16[4,6]. let
    b:bf16[24] = jit[
      name=cumsum
      jaxpr={ lambda ; a:bf16[4,6]. let
          c:bf16[24] = reshape[dimensions=None new_sizes=(24,) sharding=None] a
          b:bf16[24] = cumsum[axis=0 reverse=False] c
        in (b,) }
    ] a
  in (b,) }""",
    ),
    "count_nonzero": (
        lambda x: jnp.count_nonzero(x, axis=0),
        np.ones((4, 6), np.float32),
        """\
{ lambda ; a:f32[4,6]. let
    b:i32[6] = jit[
      name=count_nonzero
      jaxpr={ lambda ; a:f32[4,6]. let
          c:bool[4,6] = ne a 0.0:f32[]
          d:i32[4,6] = convert_element_type[new_dtype=int32 weak_type=False] c
          b:i32[6] = reduce_sum[axes=(0,) out_sharding=None] d
        in (b,) }
    ] a
  in (b,) }""",
    ),
}


@pytest.mark.parametrize("name", sorted(JAXPRS))
def test_jaxpr_text(name):
    fn, x, want = JAXPRS[name]
    assert str(spmd.make_jaxpr(fn)(x)) == want


# ---------------------------------------------------------------------------------------------
# Errors


def test_errors():
    x = np.ones((2, 3), np.float32)
    for fn in (jnp.sum, jnp.max, jnp.mean, jnp.var, jnp.argmax, jnp.cumsum, jnp.any, jnp.median):
        # JAX raises ValueError for some of these and IndexError for others: AxisError is both.
        with pytest.raises(ValueError, match="axis 2 is out of bounds for array of dimension 2"):
            fn(x, axis=2)
        with pytest.raises(IndexError, match="axis -3 is out of bounds"):
            fn(x, axis=-3)
    with pytest.raises(ValueError, match="axis 0 is out of bounds for array of dimension 0"):
        jnp.sum(np.float32(3), axis=0)
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        jnp.sum(x, axis=(0, -2))
    with pytest.raises(TypeError, match="axis"):
        jnp.sum(x, axis=1.0)
    with pytest.raises(TypeError, match="axis"):
        jnp.argmax(x, axis=(0,))
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        jnp.argmax(np.ones((0, 3), np.float32), axis=0)
    with pytest.raises(ValueError, match="attempt to get argmin of an empty sequence"):
        jnp.argmin(np.ones((0, 3), np.float32))
    assert jnp.argmax(np.ones((0, 3), np.float32), axis=1).shape == (0,)
    with pytest.raises(ValueError, match="zero-size array to reduction operation max"):
        jnp.max(np.ones((0, 3), np.float32))
    with pytest.raises(ValueError, match="zero-size array to reduction operation min"):
        jnp.nanmin(np.ones(0, np.float32))
    with pytest.raises(ValueError, match="to use a where mask one has to specify 'initial'"):
        jnp.max(x, where=np.ones((2, 3), bool))
    with pytest.raises(ValueError, match="where must be None or a boolean array"):
        jnp.sum(np.arange(3), where=np.array([1, 0, 1]))
    with pytest.raises(ValueError, match="where"):
        jnp.sum(x, axis=0, where=np.array([True, False]))
    with pytest.raises(ValueError, match="ddof and correction can't be provided simultaneously"):
        jnp.var(x, ddof=1, correction=1)
    with pytest.raises(ValueError, match="dtype argument to jnp.std must be inexact"):
        jnp.std(x, dtype=jnp.int32)
    with pytest.raises(NotImplementedError, match="'out' argument"):
        jnp.sum(x, out=x)
    with pytest.raises(TypeError, match="sum requires ndarray or scalar arguments"):
        jnp.sum([1, 2, 3])
    with pytest.raises(TypeError):
        jnp.ptp(np.ones(3, bool))
    with pytest.raises(ValueError, match="q must be have rank <= 1"):
        jnp.quantile(np.ones(3, np.float32), np.full((2, 2), 0.5, np.float32))
    with pytest.raises(ValueError, match="method can only be"):
        jnp.quantile(np.ones(3, np.float32), 0.5, method="foo")
    with pytest.raises(TypeError):
        lax.reduce_sum(np.ones(3, bool), (0,))
    with pytest.raises(ValueError, match="initial value must be a scalar"):
        jnp.sum(x, initial=np.ones(2, np.float32))
