"""Placing arrays on devices: device_put, building arrays from shards, typeof.

In one process an Array's data is the global buffer and a sharding says which device holds
which block; placing an array is checking the sharding against its shape and attaching it.

>>> mesh = spmd.make_mesh((2, 4), ("x", "y"))
>>> x = spmd.device_put(jnp.arange(32.0).reshape(4, 8), NamedSharding(mesh, P("x", "y")))
>>> x.addressable_shards[1].index
(slice(0, 2, None), slice(2, 4, None))
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from spmd._src import core, dtypes
from spmd._src import devices as dev
from spmd._src import tree_util as tu
from spmd._src.array import Array
from spmd._src.global_array import GlobalArray
from spmd._src.interpreters import sharding_rules
from spmd._src.lax import refs
from spmd._src.lax.device_put import device_put_traced, needs_primitive
from spmd._src.lax.tokens import AbstractToken, Token
from spmd._src.mesh import AxisType
from spmd._src.sharding import (
    NamedSharding,
    PartitionSpec,
    Sharding,
    SingleDeviceSharding,
    check_divisible,
    check_rank,
    default_sharding,
    reduction_str,
    resolve_spec,
    spec_axes,
)


def _to_sharding(target: Any, who: str) -> Sharding | None:
    if target is None:
        return None
    if isinstance(target, core.MemorySpace):
        return target  # placed by _put_one: where the value is, in that memory
    if isinstance(target, Sharding):
        return target
    if isinstance(target, dev.CpuDevice):
        return SingleDeviceSharding(target)
    if isinstance(target, PartitionSpec):
        return resolve_spec(target, who)
    raise ValueError(
        f"{who}: expected None, a device, a Sharding, a PartitionSpec or a jax.memory.Space "
        f"(or a pytree of those), got {target!r} of type {type(target).__name__}"
    )


def _check_fits(sharding: Sharding, shape: tuple[int, ...], who: str) -> None:
    if isinstance(sharding, NamedSharding):
        try:
            check_rank(sharding, len(shape))
            check_divisible(sharding, shape, allow_pad=True)
        except ValueError as e:
            raise type(e)(f"{who}: {e}") from None


def _in_space(x: Any, space: core.MemorySpace, who: str) -> Sharding:
    """Where ``x`` is (its sharding, or the default device), in memory ``space``."""
    kind = core.mem_space_to_kind(space, who)
    have = x._sharding if isinstance(x, Array) else None
    if have is None:
        have = x.sharding if isinstance(x, Array) else default_sharding()
    return have if have.memory_kind == kind else have.with_memory_kind(kind)


def _put_one(x: Any, sharding: Sharding | None, who: str) -> Any:
    if isinstance(sharding, core.MemorySpace) and not isinstance(x, core.Tracer):
        sharding = _in_space(x, sharding, who)
    if isinstance(x, core.Tracer):
        # Inside a transformation a placement is a constraint; jit's propagation reads it.
        if sharding is None:
            return x
        # JAX checks divisibility here (no silent replication as for constraints).
        _check_fits(sharding, x.aval.shape, who)
        from spmd._src.lax.sharding import sharding_constraint, typed_sharding

        return sharding_constraint(x, typed_sharding(sharding, x.aval.ndim))
    if type(x) is GlobalArray or (sharding is not None and not sharding.is_fully_addressable):
        if sharding is None:
            return x
        _check_fits(sharding, np.shape(x) if type(x) is not GlobalArray else x.shape, who)
        from spmd._src import multiprocess  # lazy: multiprocess runs programs (above us)

        return multiprocess.put(x, sharding)
    if isinstance(x, Array):
        value, weak = x._value, x.weak_type
    else:
        if type(x) is Token:
            return Token()  # a token has no data to place: a new one, as JAX's device_put
        if not core.valid_jaxtype(x):
            raise TypeError(f"{who}: {type(x).__name__} is not a valid array type")
        aval = core.get_aval(x)
        value = np.asarray(x)
        if value.dtype != aval.dtype:
            value = value.astype(aval.dtype)
        weak = aval.weak_type
    if sharding is None:
        if isinstance(x, Array):
            return x
        return Array(value, weak)
    _check_fits(sharding, value.shape, who)
    return Array(value, weak, sharding)


def device_put(
    x: Any, device: Any = None, *, src: Any = None, donate: Any = False, may_alias: Any = None
) -> Any:
    """Place ``x`` (a pytree) on ``device``: a device, a Sharding, a PartitionSpec (with a
    mesh in context), or a pytree prefix of those.

    >>> spmd.device_put(jnp.arange(4), spmd.devices()[1]).devices()
    {CpuDevice(id=1)}
    """
    leaves, treedef = tu.tree_flatten(x)
    if isinstance(device, (Sharding, dev.CpuDevice, PartitionSpec, core.MemorySpace)) or (
        device is None
    ):
        targets = [device] * len(leaves)
    else:
        targets = tu.broadcast_prefix(device, x)
    for leaf, t in zip(leaves, targets):
        if type(leaf) is GlobalArray and isinstance(t, dev.CpuDevice):
            raise ValueError(
                "device_put: when the second argument is a Device, the first must be a fully "
                f"addressable Array; got one of shape {leaf.shape} spread over the devices "
                f"{sorted(d.id for d in leaf.devices())} of several processes (gather it with "
                "multihost_utils.process_allgather(x, tiled=True))"
            )
    shardings = [_to_sharding(t, "device_put") for t in targets]
    moving = [
        i
        for i, (leaf, s) in enumerate(zip(leaves, shardings))
        if isinstance(leaf, core.Tracer) and s is not None and needs_primitive(leaf.aval, s)
    ]
    outs = [
        leaf if i in moving else _put_one(leaf, s, "device_put")
        for i, (leaf, s) in enumerate(zip(leaves, shardings))
    ]
    if moving:
        # Traced values moved between memory spaces: one device_put equation, as JAX's.
        for i in moving:
            _check_fits(shardings[i], leaves[i].aval.shape, "device_put")
        moved = device_put_traced([leaves[i] for i in moving], [shardings[i] for i in moving])
        for i, m in zip(moving, moved):
            outs[i] = m
    return tu.tree_unflatten(treedef, outs)


def block_until_ready(x: Any) -> Any:
    """Wait for every array in ``x`` (a pytree); spmd computes eagerly, so this returns ``x``."""
    return tu.tree_map(lambda a: a.block_until_ready() if isinstance(a, Array) else a, x)


def device_get(x: Any) -> Any:
    """The values of ``x`` (a pytree) as NumPy arrays."""
    return tu.tree_map(lambda a: np.asarray(a) if isinstance(a, Array) else a, x)


def make_array_from_callback(
    shape: Sequence[int], sharding: Sharding, data_callback: Callable[[tuple], Any], dtype=None
) -> Array:
    """Build an Array of ``shape`` whose every shard is ``data_callback(index)``."""
    shape = tuple(int(s) for s in shape)
    _check_fits(sharding, shape, "make_array_from_callback")
    if not sharding.is_fully_addressable:
        from spmd._src import multiprocess  # lazy: multiprocess runs programs (above us)

        return multiprocess.make_from_callback(shape, sharding, data_callback, dtype)
    buf = None
    for device, idx in sharding.addressable_devices_indices_map(shape).items():
        block = np.asarray(data_callback(idx))
        if buf is None:
            dt = dtypes.canonicalize_dtype(dtype if dtype is not None else block.dtype)
            buf = np.empty(shape, dt)
        want = buf[idx].shape
        if block.shape != want:
            raise ValueError(
                f"make_array_from_callback: the callback returned shape {block.shape} for "
                f"device {device} at index {idx}, but the shard shape is {want}."
            )
        buf[idx] = block
    return Array(buf, False, sharding)


def make_array_from_single_device_arrays(
    shape: Sequence[int], sharding: Sharding, arrays: Sequence[Any], *, dtype=None
) -> Array:
    """Build an Array from one array per addressable device (in the sharding's device order)."""
    shape = tuple(int(s) for s in shape)
    imap = sharding.addressable_devices_indices_map(shape)
    if len(arrays) != len(imap):
        raise ValueError(
            f"make_array_from_single_device_arrays: {len(arrays)} arrays given for "
            f"{len(imap)} addressable devices of {sharding}."
        )
    by_device = {}
    for a in arrays:
        d = next(iter(a.devices())) if isinstance(a, Array) else None
        by_device[d] = a
    ordered = [by_device.get(d, a) for d, a in zip(imap, arrays)]
    it = iter(ordered)
    return make_array_from_callback(shape, sharding, lambda idx: np.asarray(next(it)), dtype)


def make_array_from_process_local_data(
    sharding: Sharding, local_data: Any, global_shape: Sequence[int] | None = None
) -> Array:
    """The global Array whose shards on this process's devices come from ``local_data``, the
    part of the global value this process holds. In one process that part is the whole value:
    ``device_put(local_data, sharding)``.

    >>> mesh = spmd.make_mesh((8,), ("x",))
    >>> s = NamedSharding(mesh, P("x"))
    >>> make_array_from_process_local_data(s, np.arange(16.0).reshape(8, 2)).shape
    (8, 2)
    """
    data = np.asarray(local_data)
    if global_shape is not None and tuple(global_shape) != data.shape:
        if dev.process_count() == 1:
            raise ValueError(
                "When calling `make_array_from_process_local_data` on a single process, "
                "global_shape should be None or equal to local_data.shape. Got "
                f"global_shape={tuple(global_shape)} and local_data.shape={data.shape}."
            )
    sharding = _to_sharding(sharding, "make_array_from_process_local_data")
    if not sharding.is_fully_addressable:
        from spmd._src import multiprocess  # lazy: multiprocess runs programs (above us)

        return multiprocess.make_from_process_local_data(sharding, data, global_shape)
    return _put_one(data, _to_sharding(sharding, "make_array_from_process_local_data"),
                    "make_array_from_process_local_data")  # fmt: skip


def copy_to_host_async(x: Any) -> Any:
    """Start copying ``x`` (a pytree of arrays) to the host: spmd's arrays live there, so
    there is nothing to start; returns ``x``."""
    return x


class ManualAxisType(NamedTuple):
    """How a shard_map body's value relates to the manual mesh axes (JAX 0.10's
    ``typeof(x).manual_axis_type``): the axes it varies over; spmd has no unreduced or reduced
    manual values, so those are empty."""

    varying: frozenset
    unreduced: frozenset = frozenset()
    reduced: frozenset = frozenset()


class TypeOf:
    """``spmd.typeof(x)``: an array type with its sharding, e.g. ``float32[4@x,8@y]`` where
    dimensions are sharded over Explicit mesh axes, and its memory space (``float32<host>[8]``
    in host memory)."""

    def __init__(
        self, aval: core.ShapedArray, sharding: Sharding | None, vma: frozenset | None = None
    ) -> None:
        self.shape, self.dtype, self.weak_type = aval.shape, aval.dtype, aval.weak_type
        self.sharding = _in_type(sharding, len(aval.shape))
        self.memory_space = getattr(aval, "memory_space", core.DEVICE_SPACE)
        # The mesh axes a shard_map body's value varies over (``{V:i}``), as in the jaxpr.
        self.vma = getattr(aval, "vma", frozenset()) if vma is None else vma

    @property
    def manual_axis_type(self) -> ManualAxisType:
        """JAX 0.10's spelling of ``vma``: ``typeof(x).manual_axis_type.varying``."""
        return ManualAxisType(frozenset(self.vma))

    def __str__(self) -> str:
        weak = "~" if self.weak_type else ""  # a weak type, as JAX's typeof prints it
        return weak + self._text()

    def __repr__(self) -> str:
        # As JAX's repr of the type: ShapedArray(float32[4@X]), ShapedArray(f32[], weak_type=True).
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self._text()}{weak})"

    def _text(self) -> str:
        dims = [str(d) for d in self.shape]
        s = self.sharding
        if isinstance(s, NamedSharding):
            for i, e in enumerate(s.spec._normalized(len(self.shape))):
                axes = list(spec_axes(e))
                if axes:
                    dims[i] += "@" + (axes[0] if len(axes) == 1 else f"({','.join(axes)})")
        space = self.memory_space  # float32<host>[8]: an array in host memory
        where = "" if space is core.DEVICE_SPACE else f"<{space.name.lower()}>"
        ur = reduction_str(s.spec) if isinstance(s, NamedSharding) else ""  # {U:X}, {R:X}
        return f"{self.dtype.name}{where}[{','.join(dims)}]{ur}{core.vma_str(self.vma)}"

    def __eq__(self, other) -> bool:
        return isinstance(other, TypeOf) and str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


