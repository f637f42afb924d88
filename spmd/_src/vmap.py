"""vmap: vectorizing map, with named axes for collectives.

>>> import spmd, spmd.numpy as jnp
>>> spmd.vmap(jnp.dot)(jnp.ones((4, 3)), jnp.ones((4, 3)))
Array([3., 3., 3., 3.], dtype=float32)
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from spmd._src import core
from spmd._src import tree_util as tu
from spmd._src.array import Array
from spmd._src.interpreters import batching, sharding_rules
from spmd._src.lax import rules as lax_rules
from spmd._src.lax import shape as lax_shape
from spmd._src.mesh import get_mesh
from spmd._src.sharding import NamedSharding, PartitionSpec, spec_axes


def _fun_name(fun: Callable) -> str:
    return getattr(fun, "__name__", None) or type(fun).__name__


def _arg_names(fun: Callable, n: int) -> list[str]:
    import inspect

    try:
        params = list(inspect.signature(fun).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(n):
        if i < len(params) and params[i].kind in (
            params[i].POSITIONAL_ONLY,
            params[i].POSITIONAL_OR_KEYWORD,
        ):
            names.append(params[i].name)
        elif params and params[-1].kind == params[-1].VAR_POSITIONAL and i >= len(params) - 1:
            names.append(f"{params[-1].name}[{i - len(params) + 1}]")
        else:
            names.append(f"args[{i}]")
    return names


def _check_axis(name: str, d: Any, ndim: int, what: str) -> int | None:
    if d is None:
        return None
    try:
        d = operator.index(d)
    except TypeError:
        raise TypeError(
            f"vmap {name} must be an int, None, or a (nested) container with those types as "
            f"leaves, but got {d!r} for {what}."
        ) from None
    if not -ndim <= d < ndim:
        raise ValueError(
            f"vmap was requested to map its argument along axis {d}, which implies that its "
            f"rank should be at least {d + 1 if d >= 0 else -d}, but is only {ndim} ({what})"
        )
    return d % ndim


def _flat_in_axes(in_axes: Any, args: tuple, fun: Callable) -> tuple[list, list, list, Any]:
    """Flattened args, their mapped axes (None: unmapped), their descriptions, and treedef."""
    if isinstance(in_axes, list):
        # JAX treats a list as a pytree prefix only when it matches the args tuple.
        in_axes = tuple(in_axes)
    names = _arg_names(fun, len(args))
    leaves, treedef = tu.tree_flatten(args)
    if isinstance(in_axes, int) or in_axes is None:
        axes = [in_axes] * len(leaves)
    else:
        if not isinstance(in_axes, tuple) or len(in_axes) != len(args):
            raise ValueError(
                f"vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
                f"positional arguments passed to the function, but got len(in_axes)="
                f"{len(in_axes) if isinstance(in_axes, tuple) else 'n/a'}, len(args)={len(args)}"
            )
        axes = []
        for i, (a, ax) in enumerate(zip(args, in_axes)):
            try:
                axes.extend(tu.broadcast_prefix(ax, a, is_leaf=lambda x: x is None))
            except ValueError as e:
                raise ValueError(
                    f"vmap in_axes specification must be a tree prefix of the corresponding "
                    f"value, got specification {ax!r} for value tree {tu.tree_structure(a)} "
                    f"(argument {names[i]}): {e}"
                ) from None
    descs = []
    for i, a in enumerate(args):
        for path, _ in tu.tree_flatten_with_path(a)[0]:
            descs.append(names[i] + tu.keystr(path))
    return leaves, axes, descs, treedef


def _type_str(x: Any) -> str:
    a = core.get_aval(x)
    return f"{a.dtype.name}[{','.join(map(str, a.shape))}]"


def _axis_size(leaves, axes, descs, axis_size) -> int:
    """The mapped axis size; inconsistent sizes raise listing every mapped argument."""
    sizes: dict[int, list] = {}
    for x, d, desc in zip(leaves, axes, descs):
        if d is not None:
            sizes.setdefault(np.shape(x)[d], []).append((desc, d, x))
    if axis_size is None and len(sizes) == 1:
        return next(iter(sizes))
    if axis_size is not None and (not sizes or list(sizes) == [axis_size]):
        return axis_size
    if not sizes:
        raise ValueError(
            "vmap must have at least one non-None value in in_axes (or be given axis_size)"
        )
    # As JAX words it: the most common size first ("most axes (n of them) ... e.g."), then
    # the others, one line per size, each naming an argument with its axis and type.
    lines = []
    if axis_size is not None:
        lines.append(f"  * the `axis_size` argument was {axis_size}")
    ordered = sorted(sizes.items(), key=lambda kv: -len(kv[1]))
    for rank, (size, entries) in enumerate(ordered):
        desc, d, x = entries[0]
        where = f"axis {d} of argument {desc} of type {_type_str(x)}"
        if len(entries) == 1:
            lines.append(f"  * one axis had size {size}: {where}")
        else:
            which = "most" if rank == 0 else "some"
            lines.append(f"  * {which} axes ({len(entries)} of them) had size {size}, e.g. {where}")
    raise ValueError(
        "vmap got inconsistent sizes for array axes to be mapped:\n" + ";\n".join(lines)
    )


def _check_mapped_shardings(leaves, axes) -> tuple | None:
    """On Explicit mesh axes the mapped dimensions of the mapped inputs must be sharded alike
    (the results' mapped dimension takes that sharding): ValueError otherwise, as in JAX. An
    unplaced input's is unsharded (None). Returns (mesh, spec entry) of that sharding, if
    any."""
    entries, meshes = [], []
    for x, d in zip(leaves, axes):
        if d is not None:
            s = sharding_rules.type_sharding(x)
            entries.append(None if s is None else s.spec._normalized(np.ndim(x))[d])
            meshes.append(None if s is None else s.mesh)
    if not any(e is not None for e in entries):
        return None  # nothing typed: the common case, and no mesh involved
    first = entries[0]
    for e in entries[1:]:
        if spec_axes(e) != spec_axes(first):
            raise ValueError(
                "vmap: the mapped dimensions of its inputs must be sharded alike on Explicit "
                f"mesh axes (the mapped dimension of the results takes that sharding); got "
                f"inconsistent axis specs: {first} vs {e}"
            )
    if not spec_axes(first):
        return None
    return meshes[0], first


def _check_spmd_axis_name(spmd_axis_name: Any, mapped: tuple | None) -> None:
    """``spmd_axis_name`` and inputs whose mapped dimensions are sharded on Explicit mesh axes
    must name the same axes (the results' mapped dimension cannot take two): ValueError
    otherwise, as JAX 0.10's."""
    if spmd_axis_name is None or mapped is None:
        return
    names = (spmd_axis_name,) if isinstance(spmd_axis_name, str) else tuple(spmd_axis_name)
    typed = tuple(spec_axes(mapped[1]))
    if names != typed:
        raise ValueError(
            "Only one of spmd_axis_name or arrays sharded on `Explicit` mesh axis type is "
            f"allowed. Got spmd_axis_name={names} and arrays sharded on "
            f"explicit_mesh_axis={typed} (vmap: the inputs' mapped dimensions are sharded over "
            f"{typed} in their types)"
        )


def _broadcast_out(v: Any, size: int, od: int, mapped: tuple | None) -> Any:
    """An output that does not depend on the mapped axis, broadcast straight into its mapped
    dimension ``od`` of ``size`` (as JAX's vmap, whose jaxprs print the dimensions as NumPy
    ints). On Explicit mesh axes that dimension is split as the inputs' mapped dimensions are
    (``mapped``), the others keeping their sharding in type, where the output's type or the
    context names a mesh (an unplaced constant outside ``set_mesh`` has none, as in JAX)."""
    nd = np.ndim(v)
    shape = list(np.shape(v))
    shape.insert(od, size)
    dims = tuple(np.int64(i if i < od else i + 1) for i in range(nd))
    out = None
    s = None if mapped is None else sharding_rules.type_sharding(v)
    # (A Python or NumPy constant has no mesh in its type even under set_mesh; an array made
    # there has the context's.)
    in_context = get_mesh() is not None and isinstance(v, (Array, core.Tracer))
    if mapped is not None and (s is not None or in_context):
        mesh, entry = mapped
        spec = [None] * nd if s is None else list(s.spec._normalized(nd))
        spec.insert(od, entry)
        out = NamedSharding(mesh, PartitionSpec(*spec))
    return lax_shape.broadcast_in_dim(v, tuple(shape), dims, out_sharding=out)


def vmap(
    fun: Callable,
    in_axes: Any = 0,
    out_axes: Any = 0,
    axis_name: Any = None,
    axis_size: int | None = None,
    spmd_axis_name: Any = None,
) -> Callable:
    """Vectorize ``fun`` over an axis of its arguments (``in_axes``), putting the mapped axis
    of its outputs at ``out_axes``. ``axis_name`` names the axis for collectives.

    >>> spmd.vmap(lambda x, y: x * y, in_axes=(0, None))(jnp.arange(3), 2)
    Array([0, 2, 4], dtype=int32)
    """
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if not callable(fun):
        raise TypeError(f"vmap: expected a function as the first argument, got {fun!r}")

    @functools.wraps(fun)
    def vmapped(*args, **kwargs):
        if kwargs:
            # Keyword arguments are mapped along axis 0, as in JAX.
            return vmap(
                lambda a, kw: fun(*a, **kw),
                in_axes=(in_axes if isinstance(in_axes, tuple) else (in_axes,) * len(args), 0),
                out_axes=out_axes,
                axis_name=axis_name,
                axis_size=axis_size,
                spmd_axis_name=spmd_axis_name,
            )(args, kwargs)
        leaves, axes, descs, treedef = _flat_in_axes(in_axes, args, fun)
        for x in leaves:
            if getattr(x, "is_deleted", None) is not None and x.is_deleted():
                core.get_aval(x)  # a deleted (donated) Array: raises, naming its type
        axes = [
            _check_axis("in_axes", d, np.ndim(x), f"argument {desc}: its shape is {np.shape(x)}")
            for x, d, desc in zip(leaves, axes, descs)
        ]
        size = _axis_size(leaves, axes, descs, axis_size)
        mapped = _check_mapped_shardings(leaves, axes)
        _check_spmd_axis_name(spmd_axis_name, mapped)
        out_box = []

        def flat_fun(*flat):
            out = fun(*tu.tree_unflatten(treedef, flat))
            out_leaves, out_tree = tu.tree_flatten(out)
            out_box.append(out_tree)
            return out_leaves

        axis_data = batching.AxisData(axis_name, size, spmd_axis_name)
        vals, dims = batching.batch_fun(flat_fun, axis_data, leaves, axes)
        out_tree = out_box[0]
        out_spec = _flat_out_axes(out_axes, out_tree)
        outs = []
        for v, d, od in zip(vals, dims, out_spec):
            if od is None:
                if d is not None:
                    raise ValueError(
                        "vmap has mapped output but out_axes is None: an output with "
                        f"out_axes=None must not depend on the mapped axis {axis_name!r}"
                    )
                outs.append(v)
                continue
            nd = np.ndim(v) + (d is None)
            od = _check_axis("out_axes", od, nd, f"an output of shape {np.shape(v)}")
            if d is None:
                outs.append(_broadcast_out(v, size, od, mapped))
                continue
            outs.append(lax_rules.moveaxis(v, d, od))
        return tu.tree_unflatten(out_tree, outs)

    return vmapped


def _flat_out_axes(out_axes: Any, out_tree) -> list:
    if isinstance(out_axes, list):
        out_axes = tuple(out_axes)
    if isinstance(out_axes, int) or out_axes is None:
        return [out_axes] * out_tree.num_leaves
    dummy = tu.tree_unflatten(out_tree, [0] * out_tree.num_leaves)
    try:
        return tu.broadcast_prefix(out_axes, dummy, is_leaf=lambda x: x is None)
    except ValueError as e:
        raise ValueError(
            f"vmap out_axes specification must be a tree prefix of the corresponding value, "
            f"got specification {out_axes!r} for value tree {out_tree}: {e}"
        ) from None
