"""spmd.dlpack: arrays from DLPack exporters (``from_dlpack``) and the dtypes that may cross."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from spmd._src.numpy.type_names import from_dlpack

# The dtypes an spmd array can take from (or give to) DLPack: NumPy's, plus bfloat16.
_SUPPORTED = frozenset(
    np.dtype(t)
    for t in (
        np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
        np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128,
    )
) | {np.dtype(ml_dtypes.bfloat16)}  # fmt: skip


def is_supported_dtype(dtype: Any) -> bool:
    """Whether arrays of ``dtype`` can cross DLPack."""
    try:
        return np.dtype(dtype) in _SUPPORTED
    except TypeError:
        return False


__all__ = ["from_dlpack", "is_supported_dtype"]
