"""``linear_call``: a function linear in some of its arguments, with a transpose given by the
user, traced as the ``linear_call`` primitive.

``linear_call(fun, fun_transpose, residual_args, linear_args)`` computes
``fun(residual_args, linear_args)``. The equation holds ``fun`` as a jaxpr (``callee``) and a
thunk that traces ``fun_transpose(residual_args, out_cotangent)`` when reverse mode first needs
it. Transposing one ``linear_call`` gives another, of ``fun_transpose``, whose own transpose is
``fun`` again. Its jvp is itself applied to the tangents of the linear arguments (it is linear
in them); it is not differentiable in its residuals, as in JAX.

>>> import spmd
>>> from spmd.custom_derivatives import linear_call
>>> def div_add(x, denom):
...     return x + linear_call(lambda r, x: x / r, lambda r, t: t / r, denom, x)
>>> spmd.grad(div_add)(9.0, 3.0)
Array(1.3333334, dtype=float32, weak_type=True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spmd._src import core, dispatch
from spmd._src import tree_util as tu
from spmd._src.core import ClosedJaxpr
from spmd._src.custom_derivatives.common import (
    _as_operand,
    _batch_jaxpr_out0,
    _fun_name,
    _hoist_consts,
)
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.interpreters import partial_eval as pe
from spmd._src.interpreters.ad import Zero
from spmd._src.lax import rules as lax_rules
from spmd._src.lax.control_flow.common import typed, types_of


class _TransposeThunk:
    """``() -> (closed_jaxpr, consts)`` of a transpose, made on the first call and kept (a call
    transposed twice traces its ``fun_transpose`` once). It prints as a function of the given
    qualified name, as JAX's thunks do. Unhashable, so eager dispatch does not cache it."""

    __slots__ = ("_make", "_qualname", "_value")

    def __init__(self, make: Callable[[], tuple[ClosedJaxpr, list]], qualname: str) -> None:
        self._make, self._qualname, self._value = make, qualname, None

    def __call__(self) -> tuple[ClosedJaxpr, list]:
        if self._value is None:
            self._value = self._make()
        return self._value

    def __repr__(self) -> str:
        return f"<function {self._qualname} at {hex(id(self))}>"

    __hash__ = None  # type: ignore[assignment]


def _operand(x: Any) -> Any:
    """An argument leaf as an operand, checked as JAX checks it."""
    if not core.valid_jaxtype(x):
        raise TypeError(f"Argument {x!r} of type {type(x)} is not a valid JAX type")
    return _as_operand(x)


def _trace_flat(fun: Callable, trees: tuple, avals: list, traced_for: str, shardings=None):
    """``fun(*trees rebuilt from flat leaves)`` traced at ``avals`` (and ``shardings``, their
    shardings in types, if any): the closed jaxpr (the values it closes over hoisted to leading
    invars), those values and the output treedef."""
    box: dict = {}

    def flat_fun(*flat):
        args, i = [], 0
        for tree in trees:
            args.append(tu.tree_unflatten(tree, flat[i : i + tree.num_leaves]))
            i += tree.num_leaves
        out_leaves, box["out_tree"] = tu.tree_flatten(fun(*args))
        return [_as_operand(o) for o in out_leaves]

    debug = pe.DebugInfo(traced_for, _fun_name(fun), None)
    closed, consts = _hoist_consts(pe.trace_to_jaxpr(flat_fun, avals, debug, shardings))
    return closed, consts, box["out_tree"]


