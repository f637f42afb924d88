"""spmd.debug: looking at programs and values. Re-exports only."""

from spmd._src.debugging import (  # noqa: F401
    inspect_array_sharding,
    sharding_text,
    visualize_array_sharding,
    visualize_sharding,
)
