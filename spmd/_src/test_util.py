"""Checking derivatives against finite differences (``jax.test_util.check_grads``).

Derivatives are checked along one random direction, not column by column, so the cost does not
grow with the number of inputs:

- forward mode: ``jvp(f, args, t)`` must match the central difference
  ``(f(args + eps t) - f(args - eps t)) / (2 eps)``;
- reverse mode: for a random output cotangent ``c``, ``<t, vjp(c)>`` must match
  ``<jvp_numerical(t), c>`` (the defining identity of the transpose);
- higher orders check the derivative of the derivative: forward mode differentiates
  ``(primals, tangents) -> jvp(f, primals, tangents)``, reverse mode differentiates
  ``args -> vjp(f, args)(f(args))``.

Tolerances are by dtype (float32 ``2e-3``, float64 ``1e-5``, ...), scaled by the number of
elements compared, as JAX's are; ``atol``/``rtol`` override them (a number, or a dict by dtype).
Random directions come from ``np.random.RandomState(0)``, so a check is deterministic.

>>> import spmd.numpy as jnp
>>> check_grads(jnp.sin, (0.5,), order=2)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import ml_dtypes
import numpy as np

from spmd._src import config as config_lib
from spmd._src import dtypes
from spmd._src import tree_util as tu
from spmd._src.autodiff import jvp, vjp

__all__ = ["EPS", "check_grads", "check_jvp", "check_vjp"]

EPS = 1e-4

_bf16 = np.dtype(ml_dtypes.bfloat16)

# Exact comparison for non-float dtypes; a float dtype uses its own entry.
_DEFAULT_TOL: dict[np.dtype, float] = {
    np.dtype(dtypes.float0): 0,
    np.dtype(np.bool_): 0,
    **{np.dtype(t): 0 for t in (np.int8, np.int16, np.int32, np.int64)},
    **{np.dtype(t): 0 for t in (np.uint8, np.uint16, np.uint32, np.uint64)},
    _bf16: 1e-2,
    np.dtype(np.float16): 1e-3,
    np.dtype(np.float32): 1e-6,
    np.dtype(np.float64): 1e-15,
    np.dtype(np.complex64): 1e-6,
    np.dtype(np.complex128): 1e-15,
}

# Finite differences are far less precise than the values themselves.
_GRAD_TOL: dict[np.dtype, float] = {
    _bf16: 1e-1,
    np.dtype(np.float16): 1e-2,
    np.dtype(np.float32): 2e-3,
    np.dtype(np.float64): 1e-5,
    np.dtype(np.complex64): 1e-3,
    np.dtype(np.complex128): 1e-5,
}


def _is_py_scalar(x: Any) -> bool:
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def _dtype_of(x: Any) -> np.dtype:
    if hasattr(x, "dtype"):
        return np.dtype(x.dtype)
    # Python scalars: their 64-bit NumPy dtype, so finite differences of them are computed in
    # double precision.
    return np.asarray(x).dtype


def _tol_for(dtype: np.dtype, tol: float | dict | None) -> float:
    if tol is None:
        tol = {}
    if not isinstance(tol, dict):
        return tol
    table = {np.dtype(k): v for k, v in tol.items()}
    dtype = dtypes.canonicalize_dtype(np.dtype(dtype))
    return table.get(dtype, _DEFAULT_TOL.get(dtype, 0))


def _merged(tol: float | dict | None, default: dict) -> float | dict:
    if tol is None:
        return default
    if not isinstance(tol, dict):
        return tol
    return {**default, **{np.dtype(k): v for k, v in tol.items()}}


def _as_numpy(x: Any) -> np.ndarray:
    a = np.asarray(x)
    if a.dtype == _bf16:
        return a.astype(np.float32)
    return a


def _assert_close(x: Any, y: Any, atol, rtol, err_msg: str) -> None:
    a, b = np.asarray(x), np.asarray(y)
    if a.shape != b.shape:
        raise AssertionError(f"{err_msg}: shapes differ, {a.shape} vs {b.shape}")
    if a.dtype == b.dtype == dtypes.float0:
        return  # float0 values carry nothing to compare
    # Tolerances grow with the number of elements compared, as JAX's do.
    at = max(_tol_for(a.dtype, atol), _tol_for(b.dtype, atol)) * a.size
    rt = max(_tol_for(a.dtype, rtol), _tol_for(b.dtype, rtol)) * b.size
    kw = {}
    if at:
        kw["atol"] = at
    if rt:
        kw["rtol"] = rt
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(_as_numpy(a), _as_numpy(b), err_msg=err_msg, **kw)


def _check_close(xs: Any, ys: Any, atol, rtol, err_msg: str) -> None:
    x_leaves, x_tree = tu.tree_flatten(xs)
    y_leaves, y_tree = tu.tree_flatten(ys)
    if x_tree != y_tree:
        raise AssertionError(f"{err_msg}: tree structures differ, {x_tree} vs {y_tree}")
    for x, y in zip(x_leaves, y_leaves):
        _assert_close(x, y, atol, rtol, err_msg)


def _check_dtypes_match(xs: Any, ys: Any, err_msg: str) -> None:
    x64 = config_lib.config.jax_enable_x64
    for x, y in zip(tu.tree_leaves(xs), tu.tree_leaves(ys)):
        dx, dy = _dtype_of(x), _dtype_of(y)
        if not x64:
            dx, dy = dtypes.canonicalize_dtype(dx), dtypes.canonicalize_dtype(dy)
        if dx != dy:
            raise AssertionError(f"{err_msg}: dtypes differ, {dx} vs {dy}")


def _inner(xs: Any, ys: Any) -> float:
    total = 0.0
    for x, y in zip(tu.tree_leaves(xs), tu.tree_leaves(ys), strict=True):
        a = _as_numpy(x).astype(np.complex128).reshape(-1)
        b = _as_numpy(y).astype(np.complex128).reshape(-1)
        total += float(np.real(np.dot(np.conj(a), b)))
    return total


def _keep_type(fn: Callable, x: Any, *rest: Any) -> Any:
    """``fn(x, *rest)`` computed in NumPy, in ``x``'s dtype (a Python scalar stays one)."""
    dt = _dtype_of(x)
    out = np.asarray(fn(np.asarray(x, dt), *[np.asarray(r, dt) for r in rest]), dtype=dt)
    if _is_py_scalar(x) and all(_is_py_scalar(r) for r in rest):
        return out.item()
    return out


