"""Special functions (``spmd.scipy.special``), with JAX's dtype promotion (integers become
floats) and derivatives.

>>> from spmd.scipy import special
>>> special.xlogy(0.0, 0.0)
Array(0., dtype=float32, weak_type=True)
"""

from __future__ import annotations

from typing import Any

from spmd._src.custom_derivatives import custom_jvp
from spmd._src.lax import elementwise as lax
from spmd._src.nn.functions import log_softmax, logsumexp, softmax
from spmd._src.numpy import creation, lax_numpy
from spmd._src.numpy.util import promote_args_inexact

__all__ = [
    "erf",
    "erfc",
    "erfinv",
    "expit",
    "gammaln",
    "log_softmax",
    "logit",
    "logsumexp",
    "softmax",
    "xlog1py",
    "xlogy",
]


def erf(x: Any) -> Any:
    """The error function."""
    (x,) = promote_args_inexact("erf", x)
    return lax.erf(x)


def erfc(x: Any) -> Any:
    """The complementary error function ``1 - erf(x)``."""
    (x,) = promote_args_inexact("erfc", x)
    return lax.erfc(x)


def erfinv(x: Any) -> Any:
    """The inverse of ``erf`` on ``(-1, 1)``."""
    (x,) = promote_args_inexact("erfinv", x)
    return lax.erf_inv(x)


def expit(x: Any) -> Any:
    """The logistic sigmoid ``1 / (1 + exp(-x))``."""
    (x,) = promote_args_inexact("expit", x)
    return lax.logistic(x)


@custom_jvp
def _logit(x):
    return lax.log(lax.div(x, lax.sub(creation.ones_like(x), x)))


# d/dx logit(x) = 1 / (x (1 - x)), written so that it is inf (not NaN) at 0 and 1, as in JAX.
_logit.defjvps(lambda t, ans, x: lax.div(t, lax.mul(x, lax.sub(creation.ones_like(x), x))))
_logit.__name__ = "logit"


def logit(x: Any) -> Any:
    """The inverse of ``expit``: ``log(x / (1 - x))``."""
    (x,) = promote_args_inexact("logit", x)
    return _logit(x)


def gammaln(x: Any) -> Any:
    """``log|Gamma(x)|``."""
    (x,) = promote_args_inexact("gammaln", x)
    return lax.lgamma(x)


@custom_jvp
def _xlogy(x, y):
    return lax_numpy.where(x != 0, lax.mul(x, lax.log(y)), creation.zeros_like(x))


def _xlogy_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    out = _xlogy(x, y)
    return out, (tx * lax.log(y) + ty * x / y).astype(out.dtype)


_xlogy.__name__ = "xlogy"
_xlogy.defjvp(_xlogy_jvp)


def xlogy(x: Any, y: Any) -> Any:
    """``x * log(y)``, and 0 where ``x == 0`` (even where ``y == 0``)."""
    x, y = promote_args_inexact("xlogy", x, y)
    return _xlogy(x, y)


@custom_jvp
def _xlog1py(x, y):
    return lax_numpy.where(x != 0, lax.mul(x, lax.log1p(y)), creation.zeros_like(x))


def _xlog1py_jvp(primals, tangents):
    (x, y), (tx, ty) = primals, tangents
    out = _xlog1py(x, y)
    return out, (tx * lax.log1p(y) + ty * x / (1 + y)).astype(out.dtype)


_xlog1py.__name__ = "xlog1py"
_xlog1py.defjvp(_xlog1py_jvp)


def xlog1py(x: Any, y: Any) -> Any:
    """``x * log1p(y)``, and 0 where ``x == 0`` (even where ``y == -1``)."""
    x, y = promote_args_inexact("xlog1py", x, y)
    return _xlog1py(x, y)
