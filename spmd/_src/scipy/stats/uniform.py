"""The uniform distribution on ``[loc, loc + scale]`` (``spmd.scipy.stats.uniform``)."""

from __future__ import annotations

from typing import Any

from spmd._src.scipy.stats._common import inf, jnp, nan, promote, strong, where

__all__ = ["cdf", "logpdf", "pdf", "ppf"]


def logpdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``-log(scale)`` on the support, -inf off it."""
    x, loc, scale = promote("uniform.logpdf", x, loc, scale)
    return where((x < loc) | (x > loc + scale), -inf, -jnp.log(scale))


def pdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The uniform density."""
    return jnp.exp(logpdf(x, loc, scale))


def cdf(x: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """0 below the support, 1 above it, linear on it; 0 for NaN (no case holds). Strongly
    typed, as JAX's is."""
    x, loc, scale = promote("uniform.cdf", x, loc, scale)
    on = (x >= loc) & (x <= loc + scale)
    out = where(x < loc, 0, where(x > loc + scale, 1, where(on, (x - loc) / scale, 0)))
    return strong(out)


def ppf(q: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``loc + q * scale`` (NaN outside [0, 1])."""
    q, loc, scale = promote("uniform.ppf", q, loc, scale)
    return where((q < 0) | (q > 1), nan, loc + q * scale)
