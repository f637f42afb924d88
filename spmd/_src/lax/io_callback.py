"""``io_callback``: call a Python function with side effects from a running program.

Unlike ``pure_callback`` the primitive is effectful: dead-code elimination keeps a call whose
results are unused, and calls run in program order (``ordered=True`` asks for that order; spmd
runs a program's equations in order, so unordered calls keep it too). It shares pure_callback's
kernel (the same checks of what the function returns, raising ``JaxRuntimeError``).

Under vmap an unordered call runs once per batch element, in a scan; an ordered one raises
JAX's ValueError. Over device axes (pmap, shard_map) it runs once per device, in device order.
Differentiation raises JAX's ValueError.

>>> spmd.jit(lambda x: io_callback(print, None, x))(1.0)  # doctest: +SKIP
1.0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spmd._src import core, dtypes
from spmd._src import tree_util as tu
from spmd._src.interpreters import ad, batching
from spmd._src.lax.pure_callback import _FlatCallback, _sequential, run_callback


def io_callback(
    callback: Callable[..., Any],
    result_shape_dtypes: Any,
    *args: Any,
    sharding: Any = None,
    ordered: bool = False,
    **kwargs: Any,
) -> Any:
    """``callback(*args, **kwargs)`` run in Python when the program runs, for its effects and
    results of the shapes and dtypes in ``result_shape_dtypes`` (a pytree of objects with
    ``shape`` and ``dtype``, or None for no results)."""
    flat_args, in_tree = tu.tree_flatten((args, kwargs))
    for i, a in enumerate(flat_args):
        try:
            core.get_aval(a)
        except TypeError:
            raise TypeError(
                "Error interpreting argument to io_callback as a JAX value. The problematic "
                f"value is of type {type(a)} and was passed to io_callback at position {i}.\n"
            ) from None
    res_leaves, res_tree = tu.tree_flatten(result_shape_dtypes)
    result_avals = tuple(
        core.ShapedArray(tuple(r.shape), dtypes.canonicalize_dtype(r.dtype)) for r in res_leaves
    )
    outs = io_callback_p.bind(
        *flat_args,
        callback=_FlatCallback(callback, in_tree),
        ordered=bool(ordered),
        result_avals=result_avals,
        sharding=sharding,
    )
    return tu.tree_unflatten(res_tree, outs)


def _impl(*args, callback, ordered, result_avals, sharding):
    return run_callback("io_callback", callback, args, result_avals)


def _abstract_eval(*avals, callback, ordered, result_avals, sharding):
    return list(result_avals)


def _vmap_rule(axis_data, vals, dims, *, callback, ordered, result_avals, sharding):
    if ordered and not axis_data.per_device:
        raise ValueError("Cannot `vmap` ordered IO callback.")
    # One call per element (per device over device axes, in device order).
    params = dict(callback=callback, ordered=ordered, sharding=sharding)
    outs = _sequential(vals, dims, axis_data.size, result_avals, params, io_callback_p)
    return outs, [0] * len(outs)


def has_io_effect(jaxpr: core.Jaxpr) -> bool:
    """Whether ``jaxpr`` (or a jaxpr inside one of its equations) calls io_callback: vmap of a
    cond or while loop with a batched predicate cannot run such a call only where it is due,
    and raises (as JAX does)."""
    return any(
        e.primitive is io_callback_p
        or any(has_io_effect(j) for j in core._jaxprs_in_params(e.params))
        for e in jaxpr.eqns
    )


def _joint_jvp(primals, tangents, **params):
    raise ValueError("IO callbacks do not support JVP.")


io_callback_p = core.Primitive("io_callback", multiple_results=True, effectful=True)
io_callback_p.def_impl(_impl)
io_callback_p.def_abstract_eval(_abstract_eval)
batching.primitive_batchers[io_callback_p] = _vmap_rule
# Over device axes it runs on every device, even with arguments that do not vary over them.
batching.per_device_primitives.add(io_callback_p)
ad.primitive_joint_jvps[io_callback_p] = _joint_jvp

__all__ = ["io_callback"]
