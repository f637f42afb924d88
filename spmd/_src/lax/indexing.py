"""Indexing primitives: dynamic slicing and updating, and XLA's general ``gather`` and
``scatter`` (with the ``-add``, ``-mul``, ``-min``, ``-max`` combiners).

Start indices of dynamic slices are scalar operands, clamped so that the slice stays inside
the operand, as XLA does. ``gather``/``scatter`` take index vectors along the last dimension of
their indices operand; ``GatherScatterMode`` says what happens to out-of-bounds indices.

>>> from spmd import lax
>>> lax.dynamic_slice(jnp.arange(10), (8,), (4,))  # start clamped to 6
Array([6, 7, 8, 9], dtype=int32)
"""

from __future__ import annotations

import enum
import functools
import operator
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from spmd._src import core, dtypes
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching
from spmd._src.interpreters import partial_eval as pe
from spmd._src.lax import elementwise as lax_elem
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.rules import bdim_at_front, defjvp, moveaxis
from spmd._src.util import canonicalize_axis, prod

# ---------------------------------------------------------------------------------------------
# Helpers


def _ints(xs: Sequence[Any]) -> tuple[int, ...]:
    return tuple(operator.index(x) for x in xs)


def _is_static_int(x: Any) -> bool:
    # Python and NumPy integer scalars are known while tracing; arrays (even 0-d NumPy ones),
    # spmd Arrays and tracers are operands of the program.
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _static_index_dtype(x: Any) -> np.dtype:
    if type(x) is int:
        return dtypes.default_int_dtype()
    return dtypes.canonicalize_dtype(np.asarray(x).dtype)


def _is_int_dtype(dt: np.dtype) -> bool:
    return dtypes.issubdtype(dt, np.integer)


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
ad.primitive_jvps[dynamic_slice_p] = _dynamic_slice_jvp
ad.primitive_transposes[dynamic_slice_p] = _dynamic_slice_transpose


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


def dynamic_slice_in_dim(
    operand, start_index, slice_size: int, axis: int = 0, *, allow_negative_indices=True
):
    """``dynamic_slice`` along one dimension: ``slice_size`` elements from ``start_index``."""
    axis, starts = _in_dim_starts(operand, start_index, axis, "dynamic_slice_in_dim")
    sizes = list(np.shape(operand))
    sizes[axis] = operator.index(slice_size)
    return dynamic_slice(operand, starts, sizes, allow_negative_indices=allow_negative_indices)


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


# ---------------------------------------------------------------------------------------------
# Modes and dimension numbers


class GatherScatterMode(enum.Enum):
    """What gather and scatter do with out-of-bounds indices.

    ``CLIP`` clamps them into range; ``FILL_OR_DROP`` makes gathers of out-of-bounds windows
    return the fill value and drops out-of-bounds scatter updates; ``PROMISE_IN_BOUNDS`` lets the
    implementation choose (here: clamp for gathers, drop for scatters, as XLA on CPU);
    ``ONE_HOT`` acts as a one-hot product would (zeros for gathers, dropped updates).
    """

    CLIP = 1
    FILL_OR_DROP = 2
    PROMISE_IN_BOUNDS = 3
    ONE_HOT = 4

    @staticmethod
    def from_any(s: str | GatherScatterMode | None) -> GatherScatterMode:
        """Parse a mode: an enum member, ``'clip'``, ``'fill'``/``'drop'``,
        ``'promise_in_bounds'``, ``'one_hot'``, or None (``FILL_OR_DROP``)."""
        if isinstance(s, GatherScatterMode):
            return s
        if s is None or s == "fill" or s == "drop":
            return GatherScatterMode.FILL_OR_DROP
        if s == "clip":
            return GatherScatterMode.CLIP
        if s == "promise_in_bounds":
            return GatherScatterMode.PROMISE_IN_BOUNDS
        if s == "one_hot":
            return GatherScatterMode.ONE_HOT
        raise ValueError(f'Unknown gather mode "{s}"')


class GatherDimensionNumbers(NamedTuple):
    """How a gather reads windows of the operand (XLA's dimension numbers).

    ``offset_dims``: result dimensions holding the window dimensions (operand dimensions not
    collapsed or batched, in order). ``collapsed_slice_dims``: operand dimensions of window size
    1 left out of the result. ``start_index_map``: the operand dimension each entry of an index
    vector starts. ``operand_batching_dims``/``start_indices_batching_dims``: operand dimensions
    paired with batch dimensions of the indices (the window starts at that batch position).
    """

    offset_dims: tuple[int, ...]
    collapsed_slice_dims: tuple[int, ...]
    start_index_map: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    start_indices_batching_dims: tuple[int, ...] = ()


