"""Golden cases for autodiff and its compositions with vmap and jit, run by JAX and by spmd.

Each case is a name and a maker ``make(jax, jnp, lax) -> (fn, args)``: ``fn`` applies the
transformations under test (grad, value_and_grad, jacfwd, jacrev, hessian, jvp, vjp,
linearize, vmap, jit) to a small function, and ``args`` are NumPy arrays or Python scalars.
The same file serves:

- ``tests/golden_gen/ad_gen.py`` (under real JAX), which records every output leaf's dtype,
  weak type, shape and values into ``tests/golden/ad.json``, for ``fn(*args)`` and for
  ``jax.jit(fn)(*args)``;
- ``tests/test_golden_ad.py`` (no JAX), which runs the same with spmd and compares: dtypes,
  weak types and shapes exactly, floats within the case's tolerance.

NumPy arguments become arrays of the library under test before the call; Python scalars stay
Python scalars (weakly typed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

# Float tolerances by dtype (rtol = atol): derivatives chain several transcendental kernels,
# which XLA and NumPy round differently.
TOL = {"float32": 2e-5, "float64": 1e-12}

CASES: dict[str, Callable[[Any, Any, Any], tuple[Callable, tuple]]] = {}
CASE_TOL: dict[str, dict] = {}


def case(fn=None, *, tol: dict | None = None):
    """Register ``fn(jax, jnp, lax) -> (program, args)`` under its own name."""

    def register(f):
        if f.__name__ in CASES:
            raise ValueError(f"duplicate case {f.__name__}")
        CASES[f.__name__] = f
        if tol:
            CASE_TOL[f.__name__] = tol
        return f

    return register(fn) if fn is not None else register


# ---------------------------------------------------------------------------------------------
# Inputs (deterministic)

X3 = np.array([0.5, -1.25, 2.0], np.float32)
X4 = np.array([0.3, -0.7, 1.1, 0.2], np.float32)
W43 = ((np.arange(12, dtype=np.float32).reshape(4, 3) - 5.5) / 6).astype(np.float32)
B3 = np.array([0.1, -0.2, 0.05], np.float32)
XS = ((np.arange(20, dtype=np.float32).reshape(5, 4) - 9.5) / 7).astype(np.float32)  # batch of 5
YS = np.array([0.5, -1.0, 0.25, 2.0, -0.5], np.float32)
LOGITS = np.array([[1.0, 2.0, 0.5], [-0.3, 0.1, 0.9]], np.float32)
LABELS = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], np.float32)
M33 = np.array([[2.0, 0.5, -1.0], [0.5, 1.5, 0.25], [-1.0, 0.25, 3.0]], np.float32)


def _poly(x):
    return 3 * x**3 - 2 * x**2 + x - 1


def _mlp(jnp):
    def layer(W, b, x):
        return jnp.sum(jnp.tanh(x @ W + b))

    return layer


def _xent(jnp):
    def loss(logits, labels):
        m = jnp.max(logits, axis=-1, keepdims=True)
        shifted = logits - m
        logp = shifted - jnp.log(jnp.sum(jnp.exp(shifted), axis=-1, keepdims=True))
        return -jnp.sum(labels * logp) / logits.shape[0]

    return loss


def _sq_loss(jnp):
    # One example's loss for per-example gradients: (w . x - y)^2.
    def loss(w, x, y):
        return (jnp.dot(w, x) - y) ** 2

    return loss


# ---------------------------------------------------------------------------------------------
# Polynomials and scalar functions


@case
def grad_poly_scalar(jax, jnp, lax):
    return jax.grad(_poly), (1.5,)


@case
def grad_poly_f32(jax, jnp, lax):
    return jax.grad(_poly), (np.float32(-0.75),)


@case
def value_and_grad_poly(jax, jnp, lax):
    return jax.value_and_grad(_poly), (np.float32(2.0),)


@case
def second_derivative_poly(jax, jnp, lax):
    return jax.grad(jax.grad(_poly)), (np.float32(0.5),)


@case
def third_derivative_sin(jax, jnp, lax):
    return jax.grad(jax.grad(jax.grad(jnp.sin))), (np.float32(0.3),)


@case
def jacfwd_poly_vector(jax, jnp, lax):
    return jax.jacfwd(_poly), (X3,)


@case
def jacrev_poly_vector(jax, jnp, lax):
    return jax.jacrev(_poly), (X3,)


@case
def grad_pow_exp_log(jax, jnp, lax):
    return jax.grad(lambda x: jnp.sum(jnp.exp(x) * jnp.log(x**2 + 1) + x**0.5)), (np.abs(X3) + 0.1,)


@case
def grad_integer_power_negative(jax, jnp, lax):
    return jax.grad(lambda x: jnp.sum(x**-2 + x**3)), (np.array([0.5, 2.0, -1.5], np.float32),)


# ---------------------------------------------------------------------------------------------
# Layers and losses


@case
def grad_mlp_params(jax, jnp, lax):
    return jax.grad(_mlp(jnp), argnums=(0, 1)), (W43, B3, X4)


@case
def jacrev_mlp_input(jax, jnp, lax):
    return jax.jacrev(lambda x, W, b: jnp.tanh(x @ W + b)), (X4, W43, B3)


@case
def jacfwd_mlp_input(jax, jnp, lax):
    return jax.jacfwd(lambda x, W, b: jnp.tanh(x @ W + b)), (X4, W43, B3)


@case
def value_and_grad_xent(jax, jnp, lax):
    return jax.value_and_grad(_xent(jnp)), (LOGITS, LABELS)


@case
def grad_xent_params_dict(jax, jnp, lax):
    def loss(params, x, labels):
        logits = x @ params["W"] + params["b"]
        return _xent(jnp)(logits[None, :], labels[:1])

    return jax.grad(loss), ({"W": W43, "b": B3}, X4, LABELS)


@case
def grad_has_aux(jax, jnp, lax):
    def f(x):
        y = jnp.sum(jnp.sin(x) ** 2)
        return y, {"norm": jnp.sqrt(jnp.sum(x * x)), "n": x.shape[0]}

    return jax.value_and_grad(f, has_aux=True), (X3,)


@case
def grad_norm(jax, jnp, lax):
    return jax.grad(lambda x: jnp.linalg.norm(x)), (X4,)


@case
def hessian_quadratic_form(jax, jnp, lax):
    return jax.hessian(lambda x, A: x @ A @ x), (X3, M33)


@case
def hessian_logsumexp(jax, jnp, lax):
    return jax.hessian(lambda x: jnp.log(jnp.sum(jnp.exp(x)))), (X3,)


@case
def jacobian_matmul_both(jax, jnp, lax):
    return jax.jacrev(lambda A, x: A @ x, argnums=(0, 1)), (M33, X3)


# ---------------------------------------------------------------------------------------------
# Kinks and non-smooth points (JAX's conventions)


@case
def grad_max_with_ties(jax, jnp, lax):
    # Ties share the gradient equally.
    return jax.grad(lambda x: jnp.max(x)), (np.array([1.0, 3.0, 3.0, 2.0], np.float32),)


@case
def grad_maximum_tie_relu(jax, jnp, lax):
    return jax.vmap(jax.grad(lambda x: jnp.maximum(x, 0.0))), (
        np.array([-1.0, 0.0, 2.0], np.float32),
    )


@case
def grad_abs_at_zero(jax, jnp, lax):
    return jax.vmap(jax.grad(jnp.abs)), (np.array([-2.0, 0.0, 3.0], np.float32),)


@case
def grad_where_branches(jax, jnp, lax):
    return jax.grad(lambda x: jnp.sum(jnp.where(x > 0, x**2, -3 * x))), (
        np.array([-1.0, 0.0, 0.5, 2.0], np.float32),
    )


@case
def grad_where_sqrt_nan(jax, jnp, lax):
    # The untaken branch's infinite derivative times a zero cotangent gives NaN, as in JAX.
    return jax.grad(lambda x: jnp.sum(jnp.where(x > 0, jnp.sqrt(x), 0.0))), (
        np.array([0.0, 4.0], np.float32),
    )


@case
def grad_clip_minimum(jax, jnp, lax):
    return jax.grad(lambda x: jnp.sum(jnp.clip(x, -1.0, 1.0) * jnp.minimum(x, 0.5))), (
        np.array([-2.0, -0.5, 0.5, 0.75, 3.0], np.float32),
    )


@case
def grad_sort_and_cumsum(jax, jnp, lax):
    w = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    return jax.grad(lambda x: jnp.sum(jnp.sort(x) * w) + jnp.sum(jnp.cumsum(x) ** 2)), (X4,)


# ---------------------------------------------------------------------------------------------
# Indexing and .at updates


@case
def grad_indexing(jax, jnp, lax):
    idx = np.array([0, 2, 2, 3])
    return jax.grad(lambda x: x[1] * 2 + jnp.sum(x[::2] ** 2) + jnp.sum(x[idx] * x[idx])), (X4,)


@case
def grad_at_set(jax, jnp, lax):
    return jax.grad(lambda x, y: jnp.sum(jnp.sin(x.at[1].set(y * 3.0))), argnums=(0, 1)), (
        X4,
        np.float32(0.7),
    )


@case
def grad_at_add_mul(jax, jnp, lax):
    def f(x, u):
        z = x.at[np.array([0, 2])].add(u)
        z = z.at[3].multiply(u[0])
        return jnp.sum(z**2)

    return jax.grad(f, argnums=(0, 1)), (X4, np.array([0.5, -1.5], np.float32))


@case
def grad_dynamic_slice_update(jax, jnp, lax):
    def f(x, u):
        y = lax.dynamic_update_slice(x, u, (1,))
        return jnp.sum(lax.dynamic_slice(y, (2,), (2,)) ** 3)

    return jax.grad(f, argnums=(0, 1)), (X4, np.array([2.0, -1.0], np.float32))


@case
def grad_shapes(jax, jnp, lax):
    def f(x):
        y = jnp.concatenate([x, 2 * x]).reshape(2, 4).T
        return jnp.sum(jnp.tanh(y) * jnp.arange(8.0).reshape(4, 2))

    return jax.grad(f), (X4,)


# ---------------------------------------------------------------------------------------------
# jvp, vjp, linearize


@case
def jvp_sin_cos(jax, jnp, lax):
    return (lambda x, t: jax.jvp(lambda a: jnp.sin(a) * jnp.cos(a), (x,), (t,))), (X3, X3[::-1])


@case
def jvp_two_inputs_tuple_out(jax, jnp, lax):
    def f(a, b):
        return a * b, jnp.sum(a / (1 + b**2))

    return (lambda a, b, ta, tb: jax.jvp(f, (a, b), (ta, tb))), (X3, B3, B3, X3)


@case
def vjp_tuple_output(jax, jnp, lax):
    def run(x, c1, c2):
        out, pull = jax.vjp(lambda a: (jnp.exp(a), jnp.sum(a**2)), x)
        return out, pull((c1, c2))

    return run, (X3, B3, np.float32(2.0))


@case
def vjp_two_inputs(jax, jnp, lax):
    def run(A, x, ct):
        out, pull = jax.vjp(lambda M, v: jnp.tanh(M @ v), A, x)
        return out, pull(ct)

    return run, (M33, X3, B3)


@case
def linearize_then_apply(jax, jnp, lax):
    def run(x, t):
        y, f_jvp = jax.linearize(lambda a: jnp.sin(a) ** 2, x)
        return y, f_jvp(t), f_jvp(2 * t)

    return run, (X3, B3)


# ---------------------------------------------------------------------------------------------
# vmap with grad (per-example gradients), and jit in every order


@case
def per_example_grads(jax, jnp, lax):
    return jax.vmap(jax.grad(_sq_loss(jnp)), in_axes=(None, 0, 0)), (X4, XS, YS)


@case
def per_example_value_and_grad(jax, jnp, lax):
    return jax.vmap(jax.value_and_grad(_sq_loss(jnp), argnums=(0, 1)), in_axes=(None, 0, 0)), (
        X4,
        XS,
        YS,
    )


@case
def jit_vmap_grad(jax, jnp, lax):
    return jax.jit(jax.vmap(jax.grad(_sq_loss(jnp)), in_axes=(None, 0, 0))), (X4, XS, YS)


@case
def vmap_jit_grad(jax, jnp, lax):
    return jax.vmap(jax.jit(jax.grad(_sq_loss(jnp))), in_axes=(None, 0, 0)), (X4, XS, YS)


@case
def vmap_grad_jit(jax, jnp, lax):
    return jax.vmap(jax.grad(jax.jit(_sq_loss(jnp))), in_axes=(None, 0, 0)), (X4, XS, YS)


@case
def grad_jit_vmap(jax, jnp, lax):
    batched = jax.jit(jax.vmap(_sq_loss(jnp), in_axes=(None, 0, 0)))
    return jax.grad(lambda w, xs, ys: jnp.mean(batched(w, xs, ys))), (X4, XS, YS)


@case
def grad_vmap_jit(jax, jnp, lax):
    batched = jax.vmap(jax.jit(_sq_loss(jnp)), in_axes=(None, 0, 0))
    return jax.grad(lambda w, xs, ys: jnp.mean(batched(w, xs, ys))), (X4, XS, YS)


@case
def jit_grad_vmap(jax, jnp, lax):
    batched = jax.vmap(_sq_loss(jnp), in_axes=(None, 0, 0))
    return jax.jit(jax.grad(lambda w, xs, ys: jnp.mean(batched(w, xs, ys)))), (X4, XS, YS)


@case
def jit_hessian_vmap_out_axes(jax, jnp, lax):
    h = jax.jit(jax.hessian(lambda x: jnp.sum(jnp.sin(x) * x**2)))
    return jax.vmap(h, out_axes=1), (XS[:3, :3],)


@case
def jacfwd_of_jacrev_mixed(jax, jnp, lax):
    return jax.jacfwd(jax.jacrev(lambda x, W: jnp.tanh(x @ W)), argnums=1), (X4, W43)


# ---------------------------------------------------------------------------------------------
# Control flow (results and derivatives)


@case
def scan_cumprod_grad(jax, jnp, lax):
    def f(x):
        def step(c, xi):
            c = c * xi
            return c, c

        last, ys = lax.scan(step, 1.0, x)
        return last + jnp.sum(ys)

    return jax.value_and_grad(f), (np.array([1.5, -0.5, 2.0, 0.8], np.float32),)


@case
def scan_rnn_jacfwd(jax, jnp, lax):
    def f(h0, xs, W):
        def step(h, x):
            h = jnp.tanh(W @ h + x)
            return h, h

        return lax.scan(step, h0, xs)[1]

    return jax.jacfwd(f), (B3, XS[:, :3], M33 / 3)


@case
def cond_grad_both_branches(jax, jnp, lax):
    def f(x):
        return lax.cond(x > 0, lambda a: jnp.sin(a) * a, lambda a: a**3, x)

    return jax.vmap(jax.grad(f)), (np.array([-1.5, 0.5, 2.0], np.float32),)


@case
def cond_value_jit(jax, jnp, lax):
    def f(p, x):
        return lax.cond(p, lambda a: a + 1.0, lambda a: a * 2.0, x)

    return jax.jit(f), (np.bool_(False), X3)


@case
def while_loop_value_and_jvp(jax, jnp, lax):
    def f(x):
        def body(c):
            i, v = c
            return i + 1, v * 0.5 + jnp.sin(v)

        return lax.while_loop(lambda c: c[0] < 4, body, (0, x))[1]

    return (lambda x, t: (f(x), jax.jvp(f, (x,), (t,)))), (X3, B3)


@case
def fori_loop_grad(jax, jnp, lax):
    def f(x):
        return jnp.sum(lax.fori_loop(0, 3, lambda i, v: v * x + i, x))

    return jax.grad(f), (X3,)
