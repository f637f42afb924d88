"""Top-level API that JAX 0.10 has beyond the grad family's core: linear_transpose,
custom_gradient, closure_convert, and the small utilities added with them.

Expected values and messages were produced by JAX 0.10.2 (/work/jaxenv/bin/python) running the
same expressions with ``import jax, jax.numpy as jnp``; each is hard-coded next to its test.
"""

from __future__ import annotations

import collections
import dataclasses
import re

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp


def _check(got, want, dtype, weak=None):
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    if weak is not None:
        assert got.weak_type == weak


# ---------------------------------------------------------------------------------------------
# linear_transpose


def test_linear_transpose_pytree_outputs():
    # jax.linear_transpose(lambda x, y: (x*2.0 + y, jnp.sum(x)), jnp.ones(3), jnp.ones(3))(
    #     (jnp.arange(3.0), 5.0)) -> ([5., 7., 9.], [0., 1., 2.]) float32
    f_t = spmd.linear_transpose(lambda x, y: (x * 2.0 + y, jnp.sum(x)), jnp.ones(3), jnp.ones(3))
    a, b = f_t((jnp.arange(3.0), 5.0))
    _check(a, [5.0, 7.0, 9.0], np.float32)
    _check(b, [0.0, 1.0, 2.0], np.float32)


def test_linear_transpose_weak_types_follow_the_cotangent():
    # jax: (lambda x: x*3, 1.0)(2.0) -> 6. weak; (x*2, 1.0)(jnp.float32(2)) -> 4. strong;
    # (x*2, jnp.float32(1.0))(3.0) -> 6. strong
    (a,) = spmd.linear_transpose(lambda x: x * 3, 1.0)(2.0)
    _check(a, 6.0, np.float32, weak=True)
    (b,) = spmd.linear_transpose(lambda x: x * 2, 1.0)(jnp.float32(2))
    _check(b, 4.0, np.float32, weak=False)
    (c,) = spmd.linear_transpose(lambda x: x * 2, jnp.float32(1.0))(3.0)
    _check(c, 6.0, np.float32, weak=False)


def test_linear_transpose_unused_input_gets_zeros_of_its_type():
    # jax: (lambda x, y: x*2, 1.0, 2.0)(3.0) -> (6. weak, 0. weak);
    # (lambda x: jnp.zeros(3), 1.0)(jnp.ones(3)) -> (0. weak,)
    a, b = spmd.linear_transpose(lambda x, y: x * 2, 1.0, 2.0)(3.0)
    _check(a, 6.0, np.float32, weak=True)
    _check(b, 0.0, np.float32, weak=True)
    (c,) = spmd.linear_transpose(lambda x: jnp.zeros(3), 1.0)(jnp.ones(3))
    _check(c, 0.0, np.float32, weak=True)


def test_linear_transpose_identity_returns_the_cotangent():
    # jax: (lambda x: x, 1.0)(2.0) -> (2.0,), the Python float itself
    assert spmd.linear_transpose(lambda x: x, 1.0)(2.0) == (2.0,)


def test_linear_transpose_other_types_and_structures():
    # jax: ShapeDtypeStruct((2,), f32) for x*2 at ones(2) -> [2., 2.]; complex64 x*(1+2j) at
    # ones(2) -> [1+2j, 1+2j] (no conjugate); float16 x*2.0 -> [2,2,2] f16; dict -> {'a': 6.}
    sds = spmd.ShapeDtypeStruct((2,), jnp.float32)
    (a,) = spmd.linear_transpose(lambda x: x * 2, sds)(jnp.ones(2))
    _check(a, [2.0, 2.0], np.float32)
    c64 = jnp.ones(2, jnp.complex64)
    (b,) = spmd.linear_transpose(lambda x: x * (1 + 2j), c64)(c64)
    _check(b, [1 + 2j, 1 + 2j], np.complex64)
    f16 = jnp.ones(3, jnp.float16)
    (c,) = spmd.linear_transpose(lambda x: x * 2.0, f16)(f16)
    _check(c, [2.0, 2.0, 2.0], np.float16)
    (d,) = spmd.linear_transpose(lambda d: {"a": d["a"] * 2}, {"a": 1.0})({"a": 3.0})
    _check(d["a"], 6.0, np.float32, weak=True)


def test_linear_transpose_matmul_slices_and_fanout():
    # jax: dot(ones((2,3)), x) at ones(3), ct arange(2.) -> [1,1,1]; x[::2].sum() at ones(5),
    # ct 1.0 -> [1,0,1,0,1]; (x, x) at 1.0, ct (1.0, 2.0) -> 3.
    (a,) = spmd.linear_transpose(lambda x: jnp.dot(jnp.ones((2, 3)), x), jnp.ones(3))(
        jnp.arange(2.0)
    )
    _check(a, [1.0, 1.0, 1.0], np.float32)
    (b,) = spmd.linear_transpose(lambda x: x[::2].sum(), jnp.ones(5))(1.0)
    _check(b, [1.0, 0.0, 1.0, 0.0, 1.0], np.float32)
    (c,) = spmd.linear_transpose(lambda x: (x, x), 1.0)((1.0, 2.0))
    _check(c, 3.0, np.float32)


def test_linear_transpose_closed_over_constants_and_affine_offsets():
    # jax: x * jnp.sin(2.0) at 1.0, ct 1.0 -> 0.9092974; x + 1.0 at 1.0, ct 1.0 -> 1.0 (the
    # offset is dropped)
    (a,) = spmd.linear_transpose(lambda x: x * jnp.sin(2.0), 1.0)(1.0)
    _check(a, 0.9092974, np.float32)
    (b,) = spmd.linear_transpose(lambda x: x + 1.0, 1.0)(1.0)
    np.testing.assert_allclose(np.asarray(b), 1.0)


def test_linear_transpose_integers():
    # jax: (lambda x: x, 1)(2) -> (2,); (lambda x: x, arange(3))(arange(3)) -> ([0,1,2] int32)
    assert spmd.linear_transpose(lambda x: x, 1)(2) == (2,)
    (a,) = spmd.linear_transpose(lambda x: x, jnp.arange(3))(jnp.arange(3))
    _check(a, [0, 1, 2], np.int32)


