"""``spmd.ad_checkpoint``, as ``jax.ad_checkpoint``: rematerialization (``checkpoint``), its
policies, ``checkpoint_name`` and the residual printers."""

from spmd._src.ad_checkpoint import (
    checkpoint_name,
    print_saved_residuals,
    saved_residuals,
)
from spmd._src.custom_derivatives.checkpointing import (
    Offloadable,
    checkpoint,
    checkpoint_policies,
    remat,
)

__all__ = [
    "Offloadable",
    "checkpoint",
    "checkpoint_name",
    "checkpoint_policies",
    "print_saved_residuals",
    "remat",
    "saved_residuals",
]
