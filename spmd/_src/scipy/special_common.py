"""Helpers shared by the ``spmd.scipy.special`` modules."""

from __future__ import annotations

from typing import Any

import numpy as np

from spmd._src import dtypes
from spmd._src.numpy import lax_numpy
from spmd._src.numpy.array_constructors import asarray

__all__: list[str] = []


def _real_only(name: str, x: Any) -> None:
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        raise ValueError(f"{name} does not support complex-valued inputs.")


def _c(x: Any, value: Any) -> Any:
    """``value`` as a strongly typed scalar of ``x``'s dtype."""
    return np.array(value, dtype=x.dtype)


def _check_float(name: str, x: Any) -> Any:
    x = asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={x.dtype} is not supported, see docstring for supported types.")
    return x


def _where(c, a, b):
    return lax_numpy.where(c, a, b)
