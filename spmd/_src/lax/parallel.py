"""Named-axis collectives: psum, all_gather, psum_scatter, all_to_all, ppermute, axis_index...

A collective names mesh or vmap axes (``'x'``, ``('x', 'y')``). It means something only inside a
map that binds those names (``shard_map``, ``pmap``, ``vmap(axis_name=...)``); in one process
every such map is a ``BatchTrace`` whose batch dimension holds the devices, and a collective is
the batching rule of its primitive.

The protocol between nested traces. A collective's axis entries are names or ints. An int is a
*positional device dimension*: the operand carries those devices stacked along its leading
dimensions. When the trace of axis ``'y'`` meets ``psum(v, ('x', 'y'))`` it moves its batch
dimension to the front of ``v`` and rebinds ``psum`` on its parent with the entries
``('x', 0)``; the trace of ``'x'`` does the same, giving ``(1, 0)``. With no names left the
primitive is a local operation on the stacked devices, and its NumPy kernel performs the one
combined reduction over the device index of the entries in their listed order (first entry
major) -- one left fold, as JAX on CPU does, never a fold over y followed by one over x. A trace
whose axis the collective does not name treats its batch dimension as a per-device dimension
(placed right after the stacked device dimensions).

Results that are the same on every participating device (psum, pmax, pmin, all_gather without
groups, pbroadcast) drop the device dimensions and come back unbatched: computed once.

Numerics: reductions are a left fold in device order (group order within groups), accumulating
in the input dtype, so every device holds the same bits.

>>> f = lambda x: lax.psum(x, "i")
>>> spmd.vmap(f, axis_name="i")(jnp.arange(4.0))
Array([6., 6., 6., 6.], dtype=float32)
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src import tree_util as tu
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching
from spmd._src.lax import elementwise as lax_elem
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.rules import bdim_at_front, deflinear, moveaxis
from spmd._src.util import prod

# ---------------------------------------------------------------------------------------------
# Axis names, sizes and groups


def _names(axis_name: Any) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)


def _bound_axes() -> str:
    env = core.trace_ctx.axis_env
    if not env:
        return "no axis is bound here"
    return "bound axes: " + ", ".join(f"{n!r} (size {s})" for n, s in env)


def _axis_size(name: Any, fn: str) -> int:
    for n, s in reversed(core.trace_ctx.axis_env):
        if n == name:
            return s
    raise NameError(
        f"unbound axis name: {name}. {fn} over axis {name!r} must run inside a map that binds "
        f"that name: spmd.shard_map (a mesh axis), spmd.pmap(axis_name={name!r}) or "
        f"spmd.vmap(axis_name={name!r}); {_bound_axes()}."
    )


def _sizes(names: tuple, fn: str) -> list[int]:
    return [_axis_size(n, fn) for n in names]


def _describe(names: tuple) -> str:
    return repr(names[0]) if len(names) == 1 else repr(names)


def _check_groups(groups: Any, names: tuple, n: int, fn: str, *, equal: bool) -> Any:
    """``groups`` as a tuple of tuples after checking that they partition range(n)."""
    if groups is None:
        return None
    try:
        gs = tuple(tuple(operator.index(i) for i in g) for g in groups)
    except TypeError:
        raise TypeError(
            f"{fn}: axis_index_groups must be a sequence of sequences of ints, got {groups!r}"
        ) from None
    where = f"{fn}: axis_index_groups {[list(g) for g in gs]} over axis {_describe(names)}"
    flat = [i for g in gs for i in g]
    bad = sorted({i for i in flat if not 0 <= i < n})
    if bad:
        raise ValueError(
            f"axis_index_groups must cover all indices exactly once. {where} (size {n}) name "
            f"indices {bad}, outside range({n})."
        )
    rep = sorted({i for i in flat if flat.count(i) > 1})
    if rep:
        raise ValueError(
            f"axis_index_groups must cover all indices exactly once. {where} (size {n}) "
            f"repeat indices {rep}."
        )
    miss = sorted(set(range(n)) - set(flat))
    if miss:
        raise ValueError(
            f"axis_index_groups must cover all indices exactly once. {where} (size {n}) "
            f"miss indices {miss}."
        )
    if any(not g for g in gs):
        raise ValueError(f"{where}: a group is empty.")
    if equal and len({len(g) for g in gs}) > 1:
        raise ValueError(
            f"{where}: {fn} needs groups of equal size, got sizes {[len(g) for g in gs]}."
        )
    return gs


# Axes under a shard_map with check_vma=True while its body is traced: psum over them binds
# psum_invariant (its per-device transpose is the identity, JAX's typed semantics).
class _VmaContext(threading.local):
    def __init__(self) -> None:
        self.axes: frozenset = frozenset()


_vma_ctx = _VmaContext()


class vma_checked_axes:
    """Context manager: ``axes`` are manual axes of a shard_map with check_vma=True."""

    def __init__(self, axes) -> None:
        self.axes = frozenset(axes)

    def __enter__(self) -> None:
        self.prev = _vma_ctx.axes
        _vma_ctx.axes = self.prev | self.axes

    def __exit__(self, *exc) -> None:
        _vma_ctx.axes = self.prev


# ---------------------------------------------------------------------------------------------
# The entries protocol (see the module docstring)


def _is_pos(e: Any) -> bool:
    return type(e) is int


def _npos(entries: tuple) -> int:
    return sum(1 for e in entries if _is_pos(e))


def _named(entries: tuple) -> tuple:
    return tuple(e for e in entries if not _is_pos(e))


def _check_positions(entries: tuple, aval: ShapedArray, fn: str) -> int:
    k = _npos(entries)
    pos = sorted(e for e in entries if _is_pos(e))
    if pos != list(range(k)) or aval.ndim < k:
        raise TypeError(
            f"{fn}: positional device dimensions {tuple(entries)} must be the leading "
            f"dimensions of the operand (shape {aval.shape})"
        )
    return k


class _Info:
    """How the generic batching rule reads and rewrites one collective's parameters."""

    def __init__(
        self,
        key: str,
        varying: Callable[[dict], bool],
        shift: Sequence[str] = (),
    ) -> None:
        self.key = key  # the parameter holding the axis entries
        self.varying = varying  # does the result keep the device dimensions?
        self.shift = tuple(shift)  # per-device dimension parameters

    def entries(self, params: dict) -> tuple:
        return _names(params[self.key])

    def with_entries(self, params: dict, entries: tuple) -> dict:
        new = dict(params)
        new[self.key] = entries
        return new

    def shifted(self, params: dict) -> dict:
        new = dict(params)
        for k in self.shift:
            new[k] = new[k] + 1
        return new


