"""Multi-dimensional histograms: ``jnp.histogramdd`` and ``histogram2d`` (differentiable in
their ``weights``)."""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np
from spmd._src.core import Tracer
from spmd._src.errors import ConcretizationTypeError
from spmd._src.lax import elementwise as lax
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.numpy.array_constructors import asarray
from spmd._src.numpy.shape_ops import (
    reshape,
    stack,
    transpose,
)
from spmd._src.numpy.sorting import bincount, histogram_bin_edges, searchsorted
from spmd._src.numpy.util import (
    _full,
    _scalar,
    check_arraylike,
    convert,
    promote_dtypes_inexact,
)
from spmd._src.util import prod

_int32 = np.dtype(np.int32)
_uint8 = np.dtype(np.uint8)
_bool = np.dtype(np.bool_)

# ---------------------------------------------------------------------------------------------
# histogramdd, histogram2d


def _hist_edges(col: Any, bins: Any, rng: Any) -> Any:
    """Bin edges of one dimension, in ``col``'s (inexact) dtype."""
    if np.ndim(bins) == 1:
        return convert(asarray(bins), col.dtype)
    if isinstance(bins, Tracer):
        raise ConcretizationTypeError(
            "histogramdd: the number of bins must be a concrete integer, got a traced value "
            f"{bins.aval.str_short()}"
        )
    nb = operator.index(bins)
    if nb < 0:
        # JAX's class for this case (it indexes an empty array).
        raise IndexError(f"histogramdd: the number of bins must be non-negative, got {nb}")
    if nb == 0:
        lo = _scalar(0, col.dtype) if rng is None else convert(rng[0], col.dtype)
        if rng is None and col.shape[0]:
            lo = lax_red.reduce_min(col, (0,))
        return reshape(lo, (1,))
    return convert(histogram_bin_edges(col, nb, rng), col.dtype)


def histogramdd(sample: Any, bins: Any = 10, range: Any = None, weights: Any = None,
                density: bool | None = None) -> tuple[Any, list]:  # fmt: skip
    """Counts (or summed ``weights``) of the ``N`` points of ``sample`` (shape ``(N, D)``) in a
    grid of bins, and the list of the ``D`` bin-edge arrays. ``bins`` is a count or an edge
    array, or one per dimension; ``range`` a ``(min, max)`` pair or None per dimension.

    >>> h, edges = jnp.histogramdd(jnp.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]]), bins=2)
    >>> h
    Array([[0, 1],
           [1, 1]], dtype=int32)
    """
    if weights is None:
        check_arraylike("histogramdd", sample)
        (s,) = promote_dtypes_inexact(sample)
        w = None
    else:
        check_arraylike("histogramdd", sample, weights)
        s, w = promote_dtypes_inexact(sample, weights)
    s = convert(s, s.dtype)
    if s.ndim != 2:
        raise ValueError(
            f"histogramdd: sample must be a 2-D array of shape (N, D) (N points in D "
            f"dimensions), got shape {tuple(s.shape)}"
        )
    N, D = s.shape
    if w is not None:
        w = convert(w, w.dtype)
        if tuple(w.shape) != (N,):
            raise ValueError(
                f"histogramdd: should have one weight for each sample; got weights of shape "
                f"{tuple(w.shape)} for {N} samples"
            )
    if range is not None and (
        len(range) != D or any(r is not None and np.shape(r)[0] != 2 for r in range)
    ):
        raise ValueError(
            f"For sample.shape={(N, D)}, range must be a sequence of {D} pairs or Nones; got "
            f"range={range}"
        )
    try:
        nb = len(bins)
    except TypeError:
        bins = [bins] * D
    else:
        if nb != D:
            raise ValueError(
                f"histogramdd: should be a bin for each dimension: got {nb} bin specifications "
                f"for {D} dimensions"
            )
    edges, index = [], None
    nbins = []
    for i in builtins.range(D):
        col = reshape(lax_shape.slice_in_dim(s, i, i + 1, 1, 1), (N,))
        e = _hist_edges(col, bins[i], None if range is None else range[i])
        ne = e.shape[0]
        # Bin b holds edges[b-1] <= x < edges[b]; the last edge belongs to the last bin. Index 0
        # and ne are the outliers, cut off below.
        idx = searchsorted(e, col, side="right")
        last = lax_shape.broadcast_in_dim(lax_shape.slice_in_dim(e, ne - 1, ne, 1, 0), (N,), (0,))
        at_last = lax.eq(col, last)
        idx = lax.select_n(at_last, idx, lax.sub(idx, _full((N,), 1, _int32)))
        stride = prod(b + 1 for b in nbins)
        term = lax.mul(idx, _full((N,), stride, _int32))
        index = term if index is None else lax.add(index, term)
        edges.append(e)
        nbins.append(ne)
    shape = tuple(b + 1 for b in reversed(nbins))
    hist = bincount(index, w, length=prod(shape))
    # The index was built with the first dimension varying fastest.
    hist = transpose(reshape(hist, shape), tuple(reversed(builtins.range(D))))
    hist = lax_shape.slice(hist, (1,) * D, tuple(b for b in nbins))
    if density:
        hist = convert(hist, s.dtype)
        total = lax_red.reduce_sum(hist, tuple(builtins.range(D)))
        hist = lax.div(hist, lax_shape.broadcast_in_dim(total, tuple(hist.shape), ()))
        for i, e in enumerate(edges):
            ne = e.shape[0]
            widths = lax.sub(
                lax_shape.slice_in_dim(e, 1, ne, 1, 0), lax_shape.slice_in_dim(e, 0, ne - 1, 1, 0)
            )
            hist = lax.div(hist, lax_shape.broadcast_in_dim(widths, tuple(hist.shape), (i,)))
    return hist, edges


def histogram2d(x: Any, y: Any, bins: Any = 10, range: Any = None, weights: Any = None,
                density: bool | None = None) -> tuple[Any, Any, Any]:  # fmt: skip
    """Counts (or summed ``weights``) of the points ``(x[i], y[i])`` in a 2-D grid of bins,
    with the edges along x and along y (``bins``, ``range`` as in ``histogramdd``; a sequence
    of neither 1 nor 2 entries is one edge array for both).

    >>> h, xe, ye = jnp.histogram2d(jnp.array([0.0, 1.0, 2.0]), jnp.array([1.0, 1.0, 0.0]), 2)
    >>> h
    Array([[0, 1],
           [1, 1]], dtype=int32)
    """
    check_arraylike("histogram2d", x, y)
    xa, ya = asarray(x), asarray(y)
    if xa.ndim != 1 or ya.ndim != 1:
        raise ValueError(
            f"histogram2d: x and y must be 1-D arrays, got shapes {tuple(xa.shape)} and "
            f"{tuple(ya.shape)}"
        )
    if xa.shape != ya.shape:
        raise TypeError(
            f"histogram2d: x and y must have the same length, got shapes {tuple(xa.shape)} and "
            f"{tuple(ya.shape)}"
        )
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n not in (1, 2):
        bins = [bins, bins]
    hist, edges = histogramdd(stack([xa, ya], axis=1), bins, range, weights, density)
    return hist, edges[0], edges[1]


__all__ = [
    "histogram2d",
    "histogramdd",
]
