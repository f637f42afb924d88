"""NumPy indexing on spmd arrays: ``x[idx]``, ``take``, ``take_along_axis`` and the index
helpers (``ix_``, ``diag_indices``, ``tril_indices``, ...). Indexed updates (``x.at[idx]``,
``put``) are in ``updates``.

``x[idx]`` is lowered as JAX lowers it, so programs print the same: basic indices with static
integers become ``slice``/``rev``/``squeeze``/``broadcast_in_dim``; traced (or out-of-range)
scalar integers make the slice a ``dynamic_slice``; anything else (integer arrays, concrete
boolean masks, strided slices next to traced integers) becomes one ``gather``. Out-of-bounds
array indices are clamped (``mode='promise_in_bounds'``).

>>> x = jnp.arange(12).reshape(3, 4)
>>> x[1:, ::2]
Array([[ 4,  6],
       [ 8, 10]], dtype=int32)
"""

from __future__ import annotations

import operator
from typing import Any, NamedTuple

import numpy as np
from spmd._src import api, core, dtypes
from spmd._src.array import Array
from spmd._src.core import Tracer
from spmd._src.interpreters import sharding_rules
from spmd._src.key_arrays import over_key_data
from spmd._src.lax import elementwise as lax_elem
from spmd._src.lax import indexing as lax_idx
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.indexing.common import GatherDimensionNumbers, GatherScatterMode
from spmd._src.numpy import ufuncs
from spmd._src.numpy.util import check_arraylike, to_array
from spmd._src.sharding import spec_axes
from spmd._src.util import canonicalize_axis

_INDEX_DTYPE = np.dtype(np.int32)


class NonConcreteBooleanIndexError(IndexError):
    """A boolean mask index was traced: the result's shape would depend on its values."""


# ---------------------------------------------------------------------------------------------
# Parsing an index expression
#
# An index is parsed into a list of entries, one per element of the index tuple (Ellipsis
# expanded into full slices, boolean masks into the integer arrays of their nonzero positions):
#   ("none",)                    newaxis
#   ("ellipsis",)                where the Ellipsis was (it separates advanced indices, as in
#                                NumPy, even when it stands for no dimension)
#   ("slice", start, stop, step) static slice
#   ("int", i)                   static Python/NumPy integer
#   ("dyn", x)                   integer scalar array (traced or concrete)
#   ("array", x)                 integer array of rank >= 1


def _is_static_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _is_array(x: Any) -> bool:
    return isinstance(x, (Array, Tracer, np.ndarray))


def _static_slice_entry(v: Any, k: int, s: slice) -> int | None:
    if v is None:
        return None
    if isinstance(v, Tracer):
        raise IndexError(f"Slice entries must be static integers. Got {s} at position {k}")
    return operator.index(v)


def _non_tuple_error(idx: list) -> TypeError:
    nested = any(isinstance(e, (list, tuple, slice)) or e is None or e is Ellipsis for e in idx)
    hint = "arr[tuple(seq)]" if nested else "arr[array(seq)]"
    return TypeError(
        "Using a non-tuple sequence for multidimensional indexing is not allowed; use "
        f"`{hint}` instead of `arr[seq]`. (A list index is ambiguous between the two.)"
    )


def _as_index_array(e: Any) -> Any:
    """A list (or tuple) element of an index as an array."""
    if len(e) == 0:
        return np.zeros((0,), _INDEX_DTYPE)
    return np.asarray(e)


