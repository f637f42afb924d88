"""Automatic differentiation: forward mode (JVP), linearization, and transposition.

A ``JVPTracer`` carries a primal value and its tangent. A ``JVPTrace`` computes each
primitive's primal output on its parent trace, then the tangent with the primitive's rule from
``primitive_jvps`` on its *tangent trace*:

    rule(primals, tangents, primal_out, **params) -> tangent_out     # lists if multiple results

For ``jvp`` the tangent trace is the parent itself: tangents are computed alongside primals.
For ``linearize``/``vjp`` it is a fresh jaxpr trace, so the tangent computation is recorded as a
linear jaxpr in the input tangents (primal values enter it as constants); ``backward_pass``
transposes that jaxpr with the rules in ``primitive_transposes``:

    rule(cts_out, *args, **params) -> list of cotangents, one per arg (None where not linear)

where each linear argument is an ``UndefinedPrimal`` (its aval only). Equations of the linear
jaxpr that do not touch the tangents (e.g. ``cos x`` in the tangent of ``sin``) are evaluated
forward first.

Zero tangents and cotangents are symbolic (``Zero``): rules see them, and work on values that
cannot influence the result is skipped.
"""

from __future__ import annotations

import contextvars
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes, source_info
from spmd._src.core import DEVICE_SPACE, Jaxpr, Literal, ShapedArray, Tracer, Var
from spmd._src.interpreters import reduction_states, sharding_rules

# prim -> rule(primals, tangents, primal_out, **params) -> tangent_out
primitive_jvps: dict[core.Primitive, Callable] = {}
# prim -> rule(cts_out, *args, **params) -> list of cts (None for non-linear args)
primitive_transposes: dict[core.Primitive, Callable] = {}
# Higher-order primitives whose primal and tangent computations are one program (control
# flow, custom_jvp): prim -> rule(primals, tangents, **params) -> (primal_out, tangent_out).
# Under jvp the rule runs as is; under linearize its traced program is split by partial
# evaluation into a primal part (run now) and a tangent part (recorded).
primitive_joint_jvps: dict[core.Primitive, Callable] = {}
# Call-like primitives that autodiff looks through: prim -> fn(*args, **params) -> outputs,
# evaluated with the JVP trace current (so each inner primitive gets its own rule).
call_inline_rules: dict[core.Primitive, Callable] = {}
# Rewrites tried first: prim -> fn(*args, **params) -> outputs, evaluated with the JVP trace
# current, or NotImplemented to differentiate the primitive as usual (a loop over a Ref made
# outside its body becomes a loop carrying the Ref's value, whose derivative the loop's rule
# knows).
jvp_rewrites: dict[core.Primitive, Callable] = {}


# ---------------------------------------------------------------------------------------------
# Zeros and tangent types