def _rand_like(rng: np.random.RandomState, x: Any) -> Any:
    dt = _dtype_of(x)
    shape = np.shape(x)
    out = np.asarray(rng.randn(*shape), dtype=dt)
    if dtypes.issubdtype(dt, np.complexfloating):
        out = out + dt.type(1j) * np.asarray(rng.randn(*shape), dtype=dt)
    return out.item() if _is_py_scalar(x) else out


def _scale(xs: Any, a: float) -> Any:
    def mul(x):
        dt = _dtype_of(x)
        out = np.multiply(np.asarray(x, dt), np.array(a, dtype=dt), dtype=dt)
        return out.item() if _is_py_scalar(x) else out

    return tu.tree_map(mul, xs)


def _safe_sub(x: Any, y: Any) -> np.ndarray:
    # inf - inf is taken as 0: the function did not change.
    dt = _dtype_of(x)
    a, b = np.asarray(x), np.asarray(y)
    with np.errstate(invalid="ignore"):
        return np.where(np.equal(a, b), np.array(0, dt), np.subtract(a, b, dtype=dt))


def numerical_jvp(f: Callable, primals: Sequence[Any], tangents: Sequence[Any], eps: float = EPS):
    """The central difference of ``f`` at ``primals`` along ``tangents``."""
    delta = _scale(tangents, eps)
    plus = tu.tree_map(lambda x, d: _keep_type(np.add, x, d), tuple(primals), tuple(delta))
    minus = tu.tree_map(lambda x, d: _keep_type(np.subtract, x, d), tuple(primals), tuple(delta))
    f_pos, f_neg = f(*plus), f(*minus)
    diff = tu.tree_map(_safe_sub, f_pos, f_neg)
    return _scale(diff, 0.5 / eps)


def _label(err_msg: str, what: str) -> str:
    return f"{err_msg} {what}" if err_msg else what