def linear_call(fun: Callable, fun_transpose: Callable, residual_args: Any, linear_args: Any):
    """``fun(residual_args, linear_args)``, where ``fun`` is linear in ``linear_args`` and
    ``fun_transpose(residual_args, out_cotangent)`` is its transpose with respect to them
    (returning a pytree shaped like ``linear_args``). Reverse mode calls ``fun_transpose``; the
    transpose of that call is ``fun`` again."""
    for what, f in (("fun", fun), ("fun_transpose", fun_transpose)):
        if not callable(f):
            raise TypeError(f"linear_call: {what} must be callable, got {f!r}")
    res_leaves, res_tree = tu.tree_flatten(residual_args)
    lin_leaves, lin_tree = tu.tree_flatten(linear_args)
    res_ops = [_operand(x) for x in res_leaves]
    lin_ops = [_operand(x) for x in lin_leaves]
    res_avals = [core.get_aval(x) for x in res_ops]
    lin_avals = [core.get_aval(x) for x in lin_ops]
    callee, f_consts, out_tree = _trace_flat(
        fun,
        (res_tree, lin_tree),
        res_avals + lin_avals,
        "linear_call fun",
        types_of(res_ops + lin_ops),
    )

    def make_transpose():
        t_closed, t_consts, t_out_tree = _trace_flat(
            fun_transpose,
            (res_tree, out_tree),
            res_avals + list(callee.out_avals),
            "linear_call fun_transpose",
            typed(
                [sharding_rules.type_sharding(r) for r in res_ops]
                + [getattr(v, "sharding", None) for v in callee.jaxpr.outvars]
            ),
        )
        if t_out_tree != lin_tree:
            raise TypeError(
                "linear_call: the output of fun_transpose must have the pytree structure of "
                f"linear_args, got output structure {t_out_tree} and linear_args structure "
                f"{lin_tree}."
            )
        return t_closed, t_consts

    outs = linear_call_p.bind(
        *f_consts,
        *res_ops,
        *lin_ops,
        callee=callee,
        transpose_thunk=_TransposeThunk(make_transpose, "_memoize.<locals>.memoized"),
        num_callee_consts=len(f_consts),
        num_res=len(res_ops),
    )
    return tu.tree_unflatten(out_tree, outs)


linear_call_p = core.Primitive("linear_call", multiple_results=True)


def _linear_call_impl(*args, callee: ClosedJaxpr, **_):
    return core.jaxpr_as_numpy_fn(callee)(*args)


def _linear_call_abstract_eval(*avals, callee: ClosedJaxpr, **_):
    return callee.out_avals


def _linear_call_batch(
    axis_data, vals, dims, *, callee, transpose_thunk, num_callee_consts, num_res
):
    # The linear operands move to batch dimension 0 (unbatched ones are broadcast) and every
    # output is made batched at 0: then the batched transpose maps cotangents at 0 to
    # cotangents at 0, of the linear operands' types.
    n, size = num_callee_consts + num_res, axis_data.size
    lin = [lax_rules.bdim_to(v, d, 0, size) for v, d in zip(vals[n:], dims[n:])]
    in_dims = list(dims[:n]) + [0] * len(lin)
    batched, new_consts = _batch_jaxpr_out0(callee, axis_data, in_dims, [*vals[:n], *lin])
    res_dims = list(dims[num_callee_consts:n])
    n_out = len(callee.out_avals)

    # The transpose is traced now, while this map is running: fun_transpose may close over
    # values batched by it (its tracers, met as consts), which are unbatched into operands
    # here; later the map may be over. Its errors are raised when it is used, as unbatched.
    try:
        inner: Any = transpose_thunk()
    except Exception as e:
        inner = e

    def make_batched_transpose():
        if isinstance(inner, Exception):
            raise inner
        t_closed, t_consts = inner
        unbatched = [_batch_info(c, axis_data) for c in t_consts]
        t_dims = [d for _, d in unbatched] + res_dims + [0] * n_out
        t_batched, t_new = _batch_jaxpr_out0(t_closed, axis_data, t_dims)
        return t_batched, [*t_new, *(v for v, _ in unbatched)]

    outs = linear_call_p.bind(
        *new_consts,
        *vals[:n],
        *lin,
        callee=batched,
        transpose_thunk=_TransposeThunk(
            make_batched_transpose, "_linear_call_batch.<locals>.make_batched_transpose"
        ),
        num_callee_consts=len(new_consts) + num_callee_consts,
        num_res=num_res,
    )
    return outs, [0] * len(outs)