class _TypeSharding(NamedSharding):
    """The sharding a type carries (``typeof(x).sharding``): the array's NamedSharding, printed
    as JAX prints the sharding in its types, on the abstract mesh and without a memory kind
    (``NamedSharding(mesh=AbstractMesh('X': 4, ...), spec=P('X', 'Y'))``)."""

    def __repr__(self) -> str:
        return f"NamedSharding(mesh={self.mesh.abstract_mesh!r}, spec={self.spec})"


def _in_type(sharding: Sharding | None, ndim: int) -> Sharding | None:
    """The part of a sharding a type carries: the Explicit mesh axes only (an array's own
    sharding may name Auto axes too; JAX's ``typeof(x).sharding.spec`` shows P(None,) there)."""
    if not isinstance(sharding, NamedSharding):
        return sharding
    types = dict(zip(sharding.mesh.axis_names, sharding.mesh.axis_types))
    spec = []
    for e in sharding.spec._normalized(ndim):
        axes = [a for a in spec_axes(e) if types.get(a) == AxisType.Explicit]
        spec.append(None if not axes else axes[0] if len(axes) == 1 else tuple(axes))
    # Unreduced and reduced axes are part of the type (f32[2,2]{U:X}).
    s = sharding.spec
    spec = PartitionSpec(*spec, unreduced=s.unreduced, reduced=s.reduced)
    return _TypeSharding(sharding.mesh, spec, memory_kind=sharding.memory_kind)


