"""``lax.cond`` and ``lax.switch``: one ``cond`` primitive that runs the branch its index picks.

``cond_p`` takes an int32 index and the operands; its ``branches`` parameter is a tuple of
closed jaxprs of the same type (for ``lax.cond``: ``(false_fun, true_fun)``). Constants the
branches close over are hoisted into leading operands shared by every branch. An index out of
range runs the nearest branch (XLA's semantics; the wrappers clamp anyway).

>>> from spmd import lax
>>> lax.cond(True, lambda x: x + 1, lambda x: x - 1, 1.0)
Array(2., dtype=float32, weak_type=True)
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src import tree_util as tu
from spmd._src.config import config
from spmd._src.core import ClosedJaxpr, JaxprEqn, Var
from spmd._src.core_printing import typed_str
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.interpreters import partial_eval as pe
from spmd._src.interpreters.ad import Zero
from spmd._src.lax import callback, rules
from spmd._src.lax import elementwise as lax_ew
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.control_flow import common
from spmd._src.lax.io_callback import has_io_effect
from spmd._src.lax.refs import is_ref

_NO_OPERAND = object()


# ---------------------------------------------------------------------------------------------
# The public wrappers


def switch(index: Any, branches: Sequence[Callable], *operands: Any, operand: Any = _NO_OPERAND):
    """Apply ``branches[index](*operands)``, with ``index`` clamped into range.

    Every branch is traced (with the operands' types) and must return the same types.

    >>> lax.switch(5, [lambda x: x, lambda x: 2 * x, lambda x: 3 * x], 1.0)
    Array(3., dtype=float32, weak_type=True)
    """
    if not all(callable(b) for b in branches):
        raise TypeError("lax.switch: branches argument should be a sequence of callables.")
    operands = _one_operand(operand, operands)
    if np.ndim(index) != 0:
        raise TypeError(f"Branch index must be scalar, got {index} of shape {np.shape(index)}.")
    try:
        index_dtype = dtypes.result_type(index)
    except TypeError as err:
        raise TypeError(f"Index type must be an integer, got {index}.") from err
    if index_dtype.kind not in "iu":
        raise TypeError(f"Index type must be an integer, got {index} as {index_dtype}")
    branches = tuple(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    if len(branches) == 1:
        return branches[0](*operands)
    index = _as_int32(index)
    lo, hi = np.array(0, np.int32), np.array(len(branches) - 1, np.int32)
    index = lax_ew.clamp(lo, index, hi)
    if config.jax_disable_jit and not isinstance(index, core.Tracer):
        return branches[int(index)](*operands)
    names = ["branch 0"] + [f"branch{i}" for i in range(1, len(branches))]
    return _cond(index, branches, list(range(len(branches))), names, operands, "switch")


def cond(pred: Any, true_fun: Callable, false_fun: Callable, *operands: Any, operand=_NO_OPERAND):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``.

    Both branches are traced (with the operands' types) and must return the same types; only
    the chosen one runs. A numeric ``pred`` means ``pred != 0``. Under ``vmap`` with a batched
    ``pred``, both branches run and the results are selected.

    >>> lax.cond(x > 0, jnp.sin, jnp.cos, x)
    """
    if not (callable(true_fun) and callable(false_fun)):
        raise TypeError("lax.cond: true_fun and false_fun arguments should be callable.")
    operands = _one_operand(operand, operands)
    if pred is None:
        raise TypeError("cond predicate is None")
    if isinstance(pred, Sequence) or np.ndim(pred) != 0:
        what = f"type {type(pred)}" if isinstance(pred, Sequence) else f"shape {np.shape(pred)}."
        raise TypeError(f"Pred must be a scalar, got {pred} of {what}")
    try:
        pred_dtype = dtypes.result_type(pred)
    except TypeError as err:
        raise TypeError(f"Pred type must be either boolean or number, got {pred}.") from err
    if pred_dtype.kind != "b":
        if pred_dtype.kind not in "iuf" and pred_dtype.name != "bfloat16":
            raise TypeError(f"Pred type must be either boolean or number, got {pred_dtype}.")
        if isinstance(pred, core.Tracer) or hasattr(pred, "_value"):
            pred = lax_ew.ne(pred, np.zeros((), pred_dtype))
        else:
            pred = bool(pred != 0)
    if config.jax_disable_jit and not isinstance(pred, core.Tracer):
        return true_fun(*operands) if pred else false_fun(*operands)
    index = lax_ew.convert_element_type(pred, np.int32)
    # The true branch is traced first (its constants come first); branch 0 is the false one.
    return _cond(index, (true_fun, false_fun), [1, 0], ["true_fun", "false_fun"], operands, "cond")


def _one_operand(operand: Any, operands: tuple) -> tuple:
    if operand is _NO_OPERAND:
        return operands
    if operands:
        raise TypeError(
            "if 'operand' keyword is passed then no positional operands can be passed, got "
            f"operand={operand!r} and positional operands {operands}"
        )
    return (operand,)


def _as_int32(x: Any) -> Any:
    if isinstance(x, (int, np.integer, np.ndarray)):
        # A Python or NumPy index converts on the spot, not as a traced equation (as in JAX).
        return np.asarray(x, np.int32)
    aval = core.get_aval(x)
    if aval.dtype == np.int32 and not aval.weak_type:
        return x
    return lax_ew.convert_element_type(x, np.int32)


def _cond(index, funs, positions, names, operands, api: str):
    """Trace ``funs`` on ``operands`` and bind ``cond_p``; ``positions[i]`` is the branch
    index of ``funs[i]``."""
    leaves, in_tree = tu.tree_flatten(operands)
    avals = []
    for i, x in enumerate(leaves):
        try:
            avals.append(core.get_aval(x))
        except TypeError:
            raise TypeError(
                f"{api}: operand {i} has type {type(x)}, which is not a valid JAX type"
            ) from None
    types = common.types_of(leaves)
    traced = [common.trace_tree_fun(f, in_tree, avals, api, types) for f in funs]
    outs0 = traced[0][1]
    # The results' shardings in types (Explicit mesh axes) are part of their types too.
    types = [[getattr(v, "sharding", None) for v in c.jaxpr.outvars] for c, _ in traced]
    for f, (_, outs), name, ts in zip(funs[1:], traced[1:], names[1:], types[1:]):
        _check_branch_outputs(api, names[0], name, funs[0], f, outs0, outs, (types[0], ts))

    # Constants: each branch's, de-duplicated by identity, become shared leading operands.
    consts: list[Any] = []
    slot: dict[int, int] = {}
    for closed, _ in traced:
        for c in closed.consts:
            if id(c) not in slot:
                slot[id(c)] = len(consts)
                consts.append(c)
    jaxprs = [_with_shared_consts(closed, consts, slot) for closed, _ in traced]

    # Outputs every branch passes through from the same input are not outputs of the cond.
    fwds = [common.forwarding(j.jaxpr) for j in jaxprs]
    in_fwd = [f[0] if len(set(f)) == 1 else None for f in zip(*fwds)]
    keep = [f is None for f in in_fwd]
    if not all(keep):
        jaxprs = [common.prune_outputs(j, keep) for j in jaxprs]
    branches = [None] * len(jaxprs)
    for pos, j in zip(positions, jaxprs):
        branches[pos] = j
    out = iter(cond_p.bind(index, *consts, *leaves, branches=tuple(branches)))
    all_inputs = consts + leaves
    results = [next(out) if f is None else common.as_value(all_inputs[f]) for f in in_fwd]
    return tu.tree_unflatten(tu.tree_structure(outs0), results)


def _with_shared_consts(closed: ClosedJaxpr, consts: list, slot: dict) -> ClosedJaxpr:
    j = closed.jaxpr
    binders: list[Var | None] = [None] * len(consts)
    for v, c in zip(j.constvars, closed.consts):
        binders[slot[id(c)]] = v
    invars = [b if b is not None else Var(core.get_aval(c)) for b, c in zip(binders, consts)]
    return ClosedJaxpr(core.Jaxpr([], invars + j.invars, j.outvars, j.eqns, j.debug_info), [])


def _check_branch_outputs(api, name1, name2, f1, f2, outs1, outs2, types=None) -> None:
    """TypeError when two branches' outputs differ in structure or type; ``types``: their
    shardings in types (Explicit mesh axes), which must agree too."""
    info = f"{name1} is {common.fun_sourceinfo(f1)}\n{name2} is {common.fun_sourceinfo(f2)}\n\n"

    def at(p):
        return f" at path {p}" if p else ""

    if tu.tree_structure(outs1) != tu.tree_structure(outs2):
        diffs = [
            f"{name1} output{at(p)} is a {t1} but {name2} output{at(p)} is a {t2}, so {why}"
            for p, t1, t2, why in common.structure_diffs(outs1, outs2, leaf="pytree leaf")
        ]
        if not diffs:
            return
        raise TypeError(
            f"{api} branch outputs must have the same pytree structure, but they differ:\n\n"
            f"{info}{common.join_diffs(diffs, cap=False)}\n"
            f"Revise {name1} and/or {name2} so that they have the same pytree structure."
        )
    a1s, a2s = tu.tree_leaves(outs1), tu.tree_leaves(outs2)
    t1s, t2s = types if types is not None else ([None] * len(a1s), [None] * len(a2s))
    diffs = []
    for p, a1, a2, s1, s2 in zip(common.leaf_paths(outs1), a1s, a2s, t1s, t2s):
        ty1, ty2 = typed_str(a1, s1, short=False), typed_str(a2, s2, short=False)
        if not common.typematch(a1, a2) or ty1 != ty2:
            diffs.append(
                f"the output of {name1}{at(p)} has type {ty1} but the corresponding output of "
                f"{name2} has type {ty2}{common.mismatch_reason(a1, a2)}"
            )
    if diffs:
        raise TypeError(
            f"{api} branches must have equal output types but they differ.\n\n"
            f"{info}{common.join_diffs(diffs)}\n"
            f"Revise {name1} and/or {name2} so that all output types match."
        )


# ---------------------------------------------------------------------------------------------
# cond_p


def _cond_impl(index, *args, branches):
    i = min(max(int(index), 0), len(branches) - 1)
    return core.jaxpr_as_numpy_fn(branches[i])(*args)


def _cond_abstract_eval(index, *avals, branches):
    if index.shape != () or index.dtype != np.int32:
        raise TypeError(f"cond: the branch index must be an int32 scalar, got {index.str_short()}")
    if not branches:
        raise TypeError("cond requires at least one branch")
    out0 = branches[0].out_avals
    for i, b in enumerate(branches):
        ins = b.in_avals
        if len(ins) != len(avals) or not common.typematches(ins, avals):
            raise TypeError(
                f"cond: branch {i} takes {[a.str_short() for a in ins]}, but the operands are "
                f"{[a.str_short() for a in avals]}"
            )
        outs = b.out_avals
        if len(outs) != len(out0) or not common.typematches(outs, out0):
            raise TypeError(
                f"cond: branch {i} returns {[a.str_short() for a in outs]}, but branch 0 "
                f"returns {[a.str_short() for a in out0]}"
            )
    return list(out0)


def _bcast_to(pred, shape):
    if np.ndim(pred) == len(shape):
        return pred
    return lax_shape.broadcast_in_dim(pred, shape, tuple(range(np.ndim(pred))))


def _cond_batch_rule(axis_data, vals, dims, *, branches):
    index, *ops = vals
    index_dim, *op_dims = dims
    size = axis_data.size
    n_in, n_out = len(ops), len(branches[0].out_avals)
    if index_dim is not None:
        if not axis_data.per_device and any(has_io_effect(b.jaxpr) for b in branches):
            # Every branch would run on every example: its IO would happen where not due.
            raise NotImplementedError("IO effect not supported in vmap-of-cond.")
        if any(is_ref(x) for x in ops):
            # (As JAX: a branch's writes into a Ref would have to be masked per example.)
            raise NotImplementedError(
                "vmap of cond with a batched predicate: branches that use a Ref (a state "
                "effect) are not supported"
            )
        # A batched index: every branch runs on the whole batch and the results are selected.
        index = rules.moveaxis(index, index_dim, 0)
        ops = [rules.bdim_at_front(x, d, size) for x, d in zip(ops, op_dims)]
        outs = []
        for i, b in enumerate(branches):
            # Each branch runs on every example, but only the examples that take it may feed
            # its derivative: elsewhere its operands pass through stop_gradient. Otherwise a
            # branch not taken (sqrt at 0) would put 0 * inf = NaN into the gradient. (JAX
            # does the same, in the same order of equations.)
            taken = lax_ew.eq(index, np.asarray(i, index.dtype))
            masked = []
            for x in ops:
                held = lax_ew.stop_gradient(x)
                masked.append(lax_ew.select_n(_bcast_to(taken, np.shape(x)), held, x))
            if axis_data.per_device and pe.has_effects_in(b.jaxpr):
                # Over devices each runs only its own branch: callbacks in this one run only
                # on the devices that take it.
                bj = common.batch_jaxpr_at0(
                    common.masked_effects(b), axis_data, [True] * (n_in + 1), [True] * n_out
                )
                outs.append(core.eval_jaxpr(bj.jaxpr, bj.consts, taken, *masked))
                continue
            bj = common.batch_jaxpr_at0(b, axis_data, [True] * n_in, [True] * n_out)
            outs.append(core.eval_jaxpr(bj.jaxpr, bj.consts, *masked))
        out = [
            lax_ew.select_n(_bcast_to(index, np.shape(cases[0])), *cases) for cases in zip(*outs)
        ]
        return out, [0] * n_out
    in_batched = [d is not None for d in op_dims]
    ops = [x if d is None else rules.moveaxis(x, d, 0) for x, d in zip(ops, op_dims)]
    per_branch = [common.batched_outputs(b, axis_data, in_batched) for b in branches]
    out_batched = [any(bs) for bs in zip(*per_branch)] if n_out else []
    new = tuple(common.batch_jaxpr_at0(b, axis_data, in_batched, out_batched) for b in branches)
    out = cond_p.bind(index, *ops, branches=new)
    return out, [0 if b else None for b in out_batched]


def _cond_jvp(primals, tangents, *, branches):
    index, *ops = primals
    nonzeros = [
        type(t) is not Zero and common.is_float(core.get_aval(x)) for x, t in zip(ops, tangents[1:])
    ]
    out_avals = branches[0].out_avals
    if not any(nonzeros):
        out = cond_p.bind(*primals, branches=branches)
        return out, [Zero(ad.tangent_aval(a)) for a in out_avals]
    out_nz = [any(z) for z in zip(*[common.jvp_jaxpr(b, nonzeros)[1] for b in branches])]
    jvps = tuple(common.jvp_jaxpr(b, nonzeros, out_nz)[0] for b in branches)
    nz_tangents = [t for t, nz in zip(tangents[1:], nonzeros) if nz]
    out = cond_p.bind(index, *ops, *nz_tangents, branches=jvps)
    primal_out, t_it = out[: len(out_nz)], iter(out[len(out_nz) :])
    tangent_out = [
        next(t_it) if nz else Zero(ad.tangent_aval(a)) for a, nz in zip(out_avals, out_nz)
    ]
    return primal_out, tangent_out


def _cond_partial_eval(eqn: JaxprEqn, unknowns: Sequence[bool]):
    """Split a cond with some unknown operands into a cond computing the known outputs and
    the residuals (each branch's, in shared slots) and a cond computing the unknown outputs
    from the residuals and the unknown operands."""
    branches = eqn.params["branches"]
    index_uk, *ops_uk = unknowns
    if index_uk:
        return [], [eqn], list(eqn.outvars)
    index, *ops = eqn.invars
    out_uk = [any(u) for u in zip(*[pe.partial_eval_jaxpr(b, ops_uk)[2] for b in branches])]
    splits = [common.partial_eval_jaxpr_inst(b, ops_uk, out_uk) for b in branches]
    n_known = out_uk.count(False)

    # Residual slots, shared between branches: a branch's k-th residual of a type (weak type
    # included) takes the slot of the k-th of that type in the branches before it, if any. A
    # branch fills the slots it does not use with placeholders (JAX's order and equations).
    slot_avals: list[core.ShapedArray] = []
    slot_of: dict[tuple, int] = {}
    branch_slots: list[list[int]] = []
    for known, _, _, _ in splits:
        used: list[int] = []
        seen: dict[core.ShapedArray, int] = {}
        for a in known.out_avals[n_known:]:
            tag = (a, a.weak_type, seen.get((a, a.weak_type), 0))
            seen[tag[:2]] = tag[2] + 1
            if tag not in slot_of:
                slot_of[tag] = len(slot_avals)
                slot_avals.append(a)
            used.append(slot_of[tag])
        branch_slots.append(used)

    known_ins = [a for a, u in zip(ops, ops_uk) if not u]
    uk_ins = [a for a, u in zip(ops, ops_uk) if u]
    known_avals = [a.aval for a in known_ins]
    uk_avals = [a.aval for a in uk_ins]
    known_branches, unknown_branches = [], []
    for (known, unknown, _, _), used in zip(splits, branch_slots):
        known_branches.append(_known_branch(known, n_known, used, slot_avals, known_avals))
        unknown_branches.append(_unknown_branch(unknown, used, slot_avals, uk_avals))
    res_vars = [Var(a) for a in slot_avals]
    known_outs = [v for v, u in zip(eqn.outvars, out_uk) if not u]
    uk_outs = [v for v, u in zip(eqn.outvars, out_uk) if u]
    known_eqn = JaxprEqn(
        [index, *known_ins], known_outs + res_vars, cond_p, {"branches": tuple(known_branches)}
    )
    if not uk_outs:
        return [known_eqn], [], []
    unknown_eqn = JaxprEqn(
        [index, *res_vars, *uk_ins], uk_outs, cond_p, {"branches": tuple(unknown_branches)}
    )
    return [known_eqn], [unknown_eqn], uk_outs


def _known_branch(known, n_known, used, slot_avals, in_avals):
    def fun(*args):
        outs = core.eval_jaxpr(known.jaxpr, known.consts, *args)
        # A placeholder for every slot, used or not (as JAX emits them).
        res = [empty_like_aval(a) for a in slot_avals]
        for k, r in zip(used, outs[n_known:]):
            res[k] = r
        return list(outs[:n_known]) + res

    return pe.trace_to_jaxpr(fun, in_avals)


def _unknown_branch(unknown, used, slot_avals, in_avals):
    def fun(*args):
        res, ins = args[: len(slot_avals)], args[len(slot_avals) :]
        return core.eval_jaxpr(unknown.jaxpr, unknown.consts, *[res[k] for k in used], *ins)

    return pe.trace_to_jaxpr(fun, list(slot_avals) + in_avals)


def _cond_transpose(cts, index, *ops, branches):
    if ad.is_undefined_primal(index):
        raise ValueError("cond: cannot transpose with respect to the branch index")
    linear = [ad.is_undefined_primal(x) for x in ops]
    ct_nonzero = [type(c) is not Zero for c in cts]
    res = [x for x, lin in zip(ops, linear) if not lin]
    t_branches = tuple(common.transpose_jaxpr(b, linear, ct_nonzero) for b in branches)
    nz_cts = [c for c, nz in zip(cts, ct_nonzero) if nz]
    out = iter(cond_p.bind(index, *res, *nz_cts, branches=t_branches))
    return [None] + [next(out) if lin else None for lin in linear]


def _cond_mask(active, ins, *, branches):
    # Every branch takes the mask first (its callbacks run only where it is True).
    index, *ops = ins
    masked = tuple(common.masked_effects(b) for b in branches)
    return cond_p.bind(index, active, *ops, branches=masked)


cond_p = core.Primitive("cond", multiple_results=True)
cond_p.def_impl(_cond_impl)
cond_p.def_abstract_eval(_cond_abstract_eval)
batching.primitive_batchers[cond_p] = _cond_batch_rule
callback.mask_rules[cond_p] = _cond_mask
ad.primitive_joint_jvps[cond_p] = _cond_jvp
pe.partial_eval_rules[cond_p] = _cond_partial_eval
ad.primitive_transposes[cond_p] = _cond_transpose


def _cond_sharding(specs, avals, *, branches):
    # Each result: what the branches give it, merged (they agree on the golden programs).
    outs = [sharding_rules.jaxpr_specs(b, specs[1:], avals[1:]) for b in branches]
    return [sharding_rules.merge_specs(col) for col in zip(*outs)]


sharding_rules.sharding_rules[cond_p] = _cond_sharding


# ---------------------------------------------------------------------------------------------
# empty2: an uninitialized scalar, the placeholder for a residual a cond branch does not make


class MemorySpace(enum.Enum):
    """Where a buffer lives (only device memory here)."""

    Device = "device"


def empty2(dtype: Any, *, memory_space: MemorySpace = MemorySpace.Device) -> Any:
    """A scalar of ``dtype`` whose value does not matter (zero here)."""
    return empty2_p.bind(dtype=np.dtype(dtype), memory_space=memory_space)


def empty_like_aval(aval: core.ShapedArray) -> Any:
    """A placeholder of type ``aval``: an ``empty2`` scalar, broadcast to the shape."""
    x = empty2(aval.dtype)
    return lax_shape.broadcast_in_dim(x, aval.shape, ()) if aval.shape else x


def _empty2_impl(*, dtype, memory_space):
    return np.zeros((), dtype)


def _empty2_abstract_eval(*, dtype, memory_space):
    return core.ShapedArray((), dtype)


def _empty2_batch_rule(axis_data, vals, dims, *, dtype, memory_space):
    return empty2_p.bind(dtype=dtype, memory_space=memory_space), None


empty2_p = core.Primitive("empty2")
empty2_p.def_impl(_empty2_impl)
empty2_p.def_abstract_eval(_empty2_abstract_eval)
batching.primitive_batchers[empty2_p] = _empty2_batch_rule
rules.defjvp_zero(empty2_p)


__all__ = ["MemorySpace", "cond", "cond_p", "empty2", "empty2_p", "empty_like_aval", "switch"]
