"""What ``custom_jvp``, ``custom_vjp`` and ``checkpoint`` share: resolving and splitting a call's
arguments, tracing the decorated function to a closed jaxpr with its constants hoisted, the
batching of such jaxprs, the kernel, abstract evaluation and printing of their primitives, and
``SymbolicZero``."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src import tree_util as tu
from spmd._src.core import ClosedJaxpr, ShapedArray
from spmd._src.errors import UnexpectedTracerError
from spmd._src.interpreters import ad, batching
from spmd._src.interpreters import partial_eval as pe
from spmd._src.interpreters.ad import Zero
from spmd._src.lax import refs as lax_refs
from spmd._src.lax import rules as lax_rules
from spmd._src.lax.control_flow.common import types_of

# ---------------------------------------------------------------------------------------------
# Shared helpers


def _fun_name(fun: Any) -> str:
    # A functools.partial is named by the function it wraps, as in JAX's messages.
    while isinstance(fun, functools.partial):
        fun = fun.func
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
    type is known. Other attributes (``shape``, ``dtype``, ``weak_type``, ...) are read from
    that type, as in JAX; ``instantiate()`` gives a concrete zero."""

    __slots__ = ("aval",)

    def __init__(self, aval: ShapedArray) -> None:
        self.aval = aval

    def __getattr__(self, name: str) -> Any:
        # Only reached for names not defined here; the aval raises AttributeError itself.
        if name == "aval":
            raise AttributeError(name)
        return getattr(self.aval, name)

    @staticmethod
    def from_primal_value(val: Any) -> SymbolicZero:
        """The symbolic zero tangent of ``val`` (float0 for integers and booleans)."""
        return SymbolicZero(ad.tangent_aval(core.get_aval(val)))

    def instantiate(self) -> Any:
        return lax_rules.zeros_like_aval(self.aval)

    def __repr__(self) -> str:
        # JAX prints the class name only, not the type.
        return type(self).__name__


@functools.lru_cache(maxsize=512)
def _signature(fun: Callable) -> inspect.Signature | None:
    try:
        return inspect.signature(fun)
    except (TypeError, ValueError):
        return None


def _nondiff_positions(
    fun: Callable, nondiff_argnums: Sequence[int], nondiff_argnames: str | Sequence[str]
) -> tuple[int, ...]:
    """The sorted union of ``nondiff_argnums`` and the positions of the parameters named in
    ``nondiff_argnames``, as JAX computes it: names are looked up among ``fun``'s
    positional-or-keyword parameters (others, and unknown names, are ignored); the rules
    receive the non-differentiable arguments in this order."""
    # JAX skips a falsy value (None, (), even 0) and iterates any other.
    nums = set(nondiff_argnums) if nondiff_argnums else set()
    if nondiff_argnames:
        names = (
            (nondiff_argnames,) if isinstance(nondiff_argnames, str) else tuple(nondiff_argnames)
        )
        for n in names:
            if not isinstance(n, str):
                raise TypeError(f"argument is not a string: {n}")
        sig = _signature.__wrapped__(fun)
        if sig is None:
            # JAX asserts that the signature is inspectable here.
            raise AssertionError(
                f"nondiff_argnames={names}: the signature of {_fun_name(fun)} cannot be "
                "inspected, so names cannot be resolved to positions; use nondiff_argnums"
            )
        nums.update(
            i
            for i, (k, prm) in enumerate(sig.parameters.items())
            if prm.kind == prm.POSITIONAL_OR_KEYWORD and k in names
        )
    return tuple(sorted(nums))


def _resolve_args(
    fun: Callable, name: str, args: tuple, kwargs: dict, what: str | None = None
) -> tuple:
    """Positional arguments for ``fun`` from a call's args and kwargs with defaults applied, so
    that nondiff_argnums and the rules' ``primals`` tuples are positional, as in JAX.
    Keyword-only parameters left at their defaults are not passed (the function's own defaults
    apply). ``what`` (``"custom_jvp"``, ...) gives binding errors JAX's wording for it."""

    def fail(msg: str) -> TypeError:
        if what is None:
            return TypeError(f"{name}: {msg}")
        return TypeError(
            f"The input arguments to the {what}-decorated function {name} could not be "
            f"resolved to positional-only arguments. Binding failed with the error:\n{msg}"
        )

    if isinstance(fun, functools.partial) and what is not None:
        # As in JAX, a partial's signature is opaque: keywords cannot be placed.
        if kwargs:
            raise fail(
                "The following keyword arguments could not be resolved to positions: "
                + ", ".join(kwargs)
            )
        return args
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
        raise fail(str(e)) from None
    ba.apply_defaults()
    passed = [k for k in ba.kwargs if k in kwargs]
    if passed:
        if what is not None:
            raise fail(
                "The following keyword arguments could not be resolved to positions: "
                + ", ".join(passed)
            )
        raise TypeError(
            f"{name}: keyword-only arguments {sorted(passed)} are not supported by custom "
            "derivative functions; pass them positionally"
        )
    return ba.args


