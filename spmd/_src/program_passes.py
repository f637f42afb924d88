"""Rewrites the jit compiler applies to a jaxpr before writing it out as Python source.

Each pass takes a jaxpr and gives an equivalent one that runs faster as a sequence of NumPy
kernel calls; none changes what ``make_jaxpr`` prints, only what ``compile_jaxpr`` executes.
In the order ``dispatch.compile_jaxpr`` applies them:

- ``inline_calls``: calls whose kernel is just their inner program (``jit``, custom-derivative
  calls, ``checkpoint``) are spliced into the caller, as XLA inlines calls before it fuses.
  The other passes then see across the call, and no nested program costs its frame.
- ``fuse_transposed_dots``: ``transpose(dot_general(a, b))`` becomes ``dot_general(b, a)``.
- ``schedule_in_place``: a reader of an operand is moved before an elementwise equation that
  could otherwise not overwrite that operand.
- ``reusable_buffers``: which elementwise equations write into a dead operand's buffer.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from spmd._src import core
from spmd._src.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var
from spmd._src.interpreters import partial_eval as pe

# prim -> (params -> ClosedJaxpr): call-like primitives whose compiled kernel is their inner
# program run on the operands, nothing else (filled in where each primitive is defined).
inline_rules: dict[core.Primitive, Callable[..., ClosedJaxpr]] = {}

# Buffers smaller than this are not worth reusing (the call with out= costs about as much).
REUSE_MIN_SIZE = 4096


# ---------------------------------------------------------------------------------------------
# Inlining


def inline_calls(jaxpr: Jaxpr, consts: list[Any]) -> tuple[Jaxpr, list[Any]]:
    """``jaxpr`` with every call in ``inline_rules`` replaced by its inner equations.

    Each call site gets fresh variables (the same inner program may be called twice, as the
    two ReLU layers of an MLP call one ``relu`` jaxpr), and the inner program's consts become
    consts of the result. Nested calls are spliced recursively.
    """
    if not any(e.primitive in inline_rules for e in jaxpr.eqns):
        return jaxpr, consts
    constvars, new_consts, eqns = list(jaxpr.constvars), list(consts), []

    def atom(a, sub):
        return a if type(a) is Literal else sub.get(id(a), a)

    def walk(inner_eqns, sub: dict, fresh: bool) -> None:
        for e in inner_eqns:
            ins = [atom(a, sub) for a in e.invars]
            rule = inline_rules.get(e.primitive)
            if rule is None:
                outs = e.outvars
                if fresh:
                    outs = [sub.setdefault(id(v), Var(v.aval)) for v in e.outvars]
                eqns.append(JaxprEqn(ins, outs, e.primitive, e.params))
                continue
            closed = rule(**e.params)
            inner = closed.jaxpr
            isub: dict[int, Any] = {}
            for v, c in zip(inner.constvars, closed.consts, strict=True):
                cv = Var(v.aval)
                constvars.append(cv)
                new_consts.append(c)
                isub[id(v)] = cv
            for v, a in zip(inner.invars, ins, strict=True):
                isub[id(v)] = a
            walk(inner.eqns, isub, True)
            for v, o in zip(e.outvars, inner.outvars, strict=True):
                sub[id(v)] = atom(o, isub)

    top: dict[int, Any] = {}
    walk(jaxpr.eqns, top, False)
    outvars = [atom(a, top) for a in jaxpr.outvars]
    return Jaxpr(constvars, jaxpr.invars, outvars, eqns, jaxpr.debug_info), new_consts


# ---------------------------------------------------------------------------------------------
# Dot products


def fuse_transposed_dots(jaxpr: Jaxpr) -> Jaxpr:
    """Compute ``transpose(dot_general(a, b))`` as ``dot_general(b, a)``.

    Reverse mode produces weight gradients this way (JAX's transpose rule, as JAX prints it).
    Run literally, the result is a transposed view, and the update that combines it with the
    C-ordered weights reads memory across the grain; the swapped product gives the same values
    already in the weights' layout.
    """
    from spmd._src.lax.dot import dot_general_p
    from spmd._src.lax.shape import transpose_p

    uses: dict[int, int] = {}
    for eqn in jaxpr.eqns:
        for a in eqn.invars:
            uses[id(a)] = uses.get(id(a), 0) + 1
    for a in jaxpr.outvars:
        uses[id(a)] = uses.get(id(a), 0) + 1
    producer = {id(v): e for e in jaxpr.eqns for v in e.outvars}
    dropped: set[int] = set()
    replaced: dict[int, JaxprEqn] = {}
    for eqn in jaxpr.eqns:
        if eqn.primitive is not transpose_p or eqn.params["permutation"] != (1, 0):
            continue
        src = eqn.invars[0]
        dot = producer.get(id(src))
        if dot is None or dot.primitive is not dot_general_p or uses.get(id(src)) != 1:
            continue
        (lc, rc), (lb, rb) = dot.params["dimension_numbers"]
        lhs, rhs = dot.invars
        if lb or rb or lhs.aval.ndim != 2 or rhs.aval.ndim != 2:
            continue
        params = dict(dot.params, dimension_numbers=((tuple(rc), tuple(lc)), ((), ())))
        replaced[id(eqn)] = JaxprEqn([rhs, lhs], eqn.outvars, dot_general_p, params)
        dropped.add(id(dot))
    if not replaced:
        return jaxpr
    eqns = [replaced.get(id(e), e) for e in jaxpr.eqns if id(e) not in dropped]
    return Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, eqns, jaxpr.debug_info)


# ---------------------------------------------------------------------------------------------
# Buffers


def takes_out(eqn: JaxprEqn) -> bool:
    """Whether the equation's kernel takes ``out=``: a NumPy ufunc, or a primitive that says
    its kernel does."""
    prim = eqn.primitive
    return prim.takes_out or (isinstance(prim.impl, np.ufunc) and not eqn.params)


def _roots(jaxpr: Jaxpr) -> dict[int, frozenset]:
    """var -> the buffers allocated by this program that it may be (a view of): itself, for
    the result of a kernel that returns fresh memory."""
    roots: dict[int, frozenset] = {}
    for eqn in jaxpr.eqns:
        fresh = (eqn.primitive.fresh_outputs or takes_out(eqn)) and all(
            v.aval.ndim for v in eqn.outvars
        )
        if fresh:
            for v in eqn.outvars:
                roots[id(v)] = frozenset((id(v),))
        else:
            inherited = frozenset().union(
                *(roots.get(id(a), frozenset()) for a in eqn.invars if type(a) is not Literal)
            )
            for v in eqn.outvars:
                roots[id(v)] = inherited
    return roots


def _overwritable(eqn: JaxprEqn, a, roots: dict, external: set) -> bool:
    """Whether ``eqn`` (an elementwise kernel taking ``out=``) could write its result over
    operand ``a``'s buffer, leaving aside who reads ``a`` later."""
    result = eqn.outvars[0].aval
    return (
        type(a) is not Literal
        and id(a) not in external
        and roots.get(id(a)) == frozenset((id(a),))
        and a.aval.shape == result.shape
        and a.aval.dtype == result.dtype
    )


def _candidate(eqn: JaxprEqn) -> bool:
    return takes_out(eqn) and len(eqn.outvars) == 1 and eqn.outvars[0].aval.size >= REUSE_MIN_SIZE


def schedule_in_place(jaxpr: Jaxpr) -> Jaxpr:
    """Move readers of an operand ahead of an elementwise equation so it can overwrite it.

    ``relu(z)`` and the backward pass's mask ``z > 0`` both read ``z``; in program order the
    mask comes second and ``relu`` needs a new buffer. A later reader whose operands are all
    computed already can run first instead (pure equations commute), and then ``relu`` writes
    over ``z``, which is still in cache. Only done when every later reader can move and no
    view of the operand exists.
    """
    roots = _roots(jaxpr)
    aliased = {r for vid, rs in roots.items() for r in rs if rs != frozenset((vid,))}
    external = {id(v) for v in jaxpr.invars} | {id(v) for v in jaxpr.constvars}
    readers: dict[int, list[JaxprEqn]] = {}
    for eqn in jaxpr.eqns:
        for a in {id(a): a for a in eqn.invars if type(a) is not Literal}.values():
            readers.setdefault(id(a), []).append(eqn)
    if not any(_candidate(e) for e in jaxpr.eqns):
        return jaxpr
    defined = set(external)
    emitted: set[int] = set()
    out: list[JaxprEqn] = []

    def emit(e: JaxprEqn) -> None:
        out.append(e)
        emitted.add(id(e))
        defined.update(id(v) for v in e.outvars)

    def ready(e: JaxprEqn) -> bool:
        return not pe.has_effects(e) and all(
            type(a) is Literal or id(a) in defined for a in e.invars
        )

    moved = False
    for eqn in jaxpr.eqns:
        if id(eqn) in emitted:
            continue
        if _candidate(eqn):
            for a in eqn.invars:
                if not _overwritable(eqn, a, roots, external) or id(a) in aliased:
                    continue
                later = [r for r in readers[id(a)] if r is not eqn and id(r) not in emitted]
                if later and all(ready(r) for r in later):
                    for r in later:
                        emit(r)
                    moved = True
                    break
        emit(eqn)
    if not moved:
        return jaxpr
    return Jaxpr(jaxpr.constvars, jaxpr.invars, jaxpr.outvars, out, jaxpr.debug_info)


def reusable_buffers(jaxpr: Jaxpr, last_use: dict[int, int]) -> dict[int, int]:
    """Equation index -> id of a dead operand whose buffer the equation can write into.

    Like XLA's buffer reuse: an elementwise kernel taking ``out=`` (a NumPy ufunc, select_n)
    may write its result into an operand of the same type that nothing reads afterwards. Only
    buffers this program allocated itself are reused (results of fresh-output kernels), and
    only when no value that may be a view of them (the result of any other primitive, e.g. a
    transpose) is still live.
    """
    external = {id(v) for v in jaxpr.invars} | {id(v) for v in jaxpr.constvars}
    roots = _roots(jaxpr)
    alias_last: dict[int, int] = {}
    for vid, rs in roots.items():
        for r in rs:
            alias_last[r] = max(alias_last.get(r, -1), last_use.get(vid, -1))
    out: dict[int, int] = {}
    for i, eqn in enumerate(jaxpr.eqns):
        if not _candidate(eqn):
            continue
        for pos, a in enumerate(eqn.invars):
            if (
                _overwritable(eqn, a, roots, external)
                and last_use.get(id(a)) == i
                and alias_last.get(id(a), -1) <= i
                and not _shares_buffer(eqn, pos, roots)
            ):
                out[i] = id(a)
                break
    return out


def _shares_buffer(eqn: JaxprEqn, pos: int, roots: dict) -> bool:
    """Whether another operand of ``eqn`` may be (a view of) operand ``pos``'s buffer, for a
    kernel that is not a NumPy ufunc. A ufunc reads overlapping operands safely when it
    writes; a multi-step kernel taking ``out=`` (select_n's bit arithmetic) would read an
    operand it has already overwritten (``select_n(p, stop_gradient(x), x)``: both cases are
    x's buffer)."""
    if isinstance(eqn.primitive.impl, np.ufunc):
        return False
    mine = roots.get(id(eqn.invars[pos]), frozenset())
    return any(
        k != pos and type(b) is not Literal and mine & roots.get(id(b), frozenset())
        for k, b in enumerate(eqn.invars)
    )


__all__ = [
    "REUSE_MIN_SIZE",
    "fuse_transposed_dots",
    "inline_calls",
    "inline_rules",
    "reusable_buffers",
    "schedule_in_place",
    "takes_out",
]
