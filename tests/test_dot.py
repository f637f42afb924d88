"""lax.dot_general / dot / batch_matmul / Precision and lax.conv_general_dilated: values against
NumPy references, dtypes and errors as JAX 0.10 gives them, and printed jaxprs copied from
``jax.make_jaxpr``."""

from __future__ import annotations

import importlib.util
import itertools
import json
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import spmd
from spmd import lax

RNG = np.random.RandomState(0)


def _f32(*shape):
    return RNG.randn(*shape).astype(np.float32)


def _i32(*shape):
    return RNG.randint(-50, 50, size=shape).astype(np.int32)


# Printed by jax.make_jaxpr (JAX 0.10.2) for the programs in test_jaxpr_text.
GOLDEN = {
    "dg_plain": """\
{ lambda ; a:f32[3,4] b:f32[4,5]. let
    c:f32[3,5] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b
  in (c,) }""",
    "dg_pref_batch": """\
{ lambda ; a:f32[2,3] b:f32[2,3]. let
    c:f32[2] = dot_general[
      dimension_numbers=(([1], [1]), ([0], [0]))
      preferred_element_type=float32
    ] a b
  in (c,) }""",
    "dg_prec": """\
{ lambda ; a:f32[3,4] b:f32[4,5]. let
    c:f32[3,5] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      precision=(Precision.HIGHEST, Precision.HIGHEST)
    ] a b
  in (c,) }""",
    "dg_prec_pair": """\
{ lambda ; a:f32[3,4] b:f32[4,5]. let
    c:f32[3,5] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      precision=(Precision.HIGHEST, Precision.DEFAULT)
    ] a b
  in (c,) }""",
    "dg_int_pref_f32": """\
{ lambda ; a:i32[3,4] b:i32[4,5]. let
    c:f32[3,5] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }""",
    "dg_mixed": """\
{ lambda ; a:u8[3] b:i8[3]. let
    c:i8[] = dot_general[dimension_numbers=(([0], [0]), ([], []))] a b
  in (c,) }""",
    "batch_matmul": """\
{ lambda ; a:f32[2,3,4] b:f32[2,4,5]. let
    c:f32[2,3,5] = dot_general[dimension_numbers=(([2], [1]), ([0], [0]))] a b
  in (c,) }""",
    "conv_same": """\
{ lambda ; a:f32[2,3,10] b:f32[4,3,3]. let
    c:f32[2,4,10] = conv_general_dilated[
      batch_group_count=1
      dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2), rhs_spec=(0, 1, 2), out_spec=(0, 1, 2))
      feature_group_count=1
      lhs_dilation=(1,)
      out_sharding=None
      padding=((1, 1),)
      precision=None
      preferred_element_type=None
      rhs_dilation=(1,)
      window_strides=(1,)
    ] a b
  in (c,) }""",  # noqa: E501
    "conv_nhwc": """\
{ lambda ; a:f32[2,10,12,3] b:f32[3,3,3,8]. let
    c:f32[2,5,10,8] = conv_general_dilated[
      batch_group_count=1
      dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
      feature_group_count=1
      lhs_dilation=(1, 1)
      out_sharding=None
      padding=((1, 0), (0, 2))
      precision=(Precision.HIGHEST, Precision.HIGHEST)
      preferred_element_type=float32
      rhs_dilation=(1, 2)
      window_strides=(2, 1)
    ] a b
  in (c,) }""",  # noqa: E501
}


def _ones(*shape, dtype=np.float32):
    return np.ones(shape, dtype)


