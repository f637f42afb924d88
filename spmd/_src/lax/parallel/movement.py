"""Data movement over named axes: all_gather, psum_scatter, all_to_all (pswapaxes), ppermute
(pshuffle).
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src import tree_util as tu
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad
from spmd._src.lax import elementwise as lax_elem
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.parallel._common import (
    _check_groups,
    _check_positions,
    _describe,
    _flat_devices,
    _group_array,
    _Info,
    _named,
    _names,
    _npos,
    _register,
    _sizes,
    _unbound_impl,
    _unflat_devices,
)
from spmd._src.lax.parallel.axes import axis_index
from spmd._src.lax.parallel.reductions import _BF16, _fold
from spmd._src.lax.rules import deflinear, moveaxis
from spmd._src.util import prod

__all__ = [
    "all_gather",
    "all_gather_invariant_p",
    "all_gather_p",
    "all_to_all",
    "all_to_all_p",
    "ppermute",
    "ppermute_p",
    "pshuffle",
    "psum_scatter",
    "pswapaxes",
    "reduce_scatter_p",
]


# ---------------------------------------------------------------------------------------------
# Kernel helpers. The kernels run once per call of a compiled program, so at small sizes their
# Python overhead is the cost: these avoid np.moveaxis's and np.argsort's per-call work.


# With axis_index_groups, blocks of at least this many bytes are moved (and summed) one by one,
# straight into the result: a Python step per block, but no gathered copy and no scatter.
_BLOCKWISE_BYTES = 1 << 14


def _move(x: np.ndarray, src: int, dst: int) -> np.ndarray:
    """``np.moveaxis(x, src, dst)`` for one non-negative axis: a view."""
    perm = list(range(x.ndim))
    perm.insert(dst, perm.pop(src))
    return x.transpose(perm)


def _unflat(y: np.ndarray, entries: tuple, shape: tuple) -> np.ndarray:
    """``_unflat_devices``; a reshape alone when the entries are already in order."""
    if entries == tuple(range(len(entries))):
        return y.reshape(tuple(shape) + y.shape[1:])
    return _unflat_devices(y, entries, shape)


# ---------------------------------------------------------------------------------------------
# all_gather


def _per_device_axis(axis: Any, n: int, fn: str, what: str, rank: int | None = None) -> int:
    """``axis`` in range(n) (negative values count from the end), for an operand of ``rank``."""
    axis = operator.index(axis)
    if not -n <= axis < n:
        raise ValueError(
            f"{fn}: {what} {axis} is out of bounds for array of dimension "
            f"{n if rank is None else rank} (valid range [{-n}, {n - 1}])"
        )
    return axis % n


def all_gather(
    x: Any,
    axis_name: Any,
    *,
    axis_index_groups: Any = None,
    axis: int = 0,
    tiled: bool = False,
    to: str = "varying",
) -> Any:
    """Gather ``x`` (a pytree) from every device of the named axis: untiled, stacked along a
    new dimension ``axis``; tiled, concatenated along ``axis``.

    >>> spmd.vmap(lambda x: lax.all_gather(x, "i"), axis_name="i")(jnp.arange(3))
    Array([[0, 1, 2],
           [0, 1, 2],
           [0, 1, 2]], dtype=int32)
    """
    if to not in ("varying", "invarying"):
        raise ValueError(
            f"all_gather: got unexpected `to` value {to!r}; allowed values are 'varying' (the "
            "result is typed as varying over the axis) and 'invarying' (the same on every "
            "device: its per-device transpose takes the device's own block)"
        )
    names = _names(axis_name)
    n = prod(_sizes(names, "all_gather"))
    groups = _check_groups(axis_index_groups, names, n, "all_gather", equal=True)
    size = len(groups[0]) if groups is not None else n
    if to == "invarying" and groups is not None:
        raise ValueError(
            "all_gather: to='invarying' gathers from every device of the axis; it takes no "
            "axis_index_groups (each group would hold different values)"
        )

    def one(leaf):
        nd = np.ndim(leaf)
        if tiled and nd == 0:
            raise ValueError("all_gather: tiled=True needs an operand of rank at least 1")
        ax = _per_device_axis(axis, nd if tiled else nd + 1, "all_gather", "axis", nd)
        if to == "invarying":
            return all_gather_invariant_p.bind(
                leaf, all_gather_dimension=ax, axis_name=names, axis_size=size, tiled=bool(tiled)
            )
        return all_gather_p.bind(
            leaf,
            all_gather_dimension=ax,
            axis_index_groups=groups,
            axis_name=names,
            axis_size=size,
            tiled=bool(tiled),
        )

    return tu.tree_map(one, x)


def _all_gather_shape(pd: tuple, *, all_gather_dimension, axis_size, tiled) -> tuple:
    a = all_gather_dimension
    if tiled:
        return pd[:a] + (pd[a] * axis_size,) + pd[a + 1 :]
    return pd[:a] + (axis_size,) + pd[a:]


def _all_gather_abstract_eval(
    x, *, all_gather_dimension, axis_index_groups, axis_name, axis_size, tiled
):
    k = _check_positions(_names(axis_name), x, "all_gather")
    out = _all_gather_shape(
        x.shape[k:], all_gather_dimension=all_gather_dimension, axis_size=axis_size, tiled=tiled
    )
    lead = x.shape[:k] if axis_index_groups is not None else ()
    return ShapedArray(lead + out, x.dtype, x.weak_type)


def _gather_rows(rows: np.ndarray, a: int, tiled: bool) -> np.ndarray:
    """``rows`` (participants first) gathered along per-device dimension ``a``."""
    out = np.moveaxis(rows, 0, a)
    if tiled:
        s = out.shape
        out = out.reshape(s[:a] + (s[a] * s[a + 1],) + s[a + 2 :])
    return out


def _all_gather_impl(x, *, all_gather_dimension, axis_index_groups, axis_name, axis_size, tiled):
    entries = _names(axis_name)
    _unbound_impl("all_gather", entries)
    flat, shape = _flat_devices(x, entries)
    a = all_gather_dimension
    if axis_index_groups is None:
        return _gather_rows(flat, a, tiled)
    g = _group_array(axis_index_groups, flat.shape[0])
    per_group = flat[g]  # (groups, members, ...)
    gathered = np.moveaxis(per_group, 1, a + 1)
    if tiled:
        s = gathered.shape
        gathered = gathered.reshape(s[: a + 1] + (s[a + 1] * s[a + 2],) + s[a + 3 :])
    owner = np.empty(flat.shape[0], dtype=np.int64)
    for i, grp in enumerate(axis_index_groups):
        owner[list(grp)] = i
    return _unflat_devices(gathered[owner], entries, shape)


def _all_gather_transpose(
    ct, x, *, all_gather_dimension, axis_index_groups, axis_name, axis_size, tiled
):
    entries = _names(axis_name)
    k = _npos(entries)
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    if k == len(entries) and axis_index_groups is None:
        # Global form: device d's cotangent is block d of the (single) gathered cotangent.
        shape = x.aval.shape
        lead = shape[:k]
        ordered = tuple(lead[e] for e in entries)
        a = all_gather_dimension
        c = ct
        if tiled:
            s = tuple(np.shape(c))
            c = lax_shape.reshape(c, s[:a] + (axis_size, s[a] // axis_size) + s[a + 1 :])
        c = moveaxis(c, a, 0)
        c = lax_shape.reshape(c, ordered + tuple(np.shape(c))[1:])
        inv = tuple(int(i) for i in np.argsort(entries)) + tuple(range(k, len(shape)))
        return [lax_shape.transpose(c, inv)]
    if k and k != len(entries):
        raise NotImplementedError(
            "transposing all_gather over both named and vmapped axes at once is not supported"
        )
    out = reduce_scatter_p.bind(
        ct,
        axis_index_groups=axis_index_groups,
        axis_name=entries,
        axis_size=axis_size,
        scatter_dimension=all_gather_dimension,
        tiled=tiled,
    )
    return [out]


all_gather_p = core.Primitive("all_gather")
all_gather_p.def_impl(_all_gather_impl)
all_gather_p.def_abstract_eval(_all_gather_abstract_eval)
deflinear(all_gather_p, _all_gather_transpose)
_register(
    all_gather_p,
    _Info("axis_name", lambda p: p["axis_index_groups"] is not None, ["all_gather_dimension"]),
)


# all_gather(..., to='invarying'): the same values, typed as the same on every device. Its
# per-device cotangent is therefore one value for all devices, of which each takes its block.


def _agi_abstract_eval(x, **params):
    return _all_gather_abstract_eval(x, axis_index_groups=None, **params)


def _agi_impl(x, **params):
    return _all_gather_impl(x, axis_index_groups=None, **params)


def _agi_transpose(ct, x, *, all_gather_dimension, axis_name, axis_size, tiled):
    entries = _names(axis_name)
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    k = _npos(entries)
    if k:
        return _all_gather_transpose(
            ct,
            x,
            all_gather_dimension=all_gather_dimension,
            axis_index_groups=None,
            axis_name=axis_name,
            axis_size=axis_size,
            tiled=tiled,
        )
    from spmd._src.lax import indexing as lax_index

    a = all_gather_dimension
    me = axis_index(entries)
    if tiled:
        block = x.aval.shape[a]
        out = lax_index.dynamic_slice_in_dim(ct, lax_elem.mul(me, np.int32(block)), block, a)
    else:
        out = lax_index.dynamic_index_in_dim(ct, me, a, keepdims=False)
    return [out]


all_gather_invariant_p = core.Primitive("all_gather_invariant")
all_gather_invariant_p.def_impl(_agi_impl)
all_gather_invariant_p.def_abstract_eval(_agi_abstract_eval)
deflinear(all_gather_invariant_p, _agi_transpose)
_register(all_gather_invariant_p, _Info("axis_name", lambda p: False, ["all_gather_dimension"]))


# ---------------------------------------------------------------------------------------------
# psum_scatter (the reduce_scatter primitive)


def psum_scatter(
    x: Any,
    axis_name: Any,
    *,
    scatter_dimension: int = 0,
    axis_index_groups: Any = None,
    tiled: bool = False,
) -> Any:
    """Like ``psum``, but device i keeps only block i of the sum along ``scatter_dimension``
    (untiled: that dimension has one entry per device and is removed; tiled: it is divided).

    >>> spmd.vmap(lambda x: lax.psum_scatter(x, "i"), axis_name="i")(jnp.ones((2, 2)))
    Array([2., 2.], dtype=float32)
    """
    names = _names(axis_name)
    n = prod(_sizes(names, "psum_scatter"))
    groups = _check_groups(axis_index_groups, names, n, "psum_scatter", equal=True)
    size = len(groups[0]) if groups is not None else n

    def one(leaf):
        shape = np.shape(leaf)
        nd = len(shape)
        if nd == 0:
            raise ValueError("psum_scatter: the operand must have rank at least 1")
        sd = _per_device_axis(scatter_dimension, nd, "psum_scatter", "scatter_dimension")
        if tiled and shape[sd] % size:
            raise ValueError(
                f"psum_scatter: tiled reduce_scatter operand scatter dimension size {shape[sd]} "
                f"must be divisible by shard_count {size} (the number of devices of axis "
                f"{_describe(names)}{' per group' if groups else ''}); operand shape {shape}, "
                f"scatter_dimension={sd}."
            )
        if not tiled and shape[sd] != size:
            raise ValueError(
                f"psum_scatter: reduce_scatter operand scatter dimension size {shape[sd]} must "
                f"match shard count {size} (the number of devices of axis {_describe(names)}"
                f"{' per group' if groups else ''}); operand shape {shape}, scatter_dimension="
                f"{sd}. Pass tiled=True to split the dimension into {size} blocks instead."
            )
        if dtypes.dtype(leaf) == np.bool_:
            leaf = lax_elem.convert_element_type(leaf, np.int32)
        return reduce_scatter_p.bind(
            leaf,
            axis_index_groups=groups,
            axis_name=names,
            axis_size=size,
            scatter_dimension=sd,
            tiled=bool(tiled),
        )

    return tu.tree_map(one, x)


def _scatter_shape(pd: tuple, sd: int, n: int, tiled: bool) -> tuple:
    if tiled:
        return pd[:sd] + (pd[sd] // n,) + pd[sd + 1 :]
    return pd[:sd] + pd[sd + 1 :]


def _reduce_scatter_abstract_eval(
    x, *, axis_index_groups, axis_name, axis_size, scatter_dimension, tiled
):
    k = _check_positions(_names(axis_name), x, "psum_scatter")
    out = _scatter_shape(x.shape[k:], scatter_dimension, axis_size, tiled)
    return ShapedArray(x.shape[:k] + out, x.dtype, x.weak_type)


def _fold_into(out: np.ndarray, rows: list) -> None:
    """Write into ``out`` the left fold (``np.add``) of ``rows`` in order: the bits ``_fold``
    gives, reading the rows where they are instead of stacking them first."""
    if len(rows) < 2 or out.dtype == _BF16:
        out[...] = _fold(np.add, np.stack(rows))  # bfloat16 accumulates in float32 there
        return
    np.add(rows[0], rows[1], out=out)
    for r in rows[2:]:
        np.add(out, r, out=out)


def _member_blocks(a: np.ndarray, sd: int, m: int, tiled: bool) -> np.ndarray:
    """``a`` (a leading dimension, then per-device ones) as ``(lead, p, ...block p)``: its
    scatter dimension ``sd`` cut into ``m`` blocks (untiled: ``m`` entries), as a view."""
    if tiled:
        s = a.shape
        a = a.reshape(s[: sd + 1] + (m, s[sd + 1] // m) + s[sd + 2 :])
    return _move(a, sd + 1, 1)


def _reduce_scatter_impl(x, *, axis_index_groups, axis_name, axis_size, scatter_dimension, tiled):
    entries = _names(axis_name)
    _unbound_impl("psum_scatter", entries)
    flat, shape = _flat_devices(x, entries)
    n_dev = flat.shape[0]
    sd = scatter_dimension
    if axis_index_groups is None:
        # One group of every device in order: fold the operand itself (no gathered copy);
        # device p keeps block p of the sum.
        sums = _fold(np.add, flat)
        if tiled:
            s = sums.shape
            sums = sums.reshape(s[:sd] + (n_dev, s[sd] // n_dev) + s[sd + 1 :])
        if sd:
            sums = np.ascontiguousarray(_move(sums, sd, 0))  # (device, ...block)
        return _unflat(sums, entries, shape)
    m = len(axis_index_groups[0])
    xb = _member_blocks(flat, sd, m, tiled)  # (device, block p, ...block)
    out = np.empty((n_dev,) + xb.shape[2:], dtype=flat.dtype)
    if out[0, ...].nbytes >= _BLOCKWISE_BYTES:
        # The member at position p gets block p of its group's sum: fold exactly that block,
        # straight into the member's result (no per-group sums, no scatter).
        for grp in axis_index_groups:
            for p, d in enumerate(grp):
                _fold_into(out[d, ...], [xb[j, p, ...] for j in grp])
        return _unflat(out, entries, shape)
    # Small blocks: fewer Python steps: one fold per group, then one scatter of the blocks.
    sums = np.empty((len(axis_index_groups),) + flat.shape[1:], dtype=flat.dtype)
    for i, grp in enumerate(axis_index_groups):
        _fold_into(sums[i, ...], [flat[j, ...] for j in grp])
    out[_group_array(axis_index_groups, n_dev)] = _member_blocks(sums, sd, m, tiled)
    return _unflat(out, entries, shape)


def _reduce_scatter_transpose(
    ct, x, *, axis_index_groups, axis_name, axis_size, scatter_dimension, tiled
):
    entries = _names(axis_name)
    k = _npos(entries)
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    if k and k != len(entries):
        raise NotImplementedError(
            "transposing psum_scatter over both named and vmapped axes at once is not supported"
        )
    out = all_gather_p.bind(
        ct,
        all_gather_dimension=scatter_dimension,
        axis_index_groups=axis_index_groups,
        axis_name=entries,
        axis_size=axis_size,
        tiled=tiled,
    )
    if k and axis_index_groups is None:
        # Global form: the gathered cotangent is the same for every device.
        shape = x.aval.shape
        out = lax_shape.broadcast_in_dim(out, shape, tuple(range(k, len(shape))))
    return [out]


reduce_scatter_p = core.Primitive("reduce_scatter")
reduce_scatter_p.def_impl(_reduce_scatter_impl)
reduce_scatter_p.def_abstract_eval(_reduce_scatter_abstract_eval)
deflinear(reduce_scatter_p, _reduce_scatter_transpose)
_register(reduce_scatter_p, _Info("axis_name", lambda p: True, ["scatter_dimension"]))


# ---------------------------------------------------------------------------------------------
# all_to_all (and pswapaxes)


def all_to_all(
    x: Any,
    axis_name: Any,
    split_axis: int,
    concat_axis: int,
    *,
    axis_index_groups: Any = None,
    tiled: bool = False,
) -> Any:
    """Split ``x`` along ``split_axis`` into one block per device, send block j to device j,
    and concatenate the received blocks along ``concat_axis`` (untiled: the split dimension,
    which must have one entry per device, is removed and a new one of that size inserted at
    ``concat_axis``).

    >>> f = lambda x: lax.all_to_all(x, "i", 0, 0)
    >>> spmd.vmap(f, axis_name="i")(jnp.arange(4).reshape(2, 2))
    Array([[0, 2],
           [1, 3]], dtype=int32)
    """
    names = _names(axis_name)
    n = prod(_sizes(names, "all_to_all"))
    groups = _check_groups(axis_index_groups, names, n, "all_to_all", equal=True)
    size = len(groups[0]) if groups is not None else n
    # JAX keeps a single name bare in this primitive's parameters.
    an = names if isinstance(axis_name, (tuple, list)) else axis_name

    def one(leaf):
        shape = np.shape(leaf)
        nd = len(shape)
        if nd == 0:
            raise ValueError("all_to_all: the operand must have rank at least 1")
        s = _per_device_axis(split_axis, nd, "all_to_all", "split_axis")
        if tiled:
            c = _per_device_axis(concat_axis, nd, "all_to_all", "concat_axis")
            if shape[s] % size:
                raise ValueError(
                    f"all_to_all: the size of split_axis {s} ({shape[s]}) has to be divisible "
                    f"by the number of devices of axis {_describe(names)} ({size}"
                    f"{' per group' if groups else ''}); operand shape {shape}."
                )
            return all_to_all_p.bind(
                leaf,
                axis_index_groups=groups,
                axis_name=an,
                concat_axis=c,
                split_axis=s,
                tiled=True,
            )
        c = _per_device_axis(concat_axis, nd, "all_to_all", "concat_axis")
        if shape[s] != size:
            raise ValueError(
                f"all_to_all requires the size of the mapped axis {_describe(names)} to equal "
                f"x.shape[split_axis], but they are {size} and {shape[s]} respectively "
                f"(operand shape {shape}, split_axis={s}). Pass tiled=True to split the "
                "dimension into blocks instead."
            )
        # As JAX lowers it: a size-1 dimension to concatenate into, then the split one removed.
        c1 = c + (s <= c)
        s1 = s + (c1 <= s)
        y = lax_shape.expand_dims(leaf, (c1,))
        y = all_to_all_p.bind(
            y,
            axis_index_groups=groups,
            axis_name=an,
            concat_axis=c1,
            split_axis=s1,
            tiled=False,
        )
        return lax_shape.squeeze(y, (s1,))

    return tu.tree_map(one, x)


def _a2a_size(entries: tuple, x: ShapedArray, groups) -> int:
    if groups is not None:
        return len(groups[0])
    k = _npos(entries)
    return prod(x.shape[:k]) * prod(_sizes(_named(entries), "all_to_all"))


def _all_to_all_abstract_eval(x, *, axis_index_groups, axis_name, concat_axis, split_axis, tiled):
    entries = _names(axis_name)
    k = _check_positions(entries, x, "all_to_all")
    n = _a2a_size(entries, x, axis_index_groups)
    pd = list(x.shape[k:])
    if pd[split_axis] % n:
        raise TypeError(
            f"all_to_all: split dimension {split_axis} of the per-device shape {tuple(pd)} is "
            f"not divisible by the {n} devices"
        )
    pd[split_axis] //= n
    pd[concat_axis] *= n
    return ShapedArray(x.shape[:k] + tuple(pd), x.dtype, x.weak_type)


def _all_to_all_impl(x, *, axis_index_groups, axis_name, concat_axis, split_axis, tiled):
    entries = _names(axis_name)
    _unbound_impl("all_to_all", entries)
    flat, shape = _flat_devices(x, entries)
    n_dev = flat.shape[0]
    m = n_dev if axis_index_groups is None else len(axis_index_groups[0])
    a, b = split_axis, concat_axis
    s = flat.shape[1:]
    xs = flat.reshape((n_dev,) + s[:a] + (m, s[a] // m) + s[a + 1 :])
    if axis_index_groups is None:
        # Device j's block q goes to device q: one transposing copy of the operand.
        y = _move(xs, 1 + a, 0)  # (receiver q, sender j, ...blocks)
        y = _move(y, 1, 1 + b)  # sender right before the concatenated dimension
        out = np.ascontiguousarray(y)
    else:
        blk = s[:a] + (s[a] // m,) + s[a + 1 :]
        out = np.empty((n_dev,) + blk[:b] + (m,) + blk[b:], dtype=flat.dtype)
        if out[0, ...].nbytes // m >= _BLOCKWISE_BYTES:
            # Large blocks: each copied once, from sender to receiver (no gathered copy).
            src = _move(xs, 1 + a, 1)  # (sender, block q, ...block)
            dst = _move(out, 1 + b, 1)  # (receiver, from sender j, ...block)
            for grp in axis_index_groups:
                for q, d in enumerate(grp):
                    for j, e in enumerate(grp):
                        dst[d, j, ...] = src[e, q, ...]
        else:
            # Small blocks: fewer Python steps: gather the groups, then one scatter.
            g = _group_array(axis_index_groups, n_dev)
            y = xs[g]  # (groups, sender j, ...per-device with block index q at 2 + a)
            y = _move(y, 2 + a, 1)  # (groups, receiver q, sender j, ...blocks)
            out[g] = _move(y, 2, 2 + b)  # sender right before the concatenated dimension
    t = out.shape
    out = out.reshape(t[: 1 + b] + (t[1 + b] * t[2 + b],) + t[3 + b :])
    return _unflat(out, entries, shape)


def _all_to_all_transpose(ct, x, *, axis_index_groups, axis_name, concat_axis, split_axis, tiled):
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    out = all_to_all_p.bind(
        ct,
        axis_index_groups=axis_index_groups,
        axis_name=axis_name,
        concat_axis=split_axis,
        split_axis=concat_axis,
        tiled=tiled,
    )
    return [out]


all_to_all_p = core.Primitive("all_to_all")
all_to_all_p.def_impl(_all_to_all_impl)
all_to_all_p.def_abstract_eval(_all_to_all_abstract_eval)
deflinear(all_to_all_p, _all_to_all_transpose)
_register(all_to_all_p, _Info("axis_name", lambda p: True, ["concat_axis", "split_axis"]))


def pswapaxes(x: Any, axis_name: Any, axis: int, *, axis_index_groups: Any = None) -> Any:
    """Swap the named axis with positional ``axis`` of ``x``: ``all_to_all`` splitting and
    concatenating along ``axis``.

    >>> spmd.vmap(lambda x: lax.pswapaxes(x, "i", 0), axis_name="i")(jnp.arange(4).reshape(2, 2))
    Array([[0, 2],
           [1, 3]], dtype=int32)
    """
    return all_to_all(x, axis_name, axis, axis, axis_index_groups=axis_index_groups)


# ---------------------------------------------------------------------------------------------
# ppermute, pshuffle


def _check_perm(perm: Any, n: int, names: tuple) -> tuple:
    try:
        pairs = tuple((operator.index(s), operator.index(d)) for s, d in perm)
    except (TypeError, ValueError):
        raise TypeError(
            f"ppermute: perm must be a sequence of (source, destination) pairs of ints, got "
            f"{perm!r}"
        ) from None
    bad = [p for p in pairs if not (0 <= p[0] < n and 0 <= p[1] < n)]
    if bad:
        raise ValueError(
            f"ppermute: perm pairs {bad} name devices outside range({n}) of axis "
            f"{_describe(names)} (size {n}); perm={pairs}."
        )
    srcs = [s for s, _ in pairs]
    dsts = [d for _, d in pairs]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        rs = sorted({s for s in srcs if srcs.count(s) > 1})
        rd = sorted({d for d in dsts if dsts.count(d) > 1})
        what = "; ".join(
            w for w in (rs and f"repeated sources {rs}", rd and f"repeated destinations {rd}") if w
        )
        raise ValueError(
            f"ppermute sources and destinations must be unique, got {pairs} over axis "
            f"{_describe(names)} (size {n}): {what}."
        )
    return pairs


def ppermute(x: Any, axis_name: Any, perm: Sequence[tuple[int, int]]) -> Any:
    """Send ``x`` (a pytree) from device ``src`` to device ``dst`` for each pair of ``perm``;
    devices that receive nothing get zeros.

    Over several axes, devices are numbered in the order the axes are bound (mesh order, first
    axis major) whatever the order of ``axis_name`` -- as JAX does for ppermute (unlike
    axis_index, which follows ``axis_name``).

    >>> f = lambda x: lax.ppermute(x, "i", [(0, 1), (1, 2), (2, 0)])
    >>> spmd.vmap(f, axis_name="i")(jnp.arange(3))
    Array([2, 0, 1], dtype=int32)
    """
    names = _names(axis_name)
    n = prod(_sizes(names, "ppermute"))
    if len(names) > 1:
        order = [a for a, _ in core.trace_ctx.axis_env]
        names = tuple(sorted(names, key=lambda a: len(order) - 1 - order[::-1].index(a)))
    pairs = _check_perm(perm, n, names)
    return tu.tree_map(lambda leaf: ppermute_p.bind(leaf, axis_name=names, perm=pairs), x)


def _ppermute_abstract_eval(x, *, axis_name, perm):
    _check_positions(_names(axis_name), x, "ppermute")
    return x


@functools.lru_cache(maxsize=256)
def _perm_runs(perm: tuple, n: int) -> tuple[tuple, tuple]:
    """``perm`` as runs ``(src, dst, length)`` of consecutive pairs (a shift is two), and the
    devices that receive nothing as runs ``(start, length)``."""
    runs: list[list[int]] = []
    for s, d in sorted(perm):
        if runs and s == runs[-1][0] + runs[-1][2] and d == runs[-1][1] + runs[-1][2]:
            runs[-1][2] += 1
        else:
            runs.append([s, d, 1])
    got = {d for _, d in perm}
    idle: list[list[int]] = []
    for d in range(n):
        if d in got:
            continue
        if idle and d == idle[-1][0] + idle[-1][1]:
            idle[-1][1] += 1
        else:
            idle.append([d, 1])
    return tuple(map(tuple, runs)), tuple(map(tuple, idle))


def _ppermute_impl(x, *, axis_name, perm):
    entries = _names(axis_name)
    _unbound_impl("ppermute", entries)
    flat, shape = _flat_devices(x, entries)
    runs, idle = _perm_runs(perm, flat.shape[0])
    # Each received block is copied once, straight into the result; only devices that receive
    # nothing are zeroed.
    out = np.empty_like(flat)
    for s, d, k in runs:
        out[d : d + k] = flat[s : s + k]
    for d, k in idle:
        out[d : d + k] = 0
    return _unflat(out, entries, shape)


def _ppermute_transpose(ct, x, *, axis_name, perm):
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    inverse = tuple((d, s) for s, d in perm)
    return [ppermute_p.bind(ct, axis_name=axis_name, perm=inverse)]


ppermute_p = core.Primitive("ppermute")
ppermute_p.def_impl(_ppermute_impl)
ppermute_p.def_abstract_eval(_ppermute_abstract_eval)
deflinear(ppermute_p, _ppermute_transpose)
_register(ppermute_p, _Info("axis_name", lambda p: True))


def pshuffle(x: Any, axis_name: Any, perm: Sequence[int]) -> Any:
    """Device i receives ``x`` from device ``perm[i]``. ``perm`` is a permutation of
    ``range(len(perm))``; as in JAX it may be shorter than the axis, and devices from
    ``len(perm)`` on then receive zeros.

    >>> spmd.vmap(lambda x: lax.pshuffle(x, "i", [1, 2, 0]), axis_name="i")(jnp.arange(3))
    Array([1, 2, 0], dtype=int32)
    """
    names = _names(axis_name)
    n = prod(_sizes(names, "pshuffle"))
    try:
        p = [operator.index(i) for i in perm]
    except TypeError:
        raise TypeError(f"pshuffle: perm must be a sequence of ints, got {perm!r}") from None
    if sorted(p) != list(range(len(p))):
        raise ValueError(
            f"`perm` does not represent a permutation: {p} (pshuffle over axis "
            f"{_describe(names)} of size {n} needs each of 0..{len(p) - 1} exactly once)"
        )
    if len(p) > n:
        raise ValueError(
            f"pshuffle: perm {p} has {len(p)} entries, but axis {_describe(names)} has only "
            f"{n} devices"
        )
    return ppermute(x, axis_name, [(src, dst) for dst, src in enumerate(p)])
