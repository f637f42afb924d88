"""spmd.scipy.stats.binom. Re-exports only."""

from spmd._src.scipy.stats.binom import *  # noqa: F401,F403
