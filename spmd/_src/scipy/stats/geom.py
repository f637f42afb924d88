"""The geometric distribution on ``k = 1, 2, ...`` (``spmd.scipy.stats.geom``)."""

from __future__ import annotations

from typing import Any

from spmd._src.scipy.stats._common import inf, jnp, promote, special, where

__all__ = ["logpmf", "pmf"]


def logpmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """``(y - 1) log(1 - p) + log p`` for ``y = k - loc > 0``."""
    k, p, loc = promote("geom.logpmf", k, p, loc)
    y = k - loc
    return where(y <= 0, -inf, special.xlog1py(y - 1, -p) + jnp.log(p))


def pmf(k: Any, p: Any, loc: Any = 0) -> Any:
    """The geometric probability mass function."""
    return jnp.exp(logpmf(k, p, loc))
