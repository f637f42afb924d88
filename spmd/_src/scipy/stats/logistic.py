"""The logistic distribution (``spmd.scipy.stats.logistic``)."""

from __future__ import annotations

from typing import Any

from spmd._src.scipy.stats._common import jnp, nan, promote, special, standardize, where

__all__ = ["cdf", "isf", "logpdf", "pdf", "ppf", "sf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``-2 log(2 cosh(z / 2)) - log(scale)``, without overflow for large ``|z|``."""
    x, loc, scale = promote("logistic.logpdf", x, loc, scale)
    z = standardize(x, loc, scale)
    half = z / 2
    return -2 * jnp.logaddexp(half, -half) - jnp.log(scale)


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The logistic density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``expit(z)``."""
    x, loc, scale = promote("logistic.cdf", x, loc, scale)
    return special.expit(standardize(x, loc, scale))


def sf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``expit(-z)``."""
    x, loc, scale = promote("logistic.sf", x, loc, scale)
    return special.expit(-standardize(x, loc, scale))


def ppf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``loc + scale * logit(q)`` (NaN outside [0, 1])."""
    x, loc, scale = promote("logistic.ppf", x, loc, scale)
    return where((x < 0) | (x > 1), nan, special.logit(x) * scale + loc)


def isf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``loc - scale * logit(q)`` (NaN outside [0, 1])."""
    x, loc, scale = promote("logistic.isf", x, loc, scale)
    return where((x < 0) | (x > 1), nan, -special.logit(x) * scale + loc)
