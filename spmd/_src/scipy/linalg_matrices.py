"""``jax.scipy.linalg``'s special matrices: block_diag, circulant, companion,
convolution_matrix, dft, fiedler, fiedler_companion, hadamard, hankel, helmert, hilbert,
invhilbert, pascal, invpascal, leslie and toeplitz. Those built from arrays take batches along
leading dimensions where JAX's do, and are differentiable in their entries.

>>> from spmd.scipy import linalg
>>> linalg.toeplitz(jnp.array([1, 2, 3]))
Array([[1, 2, 3],
       [2, 1, 2],
       [3, 2, 1]], dtype=int32)
"""

from __future__ import annotations

import math

import numpy as np

from spmd._src import dtypes
from spmd._src.numpy import util
from spmd._src.scipy import linalg_jnp as jnp


def _vectors(fn: str, *xs):
    util.check_arraylike(fn, *xs)
    return [jnp.asarray(x) for x in xs]


def _gather(x, index: np.ndarray):
    """``x[..., index]`` for an integer index array (a constant), over ``x``'s last axis."""
    return jnp.take(x, jnp.asarray(index.ravel()), axis=-1).reshape(*x.shape[:-1], *index.shape)


def block_diag(*arrs):
    """The block-diagonal matrix of the arguments (scalars and vectors count as ``1 x n``)."""
    if not arrs:
        arrs = (jnp.zeros((1, 0)),)
    arrs = [jnp.atleast_2d(a) for a in _vectors("block_diag", *arrs)]
    for i, a in enumerate(arrs):
        if a.ndim > 2:
            raise ValueError(
                "block_diag: arguments must have at most 2 dimensions, got shape "
                f"{a.shape} at argument {i}."
            )
    arrs = util.promote_dtypes(*arrs)
    cols = sum(a.shape[1] for a in arrs)
    rows, left = [], 0
    for a in arrs:
        rows.append(jnp.pad(a, ((0, 0), (left, cols - left - a.shape[1]))))
        left += a.shape[1]
    return jnp.concatenate(rows, axis=0)


def toeplitz(c, r=None):
    """``t[i, j] = c[i - j]`` for ``i >= j``, ``r[j - i]`` above the diagonal (``r``
    defaults to ``conj(c)``; ``r[0]`` is not used). Batches along leading dimensions."""
    if r is None:
        (c,) = _vectors("toeplitz", c)
        r = jnp.conj(c)
    else:
        c, r = _vectors("toeplitz", c, r)
    c, r = util.promote_dtypes(jnp.atleast_1d(c), jnp.atleast_1d(r))
    m, n = c.shape[-1], r.shape[-1]
    batch = np.broadcast_shapes(c.shape[:-1], r.shape[:-1])
    both = jnp.concatenate(
        [
            jnp.broadcast_to(r[..., 1:][..., ::-1], (*batch, n - 1)),
            jnp.broadcast_to(c, (*batch, m)),
        ],
        axis=-1,
    )
    # both = [r[n-1], ..., r[1], c[0], ..., c[m-1]]: entry (i, j) is at n - 1 + i - j.
    idx = n - 1 + np.arange(m)[:, None] - np.arange(n)[None, :]
    return _gather(both, idx)


def hankel(c, r=None):
    """``h[i, j] = c[i + j]`` while inside ``c``, then ``r[i + j - len(c) + 1]`` (``r``
    defaults to zeros; ``r[0]`` is not used)."""
    (c,) = _vectors("hankel", c)
    c = jnp.ravel(c)
    r = jnp.zeros_like(c) if r is None else jnp.ravel(_vectors("hankel", r)[0])
    c, r = util.promote_dtypes(c, r)
    m, n = c.shape[0], r.shape[0]
    both = jnp.concatenate([c, r[1:]])
    return _gather(both, np.arange(m)[:, None] + np.arange(n)[None, :])


def circulant(c):
    """``t[i, j] = c[(i - j) mod n]``. Batches along leading dimensions."""
    (c,) = _vectors("circulant", c)
    c = jnp.atleast_1d(c)
    n = c.shape[-1]
    return _gather(c, (np.arange(n)[:, None] - np.arange(n)[None, :]) % n)