def test_linear_transpose_under_jit_vmap_and_grad():
    # jax: jit(T(x*2, 1.0))(3.0) -> (6. weak,); vmap(T(x*2, 1.0))(arange(3.)) -> ([0,2,4],);
    # grad(lambda c: T(lambda x: x*2*c, 1.0)(3.0)[0])(1.0) -> 6.0
    f_t = spmd.linear_transpose(lambda x: x * 2, 1.0)
    (a,) = spmd.jit(f_t)(3.0)
    _check(a, 6.0, np.float32, weak=True)
    (b,) = spmd.vmap(f_t)(jnp.arange(3.0))
    _check(b, [0.0, 2.0, 4.0], np.float32)
    g = spmd.grad(lambda c: spmd.linear_transpose(lambda x: x * 2 * c, 1.0)(3.0)[0])(1.0)
    np.testing.assert_allclose(np.asarray(g), 6.0)


def test_linear_transpose_inside_jit_with_traced_constant():
    # The scale is a tracer of the enclosing jit: a constant of the transpose, not an input.
    out = spmd.jit(lambda c: spmd.linear_transpose(lambda x: x * c, jnp.ones(2))(jnp.ones(2)))(3.0)
    _check(out[0], [3.0, 3.0], np.float32)


@pytest.mark.parametrize(
    "fun, primal, ct, want",
    [
        # jax.linear_transpose(fun, primal)(ct) for each row (values from JAX 0.10.2)
        (lambda x: spmd.jit(lambda y: y * 2)(x), 1.0, 3.0, 6.0),
        (lambda x: jnp.cumsum(x), np.ones(3, np.float32), np.arange(3.0), [3.0, 3.0, 2.0]),
        (
            lambda x: spmd.lax.scan(lambda c, a: (c + a, c * 2), 0.0, x)[1],
            np.ones(3, np.float32),
            np.arange(3.0),
            [6.0, 4.0, 0.0],
        ),
        (lambda x: spmd.lax.cond(True, lambda v: v * 2, lambda v: v * 3, x), 1.0, 1.0, 2.0),
        (lambda x: spmd.lax.fori_loop(0, 3, lambda i, v: v * 2, x), 1.0, 1.0, 8.0),
        (lambda x: jnp.fft.fft(x).real, np.ones(4, np.float32), np.arange(4.0), [6, -2, -2, -2]),
        (lambda x: jnp.concatenate([x, -x]), np.ones(2, np.float32), np.arange(4.0), [-2, -2]),
        (lambda x: x[jnp.array([0, 0, 1])], np.ones(2, np.float32), np.arange(3.0), [1, 2]),
        (lambda x: jnp.zeros(3).at[1].set(x), 1.0, np.arange(3.0), 1.0),
        (spmd.checkpoint(lambda x: x * 2.0), 1.0, 1.0, 2.0),
        (lambda x: spmd.vmap(lambda y: y * 2.0)(x), np.ones(3, np.float32), np.arange(3.0),
         [0, 2, 4]),
    ],
    ids=["jit", "cumsum", "scan", "cond", "fori", "fft", "concat", "gather", "scatter", "remat",
         "vmap"],
)  # fmt: skip
def test_linear_transpose_through_higher_order_primitives(fun, primal, ct, want):
    ct = np.asarray(ct, np.float32) if np.ndim(ct) else ct
    (got,) = spmd.linear_transpose(fun, primal)(ct)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)


def test_linear_transpose_vmapped_over_a_constant():
    # jax: vmap(lambda c: T(lambda x: x * c, 1.0)(1.0)[0])(arange(3.)) -> [0, 1, 2]
    out = spmd.vmap(lambda c: spmd.linear_transpose(lambda x: x * c, 1.0)(1.0)[0])(jnp.arange(3.0))
    _check(out, [0.0, 1.0, 2.0], np.float32)


def test_linear_transpose_is_a_pytree_partial():
    f_t = spmd.linear_transpose(lambda x: x * 2, jnp.ones(3))
    assert isinstance(f_t, spmd.tree_util.Partial)


def test_linear_transpose_rejects_mixed_dtypes():
    # jax message, TypeError
    with pytest.raises(
        TypeError,
        match=re.escape(
            "linear_transpose only supports [float or complex] -> [float or complex], and "
            "integer -> integer functions, but got [dtype('int32')] -> [dtype('float32')]."
        ),
    ):
        spmd.linear_transpose(lambda x: x.astype(jnp.float32), jnp.arange(3))
    with pytest.raises(TypeError, match=re.escape("[dtype('float32'), dtype('int32')]")):
        spmd.linear_transpose(lambda x, i: x * i, 1.0, 2)


def test_linear_transpose_rejects_reduce_axes():
    with pytest.raises(
        NotImplementedError, match="reduce_axes argument to transpose is deprecated"
    ):
        spmd.linear_transpose(lambda x: x * 2, 1.0, reduce_axes=("i",))


def test_linear_transpose_nonlinear_product():
    # jax raises AssertionError (when the transpose is called) for x * x
    f_t = spmd.linear_transpose(lambda x: x * x, 1.0)
    with pytest.raises(AssertionError, match="not linear"):
        f_t(1.0)


def test_linear_transpose_nonlinear_primitive():
    # jax: NotImplementedError "Transpose rule (for reverse-mode differentiation) for 'sin' not
    # implemented"
    f_t = spmd.linear_transpose(jnp.sin, 1.0)
    with pytest.raises(NotImplementedError, match="Transpose rule.*'sin'"):
        f_t(1.0)


@pytest.mark.parametrize(
    "ct",
    [
        np.ones(4, np.float32),
        np.ones(3, np.int32),
        np.ones(3, np.float16),
        1.0,
    ],
    ids=["shape", "int", "f16", "scalar"],
)
def test_linear_transpose_wrong_cotangent_type(ct):
    # jax: TypeError "cotangent type does not match function output, expected
    # (ShapedArray(float32[3]),) but got [...]"
    f_t = spmd.linear_transpose(lambda x: x * 2, jnp.ones(3))
    msg = "cotangent type does not match function output, expected (ShapedArray(float32[3]),)"
    with pytest.raises(TypeError, match=re.escape(msg)):
        f_t(ct)


def test_linear_transpose_wrong_cotangent_tree():
    # jax: TypeError "cotangent tree does not match function output, expected PyTreeDef(*) but
    # got PyTreeDef((*,))"
    f_t = spmd.linear_transpose(lambda x: x * 2, jnp.ones(3))
    msg = "cotangent tree does not match function output, expected PyTreeDef(*) but got "
    with pytest.raises(TypeError, match=re.escape(msg + "PyTreeDef((*,))")):
        f_t((jnp.ones(3),))
    with pytest.raises(TypeError, match=re.escape(msg + "PyTreeDef(None)")):
        f_t(None)


