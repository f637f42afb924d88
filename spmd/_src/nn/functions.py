"""Neural-network functions (``spmd.nn``): activations, softmax, logsumexp, one_hot, standardize.

Each follows JAX 0.10's formula, so values, dtypes (a bfloat16 input stays bfloat16) and
gradients agree: ``relu`` and ``relu6`` carry custom JVPs (the derivative at a kink is 0),
``softmax``/``log_softmax``/``logsumexp`` subtract a stopped-gradient maximum for stability, and
the functions JAX compiles with ``jit`` are jitted here too (they print as ``jit[name=...]``).

>>> import spmd.numpy as jnp
>>> from spmd import nn
>>> nn.relu(jnp.array([-1.0, 0.0, 2.0]))
Array([0., 0., 2.], dtype=float32)
"""

from __future__ import annotations

import operator
import types
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

from spmd._src import dtypes
from spmd._src.api import jit
from spmd._src.custom_derivatives import custom_jvp
from spmd._src.lax import elementwise as lax
from spmd._src.lax import shape as lax_shape
from spmd._src.numpy import (
    array_constructors,
    creation,
    lax_numpy,
    rearranging,
    reductions,
    shape_ops,
    statistics,
    ufuncs,
)
from spmd._src.numpy.util import check_arraylike, promote_args_inexact, promote_dtypes_inexact

# The jnp functions used here, under their public names (spmd.numpy itself is a public module,
# above this layer).
_JNP_MODULES = (
    array_constructors,
    creation,
    lax_numpy,
    rearranging,
    reductions,
    shape_ops,
    statistics,
    ufuncs,
)
jnp = types.SimpleNamespace(**{n: getattr(m, n) for m in _JNP_MODULES for n in m.__all__})

__all__ = [
    "celu",
    "elu",
    "gelu",
    "glu",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "hard_tanh",
    "identity",
    "leaky_relu",
    "log1mexp",
    "log_sigmoid",
    "log_softmax",
    "logmeanexp",
    "logsumexp",
    "mish",
    "one_hot",
    "relu",
    "relu6",
    "selu",
    "sigmoid",
    "silu",
    "soft_sign",
    "softmax",
    "softplus",
    "sparse_plus",
    "sparse_sigmoid",
    "squareplus",
    "standardize",
    "swish",
    "tanh",
]


def _canonical_axis(name: str, axis: Any, ndim: int) -> tuple[int, ...] | None:
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, int) or np.ndim(axis) == 0 else tuple(axis)
    out = []
    for a in axes:
        a = operator.index(a)
        if not -ndim <= a < ndim:
            raise ValueError(f"{name}: axis {a} is out of bounds for an array of dimension {ndim}")
        out.append(a % ndim)
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Rectifiers (custom JVPs: the derivative at a kink is 0, as in JAX)


def _relu(x):
    return jnp.maximum(x, 0)


# Named as JAX names its jit inside the custom_jvp, so that jaxprs print alike.
_relu.__name__ = "relu"
_relu = jit(_relu)


@custom_jvp
def relu(x: Any) -> Any:
    """Rectified linear unit ``max(x, 0)``; its derivative at 0 is 0.

    >>> nn.relu(jnp.array([-2.0, 0.0, 3.0]))
    Array([0., 0., 3.], dtype=float32)
    """
    return _relu(x)


def _relu_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return relu(x), lax.select(x > 0, t, lax_shape.full_like(t, 0))


_relu_jvp.__name__ = "jvp"
relu.defjvp(_relu_jvp)


def _relu6(x):
    return jnp.minimum(jnp.maximum(x, 0), 6.0)


_relu6.__name__ = "relu6"
_relu6 = jit(_relu6)


@custom_jvp
def relu6(x: Any) -> Any:
    """``min(max(x, 0), 6)``; its derivative at 0 and 6 is 0.

    >>> nn.relu6(jnp.array([-1.0, 3.0, 9.0]))
    Array([0., 3., 6.], dtype=float32)
    """
    return _relu6(x)


def _relu6_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    out = relu6(x)  # first, as JAX's rule computes it
    inside = (x > 0) & (x < 6)
    return out, lax.select(inside, t, lax_shape.full_like(t, 0))


_relu6_jvp.__name__ = "jvp"
relu6.defjvp(_relu6_jvp)


# ---------------------------------------------------------------------------------------------
# Smooth activations


