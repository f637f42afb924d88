"""``jax.scipy.optimize``: ``minimize`` with BFGS (Nocedal and Wright, algorithm 6.1) and the
experimental L-BFGS (algorithm 7.5 with its two-loop recursion), on ``spmd.numpy`` and
``lax.while_loop`` so that jit and vmap go through it.

Both methods follow JAX 0.10.2's iteration exactly (its line search, in
``optimize_line_search``; its stopping rules; its status codes and counters), so the iterates,
``nit``, ``nfev`` and ``status`` are JAX's. As in JAX, ``tol`` is accepted and not used (set
``options["gtol"]``), gradients come from autodiff, and ``x0`` must be a 1-D float array.

>>> from spmd.scipy.optimize import minimize
>>> r = minimize(lambda x: jnp.sum((x - 2.0) ** 2), jnp.zeros(2), method="BFGS")
>>> r.x, int(r.nit), bool(r.success)
(Array([2., 2.], dtype=float32), 2, True)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np

from spmd._src import dtypes
from spmd._src.autodiff import value_and_grad
from spmd._src.lax.control_flow.loops import fori_loop
from spmd._src.lax.control_flow.while_loop import while_loop
from spmd._src.scipy import linalg_jnp as jnp
from spmd._src.scipy.optimize_line_search import line_search

__all__ = ["OptimizeResults", "minimize"]

_LBFGS = "l-bfgs-experimental-do-not-rely-on-this"


class OptimizeResults(NamedTuple):
    """What ``minimize`` found.

    x: the last iterate; success: converged and no line search failed; status: 0 converged,
    1 out of iterations, and for BFGS 3 a line search's zoom failed, 5 a line search ran out
    of iterations, -1 otherwise (L-BFGS: 2 out of function evaluations, 3 out of gradient
    evaluations, 4 too little progress, 5 line search failed); fun and jac: the value and
    gradient at x; hess_inv: BFGS's inverse-Hessian estimate (None for L-BFGS); nfev and njev:
    value and gradient evaluations; nit: iterations.
    """

    x: Any
    success: Any
    status: Any
    fun: Any
    jac: Any
    hess_inv: Any
    nfev: Any
    njev: Any
    nit: Any


def minimize(
    fun: Callable,
    x0: Any,
    args: tuple = (),
    *,
    method: str,
    tol: float | None = None,
    options: Mapping[str, Any] | None = None,
) -> OptimizeResults:
    """Minimise ``fun(x, *args)`` (a real scalar) over the 1-D array ``x`` from ``x0``.

    ``method``: ``"BFGS"`` (options ``maxiter``, ``norm``, ``gtol``, ``line_search_maxiter``)
    or ``"l-bfgs-experimental-do-not-rely-on-this"`` (options ``maxiter``, ``norm``,
    ``maxcor``, ``ftol``, ``gtol``, ``maxfun``, ``maxgrad``, ``maxls``); case is ignored.
    ``tol`` is accepted and ignored, as in JAX. Returns an ``OptimizeResults``.
    """
    options = {} if options is None else dict(options)
    if not isinstance(args, tuple):
        raise TypeError(f"minimize: args must be a tuple, got {type(args).__name__} {args!r}")
    kind = method.lower()
    if kind not in ("bfgs", _LBFGS):
        raise ValueError(f"minimize: method {method!r} not recognized; use 'BFGS' or {_LBFGS!r}")
    known = _BFGS_OPTIONS if kind == "bfgs" else _LBFGS_OPTIONS
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise TypeError(
            f"minimize: unknown option(s) {unknown} for method {method!r}; known: {list(known)}"
        )
    x0 = _check_x0(x0, kind)
    fun_x = lambda x: fun(x, *args)  # noqa: E731
    if kind == "bfgs":
        r = _bfgs(fun_x, x0, **options)
        return OptimizeResults(r["x"], r["converged"] & ~r["failed"], r["status"], r["f"],
                               r["g"], r["h"], r["nfev"], r["nfev"], r["k"])  # fmt: skip
    r = _lbfgs(fun_x, x0, **options)
    return OptimizeResults(r["x"], r["converged"] & ~r["failed"], r["status"], r["f"], r["g"],
                           None, r["nfev"], r["nfev"], r["k"])  # fmt: skip


# Error classes for a bad x0, as JAX's own checks (or failures) raise them, per method.
_NOT_ARRAY = {"bfgs": AttributeError, _LBFGS: TypeError}
_SCALAR = {"bfgs": IndexError, _LBFGS: TypeError}


def _check_x0(x0, kind: str):
    if isinstance(x0, np.ndarray):
        x0 = jnp.asarray(x0)
    if not hasattr(x0, "shape") or not hasattr(x0, "dtype"):
        raise _NOT_ARRAY[kind](f"minimize: x0 must be a 1-D array, got {type(x0).__name__}")
    if x0.ndim == 0:
        raise _SCALAR[kind]("minimize: x0 must be a 1-D array, got a scalar (shape ())")
    if x0.ndim > 1:
        # JAX's BFGS trips over a matrix in its loop condition (TypeError), over more
        # dimensions in its norm (ValueError); its L-BFGS in a broadcast (ValueError).
        cls = TypeError if kind == "bfgs" and x0.ndim == 2 else ValueError
        raise cls(f"minimize: x0 must be a 1-D array, got shape {tuple(x0.shape)}")
    if not dtypes.issubdtype(x0.dtype, np.inexact):
        raise TypeError(
            f"minimize: x0 must be a float array (it is differentiated), got {x0.dtype}"
        )
    return x0


def _norm(g, ord):
    return jnp.linalg.norm(g, ord=ord)


# ---------------------------------------------------------------------------------------------
# BFGS

_BFGS_OPTIONS = ("maxiter", "norm", "gtol", "line_search_maxiter")


def _bfgs(fun, x0, maxiter=None, norm=np.inf, gtol=1e-5, line_search_maxiter=10):
    """BFGS with a dense inverse-Hessian estimate, started from the identity."""
    if maxiter is None:
        maxiter = np.size(x0) * 200
    d = x0.shape[0]
    f0, g0 = value_and_grad(fun)(x0)
    init = dict(
        converged=_norm(g0, norm) < gtol,
        failed=False,
        k=0,
        nfev=1,
        x=x0,
        f=f0,
        g=g0,
        h=jnp.eye(d, dtype=x0.dtype),
        # Sets the first line search's trial step as if the previous step decreased f by
        # half the gradient's length.
        f_prev=f0 + _norm(g0, None) / 2,
        ls_status=0,
    )

    def body(s):
        p = -jnp.dot(s["h"], s["g"])
        step_dtype = jnp.result_type(s["f"], jnp.real(jnp.dot(s["g"], p)))
        ls = line_search(fun, s["x"], p, s["f"], s["g"], s["f_prev"], line_search_maxiter,
                         step_dtype)  # fmt: skip
        sk = ls.a_k * p
        yk = ls.g_k - s["g"]
        rho = jnp.reciprocal(jnp.dot(yk, sk))
        # H <- (I - rho s y^T) H (I - rho y s^T) + rho s s^T; skipped when y.s is 0 (rho inf).
        w = jnp.eye(d, dtype=rho.dtype) - rho * (sk[:, None] * yk[None, :])
        h = jnp.einsum("ij,jk,lk", w, s["h"], w) + rho * sk[:, None] * sk[None, :]
        return dict(
            converged=_norm(ls.g_k, norm) < gtol,
            failed=ls.failed,
            k=s["k"] + 1,
            nfev=s["nfev"] + ls.nfev,
            x=s["x"] + sk,
            f=ls.f_k,
            g=ls.g_k,
            h=jnp.where(jnp.isfinite(rho), h, s["h"]),
            f_prev=s["f"],
            ls_status=ls.status,
        )

    def cond(s):
        return ~s["converged"] & ~jnp.asarray(s["failed"]) & (s["k"] < maxiter)

    s = while_loop(cond, body, init)
    # A failed line search reports 2 + its own status (3: zoom failed, 5: out of iterations).
    s["status"] = jnp.where(
        s["converged"],
        0,
        jnp.where(s["k"] == maxiter, 1, jnp.where(s["failed"], 2 + s["ls_status"], -1)),
    )
    return s


# ---------------------------------------------------------------------------------------------
# L-BFGS

_LBFGS_OPTIONS = ("maxiter", "norm", "maxcor", "ftol", "gtol", "maxfun", "maxgrad", "maxls")


def _lbfgs(
    fun,
    x0,
    maxiter=None,
    norm=np.inf,
    maxcor=10,
    ftol=2.220446049250313e-09,
    gtol=1e-05,
    maxfun=None,
    maxgrad=None,
    maxls=20,
):
    """L-BFGS keeping the last ``maxcor`` steps and gradient changes."""
    d = len(x0)
    dtype = x0.dtype
    if maxiter is None and maxfun is None and maxgrad is None:
        maxiter = d * 200  # at least one limit
    # The line search's step lengths are plain Python floats' dtype (JAX starts it at 1).
    step_dtype = dtypes.canonicalize_dtype(np.float64)
    f0, g0 = value_and_grad(fun)(x0)
    init = dict(
        converged=jnp.asarray(False),
        failed=jnp.asarray(False),
        k=0,
        nfev=1,
        x=x0,
        f=f0,
        g=g0,
        s_hist=jnp.zeros((maxcor, d), dtype=dtype),
        y_hist=jnp.zeros((maxcor, d), dtype=dtype),
        rho_hist=jnp.zeros((maxcor,), dtype=dtype),
        gamma=1.0,
        status=0,
        ls_status=0,
    )

    def body(s):
        p = _two_loop(s)
        ls = line_search(fun, s["x"], p, s["f"], s["g"], None, maxls, step_dtype)
        sk = jnp.asarray(ls.a_k).astype(p.dtype) * p
        yk = ls.g_k - s["g"]
        ys = jnp.real(jnp.dot(yk, sk))
        # Later limits override earlier ones; a failed line search overrides them all.
        status = jnp.asarray(0)
        status = jnp.where(s["f"] - ls.f_k < ftol, 4, status)
        for limit, count, code in ((maxgrad, s["nfev"], 3), (maxfun, s["nfev"], 2),
                                   (maxiter, s["k"], 1)):  # fmt: skip
            if limit is not None and limit != np.inf:
                status = jnp.where(count >= limit, code, status)
        status = jnp.where(ls.failed, 5, status)
        converged = _norm(ls.g_k, norm) < gtol
        return dict(
            converged=converged,
            failed=(status > 0) & ~converged,
            k=s["k"] + 1,
            nfev=s["nfev"] + ls.nfev,
            x=(s["x"] + sk).astype(s["x"].dtype),
            f=ls.f_k.astype(s["f"].dtype),
            g=ls.g_k.astype(s["g"].dtype),
            s_hist=_push(s["s_hist"], sk),
            y_hist=_push(s["y_hist"], yk),
            rho_hist=_push(s["rho_hist"], jnp.reciprocal(ys).astype(yk.dtype)),
            gamma=(ys / jnp.real(jnp.dot(jnp.conj(yk), yk))).astype(s["g"].dtype),
            status=jnp.where(converged, 0, status),
            ls_status=ls.status,
        )

    return while_loop(lambda s: ~s["converged"] & ~s["failed"], body, init)


def _push(history, new):
    """The history with its oldest row dropped and ``new`` appended (newest last)."""
    return jnp.roll(history, -1, axis=0).at[-1].set(new)


def _two_loop(s):
    """The L-BFGS direction ``-H g`` from the stored pairs (newest last in the buffers)."""
    rho, sh, yh = s["rho_hist"], s["s_hist"], s["y_hist"]
    m = rho.shape[0]
    used = jnp.where(s["k"] < m, s["k"], m)  # pairs stored so far

    def newest_first(j, carry):
        q, alphas = carry
        i = m - 1 - j
        a = rho[i] * jnp.real(jnp.dot(jnp.conj(sh[i]), q)).astype(rho.dtype)
        return q - a * jnp.conj(yh[i]), alphas.at[i].set(a)

    q, alphas = fori_loop(0, used, newest_first, (-jnp.conj(s["g"]), jnp.zeros_like(rho)))
    q = s["gamma"] * q

    def oldest_first(j, q):
        i = m - used + j
        b = rho[i] * jnp.real(jnp.dot(yh[i], q)).astype(rho.dtype)
        return q + (alphas[i] - b) * sh[i]

    return fori_loop(0, used, oldest_first, q)
