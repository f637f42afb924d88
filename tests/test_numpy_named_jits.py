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


def test_i0_gradient_is_zero_at_zero_and_the_bessel_slope_elsewhere():
    # JAX's values: d/dx i0 = i1, and 0 at x == 0 (abs has no slope there).
    g = spmd.grad(lambda x: jnp.i0(x).sum())(np.array([0.0, 1.0, -2.0], np.float32))
    np.testing.assert_allclose(g, [0.0, 0.5651591, -1.5906368], rtol=1e-6)


def test_nan_to_num_rejects_a_list():
    with pytest.raises(TypeError, match="nan_to_num requires ndarray or scalar arguments"):
        jnp.nan_to_num([1.0, np.nan])


def test_boolean_running_sums_and_products():
    # JAX's values: a running "or" and "and" for dtype=bool; ints for boolean input.
    b = np.array([False, True, False])
    i = np.array([2, 0, 3], np.int32)
    np.testing.assert_array_equal(jnp.cumsum(b, dtype=bool), [False, True, True])
    np.testing.assert_array_equal(jnp.cumprod(i, dtype=bool), [True, False, False])
    out = jnp.nancumsum(b)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [0, 1, 1])
    x = np.array([[1.0, np.nan], [np.nan, 4.0]], np.float32)
    np.testing.assert_array_equal(jnp.nancumprod(x, axis=0), [[1.0, 1.0], [1.0, 4.0]])
    np.testing.assert_array_equal(jnp.nancumprod(x, dtype=bool), [True, True, True, True])


def test_nancumsum_rejects_a_list_and_a_bad_axis():
    with pytest.raises(TypeError, match="nancumsum requires ndarray or scalar arguments"):
        jnp.nancumsum([1.0, np.nan])
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        jnp.nancumprod(np.ones((2, 2)), axis=2)


def test_nanvar_values_and_errors():
    x = np.array([[1.0, np.nan, 3.0], [2.0, 5.0, np.nan]], np.float32)
    # JAX's values: NaN where the count less ddof is not positive.
    np.testing.assert_allclose(jnp.nanvar(x, axis=1, ddof=1.5), [4.0, 9.0])
    np.testing.assert_allclose(jnp.nanvar(x, axis=1, ddof=2), [np.nan, np.nan])
    np.testing.assert_allclose(jnp.nanstd(x, axis=0), [0.5, 0.0, 0.0])
    with pytest.raises(TypeError, match="nanvar requires ndarray or scalar arguments"):
        jnp.nanvar([1.0, 2.0])
    with pytest.raises(ValueError, match="ddof and correction can't be provided simultaneously"):
        jnp.nanstd(x, ddof=1, correction=1)
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        jnp.nanvar(x, axis=2)


def test_sinc_derivatives_at_zero_are_the_maclaurin_terms():
    # JAX's values: sinc'(0) = 0 and sinc''(0) = -pi**2 / 3.
    assert float(spmd.grad(jnp.sinc)(0.0)) == 0.0
    np.testing.assert_allclose(spmd.grad(spmd.grad(jnp.sinc))(0.0), -3.2898684, rtol=1e-6)
    np.testing.assert_allclose(
        spmd.vmap(spmd.grad(jnp.sinc))(np.array([0.0, 1.5])), [0, 0.14147107]
    )


def test_heaviside_spacing_hypot_values():
    x = np.array([0.0, 1.5, -2.0, np.nan], np.float32)
    # JAX's values: NaN stays NaN in heaviside; float16 spacing steps toward +inf.
    np.testing.assert_array_equal(jnp.heaviside(x, 0.5), [0.5, 1.0, 0.0, np.nan])
    h = jnp.spacing(np.array([-1.0, 0.0], np.float16))
    np.testing.assert_array_equal(h, np.array([4.883e-04, 5.960e-08], np.float16))
    assert float(jnp.spacing(np.float32(0))) == np.float32(1.4012985e-45)
    assert float(jnp.hypot(np.inf, np.nan)) == np.inf
    with pytest.raises(ValueError, match="hypot is not defined for complex inputs"):
        jnp.hypot(np.ones(2, np.complex64), 1.0)
    with pytest.raises(TypeError, match="sinc requires ndarray or scalar arguments"):
        jnp.sinc([0.0])


def test_floor_divide_gcd_lcm_values_and_errors():
    # JAX's values: x // 0 is +-inf (NaN for 0 // 0); integer // 0 follows XLA (-1, step down).
    np.testing.assert_array_equal(
        jnp.floor_divide(np.array([1.0, -1.0, 0.0], np.float32), 0.0), [np.inf, -np.inf, np.nan]
    )
    np.testing.assert_array_equal(jnp.floor_divide(np.array([5, -5, 0], np.int32), 0), [-2, -2, -1])
    a = np.array([12, -18, 0, 7], np.int32)
    b = np.array([0, -18, 12, 21], np.int32)
    np.testing.assert_array_equal(jnp.gcd(a, b), [12, 18, 12, 7])
    np.testing.assert_array_equal(jnp.lcm(a, b), [0, 18, 0, 21])
    np.testing.assert_array_equal(spmd.vmap(jnp.gcd)(a, b), [12, 18, 12, 7])
    with pytest.raises(ValueError, match="Arguments to jax.numpy.gcd must be integers"):
        jnp.gcd(1.0, 2)
    with pytest.raises(ValueError, match="Arguments to jax.numpy.lcm must be integers"):
        jnp.lcm(np.ones(2, np.float32), 2)
    with pytest.raises(TypeError, match="floor_divide does not support complex"):
        jnp.floor_divide(np.ones(2, np.complex64), 2)


def test_ldexp_frexp_values_and_errors():
    x = np.array([0.0, 1.5, -2.0, np.inf], np.float32)
    # JAX's values; the mantissa's tangent is dx * 2**-exponent.
    np.testing.assert_array_equal(
        jnp.ldexp(x, np.array([1, -2, 200, 3])), [0, 0.375, -np.inf, np.inf]
    )
    m, e = jnp.frexp(x[:3])
    np.testing.assert_array_equal(m, [0.0, 0.75, -0.5])
    np.testing.assert_array_equal(e, [0, 1, 2])
    _, t = spmd.jvp(lambda y: jnp.frexp(y)[0], (x[:3],), (np.ones(3, np.float32),))
    np.testing.assert_array_equal(t, [1.0, 0.5, 0.25])
    np.testing.assert_array_equal(spmd.grad(lambda y: jnp.ldexp(y, 3).sum())(x[:3]), [1, 8, 8])
    with pytest.raises(ValueError, match="ldexp not supported for input types"):
        jnp.ldexp(1.0, 2.0)
    with pytest.raises(TypeError, match="frexp does not support complex"):
        jnp.frexp(np.ones(2, np.complex64))
