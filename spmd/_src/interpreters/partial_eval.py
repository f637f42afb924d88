"""Tracing Python functions to jaxprs (the interpreter behind jit and make_jaxpr).

``trace_to_jaxpr(fun, in_avals)`` runs ``fun`` on tracers of a fresh ``JaxprTrace`` and records
every primitive bound on them as an equation. Values that are not this trace's tracers are
constants: scalars become literals, arrays become constvars (deduplicated by identity), and
tracers of an enclosing trace become constvars whose values are those tracers, so the closed
jaxpr carries them to the enclosing trace.

>>> from spmd._src.core import ShapedArray
>>> # trace_to_jaxpr(lambda x: lax.sin(x), [ShapedArray((3,), np.float32)])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core, leak_check, memory_spaces, source_info
from spmd._src.config import config
from spmd._src.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, ShapedArray, Tracer, Var
from spmd._src.interpreters import sharding_rules

# Rules for primitives that need more than abstract evaluation when traced (none yet: higher-
# order primitives whose params hold jaxprs are recorded like any other equation).
custom_staging_rules: dict[core.Primitive, Callable] = {}
# prim -> (*operands, **params) -> a value, or None to stage the equation after all. Applied
# when no operand is a tracer: JAX folds such equations (a scalar convert_element_type) into
# the constant they compute instead of recording them.
const_fold_rules: dict[core.Primitive, Callable] = {}


class JaxprTracer(Tracer):
    # `_var`, not `var`: tracers carry array methods, and `x.var()` is one of them.
    __slots__ = ("_aval", "_var")

    def __init__(self, trace: JaxprTrace, aval: ShapedArray, var: Var) -> None:
        self._trace = trace
        self._aval = aval
        self._var = var

    @property
    def aval(self) -> ShapedArray:
        return self._aval


class DebugInfo:
    """Where a traced function came from and what its arguments are called (for errors)."""

    __slots__ = ("traced_for", "func_name", "arg_names")

    def __init__(self, traced_for: str, func_name: str, arg_names: Sequence[str] | None) -> None:
        self.traced_for = traced_for
        self.func_name = func_name
        self.arg_names = tuple(arg_names) if arg_names is not None else None


class JaxprTrace(core.Trace):
    """Builds a jaxpr from the primitives bound on its tracers."""

    __slots__ = (
        "eqns",
        "invars",
        "constvars",
        "constvals",
        "const_ids",
        "debug_info",
        "producer",
        "known_trace",
    )

    def __init__(
        self, debug_info: DebugInfo | None = None, known_trace: core.Trace | None = None
    ) -> None:
        # With ``known_trace``, this is partial evaluation: a primitive none of whose operands
        # comes from this trace is computed at once on ``known_trace`` (once, in program
        # order), and its result enters the jaxpr as a constant.
        self.known_trace = known_trace
        self.eqns: list[JaxprEqn] = []
        self.invars: list[Var] = []
        self.constvars: list[Var] = []
        self.constvals: list[Any] = []
        self.const_ids: dict[int, Var] = {}
        self.debug_info = debug_info
        self.producer: dict[int, JaxprEqn] = {}  # id(outvar) -> eqn, for provenance messages

    def new_arg(self, aval: ShapedArray, sharding: Any = None) -> JaxprTracer:
        v = Var(aval, sharding=sharding)
        self.invars.append(v)
        return JaxprTracer(self, aval, v)

    def to_atom(self, x: Any) -> Var | Literal:
        if isinstance(x, JaxprTracer) and x._trace is self:
            return x._var
        return self.const_atom(x)

    def _residual(self, x: Any) -> bool:
        # Partial evaluation (linearize's tangent trace): a scalar the known side computed is
        # a residual, a constant of the linear program (a leaf of the VJP function, as in
        # JAX), not a literal; Python numbers (and arrays standing for one) stay literals.
        if self.known_trace is None:
            return False
        from spmd._src.array import Array  # lazy: arrays are built on the tracing machinery

        return isinstance(x, Array) and getattr(x, "_py_text", None) is None

    def const_atom(self, x: Any) -> Var | Literal:
        if not isinstance(x, Tracer):
            aval = core.get_aval(x)
            if aval.shape == () and _is_literalable(x) and not self._residual(x):
                val = np.asarray(x, dtype=aval.dtype) if not isinstance(x, np.ndarray) else x
                # A Python float reaching a primitive as it is prints as Python writes it, and
                # so does an array standing for one (Array._py_text).
                text = repr(x) if type(x) is float else getattr(x, "_py_text", None)
                return Literal(np.asarray(val, dtype=aval.dtype), aval, text)
        v = self.const_ids.get(id(x))
        if v is None:
            # A placed array (or enclosing tracer) keeps its sharding in type (Explicit axes).
            v = Var(core.get_aval(x), sharding=sharding_rules.type_sharding(x))
            self.const_ids[id(x)] = v
            self.constvars.append(v)
            self.constvals.append(x)
        return v

    def process_primitive(self, prim, args, params):
        if self.known_trace is not None and not any(
            isinstance(x, JaxprTracer) and x._trace is self for x in args
        ):
            with core.set_current_trace(self.known_trace):
                return prim.bind(*args, **params)
        rule = custom_staging_rules.get(prim)
        if rule is not None:
            return rule(self, *args, **params)
        fold = const_fold_rules.get(prim)
        if fold is not None and not any(isinstance(x, Tracer) for x in args):
            out = fold(*args, **params)
            if out is not None:
                return out
        atoms = [self.to_atom(x) for x in args]
        avals = [a.aval for a in atoms]
        out = prim.abstract_eval(*avals, **params)
        if memory_spaces.off_device(avals):  # (rare) operands in host memory: so are results
            out = memory_spaces.typed_results(prim, params, avals, out)
        outs = out if prim.multiple_results else [out]
        outvars = [Var(a) for a in outs]
        eqn = JaxprEqn(atoms, outvars, prim, params, source_info.current())
        if any(
            type(a) is Var and a.sharding is not None for a in atoms
        ) or sharding_rules.sets_sharding_here(eqn):
            # Sharding in types (Explicit mesh axes): results are typed as they are made.
            ins = [a.sharding if type(a) is Var else None for a in atoms]
            for v, sh in zip(outvars, sharding_rules.explicit_types(eqn, ins)):
                v.sharding = sh
        self.eqns.append(eqn)
        for v in outvars:
            self.producer[id(v)] = eqn
        tracers = [JaxprTracer(self, a, v) for a, v in zip(outs, outvars)]
        return tracers if prim.multiple_results else tracers[0]

    def describe_tracer(self, tracer: Tracer) -> str:
        if not isinstance(tracer, JaxprTracer) or tracer._trace is not self:
            return ""
        di = self.debug_info
        where = f"While tracing the function {di.func_name} for {di.traced_for}, " if di else ""
        args = self._provenance(tracer._var)
        if not args:
            return where + "this value does not depend on the function's arguments."
        names = [self._arg_name(i) for i in args]
        if len(names) == 1:
            dep = f"the value of the argument {names[0]}"
        else:
            dep = "the values of the arguments " + ", ".join(names)
        return (
            where + f"this concrete value was not available in Python because it depends on {dep}."
        )

    def _arg_name(self, i: int) -> str:
        di = self.debug_info
        if di and di.arg_names and i < len(di.arg_names):
            return di.arg_names[i]
        return f"#{i}"

    def _provenance(self, var: Var) -> list[int]:
        # Walks producing equations back to the invars this variable depends on.
        inv = {id(v): i for i, v in enumerate(self.invars)}
        seen: set[int] = set()
        found: set[int] = set()
        stack = [var]
        while stack:
            v = stack.pop()
            if id(v) in seen:
                continue
            seen.add(id(v))
            if id(v) in inv:
                found.add(inv[id(v)])
                continue
            eqn = self.producer.get(id(v))
            if eqn is not None:
                stack.extend(a for a in eqn.invars if type(a) is Var)
        return sorted(found)

    def to_jaxpr(self, out_tracers: Sequence[Any]) -> ClosedJaxpr:
        outvars = [self.to_atom(x) for x in out_tracers]
        jaxpr = Jaxpr(self.constvars, self.invars, outvars, self.eqns, self.debug_info)
        return ClosedJaxpr(jaxpr, self.constvals)


def _is_literalable(x: Any) -> bool:
    return isinstance(x, (bool, int, float, complex, np.generic, np.ndarray)) or hasattr(
        x, "_value"
    )


def trace_to_jaxpr(
    fun: Callable[..., Sequence[Any]],
    in_avals: Sequence[ShapedArray],
    debug_info: DebugInfo | None = None,
    in_shardings: Sequence[Any] | None = None,
) -> ClosedJaxpr:
    """Trace ``fun`` (flat list of args -> flat list of outputs) to a closed jaxpr.
    ``in_shardings``: the arguments' shardings in types (Explicit mesh axes), if any."""
    trace = JaxprTrace(debug_info)
    shs = in_shardings if in_shardings is not None else [None] * len(in_avals)
    args = [trace.new_arg(a, s) for a, s in zip(in_avals, shs)]
    with core.set_current_trace(trace):
        outs = fun(*args)
    closed = trace.to_jaxpr(outs)
    if config.jax_check_tracer_leaks:
        del args, outs  # (the trace's own references to its tracers)
        d = debug_info
        leak_check.check(trace, closed, d and d.func_name, d and d.traced_for)
    return closed


