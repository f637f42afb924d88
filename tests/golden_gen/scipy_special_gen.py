"""Record JAX's ``jax.scipy.special`` results into ``tests/golden/scipy_special.json``.

Run with real JAX (not spmd):  ``/path/to/jax/python tests/golden_gen/scipy_special_gen.py``.

``CASES`` (shared with ``tests/test_scipy_special.py``) lists, per function, a call on
representative inputs with edge values (0, negative integers, infinities, NaN) mixed in. Each
case records the eager result, the ``jit`` result where it differs, and for differentiable
functions the gradient of the sum with respect to ``argnum`` or the tangent of a ``jvp`` with
all-ones input tangents (complex outputs have no ``grad``). ``X64_CASES`` run with 64-bit
types on. Helpers (record, run, write_golden) come from ``numpy_gen``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "golden_gen"))

OUT = TESTS / "golden" / "scipy_special.json"

NAN, INF = np.nan, np.inf


@dataclass
class Case:
    name: str
    fn: str  # attribute of scipy.special
    args: tuple
    kwargs: dict = field(default_factory=dict)
    grad: int | None = None  # argnum of the gradient of the sum, if recorded
    jvp: bool = False  # record the jvp's tangent output with all-ones tangents (complex too)
    tol: dict | None = None  # by dtype name, used as rtol and atol
    jit: bool = True  # False where an argument must be concrete (a Python int)


def f32(*v):
    return np.array(v, np.float32)


def f64(*v):
    return np.array(v, np.float64)


# fmt: off
_POS = f32(0.1, 0.5, 1.0, 2.5, 7.0, 30.0)
_REAL = f32(-3.5, -1.5, -0.25, 0.0, 0.5, 1.0, 2.5, 10.0)
_EDGE = f32(0.0, -0.0, -1.0, -2.0, INF, -INF, NAN)
_LOOSE = {"float32": 1e-4}
_CZ = np.array([0.5 + 0.5j, -0.3 + 2j, -10.7 - 3j, -2.5 + 0j, complex(-2.5, -0.0), 1 + 0j,
                3 + 50j, 0.2 - 20j, 12 + 1j, -0.5 - 0.5j, 1e-3 + 1e-3j, 30 + 1j, -3.2 + 0.01j,
                0j, -2 + 0j, complex(INF, 0), complex(1, NAN), complex(0, INF)], np.complex64)
_CZ_JVP = np.array([0.5 + 0.5j, -0.3 + 2j, -10.7 - 3j, -2.5 + 0j, 3 + 5j, 12 + 1j, -0.5 - 0.5j,
                    0.2 - 1e-3j], np.complex64)
_SERIES = {"float32": 5e-4}

CASES = [
    Case("gammaln", "gammaln", (np.concatenate([_REAL, _EDGE]),)),
    Case("gammaln_grad", "gammaln", (_POS,), grad=0, tol=_LOOSE),
    Case("gamma", "gamma", (np.concatenate([_REAL, _EDGE, f32(0.001, 20.0)]),), tol=_LOOSE),
    Case("gamma_grad", "gamma", (f32(0.5, 1.5, 3.0, -0.5),), grad=0, tol=_LOOSE),
    Case("gammasgn", "gammasgn", (np.concatenate([_REAL, _EDGE, f32(-2.5, -0.5)]),)),
    Case("loggamma", "loggamma", (np.concatenate([_REAL, _EDGE]),)),
    # Complex gamma and loggamma (JAX 0.10): SciPy's branch, the upper side of the cut for a
    # -0.0 imaginary part too; NaN at poles, infinities and NaN; their derivatives by jvp.
    Case("loggamma_complex", "loggamma", (_CZ,), tol=_LOOSE),
    Case("loggamma_complex_jvp", "loggamma", (_CZ_JVP,), jvp=True, tol=_LOOSE),
    Case("gamma_complex", "gamma", (np.concatenate([_CZ, np.complex64([40 + 1j])]),),
         tol=_LOOSE),
    Case("gamma_complex_jvp", "gamma", (_CZ_JVP,), jvp=True, tol=_LOOSE),
    Case("digamma", "digamma", (np.concatenate([_REAL, _EDGE]),), tol=_LOOSE),
    Case("digamma_grad", "digamma", (_POS,), grad=0, tol=_LOOSE),
    Case(
        "betaln",
        "betaln",
        (f32(0.5, 1.0, 2.0, 10.0, 3.0), f32(0.5, 3.0, 2.0, 0.1, 30.0)),
        tol=_LOOSE,
    ),
    Case("betaln_large", "betaln", (f32(1000.0, 1e4, 0.5, 50.0, 1e5, 3.0, -1.5),
                                    f32(1000.0, 2.0, 1e4, 60.0, 1e5, 1e6, 10.0)), tol=_LOOSE),
    Case("betaln_grad", "betaln", (f32(0.5, 1.0, 2.0), f32(1.5, 3.0, 2.0)), grad=0, tol=_LOOSE),
    Case(
        "beta", "beta", (f32(0.5, 1.0, 2.0, -0.5, 3.0), f32(0.5, 3.0, 2.0, 1.5, -2.5)), tol=_LOOSE
    ),
    Case(
        "betainc",
        "betainc",
        (
            f32(0.5, 1.0, 2.0, 5.0, 0.1, 30.0, 2.0, 2.0, 2.0, -1.0, 1.0),
            f32(0.5, 3.0, 2.0, 1.0, 0.1, 20.0, 2.0, 2.0, 2.0, 1.0, 0.0),
            f32(0.3, 0.5, 0.9, 0.99, 0.5, 0.6, 0.0, 1.0, NAN, 0.5, 0.5),
        ),
        tol=_SERIES,
    ),
    Case(
        "betainc_grad_x",
        "betainc",
        (f32(2.0, 0.5), f32(3.0, 4.0), f32(0.3, 0.7)),
        grad=2,
        tol=_LOOSE,
    ),
    Case(
        "gammainc",
        "gammainc",
        (
            f32(0.5, 1.0, 2.0, 5.0, 0.1, 30.0, 100.0, 2.0, 2.0, -1.0, 0.0, 1.0),
            f32(0.3, 1.0, 5.0, 1.0, 2.0, 25.0, 110.0, 0.0, INF, 1.0, 1.0, NAN),
        ),
        tol=_SERIES,
    ),
    Case(
        "gammainc_grad_a", "gammainc", (f32(0.5, 2.0, 5.0), f32(1.0, 1.5, 7.0)), grad=0, tol=_SERIES
    ),
    Case(
        "gammainc_grad_x", "gammainc", (f32(0.5, 2.0, 5.0), f32(1.0, 1.5, 7.0)), grad=1, tol=_LOOSE
    ),
    Case(
        "gammaincc",
        "gammaincc",
        (
            f32(0.5, 1.0, 2.0, 5.0, 0.1, 30.0, 100.0, 2.0, 2.0, -1.0),
            f32(0.3, 1.0, 5.0, 1.0, 2.0, 25.0, 110.0, 0.0, INF, 1.0),
        ),
        tol=_SERIES,
    ),
    Case(
        "gammaincc_grad_a",
        "gammaincc",
        (f32(0.5, 2.0, 5.0), f32(1.0, 1.5, 7.0)),
        grad=0,
        tol=_SERIES,
    ),
    Case(
        "factorial", "factorial", (f32(0.0, 1.0, 5.0, 10.0, 2.5, -1.0, -3.0, INF, NAN),), tol=_LOOSE
    ),
    Case("factorial_int", "factorial", (np.array([0, 1, 5, 10, -2], np.int32),), tol=_LOOSE),
    Case(
        "comb", "comb", (f32(5, 10, 4, 3, -1, 10, 7.5), f32(2, 3, 5, 0, 1, -1, 2.5)), tol=_LOOSE
    ),
    Case(
        "comb_repetition",
        "comb",
        (f32(5, 10, 0, -1), f32(2, 3, 0, 0)),
        {"repetition": True},
        tol=_LOOSE,
    ),
    Case(
        "polygamma",
        "polygamma",
        (
            np.array([0, 1, 2, 3, 1, 1, 2, 1, 4], np.int32),
            f32(1.5, 0.5, 2.0, 3.5, -INF, 0.0, -2.5, -2.0, 10.0),
        ),
        tol=_LOOSE,
    ),
    Case(
        "polygamma_grad",
        "polygamma",
        (np.array([0, 1, 2], np.int32), f32(1.5, 2.0, 3.0)),
        grad=1,
        tol=_LOOSE,
    ),
    Case(
        "zeta",
        "zeta",
        (
            f32(2.0, 3.0, 1.5, 4.0, 1.0, 0.5, 2.0, 2.0, 10.0),
            f32(1.0, 2.5, 0.5, 10.0, 1.0, 1.0, -1.0, -1.5, 1.0),
        ),
        tol=_LOOSE,
    ),
    Case("zeta_grad_q", "zeta", (f32(2.0, 3.0, 4.5), f32(1.0, 2.5, 0.7)), grad=1, tol=_LOOSE),
    Case("zeta_grad_x", "zeta", (f32(2.0, 3.0, 4.5), f32(1.0, 2.5, 0.7)), grad=0, tol=_SERIES),
    Case("multigammaln", "multigammaln", (f32(2.0, 3.5, 10.0), 3), tol=_LOOSE, jit=False),
    Case("multigammaln_d1", "multigammaln", (f32(0.5, 3.5), 1), tol=_LOOSE, jit=False),
    Case(
        "poch", "poch", (f32(1.0, 2.5, 3.0, -1.5, 4.0), f32(0.0, 2.0, 1.5, 2.0, -1.0)), tol=_LOOSE
    ),
    Case("poch_grad_z", "poch", (f32(1.0, 2.5, 3.0), f32(1.0, 2.0, 1.5)), grad=0, tol=_LOOSE),
    Case("poch_grad_m", "poch", (f32(1.0, 2.5, 3.0), f32(1.0, 2.0, 1.5)), grad=1, tol=_LOOSE),
    Case("bernoulli", "bernoulli", (12,), tol=_LOOSE, jit=False),
    Case("bernoulli_2", "bernoulli", (2,), jit=False),
    Case(
        "betainc_edges",
        "betainc",
        (
            f32(0, 0, 1, INF, INF, 2, 0, 1, 0, INF, 2, 2, 2),
            f32(0, 1, 0, 1, INF, INF, INF, 0, 1, 2, INF, 2, 2),
            f32(0.5, 0, 1, 1, 0.5, 0, 0.5, 0.5, 0.5, 0.5, 0.5, -0.1, 1.1),
        ),
    ),
    Case(
        "gammainc_edges",
        "gammainc",
        (
            f32(0, 0, INF, INF, 2, 1, NAN),
            f32(0, 1, 1, INF, -1, -INF, 1),
        ),
    ),
    Case(
        "gammaincc_edges",
        "gammaincc",
        (
            f32(0, 0, INF, INF, 2, 1, 1),
            f32(0, 1, 1, INF, -1, -INF, NAN),
        ),
    ),
    Case(
        "zeta_edges",
        "zeta",
        (
            f32(2, 2, INF, INF, 2, 3, 2.5, NAN, 0.5, -1.0),
            f32(0, -2, 1, 2, INF, -1.5, -1.5, 1, 2, 2),
        ),
        tol=_LOOSE,
    ),
    Case("entr", "entr", (f32(0.0, 0.5, 1.0, 2.0, -1.0, INF, NAN),)),
    Case("entr_grad", "entr", (f32(0.5, 1.0, 2.0),), grad=0),
    Case(
        "rel_entr",
        "rel_entr",
        (
            f32(0.5, 0.0, 0.0, 1.0, -1.0, 2.0, 1.0),
            f32(0.25, 1.0, 0.0, 0.0, 1.0, 3.0, -1.0),
        ),
    ),
    Case("rel_entr_grad", "rel_entr", (f32(0.5, 2.0), f32(0.25, 3.0)), grad=0),
    Case(
        "kl_div",
        "kl_div",
        (
            f32(0.5, 0.0, 0.0, 1.0, -1.0, 2.0),
            f32(0.25, 1.0, 0.0, 0.0, 1.0, 3.0),
        ),
    ),
    Case("kl_div_grad_q", "kl_div", (f32(0.5, 2.0), f32(0.25, 3.0)), grad=1),
    Case(
        "boxcox", "boxcox", (f32(1.0, 2.0, 0.5, 3.0, 0.0, -1.0), f32(0.0, 0.5, 2.0, -1.0, 1.0, 1.0))
    ),
    Case("boxcox_grad", "boxcox", (f32(1.0, 2.0, 0.5), f32(0.0, 0.5, 2.0)), grad=0),
    Case("boxcox1p", "boxcox1p", (f32(0.0, 1.0, -0.5, 3.0, -1.0), f32(0.0, 0.5, 2.0, -1.0, 1.0))),
    Case("i0", "i0", (f32(0.0, 0.5, -1.0, 3.0, 10.0, -20.0, INF, NAN),), tol=_LOOSE),
    Case("i0e", "i0e", (f32(0.0, 0.5, -1.0, 3.0, 10.0, -20.0, INF, NAN),), tol=_LOOSE),
    Case("i1", "i1", (f32(0.0, 0.5, -1.0, 3.0, 10.0, -20.0, NAN),), tol=_LOOSE),
    Case("i1e", "i1e", (f32(0.0, 0.5, -1.0, 3.0, 10.0, -20.0, INF, -INF, NAN),), tol=_LOOSE),
    Case("i0_grad", "i0", (f32(0.5, -1.0, 3.0),), grad=0, tol=_LOOSE),
    Case("i1e_grad", "i1e", (f32(0.5, -1.0, 3.0),), grad=0, tol=_LOOSE),
    Case("ndtr", "ndtr", (f32(0.0, 0.5, -1.0, 3.0, -8.0, 10.0, INF, -INF, NAN),)),
    Case("ndtr_grad", "ndtr", (f32(0.0, 0.5, -1.0),), grad=0, tol=_LOOSE),
    Case(
        "ndtri",
        "ndtri",
        (f32(0.5, 0.1, 0.9, 1e-6, 0.999, 1e-30, 0.0, 1.0, -0.1, 1.5, NAN),),
        tol=_LOOSE,
    ),
    Case(
        "log_ndtr",
        "log_ndtr",
        (f32(0.0, 1.0, -1.0, -5.0, -12.0, -30.0, 6.0, 20.0, INF, -INF),),
        tol=_LOOSE,
    ),
    Case("log_ndtr_grad", "log_ndtr", (f32(0.0, -3.0, -12.0, 6.0),), grad=0, tol=_LOOSE),
    Case("log_ndtr_order1", "log_ndtr", (f32(-12.0, -30.0),), {"series_order": 1}, tol=_LOOSE),
    Case(
        "exp1",
        "exp1",
        (f32(-2.0, 0.0, -0.0, 1e-3, 0.5, 1.0, 1.5, 1.6, 2.5, 10.0, 50.0, 100.0, INF, -INF, NAN),),
        tol=_LOOSE,
    ),
    Case("exp1_grad", "exp1", (f32(0.5, 1.5, 4.0),), grad=0, tol=_LOOSE),
    Case(
        "expi",
        "expi",
        (f32(-2.0, -0.5, 0.0, 1e-3, 0.5, 1.0, 2.5, 10.0, 19.0, 21.0, 50.0, 100.0, INF, -INF, NAN),),
        tol=_LOOSE,
    ),
    Case("expi_grad", "expi", (f32(-1.0, 0.5, 1.5, 25.0),), grad=0, tol=_LOOSE),
    Case(
        "expn",
        "expn",
        (
            np.array([0, 0, 1, 1, 2, 2, 3, 5, 10, 30, -1, 2, 2, 1, 2], np.int32),
            f32(0.5, -0.0, 0.0, 1e-3, 0.5, 1.0, 2.5, 1.4, 0.5, 3.0, 1.0, 0.0, INF, -1.0, NAN),
        ),
        tol=_SERIES,
    ),
    Case(
        "expn_grad",
        "expn",
        (np.array([0, 1, 2, 5], np.int32), f32(1.5, 1.5, 0.5, 3.0)),
        grad=1,
        tol=_LOOSE,
    ),
    Case(
        "spence",
        "spence",
        (f32(-2.0, 0.0, -0.0, 1e-3, 0.5, 1.0, 1.5, 2.0, 2.5, 10.0, 100.0, INF, NAN),),
        tol=_LOOSE,
    ),
    # (JAX 0.10 gives NaN gradients for 1 < x <= 2, where the derivative is log(x) / (1 - x).)
    Case("spence_grad", "spence", (f32(0.25, 0.5, 3.0),), grad=0, tol=_LOOSE),
    Case(
        "erfcx",
        "erfcx",
        (f32(-30.0, -5.0, -1.0, 0.0, 0.5, 2.0, 4.9, 5.1, 12.0, 1e4, INF, -INF, NAN),),
        tol=_LOOSE,
    ),
    Case("erfcx_grad", "erfcx", (f32(-1.0, 0.5, 6.0),), grad=0, tol=_LOOSE),
    Case(
        "dawsn",
        "dawsn",
        (f32(-2.0, -0.5, 0.0, 1e-3, 0.1, 0.5, 1.0, 2.5, 10.0, 49.0, 51.0, 1e6, INF, -INF, NAN),),
        tol=_LOOSE,
    ),
    Case("dawsn_grad", "dawsn", (f32(-1.0, 0.1, 0.5, 3.0),), grad=0, tol=_LOOSE),
    Case(
        "sici",
        "sici",
        (f32(-2.0, -0.5, 0.0, 1e-3, 0.5, 1.0, 2.5, 3.9, 4.1, 10.0, 50.0, 1e4, INF, -INF, NAN),),
        tol=_LOOSE,
    ),
    Case(
        "fresnel",
        "fresnel",
        (f32(-2.0, -0.5, 0.0, 1e-3, 0.5, 1.0, 1.3, 2.5, 4.5, 10.0, 50.0, 1e4, INF, -INF, NAN),),
        tol=_LOOSE,
    ),
    # JAX 0.10's bessel_jn is NaN in float32 below |z| ~ 3 (its recurrence underflows): the
    # goldens take z where it is finite; small z are checked against a series in the test.
    Case("bessel_jn", "bessel_jn", (f32(5.0, 20.0, 30.0, -7.5, 4.0),), {"v": 3}, tol=_LOOSE),
    Case("bessel_jn_v0", "bessel_jn", (f32(12.0, 20.0),), {"v": 0, "n_iter": 60}, tol=_LOOSE),
    Case(
        "wofz",
        "wofz",
        (
            np.array(
                [0, 1 + 1j, -1 + 0.5j, 3 - 2j, 1j, -2j, 10 + 10j, 0.5, -4.0, 20 - 0.5j],
                np.complex64,
            ),
        ),
        tol=_LOOSE,
    ),
    Case("wofz_real", "wofz", (f32(0.0, 0.5, -2.0, 30.0),), tol=_LOOSE),
    # Complex erfcx is wofz(i z) (JAX 0.10): the tangent too; inf and NaN give NaN.
    Case("erfcx_complex", "erfcx", (np.array(
        [0, 1 + 1j, -1 + 0.5j, 3 - 2j, 1j, -2j, 10 + 10j, 0.5, -4.0, 20 - 0.5j, -3 - 3j,
         complex(INF, 0), complex(NAN, 0)], np.complex64),), tol=_LOOSE),
    Case("erfcx_complex_jvp", "erfcx", (np.array([1 + 1j, -1 + 0.5j, 3 - 2j, -2j, 0.5],
                                                 np.complex64),), jvp=True, tol=_LOOSE),
    Case("owens_t", "owens_t", (f32(0, 0.5, 1, -1, 3, 10, INF, 0.2, -2.0, 1.0, NAN),
                                   f32(0.5, 1, 2, 0.3, -1, 1, 1, 30.0, INF, 0.0, 1.0)),
         tol=_LOOSE),
    Case("owens_t_grad_h", "owens_t", (f32(0.5, -1.0, 2.0), f32(1.0, 0.3, 3.0)), grad=0,
         tol=_LOOSE),
    Case("owens_t_grad_a", "owens_t", (f32(0.5, -1.0, 2.0), f32(1.0, 0.3, 3.0)), grad=1,
         tol=_LOOSE),
    Case("hyp1f1", "hyp1f1", (
        f32(1.0, 0.5, 2.0, 0.0, 3.0, 1.5, 2.0, 1.0, 0.5, 1.0, 0.5, 2.0),
        f32(2.0, 1.5, 2.0, 0.0, 0.0, 2.5, 3.0, 1.5, 4.0, 2.0, 1.5, 3.0),
        f32(0.5, 2.0, 1.0, 3.0, 1.0, 10.0, 120.0, -2.0, 0.3, 0.0, 99.0, 101.0),
    ), tol=_LOOSE),
    Case("hyp1f1_grad_a", "hyp1f1", (f32(1.0, 0.5), f32(2.0, 1.5), f32(0.5, 2.0)), grad=0,
         tol=_LOOSE),
    Case("hyp1f1_grad_b", "hyp1f1", (f32(1.0, 0.5), f32(2.0, 1.5), f32(0.5, 2.0)), grad=1,
         tol=_LOOSE),
    Case("hyp1f1_grad_x", "hyp1f1", (f32(1.0, 0.5), f32(2.0, 1.5), f32(0.5, 2.0)), grad=2,
         tol=_LOOSE),
    # (Not recorded: x < -1, where JAX 0.10's hyp2f1 can give -inf, and x -> 1 with a non-integer
    # c - a - b, where its series stops at 250 terms; spmd uses Pfaff's transformation and the
    # connection formula there.)
    Case("hyp2f1", "hyp2f1", (
        f32(1.0, 0.5, 2.0, -2.0, 1.0, 2.0, 0.3, 1.0, 1.0, 2.0, 0.5, 1.0, 1.0, 0.0, 1.0, 1.5),
        f32(2.0, 1.5, 3.0, 1.5, 1.0, 3.0, 0.7, 2.0, 1.0, 1.0, 0.5, 1.0, 2.0, 1.0, 1.0, 0.5),
        f32(3.0, 2.5, 4.5, 3.0, 2.0, 7.5, 1.6, 2.0, 0.0, -2.0, 2.0, 3.0, 3.0, 1.0, 2.0, 4.0),
        f32(0.5, -0.3, 0.95, 0.7, 0.0, 1.0, -0.8, 0.5, 0.5, 0.5, 1.0, 1.5, -0.6, 0.3, 0.97, 0.92),
    ), tol=_LOOSE),
    Case("hyp2f1_grad_x", "hyp2f1", (f32(1.0, 0.5), f32(2.0, 1.5), f32(3.0, 2.5), f32(0.5, -0.3)),
         grad=3, tol=_LOOSE),
    Case("hyp2f1_grad_c", "hyp2f1", (f32(1.0, 0.5), f32(2.0, 1.5), f32(3.0, 2.5), f32(0.5, -0.3)),
         grad=2, tol=_LOOSE),
    Case("sph_harm_y", "sph_harm_y", (
        np.array([0, 1, 2, 3, 2, 4, 1], np.int32), np.array([0, 1, -1, 2, 3, -3, -1], np.int32),
        f32(0.3, 0.5, 1.0, 2.0, 0.7, 2.5, 0.0), f32(0.1, 1.0, 2.0, -0.5, 0.2, 1.5, 0.3),
    ), {"n_max": 5}, tol=_LOOSE),
    Case("sph_harm_y_concrete_n", "sph_harm_y", (
        np.array([0, 2, 3], np.int32), np.array([0, -2, 1], np.int32), f32(0.3, 1.0, 2.0),
        f32(0.1, 2.0, -0.5),
    ), tol=_LOOSE, jit=False),
    Case("erf", "erf", (f32(0.0, 0.5, -1.0, 3.0, INF, -INF, NAN),)),
    Case("erfc", "erfc", (f32(0.0, 0.5, -1.0, 3.0, INF, -INF, NAN),)),
    Case("erfinv", "erfinv", (f32(0.0, 0.5, -0.9, 1.0, -1.0, 1.5, NAN),), tol=_LOOSE),
    Case("expit", "expit", (f32(0.0, 0.5, -30.0, 30.0, INF, -INF, NAN),)),
    Case("logit", "logit", (f32(0.0, 0.5, 0.25, 1.0, -0.5, NAN),)),
    Case("xlogy", "xlogy", (f32(0.0, 1.0, 2.0, 0.0), f32(0.0, 2.0, 0.5, -1.0))),
    Case("xlog1py", "xlog1py", (f32(0.0, 1.0, 2.0, 0.0), f32(-1.0, 2.0, 0.5, -2.0))),
]

# Python scalar operands: the results' weak types.
CASES += [
    Case(f"weak_{name}", name, args, tol=_LOOSE)
    for name, args in [
        ("gamma", (1.5,)), ("loggamma", (1.5,)), ("factorial", (3.0,)), ("entr", (0.5,)),
        ("rel_entr", (0.5, 0.2)), ("kl_div", (0.5, 0.2)), ("boxcox", (2.0, 0.5)),
        ("boxcox1p", (2.0, 0.5)), ("gammainc", (1.5, 2.0)), ("polygamma", (1, 2.0)),
        ("expn", (2, 0.5)), ("hyp1f1", (1.0, 2.0, 0.5)), ("owens_t", (0.5, 1.0)),
        ("wofz", (0.5,)), ("sici", (0.5,)), ("erfcx", (0.5,)), ("spence", (0.5,)),
    ]
]
CASES += [
    Case(f"weak_{name}_complex", name, (1 + 1j,), tol=_LOOSE)
    for name in ("erfcx", "gamma", "loggamma")
]

X64_CASES = [
    Case(
        "x64_gammainc",
        "gammainc",
        (f64(0.5, 2.0, 30.0, 100.0), f64(0.3, 5.0, 25.0, 110.0)),
        tol={"float64": 1e-12},
    ),
    Case(
        "x64_gammaincc",
        "gammaincc",
        (f64(0.5, 2.0, 30.0, 100.0), f64(0.3, 5.0, 25.0, 110.0)),
        tol={"float64": 1e-12},
    ),
    Case(
        "x64_betainc",
        "betainc",
        (f64(0.5, 2.0, 30.0), f64(1.5, 3.0, 20.0), f64(0.3, 0.9, 0.6)),
        tol={"float64": 1e-12},
    ),
    Case("x64_zeta", "zeta", (f64(2.0, 3.0, 1.5), f64(1.0, 2.5, 0.5)), tol={"float64": 1e-13}),
    Case("x64_gamma", "gamma", (f64(0.5, 3.0, -1.5, 10.0),), tol={"float64": 1e-13}),
    Case("x64_gamma_complex", "gamma", (_CZ.astype(np.complex128),), jvp=False,
         tol={"float64": 1e-12}),
    Case("x64_loggamma_complex", "loggamma", (np.concatenate(
        [_CZ, np.complex64([-100.2 + 0.5j, 0.2 - 200j, 170 + 0j, -170.5 + 0j])]
    ).astype(np.complex128),), tol={"float64": 1e-12}),
    Case("x64_gamma_complex_jvp", "gamma", (_CZ_JVP.astype(np.complex128),), jvp=True,
         tol={"float64": 1e-12}),
    Case("x64_loggamma_complex_jvp", "loggamma", (_CZ_JVP.astype(np.complex128),), jvp=True,
         tol={"float64": 1e-12}),
    Case("x64_ndtri", "ndtri", (f64(0.5, 1e-10, 0.975, 1e-300),), tol={"float64": 1e-13}),
    Case("x64_log_ndtr", "log_ndtr", (f64(0.0, -25.0, -5.0, 10.0),), tol={"float64": 1e-13}),
    Case("x64_exp1", "exp1", (f64(0.1, 1.0, 1.6, 5.0, 30.0),), tol={"float64": 1e-13}),
    Case("x64_expi", "expi", (f64(-3.0, 0.1, 1.0, 39.0, 41.0, 300.0),), tol={"float64": 1e-13}),
    Case("x64_spence", "spence", (f64(0.1, 0.9, 1.7, 2.5, 30.0),), tol={"float64": 1e-13}),
    Case("x64_erfcx", "erfcx", (f64(-3.0, 0.5, 4.0, 6.0, 100.0),), tol={"float64": 1e-13}),
    Case("x64_dawsn", "dawsn", (f64(0.1, 0.5, 3.0, 20.0, 80.0),), tol={"float64": 1e-13}),
    Case("x64_sici", "sici", (f64(0.5, 3.0, 5.0, 40.0),), tol={"float64": 1e-13}),
    Case("x64_fresnel", "fresnel", (f64(0.5, 1.9, 2.1, 40.0),), tol={"float64": 1e-13}),
    Case(
        "x64_wofz",
        "wofz",
        (np.array([1 + 1j, -1 + 0.5j, 3 - 2j, 20 + 0.1j], np.complex128),),
        tol={"float64": 1e-13},
    ),
    Case("x64_erfcx_complex", "erfcx", (np.array([1 + 1j, -1 + 0.5j, 3 - 2j, 0.1 + 20j],
                                                 np.complex128),), tol={"float64": 1e-13}),
    # (Not at 0.1 + 20j: there the tangent 2 z erfcx(z) - 2 / sqrt(pi) cancels, and JAX's is
    # 9e-9 off a long-double reference in its imaginary part; spmd's 1e-11.)
    Case("x64_erfcx_complex_jvp", "erfcx", (np.array([1 + 1j, -1 + 0.5j, 3 - 2j, 5 + 5j],
                                                     np.complex128),), jvp=True,
         tol={"float64": 1e-13}),
    Case(
        "x64_gammainc_grad_a",
        "gammainc",
        (f64(0.5, 2.0, 5.0), f64(1.0, 1.5, 7.0)),
        grad=0,
        tol={"float64": 1e-10},
    ),
]

# fmt: on


def call(special, case, args):
    fn = getattr(special, case.fn)
    return fn(*args, **case.kwargs)


def ones_tangents(np_like, args):
    """All-ones tangents for a ``jvp`` case's arguments (NumPy arrays)."""
    return tuple(np_like.ones_like(a) for a in args)


