"""``jax.scipy.fft``: the type-2 discrete cosine transform and its inverse (``dct``, ``dctn``,
``idct``, ``idctn``), as SciPy defines them, built from ``jnp.fft`` (Makhoul's one-FFT
reordering), so jit, vmap and grad go through them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import dtypes
from spmd._src.numpy import fft as jfft
from spmd._src.numpy.array_constructors import asarray
from spmd._src.numpy.indexing import take
from spmd._src.numpy.rearranging import flip, pad
from spmd._src.numpy.shape_ops import concatenate, reshape, stack
from spmd._src.numpy.ufuncs import imag, real
from spmd._src.numpy.util import promote_dtypes_inexact

__all__ = ["dct", "dctn", "idct", "idctn"]


def _check(name: str, type: int, norm: str | None) -> None:
    if type != 2:
        raise NotImplementedError("Only DCT type 2 is implemented.")
    if norm is not None and norm not in ("ortho", "backward"):
        raise ValueError(f"jax.scipy.fft.{name}: norm={norm!r} is not implemented")


def _along(values: np.ndarray, axis: int, ndim: int) -> np.ndarray:
    """A vector of constants shaped to broadcast along ``axis``."""
    shape = [1] * ndim
    shape[axis] = len(values)
    return values.reshape(shape)


def _pad_end(x, axis: int, k: int):
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, k)
    return pad(x, widths)


def _resize(x, n: int | None, axis: int):
    """``x`` cut or zero-padded to length ``n`` along ``axis`` (SciPy's ``n``)."""
    if n is None or n == x.shape[axis]:
        return x
    if n < 1:
        raise ValueError(f"jax.scipy.fft: invalid number of data points ({n}) specified")
    if n < x.shape[axis]:
        return take(x, np.arange(n), axis=axis)
    return _pad_end(x, axis, n - x.shape[axis])


def _phase(n: int, sign: float, axis: int, x) -> np.ndarray:
    """``exp(-sign i pi k / 2n)`` for k along ``axis``, in ``x``'s complex type."""
    ctype = np.result_type(x.dtype, np.complex64)
    return _along(np.exp(-sign * 0.5j * np.pi * np.arange(n) / n).astype(ctype), axis, x.ndim)


def _ortho_scale(n: int, axis: int, x) -> np.ndarray:
    s = np.full(n, np.sqrt(1.0 / (2 * n)))
    s[0] = np.sqrt(1.0 / (4 * n))
    return _along(s.astype(x.dtype), axis, x.ndim)


def _dct_real(x, axis: int, norm: str | None):
    n = x.shape[axis]
    # Makhoul: the even samples, then the odd ones reversed, through one FFT.
    v = concatenate([take(x, np.arange(0, n, 2), axis=axis),
                     flip(take(x, np.arange(1, n, 2), axis=axis), axis)], axis=axis)  # fmt: skip
    out = 2 * real(jfft.fft(v, axis=axis) * _phase(n, 1.0, axis, x))
    if norm == "ortho":
        out = out * _ortho_scale(n, axis, x)
    return out.astype(x.dtype)


def _idct_real(y, axis: int, norm: str | None):
    n = y.shape[axis]
    if norm == "ortho":
        # (Scaled so that the unnormalized inverse below, which divides by 2n, gives the
        # orthonormal type-3 transform.)
        y = y / _ortho_scale(n, axis, y)
    # The type-3 transform from one inverse FFT: V_k = (y_k - i y_{n-k}) e^{i pi k / 2n}, with
    # y_n taken as 0; its result holds the even samples, then the odd ones reversed.
    shifted = _pad_end(flip(take(y, np.arange(1, n), axis=axis), axis), axis, 1)
    shifted = concatenate([take(shifted, np.arange(n - 1, n), axis=axis),
                           take(shifted, np.arange(n - 1), axis=axis)], axis=axis)  # fmt: skip
    v = real(jfft.ifft((y - 1j * shifted) * _phase(n, -1.0, axis, y), axis=axis)) * 0.5
    half = (n + 1) // 2
    even = take(v, np.arange(half), axis=axis)
    odd = _pad_end(flip(take(v, np.arange(half, n), axis=axis), axis), axis, 2 * half - n)
    # Interleave: x[2m] = even[m], x[2m + 1] = odd[m].
    out = reshape(stack([even, odd], axis + 1), y.shape[:axis] + (2 * half,) + y.shape[axis + 1 :])
    return take(out, np.arange(n), axis=axis).astype(y.dtype)


def _apply(fn, x, axis: int, norm: str | None):
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return fn(real(x), axis, norm) + 1j * fn(imag(x), axis, norm)
    return fn(x, axis, norm)


def _inexact(x: Any):
    (x,) = promote_dtypes_inexact(asarray(x))
    return x


def dct(x: Any, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The type-2 discrete cosine transform of ``x`` along ``axis`` (``scipy.fft.dct``):
    ``y[k] = 2 sum_m x[m] cos(pi k (2m + 1) / 2n)``, scaled to an orthonormal basis with
    ``norm='ortho'``; ``n`` cuts or zero-pads the input first.

    >>> dct(jnp.array([0.0, 1.0, 2.0, 3.0]))
    Array([12.       , -6.308644 ,  0.       , -0.4483415], dtype=float32)
    """
    _check("dct", type, norm)
    x = _inexact(x)
    axis = _axis("dct", axis, x.ndim)
    return _apply(_dct_real, _resize(x, n, axis), axis, norm)


def idct(x: Any, type: int = 2, n: int | None = None, axis: int = -1, norm: str | None = None):
    """The inverse of ``dct`` (a type-3 transform) along ``axis`` (``scipy.fft.idct``)."""
    _check("idct", type, norm)
    x = _inexact(x)
    axis = _axis("idct", axis, x.ndim)
    return _apply(_idct_real, _resize(x, n, axis), axis, norm)


def _axis(name: str, axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise ValueError(
            f"jax.scipy.fft.{name}: axis {axis} is out of bounds for an array of rank {ndim}"
        )
    return axis % ndim


def _axes_and_sizes(name, x, s, axes):
    if axes is None:
        axes = range(x.ndim) if s is None else range(x.ndim - len(s), x.ndim)
    axes = [_axis(name, a, x.ndim) for a in axes]
    if s is not None and len(s) != len(axes):
        raise ValueError(
            f"jax.scipy.fft.{name}: s and axes must have the same length, got s={tuple(s)} and "
            f"axes={tuple(axes)}"
        )
    return axes, [None] * len(axes) if s is None else list(s)


def dctn(x: Any, type: int = 2, s: Sequence[int] | None = None,
         axes: Sequence[int] | None = None, norm: str | None = None):  # fmt: skip
    """``dct`` along each of ``axes`` (all axes by default; the last ``len(s)`` when only
    ``s`` is given), each cut or zero-padded to its size in ``s``."""
    _check("dctn", type, norm)
    x = _inexact(x)
    for a, n in zip(*_axes_and_sizes("dctn", x, s, axes)):
        x = _apply(_dct_real, _resize(x, n, a), a, norm)
    return x


def idctn(x: Any, type: int = 2, s: Sequence[int] | None = None,
          axes: Sequence[int] | None = None, norm: str | None = None):  # fmt: skip
    """The inverse of ``dctn``: ``idct`` along each of ``axes``."""
    _check("idctn", type, norm)
    x = _inexact(x)
    for a, n in zip(*_axes_and_sizes("idctn", x, s, axes)):
        x = _apply(_idct_real, _resize(x, n, a), a, norm)
    return x
