"""spmd.lax: the primitives (``from spmd import lax``). Re-exports only."""

from spmd._src.lax.convolution import *  # noqa: F401,F403
from spmd._src.lax.dot import *  # noqa: F401,F403
from spmd._src.lax.elementwise import *  # noqa: F401,F403
from spmd._src.lax.elementwise import RoundingMethod, round  # noqa: F401
from spmd._src.lax.indexing import *  # noqa: F401,F403
from spmd._src.lax.reductions import *  # noqa: F401,F403
from spmd._src.lax.shape import *  # noqa: F401,F403
from spmd._src.lax.sorting import *  # noqa: F401,F403
from spmd._src.lax.sharding import *  # noqa: F401,F403
