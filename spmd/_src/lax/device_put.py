"""``device_put`` inside a traced program: the ``device_put`` primitive, as JAX stages it.

Outside a trace ``device_put`` places the array at once (placement.py). Traced, a placement that
moves between memory spaces (into or out of ``pinned_host``, or to a ``jax.memory.Space``)
becomes a ``device_put`` equation whose results are typed in the target's memory space
(``f32<host>[8]``); other placements stay sharding constraints. Values are not touched: all
memory is NumPy's.

>>> jax.make_jaxpr(lambda a: jax.device_put(a, jax.memory.Space.Host))(np.ones(2))
{ lambda ; a:f32[2]. let
    b:f32<host>[2] = device_put[
      copy_semantics=(ArrayCopySemantics.REUSE_INPUT,)
      devices=(MemorySpace.Host,)
      srcs=(None,)
    ] a
  in (b,) }
"""

from __future__ import annotations

import enum
from typing import Any

from spmd._src import core, memory_spaces
from spmd._src.core import DEVICE_SPACE, MemorySpace, ShapedArray, mem_kind_to_space
from spmd._src.interpreters import ad, batching, partition_rules, sharding_rules
from spmd._src.interpreters.ad import Zero
from spmd._src.sharding import NamedSharding, P, Sharding, check_rank, default_sharding


class ArrayCopySemantics(enum.Enum):
    """Whether a placement may reuse its operand's buffer (a parameter of the equation)."""

    ALWAYS_COPY = 0
    REUSE_INPUT = 1
    DONATE_INPUT = 2

    def __repr__(self) -> str:
        return f"ArrayCopySemantics.{self.name}"

    __str__ = __repr__


def needs_primitive(aval: Any, target: Any) -> bool:
    """Whether placing a traced value of type ``aval`` on ``target`` changes (or names) a
    memory space, and so is a ``device_put`` equation rather than a sharding constraint."""
    if isinstance(target, MemorySpace):
        return True
    if getattr(aval, "memory_space", DEVICE_SPACE) is not DEVICE_SPACE:
        return True
    return isinstance(target, Sharding) and target.memory_kind != "device"


class TypeSharding:
    """A ``srcs`` entry: the sharding in an operand's type (Explicit mesh axes), in its memory,
    printed on the abstract mesh as JAX prints it. ``sharding``: the concrete one."""

    __slots__ = ("sharding",)

    def __init__(self, sharding: NamedSharding) -> None:
        self.sharding = sharding

    def __repr__(self) -> str:
        s = self.sharding
        return (
            f"NamedSharding(mesh={s.mesh.abstract_mesh!r}, spec={s.spec}, "
            f"memory_kind={s.memory_kind})"
        )

    def __eq__(self, other: object) -> bool:
        return type(other) is TypeSharding and other.sharding == self.sharding

    def __hash__(self) -> int:
        return hash(("type", self.sharding))


def _src_of(x: Any) -> Any:
    # On Explicit mesh axes an operand's type has a sharding: JAX records it as the source.
    t = sharding_rules.type_sharding(x)
    if t is None:
        return None
    aval = core.get_aval(x)
    kind = "pinned_host" if aval.memory_space is MemorySpace.Host else "device"
    return TypeSharding(NamedSharding(t.mesh, P(*t.spec._normalized(aval.ndim)), memory_kind=kind))


def device_put_traced(xs: list, targets: list) -> list:
    """Bind one ``device_put`` equation placing the traced values ``xs`` on ``targets``
    (Shardings, devices or memory spaces, one per value)."""
    n = len(xs)
    return device_put_p.bind(
        *xs,
        devices=tuple(targets),
        srcs=tuple(_src_of(x) for x in xs),
        copy_semantics=(ArrayCopySemantics.REUSE_INPUT,) * n,
    )


def _impl(*xs, devices, srcs, copy_semantics):
    return list(xs)  # one memory: the values are where they were


def _space_of(target: Any, aval: ShapedArray) -> MemorySpace:
    if isinstance(target, MemorySpace):
        return target
    if isinstance(target, Sharding):
        return mem_kind_to_space(target.memory_kind)
    return aval.memory_space  # a device, or None: the memory space stays


def _abstract_eval(*avals, devices, srcs, copy_semantics):
    outs = []
    for a, d in zip(avals, devices):
        if isinstance(d, NamedSharding):
            check_rank(d, a.ndim)
        space = _space_of(d, a)
        outs.append(a if a.memory_space is space else a.update(memory_space=space))
    return outs


