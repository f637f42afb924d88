"""The jaxpr printer: ``make_jaxpr``'s text format, as JAX 0.10 prints it.

Variables are named a, b, ..., z, ba, ... in the order they are first printed; parameters print
sorted by name unless a primitive registers its own rule in ``core.pp_param_rules``; inner jaxprs
used more than once (or long ones) are hoisted into ``let name = { ... } in`` bindings. Types
print as ``f32[4,4]``, with the mesh axes a shard_map body value varies over as ``{V:x}`` or
``{V:(x,y)}`` (``ShapedArray.str_short``).

>>> # print(pp_toplevel_jaxpr(closed.jaxpr).format(80))
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import pretty_printer as pp
from spmd._src.core import (
    Atom,
    ClosedJaxpr,
    Jaxpr,
    JaxprEqn,
    Literal,
    PPContext,
    Var,
    _jaxprs_in_params,
    pp_alias_primitives,
    pp_param_rules,
)
from spmd._src.sharding import reduction_str

__all__ = [
    "pp_eqn",
    "pp_jaxpr",
    "pp_kv_pairs",
    "pp_toplevel_jaxpr",
    "pp_var",
    "pp_vars",
    "typed_str",
]


def pp_var(v: Atom, ctx: PPContext, print_shape: bool = True) -> str:
    if type(v) is Literal:
        return repr(v)
    s = ctx.name(v)
    if not print_shape:
        return s
    sh = v.sharding
    if sh is None:
        return f"{s}:{v.aval.str_short()}"
    return f"{s}:{typed_str(v.aval, sh)}"


def typed_str(aval: Any, sharding: Any, short: bool = True) -> str:
    """``f32[8@x,4]``: the dimensions Explicit mesh axes shard carry them (as JAX prints)."""
    if sharding is None:
        return aval.str_short(short)
    types = dict(zip(sharding.mesh.axis_names, sharding.mesh.axis_types))
    dims = [str(d) for d in aval.shape]
    for i, e in enumerate(sharding.spec._normalized(len(aval.shape))):
        entry = e if isinstance(e, tuple) else (() if e is None else (e,))
        axes = [a for a in entry if types.get(a).name == "Explicit"]
        if axes:
            dims[i] += "@" + (axes[0] if len(axes) == 1 else f"({','.join(axes)})")
    # An unreduced or reduced array says so after its dimensions: f32[4,2]{U:X}.
    return aval.str_short(short).replace(
        f"[{','.join(str(d) for d in aval.shape)}]",
        f"[{','.join(dims)}]{reduction_str(sharding.spec)}",
        1,
    )


def pp_vars(vs: Sequence[Atom], ctx: PPContext, separator: str = "", shapes=True) -> pp.Doc:
    return pp.nest(
        2,
        pp.group(
            pp.join(
                pp.text(separator) + pp.group(pp.brk()),
                [pp.text(pp_var(v, ctx, shapes)) for v in vs],
            )
        ),
    )


def _pp_value(v: Any, ctx: PPContext) -> pp.Doc:
    if isinstance(v, (ClosedJaxpr, Jaxpr)):
        j = v.jaxpr if isinstance(v, ClosedJaxpr) else v
        name = ctx.shared.get(id(j))
        return pp.text(name) if name is not None else pp_jaxpr(j, ctx)
    if isinstance(v, np.dtype):
        return pp.text(v.name)
    if isinstance(v, type) and issubclass(v, np.generic):
        return pp.text(np.dtype(v).name)
    if isinstance(v, tuple) and v and all(isinstance(x, (ClosedJaxpr, Jaxpr)) for x in v):
        # A tuple of jaxprs (cond's branches) prints one jaxpr per line, as JAX does.
        items = pp.concat([pp.concat([pp.hardline(), _pp_value(x, ctx)]) for x in v])
        return pp.concat([pp.text("("), pp.nest(2, items), pp.hardline(), pp.text(")")])
    # An object's address (a remat policy's ``<function f at 0x7f...>``) is masked, as JAX
    # masks it: the same program prints the same text in every process.
    return pp.text(_ADDRESS.sub(" at 0xXXXXXXXXXXXX>", str(v)))


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+>")


def pp_kv_pairs(pairs: list[tuple[str, Any]], ctx: PPContext) -> pp.Doc:
    if not pairs:
        return pp.nil()
    items = [pp.text(f"{k}=") + _pp_value(v, ctx) for k, v in pairs]
    return pp.group(
        pp.nest(2, pp.concat([pp.text("["), pp.brk(""), pp.join(pp.brk(), items)]))
        + pp.brk("")
        + pp.text("]")
    )


def _suggest_names(inner: Sequence[Atom], outer: Sequence[Atom], ctx: PPContext) -> None:
    # Each inner variable not yet named takes the name of the outer one it stands for, naming
    # that one first if it has none yet; an outer variable passed twice names only the first
    # inner one. JAX names them in this order too, so it decides which name comes first.
    if len(inner) != len(outer):
        return
    used: set[int] = set()
    for iv, ov in zip(inner, outer):
        if type(ov) is Var and id(ov) not in used and type(iv) is Var and id(iv) not in ctx.names:
            used.add(id(ov))
            ctx.alias(iv, ctx.name(ov))


def _alias_inner(eqn: JaxprEqn, ctx: PPContext) -> None:
    # Inner jaxprs of calls print with the names of the outer operands and results they
    # stand for, so the text reads as one program. This runs before the results print.
    if eqn.primitive not in pp_alias_primitives:
        return
    for p in eqn.params.values():
        inner = p.jaxpr if isinstance(p, ClosedJaxpr) else p if isinstance(p, Jaxpr) else None
        if inner is None or id(inner) in ctx.shared:
            continue
        _suggest_names(inner.invars, eqn.invars, ctx)
        _suggest_names(inner.outvars, eqn.outvars, ctx)


# Primitives whose equations print in a form of their own (a Ref's ``c <- a[...]``):
# prim -> rule(eqn, ctx) -> Doc.
pp_eqn_rules: dict[Any, Any] = {}


def pp_eqn(eqn: JaxprEqn, ctx: PPContext) -> pp.Doc:
    own = pp_eqn_rules.get(eqn.primitive)
    if own is not None:
        return own(eqn, ctx)
    _alias_inner(eqn, ctx)
    lhs = pp_vars(eqn.outvars, ctx)
    rule = pp_param_rules.get(eqn.primitive)
    pairs = rule(eqn.params) if rule else sorted(eqn.params.items())
    rhs = [pp.text(eqn.primitive.name), pp_kv_pairs(pairs, ctx), pp.text(" ")]
    rhs.append(pp_vars(eqn.invars, ctx, shapes=False))
    if not eqn.outvars:
        return pp.concat(rhs)
    return pp.concat([lhs, pp.text(" = "), *rhs])


def _mark_unused(jaxpr: Jaxpr, ctx: PPContext) -> None:
    used = {id(a) for e in jaxpr.eqns for a in e.invars if type(a) is Var}
    used.update(id(a) for a in jaxpr.outvars if type(a) is Var)
    ctx.unused.update(id(v) for e in jaxpr.eqns for v in e.outvars if id(v) not in used)


def pp_jaxpr(jaxpr: Jaxpr, ctx: PPContext) -> pp.Doc:
    constvars = pp_vars(jaxpr.constvars, ctx)
    invars = pp_vars(jaxpr.invars, ctx)
    # Flat (one line), equations are separated by "; ", as JAX prints them.
    eqns = pp.join(pp.brk("; "), [pp_eqn(e, ctx) for e in jaxpr.eqns])
    outs = pp.concat(
        [
            pp.text("("),
            pp_vars(jaxpr.outvars, ctx, separator=",", shapes=False),
            pp.text(",)" if len(jaxpr.outvars) == 1 else ")"),
        ]
    )
    return pp.group(
        pp.nest(
            2,
            pp.concat(
                [
                    pp.text("{ lambda "),
                    constvars,
                    pp.text("; "),
                    invars,
                    pp.text(". let"),
                    pp.nest(2, pp.brk() + eqns),
                    pp.brk(),
                    pp.text("in "),
                    outs,
                ]
            ),
        )
        + pp.text(" }")
    )


def pp_toplevel_jaxpr(top: Jaxpr) -> pp.Doc:
    """Print ``top``, hoisting inner jaxprs that are used more than once (or are long) into
    ``let name = { ... } in`` bindings before it, as JAX 0.10 does."""
    counts: dict[int, int] = {}
    objs: dict[int, Jaxpr] = {}
    names: dict[int, str] = {}
    queue = [top]
    while queue:
        j = queue.pop(0)
        objs[id(j)] = j
        counts[id(j)] = counts.get(id(j), 0) + (2 if j is not top and len(j.eqns) > 10 else 1)
        for eqn in j.eqns:
            inner = _jaxprs_in_params(eqn.params)
            queue.extend(inner)
            # A jit's program is named after the jit; any other (a custom_jvp's) is "jaxpr".
            name = eqn.params.get("name") if eqn.primitive in pp_alias_primitives else None
            if isinstance(name, str):
                for sub in inner:
                    names.setdefault(id(sub), name.strip("<>"))
    ctx = PPContext()
    taken: dict[str, int] = {}
    shared = []
    for jid, c in counts.items():
        if c == 1 or objs[jid] is top:
            continue
        name = names.get(jid, "jaxpr")
        n = taken.get(name, 0)
        taken[name] = n + 1
        if n:
            name = f"{name}{n}"
            taken[name] = taken.get(name, 0) + 1
        ctx.shared[jid] = name
        shared.append(jid)
    docs = []
    for jid in shared:
        # A hoisted jaxpr prints in full at its binding, not as a reference to itself.
        name = ctx.shared.pop(jid)
        docs.append(
            pp.concat([pp.text(f"let {name} = "), pp_jaxpr(objs[jid], ctx), pp.text(" in")])
        )
        ctx.shared[jid] = name
    # Only the top-level program's unused results print as `_` (inner ones keep names).
    _mark_unused(top, ctx)
    docs.append(pp_jaxpr(top, ctx))
    return pp.join(pp.hardline(), docs) if len(docs) > 1 else docs[0]
