"""The strong-Wolfe line search behind ``spmd.scipy.optimize.minimize`` (Nocedal and Wright,
*Numerical Optimization*, algorithms 3.5 and 3.6), written with ``lax.while_loop`` so that jit
and vmap go through it.

The search reproduces the choices of JAX 0.10.2's line search step for step (the bracketing
phase doubles the step; ``zoom`` tries a cubic, then a quadratic interpolant, then bisection;
the same safeguards, failure thresholds and iteration caps), because ``minimize`` reports its
evaluation and iteration counts and status codes, and those follow from each choice.

Branches are ``where`` selections rather than ``lax.cond``: every quantity is computed and the
condition picks one, so a batch of searches under vmap runs the same code for every member.
"""

from __future__ import annotations

from typing import NamedTuple

from spmd._src import dtypes
from spmd._src.autodiff import value_and_grad
from spmd._src.lax.control_flow.while_loop import while_loop
from spmd._src.scipy import linalg_jnp as jnp

# Wolfe constants (sufficient decrease, curvature) and zoom's interpolation safeguards: a
# cubic (quadratic) trial step closer than this fraction of the bracket to an end is refused.
C1, C2 = 1e-4, 0.9
_CUBIC_MARGIN, _QUAD_MARGIN = 0.2, 0.1
_ZOOM_MAXITER = 30


class LineSearchResult(NamedTuple):
    """One search's outcome: the step ``a_k`` with ``f_k``/``g_k`` at ``x + a_k p``; ``failed``
    (no step met the Wolfe conditions), ``status`` (0 found, 1 zoom failed, 3 out of
    iterations) and the number of value-and-gradient evaluations."""

    failed: object
    status: object
    nfev: object
    a_k: object
    f_k: object
    g_k: object


def _cubic_min(a, fa, fpa, b, fb, c, fc):
    """Minimiser of the cubic through ``(a, fa)`` with slope ``fpa`` there, ``(b, fb)`` and
    ``(c, fc)`` (NaN when it has none: the caller's bracket test then refuses it)."""
    db, dc = b - a, c - a
    rb = fb - fa - fpa * db  # what the line through (a, fa) with slope fpa misses at b and c
    rc = fc - fa - fpa * dc
    denom = (db * dc) ** 2 * (db - dc)
    ca = (dc**2 * rb + (-(db**2)) * rc) / denom  # cubic coefficient
    cb = ((-(dc**3)) * rb + db**3 * rc) / denom  # quadratic coefficient
    disc = cb * cb - 3.0 * ca * fpa
    return a + (-cb + jnp.sqrt(disc)) / (3.0 * ca)


def _quad_min(a, fa, fpa, b, fb):
    """Minimiser of the parabola through ``(a, fa)`` with slope ``fpa`` and ``(b, fb)``."""
    db = b - a
    curv = (fb - fa - fpa * db) / (db**2)
    return a - fpa / (2.0 * curv)


def _small_float(dtype) -> bool:
    return dtypes.finfo(dtype).bits < 64


