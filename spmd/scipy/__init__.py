"""spmd.scipy: SciPy's API on spmd arrays. Re-exports only."""

from spmd.scipy import special  # noqa: F401
