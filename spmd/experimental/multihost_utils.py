"""spmd.experimental.multihost_utils: values exchanged between processes. Re-exports only."""

from spmd._src.multihost_utils import (
    assert_equal,
    broadcast_one_to_all,
    global_array_to_host_local_array,
    host_local_array_to_global_array,
    process_allgather,
    sync_global_devices,
)

__all__ = [
    "assert_equal",
    "broadcast_one_to_all",
    "global_array_to_host_local_array",
    "host_local_array_to_global_array",
    "process_allgather",
    "sync_global_devices",
]
