"""``lax.scaled_dot``: a contraction of block-scaled operands, ``(lhs * lhs_scale) @ (rhs *
rhs_scale)``, each scale repeated over blocks of its operand's contracting dimensions.

As JAX 0.10.2 computes it on CPU: the operands and their (repeated) scales are rounded to
bfloat16, multiplied in bfloat16 (each product rounded, except where XLA makes the contraction
a float32 one: see ``_products_rounded``), then contracted by ``dot_general`` into
``preferred_element_type`` (bfloat16 by default; float32 and float64 directly, other types by
way of a bfloat16 result). Any operand and scale dtypes are taken (the
block-scaled formats are float8_e4m3fn / float8_e5m2 data with float8_e8m0fnu scales). There is
no derivative (as in JAX).

>>> from spmd import lax
>>> x = jnp.ones((2, 4), jnp.float8_e4m3fn)
>>> s = jnp.array([[1.0, 2.0], [4.0, 0.5]], jnp.float8_e8m0fnu)  # one scale per 2 columns
>>> lax.scaled_dot(x, jnp.ones((4, 1)), lhs_scale=s, preferred_element_type=jnp.float32)
Array([[6.],
       [9.]], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from spmd._src import core, dtypes
from spmd._src.core import ShapedArray
from spmd._src.interpreters import batching
from spmd._src.lax.dot import _dot_general_impl, to_result
from spmd._src.lax.elementwise.conversion import convert_element_type
from spmd._src.lax.rules import bdim_at_front
from spmd._src.lax.shape import broadcast_in_dim

_BF16 = np.dtype(dtypes.bfloat16)


def scaled_dot(
    lhs,
    rhs,
    *,
    lhs_scale=None,
    rhs_scale=None,
    dimension_numbers=None,
    preferred_element_type=None,
):
    """Contract ``lhs * lhs_scale`` with ``rhs * rhs_scale`` over ``dimension_numbers`` (as
    ``dot_general``; by default the last dimension of ``lhs`` with the next-to-last of ``rhs``,
    leading dimensions batched). A scale has its operand's shape, except along contracting
    dimensions, where it has a divisor of the operand's size (each scale covers a block of at
    least 2 elements); a missing scale is 1. The result is ``preferred_element_type``
    (bfloat16 by default).

    >>> from spmd import lax
    >>> lax.scaled_dot(jnp.ones((3, 8)), jnp.ones((8, 2))).dtype
    dtype(bfloat16)
    """
    lhs_aval, rhs_aval = core.get_aval(lhs), core.get_aval(rhs)
    if dimension_numbers is None:
        n = lhs_aval.ndim
        if n < 2:
            raise TypeError(
                "scaled_dot does not support 0-rank and 1-rank operands. (Got lhs of shape "
                f"{lhs_aval.shape}: without dimension_numbers the operands are matrices or "
                "batches of them.)"
            )
        batch = tuple(range(n - 2))
        dimension_numbers = (((n - 1,), (n - 2,)), (batch, batch))
    try:
        hash(dimension_numbers)
    except TypeError:
        raise TypeError(
            "As of JAX v0.7, parameters to jaxpr equations must have __hash__ and __eq__ "
            "methods. In a call to primitive scaled_dot, the value of parameter "
            f"dimension_numbers was not hashable: {dimension_numbers} (give tuples)."
        ) from None
    (lc, rc), _ = dimension_numbers
    if lhs_scale is None:
        lhs_scale = _unit_scale(lhs_aval.shape, lc)
    if rhs_scale is None:
        rhs_scale = _unit_scale(rhs_aval.shape, rc)
    out_type = dtypes.bfloat16 if preferred_element_type is None else preferred_element_type
    return scaled_dot_p.bind(
        lhs,
        rhs,
        lhs_scale,
        rhs_scale,
        dimension_numbers=dimension_numbers,
        preferred_element_type=dtypes.canonicalize_dtype(dtypes.dtype(out_type)),
    )


def _unit_scale(shape, contracting):
    # JAX's: bfloat16 ones (one scale over each whole contracting dimension) as float8_e8m0fnu.
    one = core.make_concrete(np.array(1.0, _BF16), False)
    ones = broadcast_in_dim(
        one, tuple(1 if d in contracting else n for d, n in enumerate(shape)), ()
    )
    return convert_element_type(ones, dtypes.float8_e8m0fnu)


def _check_scale(side: str, shape, scale_shape, contracting) -> None:
    for d, n in enumerate(shape):
        if d not in contracting:
            if scale_shape[d] != n:
                raise TypeError(
                    f"{side} dim {d} of size {n} does not match scale dim size {scale_shape[d]}."
                )
            continue
        if n % scale_shape[d]:
            raise TypeError(
                f"{side} contracting dim {d} of size {n} must be divisible by its scale's dim "
                f"size {scale_shape[d]}."
            )
        if n // scale_shape[d] < 2:
            raise TypeError(
                f"The ratio of {side} contracting dim {d} to its scale's dim size "
                f"({n // scale_shape[d]}) must be at least 2."
            )


def _scaled_dot_abstract_eval(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers, **params):
    (lc, rc), (lb, rb) = dimension_numbers
    ranks = (lhs.ndim, rhs.ndim, lhs_scale.ndim, rhs_scale.ndim)
    if len(set(ranks)) != 1:
        raise TypeError(
            "All input tensors must have the same rank. Got lhs rank: {} rhs rank: {} "
            "lhs_scale rank: {} rhs_scale rank: {}.".format(*ranks)
        )
    if len(lb) != len(rb):
        raise TypeError(
            "LHS and RHS must have the same number of batch dimensions, got "
            f"{len(lb)} and {len(rb)}."
        )
    if len(lc) != len(rc):
        raise TypeError(
            "LHS and RHS must have the same number of contracting dimensions, got "
            f"{len(lc)} and {len(rc)}."
        )
    for i, j in zip(lb, rb):
        sizes = {lhs.shape[i], rhs.shape[j], lhs_scale.shape[i], rhs_scale.shape[j]}
        if len(sizes) != 1:
            raise TypeError(
                f"All input tensors must have the same batch dimension size for batch dims "
                f"({i}, {j})."
            )
    for i, j in zip(lc, rc):
        if lhs.shape[i] != rhs.shape[j]:
            raise TypeError(
                f"LHS contracting dim {i} of size {lhs.shape[i]} does not match RHS "
                f"contracting dim {j} of size {rhs.shape[j]}."
            )
    _check_scale("LHS", lhs.shape, lhs_scale.shape, lc)
    _check_scale("RHS", rhs.shape, rhs_scale.shape, rc)
    lfree = [d for d in range(lhs.ndim) if d not in lc and d not in lb]
    rfree = [d for d in range(rhs.ndim) if d not in rc and d not in rb]
    shape = (
        tuple(lhs.shape[d] for d in lb)
        + tuple(lhs.shape[d] for d in lfree)
        + tuple(rhs.shape[d] for d in rfree)
    )
    return ShapedArray(shape, params["preferred_element_type"])


def _scaled(x: np.ndarray, scale: np.ndarray, contracting, rounded: bool) -> np.ndarray:
    """``x * scale`` of bfloat16 values, the scale repeated over its blocks: the product
    rounded to bfloat16 (``rounded``) or kept in float32."""
    for d in contracting:
        if scale.shape[d] != x.shape[d]:
            scale = np.repeat(scale, x.shape[d] // scale.shape[d], axis=d)
    f32 = np.float32
    x32 = to_result(to_result(x, _BF16), np.dtype(f32)).astype(f32, copy=False)
    s32 = to_result(to_result(scale, _BF16), np.dtype(f32)).astype(f32, copy=False)
    return to_result(x32 * s32, _BF16) if rounded else x32 * s32


def _products_rounded(shape, dimension_numbers, rshape, out: np.dtype) -> bool:
    """Whether XLA's CPU backend keeps the bfloat16 products (a bfloat16 contraction) or, having
    made the contraction float32, drops their rounding (measured against jaxlib 0.10.2): into a
    float32/float64 result it does the latter when the lhs is not contracted over its last
    dimension, for matrix-vector products, and for K < 8. (Its choice for some other small
    shapes, e.g. 2x12 @ 12x3, also drops the rounding; not reproduced.)"""
    if out not in _WIDE:
        return True
    (lc, rc), (lb, rb) = dimension_numbers
    m = int(np.prod([n for d, n in enumerate(shape) if d not in lc and d not in lb]))
    n = int(np.prod([k for d, k in enumerate(rshape) if d not in rc and d not in rb]))
    k = int(np.prod([shape[d] for d in lc]))
    return tuple(lc) == (len(shape) - 1,) and m > 1 and n > 1 and k >= 8


# XLA's CPU backend contracts bfloat16 operands into float32 or float64 as asked; into any other
# type it contracts into bfloat16 and converts (float16 results are rounded twice: measured
# against jaxlib 0.10.2).
_WIDE = (np.dtype(np.float32), np.dtype(np.float64))


def _scaled_dot_impl(lhs, rhs, lhs_scale, rhs_scale, *, dimension_numbers, preferred_element_type):
    (lc, rc), _ = dimension_numbers
    out = np.dtype(preferred_element_type)
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    rounded = _products_rounded(lhs.shape, dimension_numbers, rhs.shape, out)
    res = _dot_general_impl(
        _scaled(lhs, np.asarray(lhs_scale), lc, rounded),
        _scaled(rhs, np.asarray(rhs_scale), rc, rounded),
        dimension_numbers=dimension_numbers,
        precision=None,
        preferred_element_type=out if out in _WIDE else _BF16,
        out_sharding=None,
    )
    return to_result(np.asarray(res), out)


def _scaled_dot_vmap(axis_data, vals, dims, *, dimension_numbers, preferred_element_type):
    # Every operand gets the mapped dimension in front, which becomes the first batch dimension.
    size = next(np.shape(v)[d] for v, d in zip(vals, dims) if d is not None)
    vals = [bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
    (lc, rc), (lb, rb) = dimension_numbers

    def shift(ds):
        return tuple(d + 1 for d in ds)

    dn = ((shift(lc), shift(rc)), ((0, *shift(lb)), (0, *shift(rb))))
    out = scaled_dot_p.bind(
        *vals, dimension_numbers=dn, preferred_element_type=preferred_element_type
    )
    return out, 0


scaled_dot_p = core.Primitive("scaled_dot")
scaled_dot_p.def_abstract_eval(_scaled_dot_abstract_eval)
scaled_dot_p.def_impl(_scaled_dot_impl)
batching.primitive_batchers[scaled_dot_p] = _scaled_dot_vmap


__all__ = ["scaled_dot", "scaled_dot_p"]
