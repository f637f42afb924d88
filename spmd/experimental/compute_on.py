"""Placing computations on compute units, under JAX's ``jax.experimental.compute_on`` name."""

from spmd._src.compute_on import compute_on

__all__ = ["compute_on"]