def test_linear_transpose_int_cotangent_for_weak_float():
    # jax: (lambda x: x, 1.0)(2) -> TypeError, expected (ShapedArray(float32[], weak_type=True),)
    msg = "expected (ShapedArray(float32[], weak_type=True),) but got [2]"
    with pytest.raises(TypeError, match=re.escape(msg)):
        spmd.linear_transpose(lambda x: x, 1.0)(2)


def test_linear_transpose_wrong_number_of_arguments():
    f_t = spmd.linear_transpose(lambda x: x, 1.0)
    with pytest.raises(TypeError, match="takes 2 positional arguments but 3 were given"):
        f_t(1.0, 2.0)


# ---------------------------------------------------------------------------------------------
# custom_gradient


@spmd.custom_gradient
def _square(x):
    return x**2, lambda g: (g * x,)


def test_custom_gradient_eager_and_grad():
    # jax: f(3.0) -> 9.0; grad(f)(3.0) -> 3.0; jit(grad(f))(3.0) -> 3.0;
    # vmap(grad(f))(arange(3.)) -> [0,1,2]
    assert float(_square(3.0)) == 9.0
    np.testing.assert_allclose(np.asarray(spmd.grad(_square)(3.0)), 3.0)
    np.testing.assert_allclose(np.asarray(spmd.jit(spmd.grad(_square))(3.0)), 3.0)
    out = spmd.vmap(spmd.grad(_square))(jnp.arange(3.0))
    _check(out, [0.0, 1.0, 2.0], np.float32)


def test_custom_gradient_two_arguments_and_bare_cotangent():
    # jax: g = x*y with vjp (ct*y*10, ct*x*100): grad(argnums=(0,1))(2.,3.) -> (30., 200.);
    # sin with vjp returning bare g*cos(x)*7: grad(1.0) -> 3.782116
    @spmd.custom_gradient
    def g(x, y):
        return x * y, lambda ct: (ct * y * 10, ct * x * 100)

    a, b = spmd.grad(g, argnums=(0, 1))(2.0, 3.0)
    _check(a, 30.0, np.float32)
    _check(b, 200.0, np.float32)

    @spmd.custom_gradient
    def h(x):
        return jnp.sin(x), lambda g: g * jnp.cos(x) * 7

    np.testing.assert_allclose(np.asarray(spmd.grad(h)(1.0)), 3.782116, rtol=1e-6)


def test_custom_gradient_pytree_and_second_order():
    # jax: grad of d['a']*d['b'] with vjp ({'a': 2g, 'b': 3g},) -> {'a': 2., 'b': 3.};
    # grad(grad(k))(1.0) for k = exp with vjp g*exp(x) -> 2.7182817
    @spmd.custom_gradient
    def p(d):
        return d["a"] * d["b"], lambda g: ({"a": g * 2.0, "b": g * 3.0},)

    out = spmd.grad(p)({"a": 1.0, "b": 2.0})
    _check(out["a"], 2.0, np.float32)
    _check(out["b"], 3.0, np.float32)

    @spmd.custom_gradient
    def k(x):
        y = jnp.exp(x)
        return y, lambda g: (g * y,)

    np.testing.assert_allclose(np.asarray(spmd.grad(spmd.grad(k))(1.0)), 2.7182817, rtol=1e-6)


def test_custom_gradient_keyword_argument():
    @spmd.custom_gradient
    def f(x, scale=3.0):
        return x * scale, lambda g: (g * 5.0,)

    # jax: grad(f)(2.0) -> 5.0; grad(f)(2.0, scale=3.0) -> TypeError (custom_vjp cannot take
    # a keyword argument)
    np.testing.assert_allclose(np.asarray(spmd.grad(f)(2.0)), 5.0)
    np.testing.assert_allclose(np.asarray(f(2.0)), 6.0)
    with pytest.raises(TypeError, match="scale"):
        spmd.grad(f)(2.0, scale=3.0)


def test_custom_gradient_jaxprs_print_as_jax():
    # jax.make_jaxpr(f)(3.0) and jax.make_jaxpr(jax.grad(f))(3.0) for f = _square
    want = """\
{ lambda ; a:f32[]. let
    b:f32[] = custom_vjp_call[
      name=wrapped_fun
      bwd=bwd
      call_jaxpr={ lambda ; c:f32[]. let d:f32[] = integer_pow[y=2] c in (d,) }
      fwd=fwd
      symbolic_zeros=False
    ] a
  in (b,) }"""
    assert str(spmd.make_jaxpr(_square)(3.0)) == want
    want_grad = """\
{ lambda ; a:f32[]. let
    _:f32[] = integer_pow[y=2] a
    b:f32[] = mul 1.0:f32[] a
  in (b,) }"""
    assert str(spmd.make_jaxpr(spmd.grad(_square))(3.0)) == want_grad


def test_custom_gradient_forward_mode_raises():
    # jax: TypeError "can't apply forward-mode autodiff (jvp) to a custom_vjp function."
    with pytest.raises(TypeError, match=re.escape("can't apply forward-mode autodiff (jvp)")):
        spmd.jvp(_square, (3.0,), (1.0,))


def test_custom_gradient_function_not_returning_a_pair():
    # jax: TypeError "cannot unpack non-iterable ..." (eagerly and under grad)
    @spmd.custom_gradient
    def bad(x):
        return x

    with pytest.raises(TypeError):
        bad(1.0)
    with pytest.raises(TypeError):
        spmd.grad(bad)(1.0)


# ---------------------------------------------------------------------------------------------
# closure_convert


def test_closure_convert_outside_transformations_hoists_nothing():
    # jax: closure_convert(lambda x: x*c + 1.0, ones(3)) with c = arange(3.) -> consts [],
    # g(ones(3)) -> [1,2,3]
    c = jnp.arange(3.0)
    g, consts = spmd.closure_convert(lambda x: x * c + 1.0, jnp.ones(3))
    assert consts == []
    _check(g(jnp.ones(3)), [1.0, 2.0, 3.0], np.float32)


