"""Shared machinery of the control-flow primitives (cond, scan, while).

Their bodies are closed jaxprs traced from user functions. Constants a body closes over (arrays,
and tracers of enclosing transformations) are hoisted into leading operands, so every
transformation of the primitive sees them. The rules of the primitives are jaxpr-to-jaxpr
transformations of those bodies, built here on the interpreters:

- ``jvp_jaxpr``: the body's JVP as a jaxpr on (primals, nonzero tangents);
- ``batch_jaxpr_at0`` / ``batched_outputs``: the body batched along axis 0, with the outputs
  that must be batched forced to be (a loop carry is batched on both sides or on neither);
- ``partial_eval_jaxpr_inst``: split a body into a known part (which also returns residuals)
  and an unknown part, forcing chosen outputs to the unknown side;
- ``transpose_jaxpr``: the cotangents of a body's linear inputs from its output cotangents.

>>> # jvp_jaxpr(closed, [True]) -> a jaxpr (x, x_dot) -> (f(x), f'(x) x_dot)
"""

from __future__ import annotations

import inspect
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src import tree_util as tu
from spmd._src.core import ClosedJaxpr, Jaxpr, ShapedArray, Var
from spmd._src.core_printing import typed_str
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.interpreters import partial_eval as pe
from spmd._src.interpreters.ad import Zero
from spmd._src.lax import callback, rules
from spmd._src.lax import elementwise as lax_ew

# ---------------------------------------------------------------------------------------------
# Tracing user functions


def fun_name(fun: Callable) -> str:
    return getattr(fun, "__name__", None) or type(fun).__name__


def fun_sourceinfo(fun: Callable) -> str:
    """``name at file:line`` for error messages, as JAX writes it."""
    code = getattr(fun, "__code__", None)
    if code is None:
        return fun_name(fun)
    return f"{fun_name(fun)} at {code.co_filename}:{code.co_firstlineno}"


def trace_tree_fun(
    fun: Callable[..., Any],
    in_tree: tu.PyTreeDef,
    in_avals: Sequence[ShapedArray],
    traced_for: str,
    in_shardings: Sequence[Any] | None = None,
) -> tuple[ClosedJaxpr, Any]:
    """Trace ``fun(*in_tree.unflatten(leaves))`` to a closed jaxpr of the flat leaves
    (``in_shardings``: their shardings in types, Explicit mesh axes, if any).

    Returns the jaxpr and the output pytree (with avals for leaves, for structure checks).
    """
    box: list[Any] = []

    def flat(*leaves):
        args = tu.tree_unflatten(in_tree, leaves)
        out = fun(*args)
        out_leaves, out_tree = tu.tree_flatten(out)
        for i, o in enumerate(out_leaves):
            if not core.valid_jaxtype(o):
                raise TypeError(
                    f"{traced_for}: output {i} of {fun_name(fun)} is of type {type(o)}, which "
                    "is not a valid JAX type"
                )
        box.append(out_tree)
        return out_leaves

    names = arg_names(fun, tu.tree_unflatten(in_tree, list(in_avals)))
    debug = pe.DebugInfo(traced_for, fun_name(fun), names)
    closed = pe.trace_to_jaxpr(flat, list(in_avals), debug, typed(in_shardings))
    out_tree = box[0]
    return closed, tu.tree_unflatten(out_tree, closed.out_avals)


def types_of(leaves: Sequence[Any]) -> list[Any] | None:
    """The operands' shardings in types (Explicit mesh axes), or None when none has one."""
    return typed([sharding_rules.type_sharding(x) for x in leaves])


def typed(shardings: Sequence[Any] | None) -> list[Any] | None:
    if shardings is None or all(s is None for s in shardings):
        return None
    return list(shardings)


