"""spmd.lax.linalg: linear-algebra primitives (``from spmd.lax import linalg``). Re-exports only."""

from spmd._src.lax.linalg import *  # noqa: F401,F403
from spmd._src.lax.linalg_lu_schur import lu, lu_p  # noqa: F401