def _vmap_rule(axis_data, vals, dims, *, devices, srcs, copy_semantics):
    # The mapped dimension is not placed: a NamedSharding target gets an unsharded entry there.
    targets = []
    for x, d, t in zip(vals, dims, devices):
        if isinstance(t, NamedSharding) and d is not None:
            spec = list(t.spec._normalized(core.get_aval(x).ndim - 1))
            spec.insert(d, None)
            t = t.with_spec(P(*spec))
        targets.append(t)
    outs = device_put_p.bind(
        *vals, devices=tuple(targets), srcs=srcs, copy_semantics=copy_semantics
    )
    return outs, list(dims)


def _jvp(primals, tangents, out, *, devices, srcs, copy_semantics):
    # Linear: tangents are placed as their primals are (as JAX's linear_jvp binds them).
    nz = [i for i, t in enumerate(tangents) if type(t) is not Zero]
    t_outs = [Zero(ad.tangent_aval(core.get_aval(o))) for o in out]
    moved = device_put_p.bind(
        *[tangents[i] for i in nz],
        devices=tuple(devices[i] for i in nz),
        srcs=tuple(srcs[i] for i in nz),
        copy_semantics=tuple(copy_semantics[i] for i in nz),
    )
    for i, t in zip(nz, moved):
        t_outs[i] = t
    return t_outs


def _transpose_rule(cts, *args, devices, srcs, copy_semantics):
    # Cotangents go back where the operands were: an operand typed in host memory names its
    # space; otherwise its source (None: wherever it was). Always a copy, as in JAX.
    out: list = [None] * len(cts)
    moving = []
    for i, (ct, a, d, s) in enumerate(zip(cts, args, devices, srcs)):
        if not ad.is_undefined_primal(a):
            continue
        if type(ct) is Zero:
            out[i] = Zero(a.aval)
            continue
        if type(s) is TypeSharding:
            s = s.sharding
        if s is None and a.aval.memory_space is MemorySpace.Host:
            s = MemorySpace.Host
        moving.append((i, ct, s, d))
    if moving:
        idx, ct_vals, back, came = zip(*moving)
        moved = device_put_p.bind(
            *ct_vals,
            devices=tuple(back),
            srcs=tuple(came),
            copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,) * len(idx),
        )
        for i, v in zip(idx, moved):
            out[i] = v
    return out


def _sharding_rule(shardings, avals, *, devices, srcs, copy_semantics):
    # A Sharding target places the result there; a memory space keeps the operand's sharding
    # (the first device's, if it has none) in that memory; a device is its one-device sharding.
    outs = []
    for s, d in zip(shardings, devices):
        if isinstance(d, Sharding):
            outs.append(d)
        elif isinstance(d, MemorySpace):
            base = s if s is not None else default_sharding()
            kind = core.mem_space_to_kind(d) if d is not MemorySpace.Any else base.memory_kind
            outs.append(base if base.memory_kind == kind else base.with_memory_kind(kind))
        elif d is not None:
            outs.append(default_sharding(d))
        else:
            outs.append(s)
    return outs


def _partition_rule(p, ctx, vals, sts, params):
    # Memory kinds are not a layout: each value keeps its blocks (Sharding targets are placed
    # as a constraint places them).
    outs, out_sts = [], []
    for x, st, d in zip(vals, sts, params["devices"]):
        if isinstance(d, NamedSharding):
            (x,), (st,) = partition_rules._sharding_constraint(p, ctx, [x], [st], {"sharding": d})
        outs.append(x)
        out_sts.append(st)
    return outs, out_sts


device_put_p = core.Primitive("device_put", multiple_results=True)
device_put_p.def_impl(_impl)
device_put_p.def_abstract_eval(_abstract_eval)
batching.primitive_batchers[device_put_p] = _vmap_rule
ad.primitive_jvps[device_put_p] = _jvp
ad.primitive_transposes[device_put_p] = _transpose_rule
sharding_rules.placing_rules[device_put_p] = _sharding_rule
sharding_rules.sets_sharding.add(device_put_p)
partition_rules.partition_rules["device_put"] = _partition_rule
memory_spaces.own_rule.add(device_put_p)

__all__ = [
    "ArrayCopySemantics",
    "TypeSharding",
    "device_put_p",
    "device_put_traced",
    "needs_primitive",
]