def test_closure_convert_hoists_float_tracers_only():
    # jax: inside grad over a, h = x*a*c (c concrete) hoists [a] only; grad -> 3.0; under jit
    # -> 6.0; with an int array n closed over: h = x*a*n hoists [a]; grad -> 9.0
    c = jnp.arange(3.0)
    seen = []

    def outer(a):
        g, consts = spmd.closure_convert(lambda x: x * a * c, jnp.ones(3))
        seen.append(len(consts))
        return jnp.sum(g(jnp.ones(3), *consts))

    np.testing.assert_allclose(np.asarray(spmd.grad(outer)(2.0)), 3.0)
    np.testing.assert_allclose(np.asarray(spmd.jit(outer)(2.0)), 6.0)
    assert seen == [1, 1]

    def outer3(a):
        n = jnp.arange(3)
        g, consts = spmd.closure_convert(lambda x: x * a * n, 1.0)
        seen.append(len(consts))
        return jnp.sum(g(3.0, *consts))

    np.testing.assert_allclose(np.asarray(spmd.grad(outer3)(2.0)), 9.0)
    assert seen[-1] == 1


def test_closure_convert_with_custom_vjp():
    # The use closure_convert exists for: a custom_vjp whose function argument (nondiff) must
    # not close over values being differentiated; they are hoisted into differentiable args.
    # jax: grad(lambda a: solve(lambda x: x * a * a, 3.0))(2.0) -> 12.0
    import functools

    @functools.partial(spmd.custom_vjp, nondiff_argnums=(0,))
    def apply(f, x, *consts):
        return f(x, *consts)

    def fwd(f, x, *consts):
        return f(x, *consts), (x, consts)

    def bwd(f, res, g):
        x, consts = res
        _, f_vjp = spmd.vjp(f, x, *consts)
        return f_vjp(g)

    apply.defvjp(fwd, bwd)

    def solve(f, x):
        f_conv, consts = spmd.closure_convert(f, x)
        return apply(f_conv, x, *consts)

    out = spmd.grad(lambda a: solve(lambda x: x * a * a, 3.0))(2.0)
    np.testing.assert_allclose(np.asarray(out), 12.0)


def test_closure_convert_multiple_outputs_and_pytrees():
    # jax: (lambda x, y: (x+y, x*y), 1.0, ones(2)) at (2.0, ones(2)) -> ([3,3], [2,2]);
    # (lambda d: {'o': d['a']}, {'a': 1.0}) at {'a': 5.0} -> {'o': 5.0}, consts []
    g, _ = spmd.closure_convert(lambda x, y: (x + y, x * y), 1.0, jnp.ones(2))
    a, b = g(2.0, jnp.ones(2))
    _check(a, [3.0, 3.0], np.float32)
    _check(b, [2.0, 2.0], np.float32)
    g2, consts = spmd.closure_convert(lambda d: {"o": d["a"]}, {"a": 1.0})
    assert consts == [] and g2({"a": 5.0}) == {"o": 5.0}


def test_closure_convert_wrong_structure():
    # jax: TypeError, message below
    g, _ = spmd.closure_convert(lambda d: {"o": d["a"]}, {"a": 1.0})
    msg = (
        "The inputs to the closure produced by closure_convert must have the same Pytree "
        "structure as the example arguments passed when closure_convert was called. Expected "
        "PyTreeDef(({'a': *},)), but got PyTreeDef(({'a': *}, *))"
    )
    with pytest.raises(TypeError, match=re.escape(msg)):
        g({"a": 5.0}, 1.0)


# ---------------------------------------------------------------------------------------------
# pure_callback


def _sds(x):
    return spmd.ShapeDtypeStruct(x.shape, x.dtype)


def _recording_sin(calls):
    def cb(x):
        calls.append(np.shape(x))
        return np.sin(np.asarray(x)).astype(x.dtype)

    return cb


def test_pure_callback_eager_and_jit():
    # jax: pure_callback(sin, ...)(arange(3.)) -> [0, 0.841471, 0.9092974], eager and jitted
    calls = []
    f = lambda x: spmd.pure_callback(_recording_sin(calls), _sds(x), x)  # noqa: E731
    want = [0.0, 0.841471, 0.9092974]
    _check(f(jnp.arange(3.0)), want, np.float32)
    _check(spmd.jit(f)(jnp.arange(3.0)), want, np.float32)
    assert calls == [(3,), (3,)]


def test_pure_callback_receives_arrays_and_keywords():
    # jax: the callback gets jax Arrays; keyword arguments are passed through; results may be
    # a pytree -> {'a': [3, 3, 3]}
    seen = []

    def cb(x, y=0):
        seen.append(type(x))
        return {"a": x + y}

    out = spmd.pure_callback(
        cb, {"a": spmd.ShapeDtypeStruct((3,), jnp.float32)}, jnp.ones(3), y=np.float32(2)
    )
    _check(out["a"], [3.0, 3.0, 3.0], np.float32)
    assert len(seen) == 1 and issubclass(seen[0], spmd.Array)  # a concrete spmd Array


def test_pure_callback_python_scalar_results_are_canonicalized():
    # jax: a float64 or Python float result for a float32 result type is accepted -> 2.0, 2.5
    sd = spmd.ShapeDtypeStruct((), jnp.float32)
    _check(spmd.pure_callback(lambda x: np.float64(x * 2), sd, 1.0), 2.0, np.float32)
    _check(spmd.pure_callback(lambda x: 2.5, sd, 1.0), 2.5, np.float32)
    _check(spmd.pure_callback(lambda: np.float32(3), sd), 3.0, np.float32)


def test_pure_callback_jaxpr_prints_as_jax():
    # jax.make_jaxpr(lambda x: jax.pure_callback(cb, sds(x), x))(jnp.arange(3.))
    def cb(x):
        return x

    got = str(spmd.make_jaxpr(lambda x: spmd.pure_callback(cb, _sds(x), x))(jnp.arange(3.0)))
    want = """\
{ lambda ; a:f32[3]. let
    b:f32[3] = pure_callback[
      callback=_FlatCallback(callback_func=<function test_pure_callback_jaxpr_prints_as_jax.\
<locals>.cb at 0xXXXXXXXXXXXX>, in_tree=PyTreeDef(((*,), {})))
      result_avals=(ShapedArray(float32[3]),)
      sharding=None
      vmap_method=None
    ] a
  in (b,) }"""
    assert got == want


def test_pure_callback_unused_result_is_dropped_under_jit():
    # jax: jit(lambda x: (pure_callback(cb, ...), x)[1]) never calls cb
    calls = []
    cb = _recording_sin(calls)
    spmd.jit(lambda x: (spmd.pure_callback(cb, _sds(x), x), x)[1])(jnp.ones(3))
    assert calls == []


