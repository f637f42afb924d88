"""spmd.scipy.cluster.vq: vector quantization (``jax.scipy.cluster.vq``). Re-exports only."""

from spmd._src.scipy.cluster_vq import *  # noqa: F401,F403
