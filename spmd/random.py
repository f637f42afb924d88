"""spmd.random: JAX's threefry pseudo-random numbers (``from spmd import random``).

Re-exports only; the implementation lives in ``spmd._src.random``.
"""

from spmd._src.random import (  # noqa: F401
    PRNGKey,
    bernoulli,
    bits,
    categorical,
    choice,
    clone,
    exponential,
    fold_in,
    gumbel,
    key,
    key_data,
    key_dtype,
    key_impl,
    laplace,
    logistic,
    normal,
    permutation,
    rademacher,
    randint,
    split,
    truncated_normal,
    uniform,
    wrap_key_data,
)
from spmd._src.random_counting import *  # noqa: F401,F403,E402
from spmd._src.random_gamma import *  # noqa: F401,F403,E402
from spmd._src.random_keys import KeyDtype, PRNGKeyArray  # noqa: F401,E402
from spmd._src.random_more import *  # noqa: F401,F403,E402
