"""spmd.scipy.stats.poisson. Re-exports only."""

from spmd._src.scipy.stats.poisson import *  # noqa: F401,F403
