"""The normal distribution truncated to ``[a, b]`` (in standard units:
``loc + scale * [a, b]``) (``spmd.scipy.stats.truncnorm``). ``a >= b`` gives NaN.

The normalizing mass ``ndtr(b) - ndtr(a)`` is taken in log space from whichever tail keeps
it accurate, so far tails (``a = 10``) stay finite.
"""

from __future__ import annotations

from typing import Any

from spmd._src.scipy.stats import norm
from spmd._src.scipy.stats._common import inf, jnp, nan, promote, special, standardize, where

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def _log_diff_exp(la, lb):
    """``log(exp(la) - exp(lb))`` for ``la >= lb``."""
    return la + jnp.log1p(-jnp.exp(lb - la))


def _log_mass(a, b):
    """``log(ndtr(b) - ndtr(a))`` for ``a <= b``: from the lower tail when ``b <= 0``, the
    upper tail when ``a > 0``, and directly when the interval holds 0."""
    lower = _log_diff_exp(special.log_ndtr(b), special.log_ndtr(a))
    upper = _log_diff_exp(special.log_ndtr(-a), special.log_ndtr(-b))
    middle = jnp.log1p(-special.ndtr(a) - special.ndtr(-b))
    return where(b <= 0, lower, where(a > 0, upper, middle))


def logpdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The normal log density less the log mass of ``[a, b]``; -inf off the interval."""
    x, a, b, loc, scale = promote("truncnorm.logpdf", x, a, b, loc, scale)
    z = standardize(x, loc, scale)
    log_p = norm.logpdf(x, loc, scale) - _log_mass(a, b)
    log_p = where((z < a) | (z > b), -inf, log_p)
    return where(a >= b, nan, log_p)


def pdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The truncated normal density."""
    return jnp.exp(logpdf(x, a, b, loc, scale))


def logcdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``log mass[a, z] - log mass[a, b]``: -inf below ``a``, 0 above ``b``."""
    x, a, b, loc, scale = promote("truncnorm.logcdf", x, a, b, loc, scale)
    z = standardize(x, loc, scale)
    out = _log_mass(a, jnp.clip(z, a, b)) - _log_mass(a, b)
    # NaN falls to the last branch, 0 (as in JAX).
    out = where(z < b, where(z > a, out, -inf), 0)
    return where(a >= b, nan, out)


def cdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The truncated normal cumulative distribution function."""
    return jnp.exp(logcdf(x, a, b, loc, scale))


def logsf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``log mass[z, b] - log mass[a, b]``: 0 below ``a``, -inf above ``b``."""
    x, a, b, loc, scale = promote("truncnorm.logsf", x, a, b, loc, scale)
    z = standardize(x, loc, scale)
    out = _log_mass(jnp.clip(z, a, b), b) - _log_mass(a, b)
    # NaN falls to the last branch, 0 (as in JAX).
    out = where(z > a, where(z < b, out, -inf), 0)
    return where(a >= b, nan, out)


def sf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The truncated normal survival function."""
    return jnp.exp(logsf(x, a, b, loc, scale))