def main() -> None:
    import jax
    import jax.numpy as jnp
    import jax.scipy.special as special
    from numpy_gen import as_jax, run, write_golden

    golden, problems = {}, []

    def do(cases):
        for c in cases:
            args = [as_jax(jnp, a) for a in c.args]
            entry = {}

            def f(*a, c=c):
                return call(special, c, a)

            eager, err = run(f, args)
            if err is not None:
                problems.append(f"{c.name}: eager raised {type(err).__name__}: {err}")
                continue
            entry["eager"] = eager
            if c.jit:
                jitted, err = run(jax.jit(f), args)
                if err is not None:
                    problems.append(f"{c.name}: jit raised {type(err).__name__}: {err}")
                elif jitted != eager:
                    entry["jit"] = jitted
            if c.grad is not None:

                def g(*a, c=c, f=f):
                    return jax.grad(lambda *b: f(*b).sum(), argnums=c.grad)(*a)

                grad, err = run(g, args)
                if err is not None:
                    problems.append(f"{c.name}: grad raised {type(err).__name__}: {err}")
                else:
                    entry["grad"] = grad
            if c.jvp:

                def t(*a, c=c, f=f):
                    return jax.jvp(f, tuple(a), ones_tangents(jnp, a))[1]

                tangent, err = run(t, args)
                if err is not None:
                    problems.append(f"{c.name}: jvp raised {type(err).__name__}: {err}")
                else:
                    entry["jvp"] = tangent
            golden[c.name] = entry

    do(CASES)
    jax.config.update("jax_enable_x64", True)
    do(X64_CASES)
    write_golden(OUT, golden, jax.__version__, problems)


if __name__ == "__main__":
    main()
