"""spmd.scipy: SciPy's API on spmd arrays. Re-exports only."""

from spmd.scipy import linalg, signal, special, stats  # noqa: F401
