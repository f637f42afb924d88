"""Typed PRNG key arrays (``random.key``): their dtypes and the array types that wrap key data,
and how the samplers read a key of either kind (typed, or a legacy ``PRNGKey`` uint32 array)
and give back one of the same kind.

Three implementations, as in JAX: 'threefry2x32' (dtype ``key<fry>``, key data
``uint32[..., 2]``), and 'rbg' and 'unsafe_rbg' (``key<rbg>``, ``key<urbg>``; ``uint32[..., 4]``,
XLA's bit generator, see ``lax.rng_bit_generator``). Each has its key array class (a subclass of
``PRNGKeyArray``); a legacy key is read as ``jax_default_prng_impl``'s."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from spmd._src import dtypes, key_arrays
from spmd._src import tree_util as tu
from spmd._src.array import Array
from spmd._src.core import Tracer
from spmd._src.lax import elementwise as lax
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.util import canonicalize_axis

_U32 = np.dtype(np.uint32)
_IMPL_NAME = "threefry2x32"
# impl name -> (dtype tag, words of key data)
IMPLS = {"threefry2x32": ("fry", 2), "rbg": ("rbg", 4), "unsafe_rbg": ("urbg", 4)}


class KeyDtype:
    """The dtype of typed key arrays of one implementation; prints as ``key<fry>`` (threefry),
    ``key<rbg>`` or ``key<urbg>``."""

    kind = "V"
    type = dtypes.prng_key

    def __init__(self, impl: str = _IMPL_NAME) -> None:
        self.impl = impl
        self.name = f"key<{IMPLS[impl][0]}>"
        self.itemsize = 4 * IMPLS[impl][1]

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        if isinstance(other, KeyDtype):
            return other.impl == self.impl
        return other == self.name

    def __hash__(self) -> int:
        return hash(self.name)


KEY_DTYPES = {impl: KeyDtype(impl) for impl in IMPLS}
KEY_DTYPE = KEY_DTYPES[_IMPL_NAME]


class PRNGKeyArray:
    """An array of typed PRNG keys: shape ``S`` over key data ``uint32[*S, 2]``.

    Indexing, reshaping and iteration act on the key dimensions; ``jax.random`` functions
    accept it wherever they accept legacy keys. It is a pytree whose one leaf is the key data,
    so it passes through ``jit``, ``vmap`` (over leading key dimensions) and ``grad``.

    >>> key(0)
    Array((), dtype=key<fry>) overlaying:
    [0 0]
    """

    __slots__ = ("_base",)
    _impl = _IMPL_NAME  # each implementation's subclass sets its own

    def __init__(self, base: Any) -> None:
        self._base = base
        key_arrays.key_made()

    # -- array-like attributes -----------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._base.shape[:-1])

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def dtype(self) -> KeyDtype:
        return KEY_DTYPES[self._impl]

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def T(self) -> PRNGKeyArray:
        return self.transpose()

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        return (self[i] for i in range(self.shape[0]))

    def __getitem__(self, idx: Any) -> PRNGKeyArray:
        idx = idx if isinstance(idx, tuple) else (idx,)
        # The trailing key-data dimension is never indexed.
        return type(self)(self._base[idx + (slice(None),)])

    def reshape(self, *shape: Any, order: str = "C") -> PRNGKeyArray:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        n = self.size
        shape = tuple(operator.index(d) for d in shape)
        if shape.count(-1) == 1:
            known = math.prod(d for d in shape if d != -1)
            shape = tuple(n // known if d == -1 else d for d in shape)
        return type(self)(lax_shape.reshape(self._base, shape + (IMPLS[self._impl][1],)))

    def ravel(self) -> PRNGKeyArray:
        return self.reshape(self.size)

    flatten = ravel

    def squeeze(self, axis: Any = None) -> PRNGKeyArray:
        if axis is None:
            axis = tuple(i for i, d in enumerate(self.shape) if d == 1)
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        axes = tuple(canonicalize_axis(a, self.ndim) for a in axes)
        return type(self)(lax_shape.squeeze(self._base, axes))

    def transpose(self, *axes: Any) -> PRNGKeyArray:
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        perm = tuple(axes) if axes else tuple(reversed(range(self.ndim)))
        return type(self)(lax_shape.transpose(self._base, perm + (self.ndim,)))

    # -- placement (of the key data, whose trailing dimension is never split) ----------------
    @property
    def sharding(self) -> Any:
        """The key data's sharding, over the keys' own dimensions (JAX's key arrays')."""
        return key_sharding(self._base.sharding, self.ndim)

    @property
    def is_fully_addressable(self) -> bool:
        return self._base.is_fully_addressable

    @property
    def committed(self) -> bool:
        return self._base.committed

    def devices(self) -> set:
        return self._base.devices()

    @property
    def addressable_shards(self) -> list:
        """This process's shards, their data key arrays and their indices over the keys'
        dimensions."""
        from spmd._src.array import Shard

        return [
            Shard(sh.device, sh.index[: self.ndim], sh.replica_id, type(self)(sh.data))
            for sh in self._base.addressable_shards
        ]

    def addressable_data(self, index: int) -> PRNGKeyArray:
        return self.addressable_shards[index].data

    def block_until_ready(self) -> PRNGKeyArray:
        return self

    def copy(self) -> PRNGKeyArray:
        return type(self)(self._base)

    # -- comparison ------------------------------------------------------------------------
    def __eq__(self, other: object) -> Any:
        if type(other) is not type(self):
            return NotImplemented
        return lax_red.reduce_and(lax.eq(self._base, other._base), (self.ndim,))

    def __ne__(self, other: object) -> Any:
        if type(other) is not type(self):
            return NotImplemented
        return lax_red.reduce_or(lax.ne(self._base, other._base), (self.ndim,))

    def __hash__(self):
        raise TypeError("unhashable type: 'PRNGKeyArray'")

    # -- printing --------------------------------------------------------------------------
    def __repr__(self) -> str:
        base = self._base
        if isinstance(base, Tracer):  # JitTracer(key<fry>[]), as JAX prints a traced key
            from spmd._src.tracer_printing import tracer_repr

            return tracer_repr(base, typed=self)
        return f"Array({self.shape}, dtype={self.dtype}) overlaying:\n{np.asarray(base)}"

    __str__ = __repr__


def key_sharding(s: Any, ndim: int) -> Any:
    """The sharding of keys of rank ``ndim`` whose key data is placed by ``s``: its spec
    without the key-data dimension."""
    from spmd._src.sharding import NamedSharding, PartitionSpec

    if isinstance(s, NamedSharding):
        spec = s.spec._normalized(ndim + 1)[:ndim]
        while spec and spec[-1] is None:
            spec = spec[:-1]
        return NamedSharding(s.mesh, PartitionSpec(*spec), memory_kind=s.memory_kind)
    return s


class RbgKeyArray(PRNGKeyArray):
    """Typed 'rbg' keys (``key<rbg>``) over ``uint32[*S, 4]`` key data."""

    __slots__ = ()
    _impl = "rbg"


class UnsafeRbgKeyArray(PRNGKeyArray):
    """Typed 'unsafe_rbg' keys (``key<urbg>``) over ``uint32[*S, 4]`` key data."""

    __slots__ = ()
    _impl = "unsafe_rbg"


KEY_CLASSES = {cls._impl: cls for cls in (PRNGKeyArray, RbgKeyArray, UnsafeRbgKeyArray)}
for _cls in KEY_CLASSES.values():
    tu.register_pytree_node(
        _cls, lambda k: ((k._base,), None), lambda _, children, c=_cls: c(children[0])
    )
    key_arrays.register_key_type(_cls, (IMPLS[_cls._impl][1],), _U32)


def impl_name(impl: Any) -> str:
    """The implementation ``impl`` names (a name, or a key dtype); ``None``: the default."""
    if impl is None:
        return default_impl()
    if isinstance(impl, KeyDtype):
        return impl.impl
    if isinstance(impl, str) and impl in IMPLS:
        return impl
    names = ", ".join(f'"{n}"' for n in IMPLS)
    raise ValueError(f'unrecognized PRNG implementation "{impl}". Did you mean one of: {names}?')


def default_impl() -> str:
    """The implementation of legacy keys and of new keys without ``impl``."""
    from spmd._src.config import config

    return config.jax_default_prng_impl


def _is_arraylike(x: Any) -> bool:
    return isinstance(x, (Array, Tracer, np.ndarray, np.generic))


def _invalid_key(name: str, what: str, impl: str) -> TypeError:
    return TypeError(f"{name}: invalid PRNG key data for impl {impl}: {what}")


def _key_data_of(name: str, key: Any, impl: str | None = None) -> tuple[Any, Any]:
    """(key data ``uint32[..., w]``, the key array class if ``key`` was a typed key array, else
    False). Legacy key data is checked against ``impl``; without one, against either width:
    the samplers pass a typed key's data on to others (subkeys), whatever the default (where
    JAX raises for legacy data of the other width)."""
    if isinstance(key, PRNGKeyArray):
        return key._base, type(key)
    if impl is None:
        impl = _raw_impl(key)
    if not _is_arraylike(key):
        raise _invalid_key(
            name, f"expected key_data to have ndim, shape, and dtype attributes; got {key!r}", impl
        )
    shape, width = tuple(key.shape), IMPLS[impl][1]
    if not shape or shape[-1] != width:
        raise _invalid_key(
            name, f"expected key_data.shape to end with ({width},); got shape={shape}", impl
        )
    if key.dtype != _U32:
        raise _invalid_key(name, f"expected key_data.dtype = uint32; got dtype={key.dtype}", impl)
    return key, False


def _raw_impl(data: Any) -> str:
    """The implementation legacy key data is read with: the default's, or the one of the other
    width (rbg keys are 'rbg' unless the default is 'unsafe_rbg')."""
    impl = default_impl()
    width = tuple(getattr(data, "shape", ()))[-1:]
    if width == (2,):
        return _IMPL_NAME
    if width == (4,) and IMPLS[impl][1] != 4:
        return "rbg"
    return impl


def key_impl_of(key: Any) -> str:
    """The implementation of a key (typed: its own; legacy: see ``_raw_impl``)."""
    return key._impl if isinstance(key, PRNGKeyArray) else _raw_impl(key)


def _check_key(name: str, key: Any, allow_batched: bool = False) -> tuple[Any, bool]:
    data, typed = _key_data_of(name, key)
    if not allow_batched and len(data.shape) > 1:
        shape = tuple(data.shape[:-1]) if typed else tuple(data.shape)
        raise ValueError(
            f"{name} accepts a single key, but was given a key array of shape {shape} != (). "
            "Use jax.vmap for batching."
        )
    return data, typed


def _ret(data: Any, typed: Any) -> Any:
    """Key data back as the kind of key it came from (``typed``: ``_key_data_of``'s)."""
    if not typed:
        return data
    return (PRNGKeyArray if typed is True else typed)(data)


__all__ = ["KEY_DTYPE", "KeyDtype", "PRNGKeyArray", "RbgKeyArray", "UnsafeRbgKeyArray"]