def with_types(closed: ClosedJaxpr, in_types: Sequence[Any] | None) -> ClosedJaxpr:
    """``closed`` with its variables typed (sharding in types, Explicit mesh axes) as its
    inputs typed ``in_types`` make them: a body partial evaluation built from avals alone
    has untyped variables, and its transpose gives each cotangent its primal's type (a
    contraction over a sharded batch needs it to say where its sum goes)."""
    if typed(in_types) is None or any(v.sharding is not None for v in closed.jaxpr.invars):
        return closed

    def make():
        j = closed.jaxpr
        env = sharding_rules.var_shardings(j, list(in_types))
        new: dict[int, Var] = {}

        def var(v):
            if type(v) is not Var:
                return v
            if id(v) not in new:
                s = sharding_rules.explicit_or_none(env.get(id(v)))
                new[id(v)] = Var(v.aval, v.suffix, s if s is not None else v.sharding)
            return new[id(v)]

        eqns = [
            e.replace(invars=[var(a) for a in e.invars], outvars=[var(v) for v in e.outvars])
            for e in j.eqns
        ]
        jaxpr = Jaxpr([var(v) for v in j.constvars], [var(v) for v in j.invars],
                      [var(v) for v in j.outvars], eqns, j.debug_info)  # fmt: skip
        return ClosedJaxpr(jaxpr, closed.consts)

    return cached("with_types", closed, tuple(in_types), make)


def hoist_consts(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list[Any]]:
    """The jaxpr with its constants turned into leading inputs, and the constants' values."""
    j = closed.jaxpr
    if not j.constvars:
        return closed, []
    new = Jaxpr([], j.constvars + j.invars, j.outvars, j.eqns, j.debug_info)
    return ClosedJaxpr(new, []), list(closed.consts)


def as_value(x: Any) -> Any:
    """``x`` as an array value (lax.asarray): tracers and arrays pass, scalars become arrays."""
    if isinstance(x, core.Tracer) or hasattr(x, "_value"):
        return x
    aval = core.get_aval(x)
    return core.make_concrete(np.asarray(x, dtype=aval.dtype), aval.weak_type)


def forwarding(jaxpr: Jaxpr) -> list[int | None]:
    """For each output, the index of the input it is (passed through unchanged), or None."""
    idx = {id(v): i for i, v in enumerate(jaxpr.invars)}
    return [idx.get(id(v)) if type(v) is Var else None for v in jaxpr.outvars]


def prune_outputs(closed: ClosedJaxpr, keep: Sequence[bool]) -> ClosedJaxpr:
    j = closed.jaxpr
    outs = [v for v, k in zip(j.outvars, keep, strict=True) if k]
    return ClosedJaxpr(pe.dce_jaxpr(Jaxpr(j.constvars, j.invars, outs, j.eqns)), closed.consts)


def permute(closed: ClosedJaxpr, in_order: Sequence[int], out_order: Sequence[int]):
    """The same program with its inputs and outputs reordered (``new[k] = old[order[k]]``)."""
    j = closed.jaxpr
    new = Jaxpr(
        j.constvars,
        [j.invars[i] for i in in_order],
        [j.outvars[i] for i in out_order],
        j.eqns,
        j.debug_info,
    )
    return ClosedJaxpr(new, closed.consts)


def add_unused_inputs(closed: ClosedJaxpr, avals: Sequence[ShapedArray]) -> ClosedJaxpr:
    """The program with extra trailing inputs it ignores."""
    j = closed.jaxpr
    new = Jaxpr(j.constvars, j.invars + [Var(a) for a in avals], j.outvars, j.eqns)
    return ClosedJaxpr(new, closed.consts)


def used_inputs(jaxpr: Jaxpr) -> list[bool]:
    """Which inputs an output depends on (after dead-code elimination)."""
    live = pe.dce_jaxpr(jaxpr)
    used = {id(a) for e in live.eqns for a in e.invars if type(a) is Var}
    used |= {id(a) for a in live.outvars if type(a) is Var}
    return [id(v) in used for v in jaxpr.invars]


