"""The Dirichlet distribution (``spmd.scipy.stats.dirichlet``). ``x`` holds the simplex
coordinates along its first axis: all ``k = len(alpha)`` of them, or the first ``k - 1`` (the
last is then ``1 - sum``). Points off the open simplex give -inf."""

from __future__ import annotations

from typing import Any

from spmd._src.scipy.stats._common import inf, jnp, promote_dtypes, special, where

__all__ = ["logpdf", "pdf"]

# How far sum(x) may be from 1 and still count as on the simplex.
_SUM_TOL = 1e-6


def logpdf(x: Any, alpha: Any) -> Any:
    """``sum((alpha - 1) log x) - sum(gammaln(alpha)) + gammaln(sum(alpha))``."""
    x, alpha = promote_dtypes("dirichlet.logpdf", x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
    if x.ndim == 0:
        raise IndexError(
            f"dirichlet.logpdf: `x` must have at least one dimension (its first axis indexes "
            f"the {alpha.shape[0]} entries of alpha); got x.shape={x.shape}"
        )
    k = alpha.shape[0]
    if x.shape[0] not in (k, k - 1):
        raise ValueError(
            "`x` must have either the same number of entries as `alpha` or one entry fewer; "
            f"got x.shape={x.shape}, alpha.shape={alpha.shape}"
        )
    if x.shape[0] == k - 1:
        x = jnp.concatenate([x, (1 - jnp.sum(x, axis=0))[None]], axis=0)
    a = alpha.reshape(alpha.shape + (1,) * (x.ndim - 1))
    log_norm = jnp.sum(special.gammaln(alpha)) - special.gammaln(jnp.sum(alpha))
    log_p = jnp.sum(special.xlogy(a - 1, x), axis=0) - log_norm
    inside = jnp.all(x > 0, axis=0) & (jnp.abs(jnp.sum(x, axis=0) - 1) <= _SUM_TOL)
    return where(inside, log_p, -inf)


def pdf(x: Any, alpha: Any) -> Any:
    """The Dirichlet density."""
    return jnp.exp(logpdf(x, alpha))
