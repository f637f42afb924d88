"""The ``accuracy=`` parameter of the transcendental lax functions against JAX 0.10.2
(``tests/golden/accuracy.json``, written by ``tests/golden_gen/accuracy_gen.py`` from
``tests/cases_accuracy.py``; no JAX here): values eagerly and under jit, gradients and jaxprs
as ``tests/test_dot_algorithms.py`` compares them; bad accuracies raise JAX's exception class.
"""

from __future__ import annotations

import numpy as np
from cases_accuracy import CASES, JAXPR_CASES, X
from golden_compare import golden_family_tests, load_golden

import spmd
import spmd.numpy as jnp
from spmd import lax

GOLDEN = load_golden("accuracy")
# Values, gradients, errors and jaxprs against the golden records (bound to test_* names so
# pytest collects them here).
FAMILY = golden_family_tests(CASES, GOLDEN, jnp, lax, JAXPR_CASES)
test_values, test_grad, test_errors = FAMILY.values, FAMILY.grad, FAMILY.errors
test_jaxpr, test_every_case_has_a_golden = FAMILY.jaxpr, FAMILY.every_case_has_a_golden


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


def test_docstring_examples():
    import doctest

    from spmd._src.lax import accuracy

    result = doctest.testmod(accuracy, extraglobs={"jnp": jnp, "np": np}, verbose=False)
    assert result.attempted > 0 and result.failed == 0
