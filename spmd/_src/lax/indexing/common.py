"""What gather and scatter share: ``GatherScatterMode`` (out-of-bounds behaviour), their dimension
numbers, the checks of those, and the arithmetic of the windows an index vector selects."""

from __future__ import annotations

import enum
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from spmd._src import core, dtypes

# ---------------------------------------------------------------------------------------------
# Helpers


def _ints(xs: Sequence[Any]) -> tuple[int, ...]:
    return tuple(operator.index(x) for x in xs)


def _is_int_dtype(dt: np.dtype) -> bool:
    return dtypes.issubdtype(dt, np.integer)


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


__all__ = [
    "GatherDimensionNumbers",
    "GatherScatterMode",
    "ScatterDimensionNumbers",
]


def check_batching_dims(fn, operand_shape, batch_shape, operand_dims, index_dims, index_name):
    """Gather's and scatter's batching dimensions pair up one to one, with equal sizes."""
    if len(operand_dims) != len(index_dims):
        raise TypeError(
            f"{fn}: operand_batching_dims {operand_dims} and {index_name} {index_dims} must "
            "have the same length."
        )
    for od, ib in zip(operand_dims, index_dims):
        if operand_shape[od] != batch_shape[ib]:
            raise TypeError(
                f"{fn}: operand batching dimension {od} (size {operand_shape[od]}) and indices "
                f"batching dimension {ib} (size {batch_shape[ib]}) must have the same size."
            )
