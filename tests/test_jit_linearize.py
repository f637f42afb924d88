"""What grad makes of a jit, as JAX 0.10 makes it: the linearized primal call returns no
output that only forwards one of its inputs (the program after it reads the input), and a Python
float operand keeps its Python text when linearization stages it again. The golden jaxprs
(nn_identity_grad, nn_selu_grad, nn_standardize_given*) check the text; these check the parts.
"""

from __future__ import annotations

import numpy as np

import spmd
import spmd.numpy as jnp

X = np.arange(6.0, dtype=np.float32).reshape(2, 3)


def _jits(jaxpr):
    return [e for e in jaxpr.eqns if e.primitive.name == "jit"]


def test_forwarded_outputs_leave_the_primal_call():
    f = spmd.jit(lambda a, b: (b, a * b, a))

    def g(x):
        b, y, a = f(x, 3.0)
        return jnp.sum(y * b + a)

    closed = spmd.make_jaxpr(spmd.grad(g))(X)
    primal, _ = _jits(closed.jaxpr)
    # Of (b, a * b, a) only a * b is returned, with the residual b as float32 (the
    # multiplication's); b and a are the operands, read directly after the call.
    assert [v.aval.shape for v in primal.outvars] == [(2, 3), ()]
    assert [v.aval.shape for v in primal.params["jaxpr"].jaxpr.outvars] == [(2, 3), ()]
    assert closed.jaxpr.eqns[1].invars[1].val == 3.0  # y * b
    want = np.full_like(X, 10.0)  # d/dx sum(3x * 3 + x)
    np.testing.assert_array_equal(np.asarray(spmd.grad(g)(X)), want)
    np.testing.assert_array_equal(np.asarray(spmd.jit(spmd.grad(g))(X)), want)


def test_a_primal_call_with_no_results_stays_at_top_level_only():
    # nn.identity's primal call returns nothing once its output is forwarded: JAX binds it all
    # the same, but drops it inside a jit that is itself linearized.
    top = spmd.make_jaxpr(spmd.grad(lambda x: jnp.sum(spmd.nn.identity(x))))(X)
    primal = _jits(top.jaxpr)[0]
    assert primal.outvars == [] and primal.invars == top.jaxpr.invars
    assert top.jaxpr.eqns[1].invars == top.jaxpr.invars  # reduce_sum reads the input

    outer = spmd.jit(lambda a: spmd.nn.identity(a) * 2.0)
    nested = spmd.make_jaxpr(spmd.grad(lambda x: jnp.sum(outer(x))))(X)
    inner = _jits(nested.jaxpr)[0].params["jaxpr"].jaxpr
    assert [e.primitive.name for e in inner.eqns] == ["mul"]
    np.testing.assert_array_equal(np.asarray(spmd.grad(lambda x: jnp.sum(outer(x)))(X)), 2.0)


def test_linearize_returns_a_forwarded_python_scalar_as_it_is():
    # As JAX's (a float subclass there): the primal output is the operand, not a copy.
    y, lin = spmd.linearize(lambda x: spmd.jit(lambda a, b: (b, a * b))(x, 2.0), X)
    assert y[0] == 2.0 and isinstance(y[0], float)
    np.testing.assert_array_equal(np.asarray(lin(X)[1]), X * 2)


def test_python_float_prints_as_python_writes_it_only_when_unconverted():
    # Added to a weak scalar, 1e-5 reaches `add` as it is; added to a float32 array it is
    # converted first, and prints as its float32 value.
    weak = str(spmd.make_jaxpr(lambda v: v + 1e-5)(1.0))
    strong = str(spmd.make_jaxpr(lambda x: x + 1e-5)(X))
    assert "add a 1e-05:f32[]" in weak
    assert "9.999999747378752e-06:f32[]" in strong
    # grad stages the jit's program again: the literal keeps its text.
    f = spmd.jit(lambda x, v: x * (v + 1e-5))
    text = str(spmd.make_jaxpr(spmd.grad(lambda x: jnp.sum(f(x, 1.0))))(X))
    assert "1e-05:f32[]" in text and "9.99" not in text
