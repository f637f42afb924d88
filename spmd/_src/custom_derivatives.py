"""Custom derivatives and rematerialization: ``custom_jvp``, ``custom_vjp``, ``checkpoint``.

Each is a higher-order primitive when traced: the equation holds the primal function as a jaxpr
(its kernel runs that jaxpr) plus the user's rules as Python callables, which the autodiff and
batching rules call:

- ``custom_jvp_call``: its joint jvp rule calls the user's jvp function (under linearize that
  call is traced and split by partial evaluation, like any other program). Under vmap the jvp
  function is wrapped in a vmap of its own.
- ``custom_vjp_call``: its joint jvp rule runs the user's ``fwd`` for the primal outputs and
  residuals, and emits ``custom_lin(residuals, tangents)``, a linear primitive whose transpose
  calls the user's ``bwd``. Forward mode has no meaning for it: evaluating ``custom_lin`` raises
  JAX's TypeError.
- ``remat2`` (``checkpoint``): its jvp is the jvp of its body, staged as one ``remat2``; its
  partial-evaluation rule puts the primal computation on the known side and, on the unknown
  side, a ``remat2`` that recomputes what the tangent needs from the primal *inputs* (the only
  residuals, unless the policy saves an intermediate). Its transpose is again a ``remat2``.

In eager mode (no transformation active) the decorated function is simply called, as in JAX.

Values a decorated function closes over are hoisted out of its jaxpr into leading operands
(``num_consts``). The user's rules see them through their own Python closure, so a rule must not
close over a value that is being differentiated (JAX's restriction too; here it raises
UnexpectedTracerError with an explanation).

>>> import spmd, spmd.numpy as jnp
>>> @spmd.custom_jvp
... def log1pexp(x):
...     return jnp.log1p(jnp.exp(x))
>>> @log1pexp.defjvp
... def log1pexp_jvp(primals, tangents):
...     (x,), (t,) = primals, tangents
...     return log1pexp(x), t * (1 - 1 / (1 + jnp.exp(x)))
>>> spmd.grad(log1pexp)(100.0)
Array(1., dtype=float32)
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core, dispatch, dtypes
from spmd._src import tree_util as tu
from spmd._src.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, ShapedArray, Var
from spmd._src.errors import UnexpectedTracerError
from spmd._src.interpreters import ad, batching
from spmd._src.interpreters import partial_eval as pe
from spmd._src.interpreters.ad import Zero
from spmd._src.lax import elementwise as lax_elem
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import rules as lax_rules

__all__ = [
    "CustomVJPPrimal",
    "SymbolicZero",
    "checkpoint",
    "checkpoint_policies",
    "custom_jvp",
    "custom_jvp_call_p",
    "custom_lin_p",
    "custom_vjp",
    "custom_vjp_call_p",
    "remat",
    "remat_p",
]


# ---------------------------------------------------------------------------------------------
# Shared helpers


def _fun_name(fun: Any) -> str:
    return getattr(fun, "__name__", None) or type(fun).__name__


class _Named:
    """A rule held in equation parameters; prints as the user's function name, as JAX does."""

    __slots__ = ("fn", "name")

    def __init__(self, fn: Callable, name: str | None = None) -> None:
        self.fn = fn
        self.name = name if name is not None else _fun_name(fn)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__
    # Rules are unhashable, so eager dispatch does not cache (and keep alive) per-call
    # parameters.
    __hash__ = None  # type: ignore[assignment]


