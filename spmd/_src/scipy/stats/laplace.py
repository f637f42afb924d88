"""The Laplace (double exponential) distribution (``spmd.scipy.stats.laplace``)."""

from __future__ import annotations

from typing import Any

from spmd._src.scipy.stats._common import jnp, promote, standardize, where

__all__ = ["cdf", "logpdf", "pdf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``-log(2 scale) - |x - loc| / scale``."""
    x, loc, scale = promote("laplace.logpdf", x, loc, scale)
    return -jnp.log(2 * scale) - jnp.abs(x - loc) / scale


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The Laplace density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``exp(z) / 2`` below ``loc``, ``1 - exp(-z) / 2`` above it."""
    x, loc, scale = promote("laplace.cdf", x, loc, scale)
    z = standardize(x, loc, scale)
    return where(z <= 0, 0.5 * jnp.exp(z), 1 - 0.5 * jnp.exp(-z))