JAXPR_PROGRAMS = {
    "dg_plain": (
        lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ()))),
        (_ones(3, 4), _ones(4, 5)),
    ),
    "dg_pref_batch": (
        lambda a, b: lax.dot_general(
            a, b, (((1,), (1,)), ((0,), (0,))), preferred_element_type=np.float32
        ),
        (_ones(2, 3), _ones(2, 3)),
    ),
    "dg_prec": (
        lambda a, b: lax.dot_general(
            a, b, (((1,), (0,)), ((), ())), precision=lax.Precision.HIGHEST
        ),
        (_ones(3, 4), _ones(4, 5)),
    ),
    "dg_prec_pair": (
        lambda a, b: lax.dot(a, b, precision=("highest", "default")),
        (_ones(3, 4), _ones(4, 5)),
    ),
    "dg_int_pref_f32": (
        lambda a, b: lax.dot_general(
            a, b, (((1,), (0,)), ((), ())), preferred_element_type=np.float32
        ),
        (_ones(3, 4, dtype=np.int32), _ones(4, 5, dtype=np.int32)),
    ),
    "dg_mixed": (
        lambda a, b: lax.dot_general(a, b, (((0,), (0,)), ((), ()))),
        (_ones(3, dtype=np.uint8), _ones(3, dtype=np.int8)),
    ),
    "batch_matmul": (lambda a, b: lax.batch_matmul(a, b), (_ones(2, 3, 4), _ones(2, 4, 5))),
    "conv_same": (
        lambda x, w: lax.conv_general_dilated(x, w, (1,), "SAME"),
        (_ones(2, 3, 10), _ones(4, 3, 3)),
    ),
    "conv_nhwc": (
        lambda x, w: lax.conv_general_dilated(
            x,
            w,
            (2, 1),
            [(1, 0), (0, 2)],
            rhs_dilation=(1, 2),
            dimension_numbers=("NHWC", "HWIO", "NHWC"),
            precision="highest",
            preferred_element_type=np.float32,
        ),
        (_ones(2, 10, 12, 3), _ones(3, 3, 3, 8)),
    ),
}


@pytest.mark.parametrize("name", sorted(JAXPR_PROGRAMS))
def test_jaxpr_text(name):
    fn, args = JAXPR_PROGRAMS[name]
    assert str(spmd.make_jaxpr(fn)(*args)) == GOLDEN[name]


# ---------------------------------------------------------------------------------------------
# dot_general values


DOT_CASES = [
    # lhs shape, rhs shape, dimension numbers, einsum spec of the same contraction
    ((3, 4), (4, 5), (((1,), (0,)), ((), ())), "ij,jk->ik"),
    ((4, 3), (4, 5), (((0,), (0,)), ((), ())), "ji,jk->ik"),
    ((3,), (3,), (((0,), (0,)), ((), ())), "i,i->"),
    ((3,), (4,), (((), ()), ((), ())), "i,j->ij"),
    ((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,))), "bij,bjk->bik"),
    ((2, 3, 4), (4, 2, 3, 5), (((1,), (2,)), ((0, 2), (1, 0))), "bjc,cbjk->bck"),
    ((2, 3, 4, 5), (5, 4, 6), (((2, 3), (1, 0)), ((), ())), "abij,jik->abk"),
    ((0, 4), (4, 5), (((1,), (0,)), ((), ())), "ij,jk->ik"),
    ((3, 0), (0, 5), (((1,), (0,)), ((), ())), "ij,jk->ik"),
]


@pytest.mark.parametrize("ls,rs,dn,spec", DOT_CASES)
def test_dot_general_values(ls, rs, dn, spec):
    a, b = _f32(*ls), _f32(*rs)
    got = lax.dot_general(a, b, dn)
    want = np.einsum(spec, a.astype(np.float64), b.astype(np.float64))
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-5)
    ai, bi = _i32(*ls), _i32(*rs)
    goti = lax.dot_general(ai, bi, dn)
    assert goti.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(goti), np.einsum(spec, ai, bi))
    jitted = spmd.jit(lambda x, y: lax.dot_general(x, y, dn))(a, b)
    np.testing.assert_array_equal(np.asarray(jitted), np.asarray(got))


def test_large_matmul_is_fast_and_right():
    a, b = _f32(300, 400), _f32(400, 200)
    got = np.asarray(lax.dot(a, b))
    np.testing.assert_allclose(got, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-3)


def test_int_wraps_in_result_type():
    x = np.array([100, 100], np.int8)
    y = np.array([2, 1], np.int8)
    dn = (((0,), (0,)), ((), ()))
    assert int(lax.dot_general(x, y, dn)) == 44  # 300 wraps in int8
    r = lax.dot_general(x, y, dn, preferred_element_type=np.int32)
    assert r.dtype == np.int32 and int(r) == 300
    r = lax.dot_general(x, y, dn, preferred_element_type=np.float32)
    assert r.dtype == np.float32 and float(r) == 300.0


