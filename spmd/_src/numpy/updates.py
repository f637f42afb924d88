"""Indexed updates on spmd arrays: ``x.at[idx].set(y)`` (and ``add``, ``multiply``, ``min``,
``max``, ``apply``, ``get``), ``put`` and ``put_along_axis``. Updates are ``scatter`` primitives,
which drop out-of-bounds updates by default; the index is parsed as ``x[idx]`` parses it.

>>> x = jnp.arange(12).reshape(3, 4)
>>> x.at[0, 1].set(-1)[0]
Array([ 0, -1,  2,  3], dtype=int32)
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from spmd._src import api, dtypes
from spmd._src.array import Array
from spmd._src.interpreters import sharding_rules
from spmd._src.lax import copies as lax_copies
from spmd._src.lax import indexing as lax_idx
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.indexing.common import GatherScatterMode, ScatterDimensionNumbers
from spmd._src.lax.sharding import apply_out_sharding, reshard
from spmd._src.numpy import ufuncs
from spmd._src.numpy.indexing import (
    _INDEX_DTYPE,
    _check_int_indices,
    _index_to_gather,
    _parse_index,
    check_indexed_unsharded,
    rewriting_take,
)
from spmd._src.numpy.util import check_arraylike, convert, to_array
from spmd._src.sharding import PartitionSpec
from spmd._src.util import canonicalize_axis

# ---------------------------------------------------------------------------------------------
# Indexed updates: x.at[idx].set(y) and friends


def _broadcast_update(y: Any, shape: tuple[int, ...]) -> Any:
    ys = tuple(np.shape(y))
    if ys == shape:
        return y
    if len(ys) > len(shape):
        raise ValueError(
            "Cannot broadcast to shape with fewer dimensions: update shape "
            f"arr_shape={ys} shape={shape} (the indexed array has shape {shape})."
        )
    nd = len(shape)
    for a, b in zip(ys[::-1], shape[::-1]):
        if a != 1 and a != b:
            raise ValueError(
                f"Incompatible shapes for broadcasting: update of shape {ys} into indexed "
                f"shape {shape}."
            )
    return lax_shape.broadcast_in_dim(y, shape, tuple(range(nd - len(ys), nd)))


def _update_values(y: Any, dtype: np.dtype, weak_type: bool) -> Any:
    """Update values as the operand's dtype (JAX casts them, wrapping out-of-range ints)."""
    if isinstance(y, (list, tuple)):
        y = np.asarray(y)
    check_arraylike("scatter", y)
    if dtypes.is_python_scalar(y):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
            return Array(dtypes.coerce_scalar(y, dtype, weak=True), weak_type=weak_type)
    return convert(y, dtype, weak_type)


def _scatter_update(
    x,
    idx,
    y,
    scatter_fn: Callable,
    indices_are_sorted: bool,
    unique_indices: bool,
    mode,
    apply_fn: Callable | None = None,
):
    x = to_array(x)
    entries, bool_axes = _parse_index(x.shape, idx)
    operand = lax_shape.expand_dims(x, bool_axes) if bool_axes else x
    check_indexed_unsharded(operand, entries, "scatter")
    ix = _index_to_gather(operand.shape, entries)
    indices = ix.indices
    if indices is None:
        indices = np.zeros((0,), _INDEX_DTYPE)
    dnums = ScatterDimensionNumbers(
        update_window_dims=ix.dnums.offset_dims,
        inserted_window_dims=ix.dnums.collapsed_slice_dims,
        scatter_dims_to_operand_dims=ix.dnums.start_index_map,
        operand_batching_dims=(),
        scatter_indices_batching_dims=(),
    )
    sorted_ = ix.basic or indices_are_sorted
    unique = ix.basic or unique_indices
    if apply_fn is not None:
        out = lax_idx.scatter_apply(
            operand,
            indices,
            apply_fn,
            dnums,
            update_shape=ix.gather_shape,
            indices_are_sorted=sorted_,
            unique_indices=unique,
            mode=mode,
        )
    else:
        y = _update_values(y, x.dtype, x.weak_type)
        y = _broadcast_update(y, ix.slice_shape)
        if ix.newaxis_dims:
            y = lax_shape.squeeze(y, ix.newaxis_dims)
        if ix.reversed_dims:
            y = lax_shape.rev(y, ix.reversed_dims)
        out = scatter_fn(
            operand,
            indices,
            y,
            dnums,
            indices_are_sorted=sorted_,
            unique_indices=unique,
            mode=mode,
        )
    if bool_axes:
        out = lax_shape.squeeze(out, bool_axes)
    return out


