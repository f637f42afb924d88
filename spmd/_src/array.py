"""The ``Array`` type: an abstract value plus this process's data.

In one process the data is the global NumPy buffer. Sharding and device fields arrive with the
arrays-and-devices work; ``_sharding`` is kept here so every constructor already carries it.

>>> import spmd.numpy as jnp
>>> jnp.arange(3)
Array([0, 1, 2], dtype=int32)
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from spmd._src import core, dtypes, key_arrays
from spmd._src import sharding as shd
from spmd._src.config import config


class Deleted:
    """The data of a deleted (or donated) Array: its shape and dtype, and a RuntimeError for
    any use of its values, as JAX's ("Array has been deleted with shape=float32[8].")."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: tuple, dtype: np.dtype) -> None:
        self.shape, self.dtype = shape, dtype

    ndim = property(lambda self: len(self.shape))
    size = property(lambda self: int(np.prod(self.shape, dtype=np.int64)))
    itemsize = property(lambda self: self.dtype.itemsize)
    nbytes = property(lambda self: self.size * self.dtype.itemsize)

    def fail(self, *_, **__):
        shape = ",".join(map(str, self.shape))
        raise RuntimeError(f"Array has been deleted with shape={self.dtype.name}[{shape}].")

    def __getattr__(self, name: str):
        self.fail()

    __array__ = __array_ufunc__ = __array_function__ = __getitem__ = __iter__ = __len__ = fail
    __bool__ = __int__ = __float__ = __complex__ = __index__ = __setitem__ = fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = fail
    __rtruediv__ = __matmul__ = __rmatmul__ = __neg__ = __pow__ = __rpow__ = fail
    __lt__ = __le__ = __gt__ = __ge__ = __str__ = fail

    def __repr__(self) -> str:  # (only in tracebacks: printing the Array itself raises)
        return f"<deleted {self.dtype.name}{list(self.shape)}>"


class Donated(Deleted):
    """The data of an Array a jit call donated. JAX's compiled program refuses it with
    ValueError (PJRT's INVALID_ARGUMENT) where a new trace, or any eager use, raises the
    RuntimeError of a deleted array (api.py tells the two apart)."""

    __slots__ = ()


