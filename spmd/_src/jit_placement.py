"""Where jit's arguments and results go: shardings and memory spaces as part of a program's
type (cache keys), the sharding of results nothing else places, results in the memory their
types say, and ``in_shardings``/``out_shardings`` read per leaf."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

from spmd._src import core
from spmd._src import tree_util as tu
from spmd._src.array import Array
from spmd._src.core import ClosedJaxpr
from spmd._src.interpreters import sharding_rules
from spmd._src.lax.sharding import prefix_targets
from spmd._src.mesh import AbstractMesh, AxisType
from spmd._src.sharding import (
    NamedSharding,
    P,
    PartitionSpec,
    Sharding,
    SingleDeviceSharding,
    resolve_spec,
    spec_axes,
)

__all__ = [
    "check_explicit",
    "check_inner_devices",
    "fill_unplaced",
    "in_typed_memory",
    "named_like_first_input",
    "placement_name",
    "sharding_leaves",
    "space_key",
    "type_shardings",
    "typed_key",
]


def typed_key(types) -> tuple | None:
    """Shardings in types as part of a cache key (None: untyped)."""
    if types is None or all(sharding_rules.explicit_or_none(t) is None for t in types):
        return None
    return tuple(sharding_rules.explicit_or_none(t) for t in types)


def space_key(leaves) -> tuple | None:
    """The memory spaces of placed arguments, when one is in host memory (None: all on
    device, the common case): part of the program's type."""
    kinds = [x._sharding.memory_kind for x in leaves if type(x) is Array and x._sharding]
    if "pinned_host" not in kinds:
        return None
    return tuple(core.mem_kind_to_space(getattr(x.sharding, "memory_kind", None)) for x in leaves)


def type_shardings(leaves) -> list | None:
    """The shardings in the arguments' types (Explicit mesh axes): an Array's, or a traced
    value's type; None when no argument has one (the common case: nothing to type)."""
    out = None
    for i, x in enumerate(leaves):
        s = sharding_rules.type_sharding(x)
        if s is not None:
            out = out or [None] * len(leaves)
            out[i] = s
    return out


def check_explicit(closed: ClosedJaxpr, leaves) -> None:
    """On Explicit mesh axes shardings are part of the types, so JAX raises a sharding error
    (an ambiguous contraction...) when tracing; run the propagation now to do the same."""
    shardings = [x._sharding if type(x) is Array else None for x in leaves]
    if any(
        isinstance(s, NamedSharding) and AxisType.Explicit in s.mesh.axis_types for s in shardings
    ):
        sharding_rules.propagate_jaxpr(closed.jaxpr, shardings, effects=False)


def _inner_placements(jaxpr: core.Jaxpr) -> list[tuple[str, NamedSharding]]:
    """The mesh shardings a program's placements name (its nested programs' too), each with
    the name JAX's errors give it: ``device_put`` (a traced device_put is a constraint with no
    ``context_mesh``, or a device_put equation) or ``sharding_constraint``. Bare devices and
    one-device shardings are left out: JAX ignores a device target inside jit."""
    out = []
    for eqn in jaxpr.eqns:
        name, targets = eqn.primitive.name, ()
        if name == "sharding_constraint":
            targets = (eqn.params["sharding"],)
            if eqn.params.get("context_mesh") is None:
                name = "device_put"
        elif name == "device_put":
            targets = eqn.params["devices"]
        out += [
            (name, t)
            for t in targets
            if isinstance(t, NamedSharding) and not isinstance(t.mesh, AbstractMesh)
        ]
        for sub in core._jaxprs_in_params(eqn.params):
            out += _inner_placements(sub)
    return out


def check_inner_devices(jaxpr: core.Jaxpr, first: Callable, wanted: Callable) -> None:
    """A compiled program runs on one set of devices: a device_put or sharding constraint
    inside jit naming a mesh over other devices (or the same in another order) than the
    committed arguments', than another such placement or than an out_shardings entry is a
    ValueError, as in JAX (moving data to another mesh is done outside jit). ``first()``: the
    first committed argument as (description, sharding), or None; ``wanted()``: the
    out_shardings entries as (output path, sharding). Called only when they are needed."""
    inner = _inner_placements(jaxpr)
    if not inner:
        return
    arg = first()
    placed = [] if arg is None else [arg]
    placed += [(f"explicit output sharding (out_shardings for {p})", w) for p, w in wanted()]
    placed += [(f"{name} inside jit", s) for name, s in inner]
    what, have = placed[0]
    ids = [d.id for d in have._device_list()]
    for other, s in placed[1:]:
        oids = [d.id for d in s._device_list()]
        if oids != ids:
            raise ValueError(
                f"Received incompatible devices for jitted computation. Got {what} with device "
                f"ids {ids} ({placement_name(have)}) on platform CPU and {other} with device "
                f"ids {oids} ({placement_name(s)}) on platform CPU. A jitted computation runs "
                "on one mesh: move data between meshes with jax.device_put outside jit."
            )


