"""The gamma distribution with shape ``a`` (``spmd.scipy.stats.gamma``)."""

from __future__ import annotations

from typing import Any

from spmd._src.scipy.stats._common import inf, jnp, promote, special, standardize, where

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``(a - 1) log y - y - gammaln(a) - log(scale)`` for ``y = (x - loc) / scale >= 0``."""
    x, a, loc, scale = promote("gamma.logpdf", x, a, loc, scale)
    y = standardize(x, loc, scale)
    log_p = special.xlogy(a - 1, y) - y - special.gammaln(a) - jnp.log(scale)
    return where(x >= loc, log_p, -inf)  # NaN too gives -inf


def pdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The gamma density."""
    return jnp.exp(logpdf(x, a, loc, scale))


def _y(name, x, a, loc, scale):
    x, a, loc, scale = promote(name, x, a, loc, scale)
    return a, jnp.clip(standardize(x, loc, scale), 0, None)


def cdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The regularized lower incomplete gamma function of ``y`` (clipped at 0)."""
    a, y = _y("gamma.cdf", x, a, loc, scale)
    return special.gammainc(a, y)


def logcdf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the cumulative distribution function."""
    return jnp.log(cdf(x, a, loc, scale))


def sf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The regularized upper incomplete gamma function of ``y`` (clipped at 0)."""
    x, a, loc, scale = promote("gamma.sf", x, a, loc, scale)
    y = jnp.clip(standardize(x, loc, scale), 0, None)
    # 1 below the support even for an invalid shape (as in JAX; the cdf has no such case).
    return where(x < loc, 1, special.gammaincc(a, y))


def logsf(x: Any, a: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the survival function."""
    return jnp.log(sf(x, a, loc, scale))
