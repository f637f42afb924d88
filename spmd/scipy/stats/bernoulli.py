"""spmd.scipy.stats.bernoulli. Re-exports only."""

from spmd._src.scipy.stats.bernoulli import *  # noqa: F401,F403
