"""spmd.scipy.ndimage: ``map_coordinates`` (``jax.scipy.ndimage``). Re-exports only."""

from spmd._src.scipy.ndimage import *  # noqa: F401,F403
