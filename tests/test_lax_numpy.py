"""Tests of spmd.numpy's array creation, shape manipulation and array utilities
(``spmd/_src/numpy/``: array_constructors, creation, shape_ops, rearranging, lax_numpy).

Each case runs eagerly and under ``spmd.jit``: values are compared with NumPy, and the dtype and
weak type of every result with what JAX 0.10 gives (recorded from JAX and written out in
``EXPECTED``; a trailing ``*`` marks a weakly typed result). Then printed jaxprs of a few functions
(the primitives must be the ones JAX emits) and the errors bad input raises.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd._src.array import Array
from spmd.errors import ConcretizationTypeError


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    make: Callable  # make(jnp) -> function under test
    args: tuple
    ref: Callable | None  # ref(np) -> NumPy reference function
    jit: bool  # False: the result's shape depends on values (JAX cannot jit it either)


CASES: list[Case] = []


def c(name, make, args=(), ref=None, jit=True):
    CASES.append(Case(name, make, tuple(args), ref, jit))


F = np.arange(12, dtype=np.float32).reshape(3, 4) - 4.5
I = np.arange(12, dtype=np.int32).reshape(3, 4)
V = np.array([3.0, -1.0, 2.0], np.float32)
B = np.array([[True, False, True, False], [False, False, True, True], [True, True, False, False]])
H = np.arange(6, dtype=np.float16)
I8 = np.array([1, -2, 3], np.int8)
U8 = np.array([1, 2, 250], np.uint8)

# creation
c("zeros", lambda jnp: lambda: jnp.zeros(3), (), lambda np: lambda: np.zeros(3, np.float32))
c(
    "zeros_int",
    lambda jnp: lambda: jnp.zeros((2, 3), int),
    (),
    lambda np: lambda: np.zeros((2, 3), np.int32),
)
c(
    "ones_f16",
    lambda jnp: lambda: jnp.ones(2, jnp.float16),
    (),
    lambda np: lambda: np.ones(2, np.float16),
)
c("empty", lambda jnp: lambda: jnp.empty((2,)), (), lambda np: lambda: np.zeros(2, np.float32))
c(
    "full_pyfloat",
    lambda jnp: lambda: jnp.full((2,), 1.0),
    (),
    lambda np: lambda: np.full(2, 1.0, np.float32),
)
c(
    "full_pyint",
    lambda jnp: lambda: jnp.full((2, 2), 7),
    (),
    lambda np: lambda: np.full((2, 2), 7, np.int32),
)
c(
    "full_npscalar",
    lambda jnp: lambda: jnp.full((2,), np.float16(2)),
    (),
    lambda np: lambda: np.full(2, 2, np.float16),
)
c(
    "full_dtype",
    lambda jnp: lambda: jnp.full((2,), 1.5, jnp.int32),
    (),
    lambda np: lambda: np.full(2, 1, np.int32),
)
c(
    "full_array_fill",
    lambda jnp: lambda v: jnp.full((2, 3), v),
    (V,),
    lambda np: lambda v: np.broadcast_to(v, (2, 3)),
)
c(
    "full_traced_fill",
    lambda jnp: lambda v: jnp.full((3,), v),
    (2.5,),
    lambda np: lambda v: np.full(3, v, np.float32),
)
c(
    "zeros_like",
    lambda jnp: lambda x: jnp.zeros_like(x),
    (I,),
    lambda np: lambda x: np.zeros_like(x),
)
c("zeros_like_weak", lambda jnp: lambda: jnp.zeros_like(1.0), (), lambda np: lambda: np.float32(0))
c(
    "ones_like_shape",
    lambda jnp: lambda x: jnp.ones_like(x, dtype=jnp.int8, shape=(2,)),
    (F,),
    lambda np: lambda x: np.ones(2, np.int8),
)
c(
    "full_like",
    lambda jnp: lambda x: jnp.full_like(x, 3),
    (H,),
    lambda np: lambda x: np.full_like(x, 3),
)
c(
    "full_like_arr",
    lambda jnp: lambda x: jnp.full_like(x, np.arange(4.0)),
    (F,),
    lambda np: lambda x: np.broadcast_to(np.arange(4.0, dtype=np.float32), (3, 4)),
)
c(
    "empty_like",
    lambda jnp: lambda x: jnp.empty_like(x),
    (U8,),
    lambda np: lambda x: np.zeros_like(x),
)
c(
    "array_list_mixed",
    lambda jnp: lambda: jnp.array([1, 2.5]),
    (),
    lambda np: lambda: np.array([1, 2.5], np.float32),
)
c(
    "array_list_bool_int",
    lambda jnp: lambda: jnp.array([True, 1]),
    (),
    lambda np: lambda: np.array([1, 1], np.int32),
)
c("array_pyfloat", lambda jnp: lambda: jnp.array(1.0), (), lambda np: lambda: np.float32(1.0))
c("array_pyint", lambda jnp: lambda: jnp.array(3), (), lambda np: lambda: np.int32(3))
c("array_bool", lambda jnp: lambda: jnp.array(True), (), lambda np: lambda: np.bool_(True))
c("array_empty", lambda jnp: lambda: jnp.array([]), (), lambda np: lambda: np.zeros(0, np.float32))
c(
    "array_np_f64",
    lambda jnp: lambda: jnp.array(np.ones(2)),
    (),
    lambda np: lambda: np.ones(2, np.float32),
)
c(
    "array_dtype",
    lambda jnp: lambda: jnp.array([1.7, 2.2], dtype=jnp.int32),
    (),
    lambda np: lambda: np.array([1, 2], np.int32),
)
c(
    "array_ndmin",
    lambda jnp: lambda x: jnp.array(x, ndmin=3),
    (V,),
    lambda np: lambda x: np.array(x, ndmin=3),
)
c(
    "array_of_tracers",
    lambda jnp: lambda a, b: jnp.array([a, b, 3.0]),
    (2.0, V[0]),
    lambda np: lambda a, b: np.array([a, b, 3.0], np.float32),
)
c(
    "array_nested_tracers",
    lambda jnp: lambda x: jnp.array([[x, x], [x, 2 * x]]),
    (V,),
    lambda np: lambda x: np.array([[x, x], [x, 2 * x]]),
)
c(
    "array_tracers_promote",
    lambda jnp: lambda a, b: jnp.array([a, b]),
    (I8, H[:3]),
    lambda np: lambda a, b: np.array([a.astype(np.float16), b]),
)
c("array_copy_weak", lambda jnp: lambda x: jnp.array(x), (1.5,), lambda np: lambda x: np.float32(x))
c("asarray", lambda jnp: lambda x: jnp.asarray(x), (I,), lambda np: lambda x: x)
c(
    "asarray_dtype",
    lambda jnp: lambda x: jnp.asarray(x, dtype=jnp.float32),
    (I8,),
    lambda np: lambda x: x.astype(np.float32),
)
c(
    "asarray_weak_strong",
    lambda jnp: lambda x: jnp.asarray(x, dtype=jnp.float32),
    (1.0,),
    lambda np: lambda x: np.float32(x),
)
c(
    "astype",
    lambda jnp: lambda x: jnp.astype(x, jnp.int8),
    (F,),
    lambda np: lambda x: x.astype(np.int8),
)
c("astype_bool", lambda jnp: lambda x: x.astype(bool), (F,), lambda np: lambda x: x.astype(bool))
c(
    "astype_weak",
    lambda jnp: lambda x: jnp.astype(x, jnp.float32),
    (1.0,),
    lambda np: lambda x: np.float32(x),
)
c("copy", lambda jnp: lambda x: jnp.copy(x), (V,), lambda np: lambda x: x.copy())
c(
    "arange_int",
    lambda jnp: lambda: jnp.arange(5),
    (),
    lambda np: lambda: np.arange(5, dtype=np.int32),
)
c(
    "arange_float",
    lambda jnp: lambda: jnp.arange(5.0),
    (),
    lambda np: lambda: np.arange(5, dtype=np.float32),
)
c(
    "arange_start_stop",
    lambda jnp: lambda: jnp.arange(2, 10),
    (),
    lambda np: lambda: np.arange(2, 10, dtype=np.int32),
)
c(
    "arange_step",
    lambda jnp: lambda: jnp.arange(1.0, 5.0, 0.5),
    (),
    lambda np: lambda: np.arange(1, 5, 0.5, dtype=np.float32),
)
c(
    "arange_neg_step",
    lambda jnp: lambda: jnp.arange(5, 0, -2),
    (),
    lambda np: lambda: np.arange(5, 0, -2, dtype=np.int32),
)
c(
    "arange_empty",
    lambda jnp: lambda: jnp.arange(5, 2),
    (),
    lambda np: lambda: np.arange(5, 2, dtype=np.int32),
)
c(
    "arange_dtype",
    lambda jnp: lambda: jnp.arange(0.5, 3, dtype=jnp.int32),
    (),
    lambda np: lambda: np.arange(0.5, 3, dtype=np.int32),
)
c(
    "arange_f16",
    lambda jnp: lambda: jnp.arange(np.float16(1), 4),
    (),
    lambda np: lambda: np.arange(1, 4, dtype=np.float16),
)
c(
    "arange_np_int64",
    lambda jnp: lambda: jnp.arange(np.int64(4)),
    (),
    lambda np: lambda: np.arange(4, dtype=np.int32),
)
c(
    "linspace",
    lambda jnp: lambda: jnp.linspace(0, 1, 5),
    (),
    lambda np: lambda: np.linspace(0, 1, 5, dtype=np.float32),
)
c(
    "linspace_noendpoint",
    lambda jnp: lambda: jnp.linspace(0.0, 1.0, 4, endpoint=False),
    (),
    lambda np: lambda: np.linspace(0, 1, 4, endpoint=False, dtype=np.float32),
)
c(
    "linspace_retstep",
    lambda jnp: lambda: jnp.linspace(0.0, 2.0, 5, retstep=True),
    (),
    lambda np: lambda: np.linspace(0.0, 2.0, 5, retstep=True, dtype=np.float32),
)
c(
    "linspace_int",
    lambda jnp: lambda: jnp.linspace(-3, 3, 4, dtype=int),
    (),
    lambda np: lambda: np.linspace(-3, 3, 4, dtype=np.int32),
)
c(
    "linspace_f16",
    lambda jnp: lambda: jnp.linspace(np.float16(0), 1.0, 3),
    (),
    lambda np: lambda: np.linspace(0, 1, 3, dtype=np.float16),
)
c(
    "linspace_vec_axis",
    lambda jnp: lambda a: jnp.linspace(a, 2 * a, 3, axis=1),
    (V,),
    lambda np: lambda a: np.linspace(a, 2 * a, 3, axis=1),
)
c(
    "linspace_num1",
    lambda jnp: lambda: jnp.linspace(2.0, 5.0, 1),
    (),
    lambda np: lambda: np.linspace(2.0, 5.0, 1, dtype=np.float32),
)
c(
    "linspace_traced",
    lambda jnp: lambda s: jnp.linspace(s, 1.0, 3),
    (0.0,),
    lambda np: lambda s: np.linspace(s, 1.0, 3, dtype=np.float32),
)
c(
    "logspace",
    lambda jnp: lambda: jnp.logspace(0.0, 2.0, 3),
    (),
    lambda np: lambda: np.logspace(0, 2, 3, dtype=np.float32),
)
c(
    "geomspace",
    lambda jnp: lambda: jnp.geomspace(1.0, 1000.0, 4),
    (),
    lambda np: lambda: np.geomspace(1, 1000, 4, dtype=np.float32),
)
c("eye", lambda jnp: lambda: jnp.eye(3), (), lambda np: lambda: np.eye(3, dtype=np.float32))
c(
    "eye_k",
    lambda jnp: lambda: jnp.eye(3, 4, k=-1, dtype=int),
    (),
    lambda np: lambda: np.eye(3, 4, k=-1, dtype=np.int32),
)
c(
    "eye_bool",
    lambda jnp: lambda: jnp.eye(2, dtype=bool),
    (),
    lambda np: lambda: np.eye(2, dtype=bool),
)
c(
    "identity",
    lambda jnp: lambda: jnp.identity(2, jnp.int8),
    (),
    lambda np: lambda: np.identity(2, np.int8),
)
c(
    "tri",
    lambda jnp: lambda: jnp.tri(3, 4, 1),
    (),
    lambda np: lambda: np.tri(3, 4, 1, dtype=np.float32),
)
c("tril", lambda jnp: lambda x: jnp.tril(x), (F,), lambda np: lambda x: np.tril(x))
c("triu_k", lambda jnp: lambda x: jnp.triu(x, -1), (I,), lambda np: lambda x: np.triu(x, -1))
c(
    "tril_3d",
    lambda jnp: lambda x: jnp.tril(x, 1),
    (np.arange(24.0, dtype=np.float32).reshape(2, 3, 4),),
    lambda np: lambda x: np.tril(x, 1),
)
c(
    "meshgrid_xy",
    lambda jnp: lambda a, b: jnp.meshgrid(a, b),
    (V, I8),
    lambda np: lambda a, b: np.meshgrid(a, b),
)
c(
    "meshgrid_ij_sparse",
    lambda jnp: lambda a, b: jnp.meshgrid(a, b, indexing="ij", sparse=True),
    (V, I8),
    lambda np: lambda a, b: np.meshgrid(a, b, indexing="ij", sparse=True),
)
c(
    "indices",
    lambda jnp: lambda: jnp.indices((2, 3)),
    (),
    lambda np: lambda: np.indices((2, 3)).astype(np.int32),
)
c(
    "indices_sparse",
    lambda jnp: lambda: jnp.indices((2, 3), sparse=True),
    (),
    lambda np: lambda: tuple(i.astype(np.int32) for i in np.indices((2, 3), sparse=True)),
)
c("diag_vec", lambda jnp: lambda v: jnp.diag(v, 1), (V,), lambda np: lambda v: np.diag(v, 1))
c("diag_mat", lambda jnp: lambda x: jnp.diag(x, -1), (F,), lambda np: lambda x: np.diag(x, -1))
c(
    "diagflat",
    lambda jnp: lambda x: jnp.diagflat(x),
    (I[:2, :2],),
    lambda np: lambda x: np.diagflat(x),
)
c(
    "diagonal",
    lambda jnp: lambda x: jnp.diagonal(x, 1),
    (F,),
    lambda np: lambda x: np.diagonal(x, 1),
)
c(
    "diagonal_3d",
    lambda jnp: lambda x: jnp.diagonal(x, -1, 2, 0),
    (np.arange(24.0, dtype=np.float32).reshape(2, 3, 4),),
    lambda np: lambda x: np.diagonal(x, -1, 2, 0),
)
c(
    "diagonal_empty",
    lambda jnp: lambda x: jnp.diagonal(x, 7),
    (F,),
    lambda np: lambda x: np.diagonal(x, 7),
)
c("method_diagonal", lambda jnp: lambda x: x.diagonal(), (I,), lambda np: lambda x: x.diagonal())
c("trace", lambda jnp: lambda x: jnp.trace(x), (F,), lambda np: lambda x: np.trace(x))
c(
    "trace_int8",
    lambda jnp: lambda x: jnp.trace(x, 1),
    (I.astype(np.int8),),
    lambda np: lambda x: np.trace(x, 1).astype(np.int32),
)
c(
    "trace_bool",
    lambda jnp: lambda x: jnp.trace(x),
    (B,),
    lambda np: lambda x: np.int32(np.trace(x)),
)
c(
    "trace_u8",
    lambda jnp: lambda x: jnp.trace(x),
    (I.astype(np.uint8),),
    lambda np: lambda x: np.uint32(np.trace(x)),
)
c(
    "trace_f16",
    lambda jnp: lambda x: jnp.trace(x),
    (I.astype(np.float16),),
    lambda np: lambda x: np.float16(np.trace(x)),
)
c(
    "trace_3d",
    lambda jnp: lambda x: jnp.trace(x, 0, 0, 2),
    (np.arange(24.0, dtype=np.float32).reshape(2, 3, 4),),
    lambda np: lambda x: np.trace(x, 0, 0, 2),
)
c(
    "method_trace_dtype",
    lambda jnp: lambda x: x.trace(dtype=jnp.float32),
    (I,),
    lambda np: lambda x: np.trace(x).astype(np.float32),
)
# shape ops
c(
    "reshape",
    lambda jnp: lambda x: jnp.reshape(x, (2, -1)),
    (F,),
    lambda np: lambda x: np.reshape(x, (2, -1)),
)
c(
    "reshape_F",
    lambda jnp: lambda x: jnp.reshape(x, (4, 3), order="F"),
    (F,),
    lambda np: lambda x: np.reshape(x, (4, 3), order="F"),
)
c(
    "reshape_scalar_weak",
    lambda jnp: lambda x: jnp.reshape(x, (1, 1)),
    (2.0,),
    lambda np: lambda x: np.full((1, 1), x, np.float32),
)
c(
    "method_reshape_args",
    lambda jnp: lambda x: x.reshape(6, 2),
    (I,),
    lambda np: lambda x: x.reshape(6, 2),
)
c(
    "method_reshape_tuple",
    lambda jnp: lambda x: x.reshape((2, 6)),
    (I,),
    lambda np: lambda x: x.reshape((2, 6)),
)
c("ravel", lambda jnp: lambda x: jnp.ravel(x), (F,), lambda np: lambda x: np.ravel(x))
c(
    "ravel_F",
    lambda jnp: lambda x: jnp.ravel(x, order="F"),
    (F,),
    lambda np: lambda x: np.ravel(x, order="F"),
)
c("method_flatten", lambda jnp: lambda x: x.flatten(), (I,), lambda np: lambda x: x.flatten())
c("transpose", lambda jnp: lambda x: jnp.transpose(x), (F,), lambda np: lambda x: x.T)
c(
    "transpose_axes",
    lambda jnp: lambda x: jnp.transpose(x, (1, 0, -1)),
    (np.ones((2, 3, 4), np.float32),),
    lambda np: lambda x: np.transpose(x, (1, 0, 2)),
)
c(
    "method_transpose",
    lambda jnp: lambda x: (x.transpose(), x.transpose(2, 0, 1), x.transpose((1, 2, 0))),
    (np.arange(24, dtype=np.int32).reshape(2, 3, 4),),
    lambda np: lambda x: (x.transpose(), x.transpose(2, 0, 1), x.transpose((1, 2, 0))),
)
c(
    "property_T",
    lambda jnp: lambda x: x.T,
    (np.arange(24, dtype=np.int32).reshape(2, 3, 4),),
    lambda np: lambda x: x.T,
)
c(
    "property_mT",
    lambda jnp: lambda x: x.mT,
    (np.arange(24, dtype=np.int32).reshape(2, 3, 4),),
    lambda np: lambda x: np.swapaxes(x, -1, -2),
)
c(
    "swapaxes",
    lambda jnp: lambda x: jnp.swapaxes(x, 0, -1),
    (np.arange(24, dtype=np.int32).reshape(2, 3, 4),),
    lambda np: lambda x: np.swapaxes(x, 0, -1),
)
c(
    "method_swapaxes",
    lambda jnp: lambda x: x.swapaxes(0, 1),
    (F,),
    lambda np: lambda x: x.swapaxes(0, 1),
)
c(
    "moveaxis",
    lambda jnp: lambda x: jnp.moveaxis(x, (0, 1), (2, 0)),
    (np.arange(24, dtype=np.int32).reshape(2, 3, 4),),
    lambda np: lambda x: np.moveaxis(x, (0, 1), (2, 0)),
)
c(
    "expand_dims",
    lambda jnp: lambda x: jnp.expand_dims(x, (0, -1)),
    (F,),
    lambda np: lambda x: np.expand_dims(x, (0, -1)),
)
c(
    "squeeze",
    lambda jnp: lambda x: jnp.squeeze(x),
    (F.reshape(1, 3, 1, 4),),
    lambda np: lambda x: np.squeeze(x),
)
c(
    "squeeze_axis",
    lambda jnp: lambda x: jnp.squeeze(x, (0, -2)),
    (F.reshape(1, 3, 1, 4),),
    lambda np: lambda x: np.squeeze(x, (0, -2)),
)
c(
    "method_squeeze",
    lambda jnp: lambda x: x.squeeze(2),
    (F.reshape(1, 3, 1, 4),),
    lambda np: lambda x: x.squeeze(2),
)
c(
    "broadcast_to",
    lambda jnp: lambda x: jnp.broadcast_to(x, (2, 3, 3)),
    (V.reshape(3, 1),),
    lambda np: lambda x: np.broadcast_to(x, (2, 3, 3)),
)
c(
    "broadcast_to_weak",
    lambda jnp: lambda: jnp.broadcast_to(1.5, (2,)),
    (),
    lambda np: lambda: np.full(2, 1.5, np.float32),
)
c(
    "broadcast_arrays",
    lambda jnp: lambda x, y: jnp.broadcast_arrays(x, y),
    (V.reshape(3, 1), I8),
    lambda np: lambda x, y: list(np.broadcast_arrays(x, y)),
)
c(
    "concatenate",
    lambda jnp: lambda x, y: jnp.concatenate([x, y]),
    (F, I),
    lambda np: lambda x, y: np.concatenate([x, y]),
)
c(
    "concatenate_axis",
    lambda jnp: lambda x, y: jnp.concatenate((x, y), axis=-1),
    (I8, U8),
    lambda np: lambda x, y: np.concatenate([x.astype(np.int16), y.astype(np.int16)]),
)
c(
    "concatenate_none",
    lambda jnp: lambda x, y: jnp.concatenate([x, y], axis=None),
    (F, V),
    lambda np: lambda x, y: np.concatenate([x, y], axis=None),
)
c(
    "concatenate_dtype",
    lambda jnp: lambda x, y: jnp.concatenate([x, y], dtype=jnp.float16),
    (I8, V),
    lambda np: lambda x, y: np.concatenate([x, y]).astype(np.float16),
)
c(
    "concatenate_weak",
    lambda jnp: lambda: jnp.concatenate([jnp.full((2,), 1.0), jnp.full((1,), 2)]),
    (),
    lambda np: lambda: np.array([1, 1, 2], np.float32),
)
c(
    "concatenate_array",
    lambda jnp: lambda x: jnp.concatenate(x, axis=1),
    (np.arange(24, dtype=np.int32).reshape(2, 3, 4),),
    lambda np: lambda x: np.concatenate(list(x), axis=1),
)
c(
    "concat",
    lambda jnp: lambda x, y: jnp.concat([x, y], axis=-1),
    (F, F),
    lambda np: lambda x, y: np.concatenate([x, y], axis=-1),
)
c(
    "stack",
    lambda jnp: lambda x, y: jnp.stack([x, y], axis=-1),
    (F, I),
    lambda np: lambda x, y: np.stack([x, y], axis=-1),
)
c(
    "stack_scalars_weak",
    lambda jnp: lambda: jnp.stack([1.0, 2]),
    (),
    lambda np: lambda: np.array([1.0, 2.0], np.float32),
)
c(
    "stack_array",
    lambda jnp: lambda x: jnp.stack(x, axis=1),
    (I,),
    lambda np: lambda x: np.stack(list(x), axis=1),
)
c(
    "hstack",
    lambda jnp: lambda x, y: jnp.hstack([x, y]),
    (V, I8),
    lambda np: lambda x, y: np.hstack([x, y]),
)
c(
    "vstack",
    lambda jnp: lambda x, y: jnp.vstack([x, y]),
    (V, V),
    lambda np: lambda x, y: np.vstack([x, y]),
)
c(
    "dstack",
    lambda jnp: lambda x, y: jnp.dstack([x, y]),
    (F, F),
    lambda np: lambda x, y: np.dstack([x, y]),
)
c(
    "column_stack",
    lambda jnp: lambda x, y: jnp.column_stack([x, y]),
    (V, V),
    lambda np: lambda x, y: np.column_stack([x, y]),
)
c(
    "append",
    lambda jnp: lambda x, y: jnp.append(x, y),
    (F, V),
    lambda np: lambda x, y: np.append(x, y),
)
c(
    "split_int",
    lambda jnp: lambda x: jnp.split(x, 2, axis=1),
    (F,),
    lambda np: lambda x: np.split(x, 2, axis=1),
)
c(
    "split_indices",
    lambda jnp: lambda x: jnp.split(x, [1, 3], axis=-1),
    (F,),
    lambda np: lambda x: np.split(x, [1, 3], axis=-1),
)
c(
    "array_split",
    lambda jnp: lambda x: jnp.array_split(x, 3, axis=1),
    (F,),
    lambda np: lambda x: np.array_split(x, 3, axis=1),
)
c("hsplit", lambda jnp: lambda x: jnp.hsplit(x, 2), (F,), lambda np: lambda x: np.hsplit(x, 2))
c("vsplit", lambda jnp: lambda x: jnp.vsplit(x, 3), (F,), lambda np: lambda x: np.vsplit(x, 3))
c(
    "dsplit",
    lambda jnp: lambda x: jnp.dsplit(x, 2),
    (np.ones((1, 2, 4), np.float32),),
    lambda np: lambda x: np.dsplit(x, 2),
)
c("tile", lambda jnp: lambda x: jnp.tile(x, 2), (V,), lambda np: lambda x: np.tile(x, 2))
c(
    "tile_rank_up",
    lambda jnp: lambda x: jnp.tile(x, (2, 1, 2)),
    (F,),
    lambda np: lambda x: np.tile(x, (2, 1, 2)),
)
c("tile_weak", lambda jnp: lambda: jnp.tile(1.0, 3), (), lambda np: lambda: np.ones(3, np.float32))
c("repeat", lambda jnp: lambda x: jnp.repeat(x, 2), (F,), lambda np: lambda x: np.repeat(x, 2))
c(
    "repeat_axis",
    lambda jnp: lambda x: jnp.repeat(x, 3, axis=0),
    (I,),
    lambda np: lambda x: np.repeat(x, 3, axis=0),
)
c(
    "repeat_array",
    lambda jnp: lambda x: jnp.repeat(x, np.array([1, 0, 2, 3]), axis=1),
    (I,),
    lambda np: lambda x: np.repeat(x, [1, 0, 2, 3], axis=1),
)
c(
    "repeat_total_short",
    lambda jnp: lambda x: jnp.repeat(x, np.array([1, 2, 3]), total_repeat_length=4),
    (V,),
    lambda np: lambda x: np.repeat(x, [1, 2, 3])[:4],
)
c(
    "repeat_total_long",
    lambda jnp: lambda x: jnp.repeat(x, 2, total_repeat_length=8),
    (V,),
    lambda np: lambda x: np.concatenate([np.repeat(x, 2), [x[-1]] * 2]),
)
c(
    "method_repeat",
    lambda jnp: lambda x: x.repeat(2, axis=1),
    (I,),
    lambda np: lambda x: x.repeat(2, axis=1),
)
c(
    "repeat_weak",
    lambda jnp: lambda: jnp.repeat(1.0, 3),
    (),
    lambda np: lambda: np.ones(3, np.float32),
)
c("flip", lambda jnp: lambda x: jnp.flip(x), (F,), lambda np: lambda x: np.flip(x))
c(
    "flip_axis",
    lambda jnp: lambda x: jnp.flip(x, (0, -1)),
    (np.arange(24, dtype=np.int32).reshape(2, 3, 4),),
    lambda np: lambda x: np.flip(x, (0, -1)),
)
c("fliplr", lambda jnp: lambda x: jnp.fliplr(x), (F,), lambda np: lambda x: np.fliplr(x))
c("flipud", lambda jnp: lambda x: jnp.flipud(x), (F,), lambda np: lambda x: np.flipud(x))
c("roll", lambda jnp: lambda x: jnp.roll(x, 5), (F,), lambda np: lambda x: np.roll(x, 5))
c(
    "roll_axis",
    lambda jnp: lambda x: jnp.roll(x, -1, axis=1),
    (F,),
    lambda np: lambda x: np.roll(x, -1, axis=1),
)
c(
    "roll_multi",
    lambda jnp: lambda x: jnp.roll(x, (1, 7), axis=(0, 2)),
    (np.arange(24, dtype=np.int32).reshape(2, 3, 4),),
    lambda np: lambda x: np.roll(x, (1, 7), axis=(0, 2)),
)
c(
    "roll_broadcast",
    lambda jnp: lambda x: jnp.roll(x, (1, 2), axis=1),
    (F,),
    lambda np: lambda x: np.roll(x, (1, 2), axis=1),
)
c("rot90", lambda jnp: lambda x: jnp.rot90(x), (F,), lambda np: lambda x: np.rot90(x))
c(
    "rot90_k2",
    lambda jnp: lambda x: jnp.rot90(x, 2, axes=(1, 2)),
    (np.arange(24, dtype=np.int32).reshape(2, 3, 4),),
    lambda np: lambda x: np.rot90(x, 2, axes=(1, 2)),
)
c("rot90_k3", lambda jnp: lambda x: jnp.rot90(x, -1), (F,), lambda np: lambda x: np.rot90(x, -1))
c("pad_int", lambda jnp: lambda x: jnp.pad(x, 1), (F,), lambda np: lambda x: np.pad(x, 1))
c(
    "pad_pairs_value",
    lambda jnp: lambda x: jnp.pad(x, ((1, 0), (0, 2)), constant_values=-1),
    (I,),
    lambda np: lambda x: np.pad(x, ((1, 0), (0, 2)), constant_values=-1),
)
c(
    "pad_per_axis_values",
    lambda jnp: lambda x: jnp.pad(x, 1, constant_values=((1, 2), (3, 4))),
    (F,),
    lambda np: lambda x: np.pad(x, 1, constant_values=((1, 2), (3, 4))),
)
c(
    "pad_edge",
    lambda jnp: lambda x: jnp.pad(x, (2, 1), mode="edge"),
    (F,),
    lambda np: lambda x: np.pad(x, (2, 1), mode="edge"),
)
c(
    "pad_reflect",
    lambda jnp: lambda x: jnp.pad(x, ((1, 2), (3, 3)), mode="reflect"),
    (F,),
    lambda np: lambda x: np.pad(x, ((1, 2), (3, 3)), mode="reflect"),
)
c(
    "pad_reflect_big",
    lambda jnp: lambda x: jnp.pad(x, 7, mode="reflect"),
    (V,),
    lambda np: lambda x: np.pad(x, 7, mode="reflect"),
)
c(
    "pad_reflect_odd",
    lambda jnp: lambda x: jnp.pad(x, (5, 4), mode="reflect", reflect_type="odd"),
    (V,),
    lambda np: lambda x: np.pad(x, (5, 4), mode="reflect", reflect_type="odd"),
)
c(
    "pad_symmetric",
    lambda jnp: lambda x: jnp.pad(x, 6, mode="symmetric"),
    (V,),
    lambda np: lambda x: np.pad(x, 6, mode="symmetric"),
)
c(
    "pad_wrap",
    lambda jnp: lambda x: jnp.pad(x, ((5, 4), (1, 3)), mode="wrap"),
    (F,),
    lambda np: lambda x: np.pad(x, ((5, 4), (1, 3)), mode="wrap"),
)
c("pad_empty_mode", lambda jnp: lambda x: jnp.pad(x, 1, mode="empty").shape, (F,), None, False)
c(
    "pad_weak",
    lambda jnp: lambda x: jnp.pad(x, 1),
    (np.float32(2.0),),
    lambda np: lambda x: np.pad(np.float32(x), 1),
)
c(
    "atleast_1d",
    lambda jnp: lambda x: jnp.atleast_1d(x),
    (2.0,),
    lambda np: lambda x: np.atleast_1d(np.float32(x)),
)
c(
    "atleast_2d",
    lambda jnp: lambda x, y: jnp.atleast_2d(x, y),
    (V, I),
    lambda np: lambda x, y: list(np.atleast_2d(x, y)),
)
c(
    "atleast_3d",
    lambda jnp: lambda x: jnp.atleast_3d(x),
    (F,),
    lambda np: lambda x: np.atleast_3d(x),
)
c(
    "where",
    lambda jnp: lambda c, x, y: jnp.where(c, x, y),
    (B, F, 0),
    lambda np: lambda c, x, y: np.where(c, x, np.float32(y)),
)
c(
    "where_weak",
    lambda jnp: lambda c: jnp.where(c, 1.0, 2),
    (True,),
    lambda np: lambda c: np.float32(1.0),
)
c(
    "where_promote",
    lambda jnp: lambda c, x, y: jnp.where(c, x, y),
    (B[0], I8[:1], U8[:1]),
    lambda np: lambda c, x, y: np.where(c, x.astype(np.int16), y.astype(np.int16)),
)
c(
    "where_1arg",
    lambda jnp: lambda c: jnp.where(c),
    (B,),
    lambda np: lambda c: tuple(i.astype(np.int32) for i in np.where(c)),
    False,
)
c(
    "where_1arg_size",
    lambda jnp: lambda c: jnp.where(c, size=8, fill_value=-1),
    (B,),
    lambda np: lambda c: tuple(np.concatenate([i, [-1, -1]]).astype(np.int32) for i in np.where(c)),
)
c(
    "nonzero",
    lambda jnp: lambda x: jnp.nonzero(x),
    (I - 3,),
    lambda np: lambda x: tuple(i.astype(np.int32) for i in np.nonzero(x)),
    False,
)
c(
    "nonzero_size",
    lambda jnp: lambda x: jnp.nonzero(x, size=3, fill_value=(7, 8)),
    (B,),
    lambda np: lambda x: tuple(i[:3].astype(np.int32) for i in np.nonzero(x)),
)
c(
    "nonzero_size_pad",
    lambda jnp: lambda x: jnp.nonzero(x, size=5),
    (np.array([0.0, 1.5, 0.0, 2.0], np.float32),),
    lambda np: lambda x: (np.array([1, 3, 0, 0, 0], np.int32),),
)
c(
    "method_nonzero",
    lambda jnp: lambda x: x.nonzero(size=2),
    (V,),
    lambda np: lambda x: (np.array([0, 1], np.int32),),
)
c(
    "flatnonzero",
    lambda jnp: lambda x: jnp.flatnonzero(x, size=7, fill_value=99),
    (B,),
    lambda np: lambda x: np.concatenate([np.flatnonzero(x), [99]]).astype(np.int32),
)
c(
    "argwhere",
    lambda jnp: lambda x: jnp.argwhere(x),
    (B,),
    lambda np: lambda x: np.argwhere(x).astype(np.int32),
    False,
)
c(
    "argwhere_size",
    lambda jnp: lambda x: jnp.argwhere(x, size=4),
    (B,),
    lambda np: lambda x: np.argwhere(x)[:4].astype(np.int32),
)
c(
    "select",
    lambda jnp: lambda x: jnp.select([x < -2, x > 3], [x, -x], 0.5),
    (F,),
    lambda np: lambda x: np.select([x < -2, x > 3], [x, -x], np.float32(0.5)),
)
c(
    "select_int",
    lambda jnp: lambda c, x: jnp.select([c], [x]),
    (B, I),
    lambda np: lambda c, x: np.select([c], [x]),
)
c(
    "ravel_multi_index",
    lambda jnp: lambda i, j: jnp.ravel_multi_index((i, j), (3, 4), mode="clip"),
    (np.array([0, 2, 5], np.int32), np.array([3, -1, 1], np.int32)),
    lambda np: lambda i, j: np.ravel_multi_index((i, j), (3, 4), mode="clip").astype(np.int32),
)
c(
    "ravel_multi_index_wrap_F",
    lambda jnp: lambda i, j: jnp.ravel_multi_index((i, j), (3, 4), mode="wrap", order="F"),
    (np.array([0, 2, 5], np.int32), np.array([3, -1, 1], np.int32)),
    lambda np: (
        lambda i, j: np.ravel_multi_index((i, j), (3, 4), mode="wrap", order="F").astype(np.int32)
    ),
)
c(
    "unravel_index",
    lambda jnp: lambda i: jnp.unravel_index(i, (3, 4)),
    (np.array([0, 5, 11, -1], np.int32),),
    lambda np: lambda i: tuple(a.astype(np.int32) for a in np.unravel_index(i % 12, (3, 4))),
)
c(
    "unravel_index_weak",
    lambda jnp: lambda: jnp.unravel_index(7, (3, 4)),
    (),
    lambda np: lambda: (np.int32(1), np.int32(3)),
)
c(
    "isclose",
    lambda jnp: lambda x, y: jnp.isclose(x, y),
    (
        np.array([1.0, np.nan, np.inf, 1e-9, 1.0], np.float32),
        np.array([1.0 + 1e-6, np.nan, np.inf, 0.0, 1.1], np.float32),
    ),
    lambda np: lambda x, y: np.isclose(x, y),
)
c(
    "isclose_args",
    lambda jnp: lambda x, y: jnp.isclose(x, y, rtol=0.2, atol=0.0, equal_nan=True),
    (np.array([1.0, np.nan, 1.0], np.float32), np.array([1.1, np.nan, 2.0], np.float32)),
    lambda np: lambda x, y: np.isclose(x, y, rtol=0.2, atol=0.0, equal_nan=True),
)
c(
    "isclose_int",
    lambda jnp: lambda x, y: jnp.isclose(x, y),
    (I, I + 1),
    lambda np: lambda x, y: np.isclose(x, y),
)
c(
    "allclose",
    lambda jnp: lambda x, y: jnp.allclose(x, y),
    (F, F + 1e-6),
    lambda np: lambda x, y: np.bool_(np.allclose(x, y)),
)
c(
    "array_equal",
    lambda jnp: lambda x, y: (jnp.array_equal(x, y), jnp.array_equal(x, y[:2])),
    (F, F),
    lambda np: lambda x, y: (np.bool_(True), np.bool_(False)),
)
c(
    "array_equiv",
    lambda jnp: lambda x, y: jnp.array_equiv(x, y),
    (np.ones((2, 3), np.float32), np.ones(3, np.float32)),
    lambda np: lambda x, y: np.bool_(True),
)
c(
    "delete",
    lambda jnp: lambda x: jnp.delete(x, np.array([0, 2, -1]), axis=1),
    (F,),
    lambda np: lambda x: np.delete(x, [0, 2, -1], axis=1),
)
c(
    "insert",
    lambda jnp: lambda x: jnp.insert(x, 1, 5.0, axis=0),
    (F,),
    lambda np: lambda x: np.insert(x, 1, 5.0, axis=0),
)
c(
    "insert_many",
    lambda jnp: lambda x: jnp.insert(x, np.array([1, 1, 4]), np.array([7, 8, 9]), axis=1),
    (I,),
    lambda np: lambda x: np.insert(x, [1, 1, 4], [7, 8, 9], axis=1),
)
c(
    "resize",
    lambda jnp: lambda x: jnp.resize(x, (2, 5)),
    (V,),
    lambda np: lambda x: np.resize(x, (2, 5)),
)
c(
    "diff",
    lambda jnp: lambda x: jnp.diff(x, n=2, axis=0),
    (I**2,),
    lambda np: lambda x: np.diff(x, n=2, axis=0),
)
c(
    "diff_prepend",
    lambda jnp: lambda x: jnp.diff(x, prepend=0.0),
    (V,),
    lambda np: lambda x: np.diff(x, prepend=0.0).astype(np.float32),
)
c(
    "compress",
    lambda jnp: lambda x: jnp.compress(np.array([1, 0, 1]), x, axis=0),
    (F,),
    lambda np: lambda x: np.compress([1, 0, 1], x, axis=0),
    False,
)
c(
    "extract",
    lambda jnp: lambda x: jnp.extract(B, x),
    (F,),
    lambda np: lambda x: np.extract(B, x),
    False,
)
c(
    "choose",
    lambda jnp: lambda i: jnp.choose(i, [V, 2 * V, 3 * V], mode="clip"),
    (np.array([0, 5, 1], np.int32),),
    lambda np: lambda i: np.choose(i, [V, 2 * V, 3 * V], mode="clip"),
)
c("permute_dims", lambda jnp: lambda x: jnp.permute_dims(x, (1, 0)), (I,), lambda np: lambda x: x.T)


# dtype (and "*" if weakly typed) of each result leaf, as JAX 0.10 returns them (x64 off).
EXPECTED: dict[str, list[str | None]] = {
    "zeros": ["float32"],
    "zeros_int": ["int32"],
    "ones_f16": ["float16"],
    "empty": ["float32"],
    "full_pyfloat": ["float32*"],
    "full_pyint": ["int32*"],
    "full_npscalar": ["float16"],
    "full_dtype": ["int32"],
    "full_array_fill": ["float32"],
    "full_traced_fill": ["float32*"],
    "zeros_like": ["int32"],
    "zeros_like_weak": ["float32*"],
    "ones_like_shape": ["int8"],
    "full_like": ["float16"],
    "full_like_arr": ["float32"],
    "empty_like": ["uint8"],
    "array_list_mixed": ["float32"],
    "array_list_bool_int": ["int32"],
    "array_pyfloat": ["float32*"],
    "array_pyint": ["int32*"],
    "array_bool": ["bool"],
    "array_empty": ["float32"],
    "array_np_f64": ["float32"],
    "array_dtype": ["int32"],
    "array_ndmin": ["float32"],
    "array_of_tracers": ["float32"],
    "array_nested_tracers": ["float32"],
    "array_tracers_promote": ["float16"],
    "array_copy_weak": ["float32*"],
    "asarray": ["int32"],
    "asarray_dtype": ["float32"],
    "asarray_weak_strong": ["float32"],
    "astype": ["int8"],
    "astype_bool": ["bool"],
    "astype_weak": ["float32"],
    "copy": ["float32"],
    "arange_int": ["int32"],
    "arange_float": ["float32"],
    "arange_start_stop": ["int32"],
    "arange_step": ["float32"],
    "arange_neg_step": ["int32"],
    "arange_empty": ["int32"],
    "arange_dtype": ["int32"],
    "arange_f16": ["float16"],
    "arange_np_int64": ["int32"],
    "linspace": ["float32"],
    "linspace_noendpoint": ["float32"],
    "linspace_retstep": ["float32", "float32"],
    "linspace_int": ["int32"],
    "linspace_f16": ["float16"],
    "linspace_vec_axis": ["float32"],
    "linspace_num1": ["float32"],
    "linspace_traced": ["float32"],
    "logspace": ["float32"],
    "geomspace": ["float32"],
    "eye": ["float32"],
    "eye_k": ["int32"],
    "eye_bool": ["bool"],
    "identity": ["int8"],
    "tri": ["float32"],
    "tril": ["float32"],
    "triu_k": ["int32"],
    "tril_3d": ["float32"],
    "meshgrid_xy": ["float32", "int8"],
    "meshgrid_ij_sparse": ["float32", "int8"],
    "indices": ["int32"],
    "indices_sparse": ["int32", "int32"],
    "diag_vec": ["float32"],
    "diag_mat": ["float32"],
    "diagflat": ["int32"],
    "diagonal": ["float32"],
    "diagonal_3d": ["float32"],
    "diagonal_empty": ["float32"],
    "method_diagonal": ["int32"],
    "trace": ["float32"],
    "trace_int8": ["int32"],
    "trace_bool": ["int32"],
    "trace_u8": ["uint32"],
    "trace_f16": ["float16"],
    "trace_3d": ["float32"],
    "method_trace_dtype": ["float32"],
    "reshape": ["float32"],
    "reshape_F": ["float32"],
    "reshape_scalar_weak": ["float32*"],
    "method_reshape_args": ["int32"],
    "method_reshape_tuple": ["int32"],
    "ravel": ["float32"],
    "ravel_F": ["float32"],
    "method_flatten": ["int32"],
    "transpose": ["float32"],
    "transpose_axes": ["float32"],
    "method_transpose": ["int32", "int32", "int32"],
    "property_T": ["int32"],
    "property_mT": ["int32"],
    "swapaxes": ["int32"],
    "method_swapaxes": ["float32"],
    "moveaxis": ["int32"],
    "expand_dims": ["float32"],
    "squeeze": ["float32"],
    "squeeze_axis": ["float32"],
    "method_squeeze": ["float32"],
    "broadcast_to": ["float32"],
    "broadcast_to_weak": ["float32*"],
    "broadcast_arrays": ["float32", "int8"],
    "concatenate": ["float32"],
    "concatenate_axis": ["int16"],
    "concatenate_none": ["float32"],
    "concatenate_dtype": ["float16"],
    "concatenate_weak": ["float32*"],
    "concatenate_array": ["int32"],
    "concat": ["float32"],
    "stack": ["float32"],
    "stack_scalars_weak": ["float32*"],
    "stack_array": ["int32"],
    "hstack": ["float32"],
    "vstack": ["float32"],
    "dstack": ["float32"],
    "column_stack": ["float32"],
    "append": ["float32"],
    "split_int": ["float32", "float32"],
    "split_indices": ["float32", "float32", "float32"],
    "array_split": ["float32", "float32", "float32"],
    "hsplit": ["float32", "float32"],
    "vsplit": ["float32", "float32", "float32"],
    "dsplit": ["float32", "float32"],
    "tile": ["float32"],
    "tile_rank_up": ["float32"],
    "tile_weak": ["float32*"],
    "repeat": ["float32"],
    "repeat_axis": ["int32"],
    "repeat_array": ["int32"],
    "repeat_total_short": ["float32"],
    "repeat_total_long": ["float32"],
    "method_repeat": ["int32"],
    "repeat_weak": ["float32*"],
    "flip": ["float32"],
    "flip_axis": ["int32"],
    "fliplr": ["float32"],
    "flipud": ["float32"],
    "roll": ["float32"],
    "roll_axis": ["float32"],
    "roll_multi": ["int32"],
    "roll_broadcast": ["float32"],
    "rot90": ["float32"],
    "rot90_k2": ["int32"],
    "rot90_k3": ["float32"],
    "pad_int": ["float32"],
    "pad_pairs_value": ["int32"],
    "pad_per_axis_values": ["float32"],
    "pad_edge": ["float32"],
    "pad_reflect": ["float32"],
    "pad_reflect_big": ["float32"],
    "pad_reflect_odd": ["float32"],
    "pad_symmetric": ["float32"],
    "pad_wrap": ["float32"],
    "pad_empty_mode": [None, None],
    "pad_weak": ["float32"],
    "atleast_1d": ["float32*"],
    "atleast_2d": ["float32", "int32"],
    "atleast_3d": ["float32"],
    "where": ["float32"],
    "where_weak": ["float32*"],
    "where_promote": ["int16"],
    "where_1arg": ["int32", "int32"],
    "where_1arg_size": ["int32", "int32"],
    "nonzero": ["int32", "int32"],
    "nonzero_size": ["int32", "int32"],
    "nonzero_size_pad": ["int32"],
    "method_nonzero": ["int32"],
    "flatnonzero": ["int32"],
    "argwhere": ["int32"],
    "argwhere_size": ["int32"],
    "select": ["float32"],
    "select_int": ["int32"],
    "ravel_multi_index": ["int32"],
    "ravel_multi_index_wrap_F": ["int32"],
    "unravel_index": ["int32", "int32"],
    "unravel_index_weak": ["int32*", "int32*"],
    "isclose": ["bool"],
    "isclose_args": ["bool"],
    "isclose_int": ["bool"],
    "allclose": ["bool"],
    "array_equal": ["bool", "bool"],
    "array_equiv": ["bool"],
    "delete": ["float32"],
    "insert": ["float32"],
    "insert_many": ["int32"],
    "resize": ["float32"],
    "diff": ["int32"],
    "diff_prepend": ["float32"],
    "compress": ["float32"],
    "extract": ["float32"],
    "choose": ["float32"],
    "permute_dims": ["int32"],
}


def _leaves(out: Any) -> list:
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _leaves(o)]
    return [out]


def _to_spmd(a: Any) -> Any:
    return jnp.asarray(a) if isinstance(a, (np.ndarray, np.generic)) else a


def _check(case: Case, out: Any) -> None:
    got = _leaves(out)
    want = EXPECTED[case.name]
    assert len(got) == len(want), f"{case.name}: {len(got)} results, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        if w is None:
            continue
        assert isinstance(g, Array), f"{case.name}[{i}]: got {type(g).__name__}, not an Array"
        kind = g.dtype.name + ("*" if g.weak_type else "")
        assert kind == w, f"{case.name}[{i}]: dtype {kind}, expected {w}"
    if case.ref is None:
        return
    ref = _leaves(case.ref(np)(*case.args))
    assert len(ref) == len(got)
    for i, (g, r) in enumerate(zip(got, ref)):
        g, r = np.asarray(g), np.asarray(r)
        assert g.shape == r.shape, f"{case.name}[{i}]: shape {g.shape}, expected {r.shape}"
        if g.dtype.kind in "biu":
            np.testing.assert_array_equal(g, r, err_msg=f"{case.name}[{i}]")
        else:
            np.testing.assert_allclose(
                g.astype(np.float64),
                r.astype(np.float64),
                rtol=1e-6,
                atol=1e-6,
                equal_nan=True,
                err_msg=f"{case.name}[{i}]",
            )


def _params():
    for case in CASES:
        yield pytest.param(case, "eager", id=f"{case.name}-eager")
        if case.jit:
            yield pytest.param(case, "jit", id=f"{case.name}-jit")


@pytest.mark.parametrize("case,mode", list(_params()))
def test_case(case: Case, mode: str) -> None:
    fn = case.make(jnp)
    args = [_to_spmd(a) for a in case.args]
    out = spmd.jit(fn)(*args) if mode == "jit" else fn(*args)
    _check(case, out)


def test_every_case_has_expectations() -> None:
    assert {c.name for c in CASES} == set(EXPECTED)


# ---------------------------------------------------------------------------------------------
# Printed jaxprs: the same primitives, parameters and inner jits as JAX 0.10's (text from JAX).

JAXPRS = {
    "reshape_T": (
        lambda x: x.reshape(6, 4).T,
        (np.ones((4, 6), np.float32),),
        """\
{ lambda ; a:f32[4,6]. let
    b:f32[6,4] = reshape[dimensions=None new_sizes=(6, 4) sharding=None] a
    c:f32[4,6] = transpose[permutation=(1, 0)] b
  in (c,) }""",
    ),
    "arange": (
        lambda: jnp.arange(1.0, 5.0, 0.5),
        (),
        """\
{ lambda ; . let
    a:f32[8] = iota[dimension=0 dtype=float32 shape=(8,) sharding=None]
    b:f32[8] = mul 0.5:f32[] a
    c:f32[8] = add 1.0:f32[] b
  in (c,) }""",
    ),
    "zeros_full": (
        lambda v: (jnp.zeros((2, 3), jnp.int32), jnp.full((2,), v)),
        (1.0,),
        """\
{ lambda ; a:f32[]. let
    b:i32[2,3] = broadcast_in_dim 0:i32[]
    c:f32[2] = broadcast_in_dim a
  in (b, c) }""",
    ),
    "array_tracers": (
        lambda a, b: jnp.array([a, b]),
        (np.int8(1), np.float16(1)),
        """\
{ lambda ; a:i8[] b:f16[]. let
    c:f16[] = convert_element_type[new_dtype=float16 weak_type=False] a
    d:f16[1] = broadcast_in_dim c
    e:f16[1] = broadcast_in_dim b
    f:f16[2] = concatenate[dimension=0] d e
  in (f,) }""",
    ),
    "concat_stack": (
        lambda x, y: (jnp.concatenate([x, y]), jnp.stack([x, x], axis=1)),
        (np.ones((2, 3), np.float32), np.ones((1, 3), np.int32)),
        """\
{ lambda ; a:f32[2,3] b:i32[1,3]. let
    c:f32[1,3] = convert_element_type[new_dtype=float32 weak_type=False] b
    d:f32[3,3] = concatenate[dimension=0] a c
    e:f32[2,2,3] = stack[axis=1] a a
  in (d, e) }""",
    ),
    "split": (
        lambda x: jnp.split(x, 3, axis=1),
        (np.ones((2, 3), np.float32),),
        """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,1] c:f32[2,1] d:f32[2,1] = split[
      axis=1
      sizes=(np.int64(1), np.int64(1), np.int64(1))
    ] a
  in (b, c, d) }""",
    ),
    "repeat_tile": (
        lambda x: (jnp.repeat(x, 2, axis=0), jnp.tile(x, (2, 1, 1))),
        (np.ones((2, 3), np.float32),),
        """\
{ lambda ; a:f32[2,3]. let
    b:f32[2,2,3] = broadcast_in_dim[broadcast_dimensions=(0, 2)] a
    c:f32[4,3] = reshape[dimensions=None new_sizes=(4, 3) sharding=None] b
    d:f32[1,2,3] = broadcast_in_dim[broadcast_dimensions=(1, 2)] a
    e:f32[2,2,3] = tile[reps=(2, 1, 1)] d
  in (c, e) }""",
    ),
    "eye_select": (
        lambda c, a: (jnp.eye(2, 3, k=1), jnp.select([c], [a], 0.5)),
        (np.ones(3, bool), np.ones(3, np.float32)),
        """\
{ lambda ; a:bool[3] b:f32[3]. let
    c:i32[2,3] = iota[dimension=0 dtype=int32 shape=(2, 3) sharding=None]
    d:i32[2,3] = iota[dimension=1 dtype=int32 shape=(2, 3) sharding=None]
    e:i32[2,3] = add c 1:i32[]
    f:bool[2,3] = eq e d
    g:f32[2,3] = convert_element_type[new_dtype=float32 weak_type=False] f
    h:bool[3] = broadcast_in_dim False:bool[]
    i:bool[2,3] = stack[axis=0] h a
    j:i32[3] = argmax[axes=(0,) index_dtype=int32] i
    k:f32[3] = broadcast_in_dim 0.5:f32[]
    l:f32[3] = select_n j k b
  in (g, l) }""",
    ),
    "moveaxis_squeeze_expand": (
        lambda x: jnp.expand_dims(jnp.squeeze(jnp.moveaxis(x, 0, -1)), 0),
        (np.ones((1, 3, 4), np.float32),),
        """\
{ lambda ; a:f32[1,3,4]. let
    b:f32[3,4,1] = transpose[permutation=(1, 2, 0)] a
    c:f32[3,4] = squeeze[dimensions=(2,)] b
    d:f32[1,3,4] = broadcast_in_dim[broadcast_dimensions=(1, 2)] c
  in (d,) }""",
    ),
    "where": (
        lambda c, x: jnp.where(c, x, 0),
        (np.ones(3, bool), np.ones((2, 3), np.float32)),
        """\
{ lambda ; a:bool[3] b:f32[2,3]. let
    c:f32[2,3] = jit[
      name=_where
      jaxpr={ lambda ; a:bool[3] b:f32[2,3] d:i32[]. let
          e:f32[] = convert_element_type[new_dtype=float32 weak_type=False] d
          f:bool[2,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a
          g:f32[2,3] = broadcast_in_dim e
          c:f32[2,3] = select_n f g b
        in (c,) }
    ] a b 0:i32[]
  in (c,) }""",
    ),
    "pad": (
        lambda x: jnp.pad(x, ((1, 0), (0, 2)), constant_values=3.0),
        (np.ones((2, 3), np.float32),),
        """\
{ lambda ; a:f32[2,3]. let
    b:f32[3,5] = jit[
      name=_pad
      jaxpr={ lambda ; a:f32[2,3] c:f32[]. let
          d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c
          b:f32[3,5] = pad[
            padding_config=((np.int64(1), np.int64(0), 0), (np.int64(0), np.int64(2), 0))
          ] a d
        in (b,) }
    ] a 3.0:f32[]
  in (b,) }""",
    ),
    "roll": (
        lambda x: jnp.roll(x, 1, 0),
        (np.ones(3, np.float32),),
        """\
{ lambda ; a:f32[3]. let
    b:f32[3] = jit[
      name=_roll_static
      jaxpr={ lambda ; a:f32[3]. let
          c:f32[1] = slice[limit_indices=(3,) start_indices=(2,) strides=(1,)] a
          d:f32[2] = slice[limit_indices=(2,) start_indices=(0,) strides=(1,)] a
          b:f32[3] = concatenate[dimension=0] c d
        in (b,) }
    ] a
  in (b,) }""",
    ),
}


@pytest.mark.parametrize("name", list(JAXPRS))
def test_jaxpr_text(name: str) -> None:
    fn, args, text = JAXPRS[name]
    # Lines are compared without trailing blanks (JAX ends ``iota[...]`` lines with one).
    got = "\n".join(line.rstrip() for line in str(spmd.make_jaxpr(fn)(*args)).splitlines())
    assert got == text


# ---------------------------------------------------------------------------------------------
# Errors: the builtin class JAX raises, before any work, naming the sizes/axes involved.

X23 = np.ones((2, 3), np.float32)

ERRORS = [
    # (id, fn, exception class, message fragment)
    (
        "reshape_size",
        lambda x: jnp.reshape(x, (4, 2)),
        TypeError,
        "cannot reshape array of shape (2, 3) (size 6) into shape (4, 2) (size 8)",
    ),
    ("reshape_method_size", lambda x: x.reshape(4, 2), TypeError, "(size 6)"),
    ("reshape_infer", lambda x: jnp.reshape(x, (4, -1)), TypeError, "does not evenly divide 6"),
    ("reshape_two_unknown", lambda x: jnp.reshape(x, (-1, -1)), TypeError, "one unknown axis"),
    ("transpose_axis", lambda x: jnp.transpose(x, (0, 2)), ValueError, "axis 2 is out of bounds"),
    ("transpose_perm", lambda x: jnp.transpose(x, (0, 0)), TypeError, "permutation"),
    ("swapaxes_axis", lambda x: jnp.swapaxes(x, 0, 2), ValueError, "out of bounds"),
    ("swapaxes_index", lambda x: jnp.swapaxes(x, 0, 2), IndexError, "out of bounds"),
    ("moveaxis_axis", lambda x: jnp.moveaxis(x, 0, 5), ValueError, "5 is out of bounds"),
    ("moveaxis_len", lambda x: jnp.moveaxis(x, (0, 1), 0), ValueError, "2 vs 1"),
    ("expand_dims_axis", lambda x: jnp.expand_dims(x, 3), ValueError, "dimension 3"),
    ("expand_dims_repeat", lambda x: jnp.expand_dims(x, (0, 0)), ValueError, "repeated axis"),
    ("squeeze_axis", lambda x: jnp.squeeze(x, 2), ValueError, "axis 2 is out of bounds"),
    ("squeeze_size", lambda x: jnp.squeeze(x, 0), ValueError, "shape=(2, 3)"),
    ("broadcast_to", lambda x: jnp.broadcast_to(x, (3, 3)), ValueError, "float32[3,3]"),
    ("broadcast_to_rank", lambda x: jnp.broadcast_to(x, (3,)), ValueError, "fewer dimensions"),
    ("broadcast_arrays", lambda x: jnp.broadcast_arrays(x, jnp.ones(2)), ValueError, "(2,)"),
    ("concat_axis", lambda x: jnp.concatenate([x, x], axis=2), ValueError, "dimension 2"),
    ("concat_rank", lambda x: jnp.concatenate([x, x[0]]), TypeError, "(2, 3), (3,)"),
    ("concat_shape", lambda x: jnp.concatenate([x, x[:, :2]]), TypeError, "(2, 3), (2, 2)"),
    ("concat_empty", lambda x: jnp.concatenate([]), ValueError, "at least one array"),
    ("concat_0d", lambda x: jnp.concatenate([x[0, 0], x[0, 0]]), ValueError, "Zero-dimensional"),
    ("stack_shape", lambda x: jnp.stack([x, x[:1]]), ValueError, "(2, 3), (1, 3)"),
    ("stack_axis", lambda x: jnp.stack([x, x], axis=3), ValueError, "axis 3"),
    ("split_uneven", lambda x: jnp.split(x, 2, axis=1), ValueError, "equal division: rest is 1"),
    ("split_axis", lambda x: jnp.split(x, 2, axis=2), ValueError, "axis 2 is out of bounds"),
    ("split_decreasing", lambda x: jnp.split(x, [2, 1], axis=1), ValueError, "nonnegative"),
    ("flip_axis", lambda x: jnp.flip(x, 2), ValueError, "axis 2"),
    ("roll_axis", lambda x: jnp.roll(x, 1, 3), ValueError, "axis 3"),
    ("diagonal_1d", lambda x: jnp.diagonal(x[0]), ValueError, "two dimensions"),
    ("diagonal_axis", lambda x: jnp.diagonal(x, 0, 0, 2), ValueError, "axis2 2"),
    ("trace_1d", lambda x: jnp.trace(x[0]), ValueError, "out of bounds"),
    ("diag_3d", lambda x: jnp.diag(x[None]), ValueError, "1d or 2d"),
    ("tril_1d", lambda x: jnp.tril(x[0]), ValueError, "at least 2D"),
    ("rot90_1d", lambda x: jnp.rot90(x[0]), ValueError, "ndim at least two"),
    ("rot90_axes", lambda x: jnp.rot90(x, axes=(1, 1)), ValueError, "different"),
    ("mT_1d", lambda x: x[0].mT, ValueError, "at least two-dimensional"),
    ("meshgrid_2d", lambda x: jnp.meshgrid(x), ValueError, "must be 1D"),
    ("meshgrid_indexing", lambda x: jnp.meshgrid(x[0], indexing="yx"), ValueError, "'xy'"),
    ("pad_mode", lambda x: jnp.pad(x, 1, mode="foo"), NotImplementedError, "'foo'"),
    ("pad_negative", lambda x: jnp.pad(x, -1), ValueError, "negative"),
    ("pad_width_shape", lambda x: jnp.pad(x, ((1, 1),) * 3), ValueError, "shape (3, 2)"),
    ("pad_empty_edge", lambda x: jnp.pad(x[:, :0], 1, mode="edge"), ValueError, "empty axis"),
    ("repeat_shape", lambda x: jnp.repeat(x, np.array([1, 2]), axis=1), ValueError, "(2,)"),
    ("repeat_list", lambda x: jnp.repeat(x, [1, 2], axis=0), TypeError, "position 1"),
    ("select_len", lambda x: jnp.select([x > 0], [x, x]), ValueError, "(1 vs 2)"),
    ("where_one_of_xy", lambda x: jnp.where(x, 1), TypeError, "position 2"),
    ("where_size_3arg", lambda x: jnp.where(x, 1, 2, size=3), ValueError, "size"),
    ("nonzero_0d", lambda x: jnp.nonzero(x[0, 0]), ValueError, "0d arrays"),
    ("astype_dtype", lambda x: jnp.astype(x, str), TypeError, "dtype"),
    ("delete_index", lambda x: jnp.delete(x, 5, axis=1), ValueError, "index 5"),
    ("compress_long", lambda x: jnp.compress(np.ones(4), x, axis=0), ValueError, "out of bounds"),
    ("choose_raise", lambda x: jnp.choose(np.array([0, 2]), [x[0, :2], x[1, :2]]), ValueError, ""),
]


@pytest.mark.parametrize("fn,exc,msg", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_errors(fn, exc, msg, mode) -> None:
    f = spmd.jit(fn) if mode == "jit" else fn
    with pytest.raises(exc) as info:
        f(jnp.asarray(X23))
    assert msg in str(info.value)


CREATION_ERRORS = [
    ("arange_step0", lambda: jnp.arange(0, 5, 0), ZeroDivisionError),
    ("arange_complex", lambda: jnp.arange(1j), ValueError),
    ("arange_none", lambda: jnp.arange(None), TypeError),
    ("arange_bool", lambda: jnp.arange(3, dtype=bool), TypeError),
    ("zeros_float_shape", lambda: jnp.zeros(2.5), TypeError),
    ("zeros_negative", lambda: jnp.zeros((2, -1)), TypeError),
    ("eye_negative", lambda: jnp.eye(-1), ValueError),
    ("linspace_negative", lambda: jnp.linspace(0, 1, -1), ValueError),
    ("full_shape", lambda: jnp.full((2,), jnp.ones(3)), ValueError),
    ("array_none", lambda: jnp.array(None), ValueError),
    ("array_str", lambda: jnp.array("abc"), TypeError),
    ("array_ragged", lambda: jnp.array([[1, 2], [3]]), ValueError),
    ("array_overflow", lambda: jnp.array(2**40), OverflowError),
]


@pytest.mark.parametrize(
    "fn,exc", [e[1:] for e in CREATION_ERRORS], ids=[e[0] for e in CREATION_ERRORS]
)
def test_creation_errors(fn, exc) -> None:
    with pytest.raises(exc):
        fn()


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: jnp.nonzero(x),
        lambda x: jnp.where(x),
        lambda x: jnp.argwhere(x),
        lambda x: jnp.flatnonzero(x),
        lambda x: jnp.arange(x[0, 0].astype(int)),
        lambda x: jnp.repeat(x, x[0].astype(int), axis=1),
        lambda x: jnp.ravel_multi_index((x[0].astype(int),), (3,)),
    ],
    ids=["nonzero", "where", "argwhere", "flatnonzero", "arange", "repeat", "ravel_multi_index"],
)
def test_concretization_errors(fn) -> None:
    # Value-dependent shapes need concrete values (or a static size) under jit.
    with pytest.raises(ConcretizationTypeError):
        spmd.jit(fn)(X23)
    assert issubclass(ConcretizationTypeError, TypeError)


def test_traced_shape_argument() -> None:
    with pytest.raises(TypeError, match="concrete values of integer type"):
        spmd.jit(lambda n: jnp.zeros(n))(3)


# ---------------------------------------------------------------------------------------------
# Traced counts and shifts, utilities


def test_repeat_traced_repeats_with_total_length() -> None:
    f = spmd.jit(lambda x, r: jnp.repeat(x, r, total_repeat_length=7))
    x, r = np.array([1.0, 2.0, 3.0], np.float32), np.array([2, 0, 3], np.int32)
    out = f(x, r)
    np.testing.assert_array_equal(out, [1, 1, 3, 3, 3, 3, 3])
    assert out.dtype == np.float32


def test_roll_traced_shift() -> None:
    x = np.arange(10, dtype=np.int32).reshape(2, 5)
    out = spmd.jit(lambda s: jnp.roll(x, s, axis=1))(3)
    np.testing.assert_array_equal(out, np.roll(x, 3, axis=1))


def test_where_is_jit_wrapped_like_jax() -> None:
    closed = spmd.make_jaxpr(lambda c, x, y: jnp.where(c, x, y))(True, 1.0, 2)
    (eqn,) = closed.eqns
    assert eqn.primitive.name == "jit" and eqn.params["name"] == "_where"
    inner = [e.primitive.name for e in eqn.params["jaxpr"].eqns]
    assert inner == ["convert_element_type", "select_n"]
    assert closed.out_avals[0].weak_type


def test_constants_and_dtype_utilities() -> None:
    assert jnp.pi == np.pi and jnp.e == np.e and jnp.euler_gamma == np.euler_gamma
    assert jnp.inf == np.inf and np.isnan(jnp.nan) and jnp.newaxis is None
    assert jnp.dtype is np.dtype
    assert jnp.result_type(jnp.int8, 1.0) == np.float32
    assert jnp.result_type(1, 2.0) == np.float32
    assert jnp.promote_types(jnp.int8, jnp.uint8) == np.int16
    assert jnp.can_cast(jnp.int8, jnp.int32) and not jnp.can_cast(jnp.float32, jnp.int32)
    assert int(jnp.iinfo(jnp.int8).max) == 127 and float(jnp.finfo(jnp.float16).eps) == 2**-10
    assert jnp.issubdtype(jnp.bfloat16, jnp.floating) if hasattr(jnp, "floating") else True
    assert jnp.isdtype(jnp.int8, "integral")


def test_inspection_utilities() -> None:
    x = jnp.ones((2, 3))
    assert jnp.shape(x) == (2, 3) and jnp.shape(1.0) == () and jnp.shape([[1, 2]]) == (1, 2)
    assert jnp.ndim(x) == 2 and jnp.size(x) == 6 and jnp.size(x, 1) == 3 and jnp.size(x, -2) == 2
    assert jnp.isscalar(1.0) and jnp.isscalar(jnp.array(1.0)) and jnp.isscalar(np.float32(1))
    assert not jnp.isscalar([1.0]) and not jnp.isscalar(x)
    assert jnp.iscomplexobj(1j) and not jnp.iscomplexobj(x) and jnp.isrealobj(x)
    assert jnp.broadcast_shapes((2, 1), (3,), 1) == (2, 3)
    with pytest.raises(ValueError, match="Incompatible shapes"):
        jnp.broadcast_shapes((2, 3), (2,))


def test_array_copy_and_asarray_identity() -> None:
    x = jnp.arange(3)
    assert jnp.asarray(x) is x
    y = jnp.array(x)
    assert y is not x and y._value is not x._value
    np.testing.assert_array_equal(y, x)
    assert jnp.array(x, copy=False) is x


def test_linspace_eager_equals_jit() -> None:
    f = lambda a, b: jnp.linspace(a, b, 7, axis=-1)  # noqa: E731
    a, b = np.array([0.0, 1.0], np.float32), np.array([1.0, -3.0], np.float32)
    np.testing.assert_array_equal(f(a, b), spmd.jit(f)(a, b))


def test_hypot_does_not_overflow_and_has_jax_slopes():
    # Values from JAX 0.10 (and NumPy for the values): the larger leg is factored out, so
    # 1e30 legs do not overflow float32; at (0, 0) each leg gets half the slope.
    f32 = np.float32
    assert float(jnp.hypot(f32(1e30), f32(1e30))) == float(np.hypot(f32(1e30), f32(1e30)))
    assert float(jnp.hypot(f32(np.inf), f32(np.nan))) == np.inf
    assert np.isnan(float(jnp.hypot(f32(np.nan), f32(1.0))))
    g = spmd.grad(jnp.hypot, argnums=(0, 1))
    assert [float(v) for v in g(f32(0.0), f32(0.0))] == [0.5, 0.5]
    assert [float(v) for v in g(f32(-3.0), f32(0.0))] == [-1.0, 0.0]
    with pytest.raises(ValueError, match="hypot"):
        jnp.hypot(np.complex64(1), np.complex64(1))


def test_digamma_at_infinities():
    from spmd import lax

    assert float(lax.digamma(np.float32(np.inf))) == np.inf
    assert np.isnan(float(lax.digamma(np.float32(-np.inf))))  # raised OverflowError before


def test_scipy_needs_no_import_of_its_own():
    # As `jax.scipy.special` after a bare `import jax`; checked in a fresh interpreter, since
    # this one may have imported spmd.scipy already.
    import subprocess
    import sys

    code = "import spmd; print(float(spmd.scipy.special.xlogy(2.0, 1.0)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0.0"


def test_python_int_operands_wrap_into_small_int_dtypes_and_imag_stays_weak():
    # Values from JAX 0.10: a weakly typed Python int converts like a value of its default
    # dtype (wrapping), it does not raise OverflowError; imag of a Python scalar is weak.
    a = jnp.array(np.array([1, 2, 3], np.int8))
    np.testing.assert_array_equal(np.asarray(a + 300), np.array([45, 46, 47], np.int8))
    np.testing.assert_array_equal(np.asarray(a * 1000), np.array([-24, -48, -72], np.int8))
    np.testing.assert_array_equal(np.asarray(a == 258), [False, True, False])
    assert (a + 300).dtype == np.int8
    assert jnp.imag(3).weak_type and not jnp.imag(np.ones(2, np.float32)).weak_type


def test_unique_under_grad_of_concrete_values():
    # JAX 0.10 allows jnp.unique under grad of a concrete array but returns a zero gradient
    # (it drops the tangent); spmd differentiates it (each distinct value's slope goes to its
    # first occurrence). Under jit it still needs size=.
    from spmd.errors import ConcretizationTypeError

    x = np.array([3.0, 1.0, 3.0, 2.0], np.float32)
    g = spmd.grad(lambda v: jnp.sum(jnp.unique(v) * jnp.arange(3.0)))(x)
    np.testing.assert_array_equal(np.asarray(g), [2.0, 0.0, 0.0, 1.0])
    with pytest.raises(ConcretizationTypeError, match="size="):
        spmd.jit(jnp.unique)(x)
