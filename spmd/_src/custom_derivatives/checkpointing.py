"""``checkpoint`` (``remat``) and its saving policies, traced as the ``remat2`` primitive. Its
partial-evaluation rule keeps the primal computation on the known side and recomputes, on the
unknown side, what the tangent needs from the primal inputs (unless the policy saves an
intermediate)."""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from spmd._src import core, dispatch, dtypes, source_info
from spmd._src import tree_util as tu
from spmd._src.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, Var
from spmd._src.custom_derivatives.common import (
    _arg_aval,
    _as_operand,
    _fun_name,
    _hoist_consts,
    _merge_args,
    _split_nondiff,
    _trace_closed,
)
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.interpreters import partial_eval as pe
from spmd._src.interpreters.ad import Zero
from spmd._src.lax import elementwise as lax_elem
from spmd._src.lax.control_flow.common import typed, types_of
from spmd._src.lax.elementwise import conversion as lax_conv

# ---------------------------------------------------------------------------------------------
# checkpoint / remat


class _DotsSaveable:
    """Policy: save the results of dot_general (matrix multiplies); recompute the rest."""

    def __init__(self, only_if_no_batch_dims: bool = False) -> None:
        self.only_if_no_batch_dims = only_if_no_batch_dims

    def __call__(self, prim, *avals, **params) -> bool:
        if prim.name != "dot_general":
            return False
        if not self.only_if_no_batch_dims:
            return True
        (_, _), (lhs_b, rhs_b) = params["dimension_numbers"]
        return not lhs_b and not rhs_b

    def __repr__(self) -> str:
        return f"DotsSaveable(only_if_no_batch_dims={self.only_if_no_batch_dims})"


def everything_saveable(*_, **__) -> bool:
    """Policy: save every intermediate (no recomputation; same as no checkpoint)."""
    return True


def nothing_saveable(*_, **__) -> bool:
    """Policy: save nothing but the inputs; recompute everything (the default)."""
    return False


def save_from_both_policies(policy_1: Callable, policy_2: Callable) -> Callable:
    """Policy: save what either policy saves (both must answer True or False)."""

    def policy(prim, *avals, **params):
        out1 = policy_1(prim, *avals, **params)
        out2 = policy_2(prim, *avals, **params)
        if not (isinstance(out1, bool) and isinstance(out2, bool)):
            raise ValueError(
                "save_from_both_policies: the return value of the policies should be a "
                f"boolean. Got: {out1} and {out2}. Please write a custom policy function "
                "directly, rather than using this helper function."
            )
        return out1 or out2

    return policy


class Offloadable(NamedTuple):
    """A policy's answer: save the value, moved from memory ``src`` to memory ``dst`` (memory
    kinds: "device", "pinned_host") on the forward pass and back for the backward pass."""

    src: str
    dst: str


def _named(prim, params: dict, names) -> bool:
    # checkpoint_name's primitive (spmd._src.ad_checkpoint.name_p), by name: no import cycle.
    return prim.name == "name" and params.get("name") in names


def save_only_these_names(*names_which_can_be_saved: str) -> Callable:
    """Policy: save only the values named (``checkpoint_name``) with one of these names."""
    names = set(names_which_can_be_saved)

    def policy(prim, *_, **params):
        return _named(prim, params, names)

    return policy


def save_any_names_but_these(*names_not_to_save: str) -> Callable:
    """Policy: save only named values, except those with one of these names."""
    names = set(names_not_to_save)

    def policy(prim, *_, **params):
        return prim.name == "name" and params.get("name") not in names

    return policy


def save_anything_except_these_names(*names_not_to_save: str) -> Callable:
    """Policy: save every value except those named with one of these names."""
    names = set(names_not_to_save)

    def policy(prim, *_, **params):
        return not _named(prim, params, names)

    return policy


