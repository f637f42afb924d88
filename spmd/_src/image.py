"""``jax.image``: ``resize``, ``scale_and_translate`` and ``ResizeMethod``.

Every method but nearest is separable resampling with a kernel: for each spatial dimension a
weight matrix (input size x output size) maps the input's samples to the output's, and the image
is contracted with it (``einsum``), so jit, vmap and grad (also by ``scale`` and ``translation``)
go through ordinary array operations. Pixels are half-centred: input pixel ``i`` sits at
``i + 0.5``; output pixel ``j`` samples the input at ``(j + 0.5 - translation) / scale``. When
downsampling with ``antialias``, the kernel is widened by ``1 / scale`` (a low-pass filter).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src.lax.dot import Precision
from spmd._src.numpy import creation, reductions, ufuncs
from spmd._src.numpy.array_constructors import asarray
from spmd._src.numpy.einsum import einsum
from spmd._src.numpy.indexing import take
from spmd._src.numpy.lax_numpy import where
from spmd._src.numpy.util import check_arraylike, promote_dtypes_inexact
from spmd._src.util import canonicalize_axis

__all__ = ["ResizeMethod", "resize", "scale_and_translate"]


class ResizeMethod(enum.Enum):
    """Image resize method: NEAREST, LINEAR, LANCZOS3, LANCZOS5, CUBIC (Keys, a = -0.5),
    CUBIC_PYTORCH (Keys, a = -0.75, edge padding without antialias) or AREA (box filter)."""

    NEAREST = 0
    LINEAR = 1
    LANCZOS3 = 2
    LANCZOS5 = 3
    CUBIC = 4
    CUBIC_PYTORCH = 5
    AREA = 6

    @staticmethod
    def from_string(s: str) -> ResizeMethod:
        """The method a name stands for (``"bilinear"`` is LINEAR, ``"bicubic"`` CUBIC, ...)."""
        try:
            return _NAMES[s]
        except KeyError:
            raise ValueError(f'Unknown resize method "{s}"') from None


_NAMES = {
    "nearest": ResizeMethod.NEAREST,
    **dict.fromkeys(("linear", "bilinear", "trilinear", "triangle"), ResizeMethod.LINEAR),
    **dict.fromkeys(("cubic", "bicubic", "tricubic"), ResizeMethod.CUBIC),
    **dict.fromkeys(("cubic-pytorch", "bicubic-pytorch"), ResizeMethod.CUBIC_PYTORCH),
    "lanczos3": ResizeMethod.LANCZOS3,
    "lanczos5": ResizeMethod.LANCZOS5,
    "area": ResizeMethod.AREA,
}


def _method(fn: str, method: Any) -> ResizeMethod:
    if isinstance(method, ResizeMethod):
        return method
    if isinstance(method, str):
        return ResizeMethod.from_string(method)
    # AssertionError: the class JAX raises for a method that is neither.
    raise AssertionError(f"{fn}: method must be a ResizeMethod or a string, got {method!r}.")


# ---------------------------------------------------------------------------------------------
# Kernels, as functions of the distance x >= 0 between a sample and a pixel centre


def _triangle(x):
    return ufuncs.maximum(0.0, 1.0 - x)


def _keys_cubic(a: float):
    # Keys' cubic convolution kernel with parameter a (support 2).
    def kernel(x):
        near = ((a + 2) * x - (a + 3)) * x * x + 1
        far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        return where(x <= 1, near, where(x < 2, far, 0.0))

    return kernel


def _lanczos(radius: int):
    def kernel(x):
        # radius sin(pi x) sin(pi x / radius) / (pi x)^2; 1 at 0 (sinc's limit).
        y = ufuncs.sinc(x) * ufuncs.sinc(x / radius)
        return where(x < radius, y, 0.0)

    return kernel


_KERNELS = {
    ResizeMethod.LINEAR: (_triangle, 1),
    ResizeMethod.CUBIC: (_keys_cubic(-0.5), 2),
    ResizeMethod.CUBIC_PYTORCH: (_keys_cubic(-0.75), 2),
    ResizeMethod.LANCZOS3: (_lanczos(3), 3),
    ResizeMethod.LANCZOS5: (_lanczos(5), 5),
}


def _area_weights(in_size, out_size, inv_scale, translation, dtype):
    """Output pixel j covers the input interval [(j - t) / s, (j + 1 - t) / s); each input pixel
    weighs by the length of its overlap with that interval, over the interval's length."""
    j = creation.arange(out_size, dtype=dtype)
    lo = ((j - translation) * inv_scale)[None, :]
    hi = ((j + 1.0 - translation) * inv_scale)[None, :]
    i = creation.arange(in_size, dtype=dtype)[:, None]
    overlap = ufuncs.maximum(ufuncs.minimum(i + 1.0, hi) - ufuncs.maximum(i, lo), 0.0)
    return overlap / (hi - lo)


