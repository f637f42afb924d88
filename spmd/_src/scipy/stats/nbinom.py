"""The negative binomial distribution: failures before the ``n``-th success
(``spmd.scipy.stats.nbinom``)."""

from __future__ import annotations

from typing import Any

from spmd._src.scipy.stats._common import inf, jnp, promote, special, where

__all__ = ["logpmf", "pmf"]


def logpmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """``log C(n + y - 1, y) + n log p + y log(1 - p)`` for ``y = k - loc >= 0``."""
    k, n, p, loc = promote("nbinom.logpmf", k, n, p, loc)
    y = k - loc
    log_comb = special.gammaln(n + y) - special.gammaln(y + 1) - special.gammaln(n)
    log_p = log_comb + special.xlogy(n, p) + special.xlog1py(y, -p)
    return where(y < 0, -inf, log_p)


def pmf(k: Any, n: Any, p: Any, loc: Any = 0) -> Any:
    """The negative binomial probability mass function."""
    return jnp.exp(logpmf(k, n, p, loc))