def save_and_offload_only_these_names(
    *,
    names_which_can_be_saved,
    names_which_can_be_offloaded,
    offload_src: str,
    offload_dst: str,
) -> Callable:
    """Policy: save the values named in ``names_which_can_be_saved`` where they are, move those
    named in ``names_which_can_be_offloaded`` from ``offload_src`` to ``offload_dst`` memory
    for the backward pass; recompute everything else."""
    saved, offloaded = set(names_which_can_be_saved), set(names_which_can_be_offloaded)
    both = saved & offloaded
    if both:
        raise ValueError(
            "save_and_offload_only_these_names: the names should be exclusive and should not "
            f"intersect, got names_which_can_be_saved={sorted(saved)} and "
            f"names_which_can_be_offloaded={sorted(offloaded)}, both naming {sorted(both)}"
        )

    def policy(prim, *_, **params):
        if _named(prim, params, saved):
            return True
        if _named(prim, params, offloaded):
            return Offloadable(src=offload_src, dst=offload_dst)
        return False

    return policy


def offload_dot_with_no_batch_dims(offload_src: str, offload_dst: str) -> Callable:
    """Policy: move the results of matrix multiplies without batch dimensions from
    ``offload_src`` to ``offload_dst`` memory for the backward pass; recompute the rest."""
    dots = _DotsSaveable(True)

    def policy(prim, *avals, **params):
        if dots(prim, *avals, **params):
            return Offloadable(src=offload_src, dst=offload_dst)
        return False

    return policy


class _Policies:
    """``spmd.checkpoint_policies``: functions ``policy(prim, *avals, **params) -> bool`` saying
    which intermediates of a checkpointed function are saved rather than recomputed."""

    everything_saveable = staticmethod(everything_saveable)
    nothing_saveable = staticmethod(nothing_saveable)
    dots_saveable = _DotsSaveable(False)
    checkpoint_dots = dots_saveable
    dots_with_no_batch_dims_saveable = _DotsSaveable(True)
    checkpoint_dots_with_no_batch_dims = dots_with_no_batch_dims_saveable
    save_from_both_policies = staticmethod(save_from_both_policies)
    save_only_these_names = staticmethod(save_only_these_names)
    save_any_names_but_these = staticmethod(save_any_names_but_these)
    save_anything_except_these_names = staticmethod(save_anything_except_these_names)
    save_and_offload_only_these_names = staticmethod(save_and_offload_only_these_names)
    offload_dot_with_no_batch_dims = staticmethod(offload_dot_with_no_batch_dims)

    def __repr__(self) -> str:
        return "<module 'spmd.checkpoint_policies'>"


checkpoint_policies = _Policies()


# fun -> {key: (jaxpr, consts, out_tree)}: as JAX, checkpoint traces a function once per
# argument types (and statics), so a function reading a global later redefined keeps the
# program it had (JAX's trace cache, observable in print_saved_residuals).
_TRACES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_TRACES_PER_FUN = 8


def _trace_key(fun, in_tree, in_avals, leaves, by_pos) -> Any:
    from spmd._src.config import config  # lazy: config imports the tracing machinery
    from spmd._src.mesh import get_mesh

    key = (
        in_tree,
        tuple(in_avals),
        tuple(types_of(leaves) or ()),
        tuple(sorted(by_pos.items())),
        config.trace_context(),
        core.trace_ctx.axis_env,
        get_mesh(),
    )
    try:
        hash(key)
        weakref.ref(fun)
    except TypeError:
        return None
    return key


def _remember(fun, key, entry) -> None:
    per = _TRACES.setdefault(fun, {})
    if len(per) >= _TRACES_PER_FUN:
        per.pop(next(iter(per)))
    per[key] = entry


