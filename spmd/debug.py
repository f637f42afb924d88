"""spmd.debug: looking at programs and values. Re-exports only."""

from spmd._src.debugger import breakpoint  # noqa: F401,A004
from spmd._src.debugging import (  # noqa: F401
    callback,
    inspect_array_sharding,
    log,
    sharding_text,
    visualize_array_sharding,
    visualize_sharding,
)
from spmd._src.debugging import debug_print as print  # noqa: F401,E402,A001
