"""``custom_jvp``: a function with its own JVP rule, traced as the ``custom_jvp_call`` primitive
whose joint jvp rule calls the user's rule (wrapped in a vmap of its own under ``vmap``)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from spmd._src import core, dispatch, dtypes
from spmd._src import tree_util as tu
from spmd._src.custom_derivatives.common import (
    SymbolicZero,
    _arg_aval,
    _as_operand,
    _batch_jaxpr_out0,
    _batched_aval,
    _call_with_consts,
    _check_consts_not_perturbed,
    _check_nondiff_range,
    _check_operands,
    _fun_name,
    _jaxpr_abstract_eval,
    _jaxpr_compile,
    _jaxpr_impl,
    _nondiff_positions,
    _pp_named_first,
    _resolve_args,
    _split_nondiff,
    _to_value,
    _trace_primal,
    _unbatched_aval,
)
from spmd._src.errors import UnexpectedTracerError
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.interpreters.ad import Zero
from spmd._src.lax import rules as lax_rules
from spmd._src.lax.elementwise import conversion

# ---------------------------------------------------------------------------------------------
# custom_jvp


class custom_jvp:
    """A function with a custom JVP rule (forward derivative), also used by reverse mode.

    >>> f = spmd.custom_jvp(lambda x: jnp.sin(x))
    >>> _ = f.defjvp(lambda primals, tangents: (f(*primals), 2.0 * tangents[0]))
    >>> spmd.grad(f)(0.0)
    Array(2., dtype=float32)
    """

    def __init__(
        self,
        fun: Callable,
        nondiff_argnums: Sequence[int] = (),
        nondiff_argnames: str | Sequence[str] = (),
    ) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = _nondiff_positions(fun, nondiff_argnums, nondiff_argnames)
        self.jvp: Callable | None = None
        self.symbolic_zeros = False

    def __getattr__(self, name: str) -> Any:
        # As JAX's: ``def*`` names reach the wrapped function, so stacked custom-derivative
        # decorators (a custom_jvp of a custom_vjp) can define the inner one's rules.
        if name.startswith("def"):
            return getattr(self.__dict__["fun"], name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __get__(self, obj, objtype=None):
        # Decorating a method: bind the instance as the first argument.
        if obj is None:
            return self
        return functools.partial(self, obj)

    def defjvp(self, jvp: Callable, symbolic_zeros: bool = False) -> Callable:
        """Set the JVP rule: ``jvp(*nondiff_args, primals, tangents) -> (primal_out,
        tangent_out)``. Returns ``jvp`` (so it works as a decorator)."""
        self.jvp = jvp
        self.symbolic_zeros = bool(symbolic_zeros)
        return jvp

    def defjvps(self, *jvps: Callable | None) -> None:
        """Set the JVP rule from one function per argument, ``fn(t_i, primal_out, *primals)``
        giving that argument's contribution (None: no contribution)."""
        if self.nondiff_argnums:
            raise TypeError("Can't use ``defjvps`` with ``nondiff_argnums``.")

        def jvp(primals, tangents):
            if len(jvps) != len(tangents):
                # JAX fails here too (a ValueError from zipping the two).
                raise ValueError(
                    f"defjvps for {_fun_name(self.fun)}: got {len(jvps)} jvp functions (or None) "
                    f"but the function was called with {len(tangents)} arguments; give one per "
                    "argument"
                )
            primal_out = self(*primals)
            terms = [
                fn(t, primal_out, *primals)
                for fn, t in zip(jvps, tangents)
                if fn is not None and type(t) is not SymbolicZero
            ]
            if not terms:
                zero = tu.tree_map(
                    lambda p: lax_rules.zeros_like_aval(ad.tangent_aval(core.get_aval(p))),
                    primal_out,
                )
                return primal_out, zero
            return primal_out, functools.reduce(
                lambda a, b: tu.tree_map(lax_rules.add_any, a, b), terms
            )

        self.defjvp(jvp)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = _fun_name(self.fun)
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {name} using defjvp.")
        args = _resolve_args(self.fun, name, args, kwargs, "custom_jvp")
        _check_nondiff_range(args, self.nondiff_argnums, name)
        _check_operands(args, self.nondiff_argnums, name, "custom_jvp")
        if self.nondiff_argnums:
            # As in JAX, a traced value passed as a non-differentiable argument is a constant
            # to differentiation (its derivative through this function is zero).
            args = tuple(
                tu.tree_map(_stop_tracer_gradient, a) if i in self.nondiff_argnums else a
                for i, a in enumerate(args)
            )
        trace, guard = _trace_of(args)
        with core.set_current_trace(_on(trace, guard, ("custom_jvp", name))):
            if trace is core.eval_trace:
                return self.fun(*args)
            if isinstance(trace, ad.JVPTrace):
                return _jvp_untraced(self, trace, args, name)
            return self._bind(args, name)

    def _bind(self, args: tuple, name: str) -> Any:
        p = _trace_primal(self.fun, args, self.nondiff_argnums, name, "custom_jvp")
        rule = _JVPRule(self.jvp, name, p.nondiff, p.in_tree, p.out_tree, p.consts)
        rule.symbolic_zeros = self.symbolic_zeros
        consts, leaves, call_jaxpr, out_tree = p.consts, p.leaves, p.jaxpr, p.out_tree
        outs = custom_jvp_call_p.bind(
            *consts,
            *leaves,
            call_jaxpr=call_jaxpr,
            jvp=rule,
            num_consts=len(consts),
            symbolic_zeros=self.symbolic_zeros,
            name=name,
        )
        return tu.tree_unflatten(out_tree, outs)


