"""spmd.scipy.fft: the discrete cosine transform (``jax.scipy.fft``). Re-exports only."""

from spmd._src.scipy.fft import *  # noqa: F401,F403