def sigmoid(x: Any) -> Any:
    """Logistic sigmoid ``1 / (1 + exp(-x))``.

    >>> nn.sigmoid(0.0)
    Array(0.5, dtype=float32, weak_type=True)
    """
    return lax.logistic(x)


@jit
def silu(x: Any) -> Any:
    """SiLU (swish): ``x * sigmoid(x)``.

    >>> nn.silu(jnp.array([0.0, 1.0]))
    Array([0.       , 0.7310586], dtype=float32)
    """
    return x * sigmoid(x)


swish = silu


@jit
def softplus(x: Any) -> Any:
    """``log(1 + exp(x))``, computed as ``logaddexp(x, 0)`` (no overflow).

    >>> nn.softplus(jnp.array([0.0, 100.0]))
    Array([  0.6931472, 100.       ], dtype=float32)
    """
    return jnp.logaddexp(x, 0)


@jit
def soft_sign(x: Any) -> Any:
    """``x / (|x| + 1)``.

    >>> nn.soft_sign(jnp.array([1.0, -3.0]))
    Array([ 0.5 , -0.75], dtype=float32)
    """
    return x / (jnp.abs(x) + 1)


@jit
def log_sigmoid(x: Any) -> Any:
    """``log(sigmoid(x))``, computed as ``-softplus(-x)``.

    >>> nn.log_sigmoid(jnp.array([0.0]))
    Array([-0.6931472], dtype=float32)
    """
    return -softplus(-x)


@jit
def elu(x: Any, alpha: Any = 1.0) -> Any:
    """Exponential linear unit: ``x`` for ``x > 0``, else ``alpha * (exp(x) - 1)``.

    >>> nn.elu(jnp.array([-1.0, 2.0]))
    Array([-0.63212055,  2.        ], dtype=float32)
    """
    # The outer comparison is made first (argument order), as in JAX's jaxpr.
    positive = x > 0
    return jnp.where(positive, x, alpha * jnp.expm1(jnp.where(x > 0, 0.0, x)))


