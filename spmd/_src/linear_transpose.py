"""``linear_transpose``: the transpose of a linear function, as a function of output cotangents.

The function is traced once, at the types of the example primals, with every input unknown:
work that does not depend on the inputs (constants, closed-over values) is done at once on the
enclosing trace, and the rest is recorded as a jaxpr that must be linear in its inputs. The
returned function runs ``backward_pass`` over that jaxpr. It is a ``Partial`` holding the
constants, so it can be passed to and returned from jit like JAX's.

>>> f_t = spmd.linear_transpose(lambda x: 3.0 * x, 1.0)
>>> f_t(2.0)
(Array(6., dtype=float32, weak_type=True),)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src import tree_util as tu
from spmd._src.interpreters import ad
from spmd._src.interpreters import partial_eval as pe


def _example_aval(x: Any) -> core.ShapedArray:
    """The type of an example primal: an array, a tracer, a scalar or a ShapeDtypeStruct."""
    from spmd._src.api import ShapeDtypeStruct  # lazy: api imports the transformations

    if isinstance(x, ShapeDtypeStruct):
        return core.ShapedArray(x.shape, x.dtype, x.weak_type)
    return core.get_aval(x)


def _kind(dt: np.dtype) -> str | None:
    if dtypes.issubdtype(dt, np.inexact):
        return "inexact"
    if dtypes.issubdtype(dt, np.integer):
        return "integer"
    return None


def _check_dtypes(in_avals: list, out_avals: list) -> None:
    # Transposition is defined over one field: floats/complex to floats/complex (reals and
    # complexes mix, as in JAX), or integers to integers.
    in_dts = [a.dtype for a in in_avals]
    out_dts = [a.dtype for a in out_avals]
    kinds = {_kind(d) for d in in_dts + out_dts}
    if None in kinds or len(kinds) > 1:
        raise TypeError(
            "linear_transpose only supports [float or complex] -> [float or complex], and "
            f"integer -> integer functions, but got {in_dts} -> {out_dts}."
        )


# Primitives that are linear in each operand but not in both at once (a product of two inputs).
_BILINEAR = frozenset({"mul", "dot_general", "conv_general_dilated"})


def _check_linear(fun: Callable, jaxpr: core.Jaxpr) -> None:
    """Reject a product of two values that both depend on the inputs before transposing (the
    transpose rules assume one operand is known). JAX fails here with an AssertionError."""
    linear = {id(v) for v in jaxpr.invars}
    for eqn in jaxpr.eqns:
        lin = [type(a) is core.Var and id(a) in linear for a in eqn.invars]
        if not any(lin):
            continue
        if eqn.primitive.name in _BILINEAR and all(lin):
            raise AssertionError(
                f"linear_transpose: {getattr(fun, '__name__', fun)} is not linear in its "
                f"inputs: '{eqn.primitive.name}' multiplies two values that both depend on them"
            )
        linear.update(id(v) for v in eqn.outvars)


def linear_transpose(fun: Callable, *primals: Any, reduce_axes: tuple = ()) -> Callable:
    """The transpose of the linear function ``fun``, traced at the types of ``primals``.

    The result maps a cotangent shaped like ``fun``'s output to a tuple of cotangents, one per
    primal. ``fun`` must be linear in its inputs (a primitive without a transpose rule, such as
    ``sin``, raises NotImplementedError when the transpose is called).
    """
    if reduce_axes:
        raise NotImplementedError("reduce_axes argument to transpose is deprecated")
    leaves, in_tree = tu.tree_flatten(primals)
    in_avals = [_example_aval(x) for x in leaves]
    trace = pe.JaxprTrace(known_trace=core.trace_ctx.trace)
    args = [trace.new_arg(a) for a in in_avals]
    with core.set_current_trace(trace):
        out = fun(*tu.tree_unflatten(in_tree, args))
    out_leaves, out_tree = tu.tree_flatten(out)
    out_avals = [core.get_aval(o) for o in out_leaves]
    _check_dtypes(in_avals, out_avals)
    closed = trace.to_jaxpr(out_leaves)
    jaxpr = pe.dce_jaxpr(closed.jaxpr)

    def transposed_fun(consts, out_cotangent):
        ct_leaves, ct_tree = tu.tree_flatten(out_cotangent)
        if ct_tree != out_tree:
            raise TypeError(
                "cotangent tree does not match function output, expected "
                f"{out_tree} but got {ct_tree}"
            )
        for c, a in zip(ct_leaves, out_avals):
            try:
                ca = core.get_aval(c)
            except TypeError:
                ca = None
            if ca is None or ca.shape != a.shape or ca.dtype != a.dtype:
                raise TypeError(
                    "cotangent type does not match function output, expected "
                    f"{tuple(out_avals)} but got {ct_leaves}"
                )
        _check_linear(fun, jaxpr)  # when called, as JAX fails
        cts = ad.backward_pass(jaxpr, consts, ct_leaves)
        # Inputs no output depends on get zeros of their own type (a weak type included).
        cts = [
            core.make_concrete(np.zeros(a.shape, a.dtype), a.weak_type) if type(c) is ad.Zero else c
            for c, a in zip(cts, in_avals)
        ]
        return tuple(tu.tree_unflatten(in_tree, cts))

    return tu.Partial(transposed_fun, tuple(closed.consts))


__all__ = ["linear_transpose"]
