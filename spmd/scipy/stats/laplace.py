"""spmd.scipy.stats.laplace. Re-exports only."""

from spmd._src.scipy.stats.laplace import *  # noqa: F401,F403