def drop_inputs(closed: ClosedJaxpr, keep: Sequence[bool]) -> ClosedJaxpr:
    """The program without the inputs not kept (which must be unused)."""
    j = closed.jaxpr
    new = Jaxpr(j.constvars, [v for v, k in zip(j.invars, keep) if k], j.outvars, j.eqns)
    return ClosedJaxpr(new, closed.consts)


def typematch(a: ShapedArray, b: ShapedArray) -> bool:
    return core.typematch(a, b)


def typematches(xs: Sequence[ShapedArray], ys: Sequence[ShapedArray]) -> bool:
    """Equal lengths and types (weak types aside)."""
    return len(xs) == len(ys) and all(core.typematch(a, b) for a, b in zip(xs, ys))


def is_float(aval: ShapedArray) -> bool:
    return dtypes.issubdtype(aval.dtype, np.inexact)


def strong(aval: ShapedArray) -> ShapedArray:
    return aval.strip_weak_type()


# ---------------------------------------------------------------------------------------------
# Pytree structure differences (for the branch and carry mismatch errors)


def _node(x: Any) -> tuple[str, list[tuple[str, Any]]] | None:
    """(kind, [(key string, child)]) of a container node, or None for a leaf."""
    if x is None:
        return "None", []
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return type(x).__name__, [(f".{k}", getattr(x, k)) for k in x._fields]
    if isinstance(x, (tuple, list)):
        return type(x).__name__, [(f"[{i}]", c) for i, c in enumerate(x)]
    if isinstance(x, dict):
        return "dict", [(f"[{k!r}]", x[k]) for k in sorted(x, key=repr)]
    if tu.treedef_is_leaf(tu.tree_structure(x)):
        return None
    return type(x).__name__, []


def structure_diffs(
    a: Any, b: Any, path: str = "", leaf: str | None = None
) -> list[tuple[str, str, str, str]]:
    """Where pytrees ``a`` and ``b`` differ: (path, what a is, what b is, why), worded as
    JAX's ``equality_errors``. ``leaf`` names a leaf (default: its type)."""
    na, nb = _node(a), _node(b)
    if na is None and nb is None:
        return []

    def what(x, n):
        return leaf if n is None and leaf is not None else str(type(x))

    if na is None or nb is None or type(a) is not type(b):
        return [(path, what(a, na), what(b, nb), "their Python types differ")]
    if isinstance(a, (list, tuple)) and len(a) != len(b):
        return [
            (
                path,
                f"{type(a).__name__} of length {len(a)}",
                f"{type(b).__name__} of length {len(b)}",
                "the lengths do not match",
            )
        ]
    ca, cb = na[1], nb[1]
    if len(ca) != len(cb):

        def kids(x, n):
            return f"{type(x)} with {n} child{'ren' if n > 1 else ''}"

        return [(path, kids(a, len(ca)), kids(b, len(cb)), "the numbers of children do not match")]
    if [k for k, _ in ca] != [k for k, _ in cb] or (
        not ca and tu.tree_structure(a) != tu.tree_structure(b)
    ):
        return [
            (
                path,
                f"{type(a)} with pytree metadata {tu.tree_structure(a)}",
                f"{type(b)} with pytree metadata {tu.tree_structure(b)}",
                "the pytree node metadata does not match",
            )
        ]
    out = []
    for (k, x), (_, y) in zip(ca, cb):
        out += structure_diffs(x, y, path + k, leaf)
    return out


def leaf_paths(tree: Any) -> list[str]:
    """The key path of each leaf of ``tree`` as a string (``['a'][0]``)."""
    return [tu.keystr(p) for p, _ in tu.tree_flatten_with_path(tree)[0]]