@pytest.mark.parametrize(
    "method, want_calls",
    [
        # jax: calls seen by cb2(x, y) under vmap over x (2, 3) with y = arange(3.) unbatched
        ("sequential", [((3,), (3,)), ((3,), (3,))]),
        ("sequential_unrolled", [((3,), (3,)), ((3,), (3,))]),
        ("expand_dims", [((2, 3), (1, 3))]),
        ("broadcast_all", [((2, 3), (2, 3))]),
        ("legacy_vectorized", [((2, 3), (3,))]),
    ],
)
def test_pure_callback_vmap_methods(method, want_calls):
    calls = []

    def cb2(x, y):
        calls.append((np.shape(x), np.shape(y)))
        return (np.asarray(x) + np.asarray(y)).astype(np.float32)

    sd = spmd.ShapeDtypeStruct((3,), jnp.float32)
    f = spmd.vmap(lambda x: spmd.pure_callback(cb2, sd, x, jnp.arange(3.0), vmap_method=method))
    out = f(jnp.ones((2, 3)))
    _check(out, [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], np.float32)
    assert calls == want_calls


def test_pure_callback_nested_vmap_and_in_axes():
    # jax: vmap(vmap(cb, sequential)) over (2, 3) -> 6 scalar calls; expand_dims -> one call
    # with (2, 3); jit(vmap(cb(a, b), in_axes=(0, None), expand_dims))(ones(3), 2.0) -> [3,3,3]
    calls = []
    cb = lambda x: (calls.append(np.shape(x)), np.asarray(x) * 2)[1]  # noqa: E731
    for method, want in [("sequential", [()] * 6), ("expand_dims", [(2, 3)])]:
        calls.clear()
        g = lambda x, m=method: spmd.pure_callback(cb, _sds(x), x, vmap_method=m)  # noqa: E731
        _check(spmd.vmap(spmd.vmap(g))(jnp.ones((2, 3))), np.full((2, 3), 2.0), np.float32)
        assert calls == want
    h = spmd.vmap(
        lambda x, y: spmd.pure_callback(
            lambda a, b: np.asarray(a) + np.asarray(b),
            spmd.ShapeDtypeStruct((), jnp.float32),
            x,
            y,
            vmap_method="expand_dims",
        ),
        in_axes=(0, None),
    )
    _check(spmd.jit(h)(jnp.ones(3), 2.0), [3.0, 3.0, 3.0], np.float32)


def test_pure_callback_in_control_flow():
    # jax (values and call shapes): scan under jit -> (6., [0, 0, 2]) with 3 scalar calls;
    # cond -> 4. (1 call); while_loop from 1. doubling below 10 -> 16. (4 calls); vmap of the
    # scan -> 6 scalar calls (sequential); vmap of cond with expand_dims -> [4, 3], one call (2,)
    calls = []

    def cb(x):
        calls.append(np.shape(x))
        return (np.asarray(x) * 2).astype(np.float32)

    sd = spmd.ShapeDtypeStruct((), jnp.float32)
    lax = spmd.lax

    def step(c, x):
        return c + spmd.pure_callback(cb, sd, x, vmap_method="sequential"), c

    c, ys = spmd.jit(lambda xs: lax.scan(step, 0.0, xs))(jnp.arange(3.0))
    _check(c, 6.0, np.float32)
    _check(ys, [0.0, 0.0, 2.0], np.float32)
    assert calls == [()] * 3
    calls.clear()
    branch = lambda v: spmd.pure_callback(cb, sd, v, vmap_method="expand_dims")  # noqa: E731
    out = spmd.jit(lambda p, x: lax.cond(p, branch, lambda v: v, x))(True, 2.0)
    _check(out, 4.0, np.float32)
    assert calls == [()]
    calls.clear()
    out = spmd.jit(lambda x: lax.while_loop(lambda v: v < 10, branch, x))(1.0)
    _check(out, 16.0, np.float32)
    assert calls == [()] * 4
    calls.clear()
    c, _ = spmd.vmap(lambda xs: lax.scan(step, 0.0, xs))(jnp.ones((2, 3)))
    _check(c, [6.0, 6.0], np.float32)
    assert calls == [()] * 6
    calls.clear()
    out = spmd.vmap(lambda p, x: lax.cond(p, branch, lambda v: v, x))(
        jnp.array([True, False]), jnp.array([2.0, 3.0])
    )
    _check(out, [4.0, 3.0], np.float32)
    assert calls == [(2,)]


def test_pure_callback_sequential_prints_a_scan():
    # jax: make_jaxpr(vmap(... vmap_method='sequential'))(ones((2, 3))) is a scan of length 2
    # over the callback with vmap_method=sequential
    f = spmd.vmap(lambda x: spmd.pure_callback(np.sin, _sds(x), x, vmap_method="sequential"))
    got = str(spmd.make_jaxpr(f)(jnp.ones((2, 3))))
    assert got.startswith("{ lambda ; a:f32[2,3]. let\n    b:f32[2,3] = scan[")
    assert "vmap_method=sequential" in got and "length=2" in got and "num_consts=0" in got


def test_pure_callback_under_pmap_runs_per_device():
    # jax (4 devices): pmap(cb)(arange(4.)) -> [0, 2, 4, 6], four scalar calls
    calls = []
    cb = lambda x: (calls.append(np.shape(x)), np.asarray(x) * 2)[1]  # noqa: E731
    n = min(spmd.device_count(), 4)
    out = spmd.pmap(lambda x: spmd.pure_callback(cb, _sds(x), x))(jnp.arange(float(n)))
    _check(out, 2.0 * np.arange(n), np.float32)
    assert calls == [()] * n


def test_pure_callback_vmap_without_method():
    # jax: NotImplementedError, message below
    f = spmd.vmap(lambda x: spmd.pure_callback(np.sin, _sds(x), x))
    msg = (
        "vmap is only supported for the pure_callback primitive when vmap_method is one of "
        "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
        "'legacy_vectorized'. Got vmap_method=None."
    )
    with pytest.raises(NotImplementedError, match=re.escape(msg)):
        f(jnp.ones((2, 3)))


def test_pure_callback_bad_vmap_method():
    # jax: ValueError (at the call, even outside vmap)
    msg = (
        "vmap_method must be on of the allowed methods ['sequential', 'sequential_unrolled', "
        "'expand_dims', 'broadcast_all', 'legacy_vectorized', None], but got: bogus"
    )
    with pytest.raises(ValueError, match=re.escape(msg)):
        spmd.pure_callback(np.sin, _sds(jnp.ones(3)), jnp.ones(3), vmap_method="bogus")


