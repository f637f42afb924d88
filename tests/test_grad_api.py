"""The grad family's front end (grad, value_and_grad, jvp, vjp, jacfwd, jacrev, hessian):
argnums, has_aux, allow_int, pytrees, weak types, and one test per bad input (error class and
message as JAX 0.10 gives them; messages were taken from JAX and are hard-coded here).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import dtypes

X = np.array([0.5, -1.0, 2.0], np.float32)

# Tests known to fail: name -> reason (strict xfails: remove the entry when it passes).
KNOWN_FAILURES: dict[str, str] = {}


def _known(fn):
    reason = KNOWN_FAILURES.get(fn.__name__)
    return pytest.mark.xfail(reason=reason, strict=True)(fn) if reason else fn


# ---------------------------------------------------------------------------------------------
# Bad input: one test per case


def test_grad_of_non_scalar_output():
    with pytest.raises(
        TypeError,
        match=re.escape(
            "Gradient only defined for scalar-output functions. Output had shape: (3,)."
        ),
    ):
        spmd.grad(lambda a: a * 2)(jnp.ones(3))


def test_value_and_grad_of_non_scalar_output():
    with pytest.raises(
        TypeError,
        match=re.escape(
            "Gradient only defined for scalar-output functions. Output had shape: (3,)."
        ),
    ):
        spmd.value_and_grad(lambda a: a * 2)(jnp.ones(3))


def test_grad_with_respect_to_an_integer():
    msg = (
        "grad requires real- or complex-valued inputs (input dtype that is a sub-dtype of "
        "np.inexact), but got int32. If you want to use Boolean- or integer-valued inputs, "
        "use vjp or set allow_int to True."
    )
    with pytest.raises(TypeError, match=re.escape(msg)):
        spmd.grad(lambda a: (a * 2).sum())(jnp.arange(3))


def test_grad_with_respect_to_a_bool():
    with pytest.raises(TypeError, match="but got bool"):
        spmd.grad(lambda a: 1.0)(True)


def test_grad_of_integer_output():
    with pytest.raises(TypeError, match="but got int32"):
        spmd.grad(lambda a: jnp.int32(3))(1.0)


@_known
def test_grad_of_complex_output():
    # JAX: "grad requires real-valued outputs (output dtype that is a sub-dtype of
    # np.floating), but got complex64. For holomorphic differentiation, pass holomorphic=True."
    with pytest.raises(TypeError, match="but got complex64"):
        spmd.grad(lambda a: a * 1j)(1.0)


def test_argnums_out_of_range():
    # JAX: "differentiating with respect to argnums=2 requires at least 3 positional arguments
    # to be passed by the caller, but got only 2 positional arguments."
    with pytest.raises(TypeError, match="argnums=2"):
        spmd.grad(lambda a, b: a * b, argnums=2)(1.0, 2.0)


def test_argnums_tuple_out_of_range():
    with pytest.raises(TypeError, match=re.escape("argnums=(0, 3)")):
        spmd.grad(lambda a, b: a * b, argnums=(0, 3))(1.0, 2.0)


def test_has_aux_without_a_pair():
    with pytest.raises(TypeError):
        spmd.grad(lambda a: a * 2.0, has_aux=True)(1.0)


def test_jacfwd_of_integer_input():
    with pytest.raises(TypeError, match="jacfwd requires real"):
        spmd.jacfwd(lambda a: a * 2)(jnp.arange(3))


def test_jacrev_of_integer_input():
    msg = "jacrev requires real- or complex-valued inputs"
    with pytest.raises(TypeError, match=re.escape(msg)):
        spmd.jacrev(lambda a: a * 2)(jnp.arange(3))


def test_jvp_dtype_mismatch():
    # JAX: "primal and tangent arguments to jax.jvp do not match; dtypes must be equal, or in
    # case of int/bool primal dtype the tangent dtype must be float0.Got primal dtype float32
    # and so expected tangent dtype float32, but got tangent dtype float16 instead."
    with pytest.raises(TypeError) as e:
        spmd.jvp(jnp.sin, (jnp.ones(3),), (jnp.ones(3, jnp.float16),))
    msg = str(e.value)
    assert re.search(r"primal and tangent arguments to (jax\.)?jvp do not match", msg), msg
    assert "got tangent dtype float16 instead" in msg, msg


def test_jvp_integer_tangent_for_integer_primal():
    with pytest.raises(TypeError, match="but got tangent dtype int32 instead"):
        spmd.jvp(lambda a, i: a * i, (X, 3), (X, 0))


def test_jvp_shape_mismatch():
    with pytest.raises(ValueError, match=re.escape("jvp called with different primal and")):
        spmd.jvp(jnp.sin, (jnp.ones(3),), (jnp.ones(2),))


def test_jvp_tree_mismatch():
    msg = (
        "must have the same tree structure; primals have tree structure PyTreeDef((*, *)) "
        "whereas tangents have tree structure PyTreeDef((*,))."
    )
    with pytest.raises(TypeError, match=re.escape(msg)):
        spmd.jvp(lambda a, b: a * b, (1.0, 2.0), (1.0,))


def test_jvp_arguments_not_tuples():
    with pytest.raises(TypeError, match="must be tuples or lists"):
        spmd.jvp(jnp.sin, jnp.ones(3), jnp.ones(3))


def test_vjp_cotangent_shape_mismatch():
    # JAX: "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got
    # float32[2], but expected float32[3] because the corresponding output of the
    # differentiated function had JAX type float32[3]".
    _, pullback = spmd.vjp(jnp.sin, jnp.ones(3))
    with pytest.raises(ValueError) as e:
        pullback(jnp.ones(2))
    msg = str(e.value)
    assert ("[2]" in msg or "(2,)" in msg) and ("[3]" in msg or "(3,)" in msg), msg


@_known
def test_vjp_cotangent_dtype_mismatch():
    _, pullback = spmd.vjp(jnp.sin, jnp.ones(3))
    with pytest.raises(ValueError, match=re.escape("float16[3]")):
        pullback(jnp.ones(3, jnp.float16))


@_known
def test_vjp_cotangent_tree_mismatch():
    _, pullback = spmd.vjp(lambda a: (a, a), jnp.ones(3))
    with pytest.raises(ValueError, match="tree structure"):
        pullback(jnp.ones(3))


# ---------------------------------------------------------------------------------------------
# Features


@_known
def test_grad_of_python_scalar_is_weak():
    g = spmd.grad(lambda a: a * a)(3.0)
    assert float(g) == 6.0 and g.dtype == np.float32 and g.weak_type


@_known
def test_grad_through_integer_pow_is_weak():
    g = spmd.grad(lambda a: a**3)(2.0)
    assert float(g) == 12.0 and g.weak_type


@_known
def test_argnums_tuple_and_negative():
    ga, gb = spmd.grad(lambda a, b: a * b * b, argnums=(0, 1))(2.0, 3.0)
    assert (float(ga), float(gb)) == (9.0, 12.0)
    g = spmd.grad(lambda a, b: a * b * b, argnums=-1)(2.0, 3.0)
    assert float(g) == 12.0 and g.weak_type


def test_float16_gradient_keeps_its_dtype():
    g = spmd.grad(lambda a: a * a)(jnp.float16(3.0))
    assert g.dtype == np.float16 and not g.weak_type and float(g) == 6.0


@_known
def test_grad_of_pytree_input():
    g = spmd.grad(lambda p: p["a"] * p["b"])({"a": 2.0, "b": 3.0})
    assert set(g) == {"a", "b"} and (float(g["a"]), float(g["b"])) == (3.0, 2.0)
    gl = spmd.grad(lambda p: p[0] * p[1])([2.0, 3.0])
    assert isinstance(gl, list) and [float(v) for v in gl] == [3.0, 2.0]
    assert g["a"].weak_type


def test_keyword_arguments_are_not_differentiated():
    assert float(spmd.grad(lambda a, scale: a * a * scale)(3.0, scale=2.0)) == 12.0


def test_grad_of_grad():
    assert float(spmd.grad(spmd.grad(lambda a: a**4))(2.0)) == 48.0


def test_allow_int_gives_float0():
    ga, gi = spmd.grad(lambda a, b: a * 2.0, argnums=(0, 1), allow_int=True)(2.0, 3)
    assert float(ga) == 2.0
    assert np.asarray(gi).dtype == dtypes.float0 and np.shape(gi) == ()


@_known
def test_has_aux_returns_concrete_aux():
    (v, aux), g = spmd.value_and_grad(lambda x: (jnp.sum(x**2), jnp.sum(x)), has_aux=True)(X)
    assert isinstance(aux, spmd.Array), type(aux)
    assert float(aux) == 1.5 and float(v) == 5.25
    np.testing.assert_array_equal(np.asarray(g), 2 * X)


def test_jvp_with_float0_tangent_for_integer_primal():
    y, t = spmd.jvp(lambda a, i: a * i, (X, 3), (X, np.zeros((), dtypes.float0)))
    np.testing.assert_array_equal(np.asarray(y), X * 3)
    np.testing.assert_array_equal(np.asarray(t), X * 3)


def test_vjp_of_integer_output_takes_float0_cotangent():
    _, pullback = spmd.vjp(lambda a: (a * 2).astype(jnp.int32), X)
    (ct,) = pullback(np.zeros(3, dtypes.float0))
    assert np.asarray(ct).dtype == np.float32
    np.testing.assert_array_equal(np.asarray(ct), np.zeros(3, np.float32))


def test_vjp_returns_one_cotangent_per_primal():
    out, pullback = spmd.vjp(lambda a, b: a * b, 2.0, 3.0)
    cts = pullback(1.0)
    assert isinstance(cts, tuple) and [float(c) for c in cts] == [3.0, 2.0]


def test_hessian_of_non_scalar_output():
    assert spmd.hessian(lambda a: a**3)(X).shape == (3, 3, 3)


def test_jacobians_of_pytree_outputs():
    f = lambda x: {"s": jnp.sum(x), "v": x * 2}  # noqa: E731
    for jac in (spmd.jacfwd(f), spmd.jacrev(f)):
        j = jac(X)
        assert j["s"].shape == (3,) and j["v"].shape == (3, 3)
        np.testing.assert_array_equal(np.asarray(j["v"]), 2 * np.eye(3, dtype=np.float32))


def test_known_failures_name_tests():
    stale = [k for k in KNOWN_FAILURES if not callable(globals().get(k))]
    assert not stale, f"KNOWN_FAILURES names no test: {stale}"


def test_eager_grad_of_a_jit_compiles_its_programs_once(monkeypatch):
    # The known and linear halves of a jit (and the linear one's transpose) are cached by
    # program and types, so a second eager grad compiles nothing new.
    from spmd._src import dispatch

    compiled = []
    real = dispatch.compile_jaxpr
    monkeypatch.setattr(
        dispatch, "compile_jaxpr", lambda *a, **k: compiled.append(1) or real(*a, **k)
    )
    g = spmd.grad(spmd.jit(lambda x: jnp.sum(jnp.tanh(jnp.sin(x) * x))))
    first = g(X)
    n = len(compiled)
    again = g(X)
    assert n > 0 and len(compiled) == n
    np.testing.assert_array_equal(np.asarray(first), np.asarray(again))


@pytest.mark.parametrize(
    "out", [lambda x: (x, x), lambda x: [x], lambda x: {"a": x}, lambda x: None]
)
def test_grad_of_a_container_output_names_the_output(out):
    # JAX's TypeError and words; the output's text follows (a custom_vjp fwd giving back a
    # tuple for a scalar function reached this, in the custom derivatives tutorial's checks).
    for transform in (spmd.grad, spmd.value_and_grad):
        with pytest.raises(TypeError, match=r"Gradient only defined for scalar-output functions\."
                                            r" Output was (\(|\[|\{|None)"):  # fmt: skip
            transform(out)(1.0)
