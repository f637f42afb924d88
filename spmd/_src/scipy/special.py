"""Special functions (``spmd.scipy.special``), with JAX's dtype promotion (integers become
floats) and derivatives.

>>> from spmd.scipy import special
>>> special.xlogy(0.0, 0.0)
Array(0., dtype=float32, weak_type=True)
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src.custom_derivatives import custom_jvp
from spmd._src.lax import elementwise as lax
from spmd._src.lax import special as lax_special
from spmd._src.nn.functions import log_softmax, logsumexp, softmax
from spmd._src.numpy import creation, lax_numpy, reductions, shape_ops, ufuncs
from spmd._src.numpy.array_constructors import asarray
from spmd._src.numpy.util import promote_args_inexact
from spmd._src.scipy.special_common import _c, _check_float, _real_only, _where
from spmd._src.scipy.special_gamma_complex import gamma_complex, loggamma_complex

__all__ = [
    "bernoulli",
    "beta",
    "betainc",
    "betaln",
    "boxcox",
    "boxcox1p",
    "comb",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfinv",
    "expit",
    "factorial",
    "gamma",
    "gammainc",
    "gammaincc",
    "gammaln",
    "gammasgn",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "kl_div",
    "log_ndtr",
    "log_softmax",
    "loggamma",
    "logit",
    "logsumexp",
    "multigammaln",
    "ndtr",
    "ndtri",
    "poch",
    "polygamma",
    "rel_entr",
    "softmax",
    "xlog1py",
    "xlogy",
    "zeta",
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
    """``log|Gamma(x)|`` (real ``x``; ``loggamma`` takes complex arguments)."""
    (x,) = promote_args_inexact("gammaln", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        # JAX raises TypeError here too (from lax.lgamma, naming lgamma instead).
        raise TypeError(
            f"gammaln: argument x has dtype {x.dtype}; only real floating-point dtypes are "
            "accepted (loggamma takes complex arguments)."
        )
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


# ---------------------------------------------------------------------------------------------
# Gamma and beta functions


def gammasgn(x: Any) -> Any:
    """The sign of the gamma function: NaN at poles, ``-inf`` and NaN; ``-1`` at ``-0.0``."""
    (x,) = promote_args_inexact("gammasgn", x)
    _real_only("gammasgn", x)
    floor_x = lax.floor(x)
    negative = x < 0
    # -0.0 is told by the sign of 1 / x (-inf), not signbit: bitcast_convert_type gives a
    # rank-0 operand shape (1,) today.
    return lax_numpy.select(
        [
            (negative & (x == floor_x)) | ufuncs.isnan(x),
            (negative & (floor_x % 2 != 0)) | ((x == 0) & (_c(x, 1) / x < 0)),
        ],
        [_c(x, np.nan), _c(x, -1.0)],
        _c(x, 1.0),
    )


def gamma(x: Any) -> Any:
    """The gamma function (complex arguments too: NaN at the poles)."""
    (x,) = promote_args_inexact("gamma", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return gamma_complex(x)
    return gammasgn(x) * lax.exp(lax.lgamma(x))


def loggamma(x: Any) -> Any:
    """The principal branch of ``log(Gamma(x))``: for real ``x``, NaN where ``x <= 0``; for
    complex ``x``, SciPy's branch (cut along the negative real axis)."""
    (x,) = promote_args_inexact("loggamma", x)
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return loggamma_complex(x)
    return lax_numpy.where(x > 0, lax.lgamma(x), np.nan)


# B_2k / (2k (2k - 1)) for k = 1..8: the Stirling series of lgamma's correction term.
# DiDonato and Morris's ALGDIV (cdflib) series coefficients, for ln(Gamma(b) / Gamma(a + b)).
_ALGDIV = (
    0.833333333333333e-01,
    -0.277777777760991e-02,
    0.793650666825390e-03,
    -0.595202931351870e-03,
    0.837308034031215e-03,
    -0.165322962780713e-02,
)


