"""``odeint``: adaptive Dormand-Prince (RK45) integration of ``dy/dt = func(y, t, *args)``,
with JAX's error control and its adjoint-method reverse-mode derivative.

Everything is written on spmd.numpy / spmd.lax (a ``scan`` over the output times, a
``while_loop`` of accepted or rejected steps in between, dense output by a quartic through each
step), so jit and vmap go through it as through any program; ``grad`` goes through the
``custom_vjp``, which integrates the adjoint system backwards instead of differentiating the
solver's steps.

The method (Hairer, Norsett & Wanner, "Solving Ordinary Differential Equations I", II.4 and
II.6): the fifth-order Dormand-Prince solution is kept, the difference from the embedded
fourth-order one estimates the error; a step is accepted when the RMS of the error over
``atol + rtol * max(|y0|, |y1|)`` is at most 1, and the next step size is the usual
``0.9 * ratio ** (-1/5)`` clamped to [0.2, 10] times the last (never growing after a rejection),
at most ``hmax``. The first step follows Hairer's starting-step heuristic.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from spmd._src.flatten_util import ravel_pytree
from spmd._src.tree_util import tree_leaves, tree_map

# Dormand-Prince 5(4) tableau: nodes, stage weights, the fifth-order solution's weights and
# (solution - embedded fourth order) for the error estimate.
_ALPHA = (1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0)
_BETA = (
    (1 / 5,),
    (3 / 40, 9 / 40),
    (44 / 45, -56 / 15, 32 / 9),
    (19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729),
    (9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656),
    (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84),
)
_C_SOL = (35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0.0)
_C_ERR = (
    35 / 384 - 1951 / 21600,
    0.0,
    500 / 1113 - 22642 / 50085,
    125 / 192 - 451 / 720,
    -2187 / 6784 + 12231 / 42400,
    11 / 84 - 649 / 6300,
    -1.0 / 60.0,
)
# Weights giving the solution at the step's midpoint (Shampine's dense output for DOPRI5).
_C_MID = (
    6025192743 / 30085553152 / 2,
    0.0,
    51252292925 / 65400821598 / 2,
    -2691868925 / 45128329728 / 2,
    187940372067 / 1594534317056 / 2,
    -1776094331 / 19743644256 / 2,
    11237099 / 235043384 / 2,
)


def _weighted(jnp, weights, k):
    """``sum_i weights[i] * k[i]`` in ``k``'s dtype."""
    return jnp.dot(jnp.asarray(weights, k.dtype), k)


def _rk_step(jnp, func, y0, f0, t0, dt):
    """One Dormand-Prince step: (y1, f1, error estimate, the seven stage slopes)."""
    ks = [f0]
    for alpha, beta in zip(_ALPHA, _BETA):
        ti = t0 + dt * alpha
        yi = y0 + dt.astype(y0.dtype) * _weighted(jnp, beta, jnp.stack(ks))
        ks.append(func(yi, ti))
    k = jnp.stack(ks)
    y1 = dt.astype(y0.dtype) * _weighted(jnp, _C_SOL, k) + y0
    y1_err = dt.astype(y0.dtype) * _weighted(jnp, _C_ERR, k)
    return y1, k[-1], y1_err, k


def _initial_step(jnp, func, t0, y0, order, rtol, atol, f0):
    """Hairer's starting step: small enough that an explicit Euler step's change of slope is
    within tolerance."""
    scale = (atol + jnp.abs(y0) * rtol).astype(y0.dtype)
    d0 = jnp.linalg.norm(y0 / scale)
    d1 = jnp.linalg.norm(f0 / scale)
    h0 = jnp.where((d0 < 1e-5) | (d1 < 1e-5), 1e-6, 0.01 * d0 / d1)
    y1 = y0 + h0.astype(y0.dtype) * f0
    f1 = func(y1, t0 + h0)
    d2 = jnp.linalg.norm((f1 - f0) / scale) / h0
    h1 = jnp.where(
        (d1 <= 1e-15) & (d2 <= 1e-15),
        jnp.maximum(1e-6, h0 * 1e-3),
        (0.01 / jnp.maximum(d1, d2)) ** (1.0 / (order + 1.0)),
    )
    return jnp.minimum(100.0 * h0, h1)