_infos: dict[core.Primitive, _Info] = {}


def _collective_batcher(prim: core.Primitive) -> Callable:
    info = _infos[prim]

    def rule(axis_data, vals, dims, **params):
        (x,), (d,) = vals, dims
        entries = info.entries(params)
        name = axis_data.name
        if name is not None and name in entries:
            # This trace's axis: its devices become the front positional dimension.
            x = bdim_at_front(x, d, axis_data.size)
            new = tuple(0 if e == name else e + 1 if _is_pos(e) else e for e in entries)
            out = prim.bind(x, **info.with_entries(params, new))
            return out, (0 if info.varying(params) else None)
        # Another axis: its batch dimension is a per-device dimension, after the stacked ones.
        k = _npos(entries)
        x = moveaxis(x, d, k)
        out = prim.bind(x, **info.shifted(params))
        return out, (k if info.varying(params) else 0)

    return rule


def _register(prim: core.Primitive, info: _Info) -> None:
    _infos[prim] = info
    batching.primitive_batchers[prim] = _collective_batcher(prim)
    batching.axis_name_params[prim] = lambda params: _named(info.entries(params))


def _unbound_impl(fn: str, entries: tuple) -> None:
    names = _named(entries)
    if names:
        raise NameError(
            f"unbound axis name: {names[0]}. {fn} reached execution outside any map binding "
            f"axis {names[0]!r} (was a jaxpr traced with make_jaxpr(axis_env=...) evaluated "
            "outside its map?)."
        )