def checkpoint(
    fun: Callable,
    *,
    prevent_cse: bool = True,
    policy: Callable | None = None,
    static_argnums: int | Sequence[int] = (),
) -> Callable:
    """``fun`` whose intermediates are recomputed in the backward pass instead of stored.

    Values are unchanged; under ``grad`` the residuals kept from the forward pass are the
    inputs of ``fun`` (plus what ``policy`` saves), and the rest is recomputed.

    >>> f = spmd.checkpoint(lambda x: jnp.sin(jnp.sin(x)))
    >>> spmd.grad(f)(1.0)
    Array(0.36003944, dtype=float32)
    """
    if not callable(fun):
        raise TypeError(f"checkpoint: expected a function as the first argument, got {fun!r}")
    statics = (static_argnums,) if isinstance(static_argnums, int) else tuple(static_argnums)
    name = _fun_name(fun)

    @functools.wraps(fun)
    def fun_remat(*args, **kwargs):
        if core.is_eval_trace_current():
            return fun(*args, **kwargs)
        nondiff, dyn, nums = _split_nondiff(args, statics, f"checkpoint({name})")
        by_pos = {i % len(args): v for i, v in zip(statics, nondiff)}
        leaves, in_tree = tu.tree_flatten((dyn, kwargs))
        leaves = [_as_operand(x) for x in leaves]
        in_avals = [_arg_aval(x, f"checkpoint({name})") for x in leaves]
        out_box: list = []
        n = len(args)

        def flat_fun(*flat):
            d, kw = tu.tree_unflatten(in_tree, flat)
            out = fun(*_merge_args(n, nums, by_pos, d), **kw)
            out_leaves, out_tree = tu.tree_flatten(out)
            out_box.append(out_tree)
            return out_leaves

        key = _trace_key(fun, in_tree, in_avals, leaves, by_pos)
        hit = _TRACES.get(fun, {}).get(key) if key is not None else None
        if hit is not None:
            jaxpr, consts, out_tree = hit
            out_box.append(out_tree)
        else:
            # With locations (as JAX's traces always have them): the trace is cached, and a
            # print_saved_residuals after a grad shows where its saved values were made.
            with source_info.recording():
                jaxpr, consts = _trace_closed(flat_fun, in_avals, name, leaves)
            if key is not None and not any(isinstance(c, core.Tracer) for c in consts):
                _remember(fun, key, (jaxpr, consts, out_box[0]))
        outs = remat_p.bind(
            *consts,
            *leaves,
            jaxpr=jaxpr,
            prevent_cse=prevent_cse,
            differentiated=False,
            policy=policy,
        )
        return tu.tree_unflatten(out_box[0], outs)

    return fun_remat


def remat(
    fun: Callable,
    *,
    prevent_cse: bool = True,
    policy: Callable | None = None,
    static_argnums: int | Sequence[int] = (),
) -> Callable:
    """The same as ``checkpoint``."""
    return checkpoint(fun, prevent_cse=prevent_cse, policy=policy, static_argnums=static_argnums)


remat_p = core.Primitive("remat2", multiple_results=True)


def _remat_impl(*args, jaxpr: ClosedJaxpr, **_):
    return core.jaxpr_as_numpy_fn(jaxpr)(*args)


def _remat_abstract_eval(*avals, jaxpr: ClosedJaxpr, **_):
    return jaxpr.out_avals


def _remat_compile(*, jaxpr: ClosedJaxpr, **_):
    return core.jaxpr_as_numpy_fn(jaxpr)


def _remat_batch(axis_data, vals, dims, *, jaxpr, **params):
    batched, out_dims = batching.batch_jaxpr(jaxpr, axis_data, dims, types_of(vals))
    batched, consts = _hoist_consts(batched)
    outs = remat_p.bind(*consts, *vals, jaxpr=batched, **params)
    return outs, out_dims


