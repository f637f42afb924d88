"""The Fourier-transform primitive ``fft`` (``lax.fft``): complex-to-complex forward and inverse
transforms (``FFT``, ``IFFT``), real-to-complex (``RFFT``, the non-redundant half of the last
dimension's spectrum) and its inverse (``IRFFT``), over the trailing ``len(fft_lengths)``
dimensions. As in XLA, ``IFFT`` and ``IRFFT`` divide by the product of the lengths, and
``IRFFT`` reads only the real part of the zero-frequency (and, for even lengths, the Nyquist)
term.

The NumPy kernel calls ``numpy.fft`` in double precision and rounds to the result's type, so
single-precision results are correctly rounded transforms (XLA's own float32 kernels differ
from them by a few ulps of the largest output).

The primitive is linear; its transpose (reverse mode) is the adjoint under JAX's pairing of
complex values, ``re(sum(a * b))`` without conjugation: ``FFT`` and ``IFFT`` are symmetric
matrices and transpose to themselves, ``RFFT`` transposes to a scaled ``IRFFT`` of the
conjugated cotangent, and ``IRFFT`` to the conjugate of a scaled ``RFFT``.

>>> from spmd import lax
>>> lax.fft(jnp.array([1.0, 2.0, 3.0, 4.0]), lax.FftType.RFFT, (4,))
Array([10.+0.j, -2.+2.j, -2.+0.j], dtype=complex64)
"""

from __future__ import annotations

import enum
import math
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src.core import ShapedArray
from spmd._src.interpreters import batching, sharding_rules
from spmd._src.lax import elementwise as ew
from spmd._src.lax.indexing.slicing import dynamic_update_slice
from spmd._src.lax.rules import bdim_at_front, deflinear
from spmd._src.lax.shape import broadcast_in_dim


class FftType(enum.IntEnum):
    """The kind of transform ``lax.fft`` computes (printed in jaxprs as its number, as JAX's)."""

    FFT = 0  # complex -> complex
    IFFT = 1  # complex -> complex, divided by the number of points
    RFFT = 2  # real -> complex, the last dimension's n // 2 + 1 non-negative frequencies
    IRFFT = 3  # complex (half spectrum) -> real, divided by the number of points


# The spellings JAX accepts for a string ``fft_type``: the lower- or upper-case name.
_TYPE_NAMES = {**{t.name: t for t in FftType}, **{t.name.lower(): t for t in FftType}}


def _fft_type(fft_type: Any) -> FftType:
    if isinstance(fft_type, FftType):
        return fft_type
    if isinstance(fft_type, str):
        if fft_type in _TYPE_NAMES:
            return _TYPE_NAMES[fft_type]
        raise ValueError(
            f"lax.fft: unknown FFT type {fft_type!r}; expected one of 'fft', 'ifft', 'rfft', "
            "'irfft' (or lax.FftType)."
        )
    # Plain integers are refused (as in JAX): 2 could be a length as well as a type.
    raise TypeError(
        f"lax.fft: fft_type must be a lax.FftType or a string, got {fft_type!r} of type "
        f"{type(fft_type).__name__}."
    )


def _fft_lengths(fft_lengths: Any) -> tuple[int, ...]:
    try:
        return tuple(operator.index(n) for n in fft_lengths)
    except TypeError:
        raise TypeError(
            f"lax.fft: fft_lengths must be a sequence of integers, got {fft_lengths!r}."
        ) from None


def _complex_dtype(dt: np.dtype) -> np.dtype:
    """The complex type a real (or integer, or bool) operand is transformed in."""
    if dtypes.issubdtype(dt, np.complexfloating):
        return np.dtype(dt)
    wide = dtypes.to_inexact_dtype(dt) == np.float64
    return np.dtype(np.complex128 if wide else np.complex64)


def _real_dtype(dt: np.dtype) -> np.dtype:
    return np.dtype(np.float64 if dt == np.complex128 else np.float32)


# ---------------------------------------------------------------------------------------------
# fft


def fft(x, fft_type: FftType | str, fft_lengths: Sequence[int]):
    """The ``fft_type`` transform of ``x`` over its last ``len(fft_lengths)`` dimensions.

    ``FFT``/``IFFT`` take (or convert to) complex operands whose trailing dimensions equal
    ``fft_lengths``; ``RFFT`` takes real ones (integers convert to float32) and keeps
    ``n // 2 + 1`` entries of the last dimension; ``IRFFT`` takes such half spectra (last
    dimension ``fft_lengths[-1] // 2 + 1``) and returns real arrays of trailing shape
    ``fft_lengths``. As in JAX the call is an inner ``jit`` named ``fft``.

    >>> lax.fft(jnp.array([1.0, 0.0, 0.0, 0.0]), "fft", (4,))
    Array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j], dtype=complex64)
    >>> lax.fft(jnp.array([4.0 + 0j, 0.0]), "irfft", (2,))
    Array([2., 2.], dtype=float32)
    """
    # Normalised here, outside the jit, so that lists of lengths are accepted (they would not
    # hash as static arguments) and a bad type is reported before tracing.
    return _jitted("fft", _fft, 2)(x, _fft_type(fft_type), _fft_lengths(fft_lengths))


