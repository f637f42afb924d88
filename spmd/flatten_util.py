"""Flattening pytrees into one vector, under JAX's ``jax.flatten_util`` name."""

from spmd._src.flatten_util import ravel_pytree

__all__ = ["ravel_pytree"]
