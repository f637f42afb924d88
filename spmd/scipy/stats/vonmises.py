"""spmd.scipy.stats.vonmises. Re-exports only."""

from spmd._src.scipy.stats.vonmises import *  # noqa: F401,F403
