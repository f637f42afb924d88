"""``shard_alike(x, y)``: ``x`` and ``y`` unchanged, placed alike.

A ``shard_alike`` equation takes one leaf of each (of equal shapes) and gives both back;
sharding propagation gives both results one spec: the one operand's where only one is sharded
(the other follows it), ``x``'s where both are. Eagerly the same rule places the results, so a
sharded array and an unsharded one come back sharded alike, as in JAX.
"""

from __future__ import annotations

import numpy as np

from spmd._src import core
from spmd._src import tree_util as tu
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.lax.rules import deflinear


def shard_alike(x, y):
    """``(x, y)`` with each pair of corresponding leaves sharded the same way (``x`` and ``y``
    must be pytrees of one structure whose leaves have equal shapes)."""
    x_leaves, x_tree = tu.tree_flatten(x)
    y_leaves, y_tree = tu.tree_flatten(y)
    if x_tree != y_tree:
        raise ValueError(
            f"shard_alike: x and y must have the same pytree structure, got {x_tree} and {y_tree}."
        )
    outs_x, outs_y = [], []
    for a, b in zip(x_leaves, y_leaves):
        if np.shape(a) != np.shape(b):
            raise ValueError(
                f"shard_alike: the leaves of x and y must have equal shapes; got an x leaf of "
                f"shape {np.shape(a)} and a y leaf of shape {np.shape(b)}."
            )
        ox, oy = shard_alike_p.bind(a, b)
        outs_x.append(ox)
        outs_y.append(oy)
    return tu.tree_unflatten(x_tree, outs_x), tu.tree_unflatten(y_tree, outs_y)


def _impl(x, y):
    return [x, y]


def _abstract_eval(x, y):
    return [x, y]


def _vmap_rule(axis_data, vals, dims):
    import spmd.numpy as jnp  # lazy: the vmap rule uses public jnp shape ops

    # Both batched at the front (an unbatched one broadcast), so the pair keeps equal shapes.
    front = [
        jnp.broadcast_to(v, (axis_data.size, *np.shape(v)))
        if d is batching.not_mapped
        else jnp.moveaxis(v, d, 0)
        for v, d in zip(vals, dims)
    ]
    return shard_alike_p.bind(*front), [0, 0]


def _transpose_rule(cts, x, y):
    # The cotangents are paired alike too.
    if any(type(c) is ad.Zero for c in cts):
        return list(cts)
    return shard_alike_p.bind(*cts)


def _sharding_rule(specs, avals):
    sx, sy = specs
    spec = sx if sx is not None else sy
    spec = tuple(spec) if spec is not None else None
    return [spec, spec]


shard_alike_p = core.Primitive("shard_alike", multiple_results=True)
shard_alike_p.def_impl(_impl)
shard_alike_p.def_abstract_eval(_abstract_eval)
batching.primitive_batchers[shard_alike_p] = _vmap_rule
deflinear(shard_alike_p, _transpose_rule)
sharding_rules.sharding_rules[shard_alike_p] = _sharding_rule
