"""Autodiff of shard_map, as a shard_map of the differentiated body (as JAX does).

- jvp: one shard_map of the body's jvp, taking the primals and the nonzero tangents (with the
  primals' specs) and returning the primal outputs and the nonzero output tangents;
- partial evaluation (linearize, grad): a known shard_map returning the residuals (first, each
  stacked along its first dimension over the axes it varies over; scalars get a dimension of
  size 1) and the known outputs, and an unknown one taking the residuals (a residual that is a
  known operand is passed along, not returned) and the unknown operands;
- transpose: a shard_map of the transposed body, taking the nonzero output cotangents and the
  non-linear operands. Without check_vma an output's cotangent is first divided among the
  devices its spec replicates it over, and an operand's is summed over those of its spec.

Bodies are retyped (``shard_map_check._type_body``) after each transformation, so psum's
transpose inside a checked body is the ``pvary`` cast and pvary's is ``psum_invariant``.
Gradients are therefore those of the per-device program, summed over devices in device order
like JAX's, not of a global program.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from spmd._src import core
from spmd._src.core import ClosedJaxpr, ShapedArray
from spmd._src.interpreters import ad
from spmd._src.interpreters import partial_eval as pe
from spmd._src.lax import elementwise as lax_elem
from spmd._src.lax import parallel
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.control_flow import common as cf_common
from spmd._src.mesh import Mesh
from spmd._src.shard_map_check import _BodyContext, _spec_vma, _type_body, _Typer, infer_outputs
from spmd._src.sharding import P, PartitionSpec, spec_axes
from spmd._src.util import prod

__all__ = ["register"]

# The shard_map primitive (set by ``register``: spmd._src.shard_map defines it and imports this
# module).
shard_map_p: core.Primitive = None  # type: ignore[assignment]


def _params_manual(params: dict) -> tuple:
    return tuple(a for a in params["mesh"].axis_names if a in params["newly_manual_axes"])


def _global_shape(pd, spec: PartitionSpec, sizes: dict) -> tuple:
    parts = list(spec) + [None] * (len(pd) - len(spec))
    return tuple(d * prod(sizes[a] for a in spec_axes(e)) for d, e in zip(pd, parts))


def _global_avals(avals, specs, mesh: Mesh) -> list[ShapedArray]:
    sizes = dict(mesh.shape)
    return [
        ShapedArray(_global_shape(a.shape, s, sizes), a.dtype, a.weak_type)
        for a, s in zip(avals, specs)
    ]


def _shard_map_jvp(primals, tangents, **params):
    """jvp of shard_map = shard_map of the jvp of the body: it takes the primals and the
    nonzero tangents (with the primals' specs) and returns the primal outputs and the nonzero
    output tangents."""
    body, mesh, check_vma = params["jaxpr"], params["mesh"], params["check_vma"]
    manual = _params_manual(params)
    in_specs, out_specs = params["in_specs"], params["out_specs"]
    nonzeros = [
        type(t) is not ad.Zero and cf_common.is_float(a) for t, a in zip(tangents, body.in_avals)
    ]

    def make():
        with _BodyContext(mesh, manual, check_vma):
            jvp, out_nz = cf_common.jvp_jaxpr(body, nonzeros)
            t_in = [s for s, nz in zip(in_specs, nonzeros) if nz]
            t_out = [s for s, nz in zip(out_specs, out_nz) if nz]
            ins, outs = tuple(in_specs) + tuple(t_in), tuple(out_specs) + tuple(t_out)
            typed = _type_body(jvp, mesh, manual, ins, outs, check_vma)
        return typed, ins, outs, out_nz

    jvp, ins, outs, out_nz = cf_common.cached("shard_map_jvp", body, tuple(nonzeros), make)
    nz_tangents = [t for t, nz in zip(tangents, nonzeros) if nz]
    new = dict(params, jaxpr=jvp, in_specs=ins, out_specs=outs)
    res = shard_map_p.bind(*primals, *nz_tangents, **new)
    n = len(out_specs)
    primal_out, t_it = res[:n], iter(res[n:])
    out_avals = _global_avals(body.out_avals, out_specs, mesh)
    tangent_out = [
        next(t_it) if nz else ad.Zero(ad.tangent_aval(a)) for a, nz in zip(out_avals, out_nz)
    ]
    return primal_out, tangent_out


def _residual_spec(vma: frozenset, manual: tuple, check_vma: bool) -> PartitionSpec:
    # A residual is stacked along its first dimension over the axes it varies over (every
    # manual axis without check_vma), as in JAX (a scalar is given a dimension of size 1).
    axes = tuple(a for a in manual if a in vma) if check_vma else manual
    if not axes:
        return P()
    return P(axes if len(axes) > 1 else axes[0])


def _shard_map_partial_eval(eqn: core.JaxprEqn, unknowns: Sequence[bool]):
    """Split a shard_map with some unknown operands into a shard_map computing the known
    outputs and the residuals (residuals first, as in JAX) and one computing the unknown
    outputs from the residuals and the unknown operands. A residual that is a known operand
    of the body is passed along as it is, not returned."""
    params = eqn.params
    body, mesh, check_vma = params["jaxpr"], params["mesh"], params["check_vma"]
    manual = _params_manual(params)
    in_specs, out_specs = params["in_specs"], params["out_specs"]
    known, unknown, out_uk, nres = pe.partial_eval_jaxpr(body, unknowns)
    if not any(out_uk):
        return [eqn], [], []
    kj = known.jaxpr
    n_known = out_uk.count(False)
    known_outs, residuals = kj.outvars[:n_known], kj.outvars[n_known:]
    known_in = [a for a, u in zip(eqn.invars, unknowns) if not u]
    known_in_specs = [s for s, u in zip(in_specs, unknowns) if not u]
    forwarded = {id(v): (a, s) for v, a, s in zip(kj.invars, known_in, known_in_specs)}
    res_vmas = [frozenset()] * len(residuals)
    if check_vma:
        # The axes each residual varies over, from the known body typed anew: partial
        # evaluation makes variables (a loop's residuals) whose types carry no axes.
        with _BodyContext(mesh, manual, check_vma):
            in_vmas = [_spec_vma(s, manual) for s in known_in_specs]
            res_vmas = infer_outputs(_Typer(mesh.axis_names, None), kj, in_vmas)[n_known:]
    res_atoms, res_specs, res_out, res_out_specs = [], [], [], []
    promoted = []  # per residual: a returned scalar, given a leading dimension of size 1
    for r, vma in zip(residuals, res_vmas):
        fwd = forwarded.get(id(r)) if type(r) is core.Var else None
        promoted.append(fwd is None and r.aval.ndim == 0)
        if fwd is not None:
            res_atoms.append(fwd[0])
            res_specs.append(fwd[1])
            continue
        aval = r.aval.update(shape=(1,)) if promoted[-1] else r.aval
        spec = _residual_spec(vma, manual, check_vma)
        (outer,) = _global_avals([aval], [spec], mesh)
        v = core.Var(outer)
        res_atoms.append(v)
        res_specs.append(spec)
        res_out.append((r, v))
        res_out_specs.append(spec)
    k_out_specs = tuple(res_out_specs) + tuple(s for s, u in zip(out_specs, out_uk) if not u)
    known_body = ClosedJaxpr(
        pe.dce_jaxpr(
            core.Jaxpr(kj.constvars, kj.invars, [r for r, _ in res_out] + known_outs, kj.eqns)
        ),
        known.consts,
    )
    uk_in_specs = tuple(res_specs) + tuple(s for s, u in zip(in_specs, unknowns) if u)
    uk_out_specs = tuple(s for s, u in zip(out_specs, out_uk) if u)
    with _BodyContext(mesh, manual, check_vma):
        if any(promoted):
            k_prom = [p for p, r in zip(promoted, residuals) if id(r) not in forwarded]
            known_body, unknown = _promote_scalars(known_body, unknown, k_prom, promoted)
        known_body = _type_body(known_body, mesh, manual, known_in_specs, k_out_specs, check_vma)
        unknown_body = _type_body(unknown, mesh, manual, uk_in_specs, uk_out_specs, check_vma)
    known_eqn = core.JaxprEqn(
        known_in,
        [v for _, v in res_out] + [v for v, u in zip(eqn.outvars, out_uk) if not u],
        shard_map_p,
        dict(params, jaxpr=known_body, in_specs=tuple(known_in_specs), out_specs=k_out_specs),
    )
    uk_outs = [v for v, u in zip(eqn.outvars, out_uk) if u]
    unknown_eqn = core.JaxprEqn(
        res_atoms + [a for a, u in zip(eqn.invars, unknowns) if u],
        uk_outs,
        shard_map_p,
        dict(params, jaxpr=unknown_body, in_specs=uk_in_specs, out_specs=uk_out_specs),
    )
    return [known_eqn], [unknown_eqn], uk_outs


def _promote_scalars(known: ClosedJaxpr, unknown: ClosedJaxpr, k_prom: list, promoted: list):
    """Scalar residuals cannot be stacked along a dimension: the known body returns them with
    a dimension of size 1 (its first outputs are the returned residuals, ``k_prom`` says which
    are scalars) and the unknown body squeezes it away first (as JAX does)."""
    n_res = len(promoted)

    def known_fun(*args):
        outs = core.eval_jaxpr(known.jaxpr, known.consts, *args)
        head = [lax_shape.broadcast_in_dim(o, (1,), ()) if p else o for o, p in zip(outs, k_prom)]
        return head + list(outs[len(k_prom) :])

    def unknown_fun(*args):
        res = [lax_shape.squeeze(a, (0,)) if p else a for a, p in zip(args, promoted)]
        return core.eval_jaxpr(unknown.jaxpr, unknown.consts, *res, *args[n_res:])

    u_avals = [a.update(shape=(1,)) if p else a for a, p in zip(unknown.in_avals, promoted)]
    u_avals += unknown.in_avals[n_res:]
    return (
        pe.trace_to_jaxpr(known_fun, known.in_avals),
        pe.trace_to_jaxpr(unknown_fun, u_avals),
    )


def _unmentioned(spec: PartitionSpec, manual: tuple) -> tuple:
    named = {a for e in spec for a in spec_axes(e)}
    return tuple(a for a in manual if a not in named)


def _transpose_body(body, mesh, manual, check_vma, linear, ct_nonzero, in_specs, out_specs):
    """The transposed body: (nonzero output cotangents, non-linear operands) -> cotangents of
    the linear operands. Without check_vma a cotangent is summed over the axes its operand's
    spec does not name (each device's share of a replicated operand's cotangent)."""
    j = body.jaxpr
    lin_vars = [v for v, lin in zip(j.invars, linear) if lin]
    res_vars = [v for v, lin in zip(j.invars, linear) if not lin]
    inner = core.Jaxpr(j.constvars + res_vars, lin_vars, j.outvars, j.eqns)
    out_avals = [ad.tangent_aval(a) for a in body.out_avals]
    ct_avals = [a for a, nz in zip(out_avals, ct_nonzero) if nz]
    res_avals = [v.aval for v in res_vars]
    lin_specs = [s for s, lin in zip(in_specs, linear) if lin]

    def fun(*args):
        nz_cts, res = iter(args[: len(ct_avals)]), list(args[len(ct_avals) :])
        cts = [next(nz_cts) if nz else ad.Zero(a) for a, nz in zip(out_avals, ct_nonzero)]
        got = ad.backward_pass(inner, list(body.consts) + res, cts)
        outs = []
        for c, v, spec in zip(got, lin_vars, lin_specs):
            c = ad.instantiate(ad.Zero(ad.tangent_aval(v.aval)) if c is None else c)
            axes = () if check_vma else _unmentioned(spec, manual)
            outs.append(parallel.psum(c, axes) if axes else c)
        return outs

    t_in_specs = tuple(s for s, nz in zip(out_specs, ct_nonzero) if nz) + tuple(
        s for s, lin in zip(in_specs, linear) if not lin
    )
    with _BodyContext(mesh, manual, check_vma):
        closed = pe.trace_to_jaxpr(fun, ct_avals + res_avals)
        closed = _type_body(closed, mesh, manual, t_in_specs, lin_specs, check_vma)
    return closed, t_in_specs, tuple(lin_specs)


def _shard_map_transpose(cts, *args, **params):
    body, mesh, check_vma = params["jaxpr"], params["mesh"], params["check_vma"]
    manual = _params_manual(params)
    in_specs, out_specs = params["in_specs"], params["out_specs"]
    linear = [ad.is_undefined_primal(x) for x in args]
    ct_nonzero = [type(c) is not ad.Zero for c in cts]
    if not any(ct_nonzero):
        return [ad.Zero(x.aval) if lin else None for x, lin in zip(args, linear)]
    nz_cts = []
    for c, nz, spec in zip(cts, ct_nonzero, out_specs):
        if not nz:
            continue
        n = prod(mesh.shape[a] for a in _unmentioned(spec, manual))
        if not check_vma and n > 1 and cf_common.is_float(core.get_aval(c)):
            # Every device along an axis the spec replicates over received the cotangent of
            # the one output: each takes its share (as JAX does without check_vma).
            c = lax_elem.div(c, np.array(n, core.get_aval(c).dtype))
        nz_cts.append(c)
    res = [x for x, lin in zip(args, linear) if not lin]
    key = (tuple(linear), tuple(ct_nonzero))
    t_body, t_in, t_out = cf_common.cached(
        "shard_map_transpose",
        body,
        key,
        lambda: _transpose_body(
            body, mesh, manual, check_vma, linear, ct_nonzero, in_specs, out_specs
        ),
    )
    new = dict(params, jaxpr=t_body, in_specs=t_in, out_specs=t_out)
    outs = iter(shard_map_p.bind(*nz_cts, *res, **new))
    return [next(outs) if lin else None for lin in linear]


def register(prim: core.Primitive) -> None:
    """Install the jvp, partial-evaluation and transpose rules of shard_map ``prim``."""
    global shard_map_p
    shard_map_p = prim
    ad.primitive_joint_jvps[prim] = _shard_map_jvp
    pe.partial_eval_rules[prim] = _shard_map_partial_eval
    ad.primitive_transposes[prim] = _shard_map_transpose
