"""Block-scaled products against JAX 0.10.2 (``tests/golden/scaled_dot.json``, written by
``tests/golden_gen/scaled_dot_gen.py`` from ``tests/cases_scaled_dot.py``; no JAX here):
``lax.scaled_dot``'s values eagerly and under jit, its jaxprs and its shape errors;
``nn.scaled_matmul`` / ``nn.scaled_dot_general``'s shape errors and their refusal on CPU.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from cases_scaled_dot import CASES, JAXPR_CASES
from golden_compare import golden_family_tests, load_golden

import spmd.numpy as jnp
from spmd import lax, nn

GOLDEN = load_golden("scaled_dot")
# Values, gradients, errors and jaxprs against the golden records (bound to test_* names so
# pytest collects them here).
FAMILY = golden_family_tests(CASES, GOLDEN, jnp, lax, JAXPR_CASES)
test_values, test_errors, test_jaxpr = FAMILY.values, FAMILY.errors, FAMILY.jaxpr
test_every_case_has_a_golden = FAMILY.every_case_has_a_golden


def test_configs():
    # As JAX 0.10.2 prints them.
    assert repr(nn.get_scaled_dot_general_config("mxfp8")) == (
        "BlockScaleConfig(mode='mxfp8', block_size=32, data_type=<class "
        "'ml_dtypes.float8_e4m3fn'>, scale_type=<class 'ml_dtypes.float8_e8m0fnu'>, "
        "global_scale=None, infer_only=False)"
    )
    c = nn.get_scaled_dot_general_config("nvfp4", jnp.array([0.5], np.float32))
    assert (c.mode, c.block_size, c.data_type, c.scale_type, c.infer_only) == (
        "nvfp4",
        16,
        ml_dtypes.float4_e2m1fn,
        ml_dtypes.float8_e4m3fn,
        False,
    )
    assert np.asarray(c.global_scale).tolist() == [0.5]


def test_scaled_dot_general_implementation_warns():
    x = jnp.ones((2, 3))
    with pytest.warns(DeprecationWarning, match="Backend selector, now ignored"):
        nn.scaled_dot_general(x, x.T, (((1,), (0,)), ((), ())), implementation="cudnn")


def test_docstring_examples():
    import doctest

    from spmd._src.lax import scaled_dot
    from spmd._src.nn import scaled_matmul

    for mod in (scaled_dot, scaled_matmul):
        result = doctest.testmod(mod, extraglobs={"jnp": jnp}, verbose=False)
        assert result.attempted > 0 and result.failed == 0, mod.__name__
