"""spmd.nn: neural-network functions and initializers (``from spmd import nn``). Re-exports
only."""

from spmd._src.nn.attention import dot_product_attention  # noqa: F401
from spmd._src.nn.functions import *  # noqa: F401,F403
from spmd._src.nn.scaled_matmul import *  # noqa: F401,F403
from spmd.nn import initializers  # noqa: F401,E402
