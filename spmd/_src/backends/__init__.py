"""Communication between processes: the only part of spmd that talks to MPI.

A ``Communicator`` joins the processes of one job (``rank`` of ``size``). It offers one
collective, ``allgather``: every rank hands in a value and gets every rank's value back, in rank
order. Everything above builds on it, and does its arithmetic itself, in device order, on the
gathered values, so every rank computes the same bits, and the same bits as one process running
all the devices (DESIGN.md, "Numerics"): MPI's own float reductions are never used.

Each call names itself (``what``, e.g. ``"psum over ('x',) of float32[4]"``): ranks making
different calls at the same point raise an error naming each rank's call, and a rank waiting
longer than ``SPMD_COLLECTIVE_TIMEOUT`` seconds (default 300) for the others raises
``TimeoutError`` instead of hanging.

>>> world().size  # one process: the trivial communicator
1
"""

from __future__ import annotations

from spmd._src.backends.base import Communicator, SingleProcess, check_calls
from spmd._src.backends.world import set_world, world, world_from_environment

__all__ = [
    "Communicator",
    "SingleProcess",
    "check_calls",
    "set_world",
    "world",
    "world_from_environment",
]