def arg_names(fun: Callable, args: tuple) -> list[str]:
    """Names of the leaves of ``fun(*args)``'s arguments, by ``fun``'s parameter names
    (``x``, ``carry['h']``), for concretization errors raised while tracing it."""
    try:
        params = [
            p.name
            for p in inspect.signature(fun).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        params = []
    names = []
    for i, a in enumerate(args):
        base = params[i] if i < len(params) else f"args[{i}]"
        names += [base + p for p in leaf_paths(a)]
    return names


def capitalize(s: str) -> str:
    return s[:1].upper() + s[1:]


def join_diffs(diffs: list[str], cap: bool = True) -> str:
    """One difference as a sentence, several as a bulleted list."""
    if len(diffs) == 1:
        return f"{capitalize(diffs[0]) if cap else diffs[0]}.\n"
    return "\n".join(f"  * {d};" for d in diffs[:-1]) + f"\n  * {diffs[-1]}.\n"


def mismatch_reason(a: ShapedArray, b: ShapedArray) -> str:
    """Why two types differ, as JAX words it (``, so the dtypes do not match``)."""
    what = []
    if a.dtype != b.dtype:
        what.append("the dtypes do not match")
    if a.shape != b.shape:
        what.append("the shapes do not match")
    if not what:
        return ""
    if len(what) == 1:
        return ", so " + what[0]
    return ", so " + ", ".join(what[:-1]) + ", and " + what[-1]


# ---------------------------------------------------------------------------------------------
# Caches of derived jaxprs, per body and arguments (bodies are immutable once traced)

_caches: dict[str, weakref.WeakKeyDictionary] = {}


def cached(kind: str, closed: ClosedJaxpr, key: Any, make: Callable[[], Any]) -> Any:
    """``make()``, remembered per ``(kind, closed, key)`` for as long as ``closed`` lives."""
    per = _caches.setdefault(kind, weakref.WeakKeyDictionary()).setdefault(closed, {})
    hit = per.get(key)
    if hit is None:
        hit = make()
        if len(per) < 64:
            per[key] = hit
    return hit


def masked_effects(closed: ClosedJaxpr) -> ClosedJaxpr:
    """``closed`` with a leading bool input: the debug callbacks in it run only where that is
    True (per device, once batched over device axes; see ``callback.effects_where``)."""

    def make():
        def fun(active, *args):
            with callback.effects_where(active):
                return core.eval_jaxpr(
                    closed.jaxpr, closed.consts, *args, rebind=callback.rebind_masked
                )

        return pe.trace_to_jaxpr(fun, [ShapedArray((), np.dtype(bool))] + list(closed.in_avals))

    return cached("masked_effects", closed, (), make)


# ---------------------------------------------------------------------------------------------
# JVP of a jaxpr


def jvp_jaxpr(
    closed: ClosedJaxpr, nonzeros: Sequence[bool], instantiate: bool | Sequence[bool] = False
) -> tuple[ClosedJaxpr, list[bool]]:
    """The forward-mode derivative of ``closed`` as a jaxpr.

    It takes the primal inputs followed by the tangents of the inputs marked in ``nonzeros``,
    and returns the primal outputs followed by the output tangents that are not zero (or are
    forced by ``instantiate``); the second result says which outputs have a tangent. Integer
    and boolean values never carry a tangent (theirs is float0: no information).
    """
    n_out = len(closed.out_avals)
    inst = [instantiate] * n_out if isinstance(instantiate, bool) else list(instantiate)
    nonzeros = [nz and is_float(a) for nz, a in zip(nonzeros, closed.in_avals, strict=True)]
    key = (tuple(nonzeros), tuple(inst))
    return cached("jvp", closed, key, lambda: _jvp_jaxpr(closed, nonzeros, inst))


def _jvp_jaxpr(closed, nonzeros, inst):
    in_avals = closed.in_avals
    # Tangents keep their primal's weak type and memory (as JAX's tangent avals do): the
    # tangent of a slice of xs in host memory is there too, and so its cotangent.
    t_avals = [
        ShapedArray(a.shape, ad.tangent_dtype(a.dtype), a.weak_type, memory_space=a.memory_space)
        for a, nz in zip(in_avals, nonzeros)
        if nz
    ]
    box = []

    def fun(*args):
        primals = list(args[: len(in_avals)])
        nz_t = iter(args[len(in_avals) :])
        tangents = [
            next(nz_t) if nz else Zero(ad.tangent_aval(a)) for a, nz in zip(in_avals, nonzeros)
        ]
        outs, t_outs = ad.jvp_flat(
            lambda *xs: core.eval_jaxpr(closed.jaxpr, closed.consts, *xs), primals, tangents
        )
        out_nz = []
        tangent_outs = []
        for a, t, force in zip(closed.out_avals, t_outs, inst):
            if not is_float(a):
                t = Zero(ad.tangent_aval(a))
            nz = type(t) is not Zero or (force and is_float(a))
            out_nz.append(nz)
            if nz:
                tangent_outs.append(ad.instantiate(t))
        box.append(out_nz)
        return list(outs) + tangent_outs

    jvp = pe.trace_to_jaxpr(fun, list(in_avals) + t_avals)
    return jvp, box[0]


# ---------------------------------------------------------------------------------------------
# Batching a jaxpr


def batched_avals(avals: Sequence[ShapedArray], batched: Sequence[bool], size: int):
    return [
        ShapedArray((size, *a.shape), a.dtype, a.weak_type) if b else a
        for a, b in zip(avals, batched, strict=True)
    ]


def batched_outputs(
    closed: ClosedJaxpr, axis_data: batching.AxisData, in_batched: Sequence[bool]
) -> list[bool]:
    """Which outputs of ``closed`` depend on the mapped axis, given which inputs do."""
    _, dims = batching.batch_jaxpr(closed, axis_data, [0 if b else None for b in in_batched])
    return [d is not None for d in dims]


def batch_jaxpr_at0(
    closed: ClosedJaxpr,
    axis_data: batching.AxisData,
    in_batched: Sequence[bool],
    out_batched: Sequence[bool],
) -> ClosedJaxpr:
    """``closed`` batched along axis 0 of the inputs in ``in_batched``; the outputs in
    ``out_batched`` come out batched along axis 0 (broadcast if they do not depend on the
    mapped axis), the others unbatched (they must not depend on it)."""
    key = (axis_data, tuple(in_batched), tuple(out_batched))
    return cached(
        "batch", closed, key, lambda: _batch_jaxpr_at0(closed, axis_data, in_batched, out_batched)
    )


def _batch_jaxpr_at0(closed, axis_data, in_batched, out_batched):
    return _batch_jaxpr_axes(
        closed,
        axis_data,
        [0 if b else None for b in in_batched],
        [0 if b else None for b in out_batched],
    )


def batch_jaxpr_axes(
    closed: ClosedJaxpr,
    axis_data: batching.AxisData,
    in_dims: Sequence[int | None],
    out_dims: Sequence[int | None],
) -> ClosedJaxpr:
    """``closed`` batched along ``in_dims`` of its inputs (None: unbatched), its outputs
    batched along ``out_dims`` (broadcast if they do not depend on the mapped axis; None: they
    must not)."""
    key = ("axes", tuple(in_dims), tuple(out_dims), axis_data)
    return cached(
        "batch", closed, key, lambda: _batch_jaxpr_axes(closed, axis_data, in_dims, out_dims)
    )


def _batch_jaxpr_axes(closed, axis_data, in_dims, out_dims):
    size = axis_data.size

    def fun(*args):
        vals, dims = batching.batch_fun(
            lambda *xs: core.eval_jaxpr(closed.jaxpr, closed.consts, *xs), axis_data, args, in_dims
        )
        outs = []
        for v, d, want in zip(vals, dims, out_dims, strict=True):
            if want is not None:
                outs.append(rules.bdim_to(v, d, want, size))
            elif d is not None:
                raise AssertionError("batch_jaxpr_axes: an output forced unbatched is batched")
            else:
                outs.append(v)
        return outs

    avals = [
        a if d is None else ShapedArray(a.shape[:d] + (size,) + a.shape[d:], a.dtype, a.weak_type)
        for a, d in zip(closed.in_avals, in_dims, strict=True)
    ]
    return pe.trace_to_jaxpr(fun, avals)


def move_to_front(x: Any, d: int | None, size: int, batched: bool) -> Any:
    """``x`` with its batch dimension first when ``batched`` (broadcast if it has none)."""
    if not batched:
        assert d is None
        return x
    return rules.bdim_to(x, d, 0, size)


# ---------------------------------------------------------------------------------------------
# Partial evaluation with forced unknown outputs


def partial_eval_jaxpr_inst(
    closed: ClosedJaxpr, in_unknowns: Sequence[bool], instantiate: Sequence[bool]
) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], int]:
    """``pe.partial_eval_jaxpr``, with the outputs marked in ``instantiate`` made unknown even
    where they can be computed from the known inputs (they are passed through as residuals).

    Returns ``(known, unknown, out_unknowns, num_residuals)``: ``known`` maps the known inputs
    to the known outputs followed by the residuals; ``unknown`` maps the residuals followed by
    the unknown inputs to the unknown outputs.
    """
    known, unknown, out_uk, nres = pe.partial_eval_jaxpr(closed, in_unknowns)
    forced = [f and not u for f, u in zip(instantiate, out_uk, strict=True)]
    if not any(forced):
        return known, unknown, out_uk, nres
    kj, uj = known.jaxpr, unknown.jaxpr
    n_known = out_uk.count(False)
    k_outs, res = kj.outvars[:n_known], kj.outvars[n_known:]
    keep, extra = [], []
    k_it = iter(k_outs)
    for u, f in zip(out_uk, forced):
        if not u:
            (extra if f else keep).append(next(k_it))
    binders = [Var(a.aval) for a in extra]
    u_it, b_it = iter(uj.outvars), iter(binders)
    outs = [next(u_it) if u else next(b_it) for u, f in zip(out_uk, forced) if u or f]
    new_known = Jaxpr(kj.constvars, kj.invars, keep + res + extra, kj.eqns)
    new_unknown = Jaxpr([], uj.invars[:nres] + binders + uj.invars[nres:], outs, uj.eqns)
    out_uk = [u or f for u, f in zip(out_uk, forced)]
    return (
        ClosedJaxpr(new_known, known.consts),
        ClosedJaxpr(new_unknown, []),
        out_uk,
        nres + len(extra),
    )


