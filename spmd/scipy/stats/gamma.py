"""spmd.scipy.stats.gamma. Re-exports only."""

from spmd._src.scipy.stats.gamma import *  # noqa: F401,F403
