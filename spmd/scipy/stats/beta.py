"""spmd.scipy.stats.beta. Re-exports only."""

from spmd._src.scipy.stats.beta import *  # noqa: F401,F403
