"""Dot algorithms (``lax.DotAlgorithm``, ``lax.DotAlgorithmPreset``) as ``precision=`` against
results recorded from JAX 0.10.2 on CPU (``tests/golden/dot_algorithms.json``, written by
``tests/golden_gen/dot_algorithms_gen.py`` from ``tests/cases_dot_algorithms.py``; no JAX here).

Each case runs eagerly and under ``spmd.jit``: dtypes, weak types and shapes exact, integers
exact, floats within JAX's test tolerance of the result dtype; gradients the same way; jaxprs
exactly. Error cases raise JAX's exception class with a message naming the function, the
argument and the sizes.
"""

from __future__ import annotations

import numpy as np
from cases_dot_algorithms import CASES, JAXPR_CASES
from golden_compare import golden_family_tests, load_golden

import spmd
import spmd.numpy as jnp
from spmd import lax

GOLDEN = load_golden("dot_algorithms")
# Values, gradients, errors and jaxprs against the golden records (bound to test_* names so
# pytest collects them here).
FAMILY = golden_family_tests(CASES, GOLDEN, jnp, lax, JAXPR_CASES)
test_values, test_grad, test_errors = FAMILY.values, FAMILY.grad, FAMILY.errors
test_jaxpr, test_every_case_has_a_golden = FAMILY.jaxpr, FAMILY.every_case_has_a_golden


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