def _batch_info(x: Any, axis_data) -> tuple[Any, int | None]:
    """(value, batch dimension) of ``x`` for the map of ``axis_data`` (its trace's tracers carry
    the same AxisData object)."""
    if isinstance(x, batching.BatchTracer) and x._trace.axis_data is axis_data:
        return x.val, x.batch_dim
    return x, None


_NOT_LINEAR = (
    "linear_call: {} is being differentiated, but fun is only known to be linear in "
    "linear_args; pass the value in linear_args, or keep it out of the differentiation"
)


def _linear_call_jvp(
    primals, tangents, primal_out, *, callee, transpose_thunk, num_callee_consts, num_res
):
    # Linear in the linear arguments: the tangent is the same call on their tangents.
    n = num_callee_consts + num_res
    if any(type(t) is not Zero for t in tangents[:num_callee_consts]):
        raise AssertionError(_NOT_LINEAR.format("a value that fun closes over"))
    if any(type(t) is not Zero for t in tangents[num_callee_consts:n]):
        raise AssertionError(_NOT_LINEAR.format("an element of residual_args"))
    lin_t = tangents[n:]
    if all(type(t) is Zero for t in lin_t):
        return [Zero(ad.tangent_aval(a)) for a in callee.out_avals]
    return linear_call_p.bind(
        *primals[:n],
        *[ad.instantiate(t) for t in lin_t],
        callee=callee,
        transpose_thunk=transpose_thunk,
        num_callee_consts=num_callee_consts,
        num_res=num_res,
    )


def _linear_call_transpose_rule(cts, *args, callee, transpose_thunk, num_callee_consts, num_res):
    n = num_callee_consts + num_res
    f_consts, res, lin = args[:num_callee_consts], args[num_callee_consts:n], args[n:]
    if any(ad.is_undefined_primal(x) for x in args[:n]):
        raise AssertionError(_NOT_LINEAR.format("a residual"))
    t_closed, t_consts = transpose_thunk()

    def new_transpose_thunk():
        # The transpose of the transpose: this call's own function and its consts.
        return callee, list(f_consts)

    ct_vals = [
        lax_rules.zeros_like_aval(ad.tangent_aval(a)) if type(c) is Zero else c
        for c, a in zip(cts, callee.out_avals)
    ]
    cts_out = linear_call_p.bind(
        *t_consts,
        *res,
        *ct_vals,
        callee=t_closed,
        transpose_thunk=_TransposeThunk(
            new_transpose_thunk, "_linear_call_transpose_rule.<locals>.new_transpose_thunk"
        ),
        num_callee_consts=len(t_consts),
        num_res=num_res,
    )
    lin_cts = []
    for x, ct in zip(lin, cts_out, strict=True):
        if not ad.is_undefined_primal(x):
            lin_cts.append(None)  # a constant in a linear position: nothing flows to it
            continue
        got = core.get_aval(ct)
        if got.shape != x.aval.shape:
            raise ValueError(
                "linear_call: fun_transpose returned a cotangent of type "
                f"{got.str_short(False)} for a linear argument of type "
                f"{x.aval.str_short(False)}; expected cotangent type "
                f"{ad.tangent_aval(x.aval).str_short(False)}"
            )
        lin_cts.append(ct)
    return [None] * n + lin_cts


linear_call_p.def_impl(_linear_call_impl)
linear_call_p.def_abstract_eval(_linear_call_abstract_eval)
batching.primitive_batchers[linear_call_p] = _linear_call_batch
ad.primitive_jvps[linear_call_p] = _linear_call_jvp
ad.primitive_transposes[linear_call_p] = _linear_call_transpose_rule
dispatch.compile_rules[linear_call_p] = lambda *, callee, **_: core.jaxpr_as_numpy_fn(callee)
dispatch.inline_rules[linear_call_p] = lambda *, callee, **_: callee
# Sharding propagation and the partitioner look through the call to fun's program.
sharding_rules.call_jaxprs[linear_call_p] = lambda eqn: eqn.params["callee"].jaxpr


__all__ = [
    "linear_call",
    "linear_call_p",
]
