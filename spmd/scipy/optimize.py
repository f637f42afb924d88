"""spmd.scipy.optimize: ``minimize`` (BFGS, experimental L-BFGS) and ``OptimizeResults``
(``jax.scipy.optimize``). Re-exports only."""

from spmd._src.scipy.optimize import *  # noqa: F401,F403
