"""``jax_check_tracer_leaks``: when a function has been traced to a jaxpr (jit, make_jaxpr,
the bodies of control flow), no tracer of that trace may still be alive. One that is was
kept by a side effect (appended to a global list, stored on an object) and would fail later,
far from its cause; with the option on, the trace that leaked it raises at once, naming the
tracers and the function (Exception, as JAX's).

The check runs ``gc.collect()`` per trace, so it is for debugging only (as in JAX). A trace's
tracers refer to it, so they are among its referrers; after a collection only tracers some
live object holds are left.
"""

from __future__ import annotations

import gc
import os
import sys
import types
from typing import Any

from spmd._src.core import Tracer

_SPMD = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _ours(fun: types.FunctionType) -> bool:
    return fun.__code__.co_filename.startswith(_SPMD)


def _reachable(roots: list) -> set[int]:
    """The ids of the objects ``roots`` hold, through containers, objects and the closures of
    spmd's own functions (not a user's function: what it closes over is the user's, nor a
    function's globals or a module: those are everyone's)."""
    seen: set[int] = set()
    todo = list(roots)
    while todo:
        x = todo.pop()
        if id(x) in seen or isinstance(x, (types.ModuleType, type, types.FrameType)):
            continue
        seen.add(id(x))
        if isinstance(x, types.FunctionType):
            if _ours(x):
                todo.extend(c.cell_contents for c in x.__closure__ or () if _filled(c))
                todo.extend(x.__defaults__ or ())
        elif not isinstance(x, (str, bytes, int, float, types.CodeType)):
            todo.extend(gc.get_referents(x))
    return seen


def _machinery() -> list:
    """What spmd holds: the locals of its frames on the stack (a checkify state, a box a
    caller reads after the trace) and its modules' globals (caches: tree_util's of tree
    structures, whose nodes' static parts may hold a traced function)."""
    out = [vars(m) for n, m in list(sys.modules.items()) if n.split(".")[0] == "spmd"]
    f = sys._getframe(2)
    while f is not None:
        if f.f_code.co_filename.startswith(_SPMD):
            out.extend(f.f_locals.values())
        f = f.f_back
    return out


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 -- an empty cell raises
    except ValueError:
        return False
    return True


def check(trace: Any, result: Any, func_name: str | None, traced_for: str | None) -> None:
    """Raise if a tracer of ``trace`` (which has finished with the program ``result``) is
    still alive. Tracers the program itself holds (a rule in an equation's parameters that
    closes over one) or the transformations around the trace hold are their business, not a
    side effect's."""
    gc.collect()
    leaked = [r for r in gc.get_referrers(trace) if isinstance(r, Tracer) and r._trace is trace]
    if leaked:
        own = _reachable([result, *_machinery()])
        leaked = [t for t in leaked if id(t) not in own]
    if not leaked:
        return
    where = f" while tracing the function {func_name} for {traced_for}" if func_name else ""
    shown = "\n".join(repr(t) for t in leaked[:5])
    more = f"\n... and {len(leaked) - 5} more" if len(leaked) > 5 else ""
    raise Exception(  # noqa: TRY002 -- JAX raises a plain Exception here
        f"Leaked trace {type(trace).__name__}{where}. Leaked tracer(s):\n\n{shown}{more}\n"
        "A tracer outlived the transformation that made it: a side effect of the function "
        "(storing a traced value in a global, a list or an object) keeps it alive. Return "
        "the value instead, or see jax.debug.print/jax.debug.callback to inspect it."
    )
