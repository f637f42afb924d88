"""The generalized normal distribution with shape ``beta`` (``spmd.scipy.stats.gennorm``):
density ``beta / (2 Gamma(1 / beta)) exp(-|x| ** beta)``."""

from __future__ import annotations

import math
from typing import Any

from spmd._src.scipy.stats._common import jnp, promote, special

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x: Any, beta: Any) -> Any:
    """``log(beta) - log 2 - gammaln(1 / beta) - |x| ** beta``."""
    x, beta = promote("gennorm.logpdf", x, beta)
    return jnp.log(beta) - math.log(2) - special.gammaln(1 / beta) - jnp.abs(x) ** beta


def pdf(x: Any, beta: Any) -> Any:
    """The generalized normal density."""
    return jnp.exp(logpdf(x, beta))


def cdf(x: Any, beta: Any) -> Any:
    """``(1 + sign(x) gammainc(1 / beta, |x| ** beta)) / 2``."""
    x, beta = promote("gennorm.cdf", x, beta)
    return 0.5 * (1 + jnp.sign(x) * special.gammainc(1 / beta, jnp.abs(x) ** beta))
