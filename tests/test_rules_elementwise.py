"""Transformation rules of the elementwise primitives (spmd/_src/lax/elementwise/).

- vmap against a per-slice Python loop (``np.stack``), with batch dimensions other than 0,
  unbatched operands, rank-0 operands and size-1 broadcasting;
- jvp and vjp against central finite differences in float64 (jvp: ``J t``; vjp: the identity
  ``<c, J t> = <J^T c, t>`` for random ``t`` and ``c``), so every transpose rule is exercised;
- gradient conventions read from JAX 0.10 (ties of max/min, abs at 0, pow at 0, rem, clamp at
  its bounds, the slopes at singular points).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd._src.lax import elementwise as lax_elem

# Every test here runs with 64-bit types on (the fixture is in conftest.py).
pytestmark = pytest.mark.usefixtures("x64")


def rng(seed=0):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------------------------------------
# Helpers


def _slice(x, axis, i):
    return x if axis is None else np.take(x, i, axis=axis)


def check_vmap(f, args, in_axes, out_axes=0):
    """vmap(f, in_axes) against stacking f over the slices."""
    size = next(np.shape(a)[d] for a, d in zip(args, in_axes) if d is not None)
    got = spmd.vmap(f, in_axes=in_axes, out_axes=out_axes)(*args)
    slices = [f(*[_slice(a, d, i) for a, d in zip(args, in_axes)]) for i in range(size)]
    if isinstance(got, (tuple, list)):
        for k, g in enumerate(got):
            want = np.stack([np.asarray(s[k]) for s in slices], axis=out_axes)
            np.testing.assert_array_equal(np.asarray(g), want)
    else:
        want = np.stack([np.asarray(s) for s in slices], axis=out_axes)
        assert np.asarray(got).dtype == want.dtype
        np.testing.assert_array_equal(np.asarray(got), want)


def _fd(f, args, ts, eps=1e-6):
    plus = f(*[a + eps * t for a, t in zip(args, ts)])
    minus = f(*[a - eps * t for a, t in zip(args, ts)])
    return (np.asarray(plus) - np.asarray(minus)) / (2 * eps)


def _direction(a, r):
    a = np.asarray(a)
    t = r.standard_normal(a.shape)
    if np.iscomplexobj(a):
        t = t + 1j * r.standard_normal(a.shape)
    return t.astype(a.dtype)


def check_grads(f, args, rtol=1e-6, atol=1e-7, seed=0):
    """jvp and vjp of ``f`` (float64 arguments) against central differences."""
    r = rng(seed)
    args = [np.asarray(a) for a in args]
    ts = [_direction(a, r) for a in args]
    num = _fd(f, args, ts)
    _, tangent = spmd.jvp(f, tuple(args), tuple(ts))
    np.testing.assert_allclose(np.asarray(tangent), num, rtol=rtol, atol=atol)
    out, pullback = spmd.vjp(f, *args)
    c = _direction(out, r)
    cts = pullback(c)
    lhs = np.sum(np.conj(c) * num).real if np.iscomplexobj(c) else np.sum(c * num)
    rhs = sum(np.sum(np.asarray(g) * t) for g, t in zip(cts, ts))
    np.testing.assert_allclose(rhs, lhs, rtol=rtol, atol=atol)


def grads(f, *args):
    argnums = tuple(range(len(args)))
    return [float(g) for g in spmd.grad(f, argnums=argnums)(*map(float, args))]


# ---------------------------------------------------------------------------------------------
# Unary primitives: (function, input generator)

_pos = lambda s, r: r.uniform(0.5, 2.0, s)  # noqa: E731
_any = lambda s, r: r.uniform(-2.0, 2.0, s)  # noqa: E731
_unit = lambda s, r: r.uniform(-0.9, 0.9, s)  # noqa: E731
_away = lambda s, r: r.uniform(0.3, 2.0, s) * r.choice([-1, 1], s)  # noqa: E731

DIFFERENTIABLE_UNARY = {
    "neg": (lax.neg, _any),
    "abs": (lax.abs, _away),
    "square": (lax.square, _any),
    "integer_pow3": (lambda x: lax.integer_pow(x, 3), _any),
    "integer_pow-2": (lambda x: lax.integer_pow(x, -2), _away),
    "exp": (lax.exp, _any),
    "exp2": (lax.exp2, _any),
    "log": (lax.log, _pos),
    "log1p": (lax.log1p, _unit),
    "expm1": (lax.expm1, _any),
    "tanh": (lax.tanh, _any),
    "logistic": (lax.logistic, _any),
    "sin": (lax.sin, _any),
    "cos": (lax.cos, _any),
    "tan": (lax.tan, _unit),
    "asin": (lax.asin, _unit),
    "acos": (lax.acos, _unit),
    "atan": (lax.atan, _any),
    "sinh": (lax.sinh, _any),
    "cosh": (lax.cosh, _any),
    "asinh": (lax.asinh, _any),
    "acosh": (lax.acosh, lambda s, r: r.uniform(1.2, 3.0, s)),
    "atanh": (lax.atanh, _unit),
    "sqrt": (lax.sqrt, _pos),
    "rsqrt": (lax.rsqrt, _pos),
    "cbrt": (lax.cbrt, _away),
    "erf": (lax.erf, _any),
    "erfc": (lax.erfc, _any),
    "erf_inv": (lax.erf_inv, _unit),
    "lgamma": (lax.lgamma, lambda s, r: r.uniform(0.5, 4.0, s)),
    "digamma": (lax.digamma, lambda s, r: r.uniform(0.5, 4.0, s)),
    "bessel_i0e": (lax.bessel_i0e, _away),
    "bessel_i1e": (lax.bessel_i1e, _away),
    "polygamma2": (lambda x: lax.polygamma(np.float64(2), x), _pos),
    "reduce_precision": (lambda x: lax.reduce_precision(x, 11, 52), _any),
    "copy": (lambda x: lax_elem.copy_p.bind(x), _any),
}

ZERO_JVP_UNARY = {
    "sign": lax.sign,
    "floor": lax.floor,
    "ceil": lax.ceil,
    "round": lax.round,
    "stop_gradient": lax.stop_gradient,
}


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE_UNARY))
def test_unary_grads(name):
    f, gen = DIFFERENTIABLE_UNARY[name]
    # Looser for erf_inv: its kernel is accurate to a few ulps, which differences amplify.
    rtol = 1e-5 if name == "erf_inv" else 1e-6
    check_grads(f, [gen((2, 3), rng(1))], rtol=rtol)


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE_UNARY) + sorted(ZERO_JVP_UNARY))
@pytest.mark.parametrize("axis", [0, 1])
def test_unary_vmap(name, axis):
    f = ZERO_JVP_UNARY.get(name) or DIFFERENTIABLE_UNARY[name][0]
    gen = DIFFERENTIABLE_UNARY[name][1] if name in DIFFERENTIABLE_UNARY else _any
    check_vmap(f, [gen((3, 4), rng(2))], (axis,))


@pytest.mark.parametrize("name", sorted(ZERO_JVP_UNARY))
def test_zero_jvp(name):
    f = ZERO_JVP_UNARY[name]
    x = np.array([0.3, -1.7, 2.5])
    _, t = spmd.jvp(f, (x,), (np.ones(3),))
    np.testing.assert_array_equal(np.asarray(t), np.zeros(3))
    np.testing.assert_array_equal(np.asarray(spmd.grad(lambda x: f(x).sum())(x)), np.zeros(3))


@pytest.mark.parametrize(
    "f",
    [lax.is_finite, lax.bitwise_not, lax.population_count, lax.clz],
    ids=["is_finite", "not", "population_count", "clz"],
)
def test_unary_nondifferentiable_vmap(f):
    x = np.array([[1, -2, 7, 0], [3, 5, -8, 2], [9, 0, 4, -1]], np.int32)
    if f is lax.is_finite:
        x = np.array([[1.0, np.inf, np.nan], [0.0, -np.inf, 2.0]])
    check_vmap(f, [x], (1,))
    check_vmap(f, [x], (0,))


def test_complex_parts_grads():
    # Real inputs and outputs around complex values: exercises complex, real, imag and conj
    # (and their transposes) without choosing a convention for complex cotangents.
    w = np.array([0.5 - 1.0j, 2.0 + 0.3j, -1.0 + 1.0j])

    def f(a, b):
        z = lax.complex(a, b)
        return lax.real(lax.conj(z) * w) + 2.0 * lax.imag(z * w) + lax.abs(z)

    check_grads(f, [_any((3,), rng(3)), _any((3,), rng(4))])
    # conj of a real input (its output is complex).
    check_grads(lambda a: lax.imag(lax.conj(a) * w), [_any((3,), rng(5))])


def test_complex_jvp():
    z = _any((4,), rng(6)) + 1j * _any((4,), rng(7))
    for f in (lax.exp, lax.sin, lax.log, lax.sqrt, lax.conj, lax.square):
        r = rng(8)
        t = _direction(z, r)
        _, got = spmd.jvp(f, (z,), (t,))
        np.testing.assert_allclose(np.asarray(got), _fd(f, [z], [t]), rtol=1e-6, atol=1e-7)
    check_vmap(lax.real, [z.reshape(2, 2)], (1,))
    check_vmap(lax.conj, [z.reshape(2, 2)], (1,))


# ---------------------------------------------------------------------------------------------
# Binary primitives

_rem_x = lambda s, r: r.uniform(0.1, 0.9, s) + r.integers(-3, 3, s)  # noqa: E731

DIFFERENTIABLE_BINARY = {
    "add": (lax.add, _any, _any),
    "sub": (lax.sub, _any, _any),
    "mul": (lax.mul, _any, _any),
    "div": (lax.div, _any, _away),
    "rem": (lax.rem, _rem_x, lambda s, r: np.ones(s)),
    "pow": (lax.pow, _pos, _any),
    "max": (lax.max, _any, _any),
    "min": (lax.min, _any, _any),
    "atan2": (lax.atan2, _any, _any),
}


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE_BINARY))
@pytest.mark.parametrize("shapes", [((2, 3), (2, 3)), ((), (2, 3)), ((2, 3), ()), ((2, 1), (1, 3))])
def test_binary_grads(name, shapes):
    f, gx, gy = DIFFERENTIABLE_BINARY[name]
    x, y = gx(shapes[0], rng(9)), gy(shapes[1], rng(10))
    if name == "rem":
        y = y * 1.3  # x / y stays away from integers
    check_grads(f, [x, y])


def test_rem_with_large_divisor():
    check_grads(lax.rem, [np.array([0.7, -2.9, 5.2]), np.array([2.0, -1.5, 1.7])])


def test_pow_integer_exponent_grads():
    x = _away((2, 3), rng(11))
    for y in (np.array(3, np.int32), np.array([[0, 1, 2], [-1, 2, 3]], np.int32)):
        check_grads(lambda x, y=y: lax.pow(x, y), [x])


def test_mul_div_transpose_one_operand_linear():
    # Only one operand is differentiated: the transpose sees the other as a constant.
    x, y = _any((2, 3), rng(12)), _away((3,), rng(13)).reshape(1, 3)
    check_grads(lambda x: lax.mul(x, y), [x])
    check_grads(lambda y: lax.mul(x, y), [y])
    check_grads(lambda x: lax.div(x, y), [x])
    check_grads(lambda y: lax.div(x, y), [y])
    check_grads(lambda x: lax.div(x, 4.0), [x])


BINARY_ALL = dict(
    {k: v[0] for k, v in DIFFERENTIABLE_BINARY.items()},
    nextafter=lax.nextafter,
    complex=lax.complex,
    eq=lax.eq,
    ne=lax.ne,
    lt=lax.lt,
    le=lax.le,
    gt=lax.gt,
    ge=lax.ge,
)


BINARY_VMAP_CASES = {
    "same": ((3, 4), (3, 4), (0, 0)),
    "dims 0,1": ((3, 4), (4, 3), (0, 1)),
    "unbatched y": ((4, 3), (4,), (1, None)),
    "batched scalars y": ((4,), (3,), (None, 0)),
    "batched scalars x": ((3,), (3, 4), (0, 0)),
    "size-1 x": ((5, 1), (4,), (0, None)),
    "size-1 both": ((3, 4, 1), (4, 1, 5), (1, 0)),
}


@pytest.mark.parametrize("name", sorted(BINARY_ALL))
@pytest.mark.parametrize("case", sorted(BINARY_VMAP_CASES))
def test_binary_vmap(name, case):
    f = BINARY_ALL[name]
    sx, sy, (ax, ay) = BINARY_VMAP_CASES[case]
    r = rng(14)
    x, y = np.abs(_away(sx, r)), _away(sy, r)
    check_vmap(f, [x, y], (ax, ay))
    check_vmap(f, [y, x], (ay, ax))


def test_binary_vmap_unbatched_scalar():
    r = rng(15)
    x = _away((3, 4), r)
    for f in (lax.add, lax.mul, lax.max, lax.pow, lax.atan2, lax.lt):
        check_vmap(lambda a, f=f: f(a, 2.5), [np.abs(x)], (1,))
        check_vmap(lambda a, f=f: f(np.float64(2.5), a), [np.abs(x)], (0,))


@pytest.mark.parametrize(
    "f",
    [
        lax.bitwise_and,
        lax.bitwise_or,
        lax.bitwise_xor,
        lax.shift_left,
        lax.shift_right_logical,
        lax.shift_right_arithmetic,
    ],
)
def test_integer_binary_vmap(f):
    r = rng(16)
    x = r.integers(-50, 50, (3, 4)).astype(np.int32)
    y = r.integers(0, 5, (4, 3)).astype(np.int32)
    check_vmap(f, [x, y], (0, 1))
    check_vmap(f, [x, y[0]], (1, None))
    check_vmap(f, [x, np.int32(2)], (0, None))


def test_nondifferentiable_binary_jvps_are_zero():
    x, y = np.array([1.0, 2.0]), np.array([3.0, 0.5])
    for f in (lax.nextafter, lax.lt, lax.eq):
        _, t = spmd.jvp(f, (x, y), (np.ones(2), np.ones(2)))
        t = np.asarray(t)
        assert t.dtype == spmd.dtypes.float0 or not np.any(t)


# ---------------------------------------------------------------------------------------------
# select_n, clamp, conversions


def test_select_n_grads():
    r = rng(17)
    pred = np.array([[True, False, True], [False, False, True]])
    a, b = _any((2, 3), r), _any((2, 3), r)
    check_grads(lambda a, b: lax.select_n(pred, a, b), [a, b])
    check_grads(lambda a: lax.select_n(pred, a, b), [a])
    check_grads(lambda b: lax.select_n(np.bool_(True), a, b), [b])
    which = np.array([[0, 1, 2], [2, 1, 0]], np.int32)
    check_grads(lambda a, b, c: lax.select_n(which, a, b, c), [a, b, _any((2, 3), r)])
    g = spmd.grad(lambda a, b: lax.select_n(pred, a, b).sum(), argnums=(0, 1))(a, b)
    np.testing.assert_array_equal(np.asarray(g[0]), (~pred).astype(float))
    np.testing.assert_array_equal(np.asarray(g[1]), pred.astype(float))


def test_select_n_vmap():
    r = rng(18)
    a, b = _any((3, 4), r), _any((4, 3), r)
    pred = r.random((3, 4)) > 0.5
    check_vmap(lax.select_n, [pred, a, b], (0, 0, 1))
    check_vmap(lax.select_n, [pred, a, b[:, 0]], (0, 0, None))
    check_vmap(lax.select_n, [pred[:, 0], a, b.T], (0, 0, 0))  # batched scalar predicate
    check_vmap(lambda a, b: lax.select_n(np.bool_(True), a, b), [a, b], (1, 0))
    check_vmap(lax.select_n, [pred[0], a, b], (None, 0, 1))  # unbatched array predicate
    check_vmap(lax.select_n, [pred, a[0], b[:, 0]], (0, None, None))  # only the predicate
    check_vmap(lax.select_n, [pred[:, 0], a[0], b[:, 0]], (0, None, None))
    which = r.integers(0, 3, (3,)).astype(np.int32)
    check_vmap(lax.select_n, [which, a, b.T, a[:, 0]], (None, 1, 1, None))


def test_clamp_grads_and_vmap():
    r = rng(19)
    x = r.uniform(-3, 3, (2, 5))
    lo, hi = r.uniform(-2, -0.5, (2, 5)), r.uniform(0.5, 2, (2, 5))
    check_grads(lax.clamp, [lo, x, hi])
    check_grads(lambda x: lax.clamp(-1.0, x, 1.0), [x])
    check_grads(lambda lo, x: lax.clamp(lo, x, 1.5), [np.array(-0.7), x])
    check_vmap(lax.clamp, [lo, x.T, hi], (0, 1, 0))
    check_vmap(lax.clamp, [lo[:, 0], x, hi[0]], (None, 1, 0))  # batched scalar bound
    check_vmap(lambda x: lax.clamp(-1.0, x, 1.0), [x], (1,))
    check_vmap(lax.clamp, [np.float64(-1.0), x[0], hi], (None, None, 0))


def test_convert_element_type_rules():
    x = _any((2, 3), rng(20))
    check_grads(lambda x: lax.convert_element_type(x, np.complex128).real, [x])
    check_grads(lambda x: lax.convert_element_type(x * (1 + 2j), np.float64), [x])
    # float32 in between: the derivative is still 1 (up to float32 rounding of the primal).
    g = spmd.grad(lambda x: lax.convert_element_type(x, np.float32).sum())(x)
    assert np.asarray(g).dtype == np.float64
    np.testing.assert_array_equal(np.asarray(g), np.ones((2, 3)))
    # To an integer type: no tangent (float0), and zero gradient.
    _, t = spmd.jvp(lambda x: lax.convert_element_type(x, np.int32), (x,), (x,))
    assert np.asarray(t).dtype == spmd.dtypes.float0
    g = spmd.grad(
        lambda x: lax.convert_element_type(lax.convert_element_type(x, np.int32), x.dtype).sum()
    )(x)
    np.testing.assert_array_equal(np.asarray(g), np.zeros((2, 3)))
    check_vmap(lambda x: lax.convert_element_type(x, np.int32), [x * 3], (1,))


def test_bitcast_convert_type_vmap():
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    check_vmap(lambda x: lax.bitcast_convert_type(x, np.float32), [x], (1,))
    check_vmap(lambda x: lax.bitcast_convert_type(x, np.int8), [x], (1,))
    y = np.arange(24, dtype=np.int8).reshape(3, 2, 4)
    check_vmap(lambda y: lax.bitcast_convert_type(y, np.int32), [y], (0,))
    check_vmap(lambda y: lax.bitcast_convert_type(y, np.int32), [y], (1,))
    check_vmap(lambda y: lax.bitcast_convert_type(y, np.int32), [np.moveaxis(y, 0, 2).copy()], (2,))
    _, t = spmd.jvp(lambda f: lax.bitcast_convert_type(f, np.int64), (1.5,), (1.0,))
    assert np.asarray(t).dtype == spmd.dtypes.float0


def test_bitcast_convert_type_of_a_scalar_stays_a_scalar():
    # Same-size conversion of a rank-0 operand is rank 0 (eagerly, under jit, and through
    # jnp.signbit, which is built on it); a wider source adds one dimension.
    for run in (lambda f, x: f(x), lambda f, x: spmd.jit(f)(x)):
        out = run(lambda x: lax.bitcast_convert_type(x, np.int32), np.float32(-1.0))
        assert np.shape(out) == () and int(out) == np.float32(-1.0).view(np.int32)
        assert np.shape(run(lambda x: lax.bitcast_convert_type(x, np.int16), np.float32(1))) == (2,)
        assert np.shape(run(jnp.signbit, np.float32(-1.0))) == ()
        assert bool(run(jnp.signbit, np.float32(-0.0)))


# ---------------------------------------------------------------------------------------------
# stop_gradient


def test_stop_gradient():
    assert float(spmd.grad(lambda x: x * lax.stop_gradient(x))(3.0)) == 3.0
    tree = {"a": np.float64(2.0), "b": (np.ones(2), np.int32(3))}
    out = lax.stop_gradient(tree)
    assert set(out) == {"a", "b"} and np.asarray(out["b"][1]).dtype == np.int32
    # spmd.lax re-exports it, as jax.lax does.
    assert spmd.lax.stop_gradient is lax_elem.stop_gradient


def test_stop_gradient_jaxpr():
    # As JAX 0.10 prints it (x64 on), for floats and ints alike.
    assert str(spmd.make_jaxpr(lax.stop_gradient)(1.0)) == (
        "{ lambda ; a:f64[]. let b:f64[] = stop_gradient a in (b,) }"
    )
    assert str(spmd.make_jaxpr(lax.stop_gradient)(1)) == (
        "{ lambda ; a:i64[]. let b:i64[] = stop_gradient a in (b,) }"
    )


# ---------------------------------------------------------------------------------------------
# Conventions read from JAX 0.10 (x64 on)


def test_abs_slope_at_zero():
    assert grads(lax.abs, 0.0) == [1.0]
    assert grads(lax.abs, -0.0) == [1.0]
    assert grads(lax.abs, -2.0) == [-1.0]


def test_max_min_ties_split_the_slope():
    assert grads(lax.max, 1.0, 1.0) == [0.5, 0.5]
    assert grads(lax.min, 1.0, 1.0) == [0.5, 0.5]
    assert grads(lax.max, 2.0, 1.0) == [1.0, 0.0]
    assert grads(lax.max, math.nan, 1.0) == [0.0, 0.0]


# x, y, d/dx, d/dy of lax.pow, from JAX (NaN compares equal here).
POW_AT_ZERO = [
    (0.0, 0.0, math.nan, 0.0),
    (0.0, 1.0, 1.0, 0.0),
    (0.0, 2.0, 0.0, 0.0),
    (0.0, 0.5, math.inf, 0.0),
    (0.0, -1.0, -math.inf, math.nan),
    (-2.0, 0.0, -0.0, math.nan),
    (-2.0, 3.0, 12.0, math.nan),
    (2.0, -1.0, -0.25, 0.34657359027997264),
]


@pytest.mark.parametrize("x,y,dx,dy", POW_AT_ZERO)
def test_pow_conventions(x, y, dx, dy):
    np.testing.assert_allclose(grads(lax.pow, x, y), [dx, dy], rtol=1e-15)


def test_integer_exponents_at_zero():
    g = lambda f, x: float(spmd.grad(f)(x))  # noqa: E731
    assert [g(lambda x, y=y: lax.integer_pow(x, y), 0.0) for y in (0, 1, 2, 3, -1)] == [
        0.0,
        1.0,
        0.0,
        0.0,
        -math.inf,
    ]
    assert g(lambda x: lax.pow(x, np.int32(0)), 0.0) == 0.0
    assert g(lambda x: lax.pow(x, np.int32(2)), 0.0) == 0.0
    assert g(lambda x: lax.pow(x, np.int32(3)), 2.0) == 12.0


def test_singular_slopes():
    assert grads(lax.sqrt, 0.0) == [math.inf]
    assert grads(lax.rsqrt, 0.0) == [-math.inf]
    assert grads(lax.cbrt, 0.0) == [math.inf]
    assert all(math.isnan(v) for v in grads(lax.atan2, 0.0, 0.0))
    assert grads(lax.logistic, 0.0) == [0.25]


def test_rem_slopes():
    assert grads(lax.rem, 7.5, 2.0) == [1.0, -3.0]
    assert grads(lax.rem, -7.5, 2.0) == [1.0, 3.0]


@pytest.mark.parametrize(
    "lo,x,hi,want",
    [
        (0.0, 0.0, 1.0, [0.0, 0.0, 0.0]),
        (0.0, 1.0, 1.0, [0.0, 0.0, 0.0]),
        (0.0, 0.5, 1.0, [0.0, 1.0, 0.0]),
        (0.0, 2.0, 1.0, [0.0, 0.0, 1.0]),
        (0.0, -2.0, 1.0, [1.0, 0.0, 0.0]),
    ],
)
def test_clamp_conventions(lo, x, hi, want):
    assert grads(lax.clamp, lo, x, hi) == want


def test_max_jvp_jaxpr_matches_jax():
    # The tie-splitting formula, as JAX 0.10 emits it (x64 off).
    spmd.config.update("jax_enable_x64", False)
    x = jnp.ones((3,), jnp.float32)
    y = jnp.ones((), jnp.float32)
    jvp_max = lambda x, y, tx, ty: spmd.jvp(lax.max, (x, y), (tx, ty))[1]  # noqa: E731
    assert str(spmd.make_jaxpr(jvp_max)(x, y, x, y)) == (
        "{ lambda ; a:f32[3] b:f32[] c:f32[3] d:f32[]. let\n"
        "    e:f32[3] = max a b\n"
        "    f:bool[3] = eq a e\n"
        "    g:f32[3] = broadcast_in_dim 1.0:f32[]\n"
        "    h:f32[3] = broadcast_in_dim 0.0:f32[]\n"
        "    i:f32[3] = select_n f h g\n"
        "    j:bool[3] = eq b e\n"
        "    k:f32[3] = broadcast_in_dim 2.0:f32[]\n"
        "    l:f32[3] = broadcast_in_dim 1.0:f32[]\n"
        "    m:f32[3] = select_n j l k\n"
        "    n:f32[3] = div i m\n"
        "    o:f32[3] = mul c n\n"
        "    p:bool[3] = eq b e\n"
        "    q:f32[3] = broadcast_in_dim 1.0:f32[]\n"
        "    r:f32[3] = broadcast_in_dim 0.0:f32[]\n"
        "    s:f32[3] = select_n p r q\n"
        "    t:bool[3] = eq a e\n"
        "    u:f32[3] = broadcast_in_dim 2.0:f32[]\n"
        "    v:f32[3] = broadcast_in_dim 1.0:f32[]\n"
        "    w:f32[3] = select_n t v u\n"
        "    x:f32[3] = div s w\n"
        "    y:f32[3] = mul d x\n"
        "    z:f32[3] = add_any o y\n"
        "  in (z,) }"
    )
    got_abs = spmd.make_jaxpr(lambda x, t: spmd.jvp(lax.abs, (x,), (t,))[1])(x, x)
    assert str(got_abs) == (
        "{ lambda ; a:f32[3] b:f32[3]. let\n"
        "    _:f32[3] = abs a\n"
        "    c:bool[3] = ge a 0.0:f32[]\n"
        "    d:f32[3] = neg b\n"
        "    e:f32[3] = select_n c d b\n"
        "  in (e,) }"
    )


def test_special_function_slopes():
    # From JAX 0.10 (x64 on).
    assert grads(lax.bessel_i1e, 0.0) == [0.5]
    assert grads(lax.bessel_i0e, 0.0) == [0.0]
    np.testing.assert_allclose(grads(lax.bessel_i1e, 0.3), [0.2706111957432461], rtol=1e-14)
    np.testing.assert_allclose(grads(lax.bessel_i0e, -0.7), [0.374635543744321], rtol=1e-14)
    np.testing.assert_allclose(grads(lax.digamma, 2.5), [0.4903577561002349], rtol=1e-14)
    g = grads(lambda x: lax.polygamma(np.float64(2), x), 0.3)
    np.testing.assert_allclose(g, [743.14176465505], rtol=1e-13)
    with pytest.raises(ValueError, match="polygamma"):
        spmd.grad(lambda m: lax.polygamma(m, np.float64(1.0)))(1.0)


def test_polygamma_and_i1e_values():
    # From JAX 0.10 (x64 on): poles, negative arguments, non-integer orders, large arguments.
    x = np.array([-2.5, -1.0, -0.5, 0.0, 0.1, 2.5, 100.0, np.inf])
    want = {
        1.0: [9.53924664, np.inf, 8.9348022, np.inf, 101.433299, 0.490357756, 0.0100501667, np.nan],
        2.0: [-0.108204052, np.nan, -0.828796644, np.nan, -2001.86146, -0.236204052,
              -1.01005e-04, np.nan],
        0.5: [np.nan] * 8,
    }  # fmt: skip
    for m, w in want.items():
        np.testing.assert_allclose(np.asarray(lax.polygamma(np.full_like(x, m), x)), w, rtol=1e-8)
    got = lax.polygamma(np.array([1.0, 4.0, 10.0, 25.0]), np.array([3.7, 0.2, -3.3, 40.0]))
    want = [3.10037858e-01, -7.50102125e04, 2.04828489e12, 7.41788841e-17]
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-8)
    x = np.array([-2.5, 0.0, 0.5, 29.9, 30.0, 100.0, 1e5, np.inf])
    want = [-0.20658464953126654, 0.0, 0.15642080318487173, 0.0720333749118688, 0.07191633059864755,
            0.03974415302513025, 0.00126156153012182, 0.0]  # fmt: skip
    np.testing.assert_allclose(np.asarray(lax.bessel_i1e(x)), want, rtol=1e-8)


def test_polygamma_vmap():
    r = rng(21)
    m = r.integers(0, 4, (3, 4)).astype(np.float64)
    x = r.uniform(0.5, 4.0, (4, 3))
    check_vmap(lax.polygamma, [m, x], (0, 1))
    check_vmap(lax.polygamma, [np.float64(1), x], (None, 1))


def test_second_order():
    # d2/dx2 of x**3 and of max(x, y)*x (through jvp of the jvp rules).
    x = 1.5
    assert float(spmd.grad(spmd.grad(lambda x: lax.integer_pow(x, 3)))(x)) == pytest.approx(9.0)
    assert float(spmd.grad(spmd.grad(lambda x: lax.pow(x, 2.5)))(x)) == pytest.approx(
        2.5 * 1.5 * x**0.5
    )
    assert float(spmd.grad(spmd.grad(lax.tanh))(0.3)) == pytest.approx(
        -2 * math.tanh(0.3) * (1 - math.tanh(0.3) ** 2)
    )