def _error_ratio(jnp, err, rtol, atol, y0, y1):
    tol = atol + rtol * jnp.maximum(jnp.abs(y0), jnp.abs(y1))
    return jnp.sqrt(jnp.mean(jnp.square(err / tol.astype(err.dtype))))


def _next_step(jnp, last, ratio, safety=0.9, ifactor=10.0, dfactor=0.2, order=5.0):
    # After a rejection (ratio > 1) the step may only shrink.
    dfactor = jnp.where(ratio < 1, 1.0, dfactor)
    factor = jnp.minimum(ifactor, jnp.maximum(ratio ** (-1.0 / order) * safety, dfactor))
    return jnp.where(ratio == 0, last * ifactor, last * factor)


def _interp_coeffs(jnp, y0, y1, k, dt):
    """Coefficients (highest power first) of the quartic in s = (t - t0) / dt through y0, the
    midpoint solution and y1 with the step's end slopes."""
    dt = dt.astype(y0.dtype)
    y_mid = y0 + dt * _weighted(jnp, _C_MID, k)
    dy0, dy1 = k[0], k[-1]
    a = -2.0 * dt * dy0 + 2.0 * dt * dy1 - 8.0 * y0 - 8.0 * y1 + 16.0 * y_mid
    b = 5.0 * dt * dy0 - 3.0 * dt * dy1 + 18.0 * y0 + 14.0 * y1 - 32.0 * y_mid
    c = -4.0 * dt * dy0 + dt * dy1 - 11.0 * y0 - 5.0 * y1 + 16.0 * y_mid
    return jnp.stack([a, b, c, dt * dy0, y0])


def _polyval(coeffs, s):
    out = coeffs[0]
    for c in coeffs[1:]:
        out = out * s + c
    return out


