"""``make_jaxpr`` and ``eval_shape``: trace a function once, to print its program or to know
the shapes it returns, without running it. (Split from ``api``, whose ``jit`` they share the
argument handling with.)"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from spmd._src import core, key_arrays
from spmd._src import refs as _refs
from spmd._src import tree_util as tu
from spmd._src.api import (
    ShapeDtypeStruct,
    _abstractify,
    _ensure_tuple,
    _fun_name,
    _leaf_paths,
    _out_shape,
    _positional_names,
)
from spmd._src.core import ClosedJaxpr
from spmd._src.interpreters import partial_eval as pe
from spmd._src.jit_placement import check_explicit as _check_explicit
from spmd._src.jit_placement import type_shardings as _type_shardings


def make_jaxpr(
    fun: Callable,
    static_argnums: int | Iterable[int] = (),
    axis_env: Sequence[tuple[Any, int]] | None = None,
    return_shape: bool = False,
    abstracted_axes=None,
) -> Callable[..., ClosedJaxpr]:
    """A function that returns the jaxpr of ``fun`` for the given example arguments.

    >>> print(make_jaxpr(lambda x: x * 2.0)(1.0))
    { lambda ; a:f32[]. let b:f32[] = mul a 2.0:f32[] in (b,) }
    """
    static_argnums = _ensure_tuple(static_argnums)

    @functools.wraps(fun)
    def make(*args, **kwargs):
        n = len(args)
        nums = {i % n if n else i for i in static_argnums}
        dyn = [a for i, a in enumerate(args) if i not in nums]
        leaves, treedef = tu.tree_flatten((tuple(dyn), kwargs))
        pos_names, sig = _positional_names(fun)
        names = [nm for i, nm in enumerate(pos_names) if i not in nums]
        paths = _leaf_paths(tuple(dyn), kwargs, names, sig)
        _refs.check_distinct_refs(leaves, lambda: paths, _fun_name(fun), "make_jaxpr")
        avals = [_abstractify(x, p, f"make_jaxpr({_fun_name(fun)})") for x, p in zip(leaves, paths)]
        out_tree_box = []

        def flat_fun(*flat):
            d, kw = tu.tree_unflatten(treedef, flat)
            it = iter(d)
            full = [args[i] if i in nums else next(it) for i in range(n)]
            out = fun(*full, **kw)
            out_leaves, out_tree = tu.tree_flatten(out)
            _refs.check_results(out_leaves, flat, paths, _fun_name(fun), "make_jaxpr")
            if return_shape:  # (only then: a vjp function's tree holds the trace's tracers,
                out_tree_box.append(out_tree)  # which must die with it: leak_check)
            return out_leaves

        env = tuple(axis_env or ())
        prev = core.trace_ctx.axis_env
        core.trace_ctx.axis_env = prev + env
        try:
            debug = pe.DebugInfo("make_jaxpr", _fun_name(fun), paths)
            closed = pe.trace_to_jaxpr(flat_fun, avals, debug, _type_shardings(leaves))
        finally:
            core.trace_ctx.axis_env = prev
        _check_explicit(closed, leaves)
        if return_shape:
            out_tree = out_tree_box[0]
            shapes = [_out_shape(a) for a in closed.out_avals]
            return closed, tu.tree_unflatten(out_tree, shapes)
        return closed

    return make


def eval_shape(fun: Callable, *args, **kwargs):
    """The shapes and dtypes ``fun`` would return, without running it.

    >>> eval_shape(lambda x: x.sum(0), ShapeDtypeStruct((4, 3), jnp.float32))
    ShapeDtypeStruct(shape=(3,), dtype=float32)
    """
    args, kwargs = key_arrays.abstract_keys_in((args, kwargs), ShapeDtypeStruct)
    leaves, treedef = tu.tree_flatten((args, kwargs))
    pos_names, sig = _positional_names(fun)
    paths = _leaf_paths(args, kwargs, pos_names, sig)
    avals = [_abstractify(x, p, f"eval_shape({_fun_name(fun)})") for x, p in zip(leaves, paths)]
    box = []

    def flat_fun(*flat):
        a, kw = tu.tree_unflatten(treedef, flat)
        out_leaves, out_tree = tu.tree_flatten(fun(*a, **kw))
        box.append(out_tree)
        return out_leaves

    closed = pe.trace_to_jaxpr(flat_fun, avals, pe.DebugInfo("eval_shape", _fun_name(fun), paths))
    out = tu.tree_unflatten(box[0], [_out_shape(a) for a in closed.out_avals])
    return key_arrays.abstract_keys_out(out, ShapeDtypeStruct)


__all__ = ["eval_shape", "make_jaxpr"]
