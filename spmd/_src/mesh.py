"""Device meshes: an N-d array of devices with named axes.

``make_mesh`` gives Auto axes by default, the semantics the seeds were written for (JAX 0.10
defaults to Explicit; ``config.update('spmd_default_axis_types', 'explicit')`` selects that).

>>> make_mesh((2, 4), ("x", "y"))
Mesh('x': 2, 'y': 4, axis_types=(Auto, Auto))
"""

from __future__ import annotations

import contextlib
import enum
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import devices as dev
from spmd._src.config import config


class AxisType(enum.Enum):
    """How a mesh axis is used: sharding propagated by the compiler (Auto), carried in types
    (Explicit), or handled by the program itself inside shard_map (Manual)."""

    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()

    def __repr__(self) -> str:
        return self.name


def _axis_types(axis_types: Any, n: int, who: str) -> tuple[AxisType, ...]:
    if axis_types is None:  # (make_mesh's default follows spmd_default_axis_types)
        return (AxisType.Auto,) * n
    if isinstance(axis_types, AxisType):
        return (axis_types,) * n
    axis_types = tuple(axis_types)
    if len(axis_types) != n or not all(isinstance(t, AxisType) for t in axis_types):
        raise ValueError(
            f"{who}: axis_types must be an AxisType or a tuple of {n} AxisTypes (one per axis), "
            f"got {axis_types!r}"
        )
    return axis_types


def _check_names(axis_names: Any, who: str) -> tuple:
    if isinstance(axis_names, str):
        axis_names = (axis_names,)
    names = tuple(axis_names)
    dup = sorted({repr(n) for n in names if names.count(n) > 1})
    if dup:
        raise ValueError(
            f"{who}: axis names must be unique, got {names} (repeated: {', '.join(dup)})"
        )
    return names


def _fmt_axes(names, sizes, types) -> str:
    body = ", ".join(f"{n!r}: {s}" for n, s in zip(names, sizes))
    return (
        f"{body}, axis_types=({', '.join(t.name for t in types)}{',' if len(types) == 1 else ''})"
    )


class AbstractMesh:
    """A mesh's shape, axis names and axis types, without devices."""

    def __init__(self, axis_sizes: Sequence[int], axis_names: Sequence[Any], axis_types=None):
        self.axis_sizes = tuple(int(s) for s in axis_sizes)
        self.axis_names = _check_names(axis_names, "AbstractMesh")
        if len(self.axis_sizes) != len(self.axis_names):
            raise ValueError(
                f"AbstractMesh: {len(self.axis_sizes)} axis sizes but {len(self.axis_names)} names"
            )
        self.axis_types = _axis_types(axis_types, len(self.axis_names), "AbstractMesh")
        # A concrete mesh's abstract mesh knows its devices' kind (JAX prints it); one built
        # by hand does not.
        self._device_kind: str | None = None

    @property
    def shape(self) -> OrderedDict:
        return OrderedDict(zip(self.axis_names, self.axis_sizes))

    @property
    def size(self) -> int:
        return int(np.prod(self.axis_sizes, dtype=np.int64))

    @property
    def empty(self) -> bool:
        return not self.axis_names

    def __eq__(self, other) -> bool:
        return isinstance(other, AbstractMesh) and (
            self.axis_sizes,
            self.axis_names,
            self.axis_types,
        ) == (other.axis_sizes, other.axis_names, other.axis_types)

    def __hash__(self) -> int:
        return hash((self.axis_sizes, self.axis_names, self.axis_types))

    def __repr__(self) -> str:
        axes = _fmt_axes(self.axis_names, self.axis_sizes, self.axis_types)
        if self._device_kind is None:
            return f"AbstractMesh({axes})"
        kind = self._device_kind
        return f"AbstractMesh({axes}, device_kind={kind}, num_cores=None, platform={kind})"