# ---------------------------------------------------------------------------------------------
# Transposing a jaxpr


def transpose_jaxpr(
    closed: ClosedJaxpr,
    linear: Sequence[bool],
    ct_nonzero: Sequence[bool],
    accumulate: Sequence[bool] = (),
) -> ClosedJaxpr:
    """The transpose of ``closed`` in its inputs marked ``linear``, as a jaxpr.

    It takes the non-linear inputs, then a running cotangent for each linear input marked in
    ``accumulate`` (one flag per linear input; none by default), then the output cotangents
    marked in ``ct_nonzero`` (the others are zero), and returns the cotangents of the linear
    inputs (zeros instantiated), a running one plus what the body adds to it. Each addition is
    made where its term is computed, as JAX's loops accumulate their consts' cotangents.
    """
    accumulate = tuple(accumulate) or (False,) * sum(linear)
    key = (tuple(linear), tuple(ct_nonzero), accumulate)
    return cached(
        "transpose", closed, key, lambda: _transpose(closed, linear, ct_nonzero, accumulate)
    )


def _transpose(closed, linear, ct_nonzero, accumulate):
    j = closed.jaxpr
    lin_vars = [v for v, lin in zip(j.invars, linear, strict=True) if lin]
    res_vars = [v for v, lin in zip(j.invars, linear) if not lin]
    # The non-linear inputs join the constants: backward_pass evaluates what depends only on
    # them forward, and transposes the rest.
    body = Jaxpr(j.constvars + res_vars, lin_vars, j.outvars, j.eqns)
    res_avals = [v.aval for v in res_vars]
    acc_avals = [ad.tangent_aval(v.aval) for v, a in zip(lin_vars, accumulate, strict=True) if a]
    out_avals = [ad.tangent_aval(a) for a in closed.out_avals]
    ct_avals = [a for a, nz in zip(out_avals, ct_nonzero, strict=True) if nz]

    def fun(*args):
        n_res, n_acc = len(res_avals), len(acc_avals)
        res = list(args[:n_res])
        accs = iter(args[n_res : n_res + n_acc])
        init = [next(accs) if a else None for a in accumulate]
        nz_cts = iter(args[n_res + n_acc :])
        cts = [next(nz_cts) if nz else Zero(a) for a, nz in zip(out_avals, ct_nonzero)]
        cts_in = ad.backward_pass(body, list(closed.consts) + res, cts, cts_init=init)
        return [
            ad.instantiate(Zero(ad.tangent_aval(v.aval)) if c is None else c)
            for c, v in zip(cts_in, lin_vars)
        ]

    return pe.trace_to_jaxpr(fun, res_avals + acc_avals + ct_avals)