def _algdiv(a, b):
    """``lgamma(b) - lgamma(a + b)`` for ``b >= 8`` and ``a <= b``, without the cancellation:
    DiDonato and Morris's series in ``1 / b**2`` for the Stirling corrections, plus the
    closed-form leading terms. Python scalars keep weak operands weak."""
    h = a / b
    c = h / (1.0 + h)
    x = 1.0 / (1.0 + h)
    d = b + (a - 0.5)
    x2 = x * x
    s3 = 1.0 + (x + x2)
    s5 = 1.0 + (x + x2 * s3)
    s7 = 1.0 + (x + x2 * s5)
    s9 = 1.0 + (x + x2 * s7)
    s11 = 1.0 + (x + x2 * s9)
    t = (1.0 / b) * (1.0 / b)
    c0, c1, c2, c3, c4, c5 = _ALGDIV
    w = ((((c5 * s11 * t + c4 * s9) * t + c3 * s7) * t + c2 * s5) * t + c1 * s3) * t + c0
    w = w * (c / b)
    u = d * lax.log1p(a / b)
    v = a * (lax.log(b) - 1.0)
    return _where(u > v, (w - v) - u, (w - u) - v)


def betaln(a: Any, b: Any) -> Any:
    """``log|B(a, b)|``: the three log-gammas below 8, and for a larger argument
    ``lgamma(min) + algdiv(min, max)``, which avoids their cancellation."""
    a, b = promote_args_inexact("betaln", a, b)
    small, big = lax.min(a, b), lax.max(a, b)
    plain = lax.lgamma(small) + (lax.lgamma(big) - lax.lgamma(small + big))
    large = lax.lgamma(small) + _algdiv(small, big)
    return _where(big < 8.0, plain, large)


def beta(a: Any, b: Any) -> Any:
    """The beta function ``Gamma(a) Gamma(b) / Gamma(a + b)``."""
    a, b = promote_args_inexact("beta", a, b)
    _real_only("beta", a)
    sign = gammasgn(a) * gammasgn(b) * gammasgn(a + b)
    return sign * lax.exp(betaln(a, b))


def betainc(a: Any, b: Any, x: Any) -> Any:
    """The regularized incomplete beta function ``I_x(a, b)``."""
    a, b, x = promote_args_inexact("betainc", a, b, x)
    _real_only("betainc", x)
    return lax_special.betainc(a, b, x)


def factorial(n: Any, exact: bool = False) -> Any:
    """``n!`` as ``Gamma(n + 1)`` (0 for negative ``n``); ``exact=True`` is not supported."""
    if exact:
        raise NotImplementedError("factorial with exact=True")
    (n,) = promote_args_inexact("factorial", n)
    return lax_numpy.where(n < 0, 0, lax.exp(lax.lgamma(n + 1)))


def comb(N: Any, k: Any, *, repetition: bool = False) -> Any:
    """``N`` choose ``k`` through log-gamma (0 outside ``0 <= k <= N``)."""
    if repetition:
        result = comb(N + k - 1, k, repetition=False)
        return lax_numpy.where((k == 0) & (N >= 0), 1.0, result)
    ok = (k <= N) & (N >= 0) & (k >= 0)
    safe_n = lax_numpy.where(ok, N, 0.0)
    safe_k = lax_numpy.where(ok, k, 0.0)
    result = lax.exp(gammaln(safe_n + 1) - gammaln(safe_k + 1) - gammaln(safe_n + 1 - safe_k))
    return lax_numpy.where(ok, result, 0.0)


def digamma(x: Any) -> Any:
    """The digamma function ``d/dx log Gamma(x)``."""
    (x,) = promote_args_inexact("digamma", x)
    return lax.digamma(x)


def polygamma(n: Any, x: Any) -> Any:
    """The ``n``-th derivative of digamma (``n`` of an integer dtype)."""
    n_dtype = dtypes.dtype(n) if hasattr(n, "dtype") else np.asarray(n).dtype
    if not dtypes.issubdtype(n_dtype, np.integer):
        raise ValueError(f"Argument `n` to polygamma must be of integer type. Got dtype {n_dtype}.")
    n, x = promote_args_inexact("polygamma", n, x)
    _real_only("polygamma", x)
    return lax.polygamma(n, x)


def gammainc(a: Any, x: Any) -> Any:
    """The regularized lower incomplete gamma function ``P(a, x)``."""
    a, x = promote_args_inexact("gammainc", a, x)
    return lax_special.igamma(a, x)


def gammaincc(a: Any, x: Any) -> Any:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    a, x = promote_args_inexact("gammaincc", a, x)
    return lax_special.igammac(a, x)


