"""spmd.scipy: SciPy's API on spmd arrays. Re-exports only."""

from spmd.scipy import cluster, fft, integrate, linalg, ndimage, optimize, signal, special, stats  # noqa: F401