def retype_inputs(closed: ClosedJaxpr, new_avals: dict[int, ShapedArray]) -> ClosedJaxpr:
    """``closed`` with the inputs at the positions in ``new_avals`` of those types (weak types
    differing only); the conversions of those inputs that become no-ops are dropped."""
    if all(closed.in_avals[i].weak_type == a.weak_type for i, a in new_avals.items()):
        return closed

    def make():
        j = closed.jaxpr
        invars = [Var(new_avals[i]) if i in new_avals else v for i, v in enumerate(j.invars)]
        alias: dict[int, Any] = {id(v): n for v, n in zip(j.invars, invars) if v is not n}

        def sub(a):
            return alias.get(id(a), a) if type(a) is Var else a

        eqns = []
        for e in j.eqns:
            e = e.replace(invars=[sub(a) for a in e.invars])
            x = e.invars[0] if e.invars else None
            if (
                e.primitive.name == "convert_element_type"
                and type(x) is Var
                and any(x is n for n in invars)
                and x.aval.dtype == e.outvars[0].aval.dtype
                and x.aval.weak_type == e.outvars[0].aval.weak_type
            ):
                alias[id(e.outvars[0])] = x
                continue
            eqns.append(e)
        outvars = [sub(a) for a in j.outvars]
        return ClosedJaxpr(Jaxpr(j.constvars, invars, outvars, eqns, j.debug_info), closed.consts)

    key = tuple(sorted((i, a, a.weak_type) for i, a in new_avals.items()))
    return cached("retype", closed, key, make)


