"""spmd.scipy.integrate: ``trapezoid`` (``jax.scipy.integrate``). Re-exports only."""

from spmd._src.scipy.integrate import *  # noqa: F401,F403
