"""Numerical helpers of ``spmd.numpy``: 1-D interpolation (``interp``), integration and
differentiation of sampled data (``trapezoid``, ``gradient``, ``ediff1d``), covariance and
correlation matrices (``cov``, ``corrcoef``), phase unwrapping (``unwrap``) and the window
functions (``bartlett``, ``blackman``, ``hamming``, ``hanning``, ``kaiser``).

Dtypes, weak types and errors follow JAX 0.10; arguments JAX makes static (``axis``, ``ddof``,
``rowvar``...) refuse traced values with the ValueError JAX raises, and a window's length ``M``
must be concrete.

>>> jnp.interp(jnp.array([0.5, 1.5]), jnp.array([0.0, 1.0, 2.0]), jnp.array([0.0, 10.0, 0.0]))
Array([5., 5.], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from spmd._src import dtypes
from spmd._src.core import Tracer
from spmd._src.errors import ConcretizationTypeError
from spmd._src.lax import elementwise as lax
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.sorting import sort as lax_sort
from spmd._src.numpy import ufuncs
from spmd._src.numpy.creation import arange, full, ones, zeros
from spmd._src.numpy.lax_numpy import diagonal, diff, where
from spmd._src.numpy.polynomial import _check_static
from spmd._src.numpy.products import matmul
from spmd._src.numpy.reductions import cumsum
from spmd._src.numpy.reductions import sum as _sum
from spmd._src.numpy.shape_ops import atleast_2d, concatenate, moveaxis, ravel, reshape, squeeze
from spmd._src.numpy.sorting import searchsorted
from spmd._src.numpy.statistics import average, mean
from spmd._src.numpy.util import (
    _axis,
    _dtype_arg,
    _named_jit,
    _scalar,
    check_arraylike,
    convert,
    promote_dtypes_inexact,
    promote_dtypes_numeric,
    to_array,
)

__all__ = [
    "bartlett",
    "blackman",
    "corrcoef",
    "cov",
    "ediff1d",
    "gradient",
    "hamming",
    "hanning",
    "interp",
    "kaiser",
    "trapezoid",
    "unwrap",
]


def _slice(x, start: int, stop: int, axis: int):
    return lax_shape.slice_in_dim(x, start, stop, axis=axis)


def _along(v, ndim: int, axis: int):
    """1-D ``v`` shaped to broadcast along ``axis`` of an ``ndim``-dimensional array."""
    shape = [1] * ndim
    shape[axis] = v.shape[0]
    return reshape(v, tuple(shape))


# ---------------------------------------------------------------------------------------------
# Interpolation


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of the points ``(xp, fp)`` (``xp`` increasing) at ``x``.
    Outside ``xp``, ``left``/``right`` (default ``fp[0]``/``fp[-1]``; ``'extrapolate'`` extends
    the end segments); with ``period``, ``x`` and ``xp`` are taken modulo it and
    ``left``/``right`` are ignored.

    >>> jnp.interp(jnp.array([-1.0, 2.5]), jnp.array([0.0, 2.0]), jnp.array([1.0, 3.0]))
    Array([1., 3.], dtype=float32)
    """
    check_arraylike("interp", x, xp, fp)
    for name, val in (("left", left), ("right", right)):
        if isinstance(val, str):
            if val != "extrapolate":
                raise ValueError(
                    f"the only valid string value of `{name}` is 'extrapolate', but got: {val!r}"
                )
        elif val is not None:
            check_arraylike("interp", val)
    x, xp, fp = to_array(x), to_array(xp), to_array(fp)
    if dtypes.issubdtype(x.dtype, np.complexfloating) or dtypes.issubdtype(
        xp.dtype, np.complexfloating
    ):
        raise ValueError(
            f"jnp.interp: complex x values not supported (got x of dtype {x.dtype} and xp of "
            f"dtype {xp.dtype})."
        )
    if xp.ndim != 1 or fp.ndim != 1 or xp.shape[0] != fp.shape[0]:
        raise ValueError(
            "xp and fp must be one-dimensional arrays of equal size (interp got xp of shape "
            f"{xp.shape} and fp of shape {fp.shape})."
        )
    if xp.shape[0] == 0:
        # JAX fails gathering fp[0] from an empty array (a TypeError).
        raise TypeError("interp: xp and fp are empty; at least one sample point is required.")
    x, xp = promote_dtypes_inexact(x, xp)
    (fp,) = promote_dtypes_inexact(fp)
    if period is not None:
        check_arraylike("interp", period)
        if np.ndim(period) != 0:
            raise ValueError(f"period must be a scalar; got {period} (interp).")
        period = ufuncs.abs(period)
        x = ufuncs.remainder(x, period)
        xp = ufuncs.remainder(xp, period)
        xp, fp = lax_sort((xp, fp), dimension=0, is_stable=True, num_keys=1)
        # One sample past each end, so points beyond the last (or before the first) interpolate
        # across the period's wrap-around.
        xp = concatenate([xp[-1:] - period, xp, xp[:1] + period])
        fp = concatenate([fp[-1:], fp, fp[:1]])
    n = xp.shape[0]
    i = ufuncs.minimum(ufuncs.maximum(searchsorted(xp, x, side="right"), 1), n - 1)
    im1 = i - 1
    # With one sample, i - 1 is -1, which addresses that sample (as JAX's indexing wraps it).
    im1 = where(im1 < 0, im1 + n, im1)
    f_lo = fp[im1]
    df = fp[i] - f_lo
    dx = xp[i] - xp[im1]
    delta = x - xp[im1]
    # Segments no longer than eps**2 (repeated xp) take their left value, as in JAX.
    eps2 = float(dtypes.finfo(dx.dtype).eps) ** 2
    dx0 = ufuncs.abs(dx) <= _scalar(eps2, dx.dtype)
    f = where(dx0, f_lo, f_lo + (delta / where(dx0, 1, dx)) * df)
    if period is None:
        if not isinstance(left, str):
            f = where(x < xp[0], fp[0] if left is None else left, f)
        if not isinstance(right, str):
            f = where(x > xp[-1], fp[-1] if right is None else right, f)
    return f


