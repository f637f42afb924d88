"""``checkpoint_name`` (the ``name`` primitive the name-based checkpoint policies look for) and
``saved_residuals`` / ``print_saved_residuals``: which values the forward pass of ``grad(f)``
keeps for the backward pass, and where each comes from.

>>> from spmd.ad_checkpoint import print_saved_residuals
>>> print_saved_residuals(lambda x: jnp.sin(jnp.sin(x)), 1.0)  # doctest: +ELLIPSIS
f32[] output of cos from ...
f32[] output of cos from ...
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from spmd._src import core, source_info
from spmd._src import tree_util as tu
from spmd._src.api import _leaf_paths, _positional_names
from spmd._src.api_trace import make_jaxpr
from spmd._src.core import Literal
from spmd._src.interpreters import ad, batching, sharding_rules

# ---------------------------------------------------------------------------------------------
# name


def checkpoint_name(x: Any, name: str) -> Any:
    """``x`` (a pytree of arrays) unchanged, each leaf marked ``name`` for the checkpoint
    policies that save or offload values by name (``save_only_these_names``, ...).

    >>> checkpoint_name(jnp.ones(2), "a")
    Array([1., 1.], dtype=float32)
    """
    return tu.tree_map(lambda v: name_p.bind(v, name=name), x)


def _name_impl(x, *, name):
    return x


def _name_abstract_eval(x, *, name):
    return x


def _name_vmap_rule(axis_data, vals, dims, *, name):
    return name_p.bind(vals[0], name=name), dims[0]


def _name_jvp(primals, tangents, primal_out, *, name):
    # The primal is named (it may be saved by name); its tangent is not.
    return tangents[0]


def _name_sharding_rule(specs, avals, *, name):
    return specs[0]


name_p = core.Primitive("name")
name_p.def_impl(_name_impl)
name_p.def_abstract_eval(_name_abstract_eval)
batching.primitive_batchers[name_p] = _name_vmap_rule
ad.primitive_jvps[name_p] = _name_jvp
sharding_rules.sharding_rules[name_p] = _name_sharding_rule


# ---------------------------------------------------------------------------------------------
# saved residuals


def saved_residuals(f: Callable, *args: Any, **kwargs: Any) -> list[tuple[core.ShapedArray, str]]:
    """The values ``grad``/``vjp`` of ``f`` at ``args`` keeps from its forward pass, each as
    (type, where it comes from): an argument, a constant, or an equation's output (with the
    source location that made it), in the order of the forward program."""
    if not callable(f):
        raise TypeError(f"saved_residuals: expected a function, got {f!r}")

    @functools.wraps(f)
    def residuals(*a, **kw):
        leaves, in_tree = tu.tree_flatten((a, kw))

        def flat_f(*xs):
            pa, pkw = tu.tree_unflatten(in_tree, xs)
            return tu.tree_leaves(f(*pa, **pkw))

        _, linear = ad.linearize_flat(flat_f, leaves)
        j = linear.jaxpr.jaxpr
        used = {id(x) for e in j.eqns for x in e.invars} | {id(x) for x in j.outvars}
        return [c for v, c in zip(j.constvars, linear.jaxpr.consts) if id(v) in used]

    with source_info.recording():
        closed = make_jaxpr(residuals)(*args, **kwargs)
    jaxpr = closed.jaxpr
    names = _leaf_paths(args, kwargs, *_positional_names(f))
    outs = jaxpr.outvars
    res_ids = {id(v) for v in outs if type(v) is not Literal}
    found: list[tuple[core.ShapedArray, str]] = []
    found += [(v.aval, "from a literal") for v in outs if type(v) is Literal]
    found += [(v.aval, "from a constant") for v in jaxpr.constvars if id(v) in res_ids]
    for i, v in enumerate(jaxpr.invars):
        if id(v) in res_ids:
            found.append((v.aval, f"from the argument {names[i] if i < len(names) else i}"))
    producer = {id(v): e for e in jaxpr.eqns for v in e.outvars}
    # A saved value a checkpoint_name reads is reported as named, where the name is given.
    named_inputs = {id(e.invars[0]) for e in jaxpr.eqns if e.primitive is name_p}
    for eqn in jaxpr.eqns:
        if eqn.primitive is name_p:
            vs = [v for v in (eqn.invars[0], eqn.outvars[0]) if type(v) is not Literal]
            for v in vs:
                if id(v) in res_ids:
                    res_ids.discard(id(v))
                    found.append((v.aval, f"named '{eqn.params['name']}' from {_src(eqn)}"))
            continue
        at = eqn
        if eqn.primitive.name == "reduce_precision" and id(eqn.invars[0]) in producer:
            # checkpoint rounds the values it saves: the residual is what was rounded.
            eqn = producer[id(eqn.invars[0])]
            if eqn.primitive is name_p:
                found.append((at.outvars[0].aval, f"named '{eqn.params['name']}' from {_src(eqn)}"))
                continue
        for v in at.outvars:
            if id(v) not in res_ids or id(v) in named_inputs:
                continue
            if eqn.primitive.name == "jit":
                name = eqn.params.get("name", "")
                found.append((v.aval, f"output of jitted function '{name}' from {_src(eqn)}"))
            else:
                found.append((v.aval, f"output of {eqn.primitive.name} from {_src(eqn)}"))
    return found


def _src(eqn) -> str:
    return eqn.source_info or ""


def print_saved_residuals(f: Callable, *args: Any, **kwargs: Any) -> None:
    """Print ``saved_residuals(f, *args, **kwargs)``, a line per residual:
    ``f32[5] output of cos from file.py:12:8 (g)``."""
    for aval, src in saved_residuals(f, *args, **kwargs):
        print(f"{aval.str_short(short_dtypes=True)} {src}")


__all__ = ["checkpoint_name", "name_p", "print_saved_residuals", "saved_residuals"]
