"""spmd.scipy.special: special functions. Re-exports only."""

from spmd._src.scipy.special import *  # noqa: F401,F403
