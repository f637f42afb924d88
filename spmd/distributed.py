"""spmd.distributed: joining the processes of a job. Re-exports only."""

from spmd._src.distributed import initialize, is_initialized, shutdown

__all__ = ["initialize", "is_initialized", "shutdown"]
