"""The VJP object ``vjp`` returns (JAX 0.10's ``VJP``): ``args_res`` (argument values saved
verbatim, ``NotNeeded()`` for the others), ``opaque_residuals``, its leaves in that order, and
passing it through jit. Expected values are JAX 0.10.2's on the same calls."""

from __future__ import annotations

import numpy as np
import pytest

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


def test_with_refs_accumulates_returns_values_or_skips():
    import spmd.ad

    grad_ref = spmd.new_ref(100.0)
    _, sin_vjp = spmd.vjp(jnp.sin, 1.0)
    assert repr(sin_vjp.with_refs(grad_ref)(1.0)) == "(GradRef(),)"
    np.testing.assert_allclose(float(grad_ref[...]), 100.0 + np.cos(1.0), rtol=1e-6)
    # GradValue: returned as usual; DontWant: not computed, nor the dot only it needs.
    w, x = jnp.ones((4, 4)), jnp.ones(4)
    _, f_vjp = spmd.vjp(lambda w, x: w @ x, w, x)
    w_bar, x_bar = f_vjp.with_refs(spmd.ad.GradValue(), spmd.ad.DontWant())(jnp.ones(4))
    np.testing.assert_array_equal(np.asarray(w_bar), np.ones((4, 4)))
    assert repr(x_bar) == "DidntWant()"
    both = spmd.make_jaxpr(lambda: f_vjp(jnp.ones(4)))()
    only_w = spmd.make_jaxpr(
        lambda: f_vjp.with_refs(spmd.ad.GradValue(), spmd.ad.DontWant())(jnp.ones(4))
    )()
    assert (str(both).count("dot_general"), str(only_w).count("dot_general")) == (2, 1)
    # The placeholders are empty pytrees; with_refs wants one entry per argument.
    assert spmd.tree_util.tree_leaves([spmd.ad.GradRef(), spmd.ad.DidntWant()]) == []
    with pytest.raises(TypeError, match=r"with_refs: expected one entry per argument .*\(2\), "
                                        r"got 1"):  # fmt: skip
        f_vjp.with_refs(spmd.ad.GradValue())


def test_with_refs_inside_a_scan_accumulates_every_step():
    ws = jnp.ones((2, 3, 3))

    def batch(ws, xs):
        acc = spmd.new_ref(jnp.zeros_like(ws))

        def step(_, x):
            loss, f_vjp = spmd.vjp(lambda w: jnp.sum(x @ w[0] @ w[1]), ws)
            f_vjp.with_refs(acc)(jnp.ones_like(loss))
            return (), loss

        spmd.lax.scan(step, (), xs)
        return spmd.freeze(acc)

    xs = jnp.ones((4, 2, 3))
    want = spmd.grad(lambda w: sum(jnp.sum(x @ w[0] @ w[1]) for x in xs))(ws)
    np.testing.assert_allclose(np.asarray(batch(ws, xs)), np.asarray(want), rtol=1e-6)


def test_custom_vjp_fwd_rule_may_return_a_ref_argument():
    @spmd.custom_vjp
    def stash(ref, x):
        return x

    def bwd(ref, g):
        ref[...] = g
        return None, g

    stash.defvjp(lambda ref, x: (x, ref), bwd)
    ref = spmd.new_ref(0.0)
    spmd.grad(lambda x, r: jnp.sin(stash(r, x)))(1.0, ref)
    np.testing.assert_allclose(float(ref[...]), np.cos(1.0), rtol=1e-6)
    spmd.jit(spmd.grad(lambda x, r: jnp.sin(stash(r, x))))(2.0, ref)
    np.testing.assert_allclose(float(ref[...]), np.cos(2.0), rtol=1e-6)


def test_aux_leaves_that_are_not_traced_come_back_as_they_are():
    _, _, aux = spmd.vjp(lambda a: (a * a, {"s": "x", "n": 3, "a": a}), 2.0, has_aux=True)
    assert aux["s"] == "x" and aux["n"] == 3 and float(aux["a"]) == 2.0
    g, aux = spmd.grad(lambda a: (a * a, "x"), has_aux=True)(2.0)
    assert float(g) == 4.0 and aux == "x"
    assert spmd.linearize(lambda a: (a * a, "x"), 2.0, has_aux=True)[2] == "x"
