"""``stack`` and ``tile``: arrays assembled from whole copies of their operands, along a new
dimension or repeated along existing ones.

>>> from spmd import lax
>>> lax.tile(jnp.arange(2), (3,))
Array([0, 1, 0, 1, 0, 1], dtype=int32)
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.lax.rules import bdim_at_front, deflinear
from spmd._src.lax.shape import (
    _concat_dtype,
    _ints,
    _reduce_sum,
    _shape_primitive,
    reshape,
    split,
    squeeze_p,
)
from spmd._src.lax.utils import standard_primitive

__all__ = ["stack", "stack_p", "tile", "tile_p"]


def stack(operands: Sequence[Any], axis: int = 0):
    """Stack equal-shaped ``operands`` along a new dimension ``axis``."""
    return stack_p.bind(*operands, axis=operator.index(axis))


def _stack_shape(*xs, axis):
    s0 = xs[0].shape
    for x in xs:
        if x.shape != s0:
            raise ValueError(
                f"All input arrays must have the same shape, got {[x.shape for x in xs]}."
            )
    return (*s0[:axis], len(xs), *s0[axis:])


stack_p = standard_primitive(
    "stack",
    _stack_shape,
    lambda *xs, axis: _concat_dtype(*xs, dimension=axis),
    lambda *xs, axis: np.stack(xs, axis=axis),
)


def _stack_vmap(axis_data, vals, dims, *, axis):
    d = dims[0]
    if d is not None and all(e == d for e in dims):
        # Operands batched alike stay where they are, as in JAX's rule: the new axis goes in
        # before the batch dimension when it comes at or before it.
        if axis <= d:
            return stack_p.bind(*vals, axis=axis), d + 1
        return stack_p.bind(*vals, axis=axis + 1), d
    xs = [bdim_at_front(x, e, axis_data.size) for x, e in zip(vals, dims)]
    return stack_p.bind(*xs, axis=axis + 1), 0


def _stack_transpose(ct, *xs, axis):
    # Unstack: split into pieces of one along the stacking axis and drop that axis.
    pieces = split(ct, (1,) * len(xs), axis)
    return [
        squeeze_p.bind(c, dimensions=(axis,)) if ad.is_undefined_primal(x) else None
        for c, x in zip(pieces, xs)
    ]


batching.primitive_batchers[stack_p] = _stack_vmap


def _stack_sharding(specs, avals, *, axis):
    spec = list(sharding_rules.elementwise_rule(specs, avals))
    spec.insert(axis, None)
    return tuple(spec)


sharding_rules.sharding_rules[stack_p] = _stack_sharding
deflinear(stack_p, _stack_transpose)


def tile(operand, reps: Sequence[int]):
    """Repeat ``operand`` ``reps[i]`` times along dimension i."""
    return tile_p.bind(operand, reps=_ints(reps))


def _tile_shape(x, *, reps):
    if len(reps) != x.ndim:
        raise TypeError(f"tile: reps {reps} must have one entry per dimension of shape {x.shape}")
    return tuple(d * r for d, r in zip(x.shape, reps))


tile_p = _shape_primitive("tile", _tile_shape, lambda x, *, reps: np.tile(x, reps))


def _tile_vmap(axis_data, vals, dims, *, reps):
    (x,), (d,) = vals, dims
    return tile_p.bind(x, reps=(*reps[:d], 1, *reps[d:])), d


def _tile_transpose(ct, x, *, reps):
    # Result dimension i is reps[i] copies of operand dimension i: view it as (reps[i], d_i)
    # and sum the copies.
    shape = x.aval.shape
    split_shape = tuple(v for r, n in zip(reps, shape) for v in (r, n))
    summed = _reduce_sum(reshape(ct, split_shape), range(0, 2 * len(shape), 2))
    return [reshape(summed, shape)]


batching.primitive_batchers[tile_p] = _tile_vmap


def _tile_sharding(specs, avals, *, reps):
    # Repeated dimensions are gathered; the others keep their axes.
    reps = tuple(reps)
    lead = len(reps) - avals[0].ndim
    spec = [None] * max(lead, 0) + list(specs[0])
    return tuple(None if r != 1 else e for e, r in zip(spec, reps[-len(spec) :]))


def _tile_sharding_explicit(specs, avals, *, reps):
    # Sharding in types: a repeated dimension would need gathering first, which a type does not
    # do silently (JAX refuses it too); the others keep their axes.
    spec = specs[0]
    for i, (e, r) in enumerate(zip(spec, reps)):
        if r != 1 and e is not None:
            raise sharding_rules.ShardingTypeError(
                f"Operand cannot be sharded on dimension {i} when the tiling is non-trivial. "
                f"Got input type: {sharding_rules.type_str(avals[0], spec, short=False)} with "
                f"reps: {tuple(reps)}"
            )
    return tuple(spec)


sharding_rules.sharding_rules[tile_p] = _tile_sharding
sharding_rules.explicit_rules[tile_p] = _tile_sharding_explicit
deflinear(tile_p, _tile_transpose)