def _flat_devices(x: np.ndarray, entries: tuple) -> tuple[np.ndarray, tuple]:
    """The stacked devices of ``x`` as one leading dimension, in the entries' order."""
    k = len(entries)
    perm = tuple(entries) + tuple(range(k, x.ndim))
    if perm != tuple(range(x.ndim)):
        x = np.transpose(x, perm)
    shape = x.shape[:k]
    return x.reshape((prod(shape),) + x.shape[k:]), shape


def _unflat_devices(y: np.ndarray, entries: tuple, shape: tuple) -> np.ndarray:
    """Inverse of ``_flat_devices`` for a per-device result ``y`` (devices first)."""
    k = len(entries)
    y = y.reshape(tuple(shape) + y.shape[1:])
    inv = tuple(int(i) for i in np.argsort(entries)) + tuple(range(k, y.ndim))
    return y if inv == tuple(range(y.ndim)) else np.transpose(y, inv)


_BF16 = np.dtype(dtypes.bfloat16)


def _fold(op: Callable, xs: np.ndarray) -> np.ndarray:
    """``op(...op(op(xs[0], xs[1]), xs[2])...)``: a left fold over the leading dimension, in
    the input dtype (NumPy's own reductions may sum pairwise). bfloat16 sums accumulate in
    float32 and round once, as XLA's CPU all-reduce does (float16 ones round every step)."""
    if xs.shape[0] == 1:
        return xs[0].copy()
    if xs.dtype == _BF16 and op is np.add:
        return _fold(op, xs.astype(np.float32)).astype(_BF16)
    acc = np.empty(xs.shape[1:], dtype=xs.dtype)
    op(xs[0], xs[1], out=acc)
    for i in range(2, xs.shape[0]):
        op(acc, xs[i], out=acc)
    return acc


def _group_array(groups, n: int) -> np.ndarray:
    return np.arange(n)[None] if groups is None else np.asarray(groups, dtype=np.int64)


def _group_reduce(op: Callable, flat: np.ndarray, groups) -> np.ndarray:
    """Per device, the fold over its group (the result keeps the device dimension)."""
    n = flat.shape[0]
    if len({len(g) for g in groups}) == 1:
        g = _group_array(groups, n)
        sums = _fold(op, np.moveaxis(flat[g], 1, 0))  # (num_groups, ...)
        owner = np.empty(n, dtype=np.int64)
        for i, grp in enumerate(groups):
            owner[list(grp)] = i
        return sums[owner]
    out = np.empty_like(flat)
    for grp in groups:
        out[list(grp)] = _fold(op, flat[list(grp)])
    return out


# ---------------------------------------------------------------------------------------------
# psum, pmax, pmin (and psum_invariant, pmean)


def _reduction_abstract_eval(fn):
    def rule(x, *, axes, axis_index_groups=None):
        k = _check_positions(axes, x, fn)
        if axis_index_groups is None:
            return ShapedArray(x.shape[k:], x.dtype, x.weak_type)
        return x

    return rule


def _reduction_impl(fn, op):
    def impl(x, *, axes, axis_index_groups=None):
        _unbound_impl(fn, axes)
        flat, shape = _flat_devices(x, axes)
        if flat.dtype.kind in "iub" and op is np.add:
            # Integer sums are exact in any order (wrapping included).
            if axis_index_groups is None:
                return np.add.reduce(flat, axis=0, dtype=flat.dtype)
        if axis_index_groups is None:
            return _fold(op, flat)
        return _unflat_devices(_group_reduce(op, flat, axis_index_groups), axes, shape)

    return impl


def _reduction_varying(params):
    return params.get("axis_index_groups") is not None


def _bind_reduction(prim, fn, x, axis_name, axis_index_groups):
    names = _names(axis_name)
    if not names:
        return x
    n = prod(_sizes(names, fn))
    groups = _check_groups(axis_index_groups, names, n, fn, equal=False)

    def one(leaf):
        if isinstance(leaf, (bool, int, float, complex)) and prim is psum_p:
            # A Python constant is the same on every device: the sum is known statically.
            if groups is None:
                return leaf * n
            if len({len(g) for g in groups}) == 1:
                return leaf * len(groups[0])
        if dtypes.dtype(leaf) == np.bool_ and prim is psum_p:
            leaf = lax_elem.convert_element_type(leaf, np.int32)
        p = prim
        if p is psum_p and groups is None and set(names) <= _vma_ctx.axes:
            return psum_invariant_p.bind(leaf, axes=names)
        return p.bind(leaf, axes=names, axis_index_groups=groups)

    return tu.tree_map(one, x)