# ---------------------------------------------------------------------------------------------
# Integration and differences


def trapezoid(y, x=None, dx=1.0, axis: int = -1):
    """Integral of the samples ``y`` along ``axis`` by the trapezoidal rule, at positions ``x``
    or evenly spaced by ``dx``.

    >>> jnp.trapezoid(jnp.array([1.0, 2.0, 4.0]), dx=0.5)
    Array(2.25, dtype=float32)
    """
    _check_static("trapezoid", "axis", axis)
    if x is None:
        check_arraylike("trapezoid", y, dx)
        (y,) = promote_dtypes_inexact(y)
        y = to_array(y)
        ax = _axis(axis, y.ndim, "trapezoid")
        if y.shape[ax] == 0:
            # JAX reads y's first sample (an IndexError).
            raise IndexError(
                f"trapezoid: y has no samples along axis {axis} (shape {y.shape}); at least one "
                "is required."
            )
        y = moveaxis(y, ax, -1)
        if np.ndim(dx) == 0:
            # Even spacing: the interior samples count fully, the two ends by half.
            return dx * (_sum(y, axis=-1) - 0.5 * (y[..., 0] + y[..., -1]))
        # An array dx holds one spacing per interval (broadcast against y with axis last), as
        # the differences of x would.
        d = to_array(dx)
    else:
        check_arraylike("trapezoid", y, x)
        y, x = promote_dtypes_inexact(y, x)
        y, x = to_array(y), to_array(x)
        ax = _axis(axis, y.ndim, "trapezoid")
        y = moveaxis(y, ax, -1)
        d = diff(x) if x.ndim == 1 else moveaxis(diff(x, axis=ax), ax, -1)
    avg = y[..., 1:] + y[..., :-1]
    try:
        prod = d * avg
    except (TypeError, ValueError) as err:
        raise type(err)(
            f"trapezoid: the spacings (shape {np.shape(d)}"
            + ("" if x is None else f", from x of shape {x.shape}")
            + f") do not broadcast against y "
            f"(shape {tuple(y.shape)} with axis {axis} moved last): {err}"
        ) from None
    return 0.5 * _sum(prod, axis=-1)


