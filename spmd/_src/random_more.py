"""``spmd.random``'s distributions built by transforming uniform and normal draws, bit for bit
as JAX 0.10 on CPU.

Each sampler draws what JAX draws, from the same keys, in the same order, and computes with
the same float operations; ``log``/``log1p``/``exp``/``tan``/``pow`` go through the XLA-exact
kernels of ``spmd._src.lax.random_bits`` and ``spmd._src.lax.random_math``, and where XLA fuses a
multiply into an add, so does ``xla_fma``. The jitted samplers are named as JAX's
(``_cauchy``, ``_pareto``, ...), so their jaxprs print alike.

>>> cauchy(PRNGKey(0), (3,))
Array([ 6.0274944 , 14.837895  , -0.58172226], dtype=float32)
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import dtypes
from spmd._src.api import jit
from spmd._src.array import Array
from spmd._src.core import Tracer
from spmd._src.lax import elementwise as lax
from spmd._src.lax import random_bits as rb
from spmd._src.lax import random_math as rm
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.numpy import einsum as jnp_einsum
from spmd._src.numpy import linalg as jnp_linalg
from spmd._src.numpy import ufuncs as jnp_uf
from spmd._src.numpy.util import promote_dtypes_inexact, with_out_sharding
from spmd._src.random import (
    PRNGKey,  # noqa: F401  (doctest namespace)
    _broadcast_shapes,
    _check_safe_to_cast,
    _check_shape,
    _concrete_int,
    _const,
    _dtype_arg,
    _erf_inv,
    _exp,
    _exponential_jit,
    _finfo,
    _float_dtype,
    _log,
    _log1p,
    _normal_jit,
    _pow,
    _shape_arg,
    _uniform_jit,
    bernoulli,
)
from spmd._src.random_keys import _check_key

# ---------------------------------------------------------------------------------------------
# Helpers


_F16, _F32, _BF16 = np.dtype(np.float16), np.dtype(np.float32), dtypes.dtype("bfloat16")


def _mul_add(a, b, c, dtype):
    """``a * b + c`` as XLA computes it on this CPU: fused in float32 and (AVX512-FP16) in
    float16; bfloat16 is computed in float32 and rounded per operation; float64 as NumPy."""
    if dtype == _F32:
        return rb.xla_fma(a, b, c)
    if dtype == _F16:
        return rm.xla_fma16(a, b, c)
    return lax.add(lax.mul(a, b), c)


def _to(x, dtype, shape=None):
    """``x`` converted to ``dtype`` (and broadcast to ``shape``, trailing dimensions aligned)."""
    x = lax.convert_element_type(x, dtype)
    if shape is not None and tuple(np.shape(x)) != tuple(shape):
        nd = np.ndim(x)
        x = lax_shape.broadcast_in_dim(x, tuple(shape), tuple(range(len(shape) - nd, len(shape))))
    return x


def _params_shape(name: str, shape: Any, *params: Any) -> tuple[int, ...]:
    """The sample shape: ``shape``, checked against the parameters' shapes, or their
    broadcast shape when ``shape`` is None."""
    pshapes = [tuple(np.shape(p)) for p in params]
    if shape is None:
        return _broadcast_shapes(name, *pshapes) if pshapes else ()
    shape = _shape_arg(shape, name)
    _check_shape(name, shape, *pshapes)
    return shape


def _is_python_scalar(x: Any) -> bool:
    return type(x) in (bool, int, float, complex)


def _param(name: str, argname: str, x: Any) -> Any:
    """A parameter as an operand of the jitted sampler: an array or a Python scalar (weakly
    typed); lists and other objects are a TypeError, as in JAX."""
    if isinstance(x, (Array, Tracer, np.ndarray, np.generic)) or _is_python_scalar(x):
        return x
    raise TypeError(
        f"{name} requires ndarray or scalar arguments, got {type(x)} for argument {argname}"
    )


def _float_params(name: str, dtype: np.dtype, shape: Any, **params: Any) -> tuple:
    """The checks the float samplers share: each parameter an array or a Python scalar, the
    sample shape (given, or the parameters' broadcast shape), and parameters castable to
    ``dtype``. Returns the parameters, then the shape."""
    vals = [_param(name, argname, v) for argname, v in params.items()]
    shape = _params_shape(name, shape, *vals)
    _check_safe_to_cast(name, dtype, *vals)
    return (*vals, shape)


# ---------------------------------------------------------------------------------------------
# cauchy


def _cauchy(key, shape, dtype):
    u = _uniform_jit(key, _finfo(dtype).eps, 1.0, shape, dtype)
    centered = lax.sub(u, _const(0.5, dtype))
    x = lax.mul(_const(np.pi, dtype), centered)
    return lax.tan(x) if dtype == np.float64 else rm.xla_tan(x)


_cauchy_jit = jit(_cauchy, static_argnums=(1, 2))


@with_out_sharding("random.cauchy")
def cauchy(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Standard Cauchy samples: ``tan(pi * (u - 1/2))`` for ``u`` uniform in ``[eps, 1)``."""
    k, _ = _check_key("cauchy", key)
    dt = _float_dtype("cauchy", dtype)
    return _cauchy_jit(k, _shape_arg(shape, "cauchy"), dt)


# ---------------------------------------------------------------------------------------------
# lognormal


def _lognormal(key, sigma, shape, dtype):
    sigma = lax.convert_element_type(sigma, dtype)
    if dtypes.issubdtype(dtype, np.complexfloating):
        # (complex exp is NumPy's: not bit-exact)
        return lax.exp(lax.mul(_normal_jit(key, shape, dtype), _to(sigma, dtype, shape)))
    if tuple(np.shape(sigma)) == tuple(shape) or dtype == _BF16:
        return _exp(lax.mul(_normal_jit(key, shape, dtype), _to(sigma, dtype, shape)))
    # XLA moves normal's constant factor onto the broadcast parameter: the samples are
    # erf_inv(u) * (sigma * sqrt(2)).
    lo = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype))
    u = _uniform_jit(key, _const(lo, dtype), _const(1.0, dtype), shape, dtype)
    factor = lax.mul(sigma, _const(np.sqrt(2), dtype))
    return _exp(lax.mul(_erf_inv(u), _to(factor, dtype, shape)))


