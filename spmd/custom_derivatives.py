"""Custom differentiation rules (``jax.custom_derivatives``): ``custom_jvp``, ``custom_vjp``,
``custom_gradient``, ``closure_convert``, the helpers of rules written with
``symbolic_zeros=True`` (``SymbolicZero``, ``CustomVJPPrimal``, ``zero_from_primal``,
``custom_vjp_primal_tree_values``), ``linear_call`` (a linear
function with a user-given transpose) and the primitives the decorated functions are traced to."""

from spmd._src.custom_derivatives import (
    CustomVJPPrimal,
    SymbolicZero,
    custom_jvp,
    custom_jvp_call_p,
    custom_vjp,
    custom_vjp_call_p,
    custom_vjp_primal_tree_values,
    linear_call,
    zero_from_primal,
)
from spmd._src.custom_derivatives.gradient import closure_convert, custom_gradient

__all__ = [
    "CustomVJPPrimal",
    "SymbolicZero",
    "closure_convert",
    "custom_gradient",
    "custom_jvp",
    "custom_jvp_call_p",
    "custom_vjp",
    "custom_vjp_call_p",
    "custom_vjp_primal_tree_values",
    "linear_call",
    "zero_from_primal",
]
