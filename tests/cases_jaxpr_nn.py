"""Golden ``make_jaxpr`` cases for ``square``, ``jnp.clip``, the ``nn`` functions (and their
gradients) and ``nn.dot_product_attention``: programs whose printed jaxpr must equal JAX's.

Same format as ``tests/cases_jaxpr.py``: each case is a name and a maker
``make(jax, jnp, lax) -> (fn, args)``. ``tests/golden_gen/jaxpr_nn_gen.py`` stores
``str(jax.make_jaxpr(fn)(*args))`` from real JAX in ``tests/golden/jaxpr_nn.json``;
``tests/test_golden_jaxpr.py`` checks spmd's text against it.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from cases_jaxpr import case_registry

CASES, case = case_registry()


X = ((np.arange(6, dtype=np.float32) - 2.5) / 1.5).reshape(2, 3)
XI = np.arange(6, dtype=np.int32).reshape(2, 3)
POS = np.arange(1.0, 7.0, dtype=np.float32).reshape(2, 3)


def _sum_grad(jax, jnp, f):
    return jax.grad(lambda *a: jnp.sum(f(*a)))


# ---------------------------------------------------------------------------------------------
# square: jnp.square binds `square`; `x ** 2` and lax.integer_pow stay integer_pow


@case
def square_f32(jax, jnp, lax):
    return jnp.square, (1.0,)


@case
def square_int32(jax, jnp, lax):
    return jnp.square, (np.int32(3),)


@case
def square_bool(jax, jnp, lax):
    return jnp.square, (np.bool_(True),)


@case
def square_uint8(jax, jnp, lax):
    return jnp.square, (np.uint8(3),)


@case
def square_complex(jax, jnp, lax):
    return jnp.square, (np.complex64(3),)


@case
def square_lax(jax, jnp, lax):
    return lax.square, (X,)


@case
def square_pow2_is_integer_pow(jax, jnp, lax):
    return (lambda x: (x**2, lax.integer_pow(x, 2))), (X,)


@case
def square_jvp(jax, jnp, lax):
    return (lambda x, t: jax.jvp(jnp.square, (x,), (t,))), (1.0, 1.0)


@case
def square_grad(jax, jnp, lax):
    return jax.grad(jnp.square), (1.0,)


@case
def square_lax_grad(jax, jnp, lax):
    return jax.grad(lax.square), (1.0,)


@case
def square_vmap(jax, jnp, lax):
    return jax.vmap(lax.square), (X,)


@case
def square_linearize(jax, jnp, lax):
    return (lambda x: jax.linearize(lax.square, x)[1](x)), (2.0,)


@case
def square_grad_grad(jax, jnp, lax):
    return jax.grad(jax.grad(jnp.square)), (1.0,)


@case
def square_vmap_grad(jax, jnp, lax):
    return jax.vmap(jax.grad(jnp.square)), (X[0],)


@case
def square_jacfwd(jax, jnp, lax):
    return jax.jacfwd(jnp.square), (X[0, :2],)


@case
def square_in_arcsin_grad(jax, jnp, lax):
    return jax.grad(jnp.arcsin), (0.5,)


# ---------------------------------------------------------------------------------------------
# jnp.clip: jit[name=clip], Python-scalar bounds passed as weak arguments and converted inside


@case
def clip_int_min(jax, jnp, lax):
    return (lambda x: jnp.clip(x, 0)), (X,)


@case
def clip_float_bounds(jax, jnp, lax):
    return (lambda x: jnp.clip(x, -1.0, 1.0)), (X,)


@case
def clip_max_only(jax, jnp, lax):
    return (lambda x: jnp.clip(x, max=2)), (X,)


@case
def clip_no_bounds(jax, jnp, lax):
    return jnp.clip, (X,)


@case
def clip_array_bounds(jax, jnp, lax):
    return jnp.clip, (X, X[0], X[1])


@case
def clip_int_operand_float_bound(jax, jnp, lax):
    return (lambda x: jnp.clip(x, 0.5, 3)), (XI,)


@case
def clip_int_int(jax, jnp, lax):
    return (lambda x: jnp.clip(x, 1, 3)), (XI,)


@case
def clip_numpy_bounds(jax, jnp, lax):
    return (lambda x: jnp.clip(x, np.float32(0), np.int32(2))), (X,)


@case
def clip_grad(jax, jnp, lax):
    return jax.grad(lambda x: jnp.clip(x, 0.0, 1.0).sum()), (X,)


@case
def clip_vmap(jax, jnp, lax):
    return jax.vmap(lambda x: jnp.clip(x, 0, 1)), (X,)


@case
def clip_python_scalar(jax, jnp, lax):
    return (lambda x: jnp.clip(x, 0, 1)), (3.0,)


# ---------------------------------------------------------------------------------------------
# nn functions and their gradients (of the sum)


def _nn_case(name: str, make_fn: Callable, args: tuple) -> None:
    def fn_case(jax, jnp, lax):
        return make_fn(jax, jnp), args

    def grad_case(jax, jnp, lax):
        return _sum_grad(jax, jnp, make_fn(jax, jnp)), args

    fn_case.__name__ = f"nn_{name}"
    grad_case.__name__ = f"nn_{name}_grad"
    case(fn_case)
    case(grad_case)


for _name in [
    "relu",
    "relu6",
    "sigmoid",
    "silu",
    "softplus",
    "soft_sign",
    "log_sigmoid",
    "elu",
    "celu",
    "selu",
    "leaky_relu",
    "hard_tanh",
    "hard_sigmoid",
    "hard_silu",
    "mish",
    "squareplus",
    "sparse_plus",
    "sparse_sigmoid",
    "identity",
    "tanh",
    "softmax",
    "log_softmax",
    "logsumexp",
    "logmeanexp",
    "standardize",
]:
    _nn_case(_name, lambda jax, jnp, n=_name: getattr(jax.nn, n), (X,))

_nn_case("glu", lambda jax, jnp: jax.nn.glu, (np.arange(8, dtype=np.float32).reshape(2, 4),))
_nn_case("log1mexp", lambda jax, jnp: jax.nn.log1mexp, (POS,))
_nn_case("gelu_tanh", lambda jax, jnp: lambda x: jax.nn.gelu(x, approximate=True), (X,))
_nn_case("gelu_erf", lambda jax, jnp: lambda x: jax.nn.gelu(x, approximate=False), (X,))
_nn_case("softmax_axis0", lambda jax, jnp: lambda x: jax.nn.softmax(x, axis=0), (X,))
_nn_case("softmax_where", lambda jax, jnp: lambda x: jax.nn.softmax(x, where=x > 0), (X,))
_nn_case("log_softmax_where", lambda jax, jnp: lambda x: jax.nn.log_softmax(x, where=x > 0), (X,))
_nn_case(
    "logsumexp_keepdims",
    lambda jax, jnp: lambda x: jax.nn.logsumexp(x, axis=1, keepdims=True),
    (X,),
)
_nn_case("logsumexp_b", lambda jax, jnp: lambda x: jax.nn.logsumexp(x, axis=1, b=POS), (X,))
_nn_case(
    "logsumexp_where", lambda jax, jnp: lambda x: jax.nn.logsumexp(x, axis=1, where=x > 0), (X,)
)
_nn_case(
    "logsumexp_sign",
    lambda jax, jnp: lambda x: jax.nn.logsumexp(x, axis=1, return_sign=True)[0],
    (X,),
)
_nn_case("logmeanexp_axis", lambda jax, jnp: lambda x: jax.nn.logmeanexp(x, axis=1), (X,))
_nn_case(
    "logmeanexp_where",
    lambda jax, jnp: lambda x: jax.nn.logmeanexp(x, axis=0, where=x > 0),
    (X,),
)
_nn_case("standardize_axis0", lambda jax, jnp: lambda x: jax.nn.standardize(x, axis=0), (X,))
_nn_case(
    "standardize_stable",
    lambda jax, jnp: lambda x: jax.nn.standardize(x, algorithm="stable"),
    (X,),
)
_nn_case(
    "standardize_epsilon", lambda jax, jnp: lambda x: jax.nn.standardize(x, epsilon=1e-3), (X,)
)
_nn_case(
    "standardize_given",
    lambda jax, jnp: lambda x: jax.nn.standardize(x, mean=x.mean(-1, keepdims=True), variance=1.0),
    (X,),
)
_nn_case("standardize_where", lambda jax, jnp: lambda x: jax.nn.standardize(x, where=x > 0), (X,))
_nn_case("leaky_relu_slope", lambda jax, jnp: lambda x: jax.nn.leaky_relu(x, 0.25), (X,))
_nn_case("leaky_relu_slope_inexact", lambda jax, jnp: lambda x: jax.nn.leaky_relu(x, 0.2), (X,))
_nn_case("elu_alpha", lambda jax, jnp: lambda x: jax.nn.elu(x, 0.5), (X,))
_nn_case("celu_alpha", lambda jax, jnp: lambda x: jax.nn.celu(x, 0.5), (X,))
_nn_case("squareplus_b", lambda jax, jnp: lambda x: jax.nn.squareplus(x, 2.0), (X,))


@case
def nn_one_hot(jax, jnp, lax):
    return (lambda x: jax.nn.one_hot(x, 4)), (np.array([0, 2, 5], np.int32),)


# ---------------------------------------------------------------------------------------------
# dot_product_attention

_Q = ((np.arange(48, dtype=np.float32) % 7) / 7 - 0.4).reshape(2, 3, 2, 4)
_K = ((np.arange(64, dtype=np.float32) % 5) / 5 - 0.3).reshape(2, 4, 2, 4)
_V = ((np.arange(64, dtype=np.float32) % 9) / 9 - 0.5).reshape(2, 4, 2, 4)


@case
def attention(jax, jnp, lax):
    return jax.nn.dot_product_attention, (_Q, _K, _V)


@case
def attention_grad(jax, jnp, lax):
    return jax.grad(lambda q, k, v: jax.nn.dot_product_attention(q, k, v).sum()), (_Q, _K, _V)


@case
def attention_grouped_causal(jax, jnp, lax):
    q4 = np.concatenate([_Q, _Q[:, :, ::-1]], axis=2)
    return (lambda q, k, v: jax.nn.dot_product_attention(q, k, v, is_causal=True)), (q4, _K, _V)
