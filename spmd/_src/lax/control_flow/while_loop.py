"""``lax.while_loop``: the ``while`` primitive.

``while_p`` operands are ``cond consts, body consts, init carry``; ``cond_jaxpr`` maps
``(cond consts, carry) -> bool[]`` and ``body_jaxpr`` maps ``(body consts, carry) -> carry``.
Forward-mode differentiation works; reverse mode is refused at transposition, as in JAX.

>>> from spmd import lax
>>> lax.while_loop(lambda x: x < 10, lambda x: 2 * x, 1)
Array(16, dtype=int32, weak_type=True)
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core
from spmd._src import tree_util as tu
from spmd._src.config import config
from spmd._src.core import JaxprEqn, Var
from spmd._src.errors import ConcretizationTypeError
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.interpreters import partial_eval as pe
from spmd._src.interpreters.ad import Zero
from spmd._src.lax import callback, rules
from spmd._src.lax import elementwise as lax_ew
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.control_flow import common
from spmd._src.lax.io_callback import has_io_effect
from spmd._src.lax.parallel import processes

# ---------------------------------------------------------------------------------------------
# while_loop


def while_loop(cond_fun: Callable, body_fun: Callable, init_val: Any):
    """``val = body_fun(val)`` while ``cond_fun(val)``; returns the final ``val``.

    ``cond_fun`` must return a boolean scalar and ``body_fun`` a value of the type of
    ``init_val``. Forward-mode differentiation works; reverse mode does not (use ``scan``).

    >>> lax.while_loop(lambda x: x < 10, lambda x: 2 * x, 1)
    Array(16, dtype=int32, weak_type=True)
    """
    if not (callable(body_fun) and callable(cond_fun)):
        raise TypeError("lax.while_loop: body_fun and cond_fun arguments should be callable.")
    if config.jax_disable_jit:
        # With jit disabled the loop runs in Python, unless a traced value (under vmap, say)
        # needs the primitive.
        try:
            val = tu.tree_map(common.as_value, init_val)
            while cond_fun(val):
                val = tu.tree_map(common.as_value, body_fun(val))
            return val
        except ConcretizationTypeError:
            pass
    leaves, tree = tu.tree_flatten(init_val)
    avals = common.avals_of(leaves, "while_loop")
    types = common.types_of(leaves)  # shardings in types (Explicit mesh axes), if any
    cond_closed, body_closed, body_out = _trace_while(cond_fun, body_fun, tree, avals, types)
    body_out_avals = tu.tree_leaves(body_out)
    if tu.tree_structure(body_out) != tree:
        common.check_carry_type("while_loop body", body_fun, tree.unflatten(avals), body_out)
    leaves, changed = common.promote_weak_inputs(leaves, avals, body_out_avals)
    if changed:
        avals = common.avals_of(leaves, "while_loop")
        cond_closed, body_closed, body_out = _trace_while(cond_fun, body_fun, tree, avals, types)
    carry_types = None
    if types is not None:
        carry_types = (types, [getattr(v, "sharding", None) for v in body_closed.jaxpr.outvars])
    common.check_carry_type(
        "while_loop body", body_fun, tree.unflatten(avals), body_out, carry_types
    )
    cond_jaxpr, cond_consts = common.hoist_consts(cond_closed)
    body_jaxpr, body_consts = common.hoist_consts(body_closed)
    out = while_p.bind(
        *cond_consts,
        *body_consts,
        *leaves,
        cond_jaxpr=cond_jaxpr,
        body_jaxpr=body_jaxpr,
        cond_nconsts=len(cond_consts),
        body_nconsts=len(body_consts),
    )
    return tu.tree_unflatten(tree, out)


def _trace_while(cond_fun, body_fun, tree, avals, types=None):
    in_tree = tu.tree_structure((tree.unflatten([0] * len(avals)),))
    cond_closed, pred = common.trace_tree_fun(cond_fun, in_tree, avals, "while_cond", types)
    pred_leaves = tu.tree_leaves(pred)
    if not tu.treedef_is_leaf(tu.tree_structure(pred)) or len(pred_leaves) != 1:
        raise TypeError(
            f"cond_fun must return a boolean scalar, but got pytree {tu.tree_structure(pred)}."
        )
    if pred_leaves[0].shape != () or pred_leaves[0].dtype != np.bool_:
        raise TypeError(
            f"cond_fun must return a boolean scalar, but got output type(s) {pred_leaves}."
        )
    body_closed, body_out = common.trace_tree_fun(body_fun, in_tree, avals, "while_body", types)
    return cond_closed, body_closed, body_out


def _while_impl(*args, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cc, bc, carry = common.split3(args, cond_nconsts, body_nconsts)
    cond_fn = core.jaxpr_as_numpy_fn(cond_jaxpr)
    body_fn = core.jaxpr_as_numpy_fn(body_jaxpr)
    dtypes_ = [a.dtype for a in body_jaxpr.out_avals]
    if cond_jaxpr.out_avals[0].shape == ():
        while cond_fn(*cc, *carry)[0]:
            carry = body_fn(*bc, *carry)
        return [np.asarray(c, dtype=d) for c, d in zip(carry, dtypes_)]
    # A batched predicate (its shape a prefix of every carry's): loop while any example goes
    # on; the examples that stopped keep their carry.
    carry = [np.asarray(c, dtype=d) for c, d in zip(carry, dtypes_)]
    while True:
        (pred,) = cond_fn(*cc, *carry)
        pred = np.asarray(pred, bool)
        if not job_any(bool(pred.any())):
            return carry
        new = body_fn(*bc, *carry)
        carry = [masked_update(pred, n, o).astype(d) for o, n, d in zip(carry, new, dtypes_)]


class _JobPredicates(threading.local):
    def __init__(self) -> None:
        self.any: Callable[[bool], bool] | None = None


_job = _JobPredicates()


def job_any(go: bool) -> bool:
    """Whether any example of a batched predicate goes on, in the whole job: while a job's
    body runs batched over each process's devices (``job_predicates``), every process loops
    as long as any one does (their collectives stay paired; the examples that stopped keep
    their carry), as one process running all the devices does."""
    return go if _job.any is None else _job.any(go)


class job_predicates:
    """Inside ``with job_predicates(fn):`` batched while predicates are decided by ``fn``
    (this process's answer -> the job's)."""

    def __init__(self, fn: Callable[[bool], bool]) -> None:
        self.fn = fn

    def __enter__(self) -> None:
        self.prev = _job.any
        _job.any = self.fn

    def __exit__(self, *exc) -> None:
        _job.any = self.prev


def masked_update(pred: np.ndarray, new: Any, old: Any) -> np.ndarray:
    """``new`` where the batched predicate ``pred`` (a prefix of their shape) holds, else
    ``old``: one step of a while loop whose examples stop at their own predicates."""
    return np.where(pred.reshape(pred.shape + (1,) * (np.ndim(new) - pred.ndim)), new, old)


def _while_abstract_eval(*avals, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cc, bc, carry = common.split3(avals, cond_nconsts, body_nconsts)
    if not common.typematches(cc + carry, cond_jaxpr.in_avals):
        raise TypeError(
            f"while: cond_jaxpr takes {[a.str_short() for a in cond_jaxpr.in_avals]}, but is "
            f"given {[a.str_short() for a in cc + carry]}"
        )
    if not common.typematches(bc + carry, body_jaxpr.in_avals):
        raise TypeError(
            f"while: body_jaxpr takes {[a.str_short() for a in body_jaxpr.in_avals]}, but is "
            f"given {[a.str_short() for a in bc + carry]}"
        )
    (pred,) = cond_jaxpr.out_avals
    # A batched predicate (after vmap) has the leading dimensions of every carry.
    if pred.dtype != np.bool_ or any(a.shape[: pred.ndim] != pred.shape for a in carry):
        raise TypeError(
            f"while: cond_jaxpr must return a boolean scalar (or booleans of the leading "
            f"dimensions of every carry), got {pred.str_short()}"
        )
    outs = body_jaxpr.out_avals
    if not common.typematches(carry, outs):
        raise TypeError(
            f"while: the carry types {[a.str_short() for a in carry]} differ from the body's "
            f"output types {[a.str_short() for a in outs]}"
        )
    return list(outs)


def _while_batch_rule(axis_data, vals, dims, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    size = axis_data.size
    batched = [d is not None for d in dims]
    cc_b, bc_b, carry_b = common.split3(batched, cond_nconsts, body_nconsts)
    n = len(carry_b)
    # The carries batched on output must be batched on input.
    for _ in range(n + 1):
        body_b = common.batched_outputs(body_jaxpr, axis_data, bc_b + carry_b)
        new = [a or b for a, b in zip(carry_b, body_b)]
        if new == carry_b:
            break
        carry_b = new
    (pred_b,) = common.batched_outputs(cond_jaxpr, axis_data, cc_b + carry_b)
    cc, bc, carry = common.split3(vals, cond_nconsts, body_nconsts)
    cd, bd, kd = common.split3(dims, cond_nconsts, body_nconsts)
    if pred_b and axis_data.per_device and pe.has_effects_in(body_jaxpr.jaxpr):
        cc = [common.move_to_front(x, d, size, b) for x, d, b in zip(cc, cd, cc_b)]
        bc = [common.move_to_front(x, d, size, b) for x, d, b in zip(bc, bd, bc_b)]
        carry = [common.move_to_front(x, d, size, True) for x, d in zip(carry, kd)]
        return _while_masked_batch(axis_data, cc, bc, carry, cc_b, bc_b, cond_jaxpr, body_jaxpr)
    if (
        pred_b
        and not axis_data.per_device
        and (has_io_effect(body_jaxpr.jaxpr) or has_io_effect(cond_jaxpr.jaxpr))
    ):
        # The body runs until every example stops: its IO would happen where not due. (JAX
        # raises a bare Exception with this message.)
        raise Exception("Unordered IO effects not supported in while_loop with batched predicate")
    if pred_b:
        # A batched predicate batches every carry (each example stops at its own iteration);
        # the loop keeps the predicate batched and stops updating an example once its own
        # predicate is False (the primitive's semantics), as JAX does.
        carry_b = [True] * n
        rank = 0
    else:
        # The predicate (already batched by an inner vmap, if its rank is not zero) must stay
        # a prefix of the carries' shapes: the new batch dimension goes after it.
        rank = len(cond_jaxpr.out_avals[0].shape)
    carry = [_bdim_to(x, d, rank, size) if b else x for x, d, b in zip(carry, kd, carry_b)]
    carry_dims = [rank if b else None for b in carry_b]
    # The consts keep their batch dimensions (the bodies take them where they are).
    pred_dim = [0 if pred_b else None]
    new_cond = common.batch_jaxpr_axes(cond_jaxpr, axis_data, cd + carry_dims, pred_dim)
    new_body = common.batch_jaxpr_axes(body_jaxpr, axis_data, bd + carry_dims, carry_dims)
    out = while_p.bind(
        *cc,
        *bc,
        *carry,
        cond_jaxpr=new_cond,
        body_jaxpr=new_body,
        cond_nconsts=cond_nconsts,
        body_nconsts=body_nconsts,
    )
    return out, carry_dims


def _bdim_to(x, d, dst, size):
    if d is None:
        # Broadcast straight into place (no transpose after).
        shape = np.shape(x)
        dims = tuple(i if i < dst else i + 1 for i in range(len(shape)))
        return lax_shape.broadcast_in_dim(x, shape[:dst] + (size,) + shape[dst:], dims)
    return rules.moveaxis(x, d, dst)


def _while_masked_batch(axis_data, cc, bc, carry, cc_b, bc_b, cond_jaxpr, body_jaxpr):
    """A batched predicate over devices, with callbacks in the body: each device stops at its
    own iteration, so the body's callbacks run only on the devices still looping (the body
    computes the predicate, masks its effects and selects its results)."""
    cond_nconsts, body_nconsts, n = len(cc), len(bc), len(carry)
    carry_b = [True] * n
    cond_b = common.batch_jaxpr_at0(cond_jaxpr, axis_data, cc_b + carry_b, [True])
    body_bj = common.batch_jaxpr_at0(
        common.masked_effects(body_jaxpr), axis_data, [True] + bc_b + carry_b, carry_b
    )
    cc_avals = [core.get_aval(x) for x in cc]
    bc_avals = [core.get_aval(x) for x in bc]
    carry_avals = [core.get_aval(x) for x in carry]

    def any_cond(*args):
        (pred,) = core.eval_jaxpr(cond_b.jaxpr, cond_b.consts, *args)
        if axis_data.span is not None:
            # Devices in other processes go on too while any of theirs does.
            pred = processes.peer_gather(pred, 0, axis_data.span, "while_loop's predicate")
        return [lax_red.reduce_or(pred, tuple(range(np.ndim(pred))))]

    def select_body(*args):
        c_consts = args[:cond_nconsts]
        b_consts = args[cond_nconsts : cond_nconsts + body_nconsts]
        old = args[cond_nconsts + body_nconsts :]
        (pred,) = core.eval_jaxpr(cond_b.jaxpr, cond_b.consts, *c_consts, *old)
        new = core.eval_jaxpr(body_bj.jaxpr, body_bj.consts, pred, *b_consts, *old)
        return [lax_ew.select_n(_bcast_pred(pred, np.shape(o)), o, x) for o, x in zip(old, new)]

    new_cond = pe.trace_to_jaxpr(any_cond, cc_avals + carry_avals)
    new_body = pe.trace_to_jaxpr(select_body, cc_avals + bc_avals + carry_avals)
    out = while_p.bind(
        *cc,
        *cc,
        *bc,
        *carry,
        cond_jaxpr=new_cond,
        body_jaxpr=new_body,
        cond_nconsts=cond_nconsts,
        body_nconsts=cond_nconsts + body_nconsts,
    )
    return out, [0] * n


def _bcast_pred(pred, shape):
    if len(shape) == np.ndim(pred):
        return pred
    return lax_shape.broadcast_in_dim(pred, shape, tuple(range(np.ndim(pred))))


def _while_jvp(primals, tangents, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    cc, bc, init = common.split3(primals, cond_nconsts, body_nconsts)
    _, bct, initt = common.split3(tangents, cond_nconsts, body_nconsts)
    nz = [
        type(t) is not Zero and common.is_float(core.get_aval(p)) for p, t in zip(primals, tangents)
    ]
    _, bc_nz, carry_nz = common.split3(nz, cond_nconsts, body_nconsts)
    n = len(init)
    if not any(bc_nz + carry_nz):
        out = while_p.bind(
            *primals,
            cond_jaxpr=cond_jaxpr,
            body_jaxpr=body_jaxpr,
            cond_nconsts=cond_nconsts,
            body_nconsts=body_nconsts,
        )
        return out, [Zero(ad.tangent_aval(a)) for a in body_jaxpr.out_avals]
    for _ in range(n + 1):
        jvp, out_nz = common.jvp_jaxpr(body_jaxpr, bc_nz + carry_nz, carry_nz)
        new = [a or b for a, b in zip(carry_nz, out_nz)]
        if new == carry_nz:
            break
        carry_nz = new
    nb, nbd, nkd = len(bc), sum(bc_nz), sum(carry_nz)
    # jvp: (bc, carry, bc_dot, carry_dot) -> (carry, carry_dot); while wants body consts
    # (bc, bc_dot) then the carry (carry, carry_dot).
    in_order = [
        *range(nb),
        *range(nb + n, nb + n + nbd),
        *range(nb, nb + n),
        *range(nb + n + nbd, nb + n + nbd + nkd),
    ]
    jvp = common.permute(jvp, in_order, list(range(n + nkd)))
    t_avals = [ad.tangent_aval(a) for a, z in zip(body_jaxpr.out_avals, carry_nz) if z]
    cond = common.add_unused_inputs(cond_jaxpr, t_avals)
    bc_dot = [t for t, z in zip(bct, bc_nz) if z]
    init_dot = [ad.instantiate(t) for t, z in zip(initt, carry_nz) if z]
    out = while_p.bind(
        *cc,
        *bc,
        *bc_dot,
        *init,
        *init_dot,
        cond_jaxpr=cond,
        body_jaxpr=jvp,
        cond_nconsts=cond_nconsts,
        body_nconsts=nb + nbd,
    )
    dots = iter(out[n:])
    tangent_out = [
        next(dots) if z else Zero(ad.tangent_aval(a))
        for a, z in zip(body_jaxpr.out_avals, carry_nz)
    ]
    return out[:n], tangent_out


def _while_partial_eval(eqn: JaxprEqn, unknowns: Sequence[bool]):
    """The known carries come from a while loop over them alone; the unknown ones from the
    whole loop (whose transpose is an error: reverse mode is not defined)."""
    p = eqn.params
    cond_jaxpr, body_jaxpr = p["cond_jaxpr"], p["body_jaxpr"]
    cn, bn = p["cond_nconsts"], p["body_nconsts"]
    cc_uk, bc_uk, carry_uk = common.split3(list(unknowns), cn, bn)
    n = len(carry_uk)
    if any(cc_uk):
        return [], [eqn], list(eqn.outvars)
    for _ in range(n + 1):
        out_uk = pe.partial_eval_jaxpr(body_jaxpr, bc_uk + carry_uk)[2]
        new = [a or b for a, b in zip(carry_uk, out_uk)]
        if new == carry_uk:
            break
        carry_uk = new
    cond_used = common.used_inputs(cond_jaxpr.jaxpr)[cn:]
    if any(u and c for u, c in zip(carry_uk, cond_used)):
        return [], [eqn], list(eqn.outvars)
    known = [not u for u in carry_uk]
    body = common.prune_outputs(body_jaxpr, known)
    body_keep = [not u for u in bc_uk] + known
    cond_keep = [True] * cn + known
    assert not any(u and not k for u, k in zip(common.used_inputs(body.jaxpr), body_keep))
    body = common.drop_inputs(body, body_keep)
    cond = common.drop_inputs(cond_jaxpr, cond_keep)
    cc, bc, carry = common.split3(eqn.invars, cn, bn)
    known_bc = [a for a, u in zip(bc, bc_uk) if not u]
    known_eqn = JaxprEqn(
        [*cc, *known_bc, *[a for a, k in zip(carry, known) if k]],
        [v for v, k in zip(eqn.outvars, known) if k],
        while_p,
        dict(p, cond_jaxpr=cond, body_jaxpr=body, body_nconsts=len(known_bc)),
    )
    uk_outs = [v for v, u in zip(eqn.outvars, carry_uk) if u]
    if not uk_outs:
        return [known_eqn], [], []
    outvars = [v if u else Var(v.aval) for v, u in zip(eqn.outvars, carry_uk)]
    return [known_eqn], [eqn.replace(outvars=outvars)], uk_outs


def _while_transpose(cts, *args, **params):
    raise ValueError(
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
        "dynamic start/stop values. Try using lax.scan, or using fori_loop with static "
        "start/stop."
    )


def _while_mask(active, ins, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    # The mask joins the body's consts (the body's callbacks run only where it is True).
    cc, rest = ins[:cond_nconsts], ins[cond_nconsts:]
    return while_p.bind(
        *cc,
        active,
        *rest,
        cond_jaxpr=cond_jaxpr,
        body_jaxpr=common.masked_effects(body_jaxpr),
        cond_nconsts=cond_nconsts,
        body_nconsts=body_nconsts + 1,
    )


while_p = core.Primitive("while", multiple_results=True)
while_p.def_impl(_while_impl)
while_p.def_abstract_eval(_while_abstract_eval)
batching.primitive_batchers[while_p] = _while_batch_rule
callback.mask_rules[while_p] = _while_mask
ad.primitive_joint_jvps[while_p] = _while_jvp
pe.partial_eval_rules[while_p] = _while_partial_eval
ad.primitive_transposes[while_p] = _while_transpose


def _while_sharding(specs, avals, *, cond_jaxpr, body_jaxpr, cond_nconsts, body_nconsts):
    # The carry's sharding is a fixed point of the body: start from the initial values' and
    # merge in what one more iteration gives until nothing changes.
    consts = list(specs[cond_nconsts : cond_nconsts + body_nconsts])
    c_avals = list(avals[cond_nconsts : cond_nconsts + body_nconsts])
    carry = [s or (None,) * a.ndim for s, a in zip(specs[cond_nconsts + body_nconsts :], avals)]
    carry_avals = list(avals[cond_nconsts + body_nconsts :])
    for _ in range(4):
        new = sharding_rules.jaxpr_specs(body_jaxpr, consts + carry, c_avals + carry_avals)
        merged = [sharding_rules.merge_specs([c, n]) for c, n in zip(carry, new)]
        if merged == carry:
            break
        carry = merged
    return carry


sharding_rules.sharding_rules[while_p] = _while_sharding


__all__ = ["masked_update", "while_loop", "while_p"]