def test_pure_callback_differentiation_raises():
    # jax: ValueError for grad and jvp; no error when the callback's input is not differentiated
    # (grad(lambda x: pure_callback(a*2, (), 1.0) * x)(2.0) -> 2.0)
    msg = (
        "Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks while "
        "taking gradients."
    )
    f = lambda x: spmd.pure_callback(np.sin, _sds(x), x)  # noqa: E731
    with pytest.raises(ValueError, match=re.escape(msg)):
        spmd.grad(lambda x: f(x).sum())(jnp.ones(3))
    with pytest.raises(ValueError, match=re.escape(msg)):
        spmd.jvp(f, (jnp.ones(3),), (jnp.ones(3),))
    sd = spmd.ShapeDtypeStruct((), jnp.float32)
    g = spmd.grad(lambda x: spmd.pure_callback(lambda a: a * 2, sd, 1.0) * x)(2.0)
    np.testing.assert_allclose(np.asarray(g), 2.0)


@pytest.mark.parametrize(
    "ret, sd, msg",
    [
        # jax: JaxRuntimeError (a RuntimeError) with these messages
        (
            np.ones(4, np.float32),
            (3,),
            "Incorrect output shape for return value #0: Expected: (3,), Actual: (4,)",
        ),
        (
            np.ones(3, np.int32),
            (3,),
            "Incorrect output dtype for return value #0: Expected: float32, Actual: int32",
        ),
        (
            (np.ones(3, np.float32),) * 2,
            (3,),
            "Mismatched number of outputs from callback. Expected: 1, Actual: 2",
        ),
    ],
    ids=["shape", "dtype", "count"],
)
@pytest.mark.parametrize("jit", [False, True])
def test_pure_callback_wrong_results(ret, sd, msg, jit):
    f = lambda x: spmd.pure_callback(lambda x: ret, spmd.ShapeDtypeStruct(sd, x.dtype), x)  # noqa: E731
    f = spmd.jit(f) if jit else f
    with pytest.raises(spmd.errors.JaxRuntimeError, match=re.escape(msg)):
        f(jnp.ones(3))
    assert issubclass(spmd.errors.JaxRuntimeError, RuntimeError)


# ---------------------------------------------------------------------------------------------
# float0, names, ensure_compile_time_eval, default_matmul_precision, caches, errors


def test_float0_is_the_integer_tangent_dtype():
    # jax: jax.float0 == dtype([('float0', 'V')]); grad(allow_int) of an int argument has it
    assert spmd.float0 == np.dtype([("float0", "V")])
    g = spmd.grad(lambda x, i: x * i, argnums=1, allow_int=True)(1.0, 2)
    assert g.dtype == spmd.float0


def test_named_call_and_named_scope_change_nothing():
    # jax: named_call(f, name='foo')(1.0) -> 1.6829419 and make_jaxpr shows no name;
    # named_scope inside a function leaves its jaxpr as it is
    f = lambda x: jnp.sin(x) * 2  # noqa: E731
    g = spmd.named_call(f, name="foo")
    np.testing.assert_allclose(np.asarray(g(1.0)), 1.6829419, rtol=1e-6)
    want = "{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = mul b 2.0:f32[] in (c,) }"
    assert str(spmd.make_jaxpr(g)(1.0)) == want
    np.testing.assert_allclose(np.asarray(spmd.grad(g)(1.0)), 1.0806046, rtol=1e-6)

    def h(x):
        with spmd.named_scope("bar"):
            return jnp.cos(x)

    assert str(spmd.make_jaxpr(h)(1.0)) == "{ lambda ; a:f32[]. let b:f32[] = cos a in (b,) }"


def test_named_scope_name_must_be_a_string():
    # jax: TypeError "named_scope name argument must be a string."
    with pytest.raises(TypeError, match="named_scope name argument must be a string."):
        with spmd.named_scope(3):
            pass


def test_ensure_compile_time_eval_inside_jit():
    # jax: e(1.0) -> 6.0; the traced x + 1.0 is staged while arange(3).sum() is concrete (3),
    # so int() works; grad inside the block under jit -> 0.5403023; Python `if` on a concrete
    # comparison -> [1, 2, 3, 4]
    traced = []

    @spmd.jit
    def e(x):
        with spmd.ensure_compile_time_eval():
            y = x + 1.0
            n = int(jnp.arange(3).sum())
            traced.append(isinstance(jnp.sin(2.0), spmd.Array))
        return y * n

    _check(e(1.0), 6.0, np.float32)
    assert traced == [True]
    want = """\
{ lambda ; a:f32[]. let
    b:f32[] = jit[
      name=e
      jaxpr={ lambda ; a:f32[]. let
          c:f32[] = add a 1.0:f32[]
          b:f32[] = mul c 3.0:f32[]
        in (b,) }
    ] a
  in (b,) }"""
    assert str(spmd.make_jaxpr(e)(1.0)) == want

    def f(x):
        with spmd.ensure_compile_time_eval():
            return spmd.grad(jnp.sin)(x)

    np.testing.assert_allclose(np.asarray(spmd.jit(f)(1.0)), 0.5403023, rtol=1e-6)

    @spmd.jit
    def g(x):
        with spmd.ensure_compile_time_eval():
            c = jnp.arange(4.0)
            d = jnp.sum(c) > 3
        if d:
            return x + c
        return x

    _check(g(jnp.ones(4)), [1.0, 2.0, 3.0, 4.0], np.float32)


def test_ensure_compile_time_eval_is_needed():
    # Without the block, the same Python `if` fails under jit.
    @spmd.jit
    def g(x):
        if jnp.sum(jnp.arange(4.0)) > 3:
            return x + 1
        return x

    with pytest.raises(spmd.errors.ConcretizationTypeError):
        g(1.0)


def test_default_matmul_precision():
    # jax: accepted values compute as usual (dot(ones(2), ones(2)) -> 2.0); a bad one raises
    # ValueError "new enum value must be None or in [...], got bogus of type <class 'str'>."
    with spmd.default_matmul_precision("float32"):
        _check(jnp.dot(jnp.ones(2), jnp.ones(2)), 2.0, np.float32)
        assert spmd.config.jax_default_matmul_precision == "float32"
    with spmd.default_matmul_precision("highest"):
        _check(spmd.jit(jnp.dot)(jnp.ones(2), jnp.ones(2)), 2.0, np.float32)
    assert spmd.config.jax_default_matmul_precision is None
    with pytest.raises(ValueError, match=r"new enum value must be None or in \['default', "):
        with spmd.default_matmul_precision("bogus"):
            pass
    with pytest.raises(ValueError, match=re.escape("got bogus of type <class 'str'>.")):
        with spmd.default_matmul_precision("bogus"):
            pass


