"""Key paths: where a leaf sits in a pytree, as a tuple of keys (``['a'][0].x``).

The key classes, :func:`keystr`, and the translation from optree's path entries (and from a
node's flattening entries) to these keys. :mod:`spmd._src.tree_util` re-exports the public names
and builds the ``*_with_path`` functions on top of them.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Hashable
from typing import Any

import optree

__all__ = [
    "DictKey",
    "FlattenedIndexKey",
    "GetAttrKey",
    "KeyEntry",
    "KeyPath",
    "SequenceKey",
    "keystr",
]


@dataclasses.dataclass(frozen=True, slots=True)
class SequenceKey:
    """Key of a tuple or list element: ``SequenceKey(1)`` prints as ``[1]``."""

    idx: int

    def __str__(self) -> str:
        return f"[{self.idx!r}]"


@dataclasses.dataclass(frozen=True, slots=True)
class DictKey:
    """Key of a dict entry: ``DictKey('a')`` prints as ``['a']``."""

    key: Hashable

    def __str__(self) -> str:
        return f"[{self.key!r}]"


@dataclasses.dataclass(frozen=True, slots=True)
class GetAttrKey:
    """Key of an attribute (namedtuple field, dataclass field): prints as ``.name``."""

    name: str

    def __str__(self) -> str:
        return f".{self.name}"


@dataclasses.dataclass(frozen=True, slots=True)
class FlattenedIndexKey:
    """Position of a child of a custom node registered without keys."""

    key: int

    def __str__(self) -> str:
        return f"[<flat index {self.key}>]"


_KEY_TYPES = (SequenceKey, DictKey, GetAttrKey, FlattenedIndexKey)
KeyEntry = Any  # one of the key classes above, or any hashable a custom node chose
KeyPath = tuple[KeyEntry, ...]


def keystr(keys: KeyPath, *, simple: bool = False, separator: str = "") -> str:
    """Render a key path as text.

    >>> keystr((DictKey("a"), SequenceKey(0), GetAttrKey("x")))
    "['a'][0].x"
    >>> keystr((DictKey("a"), SequenceKey(0)), simple=True, separator="/")
    'a/0'
    """
    if simple:
        return separator.join(_simple_key(k) for k in keys)
    return separator.join(str(k) for k in keys)


def _simple_key(k: Any) -> str:
    if isinstance(k, SequenceKey):
        return str(k.idx)
    if isinstance(k, DictKey):
        return str(k.key)
    if isinstance(k, GetAttrKey):
        return k.name
    if isinstance(k, FlattenedIndexKey):
        return str(k.key)
    return str(k)


class _NodeEntry(optree.PyTreeEntry):
    """optree path entry for nodes registered here; ``entry`` is already a JAX-style key, or
    the child's position when the node was registered without keys."""

    __slots__ = ()


def _entry_to_key(e: optree.PyTreeEntry) -> KeyEntry:
    cls = type(e)
    if cls is optree.SequenceEntry:
        return SequenceKey(e.entry)
    if cls is optree.MappingEntry:
        return DictKey(e.entry)
    if cls is optree.NamedTupleEntry or cls is optree.StructSequenceEntry:
        return GetAttrKey(e.field)
    if cls is _NodeEntry:
        k = e.entry
        return k if isinstance(k, _KEY_TYPES) else FlattenedIndexKey(k)
    if isinstance(e, optree.GetAttrEntry):
        return GetAttrKey(e.name)
    return FlattenedIndexKey(e.entry)


_DICT_TYPES = (dict, collections.OrderedDict, collections.defaultdict)


def _child_key(node: Any, entry: Any) -> KeyEntry:
    # The key of the child that ``optree.tree_flatten_one_level(node)`` lists under ``entry``, as
    # prefix-mismatch errors print it.
    t = type(node)
    if t in _DICT_TYPES:
        return DictKey(entry)
    if t in (tuple, list, collections.deque):
        return SequenceKey(entry)
    if optree.is_namedtuple_instance(node) or optree.is_structseq_instance(node):
        fields = (
            optree.namedtuple_fields(node)
            if optree.is_namedtuple_instance(node)
            else optree.structseq_fields(node)
        )
        return GetAttrKey(fields[entry])
    return entry if isinstance(entry, _KEY_TYPES) else FlattenedIndexKey(entry)
