"""spmd.experimental: older entry points kept for programs written against them, and
``io_callback``."""

from spmd._src.lax.io_callback import io_callback
from spmd.experimental import (  # noqa: F401
    checkify,
    compilation_cache,
    mesh_utils,
    multihost_utils,
    shard_map,
)

__all__ = ["io_callback"]
