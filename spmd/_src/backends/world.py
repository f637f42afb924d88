"""The job this process belongs to: found in the environment an MPI launcher sets up."""

from __future__ import annotations

import os

from spmd._src.backends.base import Communicator, SingleProcess

__all__ = ["launched_size", "set_world", "world", "world_from_environment"]

_world: Communicator | None = None

# What MPI launchers put in each process's environment (MPICH's hydra and Slurm, Open MPI).
_SIZE_VARS = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE")


def launched_size() -> int:
    """The number of processes an MPI launcher started this one with (1 when none did)."""
    for name in _SIZE_VARS:
        raw = os.environ.get(name)
        if raw and raw.isdigit():
            return int(raw)
    return 1


def world_from_environment() -> Communicator:
    """The job's communicator: MPI's world when launched as one of several MPI processes,
    else the one-process communicator. Made once."""
    global _world
    if _world is None:
        n = launched_size()
        if n > 1:
            try:
                from mpi4py import MPI
            except ImportError as e:
                raise RuntimeError(
                    f"This process was launched by MPI as one of {n} processes, but mpi4py is not "
                    "installed: pip install 'spmd[mpi]' (mpi4py and MPICH)."
                ) from e
            from spmd._src.backends.mpi import MPICommunicator

            comm = MPICommunicator(MPI.COMM_WORLD)
            comm.install_excepthook()
            _world = comm
        else:
            _world = SingleProcess()
    return _world


def world() -> Communicator:
    """The current job's communicator (found in the environment on first use)."""
    return _world if _world is not None else world_from_environment()


def set_world(comm: Communicator) -> None:
    global _world
    _world = comm