def line_search(fun, xk, pk, f0, g0, old_f0, maxiter: int, step_dtype):
    """A step along ``pk`` from ``xk`` meeting the strong Wolfe conditions.

    ``f0``/``g0`` are the value and gradient at ``xk``; ``old_f0`` the previous iterate's value
    (its decrease sets the first trial step, capped at 1) or None (first trial step 1).
    ``step_dtype`` is the dtype of the step-length scalars."""
    pk = pk.astype(jnp.result_type(xk, pk))

    def along(t):
        """Value, directional derivative and gradient at ``xk + t pk``."""
        t = jnp.asarray(t, dtype=pk.dtype)
        phi, g = value_and_grad(fun)(xk + t * pk)
        return phi, jnp.real(jnp.dot(g, pk)), g

    phi0, dphi0 = f0, jnp.real(jnp.dot(g0, pk))
    if old_f0 is None:
        first = jnp.asarray(1.0, step_dtype)
    else:
        guess = 1.01 * 2 * (phi0 - old_f0) / dphi0
        first = jnp.where(guess > 1, 1.0, guess).astype(step_dtype)

    def too_high(a, phi):  # the sufficient-decrease (first Wolfe) condition fails
        return phi > phi0 + C1 * a * dphi0

    def flat_enough(dphi):  # the strong curvature (second Wolfe) condition holds
        return jnp.abs(dphi) <= -C2 * dphi0

    zero = jnp.zeros((), step_dtype)
    init = dict(
        done=jnp.asarray(False),
        failed=jnp.asarray(False),
        i=1,
        a_prev=zero,
        phi_prev=phi0,
        dphi_prev=dphi0,
        nfev=0,
        a_star=zero,
        phi_star=phi0,
        dphi_star=dphi0,
        g_star=g0,
    )

    def body(s):
        a_i = jnp.where(s["i"] == 1, first, s["a_prev"] * 2.0)
        phi_i, dphi_i, g_i = along(a_i)
        # Where the minimiser lies: between the previous step and this one (the value rose),
        # at this step (Wolfe holds), or behind this step (the slope turned non-negative).
        bracket_ahead = too_high(a_i, phi_i) | ((phi_i >= s["phi_prev"]) & (s["i"] > 1))
        accept = flat_enough(dphi_i) & ~bracket_ahead
        bracket_behind = (dphi_i >= 0.0) & ~bracket_ahead & ~accept
        # One zoom serves both brackets (they exclude each other); its ends swap for the second.
        lo = [jnp.where(bracket_ahead, p, c) for p, c in _ends(s, a_i, phi_i, dphi_i)]
        hi = [jnp.where(bracket_ahead, c, p) for p, c in _ends(s, a_i, phi_i, dphi_i)]
        z = _zoom(along, too_high, flat_enough, lo, hi, g0, bracket_ahead | bracket_behind)
        zoomed = bracket_ahead | bracket_behind
        star = [
            jnp.where(zoomed, zv, jnp.where(accept, iv, sv))
            for zv, iv, sv in (
                (z["a_star"], a_i, s["a_star"]),
                (z["phi_star"], phi_i, s["phi_star"]),
                (z["dphi_star"], dphi_i, s["dphi_star"]),
                (z["g_star"], g_i, s["g_star"]),
            )
        ]
        return dict(
            done=s["done"] | zoomed | accept,
            failed=s["failed"] | (zoomed & z["failed"]),
            i=s["i"] + 1,
            a_prev=a_i,
            phi_prev=phi_i,
            dphi_prev=dphi_i,
            nfev=s["nfev"] + 1 + z["nfev"],
            a_star=star[0],
            phi_star=star[1],
            dphi_star=star[2],
            g_star=star[3],
        )

    s = while_loop(lambda s: ~s["done"] & (s["i"] <= maxiter) & ~s["failed"], body, init)
    status = jnp.where(s["failed"], 1, jnp.where(s["i"] > maxiter, 3, 0))
    a_k = s["a_star"]
    if _small_float(a_k.dtype):
        # In 32 bits a step this small would stall the outer iteration on a zero move.
        a_k = jnp.where(jnp.abs(a_k) < 1e-8, jnp.sign(a_k) * 1e-8, a_k)
    return LineSearchResult(
        failed=s["failed"] | ~s["done"],
        status=status,
        nfev=s["nfev"],
        a_k=a_k,
        f_k=s["phi_star"],
        g_k=s["g_star"],
    )


def _ends(s, a_i, phi_i, dphi_i):
    """(previous, current) pairs of step, value and slope."""
    return ((s["a_prev"], a_i), (s["phi_prev"], phi_i), (s["dphi_prev"], dphi_i))


