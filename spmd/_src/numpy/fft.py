"""The functions of ``spmd.numpy.fft`` (``jnp.fft``), NumPy's discrete Fourier transforms on
the ``fft`` primitive of ``spmd._src.lax.fft``.

Every transform follows one recipe, as JAX's does (so jaxprs print alike): the transformed
axes are moved to the end in the order given, cropped (``slice``) and zero-padded (``jnp.pad``)
to the requested sizes when ``s``/``n`` is given, transformed by one ``lax.fft`` call, scaled
for ``norm`` and moved back. Results are complex64 (float32 for ``irfft``/``hfft``) for float32
and integer inputs, and complex128/float64 for 64-bit ones under x64.

``norm`` is NumPy's: ``"backward"`` (or ``None``) leaves forward transforms unscaled and divides
inverse ones by the number of points, ``"ortho"`` divides both by its square root, and
``"forward"`` divides forward ones instead.

>>> jnp.fft.fft(jnp.array([1.0, 2.0, 3.0, 4.0]))
Array([10.+0.j, -2.+2.j, -2.+0.j, -2.-2.j], dtype=complex64)
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from spmd._src import dtypes
from spmd._src.core import Tracer
from spmd._src.lax import elementwise as lax
from spmd._src.lax import fft as lax_fft
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.fft import FftType
from spmd._src.numpy import ufuncs
from spmd._src.numpy.array_constructors import array, asarray
from spmd._src.numpy.rearranging import _roll_jit, pad
from spmd._src.numpy.reductions import prod
from spmd._src.numpy.util import _dtype_arg, check_arraylike, with_out_sharding

_NORMS = (None, "backward", "ortho", "forward")


# ---------------------------------------------------------------------------------------------
# The shared recipe


def _check_norm(name: str, norm: Any) -> None:
    if not (norm is None or isinstance(norm, str)) or norm not in _NORMS:
        raise ValueError(
            f'jnp.fft.{name}: invalid norm {norm!r}; expected None, "backward", "ortho" or '
            '"forward".'
        )


def _sizes(name: str, s: Any, argname: str) -> tuple[int, ...]:
    """The user's ``s`` (or ``[n]``) as positive Python ints."""
    try:
        items = tuple(s)
    except TypeError:
        raise TypeError(
            f"jnp.fft.{name}: {argname} must be a sequence of integers, got {s!r}."
        ) from None
    out = []
    for v in items:
        if isinstance(v, Tracer):
            operator.index(v)  # raises JAX's error for a traced size
        try:
            out.append(operator.index(v))
        except TypeError:
            what = "an integer" if argname == "n" else "integers"
            shown = s[0] if argname == "n" else s
            raise TypeError(
                f"jnp.fft.{name}: {argname} must be {what}, got {argname}={shown!r} "
                f"({type(v).__name__})."
            ) from None
    out = tuple(out)
    if any(v < 1 for v in out):
        shown = out[0] if argname == "n" else out
        raise ValueError(
            f"jnp.fft.{name}: {argname} must be positive (the number of points to transform), "
            f"got {argname}={shown}."
        )
    return out


def _canon_axis(name: str, axis: Any, ndim: int) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        # AxisError is a ValueError (JAX's class for the transforms) and an IndexError (its
        # class for hfft, ihfft and the shifts).
        raise np.exceptions.AxisError(
            f"jnp.fft.{name}: axis {axis} is out of bounds for array of dimension {ndim}."
        )
    return axis % ndim


def _scale(x: Any, sizes: tuple[int, ...], norm: str | None, forward: bool) -> Any:
    """``x`` scaled for ``norm`` after a forward (or inverse) transform over ``sizes`` points.
    The inverse primitives already divide by the number of points: "backward" is theirs."""
    if norm is None:
        return x
    if norm == "backward":
        return x * 1  # as JAX, which multiplies by one here (the jaxprs show it)
    count = prod(array(sizes, dtype=x.dtype))
    factor = ufuncs.sqrt(count) if norm == "ortho" else count
    return x * (1 / factor if forward else factor)


