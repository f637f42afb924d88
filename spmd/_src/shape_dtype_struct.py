"""``ShapeDtypeStruct``: a shape, dtype, sharding and weak type standing in for an array (the
arguments of eval_shape, make_jaxpr, ``jit(f).trace``/``.lower``, and their results)."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src.core import ShapedArray
from spmd._src.sharding import PartitionSpec, resolve_spec


class ShapeDtypeStruct:
    """A shape and dtype standing in for an array (for eval_shape and lowering)."""

    __slots__ = ("shape", "dtype", "sharding", "weak_type")

    def __init__(self, shape, dtype, *, sharding=None, weak_type: bool = False) -> None:
        self.shape = tuple(operator.index(d) for d in shape)
        if dtype is None or dtypes.is_extended(dtype):  # a typed key's dtype stays as it is
            self.dtype = dtype
        else:
            self.dtype = np.dtype(dtypes.canonicalize_dtype(dtype))
        if isinstance(sharding, core.MemorySpace):
            raise ValueError(
                f"ShapeDtypeStruct: sharding should be a Sharding or a PartitionSpec; got "
                f"{sharding!r} of type {type(sharding).__name__} for shape {self.shape} (a "
                "memory space is given as a sharding's memory_kind, e.g. 'pinned_host')."
            )
        if isinstance(sharding, PartitionSpec):
            # A bare spec means the mesh in context, resolved now (as JAX's ShapeDtypeStruct).
            sharding = resolve_spec(
                sharding, f"ShapeDtypeStruct of shape {self.shape} (sharding={sharding})", TypeError
            )
        self.sharding = sharding
        self.weak_type = weak_type

    @property
    def _sharding_in_type(self) -> Any:
        """The sharding a value of this type has (make_jaxpr and jit type their arguments with
        it on Explicit mesh axes: f32[8@X,4])."""
        return self.sharding

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __repr__(self) -> str:
        sh = f", sharding={self.sharding}" if self.sharding is not None else ""
        wt = ", weak_type=True" if self.weak_type else ""
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name}{sh}{wt})"

    def __eq__(self, other) -> bool:
        return isinstance(other, ShapeDtypeStruct) and (
            self.shape,
            self.dtype,
            self.sharding,
            self.weak_type,
        ) == (other.shape, other.dtype, other.sharding, other.weak_type)

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.sharding, self.weak_type))

    @property
    def aval(self) -> ShapedArray:
        # A sharding in host memory types the value there (f32<host>[8]), as JAX's does.
        space = core.mem_kind_to_space(getattr(self.sharding, "memory_kind", None))
        return ShapedArray(self.shape, self.dtype, self.weak_type, memory_space=space)
