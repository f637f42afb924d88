"""Golden cases for ``scipy.stats`` (every public name of ``jax.scipy.stats`` 0.10): one list,
run by JAX and by spmd.

Each case is a name, a maker ``make(stats, jnp, random) -> fn`` and a tuple of arguments built
with plain NumPy (or Python scalars, passed as they are: weakly typed). The same file serves:

- ``tests/golden_gen/scipy_stats_gen.py`` (run under real JAX), which records every output
  leaf (dtype, weak type, shape, values) of ``fn(*args)`` and ``jax.jit(fn)(*args)``, the
  gradient of the sum of the output by the case's ``grad`` argnums, or the exception class JAX
  raises, into ``tests/golden/scipy_stats.json``;
- ``tests/test_scipy_stats.py`` (no JAX), which runs the cases with ``spmd`` and compares.

The distributions get, per function: a grid of points with default parameters (infinities and
NaN included, out-of-support points for the bounded ones), parameters that broadcast against
the points, invalid parameters (NaN or -inf where JAX gives them), integer inputs, Python
scalars (weak types), float64 inputs under x64, and for the differentiable ones a gradient by
every argument at interior points.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np

NAN, INF = np.nan, np.inf


@dataclasses.dataclass(frozen=True)
class Case:
    """One case: ``make(stats, jnp, random)`` gives the function to call on ``args``.

    ``grad``: argnums to differentiate the sum of the output by (None: no gradient). ``jit``:
    also run under jit (``jit_as_eager``: compare it with the eager golden, where XLA's
    compiled transcendental functions round differently from JAX's eager ones at infinities
    or a pole, e.g. ``atan(-inf)`` to just above ``-pi/2``). ``x64``: 64-bit types on.
    ``tol``: float tolerance by dtype name (relative and absolute). ``error``: the exception
    class JAX raises; ``match``: a regular expression spmd's message must match.
    """

    name: str
    make: Callable[[Any, Any, Any], Callable]
    args: tuple
    grad: tuple[int, ...] | None = None
    jit: bool = True
    jit_as_eager: bool = False
    x64: bool = False
    tol: dict | None = None
    error: str | None = None
    match: str | None = None


CASES: list[Case] = []

# Float32 results of formulas evaluated in a different order from JAX's.
TOL = {"float32": 2e-5, "float64": 1e-12}


def case(name: str, make, *args, **kw) -> None:
    if any(c.name == name for c in CASES):
        raise ValueError(f"duplicate case name {name!r}")
    kw.setdefault("tol", TOL)
    CASES.append(Case(name, make, tuple(args), **kw))


def attr(path: str, **kwargs) -> Callable:
    """A maker for ``stats.<path>(*args, **kwargs)``."""

    def make(stats, jnp, random):
        fn = stats
        for part in path.split("."):
            fn = getattr(fn, part)
        return lambda *a: fn(*a, **kwargs)

    return make


def f32(*v):
    return np.array(v, np.float32)


def f64(*v):
    return np.array(v, np.float64)


def i32(*v):
    return np.array(v, np.int32)


def col(*v):
    """A float32 column: broadcasts against a row of points."""
    return np.array(v, np.float32)[:, None]


# fmt: off
X = f32(-3.0, -1.0, -0.5, 0.0, 0.3, 1.0, 2.5, 10.0, INF, -INF, NAN)
XPOS = f32(-1.0, 0.0, 0.1, 0.5, 1.0, 2.5, 10.0, 40.0, INF, NAN)
XUNIT = f32(-0.5, 0.0, 0.01, 0.3, 0.5, 0.9, 1.0, 1.5, NAN)
Q = f32(-0.5, 0.0, 1e-6, 0.01, 0.3, 0.5, 0.9, 0.999, 1.0, 1.5, NAN)
K = f32(-1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, NAN)
XINT = i32(-2, 0, 1, 3)
# fmt: on

# name -> (functions, points, valid params, params that broadcast (columns), invalid params,
#          gradient points, gradient params). Parameters are positional after the points.
LOC_SCALE = ((), (col(0.0, -1.0, 2.0), col(1.0, 0.5, 3.0)), (0.0, col(-1.0, 0.0)))
CONTINUOUS = {
    "norm": (
        "cdf isf logcdf logpdf logsf pdf ppf sf",
        X,
        *LOC_SCALE,
        f32(-1.0, 0.3, 2.0),
        (f32(0.5), f32(1.5)),
    ),
    "cauchy": (
        "cdf isf logcdf logpdf logsf pdf ppf sf",
        X,
        *LOC_SCALE,
        f32(-1.0, 0.3, 2.0),
        (f32(0.5), f32(1.5)),
    ),
    "logistic": (
        "cdf isf logpdf pdf ppf sf",
        X,
        *LOC_SCALE,
        f32(-1.0, 0.3, 2.0),
        (f32(0.5), f32(1.5)),
    ),
    "laplace": ("cdf logpdf pdf", X, *LOC_SCALE, f32(-1.0, 0.3, 2.0), (f32(0.5), f32(1.5))),
    "gumbel_r": (
        "cdf logcdf logpdf logsf pdf ppf sf",
        X,
        *LOC_SCALE,
        f32(-1.0, 0.3, 2.0),
        (f32(0.5), f32(1.5)),
    ),
    "gumbel_l": (
        "cdf logcdf logpdf logsf pdf ppf sf",
        X,
        *LOC_SCALE,
        f32(-1.0, 0.3, 2.0),
        (f32(0.5), f32(1.5)),
    ),
    "uniform": ("cdf logpdf pdf ppf", X, *LOC_SCALE, f32(-0.5, 0.3, 0.9), (f32(-1.0), f32(2.5))),
    "expon": (
        "cdf logcdf logpdf logsf pdf ppf sf",
        X,
        *LOC_SCALE,
        f32(0.3, 1.0, 2.0),
        (f32(0.1), f32(1.5)),
    ),
    "gamma": (
        "cdf logcdf logpdf logsf pdf sf",
        XPOS,
        (2.5,),
        (col(0.5, 1.0, 4.0), col(0.0, -1.0, 1.0), col(1.0, 2.0, 0.5)),
        # (Not a = 0: there JAX's gammainc is NaN below x = 1, spmd's 1.)
        (col(-1.0, -0.5),),
        f32(0.3, 1.0, 2.5),
        (f32(2.0), f32(0.1), f32(1.5)),
    ),
    "chi2": (
        "cdf logcdf logpdf logsf pdf sf",
        XPOS,
        (3.0,),
        (col(1.0, 2.0, 5.0), col(0.0, -1.0, 1.0), col(1.0, 2.0, 0.5)),
        (col(-1.0, -0.5),),
        f32(0.3, 1.0, 2.5),
        (f32(3.0), f32(0.1), f32(1.5)),
    ),
    "beta": (
        "cdf logcdf logpdf logsf pdf sf",
        XUNIT,
        (2.0, 3.0),
        (col(0.5, 1.0, 4.0), col(0.5, 2.0, 1.0), col(0.0, -0.5, 0.1), col(1.0, 2.0, 0.5)),
        (col(-1.0, 0.5, 0.0), col(2.0, 0.0, 1.0)),
        f32(0.2, 0.5, 0.7),
        (f32(2.0), f32(3.0), f32(0.0), f32(1.2)),
    ),
    "t": (
        "logpdf pdf",
        X,
        (3.0,),
        (col(1.0, 4.5, 30.0), col(0.0, -1.0, 2.0), col(1.0, 0.5, 3.0)),
        (col(-1.0, 0.0),),
        f32(-1.0, 0.3, 2.0),
        (f32(3.0), f32(0.5), f32(1.5)),
    ),
    "pareto": (
        "cdf logcdf logpdf logsf pdf ppf sf",
        XPOS,
        (2.0,),
        (col(0.5, 1.0, 3.0), col(0.0, -1.0, 1.0), col(1.0, 2.0, 0.5)),
        (col(-1.0, 0.0),),
        f32(1.5, 2.5, 10.0),
        (f32(2.0), f32(0.1), f32(1.2)),
    ),
    "gennorm": (
        "cdf logpdf pdf",
        X,
        (2.0,),
        (col(0.5, 1.0, 4.0),),
        (col(-1.0, 0.0),),
        f32(-1.0, 0.3, 2.0),
        (f32(1.5),),
    ),
    "truncnorm": (
        "cdf logcdf logpdf logsf pdf sf",
        X,
        (-1.0, 2.0),
        (col(-2.0, 0.5, -INF), col(2.0, 3.0, 1.0), col(0.0, 1.0, -1.0), col(1.0, 0.5, 2.0)),
        (col(1.0, 1.0, 2.0), col(0.0, 1.0, 1.0)),
        f32(-0.5, 0.3, 1.0),
        (f32(-1.0), f32(2.0), f32(0.1), f32(1.2)),
    ),
    "vonmises": (
        "logpdf pdf",
        X,
        (2.0,),
        (col(0.5, 1.0, 40.0),),
        (col(-1.0, 0.0),),
        f32(-1.0, 0.3, 2.0),
        (f32(1.5),),
    ),
    "wrapcauchy": (
        "logpdf pdf",
        f32(-1.0, 0.0, 0.5, 1.0, 3.0, 6.0, 6.3, INF, NAN),
        (0.5,),
        (col(0.1, 0.5, 0.9),),
        (col(-0.5, 0.0, 1.0, 1.5),),
        f32(0.5, 1.0, 3.0),
        (f32(0.3),),
    ),
}
DISCRETE = {
    "bernoulli": (
        "logpmf pmf",
        K,
        (0.3,),
        (col(0.0, 0.5, 1.0),),
        (col(-0.5, 1.5),),
        f32(0.0, 1.0),
        (f32(0.3),),
    ),
    "binom": (
        "logpmf pmf",
        K,
        (5.0, 0.3),
        (col(3.0, 10.0, 0.0), col(0.5, 0.1, 1.0)),
        (col(3.0, -1.0), col(1.5, 0.5)),
        f32(0.0, 2.0, 3.0),
        (f32(5.0), f32(0.3)),
    ),
    "betabinom": (
        "logpmf pmf",
        K,
        (5.0, 2.0, 3.0),
        (col(3.0, 10.0, 0.0), col(0.5, 1.0, 4.0), col(0.5, 2.0, 1.0)),
        (col(5.0, 5.0, -3.0), col(-1.0, 1.0, 1.0), col(2.0, 0.0, 2.0)),
        f32(0.0, 2.0, 3.0),
        (f32(5.0), f32(2.0), f32(3.0)),
    ),
    "geom": (
        "logpmf pmf",
        K,
        (0.3,),
        (col(0.1, 0.5, 1.0),),
        (col(1.5, 0.0, -0.5),),
        f32(1.0, 2.0, 5.0),
        (f32(0.3),),
    ),
    "nbinom": (
        "logpmf pmf",
        K,
        (3.0, 0.4),
        (col(1.0, 2.5, 10.0), col(0.5, 0.1, 1.0)),
        (col(-1.0, 2.0), col(0.5, 1.5)),
        f32(0.0, 2.0, 5.0),
        (f32(3.0), f32(0.4)),
    ),
    "poisson": (
        "cdf logpmf pmf",
        K,
        (2.5,),
        (col(0.5, 1.0, 20.0),),
        (col(-1.0, 0.0),),
        f32(0.0, 2.0, 5.0),
        (f32(2.5),),
    ),
}
# fmt: on

_POINT_ARG = {"ppf": Q, "isf": Q}
_NOT_DIFFERENTIABLE = {"bernoulli.cdf", "bernoulli.ppf"}
# Functions whose jitted JAX results at x = +-inf are XLA's rounding (see ``Case``).
_JIT_AS_EAGER = {
    "cauchy.logcdf",
    "cauchy.logsf",
    "gumbel_r.logpdf",
    "gumbel_r.pdf",
    "gumbel_l.logpdf",
    "gumbel_l.pdf",
    "cauchy.ppf",
    "cauchy.isf",
}


def _dist_cases(name: str, spec: tuple, discrete: bool) -> None:
    fns, pts, valid, bcast, invalid, gpts, gparams = spec
    has_loc = not discrete and len(bcast) > len(valid) and name not in ("gennorm",)
    for fn in fns.split():
        path = f"{name}.{fn}"
        x = _POINT_ARG.get(fn, pts)
        jae = path in _JIT_AS_EAGER
        case(path, attr(path), x, *valid, jit_as_eager=jae)
        case(f"{path}_bcast", attr(path), x[None, :], *bcast, jit_as_eager=jae)
        case(
            f"{path}_invalid",
            attr(path),
            x,
            *valid[: len(valid) - len(invalid)],
            *invalid,
            jit=False,
        )
        xi = XINT if fn not in ("ppf", "isf") else i32(0, 1, 2)
        # Integer parameters as ints; others as float32 scalars (strong: JAX's results for an
        # integer array with a Python float parameter are weak or not by function).
        ints = tuple(int(v) if float(v).is_integer() else np.float32(v) for v in valid)
        if path in ("norm.ppf", "norm.isf"):  # special.ndtri takes floats only
            case(
                f"{path}_int",
                attr(path),
                xi,
                *ints,
                jit=False,
                error="TypeError",
                match="int32 is not supported",
            )
        else:
            case(f"{path}_int", attr(path), xi, *ints, jit=False)
        weak_x = 0.5 if fn in ("ppf", "isf") or name in ("beta", "wrapcauchy") else 1.0
        if name == "pareto" and fn not in ("ppf",):
            weak_x = 2.0
        case(f"{path}_weak", attr(path), weak_x, *valid, jit=False)
        if path not in _NOT_DIFFERENTIABLE and fn not in ("ppf", "isf"):
            gp = gparams[: len(bcast)]
            case(f"{path}_grad", attr(path), gpts, *gp, grad=tuple(range(1 + len(gp))), jit=False)
        elif fn in ("ppf", "isf"):
            gp = gparams[: len(bcast)]
            case(
                f"{path}_grad",
                attr(path),
                f32(0.1, 0.5, 0.8),
                *gp,
                grad=tuple(range(1 + len(gp))),
                jit=False,
            )
        case(
            f"{path}_x64",
            attr(path),
            x.astype(np.float64),
            *(np.float64(v) for v in valid),
            x64=True,
            jit=False,
            # JAX's float64 betaln is good to about 1e-6 only.
            tol={"float64": 1e-5} if name == "betabinom" else TOL,
        )
        if has_loc and fn in ("logpdf", "pdf", "logpmf"):
            case(f"{path}_kwargs", attr(path, loc=0.5, scale=2.0), x, *valid, jit=False)


for _name, _spec in CONTINUOUS.items():
    _dist_cases(_name, _spec, discrete=False)
for _name, _spec in DISCRETE.items():
    _dist_cases(_name, _spec, discrete=True)

# Discrete functions with loc; bernoulli's cdf and ppf (no loc).
case("poisson.logpmf_loc", attr("poisson.logpmf", loc=2.0), K, 2.5)
case("binom.logpmf_loc", attr("binom.logpmf", loc=1), K, 5.0, 0.3)
case("geom.pmf_loc", attr("geom.pmf", loc=-1), K, 0.3)
case("nbinom.logpmf_loc", attr("nbinom.logpmf", loc=1), K, 3.0, 0.4)
case("betabinom.logpmf_loc", attr("betabinom.logpmf", loc=1), K, 5.0, 2.0, 3.0)
case("bernoulli.logpmf_loc", attr("bernoulli.logpmf", loc=1), K, 0.3)
case("bernoulli.cdf", attr("bernoulli.cdf"), K, 0.3)
case("bernoulli.cdf_bcast", attr("bernoulli.cdf"), K[None, :], col(0.0, 0.5, 1.0, -0.5, 1.5))
case("bernoulli.cdf_int", attr("bernoulli.cdf"), XINT, 1, jit=False)
case("bernoulli.cdf_weak", attr("bernoulli.cdf"), 0.5, 0.3, jit=False)
case("bernoulli.ppf", attr("bernoulli.ppf"), Q, 0.3)
case("bernoulli.ppf_bcast", attr("bernoulli.ppf"), Q[None, :], col(0.0, 0.5, 1.0, -0.5, 1.5))
case("bernoulli.ppf_weak", attr("bernoulli.ppf"), 0.5, 0.3, jit=False)
case(
    "poisson.entropy",
    attr("poisson.entropy"),
    f32(0.0, 1e-3, 0.5, 1.0, 5.0, 9.9, 10.0, 20.0, 50.0, 99.0, 100.0, 1000.0, -1.0, NAN),
    tol={"float32": 1e-5},
)
case(
    "poisson.entropy_loc",
    attr("poisson.entropy"),
    f32(0.5, 3.0),
    col(0.0, 2.0),
    tol={"float32": 1e-5},
)
case("poisson.entropy_weak", attr("poisson.entropy"), 5.0, jit=False, tol={"float32": 1e-5})
case(
    "poisson.entropy_int",
    attr("poisson.entropy"),
    i32(1, 10, 100),
    jit=False,
    tol={"float32": 1e-5},
)
case(
    "poisson.entropy_grad",
    attr("poisson.entropy"),
    # (Not mu = 90 or 200: JAX's gradient is NaN there, spmd's finite.)
    f32(0.5, 3.0, 30.0),
    grad=(0,),
    jit=False,
    tol={"float32": 1e-4},
)

# Far tails, where the formulas must avoid cancellation.
case("norm.logcdf_tail", attr("norm.logcdf"), f32(-40.0, -20.0, -8.0, 8.0, 20.0))
case("norm.logsf_tail", attr("norm.logsf"), f32(-20.0, -8.0, 8.0, 20.0, 40.0))
case("norm.isf_tail", attr("norm.isf"), f32(1e-30, 1e-10, 1e-3, 0.999999))
case("truncnorm.logpdf_tail", attr("truncnorm.logpdf"), f32(10.0, 10.5, 12.0), 10.0, 13.0)
case("truncnorm.logcdf_tail", attr("truncnorm.logcdf"), f32(-12.0, -11.5, -10.5), -13.0, -10.0)
case("truncnorm.logsf_tail", attr("truncnorm.logsf"), f32(10.0, 10.5, 12.0), 10.0, 13.0)
# (Not x = 1e-6: there log1p(-exp(-x)) turns one ulp of exp into 0.5% of the result, and
# XLA's float32 exp is not correctly rounded, NumPy's is.)
case("expon.logcdf_tail", attr("expon.logcdf"), f32(1e-3, 0.1, 20.0, 50.0))
case("gumbel_r.logsf_tail", attr("gumbel_r.logsf"), f32(-3.0, 10.0, 30.0))
case("gumbel_l.logcdf_tail", attr("gumbel_l.logcdf"), f32(-30.0, -10.0, 3.0))
case("logistic.logpdf_tail", attr("logistic.logpdf"), f32(-100.0, -30.0, 30.0, 100.0))
case("cauchy.logsf_tail", attr("cauchy.logsf"), f32(-1e6, 1e3, 1e6), jit_as_eager=True)
case("pareto.logcdf_near", attr("pareto.logcdf"), f32(1.0, 1.01, 1e3), 2.0)
case("vonmises.logpdf_kappa_large", attr("vonmises.logpdf"), f32(0.0, 0.1, 3.0), 1e4)
case("gamma.logpdf_a_small", attr("gamma.logpdf"), f32(0.0, 1e-3, 1.0), f32(0.5, 1.0, 1e-3))

# Multivariate distributions.
_COV = np.array([[2.0, 0.5], [0.5, 1.0]], np.float32)
_MEAN = f32(0.5, 0.5)
_XS = np.array([[0.0, 1.0], [1.0, 2.0], [-3.0, 0.5]], np.float32)
_ALPHA = f32(1.5, 2.0, 3.0)
_P3 = f32(0.2, 0.3, 0.5)
for _fn in ("logpdf", "pdf"):
    _m = f"multivariate_normal.{_fn}"
    case(_m, attr(_m), _XS, _MEAN, _COV)
    case(f"{_m}_grad", attr(_m), _XS, _MEAN, _COV, grad=(0, 1, 2), jit=False)
    case(f"{_m}_scalar", attr(_m), f32(1.0, 2.0, -1.0), 0.5, 2.0)
    case(f"{_m}_weak", attr(_m), 1.0, 0.5, 2.0, jit=False)
    case(f"{_m}_scalar_cov", attr(_m), _XS, _MEAN, 2.0)
    case(
        f"{_m}_batch_mean",
        attr(_m),
        f32(1.0, 2.0),
        np.array([[0, 0], [1, 1]], np.float32),
        np.eye(2, dtype=np.float32),
    )
    case(
        f"{_m}_batch_cov",
        attr(_m),
        f32(1.0, 2.0),
        f32(0.0, 0.0),
        np.stack([np.eye(2), 2 * np.eye(2)]).astype(np.float32),
    )
    case(f"{_m}_int", attr(_m), i32(1, 2), i32(0, 0), np.eye(2, dtype=np.int32), jit=False)
    case(f"{_m}_not_pd", attr(_m), f32(1.0, 2.0), f32(0.0, 0.0), -np.eye(2, dtype=np.float32))
    case(
        f"{_m}_x64",
        attr(_m),
        _XS.astype(np.float64),
        _MEAN.astype(np.float64),
        _COV.astype(np.float64),
        x64=True,
        jit=False,
    )
    _d = f"dirichlet.{_fn}"
    case(_d, attr(_d), f32(0.2, 0.3, 0.5), _ALPHA)
    case(f"{_d}_drop_last", attr(_d), f32(0.2, 0.3), _ALPHA)
    case(
        f"{_d}_batch", attr(_d), np.array([[0.2, 0.1], [0.3, 0.3], [0.5, 0.6]], np.float32), _ALPHA
    )
    case(
        f"{_d}_off_simplex",
        attr(_d),
        np.array([[0.2, -0.2, 0.0, 0.2], [0.3, 0.7, 0.5, 0.3], [0.6, 0.5, 0.5, 0.5]], np.float32),
        _ALPHA,
    )
    case(f"{_d}_int", attr(_d), i32(0, 0, 1), i32(1, 2, 3), jit=False)
    case(f"{_d}_bad_alpha", attr(_d), f32(0.2, 0.3, 0.5), f32(-1.0, 2.0, 3.0))
    case(f"{_d}_grad", attr(_d), f32(0.2, 0.3, 0.5), _ALPHA, grad=(0, 1), jit=False)
    _n = f"multinomial.{_fn.replace('pdf', 'pmf')}"
    case(_n, attr(_n), i32(1, 2, 3), 6, _P3)
    case(f"{_n}_wrong_n", attr(_n), i32(1, 2, 3), 7, _P3)
    case(f"{_n}_batch", attr(_n), np.array([[1, 2, 3], [0, 0, 6]], np.int32), 6, _P3)
    case(f"{_n}_zero_p", attr(_n), i32(0, 3, 3), 6, f32(0.0, 0.5, 0.5))
    case(f"{_n}_unnormalized", attr(_n), i32(1, 2, 3), 6, f32(0.4, 0.6, 1.0))
    case(f"{_n}_bool", attr(_n), np.array([True, False]), 1, f32(0.5, 0.5), jit=False)
    case(
        f"{_n}_f16",
        attr(_n),
        i32(1, 2, 3),
        6,
        _P3.astype(np.float16),
        jit=False,
        tol={"float16": 1e-3},
    )
    case(f"{_n}_grad", attr(_n), i32(1, 2, 3), 6, _P3, grad=(2,), jit=False)

# Summary statistics.
_A = np.array([[3, 1, 2, 1], [2, 2, 3, 3], [1, 1, 1, 0]], np.int32)
_AF = np.array([[3.0, 1.0, 2.0, 1.0], [2.0, NAN, 3.0, 3.0]], np.float32)
case("mode", attr("mode"), _A)
case("mode_axis1", attr("mode", axis=1), _A)
case("mode_axis_neg", attr("mode", axis=-1), _A)
case("mode_none", attr("mode", axis=None), _A)
case("mode_keepdims", attr("mode", axis=1, keepdims=True), _A)
case("mode_none_keepdims", attr("mode", axis=None, keepdims=True), _A)
case("mode_nan", attr("mode"), f32(1.0, NAN, NAN, 2.0))
case("mode_inf", attr("mode"), f32(INF, INF, 1.0, 1.0, -INF, -INF))
case("mode_scalar", attr("mode"), 3.0, jit=False)
case("mode_scalar_keepdims", attr("mode", keepdims=True), 3.0, jit=False)
case("mode_float", attr("mode"), f32(1.0, 2.0, 2.0))
case("mode_bool", attr("mode"), np.array([True, False, True]))
case("mode_3d", attr("mode", axis=1), (np.arange(24, dtype=np.int32).reshape(2, 3, 4) % 3))
case("mode_empty", attr("mode"), np.zeros((0, 3), np.float32))
case("mode_empty_int_keepdims", attr("mode", keepdims=True), np.zeros((0, 3), np.int32))
case("mode_empty_other_axis", attr("mode", axis=1), np.zeros((0, 3), np.float32))
for _method in ("average", "min", "max", "dense", "ordinal"):
    case(f"rankdata_{_method}", attr("rankdata", method=_method), i32(3, 1, 2, 1, 5, 3))
    case(f"rankdata_{_method}_axis1", attr("rankdata", method=_method, axis=1), _AF)
case("rankdata_none", attr("rankdata"), _AF)
case("rankdata_axis0", attr("rankdata", axis=0), _AF)
case("rankdata_scalar", attr("rankdata"), 3.0, jit=False)
case("rankdata_empty", attr("rankdata"), np.zeros((0,), np.float32))
case("rankdata_f16", attr("rankdata"), np.array([1, 2, 2], np.float16))
case(
    "rankdata_min_neg_axis",
    attr("rankdata", method="min", axis=-1),
    np.array([[3, 1], [1, 1]], np.int32),
)
case("sem", attr("sem"), _AF)
case("sem_axis1", attr("sem", axis=1), _AF)
case("sem_none", attr("sem", axis=None), np.array([[1.0, 2.0], [3.0, 5.0]], np.float32))
case(
    "sem_none_keepdims",
    attr("sem", axis=None, keepdims=True),
    np.array([[1.0, 2.0], [3.0, 5.0]], np.float32),
)
case("sem_ddof0_keepdims", attr("sem", ddof=0, keepdims=True), _AF)
case("sem_int", attr("sem"), i32(1, 2, 3, 4))
case("sem_f16", attr("sem"), np.array([1, 2, 4], np.float16), tol={"float16": 1e-3})
case("sem_omit", attr("sem", axis=1, nan_policy="omit"), _AF)
case("sem_omit_none", attr("sem", axis=None, nan_policy="omit"), f32(1.0, NAN, 3.0))
case("sem_one", attr("sem"), f32(1.0))
case("sem_scalar_none", attr("sem", axis=None), 2.0, jit=False)
case(
    "sem_grad",
    attr("sem"),
    np.array([[1.0, 2.0], [3.0, 5.0], [0.5, 1.0]], np.float32),
    grad=(0,),
    jit=False,
)


# The kernel density estimate.
_D1 = f32(0.1, 0.5, 1.2, 2.0, -0.3)
_D2 = np.array([[0.1, 0.5, 1.2, 2.0, -0.3], [1.0, 0.2, -0.5, 0.3, 0.8]], np.float32)
_W = f32(1.0, 2.0, 1.0, 0.5, 1.5)


def kde(method: str, *margs, bw_method=None, weighted=False, **mkw):
    """A maker for ``gaussian_kde(dataset[, weights])`` then ``.method(*points, ...)``: the
    dataset (and weights) are the first argument(s), so jit and grad see them."""

    def make(stats, jnp, random):
        def fn(dataset, *rest):
            w = rest[0] if weighted else None
            rest = rest[1:] if weighted else rest
            k = stats.gaussian_kde(dataset, bw_method=bw_method, weights=w)
            if method == "fields":
                return (k.neff, k.dataset, k.weights, k.covariance, k.inv_cov, k.d, k.n)
            return getattr(k, method)(*rest, *margs, **mkw)

        return fn

    return make


def kde_resample(shape, weighted=False):
    def make(stats, jnp, random):
        def fn(dataset, *w):
            k = stats.gaussian_kde(dataset, weights=w[0] if w else None)
            return k.resample(random.key(0), shape)

        return fn

    return make


def kde_integrate_kde(stats, jnp, random):
    return lambda d1, d2, w: stats.gaussian_kde(d1).integrate_kde(stats.gaussian_kde(d2, weights=w))


KDE_TOL = {"float32": 1e-5}
case("kde_fields_1d", kde("fields"), _D1, tol=KDE_TOL)
case("kde_fields_2d", kde("fields"), _D2, tol=KDE_TOL)
case("kde_fields_weighted", kde("fields", weighted=True), _D2, _W, tol=KDE_TOL)
case("kde_fields_silverman", kde("fields", bw_method="silverman"), _D1, tol=KDE_TOL)
case("kde_fields_scott", kde("fields", bw_method="scott"), _D1, tol=KDE_TOL)
case("kde_fields_scalar_bw", kde("fields", bw_method=0.5), _D1, tol=KDE_TOL)
case("kde_fields_int", kde("fields"), i32(1, 2, 3, 5), tol=KDE_TOL, jit=False)
case("kde_evaluate_1d", kde("evaluate"), _D1, f32(0.0, 1.0, 3.0), tol=KDE_TOL)
case("kde_evaluate_scalar_point", kde("evaluate"), _D1, 0.5, tol=KDE_TOL, jit=False)
case("kde_pdf_1d", kde("pdf"), _D1, f32(0.0, 1.0, 3.0), tol=KDE_TOL)
case("kde_call_1d", kde("__call__"), _D1, f32(0.0, 1.0, 3.0), tol=KDE_TOL)
case("kde_logpdf_1d", kde("logpdf"), _D1, f32(0.0, 1.0, 3.0, 50.0), tol=KDE_TOL)
case(
    "kde_logpdf_1d_grad",
    kde("logpdf"),
    _D1,
    f32(0.0, 1.0, 3.0),
    grad=(0, 1),
    tol=KDE_TOL,
    jit=False,
)
case(
    "kde_evaluate_2d",
    kde("evaluate"),
    _D2,
    np.array([[0.0, 1.0], [0.5, 0.0]], np.float32),
    tol=KDE_TOL,
)
case("kde_evaluate_2d_one_point", kde("evaluate"), _D2, f32(0.0, 1.0), tol=KDE_TOL)
case(
    "kde_logpdf_weighted",
    kde("logpdf", weighted=True),
    _D2,
    _W,
    np.array([[0.0, 1.0], [0.5, 0.0]], np.float32),
    tol=KDE_TOL,
)
case(
    "kde_logpdf_weighted_grad",
    kde("logpdf", weighted=True),
    _D2,
    _W,
    np.array([[0.0, 1.0], [0.5, 0.0]], np.float32),
    grad=(0, 1, 2),
    tol=KDE_TOL,
    jit=False,
)
case("kde_integrate_box_1d", kde("integrate_box_1d"), _D1, -1.0, 1.0, tol=KDE_TOL)
case(
    "kde_integrate_gaussian_1d",
    kde("integrate_gaussian"),
    _D1,
    f32(0.5),
    np.array([[2.0]], np.float32),
    tol=KDE_TOL,
)
case(
    "kde_integrate_gaussian_scalars",
    kde("integrate_gaussian"),
    _D1,
    0.5,
    2.0,
    tol=KDE_TOL,
    jit=False,
)
case(
    "kde_integrate_gaussian_2d",
    kde("integrate_gaussian"),
    _D2,
    f32(0.5, 0.0),
    np.array([[2.0, 0.3], [0.3, 1.0]], np.float32),
    tol=KDE_TOL,
)
case(
    "kde_integrate_gaussian_2d_grad",
    kde("integrate_gaussian"),
    _D2,
    f32(0.5, 0.0),
    np.array([[2.0, 0.3], [0.3, 1.0]], np.float32),
    grad=(0, 1),
    tol=KDE_TOL,
    jit=False,
)
case("kde_integrate_kde", kde_integrate_kde, _D2, _D2[:, :3] * 2, f32(1.0, 2.0, 3.0), tol=KDE_TOL)
case("kde_resample", kde_resample((4,)), _D1, tol=KDE_TOL)
case("kde_resample_weighted", kde_resample((3,), weighted=True), _D2, _W, tol=KDE_TOL)
case("kde_resample_scalar_shape", kde_resample(()), _D2, tol=KDE_TOL)

# Bad input: JAX's error class (spmd's message names the function and the sizes).
_E = {"jit": False}
case(
    "err_mvn_cov_1d",
    attr("multivariate_normal.logpdf"),
    f32(1.0, 2.0),
    f32(0.0, 0.0),
    f32(1.0, 2.0),
    error="ValueError",
    match=r"multivariate_normal.logpdf.*shapes",
    **_E,
)
case(
    "err_mvn_cov_size",
    attr("multivariate_normal.logpdf"),
    f32(1.0, 2.0),
    f32(0.0, 0.0),
    np.eye(3, dtype=np.float32),
    error="ValueError",
    match=r"multivariate_normal.*\(3, 3\)",
    **_E,
)
case(
    "err_mvn_cov_not_square",
    attr("multivariate_normal.pdf"),
    f32(1.0, 2.0),
    f32(0.0, 0.0),
    np.ones((2, 3), np.float32),
    error="ValueError",
    match=r"multivariate_normal",
    **_E,
)
case(
    "err_mvn_x_size",
    attr("multivariate_normal.logpdf"),
    f32(1.0, 2.0, 3.0),
    f32(0.0, 0.0),
    np.eye(2, dtype=np.float32),
    error="TypeError",
    match=r"\(3,\).*\(2,\)",
    **_E,
)
case(
    "err_mvn_allow_singular",
    attr("multivariate_normal.logpdf", allow_singular=True),
    f32(1.0, 2.0),
    f32(0.0, 0.0),
    np.eye(2, dtype=np.float32),
    error="NotImplementedError",
    match="allow_singular",
    **_E,
)
case(
    "err_dirichlet_alpha_2d",
    attr("dirichlet.logpdf"),
    f32(0.2, 0.3, 0.5),
    np.ones((3, 1), np.float32),
    error="ValueError",
    match=r"alpha.shape=\(3, 1\)",
    **_E,
)
case(
    "err_dirichlet_x_size",
    attr("dirichlet.pdf"),
    f32(0.2, 0.3, 0.1, 0.4),
    _ALPHA,
    error="ValueError",
    match=r"x.shape=\(4,\), alpha.shape=\(3,\)",
    **_E,
)
case(
    "err_dirichlet_x_scalar",
    attr("dirichlet.logpdf"),
    0.5,
    _ALPHA,
    error="IndexError",
    match=r"dirichlet.logpdf.*x.shape=\(\)",
    **_E,
)
case(
    "err_multinomial_float",
    attr("multinomial.logpmf"),
    f32(1.0, 2.0, 3.0),
    6,
    _P3,
    error="ValueError",
    match=r"integer type.*x.dtype=float32, n.dtype=float32",
    **_E,
)
case(
    "err_multinomial_p_size",
    attr("multinomial.logpmf"),
    i32(1, 2, 3),
    6,
    f32(0.2, 0.3),
    error="TypeError",
    match=r"\(3,\).*\(2,\)",
    **_E,
)
case(
    "err_multinomial_scalar",
    attr("multinomial.pmf"),
    1,
    1,
    1.0,
    error="ValueError",
    match=r"multinomial.logpmf.*shape",
    **_E,
)
case(
    "err_mode_nan_policy",
    attr("mode", nan_policy="foo"),
    _A,
    error="ValueError",
    match="Illegal nan_policy value 'foo'",
    **_E,
)
case(
    "err_mode_omit",
    attr("mode", nan_policy="omit"),
    _A,
    error="NotImplementedError",
    match="omit",
    **_E,
)
case(
    "err_mode_raise",
    attr("mode", nan_policy="raise"),
    _A,
    error="NotImplementedError",
    match="`mode`",
    **_E,
)
case(
    "err_mode_axis",
    attr("mode", axis=3),
    _A,
    error="ValueError",
    match="axis 3 is out of bounds for array of dimension 2",
    **_E,
)
case("err_mode_list", attr("mode"), [1, 2], error="TypeError", match="mode requires ndarray", **_E)
case(
    "err_rankdata_method",
    attr("rankdata", method="foo"),
    _AF,
    error="ValueError",
    match="unknown method 'foo'",
    **_E,
)
case(
    "err_rankdata_omit",
    attr("rankdata", nan_policy="omit"),
    _AF,
    error="NotImplementedError",
    match="omit",
    **_E,
)
case(
    "err_rankdata_axis",
    attr("rankdata", axis=2),
    _AF,
    error="ValueError",
    match="axis 2 is out of bounds",
    **_E,
)
case(
    "err_sem_raise",
    attr("sem", nan_policy="raise"),
    _AF,
    error="ValueError",
    match="raise is not supported",
    **_E,
)
case(
    "err_sem_axis",
    attr("sem", axis=1),
    f32(1.0, 2.0),
    error="IndexError",
    match=r"sem: axis 1.*shape \(2,\)",
    **_E,
)
case("err_sem_list", attr("sem"), [1.0, 2.0], error="TypeError", match="sem requires", **_E)
case(
    "err_norm_list",
    attr("norm.logpdf"),
    [1.0, 2.0],
    error="TypeError",
    match="norm.logpdf requires",
    **_E,
)
case(
    "err_norm_shapes",
    attr("norm.pdf"),
    f32(1.0, 2.0, 3.0),
    f32(0.0, 1.0),
    error="TypeError",
    match=r"incompatible shapes for broadcasting: \(3,\), \(2,\)",
    **_E,
)
case("err_kde_bw", kde("fields", bw_method="foo"), _D1, error="ValueError", match="bw_method", **_E)
case("err_kde_scalar", kde("fields"), 1.0, error="ValueError", match="multiple elements", **_E)
case(
    "err_kde_3d",
    kde("fields"),
    np.ones((2, 2, 3), np.float32),
    error="ValueError",
    match=r"gaussian_kde.*\(2, 2, 3\)",
    **_E,
)
case(
    "err_kde_weights_len",
    kde("fields", weighted=True),
    _D1,
    f32(1.0, 1.0, 1.0),
    error="ValueError",
    match="length n",
    **_E,
)
case(
    "err_kde_weights_2d",
    kde("fields", weighted=True),
    _D1,
    np.ones((5, 1), np.float32),
    error="ValueError",
    match="one-dimensional",
    **_E,
)
case(
    "err_kde_points",
    kde("evaluate"),
    _D2,
    np.ones((3, 3), np.float32),
    error="ValueError",
    match="points have dimension 3, dataset has dimension 2",
    **_E,
)
case(
    "err_kde_box_1d",
    kde("integrate_box_1d"),
    _D2,
    -1.0,
    1.0,
    error="ValueError",
    match="only handles 1D",
    **_E,
)
case(
    "err_kde_gauss_mean",
    kde("integrate_gaussian"),
    _D2,
    f32(0.5, 0.0, 1.0),
    np.eye(3, dtype=np.float32),
    error="ValueError",
    match="mean does not have dimension 2",
    **_E,
)
case(
    "err_kde_gauss_cov",
    kde("integrate_gaussian"),
    _D2,
    f32(0.5, 0.0),
    np.eye(3, dtype=np.float32),
    error="ValueError",
    match="covariance does not have dimension 2",
    **_E,
)
case(
    "err_kde_integrate_box",
    kde("integrate_box", 0.0, 1.0),
    _D1,
    error="NotImplementedError",
    match="integrate_box_1d",
    **_E,
)
case(
    "err_kde_set_bandwidth",
    kde("set_bandwidth"),
    _D1,
    error="NotImplementedError",
    match="bandwidth",
    **_E,
)


def kde_dims_mismatch(stats, jnp, random):
    return lambda d1, d2: stats.gaussian_kde(d1).integrate_kde(stats.gaussian_kde(d2))


case(
    "err_kde_integrate_kde",
    kde_dims_mismatch,
    _D1,
    _D2,
    error="ValueError",
    match="not the same dimensionality",
    **_E,
)
