"""Sharding constraints: ``with_sharding_constraint`` and ``reshard``.

A ``sharding_constraint`` equation is the identity on values; sharding propagation (eager
results and jit's forward pass) gives its result the constraint's sharding.

>>> mesh = spmd.make_mesh((8,), ("x",))
>>> lax.with_sharding_constraint(jnp.arange(8.0), NamedSharding(mesh, P("x"))).sharding.spec
P('x',)
"""

from __future__ import annotations

import functools
import warnings
from typing import Any

from spmd._src import core
from spmd._src import tree_util as tu
from spmd._src.config import config
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching, reduction_states, sharding_rules
from spmd._src.lax.utils import PrintedAs
from spmd._src.mesh import AbstractMesh, AxisType, get_abstract_mesh, get_mesh, traced_context_mesh
from spmd._src.sharding import (
    UNCONSTRAINED,
    IndivisibleError,
    NamedSharding,
    P,
    PartitionSpec,
    Sharding,
    UnevenShardingWarning,
    check_rank,
    nearest_divisible,
    resolve_spec,
    spec_axes,
    uneven_dims,
    uneven_message,
)


def prefix_targets(shardings: Any, x: Any, who: str) -> list:
    """One sharding (or None/P) per leaf of ``x``: ``shardings`` is a pytree prefix of ``x``.
    A mismatch raises ValueError naming both tree structures."""
    if shardings is None or isinstance(shardings, (Sharding, PartitionSpec)):
        return [shardings] * len(tu.tree_leaves(x))
    try:
        return tu.broadcast_prefix(shardings, x, is_leaf=lambda s: s is None)
    except ValueError as e:
        detail = str(e).split("; ", 1)[-1].replace("key path prefix_tree", f"key path {who}")
        raise ValueError(
            f"{who} must be a pytree prefix of the value it applies to: {who} has structure "
            f"{tu.tree_structure(shardings, is_leaf=lambda s: s is None)}, the value has "
            f"structure {tu.tree_structure(x)}. {detail}"
        ) from None


def typed_sharding(sharding: Sharding, ndim: int) -> Sharding:
    """On Explicit mesh axes the sharding is part of the type and JAX writes its spec at full
    rank (``P('y', None)``); elsewhere it stays as given."""
    if isinstance(sharding, NamedSharding) and AxisType.Explicit in sharding.mesh.axis_types:
        if len(sharding.spec) < ndim:
            return sharding.with_spec(sharding.spec._full_rank(ndim))
    return sharding


def _as_sharding(s: Any, who: str) -> Sharding:
    if s is None:
        # With a mesh in context, None asks for a replicated value (as JAX 0.10 gives).
        mesh = get_mesh()
        if mesh is None:
            raise ValueError(
                f"One of {who} arguments got sharding None, which is only allowed with a mesh "
                "in context (it means replicated there). Pass a Sharding, or set a mesh with "
                "spmd.set_mesh(mesh)."
            )
        return NamedSharding(mesh, P())
    if isinstance(s, PartitionSpec):
        return resolve_spec(s, who, RuntimeError)
    if isinstance(s, Sharding):
        return s
    raise TypeError(f"{who}: expected a Sharding or a PartitionSpec, got {type(s).__name__}")


def _aval_of(x: Any) -> ShapedArray:
    return x.aval if isinstance(x, core.Tracer) else core.get_aval(x)


