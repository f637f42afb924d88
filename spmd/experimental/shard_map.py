"""``from spmd.experimental.shard_map import shard_map``: the older signature
``shard_map(f, mesh, in_specs, out_specs, check_rep=True, auto=frozenset())``.

>>> mesh = spmd.make_mesh((4,), ("x",))
>>> shard_map(lambda x: 2 * x, mesh, P("x"), P("x"))(jnp.arange(4))
Array([0, 2, 4, 6], dtype=int32)
"""

from collections.abc import Callable
from typing import Any

from spmd._src.shard_map import shard_map as _shard_map


def shard_map(
    f: Callable,
    mesh: Any,
    in_specs: Any,
    out_specs: Any,
    check_rep: bool = True,
    auto: Any = frozenset(),
) -> Callable:
    """``spmd.shard_map`` with positional mesh and specs; ``check_rep`` is ``check_vma`` and
    ``auto`` lists the mesh axes that stay automatic (not manual) inside ``f``."""
    manual = frozenset(a for a in mesh.axis_names if a not in set(auto))
    return _shard_map(
        f,
        mesh=mesh,
        in_specs=in_specs,
        out_specs=out_specs,
        axis_names=manual if auto else frozenset(),
        check_vma=check_rep,
    )


__all__ = ["shard_map"]
