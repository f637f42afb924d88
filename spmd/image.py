"""spmd.image: image resampling (``jax.image``). Re-exports only."""

from spmd._src.image import ResizeMethod, resize, scale_and_translate  # noqa: F401
