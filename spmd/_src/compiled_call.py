"""What a ``Compiled`` (``jit(f).trace(...).lower().compile()``) checks when it is called, and
what its ``memory_analysis()`` reports.

A compiled function takes the dynamic arguments only (static ones were fixed when it was
traced), in the pytree structure it was traced for, with each array's shape and dtype as
traced: a weak type does not matter (a Python ``3`` fits an ``int32[]`` compiled for
``ShapeDtypeStruct((), int32)``, and the results are typed as compiled). Anything else raises
TypeError before any work, as does calling it under a transformation (jit, vmap, grad): its
types are fixed, a tracer's are not.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from spmd._src import core
from spmd._src import tree_util as tu
from spmd._src.array import Array
from spmd._src.core import Tracer


def _type_text(a: Any) -> str:
    # As JAX's messages spell a type: full dtype names (int32[3], not i32[3]).
    return f"{a.dtype.name}[{','.join(str(d) for d in a.shape)}]"


def call_args(wrapped: Any, entry: Any, traced_with: tuple, args: tuple, kwargs: dict):
    """(args, kwargs) for ``wrapped`` that reach ``entry``'s program: the call's dynamic
    ``args``/``kwargs`` with the static ones ``traced_with`` (the trace's (args, kwargs)) had,
    each leaf retyped to the weak type it was compiled for."""
    from spmd._src.api import _leaf_paths  # lazy: api imports the stages

    leaves, treedef = tu.tree_flatten((args, kwargs))
    for x in leaves:
        if isinstance(x, Tracer):
            raise TypeError(
                "Cannot apply JAX transformations to a function lowered and compiled for a "
                f"particular signature. Detected argument of Tracer type {type(x)}."
            )
    if treedef != entry.in_tree:
        raise TypeError(
            f"Function {wrapped.__name__} compiled with input pytree does not match the input "
            f"pytree it was called with: compiled for {entry.in_tree}, called with {treedef}."
        )
    paths = _leaf_paths(args, kwargs, wrapped._dyn_names(), wrapped._sig)
    compiled = entry.jaxpr.in_avals
    avals = [x.aval if type(x) is Array else core.get_aval(x) for x in leaves]
    bad = [
        f"Argument '{p}' compiled with {_type_text(c)} and called with {_type_text(a)}"
        for p, a, c in zip(paths, avals, compiled)
        if (a.shape, a.dtype) != (c.shape, c.dtype)
    ]
    if bad:
        raise TypeError(
            f"Argument types differ from the types for which this computation "
            f"({wrapped.__name__}) was compiled. The mismatches are:\n" + "\n".join(bad)
        )
    leaves = [_retyped(x, a, c) for x, a, c in zip(leaves, avals, compiled)]
    args, kwargs = tu.tree_unflatten(treedef, leaves)
    return _with_statics(wrapped, traced_with, args, kwargs)


def _retyped(x: Any, aval: Any, compiled: Any) -> Any:
    if aval.weak_type == compiled.weak_type:
        return x
    from spmd._src.lax.elementwise.conversion import convert_element_type  # lazy: lax is big

    return convert_element_type(x, compiled.dtype, weak_type=compiled.weak_type)


def _with_statics(wrapped: Any, traced_with: tuple, args: tuple, kwargs: dict):
    """The full argument list: the static positional arguments the trace had, at their
    positions, among ``args``; the static keyword arguments beside ``kwargs``."""
    t_args, t_kwargs = traced_with
    nums = wrapped._static_argnums
    dyn = iter(args)
    full = []
    for i in range(len(t_args)):
        full.append(t_args[i] if i in nums else next(dyn))
    full.extend(dyn)
    statics = {k: v for k, v in t_kwargs.items() if k in wrapped._static_argnames}
    return tuple(full), {**kwargs, **statics}


@dataclasses.dataclass(frozen=True)
class CompiledMemoryStats:
    """The sizes ``Compiled.memory_analysis()`` reports, per device, in bytes (JAX's fields).
    ``temp``: the most bytes of intermediate values alive at once, as spmd runs the program
    (one NumPy call per equation: nothing is fused away); ``alias``: 0, as spmd never writes a
    result into a donated buffer (docs/DESIGN.md); no code is generated."""

    generated_code_size_in_bytes: int = 0
    argument_size_in_bytes: int = 0
    output_size_in_bytes: int = 0
    alias_size_in_bytes: int = 0
    temp_size_in_bytes: int = 0
    host_generated_code_size_in_bytes: int = 0
    host_argument_size_in_bytes: int = 0
    host_output_size_in_bytes: int = 0
    host_alias_size_in_bytes: int = 0
    host_temp_size_in_bytes: int = 0


def _nbytes(avals) -> int:
    return sum(a.size * a.dtype.itemsize for a in avals if hasattr(a, "dtype"))


def memory_stats(jaxpr: core.Jaxpr) -> CompiledMemoryStats:
    """The sizes of ``jaxpr``'s inputs, outputs and peak live intermediates (top level)."""
    last_use: dict[Any, int] = {}
    for i, e in enumerate(jaxpr.eqns):
        for v in e.invars:
            if isinstance(v, core.Var):
                last_use[v] = i
    keep = {v for v in jaxpr.outvars if isinstance(v, core.Var)} | set(jaxpr.invars)
    live, peak = 0, 0
    alive: dict[Any, int] = {}
    for i, e in enumerate(jaxpr.eqns):
        for v in e.outvars:
            if v not in keep and v in last_use:
                alive[v] = _nbytes([v.aval])
                live += alive[v]
        peak = max(peak, live)
        for v in [v for v in alive if last_use[v] <= i]:
            live -= alive.pop(v)
    return CompiledMemoryStats(
        argument_size_in_bytes=_nbytes(v.aval for v in jaxpr.invars),
        output_size_in_bytes=_nbytes(v.aval for v in jaxpr.outvars),
        temp_size_in_bytes=peak,
    )
