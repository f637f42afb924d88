"""Golden cases for the polynomial functions, ``interp``, ``trapezoid``, ``gradient``,
``ediff1d``, ``cov``, ``corrcoef``, ``unwrap`` and the window functions of ``jax.numpy``: one
list, run by JAX and by spmd.

Each case is a name, a maker ``make(jnp, lax) -> fn`` and arguments built with plain NumPy or
Python scalars (NumPy arrays become arrays of the library under test; Python scalars stay weakly
typed). Weakly typed arrays are made inside ``fn`` as ``int_array * 0.5`` (an int32 array times a
Python float is a weak float32 in both libraries). Anything static is closed over by ``fn``.

- ``tests/golden_gen/numpy_polynomial_gen.py`` (run under real JAX) records, for every case, the
  output leaves (dtype, weak type, shape, values) eagerly and under ``jax.jit``, the exception
  class for error cases, and for cases with ``grad`` the gradient of ``weighted_loss`` with
  respect to those arguments, into ``tests/golden/numpy_polynomial.json``;
- ``tests/test_numpy_polynomial.py`` (no JAX) compares spmd's results with those records.

Inputs are deterministic (no random numbers).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
from cases_numpy import flatten

# Looser float32 tolerances, each with its reason (the comparison's default is 1e-6):
TRANS = {"float32": 2e-6, "float16": 2e-3}  # transcendental functions (cos, i0, sqrt, pow)
# Weighted least squares through an SVD: NumPy's LAPACK and XLA's SVD round differently, and
# the fit amplifies those differences by the condition number of the weighted, scaled
# Vandermonde matrix (JAX's own result is ~3e-5 from the float64 solution).
FIT = {"float32": 2e-5}
# Ill-conditioned fits (degree 4 on 6 points): the covariance goes through an inverse whose
# condition number is ~1e5.
FIT_ILL = {"float32": 5e-3}


@dataclasses.dataclass(frozen=True)
class Case:
    """``make(jnp, lax)`` gives the function to call on ``args``; ``grad`` lists the argument
    positions to differentiate ``weighted_loss`` by; ``jit=False`` skips the jitted run (for
    functions that need concrete values); ``error`` names the exception class JAX raises."""

    name: str
    make: Callable[[Any, Any], Callable]
    args: tuple
    tol: dict | None = None
    jit: bool = True
    error: str | None = None
    grad: tuple[int, ...] = ()

    def build(self, jnp, lax) -> tuple[Callable, tuple]:
        return self.make(jnp, lax), self.args


CASES: list[Case] = []


def case(name, make, *args, tol=None, jit=True, error=None, grad=()):
    if any(c.name == name for c in CASES):
        raise ValueError(f"duplicate case name {name!r}")
    CASES.append(Case(name, make, tuple(args), tol, jit, error, tuple(grad)))


def J(path: str, *pre, **kw):
    """Maker of ``jnp.<path>(*pre, *args, **kw)``."""
    return lambda jnp, lax: lambda *a: getattr(jnp, path)(*pre, *a, **kw)


def W(path: str, n_weak: int = 1, **kw):
    """Maker of ``jnp.<path>`` with its first ``n_weak`` arguments made weakly typed floats
    (``int_array * 0.5``)."""

    def make(jnp, lax):
        def fn(*a):
            a = [x * 0.5 if i < n_weak else x for i, x in enumerate(a)]
            return getattr(jnp, path)(*a, **kw)

        return fn

    return make


def loss_weights(shape: tuple[int, ...]) -> np.ndarray:
    """Fixed weights of an output leaf in ``weighted_loss`` (varied, so that a gradient
    mixing up output positions shows)."""
    n = int(np.prod(shape))
    return ((np.arange(n) % 5 + 1) / 4).astype(np.float32).reshape(shape)


def weighted_loss(jnp, fn):
    """``sum(real(leaf) * loss_weights(leaf.shape))`` over the inexact output leaves of ``fn``."""

    def loss(*args):
        _, leaves = flatten(fn(*args))
        total = 0.0
        for leaf in leaves:
            if not jnp.issubdtype(leaf.dtype, jnp.inexact):
                continue
            w = jnp.asarray(loss_weights(leaf.shape))
            total = total + jnp.sum(jnp.real(leaf) * w)
        return total

    return loss


# ---------------------------------------------------------------------------------------------
# Inputs

F3 = np.array([1.0, 2.0, 3.0], np.float32)
F4 = np.array([1.5, -2.0, 0.5, 3.0], np.float32)
FX = np.linspace(-2, 2, 7, dtype=np.float32)
FX2 = np.array([[-1.0, 0.5, 2.0], [1.5, -0.25, 3.0]], np.float32)
I2 = np.array([1, 1], np.int32)
I3 = np.array([1, 2, 3], np.int32)
I4 = np.array([1, 2, 3, 4], np.int32)
B3 = np.array([True, False, True])
C2 = np.array([1j, 1.0 - 2j], np.complex64)
EMPTY = np.zeros(0, np.float32)
F16 = F4.astype(np.float16)

# Polynomial fitting data
PX = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], np.float32)
PY = np.array([1.0, 3.0, 2.0, 5.0, 4.0, 7.0], np.float32)
PY2 = np.stack([PY, PY[::-1] * 0.5], 1)
PW = np.array([1.0, 2.0, 1.0, 0.5, 1.0, 2.0], np.float32)

# Interpolation data
XP = np.array([0.0, 1.0, 2.0, 4.0], np.float32)
FP = np.array([10.0, 30.0, 20.0, 40.0], np.float32)
XQ = np.array([-1.0, 0.0, 0.5, 1.0, 3.0, 4.0, 5.0, 7.5], np.float32)
XQN = np.array([-np.inf, -1.0, 0.25, np.nan, 3.9, np.inf], np.float32)

# Sampled data
Y5 = np.array([1.0, 2.0, 4.0, 7.0, 11.0], np.float32)
X5 = np.array([0.0, 1.0, 3.0, 4.0, 6.0], np.float32)
M34 = (np.arange(12, dtype=np.float32).reshape(3, 4) ** 2) / 4
I34 = np.arange(12, dtype=np.int32).reshape(3, 4) ** 2

# Observations (rows are variables)
OBS = np.array([[1.0, 2.0, 4.0, 7.0], [3.0, 1.0, 0.0, 2.0], [2.0, 2.0, 5.0, 1.0]], np.float32)
OBS_Y = np.array([0.0, 1.0, 1.0, 3.0], np.float32)
FW = np.array([1, 2, 1, 3], np.int32)
AW = np.array([0.5, 1.0, 2.0, 1.0], np.float32)
OBS_C = np.array([[1j, 2, 3 - 1j], [1, 1j, 0]], np.complex64)

# Phases
PH = np.array([0.0, 3.0, 6.5, 1.0, -2.5, 8.0, 20.0], np.float32)
PHI = np.array([0, 3, 7, 1, -3, 8, 20], np.int32)

# ---------------------------------------------------------------------------------------------
# polyval

case("polyval_f32", J("polyval"), F4, FX, grad=(0, 1))
case("polyval_f32_x2d", J("polyval"), F4, FX2, grad=(0, 1))
case("polyval_i32", J("polyval"), I3, I3)
case("polyval_i32_pyint", J("polyval"), I3, 2)
case("polyval_i32_pyfloat", J("polyval"), I3, 2.5)
case("polyval_f16", J("polyval"), F16, 1.5)
case("polyval_bool", J("polyval"), B3, np.array([True, False]))
case("polyval_u8", J("polyval"), np.array([1, 2], np.uint8), np.array([3, 200], np.uint8))
case("polyval_complex", J("polyval"), F3, C2)
case("polyval_p2d", J("polyval"), M34[:, :2], np.array([0.5, -1.0], np.float32), grad=(0, 1))
case("polyval_empty_p", J("polyval"), EMPTY, F3)
case("polyval_weak", W("polyval", 2), I3, I3)
case("polyval_unroll1", J("polyval", unroll=1), F4, FX)
case("polyval_unroll_true", J("polyval", unroll=True), F4, FX)
case("polyval_unroll0", J("polyval", unroll=0), F4, FX)
case("polyval_err_0d_p", J("polyval"), np.float32(2.0), F3, error="IndexError")
case("polyval_err_list", J("polyval"), [1.0, 2.0], F3, error="TypeError")

# ---------------------------------------------------------------------------------------------
# polyadd, polysub

case("polyadd_i32", J("polyadd"), I3, I2)
case("polyadd_i32_rev", J("polyadd"), I2, I3)
case("polyadd_f32", J("polyadd"), F4, F3, grad=(0, 1))
case("polyadd_mixed", J("polyadd"), I3, np.array([1.5], np.float32))
case("polyadd_equal", J("polyadd"), F3, F3)
case("polyadd_2d", J("polyadd"), M34[:3, :2], M34[:2, 2:])
case("polyadd_2d_rev", J("polyadd"), M34[:2, :2], M34[:3, 2:])
case("polyadd_empty_both", J("polyadd"), np.zeros(0, np.int32), np.zeros(0, np.int32))
case("polyadd_weak", W("polyadd", 2), I3, I2)
case("polyadd_weak_strong", W("polyadd", 1), I3, I2)
case("polyadd_err_empty", J("polyadd"), EMPTY, F3, error="ValueError")
case("polyadd_err_bool", J("polyadd"), B3, np.array([True]), error="TypeError")
case("polyadd_err_scalar", J("polyadd"), np.float32(2.0), F3, error="IndexError")
case("polyadd_err_2d", J("polyadd"), np.ones((2, 2), np.float32), F3, error="ValueError")
case("polysub_i32", J("polysub"), I3, I2)
case("polysub_f32", J("polysub"), F3, F4, grad=(0, 1))
case("polysub_u8", J("polysub"), np.array([5], np.uint8), np.array([1, 1], np.uint8))
case("polysub_i32_u8", J("polysub"), np.array([5, 5], np.int32), np.array([1], np.uint8))
case("polysub_weak", W("polysub", 2), I3, I2)
case("polysub_err_bool", J("polysub"), B3, np.array([True]), error="TypeError")
case("polysub_err_scalar", J("polysub"), F3, np.float32(2.0), error="IndexError")

# ---------------------------------------------------------------------------------------------
# polymul

case("polymul_i32", J("polymul"), I3, I2)
case("polymul_f32", J("polymul"), F4, F3, grad=(0, 1))
case(
    "polymul_lead_zeros",
    J("polymul"),
    np.array([0, 0, 1, 2], np.int32),
    np.array([0, 1, 1], np.int32),
)
case("polymul_trim", J("polymul", trim_leading_zeros=True),
     np.array([0, 0, 1, 2], np.int32), np.array([0, 1, 1], np.int32), jit=False)  # fmt: skip
case("polymul_trim_tiny", J("polymul", trim_leading_zeros=True),
     np.array([1e-9, 1.0], np.float32), np.array([1.0, 0.0], np.float32), jit=False)  # fmt: skip
case("polymul_trim_allzero", J("polymul", trim_leading_zeros=True),
     np.zeros(2, np.float32), F3, jit=False)  # fmt: skip
case("polymul_empty", J("polymul"), EMPTY, F3)
case("polymul_empty_both", J("polymul"), EMPTY, EMPTY)
case("polymul_bool", J("polymul"), B3, np.array([True, True]))
case("polymul_complex", J("polymul"), C2, F3)
case("polymul_f16_i8", J("polymul"), F16, np.array([1, -1], np.int8))
case("polymul_i8", J("polymul"), np.array([1, 1], np.int8), np.array([1, 1], np.int8))
case("polymul_weak", W("polymul", 2), I3, I2)
case("polymul_err_scalar", J("polymul"), 2.0, F3, error="TypeError")
case("polymul_err_2d", J("polymul"), np.ones((2, 2), np.float32), F3, error="ValueError")

# ---------------------------------------------------------------------------------------------
# polyder, polyint

case("polyder_i32", J("polyder"), I3)
case("polyder_f32", J("polyder"), F4, grad=(0,))
case("polyder_m2", lambda jnp, lax: lambda p: jnp.polyder(p, 2), I4)
case("polyder_m2_f32", lambda jnp, lax: lambda p: jnp.polyder(p, 2), F4, grad=(0,))
case("polyder_m0", lambda jnp, lax: lambda p: jnp.polyder(p, 0), I3)
case("polyder_m5", lambda jnp, lax: lambda p: jnp.polyder(p, 5), I3)
case("polyder_f16", J("polyder"), F16)
case("polyder_bool", J("polyder"), B3)
case("polyder_complex", J("polyder"), C2)
case("polyder_2d", J("polyder"), np.ones((2, 2), np.float32))
case("polyder_empty", J("polyder"), EMPTY)
case("polyder_weak", W("polyder"), I3)
case("polyder_err_neg_m", lambda jnp, lax: lambda p: jnp.polyder(p, -1), I3, error="ValueError")
case("polyder_err_float_m", lambda jnp, lax: lambda p: jnp.polyder(p, 1.0), I3, error="TypeError")
case("polyder_err_scalar", J("polyder"), 3.0, error="TypeError")
case("polyint_i32", J("polyint"), I3)
case("polyint_f32", J("polyint"), F4, grad=(0,))
case("polyint_m2", lambda jnp, lax: lambda p: jnp.polyint(p, 2), I3)
case("polyint_m2_k_arr", lambda jnp, lax: lambda p, k: jnp.polyint(p, 2, k), I3,
     np.array([1.0, 2.0], np.float32), grad=(1,))  # fmt: skip
case("polyint_m3_k_arr", lambda jnp, lax: lambda p, k: jnp.polyint(p, 3, k), F4,
     np.array([1.0, 2.0, -3.0], np.float32), grad=(0, 1))  # fmt: skip
case("polyint_m2_k_scalar", lambda jnp, lax: lambda p: jnp.polyint(p, 2, k=3), I3)
case("polyint_m2_k_len1", lambda jnp, lax: lambda p, k: jnp.polyint(p, 2, k), I3,
     np.array([5.0], np.float32))  # fmt: skip
case("polyint_m0", lambda jnp, lax: lambda p: jnp.polyint(p, 0), I3)
case("polyint_f16", J("polyint"), F16)
case("polyint_f16_k_f32", lambda jnp, lax: lambda p, k: jnp.polyint(p, k=k), F16, np.float32(2.0))
case("polyint_k_weak", J("polyint", k=2.0), F3)
case("polyint_k_complex", lambda jnp, lax: lambda p, k: jnp.polyint(p, k=k), F3, np.complex64(1j))
case("polyint_empty", J("polyint"), EMPTY)
case("polyint_empty_m2", lambda jnp, lax: lambda p: jnp.polyint(p, 2, k=1.0), EMPTY)
case("polyint_weak", W("polyint"), I3)
case("polyint_err_k_len", lambda jnp, lax: lambda p, k: jnp.polyint(p, 2, k), I3,
     np.array([1.0, 2.0, 3.0], np.float32), error="ValueError")  # fmt: skip
case("polyint_err_k_2d", lambda jnp, lax: lambda p, k: jnp.polyint(p, 2, k), I3,
     np.ones((2, 1), np.float32), error="ValueError")  # fmt: skip
case("polyint_err_k_list", lambda jnp, lax: lambda p: jnp.polyint(p, 2, [1, 2]), I3,
     error="TypeError")  # fmt: skip
case("polyint_err_neg_m", lambda jnp, lax: lambda p: jnp.polyint(p, -1), I3, error="ValueError")
case("polyint_err_scalar", J("polyint"), 3, error="TypeError")

# ---------------------------------------------------------------------------------------------
# polydiv

case("polydiv_i32", J("polydiv"), I4, I2)
case("polydiv_f32", J("polydiv"), np.array([1.0, 2.0, 3.0, 4.0], np.float32),
     np.array([2.0, 1.0], np.float32), grad=(0, 1))  # fmt: skip
case("polydiv_f32_long", J("polydiv"), np.array([3.0, -1.0, 2.0, 0.5, 4.0, 1.0], np.float32),
     np.array([1.5, 0.5, -1.0], np.float32), grad=(0, 1))  # fmt: skip
case("polydiv_lead_zero_v", J("polydiv"), np.array([1.0, 2.0, 3.0, 4.0], np.float32),
     np.array([0.0, 2.0, 1.0], np.float32))  # fmt: skip
case("polydiv_short", J("polydiv"), np.array([1.0, 2.0], np.float32), F3)
case("polydiv_equal", J("polydiv"), F3, F3)
case("polydiv_empty_u", J("polydiv"), EMPTY, F3)
case("polydiv_scalar_v", J("polydiv"), F3, np.array([2.0], np.float32))
case("polydiv_complex", J("polydiv"), np.array([1, 2j, 3], np.complex64), C2)
case("polydiv_2d_u", J("polydiv"), np.ones((2, 2), np.float32), F3)
case("polydiv_weak", W("polydiv", 2), I3, I2)
case("polydiv_weak_u", W("polydiv", 1), I3, F3[:2])
case("polydiv_trim", J("polydiv", trim_leading_zeros=True), I4, I2, jit=False)
case("polydiv_trim_exact", J("polydiv", trim_leading_zeros=True),
     np.array([1.0, 3.0, 3.0, 1.0], np.float32), np.array([1.0, 1.0], np.float32),
     jit=False)  # fmt: skip
for _e in (1e-5, 3e-4, 4e-4, 1e-3):
    case(f"polydiv_trim_tol_{_e:g}", J("polydiv", trim_leading_zeros=True),
         np.array([1.0, 0.0, 0.0, _e, 2.0], np.float32), np.array([1.0, 0.0, 0.0], np.float32),
         jit=False)  # fmt: skip
for _e in (1e-2, 3e-2, 4e-2):
    case(f"polydiv_trim_tol_f16_{_e:g}", J("polydiv", trim_leading_zeros=True),
         np.array([1.0, 0.0, 0.0, _e, 2.0], np.float16), np.array([1.0, 0.0, 0.0], np.float16),
         jit=False)  # fmt: skip
case("polydiv_trim_allzero", J("polydiv", trim_leading_zeros=True),
     np.zeros(2, np.float32), np.array([1.0, 0.0], np.float32), jit=False)  # fmt: skip
case("polydiv_err_empty_v", J("polydiv"), F3, EMPTY, error="IndexError")
case("polydiv_err_scalar", J("polydiv"), 2.0, F3, error="TypeError")

# ---------------------------------------------------------------------------------------------
# polyfit


def _fit(deg, **kw):
    return lambda jnp, lax: lambda x, y: jnp.polyfit(x, y, deg, **kw)


def _fit_w(deg, **kw):
    return lambda jnp, lax: lambda x, y, w: jnp.polyfit(x, y, deg, w=w, **kw)


case("polyfit_deg0", _fit(0), PX, PY, grad=(1,))
case("polyfit_deg1", _fit(1), PX, PY, grad=(0, 1))
case("polyfit_deg2", _fit(2), PX, PY, grad=(0, 1))
case("polyfit_deg_float", _fit(1.0), PX, PY)
case("polyfit_y2d", _fit(2), PX, PY2, grad=(1,))
case("polyfit_w", _fit_w(2), PX, PY, PW, tol=FIT, grad=(2,))
case("polyfit_w_y2d", _fit_w(2), PX, PY2, PW, tol=FIT)
case("polyfit_w_int", _fit_w(1), PX, PY, np.array([1, 2, 1, 1, 3, 1], np.int32))
case("polyfit_full", _fit(2, full=True), PX, PY)
case("polyfit_full_y2d", _fit(2, full=True), PX, PY2)
case("polyfit_full_rank_deficient", _fit(2, full=True),
     np.array([1.0, 1.0, 1.0, 1.0], np.float32), PY[:4])  # fmt: skip
case("polyfit_cov", _fit(1, cov=True), PX, PY, grad=(1,))
case("polyfit_cov_deg2", _fit(2, cov=True), PX, PY)
case("polyfit_cov_ill", _fit(4, cov=True), PX, PY, tol=FIT_ILL)
case("polyfit_cov_unscaled", _fit(2, cov="unscaled"), PX, PY)
case("polyfit_cov_y2d", _fit(1, cov=True), PX, PY2)
case("polyfit_cov_w", _fit_w(1, cov=True), PX, PY, PW)
case("polyfit_full_and_cov", _fit(1, full=True, cov=True), PX, PY)
case("polyfit_rcond", _fit(2, rcond=0.1), PX, PY)
case("polyfit_rcond_full", _fit(2, rcond=0.1, full=True), PX, PY)
case("polyfit_rcond_neg_full", _fit(1, rcond=-1.0, full=True), PX, PY)
case("polyfit_rcond_int_full", _fit(1, rcond=1, full=True), PX, PY)
case("polyfit_x_int_rcond", _fit(1, rcond=0.1), PX.astype(np.int32), PY)
case("polyfit_y_int", _fit(1), PX, PY.astype(np.int32))
case("polyfit_y_f16", _fit(1), PX, PY.astype(np.float16))
case("polyfit_y_complex", _fit(1), PX, PY.astype(np.complex64))
case("polyfit_y_complex_full", _fit(1, full=True), PX, PY.astype(np.complex64))
case("polyfit_err_neg_deg", _fit(-1), PX, PY, error="ValueError")
case("polyfit_err_x_int", _fit(1), PX.astype(np.int32), PY, error="ValueError")
case("polyfit_err_x_2d", _fit(1), PY2, PY, error="TypeError")
case("polyfit_err_x_scalar", _fit(1), 2.0, PY, error="TypeError")
case("polyfit_err_x_empty", _fit(1), EMPTY, EMPTY, error="TypeError")
case("polyfit_err_len", _fit(1), PX, PY[:5], error="TypeError")
case("polyfit_err_y_3d", _fit(1), PX, np.ones((6, 2, 2), np.float32), error="TypeError")
case("polyfit_err_y_0d", _fit(1), PX, np.float32(1.0), error="TypeError")
case("polyfit_err_w_2d", _fit_w(1), PX, PY, np.ones((6, 1), np.float32), error="TypeError")
case("polyfit_err_w_len", _fit_w(1), PX, PY, PW[:5], error="TypeError")
case("polyfit_err_f16", _fit(1), PX.astype(np.float16), PY.astype(np.float16),
     error="NotImplementedError")  # fmt: skip
case("polyfit_err_cov_few", _fit(2, cov=True), PX[:3], PY[:3], error="ValueError")

# ---------------------------------------------------------------------------------------------
# poly, vander

case("poly_i32", J("poly"), I3)
case("poly_f32", J("poly"), F4, grad=(0,))
case("poly_pyfloat", J("poly"), 2.0)
case("poly_pyint", J("poly"), 2)
case("poly_0d", J("poly"), np.float32(-1.5))
case("poly_empty", J("poly"), EMPTY)
case("poly_complex", J("poly"), np.array([1j, -1j], np.complex64))
case("poly_complex2", J("poly"), C2)
case("poly_bool", J("poly"), B3)
case("poly_f16", J("poly"), F16[:3])
case("poly_weak", W("poly"), I3)
# JAX goes through eigenvalues (with their rounding, ~1e-6 here); spmd through traces.
case("poly_2d", J("poly"), np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
case("poly_2d_int", J("poly"), np.array([[2, 0, 1], [1, 3, 0], [0, 1, 1]], np.int32))
case("poly_err_nonsquare", J("poly"), np.ones((2, 3), np.float32), error="ValueError")
case("poly_err_3d", J("poly"), np.ones((2, 2, 2), np.float32), error="ValueError")
case("vander_i32", J("vander"), I3)
case("vander_f32", J("vander"), F4, tol=TRANS, grad=(0,))
case("vander_f32_N2", J("vander", N=2), F3, tol=TRANS)
case("vander_increasing", J("vander", N=4, increasing=True), F3, tol=TRANS, grad=(0,))
case("vander_N0", J("vander", N=0), F3)
case("vander_empty", J("vander"), EMPTY)
case("vander_u8", J("vander"), np.array([2, 3], np.uint8))
case("vander_neg_i32", J("vander", N=4), np.array([-2, 3], np.int32))
case("vander_f16", J("vander"), F16, tol=TRANS)
case("vander_complex", J("vander"), C2, tol=TRANS)
case("vander_weak", W("vander"), I3)
case("vander_err_neg_N", J("vander", N=-1), F3, error="ValueError")
case("vander_err_2d", J("vander"), np.ones((2, 2), np.float32), error="ValueError")
case("vander_err_0d", J("vander"), np.float32(2.0), error="ValueError")
case("vander_err_pyscalar", J("vander"), 2.0, error="ValueError")
case("vander_err_float_N", J("vander", N=2.0), F3, error="TypeError")
case("vander_err_bool", J("vander"), B3, error="TypeError")

# ---------------------------------------------------------------------------------------------
# interp


def _interp(**kw):
    return lambda jnp, lax: lambda x, xp, fp: jnp.interp(x, xp, fp, **kw)


case("interp_f32", _interp(), XQ, XP, FP, grad=(0, 1, 2))
case("interp_nonfinite", _interp(), XQN, XP, FP)
case("interp_left_right", _interp(left=-5.0, right=7.0), XQ, XP, FP, grad=(0, 1, 2))
case("interp_left_right_arrays", lambda jnp, lax: lambda x, xp, fp, lo, hi: jnp.interp(
    x, xp, fp, left=lo, right=hi), XQ, XP, FP, np.float32(-5.0), np.float32(7.0),
    grad=(3, 4))  # fmt: skip
case("interp_extrapolate", _interp(left="extrapolate", right="extrapolate"), XQ, XP, FP,
     grad=(0, 1, 2))  # fmt: skip
case("interp_extrapolate_left", _interp(left="extrapolate"), XQN, XP, FP)
case("interp_period", _interp(period=3.0), XQ, XP, FP, grad=(0, 2))
case("interp_period_left_ignored", _interp(period=3.0, left=-1.0, right=-2.0), XQ, XP, FP)
case("interp_period_neg", _interp(period=-3.0), XQ, XP, FP)
case("interp_period_int", _interp(period=3), XQ, XP, FP)
case("interp_period_zero", _interp(period=0.0), XQ, XP, FP)
case("interp_period_traced", lambda jnp, lax: lambda x, xp, fp, p: jnp.interp(
    x, xp, fp, period=p), XQ, XP, FP, np.float32(2.5))  # fmt: skip
case("interp_period_unsorted", _interp(period=2.5), np.array([0.2, 5.3, -0.7], np.float32),
     np.array([2.0, 0.0, 1.0], np.float32), np.array([3.0, 1.0, 2.0], np.float32))  # fmt: skip
case("interp_i32", _interp(), I3, I3, I3)
case("interp_pyfloat", _interp(), 2.5, I3, I3)
case("interp_pyint", _interp(), 2, I3, I3)
case("interp_weak", W("interp", 3), I3 * 3, I3 * 2, I3)
case("interp_complex_fp", _interp(), XQ, XP, FP.astype(np.complex64))
case("interp_f16_x", _interp(), XQ.astype(np.float16), XP, FP)
case("interp_f16_all", _interp(), XQ.astype(np.float16), XP.astype(np.float16),
     FP.astype(np.float16))  # fmt: skip
case("interp_left_f32_on_f16", _interp(left=np.float32(1.0)), XQ.astype(np.float16),
     XP.astype(np.float16), FP.astype(np.float16))  # fmt: skip
case("interp_left_complex", _interp(left=np.complex64(1j)), XQ, XP, FP)
case("interp_left_i32", _interp(left=np.int32(2)), XQ, XP, FP)
case("interp_x2d", _interp(), FX2, XP, FP)
case("interp_x_empty", _interp(), EMPTY, XP, FP)
case("interp_one_point", _interp(), XQN, XP[:1], FP[:1])
case("interp_duplicates", _interp(), np.array([0.0, 1.0, 1.5, 2.0, 2.5], np.float32),
     np.array([0.0, 1.0, 1.0, 2.0, 2.0], np.float32),
     np.array([0.0, 1.0, 2.0, 3.0, 5.0], np.float32))  # fmt: skip
case("interp_all_equal", _interp(), np.array([0.0, 1.0, 1.5, np.nan], np.float32),
     np.array([1.0, 1.0], np.float32), np.array([0.0, 2.0], np.float32))  # fmt: skip
case("interp_at_xp", _interp(), XP, XP, FP)
case("interp_bool_x", _interp(), np.array([True, False]), XP, FP)
case("interp_err_left_str", _interp(left="foo"), XQ, XP, FP, error="ValueError")
case("interp_err_right_str", _interp(right="linear"), XQ, XP, FP, error="ValueError")
case("interp_err_complex_x", _interp(), XQ.astype(np.complex64), XP, FP, error="ValueError")
case("interp_err_xp_2d", _interp(), XQ, np.ones((2, 2), np.float32), FP, error="ValueError")
case("interp_err_len", _interp(), XQ, XP, FP[:3], error="ValueError")
case("interp_err_empty_xp", _interp(), XQ, EMPTY, EMPTY, error="TypeError")
case("interp_err_period_1d", _interp(period=np.array([3.0], np.float32)), XQ, XP, FP,
     error="ValueError")  # fmt: skip
case("interp_err_left_shape", _interp(left=np.array([1.0, 2.0], np.float32)), XQ, XP, FP,
     error="ValueError")  # fmt: skip

# ---------------------------------------------------------------------------------------------
# trapezoid, gradient, ediff1d

case("trapezoid_f32", J("trapezoid"), Y5, grad=(0,))
case("trapezoid_i32", J("trapezoid"), I3)
case("trapezoid_bool", J("trapezoid"), B3)
case("trapezoid_dx", J("trapezoid", dx=0.5), Y5)
case("trapezoid_dx_traced", lambda jnp, lax: lambda y, d: jnp.trapezoid(y, dx=d), Y5,
     np.float32(0.5), grad=(0, 1))  # fmt: skip
case("trapezoid_dx_i32", J("trapezoid", dx=2), I3)
case("trapezoid_dx_f32_on_f16", lambda jnp, lax: lambda y, d: jnp.trapezoid(y, dx=d),
     Y5.astype(np.float16), np.float32(2.0))  # fmt: skip
case("trapezoid_x", J("trapezoid"), Y5, X5, grad=(0, 1))
case("trapezoid_x_i32", J("trapezoid"), Y5, X5.astype(np.int32))
case("trapezoid_x_i32_f16", J("trapezoid"), Y5.astype(np.float16), X5.astype(np.int32))
case("trapezoid_2d", J("trapezoid"), M34, grad=(0,))
case("trapezoid_2d_axis0", J("trapezoid", axis=0), M34)
case("trapezoid_2d_x2d", J("trapezoid", axis=0), M34, M34 / 3, grad=(0, 1))
case("trapezoid_2d_x1d_axis0", J("trapezoid", axis=0), M34, X5[:3], grad=(0, 1))
case("trapezoid_2d_dx_arr", lambda jnp, lax: lambda y, d: jnp.trapezoid(y, dx=d, axis=1), M34,
     np.array([1.0, 2.0, 3.0], np.float32))  # fmt: skip
case("trapezoid_one", J("trapezoid"), Y5[:1])
case("trapezoid_short_x", J("trapezoid"), Y5[:3], X5[:2])
case("trapezoid_complex", J("trapezoid"), C2)
case("trapezoid_weak", W("trapezoid"), I3)
case("trapezoid_weak_dx", W("trapezoid", dx=2.0), I3)
case("trapezoid_err_0d", J("trapezoid"), np.float32(1.0), error="ValueError")
case("trapezoid_err_pyscalar", J("trapezoid"), 1.0, error="ValueError")
case("trapezoid_err_axis", J("trapezoid", axis=1), Y5, error="ValueError")
case("trapezoid_err_empty", J("trapezoid"), EMPTY, error="IndexError")
case("trapezoid_err_x_shape", J("trapezoid"), M34, X5[:3], error="ValueError")


def _grad(*spacing, **kw):
    return lambda jnp, lax: lambda f: jnp.gradient(f, *spacing, **kw)


case("gradient_f32", J("gradient"), Y5, grad=(0,))
case("gradient_i32", J("gradient"), Y5.astype(np.int32))
case("gradient_u8", J("gradient"), np.array([3, 1, 5], np.uint8))
case("gradient_bool", J("gradient"), B3)
case("gradient_complex", J("gradient"), np.array([1j, 2, 3 - 1j], np.complex64))
case("gradient_spacing", _grad(2.0), Y5)
case("gradient_spacing_int", _grad(2), Y5)
case("gradient_spacing_traced", lambda jnp, lax: lambda f, h: jnp.gradient(f, h), Y5,
     np.float32(2.0), grad=(0, 1))  # fmt: skip
case("gradient_coords", lambda jnp, lax: lambda f, x: jnp.gradient(f, x), Y5, X5,
     grad=(0, 1))  # fmt: skip
case("gradient_coords_i32", lambda jnp, lax: lambda f, x: jnp.gradient(f, x),
     Y5.astype(np.int32), X5.astype(np.int32))  # fmt: skip
case("gradient_f16_spacing_f32", lambda jnp, lax: lambda f, h: jnp.gradient(f, h),
     Y5.astype(np.float16), np.float32(2.0))  # fmt: skip
case("gradient_2d", J("gradient"), M34, grad=(0,))
case("gradient_2d_axis1", _grad(axis=1), M34)
case("gradient_2d_axis_tuple1", _grad(axis=(1,)), M34)
case("gradient_2d_axis_neg", _grad(axis=-2), M34)
case("gradient_2d_axis_dup", _grad(axis=(0, 0)), M34)
case("gradient_2d_two_spacings", _grad(2.0, 3.0), M34)
case("gradient_2d_one_spacing", _grad(2.0), M34)
case("gradient_2d_coords", lambda jnp, lax: lambda f, x: jnp.gradient(f, x, 2.0), M34, X5[:3],
     grad=(0, 1))  # fmt: skip
case("gradient_2d_coords_axis1", lambda jnp, lax: lambda f, x: jnp.gradient(f, x, axis=1), M34,
     X5[:4])  # fmt: skip
case("gradient_two", J("gradient"), Y5[:2])
case("gradient_0d", J("gradient"), np.float32(2.0))
case("gradient_pyscalar", J("gradient"), 2.0)
case("gradient_weak", W("gradient"), I3)
case("gradient_weak_spacing", W("gradient", 1), I3, 2.0)
for _eo in (1, 2):
    case(f"gradient_err_edge_order{_eo}", _grad(edge_order=_eo), Y5, error="NotImplementedError")
case("gradient_err_count", _grad(1.0, 2.0, 3.0), M34, error="TypeError")
# One spacing array serves every axis (as one scalar does): here it is too short for axis 1.
case("gradient_err_array_for_all", lambda jnp, lax: lambda f, x: jnp.gradient(f, x), M34,
     X5[:3], error="ValueError")  # fmt: skip
case("gradient_2d_array_for_all", lambda jnp, lax: lambda f, x: jnp.gradient(f, x), M34[:, :3],
     X5[:3], grad=(0, 1))  # fmt: skip
case("gradient_err_coords_len", lambda jnp, lax: lambda f, x: jnp.gradient(f, x, 2.0), M34,
     X5[:2], error="ValueError")  # fmt: skip
case("gradient_err_coords_2d", lambda jnp, lax: lambda f, x: jnp.gradient(f, x, 2.0), M34, M34,
     error="ValueError")  # fmt: skip
case("gradient_err_short", J("gradient"), Y5[:1], error="ValueError")
case("gradient_err_empty", J("gradient"), EMPTY, error="ValueError")
case("gradient_err_axis", _grad(axis=2), M34, error="ValueError")

case("ediff1d_i32", J("ediff1d"), I4)
case("ediff1d_f32", J("ediff1d"), Y5, grad=(0,))
case("ediff1d_2d", J("ediff1d"), M34)
case("ediff1d_ends", lambda jnp, lax: lambda a, e: jnp.ediff1d(a, to_end=e, to_begin=7), I4,
     np.array([5, 6], np.int32))  # fmt: skip
case("ediff1d_to_end_float", J("ediff1d", to_end=5.5), I4)
case("ediff1d_to_begin_f32", J("ediff1d", to_begin=np.float32(5.5)), I4)
case("ediff1d_to_begin_2d", J("ediff1d", to_begin=np.ones((2, 2), np.int32)), I4)
case("ediff1d_ends_traced", lambda jnp, lax: lambda a, b, e: jnp.ediff1d(a, to_end=e,
     to_begin=b), Y5, np.float32(-1.0), np.array([2.0, 3.0], np.float32),
     grad=(0, 1, 2))  # fmt: skip
case("ediff1d_u8", J("ediff1d"), np.array([3, 1], np.uint8))
case("ediff1d_pyscalar", J("ediff1d"), 2.0)
case("ediff1d_empty", J("ediff1d"), EMPTY)
case("ediff1d_weak", W("ediff1d"), I4)
case("ediff1d_weak_to_end", W("ediff1d", to_end=1.0), I4)
case("ediff1d_err_bool", J("ediff1d"), B3, error="TypeError")
case("ediff1d_err_list", J("ediff1d", to_end=[1, 2]), I4, error="TypeError")

# ---------------------------------------------------------------------------------------------
# cov, corrcoef

case("cov_f32", J("cov"), OBS, grad=(0,))
case("cov_i32", J("cov"), OBS.astype(np.int32))
case("cov_1d", J("cov"), OBS_Y)
case("cov_y", J("cov"), OBS, OBS_Y, grad=(0, 1))
case("cov_y_2d", J("cov"), OBS, OBS[:2] * 2)
case("cov_rowvar_false", J("cov", rowvar=False), OBS)
case("cov_rowvar_false_y", J("cov", rowvar=False), OBS.T, OBS_Y[:, None])
case("cov_1d_rowvar_false", J("cov", rowvar=False), OBS_Y)
case("cov_bias", J("cov", bias=True), OBS)
case("cov_ddof2", J("cov", ddof=2), OBS)
case("cov_ddof0_bias", J("cov", bias=True, ddof=0), OBS)
case("cov_ddof_float", J("cov", ddof=1.5), OBS)
case("cov_ddof_big", J("cov", ddof=10), OBS)
case("cov_fweights", lambda jnp, lax: lambda m, f: jnp.cov(m, fweights=f), OBS, FW,
     grad=(0,))  # fmt: skip
case("cov_fweights_neg", lambda jnp, lax: lambda m, f: jnp.cov(m, fweights=f), OBS, -FW)
case("cov_aweights", lambda jnp, lax: lambda m, a: jnp.cov(m, aweights=a), OBS, AW,
     grad=(0, 1))  # fmt: skip
case("cov_both_weights", lambda jnp, lax: lambda m, f, a: jnp.cov(m, fweights=f, aweights=a),
     OBS, FW, AW, grad=(0, 2))  # fmt: skip
case("cov_both_weights_ddof0", lambda jnp, lax: lambda m, f, a: jnp.cov(
    m, fweights=f, aweights=a, ddof=0), OBS, FW, AW)  # fmt: skip
case("cov_both_weights_bias", lambda jnp, lax: lambda m, f, a: jnp.cov(
    m, fweights=f, aweights=a, bias=True), OBS, FW, AW)  # fmt: skip
case("cov_fweights_ddof3", lambda jnp, lax: lambda m, f: jnp.cov(m, fweights=f, ddof=3), OBS,
     FW)  # fmt: skip
case("cov_dtype_f16", J("cov", dtype=np.float16), OBS)
case("cov_f16", J("cov"), OBS.astype(np.float16))
case("cov_bool", J("cov"), np.array([[True, False, True], [True, True, False]]))
case("cov_complex", J("cov"), OBS_C)
case("cov_weak", W("cov"), OBS.astype(np.int32))
case("cov_0d", J("cov"), np.float32(2.0))
case("cov_pyscalar", J("cov"), 2.0)
case("cov_one_observation", J("cov"), OBS[:, :1])
case("cov_no_variables", J("cov"), np.zeros((0, 3), np.float32))
case("cov_no_observations", J("cov"), np.zeros((2, 0), np.float32))
case("cov_err_dtype_int", J("cov", dtype=np.int32), OBS, error="ValueError")
case("cov_err_3d", J("cov"), np.ones((2, 2, 2), np.float32), error="ValueError")
case("cov_err_y_3d", J("cov"), OBS, np.ones((2, 2, 2), np.float32), error="ValueError")
case("cov_err_y_len", J("cov"), OBS, OBS_Y[:3], error="ValueError")
case("cov_err_fweights_float", lambda jnp, lax: lambda m, f: jnp.cov(m, fweights=f), OBS, AW,
     error="TypeError")  # fmt: skip
case("cov_err_fweights_2d", lambda jnp, lax: lambda m, f: jnp.cov(m, fweights=f), OBS,
     FW[None], error="RuntimeError")  # fmt: skip
case("cov_err_fweights_len", lambda jnp, lax: lambda m, f: jnp.cov(m, fweights=f), OBS,
     FW[:3], error="RuntimeError")  # fmt: skip
case("cov_err_aweights_2d", lambda jnp, lax: lambda m, a: jnp.cov(m, aweights=a), OBS,
     AW[None], error="RuntimeError")  # fmt: skip
case("cov_err_aweights_len", lambda jnp, lax: lambda m, a: jnp.cov(m, aweights=a), OBS,
     AW[:3], error="RuntimeError")  # fmt: skip
case("corrcoef_f32", J("corrcoef"), OBS, grad=(0,))
case("corrcoef_i32", J("corrcoef"), OBS.astype(np.int32))
case("corrcoef_y", J("corrcoef"), OBS, OBS_Y, grad=(0, 1))
case("corrcoef_rowvar_false", J("corrcoef", rowvar=False), OBS)
case("corrcoef_1d", J("corrcoef"), OBS_Y)
case("corrcoef_dtype_f16", J("corrcoef", dtype=np.float16), OBS)
case("corrcoef_complex", J("corrcoef"), OBS_C)
case("corrcoef_constant_row", J("corrcoef"), np.array([[1.0, 1.0, 1.0], [1.0, 2.0, 3.0]],
     np.float32))  # fmt: skip
case("corrcoef_weak", W("corrcoef"), OBS.astype(np.int32))
case("corrcoef_pyscalar", J("corrcoef"), 2.0)
case("corrcoef_err_3d", J("corrcoef"), np.ones((2, 2, 2), np.float32), error="ValueError")

# ---------------------------------------------------------------------------------------------
# unwrap

case("unwrap_f32", J("unwrap"), PH, grad=(0,))
case("unwrap_i32", J("unwrap"), PHI)
case("unwrap_i32_period_int", J("unwrap", period=8), PHI)
case("unwrap_i32_period_odd", J("unwrap", period=7), np.array([0, 5, 10, 15, 18, 11], np.int32))
case("unwrap_i32_period_float", J("unwrap", period=8.0), PHI)
case("unwrap_discont", J("unwrap", discont=4.0), PH)
case("unwrap_discont_small", J("unwrap", discont=1.0), PH)
case("unwrap_period", J("unwrap", period=5.0), PH)
case("unwrap_period_discont", J("unwrap", discont=2.0, period=5.0), PH)
case("unwrap_period_traced", lambda jnp, lax: lambda p, per, d: jnp.unwrap(
    p, discont=d, period=per), PH, np.float32(5.0), np.float32(3.0),
    grad=(0, 1))  # fmt: skip
case("unwrap_2d", J("unwrap"), np.stack([PH, PH[::-1]]))
case("unwrap_2d_axis0", J("unwrap", axis=0), np.stack([PH, PH[::-1]]))
case("unwrap_2d_discont_arr", lambda jnp, lax: lambda p, d: jnp.unwrap(p, discont=d),
     np.stack([PH, PH[::-1]]), np.array([[1.0], [2.0]], np.float32))  # fmt: skip
case("unwrap_f16", J("unwrap"), PH.astype(np.float16))
case("unwrap_f16_period_f32", J("unwrap", period=np.float32(5.0)), PH.astype(np.float16))
case("unwrap_bool", J("unwrap"), np.array([True, False, True]))
case("unwrap_nan", J("unwrap"), np.array([0.0, np.nan, 7.0, 1.0], np.float32))
case("unwrap_empty", J("unwrap"), EMPTY)
case("unwrap_one", J("unwrap"), PH[:1])
case("unwrap_weak", W("unwrap"), PHI)
case("unwrap_err_0d", J("unwrap"), np.float32(2.0), error="IndexError")
case("unwrap_err_pyscalar", J("unwrap"), 2.0, error="IndexError")
case("unwrap_err_axis", J("unwrap", axis=1), PH, error="IndexError")
case("unwrap_err_complex", J("unwrap"), C2, error="ValueError")

# ---------------------------------------------------------------------------------------------
# Window functions

for _w in ("bartlett", "blackman", "hamming", "hanning"):
    for _m in (0, 1, 2, 5, 8):
        case(f"{_w}_{_m}", lambda jnp, lax, w=_w, m=_m: lambda: getattr(jnp, w)(m), tol=TRANS)
    case(f"{_w}_float_M", lambda jnp, lax, w=_w: lambda: getattr(jnp, w)(5.0), tol=TRANS)
    case(f"{_w}_np_int_M", lambda jnp, lax, w=_w: lambda: getattr(jnp, w)(np.int32(4)), tol=TRANS)
    case(f"{_w}_err_neg", lambda jnp, lax, w=_w: lambda: getattr(jnp, w)(-1), error="TypeError")
for _m in (0, 1, 2, 5, 8):
    case(f"kaiser_{_m}", lambda jnp, lax, m=_m: lambda: jnp.kaiser(m, 2.0), tol=TRANS)
for _b in (0.0, 5.0, 14.0, -2.0):
    case(f"kaiser_beta_{_b:g}", lambda jnp, lax, b=_b: lambda: jnp.kaiser(7, b), tol=TRANS)
case("kaiser_beta_traced", lambda jnp, lax: lambda b: jnp.kaiser(6, b), np.float32(3.0),
     tol=TRANS, grad=(0,))  # fmt: skip
case("kaiser_beta_i32", lambda jnp, lax: lambda b: jnp.kaiser(6, b), np.int32(3), tol=TRANS)
case("kaiser_beta_f16", lambda jnp, lax: lambda b: jnp.kaiser(6, b), np.float16(3.0), tol=TRANS)
case("kaiser_float_M", lambda jnp, lax: lambda: jnp.kaiser(6.0, 2.0), tol=TRANS)
case("kaiser_err_neg", lambda jnp, lax: lambda: jnp.kaiser(-1, 2.0), error="TypeError")
case("kaiser_err_complex", lambda jnp, lax: lambda b: jnp.kaiser(6, b), np.complex64(1.0),
     error="ValueError")  # fmt: skip
case("kaiser_err_beta_shape", lambda jnp, lax: lambda b: jnp.kaiser(6, b),
     np.array([1.0, 2.0], np.float32), error="TypeError")  # fmt: skip