@pytest.mark.parametrize("bad", ["bogus", "HIGHEST", "fastest", "bf16_bf16_f32", 1])
def test_config_update_checks_the_default_matmul_precision(bad):
    # jax: config.update('jax_default_matmul_precision', v) raises ValueError for what
    # default_matmul_precision refuses (spellings are exact; 'fastest' is no option value)
    # and keeps the value it had
    spmd.config.update("jax_default_matmul_precision", "BF16_BF16_F32_X3")
    try:
        with pytest.raises(ValueError, match=r"jax_default_matmul_precision.*None or one of"):
            spmd.config.update("jax_default_matmul_precision", bad)
        assert spmd.config.jax_default_matmul_precision == "BF16_BF16_F32_X3"
    finally:
        spmd.config.update("jax_default_matmul_precision", None)


def test_clear_caches_makes_jit_trace_again():
    traces = []

    @spmd.jit
    def f(x):
        traces.append(1)
        return x * 2

    f(1.0)
    f(1.0)
    assert len(traces) == 1
    assert spmd.clear_caches() is None
    f(1.0)
    assert len(traces) == 2


def test_live_arrays():
    x = jnp.arange(5.0)
    live = spmd.live_arrays()
    assert isinstance(live, list) and any(a is x for a in live)
    assert all(isinstance(a, spmd.Array) for a in live)


def test_error_classes():
    # jax: JaxRuntimeError < RuntimeError, JAXIndexError < IndexError, JaxprTypeError < TypeError
    assert issubclass(spmd.errors.JaxRuntimeError, RuntimeError)
    assert issubclass(spmd.errors.JAXIndexError, IndexError)
    assert issubclass(spmd.errors.JaxprTypeError, TypeError)


# ---------------------------------------------------------------------------------------------
# tree_util: flatten_one_level, is_tree_node, default_registry

_Pt = collections.namedtuple("_Pt", "x y")


class _Box:
    def __init__(self, a):
        self.a = a


spmd.tree_util.register_pytree_node(_Box, lambda b: ((b.a,), "aux"), lambda aux, ch: _Box(*ch))


@pytest.mark.parametrize(
    "tree, want",
    [
        # jax.tree_util.flatten_one_level(tree) for each tree
        ([1, 2], ([1, 2], None)),
        ((1, [2]), ((1, [2]), None)),
        ({"b": 1, "a": 2}, ((2, 1), ("a", "b"))),
        (None, ((), None)),
        (_Pt(1, 2), ([1, 2], _Pt)),
        (collections.OrderedDict(b=1, a=2), ([1, 2], ("b", "a"))),
        (collections.defaultdict(int, {"b": 1}), ([1], (int, ("b",)))),
        ((), ((), None)),
        ([], ([], None)),
        ({}, ((), ())),
    ],
    ids=lambda v: type(v).__name__,
)
def test_flatten_one_level(tree, want):
    got = spmd.tree_util.flatten_one_level(tree)
    assert got == want
    assert type(got[0]) is type(want[0])


def test_flatten_one_level_registered_classes():
    # jax: a registered class gives its flatten function's children and aux -> ((5,), 'aux');
    # a dataclass with a static field -> ([1], (2,)); a Partial -> (((1,), {}), func)
    assert spmd.tree_util.flatten_one_level(_Box(5)) == ((5,), "aux")

    @spmd.tree_util.register_dataclass
    @dataclasses.dataclass
    class D:
        a: int
        b: int = dataclasses.field(metadata=dict(static=True))

    assert spmd.tree_util.flatten_one_level(D(1, 2)) == ([1], (2,))
    fn = lambda x, y: x  # noqa: E731
    assert spmd.tree_util.flatten_one_level(spmd.tree_util.Partial(fn, 1)) == (((1,), {}), fn)


@pytest.mark.parametrize("leaf", [1, np.ones(2)], ids=["int", "ndarray"])
def test_flatten_one_level_of_a_leaf(leaf):
    # jax: ValueError "can't tree-flatten type: <class 'int'>"
    with pytest.raises(ValueError, match=re.escape(f"can't tree-flatten type: {type(leaf)}")):
        spmd.tree_util.flatten_one_level(leaf)


def test_is_tree_node_takes_a_type():
    # jax: True for list, NoneType, tuple, dict, a namedtuple class and a registered class;
    # False for int and for a value ([1] is not a type)
    t = spmd.tree_util.is_tree_node
    assert [t(list), t(type(None)), t(tuple), t(dict), t(_Pt), t(_Box)] == [True] * 6
    assert [t(int), t(spmd.Array), t([1])] == [False] * 3


def test_default_registry():
    # jax.tree_util.default_registry methods on these inputs
    r = spmd.tree_util.default_registry
    leaves, treedef = r.flatten({"a": 1, "b": None})
    assert leaves == [1] and str(treedef) == "PyTreeDef({'a': *, 'b': None})"
    leaves, treedef = r.flatten([1, None], lambda x: x is None)
    assert leaves == [1, None] and str(treedef) == "PyTreeDef([*, *])"
    paths, _ = r.flatten_with_path({"a": [1]})
    assert paths == [((spmd.tree_util.DictKey("a"), spmd.tree_util.SequenceKey(0)), 1)]
    assert r.flatten_one_level({"b": 1, "a": 2}) == ((2, 1), ("a", "b"))
    assert r.flatten_one_level_with_keys({"b": 1, "a": 2}) == (
        ((spmd.tree_util.DictKey("a"), 2), (spmd.tree_util.DictKey("b"), 1)),
        ("a", "b"),
    )
    assert r.flatten_one_level(5) is None
    assert r.is_node(list) and not r.is_node(int)

    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    r.register_node(Pair, lambda p: ((p.a, p.b), None), lambda _, c: Pair(*c))
    assert spmd.tree_util.tree_leaves([Pair(1, 2)]) == [1, 2]


def test_flatten_one_level_with_keys():
    # jax.tree_util.flatten_one_level_with_keys on these inputs; a leaf raises ValueError
    t = spmd.tree_util
    assert t.flatten_one_level_with_keys({"b": 1, "a": 2}) == (
        ((t.DictKey("a"), 2), (t.DictKey("b"), 1)),
        ("a", "b"),
    )
    assert t.flatten_one_level_with_keys([1, None]) == (
        ((t.SequenceKey(0), 1), (t.SequenceKey(1), None)),
        None,
    )
    with pytest.raises(ValueError, match=re.escape("can't tree-flatten type: <class 'int'>")):
        t.flatten_one_level_with_keys(1)


