"""Golden cases for dot algorithms (``lax.DotAlgorithm``, ``lax.DotAlgorithmPreset``) as the
``precision`` of ``lax.dot_general``, ``lax.dot``, ``jnp.dot``, ``jnp.matmul`` and
``jnp.einsum``: one list, run by JAX and by spmd.

``tests/golden_gen/dot_algorithms_gen.py`` (under real JAX) records each case as
``tests/golden_gen/lax_more_gen.py`` does (eager and jit results, gradients, or the exception
class JAX raises) plus, for cases in ``JAXPR_CASES``, ``str(jax.make_jaxpr(fn)(*args))``, into
``tests/golden/dot_algorithms.json``; ``tests/test_dot_algorithms.py`` (no JAX) compares.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from cases_family import case_adder
from cases_lax_more import Case

CASES: list[Case] = []
JAXPR_CASES: list[str] = []  # names of the cases whose jaxpr is recorded too

case = case_adder(CASES, JAXPR_CASES)


def _normal(seed: int, shape, scale: float = 1.0) -> np.ndarray:
    return (np.random.RandomState(seed).standard_normal(shape) * scale).astype(np.float32)


A = _normal(0, (3, 40))
B = _normal(1, (40, 5))
V = _normal(2, (37,))  # a vector dot (XLA's multiply + reduce path)
A3 = _normal(3, (2, 3, 6))
B3 = _normal(4, (2, 6, 4))
AI = (np.arange(24, dtype=np.int8).reshape(4, 6) * 37 % 23 - 11).astype(np.int8)
BI = (np.arange(18, dtype=np.int8).reshape(6, 3) * 29 % 19 - 9).astype(np.int8)
AC = (A[:, :8] + 1j * _normal(5, (3, 8))).astype(np.complex64)
BC = (B[:8] + 1j * _normal(6, (8, 5))).astype(np.complex64)

CPU_PRESETS = [
    "DEFAULT",
    "F16_F16_F16",
    "BF16_BF16_F32",
    "BF16_BF16_F32_X3",
    "BF16_BF16_F32_X6",
    "F32_F32_F32",
    "F64_F64_F64",
]
NOT_ON_CPU = [
    "ANY_F8_ANY_F8_F32",
    "ANY_F8_ANY_F8_F32_FAST_ACCUM",
    "ANY_F8_ANY_F8_ANY",
    "ANY_F8_ANY_F8_ANY_FAST_ACCUM",
    "F16_F16_F32",
    "BF16_BF16_BF16",
    "BF16_BF16_F32_X9",
    "TF32_TF32_F32",
    "TF32_TF32_F32_X3",
]
DTYPES = {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}


def _preset(lax, name):
    return lax.DotAlgorithmPreset[name]


# Every preset JAX runs on CPU, on float32, float16 and bfloat16 operands: the result dtype and
# the rounding of operands and result.
for _p in CPU_PRESETS:
    for _dn, _dt in DTYPES.items():
        case(
            f"dot_{_p}_{_dn}",
            lambda jnp, lax, p=_p: lambda a, b: lax.dot(a, b, precision=_preset(lax, p)),
            A.astype(_dt),
            B.astype(_dt),
            grad=(0, 1) if _dn == "f32" else None,
            jaxpr=_dn == "f32",
        )
    # One output element from operands of fewer than 4096 elements: XLA's CPU loop for these
    # takes only some algorithms (JaxRuntimeError for the others).
    _refused = _p in ("F16_F16_F16", "F64_F64_F64")
    case(
        f"vdot_{_p}",
        lambda jnp, lax, p=_p: lambda a, b: lax.dot(a, b, precision=_preset(lax, p)),
        V,
        V[::-1].copy(),
        error="JaxRuntimeError" if _refused else None,
        match=rf"^INVALID_ARGUMENT: Algorithm not supported by the ElementalIrEmitter: "
        rf"ALG_DOT_{_p} "
        rf"\(dot_general with precision={_p} on operands float32\[37\] and float32\[37\]"
        if _refused
        else None,
    )
    case(
        f"vdot_f16_{_p}",
        lambda jnp, lax, p=_p: lambda a, b: lax.dot(a, b, precision=_preset(lax, p)),
        V.astype(np.float16),
        V[::-1].astype(np.float16),
        error=None if _p in ("DEFAULT", "F32_F32_F32") else "JaxRuntimeError",
        match=None if _p in ("DEFAULT", "F32_F32_F32") else rf"ALG_DOT_{_p} .*float16\[37\]",
    )

# Cancellation: float64 keeps the 1 that float32 loses next to 1e8 (exact in float64 whatever
# the order of the sums); float16 overflows at 1e8 (inf - inf).
CANCEL = np.array([[1e8, 1.0, -1e8], [3e4, 0.5, -3e4]], np.float32)
ONES = np.array([[1.0, 2.0], [1.0, 1.0], [1.0, 1.0]], np.float32)
for _p in ("F64_F64_F64", "F16_F16_F16"):
    case(
        f"dot_cancellation_{_p}",
        lambda jnp, lax, p=_p: lambda a, b: lax.dot(a, b, precision=p),
        CANCEL,
        ONES,
    )
case(
    "vdot_4096_f16",
    lambda jnp, lax: lambda a, b: lax.dot(a, b, precision="F16_F16_F16"),
    _normal(7, (4096,)),
    _normal(8, (4096,)),
)
case(
    "dot_1x37_37x1_bf16_preset_f16_operands",
    lambda jnp, lax: lambda a, b: lax.dot(a, b, precision="BF16_BF16_F32"),
    A[:1, :37].astype(np.float16),
    B[:37, :1].astype(np.float16),
    error="JaxRuntimeError",
    match=r"ALG_DOT_BF16_BF16_F32 .*float16\[1, 37\] and float16\[37, 1\]",
)
# Which single-output contractions the loop takes: only two float32 vectors of 2 elements or
# more for the BF16 presets (not a (1, n) row, a matrix contracted whole, or 1-element vectors);
# F64_F64_F64's operands become float64, so its loop stops at 2048 elements; an empty
# contraction runs (no dot).
for _name, _a, _b, _dn, _p, _err in [
    ("vdot_2_bf16", V[:2], V[:2], ((0,), (0,)), "BF16_BF16_F32", None),
    ("vdot_1_bf16", V[:1], V[:1], ((0,), (0,)), "BF16_BF16_F32", r"float32\[1\] and float32\[1\]"),
    ("row_vec_bf16", A[:1, :37], V, ((1,), (0,)), "BF16_BF16_F32_X3", r"float32\[1, 37\]"),
    ("full_contraction_bf16", A, A, ((0, 1), (0, 1)), "BF16_BF16_F32", r"float32\[3, 40\] and"),
    ("vdot_2047_f64", _normal(9, (2047,)), _normal(10, (2047,)), ((0,), (0,)), "F64_F64_F64",
     r"float32\[2047\]"),
    ("vdot_2048_f64", _normal(9, (2048,)), _normal(10, (2048,)), ((0,), (0,)), "F64_F64_F64", None),
    ("row_vec_2048_f64", _normal(11, (1, 2048)), _normal(12, (2048,)), ((1,), (0,)),
     "F64_F64_F64", None),
    ("empty_f16", V[:0], V[:0], ((0,), (0,)), "F16_F16_F16", None),
]:  # fmt: skip
    case(
        f"single_output_{_name}",
        lambda jnp, lax, dn=_dn, p=_p: (
            lambda a, b: lax.dot_general(a, b, (dn, ((), ())), precision=p)
        ),
        _a,
        _b,
        error="JaxRuntimeError" if _err else None,
        match=rf"ALG_DOT_{_p} .*{_err}" if _err else None,
    )
case(
    "matvec_f16_preset",
    lambda jnp, lax: lambda a, b: lax.dot(a, b, precision="F16_F16_F16"),
    A,
    B[:, 0].copy(),
)

# The preset by its name; preferred_element_type with a preset (a narrower integer is allowed).
case(
    "dot_by_name",
    lambda jnp, lax: lambda a, b: lax.dot(a, b, precision="F16_F16_F16"),
    A,
    B,
    jaxpr=True,
)
case(
    "dot_general_batched_bf16_f32",
    lambda jnp, lax: (
        lambda a, b: lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,))), precision="BF16_BF16_F32")
    ),
    A3,
    B3,
    grad=(0, 1),
    jaxpr=True,
)
case(
    "dot_f16_operands_bf16_preset",
    lambda jnp, lax: (
        lambda a, b: lax.dot(
            a, b, precision=lax.DotAlgorithmPreset.BF16_BF16_F32, preferred_element_type=np.float32
        )
    ),
    A.astype(np.float16),
    B.astype(np.float16),
)
case(
    "dot_bf16_operands_preferred_f32",
    lambda jnp, lax: (
        lambda a, b: lax.dot(a, b, precision="BF16_BF16_F32", preferred_element_type=np.float32)
    ),
    A.astype(ml_dtypes.bfloat16),
    B.astype(ml_dtypes.bfloat16),
    jaxpr=True,
)
case(
    "dot_f32_preferred_f16",
    lambda jnp, lax: (
        lambda a, b: lax.dot(a, b, precision="F32_F32_F32", preferred_element_type=np.float16)
    ),
    A,
    B,
)
case(
    "dot_int8_f16_preset",
    lambda jnp, lax: lambda a, b: lax.dot(a, b, precision="F16_F16_F16"),
    AI,
    BI,
)
case(
    "dot_int8_f64_preset_preferred_int32",
    lambda jnp, lax: (
        lambda a, b: lax.dot(a, b, precision="F64_F64_F64", preferred_element_type=np.int32)
    ),
    AI * 9,
    BI * 11,
)
case(
    "dot_int32_default_preset_narrower_int8",
    lambda jnp, lax: (
        lambda a, b: lax.dot(a, b, precision="DEFAULT", preferred_element_type=np.int8)
    ),
    AI.astype(np.int32) * 5,
    BI.astype(np.int32) * 3,
    jaxpr=True,
)
case(
    "dot_complex64_f32_preset",
    lambda jnp, lax: lambda a, b: lax.dot(a, b, precision="F32_F32_F32"),
    AC,
    BC,
)
case(
    "dot_mixed_bf16_f32_default_preset",
    lambda jnp, lax: (
        lambda a, b: lax.dot_general(a, b, (((1,), (0,)), ((), ())), precision="DEFAULT")
    ),
    A.astype(ml_dtypes.bfloat16),
    B,
)

# The numpy products pass the preset through.
case(
    "jnp_dot_f16",
    lambda jnp, lax: lambda a, b: jnp.dot(a, b, precision=lax.DotAlgorithmPreset.F16_F16_F16),
    A,
    B,
    grad=(0,),
    jaxpr=True,
)
case(
    "jnp_matmul_batched_x3",
    lambda jnp, lax: lambda a, b: jnp.matmul(a, b, precision="BF16_BF16_F32_X3"),
    A3,
    B3,
    jaxpr=True,
)
case(
    "jnp_einsum_f64",
    lambda jnp, lax: lambda a, b: jnp.einsum("bij,bjk->bik", a, b, precision="F64_F64_F64"),
    A3,
    B3,
    grad=(1,),
    jaxpr=True,
)
case(
    "jnp_einsum_f16_three_operands",
    lambda jnp, lax: (
        lambda a, b, c: jnp.einsum(
            "ij,jk,k->i", a, b, c, precision=lax.DotAlgorithmPreset.F16_F16_F16
        )
    ),
    A,
    B,
    V[:5].copy(),
)

# The presets JAX's CPU backend refuses: ValueError when the program runs.
for _p in NOT_ON_CPU:
    case(
        f"cpu_refuses_{_p}",
        lambda jnp, lax, p=_p: lambda a, b: lax.dot(a, b, precision=_preset(lax, p)),
        A,
        B,
        error="ValueError",
        match=rf"^The precision '{_p}' is not supported by dot_general on CPU$",
        jaxpr=_p == "TF32_TF32_F32",  # traced fine, refused when run
    )
case(
    "cpu_refuses_dot_algorithm",
    lambda jnp, lax: (
        lambda a, b: lax.dot(a, b, precision=lax.DotAlgorithm(np.float32, np.float32, np.float32))
    ),
    A,
    B,
    error="ValueError",
    match=r"^The precision 'DotAlgorithm\(lhs_precision_type=<class 'numpy.float32'>, .*"
    r"allow_imprecise_accumulation=False\)' is not supported by dot_general on CPU$",
    jaxpr=True,
)
case(
    "cpu_refuses_jnp_matmul_tf32",
    lambda jnp, lax: lambda a, b: jnp.matmul(a, b, precision="TF32_TF32_F32_X3"),
    A,
    B,
    error="ValueError",
    match=r"^The precision 'TF32_TF32_F32_X3' is not supported by dot_general on CPU$",
)
# Bad precision values (refused when traced).
case(
    "bad_precision_name",
    lambda jnp, lax: lambda a, b: lax.dot(a, b, precision="bf16_bf16_f32"),
    A,
    B,
    error="ValueError",
    match=r"dot_general: precision .*DotAlgorithmPreset.* got 'bf16_bf16_f32'",
)
case(
    "bad_precision_pair_of_presets",
    lambda jnp, lax: (
        lambda a, b: lax.dot(a, b, precision=(lax.DotAlgorithmPreset.F32_F32_F32,) * 2)
    ),
    A,
    B,
    error="ValueError",
    match=r"dot_general: precision .* got DotAlgorithmPreset.F32_F32_F32",
)

# ragged_dot takes the same algorithms (converted operands; the same CPU refusals).
RL = _normal(9, (6, 5))
RR = _normal(10, (2, 5, 3))
RG = np.array([4, 2], np.int32)
for _p in ("F16_F16_F16", "F64_F64_F64", "BF16_BF16_F32"):
    case(
        f"ragged_dot_{_p}",
        lambda jnp, lax, p=_p: lambda a, b, g: lax.ragged_dot(a, b, g, precision=p),
        RL,
        RR,
        RG,
        jaxpr=_p == "F16_F16_F16",
    )
case(
    "ragged_dot_cpu_refuses_TF32_TF32_F32",
    lambda jnp, lax: lambda a, b, g: lax.ragged_dot(a, b, g, precision="TF32_TF32_F32"),
    RL,
    RR,
    RG,
    error="ValueError",
    match=r"^The precision 'TF32_TF32_F32' is not supported by dot_general on CPU$",
)


# jax_default_matmul_precision stands in for precision=None (a preset name computes as the preset).
def _with_default(name, body):
    def make(jnp, lax):
        def fn(*args):
            with _jax(lax).default_matmul_precision(name):
                return body(jnp, lax)(*args)

        return fn

    return make


def _jax(lax):
    import importlib

    return importlib.import_module(lax.__name__.split(".")[0])


case(
    "default_matmul_precision_F16_F16_F16",
    _with_default("F16_F16_F16", lambda jnp, lax: jnp.matmul),
    A,
    B,
    jaxpr=True,
)
case(
    "default_matmul_precision_highest",
    _with_default("highest", lambda jnp, lax: lambda a, b: lax.dot(a, b)),
    A,
    B,
    jaxpr=True,
)
case(
    "default_matmul_precision_conv",
    _with_default(
        "bfloat16",
        lambda jnp, lax: lambda x, w: lax.conv_general_dilated(x, w, (1,), "VALID"),
    ),
    _normal(11, (1, 2, 9)),
    _normal(12, (3, 2, 2)),
    jaxpr=True,
)
case(
    "default_matmul_precision_tf32_refused",
    _with_default("TF32_TF32_F32", lambda jnp, lax: jnp.dot),
    A,
    B,
    error="ValueError",
    match=r"^The precision 'TF32_TF32_F32' is not supported by dot_general on CPU$",
)
