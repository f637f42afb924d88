"""``auto_axes`` and ``explicit_axes``: run part of a program with some mesh axes of another type.

Inside ``auto_axes(f, axes=..., out_sharding=...)`` the named mesh axes (all of them by
default) are Auto: the arguments are cast to a mesh where they are (the sharding stays where it
is, only the types lose those axes), ``f`` runs with that mesh in context (``get_abstract_mesh``
says Auto, ``reshard`` refuses them, ``with_sharding_constraint`` takes them), and the results
are resharded to ``out_sharding`` on the outer mesh, in types again. ``explicit_axes(f, axes=...,
in_sharding=...)`` is the converse: the arguments are resharded to ``in_sharding`` over the named
axes (Explicit inside; the others keep their sharding), and the results are cast back, keeping
whatever sharding they have. The casts are ``reshard`` equations, as in JAX's jaxprs.

>>> @functools.partial(auto_axes, out_sharding=P("x", None))  # doctest: +SKIP
... def g(a):
...     return a @ a.T  # free to shard as propagation likes
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from spmd._src import core
from spmd._src import tree_util as tu
from spmd._src.interpreters import sharding_rules
from spmd._src.lax.sharding import (
    _reshard_sharding,
    prefix_targets,
    reshard_p,
    sharding_constraint,
)
from spmd._src.mesh import AxisType, Mesh, get_mesh, use_mesh
from spmd._src.sharding import UNCONSTRAINED, NamedSharding, P


def _region_mesh(who: str, leaves: list) -> Mesh:
    """The mesh the region retypes: the one in context, else the arguments' own."""
    mesh = get_mesh()
    if mesh is not None:
        return mesh
    for x in leaves:
        s = _sharding_of(x)
        if isinstance(s, NamedSharding) and isinstance(s.mesh, Mesh):
            return s.mesh
    raise ValueError(
        f"{who}: no mesh to work on: set one (spmd.set_mesh(mesh)) or pass arguments sharded on one"
    )


def _sharding_of(x: Any) -> Any:
    s = getattr(getattr(x, "_var", None), "sharding", None)  # a traced value's type
    return s if s is not None else getattr(x, "_sharding", None)


def _axes(who: str, mesh: Mesh, axes: Any) -> tuple:
    if axes is None:
        return tuple(mesh.axis_names)
    names = (axes,) if isinstance(axes, str) else tuple(axes)
    for a in names:
        if a not in mesh.axis_names:
            raise KeyError(f"{who}: axis {a!r} is not an axis of the mesh {mesh}")
    return names


def _refuse_manual(who: str, names: tuple, to: AxisType) -> None:
    """Inside shard_map its mesh axes are Manual (bound as named axes in the body): a region
    may not retype them (JAX's NotImplementedError: "none can be in Manual")."""
    bound = {n for n, _ in core.trace_ctx.axis_env}
    manual = [a for a in names if a in bound]
    if manual:
        raise NotImplementedError(
            f"{who}: going from `Manual` AxisType to `{to.name}` AxisType is not allowed: the "
            f"mesh axes {manual} are Manual here (inside shard_map); name only the other axes "
            "with axes=..."
        )


def _retyped(mesh: Mesh, axes: tuple, to: AxisType) -> Mesh:
    types = tuple(to if a in axes else t for a, t in zip(mesh.axis_names, mesh.axis_types))
    return Mesh(mesh.devices, mesh.axis_names, axis_types=types)


def _cast(x: Any, mesh: Mesh) -> Any:
    """``x`` on ``mesh`` (the same devices and names, other axis types), sharded as it is;
    a leaf that is no array (a PartitionSpec passed on to the function) as it is."""
    if not hasattr(x, "dtype") and not isinstance(x, (bool, int, float, complex)):
        return x
    ndim = len(getattr(x, "shape", ()))
    keep = NamedSharding(mesh, P(*([UNCONSTRAINED] * ndim)))
    return sharding_constraint(x, keep, reshard_p)


def _region(kind: str, f: Callable, args, kwargs, axes: Any, to: AxisType, enter, leave):
    """Run ``f`` with the mesh axes ``axes`` of type ``to``: ``enter(who, leaves, inner, names)``
    moves the arguments' leaves onto the retyped mesh ``inner``, ``leave(who, out, outs, mesh)``
    the results' leaves back onto ``mesh``."""
    who = f"{kind}({getattr(f, '__name__', 'f')})"
    leaves, treedef = tu.tree_flatten((args, kwargs))
    mesh = _region_mesh(who, leaves)
    names = _axes(who, mesh, axes)
    _refuse_manual(who, names, to)
    inner = _retyped(mesh, names, to)
    with use_mesh(inner):
        a, kw = tu.tree_unflatten(treedef, enter(who, leaves, inner, names))
        out = f(*a, **kw)
    outs, out_tree = tu.tree_flatten(out)
    with use_mesh(mesh):
        return tu.tree_unflatten(out_tree, leave(who, out, outs, mesh))


