"""spmd.lax: the primitives (``from spmd import lax``). Re-exports only."""

from spmd._src.lax.accuracy import *  # noqa: F401,F403
from spmd._src.lax.approx_top_k import *  # noqa: F401,F403
from spmd._src.lax.control_flow import *  # noqa: F401,F403
from spmd._src.lax.convolution import *  # noqa: F401,F403
from spmd._src.lax.convolution_more import *  # noqa: F401,F403
from spmd._src.lax.copies import *  # noqa: F401,F403
from spmd._src.lax.dot import *  # noqa: F401,F403
from spmd._src.lax.dot_algorithms import *  # noqa: F401,F403
from spmd._src.lax.elementwise.arithmetic import *  # noqa: F401,F403
from spmd._src.lax.elementwise.bitwise import *  # noqa: F401,F403
from spmd._src.lax.elementwise.conversion import *  # noqa: F401,F403
from spmd._src.lax.elementwise.selection import *  # noqa: F401,F403
from spmd._src.lax.elementwise.transcendental import *  # noqa: F401,F403
from spmd._src.lax.fft import FftType, fft, fft_p  # noqa: F401
from spmd._src.lax.generic_reductions import *  # noqa: F401,F403
from spmd._src.lax.indexing.common import *  # noqa: F401,F403
from spmd._src.lax.indexing.gathering import *  # noqa: F401,F403
from spmd._src.lax.indexing.scattering import *  # noqa: F401,F403
from spmd._src.lax.indexing.slicing import *  # noqa: F401,F403
from spmd._src.lax.misc_more import *  # noqa: F401,F403
from spmd._src.lax.misc_ops import *  # noqa: F401,F403
from spmd._src.lax.padding import *  # noqa: F401,F403
from spmd._src.lax.parallel import *  # noqa: F401,F403
from spmd._src.lax.ragged_dot import *  # noqa: F401,F403
from spmd._src.lax.reductions import *  # noqa: F401,F403
from spmd._src.lax.rng_bit_generator import *  # noqa: F401,F403
from spmd._src.lax.scaled_dot import *  # noqa: F401,F403
from spmd._src.lax.shape import *  # noqa: F401,F403
from spmd._src.lax.sharding import *  # noqa: F401,F403
from spmd._src.lax.sharding import sharding_constraint_p  # noqa: F401
from spmd._src.lax.sorting import *  # noqa: F401,F403
from spmd._src.lax.special import *  # noqa: F401,F403
from spmd._src.lax.tokens import *  # noqa: F401,F403
from spmd._src.lax.windowed_reductions import *  # noqa: F401,F403
from spmd.lax import linalg  # noqa: E402,F401  (jax.lax.linalg after a bare import)