class _JVPRule:
    """The user's jvp function on flat lists, ``(consts, primals, tangents) -> (outs,
    tangent_outs)``, with JAX's checks of what it returns. ``consts`` are the current values of
    what the function closes over (``closure_consts`` when called at the level it was bound).
    Zero tangent outputs come back as ``ad.Zero``; tangents may be ``SymbolicZero``."""

    def __init__(self, jvp, fun_name, nondiff, in_tree, out_tree, closure_consts) -> None:
        self.jvp, self.fun_name, self.nondiff = jvp, fun_name, list(nondiff)
        self.in_tree, self.out_tree = in_tree, out_tree
        self.closure_consts = list(closure_consts)
        self.symbolic_zeros = False

    def __repr__(self) -> str:
        return _fun_name(self.jvp)

    __str__ = __repr__
    # Rules are unhashable, so eager dispatch does not cache (and keep alive) per-call
    # parameters.
    __hash__ = None  # type: ignore[assignment]

    def __call__(self, consts: Sequence[Any], primals: Sequence[Any], tangents: Sequence[Any]):
        n = len(primals)
        sym = [isinstance(t, SymbolicZero) for t in tangents]
        box: list = []

        def thunk(*xs):
            it = iter(xs[n:])
            ts = [t if z else next(it) for t, z in zip(tangents, sym)]
            po, to = self._apply(list(xs[:n]), ts)
            box.append([ad.tangent_aval(core.get_aval(p)) for p in po])
            return list(po) + [None if type(t) is Zero else t for t in to]

        inputs = list(primals) + [t for t, z in zip(tangents, sym) if not z]
        outs = _call_with_consts(thunk, inputs, self.closure_consts, consts)
        m = len(box[-1])
        t_out = [Zero(a) if t is None else t for t, a in zip(outs[m:], box[-1])]
        return outs[:m], t_out

    def _apply(self, primals: list, tangents: list):
        jname = _fun_name(self.jvp)
        ps = tu.tree_unflatten(self.in_tree, list(primals))
        ts = tu.tree_unflatten(self.in_tree, list(tangents))
        out = self.jvp(*self.nondiff, ps, ts)
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(
                f"Custom JVP rule {jname} for function {self.fun_name} must produce a pair (list "
                "or tuple of length two) representing primal and tangent outputs, but got "
                f"{out!r}."
            )
        po, to = out
        is_sz = lambda x: isinstance(x, SymbolicZero)  # noqa: E731
        po_leaves, po_tree = tu.tree_flatten(po)
        to_leaves, to_tree = tu.tree_flatten(to, is_leaf=is_sz)
        if po_tree != to_tree:
            raise TypeError(
                f"Custom JVP rule {jname} for function {self.fun_name} must produce primal and "
                "tangent outputs with equal container (pytree) structures, but got "
                f"{po_tree} and {to_tree} respectively."
            )
        if self.out_tree is None:  # not traced (differentiated eagerly): the rule's is the one
            self.out_tree = po_tree
        if po_tree != self.out_tree:
            raise TypeError(
                f"Custom JVP rule {jname} for function {self.fun_name} must produce a primal "
                "output with the same container (pytree) structure as the output of "
                f"{self.fun_name}, but got {po_tree} while {self.fun_name} returns "
                f"{self.out_tree}."
            )
        tangents_out = []
        for p, t in zip(po_leaves, to_leaves):
            want = ad.tangent_aval(core.get_aval(p))
            if isinstance(t, SymbolicZero):
                if not self.symbolic_zeros and ad.linearizing_joint.get():
                    # JAX takes a SymbolicZero from a rule defined without symbolic_zeros=True
                    # under jvp, but under linearization (grad, vjp) it reaches the traced
                    # program as a value, which it refuses with this error.
                    raise TypeError(f"Argument '{t}' of type '{type(t)}' is not a valid JAX type")
                # The zero keeps the rule's weak type (a weak zero instantiates weakly).
                same = t.aval.shape == want.shape and t.aval.dtype == want.dtype
                tangents_out.append(Zero(t.aval if same else want))
                continue
            got = core.get_aval(t)
            if got.shape != want.shape or got.dtype != want.dtype:
                raise TypeError(
                    "Custom JVP rule must produce primal and tangent outputs with corresponding "
                    f"shapes and dtypes. Expected {want.str_short(False)} (tangent type of "
                    f"{core.get_aval(p).str_short(False)}) but got {got.str_short(False)}."
                )
            if want.dtype == dtypes.float0:
                tangents_out.append(Zero(want))
            else:
                # Not cast: a Python scalar tangent stays weakly typed, as in JAX.
                tangents_out.append(_to_value(t))
        return [_to_value(p) for p in po_leaves], tangents_out


