"""``jax.scipy.signal``: convolutions (``convolve``, ``correlate``, their 2-D forms and
``fftconvolve``) and ``detrend``. The spectral estimators (``stft``, ``istft``, ``csd``,
``welch``) are in ``signal_spectral``.

Direct convolutions are one ``lax.conv_general_dilated`` (the full convolution, then the
``mode``'s window of it); ``fftconvolve`` multiplies ``fft``s. Inputs are promoted to an
inexact dtype (integers and bools give float32), as JAX's.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src.lax import convolution as lax_conv
from spmd._src.numpy import fft as jfft
from spmd._src.numpy import reductions, shape_ops, statistics, ufuncs
from spmd._src.numpy.array_constructors import asarray
from spmd._src.numpy.lax_numpy import iscomplexobj
from spmd._src.numpy.rearranging import flip
from spmd._src.numpy.util import check_arraylike, promote_dtypes_inexact
from spmd._src.util import canonicalize_axis

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "detrend", "fftconvolve"]

_MODES = ("full", "same", "valid")


def _check_mode(mode: str) -> None:
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {list(_MODES)}, got {mode!r}")


def _window(full, s1: Sequence[int], s2: Sequence[int], axes: Sequence[int], mode: str, shift):
    """The ``mode``'s part of a full convolution along ``axes``: all of it, the centred
    ``s1``-sized part (``same``; ``shift`` gives each axis' start) or the part that needs no
    padding (``valid``)."""
    if mode == "full":
        return full
    idx = [slice(None)] * full.ndim
    for ax, n1, n2 in zip(axes, s1, s2):
        if mode == "same":
            start = shift(n1, n2)
            idx[ax] = slice(start, start + n1)
        else:
            idx[ax] = slice(min(n1, n2) - 1, max(n1, n2))
    return full[tuple(idx)]


def _check_valid(fn: str, s1, s2, mode: str) -> None:
    if mode == "valid" and not (
        all(a >= b for a, b in zip(s1, s2)) or all(b >= a for a, b in zip(s1, s2))
    ):
        raise ValueError(
            f"{fn}: in mode 'valid' one input must be smaller than the other in every "
            f"dimension; got shapes {tuple(s1)} and {tuple(s2)}."
        )


def _conv_same_start(n1: int, n2: int) -> int:
    return (n2 - 1) // 2


def _direct(fn: str, in1, in2, mode: str, precision, same_start=_conv_same_start):
    """The convolution of in1 and in2 (same rank) by ``lax.conv_general_dilated``."""
    if in1.ndim == 0:
        return in1 * in2
    if in1.size == 0 or in2.size == 0:
        raise ValueError(
            f"{fn}: zero-size arrays not supported in convolutions, got shapes {in1.shape} "
            f"and {in2.shape}."
        )
    _check_valid(fn, in1.shape, in2.shape, mode)
    nd = in1.ndim
    # The kernel flipped (lax convolutions correlate), padded for every overlap.
    kernel = flip(in2)[None, None]
    pads = [(k - 1, k - 1) for k in in2.shape]
    full = lax_conv.conv_general_dilated(
        in1[None, None], kernel, (1,) * nd, pads, precision=precision
    )[0, 0]
    return _window(full, in1.shape, in2.shape, range(nd), mode, same_start)


def _promote(fn: str, in1, in2):
    check_arraylike(fn, in1, in2)
    in1, in2 = promote_dtypes_inexact(asarray(in1), asarray(in2))
    if in1.ndim != in2.ndim:
        raise ValueError(
            f"{fn}: in1 and in2 must have the same number of dimensions, got shapes "
            f"{in1.shape} and {in2.shape}."
        )
    return in1, in2


def _method(method: str) -> str:
    if method not in ("auto", "direct", "fft"):
        raise ValueError(f"Got method={method!r}; expected 'auto', 'fft', or 'direct'.")
    return method


def convolve(in1: Any, in2: Any, mode: str = "full", method: str = "auto", precision=None):
    """N-dimensional convolution of ``in1`` and ``in2`` (same rank); ``mode`` ``"full"``,
    ``"same"`` (centred, ``in1``'s size) or ``"valid"`` (no padding). ``method="fft"`` uses
    :func:`fftconvolve`; ``"auto"`` and ``"direct"`` a convolution primitive."""
    _check_mode(mode)
    if _method(method) == "fft":
        return fftconvolve(in1, in2, mode=mode)
    in1, in2 = _promote("convolve", in1, in2)
    return _direct("convolve", in1, in2, mode, precision)


def correlate(in1: Any, in2: Any, mode: str = "full", method: str = "auto", precision=None):
    """N-dimensional cross-correlation: the convolution of ``in1`` with ``in2`` reversed (and
    conjugated), with :func:`convolve`'s modes and methods."""
    _check_mode(mode)
    _method(method)
    in1, in2 = _promote("correlate", in1, in2)
    in2 = flip(ufuncs.conj(in2)) if in2.ndim else ufuncs.conj(in2)
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    return _direct("correlate", in1, in2, mode, precision)


def _check_2d(fn: str, in1, in2, boundary: str, fillvalue) -> None:
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{fn}() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError(
            f"{fn}() only supports 2-dimensional inputs, got shapes {np.shape(in1)} and "
            f"{np.shape(in2)}."
        )


def convolve2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0, precision=None):
    """2-D :func:`convolve` (``boundary="fill"`` with ``fillvalue=0`` only)."""
    _check_mode(mode)
    _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    in1, in2 = _promote("convolve2d", in1, in2)
    return _direct("convolve2d", in1, in2, mode, precision)


def correlate2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0, precision=None):
    """2-D :func:`correlate`. Its ``"same"`` window is centred as SciPy's ``correlate2d``'s
    (one to the right of :func:`correlate`'s for even kernel sizes)."""
    _check_mode(mode)
    _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    in1, in2 = _promote("correlate2d", in1, in2)
    swap = mode == "valid" and all(b >= a for a, b in zip(in1.shape, in2.shape))
    swap = swap and in1.shape != in2.shape
    if swap:
        # SciPy correlates the larger with the smaller and reverses: the same values.
        in1, in2 = in2, in1
    out = _direct(
        "correlate2d", in1, flip(ufuncs.conj(in2)), mode, precision, lambda n1, n2: n2 // 2
    )
    return flip(ufuncs.conj(out)) if swap else out


