"""``jax.scipy.integrate``: ``trapezoid``, the composite trapezoidal rule (``jnp.trapezoid``'s
arithmetic, so grad, jit and vmap go through it)."""

from __future__ import annotations

from typing import Any

from spmd._src.numpy.numeric_extra import trapezoid as _jnp_trapezoid

__all__ = ["trapezoid"]


def trapezoid(y: Any, x: Any = None, dx: Any = 1.0, axis: int = -1):
    """Integral of the samples ``y`` along ``axis`` by the trapezoidal rule: at the positions
    ``x`` when given, else evenly spaced by ``dx``. Integer inputs give float results.

    >>> trapezoid(jnp.array([1, 2, 3, 2, 3, 2, 1]), jnp.array([0, 2, 5, 7, 10, 15, 20]))
    Array(43., dtype=float32)
    """
    return _jnp_trapezoid(y, x, dx, axis)
