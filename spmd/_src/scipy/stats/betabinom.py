"""The beta-binomial distribution (``spmd.scipy.stats.betabinom``). A negative ``n`` or a
non-positive ``a`` or ``b`` gives NaN."""

from __future__ import annotations

from typing import Any

from spmd._src.scipy.stats._common import inf, jnp, nan, promote, special, where

__all__ = ["logpmf", "pmf"]


def logpmf(k: Any, n: Any, a: Any, b: Any, loc: Any = 0) -> Any:
    """``log C(n, y) + betaln(y + a, n - y + b) - betaln(a, b)`` for ``0 <= y <= n``, with
    ``y = floor(k - loc)`` (a non-integer ``k`` counts as the integer below it, as in JAX)."""
    k, n, a, b, loc = promote("betabinom.logpmf", k, n, a, b, loc)
    y = jnp.floor(k - loc)
    log_comb = special.gammaln(n + 1) - special.gammaln(y + 1) - special.gammaln(n - y + 1)
    log_p = log_comb + special.betaln(y + a, n - y + b) - special.betaln(a, b)
    log_p = where((y < 0) | (y > n), -inf, log_p)
    return where((n < 0) | (a <= 0) | (b <= 0), nan, log_p)


def pmf(k: Any, n: Any, a: Any, b: Any, loc: Any = 0) -> Any:
    """The beta-binomial probability mass function."""
    return jnp.exp(logpmf(k, n, a, b, loc))
