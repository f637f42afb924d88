"""spmd.scipy.stats.geom. Re-exports only."""

from spmd._src.scipy.stats.geom import *  # noqa: F401,F403
