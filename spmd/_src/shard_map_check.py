"""shard_map's types and replication check: the mesh axes each value of the body varies over.

JAX calls these the varying manual axes (vma). ``type_jaxpr`` types a body with them (each
variable's ``aval.vma``, printed ``{V:x}``), inserting JAX's ``pvary`` casts (collectives by
their rules in ``spmd._src.lax.parallel``, control flow to a fixed point); ``_check_vma``
rejects out_specs that claim an output is replicated over an axis it varies over.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from typing import Any

from spmd._src import core
from spmd._src.core import ClosedJaxpr
from spmd._src.lax import parallel
from spmd._src.sharding import PartitionSpec, spec_axes

__all__ = ["infer_vma", "strip_pvary", "traced_vma", "type_jaxpr"]


# ---------------------------------------------------------------------------------------------
# Replication checking: the mesh axes each value varies over (JAX's varying manual axes)


def _union(sets) -> frozenset:
    out: frozenset = frozenset()
    for s in sets:
        out = out | s
    return out


def _call_jaxpr(eqn: core.JaxprEqn) -> core.Jaxpr | None:
    k = _call_param(eqn)
    return None if k is None else _jaxpr_of(eqn.params[k])


def _jaxpr_of(v: Any) -> core.Jaxpr:
    return v.jaxpr if isinstance(v, ClosedJaxpr) else v


def infer_vma(jaxpr: core.Jaxpr, in_vmas: Sequence[frozenset]) -> list[frozenset]:
    """The mesh axes each output of ``jaxpr`` varies over, given its inputs' (the typing of
    ``type_jaxpr``, every axis name checked)."""
    return infer_outputs(_Typer((), None), jaxpr, in_vmas)


def _check_vma(outs, out_specs, out_paths, manual, mesh, fun_name: str) -> None:
    """Reject out_specs that claim replication over an axis an output (of vma ``outs``)
    varies over."""
    for vma, spec, path in zip(outs, out_specs, out_paths):
        named = {a for e in spec for a in spec_axes(e)}
        stray = [a for a in manual if a in vma and a not in named]
        if stray:
            a = stray[0]
            raise ValueError(
                f"shard_map applied to the function '{fun_name}' was given out_specs which "
                f"claim replication the body does not establish: out_specs{path} is {spec}, "
                f"which claims the output is the same on every device along mesh axis {a!r} "
                f"(the mesh has shape {dict(mesh.shape)}), but the value varies over it"
                + (f" (it varies over {sorted(map(str, vma))})" if len(vma) > 1 else "")
                + f". Name {a!r} in that out_specs entry, reduce over the axis (lax.psum, "
                f"lax.pmean, ...), or pass check_vma=False if the values are equal anyway."
            )


# ---------------------------------------------------------------------------------------------
# Typing a body with its varying manual axes (JAX's check_vma types)
#
# ``type_jaxpr`` rewrites a traced body so that every variable's aval carries the mesh axes it
# varies over (``ShapedArray.vma``, printed ``{V:x}``) and inserts the ``pvary`` casts JAX's
# typed shard_map inserts: an operand that varies over fewer axes than the others of its
# equation is cast up first (literals too); a collective's operand is cast to vary over the
# axes it reduces, gathers or permutes; loop carries and cond branches are cast to their joint
# type. ``psum`` over checked axes becomes ``psum_invariant`` (whose transpose is the cast, not
# another sum). The casts change no value (pvary's kernel is the identity), so a typed body
# computes what the untyped one did. Applied after tracing a body with check_vma and after
# every transformation of one (vmap, jvp, partial evaluation, transposition).


# Collectives whose operand must vary over the axes they name (others are cast up first).
def _needs_varying(prim: core.Primitive, params: dict) -> bool:
    if params.get("axis_index_groups") is not None:
        return False
    return prim in (
        parallel.psum_invariant_p,
        parallel.pmax_p,
        parallel.pmin_p,
        parallel.all_gather_p,
        parallel.ppermute_p,
        parallel.reduce_scatter_p,
        parallel.all_to_all_p,
        parallel.pbroadcast_p,
    )


def _axes_param(prim: core.Primitive, params: dict) -> tuple:
    key = "axes" if "axes" in params else "axis_name"
    v = params[key]
    return tuple(v) if isinstance(v, (tuple, list)) else (v,)


class _Typer:
    def __init__(self, order: Sequence, checked: frozenset | None, strict: bool = False) -> None:
        self.order = tuple(order)
        self.checked = checked
        # strict: the first typing of a user's body, where JAX rejects a loop whose body makes
        # a carry vary over more axes than its initial value (retypings after autodiff widen).
        self.strict = strict

    def _carry_check(self, what: str, carry_in, carry_out) -> None:
        if not self.strict:
            return
        for i, (c, g) in enumerate(zip(carry_in, carry_out)):
            extra = self.ordered(set(g) - set(c))
            if extra:
                raise TypeError(
                    f"{what} body function carry input and carry output must have equal types, "
                    f"but they differ: carry component {i} is invariant over mesh axes "
                    f"{extra} on input but varies over them on output; apply "
                    f"jax.lax.pcast(..., {extra!r}, to='varying') to the initial carry"
                )

    def vma(self, names) -> frozenset:
        names = set(names)
        if self.checked is not None:
            names &= self.checked
        if not names:
            return frozenset()
        first = [a for a in self.order if a in names]
        rest = sorted((a for a in names if a not in self.order), key=str)
        return core.Vma(first + rest)

    def ordered(self, names) -> tuple:
        return tuple(self.vma(names).order) if names else ()

    def closed(self, closed: ClosedJaxpr, in_vmas, out_vmas=None) -> ClosedJaxpr:
        return ClosedJaxpr(self.jaxpr(closed.jaxpr, in_vmas, out_vmas), closed.consts)

    def jaxpr(self, jaxpr: core.Jaxpr, in_vmas, out_vmas=None) -> core.Jaxpr:
        env: dict[int, Any] = {}
        eqns: list[core.JaxprEqn] = []

        def fresh(v, vma):
            return core.Var(v.aval.update(vma=self.vma(vma)), v.suffix)

        def read(a):
            return a if type(a) is core.Literal else env[id(a)]

        def cast(a, target):
            have = a.aval.vma
            missing = self.ordered(set(target) - set(have))
            if not missing:
                return a
            out = core.Var(a.aval.update(vma=self.vma(set(have) | set(missing))))
            eqns.append(core.JaxprEqn([a], [out], parallel.pvary_p, {"axes": missing}))
            return out

        constvars = [fresh(v, ()) for v in jaxpr.constvars]
        invars = [fresh(v, s) for v, s in zip(jaxpr.invars, in_vmas, strict=True)]
        for old, new in zip(jaxpr.constvars + jaxpr.invars, constvars + invars):
            env[id(old)] = new
        for eqn in jaxpr.eqns:
            ins = [read(a) for a in eqn.invars]
            if eqn.primitive is parallel.pvary_p:
                axes = [a for a in eqn.params["axes"] if a not in self.vma(ins[0].aval.vma)]
                if not axes:
                    # A cast to axes the value already varies over changes nothing.
                    env[id(eqn.outvars[0])] = ins[0]
                    continue
                eqn = eqn.replace(params=dict(eqn.params, axes=tuple(axes)))
            ins, params, prim, out_vmas_eqn = self.eqn(eqn, ins, cast)
            outs = [fresh(v, s) for v, s in zip(eqn.outvars, out_vmas_eqn, strict=True)]
            for old, new in zip(eqn.outvars, outs):
                env[id(old)] = new
            eqns.append(core.JaxprEqn(ins, outs, prim, params))
        outvars = [read(a) for a in jaxpr.outvars]
        if out_vmas is not None:
            outvars = [cast(a, s) for a, s in zip(outvars, out_vmas, strict=True)]
        return core.Jaxpr(constvars, invars, outvars, eqns, jaxpr.debug_info)

    def eqn(self, eqn: core.JaxprEqn, ins: list, cast) -> tuple:
        prim, params = eqn.primitive, eqn.params
        vmas = [a.aval.vma for a in ins]
        if prim is parallel.psum_p and params.get("axis_index_groups") is None:
            axes = _axes_param(prim, params)
            if self.checked is not None and all(
                not isinstance(a, int) and a in self.checked for a in axes
            ):
                # A psum over checked axes is typed: the invariant sum.
                prim, params = parallel.psum_invariant_p, {"axes": axes}
        if prim is parallel.pvary_p:
            return ins, params, prim, [_union(vmas) | set(params["axes"])]
        rule = parallel.vma_rules.get(prim)
        if rule is not None:
            if _needs_varying(prim, params):
                named = [a for a in _axes_param(prim, params) if not isinstance(a, int)]
                ins = [cast(ins[0], set(vmas[0]) | set(named))]
                vmas = [ins[0].aval.vma]
            if prim is parallel.pbroadcast_p:
                # The result is one device's value, but typed as varying (as in JAX).
                out = set(_union(vmas))
            else:
                out = set(rule(params, set(_union(vmas))))
            return ins, params, prim, [out] * len(eqn.outvars)
        name = prim.name
        if name == "cond" and "branches" in params:
            return self._cond(eqn, ins, cast)
        if name == "scan" and "num_carry" in params:
            return self._scan(eqn, ins, cast)
        if name == "while" and "body_jaxpr" in params:
            return self._while(eqn, ins, cast)
        key = None if name == "shard_map" else _call_param(eqn)
        if key is not None:
            inner = params[key]
            typed = (self.closed if isinstance(inner, ClosedJaxpr) else self.jaxpr)(inner, vmas)
            j = _jaxpr_of(typed)
            return ins, dict(params, **{key: typed}), prim, [a.aval.vma for a in j.outvars]
        if core._jaxprs_in_params(params):
            return ins, params, prim, [_union(vmas)] * len(eqn.outvars)
        joint = _union(vmas)
        if len(ins) > 1 and any(v != joint for v in vmas):
            ins = [cast(a, joint) for a in ins]
        return ins, params, prim, [joint] * len(eqn.outvars)

    def _cond(self, eqn, ins, cast):
        params = eqn.params
        index, ops = ins[0], ins[1:]
        op_vmas = [a.aval.vma for a in ops]
        outs = [index.aval.vma] * len(eqn.outvars)
        for br in params["branches"]:
            got = infer_outputs(self, br, op_vmas)
            outs = [o | g for o, g in zip(outs, got)]
        branches = tuple(self.closed(b, op_vmas, outs) for b in params["branches"])
        return ins, dict(params, branches=branches), eqn.primitive, outs

    def _scan(self, eqn, ins, cast):
        params = eqn.params
        nc, nk = params["num_consts"], params["num_carry"]
        vmas = [a.aval.vma for a in ins]
        consts, carry, xs = vmas[:nc], vmas[nc : nc + nk], vmas[nc + nk :]
        while True:
            got = infer_outputs(self, params["jaxpr"], consts + carry + xs)
            self._carry_check("scan", carry, got[:nk])
            new = [c | g for c, g in zip(carry, got[:nk])]
            if new == carry:
                break
            carry = new
        ins = ins[:nc] + [cast(a, c) for a, c in zip(ins[nc : nc + nk], carry)] + ins[nc + nk :]
        body = self.closed(params["jaxpr"], consts + carry + xs, carry + got[nk:])
        return ins, dict(params, jaxpr=body), eqn.primitive, carry + got[nk:]

    def _while(self, eqn, ins, cast):
        params = eqn.params
        cn, bn = params["cond_nconsts"], params["body_nconsts"]
        vmas = [a.aval.vma for a in ins]
        cconsts, bconsts, carry = vmas[:cn], vmas[cn : cn + bn], vmas[cn + bn :]
        while True:
            pred = infer_outputs(self, params["cond_jaxpr"], cconsts + carry)[0]
            got = infer_outputs(self, params["body_jaxpr"], bconsts + carry)
            self._carry_check("while_loop", carry, got)
            # A predicate that varies makes the trip count, hence every carry, vary.
            new = [c | g | pred for c, g in zip(carry, got)]
            if new == carry:
                break
            carry = new
        ins = ins[: cn + bn] + [cast(a, c) for a, c in zip(ins[cn + bn :], carry)]
        cond = self.closed(params["cond_jaxpr"], cconsts + carry)
        body = self.closed(params["body_jaxpr"], bconsts + carry, carry)
        new_params = dict(params, cond_jaxpr=cond, body_jaxpr=body)
        return ins, new_params, eqn.primitive, carry


def strip_pvary(closed: ClosedJaxpr, axes: frozenset) -> ClosedJaxpr:
    """``closed`` without its casts to varying over ``axes`` (a shard_map body without
    check_vma: there, as in JAX, the cast is no operation at all, so its transpose must not
    sum either)."""
    j = closed.jaxpr
    if not any(e.primitive is parallel.pvary_p for e in j.eqns):
        return closed
    sub: dict[int, Any] = {}

    def read(a):
        return sub.get(id(a), a) if type(a) is core.Var else a

    eqns = []
    for e in j.eqns:
        e = e.replace(invars=[read(a) for a in e.invars])
        if e.primitive is parallel.pvary_p:
            keep = tuple(a for a in e.params["axes"] if a not in axes)
            if not keep:
                sub[id(e.outvars[0])] = e.invars[0]
                continue
            e = e.replace(params=dict(e.params, axes=keep))
        eqns.append(e)
    outs = [read(a) for a in j.outvars]
    return ClosedJaxpr(core.Jaxpr(j.constvars, j.invars, outs, eqns, j.debug_info), closed.consts)


def infer_outputs(typer: _Typer, closed: Any, in_vmas) -> list[frozenset]:
    j = _jaxpr_of(closed)
    typed = typer.jaxpr(j, in_vmas)
    return [frozenset(a.aval.vma) for a in typed.outvars]


def _call_param(eqn: core.JaxprEqn) -> str | None:
    for k, v in eqn.params.items():
        j = v.jaxpr if isinstance(v, ClosedJaxpr) else v if isinstance(v, core.Jaxpr) else None
        if (
            j is not None
            and len(j.invars) == len(eqn.invars)
            and len(j.outvars) == len(eqn.outvars)
        ):
            return k
    return None


def type_jaxpr(
    closed: ClosedJaxpr,
    in_vmas: Sequence[frozenset],
    order: Sequence,
    checked: frozenset | None,
    out_vmas: Sequence[frozenset] | None = None,
    strict: bool = False,
) -> ClosedJaxpr:
    """``closed`` with every value typed by the mesh axes it varies over (``aval.vma``) and
    ``pvary`` casts inserted where JAX inserts them (see above). ``in_vmas``: the inputs'
    axes; ``order``: the mesh's axis order (for printing and for the casts' axes);
    ``checked``: the axes typed (None: every name); ``out_vmas``: cast the outputs up to these.
    """
    return _Typer(order, checked, strict).closed(closed, in_vmas, out_vmas)


# ---------------------------------------------------------------------------------------------
# Types while a body is traced: ``jax.typeof(x)`` in the Python body shows ``{V:i}``
#
# A body is typed once traced; a value's type while tracing is the typing of what was traced so
# far (the equations up to it), computed when ``typeof`` asks (rarely: it is for inspection).
# The body's trace is registered with its inputs' axes while its function runs.

_BODY_TRACES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def register_body_trace(trace: Any, in_vmas: Sequence[frozenset], order, checked) -> None:
    _BODY_TRACES[trace] = (tuple(in_vmas), tuple(order), checked)


def traced_vma(x: Any) -> frozenset | None:
    """The mesh axes ``x`` (a value of a shard_map body being traced, or a transformation's
    tracer wrapping one) varies over; None when ``x`` is no such value."""
    from spmd._src.interpreters.partial_eval import JaxprTracer

    while isinstance(x, core.Tracer) and not isinstance(x, JaxprTracer):
        x = getattr(x, "primal", getattr(x, "val", None))  # a JVP or batch tracer's value
    if not isinstance(x, JaxprTracer):
        return None
    trace = x._trace
    body = _BODY_TRACES.get(trace)
    if body is None:
        return None
    in_vmas, order, checked = body
    # Inputs beyond the registered ones do not occur; closed-over values are invariant.
    j = core.Jaxpr(trace.constvars, trace.invars, [x._var], list(trace.eqns))
    ins = list(in_vmas) + [frozenset()] * (len(trace.invars) - len(in_vmas))
    typed = _Typer(order, checked).jaxpr(j, ins)
    return typed.outvars[0].aval.vma if type(typed.outvars[0]) is core.Var else frozenset()


# ---------------------------------------------------------------------------------------------
# The context of a body's tracing, and its typing by specs (used by shard_map and its rules)


class _MeshAxisEnv:
    """Binds the manual axes as names (for collectives and their abstract evaluation)."""

    def __init__(self, mesh: Any, manual: tuple) -> None:
        self.env = tuple((a, mesh.shape[a]) for a in manual)

    def __enter__(self) -> None:
        self.prev = core.trace_ctx.axis_env
        core.trace_ctx.axis_env = self.prev + self.env

    def __exit__(self, *exc) -> None:
        core.trace_ctx.axis_env = self.prev


class _BodyContext:
    """What tracing (or retracing) a body needs: the manual axes bound as names, and with
    check_vma, psum over them typed as the invariant sum."""

    def __init__(self, mesh: Any, manual: tuple, check_vma: bool) -> None:
        self.env = _MeshAxisEnv(mesh, manual)
        self.vma = parallel.vma_checked_axes(manual if check_vma else ())

    def __enter__(self) -> None:
        self.env.__enter__()
        self.vma.__enter__()

    def __exit__(self, *exc) -> None:
        self.vma.__exit__(*exc)
        self.env.__exit__(*exc)


def _spec_vma(spec: PartitionSpec, manual: tuple) -> frozenset:
    return frozenset(a for e in spec for a in spec_axes(e) if a in manual)


def _type_body(
    closed: ClosedJaxpr,
    mesh: Any,
    manual: tuple,
    in_specs,
    out_specs,
    check_vma: bool,
    strict: bool = False,
) -> ClosedJaxpr:
    """The body typed with the mesh axes each value varies over (check_vma only): inputs by
    their specs, outputs cast up to theirs (see ``shard_map_check.type_jaxpr``)."""
    if not check_vma:
        return strip_pvary(closed, frozenset(manual))
    return type_jaxpr(
        closed,
        [_spec_vma(s, manual) for s in in_specs],
        mesh.axis_names,
        frozenset(manual) | parallel._vma_ctx.axes,
        [_spec_vma(s, manual) for s in out_specs],
        strict,
    )