def _trace_of(args: tuple) -> tuple[core.Trace, core.Trace | None]:
    """The trace a custom-derivative call belongs to: the current one, less the ones none of
    the arguments comes from (as JAX binds it): a JVP trace whose tangents are all zero and a
    partial evaluation whose operands are all known pass the call to the trace below them, so
    a call on concrete values inside a rule runs the function itself. Also the (innermost) JVP
    trace passed by, if any: a value of it the function closes over is refused (``_on``)."""
    trace, guard = core.trace_ctx.trace, None
    leaves = tu.tree_leaves(args)
    while True:
        if isinstance(trace, _InlineJitTrace):
            guard = guard or trace.guard
            trace = trace.parent_trace
        elif isinstance(trace, ad.JVPTrace) and not any(
            isinstance(x, ad.JVPTracer) and x._trace is trace for x in leaves
        ):
            guard = guard or trace
            trace = trace.parent_trace
        elif getattr(trace, "known_trace", None) is not None and not any(
            isinstance(x, core.Tracer) and x._trace is trace for x in leaves
        ):
            trace = trace.known_trace
        else:
            return trace, guard


def _on(trace: core.Trace, guard: core.Trace | None, what: tuple[str, str]) -> core.Trace:
    """``trace``, refusing operands of the JVP trace ``guard`` (values the custom-derivative
    function ``what`` closes over while they are being differentiated)."""
    return trace if guard is None else _InlineJitTrace(trace, guard, False, what)