def _uneven(x: Any, sharding: Sharding, who: str) -> Sharding:
    """What a constraint on a dimension its shards do not divide becomes (jax#26946: JAX
    raises eagerly but replicates that dimension silently under jit)."""
    if not isinstance(sharding, NamedSharding):
        return sharding
    shape = tuple(_aval_of(x).shape)
    check_rank(sharding, len(shape))
    bad = uneven_dims(sharding, shape)
    if not bad:
        return sharding
    mode = config.spmd_uneven
    if mode == "pad":
        return sharding
    if mode == "raise" or not isinstance(x, core.Tracer):
        raise IndivisibleError(f"{who}: {uneven_message(sharding, shape, bad)}")
    spec = list(sharding.spec._normalized(len(shape)))
    for i, d, _, axes in bad:
        # As JAX under jit: the longest run of leading axes whose shards divide the size.
        spec[i] = sharding_rules.as_entry(
            sharding_rules.dividing_prefix(axes, d, sharding.mesh.shape)
        )
    while spec and spec[-1] is None:
        spec.pop()
    dims = "; ".join(
        f"dimension {i} of size {d} into {n} shards over mesh axes {axes}, which does not "
        f"divide it (nearest sizes that divide: {nearest_divisible(d, n)})"
        for i, d, n, axes in bad
    )
    warnings.warn(
        f"{who}: {sharding.spec} on a value of shape {shape} splits {dims}. Those dimensions "
        f"keep only the leading mesh axes that divide them (as JAX does under jit, silently), "
        f"giving {P(*spec)}. Use sizes that divide, or spmd.config.update('spmd_uneven', "
        "'pad') to keep the sharding with padded shards ('raise' makes this an error).",
        UnevenShardingWarning,
        stacklevel=4,
    )
    return sharding.with_spec(P(*spec))


