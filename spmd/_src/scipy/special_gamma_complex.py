"""The gamma function and its logarithm for complex arguments (``spmd.scipy.special``'s
``gamma`` and ``loggamma`` of complex dtypes), written in array operations so that their
derivatives come from differentiating them, as in JAX.

``loggamma`` is SciPy's branch: analytic off the negative real axis, continuous from above on
it (JAX 0.10 gives the upper side for a ``-0.0`` imaginary part too). In the right half-plane it
is Stirling's series at ``w + m`` (``m`` shifts the real part to ``_SHIFT_TO``), minus the logs
of ``w .. w + m - 1``. Left of ``Re z = 1/2`` the reflection formula, in the upper half-plane,
with ``log(sin(pi z))`` on the branch that makes it analytic there:

    log sin(pi z) = i pi / 2 - i pi z - log 2 + log(1 - exp(2 pi i z)),

(``|exp(2 pi i z)| <= 1``, so the last log stays on its principal branch), and the lower
half-plane by ``loggamma(conj z) = conj(loggamma(z))``. Unlike JAX's shift by one at a time,
this costs the same for every ``z`` (JAX loops ``-Re z`` times, and never ends for
``-inf + 1j``). Poles, infinities and NaN give ``nan + nanj`` as in JAX.
"""

from __future__ import annotations

import math
from typing import Any

from spmd._src.lax import elementwise as lax
from spmd._src.numpy import creation
from spmd._src.scipy.special_common import _c, _where

__all__: list[str] = []

# B_2k / (2k (2k - 1)) for k = 1..8: Stirling's series of log-gamma.
STIRLING = (
    1 / 12,
    -1 / 360,
    1 / 1260,
    -1 / 1680,
    1 / 1188,
    -691 / 360360,
    1 / 156,
    -3617 / 122400,
)
# From |w| >= 10 the series' last term is below 3e-17 of the result.
_SHIFT_TO = 10


def _parts(z):
    return lax.real(z), lax.imag(z)


def _loggamma_right(w):
    """log Gamma(w) for Re w > 0 (principal branch: every log(w + k) has |arg| < pi / 2)."""
    logs = creation.zeros_like(w)
    for _ in range(_SHIFT_TO):
        low = lax.real(w) < _c(lax.real(w), _SHIFT_TO)
        logs = logs + _where(low, lax.log(w), creation.zeros_like(w))
        w = _where(low, w + _c(w, 1), w)
    inv = _c(w, 1) / w
    inv2 = inv * inv
    series = creation.zeros_like(w)
    for coef in reversed(STIRLING):
        series = series * inv2 + _c(w, coef)
    log_w = lax.log(w)
    return (w - _c(w, 0.5)) * log_w - w + _c(w, 0.5 * math.log(2 * math.pi)) + series * inv - logs


def _log1m_exp_2pi_i(z):
    """log(1 - exp(2 pi i z)) for Im z >= 0, accurate near the real integers (z's real part is
    reduced mod 1 exactly, and 1 - e^(a + ib) = -(expm1(a) cos b - 2 sin(b/2)^2) - i e^a sin b)."""
    x, y = _parts(z)
    xr = x - lax.round(x)
    a = _c(x, -2 * math.pi) * y
    b = _c(x, 2 * math.pi) * xr
    half = lax.sin(b * _c(x, 0.5))
    re = _c(x, 2) * half * half - lax.expm1(a) * lax.cos(b)
    im = -lax.exp(a) * lax.sin(b)
    return lax.log(lax.complex(re, im))


def loggamma_complex(z: Any) -> Any:
    """SciPy's branch of log Gamma(z) for a complex array ``z``."""
    x, y = _parts(z)
    pole = (y == 0) & (x <= 0) & (x == lax.floor(x))
    bad = ~lax.is_finite(x) | ~lax.is_finite(y) | pole
    # Elements that take no part get an argument that keeps every branch (and its derivative)
    # finite: an untaken NaN would leak into the gradient through the selects.
    z = _where(bad, creation.full_like(z, 2), z)
    flip = lax.imag(z) < 0
    zu = _where(flip, lax.conj(z), z)
    reflect = lax.real(zu) < _c(x, 0.5)
    right = _loggamma_right(_where(reflect, _c(z, 1) - zu, zu))
    zr = _where(reflect, zu, creation.full_like(z, 0.25))
    xr, yr = _parts(zr)
    # log(pi) - log sin(pi z) - log Gamma(1 - z), the constants gathered: log(2 pi) - i pi / 2.
    i_pi_z = lax.complex(_c(x, -math.pi) * yr, _c(x, math.pi) * xr)
    const = _c(z, complex(math.log(2 * math.pi), -math.pi / 2))
    reflected = const + i_pi_z - _log1m_exp_2pi_i(zr) - right
    out = _where(reflect, reflected, right)
    out = _where(flip, lax.conj(out), out)
    return _where(bad, creation.full_like(out, complex(math.nan, math.nan)), out)


def gamma_complex(z: Any) -> Any:
    """Gamma(z) for a complex array ``z``: exp(loggamma(z)) (NaN at poles, infinities, NaN)."""
    return lax.exp(loggamma_complex(z))
