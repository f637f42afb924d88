"""Typed PRNG key arrays (``random.key``): the ``key<fry>`` dtype and the array type that wraps
``uint32[..., 2]`` key data, and how the samplers read a key of either kind (typed, or a legacy
``PRNGKey`` uint32 array) and give back one of the same kind."""

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


class KeyDtype:
    """The dtype of typed threefry2x32 key arrays; prints as ``key<fry>``."""

    name = "key<fry>"
    itemsize = 8
    kind = "V"
    type = dtypes.prng_key

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other: object) -> bool:
        return isinstance(other, KeyDtype) or other == self.name

    def __hash__(self) -> int:
        return hash(self.name)


KEY_DTYPE = KeyDtype()


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
        return KEY_DTYPE

    @property
    def itemsize(self) -> int:
        return KEY_DTYPE.itemsize

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
        return PRNGKeyArray(self._base[idx + (slice(None),)])

    def reshape(self, *shape: Any, order: str = "C") -> PRNGKeyArray:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        n = self.size
        shape = tuple(operator.index(d) for d in shape)
        if shape.count(-1) == 1:
            known = math.prod(d for d in shape if d != -1)
            shape = tuple(n // known if d == -1 else d for d in shape)
        return PRNGKeyArray(lax_shape.reshape(self._base, shape + (2,)))

    def ravel(self) -> PRNGKeyArray:
        return self.reshape(self.size)

    flatten = ravel

    def squeeze(self, axis: Any = None) -> PRNGKeyArray:
        if axis is None:
            axis = tuple(i for i, d in enumerate(self.shape) if d == 1)
        axes = (axis,) if isinstance(axis, int) else tuple(axis)
        axes = tuple(canonicalize_axis(a, self.ndim) for a in axes)
        return PRNGKeyArray(lax_shape.squeeze(self._base, axes))

    def transpose(self, *axes: Any) -> PRNGKeyArray:
        if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
            axes = tuple(axes[0])
        perm = tuple(axes) if axes else tuple(reversed(range(self.ndim)))
        return PRNGKeyArray(lax_shape.transpose(self._base, perm + (self.ndim,)))

    def block_until_ready(self) -> PRNGKeyArray:
        return self

    def copy(self) -> PRNGKeyArray:
        return PRNGKeyArray(self._base)

    # -- comparison ------------------------------------------------------------------------
    def __eq__(self, other: object) -> Any:
        if not isinstance(other, PRNGKeyArray):
            return NotImplemented
        return lax_red.reduce_and(lax.eq(self._base, other._base), (self.ndim,))

    def __ne__(self, other: object) -> Any:
        if not isinstance(other, PRNGKeyArray):
            return NotImplemented
        return lax_red.reduce_or(lax.ne(self._base, other._base), (self.ndim,))

    def __hash__(self):
        raise TypeError("unhashable type: 'PRNGKeyArray'")

    # -- printing --------------------------------------------------------------------------
    def __repr__(self) -> str:
        base = self._base
        if isinstance(base, Tracer):
            dims = ",".join(str(d) for d in self.shape)
            return f"Traced<key<fry>[{dims}]>with<{type(base._trace).__name__}>"
        return f"Array({self.shape}, dtype=key<fry>) overlaying:\n{np.asarray(base)}"

    __str__ = __repr__


tu.register_pytree_node(
    PRNGKeyArray, lambda k: ((k._base,), None), lambda _, children: PRNGKeyArray(children[0])
)
key_arrays.register_key_type(PRNGKeyArray, (2,), _U32)


def _is_arraylike(x: Any) -> bool:
    return isinstance(x, (Array, Tracer, np.ndarray, np.generic))


def _invalid_key(name: str, what: str) -> TypeError:
    return TypeError(f"{name}: invalid PRNG key data for impl {_IMPL_NAME}: {what}")


def _key_data_of(name: str, key: Any) -> tuple[Any, bool]:
    """(key data ``uint32[..., 2]``, whether ``key`` was a typed key array)."""
    if isinstance(key, PRNGKeyArray):
        return key._base, True
    if not _is_arraylike(key):
        raise _invalid_key(
            name, f"expected key_data to have ndim, shape, and dtype attributes; got {key!r}"
        )
    shape = tuple(key.shape)
    if not shape or shape[-1] != 2:
        raise _invalid_key(name, f"expected key_data.shape to end with (2,); got shape={shape}")
    if key.dtype != _U32:
        raise _invalid_key(name, f"expected key_data.dtype = uint32; got dtype={key.dtype}")
    return key, False


def _check_key(name: str, key: Any, allow_batched: bool = False) -> tuple[Any, bool]:
    data, typed = _key_data_of(name, key)
    if not allow_batched and len(data.shape) > 1:
        shape = tuple(data.shape[:-1]) if typed else tuple(data.shape)
        raise ValueError(
            f"{name} accepts a single key, but was given a key array of shape {shape} != (). "
            "Use jax.vmap for batching."
        )
    return data, typed


def _ret(data: Any, typed: bool) -> Any:
    return PRNGKeyArray(data) if typed else data


__all__ = ["KEY_DTYPE", "KeyDtype", "PRNGKeyArray"]
