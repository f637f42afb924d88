"""Small lax operations: the ``optimization_barrier`` and ``unstack`` primitives, and
``reciprocal``, ``broadcast_shapes``, ``collapse``, ``empty`` and ``index_take`` built on other
primitives.

>>> lax.unstack(jnp.arange(6).reshape(2, 3), axis=1)
(Array([0, 3], dtype=int32), Array([1, 4], dtype=int32), Array([2, 5], dtype=int32))
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src import tree_util as tu
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.rules import deflinear
from spmd._src.util import canonicalize_axis

# ---------------------------------------------------------------------------------------------
# optimization_barrier


def optimization_barrier(operand, /):
    """The identity on a pytree of arrays, which keeps the compiler from moving operations
    across it (spmd's NumPy backend moves none: it only marks the jaxpr, as in JAX).

    >>> lax.optimization_barrier((jnp.ones(2), 3.0))
    (Array([1., 1.], dtype=float32), Array(3., dtype=float32, weak_type=True))
    """
    leaves, tree = tu.tree_flatten(operand)
    for i, x in enumerate(leaves):
        if not core.valid_jaxtype(x):
            raise TypeError(
                "Error interpreting argument to optimization_barrier as a JAX value. The "
                f"problematic value is of type {type(x)} and was passed to "
                f"optimization_barrier at position {i}."
            )
    return tu.tree_unflatten(tree, optimization_barrier_p.bind(*leaves))


def _barrier_impl(*xs):
    return list(xs)


def _barrier_abstract_eval(*avals):
    return list(avals)


def _barrier_vmap(axis_data, vals, dims):
    return optimization_barrier_p.bind(*vals), list(dims)


def _barrier_transpose(cts, *args):
    # The cotangents pass through a barrier of their own (as JAX's backward pass shows).
    nz = [i for i, c in enumerate(cts) if type(c) is not ad.Zero]
    out = list(cts)
    for i, c in zip(nz, optimization_barrier_p.bind(*[cts[i] for i in nz]) if nz else []):
        out[i] = c
    return out


def _barrier_sharding(specs, avals):
    return [tuple(s) if s is not None else None for s in specs]


optimization_barrier_p = core.Primitive("optimization_barrier", multiple_results=True)
optimization_barrier_p.def_impl(_barrier_impl)
optimization_barrier_p.def_abstract_eval(_barrier_abstract_eval)
batching.primitive_batchers[optimization_barrier_p] = _barrier_vmap
deflinear(optimization_barrier_p, _barrier_transpose)
sharding_rules.sharding_rules[optimization_barrier_p] = _barrier_sharding


# ---------------------------------------------------------------------------------------------
# unstack


def unstack(x, axis: int = 0) -> tuple:
    """The slices of ``x`` along ``axis``, without that dimension.

    >>> lax.unstack(jnp.arange(4).reshape(2, 2))
    (Array([0, 1], dtype=int32), Array([2, 3], dtype=int32))
    """
    axis = canonicalize_axis(axis, np.ndim(x), fn="unstack")
    return tuple(unstack_p.bind(x, axis=axis))


def _unstack_impl(x, *, axis):
    x = np.asarray(x)
    return [np.array(np.take(x, i, axis=axis)) for i in range(x.shape[axis])]


def _unstack_abstract_eval(x, *, axis):
    if not 0 <= axis < x.ndim:
        raise ValueError(f"unstack: axis {axis} is out of bounds for array of dimension {x.ndim}")
    shape = x.shape[:axis] + x.shape[axis + 1 :]
    return [ShapedArray(shape, x.dtype, x.weak_type)] * x.shape[axis]


def _unstack_vmap(axis_data, vals, dims, *, axis):
    (x,), (d,) = vals, dims
    outs = unstack_p.bind(x, axis=axis + (axis >= d))
    return outs, [d - (axis < d)] * len(outs)


def _unstack_transpose(cts, x, *, axis):
    # Stack the slices' cotangents back along ``axis`` (zeros for the ones that have none).
    aval = x.aval
    shape = aval.shape[:axis] + (1,) + aval.shape[axis + 1 :]
    parts = [
        lax_shape.reshape(ad.instantiate(c), shape)
        if type(c) is not ad.Zero
        else lax_shape.full(shape, 0, aval.dtype)
        for c in cts
    ]
    if not parts:
        return [lax_shape.full(aval.shape, 0, aval.dtype)]
    return [lax_shape.concatenate(parts, axis)]


def _unstack_sharding(specs, avals, *, axis):
    spec = specs[0] or (None,) * avals[0].ndim
    return [tuple(spec[:axis]) + tuple(spec[axis + 1 :])] * avals[0].shape[axis]


unstack_p = core.Primitive("unstack", multiple_results=True)
unstack_p.def_impl(_unstack_impl)
unstack_p.def_abstract_eval(_unstack_abstract_eval)
batching.primitive_batchers[unstack_p] = _unstack_vmap
deflinear(unstack_p, _unstack_transpose)
sharding_rules.sharding_rules[unstack_p] = _unstack_sharding


# ---------------------------------------------------------------------------------------------
# Helpers on other primitives


def reciprocal(x):
    """Elementwise ``1 / x`` (``integer_pow`` with exponent -1, as in JAX).

    >>> lax.reciprocal(jnp.float32(4))
    Array(0.25, dtype=float32)
    """
    from spmd._src.lax.elementwise.arithmetic import integer_pow

    return integer_pow(x, -1)


def broadcast_shapes(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The shape NumPy broadcasting gives ``shapes``.

    >>> lax.broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    shps = [tuple(operator.index(d) for d in s) for s in shapes]
    if not shps:
        raise ValueError("broadcast_shapes: at least one shape is required")
    rank = max(len(s) for s in shps)
    out = []
    for i in range(rank, 0, -1):
        sizes = {s[-i] for s in shps if len(s) >= i}
        big = sizes - {1}
        if len(big) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={shps}")
        out.append(big.pop() if big else 1)
    return tuple(out)


def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
    """``operand`` with dimensions ``start_dimension`` up to (not including)
    ``stop_dimension`` (the end, if None) merged into one.

    >>> lax.collapse(jnp.ones((2, 3, 4)), 1).shape
    (2, 12)
    """
    shape = tuple(np.shape(operand))
    lo, hi, _ = slice(start_dimension, stop_dimension).indices(len(shape))
    if hi < lo:
        raise ValueError(
            f"Invalid dimension range passed to collapse: {shape}[{start_dimension}:"
            f"{stop_dimension}]"
        )
    size = int(np.prod(shape[lo:hi], dtype=np.int64))
    return lax_shape.reshape(operand, shape[:lo] + (size,) + shape[hi:])


def empty(shape, dtype, *, out_sharding=None):
    """An array of ``shape`` and ``dtype`` whose values are unspecified (zeros here).

    >>> lax.empty((2,), jnp.float32).shape
    (2,)
    """
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    shape = tuple(operator.index(d) for d in shape)
    return lax_shape.full(shape, 0, dtypes.canonicalize_dtype(dtype), sharding=out_sharding)


def index_take(src, idxs: Sequence[Any], axes: Sequence[int]):
    """``src`` indexed by the integer arrays ``idxs`` along ``axes`` (negative indices count
    from the end): the result has the indices' broadcast shape in front of the remaining
    dimensions.

    >>> lax.index_take(jnp.arange(6.0).reshape(2, 3), (jnp.array([1, 0]),), (0,))
    Array([[3., 4., 5.],
           [0., 1., 2.]], dtype=float32)
    """
    from spmd._src.lax.elementwise import arithmetic as ar
    from spmd._src.lax.indexing.common import GatherDimensionNumbers, GatherScatterMode
    from spmd._src.lax.indexing.gathering import gather

    axes = tuple(canonicalize_axis(a, np.ndim(src), fn="index_take") for a in axes)
    idxs = list(idxs)
    if len(idxs) != len(axes):
        raise ValueError(f"index_take: got {len(idxs)} index arrays for {len(axes)} axes {axes}")
    shp = broadcast_shapes(*(np.shape(i) for i in idxs))
    src_shape = np.shape(src)
    cols = []
    for i, a in zip(idxs, axes):
        i = lax_shape.broadcast_in_dim(i, shp + (1,), tuple(range(len(np.shape(i)))))
        n = np.array(src_shape[a], dtypes.dtype(i))
        # Wrap negative indices: ((i % n) + n) % n keeps them in range, as JAX's remainder.
        cols.append(ar.rem(ar.add(ar.rem(i, n), n), n))
    indices = lax_shape.concatenate(cols, len(shp)) if len(cols) > 1 else cols[0]
    offset = tuple(range(len(shp), len(shp) + len(src_shape) - len(axes)))
    dnums = GatherDimensionNumbers(
        offset_dims=offset, collapsed_slice_dims=tuple(sorted(axes)), start_index_map=axes
    )
    sizes = tuple(1 if d in axes else n for d, n in enumerate(src_shape))
    return gather(src, indices, dnums, sizes, mode=GatherScatterMode.PROMISE_IN_BOUNDS)


__all__ = [
    "broadcast_shapes",
    "collapse",
    "empty",
    "index_take",
    "optimization_barrier",
    "optimization_barrier_p",
    "reciprocal",
    "unstack",
    "unstack_p",
]
