"""One-level pytree views and the registry object: ``flatten_one_level``, ``is_tree_node`` and
``default_registry`` with JAX's names and results.

``flatten_one_level`` gives a node's direct children and its metadata in JAX's forms: a dict's
children in sorted-key order with its keys as a tuple, a namedtuple's type, a defaultdict's
``(default_factory, keys)``, and a registered class's children and auxiliary data as its own
flatten function returns them.

>>> flatten_one_level({"b": 1, "a": 2})
((2, 1), ('a', 'b'))
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import optree

from spmd._src import tree_util as tu
from spmd._src.key_arrays import is_key_array, is_key_type
from spmd._src.tree_util_paths import _child_key

_LIST_CHILDREN = (
    int(optree.PyTreeKind.NAMEDTUPLE),
    int(optree.PyTreeKind.ORDEREDDICT),
    int(optree.PyTreeKind.DEFAULTDICT),
    int(optree.PyTreeKind.LIST),
)


def is_tree_node(typ: type) -> bool:
    """Whether ``typ`` (a type, not a value) is a pytree node type: a built-in container,
    a namedtuple class, or a registered class."""
    if typ is None:
        raise TypeError("is_tree_node(): expected a type, got None")
    if not isinstance(typ, type):
        return False  # a value is not a type, as JAX answers
    if is_key_type(typ):
        return False  # a typed key array is a leaf to users, as in JAX (tree_util_public)
    return optree.register_pytree_node.get(typ, namespace=tu.NAMESPACE) is not None or (
        optree.is_namedtuple_class(typ)
    )


def _one_level(tree: Any) -> tuple[Any, Any, tuple] | None:
    """``(children, metadata, entries)`` in JAX's forms, or None for a leaf."""
    if not tu._is_node(tree) or is_key_array(tree):
        return None
    children, meta, entries, _ = optree.tree_flatten_one_level(tree, **tu._OPTS)
    entry = optree.register_pytree_node.get(type(tree), namespace=tu.NAMESPACE)
    kind = int(entry.kind) if entry is not None else int(optree.PyTreeKind.NAMEDTUPLE)
    if kind == int(optree.PyTreeKind.CUSTOM):
        # A registered class: its flatten function's own children and auxiliary data.
        out = entry.flatten_func(tree)
        return out[0], out[1], entries
    if kind == int(optree.PyTreeKind.DEFAULTDICT):
        return list(children), (meta[0], tuple(meta[1])), entries
    if isinstance(meta, list):  # dict and OrderedDict keys
        meta = tuple(meta)
    if kind in _LIST_CHILDREN:
        return list(children), meta, entries
    return tuple(children), meta, entries


def flatten_one_level(tree: Any) -> tuple[Iterable[Any], Any]:
    """A node's direct children and its metadata; ValueError for a leaf."""
    got = _one_level(tree)
    if got is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return got[0], got[1]


def flatten_one_level_with_keys(tree: Any) -> tuple[Iterable[tuple], Any]:
    """A node's direct children paired with their keys, and its metadata; ValueError for a
    leaf."""
    got = default_registry.flatten_one_level_with_keys(tree)
    if got is None:
        raise ValueError(f"can't tree-flatten type: {type(tree)}")
    return got


class PyTreeRegistry:
    """The pytree registry (JAX's ``default_registry``): flatten with it, ask it whether a type
    is a node, register node types in it."""

    def flatten(
        self, tree: Any, leaf_predicate: Callable[[Any], bool] | None = None
    ) -> tuple[list[Any], tu.PyTreeDef]:
        return tu.tree_flatten(tree, is_leaf=leaf_predicate)

    def flatten_with_path(self, tree: Any, leaf_predicate: Callable | None = None):
        return tu.tree_flatten_with_path(tree, is_leaf=leaf_predicate)

    def flatten_one_level(self, tree: Any) -> tuple[Iterable[Any], Any] | None:
        got = _one_level(tree)
        return None if got is None else (got[0], got[1])

    def flatten_one_level_with_keys(self, tree: Any) -> tuple[Iterable[tuple], Any] | None:
        got = _one_level(tree)
        if got is None:
            return None
        children, meta, entries = got
        keys = [_child_key(tree, e) for e in entries]
        return tuple(zip(keys, children)), meta

    def is_node(self, type: type) -> bool:  # noqa: A002 -- JAX's parameter name
        return is_tree_node(type)

    def register_node(
        self,
        type: type,  # noqa: A002
        to_iterable: Callable,
        from_iterable: Callable,
        to_iterable_with_keys: Callable | None = None,
    ) -> None:
        tu.register_pytree_node(type, to_iterable, from_iterable, to_iterable_with_keys)

    def register_dataclass_node(
        self,
        type: type,  # noqa: A002
        data_fields: Sequence[str],
        meta_fields: Sequence[str],
        /,
    ) -> None:
        tu.register_dataclass(type, data_fields=list(data_fields), meta_fields=list(meta_fields))


default_registry = PyTreeRegistry()
__all__ = [
    "PyTreeRegistry",
    "default_registry",
    "flatten_one_level",
    "flatten_one_level_with_keys",
    "is_tree_node",
]
