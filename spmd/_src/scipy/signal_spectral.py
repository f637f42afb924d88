"""``jax.scipy.signal``'s spectral estimators: ``stft``, ``istft``, ``csd`` and ``welch``.

One helper cuts the signal (moved to the last axis, optionally extended at both ends and padded
to whole segments) into overlapping segments by a gather, detrends and windows each, and takes
their FFTs; ``stft`` returns those, ``csd`` and ``welch`` average ``conj(X) * Y`` over the
segments. ``istft`` inverts by overlap-add (a scatter-add) normalised by the summed squared
window. Segment counts and window lengths are shapes, so they must be concrete; the values
(and ``fs``) may be traced.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from spmd._src.numpy import creation, reductions, shape_ops, statistics, ufuncs
from spmd._src.numpy import fft as jfft
from spmd._src.numpy.array_constructors import asarray
from spmd._src.numpy.indexing import take
from spmd._src.numpy.lax_numpy import iscomplexobj, result_type, where
from spmd._src.numpy.rearranging import flip
from spmd._src.numpy.util import check_arraylike, promote_dtypes_inexact
from spmd._src.scipy.signal import detrend as _detrend
from spmd._src.scipy.signal_windows import get_window
from spmd._src.util import canonicalize_axis

__all__ = ["csd", "istft", "stft", "welch"]

_BOUNDARIES = ["even", "odd", "constant", "zeros", None]


def _extend(x, n: int, how: str):
    """``x`` (signal on the last axis) extended by ``n`` points at each end."""
    if n == 0:
        return x
    if how in ("even", "odd") and n >= x.shape[-1]:
        raise ValueError(
            f"The extension length n ({n}) is too big. It must not exceed x.shape[axis]-1, "
            f"which is {x.shape[-1] - 1}."
        )
    if how == "zeros":
        z = creation.zeros(x.shape[:-1] + (n,), x.dtype)
        return shape_ops.concatenate([z, x, z], -1)
    if how == "constant":
        lo = shape_ops.broadcast_to(x[..., :1], x.shape[:-1] + (n,))
        hi = shape_ops.broadcast_to(x[..., -1:], x.shape[:-1] + (n,))
        return shape_ops.concatenate([lo, x, hi], -1)
    lo, hi = flip(x[..., 1 : n + 1], -1), flip(x[..., -n - 1 : -1], -1)
    if how == "odd":
        lo, hi = 2 * x[..., :1] - lo, 2 * x[..., -1:] - hi
    return shape_ops.concatenate([lo, x, hi], -1)


def _window(fn: str, window, nperseg: int | None, input_length: int):
    """(window values, nperseg): a named window is made at nperseg (256 by default, at most the
    input's length); an array window fixes nperseg."""
    if isinstance(window, (str, tuple)):
        if nperseg is None:
            nperseg = 256
        if nperseg > input_length:
            warnings.warn(
                f"nperseg = {nperseg:d} is greater than input length = {input_length:d}, "
                f"using nperseg = {input_length:d}",
                stacklevel=3,
            )
            nperseg = input_length
        return asarray(get_window(window, nperseg).astype(np.float32)), nperseg
    check_arraylike(fn, window)
    win = asarray(window)
    if win.ndim != 1:
        raise ValueError(f"{fn}: window must be 1-D, got shape {win.shape}.")
    if input_length < win.shape[0]:
        raise ValueError(
            f"{fn}: window is longer than input signal ({win.shape[0]} > {input_length})."
        )
    if nperseg is None:
        nperseg = win.shape[0]
    elif nperseg != win.shape[0]:
        raise ValueError(
            f"{fn}: value specified for nperseg is different from length of window "
            f"({nperseg} vs {win.shape[0]})."
        )
    return win, nperseg


def _check_nperseg(nperseg):
    if nperseg is None:
        return None
    nperseg = operator.index(nperseg)
    if nperseg < 1:
        raise ValueError(f"nperseg must be a positive integer, got {nperseg}.")
    return nperseg


def _nfft_noverlap(nperseg: int, nfft, noverlap) -> tuple[int, int]:
    if nfft is None:
        nfft = nperseg
    elif nfft < nperseg:
        raise ValueError(
            f"nfft must be greater than or equal to nperseg (nfft={nfft}, nperseg={nperseg})."
        )
    noverlap = nperseg // 2 if noverlap is None else operator.index(noverlap)
    if noverlap >= nperseg:
        raise ValueError(
            f"noverlap must be less than nperseg (noverlap={noverlap}, nperseg={nperseg})."
        )
    return operator.index(nfft), noverlap


def _segments_fft(x, win, detrend_fn, nperseg: int, nstep: int, nfft: int, twosided: bool):
    """FFTs of the windowed, detrended segments of x's last axis: (..., segments, freqs)."""
    nseg = (x.shape[-1] - nperseg) // nstep + 1
    idx = np.arange(nseg)[:, None] * nstep + np.arange(nperseg)[None, :]
    frames = detrend_fn(take(x, idx, axis=-1))
    frames = win.astype(ufuncs.real(frames).dtype) * frames
    if twosided:
        return jfft.fft(frames, n=nfft)
    return jfft.rfft(ufuncs.real(frames), n=nfft)


def _detrend_fn(detrend, axis: int):
    if not detrend:
        return lambda d: d
    if not callable(detrend):
        return lambda d: _detrend(d, type=detrend, axis=-1)
    if axis != -1:
        # A callable detrends along the caller's axis: move the segment axis there and back.
        return lambda d: shape_ops.moveaxis(detrend(shape_ops.moveaxis(d, -1, axis)), axis, -1)
    return detrend


def _spectral(fn, x, y, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
              scaling, axis, mode, boundary=None, padded=False):  # fmt: skip
    """(freqs, times, result): ``mode="stft"`` the scaled segment FFTs, ``"psd"`` the scaled
    cross spectra (real for y None); frequencies on ``axis``, segments last."""
    if boundary not in _BOUNDARIES:
        raise ValueError(f"Unknown boundary option '{boundary}', must be one of: {_BOUNDARIES}")
    same = y is None
    check_arraylike(fn, x, *(() if same else (y,)))
    if same:
        (x,) = promote_dtypes_inexact(asarray(x))
        outdtype = result_type(x.dtype, np.complex64)
    else:
        x, y = promote_dtypes_inexact(asarray(x), asarray(y))
        outdtype = result_type(x.dtype, np.complex64)
        if x.ndim != y.ndim:
            raise ValueError(
                f"{fn}: x and y must have the same rank ({x.ndim} vs {y.ndim}); shapes "
                f"{x.shape} and {y.shape}."
            )
    axis = canonicalize_axis(operator.index(axis), max(x.ndim, 1), fn=fn)
    if x.ndim and not same:
        outer = [s for d, s in enumerate(x.shape) if d != axis]
        youter = [s for d, s in enumerate(y.shape) if d != axis]
        try:
            np.broadcast_shapes(tuple(outer), tuple(youter))
        except ValueError:
            raise ValueError(
                f"{fn}: x and y cannot be broadcast together (shapes {x.shape} and {y.shape} "
                f"off axis {axis})."
            ) from None
    if x.size == 0 or (not same and y.size == 0):
        empty = creation.zeros((0,), ufuncs.real(x).dtype)
        return empty, empty, creation.zeros(x.shape if same else (0,), x.dtype)
    x = shape_ops.moveaxis(x, axis, -1)
    if not same:
        y = shape_ops.moveaxis(y, axis, -1)
        # Unequal lengths: the shorter signal is zero-padded at the end.
        n = max(x.shape[-1], y.shape[-1])
        pad = lambda a: _extend_end(a, n - a.shape[-1])  # noqa: E731
        x, y = pad(x), pad(y)
    nperseg = _check_nperseg(nperseg)
    win, nperseg = _window(fn, window, nperseg, x.shape[-1])
    nfft, noverlap = _nfft_noverlap(nperseg, nfft, noverlap)
    nstep = nperseg - noverlap
    if boundary is not None:
        x = _extend(x, nperseg // 2, boundary)
        y = y if same else _extend(y, nperseg // 2, boundary)
    if padded:
        # Zeros at the end up to a whole number of segments.
        nadd = (-(x.shape[-1] - nperseg) % nstep) % nperseg
        x = _extend_end(x, nadd)
        y = y if same else _extend_end(y, nadd)
    win = win.astype(ufuncs.real(creation.zeros((), outdtype)).dtype)
    if scaling == "density":
        scale = 1.0 / (fs * reductions.sum(win * win))
    elif scaling == "spectrum":
        scale = 1.0 / reductions.sum(win) ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling}")
    if mode == "stft":
        scale = ufuncs.sqrt(scale)
    twosided = not return_onesided or iscomplexobj(x) or (not same and iscomplexobj(y))
    if return_onesided and twosided:
        warnings.warn("Input data is complex, switching to return_onesided=False", stacklevel=3)
    freqs = (jfft.fftfreq if twosided else jfft.rfftfreq)(nfft, 1.0) * fs
    detrend_fn = _detrend_fn(detrend, axis)
    result = _segments_fft(x, win, detrend_fn, nperseg, nstep, nfft, twosided)
    if not same:
        result = ufuncs.conj(result) * _segments_fft(
            y, win, detrend_fn, nperseg, nstep, nfft, twosided
        )
    elif mode == "psd":
        result = ufuncs.conj(result) * result
    result = result * scale
    if mode == "psd" and not twosided:
        # One-sided: the negative frequencies' power folded onto the positive ones.
        double = np.full(result.shape[-1], 2.0, np.float32)
        double[0] = 1.0
        if nfft % 2 == 0:
            double[-1] = 1.0
        result = result * double
    times = np.arange(nperseg / 2, x.shape[-1] - nperseg / 2 + 1, nstep)
    if boundary is not None:
        times = times - nperseg / 2
    times = asarray(times.astype(np.float32)) / fs
    result = result.astype(outdtype)
    if same and mode != "stft":
        result = ufuncs.real(result)
    # Frequencies back to the data's axis; the segments stay last.
    result = shape_ops.moveaxis(result, -1, axis)
    return freqs.astype(times.dtype), times, result


def _extend_end(x, n: int):
    if n == 0:
        return x
    return shape_ops.concatenate([x, creation.zeros(x.shape[:-1] + (n,), x.dtype)], -1)


def _median_bias(n: int) -> float:
    ii = 2 * np.arange(1, (n - 1) // 2 + 1)
    return float(1 + np.sum(1.0 / (ii + 1) - 1.0 / ii))


def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
        detrend="constant", return_onesided=True, scaling="density", axis=-1,
        average="mean"):  # fmt: skip
    """(frequencies, cross power spectral density of x and y) by Welch's method: the
    ``average`` (``"mean"`` or ``"median"``) over segments of ``conj(X) * Y``. ``y=None`` is
    the power spectral density of x (real)."""
    freqs, _, pxy = _spectral(
        "csd", x, y, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling,
        axis, "psd",
    )  # fmt: skip
    if pxy.ndim >= 2 and pxy.size > 0:
        if pxy.shape[-1] > 1:
            if average == "median":
                bias = _median_bias(pxy.shape[-1])
                if iscomplexobj(pxy):
                    re = statistics.median(ufuncs.real(pxy), axis=-1)
                    im = statistics.median(ufuncs.imag(pxy), axis=-1)
                    pxy = (re + 1j * im).astype(pxy.dtype)
                else:
                    pxy = statistics.median(pxy, axis=-1)
                pxy = pxy / bias
            elif average == "mean":
                pxy = statistics.mean(pxy, axis=-1)
            else:
                raise ValueError(f'average must be "median" or "mean", got {average}')
        else:
            pxy = pxy[..., 0]
    return freqs, pxy


def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,
          detrend="constant", return_onesided=True, scaling="density", axis=-1,
          average="mean"):  # fmt: skip
    """(frequencies, power spectral density of x) by Welch's method: the average of the
    segments' periodograms (see :func:`csd`)."""
    freqs, pxx = csd(
        x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling, axis,
        average,
    )  # fmt: skip
    return freqs, ufuncs.real(pxx)


def stft(x, fs=1.0, window="hann", nperseg=256, noverlap=None, nfft=None, detrend=False,
         return_onesided=True, boundary="zeros", padded=True, axis=-1):  # fmt: skip
    """(frequencies, segment times, short-time Fourier transform) of x along ``axis``: the
    FFTs of overlapping windowed segments, scaled by ``1 / sum(window)``."""
    return _spectral(
        "stft", x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
        "spectrum", axis, "stft", boundary, padded,
    )  # fmt: skip


def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None,  # noqa: N803
          input_onesided=True, boundary=True, time_axis=-1, freq_axis=-2):  # fmt: skip
    """(times, signal): the inverse of :func:`stft` by overlap-add of the segments' inverse
    FFTs, each windowed and the sum divided by the summed squared window."""
    fn = "istft"
    check_arraylike(fn, Zxx)
    z = asarray(Zxx)
    z = z.astype(result_type(z.dtype, np.complex64))
    if z.ndim < 2:
        raise ValueError(f"Input stft must be at least 2d! Got shape {z.shape}.")
    freq_axis = canonicalize_axis(operator.index(freq_axis), z.ndim, fn=fn)
    time_axis = canonicalize_axis(operator.index(time_axis), z.ndim, fn=fn)
    if freq_axis == time_axis:
        raise ValueError("Must specify differing time and frequency axes!")
    nseg = z.shape[time_axis]
    n_default = 2 * (z.shape[freq_axis] - 1) if input_onesided else z.shape[freq_axis]
    nperseg = n_default if nperseg is None else _check_nperseg(nperseg)
    if nfft is None:
        # An odd nperseg one past the default: the one-sided spectrum of an odd-length FFT.
        nfft = nperseg if input_onesided and nperseg == n_default + 1 else n_default
    nfft, noverlap = _nfft_noverlap(nperseg, nfft, noverlap)
    nstep = nperseg - noverlap
    outer = [d for d in range(z.ndim) if d not in (freq_axis, time_axis)]
    z = shape_ops.transpose(z, outer + [freq_axis, time_axis])
    if isinstance(window, (str, tuple)):
        win = asarray(get_window(window, nperseg).astype(np.float32))
    else:
        check_arraylike(fn, window)
        win = asarray(window)
        if win.ndim != 1:
            raise ValueError(f"{fn}: window must be 1-D, got shape {win.shape}.")
        if win.shape[0] != nperseg:
            raise ValueError(f"window must have length of {nperseg}, got {win.shape[0]}.")
    inverse = jfft.irfft if input_onesided else jfft.ifft
    segs = inverse(z, n=nfft, axis=-2)[..., :nperseg, :]
    win = win.astype(ufuncs.real(segs).dtype)
    # The stft's "spectrum" scaling undone; each segment windowed again (..., nseg, nperseg).
    segs = shape_ops.swapaxes(segs, -1, -2) * (reductions.sum(win) * win)
    length = nperseg + (nseg - 1) * nstep
    idx = np.arange(nseg)[:, None] * nstep + np.arange(nperseg)[None, :]
    out = creation.zeros(segs.shape[:-2] + (length,), segs.dtype).at[..., idx].add(segs)
    norm = (
        creation.zeros((length,), win.dtype)
        .at[idx]
        .add(shape_ops.broadcast_to(win * win, idx.shape))
    )
    if boundary:
        cut = slice(nperseg // 2, length - nperseg // 2)
        out, norm = out[..., cut], norm[cut]
    # Divided by the summed squared window where it is not tiny (SciPy's NOLA threshold).
    out = out / where(norm > 1e-10, norm, 1.0)
    if input_onesided:
        out = ufuncs.real(out)
    if out.ndim > 1 and time_axis != z.ndim - 1:
        t_ax = time_axis - 1 if freq_axis < time_axis else time_axis
        out = shape_ops.moveaxis(out, -1, t_ax)
    # The times count the output's first axis (SciPy's and JAX's rule, whichever axis is time).
    times = asarray(np.arange(out.shape[0]))
    return times.astype(np.float32) / fs, out
