"""spmd.scipy.stats.logistic. Re-exports only."""

from spmd._src.scipy.stats.logistic import *  # noqa: F401,F403