def check_jvp(
    f: Callable,
    f_jvp: Callable,
    args: Sequence[Any],
    atol: float | dict | None = None,
    rtol: float | dict | None = None,
    eps: float = EPS,
    err_msg: str = "",
) -> None:
    """Check ``f_jvp(args, tangents) -> (f(args), tangent_out)`` against finite differences
    of ``f`` along one random direction. Raises ``AssertionError`` on a mismatch.

    >>> check_jvp(jnp.sin, functools.partial(spmd.jvp, jnp.sin), (0.5,))
    """
    atol = _merged(atol, _GRAD_TOL)
    rtol = _merged(rtol, _GRAD_TOL)
    rng = np.random.RandomState(0)
    args = tuple(args)
    tangent = tu.tree_map(functools.partial(_rand_like, rng), args)
    v_out, t_out = f_jvp(args, tangent)
    _check_dtypes_match(v_out, t_out, _label(err_msg, "tangent dtype"))
    v_expected = f(*args)
    _check_dtypes_match(v_out, v_expected, _label(err_msg, "primal dtype"))
    t_expected = numerical_jvp(f, args, tangent, eps=eps)
    _check_close(v_out, v_expected, atol, rtol, _label(err_msg, "primal"))
    _check_close(t_out, t_expected, atol, rtol, _label(err_msg, "tangent"))


def check_vjp(
    f: Callable,
    f_vjp: Callable,
    args: Sequence[Any],
    atol: float | dict | None = None,
    rtol: float | dict | None = None,
    eps: float = EPS,
    err_msg: str = "",
) -> None:
    """Check ``f_vjp(*args) -> (f(args), pullback)`` against finite differences of ``f``:
    ``<t, pullback(c)>`` must equal ``<numerical jvp(t), c>`` for random ``t`` and ``c``.

    >>> check_vjp(jnp.sin, functools.partial(spmd.vjp, jnp.sin), (0.5,))
    """
    atol = _merged(atol, _GRAD_TOL)
    rtol = _merged(rtol, _GRAD_TOL)
    rand = functools.partial(_rand_like, np.random.RandomState(0))
    args = tuple(args)
    v_out, pullback = f_vjp(*args)
    v_expected = f(*args)
    _check_close(v_out, v_expected, atol, rtol, _label(err_msg, "primal"))
    tangent = tu.tree_map(rand, args)
    t_out = numerical_jvp(f, args, tangent, eps=eps)
    cotangent = tu.tree_map(rand, v_out)
    conj = lambda t: tu.tree_map(lambda x: _keep_type(np.conj, x), t)  # noqa: E731
    ct_out = conj(pullback(conj(cotangent)))
    for c, a in zip(tu.tree_leaves(ct_out), tu.tree_leaves(args), strict=True):
        if np.shape(c) != np.shape(a):
            raise AssertionError(
                f"{_label(err_msg, 'cotangent')}: shape {np.shape(c)}, but the argument it "
                f"belongs to has shape {np.shape(a)}"
            )
    ip = _inner(tangent, ct_out)
    ip_expected = _inner(t_out, cotangent)
    _check_close(ip, ip_expected, atol, rtol, _label(err_msg, "cotangent projection"))


def check_grads(
    f: Callable,
    args: Sequence[Any],
    order: int,
    modes: Sequence[str] = ("fwd", "rev"),
    atol: float | dict | None = None,
    rtol: float | dict | None = None,
    eps: float | None = None,
) -> None:
    """Check the derivatives of ``f`` at ``args`` up to ``order`` against finite differences,
    in forward (``"fwd"``) and/or reverse (``"rev"``) mode. Raises ``AssertionError`` naming
    the mode and order that failed.

    >>> check_grads(lambda x: x ** 3, (2.0,), order=2, modes=("fwd", "rev"))
    """
    args = tuple(args)
    eps = eps or EPS
    unknown = set(modes) - {"fwd", "rev"}
    if unknown:
        raise ValueError(f"check_grads: modes must be 'fwd' and/or 'rev', got {sorted(unknown)}")

    def go(fun: Callable, fun_args: tuple, k: int, msg: str) -> None:
        if "fwd" in modes:
            here = f"{msg} JVP of order {order - k + 1}".strip()
            check_jvp(fun, functools.partial(jvp, fun), fun_args, atol, rtol, eps, here)
            if k > 1:
                go(functools.partial(jvp, fun), (fun_args, fun_args), k - 1, here + " ->")
        if "rev" in modes:
            here = f"{msg} VJP of order {order - k + 1}".strip()
            check_vjp(fun, functools.partial(vjp, fun), fun_args, atol, rtol, eps, here)
            if k > 1:

                def pulled(*xs):
                    out, pullback = vjp(fun, *xs)
                    return pullback(out)

                go(pulled, fun_args, k - 1, here + " ->")

    go(f, args, order, "")
