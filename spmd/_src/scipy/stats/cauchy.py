"""The Cauchy distribution (``spmd.scipy.stats.cauchy``)."""

from __future__ import annotations

import math
from typing import Any

from spmd._src.scipy.stats._common import jnp, promote, standardize

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the Cauchy density (NaN for a non-positive scale)."""
    x, loc, scale = promote("cauchy.logpdf", x, loc, scale)
    z = standardize(x, loc, scale)
    return -math.log(math.pi) - jnp.log(scale) - jnp.log1p(z * z)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Cauchy density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``1/2 + arctan(z) / pi``."""
    x, loc, scale = promote("cauchy.cdf", x, loc, scale)
    return 0.5 + jnp.arctan(standardize(x, loc, scale)) / math.pi


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the cumulative distribution function."""
    return jnp.log(cdf(x, loc, scale))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The survival function, by symmetry ``cdf(-z)``."""
    x, loc, scale = promote("cauchy.sf", x, loc, scale)
    return cdf(-x, -loc, scale)


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the survival function."""
    return jnp.log(sf(x, loc, scale))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``loc + scale * tan(pi q - pi / 2)`` (rounded as JAX rounds it)."""
    q, loc, scale = promote("cauchy.ppf", q, loc, scale)
    return loc + scale * jnp.tan(math.pi * q - math.pi / 2)


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``loc + scale * tan(pi / 2 - pi q)``."""
    q, loc, scale = promote("cauchy.isf", q, loc, scale)
    return loc + scale * jnp.tan(math.pi / 2 - math.pi * q)