@jit
def celu(x: Any, alpha: Any = 1.0) -> Any:
    """Continuously differentiable ELU: ``max(x, 0) + alpha * expm1(min(x, 0) / alpha)``.

    >>> nn.celu(jnp.array([-1.0, 2.0]))
    Array([-0.63212055,  2.        ], dtype=float32)
    """
    return jnp.maximum(x, 0.0) + alpha * jnp.expm1(jnp.minimum(x, 0.0) / alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@jit
def selu(x: Any) -> Any:
    """Scaled ELU: ``scale * elu(x, alpha)`` with the self-normalizing constants.

    >>> nn.selu(jnp.array([1.0]))
    Array([1.050701], dtype=float32)
    """
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


@jit
def leaky_relu(x: Any, negative_slope: Any = 1e-2) -> Any:
    """``x`` for ``x >= 0``, else ``negative_slope * x``.

    >>> nn.leaky_relu(jnp.array([-2.0, 2.0]))
    Array([-0.02,  2.  ], dtype=float32)
    """
    return jnp.where(x >= 0, x, negative_slope * x)


@jit
def hard_tanh(x: Any) -> Any:
    """``x`` clipped to ``[-1, 1]``.

    >>> nn.hard_tanh(jnp.array([-2.0, 0.5, 2.0]))
    Array([-1. ,  0.5,  1. ], dtype=float32)
    """
    return jnp.where(x > 1, 1, jnp.where(x < -1, -1, x))


@jit
def hard_sigmoid(x: Any) -> Any:
    """``relu6(x + 3) / 6``.

    >>> nn.hard_sigmoid(jnp.array([0.0]))
    Array([0.5], dtype=float32)
    """
    return relu6(x + 3.0) / 6.0


@jit
def hard_silu(x: Any) -> Any:
    """``x * hard_sigmoid(x)``.

    >>> nn.hard_silu(jnp.array([1.0]))
    Array([0.6666667], dtype=float32)
    """
    return x * hard_sigmoid(x)


hard_swish = hard_silu


def tanh(x: Any) -> Any:
    """Hyperbolic tangent (``jnp.tanh``)."""
    return jnp.tanh(x)


@jit
def identity(x: Any) -> Any:
    """The identity activation: returns ``x`` (as an array).

    >>> nn.identity(jnp.array([1.0, -1.0]))
    Array([ 1., -1.], dtype=float32)
    """
    check_arraylike("identity", x)
    return jnp.asarray(x)


@jit
def mish(x: Any) -> Any:
    """Mish: ``x * tanh(softplus(x))``.

    >>> nn.mish(jnp.array([1.0]))
    Array([0.8650984], dtype=float32)
    """
    return x * jnp.tanh(softplus(x))


@jit
def squareplus(x: Any, b: Any = 4) -> Any:
    """``(x + sqrt(x**2 + b)) / 2``, a smooth rectifier.

    >>> nn.squareplus(jnp.array([0.0]))
    Array([1.], dtype=float32)
    """
    y = x + jnp.sqrt(jnp.square(x) + b)
    return y / 2


@jit
def sparse_plus(x: Any) -> Any:
    """0 for ``x <= -1``, ``x`` for ``x >= 1``, ``(x + 1)**2 / 4`` between.

    >>> nn.sparse_plus(jnp.array([-2.0, 0.0, 2.0]))
    Array([0.  , 0.25, 2.  ], dtype=float32)
    """
    return jnp.where(x <= -1.0, 0.0, jnp.where(x >= 1.0, x, (x + 1.0) ** 2 / 4))


@jit
def sparse_sigmoid(x: Any) -> Any:
    """The derivative of ``sparse_plus``: ``clip((x + 1) / 2, 0, 1)``.

    >>> nn.sparse_sigmoid(jnp.array([-2.0, 0.0, 2.0]))
    Array([0. , 0.5, 1. ], dtype=float32)
    """
    return 0.5 * jnp.clip(x + 1.0, 0.0, 2.0)


def _log1mexp(x):
    c = jnp.log(2.0)
    return jnp.where(x < c, jnp.log(-jnp.expm1(-x)), jnp.log1p(-jnp.exp(-x)))


_log1mexp.__name__ = "log1mexp"
_log1mexp = jit(_log1mexp)


@custom_jvp
def log1mexp(x: Any) -> Any:
    """``log(1 - exp(-x))`` for ``x > 0``, accurate at both ends; its slope is
    ``1 / expm1(x)`` (also where the two branches' derivatives are not finite).

    >>> nn.log1mexp(jnp.array([1.0]))
    Array([-0.4586751], dtype=float32)
    """
    return _log1mexp(x)


def _log1mexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    out = log1mexp(x)
    return out, t / jnp.expm1(x)


_log1mexp_jvp.__name__ = "jvp"
log1mexp.defjvp(_log1mexp_jvp)


def gelu(x: Any, approximate: bool = True) -> Any:
    """Gaussian error linear unit: ``x * Phi(x)``, by default with JAX's tanh approximation
    ``0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``; ``approximate=False`` uses erf.

    >>> nn.gelu(jnp.array([1.0]))
    Array([0.841192], dtype=float32)
    """
    (x,) = promote_dtypes_inexact(jnp.asarray(x))
    if approximate:
        sqrt_2_over_pi = np.sqrt(2 / np.pi).astype(x.dtype)
        cdf = 0.5 * (1.0 + jnp.tanh(sqrt_2_over_pi * (x + 0.044715 * (x**3))))
        return x * cdf
    sqrt_half = np.sqrt(0.5).astype(x.dtype)
    return jnp.array(0.5 * x * lax.erfc(-x * sqrt_half), dtype=x.dtype)


def _glu(x, axis):
    x1, x2 = jnp.split(x, 2, axis)
    return x1 * sigmoid(x2)


_glu.__name__ = "glu"
_glu_jit = jit(_glu, static_argnames=("axis",))


def glu(x: Any, axis: int = -1) -> Any:
    """Gated linear unit: split ``x`` in two halves ``a, b`` along ``axis``; ``a * sigmoid(b)``.

    >>> nn.glu(jnp.array([1.0, 2.0, 0.0, 0.0]))
    Array([0.5, 1. ], dtype=float32)
    """
    x = jnp.asarray(x)
    (axis,) = _canonical_axis("glu", axis, x.ndim)
    if x.shape[axis] % 2:
        # JAX asserts here.
        raise AssertionError(
            f"glu: axis size must be divisible by 2 (axis {axis} has size {x.shape[axis]})"
        )
    return _glu_jit(x, axis=axis)


# ---------------------------------------------------------------------------------------------
# Normalizations: softmax, log_softmax, logsumexp, standardize


def _where_arg(where):
    return None if where is None else jnp.asarray(where)


def softmax(x: Any, axis: int | Sequence[int] | None = -1, where: Any = None) -> Any:
    """``exp(x) / sum(exp(x))`` along ``axis``, shifted by the (stopped-gradient) maximum.

    With ``where``, only the selected elements take part; the others are 0.

    >>> nn.softmax(jnp.array([0.0, 1.0]))
    Array([0.2689414, 0.7310586], dtype=float32)
    """
    (x,) = promote_dtypes_inexact(x)
    axes = _canonical_axis("softmax", axis, np.ndim(x))
    where = _where_arg(where)
    x_max = jnp.max(x, axes, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    unnormalized = jnp.exp(x_safe - lax.stop_gradient(x_max))
    result = unnormalized / jnp.sum(unnormalized, axes, where=where, keepdims=True)
    if where is not None:
        result = jnp.where(where, result, 0)
    return result


def _log_softmax(x, where, axis):
    x_max = jnp.max(x, axis, where=where, initial=-np.inf, keepdims=True)
    x_safe = x if where is None else jnp.where(where, x, -np.inf)
    shifted = x_safe - lax.stop_gradient(x_max)
    shifted_lse = jnp.log(jnp.sum(jnp.exp(shifted), axis, where=where, keepdims=True))
    result = shifted - shifted_lse
    if where is not None:
        return jnp.where(where, result, -np.inf)
    return result


_log_softmax.__name__ = "log_softmax"
_log_softmax_jit = jit(_log_softmax, static_argnames=("axis",))


def log_softmax(x: Any, axis: int | Sequence[int] | None = -1, where: Any = None) -> Any:
    """``x - logsumexp(x)`` along ``axis``, computed stably.

    >>> nn.log_softmax(jnp.array([0.0, 0.0]))
    Array([-0.6931472, -0.6931472], dtype=float32)
    """
    (x,) = promote_dtypes_inexact(x)
    axes = _canonical_axis("log_softmax", axis, np.ndim(x))
    return _log_softmax_jit(x, _where_arg(where), axis=axes)


def logsumexp(
    a: Any,
    axis: int | Sequence[int] | None = None,
    b: Any = None,
    keepdims: bool = False,
    return_sign: bool = False,
    where: Any = None,
) -> Any:
    """``log(sum(b * exp(a)))`` along ``axis``, stable for large and infinite inputs.

    With ``return_sign=True`` returns ``(log|s|, sign(s))`` so that negative weights ``b``
    work; otherwise a negative sum gives NaN.

    >>> nn.logsumexp(jnp.array([0.0, 0.0]))
    Array(0.6931472, dtype=float32)
    """
    if where is not None:
        a = jnp.where(where, a, 0)
    if b is not None:
        a, b = promote_args_inexact("logsumexp", a, b)
        # A zero weight drops its term (even where a is inf or NaN).
        a = jnp.where(b != 0, a, -np.inf)
    else:
        (a,) = promote_args_inexact("logsumexp", a)
    axes = _canonical_axis("logsumexp", axis, np.ndim(a))
    dims = tuple(range(np.ndim(a))) if axes is None else axes
    amax = jnp.max(jnp.real(a), axis=dims, keepdims=keepdims, where=where, initial=-np.inf)
    amax = lax.stop_gradient(lax.select(jnp.isfinite(amax), amax, lax_shape.full_like(amax, 0)))
    amax_b = amax if keepdims else lax_shape.expand_dims(amax, dims)
    exp_a = lax.exp(lax.sub(a, amax_b.astype(a.dtype)))
    if b is not None:
        exp_a = lax.mul(exp_a, b)
    sumexp = exp_a.sum(axis=dims, keepdims=keepdims, where=where)
    sign = lax.sign(sumexp)
    if return_sign or not dtypes.issubdtype(a.dtype, np.complexfloating):
        sumexp = abs(sumexp)
    out = lax.add(lax.log(sumexp), amax.astype(sumexp.dtype))
    if return_sign:
        return out, sign
    if b is not None and not dtypes.issubdtype(out.dtype, np.complexfloating):
        out = jnp.where(sign < 0, jnp.array(np.nan, dtype=out.dtype), out)
    return out


def _count(x, axis, where, keepdims, dtype):
    # The number of terms reduced over: a constant without `where`, else a sum of the mask.
    if where is None:
        shape = np.shape(x)
        axes = _canonical_axis("logmeanexp", axis, len(shape))
        n = int(np.prod([shape[i] for i in (range(len(shape)) if axes is None else axes)]))
        # A constant (JAX converts a concrete count eagerly: it prints as `6.0:f32[]`).
        return np.array(n, dtype=dtype)
    return jnp.sum(jnp.broadcast_to(where, np.shape(x)), axis, dtype=dtype, keepdims=keepdims)


@partial(jit, static_argnames=("axis", "keepdims"))
def logmeanexp(
    x: Any,
    axis: int | Sequence[int] | None = None,
    where: Any = None,
    keepdims: bool = False,
) -> Any:
    """``log(mean(exp(x)))`` along ``axis``: ``logsumexp`` minus the log of the count.

    >>> nn.logmeanexp(jnp.array([1.0, 1.0]))
    Array(1., dtype=float32)
    """
    lse = logsumexp(x, axis=axis, where=where, keepdims=keepdims)
    count = _count(x, axis, where, keepdims, lse.dtype)
    return lse - jnp.log(count)


@partial(jit, static_argnames=("axis", "algorithm"))
def standardize(
    x: Any,
    axis: int | Sequence[int] | None = -1,
    mean: Any = None,
    variance: Any = None,
    epsilon: Any = 1e-5,
    where: Any = None,
    *,
    algorithm: str = "fast",
) -> Any:
    """``(x - mean) / sqrt(variance + epsilon)`` along ``axis`` (statistics computed when not
    given). ``algorithm="fast"`` computes the variance as ``E[x^2] - E[x]^2`` (one pass,
    clipped at 0 against rounding); ``"stable"`` as ``E[(x - E[x])^2]``.

    >>> nn.standardize(jnp.array([1.0, 3.0]))
    Array([-0.999995,  0.999995], dtype=float32)
    """
    check_arraylike("standardize", x)
    # None stands for "compute it"; positions count among (mean, variance, where), as JAX's.
    check_arraylike("standardize", *(0 if v is None else v for v in (mean, variance, where)))
    if mean is None:
        mean = jnp.mean(x, axis, keepdims=True, where=where)
    if variance is None:
        if algorithm == "stable":
            centered = jnp.square(jnp.subtract(x, mean))
            variance = jnp.mean(centered, axis, keepdims=True, where=where)
        elif algorithm == "fast":
            squares = jnp.mean(jnp.square(x), axis, keepdims=True, where=where)
            variance = jnp.clip(squares - jnp.square(mean), 0)
        else:
            raise ValueError(f"Unknown algorithm '{algorithm}'. Expected 'fast' or 'stable'.")
    return jnp.subtract(x, mean) * lax.rsqrt(variance + epsilon)


# ---------------------------------------------------------------------------------------------
# one_hot


def _one_hot(x, num_classes, dtype, axis):
    nd = np.ndim(x) + 1
    out_axis = axis % nd
    lhs = lax_shape.expand_dims(x, (out_axis,))
    rhs_shape = [1] * nd
    rhs_shape[out_axis] = num_classes
    rhs = lax_shape.broadcasted_iota(x.dtype, tuple(rhs_shape), out_axis)
    return (lhs == rhs).astype(dtype)


_one_hot_jit = jit(_one_hot, static_argnames=("num_classes", "dtype", "axis"))


def one_hot(x: Any, num_classes: int, *, dtype: Any = None, axis: int = -1) -> Any:
    """One-hot encoding of integer ``x`` with ``num_classes`` classes along ``axis`` (float32
    by default); out-of-range values give all zeros.

    >>> nn.one_hot(jnp.array([0, 2]), 3)
    Array([[1., 0., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    try:
        num_classes = operator.index(num_classes)
    except TypeError:
        raise TypeError(
            "The error arose in jax.nn.one_hot argument `num_classes`: num_classes must be a "
            f"static (concrete) integer, got {num_classes!r}."
        ) from None
    x = jnp.asarray(x)
    nd = x.ndim + 1
    if not -nd <= axis < nd:
        raise ValueError(f"one_hot: axis {axis} is out of bounds for an output of dimension {nd}")
    dtype = dtypes.canonicalize_dtype(np.float32 if dtype is None else dtype)
    return _one_hot_jit(x, num_classes=num_classes, dtype=np.dtype(dtype), axis=axis % nd)
