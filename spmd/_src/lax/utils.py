"""Helpers that make the common primitive a one-liner.

``standard_primitive(name, shape_rule, dtype_rule, impl)`` builds a primitive whose abstract
evaluation is a shape rule and a dtype rule (plus weak-type propagation), the way most lax
primitives are defined. ``unop``/``binop`` are the elementwise cases.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src.core import ShapedArray

# ---------------------------------------------------------------------------------------------
# dtype classes accepted by elementwise primitives


_KINDS: dict[np.dtype, str] = {}


def _kind(dt: np.dtype) -> str:
    k = _KINDS.get(dt)
    if k is None:
        k = _KINDS[dt] = _kind_uncached(dt)
    return k


def _kind_uncached(dt: np.dtype) -> str:
    if dt == np.bool_:
        return "bool"
    if dtypes.issubdtype(dt, np.complexfloating):
        return "complex"
    if dtypes.issubdtype(dt, np.floating):
        return "float"
    if dtypes.issubdtype(dt, np.unsignedinteger):
        return "uint"
    if dtypes.issubdtype(dt, np.integer):
        return "int"
    return "other"


_float = frozenset({"float"})
_complex = frozenset({"complex"})
_int = frozenset({"int", "uint"})
_bool = frozenset({"bool"})
float_dtypes = _float
inexact = _float | _complex
integer = _int
numeric = _int | _float | _complex
any_dtype = _int | _float | _complex | _bool
bool_or_int = _int | _bool
float_or_int = _int | _float

_KIND_NAMES = {
    float_dtypes: "floating-point",
    inexact: "floating-point or complex",
    integer: "integer",
    numeric: "numeric",
    any_dtype: "any",
    bool_or_int: "boolean or integer",
    float_or_int: "floating-point or integer",
}


def check_dtype_kind(name: str, accepted: frozenset, *avals: ShapedArray) -> None:
    for a in avals:
        if _kind(a.dtype) not in accepted:
            raise TypeError(
                f"{name} does not accept dtype {a.dtype.name}. Accepted dtypes are subtypes "
                f"of {_KIND_NAMES.get(accepted, sorted(accepted))}."
            )


# ---------------------------------------------------------------------------------------------
# Building primitives


def standard_primitive(
    name: str,
    shape_rule: Callable[..., tuple[int, ...]],
    dtype_rule: Callable[..., Any],
    impl: Callable,
    weak_type_rule: Callable[..., bool] | None = None,
) -> core.Primitive:
    """A primitive whose abstract eval is ``ShapedArray(shape_rule(...), dtype_rule(...))``."""
    prim = core.Primitive(name)
    weak = weak_type_rule or _weak_if_all_weak

    def abstract_eval(*avals, **params):
        shape = shape_rule(*avals, **params)
        dtype = dtype_rule(*avals, **params)
        return ShapedArray(shape, dtype, weak(*avals, **params))

    prim.def_abstract_eval(abstract_eval)
    prim.def_impl(impl)
    return prim


def _weak_if_all_weak(*avals, **params) -> bool:
    return bool(avals) and all(a.weak_type for a in avals)


def never_weak(*avals, **params) -> bool:
    return False


def broadcasting_shape(name: str, *shapes: Sequence[int]) -> tuple[int, ...]:
    """The shape rule of lax's n-ary elementwise primitives.

    Operands have equal shapes, except that rank-0 operands and (at equal rank) size-1
    dimensions broadcast; anything else is a TypeError naming the primitive and the shapes.
    """
    nonscalar = [s for s in shapes if len(s)]
    if not nonscalar:
        return ()
    rank = len(nonscalar[0])
    if any(len(s) != rank for s in nonscalar):
        raise TypeError(
            f"{name}: arrays must have the same rank (or be scalars), got shapes "
            + ", ".join(str(tuple(s)) for s in shapes)
            + "."
        )
    out = []
    for dims in zip(*nonscalar):
        big = {d for d in dims if d != 1}
        if len(big) > 1:
            raise TypeError(
                f"{name} got incompatible shapes for broadcasting: "
                + ", ".join(str(tuple(s)) for s in shapes)
                + "."
            )
        out.append(big.pop() if big else 1)
    return tuple(out)


def same_dtypes(name: str, *avals: ShapedArray) -> np.dtype:
    dts = {a.dtype for a in avals}
    if len(dts) > 1:
        raise TypeError(
            f"lax.{name} requires arguments to have the same dtypes, got "
            + ", ".join(a.dtype.name for a in avals)
            + ". (Use jnp functions for implicit type promotion, or convert_element_type.)"
        )
    return avals[0].dtype


def unop(name: str, impl: Callable, accepted: frozenset) -> core.Primitive:
    """An elementwise primitive of one operand whose result has the operand's type."""

    def shape_rule(x):
        return x.shape

    def dtype_rule(x):
        check_dtype_kind(name, accepted, x)
        return x.dtype

    return standard_primitive(name, shape_rule, dtype_rule, impl)


