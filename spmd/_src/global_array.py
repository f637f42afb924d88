"""``GlobalArray``: an Array sharded over devices of several processes.

In a job of several processes (``spmd run -n N``), an array placed on a mesh that spans them
is a ``GlobalArray`` on each process: its global shape, dtype and sharding, and the blocks of
this process's own devices only (DESIGN.md, "Arrays and devices"). The whole value is in no
single process: it is read with ``multihost_utils.process_allgather``, or block by block through
``addressable_shards``. Where this process's blocks cover the whole array (a replicated array,
or one split only over axes within the process), ``np.asarray`` reads it directly.

Computations on GlobalArrays (jit, shard_map, operators) run on every process at once; see
``spmd._src.multiprocess``.
"""

from __future__ import annotations

import math

import numpy as np

from spmd._src import core
from spmd._src import sharding as shd
from spmd._src.array import Array, Shard, array_repr

__all__ = ["GlobalArray"]


class GlobalArray(Array):
    """An array whose shards live on the devices of several processes; this process holds
    the blocks of its own devices (``_blocks``: device -> NumPy block; replicas share one).

    A subclass of ``Array`` so that code asking ``isinstance(x, Array)`` takes the array
    branch; it never has ``_value`` (reading it raises AttributeError, never a wrong value),
    and the exact-type fast paths (``type(x) is Array``) pass it by."""

    __slots__ = ("aval", "_blocks", "_stacked")

    def __init__(self, aval: core.ShapedArray, sharding: shd.Sharding, blocks: dict) -> None:
        self.aval = aval
        self._sharding = sharding
        self._committed = True
        self._device = None
        self._blocks = blocks
        # The blocks stacked as a batched body takes them (one leading dimension per mesh axis
        # the spec names, this process's slice of it): (those axes, the array), or None.
        # Blocks never change, so the stack is made once (or comes from the run that made
        # the blocks as views of it).
        self._stacked: tuple | None = None

    # -- type ----------------------------------------------------------------------------
    shape = property(lambda self: self.aval.shape)
    dtype = property(lambda self: self.aval.dtype)
    ndim = property(lambda self: len(self.aval.shape))
    size = property(lambda self: math.prod(self.aval.shape))
    weak_type = property(lambda self: self.aval.weak_type)
    itemsize = property(lambda self: self.aval.dtype.itemsize)
    nbytes = property(lambda self: self.size * self.aval.dtype.itemsize)
    sharding = property(lambda self: self._sharding)
    is_fully_addressable = False

    @property
    def is_fully_replicated(self) -> bool:
        return self._sharding.is_fully_replicated

    def devices(self) -> set:
        return self._sharding.device_set

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __hash__(self):
        raise TypeError("unhashable type: 'Array'")

    # -- this process's shards -------------------------------------------------------------
    @property
    def addressable_shards(self) -> list[Shard]:
        """The shards on this process's devices (their data: Arrays on those devices)."""
        return self._shards(self._sharding.addressable_devices_indices_map(self.shape))

    @property
    def global_shards(self) -> list[Shard]:
        """Every device's shard; those of other processes have no data (None)."""
        return self._shards(self._sharding.devices_indices_map(self.shape))

    def _shards(self, indices: dict) -> list[Shard]:
        replica = shd.shard_replica_ids(self._sharding, self.shape)
        return [
            Shard(
                d,
                idx,
                replica[d],
                Array(self._blocks[d], self.weak_type, shd.SingleDeviceSharding(d))
                if d in self._blocks
                else None,
            )
            for d, idx in indices.items()
        ]

    def addressable_data(self, index: int) -> Array:
        return self.addressable_shards[index].data

    def local_value(self) -> np.ndarray | None:
        """The whole value, when this process's blocks cover it (else None)."""
        out = np.empty(self.shape, self.dtype)
        covered = np.zeros(self.shape, bool) if self.size else None
        for d, idx in self._sharding.addressable_devices_indices_map(self.shape).items():
            out[idx] = self._blocks[d]
            if covered is not None:
                covered[idx] = True
        if covered is not None and not covered.all():
            return None
        return out

    def _value_or_raise(self) -> np.ndarray:
        v = self.local_value()
        if v is None:
            raise RuntimeError(
                f"The value of an Array of shape {self.shape} sharded as {self._sharding} is "
                "spread over the devices of several processes, and this process holds only "
                "part of it: gather it with "
                "spmd.experimental.multihost_utils.process_allgather(x, tiled=True), or read "
                "this process's blocks from x.addressable_shards."
            )
        return v

    # -- conversions -----------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        v = self._value_or_raise()
        return v if dtype is None else v.astype(dtype)

    def __bool__(self) -> bool:
        return bool(self._value_or_raise())

    def __int__(self) -> int:
        return int(self._value_or_raise())

    def __float__(self) -> float:
        return float(self._value_or_raise())

    def __complex__(self) -> complex:
        return complex(self._value_or_raise())

    def __index__(self) -> int:
        import operator

        return operator.index(self._value_or_raise()[()])

    def __iter__(self):
        raise TypeError(
            "iterating over an Array spread over several processes would fetch values this "
            "process does not hold; index it (x[i]) or gather it first"
        )

    def __reduce__(self):
        self._value_or_raise()
        return (Array, (self.local_value(), self.weak_type))

    def __copy__(self) -> GlobalArray:
        return GlobalArray(self.aval, self._sharding, self._blocks)

    def __deepcopy__(self, memo) -> GlobalArray:
        return GlobalArray(
            self.aval, self._sharding, {d: b.copy() for d, b in self._blocks.items()}
        )

    def copy(self) -> GlobalArray:
        return self.__deepcopy__({})

    def __format__(self, spec: str) -> str:
        return format(self._value_or_raise(), spec) if spec else str(self)

    def item(self, *args):
        return self._value_or_raise().item(*args)

    def tolist(self):
        return self._value_or_raise().tolist()

    def block_until_ready(self) -> GlobalArray:
        return self

    def is_deleted(self) -> bool:
        return False

    def __str__(self) -> str:
        v = self.local_value()
        return str(v) if v is not None else self._summary()

    def __repr__(self) -> str:
        v = self.local_value()
        return array_repr(v, self.weak_type) if v is not None else self._summary()

    def _summary(self) -> str:
        # JAX's repr of an Array whose values this process cannot read: its type only.
        return f"Array(shape={self.shape}, dtype={self.dtype.name})"
