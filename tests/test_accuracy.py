"""The ``accuracy=`` parameter of the transcendental lax functions against JAX 0.10.2
(``tests/golden/accuracy.json``, written by ``tests/golden_gen/accuracy_gen.py`` from
``tests/cases_accuracy.py``; no JAX here): values eagerly and under jit, gradients and jaxprs
as ``tests/test_dot_algorithms.py`` compares them; bad accuracies raise JAX's exception class.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from cases_accuracy import CASES, JAXPR_CASES, X
from cases_lax_more import weighted_sum
from golden_compare import to_spmd
from test_dot_algorithms import _compare, _error_class

import spmd
import spmd.numpy as jnp
from spmd import lax

GOLDEN = json.loads((Path(__file__).parent / "golden" / "accuracy.json").read_text())["cases"]


def _args(case):
    return [to_spmd(a) for a in case.args]


@pytest.mark.parametrize(
    "case,mode",
    [
        pytest.param(c, m, id=f"{c.name}-{m}")
        for c in CASES
        if not c.error
        for m in ("eager", "jit")
    ],
)
def test_values(case, mode):
    fn = case.make(jnp, lax)
    golden = GOLDEN[case.name]
    out = (spmd.jit(fn) if mode == "jit" else fn)(*_args(case))
    _compare(out, golden.get(mode, golden["eager"]), "value")


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES if c.grad])
def test_grad(case):
    fn = case.make(jnp, lax)
    g = spmd.grad(lambda *a: weighted_sum(jnp, fn(*a)), argnums=case.grad)
    _compare(tuple(g(*_args(case))), GOLDEN[case.name]["grad"], "gradient")


@pytest.mark.parametrize(
    "case,mode",
    [pytest.param(c, m, id=f"{c.name}-{m}") for c in CASES if c.error for m in ("eager", "jit")],
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


def test_tolerance_jaxpr():
    # JAX prints the Tolerance object (jax._src.lax.lax.Tolerance object at 0xXXXXXXXXXXXX).
    tol = lax.Tolerance(atol=1e-3, rtol=1e-3)
    got = str(spmd.make_jaxpr(lambda x: lax.exp(x, accuracy=tol))(X))
    assert "exp[\n      accuracy=<spmd._src.lax.accuracy.Tolerance object at 0xXXXXXXXXXXXX>" in got
    assert (tol.atol, tol.rtol, tol.ulps) == (1e-3, 1e-3, 0)


def test_no_accuracy_binds_the_plain_primitive():
    # Calls without an accuracy keep the primitive whose kernel is a NumPy ufunc.
    jaxpr = spmd.make_jaxpr(lambda x: lax.exp(x))(X).jaxpr
    assert jaxpr.eqns[0].primitive is lax.exp_p and not jaxpr.eqns[0].params


def test_every_case_has_a_golden():
    assert sorted(c.name for c in CASES) == sorted(GOLDEN)


def test_docstring_examples():
    import doctest

    from spmd._src.lax import accuracy

    result = doctest.testmod(accuracy, extraglobs={"jnp": jnp, "np": np}, verbose=False)
    assert result.attempted > 0 and result.failed == 0
