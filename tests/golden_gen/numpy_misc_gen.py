"""Cases for the ``jax.numpy`` functions of ``spmd/_src/numpy/{functional,setops,misc}.py``, and
the recording of JAX's results for them into ``tests/golden/numpy_misc.json``.

Run with real JAX (not spmd):  ``/path/to/jax/python tests/golden_gen/numpy_misc_gen.py``.

``tests/test_numpy_misc.py`` imports ``CASES`` from this file (nothing here imports JAX at module
level). Each case is a maker ``make(jnp) -> fn`` and deterministic arguments (NumPy arrays become
arrays of the library under test; Python scalars stay weakly typed). For every case the script
records ``fn(*args)`` eagerly and under ``jax.jit`` (the jit result only where it differs), with
``grad=True`` also ``jax.grad(weighted_loss(fn))`` with respect to the first argument, and for a
case that raises the exception class (eagerly: ``error=``; only under jit: ``jit_error=``), which
must be what the case declares, else the script reports it and exits non-zero. Leaves are
recorded as in ``numpy_gen.py``; complex leaves keep ``{"real": [...], "imag": [...]}``.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

TESTS = Path(__file__).resolve().parent.parent
OUT = TESTS / "golden" / "numpy_misc.json"


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[Any], Callable]
    args: tuple
    jit: bool = True
    grad: bool = False
    error: str | None = None
    jit_error: str | None = None


CASES: list[Case] = []


def case(name, make, *args, jit=True, grad=False, error=None, jit_error=None) -> None:
    if any(c.name == name for c in CASES):
        raise ValueError(f"duplicate case name {name!r}")
    CASES.append(Case(name, make, tuple(args), jit, grad, error, jit_error))


def weighted_loss(jnp, fn):
    """``fn``'s float outputs folded into one number with fixed weights 1, 2, 3, 1, 2, ... (a
    plain sum would make many gradients trivially all ones)."""

    def loss(*args):
        from cases_numpy import flatten

        total = 0.0
        for x in flatten(fn(*args))[1]:
            x = jnp.asarray(x)
            if jnp.issubdtype(x.dtype, jnp.floating):
                w = (jnp.arange(x.size) % 3 + 1).reshape(x.shape).astype(x.dtype)
                total = total + jnp.sum(x * w)
        return total

    return loss


# ---------------------------------------------------------------------------------------------
# Inputs

F3 = np.array([0.5, -1.25, 2.0], np.float32)
F6 = (np.arange(6, dtype=np.float32) - 2.5).reshape(2, 3)
F24 = ((np.arange(24, dtype=np.float32) - 11) / 4).reshape(2, 3, 4)
F5 = np.linspace(-2, 2, 5).astype(np.float32)
I6 = np.arange(6, dtype=np.int32).reshape(2, 3)
A = np.array([5, 1, 3, 3, 7, 1], np.int32)
B = np.array([3, 4, 1, 8], np.int32)
FN = np.array([1.0, np.nan, 2.0, np.nan, -0.0], np.float32)
HX = np.array([0.0, 1.0, 1.5, 2.0, 3.0, 0.5], np.float32)
HY = np.array([1.0, 0.0, 2.0, 2.0, 1.0, 0.3], np.float32)
HS = np.stack([HX, HY], 1)
C4 = np.array([1 + 2j, 1 - 1j, 5j, 1 + 0j], np.complex64)
BITS = np.array([1, 0, 1, 1, 0, 0, 0, 1, 1, 1, 1], np.int32)
BYTES = np.array([[177], [7]], np.uint8)
M33 = np.zeros((3, 3), np.float32)

# ---------------------------------------------------------------------------------------------
# vectorize

case("vec_basic", lambda jnp: jnp.vectorize(lambda x, y: x * y + 1), F3, I6[:, :1])
case("vec_scalars", lambda jnp: lambda: jnp.vectorize(lambda x, y: x * y + 1)(2, 3))
case("vec_pyfloat", lambda jnp: lambda: jnp.vectorize(lambda x, y: x * y + 1)(2.0, 3))
case("vec_lists", lambda jnp: lambda: jnp.vectorize(lambda x, y: x * y)([1, 2], [3, 4]))
case("vec_sin_grad", lambda jnp: jnp.vectorize(jnp.sin), F6, grad=True)
case(
    "vec_sig_matvec",
    lambda jnp: jnp.vectorize(lambda a, b: a @ b, signature="(n,m),(m)->(n)"),
    F24, np.array([1.0, -2.0, 0.5, 3.0], np.float32), grad=True,
)  # fmt: skip
case(
    "vec_sig_multi_out",
    lambda jnp: jnp.vectorize(lambda a: (a.sum(), a * 2), signature="(n)->(),(n)"),
    F6, grad=True,
)  # fmt: skip
case(
    "vec_sig_new_dim",
    lambda jnp: jnp.vectorize(lambda a: jnp.concatenate([a, a[::-1]]), signature="(n)->(m)"),
    F6,
)
case(
    "vec_sig_rank_bcast",
    lambda jnp: jnp.vectorize(lambda a, b: a * b, signature="(n),(n)->(n)"),
    np.ones((2, 1, 3), np.float32), F6,
)  # fmt: skip
case(
    "vec_sig_scalar_core",
    lambda jnp: jnp.vectorize(lambda a, b: a * b, signature="(),()->()"),
    np.arange(3, dtype=np.int32), 2,
)  # fmt: skip
case("vec_size1_loop", lambda jnp: jnp.vectorize(lambda a, b: a - b), F6[:1], F6[:1, :1])
case("vec_excluded_pos", lambda jnp: jnp.vectorize(lambda x, p: x**p, excluded={1}), F3, 2)
case(
    "vec_excluded_kw",
    lambda jnp: lambda x: jnp.vectorize(lambda x, p=1: x**p, excluded={"p"})(x, p=3),
    F3,
)
case(
    "vec_matmul_grad",
    lambda jnp: jnp.vectorize(lambda a, b: jnp.dot(a, b) ** 2, signature="(n),(n)->()"),
    F6, F3, grad=True,
)  # fmt: skip
V2 = "(n,m),(m)->(n)"
case("vec_err_core_size", lambda jnp: jnp.vectorize(jnp.dot, signature=V2), F24, F3,
     error="ValueError")  # fmt: skip
case("vec_err_rank", lambda jnp: jnp.vectorize(jnp.dot, signature=V2), F3, F3, error="ValueError")
case("vec_err_nargs", lambda jnp: jnp.vectorize(jnp.dot, signature=V2), F24, error="TypeError")
case(
    "vec_err_signature",
    lambda jnp: lambda x: jnp.vectorize(lambda a: a, signature="(n")(x),
    F3, error="ValueError",
)  # fmt: skip
case(
    "vec_err_not_tuple",
    lambda jnp: jnp.vectorize(lambda a: a.sum(), signature="(n)->(),(n)"),
    F6, error="TypeError",
)  # fmt: skip
case("vec_err_out_rank", lambda jnp: jnp.vectorize(lambda a: a, signature="(n)->()"), F6,
     error="ValueError")  # fmt: skip
case(
    "vec_err_out_size",
    lambda jnp: jnp.vectorize(lambda a: jnp.concatenate([a, a]), signature="(n)->(n)"),
    F6, error="ValueError",
)  # fmt: skip
case("vec_err_broadcast", lambda jnp: jnp.vectorize(lambda x, y: x + y), F3, F6[:, :2],
     error="ValueError")  # fmt: skip
case("vec_err_excluded_type", lambda jnp: lambda: jnp.vectorize(abs, excluded={1.5}),
     error="TypeError")  # fmt: skip
case("vec_err_excluded_neg", lambda jnp: lambda: jnp.vectorize(abs, excluded={-1}),
     error="ValueError")  # fmt: skip

# ---------------------------------------------------------------------------------------------
# apply_along_axis, apply_over_axes

case("aaa_sum", lambda jnp: lambda x: jnp.apply_along_axis(jnp.sum, 1, x), F24, grad=True)
case(
    "aaa_vector",
    lambda jnp: lambda x: jnp.apply_along_axis(lambda v: v * 2 + v[::-1], -1, x),
    F24, grad=True,
)  # fmt: skip
case("aaa_outer", lambda jnp: lambda x: jnp.apply_along_axis(lambda v: jnp.outer(v, v), 1, x),
     F24, grad=True)  # fmt: skip
case(
    "aaa_args",
    lambda jnp: lambda x: jnp.apply_along_axis(lambda v, a, b=1: v.sum() * a + b, 0, x, 2.0, b=3),
    F24,
)  # fmt: skip
case("aaa_int", lambda jnp: lambda x: jnp.apply_along_axis(jnp.sum, 0, x), I6)
case(
    "aaa_tuple_out",
    lambda jnp: lambda x: jnp.apply_along_axis(lambda v: (v.sum(), v.max()), 0, x),
    I6,
)
case("aaa_py_out", lambda jnp: lambda x: jnp.apply_along_axis(lambda v: 1.0, 0, x), I6)
case("aaa_err_axis", lambda jnp: lambda x: jnp.apply_along_axis(jnp.sum, 3, x), F24,
     error="ValueError")  # fmt: skip
case("aaa_err_list", lambda jnp: lambda: jnp.apply_along_axis(jnp.sum, 0, [[1, 2]]),
     error="TypeError")  # fmt: skip
case("aaa_err_scalar", lambda jnp: lambda: jnp.apply_along_axis(jnp.sum, 0, 3.0),
     error="ValueError")  # fmt: skip
case("aoa_sum", lambda jnp: lambda x: jnp.apply_over_axes(jnp.sum, x, [0, 2]), F24, grad=True)
case("aoa_neg", lambda jnp: lambda x: jnp.apply_over_axes(jnp.max, x, (-1,)), F24)
case(
    "aoa_cumsum",
    lambda jnp: lambda x: jnp.apply_over_axes(lambda a, ax: jnp.cumsum(a, ax), x, [0, 2]),
    F24, grad=True,
)  # fmt: skip
case("aoa_empty", lambda jnp: lambda x: jnp.apply_over_axes(jnp.sum, x, []), F6)
case("aoa_err_int_axes", lambda jnp: lambda x: jnp.apply_over_axes(jnp.sum, x, 1), F24,
     error="TypeError")  # fmt: skip
case(
    "aoa_err_shape",
    lambda jnp: lambda x: jnp.apply_over_axes(lambda a, ax: a.sum(), x, [0]),
    F24, error="ValueError",
)  # fmt: skip
case("aoa_err_list", lambda jnp: lambda: jnp.apply_over_axes(jnp.sum, [[1, 2]], [0]),
     error="TypeError")  # fmt: skip

# ---------------------------------------------------------------------------------------------
# piecewise, fromfunction

case(
    "pw_funcs",
    lambda jnp: lambda x: jnp.piecewise(x, [x < 0, x >= 0], [lambda v: -v, lambda v: v**2]),
    F5, grad=True,
)  # fmt: skip
case(
    "pw_default",
    lambda jnp: lambda x: jnp.piecewise(x, [x < 0], [lambda v: v**3, lambda v: v * 10]),
    F5, grad=True,
)  # fmt: skip
case("pw_consts", lambda jnp: lambda x: jnp.piecewise(x, [x < 0, x > 0], [-1, 1]), F5)
case("pw_const_default", lambda jnp: lambda x: jnp.piecewise(x, [x < 0, x > 0], [-1, 1, 7]), F5)
case(
    "pw_int_cast",
    lambda jnp: lambda x: jnp.piecewise(x, [x < 2], [lambda v: v * 2.5, 0]),
    np.arange(4, dtype=np.int32),
)
case(
    "pw_args",
    lambda jnp: lambda x: jnp.piecewise(x, [x < 0], [lambda v, a, b=0: v * a + b, 0], 3.0, b=1.0),
    F5,
)  # fmt: skip
case("pw_overlap", lambda jnp: lambda x: jnp.piecewise(x, [x < 1, x > -1], [1.0, 2.0]), F5)
case("pw_2d", lambda jnp: lambda x: jnp.piecewise(x, [x < 0], [jnp.sin, jnp.cos]), F6, grad=True)
case("pw_scalar_x", lambda jnp: lambda: jnp.piecewise(2.0, [True], [lambda v: v * 3]))
case(
    "pw_cond_int",
    lambda jnp: lambda x: jnp.piecewise(x, [jnp.array([1, 0, 2, 0, 0])], [7.0]),
    F5,
)
case(
    "pw_cond_array",
    lambda jnp: lambda x: jnp.piecewise(x, jnp.stack([x < 0, x > 0]), [1.0, 2.0]),
    F5,
)
case("pw_f16", lambda jnp: lambda x: jnp.piecewise(x, [x < 0], [1.0, 2.5]), F5.astype(np.float16))
case("pw_err_count", lambda jnp: lambda x: jnp.piecewise(x, [x < 0], [1, 2, 3]), F5,
     error="ValueError")  # fmt: skip
case("pw_err_scalar_cond", lambda jnp: lambda x: jnp.piecewise(x, True, [1.0]), F5,
     error="TypeError")  # fmt: skip
case(
    "pw_err_cond_shape",
    lambda jnp: lambda x: jnp.piecewise(x, [jnp.array([True, False])], [1.0]),
    F5, error="ValueError",
)  # fmt: skip
case("pw_err_list", lambda jnp: lambda: jnp.piecewise([1.0, 2.0], [True], [1.0]),
     error="TypeError")  # fmt: skip
case("ff_float", lambda jnp: lambda: jnp.fromfunction(lambda i, j: i + 2 * j, (2, 3)))
case("ff_int", lambda jnp: lambda: jnp.fromfunction(lambda i, j: i * j, (3, 2), dtype=int))
case("ff_const", lambda jnp: lambda: jnp.fromfunction(lambda i, j: 1, (2, 3)))
case("ff_tuple", lambda jnp: lambda: jnp.fromfunction(lambda i, j: (i, j * 2), (2, 3)))
case("ff_1d", lambda jnp: lambda: jnp.fromfunction(lambda i: jnp.sin(i), (4,)))
case(
    "ff_3d",
    lambda jnp: lambda: jnp.fromfunction(lambda i, j, k: i * 100 + j * 10 + k, (2, 3, 2)),
)

# ---------------------------------------------------------------------------------------------
# block, r_, c_, mgrid, ogrid

ONES22, ZEROS21 = np.ones((2, 2), np.float32), np.zeros((2, 1), np.float32)
case(
    "block_2d",
    lambda jnp: lambda a, b: jnp.block([[a, b], [jnp.full((1, 3), 2.0)]]),
    ONES22, ZEROS21, grad=True,
)  # fmt: skip
case(
    "block_1d_scalars",
    lambda jnp: lambda a: jnp.block([a, 5, jnp.arange(3)]),
    np.arange(2, dtype=np.int32),
)
case("block_scalar", lambda jnp: lambda: jnp.block(3.0))
case("block_array", lambda jnp: jnp.block, I6)
case("block_weak_list", lambda jnp: lambda: jnp.block([1, 2]))
case("block_weak_float", lambda jnp: lambda: jnp.block([[1.0, 2]]))
case("block_int8_wraps", lambda jnp: lambda a: jnp.block([a, 300]), np.array([0, 1], np.int8))
case(
    "block_3d",
    lambda jnp: lambda a: jnp.block([[[a], [a * 2]]]),
    np.ones((1, 1, 2), np.float32), grad=True,
)  # fmt: skip
case("block_hi_ndim", lambda jnp: lambda a, b: jnp.block([a, b]), ONES22, ZEROS21)
case(
    "block_promote",
    lambda jnp: lambda a, b: jnp.block([[a], [b]]),
    ONES22, np.arange(2, dtype=np.int32),
)  # fmt: skip
case("block_err_depth", lambda jnp: lambda a: jnp.block([[a], a]), F3, error="ValueError")
case("block_err_empty", lambda jnp: lambda: jnp.block([]), error="ValueError")
case("block_err_empty_inner", lambda jnp: lambda: jnp.block([[]]), error="ValueError")
case("block_err_tuple", lambda jnp: lambda: jnp.block((1, 2)), error="ValueError")
case("block_err_shapes", lambda jnp: lambda a: jnp.block([[a, jnp.ones((3, 1))]]), ONES22,
     error="TypeError")  # fmt: skip

case("r_basic", lambda jnp: lambda: jnp.r_[1:4, 0, 4, jnp.array([7, 8])])
case("r_float_step", lambda jnp: lambda: jnp.r_[1:2:0.25])
case("r_complex_step", lambda jnp: lambda: jnp.r_[0:10:5j])
case("r_weak", lambda jnp: lambda: jnp.r_[1, 2, 3])
case("r_weak_float", lambda jnp: lambda: jnp.r_[1.0, 2, 3])
case("r_int8", lambda jnp: lambda: jnp.r_[jnp.arange(3, dtype=jnp.int8), 4])
case("r_list", lambda jnp: lambda: jnp.r_[[1, 2], 4])
case("r_2d", lambda jnp: lambda a: jnp.r_[a, jnp.zeros((1, 2))], ONES22)
case("r_axis_directive", lambda jnp: lambda a, b: jnp.r_["-1", a, b], ONES22, ZEROS21)
case("r_ndmin_directive", lambda jnp: lambda: jnp.r_["0,2", [1, 2, 3], [4, 5, 6]])
case("r_trans1d_0", lambda jnp: lambda: jnp.r_["0,2,0", [1, 2, 3], [4, 5, 6]])
case("r_trans1d_axis1", lambda jnp: lambda: jnp.r_["1,2,0", [1, 2, 3], [4, 5, 6]])
case("r_trans1d_3d", lambda jnp: lambda: jnp.r_["0,3,1", [1, 2, 3], [4, 5, 6]])
case("r_row", lambda jnp: lambda: jnp.r_["r", [1, 2, 3], [4, 5, 6]])
case("r_col", lambda jnp: lambda: jnp.r_["c", [1, 2, 3], [4, 5, 6]])
case("r_empty_slice", lambda jnp: lambda: jnp.r_[:0])
case("r_neg_step", lambda jnp: lambda: jnp.r_[5:1:-1])
case("r_bool_weak_int", lambda jnp: lambda: jnp.r_[jnp.array([True]), 2])
case("r_traced", lambda jnp: lambda x: jnp.r_[x, 0:2, 3.0], np.arange(2, dtype=np.int32))
case("r_nested_list", lambda jnp: lambda: jnp.r_[[[1, 2]], [[3, 4]]])
case("c_vectors", lambda jnp: lambda a, b: jnp.c_[a, b], F3, F3 * 2)
case("c_2d", lambda jnp: lambda a, b: jnp.c_[a, b], ONES22, ZEROS21)
case("c_scalars", lambda jnp: lambda: jnp.c_[1, 2, 3])
case("c_slices", lambda jnp: lambda: jnp.c_[0:3, 5:8])
case("c_row_directive", lambda jnp: lambda: jnp.c_["r", [1, 2], [3, 4]])
case("r_err_directive", lambda jnp: lambda: jnp.r_["x", [1, 2]], error="ValueError")
case("r_err_empty", lambda jnp: lambda: jnp.r_[()], error="IndexError")
case("r_err_string_later", lambda jnp: lambda: jnp.r_[1, "r", 2], error="ValueError")
case("r_err_only_directive", lambda jnp: lambda: jnp.r_["0,2"], error="ValueError")
case("r_err_traced_slice", lambda jnp: lambda n: jnp.r_[0:n], 3,
     jit_error="ConcretizationTypeError")  # fmt: skip
case("mgrid_2d", lambda jnp: lambda: jnp.mgrid[0:2, 0:3])
case("mgrid_float", lambda jnp: lambda: jnp.mgrid[0:1:0.5, 0:2])
case("mgrid_complex", lambda jnp: lambda: jnp.mgrid[0:1:3j, 0:2])
case("mgrid_1d", lambda jnp: lambda: jnp.mgrid[0:3])
case("mgrid_1d_complex", lambda jnp: lambda: jnp.mgrid[-1:1:5j])
case("mgrid_tuple1", lambda jnp: lambda: jnp.mgrid[(slice(0, 3),)])
case("mgrid_empty", lambda jnp: lambda: jnp.mgrid[()])
case("mgrid_open", lambda jnp: lambda: jnp.mgrid[:3, 1:3])
case("mgrid_neg", lambda jnp: lambda: jnp.mgrid[3:0:-1])
case("mgrid_float_start", lambda jnp: lambda: jnp.mgrid[0.5:3])
case("mgrid_zero_step", lambda jnp: lambda: jnp.mgrid[0:1:0j])
case("mgrid_err_int", lambda jnp: lambda: jnp.mgrid[3], error="TypeError")
case("mgrid_err_traced", lambda jnp: lambda n: jnp.mgrid[0:n], 3,
     jit_error="ConcretizationTypeError")  # fmt: skip
case("ogrid_2d", lambda jnp: lambda: jnp.ogrid[0:2, 0:3])
case("ogrid_1d", lambda jnp: lambda: jnp.ogrid[0:3])
case("ogrid_mixed", lambda jnp: lambda: jnp.ogrid[0:1:3j, 0:2])
case("ogrid_tuple1", lambda jnp: lambda: jnp.ogrid[(slice(0, 3),)])
case("ogrid_empty", lambda jnp: lambda: jnp.ogrid[()])

# ---------------------------------------------------------------------------------------------
# unstack, rollaxis, fill_diagonal, place, trim_zeros

case("unstack_0", lambda jnp: jnp.unstack, F6, grad=True)
case("unstack_1", lambda jnp: lambda x: jnp.unstack(x, axis=1), F6, grad=True)
case("unstack_neg", lambda jnp: lambda x: jnp.unstack(x, axis=-1), I6)
case("unstack_err_0d", lambda jnp: lambda: jnp.unstack(jnp.array(3)), error="ValueError")
case("unstack_err_axis", lambda jnp: lambda x: jnp.unstack(x, axis=2), F3, error="ValueError")
Z2345 = np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5)
case("rollaxis_3_1", lambda jnp: lambda x: jnp.rollaxis(x, 3, 1), Z2345, grad=True)
case("rollaxis_1_4", lambda jnp: lambda x: jnp.rollaxis(x, 1, 4), Z2345)
case("rollaxis_neg", lambda jnp: lambda x: jnp.rollaxis(x, -1, -3), Z2345)
case("rollaxis_start_neg4", lambda jnp: lambda x: jnp.rollaxis(x, 1, -4), Z2345)
case("rollaxis_default", lambda jnp: lambda x: jnp.rollaxis(x, 2), Z2345)
case("rollaxis_err_start", lambda jnp: lambda x: jnp.rollaxis(x, 1, 5), Z2345, error="ValueError")
case("rollaxis_err_start_neg", lambda jnp: lambda x: jnp.rollaxis(x, 1, -5), Z2345,
     error="ValueError")  # fmt: skip
case("rollaxis_err_axis", lambda jnp: lambda x: jnp.rollaxis(x, 4, 0), Z2345, error="ValueError")

case("fd_scalar", lambda jnp: lambda a: jnp.fill_diagonal(a, 5.0, inplace=False), M33, grad=True)
case(
    "fd_tall_cycle",
    lambda jnp: lambda a, v: jnp.fill_diagonal(a, v, inplace=False),
    np.zeros((7, 3), np.float32), np.array([1.0, 2.0], np.float32),
)  # fmt: skip
case(
    "fd_val_grad",
    lambda jnp: lambda v, a: jnp.fill_diagonal(a, v, inplace=False),
    np.array([1.0, 2.0], np.float32), np.ones((3, 3), np.float32), grad=True,
)  # fmt: skip
case(
    "fd_3d",
    lambda jnp: lambda a, v: jnp.fill_diagonal(a, v, inplace=False),
    np.zeros((3, 3, 3), np.float32), np.array([1.0, 2.0], np.float32),
)  # fmt: skip
case("fd_3d_int", lambda jnp: lambda a: jnp.fill_diagonal(a, 3, inplace=False),
     np.zeros((2, 2, 2), np.int32))  # fmt: skip
case(
    "fd_int_cast",
    lambda jnp: lambda a, v: jnp.fill_diagonal(a, v, inplace=False),
    np.zeros((3, 3), np.int32), np.array([1.5, 2, 3, 4, 5], np.float32),
)  # fmt: skip
case(
    "fd_matrix_val",
    lambda jnp: lambda a, v: jnp.fill_diagonal(a, v, inplace=False),
    np.zeros((3, 5), np.float32), np.array([[1.5, 2.0], [3.0, 4.0]], np.float32),
)  # fmt: skip
case("fd_err_inplace", lambda jnp: lambda a: jnp.fill_diagonal(a, 1.0), M33,
     error="NotImplementedError")  # fmt: skip
case("fd_err_wrap", lambda jnp: lambda a: jnp.fill_diagonal(a, 1.0, wrap=True, inplace=False),
     M33, error="NotImplementedError")  # fmt: skip
case("fd_err_1d", lambda jnp: lambda a: jnp.fill_diagonal(a, 1.0, inplace=False), F3,
     error="ValueError")  # fmt: skip
case(
    "fd_err_3d_shape",
    lambda jnp: lambda a: jnp.fill_diagonal(a, 1.0, inplace=False),
    np.zeros((2, 3, 2), np.float32), error="ValueError",
)  # fmt: skip
case("fd_err_list", lambda jnp: lambda: jnp.fill_diagonal([[0, 0], [0, 0]], 2, inplace=False),
     error="TypeError")  # fmt: skip
case(
    "fd_err_empty_val",
    lambda jnp: lambda a: jnp.fill_diagonal(a, jnp.zeros((0,)), inplace=False),
    M33, error="ZeroDivisionError",
)  # fmt: skip

PM = np.array([[True, False, True], [False, True, True]])
case(
    "place_basic",
    lambda jnp: lambda x, m: jnp.place(x, m, jnp.array([10.0, 20.0]), inplace=False),
    F6, PM, grad=True,
)  # fmt: skip
case("place_scalar", lambda jnp: lambda x: jnp.place(x, jnp.asarray(PM), 7, inplace=False), F6)
case(
    "place_int_cast",
    lambda jnp: lambda x: jnp.place(x, jnp.asarray(PM), jnp.array([1.5, 2.5]), inplace=False),
    I6,
)
case(
    "place_vals_grad",
    lambda jnp: lambda v, x: jnp.place(x, jnp.asarray(PM), v, inplace=False),
    np.array([[10.0, 20.0], [30.0, 40.0]], np.float32), F6, grad=True,
)  # fmt: skip
case(
    "place_mask_int",
    lambda jnp: lambda x: jnp.place(x, jnp.asarray(PM).astype(int), 1.0, inplace=False),
    F6,
)
case(
    "place_err_inplace",
    lambda jnp: lambda x: jnp.place(x, jnp.asarray(PM), 1.0),
    F6, error="ValueError",
)  # fmt: skip
case(
    "place_err_empty",
    lambda jnp: lambda x: jnp.place(x, jnp.asarray(PM), jnp.zeros((0,)), inplace=False),
    F6, error="ValueError",
)  # fmt: skip
case(
    "place_err_size",
    lambda jnp: lambda x: jnp.place(x, jnp.asarray(PM[0]), 1.0, inplace=False),
    F6, error="ValueError",
)  # fmt: skip
case(
    "place_err_list",
    lambda jnp: lambda: jnp.place([1, 2], jnp.array([True, False]), 1.0, inplace=False),
    error="TypeError",
)

TZ = np.array([0, 0, 1, 2, 0, 3, 0], np.int32)
TZ2 = np.array([[0, 0, 0], [0, 1, 0], [0, 0, 0]], np.int32)
for _trim in ("fb", "f", "b", "B", "x"):
    case(f"trim_{_trim}", lambda jnp, t=_trim: lambda x: jnp.trim_zeros(x, t), TZ, jit=False)
case("trim_all_zero", lambda jnp: jnp.trim_zeros, np.zeros(3, np.float32), jit=False)
case("trim_empty", lambda jnp: jnp.trim_zeros, np.zeros(0, np.int32), jit=False)
case("trim_2d", lambda jnp: jnp.trim_zeros, TZ2, jit=False)
case("trim_2d_axis0", lambda jnp: lambda x: jnp.trim_zeros(x, axis=0), TZ2, jit=False)
case("trim_2d_axis1", lambda jnp: lambda x: jnp.trim_zeros(x, axis=1), TZ2, jit=False)
case("trim_2d_axes", lambda jnp: lambda x: jnp.trim_zeros(x, axis=(0, 1)), TZ2, jit=False)
case("trim_2d_front", lambda jnp: lambda x: jnp.trim_zeros(x, "f"), TZ2, jit=False)
case("trim_2d_all_zero", lambda jnp: jnp.trim_zeros, np.zeros((2, 3), np.float32), jit=False)
case("trim_0d", lambda jnp: lambda: jnp.trim_zeros(jnp.asarray(1.0)), jit=False)
case("trim_bool", lambda jnp: jnp.trim_zeros, np.array([False, True, False]), jit=False)
case("trim_nan_negzero", lambda jnp: jnp.trim_zeros, np.array([-0.0, np.nan, 2, 0], np.float32),
     jit=False)  # fmt: skip
case(
    "trim_3d",
    lambda jnp: jnp.trim_zeros,
    np.pad(np.ones((1, 1, 1), np.float32), ((0, 1), (1, 0), (1, 1))), jit=False, grad=True,
)  # fmt: skip
case("trim_err_list", lambda jnp: lambda: jnp.trim_zeros([0, 1]), error="TypeError")
case("trim_err_axis", lambda jnp: lambda x: jnp.trim_zeros(x, axis=1), TZ, error="ValueError")
case("trim_err_traced", lambda jnp: jnp.trim_zeros, TZ, jit_error="ConcretizationTypeError")

# ---------------------------------------------------------------------------------------------
# isin and the set functions

case("isin", lambda jnp: jnp.isin, A, B)
case("isin_invert", lambda jnp: lambda a, b: jnp.isin(a, b, invert=True), A, B)
case("isin_2d", lambda jnp: jnp.isin, A.reshape(2, 3), B.reshape(2, 2))
case("isin_scalar_elem", lambda jnp: lambda b: jnp.isin(3, b), B)
case("isin_scalar_test", lambda jnp: lambda a: jnp.isin(a, 3), A)
case("isin_nan", lambda jnp: jnp.isin, FN, np.array([np.nan, 2.0, 0.0], np.float32))
case("isin_mixed", lambda jnp: jnp.isin, np.array([1.5, 2.0], np.float32), B)
case("isin_f16_promoted", lambda jnp: jnp.isin, np.array([1, 2.0001], np.float16),
     np.array([2.0001], np.float32))  # fmt: skip
for _m in ("sort", "compare_all", "binary_search", "auto"):
    case(f"isin_{_m}", lambda jnp, m=_m: lambda a, b: jnp.isin(a, b, method=m), A, B)
case("isin_assume_unique", lambda jnp: lambda a, b: jnp.isin(a, b, assume_unique=True), A, B)
case("isin_empty_test", lambda jnp: jnp.isin, A, np.zeros(0, np.int32))
case("isin_complex", lambda jnp: jnp.isin, np.array([1 + 1j, 2], np.complex64),
     np.array([2 + 0j], np.complex64))  # fmt: skip
case("isin_large_sort", lambda jnp: jnp.isin, np.arange(100, dtype=np.int32) % 37,
     np.arange(0, 200, 3, dtype=np.int32))  # fmt: skip
case("isin_err_method", lambda jnp: lambda a, b: jnp.isin(a, b, method="foo"), A, B,
     error="ValueError")  # fmt: skip
case("isin_err_list", lambda jnp: lambda: jnp.isin([1, 2], [2]), error="TypeError")

case("setdiff1d", lambda jnp: jnp.setdiff1d, A, B, jit_error="ConcretizationTypeError")
case("setdiff1d_size", lambda jnp: lambda a, b: jnp.setdiff1d(a, b, size=4), A, B)
case("setdiff1d_size_fill", lambda jnp: lambda a, b: jnp.setdiff1d(a, b, size=4, fill_value=-1),
     A, B)  # fmt: skip
case("setdiff1d_size_small", lambda jnp: lambda a, b: jnp.setdiff1d(a, b, size=1), A, B)
case("setdiff1d_2d", lambda jnp: jnp.setdiff1d, A.reshape(2, 3), B, jit=False)
case(
    "setdiff1d_assume_unique",
    lambda jnp: lambda a, b: jnp.setdiff1d(a, b, assume_unique=True),
    np.array([5, 1, 3], np.int32), np.array([3], np.int32), jit=False,
)  # fmt: skip
case(
    "setdiff1d_assume_unique_size",
    lambda jnp: lambda a, b: jnp.setdiff1d(a, b, assume_unique=True, size=4),
    np.array([5, 1, 3], np.int32), np.array([3], np.int32),
)  # fmt: skip
case("setdiff1d_mixed", lambda jnp: jnp.setdiff1d, np.array([1.5, 2.0], np.float32), B, jit=False)
case("setdiff1d_mixed2", lambda jnp: jnp.setdiff1d, np.array([1, 2], np.int32),
     np.array([1.5, 2.0], np.float32), jit=False)  # fmt: skip
case("setdiff1d_empty", lambda jnp: jnp.setdiff1d, np.zeros(0, np.int32), B, jit=False)
case("setdiff1d_empty_size", lambda jnp: lambda a, b: jnp.setdiff1d(a, b, size=2),
     np.zeros(0, np.int32), B)  # fmt: skip
case("setdiff1d_all_removed", lambda jnp: lambda b: jnp.setdiff1d(b, b, size=2), B)
case("setdiff1d_nan", lambda jnp: jnp.setdiff1d, FN, np.array([1.0], np.float32), jit=False)
case("setdiff1d_nan_size", lambda jnp: lambda a, b: jnp.setdiff1d(a, b, size=5), FN,
     np.array([1.0], np.float32), grad=True)  # fmt: skip
case("setdiff1d_fill_cast", lambda jnp: lambda a, b: jnp.setdiff1d(a, b, size=4, fill_value=2.5),
     A, B)  # fmt: skip
case("setdiff1d_weak", lambda jnp: lambda: jnp.setdiff1d(3, 4), jit_error="ConcretizationTypeError")
case("setdiff1d_bool", lambda jnp: jnp.setdiff1d, np.array([True, False]), np.array([False]),
     jit=False)  # fmt: skip
case(
    "setdiff1d_grad",
    lambda jnp: lambda x: jnp.setdiff1d(x, jnp.array([1.0]), size=2),
    np.array([1.0, 2.0], np.float32), grad=True,
)  # fmt: skip
case("setdiff1d_err_list", lambda jnp: lambda b: jnp.setdiff1d([3], b), B, error="TypeError")
case("setdiff1d_err_size_neg", lambda jnp: lambda a, b: jnp.setdiff1d(a, b, size=-1), A, B,
     error="TypeError")  # fmt: skip
case("setdiff1d_err_size_float", lambda jnp: lambda a, b: jnp.setdiff1d(a, b, size=2.0), A, B,
     error="TypeError")  # fmt: skip

case("union1d", lambda jnp: jnp.union1d, A, B, jit_error="ConcretizationTypeError")
case("union1d_size", lambda jnp: lambda a, b: jnp.union1d(a, b, size=9), A, B)
case("union1d_size_fill", lambda jnp: lambda a, b: jnp.union1d(a, b, size=9, fill_value=0), A, B)
case("union1d_size_small", lambda jnp: lambda a, b: jnp.union1d(a, b, size=2), A, B)
case("union1d_mixed", lambda jnp: jnp.union1d, np.array([1.5, 2.0], np.float32), B, jit=False)
case("union1d_weak_scalar", lambda jnp: lambda a: jnp.union1d(a, 1),
     np.array([1.5, 2.0], np.float32), jit=False)  # fmt: skip
case(
    "union1d_weak_both", lambda jnp: lambda: jnp.union1d(1, 2), jit_error="ConcretizationTypeError"
)
case("union1d_2d", lambda jnp: jnp.union1d, A.reshape(2, 3), B.reshape(2, 2), jit=False)
case("union1d_nan_size", lambda jnp: lambda a, b: jnp.union1d(a, b, size=5),
     np.array([np.nan, 10.0], np.float32), np.array([10.0, np.nan], np.float32))  # fmt: skip
case("union1d_neg_size", lambda jnp: lambda a, b: jnp.union1d(a, b, size=5),
     np.array([-9, 10], np.int32), np.array([10, 12], np.int32))  # fmt: skip
case("union1d_empty", lambda jnp: jnp.union1d, np.zeros(0, np.int32), np.zeros(0, np.int32),
     jit=False)  # fmt: skip
case("union1d_int8_weak", lambda jnp: lambda a: jnp.union1d(a, 3), np.array([1, 2], np.int8),
     jit=False)  # fmt: skip
case("union1d_bool", lambda jnp: jnp.union1d, np.array([True]), np.array([False]), jit=False)
case(
    "union1d_grad",
    lambda jnp: lambda x: jnp.union1d(x, jnp.array([1.0]), size=4),
    np.array([3.0, 2.0], np.float32), grad=True,
)  # fmt: skip
case(
    "union1d_err_empty_size",
    lambda jnp: lambda a: jnp.union1d(a, a, size=2),
    np.zeros(0, np.int32), error="ValueError",
)  # fmt: skip

case("intersect1d", lambda jnp: jnp.intersect1d, A, B, jit_error="ConcretizationTypeError")
case("intersect1d_idx", lambda jnp: lambda a, b: jnp.intersect1d(a, b, return_indices=True),
     A, B, jit=False)  # fmt: skip
case(
    "intersect1d_idx_size",
    lambda jnp: lambda a, b: jnp.intersect1d(a, b, return_indices=True, size=4),
    A, B,
)  # fmt: skip
case(
    "intersect1d_idx_size_fill",
    lambda jnp: lambda a, b: jnp.intersect1d(a, b, return_indices=True, size=4, fill_value=-2),
    A, B,
)  # fmt: skip
case(
    "intersect1d_assume_unique",
    lambda jnp: lambda a, b: jnp.intersect1d(a, b, assume_unique=True, return_indices=True,
                                             size=4),
    np.array([5, 1, 3], np.int32), np.array([3, 1, 8], np.int32),
)  # fmt: skip
case(
    "intersect1d_size_small",
    lambda jnp: lambda a, b: jnp.intersect1d(a, b, return_indices=True, size=1),
    A, B,
)  # fmt: skip
case(
    "intersect1d_none",
    lambda jnp: lambda a, b: jnp.intersect1d(a, b, return_indices=True, size=2),
    np.array([9, 10], np.int32), B,
)  # fmt: skip
case(
    "intersect1d_dups",
    lambda jnp: lambda a, b: jnp.intersect1d(a, b, return_indices=True, size=3),
    np.array([3, 1, 3, 1], np.int32), np.array([1, 1, 3], np.int32),
)  # fmt: skip
case(
    "intersect1d_nan",
    lambda jnp: lambda a, b: jnp.intersect1d(a, b, return_indices=True, size=2),
    np.array([1.0, np.nan, np.nan], np.float32), np.array([np.nan, 1.0], np.float32),
)  # fmt: skip
case("intersect1d_mixed", lambda jnp: jnp.intersect1d, np.array([1.5, 2.0], np.float32),
     np.array([1, 2], np.int32), jit=False)  # fmt: skip
case("intersect1d_int8_weak", lambda jnp: lambda a: jnp.intersect1d(a, 2),
     np.array([1, 2], np.int8), jit=False)  # fmt: skip
case(
    "intersect1d_weak_both",
    lambda jnp: lambda: jnp.intersect1d(1, 2.0),
    jit_error="ConcretizationTypeError",
)
case("intersect1d_2d", lambda jnp: lambda a, b: jnp.intersect1d(a, b, return_indices=True),
     A.reshape(2, 3), B.reshape(2, 2), jit=False)  # fmt: skip
case("intersect1d_empty", lambda jnp: lambda a, b: jnp.intersect1d(a, b, return_indices=True),
     np.zeros(0, np.int32), B, jit=False)  # fmt: skip
case(
    "intersect1d_grad",
    lambda jnp: lambda x: jnp.intersect1d(x, jnp.array([2.0, 5.0]), size=2),
    np.array([5.0, 2.0, 3.0], np.float32), grad=True,
)  # fmt: skip

case("setxor1d", lambda jnp: jnp.setxor1d, A, B, jit_error="ConcretizationTypeError")
case("setxor1d_size", lambda jnp: lambda a, b: jnp.setxor1d(a, b, size=6), A, B)
case("setxor1d_size_fill", lambda jnp: lambda a, b: jnp.setxor1d(a, b, size=6, fill_value=-5),
     A, B)  # fmt: skip
case(
    "setxor1d_assume_unique",
    lambda jnp: lambda a, b: jnp.setxor1d(a, b, assume_unique=True, size=3),
    np.array([5, 1, 3], np.int32), np.array([3, 4], np.int32),
)  # fmt: skip
case("setxor1d_nan", lambda jnp: jnp.setxor1d, np.array([1.0, np.nan], np.float32),
     np.array([np.nan, 2.0], np.float32), jit=False)  # fmt: skip
case("setxor1d_nan_size", lambda jnp: lambda a, b: jnp.setxor1d(a, b, size=5),
     np.array([1.0, np.nan], np.float32), np.array([np.nan, 2.0], np.float32))  # fmt: skip
case("setxor1d_nan_dup", lambda jnp: jnp.setxor1d, np.array([1.0, np.nan, np.nan], np.float32),
     np.array([2.0], np.float32), jit=False)  # fmt: skip
case("setxor1d_neg_size", lambda jnp: lambda a, b: jnp.setxor1d(a, b, size=3),
     np.array([-9, 10], np.int32), np.array([10, 12], np.int32))  # fmt: skip
case("setxor1d_none_size", lambda jnp: lambda b: jnp.setxor1d(b, b, size=2), B)
case("setxor1d_empty_size", lambda jnp: lambda a: jnp.setxor1d(a, a, size=2),
     np.zeros(0, np.int32))  # fmt: skip
case("setxor1d_mixed", lambda jnp: jnp.setxor1d, np.array([1.5, 2.0], np.float32),
     np.array([1, 2], np.int32), jit=False)  # fmt: skip
case(
    "setxor1d_weak_both",
    lambda jnp: lambda: jnp.setxor1d(1, 2),
    jit_error="ConcretizationTypeError",
)
case(
    "setxor1d_grad",
    lambda jnp: lambda x: jnp.setxor1d(x, jnp.array([2.0, 5.0]), size=3),
    np.array([5.0, 2.0, 3.0], np.float32), grad=True,
)  # fmt: skip

# ---------------------------------------------------------------------------------------------
# iscomplex, isreal, sort_complex

case("iscomplex", lambda jnp: jnp.iscomplex, np.array([1 + 1j, 2, 3j], np.complex64))
case("iscomplex_real", lambda jnp: jnp.iscomplex, F3)
case("iscomplex_weak", lambda jnp: lambda: jnp.iscomplex(3))
case("isreal", lambda jnp: jnp.isreal, np.array([1 + 1j, 2, 3j], np.complex64))
case("isreal_real", lambda jnp: jnp.isreal, F3)
case("isreal_weak", lambda jnp: lambda: jnp.isreal(2.0))
case("iscomplex_err_list", lambda jnp: lambda: jnp.iscomplex([1, 2]), error="TypeError")
case("isreal_err_list", lambda jnp: lambda: jnp.isreal([1, 2]), error="TypeError")
case("sort_complex", lambda jnp: jnp.sort_complex, C4)
case("sort_complex_real", lambda jnp: jnp.sort_complex, np.array([3.0, 1, 2], np.float32))
case("sort_complex_int8", lambda jnp: jnp.sort_complex, np.array([3, 1, 2], np.int8))
case("sort_complex_2d", lambda jnp: jnp.sort_complex, np.array([[3, 1], [2, 0]], np.int32))
case("sort_complex_bool", lambda jnp: jnp.sort_complex, np.array([True, False]))
case("sort_complex_err_0d", lambda jnp: lambda: jnp.sort_complex(3.0), error="ValueError")
case("sort_complex_err_list", lambda jnp: lambda: jnp.sort_complex([3.0, 1]), error="TypeError")

# ---------------------------------------------------------------------------------------------
# packbits, unpackbits, bitwise_count

case("packbits", lambda jnp: jnp.packbits, BITS)
case("packbits_little", lambda jnp: lambda a: jnp.packbits(a, bitorder="little"), BITS)
case("packbits_2d", lambda jnp: jnp.packbits, np.array([[1, 0, 1], [0, 1, 1]], np.int32))
case("packbits_2d_axis1", lambda jnp: lambda a: jnp.packbits(a, axis=1),
     np.array([[1, 0, 1], [0, 1, 1]], np.int32))  # fmt: skip
case("packbits_2d_axis0", lambda jnp: lambda a: jnp.packbits(a, axis=0),
     np.array([[1, 0, 1], [0, 1, 1]], np.int32))  # fmt: skip
case("packbits_bool", lambda jnp: jnp.packbits, np.array([True, False, True]))
case("packbits_nonbinary", lambda jnp: jnp.packbits, np.array([2, 0, -1], np.int32))
case("packbits_scalar", lambda jnp: lambda: jnp.packbits(1))
case("packbits_empty", lambda jnp: jnp.packbits, np.zeros(0, np.int32))
case("packbits_uint8", lambda jnp: jnp.packbits, np.array([1, 255], np.uint8))
case("packbits_err_float", lambda jnp: jnp.packbits, F3, error="TypeError")
case("packbits_err_order", lambda jnp: lambda a: jnp.packbits(a, bitorder="middle"), BITS,
     error="ValueError")  # fmt: skip
case("packbits_err_axis", lambda jnp: lambda a: jnp.packbits(a, axis=1), BITS, error="IndexError")
case("packbits_err_list", lambda jnp: lambda: jnp.packbits([1, 0]), error="TypeError")
U177 = np.array([177, 7], np.uint8)
case("unpackbits", lambda jnp: jnp.unpackbits, U177)
case("unpackbits_little", lambda jnp: lambda a: jnp.unpackbits(a, bitorder="little"), U177)
case("unpackbits_count", lambda jnp: lambda a: jnp.unpackbits(a, count=10), U177)
case("unpackbits_count_neg", lambda jnp: lambda a: jnp.unpackbits(a, count=-3), U177)
case("unpackbits_count_big", lambda jnp: lambda a: jnp.unpackbits(a, count=20), U177)
case("unpackbits_count_0", lambda jnp: lambda a: jnp.unpackbits(a, count=0), U177)
case("unpackbits_2d", lambda jnp: jnp.unpackbits, BYTES)
case("unpackbits_2d_axis1", lambda jnp: lambda a: jnp.unpackbits(a, axis=1), BYTES)
case("unpackbits_2d_axis0", lambda jnp: lambda a: jnp.unpackbits(a, axis=0), BYTES)
case("unpackbits_axis_count", lambda jnp: lambda a: jnp.unpackbits(a, axis=1, count=3), BYTES)
case("unpackbits_0d", lambda jnp: lambda: jnp.unpackbits(jnp.array(3, jnp.uint8)))
case("unpackbits_roundtrip", lambda jnp: lambda a: jnp.unpackbits(jnp.packbits(a), count=11),
     BITS)  # fmt: skip
case("unpackbits_err_int", lambda jnp: jnp.unpackbits, A, error="TypeError")
case("unpackbits_err_order", lambda jnp: lambda a: jnp.unpackbits(a, bitorder="x"), U177,
     error="ValueError")  # fmt: skip
case("bitwise_count", lambda jnp: jnp.bitwise_count, np.array([0, 1, 7, -1, -8], np.int32))
case("bitwise_count_uint8", lambda jnp: jnp.bitwise_count, np.array([0, 255], np.uint8))
case("bitwise_count_int8", lambda jnp: jnp.bitwise_count, np.array([-1, 3, -128], np.int8))
case("bitwise_count_bool", lambda jnp: jnp.bitwise_count, np.array([True, False]))
case("bitwise_count_py", lambda jnp: lambda: jnp.bitwise_count(7))
case("bitwise_count_uint32", lambda jnp: jnp.bitwise_count, np.array([2**32 - 1, 5], np.uint32))
case("bitwise_count_err_float", lambda jnp: jnp.bitwise_count, F3, error="TypeError")
case("bitwise_count_err_list", lambda jnp: lambda: jnp.bitwise_count([1]), error="TypeError")

# ---------------------------------------------------------------------------------------------
# mask_indices, histogram2d, histogramdd

case("mask_indices_triu", lambda jnp: lambda: jnp.mask_indices(3, jnp.triu), jit=False)
case("mask_indices_tril_k", lambda jnp: lambda: jnp.mask_indices(3, jnp.tril, -1),
     jit_error="ConcretizationTypeError")  # fmt: skip
case("mask_indices_size", lambda jnp: lambda: jnp.mask_indices(3, jnp.tril, -1, size=5))
case("mask_indices_custom", lambda jnp: lambda: jnp.mask_indices(2, lambda m, k: m > k),
     jit=False)  # fmt: skip
case("mask_indices_empty", lambda jnp: lambda: jnp.mask_indices(0, jnp.triu), jit=False)

case("h2d", lambda jnp: lambda x, y: jnp.histogram2d(x, y, bins=3), HX, HY)
case("h2d_bins_pair", lambda jnp: lambda x, y: jnp.histogram2d(x, y, bins=[2, 3]), HX, HY)
case("h2d_bins_edges", lambda jnp: lambda x, y: jnp.histogram2d(x, y, bins=jnp.array([0, 1, 4.])),
     HX, HY)  # fmt: skip
case(
    "h2d_bins_mixed",
    lambda jnp: lambda x, y: jnp.histogram2d(x, y, bins=[jnp.array([0.0, 1.0, 4.0]), 2]),
    HX, HY,
)  # fmt: skip
case("h2d_range", lambda jnp: lambda x, y: jnp.histogram2d(x, y, 2, range=[[0, 2], [0, 1]]),
     HX, HY)  # fmt: skip
case("h2d_range_none", lambda jnp: lambda x, y: jnp.histogram2d(x, y, 2, range=[None, [0, 1]]),
     HX, HY)  # fmt: skip
case(
    "h2d_weights",
    lambda jnp: lambda w, x, y: jnp.histogram2d(x, y, bins=2, weights=w),
    np.arange(6, dtype=np.float32), HX, HY, grad=True,
)  # fmt: skip
case("h2d_density", lambda jnp: lambda x, y: jnp.histogram2d(x, y, bins=2, density=True), HX, HY)
case("h2d_int", lambda jnp: lambda x, y: jnp.histogram2d(x, y, bins=2),
     np.array([0, 1, 2], np.int32), np.array([1, 1, 0], np.int32))  # fmt: skip
case("h2d_bins3_edges", lambda jnp: lambda x, y: jnp.histogram2d(x, y, bins=[2, 2, 2]), HX, HY)
case("h2d_f16", lambda jnp: lambda x, y: jnp.histogram2d(x, y, bins=2), HX.astype(np.float16), HY)
case("h2d_same_values", lambda jnp: lambda x: jnp.histogram2d(x, x, bins=2), np.ones(3, np.float32))
case("h2d_nan", lambda jnp: lambda x, y: jnp.histogram2d(x, y, 2, range=[[0, 2], [0, 2]]),
     np.array([np.nan, 1.0], np.float32), np.array([1.0, 1.0], np.float32))  # fmt: skip
case("h2d_bins0", lambda jnp: lambda x, y: jnp.histogram2d(x, y, bins=0), HX, HY)
case("h2d_err_length", lambda jnp: lambda x, y: jnp.histogram2d(x, y[:3], bins=2), HX, HY,
     error="TypeError")  # fmt: skip
case("h2d_err_0d", lambda jnp: lambda: jnp.histogram2d(1.0, 2.0, bins=2), error="ValueError")
case("h2d_err_list", lambda jnp: lambda: jnp.histogram2d([1.0], [2.0]), error="TypeError")
case("hdd", lambda jnp: lambda s: jnp.histogramdd(s, bins=2), HS)
case("hdd_3", lambda jnp: lambda s: jnp.histogramdd(s, bins=(2, 1, 3)),
     np.stack([HX, HY, HX * HY], 1))  # fmt: skip
case("hdd_density", lambda jnp: lambda s: jnp.histogramdd(s, bins=2, density=True), HS)
case(
    "hdd_weights",
    lambda jnp: lambda w, s: jnp.histogramdd(s, bins=2, weights=w),
    np.arange(6, dtype=np.float32), HS, grad=True,
)  # fmt: skip
case(
    "hdd_density_weights",
    lambda jnp: lambda w, s: jnp.histogramdd(s, bins=2, density=True, weights=w),
    np.arange(6, dtype=np.float32), HS, grad=True,
)  # fmt: skip
case("hdd_weights_int", lambda jnp: lambda s: jnp.histogramdd(s, 2, weights=jnp.arange(6)), HS)
case("hdd_weights_f16", lambda jnp: lambda s: jnp.histogramdd(s, 2, weights=jnp.ones(6, "f2")),
     HS)  # fmt: skip
case("hdd_f16", lambda jnp: lambda s: jnp.histogramdd(s, bins=2), HS.astype(np.float16))
case("hdd_f16_density", lambda jnp: lambda s: jnp.histogramdd(s, bins=2, density=True),
     HS.astype(np.float16))  # fmt: skip
case("hdd_f16_weights_f16", lambda jnp: lambda s: jnp.histogramdd(s, 2, weights=jnp.ones(6, "f2")),
     HS.astype(np.float16))  # fmt: skip
case("hdd_int", lambda jnp: lambda s: jnp.histogramdd(s, bins=2), HS.astype(np.int32))
case(
    "hdd_bins_arrays",
    lambda jnp: lambda s: jnp.histogramdd(s, bins=[jnp.array([0.0, 2, 3]), jnp.array([0, 1, 2])]),
    HS,
)  # fmt: skip
case(
    "hdd_bins_array_f16",
    lambda jnp: lambda s: jnp.histogramdd(s, bins=[jnp.array([0.0, 2, 3]), 2]),
    HS.astype(np.float16),
)  # fmt: skip
case("hdd_bins_2d_array", lambda jnp: lambda s: jnp.histogramdd(s, bins=jnp.array(
    [[0.0, 1, 3], [0.0, 1, 2]])), HS)  # fmt: skip
case("hdd_range", lambda jnp: lambda s: jnp.histogramdd(s, bins=2, range=[(0, 4), None]), HS)
case(
    "hdd_density_empty_range",
    lambda jnp: lambda s: jnp.histogramdd(s, bins=2, range=[(10, 11), (10, 11)], density=True),
    HS,
)  # fmt: skip
case("hdd_err_1d", lambda jnp: lambda s: jnp.histogramdd(s, bins=2), HX, error="ValueError")
case("hdd_err_3d", lambda jnp: lambda: jnp.histogramdd(jnp.ones((2, 2, 2)), bins=2),
     error="ValueError")  # fmt: skip
case("hdd_err_bins", lambda jnp: lambda s: jnp.histogramdd(s, bins=[2]), HS, error="ValueError")
case("hdd_err_range", lambda jnp: lambda s: jnp.histogramdd(s, bins=2, range=[[0, 1]]), HS,
     error="ValueError")  # fmt: skip
case("hdd_err_range_pair", lambda jnp: lambda s: jnp.histogramdd(s, 2, range=[(0, 1, 2), None]),
     HS, error="ValueError")  # fmt: skip
case("hdd_err_weights", lambda jnp: lambda s: jnp.histogramdd(s, 2, weights=jnp.arange(5.0)), HS,
     error="ValueError")  # fmt: skip
case("hdd_err_neg_bins", lambda jnp: lambda s: jnp.histogramdd(s, bins=-1), HS, error="IndexError")
case("hdd_err_float_bins", lambda jnp: lambda s: jnp.histogramdd(s, bins=2.0), HS,
     error="TypeError")  # fmt: skip
case("hdd_err_list", lambda jnp: lambda: jnp.histogramdd([[1.0, 2.0]]), error="TypeError")

# ---------------------------------------------------------------------------------------------
# einsum_path, reading arrays


def _path_summary(jnp, spec, shapes, optimize="auto"):
    ops = [jnp.ones(s) for s in shapes]
    path, info = jnp.einsum_path(spec, *ops, optimize=optimize)
    return (
        [tuple(int(i) for i in p) for p in path],
        int(info.naive_cost),
        int(info.opt_cost),
        int(info.largest_intermediate),
    )


S3 = [(2, 3), (3, 4), (4, 5)]
case("einsum_path_3", lambda jnp: lambda: _path_summary(jnp, "ij,jk,kl->il", S3), jit=False)
case(
    "einsum_path_4",
    lambda jnp: lambda: _path_summary(jnp, "ij,jk,kl,li->", [*S3, (5, 2)]),
    jit=False,
)
case(
    "einsum_path_4_unoptimized",
    lambda jnp: lambda: _path_summary(jnp, "ij,jk,kl,li->", [*S3, (5, 2)], optimize=False),
    jit=False,
)
case("einsum_path_1", lambda jnp: lambda: _path_summary(jnp, "ij->", [(2, 3)]), jit=False)
case("einsum_path_2", lambda jnp: lambda: _path_summary(jnp, "ij,jk", S3[:2]), jit=False)
case(
    "einsum_path_ellipsis",
    lambda jnp: lambda: _path_summary(jnp, "...ij,...jk->...ik", [(2, 2, 3), (3, 4)]),
    jit=False,
)
case(
    "einsum_path_explicit",
    lambda jnp: lambda: _path_summary(jnp, "ij,jk,kl->il", S3, optimize=[(1, 2), (0, 1)]),
    jit=False,
)

case("frombuffer_uint8", lambda jnp: lambda: jnp.frombuffer(b"\x01\x02\x03\x04", jnp.uint8),
     jit=False)  # fmt: skip
case("frombuffer_f64", lambda jnp: lambda: jnp.frombuffer(np.arange(3.0).tobytes()), jit=False)
case(
    "frombuffer_count_offset",
    lambda jnp: (
        lambda: jnp.frombuffer(
            np.arange(4.0, dtype=np.float32).tobytes(), dtype=jnp.float32, count=2, offset=4
        )
    ),
    jit=False,
)
case("fromstring", lambda jnp: lambda: jnp.fromstring("1 2 3", sep=" "), jit=False)
case("fromstring_int", lambda jnp: lambda: jnp.fromstring("1,2,3", dtype=int, sep=","),
     jit=False)  # fmt: skip
case("fromstring_err_nosep", lambda jnp: lambda: jnp.fromstring("1 2"), error="TypeError")
case("fromfile_err", lambda jnp: lambda: jnp.fromfile("x.bin"), error="NotImplementedError")
case("fromiter_err", lambda jnp: lambda: jnp.fromiter(range(3), int),
     error="NotImplementedError")  # fmt: skip

# ---------------------------------------------------------------------------------------------
# ufunc


def _muladd(jnp):
    return jnp.ufunc(lambda x, y: x * y + 1, 2, 1, name="muladd")


def _add(jnp):
    return jnp.ufunc(lambda x, y: x + y, 2, 1, identity=0)


R6 = np.arange(1, 7, dtype=np.int32)
case("ufunc_call", lambda jnp: lambda a: _muladd(jnp)(a, 2), np.arange(3, dtype=np.int32))
case("ufunc_outer", lambda jnp: lambda a, b: _muladd(jnp).outer(a, b),
     np.arange(3, dtype=np.int32), np.arange(2, dtype=np.int32))  # fmt: skip
case("ufunc_reduce", lambda jnp: lambda a: _muladd(jnp).reduce(a), R6[:4])
case("ufunc_reduce_axis1", lambda jnp: lambda a: _muladd(jnp).reduce(a, axis=1), R6.reshape(2, 3))
case(
    "ufunc_reduce_keepdims",
    lambda jnp: lambda a: _muladd(jnp).reduce(a, axis=1, keepdims=True),
    R6.reshape(2, 3),
)
case("ufunc_reduce_none", lambda jnp: lambda a: _muladd(jnp).reduce(a, axis=None),
     R6.reshape(2, 3))  # fmt: skip
case("ufunc_reduce_initial", lambda jnp: lambda a: _muladd(jnp).reduce(a, initial=2), R6[:4])
case("ufunc_reduce_grad", lambda jnp: lambda a: _muladd(jnp).reduce(a), F3, grad=True)
case("ufunc_reduce_identity_empty", lambda jnp: lambda: _add(jnp).reduce(jnp.arange(0)))
case(
    "ufunc_reduce_where",
    lambda jnp: lambda a: _add(jnp).reduce(a, where=jnp.array([True, False, True, True])),
    np.arange(4, dtype=np.int32),
)
case("ufunc_reduce_dtype", lambda jnp: lambda a: _add(jnp).reduce(a, dtype=jnp.float32),
     np.arange(4, dtype=np.int32))  # fmt: skip
case("ufunc_accumulate", lambda jnp: lambda a: _muladd(jnp).accumulate(a), R6[:4])
case("ufunc_accumulate_grad", lambda jnp: lambda a: _muladd(jnp).accumulate(a), F3, grad=True)
case("ufunc_accumulate_axis1", lambda jnp: lambda a: _add(jnp).accumulate(a, axis=1),
     R6.reshape(2, 3))  # fmt: skip
case(
    "ufunc_at",
    lambda jnp: lambda a: _muladd(jnp).at(a, jnp.array([0, 0, 2]), 3, inplace=False),
    np.arange(5, dtype=np.int32),
)
case("ufunc_reduceat_unordered", lambda jnp: lambda a: _add(jnp).reduceat(a, jnp.array([3, 1, 5])),
     R6)  # fmt: skip
case(
    "ufunc_reduce_none_keepdims",
    lambda jnp: lambda a: _add(jnp).reduce(a, axis=None, keepdims=True),
    R6.reshape(2, 3),
)
case(
    "ufunc_at_multi_index",
    lambda jnp: lambda a: _add(jnp).at(a, (jnp.array([0, 1]), jnp.array([2, 2])),
                                       jnp.array([5, 6]), inplace=False),
    np.zeros((2, 3), np.int32),
)  # fmt: skip
case("ufunc_reduceat", lambda jnp: lambda a: _muladd(jnp).reduceat(a, jnp.array([0, 2, 4])), R6)
case(
    "ufunc_multi_out",
    lambda jnp: lambda a: jnp.ufunc(lambda x: (x, x * 2), 1, 2)(a),
    np.arange(3, dtype=np.int32),
)
case(
    "ufunc_props",
    lambda jnp: lambda: (_muladd(jnp).nin, _muladd(jnp).nout, _muladd(jnp).nargs,
                         _add(jnp).identity),
    jit=False,
)  # fmt: skip
case("ufunc_err_reduce_empty", lambda jnp: lambda: _muladd(jnp).reduce(jnp.arange(0)),
     error="ValueError")  # fmt: skip
case(
    "ufunc_err_where_no_initial",
    lambda jnp: lambda a: _muladd(jnp).reduce(a, where=a > 1),
    np.arange(4, dtype=np.int32), error="ValueError",
)  # fmt: skip
case(
    "ufunc_err_at_inplace",
    lambda jnp: lambda a: _muladd(jnp).at(a, jnp.array([0]), 3),
    np.arange(5, dtype=np.int32), error="NotImplementedError",
)  # fmt: skip
case(
    "ufunc_err_unary_reduce",
    lambda jnp: lambda a: jnp.ufunc(lambda x: (x, x), 1, 2).reduce(a),
    np.arange(3, dtype=np.int32), error="ValueError",
)  # fmt: skip
case(
    "ufunc_err_unary_outer",
    lambda jnp: lambda a: jnp.ufunc(lambda x: (x, x), 1, 2).outer(a, a),
    np.arange(3, dtype=np.int32), error="ValueError",
)  # fmt: skip
case("ufunc_err_nin", lambda jnp: lambda: _muladd(jnp)(1), error="TypeError")


# ---------------------------------------------------------------------------------------------
# Recording


def main() -> None:
    sys.path.insert(0, str(TESTS))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import jax
    import jax.numpy as jnp
    from numpy_gen import as_jax, run, write_golden

    to_jax = functools.partial(as_jax, jnp)

    golden, problems = {}, []
    for c in CASES:
        jax.clear_caches()
        fn = c.make(jnp)
        args = [to_jax(a) for a in c.args]
        entry = {}
        eager, err = run(fn, args)
        if err is not None:
            entry["error"] = type(err).__name__
            if c.error != type(err).__name__:
                problems.append(f"{c.name}: eager raised {type(err).__name__}: {err}")
        else:
            if c.error is not None:
                problems.append(f"{c.name}: expected {c.error}, got a result")
            entry["eager"] = eager
            if c.jit or c.jit_error:
                jitted, err = run(jax.jit(fn), args)
                if err is not None:
                    entry["jit_error"] = type(err).__name__
                    if c.jit_error != type(err).__name__:
                        problems.append(f"{c.name}: jit raised {type(err).__name__}: {err}")
                elif c.jit_error:
                    problems.append(f"{c.name}: expected {c.jit_error} under jit, got a result")
                elif jitted != eager:
                    entry["jit"] = jitted
            if c.grad:
                g, err = run(jax.grad(weighted_loss(jnp, fn)), args)
                if err is not None:
                    problems.append(f"{c.name}: grad raised {type(err).__name__}: {err}")
                else:
                    entry["grad"] = g
        golden[c.name] = entry

    write_golden(OUT, golden, jax.__version__, problems)


if __name__ == "__main__":
    main()
