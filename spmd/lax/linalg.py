"""spmd.lax.linalg: linear-algebra primitives (``from spmd.lax import linalg``). Re-exports only."""

from spmd._src.lax.linalg import *  # noqa: F401,F403
from spmd._src.lax.linalg_lu_schur import hessenberg_p, lu, lu_p, schur_p  # noqa: F401
from spmd._src.lax.linalg_more import *  # noqa: F401,F403