def _remat_jvp(primals, tangents, *, jaxpr, **params):
    # The jvp of the body, staged as one remat2 (primal and tangent outputs together); under
    # linearize, _remat_partial_eval splits it.
    nz = [type(t) is not Zero for t in tangents]
    n = len(primals)
    p_avals = [core.get_aval(p) for p in primals]
    t_nz = [t for t in tangents if type(t) is not Zero]
    t_avals = [core.get_aval(t) for t in t_nz]
    zero_out: list = []

    def jvp_fun(*args):
        it = iter(args[n:])
        ts = [next(it) if z else Zero(ad.tangent_aval(a)) for z, a in zip(nz, p_avals)]
        po, to = ad.jvp_flat(
            lambda *xs: core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *xs), list(args[:n]), ts
        )
        zero_out.extend(type(t) is Zero for t in to)
        return list(po) + [t for t in to if type(t) is not Zero]

    jvp_jaxpr, consts = _trace_closed(jvp_fun, p_avals + t_avals, "checkpoint", [*primals, *t_nz])
    outs = remat_p.bind(
        *consts, *primals, *[t for t in tangents if type(t) is not Zero], jaxpr=jvp_jaxpr, **params
    )
    n_out = len(jaxpr.out_avals)
    it = iter(outs[n_out:])
    t_out = [Zero(ad.tangent_aval(a)) if z else next(it) for z, a in zip(zero_out, jaxpr.out_avals)]
    return outs[:n_out], t_out


def _inline_eqns(jaxpr: Jaxpr, in_atoms: Sequence[Any], out_vars: Sequence[Var]) -> list:
    """``jaxpr``'s equations (it has no constvars) rewritten to read ``in_atoms`` and to define
    ``out_vars`` (fresh variables elsewhere), for splicing into an enclosing jaxpr."""
    env: dict[int, Any] = {id(v): a for v, a in zip(jaxpr.invars, in_atoms)}
    produced = {id(v) for e in jaxpr.eqns for v in e.outvars}
    rename: dict[int, Var] = {}
    copies = []
    for a, o in zip(jaxpr.outvars, out_vars):
        if type(a) is Var and id(a) in produced and id(a) not in rename:
            rename[id(a)] = o
        else:
            copies.append((a, o))
    eqns = []
    for e in jaxpr.eqns:
        ins = [a if type(a) is Literal else env[id(a)] for a in e.invars]
        outs = []
        for v in e.outvars:
            nv = rename.get(id(v)) or Var(v.aval)
            env[id(v)] = nv
            outs.append(nv)
        eqns.append(JaxprEqn(ins, outs, e.primitive, e.params, e.source_info))
    for a, o in copies:
        src = a if type(a) is Literal else env[id(a)]
        eqns.append(JaxprEqn([src], [o], lax_elem.copy_p, {}))
    return eqns


# How many remat2 partial evaluations are under way: one running inside another keeps its
# primal part as a remat2 equation.
_nesting = [0]


def _spliced(eqns: list) -> list:
    """``eqns`` with each remat2 primal part (differentiated=False) spliced in: recomputation
    runs its equations, as JAX's backward program does."""
    out = []
    for e in eqns:
        if e.primitive is remat_p and not e.params["differentiated"]:
            out.extend(_inline_eqns(e.params["jaxpr"].jaxpr, e.invars, e.outvars))
        else:
            out.append(e)
    return out


def _as_jaxpr(eqns: list, in_atoms: Sequence[Any], out_atoms: Sequence[Any]) -> Jaxpr:
    """``eqns`` (reading ``in_atoms``, making ``out_atoms``) as a jaxpr of its own, with
    fresh variables."""
    env: dict[int, Any] = {}
    in_vars = []
    for a in in_atoms:
        v = Var(a.aval, sharding=getattr(a, "sharding", None))
        env[id(a)] = v
        in_vars.append(v)
    body = []
    for e in eqns:
        ins = [env.get(id(a), a) for a in e.invars]
        outs = [Var(o.aval, sharding=o.sharding) for o in e.outvars]
        env.update((id(o), n) for o, n in zip(e.outvars, outs))
        body.append(JaxprEqn(ins, outs, e.primitive, e.params, e.source_info))
    return Jaxpr([], in_vars, [env.get(id(a), a) for a in out_atoms], body)


