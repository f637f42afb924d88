"""``jax.scipy.ndimage``: ``map_coordinates``, interpolation of an array at arbitrary
coordinates (order 0: nearest sample; order 1: multilinear), on ``spmd.numpy`` so that grad,
jit and vmap go through it.

The boundary modes are JAX's, which differ from SciPy's of the same name: ``'constant'``
behaves as SciPy's ``'grid-constant'`` and ``'wrap'`` as ``'grid-wrap'``.
"""

from __future__ import annotations

import functools
import itertools
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import dtypes
from spmd._src.lax.elementwise.arithmetic import round as lax_round
from spmd._src.scipy import linalg_jnp as jnp

__all__ = ["map_coordinates"]


def _mirror(index, size: int):
    # A triangle wave of period 2 (size - 1): reflection about the first and last samples.
    half = size - 1
    return jnp.abs((index + half) % (2 * half) - half)


def _reflect(index, size: int):
    # Reflection about the outer edges of the samples (each edge sample repeated): the mirror
    # of the half-integer grid, mapped back to sample indices.
    return jnp.floor_divide(_mirror(2 * index + 1, 2 * size + 1) - 1, 2)


# Where an out-of-range index reads from, per mode ('constant' reads nothing: masked below).
_FOLD = {
    "constant": lambda index, size: index,
    "nearest": lambda index, size: jnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _round_half_away(a):
    return a if dtypes.issubdtype(a.dtype, np.integer) else lax_round(a)


def _nearest(coord):
    """[(index, weight)]: the nearest sample, ties away from zero."""
    return [(_round_half_away(coord).astype(np.int32), coord.dtype.type(1))]


def _linear(coord):
    """[(index, weight)]: the samples on either side, weighted by closeness."""
    lower = jnp.floor(coord)
    w_upper = coord - lower
    index = lower.astype(np.int32)
    return [(index, 1 - w_upper), (index + 1, w_upper)]


def map_coordinates(
    input: Any, coordinates: Sequence[Any], order: int, mode: str = "constant", cval: Any = 0.0
):
    """``input`` interpolated at ``coordinates`` (one array of positions per axis of
    ``input``, all broadcast together): ``order`` 0 takes the nearest sample, 1 interpolates
    linearly. ``mode`` says what lies outside: ``'constant'`` (``cval``), ``'nearest'``,
    ``'wrap'``, ``'mirror'`` or ``'reflect'``. The result has ``input``'s dtype (integers
    rounded half away from zero).

    >>> map_coordinates(jnp.arange(12.0).reshape(3, 4), [jnp.array([0.5, 1.5]),
    ...                 jnp.array([1.5, 2.5])], order=1)
    Array([3.5, 8.5], dtype=float32)
    """
    arr = jnp.asarray(input)
    coords = [jnp.asarray(c) for c in coordinates]
    cval = jnp.asarray(cval, arr.dtype)
    if len(coords) != arr.ndim:
        raise ValueError(
            f"map_coordinates: coordinates must hold one array per axis of input "
            f"(input.ndim={arr.ndim}), got {len(coords)}"
        )
    fold = _FOLD.get(mode)
    if fold is None:
        raise NotImplementedError(
            f"map_coordinates: mode {mode!r} is not supported; use one of {sorted(_FOLD)}"
        )
    if order == 0:
        nodes_of = _nearest
    elif order == 1:
        nodes_of = _linear
    else:
        raise NotImplementedError(f"map_coordinates: order must be 0 or 1, got {order!r}")

    # Per axis: the samples each coordinate reads, as (folded index, in range?, weight).
    per_axis = []
    for coord, size in zip(coords, arr.shape):
        per_axis.append(
            [
                (fold(i, size), (0 <= i) & (i < size) if mode == "constant" else None, w)
                for i, w in nodes_of(coord)
            ]
        )
    terms = []
    for corner in itertools.product(*per_axis):
        index, valid, weight = zip(*corner)
        value = arr[index]
        if mode == "constant":
            value = jnp.where(functools.reduce(operator.and_, valid), value, cval)
        terms.append(functools.reduce(operator.mul, weight) * value)
    out = functools.reduce(operator.add, terms)
    if dtypes.issubdtype(arr.dtype, np.integer):
        out = _round_half_away(out)
    return out.astype(arr.dtype)
