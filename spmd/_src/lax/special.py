"""Special-function primitives beyond ``transcendental``'s: the regularized incomplete gamma
functions and their derivative in ``a``, the Hurwitz zeta function and the regularized
incomplete beta function (plus ``random_gamma_grad``, which JAX writes in terms of lax ops).

Kernels compute in float64 with vectorized NumPy (series, continued fractions, the
Euler-Maclaurin sum) and round once to the operand dtype. Each loop runs on the elements that
have not converged yet, so a batch costs what its slowest element needs.

>>> lax.igamma(jnp.float32(2.0), jnp.float32(1.0))  # 1 - 2/e
Array(0.26424113, dtype=float32)
"""

from __future__ import annotations

import math

import numpy as np

from spmd._src.lax.elementwise.arithmetic import add, div, mul, neg, sub
from spmd._src.lax.elementwise.bitwise import bitwise_or, le, ne
from spmd._src.lax.elementwise.common import _const, _one, _zeros
from spmd._src.lax.elementwise.selection import select
from spmd._src.lax.elementwise.transcendental import (
    _digamma_scalar,
    _lgamma_scalar,
    _polygamma_scalar,
    digamma,
    exp,
    lgamma,
    log,
    log1p,
)
from spmd._src.lax.rules import defbroadcasting, defjvp, deflinear
from spmd._src.lax.utils import binop, float_dtypes, unop

__all__ = [
    "betainc",
    "igamma",
    "igamma_grad_a",
    "igamma_grad_a_p",
    "igamma_p",
    "igammac",
    "igammac_p",
    "random_gamma_grad",
    "random_gamma_grad_p",
    "regularized_incomplete_beta_p",
    "zeta",
    "zeta_p",
]

_EPS = 1e-16
_MAX_ITER = 20000

_lgamma64 = np.vectorize(_lgamma_scalar, otypes=[np.float64])
_digamma64 = np.vectorize(_digamma_scalar, otypes=[np.float64])
_trigamma64 = np.vectorize(lambda v: _polygamma_scalar(1.0, v), otypes=[np.float64])


def _f64(*args):
    """The operands broadcast together, as float64 copies (kernels write into them)."""
    return [np.array(a, dtype=np.float64) for a in np.broadcast_arrays(*args)]


def _quiet(kernel):
    def impl(*args):
        dtype = args[-1].dtype
        with np.errstate(all="ignore"):
            out = kernel(*_f64(*args))
        return np.asarray(out).astype(dtype)

    return impl


def _unimplemented(name):
    def rule(g, *args):
        raise NotImplementedError(f"Differentiation rule for '{name}' not implemented")

    return rule


# ---------------------------------------------------------------------------------------------
# The incomplete gamma function: a power series for x < a + 1, Legendre's continued fraction
# for Q = 1 - P otherwise. Both carry d/da along (forward mode on the recurrences) for
# igamma_grad_a.


def _gamma_series(a, x, second=False):
    """P(a, x) and dP/da by the series x^a e^-x sum_n x^n / Gamma(a + n + 1); with
    ``second``, d^2P/da^2 instead of P."""
    logx = np.log(x)
    lead = a * logx - x - _lgamma64(a + 1)
    d_lead = logx - _digamma64(a + 1)
    term, d_term, d2_term = np.ones_like(a), np.zeros_like(a), np.zeros_like(a)
    total, d_total, d2_total = term.copy(), d_term.copy(), d2_term.copy()
    active = np.ones(a.shape, bool)
    ap = a.copy()
    for _ in range(_MAX_ITER):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        ap[idx] += 1
        ratio = x[idx] / ap[idx]
        inv = 1.0 / ap[idx]
        # d/da of the running product prod x / (a + k): each factor r = x / (a + k) has
        # r' = -r / (a + k) and r'' = 2 r / (a + k)^2.
        if second:
            d2_term[idx] = (
                d2_term[idx] - 2 * d_term[idx] * inv + 2 * term[idx] * inv * inv
            ) * ratio
        d_term[idx] = (d_term[idx] - term[idx] * inv) * ratio
        term[idx] *= ratio
        total[idx] += term[idx]
        d_total[idx] += d_term[idx]
        done = (np.abs(term[idx]) <= _EPS * np.abs(total[idx])) & (
            np.abs(d_term[idx]) <= _EPS * np.abs(d_total[idx]) + 1e-300
        )
        if second:
            d2_total[idx] += d2_term[idx]
            done &= np.abs(d2_term[idx]) <= _EPS * np.abs(d2_total[idx]) + 1e-300
        active[idx[done]] = False
    scale = np.exp(lead)
    dp = scale * (d_lead * total + d_total)
    if second:
        d2_lead = -_trigamma64(a + 1)
        return scale * ((d2_lead + d_lead**2) * total + 2 * d_lead * d_total + d2_total), dp
    return scale * total, dp


