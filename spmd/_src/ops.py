"""``jax.ops``: segment reductions (``segment_sum``, ``segment_max``, ``segment_min``,
``segment_prod``).

Each is one scatter into an array filled with the reduction's identity (``x.at[ids].add`` and
friends), so jit, vmap and grad go through the scatter primitives' rules; no new primitive.

>>> segment_sum(creation.arange(5.0), jnp.array([0, 0, 1, 2, 2]), num_segments=3)
Array([1., 2., 7.], dtype=float32)
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src.lax import indexing as lax_idx
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.indexing.common import GatherScatterMode, ScatterDimensionNumbers
from spmd._src.numpy import creation, reductions
from spmd._src.numpy.array_constructors import asarray
from spmd._src.numpy.util import check_arraylike

__all__ = ["segment_max", "segment_min", "segment_prod", "segment_sum"]


def _fill(name: str, dtype: np.dtype) -> Any:
    """The identity of the reduction in ``dtype``: the value an empty segment gets."""
    if name == "segment_sum":
        return 0
    if name == "segment_prod":
        return 1
    lowest = name == "segment_max"
    if dtype == np.bool_:
        return not lowest
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return info.min if lowest else info.max
    return -np.inf if lowest else np.inf


def _num_segments(name: str, segment_ids: Any, num_segments: Any) -> int:
    if num_segments is None:
        # The output's size is the largest id plus one: a shape, so the ids must be known.
        ids = core.concrete_or_error(
            None, segment_ids, f"When jit-compiling {name}(), pass the `num_segments` argument."
        )
        ids = np.asarray(ids)
        if ids.size == 0:
            raise ValueError(
                f"{name}: num_segments=None with empty segment_ids (shape {ids.shape}): the "
                "number of segments is the largest id plus one, and there is none."
            )
        return int(ids.max()) + 1
    num_segments = core.concrete_or_error(
        None,
        num_segments,
        f"The {name}() `num_segments` argument must be a concrete integer (it is a shape).",
    )
    n = operator.index(num_segments if not hasattr(num_segments, "shape") else int(num_segments))
    if n < 0:
        raise ValueError(f"{name}: num_segments must be non-negative, got {n}.")
    return n


def _segment_reduce(
    name: str,
    method: str,
    data: Any,
    segment_ids: Any,
    num_segments: Any,
    indices_are_sorted: bool,
    unique_indices: bool,
    bucket_size: int | None,
    mode: Any,
) -> Any:
    check_arraylike(name, data, segment_ids)
    mode = GatherScatterMode.FILL_OR_DROP if mode is None else mode
    data = asarray(data)
    segment_ids = asarray(segment_ids)
    if not dtypes.issubdtype(segment_ids.dtype, np.integer):
        raise TypeError(
            f"{name}: segment_ids must have an integer dtype, got {segment_ids.dtype.name} "
            f"(shape {segment_ids.shape})."
        )
    if segment_ids.shape != data.shape[:1] and not (data.ndim == segment_ids.ndim == 0):
        raise ValueError(
            f"{name}: segment_ids (shape {segment_ids.shape}) must be one-dimensional, with one "
            f"id per leading entry of data (shape {data.shape})."
        )
    if data.dtype == np.bool_ and method in ("add", "mul"):
        raise TypeError(f"{name} does not accept dtype bool (data of shape {data.shape}).")
    n = _num_segments(name, segment_ids, num_segments)
    fill = _fill(name, np.dtype(data.dtype))
    scatter = getattr(lax_idx, f"scatter_{method}")
    kw = dict(indices_are_sorted=indices_are_sorted, unique_indices=unique_indices, mode=mode)
    # A direct scatter rather than ``x.at[ids]``: negative ids are out of range (dropped, or
    # clipped to 0), not counted from the end.
    window = tuple(range(1, data.ndim))
    if bucket_size is None:
        out = creation.full((n,) + data.shape[1:], fill, data.dtype)
        if out.size == 0:
            return out
        dnums = ScatterDimensionNumbers(window, (0,), (0,), (), ())
        return scatter(out, segment_ids[..., None], data, dnums, **kw)
    # Buckets: each run of bucket_size entries reduces into its own row of segments, then the
    # rows reduce together (the same result; a scatter of fewer colliding updates per row).
    size = data.shape[0]
    num_buckets = -(-size // bucket_size)
    if num_buckets < 0:
        raise TypeError(
            f"{name}: bucket_size must be positive, got {bucket_size} (for {size} entries)."
        )
    out = creation.full((num_buckets, n) + data.shape[1:], fill, data.dtype)
    if out.size:
        bucket_ids = creation.arange(size, dtype=segment_ids.dtype) // bucket_size
        ids = lax_shape.concatenate([bucket_ids[:, None], segment_ids[:, None]], 1)
        dnums = ScatterDimensionNumbers(window, (0, 1), (0, 1), (), ())
        out = scatter(out, ids, data, dnums, **kw)
    reduce = {"add": "sum", "max": "max", "min": "min", "mul": "prod"}[method]
    return getattr(reductions, reduce)(out, axis=0).astype(data.dtype)


def segment_sum(
    data: Any,
    segment_ids: Any,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    bucket_size: int | None = None,
    mode: Any = None,
) -> Any:
    """Sums of the entries of ``data`` (along its leading axis) that share a segment id.

    The result has shape ``(num_segments,) + data.shape[1:]``; empty segments are 0. Ids out of
    ``[0, num_segments)`` are dropped (``mode="clip"`` clamps them instead). ``num_segments=None``
    means ``max(segment_ids) + 1``, which needs concrete ids (not under ``jit``).
    """
    return _segment_reduce(
        "segment_sum", "add", data, segment_ids, num_segments, indices_are_sorted,
        unique_indices, bucket_size, mode,
    )  # fmt: skip


def segment_max(
    data: Any,
    segment_ids: Any,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    bucket_size: int | None = None,
    mode: Any = None,
) -> Any:
    """Maxima over segments, as :func:`segment_sum`; empty segments get ``-inf`` (floats), the
    dtype's minimum (ints) or ``False`` (bools)."""
    return _segment_reduce(
        "segment_max", "max", data, segment_ids, num_segments, indices_are_sorted,
        unique_indices, bucket_size, mode,
    )  # fmt: skip


def segment_min(
    data: Any,
    segment_ids: Any,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    bucket_size: int | None = None,
    mode: Any = None,
) -> Any:
    """Minima over segments, as :func:`segment_sum`; empty segments get ``inf`` (floats), the
    dtype's maximum (ints) or ``True`` (bools)."""
    return _segment_reduce(
        "segment_min", "min", data, segment_ids, num_segments, indices_are_sorted,
        unique_indices, bucket_size, mode,
    )  # fmt: skip


def segment_prod(
    data: Any,
    segment_ids: Any,
    num_segments: int | None = None,
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    bucket_size: int | None = None,
    mode: Any = None,
) -> Any:
    """Products over segments, as :func:`segment_sum`; empty segments are 1. The gradient needs
    ``unique_indices=True`` (as JAX's: with repeated ids each factor's derivative is the product
    of the others)."""
    return _segment_reduce(
        "segment_prod", "mul", data, segment_ids, num_segments, indices_are_sorted,
        unique_indices, bucket_size, mode,
    )  # fmt: skip
