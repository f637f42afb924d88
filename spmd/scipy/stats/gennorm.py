"""spmd.scipy.stats.gennorm. Re-exports only."""

from spmd._src.scipy.stats.gennorm import *  # noqa: F401,F403