def scalar_as_row(ufunc: np.ufunc) -> Callable:
    """A ``typed_impl`` for a binary ufunc whose NumPy loop is slow against a rank-0 operand.

    ``np.maximum(x, 0.0)`` (ReLU) takes three times as long as ``np.maximum`` against a
    contiguous operand of zeros: NumPy's SIMD loops for max and min cover two contiguous
    operands, not a scalar. Spreading the scalar into a row gives the same values (the same
    elementwise function of the same operands, in the same order), only faster. The row is
    the other operand's last dimension, or, when that operand is contiguous, a few thousand
    elements of it at a time (a row that stays in L1 cache, read once per a few thousand
    results rather than once per last dimension).
    """

    def typed(avals, **_):
        x, y = avals
        big = y if x.ndim == 0 else x if y.ndim == 0 else None
        if big is None or big.ndim == 0 or big.size < 4096 or big.dtype.kind not in "fiu":
            return ufunc
        dt, last = big.dtype, big.shape[-1]
        wide = next((w for w in (8192, 4096, 2048, 1024) if big.size % w == 0 and w > last), 0)
        if not wide and last < 256:
            return ufunc
        scalar_first = x.ndim == 0

        def kernel(a, b, out=None):
            arr, s = (b, a) if scalar_first else (a, b)
            if wide and arr.flags.c_contiguous and (out is None or out.flags.c_contiguous):
                w, view, out_view = wide, arr.reshape(-1, wide), None
                if out is not None:
                    out_view = out.reshape(-1, wide)
            else:
                w, view, out_view = last, arr, out
            row = np.full(w, s, dt)
            r = ufunc(row, view, out=out_view) if scalar_first else ufunc(view, row, out=out_view)
            return out if out is not None else r.reshape(arr.shape)

        return kernel

    return typed


def binop(
    name: str,
    impl: Callable,
    accepted: frozenset,
    *,
    result_dtype: Any = None,
    nary: int = 2,
) -> core.Primitive:
    """An elementwise primitive of operands of one dtype (``result_dtype`` overrides the
    result's dtype, e.g. bool for comparisons)."""

    def shape_rule(*avals):
        return broadcasting_shape(name, *(a.shape for a in avals))

    def dtype_rule(*avals):
        check_dtype_kind(name, accepted, *avals)
        dt = same_dtypes(name, *avals)
        return np.dtype(result_dtype) if result_dtype is not None else dt

    # Comparisons keep weak types too: JAX gives a weak bool when both operands are weak.
    weak = None
    return standard_primitive(name, shape_rule, dtype_rule, impl, weak_type_rule=weak)


class PrintedAs:
    """A parameter value printed as given text."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def pp_sharding(sharding: Any) -> Any:
    """A sharding parameter as JAX's jaxprs print it: a NamedSharding on its abstract mesh
    (no memory kind), the spec as given."""
    mesh = getattr(sharding, "mesh", None)
    if mesh is not None and hasattr(mesh, "abstract_mesh") and hasattr(sharding, "spec"):
        return PrintedAs(f"NamedSharding(mesh={mesh.abstract_mesh!r}, spec={sharding.spec})")
    return sharding
