"""spmd.scipy.stats.nbinom. Re-exports only."""

from spmd._src.scipy.stats.nbinom import *  # noqa: F401,F403