def _ones_like(x) -> Any:
    x = to_array(x)
    return lax_shape.full(x.shape, 1, x.dtype)


class _IndexUpdateRef:
    """``x.at[idx]``: the indexed view whose methods return updated copies of ``x``."""

    __slots__ = ("array", "index")

    def __init__(self, array, index) -> None:
        self.array = array
        self.index = index

    def __repr__(self) -> str:
        return f"_IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(
        self,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode=None,
        fill_value=None,
        out_sharding=None,
    ):
        """``x[idx]``, with the out-of-bounds ``mode`` (``'fill'`` reads ``fill_value``);
        ``out_sharding``: the result's sharding (indexing a dimension sharded on Explicit mesh
        axes needs it, as in JAX)."""

        def take(array, _):
            return rewriting_take(
                array,
                self.index,
                indices_are_sorted=indices_are_sorted,
                unique_indices=unique_indices,
                mode=mode,
                fill_value=fill_value,
            )

        return self._placed(take, None, out_sharding, "get")

    def _placed(self, compute, values, out_sharding, method: str):
        """``compute(array, values)``; given ``out_sharding``, on the operands whole in their
        types (no sharded dimension for the gather or scatter to resolve) and then moved there
        (JAX's out_sharding= of the indexing ops)."""
        if out_sharding is None:
            return compute(self.array, values)
        out = compute(_whole(self.array), None if values is None else _whole(values))
        return apply_out_sharding(out, out_sharding, f"x.at[...].{method}")

    def _update(self, fn, values, indices_are_sorted, unique_indices, mode, out_sharding, method):
        def scatter(array, values):
            return _scatter_update(
                array, self.index, values, fn, indices_are_sorted, unique_indices, mode
            )

        return self._placed(scatter, values, out_sharding, method)

    def set(
        self,
        values,
        *,
        indices_are_sorted=False,
        unique_indices=False,
        mode=None,
        out_sharding=None,
    ):
        """``x[idx] = values`` (out of place); the last of repeated indices wins."""
        return self._update(
            lax_idx.scatter, values, indices_are_sorted, unique_indices, mode, out_sharding, "set"
        )

    def add(
        self,
        values,
        *,
        indices_are_sorted=False,
        unique_indices=False,
        mode=None,
        out_sharding=None,
    ):
        """``x[idx] += values``; repeated indices accumulate (``np.add.at``)."""
        return self._update(
            lax_idx.scatter_add, values, indices_are_sorted, unique_indices, mode, out_sharding,
            "add",
        )  # fmt: skip

    def subtract(
        self,
        values,
        *,
        indices_are_sorted=False,
        unique_indices=False,
        mode=None,
        out_sharding=None,
    ):
        """``x[idx] -= values``; repeated indices accumulate."""
        return self._update(
            lax_idx.scatter_sub, values, indices_are_sorted, unique_indices, mode, out_sharding,
            "subtract",
        )  # fmt: skip

    def multiply(
        self,
        values,
        *,
        indices_are_sorted=False,
        unique_indices=False,
        mode=None,
        out_sharding=None,
    ):
        """``x[idx] *= values``; repeated indices accumulate."""
        return self._update(
            lax_idx.scatter_mul, values, indices_are_sorted, unique_indices, mode, out_sharding,
            "multiply",
        )  # fmt: skip

    mul = multiply

    def divide(
        self,
        values,
        *,
        indices_are_sorted=False,
        unique_indices=False,
        mode=None,
        out_sharding=None,
    ):
        """``x[idx] /= values`` (true division, so integer arrays give floats)."""
        return self._by_factors(
            ufuncs.true_divide, values, indices_are_sorted, unique_indices, mode, out_sharding,
            "divide",
        )  # fmt: skip

    def power(
        self,
        values,
        *,
        indices_are_sorted=False,
        unique_indices=False,
        mode=None,
        out_sharding=None,
    ):
        """``x[idx] **= values``."""
        return self._by_factors(
            ufuncs.power, values, indices_are_sorted, unique_indices, mode, out_sharding, "power"
        )

    def _by_factors(self, op, values, indices_are_sorted, unique_indices, mode, out_sharding, name):
        # ``op(x, f)`` where f is ones but the product of the values scattered at the index
        # (an index given twice divides, or raises to the power, twice, as JAX's).
        def update(array, values):
            factors = _scatter_update(
                _ones_like(array), self.index, values, lax_idx.scatter_mul,
                indices_are_sorted, unique_indices, mode,
            )  # fmt: skip
            return op(array, factors)

        return self._placed(update, values, out_sharding, name)

    def min(
        self,
        values,
        *,
        indices_are_sorted=False,
        unique_indices=False,
        mode=None,
        out_sharding=None,
    ):
        """``x[idx] = minimum(x[idx], values)``."""
        return self._update(
            lax_idx.scatter_min, values, indices_are_sorted, unique_indices, mode, out_sharding,
            "min",
        )  # fmt: skip

    def max(
        self,
        values,
        *,
        indices_are_sorted=False,
        unique_indices=False,
        mode=None,
        out_sharding=None,
    ):
        """``x[idx] = maximum(x[idx], values)``."""
        return self._update(
            lax_idx.scatter_max, values, indices_are_sorted, unique_indices, mode, out_sharding,
            "max",
        )  # fmt: skip

    def apply(self, func: Callable, *, indices_are_sorted=False, unique_indices=False, mode=None):
        """``x[idx] = func(x[idx])`` for an elementwise ``func`` (once per indexed element)."""
        return _scatter_update(
            self.array, self.index, None, None, indices_are_sorted, unique_indices, mode, func
        )


