"""``approx_max_k`` and ``approx_min_k``: XLA's approximate top-k, as it runs on CPU.

On accelerators XLA reduces the operand in partitions and keeps each partition's best,
trading recall for speed. On CPU it falls back to an exact sort, so the k results are exactly
``top_k``'s (and here they are computed the same way). What remains of the approximation is the
size of the result when ``aggregate_to_topk=False``: the length the partitioned reduction would
leave for the given ``recall_target``, filled with the sorted operand's leading entries.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.lax.sorting import _argsort_keys, _take_along, sort_keys


def _reduced_size(n: int, rank: int, k: int, recall_target: float, override: int) -> int:
    """Entries the partitioned reduction leaves along a dimension of ``n`` entries.

    With ``L`` partitions of the ``N`` logical entries, the expected recall of the top k is
    about ``(1 - 1/L) ** (k - 1)`` for large ``L``; keeping partitions of at least
    ``(1 - k) / log(recall_target)`` entries (but no fewer than the hardware tile: 1024 for a
    vector, 128 per row otherwise) meets the target. The operand's tiles are halved
    ``floor(log2(N / that size))`` times, at most down to one tile.
    """
    tile = 1024 if rank == 1 else 128
    if n <= tile:
        return n
    logical = override if override >= 0 else n
    if recall_target >= 1.0:
        return n
    part = min(max(int((1.0 - k) / math.log(recall_target)), tile), logical)
    tiles = -(-n // tile)
    # Never more halvings than the operand's own tiles allow (the override may ask for more).
    halvings = min((logical // part).bit_length(), tiles.bit_length()) - 1
    if halvings <= 0:
        return n
    return -(-tiles // (1 << halvings)) * tile


def _check(operand, k, reduction_dimension, recall_target, override, is_max_k):
    name = "approx_max_k" if is_max_k else "approx_min_k"
    shape = np.shape(operand)
    dtype = dtypes.dtype(operand)
    if not dtypes.issubdtype(dtype, np.floating):
        raise ValueError(f"{name}: operand must be a floating type, got {dtype.name}")
    rank = len(shape)
    if not -rank <= reduction_dimension < rank:
        raise IndexError(
            f"{name}: reduction_dimension {reduction_dimension} is out of bounds for an operand "
            f"of shape {tuple(shape)}"
        )
    dim = reduction_dimension % rank
    if not 0 <= k <= shape[dim]:
        raise ValueError(
            f"{name}: k must be smaller than the size of reduction_dim {shape[dim]}, got {k}"
        )
    if not 0.0 < recall_target <= 1.0:
        raise ValueError(f"{name}: recall_target must be in (0, 1], got {recall_target}")
    if 0 <= override < shape[dim]:
        raise ValueError(
            f"{name}: reduction_input_size_override {override} is smaller than the size "
            f"{shape[dim]} of the reduction dimension"
        )


def approx_max_k(
    operand: Any,
    k: int,
    reduction_dimension: int = -1,
    recall_target: float = 0.95,
    reduction_input_size_override: int = -1,
    aggregate_to_topk: bool = True,
):
    """The ``k`` largest entries of ``operand`` along ``reduction_dimension`` and their int32
    indices (exact on CPU; NaN counts as the largest). With ``aggregate_to_topk=False`` the
    result keeps as many leading sorted entries as XLA's partitioned reduction would.

    >>> lax.approx_max_k(jnp.array([3.0, 1.0, 4.0, 1.0, 5.0]), 2)
    [Array([5., 4.], dtype=float32), Array([4, 2], dtype=int32)]
    """
    return _approx_top_k(
        operand, k, reduction_dimension, recall_target, True,
        reduction_input_size_override, aggregate_to_topk,
    )  # fmt: skip


def approx_min_k(
    operand: Any,
    k: int,
    reduction_dimension: int = -1,
    recall_target: float = 0.95,
    reduction_input_size_override: int = -1,
    aggregate_to_topk: bool = True,
):
    """The ``k`` smallest entries of ``operand`` along ``reduction_dimension`` and their int32
    indices (exact on CPU), as ``approx_max_k`` for the largest.

    >>> lax.approx_min_k(jnp.array([3.0, 1.0, 4.0, 1.0, 5.0]), 2)
    [Array([1., 1.], dtype=float32), Array([1, 3], dtype=int32)]
    """
    return _approx_top_k(
        operand, k, reduction_dimension, recall_target, False,
        reduction_input_size_override, aggregate_to_topk,
    )  # fmt: skip


def _approx_top_k(operand, k, dim, recall_target, is_max_k, override, aggregate):
    k, dim, override = operator.index(k), operator.index(dim), operator.index(override)
    recall_target = float(recall_target)
    _check(operand, k, dim, recall_target, override, is_max_k)
    return list(
        approx_top_k_p.bind(
            operand,
            k=k,
            reduction_dimension=dim,
            recall_target=recall_target,
            is_max_k=bool(is_max_k),
            reduction_input_size_override=override,
            aggregate_to_topk=bool(aggregate),
        )
    )


def _out_size(x, *, k, reduction_dimension, recall_target, reduction_input_size_override,
              aggregate_to_topk, **_):  # fmt: skip
    if aggregate_to_topk:
        return k
    dim = reduction_dimension % x.ndim
    return _reduced_size(x.shape[dim], x.ndim, k, recall_target, reduction_input_size_override)


def _approx_top_k_abstract_eval(x, **params):
    dim = params["reduction_dimension"] % x.ndim
    shape = (*x.shape[:dim], _out_size(x, **params), *x.shape[dim + 1 :])
    return [ShapedArray(shape, x.dtype, x.weak_type), ShapedArray(shape, np.int32)]


def _approx_top_k_impl(x, **params):
    dim = params["reduction_dimension"] % x.ndim
    # Stable ties (lower index first); descending for max through the complemented keys.
    keys = sort_keys(x, total=True)
    if params["is_max_k"]:
        keys = [np.invert(key) for key in keys]
    perm = np.take(_argsort_keys(keys, dim), np.arange(_out_size(x, **params)), axis=dim)
    return [np.take_along_axis(x, perm, axis=dim), perm.astype(np.int32)]


def _approx_top_k_vmap(axis_data, vals, dims, *, reduction_dimension, **params):
    (x,), (d,) = vals, dims
    dim = reduction_dimension % (x.ndim - 1)
    outs = approx_top_k_p.bind(x, reduction_dimension=dim + (dim >= d), **params)
    return outs, [d, d]


def _approx_top_k_jvp(primals, tangents, primal_out, *, reduction_dimension, **params):
    from spmd._src.lax import shape as lax_shape

    (t,) = tangents
    _, indices = primal_out
    shape = tuple(np.shape(indices))
    idx = lax_shape.reshape(indices, (*shape, 1))
    dim = reduction_dimension % len(shape)
    return [_take_along(t, idx, dim), ad.Zero(ad.tangent_aval(core.get_aval(indices)))]


def _approx_top_k_sharding(specs, avals, *, reduction_dimension, **params):
    # The reduced dimension is gathered; the others keep their axes (values and indices).
    spec = list(specs[0])
    spec[reduction_dimension % len(spec)] = None
    return [tuple(spec)] * 2


approx_top_k_p = core.Primitive("approx_top_k", multiple_results=True)
approx_top_k_p.def_impl(_approx_top_k_impl)
approx_top_k_p.def_abstract_eval(_approx_top_k_abstract_eval)
batching.primitive_batchers[approx_top_k_p] = _approx_top_k_vmap
ad.primitive_jvps[approx_top_k_p] = _approx_top_k_jvp
sharding_rules.sharding_rules[approx_top_k_p] = _approx_top_k_sharding


__all__ = ["approx_max_k", "approx_min_k", "approx_top_k_p"]
