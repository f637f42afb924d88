"""Virtual CPU devices.

A process has N virtual devices (``SPMD_NUM_DEVICES``, else
``XLA_FLAGS=--xla_force_host_platform_device_count=N`` so JAX notebooks run as they are, else
``config.update('jax_num_cpu_devices', N)`` before first use, else 8). Under MPI each process
has its own N and the device ids are global.

>>> devices()[0]
CpuDevice(id=0)
"""

from __future__ import annotations

import os
import re
from typing import Any

from spmd._src import backends
from spmd._src.config import config

MEMORY_KINDS = ("device", "pinned_host", "unpinned_host")


class Memory:
    """A memory space of a device (``device``, ``pinned_host`` or ``unpinned_host``)."""

    __slots__ = ("device", "kind")

    def __init__(self, device: CpuDevice, kind: str) -> None:
        self.device, self.kind = device, kind

    def __repr__(self) -> str:
        if self.kind == "device":
            return f"CPU_DEVICE_{self.device.id}"
        return f"{self.kind.upper()}_{self.device.id}"

    def __eq__(self, other) -> bool:
        return isinstance(other, Memory) and (self.device, self.kind) == (other.device, other.kind)

    def __hash__(self) -> int:
        return hash((self.device.id, self.kind))


class CpuDevice:
    """A virtual CPU device: ``CpuDevice(id=i)`` on process ``process_index``."""

    __slots__ = ("id", "process_index", "__weakref__")
    platform = "cpu"
    device_kind = "cpu"
    client = None

    def __init__(self, id: int, process_index: int = 0) -> None:
        self.id = id
        self.process_index = process_index

    @property
    def local_hardware_id(self) -> int:
        return self.id

    def addressable_memories(self) -> list[Memory]:
        return [Memory(self, k) for k in MEMORY_KINDS]

    def default_memory(self) -> Memory:
        return Memory(self, "device")

    def memory(self, kind: str) -> Memory:
        check_memory_kind(kind, self)
        return Memory(self, kind)

    def __repr__(self) -> str:
        return f"CpuDevice(id={self.id})"

    def __str__(self) -> str:
        return f"cpu:{self.id}"

    def __eq__(self, other) -> bool:
        return isinstance(other, CpuDevice) and self.id == other.id

    def __hash__(self) -> int:
        return hash(("cpu", self.id))

    def __lt__(self, other: CpuDevice) -> bool:
        return self.id < other.id


def check_memory_kind(kind: Any, device: CpuDevice | None = None) -> str:
    """Validate a memory kind name (ValueError listing the valid ones)."""
    if kind not in MEMORY_KINDS:
        where = f"Device {device}" if device is not None else "A CPU device"
        raise ValueError(
            f"Could not find memory addressable by device cpu. {where} can address the "
            f"following memory kinds: {', '.join(MEMORY_KINDS)}. Got memory kind: {kind}"
        )
    return kind


# ---------------------------------------------------------------------------------------------
# The device list of this process (made on first use)


class _Backend:
    __slots__ = ("devices", "local", "process_index", "process_count")

    def __init__(self, n_local: int, process_index: int = 0, process_count: int = 1) -> None:
        self.process_index, self.process_count = process_index, process_count
        self.devices = [
            CpuDevice(p * n_local + i, p) for p in range(process_count) for i in range(n_local)
        ]
        self.local = [d for d in self.devices if d.process_index == process_index]


_backend: _Backend | None = None


def _count_from_environment() -> int:
    raw = os.environ.get("SPMD_NUM_DEVICES")
    if raw:
        n = int(raw)
        if n <= 0:
            raise ValueError(f"SPMD_NUM_DEVICES must be a positive integer, got {raw!r}")
        return n
    m = re.search(r"--xla_force_host_platform_device_count=(\d+)", os.environ.get("XLA_FLAGS", ""))
    if m:
        return int(m.group(1))
    if config.jax_num_cpu_devices != -1:
        return config.jax_num_cpu_devices
    return 8


_local_count: int | None = None  # set by distributed.initialize(local_device_ids=...)


def backend() -> _Backend:
    global _backend
    if _backend is None:
        n = _local_count if _local_count is not None else _count_from_environment()
        world = backends.world()
        if world.size > 1:
            counts = world.allgather(n, "the device count of each process")
            if len(set(counts)) > 1:
                raise RuntimeError(
                    "Every process of a job must have the same number of devices; they have "
                    + ", ".join(f"rank {r}: {c}" for r, c in enumerate(counts))
                    + " (SPMD_NUM_DEVICES sets it for all of them)."
                )
        _backend = _Backend(n, world.rank, world.size)
    return _backend


def set_local_device_count(n: int) -> None:
    """The number of this process's devices (before their first use)."""
    global _local_count
    if n <= 0:
        raise ValueError(f"a process needs at least one device, got {n}")
    _local_count = n


def initialized() -> bool:
    return _backend is not None


def devices(backend_name: str | None = None) -> list[CpuDevice]:
    """All devices, in id order."""
    _check_backend(backend_name)
    return list(backend().devices)


def local_devices(process_index: int | None = None, backend_name: str | None = None) -> list:
    """The devices of this process (or of ``process_index``)."""
    _check_backend(backend_name)
    b = backend()
    if process_index is None:
        return list(b.local)
    return [d for d in b.devices if d.process_index == process_index]


def device_count(backend_name: str | None = None) -> int:
    _check_backend(backend_name)
    return len(backend().devices)


def local_device_count(backend_name: str | None = None) -> int:
    _check_backend(backend_name)
    return len(backend().local)


def process_index(backend_name: str | None = None) -> int:
    return backend().process_index


def process_count(backend_name: str | None = None) -> int:
    return backend().process_count


def process_indices(backend_name: str | None = None) -> list[int]:
    """The indices of every process, ``[0, ..., process_count() - 1]``."""
    return list(range(backend().process_count))


# JAX's older names for the process functions.
def host_count(backend_name: str | None = None) -> int:
    return process_count(backend_name)


def host_id(backend_name: str | None = None) -> int:
    return process_index(backend_name)


def host_ids(backend_name: str | None = None) -> list[int]:
    return process_indices(backend_name)


def default_backend() -> str:
    return "cpu"


def _check_backend(name: str | None) -> None:
    if name not in (None, "cpu"):
        raise RuntimeError(
            f"Unknown backend {name!r}: spmd has only the 'cpu' backend (virtual CPU devices)."
        )


def _on_num_devices_change(value: int) -> None:
    if _backend is not None and value != len(_backend.local):
        raise RuntimeError(
            f"jax_num_cpu_devices={value} was set after the devices were first used (this "
            f"process already has {len(_backend.local)}); set it before using any array or device."
        )


config._options["jax_num_cpu_devices"].on_change = _on_num_devices_change

__all__ = [
    "CpuDevice",
    "Memory",
    "default_backend",
    "device_count",
    "devices",
    "local_device_count",
    "local_devices",
    "process_count",
    "process_index",
]
