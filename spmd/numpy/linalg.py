"""spmd.numpy.linalg: linear algebra functions (``jnp.linalg``). Re-exports only."""

from spmd._src.numpy.linalg import (  # noqa: F401
    cholesky,
    det,
    eigh,
    eigvalsh,
    inv,
    matrix_norm,
    multi_dot,
    norm,
    qr,
    slogdet,
    solve,
    svd,
    svdvals,
    vector_norm,
)
from spmd._src.numpy.linalg import linalg_cross as cross  # noqa: F401
from spmd._src.numpy.linalg import linalg_matmul as matmul  # noqa: F401
from spmd._src.numpy.linalg import linalg_outer as outer  # noqa: F401
from spmd._src.numpy.linalg import linalg_tensordot as tensordot  # noqa: F401
from spmd._src.numpy.products import matrix_transpose, vecdot  # noqa: F401