def _parse_index(shape: tuple[int, ...], idx: Any) -> tuple[list[tuple], list[int]]:
    """Entries for ``idx`` on an array of ``shape``, and the operand axes at which scalar
    booleans insert a new size-1 axis (indexed by ``[0]`` for True, ``[]`` for False)."""
    if isinstance(idx, list):
        raise _non_tuple_error(idx)
    if not isinstance(idx, tuple):
        idx = (idx,)
    raw: list[tuple] = []
    for k, e in enumerate(idx):
        if e is None:
            raw.append(("none",))
        elif e is Ellipsis:
            raw.append(("ellipsis",))
        elif isinstance(e, slice):
            start, stop, step = (_static_slice_entry(v, k, e) for v in (e.start, e.stop, e.step))
            if step == 0:
                raise ValueError("slice step cannot be zero")
            raw.append(("slice", start, stop, step))
        elif isinstance(e, (bool, np.bool_)):
            raw.append(("bool", bool(e)))
        elif _is_static_int(e):
            raw.append(("int", int(e)))
        elif isinstance(e, str):
            raise TypeError(f"spmd does not support string indexing; got idx={e!r}")
        elif isinstance(e, (float, complex, np.inexact)):
            raise TypeError(
                "Indexer must have integer or boolean type, got indexer with type "
                f"{np.asarray(e).dtype.name}"
            )
        elif _is_array(e) or isinstance(e, (list, tuple)) or hasattr(e, "__jax_array__"):
            if isinstance(e, (list, tuple)):
                e = _as_index_array(e)
            elif hasattr(e, "__jax_array__") and not _is_array(e):
                e = to_array(e)
            if isinstance(e, np.ndarray):
                e = e.astype(dtypes.canonicalize_dtype(e.dtype), copy=False)
            dt = e.dtype
            if dt == np.bool_:
                if isinstance(e, Tracer):
                    raise NonConcreteBooleanIndexError(
                        "Array boolean indices must be concrete; got "
                        f"{e.aval.str_short(short_dtypes=False)}\nThe shape of a masked array "
                        "depends on the mask's values, which are not known while tracing: use "
                        "jnp.where(mask, x, fill) or pass a concrete mask."
                    )
                mask = np.asarray(e)
                if mask.ndim == 0:
                    raw.append(("bool", bool(mask)))
                else:
                    raw.append(("mask", mask, k))
            elif not dtypes.issubdtype(dt, np.integer):
                raise TypeError(
                    "Indexer must have integer or boolean type, got indexer with type "
                    f"{np.dtype(dt).name}"
                )
            elif np.ndim(e) == 0:
                raw.append(("dyn", e))
            else:
                raw.append(("array", e))
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), newaxis (`None`) and integer "
                f"or boolean arrays are valid indices. Got {e!r}"
            )

    n_ellipsis = sum(1 for r in raw if r[0] == "ellipsis")
    if n_ellipsis > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    consumed = sum(
        r[1].ndim if r[0] == "mask" else r[0] in ("slice", "int", "dyn", "array") for r in raw
    )
    ndim = len(shape)
    if consumed > ndim:
        raise IndexError(
            f"Too many indices: array is {ndim}-dimensional, but {consumed} were indexed"
        )
    fill = [("slice", None, None, None)] * (ndim - consumed)
    if n_ellipsis:
        at = next(i for i, r in enumerate(raw) if r[0] == "ellipsis")
        raw = raw[:at] + [("ellipsis",)] + fill + raw[at + 1 :]
    else:
        raw = raw + fill

    entries: list[tuple] = []
    bool_axes: list[int] = []
    axis = 0  # operand axis (of the array with the scalar-boolean axes inserted)
    for r in raw:
        kind = r[0]
        if kind in ("none", "ellipsis"):
            entries.append(r)
        elif kind == "bool":
            bool_axes.append(axis)
            entries.append(("array", np.arange(int(r[1]), dtype=_INDEX_DTYPE)))
            axis += 1
        elif kind == "mask":
            mask, pos = r[1], r[2]
            orig = axis - len(bool_axes)
            expected = shape[orig : orig + mask.ndim]
            if mask.shape != tuple(expected):
                raise IndexError(
                    f"boolean index did not match shape of indexed array in index {pos}: got "
                    f"{mask.shape}, expected {tuple(expected)}"
                )
            for nz in np.nonzero(mask):
                entries.append(("array", nz.astype(_INDEX_DTYPE)))
            axis += mask.ndim
        else:
            entries.append(r)
            axis += 1
    return entries, bool_axes


# ---------------------------------------------------------------------------------------------
# Index arithmetic


def _normalize(x: Any, size: int) -> Any:
    """``x`` with negative entries counted from the end (``select_n(x < 0, x, x + size)``)."""
    if _is_static_int(x):
        return x + size if x < 0 else x
    aval = core.get_aval(x)
    if dtypes.issubdtype(aval.dtype, np.unsignedinteger):
        return x
    # A NumPy index's mask is computed by NumPy, as JAX computes it (a constant of the
    # program); the select and the add are staged either way.
    if isinstance(x, np.ndarray):
        negative = np.less(x, 0)
    else:
        negative = lax_elem.lt(x, _scalar_like(aval, 0))
    return lax_elem.select_n(negative, x, lax_elem.add(x, _scalar_like(aval, size)))