def _weights(in_size, out_size, scale, translation, method, antialias, dtype):
    """The (in_size, out_size) matrix taking one dimension's input samples to its outputs."""
    inv_scale = 1.0 / scale
    if method is ResizeMethod.CUBIC_PYTORCH and antialias:
        method = ResizeMethod.CUBIC  # PyTorch's antialiased bicubic uses Keys' a = -0.5
    sample = (creation.arange(out_size, dtype=dtype) + 0.5 - translation) * inv_scale
    edge_pad = method is ResizeMethod.CUBIC_PYTORCH and not antialias
    if method is ResizeMethod.AREA:
        w = _area_weights(in_size, out_size, inv_scale, translation, dtype)
    else:
        w = _kernel_weights(in_size, sample, inv_scale, method, antialias, edge_pad, dtype)
    total = reductions.sum(w, axis=0, keepdims=True)
    eps = float(np.finfo(dtype).eps)
    safe = where(ufuncs.abs(total) > 1000 * eps, total, 1.0)
    w = where(ufuncs.abs(total) > 1000 * eps, w / safe, 0.0)
    if edge_pad:
        return w  # the edge extends the input: no sample falls outside
    # Outputs whose sample falls outside the input are 0.
    inside = (sample >= 0.0) & (sample <= in_size)
    return where(inside[None, :], w, 0.0)


def _kernel_weights(in_size, sample, inv_scale, method, antialias, edge_pad, dtype):
    kernel, radius = _KERNELS[method]
    # Downsampling with antialias: the kernel stretched over 1/scale input pixels.
    kernel_scale = ufuncs.maximum(inv_scale, 1.0) if antialias else 1.0
    # The input extended by `radius` pixels each side (samples further out get no weight).
    pad = radius if edge_pad else 0
    centres = creation.arange(-pad, in_size + pad, dtype=dtype) + 0.5
    w = kernel(ufuncs.abs(sample[None, :] - centres[:, None]) / kernel_scale)
    if edge_pad:
        # PyTorch's bicubic reads past the edge as the edge pixel: fold those weights onto it.
        rows = np.clip(np.arange(-pad, in_size + pad), 0, in_size - 1)
        fold = (rows[:, None] == np.arange(in_size)[None, :]).astype(dtype)
        w = einsum("io,ij->jo", w, fold, precision=Precision.HIGHEST)
    return w


def _check_shape(fn: str, image, shape) -> tuple[int, ...]:
    shape = tuple(core.concrete_or_error(int, d, f"{fn}: the output shape") for d in shape)
    if len(shape) != image.ndim:
        raise ValueError(
            f"{fn}: shape must have length equal to the number of dimensions of x; "
            f"{shape} vs {image.shape}"
        )
    return shape


