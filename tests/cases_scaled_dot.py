"""Golden cases for the block-scaled products: ``lax.scaled_dot`` (runs on CPU),
``nn.scaled_matmul`` / ``nn.scaled_dot_general`` (cuDNN only: JAX raises on CPU) and
``nn.get_scaled_dot_general_config``: one list, run by JAX (``tests/golden_gen/scaled_dot_gen.py``)
and by spmd (``tests/test_scaled_dot.py``), in the format of ``tests/cases_dot_algorithms.py``.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from cases_family import case_adder, top_module
from cases_lax_more import Case

CASES: list[Case] = []
JAXPR_CASES: list[str] = []

case = case_adder(CASES, JAXPR_CASES)


rs = np.random.RandomState(0)
F8 = ml_dtypes.float8_e4m3fn
E8 = ml_dtypes.float8_e8m0fnu
A = (rs.standard_normal((4, 64)) * 3).astype(F8)
B = (rs.standard_normal((64, 3)) * 3).astype(F8)
SA = (2.0 ** rs.randint(-4, 5, (4, 2))).astype(E8)  # blocks of 32 along K
SB = (2.0 ** rs.randint(-4, 5, (2, 3))).astype(E8)
AF = rs.standard_normal((4, 12)).astype(np.float32)
BF = rs.standard_normal((12, 5)).astype(np.float32)
SAF = rs.uniform(0.5, 2.0, (4, 3)).astype(np.float32)  # blocks of 4; not powers of 2
SBF = rs.uniform(0.5, 2.0, (3, 5)).astype(np.float32)
A3 = (rs.standard_normal((2, 3, 16)) * 2).astype(F8)
B3 = (rs.standard_normal((2, 16, 4)) * 2).astype(F8)
S3A = (2.0 ** rs.randint(-2, 3, (2, 3, 4))).astype(E8)
S3B = (2.0 ** rs.randint(-2, 3, (2, 4, 4))).astype(E8)

# ---------------------------------------------------------------------------------------------
# lax.scaled_dot


def _sd(**kw):
    return lambda jnp, lax: (
        lambda a, b, sa, sb: lax.scaled_dot(a, b, lhs_scale=sa, rhs_scale=sb, **kw)
    )


case("scaled_dot_mxfp8", _sd(), A, B, SA, SB, jaxpr=True)
case("scaled_dot_mxfp8_f32", _sd(preferred_element_type=np.float32), A, B, SA, SB, jaxpr=True)
case("scaled_dot_mxfp8_f16", _sd(preferred_element_type=np.float16), A, B, SA, SB)
case("scaled_dot_f32_operands_and_scales", _sd(), AF, BF, SAF, SBF)
case(
    "scaled_dot_f32_operands_and_scales_f32",
    _sd(preferred_element_type=np.float32),
    AF,
    BF,
    SAF,
    SBF,
)
case(
    "scaled_dot_no_scales",
    lambda jnp, lax: lambda a, b: lax.scaled_dot(a, b, preferred_element_type=np.float32),
    AF,
    BF,
    jaxpr=True,
)
case("scaled_dot_batched_default_dims", _sd(preferred_element_type=np.float32), A3, B3, S3A, S3B)
case(
    "scaled_dot_lhs_contracting_first",
    lambda jnp, lax: (
        lambda a, b, sa, sb: lax.scaled_dot(
            a,
            b,
            lhs_scale=sa,
            rhs_scale=sb,
            dimension_numbers=(((0,), (0,)), ((), ())),
            preferred_element_type=np.float32,
        )
    ),
    np.ascontiguousarray(AF.T),
    BF,
    np.ascontiguousarray(SAF.T),
    SBF,
)
# Where XLA makes the contraction float32 and keeps the products unrounded (a matrix-vector
# product, K < 8), and a bfloat16 result of the transposed lhs (rounded).
case(
    "scaled_dot_f32_matvec_unrounded",
    _sd(preferred_element_type=np.float32),
    AF[:1],
    BF,
    SAF[:1],
    SBF,
)
case(
    "scaled_dot_f32_k4_unrounded",
    _sd(preferred_element_type=np.float32),
    AF[:, :4],
    BF[:4],
    SAF[:, :2],
    SBF[:2],
)
case(
    "scaled_dot_lhs_contracting_first_bf16",
    lambda jnp, lax: (
        lambda a, b, sa, sb: lax.scaled_dot(
            a, b, lhs_scale=sa, rhs_scale=sb, dimension_numbers=(((0,), (0,)), ((), ()))
        )
    ),
    np.ascontiguousarray(AF.T),
    BF,
    np.ascontiguousarray(SAF.T),
    SBF,
)
case(
    "scaled_dot_vmap",
    lambda jnp, lax: (
        lambda a, b, sa, sb: top_module(lax).vmap(
            lambda x, s: lax.scaled_dot(x, b, lhs_scale=s, rhs_scale=sb)
        )(a, sa)
    ),
    A3[:, :, :].reshape(2, 3, 16),
    B3[0],
    S3A,
    S3B[0],
)

# Bad input (TypeError, as JAX).
case(
    "scaled_dot_rank1",
    lambda jnp, lax: lambda a, b: lax.scaled_dot(a, b),
    AF[0],
    BF[:, 0].copy(),
    error="TypeError",
    match=r"^scaled_dot does not support 0-rank and 1-rank operands\. \(Got lhs of shape \(12,\)",
)
case(
    "scaled_dot_block_of_one",
    lambda jnp, lax: lambda a, b, sa: lax.scaled_dot(a, b, lhs_scale=sa),
    AF,
    BF,
    np.ones((4, 12), np.float32),
    error="TypeError",
    match=r"^The ratio of LHS contracting dim 1 to its scale's dim size \(1\) must be at least 2\.",
)
case(
    "scaled_dot_scale_not_dividing",
    lambda jnp, lax: lambda a, b, sb: lax.scaled_dot(a, b, rhs_scale=sb),
    AF,
    BF,
    np.ones((5, 5), np.float32),
    error="TypeError",
    match=r"^RHS contracting dim 0 of size 12 must be divisible by its scale's dim size 5\.",
)
case(
    "scaled_dot_scale_free_dim_mismatch",
    lambda jnp, lax: lambda a, b, sa: lax.scaled_dot(a, b, lhs_scale=sa),
    AF,
    BF,
    np.ones((3, 3), np.float32),
    error="TypeError",
    match=r"^LHS dim 0 of size 4 does not match scale dim size 3\.",
)
case(
    "scaled_dot_scale_rank",
    lambda jnp, lax: lambda a, b, sa: lax.scaled_dot(a, b, lhs_scale=sa),
    AF,
    BF,
    np.ones((4, 3, 1), np.float32),
    error="TypeError",
    match=r"^All input tensors must have the same rank\. Got lhs rank: 2 rhs rank: 2 "
    r"lhs_scale rank: 3 rhs_scale rank: 2\.",
)
case(
    "scaled_dot_contracting_mismatch",
    lambda jnp, lax: lambda a, b: lax.scaled_dot(a, b),
    AF,
    BF[:8],
    error="TypeError",
    match=r"^LHS contracting dim 1 of size 12 does not match RHS contracting dim 0 of size 8\.",
)
case(
    "scaled_dot_batch_mismatch",
    lambda jnp, lax: lambda a, b: lax.scaled_dot(a, b),
    np.ones((2, 3, 8), np.float32),
    np.ones((3, 8, 2), np.float32),
    error="TypeError",
    match=r"^All input tensors must have the same batch dimension size for batch dims \(0, 0\)\.",
)
case(
    "scaled_dot_list_dimension_numbers",
    lambda jnp, lax: lambda a, b: lax.scaled_dot(a, b, dimension_numbers=[[[1], [0]], [[], []]]),
    AF,
    BF,
    error="TypeError",
    match=r"primitive scaled_dot, the value of parameter dimension_numbers was not hashable",
)
case(
    "scaled_dot_grad",
    lambda jnp, lax: (
        lambda a, b: top_module(lax).grad(
            lambda x: lax.scaled_dot(x, b, preferred_element_type=np.float32).sum()
        )(a)
    ),
    AF,
    BF,
    error="NotImplementedError",
    match=r"Differentiation rule for .*'scaled_dot'.* not implemented",
)

# ---------------------------------------------------------------------------------------------
# nn: configs, and the cuDNN-only products (refused on CPU)

case(
    "nvfp4_config_global_scale",
    lambda jnp, lax: lambda: top_module(lax).nn.get_scaled_dot_general_config("nvfp4").global_scale,
    jit=False,
)
case(
    "config_unsupported_mode",
    lambda jnp, lax: lambda: top_module(lax).nn.get_scaled_dot_general_config("fp8"),
    error="ValueError",
    match=r"^Unsupported mode: fp8 \(get_scaled_dot_general_config: mode must be",
    jit=False,
)
Q = np.ones((2, 4, 64), F8)
R = np.ones((2, 3, 64), F8)
QS = np.ones((2, 4, 2), E8)
RS = np.ones((2, 3, 2), E8)
_CPU = r"^MLIR translation rule for primitive 'scaled_matmul' not found for platform cpu \("


def _sm(jnp, lax):
    return top_module(lax).nn.scaled_matmul


case(
    "scaled_matmul_cpu",
    _sm,
    Q,
    R,
    QS,
    RS,
    error="NotImplementedError",
    match=_CPU + r"nn.scaled_matmul .*float8_e4m3fn\[2, 4, 64\], float8_e4m3fn\[2, 3, 64\]",
    jaxpr=True,
)
case(
    "scaled_matmul_cpu_f32_operands",
    _sm,
    Q.astype(np.float32),
    R.astype(np.float32),
    QS.astype(np.float32),
    RS.astype(np.float32),
    error="NotImplementedError",
    match=_CPU,
)
case(
    "scaled_matmul_rank2",
    _sm,
    Q[0],
    R[0],
    QS[0],
    RS[0],
    error="ValueError",
    match=r"^scaled_matmul requires all inputs to be 3-dimensional arrays \(got shapes \(4, 64\)",
)
case(
    "scaled_matmul_contract_mismatch",
    _sm,
    Q,
    R[..., :32],
    QS,
    RS,
    error="ValueError",
    match=r"matching batch \(B\) and contract \(K\) dimensions, but got shapes \(2, 4, 64\) "
    r"and \(2, 3, 32\)$",
)
case(
    "scaled_matmul_scales_mismatch",
    _sm,
    Q,
    R,
    QS,
    RS[..., :1],
    error="ValueError",
    match=r"^scaled_matmul requires scales to have matching .* \(2, 4, 2\) and \(2, 3, 1\)$",
)
case(
    "scaled_matmul_scales_free_dims",
    _sm,
    Q,
    R,
    QS[:, :3],
    RS,
    error="ValueError",
    match=r"non-contract dimensions of inputs, but got shapes a: \(2, 4, 64\), b: \(2, 3, 64\), "
    r"a_scales: \(2, 3, 2\), b_scales: \(2, 3, 2\)$",
)
_DN = (((2,), (2,)), ((0,), (0,)))
case(
    "scaled_dot_general_no_configs",
    lambda jnp, lax: lambda a, b: top_module(lax).nn.scaled_dot_general(a, b, _DN),
    rs.standard_normal((2, 4, 8)).astype(np.float32),
    rs.standard_normal((2, 3, 8)).astype(np.float32),
    jaxpr=True,
)
case(
    "scaled_dot_general_mxfp8_cpu",
    lambda jnp, lax: (
        lambda a, b: top_module(lax).nn.scaled_dot_general(
            a, b, _DN, configs=[top_module(lax).nn.get_scaled_dot_general_config("mxfp8")] * 3
        )
    ),
    np.ones((2, 4, 64), np.float32),
    np.ones((2, 3, 64), np.float32),
    error="NotImplementedError",
    match=_CPU + r"nn.scaled_dot_general of f32\[2,4,64\] and f32\[2,3,64\] with configs "
    r"\['mxfp8', 'mxfp8', 'mxfp8'\]",
)
