"""The smaller parts of NumPy's API on spmd arrays: building arrays from index expressions
(``jnp.r_``, ``c_``, ``mgrid``, ``ogrid``) and blocks (``block``), taking them apart
(``unstack``, ``rollaxis``, ``trim_zeros``), out-of-place updates (``fill_diagonal``,
``place``), complex-number tests (``iscomplex``, ``isreal``, ``sort_complex``), bits
(``packbits``, ``unpackbits``, ``bitwise_count``), and ``mask_indices``.

Functions JAX runs under an inner ``jit`` (``block``, ``unstack``, ``rollaxis``, ``iscomplex``,
``isreal``, ``sort_complex``, ``packbits``, ``unpackbits``, ``bitwise_count``) do too, so Python
scalars inside them are weakly typed tracers, as in JAX.

>>> jnp.r_[0:3, 7, jnp.array([8, 9])]
Array([0, 1, 2, 7, 8, 9], dtype=int32)
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from spmd._src import dtypes, tree_util
from spmd._src.core import Tracer
from spmd._src.errors import ConcretizationTypeError
from spmd._src.interpreters.ad import JVPTracer
from spmd._src.key_arrays import over_key_data
from spmd._src.lax import elementwise as lax
from spmd._src.lax import padding as lax_padding
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.lax import sorting as lax_sort
from spmd._src.numpy.array_constructors import asarray
from spmd._src.numpy.creation import arange, linspace, ones
from spmd._src.numpy.indexing import take
from spmd._src.numpy.lax_numpy import nonzero
from spmd._src.numpy.shape_ops import (
    concatenate,
    moveaxis,
    reshape,
    stack,
    transpose,
)
from spmd._src.numpy.util import (
    _axis,
    _full,
    _named_jit,
    _scalar,
    check_arraylike,
    convert,
    promote_dtypes,
)

_int32 = np.dtype(np.int32)
_uint8 = np.dtype(np.uint8)
_bool = np.dtype(np.bool_)

# ---------------------------------------------------------------------------------------------
# Index expressions: r_, c_, mgrid, ogrid


def _static_slice_part(fn: str, name: str, v: Any) -> Any:
    if isinstance(v, Tracer):
        raise ConcretizationTypeError(
            f"Abstract tracer value encountered where concrete value is expected: the slice "
            f"{name} of jnp.{fn} is traced ({v.aval.str_short()}); the length of the result "
            "depends on it, so it must be a Python number."
        )
    return v


def _slice_array(fn: str, k: slice) -> Any:
    """The 1-D array a slice stands for: ``arange(start, stop, step)``, or for a complex step
    ``n * 1j`` (NumPy's convention) ``n`` evenly spaced points from start to stop inclusive."""
    start = _static_slice_part(fn, "start", k.start)
    stop = _static_slice_part(fn, "stop", k.stop)
    step = _static_slice_part(fn, "step", k.step)
    start = 0 if start is None else start
    if isinstance(step, (complex, np.complexfloating)) and step:
        return linspace(start, stop, int(builtins.abs(step)), endpoint=True)
    # A zero step (0 or 0j) counts as the default 1, as in JAX.
    return arange(start, stop, step or 1)


class _AxisConcatenator:
    """``jnp.r_`` and ``jnp.c_``: slices, scalars and arrays joined along an axis, with an
    optional leading string directive (``'r'``, ``'c'``, or ``'axis[,ndmin[,trans1d]]'``)."""

    def __init__(self, name: str, axis: int, ndmin: int, trans1d: int) -> None:
        self._name, self.axis, self.ndmin, self.trans1d = name, axis, ndmin, trans1d

    def __getitem__(self, key: Any) -> Any:
        items = key if isinstance(key, tuple) else (key,)
        name = self._name
        if not items:
            raise IndexError(f"jnp.{name}[()]: there is nothing to concatenate")
        axis, ndmin, trans1d, matrix = self.axis, self.ndmin, self.trans1d, None
        if isinstance(items[0], str):
            directive, items = items[0], items[1:]
            if directive in ("r", "c"):
                matrix = directive
            else:
                try:
                    parts = [int(p) for p in directive.split(",")]
                except ValueError:
                    raise ValueError(
                        f"jnp.{name}: could not understand directive {directive!r}; expected "
                        "'r', 'c' or 'axis[,ndmin[,trans1d]]' (integers)"
                    ) from None
                # As in JAX, entries past the third are ignored.
                axis = parts[0]
                ndmin = parts[1] if len(parts) > 1 else ndmin
                trans1d = parts[2] if len(parts) > 2 else trans1d
        arrays = []
        for item in items:
            if isinstance(item, str):
                raise ValueError(
                    f"jnp.{name}: a string directive must be placed at the beginning, got "
                    f"{item!r} later"
                )
            a = _slice_array(name, item) if isinstance(item, slice) else asarray(item)
            arrays.append(_promote_ndmin(a, ndmin, trans1d))
        if not arrays:
            raise ValueError(f"jnp.{name}: need at least one array to concatenate")
        out = concatenate(arrays, axis=axis)
        if matrix is not None and out.ndim == 1:
            n = out.shape[0]
            out = reshape(out, (1, n) if matrix == "r" else (n, 1))
        return out

    def __len__(self) -> int:
        return 0

    def __repr__(self) -> str:
        return f"<spmd.numpy.{self._name}>"


def _promote_ndmin(a: Any, ndmin: int, trans1d: int) -> Any:
    """``a`` with leading size-1 axes up to ``ndmin`` dimensions; ``trans1d`` (unless -1) is the
    position the original axes move to among the new ones (NumPy's rule)."""
    k = a.ndim
    if k >= ndmin:
        return a
    a = reshape(a, (1,) * (ndmin - k) + tuple(a.shape))
    if trans1d != -1:
        k2, k1 = ndmin - k, trans1d
        if k1 < 0:
            k1 += k2 + 1
        axes = list(range(ndmin))
        perm = axes[:k1] + axes[k2:] + axes[k1:k2]
        if perm != axes:
            a = transpose(a, perm)
    return a


r_ = _AxisConcatenator("r_", axis=0, ndmin=1, trans1d=-1)
r_.__doc__ = """Concatenation along the first axis by index syntax: slices stand for ``arange``
(or, with a complex step ``n*1j``, ``n`` points of ``linspace``), scalars and arrays are joined.

>>> jnp.r_[1:4, 0, jnp.array([7, 8])]
Array([1, 2, 3, 0, 7, 8], dtype=int32)
"""
c_ = _AxisConcatenator("c_", axis=-1, ndmin=2, trans1d=0)
c_.__doc__ = """Concatenation along the last axis, 1-D inputs becoming columns.

>>> jnp.c_[jnp.array([1, 2]), jnp.array([3, 4])]
Array([[1, 3],
       [2, 4]], dtype=int32)
"""


class _Grid:
    """``jnp.mgrid`` (dense) and ``jnp.ogrid`` (sparse): coordinate grids by slice syntax."""

    def __init__(self, name: str, sparse: bool) -> None:
        self._name, self._sparse = name, sparse

    def __getitem__(self, key: Any) -> Any:
        name = self._name
        if isinstance(key, slice):
            return _slice_array(name, key)
        if not isinstance(key, tuple) or not all(isinstance(k, slice) for k in key):
            raise TypeError(f"jnp.{name}[...] takes slices (start:stop:step), got {key!r}")
        if not key:
            return [] if self._sparse else _full((0,), 0, _int32)
        arrays = promote_dtypes(*[_slice_array(name, k) for k in key])
        n = len(arrays)
        sizes = tuple(a.shape[0] for a in arrays)
        if self._sparse:
            return [
                reshape(a, tuple(s if j == i else 1 for j, s in enumerate(sizes)))
                for i, a in enumerate(arrays)
            ]
        grids = [lax_shape.broadcast_in_dim(a, sizes, (i,)) for i, a in enumerate(arrays)]
        return stack(grids, 0) if n > 1 else reshape(grids[0], (1, *sizes))

    def __repr__(self) -> str:
        return f"<spmd.numpy.{self._name}>"


mgrid = _Grid("mgrid", sparse=False)
mgrid.__doc__ = """A dense grid of coordinates, one ``arange``/``linspace`` per slice, stacked
along a new first axis (a single slice gives the 1-D array).

>>> jnp.mgrid[0:2, 0:3]
Array([[[0, 0, 0],
        [1, 1, 1]],
<BLANKLINE>
       [[0, 1, 2],
        [0, 1, 2]]], dtype=int32)
"""
ogrid = _Grid("ogrid", sparse=True)
ogrid.__doc__ = """A sparse grid: a list of coordinate arrays that broadcast against each other.

>>> jnp.ogrid[0:2, 0:3]
[Array([[0],
       [1]], dtype=int32), Array([[0, 1, 2]], dtype=int32)]
"""


# ---------------------------------------------------------------------------------------------
# block


def _block_depth(x: Any, path: str) -> int:
    if isinstance(x, tuple):
        raise ValueError(
            f"jnp.block does not allow tuples (use lists), got a tuple at arrays{path}: {x!r}"
        )
    if not isinstance(x, list):
        return 0
    if not x:
        raise ValueError(f"jnp.block does not allow empty list arguments (at arrays{path})")
    depths = {_block_depth(e, f"{path}[{i}]") for i, e in enumerate(x)}
    if len(depths) != 1:
        raise ValueError(
            f"Mismatched list depths in jnp.block: the entries of arrays{path} are nested "
            f"{sorted(depths)} lists deep"
        )
    return 1 + depths.pop()


def _block_impl(arrays):
    depth = _block_depth(arrays, "")
    leaves = [asarray(x) for x in tree_util.tree_leaves(arrays)]
    ndim = builtins.max([depth, *(x.ndim for x in leaves)])

    def assemble(x: Any, level: int) -> Any:
        if isinstance(x, list):
            # The innermost lists join along the last axis, each outer level one axis earlier.
            return concatenate([assemble(e, level + 1) for e in x], axis=level - depth)
        x = asarray(x)
        return x if x.ndim == ndim else reshape(x, (1,) * (ndim - x.ndim) + tuple(x.shape))

    return assemble(arrays, 0)


_block_jit = _named_jit("block", _block_impl)


def block(arrays: Any) -> Any:
    """An array assembled from nested lists of blocks: the innermost lists join along the last
    axis, the next level along the one before, and so on (blocks get leading size-1 axes first).

    >>> jnp.block([[jnp.ones((2, 2)), jnp.zeros((2, 1))], [jnp.full((1, 3), 2.0)]])
    Array([[1., 1., 0.],
           [1., 1., 0.],
           [2., 2., 2.]], dtype=float32)
    """
    _block_depth(arrays, "")
    check_arraylike("block", *tree_util.tree_leaves(arrays))
    return _block_jit(arrays)


# ---------------------------------------------------------------------------------------------
# unstack, rollaxis


def _unstack_impl(x, axis):
    return tuple(lax_shape.index_in_dim(x, i, axis, keepdims=False) for i in range(x.shape[axis]))


_unstack_jit = _named_jit("unstack", _unstack_impl, ("axis",))


@over_key_data("jnp.unstack")
def unstack(x: Any, /, *, axis: int = 0) -> tuple:
    """The slices of ``x`` along ``axis``, as a tuple (the inverse of ``jnp.stack``).

    >>> jnp.unstack(jnp.arange(6).reshape(2, 3), axis=1)
    (Array([0, 3], dtype=int32), Array([1, 4], dtype=int32), Array([2, 5], dtype=int32))
    """
    check_arraylike("unstack", x)
    a = asarray(x)
    axis = _axis(axis, a.ndim, "unstack")
    return _unstack_jit(a, axis=axis)


_rollaxis_jit = _named_jit(
    "rollaxis", lambda a, axis, start: moveaxis(a, axis, start), ("axis", "start")
)


def rollaxis(a: Any, axis: int, start: int = 0) -> Any:
    """``a`` with ``axis`` moved to lie before position ``start`` (NumPy's older
    ``moveaxis``).

    >>> jnp.rollaxis(jnp.ones((2, 3, 4, 5)), 3, 1).shape
    (2, 5, 3, 4)
    """
    check_arraylike("rollaxis", a)
    x = asarray(a)
    n = x.ndim
    axis = _axis(axis, n, "rollaxis")
    start = operator.index(start)
    if not -n <= start <= n:
        raise ValueError(f"rollaxis: start={start} must satisfy {-n}<=start<={n}")
    if start < 0:
        start += n
    if axis < start:
        start -= 1
    return _rollaxis_jit(x, axis=axis, start=start)


# ---------------------------------------------------------------------------------------------
# Out-of-place updates: fill_diagonal, place


def fill_diagonal(a: Any, val: Any, wrap: bool = False, *, inplace: bool = True) -> Any:
    """A copy of ``a`` with its main diagonal (``a[i, i, ...]``) set to ``val``, repeated as
    needed. JAX arrays are immutable: pass ``inplace=False``.

    >>> jnp.fill_diagonal(jnp.zeros((3, 3)), jnp.array([1.0, 2.0]), inplace=False)
    Array([[1., 0., 0.],
           [0., 2., 0.],
           [0., 0., 1.]], dtype=float32)
    """
    if inplace:
        raise NotImplementedError(
            "jnp.fill_diagonal: JAX arrays are immutable, must use inplace=False (the filled "
            "array is returned)"
        )
    if wrap:
        raise NotImplementedError(
            "jnp.fill_diagonal: wrap=True is not implemented, must use wrap=False"
        )
    check_arraylike("fill_diagonal", a, val)
    x, v = asarray(a), asarray(val)
    if x.ndim < 2:
        raise ValueError(f"fill_diagonal: array must be at least 2-d, got shape {tuple(x.shape)}")
    if x.ndim > 2 and len(set(x.shape)) != 1:
        raise ValueError(
            "fill_diagonal: All dimensions of input must be of equal length, got shape "
            f"{tuple(x.shape)}"
        )
    n = builtins.min(x.shape)
    v = convert(v, x.dtype, x.weak_type)
    if v.ndim:
        flat = reshape(v, (v.size,))
        if v.size == 0:
            # JAX's class for this case (it divides by the number of values).
            raise ZeroDivisionError(
                f"fill_diagonal: val is empty (shape {tuple(v.shape)}); there is nothing to put "
                f"on the diagonal of length {n}"
            )
        reps = -(-n // v.size)
        v = flat if reps == 1 else concatenate([flat] * reps)
        v = lax_shape.slice_in_dim(v, 0, n, 1, 0) if v.shape[0] != n else v
    idx = lax_shape.iota(_int32, n)
    return x.at[(idx,) * x.ndim].set(v)


def place(arr: Any, mask: Any, vals: Any, *, inplace: bool = True) -> Any:
    """A copy of ``arr`` whose entries where ``mask`` holds take the values of ``vals`` in
    order (repeated if too few). JAX arrays are immutable: pass ``inplace=False``.

    >>> jnp.place(jnp.arange(5), jnp.arange(5) > 1, jnp.array([10, 20]), inplace=False)
    Array([ 0,  1, 10, 20, 10], dtype=int32)
    """
    if inplace:
        raise ValueError(
            "jnp.place cannot modify arrays in-place, because JAX arrays are immutable. Pass "
            "inplace=False to instead return an updated array."
        )
    check_arraylike("place", arr, mask, vals)
    x, m, v = asarray(arr), asarray(mask), asarray(vals)
    if m.size != x.size:
        raise ValueError(
            f"place: arr and mask must be the same size, got arr of shape {tuple(x.shape)} and "
            f"mask of shape {tuple(m.shape)}"
        )
    if v.size == 0:
        raise ValueError("place: Cannot place values from an empty array (vals has size 0)")
    size = x.size
    mf = convert(reshape(m, (size,)), _bool)
    vf = convert(reshape(v, (v.size,)), x.dtype, x.weak_type)
    # The k-th selected entry takes vals[k % len(vals)]: k is a running count of the mask.
    k = lax.sub(lax_red.cumsum(convert(mf, _int32), 0), _full((size,), 1, _int32))
    k = lax.rem(lax.max(k, _full((size,), 0, _int32)), _full((size,), v.size, _int32))
    out = lax.select_n(mf, reshape(x, (size,)), take(vf, k))
    return reshape(out, tuple(x.shape))


# ---------------------------------------------------------------------------------------------
# trim_zeros


def trim_zeros(filt: Any, trim: str = "fb", axis: int | Sequence[int] | None = None) -> Any:
    """``filt`` without its leading (``'f'`` in ``trim``) and trailing (``'b'``) zeros, along
    ``axis`` (every axis when None: the box holding all nonzero entries). The result's shape
    depends on the values, so ``filt`` must be concrete.

    >>> jnp.trim_zeros(jnp.array([0, 0, 1, 2, 0, 3, 0]))
    Array([1, 2, 0, 3], dtype=int32)
    """
    check_arraylike("trim_zeros", filt)
    x = asarray(filt)
    value = x
    while isinstance(value, JVPTracer):
        # Under differentiation the primal is still known (JAX allows this too): the bounds
        # come from it, and the slice of ``x`` carries the derivative.
        value = value.primal
    if isinstance(value, Tracer):
        raise ConcretizationTypeError(
            f"Abstract tracer value encountered where concrete value is expected: the argument "
            f"filt of jnp.trim_zeros() is traced ({x.aval.str_short()}), and the shape of the "
            "result depends on its values."
        )
    if x.ndim == 0:
        return x
    if axis is None:
        axes = tuple(range(x.ndim))
    else:
        given = axis if isinstance(axis, Sequence) else (axis,)
        axes = tuple(_axis(ax, x.ndim, "trim_zeros") for ax in given)
    trim = trim.lower()
    front, back = "f" in trim, "b" in trim
    nz = np.asarray(value) != 0
    starts, limits = [0] * x.ndim, list(x.shape)
    for ax in axes:
        others = tuple(d for d in range(x.ndim) if d != ax)
        hits = np.flatnonzero(nz.any(axis=others) if others else nz)
        if not (front or back):
            continue
        if hits.size == 0:
            starts[ax] = limits[ax] = 0
            continue
        if front:
            starts[ax] = int(hits[0])
        if back:
            limits[ax] = int(hits[-1]) + 1
    if starts == [0] * x.ndim and limits == list(x.shape):
        return x
    return lax_shape.slice(x, tuple(starts), tuple(limits))


# ---------------------------------------------------------------------------------------------
# Complex-number tests


def _imag_test(x, equal):
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        im = lax.imag(x)
        zero = _full(tuple(x.shape), 0, im.dtype)
        out = lax.eq(im, zero) if equal else lax.ne(im, zero)
    else:
        out = _full(tuple(x.shape), equal, _bool)
    # The comparison of a weakly typed value with the weak 0 is weakly typed in JAX.
    return convert(out, _bool, x.weak_type)


_iscomplex_jit = _named_jit("iscomplex", lambda x: _imag_test(x, False))
_isreal_jit = _named_jit("isreal", lambda x: _imag_test(x, True))


def iscomplex(x: Any) -> Any:
    """Whether each element has a nonzero imaginary part (False for real dtypes).

    >>> jnp.iscomplex(jnp.array([1 + 1j, 2, 3j]))
    Array([ True, False,  True], dtype=bool)
    """
    check_arraylike("iscomplex", x)
    return _iscomplex_jit(x)


def isreal(x: Any) -> Any:
    """Whether each element has a zero imaginary part (True for real dtypes).

    >>> jnp.isreal(jnp.array([1 + 1j, 2, 3j]))
    Array([False,  True, False], dtype=bool)
    """
    check_arraylike("isreal", x)
    return _isreal_jit(x)


def _sort_complex_impl(a):
    dt = dtypes.canonicalize_dtype(dtypes.promote_types(a.dtype, np.complex64))
    return lax_sort.sort(convert(a, dt), dimension=a.ndim - 1)


_sort_complex_jit = _named_jit("sort_complex", _sort_complex_impl)


def sort_complex(a: Any) -> Any:
    """``a`` as complex numbers, sorted along the last axis by real part, then imaginary part.

    >>> jnp.sort_complex(jnp.array([1 + 2j, 1 - 1j, 5j]))
    Array([0.+5.j, 1.-1.j, 1.+2.j], dtype=complex64)
    """
    check_arraylike("sort_complex", a)
    x = asarray(a)
    if x.ndim == 0:
        raise ValueError("sort_complex: axis -1 is out of bounds for array of dimension 0")
    return _sort_complex_jit(x)


# ---------------------------------------------------------------------------------------------
# Bits: packbits, unpackbits, bitwise_count

_BITORDERS = ("little", "big")


def _bit_axis(fn: str, axis: int, ndim: int) -> int:
    axis = operator.index(axis)
    if not -ndim <= axis < ndim:
        # NumPy's AxisError is both a ValueError and an IndexError (JAX's class here).
        raise np.exceptions.AxisError(
            f"{fn}: axis {axis} is out of bounds for array of dimension {ndim}"
        )
    return axis % ndim


def _bit_weights(bitorder: str, shape: tuple, axis: int, dt: np.dtype) -> Any:
    """Shift amounts of the 8 bits of a byte, along ``axis`` of ``shape`` (MSB first for
    ``'big'``)."""
    shifts = lax_shape.broadcasted_iota(dt, shape, axis)
    if bitorder == "big":
        shifts = lax.sub(_full(shape, 7, dt), shifts)
    return shifts


def _packbits_impl(a, axis, bitorder):
    bits = convert(lax.ne(a, _full(tuple(a.shape), 0, a.dtype)), _uint8)
    if axis is None:
        bits, axis = reshape(bits, (bits.size,)), 0
    n = bits.shape[axis]
    m = -(-n // 8)
    if m * 8 != n:
        pad = [(0, 0, 0)] * bits.ndim
        pad[axis] = (0, m * 8 - n, 0)
        bits = lax_padding.pad(bits, _scalar(0, _uint8), pad)
    shape = (*bits.shape[:axis], m, 8, *bits.shape[axis + 1 :])
    bits = reshape(bits, shape)
    packed = lax.shift_left(bits, _bit_weights(bitorder, shape, axis + 1, _uint8))
    return lax_red.reduce_sum(packed, (axis + 1,))


_packbits_jit = _named_jit("packbits", _packbits_impl, ("axis", "bitorder"))


def packbits(a: Any, axis: int | None = None, bitorder: str = "big") -> Any:
    """The truth values of ``a`` (nonzero: 1) packed 8 to a ``uint8`` along ``axis`` (of the
    flattened array when None), zero-padded to a multiple of 8.

    >>> jnp.packbits(jnp.array([1, 0, 1, 1, 0, 0, 0, 1, 1]))
    Array([177, 128], dtype=uint8)
    """
    check_arraylike("packbits", a)
    x = asarray(a)
    if not (dtypes.issubdtype(x.dtype, np.integer) or x.dtype == _bool):
        raise TypeError(
            f"packbits: expected an input array of integer or boolean data type, got {x.dtype}"
        )
    if bitorder not in _BITORDERS:
        raise ValueError(f"packbits: 'order' must be either 'little' or 'big', got {bitorder!r}")
    if axis is not None:
        axis = _bit_axis("packbits", axis, x.ndim)
    return _packbits_jit(x, axis=axis, bitorder=bitorder)


def _unpackbits_impl(a, axis, count, bitorder):
    if axis is None:
        a, axis = reshape(a, (a.size,)), 0
    n = a.shape[axis]
    shape = (*a.shape[: axis + 1], 8, *a.shape[axis + 1 :])
    dims = tuple(d for d in range(len(shape)) if d != axis + 1)
    wide = lax_shape.broadcast_in_dim(a, shape, dims)
    bits = lax.bitwise_and(
        lax.shift_right_logical(wide, _bit_weights(bitorder, shape, axis + 1, _uint8)),
        _full(shape, 1, _uint8),
    )
    bits = reshape(bits, (*a.shape[:axis], n * 8, *a.shape[axis + 1 :]))
    if count is None:
        return bits
    total = n * 8
    keep = total + count if count < 0 else count
    keep = builtins.max(keep, 0)
    if keep <= total:
        return lax_shape.slice_in_dim(bits, 0, keep, 1, axis)
    pad = [(0, 0, 0)] * bits.ndim
    pad[axis] = (0, keep - total, 0)
    return lax_padding.pad(bits, _scalar(0, _uint8), pad)


_unpackbits_jit = _named_jit("unpackbits", _unpackbits_impl, ("axis", "count", "bitorder"))


def unpackbits(a: Any, axis: int | None = None, count: int | None = None,
               bitorder: str = "big") -> Any:  # fmt: skip
    """The bits of the ``uint8`` array ``a`` as 0/1 ``uint8`` values, 8 per byte along ``axis``
    (of the flattened array when None); ``count`` keeps that many (negative: drops that many
    from the end; more than there are: zero-padded).

    >>> jnp.unpackbits(jnp.array([177], jnp.uint8))
    Array([1, 0, 1, 1, 0, 0, 0, 1], dtype=uint8)
    """
    check_arraylike("unpackbits", a)
    x = asarray(a)
    if x.dtype != _uint8:
        raise TypeError(
            f"unpackbits: expected an input array of unsigned byte data type (uint8), got {x.dtype}"
        )
    if bitorder not in _BITORDERS:
        raise ValueError(f"unpackbits: 'order' must be either 'little' or 'big', got {bitorder!r}")
    if axis is not None:
        axis = _bit_axis("unpackbits", axis, x.ndim)
    if count is not None:
        count = operator.index(count)
    return _unpackbits_jit(x, axis=axis, count=count, bitorder=bitorder)


def _bitwise_count_impl(x):
    if x.dtype == _bool:
        x = convert(x, _uint8)
    elif dtypes.issubdtype(x.dtype, np.signedinteger):
        # NumPy counts the bits of the absolute value.
        x = lax.abs(x)
    return convert(lax.population_count(x), _uint8)


_bitwise_count_jit = _named_jit("bitwise_count", _bitwise_count_impl)


def bitwise_count(x: Any, /) -> Any:
    """The number of 1 bits in the absolute value of each integer (as ``uint8``).

    >>> jnp.bitwise_count(jnp.array([0, 7, -1, 255]))
    Array([0, 3, 1, 8], dtype=uint8)
    """
    check_arraylike("bitwise_count", x)
    dt = x.dtype if hasattr(x, "dtype") else asarray(x).dtype
    if not (dtypes.issubdtype(dt, np.integer) or dt == _bool):
        raise TypeError(
            f"bitwise_count: population_count does not accept dtype {np.dtype(dt).name}. "
            "Accepted dtypes are subtypes of integer (and bool)."
        )
    return _bitwise_count_jit(x)


# ---------------------------------------------------------------------------------------------
# mask_indices


def mask_indices(n: int, mask_func: Callable[[Any, int], Any], k: int = 0, *,
                 size: int | None = None) -> tuple[Any, Any]:  # fmt: skip
    """The indices ``(rows, cols)`` of the nonzero entries of ``mask_func(ones((n, n)), k)``
    (e.g. ``jnp.triu``); under ``jit`` a static ``size`` is needed (padding with 0).

    >>> jnp.mask_indices(3, jnp.triu, 1)
    (Array([0, 0, 1], dtype=int32), Array([1, 2, 2], dtype=int32))
    """
    n = operator.index(n)
    return nonzero(mask_func(ones((n, n)), k), size=size)


__all__ = [
    "bitwise_count",
    "block",
    "c_",
    "fill_diagonal",
    "iscomplex",
    "isreal",
    "mask_indices",
    "mgrid",
    "ogrid",
    "packbits",
    "place",
    "r_",
    "rollaxis",
    "sort_complex",
    "trim_zeros",
    "unpackbits",
    "unstack",
]