_lognormal_jit = jit(_lognormal, static_argnums=(2, 3))


@with_out_sharding("random.lognormal")
def lognormal(
    key: Any, sigma: Any = np.float32(1), shape: Sequence[int] | None = None, dtype: Any = None
) -> Any:
    """Log-normal samples: ``exp(sigma * z)`` for standard normal ``z``."""
    k, _ = _check_key("lognormal", key)
    dt = _dtype_arg(dtype, float)
    if not dtypes.issubdtype(dt, np.inexact):
        raise ValueError(
            f"dtype argument to `lognormal` must be a float or complex dtype, got {dt}"
        )
    sigma, shape = _float_params("lognormal", dt, shape, sigma=sigma)
    return _lognormal_jit(k, sigma, shape, dt)


# ---------------------------------------------------------------------------------------------
# pareto


def _pareto(key, b, shape, dtype):
    b = lax.convert_element_type(b, dtype)
    e = _exponential_jit(key, shape, dtype)
    if tuple(np.shape(b)) == tuple(shape):
        return _exp(lax.div(e, b))
    # XLA divides by a broadcast value as a multiplication by its reciprocal (for bfloat16,
    # a float32 reciprocal of the rounded value, the product rounded to bfloat16).
    if dtype == _BF16:
        recip = lax.div(_const(1, _F32), lax.convert_element_type(b, _F32))
        x = lax.mul(lax.convert_element_type(e, _F32), _to(recip, _F32, shape))
        return _exp(lax.convert_element_type(x, dtype))
    return _exp(lax.mul(e, _to(lax.div(_const(1, dtype), b), dtype, shape)))


_pareto_jit = jit(_pareto, static_argnums=(2, 3))