class Array:
    """An immutable array of values, possibly sharded over devices."""

    # ``_py_text`` (unset on most arrays) is how a weakly typed scalar made from a Python float
    # prints when staged as a literal: as Python writes the float (``1e-05``), as JAX prints a
    # Python float that reaches a primitive unconverted (core.Literal).
    # ``_device``: the device an uncommitted array (no ``_sharding``) is on, when
    # ``jax_default_device`` named one at its creation (None: the first device).
    __slots__ = (
        "_value",
        "weak_type",
        "_sharding",
        "_committed",
        "_device",
        "_py_text",
        "__weakref__",
    )
    __array_priority__ = 100

    def __init__(self, value: Any, weak_type: bool = False, sharding: Any = None) -> None:
        if not isinstance(value, np.ndarray):
            value = np.asarray(value)
        self._value = value
        self.weak_type = weak_type
        self._sharding = sharding
        self._committed = sharding is not None
        self._device = config.jax_default_device

    # -- abstract value --------------------------------------------------------------------
    @property
    def aval(self) -> core.ShapedArray:
        v = self._value
        if isinstance(v, Deleted):  # (every transformation takes its arguments' types first)
            v.fail()
        s = self._sharding
        if s is not None and s.memory_kind == "pinned_host":
            # An array in host memory has it in its type (f32<host>[8]).
            return core.ShapedArray(v.shape, v.dtype, self.weak_type, memory_space=core.HOST)
        return core.ShapedArray(v.shape, v.dtype, self.weak_type)

    @property
    def shape(self) -> tuple[int, ...]:
        return self._value.shape

    @property
    def dtype(self) -> np.dtype:
        return self._value.dtype

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def size(self) -> int:
        return self._value.size

    @property
    def itemsize(self) -> int:
        return self._value.itemsize

    @property
    def nbytes(self) -> int:
        return self._value.nbytes

    # -- conversions -----------------------------------------------------------------------
    def __array__(self, dtype=None, copy=None):
        v = self._value
        if isinstance(v, Deleted):
            v.fail()
        if dtype is not None and np.dtype(dtype) != v.dtype:
            return v.astype(dtype)
        if copy:
            return v.copy()
        return v

    def __bool__(self) -> bool:
        return bool(self._value)

    def __int__(self) -> int:
        return int(self._value)

    def __float__(self) -> float:
        return float(self._value)

    def __complex__(self) -> complex:
        return complex(self._value)

    def __index__(self) -> int:
        if not dtypes.issubdtype(self.dtype, np.integer):
            raise TypeError(f"only integer arrays can be used as an index, not {self.dtype}")
        return operator.index(self._value[()]) if self.ndim == 0 else operator.index(self._value)

    def item(self, *args):
        return self._value.item(*args)

    def tolist(self):
        return self._value.tolist()

    def block_until_ready(self) -> Array:
        if isinstance(self._value, Deleted):
            from spmd._src.errors import JaxRuntimeError

            raise JaxRuntimeError(
                "INVALID_ARGUMENT: BlockHostUntilReady() called on deleted or donated buffer"
            )
        return self

    def copy_to_host_async(self) -> None:
        pass

    def on_device_size_in_bytes(self) -> int:
        """Bytes held on all devices together: every device's shard, replicas included (a
        replicated array counts once per device)."""
        s = self.sharding
        return s.num_devices * int(np.prod(s.shard_shape(self.shape))) * self.itemsize

    def _single_buffer(self, what: str) -> np.ndarray:
        v = self._value
        if isinstance(v, Deleted):
            v.fail()
        if self.sharding.num_devices != 1:
            from spmd._src.errors import JaxRuntimeError

            raise JaxRuntimeError(
                f"INVALID_ARGUMENT: {what} is supported only for unsharded arrays; this array's "
                f"sharding {self.sharding} spans {self.sharding.num_devices} devices."
            )
        return v

    def unsafe_buffer_pointer(self) -> int:
        """The address of the array's buffer (arrays on one device only)."""
        return self._single_buffer("UnsafeBufferPointer()").__array_interface__["data"][0]

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        # The buffer is shared read-only (NumPy exports a read-only array's capsule as such).
        if self.sharding.num_devices != 1:
            raise BufferError(
                "to_dlpack can only pack a dlpack tensor from an array on a singular device, "
                f"but an array with a Sharding over {self.sharding.num_devices} devices was "
                "provided."
            )
        v = self._single_buffer("__dlpack__")
        kwargs = {} if max_version is None else {"max_version": max_version}
        if dl_device is not None:
            kwargs["dl_device"] = dl_device
        if copy is not None:
            kwargs["copy"] = copy
        return v.__dlpack__(stream=stream, **kwargs)

    def __dlpack_device__(self) -> tuple:
        if self.sharding.num_devices != 1:
            raise BufferError("__dlpack__ only supported for unsharded arrays.")
        return self._value.__dlpack_device__()

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        # Rows are views of the buffer: no device work to do.
        for row in self._value:
            yield Array(row, self.weak_type)

    def __hash__(self):
        raise TypeError("unhashable type: 'Array'")

    def __reduce__(self):
        return (_reconstruct, (self._value, self.weak_type))

    def __copy__(self) -> Array:
        return Array(self._value, self.weak_type, self._sharding)

    def __deepcopy__(self, memo) -> Array:
        return Array(self._value.copy(), self.weak_type, self._sharding)

    def copy(self) -> Array:
        # A copy stays where the original is (JAX's x.copy() keeps the sharding).
        out = Array(self._value.copy(), self.weak_type, self._sharding)
        out._committed, out._device = self._committed, self._device
        return out

    def __format__(self, spec: str) -> str:
        if self.ndim == 0:
            return format(self._value[()], spec)
        return format(self._value, spec)

    # -- placement -------------------------------------------------------------------------
    @property
    def sharding(self) -> shd.Sharding:
        s = self._sharding
        if s is None:
            d = self._device
            return shd.default_sharding(None if d is None or isinstance(d, str) else d)
        return s

    @property
    def committed(self) -> bool:
        return self._committed

    @property
    def is_fully_replicated(self) -> bool:
        return self.sharding.is_fully_replicated

    @property
    def is_fully_addressable(self) -> bool:
        return self.sharding.is_fully_addressable

    def devices(self) -> set:
        return self.sharding.device_set

    def to_device(self, device: Any, *, stream: Any = None) -> Array:
        """This array placed on ``device`` (a device or a Sharding), committed (the Array
        API's method; ``device_put``)."""
        if stream is not None:
            raise NotImplementedError("to_device: stream is not supported")
        from spmd._src.placement import device_put  # lazy: placement imports this module

        return device_put(self, device)

    @property
    def addressable_shards(self) -> list[Shard]:
        """This process's shards: each a view of the global buffer (no copy)."""
        s = self.sharding
        replica = shd.shard_replica_ids(s, self.shape)
        addend = _zero_addend_devices(s)
        out = []
        for device, idx in s.addressable_devices_indices_map(self.shape).items():
            v = self._value[idx]
            if device in addend:
                v = np.zeros_like(v)
            data = Array(v, self.weak_type, shd.SingleDeviceSharding(device))
            out.append(Shard(device, idx, replica[device], data))
        return out

    @property
    def global_shards(self) -> list[Shard]:
        return self.addressable_shards

    def addressable_data(self, index: int) -> Array:
        return self.addressable_shards[index].data

    def is_deleted(self) -> bool:
        return isinstance(self._value, Deleted)

    def delete(self) -> None:
        """Free the array's data (as JAX's ``Array.delete``): later uses raise RuntimeError;
        its shape, dtype and sharding stay readable."""
        if not isinstance(self._value, Deleted):
            self._value = Deleted(self._value.shape, self._value.dtype)

    # -- printing --------------------------------------------------------------------------
    def __str__(self) -> str:
        return str(self._value)

    def __repr__(self) -> str:
        return array_repr(self._value, self.weak_type)


