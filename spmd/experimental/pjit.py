"""``pjit``: JAX's old name for ``jit`` (kept for programs written against it; using it warns
with a DeprecationWarning, as JAX 0.10 does, and gives ``jit`` itself)."""

import warnings

from spmd._src.api import jit as _jit


def __getattr__(name):
    if name == "pjit":
        warnings.warn(
            "jax.experimental.pjit.pjit is deprecated: use `jax.jit` instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        return _jit
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
