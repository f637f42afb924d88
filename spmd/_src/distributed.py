"""``spmd.distributed``: joining the processes of a multi-process job.

spmd's processes are MPI processes: ``spmd run -n 4 script.py`` (or ``mpiexec -n 4 python
script.py``) starts them, and each finds its rank in the environment MPI set up on first use of
the devices, so a script need not call ``initialize``. A JAX program that does call it runs
unchanged: the coordinator address is not needed (MPI connects the processes), and the counts it
is given must agree with MPI's.

>>> import spmd
>>> spmd.distributed.is_initialized()
False
"""

from __future__ import annotations

from collections.abc import Sequence

from spmd._src import backends, devices

__all__ = ["initialize", "is_initialized", "shutdown"]

_initialized = False


def initialize(
    coordinator_address: str | None = None,
    num_processes: int | None = None,
    process_id: int | None = None,
    local_device_ids: int | Sequence[int] | None = None,
    cluster_detection_method: str | None = None,
    initialization_timeout: int = 300,
    heartbeat_timeout_seconds: int = 100,
    shutdown_timeout_seconds: int = 300,
    coordinator_bind_address: str | None = None,
    slice_index: int | None = None,
    partition_index: int | None = None,
) -> None:
    """Join this process to its job (the processes an MPI launcher started).

    ``num_processes`` and ``process_id``, when given, must be MPI's size and rank;
    ``local_device_ids`` sets how many virtual devices this process has (every process must
    have as many). The other arguments are accepted for JAX's signature: MPI already connects
    the processes.
    """
    global _initialized
    if _initialized:
        raise RuntimeError("distributed.initialize should only be called once.")
    world = backends.world_from_environment()
    if num_processes is not None and num_processes != world.size:
        raise ValueError(
            f"distributed.initialize: num_processes={num_processes}, but this process was "
            f"launched as one of {world.size} (start the job with `spmd run -n {num_processes} "
            "script.py` or mpiexec)."
        )
    if process_id is not None and process_id != world.rank:
        raise ValueError(
            f"distributed.initialize: process_id={process_id}, but MPI gave this process rank "
            f"{world.rank} of {world.size}."
        )
    if local_device_ids is not None:
        ids = [local_device_ids] if isinstance(local_device_ids, int) else list(local_device_ids)
        if devices.initialized():
            have = devices.local_device_count()
            if len(ids) != have:
                raise RuntimeError(
                    f"distributed.initialize: local_device_ids gives {len(ids)} devices, but "
                    f"this process already uses {have}; call initialize before any computation."
                )
        else:
            devices.set_local_device_count(len(ids))
    devices.backend()  # lays the devices out over the processes
    _initialized = True


def is_initialized() -> bool:
    """Whether ``initialize`` has been called (and not shut down)."""
    return _initialized


def shutdown() -> None:
    """Leave the job: waits for every process to get here."""
    global _initialized
    if _initialized:
        backends.world().barrier("distributed.shutdown()")
    _initialized = False
