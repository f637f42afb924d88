"""spmd.dtypes: dtype utilities with JAX's names. Re-exports only."""

from spmd._src.dtypes import (  # noqa: F401
    TypePromotionError,
    bfloat16,
    canonicalize_dtype,
    extended,
    finfo,
    float0,
    iinfo,
    isdtype,
    issubdtype,
    itemsize_bits,
    prng_key,
    promote_types,
    result_type,
    scalar_type_of,
)