def typeof(x: Any) -> TypeOf:
    """The type of ``x`` with its sharding (``float32[4@x,8@y]``; ``key<fry>[8@x]`` for typed
    keys, whose key-data dimension is not part of their type)."""
    from spmd._src.key_arrays import is_key_array

    if is_key_array(x):
        from spmd._src.random_keys import key_sharding

        t = TypeOf(core.ShapedArray(x.shape, np.dtype(np.uint32)), None)
        t.dtype, t.sharding = x.dtype, key_sharding(typeof(x._base).sharding, x.ndim)
        return t
    aval = core.get_aval(x)
    if refs.is_ref(x):
        return refs.ref_aval(aval)  # Ref{float32[3]}, as JAX's typeof gives a ref's type
    if type(aval) is AbstractToken:
        return aval  # a token's type has no sharding (JAX's typeof gives AbstractToken())
    if isinstance(x, Array):
        return TypeOf(aval, x.sharding)
    # A traced value: the sharding in its type, on meshes with Explicit axes, and in a
    # shard_map body being traced, the axes it varies over.
    from spmd._src.shard_map_check import traced_vma

    return TypeOf(aval, sharding_rules.type_sharding(x), traced_vma(x))


__all__ = [
    "block_until_ready",
    "copy_to_host_async",
    "device_get",
    "device_put",
    "make_array_from_callback",
    "make_array_from_process_local_data",
    "make_array_from_single_device_arrays",
    "typeof",
]
