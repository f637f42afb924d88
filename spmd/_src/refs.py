"""Mutable array references at the API: ``spmd.new_ref``, ``spmd.empty_ref``, ``spmd.freeze``,
``spmd.free_ref``, ``spmd.Ref`` and the ``spmd.ref`` module (``get``, ``set``, ``swap``,
``addupdate``), as JAX 0.10's; the type, value and primitives are in ``spmd._src.lax.refs``.

This module also holds the checks ``jit`` and ``make_jaxpr`` make on refs at their boundary:
a ref cannot be a result (its updates would have nowhere to go), and one ref cannot be passed
as two arguments (the program would see two refs where there is one buffer).

>>> import numpy as np
>>> r = new_ref(np.zeros(3, np.float32))
>>> r[...] += 1.0
>>> freeze(r)
Array([1., 1., 1.], dtype=float32)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from spmd._src import (
    core,
    refs_discharge,  # noqa: F401 - registers the rewrites under differentiation
)
from spmd._src.lax.refs import (
    AbstractRef,
    Ref,
    empty_ref,
    free_ref,
    freeze,
    is_ref,
    new_ref,
    ref_addupdate,
    ref_get,
    ref_set,
    ref_swap,
)


def get(ref: Any, idx: Any = None) -> Any:
    """``ref[idx]`` (all of it for ``idx`` None or ``()``)."""
    return ref_get(ref, idx)


def set(ref: Any, idx: Any, value: Any) -> None:  # noqa: A001 - JAX's name
    """``ref[idx] = value``."""
    ref_set(ref, idx, value)


def swap(ref: Any, idx: Any, value: Any, _function_name: str = "swap") -> Any:
    """Write ``value`` into ``ref[idx]``; returns the previous contents."""
    return ref_swap(ref, idx, value, _function_name)


def addupdate(ref: Any, idx: Any, x: Any) -> None:
    """``ref[idx] += x`` as one operation."""
    ref_addupdate(ref, idx, x)


def refs_as_trailing_args(closed: core.ClosedJaxpr) -> core.ClosedJaxpr:
    """``closed`` with its constants that are Refs turned into trailing inputs (in order)."""
    j = closed.jaxpr
    is_r = [type(c) is Ref for c in closed.consts]
    keep = [v for v, r in zip(j.constvars, is_r) if not r]
    moved = [v for v, r in zip(j.constvars, is_r) if r]
    new = core.Jaxpr(keep, [*j.invars, *moved], j.outvars, j.eqns, j.debug_info)
    return core.ClosedJaxpr(new, [c for c, r in zip(closed.consts, is_r) if not r])


def check_distinct_refs(
    leaves: Sequence[Any], paths: Callable[[], Sequence[str]], fun_name: str, traced_for: str
) -> None:
    """ValueError if one ref is among ``leaves`` (a call's flat arguments) twice."""
    seen: dict[int, int] = {}
    for i, x in enumerate(leaves):
        if type(x) is not Ref:
            continue
        j = seen.setdefault(id(x), i)
        if j != i:
            p = paths()
            raise ValueError(
                f"{traced_for}({fun_name}): the mutable array reference of type "
                f"{x.aval.str_short(False)} is passed as both {p[j]} and {p[i]}; a ref may be "
                "passed to a function as one argument only"
            )


def check_results(
    outs: Sequence[Any], ins: Sequence[Any], paths: Sequence[str], fun_name: str, traced_for: str
) -> None:
    """ValueError if a traced function's result is a ref: say which argument it is, or that
    the function made it."""
    for o in outs:
        if not is_ref(o):
            continue
        where = "was created inside the function"
        for x, p in zip(ins, paths):
            if x is o:
                where = f"was passed in as the argument {p}"
        raise ValueError(
            f"{traced_for}({fun_name}) returned a mutable array reference of type "
            f"{core.get_aval(o).str_short(False)}, but refs cannot be results of a traced "
            f"function (freeze it, or read it with r[...]); the ref {where}"
        )


__all__ = [
    "AbstractRef",
    "Ref",
    "addupdate",
    "check_distinct_refs",
    "check_results",
    "empty_ref",
    "free_ref",
    "freeze",
    "get",
    "new_ref",
    "refs_as_trailing_args",
    "set",
    "swap",
]