def _integrate(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    """The solution (flat ``y0``) at each of ``ts``."""
    import spmd.numpy as jnp  # lazy: written on the public jnp/lax/transforms, as JAX's is
    from spmd import lax  # lazy: written on the public jnp/lax/transforms, as JAX's is

    def f(y, t):
        return func(y, t, *args)

    def to_target(carry, target_t):
        def keep_going(state):
            i, _, _, t, dt, _, _ = state
            return (t < target_t) & (i < mxstep) & (dt > 0)

        def step(state):
            i, y, fy, t, dt, last_t, coeffs = state
            y1, f1, err, k = _rk_step(jnp, f, y, fy, t, dt)
            ratio = _error_ratio(jnp, err, rtol, atol, y, y1)
            new_coeffs = _interp_coeffs(jnp, y, y1, k, dt)
            dt_next = jnp.clip(_next_step(jnp, dt, ratio), 0, hmax)
            accepted = ratio <= 1.0
            new = (y1, f1, t + dt, dt_next, t, new_coeffs)
            old = (y, fy, t, dt_next, last_t, coeffs)
            return (i + 1, *(jnp.where(accepted, n, o) for n, o in zip(new, old)))

        _, *carry = lax.while_loop(keep_going, step, (0, *carry))
        carry = tuple(carry)
        _, _, t, _, last_t, coeffs = carry
        s = (target_t - last_t) / (t - last_t)
        return carry, _polyval(coeffs, s.astype(coeffs.dtype))

    f0 = f(y0, ts[0])
    dt = jnp.clip(_initial_step(jnp, f, ts[0], y0, 4, rtol, atol, f0), 0, hmax)
    coeffs = jnp.stack([y0] * 5)
    _, ys = lax.scan(to_target, (y0, f0, ts[0], dt, ts[0], coeffs), ts[1:])
    return jnp.concatenate([y0[None], ys])


def _integrate_fwd(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    ys = _integrate(func, rtol, atol, mxstep, hmax, y0, ts, *args)
    return ys, (ys, ts, args)


def _integrate_bwd(func, rtol, atol, mxstep, hmax, res, g):
    """The adjoint method: between consecutive output times, integrate backwards (in negated
    time, so the solver still runs forwards) the state, its cotangent, and the accumulating
    cotangents of t0 and the args; each output's cotangent is added when it is passed."""
    import spmd  # lazy: written on the public jnp/lax/transforms, as JAX's is
    import spmd.numpy as jnp  # lazy: written on the public jnp/lax/transforms, as JAX's is
    from spmd import lax  # lazy: written on the public jnp/lax/transforms, as JAX's is

    ys, ts, args = res

    def aug_dynamics(state, t, *args):
        y, y_bar, *_ = state
        y_dot, pullback = spmd.vjp(func, y, -t, *args)
        return (-y_dot, *pullback(y_bar))

    def back_one(carry, i):
        y_bar, t0_bar, args_bar = carry
        # Moving output time i moves that output along the flow.
        t_bar = jnp.dot(func(ys[i], ts[i], *args), g[i])
        t0_bar = t0_bar - t_bar
        state = (ys[i], y_bar, t0_bar, args_bar)
        _, y_bar, t0_bar, args_bar = _odeint_flat(
            aug_dynamics, rtol, atol, mxstep, hmax, state, -jnp.stack([ts[i], ts[i - 1]]), *args
        )
        y_bar, t0_bar, args_bar = tree_map(operator.itemgetter(1), (y_bar, t0_bar, args_bar))
        return (y_bar + g[i - 1], t0_bar, args_bar), t_bar

    init = (g[-1], jnp.zeros((), ts.dtype), tree_map(jnp.zeros_like, args))
    (y_bar, t0_bar, args_bar), rev_ts_bar = lax.scan(back_one, init, jnp.arange(len(ts) - 1, 0, -1))
    ts_bar = jnp.concatenate([jnp.reshape(t0_bar, (1,)), rev_ts_bar[::-1]])
    return (y_bar, ts_bar, *args_bar)


@functools.cache
def _integrate_vjp():
    import spmd  # lazy: written on the public jnp/lax/transforms, as JAX's is

    f = spmd.custom_vjp(_integrate, nondiff_argnums=(0, 1, 2, 3, 4))
    f.defvjp(_integrate_fwd, _integrate_bwd)
    return f


def _odeint_flat(func, rtol, atol, mxstep, hmax, y0, ts, *args):
    """``odeint`` after the checks: y0 any pytree, ``func`` closure-converted."""
    import spmd  # lazy: written on the public jnp/lax/transforms, as JAX's is

    flat_y0, unravel = ravel_pytree(y0)

    def flat_func(y, t, *args):
        return ravel_pytree(func(unravel(y), t, *args))[0]

    out = _integrate_vjp()(flat_func, rtol, atol, mxstep, hmax, flat_y0, ts, *args)
    return spmd.vmap(unravel)(out)


def odeint(func, y0, t, *args, rtol=1.4e-8, atol=1.4e-8, mxstep=np.inf, hmax=np.inf):
    """Integrate ``dy/dt = func(y, t, *args)`` from ``y0`` at ``t[0]``; the solution at each
    time of the increasing 1-D float array ``t`` (stacked along a new leading axis of each leaf
    of ``y0``'s pytree). ``rtol``/``atol``: relative and absolute error tolerances; ``mxstep``:
    the most steps between two output times; ``hmax``: the largest step. Differentiable in
    ``y0``, ``t`` and ``args`` (and values ``func`` closes over) by the adjoint method."""
    import spmd  # lazy: written on the public jnp/lax/transforms, as JAX's is
    import spmd.numpy as jnp  # lazy: written on the public jnp/lax/transforms, as JAX's is
    from spmd._src import dtypes
    from spmd._src.custom_derivatives.gradient import closure_convert

    for arg in tree_leaves(args):
        if not _is_array_like(arg):
            raise TypeError(
                f"The contents of odeint *args must be arrays or scalars, but got {arg}."
            )
    if not dtypes.issubdtype(dtypes.dtype(t), np.floating):
        raise TypeError(f"t must be an array of floats, but got {t}.")
    t = jnp.asarray(t)
    converted, consts = closure_convert(func, y0, t[0], *args)
    return spmd.jit(_odeint_flat, static_argnums=(0, 1, 2, 3, 4))(
        converted, rtol, atol, mxstep, hmax, y0, t, *args, *consts
    )


def _is_array_like(x):
    from spmd._src.array import Array

    if isinstance(x, (Array, np.ndarray, np.generic, bool, int, float, complex)):
        return True
    from spmd._src import core

    return isinstance(x, core.Tracer)
