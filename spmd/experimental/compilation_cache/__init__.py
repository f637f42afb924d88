"""spmd.experimental.compilation_cache: JAX's persistent compilation cache API (see
``compilation_cache``)."""

from spmd.experimental.compilation_cache import compilation_cache  # noqa: F401
