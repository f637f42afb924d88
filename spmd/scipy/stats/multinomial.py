"""spmd.scipy.stats.multinomial. Re-exports only."""

from spmd._src.scipy.stats.multinomial import *  # noqa: F401,F403