@with_out_sharding("random.pareto")
def pareto(key: Any, b: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Pareto samples with shape parameter ``b``: ``exp(e / b)`` for exponential ``e``."""
    k, _ = _check_key("pareto", key)
    dt = _float_dtype("pareto", dtype)
    b, shape = _float_params("pareto", dt, shape, b=b)
    return _pareto_jit(k, b, shape, dt)


# ---------------------------------------------------------------------------------------------
# rayleigh


def _rayleigh(key, scale, shape, dtype):
    u = _uniform_jit(key, 0.0, 1.0, shape, dtype)
    scale = _to(scale, dtype, shape)
    root = lax.sqrt(lax.mul(_log(u), _const(-2, dtype)))
    return lax.mul(scale, root)


_rayleigh_jit = jit(_rayleigh, static_argnums=(2, 3))


@with_out_sharding("random.rayleigh")
def rayleigh(key: Any, scale: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Rayleigh samples: ``scale * sqrt(-2 log u)``."""
    k, _ = _check_key("rayleigh", key)
    dt = _float_dtype("rayleigh", dtype)
    scale, shape = _float_params("rayleigh", dt, shape, scale=scale)
    return _rayleigh_jit(k, scale, shape, dt)


# ---------------------------------------------------------------------------------------------
# maxwell and double_sided_maxwell


def _maxwell(key, shape, dtype):
    z = _normal_jit(key, (*shape, 3), dtype)
    # The norm of each triple. XLA sums the squares in order; LLVM fuses the first square into
    # the second's addition (fma(x0, x0, x1 * x1)) and the third square into the result.
    # bfloat16 squares and sums in float32 (exact squares), rounding the sum; float16 rounds
    # each square to float16 and sums them in float32.
    if dtype == _F16:
        sq = lax.convert_element_type(lax.mul(z, z), _F32)
        parts = [lax_shape.squeeze(lax_shape.slice_in_dim(sq, i, i + 1, axis=-1), (-1,))
                 for i in range(3)]  # fmt: skip
        total = lax.add(lax.add(parts[0], parts[1]), parts[2])
        return lax.sqrt(lax.convert_element_type(total, dtype))
    if dtype == np.float64:
        return lax.sqrt(lax_red.reduce_sum(lax.mul(z, z), (len(shape),)))
    cdt = _F32 if dtype == _BF16 else dtype
    x0, x1, x2 = (lax.convert_element_type(
        lax_shape.squeeze(lax_shape.slice_in_dim(z, i, i + 1, axis=-1), (-1,)), cdt)
        for i in range(3))  # fmt: skip
    total = _mul_add(x2, x2, _mul_add(x0, x0, lax.mul(x1, x1), cdt), cdt)
    total = lax.convert_element_type(total, dtype)
    return lax.sqrt(total)


_maxwell_jit = jit(_maxwell, static_argnums=(1, 2))


@with_out_sharding("random.maxwell")
def maxwell(key: Any, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """One-sided Maxwell samples: the norm of three standard normal draws."""
    k, _ = _check_key("maxwell", key)
    dt = _float_dtype("maxwell", dtype)
    return _maxwell_jit(k, _shape_arg(shape, "maxwell"), dt)


def _double_sided_maxwell(key, loc, scale, shape, dtype):
    pshape = _broadcast_shapes("double_sided_maxwell", np.shape(loc), np.shape(scale))
    # As JAX: an empty shape means the parameters' shape, which is then appended once more.
    shape = (shape or pshape) + pshape
    keys = rb.random_split(key, (2,))
    m = _maxwell_jit(keys[0], shape, dtype)
    sign = _rademacher(keys[1], shape, dtype)
    out_dtype = dtypes.result_type(m, scale, loc)
    signed = lax.mul(sign, m)
    scale = _to(scale, out_dtype, shape)
    loc = _to(loc, out_dtype, shape)
    signed = lax.convert_element_type(signed, out_dtype)
    return _mul_add(signed, scale, loc, out_dtype)


def _rademacher(key, shape, dtype):
    b = lax.convert_element_type(bernoulli(key, 0.5, shape), dtype)
    return lax.sub(lax.mul(_const(2, dtype), b), _const(1, dtype))


_double_sided_maxwell_jit = jit(_double_sided_maxwell, static_argnums=(3, 4))


def double_sided_maxwell(
    key: Any, loc: Any, scale: Any, shape: Sequence[int] = (), dtype: Any = None
) -> Any:
    """Double-sided Maxwell samples: a random sign times a Maxwell draw, scaled and shifted.
    The result's shape is ``shape + broadcast(loc, scale).shape`` (``shape`` defaults to the
    parameters' shape, as in JAX)."""
    k, _ = _check_key("double_sided_maxwell", key)
    dt = _float_dtype("double_sided_maxwell", dtype)
    shape = _shape_arg(shape, "double_sided_maxwell")
    loc = _param("double_sided_maxwell", "loc", loc)
    scale = _param("double_sided_maxwell", "scale", scale)
    return _double_sided_maxwell_jit(k, loc, scale, shape, dt)


# ---------------------------------------------------------------------------------------------
# weibull_min


def _weibull_min(key, scale, concentration, shape, dtype):
    u = _uniform_jit(key, 0, 1, shape, dtype)
    e = lax.neg(_log1p(lax.neg(u)))
    # jnp's promotion and broadcasting, as JAX's ``power(e, 1.0 / c) * scale``.
    inv = jnp_uf.true_divide(1.0, concentration)
    pdt = dtypes.result_type(e, inv)
    pshape = np.broadcast_shapes(np.shape(e), np.shape(inv))
    e, inv = _to(e, pdt, pshape), _to(inv, pdt, pshape)
    p = lax.pow(e, inv) if pdt == np.float64 else rm.xla_pow(e, inv)
    return jnp_uf.multiply(p, scale)


_weibull_min_jit = jit(_weibull_min, static_argnums=(3, 4))


def weibull_min(
    key: Any, scale: Any, concentration: Any, shape: Sequence[int] = (), dtype: Any = None
) -> Any:
    """Weibull samples: ``scale * (-log1p(-u)) ** (1 / concentration)``."""
    k, _ = _check_key("weibull_min", key)
    dt = _float_dtype("weibull_min", dtype)
    shape = _shape_arg(shape, "weibull_min")
    scale = _param("weibull_min", "scale", scale)
    conc = _param("weibull_min", "concentration", concentration)
    return _weibull_min_jit(k, scale, conc, shape, dt)


# ---------------------------------------------------------------------------------------------
# wald


def _wald(key, mean, shape, dtype):
    keys = rb.random_split(key, (2,))
    mean = _to(mean, dtype, shape)
    v = _normal_jit(keys[0], shape, dtype)
    z = _uniform_jit(keys[1], 0.0, 1.0, shape, dtype)
    y = lax.mul(v, v)
    y_sq = lax.mul(y, y)
    mean_sq = lax.mul(mean, mean)
    four_mean = lax.mul(_const(4, dtype), mean)
    # (4 mean) y + mean^2 y^2: LLVM fuses the first product into the sum.
    sqrt_term = lax.sqrt(_mul_add(four_mean, y, lax.mul(mean_sq, y_sq), dtype))
    half = _const(0.5, dtype)
    x = lax.add(mean, lax.mul(lax.mul(mean_sq, y), half))
    x = _mul_add(lax.neg(lax.mul(mean, half)), sqrt_term, x, dtype)
    w = lax.select(lax.le(z, lax.div(mean, lax.add(mean, x))), x, lax.div(mean_sq, x))
    return w


_wald_jit = jit(_wald, static_argnums=(2, 3))


@with_out_sharding("random.wald")
def wald(key: Any, mean: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Wald (inverse Gaussian) samples with the given mean (Michael-Schucany-Haas)."""
    k, _ = _check_key("wald", key)
    dt = _float_dtype("wald", dtype)
    mean, shape = _float_params("wald", dt, shape, mean=mean)
    return _wald_jit(k, mean, shape, dt)


# ---------------------------------------------------------------------------------------------
# triangular


def _triangular(key, left, mode, right, shape, dtype):
    left, mode, right = (_to(v, dtype, shape) for v in (left, mode, right))
    width = lax.sub(right, left)
    fc = lax.div(lax.sub(mode, left), width)
    u = _uniform_jit(key, 0.0, 1.0, shape, dtype)
    out1 = lax.add(left, lax.sqrt(lax.mul(lax.mul(u, width), lax.sub(mode, left))))
    v = lax.sub(_const(1, dtype), u)
    out2 = lax.sub(right, lax.sqrt(lax.mul(lax.mul(v, width), lax.sub(right, mode))))
    return lax.select(lax.lt(u, fc), out1, out2)


_triangular_jit = jit(_triangular, static_argnums=(4, 5))


@with_out_sharding("random.triangular")
def triangular(
    key: Any,
    left: Any,
    mode: Any,
    right: Any,
    shape: Sequence[int] | None = None,
    dtype: Any = None,
) -> Any:
    """Triangular samples on ``[left, right]`` peaking at ``mode`` (inverse CDF)."""
    k, _ = _check_key("triangular", key)
    dt = _float_dtype("triangular", dtype)
    left, mode, right, shape = _float_params(
        "triangular", dt, shape, left=left, mode=mode, right=right
    )
    return _triangular_jit(k, left, mode, right, shape, dt)


# ---------------------------------------------------------------------------------------------
# geometric


def _geometric(key, p, shape, dtype):
    pdt = dtypes.dtype(p)
    if not dtypes.issubdtype(pdt, np.inexact):
        pdt = dtypes.default_float_dtype()
        p = lax.convert_element_type(p, pdt)
    u = _uniform_jit(key, 0.0, 1.0, shape, pdt)
    u = lax.select(lax.eq(u, _const(0, pdt)), lax_shape.full_like(u, 1), u)
    log_u = _log(u)
    log_q = _to(_log1p(lax.neg(p)), pdt, shape)
    g = lax.add(lax.floor(lax.div(log_u, log_q)), _const(1, pdt))
    return lax.convert_element_type(g, dtype)


_geometric_jit = jit(_geometric, static_argnums=(2, 3))


@with_out_sharding("random.geometric")
def geometric(key: Any, p: Any, shape: Sequence[int] | None = None, dtype: Any = None) -> Any:
    """Geometric samples (trials up to the first success, probability ``p``), as integers."""
    k, _ = _check_key("geometric", key)
    dt = _dtype_arg(dtype, int)
    if not dtypes.issubdtype(dt, np.integer):
        raise ValueError(f"dtype argument to `geometric` must be an int dtype, got {dt}")
    p = _param("geometric", "p", p)
    shape = _params_shape("geometric", shape, p)
    return _geometric_jit(k, p, shape, dt)


# ---------------------------------------------------------------------------------------------
# multivariate_normal


def _multivariate_normal(key, mean, cov, shape, dtype, method):
    name = "multivariate_normal"
    if np.ndim(mean) < 1:
        raise ValueError(f"{name} requires mean.ndim >= 1, got mean.ndim == {np.ndim(mean)}")
    if np.ndim(cov) < 2:
        raise ValueError(f"{name} requires cov.ndim >= 2, got cov.ndim == {np.ndim(cov)}")
    n = mean.shape[-1]
    if tuple(np.shape(cov)[-2:]) != (n, n):
        raise ValueError(
            f"{name} requires cov.shape == (..., n, n) for n={n}, but got cov.shape == "
            f"{tuple(np.shape(cov))}."
        )
    if shape is None:
        shape = _broadcast_shapes(name, mean.shape[:-1], cov.shape[:-2])
    else:
        _check_shape(name, shape, mean.shape[:-1], cov.shape[:-2])
    if method == "svd":
        u, s, _ = jnp_linalg.svd(cov)
        factor = jnp_uf.multiply(u, jnp_uf.sqrt(s[..., None, :]))
    elif method == "eigh":
        w, v = jnp_linalg.eigh(cov)
        factor = jnp_uf.multiply(v, jnp_uf.sqrt(w[..., None, :]))
    else:
        factor = jnp_linalg.cholesky(cov)
    z = _normal_jit(key, (*shape, n), dtype)
    return jnp_uf.add(mean, jnp_einsum.einsum("...ij,...j->...i", factor, z))


_multivariate_normal_jit = jit(_multivariate_normal, static_argnums=(3, 4, 5))


@with_out_sharding("random.multivariate_normal")
def multivariate_normal(
    key: Any,
    mean: Any,
    cov: Any,
    shape: Sequence[int] | None = None,
    dtype: Any = None,
    method: str = "cholesky",
) -> Any:
    """Samples of the normal distribution with the given ``mean`` (``(..., n)``) and
    covariance ``cov`` (``(..., n, n)``): ``mean + factor @ z``, the factor from ``cov``'s
    Cholesky decomposition, or (for singular ``cov``) its eigen- or singular value
    decomposition. The result has shape ``shape + (n,)``; ``shape`` defaults to the
    broadcast batch shape of ``mean`` and ``cov``."""
    k, _ = _check_key("multivariate_normal", key)
    mean, cov = promote_dtypes_inexact(mean, cov)
    if method not in {"svd", "eigh", "cholesky"}:
        raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
    dt = dtypes.dtype(mean) if dtype is None else _dtype_arg(dtype, float)
    if not dtypes.issubdtype(dt, np.floating):
        raise ValueError(f"dtype argument to `multivariate_normal` must be a float dtype, got {dt}")
    if shape is not None:
        shape = _shape_arg(shape, "multivariate_normal")
    return _multivariate_normal_jit(k, mean, cov, shape, dt, method)


# ---------------------------------------------------------------------------------------------
# orthogonal


def _orthogonal(key, n, m, shape, dtype):
    z = _normal_jit(key, (*shape, max(n, m), min(n, m)), dtype)
    q, r = jnp_linalg.qr(z)
    d = jnp_linalg.diagonal(r)
    x = jnp_uf.multiply(q, lax_shape.expand_dims(jnp_uf.sign(d), (-2,)))
    return lax_shape.transpose(x, (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2)) if n < m else x


def _static_dim(d: Any) -> int:
    if isinstance(d, Tracer):
        return _concrete_int(d, "The error occurred in jax.random.orthogonal()")
    return operator.index(d)


_orthogonal_jit = jit(_orthogonal, static_argnums=(1, 2, 3, 4))


@with_out_sharding("random.orthogonal")
def orthogonal(
    key: Any, n: int, shape: Sequence[int] = (), dtype: Any = None, m: int | None = None
) -> Any:
    """A random orthogonal (unitary, for complex ``dtype``) ``n x m`` matrix of the Haar
    measure, or a batch ``shape`` of them: the Q of a Gaussian matrix's QR decomposition, its
    columns' signs fixed by R's diagonal. For ``n != m`` the rows (``n < m``) or columns are
    orthonormal."""
    shape = _shape_arg(shape, "orthogonal")
    k, _ = _check_key("orthogonal", key)
    dt = _dtype_arg(dtype, float)
    if not dtypes.issubdtype(dt, np.inexact):
        raise ValueError(
            f"dtype argument to `orthogonal` must be a float or complex dtype, got {dt}"
        )
    context = "The error occurred in jax.random.orthogonal()"
    n = _concrete_int(operator.index(n) if not isinstance(n, Tracer) else n, context)
    m = (
        n
        if m is None
        else _concrete_int(operator.index(m) if not isinstance(m, Tracer) else m, context)
    )
    return _orthogonal_jit(k, n, m, shape, dt)


# ---------------------------------------------------------------------------------------------
# ball


def _ball(key, p, d, shape, dtype):
    from spmd._src import random_gamma  # (imports this module's siblings lazily)

    keys = rb.random_split(key, (2,))
    g = random_gamma.generalized_normal(keys[0], p, (*shape, d), dtype)
    e = _exponential_jit(keys[1], shape, dtype)
    return _ball_from(g, e, p)


def _ball_from(g, e, p):
    """``g / (sum(|g|**p, -1) + e) ** (1/p)`` (``g`` generalized normal, ``e`` exponential)
    as XLA computes it."""
    inv_p = jnp_uf.true_divide(1, p)
    if dtypes.dtype(g) == _BF16:
        return _ball_bf16(g, e, p, inv_p)
    powers = _pow(jnp_uf.abs(g), p)
    # XLA sums the d powers in order (float16's in float32).
    total = _sum_last(powers, _F32 if dtypes.dtype(powers) == _F16 else None)
    # g / (total + e) ** (1/p), which XLA rewrites as g * (total + e) ** -(1/p).
    recip = _pow(jnp_uf.add(total, e), jnp_uf.negative(inv_p))
    return jnp_uf.multiply(g, lax_shape.expand_dims(recip, (-1,)))


def _sum_last(x, acc_dtype=None):
    """The sum over the last axis, element by element in order (in ``acc_dtype``, rounded
    back to ``x``'s dtype)."""
    dt = dtypes.dtype(x)
    parts = [lax_shape.squeeze(lax_shape.slice_in_dim(x, i, i + 1, axis=-1), (-1,))
             for i in range(x.shape[-1])]  # fmt: skip
    if acc_dtype is not None:
        parts = [lax.convert_element_type(v, acc_dtype) for v in parts]
    total = parts[0]
    for v in parts[1:]:
        total = lax.add(total, v)
    return lax.convert_element_type(total, dt)


def _ball_bf16(g, e, p, inv_p):
    """bfloat16 ``_ball_from`` as XLA computes it: float32 powers of the rounded values, summed in
    float32; the norm rounded to bfloat16; a float32 reciprocal times ``g``, rounded once."""
    f32 = lambda v: lax.convert_element_type(v, _F32)  # noqa: E731
    p16 = lax.convert_element_type(p, _BF16)
    powers = rm.xla_pow(f32(jnp_uf.abs(g)), f32(lax_shape.broadcast_to_rank(p16, g.ndim)))
    total = lax.convert_element_type(_sum_last(powers), _BF16)
    norm = rm.xla_pow(
        f32(lax.add(total, e)),
        f32(lax_shape.broadcast_to_rank(lax.convert_element_type(inv_p, _BF16), e.ndim)),
    )
    recip = lax.div(_const(1, _F32), f32(lax.convert_element_type(norm, _BF16)))
    return lax.convert_element_type(lax.mul(f32(g), lax_shape.expand_dims(recip, (-1,))), _BF16)


_ball_jit = jit(_ball, static_argnums=(2, 3, 4))


@with_out_sharding("random.ball")
def ball(key: Any, d: int, p: Any = 2, shape: Sequence[int] = (), dtype: Any = None) -> Any:
    """Uniform samples of the unit Lp ball in ``d`` dimensions, shape ``shape + (d,)``:
    generalized normal draws over ``(sum |g|**p + e) ** (1/p)`` for an exponential ``e``
    (Barthe, Guedon, Mendelson and Naor)."""
    shape = _shape_arg(shape, "ball")
    k, _ = _check_key("ball", key)
    dt = _dtype_arg(dtype, float)
    if isinstance(d, Tracer):
        d = _concrete_int(d, "The error occurred in jax.random.ball()")
    d = operator.index(d)
    return _ball_jit(k, p, d, shape, dt)


__all__ = [
    "ball",
    "cauchy",
    "double_sided_maxwell",
    "geometric",
    "lognormal",
    "maxwell",
    "multivariate_normal",
    "orthogonal",
    "pareto",
    "rayleigh",
    "triangular",
    "wald",
    "weibull_min",
]