def convert_constvars_jaxpr(closed: ClosedJaxpr) -> tuple[Jaxpr, list[Any]]:
    """Move constvars to the front of the invars (so consts can be passed as arguments)."""
    j = closed.jaxpr
    return Jaxpr([], j.constvars + j.invars, j.outvars, j.eqns, j.debug_info), closed.consts


def has_effects_in(jaxpr: Jaxpr) -> bool:
    """Whether any equation of ``jaxpr`` (or of a jaxpr inside one) has effects."""
    return any(has_effects(e) for e in jaxpr.eqns)


def has_effects(eqn: JaxprEqn) -> bool:
    """An effectful primitive, or a call/control-flow/map whose body holds one."""
    if eqn.primitive.effectful:
        return True
    return any(has_effects(e) for inner in core._jaxprs_in_params(eqn.params) for e in inner.eqns)


# prim -> rule(used_outputs, eqn) -> (used_inputs, new_eqn or None): dead-code elimination
# inside higher-order primitives (a scan's unused carries, a call's unused inputs). The new
# equation defines (at least) the used outputs; None drops the equation. Without a rule an
# equation with a used output reads all its inputs.
dce_rules: dict[core.Primitive, Callable] = {}


def dce_jaxpr(
    jaxpr: Jaxpr, used_outputs: Sequence[bool] | None = None, keep_resultless: bool = False
) -> Jaxpr:
    """Drop equations whose results are never used (all primitives here are pure); with
    ``keep_resultless``, keep those that have no results at all."""
    return dce_jaxpr_inputs(jaxpr, used_outputs, keep_resultless)[0]