def placement_name(s: Sharding) -> str:
    if isinstance(s, NamedSharding):
        return f"mesh {s.mesh} over devices {s.mesh.device_ids.ravel().tolist()}"
    return repr(s)


def fill_unplaced(outs: list, in_s: tuple, wanted: list, entry) -> list:
    """Results no sharding reached (computed from unplaced inputs or constants) are replicated
    on the program's mesh, or on the one device the arguments are committed to, or on the
    mesh in context when the program was traced, as in JAX."""
    if all(o is not None for o in outs):
        return outs
    fill = None
    for s in (*in_s, *wanted, *outs):
        if isinstance(s, NamedSharding):
            fill = NamedSharding(s.mesh, P())
            break
    if fill is None:
        devs = {d for s in in_s if s is not None for d in s._device_list()}
        if len(devs) == 1:
            fill = SingleDeviceSharding(devs.pop())
    mesh = entry.ctx_mesh
    if fill is None and mesh is not None:
        # On Explicit axes the sharding is the result's type: its spec has every dimension.
        explicit = AxisType.Explicit in mesh.axis_types
        return [
            o if o is not None else NamedSharding(mesh, P(*(None,) * a.ndim) if explicit else P())
            for o, a in zip(outs, entry.jaxpr.out_avals)
        ]
    return [fill if o is None else o for o in outs]


def in_typed_memory(outs: list, avals, wanted: list, name: str) -> list:
    """Results out_shardings does not place are in the memory their types say (host memory
    for f32<host>[8], device memory otherwise: an unpinned_host operand's result is on the
    device), as JAX places them. A result typed ``<any>`` names no memory: AssertionError,
    JAX's class."""
    fixed = []
    for o, a, w in zip(outs, avals, wanted):
        if o is not None and w is None:
            kind = core.mem_space_to_kind(a.memory_space, f"jit({name})")
            if o.memory_kind != kind:
                o = o.with_memory_kind(kind)
        fixed.append(o)
    return fixed


def _tiling(s: NamedSharding, ndim: int) -> tuple:
    """A sharding's layout for arrays of rank ``ndim``, whatever its spec's spelling: the
    number of blocks per dimension and each device's block (P('x', 'y') and P() are one
    layout on a 1x1 mesh), as XLA compares shardings."""
    spec = s.spec._normalized(ndim)
    shape = s.mesh.shape
    counts = tuple(math.prod(shape[a] for a in spec_axes(e)) for e in spec)
    blocks = {}
    for pos in itertools.product(*(range(n) for n in s.mesh.axis_sizes)):
        coord = dict(zip(s.mesh.axis_names, pos))
        block = []
        for e in spec:
            k = 0
            for a in spec_axes(e):  # major to minor
                k = k * shape[a] + coord[a]
            block.append(k)
        blocks[s.mesh.devices[pos].id] = tuple(block)
    return counts, tuple(sorted(blocks.items()))


def named_like_first_input(outs: list, in_s: tuple, in_avals, out_avals, wanted: list) -> list:
    """A result no out_shardings places, whose layout, rank and memory are those of the first
    argument with a NamedSharding, is given that argument's sharding, as JAX names XLA's
    result shardings (on a 1x1 mesh the gradient of an argument placed P('x', 'y') comes back
    so). Explicit mesh axes type results: their shardings stand as they are."""
    first = next(
        ((s, a) for s, a in zip(in_s, in_avals) if isinstance(s, NamedSharding)), (None, None)
    )
    s0, a0 = first
    if s0 is None or AxisType.Explicit in s0.mesh.axis_types:
        return outs
    fixed = []
    for o, a, w in zip(outs, out_avals, wanted):
        if (
            w is None
            and isinstance(o, NamedSharding)
            and o != s0
            and a.ndim == a0.ndim
            and o.memory_kind == s0.memory_kind
            and AxisType.Explicit not in o.mesh.axis_types
            and _tiling(o, a.ndim) == _tiling(s0, a.ndim)
        ):
            o = s0
        fixed.append(o)
    return fixed