class SymbolicZero:
    """A zero tangent or cotangent passed to rules defined with ``symbolic_zeros=True``: only its
    type is known. ``instantiate()`` gives a concrete zero."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    @property
    def shape(self) -> tuple[int, ...]:
        return self.aval.shape

    @property
    def dtype(self) -> np.dtype:
        return self.aval.dtype

    @property
    def ndim(self) -> int:
        return self.aval.ndim

    @property
    def size(self) -> int:
        return self.aval.size

    def instantiate(self) -> Any:
        return lax_rules.zeros_like_aval(self.aval)

    def __repr__(self) -> str:
        return f"SymbolicZero({self.aval.str_short()})"


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


@functools.lru_cache(maxsize=512)
def _signature(fun: Callable) -> inspect.Signature | None:
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


def _resolve_args(fun: Callable, name: str, args: tuple, kwargs: dict) -> tuple:
    """Positional arguments for ``fun`` from a call's args and kwargs with defaults applied, so
    that nondiff_argnums and the rules' ``primals`` tuples are positional, as in JAX."""
    try:
        sig = _signature(fun)
    except TypeError:  # unhashable callable
        sig = _signature.__wrapped__(fun)
    if sig is None:
        if kwargs:
            raise TypeError(
                f"{name}: keyword arguments need a function with an inspectable signature"
            )
        return args
    if any(p.kind == p.VAR_POSITIONAL for p in sig.parameters.values()) and not kwargs:
        return args
    try:
        ba = sig.bind(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{name}: {e}") from None
    ba.apply_defaults()
    if ba.kwargs:
        raise TypeError(
            f"{name}: keyword-only arguments {sorted(ba.kwargs)} are not supported by custom "
            "derivative functions; pass them positionally"
        )
    return ba.args


def _split_nondiff(args: tuple, nondiff_argnums: tuple[int, ...], name: str):
    n = len(args)
    for i in nondiff_argnums:
        if not -n <= i < n:
            raise TypeError(
                f"{name}: nondiff_argnums={nondiff_argnums} refers to argument {i}, but the "
                f"function was called with {n} positional argument{'s' if n != 1 else ''}"
            )
    nums = {i % n for i in nondiff_argnums}
    nondiff = [args[i % n] for i in nondiff_argnums]
    dyn = tuple(a for i, a in enumerate(args) if i not in nums)
    return nondiff, dyn, nums


def _merge_args(n: int, nums: set[int], nondiff_by_pos: dict[int, Any], dyn: Sequence[Any]):
    it = iter(dyn)
    return tuple(nondiff_by_pos[i] if i in nums else next(it) for i in range(n))


def _as_operand(x: Any) -> Any:
    if isinstance(x, (core.Tracer, np.ndarray, np.generic)) or hasattr(x, "_value"):
        return x
    if dtypes.is_python_scalar(x):
        return x
    return np.asarray(x)


def _to_value(x: Any, dtype: Any = None) -> Any:
    """A rule's output as an array: Python scalars and NumPy values become concrete arrays
    (of ``dtype`` when given, else weakly typed as usual); arrays and tracers pass through."""
    if isinstance(x, core.Tracer) or hasattr(x, "_value"):
        return x
    if dtype is not None:
        return core.make_concrete(np.asarray(x, dtype=dtype), False)
    aval = core.get_aval(x)
    return core.make_concrete(np.asarray(x, dtype=aval.dtype), aval.weak_type)


def _arg_aval(x: Any, name: str) -> ShapedArray:
    try:
        return core.get_aval(x)
    except TypeError:
        raise TypeError(
            f"{name}: arguments that are differentiated must be arrays or pytrees of arrays, "
            f"got a value of type {type(x).__name__} ({x!r}); mark it with nondiff_argnums"
        ) from None


def _trace_closed(flat_fun: Callable, in_avals: Sequence[ShapedArray], name: str):
    """Trace ``flat_fun`` to a jaxpr with no consts: closed-over values become leading invars.

    Returns ``(closed_jaxpr, consts)``; call the jaxpr with ``*consts, *args``.
    """
    closed = pe.trace_to_jaxpr(flat_fun, in_avals, pe.DebugInfo("custom derivative", name, None))
    return _hoist_consts(closed)


def _hoist_consts(closed: ClosedJaxpr) -> tuple[ClosedJaxpr, list[Any]]:
    if not closed.jaxpr.constvars:
        return closed, []
    jaxpr, consts = pe.convert_constvars_jaxpr(closed)
    return ClosedJaxpr(jaxpr, []), list(consts)


def _check_consts_not_perturbed(tangents: Sequence[Any], num_consts: int, kind: str, name: str):
    if any(type(t) is not Zero for t in tangents[:num_consts]):
        raise UnexpectedTracerError(
            f"The {kind} function {name} closes over a value that is being differentiated. Its "
            "rules cannot see the derivative with respect to such a value: pass the value as "
            f"an argument of {name} instead (JAX raises UnexpectedTracerError here as well)."
        )


def _call_with_consts(
    thunk: Callable, inputs: Sequence[Any], orig: Sequence[Any], new: Sequence[Any]
):
    """``thunk(*inputs)`` (a flat list; None marks a zero), where the user code inside it closes
    over the values ``orig`` and those must now read as ``new``.

    The user's rules see the values their function closes over through Python closures, but a
    transformation may have replaced them (vmap batches a closed-over tracer into a tracer of a
    new trace). Then the rule is traced to a jaxpr and each of its constants that is one of
    ``orig`` is replaced by the matching ``new`` value before it is evaluated.
    """
    if len(orig) == len(new) and all(a is b for a, b in zip(orig, new)):
        return thunk(*inputs)
    box: list = []

    def flat(*xs):
        outs = thunk(*xs)
        box.append([o is None for o in outs])
        return [o for o in outs if o is not None]

    closed = pe.trace_to_jaxpr(flat, [core.get_aval(x) for x in inputs])
    where = {id(o): i for i, o in enumerate(orig)}
    consts = [new[where[id(c)]] if id(c) in where else c for c in closed.consts]
    outs = iter(core.eval_jaxpr(closed.jaxpr, consts, *inputs))
    return [None if z else next(outs) for z in box[0]]


def _unbatched_aval(aval: ShapedArray, d: int | None) -> ShapedArray:
    if d is None:
        return aval
    return ShapedArray(aval.shape[:d] + aval.shape[d + 1 :], aval.dtype, aval.weak_type)


def _batched_aval(aval: ShapedArray, size: int) -> ShapedArray:
    return ShapedArray((size, *aval.shape), aval.dtype, aval.weak_type)


def _batch_jaxpr_out0(closed: ClosedJaxpr, axis_data, in_dims) -> tuple[ClosedJaxpr, list]:
    """``closed`` batched along ``in_dims`` with every output batched at dimension 0 (the
    batched user rules are made to agree with that); consts hoisted to leading invars."""
    batched, out_dims = batching.batch_jaxpr(closed, axis_data, in_dims)
    if any(d != 0 for d in out_dims):
        size = axis_data.size

        def forced(*args):
            outs = core.eval_jaxpr(batched.jaxpr, batched.consts, *args)
            return [lax_rules.bdim_to(o, d, 0, size) for o, d in zip(outs, out_dims)]

        batched = pe.trace_to_jaxpr(forced, batched.in_avals)
    return _hoist_consts(batched)


def _jaxpr_impl(*args, call_jaxpr: ClosedJaxpr, **_):
    return core.jaxpr_as_numpy_fn(call_jaxpr)(*args)


def _jaxpr_abstract_eval(*avals, call_jaxpr: ClosedJaxpr, **_):
    return call_jaxpr.out_avals


def _jaxpr_compile(*, call_jaxpr: ClosedJaxpr, **_):
    return core.jaxpr_as_numpy_fn(call_jaxpr)


def _pp_named_first(params: dict) -> list[tuple[str, Any]]:
    # JAX prints `name` first, then the others sorted; num_consts only when there are consts.
    rest = sorted(
        (k, v) for k, v in params.items() if k != "name" and not (k == "num_consts" and v == 0)
    )
    return [("name", params["name"]), *rest]


# ---------------------------------------------------------------------------------------------
# custom_jvp


class custom_jvp:
    """A function with a custom JVP rule (forward derivative), also used by reverse mode.

    >>> f = spmd.custom_jvp(lambda x: jnp.sin(x))
    >>> _ = f.defjvp(lambda primals, tangents: (f(*primals), 2.0 * tangents[0]))
    >>> spmd.grad(f)(0.0)
    Array(2., dtype=float32)
    """

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.jvp: Callable | None = None
        self.symbolic_zeros = False

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

        jvp.__name__ = f"{_fun_name(self.fun)}_jvps"
        self.defjvp(jvp)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = _fun_name(self.fun)
        if self.jvp is None:
            raise AttributeError(f"No JVP defined for custom_jvp function {name} using defjvp.")
        args = _resolve_args(self.fun, name, args, kwargs)
        if core.is_eval_trace_current():
            return self.fun(*args)
        nondiff, dyn, nums = _split_nondiff(args, self.nondiff_argnums, name)
        by_pos = {i % len(args): v for i, v in zip(self.nondiff_argnums, nondiff)}
        leaves, in_tree = tu.tree_flatten(dyn)
        leaves = [_as_operand(x) for x in leaves]
        in_avals = [_arg_aval(x, f"custom_jvp function {name}") for x in leaves]
        out_box: list = []
        fun, n = self.fun, len(args)

        def flat_fun(*flat):
            out = fun(*_merge_args(n, nums, by_pos, tu.tree_unflatten(in_tree, flat)))
            out_leaves, out_tree = tu.tree_flatten(out)
            out_box.append(out_tree)
            return out_leaves

        call_jaxpr, consts = _trace_closed(flat_fun, in_avals, name)
        out_tree = out_box[0]
        rule = _JVPRule(self.jvp, name, nondiff, in_tree, out_tree, consts)
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
                tangents_out.append(Zero(want))
                continue
            got = core.get_aval(t)
            if got.shape != want.shape or (got.dtype != want.dtype and not _float0_ok(got, want)):
                raise TypeError(
                    "Custom JVP rule must produce primal and tangent outputs with corresponding "
                    f"shapes and dtypes. Expected {want.str_short(False)} (tangent type of "
                    f"{core.get_aval(p).str_short(False)}) but got {got.str_short(False)}."
                )
            if want.dtype == dtypes.float0:
                tangents_out.append(Zero(want))
            else:
                tangents_out.append(_to_value(t, want.dtype))
        return [_to_value(p) for p in po_leaves], tangents_out


def _float0_ok(got: ShapedArray, want: ShapedArray) -> bool:
    # A zero tangent of an int output may come back as an int or bool zero; it carries nothing.
    return want.dtype == dtypes.float0


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
    batched, new_consts = _batch_jaxpr_out0(call_jaxpr, axis_data, dims)
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
    evaluates in place.

    The user's jvp runs under it when a transformation is tracing: under linearize the rule's
    program is split by partial evaluation, and a ``jit`` equation that mixes primal and
    tangent values (``jnp.where`` is one) could not be split or transposed as a whole.
    """

    __slots__ = ("parent_trace",)

    def __init__(self, parent_trace: core.Trace) -> None:
        self.parent_trace = parent_trace

    def process_primitive(self, prim, args, params):
        if prim is dispatch.jit_p:
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
        args_t = [ad.instantiate(t) for t in args_t]
    if core.is_eval_trace_current():
        return jvp(list(primals[:num_consts]), list(primals[num_consts:]), args_t)
    with core.set_current_trace(_InlineJitTrace(core.trace_ctx.trace)):
        return jvp(list(primals[:num_consts]), list(primals[num_consts:]), args_t)


custom_jvp_call_p.def_impl(_jaxpr_impl)
custom_jvp_call_p.def_abstract_eval(_jaxpr_abstract_eval)
batching.primitive_batchers[custom_jvp_call_p] = _custom_jvp_call_batch
ad.primitive_joint_jvps[custom_jvp_call_p] = _custom_jvp_call_jvp
dispatch.compile_rules[custom_jvp_call_p] = _jaxpr_compile
core.pp_param_rules[custom_jvp_call_p] = _pp_named_first


# ---------------------------------------------------------------------------------------------
# custom_vjp


class custom_vjp:
    """A function with a custom VJP rule (``fwd`` and ``bwd``) for reverse mode.

    >>> f = spmd.custom_vjp(lambda x: jnp.sin(x))
    >>> f.defvjp(lambda x: (f(x), jnp.cos(x)), lambda cos_x, g: (2.0 * cos_x * g,))
    >>> spmd.grad(f)(0.0)
    Array(2., dtype=float32)
    """

    def __init__(self, fun: Callable, nondiff_argnums: Sequence[int] = ()) -> None:
        functools.update_wrapper(self, fun)
        self.fun = fun
        self.nondiff_argnums = tuple(nondiff_argnums)
        self.fwd: Callable | None = None
        self.bwd: Callable | None = None
        self.symbolic_zeros = False

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

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        name = _fun_name(self.fun)
        if self.fwd is None or self.bwd is None:
            raise AttributeError(f"No VJP defined for custom_vjp function {name} using defvjp.")
        args = _resolve_args(self.fun, name, args, kwargs)
        if core.is_eval_trace_current():
            return self.fun(*args)
        nondiff, dyn, nums = _split_nondiff(args, self.nondiff_argnums, name)
        by_pos = {i % len(args): v for i, v in zip(self.nondiff_argnums, nondiff)}
        leaves, in_tree = tu.tree_flatten(dyn)
        leaves = [_as_operand(x) for x in leaves]
        in_avals = [_arg_aval(x, f"custom_vjp function {name}") for x in leaves]
        out_box: list = []
        fun, n = self.fun, len(args)

        def flat_fun(*flat):
            out = fun(*_merge_args(n, nums, by_pos, tu.tree_unflatten(in_tree, flat)))
            out_leaves, out_tree = tu.tree_flatten(out)
            out_box.append(out_tree)
            return out_leaves

        call_jaxpr, consts = _trace_closed(flat_fun, in_avals, name)
        out_tree = out_box[0]
        fwd = _FwdRule(self, name, n, nums, by_pos, nondiff, in_tree, in_avals, out_tree, consts)
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


class _FwdRule:
    """The user's fwd on flat lists: ``(consts, args, perturbed) -> (outs, residuals, bwd)``,
    where ``bwd(residuals, cts) -> arg cts (None for zero)`` is the user's bwd for this call.
    The residuals start with ``consts`` (the bwd may close over them too)."""

    def __init__(self, cv, fun_name, n, nums, by_pos, nondiff, in_tree, in_avals, out_tree, cc):
        self.cv, self.fun_name = cv, fun_name
        self.n, self.nums, self.by_pos, self.nondiff = n, nums, by_pos, list(nondiff)
        self.in_tree, self.in_avals, self.out_tree = in_tree, list(in_avals), out_tree
        self.closure_consts = list(cc)

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
                raise TypeError(
                    f"Custom VJP fwd rule {fname} for function {self.fun_name} produced a "
                    f"residual of type {type(r).__name__}, which is not an array type; keep "
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
            return _check_bwd_output(bwd(*fr.nondiff, r, ct), fr.in_tree, fr.in_avals)

        inputs = list(res[nc:]) + [c for c, z in zip(cts, sym) if not z]
        return _call_with_consts(thunk, inputs, fr.closure_consts, list(res[:nc]))


def _check_bwd_output(out: Any, in_tree, in_avals: Sequence[ShapedArray]) -> list[Any]:
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
    for o, child in zip(out, children):
        if o is None:
            flat.extend([None] * child.num_leaves)
            continue
        leaves, tree = tu.tree_flatten(o, is_leaf=lambda x: x is None)
        if tree != child:
            raise structure_error()
        flat.extend(leaves)
    paths = [tu.keystr(p) for p, _ in tu.tree_flatten_with_path(in_tree.unflatten(in_avals))[0]]
    result = []
    for ct, aval, path in zip(flat, in_avals, paths):
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
        result.append(_to_value(ct, want.dtype))
    return result


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
    batched, new_consts = _batch_jaxpr_out0(call_jaxpr, axis_data, dims)
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
    out_avals = tuple(ad.tangent_aval(core.get_aval(o)) for o in outs)
    t_out = custom_lin_p.bind(
        *res,
        *[t for t in args_t if type(t) is not Zero],
        num_res=len(res),
        bwd=bwd_flat,
        out_avals=out_avals,
        in_zeros=in_zeros,
        symbolic_zeros=symbolic_zeros,
    )
    return outs, t_out


custom_vjp_call_p.def_impl(_jaxpr_impl)
custom_vjp_call_p.def_abstract_eval(_jaxpr_abstract_eval)
batching.primitive_batchers[custom_vjp_call_p] = _custom_vjp_call_batch
ad.primitive_joint_jvps[custom_vjp_call_p] = _custom_vjp_call_jvp
dispatch.compile_rules[custom_vjp_call_p] = _jaxpr_compile
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


def _custom_lin_transpose(cts, *args, num_res, bwd, out_avals, in_zeros, symbolic_zeros):
    # Residuals written inline as literals come back as NumPy values: the user's bwd gets
    # arrays, as from fwd.
    res = [_to_value(r) for r in args[:num_res]]
    if symbolic_zeros:
        cts = [SymbolicZero(c.aval) if type(c) is Zero else c for c in cts]
    else:
        cts = [ad.instantiate(c) for c in cts]
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
    """Policy: save what either policy saves."""

    def policy(prim, *avals, **params):
        return policy_1(prim, *avals, **params) or policy_2(prim, *avals, **params)

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

    def __repr__(self) -> str:
        return "<module 'spmd.checkpoint_policies'>"


checkpoint_policies = _Policies()


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

        jaxpr, consts = _trace_closed(flat_fun, in_avals, name)
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
    batched, out_dims = batching.batch_jaxpr(jaxpr, axis_data, dims)
    batched, consts = _hoist_consts(batched)
    outs = remat_p.bind(*consts, *vals, jaxpr=batched, **params)
    return outs, out_dims


def _remat_jvp(primals, tangents, *, jaxpr, **params):
    # The jvp of the body, staged as one remat2 (primal and tangent outputs together); under
    # linearize, _remat_partial_eval splits it.
    nz = [type(t) is not Zero for t in tangents]
    n = len(primals)
    p_avals = [core.get_aval(p) for p in primals]
    t_avals = [core.get_aval(t) for t in tangents if type(t) is not Zero]
    zero_out: list = []

    def jvp_fun(*args):
        it = iter(args[n:])
        ts = [next(it) if z else Zero(ad.tangent_aval(a)) for z, a in zip(nz, p_avals)]
        po, to = ad.jvp_flat(
            lambda *xs: core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *xs), list(args[:n]), ts
        )
        zero_out.extend(type(t) is Zero for t in to)
        return list(po) + [t for t in to if type(t) is not Zero]

    jvp_jaxpr, consts = _trace_closed(jvp_fun, p_avals + t_avals, "checkpoint")
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
        eqns.append(JaxprEqn(ins, outs, e.primitive, e.params))
    for a, o in copies:
        src = a if type(a) is Literal else env[id(a)]
        eqns.append(JaxprEqn([src], [o], lax_elem.copy_p, {}))
    return eqns


def _remat_partial_eval(eqn: JaxprEqn, unknowns: Sequence[bool]):
    """Known side: the body's known outputs, computed inline. Unknown side: a remat2 that
    recomputes the residuals it needs from the known inputs, starting from the intermediates
    the policy saves (none by default), then runs the unknown part."""
    params = eqn.params
    closed = params["jaxpr"]
    policy = params["policy"]
    # remat2 equations with tangent inputs come from _remat_jvp, which hoists consts.
    assert not closed.jaxpr.constvars, "remat2 jaxpr with consts in partial evaluation"
    known, unknown, out_unknowns, nres = pe.partial_eval_jaxpr(closed, unknowns)
    kj = known.jaxpr
    n_kout = len(kj.outvars) - nres
    res_atoms = kj.outvars[n_kout:]
    producer = {id(v): e for e in kj.eqns for v in e.outvars}

    # Walk back from the residuals to the known inputs; a value the policy saves ends the walk
    # (it is passed from the known side), everything else on the way is recomputed.
    def saveable(e: JaxprEqn) -> bool:
        return policy is not None and bool(
            policy(e.primitive, *[a.aval for a in e.invars], **e.params)
        )

    saved: list[Var] = []
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
        if saveable(e):
            saved.append(v)
            continue
        if id(e) not in recompute:
            recompute.add(id(e))
            stack.extend(a for a in e.invars if type(a) is Var)
    rec_jaxpr = Jaxpr([], kj.invars + saved, res_atoms, [e for e in kj.eqns if id(e) in recompute])

    # The known side: known outputs and saved intermediates, inlined.
    kj_kept = pe.dce_jaxpr(Jaxpr([], kj.invars, kj.outvars[:n_kout] + saved, kj.eqns))
    known_in_atoms = [a for a, u in zip(eqn.invars, unknowns) if not u]
    known_out_vars = [v for v, u in zip(eqn.outvars, out_unknowns) if not u]
    saved_vars = [Var(v.aval) for v in saved]
    known_eqns = _inline_eqns(kj_kept, known_in_atoms, known_out_vars + saved_vars)

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
    u_closed = pe.trace_to_jaxpr(unknown_fun, rec_jaxpr.in_avals + unk_in_avals)
    unk_in_atoms = [a for a, u in zip(eqn.invars, unknowns) if u]
    # Inputs the tangent part does not read are not kept for the backward pass.
    uj = pe.dce_jaxpr(u_closed.jaxpr)
    used = {id(a) for e in uj.eqns for a in e.invars} | {id(a) for a in uj.outvars}
    keep = [id(v) in used for v in uj.invars]
    uj = Jaxpr(uj.constvars, [v for v, k in zip(uj.invars, keep) if k], uj.outvars, uj.eqns)
    u_closed = ClosedJaxpr(uj, u_closed.consts)
    in_atoms = known_in_atoms + saved_vars + unk_in_atoms
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
    t_closed, consts = _trace_closed(transposed, t_avals, "checkpoint")
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
core.pp_param_rules[remat_p] = _remat_pp
