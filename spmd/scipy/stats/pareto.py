"""spmd.scipy.stats.pareto. Re-exports only."""

from spmd._src.scipy.stats.pareto import *  # noqa: F401,F403