def multigammaln(a: Any, d: Any) -> Any:
    """``log`` of the multivariate gamma function of dimension ``d`` (a concrete integer)."""
    d = core.concrete_or_error(int, d, "d argument of multigammaln")
    a, d_ = promote_args_inexact("multigammaln", a, d)
    constant = _c(a, 0.25) * d_ * (d_ - _c(a, 1)) * lax.log(_c(a, np.pi))
    b = creation.arange(d, dtype=d_.dtype) / _c(a, 2)
    shifted = shape_ops.expand_dims(a, -1) - shape_ops.expand_dims(b, tuple(range(a.ndim)))
    return reductions.sum(gammaln(shifted), axis=-1) + constant


@custom_jvp
def _poch(z, m):
    return lax_numpy.where(m == 0.0, _c(z, 1), gamma(z + m) / gamma(z))


_poch.defjvps(
    lambda tz, ans, z, m: (lax.digamma(z + m) - lax.digamma(z)) * _poch(z, m) * tz,
    lambda tm, ans, z, m: lax.digamma(z + m) * _poch(z, m) * tm,
)
_poch.__name__ = "poch"


def poch(z: Any, m: Any) -> Any:
    """The Pochhammer symbol ``Gamma(z + m) / Gamma(z)``."""
    z, m = promote_args_inexact("poch", z, m)
    if dtypes.issubdtype(z.dtype, np.complexfloating):
        raise ValueError("jnp.poch does not support complex-valued inputs.")
    return _poch(z, m)


def bernoulli(n: int) -> Any:
    """The Bernoulli numbers ``B_0 .. B_n`` (with ``B_1 = -1/2``)."""
    n = core.concrete_or_error(operator.index, n, "Argument n of bernoulli")
    if n < 0:
        raise ValueError("n must be a non-negative integer.")
    from fractions import Fraction

    # Exact rationals by the recurrence sum_{k<=m} C(m+1, k) B_k = 0, rounded once.
    b = [Fraction(1)]
    for m in range(1, n + 1):
        b.append(-sum(math.comb(m + 1, k) * b[k] for k in range(m)) / (m + 1))
    return asarray(np.array([float(v) for v in b]), dtype=dtypes.canonicalize_dtype(np.float64))


# ---------------------------------------------------------------------------------------------
# Entropies and transforms


@custom_jvp
def _xlogx(x):
    return _xlogy(x, x)


_xlogx.defjvps(lambda t, ans, x: t * (lax.log(x) + 1))
_xlogx.__name__ = "xlogx"


def entr(x: Any) -> Any:
    """``-x log(x)`` for ``x > 0``, 0 at 0 and ``-inf`` for ``x < 0``."""
    (x,) = promote_args_inexact("entr", x)
    _real_only("entr", x)
    return lax_numpy.where(x < 0, creation.full_like(x, -np.inf), -_xlogx(x))


def rel_entr(p: Any, q: Any) -> Any:
    """``p log(p / q)`` for ``p, q > 0``; 0 for ``p == 0 <= q``; ``inf`` otherwise."""
    p, q = promote_args_inexact("rel_entr", p, q)
    _real_only("rel_entr", p)
    both = (p > 0) & (q > 0)
    p_zero = (p == 0) & (q >= 0)
    safe_p = lax_numpy.where(both, p, 1)
    safe_q = lax_numpy.where(both, q, 1)
    val = _xlogx(safe_p) - _xlogy(safe_p, safe_q)
    return lax_numpy.where(both, val, lax_numpy.where(p_zero, 0.0, np.inf))


def kl_div(p: Any, q: Any) -> Any:
    """``p log(p / q) - p + q`` (``rel_entr(p, q) - p + q``)."""
    p, q = promote_args_inexact("kl_div", p, q)
    _real_only("kl_div", p)
    return rel_entr(p, q) - p + q


def _boxcox(name, x, lmbda, log_fn):
    x, lmbda = promote_args_inexact(name, x, lmbda)
    zero = lmbda == 0
    safe = lax_numpy.where(zero, creation.ones_like(lmbda), lmbda)
    log_x = log_fn(x)
    return lax_numpy.where(zero, log_x, lax.expm1(safe * log_x) / safe)


def boxcox(x: Any, lmbda: Any) -> Any:
    """The Box-Cox transform ``(x**lmbda - 1) / lmbda`` (``log(x)`` at ``lmbda == 0``)."""
    return _boxcox("boxcox", x, lmbda, lax.log)


