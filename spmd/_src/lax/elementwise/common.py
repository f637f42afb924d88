"""Helpers shared by the elementwise primitives' rules: scalars and fills of an operand's dtype,
and the cotangent of a broadcasting operand."""

from __future__ import annotations

import numpy as np

from spmd._src import core
from spmd._src.interpreters import ad, sharding_rules
from spmd._src.lax.rules import unbroadcast
from spmd._src.sharding import PartitionSpec


def _shape():
    # Imported when a rule runs, so that shape.py may import this module at load time.
    from spmd._src.lax import shape

    return shape


def _dtype(x):
    return core.get_aval(x).dtype


def _const(x, value):
    """A strongly typed scalar of ``x``'s dtype (printed as a literal in jaxprs)."""
    return core.make_concrete(np.array(value, dtype=_dtype(x)), False)


def _one(x):
    return _const(x, 1)


def _one_typed(x):
    """1 of ``x``'s dtype as the jvp rules that JAX writes with its ``_one`` get it: on
    Explicit mesh axes, resharded to ``x``'s mesh (replicated), a ``reshard`` equation."""
    s = sharding_rules.type_sharding(x)
    if s is None:
        return _one(x)
    from spmd._src.lax.sharding import reshard  # lazy: lax.sharding imports this package

    return reshard(_one(x), s.with_spec(PartitionSpec()))


def _full(x, value):
    """An array of ``x``'s shape, dtype and weak type filled with ``value``."""
    aval = core.get_aval(x)
    fill = core.make_concrete(np.array(value, dtype=aval.dtype), aval.weak_type)
    return _shape().broadcast_in_dim(fill, aval.shape, ())


def _zeros(x):
    return _full(x, 0)


def _bcast_like(g, out):
    """``g`` broadcast to the shape of ``out`` (tangent terms of broadcasting operations must
    all have the result's shape)."""
    shape = tuple(np.shape(out))
    gs = tuple(np.shape(g))
    if gs == shape:
        return g
    dims = () if not gs else tuple(range(len(shape)))
    return _shape().broadcast_in_dim(g, shape, dims)


def _unbroadcast_ct(ct, x):
    """The cotangent for operand ``x`` (a value or UndefinedPrimal) of a broadcasting op."""
    if ct is None or type(ct) is ad.Zero:
        return ct
    if ad.is_undefined_primal(x):
        return unbroadcast(ct, x.aval, x.sharding)
    return unbroadcast(ct, core.get_aval(x))


__all__ = []
