"""Sharding constraints: ``with_sharding_constraint`` and ``reshard``.

A ``sharding_constraint`` equation is the identity on values; sharding propagation (eager
results and jit's forward pass) gives its result the constraint's sharding.

>>> mesh = spmd.make_mesh((8,), ("x",))
>>> lax.with_sharding_constraint(jnp.arange(8.0), NamedSharding(mesh, P("x"))).sharding.spec
P('x',)
"""

from __future__ import annotations

from typing import Any

from spmd._src import core
from spmd._src import tree_util as tu
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.sharding import NamedSharding, P, PartitionSpec, Sharding, check_rank, resolve_spec


def _as_sharding(s: Any, who: str) -> Sharding:
    if isinstance(s, PartitionSpec):
        return resolve_spec(s, who)
    if isinstance(s, Sharding):
        return s
    raise TypeError(f"{who}: expected a Sharding or a PartitionSpec, got {type(s).__name__}")


def with_sharding_constraint(x: Any, shardings: Any) -> Any:
    """Constrain the sharding of ``x`` (a pytree; ``shardings`` a matching prefix)."""
    leaves, treedef = tu.tree_flatten(x)
    if isinstance(shardings, (Sharding, PartitionSpec)):
        targets = [shardings] * len(leaves)
    else:
        targets = tu.broadcast_prefix(shardings, x)
    outs = [
        sharding_constraint(leaf, _as_sharding(s, "with_sharding_constraint"))
        for leaf, s in zip(leaves, targets)
    ]
    return tu.tree_unflatten(treedef, outs)


def reshard(x: Any, shardings: Any) -> Any:
    """Move ``x`` to ``shardings`` (on Explicit meshes, the way to change a sharding in types)."""
    return with_sharding_constraint(x, shardings)


def sharding_constraint(x: Any, sharding: Sharding) -> Any:
    return sharding_constraint_p.bind(
        x, sharding=sharding, layout=None, unconstrained_dims=frozenset()
    )


def _abstract_eval(x: ShapedArray, *, sharding, layout, unconstrained_dims):
    if isinstance(sharding, NamedSharding):
        check_rank(sharding, x.ndim)
    return x


def _vmap_rule(axis_data, vals, dims, *, sharding, layout, unconstrained_dims):
    (x,), (d,) = vals, dims
    if isinstance(sharding, NamedSharding):
        spec = list(sharding.spec._normalized(x.ndim - 1))
        spec.insert(d, axis_data.spmd_name)
        sharding = NamedSharding(sharding.mesh, P(*spec), memory_kind=sharding.memory_kind)
    return sharding_constraint_p.bind(
        x, sharding=sharding, layout=layout, unconstrained_dims=unconstrained_dims
    ), d


def _sharding_rule(specs, avals, *, sharding, layout, unconstrained_dims):
    return sharding


sharding_constraint_p = core.Primitive("sharding_constraint")
sharding_constraint_p.def_impl(lambda x, **_: x)
sharding_constraint_p.def_abstract_eval(_abstract_eval)
batching.primitive_batchers[sharding_constraint_p] = _vmap_rule
ad.primitive_jvps[sharding_constraint_p] = lambda primals, tangents, out, **params: (
    sharding_constraint_p.bind(ad.instantiate(tangents[0]), **params)
)
ad.primitive_transposes[sharding_constraint_p] = lambda ct, x, **params: [
    sharding_constraint_p.bind(ct, **params)
]
sharding_rules.sharding_rules[sharding_constraint_p] = _sharding_rule
sharding_rules.sets_sharding.add(sharding_constraint_p)

__all__ = ["reshard", "with_sharding_constraint"]