def _fft_core(
    name: str,
    fft_type: FftType,
    a: Any,
    s: Any,
    axes: Any,
    norm: str | None,
    forward_norm: bool,
) -> Any:
    check_arraylike(f"jnp.fft.{name}", a)
    _check_norm(name, norm)
    arr = asarray(a)
    if fft_type == FftType.RFFT:
        dt = np.dtype(arr.dtype)
        if dtypes.issubdtype(dt, np.inexact) and dt not in (np.float32, np.float64):
            # As JAX: real transforms take float32/float64 (integers convert to float32).
            raise ValueError(
                f"jnp.fft.{name}: the input must be real (float32 or float64, or integers), "
                f"got {dt.name}."
            )
    one_d = name in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
    if s is not None:
        s = _sizes(name, s, "n" if one_d else "s")
    if axes is None:
        if s is not None and len(s) > arr.ndim:
            raise ValueError(
                f"jnp.fft.{name}: s={s} names {len(s)} axes but the array has only {arr.ndim} "
                "dimensions."
            )
        axes = tuple(range(arr.ndim - len(s), arr.ndim)) if s is not None else range(arr.ndim)
    given = tuple(axes)
    axes = tuple(_canon_axis(name, ax, arr.ndim) for ax in given)
    if len(set(axes)) != len(axes):
        raise ValueError(
            f"jnp.fft.{name}: repeated axes in axes={given} (they name dimensions {axes} of "
            f"the {arr.ndim}-dimensional array)."
        )
    if s is not None and len(s) != len(axes):
        raise ValueError(
            f"jnp.fft.{name}: s={s} and axes={given} must have the same length, got {len(s)} "
            f"and {len(axes)}."
        )
    irfft = fft_type == FftType.IRFFT
    # The input sizes along the axes: an inverse real transform of n points reads n // 2 + 1.
    if s is None:
        in_sizes = tuple(arr.shape[ax] for ax in axes)
        out_sizes = in_sizes
        if irfft and axes:
            out_sizes = (*in_sizes[:-1], 2 * (in_sizes[-1] - 1))
    else:
        out_sizes = s
        in_sizes = (*s[:-1], s[-1] // 2 + 1) if irfft and s else s
    # The axes go last, in the order given, behind the others in theirs.
    perm = tuple(i for i in range(arr.ndim) if i not in axes) + axes
    moved = perm != tuple(range(arr.ndim))
    if moved:
        arr = lax_shape.transpose(arr, perm)
    if s is not None:
        lead = arr.ndim - len(axes)
        have = arr.shape[lead:]
        if any(h > w for h, w in zip(have, in_sizes)):
            keep = tuple(min(h, w) for h, w in zip(have, in_sizes))
            arr = lax_shape.slice(arr, (0,) * arr.ndim, (*arr.shape[:lead], *keep))
            have = keep
        widths = [(0, 0)] * lead + [(0, w - h) for h, w in zip(have, in_sizes)]
        arr = pad(arr, widths)
    out = _scale(lax_fft.fft(arr, fft_type, out_sizes), out_sizes, norm, forward_norm)
    if moved:
        out = lax_shape.transpose(out, tuple(np.argsort(perm).tolist()))
    return out


def _one(x: Any) -> Any:
    return None if x is None else [x]


# ---------------------------------------------------------------------------------------------
# One-dimensional transforms


def fft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The discrete Fourier transform along ``axis``; ``n`` crops or zero-pads that axis
    first.

    >>> jnp.fft.fft(jnp.array([1.0, 0.0, -1.0]), n=4)
    Array([0.+0.j, 2.+0.j, 0.+0.j, 2.+0.j], dtype=complex64)
    """
    return _fft_core("fft", FftType.FFT, a, _one(n), [axis], norm, True)


def ifft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The inverse of ``fft`` along ``axis``.

    >>> jnp.fft.ifft(jnp.array([4.0, 0.0, 0.0, 0.0]))
    Array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j], dtype=complex64)
    """
    return _fft_core("ifft", FftType.IFFT, a, _one(n), [axis], norm, False)


def rfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The transform of real input along ``axis``: its ``n // 2 + 1`` non-negative
    frequencies.

    >>> jnp.fft.rfft(jnp.array([1.0, 2.0, 3.0, 4.0]))
    Array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)
    """
    return _fft_core("rfft", FftType.RFFT, a, _one(n), [axis], norm, True)


def irfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The inverse of ``rfft``: ``n`` (default ``2 * (m - 1)`` for ``m`` input frequencies)
    real points along ``axis``.

    >>> jnp.fft.irfft(jnp.array([10.0, -2.0 + 2.0j, -2.0]))
    Array([1., 2., 3., 4.], dtype=float32)
    """
    return _fft_core("irfft", FftType.IRFFT, a, _one(n), [axis], norm, False)


def hfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The transform of a Hermitian-symmetric signal given by its first half: ``n`` real
    points (default ``2 * (m - 1)``).

    >>> jnp.fft.hfft(jnp.array([1.0, 2.0, 3.0]))
    Array([ 8., -2.,  0., -2.], dtype=float32)
    """
    check_arraylike("jnp.fft.hfft", a)
    arr = asarray(a)
    # A forward transform, computed as an inverse real one of the conjugate times n.
    nn = n if n is not None else 2 * (arr.shape[_canon_axis("hfft", axis, arr.ndim)] - 1)
    out = _fft_core("hfft", FftType.IRFFT, ufuncs.conj(arr), _one(n), [axis], norm, True)
    return out * nn


def ihfft(a: Any, n: int | None = None, axis: int = -1, norm: str | None = None) -> Any:
    """The inverse of ``hfft``: the first ``n // 2 + 1`` frequencies of the inverse transform
    of real input.

    >>> jnp.fft.ihfft(jnp.array([8.0, -2.0, 0.0, -2.0]))
    Array([1.+0.j, 2.+0.j, 3.+0.j], dtype=complex64)
    """
    check_arraylike("jnp.fft.ihfft", a)
    arr = asarray(a)
    nn = n if n is not None else arr.shape[_canon_axis("ihfft", axis, arr.ndim)]
    out = _fft_core("ihfft", FftType.RFFT, arr, _one(n), [axis], norm, False)
    return ufuncs.conj(out) * (1 / nn)


# ---------------------------------------------------------------------------------------------
# Two- and n-dimensional transforms


def fftn(
    a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm=None
) -> Any:
    """The transform over ``axes`` (default: all, or the last ``len(s)``); ``s`` crops or
    zero-pads them first.

    >>> jnp.fft.fftn(jnp.ones((2, 2)))
    Array([[4.+0.j, 0.+0.j],
           [0.+0.j, 0.+0.j]], dtype=complex64)
    """
    return _fft_core("fftn", FftType.FFT, a, s, axes, norm, True)


def ifftn(
    a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm=None
) -> Any:
    """The inverse of ``fftn``.

    >>> jnp.fft.ifftn(jnp.array([[4.0, 0.0], [0.0, 0.0]]))
    Array([[1.+0.j, 1.+0.j],
           [1.+0.j, 1.+0.j]], dtype=complex64)
    """
    return _fft_core("ifftn", FftType.IFFT, a, s, axes, norm, False)


def rfftn(
    a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm=None
) -> Any:
    """The transform of real input over ``axes``, the last of them halved to its
    non-negative frequencies.

    >>> jnp.fft.rfftn(jnp.ones((2, 2)))
    Array([[4.+0.j, 0.+0.j],
           [0.+0.j, 0.+0.j]], dtype=complex64)
    """
    return _fft_core("rfftn", FftType.RFFT, a, s, axes, norm, True)


def irfftn(
    a: Any, s: Sequence[int] | None = None, axes: Sequence[int] | None = None, norm=None
) -> Any:
    """The inverse of ``rfftn``: real output of sizes ``s`` (the last axis defaults to
    ``2 * (m - 1)``).

    >>> jnp.fft.irfftn(jnp.array([[4.0, 0.0], [0.0, 0.0]]), s=(2, 2))
    Array([[1., 1.],
           [1., 1.]], dtype=float32)
    """
    return _fft_core("irfftn", FftType.IRFFT, a, s, axes, norm, False)


def fft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm=None):
    """``fftn`` over the last two axes.

    >>> jnp.fft.fft2(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
    Array([[10.+0.j, -2.+0.j],
           [-4.+0.j,  0.+0.j]], dtype=complex64)
    """
    return _fft_core("fft2", FftType.FFT, a, s, axes, norm, True)


def ifft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm=None):
    """``ifftn`` over the last two axes.

    >>> jnp.fft.ifft2(jnp.array([[4.0, 0.0], [0.0, 0.0]]))
    Array([[1.+0.j, 1.+0.j],
           [1.+0.j, 1.+0.j]], dtype=complex64)
    """
    return _fft_core("ifft2", FftType.IFFT, a, s, axes, norm, False)


def rfft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm=None):
    """``rfftn`` over the last two axes.

    >>> jnp.fft.rfft2(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
    Array([[10.+0.j, -2.+0.j],
           [-4.+0.j,  0.+0.j]], dtype=complex64)
    """
    return _fft_core("rfft2", FftType.RFFT, a, s, axes, norm, True)


def irfft2(a: Any, s: Sequence[int] | None = None, axes: Sequence[int] = (-2, -1), norm=None):
    """``irfftn`` over the last two axes.

    >>> jnp.fft.irfft2(jnp.array([[4.0, 0.0], [0.0, 0.0]]))
    Array([[1., 1.],
           [1., 1.]], dtype=float32)
    """
    return _fft_core("irfft2", FftType.IRFFT, a, s, axes, norm, False)


# ---------------------------------------------------------------------------------------------
# Frequencies and shifts


def _freq_count(name: str, n: Any) -> int:
    if isinstance(n, (list, tuple)):
        raise ValueError(f"jnp.fft.{name}: n must be an int (the window length), got n={n!r}.")
    if isinstance(n, Tracer):
        return operator.index(n)  # raises the concretization error
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(
            f"jnp.fft.{name}: n must be an int (the window length), got {n!r} of type "
            f"{type(n).__name__}."
        ) from None
    if n < 0:
        raise ValueError(f"jnp.fft.{name}: n must be non-negative, got n={n}.")
    return n


def _freq_dtype(name: str, dtype: Any) -> tuple[np.dtype, np.dtype]:
    """(result dtype, dtype computed in): integer and complex results are computed in the
    default float type (jnp.remainder takes no complex numbers)."""
    out = dtypes.default_float_dtype() if dtype is None else _dtype_arg(dtype, f"jnp.fft.{name}")
    if dtypes.issubdtype(out, np.floating):
        return out, out
    return out, dtypes.default_float_dtype()


@with_out_sharding("jnp.fft.fftfreq", device=True, out=False)
def fftfreq(n: int, d: Any = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
    """The sample frequencies of ``fft(x, n)`` for sample spacing ``d``: ``[0, 1, ...,
    (n - 1) // 2, -(n // 2), ..., -1] / (d * n)``.

    >>> jnp.fft.fftfreq(4)
    Array([ 0.  ,  0.25, -0.5 , -0.25], dtype=float32)
    """
    n = _freq_count("fftfreq", n)
    out_dt, dt = _freq_dtype("fftfreq", dtype)
    k = lax_shape.iota(dt, n)
    half = n // 2
    k = ufuncs.remainder(k + half, n) - half
    out = k / array(d * n, dtype=dt)
    return out if out_dt == dt else lax.convert_element_type(out, out_dt)


@with_out_sharding("jnp.fft.rfftfreq", device=True, out=False)
def rfftfreq(n: int, d: Any = 1.0, *, dtype: Any = None, device: Any = None) -> Any:
    """The sample frequencies of ``rfft(x, n)`` for sample spacing ``d``: ``[0, 1, ...,
    n // 2] / (d * n)``.

    >>> jnp.fft.rfftfreq(4)
    Array([0.  , 0.25, 0.5 ], dtype=float32)
    """
    n = _freq_count("rfftfreq", n)
    # As JAX: an integer dtype is computed as integers and the result is float (unlike fftfreq).
    dt = dtypes.default_float_dtype() if dtype is None else _dtype_arg(dtype, "jnp.fft.rfftfreq")
    k = lax_shape.iota(dt, n // 2 + 1)
    if not dtypes.issubdtype(dt, np.inexact):
        dt = dtypes.to_inexact_dtype(dt)
        k = lax.convert_element_type(k, dt)
    return k / array(d * n, dtype=dt)


def _shift(name: str, x: Any, axes: Any, sign: int) -> Any:
    check_arraylike(f"jnp.fft.{name}", x)
    arr = asarray(x)
    if axes is None:
        axes = tuple(range(arr.ndim))
    given = tuple(axes) if isinstance(axes, (list, tuple)) else (axes,)
    canon = [_canon_axis(name, ax, arr.ndim) for ax in given]
    shift = tuple(sign * (arr.shape[ax] // 2) for ax in canon)
    # jnp.roll's inner jit directly: jnp.roll refuses an empty tuple of axes (a 0-d array).
    return _roll_jit(arr, shift=shift, axis=tuple(canon))


def fftshift(x: Any, axes: None | int | Sequence[int] = None) -> Any:
    """``x`` rolled so that the zero frequency is in the middle of each of ``axes`` (default:
    all).

    >>> jnp.fft.fftshift(jnp.fft.fftfreq(4))
    Array([-0.5 , -0.25,  0.  ,  0.25], dtype=float32)
    """
    return _shift("fftshift", x, axes, 1)


def ifftshift(x: Any, axes: None | int | Sequence[int] = None) -> Any:
    """The inverse of ``fftshift``.

    >>> jnp.fft.ifftshift(jnp.array([-0.5, -0.25, 0.0, 0.25]))
    Array([ 0.  ,  0.25, -0.5 , -0.25], dtype=float32)
    """
    return _shift("ifftshift", x, axes, -1)


__all__ = [
    "fft",
    "fft2",
    "fftfreq",
    "fftn",
    "fftshift",
    "hfft",
    "ifft",
    "ifft2",
    "ifftn",
    "ifftshift",
    "ihfft",
    "irfft",
    "irfft2",
    "irfftn",
    "rfft",
    "rfft2",
    "rfftfreq",
    "rfftn",
]