class Zero:
    """A symbolic zero tangent or cotangent of the given abstract value."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    @staticmethod
    def from_value(x: Any) -> Zero:
        return Zero(tangent_aval(core.get_aval(x)))

    def __repr__(self) -> str:
        return f"Zero({self.aval.str_short()})"


def tangent_dtype(dtype: np.dtype) -> np.dtype:
    """Tangents of ints and bools are float0 (they carry no information)."""
    if dtypes.issubdtype(dtype, np.inexact):
        return dtype
    return dtypes.float0


def tangent_aval(aval: ShapedArray) -> ShapedArray:
    # Weak types carry over to tangents (as in JAX), so grad of a weakly typed input is weak.
    dt = tangent_dtype(aval.dtype)
    weak = aval.weak_type and dt != dtypes.float0
    return ShapedArray(aval.shape, dt, weak, aval.vma, getattr(aval, "memory_space", DEVICE_SPACE))


def _missing_hook(*args, **kwargs):
    raise RuntimeError("spmd._src.lax has not installed the autodiff helpers")


# Installed by the lax layer (these emit primitives, which live above this module).
zeros_like_aval: Callable[[ShapedArray], Any] = _missing_hook
add_tangents: Callable[[Any, Any], Any] = _missing_hook


def set_tangent_helpers(zeros: Callable, add: Callable) -> None:
    global zeros_like_aval, add_tangents
    zeros_like_aval, add_tangents = zeros, add


def instantiate(t: Any) -> Any:
    """A concrete value for a possibly symbolic zero."""
    if type(t) is Zero:
        return zeros_like_aval(t.aval)
    return t


def add_maybe_zero(a: Any, b: Any) -> Any:
    if type(a) is Zero:
        return b
    if type(b) is Zero:
        return a
    return add_tangents(a, b)


# ---------------------------------------------------------------------------------------------
# JVP


class JVPTracer(Tracer):
    __slots__ = ("primal", "tangent")

    def __init__(self, trace: JVPTrace, primal: Any, tangent: Any) -> None:
        self._trace = trace
        self.primal = primal
        self.tangent = tangent

    @property
    def aval(self) -> ShapedArray:
        return core.get_aval(self.primal)


class JVPTrace(core.Trace):
    __slots__ = ("parent_trace", "tangent_trace")

    def __init__(self, parent_trace: core.Trace, tangent_trace: core.Trace) -> None:
        self.parent_trace = parent_trace
        self.tangent_trace = tangent_trace

    def to_primal_tangent(self, x: Any) -> tuple[Any, Any]:
        if isinstance(x, JVPTracer) and x._trace is self:
            return x.primal, x.tangent
        return x, Zero.from_value(x)

    def wrap(self, primal: Any, tangent: Any) -> Any:
        if type(tangent) is Zero:
            return primal
        return JVPTracer(self, primal, tangent)

    def process_primitive(self, prim, args, params):
        rewrite = jvp_rewrites.get(prim)
        if rewrite is not None:
            out = rewrite(*args, **params)
            if out is not NotImplemented:
                return out
        inline = call_inline_rules.get(prim)
        if inline is not None:
            return inline(*args, **params)
        primals, tangents = [], []
        for x in args:
            p, t = self.to_primal_tangent(x)
            primals.append(p)
            tangents.append(t)
        if all(type(t) is Zero for t in tangents):
            with core.set_current_trace(self.parent_trace):
                return prim.bind(*primals, **params)
        joint = primitive_joint_jvps.get(prim)
        if joint is not None:
            if self.tangent_trace is self.parent_trace:
                with core.set_current_trace(self.parent_trace):
                    primal_out, tangent_out = joint(primals, tangents, **params)
            else:
                primal_out, tangent_out = _linearize_joint(
                    self, prim, joint, primals, tangents, params
                )
        else:
            with core.set_current_trace(self.parent_trace):
                primal_out = prim.bind(*primals, **params)
            tangent_out = self._tangent(prim, primals, tangents, primal_out, params)
        if prim.multiple_results:
            return [self.wrap(p, t) for p, t in zip(primal_out, tangent_out, strict=True)]
        return self.wrap(primal_out, tangent_out)

    def _tangent(self, prim, primals, tangents, primal_out, params):
        rule = primitive_jvps.get(prim)
        if rule is None:
            raise NotImplementedError(
                f"Differentiation rule for the primitive '{prim.name}' is not implemented"
            )
        with core.set_current_trace(self.tangent_trace):
            return rule(primals, tangents, primal_out, **params)

    def describe_tracer(self, tracer: Tracer) -> str:
        return "The value is being differentiated (a JVP tracer)."


_JOINT_SPLITS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_JOINT_SPLITS_PER_PROGRAM = 16  # bounded: a program is seen at few types and tangent patterns


def _joint_split_key(prim, params, p_avals, nonzero):
    """(cache, key) for the linearization split of ``prim`` with ``params``, keyed on its one
    inner program (weakly, so it lives as long as the program) and the rest by value; (None,
    None) where the parameters do not allow it."""
    programs = [v for v in params.values() if isinstance(v, core.ClosedJaxpr)]
    if len(programs) != 1:
        return None, None
    rest = tuple(sorted((k, v) for k, v in params.items() if not isinstance(v, core.ClosedJaxpr)))
    key = (prim, rest, tuple(p_avals), tuple(nonzero))
    try:
        hash(key)
    except TypeError:
        return None, None
    cache = _JOINT_SPLITS.get(programs[0])
    if cache is None:
        cache = _JOINT_SPLITS[programs[0]] = {}
    if key not in cache and len(cache) >= _JOINT_SPLITS_PER_PROGRAM:
        cache.pop(next(iter(cache)))
    return cache, key


# True while a joint jvp rule is traced for linearization (grad, vjp, linearize): rules whose
# checks differ there read it (custom_jvp's: JAX refuses a SymbolicZero from a rule defined
# without symbolic_zeros only then). A context value, like the current trace.
linearizing_joint: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "linearizing_joint", default=False
)


def _linearize_joint(trace: JVPTrace, prim, joint, primals, tangents, params):
    """Linearize a higher-order primitive from its joint jvp rule: trace the rule into one
    program, split it by partial evaluation into the primal part (evaluated now, on the parent
    trace) and the tangent part (evaluated on the tangent trace, with residuals as constants).
    """
    from spmd._src.interpreters import partial_eval as pe

    nonzero = [type(t) is not Zero for t in tangents]
    p_avals = [core.get_aval(p) for p in primals]
    t_avals = [tangent_aval(a) for a, nz in zip(p_avals, nonzero) if nz]
    # Sharding in types (Explicit mesh axes): the rule is traced with its operands' types, a
    # tangent typed as its primal (as JAX's). None when nothing is typed.
    p_types = [sharding_rules.type_sharding(p) for p in primals]
    types = p_types + [s for s, nz in zip(p_types, nonzero) if nz]
    types = types if any(s is not None for s in types) else None

    def joint_fun(*args):
        ps, ts_nz = args[: len(primals)], iter(args[len(primals) :])
        ts = [next(ts_nz) if nz else t for t, nz in zip(tangents, nonzero)]
        token = linearizing_joint.set(True)
        try:
            po, to = joint(list(ps), ts, **params)
        finally:
            linearizing_joint.reset(token)
        po = po if prim.multiple_results else [po]
        to = to if prim.multiple_results else [to]
        return list(po) + [instantiate(t) for t in to]

    # Which primals are concrete values rather than traced ones: a scan over constant xs keeps
    # its per-step slices as residuals, and forwards traced xs whole (as JAX does).
    constant = [not isinstance(p, core.Tracer) for p in primals]

    def split():
        closed = pe.trace_to_jaxpr(joint_fun, p_avals + t_avals, None, types)
        unknowns = [False] * len(primals) + [True] * len(t_avals)
        constant_inputs = constant + [False] * len(t_avals)
        # A known call left with no results (a jit's whose results all forward its inputs)
        # stays: JAX binds the primal program of a linearized jit whatever it returns (and
        # drops it only inside a program it linearizes, as partial_eval_jaxpr does).
        known, unknown, out_unknowns, _ = pe.partial_eval_jaxpr(
            closed, unknowns, constant_inputs, keep_resultless=True
        )
        return closed, known, unknown, out_unknowns

    # The split depends only on the primitive's program, parameters, types, which tangents
    # are nonzero and which primals are constants: reusing it keeps the known and linear
    # programs the same objects, so their compiled forms are reused too (eager grad of a jit
    # would otherwise compile them anew).
    cache, key = _joint_split_key(prim, params, p_avals, nonzero)
    if source_info.depth():
        cache = None  # a split made earlier did not record where its equations come from
    if cache is not None:
        key = (key, tuple(constant), tuple(types or ()))
    if cache is None:
        closed, known, unknown, out_unknowns = split()
    else:
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = split()
        closed, known, unknown, out_unknowns = hit
    n_out = len(closed.out_avals) // 2
    if any(out_unknowns[:n_out]):
        # JAX's error (custom_vmap_call is one: its primal and tangent are one equation).
        raise ValueError(
            "Linearization failed to produce known values for all output primals. This is "
            "typically caused by attempting to differentiate a function uses an operation that "
            "does not support reverse-mode autodiff."
        )
    n_known = out_unknowns.count(False)
    with core.set_current_trace(trace.parent_trace):
        known_outs = core.eval_jaxpr(known.jaxpr, known.consts, *primals)
    primal_out, residuals = known_outs[:n_out], known_outs[n_known:]
    t_in = [t for t in tangents if type(t) is not Zero]
    with core.set_current_trace(trace.tangent_trace):
        unknown_outs = iter(core.eval_jaxpr(unknown.jaxpr, unknown.consts, *residuals, *t_in))
    # A tangent output that does not depend on the input tangents is zero (the map is linear).
    out_avals = closed.out_avals[n_out:]
    tangent_out = [
        next(unknown_outs) if out_unknowns[n_out + i] else Zero(a) for i, a in enumerate(out_avals)
    ]
    if not prim.multiple_results:
        return primal_out[0], tangent_out[0]
    return primal_out, tangent_out


def jvp_flat(
    fun: Callable[..., Sequence[Any]], primals: Sequence[Any], tangents: Sequence[Any]
) -> tuple[list[Any], list[Any]]:
    """Forward mode: outputs of ``fun`` and their tangents (``Zero`` where independent)."""
    parent = core.trace_ctx.trace
    trace = JVPTrace(parent, parent)
    ins = [trace.wrap(p, t) for p, t in zip(primals, tangents, strict=True)]
    with core.set_current_trace(trace):
        outs = fun(*ins)
    out_p, out_t = [], []
    for o in outs:
        p, t = trace.to_primal_tangent(o)
        out_p.append(p)
        out_t.append(t)
    return out_p, out_t


class LinearFunction:
    """The linear map of a linearization: a jaxpr in the input tangents, with the primal
    values it needs (its constants) already computed."""

    def __init__(
        self,
        jaxpr: core.ClosedJaxpr,
        in_avals,
        out_zero: Sequence[bool],
        out_avals,
        in_types: Sequence[Any] | None = None,
    ):
        self.jaxpr = jaxpr
        self.in_avals = list(in_avals)
        # The primal inputs' shardings in types (Explicit mesh axes), which their cotangents
        # take, as in JAX.
        self.in_types = list(in_types) if in_types is not None else [None] * len(self.in_avals)
        self.out_zero = list(out_zero)
        self.out_avals = list(out_avals)
        # Inputs of int/bool type have float0 tangents: symbolic zeros, not jaxpr inputs.
        self.in_live = [a.dtype != dtypes.float0 for a in self.in_avals]

    def jvp(self, tangents: Sequence[Any]) -> list[Any]:
        live = [t for t, keep in zip(tangents, self.in_live) if keep]
        outs = iter(core.eval_jaxpr(self.jaxpr.jaxpr, self.jaxpr.consts, *live))
        return [Zero(a) if z else next(outs) for z, a in zip(self.out_zero, self.out_avals)]

    def transpose(self, cts: Sequence[Any], unwanted: Sequence[bool] = ()) -> list[Any]:
        """The inputs' cotangents for the outputs' ``cts``; those of the inputs ``unwanted``
        marks are not computed (Zero), nor is any term only they would need."""
        live = [c for c, z in zip(cts, self.out_zero) if not z]
        dead = [u for u, keep in zip(unwanted, self.in_live) if keep] if any(unwanted) else None
        got = iter(backward_pass(self.jaxpr.jaxpr, self.jaxpr.consts, live, dead=dead))
        return [
            as_type(next(got), reduction_states.cotangent_sharding(t)) if keep else Zero(a)
            for keep, a, t in zip(self.in_live, self.in_avals, self.in_types)
        ]


def linearize_flat(
    fun: Callable[..., Sequence[Any]], primals: Sequence[Any]
) -> tuple[list[Any], LinearFunction]:
    """Primal outputs of ``fun`` and the linear map from input tangents to output tangents."""
    from spmd._src.interpreters import partial_eval as pe

    parent = core.trace_ctx.trace
    # Tangent rules' work on primal values alone (residuals: cos x for sin) is done now, on
    # the parent trace, not staged into the linear map.
    tangent_trace = pe.JaxprTrace(known_trace=parent)
    in_avals = [tangent_aval(core.get_aval(p)) for p in primals]
    # A tangent has its primal's sharding in type (Explicit mesh axes), as in JAX.
    in_types = [sharding_rules.type_sharding(p) for p in primals]
    tangent_in = [
        Zero(a) if a.dtype == dtypes.float0 else tangent_trace.new_arg(a, s)
        for a, s in zip(in_avals, in_types)
    ]
    trace = JVPTrace(parent, tangent_trace)
    ins = [trace.wrap(p, t) for p, t in zip(primals, tangent_in)]
    with core.set_current_trace(trace):
        outs = fun(*ins)
    out_p, out_t = [], []
    for o in outs:
        p, t = trace.to_primal_tangent(o)
        out_p.append(p)
        out_t.append(t)
    out_zero = [type(t) is Zero for t in out_t]
    out_avals = [tangent_aval(core.get_aval(p)) for p in out_p]
    linear = tangent_trace.to_jaxpr([t for t in out_t if type(t) is not Zero])
    # Tangent rules may compute values no output tangent needs (e.g. behind stop_gradient).
    linear = core.ClosedJaxpr(pe.dce_jaxpr(linear.jaxpr), linear.consts)
    return out_p, LinearFunction(linear, in_avals, out_zero, out_avals, in_types)


def as_type(ct: Any, want: Any) -> Any:
    """``ct`` with the sharding ``want`` in its type (Explicit mesh axes; None: unsharded), as
    JAX's transposes give each cotangent its primal's type. spmd's transposes do not all type
    their results yet, so a cotangent typed otherwise (or not typed) is resharded here."""
    if ct is None or type(ct) is Zero or not hasattr(ct, "shape"):
        return ct
    got = sharding_rules.type_sharding(ct)
    if got is None and want is None:
        return ct
    from spmd._src.lax import sharding as lax_sharding  # lazy: reshard is a lax primitive
    from spmd._src.sharding import PartitionSpec

    n = len(core.get_aval(ct).shape)
    target = want if want is not None else got.with_spec(PartitionSpec())
    if (
        got is not None
        and got.spec._normalized(n) == target.spec._normalized(n)
        and (got.spec.unreduced, got.spec.reduced) == (target.spec.unreduced, target.spec.reduced)
    ):
        return ct
    return lax_sharding.reshard(ct, target)


# ---------------------------------------------------------------------------------------------
# Transposition


class UndefinedPrimal:
    """A linear input of an equation being transposed: only its type is known (``sharding``:
    its sharding in type on Explicit mesh axes, None otherwise), which transposes give its
    cotangent, as JAX's do."""

    __slots__ = ("aval", "sharding")

    def __init__(self, aval: ShapedArray, sharding: Any = None) -> None:
        self.aval = aval
        self.sharding = sharding

    def __repr__(self) -> str:
        return f"UndefinedPrimal({self.aval.str_short()})"


