"""The multivariate normal distribution (``spmd.scipy.stats.multivariate_normal``).

A scalar ``mean`` makes it univariate; a scalar ``cov`` with a vector ``mean`` is ``cov``
times the identity; otherwise ``cov`` has shape ``(..., n, n)`` for ``mean`` of shape
``(..., n)`` and is factored by Cholesky (a covariance that is not positive definite gives
NaN). Batch axes broadcast.
"""

from __future__ import annotations

import math
from typing import Any

from spmd._src.scipy.stats._common import jnp, promote_dtypes

__all__ = ["logpdf", "pdf"]

_LOG_2PI = math.log(2 * math.pi)


def logpdf(x: Any, mean: Any, cov: Any, allow_singular: None = None) -> Any:
    """``-(x - mean)^T cov^{-1} (x - mean) / 2 - n log(2 pi) / 2 - log det(cov) / 2``."""
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = promote_dtypes("multivariate_normal.logpdf", x, mean, cov)
    if not mean.shape:
        return -((x - mean) ** 2) / cov / 2 - (_LOG_2PI + jnp.log(cov)) / 2
    n = mean.shape[-1]
    if not cov.shape:
        y = x - mean
        return -jnp.einsum("...i,...i->...", y, y) / cov / 2 - n * (_LOG_2PI + jnp.log(cov)) / 2
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError(
            "multivariate_normal.logpdf got incompatible shapes: "
            f"mean.shape={mean.shape}, cov.shape={cov.shape} (cov must be (..., {n}, {n}))"
        )
    chol = jnp.linalg.cholesky(cov)
    y = x - mean
    batch = jnp.broadcast_shapes(chol.shape[:-2], y.shape[:-1])
    chol = jnp.broadcast_to(chol, batch + (n, n))
    y = jnp.broadcast_to(y, batch + (n,))
    # L^{-1} (x - mean): its squared norm is the Mahalanobis distance.
    z = jnp.linalg.solve(chol, y[..., None])[..., 0]
    log_det_half = jnp.sum(jnp.log(jnp.diagonal(chol, axis1=-2, axis2=-1)), axis=-1)
    return -jnp.einsum("...i,...i->...", z, z) / 2 - n * _LOG_2PI / 2 - log_det_half


def pdf(x: Any, mean: Any, cov: Any) -> Any:
    """The multivariate normal density."""
    return jnp.exp(logpdf(x, mean, cov))