def test_mixed_operand_types_convert_to_result_type():
    dn = (((0,), (0,)), ((), ()))
    # u8 x i8 -> i8: 200 becomes -56 first (JAX gives 44).
    r = lax.dot_general(np.array([200, 100], np.uint8), np.array([1, 1], np.int8), dn)
    assert r.dtype == np.int8 and int(r) == 44
    r = lax.dot_general(
        np.array([200, 100], np.uint8),
        np.array([1, 1], np.int8),
        dn,
        preferred_element_type=np.int16,
    )
    assert r.dtype == np.int16 and int(r) == 300
    # f32 x i32 with an int32 result converts the floats first (2*2 + 1*1); equal float
    # types compute in float and truncate at the end (6.9 -> 6).
    f = np.array([2.7, 1.5], np.float32)
    r = lax.dot_general(f, np.array([2, 1], np.int32), dn, preferred_element_type=np.int32)
    assert r.dtype == np.int32 and int(r) == 5
    r = lax.dot_general(f, np.array([2, 1], np.float32), dn, preferred_element_type=np.int32)
    assert int(r) == 6
    r = lax.dot_general(f, np.array([2, 1], np.int32), dn)
    assert r.dtype == np.float32 and abs(float(r) - 6.9) < 1e-6


def test_bool_dot():
    dn = (((0,), (0,)), ((), ()))
    t, f = np.array([True, False]), np.array([True, True])
    r = lax.dot_general(t, f, dn)
    assert r.dtype == np.bool_ and bool(r) is True
    assert bool(lax.dot_general(np.array([False, False]), f, dn)) is False
    r = lax.dot_general(f, f, dn, preferred_element_type=np.int32)
    assert r.dtype == np.int32 and int(r) == 2


def test_16_bit_floats_accumulate_in_float32():
    x = RNG.randn(64).astype(ml_dtypes.bfloat16)
    dn = (((0,), (0,)), ((), ()))
    r = lax.dot_general(x, x, dn)
    assert r.dtype == ml_dtypes.bfloat16
    exact32 = np.dot(x.astype(np.float32), x.astype(np.float32))
    assert np.asarray(r) == exact32.astype(ml_dtypes.bfloat16)
    r32 = lax.dot_general(x, x, dn, preferred_element_type=np.float32)
    assert r32.dtype == np.float32
    np.testing.assert_allclose(float(r32), exact32, rtol=1e-6)


# (lhs dtype, rhs dtype, preferred) -> result dtype, as JAX 0.10 gives them.
DTYPE_CASES = [
    ("float32", "int32", None, "float32"),
    ("float32", "bfloat16", None, "float32"),
    ("uint8", "int8", None, "int8"),
    ("float16", "bfloat16", None, "bfloat16"),
    ("int32", "bool", None, "int32"),
    ("complex64", "float32", None, "complex64"),
    ("bool", "bool", None, "bool"),
    ("bfloat16", "bfloat16", "float32", "float32"),
    ("float32", "float32", "bfloat16", "bfloat16"),
    ("float32", "float32", "int8", "int8"),
    ("float32", "int32", "int32", "int32"),
    ("int8", "int8", "float16", "float16"),
    ("int32", "int32", "uint32", "uint32"),
    ("bool", "bool", "int8", "int8"),
    ("int32", "int32", "float64", "float32"),  # canonicalized with x64 off
]


@pytest.mark.parametrize("ld,rd,pref,want", DTYPE_CASES)
def test_result_dtypes(ld, rd, pref, want):
    dt = {"bfloat16": ml_dtypes.bfloat16}
    a = np.ones(3, dt.get(ld, ld))
    b = np.ones(3, dt.get(rd, rd))
    if pref in (None, want):
        r = lax.dot_general(a, b, (((0,), (0,)), ((), ())), preferred_element_type=pref)
    else:  # a 64-bit request with x64 off warns that it is truncated, as JAX does
        with pytest.warns(UserWarning, match="float64 was requested.*truncated to float32"):
            r = lax.dot_general(a, b, (((0,), (0,)), ((), ())), preferred_element_type=pref)
    assert np.dtype(r.dtype).name == want


@pytest.mark.parametrize("pref", ["int8", "float16", "bfloat16", "bool"])
def test_preferred_narrower_than_int_result(pref):
    dt = ml_dtypes.bfloat16 if pref == "bfloat16" else pref
    a = np.ones(3, np.int32)
    with pytest.raises(TypeError, match="must not be narrower than the original type"):
        lax.dot_general(a, a, (((0,), (0,)), ((), ())), preferred_element_type=dt)


def test_weak_type_only_when_both_weak():
    dn = (((), ()), ((), ()))
    r = lax.dot_general(2.0, 3.0, dn)
    assert r.weak_type and r.dtype == np.float32 and float(r) == 6.0
    r = lax.dot_general(np.float32(2.0), 3.0, dn)
    assert not r.weak_type


