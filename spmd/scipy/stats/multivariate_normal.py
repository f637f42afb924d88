"""spmd.scipy.stats.multivariate_normal. Re-exports only."""

from spmd._src.scipy.stats.multivariate_normal import *  # noqa: F401,F403
