"""spmd.scipy.stats against results recorded from JAX 0.10 (``tests/golden/scipy_stats.json``,
written by ``tests/golden_gen/scipy_stats_gen.py`` from the cases of
``tests/cases_scipy_stats.py``; JAX is not needed here).

Each case runs eagerly and, where recorded, under ``spmd.jit``: dtypes, weak types and shapes
must be exact, integers exact, floats within the case's tolerance; gradients of the summed
output likewise. Error cases raise the builtin class JAX raises, with a message naming the
function and the sizes. ``vmap`` is checked against a loop over examples, and the public
names against JAX's.
"""

from __future__ import annotations

import builtins
import json
from pathlib import Path

import numpy as np
import pytest
from cases_numpy import flatten
from cases_scipy_stats import CASES
from golden_compare import compare, to_spmd

import spmd
import spmd.numpy as jnp
import spmd.scipy.stats as stats

GOLDEN = json.loads((Path(__file__).parent / "golden" / "scipy_stats.json").read_text())["cases"]


def _args(case):
    return [to_spmd(a) for a in case.args]


def _fn(case):
    return case.make(stats, jnp, spmd.random)


def _assert_matches(case, out, want, mode):
    tree, leaves = flatten(out)
    errs = compare(want, tree, leaves, case.tol)
    assert not errs, f"{case.name} ({mode}):\n  " + "\n  ".join(errs)


def _loss(fn):
    return lambda *a: jnp.sum(fn(*a))


def _finite_difference_check(case, fn, args):
    """spmd's gradient against central differences in float64, where JAX's own gradient
    raises a TypeError (a JAX bug), so no golden gradient exists."""
    grads = spmd.grad(_loss(fn), argnums=case.grad)(*args)
    for i, g in zip(case.grad, grads, strict=True):
        base = np.asarray(args[i], np.float64)
        num = np.zeros_like(base)
        for j in np.ndindex(base.shape):
            h = 1e-3 * max(1.0, abs(float(base[j])))
            up, down = base.copy(), base.copy()
            up[j] += h
            down[j] -= h

            def at(v, i=i):
                a = list(args)
                a[i] = jnp.asarray(v.astype(np.float32))
                return float(np.sum(np.asarray(fn(*a), np.float64)))

            num[j] = (at(up) - at(down)) / (2 * h)
        np.testing.assert_allclose(np.asarray(g), num, rtol=2e-2, atol=2e-3, err_msg=case.name)


def _check(case):
    golden = GOLDEN[case.name]
    fn, args = _fn(case), _args(case)
    if "error" in golden:
        cls = getattr(builtins, golden["error"])
        with pytest.raises(cls, match=case.match):
            fn(*args)
        return
    _assert_matches(case, fn(*args), golden["eager"], "eager")
    if case.jit:
        want = golden["eager"] if case.jit_as_eager else golden.get("jit", golden["eager"])
        _assert_matches(case, spmd.jit(fn)(*args), want, "jit")
    if "grad" in golden:
        grads = spmd.grad(_loss(fn), argnums=case.grad)(*args)
        _assert_matches(case, tuple(grads), golden["grad"], "grad")
    elif golden.get("grad_error") == "ValueError":
        with pytest.raises(ValueError):
            spmd.grad(_loss(fn), argnums=case.grad)(*args)
    elif golden.get("grad_error") == "TypeError":
        _finite_difference_check(case, fn, args)


def _params(x64: bool):
    return [pytest.param(c, id=c.name) for c in CASES if c.x64 == x64]


@pytest.mark.parametrize("case", _params(False))
def test_golden(case):
    _check(case)


@pytest.mark.parametrize("case", _params(True))
def test_golden_x64(case, x64):
    _check(case)


def test_goldens_match_cases():
    names = {c.name for c in CASES}
    assert names == set(GOLDEN), sorted(names ^ set(GOLDEN))


def test_error_cases_have_messages():
    # Every error case names what spmd's message must say (function and sizes).
    for c in CASES:
        if c.error is not None:
            assert c.match, c.name
            assert GOLDEN[c.name]["error"] == c.error, c.name


# jax.scipy.stats 0.10.2: its modules and their functions, and its top-level functions.
JAX_MODULES = {
    "bernoulli": "cdf logpmf pmf ppf",
    "beta": "cdf logcdf logpdf logsf pdf sf",
    "betabinom": "logpmf pmf",
    "binom": "logpmf pmf",
    "cauchy": "cdf isf logcdf logpdf logsf pdf ppf sf",
    "chi2": "cdf logcdf logpdf logsf pdf sf",
    "dirichlet": "logpdf pdf",
    "expon": "cdf logcdf logpdf logsf pdf ppf sf",
    "gamma": "cdf logcdf logpdf logsf pdf sf",
    "gennorm": "cdf logpdf pdf",
    "geom": "logpmf pmf",
    "gumbel_l": "cdf logcdf logpdf logsf pdf ppf sf",
    "gumbel_r": "cdf logcdf logpdf logsf pdf ppf sf",
    "laplace": "cdf logpdf pdf",
    "logistic": "cdf isf logpdf pdf ppf sf",
    "multinomial": "logpmf pmf",
    "multivariate_normal": "logpdf pdf",
    "nbinom": "logpmf pmf",
    "norm": "cdf isf logcdf logpdf logsf pdf ppf sf",
    "pareto": "cdf logcdf logpdf logsf pdf ppf sf",
    "poisson": "cdf entropy logpmf pmf",
    "t": "logpdf pdf",
    "truncnorm": "cdf logcdf logpdf logsf pdf sf",
    "uniform": "cdf logpdf pdf ppf",
    "vonmises": "logpdf pdf",
    "wrapcauchy": "logpdf pdf",
}
JAX_FUNCTIONS = ("gaussian_kde", "mode", "rankdata", "sem")