def _wallis_step(idx, bn, an, d_an, second, v, dv, d2v):
    """One step of v_n = b_n v_{n-1} + a_n v_{n-2} and its derivatives in a, on the elements
    ``idx``: ((v_{n-1}, v_n), (v'_{n-1}, v'_n), (v''_{n-1}, v''_n)) (the last None unless
    ``second``)."""
    v0, v1, dv0, dv1 = v[0][idx], v[1][idx], dv[0][idx], dv[1][idx]
    new = bn * v1 + an * v0
    d_new = bn * dv1 - v1 + an * dv0 + d_an * v0
    if not second:
        return (v1, new), (dv1, d_new), (None, None)
    d2v1 = d2v[1][idx]
    d2_new = bn * d2v1 - 2 * dv1 + an * d2v[0][idx] + 2 * d_an * dv0
    return (v1, new), (dv1, d_new), (d2v1, d2_new)


def _gamma_cf(a, x, second=False):
    """Q(a, x) and dQ/da by Legendre's continued fraction (Wallis' recurrences, rescaled);
    with ``second``, d^2Q/da^2 instead of Q."""
    lead = a * np.log(x) - x - _lgamma64(a)
    d_lead = np.log(x) - _digamma64(a)
    # Fraction 1 / (b1 + a2 / (b2 + ...)), b_n = x + 2n - 1 - a, a_{n+1} = -n (n - a). Each of
    # A, B carries its first and second derivatives in a, by the recurrences differentiated
    # (b_n' = -1, a_n' = n - 1, both second derivatives 0).
    z = np.zeros_like(a)
    A = [np.ones_like(a), z.copy()]  # A_{-1}, A_0
    B = [z.copy(), np.ones_like(a)]  # B_{-1}, B_0
    dA, dB, d2A, d2B = (
        [z.copy(), z.copy()],
        [z.copy(), z.copy()],
        [z.copy(), z.copy()],
        [
            z.copy(),
            z.copy(),
        ],
    )
    f, df, d2f = z.copy(), z.copy(), z.copy()
    active = np.ones(a.shape, bool)
    for n in range(1, _MAX_ITER):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        av, xv = a[idx], x[idx]
        bn = xv + 2 * n - 1 - av
        an = np.ones_like(av) if n == 1 else -(n - 1) * (n - 1 - av)
        d_an = 0.0 if n == 1 else n - 1.0

        coefs = (idx, bn, an, d_an, second)
        (A1, A2), (dA1, dA2), (d2A1, d2A2) = _wallis_step(*coefs, A, dA, d2A)
        (B1, B2), (dB1, dB2), (d2B1, d2B2) = _wallis_step(*coefs, B, dB, d2B)
        sc = 1.0 / B2  # rescaling every quantity by one factor leaves A/B and its derivatives
        A[0][idx], A[1][idx], B[0][idx], B[1][idx] = A1 * sc, A2 * sc, B1 * sc, 1.0
        dA[0][idx], dA[1][idx], dB[0][idx], dB[1][idx] = dA1 * sc, dA2 * sc, dB1 * sc, dB2 * sc
        fn = A2 * sc
        dfn = dA2 * sc - fn * dB2 * sc
        done = (np.abs(fn - f[idx]) <= _EPS * np.abs(fn)) & (
            np.abs(dfn - df[idx]) <= _EPS * np.abs(dfn) + 1e-300
        )
        if second:
            d2A[0][idx], d2A[1][idx] = d2A1 * sc, d2A2 * sc
            d2B[0][idx], d2B[1][idx] = d2B1 * sc, d2B2 * sc
            # f'' = (A'' - 2 f' B' - f B'') / B, with B = 1 after the rescaling.
            d2fn = d2A2 * sc - 2 * dfn * dB2 * sc - fn * d2B2 * sc
            done &= np.abs(d2fn - d2f[idx]) <= _EPS * np.abs(d2fn) + 1e-300
            d2f[idx] = d2fn
        done |= ~np.isfinite(fn)
        f[idx], df[idx] = fn, dfn
        active[idx[done]] = False
    scale = np.exp(lead)
    dq = scale * (d_lead * f + df)
    if second:
        d2_lead = -_trigamma64(a)
        return scale * ((d2_lead + d_lead**2) * f + 2 * d_lead * df + d2f), dq
    return scale * f, dq


