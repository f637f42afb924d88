"""Helpers that make the common transformation rules one line, as autograd's ``defvjp`` and
JAX's ``defvectorized`` do, and the shared pieces rules are built from.

Batching (rules live in ``batching.primitive_batchers``):
  - ``defvectorized(prim)``: elementwise of one operand; the batch dimension stays put.
  - ``defbroadcasting(prim)``: n-ary elementwise; batch dimensions are aligned in front.
Forward mode (``ad.primitive_jvps``):
  - ``defjvp(prim, f0, f1, ...)``: tangent = sum of ``fi(t_i, *primals, **params)``.
  - ``defjvp2(prim, f0, ...)``: the same, with the primal output: ``fi(t_i, out, *primals)``.
  - ``defjvp_zero(prim)``: outputs that carry no tangent (comparisons, integer results).
  - ``deflinear(prim, transpose)``: linear primitives; the jvp applies the primitive to the
    tangents, and ``transpose(ct, *args, **params)`` gives the cotangents.

This module imports the shape and elementwise modules lazily (at call time), since those
modules import it to register their rules.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.interpreters.ad import Zero

# ---------------------------------------------------------------------------------------------
# Batch-dimension plumbing


def _shape():
    from spmd._src.lax import shape

    return shape


def moveaxis(x: Any, src: int, dst: int) -> Any:
    """``x`` with dimension ``src`` moved to position ``dst``."""
    nd = np.ndim(x)
    src, dst = src % nd, dst % nd
    if src == dst:
        return x
    perm = [i for i in range(nd) if i != src]
    perm.insert(dst, src)
    return _shape().transpose(x, perm)


def bdim_at_front(x: Any, d: int | None, size: int) -> Any:
    """``x`` with its batch dimension first; an unbatched value is broadcast."""
    if d is None:
        return _shape().broadcast(x, (size,))
    return moveaxis(x, d, 0)


def bdim_to(x: Any, d: int | None, dst: int, size: int) -> Any:
    """``x`` with its batch dimension at ``dst``; an unbatched value is broadcast there."""
    if d is None:
        x = _shape().broadcast(x, (size,))
        d = 0
    return moveaxis(x, d, dst)


def _vectorized_batcher(prim: core.Primitive) -> Callable:
    def rule(axis_data, vals, dims, **params):
        (x,), (d,) = vals, dims
        return prim.bind(x, **params), d

    return rule


def defvectorized(prim: core.Primitive) -> None:
    """Batching and sharding rules of a one-operand elementwise primitive."""
    batching.primitive_batchers[prim] = _vectorized_batcher(prim)
    sharding_rules.sharding_rules[prim] = sharding_rules.unary_rule


def _broadcast_batcher(prim: core.Primitive) -> Callable:
    def rule(axis_data, vals, dims, **params):
        ranks = [np.ndim(v) - (d is not None) for v, d in zip(vals, dims)]
        batched = [(v, d) for v, d in zip(vals, dims) if d is not None]
        d0 = batched[0][1]
        r0 = np.ndim(batched[0][0])
        # Common case: batched operands agree on where the batch dimension is and have the
        # same rank, and unbatched ones are scalars. Then the primitive applies as it is.
        if all(d == d0 and np.ndim(v) == r0 for v, d in batched) and all(
            d is not None or r == 0 for r, d in zip(ranks, dims)
        ):
            out = prim.bind(*vals, **params)
            return (out, [d0] * len(out)) if prim.multiple_results else (out, d0)
        shp = _shape()
        # Two passes, in JAX's order (so that jaxprs print alike): first every operand gets
        # its batch dimension in front (a size-1 one for an unbatched non-scalar), then
        # batched operands of lower rank (per-example scalars) get trailing size-1 dimensions.
        args = []
        for v, d, r in zip(vals, dims, ranks):
            if d is not None:
                args.append(moveaxis(v, d, 0))
            elif r:
                args.append(shp.broadcast_in_dim(v, (1, *np.shape(v)), tuple(range(1, r + 1))))
            else:
                args.append(v)
        rank = max(np.ndim(v) for v in args)
        for i, (v, d) in enumerate(zip(args, dims)):
            if d is not None and np.ndim(v) < rank:
                s = tuple(np.shape(v))
                ones = (1,) * (rank - len(s))
                args[i] = shp.broadcast_in_dim(v, s + ones, tuple(range(len(s))))
        out = prim.bind(*args, **params)
        return (out, [0] * len(out)) if prim.multiple_results else (out, 0)

    return rule


def defbroadcasting(prim: core.Primitive) -> None:
    """Batching and sharding rules of an n-ary broadcasting elementwise primitive."""
    batching.primitive_batchers[prim] = _broadcast_batcher(prim)
    sharding_rules.sharding_rules[prim] = sharding_rules.elementwise_rule
    sharding_rules.explicit_rules[prim] = sharding_rules.explicit_elementwise(prim.name)


# ---------------------------------------------------------------------------------------------
# Forward-mode and transpose helpers


def zeros_like_aval(aval: ShapedArray, sharding: Any = None) -> Any:
    """A concrete zero of the given type (float0 zeros for int/bool tangents); a weakly typed
    aval gets a weakly typed zero, as in JAX (jvp of a Python-scalar function stays weak).
    ``sharding``: its sharding in type (Explicit mesh axes), if any."""
    if aval.dtype == dtypes.float0:
        return core.make_concrete(np.zeros(aval.shape, dtypes.float0), False)
    if aval.weak_type or sharding is not None:
        fill = core.make_concrete(dtypes.coerce_scalar(0, aval.dtype), aval.weak_type)
        return _shape().broadcast_in_dim(fill, aval.shape, (), out_sharding=sharding)
    return _shape().full(aval.shape, 0, aval.dtype)


def _sum_tangents(ts: Sequence[Any]) -> Any:
    out = None
    for t in ts:
        if t is None or type(t) is Zero:
            continue
        out = t if out is None else add_any(out, t)
    return out


def defjvp(prim: core.Primitive, *jvp_fns: Callable | None) -> None:
    """Tangent of ``prim`` as the sum over operands of ``jvp_fns[i](t_i, *primals, **params)``
    (None: the output does not depend on that operand differentiably)."""

    def rule(primals, tangents, primal_out, **params):
        terms = [
            fn(t, *primals, **params)
            for fn, t in zip(jvp_fns, tangents)
            if fn is not None and type(t) is not Zero
        ]
        out = _sum_tangents(terms)
        return Zero(ad.tangent_aval(core.get_aval(primal_out))) if out is None else out

    ad.primitive_jvps[prim] = rule


def defjvp2(prim: core.Primitive, *jvp_fns: Callable | None) -> None:
    """Like ``defjvp``, with the primal output: ``jvp_fns[i](t_i, out, *primals, **params)``."""

    def rule(primals, tangents, primal_out, **params):
        terms = [
            fn(t, primal_out, *primals, **params)
            for fn, t in zip(jvp_fns, tangents)
            if fn is not None and type(t) is not Zero
        ]
        out = _sum_tangents(terms)
        return Zero(ad.tangent_aval(core.get_aval(primal_out))) if out is None else out

    ad.primitive_jvps[prim] = rule


def defjvp_zero(prim: core.Primitive) -> None:
    """Outputs with no tangent (comparisons, integer results, sampling)."""

    def rule(primals, tangents, primal_out, **params):
        if prim.multiple_results:
            return [Zero(ad.tangent_aval(core.get_aval(o))) for o in primal_out]
        return Zero(ad.tangent_aval(core.get_aval(primal_out)))

    ad.primitive_jvps[prim] = rule


def deflinear(prim: core.Primitive, transpose_rule: Callable) -> None:
    """A primitive linear in all its operands: its jvp is itself applied to the tangents."""

    def jvp(primals, tangents, primal_out, **params):
        return prim.bind(*[ad.instantiate(t) for t in tangents], **params)

    ad.primitive_jvps[prim] = jvp
    ad.primitive_transposes[prim] = transpose_rule


def unbroadcast(ct: Any, aval: ShapedArray, sharding: Any = None) -> Any:
    """Sum ``ct`` down to ``aval``'s shape (the transpose of lax's implicit broadcasting of
    rank-0 operands and size-1 dimensions); ``sharding``: the operand's sharding in type
    (Explicit mesh axes), which the summed cotangent is reshaped to, as in JAX."""
    from spmd._src.lax import reductions

    ct_shape = tuple(np.shape(ct))
    if ct_shape == aval.shape:
        # Typed otherwise than the operand: a reshape retypes it (none if it is so typed).
        return ct if sharding is None else _shape().reshape(ct, ct_shape, out_sharding=sharding)
    if not aval.shape:
        return reductions.reduce_sum(ct, tuple(range(len(ct_shape))))
    axes = tuple(i for i, (a, b) in enumerate(zip(aval.shape, ct_shape)) if a == 1 and b != 1)
    summed = reductions.reduce_sum(ct, axes)
    return _shape().reshape(summed, aval.shape, out_sharding=sharding)


# ---------------------------------------------------------------------------------------------
# add_any: the sum of two tangents (JAX's add_jaxvals), linear in both


def add_any(x: Any, y: Any) -> Any:
    return add_any_p.bind(x, y)


def _add_any_abstract_eval(x, y):
    # Sums of tangents have one shape; under vmap an operand may come with size-1 dimensions
    # broadcast against the other's batch dimension (see _add_any_vmap), as np.add computes.
    shape = x.shape if x.shape == y.shape else np.broadcast_shapes(x.shape, y.shape)
    return ShapedArray(shape, x.dtype, x.weak_type and y.weak_type)


def _add_any_impl(x, y):
    if x.dtype == dtypes.float0:
        return x
    return np.add(x, y)


add_any_p = core.Primitive("add_any")
add_any_p.def_impl(_add_any_impl)
add_any_p.def_abstract_eval(_add_any_abstract_eval)
defbroadcasting(add_any_p)


def _add_any_transpose(ct, x, y):
    def for_operand(a):
        if ad.is_undefined_primal(a):
            return unbroadcast(ct, a.aval, a.sharding)
        return unbroadcast(ct, core.get_aval(a))

    return [for_operand(x), for_operand(y)]


deflinear(add_any_p, _add_any_transpose)

ad.set_tangent_helpers(zeros_like_aval, add_any)


__all__: list[str] = []


# add_any's operands have one shape per example. Under vmap an unbatched operand must be
# broadcast to the batched shape: the generic broadcasting batcher passes a rank-0 operand
# through, and add_any's abstract evaluation (the first operand's shape) does not broadcast,
# so jit(vmap(grad(f))) got wrongly shaped sums.
_add_any_broadcast_batcher = _broadcast_batcher(add_any_p)


def _add_any_vmap(axis_data, vals, dims):
    (x, y), (dx, dy) = vals, dims
    rx, ry = np.ndim(x) - (dx is not None), np.ndim(y) - (dy is not None)
    if rx != ry:  # not a sum of tangents of one value: broadcast as ``add`` does
        return _add_any_broadcast_batcher(axis_data, vals, dims)
    if dx == dy:
        return add_any_p.bind(x, y), dx
    size = axis_data.size
    return add_any_p.bind(bdim_at_front(x, dx, size), bdim_at_front(y, dy, size)), 0


batching.primitive_batchers[add_any_p] = _add_any_vmap
