"""Pytree utilities under JAX's ``jax.tree`` names (re-exports).

>>> from spmd import tree
>>> tree.map(lambda x: x * 2, {"a": 1, "b": (2, 3)})
{'a': 2, 'b': (4, 6)}
"""

from spmd._src.tree_util import static
from spmd._src.tree_util import tree_reduce_associative as reduce_associative
from spmd._src.tree_util import tree_transpose as transpose
from spmd._src.tree_util import tree_unflatten as unflatten
from spmd._src.tree_util_public import tree_all as all
from spmd._src.tree_util_public import tree_broadcast as broadcast
from spmd._src.tree_util_public import tree_flatten as flatten
from spmd._src.tree_util_public import tree_flatten_with_path as flatten_with_path
from spmd._src.tree_util_public import tree_leaves as leaves
from spmd._src.tree_util_public import tree_leaves_with_path as leaves_with_path
from spmd._src.tree_util_public import tree_map as map
from spmd._src.tree_util_public import tree_map_with_path as map_with_path
from spmd._src.tree_util_public import tree_reduce as reduce
from spmd._src.tree_util_public import tree_structure as structure

__all__ = [
    "all",
    "broadcast",
    "flatten",
    "flatten_with_path",
    "leaves",
    "leaves_with_path",
    "map",
    "map_with_path",
    "reduce",
    "reduce_associative",
    "static",
    "structure",
    "transpose",
    "unflatten",
]
