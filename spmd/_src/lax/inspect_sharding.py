"""``inspect_sharding``: tell Python the sharding a traced value gets.

``debug.inspect_array_sharding`` (and ``debug.visualize_array_sharding``) on a value inside jit
binds this primitive. It computes nothing when the program runs. Its callback runs when jit's
sharding propagation has placed the program for new input shardings: once per placement, like
JAX's, which calls it while compiling, with what propagation gives the operand (a value no mesh
sharding reaches is reported on the default device). The callback sees the sharding of the whole
operand: under vmap that includes the mapped dimension, as in JAX.

>>> f = spmd.jit(lambda x: spmd.debug.inspect_array_sharding(x, callback=print))
>>> f(x)  # doctest: +SKIP
NamedSharding(mesh=Mesh('x': 2), spec=P('x',), memory_kind=device)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spmd._src import core
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.lax.callback import _Callback
from spmd._src.sharding import default_sharding


def inspect_sharding(x: Any, callback: Callable[[Any], None], name: str = "callback") -> None:
    """Have ``callback(sharding)`` called with the sharding propagation gives the traced ``x``."""
    inspect_sharding_p.bind(x, callback=_Callback(callback, name))


def _impl(x, *, callback):
    # Runs with the program: the callback has already run, when propagation placed it.
    return []


def _abstract_eval(aval, *, callback):
    return []


def _vmap_rule(axis_data, vals, dims, *, callback):
    # JAX reports the sharding of the whole batched value. An eager vmap batches a concrete
    # array: report its own sharding now.
    (x,), _ = vals, dims
    if isinstance(x, core.Tracer):
        inspect_sharding_p.bind(x, callback=callback)
    else:
        callback.fn(x.sharding if hasattr(x, "sharding") else default_sharding())
    return [], []


def _observer(shardings, avals, *, callback):
    (s,) = shardings
    callback.fn(default_sharding() if s is None else s)


inspect_sharding_p = core.Primitive("inspect_sharding", multiple_results=True, effectful=True)
inspect_sharding_p.def_impl(_impl)
inspect_sharding_p.def_abstract_eval(_abstract_eval)
batching.primitive_batchers[inspect_sharding_p] = _vmap_rule
# Nothing to differentiate: it only sees the primal value (bound by the jvp of its operand).
ad.primitive_jvps[inspect_sharding_p] = lambda primals, tangents, out, **params: []
sharding_rules.observers[inspect_sharding_p] = _observer

__all__ = ["inspect_sharding", "inspect_sharding_p"]
