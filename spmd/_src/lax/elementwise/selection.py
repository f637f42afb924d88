"""Selection: ``select_n`` (and ``select``) picks among cases by a predicate; ``clamp`` bounds an
operand between two others."""

from __future__ import annotations

import numpy as np

from spmd._src import core, key_arrays
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.key_arrays import over_key_data
from spmd._src.lax.elementwise.bitwise import bitwise_and, eq, gt, lt
from spmd._src.lax.elementwise.common import _bcast_like, _const, _shape, _zeros
from spmd._src.lax.rules import bdim_at_front, defjvp
from spmd._src.lax.utils import standard_primitive

# ---------------------------------------------------------------------------------------------
# Selection


@over_key_data("lax.select_n", key_arrays.after(1))
def select_n(which, *cases):
    """``cases[which]`` elementwise; ``which`` is bool (two cases) or int32.

    >>> lax.select_n(jnp.array([True, False]), jnp.array([1, 2]), jnp.array([3, 4]))
    Array([3, 2], dtype=int32)
    """
    if not cases:
        raise ValueError("select_n: at least one case is required")
    return select_n_p.bind(which, *cases)


def _select_n_shape(which, *cases):
    shape = cases[0].shape
    for c in cases[1:]:
        if c.shape != shape:
            raise TypeError(
                f"select_n: cases must have the same shape, got {[c.shape for c in cases]}."
            )
    if which.shape and which.shape != shape:
        raise TypeError(
            f"select_n: the predicate must be a scalar or have the cases' shape {shape}, got "
            f"{which.shape}."
        )
    return shape


def _select_n_dtype(which, *cases):
    if which.dtype != np.bool_ and which.dtype != np.int32:
        raise TypeError(f"select_n: the predicate must be bool or int32, got {which.dtype.name}.")
    if which.dtype == np.bool_ and len(cases) > 2:
        raise TypeError("select_n: a bool predicate selects between at most two cases.")
    dts = {c.dtype for c in cases}
    if len(dts) > 1:
        raise TypeError(
            f"select_n: cases must have the same dtype, got {[c.dtype.name for c in cases]}."
        )
    return cases[0].dtype


def _select2(which, on_false, on_true, out=None):
    # np.where with a random mask is branchy and slow on large arrays (the ReLU backward pass
    # of an MLP). Multiplying the cases' bits, as unsigned integers, by the 0/1 predicate
    # selects exactly (NaNs and signed zeros included) and runs as one vectorised loop.
    n = on_false.dtype.itemsize
    if (
        on_false.size < 4096
        or which.dtype != np.bool_
        or which.shape != on_false.shape
        or on_true.shape != on_false.shape
        or on_true.dtype != on_false.dtype
        or n not in (1, 2, 4, 8)
    ):
        return np.where(which, on_true, on_false)
    u = np.dtype(f"u{n}")
    # Same-itemsize views work for any strides (broadcast zeros included): nothing is copied.
    f, t = on_false.view(u), on_true.view(u)
    o = None if out is None else out.view(u)
    if not any(on_false.strides) and not f.flat[0]:
        # Against broadcast +0 (the ReLU backward pass): one multiply, in place if allowed.
        return np.multiply(t, which, out=o).view(on_false.dtype)
    if not any(on_true.strides) and not t.flat[0]:
        return np.multiply(f, np.logical_not(which), out=o).view(on_false.dtype)
    # f ^ ((f ^ t) * which): ``d`` must not be ``out`` when ``out`` is ``on_false``, read last.
    d = np.bitwise_xor(f, t, out=o if out is on_true else None)
    np.multiply(d, which, out=d)
    return np.bitwise_xor(d, f, out=o if o is not None else d).view(on_false.dtype)


def _select_n_impl(which, *cases, out=None):
    if len(cases) == 1:
        # A copy: compiled programs may write into this result's buffer (``takes_out``).
        return np.array(cases[0], copy=True)
    if len(cases) == 2:
        return _select2(which, cases[0], cases[1], out)
    return np.choose(which, cases)


select_n_p = standard_primitive(
    "select_n",
    _select_n_shape,
    _select_n_dtype,
    _select_n_impl,
    weak_type_rule=lambda which, *cases: all(c.weak_type for c in cases),
)
select_n_p.takes_out = True


def _select_n_vmap(axis_data, vals, dims):
    which, *cases = vals
    wd, *cds = dims
    d0 = next((d for d in cds if d is not None), None)
    case_nd = np.ndim(cases[0]) - (cds[0] is not None)
    which_nd = np.ndim(which) - (wd is not None)
    # Common case: the cases share one batch dimension, and the predicate is an unbatched
    # scalar or batched like them.
    if (
        d0 is not None
        and all(d == d0 for d in cds)
        and ((wd is None and which_nd == 0) or (wd == d0 and which_nd == case_nd))
    ):
        return select_n_p.bind(which, *cases), d0
    size = axis_data.size
    case_shape = list(np.shape(cases[0]))
    if cds[0] is not None:
        del case_shape[cds[0]]
    full_shape = (size, *case_shape)
    # The predicate first, then the cases, as JAX orders the equations.
    if wd is not None or which_nd != 0:
        which = bdim_at_front(which, wd, size)
        if which_nd != case_nd:
            # A batched scalar predicate picks whole cases: expand it over the case's shape.
            which = _shape().broadcast_in_dim(which, full_shape, (0,))
    cases = [bdim_at_front(c, d, size) for c, d in zip(cases, cds)]
    return select_n_p.bind(which, *cases), 0


