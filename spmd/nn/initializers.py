"""spmd.nn.initializers: parameter initializers. Re-exports only."""

from spmd._src.nn.initializers import *  # noqa: F401,F403