def _scalar_like(aval: core.ShapedArray, v: int) -> Any:
    # A constant of the index's dtype that is weak when the index is, so that a weakly typed
    # index stays weak (and is converted to int32 later, where JAX converts it).
    value = np.asarray(v, aval.dtype)
    return Array(value, weak_type=True) if aval.weak_type else value


def _to_index_dtype(x: Any) -> Any:
    aval = core.get_aval(x)
    if aval.dtype == _INDEX_DTYPE and not aval.weak_type:
        return x
    if isinstance(x, np.ndarray):
        return x.astype(_INDEX_DTYPE)
    if type(x) is Array:
        # A concrete index is converted now, as JAX folds it into a literal.
        return Array(np.asarray(x._value, _INDEX_DTYPE))
    return lax_elem.convert_element_type(x, _INDEX_DTYPE)


def _slice_bounds(start, stop, step, n: int) -> tuple[int, int, int, int]:
    """(first, limit, stride, length) of the ascending range a slice selects, its stride
    positive; the slice reads that range reversed when ``step < 0``."""
    start, stop, step = slice(start, stop, step).indices(n)
    length = len(range(start, stop, step))
    if step > 0:
        return start, (stop if length else start), step, length
    if not length:
        # An empty reversed slice reads nothing just past ``stop`` (where JAX puts it).
        return stop + 1, stop + 1, -step, 0
    first = start + step * (length - 1)
    return first, start + 1, -step, length


_ASK = {
    "gather": ("`.at[...].get(out_sharding=)`", "the gather indexing"),
    "scatter": ("`.at[...].set/add/mul/...(out_sharding=)`", "the scatter update"),
}


def check_indexed_unsharded(arr: Any, entries: list[tuple], op: str) -> None:
    """Indexing has no sharding rule for a dimension sharded on Explicit mesh axes (JAX 0.10:
    ShardingTypeError asking for out_sharding=): every dimension the index selects from (an
    integer, an array, or a slice other than the whole) must be unsharded in ``arr``'s type."""
    s = sharding_rules.type_sharding(arr)
    if s is None:
        return
    spec = s.spec._normalized(arr.ndim)
    ax = 0
    for e in entries:
        if e[0] in ("none", "ellipsis"):
            continue
        n = arr.shape[ax]
        whole = e[0] == "slice" and _slice_bounds(e[1], e[2], e[3], n)[2:] == (1, n)
        whole = whole and (e[3] or 1) > 0
        if not whole and spec_axes(spec[ax]):
            ask, what = _ASK[op]
            raise sharding_rules.ShardingTypeError(
                f"Use {ask} to provide output PartitionSpec for {what} as out sharding could "
                "not be resolved unambiguously (or would require collectives on inputs). Got "
                f"operand={sharding_rules.type_str(core.get_aval(arr), spec, False)}, indexed "
                f"along dimension {ax}, which is sharded over {spec_axes(spec[ax])}"
            )
        ax += 1


# ---------------------------------------------------------------------------------------------
# Basic indexing through slice / dynamic_slice


