"""``associative_scan``: an inclusive prefix scan with an associative combining function, in
logarithmic depth.

No primitive: the scan is a tree of slices, calls of ``fn``, pads and concatenations, so jit,
vmap and the derivatives apply to it as to any lax program. The tree is the one JAX builds
(neighbours are combined in pairs, the pairs scanned recursively, then the even positions
filled in), so floating-point sums associate as in JAX and ties in max/min get the same
derivatives.

>>> lax.associative_scan(jnp.add, jnp.arange(5))
Array([ 0,  1,  3,  6, 10], dtype=int32)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from spmd._src import tree_util
from spmd._src.util import canonicalize_axis


def _lax():
    # Imported when the scan runs: this package loads before the modules it calls into.
    from spmd._src.lax import shape
    from spmd._src.lax.elementwise import arithmetic, bitwise
    from spmd._src.lax.elementwise.common import _const

    return shape, arithmetic, bitwise, _const


def _interleave(a, b, axis: int):
    """``a[0], b[0], a[1], b[1], ...`` along ``axis`` (``a`` has as many elements as ``b``
    or one more): each is spread out with interior zero padding and the two are summed."""
    shape, arithmetic, bitwise, const = _lax()
    same = np.shape(a)[axis] == np.shape(b)[axis]
    cfg_a = [(0, 0, 0)] * np.ndim(a)
    cfg_b = [(0, 0, 0)] * np.ndim(b)
    cfg_a[axis] = (0, 1 if same else 0, 1)
    cfg_b[axis] = (1, 0 if same else 1, 1)
    # Booleans have no add: or-ing with False interleaves them the same way.
    op = bitwise.bitwise_or if a.dtype == np.bool_ else arithmetic.add
    from spmd._src.lax.padding import pad  # (as _lax: loaded when the scan runs)

    return op(pad(a, const(a, 0), cfg_a), pad(b, const(b, 0), cfg_b))


def associative_scan(fn: Callable, elems: Any, reverse: bool = False, axis: int = 0) -> Any:
    """Inclusive scan of ``elems`` along ``axis`` with the associative ``fn``.

    ``elems`` is an array or a pytree of arrays that all have the same length along ``axis``;
    ``fn(a, b)`` combines two such pytrees (of slices) elementwise and returns one of the same
    structure. With ``reverse=True`` the scan runs from the end. The result has the structure
    and shapes of ``elems``: element ``i`` is ``fn`` folded over elements ``0..i``.

    >>> lax.associative_scan(jnp.maximum, jnp.array([1, 3, 2, 5, 4]))
    Array([1, 3, 3, 5, 5], dtype=int32)
    """
    shape = _lax()[0]
    leaves, treedef = tree_util.tree_flatten(elems)
    if not leaves:
        raise IndexError(f"associative_scan: elems holds no arrays (got {elems!r})")
    axis = canonicalize_axis(axis, np.ndim(leaves[0]), fn="associative_scan")
    if reverse:
        leaves = [shape.rev(x, (axis,)) for x in leaves]

    def combine(a, b):
        out = fn(tree_util.tree_unflatten(treedef, a), tree_util.tree_unflatten(treedef, b))
        return tree_util.tree_leaves(out)

    n = np.shape(leaves[0])[axis]
    if any(np.shape(x)[axis] != n for x in leaves[1:]):
        raise ValueError(
            "Array inputs to associative_scan must have the same first dimension. (saw: "
            f"{[tuple(np.shape(x)) for x in leaves]})"
        )

    def sl(x, start, stop, stride=1):
        return shape.slice_in_dim(x, start, stop, stride, axis)

    def scan(xs):
        m = np.shape(xs[0])[axis]
        if m < 2:
            return xs
        # Pairs (0, 1), (2, 3), ...: their scan gives the results at the odd positions.
        odd = scan(combine([sl(x, 0, -1, 2) for x in xs], [sl(x, 1, None, 2) for x in xs]))
        # The even positions 2, 4, ... add their own element to the odd result before them
        # (with an even length the last odd result has no even position after it).
        before = [sl(o, 0, -1) for o in odd] if m % 2 == 0 else odd
        even = combine(before, [sl(x, 2, None, 2) for x in xs])
        even = [shape.concatenate([sl(x, 0, 1), e], axis) for x, e in zip(xs, even)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    out = scan(leaves)
    if reverse:
        out = [shape.rev(x, (axis,)) for x in out]
    return tree_util.tree_unflatten(treedef, out)


__all__ = ["associative_scan"]
