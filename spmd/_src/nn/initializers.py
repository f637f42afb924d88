"""Parameter initializers (``spmd.nn.initializers``).

Each factory returns ``init(key, shape, dtype=None)``; with the same key an initializer gives
the same bits as JAX's, since it draws from ``spmd.random`` with the same calls and scales the
draw in the same order and dtype. ``zeros`` and ``ones`` are initializers themselves.

>>> from spmd import random
>>> from spmd.nn import initializers
>>> w = initializers.glorot_uniform()(random.key(0), (3, 4))
>>> w.shape, w.dtype
((3, 4), dtype('float32'))
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import dtypes
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.elementwise.transcendental import sqrt as lax_sqrt

__all__ = [
    "Initializer",
    "constant",
    "delta_orthogonal",
    "glorot_normal",
    "glorot_uniform",
    "he_normal",
    "he_uniform",
    "kaiming_normal",
    "kaiming_uniform",
    "lecun_normal",
    "lecun_uniform",
    "normal",
    "ones",
    "orthogonal",
    "truncated_normal",
    "uniform",
    "variance_scaling",
    "xavier_normal",
    "xavier_uniform",
    "zeros",
]

Initializer = Callable[..., Any]

# The standard deviation of a standard normal truncated to [-2, 2]: dividing by it makes the
# truncated draw have the requested variance.
_TRUNCATED_STDDEV = 0.87962566103423978


def _random():
    # spmd.random sits beside this module (same layer); imported at call time so that spmd.nn
    # loads without it.
    from spmd._src import random

    return random


def _dtype(dtype: Any, default: Any = None) -> np.dtype:
    d = dtype if dtype is not None else default
    return np.dtype(dtypes.canonicalize_dtype(np.float32 if d is None else d))


def _shape(shape: Any) -> tuple[int, ...]:
    if isinstance(shape, int) or np.ndim(shape) == 0:
        return (operator.index(shape),)
    return tuple(operator.index(d) for d in shape)


def _const(value: float, dtype: np.dtype) -> Any:
    # jnp.array(value, dtype): a strongly typed scalar of the parameter dtype.
    return lax_shape.full((), value, dtype)


def zeros(key: Any, shape: Any, dtype: Any = None, out_sharding: Any = None) -> Any:
    """An initializer that returns zeros.

    >>> initializers.zeros(random.key(0), (2,))
    Array([0., 0.], dtype=float32)
    """
    return lax_shape.full(_shape(shape), 0, _dtype(dtype))


def ones(key: Any, shape: Any, dtype: Any = None, out_sharding: Any = None) -> Any:
    """An initializer that returns ones.

    >>> initializers.ones(random.key(0), (2,))
    Array([1., 1.], dtype=float32)
    """
    return lax_shape.full(_shape(shape), 1, _dtype(dtype))


def constant(value: Any, dtype: Any = None) -> Initializer:
    """An initializer that fills with ``value``.

    >>> initializers.constant(-7)(random.key(0), (2,))
    Array([-7., -7.], dtype=float32)
    """

    def init(key, shape, dtype=dtype, out_sharding=None):
        return lax_shape.full(_shape(shape), value, _dtype(dtype))

    return init


def uniform(scale: Any = 1e-2, dtype: Any = None) -> Initializer:
    """An initializer drawing uniformly from ``[0, scale)``."""

    def init(key, shape, dtype=dtype, out_sharding=None):
        d = _dtype(dtype)
        return _random().uniform(key, _shape(shape), d) * _const(scale, d)

    return init


def normal(stddev: Any = 1e-2, dtype: Any = None) -> Initializer:
    """An initializer drawing from a normal distribution with standard deviation ``stddev``."""

    def init(key, shape, dtype=dtype, out_sharding=None):
        d = _dtype(dtype)
        return _random().normal(key, _shape(shape), d) * _const(stddev, d)

    return init


def truncated_normal(
    stddev: Any = 1e-2, dtype: Any = None, lower: Any = -2.0, upper: Any = 2.0
) -> Initializer:
    """An initializer drawing from a normal distribution truncated to ``[lower, upper]``
    (in units of the standard normal), scaled by ``stddev``."""

    def init(key, shape, dtype=dtype, out_sharding=None):
        d = _dtype(dtype)
        draw = _random().truncated_normal(key, lower, upper, _shape(shape), d)
        return draw * _const(stddev, d)

    return init


def _axes(axis: int | Sequence[int], ndim: int) -> tuple[int, ...]:
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return tuple(operator.index(a) % ndim for a in axes)


def _compute_fans(shape: tuple[int, ...], in_axis, out_axis, batch_axis) -> tuple[float, float]:
    """Fan-in and fan-out of a weight of ``shape``: the in/out axes' sizes times the size of
    the receptive field (the other axes, batch axes excluded)."""
    ndim = len(shape)
    if ndim <= 1 and isinstance(in_axis, int) and in_axis == -2:
        raise ValueError(
            f"Can't compute input and output sizes of a {ndim}-dimensional weights tensor with "
            "default in_axis. Must be at least 2D or specify in_axis explicitly."
        )
    ins, outs, batch = _axes(in_axis, ndim), _axes(out_axis, ndim), _axes(batch_axis, ndim)
    in_size = math.prod(shape[i] for i in ins)
    out_size = math.prod(shape[i] for i in outs)
    batch_size = math.prod(shape[i] for i in batch)
    # As JAX computes it: the total size divided by the in, out and batch sizes (so an axis
    # that is both in and out counts twice).
    field = math.prod(shape) / in_size / out_size / batch_size
    return in_size * field, out_size * field


def variance_scaling(
    scale: Any,
    mode: str,
    distribution: str,
    in_axis: int | Sequence[int] = -2,
    out_axis: int | Sequence[int] = -1,
    batch_axis: int | Sequence[int] = (),
    dtype: Any = None,
) -> Initializer:
    """An initializer whose variance is ``scale / n``, ``n`` being the fan-in (``mode=
    "fan_in"``), fan-out, their mean (``"fan_avg"``) or geometric mean (``"fan_geo_avg"``),
    drawn from a ``"truncated_normal"``, ``"normal"`` or ``"uniform"`` distribution.

    >>> init = initializers.variance_scaling(2.0, "fan_in", "normal")
    >>> init(random.key(0), (3, 4)).shape
    (3, 4)
    """

    def init(key, shape, dtype=dtype, out_sharding=None):
        shape = _shape(shape)
        d = _dtype(dtype)
        fan_in, fan_out = _compute_fans(shape, in_axis, out_axis, batch_axis)
        if mode == "fan_in":
            denominator = fan_in
        elif mode == "fan_out":
            denominator = fan_out
        elif mode == "fan_avg":
            denominator = (fan_in + fan_out) / 2
        elif mode == "fan_geo_avg":
            denominator = (fan_in * fan_out) ** 0.5
        else:
            raise ValueError(f"invalid mode for variance scaling initializer: {mode}")
        if dtypes.issubdtype(d, np.complexfloating):
            raise NotImplementedError(
                "variance_scaling: complex dtypes are not supported by spmd yet"
            )
        variance = _const(scale / denominator, d)
        rnd = _random()
        if distribution == "truncated_normal":
            stddev = lax_sqrt(variance) / _const(_TRUNCATED_STDDEV, d)
            return rnd.truncated_normal(key, -2, 2, shape, d) * stddev
        if distribution == "normal":
            return rnd.normal(key, shape, d) * lax_sqrt(variance)
        if distribution == "uniform":
            return rnd.uniform(key, shape, d, -1) * lax_sqrt(3 * variance)
        raise ValueError(f"invalid distribution for variance scaling initializer: {distribution}")

    return init


def glorot_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
    """Glorot (Xavier) uniform: ``variance_scaling(1.0, "fan_avg", "uniform")``."""
    return variance_scaling(1.0, "fan_avg", "uniform", in_axis, out_axis, batch_axis, dtype)


def glorot_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
    """Glorot (Xavier) normal: ``variance_scaling(1.0, "fan_avg", "truncated_normal")``."""
    return variance_scaling(
        1.0, "fan_avg", "truncated_normal", in_axis, out_axis, batch_axis, dtype
    )


def lecun_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
    """LeCun uniform: ``variance_scaling(1.0, "fan_in", "uniform")``."""
    return variance_scaling(1.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def lecun_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
    """LeCun normal: ``variance_scaling(1.0, "fan_in", "truncated_normal")``."""
    return variance_scaling(1.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


def he_uniform(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
    """He (Kaiming) uniform: ``variance_scaling(2.0, "fan_in", "uniform")``."""
    return variance_scaling(2.0, "fan_in", "uniform", in_axis, out_axis, batch_axis, dtype)


def he_normal(in_axis=-2, out_axis=-1, batch_axis=(), dtype=None) -> Initializer:
    """He (Kaiming) normal: ``variance_scaling(2.0, "fan_in", "truncated_normal")``."""
    return variance_scaling(2.0, "fan_in", "truncated_normal", in_axis, out_axis, batch_axis, dtype)


xavier_uniform = glorot_uniform
xavier_normal = glorot_normal
kaiming_uniform = he_uniform
kaiming_normal = he_normal


def orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """An initializer of (semi-)orthogonal matrices: the Q of a QR decomposition of a normal
    draw (signs fixed by R's diagonal), reshaped so ``column_axis`` holds the columns."""

    def init(key, shape, dtype=dtype, out_sharding=None):
        from spmd._src.lax import elementwise as lax
        from spmd._src.lax import linalg as lax_linalg
        from spmd._src.numpy import lax_numpy, shape_ops

        shape = _shape(shape)
        d = _dtype(dtype)
        if len(shape) < 2:
            raise ValueError("orthogonal initializer requires at least a 2D shape")
        n_rows = math.prod(shape) // shape[column_axis]
        n_cols = shape[column_axis]
        matrix_shape = (n_cols, n_rows) if n_rows < n_cols else (n_rows, n_cols)
        a = _random().normal(key, matrix_shape, d)
        q, r = lax_linalg.qr(a, full_matrices=False)
        q = q * lax.sign(lax_numpy.diagonal(r))
        if n_rows < n_cols:
            q = shape_ops.transpose(q)
        rest = tuple(s for i, s in enumerate(shape) if i != column_axis % len(shape))
        q = shape_ops.reshape(q, rest + (shape[column_axis],))
        q = shape_ops.moveaxis(q, -1, column_axis)
        return _const(scale, d) * q

    return init


def delta_orthogonal(scale: Any = 1.0, column_axis: int = -1, dtype: Any = None) -> Initializer:
    """An initializer for 3-5D convolution kernels: orthogonal at the spatial center, zero
    elsewhere (delta-orthogonal initialization)."""

    def init(key, shape, dtype=dtype, out_sharding=None):
        from spmd._src.lax import indexing as lax_indexing

        shape = _shape(shape)
        d = _dtype(dtype)
        if len(shape) not in (3, 4, 5):
            raise ValueError("Delta orthogonal initializer requires a 3D, 4D or 5D shape.")
        if shape[-1] < shape[-2]:
            raise ValueError("`fan_in` must be less or equal than `fan_out`. ")
        ortho = orthogonal(scale=scale, column_axis=column_axis, dtype=d)(key, shape[-2:])
        w = lax_shape.full(shape, 0, d)
        center = tuple(s // 2 for s in shape[:-2])
        return lax_indexing.dynamic_update_slice(
            w,
            lax_shape.reshape(ortho, (1,) * len(center) + shape[-2:]),
            center + (0, 0),
        )

    return init
