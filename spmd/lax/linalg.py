"""spmd.lax.linalg: linear-algebra primitives (``from spmd.lax import linalg``). Re-exports only."""

from spmd._src.lax.linalg import *  # noqa: F401,F403
