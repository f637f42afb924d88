"""Block-scaled matrix products: ``nn.scaled_matmul``, ``nn.scaled_dot_general`` and
``nn.get_scaled_dot_general_config`` (mxfp8 and nvfp4 formats).

JAX 0.10.2 runs the block-scaled product only through cuDNN: on CPU, ``scaled_matmul`` and
``scaled_dot_general`` with ``configs`` raise ``NotImplementedError`` when the program runs
(after JAX's shape checks), and so do these. ``scaled_dot_general`` without ``configs`` is
``lax.dot_general``. (``lax.scaled_dot`` is the block-scaled contraction that runs on CPU.)

>>> from spmd import nn
>>> nn.get_scaled_dot_general_config("mxfp8").block_size
32
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src.core import ShapedArray


@dataclasses.dataclass(slots=True)
class BlockScaleConfig:
    """A block-scaled format: its name, the block size, the dtypes of the data and of the
    scales, an optional global scale, and whether it is for inference only."""

    mode: str
    block_size: int
    data_type: Any
    scale_type: Any
    global_scale: Any
    infer_only: bool


def get_scaled_dot_general_config(mode, global_scale=None) -> BlockScaleConfig:
    """The ``BlockScaleConfig`` of ``mode``: ``"mxfp8"`` (blocks of 32 float8_e4m3fn values,
    float8_e8m0fnu scales) or ``"nvfp4"`` (blocks of 16 float4_e2m1fn values, float8_e4m3fn
    scales, a global scale: ``global_scale`` or ``[1.0]``).

    >>> get_scaled_dot_general_config("nvfp4").scale_type
    <class 'ml_dtypes.float8_e4m3fn'>
    """
    if mode == "mxfp8":
        return BlockScaleConfig(
            "mxfp8", 32, dtypes.float8_e4m3fn, dtypes.float8_e8m0fnu, None, False
        )
    if mode == "nvfp4":
        if global_scale is None:
            from spmd._src.numpy.creation import ones

            global_scale = ones((1,), np.float32)
        return BlockScaleConfig(
            "nvfp4", 16, dtypes.float4_e2m1fn, dtypes.float8_e4m3fn, global_scale, False
        )
    raise ValueError(
        f"Unsupported mode: {mode} (get_scaled_dot_general_config: mode must be 'mxfp8' or 'nvfp4')"
    )


def scaled_matmul(lhs, rhs, lhs_scales, rhs_scales, preferred_element_type=np.float32):
    """The block-scaled product ``einsum('BMK,BNK->BMN', lhs * lhs_scales, rhs * rhs_scales)``,
    each scale repeated over a block of ``K // scales.shape[-1]`` elements. Runs on cuDNN only:
    after the shape checks, raises ``NotImplementedError`` when run on CPU (as JAX does).
    """
    a, b, sa, sb = (core.get_aval(v) for v in (lhs, rhs, lhs_scales, rhs_scales))
    if any(v.ndim != 3 for v in (a, b, sa, sb)):
        raise ValueError(
            "scaled_matmul requires all inputs to be 3-dimensional arrays (got shapes "
            f"{a.shape}, {b.shape}, {sa.shape}, {sb.shape})"
        )
    if a.shape[2] != b.shape[2] or a.shape[0] != b.shape[0]:
        raise ValueError(
            "scaled_matmul requires inputs a and b to have matching batch (B) and contract (K) "
            f"dimensions, but got shapes {a.shape} and {b.shape}"
        )
    if sa.shape[2] != sb.shape[2] or sa.shape[0] != sb.shape[0]:
        raise ValueError(
            "scaled_matmul requires scales to have matching batch (B) and contract (K) "
            f"dimensions, but got shapes {sa.shape} and {sb.shape}"
        )
    if sa.shape[1] != a.shape[1] or sb.shape[1] != b.shape[1]:
        raise ValueError(
            "scaled_matmul requires scales to match non-contract dimensions of inputs, but got "
            f"shapes a: {a.shape}, b: {b.shape}, a_scales: {sa.shape}, b_scales: {sb.shape}"
        )
    from spmd._src.api import jit

    out = dtypes.canonicalize_dtype(dtypes.dtype(preferred_element_type))
    return jit(_scaled_matmul, static_argnums=4)(lhs, rhs, lhs_scales, rhs_scales, out)


def _scaled_matmul(a, b, sa, sb, preferred_element_type):
    return scaled_matmul_wrapper_p.bind(a, b, sa, sb, preferred_element_type=preferred_element_type)


def _scaled_matmul_abstract_eval(a, b, sa, sb, *, preferred_element_type):
    return ShapedArray((a.shape[0], a.shape[1], b.shape[1]), preferred_element_type)


def _scaled_matmul_impl(a, b, sa, sb, *, preferred_element_type):
    shapes = ", ".join(f"{np.dtype(v.dtype).name}{list(np.shape(v))}" for v in (a, b, sa, sb))
    raise NotImplementedError(
        "MLIR translation rule for primitive 'scaled_matmul' not found for platform cpu "
        f"(nn.scaled_matmul / nn.scaled_dot_general with configs of operands {shapes}: JAX runs "
        "block-scaled matmuls on cuDNN only; lax.scaled_dot runs on CPU)"
    )


scaled_matmul_wrapper_p = core.Primitive("scaled_matmul_wrapper")
scaled_matmul_wrapper_p.def_abstract_eval(_scaled_matmul_abstract_eval)
scaled_matmul_wrapper_p.def_impl(_scaled_matmul_impl)


def scaled_dot_general(
    lhs,
    rhs,
    dimension_numbers,
    preferred_element_type=np.float32,
    configs=None,
    implementation=None,
):
    """``dot_general`` of ``lhs`` and ``rhs`` quantized block by block to the formats of
    ``configs`` (``[lhs, rhs, gradient]`` ``BlockScaleConfig`` s, see
    ``get_scaled_dot_general_config``). Without ``configs``: ``lax.dot_general`` into
    ``preferred_element_type``. With them it runs on cuDNN only: ``NotImplementedError`` on
    CPU, as in JAX.

    >>> scaled_dot_general(jnp.ones((2, 3)), jnp.ones((3, 4)), (((1,), (0,)), ((), ()))).shape
    (2, 4)
    """
    from spmd._src.lax.dot import dot_general

    if implementation is not None:
        import warnings

        warnings.warn(
            "Backend selector, now ignored. The system chooses the backend automatically.",
            DeprecationWarning,
            stacklevel=2,
        )
    if configs is None:
        return dot_general(
            lhs, rhs, dimension_numbers, preferred_element_type=preferred_element_type
        )
    a, b = core.get_aval(lhs), core.get_aval(rhs)
    shapes = f"{a.str_short()} and {b.str_short()}"
    modes = [getattr(c, "mode", c) for c in configs]
    raise NotImplementedError(
        "MLIR translation rule for primitive 'scaled_matmul' not found for platform cpu "
        f"(nn.scaled_dot_general of {shapes} with configs {modes}: JAX runs block-scaled "
        "matmuls on cuDNN only; lax.scaled_dot runs on CPU)"
    )


__all__ = [
    "get_scaled_dot_general_config",
    "scaled_dot_general",
    "scaled_matmul",
]
