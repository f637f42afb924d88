"""Device axes whose devices lie in several processes (a job under MPI).

Each process runs the shard_map body once, batched over its own devices (DESIGN.md, "One idea
carries the design"). A mesh axis shared by several processes is then a batch dimension
holding only this process's slice of the axis (``batching.Span``). A collective over it first
gathers the other slices from the peers holding them (``peer_gather``), runs the one-process
rule on the whole axis, and keeps this process's slice of a result that varies over the axis.
So every process computes the bits one process computes with all the devices.

``peer_gather`` is the only primitive here that communicates; it asks ``backends`` to.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spmd._src import backends, core
from spmd._src.core import ShapedArray
from spmd._src.interpreters import batching
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.rules import moveaxis

__all__ = ["local_slice", "peer_gather", "peer_gather_p"]


def peer_gather(x: Any, dim: int, span: batching.Span, what: str) -> Any:
    """``x``, this process's slice of a device axis along dimension ``dim``, joined with the
    slices of the other processes on that axis (``span.peers``, in axis order): the whole
    axis. Every process of the job calls it at the same point (``what`` names the call)."""
    return peer_gather_p.bind(x, dim=dim, peers=span.peers, groups=span.groups, what=what)


def local_slice(x: Any, dim: int, span: batching.Span, size: int) -> Any:
    """This process's ``size`` indices of a whole device axis along dimension ``dim``."""
    return lax_shape.slice_in_dim(x, span.offset, span.offset + size, axis=dim)


def _peer_gather_impl(x, *, dim, peers, groups, what):
    # Only the peers exchange (a communicator of their own, ranked in axis order); the
    # slices are joined in that order: along dimension 0, the received buffer as it is.
    x = np.asarray(x)
    got = backends.world().group(groups).allgather_array(x, what)
    if dim == 0:
        return got.reshape((-1, *x.shape[1:]))
    return np.concatenate(list(got), axis=dim)


def _peer_gather_abstract_eval(x, *, dim, peers, groups, what):
    shape = list(x.shape)
    shape[dim] *= len(peers)
    return ShapedArray(tuple(shape), x.dtype, x.weak_type)


def _peer_gather_vmap(axis_data, vals, dims, *, dim, **params):
    # Another map's batch dimension rides along: the peers on this axis hold the same slice
    # of every other axis, so their slices agree on it.
    (x,), (d,) = vals, dims
    return peer_gather_p.bind(moveaxis(x, d, 0), dim=dim + 1, **params), 0


peer_gather_p = core.Primitive("peer_gather")
peer_gather_p.def_impl(_peer_gather_impl)
peer_gather_p.def_abstract_eval(_peer_gather_abstract_eval)
batching.primitive_batchers[peer_gather_p] = _peer_gather_vmap
