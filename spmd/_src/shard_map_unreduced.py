"""shard_map results whose out_specs are unreduced (``P(None, unreduced={'X'})``): each device's
value is a partial sum, and the result outside is their sum typed ``{U:X}``.

spmd holds an array's value, not its addends (sharding_rules' reduction states), so the body's
per-device values are summed at the boundary: the body is wrapped to ``psum`` those outputs over
the unreduced axes (which makes them the same on every device, as the out_specs without its
unreduced axes then claim), and the results are cast (``reshard``, no data moves) to the
unreduced type. Autodiff follows: psum's transpose hands every device the cotangent, as the
cast's transpose (an unreduced value's cotangent is reduced, i.e. replicated) gives it.
Inside the body, ``pcast(x, 'X', to='unreduced')`` changes no value.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from spmd._src import tree_util as tu
from spmd._src.sharding import NamedSharding, P


def _unreduced(spec: Any) -> frozenset:
    return getattr(spec, "unreduced", frozenset()) if isinstance(spec, P) else frozenset()


def _plain(spec: P) -> P:
    return P(*spec, reduced=spec.reduced)


def split(f: Callable, out_specs: Any) -> tuple[Callable, Any, Callable | None]:
    """``(body, out_specs, retag)``: ``f`` summing its unreduced outputs, the out_specs without
    their unreduced axes, and the cast of the results to their unreduced types (None when no
    out_spec is unreduced, or out_specs is not a P or a tuple/list of them)."""
    if isinstance(out_specs, P):
        specs, single = [out_specs], True
    elif isinstance(out_specs, (tuple, list)) and all(isinstance(s, P) for s in out_specs):
        specs, single = list(out_specs), False
    else:
        return f, out_specs, None
    if not any(_unreduced(s) for s in specs):
        return f, out_specs, None
    from spmd._src.lax import parallel  # lazy: collectives sit above shard_map's helpers

    def each(outs, fn):
        if single:
            return tu.tree_map(lambda o: fn(o, specs[0]), outs)
        return type(outs)(tu.tree_map(lambda o, s=s: fn(o, s), o) for o, s in zip(outs, specs))

    def summed(o, spec):
        axes = tuple(sorted(_unreduced(spec), key=str))
        return parallel.psum(o, axes) if axes else o

    @functools.wraps(f)
    def body(*args):
        return each(f(*args), summed)

    plain = _plain(specs[0]) if single else type(out_specs)(_plain(s) for s in specs)

    def retag(outs, mesh):
        from spmd._src.lax.sharding import reshard  # lazy: reshard is a lax primitive

        def cast(o, spec):
            if not _unreduced(spec):
                return o
            return reshard(o, NamedSharding(mesh, spec._full_rank(len(o.shape))))

        return each(outs, cast)

    return body, plain, retag
