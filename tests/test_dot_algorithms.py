"""Dot algorithms (``lax.DotAlgorithm``, ``lax.DotAlgorithmPreset``) as ``precision=`` against
results recorded from JAX 0.10.2 on CPU (``tests/golden/dot_algorithms.json``, written by
``tests/golden_gen/dot_algorithms_gen.py`` from ``tests/cases_dot_algorithms.py``; no JAX here).

Each case runs eagerly and under ``spmd.jit``: dtypes, weak types and shapes exact, integers
exact, floats within JAX's test tolerance of the result dtype; gradients the same way; jaxprs
exactly. Error cases raise JAX's exception class with a message naming the function, the
argument and the sizes.
"""

from __future__ import annotations

import builtins
import json
import re
from pathlib import Path

import numpy as np
import pytest
from cases_dot_algorithms import CASES, JAXPR_CASES
from cases_lax_more import flatten, weighted_sum
from golden_compare import to_spmd
from test_linalg_more import _check_leaf

import spmd
import spmd.errors
import spmd.numpy as jnp
from spmd import lax

GOLDEN = json.loads((Path(__file__).parent / "golden" / "dot_algorithms.json").read_text())["cases"]

# JAX's default test tolerances by dtype (relative and absolute).
TOL = {"float16": 1e-3, "bfloat16": 1e-2, "float32": 1e-6, "float64": 1e-15, "complex64": 1e-6}


def _compare(out, golden: dict, what: str) -> None:
    tree, leaves = flatten(out)
    assert tree == golden["tree"], f"{what}: structure {tree}, expected {golden['tree']}"
    assert len(leaves) == len(golden["leaves"])
    for i, (g, r) in enumerate(zip(leaves, golden["leaves"])):
        tol = TOL.get(r["dtype"], 0.0)
        _check_leaf(g, r, f"{what} leaf {i}", tol, tol)


def _args(case):
    return [to_spmd(a) for a in case.args]


def _modes(c):
    return ("eager", "jit") if c.jit else ("eager",)


@pytest.mark.parametrize(
    "case,mode",
    [pytest.param(c, m, id=f"{c.name}-{m}") for c in CASES if not c.error for m in _modes(c)],
)
def test_values(case, mode):
    fn = case.make(jnp, lax)
    golden = GOLDEN[case.name]
    out = (spmd.jit(fn) if mode == "jit" else fn)(*_args(case))
    _compare(out, golden.get(mode, golden["eager"]), "value")


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES if c.grad is not None])
def test_grad(case):
    fn = case.make(jnp, lax)
    g = spmd.grad(lambda *a: weighted_sum(jnp, fn(*a)), argnums=case.grad)
    _compare(tuple(g(*_args(case))), GOLDEN[case.name]["grad"], "gradient")


def _error_class(name: str) -> type:
    return getattr(builtins, name, None) or getattr(spmd.errors, name)


@pytest.mark.parametrize(
    "case,mode",
    [pytest.param(c, m, id=f"{c.name}-{m}") for c in CASES if c.error for m in _modes(c)],
)
def test_errors(case, mode):
    assert GOLDEN[case.name]["error"] == case.error  # what JAX raised
    fn = case.make(jnp, lax)
    if mode == "jit":
        fn = spmd.jit(fn)
    with pytest.raises(_error_class(case.error)) as info:
        fn(*_args(case))
    assert re.search(case.match, str(info.value)), str(info.value)


@pytest.mark.parametrize("name", JAXPR_CASES)
def test_jaxpr(name):
    case = next(c for c in CASES if c.name == name)
    got = str(spmd.make_jaxpr(case.make(jnp, lax))(*_args(case)))
    assert got == GOLDEN[name]["jaxpr"]


def test_every_case_has_a_golden():
    assert sorted(c.name for c in CASES) == sorted(GOLDEN)


def test_vmap_matches_loop():
    x = np.cos(np.arange(4 * 3 * 6, dtype=np.float32)).reshape(4, 3, 6)
    y = np.sin(np.arange(6 * 5, dtype=np.float32)).reshape(6, 5)
    fn = lambda a: lax.dot(a, y, precision="F16_F16_F16")  # noqa: E731
    want = np.stack([np.asarray(fn(x[i])) for i in range(4)])
    np.testing.assert_array_equal(np.asarray(spmd.vmap(fn)(x)), want)


def test_preset_api():
    p = lax.DotAlgorithmPreset.BF16_BF16_F32
    assert (repr(p), str(p)) == ("DotAlgorithmPreset.BF16_BF16_F32", "BF16_BF16_F32")
    assert p.supported_lhs_types == (jnp.bfloat16, np.float32)
    assert p.accumulation_type is np.float32
    assert p.supported_output_types(jnp.bfloat16, jnp.bfloat16) == (np.float32, jnp.bfloat16)
    assert p.supported_output_types(np.float32, np.float32) == (np.float32,)
    assert lax.DotAlgorithmPreset.DEFAULT.accumulation_type is None
    alg = lax.DotAlgorithm(np.float16, np.float16, np.float32)
    assert alg.num_primitive_operations == 1 and not alg.allow_imprecise_accumulation
    assert lax.PrecisionLike is not None and lax.DotDimensionNumbers is not None


def test_docstring_examples():
    import doctest

    from spmd._src.lax import dot_algorithms

    globs = {"jnp": jnp, "np": np}
    result = doctest.testmod(dot_algorithms, extraglobs=globs, verbose=False)
    assert result.attempted > 0 and result.failed == 0