def instantiate_ct(ct: Any, aval: ShapedArray) -> Any:
    """A concrete cotangent (zeros for a symbolic zero or None)."""
    if ct is None:
        return rules.zeros_like_aval(ad.tangent_aval(aval))
    return ad.instantiate(ct)


# ---------------------------------------------------------------------------------------------
# Loop carries (shared by scan and while_loop)


def _carry_component(body_fun: Callable) -> Callable[[str], str]:
    try:
        params = list(inspect.signature(body_fun).parameters)
    except (TypeError, ValueError):
        params = []
    name = params[0] if params else None
    if name:
        return lambda p: f"the input carry component {name}{p}" if p else f"the input carry {name}"
    return lambda p: f"the input carry at path {p}" if p else "the input carry"


def _bullets(diffs: list[str]) -> str:
    if len(diffs) == 1:
        return f"{capitalize(diffs[0])}.\n"
    return "\n".join(f"  * {d};" for d in diffs[:-1]) + f"\n  * {diffs[-1]}.\n"


def check_carry_type(
    what: str, body_fun: Callable, in_carry: Any, out_carry: Any, types: tuple | None = None
) -> None:
    """Raise TypeError when the carry output of ``body_fun`` differs from its input (pytrees
    of avals) in structure or type (weak types aside); ``types``: the carry's shardings in
    types going in and coming out (Explicit mesh axes), which must agree too."""
    component = _carry_component(body_fun)
    if tu.tree_structure(in_carry) != tu.tree_structure(out_carry):
        diffs = [
            f"{component(p)} is a {t1} but the corresponding component of the carry output is "
            f"a {t2}, so {why}"
            for p, t1, t2, why in structure_diffs(in_carry, out_carry)
        ]
        if not diffs:
            diffs = [
                f"{component('')} has structure {tu.tree_structure(in_carry)} but the carry "
                f"output has structure {tu.tree_structure(out_carry)}, so they differ"
            ]
        raise TypeError(
            f"{what} function carry input and carry output must have the same pytree "
            f"structure, but they differ:\n\n{_bullets(diffs)}\n"
            "Revise the function so that the carry output has the same pytree structure as "
            "the carry input."
        )
    ins, outs = tu.tree_leaves(in_carry), tu.tree_leaves(out_carry)
    t_in, t_out = types if types is not None else ([None] * len(ins), [None] * len(outs))
    diffs = []
    for p, a, b, sa, sb in zip(leaf_paths(in_carry), ins, outs, t_in, t_out):
        ta, tb = typed_str(a, sa, short=False), typed_str(b, sb, short=False)
        if not typematch(a, b) or ta != tb:
            diffs.append(
                f"{component(p)} has type {ta} but the corresponding output carry "
                f"component has type {tb}{mismatch_reason(a, b)}"
            )
    if diffs:
        raise TypeError(
            f"{what} function carry input and carry output must have equal types, but they "
            f"differ:\n\n{_bullets(diffs)}\n"
            "Revise the function so that all output types match the corresponding input types."
        )


