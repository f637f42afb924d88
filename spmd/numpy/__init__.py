"""spmd.numpy: NumPy's API on spmd arrays (``import spmd.numpy as jnp``). Re-exports only."""

from spmd._src.dtypes import (  # noqa: F401
    bfloat16,
    bool_,
    complex64,
    complex128,
    float0,
    float8_e4m3fn,
    float8_e5m2,
    float16,
    float32,
    float64,
    int4,
    int8,
    int16,
    int32,
    int64,
    uint4,
    uint8,
    uint16,
    uint32,
    uint64,
)
from spmd._src.array import Array as ndarray  # noqa: F401
from spmd._src.numpy.ufuncs import *  # noqa: F401,F403
from spmd._src.numpy.lax_numpy import *  # noqa: F401,F403
from spmd._src.numpy.reductions import *  # noqa: F401,F403
from spmd._src.numpy.sorting import *  # noqa: F401,F403
from spmd._src.numpy.indexing import *  # noqa: F401,F403
from spmd._src.numpy.linalg import *  # noqa: F401,F403
from spmd.numpy import linalg  # noqa: F401,E402
