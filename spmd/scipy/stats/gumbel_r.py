"""spmd.scipy.stats.gumbel_r. Re-exports only."""

from spmd._src.scipy.stats.gumbel_r import *  # noqa: F401,F403