def sharding_leaves(spec_tree: Any, treedef, who: str, wrapped: Any) -> list:
    """Per leaf of ``treedef``: a Sharding (or None), from a Sharding/P or a pytree prefix."""
    name = f"jit({wrapped.__name__}) {who}"

    def one(s):
        if s is None or isinstance(s, Sharding):
            return s
        if isinstance(s, PartitionSpec):
            return resolve_spec(s, name, RuntimeError)
        raise TypeError(f"{name}: expected a Sharding or PartitionSpec, got {type(s).__name__}")

    n = treedef.num_leaves
    if isinstance(spec_tree, (Sharding, PartitionSpec)):
        return [one(spec_tree)] * n
    tree = tu.tree_unflatten(treedef, [0] * n)
    if who == "in_shardings":
        tree = tree[0]  # the positional arguments of (args, kwargs)
        if isinstance(spec_tree, list):
            spec_tree = tuple(spec_tree)
        if isinstance(spec_tree, tuple) and len(spec_tree) != len(tree):
            raise ValueError(
                f"{name} must be a pytree prefix of the positional arguments: a Sharding, a "
                "PartitionSpec, or a tuple with one entry per positional argument, but it has "
                f"{len(spec_tree)} entries for {len(tree)} positional argument"
                f"{'s' if len(tree) != 1 else ''}."
            )
    flat = prefix_targets(spec_tree, tree, name)
    return [one(s) for s in flat] + [None] * (n - len(flat))


# ---------------------------------------------------------------------------------------------
# The devices a jit's committed arguments and out_shardings name (ValueError when they differ)


def check_arg_devices(fn_name: str, paths: Callable, avals, in_s) -> tuple | None:
    """``(index, sorted device ids, sharding)`` of the first committed argument (None if no
    argument is committed); ValueError naming two arguments on different devices. ``paths``
    gives the arguments' paths (called only to word the error)."""
    first = None
    for i, s in enumerate(in_s):
        if s is None:
            continue
        # As JAX: the same devices in another order (another device assignment) disagree
        # too, e.g. a mesh over permuted devices (the distributed-arrays tutorial's cell).
        ids = tuple(d.id for d in s._device_list())
        if first is None:
            first = (i, ids, s)
        elif ids != first[1]:
            names = paths()
            j, fids, fs = first
            raise ValueError(
                f"Received incompatible devices for jitted computation. Got argument "
                f"{names[j]} of {fn_name} with shape {avals[j].str_short()} and with "
                f"device ids {list(fids)} ({placement_name(fs)}) on platform CPU and "
                f"argument {names[i]} of {fn_name} with shape {avals[i].str_short()} "
                f"and with device ids {list(ids)} ({placement_name(s)}) on platform CPU."
            )
    return None if first is None else (first[0], tuple(sorted(first[1])), first[2])


def described_arg(fn_name: str, paths: list, avals, arg_devices) -> tuple | None:
    """The words naming the first committed argument in an error, and its sharding."""
    if arg_devices is None:
        return None
    j, _, s = arg_devices
    return f"argument {paths[j]} of {fn_name} with shape {avals[j].str_short()} and", s


def check_out_devices(fn_name: str, paths: list, out_paths: list, avals, wanted,
                      arg_devices) -> None:  # fmt: skip
    """ValueError when an out_shardings entry is on other devices than the arguments."""
    j, ids, have = arg_devices
    for i, w in enumerate(wanted):
        if w is None:
            continue
        wids = tuple(sorted(d.id for d in w._device_list()))
        if wids != ids:
            raise ValueError(
                f"Received incompatible devices for jitted computation. Got argument {paths[j]} "
                f"of {fn_name} with shape {avals[j].str_short()} and "
                f"with device ids {list(ids)} ({placement_name(have)}) on platform CPU and "
                f"explicit output sharding (out_shardings for {out_paths[i]}) with device ids "
                f"{list(wids)} ({placement_name(w)}) on platform CPU."
            )
