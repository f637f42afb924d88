"""spmd.scipy.stats.t. Re-exports only."""

from spmd._src.scipy.stats.t import *  # noqa: F401,F403
