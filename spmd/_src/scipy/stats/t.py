"""Student's t distribution with ``df`` degrees of freedom (``spmd.scipy.stats.t``)."""

from __future__ import annotations

import math
from typing import Any

from spmd._src.scipy.stats._common import jnp, promote, special, standardize

__all__ = ["logpdf", "pdf"]


def logpdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """``gammaln((df + 1) / 2) - gammaln(df / 2) - log(pi df) / 2 - log(scale)
    - (df + 1) / 2 * log1p(z**2 / df)``."""
    x, df, loc, scale = promote("t.logpdf", x, df, loc, scale)
    z = standardize(x, loc, scale)
    half = df / 2
    half_p1 = half + 0.5
    norm = (
        special.gammaln(half)
        - special.gammaln(half_p1)
        + 0.5 * jnp.log(df * math.pi)
        + jnp.log(scale)
    )
    return -(norm + half_p1 * jnp.log1p(z * z / df))


def pdf(x: Any, df: Any, loc: Any = 0, scale: Any = 1) -> Any:
    """The t density."""
    return jnp.exp(logpdf(x, df, loc, scale))
