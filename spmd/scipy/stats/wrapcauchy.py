"""spmd.scipy.stats.wrapcauchy. Re-exports only."""

from spmd._src.scipy.stats.wrapcauchy import *  # noqa: F401,F403