class ScatterDimensionNumbers(NamedTuple):
    """How a scatter writes windows of updates (XLA's dimension numbers).

    ``update_window_dims``: dimensions of the updates that are window dimensions.
    ``inserted_window_dims``: operand dimensions of window size 1 absent from the updates.
    ``scatter_dims_to_operand_dims``: the operand dimension each entry of an index vector starts.
    ``operand_batching_dims``/``scatter_indices_batching_dims``: operand dimensions paired with
    batch dimensions of the indices.
    """

    update_window_dims: tuple[int, ...]
    inserted_window_dims: tuple[int, ...]
    scatter_dims_to_operand_dims: tuple[int, ...]
    operand_batching_dims: tuple[int, ...] = ()
    scatter_indices_batching_dims: tuple[int, ...] = ()


def _canonical_dnums(dn, cls):
    if not all(hasattr(dn, f) for f in cls._fields[:3]):
        raise TypeError(f"dimension_numbers must be a {cls.__name__}, got {dn!r}")
    # NumPy integers are kept (JAX's batching rules compute dimension numbers with NumPy, and
    # its printed programs show them as np.int64).
    return cls(*(tuple(_dim_ints(getattr(dn, f, ()))) for f in cls._fields))


def _dim_ints(xs: Sequence[Any]) -> tuple[Any, ...]:
    return tuple(x if isinstance(x, np.integer) else operator.index(x) for x in xs)


def _check_dims(fn: str, what: str, dims: Sequence[int], rank: int, *, sorted_: bool = False):
    if any(not 0 <= d < rank for d in dims):
        raise TypeError(f"{fn}: {what} {tuple(dims)} out of range for rank {rank}.")
    if len(set(dims)) != len(dims):
        raise TypeError(f"{fn}: {what} {tuple(dims)} has repeated entries.")
    if sorted_ and list(dims) != sorted(dims):
        raise TypeError(f"{fn}: {what} {tuple(dims)} must be sorted.")


def _default_fill_value(dt: np.dtype) -> Any:
    # The value an out-of-bounds gather window reads: NaN for inexact types, the minimum of
    # signed and the maximum of unsigned integers, True for bool (JAX's choices).
    if dt == np.bool_:
        return True
    if dtypes.issubdtype(dt, np.unsignedinteger):
        return int(dtypes.iinfo(dt).max)
    if dtypes.issubdtype(dt, np.integer):
        return int(dtypes.iinfo(dt).min)
    return float("nan")


def _static_fill(fill_value: Any) -> Any:
    if fill_value is None or isinstance(fill_value, (bool, int, float, complex, np.generic)):
        return fill_value
    if isinstance(fill_value, core.Tracer):
        raise TypeError("gather: fill_value must be a static scalar, got a traced value.")
    v = np.asarray(fill_value)
    if v.ndim:
        raise TypeError(f"gather: fill_value must be a scalar, got shape {v.shape}.")
    return v.item()


# ---------------------------------------------------------------------------------------------
# Window index arithmetic shared by gather and scatter


def _window_starts(operand_shape, indices, index_map, operand_batching, indices_batching):
    """Per operand dimension, the start of each window: an int array of the indices' batch
    shape (or None where the start is always 0)."""
    batch_shape = indices.shape[:-1]
    starts: list[Any] = [None] * len(operand_shape)
    idx = indices.astype(np.int64, copy=False)
    for k, d in enumerate(index_map):
        starts[d] = idx[..., k]
    for od, ib in zip(operand_batching, indices_batching):
        view = [1] * len(batch_shape)
        view[ib] = batch_shape[ib]
        starts[od] = np.arange(batch_shape[ib], dtype=np.int64).reshape(view)
    return starts


def _in_bounds(starts, index_map, sizes, operand_shape, batch_shape) -> np.ndarray:
    ok = np.ones(batch_shape, dtype=bool)
    for d in index_map:
        s = starts[d]
        ok &= (s >= 0) & (s <= operand_shape[d] - sizes[d])
    return ok