def _whole(x: Any) -> Any:
    """``x`` unsharded in its type (on Explicit mesh axes), as it is otherwise."""
    s = sharding_rules.type_sharding(x)
    if s is None or all(e is None for e in s.spec):
        return x
    return reshard(x, s.with_spec(PartitionSpec()))


class _IndexUpdateHelper:
    """The ``.at`` property: ``x.at[idx]`` gives an ``_IndexUpdateRef``."""

    __slots__ = ("array",)

    def __init__(self, array) -> None:
        self.array = array

    def __getitem__(self, index) -> _IndexUpdateRef:
        return _IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"_IndexUpdateHelper({self.array!r})"


def _at_property(self) -> _IndexUpdateHelper:
    """``x.at``: out-of-place indexed updates, ``x.at[idx].set(y)``."""
    return _IndexUpdateHelper(self)


# ---------------------------------------------------------------------------------------------
# put_along_axis, put


def put_along_axis(arr, indices, values, axis: int | None, inplace: bool = True, *, mode=None):
    """``arr`` with ``values`` written at ``indices`` along ``axis`` (matched elementwise over
    the other dimensions, as ``numpy.put_along_axis``), out of place: ``inplace=False`` is
    required. Out-of-bounds indices are dropped unless ``mode='clip'``.

    >>> jnp.put_along_axis(jnp.zeros((2, 3)), jnp.array([[2], [0]]), 1.0, axis=1, inplace=False)
    Array([[0., 0., 1.],
           [1., 0., 0.]], dtype=float32)
    """
    if inplace:
        raise ValueError(
            "jax.numpy.put_along_axis cannot modify arrays in-place, because spmd arrays are "
            "immutable. Pass inplace=False to instead return an updated array."
        )
    check_arraylike("put_along_axis", arr, indices, values)
    arr, indices = to_array(arr), to_array(indices)
    if not dtypes.issubdtype(indices.dtype, np.integer):
        raise TypeError(f"put_along_axis indices must be of integer type, got {indices.dtype.name}")
    if axis is None:
        if indices.ndim != 1:
            raise ValueError(
                f"put_along_axis: when axis=None, indices must have a single dimension, got "
                f"shape {indices.shape}."
            )
    else:
        if indices.ndim != arr.ndim:
            raise ValueError(
                "put_along_axis arguments 'arr' and 'indices' must have same ndim. Got "
                f"arr.ndim={arr.ndim} and indices.ndim={indices.ndim}."
            )
        axis = canonicalize_axis(axis, arr.ndim, fn="put_along_axis")
    return _put_along_axis_jit(arr, indices, values, axis=axis, mode=mode)


