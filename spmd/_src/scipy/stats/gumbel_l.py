"""The left-skewed Gumbel distribution (``spmd.scipy.stats.gumbel_l``): ``sf = exp(-exp(z))``.

A non-positive scale gives NaN everywhere but in ``ppf`` (as in JAX).
"""

from __future__ import annotations

from typing import Any

from spmd._src.scipy.stats._common import jnp, nan, promote, standardize, where

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def _z(name, x, loc, scale):
    x, loc, scale = promote(name, x, loc, scale)
    return standardize(x, loc, scale), scale


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``z - exp(z) - log(scale)``."""
    z, scale = _z("gumbel_l.logpdf", x, loc, scale)
    return where(scale > 0, z - jnp.exp(z) - jnp.log(scale), nan)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The density."""
    return jnp.exp(logpdf(x, loc, scale))


def logsf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``-exp(z)``."""
    z, scale = _z("gumbel_l.logsf", x, loc, scale)
    return where(scale > 0, -jnp.exp(z), nan)


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``exp(-exp(z))``."""
    return jnp.exp(logsf(x, loc, scale))


def logcdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``log(1 - exp(-exp(z)))``, without cancellation."""
    z, scale = _z("gumbel_l.logcdf", x, loc, scale)
    return where(scale > 0, jnp.log(-jnp.expm1(-jnp.exp(z))), nan)


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``1 - exp(-exp(z))``, without cancellation."""
    z, scale = _z("gumbel_l.cdf", x, loc, scale)
    return where(scale > 0, -jnp.expm1(-jnp.exp(z)), nan)


def ppf(p: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``loc + scale * log(-log(1 - p))`` (NaN outside the open interval (0, 1))."""
    p, loc, scale = promote("gumbel_l.ppf", p, loc, scale)
    return where((p <= 0) | (p >= 1), nan, loc + scale * jnp.log(-jnp.log1p(-p)))
