"""spmd.scipy.stats.gumbel_l. Re-exports only."""

from spmd._src.scipy.stats.gumbel_l import *  # noqa: F401,F403
