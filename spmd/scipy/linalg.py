"""spmd.scipy.linalg: SciPy's linear algebra on spmd arrays (as ``jax.scipy.linalg``).
Re-exports only."""

from spmd._src.scipy.linalg import (  # noqa: F401
    cho_factor,
    cho_solve,
    cholesky,
    det,
    eigh,
    hessenberg,
    inv,
    lu,
    lu_factor,
    lu_solve,
    qr,
    qr_multiply,
    schur,
    solve,
    solve_triangular,
    svd,
)
from spmd._src.scipy.linalg_functions import (  # noqa: F401
    eigh_tridiagonal,
    expm,
    expm_frechet,
    funm,
    polar,
    rsf2csf,
    solve_sylvester,
    sqrtm,
)
from spmd._src.scipy.linalg_matrices import (  # noqa: F401
    block_diag,
    circulant,
    companion,
    convolution_matrix,
    dft,
    fiedler,
    fiedler_companion,
    hadamard,
    hankel,
    helmert,
    hilbert,
    invhilbert,
    invpascal,
    leslie,
    pascal,
    toeplitz,
)
