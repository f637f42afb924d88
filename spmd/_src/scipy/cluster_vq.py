"""``jax.scipy.cluster.vq``: ``vq`` assigns each observation its nearest code (Euclidean),
built on spmd.numpy so jit, vmap and grad go through it."""

from __future__ import annotations

from spmd._src.numpy import reductions, ufuncs
from spmd._src.numpy.util import check_arraylike, promote_dtypes_inexact

__all__ = ["vq"]


def vq(obs, code_book, check_finite: bool = True):
    """Nearest code of each observation: returns ``(code, dist)``, the index of the closest row
    of ``code_book`` (first on ties) and the distance to it.

    >>> vq(jnp.array([[1., 2.], [0., 0.]]), jnp.array([[0., 0.], [3., 2.]]))[0]
    Array([1, 0], dtype=int32)
    """
    # check_finite is accepted for SciPy's signature; like JAX's, no check is made (NaNs flow).
    del check_finite
    check_arraylike("vq", obs, code_book)
    obs, code_book = promote_dtypes_inexact(obs, code_book)
    if obs.ndim != code_book.ndim:
        raise ValueError("Observation and code_book should have the same rank")
    if obs.ndim == 1:  # scalar features: one column
        obs, code_book = obs[:, None], code_book[:, None]
    dist = ufuncs.sqrt(reductions.sum((obs[:, None, :] - code_book[None, :, :]) ** 2, axis=-1))
    code = reductions.argmin(dist, axis=-1)
    return code, reductions.min(dist, axis=-1)
