"""spmd.scipy.signal: convolutions, detrending and spectral estimates (``jax.scipy.signal``).
Re-exports only."""

from spmd._src.scipy.signal import *  # noqa: F401,F403
from spmd._src.scipy.signal_spectral import *  # noqa: F401,F403