def _check_nondiff_range(args: tuple, nondiff_argnums: tuple[int, ...], name: str) -> None:
    """JAX indexes the call's arguments with each nondiff argnum, eagerly too: one past the
    end is an IndexError."""
    n = len(args)
    for i in nondiff_argnums:
        if not -n <= i < n:
            raise IndexError(
                f"{name}: nondiff_argnums={nondiff_argnums} refers to argument {i}, but the "
                f"function was called with {n} positional argument{'s' if n != 1 else ''} "
                "(tuple index out of range)"
            )


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
    # An array spanning processes (GlobalArray: an ``aval``, no ``_value`` in one process) is
    # an operand as it is: np.asarray of it would need the other processes' blocks (jax.nn.relu
    # on such an array, in JAX's multi-controller tutorial).
    if isinstance(x, (core.Tracer, np.ndarray, np.generic)) or hasattr(x, "_value"):
        return x
    if isinstance(getattr(x, "aval", None), core.ShapedArray):
        return x
    if dtypes.is_python_scalar(x):
        return x
    return np.asarray(x)


def _to_value(x: Any, dtype: Any = None) -> Any:
    """A rule's output as an array: Python scalars and NumPy values become concrete arrays
    (of ``dtype`` when given, else weakly typed as usual); arrays and tracers pass through."""
    if isinstance(x, core.Tracer) or hasattr(x, "_value") or lax_refs.is_ref(x):
        return x  # (a Ref a fwd rule returns names one the bwd rule shares with it)
    if dtype is not None:
        return core.make_concrete(np.asarray(x, dtype=dtype), False)
    aval = core.get_aval(x)
    return core.make_concrete(np.asarray(x, dtype=aval.dtype), aval.weak_type)


def _arg_aval(x: Any, name: str) -> ShapedArray:
    try:
        aval = core.get_aval(_as_operand(x))
        if np.dtype(aval.dtype).kind in "USO":  # strings become NumPy arrays, not JAX values
            raise TypeError
        return aval
    except TypeError:
        raise TypeError(
            f"Argument '{x}' of type {type(x)} is not a valid JAX type: {name}: arguments that "
            "are differentiated must be arrays or pytrees of arrays; mark this one with "
            "nondiff_argnums or nondiff_argnames"
        ) from None


def _check_operands(args: tuple, nondiff_argnums: tuple[int, ...], name: str, what: str):
    """JAX checks the differentiable arguments' leaves are arrays eagerly too (a TypeError)."""
    for i, a in enumerate(args):
        if i not in nondiff_argnums and i - len(args) not in nondiff_argnums:
            for leaf in tu.tree_leaves(a):
                _arg_aval(leaf, f"{what} function {name}")


def _trace_closed(
    flat_fun: Callable, in_avals: Sequence[ShapedArray], name: str, like: Sequence[Any] = ()
):
    """Trace ``flat_fun`` to a jaxpr with no consts: closed-over values become leading invars.
    ``like``: the values the arguments stand for; the arguments take their shardings in types
    (Explicit mesh axes), as JAX traces such bodies with their operands' types.

    Returns ``(closed_jaxpr, consts)``; call the jaxpr with ``*consts, *args``.
    """
    debug = pe.DebugInfo("custom derivative", name, None)
    closed = pe.trace_to_jaxpr(flat_fun, in_avals, debug, types_of(like) if like else None)
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

    closed = pe.trace_to_jaxpr(flat, [core.get_aval(x) for x in inputs], None, types_of(inputs))
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


def _batch_jaxpr_out0(
    closed: ClosedJaxpr, axis_data, in_dims, vals: Sequence[Any] = ()
) -> tuple[ClosedJaxpr, list]:
    """``closed`` batched along ``in_dims`` with every output batched at dimension 0 (the
    batched user rules are made to agree with that); consts hoisted to leading invars. The
    batched operands ``vals`` give its inputs their shardings in types."""
    shardings = types_of(vals) if vals else None
    batched, out_dims = batching.batch_jaxpr(closed, axis_data, in_dims, shardings)
    if any(d != 0 for d in out_dims):
        size = axis_data.size

        def forced(*args):
            outs = core.eval_jaxpr(batched.jaxpr, batched.consts, *args)
            return [lax_rules.bdim_to(o, d, 0, size) for o, d in zip(outs, out_dims)]

        batched = pe.trace_to_jaxpr(forced, batched.in_avals, None, shardings)
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


__all__ = [
    "SymbolicZero",
]


class _Primal:
    """A custom-derivative function's call, traced: its flat operands, the primal jaxpr and
    what the rules need to rebuild the user's argument structure."""

    __slots__ = (
        "n",
        "nums",
        "by_pos",
        "nondiff",
        "leaves",
        "in_tree",
        "in_avals",
        "jaxpr",
        "consts",
        "out_tree",
    )


def _trace_primal(fun: Callable, args: tuple, nondiff_argnums: tuple, name: str, what: str):
    """Split off the non-differentiable arguments, flatten the rest and trace ``fun`` on them
    (shared by custom_jvp and custom_vjp)."""
    p = _Primal()
    p.nondiff, dyn, p.nums = _split_nondiff(args, nondiff_argnums, name)
    p.n = len(args)
    p.by_pos = {i % p.n: v for i, v in zip(nondiff_argnums, p.nondiff)}
    leaves, p.in_tree = tu.tree_flatten(dyn)
    p.leaves = [_as_operand(x) for x in leaves]
    p.in_avals = [_arg_aval(x, f"{what} function {name}") for x in p.leaves]
    out_box: list = []

    def flat_fun(*flat):
        out = fun(*_merge_args(p.n, p.nums, p.by_pos, tu.tree_unflatten(p.in_tree, flat)))
        out_leaves, out_tree = tu.tree_flatten(out)
        out_box.append(out_tree)
        return out_leaves

    p.jaxpr, p.consts = _trace_closed(flat_fun, p.in_avals, name, p.leaves)
    p.out_tree = out_box[0]
    return p
