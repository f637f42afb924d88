"""Reductions over named axes: psum, pmax, pmin (and psum_invariant, pmean), with the left-fold
kernels that give every device the same bits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src import tree_util as tu
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.lax import elementwise as lax_elem
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.parallel._common import (
    _check_groups,
    _check_positions,
    _collective_batcher,
    _flat_devices,
    _group_array,
    _Info,
    _infos,
    _named,
    _names,
    _npos,
    _register,
    _sizes,
    _unbound_impl,
    _unflat_devices,
    _vma_ctx,
)
from spmd._src.lax.rules import deflinear, moveaxis
from spmd._src.util import prod

__all__ = [
    "pmax",
    "pmax_p",
    "pmean",
    "pmin",
    "pmin_p",
    "psum",
    "psum_invariant_p",
    "psum_p",
]


# ---------------------------------------------------------------------------------------------
# Left-fold kernels: every device gets the same bits


_BF16 = np.dtype(dtypes.bfloat16)


def _fold(op: Callable, xs: np.ndarray) -> np.ndarray:
    """``op(...op(op(xs[0], xs[1]), xs[2])...)``: a left fold over the leading dimension, in
    the input dtype (NumPy's own reductions may sum pairwise). bfloat16 sums accumulate in
    float32 and round once, as XLA's CPU all-reduce does (float16 ones round every step)."""
    if xs.shape[0] == 1:
        return xs[0].copy()
    if xs.dtype == _BF16 and op is np.add:
        return _fold(op, xs.astype(np.float32)).astype(_BF16)
    acc = np.empty(xs.shape[1:], dtype=xs.dtype)
    op(xs[0], xs[1], out=acc)
    for i in range(2, xs.shape[0]):
        op(acc, xs[i], out=acc)
    return acc


def _group_reduce(op: Callable, flat: np.ndarray, groups) -> np.ndarray:
    """Per device, the fold over its group (the result keeps the device dimension)."""
    n = flat.shape[0]
    if len({len(g) for g in groups}) == 1:
        g = _group_array(groups, n)
        sums = _fold(op, np.moveaxis(flat[g], 1, 0))  # (num_groups, ...)
        owner = np.empty(n, dtype=np.int64)
        for i, grp in enumerate(groups):
            owner[list(grp)] = i
        return sums[owner]
    out = np.empty_like(flat)
    for grp in groups:
        out[list(grp)] = _fold(op, flat[list(grp)])
    return out


# ---------------------------------------------------------------------------------------------
# psum, pmax, pmin (and psum_invariant, pmean)


def _reduction_abstract_eval(fn):
    def rule(x, *, axes, axis_index_groups=None):
        k = _check_positions(axes, x, fn)
        if axis_index_groups is None:
            return ShapedArray(x.shape[k:], x.dtype, x.weak_type)
        return x

    return rule


def _reduction_impl(fn, op):
    def impl(x, *, axes, axis_index_groups=None):
        _unbound_impl(fn, axes)
        flat, shape = _flat_devices(x, axes)
        if flat.dtype.kind in "iub" and op is np.add:
            # Integer sums are exact in any order (wrapping included).
            if axis_index_groups is None:
                return np.add.reduce(flat, axis=0, dtype=flat.dtype)
        if axis_index_groups is None:
            return _fold(op, flat)
        return _unflat_devices(_group_reduce(op, flat, axis_index_groups), axes, shape)

    return impl


def _reduction_varying(params):
    return params.get("axis_index_groups") is not None


def _bind_reduction(prim, fn, x, axis_name, axis_index_groups):
    names = _names(axis_name)
    if not names:
        return x
    n = prod(_sizes(names, fn))
    groups = _check_groups(axis_index_groups, names, n, fn, equal=False)

    def one(leaf):
        if isinstance(leaf, (bool, int, float, complex)) and prim is psum_p:
            # A Python constant is the same on every device: the sum is known statically.
            if groups is None:
                return leaf * n
            if len({len(g) for g in groups}) == 1:
                return leaf * len(groups[0])
        if dtypes.dtype(leaf) == np.bool_ and prim is psum_p:
            leaf = lax_elem.convert_element_type(leaf, np.int32)
        p = prim
        if p is psum_p and groups is None and set(names) <= _vma_ctx.axes:
            return psum_invariant_p.bind(leaf, axes=names)
        return p.bind(leaf, axes=names, axis_index_groups=groups)

    return tu.tree_map(one, x)


def psum(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """Sum ``x`` (a pytree) over the devices of the named axis or axes.

    Every device gets the same bits: a left fold in device order (first named axis major;
    within a group, in the group's listed order). Groups may have different sizes.

    >>> spmd.vmap(lambda x: lax.psum(x, "i"), axis_name="i")(jnp.arange(4))
    Array([6, 6, 6, 6], dtype=int32)
    """
    return _bind_reduction(psum_p, "psum", x, axis_name, axis_index_groups)


psum_p = core.Primitive("psum")
psum_p.def_impl(_reduction_impl("psum", np.add))
psum_p.def_abstract_eval(_reduction_abstract_eval("psum"))


def _psum_transpose(ct, x, *, axes, axis_index_groups):
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    k = _npos(axes)
    if k == len(axes) and axis_index_groups is None:
        # Global form: the sum of the stacked devices; each device's cotangent is the sum's.
        shape = x.aval.shape
        return [lax_shape.broadcast_in_dim(ct, shape, tuple(range(k, len(shape))))]
    if k and k != len(axes):
        raise NotImplementedError(
            "transposing psum over both named and vmapped axes at once is not supported"
        )
    # Per device (as in pmap and vmap): the sum's cotangent is summed over the same devices.
    return [psum_p.bind(ct, axes=axes, axis_index_groups=axis_index_groups)]


deflinear(psum_p, _psum_transpose)
_register(psum_p, _Info("axes", _reduction_varying))


def _psum_invariant_impl(x, *, axes):
    return _reduction_impl("psum", np.add)(x, axes=axes)


def _psum_invariant_vmap(axis_data, vals, dims, *, axes):
    if axis_data.name is not None and axis_data.name in axes:
        # Once its axis is stacked, the sum is the plain (global) psum.
        return _collective_batcher(psum_p)(axis_data, vals, dims, axes=axes, axis_index_groups=None)
    # Another axis (its names are never positional: resolving turns it into psum).
    (x,), (d,) = vals, dims
    return psum_invariant_p.bind(moveaxis(x, d, 0), axes=axes), 0


psum_invariant_p = core.Primitive("psum_invariant")
psum_invariant_p.def_impl(_psum_invariant_impl)
psum_invariant_p.def_abstract_eval(
    lambda x, *, axes: _reduction_abstract_eval("psum")(x, axes=axes)
)
# Typed per-device semantics (shard_map with check_vma=True): the result is one value for all
# devices, so its cotangent is passed to each device as it is (JAX's pvary).
deflinear(psum_invariant_p, lambda ct, x, *, axes: [ct])
_infos[psum_invariant_p] = _Info("axes", lambda p: False)
batching.primitive_batchers[psum_invariant_p] = _psum_invariant_vmap
sharding_rules.sharding_rules[psum_invariant_p] = sharding_rules.unary_rule
batching.axis_name_params[psum_invariant_p] = lambda params: _named(_names(params["axes"]))


def pmax(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The maximum of ``x`` (a pytree) over the devices of the named axis or axes.

    >>> spmd.vmap(lambda x: lax.pmax(x, "i"), axis_name="i")(jnp.arange(4))
    Array([3, 3, 3, 3], dtype=int32)
    """
    return _bind_reduction(pmax_p, "pmax", x, axis_name, axis_index_groups)


def pmin(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The minimum of ``x`` (a pytree) over the devices of the named axis or axes.

    >>> spmd.vmap(lambda x: lax.pmin(x, "i"), axis_name="i")(jnp.arange(4))
    Array([0, 0, 0, 0], dtype=int32)
    """
    return _bind_reduction(pmin_p, "pmin", x, axis_name, axis_index_groups)


def _pminmax_jvp(prim):
    # The tangent of the device holding the extremum; ties share it equally (as reduce_max's
    # rule does). Built from psum, so it transposes.
    def jvp(primals, tangents, out, *, axes, axis_index_groups):
        (x,), (t,) = primals, tangents
        t = ad.instantiate(t)
        k = _npos(axes)
        if k and axis_index_groups is None:
            shape = core.get_aval(x).shape
            out_b = lax_shape.broadcast_in_dim(out, shape, tuple(range(k, len(shape))))
        else:
            out_b = out
        hit = lax_elem.convert_element_type(lax_elem.eq(x, out_b), core.get_aval(t).dtype)
        num = psum_p.bind(lax_elem.mul(t, hit), axes=axes, axis_index_groups=axis_index_groups)
        den = psum_p.bind(hit, axes=axes, axis_index_groups=axis_index_groups)
        return lax_elem.div(num, den)

    return jvp


pmax_p = core.Primitive("pmax")
pmax_p.def_impl(_reduction_impl("pmax", np.maximum))
pmax_p.def_abstract_eval(_reduction_abstract_eval("pmax"))
ad.primitive_jvps[pmax_p] = _pminmax_jvp(pmax_p)
_register(pmax_p, _Info("axes", _reduction_varying))

pmin_p = core.Primitive("pmin")
pmin_p.def_impl(_reduction_impl("pmin", np.minimum))
pmin_p.def_abstract_eval(_reduction_abstract_eval("pmin"))
ad.primitive_jvps[pmin_p] = _pminmax_jvp(pmin_p)
_register(pmin_p, _Info("axes", _reduction_varying))


def pmean(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The mean of ``x`` (a pytree) over the devices of the named axis or axes (integers give
    floats): ``psum`` divided by the number of devices summed over.

    >>> spmd.vmap(lambda x: lax.pmean(x, "i"), axis_name="i")(jnp.arange(4.0))
    Array([1.5, 1.5, 1.5, 1.5], dtype=float32)
    """
    names = _names(axis_name)
    n = prod(_sizes(names, "pmean"))
    groups = _check_groups(axis_index_groups, names, n, "pmean", equal=False)
    total = psum(x, axis_name, axis_index_groups=groups)
    if groups is not None:
        sizes = {len(g) for g in groups}
        if len(sizes) > 1:
            # Each device divides by its own group's size.
            count = psum(np.ones((), np.int32), axis_name, axis_index_groups=groups)
            n = lax_elem.convert_element_type(count, dtypes.default_float_dtype())
        else:
            n = sizes.pop()

    def one(v):
        if isinstance(v, (bool, int, float, complex)):
            return v / n
        if not dtypes.issubdtype(dtypes.dtype(v), np.inexact):
            v = lax_elem.convert_element_type(v, dtypes.default_float_dtype())
        return lax_elem.div(
            v, float(n) if isinstance(n, int) else lax_elem.convert_element_type(n, v.dtype)
        )

    return tu.tree_map(one, total)
