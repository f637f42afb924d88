"""``experimental.mesh_utils``: arrays of devices shaped for a ``Mesh``.

On accelerators JAX orders devices by their physical interconnect; spmd's virtual CPU devices
have none, so a mesh takes them in the order given (``devices()`` by default), row-major, as
JAX does for CPU devices. The hybrid mesh tiles per-granule meshes (one granule per process)
over a ``dcn_mesh_shape`` grid, the layout multi-process runs use.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import devices as _devices


def _shape(mesh_shape: Sequence[int], name: str, what: str) -> tuple[int, ...]:
    try:
        shape = tuple(int(d) for d in mesh_shape)
    except TypeError:
        raise TypeError(f"{name}: {what} must be a sequence of ints, got {mesh_shape!r}") from None
    if any(d < 1 for d in shape):
        raise ValueError(f"{name}: {what} must have positive entries, got {shape}")
    return shape


def create_device_mesh(
    mesh_shape: Sequence[int],
    devices: Sequence[Any] | None = None,
    *,
    contiguous_submeshes: bool = False,
    allow_split_physical_axes: bool = False,
) -> np.ndarray:
    """An ndarray of ``mesh_shape`` holding every device of ``devices`` (default: all),
    row-major in the order given.

    >>> mesh_utils.create_device_mesh((2, 4)).shape
    (2, 4)
    """
    shape = _shape(mesh_shape, "create_device_mesh", "mesh_shape")
    devs = list(_devices.devices() if devices is None else devices)
    if len(devs) != math.prod(shape):
        raise ValueError(
            f"Number of devices {len(devs)} must equal the product of mesh_shape {shape}"
        )
    out = np.empty(len(devs), dtype=object)
    out[:] = devs
    return out.reshape(shape)


def create_hybrid_device_mesh(
    mesh_shape: Sequence[int],
    dcn_mesh_shape: Sequence[int],
    devices: Sequence[Any] | None = None,
    *,
    process_is_granule: bool = False,
    should_sort_granules_by_key: bool = True,
    allow_split_physical_axes: bool = False,
) -> np.ndarray:
    """A device mesh of ``mesh_shape * dcn_mesh_shape`` (elementwise): the devices of each
    granule (a process, with ``process_is_granule``) form a ``mesh_shape`` block, and the
    blocks tile a ``dcn_mesh_shape`` grid in granule order (two processes of four devices
    with ``mesh_shape=(1, 4)``, ``dcn_mesh_shape=(2, 1)``: a (2, 4) mesh, a process per row).
    """
    name = "create_hybrid_device_mesh"
    shape = _shape(mesh_shape, name, "mesh_shape")
    dcn = _shape(dcn_mesh_shape, name, "dcn_mesh_shape")
    if len(shape) != len(dcn):
        raise ValueError(
            f"{name}: mesh_shape {shape} and dcn_mesh_shape {dcn} must have the same length"
        )
    devs = list(_devices.devices() if devices is None else devices)
    if not process_is_granule:
        raise ValueError(
            f"Device {devs[0]} does not have attribute slice_index. See `process_is_granule` "
            "option."
        )
    granules: dict[int, list] = {}
    for d in devs:
        granules.setdefault(d.process_index, []).append(d)
    keys = sorted(granules) if should_sort_granules_by_key else list(granules)
    if len(keys) != math.prod(dcn):
        raise ValueError(
            f"Number of slices {len(keys)} must equal the product of dcn_mesh_shape {dcn}"
        )
    blocks = [create_device_mesh(shape, granules[k]) for k in keys]
    grid = np.empty(dcn, dtype=object)
    for i, b in enumerate(blocks):
        grid[np.unravel_index(i, dcn)] = b
    return np.block(grid.tolist()) if len(dcn) else blocks[0]


__all__ = ["create_device_mesh", "create_hybrid_device_mesh"]
