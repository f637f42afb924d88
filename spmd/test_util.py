"""Derivative checks for tests, under JAX's ``jax.test_util`` names (re-exports)."""

from spmd._src.test_util import check_grads, check_jvp, check_vjp

__all__ = ["check_grads", "check_jvp", "check_vjp"]
