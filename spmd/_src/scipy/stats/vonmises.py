"""The von Mises distribution with concentration ``kappa`` (``spmd.scipy.stats.vonmises``).
A non-positive ``kappa`` gives NaN."""

from __future__ import annotations

import math
from typing import Any

from spmd._src.scipy.stats._common import jnp, nan, promote, special, where

__all__ = ["logpdf", "pdf"]


def logpdf(x: Any, kappa: Any) -> Any:
    """``kappa (cos x - 1) - log(2 pi i0e(kappa))``: the scaled Bessel function keeps large
    ``kappa`` finite."""
    x, kappa = promote("vonmises.logpdf", x, kappa)
    log_p = kappa * (jnp.cos(x) - 1) - math.log(2 * math.pi) - jnp.log(special.i0e(kappa))
    return where(kappa > 0, log_p, nan)


def pdf(x: Any, kappa: Any) -> Any:
    """The von Mises density."""
    return jnp.exp(logpdf(x, kappa))
