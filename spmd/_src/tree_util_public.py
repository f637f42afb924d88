"""The public pytree functions (``jax.tree_util.tree_map``, ``jax.tree.leaves``, ...): typed key
arrays are leaves.

In JAX a typed key array is an array of dtype ``key<fry>``, so ``tree_leaves`` returns it whole
and ``tree_map(lambda x: x.shape, keys)`` gives the keys' shape. spmd's key array is a pytree
node over its ``uint32[..., 2]`` data inside spmd, which is how ``jit``, ``vmap`` and the other
transformations carry keys; these user-facing functions stop at it instead, so user code sees
what it sees in JAX. Each is spmd._src.tree_util's function with ``is_leaf`` extended.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from spmd._src import tree_util as tu
from spmd._src.key_arrays import is_key_array


def _with_key_leaves(is_leaf: Callable[[Any], bool] | None) -> Callable[[Any], bool]:
    if is_leaf is None:
        return is_key_array
    return lambda x: is_key_array(x) or is_leaf(x)


def _keys_are_leaves(fn: Callable) -> Callable:
    @functools.wraps(fn)
    def wrapped(*args, is_leaf=None, **kwargs):
        return fn(*args, is_leaf=_with_key_leaves(is_leaf), **kwargs)

    return wrapped


tree_flatten = _keys_are_leaves(tu.tree_flatten)
tree_leaves = _keys_are_leaves(tu.tree_leaves)
tree_structure = _keys_are_leaves(tu.tree_structure)
tree_map = _keys_are_leaves(tu.tree_map)
tree_flatten_with_path = _keys_are_leaves(tu.tree_flatten_with_path)
tree_leaves_with_path = _keys_are_leaves(tu.tree_leaves_with_path)
tree_map_with_path = _keys_are_leaves(tu.tree_map_with_path)
tree_reduce = _keys_are_leaves(tu.tree_reduce)
tree_all = _keys_are_leaves(tu.tree_all)
tree_broadcast = _keys_are_leaves(tu.tree_broadcast)
all_leaves = _keys_are_leaves(tu.all_leaves)