def _put_along_axis(arr, indices, values, *, axis, mode):
    shape = arr.shape
    if axis is None:
        arr = lax_shape.reshape(arr, (arr.size,))
        axis = 0
    values = _broadcast_update(to_array(values), indices.shape)
    idx = []
    for d, n in enumerate(arr.shape):
        if d == axis:
            idx.append(indices)
        else:
            view = [1] * arr.ndim
            view[d] = n
            idx.append(lax_shape.broadcast_in_dim(lax_shape.iota(_INDEX_DTYPE, n), view, (d,)))
    out = _scatter_update(arr, tuple(idx), values, lax_idx.scatter, False, False, mode)
    return lax_shape.reshape(out, shape)


_put_along_axis.__name__ = "put_along_axis"
_put_along_axis_jit = api.jit(_put_along_axis, static_argnames=("axis", "mode"))


def put(a, ind, v, mode: str | None = None, *, inplace: bool = True):
    """``a`` with the flat positions ``ind`` set to ``v`` (repeated cyclically), out of place:
    spmd arrays are immutable, so ``inplace=False`` is required.

    >>> jnp.put(jnp.zeros(4), jnp.array([0, 2]), 1.0, inplace=False)
    Array([1., 0., 1., 0.], dtype=float32)
    """
    if inplace:
        raise ValueError(
            "jnp.put cannot modify arrays in-place, because spmd arrays are immutable. Pass "
            "inplace=False to instead return an updated array."
        )
    check_arraylike("put", a, ind, v)
    a, ind, v = to_array(a), to_array(ind), to_array(v)
    _check_int_indices("put", ind, TypeError)
    flat = lax_shape.reshape(a, (a.size,))
    ind = lax_shape.reshape(ind, (ind.size,))
    v = lax_shape.reshape(v, (v.size,))
    if ind.size == 0 or v.size == 0:
        return a
    if v.size < ind.size:
        reps = -(-ind.size // v.size)
        v = lax_copies.tile(v, (reps,))
    if v.size != ind.size:
        v = lax_shape.slice(v, (0,), (ind.size,))
    if mode is None or mode == "clip":
        scatter_mode = GatherScatterMode.CLIP
    elif mode == "wrap":
        ind = ufuncs.remainder(ind, np.asarray(a.size, ind.dtype))
        scatter_mode = GatherScatterMode.PROMISE_IN_BOUNDS
    elif mode == "raise":
        raise NotImplementedError("The 'raise' mode to jnp.put is not supported.")
    else:
        raise ValueError(f"jnp.put: mode must be one of 'clip', 'wrap', got {mode!r}")
    out = _scatter_update(flat, ind, v, lax_idx.scatter, False, False, scatter_mode)
    return lax_shape.reshape(out, a.shape)


__all__ = [
    "put",
    "put_along_axis",
]