def dce_jaxpr_inputs(
    jaxpr: Jaxpr, used_outputs: Sequence[bool] | None = None, keep_resultless: bool = False
) -> tuple[Jaxpr, list[bool]]:
    """``dce_jaxpr`` and which of the jaxpr's inputs the result still reads."""
    outvars = (
        jaxpr.outvars
        if used_outputs is None
        else [v for v, u in zip(jaxpr.outvars, used_outputs) if u]
    )
    live = {id(v) for v in outvars if type(v) is Var}
    new_eqns = []
    for eqn in reversed(jaxpr.eqns):
        used = [id(v) in live for v in eqn.outvars]
        if not any(used):
            if not has_effects(eqn) and not (keep_resultless and not eqn.outvars):
                continue
            rule = None  # kept for its effects, whole
        else:
            rule = dce_rules.get(eqn.primitive)
            if rule is not None and has_effects(eqn):
                rule = None
        if rule is not None:
            used_in, new = rule(used, eqn)
            if new is None:
                continue
            live.update(id(a) for a, u in zip(eqn.invars, used_in) if u and type(a) is Var)
            eqn = new
        else:
            live.update(id(a) for a in eqn.invars if type(a) is Var)
        new_eqns.append(eqn)
    new_eqns.reverse()
    used_inputs = [id(v) in live for v in jaxpr.invars]
    return Jaxpr(jaxpr.constvars, jaxpr.invars, outvars, new_eqns, jaxpr.debug_info), used_inputs


def prune_closed_jaxpr(
    closed: ClosedJaxpr, keep_inputs: Sequence[bool], keep_outputs: Sequence[bool]
) -> ClosedJaxpr:
    """``closed`` with only the kept inputs and outputs (dead equations dropped)."""
    j = dce_jaxpr(closed.jaxpr, keep_outputs)
    invars = [v for v, k in zip(j.invars, keep_inputs) if k]
    return ClosedJaxpr(Jaxpr(j.constvars, invars, j.outvars, j.eqns, j.debug_info), closed.consts)


# prim -> rule(eqn, unknowns_in) -> (known_eqns, unknown_eqns, unknown_vars), for higher-order
# primitives that can split themselves (scan, cond): the known equations read only known
# variables; ``unknown_vars`` are the variables the unknown equations define that depend on
# unknown inputs. Without a rule an equation is unknown as a whole as soon as one input is.
# A rule may return a fourth item, {id(var): atom}: known results of the equation that only
# forward one of its known inputs, which the equations after it read instead (a jit's).
partial_eval_rules: dict[core.Primitive, Callable] = {}

# The constant variables of the jaxprs being split, innermost last (see ``is_constant``).
_constvars_stack: list[set[int]] = []


def is_constant(atom: Any) -> bool:
    """Whether ``atom`` (an input of the equation a partial-eval rule splits) is a constant of
    the program being split: a literal or one of its constant variables (a closed-over array,
    not a traced value)."""
    if type(atom) is not Var:
        return True
    return bool(_constvars_stack) and id(atom) in _constvars_stack[-1]


def _forward(a: Any, forwarded: dict[int, Any]) -> Any:
    return forwarded.get(id(a), a) if type(a) is Var else a