def _insert_after(eqns: list, v: Var, new: JaxprEqn, rename_uses: bool = False) -> None:
    """Put ``new`` (which reads ``v``) right after the equation making ``v``; with
    ``rename_uses``, the equations after it read ``new``'s result instead of ``v``."""
    at = next(i for i, e in enumerate(eqns) if any(o is v for o in e.outvars))
    eqns.insert(at + 1, new)
    if rename_uses:
        out = new.outvars[0]
        for j in range(at + 2, len(eqns)):
            e = eqns[j]
            if any(a is v for a in e.invars):
                eqns[j] = e.replace(invars=[out if a is v else a for a in e.invars])


def _moved(v: Var, kind: str) -> Var:
    """A variable like ``v`` in memory ``kind``."""
    return Var(v.aval.update(memory_space=core.mem_kind_to_space(kind)), sharding=v.sharding)


def _device_put_eqn(src: Var, dst: Var, kind: str) -> JaxprEqn:
    """``dst = device_put src`` into memory ``kind``, as JAX's offloading writes it (a copy;
    no source location: spmd made it)."""
    from spmd._src.lax.device_put import ArrayCopySemantics, device_put_p  # lazy: lax built later

    params = dict(
        devices=(core.mem_kind_to_space(kind),),
        srcs=(None,),
        copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,),
    )
    return JaxprEqn([src], [dst], device_put_p, params)


