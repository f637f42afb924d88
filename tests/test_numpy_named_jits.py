"""jnp functions that are named jits (as in JAX 0.10) keep JAX's errors for bad input; their
printed jaxprs are checked in tests/cases_jaxpr.py."""

from __future__ import annotations

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp


def test_angle_rejects_a_list():
    with pytest.raises(TypeError, match="angle requires ndarray or scalar arguments"):
        jnp.angle([1.0, 2.0])


def test_diff_rejects_lists_and_bad_orders():
    with pytest.raises(TypeError, match="diff requires ndarray or scalar arguments"):
        jnp.diff([1.0, 2.0])
    with pytest.raises(TypeError, match="diff requires ndarray or scalar arguments"):
        jnp.diff(np.ones(3), prepend=[1.0])
    with pytest.raises(ValueError, match="order must be non-negative but got -1"):
        jnp.diff(np.ones(3), n=-1)
    with pytest.raises(ValueError, match="diff requires input that is at least one dimensional"):
        jnp.diff(np.float32(1))


def test_diff_under_jit_takes_traced_prepend():
    f = spmd.jit(lambda x, p: jnp.diff(x, prepend=p))
    np.testing.assert_array_equal(f(np.array([1.0, 4.0]), 0.5), [0.5, 3.0])
