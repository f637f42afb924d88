"""spmd.experimental.checkify: runtime checks as error values (``jax.experimental.checkify``).
Re-exports only."""

from spmd._src.checkify import (  # noqa: F401
    DivisionByZeroError,
    Error,
    ErrorCategory,
    FailedCheckError,
    JaxRuntimeError,
    NaNError,
    OOBError,
    all_checks,
    automatic_checks,
    check,
    check_error,
    checkify,
    debug_check,
    div_checks,
    float_checks,
    index_checks,
    init_error,
    nan_checks,
    user_checks,
)