def partial_eval_jaxpr(
    closed: ClosedJaxpr,
    in_unknowns: Sequence[bool],
    constant_inputs: Sequence[bool] | None = None,
    keep_resultless: bool = False,
) -> tuple[ClosedJaxpr, ClosedJaxpr, list[bool], int]:
    """Split a jaxpr into what can be computed from its known inputs and what needs the
    unknown ones.

    Returns ``(known, unknown, out_unknowns, num_residuals)``: ``known`` takes the known
    inputs and returns the known outputs followed by the residuals; ``unknown`` takes the
    residuals followed by the unknown inputs and returns the unknown outputs.
    ``constant_inputs`` marks the inputs that stand for constants (concrete values, not traced
    ones), as the jaxpr's constant variables do: rules may treat them differently (``scan``
    stacks a constant's elements as residuals rather than forwarding it, as JAX does).
    ``keep_resultless`` keeps known equations that return nothing (see ``ad``'s use).
    """
    jaxpr = closed.jaxpr
    unknown_ids: set[int] = {id(v) for v, u in zip(jaxpr.invars, in_unknowns) if u}
    known_eqns: list[JaxprEqn] = []
    unknown_eqns: list[JaxprEqn] = []
    constvars = {id(v) for v in jaxpr.constvars}
    if constant_inputs is not None:
        constvars.update(id(v) for v, c in zip(jaxpr.invars, constant_inputs, strict=True) if c)
    forwarded: dict[int, Any] = {}  # id(var) -> the known atom a rule says it forwards
    for eqn in jaxpr.eqns:
        if forwarded and any(type(a) is Var and id(a) in forwarded for a in eqn.invars):
            eqn = eqn.replace(invars=[_forward(a, forwarded) for a in eqn.invars])
        ins_unknown = [type(a) is Var and id(a) in unknown_ids for a in eqn.invars]
        if not any(ins_unknown):
            known_eqns.append(eqn)
            continue
        rule = partial_eval_rules.get(eqn.primitive)
        if rule is not None:
            _constvars_stack.append(constvars)
            try:
                k, u, unknown_vars, *fwd = rule(eqn, ins_unknown)
            finally:
                _constvars_stack.pop()
            if eqn.source_info is not None:
                # The known and unknown parts of the primitive (a scan's two scans) are located
                # where it was; equations of other primitives a rule adds are its own.
                for e in (*k, *u):
                    if e.source_info is None and e.primitive is eqn.primitive:
                        e.source_info = eqn.source_info
            known_eqns.extend(k)
            unknown_eqns.extend(u)
            unknown_ids.update(id(v) for v in unknown_vars)
            if fwd:
                forwarded.update(fwd[0])
            continue
        unknown_eqns.append(eqn)
        unknown_ids.update(id(v) for v in eqn.outvars)

    outvars = [_forward(a, forwarded) for a in jaxpr.outvars] if forwarded else jaxpr.outvars
    # The unknown side's dead equations (a tangent that stop_gradient drops) would keep
    # residuals alive for nothing.
    out_unknowns = [type(a) is Var and id(a) in unknown_ids for a in outvars]
    unknown_outs = [a for a, u in zip(outvars, out_unknowns) if u]
    unknown_eqns = dce_jaxpr(Jaxpr([], [], unknown_outs, unknown_eqns)).eqns

    # Residuals: known values (constvars, known invars, known eqn outputs) read by the unknown
    # side, in first-use order.
    residuals: list[Var] = []
    seen: set[int] = set()

    def need(a):
        if type(a) is Var and id(a) not in unknown_ids and id(a) not in seen:
            seen.add(id(a))
            residuals.append(a)

    for eqn in unknown_eqns:
        for a in eqn.invars:
            need(a)
    known_outs = [a for a, u in zip(outvars, out_unknowns) if not u]
    known = Jaxpr(
        jaxpr.constvars,
        [v for v, u in zip(jaxpr.invars, in_unknowns) if not u],
        known_outs + residuals,
        known_eqns,
    )
    # The unknown side gets fresh binders for the residuals (a variable is bound once).
    res_binders = [Var(v.aval) for v in residuals]
    rename = {id(v): b for v, b in zip(residuals, res_binders)}

    def sub(a):
        return rename.get(id(a), a) if type(a) is Var else a

    u_eqns = [e.replace(invars=[sub(a) for a in e.invars]) for e in unknown_eqns]
    unknown = Jaxpr(
        [],
        res_binders + [v for v, u in zip(jaxpr.invars, in_unknowns) if u],
        [sub(a) for a, u in zip(outvars, out_unknowns) if u],
        u_eqns,
    )
    known = dce_jaxpr(known, keep_resultless=keep_resultless)
    return ClosedJaxpr(known, closed.consts), ClosedJaxpr(unknown, []), out_unknowns, len(residuals)