_JITS: dict = {}


def _jitted(name: str, fun, n_static: int):
    """``jit(fun)`` whose ``n_static`` arguments after the first are static, shown as
    ``jit[name=<name>]`` in jaxprs: JAX's lax.fft and its rules run through such inner jits."""
    if name not in _JITS:
        from spmd._src.api import jit  # lazy: the api layer (jit) is above lax

        def body(x, *static):
            return fun(x, *static)

        body.__name__ = body.__qualname__ = name
        _JITS[name] = jit(body, static_argnums=tuple(range(1, 1 + n_static)))
    return _JITS[name]


def _fft(x, fft_type: FftType, fft_lengths: tuple[int, ...]):
    """``lax.fft`` without the inner jit: the operand's conversion and one ``fft`` equation."""
    fft_type = _fft_type(fft_type)
    fft_lengths = _fft_lengths(fft_lengths)
    aval = core.get_aval(x)
    dt = np.dtype(aval.dtype)
    if fft_type == FftType.RFFT:
        if dtypes.issubdtype(dt, np.complexfloating):
            raise ValueError(f"lax.fft: RFFT takes real operands only, got {dt.name}.")
        want = dtypes.to_inexact_dtype(dt)
    else:
        want = _complex_dtype(dt)
    if want != dt or aval.weak_type:  # JAX converts weakly typed operands too
        x = ew.convert_element_type(x, want)
    if not fft_lengths:
        return x  # a transform over no dimensions is the identity (JAX binds nothing either)
    return fft_p.bind(x, fft_type=fft_type, fft_lengths=fft_lengths)


