"""spmd.scipy.stats.chi2. Re-exports only."""

from spmd._src.scipy.stats.chi2 import *  # noqa: F401,F403