def _try_slice_path(arr: Any, entries: list[tuple]) -> Any:
    """``arr[idx]`` through ``slice`` (or ``dynamic_slice``) when the index is basic; None if
    it needs a gather."""
    if any(e[0] not in ("none", "slice", "int", "dyn", "ellipsis") for e in entries):
        return None
    entries = [e for e in entries if e[0] != "ellipsis"]
    shape = arr.shape
    operand_entries = [e for e in entries if e[0] != "none"]
    dynamic = any(
        e[0] == "dyn" or (e[0] == "int" and not -n <= e[1] < n)
        for e, n in zip(operand_entries, shape)
    )
    if dynamic and any(e[0] == "slice" and e[3] not in (None, 1, -1) for e in operand_entries):
        return None
    for ax, (e, n) in enumerate(zip(operand_entries, shape)):
        if e[0] in ("int", "dyn") and n == 0:
            raise IndexError(f"index is out of bounds for axis {ax} with size 0")

    starts, limits, strides, sizes = [], [], [], []
    rev_dims, squeeze_dims, newaxis_dims = [], [], []
    out_axis = 0
    ax = 0
    for e in entries:
        if e[0] == "none":
            newaxis_dims.append(out_axis)
            out_axis += 1
            continue
        n = shape[ax]
        if e[0] == "slice":
            first, limit, stride, length = _slice_bounds(e[1], e[2], e[3], n)
            if (e[3] or 1) < 0:
                rev_dims.append(ax)
            starts.append(first)
            limits.append(limit)
            strides.append(stride)
            sizes.append(length)
            out_axis += 1
        else:
            v = e[1]
            if e[0] == "int" and not dynamic:
                v = v + n if v < 0 else v
                limits.append(v + 1)
            starts.append(v)
            strides.append(1)
            sizes.append(1)
            squeeze_dims.append(ax)
        ax += 1

    if dynamic:
        # JAX converts traced indices first, then normalizes every start (static ones too, as
        # int32 arrays) inside dynamic_slice.
        starts = [
            _to_index_dtype(s) if _is_array(s) else np.asarray(s, _INDEX_DTYPE) for s in starts
        ]
        out = lax_idx.dynamic_slice(arr, starts, sizes)
    else:
        out = lax_shape.slice(arr, starts, limits, None if set(strides) <= {1} else strides)
    if rev_dims:
        out = lax_shape.rev(out, rev_dims)
    if squeeze_dims:
        out = lax_shape.squeeze(out, squeeze_dims)
    if newaxis_dims:
        out = lax_shape.expand_dims(out, newaxis_dims)
    return out


# ---------------------------------------------------------------------------------------------
# Indexing through gather


class _Indexer(NamedTuple):
    indices: Any  # int32 array of shape batch + (k,), or None when nothing is indexed
    dnums: GatherDimensionNumbers
    slice_sizes: tuple[int, ...]
    gather_shape: tuple[int, ...]  # shape of the gather's result
    slice_shape: tuple[int, ...]  # shape of the final result (with newaxis dimensions)
    newaxis_dims: tuple[int, ...]
    reversed_dims: tuple[int, ...]  # dimensions of the gather result to reverse
    basic: bool  # no array indices: index vectors are sorted and unique


