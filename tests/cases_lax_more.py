"""Golden cases for ``lax.associative_scan``, ``lax.reduce_window`` (and its sum/max/min
primitives), ``lax.reduce`` and the small lax helpers: one list, run by JAX and by spmd.

Each case is a name, a maker ``make(jnp, lax) -> fn`` and a tuple of NumPy (or Python)
arguments. ``tests/golden_gen/lax_more_gen.py`` (under real JAX) records every output leaf of
``fn(*args)`` and ``jax.jit(fn)(*args)``, the gradient of ``weighted_sum(fn(*args))`` for cases
with ``grad`` argnums, or the exception class JAX raises, into ``tests/golden/lax_more.json``;
``tests/test_lax_more.py`` (no JAX) runs the cases with spmd and compares. Inputs are
deterministic.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np
from cases_linalg_more import flatten, weighted_sum, weights  # noqa: F401  (shared)


@dataclasses.dataclass(frozen=True)
class Case:
    """``make(jnp, lax)`` gives the function to call on ``args``. ``grad``: argnums of
    ``weighted_sum(fn(*args))`` to differentiate (None: none). ``error``: the builtin exception
    class JAX raises; ``match``: a regular expression spmd's message must match (it names the
    function, the argument and the sizes). ``jit=False``: eager only (static arguments)."""

    name: str
    make: Callable[[Any, Any], Callable]
    args: tuple
    grad: tuple[int, ...] | None = None
    jit: bool = True
    error: str | None = None
    match: str | None = None


CASES: list[Case] = []


def case(name: str, make, *args, **kw) -> None:
    if any(c.name == name for c in CASES):
        raise ValueError(f"duplicate case name {name!r}")
    CASES.append(Case(name, make, tuple(args), **kw))


f32 = np.float32
i32 = np.int32
X7 = (np.arange(7, dtype=f32) * 0.37 - 1.1).astype(f32)
X35 = (np.cos(np.arange(15, dtype=f32) * 1.7) * 3).astype(f32).reshape(3, 5)
I35 = (np.arange(15, dtype=i32).reshape(3, 5) * 7 % 11) - 4
TIES = np.array([1, 3, 3, 2, 5, 5, 5, 0], f32)  # ties for max/min derivatives
B6 = np.array([False, True, False, False, True, False])
X246 = (np.sin(np.arange(48, dtype=f32) * 0.9) * 2).astype(f32).reshape(2, 4, 6)

# ---------------------------------------------------------------------------------------------
# associative_scan


def AS(fn_name: str, **kw):
    """Maker of ``lax.associative_scan(<jnp or lax fn>, x, **kw)``."""

    def make(jnp, lax):
        fn = getattr(lax, fn_name) if hasattr(lax, fn_name) else getattr(jnp, fn_name)
        return lambda x: lax.associative_scan(fn, x, **kw)

    return make


case("as_add_f32", AS("add"), X7, grad=(0,))
case("as_add_reverse", AS("add", reverse=True), X7, grad=(0,))
case("as_add_int_axis1", AS("add", axis=1), I35)
case("as_add_int_axis_neg1", AS("add", axis=-1), I35)
case("as_add_int_axis1_reverse", AS("add", axis=1, reverse=True), I35)
case("as_mul_axis0", AS("mul", axis=0), X35, grad=(0,))
case("as_mul_axis1", AS("mul", axis=1), X35, grad=(0,))
case("as_max_ties", AS("max"), TIES, grad=(0,))
case("as_max_ties_reverse", AS("max", reverse=True), TIES, grad=(0,))
case("as_min_3d_axis2", AS("min", axis=2), X246, grad=(0,))
case("as_max_3d_axis1_reverse", AS("max", axis=1, reverse=True), X246, grad=(0,))
case("as_or_bool", AS("logical_or"), B6)
case("as_len1", AS("add"), X7[:1], grad=(0,))
case("as_len2", AS("add"), X7[:2], grad=(0,))
case("as_len0", AS("add"), X7[:0])


def _affine(jnp, lax):
    # Composition of affine maps x -> a x + b: the classic pytree-valued associative scan.
    def fn(p, q):
        (a1, b1), (a2, b2) = p, q
        return (a1 * a2, a2 * b1 + b2)

    return lambda a, b: lax.associative_scan(fn, (a, b))


def _affine_dict(jnp, lax):
    def fn(p, q):
        return {"a": p["a"] * q["a"], "b": q["a"] * p["b"] + q["b"]}

    return lambda a, b: lax.associative_scan(fn, {"a": a, "b": b}, reverse=True, axis=1)


case("as_pytree_affine", _affine, X7, X7[::-1].copy(), grad=(0, 1))
case("as_pytree_dict_reverse_axis1", _affine_dict, X35, X35 * 0.5, grad=(0, 1))
case(
    "as_err_lengths",
    lambda jnp, lax: lambda a, b: lax.associative_scan(lax.add, (a, b)),
    X7[:3],
    X7[:4],
    error="ValueError",
    match=r"associative_scan.*same first dimension.*\(3,\).*\(4,\)",
)
case(
    "as_err_axis",
    AS("add", axis=2),
    X7,
    error="ValueError",
    match=r"associative_scan: axis 2 is out of bounds for array of dimension 1",
)

# ---------------------------------------------------------------------------------------------
# reduce_window (sum, max and min go to their primitives)

X34 = (np.cos(np.arange(12, dtype=f32) * 2.1) * 2).astype(f32).reshape(3, 4)
I46 = ((np.arange(24, dtype=i32) * 5) % 13 - 6).reshape(4, 6)
TIES34 = np.array([[1, 3, 3, 0], [3, 2, 3, 3], [0, 3, 1, 3]], f32)
X1455 = (np.sin(np.arange(100, dtype=f32) * 0.7) * 3).astype(f32).reshape(1, 4, 5, 5)


def RW(init, op: str, *args, **kw):
    """Maker of ``lax.reduce_window(x, init, lax.<op>, *args, **kw)``."""
    return lambda jnp, lax: lambda x: lax.reduce_window(x, init, getattr(lax, op), *args, **kw)


case("rw_sum_same", RW(0.0, "add", (2, 2), (1, 1), "SAME"), X34, grad=(0,))
case("rw_sum_valid_strided", RW(0.0, "add", (2, 3), (1, 2), "VALID"), X34, grad=(0,))
case("rw_sum_int", RW(0, "add", (3, 2), (1, 2), "SAME"), I46)
case(
    "rw_sum_pad_dilations",
    RW(0.0, "add", (2, 2), (2, 1), ((1, 2), (0, 1)), (2, 1), (1, 2)),
    X34,
    grad=(0,),
)
case("rw_sum_negative_pad", RW(0.0, "add", (2,), (1,), ((-1, 1),)), X7, grad=(0,))
case("rw_max_pool", RW(-np.inf, "max", (1, 1, 3, 3), (1, 1, 2, 2), "SAME"), X1455, grad=(0,))
case("rw_max_ties", RW(-np.inf, "max", (2, 2), (1, 1), "VALID"), TIES34, grad=(0,))
case(
    "rw_max_ties_padded_strided",
    RW(-np.inf, "max", (2, 2), (2, 2), ((1, 1), (1, 0))),
    TIES34,
    grad=(0,),
)
case("rw_max_base_dilation", RW(-np.inf, "max", (2, 2), (1, 1), "VALID", (2, 1)), TIES34,
     grad=(0,))  # fmt: skip
case("rw_min_ties", RW(np.inf, "min", (2, 3), (1, 1), ((0, 1), (1, 1))), -TIES34, grad=(0,))
case("rw_max_int", RW(int(np.iinfo(np.int32).min), "max", (2, 2), (2, 2), "SAME"), I46)
case("rw_min_int_dilated", RW(int(np.iinfo(np.int32).max), "min", (2, 2), (1, 1), "VALID",
                              None, (2, 2)), I46)  # fmt: skip
case("rw_max_window_dilation", RW(-np.inf, "max", (2, 2), (1, 1), "VALID", None, (1, 2)),
     TIES34)  # fmt: skip
case("rw_max_bool", RW(False, "max", (2,), (1,), "SAME"), B6)
case("rw_empty_window", RW(0.0, "add", (5, 2), (1, 1), "VALID"), X34)
case(
    "rw_shape_tuple",
    lambda jnp, lax: (
        lambda: lax.reduce_window_shape_tuple((3, 4), (2, 2), (1, 2), ((1, 0), (0, 1)))
    ),
    jit=False,
)
case(
    "rw_err_window_rank",
    RW(0.0, "add", (2,), (1, 1), "VALID"),
    X34,
    error="TypeError",
    match=r"reduce_window got the wrong number of window_dimensions for operand: got operand "
    r"shape \(3, 4\) with window_dimensions \(2,\)",
)
case(
    "rw_err_strides_rank",
    RW(0.0, "add", (2, 2), (1,), "VALID"),
    X34,
    error="TypeError",
    match=r"reduce_window got inconsistent window_strides and window_dimensions: got "
    r"window_strides \(1,\) and window_dimensions \(2, 2\)",
)
case(
    "rw_err_padding_name",
    RW(0.0, "add", (2, 2), (1, 1), "FOO"),
    X34,
    error="RuntimeError",
    match=r"Unrecognized padding type.*FOO",
)
case(
    "rw_err_stride_zero",
    RW(0.0, "add", (2, 2), (0, 1), "VALID"),
    X34,
    error="TypeError",
    match=r"reduce_window window_strides must have every element be strictly positive, got "
    r"\(0, 1\)",
)
case(
    "rw_err_padding_pairs",
    RW(0.0, "add", (2, 2), (1, 1), ((0, 0),)),
    X34,
    error="ValueError",
    match=r"reduce_window got the wrong number of padding pairs: got 1 for operand shape \(3, 4\)",
)
case(
    "rw_err_bool_sum",
    RW(False, "add", (2,), (1,), "VALID"),
    B6,
    error="TypeError",
    match=r"reduce_window_sum does not accept dtype bool",
)

# ---------------------------------------------------------------------------------------------
# reduce: monoids go to reduce_sum/prod/max/min/and/or; anything else is the reduce primitive


def RD(init, op: str, dims, src: str = "lax"):
    """Maker of ``lax.reduce(x, init, <src>.<op>, dims)``."""

    def make(jnp, lax):
        fn = getattr(lax if src == "lax" else jnp, op)
        return lambda x: lax.reduce(x, init, fn, dims)

    return make


case("reduce_add", RD(0.0, "add", (0,)), X35, grad=(0,))
case("reduce_mul_all", RD(1.0, "mul", (0, 1)), X35, grad=(0,))
case("reduce_max", RD(-np.inf, "max", (1,)), TIES34, grad=(0,))
case("reduce_min_int", RD(int(np.iinfo(np.int32).max), "min", (0,)), I35)
case("reduce_or_int", RD(0, "bitwise_or", (1,)), I35)
case("reduce_and_int", RD(-1, "bitwise_and", (1,)), I35)
case("reduce_and_bool", RD(True, "bitwise_and", (0,)), B6)
case("reduce_max_not_identity", RD(0.0, "max", (0,)), X35, grad=(0,))
case("reduce_jnp_add_generic", RD(0.0, "add", (1,), src="jnp"), X35, grad=(0,))
case(
    "reduce_tuple_monoid",
    lambda jnp, lax: lambda x: lax.reduce((x,), (0.0,), lax.add, (1,)),
    X35,
    grad=(0,),
)


def _reduce_assoc(jnp, lax):
    # (1 + a)(1 + b) - 1: associative, with a derivative that depends on every element.
    return lambda x: lax.reduce(x * 0.1, 0.0, lambda a, b: a + b + a * b, (0, 2))


def _reduce_pair(jnp, lax):
    def fn(p, q):
        return {"s": p["s"] + q["s"], "m": jnp.maximum(p["m"], q["m"])}

    return lambda x, y: lax.reduce({"s": x, "m": y}, {"s": 0.0, "m": -np.inf}, fn, (1,))


def _reduce_int_generic(jnp, lax):
    return lambda x: lax.reduce(x, np.int32(0), lambda a, b: a * 3 + b, (1,))


case("reduce_generic_assoc", _reduce_assoc, X246, grad=(0,))
case("reduce_generic_pytree", _reduce_pair, X35, X35[::-1].copy(), grad=(0, 1))
case("reduce_generic_int", _reduce_int_generic, I35)
case(
    "reduce_err_dtype",
    lambda jnp, lax: lambda x: lax.reduce(x, 0.0, lambda a, b: a * 0.5 + b, (0,)),
    I35,
    error="TypeError",
    match=r"reduce operand dtypes should match corresponding initial value dtypes, got "
    r"operands=\[ShapedArray\(int32\[3,5\]\)\] and initial_values=\[ShapedArray\(float32\[\]",
)
case(
    "reduce_err_tree",
    lambda jnp, lax: lambda x: lax.reduce(x, (0.0, 0.0), lax.add, (0,)),
    X35,
    error="ValueError",
    match=r"Operands must have the same tree structure as init_values",
)
case(
    "reduce_err_dims",
    RD(0.0, "add", (2,)),
    X35,
    error="ValueError",
    match=r"axis 2 is out of bounds for array of dimension 2",
)

# The generic reduce_window primitive (JAX has no derivative for it: values only).


def _rw_generic_pair(jnp, lax):
    def fn(p, q):
        return (p[0] + q[0], p[1] * q[1])

    return lambda x, y: lax.reduce_window(
        (x, y), (0.0, 1.0), fn, (2, 2), (1, 2), ((1, 0), (0, 1)), (1, 2)
    )


case("rw_generic_mul_same", RW(1.0, "mul", (2, 2), (1, 1), "SAME"), X34)
case("rw_generic_max_not_identity", RW(0.0, "max", (2, 3), (1, 1), "VALID"), X34)
case("rw_generic_pytree", _rw_generic_pair, X34, X34 * 0.5)
case(
    "rw_generic_int",
    lambda jnp, lax: (
        lambda x: lax.reduce_window(x, np.int32(0), lambda a, b: a * 2 + b, (3, 2), (1, 2), "SAME")
    ),
    I46,
)
case(
    "rw_generic_err_dtype",
    lambda jnp, lax: lambda x: lax.reduce_window(x, 1.0, lax.mul, (2,), (1,), "VALID"),
    I35[0],
    error="TypeError",
    match=r"reduce_window got inconsistent dtypes for operands and init_values: got operand "
    r"dtypes \[dtype\('int32'\)\] and init_value dtypes \[dtype\('float32'\)\]",
)

# ---------------------------------------------------------------------------------------------
# Small helpers


def L(name: str, *pre, **kw):
    """Maker of ``lax.<name>(*args, *pre, **kw)``."""
    return lambda jnp, lax: lambda *a: getattr(lax, name)(*a, *pre, **kw)


case("barrier_tuple", lambda jnp, lax: lambda x: lax.optimization_barrier((x, x * 2)), X34,
     grad=(0,))  # fmt: skip
case("barrier_scalar", L("optimization_barrier"), 1.5)
case("reciprocal", L("reciprocal"), X34, grad=(0,))
case("reciprocal_weak", L("reciprocal"), 4.0)
case("broadcast_shapes", lambda jnp, lax: lambda: lax.broadcast_shapes((2, 1), (3,), (1, 1)),
     jit=False)  # fmt: skip
case("collapse_mid", L("collapse", 1, 3), X246, grad=(0,))
case("collapse_to_end", L("collapse", -2), X246)
case("collapse_stop_past_end", L("collapse", 0, 5), X34)
case("empty", lambda jnp, lax: lambda: lax.empty((2, 3), jnp.int32), jit=False)
case("unstack_axis1", L("unstack", axis=1), X34, grad=(0,))
case("unstack_int", L("unstack"), I35)
case(
    "index_take_one",
    lambda jnp, lax: lambda x: lax.index_take(x, (np.array([2, -1, 0], np.int32),), (1,)),
    X34,
    grad=(0,),
)
case(
    "index_take_two",
    lambda jnp, lax: (
        lambda x: lax.index_take(
            x, (np.array([1, -1, 0], np.int32), np.array([2, 0, -3], np.int32)), (0, 2)
        )
    ),
    X246,
    grad=(0,),
)
case(
    "broadcast_shapes_err",
    lambda jnp, lax: lambda: lax.broadcast_shapes((2,), (3,)),
    jit=False,
    error="ValueError",
    match=r"Incompatible shapes for broadcasting: shapes=\[\(2,\), \(3,\)\]",
)
case(
    "collapse_err",
    L("collapse", 1, 0),
    X34,
    error="ValueError",
    match=r"Invalid dimension range passed to collapse: \(3, 4\)\[1:0\]",
)
case(
    "unstack_err_axis",
    L("unstack", axis=2),
    X34,
    error="ValueError",
    match=r"unstack: axis 2 is out of bounds for array of dimension 2",
)
case(
    "barrier_err_type",
    lambda jnp, lax: lambda: lax.optimization_barrier("a"),
    jit=False,
    error="TypeError",
    match=r"Error interpreting argument to optimization_barrier as a JAX value.*str.*position 0",
)

# ---------------------------------------------------------------------------------------------
# conv_transpose, conv_general_dilated_patches/_local and the convolution shape helpers

_R = np.cos(np.arange(4 * 6 * 6 * 3, dtype=f32) * 0.83).astype(f32)
X1D = _R[: 1 * 5 * 2].reshape(1, 5, 2)  # NWC
X2D = _R[: 2 * 5 * 4 * 3].reshape(2, 5, 4, 3)  # NHWC
XNCHW = _R[: 2 * 3 * 5 * 4].reshape(2, 3, 5, 4)


def _kernel(*shape):
    n = int(np.prod(shape))
    return (np.sin(np.arange(n, dtype=f32) * 1.37) * 0.5).astype(f32).reshape(shape)


def CT(strides, padding, **kw):
    """Maker of ``lax.conv_transpose(x, w, strides, padding, **kw)``."""
    return lambda jnp, lax: lambda x, w: lax.conv_transpose(x, w, strides, padding, **kw)


_NWC = {"dimension_numbers": ("NWC", "WIO", "NWC")}
for _k in (1, 2, 3, 4):
    for _s in (1, 2, 3, 5):
        for _pad in ("SAME", "VALID"):
            case(
                f"conv_transpose_1d_{_pad.lower()}_k{_k}_s{_s}",
                CT((_s,), _pad, **_NWC),
                X1D,
                _kernel(_k, 2, 3),
            )
case("conv_transpose_1d_pairs", CT((2,), [(1, 2)], **_NWC), X1D, _kernel(3, 2, 3), grad=(0, 1))
case(
    "conv_transpose_1d_rhs_dilation",
    CT((2,), "SAME", rhs_dilation=(2,), **_NWC),
    X1D,
    _kernel(3, 2, 3),
    grad=(0, 1),
)
case(
    "conv_transpose_1d_transpose_kernel",
    CT((3,), "VALID", transpose_kernel=True, **_NWC),
    X1D,
    _kernel(3, 4, 2),
    grad=(0, 1),
)
for _s in (1, 2, 4):
    for _pad in ("SAME", "VALID", [(1, 0)], [(0, 2)]):
        _tag = _pad.lower() if isinstance(_pad, str) else f"pairs{_pad[0][0]}{_pad[0][1]}"
        case(
            f"conv_transpose_1d_consistent_{_tag}_s{_s}",
            CT((_s,), _pad, use_consistent_padding=True, **_NWC),
            X1D,
            _kernel(3, 2, 3),
        )
case("conv_transpose_2d_default_dn", CT((2, 1), "SAME"), X2D, _kernel(3, 2, 3, 4), grad=(0, 1))
case(
    "conv_transpose_2d_nchw",
    CT((2, 2), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW")),
    XNCHW,
    _kernel(4, 3, 2, 3),
    grad=(0, 1),
)
case(
    "conv_transpose_err_padding",
    CT((2,), "FULL", **_NWC),
    X1D,
    _kernel(3, 2, 3),
    error="ValueError",
    match=r"conv_transpose: padding must be 'SAME', 'VALID'.*'FULL'",
)


def PATCHES(*a, **kw):
    return lambda jnp, lax: lambda x: lax.conv_general_dilated_patches(x, *a, **kw)


case("patches_nchw_valid", PATCHES((2, 2), (1, 1), "VALID"), XNCHW, grad=(0,))
case("patches_nchw_same_strided", PATCHES((3, 2), (2, 1), "SAME"), XNCHW, grad=(0,))
case(
    "patches_nhwc_dilated",
    PATCHES(
        (2, 2), (1, 1), "VALID", rhs_dilation=(2, 1), dimension_numbers=("NHWC", "HWIO", "NHWC")
    ),
    X2D,
    grad=(0,),
)
case(
    "patches_nhwc_out_nchw",
    PATCHES((2, 3), (1, 2), [(1, 0), (0, 1)], dimension_numbers=("NHWC", "WHIO", "NCHW")),
    X2D,
)
case(
    "patches_err_filter",
    PATCHES((2,), (1, 1), "VALID"),
    XNCHW,
    error="TypeError",
    match=r"conv_general_dilated_patches: filter_shape must have 2 entries.*\(2,\)",
)


def LOCAL(*a, **kw):
    return lambda jnp, lax: lambda x, w: lax.conv_general_dilated_local(x, w, *a, **kw)


# NCHW: the kernel is (O, C * window, out H, out W) = (2, 3*2*2, 4, 3).
case("local_nchw_valid", LOCAL((1, 1), "VALID", (2, 2)), XNCHW, _kernel(2, 12, 4, 3), grad=(0, 1))
# NHWC input, kernel "HWIO" with spatial = output positions: (3, 2, 3*3*2, 4) for SAME, stride 2/2.
case(
    "local_nhwc_same",
    LOCAL((2, 2), "SAME", (3, 2), dimension_numbers=("NHWC", "HWIO", "NHWC")),
    X2D,
    _kernel(3, 2, 18, 4),
    grad=(0, 1),
)
case(
    "shape_tuples",
    lambda jnp, lax: (
        lambda: (
            lax.conv_shape_tuple((2, 3, 10, 10), (4, 3, 3, 3), (1, 1), [(1, 1), (1, 1)]),
            lax.conv_shape_tuple((4, 3, 9, 7), (4, 3, 2, 3), (2, 3), "SAME", 2),
            lax.conv_general_permutations(("NHWC", "HWIO", "NHWC")),
            lax.conv_general_permutations(("NCW", "WOI", "NWC")),
            lax.conv_general_shape_tuple(
                (2, 10, 9, 3), (3, 2, 3, 4), (2, 1), "VALID", ("NHWC", "HWIO", "NHWC")
            ),
            lax.conv_transpose_shape_tuple(
                (2, 10, 9, 3), (3, 3, 3, 4), (2, 3), "SAME", ("NHWC", "HWIO", "NHWC")
            ),
            lax.conv_transpose_shape_tuple(
                (2, 3, 10, 9), (4, 3, 5, 1), (2, 3), "VALID", ("NCHW", "OIHW", "NCHW")
            ),
        )
    ),
    jit=False,
)

# ---------------------------------------------------------------------------------------------
# approx_max_k / approx_min_k (exact on CPU; the result's length for aggregate_to_topk=False)

XK = np.cos(np.arange(40, dtype=f32) * 1.7).astype(f32).reshape(2, 20)
XK300 = np.cos(np.arange(600, dtype=f32) * 0.61).astype(f32).reshape(2, 300)
XK2100 = np.sin(np.arange(2100, dtype=f32) * 0.37).astype(f32)
XKNAN = np.array([1.0, np.nan, 3, 3, -np.inf, 0.0, -0.0], f32)


def AK(fn, *a, **kw):
    return lambda jnp, lax: lambda x: getattr(lax, fn)(x, *a, **kw)


case("approx_max_k", AK("approx_max_k", 3), XK, grad=(0,))
case("approx_min_k_dim0", AK("approx_min_k", 2, reduction_dimension=0), XK, grad=(0,))
case("approx_max_k_nan_ties", AK("approx_max_k", 4), XKNAN)
case("approx_max_k_noagg_small", AK("approx_max_k", 3, aggregate_to_topk=False), XK)
case("approx_max_k_noagg_rows", AK("approx_max_k", 3, aggregate_to_topk=False), XK300, grad=(0,))
case("approx_min_k_noagg_vector", AK("approx_min_k", 5, aggregate_to_topk=False), XK2100)
case(
    "approx_max_k_noagg_override",
    AK(
        "approx_max_k",
        2,
        recall_target=0.9,
        reduction_input_size_override=100000,
        aggregate_to_topk=False,
    ),
    XK2100,
)
case(
    "approx_max_k_err_int",
    AK("approx_max_k", 2),
    I35,
    error="ValueError",
    match=r"approx_max_k: operand must be a floating type, got int32",
)
case(
    "approx_max_k_err_k",
    AK("approx_max_k", 30),
    XK,
    error="ValueError",
    match=r"approx_max_k: k must be smaller than the size of reduction_dim 20, got 30",
)
case(
    "approx_min_k_err_dim",
    AK("approx_min_k", 2, reduction_dimension=2),
    XK,
    error="IndexError",
    match=r"approx_min_k: reduction_dimension 2 is out of bounds.*\(2, 20\)",
)

# ---------------------------------------------------------------------------------------------
# mulhi and the small helpers

for _dt in (np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32):
    _ii = np.iinfo(_dt)
    _a = np.array([_ii.max, _ii.min, 7, _ii.max // 3, 1, 0], _dt)
    _b = np.array([_ii.max, _ii.max, _ii.max, _ii.min + 5, _ii.min, _ii.max // 7], _dt)
    case(f"mulhi_{np.dtype(_dt).name}", lambda jnp, lax: lax.mulhi, _a, _b)
case(
    "mulhi_err_float",
    lambda jnp, lax: lax.mulhi,
    X7,
    X7,
    error="TypeError",
    match=r"mulhi does not accept dtype float32",
)
case(
    "platform_dependent_cpu",
    lambda jnp, lax: (
        lambda x: lax.platform_dependent(x, cpu=lambda v: v + 1, default=lambda v: v * 2)
    ),
    X7,
    grad=(0,),
)
case(
    "platform_dependent_default",
    lambda jnp, lax: (
        lambda x: lax.platform_dependent(x, tpu=lambda v: v + 1, default=lambda v: v * 2)
    ),
    X7,
)
case(
    "platform_dependent_err_none",
    lambda jnp, lax: lambda x: lax.platform_dependent(x, tpu=lambda v: v + 1),
    X7,
    jit=False,
    error="NotImplementedError",
    match=r"platform_dependent: no branch for platform 'cpu'",
)
case(
    "composite_kwargs",
    lambda jnp, lax: (
        lambda x: lax.composite(lambda v, *, k: v * k + 1, name="my.scale", version=2)(x, k=3.0)
    ),
    X7,
)
case(
    "composite_scalar",
    lambda jnp, lax: lambda: lax.composite(lambda a, b: a + b, name="my.add")(1.0, 2.0),
)
case("broadcast_like_scalar", lambda jnp, lax: lax.broadcast_like, np.float32(2), X35)
case("broadcast_like_row", lambda jnp, lax: lax.broadcast_like, I35[0], I35)
case(
    "broadcast_like_err",
    lambda jnp, lax: lax.broadcast_like,
    I35[:, 0],
    I35,
    error="ValueError",
    match=r"broadcast_like: cannot broadcast.*\(3,\).*\(3, 5\)",
)
_DTYPE_OF = (1.0, 1, True, np.float64(1), np.zeros(2, np.int8), np.zeros(2, np.uint64))
case(
    "lax_dtype",
    lambda jnp, lax: lambda: [jnp.zeros((), lax.dtype(v)) for v in _DTYPE_OF],
    jit=False,
)

# ---------------------------------------------------------------------------------------------
# ragged_dot / ragged_dot_general (JAX 0.10 has no derivative of the ragged-contracting form
# and no vmap beyond a few layouts: spmd's are tested against dense references in the test file)

RD_LHS = (np.cos(np.arange(28, dtype=f32) * 0.7) * 2).astype(f32).reshape(7, 4)
RD_RHS = np.sin(np.arange(60, dtype=f32) * 0.45).astype(f32).reshape(3, 4, 5)
RD_B = np.cos(np.arange(35, dtype=f32) * 0.33).astype(f32).reshape(7, 5)


def RD(sizes):
    return lambda jnp, lax: lambda a, b: lax.ragged_dot(a, b, np.array(sizes, np.int32))


def RDG(sizes, dims):
    def make(jnp, lax):
        dn = lax.RaggedDotDimensionNumbers(*dims)
        return lambda a, b: lax.ragged_dot_general(a, b, np.array(sizes, np.int32), dn)

    return make


case("ragged_dot", RD([2, 0, 4]), RD_LHS, RD_RHS, grad=(0, 1))
case("ragged_dot_overflow", RD([5, 0, 5]), RD_LHS, RD_RHS, grad=(0, 1))
case(
    "ragged_dot_int",
    RD([3, 3, 1]),
    np.arange(28, dtype=i32).reshape(7, 4) % 5 - 2,
    np.arange(60, dtype=i32).reshape(3, 4, 5) % 7,
)
case(
    "ragged_dot_bf16",
    RD([1, 5, 1]),
    RD_LHS.astype(ml_dtypes.bfloat16),
    RD_RHS.astype(ml_dtypes.bfloat16),
)
case(
    "ragged_dot_general_contracting",
    RDG([2, 0, 4], ((((0,), (0,)), ((), ())), (0,), ())),
    RD_LHS,
    RD_B,
)
case(
    "ragged_dot_general_rhs_layout",
    RDG([1, 3, 3], ((((1,), (2,)), ((), ())), (0,), (0,))),
    RD_LHS,
    RD_RHS.transpose(0, 2, 1).copy(),
    grad=(0, 1),
)
case(
    "ragged_dot_err_contracting",
    RD([2, 0, 4]),
    RD_LHS,
    RD_RHS[:, :3],
    error="TypeError",
    match=r"ragged_dot_general: contracting dimensions must have the same size.*\(4 != 3\)",
)
case(
    "ragged_dot_err_groups",
    RD([2, 5]),
    RD_LHS,
    RD_RHS,
    error="TypeError",
    match=r"expected rhs group dimension size to be 2 .*got 3 in rhs shape \(3, 4, 5\)",
)
