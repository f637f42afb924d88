"""``jnp.einsum_path``: the contraction order ``spmd.numpy.einsum`` uses, with its costs."""

from __future__ import annotations

import builtins
import operator
from typing import Any

import numpy as np
from spmd._src.numpy.einsum import _contraction_path, _parse_einsum, _parse_interleaved
from spmd._src.util import prod

_int32 = np.dtype(np.int32)
_uint8 = np.dtype(np.uint8)
_bool = np.dtype(np.bool_)

# ---------------------------------------------------------------------------------------------
# einsum_path

_PATH_STRATEGIES = (
    True,
    "auto",
    "auto-hq",
    "greedy",
    "optimal",
    "dp",
    "branch-all",
    "branch-2",
    "branch-1",
    "random-greedy",
    "random-greedy-128",
)


class EinsumPathInfo:
    """What ``jnp.einsum_path`` found: the contraction ``path`` and its cost (FLOPs counted as
    opt_einsum does); ``str()`` prints a summary table.

    >>> info = jnp.einsum_path("ij,jk->ik", jnp.ones((2, 3)), jnp.ones((3, 4)))[1]
    >>> info.path, info.opt_cost
    ([(0, 1)], 48)
    """

    def __init__(self, eq, inputs, output, sizes, path, steps, naive_cost, naive_scale):
        self.eq = eq
        self.input_subscripts = ",".join(inputs)
        self.output_subscript = output
        self.size_dict = dict(sizes)
        self.path = list(path)
        self.contraction_list = steps
        self.naive_cost = naive_cost
        self.opt_cost = builtins.sum(c for _, _, c, _, _ in steps)
        self.speedup = naive_cost / builtins.max(self.opt_cost, 1)
        self.scale_list = [len(u) for _, u, _, _, _ in steps]
        self.size_list = [prod(sizes[c] for c in new) for _, _, _, new, _ in steps]
        self.largest_intermediate = builtins.max(self.size_list, default=1)
        self._naive_scale = naive_scale

    def __repr__(self) -> str:
        lines = [
            f"  Complete contraction:  {self.eq}",
            f"         Naive scaling:  {self._naive_scale}",
            f"     Optimized scaling:  {builtins.max(self.scale_list, default=0)}",
            f"      Naive FLOP count:  {self.naive_cost:.3e}",
            f"  Optimized FLOP count:  {self.opt_cost:.3e}",
            f"   Theoretical speedup:  {self.speedup:.3e}",
            f"  Largest intermediate:  {self.largest_intermediate:.3e} elements",
            "-" * 80,
            f"{'scaling':<10}{'current':>30}{'remaining':>40}",
            "-" * 80,
        ]
        for current, union, _, _, remaining in self.contraction_list:
            lines.append(f"{len(union):>4}      {current:>30}{remaining:>40}")
        return "\n".join(lines)

    __str__ = __repr__


def _flop_count(indices: set, inner: bool, num_terms: int, sizes: dict) -> int:
    factor = builtins.max(1, num_terms - 1) + (1 if inner else 0)
    return prod(sizes[c] for c in indices) * factor


def einsum_path(subscripts: Any, /, *operands: Any, optimize: Any = "auto") -> tuple[list, Any]:
    """The order in which ``jnp.einsum`` would contract its operands (a list of position tuples
    in the shrinking operand list, each result appended at the end) and a summary of the cost.

    ``optimize=False`` contracts left to right; a list is taken as the path; any strategy name
    gives the path ``jnp.einsum`` uses (an exhaustive search up to 5 operands, else greedy).

    >>> a, b, c = jnp.ones((2, 3)), jnp.ones((3, 4)), jnp.ones((4, 5))
    >>> jnp.einsum_path("ij,jk,kl->il", a, b, c)[0]
    [(0, 1), (0, 1)]
    """
    if isinstance(subscripts, str):
        spec, ops = subscripts, list(operands)
    else:
        spec, ops = _parse_interleaved((subscripts, *operands))
    shapes = [tuple(o.shape) if hasattr(o, "shape") else np.shape(o) for o in ops]
    labels, out, sizes = _parse_einsum(spec, shapes)
    n = len(labels)
    if isinstance(optimize, (list, tuple)):
        # NumPy's paths start with the marker "einsum_path".
        steps = [step for step in optimize if step != "einsum_path"]
        path = [tuple(operator.index(i) for i in step) for step in steps]
    elif optimize is False or optimize is None:
        path = [(0, 1)] * (n - 1) if n > 1 else [(0,)]
    elif optimize in _PATH_STRATEGIES:
        path = [(0,)] if n == 1 else _contraction_path(labels, sizes, out)
    else:
        raise ValueError(
            f"einsum_path: optimize must be a bool, a strategy name or an explicit path, got "
            f"{optimize!r}"
        )
    terms, steps = list(labels), []
    for step in path:
        if not step or any(not 0 <= i < len(terms) for i in step) or len(set(step)) != len(step):
            raise ValueError(
                f"einsum_path: invalid contraction {step} for {len(terms)} remaining operands "
                f"(path {path})"
            )
        picked = [terms[i] for i in sorted(step, reverse=True)]
        rest = [t for i, t in enumerate(terms) if i not in step]
        keep = set(out).union(*(set(t) for t in rest))
        union = set("".join(picked))
        new = out if not rest else "".join(dict.fromkeys(c for c in "".join(picked) if c in keep))
        cost = _flop_count(union, bool(union - set(new)), len(picked), sizes)
        terms = [*rest, new]
        current = ",".join(picked) + "->" + new
        steps.append((current, union, cost, new, ",".join(terms) + "->" + out))
    if len(terms) != 1:
        raise ValueError(f"einsum_path: the path {path} leaves {len(terms)} operands uncontracted")
    all_idx = set("".join(labels))
    # As opt_einsum counts it: a naive contraction has an inner product when a label repeats.
    naive = _flop_count(all_idx, builtins.sum(map(len, labels)) > len(all_idx), n, sizes)
    eq = ",".join(labels) + "->" + out
    return path, EinsumPathInfo(eq, labels, out, sizes, path, steps, naive, len(all_idx))


__all__ = [
    "einsum_path",
]