def _zero_addend_devices(s: Any) -> set:
    """The devices whose shard of an array unreduced over some mesh axes (partial sums pending
    a sum) is zero: spmd holds the sum, placed on the first device along those axes and zeros
    on the others, as JAX places a replicated array resharded to unreduced."""
    axes = getattr(getattr(s, "spec", None), "unreduced", None)
    if not axes:
        return set()
    mesh = s.mesh
    names = list(mesh.axis_names)
    return {d for pos, d in np.ndenumerate(mesh.devices) if any(pos[names.index(a)] for a in axes)}


class Shard:
    """One device's part of an Array: its device, index (slices), replica id and data."""

    __slots__ = ("device", "index", "replica_id", "data")

    def __init__(self, device, index: tuple, replica_id: int, data: Array) -> None:
        self.device, self.index, self.replica_id, self.data = device, index, replica_id, data

    def __repr__(self) -> str:
        return (
            f"Shard(device={self.device!r}, index={self.index}, replica_id={self.replica_id}, "
            f"data={self.data})"
        )


def _reconstruct(value, weak_type):
    return Array(value, weak_type)


_PREFIX = "Array("


def array_repr(v: np.ndarray, weak_type: bool = False) -> str:
    """``Array([0, 1, 2], dtype=int32)``: NumPy's layout with the dtype always shown."""
    dtype_str = f"dtype={v.dtype.name}" + (", weak_type=True" if weak_type else "")
    if v.size == 0:
        return f"{_PREFIX}[], shape={v.shape}, {dtype_str})"
    body = np.array2string(v, max_line_width=75, separator=", ", prefix=_PREFIX, suffix=",")
    last = len(body) - (body.rfind("\n") + 1)
    # Where the dtype does not fit on the last line, JAX pads it with the prefix's width.
    spacer = " " * len(_PREFIX) if last + len(dtype_str) + 2 > 75 else " "
    return f"{_PREFIX}{body},{spacer}{dtype_str})"


def to_numpy(x: Any) -> np.ndarray:
    """This process's data of an Array (or a NumPy conversion of anything array-like)."""
    if type(x) is Array:
        return x._value
    return np.asarray(x)


class _PublicArrayType(type):
    """``isinstance(x, spmd.Array)`` holds for concrete arrays, tracers and typed key arrays, as
    ``isinstance(x, jax.Array)`` does in JAX (whose tracers and key arrays count as Arrays):
    library code that branches on it then takes the same branch under jit, vmap and grad.
    spmd's own code tests for the concrete class, ``spmd._src.array.Array``."""

    def __instancecheck__(cls, x: Any) -> bool:
        return isinstance(x, (Array, core.Tracer)) or key_arrays.is_key_array(x)

    def __subclasscheck__(cls, c: Any) -> bool:
        # Tracer classes are not subclasses, as in JAX (whose typing.ArrayLike relies on it).
        return isinstance(c, type) and (issubclass(c, Array) or key_arrays.is_key_type(c))

    def __call__(cls, *args: Any, **kwargs: Any) -> Array:
        # spmd.Array(numpy_data, weak_type=...) builds a concrete array (JAX has no public
        # constructor; spmd keeps this one).
        return Array(*args, **kwargs)


class PublicArray(metaclass=_PublicArrayType):
    """The public array type ``spmd.Array`` (``jax.Array``): for ``isinstance`` checks and type
    annotations. Concrete arrays, tracers and key arrays are instances.

    >>> import spmd
    >>> isinstance(spmd.numpy.ones(2), spmd.Array)
    True
    """


PublicArray.__name__ = PublicArray.__qualname__ = "Array"
PublicArray.__module__ = "spmd"
