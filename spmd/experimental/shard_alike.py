"""Placing two values alike, under JAX's ``jax.experimental.shard_alike`` name."""

from spmd._src.shard_alike import shard_alike

__all__ = ["shard_alike"]
