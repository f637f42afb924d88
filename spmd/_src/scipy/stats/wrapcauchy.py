"""The wrapped Cauchy distribution on ``[0, 2 pi]`` with shape ``0 < c < 1``
(``spmd.scipy.stats.wrapcauchy``); other ``c`` give NaN."""

from __future__ import annotations

import math
from typing import Any

from spmd._src.scipy.stats._common import inf, jnp, nan, promote, where

__all__ = ["logpdf", "pdf"]


def logpdf(x: Any, c: Any) -> Any:
    """``log((1 - c**2) / (2 pi (1 + c**2 - 2 c cos x)))`` on ``[0, 2 pi]``."""
    x, c = promote("wrapcauchy.logpdf", x, c)
    log_p = jnp.log(1 - c * c) - math.log(2 * math.pi) - jnp.log(1 + c * c - 2 * c * jnp.cos(x))
    log_p = where((x >= 0) & (x <= 2 * math.pi), log_p, -inf)  # NaN too gives -inf
    return where((c > 0) & (c < 1), log_p, nan)


def pdf(x: Any, c: Any) -> Any:
    """The wrapped Cauchy density."""
    return jnp.exp(logpdf(x, c))
