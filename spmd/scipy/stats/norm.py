"""spmd.scipy.stats.norm. Re-exports only."""

from spmd._src.scipy.stats.norm import *  # noqa: F401,F403
