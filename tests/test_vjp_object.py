"""The VJP object ``vjp`` returns (JAX 0.10's ``VJP``): ``args_res`` (argument values saved
verbatim, ``NotNeeded()`` for the others), ``opaque_residuals``, its leaves in that order, and
passing it through jit. Expected values are JAX 0.10.2's on the same calls."""

from __future__ import annotations

import numpy as np

import spmd
import spmd.numpy as jnp


def _layer(w, x):
    return jnp.tanh(x @ w)


def test_args_res_and_opaque_residuals():
    w, x = jnp.ones((3, 3)), jnp.ones((2, 3))
    _, f_vjp = spmd.vjp(_layer, w, x)
    assert f_vjp.args_res[0] is w and f_vjp.args_res[1] is x
    assert [r.shape for r in f_vjp.opaque_residuals] == [(2, 3), (2, 3)]
    leaves = spmd.tree_util.tree_leaves(f_vjp)
    assert leaves[0] is w and leaves[1] is x and len(leaves) == 4
    # An argument the backward pass does not read is NotNeeded(), with no leaf of its own.
    _, g_vjp = spmd.vjp(lambda a, b: jnp.sin(a) + 2 * b, w, w)
    assert [repr(r) for r in g_vjp.args_res] == ["NotNeeded()", "NotNeeded()"]
    assert len(spmd.tree_util.tree_leaves(g_vjp)) == 2  # cos(a) and 2.0, as in JAX
    # A Python scalar becomes an array when linearized: a computed residual, as in JAX.
    _, s_vjp = spmd.vjp(lambda a, b: a * b, 2.0, jnp.arange(3.0))
    assert repr(s_vjp.args_res[0]) == "NotNeeded()"
    assert [float(r) for r in s_vjp.opaque_residuals] == [2.0]
    # An argument with several leaves: a tuple of them.
    d = {"a": jnp.ones((2, 2)), "b": 2 * jnp.ones((2, 2)), "c": jnp.ones(2)}
    _, d_vjp = spmd.vjp(lambda d: d["a"] @ d["b"] + d["c"], d)
    assert isinstance(d_vjp.args_res[0], tuple)
    assert [repr(r) == "NotNeeded()" for r in d_vjp.args_res[0]] == [False, False, True]
    assert d_vjp.opaque_residuals == []


def test_restoring_args_res_changes_the_backward_pass():
    w, x = jnp.ones((3, 3)), jnp.ones((2, 3))
    _, f_vjp = spmd.vjp(lambda w, x: x @ w, w, x)
    f_vjp.args_res[0] = 2 * w
    _, dx = f_vjp(jnp.ones((2, 3)))
    np.testing.assert_array_equal(np.asarray(dx), np.full((2, 3), 6.0))


def test_vjp_object_through_jit_and_rebuilt():
    def fwd(w, x):
        return spmd.vjp(_layer, w, x)

    fwd, bwd = spmd.jit(fwd), spmd.jit(lambda v, c: v(c))
    w1, w2, x0 = jnp.ones((3, 3)), 2.0 * jnp.ones((3, 3)), jnp.ones((2, 3))
    x1, res1 = fwd(w1, x0)
    x2, res2 = fwd(w2, x1)
    dw2, dx1 = bwd(res2, jnp.ones_like(x2))
    dw1, _ = bwd(res1, dx1)
    ref = spmd.grad(lambda a, b: jnp.sum(_layer(b, _layer(a, x0))), argnums=(0, 1))(w1, w2)
    np.testing.assert_allclose(np.asarray(dw1), np.asarray(ref[0]), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(dw2), np.asarray(ref[1]), rtol=1e-6)
    leaves, tree = spmd.tree_util.tree_flatten(res1)
    doubled = spmd.tree_util.tree_unflatten(tree, [2 * leaf for leaf in leaves])
    assert type(doubled).__name__ == "VJP"
    assert doubled.args_res[0].shape == (3, 3)
    out = spmd.jit(lambda a: spmd.vjp(jnp.sin, a)[1])(1.0)
    np.testing.assert_allclose(float(out(1.0)[0]), np.cos(1.0), rtol=1e-6)
