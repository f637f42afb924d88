"""Golden cases for ``nn.dot_product_attention`` and the ``nn``/``jnp`` functions rewritten to
follow JAX 0.10 exactly (standardize, logsumexp, logmeanexp, identity, glu, elu, jnp.clip,
jnp.square): one list, run by JAX and by spmd.

Each case is a name, a maker ``make(nn, jnp, lax) -> fn`` and a tuple of NumPy arguments (or
Python values). The same file serves:

- ``tests/golden_gen/nn_more_gen.py`` (run under real JAX), which records every output leaf of
  ``fn(*args)`` and of ``jax.jit(fn)(*args)`` (dtype, weak type, shape, values), for cases with
  ``grad`` argnums the gradient of ``loss(fn(*args))`` by those arguments, or the exception class
  JAX raises, into ``tests/golden/nn_more.json``;
- ``tests/test_nn_more.py`` (no JAX), which runs the cases with spmd and compares.

Inputs are deterministic (smooth functions of the index, no random numbers).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import ml_dtypes
import numpy as np

bf16 = ml_dtypes.bfloat16

# The "fast" variance E[x^2] - E[x]^2 cancels: XLA's and NumPy's reduction orders differ in the
# last bits of the variance, which the result scales.
STD_TOL = {"float32": 1e-4, "bfloat16": 6e-2}
# Attention sums a few products and exponentials: XLA and NumPy round them differently.
ATTN_TOL = {"float32": 2e-6, "bfloat16": 2e-2, "float16": 2e-3}


@dataclasses.dataclass(frozen=True)
class Case:
    """One case: ``make(nn, jnp, lax)`` gives the function to call on ``args``.

    ``grad``: the argnums to differentiate ``loss(fn(*args))`` by (None: no gradient).
    ``tol`` overrides float tolerances by dtype name. ``jit=False`` skips the jitted run.
    ``error``: the exception class JAX raises; ``match``: a regular expression spmd's message
    must match.
    """

    name: str
    make: Callable[[Any, Any, Any], Callable]
    args: tuple
    grad: tuple[int, ...] | None = None
    tol: dict | None = None
    jit: bool = True
    error: str | None = None
    match: str | None = None

    def build(self, nn, jnp, lax) -> tuple[Callable, tuple]:
        return self.make(nn, jnp, lax), self.args


CASES: list[Case] = []


def case(name: str, make, *args, **kw) -> None:
    if any(c.name == name for c in CASES):
        raise ValueError(f"duplicate case name {name!r}")
    CASES.append(Case(name, make, tuple(args), **kw))


def weights(shape) -> np.ndarray:
    """Deterministic weights in [0.5, 1.5] (no two neighbours alike), for weighted sums."""
    n = int(np.prod(shape, dtype=np.int64))
    return (1 + 0.5 * np.cos(np.arange(n) * 1.3)).astype(np.float32).reshape(shape)


def loss(jnp, out):
    """The scalar a gradient case differentiates: a weighted sum of the first output leaf."""
    first = out[0] if isinstance(out, (tuple, list)) else out
    return jnp.sum(first.astype(np.float32) * weights(first.shape))


def smooth(shape, seed: float, dtype=np.float32) -> np.ndarray:
    """Values in about [-1.5, 1.5] that vary irregularly along every axis."""
    n = int(np.prod(shape, dtype=np.int64))
    i = np.arange(n, dtype=np.float64)
    v = np.sin(i * 0.77 + seed) + 0.5 * np.cos(i * 1.91 + 2 * seed)
    return v.astype(np.float32).astype(dtype).reshape(shape)


def _parts(z):
    # Complex results are compared as their real and imaginary parts.
    return z.real, z.imag


def NN(name: str, **kw):
    """Maker of ``nn.<name>(*args, **kw)``."""
    return lambda nn, jnp, lax: lambda *a: getattr(nn, name)(*a, **kw)


def JNP(name: str, **kw):
    """Maker of ``jnp.<name>(*args, **kw)``."""
    return lambda nn, jnp, lax: lambda *a: getattr(jnp, name)(*a, **kw)


# ---------------------------------------------------------------------------------------------
# dot_product_attention. B=2 batches, T=3 queries, S=4 keys, N=2 heads, H=4 features.

Q = smooth((2, 3, 2, 4), 0.1)
K = smooth((2, 4, 2, 4), 0.2)
V = smooth((2, 4, 2, 4), 0.3)
Q4 = smooth((2, 3, 4, 4), 0.4)  # 4 query heads for 2 key/value heads (grouped-query)
Q6 = smooth((1, 3, 6, 4), 0.5)  # 6 query heads for 2 (G = 3)
K6, V6 = smooth((1, 4, 2, 4), 0.6), smooth((1, 4, 2, 4), 0.7)
BIAS = smooth((2, 2, 3, 4), 0.8)
BIAS4 = smooth((2, 4, 3, 4), 0.9)
BIAS1 = smooth((1, 1, 3, 4), 1.0)
MASK = (np.arange(2 * 1 * 3 * 4).reshape(2, 1, 3, 4) % 3) != 1
MASK4 = (np.arange(2 * 4 * 3 * 4).reshape(2, 4, 3, 4) % 4) != 2
QLEN = np.array([2, 3], np.int32)
KVLEN = np.array([3, 1], np.int32)
DPA = "dot_product_attention"
QKV = (0, 1, 2)

case("dpa_basic", NN(DPA), Q, K, V, grad=QKV, tol=ATTN_TOL)
case("dpa_unbatched", NN(DPA), Q[0], K[0], V[0], grad=QKV, tol=ATTN_TOL)
# A 2-D [T, H] input reads as one batch of one query position with T heads.
case("dpa_2d", NN(DPA), Q[0, :, 0], K[0, :3, 0], V[0, :3, 0], grad=QKV, tol=ATTN_TOL)
case("dpa_scale", NN(DPA, scale=0.3), Q, K, V, grad=QKV, tol=ATTN_TOL)
case("dpa_bias", NN(DPA), Q, K, V, BIAS, grad=(0, 1, 2, 3), tol=ATTN_TOL)
case("dpa_bias_broadcast", NN(DPA), Q, K, V, BIAS1, grad=(0, 3), tol=ATTN_TOL)
case("dpa_bias_3d", NN(DPA), Q, K, V, BIAS1[0], grad=(0, 3), tol=ATTN_TOL)
case("dpa_mask", lambda nn, jnp, lax: lambda q, k, v: nn.dot_product_attention(
    q, k, v, mask=MASK), Q, K, V, grad=QKV, tol=ATTN_TOL)  # fmt: skip
case("dpa_causal", NN(DPA, is_causal=True), Q, K, V, grad=QKV, tol=ATTN_TOL)
case("dpa_causal_square", NN(DPA, is_causal=True), Q, K[:, :3], V[:, :3], grad=QKV, tol=ATTN_TOL)
case("dpa_window_int", NN(DPA, local_window_size=1), Q, K, V, grad=QKV, tol=ATTN_TOL)
case("dpa_window_tuple", NN(DPA, local_window_size=(0, 2)), Q, K, V, grad=QKV, tol=ATTN_TOL)
case("dpa_window_causal", NN(DPA, local_window_size=(1, 0), is_causal=True), Q, K, V,
     grad=QKV, tol=ATTN_TOL)  # fmt: skip
case("dpa_q_lengths", NN(DPA, query_seq_lengths=QLEN), Q, K, V, grad=QKV, tol=ATTN_TOL)
case("dpa_kv_lengths", NN(DPA, key_value_seq_lengths=KVLEN), Q, K, V, grad=QKV, tol=ATTN_TOL)
case("dpa_both_lengths", NN(DPA, query_seq_lengths=QLEN, key_value_seq_lengths=KVLEN),
     Q, K, V, grad=QKV, tol=ATTN_TOL)  # fmt: skip
case("dpa_lengths_as_args", lambda nn, jnp, lax: lambda q, k, v, ql, kl: nn.dot_product_attention(
    q, k, v, query_seq_lengths=ql, key_value_seq_lengths=kl), Q, K, V, QLEN, KVLEN,
     grad=QKV, tol=ATTN_TOL)  # fmt: skip
case("dpa_all_masks", lambda nn, jnp, lax: lambda q, k, v, b: nn.dot_product_attention(
    q, k, v, b, MASK, is_causal=True, key_value_seq_lengths=KVLEN, local_window_size=2),
     Q, K, V, BIAS, grad=(0, 1, 2, 3), tol=ATTN_TOL)  # fmt: skip
case("dpa_xla", NN(DPA, implementation="xla"), Q, K, V, tol=ATTN_TOL)
case("dpa_residual", NN(DPA, return_residual=True), Q, K, V, grad=QKV, tol=ATTN_TOL)
case("dpa_residual_masked", NN(DPA, return_residual=True, is_causal=True,
     query_seq_lengths=QLEN), Q, K, V, grad=QKV, tol=ATTN_TOL)  # fmt: skip
case("dpa_gqa", NN(DPA), Q4, K, V, grad=QKV, tol=ATTN_TOL)
case("dpa_gqa3", NN(DPA, is_causal=True), Q6, K6, V6, grad=QKV, tol=ATTN_TOL)
case("dpa_gqa_bias", NN(DPA), Q4, K, V, BIAS4, grad=(0, 1, 2, 3), tol=ATTN_TOL)
case("dpa_gqa_bias_broadcast", NN(DPA), Q4, K, V, BIAS1, grad=(0, 3), tol=ATTN_TOL)
case("dpa_gqa_mask", lambda nn, jnp, lax: lambda q, k, v: nn.dot_product_attention(
    q, k, v, mask=MASK4), Q4, K, V, grad=QKV, tol=ATTN_TOL)  # fmt: skip
case("dpa_gqa_residual", NN(DPA, return_residual=True), Q4, K, V, grad=QKV, tol=ATTN_TOL)
case("dpa_bf16", NN(DPA), Q.astype(bf16), K.astype(bf16), V.astype(bf16), grad=QKV,
     tol=ATTN_TOL)  # fmt: skip
case(
    "dpa_f16_causal",
    NN(DPA, is_causal=True),
    Q.astype(np.float16),
    K.astype(np.float16),
    V.astype(np.float16),
    tol=ATTN_TOL,
    jit=False,
)  # fmt: skip (XLA:CPU rejects F16_F16_F32)
case("dpa_fully_masked_row", lambda nn, jnp, lax: lambda q, k, v: nn.dot_product_attention(
    q, k, v, mask=np.zeros((1, 1, 3, 4), bool)), Q, K, V, grad=QKV, tol=ATTN_TOL)  # fmt: skip
case(
    "dpa_err_value_shape",
    NN(DPA),
    Q,
    K,
    V[:, :3],
    error="ValueError",
    match=r"dot_product_attention: value shape should be \[2, 4, 2, 4\]",
)
case(
    "dpa_err_query_features",
    NN(DPA),
    Q[..., :3],
    K,
    V,
    error="ValueError",
    match=r"dot_product_attention: query shape",
)
case(
    "dpa_err_dtype",
    NN(DPA),
    Q,
    K.astype(np.float16),
    V.astype(np.float16),
    error="ValueError",
    match=r"dot_product_attention: query dtype should be float16",
)
case(
    "dpa_err_mask_dtype",
    NN(DPA),
    Q,
    K,
    V,
    None,
    MASK.astype(np.float32),
    error="ValueError",
    match=r"dot_product_attention: mask dtype should be bool",
)
case(
    "dpa_err_bias_ndim",
    NN(DPA),
    Q,
    K,
    V,
    smooth((1, 1, 1, 3, 4), 0.0),
    error="ValueError",
    match=r"dot_product_attention: bias ndim should be 4, but got 5",
)
case(
    "dpa_err_heads",
    NN(DPA),
    smooth((2, 3, 3, 4), 0.0),
    K,
    V,
    error="ValueError",
    match=r"dot_product_attention: the number of query heads .* 3 vs 2",
)
case(
    "dpa_err_qlen_shape",
    NN(DPA, query_seq_lengths=np.array([1, 2, 3], np.int32)),
    Q,
    K,
    V,
    error="ValueError",
    match=r"query_seq_lengths shape should be \[2\]",
)
case(
    "dpa_err_qlen_dtype",
    NN(DPA, key_value_seq_lengths=np.array([1, 2], np.int16)),
    Q,
    K,
    V,
    error="ValueError",
    match=r"key_value_seq_lengths dtype should be int32",
)
case("dpa_err_cudnn", NN(DPA, implementation="cudnn"), Q, K, V, error="RuntimeError", match="cuDNN")
case(
    "dpa_err_implementation",
    NN(DPA, implementation="flash"),
    Q,
    K,
    V,
    error="ValueError",
    match="Unsupported implementation option: flash",
)

# ---------------------------------------------------------------------------------------------
# nn functions rewritten as JAX 0.10 writes them

X = smooth((3, 4), 1.1)
XP = np.abs(smooth((3, 4), 1.2)) + np.float32(0.25)
XI = (np.arange(12, dtype=np.int32) - 5).reshape(3, 4)
WHERE = (np.arange(12).reshape(3, 4) % 3) != 0
B34 = smooth((3, 4), 1.3)
B4 = np.abs(smooth((4,), 1.4)) + np.float32(0.5)

case("standardize", NN("standardize"), X, grad=(0,))
# Column 3 is nearly constant (variance 1e-4): JAX op by op gives spmd's gradient; XLA's fused
# program differs by 3e-4.
case("standardize_axis0", NN("standardize", axis=0), X, grad=(0,), tol={"float32": 1e-3})
case("standardize_axis_none", NN("standardize", axis=None), X, grad=(0,))
case("standardize_stable", NN("standardize", algorithm="stable"), X, grad=(0,))
case("standardize_epsilon", NN("standardize", epsilon=0.1), X, grad=(0,))
case("standardize_epsilon_arg", lambda nn, jnp, lax: lambda x, e: nn.standardize(x, epsilon=e),
     X, np.float32(0.5), grad=(0, 1))  # fmt: skip
case("standardize_where", lambda nn, jnp, lax: lambda x: nn.standardize(x, where=WHERE), X,
     grad=(0,), tol=STD_TOL)  # fmt: skip
case("standardize_given", lambda nn, jnp, lax: lambda x, m, v: nn.standardize(x, -1, m, v),
     X, X.mean(-1, keepdims=True), np.float32(2.0), grad=(0, 1, 2))  # fmt: skip
case("standardize_int", NN("standardize"), XI)
case("standardize_bf16", NN("standardize"), X.astype(bf16), grad=(0,), tol=STD_TOL)
# Zero variance: the gradient is rsqrt(epsilon) ~ 316 times differences of rounding errors. JAX
# op by op (disable_jit) gives spmd's values; XLA's fused gradient program differs by 0.15%.
case("standardize_constant_rows", NN("standardize"), np.ones((2, 3), np.float32), grad=(0,),
     tol={"float32": 3e-3})  # fmt: skip
case("standardize_err_algorithm", NN("standardize", algorithm="exact"), X, error="ValueError")
case("standardize_err_list", NN("standardize"), [1.0, 2.0], error="TypeError", jit=False)
case("logsumexp_b_broadcast", lambda nn, jnp, lax: lambda x, b: nn.logsumexp(x, axis=1, b=b),
     X, B4, grad=(0, 1))  # fmt: skip
case("logsumexp_b_negative", lambda nn, jnp, lax: lambda x, b: nn.logsumexp(x, axis=0, b=b),
     X, B34, grad=(0,))  # fmt: skip
case("logsumexp_b_sign", lambda nn, jnp, lax: lambda x, b: nn.logsumexp(
    x, axis=0, b=b, return_sign=True), X, B34, grad=(0, 1))  # fmt: skip
case("logsumexp_b_zero_inf", lambda nn, jnp, lax: lambda x: nn.logsumexp(
    x, b=np.array([0.0, 1.0, 2.0], np.float32)),
     np.array([np.inf, 1.0, 2.0], np.float32))  # fmt: skip
case("logsumexp_where", lambda nn, jnp, lax: lambda x: nn.logsumexp(x, axis=1, where=WHERE), X,
     grad=(0,))  # fmt: skip
case("logsumexp_where_keepdims", lambda nn, jnp, lax: lambda x: nn.logsumexp(
    x, axis=0, where=WHERE, keepdims=True), X, grad=(0,))  # fmt: skip
case("logsumexp_complex", lambda nn, jnp, lax: lambda z: _parts(nn.logsumexp(z, axis=1)),
     (X + 1j * XP).astype(np.complex64))  # fmt: skip
case("logsumexp_int", NN("logsumexp"), XI)
case("logsumexp_neg_inf_row", NN("logsumexp", axis=1),
     np.array([[-np.inf, -np.inf], [0.0, 1.0]], np.float32), grad=(0,))  # fmt: skip
case("logmeanexp", NN("logmeanexp"), X, grad=(0,))
case("logmeanexp_axis", NN("logmeanexp", axis=1, keepdims=True), X, grad=(0,))
case("logmeanexp_where", lambda nn, jnp, lax: lambda x: nn.logmeanexp(x, axis=0, where=WHERE),
     X, grad=(0,))  # fmt: skip
case("identity", NN("identity"), X, grad=(0,))
case("identity_scalar", NN("identity"), 2.0)
case("identity_err_list", NN("identity"), [1.0], error="TypeError", jit=False)
case("glu", NN("glu"), X, grad=(0,))
case("glu_axis0", NN("glu", axis=0), smooth((4, 3), 1.5), grad=(0,))
case("elu", NN("elu"), X, grad=(0,))
case("elu_alpha", NN("elu", alpha=0.5), X, grad=(0,))
case("selu", NN("selu"), X, grad=(0,))

# ---------------------------------------------------------------------------------------------
# jnp.clip and jnp.square

case("clip_int_bound", JNP("clip", min=0), X, grad=(0,))
case("clip_float_bounds", lambda nn, jnp, lax: lambda x: jnp.clip(x, -0.5, 0.5), X, grad=(0,))
case("clip_max_only", JNP("clip", max=0.25), X, grad=(0,))
case("clip_none", JNP("clip"), X, grad=(0,))
case("clip_arrays", JNP("clip"), X, X[0] - 0.5, X[1], grad=(0, 1, 2))
case("clip_crossed", JNP("clip"), X, np.float32(1.0), np.float32(-1.0), grad=(0, 1, 2))
case("clip_int_float_bound", lambda nn, jnp, lax: lambda x: jnp.clip(x, 0.5, 3), XI)
case("clip_int", lambda nn, jnp, lax: lambda x: jnp.clip(x, -2, 3), XI)
case("clip_uint8", lambda nn, jnp, lax: lambda x: jnp.clip(x, 3, 200),
     np.arange(0, 250, 25, dtype=np.uint8))  # fmt: skip
case("clip_scalar", lambda nn, jnp, lax: lambda: jnp.clip(3.0, 0, 1))
case("clip_nan", lambda nn, jnp, lax: lambda x: jnp.clip(x, -1.0, 1.0),
     np.array([np.nan, 2.0, -np.inf], np.float32))  # fmt: skip
case("clip_err_complex", JNP("clip", min=0), X.astype(np.complex64), error="ValueError")
case("clip_err_no_input", lambda nn, jnp, lax: lambda: jnp.clip(None, 0, 1), error="ValueError")
case("clip_err_list", lambda nn, jnp, lax: lambda: jnp.clip([1.0, 2.0], 0, 1), error="TypeError")
case("clip_err_numpy_kw", lambda nn, jnp, lax: lambda x: jnp.clip(x, a_min=0), X,
     error="TypeError", jit=False)  # fmt: skip
case("square", JNP("square"), X, grad=(0,))
case("square_int8_wraps", JNP("square"), np.array([11, 12, -16, 100, -128], np.int8))
case("square_uint8", JNP("square"), np.array([3, 16, 200], np.uint8))
case("square_int32", JNP("square"), XI)
case("square_bool", JNP("square"), np.array([True, False]))
case("square_complex", lambda nn, jnp, lax: lambda z: _parts(jnp.square(z)),
     (X + 1j * XP).astype(np.complex64))  # fmt: skip
case("square_bf16", JNP("square"), X.astype(bf16), grad=(0,))
case("square_python", JNP("square"), 3)
case("lax_square_grad", lambda nn, jnp, lax: lax.square, X, grad=(0,))
case("hypot", JNP("hypot"), X, XP, grad=(0, 1))