def psum(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """Sum ``x`` (a pytree) over the devices of the named axis or axes.

    Every device gets the same bits: a left fold in device order (first named axis major;
    within a group, in the group's listed order). Groups may have different sizes.

    >>> spmd.vmap(lambda x: lax.psum(x, "i"), axis_name="i")(jnp.arange(4))
    Array([6, 6, 6, 6], dtype=int32)
    """
    return _bind_reduction(psum_p, "psum", x, axis_name, axis_index_groups)


psum_p = core.Primitive("psum")
psum_p.def_impl(_reduction_impl("psum", np.add))
psum_p.def_abstract_eval(_reduction_abstract_eval("psum"))


def _psum_transpose(ct, x, *, axes, axis_index_groups):
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    k = _npos(axes)
    if k == len(axes) and axis_index_groups is None:
        # Global form: the sum of the stacked devices; each device's cotangent is the sum's.
        shape = x.aval.shape
        return [lax_shape.broadcast_in_dim(ct, shape, tuple(range(k, len(shape))))]
    if k and k != len(axes):
        raise NotImplementedError(
            "transposing psum over both named and vmapped axes at once is not supported"
        )
    # Per device (as in pmap and vmap): the sum's cotangent is summed over the same devices.
    return [psum_p.bind(ct, axes=axes, axis_index_groups=axis_index_groups)]


deflinear(psum_p, _psum_transpose)
_register(psum_p, _Info("axes", _reduction_varying))


def _psum_invariant_impl(x, *, axes):
    return _reduction_impl("psum", np.add)(x, axes=axes)


def _psum_invariant_vmap(axis_data, vals, dims, *, axes):
    if axis_data.name is not None and axis_data.name in axes:
        # Once its axis is stacked, the sum is the plain (global) psum.
        return _collective_batcher(psum_p)(axis_data, vals, dims, axes=axes, axis_index_groups=None)
    # Another axis (its names are never positional: resolving turns it into psum).
    (x,), (d,) = vals, dims
    return psum_invariant_p.bind(moveaxis(x, d, 0), axes=axes), 0


psum_invariant_p = core.Primitive("psum_invariant")
psum_invariant_p.def_impl(_psum_invariant_impl)
psum_invariant_p.def_abstract_eval(
    lambda x, *, axes: _reduction_abstract_eval("psum")(x, axes=axes)
)
# Typed per-device semantics (shard_map with check_vma=True): the result is one value for all
# devices, so its cotangent is passed to each device as it is (JAX's pvary).
deflinear(psum_invariant_p, lambda ct, x, *, axes: [ct])
_infos[psum_invariant_p] = _Info("axes", lambda p: False)
batching.primitive_batchers[psum_invariant_p] = _psum_invariant_vmap
batching.axis_name_params[psum_invariant_p] = lambda params: _named(_names(params["axes"]))


def pmax(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The maximum of ``x`` (a pytree) over the devices of the named axis or axes.

    >>> spmd.vmap(lambda x: lax.pmax(x, "i"), axis_name="i")(jnp.arange(4))
    Array([3, 3, 3, 3], dtype=int32)
    """
    return _bind_reduction(pmax_p, "pmax", x, axis_name, axis_index_groups)


def pmin(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The minimum of ``x`` (a pytree) over the devices of the named axis or axes.

    >>> spmd.vmap(lambda x: lax.pmin(x, "i"), axis_name="i")(jnp.arange(4))
    Array([0, 0, 0, 0], dtype=int32)
    """
    return _bind_reduction(pmin_p, "pmin", x, axis_name, axis_index_groups)


def _pminmax_jvp(prim):
    # The tangent of the device holding the extremum; ties share it equally (as reduce_max's
    # rule does). Built from psum, so it transposes.
    def jvp(primals, tangents, out, *, axes, axis_index_groups):
        (x,), (t,) = primals, tangents
        t = ad.instantiate(t)
        k = _npos(axes)
        if k and axis_index_groups is None:
            shape = core.get_aval(x).shape
            out_b = lax_shape.broadcast_in_dim(out, shape, tuple(range(k, len(shape))))
        else:
            out_b = out
        hit = lax_elem.convert_element_type(lax_elem.eq(x, out_b), core.get_aval(t).dtype)
        num = psum_p.bind(lax_elem.mul(t, hit), axes=axes, axis_index_groups=axis_index_groups)
        den = psum_p.bind(hit, axes=axes, axis_index_groups=axis_index_groups)
        return lax_elem.div(num, den)

    return jvp


pmax_p = core.Primitive("pmax")
pmax_p.def_impl(_reduction_impl("pmax", np.maximum))
pmax_p.def_abstract_eval(_reduction_abstract_eval("pmax"))
ad.primitive_jvps[pmax_p] = _pminmax_jvp(pmax_p)
_register(pmax_p, _Info("axes", _reduction_varying))

pmin_p = core.Primitive("pmin")
pmin_p.def_impl(_reduction_impl("pmin", np.minimum))
pmin_p.def_abstract_eval(_reduction_abstract_eval("pmin"))
ad.primitive_jvps[pmin_p] = _pminmax_jvp(pmin_p)
_register(pmin_p, _Info("axes", _reduction_varying))


def pmean(x: Any, axis_name: Any, *, axis_index_groups: Any = None) -> Any:
    """The mean of ``x`` (a pytree) over the devices of the named axis or axes (integers give
    floats): ``psum`` divided by the number of devices summed over.

    >>> spmd.vmap(lambda x: lax.pmean(x, "i"), axis_name="i")(jnp.arange(4.0))
    Array([1.5, 1.5, 1.5, 1.5], dtype=float32)
    """
    names = _names(axis_name)
    n = prod(_sizes(names, "pmean"))
    groups = _check_groups(axis_index_groups, names, n, "pmean", equal=False)
    total = psum(x, axis_name, axis_index_groups=groups)
    if groups is not None:
        sizes = {len(g) for g in groups}
        if len(sizes) > 1:
            # Each device divides by its own group's size.
            count = psum(np.ones((), np.int32), axis_name, axis_index_groups=groups)
            n = lax_elem.convert_element_type(count, dtypes.default_float_dtype())
        else:
            n = sizes.pop()

    def one(v):
        if isinstance(v, (bool, int, float, complex)):
            return v / n
        if not dtypes.issubdtype(dtypes.dtype(v), np.inexact):
            v = lax_elem.convert_element_type(v, dtypes.default_float_dtype())
        return lax_elem.div(
            v, float(n) if isinstance(n, int) else lax_elem.convert_element_type(n, v.dtype)
        )

    return tu.tree_map(one, total)


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
        raise ValueError(f"ppermute sources and destinations must be unique, got {pairs} ({what}).")
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
    """Device i receives ``x`` from device ``perm[i]`` (``perm`` a permutation).

    >>> spmd.vmap(lambda x: lax.pshuffle(x, "i", [1, 2, 0]), axis_name="i")(jnp.arange(3))
    Array([1, 2, 0], dtype=int32)
    """
    names = _names(axis_name)
    n = prod(_sizes(names, "pshuffle"))
    p = [operator.index(i) for i in perm]
    if sorted(p) != list(range(n)):
        raise ValueError(
            f"`perm` does not represent a permutation: {list(perm)} (pshuffle over axis "
            f"{_describe(names)} of size {n} needs each of 0..{n - 1} exactly once)"
        )
    return ppermute(x, axis_name, [(src, dst) for dst, src in enumerate(p)])


# ---------------------------------------------------------------------------------------------
# axis_index, axis_size


def axis_index(axis_name: Any) -> Any:
    """This device's index along the named axis (for several names, the combined index with
    the first name major).

    >>> spmd.vmap(lambda x: x + lax.axis_index("i"), axis_name="i")(jnp.zeros(3, jnp.int32))
    Array([0, 1, 2], dtype=int32)
    """
    names = _names(axis_name)
    sizes = _sizes(names, "axis_index")
    if len(names) == 1:
        return axis_index_p.bind(axis_name=names[0])
    # As JAX builds it: sum over the names, last first, of index times stride.
    out: Any = 0
    stride = 1
    for name, size in zip(reversed(names), reversed(sizes)):
        out = lax_elem.add(out, lax_elem.mul(axis_index_p.bind(axis_name=name), stride))
        stride *= size
    return out


def _axis_index_impl(*, axis_name):
    _unbound_impl("axis_index", (axis_name,))
    raise NameError(f"unbound axis name: {axis_name}")


def _axis_index_vmap(axis_data, vals, dims, *, axis_name):
    return lax_shape.iota(np.int32, axis_data.size), 0


axis_index_p = core.Primitive("axis_index")
axis_index_p.def_impl(_axis_index_impl)
axis_index_p.def_abstract_eval(lambda *, axis_name: ShapedArray((), np.dtype(np.int32)))
ad.primitive_jvps[axis_index_p] = lambda primals, tangents, out, **p: ad.Zero(
    ShapedArray((), dtypes.float0)
)
batching.primitive_batchers[axis_index_p] = _axis_index_vmap
batching.axis_name_params[axis_index_p] = lambda params: (params["axis_name"],)


def axis_size(axis_name: Any) -> int:
    """The number of devices along the named axis (or axes), as a Python int.

    >>> spmd.vmap(lambda x: x * lax.axis_size("i"), axis_name="i")(jnp.ones(3))
    Array([3., 3., 3.], dtype=float32)
    """
    return prod(_sizes(_names(axis_name), "axis_size"))


# ---------------------------------------------------------------------------------------------
# pbroadcast (from one source device), pvary / pcast (replication casts)


def pbroadcast(x: Any, axis_name: Any, source: int) -> Any:
    """Every device of the named axis gets ``x`` of device ``source``.

    >>> spmd.vmap(lambda x: lax.pbroadcast(x, "i", 2), axis_name="i")(jnp.arange(4))
    Array([2, 2, 2, 2], dtype=int32)
    """
    names = _names(axis_name)
    n = prod(_sizes(names, "pbroadcast"))
    src = operator.index(source)
    if not 0 <= src < n:
        raise ValueError(
            f"pbroadcast: source {source} is outside range({n}) of axis {_describe(names)}"
        )
    return tu.tree_map(lambda leaf: pbroadcast_p.bind(leaf, axis_name=names, source=src), x)


def _pbroadcast_abstract_eval(x, *, axis_name, source):
    k = _check_positions(_names(axis_name), x, "pbroadcast")
    return ShapedArray(x.shape[k:], x.dtype, x.weak_type)


def _pbroadcast_impl(x, *, axis_name, source):
    entries = _names(axis_name)
    _unbound_impl("pbroadcast", entries)
    flat, _ = _flat_devices(x, entries)
    return flat[source].copy()


def _pbroadcast_transpose(ct, x, *, axis_name, source):
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    entries = _names(axis_name)
    k = _npos(entries)
    if k == len(entries):
        # Global form: only the source device's value was used.
        shape = x.aval.shape
        lead = shape[:k]
        ordered = tuple(lead[e] for e in entries)
        onehot = np.zeros(prod(ordered), dtype=x.aval.dtype)
        onehot[source] = 1
        onehot = np.transpose(onehot.reshape(ordered), np.argsort(entries))
        mask = lax_shape.broadcast_in_dim(
            core.make_concrete(np.ascontiguousarray(onehot), False), shape, tuple(range(k))
        )
        full = lax_shape.broadcast_in_dim(ct, shape, tuple(range(k, len(shape))))
        return [lax_elem.mul(full, mask)]
    if k:
        raise NotImplementedError(
            "transposing pbroadcast over both named and vmapped axes at once is not supported"
        )
    # Per device: the source receives the sum of every device's cotangent, the others zero.
    total = psum_p.bind(ct, axes=entries, axis_index_groups=None)
    here = lax_elem.eq(axis_index(entries), np.int32(source))
    return [lax_elem.select_n(here, lax_shape.full_like(total, 0), total)]


pbroadcast_p = core.Primitive("pbroadcast")
pbroadcast_p.def_impl(_pbroadcast_impl)
pbroadcast_p.def_abstract_eval(_pbroadcast_abstract_eval)
deflinear(pbroadcast_p, _pbroadcast_transpose)
_register(pbroadcast_p, _Info("axis_name", lambda p: False))


def pvary(x: Any, axis_name: Any) -> Any:
    """Mark ``x`` (a pytree) as varying over the named axes; the values are unchanged.

    >>> spmd.vmap(lambda x: lax.pvary(x, "i"), axis_name="i")(jnp.arange(2))
    Array([0, 1], dtype=int32)
    """
    names = _names(axis_name)
    _sizes(names, "pvary")
    return tu.tree_map(lambda leaf: pvary_p.bind(leaf, axes=names), x)


def pcast(x: Any, axis_name: Any, *, to: str) -> Any:
    """Cast the replication type of ``x`` over the named axes (``to='varying'``: ``pvary``);
    the values are unchanged."""
    if to not in ("varying", "invariant", "reduced", "unreduced"):
        raise ValueError(f"pcast: to must be 'varying' (or another vma type), got {to!r}")
    if to == "varying":
        return pvary(x, axis_name)
    _sizes(_names(axis_name), "pcast")
    return x


def _pvary_vmap(axis_data, vals, dims, *, axes):
    # Values are unchanged; an unbatched value already stands for identical copies.
    (x,), (d,) = vals, dims
    return x, d


def _pvary_transpose(ct, x, *, axes):
    if type(ct) is ad.Zero:
        return [ad.Zero(x.aval)]
    # A value made varying is used once per device: its cotangent sums them (JAX's rule).
    return [psum_invariant_p.bind(ct, axes=axes)]


pvary_p = core.Primitive("pvary")
pvary_p.def_impl(lambda x, *, axes: x)
pvary_p.def_abstract_eval(lambda x, *, axes: x)
deflinear(pvary_p, _pvary_transpose)
batching.primitive_batchers[pvary_p] = _pvary_vmap


# ---------------------------------------------------------------------------------------------
# Varying manual axes: how each collective changes the set of mesh axes a value varies over
# (read by shard_map's replication check). rule(params, vma_in) -> vma_out.


def _minus(params, vma, key="axes"):
    return vma - set(_named(_names(params[key])))


def _plus(params, vma, key="axis_name"):
    return vma | set(_named(_names(params[key])))


def _reduction_vma(params, vma):
    if params.get("axis_index_groups") is not None:
        return _plus(params, vma, "axes")
    return _minus(params, vma)


vma_rules: dict[core.Primitive, Callable] = {
    psum_p: _reduction_vma,
    psum_invariant_p: _reduction_vma,
    pmax_p: _reduction_vma,
    pmin_p: _reduction_vma,
    all_gather_p: _plus,
    all_gather_invariant_p: lambda params, vma: _minus(params, vma, "axis_name"),
    reduce_scatter_p: _plus,
    all_to_all_p: _plus,
    ppermute_p: _plus,
    pbroadcast_p: lambda params, vma: _minus(params, vma, "axis_name"),
    pvary_p: lambda params, vma: _plus(params, vma, "axes"),
    axis_index_p: lambda params, vma: {params["axis_name"]},
}

collective_primitives = frozenset(vma_rules)


__all__ = [
    "all_gather",
    "all_gather_invariant_p",
    "all_gather_p",
    "all_to_all",
    "all_to_all_p",
    "axis_index",
    "axis_index_p",
    "axis_size",
    "pbroadcast",
    "pbroadcast_p",
    "pcast",
    "pmax",
    "pmax_p",
    "pmean",
    "pmin",
    "pmin_p",
    "ppermute",
    "ppermute_p",
    "pshuffle",
    "psum",
    "psum_invariant_p",
    "psum_p",
    "psum_scatter",
    "pswapaxes",
    "pvary",
    "pvary_p",
    "reduce_scatter_p",
]
