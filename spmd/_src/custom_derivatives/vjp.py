"""``custom_vjp``: a function with its own ``fwd``/``bwd`` rules, traced as the
``custom_vjp_call`` primitive. Its joint jvp rule runs ``fwd`` and emits ``custom_lin``, a linear
primitive whose transpose calls ``bwd``; evaluating ``custom_lin`` (forward mode) raises JAX's
TypeError."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from spmd._src import core, dispatch, dtypes
from spmd._src import tree_util as tu
from spmd._src.core import ShapedArray
from spmd._src.custom_derivatives.common import (
    SymbolicZero,
    _arg_aval,
    _as_operand,
    _batch_jaxpr_out0,
    _call_with_consts,
    _check_consts_not_perturbed,
    _check_nondiff_range,
    _check_operands,
    _fun_name,
    _jaxpr_abstract_eval,
    _jaxpr_compile,
    _jaxpr_impl,
    _merge_args,
    _Named,
    _nondiff_positions,
    _pp_named_first,
    _resolve_args,
    _split_nondiff,
    _to_value,
    _trace_primal,
    _unbatched_aval,
)
from spmd._src.custom_derivatives.jvp import _InlineJitTrace, _on, _trace_of
from spmd._src.errors import UnexpectedTracerError
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.interpreters.ad import Zero
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import rules as lax_rules


class CustomVJPPrimal:
    """A primal argument of a ``fwd`` rule defined with ``symbolic_zeros=True``: its value and
    whether it is perturbed (has a nonzero tangent)."""

    __slots__ = ("value", "perturbed")

    def __init__(self, value: Any, perturbed: bool) -> None:
        self.value = value
        self.perturbed = perturbed

    def __iter__(self):
        return iter((self.value, self.perturbed))

    def __repr__(self) -> str:
        return f"CustomVJPPrimal(value={self.value!r}, perturbed={self.perturbed})"


# ---------------------------------------------------------------------------------------------
# custom_vjp


class custom_vjp:
    """A function with a custom VJP rule (``fwd`` and ``bwd``) for reverse mode.

    >>> f = spmd.custom_vjp(lambda x: jnp.sin(x))
    >>> f.defvjp(lambda x: (f(x), jnp.cos(x)), lambda cos_x, g: (2.0 * cos_x * g,))
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
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None
        self.symbolic_zeros = False
        self.optimize_remat = False

    def __getattr__(self, name: str) -> Any:
        # As JAX's: ``def*`` names reach the wrapped function, so stacked custom-derivative
        # decorators (a custom_jvp of a custom_vjp) can define the inner one's rules.
        if name.startswith("def"):
            return getattr(self.__dict__["fun"], name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return functools.partial(self, obj)

    def defvjp(
        self,
        fwd: Callable,
        bwd: Callable,
        symbolic_zeros: bool = False,
        optimize_remat: bool = False,
    ) -> None:
        """Set the rules: ``fwd(*args) -> (out, residuals)`` and
        ``bwd(*nondiff_args, residuals, out_cotangent) -> tuple of argument cotangents``."""
        self.fwd, self.bwd = fwd, bwd
        self.symbolic_zeros = bool(symbolic_zeros)
        # Recorded as JAX does; spmd's fwd is always traced whole, so there is nothing more to
        # optimize (JAX's remat_opt equation is not reproduced in printed jaxprs).
        self.optimize_remat = bool(optimize_remat)
        if self.symbolic_zeros and self.optimize_remat:
            raise NotImplementedError(
                "custom_vjp.defvjp: optimize_remat=True does not support symbolic_zeros=True "
                "(as in JAX)"
            )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = _fun_name(self.fun)
        if self.fwd is None or self.bwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {name} using defvjp.")
        args = _resolve_args(self.fun, name, args, kwargs, "custom_vjp")
        _check_nondiff_range(args, self.nondiff_argnums, name)
        _check_operands(args, self.nondiff_argnums, name, "custom_vjp")
        for i in self.nondiff_argnums:
            if 0 <= i < len(args):
                _check_no_tracers(args[i], name, i)
        trace, guard = _trace_of(args)
        with core.set_current_trace(_on(trace, guard, ("custom_vjp", name))):
            if trace is core.eval_trace:
                return self.fun(*args)
            if isinstance(trace, ad.JVPTrace):
                return _vjp_untraced(self, trace, args, name)
            return self._bind(args, name)

    def _bind(self, args: tuple, name: str) -> Any:
        p = _trace_primal(self.fun, args, self.nondiff_argnums, name, "custom_vjp")
        fwd = _FwdRule(
            self,
            name,
            p.n,
            p.nums,
            p.by_pos,
            p.nondiff,
            p.in_tree,
            p.in_avals,
            p.out_tree,
            p.consts,
            [sharding_rules.type_sharding(x) for x in p.leaves],
        )
        consts, leaves, call_jaxpr, out_tree = p.consts, p.leaves, p.jaxpr, p.out_tree
        outs = custom_vjp_call_p.bind(
            *consts,
            *leaves,
            call_jaxpr=call_jaxpr,
            fwd=fwd,
            bwd=_Named(self.bwd),
            num_consts=len(consts),
            symbolic_zeros=self.symbolic_zeros,
            name=name,
        )
        return tu.tree_unflatten(out_tree, outs)


def _vjp_untraced(cv: custom_vjp, trace: ad.JVPTrace, args: tuple, name: str) -> Any:
    """A custom_vjp call differentiated, as JAX's: ``fwd`` runs on the primal values (the
    function itself is not traced, only called where ``fwd`` calls it, so Python control flow
    on concrete primals works and each runs once), and ``custom_lin`` stands for the tangent
    map on the tangent trace (forward mode evaluates it: JAX's TypeError)."""
    nondiff, dyn, nums = _split_nondiff(args, cv.nondiff_argnums, name)
    n = len(args)
    by_pos = {i % n: v for i, v in zip(cv.nondiff_argnums, nondiff)}
    leaves, in_tree = tu.tree_flatten(dyn)
    leaves = [_as_operand(x) for x in leaves]
    in_avals = [_arg_aval(x, f"custom_vjp function {name}") for x in leaves]
    pairs = [trace.to_primal_tangent(x) for x in leaves]
    primals = [p for p, _ in pairs]
    tangents = [t for _, t in pairs]
    types = [sharding_rules.type_sharding(x) for x in primals]
    fwd = _FwdRule(cv, name, n, nums, by_pos, nondiff, in_tree, in_avals, None, [], types)
    in_zeros = tuple(type(t) is Zero for t in tangents)
    rule_trace = _InlineJitTrace(trace.parent_trace, trace, False, ("custom_vjp", name))
    with core.set_current_trace(rule_trace):
        outs, res, bwd_flat = fwd([], primals, [not z for z in in_zeros])
    with core.set_current_trace(trace.tangent_trace):
        t_out = _bind_lin(res, tangents, bwd_flat, outs, in_zeros, cv.symbolic_zeros)
    return tu.tree_unflatten(fwd.out_tree, [trace.wrap(p, t) for p, t in zip(outs, t_out)])


def _check_no_tracers(arg: Any, name: str, i: int) -> None:
    # JAX refuses traced values in non-differentiable positions of a custom_vjp function (its
    # bwd would see them outside their trace), under every transformation, jit included.
    if any(isinstance(leaf, core.Tracer) for leaf in tu.tree_leaves(arg)):
        raise UnexpectedTracerError(
            f"custom_vjp function {name}: argument {i} is marked non-differentiable (by "
            "nondiff_argnums or nondiff_argnames) but a traced value was passed to it. "
            "Non-differentiable arguments of a custom_vjp function must not be or contain "
            "tracers: use them for values such as functions, and pass arrays as ordinary "
            "(differentiable) arguments instead."
        )


class _FwdRule:
    """The user's fwd on flat lists: ``(consts, args, perturbed) -> (outs, residuals, bwd)``,
    where ``bwd(residuals, cts) -> arg cts (None for zero)`` is the user's bwd for this call.
    The residuals start with ``consts`` (the bwd may close over them too)."""

    def __init__(
        self, cv, fun_name, n, nums, by_pos, nondiff, in_tree, in_avals, out_tree, cc, in_types
    ):
        self.cv, self.fun_name = cv, fun_name
        self.n, self.nums, self.by_pos, self.nondiff = n, nums, by_pos, list(nondiff)
        self.in_tree, self.in_avals, self.out_tree = in_tree, list(in_avals), out_tree
        self.closure_consts = list(cc)
        # The arguments' shardings in types (Explicit mesh axes; None where untyped).
        self.in_types = list(in_types)

    def __repr__(self) -> str:
        return _fun_name(self.cv.fwd)

    __str__ = __repr__
    # Rules are unhashable, so eager dispatch does not cache (and keep alive) per-call
    # parameters.
    __hash__ = None  # type: ignore[assignment]

    def __call__(self, consts: Sequence[Any], args: Sequence[Any], perturbed: Sequence[bool]):
        box: list = []

        def thunk(*xs):
            outs, res, res_tree = self._apply(list(xs), perturbed)
            box.append((len(outs), res_tree))
            return list(outs) + list(res)

        flat = _call_with_consts(thunk, list(args), self.closure_consts, consts)
        n_out, res_tree = box[-1]
        res = list(consts) + list(flat[n_out:])
        return flat[:n_out], res, _BwdRule(self, res_tree, len(consts))

    def _apply(self, args: list, perturbed: Sequence[bool]):
        fwd, fname = self.cv.fwd, _fun_name(self.cv.fwd)
        if self.cv.symbolic_zeros:
            args = [CustomVJPPrimal(a, p) for a, p in zip(args, perturbed)]
        dyn = tu.tree_unflatten(self.in_tree, list(args))
        out = fwd(*_merge_args(self.n, self.nums, self.by_pos, dyn))
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError(
                f"Custom VJP fwd rule {fname} for function {self.fun_name} must produce a pair "
                "(list or tuple of length two) where the first element represents the primal "
                f"output (equal to those of the custom_vjp-decorated function {self.fun_name}) "
                "and the second element represents residuals (i.e. values stored from the "
                "forward pass for use on the backward pass), but instead of a pair the fwd rule "
                f"{fname} produced {out!r}."
            )
        primal_out, res = out
        out_leaves, out_tree = tu.tree_flatten(primal_out)
        if self.out_tree is None:  # not traced (differentiated eagerly): fwd's is the one
            self.out_tree = out_tree
        if out_tree != self.out_tree:
            raise TypeError(
                f"Custom VJP fwd rule {fname} for function {self.fun_name} must produce a pair "
                "(list or tuple of length two) where the first element represents the primal "
                f"output (equal in value to the output of the custom_vjp-decorated function "
                f"{self.fun_name}, and in particular of the same container/pytree structure), "
                f"but instead the fwd rule output's first element had container/pytree "
                f"structure {out_tree} while the custom_vjp-decorated function "
                f"{self.fun_name} had output container/pytree structure {self.out_tree}."
            )
        res_leaves, res_tree = tu.tree_flatten(res)
        for r in res_leaves:
            if not core.valid_jaxtype(r):
                # JAX's words first, then which rule produced the value.
                raise TypeError(
                    f"Argument '{r}' of type {type(r)} is not a valid JAX type: custom VJP fwd "
                    f"rule {fname} for function {self.fun_name} returned it as a residual; keep "
                    "non-array values out of the residuals (use nondiff_argnums)."
                )
        return out_leaves, res_leaves, res_tree


class _BwdRule:
    """The user's bwd on flat lists for one fwd call (it knows the residuals' structure; the
    first ``n_consts`` residuals are the values the function closes over)."""

    def __init__(self, fwd_rule: _FwdRule, res_tree, n_consts: int) -> None:
        self.fwd_rule, self.res_tree, self.n_consts = fwd_rule, res_tree, n_consts

    def __repr__(self) -> str:
        return _fun_name(self.fwd_rule.cv.bwd)

    __str__ = __repr__
    # Rules are unhashable, so eager dispatch does not cache (and keep alive) per-call
    # parameters.
    __hash__ = None  # type: ignore[assignment]

    def __call__(self, res: Sequence[Any], cts: Sequence[Any]) -> list[Any]:
        fr, nc = self.fwd_rule, self.n_consts
        bwd = fr.cv.bwd
        sym = [isinstance(c, SymbolicZero) for c in cts]
        n_res = len(res) - nc

        def thunk(*xs):
            it = iter(xs[n_res:])
            r = tu.tree_unflatten(self.res_tree, list(xs[:n_res]))
            cs = [c if z else next(it) for c, z in zip(cts, sym)]
            ct = tu.tree_unflatten(fr.out_tree, cs)
            return _check_bwd_output(bwd(*fr.nondiff, r, ct), fr.in_tree, fr.in_avals, fr.in_types)

        inputs = list(res[nc:]) + [c for c, z in zip(cts, sym) if not z]
        return _call_with_consts(thunk, inputs, fr.closure_consts, list(res[:nc]))


class _Pair:
    """A bwd output node and the argument subtree it stands for (a pytree leaf)."""

    __slots__ = ("ct", "sub")

    def __init__(self, ct: Any, sub: Any) -> None:
        self.ct, self.sub = ct, sub


def _check_bwd_output(
    out: Any, in_tree, in_avals: Sequence[ShapedArray], in_types: Sequence[Any]
) -> list[Any]:
    children = tu.treedef_children(in_tree)
    if isinstance(out, list) and len(out) == len(children):
        out = tuple(out)

    def structure_error():
        got = tu.tree_structure(out)
        return TypeError(
            "Custom VJP bwd rule must produce an output with the same container (pytree) "
            "structure as the args tuple of the primal function, and in particular must "
            "produce a tuple of length equal to the number of arguments to the primal "
            f"function, but got bwd output structure {got} for primal input structure "
            f"{in_tree}."
        )

    if not isinstance(out, tuple) or len(out) != len(children):
        raise structure_error()
    flat: list[Any] = []
    is_none = lambda x: x is None  # noqa: E731
    for o, child in zip(out, children):
        # The output may be a prefix of the argument's structure: None stands for a zero
        # cotangent of a whole subtree, as in JAX.
        example = tu.tree_unflatten(child, [0] * child.num_leaves)
        try:
            pairs = tu.tree_leaves(
                tu.tree_map(lambda c, e: _Pair(c, e), o, example, is_leaf=is_none)
            )
        except (ValueError, TypeError):
            raise structure_error() from None
        for pair in pairs:
            # A cotangent leaf given for a subtree applies to each of its leaves (JAX's
            # prefix broadcast; each is then checked against its input's shape).
            flat.extend([pair.ct] * len(tu.tree_leaves(pair.sub)))
    paths = [tu.keystr(p) for p, _ in tu.tree_flatten_with_path(in_tree.unflatten(in_avals))[0]]
    result = []
    for ct, aval, path, in_type in zip(flat, in_avals, paths, in_types):
        want = ad.tangent_aval(aval)
        if ct is None or isinstance(ct, SymbolicZero) or want.dtype == dtypes.float0:
            result.append(None)
            continue
        got = core.get_aval(ct)
        if got.shape != want.shape:
            raise ValueError(
                "Custom VJP bwd rule must produce an output with the same type as the args "
                f"tuple of the primal function, but at output{path} the bwd rule produced an "
                f"output of type {got.str_short(False)} corresponding to an input of type "
                f"{aval.str_short(False)}, so the shapes do not match"
            )
        _check_ct_type(ct, got, aval, in_type, path)
        # As in JAX, the cotangent keeps the dtype the bwd rule gave it (canonicalized; a
        # Python scalar is weakly typed): it is not cast to the input's tangent dtype.
        result.append(_to_value(ct))
    return result


def _check_ct_type(ct: Any, got: ShapedArray, aval: ShapedArray, in_type: Any, path: str):
    """JAX's check that a cotangent has its input's sharding in type (Explicit mesh axes). An
    untyped cotangent is not refused: spmd's transposes do not all type their results yet."""
    ct_type = sharding_rules.type_sharding(ct)
    if ct_type is None:
        return
    n = len(aval.shape)
    got_spec = tuple(ct_type.spec._normalized(n))
    want_spec = tuple(in_type.spec._normalized(n)) if in_type is not None else (None,) * n
    if got_spec != want_spec:
        raise ValueError(
            "Custom VJP bwd rule must produce an output with the same type as the args tuple "
            f"of the primal function, but at output{path} the bwd rule produced an output of "
            f"type {sharding_rules.type_str(got, got_spec, short=False)} corresponding to an "
            f"input of type {sharding_rules.type_str(aval, want_spec, short=False)}"
        )


class _BatchedFwd:
    """A fwd rule under vmap: the inner fwd run per example; primal outputs at batch
    dimension 0, residuals at 0 or unbatched; its bwd is batched to match. Its first
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

    def __call__(self, consts, args, perturbed):
        box: list = []
        consts = list(consts[self.n_new :])
        nc = len(consts)

        def f(*xs):
            outs, res, bwd = self.inner(list(xs[:nc]), list(xs[nc:]), perturbed)
            box.append((len(outs), bwd))
            return list(outs) + list(res)

        vals, dims = batching.batch_fun(
            f, self.axis_data, consts + list(args), self.const_dims + self.arg_dims
        )
        n_out, inner_bwd = box[0]
        size = self.axis_data.size
        outs = [lax_rules.bdim_to(v, d, 0, size) for v, d in zip(vals[:n_out], dims[:n_out])]
        res = [
            v if d is None else lax_rules.moveaxis(v, d, 0)
            for v, d in zip(vals[n_out:], dims[n_out:])
        ]
        res_dims = [None if d is None else 0 for d in dims[n_out:]]
        return outs, res, _BatchedBwd(inner_bwd, self.axis_data, res_dims, self.arg_dims)


class _BatchedBwd:
    def __init__(self, inner, axis_data, res_dims, arg_dims) -> None:
        self.inner, self.axis_data = inner, axis_data
        self.res_dims, self.arg_dims = list(res_dims), list(arg_dims)

    def __repr__(self) -> str:
        return repr(self.inner)

    __str__ = __repr__
    # Rules are unhashable, so eager dispatch does not cache (and keep alive) per-call
    # parameters.
    __hash__ = None  # type: ignore[assignment]

    def __call__(self, res, cts):
        nres = len(res)
        sym = [isinstance(c, SymbolicZero) for c in cts]
        zero_avals = [_unbatched_aval(c.aval, 0) if z else None for c, z in zip(cts, sym)]
        ins = list(res) + [c for c, z in zip(cts, sym) if not z]
        in_dims = self.res_dims + [0] * (len(ins) - nres)

        def g(*ys):
            it = iter(ys[nres:])
            cs = [SymbolicZero(a) if z else next(it) for z, a in zip(sym, zero_avals)]
            return self.inner(list(ys[:nres]), cs)

        vals, dims = batching.batch_fun(g, self.axis_data, ins, in_dims)
        out = []
        for v, d, want in zip(vals, dims, self.arg_dims):
            if v is None or type(v) is Zero:
                out.append(None)
            elif want is None:
                out.append(v if d is None else lax_red.reduce_sum(v, (d,)))
            else:
                out.append(lax_rules.bdim_to(v, d, want, self.axis_data.size))
        return out


custom_vjp_call_p = core.Primitive("custom_vjp_call", multiple_results=True)


def _custom_vjp_call_batch(axis_data, vals, dims, *, call_jaxpr, fwd, num_consts, **params):
    batched, new_consts = _batch_jaxpr_out0(call_jaxpr, axis_data, dims, vals)
    outs = custom_vjp_call_p.bind(
        *new_consts,
        *vals,
        call_jaxpr=batched,
        fwd=_BatchedFwd(fwd, axis_data, len(new_consts), dims[:num_consts], dims[num_consts:]),
        num_consts=len(new_consts) + num_consts,
        **params,
    )
    return outs, [0] * len(outs)


def _custom_vjp_call_jvp(
    primals, tangents, *, call_jaxpr, fwd, bwd, num_consts, symbolic_zeros, name
):
    _check_consts_not_perturbed(tangents, num_consts, "custom_vjp", name)
    args_t = tangents[num_consts:]
    in_zeros = tuple(type(t) is Zero for t in args_t)
    consts, args = list(primals[:num_consts]), list(primals[num_consts:])
    outs, res, bwd_flat = fwd(consts, args, [not z for z in in_zeros])
    return outs, _bind_lin(res, args_t, bwd_flat, outs, in_zeros, symbolic_zeros)


custom_vjp_call_p.def_impl(_jaxpr_impl)
custom_vjp_call_p.def_abstract_eval(_jaxpr_abstract_eval)
batching.primitive_batchers[custom_vjp_call_p] = _custom_vjp_call_batch
ad.primitive_joint_jvps[custom_vjp_call_p] = _custom_vjp_call_jvp
dispatch.compile_rules[custom_vjp_call_p] = _jaxpr_compile
dispatch.inline_rules[custom_vjp_call_p] = lambda *, call_jaxpr, **_: call_jaxpr
# Sharding propagation and the partitioner look through the call to the primal program.
sharding_rules.call_jaxprs[custom_vjp_call_p] = lambda eqn: eqn.params["call_jaxpr"].jaxpr
core.pp_param_rules[custom_vjp_call_p] = _pp_named_first


# ---------------------------------------------------------------------------------------------
# custom_lin: the linear stand-in for a custom_vjp function's tangent map. Only its transpose
# (the user's bwd) is ever evaluated.

_NO_JVP = "can't apply forward-mode autodiff (jvp) to a custom_vjp function."

custom_lin_p = core.Primitive("custom_lin", multiple_results=True)


def _custom_lin_impl(*args, **params):
    raise TypeError(_NO_JVP)


def _custom_lin_abstract_eval(*avals, out_avals, **params):
    return list(out_avals)


def _custom_lin_compile(**params):
    raise TypeError(_NO_JVP)


def _custom_lin_batch(axis_data, vals, dims, **params):
    raise TypeError(_NO_JVP)


def _custom_lin_jvp(primals, tangents, primal_out, **params):
    raise TypeError(_NO_JVP)


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals, out_types, in_zeros, symbolic_zeros):
    # Residuals written inline as literals come back as NumPy values: the user's bwd gets
    # arrays, as from fwd.
    res = [_to_value(r) for r in args[:num_res]]
    if symbolic_zeros:
        cts = [SymbolicZero(c.aval) if type(c) is Zero else c for c in cts]
    else:
        cts = [ad.instantiate(c) for c in cts]
    # The bwd rule gets cotangents of its outputs' types, as in JAX.
    cts = [c if isinstance(c, SymbolicZero) else ad.as_type(c, t) for c, t in zip(cts, out_types)]
    cts_in = bwd(res, cts)
    lin = [ct for ct, z in zip(cts_in, in_zeros) if not z]
    return [None] * num_res + lin


def _custom_lin_pp(params: dict) -> list[tuple[str, Any]]:
    return [
        ("bwd", params["bwd"]),
        ("in_zeros", list(params["in_zeros"])),
        ("num_res", params["num_res"]),
        ("symbolic_zeros", params["symbolic_zeros"]),
    ]


custom_lin_p.def_impl(_custom_lin_impl)
custom_lin_p.def_abstract_eval(_custom_lin_abstract_eval)
batching.primitive_batchers[custom_lin_p] = _custom_lin_batch
ad.primitive_jvps[custom_lin_p] = _custom_lin_jvp
ad.primitive_transposes[custom_lin_p] = _custom_lin_transpose
dispatch.compile_rules[custom_lin_p] = _custom_lin_compile
core.pp_param_rules[custom_lin_p] = _custom_lin_pp
# Its tangents have the primal outputs' types (Explicit mesh axes), whatever its operands' are
# (a primitive without a rule would type them replicated; transposes retype cotangents to the
# types their operands have, so those must be right).
sharding_rules.sets_sharding.add(custom_lin_p)
sharding_rules.sharding_rules[custom_lin_p] = lambda specs, avals, *, out_types, **_: list(
    out_types
)


def _bind_lin(res, tangents, bwd_flat, outs, in_zeros, symbolic_zeros):
    """The tangents of a custom_vjp's outputs ``outs``: a ``custom_lin`` of the residuals and
    the nonzero input tangents, whose transpose runs the user's backward rule."""
    return custom_lin_p.bind(
        *res,
        *[t for t in tangents if type(t) is not Zero],
        num_res=len(res),
        bwd=bwd_flat,
        out_avals=tuple(ad.tangent_aval(core.get_aval(o)) for o in outs),
        out_types=tuple(sharding_rules.type_sharding(o) for o in outs),
        in_zeros=in_zeros,
        symbolic_zeros=symbolic_zeros,
    )


__all__ = [
    "CustomVJPPrimal",
    "custom_lin_p",
    "custom_vjp",
    "custom_vjp_call_p",
]
