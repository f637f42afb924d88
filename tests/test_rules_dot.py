"""Transformation rules of ``dot_general`` and ``conv_general_dilated``: batching (against a
per-slice loop, and the jaxprs JAX 0.10.2 prints for vmapped products), forward mode (against
central finite differences in float64) and transposition (reverse mode, checked by the identity
<ct, J t> = <J^T ct, t> with J t from finite differences), and their use through jnp.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax

F32 = np.float32
BF16 = ml_dtypes.bfloat16


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def _flat(outs) -> np.ndarray:
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    return np.concatenate([np.asarray(o, np.float64).ravel() for o in outs])


def check_derivatives(f, args, seed: int = 0, eps: float = 1e-6, tol: float = 1e-7) -> None:
    """jvp of ``f`` against central differences along random tangents, and its vjp by
    <ct, J t> == <vjp(ct), t> (float64 inputs)."""
    rng = _rng(seed)
    ts = [rng.standard_normal(np.shape(a)) for a in args]
    plus = _flat(f(*[a + eps * t for a, t in zip(args, ts)]))
    minus = _flat(f(*[a - eps * t for a, t in zip(args, ts)]))
    fd = (plus - minus) / (2 * eps)
    _, t_out = spmd.jvp(f, tuple(args), tuple(ts))
    np.testing.assert_allclose(_flat(t_out), fd, rtol=tol, atol=tol * (1 + np.abs(fd).max()))
    out, pullback = spmd.vjp(f, *args)
    ct = rng.standard_normal(np.shape(out))
    cts_in = pullback(ct)
    lhs = float(np.sum(ct.ravel() * fd))
    rhs = sum(float(np.sum(np.asarray(c) * t)) for c, t in zip(cts_in, ts))
    assert abs(lhs - rhs) <= tol * (1 + abs(lhs)), (lhs, rhs)


def check_vmap(f, args, in_axes, size: int = 3) -> None:
    """``spmd.vmap(f, in_axes)`` against ``f`` on each slice, stacked."""
    got = np.asarray(spmd.vmap(f, in_axes=in_axes)(*args))
    rows = []
    for k in range(size):
        ins = [a if ax is None else np.take(a, k, axis=ax) for a, ax in zip(args, in_axes)]
        rows.append(np.asarray(f(*ins)))
    np.testing.assert_allclose(got, np.stack(rows), rtol=1e-5, atol=1e-5)


def _eqns(closed) -> list[tuple]:
    """(primitive, printed params, output shapes) of each equation of a jaxpr."""
    out = []
    for e in closed.jaxpr.eqns:
        params = {k: str(v) for k, v in e.params.items() if v is not None}
        out.append((e.primitive.name, params, [tuple(v.aval.shape) for v in e.outvars]))
    return out


# ---------------------------------------------------------------------------------------------
# dot_general: batching


VDOT_JAXPR = """\
{ lambda ; a:f32[8,3] b:f32[8,3]. let
    c:f32[8] = dot_general[
      dimension_numbers=(([1], [1]), ([0], [0]))
      preferred_element_type=float32
    ] a b
  in (c,) }"""


def test_vmap_vdot_prints_as_jax():
    def dot(v1, v2):
        return jnp.vdot(v1, v2)

    v = np.ones((8, 3), F32)
    assert str(spmd.make_jaxpr(spmd.vmap(dot))(v, v)) == VDOT_JAXPR


def _dg(dn):
    return lambda a, b: lax.dot_general(a, b, dn)


_CONTRACT = (((1,), (0,)), ((), ()))

# Printed by jax.make_jaxpr(jax.vmap(fn, in_axes))(*args) in JAX 0.10.2.
VMAP_JAXPRS = {
    "vdot_lhs": (
        jnp.vdot,
        (0, None),
        [(8, 3), (3,)],
        """\
{ lambda ; a:f32[8,3] b:f32[3]. let
    c:f32[8] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }""",
    ),
    "vdot_rhs": (
        jnp.vdot,
        (None, 0),
        [(3,), (8, 3)],
        """\
{ lambda ; a:f32[3] b:f32[8,3]. let
    c:f32[8] = dot_general[
      dimension_numbers=(([0], [1]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }""",
    ),
    "vdot_axis1": (
        jnp.vdot,
        (1, 1),
        [(3, 8), (3, 8)],
        """\
{ lambda ; a:f32[3,8] b:f32[3,8]. let
    c:f32[8] = dot_general[
      dimension_numbers=(([0], [0]), ([1], [1]))
      preferred_element_type=float32
    ] a b
  in (c,) }""",
    ),
    "matmul_lhs": (
        jnp.matmul,
        (0, None),
        [(8, 3, 4), (4, 5)],
        """\
{ lambda ; a:f32[8,3,4] b:f32[4,5]. let
    c:f32[8,3,5] = dot_general[
      dimension_numbers=(([2], [0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }""",
    ),
    "matmul_rhs": (
        jnp.matmul,
        (None, 0),
        [(3, 4), (8, 4, 5)],
        """\
{ lambda ; a:f32[3,4] b:f32[8,4,5]. let
    c:f32[3,8,5] = dot_general[
      dimension_numbers=(([1], [1]), ([], []))
      preferred_element_type=float32
    ] a b
    d:f32[8,3,5] = transpose[permutation=(1, 0, 2)] c
  in (d,) }""",
    ),
    "matmul_both": (
        jnp.matmul,
        (0, 0),
        [(8, 3, 4), (8, 4, 5)],
        """\
{ lambda ; a:f32[8,3,4] b:f32[8,4,5]. let
    c:f32[8,3,5] = dot_general[
      dimension_numbers=(([2], [1]), ([0], [0]))
      preferred_element_type=float32
    ] a b
  in (c,) }""",
    ),
    "matmul_axes_1_2": (
        jnp.matmul,
        (1, 2),
        [(3, 8, 4), (4, 5, 8)],
        """\
{ lambda ; a:f32[3,8,4] b:f32[4,5,8]. let
    c:f32[8,3,5] = dot_general[
      dimension_numbers=(([2], [0]), ([1], [2]))
      preferred_element_type=float32
    ] a b
  in (c,) }""",
    ),
    "matvec": (
        jnp.matmul,
        (None, 0),
        [(3, 4), (8, 4)],
        """\
{ lambda ; a:f32[3,4] b:f32[8,4]. let
    c:f32[3,8] = dot_general[
      dimension_numbers=(([1], [1]), ([], []))
      preferred_element_type=float32
    ] a b
    d:f32[8,3] = transpose[permutation=(1, 0)] c
  in (d,) }""",
    ),
    "dot_general_batch_dims": (
        _dg((((2,), (1,)), ((0,), (0,)))),
        (1, 0),
        [(2, 8, 3, 4), (8, 2, 4, 5)],
        """\
{ lambda ; a:f32[2,8,3,4] b:f32[8,2,4,5]. let
    c:f32[8,2,3,5] = dot_general[
      dimension_numbers=(([3], [2]), ([1, 0], [0, 1]))
    ] a b
  in (c,) }""",
    ),
    "dot_general_rhs_middle": (
        _dg(_CONTRACT),
        (None, 1),
        [(3, 4), (4, 8, 5)],
        """\
{ lambda ; a:f32[3,4] b:f32[4,8,5]. let
    c:f32[3,8,5] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b
    d:f32[8,3,5] = transpose[permutation=(1, 0, 2)] c
  in (d,) }""",
    ),
    "dot_general_lhs_last": (
        _dg(_CONTRACT),
        (2, None),
        [(3, 4, 8), (4, 5)],
        """\
{ lambda ; a:f32[3,4,8] b:f32[4,5]. let
    c:f32[3,8,5] = dot_general[dimension_numbers=(([1], [0]), ([], []))] a b
    d:f32[8,3,5] = transpose[permutation=(1, 0, 2)] c
  in (d,) }""",
    ),
    "einsum": (
        lambda a, b: jnp.einsum("ij,jk->ik", a, b),
        (0, 0),
        [(8, 3, 4), (8, 4, 5)],
        """\
{ lambda ; a:f32[8,3,4] b:f32[8,4,5]. let
    c:f32[8,3,5] = dot_general[
      dimension_numbers=(([2], [1]), ([0], [0]))
      preferred_element_type=float32
    ] a b
  in (c,) }""",
    ),
}


@pytest.mark.parametrize("name", sorted(VMAP_JAXPRS))
def test_vmap_jaxpr_as_jax(name):
    fn, in_axes, shapes, want = VMAP_JAXPRS[name]
    args = [np.ones(s, F32) for s in shapes]
    assert str(spmd.make_jaxpr(spmd.vmap(fn, in_axes=in_axes))(*args)) == want


DOT_CASES = [
    ((3,), (3,), (((0,), (0,)), ((), ()))),
    ((2, 3), (3, 4), (((1,), (0,)), ((), ()))),
    ((2, 3), (4, 3), (((1,), (1,)), ((), ()))),
    ((5, 2, 3), (5, 3, 4), (((2,), (1,)), ((0,), (0,)))),
    ((3, 2, 5), (5, 4, 3), (((0,), (2,)), ((2,), (0,)))),
    ((2, 3), (4,), (((), ()), ((), ()))),
    ((2, 3, 4), (4, 3, 5), (((1, 2), (1, 0)), ((), ()))),
]


@pytest.mark.parametrize("case", range(len(DOT_CASES)))
def test_dot_general_vmap_matches_loop(case):
    ls, rs, dn = DOT_CASES[case]
    rng = _rng(case)
    f = _dg(dn)
    for la, ra in [(0, None), (None, 0), (0, 0), (len(ls), len(rs)), (None, len(rs)), (1, 0)]:
        lshape = ls if la is None else ls[:la] + (3,) + ls[la:]
        rshape = rs if ra is None else rs[:ra] + (3,) + rs[ra:]
        args = [rng.standard_normal(lshape).astype(F32), rng.standard_normal(rshape).astype(F32)]
        check_vmap(f, args, (la, ra))


def test_dot_general_vmap_keeps_params():
    # preferred_element_type and integer operands pass through the batching rule.
    x = np.arange(24, dtype=np.int8).reshape(3, 2, 4)
    y = np.arange(20, dtype=np.int8).reshape(4, 5)
    f = lambda a, b: lax.dot_general(a, b, _CONTRACT, preferred_element_type=np.int32)
    out = spmd.vmap(f, in_axes=(0, None))(x, y)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, np.einsum("bij,jk->bik", x.astype(np.int32), y))


# ---------------------------------------------------------------------------------------------
# dot_general: derivatives


@pytest.mark.parametrize("case", range(len(DOT_CASES)))
def test_dot_general_derivatives(case, x64):
    ls, rs, dn = DOT_CASES[case]
    rng = _rng(10 + case)
    args = [rng.standard_normal(ls), rng.standard_normal(rs)]
    check_derivatives(_dg(dn), args, seed=case)


def test_dot_general_second_order(x64):
    x = _rng(1).standard_normal((3, 4))
    h = spmd.hessian(lambda w: lax.dot_general(w, w, (((1,), (1,)), ((), ()))).sum())(x)
    # f(w) = sum_ij (w w^T)_ij = |sum_i w_i|^2 (w_i the rows): d2f/dw_ia dw_jb = 2 [a == b].
    want = 2 * np.einsum("ab,ij->iajb", np.eye(4), np.ones((3, 3)))
    np.testing.assert_allclose(h, want, atol=1e-12)


def test_dot_general_grad_structure_as_jax():
    # The transposes JAX 0.10.2 emits for the cotangent of each operand.
    dn = (((0,), (2,)), ((2,), (0,)))
    x, w = np.ones((3, 2, 5), F32), np.ones((5, 4, 3), F32)
    ct = np.ones((5, 2, 4), F32)
    ct_x = spmd.make_jaxpr(lambda w, c: spmd.vjp(lambda x: lax.dot_general(x, w, dn), x)[1](c))
    ct_w = spmd.make_jaxpr(lambda x, c: spmd.vjp(lambda w: lax.dot_general(x, w, dn), w)[1](c))
    assert _eqns(ct_x(w, ct))[1:] == [
        ("dot_general", {"dimension_numbers": "(((2,), (1,)), ((0,), (0,)))"}, [(5, 2, 3)]),
        ("transpose", {"permutation": "(2, 1, 0)"}, [(3, 2, 5)]),
    ]
    assert _eqns(ct_w(x, ct))[1:] == [
        ("dot_general", {"dimension_numbers": "(((1,), (1,)), ((0,), (2,)))"}, [(5, 4, 3)]),
    ]


def test_dot_general_cotangents_take_operand_dtypes():
    # bfloat16 operands accumulated in float32: the float32 cotangents are cast back.
    x, w = np.ones((2, 3), BF16), np.ones((3, 4), BF16)

    def f(x, w):
        return lax.dot_general(x, w, _CONTRACT, preferred_element_type=F32).sum()

    gx, gw = spmd.grad(f, argnums=(0, 1))(x, w)
    assert (gx.dtype, gw.dtype) == (BF16, BF16)
    np.testing.assert_array_equal(np.asarray(gx, F32), np.full((2, 3), 4, F32))
    np.testing.assert_array_equal(np.asarray(gw, F32), np.full((3, 4), 2, F32))
    closed = spmd.make_jaxpr(spmd.grad(f, argnums=(0, 1)))(x, w)
    prims = [e.primitive.name for e in closed.jaxpr.eqns]
    assert prims.count("convert_element_type") == 2
    # Mixed operands: only the bfloat16 one's cotangent is converted.
    gx, gw = spmd.grad(lambda x, w: lax.dot_general(x, w, _CONTRACT).sum(), argnums=(0, 1))(
        np.ones((2, 3), F32), w
    )
    assert (gx.dtype, gw.dtype) == (F32, BF16)


# ---------------------------------------------------------------------------------------------
# conv_general_dilated

CONV_CASES = [
    # lhs, rhs, strides, padding, lhs_dilation, rhs_dilation, dimension_numbers, fgc, bgc
    ((2, 3, 9), (4, 3, 3), (2,), ((1, 2),), (1,), (2,), None, 1, 1),
    ((2, 3, 7), (4, 3, 2), (1,), ((0, -1),), (2,), (1,), None, 1, 1),
    ((1, 2, 6, 5), (3, 2, 2, 3), (2, 1), ((1, 0), (2, 1)), (1, 2), (2, 1), None, 1, 1),
    ((2, 5, 6, 3), (2, 3, 3, 4), (1, 2), ((1, 1), (0, 2)), (1, 1), (1, 1),
     ("NHWC", "HWIO", "NHWC"), 1, 1),
    ((2, 4, 7), (6, 2, 3), (1,), ((1, 1),), (1,), (1,), None, 2, 1),
    ((2, 6, 7), (6, 1, 3), (2,), ((1, 1),), (2,), (1,), None, 6, 1),
    ((4, 3, 7), (6, 3, 3), (1,), ((1, 1),), (1,), (2,), None, 1, 2),
    ((6, 2, 5, 4), (2, 2, 4, 6), (1, 1), ((0, 1), (1, 0)), (1, 1), (1, 1),
     ("NHWC", "HWIO", "NCHW"), 1, 3),
]  # fmt: skip


def _conv_fn(case):
    _, _, st, pad, ld, rd, dn, g, bg = CONV_CASES[case]

    def f(x, w):
        return lax.conv_general_dilated(
            x, w, st, pad, ld, rd, dn, feature_group_count=g, batch_group_count=bg
        )

    return f


@pytest.mark.parametrize("case", range(len(CONV_CASES)))
def test_conv_vmap_matches_loop(case):
    ls, rs = CONV_CASES[case][:2]
    rng = _rng(20 + case)
    f = _conv_fn(case)
    for la, ra in [(0, None), (None, 0), (0, 0), (1, len(rs))]:
        lshape = ls if la is None else ls[:la] + (3,) + ls[la:]
        rshape = rs if ra is None else rs[:ra] + (3,) + rs[ra:]
        args = [rng.standard_normal(lshape).astype(F32), rng.standard_normal(rshape).astype(F32)]
        check_vmap(f, args, (la, ra))


@pytest.mark.parametrize("case", range(len(CONV_CASES)))
def test_conv_derivatives(case, x64):
    ls, rs = CONV_CASES[case][:2]
    rng = _rng(30 + case)
    check_derivatives(_conv_fn(case), [rng.standard_normal(ls), rng.standard_normal(rs)], case)


def _conv_params(closed) -> list[tuple]:
    keys = ("dimension_numbers", "padding", "window_strides", "lhs_dilation", "rhs_dilation",
            "feature_group_count")  # fmt: skip
    return [
        (e.primitive.name, *(str(e.params.get(k)) for k in keys if k in e.params))
        for e in closed.jaxpr.eqns
    ]


def test_conv_grad_structure_as_jax():
    # The convolutions JAX 0.10.2 emits for the cotangents (rhs first, then lhs).
    x, w = np.ones((2, 3, 9), F32), np.ones((4, 3, 3), F32)
    f = _conv_fn(0)
    closed = spmd.make_jaxpr(spmd.grad(lambda x, w: f(x, w).sum(), argnums=(0, 1)))(x, w)
    got = _conv_params(closed)[3:]
    swapped = "ConvDimensionNumbers(lhs_spec=(1, 0, 2), rhs_spec=(1, 0, 2), out_spec=(1, 0, 2))"
    lhs_t = "ConvDimensionNumbers(lhs_spec=(0, 1, 2), rhs_spec=(1, 0, 2), out_spec=(0, 1, 2))"
    assert got == [
        ("conv_general_dilated", swapped, "((1, 1),)", "(2,)", "(1,)", "(2,)", "1"),
        ("rev",),
        ("conv_general_dilated", lhs_t, "((3, 3),)", "(1,)", "(2,)", "(2,)", "1"),
    ]


def test_conv_vmap_jaxprs_as_jax():
    # JAX 0.10.2 folds the mapped dimension into N (lhs), O (rhs) or feature groups (both).
    f = _conv_fn(0)
    x, w = np.ones((2, 3, 9), F32), np.ones((4, 3, 3), F32)
    xs, ws = np.ones((5, 2, 3, 9), F32), np.ones((5, 4, 3, 3), F32)

    def summary(closed):
        return [
            (e.primitive.name, str(e.params.get("dimensions", e.params.get("permutation"))),
             tuple(e.outvars[0].aval.shape), e.params.get("feature_group_count"))
            for e in closed.jaxpr.eqns
        ]  # fmt: skip

    conv = "conv_general_dilated"
    assert summary(spmd.make_jaxpr(spmd.vmap(f, in_axes=(0, None)))(xs, w)) == [
        ("reshape", "None", (10, 3, 9), None),
        (conv, "None", (10, 4, 4), 1),
        ("reshape", "None", (5, 2, 4, 4), None),
    ]
    assert summary(spmd.make_jaxpr(spmd.vmap(f, in_axes=(None, 1)))(x, ws.swapaxes(0, 1))) == [
        ("reshape", "(1, 0, 2, 3)", (20, 3, 3), None),
        (conv, "None", (2, 20, 4), 1),
        ("reshape", "None", (2, 5, 4, 4), None),
        ("transpose", "(1, 0, 2, 3)", (5, 2, 4, 4), None),
    ]
    assert summary(spmd.make_jaxpr(spmd.vmap(f))(xs, ws)) == [
        ("reshape", "(1, 0, 2, 3)", (2, 15, 9), None),
        ("reshape", "None", (20, 3, 3), None),
        (conv, "None", (2, 20, 4), 5),
        ("reshape", "None", (2, 5, 4, 4), None),
        ("transpose", "(1, 0, 2, 3)", (5, 2, 4, 4), None),
    ]


def test_conv_cotangents_take_operand_dtypes():
    x, w = np.ones((1, 2, 5), BF16), np.ones((3, 2, 2), BF16)

    def f(x, w):
        return lax.conv_general_dilated(x, w, (1,), "VALID", preferred_element_type=F32).sum()

    gx, gw = spmd.grad(f, argnums=(0, 1))(x, w)
    assert (gx.dtype, gw.dtype) == (BF16, BF16)
    np.testing.assert_array_equal(np.asarray(gx, F32)[0, 0], [3, 6, 6, 6, 3])
    np.testing.assert_array_equal(np.asarray(gw, F32), np.full((3, 2, 2), 4, F32))


# ---------------------------------------------------------------------------------------------
# Through jax.numpy


def test_grad_of_matmul_sum():
    rng = _rng(3)
    x, w = rng.standard_normal((2, 3)).astype(F32), rng.standard_normal((3, 4)).astype(F32)
    g = spmd.grad(lambda w: (x @ w).sum())(w)
    np.testing.assert_allclose(g, np.repeat(x.sum(0)[:, None], 4, axis=1), rtol=1e-6)
    gj = spmd.jit(spmd.grad(lambda w: (x @ w).sum()))(w)
    np.testing.assert_array_equal(gj, g)


def test_vmap_matmul_and_einsum():
    rng = _rng(4)
    a, b = rng.standard_normal((5, 2, 3)).astype(F32), rng.standard_normal((5, 3, 4)).astype(F32)
    w = b[0]
    np.testing.assert_allclose(spmd.vmap(jnp.matmul)(a, b), a @ b, rtol=1e-6)
    np.testing.assert_allclose(spmd.vmap(jnp.matmul, in_axes=(0, None))(a, w), a @ w, rtol=1e-6)
    es = spmd.vmap(lambda p, q: jnp.einsum("ij,jk->ik", p, q))(a, b)
    np.testing.assert_allclose(es, a @ b, rtol=1e-6)
    tr = spmd.vmap(lambda p: jnp.einsum("ij,ij->", p, p))(a)
    np.testing.assert_allclose(tr, (a * a).sum((1, 2)), rtol=1e-5)


def test_grad_of_einsum(x64):
    rng = _rng(5)
    x, w, v = rng.standard_normal((2, 3)), rng.standard_normal((3, 4)), rng.standard_normal(4)
    check_derivatives(lambda x, w: jnp.einsum("ij,jk,k->i", x, w, v), [x, w])
    gx, gw = spmd.grad(lambda x, w: jnp.einsum("ij,jk->", x, w), argnums=(0, 1))(x, w)
    np.testing.assert_allclose(gx, np.ones((2, 4)) @ w.T)
    np.testing.assert_allclose(gw, x.T @ np.ones((2, 4)))
    g = spmd.vmap(spmd.grad(lambda x: jnp.einsum("ij,jk->", x, w)))(np.stack([x, 2 * x]))
    np.testing.assert_allclose(g, np.stack([np.ones((2, 4)) @ w.T] * 2))


def test_grad_and_vmap_of_convolve(x64):
    rng = _rng(6)
    a, v = rng.standard_normal(6), rng.standard_normal(3)
    for mode in ("full", "same", "valid"):
        check_derivatives(lambda a, v, m=mode: jnp.convolve(a, v, mode=m), [a, v])
        check_derivatives(lambda a, v, m=mode: jnp.correlate(a, v, mode=m), [a, v])
    # JAX 0.10.2: grad of (convolve(a, v, 'same') ** 2).sum() at these float32 values.
    a32 = np.array([0.5, -1.0, 2.0, 0.25, 1.5], F32)
    v32 = np.array([1.0, -0.5, 0.75], F32)
    ga, gv = spmd.grad(lambda a, v: (jnp.convolve(a, v, "same") ** 2).sum(), argnums=(0, 1))(
        a32, v32
    )
    np.testing.assert_allclose(ga, [5.5625, -7.625, 11.5625, -6.71875, 6.3125], rtol=1e-6)
    np.testing.assert_allclose(gv, [21.875, -13.25, 17.09375], rtol=1e-6)
    A, V = rng.standard_normal((4, 6)), rng.standard_normal((4, 3))
    want = np.stack([np.convolve(p, q) for p, q in zip(A, V)])
    np.testing.assert_allclose(spmd.vmap(jnp.convolve)(A, V), want, rtol=1e-12)
    want = np.stack([np.correlate(a, q, "same") for q in V])
    got = spmd.vmap(lambda q: jnp.correlate(a, q, "same"))(V)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_grad_of_norm():
    g = spmd.grad(lambda v: jnp.linalg.norm(v))(np.array([3.0, 4.0], F32))
    np.testing.assert_allclose(g, [0.6, 0.8], rtol=1e-6)
    m = np.array([[3.0, 0.0], [0.0, 4.0]], F32)
    np.testing.assert_allclose(spmd.grad(lambda m: jnp.linalg.norm(m, 2))(m), [[0, 0], [0, 1]])
    np.testing.assert_allclose(spmd.grad(lambda m: jnp.linalg.norm(m, "nuc"))(m), np.eye(2))
    g = spmd.vmap(spmd.grad(lambda v: jnp.linalg.norm(v)))(np.array([[3, 4], [0, 1]], F32))
    np.testing.assert_allclose(g, [[0.6, 0.8], [0, 1]], rtol=1e-6)
