"""The binomial distribution of ``n`` trials with success probability ``p``
(``spmd.scipy.stats.binom``)."""

from __future__ import annotations

from typing import Any

from spmd._src.scipy.stats._common import inf, jnp, promote, special, where

__all__ = ["logpmf", "pmf"]


def logpmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """``log C(n, y) + y log p + (n - y) log(1 - p)`` for ``0 <= y = k - loc <= n``."""
    k, n, p, loc = promote("binom.logpmf", k, n, p, loc)
    y = k - loc
    log_comb = special.gammaln(n + 1) - special.gammaln(y + 1) - special.gammaln(n - y + 1)
    log_p = log_comb + special.xlogy(y, p) + special.xlog1py(n - y, -p)
    return where((y >= 0) & (y <= n), log_p, -inf)  # NaN too gives -inf


def pmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """The binomial probability mass function."""
    return jnp.exp(logpmf(k, n, p, loc))
