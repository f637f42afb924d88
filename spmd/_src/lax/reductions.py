"""Reductions over axes (sum, product, max, min, logical and bitwise), arg-reductions, and
cumulative (scan-like) reductions.

Reductions accumulate in the operand's dtype; ``spmd.numpy`` upcasts float16/bfloat16 to
float32 around them, as XLA does on CPU.

>>> from spmd import lax
>>> lax.reduce_sum(jnp.arange(6).reshape(2, 3), (0,))
Array([3, 5, 7], dtype=int32)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from spmd._src import core, dtypes
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.lax import elementwise as lax_elem
from spmd._src.lax.elementwise.arithmetic import _balanced_eq
from spmd._src.lax.elementwise.common import _const, _dtype, _one, _zeros
from spmd._src.lax.rules import add_any, defjvp_zero, deflinear
from spmd._src.lax.threads import split_reduction
from spmd._src.lax.utils import (
    any_dtype,
    bool_or_int,
    check_dtype_kind,
    never_weak,
    numeric,
    pp_sharding,
    standard_primitive,
)
from spmd._src.sharding import PartitionSpec as P
from spmd._src.util import canonicalize_axis


def _axes(operand, axes: Sequence[int], fn: str) -> tuple[int, ...]:
    nd = np.ndim(operand)
    out = tuple(canonicalize_axis(a, nd, fn=fn) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"{fn}: duplicate value in axes {tuple(axes)}")
    return out


def _reduce_shape(x, *, axes, **_):
    for a in axes:
        if not 0 <= a < x.ndim:
            raise TypeError(f"reduction axes {axes} out of range for operand shape {x.shape}")
    return tuple(d for i, d in enumerate(x.shape) if i not in axes)


def _reduce_dtype(name, accepted):
    def rule(x, **_):
        check_dtype_kind(name, accepted, x)
        return x.dtype

    return rule


def _reduction(name, impl, accepted, weak_type_rule=None):
    return standard_primitive(
        name, _reduce_shape, _reduce_dtype(name, accepted), impl, weak_type_rule=weak_type_rule
    )


def _shape():
    # Imported when a rule runs, so that shape.py may import this module at load time.
    from spmd._src.lax import shape

    return shape


def _pad(*args):
    from spmd._src.lax.padding import pad  # lazy: as _shape (padding imports shape)

    return pad(*args)


def _reduce_batcher(prim):
    """Batching of a reduction over ``axes``: the axes skip the batch dimension, which stays
    (shifted left by the reduced axes before it)."""

    def rule(axis_data, vals, dims, *, axes, **params):
        (x,), (d,) = vals, dims
        # (NumPy ints, as JAX's rule computes them: its jaxprs print axes=(np.int64(1),).)
        new_axes = tuple(np.int64(a + (a >= d)) for a in axes)
        out_d = d - sum(a < d for a in new_axes)
        s = params.get("out_sharding")
        if s is not None:  # the result's sharding gains the mapped dimension (unsharded)
            spec = list(s.spec._normalized(x.ndim - 1 - len(axes)))
            params = {**params, "out_sharding": s.with_spec(P(*spec[:out_d], None, *spec[out_d:]))}
        return prim.bind(x, axes=new_axes, **params), out_d

    return rule


def _identity(kind: str, dtype: np.dtype):
    if kind == "max":
        if dtype == np.bool_:
            return False
        if dtypes.issubdtype(dtype, np.integer):
            return dtypes.iinfo(dtype).min
        return -np.inf
    if dtype == np.bool_:
        return True
    if dtypes.issubdtype(dtype, np.integer):
        return dtypes.iinfo(dtype).max
    return np.inf


# ---------------------------------------------------------------------------------------------


def reduce_sum(operand, axes: Sequence[int], *, out_sharding=None):
    """Sum over ``axes``."""
    return reduce_sum_p.bind(
        operand, axes=_axes(operand, axes, "reduce_sum"), out_sharding=out_sharding
    )


@split_reduction(np.add)
def _reduce_sum_impl(x, *, axes, out_sharding):
    with np.errstate(all="ignore"):
        return np.sum(x, axis=axes, dtype=x.dtype)


reduce_sum_p = _reduction("reduce_sum", _reduce_sum_impl, numeric)


def _reduce_sum_transpose(ct, x, *, axes, out_sharding):
    from spmd._src.lax import shape

    shape_in = x.aval.shape
    # NumPy integers, as JAX's rule computes them (its jaxprs print ``np.int64(1)``).
    kept = tuple(np.delete(np.arange(len(shape_in)), axes)) if len(axes) < len(shape_in) else ()
    # The cotangent takes the operand's sharding in type (Explicit axes), as in JAX.
    return [shape.broadcast_in_dim(ct, shape_in, kept, out_sharding=x.sharding)]


batching.primitive_batchers[reduce_sum_p] = _reduce_batcher(reduce_sum_p)
deflinear(reduce_sum_p, _reduce_sum_transpose)


def reduce_prod(operand, axes: Sequence[int], *, out_sharding=None):
    """Product over ``axes``."""
    return reduce_prod_p.bind(
        operand, axes=_axes(operand, axes, "reduce_prod"), out_sharding=out_sharding
    )


@split_reduction(np.multiply)
def _reduce_prod_impl(x, *, axes, out_sharding):
    with np.errstate(all="ignore"):
        return np.prod(x, axis=axes, dtype=x.dtype)


reduce_prod_p = _reduction("reduce_prod", _reduce_prod_impl, numeric)


def _exclusive_cumprod(x, axis, reverse):
    """Products of the elements strictly before (after, if ``reverse``) each one."""
    n = np.ndim(x)
    incl = cumprod(x, axis, reverse=reverse)
    cfg = [(0, 0, 0)] * n
    # Shift by one along ``axis``, bringing in the multiplicative identity.
    cfg[axis] = (-1, 1, 0) if reverse else (1, -1, 0)
    return _pad(incl, _one(x), cfg)


def _reduce_prod_jvp(primals, tangents, primal_out, *, axes, out_sharding):
    (x,), (t,) = primals, tangents
    if not axes:
        return t
    # d prod = sum_j t_j * prod_{k != j} x_k. The product of the others is the exclusive
    # product from the left times that from the right: no division, so zeros are exact.
    shp = _shape()
    shape = tuple(np.shape(x))
    if len(axes) == 1:
        (a,) = axes
        others = lax_elem.mul(_exclusive_cumprod(x, a, False), _exclusive_cumprod(x, a, True))
    else:
        kept = [i for i in range(len(shape)) if i not in axes]
        perm = kept + list(axes)
        n = int(np.prod([shape[a] for a in axes]))
        flat = shp.reshape(shp.transpose(x, perm), tuple(shape[i] for i in kept) + (n,))
        last = len(kept)
        o = lax_elem.mul(
            _exclusive_cumprod(flat, last, False), _exclusive_cumprod(flat, last, True)
        )
        o = shp.reshape(o, tuple(shape[i] for i in perm))
        others = shp.transpose(o, tuple(int(i) for i in np.argsort(perm)))
    return reduce_sum(lax_elem.mul(t, others), axes)


batching.primitive_batchers[reduce_prod_p] = _reduce_batcher(reduce_prod_p)
ad.primitive_jvps[reduce_prod_p] = _reduce_prod_jvp


def reduce_max(operand, axes: Sequence[int], *, out_sharding=None):
    """Maximum over ``axes`` (NaN propagates; -inf or the dtype's min for empty axes)."""
    return reduce_max_p.bind(
        operand, axes=_axes(operand, axes, "reduce_max"), out_sharding=out_sharding
    )


@split_reduction(np.maximum)
def _reduce_max_impl(x, *, axes, out_sharding):
    # NaN propagates silently (ml_dtypes' comparisons would warn).
    with np.errstate(invalid="ignore"):
        return np.max(x, axis=axes, initial=_identity("max", x.dtype))


reduce_max_p = _reduction("reduce_max", _reduce_max_impl, any_dtype)


def _reduce_chooser_jvp(primals, tangents, primal_out, *, axes, out_sharding):
    (x,), (t,) = primals, tangents
    # The slope goes to the elements that attain the extremum, split evenly among ties.
    shape = tuple(np.shape(x))
    kept_shape = tuple(1 if i in axes else d for i, d in enumerate(shape))
    ans = _shape().reshape(primal_out, kept_shape)
    where = lax_elem.convert_element_type(lax_elem.eq(x, ans), _dtype(t))
    counts = reduce_sum(where, axes)
    return lax_elem.div(reduce_sum(lax_elem.mul(t, where), axes), counts)


batching.primitive_batchers[reduce_max_p] = _reduce_batcher(reduce_max_p)
ad.primitive_jvps[reduce_max_p] = _reduce_chooser_jvp


def reduce_min(operand, axes: Sequence[int], *, out_sharding=None):
    """Minimum over ``axes`` (NaN propagates; inf or the dtype's max for empty axes)."""
    return reduce_min_p.bind(
        operand, axes=_axes(operand, axes, "reduce_min"), out_sharding=out_sharding
    )


@split_reduction(np.minimum)
def _reduce_min_impl(x, *, axes, out_sharding):
    with np.errstate(invalid="ignore"):
        return np.min(x, axis=axes, initial=_identity("min", x.dtype))


reduce_min_p = _reduction("reduce_min", _reduce_min_impl, any_dtype)
batching.primitive_batchers[reduce_min_p] = _reduce_batcher(reduce_min_p)
ad.primitive_jvps[reduce_min_p] = _reduce_chooser_jvp


def reduce_and(operand, axes: Sequence[int], *, out_sharding=None):
    """Logical (bool) or bitwise (int) and over ``axes``."""
    return reduce_and_p.bind(
        operand, axes=_axes(operand, axes, "reduce_and"), out_sharding=out_sharding
    )


def _reduce_and_impl(x, *, axes, out_sharding):
    if x.dtype == np.bool_:
        return np.all(x, axis=axes)
    return np.bitwise_and.reduce(
        x, axis=axes, initial=-1 if x.dtype.kind == "i" else np.iinfo(x.dtype).max
    )


# JAX drops the weak type in the logical/bitwise reductions (not in sum, prod, max, min).
reduce_and_p = _reduction("reduce_and", _reduce_and_impl, bool_or_int, never_weak)


def reduce_or(operand, axes: Sequence[int], *, out_sharding=None):
    """Logical (bool) or bitwise (int) or over ``axes``."""
    return reduce_or_p.bind(
        operand, axes=_axes(operand, axes, "reduce_or"), out_sharding=out_sharding
    )


def _reduce_or_impl(x, *, axes, out_sharding):
    if x.dtype == np.bool_:
        return np.any(x, axis=axes)
    return np.bitwise_or.reduce(x, axis=axes, initial=0)


reduce_or_p = _reduction("reduce_or", _reduce_or_impl, bool_or_int, never_weak)


def reduce_xor(operand, axes: Sequence[int], *, out_sharding=None):
    """Logical (bool) or bitwise (int) exclusive or over ``axes``."""
    return reduce_xor_p.bind(
        operand, axes=_axes(operand, axes, "reduce_xor"), out_sharding=out_sharding
    )


def _reduce_xor_impl(x, *, axes, out_sharding):
    return np.bitwise_xor.reduce(x, axis=axes, initial=False if x.dtype == np.bool_ else 0)


reduce_xor_p = _reduction("reduce_xor", _reduce_xor_impl, bool_or_int, never_weak)

for _p in (reduce_and_p, reduce_or_p, reduce_xor_p):
    batching.primitive_batchers[_p] = _reduce_batcher(_p)
    defjvp_zero(_p)


# JAX prints out_sharding on reduce_sum only (the others hide it when it is None), on its
# abstract mesh.
def _hide_none_sharding(params):
    return [
        (k, pp_sharding(v) if k == "out_sharding" else v)
        for k, v in sorted(params.items())
        if not (k == "out_sharding" and v is None)
    ]


for _p in (reduce_prod_p, reduce_max_p, reduce_min_p, reduce_and_p, reduce_or_p, reduce_xor_p):
    core.pp_param_rules[_p] = _hide_none_sharding
core.pp_param_rules[reduce_sum_p] = lambda params: [
    (k, pp_sharding(v) if k == "out_sharding" else v) for k, v in sorted(params.items())
]
# On Explicit mesh axes a reduction's result has the type its out_sharding asks for.
for _p in (reduce_sum_p, reduce_prod_p, reduce_max_p, reduce_min_p):
    sharding_rules.sharding_params[_p] = "out_sharding"


# ---------------------------------------------------------------------------------------------
# argmax / argmin


def argmax(operand, axis: int, index_dtype):
    """Index of the maximum along ``axis`` (the first one on ties; NaN counts as largest)."""
    axis = canonicalize_axis(axis, np.ndim(operand), fn="argmax")
    return argmax_p.bind(operand, axes=(axis,), index_dtype=dtypes.canonicalize_dtype(index_dtype))


def argmin(operand, axis: int, index_dtype):
    """Index of the minimum along ``axis`` (the first one on ties; NaN counts as smallest)."""
    axis = canonicalize_axis(axis, np.ndim(operand), fn="argmin")
    return argmin_p.bind(operand, axes=(axis,), index_dtype=dtypes.canonicalize_dtype(index_dtype))


def _arg_shape_rule(name):
    def rule(x, *, axes, index_dtype):
        (axis,) = axes
        if not 0 <= axis < x.ndim:
            raise ValueError(f"{name}: axis {axis} is out of bounds for operand of shape {x.shape}")
        if x.shape[axis] == 0:
            raise ValueError(
                f"attempt to get {name} of an empty sequence (axis {axis} of shape {x.shape})"
            )
        return tuple(d for i, d in enumerate(x.shape) if i != axis)

    return rule


def _arg_dtype(x, *, axes, index_dtype):
    if not dtypes.issubdtype(index_dtype, np.integer):
        raise TypeError(f"index_dtype must be an integer type, got {np.dtype(index_dtype).name}")
    return np.dtype(index_dtype)


def _argmax_impl(x, *, axes, index_dtype):
    # The first NaN wins, as in XLA: NumPy's argmax already does that.
    with np.errstate(invalid="ignore"):
        return np.argmax(x, axis=axes[0]).astype(index_dtype)


def _argmin_impl(x, *, axes, index_dtype):
    with np.errstate(invalid="ignore"):
        return np.argmin(x, axis=axes[0]).astype(index_dtype)


argmax_p = standard_primitive(
    "argmax",
    _arg_shape_rule("argmax"),
    _arg_dtype,
    _argmax_impl,
    weak_type_rule=lambda x, **_: False,
)
argmin_p = standard_primitive(
    "argmin",
    _arg_shape_rule("argmin"),
    _arg_dtype,
    _argmin_impl,
    weak_type_rule=lambda x, **_: False,
)
for _p in (argmax_p, argmin_p):
    batching.primitive_batchers[_p] = _reduce_batcher(_p)
    defjvp_zero(_p)


# ---------------------------------------------------------------------------------------------
# Cumulative reductions


def _cumulative(name, ufunc, accepted):
    def impl(x, *, axis, reverse):
        if reverse:
            x = np.flip(x, axis)
        with np.errstate(all="ignore"):
            if ufunc is np.add:
                out = np.cumsum(x, axis=axis, dtype=x.dtype)
            elif ufunc is np.multiply:
                out = np.cumprod(x, axis=axis, dtype=x.dtype)
            else:
                out = ufunc.accumulate(x, axis=axis, dtype=x.dtype)
        return np.flip(out, axis) if reverse else out

    def shape_rule(x, *, axis, reverse):
        if not 0 <= axis < max(x.ndim, 1):
            raise ValueError(f"{name}: axis {axis} out of range for shape {x.shape}")
        return x.shape

    def dtype_rule(x, *, axis, reverse):
        check_dtype_kind(name, accepted, x)
        return x.dtype

    prim = standard_primitive(name, shape_rule, dtype_rule, impl)

    def wrapper(operand, axis: int = 0, reverse: bool = False):
        axis = canonicalize_axis(axis, np.ndim(operand), fn=name)
        return prim.bind(operand, axis=axis, reverse=bool(reverse))

    return prim, wrapper


cumsum_p, cumsum = _cumulative("cumsum", np.add, numeric)
cumsum.__doc__ = "Cumulative sum along ``axis`` (from the end when ``reverse``)."
cumprod_p, cumprod = _cumulative("cumprod", np.multiply, numeric)
cumprod.__doc__ = "Cumulative product along ``axis``."
cummax_p, cummax = _cumulative("cummax", np.maximum, any_dtype)
cummax.__doc__ = "Cumulative maximum along ``axis``."
cummin_p, cummin = _cumulative("cummin", np.minimum, any_dtype)
cummin.__doc__ = "Cumulative minimum along ``axis``."
cumlogsumexp_p, cumlogsumexp = _cumulative("cumlogsumexp", np.logaddexp, frozenset({"float"}))
cumlogsumexp.__doc__ = "Cumulative log-sum-exp along ``axis``."


def _cumulative_batcher(prim):
    def rule(axis_data, vals, dims, *, axis, reverse):
        (x,), (d,) = vals, dims
        return prim.bind(x, axis=axis + (axis >= d), reverse=reverse), d

    return rule


def _interleave(a, b, axis):
    """Elements of ``a`` and ``b`` alternating along ``axis``, starting with ``a`` (which has
    as many elements as ``b`` or one more)."""
    nd = np.ndim(a)
    same = np.shape(a)[axis] == np.shape(b)[axis]
    cfg_a, cfg_b = [(0, 0, 0)] * nd, [(0, 0, 0)] * nd
    cfg_a[axis] = (0, 1 if same else 0, 1)
    cfg_b[axis] = (1, 0 if same else 1, 1)
    zero = _const(a, 0)
    return lax_elem.add(_pad(a, zero, cfg_a), _pad(b, zero, cfg_b))


def _prefix_scan(combine, elems, axis):
    """Inclusive prefix combination along ``axis`` of the arrays ``elems``, a list combined
    elementwise by the associative ``combine(list_a, list_b) -> list``.

    Neighbours are paired and the pairs scanned recursively (log depth); this is the tree of
    JAX's ``associative_scan``, so ties in max/min split their slope the same way.
    """
    shp = _shape()
    n = np.shape(elems[0])[axis]
    if n < 2:
        return elems

    def sl(e, start, stop, stride=1):
        return shp.slice_in_dim(e, start, stop, stride, axis)

    pairs = combine([sl(e, 0, n - 1, 2) for e in elems], [sl(e, 1, n, 2) for e in elems])
    odd = _prefix_scan(combine, pairs, axis)  # results at positions 1, 3, 5, ...
    firsts = [sl(e, 0, 1) for e in elems]
    if n == 2:
        even = firsts
    else:
        rest = [sl(e, 2, n, 2) for e in elems]  # positions 2, 4, ...
        if n % 2 == 0:
            m = np.shape(odd[0])[axis]
            odd_before = [sl(o, 0, m - 1) for o in odd]
        else:
            odd_before = odd
        even = [shp.concatenate([f, r], axis) for f, r in zip(firsts, combine(odd_before, rest))]
    return [_interleave(a, b, axis) for a, b in zip(even, odd)]


def _cumulative_jvp(combine):
    """The jvp of a cumulative reduction: a prefix scan of (value, tangent) pairs whose
    ``combine`` is the reduction's binary operation with its own jvp."""

    def rule(primals, tangents, primal_out, *, axis, reverse):
        (x,), (t,) = primals, tangents
        if reverse:
            x, t = _shape().rev(x, (axis,)), _shape().rev(t, (axis,))
        _, t_out = _prefix_scan(combine, [x, t], axis)
        return _shape().rev(t_out, (axis,)) if reverse else t_out

    return rule


def _mul_combine(a, b):
    (xa, ta), (xb, tb) = a, b
    return [lax_elem.mul(xa, xb), add_any(lax_elem.mul(ta, xb), lax_elem.mul(xa, tb))]


def _chooser_combine(op):
    def combine(a, b):
        (xa, ta), (xb, tb) = a, b
        out = op(xa, xb)
        ga = lax_elem.mul(ta, _balanced_eq(xa, out, xb))
        gb = lax_elem.mul(tb, _balanced_eq(xb, out, xa))
        return [out, add_any(ga, gb)]

    return combine


def _logaddexp(a, b):
    e = lax_elem
    delta = e.sub(a, b)
    big = e.add(e.max(a, b), e.log1p(e.exp(e.neg(e.abs(delta)))))
    # Equal infinities give a NaN difference; their sum is the answer.
    return e.select_n(e.ne(delta, delta), big, e.add(a, b))


def _without_posinf(x):
    e = lax_elem
    return e.select_n(e.eq(x, _const(x, np.inf)), x, _zeros(x))


def _logaddexp_combine(a, b):
    (xa, ta), (xb, tb) = a, b
    e = lax_elem
    out = _logaddexp(xa, xb)
    # Weights exp(x - out), with +inf read as 0 on both sides (so inf - inf is not NaN).
    ref = _without_posinf(out)
    ga = e.mul(ta, e.exp(e.sub(_without_posinf(xa), ref)))
    gb = e.mul(tb, e.exp(e.sub(_without_posinf(xb), ref)))
    return [out, e.add(ga, gb)]


for _p in (cumsum_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p):
    batching.primitive_batchers[_p] = _cumulative_batcher(_p)
    sharding_rules.sharding_rules[_p] = sharding_rules.unary_rule


def _cumulative_sharding_explicit(specs, avals, *, axis, reverse):
    if specs[0][axis] is not None:
        raise sharding_rules.ShardingTypeError(
            "Input should be unsharded over the axis being reduced. Got input type="
            f"{sharding_rules.type_str(avals[0], specs[0], short=False)} and axis={axis}"
        )
    return tuple(specs[0])


for _p in (cumsum_p, cumprod_p, cummax_p, cummin_p, cumlogsumexp_p):
    sharding_rules.explicit_rules[_p] = _cumulative_sharding_explicit
deflinear(cumsum_p, lambda ct, x, *, axis, reverse: [cumsum(ct, axis, reverse=not reverse)])
ad.primitive_jvps[cumprod_p] = _cumulative_jvp(_mul_combine)
ad.primitive_jvps[cummax_p] = _cumulative_jvp(_chooser_combine(lax_elem.max))
ad.primitive_jvps[cummin_p] = _cumulative_jvp(_chooser_combine(lax_elem.min))
ad.primitive_jvps[cumlogsumexp_p] = _cumulative_jvp(_logaddexp_combine)


__all__ = [
    "argmax",
    "argmax_p",
    "argmin",
    "argmin_p",
    "cumlogsumexp",
    "cumlogsumexp_p",
    "cummax",
    "cummax_p",
    "cummin",
    "cummin_p",
    "cumprod",
    "cumprod_p",
    "cumsum",
    "cumsum_p",
    "reduce_and",
    "reduce_and_p",
    "reduce_max",
    "reduce_max_p",
    "reduce_min",
    "reduce_min_p",
    "reduce_or",
    "reduce_or_p",
    "reduce_prod",
    "reduce_prod_p",
    "reduce_sum",
    "reduce_sum_p",
    "reduce_xor",
    "reduce_xor_p",
]


# Sharding propagation: a reduction drops the reduced dimensions' mesh axes.


def _reduction_backward(want, in_avals, out_aval, *, axes, **_):
    # The kept dimensions keep their wanted axes; the reduced ones are left free.
    rest = iter(want)
    return [tuple(None if i in axes else next(rest) for i in range(in_avals[0].ndim))]


for _p in (
    reduce_sum_p,
    reduce_prod_p,
    reduce_max_p,
    reduce_min_p,
    reduce_and_p,
    reduce_or_p,
    reduce_xor_p,
    argmax_p,
    argmin_p,
):
    sharding_rules.sharding_rules[_p] = sharding_rules.reduction_rule
    sharding_rules.backward_rules[_p] = _reduction_backward
