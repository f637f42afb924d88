"""XLA's general ``gather``: index vectors along the last dimension of the indices operand pick
windows of the operand; ``GatherScatterMode`` says what happens to out-of-bounds indices."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from spmd._src import core
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.indexing.common import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    _canonical_dnums,
    _check_dims,
    _default_fill_value,
    _in_bounds,
    _ints,
    _is_int_dtype,
    _static_fill,
    _window_index,
    _window_starts,
    check_batching_dims,
)
from spmd._src.lax.rules import defjvp, moveaxis

# ---------------------------------------------------------------------------------------------
# gather


def gather(
    operand,
    start_indices,
    dimension_numbers: GatherDimensionNumbers,
    slice_sizes: Sequence[int],
    *,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    mode: str | GatherScatterMode | None = None,
    fill_value=None,
):
    """XLA's gather: for each index vector (the last dimension of ``start_indices``) read the
    window of ``slice_sizes`` of ``operand`` starting there.

    >>> dn = lax.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,),
    ...                                 start_index_map=(0,))
    >>> lax.gather(jnp.arange(6).reshape(3, 2), jnp.array([[2], [0]]), dn, (1, 2))
    Array([[4, 5],
           [0, 1]], dtype=int32)
    """
    dn = _canonical_dnums(dimension_numbers, GatherDimensionNumbers)
    parsed = (
        GatherScatterMode.PROMISE_IN_BOUNDS if mode is None else GatherScatterMode.from_any(mode)
    )
    fill = _static_fill(fill_value)
    if parsed is GatherScatterMode.FILL_OR_DROP:
        if fill is None:
            fill = _default_fill_value(core.get_aval(operand).dtype)
    else:
        fill = None
    return gather_p.bind(
        operand,
        start_indices,
        dimension_numbers=dn,
        slice_sizes=_ints(slice_sizes),
        indices_are_sorted=bool(indices_are_sorted),
        unique_indices=bool(unique_indices),
        mode=parsed,
        fill_value=fill,
    )


def _gather_shape(operand, indices, dimension_numbers, slice_sizes) -> tuple[int, ...]:
    dn = dimension_numbers
    fn = "gather"
    if not _is_int_dtype(indices.dtype):
        raise TypeError(f"{fn}: indices must have an integer type, got {indices.dtype.name}.")
    if indices.ndim < 1:
        raise TypeError(f"{fn}: indices must have rank at least 1, got shape {indices.shape}.")
    batch_shape = indices.shape[:-1]
    if len(dn.start_index_map) != indices.shape[-1]:
        raise TypeError(
            f"{fn}: start_index_map {dn.start_index_map} must have one entry per element of an "
            f"index vector (the last dimension of indices, shape {indices.shape})."
        )
    if len(slice_sizes) != operand.ndim:
        raise TypeError(
            f"{fn}: slice_sizes {slice_sizes} must have one entry per operand dimension "
            f"(shape {operand.shape})."
        )
    for s, d in zip(slice_sizes, operand.shape):
        if not 0 <= s <= d:
            raise TypeError(
                f"{fn}: slice_sizes {slice_sizes} must be non-negative and at most the operand "
                f"shape {operand.shape}."
            )
    _check_dims(fn, "start_index_map", dn.start_index_map, operand.ndim)
    _check_dims(fn, "collapsed_slice_dims", dn.collapsed_slice_dims, operand.ndim, sorted_=True)
    _check_dims(fn, "operand_batching_dims", dn.operand_batching_dims, operand.ndim, sorted_=True)
    _check_dims(fn, "start_indices_batching_dims", dn.start_indices_batching_dims, len(batch_shape))
    if set(dn.collapsed_slice_dims) & set(dn.operand_batching_dims):
        raise TypeError(
            f"{fn}: collapsed_slice_dims {dn.collapsed_slice_dims} and operand_batching_dims "
            f"{dn.operand_batching_dims} must be disjoint."
        )
    if set(dn.start_index_map) & set(dn.operand_batching_dims):
        raise TypeError(
            f"{fn}: start_index_map {dn.start_index_map} and operand_batching_dims "
            f"{dn.operand_batching_dims} must be disjoint."
        )
    check_batching_dims(
        fn,
        operand.shape,
        batch_shape,
        dn.operand_batching_dims,
        dn.start_indices_batching_dims,
        "start_indices_batching_dims",
    )
    for d in dn.collapsed_slice_dims + dn.operand_batching_dims:
        if slice_sizes[d] > 1:
            raise TypeError(
                f"{fn}: slice_sizes[{d}] must be at most 1 for a collapsed or batching dimension, "
                f"got slice_sizes {slice_sizes}."
            )
    window_dims = [
        d
        for d in range(operand.ndim)
        if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims
    ]
    out_rank = len(batch_shape) + len(window_dims)
    if len(dn.offset_dims) != len(window_dims):
        raise TypeError(
            f"{fn}: offset_dims {dn.offset_dims} must have one entry per operand dimension that "
            f"is not collapsed or batched ({len(window_dims)} for operand shape {operand.shape})."
        )
    _check_dims(fn, "offset_dims", dn.offset_dims, out_rank, sorted_=True)
    out = []
    batch = iter(batch_shape)
    window = iter(slice_sizes[d] for d in window_dims)
    for p in range(out_rank):
        out.append(next(window) if p in dn.offset_dims else next(batch))
    return tuple(out)


def _gather_abstract_eval(operand, indices, *, dimension_numbers, slice_sizes, **_):
    shape = _gather_shape(operand, indices, dimension_numbers, slice_sizes)
    return ShapedArray(shape, operand.dtype, operand.weak_type)


def _gather_impl(operand, indices, *, dimension_numbers, slice_sizes, mode, fill_value, **_):
    dn = dimension_numbers
    out_shape = _gather_shape(
        ShapedArray(operand.shape, operand.dtype),
        ShapedArray(indices.shape, indices.dtype),
        dn,
        slice_sizes,
    )
    batch_shape = indices.shape[:-1]
    nb = len(batch_shape)
    window_dims = [
        d
        for d in range(operand.ndim)
        if d not in dn.collapsed_slice_dims and d not in dn.operand_batching_dims
    ]
    window_shape = tuple(slice_sizes[d] for d in window_dims)
    if 0 in batch_shape or 0 in window_shape or operand.size == 0:
        return np.zeros(out_shape, operand.dtype)
    starts = _window_starts(
        operand.shape,
        indices,
        dn.start_index_map,
        dn.operand_batching_dims,
        dn.start_indices_batching_dims,
    )
    # Dimensions read whole (window == dimension, so the clamped start is 0) are sliced rather
    # than fancy-indexed: moved last, they keep the index arrays small. (The fill mask below
    # looks at the unclamped starts.)
    full = [d for d in window_dims if slice_sizes[d] == operand.shape[d]]
    partial_dims = [d for d in range(operand.ndim) if d not in full]
    part_window = [d for d in window_dims if d not in full]
    index = _window_index(
        [starts[d] for d in partial_dims],
        [slice_sizes[d] for d in partial_dims],
        [partial_dims.index(d) for d in part_window],
        [operand.shape[d] for d in partial_dims],
        batch_shape,
        clamp=True,
    )
    src = np.transpose(operand, partial_dims + full)
    res = src[tuple(index) + (slice(None),) * len(full)]
    res = np.broadcast_to(
        res,
        batch_shape
        + tuple(slice_sizes[d] for d in part_window)
        + tuple(operand.shape[d] for d in full),
    )
    # Now batch + partial window + full window; put the window dimensions in operand order.
    order = part_window + full
    res = np.transpose(res, tuple(range(nb)) + tuple(nb + order.index(d) for d in window_dims))
    if mode in (GatherScatterMode.FILL_OR_DROP, GatherScatterMode.ONE_HOT):
        ok = _in_bounds(starts, dn.start_index_map, slice_sizes, operand.shape, batch_shape)
        if not ok.all():
            if mode is GatherScatterMode.ONE_HOT:
                fill = 0
            elif fill_value is None:
                fill = _default_fill_value(operand.dtype)
            else:
                fill = fill_value
            with np.errstate(invalid="ignore"):
                fill = np.asarray(fill).astype(operand.dtype)
            res = np.where(ok.reshape(batch_shape + (1,) * len(window_dims)), res, fill)
    # Batch dimensions go where offset_dims leaves room, window dimensions to offset_dims.
    perm = []
    b, w = iter(range(nb)), iter(range(nb, nb + len(window_dims)))
    for p in range(len(out_shape)):
        perm.append(next(w) if p in dn.offset_dims else next(b))
    return np.transpose(res, perm)


gather_p = core.Primitive("gather")
gather_p.def_impl(_gather_impl)
gather_p.def_abstract_eval(_gather_abstract_eval)


def _gather_sharding(specs, avals, *, dimension_numbers, slice_sizes, **params):
    # Window dimensions taken whole keep the operand's axes; gathered (partially sliced)
    # dimensions lose theirs; batch positions follow the indices.
    dn = dimension_numbers
    op, idx = avals
    ospec = specs[0] or (None,) * op.ndim
    ispec = specs[1] or (None,) * idx.ndim
    skip = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    window = [
        ospec[d] if slice_sizes[d] == op.shape[d] else None for d in range(op.ndim) if d not in skip
    ]
    batch_dims = list(range(idx.ndim - 1))
    pairs = dict(zip(dn.start_indices_batching_dims, dn.operand_batching_dims))
    batch = [
        sharding_rules.merge_entries([ispec[d], ospec[pairs[d]]]) if d in pairs else ispec[d]
        for d in batch_dims
    ]
    out_rank = len(window) + len(batch)
    w, b = iter(window), iter(batch)
    out = [next(w) if p in dn.offset_dims else next(b) for p in range(out_rank)]
    return tuple(sharding_rules.resolve_conflicts(out))


def _gather_sharding_explicit(specs, avals, *, dimension_numbers, slice_sizes, **params):
    op = avals[0]
    ospec = specs[0] or (None,) * op.ndim
    for d in range(op.ndim):
        if d in dimension_numbers.operand_batching_dims:
            continue
        if ospec[d] is not None and slice_sizes[d] != op.shape[d]:
            raise sharding_rules.ShardingTypeError(
                "Use `.at[...].get(out_sharding=)` to provide output PartitionSpec for the "
                "gather indexing as out sharding could not be resolved unambiguously (or would "
                "require collectives on inputs). Got operand=ShapedArray("
                f"{sharding_rules.type_str(op, ospec, short=False)}), indices=ShapedArray("
                f"{sharding_rules.type_str(avals[1], specs[1], short=False)})"
            )
    return _gather_sharding(
        specs, avals, dimension_numbers=dimension_numbers, slice_sizes=slice_sizes
    )


sharding_rules.sharding_rules[gather_p] = _gather_sharding
sharding_rules.explicit_rules[gather_p] = _gather_sharding_explicit


def _shift(dims: Sequence[int]) -> tuple[int, ...]:
    # Computed with NumPy, as JAX does: printed programs show np.int64 dimension numbers.
    return tuple(np.add(1, dims, dtype=np.int64)) if dims else ()


def _gather_vmap(
    axis_data,
    vals,
    dims,
    *,
    dimension_numbers,
    slice_sizes,
    unique_indices,
    indices_are_sorted,
    mode,
    fill_value,
):
    (x, idx), (xd, idd) = vals, dims
    dn = dimension_numbers
    params = dict(indices_are_sorted=indices_are_sorted, mode=mode, fill_value=fill_value)
    if idd is None:
        # Only the operand is batched: its batch dimension is one more (whole) window
        # dimension, placed first in the result.
        x = moveaxis(x, xd, 0)
        new_dn = GatherDimensionNumbers(
            offset_dims=(0, *_shift(dn.offset_dims)),
            collapsed_slice_dims=_shift(dn.collapsed_slice_dims),
            start_index_map=_shift(dn.start_index_map),
            operand_batching_dims=_shift(dn.operand_batching_dims),
            start_indices_batching_dims=dn.start_indices_batching_dims,
        )
        out = gather_p.bind(
            x,
            idx,
            dimension_numbers=new_dn,
            slice_sizes=(np.shape(x)[0], *slice_sizes),
            unique_indices=unique_indices,
            **params,
        )
        return out, 0
    idx = moveaxis(idx, idd, 0)
    if xd is None:
        # Only the indices are batched: one more batch dimension of index vectors, first in
        # the result. Indices of different batch elements may repeat one another.
        new_dn = GatherDimensionNumbers(
            offset_dims=tuple(d + 1 for d in dn.offset_dims),
            collapsed_slice_dims=dn.collapsed_slice_dims,
            start_index_map=dn.start_index_map,
            operand_batching_dims=dn.operand_batching_dims,
            start_indices_batching_dims=_shift(dn.start_indices_batching_dims),
        )
        out = gather_p.bind(
            x,
            idx,
            dimension_numbers=new_dn,
            slice_sizes=slice_sizes,
            unique_indices=False,
            indices_are_sorted=False,
            mode=mode,
            fill_value=fill_value,
        )
        return out, 0
    # Both batched: the batch dimensions of operand and indices are paired (XLA's batching
    # dimensions), so element b of the batch reads only operand b.
    x = moveaxis(x, xd, 0)
    new_dn = GatherDimensionNumbers(
        offset_dims=_shift(dn.offset_dims),
        collapsed_slice_dims=_shift(dn.collapsed_slice_dims),
        start_index_map=_shift(dn.start_index_map),
        operand_batching_dims=(0, *_shift(dn.operand_batching_dims)),
        start_indices_batching_dims=(0, *_shift(dn.start_indices_batching_dims)),
    )
    out = gather_p.bind(
        x,
        idx,
        dimension_numbers=new_dn,
        slice_sizes=(0 if np.shape(x)[0] == 0 else 1, *slice_sizes),
        unique_indices=unique_indices,
        **params,
    )
    return out, 0


def _gather_jvp(g, x, idx, *, dimension_numbers, slice_sizes, fill_value, **params):
    # Windows out of bounds read the fill value, a constant: their tangent is 0.
    return gather(g, idx, dimension_numbers, slice_sizes, fill_value=0, **params)


def _gather_transpose(ct, x, idx, *, dimension_numbers, slice_sizes, fill_value, **params):
    # scatter imports this module (its rules gather), so scatter_add is looked up here.
    from spmd._src.lax.indexing.scattering import scatter_add

    # Each window read goes back with a scatter-add, so repeated reads accumulate.
    dn = dimension_numbers
    zeros = lax_shape.full(x.aval.shape, 0, core.get_aval(ct).dtype)
    scatter_dn = ScatterDimensionNumbers(
        update_window_dims=dn.offset_dims,
        inserted_window_dims=dn.collapsed_slice_dims,
        scatter_dims_to_operand_dims=dn.start_index_map,
        operand_batching_dims=dn.operand_batching_dims,
        scatter_indices_batching_dims=dn.start_indices_batching_dims,
    )
    return [scatter_add(zeros, idx, ct, scatter_dn, **params), None]


batching.primitive_batchers[gather_p] = _gather_vmap
defjvp(gather_p, _gather_jvp, None)
ad.primitive_transposes[gather_p] = _gather_transpose


__all__ = [
    "gather",
    "gather_p",
]
