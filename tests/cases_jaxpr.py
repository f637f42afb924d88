"""Golden ``make_jaxpr`` cases: small programs whose printed jaxpr must equal JAX's exactly.

Each case is a name and a maker ``make(jax, jnp, lax) -> (fn, args)`` with NumPy arrays or
Python scalars as arguments. ``tests/golden_gen/jaxpr_gen.py`` stores
``str(jax.make_jaxpr(fn)(*args))`` from real JAX in ``tests/golden/jaxpr.json``;
``tests/test_golden_jaxpr.py`` checks ``str(spmd.make_jaxpr(fn)(*args))`` against it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

bf16 = ml_dtypes.bfloat16


def case_registry() -> tuple[dict[str, Callable[[Any, Any, Any], tuple]], Callable]:
    """A new ``(CASES, case)`` pair: ``@case`` registers ``fn(jax, jnp, lax) -> (program,
    args)`` in ``CASES`` under its own name."""
    cases: dict[str, Callable[[Any, Any, Any], tuple]] = {}

    def case(fn: Callable) -> Callable:
        if fn.__name__ in cases:
            raise ValueError(f"duplicate case {fn.__name__}")
        cases[fn.__name__] = fn
        return fn

    return cases, case


CASES, case = case_registry()


X3 = np.arange(3, dtype=np.float32)
X34 = np.arange(12, dtype=np.float32).reshape(3, 4)
I34 = np.arange(12, dtype=np.int32).reshape(3, 4)
CONST = np.array([1.0, 2.0, 3.0], np.float32)


@case
def seed_vdot(jax, jnp, lax):
    def dot(v1, v2):
        return jnp.vdot(v1, v2)

    vs = np.arange(48, dtype=np.float32).reshape(16, 3)
    return dot, (vs[:8], vs[8:])


@case
def elementwise_chain(jax, jnp, lax):
    return (lambda x, y: jnp.sin(x) * y + 1.0), (X3, X3)


@case
def unary_math(jax, jnp, lax):
    return (lambda x: (jnp.exp(x), jnp.log(x), jnp.tanh(x), jnp.sqrt(x), -x)), (X3,)


@case
def scalar_mul_int(jax, jnp, lax):
    return (lambda x: x * 2), (I34,)


@case
def scalar_arg_weak(jax, jnp, lax):
    return (lambda x, s: x * s), (X3, 2.0)


@case
def python_scalars_only(jax, jnp, lax):
    return (lambda a, b: a + b), (1, 2.5)


@case
def rank_promotion(jax, jnp, lax):
    return (lambda x, y: x + y), (X34, X34[0])


@case
def int_float_promotion(jax, jnp, lax):
    return (lambda x, y: x + y), (I34, X34)


@case
def true_divide_int(jax, jnp, lax):
    return (lambda x, y: x / y), (I34, I34)


@case
def integer_pow(jax, jnp, lax):
    return (lambda x: (x**2, x**3, 1 / x)), (X3,)


@case
def compare_logical(jax, jnp, lax):
    return (lambda x, y: jnp.logical_and(x > 1, y <= 2.0)), (X3, X3)


@case
def reductions(jax, jnp, lax):
    return (lambda x: (jnp.sum(x, axis=0), jnp.max(x), jnp.min(x, axis=1))), (X34,)


@case
def mean_keepdims(jax, jnp, lax):
    return (lambda x: jnp.mean(x, axis=1, keepdims=True)), (X34,)


@case
def sum_bf16(jax, jnp, lax):
    return (lambda x: jnp.sum(x)), (X34.astype(bf16),)


@case
def sum_int8(jax, jnp, lax):
    return (lambda x: x.sum(axis=1)), (I34.astype(np.int8),)


@case
def argmax(jax, jnp, lax):
    return (lambda x: jnp.argmax(x, axis=1)), (X34,)


@case
def dot_1d(jax, jnp, lax):
    return (lambda x, y: jnp.dot(x, y)), (X3, X3)


@case
def matmul_2d(jax, jnp, lax):
    return (lambda x, y: x @ y), (X34, X34.T.copy())


@case
def matmul_batched(jax, jnp, lax):
    a = np.zeros((2, 3, 4), np.float32)
    return (lambda x, y: jnp.matmul(x, y)), (a, X34.T.copy())


@case
def nested_jit(jax, jnp, lax):
    def f(x):
        return jax.jit(lambda y: y * 3)(x) + 1

    return f, (X3,)


@case
def closure_constant(jax, jnp, lax):
    return (lambda x: x + CONST), (X3,)


@case
def closure_big_constant(jax, jnp, lax):
    c = np.arange(12, dtype=np.float32).reshape(3, 4)
    return (lambda x: x * c), (X34,)


@case
def literals_each_dtype(jax, jnp, lax):
    def f(b, i8, u8, i32, f16, h, f32):
        return (b & True, i8 + 1, u8 * 2, i32 - 3, f16 * 0.5, h + 1.5, f32 / 4)

    return f, (
        np.array([True, False]),
        np.array([1, 2], np.int8),
        np.array([1, 2], np.uint8),
        np.array([1, 2], np.int32),
        np.array([1, 2], np.float16),
        np.array([1, 2], bf16),
        np.array([1, 2], np.float32),
    )


@case
def where(jax, jnp, lax):
    return (lambda c, x: jnp.where(c, x, 0.0)), (np.array([True, False, True]), X3)


@case
def reshape_transpose(jax, jnp, lax):
    return (lambda x: (x.reshape(4, 3), x.T, jnp.transpose(x.reshape(2, 2, 3), (2, 0, 1)))), (X34,)


@case
def expand_squeeze(jax, jnp, lax):
    return (lambda x: jnp.squeeze(jnp.expand_dims(x, 0), 0)), (X34,)


@case
def slicing(jax, jnp, lax):
    return (lambda x: (x[1:3], x[0], x[:, None, 2], x[::2])), (X34,)


@case
def astype(jax, jnp, lax):
    return (lambda x: (x.astype(jnp.int32), x.astype(jnp.bfloat16), x.astype(bool))), (X3,)


@case
def lax_direct(jax, jnp, lax):
    def f(x, y):
        z = lax.add(x, y)
        z = lax.select(lax.gt(z, y), z, y)
        return lax.convert_element_type(z, np.int32)

    return f, (X3, X3)


@case
def lax_broadcast_reduce(jax, jnp, lax):
    def f(x):
        y = lax.broadcast_in_dim(x, (2, 3), (1,))
        return lax.reduce_sum(y, (0,))

    return f, (X3,)


@case
def relu_softmax(jax, jnp, lax):
    def f(x):
        r = jnp.maximum(x, 0.0)
        e = jnp.exp(r - jnp.max(r, axis=-1, keepdims=True))
        return e / jnp.sum(e, axis=-1, keepdims=True)

    return f, (X34,)


@case
def concatenate_stack(jax, jnp, lax):
    return (lambda x, y: (jnp.concatenate([x, y]), jnp.stack([x, y], axis=1))), (X3, X3)


@case
def pytree_args(jax, jnp, lax):
    def f(d):
        return {"out": d["a"] * d["b"]}, d["a"]

    return f, ({"a": X3, "b": X3},)


@case
def unused_input_and_identity(jax, jnp, lax):
    return (lambda x, y: x), (X3, I34)


@case
def cumsum_sort(jax, jnp, lax):
    return (lambda x: (jnp.cumsum(x), jnp.sort(x))), (X3,)


@case
def gather_index(jax, jnp, lax):
    return (lambda x, i: x[i]), (X34, np.array([2, 0], np.int32))


@case
def scatter_set(jax, jnp, lax):
    return (lambda x: x.at[1].set(5.0)), (X3,)


@case
def einsum(jax, jnp, lax):
    return (lambda x, y: jnp.einsum("ij,jk->ik", x, y)), (X34, X34.T.copy())


# ---------------------------------------------------------------------------------------------
# shard_map: bodies typed with the mesh axes each value varies over ({V:x}), pvary casts,
# psum_invariant; autodiff as shard_maps of the differentiated bodies (8 devices)


def _mesh_2x4(jax):
    auto = (jax.sharding.AxisType.Auto,) * 2
    return jax.make_mesh((2, 4), ("x", "y"), axis_types=auto)


def _psum_matmul(jax, lax, check_vma=True):
    P = jax.sharding.PartitionSpec

    def f(a, b):
        return lax.psum(a @ b, "y")

    return jax.shard_map(f, mesh=_mesh_2x4(jax), in_specs=(P("x", "y"), P("y", None)),
                         out_specs=P("x", None), check_vma=check_vma)  # fmt: skip


A816 = np.ones((8, 16), np.float32)
B164 = np.ones((16, 4), np.float32)
C84 = np.ones((8, 4), np.float32)


@case
def shard_map_psum_matmul(jax, jnp, lax):
    return _psum_matmul(jax, lax), (A816, B164)


@case
def shard_map_psum_matmul_grad(jax, jnp, lax):
    g = _psum_matmul(jax, lax)
    return jax.grad(lambda a, b: g(a, b).sum(), argnums=(0, 1)), (A816, B164)


@case
def shard_map_psum_matmul_vjp(jax, jnp, lax):
    g = _psum_matmul(jax, lax)
    return (lambda a, b, ct: jax.vjp(g, a, b)[1](ct)), (A816, B164, C84)


@case
def shard_map_psum_matmul_jvp(jax, jnp, lax):
    g = _psum_matmul(jax, lax)
    return (lambda a, b, ta, tb: jax.jvp(g, (a, b), (ta, tb))), (A816, B164, A816, B164)


@case
def shard_map_unchecked(jax, jnp, lax):
    return _psum_matmul(jax, lax, check_vma=False), (A816, B164)


@case
def shard_map_unchecked_vjp(jax, jnp, lax):
    g = _psum_matmul(jax, lax, check_vma=False)
    return (lambda a, b, ct: jax.vjp(g, a, b)[1](ct)), (A816, B164, C84)


@case
def shard_map_all_gather_ppermute(jax, jnp, lax):
    P = jax.sharding.PartitionSpec

    def f(a, b):
        g = lax.all_gather(a, "y", axis=0, tiled=True)
        h = lax.ppermute(b, "x", [(0, 1), (1, 0)])
        return g * 2.0, jnp.sin(h) + a[:4]

    sm = jax.shard_map(f, mesh=_mesh_2x4(jax), in_specs=(P("x", "y"), P(None, "y")),
                       out_specs=(P("x", "y"), P("x", "y")))  # fmt: skip
    return sm, (np.ones((8, 16), np.float32), np.ones((4, 16), np.float32))


@case
def shard_map_under_jit(jax, jnp, lax):
    P = jax.sharding.PartitionSpec
    sm = jax.shard_map(lambda x: lax.psum(x.sum(), "x") * x, mesh=_mesh_2x4(jax),
                       in_specs=P("x"), out_specs=P("x"))  # fmt: skip

    @jax.jit
    def step(x):
        return sm(jnp.cos(x)) + 1.0

    return (lambda x: step(x) * 2.0), (X34[:2].copy(),)


# pmap: a jit of its shard_map over a 1-D mesh (JAX 0.10)


@case
def pmap_psum(jax, jnp, lax):
    f = jax.pmap(lambda x: lax.psum(x * 2, "i"), axis_name="i")
    return f, (np.ones((4, 3), np.float32),)


@case
def pmap_in_axes_none_out_axes_1(jax, jnp, lax):
    f = jax.pmap(lambda x, w: x @ w, in_axes=(0, None), out_axes=1)
    return f, (np.ones((4, 2, 3), np.float32), np.ones((3, 5), np.float32))


@case
def pmap_all_gather_grad(jax, jnp, lax):
    f = jax.pmap(jax.grad(lambda x: lax.all_gather(x, "i").sum()), axis_name="i")
    return f, (np.ones((4, 3), np.float32),)


# Transformations: batching rules' and derivative rules' equations, in JAX's order


@case
def vmap_cond_batched_predicate(jax, jnp, lax):
    # Each branch sees its operands through stop_gradient where it is not taken.
    f = jax.vmap(lambda p, x: lax.cond(p > 1, jnp.sin, jnp.cos, x))
    return f, (X3, X34)


@case
def vmap_cond_unbatched_operands(jax, jnp, lax):
    def f(p, x, n):
        return lax.cond(p, lambda x, n: x * n, lambda x, n: x + n, x, n)

    return jax.vmap(f, (0, None, None)), (np.array([True, False, True]), 2.0, np.int32(3))


@case
def vmap_switch_batched_index(jax, jnp, lax):
    f = jax.vmap(lambda i, x: lax.switch(i, [jnp.sin, jnp.cos, jnp.tanh], x))
    return f, (np.array([0, 2, 1], np.int32), X3)


@case
def nested_vmap_broadcast_order(jax, jnp, lax):
    f = jax.vmap(jax.vmap(lambda a, b: a + b * 2, (0, None)), (None, 0))
    return f, (X3, X3)


@case
def grad_relu_relu6(jax, jnp, lax):
    return jax.grad(lambda x: (jax.nn.relu(x) + jax.nn.relu6(x)).sum()), (X3 - 1,)


@case
def grad_integer_pows(jax, jnp, lax):
    return jax.grad(lambda x: x**2 + x**3 + lax.integer_pow(x, 1)), (2.0,)


@case
def linearize_tanh(jax, jnp, lax):
    return (lambda x, t: jax.linearize(jnp.tanh, x)[1](t)), (X3, X3)


@case
def grad_of_jit(jax, jnp, lax):
    # jit survives autodiff: a known jit (primal and residuals) and a transposed one.
    f = jax.jit(lambda x: jnp.sin(x) * x)
    return jax.grad(f), (1.0,)


@case
def jvp_of_jit(jax, jnp, lax):
    f = jax.jit(lambda x: jnp.sin(x) * x)
    return (lambda x, t: jax.jvp(f, (x,), (t,))), (1.0, 1.0)


@case
def grad_log_softmax_xent(jax, jnp, lax):
    def f(logits, labels):
        return -jnp.mean(jnp.sum(jax.nn.one_hot(labels, 4) * jax.nn.log_softmax(logits), -1))

    return jax.grad(f), (X34, np.array([0, 3, 1], np.int32))


@case
def grad_logsumexp(jax, jnp, lax):
    return jax.grad(lambda x: jax.nn.logsumexp(x)), (X3,)


@case
def grad_mlp_layer(jax, jnp, lax):
    w = np.arange(20, dtype=np.float32).reshape(4, 5) / 10

    def loss(w, b, x):
        return jnp.mean(jax.nn.relu(x @ w + b) ** 2)

    return jax.grad(loss, argnums=(0, 1)), (w, np.arange(5, dtype=np.float32), X34)


@case
def per_example_grads(jax, jnp, lax):
    w = np.arange(20, dtype=np.float32).reshape(4, 5) / 10
    return jax.vmap(jax.grad(lambda w, x: jnp.sum(jnp.tanh(x @ w))), (None, 0)), (w, X34)


@case
def value_and_grad_has_aux(jax, jnp, lax):
    f = jax.value_and_grad(lambda x: (jnp.sum(x * x), x.mean()), has_aux=True)
    return f, (X3,)


@case
def grad_checkpoint_and_custom_vjp(jax, jnp, lax):
    @jax.custom_vjp
    def g(x):
        return jnp.sin(x)

    g.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda c, t: (t * c,))
    h = jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)))
    return jax.grad(lambda x: (g(x) + h(x)).sum()), (X3,)


@case
def vmap_scan_and_fori(jax, jnp, lax):
    def f(a):
        c, ys = lax.scan(lambda c, x: (c + x, c * x), 0.0, a)
        return lax.fori_loop(0, 3, lambda i, c: c * 2.0 + i, c), ys

    return jax.vmap(f), (X34,)


@case
def jacobians_of_two_arguments(jax, jnp, lax):
    # The basis is built in the program (iota, split, reshape, convert), as JAX builds it.
    y = np.ones((2, 2), np.float32)

    def f(x, y):
        return jnp.sin(x) * y.sum(), x[:2] @ y

    fwd, rev = jax.jacfwd(f, argnums=(0, 1)), jax.jacrev(f, argnums=(0, 1))
    return (lambda x, y: (fwd(x, y), rev(x, y))), (X3, y)


@case
def hessian_and_scalar_jacrev(jax, jnp, lax):
    h = jax.hessian(lambda x: jnp.sum(x**3))
    return (lambda x, s: (h(x), jax.jacrev(lambda v: v * 2.0)(s))), (X3, 2.0)


@case
def grad_softplus_sigmoid(jax, jnp, lax):
    return jax.grad(lambda x: (jax.nn.softplus(x) * jax.nn.sigmoid(x)).sum()), (X3,)


@case
def grad_logaddexp(jax, jnp, lax):
    return jax.grad(jnp.logaddexp, argnums=(0, 1)), (1.0, 2.0)


# Control flow under autodiff and vmap: cond's residual placeholders (empty2), while loops
# with a batched predicate, scan's stacked residuals.


@case
def grad_cond_sin_cos(jax, jnp, lax):
    return jax.grad(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x)), (1.0,)


@case
def grad_cond_residual_in_one_branch(jax, jnp, lax):
    return jax.grad(lambda x: lax.cond(x > 0, jnp.sin, lambda x: 2.0 * x, x)), (1.0,)


@case
def grad_cond_shaped_residuals(jax, jnp, lax):
    def f(x):
        return lax.cond(
            x.sum() > 0, lambda x: (jnp.sin(x) * jnp.exp(x)).sum(), lambda x: (x * x).sum(), x
        )

    return jax.grad(f), (X3,)


@case
def grad_switch_weak_and_strong_residuals(jax, jnp, lax):
    branches = [
        lambda x: x * x,
        lambda x: jnp.sin(x) * x,
        lambda x: x.astype(jnp.int32).astype(jnp.float32) * x,
    ]
    return jax.grad(lambda x: lax.switch(2, branches, x)), (1.0,)


@case
def grad_cond_int_operand(jax, jnp, lax):
    return jax.grad(lambda x, i: lax.cond(x > 0, lambda x: x * i, jnp.sin, x)), (1.0, 2)


@case
def vmap_grad_cond(jax, jnp, lax):
    g = jax.grad(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x))
    return jax.vmap(g), (X3,)


@case
def vmap_grad_cond_unbatched_predicate(jax, jnp, lax):
    g = jax.grad(lambda x, y: lax.cond(y > 0, jnp.sin, jnp.cos, x))
    return jax.vmap(g, (0, None)), (X3, 1.0)


@case
def vmap_while_batched_predicate(jax, jnp, lax):
    return jax.vmap(lambda x: lax.while_loop(lambda c: c < x, lambda c: c + 1.0, 0.0)), (X3,)


@case
def vmap_while_batched_predicate_two_carries(jax, jnp, lax):
    def f(x):
        return lax.while_loop(lambda c: c[0] < x, lambda c: (c[0] + 1.0, c[1] * 2.0), (0.0, 1.0))

    return jax.vmap(f), (X3,)


@case
def vmap_fori_batched_trip_count(jax, jnp, lax):
    f = jax.vmap(lambda n: lax.fori_loop(0, n, lambda i, c: c * 2.0, 1.0))
    return f, (np.array([1, 3, 2], np.int32),)


@case
def vmap_while_batched_body_const(jax, jnp, lax):
    f = jax.vmap(lambda x, y: lax.while_loop(lambda c: c < y, lambda c: c + x, 0.0), (0, None))
    return f, (X3 + 1.0, 3.0)


@case
def vmap_while_nested_and_in_axes(jax, jnp, lax):
    def f(x):
        def body(c):
            return lax.while_loop(lambda d: d < c + 1.0, lambda d: d + 0.5, c)

        return lax.while_loop(lambda c: c < x.sum(), body, 0.0)

    return jax.vmap(f, in_axes=1), (X34,)


@case
def vmap_of_vmap_while_unbatched_predicate(jax, jnp, lax):
    def inner(y):
        def f(x):
            return lax.while_loop(lambda c: c[0] < x, lambda c: (c[0] + 1.0, c[1] * y), (0.0, 1.0))

        return jax.vmap(f)(CONST)

    return jax.vmap(inner), (X3,)


@case
def grad_scan_wrt_xs(jax, jnp, lax):
    return jax.grad(lambda xs: lax.scan(lambda c, a: (c * a + 1.0, c), 1.0, xs)[0]), (CONST,)


@case
def grad_scan_traced_xs(jax, jnp, lax):
    # xs traced (an argument, or computed): the transposed scan reads the xs array itself.
    def f(x, ys):
        return (
            lax.scan(lambda c, a: (c * a + 1.0, c), x, ys)[0]
            + lax.scan(lambda c, a: (c * a, c), x, jnp.sin(ys))[0]
        )

    return jax.grad(f), (1.0, CONST)


@case
def grad_scan_stacked_ys_and_carry(jax, jnp, lax):
    def f(x, ys):
        return lax.scan(lambda c, a: (jnp.sin(c) * a, c * c), x, ys)[1].sum()

    return jax.grad(f), (np.float32(1.0), CONST)


@case
def jvp_scan(jax, jnp, lax):
    def f(x):
        return lax.scan(lambda c, a: (c * a + 1.0, c), x, CONST)[0]

    return (lambda x: jax.jvp(f, (x,), (1.0,))), (1.0,)


@case
def grad_scan_constant_xs(jax, jnp, lax):
    # xs a constant: the known scan stacks each step's slice as a residual.
    return jax.grad(lambda x: lax.scan(lambda c, a: (c * a + 1.0, c), x, CONST)[0]), (1.0,)


@case
def vmap_grad_scan_constant_xs(jax, jnp, lax):
    f = jax.grad(lambda x: lax.scan(lambda c, a: (c * a + 1.0, c), x, CONST)[0])
    return jax.vmap(f), (CONST,)


@case
def grad_scan_linear_const(jax, jnp, lax):
    # The cotangent of a const the body multiplies by accumulates in the transposed loop's
    # carry, each term added where the body's transpose computes it.
    def f(w, xs):
        c, ys = lax.scan(lambda c, x: (c * w + x, c), 1.0, xs)
        return c + ys.sum()

    return jax.grad(f), (np.float32(0.5), CONST)


@case
def grad_scan_two_carries_const(jax, jnp, lax):
    def f(w, xs):
        def body(carry, x):
            a, b = carry
            return (a + b * x, b * w), a

        (a, b), ys = lax.scan(body, (1.0, 2.0), xs)
        return a + b + ys.sum()

    return jax.grad(f), (np.float32(0.5), CONST)


@case
def grad_scan_computed_const(jax, jnp, lax):
    def f(w, xs):
        k = jnp.sin(w)
        return lax.scan(lambda c, x: (jnp.tanh(c * k + x), None), 0.5, xs)[0]

    return jax.grad(f), (np.float32(0.5), CONST)


@case
def jit_inner_on_one_line(jax, jnp, lax):
    # A short inner program prints on one line, its equations separated by "; ".
    return (lambda x: jax.jit(lambda y: jnp.cos(jnp.sin(y)))(x)), (1.0,)


@case
def python_float_constants(jax, jnp, lax):
    # A Python float made into an array inside the program prints as Python writes it while
    # it keeps its default type; converted to float32 (against a float32 operand), it prints
    # the float32 value, folded: no convert_element_type equation.
    def f(x, w):
        a = x + jnp.asarray(1e-5) + jnp.array(0.25) * 0.1
        return a, w * jnp.full((3,), 0.1) + jnp.array(0.1), jnp.maximum(w, 0.3)

    return f, (1.0, CONST)


@case
def value_and_grad_allow_int(jax, jnp, lax):
    # An integer argument's cotangent is a float0 literal, printed as NumPy writes it.
    f = jax.value_and_grad(lambda x, n: x * n, argnums=(0, 1), allow_int=True)
    return f, (2.0, 3)


@case
def remat_policy(jax, jnp, lax):
    # A callable parameter prints with its address masked.
    policy = jax.checkpoint_policies.nothing_saveable
    return jax.grad(jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)), policy=policy)), (0.5,)


@case
def grad_vmap_cond_batched_predicate(jax, jnp, lax):
    # A batched predicate turns cond into select_n over an int32 index: its jvp makes one zero
    # tangent, and its transpose picks each branch's cotangent where the index equals it.
    def f(xs):
        return jax.vmap(lambda x: lax.cond(x > 2, jnp.sin, jnp.cos, x))(xs).sum()

    return jax.grad(f), (CONST,)


@case
def vmap_stack_keeps_batch_dims(jax, jnp, lax):
    # Operands batched at the same dimension are stacked where they are (the result's batch
    # dimension moves, then out_axes moves it back), as JAX's rule does.
    def f(a, b):
        s0 = jax.vmap(lambda u, v: jnp.stack([u, v]))(a, b)
        s1 = jax.vmap(lambda u, v: jnp.stack([u, v], axis=1), in_axes=1)(a, b)
        s2 = jax.vmap(lambda u, v: jnp.stack([u, v], axis=-1))(a, b)
        return s0, s1, s2

    return f, (X34, X34 + 1)


@case
def var_std_jitted(jax, jnp, lax):
    # jnp.var and jnp.std are jits, as in JAX: the correction, mean and where are operands.
    def f(a):
        return (
            jnp.var(a),
            jnp.var(a, axis=0, keepdims=True, where=a > 0.3),
            jnp.var(a, ddof=1.5, mean=jnp.float32(1)),
            jnp.std(a, axis=1, correction=1),
        )

    return f, (X34,)


@case
def var_grad_and_vmap(jax, jnp, lax):
    def f(a):
        return jax.grad(lambda b: jnp.std(b, axis=1).sum())(a), jax.vmap(jnp.var)(a)

    return f, (X34,)


@case
def numpy_index_mask_is_constant(jax, jnp, lax):
    # A NumPy index array's negative mask is computed when tracing (a constant of the program).
    idx = np.array([2, -1], np.int32)

    def f(x):
        return x[idx], jax.grad(lambda v: v.at[idx].add(v[0]).sum())(x)

    return f, (CONST,)


@case
def numpy_functions_that_are_jits(jax, jnp, lax):
    # round, around, rint, arccosh, signbit, isinf, fmod and remainder are jits in JAX 0.10;
    # an integer remainder divides by one where the divisor is zero.
    def f(x, i):
        return (
            jnp.round(x, 2),
            jnp.around(x),
            jnp.rint(x),
            jnp.arccosh(x + 1.0),
            jnp.signbit(x),
            jnp.isinf(x),
            jnp.fmod(x, 0.7),
            x % 2.0,
            jnp.remainder(i, 3),
        )

    return f, (CONST, np.array([5, -3, 0], np.int32))


@case
def nan_reductions_are_jits(jax, jnp, lax):
    def f(x, m):
        return (
            jnp.nansum(x),
            jnp.nanprod(m, axis=1, keepdims=True),
            jnp.nanmax(x),
            jnp.nanmin(m, axis=0),
            jnp.nanmean(x),
            jnp.nansum(m, axis=(0, 1), where=m > 0.2),
        )

    return f, (np.array([0.3, np.nan, 2.5], np.float32), X34)


@case
def numpy_where_based_functions_are_jits(jax, jnp, lax):
    # trunc, copysign, fmax and fmin are jits that select with the _where jit, as in JAX.
    def f(x, y):
        return jnp.trunc(x), jnp.copysign(x, y), jnp.fmax(x, y), jnp.fmin(x, y)

    return f, (np.array([0.3, -1.2, np.nan], np.float32), np.array([np.nan, 2.0, -0.5], np.float32))


@case
def angle_is_a_jit(jax, jnp, lax):
    # jnp.angle is a jit with static deg; a real input's imaginary part is a broadcast zero.
    def f(x, z):
        return jnp.angle(x), jnp.angle(z, deg=True)

    return f, (np.array([1.0, -2.0, 3.0], np.float32), np.array([1 + 1j, 2 - 1j], np.complex64))


@case
def diff_is_a_jit(jax, jnp, lax):
    # jnp.diff: static n and axis; prepend and append are keyword operands (append first).
    def f(x, m):
        return (
            jnp.diff(x),
            jnp.diff(m, n=2, axis=0),
            jnp.diff(x, prepend=0.0, append=x[:1]),
            jnp.diff(x > 1),
            jnp.diff(x, n=0),
        )

    return f, (np.array([1.0, -2.0, 3.0, 5.0], np.float32), X34)


@case
def i0_is_a_jit_around_a_custom_jvp(jax, jnp, lax):
    # jnp.i0: a jit around the custom_jvp _i0 (its JVP zeroes the tangent at 0), as in JAX.
    return (lambda x: (jnp.i0(x), jax.vmap(jnp.i0)(x))), (np.array([0.0, 1.0, -2.5], np.float32),)


@case
def nan_to_num_is_a_jit(jax, jnp, lax):
    # nan, posinf and neginf are operands (flattened in keyword order); complex input goes
    # through the jit again for each part; an integer input is returned as it is.
    def f(x, z, i, h):
        return (
            jnp.nan_to_num(x),
            jnp.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-3.0),
            jnp.nan_to_num(z, posinf=1.0),
            jnp.nan_to_num(i),
            jnp.nan_to_num(h, nan=np.float32(2)),
        )

    x = np.array([1.0, -np.inf, np.nan, np.inf], np.float32)
    z = np.array([1 + 1j, np.nan - 1j], np.complex64)
    return f, (x, z, np.array([1, 2], np.int32), np.ones(2, np.float16))


@case
def nancumsum_nancumprod_are_jits(jax, jnp, lax):
    # Jits of their own (flatten, replace NaNs, cast, scan); a boolean running sum or product
    # runs in the default int and is cast back, in cumsum and cumprod too.
    def f(x, i, b):
        return (
            jnp.nancumsum(x),
            jnp.nancumprod(x, axis=0, dtype=jnp.float16),
            jnp.nancumsum(i, axis=-1),
            jnp.nancumprod(i, dtype=bool),
            jnp.nancumsum(b),
            jnp.cumsum(b, dtype=bool),
            jnp.cumprod(i, dtype=bool),
        )

    x = np.array([[1.0, np.nan], [3.0, 4.0]], np.float32)
    return f, (x, np.array([[1, 0], [2, 3]], np.int32), np.array([True, False, True]))


@case
def nanvar_nanstd_are_jits(jax, jnp, lax):
    # An int count of the non-NaN elements less ddof (jnp promotion: a float ddof makes it a
    # weak float), NaN where it is not positive; nanstd passes ddof on to the nanvar jit.
    def f(x, w):
        return (
            jnp.nanvar(x),
            jnp.nanstd(x, axis=0, ddof=1, keepdims=True),
            jnp.nanvar(x.astype(jnp.float16), axis=1, ddof=1.5, where=w),
            jnp.nanstd(x, where=w, mean=x[:, :1], ddof=1),
            jnp.nanvar(x.astype(jnp.int32)),
            jnp.nanvar(x.astype(jnp.complex64), axis=0),
        )

    x = np.array([[1.0, np.nan, 3.0], [2.0, 5.0, 7.0]], np.float32)
    return f, (x, np.array([[1, 0, 1], [1, 1, 0]], bool))


@case
def sinc_spacing_heaviside_hypot(jax, jnp, lax):
    # sinc, heaviside and hypot are jits selecting with the _where jit (sinc's value at 0 a
    # custom_jvp Maclaurin term); spacing is not a jit but steps toward copysign(inf, x).
    def f(x, h):
        return jnp.sinc(x), jnp.spacing(x), jnp.heaviside(x, 0.5), jnp.hypot(x, 2.0), jnp.spacing(h)

    return f, (np.array([0.0, 1.5, -2.0], np.float32), np.array([-1.0, 0.0], np.float16))


@case
def floor_divide_is_a_jit(jax, jnp, lax):
    # Signs compared with sign; a float x // 0 divides x itself (so it is +-inf); // calls it.
    def f(x, i):
        return (
            jnp.floor_divide(x, 2.0),
            jnp.floor_divide(i, 3),
            x // 1.5,
            jnp.floor_divide(i, i[::-1]),
            jnp.floor_divide(i.astype(jnp.uint8), 2),
        )

    return f, (np.array([0.0, 1.5, -2.0], np.float32), np.array([5, -7, 0], np.int32))


I3 = np.array([12, -18, 0], np.int32)


@case
def gcd_is_a_jit_around_a_while_loop(jax, jnp, lax):
    # Euclid's steps until every divisor is zero (one loop here: JAX shares a loop body
    # traced twice with the same types, which spmd's while_loop does not cache).
    return (lambda a, b: jnp.gcd(a, b)), (I3, I3[::-1].copy())


@case
def lcm_is_a_jit_calling_gcd_and_floor_divide(jax, jnp, lax):
    return (lambda a: jnp.lcm(a, 4)), (I3,)


@case
def ldexp_and_frexp_are_jits(jax, jnp, lax):
    # ldexp goes through frexp (a jit around the custom_jvp _frexp) and a power of two; the
    # float16 exponent is computed in int16 and returned as int32.
    def f(x, e):
        return jnp.ldexp(x, e), jnp.ldexp(e, 2), jnp.frexp(x.astype(jnp.float16))

    return f, (np.array([0.0, 1.5, -2.0], np.float32), np.array([1, -2, 200], np.int32))


@case
def unwrap_is_a_jit(jax, jnp, lax):
    # discont and period are operands only when given (the default period is a constant).
    def f(p, m):
        return (
            jnp.unwrap(p),
            jnp.unwrap(m, axis=0, discont=4.0),
            jnp.unwrap(p, period=5),
            jnp.unwrap(p.astype(jnp.int32), period=5),
        )

    return f, (np.array([0.0, 3.0, 6.5, -1.0], np.float32), X34)


@case
def matrix_power_is_a_jit(jax, jnp, lax):
    # Static n; powers up to 3 directly, then squaring (a negative n, through JAX's inv jit,
    # is not here: spmd's inv is a primitive).
    def f(a, b):
        mp = jnp.linalg.matrix_power
        return mp(a, 3), mp(a, 0), mp(b, 5), mp(b, 1), mp(b, 0), mp(b, 6), mp(b, 2)

    return f, (
        np.array([[2.0, 1.0], [0.0, 3.0]], np.float32),
        np.arange(8, dtype=np.int32).reshape(2, 2, 2),
    )


@case
def where_scalar_predicate(jax, jnp, lax):
    # A scalar predicate stays scalar: only the cases are broadcast.
    return (lambda p, x: jnp.where(p, x, 1.0)), (True, CONST)


@case
def vmap_where_batched_scalar_predicate(jax, jnp, lax):
    return jax.vmap(lambda p, x: jnp.where(p, 2.0, x)), (CONST > 1.5, CONST)


@case
def associative_scan_tree(jax, jnp, lax):
    # JAX's tree of strided slices, combines, pads and concatenations (no primitive).
    return (lambda x: lax.associative_scan(lax.add, x, reverse=True)), (
        np.arange(5, dtype=np.float32),
    )


@case
def reduce_window_primitives(jax, jnp, lax):
    # Monoids with their identities bind reduce_window_sum/max; anything else the generic one.
    def f(x):
        return (
            lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1), "SAME"),
            lax.reduce_window(
                x, -jnp.inf, lax.max, (2, 2), (2, 1), ((1, 0), (0, 1)), (1, 1), (1, 2)
            ),
            lax.reduce_window(x, 1.0, lax.mul, (2, 1), (1, 1), "VALID"),
        )

    return f, (np.arange(12, dtype=np.float32).reshape(3, 4),)


@case
def approx_top_k_and_mulhi(jax, jnp, lax):
    # approx_max_k/min_k bind approx_top_k with reduction_dimension as given (-1 stays -1).
    def f(x, a, b):
        return (
            lax.approx_max_k(x, 3),
            lax.approx_min_k(x, 2, 0, aggregate_to_topk=False),
            (lax.mulhi(a, b)),
        )

    x = np.cos(np.arange(40, dtype=np.float32)).reshape(4, 10)
    return f, (x, np.arange(3, dtype=np.uint32), np.arange(3, dtype=np.uint32))


@case
def conv_transpose_nhwc(jax, jnp, lax):
    # One lhs-dilated conv_general_dilated with the padding conv_transpose works out.
    def f(x, w):
        return lax.conv_transpose(x, w, (2, 2), "SAME"), lax.conv_general_dilated_patches(
            x, (2, 2), (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )

    return f, (np.ones((1, 4, 4, 2), np.float32), np.ones((3, 3, 2, 5), np.float32))


@case
def ragged_dot_grad(jax, jnp, lax):
    # The cotangents are ragged_dot_generals too: lhs's in the same form with rhs's n
    # contracted, rhs's in the ragged-contracting form.
    gs = np.array([2, 0, 4], np.int32)
    f = jax.grad(lambda a, b: lax.ragged_dot(a, b, gs).sum(), argnums=(0, 1))
    return f, (np.ones((7, 4), np.float32), np.ones((3, 4, 5), np.float32))


__all__ = ["CASES"]
