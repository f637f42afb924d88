"""JAX's persistent compilation cache API. spmd compiles a jaxpr into Python source in
microseconds and keeps programs in memory only, so there is nothing to persist: the directory
is recorded (``jax_compilation_cache_dir``) and no file is written."""

from __future__ import annotations

from spmd._src.config import config


def set_cache_dir(path) -> None:
    """Record ``path`` as the cache directory (``jax_compilation_cache_dir``)."""
    config.update("jax_compilation_cache_dir", None if path is None else str(path))


def reset_cache() -> None:
    """Forget the cache directory."""
    config.update("jax_compilation_cache_dir", None)


__all__ = ["reset_cache", "set_cache_dir"]