ERRORS = [
    (
        (3, 3),
        (4, 5),
        (((1,), (0,)), ((), ())),
        "dot_general requires contracting dimensions to have the same shape, got (3,) and (4,).",
    ),
    (
        (3, 4),
        (4, 5),
        (((1,), (0,)), ((0,), (0,))),
        "dot_general requires rhs batch dimensions to be disjoint from contracting dimensions, "
        "got rhs_batch (0,) and rhs_contracting (0,).",
    ),
    (
        (3, 4),
        (2, 4),
        (((1,), (1,)), ((0,), (0,))),
        "dot_general requires lhs batch dimensions and rhs batch dimensions to have the same "
        "shape, got (3,) and (2,).",
    ),
    (
        (3, 4),
        (4, 5),
        (((5,), (0,)), ((), ())),
        "dot_general requires lhs dimension numbers to be nonnegative and less than the number "
        "of axes of the lhs value, got lhs_batch of () and lhs_contracting of (5,) for lhs of "
        "rank 2",
    ),
    (
        (3, 4),
        (4, 4),
        (((1, 1), (0, 1)), ((), ())),
        "dot_general requires lhs contracting dimensions to be distinct, got lhs_contracting "
        "(1, 1).",
    ),
    (
        (2, 3, 4),
        (2, 4, 5),
        (((2,), (1,)), ((0, 1), (0,))),
        "dot_general requires equal numbers of lhs_batch and rhs_batch dimensions, got "
        "lhs_batch (0, 1) and rhs_batch (0,).",
    ),
    (
        (3, 4),
        (4, 4),
        (((1,), (0, 1)), ((), ())),
        "dot_general requires contracting dimensions to have the same shape, got (4,) and (4, 4).",
    ),
]


@pytest.mark.parametrize("ls,rs,dn,msg", ERRORS)
def test_dot_general_errors(ls, rs, dn, msg):
    with pytest.raises(TypeError) as e:
        lax.dot_general(np.ones(ls, np.float32), np.ones(rs, np.float32), dn)
    assert str(e.value) == msg
    # The same check runs while tracing.
    with pytest.raises(TypeError):
        spmd.make_jaxpr(lambda a, b: lax.dot_general(a, b, dn))(
            np.ones(ls, np.float32), np.ones(rs, np.float32)
        )


def test_lax_dot():
    a, v = _f32(3, 4), _f32(4)
    np.testing.assert_allclose(np.asarray(lax.dot(a, v)), a @ v, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(lax.dot(v, v)), v @ v, rtol=1e-5)
    b = _f32(2, 3, 4)
    dn = (((2,), (1,)), ((0,), (0,)))
    c = _f32(2, 4, 5)
    np.testing.assert_allclose(
        np.asarray(lax.dot(b, c, dimension_numbers=dn)), b @ c, rtol=1e-5, atol=1e-6
    )
    for x, y in [(a, _f32(5)), (_f32(3, 4, 2), _f32(2, 5)), (np.float32(1), a)]:
        with pytest.raises(ValueError, match="dimension_numbers must be specified"):
            lax.dot(x, y)


def test_batch_matmul():
    a, b = _f32(2, 3, 4), _f32(2, 4, 5)
    np.testing.assert_allclose(np.asarray(lax.batch_matmul(a, b)), a @ b, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="must have same ndim, got 3, 2"):
        lax.batch_matmul(a, _f32(4, 5))
    with pytest.raises(TypeError, match="batch dimensions"):
        lax.batch_matmul(a, _f32(3, 4, 5))


def test_precision():
    P = lax.Precision
    assert list(P) == [P.DEFAULT, P.HIGH, P.HIGHEST]
    assert P("highest") is P.HIGHEST and P("float32") is P.HIGHEST
    assert P("tensorfloat32") is P.HIGH and P("bfloat16") is P.DEFAULT
    assert repr(P.HIGHEST) == "Precision.HIGHEST" and str(P.HIGHEST) == "HIGHEST"
    with pytest.raises(ValueError):
        lax.dot(np.ones(3, np.float32), np.ones(3, np.float32), precision="bogus")