def is_undefined_primal(x: Any) -> bool:
    return type(x) is UndefinedPrimal


def backward_pass(
    jaxpr: Jaxpr,
    consts: Sequence[Any],
    cts_out: Sequence[Any],
    args: Sequence[Any] | None = None,
    cts_init: Sequence[Any] | None = None,
    dead: Sequence[bool] | None = None,
) -> list[Any]:
    """Cotangents of ``jaxpr``'s linear invars given cotangents of its outvars.

    Without ``args`` every invar is linear; with them, the invars whose arg is an
    ``UndefinedPrimal`` are, and the others are known values. Equations that do not depend on
    the linear invars are evaluated forward first (under the current trace); the linear ones
    are then transposed in reverse order. ``cts_init`` (one per invar, None for none) are
    cotangents the invars start from: each term is added to them where it is computed.
    ``dead`` (one per invar) marks linear invars whose cotangent is not wanted: equations
    reading no other linear value are neither evaluated nor transposed, and those invars'
    cotangents are Zero (JAX's ``DontWant``).
    """
    primal_env: dict[int, Any] = {}
    if args is None:
        linear: set[int] = {id(v) for v in jaxpr.invars}
    else:
        linear = set()
        for v, a in zip(jaxpr.invars, args, strict=True):
            if is_undefined_primal(a):
                linear.add(id(v))
            else:
                primal_env[id(v)] = a
    for v, c in zip(jaxpr.constvars, consts, strict=True):
        primal_env[id(v)] = c

    def read_primal(a):
        if type(a) is Literal:
            return core.literal_operand(a)
        return primal_env[id(a)]

    unwanted = {id(v) for v, d in zip(jaxpr.invars, dead or ()) if d}
    linear_eqns = []
    for eqn in jaxpr.eqns:
        lin = [id(a) for a in eqn.invars if type(a) is Var and id(a) in linear]
        if unwanted and lin and all(i in unwanted for i in lin):
            unwanted.update(id(v) for v in eqn.outvars)  # only unwanted cotangents need it
            linear.update(id(v) for v in eqn.outvars)
        elif lin:
            linear_eqns.append(eqn)
            linear.update(id(v) for v in eqn.outvars)
        else:
            outs = eqn.primitive.bind(*[read_primal(a) for a in eqn.invars], **eqn.params)
            if not eqn.primitive.multiple_results:
                outs = [outs]
            for v, o in zip(eqn.outvars, outs):
                primal_env[id(v)] = o

    ct_env: dict[int, Any] = {}

    def write_ct(v, ct):
        if type(v) is not Var or id(v) not in linear or ct is None or id(v) in unwanted:
            return
        prev = ct_env.get(id(v))
        ct_env[id(v)] = ct if prev is None else add_maybe_zero(prev, ct)

    for v, ct in zip(jaxpr.invars, cts_init or (), strict=bool(cts_init)):
        write_ct(v, ct)
    for v, ct in zip(jaxpr.outvars, cts_out, strict=True):
        write_ct(v, ct)

    for eqn in reversed(linear_eqns):
        cts = [ct_env.pop(id(v), None) for v in eqn.outvars]
        cts = [Zero(tangent_aval(v.aval)) if c is None else c for v, c in zip(eqn.outvars, cts)]
        if all(type(c) is Zero for c in cts):
            continue
        args = [
            UndefinedPrimal(a.aval, a.sharding)
            if type(a) is Var and id(a) in linear
            else read_primal(a)
            for a in eqn.invars
        ]
        rule = primitive_transposes.get(eqn.primitive)
        if rule is None:
            raise NotImplementedError(
                f"Transpose rule (for reverse-mode differentiation) for the primitive "
                f"'{eqn.primitive.name}' is not implemented"
            )
        ct_arg = cts if eqn.primitive.multiple_results else cts[0]
        cts_in = rule(ct_arg, *args, **eqn.params)
        for a, ct in zip(eqn.invars, cts_in, strict=True):
            write_ct(a, ct)

    return [
        (ct_env[id(v)] if id(v) in ct_env else Zero(tangent_aval(v.aval)))
        if id(v) in linear
        else None
        for v in jaxpr.invars
    ]
