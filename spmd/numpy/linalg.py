"""spmd.numpy.linalg: linear algebra functions. Re-exports only."""

from spmd._src.numpy.linalg import norm  # noqa: F401
