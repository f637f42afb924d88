"""spmd.scipy.stats.uniform. Re-exports only."""

from spmd._src.scipy.stats.uniform import *  # noqa: F401,F403
