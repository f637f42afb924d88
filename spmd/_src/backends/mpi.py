"""The MPI communicator (mpi4py): a job launched by ``spmd run -n N`` or ``mpiexec``.

Values travel pickled (``comm.allgather``), which carries NumPy arrays of any dtype (bfloat16
included) exactly. Before each collective the ranks meet at a non-blocking barrier polled
against a deadline, so a rank that never arrives gives a ``TimeoutError`` rather than a hang;
past it every rank is inside the same MPI call and the call names are compared.
"""

from __future__ import annotations

import sys
import time
import traceback
from typing import Any

import numpy as np

from spmd._src.backends.base import Communicator, collective_timeout

__all__ = ["MPICommunicator"]


class MPICommunicator(Communicator):
    name = "MPI"

    def __init__(self, comm: Any) -> None:
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()

    def _arrive(self, what: str) -> None:
        req = self.comm.Ibarrier()
        if req.Test():
            return
        timeout = collective_timeout()
        start = time.monotonic()
        pause = 0.0
        while not req.Test():
            waited = time.monotonic() - start
            if waited > timeout:
                who = f"rank {self.rank} of {self.size}"
                if self.world_ranks is not None:
                    group = list(self.world_ranks)
                    who = f"rank {self.world_ranks[self.rank]} (in the group of ranks {group})"
                raise TimeoutError(
                    f"{what}: {who} waited {waited:.0f} s for the other ranks to reach this "
                    "collective (a rank that never makes this call, or is stuck, would otherwise "
                    "hang the job); SPMD_COLLECTIVE_TIMEOUT (spmd run --timeout) sets how long to "
                    "wait"
                )
            # Spin first (ranks running the same program meet within milliseconds), then
            # back off, never sleeping long: each sleep is latency added to the collective.
            if waited > 1e-3:
                pause = min(max(pause * 2, 1e-5), 1e-3)
                time.sleep(pause)

    def _allgather(self, obj: Any, what: str) -> list:
        self._arrive(what)
        return self.comm.allgather(obj)

    def _allgather_bytes(self, x: Any) -> Any:
        # The ranks have just met (exchanging shapes and dtypes): straight to the buffer
        # collective, the bytes of any dtype (bfloat16 too) as uint8, received in place.
        send = x.reshape(-1).view(np.uint8)
        recv = np.empty((self.size, send.size), np.uint8)
        self.comm.Allgather(send, recv)
        return recv.view(x.dtype).reshape((self.size, *x.shape))

    def _split(self, groups: tuple, mine: tuple) -> Communicator:
        where = f"a communicator for the groups of ranks {list(map(list, groups))}"
        self._arrive(where)
        sub = MPICommunicator(self.comm.Split(groups.index(mine), mine.index(self.rank)))
        sub.world_ranks = mine
        return sub

    def abort(self, code: int = 1) -> None:
        self.comm.Abort(code)

    def install_excepthook(self) -> None:
        """An uncaught exception on one rank ends the whole job with that rank's traceback
        (the other ranks would otherwise wait for it at their next collective)."""
        previous = sys.excepthook

        def hook(kind, value, tb):
            text = "".join(traceback.format_exception(kind, value, tb))
            sys.stderr.write(f"[spmd rank {self.rank} of {self.size}] {text}")
            sys.stderr.flush()
            sys.stdout.flush()
            if kind is KeyboardInterrupt:
                previous(kind, value, tb)
            # MPI's launcher forwards each rank's output through a pipe and stops forwarding
            # when the job is aborted: give it a moment to pass the traceback on.
            time.sleep(0.5)
            self.abort(1)

        sys.excepthook = hook
