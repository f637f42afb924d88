"""custom_jvp, custom_vjp and checkpoint: JAX's canonical examples, under jit/vmap/grad, and
their errors. Expected values come from JAX 0.10.2 (hard-coded) or from the math."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd._src.custom_derivatives import SymbolicZero
from spmd._src.interpreters import ad
from spmd.errors import UnexpectedTracerError


def _close(a, b, tol=1e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


# ---------------------------------------------------------------------------------------------
# custom_jvp


@spmd.custom_jvp
def log1pexp(x):
    return jnp.log(1.0 + jnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return log1pexp(x), (1 - 1 / (1 + jnp.exp(x))) * t


def test_log1pexp_grad_is_stable():
    # The naive derivative is inf/inf = nan at 100; the custom rule gives 1.
    naive = spmd.grad(lambda x: jnp.log(1.0 + jnp.exp(x)))(100.0)
    assert np.isnan(np.asarray(naive))
    assert float(spmd.grad(log1pexp)(100.0)) == 1.0


def test_custom_jvp_primal_is_the_function():
    _close(log1pexp(3.0), np.log1p(np.exp(np.float32(3.0))))
    _close(spmd.jit(log1pexp)(3.0), np.log1p(np.exp(np.float32(3.0))))


def test_custom_jvp_rule_is_used_in_forward_mode():
    y, t = spmd.jvp(log1pexp, (2.0,), (1.0,))
    _close(y, 2.126928)
    _close(t, 0.8807971)


def test_custom_jvp_under_jit_and_vmap():
    xs = jnp.arange(3.0)
    want = 1 / (1 + np.exp(-np.arange(3.0)))
    _close(spmd.jit(spmd.grad(log1pexp))(2.0), want[2])
    _close(spmd.vmap(spmd.grad(log1pexp))(xs), want)
    _close(spmd.jit(spmd.vmap(spmd.grad(log1pexp)))(xs), want)
    _close(spmd.grad(lambda x: spmd.vmap(log1pexp)(x).sum())(xs), want)
    _close(spmd.jacfwd(spmd.vmap(log1pexp))(xs), np.diag(want))


def test_custom_jvp_grad_of_grad():
    # d/dx sigmoid(x) = sigmoid(x) (1 - sigmoid(x)); JAX: 0.19661194 at 1.
    _close(spmd.grad(spmd.grad(log1pexp))(1.0), 0.19661194)
    s = 1 / (1 + np.exp(-np.arange(3.0)))
    _close(spmd.hessian(lambda x: log1pexp(x).sum())(jnp.arange(3.0)), np.diag(s * (1 - s)))


def test_custom_jvp_rule_differs_from_the_function():
    # The rule, not the function's derivative, is what autodiff uses.
    f = spmd.custom_jvp(lambda x: jnp.sin(x))
    f.defjvp(lambda p, t: (f(*p), 2.0 * t[0]))
    assert float(spmd.grad(f)(0.3)) == 2.0
    _close(spmd.vmap(spmd.grad(f))(jnp.arange(3.0)), [2.0, 2.0, 2.0])


def test_custom_jvp_nondiff_argnums():
    @partial(spmd.custom_jvp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    @app.defjvp
    def app_jvp(f, primals, tangents):
        return app(f, primals[0]), 3.0 * tangents[0] * primals[0]

    assert float(spmd.grad(lambda x: app(jnp.sin, x))(2.0)) == 6.0
    _close(spmd.vmap(spmd.grad(lambda x: app(jnp.sin, x)))(jnp.arange(3.0)), [0.0, 3.0, 6.0])
    _close(spmd.jit(spmd.grad(lambda x: app(jnp.sin, x)))(2.0), 6.0)


def test_custom_jvp_defjvps():
    @spmd.custom_jvp
    def f(x, y):
        return jnp.sin(x) * y

    f.defjvps(
        lambda x_dot, out, x, y: jnp.cos(x) * x_dot * y,
        lambda y_dot, out, x, y: jnp.sin(x) * y_dot,
    )
    gx, gy = spmd.grad(f, (0, 1))(1.0, 2.0)
    _close(gx, 2 * np.cos(1.0))
    _close(gy, np.sin(1.0))


def test_custom_jvp_int_argument_gets_float0_tangent():
    seen = []

    @spmd.custom_jvp
    def f(x, n):
        return x * n

    @f.defjvp
    def f_jvp(p, t):
        seen.append(t[1].dtype)
        return f(*p), t[0] * p[1]

    assert float(spmd.grad(f)(1.0, 3)) == 3.0
    assert seen[-1] == spmd.dtypes.float0


def test_custom_jvp_symbolic_zeros():
    kinds = []

    @spmd.custom_jvp
    def f(x, y):
        return x * y

    def f_jvp(p, t):
        kinds.append([type(a).__name__ for a in t])
        (x, y), (tx, ty) = p, t
        out = 0.0
        if not isinstance(tx, SymbolicZero):
            out = out + tx * y
        if not isinstance(ty, SymbolicZero):
            out = out + ty * x
        return x * y, out

    f.defjvp(f_jvp, symbolic_zeros=True)
    assert float(spmd.grad(f)(2.0, 3.0)) == 3.0
    assert kinds[-1][1] == "SymbolicZero"


def test_custom_jvp_keyword_and_default_arguments():
    @spmd.custom_jvp
    def f(x, scale=2.0):
        return x * scale

    f.defjvp(lambda p, t: (f(*p), t[0] * p[1] * 10))
    assert float(spmd.grad(lambda x: f(x, scale=3.0))(1.0)) == 30.0
    assert float(spmd.grad(f)(1.0)) == 20.0


def test_custom_jvp_closing_over_batched_value_under_grad_of_vmap():
    # The rule closes over a value that vmap batches; grad is outside the vmap (JAX: 6.0).
    def h(x, c):
        @spmd.custom_jvp
        def f(y):
            return jnp.sin(y) * c

        @f.defjvp
        def f_jvp(p, t):
            return f(p[0]), 2.0 * t[0] * c

        return f(x)

    cs = jnp.arange(3.0)
    g = spmd.grad(lambda x: spmd.vmap(h, (None, 0))(x, cs).sum())
    assert float(g(1.0)) == 6.0
    assert float(spmd.jit(g)(1.0)) == 6.0
    _close(spmd.vmap(spmd.grad(h), (None, 0))(1.0, cs), [0.0, 2.0, 4.0])


def test_custom_jvp_jaxpr():
    text = str(spmd.make_jaxpr(log1pexp)(1.0))
    assert "custom_jvp_call[" in text
    assert "name=log1pexp" in text and "jvp=log1pexp_jvp" in text
    assert "symbolic_zeros=False" in text and "num_consts" not in text
    assert text.index("name=") < text.index("call_jaxpr=") < text.index("jvp=")
    vm = str(spmd.make_jaxpr(spmd.vmap(log1pexp))(jnp.ones(3)))
    assert "custom_jvp_call[" in vm and "f32[3]" in vm and "jvp=log1pexp_jvp" in vm


# ---------------------------------------------------------------------------------------------
# custom_vjp


@spmd.custom_vjp
def clip_gradient(lo, hi, x):
    return x


def _clip_fwd(lo, hi, x):
    return x, (lo, hi)


def _clip_bwd(res, g):
    lo, hi = res
    return (None, None, jnp.clip(g, lo, hi))


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


def _fc(x):
    return clip_gradient(-0.75, 0.75, jnp.sin(x) * 3)


_FC_GRADS = [2.25, 1.2156801, -0.9363304, -2.227483]  # JAX 0.10.2, grad of _fc at 0..3


def test_clip_gradient():
    # d/dx 3 sin x = 3 cos x, with the cotangent clipped to [-0.75, 0.75] first.
    _close(spmd.grad(_fc)(0.3), 2.149507)
    _close(_fc(0.3), 3 * np.sin(0.3))


def test_custom_vjp_under_vmap_and_jit():
    xs = jnp.arange(4.0)
    _close(spmd.vmap(spmd.grad(_fc))(xs), _FC_GRADS)
    _close(spmd.jit(spmd.grad(_fc))(0.3), 2.149507)
    _close(spmd.grad(lambda x: spmd.vmap(_fc)(x).sum())(xs), _FC_GRADS)
    _close(spmd.jit(spmd.vmap(spmd.grad(_fc)))(xs), _FC_GRADS)
    _close(spmd.jacrev(spmd.vmap(_fc))(jnp.arange(3.0)), np.diag(_FC_GRADS[:3]))
    _close(spmd.vmap(_fc)(xs), 3 * np.sin(np.arange(4.0)))


def test_custom_vjp_nondiff_argnums():
    @partial(spmd.custom_vjp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    app.defvjp(lambda f, x: (f(x), x), lambda f, x, ct: (5.0 * ct * x,))
    assert float(spmd.grad(lambda x: app(jnp.sin, x))(2.0)) == 10.0
    _close(spmd.vmap(spmd.grad(lambda x: app(jnp.sin, x)))(jnp.arange(3.0)), [0.0, 5.0, 10.0])
    _close(
        spmd.grad(lambda x: spmd.vmap(lambda y: app(jnp.sin, y))(x).sum())(jnp.arange(3.0)),
        [0.0, 5.0, 10.0],
    )


def test_custom_vjp_pytrees_and_none_cotangent():
    @spmd.custom_vjp
    def f(d):
        return {"s": d["a"] * d["b"], "t": d["a"]}

    f.defvjp(
        lambda d: (f(d), d),
        lambda d, ct: ({"a": ct["s"] * d["b"] + ct["t"], "b": None},),
    )
    ga, gb = spmd.grad(lambda a, b: (lambda o: o["s"] + 2 * o["t"])(f({"a": a, "b": b})), (0, 1))(
        2.0, 3.0
    )
    assert float(ga) == 5.0 and float(gb) == 0.0


def test_custom_vjp_grad_of_custom_vjp_bwd_uses_residuals():
    @spmd.custom_vjp
    def f(x):
        return jnp.sin(x)

    f.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda c, g: (2.0 * c * g,))
    _close(spmd.grad(f)(0.5), 2 * np.cos(0.5))
    y, f_vjp = spmd.vjp(f, 0.5)
    _close(f_vjp(1.0)[0], 2 * np.cos(0.5))


def test_custom_vjp_jaxpr():
    text = str(spmd.make_jaxpr(_fc)(1.0))
    assert "custom_vjp_call[" in text
    for piece in ("name=clip_gradient", "bwd=_clip_bwd", "fwd=_clip_fwd", "symbolic_zeros=False"):
        assert piece in text


def test_jvp_of_custom_vjp_raises():
    msg = "can't apply forward-mode autodiff (jvp) to a custom_vjp function."
    with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\)"):
        spmd.jvp(_fc, (1.0,), (1.0,))
    with pytest.raises(TypeError, match=r"forward-mode autodiff"):
        spmd.jacfwd(_fc)(1.0)
    with pytest.raises(TypeError, match=r"forward-mode autodiff"):
        spmd.jit(lambda x: spmd.jvp(_fc, (x,), (1.0,)))(1.0)
    assert msg  # the exact text JAX uses


def test_custom_vjp_bwd_wrong_structure_raises():
    @spmd.custom_vjp
    def g(x, y):
        return x * y

    g.defvjp(lambda x, y: (x * y, (x, y)), lambda res, ct: (ct * res[1],))
    with pytest.raises(TypeError, match=r"bwd output structure PyTreeDef\(\(\*,\)\) for primal"):
        spmd.grad(g)(1.0, 2.0)


def test_custom_vjp_bwd_not_a_tuple_raises():
    @spmd.custom_vjp
    def g(x):
        return x * 2

    g.defvjp(lambda x: (x * 2, None), lambda res, ct: ct * 2)
    with pytest.raises(TypeError, match=r"same container \(pytree\) structure as the args tuple"):
        spmd.grad(g)(1.0)


def test_custom_vjp_bwd_wrong_shape_raises():
    @spmd.custom_vjp
    def g(x):
        return x * 2

    g.defvjp(lambda x: (x * 2, None), lambda res, ct: (jnp.ones(3),))
    with pytest.raises(ValueError, match=r"at output\[0\] .* float32\[3\] .* float32\[\]"):
        spmd.grad(g)(1.0)


def test_custom_vjp_fwd_not_a_pair_raises():
    @spmd.custom_vjp
    def g(x):
        return x * 2

    g.defvjp(lambda x: x * 2, lambda res, ct: (ct,))
    with pytest.raises(TypeError, match=r"fwd rule <lambda> for function g must produce a pair"):
        spmd.grad(g)(1.0)


def test_custom_vjp_without_rule_raises():
    @spmd.custom_vjp
    def g(x):
        return x

    with pytest.raises(AttributeError, match="No VJP defined for custom_vjp function g"):
        g(1.0)


def test_custom_jvp_without_rule_raises():
    @spmd.custom_jvp
    def f(x):
        return x

    with pytest.raises(AttributeError, match="No JVP defined for custom_jvp function f"):
        f(1.0)


def test_custom_jvp_rule_not_a_pair_raises():
    f = spmd.custom_jvp(lambda x: x * 2)
    f.defjvp(lambda p, t: p[0] * 2)
    with pytest.raises(TypeError, match=r"must produce a pair .* primal and tangent outputs"):
        spmd.jvp(f, (1.0,), (1.0,))


def test_custom_jvp_rule_wrong_tangent_shape_raises():
    f = spmd.custom_jvp(lambda x: x * 2)
    f.defjvp(lambda p, t: (p[0] * 2, jnp.ones(3)))
    with pytest.raises(TypeError, match=r"Expected float32\[\] \(tangent type of float32\[\]\)"):
        spmd.jvp(f, (1.0,), (1.0,))


def test_custom_jvp_rule_structure_mismatch_raises():
    f = spmd.custom_jvp(lambda x: x * 2)
    f.defjvp(lambda p, t: (p[0] * 2, (t[0] * 2, 1.0)))
    with pytest.raises(TypeError, match="equal container"):
        spmd.jvp(f, (1.0,), (1.0,))


def test_closing_over_a_differentiated_value_raises():
    def outer(c):
        @spmd.custom_vjp
        def g(x):
            return x * c

        g.defvjp(lambda x: (x * c, None), lambda res, ct: (ct * c,))
        return g(3.0)

    with pytest.raises(UnexpectedTracerError, match="closes over a value"):
        spmd.grad(outer)(2.0)


# ---------------------------------------------------------------------------------------------
# checkpoint / remat


def _mlp(x, w1, w2):
    return jnp.sum(jnp.tanh(jnp.tanh(x @ w1) @ w2))


_X = jnp.arange(6.0).reshape(2, 3) / 5.0
_W1 = jnp.arange(12.0).reshape(3, 4) / 10.0
_W2 = jnp.arange(8.0).reshape(4, 2) / 10.0


@pytest.mark.parametrize(
    "policy",
    [
        None,
        spmd.checkpoint_policies.nothing_saveable,
        spmd.checkpoint_policies.everything_saveable,
        spmd.checkpoint_policies.dots_saveable,
        spmd.checkpoint_policies.dots_with_no_batch_dims_saveable,
    ],
)
def test_checkpoint_gives_the_same_gradients(policy):
    want = spmd.grad(_mlp, (0, 1, 2))(_X, _W1, _W2)
    got = spmd.grad(spmd.checkpoint(_mlp, policy=policy), (0, 1, 2))(_X, _W1, _W2)
    for g, w in zip(got, want):
        _close(g, w, 1e-6)
    _close(spmd.checkpoint(_mlp, policy=policy)(_X, _W1, _W2), _mlp(_X, _W1, _W2))


def test_remat_is_checkpoint():
    h = spmd.remat(lambda x: jnp.sin(jnp.sin(x)), prevent_cse=False)
    _close(spmd.grad(h)(1.0), np.cos(np.sin(1.0)) * np.cos(1.0))


def test_checkpoint_keeps_only_inputs_as_residuals():
    x = jnp.array([0.5, 1.0, 2.0])
    h = spmd.checkpoint(lambda x: jnp.sin(jnp.sin(x)))
    _, lin = ad.linearize_flat(lambda x: [h(x)], [x])
    assert len(lin.jaxpr.consts) == 1 and lin.jaxpr.consts[0] is x
    _, lin_plain = ad.linearize_flat(lambda x: [jnp.sin(jnp.sin(x))], [x])
    assert len(lin_plain.jaxpr.consts) == 2  # x and sin(x) without checkpoint


def test_checkpoint_recomputes_in_the_backward_pass():
    text = str(spmd.make_jaxpr(spmd.grad(spmd.checkpoint(lambda x: jnp.sin(jnp.sin(x)))))(1.0))
    assert "remat2[" in text and "differentiated=True" in text
    inner = text[text.index("remat2[") :]
    assert inner.count("sin ") >= 1  # sin is recomputed inside the backward remat


def test_checkpoint_dots_saveable_passes_dot_outputs():
    f = spmd.checkpoint(_mlp, policy=spmd.checkpoint_policies.dots_saveable)
    jaxpr = spmd.make_jaxpr(spmd.grad(f))(_X, _W1, _W2).jaxpr
    (eqn,) = [e for e in jaxpr.eqns if e.primitive.name == "remat2"]
    shapes = sorted(v.aval.str_short() for v in eqn.invars)
    # W1, W2, the two dot outputs and the seed cotangent; not x.
    assert shapes == sorted(["f32[3,4]", "f32[4,2]", "f32[2,4]", "f32[2,2]", "f32[]"])


def test_checkpoint_under_transforms():
    h = spmd.checkpoint(lambda x: jnp.sin(x) ** 2)
    xs = jnp.arange(3.0)
    want = np.sin(2 * np.arange(3.0))
    _close(spmd.vmap(spmd.grad(h))(xs), want)
    _close(spmd.grad(lambda x: spmd.vmap(h)(x).sum())(xs), want)
    _close(spmd.jit(spmd.grad(h))(1.0), want[1])
    _close(spmd.grad(spmd.jit(h))(1.0), want[1])
    y, t = spmd.jvp(h, (1.0,), (1.0,))
    _close(y, np.sin(1.0) ** 2)
    _close(t, want[1])
    _close(spmd.grad(spmd.grad(h))(1.0), 2 * np.cos(2.0))
    _close(
        spmd.jacfwd(spmd.checkpoint(lambda x: jnp.sin(x) ** 3))(xs),
        np.diag(3 * np.sin(np.arange(3.0)) ** 2 * np.cos(np.arange(3.0))),
    )


def test_checkpoint_nested_static_argnums_and_closure():
    g = spmd.grad(spmd.checkpoint(lambda x: spmd.checkpoint(jnp.sin)(jnp.sin(x)) * x))
    want = np.cos(np.sin(1.0)) * np.cos(1.0) + np.sin(np.sin(1.0))
    _close(g(1.0), want)
    st = spmd.checkpoint(lambda x, n: x**n, static_argnums=(1,))
    assert float(spmd.grad(st)(2.0, 3)) == 12.0
    _close(
        spmd.grad(lambda w: spmd.checkpoint(lambda x: jnp.sin(x * w))(2.0))(3.0), 2 * np.cos(6.0)
    )


def test_checkpoint_jaxpr():
    text = str(spmd.make_jaxpr(spmd.checkpoint(lambda x: jnp.sin(jnp.sin(x))))(1.0))
    assert "remat2[" in text
    for piece in ("differentiated=False", "policy=None", "prevent_cse=True"):
        assert piece in text
    pol = spmd.checkpoint(jnp.sin, policy=spmd.checkpoint_policies.dots_saveable)
    assert "policy=DotsSaveable(only_if_no_batch_dims=False)" in str(spmd.make_jaxpr(pol)(1.0))
