"""The Poisson distribution with mean ``mu`` (``spmd.scipy.stats.poisson``)."""

from __future__ import annotations

import math
from typing import Any

from spmd._src.scipy.stats._common import inf, jnp, nan, promote, special, strong, where

__all__ = ["cdf", "entropy", "logpmf", "pmf"]


def logpmf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """``y log mu - gammaln(y + 1) - mu`` for a non-negative integer ``y = k - loc``."""
    k, mu, loc = promote("poisson.logpmf", k, mu, loc)
    y = k - loc
    log_p = special.xlogy(y, mu) - special.gammaln(y + 1) - mu
    return where((y < 0) | (y != jnp.floor(y)), -inf, log_p)


def pmf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """The Poisson probability mass function."""
    return jnp.exp(logpmf(k, mu, loc))


def cdf(k: Any, mu: Any, loc: Any = 0) -> Any:
    """``gammaincc(floor(y) + 1, mu)``, 0 below ``loc``."""
    k, mu, loc = promote("poisson.cdf", k, mu, loc)
    y = k - loc
    return where(y < 0, 0, special.gammaincc(jnp.floor(y) + 1, mu))


# Terms summed for mu < 100: the pmf beyond mu + 10 sqrt(mu) + 20 (at most 220) is negligible.
_TERMS = 240


def entropy(mu: Any, loc: Any = 0) -> Any:
    """``-sum_k p(k) log p(k)``: summed over k for ``mu < 100``, Stirling's
    ``log(2 pi e mu) / 2 - 1 / (12 mu)`` above; 0 at ``mu = 0``, NaN below. ``loc`` only
    broadcasts."""
    mu, loc = promote("poisson.entropy", mu, loc)
    mu = jnp.broadcast_to(mu, jnp.broadcast_shapes(mu.shape, loc.shape))
    mu = strong(mu)  # the result is strongly typed, as JAX's is
    safe = where(mu > 0, mu, 1)
    small = where(safe < 100, safe, 1)
    k = jnp.arange(_TERMS, dtype=mu.dtype)
    m = small[..., None]
    log_p = special.xlogy(k, m) - special.gammaln(k + 1) - m
    bound = m + 10 * jnp.sqrt(m) + 20
    terms = where(k <= bound, -jnp.exp(log_p) * log_p, 0)
    summed = jnp.sum(terms, axis=-1)
    stirling = 0.5 * jnp.log(2 * math.pi * math.e * safe) - 1 / (12 * safe)
    out = where(safe < 100, summed, stirling)
    return where(mu > 0, out, where(mu == 0, 0, nan))
