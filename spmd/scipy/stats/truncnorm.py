"""spmd.scipy.stats.truncnorm. Re-exports only."""

from spmd._src.scipy.stats.truncnorm import *  # noqa: F401,F403
