"""Memory spaces in types: which memory (device or host) an array's type says it lives in.

An array placed in ``pinned_host`` memory has type ``f32<host>[8]`` (``ShapedArray.memory_space``,
``core.MemorySpace``), as in JAX 0.10. Operations keep their operands' memory space: the result
of a primitive whose operands of rank one or more share a memory space is in it (scalars take
no part, so ``x_host * 2.0`` stays on the host); operands in different spaces are a ValueError,
while tracing and eagerly. Primitives that run programs (scan, cond, jit) take their results'
types from their bodies, and ``device_put`` sets the space it is given.

Nothing here runs unless some operand is off device memory: the checks are on the paths that
see such operands only.

>>> mesh = spmd.make_mesh((8,), ("x",))
>>> x = spmd.device_put(np.arange(8.0), NamedSharding(mesh, P("x"), memory_kind="pinned_host"))
>>> str(spmd.typeof(x * 2))
'float32<host>[8]'
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Sequence
from typing import Any

from spmd._src import core
from spmd._src.core import DEVICE_SPACE, MemorySpace, mem_kind_to_space

# Primitives that give their results' memory spaces themselves (device_put): the default rule
# leaves them alone. (Primitives with programs in their parameters are recognized as such.)
own_rule: set[core.Primitive] = set()


# False while a program's per-device body is traced by the partitioner: its blocks are typed
# as they come, and the index arrays it adds are no user's operands to check.
_typing: contextvars.ContextVar = contextvars.ContextVar("spmd_memory_typing", default=True)


@contextlib.contextmanager
def untyped() -> Iterator[None]:
    """Trace without the memory-space rule (results typed as their primitives give them)."""
    token = _typing.set(False)
    try:
        yield
    finally:
        _typing.reset(token)


def off_device(avals: Sequence[Any]) -> bool:
    """Whether an aval among ``avals`` is typed off device memory (the rare case)."""
    for a in avals:
        if getattr(a, "memory_space", DEVICE_SPACE) is not DEVICE_SPACE:
            return True
    return False


def default_space(name: str, avals: Sequence[Any]) -> MemorySpace:
    """The memory space of a primitive's results for operands ``avals`` (JAX's default rule):
    that of its operands of rank one or more, which must agree; device memory if it has none;
    ``Any`` if every operand is typed ``Any``."""
    spaces = [getattr(a, "memory_space", DEVICE_SPACE) for a in avals]
    if spaces and all(s is MemorySpace.Any for s in spaces):
        return MemorySpace.Any
    prev = None
    for a in avals:
        if not getattr(a, "shape", ()):
            continue
        if prev is not None and prev.memory_space is not a.memory_space:
            raise ValueError(
                f"memory_space of all inputs passed to `{name}` must be the same. Got one "
                f"operand with type: {prev.str_short(False)} and another operand with type: "
                f"{a.str_short(False)}"
            )
        prev = a
    return DEVICE_SPACE if prev is None else prev.memory_space


def typed_results(prim: core.Primitive, params: dict, avals: Sequence[Any], out: Any) -> Any:
    """``prim``'s abstract results ``out`` (one aval or a list) typed in the memory space its
    operands ``avals`` give them. Called only when some operand is off device memory."""
    if prim in own_rule or core._jaxprs_in_params(params) or not _typing.get():
        return out
    space = default_space(prim.name, avals)
    if not prim.multiple_results:
        return _in_space(out, space)
    return [_in_space(a, space) for a in out]


def _in_space(aval: Any, space: MemorySpace) -> Any:
    if type(aval) is not core.ShapedArray or aval.memory_space is space:
        return aval
    return aval.update(memory_space=space)


def place_unplaced(outs: Sequence[Any], out_avals: Sequence[Any]) -> None:
    """Results of an eager program whose operands are all on the device but whose types put
    some in host memory (a transposed scan's cotangents of xs there) are placed in host
    memory, as JAX's results are."""
    if all(getattr(a, "memory_space", DEVICE_SPACE) is DEVICE_SPACE for a in out_avals):
        return
    from spmd._src.sharding import default_sharding  # lazy: sharding imports this module

    for o, a in zip(outs, out_avals):
        if a.memory_space is MemorySpace.Host and getattr(o, "_sharding", None) is None:
            o._sharding = default_sharding().with_memory_kind("pinned_host")
            o._committed = True


def eager_shardings(
    prim: core.Primitive, params: dict, args: Sequence[Any], sig, out_aval: Any, out_s: Any
) -> Any:
    """Eager operands placed outside device memory: the same rule as tracing, on the operands'
    shardings (ValueError for operands of rank one or more in different spaces); result
    shardings ``out_s`` (one or a list) moved to the memory the rule gives (an unpinned_host
    operand's result is in device memory, as in JAX). A primitive running a program (scan)
    places each result in the memory its program's type says."""
    for x in args:  # (the common case, all in device memory, in one cheap pass)
        s = getattr(x, "_sharding", None)
        if s is not None and s.memory_kind != "device":
            break
    else:
        return out_s
    if out_s is None or prim in own_rule:
        return out_s
    kinds = [getattr(getattr(x, "_sharding", None), "memory_kind", "device") for x in args]
    if core._jaxprs_in_params(params):
        out_avals = out_aval if prim.multiple_results else [out_aval]
        spaces = [getattr(a, "memory_space", DEVICE_SPACE) for a in out_avals]
    else:
        avals = [
            core.ShapedArray(*g, memory_space=mem_kind_to_space(k)) for g, k in zip(sig, kinds)
        ]
        n = len(out_s) if prim.multiple_results else 1
        spaces = [default_space(prim.name, avals)] * n
    moved = [
        _in_kind(s, "pinned_host" if m is MemorySpace.Host else "device")
        for s, m in zip(out_s if prim.multiple_results else [out_s], spaces)
    ]
    return moved if prim.multiple_results else moved[0]


def _in_kind(s: Any, kind: str) -> Any:
    return s if s is None or s.memory_kind == kind else s.with_memory_kind(kind)


__all__ = [
    "default_space",
    "eager_shardings",
    "off_device",
    "own_rule",
    "typed_results",
    "untyped",
]
