"""Data movement over named axes: all_gather, psum_scatter, all_to_all (pswapaxes), ppermute
(pshuffle).
"""

from __future__ import annotations

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
from spmd._src.lax.parallel.reductions import _fold
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


def _reduce_scatter_impl(x, *, axis_index_groups, axis_name, axis_size, scatter_dimension, tiled):
    entries = _names(axis_name)
    _unbound_impl("psum_scatter", entries)
    flat, shape = _flat_devices(x, entries)
    n_dev = flat.shape[0]
    g = _group_array(axis_index_groups, n_dev)
    sums = _fold(np.add, np.moveaxis(flat[g], 1, 0))  # (groups, ...per-device)
    sd = scatter_dimension
    s = sums.shape
    m = g.shape[1]
    # Block p of the sum for the member at position p: (groups, members, ...block).
    blocks = sums.reshape(s[: sd + 1] + (m, s[sd + 1] // m) + s[sd + 2 :])
    blocks = np.moveaxis(blocks, sd + 1, 1)
    if not tiled:
        blocks = blocks.reshape(blocks.shape[: sd + 2] + blocks.shape[sd + 3 :])
    per = blocks.reshape((n_dev,) + blocks.shape[2:])
    out = np.empty_like(per)
    out[g.reshape(-1)] = per
    return _unflat_devices(out, entries, shape)


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
    g = _group_array(axis_index_groups, n_dev)
    m = g.shape[1]
    a, b = split_axis, concat_axis
    s = flat.shape[1:]
    xs = flat.reshape((n_dev,) + s[:a] + (m, s[a] // m) + s[a + 1 :])
    y = xs[g]  # (groups, sender j, ...per-device with block index q at 2 + a)
    y = np.moveaxis(y, 2 + a, 1)  # (groups, receiver q, sender j, ...blocks)
    y = np.moveaxis(y, 2, 2 + b)  # sender right before the concatenated dimension
    t = y.shape
    z = y.reshape(t[: 2 + b] + (t[2 + b] * t[3 + b],) + t[4 + b :])
    per = z.reshape((n_dev,) + z.shape[2:])
    out = np.empty_like(per)
    out[g.reshape(-1)] = per
    return _unflat_devices(out, entries, shape)


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


def _ppermute_impl(x, *, axis_name, perm):
    entries = _names(axis_name)
    _unbound_impl("ppermute", entries)
    flat, shape = _flat_devices(x, entries)
    out = np.zeros_like(flat)
    if perm:
        src = [s for s, _ in perm]
        dst = [d for _, d in perm]
        out[dst] = flat[src]
    return _unflat_devices(out, entries, shape)


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
