"""The normal distribution (``spmd.scipy.stats.norm``)."""

from __future__ import annotations

import math
from typing import Any

from spmd._src.numpy.util import check_arraylike
from spmd._src.scipy.stats._common import jnp, lax, promote, special, standardize

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the normal density at ``x``."""
    x, loc, scale = promote("norm.logpdf", x, loc, scale)
    var = lax.square(scale)
    # A negative scale is squared away (as in JAX); a zero scale gives NaN.
    return -(jnp.log(2 * math.pi * var) + lax.square(x - loc) / var) / 2


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The normal density at ``x``."""
    return lax.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The normal cumulative distribution function."""
    x, loc, scale = promote("norm.cdf", x, loc, scale)
    return special.ndtr(standardize(x, loc, scale))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the normal cumulative distribution function (accurate in the lower tail)."""
    x, loc, scale = promote("norm.logcdf", x, loc, scale)
    return special.log_ndtr(standardize(x, loc, scale))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The normal survival function ``1 - cdf``, computed by symmetry (no cancellation)."""
    x, loc, scale = promote("norm.sf", x, loc, scale)
    return special.ndtr(standardize(-x, -loc, scale))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the normal survival function."""
    x, loc, scale = promote("norm.logsf", x, loc, scale)
    return special.log_ndtr(standardize(-x, -loc, scale))


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The normal quantile function (NaN outside [0, 1]). ``q`` must be floating (as in
    JAX: ``ndtri`` takes no integers)."""
    check_arraylike("norm.ppf", q, loc, scale)
    return special.ndtri(q) * scale + loc


def isf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The inverse survival function: ``ppf(1 - q)``."""
    check_arraylike("norm.isf", q, loc, scale)
    return ppf(1 - jnp.asarray(q), loc, scale)
