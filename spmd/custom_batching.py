"""Custom batching rules (``jax.custom_batching``): ``custom_vmap`` and ``sequential_vmap``."""

from spmd._src.custom_batching import custom_vmap, sequential_vmap

__all__ = ["custom_vmap", "sequential_vmap"]