def _remat_partial_eval(eqn: JaxprEqn, unknowns: Sequence[bool]):
    """Known side: the body's known outputs, computed inline. Unknown side: a remat2 that
    recomputes the residuals it needs from the known inputs, starting from the intermediates
    the policy saves (none by default), then runs the unknown part."""
    params = eqn.params
    closed = params["jaxpr"]
    policy = params["policy"]
    # remat2 equations with tangent inputs come from _remat_jvp, which hoists consts.
    assert not closed.jaxpr.constvars, "remat2 jaxpr with consts in partial evaluation"
    nested = _nesting[0] > 0
    _nesting[0] += 1
    try:
        known, unknown, out_unknowns, nres = pe.partial_eval_jaxpr(closed, unknowns)
    finally:
        _nesting[0] -= 1
    kj = known.jaxpr
    n_kout = len(kj.outvars) - nres
    res_atoms = kj.outvars[n_kout:]
    producer = {id(v): e for e in kj.eqns for v in e.outvars}

    # Walk back from the residuals to the known inputs; a value the policy saves ends the walk
    # (it is passed from the known side), everything else on the way is recomputed.
    def saveable(e: JaxprEqn) -> bool | Offloadable:
        if policy is None:
            return False
        d = policy(e.primitive, *[a.aval for a in e.invars], **e.params)
        return d if isinstance(d, Offloadable) else bool(d)

    saved: list[Var] = []
    offloaded: dict[int, Offloadable] = {}
    recompute: set[int] = set()  # ids of equations
    seen: set[int] = set()
    stack = [r for r in res_atoms if type(r) is Var]
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        e = producer.get(id(v))
        if e is None:  # a known input
            continue
        d = saveable(e)
        if d:
            saved.append(v)
            if isinstance(d, Offloadable):
                offloaded[id(v)] = d
            continue
        if id(e) not in recompute:
            recompute.add(id(e))
            stack.extend(a for a in e.invars if type(a) is Var)
    # In the order the forward pass makes them, as JAX passes them.
    order = {id(o): i for i, e in enumerate(kj.eqns) for o in e.outvars}
    saved.sort(key=lambda v: order[id(v)])
    # An offloaded value reaches the recomputation in its offload memory and is moved back.
    saved_in = [_moved(v, offloaded[id(v)].dst) if id(v) in offloaded else v for v in saved]
    back = [
        _device_put_eqn(h, v, offloaded[id(v)].src)
        for h, v in zip(saved_in, saved)
        if id(v) in offloaded
    ]
    rec_eqns = back + _spliced([e for e in kj.eqns if id(e) in recompute])
    # Saved values come first (then the known inputs, the unknown ones), as in JAX's remat2.
    rec_jaxpr = Jaxpr([], saved_in + kj.invars, res_atoms, rec_eqns)

    # The known side: known outputs and saved intermediates, inlined.
    kj_kept = pe.dce_jaxpr(Jaxpr([], kj.invars, kj.outvars[:n_kout] + saved, kj.eqns))
    known_in_atoms = [a for a, u in zip(eqn.invars, unknowns) if not u]
    known_out_vars = [v for v, u in zip(eqn.outvars, out_unknowns) if not u]
    saved_vars = [Var(v.aval, sharding=v.sharding) for v in saved]
    known_eqns = _inline_eqns(kj_kept, known_in_atoms, known_out_vars + saved_vars)
    made = {id(o) for e in known_eqns for o in e.outvars}
    for i, (v, sv) in enumerate(zip(saved, saved_vars)):
        if id(sv) not in made:
            continue  # a known input saved as it is
        if id(v) in offloaded:
            # Offloaded values leave for their memory as soon as they are made.
            moved = _moved(sv, offloaded[id(v)].dst)
            _insert_after(known_eqns, sv, _device_put_eqn(sv, moved, offloaded[id(v)].dst))
            saved_vars[i] = moved
        elif dtypes.issubdtype(sv.aval.dtype, np.floating):
            # As JAX: a saved float is rounded to its type's precision where it is made, and
            # the forward pass goes on with the rounded value, so the backward pass sees what
            # the forward pass used (no excess precision on one side only).
            rounded = Var(sv.aval, sharding=sv.sharding)
            fi = dtypes.finfo(sv.aval.dtype)
            rp = JaxprEqn(
                [sv], [rounded], lax_conv.reduce_precision_p,
                {"exponent_bits": fi.nexp, "mantissa_bits": fi.nmant},
            )  # fmt: skip
            _insert_after(known_eqns, sv, rp, rename_uses=True)
            saved_vars[i] = rounded

    if nested:
        # Inside a checkpoint being differentiated, the primal part of a checkpoint stays
        # one remat2 equation (not differentiated), as JAX's forward program shows it.
        body = _as_jaxpr(known_eqns, known_in_atoms, known_out_vars + saved_vars)
        known_eqns = [
            JaxprEqn(
                known_in_atoms,
                known_out_vars + saved_vars,
                remat_p,
                dict(params, jaxpr=ClosedJaxpr(body, []), differentiated=False),
                eqn.source_info,
            )
        ]

    unknown_out_vars = [v for v, u in zip(eqn.outvars, out_unknowns) if u]
    if not unknown_out_vars:
        return known_eqns, [], []

    # The unknown side: (known inputs, saved values, unknown inputs) -> unknown outputs.
    n_rec_in = len(rec_jaxpr.invars)

    def unknown_fun(*args):
        res = core.eval_jaxpr(rec_jaxpr, [], *args[:n_rec_in])
        return core.eval_jaxpr(unknown.jaxpr, unknown.consts, *res, *args[n_rec_in:])

    unk_in_avals = [a for a, u in zip(closed.in_avals, unknowns) if u]
    # Constants made while retracing come from rules, so they are concrete: they stay in the
    # closed jaxpr (the remat2 rules accept consts).
    unk_in_atoms = [a for a, u in zip(eqn.invars, unknowns) if u]
    # Traced with the types of the values it is called with (Explicit mesh axes).
    u_types = [v.sharding for v in rec_jaxpr.invars] + [
        a.sharding if type(a) is Var else None for a in unk_in_atoms
    ]
    u_closed = pe.trace_to_jaxpr(
        unknown_fun, rec_jaxpr.in_avals + unk_in_avals, None, typed(u_types)
    )
    # Inputs the tangent part does not read are not kept for the backward pass.
    uj = pe.dce_jaxpr(u_closed.jaxpr)
    used = {id(a) for e in uj.eqns for a in e.invars} | {id(a) for a in uj.outvars}
    keep = [id(v) in used for v in uj.invars]
    uj = Jaxpr(uj.constvars, [v for v, k in zip(uj.invars, keep) if k], uj.outvars, uj.eqns)
    u_closed = ClosedJaxpr(uj, u_closed.consts)
    in_atoms = saved_vars + known_in_atoms + unk_in_atoms
    u_eqn = JaxprEqn(
        [a for a, k in zip(in_atoms, keep) if k],
        unknown_out_vars,
        remat_p,
        dict(params, jaxpr=u_closed, differentiated=True),
    )
    return known_eqns, [u_eqn], unknown_out_vars


