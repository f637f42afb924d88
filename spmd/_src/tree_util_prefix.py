"""Prefix matching of pytrees: a spec tree (vmap's ``in_axes``, shard_map's ``in_specs``,
device_put's shardings, ...) broadcast over the value tree it is a prefix of, and JAX's errors
naming where the two trees part.

Imported by ``tree_util`` at its end (which re-exports these names: callers reach them as
``tree_util.X``); import ``tree_util``, not this module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import optree

from spmd._src.tree_util import (
    _OPTS,
    _PLACEHOLDER,
    KeyPath,
    PyTreeDef,
)
from spmd._src.tree_util_paths import _DICT_TYPES, _child_key, keystr


def _is_node(x: Any) -> bool:
    return not optree.tree_is_leaf(x, **_OPTS)


def _type_name(t: type) -> str:
    if t is type(None):
        return "None"
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _find_mismatch(prefix: Any, full: Any, is_leaf, path: KeyPath) -> tuple[KeyPath, str] | None:
    """The first place where ``prefix`` is not a tree prefix of ``full``, as (key path, what
    differs), or None. ``is_leaf`` applies to ``prefix`` only."""
    if (is_leaf is not None and is_leaf(prefix)) or not _is_node(prefix):
        return None
    pt = _type_name(type(prefix))
    if prefix is None:
        pt = "None (an empty subtree, not a leaf)"
    if not _is_node(full):
        return path, (
            f"the prefix tree has a {pt} node there, but the full tree has a leaf of type "
            f"{_type_name(type(full))}"
        )
    p = optree.tree_flatten_one_level(prefix, **_OPTS)
    f = optree.tree_flatten_one_level(full, **_OPTS)
    ft = _type_name(type(full))
    if isinstance(prefix, _DICT_TYPES) and isinstance(full, _DICT_TYPES):
        pk, fk = list(p.entries), list(f.entries)
        if set(pk) != set(fk):
            only_p = [k for k in pk if k not in set(fk)]
            only_f = [k for k in fk if k not in set(pk)]
            diff = [f"only in the prefix: {only_p}"] if only_p else []
            diff += [f"only in the full tree: {only_f}"] if only_f else []
            return path, (
                f"the prefix tree has a {pt} with keys {pk}, but the full tree has a {ft} with "
                f"keys {fk} ({'; '.join(diff)})"
            )
    elif type(prefix) is not type(full):
        return path, (
            f"the prefix tree has a {pt} node there, but the full tree has a {ft} node "
            f"(pytree node types must be equal)"
        )
    elif len(p.children) != len(f.children):
        return path, (
            f"the prefix tree has a {pt} with {len(p.children)} children, but the full tree "
            f"has a {ft} with {len(f.children)} children"
        )
    else:
        try:
            same = bool(p.metadata == f.metadata)
        except Exception:
            same = p.metadata is f.metadata
        if not same:
            return path, (
                f"the prefix tree and the full tree have {pt} nodes with different metadata: "
                f"{p.metadata!r} vs {f.metadata!r}"
            )
    for pc, fc, entry in zip(p.children, f.children, p.entries):
        found = _find_mismatch(pc, fc, is_leaf, (*path, _child_key(prefix, entry)))
        if found is not None:
            return found
    return None


def _explain_prefix_error(prefix: Any, full: Any, is_leaf, root: str) -> str | None:
    found = _find_mismatch(prefix, full, is_leaf, ())
    if found is None:
        return None
    path, what = found
    return f"pytree structure mismatch at key path {root}{keystr(path)}: {what}."


def broadcast_prefix(
    prefix_tree: Any, full_tree: Any, is_leaf: Callable[[Any], bool] | None = None
) -> list[Any]:
    """For each leaf of ``full_tree``, the leaf of ``prefix_tree`` whose subtree holds it.

    ``prefix_tree`` must be a tree prefix of ``full_tree`` (``is_leaf`` applies to the prefix;
    pass ``is_leaf=lambda x: x is None`` to let None stand for a whole subtree).

    >>> broadcast_prefix((0, None), ([1, 2], {"a": 3}), is_leaf=lambda x: x is None)
    [0, 0, None]
    """
    leaves, spec = optree.tree_flatten(prefix_tree, is_leaf, **_OPTS)
    try:
        subtrees = spec.flatten_up_to(full_tree)
    except ValueError as e:
        msg = _explain_prefix_error(prefix_tree, full_tree, is_leaf, "prefix_tree") or str(e)
        raise ValueError(
            f"broadcast_prefix: prefix_tree is not a prefix of full_tree; {msg}"
        ) from (None)
    out: list[Any] = []
    for leaf, sub in zip(leaves, subtrees):
        out.extend([leaf] * len(optree.tree_leaves(sub, **_OPTS)))
    return out


def _none_is_leaf(x: Any) -> bool:
    return x is None


def flatten_axes(
    name: str,
    treedef: PyTreeDef,
    axis_tree: Any,
    *,
    kws: bool = False,
    tupled_args: bool = False,
) -> list[Any]:
    """Broadcast an axis specification (``in_axes``, ``in_specs``, ...) over a structure.

    ``axis_tree`` is a tree prefix of the value whose structure is ``treedef``; its leaves,
    including None (which here means "not mapped", not an empty subtree), are repeated over the
    leaves they cover. ``name`` labels the error, e.g. ``"vmap in_axes"``. With ``kws`` the
    structure is ``(args, kwargs)`` and errors are reported for the positional part; with
    ``tupled_args`` the error hints that the spec must be a tuple with one entry per argument.

    >>> flatten_axes("vmap in_axes", tree_structure(((1, 2), {"a": 3})), (0, None))
    [0, 0, None]
    """
    dummy = treedef.unflatten([_PLACEHOLDER] * treedef.num_leaves)
    leaves, spec = optree.tree_flatten(axis_tree, _none_is_leaf, **_OPTS)
    try:
        subtrees = spec.flatten_up_to(dummy)
    except ValueError as e:
        prefix, full = axis_tree, dummy
        if kws:
            prefix, full = axis_tree[0], dummy[0]
        msg = _explain_prefix_error(prefix, full, _none_is_leaf, name) or str(e)
        hint = ""
        if tupled_args:
            hint = (
                f" A {name} that is a non-trivial pytree must be a tuple with one entry per "
                f"positional argument."
            )
        raise ValueError(
            f"{name} specification must be a tree prefix of the corresponding value.{hint}\n  {msg}"
        ) from None
    out: list[Any] = []
    for leaf, sub in zip(leaves, subtrees):
        out.extend([leaf] * len(optree.tree_leaves(sub, **_OPTS)))
    assert len(out) == treedef.num_leaves
    return out
