"""The beta distribution on ``[loc, loc + scale]`` (``spmd.scipy.stats.beta``). Shapes ``a``
or ``b`` that are not positive give NaN."""

from __future__ import annotations

from typing import Any

from spmd._src.scipy.stats._common import (
    inf,
    jnp,
    nan,
    promote,
    special,
    standardize,
    where,
)

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def logpdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``(a - 1) log y + (b - 1) log(1 - y) - betaln(a, b) - log(scale)`` on the support."""
    x, a, b, loc, scale = promote("beta.logpdf", x, a, b, loc, scale)
    y = standardize(x, loc, scale)
    log_p = (
        special.xlogy(a - 1, y) + special.xlog1py(b - 1, -y) - special.betaln(a, b) - jnp.log(scale)
    )
    log_p = where((x < loc) | (x > loc + scale), -inf, log_p)
    return where((a <= 0) | (b <= 0), nan, log_p)


def pdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The beta density."""
    return jnp.exp(logpdf(x, a, b, loc, scale))


def _y(name, x, a, b, loc, scale):
    x, a, b, loc, scale = promote(name, x, a, b, loc, scale)
    return a, b, jnp.clip(standardize(x, loc, scale), 0, 1)


def cdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``betainc(a, b, y)`` with ``y`` clipped to [0, 1]."""
    a, b, y = _y("beta.cdf", x, a, b, loc, scale)
    return special.betainc(a, b, y)


def logcdf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the cumulative distribution function."""
    return jnp.log(cdf(x, a, b, loc, scale))


def sf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``betainc(b, a, 1 - y)``: the upper tail without cancellation."""
    a, b, y = _y("beta.sf", x, a, b, loc, scale)
    return special.betainc(b, a, 1 - y)


def logsf(x: Any, a: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """Log of the survival function."""
    return jnp.log(sf(x, a, b, loc, scale))
