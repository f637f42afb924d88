"""The Bernoulli distribution with success probability ``p`` (``spmd.scipy.stats.bernoulli``)."""

from __future__ import annotations

from typing import Any

from spmd._src.scipy.stats._common import inf, jnp, lax, nan, promote, special, where

__all__ = ["cdf", "logpmf", "pmf", "ppf"]


def logpmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """``k log p + (1 - k) log(1 - p)`` for ``0 <= k - loc <= 1``, -inf elsewhere."""
    k, p, loc = promote("bernoulli.logpmf", k, p, loc)
    y = k - loc
    log_p = special.xlogy(y, p) + special.xlog1py(1 - y, -p)
    return where((y < 0) | (y > 1), -inf, log_p)


def pmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """The Bernoulli probability mass function."""
    return jnp.exp(logpmf(k, p, loc))


def cdf(k: Any, p: Any) -> Any:
    """0 below 0, ``1 - p`` on [0, 1), 1 from 1 on; NaN for ``p`` outside [0, 1]."""
    k, p = promote("bernoulli.cdf", k, p)
    out = where(k < 0, 0, where(k < 1, 1 - p, 1))
    return where((p < 0) | (p > 1) | jnp.isnan(k), nan, out)


def ppf(q: Any, p: Any) -> Any:
    """0 up to ``q = 1 - p``, then 1; NaN for ``q`` or ``p`` outside [0, 1] or NaN."""
    q, p = promote("bernoulli.ppf", q, p)
    out = where(q <= 1 - p, 0, 1)
    out = lax.convert_element_type(out, q.dtype, weak_type=q.weak_type)
    return where((q >= 0) & (q <= 1) & (p >= 0) & (p <= 1), out, nan)  # NaN too