def test_precision_spellings_are_exact_and_none_is_default():
    # jax: Precision(None) is DEFAULT; Precision('HIGHEST') and dot(precision='HIGHEST') are
    # ValueErrors (the names are lower case), and so is a pair holding None, even (None, None).
    P = lax.Precision
    assert P(None) is P.DEFAULT and P(2) is P.HIGHEST
    with pytest.raises(ValueError, match="'HIGHEST' is not a valid Precision"):
        P("HIGHEST")
    x = np.ones(3, np.float32)
    for bad in ["HIGHEST", ("HIGHEST", "high"), ("highest", None), (None, None)]:
        with pytest.raises(ValueError, match=r"dot_general: precision must be None, a "):
            lax.dot(x, x, precision=bad)
    assert float(lax.dot(x, x, precision=("highest", P.HIGH))) == 3.0


# ---------------------------------------------------------------------------------------------
# conv_general_dilated


def _ref_conv(x, w, strides, padding, lhs_dil, rhs_dil, fg=1, bg=1):
    """Direct convolution in (N, C, spatial) / (O, I, spatial) layout, one kernel tap at a
    time, in float64."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    nsp = x.ndim - 2
    shape = x.shape[:2] + tuple((n - 1) * d + 1 for n, d in zip(x.shape[2:], lhs_dil))
    xd = np.zeros(shape)
    xd[(slice(None), slice(None), *(slice(None, None, d) for d in lhs_dil))] = x
    for k, (lo, hi) in enumerate(padding):
        ax = 2 + k
        if lo < 0:
            xd = np.take(xd, range(-lo, xd.shape[ax]), axis=ax)
        elif lo:
            xd = np.concatenate([np.zeros(xd.shape[:ax] + (lo,) + xd.shape[ax + 1 :]), xd], ax)
        if hi < 0:
            xd = np.take(xd, range(0, xd.shape[ax] + hi), axis=ax)
        elif hi:
            xd = np.concatenate([xd, np.zeros(xd.shape[:ax] + (hi,) + xd.shape[ax + 1 :])], ax)
    ks = w.shape[2:]
    eff = [(k - 1) * d + 1 for k, d in zip(ks, rhs_dil)]
    out_sp = [max(0, (xd.shape[2 + i] - eff[i]) // strides[i] + 1) for i in range(nsp)]
    n, c = x.shape[:2]
    o = w.shape[0]
    out = np.zeros((n // bg, o, *out_sp))
    for tap in itertools.product(*(range(k) for k in ks)):
        sl = tuple(
            slice(t * d, t * d + s * (m - 1) + 1, s)
            for t, d, s, m in zip(tap, rhs_dil, strides, out_sp)
        )
        patch = xd[(slice(None), slice(None), *sl)]  # (N, C, out...)
        wt = w[(slice(None), slice(None), *tap)]  # (O, I)
        for g in range(fg):
            cg, og = c // fg, o // fg
            for b in range(bg):
                nb, ob = n // bg, o // bg
                rows = slice(b * nb, (b + 1) * nb) if bg > 1 else slice(None)
                outs = slice(b * ob, (b + 1) * ob) if bg > 1 else slice(g * og, (g + 1) * og)
                p = patch[rows, g * cg : (g + 1) * cg]
                out[:, outs] += np.einsum("nc...,oc->no...", p, wt[outs])
    return out


CONV_CASES = [
    # lhs (N, C, spatial), rhs (O, I, spatial), strides, padding, lhs_dil, rhs_dil, fg, bg
    ((2, 3, 10), (4, 3, 3), (1,), [(1, 1)], (1,), (1,), 1, 1),
    ((2, 3, 10), (4, 3, 3), (2,), [(1, 2)], (2,), (1,), 1, 1),
    ((2, 3, 11), (4, 3, 3), (3,), [(-2, 1)], (1,), (2,), 1, 1),
    ((2, 2, 7, 6), (3, 2, 2, 3), (2, 1), [(1, 0), (2, 3)], (2, 3), (1, 2), 1, 1),
    ((2, 6, 10), (9, 2, 3), (1,), [(0, 0)], (1,), (1,), 3, 1),
    ((4, 3, 10), (6, 3, 3), (1,), [(0, 0)], (1,), (1,), 1, 2),
    (
        (1, 2, 4, 5, 6),
        (3, 2, 2, 3, 2),
        (1, 2, 1),
        [(0, 1), (1, 1), (1, 0)],
        (1, 1, 1),
        (1, 1, 2),
        1,
        1,
    ),
    ((2, 3), (4, 3), (), [], (), (), 1, 1),
    ((2, 3, 4), (4, 3, 6), (1,), [(0, 0)], (1,), (1,), 1, 1),
]


@pytest.mark.parametrize("xs,ws,strides,padding,ld,rd,fg,bg", CONV_CASES)
def test_conv_values(xs, ws, strides, padding, ld, rd, fg, bg):
    x, w = _f32(*xs), _f32(*ws)
    got = lax.conv_general_dilated(
        x, w, strides, padding, ld, rd, feature_group_count=fg, batch_group_count=bg
    )
    want = _ref_conv(x, w, strides, padding, ld, rd, fg, bg)
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)
    jitted = spmd.jit(
        lambda a, b: lax.conv_general_dilated(
            a, b, strides, padding, ld, rd, feature_group_count=fg, batch_group_count=bg
        )
    )(x, w)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(got), rtol=1e-6, atol=1e-6)


def test_conv_layouts():
    x, w = _f32(2, 10, 12, 3), _f32(3, 2, 3, 8)  # NHWC, HWIO
    got = lax.conv_general_dilated(
        x, w, (2, 1), "SAME", rhs_dilation=(1, 2), dimension_numbers=("NHWC", "HWIO", "NCHW")
    )
    pads = lax.padtype_to_pads((10, 12), (3, 3), (2, 1), "SAME")  # kernel (3, 2) dilated
    want = _ref_conv(x.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1), (2, 1), pads, (1, 1), (1, 2))
    assert got.shape == (2, 8, 5, 12)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-4, atol=1e-4)
    # Spatial dimensions are matched by letter: W before H in the input.
    got2 = lax.conv_general_dilated(
        x.transpose(0, 2, 1, 3),
        w,
        (2, 1),
        "SAME",
        rhs_dilation=(1, 2),
        dimension_numbers=("NWHC", "HWIO", "NCHW"),
    )
    np.testing.assert_allclose(np.asarray(got2), np.asarray(got), rtol=1e-6)


def test_conv_dimension_numbers_and_pads():
    cdn = lax.conv_dimension_numbers
    assert cdn((1, 5, 6, 3), (3, 3, 3, 8), ("NHWC", "HWIO", "NHWC")) == (
        (0, 3, 1, 2),
        (3, 2, 0, 1),
        (0, 3, 1, 2),
    )
    assert cdn((1, 5, 6, 3), (3, 3, 3, 8), ("NWHC", "HWIO", "NCWH")) == (
        (0, 3, 2, 1),
        (3, 2, 0, 1),
        (0, 1, 3, 2),
    )
    assert cdn((2, 3, 10), (4, 3, 3), None) == ((0, 1, 2),) * 3
    assert isinstance(cdn((2, 3, 10), (4, 3, 3), None), lax.ConvDimensionNumbers)
    assert lax.padtype_to_pads((10,), (4,), (1,), "SAME") == [(1, 2)]
    assert lax.padtype_to_pads((10,), (4,), (1,), "SAME_LOWER") == [(2, 1)]
    assert lax.padtype_to_pads((11,), (3,), (2,), "SAME") == [(1, 1)]
    assert lax.padtype_to_pads((11,), (3,), (2,), "VALID") == [(0, 0)]


def test_conv_wrappers_and_dtypes():
    x, w = _f32(2, 3, 10), _f32(4, 3, 3)
    np.testing.assert_allclose(
        np.asarray(lax.conv(x, w, (1,), "VALID")),
        _ref_conv(x, w, (1,), [(0, 0)], (1,), (1,)),
        rtol=1e-4,
        atol=1e-4,
    )
    np.testing.assert_allclose(
        np.asarray(lax.conv_with_general_padding(x, w, (2,), [(1, 0)], (2,), (2,))),
        _ref_conv(x, w, (2,), [(1, 0)], (2,), (2,)),
        rtol=1e-4,
        atol=1e-4,
    )
    xi, wi = _i32(2, 3, 10), _i32(4, 3, 3)
    r = lax.conv_general_dilated(xi, wi, (1,), "SAME")
    assert r.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(r), _ref_conv(xi, wi, (1,), [(1, 1)], (1,), (1,)))
    r = lax.conv_general_dilated(
        xi.astype(np.int8), wi.astype(np.int8), (1,), "SAME", preferred_element_type=np.float32
    )
    assert r.dtype == np.float32
    xb, wb = xi > 0, wi > 0
    r = lax.conv_general_dilated(xb, wb, (1,), "VALID")
    assert r.dtype == np.bool_
    np.testing.assert_array_equal(np.asarray(r), _ref_conv(xb, wb, (1,), [(0, 0)], (1,), (1,)) > 0)
    r = lax.conv_general_dilated(
        x.astype(ml_dtypes.bfloat16), w.astype(ml_dtypes.bfloat16), (1,), "SAME"
    )
    assert r.dtype == ml_dtypes.bfloat16


CONV_ERRORS = [
    (
        dict(rhs=np.ones((4, 3, 3), np.int32)),
        TypeError,
        "requires arguments to have the same dtypes",
    ),
    (dict(rhs=np.ones((4, 2, 3), np.float32)), ValueError, "but 3 // 1 != 2"),
    (dict(strides=(1, 1)), ValueError, "window_strides must have the same number of dimensions"),
    (
        dict(padding=[(1, 1), (1, 1)]),
        TypeError,
        "Wrong number of explicit pads for convolution: expected 1, got 2.",
    ),
    (dict(rhs_dilation=(0,)), TypeError, r"All dilations must be positive, got \(0,\)."),
    (dict(padding="BAD"), RuntimeError, "Unrecognized padding type"),
    (dict(padding="SAME", lhs_dilation=(2,)), ValueError, "String padding is not implemented"),
    (dict(rhs=np.ones((4, 3, 3, 1), np.float32)), TypeError, "ndim to be equal, got 3 and 4"),
    (
        dict(dimension_numbers=("NCHW", "OIHW", "NCHW")),
        TypeError,
        r"dimension_numbers\[0\] must have len",
    ),
    (
        dict(rhs=np.ones((4, 1, 3), np.float32), feature_group_count=3),
        ValueError,
        "4 is not a multiple of 3",
    ),
    (
        dict(
            lhs=np.ones((4, 3, 10), np.float32),
            rhs=np.ones((6, 3, 3), np.float32),
            batch_group_count=4,
        ),
        ValueError,
        "6 is not a multiple of 4",
    ),
    (dict(preferred_element_type=ml_dtypes.bfloat16), TypeError, "must not be narrower"),
    # jax: ValueError (XLA's verifier: "expects window to have positive stride"), with 'SAME'
    # padding too, whose pads divide by the strides
    (dict(strides=(0,)), ValueError, r"window_strides must be positive, got \(0,\)"),
    (dict(strides=(0,), padding="VALID"), ValueError, "window_strides must be positive"),
]


@pytest.mark.parametrize("kw,err,msg", CONV_ERRORS)
def test_conv_errors(kw, err, msg):
    args = dict(
        lhs=np.ones((2, 3, 10), np.float32),
        rhs=np.ones((4, 3, 3), np.float32),
        strides=(1,),
        padding="SAME",
    )
    args.update(kw)
    lhs, rhs, strides, padding = (args.pop(k) for k in ("lhs", "rhs", "strides", "padding"))
    with pytest.raises(err, match=msg):
        lax.conv_general_dilated(lhs, rhs, strides, padding, **args)


# ---------------------------------------------------------------------------------------------
# Summation order: bit-exact against JAX 0.10 on CPU (tests/golden_gen/dot_order_gen.py)

_GEN_PATH = Path(__file__).parent / "golden_gen" / "dot_order_gen.py"
_spec = importlib.util.spec_from_file_location("dot_order_gen", _GEN_PATH)
dot_order_gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dot_order_gen)
DOT_ORDER = json.loads((Path(__file__).parent / "golden" / "dot_order.json").read_text())


def _golden_value(case: dict) -> np.ndarray:
    dt = np.dtype(case["dtype"])
    u = np.uint32 if dt == np.float32 else np.uint64
    return np.asarray(case["bits"], u).view(dt).reshape(case["shape"])


def _case_id(i: int) -> str:
    name, dtype, shapes = dot_order_gen.CASES[i]
    return f"{name}-{dtype}-{'x'.join(str(s) for s in shapes[0])}"


@pytest.mark.parametrize("i", range(len(dot_order_gen.CASES)), ids=_case_id)
def test_dot_summation_order_is_jax_bit_for_bit(i):
    name, dtype, shapes = dot_order_gen.CASES[i]
    case = DOT_ORDER["cases"][i]
    assert (case["program"], case["dtype"]) == (name, dtype), "regenerate dot_order.json"
    old = spmd.config.jax_enable_x64
    spmd.config.update("jax_enable_x64", True)
    try:
        progs = dot_order_gen.programs(spmd, spmd.numpy, lax)
        got = np.asarray(progs[name.split("#")[0]](*dot_order_gen.operands(i, name, dtype, shapes)))
    finally:
        spmd.config.update("jax_enable_x64", old)
    want = _golden_value(case)
    assert got.dtype == want.dtype and got.shape == want.shape
    u = np.uint32 if want.dtype == np.float32 else np.uint64
    differ = np.nonzero(got.view(u).ravel() != want.view(u).ravel())[0]
    assert differ.size == 0, (
        f"{differ.size} of {want.size} outputs differ from JAX, first at {differ[:5]}: "
        f"got {got.ravel()[differ[:5]]}, JAX {want.ravel()[differ[:5]]}"
    )


def test_dot_negzero_products_sum_to_plus_zero():
    # Every order starts its sums from +0, so products that are all -0 sum to +0 (NumPy's
    # pairwise sum of the products would keep -0).
    for shape in [(8, 3), (2048, 3), (40, 40)]:
        a = np.full(shape, -0.0, np.float32)
        out = np.asarray(spmd.vmap(spmd.numpy.vdot)(a, np.ones(shape, np.float32)))
        assert not np.signbit(out).any(), shape


def test_fma_emulation_is_correctly_rounded():
    from fractions import Fraction

    from spmd._src.lax.dot import _fma64
    from spmd._src.lax.random_bits import fma32 as _fma32

    rng = np.random.RandomState(7)
    # float32: 12-bit significands make the exact products short, and c cancels the rounded
    # product, so many sums land on or next to float32 midpoints.
    n = 400
    a = rng.randint(2**11, 2**12, n).astype(np.float32) + np.float32(0.5)
    b = rng.randint(2**11, 2**12, n).astype(np.float32) * np.float32(2.0**-13)
    p32 = (a.astype(np.float64) * b).astype(np.float32)
    c = -p32.astype(np.float64) + rng.choice([-1, 1], n) * 2.0 ** -rng.randint(20, 60, n)
    c = c.astype(np.float32)
    # And sums that float64 rounds onto a float32 midpoint: (1 + 2**-18) * (1 - 2**-18) * 2**-24
    # + (1 + 2**-23) is 1 + 2**-23 + 2**-24 - 2**-60, whose float64 rounding is the midpoint
    # and ties away from the right answer 1 + 2**-23; scaled and signed variants.
    e = rng.randint(-20, 20, 40).astype(np.float32)
    sign = rng.choice([-1, 1], 40).astype(np.float32)
    a = np.concatenate([a, sign * np.float32(1 + 2**-18) * np.float32(2.0) ** e])
    b = np.concatenate([b, np.full(40, (1 - 2**-18) * 2**-24, np.float32)])
    c = np.concatenate([c, sign * np.float32(1 + 2**-23) * np.float32(2.0) ** e])
    n += 40
    got = _fma32(a, b, c)
    assert (got[-40:] == c[-40:]).all()
    for i in range(n):
        exact = Fraction(float(a[i])) * Fraction(float(b[i])) + Fraction(float(c[i]))
        g = got[i]
        lo, hi = np.nextafter(g, np.float32(-np.inf)), np.nextafter(g, np.float32(np.inf))
        err = abs(Fraction(float(g)) - exact)
        assert err <= abs(Fraction(float(lo)) - exact) and err <= abs(Fraction(float(hi)) - exact)
    # float64: 27-bit integers give 54-bit products, so sums with integers c often tie.
    x = rng.randint(2**26, 2**27, n).astype(np.float64)
    y = rng.randint(2**26, 2**27, n).astype(np.float64)
    z = rng.randint(-(2**40), 2**40, n).astype(np.float64) + 0.5
    got = _fma64(x, y, z)
    want = [float(Fraction(x[i]) * Fraction(y[i]) + Fraction(z[i])) for i in range(n)]
    assert got.tolist() == want


def test_long_vector_dots_run_in_row_blocks_with_the_same_bits():
    # More rows than one block: the blocked multiply + reduce equals the whole-array one.
    from spmd._src.lax import dot as dot_module

    rng = np.random.default_rng(7)
    rows = 2 * dot_module._ROW_BLOCK + 123
    for k in (3, 20):
        a = rng.standard_normal((rows, k)).astype(np.float32)
        b = rng.standard_normal((rows, k)).astype(np.float32)
        a[::5] = -0.0
        got = np.asarray(spmd.vmap(spmd.numpy.vdot)(a, b))
        want = dot_module._lane_sum(a * b, 16)
        assert got.tobytes() == want.tobytes(), k
