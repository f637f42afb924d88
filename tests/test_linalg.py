"""spmd.numpy products (dot, matmul and ``@``, vdot, vecdot, tensordot, inner, outer, kron,
einsum, convolve, correlate, cross, matrix_transpose) and spmd.numpy.linalg (norm and the
decompositions): values against NumPy, dtypes and errors as JAX 0.10 gives them, and printed
jaxprs copied from ``jax.make_jaxpr``."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd._src.numpy import linalg as linalg_module
from spmd._src.numpy import products

RNG = np.random.RandomState(1)
BF16 = ml_dtypes.bfloat16


def _f32(*shape):
    return np.asarray(RNG.randn(*shape), np.float32)


def _i32(*shape):
    return np.asarray(RNG.randint(-20, 20, size=shape), np.int32)


def _c64(*shape):
    return (RNG.randn(*shape) + 1j * RNG.randn(*shape)).astype(np.complex64)


def _ones(*shape, dtype=np.float32):
    return np.ones(shape, dtype)


def _close(got, want, rtol=1e-5, atol=1e-5):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=atol)


# Printed by jax.make_jaxpr (JAX 0.10.2) for the programs in test_jaxpr_text.
GOLDEN = {
    "vdot_big": """\
{ lambda ; a:f32[1250000,3] b:f32[1250000,3]. let
    c:f32[3750000] = reshape[dimensions=None new_sizes=(3750000,) sharding=None] a
    d:f32[3750000] = reshape[dimensions=None new_sizes=(3750000,) sharding=None] b
    e:f32[] = dot_general[
      dimension_numbers=(([0], [0]), ([], []))
      preferred_element_type=float32
    ] c d
  in (e,) }""",
    "dot_int_weak": """\
{ lambda ; a:i32[3]. let
    b:f32[3] = dot_general[
      dimension_numbers=(([], []), ([], []))
      preferred_element_type=float32
    ] a 2.0:f32[]
    c:f32[3] = convert_element_type[new_dtype=float32 weak_type=True] b
  in (c,) }""",
    "mm_bcast": """\
{ lambda ; a:f32[2,1,3,4] b:f32[1,5,4,5]. let
    c:f32[2,3,4] = squeeze[dimensions=(1,)] a
    d:f32[5,4,5] = squeeze[dimensions=(0,)] b
    e:f32[2,3,5,5] = dot_general[
      dimension_numbers=(([2], [1]), ([], []))
      preferred_element_type=float32
    ] c d
    f:f32[2,5,3,5] = transpose[permutation=(0, 2, 1, 3)] e
  in (f,) }""",
    "mm_expand": """\
{ lambda ; a:f32[1,2,3] b:f32[1,3,4]. let
    c:f32[2,3] = squeeze[dimensions=(0,)] a
    d:f32[3,4] = squeeze[dimensions=(0,)] b
    e:f32[2,4] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] c d
    f:f32[1,2,4] = broadcast_in_dim[broadcast_dimensions=(1, 2)] e
  in (f,) }""",
    "mm_vec": """\
{ lambda ; a:f32[3] b:f32[2,3,4]. let
    c:f32[2,4] = dot_general[
      dimension_numbers=(([0], [1]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }""",
    "mm_i32": """\
{ lambda ; a:i32[3,4] b:i32[4,5]. let
    c:i32[3,5] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=int32
    ] a b
  in (c,) }""",
    "tensordot": """\
{ lambda ; a:f32[2,3,4] b:f32[4,3,2]. let
    c:f32[3,3] = dot_general[
      dimension_numbers=(([0, 2], [2, 0]), ([], []))
      preferred_element_type=float32
    ] a b
  in (c,) }""",
    "vecdot": """\
{ lambda ; a:f32[3,2] b:f32[3,1]. let
    c:f32[2,3] = transpose[permutation=(1, 0)] a
    d:f32[1,3] = transpose[permutation=(1, 0)] b
    e:f32[3] = squeeze[dimensions=(0,)] d
    f:f32[2] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] c e
  in (f,) }""",
    "einsum_swap": """\
{ lambda ; a:f32[3,4] b:f32[5,4]. let
    c:f32[5,3] = dot_general[
      dimension_numbers=(([1], [1]), ([], []))
      preferred_element_type=float32
    ] b a
  in (c,) }""",
    "einsum_chain": """\
{ lambda ; a:f32[3,4] b:f32[4,5] c:f32[5,6]. let
    d:f32[5,3] = dot_general[
      dimension_numbers=(([0], [1]), ([], []))
      preferred_element_type=float32
    ] b a
    e:f32[3,6] = dot_general[
      dimension_numbers=(([0], [0]), ([], []))
      preferred_element_type=float32
    ] d c
  in (e,) }""",
    "einsum_diag": """\
{ lambda ; a:f32[3,3]. let
    b:u32[3,3] = iota[dimension=0 dtype=uint32 shape=(3, 3) sharding=None] 
    c:u32[3,3] = iota[dimension=1 dtype=uint32 shape=(3, 3) sharding=None] 
    d:bool[3,3] = eq b c
    e:f32[3,3] = broadcast_in_dim 0.0:f32[]
    f:f32[3,3] = select_n d e a
    g:f32[3] = reduce_sum[axes=(0,) out_sharding=None] f
  in (g,) }""",  # noqa: W291
    "einsum_uniques": """\
{ lambda ; a:i8[3,4,2] b:i16[4,5]. let
    c:i16[3,4,2] = convert_element_type[new_dtype=int16 weak_type=False] a
    d:i16[3,4] = reduce_sum[axes=(2,) out_sharding=None] c
    e:i16[3,5] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=int16
    ] d b
  in (e,) }""",
    "einsum_4": """\
{ lambda ; a:f32[2,3] b:f32[3,4] c:f32[4,5] d:f32[5,2]. let
    e:f32[2,4] = dot_general[
      dimension_numbers=(([0], [1]), ([], []))
      preferred_element_type=float32
    ] d c
    f:f32[2,3] = dot_general[
      dimension_numbers=(([1], [1]), ([], []))
      preferred_element_type=float32
    ] e b
    g:f32[2,2] = dot_general[
      dimension_numbers=(([1], [1]), ([], []))
      preferred_element_type=float32
    ] a f
  in (g,) }""",
    "outer": """\
{ lambda ; a:i32[3] b:f32[]. let
    c:f32[3] = convert_element_type[new_dtype=float32 weak_type=True] a
    d:f32[3,1] = broadcast_in_dim[broadcast_dimensions=(0,)] c
    e:f32[1] = reshape[dimensions=None new_sizes=(1,) sharding=None] b
    f:f32[1,1] = broadcast_in_dim[broadcast_dimensions=(1,)] e
    g:f32[3,1] = mul d f
  in (g,) }""",
    "kron": """\
{ lambda ; a:f32[2,3] b:f32[4,5]. let
    c:f32[8,15] = jit[
      name=kron
      jaxpr={ lambda ; a:f32[2,3] b:f32[4,5]. let
          d:f32[2,1,3,1] = broadcast_in_dim[broadcast_dimensions=(0, 2)] a
          e:f32[1,4,1,5] = broadcast_in_dim[broadcast_dimensions=(1, 3)] b
          f:f32[2,4,3,5] = mul d e
          c:f32[8,15] = reshape[dimensions=None new_sizes=(8, 15) sharding=None] f
        in (c,) }
    ] a b
  in (c,) }""",
    "convolve": """\
{ lambda ; a:i32[10] b:i32[4]. let
    c:f32[10] = jit[
      name=convolve
      jaxpr={ lambda ; a:i32[10] b:i32[4]. let
          c:f32[10] = jit[
            name=_conv
            jaxpr={ lambda ; a:i32[10] b:i32[4]. let
                d:f32[10] = convert_element_type[
                  new_dtype=float32
                  weak_type=False
                ] a
                e:f32[4] = convert_element_type[
                  new_dtype=float32
                  weak_type=False
                ] b
                f:f32[4] = jit[
                  name=_flip
                  jaxpr={ lambda ; e:f32[4]. let
                      f:f32[4] = rev[dimensions=(0,)] e
                    in (f,) }
                ] e
                g:f32[1,1,10] = broadcast_in_dim[broadcast_dimensions=(2,)] d
                h:f32[1,1,4] = broadcast_in_dim[broadcast_dimensions=(2,)] f
                i:f32[1,1,10] = conv_general_dilated[
                  batch_group_count=1
                  dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2), rhs_spec=(0, 1, 2), out_spec=(0, 1, 2))
                  feature_group_count=1
                  lhs_dilation=(1,)
                  out_sharding=None
                  padding=((2, 1),)
                  precision=None
                  preferred_element_type=None
                  rhs_dilation=(1,)
                  window_strides=(1,)
                ] g h
                c:f32[10] = squeeze[dimensions=(0, 1)] i
              in (c,) }
          ] a b
        in (c,) }
    ] a b
  in (c,) }""",  # noqa: E501
    "correlate_swap": """\
{ lambda ; a:f32[3] b:f32[10]. let
    c:f32[12] = jit[
      name=correlate
      jaxpr={ lambda ; a:f32[3] b:f32[10]. let
          c:f32[12] = jit[
            name=_conv
            jaxpr={ lambda ; a:f32[3] b:f32[10]. let
                d:f32[1,1,10] = broadcast_in_dim[broadcast_dimensions=(2,)] b
                e:f32[1,1,3] = broadcast_in_dim[broadcast_dimensions=(2,)] a
                f:f32[1,1,12] = conv_general_dilated[
                  batch_group_count=1
                  dimension_numbers=ConvDimensionNumbers(lhs_spec=(0, 1, 2), rhs_spec=(0, 1, 2), out_spec=(0, 1, 2))
                  feature_group_count=1
                  lhs_dilation=(1,)
                  out_sharding=None
                  padding=((2, 2),)
                  precision=None
                  preferred_element_type=None
                  rhs_dilation=(1,)
                  window_strides=(1,)
                ] d e
                g:f32[1,1,12] = rev[dimensions=(2,)] f
                c:f32[12] = squeeze[dimensions=(0, 1)] g
              in (c,) }
          ] a b
        in (c,) }
    ] a b
  in (c,) }""",  # noqa: E501
    "norm": """\
{ lambda ; a:f32[3,4]. let
    b:f32[3] = jit[
      name=norm
      jaxpr={ lambda ; a:f32[3,4]. let
          c:f32[3,4] = mul a a
          d:f32[3] = reduce_sum[axes=(1,) out_sharding=None] c
          b:f32[3] = sqrt d
        in (b,) }
    ] a
  in (b,) }""",
    "norm_inf_keep": """\
{ lambda ; a:f32[3,4,5]. let
    b:f32[1,4,1] = jit[
      name=norm
      jaxpr={ lambda ; a:f32[3,4,5]. let
          c:f32[3,4,5] = abs a
          d:f32[4,5] = reduce_sum[axes=(0,) out_sharding=None] c
          e:f32[1,4,5] = broadcast_in_dim[broadcast_dimensions=(1, 2)] d
          f:f32[1,4] = reduce_max[axes=(2,)] e
          g:f32[1,4] = max 0.0:f32[] f
          b:f32[1,4,1] = broadcast_in_dim[broadcast_dimensions=(0, 1)] g
        in (b,) }
    ] a
  in (b,) }""",
    "norm_bf16": """\
{ lambda ; a:bf16[5]. let
    b:bf16[] = jit[
      name=norm
      jaxpr={ lambda ; a:bf16[5]. let
          c:bf16[5] = mul a a
          d:f32[5] = convert_element_type[new_dtype=float32 weak_type=False] c
          e:f32[] = reduce_sum[axes=(0,) out_sharding=None] d
          f:bf16[] = convert_element_type[new_dtype=bfloat16 weak_type=False] e
          b:bf16[] = sqrt f
        in (b,) }
    ] a
  in (b,) }""",
    "norm_2": """\
{ lambda ; a:f32[3,4]. let
    b:f32[] = jit[
      name=norm
      jaxpr={ lambda ; a:f32[3,4]. let
          c:f32[3] = jit[
            name=svd
            jaxpr={ lambda ; a:f32[3,4]. let
                c:f32[3] = svd[
                  algorithm=None
                  compute_uv=False
                  full_matrices=True
                  subset_by_index=None
                ] a
              in (c,) }
          ] a
          d:f32[] = reduce_max[axes=(0,)] c
          b:f32[] = max 0.0:f32[] d
        in (b,) }
    ] a
  in (b,) }""",
}

JAXPR_PROGRAMS = {
    "vdot_big": (lambda v, u: jnp.vdot(v, u), (_ones(1250000, 3), _ones(1250000, 3))),
    "dot_int_weak": (lambda a: jnp.dot(a, 2.0), (_ones(3, dtype=np.int32),)),
    "mm_bcast": (lambda a, b: a @ b, (_ones(2, 1, 3, 4), _ones(1, 5, 4, 5))),
    "mm_expand": (lambda a, b: jnp.matmul(a, b), (_ones(1, 2, 3), _ones(1, 3, 4))),
    "mm_vec": (lambda a, b: jnp.matmul(a, b), (_ones(3), _ones(2, 3, 4))),
    "mm_i32": (lambda a, b: a @ b, (_ones(3, 4, dtype=np.int32), _ones(4, 5, dtype=np.int32))),
    "tensordot": (
        lambda a, b: jnp.tensordot(a, b, axes=([0, 2], [2, 0])),
        (_ones(2, 3, 4), _ones(4, 3, 2)),
    ),
    "vecdot": (lambda a, b: jnp.vecdot(a, b, axis=0), (_ones(3, 2), _ones(3, 1))),
    "einsum_swap": (lambda a, b: jnp.einsum("ij,kj->ki", a, b), (_ones(3, 4), _ones(5, 4))),
    "einsum_chain": (
        lambda a, b, c: jnp.einsum("ij,jk,kl->il", a, b, c),
        (_ones(3, 4), _ones(4, 5), _ones(5, 6)),
    ),
    "einsum_diag": (lambda a: jnp.einsum("ii->i", a), (_ones(3, 3),)),
    "einsum_uniques": (
        lambda a, b: jnp.einsum("ijm,jk->ik", a, b),
        (_ones(3, 4, 2, dtype=np.int8), _ones(4, 5, dtype=np.int16)),
    ),
    "einsum_4": (
        lambda a, b, c, d: jnp.einsum("ab,bc,cd,de->ae", a, b, c, d),
        (_ones(2, 3), _ones(3, 4), _ones(4, 5), _ones(5, 2)),
    ),
    "outer": (lambda a, b: jnp.outer(a, b), (_ones(3, dtype=np.int32), 2.0)),
    "kron": (lambda a, b: jnp.kron(a, b), (_ones(2, 3), _ones(4, 5))),
    "convolve": (
        lambda a, v: jnp.convolve(a, v, mode="same"),
        (_ones(10, dtype=np.int32), _ones(4, dtype=np.int32)),
    ),
    "correlate_swap": (lambda a, v: jnp.correlate(a, v, mode="full"), (_ones(3), _ones(10))),
    "norm": (lambda a: jnp.linalg.norm(a, axis=1), (_ones(3, 4),)),
    "norm_inf_keep": (
        lambda a: jnp.linalg.norm(a, np.inf, axis=(2, 0), keepdims=True),
        (_ones(3, 4, 5),),
    ),
    "norm_bf16": (lambda a: jnp.linalg.norm(a), (_ones(5).astype(BF16),)),
    "norm_2": (lambda a: jnp.linalg.norm(a, 2), (_ones(3, 4),)),
}


@pytest.mark.parametrize("name", sorted(JAXPR_PROGRAMS))
def test_jaxpr_text(name):
    fn, args = JAXPR_PROGRAMS[name]
    assert str(spmd.make_jaxpr(fn)(*args)) == GOLDEN[name]


# ---------------------------------------------------------------------------------------------
# Values


MATMUL_SHAPES = [
    ((3, 4), (4, 5)),
    ((4,), (4, 5)),
    ((3, 4), (4,)),
    ((4,), (4,)),
    ((2, 3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (3, 4, 5)),
    ((2, 1, 3, 4), (1, 5, 4, 5)),
    ((5, 1, 2, 3), (1, 6, 3, 4)),
    ((1, 2, 3), (1, 3, 4)),
    ((3,), (2, 3, 4)),
    ((2, 3, 4), (4,)),
    ((0, 3), (3, 2)),
]


@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_values(sa, sb):
    a, b = _f32(*sa), _f32(*sb)
    got = jnp.matmul(a, b)
    assert got.dtype == np.float32 and not got.weak_type
    _close(got, np.matmul(a.astype(np.float64), b))
    ai, bi = _i32(*sa), _i32(*sb)
    gi = jnp.matmul(ai, bi)
    assert gi.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(gi), np.matmul(ai, bi))
    jitted = spmd.jit(lambda x, y: x @ y)(a, b)
    np.testing.assert_array_equal(np.asarray(jitted), np.asarray(got))


def test_matmul_operator_on_arrays():
    x = jnp.asarray([[1.0, 2.0], [3.0, 4.0]])
    _close(x @ x, [[7.0, 10.0], [15.0, 22.0]])
    _close(np.eye(2, dtype=np.float32) @ x, x)  # __rmatmul__
    _close(x.dot(x), [[7.0, 10.0], [15.0, 22.0]])


DOT_SHAPES = [((3, 4), (4, 5)), ((2, 3, 4), (5, 4, 6)), ((4,), (4,)), ((3, 4), (4,)), ((3,), ())]


@pytest.mark.parametrize("sa,sb", DOT_SHAPES)
def test_dot_values(sa, sb):
    a, b = _f32(*sa), _f32(*sb)
    _close(jnp.dot(a, b), np.dot(a.astype(np.float64), b))
    ai, bi = _i32(*sa), _i32(*sb)
    np.testing.assert_array_equal(np.asarray(jnp.dot(ai, bi)), np.dot(ai, bi))


def test_vdot_vecdot_inner_outer_tensordot():
    a, b = _f32(5, 3), _f32(5, 3)
    _close(jnp.vdot(a, b), np.vdot(a, b), rtol=1e-5)
    c, d = _c64(4, 3), _c64(4, 3)
    _close(jnp.vdot(c, d), np.vdot(c, d), rtol=1e-5)
    _close(jnp.vecdot(c, d), np.sum(np.conj(c) * d, axis=-1), rtol=1e-5)
    _close(jnp.vecdot(a, b, axis=0), np.sum(a * b, axis=0), rtol=1e-5)
    x, y = _f32(2, 1, 3), _f32(4, 3)
    _close(jnp.vecdot(x, y), np.sum(x * y, axis=-1), rtol=1e-5)
    p, q = _f32(2, 3), _f32(4, 3)
    _close(jnp.inner(p, q), np.inner(p, q))
    _close(jnp.inner(np.float32(2.0), q), 2 * q)
    u, v = _f32(2, 3), _f32(4)
    _close(jnp.outer(u, v), np.outer(u, v))
    t1, t2 = _f32(2, 3, 4), _f32(3, 4, 5)
    _close(jnp.tensordot(t1, t2), np.tensordot(t1, t2), rtol=1e-4)
    t3 = _f32(4, 3, 2)
    _close(jnp.tensordot(t1, t3, ([0, 2], [2, 0])), np.tensordot(t1, t3, ([0, 2], [2, 0])))
    _close(jnp.tensordot(t1, t3, 1), np.tensordot(t1, t3, 1))
    t4, t5 = _f32(2), _f32(3)
    _close(jnp.tensordot(t4, t5, 0), np.tensordot(t4, t5, 0))
    m = _f32(2, 3, 4)
    np.testing.assert_array_equal(np.asarray(jnp.matrix_transpose(m)), np.swapaxes(m, -1, -2))
    mm, vv = _f32(2, 3, 4), _f32(4)
    _close(jnp.matvec(mm, vv), mm @ vv)
    w = _f32(3)
    _close(jnp.vecmat(w, mm), w @ mm)


def test_kron():
    for sa, sb in [((2, 3), (4, 5)), ((3,), (2, 2)), ((), (2, 2)), ((2, 1, 2), (3, 2))]:
        a, b = _f32(*sa), _f32(*sb)
        _close(jnp.kron(a, b), np.kron(a, b))
    ai, b = _i32(2, 2), _f32(2, 2)
    r = jnp.kron(ai, b)
    assert r.dtype == np.float32
    _close(r, np.kron(ai, b))


EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,kj->ki", [(3, 4), (5, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iii->i", [(3, 3, 3)]),
    ("iij->ij", [(3, 3, 4)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ij", [(3, 4)]),
    ("ji", [(3, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,i", [(3,), (3,)]),
    ("ij,kj->", [(3, 4), (5, 4)]),
    ("ii,ij->j", [(3, 3), (3, 4)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("ijk,jl->il", [(3, 4, 2), (4, 5)]),
    ("ij,j", [(3, 1), (4,)]),
    ("...i,i", [(2, 3), (3,)]),
    ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 6)]),
    ("ab,bc,cd,de->ae", [(2, 3), (3, 4), (4, 5), (5, 2)]),
    ("bi,bj,bk->bijk", [(2, 3), (2, 4), (2, 5)]),
    ("ij,jk,kl,lm,mn,no->io", [(2, 3), (3, 2), (2, 4), (4, 2), (2, 3), (3, 2)]),
    ("ib,bj->ij", [(3, 1), (4, 5)]),
]


@pytest.mark.parametrize("spec,shapes", EINSUM_CASES)
def test_einsum_values(spec, shapes):
    ops = [_f32(*s) for s in shapes]
    if spec == "ib,bj->ij":
        want = ops[0] @ np.sum(ops[1], axis=0, keepdims=True)  # size-1 label broadcasts
    else:
        want = np.einsum(spec, *(o.astype(np.float64) for o in ops))
    got = jnp.einsum(spec, *ops)
    assert got.dtype == np.float32 and got.shape == np.shape(want)
    _close(got, want, rtol=1e-4, atol=1e-4)
    jitted = spmd.jit(lambda *xs: jnp.einsum(spec, *xs))(*ops)
    _close(jitted, got, rtol=1e-6, atol=1e-6)


def test_einsum_forms_and_dtypes():
    a, b = _f32(3, 4), _f32(4, 5)
    _close(jnp.einsum(a, [0, 1], b, [1, 2], [0, 2]), a @ b)
    _close(jnp.einsum(a, [0, 1], b, [1, 2]), a @ b)
    c = _f32(2, 3, 4)
    _close(jnp.einsum(c, [..., 1], b, [1, 2]), c @ b)
    ai, bi = _i32(3, 4), _i32(3, 4)
    r = jnp.einsum("ij,ij->i", ai, bi)
    assert r.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(r), np.einsum("ij,ij->i", ai, bi))
    r = jnp.einsum("ij,jk", _i32(3, 4), b)
    assert r.dtype == np.float32
    r = jnp.einsum("ij,jk->ik", _i32(3, 4), _i32(4, 5), preferred_element_type=np.float32)
    assert r.dtype == np.float32
    x, y = _i32(3, 4) > 0, _i32(4, 5) > 0
    r = jnp.einsum("ij,jk->ik", x, y)
    assert r.dtype == np.bool_
    np.testing.assert_array_equal(np.asarray(r), (x.astype(int) @ y.astype(int)) > 0)
    r = jnp.einsum("ijm,jk->ik", _i32(3, 4, 2).astype(np.int8), _i32(4, 5).astype(np.int16))
    assert r.dtype == np.int16
    r = jnp.einsum("ij->", 2.0 * np.ones((2, 2), np.float32))
    assert float(r) == 8.0


def test_convolve_correlate():
    a, v = _f32(10), _f32(3)
    for mode in ("full", "same", "valid"):
        _close(jnp.convolve(a, v, mode=mode), np.convolve(a, v, mode=mode))
        _close(jnp.correlate(a, v, mode=mode), np.correlate(a, v, mode=mode))
        _close(jnp.convolve(v, a, mode=mode), np.convolve(v, a, mode=mode))
        _close(jnp.correlate(v, a, mode=mode), np.correlate(v, a, mode=mode))
        w = _f32(4)  # even length: "same" pads unevenly
        _close(jnp.convolve(a, w, mode=mode), np.convolve(a, w, mode=mode))
        _close(jnp.correlate(a, w, mode=mode), np.correlate(a, w, mode=mode))
    c, d = _c64(10), _c64(3)
    _close(jnp.correlate(c, d, mode="full"), np.correlate(c, d, mode="full"), rtol=1e-5)
    ai, vi = _i32(10), _i32(4)
    r = jnp.convolve(ai, vi, mode="same")
    assert r.dtype == np.float32
    _close(r, np.convolve(ai, vi, mode="same"))
    r = jnp.convolve(ai, vi, preferred_element_type=np.int32)
    assert r.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(r), np.convolve(ai, vi))


def test_cross():
    a, b = _f32(4, 3), _f32(4, 3)
    _close(jnp.cross(a, b), np.cross(a, b))
    x, y = _f32(5, 1, 3), _f32(4, 3)
    _close(jnp.cross(x, y), np.cross(x, y))
    p, q = _f32(3, 4), _f32(3, 4)
    _close(jnp.cross(p, q, axis=0), np.cross(p, q, axis=0))
    u, w = _f32(3), _f32(2)
    _close(jnp.cross(u, w), np.cross(u, np.append(w, 0)))
    s, t = _f32(2), _f32(2)
    _close(jnp.cross(s, t), s[0] * t[1] - s[1] * t[0])
    _close(jnp.linalg.cross(a, b), np.cross(a, b))


# ---------------------------------------------------------------------------------------------
# dtypes (as JAX 0.10 gives them)


def _dt(r):
    return (np.dtype(r.dtype).name, bool(r.weak_type))


def test_product_dtypes():
    i, f = jnp.asarray(_ones(3, 4, dtype=np.int32)), jnp.asarray(_ones(4, 5))
    assert _dt(i @ i.T) == ("int32", False)
    assert _dt(f.T @ f) == ("float32", False)
    assert _dt(jnp.matmul(_ones(3, 4), _ones(4, 5, dtype=np.int32))) == ("float32", False)
    bf = _ones(3, 4).astype(BF16)
    assert _dt(jnp.matmul(bf, bf.T.copy())) == ("bfloat16", False)
    assert _dt(jnp.dot(_ones(3, dtype=np.float16), _ones(3).astype(BF16))) == ("float32", False)
    assert _dt(jnp.dot(_ones(3, dtype=np.int8), _ones(3, dtype=np.int16))) == ("int16", False)
    assert _dt(jnp.dot(_ones(3, dtype=np.uint8), _ones(3, dtype=np.int8))) == ("int16", False)
    assert _dt(jnp.dot(_ones(3, dtype=np.int32), 2.0)) == ("float32", True)
    assert _dt(jnp.dot(_ones(3, dtype=np.float32), 2.0)) == ("float32", False)
    assert _dt(jnp.dot(2.0, 3.0)) == ("float32", True)
    assert _dt(jnp.dot(2, 3)) == ("int32", True)
    assert _dt(jnp.matmul(np.arange(3), np.arange(3.0))) == ("float32", False)
    r = jnp.matmul(
        _ones(3, dtype=np.int32), _ones(3, dtype=np.int32), preferred_element_type=np.float32
    )
    assert _dt(r) == ("float32", False)
    assert _dt(jnp.vdot(_ones(3, dtype=np.int32), _ones(3))) == ("float32", False)
    assert _dt(jnp.outer(_ones(3, dtype=np.int32), 2.0)) == ("float32", True)
    assert _dt(jnp.convolve(_ones(5, dtype=np.int32), _ones(2, dtype=np.int32))) == (
        "float32",
        False,
    )
    b = _ones(3, 4, dtype=np.bool_)
    r = jnp.dot(b, b.T.copy())
    assert _dt(r) == ("bool", False) and bool(np.all(np.asarray(r)))


def test_int_matmul_wraps():
    a = np.full((1, 3), 2**16 + 1, np.int32)
    got = np.asarray(jnp.matmul(a, a.T.copy()))
    # 3 * (2**32 + 2**17 + 1) wraps to 3 * (2**17 + 1) in int32, as in XLA.
    assert got.dtype == np.int32 and got[0, 0] == 3 * (2**17 + 1)


# ---------------------------------------------------------------------------------------------
# norm


VECTOR_ORDS = [None, 2, 1, np.inf, -np.inf, 0, 3, -1, 0.5]
MATRIX_ORDS = [None, "fro", 1, -1, np.inf, -np.inf, 2, -2, "nuc"]


@pytest.mark.parametrize("ord", VECTOR_ORDS)
def test_vector_norms(ord):
    x = _f32(7)
    if ord == 0:
        x[2] = 0
    _close(jnp.linalg.norm(x, ord), np.linalg.norm(x.astype(np.float64), ord), rtol=1e-5)
    y = _f32(3, 7)
    want = np.linalg.norm(y.astype(np.float64), ord, axis=1, keepdims=True)
    got = jnp.linalg.norm(y, ord, axis=1, keepdims=True)
    assert got.shape == want.shape
    _close(got, want, rtol=1e-5)


@pytest.mark.parametrize("ord", MATRIX_ORDS)
def test_matrix_norms(ord):
    x = _f32(3, 4)
    _close(jnp.linalg.norm(x, ord), np.linalg.norm(x.astype(np.float64), ord), rtol=1e-5)
    y = _f32(3, 4, 5)
    want = np.linalg.norm(y.astype(np.float64), ord, axis=(2, 0), keepdims=True)
    got = jnp.linalg.norm(y, ord, axis=(2, 0), keepdims=True)
    assert got.shape == want.shape
    _close(got, want, rtol=1e-5)


def test_norm_dtypes_and_variants():
    assert _dt(jnp.linalg.norm(_ones(5, dtype=np.int32))) == ("float32", False)
    c = _c64(5)
    r = jnp.linalg.norm(c)
    assert _dt(r) == ("float32", False)
    _close(r, np.linalg.norm(c), rtol=1e-5)
    assert _dt(jnp.linalg.norm(_ones(5).astype(BF16))) == ("bfloat16", False)
    x = _f32(3, 4, 5)
    _close(jnp.linalg.norm(x), np.linalg.norm(x.ravel()), rtol=1e-5)
    _close(jnp.linalg.vector_norm(x, ord=1), np.sum(np.abs(x)), rtol=1e-5)
    _close(jnp.linalg.vector_norm(x, axis=1), np.linalg.norm(x, axis=1), rtol=1e-5)
    _close(jnp.linalg.matrix_norm(x), np.linalg.norm(x, axis=(-2, -1)), rtol=1e-5)
    _close(jnp.linalg.matrix_norm(x, ord=1), np.linalg.norm(x, 1, axis=(-2, -1)), rtol=1e-5)
    _close(spmd.jit(lambda a: jnp.linalg.norm(a, 1, axis=0))(x), np.linalg.norm(x, 1, axis=0))
    # norm is jnp.linalg's only; the products are in jnp itself.
    assert "norm" in linalg_module.__all__ and not hasattr(jnp, "norm")
    assert "dot" in products.__all__ and "matmul" in products.__all__


NORM_ERRORS = [
    ((4,), dict(ord="fro"), "Invalid order 'fro' for vector norm."),
    ((3, 4), dict(ord=3), "Invalid order '3' for matrix norm."),
    ((3, 4, 5), dict(axis=(0, 1, 2)), r"Improper number of axes for norm: axis=\(0, 1, 2\)"),
    ((3, 4, 5), dict(ord=2), r"Improper number of axes for norm: axis=\(0, 1, 2\)"),
]


@pytest.mark.parametrize("shape,kw,msg", NORM_ERRORS)
def test_norm_errors(shape, kw, msg):
    with pytest.raises(ValueError, match=msg):
        jnp.linalg.norm(np.ones(shape, np.float32), **kw)


# ---------------------------------------------------------------------------------------------
# Errors of the products


def test_product_errors():
    with pytest.raises(ValueError, match="matmul input operand 0 must have ndim at least 1"):
        jnp.matmul(np.float32(1), np.ones(3, np.float32))
    with pytest.raises(ValueError, match="matmul input operand 1 must have ndim at least 1"):
        _ones(3) @ jnp.asarray(1.0)
    with pytest.raises(
        ValueError,
        match=r"Incompatible types for matmul arguments: float32\[2,3,4\] and float32\[3,4,6\]",
    ):
        jnp.matmul(_ones(2, 3, 4), _ones(3, 4, 6))
    with pytest.raises(
        TypeError, match=r"contracting dimensions to have the same shape, got \(4,\) and \(5,\)"
    ):
        jnp.matmul(_ones(3, 4), _ones(5, 6))
    with pytest.raises(TypeError, match="contracting dimensions"):
        jnp.dot(_ones(3), _ones(4))
    with pytest.raises(TypeError, match=r"Number of tensordot axes \(axes 3\) exceeds input ranks"):
        jnp.tensordot(_ones(2), _ones(3), 3)
    with pytest.raises(TypeError, match=r"tensordot requires axes lists to have equal length"):
        jnp.tensordot(_ones(2, 3), _ones(3, 4), ([1, 0], [1]))
    with pytest.raises(ValueError, match=r"axes must match; got shapes \(2, 3\) and \(2, 4\)"):
        jnp.vecdot(_ones(2, 3), _ones(2, 4))
    with pytest.raises(ValueError, match="at least two-dimensional for matrix_transpose"):
        jnp.matrix_transpose(_ones(3))
    with pytest.raises(TypeError, match="dot requires ndarray or scalar arguments"):
        jnp.dot([1, 2], _ones(2))
    with pytest.raises(TypeError, match="kron requires ndarray or scalar arguments"):
        jnp.kron([1, 2], _ones(2))
    with pytest.raises(ValueError, match="Dimension must be either 2 or 3 for cross product"):
        jnp.cross(_ones(4), _ones(3))
    with pytest.raises(ValueError, match=r"convolve\(\) only support 1-dimensional inputs"):
        jnp.convolve(_ones(2, 2), _ones(2))
    with pytest.raises(ValueError, match="mode must be one of"):
        jnp.convolve(_ones(3), _ones(2), mode="bad")
    with pytest.raises(ValueError, match="inputs cannot be empty"):
        jnp.correlate(_ones(0), _ones(2))


EINSUM_ERRORS = [
    ("ij,jk->ik", [(3, 4), (5, 5)], "Size of label 'j' for operand 1"),
    (
        "ij,jk->ik",
        [(3, 4)],
        "Number of einsum subscripts, 2, must be equal to the number of operands, 1.",
    ),
    ("ij,jk->ikz", [(3, 4), (4, 5)], "Output character 'z' did not appear in the input"),
    (
        "ijk,jk->ik",
        [(3, 4), (4, 5)],
        "Einstein sum subscript 'ijk' does not contain the correct number of indices for "
        "operand 0.",
    ),
    ("i->ii", [(3,)], "Output character 'i' appeared more than once in the output."),
]


@pytest.mark.parametrize("spec,shapes,msg", EINSUM_ERRORS)
def test_einsum_errors(spec, shapes, msg):
    with pytest.raises(ValueError) as e:
        jnp.einsum(spec, *(np.ones(s, np.float32) for s in shapes))
    assert msg in str(e.value)


# ---------------------------------------------------------------------------------------------
# Decompositions and solvers


def test_decompositions():
    a = _f32(3, 3) + 3 * np.eye(3, dtype=np.float32)
    _close(jnp.linalg.det(a), np.linalg.det(a), rtol=1e-4)
    _close(jnp.linalg.inv(a), np.linalg.inv(a), rtol=1e-4, atol=1e-5)
    b = _f32(3)
    _close(jnp.linalg.solve(a, b), np.linalg.solve(a, b), rtol=1e-4, atol=1e-5)
    bb = _f32(2, 3, 2)
    aa = np.stack([a, a.T])
    _close(jnp.linalg.solve(aa, bb), np.linalg.solve(aa, bb), rtol=1e-4, atol=1e-5)
    sign, logdet = jnp.linalg.slogdet(a)
    ws, wl = np.linalg.slogdet(a)
    _close(sign, ws)
    _close(logdet, wl, rtol=1e-5)
    m = _f32(4, 3)
    u, s, vh = jnp.linalg.svd(m, full_matrices=False)
    _close(np.asarray(u) * np.asarray(s) @ np.asarray(vh), m, rtol=1e-4, atol=1e-5)
    _close(jnp.linalg.svd(m, compute_uv=False), np.linalg.svd(m, compute_uv=False), rtol=1e-5)
    spd = a @ a.T
    w, v = jnp.linalg.eigh(spd)
    _close(w, np.linalg.eigvalsh(spd), rtol=1e-4)
    _close(np.asarray(v) @ np.diag(np.asarray(w)) @ np.asarray(v).T, spd, rtol=1e-4, atol=1e-4)
    low = jnp.linalg.cholesky(spd)
    _close(low, np.linalg.cholesky(spd), rtol=1e-4, atol=1e-5)
    q, r = jnp.linalg.qr(m)
    _close(np.asarray(q) @ np.asarray(r), m, rtol=1e-4, atol=1e-5)
    assert jnp.linalg.det(_ones(2, 2, dtype=np.int32)).dtype == np.float32
    _close(jnp.linalg.multi_dot([_ones(3), _ones(3, 4), _ones(4, 2)]), [12.0, 12.0])
    with pytest.raises(ValueError, match="square"):
        jnp.linalg.det(_ones(2, 3))


def test_eigh_and_svd_of_non_finite_matrices_are_nan_not_an_error():
    # JAX returns NaN where LAPACK cannot converge; a batch keeps its other matrices' results.
    x = np.array([-np.inf, 1.0, 2.0], np.float32)
    bad = np.outer(x, x) + np.eye(3, dtype=np.float32)
    batch = np.stack([bad, np.eye(3, dtype=np.float32)])
    w = np.asarray(jnp.linalg.eigh(batch)[0])
    s = np.asarray(jnp.linalg.svd(batch, compute_uv=False))
    u, s2, vh = (np.asarray(a) for a in jnp.linalg.svd(batch))
    for got in (w, s, s2):
        assert np.isnan(got[0]).all() and np.array_equal(got[1], np.ones(3, np.float32))
    assert np.isnan(u[0]).all() and np.isnan(vh[0]).all()


_R = np.random.RandomState(0)
_A = (_R.randn(4, 4) / 3).astype(np.float32) + np.eye(4, dtype=np.float32)
_S = _A @ _A.T + np.eye(4, dtype=np.float32)
_B = _R.randn(4).astype(np.float32)
_HIGHEST_INSIDE = {
    "pinv": lambda: jnp.linalg.pinv(_A),
    "pinv_grad": lambda: spmd.grad(lambda a: jnp.linalg.pinv(a).sum())(_A),
    "lstsq": lambda: jnp.linalg.lstsq(_A[:, :3], _B)[:2],
    "polyfit": lambda: jnp.polyfit(_B, _A[0], 2),
    "cholesky_grad": lambda: spmd.grad(lambda a: jnp.linalg.cholesky(a).sum())(_S),
    "inv_grad": lambda: spmd.grad(lambda a: jnp.linalg.inv(a).sum())(_A),
    "solve_grad": lambda: spmd.grad(lambda a: jnp.linalg.solve(a, _B).sum())(_A),
    "eigh_grad": lambda: spmd.grad(lambda a: (jnp.linalg.eigh(a)[1] ** 2 * jnp.arange(4.0)).sum())(
        _S
    ),
}


@pytest.mark.parametrize("name", sorted(_HIGHEST_INSIDE))
def test_products_inside_ignore_the_default_matmul_precision(name):
    # jax: pinv (and its derivative), lstsq (so polyfit) and the derivatives of cholesky,
    # solve/inv and eigh multiply at HIGHEST precision: under default_matmul_precision
    # ('F16_F16_F16') their values are bit for bit the same (float16 products changed them)
    fn = _HIGHEST_INSIDE[name]
    want = spmd.tree_util.tree_leaves(fn())
    with spmd.default_matmul_precision("F16_F16_F16"):
        got = spmd.tree_util.tree_leaves(fn())
    for g, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))