def _jvp_untraced(fn: custom_jvp, trace: ad.JVPTrace, args: tuple, name: str) -> Any:
    """A custom_jvp call differentiated: the user's rule runs on the primal and tangent values
    as JAX's does, the function itself is not traced (only called where the rule calls it), so
    Python control flow on concrete primals works in both, and each runs once. Under
    linearization (grad, vjp) the rule runs on the partial evaluation of the tangents: its work
    on primals alone is done now, its tangent work staged into the linear map."""
    nondiff, dyn, _ = _split_nondiff(args, fn.nondiff_argnums, name)
    leaves, in_tree = tu.tree_flatten(dyn)
    leaves = [_as_operand(x) for x in leaves]
    for x in leaves:
        _arg_aval(x, f"custom_jvp function {name}")
    pairs = [trace.to_primal_tangent(x) for x in leaves]
    primals = [p for p, _ in pairs]
    tangents = [t for _, t in pairs]
    rule = _JVPRule(fn.jvp, name, nondiff, in_tree, None, [])
    rule.symbolic_zeros = fn.symbolic_zeros
    params = dict(jvp=rule, num_consts=0, symbolic_zeros=fn.symbolic_zeros, name=name)
    what = ("custom_jvp", name)
    if trace.tangent_trace is trace.parent_trace:
        parent = trace.parent_trace
        inline = parent is not core.eval_trace
        with core.set_current_trace(_InlineJitTrace(parent, trace, inline, what)):
            po, to = _custom_jvp_call_jvp(primals, tangents, call_jaxpr=None, **params)
    else:
        tangent_trace = trace.tangent_trace
        token = ad.linearizing_joint.set(True)
        try:
            with core.set_current_trace(_InlineJitTrace(tangent_trace, trace, True, what)):
                po, to = _custom_jvp_call_jvp(primals, tangents, call_jaxpr=None, **params)
        finally:
            ad.linearizing_joint.reset(token)
        if any(isinstance(p, core.Tracer) and p._trace is tangent_trace for p in po):
            raise ValueError(  # JAX's words, then which rule
                "Linearization failed to produce known values for all output primals. This is "
                "typically caused by attempting to differentiate a function uses an operation "
                f"that does not support reverse-mode autodiff. (custom_jvp function {name}: the "
                f"primal output of its JVP rule {_fun_name(fn.jvp)} depends on the tangents.)"
            )
        # A tangent output that does not depend on the input tangents is zero (the map is
        # linear), as in the linearization of other primitives.
        to = [
            t if isinstance(t, core.Tracer) and t._trace is tangent_trace else
            (t if type(t) is Zero else Zero(ad.tangent_aval(core.get_aval(p))))
            for p, t in zip(po, to)
        ]  # fmt: skip
    outs = [trace.wrap(p, t) for p, t in zip(po, to)]
    return tu.tree_unflatten(rule.out_tree, outs)


def _stop_tracer_gradient(x: Any) -> Any:
    return conversion.stop_gradient_p.bind(x) if isinstance(x, core.Tracer) else x


class _BatchedJVP:
    """A jvp rule under vmap: the inner rule run on per-example slices (a vmap of its own),
    its outputs moved to batch dimension 0 to agree with the batched primal jaxpr. Its first
    ``n_new`` consts were made by batching (the inner rule does not know them)."""

    def __init__(self, inner, axis_data, n_new, const_dims, arg_dims) -> None:
        self.inner, self.axis_data, self.n_new = inner, axis_data, n_new
        self.const_dims, self.arg_dims = list(const_dims), list(arg_dims)

    def __repr__(self) -> str:
        return repr(self.inner)

    __str__ = __repr__
    # Rules are unhashable, so eager dispatch does not cache (and keep alive) per-call
    # parameters.
    __hash__ = None  # type: ignore[assignment]

    def __call__(self, consts, primals, tangents):
        n, size = len(primals), self.axis_data.size
        consts = list(consts[self.n_new :])
        nc = len(consts)
        sym = [isinstance(t, SymbolicZero) for t in tangents]
        ins = consts + list(primals) + [t for t, z in zip(tangents, sym) if not z]
        in_dims = self.const_dims + self.arg_dims + [d for d, z in zip(self.arg_dims, sym) if not z]
        zero_avals = [
            _unbatched_aval(t.aval, d) if z else None
            for t, z, d in zip(tangents, sym, self.arg_dims)
        ]

        def f(*xs):
            it = iter(xs[nc + n :])
            ts = [SymbolicZero(a) if z else next(it) for z, a in zip(sym, zero_avals)]
            po, to = self.inner(list(xs[:nc]), list(xs[nc : nc + n]), ts)
            return list(po) + list(to)

        vals, dims = batching.batch_fun(f, self.axis_data, ins, in_dims)
        m = len(vals) // 2
        po = [lax_rules.bdim_to(v, d, 0, size) for v, d in zip(vals[:m], dims[:m])]
        to = [
            Zero(_batched_aval(v.aval, size))
            if type(v) is Zero
            else lax_rules.bdim_to(v, d, 0, size)
            for v, d in zip(vals[m:], dims[m:])
        ]
        return po, to


custom_jvp_call_p = core.Primitive("custom_jvp_call", multiple_results=True)