def test_public_names():
    public = {n for n in dir(stats) if not n.startswith("_")}
    assert public == set(JAX_MODULES) | set(JAX_FUNCTIONS)
    for mod, names in JAX_MODULES.items():
        m = getattr(stats, mod)
        got = {n for n in dir(m) if not n.startswith("_")}
        assert got == set(names.split()), (mod, sorted(got ^ set(names.split())))


def test_every_function_has_a_golden_case():
    for mod, names in JAX_MODULES.items():
        for n in names.split():
            assert any(c.name.startswith(f"{mod}.{n}") for c in CASES), f"{mod}.{n}"


# vmap against a loop over the examples.
_VMAP = [
    (
        "norm.logpdf",
        (
            np.linspace(-2, 2, 4, dtype=np.float32),
            np.float32(0.5),
            np.float32([1.0, 2.0, 0.5, 3.0]),
        ),
    ),
    ("gamma.cdf", (np.float32([0.5, 1.0, 2.0]), np.float32([1.0, 2.5, 4.0]))),
    ("beta.logpdf", (np.float32([0.2, 0.5, 0.9]), np.float32([2.0, 0.5, 1.0]), np.float32(3.0))),
    ("poisson.logpmf", (np.float32([0.0, 2.0, 5.0]), np.float32([1.0, 2.5, 4.0]))),
    ("truncnorm.logcdf", (np.float32([0.0, 0.5, 1.5]), np.float32(-1.0), np.float32(2.0))),
    ("poisson.entropy", (np.float32([0.5, 20.0, 200.0]),)),
    (
        "multivariate_normal.logpdf",
        (
            np.float32([[0.0, 1.0], [1.0, 2.0], [-1.0, 0.5]]),
            np.float32([[0.5, 0.5], [0.0, 0.0], [1.0, -1.0]]),
            np.stack([np.eye(2), 2 * np.eye(2), [[2, 0.5], [0.5, 1]]]).astype(np.float32),
        ),
    ),
    (
        "dirichlet.logpdf",
        (
            np.float32([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]]),
            np.float32([[1.5, 2.0, 3.0], [1.0, 1.0, 2.0]]),
        ),
    ),
    ("sem", (np.float32([[1.0, 2.0, 4.0], [0.0, 3.0, 3.0]]),)),
    ("rankdata", (np.float32([[3.0, 1.0, 1.0], [0.0, 2.0, 1.0]]),)),
]


@pytest.mark.parametrize("path,args", _VMAP, ids=[p for p, _ in _VMAP])
def test_vmap_matches_loop(path, args):
    fn = stats
    for part in path.split("."):
        fn = getattr(fn, part)
    batched = [i for i, a in enumerate(args) if np.ndim(a) > 0]
    n = np.shape(args[batched[0]])[0]
    in_axes = tuple(0 if i in batched else None for i in range(len(args)))
    out = spmd.vmap(fn, in_axes=in_axes)(*[jnp.asarray(a) for a in args])
    loop = [
        fn(*[jnp.asarray(a[k] if i in batched else a) for i, a in enumerate(args)])
        for k in range(n)
    ]
    np.testing.assert_allclose(
        np.asarray(out), np.stack([np.asarray(x) for x in loop]), rtol=1e-6, atol=1e-6
    )


def test_mode_vmap_and_kde_pytree():
    a = jnp.asarray(np.array([[3, 1, 1, 2], [2, 2, 0, 0]], np.int32))
    m, c = spmd.vmap(stats.mode)(a)
    assert np.asarray(m).tolist() == [1, 0] and np.asarray(c).tolist() == [2, 2]
    # gaussian_kde is a pytree: it goes through jit as an argument, with its fields as leaves.
    k = stats.gaussian_kde(jnp.asarray(np.float32([0.1, 0.5, 1.2, 2.0, -0.3])))
    assert len(spmd.tree_util.tree_leaves(k)) == 5
    got = spmd.jit(lambda kk, x: kk.logpdf(x))(k, jnp.asarray(np.float32([0.0, 1.0])))
    np.testing.assert_allclose(
        np.asarray(got), np.asarray(k.logpdf(np.float32([0.0, 1.0]))), rtol=1e-6
    )
