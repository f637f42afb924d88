"""spmd.scipy.stats.betabinom. Re-exports only."""

from spmd._src.scipy.stats.betabinom import *  # noqa: F401,F403
