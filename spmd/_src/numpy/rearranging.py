"""Functions that repeat, reorder, pad, insert or delete elements: ``jnp.tile``, ``jnp.repeat``,
``jnp.flip``, ``jnp.roll``, ``jnp.rot90``, ``jnp.pad``, ``jnp.delete``, ``jnp.insert`` and
``jnp.resize``.

>>> jnp.roll(jnp.arange(4), 1)
Array([3, 0, 1, 2], dtype=int32)
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from spmd._src import core
from spmd._src.core import Tracer
from spmd._src.errors import ConcretizationTypeError
from spmd._src.interpreters import sharding_rules
from spmd._src.key_arrays import over_key_data
from spmd._src.lax import copies as lax_copies
from spmd._src.lax import elementwise as lax
from spmd._src.lax import padding as lax_padding
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.sharding import apply_out_sharding, reshard
from spmd._src.numpy import ufuncs
from spmd._src.numpy.array_constructors import array, asarray
from spmd._src.numpy.shape_ops import broadcast_to, moveaxis, ravel, reshape
from spmd._src.numpy.util import (
    _axes_tuple,
    _axis,
    _canonical_shape,
    _check_nonneg_shape,
    _full,
    _int32,
    _named_jit,
    _ndim_of,
    _scalar,
    check_arraylike,
    convert,
    with_out_sharding,
)
from spmd._src.sharding import PartitionSpec
from spmd._src.util import prod

# ---------------------------------------------------------------------------------------------
# Tiling and repeating


@over_key_data("jnp.tile")
def tile(A: Any, reps: int | Sequence[int]) -> Any:
    """``A`` repeated ``reps[i]`` times along axis i (NumPy's rank alignment).

    >>> jnp.tile(jnp.array([1, 2]), 2)
    Array([1, 2, 1, 2], dtype=int32)
    """
    check_arraylike("tile", A)
    A = asarray(A)
    reps_t = _canonical_shape(reps, "tile")
    if any(r < 0 for r in reps_t):
        raise ValueError(f"tile: reps must be non-negative, got {reps_t}")
    nd = A.ndim
    if len(reps_t) > nd:
        lead = len(reps_t) - nd
        A = lax_shape.broadcast_in_dim(
            A, (1,) * lead + tuple(A.shape), tuple(range(lead, len(reps_t)))
        )
    reps_t = (1,) * (A.ndim - len(reps_t)) + reps_t
    return lax_copies.tile(A, reps_t)


def _repeat_scalar(a: Any, r: int, axis: int) -> Any:
    # Broadcast a new axis of size r after ``axis``, then merge the two (what JAX emits).
    shp = tuple(a.shape)
    nd = len(shp)
    big = shp[: axis + 1] + (r,) + shp[axis + 1 :]
    dims = tuple(range(axis + 1)) + tuple(range(axis + 2, nd + 1))
    out = lax_shape.broadcast_in_dim(a, big, dims)
    return lax_shape.reshape(out, shp[:axis] + (shp[axis] * r,) + shp[axis + 1 :])


def _take_static(a: Any, idx: np.ndarray, axis: int) -> Any:
    """``a`` indexed along ``axis`` by concrete indices, from slices (runs of equal indices
    become one broadcast slice, runs of consecutive ones one slice)."""
    pieces = []
    i, n = 0, len(idx)
    while i < n:
        j = i
        while j + 1 < n and idx[j + 1] == idx[i]:
            j += 1
        if j > i:
            piece = lax_shape.slice_in_dim(a, int(idx[i]), int(idx[i]) + 1, axis=axis)
            pieces.append(_repeat_scalar(piece, j - i + 1, axis))
            i = j + 1
            continue
        while (
            j + 1 < n and idx[j + 1] == idx[j] + 1 and not (j + 2 < n and idx[j + 2] == idx[j + 1])
        ):
            j += 1
        pieces.append(lax_shape.slice_in_dim(a, int(idx[i]), int(idx[j]) + 1, axis=axis))
        i = j + 1
    if not pieces:
        return lax_shape.slice_in_dim(a, 0, 0, axis=axis)
    return lax_shape.concatenate(pieces, axis)


def _take_along(a: Any, idx: Any, axis: int) -> Any:
    from spmd._src.numpy import indexing  # same layer; imported late to avoid a cycle

    take = getattr(indexing, "take", None)
    if take is None:
        raise NotImplementedError("traced indices need spmd.numpy.take, which is not available")
    return take(a, idx, axis=axis)


@over_key_data("jnp.repeat")
@with_out_sharding("jnp.repeat", inner=True)
def repeat(
    a: Any,
    repeats: Any,
    axis: int | None = None,
    *,
    total_repeat_length: int | None = None,
    out_sharding: Any = None,
) -> Any:
    """Each element of ``a`` repeated ``repeats`` times (a scalar, or one count per element
    along ``axis``; ``axis=None`` flattens first). Traced ``repeats`` need a static
    ``total_repeat_length``. An axis sharded on Explicit mesh axes needs ``out_sharding``.

    >>> jnp.repeat(jnp.array([1, 2]), 2)
    Array([1, 1, 2, 2], dtype=int32)
    """
    out = _repeat(a, repeats, axis, total_repeat_length, out_sharding is None)
    return apply_out_sharding(out, out_sharding, "jnp.repeat")


def _repeat(a: Any, repeats: Any, axis: int | None, total_repeat_length, typed: bool) -> Any:
    check_arraylike("repeat", a, repeats)
    a = asarray(a)
    if axis is None:
        a = ravel(a)
        ax = 0
    else:
        ax = _axis(axis, a.ndim, "repeat")
    s = sharding_rules.type_sharding(a)
    spec = s.spec._normalized(a.ndim) if s is not None else None
    if spec is not None and spec[ax] is not None:
        if typed:
            # The result's sharding along the repeated axis is ambiguous in types (JAX 0.10).
            raise ValueError(
                "Please pass sharding to `jnp.repeat` via `out_sharding` parameter. (jnp.repeat "
                f"along axis {ax} of {sharding_rules.type_str(core.get_aval(a), spec, False)}, "
                "sharded there on Explicit mesh axes.)"
            )
        # out_sharding decides the result's: the repeat itself works on the whole axis.
        a = reshard(a, s.with_spec(PartitionSpec(*spec[:ax], None, *spec[ax + 1 :])))
    n = a.shape[ax]
    if isinstance(repeats, Tracer):
        if total_repeat_length is None:
            raise ConcretizationTypeError(
                repeats._concretization_message("jnp.repeat")
                + "\njnp.repeat with a non-constant `repeats` is supported only when "
                "`total_repeat_length` is not None."
            )
        return _repeat_traced(a, repeats, ax, operator.index(total_repeat_length))
    r = np.asarray(repeats)
    if not (np.issubdtype(r.dtype, np.integer) or r.dtype == np.bool_):
        raise TypeError(f"repeat: repeats must be integers, got dtype {r.dtype}")
    r = r.astype(np.int64)
    if r.ndim == 0 and total_repeat_length is None:
        if r < 0:
            raise TypeError(f"repeat: repeats must be non-negative, got {int(r)}")
        return _repeat_scalar(a, int(r), ax)
    if r.ndim > 1 or r.size not in (1, n):
        raise ValueError(
            f"repeat: repeats of shape {r.shape} must be a scalar or have shape ({n},), the "
            f"size of axis {ax} of the array (shape {tuple(a.shape)})."
        )
    r = np.broadcast_to(r.reshape(-1), (n,))
    if (r < 0).any():
        raise ValueError(f"repeat: repeats must be non-negative, got {r.tolist()}")
    idx = np.repeat(np.arange(n), r)
    if total_repeat_length is not None:
        trl = operator.index(total_repeat_length)
        # Too short: truncated. Too long: padded with the last element (as JAX).
        idx = idx[:trl]
        if len(idx) < trl:
            idx = np.concatenate([idx, np.full(trl - len(idx), builtins.max(n - 1, 0))])
    return _take_static(a, idx, ax)


def _repeat_traced(a: Any, repeats: Any, axis: int, trl: int) -> Any:
    n = a.shape[axis]
    reps = broadcast_to(convert(repeats, _int32), (n,))
    ends = lax_red.cumsum(reps, 0)
    pos = lax_shape.iota(_int32, trl)
    # Output position j takes element #{i : ends[i] <= j} (clamped to the last element).
    before = lax.le(
        lax_shape.broadcast_in_dim(ends, (trl, n), (1,)),
        lax_shape.broadcast_in_dim(pos, (trl, n), (0,)),
    )
    idx = lax_red.reduce_sum(convert(before, _int32), (1,))
    idx = lax.min(idx, _scalar(builtins.max(n - 1, 0), _int32))
    return _take_along(a, idx, axis)


# ---------------------------------------------------------------------------------------------
# Flipping, rolling, rotating


def _flip_body(m, axis):
    nd = m.ndim
    dims = tuple(range(nd)) if axis is None else tuple(_axis(ax, nd, "flip") for ax in axis)
    return lax_shape.rev(m, dims)


_flip_jit = _named_jit("_flip", _flip_body, ("axis",))


@over_key_data("jnp.flip")
def flip(m: Any, axis: int | Sequence[int] | None = None) -> Any:
    """``m`` with the order of elements reversed along ``axis`` (all axes if None).

    >>> jnp.flip(jnp.arange(3))
    Array([2, 1, 0], dtype=int32)
    """
    check_arraylike("flip", m)
    m = asarray(m)
    if axis is not None:
        axis = _axes_tuple(axis, m.ndim, "flip")
    return _flip_jit(m, axis=axis)


def fliplr(m: Any) -> Any:
    """``m`` reversed along axis 1."""
    check_arraylike("fliplr", m)
    if _ndim_of(m) < 2:
        raise ValueError(
            "fliplr requires an array of at least 2 dimensions (Input must be >= 2-d)."
        )
    return flip(m, 1)


def flipud(m: Any) -> Any:
    """``m`` reversed along axis 0."""
    check_arraylike("flipud", m)
    if _ndim_of(m) < 1:
        raise ValueError("flipud requires an array of at least 1 dimension (Input must be >= 1-d).")
    return flip(m, 0)


def _roll_body(a, shift, axis):
    for s, ax in zip(shift, axis):
        n = a.shape[ax]
        if n == 0:
            continue
        i = (-s) % n
        a = lax_shape.concatenate(
            [
                lax_shape.slice_in_dim(a, i, n, axis=ax),
                lax_shape.slice_in_dim(a, 0, i, axis=ax),
            ],
            ax,
        )
    return a


_roll_jit = _named_jit("_roll_static", _roll_body, ("shift", "axis"))


@over_key_data("jnp.roll")
def roll(a: Any, shift: Any, axis: int | Sequence[int] | None = None) -> Any:
    """``a`` with elements shifted by ``shift`` along ``axis``, wrapping around (``axis=None``
    rolls the flattened array).

    >>> jnp.roll(jnp.arange(4), 1)
    Array([3, 0, 1, 2], dtype=int32)
    """
    check_arraylike("roll", a)
    if not isinstance(shift, (tuple, list)):
        check_arraylike("roll", a, shift)
    a = asarray(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), tuple(a.shape))
    axes = np.asarray(axis)
    if not np.issubdtype(axes.dtype, np.integer):
        raise TypeError(f"roll: axis must be an int or a sequence of ints, got {axis!r}")
    if isinstance(shift, Tracer):
        return _roll_traced(a, shift, axes)
    sh = np.asarray(shift)
    if not (np.issubdtype(sh.dtype, np.integer) or sh.dtype == np.bool_):
        raise TypeError(f"roll: shift must be integers, got dtype {sh.dtype}")
    try:
        sh, axes = np.broadcast_arrays(sh, axes)
    except ValueError:
        raise ValueError(
            f"roll: shift {sh.tolist()} and axis {axes.tolist()} cannot be broadcast together."
        ) from None
    if sh.ndim > 1:
        raise ValueError("roll: shift and axis must be scalars or 1-D sequences")
    axes_c = tuple(_axis(int(x), a.ndim, "roll") for x in axes.reshape(-1))
    shifts = tuple(int(x) for x in sh.reshape(-1))
    return _roll_jit(a, shift=shifts, axis=axes_c)


def _roll_traced(a: Any, shift: Any, axes: np.ndarray) -> Any:
    shift = asarray(shift)
    if shift.ndim > 1 or axes.ndim > 1:
        raise ValueError("roll: shift and axis must be scalars or 1-D sequences")
    k = builtins.max(shift.size if shift.ndim else 1, axes.size if axes.ndim else 1)
    shifts = broadcast_to(shift, (k,))
    for i, ax in enumerate(np.broadcast_to(axes, (k,)).tolist()):
        ax = _axis(ax, a.ndim, "roll")
        n = a.shape[ax]
        if n == 0:
            continue
        s = lax_shape.index_in_dim(shifts, i, 0, keepdims=False) if shifts.shape else shifts
        idx = ufuncs.remainder(ufuncs.subtract(lax_shape.iota(_int32, n), s), n)
        a = _take_along(a, idx, ax)
    return a


def _rot90_body(m, k, axes):
    ax1, ax2 = axes
    k = k % 4
    if k == 0:
        return m
    if k == 2:
        return _flip_jit(_flip_jit(m, axis=(ax1,)), axis=(ax2,))
    perm = list(range(m.ndim))
    perm[ax1], perm[ax2] = perm[ax2], perm[ax1]
    if k == 1:
        return lax_shape.transpose(_flip_jit(m, axis=(ax2,)), tuple(perm))
    return _flip_jit(lax_shape.transpose(m, tuple(perm)), axis=(ax2,))


_rot90_jit = _named_jit("rot90", _rot90_body, ("k", "axes"))


def rot90(m: Any, k: int = 1, axes: tuple[int, int] = (0, 1)) -> Any:
    """``m`` rotated by 90 degrees ``k`` times in the plane of ``axes`` (from the first axis
    towards the second)."""
    check_arraylike("rot90", m)
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError(
            "rot90 requires its first argument to have ndim at least two, but got first "
            f"argument of shape {tuple(m.shape)}, which has ndim {m.ndim}"
        )
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError(f"rot90: len(axes) must be 2, got {axes}")
    ax = tuple(_axis(x, m.ndim, "rot90") for x in axes)
    if ax[0] == ax[1]:
        raise ValueError("Axes must be different")
    return _rot90_jit(m, k=operator.index(k), axes=ax)


# ---------------------------------------------------------------------------------------------
# Padding

_PAD_KWARGS = {
    "constant": {"constant_values"},
    "edge": set(),
    "wrap": set(),
    "reflect": {"reflect_type"},
    "symmetric": {"reflect_type"},
    "empty": set(),
}
_UNSUPPORTED_PAD_MODES = ("linear_ramp", "maximum", "mean", "median", "minimum")


def _pad_pairs(pad_width: Any, nd: int) -> tuple:
    if isinstance(pad_width, Tracer):
        raise ConcretizationTypeError(
            pad_width._concretization_message("jnp.pad") + "\njnp.pad: pad_width must be concrete."
        )
    pw = np.asarray(pad_width)
    if pw.size and not np.issubdtype(pw.dtype, np.integer):
        raise TypeError("`pad_width` must be of integral type.")
    valid = [(nd, 2), (1, 2), (2,), (1,), ()]
    if pw.shape not in valid:
        raise ValueError(
            f"jnp.pad: pad_width with nd={nd} has unsupported shape {pw.shape}. Valid shapes are "
            + ", ".join(str(s) for s in valid[:-1])
            + ", or ()."
        )
    pw = np.broadcast_to(pw.astype(np.int64), (nd, 2))
    if (pw < 0).any():
        raise ValueError("index can't contain negative values")
    return tuple((pw[i, 0], pw[i, 1]) for i in range(nd))


def _pad_constant(x, pairs, constant_values):
    cv = asarray(constant_values)
    if cv.ndim == 0:
        cfg = tuple((lo, hi, 0) for lo, hi in pairs)
        return lax_padding.pad(x, convert(cv, x.dtype), cfg)
    cv = convert(broadcast_to(cv, (x.ndim, 2)), x.dtype)
    for i, (lo, hi) in enumerate(pairs):
        for side, amount in ((0, lo), (1, hi)):
            val = lax_shape.reshape(lax_shape.slice(cv, (i, side), (i + 1, side + 1)), ())
            cfg = [(0, 0, 0)] * x.ndim
            cfg[i] = (amount, 0, 0) if side == 0 else (0, amount, 0)
            x = lax_padding.pad(x, val, tuple(cfg))
    return x


def _check_nonempty_axis(x, i, lo, hi, mode):
    if x.shape[i] == 0 and (lo > 0 or hi > 0):
        raise ValueError(f"Cannot apply '{mode}' padding to empty axis")


def _pad_edge(x, pairs):
    for i, (lo, hi) in enumerate(pairs):
        _check_nonempty_axis(x, i, lo, hi, "edge")
        n = x.shape[i]
        first = _repeat_scalar(lax_shape.slice_in_dim(x, 0, 1, axis=i), int(lo), i)
        last = _repeat_scalar(lax_shape.slice_in_dim(x, n - 1, n, axis=i), int(hi), i)
        x = lax_shape.concatenate([first, x, last], i)
    return x


def _pad_wrap(x, pairs):
    for i, (lo, hi) in enumerate(pairs):
        _check_nonempty_axis(x, i, lo, hi, "wrap")
        n = x.shape[i]
        if n == 0:
            continue
        left, right = [], []
        if lo % n:
            left.append(lax_shape.slice_in_dim(x, n - int(lo % n), n, axis=i))
        if hi % n:
            right.append(lax_shape.slice_in_dim(x, 0, int(hi % n), axis=i))
        pieces = left + [x] * int(lo // n) + [x] + [x] * int(hi // n) + right
        x = lax_shape.concatenate(pieces, i)
    return x


def _pad_reflect(x, pairs, mode, reflect_type):
    for i, (lo, hi) in enumerate(pairs):
        _check_nonempty_axis(x, i, lo, hi, mode)
        n = x.shape[i]
        # 'reflect' leaves the edge out of the mirror image; a single element is its own edge.
        offset = 1 if (mode == "reflect" and n > 1) else 0
        for before, amount in ((True, int(lo)), (False, int(hi))):
            size_ = x.shape[i]
            edge = lax_shape.slice_in_dim(
                x, 0 if before else size_ - 1, 1 if before else size_, axis=i
            )
            while amount > 0:
                cur = builtins.min(amount, n - offset)
                amount -= cur
                size_ = x.shape[i]
                if before:
                    part = lax_shape.slice_in_dim(x, offset, offset + cur, axis=i)
                else:
                    part = lax_shape.slice_in_dim(x, size_ - cur - offset, size_ - offset, axis=i)
                part = _flip_jit(part, axis=(i,))
                if reflect_type == "odd":
                    part = ufuncs.subtract(ufuncs.multiply(2, edge), part)
                x = lax_shape.concatenate([part, x] if before else [x, part], i)
                if reflect_type == "odd":
                    size_ = x.shape[i]
                    edge = lax_shape.slice_in_dim(
                        x, 0 if before else size_ - 1, 1 if before else size_, axis=i
                    )
    return x


def _pad_empty(x, pairs):
    for i, (lo, hi) in enumerate(pairs):
        shp = list(x.shape)
        shp[i] = int(lo)
        first = _full(tuple(shp), 0, x.dtype)
        shp[i] = int(hi)
        last = _full(tuple(shp), 0, x.dtype)
        x = lax_shape.concatenate([first, x, last], i)
    return x


def _pad_body(array, constant_values, pad_width, mode, reflect_type):
    if mode == "constant":
        return _pad_constant(array, pad_width, constant_values)
    if mode == "edge":
        return _pad_edge(array, pad_width)
    if mode == "wrap":
        return _pad_wrap(array, pad_width)
    if mode in ("reflect", "symmetric"):
        return _pad_reflect(array, pad_width, mode, reflect_type)
    return _pad_empty(array, pad_width)


_pad_jit = _named_jit("_pad", _pad_body, ("pad_width", "mode", "reflect_type"))


def pad(array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> Any:
    """``array`` padded: ``pad_width`` is an int, a (before, after) pair, or one pair per axis.

    Modes: 'constant' (``constant_values``), 'edge', 'reflect' and 'symmetric'
    (``reflect_type`` 'even' or 'odd'), 'wrap', 'empty'.

    >>> jnp.pad(jnp.array([1, 2]), (1, 2), mode="edge")
    Array([1, 1, 2, 2, 2], dtype=int32)
    """
    check_arraylike("pad", array)
    array = asarray(array)
    if callable(mode) or not isinstance(mode, str):
        raise NotImplementedError("jnp.pad: callable modes are not supported.")
    if mode in _UNSUPPORTED_PAD_MODES:
        raise NotImplementedError(f"jnp.pad: mode '{mode}' is not implemented in spmd.")
    if mode not in _PAD_KWARGS:
        raise NotImplementedError(f"Unimplemented padding mode '{mode}' for np.pad.")
    extra = set(kwargs) - _PAD_KWARGS[mode]
    if extra:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {extra}")
    pairs = _pad_pairs(pad_width, array.ndim)
    constant_values = kwargs.get("constant_values", 0)
    if not isinstance(constant_values, (tuple, list)):
        check_arraylike("pad", constant_values)
    reflect_type = kwargs.get("reflect_type", "even")
    if reflect_type not in ("even", "odd"):
        raise ValueError(f"jnp.pad: reflect_type must be 'even' or 'odd', got {reflect_type!r}")
    return _pad_jit(array, constant_values, pad_width=pairs, mode=mode, reflect_type=reflect_type)


# ---------------------------------------------------------------------------------------------
# Deleting, inserting, selecting along an axis (static indices)


def _static_indices(obj: Any, n: int, fn: str) -> np.ndarray:
    if isinstance(obj, Tracer):
        raise ConcretizationTypeError(
            obj._concretization_message(f"jnp.{fn}") + f"\n{fn}: the indices must be concrete."
        )
    if isinstance(obj, builtins.slice):
        return np.arange(n)[obj]
    idx = np.asarray(obj)
    if idx.size and not np.issubdtype(idx.dtype, np.integer):
        raise TypeError(f"{fn}: indices must be integers, got dtype {idx.dtype}")
    return idx.astype(np.int64)


def delete(arr: Any, obj: Any, axis: int | None = None, *, assume_unique_indices: bool = False):
    """``arr`` without the entries at ``obj`` (an int, a slice or concrete indices) along
    ``axis`` (flattened when None).

    >>> jnp.delete(jnp.arange(5), 1)
    Array([0, 2, 3, 4], dtype=int32)
    """
    check_arraylike("delete", arr)
    if not isinstance(obj, builtins.slice):
        check_arraylike("delete", arr, obj)
    a = asarray(arr)
    if axis is None:
        a, axis = ravel(a), 0
    ax = _axis(axis, a.ndim, "delete")
    n = a.shape[ax]
    idx = _static_indices(obj, n, "delete").reshape(-1)
    if ((idx < -n) | (idx >= n)).any():
        bad = idx[(idx < -n) | (idx >= n)][0]
        raise ValueError(f"delete: index {bad} is out of bounds for axis {ax} with size {n}")
    keep = np.ones(n, bool)
    keep[idx % n if n else idx] = False
    return _take_static(a, np.nonzero(keep)[0], ax)


def insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> Any:
    """``values`` inserted into ``arr`` before the indices ``obj`` (concrete) along ``axis``
    (flattened when None); ``values`` takes ``arr``'s dtype.

    >>> jnp.insert(jnp.arange(3), 1, 9)
    Array([0, 9, 1, 2], dtype=int32)
    """
    check_arraylike("insert", arr, values)
    if not isinstance(obj, builtins.slice):
        check_arraylike("insert", arr, obj)
    a = asarray(arr)
    if axis is None:
        a, axis = ravel(a), 0
    ax = _axis(axis, a.ndim, "insert")
    n = a.shape[ax]
    idx = _static_indices(obj, n + 1, "insert")
    scalar_obj = idx.ndim == 0
    idx = idx.reshape(-1)
    if ((idx < -n) | (idx > n)).any():
        bad = idx[(idx < -n) | (idx > n)][0]
        raise IndexError(f"insert: index {bad} is out of bounds for axis {ax} with size {n}")
    idx = np.where(idx < 0, idx + n, idx)
    vals = array(values, dtype=a.dtype, ndmin=a.ndim, copy=False)
    if scalar_obj:
        # NumPy's rule: with one index, the leading axis of ``values`` is the inserted one.
        vals = moveaxis(vals, 0, ax)
        k = vals.shape[ax]
    else:
        k = len(idx)
    vshape = list(a.shape)
    vshape[ax] = k
    vals = broadcast_to(vals, tuple(vshape))
    if scalar_obj:
        idx = np.full(k, idx[0])
    # Each inserted element goes before original element idx[j] (stable for equal indices).
    order = np.argsort(idx, kind="stable")
    new_pos = idx[order] + np.arange(k)
    out_idx = np.empty(n + k, np.int64)
    is_new = np.zeros(n + k, bool)
    is_new[new_pos] = True
    out_idx[new_pos] = n + order
    out_idx[~is_new] = np.arange(n)
    both = lax_shape.concatenate([a, vals], ax) if k else a
    return _take_static(both, out_idx, ax)


def resize(a: Any, new_shape: Any) -> Any:
    """An array of ``new_shape`` filled with the elements of ``a``, repeated cyclically.

    >>> jnp.resize(jnp.arange(3), 5)
    Array([0, 1, 2, 0, 1], dtype=int32)
    """
    check_arraylike("resize", a)
    shp = _canonical_shape(new_shape, "resize")
    _check_nonneg_shape(shp, "resize")
    flat = ravel(a)
    total = prod(shp)
    if flat.shape[0] == 0:
        return _full(shp, 0, flat.dtype, flat.weak_type)
    reps = -(-total // flat.shape[0])
    out = lax_copies.tile(flat, (reps,)) if reps != 1 else flat
    return reshape(lax_shape.slice_in_dim(out, 0, total), shp)


__all__ = [
    "delete",
    "flip",
    "fliplr",
    "flipud",
    "insert",
    "pad",
    "repeat",
    "resize",
    "roll",
    "rot90",
    "tile",
]