def _gradient_along(f, h, ax: int):
    n = f.shape[ax]
    if np.ndim(h) == 0:
        first = (_slice(f, 1, 2, ax) - _slice(f, 0, 1, ax)) / h
        last = (_slice(f, n - 1, n, ax) - _slice(f, n - 2, n - 1, ax)) / h
        inner = (_slice(f, 2, n, ax) - _slice(f, 0, n - 2, ax)) * 0.5 / h
    else:
        # Second-order differences on an uneven grid (NumPy's weights), first order at the ends.
        h = to_array(h)
        dx1 = h[1:-1] - h[:-2]
        dx2 = h[2:] - h[1:-1]
        a = -dx2 / (dx1 * (dx1 + dx2))
        b = (dx2 - dx1) / (dx1 * dx2)
        c = dx1 / (dx2 * (dx1 + dx2))
        a, b, c = (_along(v, f.ndim, ax) for v in (a, b, c))
        inner = a * _slice(f, 0, n - 2, ax) + b * _slice(f, 1, n - 1, ax) + c * _slice(f, 2, n, ax)
        first = (_slice(f, 1, 2, ax) - _slice(f, 0, 1, ax)) / (h[1] - h[0])
        last = (_slice(f, n - 1, n, ax) - _slice(f, n - 2, n - 1, ax)) / (h[n - 1] - h[n - 2])
    return concatenate([first, inner, last], axis=ax)