def boxcox1p(x: Any, lmbda: Any) -> Any:
    """The Box-Cox transform of ``1 + x``."""
    return _boxcox("boxcox1p", x, lmbda, lax.log1p)


# ---------------------------------------------------------------------------------------------
# Bessel functions


def i0e(x: Any) -> Any:
    """``exp(-|x|) I0(x)``."""
    (x,) = promote_args_inexact("i0e", x)
    return lax.bessel_i0e(x)


def i0(x: Any) -> Any:
    """The modified Bessel function of the first kind of order 0."""
    (x,) = promote_args_inexact("i0", x)
    return lax.exp(lax.abs(x)) * lax.bessel_i0e(x)


def i1e(x: Any) -> Any:
    """``exp(-|x|) I1(x)``."""
    (x,) = promote_args_inexact("i1e", x)
    return lax.bessel_i1e(x)


def i1(x: Any) -> Any:
    """The modified Bessel function of the first kind of order 1."""
    (x,) = promote_args_inexact("i1", x)
    return lax.exp(lax.abs(x)) * lax.bessel_i1e(x)


# ---------------------------------------------------------------------------------------------
# The Hurwitz zeta function. Its derivative in x comes from differentiating the
# Euler-Maclaurin sum written in array operations (as JAX does); in q it is -x zeta(x + 1, q).

_ZETA_N = 10
# B_2j / (2j)! for j = 1..8.
_ZETA_B = np.array(
    [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510]
) / np.array([math.factorial(2 * j) for j in range(1, 9)])


def _zeta_series(s, q):
    total = creation.zeros_like(s)
    for k in range(_ZETA_N):
        total = total + (q + _c(q, k)) ** -s
    w = q + _c(q, _ZETA_N)
    tail = w ** (_c(s, 1) - s) / (s - _c(s, 1)) + _c(s, 0.5) * w**-s
    rising, power = s, w ** (-s - _c(s, 1))
    for j, coef in enumerate(_ZETA_B, start=1):
        tail = tail + _c(s, coef) * rising * power
        rising = rising * (s + _c(s, 2 * j - 1)) * (s + _c(s, 2 * j))
        power = power / (w * w)
    return total + tail


@custom_jvp
def _zeta(x, q):
    return lax_special.zeta(x, q)


def _zeta_jvp(primals, tangents):
    from spmd._src.autodiff import jvp

    (x, q), (tx, tq) = primals, tangents
    out = _zeta(x, q)
    _, dx = jvp(lambda s: _zeta_series(s, q), (x,), (tx,))
    return out, dx - x * _zeta(x + _c(x, 1), q) * tq


_zeta.defjvp(_zeta_jvp)
_zeta.__name__ = "zeta"


def zeta(x: Any, q: Any = None) -> Any:
    """The Hurwitz zeta function ``sum_k (q + k)**-x`` (``q`` is required)."""
    if q is None:
        raise NotImplementedError(
            "Riemann zeta function not implemented; pass q != None to compute the Hurwitz "
            "Zeta function."
        )
    x, q = promote_args_inexact("zeta", x, q)
    return _zeta(x, q)


# ---------------------------------------------------------------------------------------------
# The normal distribution


def _ndtr(x):
    half_sqrt_2 = _c(x, 0.5 * math.sqrt(2.0))
    w = x * half_sqrt_2
    z = lax.abs(w)
    y = lax_numpy.where(
        z < half_sqrt_2,
        _c(x, 1) + lax.erf(w),
        lax_numpy.where(w > 0, _c(x, 2) - lax.erfc(z), lax.erfc(z)),
    )
    return _c(x, 0.5) * y


def ndtr(x: Any) -> Any:
    """The standard normal CDF (float32 or float64 ``x``)."""
    return _ndtr(_check_float("ndtr", x))


# Acklam's rational approximation of the normal quantile (relative error 1.2e-9), refined by
# one Halley step on ndtr(x) = p.
_ACK_A = (-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.3577518672690,
          -30.66479806614716, 2.506628277459239)  # fmt: skip
_ACK_B = (-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972,
          -13.28068155288572)  # fmt: skip
_ACK_C = (-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
          4.374664141464968, 2.938163982698783)  # fmt: skip
_ACK_D = (0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416)


