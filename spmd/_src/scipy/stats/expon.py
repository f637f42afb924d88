"""The exponential distribution (``spmd.scipy.stats.expon``)."""

from __future__ import annotations

from typing import Any

from spmd._src.scipy.stats._common import inf, jnp, nan, promote, where

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def _neg_z(name, x, loc, scale):
    x, loc, scale = promote(name, x, loc, scale)
    # (loc - x) / scale: the log survival function itself, before support masking.
    return x, loc, (loc - x) / scale


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the exponential density (-inf below ``loc``)."""
    x, loc, scale = promote("expon.logpdf", x, loc, scale)
    return where(x < loc, -inf, -((x - loc) / scale) - jnp.log(scale))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The exponential density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The exponential cumulative distribution function ``1 - exp(-z)``."""
    x, loc, nz = _neg_z("expon.cdf", x, loc, scale)
    return where(x < loc, 0, -jnp.expm1(nz))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the cumulative distribution function."""
    x, loc, nz = _neg_z("expon.logcdf", x, loc, scale)
    return where(x < loc, -inf, jnp.log1p(-jnp.exp(nz)))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The survival function ``exp(-z)``."""
    x, loc, nz = _neg_z("expon.sf", x, loc, scale)
    return where(x < loc, 1, jnp.exp(nz))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the survival function, ``-z``."""
    x, loc, nz = _neg_z("expon.logsf", x, loc, scale)
    return where(x < loc, 0, nz)


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The quantile function ``loc - scale * log(1 - q)`` (NaN outside [0, 1])."""
    q, loc, scale = promote("expon.ppf", q, loc, scale)
    return where((q < 0) | (q > 1), nan, -jnp.log1p(-q) * scale + loc)