def _zoom(along, too_high, flat_enough, lo, hi, g0, run):
    """Shrink the bracket ``lo``/``hi`` (each ``[step, value, slope]``, ``lo`` the end with the
    lower value) until a step meets the strong Wolfe conditions; a no-op unless ``run``."""
    a_lo, phi_lo, dphi_lo = lo
    a_hi, phi_hi, dphi_hi = hi
    threshold = 1e-5 if _small_float(a_lo.dtype) else 1e-10
    init = dict(
        done=jnp.asarray(False),
        failed=jnp.asarray(False),
        j=0,
        a_lo=a_lo,
        phi_lo=phi_lo,
        dphi_lo=dphi_lo,
        a_hi=a_hi,
        phi_hi=phi_hi,
        dphi_hi=dphi_hi,
        # The third point of the cubic: the end most recently dropped from the bracket.
        a_rec=(a_lo + a_hi) / 2.0,
        phi_rec=(phi_lo + phi_hi) / 2.0,
        a_star=1.0,
        phi_star=phi_lo,
        dphi_star=dphi_lo,
        g_star=g0,
        nfev=0,
    )

    def body(s):
        width = s["a_hi"] - s["a_lo"]  # signed: hi may lie below lo
        left = jnp.minimum(s["a_hi"], s["a_lo"])
        right = jnp.maximum(s["a_hi"], s["a_lo"])
        failed = s["failed"] | (width <= threshold)
        cubic = _cubic_min(
            s["a_lo"], s["phi_lo"], s["dphi_lo"], s["a_hi"], s["phi_hi"], s["a_rec"], s["phi_rec"]
        )
        cmargin, qmargin = _CUBIC_MARGIN * width, _QUAD_MARGIN * width
        use_cubic = (s["j"] > 0) & (cubic > left + cmargin) & (cubic < right - cmargin)
        quad = _quad_min(s["a_lo"], s["phi_lo"], s["dphi_lo"], s["a_hi"], s["phi_hi"])
        use_quad = ~use_cubic & (quad > left + qmargin) & (quad < right - qmargin)
        a_j = jnp.where(use_cubic, cubic, jnp.where(use_quad, quad, (s["a_lo"] + s["a_hi"]) / 2.0))
        phi_j, dphi_j, g_j = along(a_j)
        phi_j = phi_j.astype(s["phi_lo"].dtype)
        dphi_j = dphi_j.astype(s["dphi_lo"].dtype)
        g_j = g_j.astype(s["g_star"].dtype)

        # a_j replaces hi (still too high), is the answer, or replaces lo; when the slope at
        # the new lo points back past it, the old lo becomes hi.
        new_hi = too_high(a_j, phi_j) | (phi_j >= s["phi_lo"])
        found = flat_enough(dphi_j) & ~new_hi
        new_lo = ~new_hi & ~found
        flip = new_lo & (dphi_j * (s["a_hi"] - s["a_lo"]) >= 0.0)

        def pick(cases, keep):
            out = keep
            for cond, val in cases:
                out = jnp.where(cond, val, out)
            return out

        j = s["j"] + 1
        return dict(
            done=s["done"] | found,
            failed=failed | (j >= _ZOOM_MAXITER),
            j=j,
            a_lo=pick([(new_lo, a_j)], s["a_lo"]),
            phi_lo=pick([(new_lo, phi_j)], s["phi_lo"]),
            dphi_lo=pick([(new_lo, dphi_j)], s["dphi_lo"]),
            a_hi=pick([(new_hi, a_j), (flip, s["a_lo"])], s["a_hi"]),
            phi_hi=pick([(new_hi, phi_j), (flip, s["phi_lo"])], s["phi_hi"]),
            dphi_hi=pick([(new_hi, dphi_j), (flip, s["dphi_lo"])], s["dphi_hi"]),
            a_rec=pick([(new_hi | flip, s["a_hi"]), (new_lo & ~flip, s["a_lo"])], s["a_rec"]),
            phi_rec=pick(
                [(new_hi | flip, s["phi_hi"]), (new_lo & ~flip, s["phi_lo"])], s["phi_rec"]
            ),
            a_star=pick([(found, a_j)], s["a_star"]),
            phi_star=pick([(found, phi_j)], s["phi_star"]),
            dphi_star=pick([(found, dphi_j)], s["dphi_star"]),
            g_star=pick([(found, g_j)], s["g_star"]),
            nfev=s["nfev"] + 1,
        )

    return while_loop(lambda s: ~s["done"] & run & ~s["failed"], body, init)
