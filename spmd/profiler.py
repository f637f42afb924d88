"""spmd.profiler: host traces of jitted calls and annotated blocks, written as Chrome traces
(see ``spmd._src.profiler``). Re-exports only."""

from spmd._src.profiler import *  # noqa: F401,F403
from spmd._src.profiler import __all__  # noqa: F401
