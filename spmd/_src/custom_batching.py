"""``custom_vmap``: a function with its own batching rule, traced as the ``custom_vmap_call``
primitive; and ``sequential_vmap``, whose rule maps the function over the batch one element at
a time.

The equation holds the function as a jaxpr (``call``, run when nothing batches it) and the rule
as a Python callable on flat lists (``rule``): under vmap the rule gets the batched operands with
their batch dimension in front and says which outputs are batched. Values the function closes
over are hoisted into leading operands; the user's rule sees them through its own closure, so
they must not be batched (JAX fails there too, with an AssertionError).

Forward mode works: the jvp of the call is a ``custom_vmap_call`` of the function's jvp whose
rule is the jvp of the user's rule. Reverse mode (grad, vjp, linearize) does not, as in JAX:
primal and tangent are one equation, which partial evaluation cannot split, so linearization
raises JAX's ValueError. Over device axes (shard_map, pmap) each device runs the function
itself: there is no batch for the rule.

>>> @custom_vmap
... def f(x):
...     return jnp.sin(x)
>>> @f.def_vmap
... def f_vmap(axis_size, in_batched, xs):
...     return jnp.sin(xs), in_batched[0]
>>> spmd.vmap(f)(jnp.zeros(2))
Array([0., 0.], dtype=float32)
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from spmd._src import core, dispatch, dtypes
from spmd._src import tree_util as tu
from spmd._src.custom_derivatives.common import (
    _arg_aval,
    _as_operand,
    _call_with_consts,
    _fun_name,
    _resolve_args,
    _trace_closed,
)
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.interpreters import partial_eval as pe
from spmd._src.interpreters.ad import Zero
from spmd._src.lax import rules as lax_rules
from spmd._src.lax.control_flow.common import types_of
from spmd._src.lax.control_flow.scan import scan


class custom_vmap:
    """A function with a custom batching rule, set with ``def_vmap``.

    >>> f = custom_vmap(lambda x: x + 1)
    >>> _ = f.def_vmap(lambda n, batched, xs: (xs + 1, batched[0]))
    """

    def __init__(self, fun: Callable) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.vmap_rule: Callable | None = None

    def __get__(self, obj, objtype=None):
        # Decorating a method: bind the instance as the first argument.
        if obj is None:
            return self
        return functools.partial(self, obj)

    def def_vmap(self, vmap_rule: Callable) -> Callable:
        """Set the rule ``vmap_rule(axis_size, in_batched, *args) -> (out, out_batched)``:
        ``in_batched`` is a list with, per argument, its pytree of bools (is that leaf batched,
        along its leading axis); ``out_batched`` is ``out``'s pytree of bools. Returns the rule,
        so it works as a decorator."""
        self.vmap_rule = vmap_rule
        return vmap_rule

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = _fun_name(self.fun)
        if self.vmap_rule is None:
            raise AttributeError(
                f"No batching rule defined for custom_vmap function {name} using def_vmap."
            )
        args = _resolve_args(self.fun, name, args, kwargs)
        if core.is_eval_trace_current():
            return self.fun(*args)
        leaves, args_tree = tu.tree_flatten(args)
        leaves = [_as_operand(x) for x in leaves]
        in_avals = [_arg_aval(x, f"custom_vmap function {name}") for x in leaves]
        out_box: list = []

        def flat_fun(*flat):
            out_leaves, out_tree = tu.tree_flatten(self.fun(*tu.tree_unflatten(args_tree, flat)))
            out_box.append(out_tree)
            return out_leaves

        call, consts = _trace_closed(flat_fun, in_avals, name, leaves)
        out_tree = out_box[0]
        rule = _UserRule(self.vmap_rule, name, args_tree, out_tree, consts)
        outs = custom_vmap_call_p.bind(
            *consts,
            *leaves,
            call=call,
            rule=rule,
            in_tree=_operand_tree(len(consts), args_tree),
            out_tree=out_tree,
        )
        return tu.tree_unflatten(out_tree, outs)


def _operand_tree(num_consts: int, args_tree):
    # As JAX shows it: (closed-over values, arguments).
    return tu.tree_structure(
        ([0] * num_consts, tu.tree_unflatten(args_tree, [0] * args_tree.num_leaves))
    )


class _RuleRepr:
    """Rules held in equation parameters print as JAX prints a function (the address is masked
    by the printer) and are unhashable, so eager dispatch does not cache per-call parameters."""

    qualname = "rule"

    def __repr__(self) -> str:
        return f"<function {self.qualname} at 0x0>"

    __str__ = __repr__
    __hash__ = None  # type: ignore[assignment]


class _UserRule(_RuleRepr):
    """The user's rule on flat lists: ``(axis_size, in_batched, vals) -> (outs, out_batched)``,
    ``vals`` being the closed-over values then the arguments' leaves, batched ones with the
    batch axis in front. Checks what the rule returns as JAX does."""

    def __init__(self, rule, fun_name, args_tree, out_tree, closure_consts) -> None:
        self.rule, self.fun_name = rule, fun_name
        self.args_tree, self.out_tree = args_tree, out_tree
        self.closure_consts = list(closure_consts)
        self.qualname = getattr(rule, "__qualname__", None) or _fun_name(rule)

    def __call__(self, axis_size: int, in_batched: list[bool], vals: list[Any]):
        nc = len(self.closure_consts)
        if any(in_batched[:nc]):
            # JAX fails here with a bare AssertionError; the class is kept, with a reason.
            raise AssertionError(
                f"custom_vmap function {self.fun_name} closes over a value that is batched by "
                "this vmap; its rule cannot see that batch. Pass the value as an argument."
            )
        rname = _fun_name(self.rule)
        batched_tree = list(tu.tree_unflatten(self.args_tree, list(in_batched[nc:])))
        box: list = []

        def thunk(*xs):
            out, out_batched = _pair(
                self.rule(axis_size, batched_tree, *tu.tree_unflatten(self.args_tree, xs)), rname
            )
            out_leaves, tree = tu.tree_flatten(out)
            b_leaves, b_tree = tu.tree_flatten(out_batched)
            if b_tree != tree:
                raise ValueError(
                    "structure of output value and output batching specification returned by "
                    f"custom vmap rule ({rname}) do not match.\nOutput values: {tree}\n"
                    f"Batching spec: {b_tree}"
                )
            if tree != self.out_tree:
                raise ValueError(
                    f"structure of output returned by custom vmap rule ({rname}) does not match "
                    f"that of original custom-vmapped function.\nOriginal output: "
                    f"{self.out_tree}\nRule output: {tree}"
                )
            box.append([bool(b) for b in b_leaves])
            return [
                _check_batched(o, b, axis_size, rname, i)
                for i, (o, b) in enumerate(zip(out_leaves, box[-1]))
            ]

        outs = _call_with_consts(thunk, list(vals[nc:]), self.closure_consts, list(vals[:nc]))
        return outs, box[-1]


def _pair(out: Any, rname: str) -> tuple[Any, Any]:
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise ValueError(
            f"custom vmap rule ({rname}) must return a pair (output, output batching "
            f"specification), but got {out!r}."
        )
    return out[0], out[1]


def _check_batched(o: Any, batched: bool, axis_size: int, rname: str, i: int) -> Any:
    o = _as_operand(o)
    if batched:
        shape = core.get_aval(o).shape
        if not shape or shape[0] != axis_size:
            raise ValueError(
                f"custom vmap rule ({rname}) says its output #{i} is batched, but its shape "
                f"{shape} does not start with the axis size {axis_size}."
            )
    return o


class _JVPOfRule(_RuleRepr):
    """The rule of a jvp'd ``custom_vmap_call`` (operands: primals, then the tangents of the
    ``keep`` ones): the jvp of the inner rule. A primal and its tangent are batched alike (the
    unbatched one of a pair is broadcast); each output's tangent is batched as its primal."""

    qualname = "custom_vmap_jvp.<locals>.jvp_of_rule_rule"

    def __init__(self, inner, keep: list[bool], out_keep: list[bool]) -> None:
        self.inner, self.keep, self.out_keep = inner, list(keep), list(out_keep)

    def __call__(self, axis_size: int, in_batched: list[bool], vals: list[Any]):
        n = len(self.keep)
        ps, pb = list(vals[:n]), list(in_batched[:n])
        primal_batched = list(pb)
        t_it = iter(zip(vals[n:], in_batched[n:]))
        ts = []
        for i, k in enumerate(self.keep):
            if not k:
                ts.append(Zero(ad.tangent_aval(core.get_aval(ps[i]))))
                continue
            t, tb = next(t_it)
            if pb[i] and not tb:
                t = lax_rules.bdim_at_front(t, None, axis_size)
            elif tb and not pb[i]:
                ps[i] = lax_rules.bdim_at_front(ps[i], None, axis_size)
                pb[i] = True
            ts.append(t)
        box: list = []

        def f(*xs):
            outs, out_batched = self.inner(axis_size, pb, list(xs))
            box.append(out_batched)
            return outs

        po, to = ad.jvp_flat(f, ps, ts)
        ob = box[-1]
        t_out = [
            ad.instantiate(Zero(ad.tangent_aval(core.get_aval(p)))) if type(t) is Zero else t
            for p, t, k in zip(po, to, self.out_keep)
            if k
        ]
        t_batched = [b for b, k in zip(ob, self.out_keep) if k]
        if pb != primal_batched:
            # Batched tangents of unbatched primals (jacfwd): the primal outputs are the rule's
            # on the primals as they are, so that what does not vary stays unbatched.
            po, ob = self.inner(axis_size, primal_batched, list(vals[:n]))
        return list(po) + t_out, list(ob) + t_batched


