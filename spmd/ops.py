"""spmd.ops: segment reductions (``jax.ops``). Re-exports only."""

from spmd._src.ops import segment_max, segment_min, segment_prod, segment_sum  # noqa: F401