def _igamma_parts(a, x):
    """(P, Q, dP/da) for float64 operands, with the edge values of JAX's igamma."""
    p = np.full(a.shape, np.nan)
    q = np.full(a.shape, np.nan)
    dp = np.full(a.shape, np.nan)
    ok = (a >= 0) & (x >= 0)  # false for NaN
    # P(a, 0) = 0; P(0, x) = 1 for x > 0; P(a, inf) = 1 (even for a = inf); as in JAX, NaN
    # for a = inf at finite x and at a = x = 0.
    zero = ok & (x == 0) & (a > 0)
    p[zero], q[zero], dp[zero] = 0.0, 1.0, 0.0
    one = ok & (x > 0) & ((a == 0) | np.isinf(x))
    p[one], q[one], dp[one] = 1.0, 0.0, 0.0
    ok &= (a > 0) & np.isfinite(a)
    body = ok & (x > 0) & np.isfinite(x)
    series = body & (x < a + 1)
    cf = body & ~series
    if series.any():
        ps, dps = _gamma_series(a[series], x[series])
        p[series], q[series], dp[series] = ps, 1.0 - ps, dps
    if cf.any():
        qs, dqs = _gamma_cf(a[cf], x[cf])
        p[cf], q[cf], dp[cf] = 1.0 - qs, qs, -dqs
    return p, q, dp


def igamma(a, x):
    """The regularized lower incomplete gamma function ``P(a, x)``."""
    return igamma_p.bind(a, x)


igamma_p = binop("igamma", _quiet(lambda a, x: _igamma_parts(a, x)[0]), float_dtypes)
defbroadcasting(igamma_p)


def _igamma_jvp_x(g, a, x):
    # d/dx P(a, x) = x^(a-1) e^-x / Gamma(a).
    return mul(g, exp(sub(add(neg(x), mul(sub(a, _one(a)), log(x))), lgamma(a))))


defjvp(
    igamma_p,
    lambda g, a, x: mul(g, igamma_grad_a(a, x)),
    _igamma_jvp_x,
)


def igammac(a, x):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return igammac_p.bind(a, x)


igammac_p = binop("igammac", _quiet(lambda a, x: _igamma_parts(a, x)[1]), float_dtypes)
defbroadcasting(igammac_p)
defjvp(
    igammac_p,
    lambda g, a, x: neg(mul(g, igamma_grad_a(a, x))),
    lambda g, a, x: neg(_igamma_jvp_x(g, a, x)),
)


def igamma_grad_a(a, x):
    """The derivative of ``igamma(a, x)`` with respect to ``a``."""
    return igamma_grad_a_p.bind(a, x)


igamma_grad_a_p = binop("igamma_grad_a", _quiet(lambda a, x: _igamma_parts(a, x)[2]), float_dtypes)
defbroadcasting(igamma_grad_a_p)
# As in JAX: no derivative of the derivative.
defjvp(igamma_grad_a_p, _unimplemented("igamma_grad_a"), _unimplemented("igamma_grad_a"))


def _igamma_grad_aa_kernel(a, x):
    """d^2P/da^2 for float64 operands where P is smooth (a > 0, 0 < x < inf), else NaN."""
    out = np.full(a.shape, np.nan)
    body = (a > 0) & np.isfinite(a) & (x > 0) & np.isfinite(x)
    series = body & (x < a + 1)
    cf = body & ~series
    if series.any():
        out[series] = _gamma_series(a[series], x[series], second=True)[0]
    if cf.any():
        out[cf] = -_gamma_cf(a[cf], x[cf], second=True)[0]
    return out


# Not a JAX primitive: random_gamma_grad's derivative in a needs it. JAX's own derivatives of
# random_gamma_grad come from forward mode through its loops, which stops at no order; this
# one stops at the second derivative.
_igamma_grad_aa_p = binop("igamma_grad_aa", _quiet(_igamma_grad_aa_kernel), float_dtypes)
defbroadcasting(_igamma_grad_aa_p)
defjvp(_igamma_grad_aa_p, _unimplemented("igamma_grad_aa"), _unimplemented("igamma_grad_aa"))


def _forward_only(t):
    """``t`` itself, as a linear map with no transpose: what JAX's while loops give
    random_gamma_grad (a jvp, but no reverse mode)."""
    return _forward_only_p.bind(t)


def _forward_only_transpose(ct, t):
    raise ValueError(
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
        "dynamic start/stop values. Try using lax.scan, or using fori_loop with static "
        "start/stop."
    )


_forward_only_p = unop("forward_only", lambda t: t, float_dtypes)
deflinear(_forward_only_p, _forward_only_transpose)