def gradient(f, *varargs, axis=None, edge_order=None):
    """The gradient of the sampled ``f`` by central differences (one-sided at the ends), along
    each axis in ``axis`` (all by default). ``varargs`` give the spacing: none (1.0), one for
    every axis, or one per axis; each a scalar or the 1-D coordinates. One array for one axis,
    else a list. ``edge_order`` is not supported (as in JAX).

    >>> jnp.gradient(jnp.array([1.0, 2.0, 4.0, 7.0]))
    Array([1. , 1.5, 2.5, 3. ], dtype=float32)
    """
    _check_static("gradient", "axis", axis)
    _check_static("gradient", "edge_order", edge_order)
    if edge_order is not None:
        raise NotImplementedError("The 'edge_order' argument to jnp.gradient is not supported.")
    check_arraylike("gradient", f, *varargs)
    (f,) = promote_dtypes_inexact(f)
    f = to_array(f)
    if axis is None:
        axes = tuple(range(f.ndim))
    else:
        # Repeated axes are allowed (each gives its own gradient), as in JAX.
        seq = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
        axes = tuple(_axis(a, f.ndim, "gradient") for a in seq)
    if not axes:
        return []
    n = len(varargs)
    if n == 0:
        spacing = [1.0] * len(axes)
    elif n == 1:
        # One spacing (a scalar or coordinates) serves every axis, as in JAX.
        spacing = [varargs[0]] * len(axes)
    elif n == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError(
            f"Invalid number of spacing arguments {n} for axis={axis} (gradient needs none, one, "
            f"or one per axis: {len(axes)})"
        )
    for a, h in zip(axes, spacing):
        if f.shape[a] < 2:
            raise ValueError(
                "Shape of array too small to calculate a numerical gradient, at least 2 elements "
                f"are required (gradient got shape {f.shape}, axis {a})."
            )
        if np.ndim(h) > 1:
            raise ValueError(
                f"Spacing arrays must be 1D arrays or scalars (gradient got shape {np.shape(h)})."
            )
        if np.ndim(h) == 1 and np.shape(h)[0] != f.shape[a]:
            raise ValueError(
                "Spacing arrays must have the same length as the dimension along which the "
                f"gradient is calculated (gradient got {np.shape(h)[0]} coordinates for axis {a} "
                f"of size {f.shape[a]})."
            )
    out = [_gradient_along(f, h, a) for a, h in zip(axes, spacing)]
    return out[0] if len(axes) == 1 else out


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of consecutive elements of the flattened ``ary``, with ``to_begin`` and
    ``to_end`` (cast to ``ary``'s dtype) prepended and appended.

    >>> jnp.ediff1d(jnp.array([1, 2, 4, 7]), to_begin=-1)
    Array([-1,  1,  2,  3], dtype=int32)
    """
    check_arraylike("ediff1d", ary)
    arr = ravel(ary)
    if arr.dtype == np.bool_:
        raise TypeError(
            "ediff1d does not accept bool input (its subtraction needs a numeric dtype)."
        )
    result = arr[1:] - arr[:-1]
    if to_begin is not None:
        check_arraylike("ediff1d", to_begin)
        result = concatenate([ravel(convert(to_begin, arr.dtype)), result])
    if to_end is not None:
        check_arraylike("ediff1d", to_end)
        result = concatenate([result, ravel(convert(to_end, arr.dtype))])
    return result


def _unwrap_body(p, discont=None, axis=-1, period=2 * np.pi):
    # JAX's order of operations: period promoted with p, discont and the half period, the
    # differences, and the first slice before the rest.
    p, period = promote_dtypes_numeric(p, period)
    if p.shape[axis] == 0:
        return convert(p, p.dtype)
    if discont is None:
        discont = period / 2
    if dtypes.issubdtype(period.dtype, np.inexact):
        high = period / 2
    else:
        high = ufuncs.floor_divide(period, 2)
    dd = diff(p, axis=axis)
    ddmod = ufuncs.remainder(dd + high, period) - high
    # A jump of exactly +period/2 stays +period/2 (the remainder would make it -period/2).
    ddmod = where((ddmod == -high) & (dd > 0), high, ddmod)
    correction = where(ufuncs.abs(dd) < discont, 0, ddmod - dd)
    n = p.shape[axis]
    head = _slice(p, 0, 1, axis)
    tail = _slice(p, 1, n, axis) + cumsum(correction, axis=axis)
    return concatenate([head, tail], axis=axis)


_unwrap_jit = _named_jit("unwrap", _unwrap_body, ("axis",))


def unwrap(p, discont=None, axis: int = -1, period=2 * np.pi):
    """``p`` with jumps larger than ``discont`` (default ``period / 2``) between neighbours
    along ``axis`` replaced by their complement modulo ``period``.

    >>> jnp.unwrap(jnp.array([0.0, 3.0, 6.5]), period=5.0)
    Array([ 0. , -2. , -3.5], dtype=float32)
    """
    _check_static("unwrap", "axis", axis)
    check_arraylike("unwrap", p, period)
    if discont is not None:
        check_arraylike("unwrap", discont)
    p = to_array(p)
    if dtypes.issubdtype(p.dtype, np.complexfloating):
        raise ValueError(f"jnp.unwrap does not support complex inputs (got {p.dtype}).")
    if p.ndim == 0 or not -p.ndim <= axis < p.ndim:
        # JAX indexes p.shape[axis] here (an IndexError).
        raise IndexError(
            f"unwrap: axis {axis} is out of bounds for array of dimension {p.ndim} (shape "
            f"{p.shape})."
        )
    # Only the arguments given are operands of the jit (the default period is a constant).
    kw = {} if discont is None else {"discont": discont}
    if not (isinstance(period, float) and period == 2 * np.pi):
        kw["period"] = period
    return _unwrap_jit(p, axis=axis % p.ndim, **kw)


# ---------------------------------------------------------------------------------------------
# Covariance and correlation


def _observations(fn: str, name: str, a, rowvar: bool):
    a = to_array(a)
    if a.ndim > 2:
        raise ValueError(f"{name} has more than 2 dimensions ({fn} got shape {a.shape})")
    a = atleast_2d(a)
    if not rowvar and a.shape[0] != 1:
        a = a.T
    return a


def _weights(name: str, w, n: int):
    check_arraylike("cov", w)
    w = to_array(w)
    if name == "fweights" and not dtypes.issubdtype(w.dtype, np.integer):
        raise TypeError(f"fweights must be integer (cov got dtype {w.dtype}).")
    if w.ndim > 1:
        raise RuntimeError(f"cannot handle multidimensional {name} (cov got shape {w.shape})")
    if w.shape[0] != n:
        raise RuntimeError(
            f"incompatible numbers of samples and {name} (cov got {n} observations and {name} of "
            f"shape {w.shape})"
        )
    return ufuncs.abs(w)


def _cov_body(X, fw, aw, ddof):
    nvar, nobs = X.shape
    if nobs == 0:
        return full((nvar, nvar), np.nan, X.dtype)
    w = None
    if fw is not None:
        w = fw
    if aw is not None:
        w = aw if w is None else w * aw
    if w is None:
        avg = mean(X, axis=1)
        fact = nobs - ddof
    else:
        avg, w_sum = average(X, axis=1, weights=w, returned=True)
        w_sum = w_sum[0]
        if ddof == 0:
            fact = w_sum
        elif aw is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * _sum(w * aw) / w_sum
    X = X - avg[:, None]
    X_T = (X * w[None, :]).T if w is not None else X.T
    c = matmul(X, ufuncs.conj(X_T))
    return squeeze(c / fact)


_cov_jit = _named_jit("cov", _cov_body, ("ddof",))


def cov(
    m,
    y=None,
    rowvar: bool = True,
    bias: bool = False,
    ddof: int | None = None,
    fweights=None,
    aweights=None,
    dtype=None,
):
    """Covariance matrix of the variables in the rows of ``m`` (columns unless ``rowvar``),
    ``y`` adding more; normalized by ``N - 1`` (``N`` if ``bias``, ``N - ddof`` if given),
    with integer frequency weights ``fweights`` and observation weights ``aweights``.

    >>> jnp.cov(jnp.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
    Array([[ 1., -1.],
           [-1.,  1.]], dtype=float32)
    """
    for name, val in (("rowvar", rowvar), ("bias", bias), ("ddof", ddof), ("dtype", dtype)):
        _check_static("cov", name, val)
    check_arraylike("cov", m)
    if dtype is not None:
        dtype = _dtype_arg(dtype, "cov")
        if not dtypes.issubdtype(dtype, np.inexact):
            raise ValueError(f"cov: dtype must be a subclass of float or complex; got {dtype=}")
    X = _observations("cov", "m", m, rowvar)
    if y is not None:
        check_arraylike("cov", y)
        Y = _observations("cov", "y", y, rowvar)
        if X.shape[0] and Y.shape[1] != X.shape[1]:
            raise ValueError(
                f"cov: m and y must hold the same number of observations, got {X.shape[1]} and "
                f"{Y.shape[1]} (shapes {np.shape(m)} and {np.shape(y)}, rowvar={rowvar})."
            )
    if dtype is None:
        dtype = dtypes.to_inexact_dtype(
            dtypes.result_type(X, Y) if y is not None else dtypes.result_type(X)
        )
    if X.shape[0] == 0:
        return zeros((0, 0), dtype)
    if y is not None:
        X = concatenate([X, Y], axis=0)
    X = convert(X, dtype)
    if ddof is None:
        ddof = 0 if bias else 1
    nobs = X.shape[1]
    fw = None if fweights is None else _weights("fweights", fweights, nobs)
    aw = None if aweights is None else _weights("aweights", aweights, nobs)
    return _cov_jit(X, fw, aw, ddof)


def _corrcoef_body(c):
    if c.ndim == 0:
        return c / c
    std = ufuncs.sqrt(ufuncs.real(diagonal(c)))
    if c.dtype != std.dtype:
        std = convert(std, c.dtype)
    c = c / std[:, None]
    c = c / std[None, :]
    if dtypes.issubdtype(c.dtype, np.complexfloating):
        re = ufuncs.clip(ufuncs.real(c), -1, 1)
        im = ufuncs.clip(ufuncs.imag(c), -1, 1)
        return lax.complex(re, im)
    return ufuncs.clip(c, -1, 1)


_corrcoef_jit = _named_jit("corrcoef", _corrcoef_body)


def corrcoef(x, y=None, rowvar: bool = True, dtype=None):
    """Pearson correlation coefficients of the variables of ``x`` (and ``y``): ``cov``
    normalized by the standard deviations, clipped to [-1, 1].

    >>> jnp.corrcoef(jnp.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
    Array([[ 1., -1.],
           [-1.,  1.]], dtype=float32)
    """
    _check_static("corrcoef", "rowvar", rowvar)
    _check_static("corrcoef", "dtype", dtype)
    check_arraylike("corrcoef", x)
    return _corrcoef_jit(cov(x, y, rowvar, dtype=dtype))


# ---------------------------------------------------------------------------------------------
# Window functions


def _window_len(fn: str, M: Any) -> int:
    if isinstance(M, Tracer):
        raise ConcretizationTypeError(
            M._concretization_message(fn) + f"\nIt arose in the M argument of jnp.{fn}: the "
            "window's length must be concrete."
        )
    # JAX reads M with int() (so 5.0 is accepted).
    M = int(M)
    if M < 0:
        raise TypeError(f"{fn}: M must be nonnegative, got M={M} (the window's length).")
    return M


def _window(fn: str, M: Any, body):
    M = _window_len(fn, M)
    dt = dtypes.default_float_dtype()
    if M <= 1:
        return ones((M,), dt)
    return body(arange(M, dtype=dt), M)


def bartlett(M: int):
    """The Bartlett (triangular) window of length ``M``.

    >>> jnp.bartlett(5)
    Array([0. , 0.5, 1. , 0.5, 0. ], dtype=float32)
    """
    return _window("bartlett", M, lambda n, M: 1 - ufuncs.abs(2 * n + 1 - M) / (M - 1))


def blackman(M: int):
    """The Blackman window of length ``M``.

    >>> jnp.blackman(3)
    Array([-1.4901161e-08,  9.9999994e-01, -1.4901161e-08], dtype=float32)
    """

    def body(n, M):
        c1 = ufuncs.cos(2 * np.pi * n / (M - 1))
        c2 = ufuncs.cos(4 * np.pi * n / (M - 1))
        return 0.42 - 0.5 * c1 + 0.08 * c2

    return _window("blackman", M, body)


def hamming(M: int):
    """The Hamming window of length ``M``.

    >>> jnp.hamming(3)
    Array([0.08000001, 1.        , 0.08000001], dtype=float32)
    """
    return _window("hamming", M, lambda n, M: 0.54 - 0.46 * ufuncs.cos(2 * np.pi * n / (M - 1)))


def hanning(M: int):
    """The Hann window of length ``M``.

    >>> jnp.hanning(3)
    Array([0., 1., 0.], dtype=float32)
    """
    return _window("hanning", M, lambda n, M: 0.5 * (1 - ufuncs.cos(2 * np.pi * n / (M - 1))))


def kaiser(M: int, beta):
    """The Kaiser window of length ``M`` and shape ``beta``.

    >>> jnp.kaiser(3, 2.0)
    Array([0.43867627, 1.        , 0.43867627], dtype=float32)
    """
    check_arraylike("kaiser", beta)
    M = _window_len("kaiser", M)
    b = to_array(beta)
    if dtypes.issubdtype(b.dtype, np.complexfloating):
        # JAX's i0 refuses complex input with a ValueError.
        raise ValueError(f"Unsupported input type to jax.numpy.i0: {b.dtype} (kaiser's beta).")
    dt = dtypes.default_float_dtype()
    if M <= 1:
        return ones((M,), dt)
    n = arange(M, dtype=dt)
    alpha = (M - 1) / 2.0
    r = (n - alpha) / alpha
    num = ufuncs.i0(convert(b, dt) * ufuncs.sqrt(1 - ufuncs.square(r)))
    # The normalizer is computed in beta's own (inexact) dtype, as JAX does.
    return num / convert(ufuncs.i0(b), dt)
