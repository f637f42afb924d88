"""Small lax helpers with no primitive of their own: ``platform_dependent``, ``composite``,
``broadcast_like``, ``shape_as_value`` and ``dtype``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from spmd._src import dtypes
from spmd._src.lax.shape import broadcast_in_dim

# The platforms JAX knows by name; spmd runs on one of them.
_PLATFORMS = ("cpu", "cuda", "rocm", "tpu")
_PLATFORM = "cpu"


def platform_dependent(*args: Any, default: Callable | None = None, **per_platform: Callable):
    """``per_platform[p](*args)`` for the platform this runs on (spmd: ``'cpu'``), else
    ``default(*args)``. JAX decides when it lowers; the choice is the same, made when traced.

    >>> lax.platform_dependent(3.0, cpu=lambda x: x + 1, default=lambda x: x * 2)
    4.0
    """
    for name in per_platform:
        if name not in _PLATFORMS:
            raise ValueError(
                f"platform_dependent: unknown platform {name!r}; expected one of {_PLATFORMS}"
            )
    branch = per_platform.get(_PLATFORM, default)
    if branch is None:
        raise NotImplementedError(
            f"platform_dependent: no branch for platform {_PLATFORM!r} (branches given for "
            f"{sorted(per_platform)}) and no default"
        )
    return branch(*args)


def composite(decomposition: Callable, name: str, version: int = 0) -> Callable:
    """``decomposition`` marked as one named operation for compilers that implement it
    natively. spmd has none, so the function runs its decomposition; jaxprs show the
    decomposition's equations (JAX's show one ``composite`` equation), and unlike JAX's, the
    result can be differentiated and vmapped.

    >>> scale = lax.composite(lambda x, *, k: x * k, name="my.scale")
    >>> scale(2.0, k=3.0)
    Array(6., dtype=float32, weak_type=True)
    """
    if not isinstance(name, str):
        raise TypeError(f"composite: name must be a string, got {type(name).__name__}")

    @functools.wraps(decomposition)
    def run(*args: Any, **kwargs: Any) -> Any:
        from spmd._src.numpy.lax_numpy import asarray  # lazy: jnp sits above lax

        # JAX traces the decomposition on arrays: Python scalars arrive as weak arrays.
        args = tuple(asarray(a) if isinstance(a, (int, float, complex, bool)) else a for a in args)
        return decomposition(*args, **kwargs)

    return run


def broadcast_like(arr: Any, like_arr: Any):
    """``arr`` broadcast to the shape of ``like_arr`` (trailing dimensions aligned, NumPy
    style).

    >>> lax.broadcast_like(jnp.ones(3, jnp.int32), jnp.zeros((2, 3))).shape
    (2, 3)
    """
    shape, target = np.shape(arr), np.shape(like_arr)
    lead = len(target) - len(shape)
    if lead < 0 or any(d not in (1, t) for d, t in zip(shape, target[lead:])):
        raise ValueError(
            f"broadcast_like: cannot broadcast an array of shape {shape} to the shape {target} "
            "of like_arr"
        )
    dims = tuple(range(lead, len(target)))
    return broadcast_in_dim(arr, target, dims)


def shape_as_value(shape: Any):
    """A shape as an int32 vector.

    >>> lax.shape_as_value((2, 3))
    array([2, 3], dtype=int32)
    """
    return np.asarray(tuple(int(d) for d in shape), dtype=np.int32)


def dtype(x: Any) -> np.dtype:
    """The dtype ``x`` gets as an spmd array (canonical: 64-bit types narrowed unless x64 is
    enabled; Python floats give the default float type).

    >>> lax.dtype(1.0)
    dtype('float32')
    """
    return dtypes.dtype(x, canonicalize=True)


__all__ = ["broadcast_like", "composite", "dtype", "platform_dependent", "shape_as_value"]