def _window_index(starts, sizes, window_dims, operand_shape, batch_shape, clamp: bool):
    """Fancy-index arrays (one per operand dimension) broadcasting to ``batch + window``."""
    nb, nw = len(batch_shape), len(window_dims)
    out = []
    for d, n in enumerate(operand_shape):
        s = starts[d]
        if s is None:
            s = np.zeros((1,) * nb, np.int64)
        elif clamp:
            s = np.clip(s, 0, n - sizes[d])
        s = np.reshape(s, np.shape(s) + (1,) * nw)
        if d in window_dims:
            j = window_dims.index(d)
            view = (1,) * (nb + j) + (sizes[d],) + (1,) * (nw - j - 1)
            s = s + np.arange(sizes[d], dtype=np.int64).reshape(view)
        out.append(s)
    return out


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
    if len(dn.operand_batching_dims) != len(dn.start_indices_batching_dims):
        raise TypeError(
            f"{fn}: operand_batching_dims {dn.operand_batching_dims} and "
            f"start_indices_batching_dims {dn.start_indices_batching_dims} must have the same "
            "length."
        )
    for od, ib in zip(dn.operand_batching_dims, dn.start_indices_batching_dims):
        if operand.shape[od] != batch_shape[ib]:
            raise TypeError(
                f"{fn}: operand batching dimension {od} (size {operand.shape[od]}) and indices "
                f"batching dimension {ib} (size {batch_shape[ib]}) must have the same size."
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


# ---------------------------------------------------------------------------------------------
# scatter


@functools.cache
def _combiner_jaxpr(prim: core.Primitive, dtype: np.dtype) -> core.Jaxpr:
    # The scalar update computation JAX records in scatter's ``update_jaxpr`` parameter.
    aval = ShapedArray((), dtype)
    x, y, out = core.Var(aval), core.Var(aval), core.Var(aval)
    return core.Jaxpr([], [x, y], [out], [core.JaxprEqn([x, y], [out], prim, {})])


def _scatter_shape_check(fn, operand, indices, updates, dn: ScatterDimensionNumbers) -> None:
    if not _is_int_dtype(indices.dtype):
        raise TypeError(f"{fn}: indices must have an integer type, got {indices.dtype.name}.")
    if indices.ndim < 1:
        raise TypeError(f"{fn}: indices must have rank at least 1, got shape {indices.shape}.")
    if updates.dtype != operand.dtype:
        raise TypeError(
            f"{fn}: operand and updates must have the same dtype, got {operand.dtype.name} and "
            f"{updates.dtype.name}."
        )
    batch_shape = indices.shape[:-1]
    if len(dn.scatter_dims_to_operand_dims) != indices.shape[-1]:
        raise TypeError(
            f"{fn}: scatter_dims_to_operand_dims {dn.scatter_dims_to_operand_dims} must have one "
            f"entry per element of an index vector (indices shape {indices.shape})."
        )
    _check_dims(fn, "update_window_dims", dn.update_window_dims, updates.ndim, sorted_=True)
    _check_dims(fn, "inserted_window_dims", dn.inserted_window_dims, operand.ndim, sorted_=True)
    _check_dims(fn, "operand_batching_dims", dn.operand_batching_dims, operand.ndim, sorted_=True)
    _check_dims(fn, "scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims, operand.ndim)
    _check_dims(
        fn, "scatter_indices_batching_dims", dn.scatter_indices_batching_dims, len(batch_shape)
    )
    if set(dn.inserted_window_dims) & set(dn.operand_batching_dims):
        raise TypeError(
            f"{fn}: inserted_window_dims {dn.inserted_window_dims} and operand_batching_dims "
            f"{dn.operand_batching_dims} must be disjoint."
        )
    if len(dn.operand_batching_dims) != len(dn.scatter_indices_batching_dims):
        raise TypeError(
            f"{fn}: operand_batching_dims {dn.operand_batching_dims} and "
            f"scatter_indices_batching_dims {dn.scatter_indices_batching_dims} must have the "
            "same length."
        )
    for od, ib in zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims):
        if operand.shape[od] != batch_shape[ib]:
            raise TypeError(
                f"{fn}: operand batching dimension {od} (size {operand.shape[od]}) and indices "
                f"batching dimension {ib} (size {batch_shape[ib]}) must have the same size."
            )
    window_dims = [
        d
        for d in range(operand.ndim)
        if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims
    ]
    if len(window_dims) != len(dn.update_window_dims):
        raise TypeError(
            f"{fn}: update_window_dims {dn.update_window_dims} must have one entry per operand "
            f"dimension not inserted or batched ({len(window_dims)} for operand shape "
            f"{operand.shape})."
        )
    scatter_dims = [i for i in range(updates.ndim) if i not in dn.update_window_dims]
    if tuple(updates.shape[i] for i in scatter_dims) != batch_shape:
        raise TypeError(
            f"{fn}: the update scatter dimensions {tuple(scatter_dims)} of updates shape "
            f"{updates.shape} must match the indices batch shape {batch_shape}."
        )
    for d, u in zip(window_dims, dn.update_window_dims):
        if updates.shape[u] > operand.shape[d]:
            raise TypeError(
                f"{fn}: update window dimension {u} (size {updates.shape[u]}) is larger than "
                f"operand dimension {d} (size {operand.shape[d]}); updates shape "
                f"{updates.shape}, operand shape {operand.shape}."
            )


def _scatter_impl_for(combine: Callable | None):
    def impl(operand, indices, updates, *, dimension_numbers, mode, update_jaxpr, **_):
        dn = dimension_numbers
        out = np.array(operand, copy=True)
        batch_shape = indices.shape[:-1]
        nb = len(batch_shape)
        window_dims = [
            d
            for d in range(operand.ndim)
            if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims
        ]
        scatter_dims = [i for i in range(updates.ndim) if i not in dn.update_window_dims]
        upd = np.transpose(updates, scatter_dims + list(dn.update_window_dims))
        if upd.size == 0:
            return out
        sizes = [1] * operand.ndim
        for d, u in zip(window_dims, dn.update_window_dims):
            sizes[d] = updates.shape[u]
        starts = _window_starts(
            operand.shape,
            indices,
            dn.scatter_dims_to_operand_dims,
            dn.operand_batching_dims,
            dn.scatter_indices_batching_dims,
        )
        clamp = mode is GatherScatterMode.CLIP
        index = _window_index(starts, sizes, window_dims, operand.shape, batch_shape, clamp)
        full = batch_shape + upd.shape[nb:]
        index = [np.broadcast_to(i, full) for i in index]
        if not clamp:
            # Windows that do not fit are dropped whole (XLA's semantics).
            ok = _in_bounds(
                starts, dn.scatter_dims_to_operand_dims, sizes, operand.shape, batch_shape
            )
            if not ok.all():
                ok = np.broadcast_to(ok, batch_shape)
                index = [i[ok] for i in index]
                upd = upd[ok]
        if update_jaxpr is not None and combine is None:
            # scatter_apply: each write applies the function once more.
            counts = np.zeros(operand.shape, np.int64)
            np.add.at(counts, tuple(index), 1)
            for r in range(int(counts.max(initial=0))):
                hit = counts > r
                out[hit] = _apply_update_jaxpr(update_jaxpr, out[hit])
        elif combine is None:
            out[tuple(index)] = upd
        else:
            # Values of exactly the index shape, contiguous: NumPy 2.x's ufunc.at misreads
            # broadcast or strided values in some layouts.
            with np.errstate(all="ignore"):  # XLA overflows silently (to inf or by wrapping)
                combine.at(out, tuple(index), np.asarray(upd, order="C"))
        return out

    return impl


# prim -> the lax primitive of its scalar update computation (None for plain scatter).
_COMBINERS: dict[core.Primitive, core.Primitive | None] = {}


def _scatter_primitive(name, combine, combiner_prim, numeric_only):
    prim = core.Primitive(name)

    def abstract_eval(operand, indices, updates, *, dimension_numbers, **_):
        if numeric_only and operand.dtype == np.bool_:
            raise TypeError(f"{name} does not accept dtype bool.")
        _scatter_shape_check(name, operand, indices, updates, dimension_numbers)
        return ShapedArray(operand.shape, operand.dtype, operand.weak_type)

    prim.def_abstract_eval(abstract_eval)
    prim.def_impl(_scatter_impl_for(combine))
    _COMBINERS[prim] = combiner_prim
    return prim


scatter_p = _scatter_primitive("scatter", None, None, False)
scatter_add_p = _scatter_primitive("scatter-add", np.add, lax_elem.add_p, True)
scatter_sub_p = _scatter_primitive("scatter-sub", np.subtract, lax_elem.sub_p, True)
scatter_mul_p = _scatter_primitive("scatter-mul", np.multiply, lax_elem.mul_p, True)
scatter_min_p = _scatter_primitive("scatter-min", np.minimum, lax_elem.min_p, False)
scatter_max_p = _scatter_primitive("scatter-max", np.maximum, lax_elem.max_p, False)


def _bind_scatter(
    prim,
    operand,
    scatter_indices,
    updates,
    dimension_numbers,
    *,
    indices_are_sorted,
    unique_indices,
    mode,
):
    dn = _canonical_dnums(dimension_numbers, ScatterDimensionNumbers)
    parsed = GatherScatterMode.from_any(mode)
    combiner = _COMBINERS[prim]
    jaxpr = None
    if combiner is not None:
        jaxpr = _combiner_jaxpr(combiner, core.get_aval(operand).dtype)
    return prim.bind(
        operand,
        scatter_indices,
        updates,
        dimension_numbers=dn,
        indices_are_sorted=bool(indices_are_sorted),
        unique_indices=bool(unique_indices),
        mode=parsed,
        update_jaxpr=jaxpr,
        update_consts=(),
    )


def _scatter_wrapper(prim, verb: str):
    def fn(
        operand,
        scatter_indices,
        updates,
        dimension_numbers: ScatterDimensionNumbers,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
    ):
        return _bind_scatter(
            prim,
            operand,
            scatter_indices,
            updates,
            dimension_numbers,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=mode,
        )

    fn.__doc__ = (
        f"XLA's scatter that {verb}: each window of ``updates`` goes to ``operand`` at the "
        "start given by its index vector (the last dimension of ``scatter_indices``). "
        "Out-of-bounds windows are dropped unless ``mode='clip'``."
    )
    return fn


scatter = _scatter_wrapper(scatter_p, "overwrites (the last write wins for repeated indices)")
scatter.__name__ = "scatter"
scatter_add = _scatter_wrapper(scatter_add_p, "adds (repeated indices accumulate)")
scatter_add.__name__ = "scatter_add"
scatter_sub = _scatter_wrapper(scatter_sub_p, "subtracts (repeated indices accumulate)")
scatter_sub.__name__ = "scatter_sub"
scatter_mul = _scatter_wrapper(scatter_mul_p, "multiplies (repeated indices accumulate)")
scatter_mul.__name__ = "scatter_mul"
scatter_min = _scatter_wrapper(scatter_min_p, "takes the minimum")
scatter_min.__name__ = "scatter_min"
scatter_max = _scatter_wrapper(scatter_max_p, "takes the maximum")
scatter_max.__name__ = "scatter_max"


def scatter_apply(
    operand,
    scatter_indices,
    func: Callable,
    dimension_numbers: ScatterDimensionNumbers,
    *,
    update_shape: Sequence[int] = (),
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: str | GatherScatterMode | None = None,
):
    """Apply the scalar function ``func`` to the elements of ``operand`` that a scatter with
    updates of ``update_shape`` would write (once per write: repeated indices apply it again).

    ``func`` is traced on a scalar and recorded as the scatter's ``update_jaxpr``.
    """
    aval = core.get_aval(operand)
    scalar = ShapedArray((), aval.dtype)
    closed = pe.trace_to_jaxpr(lambda x, _: [func(x)], [scalar, scalar])
    out = closed.out_avals[0]
    if out.shape != () or out.dtype != aval.dtype:
        raise TypeError(
            f"scatter_apply: func must map a {scalar.str_short()} scalar to a scalar of the same "
            f"type, got {out.str_short()}."
        )
    updates = lax_shape.full(_ints(update_shape), 0, aval.dtype)
    if closed.consts:
        # func closes over arrays (or traced values), which cannot be parameters: apply it to
        # the whole operand and select the written elements (each once).
        touched = scatter(
            lax_shape.full(aval.shape, False),
            scatter_indices,
            lax_shape.full(_ints(update_shape), True),
            dimension_numbers,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=mode,
        )
        return lax_elem.select_n(touched, operand, func(operand))
    return scatter_p.bind(
        operand,
        scatter_indices,
        updates,
        dimension_numbers=_canonical_dnums(dimension_numbers, ScatterDimensionNumbers),
        indices_are_sorted=bool(indices_are_sorted),
        unique_indices=bool(unique_indices),
        mode=GatherScatterMode.from_any(mode),
        update_jaxpr=closed.jaxpr,
        update_consts=(),
    )


def _apply_update_jaxpr(jaxpr: core.Jaxpr, values: np.ndarray) -> np.ndarray:
    # The scalar computation, run on a vector of operand elements (its primitives are
    # elementwise on scalars, so they broadcast).
    with core.set_current_trace(core.eval_trace):
        (out,) = core.eval_jaxpr(jaxpr, [], values, np.zeros_like(values))
    return np.asarray(out, values.dtype)


# ---------------------------------------------------------------------------------------------
# scatter: batching, JVP and transpose rules (shared by the scatter family)


def _inverse_gather(operand, indices, dn: ScatterDimensionNumbers, updates_shape, **kwargs):
    """The gather reading back, for every update, the operand window a scatter with ``dn``
    writes it to (the transpose of scatter-add in its updates)."""
    gather_dn = GatherDimensionNumbers(
        offset_dims=dn.update_window_dims,
        collapsed_slice_dims=dn.inserted_window_dims,
        start_index_map=dn.scatter_dims_to_operand_dims,
        operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=dn.scatter_indices_batching_dims,
    )
    window = iter(dn.update_window_dims)
    collapsed = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    sizes = [1 if d in collapsed else updates_shape[next(window)] for d in range(np.ndim(operand))]
    return gather(operand, indices, gather_dn, sizes, **kwargs)


def _scatter_vmap(prim, axis_data, vals, dims, *, dimension_numbers, **params):
    (x, idx, u), (xd, idd, ud) = vals, dims
    dn = dimension_numbers
    size = axis_data.size
    # The operand (and updates) get the batch dimension in front, broadcast when unbatched:
    # every batch element writes into its own copy.
    x = bdim_at_front(x, xd, size)
    u = bdim_at_front(u, ud, size)
    if idd is None:
        # Shared indices: the batch dimension is one more (whole) window dimension.
        new_dn = ScatterDimensionNumbers(
            update_window_dims=(0, *_shift(dn.update_window_dims)),
            inserted_window_dims=_shift(dn.inserted_window_dims),
            scatter_dims_to_operand_dims=_shift(dn.scatter_dims_to_operand_dims),
            operand_batching_dims=_shift(dn.operand_batching_dims),
            scatter_indices_batching_dims=dn.scatter_indices_batching_dims,
        )
    else:
        # Batched indices: pair the batch dimensions of operand and indices.
        idx = bdim_at_front(idx, idd, size)
        new_dn = ScatterDimensionNumbers(
            update_window_dims=_shift(dn.update_window_dims),
            inserted_window_dims=_shift(dn.inserted_window_dims),
            scatter_dims_to_operand_dims=_shift(dn.scatter_dims_to_operand_dims),
            operand_batching_dims=(0, *_shift(dn.operand_batching_dims)),
            scatter_indices_batching_dims=(0, *_shift(dn.scatter_indices_batching_dims)),
        )
    return prim.bind(x, idx, u, dimension_numbers=new_dn, **params), 0


def _scatter_params(params) -> dict[str, Any]:
    # Keyword arguments of the scatter wrappers taken from a scatter equation's parameters.
    return dict(
        indices_are_sorted=params["indices_are_sorted"],
        unique_indices=params["unique_indices"],
        mode=params["mode"],
    )


def _scatter_addsub_jvp(prim, primals, tangents, primal_out, *, dimension_numbers, **params):
    # Linear in operand and updates jointly.
    gx, _, gu = tangents
    if type(gx) is ad.Zero and type(gu) is ad.Zero:
        return ad.Zero.from_value(primal_out)
    gx, gu = ad.instantiate(gx), ad.instantiate(gu)
    return prim.bind(gx, primals[1], gu, dimension_numbers=dimension_numbers, **params)


def _scatter_addsub_transpose(prim, ct, x, idx, u, *, dimension_numbers, **params):
    x_ct = ct if ad.is_undefined_primal(x) else None
    u_ct = None
    if ad.is_undefined_primal(u):
        # Each update receives the cotangent of the window it was added to (dropped updates
        # read 0 with the fill mode).
        u_ct = _inverse_gather(
            ct, idx, dimension_numbers, u.aval.shape, mode=params["mode"], fill_value=0
        )
        if prim is scatter_sub_p:
            u_ct = lax_elem.neg(u_ct)
    return [x_ct, None, u_ct]


def _scatter_mul_jvp_updates(g, x, idx, u, *, dimension_numbers, **params):
    if not params["unique_indices"]:
        raise NotImplementedError(
            "scatter_mul: the derivative with respect to the updates is only implemented with "
            "unique_indices=True (as in JAX): with repeated indices each update's derivative "
            "is the product of the others."
        )
    spread = scatter_add(
        lax_shape.full(np.shape(x), 0, core.get_aval(g).dtype),
        idx,
        g,
        dimension_numbers,
        **_scatter_params(params),
    )
    return lax_elem.mul(x, spread)


def _scatter_mul_transpose(ct, x, idx, u, *, dimension_numbers, **params):
    x_ct = u_ct = None
    if ad.is_undefined_primal(x):
        # Linear in the operand: each element is scaled by the product of its updates.
        x_ct = scatter_mul(ct, idx, u, dimension_numbers, **_scatter_params(params))
    if ad.is_undefined_primal(u):
        if not params["unique_indices"]:
            raise NotImplementedError(
                "scatter_mul: the transpose with respect to the updates is only implemented "
                "with unique_indices=True (as in JAX)."
            )
        u_ct = _inverse_gather(
            lax_elem.mul(ct, x),
            idx,
            dimension_numbers,
            u.aval.shape,
            mode=params["mode"],
            fill_value=0,
        )
    return [x_ct, None, u_ct]


def _select(pred, on_true, on_false):
    return lax_elem.select_n(pred, on_false, on_true)


def _zeros_like(x, dtype=None):
    a = core.get_aval(x)
    return lax_shape.full(a.shape, 0, a.dtype if dtype is None else dtype)


def _scatter_extremal_jvp(primals, tangents, primal_out, *, dimension_numbers, **params):
    """Tangent of scatter-min/-max. Where several values tie for the extremum of an output
    element (updates, or updates and the operand's original value), the tangent is the
    average of theirs, as JAX does."""
    x, idx, u = primals
    gx, _, gu = tangents
    if type(gx) is ad.Zero and type(gu) is ad.Zero:
        return ad.Zero.from_value(primal_out)
    gx, gu = ad.instantiate(gx), ad.instantiate(gu)
    dn = dimension_numbers
    kw = _scatter_params(params)
    u_shape = np.shape(u)
    fill = dict(mode=kw["mode"], fill_value=0)

    def back(v):  # the value of each update's window in v
        return _inverse_gather(v, idx, dn, u_shape, **fill)

    def count(v):  # per update: the sum of v over the updates landing on its element
        return back(scatter_add(_zeros_like(x), idx, v, dn, **kw))

    el = lax_elem
    one_u, zero_u = lax_shape.full(u_shape, 1, core.get_aval(u).dtype), _zeros_like(u)
    target = back(primal_out)
    won = el.eq(u, target)  # this update is (one of) the extremum
    kept = el.eq(back(x), target)  # the original value is (one of) the extremum
    num_won = count(_select(won, one_u, zero_u))
    num_refs = count(one_u)
    # Ties share the tangent: 1 / (number of extremal values). Both counts are >= 1 wherever
    # they are used; the maxima keep NaN cases and dropped updates from dividing by zero.
    ties = el.max(el.add(num_won, _select(kept, one_u, zero_u)), one_u)
    share = el.div(one_u, ties)
    u_coef = _select(won, share, zero_u)
    x_coef = el.div(el.sub(_select(kept, share, zero_u), one_u), el.max(num_refs, one_u))
    # Each update's window: remove the operand's share of the tangent (x_coef - 1 in total
    # over the num_refs updates there) and add the updates' shares.
    t_updates = el.add(el.mul(back(gx), x_coef), el.mul(gu, u_coef))
    return scatter_add(gx, idx, t_updates, dn, **kw)


def _scatter_jvp(primals, tangents, primal_out, *, dimension_numbers, update_jaxpr, **params):
    if update_jaxpr is not None:
        raise NotImplementedError(
            "scatter_apply: differentiation is not implemented (nor in JAX); apply the "
            "function to the whole operand and select the written elements instead."
        )
    x, idx, u = primals
    gx, _, gu = tangents
    if type(gx) is ad.Zero and type(gu) is ad.Zero:
        return ad.Zero.from_value(primal_out)
    gx, gu = ad.instantiate(gx), ad.instantiate(gu)
    dn = dimension_numbers
    kw = _scatter_params(params)
    if params["unique_indices"]:
        # No update overwrites another: the tangent is the same scatter of the tangents.
        return scatter(gx, idx, gu, dn, **kw)
    # With repeated indices one update wins each element. Find which: scatter distinct
    # positive ids (one per update window), read back the id that landed under each update,
    # and keep the tangents of the winners (and of the operand elements nothing wrote to).
    # The same kernel runs the primal scatter, so the winners are the same.
    ids_shape = list(np.shape(u))
    for d in dn.update_window_dims:
        ids_shape[d] = 1
    n = prod(ids_shape)
    id_dtype = dtypes.canonicalize_dtype(np.uint32 if n < 2**32 - 1 else np.uint64)
    ids = lax_elem.add(
        lax_shape.reshape(lax_shape.iota(id_dtype, n), ids_shape),
        lax_shape.full(np.shape(u), 1, id_dtype),
    )
    scattered = scatter(lax_shape.full(np.shape(x), 0, id_dtype), idx, ids, dn, **kw)
    landed = _inverse_gather(scattered, idx, dn, np.shape(u))
    untouched = lax_elem.eq(scattered, _zeros_like(scattered))
    won = lax_elem.eq(ids, landed)
    gx = _select(untouched, gx, _zeros_like(gx))
    gu = _select(won, gu, _zeros_like(gu))
    return scatter_add(gx, idx, gu, dn, **kw)


def _scatter_transpose(ct, x, idx, u, *, dimension_numbers, update_jaxpr, **params):
    if not params["unique_indices"]:
        # The JVP of a scatter with possibly repeated indices is a scatter-add (above), so
        # only unique-index scatters are ever transposed.
        raise NotImplementedError(
            "scatter: the transpose is only implemented with unique_indices=True (as in JAX)."
        )
    u_shape = u.aval.shape if ad.is_undefined_primal(u) else np.shape(u)
    x_ct = u_ct = None
    kw = _scatter_params(params)
    if ad.is_undefined_primal(x):
        # Overwritten elements of the operand get no cotangent.
        zeros = lax_shape.full(u_shape, 0, core.get_aval(ct).dtype)
        x_ct = scatter(ct, idx, zeros, dimension_numbers, **kw)
    if ad.is_undefined_primal(u):
        u_ct = _inverse_gather(ct, idx, dimension_numbers, u_shape, mode=kw["mode"], fill_value=0)
    return [x_ct, None, u_ct]


_SCATTERS = (scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p, scatter_max_p)
for _prim in _SCATTERS:
    batching.primitive_batchers[_prim] = functools.partial(_scatter_vmap, _prim)
ad.primitive_jvps[scatter_p] = _scatter_jvp
ad.primitive_transposes[scatter_p] = _scatter_transpose
for _prim in (scatter_add_p, scatter_sub_p):
    ad.primitive_jvps[_prim] = functools.partial(_scatter_addsub_jvp, _prim)
    ad.primitive_transposes[_prim] = functools.partial(_scatter_addsub_transpose, _prim)
defjvp(
    scatter_mul_p,
    lambda g, x, idx, u, **params: scatter_mul_p.bind(g, idx, u, **params),
    None,
    _scatter_mul_jvp_updates,
)
ad.primitive_transposes[scatter_mul_p] = _scatter_mul_transpose
ad.primitive_jvps[scatter_min_p] = _scatter_extremal_jvp
ad.primitive_jvps[scatter_max_p] = _scatter_extremal_jvp
del _prim

__all__ = [
    "GatherDimensionNumbers",
    "GatherScatterMode",
    "ScatterDimensionNumbers",
    "dynamic_index_in_dim",
    "dynamic_slice",
    "dynamic_slice_in_dim",
    "dynamic_slice_p",
    "dynamic_update_index_in_dim",
    "dynamic_update_slice",
    "dynamic_update_slice_in_dim",
    "dynamic_update_slice_p",
    "gather",
    "gather_p",
    "scatter",
    "scatter_add",
    "scatter_add_p",
    "scatter_apply",
    "scatter_max",
    "scatter_max_p",
    "scatter_min",
    "scatter_min_p",
    "scatter_mul",
    "scatter_mul_p",
    "scatter_p",
    "scatter_sub",
    "scatter_sub_p",
]
