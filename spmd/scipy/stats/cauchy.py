"""spmd.scipy.stats.cauchy. Re-exports only."""

from spmd._src.scipy.stats.cauchy import *  # noqa: F401,F403
