"""Per-axis queries and replication casts: axis_index, axis_size, pbroadcast, pvary / pcast."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src import tree_util as tu
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.lax import elementwise as lax_elem
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.parallel import processes
from spmd._src.lax.parallel._common import (
    _check_positions,
    _describe,
    _flat_devices,
    _Info,
    _names,
    _npos,
    _register,
    _sizes,
    _unbound_impl,
)
from spmd._src.lax.parallel.reductions import psum_invariant_p, psum_p
from spmd._src.lax.rules import deflinear
from spmd._src.util import prod

__all__ = [
    "axis_index",
    "axis_index_p",
    "axis_size",
    "pbroadcast",
    "pbroadcast_p",
    "pcast",
    "pvary",
    "pvary_p",
]


# ---------------------------------------------------------------------------------------------
# axis_index, axis_size


def axis_index(axis_name: Any) -> Any:
    """This device's index along the named axis (for several names, the combined index with
    the first name major).

    >>> spmd.vmap(lambda x: x + lax.axis_index("i"), axis_name="i")(jnp.zeros(3, jnp.int32))
    Array([0, 1, 2], dtype=int32)
    """
    names = _names(axis_name)
    sizes = _sizes(names, "axis_index")
    if len(names) == 1:
        return axis_index_p.bind(axis_name=names[0])
    # As JAX builds it: sum over the names, last first, of index times stride.
    out: Any = 0
    stride = 1
    for name, size in zip(reversed(names), reversed(sizes)):
        out = lax_elem.add(out, lax_elem.mul(axis_index_p.bind(axis_name=name), stride))
        stride *= size
    return out


def _axis_index_impl(*, axis_name):
    _unbound_impl("axis_index", (axis_name,))
    raise NameError(f"unbound axis name: {axis_name}")


def _axis_index_vmap(axis_data, vals, dims, *, axis_name):
    span = axis_data.span
    if span is None:
        return lax_shape.iota(np.int32, axis_data.size), 0
    # An axis shared by processes: this process's indices of it.
    return processes.local_slice(lax_shape.iota(np.int32, span.total), 0, span, axis_data.size), 0


axis_index_p = core.Primitive("axis_index")
axis_index_p.def_impl(_axis_index_impl)
axis_index_p.def_abstract_eval(lambda *, axis_name: ShapedArray((), np.dtype(np.int32)))
ad.primitive_jvps[axis_index_p] = lambda primals, tangents, out, **p: ad.Zero(
    ShapedArray((), dtypes.float0)
)
batching.primitive_batchers[axis_index_p] = _axis_index_vmap
batching.axis_name_params[axis_index_p] = lambda params: (params["axis_name"],)


def axis_size(axis_name: Any) -> int:
    """The number of devices along the named axis (or axes), as a Python int.

    >>> spmd.vmap(lambda x: x * lax.axis_size("i"), axis_name="i")(jnp.ones(3))
    Array([3., 3., 3.], dtype=float32)
    """
    return prod(_sizes(_names(axis_name), "axis_size"))


# ---------------------------------------------------------------------------------------------
# pbroadcast (from one source device), pvary / pcast (replication casts)


def pbroadcast(x: Any, axis_name: Any, source: int) -> Any:
    """Every device of the named axis gets ``x`` of device ``source``.

    >>> spmd.vmap(lambda x: lax.pbroadcast(x, "i", 2), axis_name="i")(jnp.arange(4))
    Array([2, 2, 2, 2], dtype=int32)
    """
    names = _names(axis_name)
    n = prod(_sizes(names, "pbroadcast"))
    src = operator.index(source)
    if not 0 <= src < n:
        raise ValueError(
            f"pbroadcast: source {source} is outside range({n}) of axis {_describe(names)}"
        )
    return tu.tree_map(lambda leaf: pbroadcast_p.bind(leaf, axis_name=names, source=src), x)


def _pbroadcast_abstract_eval(x, *, axis_name, source):
    k = _check_positions(_names(axis_name), x, "pbroadcast")
    return ShapedArray(x.shape[k:], x.dtype, x.weak_type)


def _pbroadcast_impl(x, *, axis_name, source):
    entries = _names(axis_name)
    _unbound_impl("pbroadcast", entries)
    flat, _ = _flat_devices(x, entries)
    return flat[source].copy()


def _pbroadcast_transpose(ct, x, *, axis_name, source):
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    entries = _names(axis_name)
    k = _npos(entries)
    if k == len(entries):
        # Global form: only the source device's value was used.
        shape = x.aval.shape
        lead = shape[:k]
        ordered = tuple(lead[e] for e in entries)
        onehot = np.zeros(prod(ordered), dtype=x.aval.dtype)
        onehot[source] = 1
        onehot = np.transpose(onehot.reshape(ordered), np.argsort(entries))
        mask = lax_shape.broadcast_in_dim(
            core.make_concrete(np.ascontiguousarray(onehot), False), shape, tuple(range(k))
        )
        full = lax_shape.broadcast_in_dim(ct, shape, tuple(range(k, len(shape))))
        return [lax_elem.mul(full, mask)]
    if k:
        raise NotImplementedError(
            "transposing pbroadcast over both named and vmapped axes at once is not supported"
        )
    # Per device: the source receives the sum of every device's cotangent, the others zero.
    total = psum_p.bind(ct, axes=entries, axis_index_groups=None)
    here = lax_elem.eq(axis_index(entries), np.int32(source))
    return [lax_elem.select_n(here, lax_shape.full_like(total, 0), total)]


pbroadcast_p = core.Primitive("pbroadcast")
pbroadcast_p.def_impl(_pbroadcast_impl)
pbroadcast_p.def_abstract_eval(_pbroadcast_abstract_eval)
deflinear(pbroadcast_p, _pbroadcast_transpose)
_register(pbroadcast_p, _Info("axis_name", lambda p: False))


def pvary(x: Any, axis_name: Any) -> Any:
    """Mark ``x`` (a pytree) as varying over the named axes; the values are unchanged.

    >>> spmd.vmap(lambda x: lax.pvary(x, "i"), axis_name="i")(jnp.arange(2))
    Array([0, 1], dtype=int32)
    """
    names = _names(axis_name)
    _sizes(names, "pvary")
    return tu.tree_map(lambda leaf: pvary_p.bind(leaf, axes=names), x)


def pcast(x: Any, axis_name: Any, *, to: str) -> Any:
    """Cast the replication type of ``x`` over the named axes (``to='varying'``: ``pvary``);
    the values are unchanged."""
    if to not in ("varying", "invariant", "reduced", "unreduced"):
        raise ValueError(f"pcast: to must be 'varying' (or another vma type), got {to!r}")
    if to == "varying":
        return pvary(x, axis_name)
    _sizes(_names(axis_name), "pcast")
    return x


def _pvary_vmap(axis_data, vals, dims, *, axes):
    # Values are unchanged; an unbatched value already stands for identical copies.
    (x,), (d,) = vals, dims
    return x, d


def _pvary_transpose(ct, x, *, axes):
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    # A value made varying is used once per device: its cotangent sums them (JAX's rule).
    return [psum_invariant_p.bind(ct, axes=axes)]


pvary_p = core.Primitive("pvary")
pvary_p.def_impl(lambda x, *, axes: x)
pvary_p.def_abstract_eval(lambda x, *, axes: x)
deflinear(pvary_p, _pvary_transpose)
batching.primitive_batchers[pvary_p] = _pvary_vmap
sharding_rules.sharding_rules[pvary_p] = sharding_rules.unary_rule


# psum_invariant's transpose is the cast pvary (JAX's typed rule): its result is one value for
# all devices, so each device's operand receives that cotangent, now typed as varying. The
# cast changes no value (the rule this replaces passed the cotangent through untyped).
def _psum_invariant_transpose(ct, x, *, axes):
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    return [pvary_p.bind(ct, axes=tuple(axes))]


deflinear(psum_invariant_p, _psum_invariant_transpose)