def _index_to_gather(shape: tuple[int, ...], entries: list[tuple]) -> _Indexer:
    has_adv = any(e[0] == "array" for e in entries)
    adv_pos = [i for i, e in enumerate(entries) if has_adv and e[0] in ("array", "int", "dyn")]
    contiguous = not adv_pos or adv_pos == list(range(adv_pos[0], adv_pos[-1] + 1))
    x_axes: list[int | None] = []
    ax = 0
    for e in entries:
        x_axes.append(None if e[0] in ("none", "ellipsis") else ax)
        ax += e[0] not in ("none", "ellipsis")

    for i, e in enumerate(entries):
        if e[0] in ("int", "dyn", "array") and shape[x_axes[i]] == 0 and np.size(e[1]):
            raise IndexError(f"index is out of bounds for axis {x_axes[i]} with size 0")
    # Advanced indices are normalized here, then broadcast together and converted to int32
    # where the loop below reaches them (the order JAX emits).
    adv_vals = [_normalize(entries[i][1], shape[x_axes[i]]) for i in adv_pos]
    adv_shape: tuple[int, ...] = ()
    if adv_vals:
        shapes = [np.shape(v) for v in adv_vals]
        try:
            adv_shape = tuple(np.broadcast_shapes(*shapes))
        except ValueError:
            raise IndexError(
                "shape mismatch: indexing arrays could not be broadcast together with shapes "
                + " ".join(str(s) for s in shapes)
            ) from None

    components: list[tuple[Any, tuple[int, ...]]] = []
    batch_shape: list[int] = []
    offset_dims: list[int] = []
    collapsed: list[int] = []
    start_index_map: list[int] = []
    sizes = list(shape)
    newaxis_dims: list[int] = []
    reversed_dims: list[int] = []
    y = cy = 0  # position in the final result / in the gather result

    def advanced_group():
        nonlocal y, cy
        dims = tuple(range(len(batch_shape), len(batch_shape) + len(adv_shape)))
        batch_shape.extend(adv_shape)
        nd = len(adv_shape)
        vals = [
            v
            if np.shape(v) == adv_shape
            else lax_shape.broadcast_in_dim(v, adv_shape, tuple(range(nd - np.ndim(v), nd)))
            for v in adv_vals
        ]
        for v, i in zip(vals, adv_pos):
            components.append((_to_index_dtype(v), dims))
            start_index_map.append(x_axes[i])
            collapsed.append(x_axes[i])
            sizes[x_axes[i]] = min(1, shape[x_axes[i]])
        y += len(adv_shape)
        cy += len(adv_shape)

    if adv_pos and not contiguous:
        # NumPy puts the dimensions of separated advanced indices first.
        advanced_group()
    for i, e in enumerate(entries):
        kind = e[0]
        if adv_pos and i in adv_pos:
            if contiguous and i == adv_pos[0]:
                advanced_group()
            continue
        if kind == "ellipsis":
            continue
        if kind == "none":
            newaxis_dims.append(y)
            y += 1
            continue
        ax = x_axes[i]
        n = shape[ax]
        if kind == "int":
            v = e[1] + n if e[1] < 0 else e[1]
            components.append((np.asarray(v, _INDEX_DTYPE), ()))
        elif kind == "dyn":
            components.append((_to_index_dtype(_normalize(e[1], n)), ()))
        if kind in ("int", "dyn"):
            start_index_map.append(ax)
            collapsed.append(ax)
            sizes[ax] = min(1, n)
            continue
        start, stop, step = slice(e[1], e[2], e[3]).indices(n)
        length = len(range(start, stop, step))
        if step == 1:
            if not (start == 0 and length == n):
                components.append((np.asarray(start, _INDEX_DTYPE), ()))
                start_index_map.append(ax)
            sizes[ax] = length
            offset_dims.append(cy)
        else:
            v = lax_shape.iota(_INDEX_DTYPE, length)
            v = lax_elem.add(
                np.asarray(start, _INDEX_DTYPE), lax_elem.mul(np.asarray(step, _INDEX_DTYPE), v)
            )
            if step < 0:
                v = lax_shape.rev(v, (0,))
                reversed_dims.append(cy)
            components.append((v, (len(batch_shape),)))
            batch_shape.append(length)
            start_index_map.append(ax)
            collapsed.append(ax)
            sizes[ax] = min(1, n)
        y += 1
        cy += 1

    if components:
        full = (*batch_shape, 1)
        cols = [lax_shape.broadcast_in_dim(v, full, dims) for v, dims in components]
        indices = lax_shape.concatenate(cols, len(batch_shape))
    else:
        indices = None
    window = iter(sizes[d] for d in range(len(shape)) if d not in collapsed)
    batch = iter(batch_shape)
    gather_shape = tuple(next(window) if p in offset_dims else next(batch) for p in range(cy))
    slice_shape = list(gather_shape)
    for d in newaxis_dims:
        slice_shape.insert(d, 1)
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(offset_dims),
        collapsed_slice_dims=tuple(sorted(collapsed)),
        start_index_map=tuple(start_index_map),
        operand_batching_dims=(),
        start_indices_batching_dims=(),
    )
    return _Indexer(
        indices,
        dnums,
        tuple(sizes),
        gather_shape,
        tuple(slice_shape),
        tuple(newaxis_dims),
        tuple(reversed_dims),
        not has_adv,
    )


def _parse_mode(mode: Any) -> GatherScatterMode | None:
    return None if mode is None else GatherScatterMode.from_any(mode)