def _log_gamma_density(a, x):
    # log of dP/dx = x^(a-1) e^-x / Gamma(a).
    return sub(add(neg(x), mul(sub(a, _one(a)), log(x))), lgamma(a))


def _random_gamma_grad_kernel(a, x):
    p_a = _igamma_parts(a, x)[2]
    with np.errstate(all="ignore"):
        log_density = -x + (a - 1) * np.log(x) - _lgamma64(a)
        # Divide in log space so that large a does not overflow the density.
        out = -p_a / np.exp(log_density)
    # As in JAX: 0 at x = 0, NaN for x < 0, a <= 0 or NaN operands.
    out = np.where(x == 0, 0.0, out)
    return np.where((x < 0) | ~(a > 0) | np.isnan(x), np.nan, out)


def _outside_tangent(coef, a, x):
    """``coef``, but 0 where random_gamma_grad is one of its constants (0 or NaN): JAX selects
    them, so their tangent is 0."""
    zero = _const(x, 0)
    edge = bitwise_or(bitwise_or(le(x, zero), le(a, zero)), bitwise_or(ne(x, x), ne(a, a)))
    return select(edge, _zeros(coef), coef)


def random_gamma_grad(a, x):
    """The derivative of a ``Gamma(a, 1)`` sample ``x`` with respect to ``a``, at fixed
    quantile: ``-(dP/da) / (dP/dx)``. It has a jvp but, as in JAX (whose loops are forward-mode
    only), no reverse mode."""
    return random_gamma_grad_p.bind(a, x)


random_gamma_grad_p = binop("random_gamma_grad", _quiet(_random_gamma_grad_kernel), float_dtypes)
defbroadcasting(random_gamma_grad_p)


def _random_gamma_grad_jvp_a(g, a, x):
    # d/da (-P_a / D) = -P_aa / D - r (log x - psi(a)), with r = -P_a / D and D = dP/dx.
    r = random_gamma_grad(a, x)
    dlog_density = sub(log(x), digamma(a))
    coef = sub(
        neg(div(_igamma_grad_aa_p.bind(a, x), exp(_log_gamma_density(a, x)))), mul(r, dlog_density)
    )
    return _forward_only(mul(g, _outside_tangent(coef, a, x)))


def _random_gamma_grad_jvp_x(g, a, x):
    # d/dx (-P_a / D) = -(log x - psi(a)) - r ((a - 1) / x - 1).
    r = random_gamma_grad(a, x)
    dx_log_density = sub(div(sub(a, _one(a)), x), _one(x))
    coef = sub(neg(sub(log(x), digamma(a))), mul(r, dx_log_density))
    return _forward_only(mul(g, _outside_tangent(coef, a, x)))


defjvp(random_gamma_grad_p, _random_gamma_grad_jvp_a, _random_gamma_grad_jvp_x)


# ---------------------------------------------------------------------------------------------
# The Hurwitz zeta function: direct terms until q + k >= 10, then the Euler-Maclaurin tail.

# B_2, B_4, ..., B_22 over (2j)!.
_B2J_FACT = tuple(
    b / math.factorial(2 * j)
    for j, b in enumerate(
        (
            1 / 6,
            -1 / 30,
            1 / 42,
            -1 / 30,
            5 / 66,
            -691 / 2730,
            7 / 6,
            -3617 / 510,
            43867 / 798,
            -174611 / 330,
            854513 / 138,
        ),
        start=1,
    )
)
_ZETA_SHIFT = 12


def _zeta_kernel(s, q):
    out = np.full(s.shape, np.nan)
    one = s == 1
    out[one] = np.inf
    q_pole = (q <= 0) & (q == np.floor(q))
    ok = (s > 1) & ~np.isnan(q) & ~q_pole
    # Negative q: (q + k)^-s is real only for integer s.
    ok &= (q > 0) | (s == np.floor(s))
    out[(s > 1) & q_pole] = np.inf
    # As in JAX, NaN for infinite s or q.
    ok &= np.isfinite(q) & np.isfinite(s)
    sv, qv = s[ok], q[ok]
    total = np.zeros_like(sv)
    # Terms below the shift point, summed directly (negative q first walks up to positive).
    shift = np.maximum(np.ceil(-qv), 0) + _ZETA_SHIFT
    kmax = int(shift.max()) if shift.size else 0
    for k in range(kmax):
        take = k < shift
        total += np.where(take, (qv + k) ** -sv, 0.0)
    w = qv + shift
    tail = w ** (1 - sv) / (sv - 1) + 0.5 * w**-sv
    rising = sv.copy()  # s (s + 1) ... (s + 2j - 2)
    power = w ** (-sv - 1)
    for j, c in enumerate(_B2J_FACT, start=1):
        term = c * rising * power
        tail += term
        rising = rising * (sv + 2 * j - 1) * (sv + 2 * j)
        power = power / (w * w)
    out[ok] = total + tail
    return out