def _has_tangent(aval) -> bool:
    return ad.tangent_aval(aval).dtype != dtypes.float0


# ---------------------------------------------------------------------------------------------
# The primitive


def _impl(*args, call, rule, in_tree, out_tree):
    return core.jaxpr_as_numpy_fn(call)(*args)


def _abstract_eval(*avals, call, rule, in_tree, out_tree):
    return call.out_avals


def _vmap_rule(axis_data, vals, dims, *, call, rule, in_tree, out_tree):
    if axis_data.per_device:
        # One program per device (shard_map, pmap): each runs the function on its own values.
        batched, out_dims = batching.batch_jaxpr(call, axis_data, dims)
        return core.eval_jaxpr(batched.jaxpr, batched.consts, *vals), out_dims
    size = axis_data.size
    moved = [v if d is None else lax_rules.bdim_at_front(v, d, size) for v, d in zip(vals, dims)]
    outs, out_batched = rule(size, [d is not None for d in dims], moved)
    return outs, [0 if b else None for b in out_batched]


def _jvp(primals, tangents, *, call, rule, in_tree, out_tree):
    p_avals = [core.get_aval(p) for p in primals]
    keep = [_has_tangent(a) for a in p_avals]
    out_keep = [_has_tangent(a) for a in call.out_avals]
    t_in = [ad.instantiate(t) for t, k in zip(tangents, keep) if k]
    n = len(primals)

    def jvp_call(*xs):
        it = iter(xs[n:])
        ts = [next(it) if k else Zero(ad.tangent_aval(a)) for a, k in zip(p_avals, keep)]
        po, to = ad.jvp_flat(lambda *ys: core.eval_jaxpr(call.jaxpr, call.consts, *ys), xs[:n], ts)
        return list(po) + [ad.instantiate(t) for t, k in zip(to, out_keep) if k]

    types = types_of([*primals, *t_in])  # shardings in types (Explicit mesh axes)
    jaxpr = pe.trace_to_jaxpr(jvp_call, p_avals + [core.get_aval(t) for t in t_in], None, types)
    outs = custom_vmap_call_p.bind(
        *primals,
        *t_in,
        call=jaxpr,
        rule=_JVPOfRule(rule, keep, out_keep),
        in_tree=tu.tree_structure((in_tree.unflatten([0] * in_tree.num_leaves),) * 2),
        out_tree=tu.tree_structure((out_tree.unflatten([0] * out_tree.num_leaves),) * 2),
    )
    m = len(call.out_avals)
    t_it = iter(outs[m:])
    t_out = [
        next(t_it) if k else Zero(ad.tangent_aval(a)) for a, k in zip(call.out_avals, out_keep)
    ]
    return outs[:m], t_out


