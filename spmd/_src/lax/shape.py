"""Shape primitives: broadcasting, reshaping, transposition, slicing, padding, joining and
splitting, and ``iota`` (``stack`` and ``tile`` are in ``copies``). All move or copy data; none
computes.

>>> from spmd import lax
>>> lax.broadcast_in_dim(jnp.arange(3), (2, 3), (1,))
Array([[0, 1, 2],
       [0, 1, 2]], dtype=int32)
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes, key_arrays
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.key_arrays import over_key_data
from spmd._src.lax.placing import like_sharding, place
from spmd._src.lax.rules import bdim_at_front, deflinear, moveaxis
from spmd._src.lax.utils import pp_sharding, standard_primitive
from spmd._src.sharding import (
    NamedSharding,
    PartitionSpec,
    resolve_spec,
    uneven_dims,
    uneven_message,
)
from spmd._src.util import canonicalize_axis, prod


def _ints(xs: Sequence[Any]) -> tuple[int, ...]:
    return tuple(operator.index(x) for x in xs)


def _int_param(v: Any) -> Any:
    # NumPy integers are kept as they are: jnp.pad and jnp.split pass np.int64 sizes, and JAX's
    # jaxprs print them as such (``sizes=(np.int64(1), ...)``).
    return v if isinstance(v, np.integer) else operator.index(v)


def _same_weak(x, *_, **__) -> bool:
    return x.weak_type


def _keep_dtype(x, *_, **__):
    return x.dtype


def _hide(*names: str, when_none: Sequence[str] = (), when_empty: Sequence[str] = ()):
    """A param-printing rule that hides some parameters (as JAX's printer does)."""

    def rule(params):
        out = []
        for k, v in sorted(params.items()):
            if k in names:
                continue
            if k in when_none and v is None:
                continue
            if k in when_empty and v == ():
                continue
            out.append((k, v))
        return out

    return rule


def _sharding_param(out_sharding: Any, name: str) -> Any:
    """``out_sharding`` as the primitive's ``sharding`` parameter: None or a NamedSharding (a
    PartitionSpec names axes of the mesh in context: ValueError without one, as JAX's)."""
    if out_sharding is None or isinstance(out_sharding, NamedSharding):
        return out_sharding
    if isinstance(out_sharding, PartitionSpec):
        return resolve_spec(out_sharding, f"lax.{name} out_sharding", ValueError)
    raise TypeError(
        f"lax.{name}: out_sharding must be a NamedSharding or a PartitionSpec, got "
        f"{type(out_sharding).__name__}"
    )


def _batched_sharding(sharding: Any, ndim: int, x: Any) -> Any:
    """A ``sharding`` parameter for the result of rank ``ndim`` with a leading mapped
    dimension added, sharded as that of the batched operand ``x`` (its dimension 0), as in
    JAX."""
    if sharding is None:
        return None
    typed = sharding_rules.type_sharding(x)
    lead = typed.spec._normalized(np.ndim(x))[0] if typed is not None else None
    return sharding.with_spec(PartitionSpec(lead, *sharding.spec._normalized(ndim)))


def _typed_as(x: Any, sharding: NamedSharding) -> bool:
    """Whether ``x``'s sharding in type (unsharded if none) is ``sharding``."""
    n = np.ndim(x)
    have = sharding_rules.type_sharding(x)
    have_spec = have.spec._normalized(n) if have is not None else (None,) * n
    return have_spec == sharding.spec._normalized(n)


def _check_sharding_param(sharding: Any, shape: Sequence[int], name: str) -> None:
    # The shards of the result a ``sharding`` parameter asks for must divide its dimensions.
    if isinstance(sharding, NamedSharding):
        if len(sharding.spec) > len(shape):
            raise ValueError(
                f"lax.{name}: out_sharding {sharding.spec} has {len(sharding.spec)} entries, "
                f"but the result has rank {len(shape)} (shape {tuple(shape)})."
            )
        bad = uneven_dims(sharding, tuple(shape))
        if bad:
            raise ValueError(f"lax.{name}: {uneven_message(sharding, tuple(shape), bad)}")


def _shape_primitive(name, shape_rule, impl, dtype_rule=_keep_dtype, weak=_same_weak):
    return standard_primitive(name, shape_rule, dtype_rule, impl, weak_type_rule=weak)


# The reductions and elementwise modules import this one (through rules.py) to build their own
# rules, so they are imported when a rule runs, not at import time.
def _reduce_sum(x, axes: Sequence[int], out_sharding=None):
    from spmd._src.lax.reductions import reduce_sum

    return reduce_sum(x, tuple(axes), out_sharding=out_sharding) if axes else x


def _elementwise():
    from spmd._src.lax import elementwise

    return elementwise


def _zero_scalar(dtype) -> Any:
    return core.make_concrete(np.zeros((), dtype), False)


def _bool_scalar(v: bool) -> Any:
    return core.make_concrete(np.asarray(v, np.bool_), False)


# ---------------------------------------------------------------------------------------------
# broadcast_in_dim


@over_key_data("lax.broadcast_in_dim")
def broadcast_in_dim(
    operand, shape: Sequence[int], broadcast_dimensions: Sequence[int], *, out_sharding=None
):
    """Broadcast ``operand`` to ``shape``; operand dimension i becomes dimension
    ``broadcast_dimensions[i]`` of the result (its size must match or be 1)."""
    shape = _ints(shape)
    bd = tuple(_int_param(d) for d in broadcast_dimensions)
    if (
        np.ndim(operand) == len(shape)
        and np.shape(operand) == shape
        and bd == tuple(range(len(shape)))
    ):
        return operand
    return broadcast_in_dim_p.bind(
        operand,
        shape=shape,
        broadcast_dimensions=bd,
        sharding=_sharding_param(out_sharding, "broadcast_in_dim"),
    )


def _broadcast_in_dim_shape(x, *, shape, broadcast_dimensions, sharding):
    if len(broadcast_dimensions) != x.ndim:
        raise TypeError(
            f"broadcast_in_dim: broadcast_dimensions {broadcast_dimensions} must have one entry "
            f"per operand dimension; operand has shape {x.shape}."
        )
    if any(s < 0 for s in shape):
        raise TypeError(f"broadcast_in_dim: shape {shape} has negative dimensions.")
    if list(broadcast_dimensions) != sorted(set(broadcast_dimensions)):
        raise TypeError(
            f"broadcast_in_dim: broadcast_dimensions {broadcast_dimensions} must be strictly "
            "increasing."
        )
    for i, d in enumerate(broadcast_dimensions):
        if not 0 <= d < len(shape):
            raise TypeError(
                f"broadcast_in_dim: broadcast_dimensions {broadcast_dimensions} out of range for "
                f"result shape {shape}."
            )
        if x.shape[i] != 1 and x.shape[i] != shape[d]:
            raise TypeError(
                f"broadcast_in_dim: operand dimension {i} has size {x.shape[i]}, which cannot "
                f"broadcast to size {shape[d]} of result dimension {d} (shape {shape})."
            )
    _check_sharding_param(sharding, shape, "broadcast_in_dim")
    return shape


def _broadcast_in_dim_impl(x, *, shape, broadcast_dimensions, sharding):
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    # A read-only stride-0 view: no copy, as a replicated axis should cost nothing.
    return np.broadcast_to(np.reshape(x, expanded), shape)


broadcast_in_dim_p = _shape_primitive(
    "broadcast_in_dim", _broadcast_in_dim_shape, _broadcast_in_dim_impl
)
# JAX prints neither the shape nor the sharding (the result's type shows both).
core.pp_param_rules[broadcast_in_dim_p] = _hide(
    "shape", "sharding", when_empty=("broadcast_dimensions",)
)


def _broadcast_in_dim_vmap(axis_data, vals, dims, *, shape, broadcast_dimensions, sharding):
    (x,), (d,) = vals, dims
    x = moveaxis(x, d, 0)
    out_shape = (x.shape[0], *shape)
    # NumPy arithmetic, as JAX's rule: printed programs show np.int64 dimensions.
    bd = (0, *np.add(1, broadcast_dimensions, dtype=np.int64)) if broadcast_dimensions else (0,)
    sharding = _batched_sharding(sharding, len(shape), x)
    return broadcast_in_dim_p.bind(
        x, shape=out_shape, broadcast_dimensions=bd, sharding=sharding
    ), 0


def _broadcast_in_dim_transpose(ct, x, *, shape, broadcast_dimensions, sharding):
    in_shape = x.aval.shape
    # Sum over every result dimension that is not an operand dimension of size > 1 (new
    # dimensions and expanded unit dimensions), then put the unit dimensions back.
    unit = [i for i, s in enumerate(in_shape) if s == 1]
    kept = [b for i, b in enumerate(broadcast_dimensions) if i not in unit]
    # The cotangent takes the operand's sharding in type (Explicit axes), as in JAX.
    summed = _reduce_sum(
        ct, [i for i in range(len(shape)) if i not in kept], None if unit else x.sharding
    )
    return [expand_dims(summed, unit) if unit else summed]


batching.primitive_batchers[broadcast_in_dim_p] = _broadcast_in_dim_vmap


def _broadcast_in_dim_sharding(specs, avals, *, shape, broadcast_dimensions, sharding):
    # Operand dimensions keep their axes (size-1 ones that grow do not); new ones are whole.
    out: list = [None] * len(shape)
    for e, d, i in zip(specs[0], avals[0].shape, broadcast_dimensions):
        out[i] = e if d == shape[i] else None
    return tuple(out)


sharding_rules.sharding_rules[broadcast_in_dim_p] = _broadcast_in_dim_sharding
sharding_rules.sharding_params[broadcast_in_dim_p] = "sharding"


def _broadcast_in_dim_backward(want, in_avals, out_aval, *, shape, broadcast_dimensions, **_):
    # Operand dimension i is result dimension broadcast_dimensions[i] (unless it is a size-1
    # dimension broadcast out).
    (a,) = in_avals[:1]
    spec = tuple(
        want[d] if a.shape[i] == shape[d] else None for i, d in enumerate(broadcast_dimensions)
    )
    return [spec] + [None] * (len(in_avals) - 1)


sharding_rules.backward_rules[broadcast_in_dim_p] = _broadcast_in_dim_backward
deflinear(broadcast_in_dim_p, _broadcast_in_dim_transpose)


@over_key_data("lax.broadcast")
def broadcast(operand, sizes: Sequence[int], *, out_sharding=None):
    """Add leading dimensions of the given ``sizes``."""
    sizes = _ints(sizes)
    nd = np.ndim(operand)
    shape = sizes + tuple(np.shape(operand))
    return broadcast_in_dim(operand, shape, tuple(range(len(sizes), len(sizes) + nd)))


def broadcast_to_rank(x, rank: int):
    nd = np.ndim(x)
    if nd == rank:
        return x
    return broadcast(x, (1,) * (rank - nd))


@over_key_data("lax.expand_dims")
def expand_dims(array, dimensions: Sequence[int]):
    """Insert size-1 dimensions at ``dimensions`` (positions in the result)."""
    dims = tuple(dimensions)
    nd = np.ndim(array) + len(dims)
    dims_set = sorted({canonicalize_axis(d, nd, fn="expand_dims") for d in dims})
    result = list(np.shape(array))
    for d in dims_set:
        result.insert(d, 1)
    bd = tuple(i for i in range(nd) if i not in dims_set)
    return broadcast_in_dim(array, tuple(result), bd)


# ---------------------------------------------------------------------------------------------
# reshape


@over_key_data("lax.reshape")
def reshape(
    operand, new_sizes: Sequence[int], dimensions: Sequence[int] | None = None, *, out_sharding=None
):
    """Reshape to ``new_sizes`` (after transposing by ``dimensions``, if given).

    >>> lax.reshape(jnp.arange(6), (2, 3))
    Array([[0, 1, 2],
           [3, 4, 5]], dtype=int32)
    """
    new_sizes = _ints(new_sizes)
    dims = None if dimensions is None else _ints(dimensions)
    if dims is not None and dims == tuple(range(len(dims))):
        dims = None
    sharding = _sharding_param(out_sharding, "reshape")
    if dims is None and tuple(np.shape(operand)) == new_sizes:
        if sharding is None or _typed_as(operand, sharding):
            return operand  # (a sharding other than its type's makes it a retyping)
    return reshape_p.bind(operand, new_sizes=new_sizes, dimensions=dims, sharding=sharding)


def _reshape_shape(x, *, new_sizes, dimensions, sharding):
    if any(d < 0 for d in new_sizes):
        raise TypeError(f"reshape new_sizes must all be non-negative, got {new_sizes}.")
    if prod(new_sizes) != x.size:
        raise TypeError(
            f"cannot reshape array of shape {x.shape} (size {x.size}) into shape {new_sizes} "
            f"(size {prod(new_sizes)})"
        )
    if dimensions is not None and sorted(dimensions) != list(range(x.ndim)):
        raise TypeError(
            f"reshape dimensions must be a permutation of the operand dimensions, got "
            f"{dimensions} for shape {x.shape}."
        )
    _check_sharding_param(sharding, new_sizes, "reshape")
    return new_sizes


def _reshape_impl(x, *, new_sizes, dimensions, sharding):
    if dimensions is not None:
        x = np.transpose(x, dimensions)
    return np.reshape(x, new_sizes)


reshape_p = _shape_primitive("reshape", _reshape_shape, _reshape_impl)
core.pp_param_rules[reshape_p] = lambda params: [
    (k, pp_sharding(v) if k == "sharding" else v) for k, v in sorted(params.items())
]


def _reshape_vmap(axis_data, vals, dims, *, new_sizes, dimensions, sharding):
    (x,), (d,) = vals, dims
    x = moveaxis(x, d, 0)
    if dimensions is not None:
        dimensions = (0, *(p + 1 for p in dimensions))
    sharding = _batched_sharding(sharding, len(new_sizes), x)
    out = reshape_p.bind(
        x, new_sizes=(x.shape[0], *new_sizes), dimensions=dimensions, sharding=sharding
    )
    return out, 0


def _reshape_transpose(ct, x, *, new_sizes, dimensions, sharding):
    shape = x.aval.shape
    if dimensions is None:
        # The cotangent takes the operand's sharding in type (Explicit axes), as in JAX.
        return [reshape(ct, shape, out_sharding=x.sharding)]
    # Undo the reshape into the transposed layout, then the transposition.
    back = reshape(ct, tuple(shape[p] for p in dimensions))
    return [transpose(back, tuple(np.argsort(dimensions)))]


batching.primitive_batchers[reshape_p] = _reshape_vmap


def _reshape_sharding(specs, avals, *, new_sizes, dimensions, sharding):
    # Dimensions map through their common factors (sharding_rules.reshape_spec); axes that
    # cannot follow are dropped (Auto) or refused (Explicit).
    spec, whole = sharding_rules.reshape_spec(specs[0], avals[0].shape, new_sizes)
    return spec


def _reshape_sharding_explicit(specs, avals, *, new_sizes, dimensions, sharding):
    # Sharding in types: between the boundaries both shapes share, a run of dimensions merges
    # into one (its axes concatenate: the sharded ones must lead) or one splits into several
    # (the axes go to the leading parts as they divide); anything else must be unsharded.
    spec, in_shape = specs[0], avals[0].shape
    kept = [k for k, d in enumerate(in_shape) if d != 1]
    if [in_shape[k] for k in kept] == [d for d in new_sizes if d != 1]:
        # Only singleton dimensions come or go (f32[1,8@X] -> f32[8@X]): the others keep theirs.
        entries = iter(spec[k] for k in kept)
        return tuple(None if d == 1 else next(entries) for d in new_sizes)
    in_cum = sharding_rules._cumprods(in_shape)
    out_cum = sharding_rules._cumprods(new_sizes)
    common = sorted(set(in_cum) & set(out_cum))
    out: list = []
    ok = True
    i = j = 0
    for c in common:
        ins = [k for k in range(i, len(in_shape)) if in_cum[k] <= c]
        outs = [k for k in range(j, len(new_sizes)) if out_cum[k] <= c]
        i, j = (ins[-1] + 1 if ins else i), (outs[-1] + 1 if outs else j)
        entries = [spec[k] for k in ins]
        if len(outs) == 1:
            axes = [a for e in entries for a in sharding_rules.spec_axes(e)]
            sharded = [e is not None for e in entries]
            ok = ok and sharded == sorted(sharded, reverse=True)
            out.append(sharding_rules.as_entry(axes))
        elif len(ins) == 1:
            part, whole = sharding_rules.reshape_spec(
                entries, [in_shape[k] for k in ins], [new_sizes[k] for k in outs]
            )
            ok = ok and whole
            out.extend(part)
        else:
            ok = ok and all(e is None for e in entries)
            out.extend([None] * len(outs))
    out.extend([None] * (len(new_sizes) - len(out)))
    if not ok or i != len(in_shape):
        raise sharding_rules.ShardingTypeError(
            "This reshape is not supported. Please specify the sharding of the output via the "
            "`out_sharding` argument of jax.lax.reshape. Got operand type: "
            f"{sharding_rules.type_str(avals[0], specs[0], short=False)}, new sizes: "
            f"{tuple(new_sizes)}"
        )
    return tuple(out)


sharding_rules.sharding_rules[reshape_p] = _reshape_sharding
sharding_rules.backward_rules[reshape_p] = lambda want, in_avals, out_aval, **_: (
    [sharding_rules.reshape_spec(want, out_aval.shape, in_avals[0].shape)[0]]
    + [None] * (len(in_avals) - 1)
)
sharding_rules.explicit_rules[reshape_p] = _reshape_sharding_explicit
sharding_rules.sharding_params[reshape_p] = "sharding"
deflinear(reshape_p, _reshape_transpose)


# ---------------------------------------------------------------------------------------------
# transpose, squeeze, rev


@over_key_data("lax.transpose")
def transpose(operand, permutation: Sequence[int]):
    """Permute dimensions: result dimension i is operand dimension ``permutation[i]``."""
    perm = _ints(permutation)
    if perm == tuple(range(np.ndim(operand))):
        return operand
    return transpose_p.bind(operand, permutation=perm)


def _transpose_shape(x, *, permutation):
    if sorted(permutation) != list(range(x.ndim)):
        raise TypeError(
            f"transpose permutation isn't a permutation of operand dimensions, got "
            f"permutation {permutation} for operand shape {x.shape}."
        )
    return tuple(x.shape[p] for p in permutation)


transpose_p = _shape_primitive(
    "transpose", _transpose_shape, lambda x, *, permutation: np.transpose(x, permutation)
)


def _transpose_vmap(axis_data, vals, dims, *, permutation):
    (x,), (d,) = vals, dims
    perm = (d, *(p if p < d else p + 1 for p in permutation))
    return transpose(x, perm), 0


batching.primitive_batchers[transpose_p] = _transpose_vmap


def _transpose_sharding(specs, avals, *, permutation):
    return tuple(specs[0][i] for i in permutation)


sharding_rules.sharding_rules[transpose_p] = _transpose_sharding
sharding_rules.backward_rules[transpose_p] = lambda want, in_avals, out_aval, *, permutation: [
    tuple(want[permutation.index(d)] for d in range(len(permutation)))
]
deflinear(
    transpose_p, lambda ct, x, *, permutation: [transpose(ct, tuple(np.argsort(permutation)))]
)


@over_key_data("lax.squeeze")
def squeeze(array, dimensions: Sequence[int]):
    """Remove the given size-1 dimensions."""
    nd = np.ndim(array)
    dims = tuple(sorted({canonicalize_axis(d, nd, fn="squeeze") for d in dimensions}))
    if not dims:
        return array
    return squeeze_p.bind(array, dimensions=dims)


def _squeeze_shape(x, *, dimensions):
    for d in dimensions:
        if x.shape[d] != 1:
            raise TypeError(
                f"cannot select an axis to squeeze out which has size not equal to one, got "
                f"shape={x.shape} and dimensions={dimensions}"
            )
    return tuple(s for i, s in enumerate(x.shape) if i not in dimensions)


squeeze_p = _shape_primitive(
    "squeeze", _squeeze_shape, lambda x, *, dimensions: np.squeeze(x, axis=dimensions)
)


def _squeeze_vmap(axis_data, vals, dims, *, dimensions):
    (x,), (d,) = vals, dims
    x = moveaxis(x, d, 0)
    return squeeze_p.bind(x, dimensions=tuple(k + 1 for k in dimensions)), 0


batching.primitive_batchers[squeeze_p] = _squeeze_vmap


def _squeeze_sharding(specs, avals, *, dimensions):
    dims = {d % avals[0].ndim for d in dimensions}
    return tuple(e for i, e in enumerate(specs[0]) if i not in dims)


sharding_rules.sharding_rules[squeeze_p] = _squeeze_sharding


def _squeeze_backward(want, in_avals, out_aval, *, dimensions):
    dims = {d % in_avals[0].ndim for d in dimensions}
    rest = iter(want)
    return [tuple(None if i in dims else next(rest) for i in range(in_avals[0].ndim))]


sharding_rules.backward_rules[squeeze_p] = _squeeze_backward
deflinear(squeeze_p, lambda ct, x, *, dimensions: [expand_dims(ct, dimensions)])


@over_key_data("lax.rev")
def rev(operand, dimensions: Sequence[int]):
    """Reverse the order of elements along ``dimensions``."""
    nd = np.ndim(operand)
    dims = tuple(canonicalize_axis(d, nd, fn="rev") for d in dimensions)
    if not dims:
        return operand
    return rev_p.bind(operand, dimensions=dims)


def _rev_shape(x, *, dimensions):
    if len(set(dimensions)) != len(dimensions):
        raise TypeError(f"rev dimensions must be unique, got {dimensions}")
    return x.shape


rev_p = _shape_primitive("rev", _rev_shape, lambda x, *, dimensions: np.flip(x, dimensions))


def _rev_vmap(axis_data, vals, dims, *, dimensions):
    (x,), (d,) = vals, dims
    return rev_p.bind(x, dimensions=tuple(k + 1 if k >= d else k for k in dimensions)), d


batching.primitive_batchers[rev_p] = _rev_vmap

sharding_rules.sharding_rules[rev_p] = sharding_rules.unary_rule
deflinear(rev_p, lambda ct, x, *, dimensions: [rev_p.bind(ct, dimensions=dimensions)])


# ---------------------------------------------------------------------------------------------
# slice and pad


@over_key_data("lax.slice")
def slice(
    operand,
    start_indices: Sequence[int],
    limit_indices: Sequence[int],
    strides: Sequence[int] | None = None,
):
    """The static slice ``operand[start:limit:stride]`` along every dimension."""
    start = tuple(_int_param(i) for i in start_indices)
    limit = tuple(_int_param(i) for i in limit_indices)
    strides = None if strides is None else tuple(_int_param(i) for i in strides)
    shape = tuple(np.shape(operand))
    if start == (0,) * len(shape) and limit == shape and (strides is None or set(strides) <= {1}):
        return operand
    return slice_p.bind(operand, start_indices=start, limit_indices=limit, strides=strides)


def _slice_shape(x, *, start_indices, limit_indices, strides):
    n = x.ndim
    if len(start_indices) != n or len(limit_indices) != n or (strides and len(strides) != n):
        raise TypeError(
            f"slice: start_indices {start_indices}, limit_indices {limit_indices} and strides "
            f"{strides} must each have one entry per operand dimension (shape {x.shape})."
        )
    out = []
    for i, (s, l, d) in enumerate(zip(start_indices, limit_indices, x.shape)):
        st = strides[i] if strides else 1
        if not (0 <= s <= l <= d) or st <= 0:
            raise TypeError(
                f"slice: invalid bounds start={start_indices}, limit={limit_indices}, "
                f"strides={strides} for operand shape {x.shape} (dimension {i})."
            )
        out.append(int((l - s + st - 1) // st))
    return tuple(out)


def _slice_impl(x, *, start_indices, limit_indices, strides):
    strides = strides or (1,) * x.ndim
    idx = tuple(np.s_[s:l:st] for s, l, st in zip(start_indices, limit_indices, strides))
    return x[idx]


slice_p = _shape_primitive("slice", _slice_shape, _slice_impl)


def _slice_vmap(axis_data, vals, dims, *, start_indices, limit_indices, strides):
    (x,), (d,) = vals, dims
    start = (*start_indices[:d], 0, *start_indices[d:])
    limit = (*limit_indices[:d], np.shape(x)[d], *limit_indices[d:])
    st = None if strides is None else (*strides[:d], 1, *strides[d:])
    return slice_p.bind(x, start_indices=start, limit_indices=limit, strides=st), d


def _slice_transpose(ct, x, *, start_indices, limit_indices, strides):
    shape = x.aval.shape
    out_shape = np.shape(ct)
    # The cotangent goes back where it was read, zeros elsewhere: a pad whose interior padding
    # fills the gaps between strided elements. (The high padding is computed with NumPy, so
    # printed programs show np.int64 there, as JAX's do.)
    if strides is None or all(st == 1 for st in strides):
        highs = np.subtract(
            np.asarray(shape, np.int64), np.asarray(limit_indices, np.int64), dtype=np.int64
        )
        cfg = [(lo, hi, 0) for lo, hi in zip(start_indices, highs)]
    else:
        spans = [0 if n == 0 else 1 + (n - 1) * st for n, st in zip(out_shape, strides)]
        ends = np.add(np.asarray(start_indices, np.int64), np.asarray(spans, np.int64))
        highs = np.subtract(np.asarray(shape, np.int64), ends, dtype=np.int64)
        interiors = np.subtract(np.asarray(strides, np.int64), 1, dtype=np.int64)
        cfg = list(zip(start_indices, highs, interiors))
    from spmd._src.lax.padding import pad  # lazy: padding builds on this module's slice

    return [pad(ct, _zero_scalar(x.aval.dtype), cfg)]


batching.primitive_batchers[slice_p] = _slice_vmap


def _slice_sharding(specs, avals, *, start_indices, limit_indices, strides):
    # Each dimension keeps its axes as far as they divide its new size (Auto).
    return tuple(specs[0])


def _resized_sharding_explicit(what, specs, avals, out_shape):
    for e, d in zip(specs[0], out_shape):
        n = sharding_rules.axis_size(e)
        if n > 1 and d % n:
            shown = e if isinstance(e, str) else tuple(e)
            raise sharding_rules.ShardingTypeError(
                f"{what} on sharded dims where out dim ({d}) is not divisible by mesh axes ({n}) "
                f"with spec ({shown}) is not implemented. Got input type="
                f"{sharding_rules.type_str(avals[0], specs[0])} and output shape={tuple(out_shape)}"
            )
    return tuple(specs[0])


def _slice_sharding_explicit(specs, avals, *, start_indices, limit_indices, strides):
    out = _slice_shape(
        avals[0], start_indices=start_indices, limit_indices=limit_indices, strides=strides
    )
    return _resized_sharding_explicit("slicing", specs, avals, out)


sharding_rules.sharding_rules[slice_p] = _slice_sharding
sharding_rules.backward_rules[slice_p] = sharding_rules.backward_same
sharding_rules.explicit_rules[slice_p] = _slice_sharding_explicit
deflinear(slice_p, _slice_transpose)


@over_key_data("lax.slice_in_dim")
def slice_in_dim(
    operand, start_index: int | None, limit_index: int | None, stride: int = 1, axis: int = 0
):
    """``slice`` along one dimension (negative indices count from the end)."""
    shape = np.shape(operand)
    axis = canonicalize_axis(axis, len(shape), fn="slice_in_dim")
    start = [0] * len(shape)
    limit = list(shape)
    strides = [1] * len(shape)
    d = shape[axis]
    s = 0 if start_index is None else operator.index(start_index)
    e = d if limit_index is None else operator.index(limit_index)
    start[axis] = s + d if s < 0 else s
    limit[axis] = e + d if e < 0 else e
    strides[axis] = operator.index(stride)
    # As JAX's slice_in_dim: explicit strides, and a slice even when it keeps everything.
    return slice_p.bind(
        operand, start_indices=tuple(start), limit_indices=tuple(limit), strides=tuple(strides)
    )


@over_key_data("lax.index_in_dim")
def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
    """Element ``index`` along ``axis`` (dimension kept unless ``keepdims=False``)."""
    d = np.shape(operand)[axis]
    index = index + d if index < 0 else index
    out = slice_in_dim(operand, index, index + 1, 1, axis)
    return out if keepdims else squeeze(out, (axis,))


# ---------------------------------------------------------------------------------------------
# concatenate, split


@over_key_data("lax.concatenate", key_arrays.joined)
def concatenate(operands: Sequence[Any], dimension: int):
    """Join ``operands`` along ``dimension`` (their other dimensions must agree)."""
    operands = list(operands)
    if not operands:
        raise ValueError("concatenate: need at least one operand")
    if len(operands) == 1:
        return operands[0]
    return concatenate_p.bind(*operands, dimension=operator.index(dimension))


def _concat_shape(*xs, dimension):
    shape0 = xs[0].shape
    if not 0 <= dimension < len(shape0):
        raise TypeError(
            f"concatenate dimension out of bounds: dimension {dimension} for shapes "
            + ", ".join(str(x.shape) for x in xs)
        )
    for x in xs:
        if x.ndim != len(shape0) or any(
            a != b for i, (a, b) in enumerate(zip(x.shape, shape0)) if i != dimension
        ):
            raise TypeError(
                f"Cannot concatenate arrays with shapes that differ in dimensions other than the "
                f"one being concatenated: concatenating along dimension {dimension} for shapes "
                + ", ".join(str(x.shape) for x in xs)
                + "."
            )
    return (*shape0[:dimension], sum(x.shape[dimension] for x in xs), *shape0[dimension + 1 :])


def _concat_dtype(*xs, dimension):
    dts = {x.dtype for x in xs}
    if len(dts) > 1:
        raise TypeError(
            f"concatenate: operands must have the same dtype, got {[x.dtype.name for x in xs]}."
        )
    return xs[0].dtype


concatenate_p = standard_primitive(
    "concatenate",
    _concat_shape,
    _concat_dtype,
    lambda *xs, dimension: np.concatenate(xs, axis=dimension),
)


def _concatenate_vmap(axis_data, vals, dims, *, dimension):
    xs = [bdim_at_front(x, d, axis_data.size) for x, d in zip(vals, dims)]
    return concatenate_p.bind(*xs, dimension=dimension + 1), 0


def _concatenate_transpose(ct, *xs, dimension):
    sizes = tuple(
        (x.aval.shape if ad.is_undefined_primal(x) else np.shape(x))[dimension] for x in xs
    )
    cts = split(ct, sizes, dimension)
    return [c if ad.is_undefined_primal(x) else None for c, x in zip(cts, xs)]


batching.primitive_batchers[concatenate_p] = _concatenate_vmap


def _concatenate_sharding(specs, avals, **params):
    return sharding_rules.elementwise_rule(specs, avals)


def _concatenate_sharding_explicit(specs, avals, **params):
    return sharding_rules.explicit_broadcast("concatenate", specs, avals)


sharding_rules.sharding_rules[concatenate_p] = _concatenate_sharding
sharding_rules.backward_rules[concatenate_p] = sharding_rules.backward_same
sharding_rules.explicit_rules[concatenate_p] = _concatenate_sharding_explicit
deflinear(concatenate_p, _concatenate_transpose)


def split(operand, sizes: Sequence[int], axis: int = 0):
    """Split ``operand`` along ``axis`` into pieces of the given ``sizes``."""
    sizes = tuple(_int_param(s) for s in sizes)
    return split_p.bind(operand, sizes=sizes, axis=operator.index(axis))


def _split_abstract_eval(x, *, sizes, axis):
    if sum(sizes) != x.shape[axis]:
        raise ValueError(
            f"split: sizes {sizes} must sum to the size {x.shape[axis]} of axis {axis} (operand "
            f"shape {x.shape})."
        )
    return [
        ShapedArray((*x.shape[:axis], int(s), *x.shape[axis + 1 :]), x.dtype, x.weak_type)
        for s in sizes
    ]


def _split_impl(x, *, sizes, axis):
    return np.split(x, np.cumsum(sizes)[:-1], axis=axis)


split_p = core.Primitive("split", multiple_results=True)
split_p.def_impl(_split_impl)
split_p.def_abstract_eval(_split_abstract_eval)


def _split_vmap(axis_data, vals, dims, *, sizes, axis):
    (x,), (d,) = vals, dims
    outs = split_p.bind(x, sizes=sizes, axis=axis + 1 if axis >= d else axis)
    return outs, [d] * len(sizes)


def _split_transpose(cts, x, *, sizes, axis):
    if all(type(c) is ad.Zero for c in cts):
        return [ad.Zero(x.aval)]
    return [concatenate([ad.instantiate(c) for c in cts], axis)]


batching.primitive_batchers[split_p] = _split_vmap


def _split_sharding(specs, avals, *, sizes, axis):
    # Every piece keeps the operand's sharding (as far as its shards divide the piece).
    return [tuple(specs[0])] * len(sizes)


sharding_rules.sharding_rules[split_p] = _split_sharding
deflinear(split_p, _split_transpose)


# ---------------------------------------------------------------------------------------------
# iota and friends


def iota(dtype, size: int, *, sharding=None):
    """``[0, 1, ..., size-1]`` as ``dtype``."""
    return broadcasted_iota(dtype, (size,), 0, out_sharding=sharding)


def broadcasted_iota(dtype, shape: Sequence[int], dimension: int, *, out_sharding=None):
    """An array of ``shape`` whose values count along ``dimension``."""
    dtypes.check_user_dtype_supported(dtype, "broadcasted_iota")
    return iota_p.bind(
        dtype=dtypes.canonicalize_dtype(dtype),
        shape=_ints(shape),
        dimension=operator.index(dimension),
        sharding=_sharding_param(out_sharding, "broadcasted_iota"),
    )


def _iota_abstract_eval(*, dtype, shape, dimension, sharding):
    if dtype == np.bool_ or not (dtypes.issubdtype(dtype, np.number)):
        raise TypeError(
            f"iota does not accept dtype {np.dtype(dtype).name}. Accepted dtypes are subtypes of "
            "integer, floating, complexfloating."
        )
    if not 0 <= dimension < len(shape):
        raise TypeError(f"iota: dimension {dimension} out of range for shape {shape}")
    return ShapedArray(shape, dtype, False)


def _iota_impl(*, dtype, shape, dimension, sharding):
    r = np.arange(shape[dimension], dtype=dtype)
    view = [1] * len(shape)
    view[dimension] = shape[dimension]
    return np.broadcast_to(r.reshape(view), shape)


iota_p = core.Primitive("iota")
iota_p.def_impl(_iota_impl)
iota_p.def_abstract_eval(_iota_abstract_eval)
# (Its result is placed as its ``sharding`` parameter asks, on Explicit axes in its type too.)
sharding_rules.sharding_params[iota_p] = "sharding"
# iota has no operands: it is never batched (the batching interpreter binds it as it is when no
# operand is batched) and never has a tangent, so it needs no rules.


def full_like(x, fill_value, dtype=None, shape=None, sharding=None):
    """An array like ``x`` (its shape and dtype unless given) filled with ``fill_value``; placed
    on ``sharding``, or else like ``x`` (``placing.like_sharding``)."""
    dtypes.check_user_dtype_supported(dtype, "full_like")
    out = _full_like(x, fill_value, dtype, shape)
    if sharding is not None:
        return place(out, sharding)
    s = like_sharding(x, out)
    if s is None or isinstance(out, core.Tracer):
        return out  # (a traced x's sharding in types reaches the result through jnp's rule)
    return place(out, s, strong=False)


def _full_like(x, fill_value, dtype, shape):
    shape = np.shape(x) if shape is None else shape
    dt = x.dtype if dtype is None else dtype
    weak = dtype is None and getattr(x, "weak_type", False)
    if weak and not isinstance(fill_value, core.Tracer) and not hasattr(fill_value, "aval"):
        # A weak constant from the start: no conversion equation (JAX folds it too).
        dt = dtypes.canonicalize_dtype(dt)
        if dtypes.is_python_scalar(fill_value):
            fill = core.make_concrete(dtypes.coerce_scalar(fill_value, dt), True)
        else:
            with np.errstate(all="ignore"):
                fill = core.make_concrete(np.asarray(fill_value).astype(dt), True)
        return broadcast_in_dim(fill, _ints(shape), ())
    out = _full(shape, fill_value, dt)  # (not full: its dtype is no user's request)
    if weak:
        from spmd._src.lax.elementwise.conversion import convert_element_type

        out = convert_element_type(out, dt, weak_type=True)
    return out


def full(shape: Sequence[int], fill_value, dtype=None, *, sharding=None):
    """An array of ``shape`` filled with ``fill_value`` (a scalar); placed on ``sharding``
    when given."""
    dtypes.check_user_dtype_supported(dtype, "full")
    out = _full(shape, fill_value, dtype)
    return out if sharding is None else place(out, sharding)


def _full(shape: Sequence[int], fill_value, dtype=None):
    from spmd._src.lax.elementwise.conversion import convert_element_type

    shape = _ints(shape)
    if np.ndim(fill_value) != 0:
        raise TypeError(
            f"full must be called with a scalar fill_value, got shape {np.shape(fill_value)}"
        )
    weak = dtype is None and dtypes.is_weakly_typed(fill_value)
    dt = dtypes.canonicalize_dtype(dtype if dtype is not None else dtypes.dtype(fill_value))
    if isinstance(fill_value, core.Tracer) or hasattr(fill_value, "aval"):
        aval = fill_value.aval
        if aval.dtype == dt and aval.weak_type == weak:
            fill = fill_value
        else:
            fill = convert_element_type(fill_value, dt, weak_type=weak)
    elif dtypes.is_python_scalar(fill_value):
        fill = core.make_concrete(dtypes.coerce_scalar(fill_value, dt), weak)
        fill = core.python_float_scalar(fill, fill_value)
    else:  # NumPy scalars and 0-d arrays
        with np.errstate(all="ignore"):
            fill = core.make_concrete(np.asarray(fill_value).astype(dt), weak)
    return broadcast_in_dim(fill, shape, ())


__all__ = [
    "full_like",
    "broadcast",
    "broadcast_in_dim",
    "broadcast_in_dim_p",
    "broadcast_to_rank",
    "broadcasted_iota",
    "concatenate",
    "concatenate_p",
    "expand_dims",
    "full",
    "index_in_dim",
    "iota",
    "iota_p",
    "reshape",
    "reshape_p",
    "rev",
    "rev_p",
    "slice",
    "slice_in_dim",
    "slice_p",
    "split",
    "split_p",
    "squeeze",
    "squeeze_p",
    "transpose",
    "transpose_p",
]