class Mesh:
    """An N-d array of devices with one name per axis.

    >>> Mesh(np.array(devices()).reshape(2, 4), ("x", "y"))
    Mesh('x': 2, 'y': 4, axis_types=(Auto, Auto))
    """

    # axis_types may be given by position, as JAX's Mesh(devices, names, axis_types) takes it
    # (the shard_map tutorial's pipeline cell does).
    def __init__(self, devices: Any, axis_names: Any, axis_types: Any = None) -> None:
        if not isinstance(devices, np.ndarray):
            devices = np.array(devices, dtype=object)
        names = _check_names(axis_names, "Mesh")
        if devices.ndim != len(names):
            raise ValueError(
                "Mesh requires the ndim of its first argument (`devices`) to equal the length of "
                f"its second argument (`axis_names`), but got devices.ndim == {devices.ndim} and "
                f"len(axis_names) == {len(names)}."
            )
        flat = list(devices.flat)
        if not all(isinstance(d, dev.CpuDevice) for d in flat):
            kinds = sorted({type(d).__name__ for d in flat})
            raise TypeError(f"Mesh: devices must be spmd devices, got {kinds}")
        ids = [d.id for d in flat]
        dup = sorted({i for i in ids if ids.count(i) > 1})
        if dup:
            raise ValueError(
                f"Mesh: devices must be distinct, but device ids {dup} appear more than once in "
                f"the {devices.shape} device array."
            )
        self.devices = devices
        self.axis_names = names
        self.axis_types = _axis_types(axis_types, len(names), "Mesh")
        # Auto types that came from spmd's default (JAX 0.10 defaults to Explicit): reshard,
        # which JAX only allows on Explicit axes, accepts them so JAX programs run unchanged.
        self._types_defaulted = axis_types is None
        self._hash = hash((tuple(ids), devices.shape, names, self.axis_types))

    @property
    def shape(self) -> OrderedDict:
        return OrderedDict(zip(self.axis_names, self.devices.shape))

    @property
    def axis_sizes(self) -> tuple[int, ...]:
        return tuple(self.devices.shape)

    @property
    def shape_tuple(self) -> tuple:
        return tuple(zip(self.axis_names, self.devices.shape))

    @property
    def size(self) -> int:
        return int(self.devices.size)

    @property
    def empty(self) -> bool:
        return self.devices.size == 0

    @property
    def device_ids(self) -> np.ndarray:
        return np.vectorize(lambda d: d.id, otypes=[int])(self.devices)

    @property
    def local_devices(self) -> list:
        pi = dev.process_index()
        return [d for d in self.devices.flat if d.process_index == pi]

    @property
    def local_mesh(self) -> Mesh:
        """The sub-mesh of this process's devices (the whole mesh in one process); ValueError
        when they do not fill a box of the mesh's device array."""
        m = self.local_submesh()
        if m is None:
            raise ValueError(
                f"Mesh {dict(self.shape)}: the devices of process {dev.process_index()} do not "
                "fill a box of the mesh's device array, so they form no local mesh"
            )
        return m

    def local_submesh(self) -> Mesh | None:
        """The sub-mesh of this process's devices, or None when they do not fill a box of
        the mesh's device array (or the mesh has none of them)."""
        me = dev.process_index()
        mine = np.vectorize(lambda d: d.process_index == me, otypes=[bool])(self.devices)
        where = np.nonzero(mine)
        if not where[0].size:
            return None
        box = tuple(slice(int(w.min()), int(w.max()) + 1) for w in where)
        if not mine[box].all():
            return None
        return Mesh(self.devices[box], self.axis_names, axis_types=self.axis_types)

    @property
    def is_multi_process(self) -> bool:
        return len({d.process_index for d in self.devices.flat}) > 1

    @property
    def abstract_mesh(self) -> AbstractMesh:
        m = AbstractMesh(self.axis_sizes, self.axis_names, self.axis_types)
        m._device_kind = "cpu"
        return m

    def __eq__(self, other) -> bool:
        if not isinstance(other, Mesh):
            return False
        if self is other:
            return True
        return (
            self.axis_names == other.axis_names
            and self.axis_types == other.axis_types
            and self.devices.shape == other.devices.shape
            and all(a.id == b.id for a, b in zip(self.devices.flat, other.devices.flat))
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return (
            f"Mesh(axis_sizes={self.axis_sizes}, axis_names={self.axis_names}, "
            f"axis_types=({', '.join(t.name for t in self.axis_types)}"
            f"{',' if len(self.axis_types) == 1 else ''}))"
        )

    def __str__(self) -> str:
        return f"Mesh({_fmt_axes(self.axis_names, self.axis_sizes, self.axis_types)})"

    def __enter__(self) -> Mesh:
        _mesh_stack().append(self)
        _ctx.legacy.append(True)
        return self

    def __exit__(self, *exc) -> None:
        _mesh_stack().pop()
        _ctx.legacy.pop()


def make_mesh(
    axis_shapes: Sequence[int],
    axis_names: Sequence[Any],
    axis_types: Any = None,
    *,
    devices: Sequence[dev.CpuDevice] | None = None,
) -> Mesh:
    """A mesh of the given shape over the first ``prod(axis_shapes)`` of ``devices`` (default:
    all devices), as in JAX 0.10.

    >>> make_mesh((8,), ("x",)).devices.shape
    (8,)
    """
    shape = tuple(int(s) for s in axis_shapes)
    names = _check_names(axis_names, "make_mesh")
    if len(shape) != len(names):
        raise ValueError(
            f"make_mesh: axis_shapes {shape} and axis_names {names} must have the same length"
        )
    devs = list(dev.devices() if devices is None else devices)
    n = int(np.prod(shape, dtype=np.int64))
    if n > len(devs):
        raise ValueError(
            f"Number of devices {len(devs)} must be >= the product of mesh_shape {shape}: "
            f"make_mesh's mesh of axis_shapes {shape} needs {n} devices."
        )
    defaulted = False
    if axis_types is None:
        # Auto unless spmd_default_axis_types says 'explicit' (JAX 0.10's make_mesh default;
        # Mesh and AbstractMesh default to Auto in both).
        explicit = config.spmd_default_axis_types == "explicit"
        axis_types = (AxisType.Explicit if explicit else AxisType.Auto,) * len(names)
        defaulted = not explicit
    # As JAX 0.10: a smaller mesh takes the first n devices (of those given).
    mesh = Mesh(np.array(devs[:n], dtype=object).reshape(shape), names, axis_types=axis_types)
    # Auto by spmd's default where JAX 0.10's would be Explicit: reshard and out_sharding let
    # such axes through, so JAX programs run unchanged (lax/sharding.py).
    mesh._types_defaulted = defaulted
    return mesh


# ---------------------------------------------------------------------------------------------
# The mesh in context


class _MeshContext(threading.local):
    def __init__(self) -> None:
        self.stack: list = []
        self.abstract: list = []  # use_abstract_mesh's meshes, innermost last
        # Parallel to ``stack``: True where the mesh came from ``with mesh:`` (the legacy
        # context manager, which JAX's jaxprs do not record as ctx_mesh).
        self.legacy: list = []


_ctx = _MeshContext()


def _mesh_stack() -> list:
    return _ctx.stack


def get_mesh() -> Mesh | None:
    """The concrete mesh set by ``set_mesh``/``use_mesh``/``with mesh:``, or None."""
    stack = _mesh_stack()
    return stack[-1] if stack else None


def traced_context_mesh() -> Mesh | None:
    """The mesh a jit equation records as ``ctx_mesh``: the one set_mesh/use_mesh put in
    context (not the legacy ``with mesh:``), or None."""
    stack = _mesh_stack()
    if stack and not (_ctx.legacy and _ctx.legacy[-1]):
        return stack[-1]
    return None


def get_abstract_mesh() -> AbstractMesh:
    """The abstract mesh in context: ``use_abstract_mesh``'s, else the concrete mesh's."""
    if _ctx.abstract:
        return _ctx.abstract[-1]
    m = get_mesh()
    return m.abstract_mesh if m is not None else AbstractMesh((), ())


@contextlib.contextmanager
def use_abstract_mesh(mesh: AbstractMesh):
    """Make ``mesh`` the abstract mesh in context (``get_abstract_mesh``) inside the block,
    leaving the concrete mesh as it is."""
    if not isinstance(mesh, AbstractMesh):
        raise ValueError(
            "Expected mesh of type `spmd.sharding.AbstractMesh`. Got type: " + str(type(mesh))
        )
    prev = get_abstract_mesh()
    if not prev.empty and not mesh.empty and prev.size != mesh.size:
        raise ValueError(
            f"use_abstract_mesh cannot change the size of the mesh. Got new mesh: {mesh} with "
            f"size={mesh.size} and prev mesh: {prev} with size={prev.size}"
        )
    _ctx.abstract.append(mesh)
    try:
        yield mesh
    finally:
        _ctx.abstract.pop()


@contextlib.contextmanager
def use_mesh(mesh: Mesh):
    """Make ``mesh`` the mesh in context inside the ``with`` block."""
    _mesh_stack().append(mesh)
    _ctx.legacy.append(False)
    try:
        yield mesh
    finally:
        _mesh_stack().pop()
        _ctx.legacy.pop()


class _SetMesh:
    """``set_mesh(mesh)`` sets the mesh globally; used as a context manager it restores the
    previous one on exit."""

    def __init__(self, mesh: Mesh) -> None:
        stack = _mesh_stack()
        self._prev = list(stack), list(_ctx.legacy)
        stack[:] = [mesh]
        _ctx.legacy[:] = [False]
        self.mesh = mesh

    def __enter__(self) -> Mesh:
        return self.mesh

    def __exit__(self, *exc) -> None:
        _mesh_stack()[:], _ctx.legacy[:] = self._prev


def set_mesh(mesh: Mesh) -> _SetMesh:
    return _SetMesh(mesh)


__all__ = [
    "AbstractMesh",
    "AxisType",
    "Mesh",
    "get_abstract_mesh",
    "get_mesh",
    "make_mesh",
    "set_mesh",
    "use_abstract_mesh",
    "use_mesh",
]