def companion(a):
    """The companion matrix of the polynomial with coefficients ``a`` (highest first): first
    row ``-a[1:] / a[0]``, ones below the diagonal. Batches along leading dimensions."""
    (a,) = _vectors("companion", a)
    if a.ndim < 1 or a.shape[-1] < 2:
        raise ValueError(
            f"companion: the length of `a` along the last axis must be at least 2; got shape "
            f"{a.shape}."
        )
    (a,) = util.promote_dtypes_inexact(a)
    n = a.shape[-1] - 1
    first = -a[..., 1:] / a[..., :1]
    below = jnp.broadcast_to(jnp.eye(n, k=-1, dtype=a.dtype), (*a.shape[:-1], n, n))
    return below.at[..., 0, :].set(first)


def convolution_matrix(a, n: int, mode: str = "full"):
    """The matrix ``A`` with ``A @ v == convolve(a, v, mode)`` for vectors ``v`` of length
    ``n``."""
    if mode not in ("full", "valid", "same"):
        raise ValueError(
            f"convolution_matrix: mode must be one of 'full', 'valid', 'same'; got {mode!r}."
        )
    if not isinstance(n, (int, np.integer)) or n <= 0:
        raise ValueError(f"convolution_matrix: n must be a positive integer; got {n!r}.")
    (a,) = _vectors("convolution_matrix", a)
    a = jnp.atleast_1d(a)
    k = a.shape[-1]
    full_rows = k + n - 1
    col = jnp.concatenate([a, jnp.zeros((*a.shape[:-1], n - 1), a.dtype)], axis=-1)
    row = jnp.zeros((*a.shape[:-1], n), a.dtype)
    full = toeplitz(col, row)
    trim = min(n, k) - 1
    if mode == "same":
        start = trim // 2
        return full[..., start : full_rows - (trim - start), :]
    if mode == "valid":
        return full[..., trim : full_rows - trim, :]
    return full


def dft(n: int, scale: str | None = None, *, dtype=None):
    """The ``n x n`` discrete Fourier transform matrix ``exp(-2 pi i j k / n)``, divided by
    ``sqrt(n)`` (``scale='sqrtn'``) or ``n`` (``'n'``)."""
    if scale not in (None, "sqrtn", "n"):
        raise ValueError(f"dft: scale must be None, 'sqrtn', or 'n'; got {scale!r}.")
    dt = dtypes.canonicalize_dtype(np.complex64 if dtype is None else dtype)
    jk = np.outer(np.arange(n), np.arange(n)) % max(n, 1)
    m = np.exp(-2j * np.pi * jk / max(n, 1))
    if scale == "sqrtn":
        m = m / math.sqrt(n)
    elif scale == "n":
        m = m / n
    return jnp.asarray(m.astype(dt))


def fiedler(a):
    """``f[i, j] = |a[i] - a[j]|``. Batches along leading dimensions."""
    (a,) = _vectors("fiedler", a)
    a = jnp.atleast_1d(a)
    return jnp.abs(a[..., :, None] - a[..., None, :])


def fiedler_companion(a):
    """Fiedler's pentadiagonal companion matrix of the polynomial with coefficients ``a``
    (highest first): same eigenvalues as ``companion(a)``."""
    (a,) = _vectors("fiedler_companion", a)
    if a.ndim != 1:
        raise ValueError(f"fiedler_companion: a must be one-dimensional, got shape {a.shape}.")
    (a,) = util.promote_dtypes_inexact(a)
    if a.shape[0] <= 2:
        if a.shape[0] == 2:
            return (-a[1] / a[0]).reshape(1, 1)
        return jnp.zeros((0, 0), a.dtype)
    a = a / a[0]
    n = a.shape[0] - 1
    c = jnp.zeros((n, n), a.dtype)
    c = c.at[np.arange(3, n, 2), np.arange(1, n - 2, 2)].set(1)
    c = c.at[np.arange(2, n, 2), np.arange(1, n - 1, 2)].set(-a[3::2])
    c = c.at[np.arange(0, n - 2, 2), np.arange(2, n, 2)].set(1)
    c = c.at[np.arange(0, n - 1, 2), np.arange(1, n, 2)].set(-a[2::2])
    c = c.at[0, 0].set(-a[1])
    return c.at[1, 0].set(1)


