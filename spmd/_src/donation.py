"""Buffer donation in jit (``donate_argnums``/``donate_argnames``), as JAX's on CPU.

A donated Array whose buffer a result of the same shape and element size can take is deleted
after the call (each result takes at most one; using the array again raises RuntimeError, or
ValueError in a program already compiled for it, as JAX's);
the others stay valid, and a warning says so once per argument types. spmd computes in NumPy
and does not write results into donated buffers: deleting them keeps programs honest (what
runs here runs under JAX).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from spmd._src import tree_util as tu
from spmd._src.array import Array, Donated


def donated_args(nums: Sequence[int], names: Any, pos_names: Sequence[str]) -> tuple:
    """(positions, names) of the donated arguments: each way also names the other (JAX)."""
    names = set(() if names is None else (names,) if isinstance(names, str) else names)
    nums = set(nums)
    for n in list(names):
        if n in pos_names:
            nums.add(pos_names.index(n))
    for i in list(nums):
        if i < len(pos_names):
            names.add(pos_names[i])
    return frozenset(nums), frozenset(names)


def donating_call(jitted: Any, args: tuple, kwargs: dict, call: Callable[[], Any]) -> Any:
    """Run ``call()`` (``jitted``, a jit with donated arguments, on ``args`` and ``kwargs``)
    eagerly, then delete the donated Arrays a result can reuse."""
    nums, names = jitted._donated
    trees = [a for i, a in enumerate(args) if i in nums]
    trees += [v for k, v in kwargs.items() if k in names]
    donated = [x for x in tu.tree_leaves(trees) if type(x) is Array]
    seen: set = set()
    for x in donated:  # refused before any work
        if x.is_deleted() and type(x._value) is not Donated:
            x._value.fail()  # (a donated one: the call raises JAX's error for it)
        if id(x) in seen:
            raise ValueError(
                f"jit({jitted.__name__}): the donated array {x.aval.str_short()} is passed "
                "twice; a donated buffer may be used once per call (JAX: 'Attempt to use a "
                "buffer that was previously donated in the same call')"
            )
        seen.add(id(x))
    out = call()
    free = [(o.shape, o.dtype.itemsize) for o in tu.tree_leaves(out) if type(o) is Array]
    unusable = []
    for x in donated:
        key = (x.shape, x.dtype.itemsize)
        if key in free:
            free.remove(key)
            x._value = Donated(x.shape, x.dtype)
        else:
            unusable.append(x.aval.str_short(short_dtypes=False))
    if unusable:
        sig = tuple((x.shape, x.dtype) for x in donated)
        if sig not in jitted._donation_warned:
            jitted._donation_warned.add(sig)
            warnings.warn(
                f"Some donated buffers were not usable: {', '.join(unusable)}.\n"
                f"jit({jitted.__name__}) has no result of the same shape and element size to "
                "reuse them for; they stay valid.",
                UserWarning,
                stacklevel=3,
            )
    return out
