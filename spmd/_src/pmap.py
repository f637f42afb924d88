"""pmap: map a function over devices, one slice of the mapped axis per device.

``pmap(f, axis_name)`` is shard_map over a 1-D mesh of the first n devices (n the size of the
mapped axis), with the mapped dimension squeezed out of each device's block on the way in and
put back on the way out -- as current JAX implements it. Results are Arrays sharded over the
devices. Nested pmaps, ``jit(pmap)``, ``pmap(jit)``, ``pmap(vmap)`` and ``vmap(pmap)`` follow
from shard_map's rules.

In a job of several processes (``spmd run -n N``), pmap maps over every device of every process,
as JAX's does: each process passes and gets back its own part (the mapped axis as long as its
number of devices), and the collectives inside span all processes.

>>> spmd.pmap(lambda x: x * 2)(jnp.arange(4.0))
Array([0., 2., 4., 6.], dtype=float32)
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Hashable, Iterable
from typing import Any

import numpy as np

from spmd._src import api, core, debug_floats
from spmd._src import devices as dev
from spmd._src import tree_util as tu
from spmd._src.config import config
from spmd._src.lax import shape as lax_shape
from spmd._src.mesh import Mesh
from spmd._src.shard_map import Executable, _bind, _fun_name, _prepare, array_signature
from spmd._src.sharding import P
from spmd._src.util import LRU

# The axis name of a pmap given none (JAX 0.10's, as its printed jaxprs show).
_UNNAMED_AXIS = "_internal_pmap_axis_name"


def _ensure_tuple(x: Any) -> tuple:
    if x is None:
        return ()
    if isinstance(x, int):
        return (x,)
    return tuple(x)


def _arg_names(fun: Callable, n: int) -> list[str]:
    import inspect

    try:
        params = [
            p.name
            for p in inspect.signature(fun).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        params = []
    return [params[i] if i < len(params) else f"args[{i}]" for i in range(n)]


def _type_str(x: Any) -> str:
    a = core.get_aval(x)
    return f"{a.dtype.name}[{','.join(map(str, a.shape))}]"


def _flat_axes(
    in_axes: Any, args: tuple, names: list[str], describe: Callable | None = None
) -> tuple[list, list, list, Any]:
    """Leaves of ``args``, their mapped axis (None: broadcast), their names, and treedef.
    ``describe(i, path)`` names the leaf at ``path`` of argument ``i`` (default: the
    parameter's name and the path)."""
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    leaves, treedef = tu.tree_flatten(args)
    if isinstance(in_axes, int) or in_axes is None:
        axes = [in_axes] * len(leaves)
    else:
        if not isinstance(in_axes, tuple) or len(in_axes) != len(args):
            raise ValueError(
                f"pmap in_axes must be an int, None, or a tuple with one entry per positional "
                f"argument, got {in_axes!r} for {len(args)} arguments"
            )
        axes = []
        for i, (a, ax) in enumerate(zip(args, in_axes)):
            try:
                axes.extend(tu.broadcast_prefix(ax, a, is_leaf=lambda x: x is None))
            except ValueError as e:
                raise ValueError(
                    f"pmap in_axes entry {ax!r} is not a prefix of argument {names[i]}: {e}"
                ) from None
    descs = []
    for i, a in enumerate(args):
        for path, _ in tu.tree_flatten_with_path(a)[0]:
            descs.append(describe(i, path) if describe else names[i] + tu.keystr(path))
    out_axes = []
    for x, d, desc in zip(leaves, axes, descs):
        if d is None:
            out_axes.append(None)
            continue
        nd = np.ndim(x)
        d = operator.index(d)
        if not -nd <= d < nd:
            raise ValueError(
                f"pmap was requested to map its argument along axis {d}, which implies that its "
                f"rank should be at least {d + 1 if d >= 0 else -d}, but is only {nd} "
                f"(argument {desc} of type {_type_str(x)})"
            )
        out_axes.append(d % nd)
    return leaves, out_axes, descs, treedef


def _mapped_size(leaves, axes, descs, axis_size) -> int:
    sizes: dict[int, list] = {}
    for x, d, desc in zip(leaves, axes, descs):
        if d is not None:
            sizes.setdefault(np.shape(x)[d], []).append((desc, d, x))
    if not sizes:
        if axis_size is None:
            raise ValueError(
                "pmap requires at least one argument with a mapped axis (in_axes not None), "
                "or axis_size"
            )
        return operator.index(axis_size)
    if len(sizes) == 1 and (axis_size is None or axis_size in sizes):
        return next(iter(sizes))
    lines = []
    if axis_size is not None:
        lines.append(f"  * the axis_size argument was {axis_size}")
    for size, entries in sizes.items():
        for desc, d, x in entries:
            lines.append(
                f"  * one axis had size {size}: axis {d} of argument {desc} of type {_type_str(x)}"
            )
    raise ValueError(
        "pmap got inconsistent sizes for array axes to be mapped:\n" + ";\n".join(lines)
    )


def _too_many(n: int, n_dev: int, leaves, axes, descs) -> ValueError:
    head = (
        f"compiling computation that requires {n} logical devices, but only {n_dev} XLA "
        f"devices are available (num_replicas={n}, num_partitions=1)"
    )
    example = next((e for e in zip(leaves, axes, descs) if e[1] is not None), None)
    if example is None:
        # Nothing mapped: the size came from axis_size.
        return ValueError(f"{head}\npmap(axis_size={n}) needs {n} devices; there are {n_dev}.")
    x, d, desc = example
    shape = tuple(np.shape(x))
    new = shape[:d] + (n_dev, -1) + shape[d + 1 :]
    hint = ""
    if n % n_dev == 0:
        per = shape[:d] + (n_dev, n // n_dev) + shape[d + 1 :]
        hint = (
            f"\npmap maps axis {d} of its arguments (size {n}) one slice per device, and there "
            f"are {n_dev} devices. To spread {n} rows over them, reshape the mapped axis into "
            f"(devices, rows per device), e.g. {desc}.reshape{new} gives shape {per}, and map "
            f"the function over the rows inside each device: pmap(vmap(f))."
        )
    else:
        hint = (
            f"\npmap maps axis {d} of its arguments (size {n}) one slice per device, and there "
            f"are {n_dev} devices. {n} is not a multiple of {n_dev}: pad the mapped axis to a "
            f"multiple of {n_dev} (e.g. {-(-n // n_dev) * n_dev}), reshape it into (devices, "
            f"rows per device) with {desc}.reshape{new}, and use pmap(vmap(f))."
        )
    return ValueError(head + hint)


def pmap(
    fun: Callable,
    axis_name: Any = None,
    *,
    in_axes: Any = 0,
    out_axes: Any = 0,
    static_broadcasted_argnums: int | Iterable[int] = (),
    devices: Any = None,
    backend: str | None = None,
    axis_size: int | None = None,
    donate_argnums: int | Iterable[int] = (),
) -> Callable:
    """Run ``fun`` once per device on slices of the mapped axis (``in_axes``) of the
    arguments; the results are stacked along ``out_axes`` and sharded over the devices.
    ``axis_name`` names the mapped axis for collectives.

    >>> spmd.pmap(lambda x: lax.psum(x, "i"), axis_name="i")(jnp.arange(4.0))
    Array([6., 6., 6., 6.], dtype=float32)
    """
    if not callable(fun):
        raise TypeError(f"pmap: expected a function as the first argument, got {fun!r}")
    if backend not in (None, "cpu"):
        raise ValueError(f"pmap: backend {backend!r} is not available (only 'cpu')")
    name = axis_name if axis_name is not None else _UNNAMED_AXIS
    static = tuple(sorted({operator.index(i) for i in _ensure_tuple(static_broadcasted_argnums)}))
    _ensure_tuple(donate_argnums)  # accepted; buffers are never donated
    cache = LRU(64)
    fast: dict = {}
    fun_name = _fun_name(fun)
    plain_axes = isinstance(in_axes, int) or in_axes is None

    @functools.wraps(fun)
    def pmapped(*args, **kwargs):
        eager = core.trace_ctx.trace is core.eval_trace
        if eager and debug_floats.enabled and not debug_floats.busy():
            return debug_floats.call_sharded(pmapped, args, kwargs)
        fast_key = None
        if eager and not kwargs and not static and plain_axes:
            # Positional Arrays only: their types key the executable.
            sig = array_signature(args)
            if sig is not None:
                fast_key = (sig, core.trace_ctx.axis_env, config.trace_context())
                exe = fast.get(fast_key)
                if exe is not None:
                    return exe(args)
        if kwargs:
            # Keyword arguments are mapped over axis 0, as in JAX.
            kw_axes = in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args)
            return pmap(
                _KwCall(fun, len(args)),
                name,
                in_axes=(kw_axes, 0),
                out_axes=out_axes,
                devices=devices,
                axis_size=axis_size,
            )(args, kwargs)
        n_args = len(args)
        stat = tuple(i % n_args if n_args else i for i in static)
        statics = tuple((i, args[i]) for i in stat if i < n_args)
        for _, v in statics:
            if not isinstance(v, Hashable):
                raise ValueError(
                    f"pmap({fun_name}): static_broadcasted_argnums arguments must be hashable, "
                    f"got {type(v).__name__} {v!r}"
                )
        dyn = tuple(a for i, a in enumerate(args) if i not in stat)
        names = [nm for i, nm in enumerate(_arg_names(fun, n_args)) if i not in stat]
        dyn_axes = in_axes
        if isinstance(in_axes, (tuple, list)) and len(in_axes) == n_args and stat:
            dyn_axes = tuple(a for i, a in enumerate(in_axes) if i not in stat)
        describe = fun.describe if isinstance(fun, _KwCall) else None
        leaves, axes, descs, treedef = _flat_axes(dyn_axes, dyn, names, describe)
        # Only shapes are read up to here: errors come before any work on the data.
        n = _mapped_size(leaves, axes, descs, axis_size)
        if devices is None and eager and dev.process_count() > 1:
            plan_args = (fun, name, leaves, axes, descs, treedef, statics, n_args, out_axes)
            return _over_processes(fun_name, n, cache, *plan_args)
        devs = list(devices) if devices is not None else dev.local_devices()
        if devices is not None and len(devs) != n:
            raise ValueError(
                f"pmap({fun_name}): the mapped axis has size {n}, but {len(devs)} devices were "
                "passed in devices=...; they must be equal."
            )
        if n > len(devs):
            raise _too_many(n, len(devs), leaves, axes, descs)
        try:
            key = (
                treedef,
                tuple(core.get_aval(x) for x in leaves),
                tuple(axes),
                statics,
                n,
                core.trace_ctx.axis_env,
                config.trace_context(),
            )
            hash(key)
        except TypeError:
            key = None
        plan = cache.get(key) if key is not None else None
        if plan is None:
            plan = _plan(fun, name, n, devs, leaves, axes, descs, treedef, statics, n_args,
                         out_axes)  # fmt: skip
            if key is not None and not plan[0].consts:
                cache[key] = plan
        traced, mesh, manual, staged = plan
        if fast_key is not None and not traced.consts:
            if len(fast) >= 64:
                fast.clear()
            fast[fast_key] = exe = Executable(traced, mesh, manual, False)
            return exe(args)
        # Staged, pmap is a jit of its shard_map, as JAX 0.10 prints it (jit[name=_fun]).
        outs = _bind(traced, mesh, manual, False, leaves) if eager else staged(*leaves)
        return tu.tree_unflatten(traced.out_tree, outs)

    return pmapped


def _over_processes(fun_name, n, cache, fun, name, leaves, axes, *rest) -> Any:
    """pmap in a job of several processes: this process's part of every mapped argument is
    placed on its own devices of a mesh over all devices, and the results' parts on its
    devices are what it gets back."""
    from spmd._src import multiprocess  # lazy: multiprocess runs partitioned programs
    from spmd._src.sharding import NamedSharding

    local, every = dev.local_devices(), dev.devices()
    if n != len(local):
        # (JAX raises AssertionError here, its class is kept.)
        raise AssertionError(
            f"pmap({fun_name}) in a job of {dev.process_count()} processes maps over every "
            f"process's devices: each process passes its own part, as long as its number of "
            f"devices ({len(local)}), but the mapped axis has size {n}."
        )
    mesh = Mesh(np.array(every, dtype=object), (name,))
    placed = [
        x
        if d is None
        else multiprocess.make_from_process_local_data(
            NamedSharding(mesh, P(*([None] * d + [name]))), np.asarray(x), None
        )
        for x, d in zip(leaves, axes)
    ]
    try:
        key = ("processes", tuple(core.get_aval(x) for x in placed), tuple(axes), *rest[1:])
        hash(key)
    except TypeError:
        key = None
    plan = cache.get(key) if key is not None else None
    if plan is None:
        plan = _plan(fun, name, len(every), every, placed, axes, *rest)
        if key is not None and not plan[0].consts:
            cache[key] = plan
    traced, m, manual, _ = plan
    outs = _bind(traced, m, manual, False, placed)
    return tu.tree_unflatten(traced.out_tree, [multiprocess.local_part(o) for o in outs])


class _KwCall:
    """``fun(*args, **kwargs)`` as a function of ``(args, kwargs)`` (how pmap maps keyword
    arguments), whose leaves are described by ``fun``'s own parameter names in errors."""

    def __init__(self, fun: Callable, n_pos: int) -> None:
        self.fun = fun
        self.pos = _arg_names(fun, n_pos)
        self.__name__ = _fun_name(fun)

    def __call__(self, args: tuple, kwargs: dict) -> Any:
        return self.fun(*args, **kwargs)

    def describe(self, i: int, path: tuple) -> str:
        head, rest = path[0], path[1:]
        return (self.pos[head.idx] if i == 0 else str(head.key)) + tu.keystr(rest)


def _plan(fun, name, n, devs, leaves, axes, descs, treedef, statics, n_args, out_axes):
    mesh = Mesh(np.array(devs[:n], dtype=object), (name,))
    in_specs = tuple(P() if d is None else P(*([None] * d + [name])) for d in axes)

    def body(*blocks):
        xs = [b if d is None else lax_shape.squeeze(b, (d,)) for b, d in zip(blocks, axes)]
        dyn = iter(tu.tree_unflatten(treedef, xs))
        static = dict(statics)
        full = [static[i] if i in static else next(dyn) for i in range(n_args)]
        out = fun(*full)
        out_leaves, out_tree = tu.tree_flatten(out)
        oa = _out_axes_leaves(out_axes, out_tree)
        res = []
        for o, a in zip(out_leaves, oa):
            if a is None:
                res.append(o)
                continue
            nd = np.ndim(o) + 1
            a = operator.index(a)
            if not -nd <= a < nd:
                raise ValueError(
                    f"pmap out_axes {a} is out of range for an output of rank {nd - 1}"
                )
            a %= nd
            res.append(lax_shape.expand_dims(o, (a,)))
        specs_box.append([P() if a is None else P(*([None] * (a % (np.ndim(o) + 1)) + [name]))
                          for o, a in zip(out_leaves, oa)])  # fmt: skip
        return tu.tree_unflatten(out_tree, res)

    specs_box: list = []
    traced, m, manual = _prepare(
        body,
        mesh,
        in_specs,
        lambda out_tree: specs_box[-1],
        frozenset({name}),
        False,
        leaves,
        tu.tree_structure(tuple(leaves)),
        descs,
    )

    # One jit per plan, so that tracing pmap again (under vmap, grad...) reuses its cache.
    def _fun(*xs):
        return _bind(traced, m, manual, False, list(xs))

    return traced, m, manual, api.jit(_fun)


def _out_axes_leaves(out_axes: Any, out_tree) -> list:
    if isinstance(out_axes, list):
        out_axes = tuple(out_axes)
    if isinstance(out_axes, int) or out_axes is None:
        return [out_axes] * out_tree.num_leaves
    dummy = tu.tree_unflatten(out_tree, [0] * out_tree.num_leaves)
    try:
        return tu.broadcast_prefix(out_axes, dummy, is_leaf=lambda x: x is None)
    except ValueError as e:
        raise ValueError(f"pmap out_axes must be a prefix of the outputs: {e}") from None


__all__ = ["pmap"]