def rewriting_take(
    arr,
    idx,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: str | GatherScatterMode | None = None,
    fill_value=None,
    out_sharding=None,
):
    """``arr[idx]`` with NumPy's indexing rules (``Array.__getitem__``).

    >>> jnp.arange(5)[jnp.array([4, -1, 0])]
    Array([4, 4, 0], dtype=int32)
    """
    arr = to_array(arr)
    parsed_mode = _parse_mode(mode)
    entries, bool_axes = _parse_index(arr.shape, idx)
    if bool_axes:
        arr = lax_shape.expand_dims(arr, bool_axes)
    if type(arr) is Array:
        # An Array indexed at once goes through a gather in JAX 0.10, a slice only when traced
        # (where slice's own rule types it); the gather has no rule for sharded dimensions.
        check_indexed_unsharded(arr, entries, "gather")
    if parsed_mode in (None, GatherScatterMode.CLIP, GatherScatterMode.PROMISE_IN_BOUNDS):
        out = _try_slice_path(arr, entries)
        if out is not None:
            return out
    check_indexed_unsharded(arr, entries, "gather")
    ix = _index_to_gather(arr.shape, entries)
    out = arr
    if ix.indices is not None:
        basic = ix.basic
        out = lax_idx.gather(
            arr,
            ix.indices,
            ix.dnums,
            ix.slice_sizes,
            indices_are_sorted=basic or indices_are_sorted,
            unique_indices=basic or unique_indices,
            mode=GatherScatterMode.PROMISE_IN_BOUNDS if parsed_mode is None else parsed_mode,
            fill_value=fill_value,
        )
    if ix.reversed_dims:
        out = lax_shape.rev(out, ix.reversed_dims)
    if ix.newaxis_dims:
        out = lax_shape.expand_dims(out, ix.newaxis_dims)
    return out


# ---------------------------------------------------------------------------------------------
# take, take_along_axis


def _check_int_indices(fn: str, indices, exc=ValueError) -> None:
    if not dtypes.issubdtype(core.get_aval(indices).dtype, np.integer):
        raise exc(f"{fn}: indices must have an integer type, got {core.get_aval(indices).dtype}")


def _where_body(cond, x, y):
    return lax_elem.select_n(cond, y, x)


_where_body.__name__ = "_where"
# JAX normalizes take's indices with ``jnp.where``, which prints as a call named ``_where``.
_where_jit = api.jit(_where_body)


