"""``custom_gradient`` and ``closure_convert``: conveniences over ``custom_vjp``.

``custom_gradient(fun)``: ``fun`` returns ``(value, vjp_fn)``. It becomes a ``custom_vjp``
whose fwd rule traces ``vjp_fn`` to a jaxpr at the output's tangent types; the values that
jaxpr closes over (the primal inputs, intermediates) are the residuals, carried in a pytree
node whose static part is the jaxpr, and the bwd rule evaluates it on the cotangents.

``closure_convert(fun, *example_args)``: ``fun`` traced at the example arguments' types, as a
function taking the float values it closes over that an enclosing transformation may perturb
(its tracers) as extra trailing arguments, and the list of those values.

>>> f = spmd.custom_gradient(lambda x: (x ** 2, lambda g: (3.0 * g,)))
>>> spmd.grad(f)(1.0)
Array(3., dtype=float32, weak_type=True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src import tree_util as tu
from spmd._src.custom_derivatives.vjp import custom_vjp
from spmd._src.interpreters import ad
from spmd._src.interpreters import partial_eval as pe
from spmd._src.lax.control_flow.common import types_of


class _VjpResiduals:
    """The traced vjp_fn of one call: its constants (the residuals, pytree children) and its
    jaxpr with the input and output structures (static)."""

    __slots__ = ("jaxpr", "ct_tree", "out_tree", "consts")

    def __init__(self, jaxpr: core.Jaxpr, ct_tree, out_tree, consts: list) -> None:
        self.jaxpr, self.ct_tree, self.out_tree, self.consts = jaxpr, ct_tree, out_tree, consts


tu.register_pytree_node(
    _VjpResiduals,
    lambda r: (r.consts, (r.jaxpr, r.ct_tree, r.out_tree)),
    lambda aux, consts: _VjpResiduals(*aux, list(consts)),
)


def custom_gradient(fun: Callable) -> custom_vjp:
    """``fun(*args) -> (value, vjp_fn)`` as a function of ``args`` whose reverse-mode derivative
    is ``vjp_fn`` (mapping the value's cotangent to one cotangent per argument; a single
    argument's may be returned bare). Forward mode is not defined, as for ``custom_vjp``."""

    # The names below are what make_jaxpr prints for the custom_vjp_call (as JAX's do).
    def wrapped_fun(*args, **kwargs):
        value, _ = fun(*args, **kwargs)
        return value

    def fwd(*args, **kwargs):
        value, vjp_fn = fun(*args, **kwargs)
        leaves, ct_tree = tu.tree_flatten(value)
        avals = [ad.tangent_aval(core.get_aval(x)) for x in leaves]
        box = {}

        def flat_vjp(*cts):
            out_leaves, box["out_tree"] = tu.tree_flatten(vjp_fn(tu.tree_unflatten(ct_tree, cts)))
            return out_leaves

        # The cotangents have the value's shardings in types (Explicit mesh axes), as in JAX.
        closed = pe.trace_to_jaxpr(flat_vjp, avals, None, types_of(leaves))
        return value, _VjpResiduals(closed.jaxpr, ct_tree, box["out_tree"], list(closed.consts))

    def bwd(res, ct):
        ct_leaves, ct_tree = tu.tree_flatten(ct)
        if ct_tree != res.ct_tree:
            raise TypeError(
                f"custom_gradient: the cotangent has structure {ct_tree}, but the function's "
                f"output has structure {res.ct_tree}"
            )
        outs = core.eval_jaxpr(res.jaxpr, res.consts, *ct_leaves)
        out = tu.tree_unflatten(res.out_tree, outs)
        # One cotangent per argument: a function of one argument may return it bare.
        return (out,) if tu.treedef_is_leaf(res.out_tree) else out

    wrapped = custom_vjp(wrapped_fun)
    wrapped.defvjp(fwd, bwd)
    return wrapped


def _may_be_perturbed(x: Any) -> bool:
    """A closed-over value an enclosing transformation could differentiate: a float tracer."""
    return isinstance(x, core.Tracer) and dtypes.issubdtype(core.get_aval(x).dtype, np.inexact)


def closure_convert(fun: Callable, *example_args: Any) -> tuple[Callable, list[Any]]:
    """``(converted_fun, consts)``: ``converted_fun(*args, *consts)`` computes ``fun(*args)``,
    where ``consts`` are the float tracers ``fun`` closes over (none outside transformations:
    concrete values stay closed over). ``args`` must have the example arguments' structure."""
    from spmd._src.linear_transpose import _example_aval  # the same example types

    leaves, in_tree = tu.tree_flatten(example_args)
    box = {}

    def flat_fun(*flat):
        out_leaves, box["out_tree"] = tu.tree_flatten(fun(*tu.tree_unflatten(in_tree, flat)))
        return out_leaves

    avals = [_example_aval(x) for x in leaves]
    closed = pe.trace_to_jaxpr(flat_fun, avals, None, types_of(leaves))
    out_tree = box["out_tree"]
    hoist = [_may_be_perturbed(c) for c in closed.consts]
    hoisted = [c for c, h in zip(closed.consts, hoist) if h]
    n_hoisted = len(hoisted)

    def converted_fun(*args_hconsts):
        n = len(args_hconsts) - n_hoisted
        args, hconsts = args_hconsts[:n], iter(args_hconsts[n:])
        arg_leaves, arg_tree = tu.tree_flatten(args)
        if arg_tree != in_tree:
            raise TypeError(
                "The inputs to the closure produced by closure_convert must have the same "
                f"Pytree structure as the example arguments passed when closure_convert was "
                f"called. Expected {in_tree}, but got {arg_tree}"
            )
        consts = [next(hconsts) if h else c for c, h in zip(closed.consts, hoist)]
        outs = core.eval_jaxpr(closed.jaxpr, consts, *arg_leaves)
        return tu.tree_unflatten(out_tree, outs)

    return converted_fun, hoisted


__all__ = ["closure_convert", "custom_gradient"]
