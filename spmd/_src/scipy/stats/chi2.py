"""The chi-squared distribution with ``df`` degrees of freedom (``spmd.scipy.stats.chi2``):
a gamma distribution of shape ``df / 2`` and scale 2."""

from __future__ import annotations

import math
from typing import Any

from spmd._src.scipy.stats._common import inf, jnp, promote, special, standardize, where

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``(k - 1) log y - y / 2 - gammaln(k) - k log 2 - log(scale)`` with ``k = df / 2``."""
    x, df, loc, scale = promote("chi2.logpdf", x, df, loc, scale)
    y = standardize(x, loc, scale)
    k = df / 2
    # A plain product, not xlogy: df = 2 at y = 0 gives NaN, as in JAX.
    kernel = (k - 1) * jnp.log(y) - y / 2
    norm = special.gammaln(k) + k * math.log(2) + jnp.log(scale)
    return where(y < 0, -inf, kernel - norm)


def pdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The chi-squared density."""
    return jnp.exp(logpdf(x, df, loc, scale))


def _half_y(name, x, df, loc, scale):
    x, df, loc, scale = promote(name, x, df, loc, scale)
    return df / 2, jnp.clip(standardize(x, loc, scale) / 2, 0, None)


def cdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``gammainc(df / 2, y / 2)``."""
    k, h = _half_y("chi2.cdf", x, df, loc, scale)
    return special.gammainc(k, h)


def logcdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the cumulative distribution function."""
    return jnp.log(cdf(x, df, loc, scale))


def sf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``gammaincc(df / 2, y / 2)``."""
    k, h = _half_y("chi2.sf", x, df, loc, scale)
    return special.gammaincc(k, h)


def logsf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the survival function."""
    return jnp.log(sf(x, df, loc, scale))