def test_inconclusive_dimension_operation_and_effects_barrier():
    # jax: InconclusiveDimensionOperation derives from Exception only; effects_barrier() -> None
    # once the callbacks of programs already called have run
    assert spmd.errors.InconclusiveDimensionOperation.__mro__[1] is Exception
    seen = []
    spmd.jit(lambda x: spmd.debug.callback(lambda v: seen.append(float(v)), x))(2.0)
    assert spmd.effects_barrier() is None
    assert seen == [2.0]


# ---------------------------------------------------------------------------------------------
# fwd_and_bwd

_X22 = np.arange(4.0, dtype=np.float32).reshape(2, 2)


def _sin_matmul(x, w):
    return jnp.sin(x) @ w


def test_fwd_and_bwd_values():
    # jax: fwd_and_bwd(sin(x) @ W, argnums=(0, 1)) at x = arange(4.).reshape(2, 2), W = ones,
    # bwd(res, ones((2, 2))) -> ([[2, 1.0806046], [-0.8322937, -1.979985]],
    # [[0.9092974, 0.9092974], [0.982591, 0.982591]]); argnums=0 returns the array alone
    want_x = [[2.0, 1.0806046], [-0.8322937, -1.979985]]
    want_w = [[0.9092974, 0.9092974], [0.982591, 0.982591]]
    w = np.ones((2, 2), np.float32)
    fwd, bwd = spmd.fwd_and_bwd(_sin_matmul, argnums=(0, 1))
    y, res = fwd(_X22, w)
    np.testing.assert_allclose(np.asarray(y), np.sin(_X22) @ w, rtol=1e-6)
    gx, gw = bwd(res, np.ones((2, 2), np.float32))
    np.testing.assert_allclose(np.asarray(gx), want_x, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(gw), want_w, rtol=1e-5)
    fwd1, bwd1 = spmd.fwd_and_bwd(_sin_matmul, argnums=0)
    g = bwd1(fwd1(_X22, w)[1], np.ones((2, 2), np.float32))
    np.testing.assert_allclose(np.asarray(g), want_x, rtol=1e-5)
    fwd3, bwd3 = spmd.fwd_and_bwd(_sin_matmul, argnums=(0,), jitted=False)
    (g3,) = bwd3(fwd3(_X22, w)[1], np.ones((2, 2), np.float32))
    np.testing.assert_allclose(np.asarray(g3), want_x, rtol=1e-5)


def test_fwd_and_bwd_has_aux_and_int_argument():
    # jax: has_aux: fwd(arange(3.)) -> (5., res, {'aux': [0, 1, 2]}), bwd(res, 1.0) -> [0, 2, 4];
    # an int argument: fwd(1.0, 2) at argnums=(1,) -> 2.0 (no error)
    fwd, bwd = spmd.fwd_and_bwd(lambda x: (jnp.sum(x**2), {"aux": x}), argnums=0, has_aux=True)
    y, res, aux = fwd(jnp.arange(3.0))
    _check(y, 5.0, np.float32)
    _check(aux["aux"], [0.0, 1.0, 2.0], np.float32)
    _check(bwd(res, 1.0), [0.0, 2.0, 4.0], np.float32)
    y2, _ = spmd.fwd_and_bwd(lambda x, i: x * i, argnums=(1,))[0](1.0, 2)
    np.testing.assert_allclose(np.asarray(y2), 2.0)


def test_fwd_and_bwd_traces_once_and_differentiates():
    # The point of fwd_and_bwd: bwd's jit is reused across fwd calls. jax: grad of
    # sum(bwd(fwd(x, x)[1], x)[0]) at ones((2, 2)) -> 0.4782672 everywhere
    fwd, bwd = spmd.fwd_and_bwd(_sin_matmul, argnums=(0, 1))
    x = jnp.ones((2, 2))
    for i in range(3):
        bwd(fwd(x * i, x)[1], x)
    assert fwd._cache_size() == 1 and bwd._cache_size() == 1
    g = spmd.grad(lambda x: jnp.sum(bwd(fwd(x, x)[1], x)[0]))(x)
    np.testing.assert_allclose(np.asarray(g), np.full((2, 2), 0.4782672), rtol=1e-5)


def test_fwd_and_bwd_wrong_cotangent_type():
    # jax: ValueError, message below
    fwd, bwd = spmd.fwd_and_bwd(_sin_matmul, argnums=(0, 1))
    res = fwd(_X22, _X22)[1]
    msg = (
        "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got float32[3], "
        "but expected float32[2,2] because the corresponding output of the differentiated "
        "function had JAX type float32[2,2]"
    )
    with pytest.raises(ValueError, match=re.escape(msg)):
        bwd(res, jnp.ones(3))


def test_fwd_and_bwd_bad_argnums():
    # jax: ValueError, message below, when fwd is called
    fwd, _ = spmd.fwd_and_bwd(_sin_matmul, argnums=(5,))
    msg = (
        "Positional argument indices, e.g. for `static_argnums`, must have value greater than "
        "or equal to -len(args) and less than len(args), but got value 5 for len(args) == 2."
    )
    with pytest.raises(ValueError, match=re.escape(msg)):
        fwd(_X22, _X22)


@pytest.mark.parametrize("kind", ["pure_eager", "pure_jit", "io_jit", "kwarg"])
def test_callback_that_raises_stops_the_program_with_jax_runtime_error(kind):
    # jax 0.10.2: the callback's exception (here a ValueError, or the TypeError of a keyword it
    # does not take: pure_callback(..., vectorized=True) of older JAX) is a JaxRuntimeError
    # whose text ends with the callback's traceback.
    from spmd.errors import JaxRuntimeError
    from spmd.experimental import io_callback

    def boom(x, **kw):
        raise ValueError("callback failed")

    x = jnp.ones(2)
    run = {
        "pure_eager": lambda: spmd.pure_callback(boom, _sds(x), x),
        "pure_jit": lambda: spmd.jit(lambda x: spmd.pure_callback(boom, _sds(x), x))(x),
        "io_jit": lambda: spmd.jit(lambda x: io_callback(boom, _sds(x), x))(x),
        "kwarg": lambda: spmd.pure_callback(lambda x: x, _sds(x), x, vectorized=True),
    }[kind]
    with pytest.raises(JaxRuntimeError, match="CpuCallback error calling callback") as info:
        run()
    want = "unexpected keyword argument 'vectorized'" if kind == "kwarg" else "callback failed"
    assert str(info.value).rstrip().endswith(want)