def _compile(*, call, **_):
    return core.jaxpr_as_numpy_fn(call)


custom_vmap_call_p = core.Primitive("custom_vmap_call", multiple_results=True)
custom_vmap_call_p.def_impl(_impl)
custom_vmap_call_p.def_abstract_eval(_abstract_eval)
batching.primitive_batchers[custom_vmap_call_p] = _vmap_rule
# Joint: under linearize the one equation cannot be split into primal and tangent parts, so
# reverse mode raises (as in JAX).
ad.primitive_joint_jvps[custom_vmap_call_p] = _jvp
dispatch.compile_rules[custom_vmap_call_p] = _compile
dispatch.inline_rules[custom_vmap_call_p] = lambda *, call, **_: call
sharding_rules.call_jaxprs[custom_vmap_call_p] = lambda eqn: eqn.params["call"].jaxpr


# ---------------------------------------------------------------------------------------------
# sequential_vmap


def sequential_vmap(f: Callable) -> custom_vmap:
    """``f`` with a batching rule that maps it over the batch, one element at a time (a scan):
    for functions with no batching rule of their own, or to bound memory.

    >>> g = sequential_vmap(lambda x: x * 2)
    >>> spmd.vmap(g)(jnp.arange(3.0))
    Array([0., 2., 4.], dtype=float32)
    """
    f = custom_vmap(f)

    def rule(axis_size, in_batched, *args):
        leaves, tree = tu.tree_flatten(args)
        flags = tu.tree_leaves(in_batched)
        xs = [x for x, b in zip(leaves, flags) if b]

        def body(carry, x_slices):
            it = iter(x_slices)
            ins = [next(it) if b else x for x, b in zip(leaves, flags)]
            return carry, f(*tu.tree_unflatten(tree, ins))

        _, out = scan(body, (), xs, length=axis_size)
        return out, tu.tree_map(lambda _: True, out)

    rule.__qualname__ = "sequential_vmap.<locals>.rule"
    f.def_vmap(rule)
    return f


__all__ = ["custom_vmap", "custom_vmap_call_p", "sequential_vmap"]