def promote_weak_inputs(leaves: list, in_avals: list, out_avals: list) -> tuple[list, bool]:
    """Weakly typed initial carries (Python scalars) take the type the body gives them."""
    changed = False
    new = []
    for x, a, b in zip(leaves, in_avals, out_avals):
        if a.weak_type and not typematch(a, b):
            x = lax_ew.convert_element_type(x, dtypes.result_type(x, b.dtype))
            changed = True
        new.append(x)
    return new, changed


def avals_of(leaves: Sequence[Any], what: str) -> list[ShapedArray]:
    """The abstract values of ``leaves`` (TypeError naming ``what`` for a non-array)."""
    out = []
    for i, x in enumerate(leaves):
        try:
            out.append(core.get_aval(x))
        except TypeError:
            raise TypeError(
                f"{what}: leaf {i} is of type {type(x)}, not a valid JAX type"
            ) from None
    return out


def split3(xs: Sequence[Any], a: int, b: int) -> tuple[list, list, list]:
    """``xs`` split after ``a`` and ``a + b`` items (consts, carry, the rest)."""
    return list(xs[:a]), list(xs[a : a + b]), list(xs[a + b :])


__all__ = [
    "retype_inputs",
    "batch_jaxpr_axes",
    "avals_of",
    "check_carry_type",
    "promote_weak_inputs",
    "split3",
    "add_unused_inputs",
    "arg_names",
    "as_value",
    "batch_jaxpr_at0",
    "batched_avals",
    "batched_outputs",
    "cached",
    "drop_inputs",
    "forwarding",
    "fun_name",
    "fun_sourceinfo",
    "hoist_consts",
    "instantiate_ct",
    "is_float",
    "join_diffs",
    "jvp_jaxpr",
    "leaf_paths",
    "mismatch_reason",
    "move_to_front",
    "partial_eval_jaxpr_inst",
    "permute",
    "prune_outputs",
    "structure_diffs",
    "trace_tree_fun",
    "transpose_jaxpr",
    "typematch",
    "typematches",
    "used_inputs",
]