def hadamard(n: int, dtype=int):
    """The ``n x n`` Hadamard matrix (Sylvester's construction; ``n`` a power of 2)."""
    if not isinstance(n, (int, np.integer)) or n < 1 or n & (n - 1):
        raise ValueError(f"hadamard: n must be a positive power of 2; got {n!r}.")
    h = np.ones((1, 1), np.int64)
    while h.shape[0] < n:
        h = np.block([[h, h], [h, -h]])
    return jnp.asarray(h, dtype=dtype)


def helmert(n: int, full: bool = False):
    """The Helmert matrix of order ``n`` (float32; without its first row unless ``full``)."""
    h = np.tril(np.ones((n, n)), -1) - np.diag(np.arange(n))
    d = np.arange(n) * np.arange(1, n + 1)
    h[0] = 1
    d[0] = n
    h = h / np.sqrt(d)[:, None]
    return jnp.asarray(h if full else h[1:], dtype=jnp.float32)


def hilbert(n: int):
    """``h[i, j] = 1 / (i + j + 1)``."""
    i = np.arange(n)
    return jnp.asarray(1.0 / (i[:, None] + i[None, :] + 1), dtype=jnp.float32)


def invhilbert(n: int):
    """The inverse of ``hilbert(n)`` (exact integers, as floats)."""
    out = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            out[i, j] = (
                (-1) ** (i + j)
                * (i + j + 1)
                * math.comb(n + i, n - j - 1)
                * math.comb(n + j, n - i - 1)
                * math.comb(i + j, i) ** 2
            )
    return jnp.asarray(out, dtype=jnp.float32)


_KINDS = ["symmetric", "lower", "upper"]


def _check_kind(fn: str, kind):
    kind = "symmetric" if kind is None else kind
    if kind not in _KINDS:
        raise ValueError(f"{fn}: expected kind to be one of {_KINDS}; got {kind!r}.")
    return kind


def _pascal_lower(n: int) -> np.ndarray:
    i = np.arange(n)
    return np.array([[math.comb(a, b) for b in i] for a in i], np.float64)


def pascal(n: int, kind: str | None = None):
    """The Pascal matrix: binomial coefficients (``'lower'``, ``'upper'`` or their product
    ``'symmetric'``), as float32."""
    kind = _check_kind("pascal", kind)
    low = _pascal_lower(n)
    out = {"lower": low, "upper": low.T, "symmetric": low @ low.T}[kind]
    return jnp.asarray(out, dtype=jnp.float32)


def invpascal(n: int, kind: str | None = None):
    """The inverse of ``pascal(n, kind)``, as float32."""
    kind = _check_kind("invpascal", kind)
    sign = (-1.0) ** np.add.outer(np.arange(n), np.arange(n))
    inv_low = _pascal_lower(n) * sign
    out = {"lower": inv_low, "upper": inv_low.T, "symmetric": inv_low.T @ inv_low}[kind]
    return jnp.asarray(out, dtype=jnp.float32)


def leslie(f, s):
    """The Leslie matrix: fecundities ``f`` in the first row, survival rates ``s`` below the
    diagonal. Batches along leading dimensions."""
    f, s = _vectors("leslie", f, s)
    f, s = jnp.atleast_1d(f), jnp.atleast_1d(s)
    if s.shape[-1] != f.shape[-1] - 1:
        raise ValueError(
            "leslie: the length of s along the last axis must be one less than the length of "
            f"f; got f shape {f.shape} and s shape {s.shape}."
        )
    f, s = util.promote_dtypes(f, s)
    n = f.shape[-1]
    batch = np.broadcast_shapes(f.shape[:-1], s.shape[:-1])
    sub = jnp.broadcast_to(s, (*batch, n - 1))[..., :, None] * jnp.eye(n - 1, n, dtype=s.dtype)
    rest = jnp.concatenate([sub, jnp.zeros((*batch, n - 1, 0), s.dtype)], axis=-1)
    return jnp.concatenate([jnp.broadcast_to(f, (*batch, n))[..., None, :], rest], axis=-2)
