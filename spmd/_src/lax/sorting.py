"""Sorting primitives: ``sort`` (one or more operands, lexicographic on the first ``num_keys``)
and ``top_k``.

As in XLA, ``sort`` puts NaNs (of either sign) after +inf and treats -0.0 as equal to 0.0 (a
stable sort keeps their order), while ``top_k`` ranks floats by IEEE totalOrder (-0.0 below 0.0,
NaNs with the sign bit set below -inf). Complex keys sort by real part, then imaginary part.

>>> from spmd import lax
>>> lax.sort(jnp.array([3.0, jnp.nan, 1.0]))
Array([ 1.,  3., nan], dtype=float32)
>>> lax.top_k(jnp.array([1, 3, 2]), 2)
[Array([3, 2], dtype=int32), Array([1, 2], dtype=int32)]
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.lax.rules import bdim_at_front

# ---------------------------------------------------------------------------------------------
# Gathering tangents along the sorted dimension


def _take_along(t: Any, idx: Any, axis: int) -> Any:
    """``t[..., idx[..., i, ...], ...]`` along ``axis`` (``idx`` has a trailing dimension of
    size 1; the other dimensions of ``t`` and ``idx`` correspond), as a gather that autodiff
    and vmap understand."""
    from spmd._src.lax import indexing

    nd = np.ndim(t)
    others = tuple(i for i in range(nd) if i != axis)
    dnums = indexing.GatherDimensionNumbers(
        offset_dims=(),
        collapsed_slice_dims=(axis,),
        start_index_map=(axis,),
        operand_batching_dims=others,
        start_indices_batching_dims=others,
    )
    return indexing.gather(
        t, idx, dnums, (1,) * nd, mode=indexing.GatherScatterMode.PROMISE_IN_BOUNDS
    )


# ---------------------------------------------------------------------------------------------
# NumPy sort keys


def _canonical_axis(fn: str, axis: int, ndim: int) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        raise ValueError(f"{fn}: axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim


def _float_key(x: np.ndarray, total: bool) -> np.ndarray:
    """Integers whose ascending order is the order of the floats ``x``: with ``total``, IEEE
    totalOrder (-NaN < -inf < ... < -0.0 < 0.0 < ... < inf < NaN); else NumPy's order, where
    every NaN sorts last and -0.0 equals 0.0."""
    bits = x.dtype.itemsize * 8
    itype = np.dtype(f"int{bits}")
    i = np.ascontiguousarray(x).view(itype)
    # Negative floats: flipping the magnitude bits reverses their order, and the sign bit keeps
    # them below every non-negative float.
    key = np.where(i < 0, i ^ itype.type(np.iinfo(itype).max), i)
    if total:
        return key
    with np.errstate(invalid="ignore"):
        key = np.where(x == 0, itype.type(0), key)
        return np.where(x != x, itype.type(np.iinfo(itype).max), key)


def sort_keys(x: np.ndarray, *, total: bool = False) -> list[np.ndarray]:
    """NumPy arrays whose lexicographic ascending order is the sort order of ``x`` (floats as
    in ``_float_key``; complex numbers by real, then imaginary part)."""
    dt = x.dtype
    if dt == np.bool_:
        return [x.astype(np.uint8)]
    if dt.kind in "iu":
        return [x]
    if dtypes.issubdtype(dt, np.integer):  # int4 and friends (ml_dtypes)
        signed = dtypes.issubdtype(dt, np.signedinteger)
        return [x.astype(np.int8 if signed else np.uint8)]
    if dt.kind == "c":
        return [_float_key(np.real(x), total), _float_key(np.imag(x), total)]
    return [_float_key(x, total)]


def _argsort_keys(keys: Sequence[np.ndarray], axis: int) -> np.ndarray:
    if len(keys) == 1:
        return np.argsort(keys[0], axis=axis, kind="stable")
    # np.lexsort sorts by its last key first.
    return np.lexsort(tuple(reversed(keys)), axis=axis)


# ---------------------------------------------------------------------------------------------
# sort


def sort(
    operand: Any | Sequence[Any], dimension: int = -1, is_stable: bool = True, num_keys: int = 1
) -> Any:
    """Sort along ``dimension``; several operands of one shape sort together, lexicographically
    by the first ``num_keys`` of them.

    >>> lax.sort((jnp.array([2, 1, 2]), jnp.array([0.5, 1.5, 0.1])), num_keys=2)
    (Array([1, 2, 2], dtype=int32), Array([1.5, 0.1, 0.5], dtype=float32))
    """
    single = not isinstance(operand, (tuple, list))
    operands = (operand,) if single else tuple(operand)
    if not operands:
        raise ValueError("sort: at least one operand is required")
    num_keys = operator.index(num_keys)
    if not 1 <= num_keys <= len(operands):
        raise ValueError(f"num_keys={num_keys} must be between 1 and len(operand)={len(operands)}")
    dimension = _canonical_axis("sort", dimension, np.ndim(operands[0]))
    out = sort_p.bind(*operands, dimension=dimension, is_stable=bool(is_stable), num_keys=num_keys)
    return out[0] if single else tuple(out)


def sort_key_val(keys: Any, values: Any, dimension: int = -1, is_stable: bool = True):
    """Sort ``keys`` along ``dimension`` and permute ``values`` the same way.

    >>> lax.sort_key_val(jnp.array([3, 1, 2]), jnp.array([0, 1, 2]))
    (Array([1, 2, 3], dtype=int32), Array([1, 2, 0], dtype=int32))
    """
    k, v = sort((keys, values), dimension=dimension, is_stable=is_stable, num_keys=1)
    return k, v


def _sort_abstract_eval(*avals, dimension, is_stable, num_keys):
    shape = avals[0].shape
    if any(a.shape != shape for a in avals):
        raise TypeError(
            "Arguments to sort must have equal shapes, got: "
            + " ".join(str(a.shape) for a in avals)
        )
    if not 0 <= dimension < len(shape):
        raise ValueError(
            f"sort: dimension {dimension} is out of bounds for operands of shape {shape}"
        )
    if not 1 <= num_keys <= len(avals):
        raise ValueError(f"num_keys={num_keys} must be between 1 and len(operand)={len(avals)}")
    return list(avals)


def _sort_impl(*operands, dimension, is_stable, num_keys):
    x = operands[0]
    if len(operands) == 1 and x.dtype.kind in "biuf":
        # NumPy's stable sort already puts NaNs last and keeps -0.0/0.0 in input order.
        return [np.sort(x, axis=dimension, kind="stable")]
    keys: list[np.ndarray] = []
    for op in operands[:num_keys]:
        keys.extend(sort_keys(op))
    perm = _argsort_keys(keys, dimension)
    return [np.take_along_axis(op, perm, axis=dimension) for op in operands]


sort_p = core.Primitive("sort", multiple_results=True)
sort_p.def_impl(_sort_impl)
sort_p.def_abstract_eval(_sort_abstract_eval)


def _sort_sharding(specs, avals, *, dimension, is_stable, num_keys):
    # Operands and results share one sharding, the sorted dimension's included (the
    # partitioner gathers along it inside the sort).
    spec = sharding_rules.elementwise_rule(specs, avals)
    return [spec] * len(avals)


def _sort_sharding_explicit(specs, avals, *, dimension, is_stable, num_keys):
    for s, a in zip(specs, avals):
        if s is not None and s[dimension] is not None:
            raise sharding_rules.ShardingTypeError(
                "Arguments to sort must be unsharded over the sorting dimension. Got arg "
                f"type={sharding_rules.type_str(a, s, short=False)} and sorting "
                f"dimension={dimension}"
            )
    spec = sharding_rules.explicit_broadcast("sort", specs, avals)
    return [spec] * len(avals)


sharding_rules.sharding_rules[sort_p] = _sort_sharding
sharding_rules.explicit_rules[sort_p] = _sort_sharding_explicit


def _sort_vmap(axis_data, vals, dims, *, dimension, is_stable, num_keys):
    d0 = next(d for d in dims if d is not None)
    if all(d == d0 for d in dims):
        new_dim = dimension + (dimension >= d0)
        out = sort_p.bind(*vals, dimension=new_dim, is_stable=is_stable, num_keys=num_keys)
        return out, [d0] * len(out)
    vals = [bdim_at_front(v, d, axis_data.size) for v, d in zip(vals, dims)]
    out = sort_p.bind(*vals, dimension=dimension + 1, is_stable=is_stable, num_keys=num_keys)
    return out, [0] * len(out)


def _sort_jvp(primals, tangents, *, dimension, is_stable, num_keys):
    from spmd._src.lax import shape as lax_shape

    # Sort an iota along with the operands: it records the permutation (our sort is always
    # stable, so ties keep their order), and every tangent is gathered through it.
    shape = tuple(np.shape(primals[0]))
    iota = lax_shape.broadcasted_iota(np.uint32, shape, dimension)
    *out, perm = sort_p.bind(
        *primals, iota, dimension=dimension, is_stable=is_stable, num_keys=num_keys
    )
    idx = lax_shape.broadcast_in_dim(perm, (*shape, 1), tuple(range(len(shape))))
    tangents_out = [t if type(t) is ad.Zero else _take_along(t, idx, dimension) for t in tangents]
    return out, tangents_out


batching.primitive_batchers[sort_p] = _sort_vmap
# One sort gives the primal outputs and the permutation for the tangents.
ad.primitive_joint_jvps[sort_p] = _sort_jvp


# ---------------------------------------------------------------------------------------------
# top_k


def top_k(operand: Any, k: int, *, axis: int = -1):
    """The ``k`` largest entries along ``axis`` (descending; ties keep the lower index first;
    NaN counts as the largest) and their int32 indices.

    >>> lax.top_k(jnp.array([[1.0, 4.0, 2.0]]), 2)
    [Array([[4., 2.]], dtype=float32), Array([[1, 2]], dtype=int32)]
    """
    k = operator.index(k)
    if k < 0:
        raise ValueError(f"k argument to top_k must be nonnegative, got {k}")
    shape = np.shape(operand)
    axis = _canonical_axis("top_k", axis, len(shape))
    if k > shape[axis]:
        raise ValueError(
            f"k argument to top_k must be no larger than size along axis; got k={k} with "
            f"shape={list(shape)} and axis={axis}"
        )
    # A list, as JAX returns (it matters for the output tree of a jitted function).
    return list(top_k_p.bind(operand, k=k, axis=axis))


def _top_k_abstract_eval(x, *, k, axis):
    if not 0 <= axis < x.ndim:
        raise ValueError(f"top_k: axis {axis} is out of bounds for operand of shape {x.shape}")
    if not 0 <= k <= x.shape[axis]:
        raise ValueError(
            f"top_k: k={k} must be between 0 and the size {x.shape[axis]} of axis {axis} "
            f"(operand shape {x.shape})"
        )
    shape = (*x.shape[:axis], k, *x.shape[axis + 1 :])
    return [ShapedArray(shape, x.dtype, x.weak_type), ShapedArray(shape, np.int32)]


def _top_k_impl(x, *, k, axis):
    # Descending with stable ties: sort the bitwise complement of the ascending keys.
    keys = [np.invert(key) for key in sort_keys(x, total=True)]
    perm = _argsort_keys(keys, axis)
    perm = np.take(perm, np.arange(k), axis=axis)
    return [np.take_along_axis(x, perm, axis=axis), perm.astype(np.int32)]


top_k_p = core.Primitive("top_k", multiple_results=True)
top_k_p.def_impl(_top_k_impl)
top_k_p.def_abstract_eval(_top_k_abstract_eval)


def _top_k_vmap(axis_data, vals, dims, *, k, axis):
    (x,), (d,) = vals, dims
    return top_k_p.bind(x, k=k, axis=axis + (axis >= d)), [d, d]


def _top_k_jvp(primals, tangents, primal_out, *, k, axis):
    from spmd._src.lax import shape as lax_shape

    (t,) = tangents
    values, indices = primal_out
    # The tangents of the chosen elements, in the order chosen.
    shape = tuple(np.shape(indices))
    idx = lax_shape.reshape(indices, (*shape, 1))
    return [_take_along(t, idx, axis), ad.Zero(ad.tangent_aval(core.get_aval(indices)))]


batching.primitive_batchers[top_k_p] = _top_k_vmap


def _top_k_sharding(specs, avals, *, k, axis):
    # The selected dimension is gathered; the others keep their axes (values and indices).
    spec = list(specs[0])
    spec[axis % len(spec)] = None
    return [tuple(spec)] * 2


sharding_rules.sharding_rules[top_k_p] = _top_k_sharding
ad.primitive_jvps[top_k_p] = _top_k_jvp


__all__ = [
    "sort",
    "sort_key_val",
    "sort_p",
    "top_k",
    "top_k_p",
]
