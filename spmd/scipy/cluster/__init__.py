"""spmd.scipy.cluster (``jax.scipy.cluster``)."""

from spmd.scipy.cluster import vq  # noqa: F401
