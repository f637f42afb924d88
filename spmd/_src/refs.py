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
    freeze_p,
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


def check_not_closed_over(
    leaves: Sequence[Any], closed: Sequence[Any], paths: Callable[[], Sequence[str]],
    fun_name: str, traced_for: str,
) -> None:  # fmt: skip
    """ValueError if a ref among ``leaves`` (a call's flat arguments) is also among ``closed``
    (the refs its program closes over): the program would see two refs where there is one
    buffer, as with one ref passed twice."""
    ids = {id(c) for c in closed}
    for i, x in enumerate(leaves):
        if type(x) is Ref and id(x) in ids:
            raise ValueError(
                f"when tracing {fun_name} for {traced_for}, a mutable array reference of type "
                f"{x.aval.str_short(False)} was both closed over and passed as the argument "
                f"{paths()[i]}"
            )


def check_freezes(jaxpr: core.Jaxpr, fun_name: str, traced_for: str) -> None:
    """ValueError if ``jaxpr`` (or a loop's or branch's body in it) freezes a ref that it did
    not create: one passed in or closed over. A ref is frozen in the scope that made it, where
    nothing can still write into it after."""
    outer = {*jaxpr.invars, *jaxpr.constvars}
    for eqn in jaxpr.eqns:
        if eqn.primitive is freeze_p and eqn.invars[0] in outer:
            aval = eqn.invars[0].aval
            raise ValueError(
                f"{traced_for}({fun_name}): freeze of a mutable array reference of type "
                f"{aval.str_short(False)} that was created outside the function or body that "
                "freezes it (passed in or closed over); a ref can be frozen only in the scope "
                "that created it: read it with r[...] instead"
            )
        for sub in core._jaxprs_in_params(eqn.params):
            check_freezes(sub, fun_name, traced_for)


__all__ = [
    "AbstractRef",
    "Ref",
    "addupdate",
    "check_distinct_refs",
    "check_freezes",
    "check_not_closed_over",
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
