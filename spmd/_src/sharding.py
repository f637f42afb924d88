"""Shardings: how an array's global shape is laid out over devices.

A ``NamedSharding(mesh, P(...))`` splits array dimension i over the mesh axes named by entry i
of the PartitionSpec (several axes: major to minor); unnamed mesh axes replicate. This module
does the index math (``devices_indices_map``, ``shard_shape``) and knows nothing of tracers.

>>> mesh = make_mesh((2, 4), ("x", "y"))
>>> NamedSharding(mesh, P("x", "y")).shard_shape((4, 8))
(2, 2)

Uneven dimensions (a size the number of shards does not divide) raise IndivisibleError, as in
JAX, unless ``config.update('spmd_uneven', 'pad')``: then a dimension of size d split n ways
is laid out as XLA pads it -- every shard has ceil(d/n) slots, device k holds the logical
elements [k*c, min((k+1)*c, d)) (the last shards fewer, possibly none) and the rest of its slots
are padding. The array's logical shape and values never change; ``shard_shape`` gives the padded
shape and ``addressable_shards[i].data`` the logical part.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from spmd._src import devices as dev
from spmd._src.config import config
from spmd._src.mesh import AxisType, Mesh, get_abstract_mesh, get_mesh


class DuplicateSpecError(ValueError):
    """A mesh axis is used by more than one dimension of a PartitionSpec."""


class IndivisibleError(ValueError):
    """An array dimension is not divisible by the number of shards it is split into."""


class UnevenShardingWarning(UserWarning):
    """A sharding asked for a dimension its shards do not divide, and the result is replicated
    along it (JAX does this silently under jit; ``config.update('spmd_uneven', 'pad')`` pads
    instead, ``'raise'`` raises)."""


class _Unconstrained:
    __slots__ = ()

    def __repr__(self) -> str:
        return "UNCONSTRAINED"

    def __reduce__(self):
        return (_get_unconstrained, ())


UNCONSTRAINED = _Unconstrained()


def _get_unconstrained():
    return UNCONSTRAINED


class PartitionSpec(tuple):
    """Per array dimension: None (replicated), a mesh axis name, or a tuple of names.

    >>> P("x", None, ("a", "b"))
    P('x', None, ('a', 'b'))
    """

    UNCONSTRAINED = UNCONSTRAINED

    def __new__(cls, *partitions: Any, reduced: Any = frozenset(), unreduced: Any = frozenset()):
        norm = []
        for p in partitions:
            if isinstance(p, list):
                p = tuple(p)
            if isinstance(p, tuple) and len(p) == 1:
                p = p[0]
            if isinstance(p, tuple) and not p:
                p = None
            norm.append(p)
        self = super().__new__(cls, norm)
        self.reduced = frozenset(reduced)
        self.unreduced = frozenset(unreduced)
        return self

    def __repr__(self) -> str:
        parts = [repr(p) for p in self]
        if self.reduced:
            parts.append(f"reduced={set(sorted(self.reduced))}")
        if self.unreduced:
            parts.append(f"unreduced={set(sorted(self.unreduced))}")
        # A one-entry spec prints like a one-element tuple, as JAX's does: P('x',).
        comma = "," if len(parts) == 1 and len(self) == 1 else ""
        return f"P({', '.join(parts)}{comma})"

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        if not isinstance(other, tuple):
            return False
        r = getattr(other, "reduced", frozenset())
        u = getattr(other, "unreduced", frozenset())
        return tuple.__eq__(self, other) and self.reduced == r and self.unreduced == u

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        # Trailing Nones do not change the layout; equal layouts hash alike.
        parts = list(self)
        while parts and parts[-1] is None:
            parts.pop()
        return hash((tuple(parts), self.reduced, self.unreduced))

    def __reduce__(self):
        return (_make_spec, (tuple(self), self.reduced, self.unreduced))

    def _normalized(self, ndim: int) -> tuple:
        return tuple(self) + (None,) * (ndim - len(self))

    def _full_rank(self, ndim: int) -> PartitionSpec:
        """This spec with one entry per dimension (its unreduced and reduced axes kept)."""
        parts = self._normalized(ndim)
        return PartitionSpec(*parts, unreduced=self.unreduced, reduced=self.reduced)


def _make_spec(parts, reduced, unreduced):
    return PartitionSpec(*parts, reduced=reduced, unreduced=unreduced)


def reduction_str(spec: Any) -> str:
    """``{U:X}`` / ``{R:(X,Y)}``: the mesh axes a spec says its array is unreduced (partial sums
    pending a sum) or reduced over, as JAX prints them after the dimensions of a type."""
    out = ""
    for tag, axes in (("U", getattr(spec, "unreduced", ())), ("R", getattr(spec, "reduced", ()))):
        if axes:
            names = sorted(axes, key=str)
            out += "{" + tag + ":" + (names[0] if len(names) == 1 else f"({','.join(names)})") + "}"
    return out


P = PartitionSpec


def spec_axes(entry: Any) -> tuple:
    """The mesh axes one spec entry names (``()`` for None/UNCONSTRAINED)."""
    if entry is None or entry is UNCONSTRAINED:
        return ()
    if isinstance(entry, tuple):
        return entry
    return (entry,)


class Sharding:
    """Base class of shardings."""

    memory_kind: str = "device"

    @property
    def device_set(self) -> set:
        return set(self._device_list())

    @property
    def num_devices(self) -> int:
        return len(self._device_list())

    @property
    def is_fully_addressable(self) -> bool:
        pi = dev.process_index()
        return all(d.process_index == pi for d in self._device_list())

    @property
    def addressable_devices(self) -> set:
        pi = dev.process_index()
        return {d for d in self._device_list() if d.process_index == pi}

    def addressable_devices_indices_map(self, global_shape: Sequence[int]) -> dict:
        pi = dev.process_index()
        return {
            d: idx
            for d, idx in self.devices_indices_map(global_shape).items()
            if d.process_index == pi
        }

    def _device_list(self) -> list:
        raise NotImplementedError

    def is_equivalent_to(self, other: Sharding, ndim: int) -> bool:
        """Whether ``self`` and ``other`` lay out an array of rank ``ndim`` the same way: the
        same devices in the same order, the same memory kind, and each device holding the same
        part (``P('x')`` and ``P('x', None)``, or a one-device mesh and that device, agree)."""
        if not isinstance(other, Sharding):
            raise TypeError(
                f"is_equivalent_to: other must be a Sharding, got {type(other).__name__}"
            )
        if self._device_list() != other._device_list() or self.memory_kind != other.memory_kind:
            return False
        # Dimensions the device count divides, however the devices split them; slices compared
        # as the ranges they select (a split into one piece is the whole dimension).
        shape = (self.num_devices,) * ndim

        def layout(s: Sharding) -> dict:
            return {
                d: tuple(i.indices(n) for i, n in zip(idx, shape))
                for d, idx in s._trimmed().devices_indices_map(shape).items()
            }

        return layout(self) == layout(other)

    def _trimmed(self) -> Sharding:
        return self

    def devices_indices_map(self, global_shape: Sequence[int]) -> dict:
        raise NotImplementedError


class SingleDeviceSharding(Sharding):
    """The whole array on one device."""

    def __init__(self, device: dev.CpuDevice, *, memory_kind: str | None = None) -> None:
        self._device = device
        self.memory_kind = dev.check_memory_kind(memory_kind or "device", device)

    def _device_list(self) -> list:
        return [self._device]

    def devices_indices_map(self, global_shape: Sequence[int]) -> dict:
        return {self._device: tuple(slice(None) for _ in global_shape)}

    def shard_shape(self, global_shape: Sequence[int]) -> tuple:
        return tuple(global_shape)

    @property
    def is_fully_replicated(self) -> bool:
        return True

    def with_memory_kind(self, kind: str) -> SingleDeviceSharding:
        return SingleDeviceSharding(self._device, memory_kind=kind)

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, SingleDeviceSharding)
            and self._device == other._device
            and self.memory_kind == other.memory_kind
        )

    def __hash__(self) -> int:
        return hash(("single", self._device, self.memory_kind))

    def __repr__(self) -> str:
        return f"SingleDeviceSharding(device={self._device!r}, memory_kind={self.memory_kind})"


class NamedSharding(Sharding):
    """A mesh and a PartitionSpec (and a memory kind).

    >>> NamedSharding(make_mesh((2, 4), ("x", "y")), P("x", "y")).spec
    P('x', 'y')
    """

    def __init__(self, mesh: Mesh, spec: Any = None, *, memory_kind: str | None = None) -> None:
        if not isinstance(mesh, Mesh):
            raise TypeError(f"NamedSharding: mesh must be a Mesh, got {type(mesh).__name__}")
        if spec is None:
            spec = P()
        elif not isinstance(spec, PartitionSpec):
            if isinstance(spec, (tuple, list)):
                spec = P(*spec)
            else:
                raise TypeError(
                    f"NamedSharding: spec must be a PartitionSpec, got {type(spec).__name__}"
                )
        self.mesh = mesh
        self.spec = spec
        self.memory_kind = dev.check_memory_kind(memory_kind or "device")
        check_spec(spec, mesh)

    def _device_list(self) -> list:
        return list(self.mesh.devices.flat)

    @property
    def is_fully_replicated(self) -> bool:
        return not any(spec_axes(e) for e in self.spec)

    def with_memory_kind(self, kind: str) -> NamedSharding:
        return NamedSharding(self.mesh, self.spec, memory_kind=kind)

    def with_spec(self, spec: Any) -> NamedSharding:
        return NamedSharding(self.mesh, spec, memory_kind=self.memory_kind)

    def _trimmed(self) -> NamedSharding:
        # Trailing None entries place nothing (P('x', None) on a vector is P('x')).
        parts = list(self.spec)
        while parts and parts[-1] is None:
            parts.pop()
        return self if len(parts) == len(self.spec) else self.with_spec(P(*parts))

    def shard_shape(self, global_shape: Sequence[int]) -> tuple:
        """The shape of each device's shard (ValueError if a dimension does not divide, unless
        ``spmd_uneven`` is 'pad': then every shard has the padded size ``ceil(d / n)``)."""
        check_divisible(self, tuple(global_shape), allow_pad=True)
        return tuple(
            -(-d // self._num_shards(e))
            for d, e in zip(global_shape, self.spec._normalized(len(global_shape)))
        )

    def _num_shards(self, entry: Any) -> int:
        shape = self.mesh.shape
        n = 1
        for a in spec_axes(entry):
            n *= shape[a]
        return n

    def devices_indices_map(self, global_shape: Sequence[int]) -> dict:
        """device -> tuple of slices: the part of the global array each device holds."""
        global_shape = tuple(global_shape)
        check_rank(self, len(global_shape))
        check_divisible(self, global_shape, allow_pad=True)
        spec = self.spec._normalized(len(global_shape))
        names = self.mesh.axis_names
        sizes = self.mesh.axis_sizes
        out = {}
        for pos in itertools.product(*(range(s) for s in sizes)):
            coord = dict(zip(names, pos))
            idx = []
            for d, e in zip(global_shape, spec):
                axes = spec_axes(e)
                if not axes:
                    idx.append(slice(None))
                    continue
                k, n = 0, 1
                for a in axes:  # major to minor
                    k = k * self.mesh.shape[a] + coord[a]
                    n *= self.mesh.shape[a]
                # Padded layout (uneven dimensions, spmd_uneven='pad'): every shard has ceil(d/n)
                # slots; the last shards hold fewer (or no) elements, the rest is padding.
                step = -(-d // n)
                idx.append(slice(min(k * step, d), min((k + 1) * step, d)))
            out[self.mesh.devices[pos]] = tuple(idx)
        return out

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, NamedSharding)
            and self.mesh == other.mesh
            and tuple(self.spec) == tuple(other.spec)
            and self.memory_kind == other.memory_kind
        )

    def __hash__(self) -> int:
        # A NamedSharding never changes after __init__, and jit hashes the arguments' shardings
        # on every call: compute the hash once.
        h = self.__dict__.get("_hash")
        if h is None:
            h = self._hash = hash((self.mesh, self.spec, self.memory_kind))
        return h

    def __getstate__(self) -> dict:
        # String hashes differ between processes: an unpickled copy computes its own.
        state = dict(self.__dict__)
        state.pop("_hash", None)
        return state

    def __repr__(self) -> str:
        return f"NamedSharding(mesh={self.mesh}, spec={self.spec}, memory_kind={self.memory_kind})"


def check_spec(spec: PartitionSpec, mesh: Mesh) -> None:
    """Every named axis exists in the mesh and is used once."""
    seen: dict = {}
    for i, e in enumerate(spec):
        if e is UNCONSTRAINED:
            continue
        for a in spec_axes(e):
            if a not in mesh.shape:
                raise ValueError(
                    f"Resource axis: {a} of {spec} is not found in mesh: {mesh.axis_names} "
                    f"(dimension {i} of the spec names it)."
                )
            if a in seen:
                raise DuplicateSpecError(
                    f"A single NamedSharding spec specification can map every mesh axis to at "
                    f"most one positional dimension, but {spec} has duplicate entries for `{a}` "
                    f"(dimensions {seen[a]} and {i})."
                )
            seen[a] = i


def check_rank(sharding: NamedSharding, ndim: int) -> None:
    if len(sharding.spec) > ndim:
        raise ValueError(
            f"Sharding {sharding} is only valid for values of rank at least {len(sharding.spec)}"
            f", but was applied to a value of rank {ndim}: the spec {sharding.spec} has "
            f"{len(sharding.spec)} entries."
        )


def uneven_dims(sharding: NamedSharding, shape: tuple[int, ...]) -> list[tuple]:
    """The dimensions of ``shape`` the sharding splits into shards that do not divide them:
    ``(dim, size, num_shards, mesh_axes)`` for each."""
    out = []
    spec = sharding.spec._normalized(len(shape))
    for i, (d, e) in enumerate(zip(shape, spec)):
        axes = spec_axes(e)
        n = 1
        for a in axes:
            n *= sharding.mesh.shape[a]
        if n > 1 and d % n:
            out.append((i, d, n, axes))
    return out


def nearest_divisible(d: int, n: int) -> str:
    """The multiples of ``n`` next to ``d`` ("8 and 16" for d=10, n=8), for error messages."""
    lower, upper = (d // n) * n, -(-d // n) * n
    return " and ".join(str(x) for x in sorted({x for x in (lower, upper) if x > 0}))


def uneven_message(sharding: NamedSharding, shape: tuple[int, ...], bad: list[tuple]) -> str:
    i, d, n, axes = bad[0]
    mesh_axes = ", ".join(f"{a!r}: {sz}" for a, sz in sharding.mesh.shape.items())
    return (
        f"Sharding {sharding} implies that array axis {i} is partitioned {n} times "
        f"(over mesh axes {axes} of the mesh {{{mesh_axes}}}), but the dimension size is {d} "
        f"(full shape: {shape}). {n} must divide it; the nearest sizes that divide are "
        f"{nearest_divisible(d, n)}."
    )


def check_divisible(
    sharding: NamedSharding, shape: tuple[int, ...], *, allow_pad: bool = False
) -> None:
    """IndivisibleError if a sharded dimension of ``shape`` is not a multiple of its number of
    shards; with ``allow_pad`` and ``config.spmd_uneven == 'pad'`` the padded layout is fine."""
    check_rank(sharding, len(shape))
    bad = uneven_dims(sharding, shape)
    if bad and not (allow_pad and config.spmd_uneven == "pad"):
        raise IndivisibleError(uneven_message(sharding, shape, bad))


def equivalent(a: Sharding, b: Sharding, ndim: int) -> bool:
    """Same devices, same layout for a value of rank ``ndim`` (``P('x')`` ~ ``P('x', None)``),
    same memory kind."""
    if a == b:
        return True
    if isinstance(a, NamedSharding) and isinstance(b, NamedSharding):
        return (
            a.mesh == b.mesh
            and a.memory_kind == b.memory_kind
            and a.spec._normalized(ndim) == b.spec._normalized(ndim)
        )
    if a.memory_kind != b.memory_kind or a._device_list() != b._device_list():
        return False
    return a.is_fully_replicated and b.is_fully_replicated


def default_sharding(device: dev.CpuDevice | None = None) -> SingleDeviceSharding:
    return SingleDeviceSharding(device or dev.local_devices()[0])


def resolve_spec(spec: PartitionSpec, who: str, error: type = ValueError) -> NamedSharding:
    """A bare PartitionSpec means a NamedSharding on the mesh in context (``error``: the class
    JAX raises when there is none: RuntimeError for jit and constraints, ValueError for
    device_put and reshard)."""
    mesh = get_mesh()
    if mesh is None:
        raise error(
            f"{who}: a PartitionSpec {spec} needs a mesh; use NamedSharding(mesh, spec) or set "
            "a mesh with spmd.set_mesh(mesh) / `with spmd.sharding.use_mesh(mesh):`."
        )
    return NamedSharding(_concrete_of_abstract(mesh), spec)


def _concrete_of_abstract(mesh: Mesh) -> Mesh:
    """The concrete mesh a spec means under ``use_abstract_mesh``: an abstract mesh of other
    axis sizes or names (the same number of devices) lays the context mesh's devices out in its
    own shape, as JAX gives a jit's results on it (f32[8@A,4] inside a jit under a 4x2 mesh;
    use_abstract_mesh keeps the number of devices)."""
    abstract = get_abstract_mesh()
    if abstract.empty or (
        tuple(abstract.axis_sizes) == tuple(mesh.axis_sizes)
        and tuple(abstract.axis_names) == tuple(mesh.axis_names)
    ):
        return mesh
    return Mesh(
        mesh.devices.reshape(tuple(abstract.axis_sizes)),
        tuple(abstract.axis_names),
        axis_types=tuple(abstract.axis_types),
    )


def explicit_axes(sharding: Sharding) -> bool:
    return isinstance(sharding, NamedSharding) and any(
        t == AxisType.Explicit for t in sharding.mesh.axis_types
    )


def index_to_key(idx: tuple) -> tuple:
    return tuple((s.start, s.stop) for s in idx)


def shard_replica_ids(sharding: Sharding, global_shape: Sequence[int]) -> dict:
    """device -> replica id: the rank among devices holding the same shard, in device order."""
    counts: dict = {}
    out = {}
    for d, idx in sharding.devices_indices_map(global_shape).items():
        k = index_to_key(idx)
        out[d] = counts.get(k, 0)
        counts[k] = out[d] + 1
    return out


__all__ = [
    "DuplicateSpecError",
    "IndivisibleError",
    "NamedSharding",
    "P",
    "PartitionSpec",
    "Sharding",
    "SingleDeviceSharding",
    "UNCONSTRAINED",
    "UnevenShardingWarning",
]
