"""The multinomial distribution of ``n`` draws over the categories of the last axis, with
probabilities ``p`` (``spmd.scipy.stats.multinomial``). Counts must be integers.

As in JAX, the support check compares the sum of *all* of ``x`` with ``n`` (so a batch of
count vectors is -inf unless it holds one vector), and ``p`` is not normalized.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spmd._src import dtypes
from spmd._src.numpy.util import promote_args, promote_args_inexact
from spmd._src.scipy.stats._common import inf, jnp, special, where

__all__ = ["logpmf", "pmf"]


def logpmf(x: Any, n: Any, p: Any) -> Any:
    """``gammaln(n + 1) + sum(x log p - gammaln(x + 1))`` over the last axis."""
    x, n = promote_args("multinomial.logpmf", x, n)
    if dtypes.issubdtype(x.dtype, np.inexact):
        raise ValueError(
            f"x and n must be of integer type; got x.dtype={x.dtype}, n.dtype={n.dtype}"
        )
    (p,) = promote_args_inexact("multinomial.logpmf", p)
    x = x.astype(p.dtype)
    n = n.astype(p.dtype)
    if x.ndim == 0:
        raise ValueError(f"multinomial.logpmf: x must have a category axis; got x.shape={x.shape}")
    log_p = special.gammaln(n + 1) + jnp.sum(special.xlogy(x, p) - special.gammaln(x + 1), axis=-1)
    return where(jnp.sum(x) != n, -inf, log_p)


def pmf(x: Any, n: Any, p: Any) -> Any:
    """The multinomial probability mass function."""
    return jnp.exp(logpmf(x, n, p))