def auto_axes(
    f: Callable | None = None, /, *, axes: Any = None, out_sharding: Any = None
) -> Callable:
    """``f`` with the mesh axes ``axes`` (default: all of them) Auto inside; its results
    resharded to ``out_sharding`` (a pytree prefix of PartitionSpecs of the mesh in context, or
    NamedShardings), Explicit again."""
    if f is None:
        return functools.partial(auto_axes, axes=axes, out_sharding=out_sharding)

    def enter(who, leaves, inner, names):
        return [_cast(x, inner) for x in leaves]

    @functools.wraps(f)
    def run(*args: Any, **kwargs: Any) -> Any:
        # As JAX's: without one given here, the call names out_sharding among its keywords.
        sharding = out_sharding if out_sharding is not None else kwargs.pop("out_sharding", None)
        if sharding is None:
            raise TypeError(
                f"auto_axes({getattr(f, '__name__', 'f')}): missing required keyword argument: "
                "'out_sharding'"
            )

        def leave(who, out, outs, mesh):
            targets = prefix_targets(sharding, out, f"{who} out_sharding")
            return [
                sharding_constraint(
                    x, _reshard_sharding(t, len(getattr(x, "shape", ())), who), reshard_p
                )
                for x, t in zip(outs, targets)
            ]

        return _region("auto_axes", f, args, kwargs, axes, AxisType.Auto, enter, leave)

    return run


def explicit_axes(
    f: Callable | None = None, /, *, axes: Any = None, in_sharding: Any = None
) -> Callable:
    """``f`` with the mesh axes ``axes`` (default: all of them) Explicit inside, its
    arguments resharded to ``in_sharding`` over them (a pytree prefix of PartitionSpecs or
    NamedShardings); the results come back with those axes Auto, sharded as they are."""
    if f is None:
        return functools.partial(explicit_axes, axes=axes, in_sharding=in_sharding)

    @functools.wraps(f)
    def run(*args: Any, **kwargs: Any) -> Any:
        who = f"explicit_axes({getattr(f, '__name__', 'f')})"
        # As JAX's: without one given here, the call names in_sharding among its keywords.
        sharding = in_sharding if in_sharding is not None else kwargs.pop("in_sharding", None)
        if sharding is None:
            raise TypeError(f"{who}: missing required keyword argument: 'in_sharding'")
        targets = prefix_targets(sharding, args, f"{who} in_sharding")

        def enter(who, leaves, inner, names):
            # in_sharding covers the positional arguments; keyword arguments (whose leaves come
            # after theirs) go in as they are, as in JAX.
            n = len(targets)
            moved = [_enter(who, x, t, inner, names) for x, t in zip(leaves[:n], targets)]
            return moved + list(leaves[n:])

        def leave(who, out, outs, mesh):
            return [_cast(x, mesh) for x in outs]

        return _region("explicit_axes", f, args, kwargs, axes, AxisType.Explicit, enter, leave)

    return run


def _enter(who: str, x: Any, target: Any, inner: Mesh, names: tuple) -> Any:
    """``x`` resharded to ``target`` over the axes ``names``; its other axes stay as they are."""
    ndim = len(getattr(x, "shape", ()))
    want = _reshard_sharding(target, ndim, who).spec._normalized(ndim)
    have = _sharding_of(x)
    have = have.spec._normalized(ndim) if isinstance(have, NamedSharding) else (None,) * ndim
    taken = {a for e in want for a in _entry_axes(e)}
    spec = []
    for w, h in zip(want, have):
        kept = [a for a in _entry_axes(h) if a not in names and a not in taken]
        spec.append(sharding_rules.as_entry([*_entry_axes(w), *kept]))
    return sharding_constraint(x, NamedSharding(inner, P(*spec)), reshard_p)


def _entry_axes(e: Any) -> tuple:
    if e is None:
        return ()
    return tuple(e) if isinstance(e, tuple) else (e,)


__all__ = ["auto_axes", "explicit_axes"]