@over_key_data("jnp.take")
def take(
    a,
    indices,
    axis: int | None = None,
    out=None,
    mode: str | None = None,
    unique_indices: bool = False,
    indices_are_sorted: bool = False,
    fill_value=None,
):
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened array if None).

    ``mode``: ``'fill'`` (default: out-of-bounds indices read ``fill_value``, NaN for floats),
    ``'clip'``, ``'wrap'``; negative indices count from the end.

    >>> jnp.take(jnp.arange(5.), jnp.array([0, -1, 7]))
    Array([ 0.,  4., nan], dtype=float32)
    """
    check_arraylike("take", a, indices)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.take is not supported.")
    a, indices = to_array(a), to_array(indices)
    _check_int_indices("take", indices)
    if axis is not None:
        axis = canonicalize_axis(axis, a.ndim, fn="take")
    if mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.take is not supported.")
    if mode not in (None, "fill", "wrap", "clip"):
        GatherScatterMode.from_any(mode)  # raises on an unknown mode
    n = a.size if axis is None else a.shape[axis]
    if n == 0 and indices.size:
        raise IndexError("Cannot do a non-empty jnp.take() from an empty axis.")
    return _take_jit(
        a,
        indices,
        axis=axis,
        mode=mode,
        unique_indices=bool(unique_indices),
        indices_are_sorted=bool(indices_are_sorted),
        fill_value=_static_fill_value(fill_value),
    )


def _static_fill_value(fill_value):
    if fill_value is None or isinstance(fill_value, (bool, int, float, complex, np.generic)):
        return fill_value
    if isinstance(fill_value, Tracer):
        raise TypeError("fill_value must be a static scalar, got a traced value.")
    return np.asarray(fill_value).item()


def _take(a, indices, *, axis, mode, unique_indices, indices_are_sorted, fill_value):
    if axis is None:
        a = lax_shape.reshape(a, (a.size,))
        axis = 0
    n = a.shape[axis]
    if mode == "wrap":
        indices = ufuncs.remainder(indices, np.asarray(n, indices.dtype))
        gather_mode = GatherScatterMode.PROMISE_IN_BOUNDS
    elif mode is None or mode == "fill":
        # Negative indices count from the end; in 'clip' mode they clamp to 0 instead.
        if not dtypes.issubdtype(indices.dtype, np.unsignedinteger):
            negative = lax_elem.lt(indices, np.asarray(0, indices.dtype))
            wrapped = lax_elem.add(indices, np.asarray(n, indices.dtype))
            indices = _where_jit(negative, wrapped, indices)
        gather_mode = GatherScatterMode.FILL_OR_DROP
    else:
        gather_mode = GatherScatterMode.from_any(mode)
    idx_nd = indices.ndim
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(range(axis)) + tuple(range(axis + idx_nd, a.ndim + idx_nd - 1)),
        collapsed_slice_dims=(axis,),
        start_index_map=(axis,),
        operand_batching_dims=(),
        start_indices_batching_dims=(),
    )
    sizes = tuple(1 if d == axis else s for d, s in enumerate(a.shape))
    return lax_idx.gather(
        a,
        lax_shape.expand_dims(indices, (idx_nd,)),
        dnums,
        sizes,
        indices_are_sorted=indices_are_sorted,
        unique_indices=unique_indices,
        mode=gather_mode,
        fill_value=fill_value,
    )


_take_jit = api.jit(
    _take,
    static_argnames=("axis", "mode", "unique_indices", "indices_are_sorted", "fill_value"),
)


@over_key_data("jnp.take_along_axis")
def take_along_axis(arr, indices, axis: int | None = -1, mode=None, fill_value=None):
    """Elements of ``arr`` at ``indices`` along ``axis``, matched elementwise over the other
    dimensions (which broadcast), as ``numpy.take_along_axis``. ``mode`` as in ``take``.

    >>> jnp.take_along_axis(jnp.array([[10, 30, 20]]), jnp.array([[0, 2, 1]]), axis=1)
    Array([[10, 20, 30]], dtype=int32)
    """
    check_arraylike("take_along_axis", arr, indices)
    arr, indices = to_array(arr), to_array(indices)
    if not dtypes.issubdtype(indices.dtype, np.integer):
        raise TypeError(
            f"take_along_axis indices must be of integer type, got {indices.dtype.name}"
        )
    if axis is None:
        if indices.ndim != 1:
            raise ValueError(
                f"take_along_axis: when axis=None, indices must have a single dimension, got "
                f"shape {indices.shape}."
            )
    else:
        if indices.ndim != arr.ndim:
            raise ValueError(
                "indices and arr must have the same number of dimensions; "
                f"{indices.ndim} vs. {arr.ndim}"
            )
        axis = canonicalize_axis(axis, arr.ndim, fn="take_along_axis")
        for d, (i, s) in enumerate(zip(indices.shape, arr.shape)):
            if d != axis and i != s and i != 1 and s != 1:
                raise ValueError(
                    f"take_along_axis: indices shape {indices.shape} and array shape "
                    f"{arr.shape} do not broadcast in dimension {d}."
                )
    gather_mode = GatherScatterMode.FILL_OR_DROP if mode is None else _parse_mode(mode)
    return _take_along_axis_jit(
        arr, indices, axis=axis, mode=gather_mode, fill_value=_static_fill_value(fill_value)
    )


def _take_along_axis(arr, indices, *, axis, mode, fill_value):
    if axis is None:
        arr = lax_shape.reshape(arr, (arr.size,))
        axis = 0
    indices = _to_index_dtype(_normalize(indices, arr.shape[axis]))
    # Per dimension other than axis: equal sizes pair up as batching dimensions; where only
    # the array is longer, it is read whole (an offset dimension, the index dimension dropped);
    # where only the indices are longer, the array's size-1 dimension is squeezed away.
    kept, offset, squeezed, obatch, ibatch = [], [], [], [], []
    for d, (i, s) in enumerate(zip(indices.shape, arr.shape)):
        if d == axis:
            kept.append(i)
        elif i == s:
            obatch.append(d)
            ibatch.append(len(kept))
            kept.append(i)
        elif i == 1:
            offset.append(d)
        else:
            squeezed.append(d)
            kept.append(i)
    idx = lax_shape.reshape(indices, (*kept, 1))
    operand_dims = [d for d in range(arr.ndim) if d not in squeezed]
    if squeezed:
        arr = lax_shape.squeeze(arr, squeezed)
    new = {d: k for k, d in enumerate(operand_dims)}
    dnums = GatherDimensionNumbers(
        offset_dims=tuple(offset),
        collapsed_slice_dims=(new[axis],),
        start_index_map=(new[axis],),
        operand_batching_dims=tuple(new[d] for d in obatch),
        start_indices_batching_dims=tuple(ibatch),
    )
    sizes = tuple(arr.shape[k] if d in offset else 1 for k, d in enumerate(operand_dims))
    return lax_idx.gather(arr, idx, dnums, sizes, mode=mode, fill_value=fill_value)


_take_along_axis.__name__ = "take_along_axis"
_take_along_axis_jit = api.jit(_take_along_axis, static_argnames=("axis", "mode", "fill_value"))


# ---------------------------------------------------------------------------------------------
# Index helpers


index_exp = np.index_exp
s_ = np.s_


def _int_array(x: np.ndarray) -> Array:
    return Array(np.asarray(x, dtypes.default_int_dtype()))


def diag_indices(n: int, ndim: int = 2) -> tuple[Array, ...]:
    """Indices of the main diagonal of an ``ndim``-dimensional array of side ``n``.

    >>> jnp.diag_indices(2)
    (Array([0, 1], dtype=int32), Array([0, 1], dtype=int32))
    """
    n, ndim = operator.index(n), operator.index(ndim)
    if n < 0:
        raise ValueError(f"n argument to diag_indices must be nonnegative, got {n}")
    if ndim < 0:
        raise ValueError(f"ndim argument to diag_indices must be nonnegative, got {ndim}")
    return (_int_array(np.arange(n)),) * ndim


def diag_indices_from(arr) -> tuple[Array, ...]:
    """``diag_indices`` for the shape of ``arr`` (all of whose dimensions must be equal)."""
    check_arraylike("diag_indices_from", arr)
    shape = np.shape(arr) if not isinstance(arr, (Array, Tracer)) else arr.shape
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shape)) != 1:
        raise ValueError(f"All dimensions of input must be of equal length, got shape {shape}")
    return diag_indices(shape[0], len(shape))


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, Array]:
    """Row and column indices of the lower triangle (diagonal ``k`` and below) of an
    ``n`` x ``m`` array."""
    return tuple(_int_array(i) for i in np.tril_indices(n, k, m))  # type: ignore[return-value]


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple[Array, Array]:
    """Row and column indices of the upper triangle (diagonal ``k`` and above) of an
    ``n`` x ``m`` array."""
    return tuple(_int_array(i) for i in np.triu_indices(n, k, m))  # type: ignore[return-value]


def _shape2d(fn: str, arr) -> tuple[int, int]:
    check_arraylike(fn, arr)
    shape = arr.shape if isinstance(arr, (Array, Tracer)) else np.shape(arr)
    if len(shape) != 2:
        raise ValueError(f"{fn}: input array must be 2-d, got shape {shape}")
    return shape


def tril_indices_from(arr, k: int = 0) -> tuple[Array, Array]:
    """``tril_indices`` for the shape of the 2-d ``arr``."""
    n, m = _shape2d("tril_indices_from", arr)
    return tril_indices(n, k, m)


def triu_indices_from(arr, k: int = 0) -> tuple[Array, Array]:
    """``triu_indices`` for the shape of the 2-d ``arr``."""
    n, m = _shape2d("triu_indices_from", arr)
    return triu_indices(n, k, m)


def ix_(*args) -> tuple[Any, ...]:
    """An open mesh from 1-d integer sequences: ``x[ix_(rows, cols)]`` selects the block.

    >>> [i.shape for i in jnp.ix_(jnp.array([0, 1]), jnp.array([2, 3, 4]))]
    [(2, 1), (1, 3)]
    """
    check_arraylike("ix_", *args)
    n = len(args)
    out = []
    for k, a in enumerate(args):
        a = to_array(a)
        if a.ndim != 1:
            raise ValueError(
                f"Arguments to jax.numpy.ix_ must be 1-dimensional, got shape {a.shape}"
            )
        if a.dtype == np.bool_:
            raise NotImplementedError("Boolean arguments to jax.numpy.ix_ are not implemented")
        shape = [1] * n
        shape[k] = a.shape[0]
        out.append(lax_shape.broadcast_in_dim(a, tuple(shape), (k,)))
    return tuple(out)


__all__ = [
    "diag_indices",
    "diag_indices_from",
    "index_exp",
    "ix_",
    "s_",
    "take",
    "take_along_axis",
    "tril_indices",
    "tril_indices_from",
    "triu_indices",
    "triu_indices_from",
]