def _scale_and_translate(image, shape, spatial_dims, scale, translation, method, antialias, prec):
    image = promote_dtypes_inexact(image)[0]
    real = np.dtype(dtypes.to_inexact_dtype(ufuncs.real(image).dtype))
    wdt = np.float64 if real == np.float64 else np.float32
    out = image
    for k, d in enumerate(spatial_dims):
        m = shape[d]
        w = _weights(image.shape[d], m, scale[k], translation[k], method, antialias, wdt)
        w = w.astype(real)
        letters = "abcdefghijklmnopqrstuvwxyz"[: image.ndim]
        spec = f"{letters},{letters[d]}Z->{letters.replace(letters[d], 'Z')}"
        out = einsum(spec, out, w, precision=prec)
    return out.astype(image.dtype)


def scale_and_translate(
    image: Any,
    shape: Sequence[int],
    spatial_dims: Sequence[int],
    scale: Any,
    translation: Any,
    method: str | ResizeMethod,
    antialias: bool = True,
    precision: Any = Precision.HIGHEST,
) -> Any:
    """Resample ``image`` to ``shape``: output pixel ``y`` (half-centred) of each of the
    ``spatial_dims`` samples the input at ``(y - translation) / scale``; outputs that map outside
    the input are 0. ``method``: any :class:`ResizeMethod` but NEAREST. Integer images give
    floats."""
    fn = "scale_and_translate"
    check_arraylike(fn, image, scale, translation)
    image = asarray(image)
    shape = _check_shape(fn, image, shape)
    method = _method(fn, method)
    if method is ResizeMethod.NEAREST:
        raise ValueError(
            "Nearest neighbor resampling is not currently supported for scale_and_translate."
        )
    spatial_dims = tuple(canonicalize_axis(d, image.ndim, fn=fn) for d in spatial_dims)
    scale, translation = asarray(scale), asarray(translation)
    for name, v in (("scale", scale), ("translation", translation)):
        if v.shape != (len(spatial_dims),):
            # AssertionError: the class JAX raises here.
            raise AssertionError(
                f"{fn}: {name} must have shape ({len(spatial_dims)},), one entry per spatial "
                f"dimension {spatial_dims}, got shape {v.shape}."
            )
    # Dimensions that are not spatial keep their size, whatever `shape` says (as JAX's).
    shape = tuple(m if d in spatial_dims else n for d, (n, m) in enumerate(zip(image.shape, shape)))
    return _scale_and_translate(
        image, shape, spatial_dims, scale, translation, method, antialias, precision
    )


def _resize_nearest(image, shape):
    out = image
    for d, (n, m) in enumerate(zip(image.shape, shape)):
        if n == m:
            continue
        # Output pixel j takes the input pixel its centre falls in: floor((j + 0.5) * n / m).
        pos = (np.arange(m, dtype=np.float32) + np.float32(0.5)) * np.float32(n / m)
        idx = np.minimum(np.floor(pos).astype(np.int32), n - 1)
        out = take(out, idx, axis=d)
    return out


def resize(
    image: Any,
    shape: Sequence[int],
    method: str | ResizeMethod,
    antialias: bool = True,
    precision: Any = Precision.HIGHEST,
) -> Any:
    """``image`` resampled to ``shape`` (one size per dimension, batch and channel dimensions
    included: leave those unchanged). NEAREST keeps the dtype; the other methods give floats
    (see :class:`ResizeMethod`); ``antialias`` low-pass filters when downsampling."""
    fn = "resize"
    check_arraylike(fn, image)
    image = asarray(image)
    shape = _check_shape(fn, image, shape)
    method = _method(fn, method)
    if math.prod(shape) == 0 or image.size == 0:
        dt = image.dtype if method is ResizeMethod.NEAREST else promote_dtypes_inexact(image)[0]
        dt = dt if isinstance(dt, np.dtype) else dt.dtype
        return creation.zeros(tuple(max(d, 0) for d in shape), dt)
    if method is ResizeMethod.NEAREST:
        return _resize_nearest(image, shape)
    dims = tuple(d for d in range(image.ndim) if image.shape[d] != shape[d])
    if not dims:
        return promote_dtypes_inexact(image)[0]
    scale = [shape[d] / image.shape[d] for d in dims]
    return _scale_and_translate(
        image, shape, dims, scale, [0.0] * len(dims), method, antialias, precision
    )