def zeta(x, q):
    """The Hurwitz zeta function ``sum_k (q + k)^-x``."""
    return zeta_p.bind(x, q)


zeta_p = binop("zeta", _quiet(_zeta_kernel), float_dtypes)
defbroadcasting(zeta_p)
# JAX 0.10 defines no derivative of zeta in either operand.
defjvp(zeta_p, _unimplemented("zeta"), _unimplemented("zeta"))


# ---------------------------------------------------------------------------------------------
# The regularized incomplete beta function: the continued fraction (modified Lentz) on the side
# of the mean where it converges fast, the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) otherwise.


def _beta_cf(a, b, x):
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c = np.ones_like(a)
    d = 1 - qab * x / qap
    d = np.where(np.abs(d) < tiny, tiny, d)
    d = 1 / d
    h = d.copy()
    active = np.ones(a.shape, bool)
    for m in range(1, _MAX_ITER):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            break
        av, bv, xv = a[idx], b[idx], x[idx]
        cv, dv, hv = c[idx], d[idx], h[idx]
        m2 = 2 * m
        for aa in (
            m * (bv - m) * xv / ((qam[idx] + m2) * (av + m2)),
            -(av + m) * (qab[idx] + m) * xv / ((av + m2) * (qap[idx] + m2)),
        ):
            dv = 1 + aa * dv
            dv = np.where(np.abs(dv) < tiny, tiny, dv)
            cv = 1 + aa / cv
            cv = np.where(np.abs(cv) < tiny, tiny, cv)
            dv = 1 / dv
            delta = dv * cv
            hv = hv * delta
        c[idx], d[idx], h[idx] = cv, dv, hv
        active[idx[np.abs(delta - 1) <= _EPS]] = False
    return h


def _betainc_kernel(a, b, x):
    out = np.full(a.shape, np.nan)
    ok = (a >= 0) & (b >= 0) & (x >= 0) & (x <= 1)  # false for NaN
    # The limits JAX gives: 0 at x = 0 and 1 at x = 1 first; then 1 for a = 0 or b = inf, 0
    # for b = 0 or a = inf, and NaN where a and b are both 0 or both inf.
    both = ((a == 0) & (b == 0)) | (np.isinf(a) & np.isinf(b))
    edge = ok & ~both & ((a == 0) | (b == 0) | np.isinf(a) | np.isinf(b))
    out[edge & ((a == 0) | np.isinf(b))] = 1.0
    out[edge & ((b == 0) | np.isinf(a))] = 0.0
    out[ok & (x == 0)] = 0.0
    out[ok & (x == 1)] = 1.0
    ok &= (a > 0) & (b > 0) & np.isfinite(a) & np.isfinite(b)
    body = ok & (x > 0) & (x < 1)
    av, bv, xv = a[body], b[body], x[body]
    flip = xv > (av + 1) / (av + bv + 2)
    a2, b2, x2 = np.where(flip, bv, av), np.where(flip, av, bv), np.where(flip, 1 - xv, xv)
    lbeta = _lgamma64(a2) + _lgamma64(b2) - _lgamma64(a2 + b2)
    front = np.exp(a2 * np.log(x2) + b2 * np.log1p(-x2) - lbeta) / a2
    val = front * _beta_cf(a2, b2, x2)
    out[body] = np.where(flip, 1 - val, val)
    return out


def betainc(a, b, x):
    """The regularized incomplete beta function ``I_x(a, b)``."""
    return regularized_incomplete_beta_p.bind(a, b, x)


regularized_incomplete_beta_p = binop(
    "regularized_incomplete_beta", _quiet(_betainc_kernel), float_dtypes, nary=3
)
defbroadcasting(regularized_incomplete_beta_p)


def _betainc_jvp_ab(g, a, b, x):
    raise ValueError("Betainc gradient with respect to a and b not supported.")


def _betainc_jvp_x(g, a, b, x):
    # x^(a-1) (1-x)^(b-1) / B(a, b), in log space.
    lbeta = sub(add(lgamma(a), lgamma(b)), lgamma(add(a, b)))
    one = _one(a)
    return mul(exp(sub(add(mul(sub(b, one), log1p(neg(x))), mul(sub(a, one), log(x))), lbeta)), g)


defjvp(regularized_incomplete_beta_p, _betainc_jvp_ab, _betainc_jvp_ab, _betainc_jvp_x)