class _NoContextMesh:
    """The ``context_mesh`` of a constraint traced with no mesh in context (printed ``Mesh()``,
    as JAX prints it)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Mesh()"


_NO_CONTEXT_MESH = _NoContextMesh()


def _context_mesh() -> Any:
    """The mesh in context as a constraint records it (JAX's ``context_mesh``): the abstract
    mesh that set_mesh/use_mesh/use_abstract_mesh put there, the concrete mesh of the legacy
    ``with mesh:``, or ``_NO_CONTEXT_MESH``."""
    mesh = get_mesh()
    if mesh is not None and traced_context_mesh() is None:
        return mesh  # ``with mesh:``
    abstract = get_abstract_mesh()
    return _NO_CONTEXT_MESH if abstract.empty else abstract


def _check_explicit(x: Any, sharding: Sharding, who: str) -> bool:
    """On Explicit mesh axes a sharding is part of the type, which a constraint does not change
    (reshard does). True when ``sharding``'s mesh is all Explicit: the constraint then only
    checks that ``x`` already has that sharding (AssertionError if not), as JAX's does. A spec
    naming an Explicit axis of a mesh that has Auto axes too raises ValueError."""
    if not isinstance(sharding, NamedSharding) or getattr(sharding.mesh, "_types_defaulted", 0):
        return False
    types = dict(zip(sharding.mesh.axis_names, sharding.mesh.axis_types))
    if types and all(t == AxisType.Explicit for t in types.values()):
        ndim = _aval_of(x).ndim
        have = sharding_rules.type_sharding(x)
        have_spec = P(*(have.spec._normalized(ndim) if have is not None else (None,) * ndim))
        want_spec = P(*sharding.spec._normalized(ndim))
        if have_spec != want_spec:
            raise AssertionError(
                f"{who}: on a mesh whose axes are all Explicit a sharding constraint only checks "
                f"the sharding in the value's type: the value ({_aval_of(x).str_short()}) has "
                f"{have_spec}, the constraint asks for {want_spec}. Use spmd.sharding.reshard "
                "to change it."
            )
        return True
    for e in sharding.spec:
        for a in spec_axes(e):
            if types.get(a) == AxisType.Explicit:
                raise ValueError(
                    f"{who}: a sharding constraint can only name Auto mesh axes; {sharding.spec} "
                    f"names the Explicit axis {a!r} of {sharding.mesh}. Use "
                    "spmd.sharding.reshard to change the sharding on Explicit axes."
                )
    return False


def with_sharding_constraint(x: Any, shardings: Any) -> Any:
    """Constrain the sharding of ``x`` (a pytree; ``shardings`` a matching prefix of Shardings,
    PartitionSpecs with a mesh in context, or None for replicated).

    The equations record the mesh in context (``context_mesh``). A sharding given as a
    PartitionSpec (or None) is placed on the concrete mesh in context but printed on its
    abstract mesh, as JAX prints it (which holds it there); with the legacy ``with mesh:`` it
    prints concretely, as JAX's does. On a mesh whose axes are all Explicit the constraint is a
    check that adds no equation (see ``_check_explicit``).
    """
    who = "with_sharding_constraint"
    leaves, treedef = tu.tree_flatten(x)
    given = prefix_targets(shardings, x, f"{who} shardings")
    context = _context_mesh()
    outs = []
    for leaf, g in zip(leaves, given):
        s = _as_sharding(g, who)
        if _check_explicit(leaf, s, who):
            outs.append(leaf)
            continue
        s = _uneven(leaf, s, who)
        abstract = (g is None or isinstance(g, PartitionSpec)) and isinstance(context, AbstractMesh)
        outs.append(sharding_constraint(leaf, s, context_mesh=context, abstract_spec=abstract))
    return tu.tree_unflatten(treedef, outs)


def _reshard_sharding(s: Any, ndim: int, name: str = "reshard") -> Sharding:
    if isinstance(s, PartitionSpec):
        s = resolve_spec(s, name)
    if not isinstance(s, Sharding):
        raise TypeError(f"{name}: expected a Sharding or a PartitionSpec, got {type(s).__name__}")
    if isinstance(s, NamedSharding) and not getattr(s.mesh, "_types_defaulted", False):
        # JAX: reshard changes shardings in types, so every axis it names must be Explicit.
        # Meshes whose Auto types are spmd's default (JAX 0.10 would have made them Explicit)
        # are let through, so JAX programs run unchanged.
        types = dict(zip(s.mesh.axis_names, s.mesh.axis_types))
        for e in s.spec:
            for a in spec_axes(e):
                if types[a] != AxisType.Explicit:
                    raise ValueError(
                        f"{name}: the PartitionSpec passed to {name} cannot name mesh axes of "
                        f"type Auto or Manual. Got {s.spec}, whose axis {a!r} is of type "
                        f"{types[a]} in {s.mesh}. Use with_sharding_constraint on Auto axes."
                    )
    return typed_sharding(s, ndim)


def reshard(x: Any, shardings: Any) -> Any:
    """Move ``x`` (a pytree) to ``shardings`` (on Explicit meshes, the way to change a sharding
    in types). Non-dividing dimensions raise, as in JAX."""
    leaves, treedef = tu.tree_flatten(x)
    targets = prefix_targets(shardings, x, "reshard shardings")
    outs = [apply_out_sharding(leaf, t, "reshard", reshard_p) for leaf, t in zip(leaves, targets)]
    return tu.tree_unflatten(treedef, outs)


def apply_out_sharding(x: Any, sharding: Any, name: str, prim: Any = None) -> Any:
    """``x`` moved to ``sharding`` (a Sharding, or a PartitionSpec of the context mesh), as
    ``reshard`` and the ``out_sharding=`` of jnp functions do: the axes it names must be
    Explicit (or Auto by spmd's default), and the dimensions they split must divide.
    ``prim``: the primitive to bind (``reshard_p`` for reshard: JAX's jaxprs name it)."""
    if sharding is None:
        return x
    s = _reshard_sharding(sharding, _aval_of(x).ndim, name)
    if isinstance(s, NamedSharding):
        shape = tuple(_aval_of(x).shape)
        try:
            check_rank(s, len(shape))
        except ValueError as e:
            arg = "out_sharding" if prim is None else "sharding"  # reshard's is its own
            raise ValueError(f"{name}: {arg} for a result of shape {shape}: {e}") from None
        bad = uneven_dims(s, shape)
        if bad and config.spmd_uneven != "pad":
            raise IndivisibleError(f"{name}: {uneven_message(s, shape, bad)}")
    return sharding_constraint(x, s, prim or sharding_constraint_p)


def sharding_constraint(
    x: Any,
    sharding: Sharding,
    prim: Any = None,
    *,
    context_mesh: Any = None,
    abstract_spec: bool = False,
) -> Any:
    """Bind a constraint of ``x`` to ``sharding``. ``context_mesh``: the mesh in context, for
    with_sharding_constraint's equations (None elsewhere: not printed); ``abstract_spec``: the
    sharding was given as a PartitionSpec and prints on the abstract mesh (JAX's form)."""
    spec = sharding.spec if isinstance(sharding, NamedSharding) else ()
    dims = frozenset(i for i, e in enumerate(spec) if e is UNCONSTRAINED)
    return (prim or sharding_constraint_p).bind(
        x,
        sharding=sharding,
        layout=None,
        unconstrained_dims=dims,
        context_mesh=context_mesh,
        abstract_spec=abstract_spec,
    )


def _abstract_eval(x: ShapedArray, *, sharding, **_):
    if isinstance(sharding, NamedSharding):
        check_rank(sharding, x.ndim)
    return x


def _vmap_rule(p, axis_data, vals, dims, *, sharding, unconstrained_dims, **params):
    (x,), (d,) = vals, dims
    if isinstance(sharding, NamedSharding):
        spec = list(sharding.spec._normalized(x.ndim - 1))
        # vmap's dimension is left free (as JAX's), unless spmd_axis_name shards it; a map over
        # devices holds one device's value there.
        free = axis_data.spmd_name is None and not axis_data.per_device
        spec.insert(d, UNCONSTRAINED if free else axis_data.spmd_name)
        sharding = NamedSharding(sharding.mesh, P(*spec), memory_kind=sharding.memory_kind)
        unconstrained_dims = frozenset(i + (i >= d) for i in unconstrained_dims) | (
            {d} if free else set()
        )
    out = p.bind(x, sharding=sharding, unconstrained_dims=unconstrained_dims, **params)
    return out, d


def _pp_params(params: dict) -> list:
    # As JAX prints with_sharding_constraint's equations: the context mesh, a sharding given as
    # a PartitionSpec on the abstract mesh (without memory kind), the unconstrained dimensions
    # as ``frozenset({1})`` (``frozenset({})`` for none).
    sharding = params["sharding"]
    if params["abstract_spec"] and isinstance(sharding, NamedSharding):
        sharding = PrintedAs(
            f"NamedSharding(mesh={sharding.mesh.abstract_mesh!r}, spec={sharding.spec})"
        )
    dims = ", ".join(str(i) for i in sorted(params["unconstrained_dims"]))
    out = [("layout", params["layout"]), ("sharding", sharding)]
    out.append(("unconstrained_dims", PrintedAs(f"frozenset({{{dims}}})")))
    if params["context_mesh"] is not None:
        out.insert(0, ("context_mesh", params["context_mesh"]))
    return out


def _sharding_rule(specs, avals, *, sharding, **_):
    # UNCONSTRAINED dimensions keep the operand's entry (JAX lets the compiler choose; it keeps
    # the operand's). Without the operand's spec they are replicated: a result spec never
    # carries UNCONSTRAINED.
    if isinstance(sharding, NamedSharding) and any(e is UNCONSTRAINED for e in sharding.spec):
        have = specs[0] if specs else None
        ndim = avals[0].ndim
        have = tuple(have) + (None,) * (ndim - len(have)) if have is not None else (None,) * ndim
        spec = [have[i] if e is UNCONSTRAINED else e for i, e in enumerate(sharding.spec)]
        while spec and spec[-1] is None:
            spec.pop()
        return sharding.with_spec(P(*spec))
    return sharding


def _constraint_rule(specs, avals, *, sharding, context_mesh=None, **_):
    out = _sharding_rule(specs, avals, sharding=sharding)
    # with_sharding_constraint on a mesh with Explicit and Auto axes names Auto axes only: the
    # Explicit axes of the operand's type stay where they are (ahead of the constraint's), as
    # in JAX. (Other constraints, device_put's inside a trace, place what they are given.)
    if context_mesh is None or not isinstance(out, NamedSharding) or not specs or not specs[0]:
        return out
    types = dict(zip(out.mesh.axis_names, out.mesh.axis_types))
    if AxisType.Explicit not in types.values():
        return out
    spec = list(out.spec._normalized(avals[0].ndim))
    for i, e in enumerate(specs[0]):
        kept = [a for a in spec_axes(e) if types.get(a) == AxisType.Explicit]
        if kept:
            spec[i] = sharding_rules.as_entry([*kept, *spec_axes(spec[i])])
    while spec and spec[-1] is None:
        spec.pop()
    return out.with_spec(P(*spec))


def _reshard_rule(specs, avals, *, sharding, **_):
    # reshard changes types: on a mesh with Auto axes too (inside auto_axes/explicit_axes) the
    # Auto axes the operand is sharded over stay where they are, where the target leaves them
    # free (JAX's compiler keeps them).
    out = _sharding_rule(specs, avals, sharding=sharding)
    if not isinstance(out, NamedSharding) or not specs or specs[0] is None:
        return out
    types = dict(zip(out.mesh.axis_names, out.mesh.axis_types))
    if AxisType.Explicit not in types.values() or AxisType.Auto not in types.values():
        return out
    ndim = avals[0].ndim
    spec = list(out.spec._normalized(ndim))
    used = {a for e in spec for a in spec_axes(e)}
    for i, e in enumerate(specs[0]):
        extra = [a for a in spec_axes(e) if types.get(a) == AxisType.Auto and a not in used]
        if extra:
            spec[i] = sharding_rules.as_entry([*spec_axes(spec[i]), *extra])
            used.update(extra)
    return out.with_spec(P(*spec))


def _constraint_primitive(name: str, rule=_sharding_rule) -> core.Primitive:
    p = core.Primitive(name)
    p.def_impl(lambda x, **_: x)
    p.def_abstract_eval(_abstract_eval)
    batching.primitive_batchers[p] = functools.partial(_vmap_rule, p)
    ad.primitive_jvps[p] = lambda primals, tangents, out, **params: p.bind(
        ad.instantiate(tangents[0]), **params
    )
    ad.primitive_transposes[p] = lambda ct, x, **params: [p.bind(ct, **params)]
    sharding_rules.sharding_rules[p] = rule
    sharding_rules.sets_sharding.add(p)
    # UNCONSTRAINED dimensions keep the operand's entry: the rule needs the operand's spec.
    sharding_rules.wants_operand_specs.add(p)
    return p


sharding_constraint_p = _constraint_primitive("sharding_constraint", _constraint_rule)
core.pp_param_rules[sharding_constraint_p] = _pp_params
# ``reshard``'s equations: a constraint by another name, printed bare as in JAX's jaxprs (the
# result's type shows the sharding).
reshard_p = _constraint_primitive("reshard", _reshard_rule)
core.pp_param_rules[reshard_p] = lambda params: []


def _reshard_transpose(ct, x, *, sharding, **params):
    # The cotangent goes back to the operand's type, as JAX's transpose moves it. That type's
    # unreduced and reduced axes swap: a cast to reduced transposes to the all-reduce of an
    # unreduced cotangent. (An untyped operand keeps the constraint's sharding.)
    want = x.sharding  # (its type: None where no Explicit axis shards it)
    if not isinstance(want, NamedSharding) or AxisType.Auto in want.mesh.axis_types:
        return [reshard_p.bind(ct, sharding=sharding, **params)]
    want = reduction_states.cotangent_sharding(want)
    return [reshard_p.bind(ct, sharding=want, **params)]


ad.primitive_transposes[reshard_p] = _reshard_transpose

__all__ = ["apply_out_sharding", "reshard", "with_sharding_constraint"]
