"""What every collective shares: axis names, sizes and index groups; the positional-entries
protocol and the generic batching rule built on it (see the package docstring); the stacked
devices of an operand as one dimension.
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core
from spmd._src.core import ShapedArray
from spmd._src.interpreters import batching, sharding_rules
from spmd._src.lax.parallel import processes
from spmd._src.lax.rules import bdim_at_front, moveaxis
from spmd._src.util import prod

__all__ = [
    "vma_checked_axes",
]


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
            span = axis_data.span
            if span is None:
                x = bdim_at_front(x, d, axis_data.size)
            elif d is None:
                # The same on every device of the axis: no slice needs to travel.
                x = bdim_at_front(x, None, span.total)
            else:
                # The axis lies in several processes: the whole of it, from the peers.
                what = f"{prim.name} over {name!r} of {core.get_aval(x).str_short()}"
                x = processes.peer_gather(moveaxis(x, d, 0), 0, span, what)
            new = tuple(0 if e == name else e + 1 if _is_pos(e) else e for e in entries)
            out = prim.bind(x, **info.with_entries(params, new))
            if not info.varying(params):
                return out, None
            if span is not None:
                out = processes.local_slice(out, 0, span, axis_data.size)
            return out, 0
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
    sharding_rules.sharding_rules[prim] = _collective_sharding(prim, info)


def _collective_sharding(prim: core.Primitive, info: _Info) -> Callable:
    """Propagation over the mesh axes a shard_map leaves automatic: a collective keeps its
    operand's sharding, except on the dimensions it gathers, scatters or splits (which come
    out unsharded, inserted or dropped as the result's rank says)."""

    def rule(specs, avals, **params):
        (a,) = avals
        spec = list(specs[0] or (None,) * a.ndim)
        dims = [params[k] for k in info.shift]
        for d in dims:
            if d < len(spec):
                spec[d] = None
        out_ndim = prim.abstract_eval(a, **params).ndim
        if out_ndim > a.ndim and dims:
            spec.insert(dims[0], None)
        elif out_ndim < a.ndim and dims:
            del spec[dims[0]]
        return tuple(spec)

    return rule


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


def _group_array(groups, n: int) -> np.ndarray:
    return np.arange(n)[None] if groups is None else np.asarray(groups, dtype=np.int64)
