"""The Pareto distribution with shape ``b``, supported on ``x >= loc + scale``
(``spmd.scipy.stats.pareto``)."""

from __future__ import annotations

from typing import Any

from spmd._src.scipy.stats._common import inf, jnp, nan, promote, where

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def logpdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``log b + b log(scale) - (b + 1) log(x - loc)`` on the support."""
    x, b, loc, scale = promote("pareto.logpdf", x, b, loc, scale)
    log_p = jnp.log(b) + b * jnp.log(scale) - (b + 1) * jnp.log(x - loc)
    return where(x < loc + scale, -inf, log_p)


def pdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Pareto density."""
    return jnp.exp(logpdf(x, b, loc, scale))


def _logsf(name, x, b, loc, scale):
    x, b, loc, scale = promote(name, x, b, loc, scale)
    # b log(scale / (x - loc)): the log survival function on the support.
    return x < loc + scale, b * jnp.log(scale / (x - loc))


def logsf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``b log(scale / (x - loc))`` on the support, 0 below it."""
    below, v = _logsf("pareto.logsf", x, b, loc, scale)
    return where(below, 0, v)


def sf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``(scale / (x - loc)) ** b`` on the support, 1 below it."""
    below, v = _logsf("pareto.sf", x, b, loc, scale)
    return where(below, 1, jnp.exp(v))


def _ratio_pow(name, x, b, loc, scale):
    x, b, loc, scale = promote(name, x, b, loc, scale)
    # (scale / (x - loc)) ** b as a power (b = 0 gives 1 even at x = inf, as in JAX).
    return x < loc + scale, jnp.power(scale / (x - loc), b)


def cdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``1 - (scale / (x - loc)) ** b`` on the support, 0 below it."""
    below, v = _ratio_pow("pareto.cdf", x, b, loc, scale)
    return where(below, 0, 1 - v)


def logcdf(x: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``log1p(-(scale / (x - loc)) ** b)`` on the support, -inf below it."""
    below, v = _ratio_pow("pareto.logcdf", x, b, loc, scale)
    return where(below, -inf, jnp.log1p(-v))


def ppf(q: Any, b: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``loc + scale * (1 - q) ** (-1 / b)`` (NaN outside [0, 1])."""
    q, b, loc, scale = promote("pareto.ppf", q, b, loc, scale)
    return where((q < 0) | (q > 1), nan, loc + scale * jnp.power(1 - q, -1 / b))