def _poly(coefs, x):
    out = _c(x, coefs[0]) * x + _c(x, coefs[1])
    for c in coefs[2:]:
        out = out * x + _c(x, c)
    return out


def _ndtri(p):
    # Work on the lower half (q = min(p, 1 - p)) and flip the sign for the upper one.
    upper = p > _c(p, 0.5)
    q = lax_numpy.where(upper, _c(p, 1) - p, p)
    safe_q = lax_numpy.where(q > 0, q, _c(p, 0.5))
    r = lax.sqrt(_c(p, -2) * lax.log(safe_q))
    tail = _poly(_ACK_C, r) / (_poly(_ACK_D, r) * r + _c(p, 1))
    t = safe_q - _c(p, 0.5)
    t2 = t * t
    central = _poly(_ACK_A, t2) * t / (_poly(_ACK_B, t2) * t2 + _c(p, 1))
    x = lax_numpy.where(safe_q < _c(p, 0.02425), tail, central)
    # Halley step: e = ndtr(x) - q, u = e / pdf(x), x -= u / (1 + x u / 2).
    e = _c(p, 0.5) * lax.erfc(-x * _c(p, 1 / math.sqrt(2))) - safe_q
    u = e * _c(p, math.sqrt(2 * math.pi)) * lax.exp(x * x / _c(p, 2))
    x = x - u / (_c(p, 1) + x * u / _c(p, 2))
    x = lax_numpy.where(upper, -x, x)
    x = lax_numpy.where(q == 0, lax_numpy.where(upper, _c(p, np.inf), _c(p, -np.inf)), x)
    return lax_numpy.where((p < 0) | (p > 1) | ufuncs.isnan(p), _c(p, np.nan), x)


def ndtri(p: Any) -> Any:
    """The inverse of ``ndtr`` (float32 or float64 ``p``): ``-inf`` at 0, ``inf`` at 1."""
    return _ndtri(_check_float("ndtri", p))


def _log_ndtr_lower(x, series_order):
    x2 = x * x
    log_scale = _c(x, -0.5) * x2 - lax.log(-x) - _c(x, 0.5 * math.log(2 * math.pi))
    total = creation.ones_like(x)
    x2n = x2
    for n in range(1, series_order + 1):
        term = _c(x, math.prod(range(2 * n - 1, 0, -2))) / x2n
        total = total - term if n % 2 else total + term
        x2n = x2n * x2
    return log_scale + lax.log(total)


def _log_ndtr_impl(x, series_order):
    lower, upper = (-20.0, 8.0) if x.dtype == np.float64 else (-10.0, 5.0)
    above = x > _c(x, upper)
    ndtr_arg = lax_numpy.where(above, -x, lax.max(x, _c(x, lower)))
    res = _ndtr(ndtr_arg)
    return lax_numpy.where(
        above,
        -res,
        lax_numpy.where(
            x > _c(x, lower),
            lax.log(res),
            _log_ndtr_lower(lax.min(x, _c(x, lower)), series_order),
        ),
    )


def _log_ndtr_cjvp(series_order):
    @custom_jvp
    def f(x):
        return _log_ndtr_impl(x, series_order)

    def rule(primals, tangents):
        (x,), (t,) = primals, tangents
        ans = f(x)
        log_pdf = _c(x, -0.5) * x * x - _c(x, 0.5 * math.log(2 * math.pi))
        return ans, t * lax.exp(log_pdf - ans)

    f.defjvp(rule)
    f.__name__ = "log_ndtr"
    return f


_LOG_NDTR: dict[int, Any] = {}


def log_ndtr(x: Any, series_order: int = 3) -> Any:
    """``log(ndtr(x))``, accurate far into both tails (an asymptotic series of
    ``series_order`` terms below -20 (float64) or -10 (float32))."""
    if not isinstance(series_order, int):
        raise TypeError("series_order must be a Python integer.")
    if series_order < 0:
        raise ValueError("series_order must be non-negative.")
    if series_order > 30:
        raise ValueError("series_order must be <= 30.")
    x = asarray(x)
    if x.dtype not in (np.float32, np.float64):
        raise TypeError(f"x.dtype={x.dtype} is not supported.")
    f = _LOG_NDTR.get(series_order)
    if f is None:
        f = _LOG_NDTR[series_order] = _log_ndtr_cjvp(series_order)
    return f(x)
