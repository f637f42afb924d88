"""spmd.dtypes: dtype utilities with JAX's names. Re-exports only."""

from spmd._src.dtypes import (  # noqa: F401
    TypePromotionError,
    bfloat16,
    canonicalize_dtype,
    finfo,
    float0,
    iinfo,
    isdtype,
    issubdtype,
    promote_types,
    result_type,
)
