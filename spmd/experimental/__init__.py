"""spmd.experimental: older entry points kept for programs written against them, and
``io_callback``."""

from spmd._src.lax.io_callback import io_callback
from spmd.experimental import compilation_cache, mesh_utils, multihost_utils, shard_map  # noqa: F401

__all__ = ["io_callback"]
