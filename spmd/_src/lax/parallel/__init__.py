"""Named-axis collectives: psum, all_gather, psum_scatter, all_to_all, ppermute, axis_index...

A collective names mesh or vmap axes (``'x'``, ``('x', 'y')``). It means something only inside a
map that binds those names (``shard_map``, ``pmap``, ``vmap(axis_name=...)``); in one process
every such map is a ``BatchTrace`` whose batch dimension holds the devices, and a collective is
the batching rule of its primitive.

The protocol between nested traces. A collective's axis entries are names or ints. An int is a
*positional device dimension*: the operand carries those devices stacked along its leading
dimensions. When the trace of axis ``'y'`` meets ``psum(v, ('x', 'y'))`` it moves its batch
dimension to the front of ``v`` and rebinds ``psum`` on its parent with the entries
``('x', 0)``; the trace of ``'x'`` does the same, giving ``(1, 0)``. With no names left the
primitive is a local operation on the stacked devices, and its NumPy kernel performs the one
combined reduction over the device index of the entries in their listed order (first entry
major) -- one left fold, as JAX on CPU does, never a fold over y followed by one over x. A trace
whose axis the collective does not name treats its batch dimension as a per-device dimension
(placed right after the stacked device dimensions).

Results that are the same on every participating device (psum, pmax, pmin, all_gather without
groups, pbroadcast) drop the device dimensions and come back unbatched: computed once.

Numerics: reductions are a left fold in device order (group order within groups), accumulating
in the input dtype, so every device holds the same bits.

>>> f = lambda x: lax.psum(x, "i")
>>> spmd.vmap(f, axis_name="i")(jnp.arange(4.0))
Array([6., 6., 6., 6.], dtype=float32)
"""

from __future__ import annotations

from collections.abc import Callable

from spmd._src import core
from spmd._src.lax.parallel._common import _named, _names

# shard_map reads these two as ``parallel.X``.
from spmd._src.lax.parallel._common import _vma_ctx as _vma_ctx
from spmd._src.lax.parallel._common import vma_checked_axes as vma_checked_axes
from spmd._src.lax.parallel.axes import (
    axis_index,
    axis_index_p,
    axis_size,
    pbroadcast,
    pbroadcast_p,
    pcast,
    pvary,
    pvary_p,
)
from spmd._src.lax.parallel.movement import (
    all_gather,
    all_gather_invariant_p,
    all_gather_p,
    all_to_all,
    all_to_all_p,
    ppermute,
    ppermute_p,
    pshuffle,
    psum_scatter,
    pswapaxes,
    reduce_scatter_p,
)
from spmd._src.lax.parallel.ragged import ragged_all_to_all, ragged_all_to_all_p
from spmd._src.lax.parallel.reductions import (
    pmax,
    pmax_p,
    pmean,
    pmin,
    pmin_p,
    psum,
    psum_invariant_p,
    psum_p,
)

# ---------------------------------------------------------------------------------------------
# Varying manual axes: how each collective changes the set of mesh axes a value varies over
# (read by shard_map's replication check). rule(params, vma_in) -> vma_out.


def _minus(params, vma, key="axes"):
    return vma - set(_named(_names(params[key])))


def _plus(params, vma, key="axis_name"):
    return vma | set(_named(_names(params[key])))


def _reduction_vma(params, vma):
    if params.get("axis_index_groups") is not None:
        return _plus(params, vma, "axes")
    return _minus(params, vma)


vma_rules: dict[core.Primitive, Callable] = {
    psum_p: _reduction_vma,
    psum_invariant_p: _reduction_vma,
    pmax_p: _reduction_vma,
    pmin_p: _reduction_vma,
    all_gather_p: _plus,
    all_gather_invariant_p: lambda params, vma: _minus(params, vma, "axis_name"),
    reduce_scatter_p: _plus,
    all_to_all_p: _plus,
    ppermute_p: _plus,
    # Each device receives different rows: varying over the named axes (JAX types the result
    # like ``output``).
    ragged_all_to_all_p: _plus,
    pbroadcast_p: lambda params, vma: _minus(params, vma, "axis_name"),
    pvary_p: lambda params, vma: _plus(params, vma, "axes"),
    axis_index_p: lambda params, vma: {params["axis_name"]},
}

collective_primitives = frozenset(vma_rules)


__all__ = [
    "all_gather",
    "all_gather_invariant_p",
    "all_gather_p",
    "all_to_all",
    "all_to_all_p",
    "axis_index",
    "axis_index_p",
    "axis_size",
    "pbroadcast",
    "pbroadcast_p",
    "pcast",
    "pmax",
    "pmax_p",
    "pmean",
    "pmin",
    "pmin_p",
    "ppermute",
    "ppermute_p",
    "pshuffle",
    "psum",
    "psum_invariant_p",
    "psum_p",
    "psum_scatter",
    "pswapaxes",
    "pvary",
    "pvary_p",
    "ragged_all_to_all",
    "ragged_all_to_all_p",
    "reduce_scatter_p",
]