def _remat_transpose(cts, *args, jaxpr, **params):
    lin = [ad.is_undefined_primal(a) for a in args]
    res_vals = [a for a, is_lin in zip(args, lin) if not is_lin]
    j = jaxpr.jaxpr
    res_vars = [v for v, is_lin in zip(j.invars, lin) if not is_lin]
    lin_vars = [v for v, is_lin in zip(j.invars, lin) if is_lin]
    # The body with its residual inputs as constvars: backward_pass recomputes the non-linear
    # part from them and transposes the rest.
    as_linear = Jaxpr(j.constvars + res_vars, lin_vars, j.outvars, j.eqns)
    body_consts = list(jaxpr.consts)
    ct_zero = [type(c) is Zero for c in cts]
    ct_avals = [c.aval if type(c) is Zero else core.get_aval(c) for c in cts]

    def transposed(*xs):
        res, it = xs[: len(res_vals)], iter(xs[len(res_vals) :])
        cs = [Zero(a) if z else next(it) for z, a in zip(ct_zero, ct_avals)]
        outs = ad.backward_pass(as_linear, body_consts + list(res), cs)
        return [ad.instantiate(o) for o in outs]

    t_avals = [core.get_aval(r) for r in res_vals] + [a for a, z in zip(ct_avals, ct_zero) if not z]
    like = list(res_vals) + [c for c in cts if type(c) is not Zero]
    t_closed, consts = _trace_closed(transposed, t_avals, "checkpoint", like)
    outs = remat_p.bind(
        *consts,
        *res_vals,
        *[c for c in cts if type(c) is not Zero],
        jaxpr=t_closed,
        **dict(params, differentiated=True),
    )
    it = iter(outs)
    return [next(it) if is_lin else None for is_lin in lin]


def _remat_pp(params: dict) -> list[tuple[str, Any]]:
    return [
        ("differentiated", params["differentiated"]),
        ("jaxpr", params["jaxpr"]),
        ("policy", params["policy"]),
        ("prevent_cse", params["prevent_cse"]),
    ]


remat_p.def_impl(_remat_impl)
remat_p.def_abstract_eval(_remat_abstract_eval)
batching.primitive_batchers[remat_p] = _remat_batch
ad.primitive_joint_jvps[remat_p] = _remat_jvp
pe.partial_eval_rules[remat_p] = _remat_partial_eval
ad.primitive_transposes[remat_p] = _remat_transpose
dispatch.compile_rules[remat_p] = _remat_compile
dispatch.inline_rules[remat_p] = lambda *, jaxpr, **_: jaxpr
# Sharding propagation and the partitioner look through the call to the primal program.
sharding_rules.call_jaxprs[remat_p] = lambda eqn: eqn.params["jaxpr"].jaxpr
core.pp_param_rules[remat_p] = _remat_pp


__all__ = [
    "checkpoint",
    "checkpoint_policies",
    "remat",
    "remat_p",
]