def _custom_jvp_call_batch(axis_data, vals, dims, *, call_jaxpr, jvp, num_consts, **params):
    batched, new_consts = _batch_jaxpr_out0(call_jaxpr, axis_data, dims, vals)
    rule = _BatchedJVP(jvp, axis_data, len(new_consts), dims[:num_consts], dims[num_consts:])
    outs = custom_jvp_call_p.bind(
        *new_consts,
        *vals,
        call_jaxpr=batched,
        jvp=rule,
        num_consts=len(new_consts) + num_consts,
        **params,
    )
    return outs, [0] * len(outs)


class _InlineJitTrace(core.Trace):
    """Forwards every primitive to its parent trace, except ``jit`` calls, whose bodies it
    evaluates in place (with ``inline``), and values of the JVP trace ``guard``, which it
    refuses: a custom-derivative function or rule running under it closed over a value that is
    being differentiated (``what``: the function's kind and name, for the error).

    The user's jvp runs under it when a transformation is tracing: under linearize the rule's
    program is split by partial evaluation, and a ``jit`` equation that mixes primal and
    tangent values (``jnp.where`` is one) could not be split or transposed as a whole.
    """

    __slots__ = ("parent_trace", "guard", "inline", "what")

    def __init__(
        self, parent_trace: core.Trace, guard: core.Trace | None = None, inline: bool = True,
        what: tuple[str, str] = ("", ""),
    ) -> None:  # fmt: skip
        self.parent_trace, self.guard, self.inline, self.what = parent_trace, guard, inline, what

    def process_primitive(self, prim, args, params):
        if self.guard is not None and any(
            isinstance(x, core.Tracer) and x._trace is self.guard for x in args
        ):
            kind, name = self.what
            raise UnexpectedTracerError(
                f"The {kind} function {name} closes over a value that is being differentiated. "
                "Its rules cannot see the derivative with respect to such a value: pass the "
                f"value as an argument of {name} instead (JAX raises UnexpectedTracerError "
                "here as well)."
            )
        if self.inline and prim is dispatch.jit_p:
            closed = params["jaxpr"]
            return core.eval_jaxpr(closed.jaxpr, closed.consts, *args)
        with core.set_current_trace(self.parent_trace):
            return prim.bind(*args, **params)


def _custom_jvp_call_jvp(primals, tangents, *, call_jaxpr, jvp, num_consts, symbolic_zeros, name):
    _check_consts_not_perturbed(tangents, num_consts, "custom_jvp", name)
    args_t = tangents[num_consts:]
    if symbolic_zeros:
        args_t = [SymbolicZero(t.aval) if type(t) is Zero else t for t in args_t]
    else:
        # A zero tangent is typed as its primal (Explicit mesh axes), as in JAX.
        args_t = [
            lax_rules.zeros_like_aval(t.aval, sharding_rules.type_sharding(p))
            if type(t) is Zero
            else t
            for t, p in zip(args_t, primals[num_consts:])
        ]
    if core.is_eval_trace_current() or isinstance(core.trace_ctx.trace, _InlineJitTrace):
        return jvp(list(primals[:num_consts]), list(primals[num_consts:]), args_t)
    with core.set_current_trace(_InlineJitTrace(core.trace_ctx.trace)):
        return jvp(list(primals[:num_consts]), list(primals[num_consts:]), args_t)


custom_jvp_call_p.def_impl(_jaxpr_impl)
custom_jvp_call_p.def_abstract_eval(_jaxpr_abstract_eval)
batching.primitive_batchers[custom_jvp_call_p] = _custom_jvp_call_batch
ad.primitive_joint_jvps[custom_jvp_call_p] = _custom_jvp_call_jvp
dispatch.compile_rules[custom_jvp_call_p] = _jaxpr_compile
dispatch.inline_rules[custom_jvp_call_p] = lambda *, call_jaxpr, **_: call_jaxpr
# Sharding propagation and the partitioner look through the call to the primal program.
sharding_rules.call_jaxprs[custom_jvp_call_p] = lambda eqn: eqn.params["call_jaxpr"].jaxpr
core.pp_param_rules[custom_jvp_call_p] = _pp_named_first


__all__ = [
    "custom_jvp",
    "custom_jvp_call_p",
]
