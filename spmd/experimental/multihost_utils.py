"""spmd.experimental.multihost_utils: values exchanged between processes. Re-exports only."""

from spmd._src.multihost_utils import (
    ProcessFailureError,
    assert_equal,
    broadcast_one_to_all,
    global_array_to_host_local_array,
    host_local_array_to_global_array,
    live_devices,
    process_allgather,
    reached_preemption_sync_point,
    sync_global_devices,
)

__all__ = [
    "ProcessFailureError",
    "assert_equal",
    "broadcast_one_to_all",
    "global_array_to_host_local_array",
    "host_local_array_to_global_array",
    "live_devices",
    "process_allgather",
    "reached_preemption_sync_point",
    "sync_global_devices",
]
