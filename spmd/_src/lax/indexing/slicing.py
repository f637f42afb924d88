"""Dynamic slicing: ``dynamic_slice``, ``dynamic_update_slice`` and their ``*_in_dim`` forms.

Start indices are scalar operands, clamped so that the slice stays inside the operand, as XLA
does. Under ``vmap`` a batched start index turns the slice into a gather (an update into a
scatter).

>>> from spmd import lax
>>> lax.dynamic_slice(jnp.arange(10), (8,), (4,))  # start clamped to 6
Array([6, 7, 8, 9], dtype=int32)
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes, key_arrays
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.key_arrays import over_key_data
from spmd._src.lax import elementwise as lax_elem
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.indexing.common import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    _ints,
    _is_int_dtype,
)
from spmd._src.lax.indexing.gathering import _gather_vmap
from spmd._src.lax.indexing.scattering import _scatter_vmap, scatter_p
from spmd._src.util import canonicalize_axis


def _is_static_int(x: Any) -> bool:
    # Python and NumPy integer scalars are known while tracing; arrays (even 0-d NumPy ones),
    # spmd Arrays and tracers are operands of the program.
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _static_index_dtype(x: Any) -> np.dtype:
    if type(x) is int:
        return dtypes.default_int_dtype()
    return dtypes.canonicalize_dtype(np.asarray(x).dtype)


# ---------------------------------------------------------------------------------------------
# dynamic_slice and dynamic_update_slice


def _start_avals(fn: str, operand, start_indices) -> list[ShapedArray]:
    shape = np.shape(operand)
    if len(start_indices) != len(shape):
        raise ValueError(
            f"{fn}: got {len(start_indices)} start indices for an operand of shape {shape}; "
            "there must be one per operand dimension."
        )
    avals = []
    for i in start_indices:
        a = core.get_aval(i)
        if _is_static_int(i):
            a = ShapedArray((), _static_index_dtype(i))
        avals.append(a)
    _check_start_avals(fn, avals)
    return avals


def _check_start_avals(fn: str, avals: Sequence[ShapedArray]) -> None:
    if any(a.shape != () for a in avals):
        raise TypeError(
            f"{fn}: start indices must be scalars, got indices of shapes "
            f"{[a.shape for a in avals]}."
        )
    dts = [a.dtype for a in avals]
    if any(not _is_int_dtype(d) for d in dts) or len(set(dts)) > 1:
        raise TypeError(
            f"index arguments to {fn} must be integers of the same type, got: "
            + ", ".join(d.name for d in dts)
        )


def _split_start_indices(start_indices) -> list[Any]:
    # A 1-D array of start indices is split into scalars (one operand per dimension).
    if isinstance(start_indices, (list, tuple)):
        return list(start_indices)
    if isinstance(start_indices, np.ndarray):
        if start_indices.ndim != 1:
            raise TypeError(
                f"start_indices must be a sequence or a 1-D array, got shape {start_indices.shape}"
            )
        return list(start_indices)
    shape = np.shape(start_indices)
    if len(shape) != 1:
        raise TypeError(f"start_indices must be a sequence or a 1-D array, got shape {shape}")
    return [
        lax_shape.squeeze(lax_shape.slice_in_dim(start_indices, k, k + 1), (0,))
        for k in range(shape[0])
    ]


def _normalize_start(i: Any, size: int, allow_negative: bool) -> Any:
    """Index ``i`` into a dimension of ``size``, with negative values counted from the end.

    Static ints are adjusted here; array indices get ``select_n(i < 0, i, i + size)``, as JAX
    emits it (so the printed programs agree)."""
    if _is_static_int(i):
        dt = _static_index_dtype(i)
        v = int(i)
        if allow_negative and v < 0:
            v += size
        return np.asarray(v, dt)
    aval = core.get_aval(i)
    if not allow_negative or dtypes.issubdtype(aval.dtype, np.unsignedinteger):
        return i
    dt = aval.dtype
    negative = lax_elem.lt(i, np.asarray(0, dt))
    strong = lax_elem.convert_element_type(i, dt) if aval.weak_type else i
    wrapped = lax_elem.add(strong, np.asarray(size, dt))
    return lax_elem.select_n(negative, i, wrapped)


def _dynamic_slice_indices(fn, operand, start_indices, allow_negative_indices) -> list[Any]:
    starts = _split_start_indices(start_indices)
    _start_avals(fn, operand, starts)
    shape = np.shape(operand)
    if isinstance(allow_negative_indices, bool):
        allow = [allow_negative_indices] * len(shape)
    else:
        allow = list(allow_negative_indices)
    return [_normalize_start(i, d, a) for i, d, a in zip(starts, shape, allow)]


@over_key_data("lax.dynamic_slice")
def dynamic_slice(
    operand, start_indices, slice_sizes: Sequence[int], *, allow_negative_indices=True
):
    """The slice of ``operand`` of ``slice_sizes`` starting at ``start_indices`` (scalars,
    possibly traced). Negative starts count from the end; starts are then clamped so the slice
    lies inside the operand.

    >>> lax.dynamic_slice(jnp.arange(12).reshape(3, 4), (1, 2), (2, 2))
    Array([[ 6,  7],
           [10, 11]], dtype=int32)
    """
    sizes = _ints(slice_sizes)
    if len(sizes) != np.ndim(operand):
        raise TypeError(
            f"dynamic_slice: slice_sizes {sizes} must have one entry per dimension of the "
            f"operand (shape {np.shape(operand)})."
        )
    starts = _dynamic_slice_indices("dynamic_slice", operand, start_indices, allow_negative_indices)
    return dynamic_slice_p.bind(operand, *starts, slice_sizes=sizes)


def _dynamic_slice_abstract_eval(operand, *starts, slice_sizes):
    if len(starts) != operand.ndim or len(slice_sizes) != operand.ndim:
        raise TypeError(
            f"dynamic_slice: got {len(starts)} start indices and slice_sizes {slice_sizes} for "
            f"an operand of shape {operand.shape}; both need one entry per dimension."
        )
    _check_start_avals("dynamic_slice", starts)
    if any(not 0 <= s <= d for s, d in zip(slice_sizes, operand.shape)):
        raise TypeError(
            f"dynamic_slice: slice_sizes must be non-negative and at most the operand shape, "
            f"got slice_sizes {slice_sizes} for operand shape {operand.shape}."
        )
    return ShapedArray(slice_sizes, operand.dtype, operand.weak_type)


def _clamped_window(starts, sizes, shape) -> tuple[slice, ...]:
    out = []
    for s, n, d in zip(starts, sizes, shape):
        s = min(max(int(s), 0), d - n)
        out.append(np.s_[s : s + n])
    return tuple(out)


def _dynamic_slice_impl(operand, *starts, slice_sizes):
    return operand[_clamped_window(starts, slice_sizes, operand.shape)]


dynamic_slice_p = core.Primitive("dynamic_slice")
dynamic_slice_p.def_impl(_dynamic_slice_impl)
dynamic_slice_p.def_abstract_eval(_dynamic_slice_abstract_eval)


def _batch_dynamic_slice_indices(starts, dims, size: int) -> tuple[Any, int | None]:
    """The scalar start operands as one gather/scatter index array: shape ``(n,)`` when no
    start is batched, else ``(size, n)`` with the batch dimension first."""
    if not starts:
        return core.make_concrete(np.zeros((0,), np.int32), False), None
    if all(d is None for d in dims):
        return lax_shape.concatenate([lax_shape.broadcast(i, (1,)) for i in starts], 0), None
    columns = [
        lax_shape.broadcast_in_dim(i, (size, 1), () if d is None else (0,))
        for i, d in zip(starts, dims)
    ]
    return lax_shape.concatenate(columns, 1), 0


def _dynamic_slice_vmap(axis_data, vals, dims, *, slice_sizes):
    # A dynamic slice is a gather with one index vector: batching it is gather's batching
    # (clamped, as dynamic_slice clamps its starts).
    (x, *starts), (xd, *sds) = vals, dims
    all_dims = tuple(range(len(slice_sizes)))
    dn = GatherDimensionNumbers(
        offset_dims=all_dims, collapsed_slice_dims=(), start_index_map=all_dims
    )
    index, index_d = _batch_dynamic_slice_indices(starts, sds, axis_data.size)
    return _gather_vmap(
        axis_data,
        [x, index],
        [xd, index_d],
        dimension_numbers=dn,
        slice_sizes=slice_sizes,
        unique_indices=True,
        indices_are_sorted=True,
        mode=GatherScatterMode.CLIP,
        fill_value=None,
    )


def _dynamic_slice_jvp(primals, tangents, primal_out, *, slice_sizes):
    g = tangents[0]
    if type(g) is ad.Zero:
        return ad.Zero.from_value(primal_out)
    return dynamic_slice_p.bind(g, *primals[1:], slice_sizes=slice_sizes)


def _dynamic_slice_transpose(ct, x, *starts, slice_sizes):
    # The cotangent goes back into the (equally clamped) window of a zero operand.
    zeros = lax_shape.full(x.aval.shape, 0, x.aval.dtype)
    return [dynamic_update_slice_p.bind(zeros, ct, *starts)] + [None] * len(starts)


batching.primitive_batchers[dynamic_slice_p] = _dynamic_slice_vmap

# Slices at traced offsets keep the operand's sharding (each dimension as far as its shards
# divide the slice: sharding_rules.fit).
sharding_rules.sharding_rules[dynamic_slice_p] = sharding_rules.unary_rule


def _dynamic_slice_sharding_explicit(specs, avals, *, slice_sizes):
    # Sharding in types: a sliced dimension keeps its axes only where they divide its new size.
    return lax_shape._resized_sharding_explicit("dynamic_slice", specs, avals, slice_sizes)


sharding_rules.explicit_rules[dynamic_slice_p] = _dynamic_slice_sharding_explicit
ad.primitive_jvps[dynamic_slice_p] = _dynamic_slice_jvp
ad.primitive_transposes[dynamic_slice_p] = _dynamic_slice_transpose


@over_key_data("lax.dynamic_update_slice", key_arrays.at(0, 1))
def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True):
    """``operand`` with the block ``update`` written at ``start_indices`` (clamped so the
    block fits, as in ``dynamic_slice``).

    >>> lax.dynamic_update_slice(jnp.zeros(5, jnp.int32), jnp.array([1, 2]), (4,))
    Array([0, 0, 0, 1, 2], dtype=int32)
    """
    starts = _dynamic_slice_indices(
        "dynamic_update_slice", operand, start_indices, allow_negative_indices
    )
    return dynamic_update_slice_p.bind(operand, update, *starts)


def _dynamic_update_slice_abstract_eval(operand, update, *starts):
    if update.ndim != operand.ndim:
        raise TypeError(
            f"dynamic_update_slice: update must have the operand's rank, got update shape "
            f"{update.shape} for operand shape {operand.shape}."
        )
    if any(u > d for u, d in zip(update.shape, operand.shape)):
        raise TypeError(
            f"dynamic_update_slice: update shape {update.shape} must be at most the operand "
            f"shape {operand.shape} in every dimension."
        )
    if update.dtype != operand.dtype:
        raise TypeError(
            "lax.dynamic_update_slice requires arguments to have the same dtypes, got "
            f"{operand.dtype.name}, {update.dtype.name}."
        )
    if len(starts) != operand.ndim:
        raise TypeError(
            f"dynamic_update_slice: got {len(starts)} start indices for an operand of shape "
            f"{operand.shape}."
        )
    _check_start_avals("dynamic_update_slice", starts)
    # JAX's result is never weakly typed, even for weak operand and update.
    return ShapedArray(operand.shape, operand.dtype, False)


def _dynamic_update_slice_impl(operand, update, *starts):
    out = np.array(operand, copy=True)
    out[_clamped_window(starts, update.shape, operand.shape)] = update
    return out


dynamic_update_slice_p = core.Primitive("dynamic_update_slice")
dynamic_update_slice_p.def_impl(_dynamic_update_slice_impl)
dynamic_update_slice_p.def_abstract_eval(_dynamic_update_slice_abstract_eval)


def _dynamic_update_slice_vmap(axis_data, vals, dims):
    # A scatter of one window: batching it is scatter's batching.
    (x, u, *starts), (xd, ud, *sds) = vals, dims
    window = tuple(range(np.ndim(u) - (ud is not None)))
    dn = ScatterDimensionNumbers(
        update_window_dims=window, inserted_window_dims=(), scatter_dims_to_operand_dims=window
    )
    index, index_d = _batch_dynamic_slice_indices(starts, sds, axis_data.size)
    return _scatter_vmap(
        scatter_p,
        axis_data,
        [x, index, u],
        [xd, index_d, ud],
        dimension_numbers=dn,
        indices_are_sorted=True,
        unique_indices=True,
        mode=GatherScatterMode.CLIP,
        update_jaxpr=None,
        update_consts=(),
    )


def _dynamic_update_slice_jvp(primals, tangents, primal_out):
    # Linear in operand and update jointly; the start indices carry no tangent.
    gx, gu = tangents[:2]
    if type(gx) is ad.Zero and type(gu) is ad.Zero:
        return ad.Zero.from_value(primal_out)
    return dynamic_update_slice_p.bind(ad.instantiate(gx), ad.instantiate(gu), *primals[2:])


def _dynamic_update_slice_transpose(ct, x, u, *starts):
    u_shape = u.aval.shape if ad.is_undefined_primal(u) else np.shape(u)
    x_ct = u_ct = None
    if ad.is_undefined_primal(x):
        # What the update overwrote gets no cotangent.
        zeros = lax_shape.full(u_shape, 0, core.get_aval(ct).dtype)
        x_ct = dynamic_update_slice_p.bind(ct, zeros, *starts)
    if ad.is_undefined_primal(u):
        u_ct = dynamic_slice_p.bind(ct, *starts, slice_sizes=tuple(u_shape))
    return [x_ct, u_ct] + [None] * len(starts)


batching.primitive_batchers[dynamic_update_slice_p] = _dynamic_update_slice_vmap
sharding_rules.sharding_rules[dynamic_update_slice_p] = sharding_rules.unary_rule
ad.primitive_jvps[dynamic_update_slice_p] = _dynamic_update_slice_jvp
ad.primitive_transposes[dynamic_update_slice_p] = _dynamic_update_slice_transpose


def _in_dim_starts(operand, start_index, axis: int, fn: str) -> tuple[int, list[Any]]:
    nd = np.ndim(operand)
    axis = canonicalize_axis(axis, nd, fn=fn)
    if _is_static_int(start_index):
        dt = _static_index_dtype(start_index)
    else:
        dt = core.get_aval(start_index).dtype
    # NumPy scalars are static starts: no normalization is emitted for the other dimensions.
    starts: list[Any] = [dt.type(0)] * nd
    starts[axis] = start_index
    return axis, starts


@over_key_data("lax.dynamic_slice_in_dim")
def dynamic_slice_in_dim(
    operand, start_index, slice_size: int, axis: int = 0, *, allow_negative_indices=True
):
    """``dynamic_slice`` along one dimension: ``slice_size`` elements from ``start_index``."""
    axis, starts = _in_dim_starts(operand, start_index, axis, "dynamic_slice_in_dim")
    sizes = list(np.shape(operand))
    sizes[axis] = operator.index(slice_size)
    return dynamic_slice(operand, starts, sizes, allow_negative_indices=allow_negative_indices)


@over_key_data("lax.dynamic_index_in_dim")
def dynamic_index_in_dim(
    operand, index, axis: int = 0, keepdims: bool = True, *, allow_negative_indices=True
):
    """Element ``index`` along ``axis`` (the dimension is kept unless ``keepdims=False``)."""
    out = dynamic_slice_in_dim(
        operand, index, 1, axis, allow_negative_indices=allow_negative_indices
    )
    if keepdims:
        return out
    return lax_shape.squeeze(out, (canonicalize_axis(axis, np.ndim(operand)),))


def dynamic_update_slice_in_dim(
    operand, update, start_index, axis: int, *, allow_negative_indices=True
):
    """``dynamic_update_slice`` along one dimension."""
    _, starts = _in_dim_starts(operand, start_index, axis, "dynamic_update_slice_in_dim")
    return dynamic_update_slice(
        operand, update, starts, allow_negative_indices=allow_negative_indices
    )


def dynamic_update_index_in_dim(operand, update, index, axis: int, *, allow_negative_indices=True):
    """Write ``update`` at position ``index`` along ``axis`` (``update`` may lack that
    dimension)."""
    axis = canonicalize_axis(axis, np.ndim(operand), fn="dynamic_update_index_in_dim")
    if np.ndim(update) == np.ndim(operand) - 1:
        update = lax_shape.expand_dims(update, (axis,))
    return dynamic_update_slice_in_dim(
        operand, update, index, axis, allow_negative_indices=allow_negative_indices
    )


__all__ = [
    "dynamic_index_in_dim",
    "dynamic_slice",
    "dynamic_slice_in_dim",
    "dynamic_slice_p",
    "dynamic_update_index_in_dim",
    "dynamic_update_slice",
    "dynamic_update_slice_in_dim",
    "dynamic_update_slice_p",
]
