"""spmd.numpy.linalg: linear algebra functions (``jnp.linalg``). Re-exports only."""

from spmd._src.numpy.linalg import (  # noqa: F401
    cholesky,
    cond,
    det,
    diagonal,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    inv,
    lstsq,
    matrix_norm,
    matrix_power,
    matrix_rank,
    multi_dot,
    norm,
    pinv,
    qr,
    slogdet,
    solve,
    svd,
    svdvals,
    tensorinv,
    tensorsolve,
    trace,
    vector_norm,
)
from spmd._src.numpy.linalg import linalg_cross as cross  # noqa: F401
from spmd._src.numpy.linalg import linalg_matmul as matmul  # noqa: F401
from spmd._src.numpy.linalg import linalg_outer as outer  # noqa: F401
from spmd._src.numpy.linalg import linalg_tensordot as tensordot  # noqa: F401
from spmd._src.numpy.products import matrix_transpose, vecdot  # noqa: F401
