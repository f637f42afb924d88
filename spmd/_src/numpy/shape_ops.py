"""Changing an array's shape, the order of its axes and its number of dimensions, and joining and
splitting arrays: ``jnp.reshape``, ``jnp.transpose``, ``jnp.broadcast_to``, ``jnp.concatenate``,
``jnp.stack``, ``jnp.split`` and friends, and the ``reshape``/``transpose``/``T``/``mT`` array
methods.

>>> jnp.arange(6).reshape(2, 3).T
Array([[0, 3],
       [1, 4],
       [2, 5]], dtype=int32)
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from spmd._src import key_arrays
from spmd._src.array import Array
from spmd._src.core import Tracer
from spmd._src.errors import ConcretizationTypeError
from spmd._src.key_arrays import over_key_data
from spmd._src.lax import copies as lax_copies
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.sharding import apply_out_sharding
from spmd._src.mesh import AxisType, get_mesh
from spmd._src.numpy.array_constructors import asarray
from spmd._src.numpy.util import (
    _axes_tuple,
    _axis,
    _canonical_shape,
    _dtype_arg,
    _named_jit,
    _ndim_of,
    _shape_of,
    check_arraylike,
    convert,
    promote_dtypes,
    with_out_sharding,
)
from spmd._src.sharding import NamedSharding, PartitionSpec
from spmd._src.util import prod

# ---------------------------------------------------------------------------------------------
# Reshaping


def _reshape_sizes(a_shape: tuple[int, ...], newshape: Any, fn: str) -> tuple[int, ...]:
    dims = _canonical_shape(newshape, fn)
    total = prod(a_shape)
    if dims.count(-1) > 1:
        raise TypeError(
            f"can only specify one unknown axis size with a `-1` value, got {tuple(dims)}"
        )
    if -1 in dims:
        known = prod(d for d in dims if d != -1)
        if any(d < -1 for d in dims) or known == 0 or total % known:
            raise TypeError(
                f"cannot reshape array of shape {a_shape} (size {total}) into shape {dims} "
                f"because the product of specified axis sizes ({known}) does not evenly divide "
                f"{total}"
            )
        dims = tuple(total // known if d == -1 else d for d in dims)
    if prod(dims) != total or any(d < 0 for d in dims):
        raise TypeError(
            f"cannot reshape array of shape {a_shape} (size {total}) into shape {dims} "
            f"(size {prod(dims)})"
        )
    return dims


def _typed_out_sharding(out_sharding: Any) -> Any:
    """``out_sharding`` if it is a sharding in types (a NamedSharding, or a PartitionSpec of
    the mesh in context, whose mesh axes are all Explicit); None otherwise."""
    s = out_sharding
    if isinstance(s, PartitionSpec):
        mesh = get_mesh()
        s = NamedSharding(mesh, s) if mesh is not None else None
    if isinstance(s, NamedSharding) and all(t == AxisType.Explicit for t in s.mesh.axis_types):
        return s
    return None


@over_key_data("jnp.reshape")
def reshape(
    a: Any, shape: Any = None, order: str = "C", *, copy: bool | None = None, out_sharding=None
) -> Any:
    """``a`` with a new shape of the same size (one entry may be -1, to be inferred).

    >>> jnp.reshape(jnp.arange(6), (2, -1))
    Array([[0, 1, 2],
           [3, 4, 5]], dtype=int32)
    """
    check_arraylike("reshape", a)
    if shape is None:
        raise TypeError("reshape: the new shape must be given")
    a = asarray(a)
    dims = _reshape_sizes(tuple(a.shape), shape, "reshape")
    typed = _typed_out_sharding(out_sharding) if order == "C" else None
    if typed is not None:
        # The reshape's own sharding parameter types the result, as in JAX (its shape rule
        # checks that the shards divide).
        return lax_shape.reshape(a, dims, out_sharding=typed)
    return apply_out_sharding(_reshape(a, dims, order), out_sharding, "jnp.reshape")


def _reshape(a, dims, order):
    if order == "C":
        return lax_shape.reshape(a, dims)
    if order == "F":
        nd = a.ndim
        out = lax_shape.reshape(a, dims[::-1], tuple(range(nd - 1, -1, -1)))
        return lax_shape.transpose(out, tuple(range(len(dims) - 1, -1, -1)))
    if order == "A":
        raise NotImplementedError("jnp.reshape does not support order='A'.")
    raise ValueError(f"reshape: unexpected value for order {order!r}; expected 'C' or 'F'")


def _method_reshape(self: Any, *args: Any, order: str = "C") -> Any:
    """``x.reshape(2, 3)`` or ``x.reshape((2, 3))``."""
    if len(args) == 1 and not isinstance(args[0], int) and np.ndim(args[0]) != 0:
        newshape = args[0]
    elif any(isinstance(s, (list, tuple)) for s in args):
        raise TypeError(
            f"Shapes must be 1D sequences of concrete values of integer type, got {args}."
        )
    else:
        newshape = args
    return reshape(self, newshape, order=order)


@over_key_data("jnp.ravel")
@with_out_sharding("jnp.ravel")
def ravel(a: Any, order: str = "C", *, out_sharding: Any = None) -> Any:
    """``a`` flattened to one dimension."""
    check_arraylike("ravel", a)
    a = asarray(a)
    if order == "F":
        return lax_shape.reshape(a, (a.size,), tuple(range(a.ndim - 1, -1, -1)))
    if order not in ("C", "K", "A"):
        raise ValueError(f"ravel: unexpected value for order {order!r}")
    return lax_shape.reshape(a, (a.size,))


@over_key_data("jnp.transpose")
def transpose(a: Any, axes: Sequence[int] | None = None) -> Any:
    """``a`` with its axes permuted (reversed when ``axes`` is None).

    >>> jnp.transpose(jnp.ones((2, 3, 4)), (1, 0, 2)).shape
    (3, 2, 4)
    """
    check_arraylike("transpose", a)
    a = asarray(a)
    nd = a.ndim
    if axes is None:
        perm = tuple(range(nd - 1, -1, -1))
    else:
        perm = tuple(_axis(ax, nd, "transpose") for ax in axes)
    return lax_shape.transpose(a, perm)


def _method_transpose(self: Any, *args: Any) -> Any:
    """``x.transpose()``, ``x.transpose(1, 0)`` or ``x.transpose((1, 0))``."""
    if not args or (len(args) == 1 and args[0] is None):
        return transpose(self)
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return transpose(self, args[0])
    return transpose(self, args)


def _property_T(self: Any) -> Any:
    """``x.T``: all axes reversed."""
    return transpose(self)


def _property_mT(self: Any) -> Any:
    """``x.mT``: the last two axes swapped."""
    if self.ndim < 2:
        raise ValueError(
            f"x must be at least two-dimensional for matrix_transpose; got ndim={self.ndim}"
        )
    perm = (*range(self.ndim - 2), self.ndim - 1, self.ndim - 2)
    return lax_shape.transpose(self, perm)


@over_key_data("jnp.swapaxes")
def swapaxes(a: Any, axis1: int, axis2: int) -> Any:
    """``a`` with ``axis1`` and ``axis2`` interchanged."""
    check_arraylike("swapaxes", a)
    a = asarray(a)
    nd = a.ndim
    try:
        ax1 = _axis(axis1, nd, "swapaxes", "axis1")
        ax2 = _axis(axis2, nd, "swapaxes", "axis2")
    except ValueError as err:
        # JAX raises IndexError here; NumPy's AxisError is both an IndexError and a ValueError.
        raise np.exceptions.AxisError(str(err)) from None
    perm = list(range(nd))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    return lax_shape.transpose(a, tuple(perm))


@over_key_data("jnp.moveaxis")
def moveaxis(a: Any, source: int | Sequence[int], destination: int | Sequence[int]) -> Any:
    """``a`` with axes ``source`` moved to positions ``destination``.

    >>> jnp.moveaxis(jnp.ones((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
    check_arraylike("moveaxis", a)
    a = asarray(a)
    nd = a.ndim
    src = (source,) if isinstance(source, int) else tuple(source)
    dst = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(src) != len(dst):
        raise ValueError(f"Inconsistent number of elements: {len(src)} vs {len(dst)}")
    src = tuple(_axis(s, nd, "moveaxis", "source") for s in src)
    dst = tuple(_axis(d, nd, "moveaxis", "destination") for d in dst)
    perm = [i for i in range(nd) if i not in src]
    for d, s in sorted(zip(dst, src)):
        perm.insert(d, s)
    return lax_shape.transpose(a, tuple(perm))


@over_key_data("jnp.expand_dims")
def expand_dims(a: Any, axis: int | Sequence[int]) -> Any:
    """``a`` with size-1 axes inserted at ``axis`` (positions in the result).

    >>> jnp.expand_dims(jnp.ones((2, 3)), (0, 2)).shape
    (1, 2, 1, 3)
    """
    check_arraylike("expand_dims", a)
    a = asarray(a)
    axes = (axis,) if not isinstance(axis, (tuple, list)) else tuple(axis)
    nd = a.ndim + len(axes)
    canon = tuple(_axis(ax, nd, "expand_dims") for ax in axes)
    if len(set(canon)) != len(canon):
        raise ValueError(f"repeated axis in lax.expand_dims: {axes}")
    return lax_shape.expand_dims(a, canon)


@over_key_data("jnp.squeeze")
def squeeze(a: Any, axis: int | Sequence[int] | None = None) -> Any:
    """``a`` without the given size-1 axes (all of them when ``axis`` is None)."""
    check_arraylike("squeeze", a)
    a = asarray(a)
    shp = tuple(a.shape)
    if axis is None:
        dims = tuple(i for i, d in enumerate(shp) if d == 1)
    else:
        dims = _axes_tuple(axis, len(shp), "squeeze")
        if any(shp[d] != 1 for d in dims):
            raise ValueError(
                "cannot select an axis to squeeze out which has size not equal to one, got "
                f"shape={shp} and dimensions={dims}"
            )
    return lax_shape.squeeze(a, dims)


def broadcast_shapes(*shapes: Any) -> tuple[int, ...]:
    """The shape the given shapes broadcast to (NumPy's rules).

    >>> jnp.broadcast_shapes((2, 1), (3,))
    (2, 3)
    """
    shps = [(s,) if isinstance(s, (int, np.integer)) else tuple(s) for s in shapes]
    if not shps:
        return ()
    rank = builtins.max(len(s) for s in shps)
    out = []
    for i in range(rank, 0, -1):
        sizes = {s[-i] for s in shps if len(s) >= i}
        big = sizes - {1}
        if len(big) > 1:
            raise ValueError(f"Incompatible shapes for broadcasting: shapes={shps}")
        out.append(big.pop() if big else 1)
    return tuple(int(d) for d in out)


@over_key_data("jnp.broadcast_to")
@with_out_sharding("jnp.broadcast_to")
def broadcast_to(array: Any, shape: Any, *, out_sharding: Any = None) -> Any:
    """``array`` broadcast to ``shape`` (NumPy's rules).

    >>> jnp.broadcast_to(jnp.arange(3), (2, 3))
    Array([[0, 1, 2],
           [0, 1, 2]], dtype=int32)
    """
    check_arraylike("broadcast_to", array)
    arr = asarray(array)
    shp = _canonical_shape(shape, "broadcast_to")
    arr_shape = tuple(arr.shape)
    if arr_shape == shp:
        return arr
    if len(shp) < len(arr_shape):
        raise ValueError(
            f"Cannot broadcast to shape with fewer dimensions: arr_shape={arr_shape} shape={shp}"
        )
    lead = len(shp) - len(arr_shape)
    if any(d != 1 and d != s for d, s in zip(arr_shape, shp[lead:])) or any(d < 0 for d in shp):
        aval = arr.aval
        want = aval.update(shape=shp)
        raise ValueError(
            f"Incompatible types for broadcasting: input type={_type_str(aval)} and requested "
            f"type={_type_str(want)}"
        )
    return lax_shape.broadcast_in_dim(arr, shp, tuple(range(lead, len(shp))))


def _type_str(aval) -> str:
    return aval.str_short(short_dtypes=False)


def broadcast_arrays(*args: Any) -> list:
    """The arguments broadcast against each other."""
    check_arraylike("broadcast_arrays", *args)
    shp = broadcast_shapes(*(_shape_of(a) for a in args))
    return [broadcast_to(a, shp) for a in args]


@over_key_data("jnp.atleast_1d")
def atleast_1d(*arys: Any) -> Any:
    """Each argument as an array with at least one dimension (a list if several)."""
    return _atleast("atleast_1d", _atleast_1d_jit, arys)


def atleast_2d(*arys: Any) -> Any:
    """Each argument as an array with at least two dimensions (1-D ``(n,)`` becomes
    ``(1, n)``)."""
    return _atleast("atleast_2d", _atleast_2d_jit, arys)


def atleast_3d(*arys: Any) -> Any:
    """Each argument as an array with at least three dimensions (``(n,)`` becomes
    ``(1, n, 1)``, ``(n, m)`` becomes ``(n, m, 1)``)."""
    return _atleast("atleast_3d", _atleast_3d_jit, arys)


def _atleast(name: str, fn, arys: tuple) -> Any:
    check_arraylike(name, *arys)
    if not arys:
        return []
    out = fn(*arys)
    return out[0] if len(arys) == 1 else list(out)


def _expand_1d(x):
    x = asarray(x)
    return lax_shape.broadcast_in_dim(x, (1,), ()) if x.ndim == 0 else x


def _expand_2d(x):
    x = asarray(x)
    if x.ndim == 0:
        return lax_shape.broadcast_in_dim(x, (1, 1), ())
    if x.ndim == 1:
        return lax_shape.broadcast_in_dim(x, (1, x.shape[0]), (1,))
    return x


def _expand_3d(x):
    x = asarray(x)
    if x.ndim == 0:
        return lax_shape.broadcast_in_dim(x, (1, 1, 1), ())
    if x.ndim == 1:
        return lax_shape.broadcast_in_dim(x, (1, x.shape[0], 1), (1,))
    if x.ndim == 2:
        return lax_shape.broadcast_in_dim(x, (*x.shape, 1), (0, 1))
    return x


_atleast_1d_jit = _named_jit("atleast_1d", lambda *xs: [_expand_1d(x) for x in xs])
_atleast_2d_jit = _named_jit("atleast_2d", lambda *xs: [_expand_2d(x) for x in xs])
_atleast_3d_jit = _named_jit("atleast_3d", lambda *xs: [_expand_3d(x) for x in xs])


# ---------------------------------------------------------------------------------------------
# Joining


def _unstack(x: Any) -> list:
    return [lax_shape.index_in_dim(x, i, 0, keepdims=False) for i in range(x.shape[0])]


def _as_array_list(arrays: Any, fn: str) -> list:
    if isinstance(arrays, (Array, Tracer, np.ndarray)):
        return _unstack(asarray(arrays))
    arrays = list(arrays)
    check_arraylike(fn, *arrays)
    return arrays


@over_key_data("jnp.concatenate", key_arrays.joined)
def concatenate(arrays: Any, axis: int | None = 0, dtype: Any = None) -> Any:
    """Join arrays along an existing axis (``axis=None`` flattens them first); dtypes are
    promoted.

    >>> jnp.concatenate([jnp.zeros(2), jnp.arange(2)])
    Array([0., 0., 0., 1.], dtype=float32)
    """
    if isinstance(arrays, (Array, Tracer, np.ndarray)):
        return _concatenate_array(asarray(arrays), axis, dtype)
    arrays = list(arrays)
    if not arrays:
        raise ValueError("Need at least one array to concatenate.")
    check_arraylike("concatenate", *arrays)
    if axis is None:
        arrays = [ravel(a) for a in arrays]
        axis = 0
    shapes = [_shape_of(a) for a in arrays]
    if any(len(s) == 0 for s in shapes):
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    if len({len(s) for s in shapes}) > 1:
        raise TypeError(
            "Cannot concatenate arrays with different numbers of dimensions: got "
            + ", ".join(str(tuple(s)) for s in shapes)
            + "."
        )
    ax = _axis(axis, len(shapes[0]), "concatenate")
    if dtype is None:
        arrays = promote_dtypes(*arrays)
    else:
        dt = _dtype_arg(dtype, "concatenate")
        arrays = [convert(a, dt) for a in arrays]
    return lax_shape.concatenate(arrays, ax)


def _concatenate_array(arr: Any, axis: int | None, dtype: Any) -> Any:
    # Concatenating the rows of one array is a transpose and a reshape.
    if dtype is not None:
        arr = convert(arr, _dtype_arg(dtype, "concatenate"))
    if axis is None:
        return ravel(arr)
    if arr.ndim == 0:
        raise ValueError("Need at least one array to concatenate.")
    if arr.ndim == 1:
        raise ValueError("Zero-dimensional arrays cannot be concatenated.")
    ax = _axis(axis, arr.ndim - 1, "concatenate")
    dims = list(range(1, arr.ndim))
    dims.insert(ax, 0)
    shp = list(arr.shape[1:])
    shp[ax] *= arr.shape[0]
    return lax_shape.reshape(arr, tuple(shp), tuple(dims))


@over_key_data("jnp.stack", key_arrays.joined)
def stack(arrays: Any, axis: int = 0, out: None = None, dtype: Any = None) -> Any:
    """Join equal-shaped arrays along a new axis.

    >>> jnp.stack([jnp.zeros(2), jnp.ones(2)], axis=1)
    Array([[0., 1.],
           [0., 1.]], dtype=float32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.stack is not supported.")
    if isinstance(arrays, (Array, Tracer, np.ndarray)):
        arr = asarray(arrays)
        if dtype is not None:
            arr = convert(arr, _dtype_arg(dtype, "stack"))
        if arr.ndim == 0:
            raise ValueError("Need at least one array to stack.")
        ax = _axis(axis, arr.ndim, "stack")
        # Stacking the rows of one array along ``ax`` moves its first axis there.
        nd = arr.ndim
        col = lax_shape.broadcast_in_dim(arr, (*arr.shape, 1), tuple(range(nd)))
        dims = list(range(1, nd))
        dims.insert(ax, 0)
        dims.append(nd)
        new = [arr.shape[d] for d in dims[:-1]]
        return lax_shape.reshape(col, tuple(new), tuple(dims))
    arrays = list(arrays)
    if not arrays:
        raise ValueError("Need at least one array to stack.")
    check_arraylike("stack", *arrays)
    shapes = [_shape_of(a) for a in arrays]
    if len({len(s) for s in shapes}) > 1:
        raise ValueError(
            "Cannot stack arrays with different numbers of dimensions: got "
            + ", ".join(str(tuple(s)) for s in shapes)
            + "."
        )
    if len({tuple(s) for s in shapes}) > 1:
        raise ValueError(
            "All input arrays must have the same shape. Got "
            + ", ".join(str(tuple(s)) for s in shapes)
            + "."
        )
    ax = _axis(axis, len(shapes[0]) + 1, "stack")
    if dtype is None:
        arrays = promote_dtypes(*arrays)
    else:
        dt = _dtype_arg(dtype, "stack")
        arrays = [convert(a, dt) for a in arrays]
    return lax_copies.stack(arrays, ax)


@over_key_data("jnp.hstack", key_arrays.joined)
def hstack(tup: Any, dtype: Any = None) -> Any:
    """Join arrays column-wise (along axis 1; axis 0 for 1-D inputs)."""
    arrs = [atleast_1d(a) for a in _as_array_list(tup, "hstack")]
    if not arrs:
        raise ValueError("Need at least one array to concatenate.")
    return concatenate(arrs, 0 if arrs[0].ndim == 1 else 1, dtype=dtype)


@over_key_data("jnp.vstack", key_arrays.joined)
def vstack(tup: Any, dtype: Any = None) -> Any:
    """Join arrays row-wise (1-D inputs become rows)."""
    arrs = [atleast_2d(a) for a in _as_array_list(tup, "vstack")]
    if not arrs:
        raise ValueError("Need at least one array to concatenate.")
    return concatenate(arrs, 0, dtype=dtype)


row_stack = vstack


def dstack(tup: Any, dtype: Any = None) -> Any:
    """Join arrays depth-wise (along axis 2)."""
    arrs = [atleast_3d(a) for a in _as_array_list(tup, "dstack")]
    if not arrs:
        raise ValueError("Need at least one array to concatenate.")
    return concatenate(arrs, 2, dtype=dtype)


def column_stack(tup: Any) -> Any:
    """Join 1-D arrays as columns (2-D arrays as they are) into a 2-D array."""
    arrs = []
    for a in _as_array_list(tup, "column_stack"):
        arrs.append(_property_T(atleast_2d(a)) if _ndim_of(a) < 2 else asarray(a))
    if not arrs:
        raise ValueError("Need at least one array to concatenate.")
    return concatenate(arrs, 1)


def append(arr: Any, values: Any, axis: int | None = None) -> Any:
    """``values`` appended to ``arr`` (both flattened when ``axis`` is None)."""
    check_arraylike("append", arr, values)
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis)


# ---------------------------------------------------------------------------------------------
# Splitting


def _split_sizes(size_: int, indices_or_sections: Any, fn: str, even: bool) -> tuple:
    if isinstance(indices_or_sections, Tracer):
        raise ConcretizationTypeError(
            indices_or_sections._concretization_message(fn)
            + f"\n{fn}: indices_or_sections must be concrete."
        )
    ios = np.asarray(indices_or_sections)
    if ios.ndim == 0:
        n = operator.index(ios[()])
        if n <= 0:
            raise ValueError(f"{fn}: number sections must be larger than 0, got {n}.")
        if even:
            if size_ % n:
                raise ValueError(
                    f"array split does not result in an equal division: rest is {size_ % n}"
                )
            return tuple(np.int64(size_ // n) for _ in range(n))
        q, r = divmod(size_, n)
        return tuple(np.int64(q + 1) for _ in range(r)) + tuple(np.int64(q) for _ in range(n - r))
    if ios.ndim != 1 or not (ios.size == 0 or np.issubdtype(ios.dtype, np.integer)):
        raise TypeError(f"{fn}: indices_or_sections must be an int or a 1-D list of ints.")
    bounds = np.concatenate([[0], ios.astype(np.int64), [size_]]).astype(np.int64)
    sizes = tuple(np.diff(bounds))
    if any(s < 0 for s in sizes):
        # As JAX (NumPy instead allows negative, decreasing and too-large indices).
        raise ValueError(f"Sizes passed to split must be nonnegative, got {list(sizes)}")
    return sizes


def _split(fn: str, ary: Any, indices_or_sections: Any, axis: int, even: bool) -> list:
    check_arraylike(fn, ary)
    ary = asarray(ary)
    ax = _axis(axis, ary.ndim, fn)
    sizes = _split_sizes(ary.shape[ax], indices_or_sections, fn, even)
    return list(lax_shape.split(ary, sizes, ax))


@over_key_data("jnp.split")
def split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """Split into equal sections (an int, which must divide the axis) or at indices.

    >>> [p.shape for p in jnp.split(jnp.ones((2, 6)), [1, 4], axis=1)]
    [(2, 1), (2, 3), (2, 2)]
    """
    return _split("split", ary, indices_or_sections, axis, True)


@over_key_data("jnp.array_split")
def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list:
    """As ``split``, but sections need not be equal (the first ones are one larger)."""
    return _split("array_split", ary, indices_or_sections, axis, False)


@over_key_data("jnp.hsplit")
def hsplit(ary: Any, indices_or_sections: Any) -> list:
    """Split along axis 1 (axis 0 for 1-D arrays)."""
    check_arraylike("hsplit", ary)
    return _split("hsplit", ary, indices_or_sections, 1 if _ndim_of(ary) > 1 else 0, True)


@over_key_data("jnp.vsplit")
def vsplit(ary: Any, indices_or_sections: Any) -> list:
    """Split along axis 0."""
    return _split("vsplit", ary, indices_or_sections, 0, True)


def dsplit(ary: Any, indices_or_sections: Any) -> list:
    """Split along axis 2 (the array must have at least three dimensions)."""
    check_arraylike("dsplit", ary)
    if _ndim_of(ary) < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return _split("dsplit", ary, indices_or_sections, 2, True)


def concat(arrays: Sequence[Any], /, *, axis: int | None = 0) -> Any:
    """Array-API name of ``concatenate``."""
    return concatenate(arrays, axis=axis)


def permute_dims(a: Any, /, axes: Sequence[int]) -> Any:
    """Array-API name of ``transpose`` (``axes`` required)."""
    return transpose(a, axes)


__all__ = [
    "append",
    "array_split",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_arrays",
    "broadcast_shapes",
    "broadcast_to",
    "column_stack",
    "concat",
    "concatenate",
    "dsplit",
    "dstack",
    "expand_dims",
    "hsplit",
    "hstack",
    "moveaxis",
    "permute_dims",
    "ravel",
    "reshape",
    "row_stack",
    "split",
    "squeeze",
    "stack",
    "swapaxes",
    "transpose",
    "vsplit",
    "vstack",
]
