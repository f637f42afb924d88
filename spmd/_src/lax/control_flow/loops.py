"""``lax.fori_loop`` and ``lax.map``, built on ``scan`` and ``while_loop``.

>>> from spmd import lax
>>> lax.fori_loop(0, 4, lambda i, x: x + i, 0)
Array(6, dtype=int32, weak_type=True)
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src import tree_util as tu
from spmd._src.config import config
from spmd._src.interpreters import batching
from spmd._src.lax import elementwise as lax_ew
from spmd._src.lax import rules
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.control_flow.scan import scan
from spmd._src.lax.control_flow.while_loop import while_loop

# ---------------------------------------------------------------------------------------------
# fori_loop and map


def fori_loop(lower: Any, upper: Any, body_fun: Callable, init_val: Any, *, unroll=None):
    """``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``; returns ``val``.

    With concrete bounds this is a ``scan`` (reverse-mode differentiable); with traced bounds a
    ``while_loop`` (forward mode only).

    >>> lax.fori_loop(0, 4, lambda i, x: x + i, 0)
    Array(6, dtype=int32, weak_type=True)
    """
    if not callable(body_fun):
        raise TypeError("lax.fori_loop: body_fun argument should be callable.")
    lower_dtype, upper_dtype = (
        dtypes.dtype(lower, canonicalize=True),
        dtypes.dtype(upper, canonicalize=True),
    )
    if lower_dtype == upper_dtype:
        dtype = lower_dtype
    else:
        dtype = None
        if dtypes.issubdtype(lower_dtype, np.signedinteger) and dtypes.issubdtype(
            upper_dtype, np.signedinteger
        ):
            lower_weak, upper_weak = dtypes.is_weakly_typed(lower), dtypes.is_weakly_typed(upper)
            if lower_weak and not upper_weak:
                dtype = upper_dtype
            elif upper_weak and not lower_weak:
                dtype = lower_dtype
        if dtype is None:
            raise TypeError(
                "lower and upper arguments to fori_loop must have equal types, got "
                f"{lower_dtype.name} and {upper_dtype.name}"
            )
    if not isinstance(lower, core.Tracer) and not isinstance(upper, core.Tracer):
        lower_, upper_ = int(lower), int(upper)
        length = max(upper_ - lower_, 0)
        if config.jax_disable_jit and length == 0:
            return init_val

        def scanned(loop_carry, _):  # (the name carry-type errors show, as JAX's)
            i, x = loop_carry
            return (lax_ew.add(i, 1), body_fun(i, x)), None

        (_, result), _ = scan(
            scanned, (lower_, init_val), None, length=length, unroll=unroll or False
        )
        return result
    if unroll is not None and unroll is not False and unroll != 1:
        raise ValueError(
            "Can only use `unroll` in `fori_loop` if the loop bounds are statically known."
        )
    if lower_dtype != dtype:
        lower = lax_ew.convert_element_type(lower, dtype)
    if upper_dtype != dtype:
        upper = lax_ew.convert_element_type(upper, dtype)

    def cond(carry):
        i, hi, _ = carry
        return lax_ew.lt(i, hi)

    def body(carry):
        i, hi, x = carry
        return lax_ew.add(i, 1), hi, body_fun(i, x)

    _, _, result = while_loop(cond, body, (lower, upper, init_val))
    return result


def map(f: Callable, xs: Any, *, batch_size: int | None = None):  # noqa: A001 -- lax.map
    """``f`` applied to each slice of ``xs`` along its leading axis, results stacked.

    With ``batch_size``, slices are processed ``batch_size`` at a time (vectorized), the
    remainder in one more vectorized call.

    >>> lax.map(lambda x: x * 2, jnp.arange(3))
    Array([0, 2, 4], dtype=int32)
    """
    if batch_size is None:
        _, ys = scan(lambda _, x: ((), f(x)), (), xs)
        return ys
    leaves, tree = tu.tree_flatten(xs)
    if not leaves:
        _, ys = scan(lambda _, x: ((), f(x)), (), xs)
        return ys
    n = np.shape(leaves[0])[0]
    batch_size = operator.index(batch_size)
    if batch_size == 0:
        num_batches, rem = 0, n
    else:
        num_batches, rem = divmod(n, batch_size)
    cut = num_batches * batch_size
    scan_leaves, rem_leaves = [], []
    for x in leaves:
        shape = np.shape(x)
        if num_batches:
            xs = lax_shape.slice(x, (0,) * len(shape), (cut, *shape[1:])) if rem else x
            scan_leaves.append(lax_shape.reshape(xs, (num_batches, batch_size, *shape[1:])))
        if rem:
            rem_leaves.append(lax_shape.slice(x, (cut, *(0,) * (len(shape) - 1)), shape))
    g = _vectorized(f, tree)
    if num_batches:
        _, ys = scan(lambda _, x: ((), g(x)), (), tree.unflatten(scan_leaves))
    if not rem:
        return tu.tree_map(lambda y: lax_shape.reshape(y, (cut, *np.shape(y)[2:])), ys)
    rem_ys = g(tree.unflatten(rem_leaves))
    if not num_batches:
        return rem_ys
    y_leaves, y_tree = tu.tree_flatten(ys)
    y_leaves = [lax_shape.reshape(y, (cut, *np.shape(y)[2:])) for y in y_leaves]
    r_leaves = tu.tree_flatten(rem_ys)[0]
    return tu.tree_unflatten(
        y_tree, [lax_shape.concatenate([a, b], 0) for a, b in zip(y_leaves, r_leaves)]
    )


def _vectorized(f: Callable, tree: tu.PyTreeDef) -> Callable:
    """``f`` mapped over the leading axis of its (single, pytree) argument (vmap's core)."""

    def g(x):
        leaves = tu.tree_flatten(x)[0]
        size = np.shape(leaves[0])[0]
        box = []

        def flat(*ls):
            out_leaves, out_tree = tu.tree_flatten(f(tree.unflatten(ls)))
            box.append(out_tree)
            return out_leaves

        axis = batching.AxisData(None, size)
        vals, dims = batching.batch_fun(flat, axis, leaves, [0] * len(leaves))
        return tu.tree_unflatten(box[0], [rules.bdim_to(v, d, 0, size) for v, d in zip(vals, dims)])

    return g


__all__ = ["fori_loop", "map"]