def _fft_abstract_eval(x, *, fft_type, fft_lengths):
    shape, dt = tuple(x.shape), np.dtype(x.dtype)
    k = len(fft_lengths)
    name = FftType(fft_type).name
    if k == 0:
        raise ValueError("lax.fft: fft_lengths must name at least one dimension, got ().")
    if k > len(shape):
        raise ValueError(
            f"lax.fft: {name} input shape {shape} must have at least as many dimensions as "
            f"fft_lengths {fft_lengths}."
        )
    if any(n < 0 for n in fft_lengths):
        raise ValueError(f"lax.fft: fft_lengths must be non-negative, got {fft_lengths}.")
    if fft_type == FftType.RFFT:
        if dt not in (np.float32, np.float64):
            raise ValueError(f"lax.fft: RFFT input must be float32 or float64, got {dt.name}.")
    elif not dtypes.issubdtype(dt, np.complexfloating):
        raise TypeError(f"lax.fft: {name} input must be complex64 or complex128, got {dt.name}.")
    if fft_type == FftType.IRFFT:
        want = (*fft_lengths[:-1], fft_lengths[-1] // 2 + 1)
        if shape[len(shape) - k :] != want:
            raise ValueError(
                f"lax.fft: IRFFT input shape {shape} must end in {want} for fft_lengths "
                f"{fft_lengths} (the leading lengths, then fft_lengths[-1] // 2 + 1)."
            )
        return ShapedArray((*shape[:-1], fft_lengths[-1]), _real_dtype(dt))
    if shape[len(shape) - k :] != fft_lengths:
        raise ValueError(
            f"lax.fft: {name} input shape {shape} must end in the fft_lengths {fft_lengths}."
        )
    if fft_type == FftType.RFFT:
        out_dt = np.dtype(np.complex128 if dt == np.float64 else np.complex64)
        return ShapedArray((*shape[:-1], fft_lengths[-1] // 2 + 1), out_dt)
    return ShapedArray(shape, dt)


def _fft_impl(x, *, fft_type, fft_lengths):
    aval = ShapedArray(x.shape, x.dtype)
    out = _fft_abstract_eval(aval, fft_type=fft_type, fft_lengths=fft_lengths)
    if x.size == 0 or 0 in out.shape:
        # numpy.fft refuses zero-point transforms; XLA gives empty (or all-zero) results.
        return np.zeros(out.shape, out.dtype)
    axes = tuple(range(x.ndim - len(fft_lengths), x.ndim))
    # Double precision, then one rounding to the result type.
    if fft_type == FftType.FFT:
        y = np.fft.fftn(x.astype(np.complex128), axes=axes)
    elif fft_type == FftType.IFFT:
        y = np.fft.ifftn(x.astype(np.complex128), axes=axes)
    elif fft_type == FftType.RFFT:
        y = np.fft.rfftn(x.astype(np.float64), axes=axes)
    else:
        y = np.fft.irfftn(x.astype(np.complex128), s=fft_lengths, axes=axes)
    return y.astype(out.dtype)


def _fft_vmap_rule(axis_data, vals, dims, *, fft_type, fft_lengths):
    # The transform reads the trailing dimensions: the batch dimension goes in front. Through
    # the jitted wrapper, as JAX's rule does (so batched jaxprs print alike).
    (x,), (d,) = vals, dims
    x = bdim_at_front(x, d, axis_data.size)
    return fft(x, fft_type, fft_lengths), 0


def _scalar(value: Any, dtype: Any):
    # Weakly typed, as the Python scalars JAX's rules multiply by.
    return core.make_concrete(np.asarray(value, dtype), True)


def _half_spectrum_counts(n: int, ndim: int, dtype: np.dtype):
    """How often each of the ``n // 2 + 1`` stored frequencies of a real length-``n`` signal
    occurs in its full spectrum (once for zero and, for even ``n``, Nyquist; else twice),
    along the last of ``ndim`` dimensions (size 1 in the others: lax broadcasts them)."""
    m = n // 2 + 1
    counts = broadcast_in_dim(_scalar(2, dtype), (m,), ())
    ends = (0, m - 1) if n % 2 == 0 else (0,)
    for i in ends:
        counts = dynamic_update_slice(counts, broadcast_in_dim(_scalar(1, dtype), (1,), ()), (i,))
    return broadcast_in_dim(counts, (1,) * (ndim - 1) + (m,), (ndim - 1,))


def _rfft_transpose(ct, fft_lengths):
    # RFFT(x) is the full FFT's first n//2+1 frequencies, so its transpose is
    # x_j = re(sum_k ct_k e^{-2 pi i jk/n}) (and the leading dimensions' FFT). IRFFT computes
    # sum_k c_k re(Y_k e^{+2 pi i jk/n}) / N with c the counts above: with Y = conj(ct) / c,
    # the transpose is N * IRFFT(Y).
    counts = _half_spectrum_counts(fft_lengths[-1], ct.ndim, ct.dtype)
    y = fft(ew.div(ew.conj(ct), counts), FftType.IRFFT, fft_lengths)
    return ew.mul(_scalar(math.prod(fft_lengths), y.dtype), y)


def _fft_transpose_rule(ct, x, *, fft_type, fft_lengths):
    # The adjoint under the real pairing re(sum(a * b)) of JAX's complex cotangents.
    if fft_type in (FftType.FFT, FftType.IFFT):
        # Multidimensional DFT matrices are symmetric: the transpose is the same transform.
        return [fft(ct, fft_type, fft_lengths)]
    if fft_type == FftType.RFFT:
        return [_jitted("_rfft_transpose", _rfft_transpose, 1)(ct, fft_lengths)]
    # IRFFT(Y)_j = sum_k c_k re(Y_k e^{+2 pi i jk/n}) / N over the half spectrum: its
    # transpose maps a real ct to conj(c / N * RFFT(ct)).
    spec = fft(ct, FftType.RFFT, fft_lengths)
    counts = _half_spectrum_counts(fft_lengths[-1], spec.ndim, spec.dtype)
    scaled = ew.mul(_scalar(1 / math.prod(fft_lengths), spec.dtype), counts)
    return [ew.conj(ew.mul(scaled, spec))]


def _fft_sharding_rule(specs, avals, *, fft_type, fft_lengths):
    # As XLA propagates it: the result keeps the operand's sharding dimension for dimension,
    # the transformed ones included (dimensions whose size changes keep it as far as it divides).
    return sharding_rules.unary_rule(specs, avals)


def _fft_sharding_explicit(specs, avals, *, fft_type, fft_lengths):
    # Explicit axes: the operand's sharding is the result's type, so a transformed dimension
    # whose new size its shards do not divide is an error (as in JAX).
    spec = sharding_rules.unary_rule(specs, avals)
    out = _fft_abstract_eval(avals[0], fft_type=fft_type, fft_lengths=fft_lengths)
    for i, (e, size) in enumerate(zip(spec, out.shape)):
        n = sharding_rules.axis_size(e) if e is not None else 1
        if size % n:
            raise ValueError(
                f"lax.fft: the {FftType(fft_type).name} result "
                f"{sharding_rules.type_str(out, spec)} keeps its operand's sharding "
                f"{sharding_rules.type_str(avals[0], specs[0])}, but dimension {i} of size "
                f"{size} does not split evenly in {n} shards."
            )
    return spec


fft_p = core.Primitive("fft")
fft_p.def_impl(_fft_impl)
fft_p.def_abstract_eval(_fft_abstract_eval)
fft_p.fresh_outputs = True  # numpy.fft and the final astype always allocate
batching.primitive_batchers[fft_p] = _fft_vmap_rule
# Linear: the jvp is the transform of the tangent, the transpose the adjoint above.
deflinear(fft_p, _fft_transpose_rule)
sharding_rules.sharding_rules[fft_p] = _fft_sharding_rule
sharding_rules.explicit_rules[fft_p] = _fft_sharding_explicit


__all__ = ["FftType", "fft", "fft_p"]