def _select_n_jvp(primals, tangents, primal_out):
    # The predicate is piecewise constant: the tangent selects among the cases' tangents.
    which = primals[0]
    case_tangents = tangents[1:]
    if all(type(t) is ad.Zero for t in case_tangents):
        return ad.Zero(ad.tangent_aval(core.get_aval(primal_out)))
    # One zero tangent, made whether a case needs it or not, as JAX's rule makes it (an
    # unused one prints as `_ = broadcast_in_dim 0.0`).
    zeros = _zeros(next(t for t in case_tangents if type(t) is not ad.Zero))
    return select_n_p.bind(which, *[zeros if type(t) is ad.Zero else t for t in case_tangents])


def _select_n_transpose(ct, which, *cases):
    if ad.is_undefined_primal(which):
        raise ValueError("select_n is not linear in its predicate: it cannot be transposed there")
    if type(ct) is ad.Zero:
        return [None] + [ad.Zero(c.aval) if ad.is_undefined_primal(c) else None for c in cases]
    zeros = _zeros(ct)
    # Each linear case receives the cotangent where it was selected, zero elsewhere: by the
    # bool predicate itself, or (an int32 one) where it equals the case's index, as JAX does.
    is_bool = np.dtype(core.get_aval(which).dtype) == np.bool_

    def ct_of(i):
        if is_bool:
            return select_n(which, *((ct, zeros) if i == 0 else (zeros, ct)))
        return select_n(eq(which, _const(which, i)), zeros, ct)

    return [None] + [ct_of(i) if ad.is_undefined_primal(c) else None for i, c in enumerate(cases)]


batching.primitive_batchers[select_n_p] = _select_n_vmap

sharding_rules.sharding_rules[select_n_p] = sharding_rules.elementwise_rule
sharding_rules.explicit_rules[select_n_p] = lambda specs, avals, **params: (
    sharding_rules.explicit_broadcast("select_n", specs, avals)
)
ad.primitive_jvps[select_n_p] = _select_n_jvp
ad.primitive_transposes[select_n_p] = _select_n_transpose


@over_key_data("lax.select", key_arrays.at(1, 2))
def select(pred, on_true, on_false):
    """``on_true`` where ``pred`` else ``on_false`` (``select_n(pred, on_false, on_true)``)."""
    return select_n_p.bind(pred, on_false, on_true)


def clamp(min, x, max):
    """Elementwise ``min(max(x, min), max)``; ``min`` and ``max`` may be scalars."""
    return clamp_p.bind(min, x, max)


def _clamp_shape(lo, x, hi):
    for name, b in (("min", lo), ("max", hi)):
        if b.shape and b.shape != x.shape:
            raise TypeError(
                f"clamp: {name} must be a scalar or have the operand's shape {x.shape}, got "
                f"{b.shape}."
            )
    return x.shape


def _clamp_dtype(lo, x, hi):
    if not (lo.dtype == x.dtype == hi.dtype):
        raise TypeError(
            f"clamp requires min, operand and max to have the same dtype, got "
            f"{lo.dtype.name}, {x.dtype.name}, {hi.dtype.name}."
        )
    return x.dtype


clamp_p = standard_primitive(
    "clamp",
    _clamp_shape,
    _clamp_dtype,
    lambda lo, x, hi: np.minimum(np.maximum(x, lo), hi),
    weak_type_rule=lambda lo, x, hi: x.weak_type,
)


def _clamp_vmap(axis_data, vals, dims):
    (lo, x, hi), (ld, xd, hd) = vals, dims
    x_nd = np.ndim(x) - (xd is not None)
    # Common case: bounds are unbatched scalars or batched like the operand.
    if xd is not None and all(
        (d is None and np.ndim(b) == 0) or (d == xd and np.ndim(b) == np.ndim(x))
        for b, d in ((lo, ld), (hi, hd))
    ):
        return clamp_p.bind(lo, x, hi), xd
    size = axis_data.size
    x = bdim_at_front(x, xd, size)
    bounds = []
    for b, d in ((lo, ld), (hi, hd)):
        if d is not None or np.ndim(b) != 0:
            b = bdim_at_front(b, d, size)
            if np.ndim(b) != x_nd + 1:
                # A batched scalar bound: expand it over the operand's shape.
                b = _shape().broadcast_in_dim(b, tuple(np.shape(x)), (0,))
        bounds.append(b)
    return clamp_p.bind(bounds[0], x, bounds[1]), 0


defjvp(
    clamp_p,
    # The bound that is attained carries the slope (the operand keeps it only strictly inside).
    lambda g, lo, x, hi: select_n(bitwise_and(gt(lo, x), lt(lo, hi)), _zeros(x), _bcast_like(g, x)),
    lambda g, lo, x, hi: select_n(bitwise_and(gt(x, lo), lt(x, hi)), _zeros(x), g),
    lambda g, lo, x, hi: select_n(lt(hi, x), _zeros(x), _bcast_like(g, x)),
)
batching.primitive_batchers[clamp_p] = _clamp_vmap
sharding_rules.sharding_rules[clamp_p] = sharding_rules.elementwise_rule


__all__ = [
    "clamp",
    "clamp_p",
    "select",
    "select_n",
    "select_n_p",
]
