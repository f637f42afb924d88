"""spmd.scipy.stats.expon. Re-exports only."""

from spmd._src.scipy.stats.expon import *  # noqa: F401,F403
