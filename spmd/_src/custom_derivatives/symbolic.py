"""Helpers for rules written with ``symbolic_zeros=True``: ``zero_from_primal`` (the zero
tangent of a primal, concrete or as a ``SymbolicZero``) and ``custom_vjp_primal_tree_values``
(the values carried by the ``CustomVJPPrimal`` records a ``fwd`` rule receives).

>>> import spmd.numpy as jnp
>>> from spmd.custom_derivatives import zero_from_primal
>>> zero_from_primal(jnp.ones(2))
Array([0., 0.], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src import tree_util as tu
from spmd._src.custom_derivatives.common import SymbolicZero
from spmd._src.custom_derivatives.vjp import CustomVJPPrimal
from spmd._src.interpreters import ad
from spmd._src.lax import rules as lax_rules
from spmd._src.lax import shape as lax_shape


def _zeros(aval: core.ShapedArray) -> Any:
    # zeros_like_aval makes strongly typed zeros; a weakly typed primal's zero stays weak, as
    # in JAX (a Python scalar zero fills it: weak floats and complexes have the default dtype).
    if aval.weak_type and dtypes.issubdtype(aval.dtype, np.inexact):
        fill = 0j if dtypes.issubdtype(aval.dtype, np.complexfloating) else 0.0
        z = lax_shape.full(aval.shape, fill)
        if core.get_aval(z).dtype == aval.dtype:
            return z
    return lax_rules.zeros_like_aval(aval)


def zero_from_primal(val: Any, symbolic_zeros: bool = False) -> Any:
    """The zero tangent of each leaf of ``val``: of the leaf's tangent type (float0 for
    integers and booleans, weak types kept), as a concrete array or, with
    ``symbolic_zeros=True``, as a ``SymbolicZero``."""

    def zero(x):
        if not core.valid_jaxtype(x):
            raise TypeError(f"Argument {x!r} of type {type(x)} is not a valid JAX type")
        aval = ad.tangent_aval(core.get_aval(x))
        return SymbolicZero(aval) if symbolic_zeros else _zeros(aval)

    return tu.tree_map(zero, val)


def custom_vjp_primal_tree_values(tree: Any) -> Any:
    """``tree`` with each ``CustomVJPPrimal`` leaf (what a ``fwd`` rule defined with
    ``symbolic_zeros=True`` receives) replaced by the primal value it carries."""

    def value(leaf):
        if not isinstance(leaf, CustomVJPPrimal):
            raise TypeError(f"unexpected leaf type {type(leaf)}")
        return leaf.value

    return tu.tree_map(value, tree)


__all__ = [
    "custom_vjp_primal_tree_values",
    "zero_from_primal",
]
