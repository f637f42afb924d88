"""The communicator protocol and the one-process communicator."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

__all__ = ["Communicator", "SingleProcess", "check_calls", "collective_timeout"]


def collective_timeout() -> float:
    """Seconds a rank waits for the others at a collective (``SPMD_COLLECTIVE_TIMEOUT``)."""
    raw = os.environ.get("SPMD_COLLECTIVE_TIMEOUT", "300")
    try:
        t = float(raw)
    except ValueError:
        t = -1.0
    if not t > 0:
        raise ValueError(
            f"SPMD_COLLECTIVE_TIMEOUT must be a positive number of seconds, got {raw!r}"
        )
    return t


def check_calls(whats: list[str], ranks: tuple | None = None) -> None:
    """Raise (on every rank alike: each sees the same list) when the ranks made different
    collective calls at the same point of their programs (``ranks``: the job's ranks of the
    callers, for a group's communicator)."""
    if all(w == whats[0] for w in whats):
        return
    ranks = range(len(whats)) if ranks is None else ranks
    lines = "\n".join(f"  rank {r}: {w}" for r, w in zip(ranks, whats))
    raise RuntimeError(
        "Mismatched collectives: the processes reached different collective calls (each rank "
        f"must make the same calls in the same order):\n{lines}"
    )


class Communicator:
    """The processes of one job. Subclasses implement ``_allgather``, ``_barrier`` and
    ``abort``; ``allgather`` and ``barrier`` add the checks every backend shares."""

    rank: int = 0
    size: int = 1
    name: str = "?"
    # A group's communicator (``group``): the job's ranks of its ranks; None for the job's.
    world_ranks: tuple | None = None

    def allgather(self, obj: Any, what: str) -> list:
        """Every rank's ``obj``, in rank order (the same list on every rank)."""
        pairs = self._allgather((what, obj), what)
        check_calls([w for w, _ in pairs], self.world_ranks)
        return [o for _, o in pairs]

    def allgather_array(self, x: Any, what: str) -> Any:
        """Every rank's NumPy array ``x`` stacked in rank order: shape ``(size, *x.shape)``.
        The call names, shapes and dtypes are compared first (a small message; ranks passing
        different ones raise ValueError, every rank alike); the arrays then travel as raw bytes
        where the backend can (no pickling: an MPI job moves a MiB in a fraction of a
        millisecond rather than several) into one buffer, the result."""
        x = np.ascontiguousarray(x).reshape(np.shape(x))  # (a 0-d array stays 0-d)
        metas = self.allgather((x.shape, x.dtype), what)
        if any(m != metas[0] for m in metas):
            ranks = self.world_ranks or range(self.size)
            each = "\n".join(
                f"  rank {r}: {np.dtype(d).name}{list(s)}" for r, (s, d) in zip(ranks, metas)
            )
            raise ValueError(
                f"{what}: every rank must pass an array of one shape and dtype:\n{each}"
            )
        if x.dtype.hasobject:
            return np.stack(self.allgather(x, what))
        return self._allgather_bytes(x)

    def _allgather_bytes(self, x: Any) -> Any:
        # Every rank is here with an array of the same shape and dtype.
        return np.stack(self._allgather(x, "array"))

    def group(self, groups: tuple) -> Communicator:
        """The communicator of this rank's group among ``groups`` (tuples of ranks that
        partition the job; the same on every rank), ranked in its tuple's order. The first
        call with given ``groups`` is a collective of the whole job (every rank makes it, as
        every rank runs the same program); later ones reuse the communicator."""
        cache = self.__dict__.setdefault("_groups", {})
        hit = cache.get(groups)
        if hit is None:
            mine = next(g for g in groups if self.rank in g)
            hit = self if mine == tuple(range(self.size)) else self._split(groups, mine)
            cache[groups] = hit
        return hit

    def _split(self, groups: tuple, mine: tuple) -> Communicator:
        raise NotImplementedError(f"{type(self).__name__} has no sub-communicators")

    def barrier(self, what: str) -> None:
        """Wait until every rank has reached the barrier called ``what``."""
        self.allgather(None, what)

    def _allgather(self, obj: Any, what: str) -> list:  # pragma: no cover - abstract
        raise NotImplementedError

    def abort(self, code: int = 1) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rank={self.rank}, size={self.size})"


class SingleProcess(Communicator):
    """The communicator of a job of one process: every collective is a copy."""

    name = "single process"

    def _allgather(self, obj: Any, what: str) -> list:
        return [obj]

    def abort(self, code: int = 1) -> None:
        os._exit(code)