def fftconvolve(in1: Any, in2: Any, mode: str = "full", axes: Sequence[int] | int | None = None):
    """Convolution by fast Fourier transforms along ``axes`` (all by default); the other axes
    must have equal sizes. Modes as :func:`convolve`'s."""
    fn = "fftconvolve"
    _check_mode(mode)
    check_arraylike(fn, in1, in2)
    in1, in2 = promote_dtypes_inexact(asarray(in1), asarray(in2))
    if in1.ndim != in2.ndim:
        raise ValueError(
            f"{fn}: in1 and in2 should have the same dimensionality, got shapes {in1.shape} "
            f"and {in2.shape}."
        )
    if axes is None:
        axes = tuple(range(in1.ndim))
    else:
        axes = (axes,) if isinstance(axes, int) else tuple(axes)
        axes = tuple(canonicalize_axis(operator.index(a), in1.ndim, fn=fn) for a in axes)
    other = [d for d in range(in1.ndim) if d not in axes]
    if any(in1.shape[d] != in2.shape[d] for d in other):
        raise ValueError(
            f"{fn}: mapped axes must have same shape; got in1.shape={in1.shape} "
            f"in2.shape={in2.shape} axes={axes}"
        )
    s1 = [in1.shape[a] for a in axes]
    s2 = [in2.shape[a] for a in axes]
    _check_valid(fn, s1, s2, mode)
    full_shape = [a + b - 1 for a, b in zip(s1, s2)]
    if not axes:
        out = in1 * in2
    elif iscomplexobj(in1) or iscomplexobj(in2):
        f1 = jfft.fftn(in1, s=full_shape, axes=axes)
        f2 = jfft.fftn(in2, s=full_shape, axes=axes)
        out = jfft.ifftn(f1 * f2, s=full_shape, axes=axes)
    else:
        f1 = jfft.rfftn(in1, s=full_shape, axes=axes)
        f2 = jfft.rfftn(in2, s=full_shape, axes=axes)
        out = jfft.irfftn(f1 * f2, s=full_shape, axes=axes)
    out = out.astype(in1.dtype)
    return _window(out, s1, s2, axes, mode, _conv_same_start)


def detrend(
    data: Any,
    axis: int = -1,
    type: str = "linear",  # noqa: A002 -- SciPy's name
    bp: int | Sequence[int] | np.ndarray = 0,
    overwrite_data: None = None,
) -> Any:
    """``data`` less its trend along ``axis``: its mean (``type="constant"``) or a least-squares
    line, fitted separately between the breakpoints ``bp`` (``type="linear"``)."""
    fn = "detrend"
    if overwrite_data is not None:
        raise NotImplementedError("overwrite_data argument not implemented.")
    if type not in ("constant", "linear"):
        raise ValueError(f"Trend type must be 'linear' or 'constant', got {type!r}.")
    check_arraylike(fn, data)
    (data,) = promote_dtypes_inexact(asarray(data))
    if type == "constant":
        return data - statistics.mean(data, axis, keepdims=True)
    axis = canonicalize_axis(axis, data.ndim, fn=fn)
    n = data.shape[axis]
    bps = np.asarray(bp, dtype=np.int64).ravel()
    if ((bps < 0) | (bps > n)).any():
        raise ValueError(
            f"{fn}: Breakpoints must be non-negative and less than length of data along given "
            f"axis; got bp={bps.tolist()} for length {n}."
        )
    if n == 0:
        return data
    edges = np.unique(np.concatenate([[0], bps, [n]]))
    x = shape_ops.moveaxis(data, axis, -1)
    pieces = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        y = x[..., lo:hi]
        # The residual of a least-squares line: centre both coordinates, remove the slope.
        t = np.arange(hi - lo, dtype=np.float64)
        t = (t - t.mean()).astype(np.dtype(ufuncs.real(y).dtype))
        tt = float(np.dot(t, t))
        yc = y - statistics.mean(y, -1, keepdims=True)
        slope = reductions.sum(yc * t, -1, keepdims=True) / tt if tt > 0 else 0.0
        pieces.append(yc - slope * t)
    out = shape_ops.concatenate(pieces, -1) if len(pieces) > 1 else pieces[0]
    return shape_ops.moveaxis(out, -1, axis)
