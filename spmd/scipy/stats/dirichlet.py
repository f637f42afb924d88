"""spmd.scipy.stats.dirichlet. Re-exports only."""

from spmd._src.scipy.stats.dirichlet import *  # noqa: F401,F403
