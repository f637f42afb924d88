"""Pytrees: nested containers of arrays, with JAX's names and rules, on top of optree.

A pytree is a nested structure of registered containers (tuples, lists, dicts, namedtuples,
``None``, and any class registered here) whose non-container elements are its *leaves*. JAX's
conventions hold throughout:

- ``None`` is an empty container: it has no leaves and is kept in the structure.
- dicts are flattened in sorted-key order, and rebuilt with their keys sorted.
- namedtuples are containers whose key paths are attribute names.

Registrations go to the optree namespace ``"spmd"``, so they never collide with other users of
optree in the same process.

>>> leaves, treedef = tree_flatten((1, {"b": 2, "a": None}))
>>> leaves, treedef
([1, 2], PyTreeDef((*, {'a': None, 'b': *})))

Known differences from JAX: ``collections.deque`` and struct sequences (``time.struct_time``) are
containers here (optree's built-in rule) while JAX treats them as leaves; dict, OrderedDict and
defaultdict nodes with the same keys match each other when one tree is checked against another.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import optree
from optree import PyTreeKind

# The key-path machinery lives in its own module; its names are re-exported here because callers
# reach everything pytree-related as ``tree_util.X``.
from spmd._src.tree_util_paths import (
    DictKey,
    FlattenedIndexKey,
    GetAttrKey,
    KeyEntry,
    KeyPath,
    SequenceKey,
    _entry_to_key,
    _NodeEntry,
    keystr,
)

__all__ = [
    "DictKey",
    "FlattenedIndexKey",
    "GetAttrKey",
    "KeyEntry",
    "KeyPath",
    "Partial",
    "PyTreeDef",
    "SequenceKey",
    "all_leaves",
    "broadcast_prefix",
    "build_tree",
    "flatten_axes",
    "keystr",
    "register_dataclass",
    "register_pytree_node",
    "register_pytree_node_class",
    "register_pytree_with_keys",
    "register_pytree_with_keys_class",
    "register_static",
    "static",
    "tree_all",
    "tree_broadcast",
    "tree_flatten",
    "tree_flatten_with_path",
    "tree_leaves",
    "tree_leaves_with_path",
    "tree_map",
    "tree_map_with_path",
    "tree_reduce",
    "tree_reduce_associative",
    "tree_structure",
    "tree_transpose",
    "tree_unflatten",
    "treedef_children",
    "treedef_is_leaf",
    "treedef_tuple",
]

T = TypeVar("T")
Typ = TypeVar("Typ", bound=type)

NAMESPACE = "spmd"
# Every optree call goes through these options, so None is always an empty node and our
# registrations are always visible.
_OPTS: dict[str, Any] = {"none_is_leaf": False, "namespace": NAMESPACE}

_K_CUSTOM = int(PyTreeKind.CUSTOM)
_K_LEAF = int(PyTreeKind.LEAF)
_K_NONE = int(PyTreeKind.NONE)
_K_TUPLE = int(PyTreeKind.TUPLE)
_K_LIST = int(PyTreeKind.LIST)
_K_DICT = int(PyTreeKind.DICT)
_K_NAMEDTUPLE = int(PyTreeKind.NAMEDTUPLE)
_K_ORDEREDDICT = int(PyTreeKind.ORDEREDDICT)
_K_DEFAULTDICT = int(PyTreeKind.DEFAULTDICT)
_K_DEQUE = int(PyTreeKind.DEQUE)
_K_STRUCTSEQ = int(PyTreeKind.STRUCTSEQUENCE)
_K_FROZENDICT = int(getattr(PyTreeKind, "FROZENDICT", -1))


# --------------------------------------------------------------------------------------------
# PyTreeDef


def _spec_nodes(spec: optree.PyTreeSpec) -> tuple:
    """The nodes of ``spec`` in post-order, each ``(kind, arity, node_data, entries, type, ...)``.

    This reads optree's pickled form, which is the only way optree exposes node metadata.
    """
    return spec.__getstate__()[0]


def _dict_keys_of(kind: int, data: Any) -> list:
    return list(data[1]) if kind == _K_DEFAULTDICT else list(data)


def _sorted_dict_spec(spec: optree.PyTreeSpec) -> optree.PyTreeSpec:
    """A spec equal to ``spec`` whose dicts unflatten with sorted keys, as JAX's do.

    optree remembers each dict's insertion order and restores it on unflatten; JAX rebuilds
    dicts in sorted-key order. Returns ``spec`` itself when nothing needs reordering.
    """
    try:
        state = spec.__getstate__()
        nodes = list(state[0])
        changed = False
        for i, n in enumerate(nodes):
            if n[0] in (_K_DICT, _K_DEFAULTDICT) and len(n) == 8 and n[7] is not None:
                keys = _dict_keys_of(n[0], n[2])
                if list(n[7]) != keys:
                    nodes[i] = (*n[:7], dict.fromkeys(keys))
                    changed = True
        if not changed:
            return spec
        new = optree.PyTreeSpec.__new__(optree.PyTreeSpec)
        new.__setstate__((tuple(nodes), *state[1:]))
        return new
    except Exception:  # an optree whose pickled form we do not know: keep its order
        return spec


def _render_spec(spec: optree.PyTreeSpec) -> str:
    """JAX's text for a tree structure, e.g. ``(*, {'a': *})``."""
    stack: list[str] = []
    for node in _spec_nodes(spec):
        kind, arity, data, _entries, ctype = node[:5]
        kids = stack[len(stack) - arity :] if arity else []
        if arity:
            del stack[len(stack) - arity :]
        inner = ", ".join(kids)
        if kind == _K_LEAF:
            s = "*"
        elif kind == _K_NONE:
            s = "None"
        elif kind == _K_TUPLE:
            s = f"({inner},)" if arity == 1 else f"({inner})"
        elif kind == _K_LIST:
            s = f"[{inner}]"
        elif kind in (_K_DICT, _K_FROZENDICT):
            s = "{" + ", ".join(f"{k!r}: {c}" for k, c in zip(data, kids)) + "}"
        elif kind == _K_NAMEDTUPLE:
            s = f"CustomNode(namedtuple[{data.__name__}], [{inner}])"
        elif kind == _K_ORDEREDDICT:
            s = f"CustomNode(OrderedDict[{tuple(data)!r}], [{inner}])"
        elif kind == _K_DEFAULTDICT:
            s = f"CustomNode(defaultdict[{(data[0], tuple(data[1]))!r}], [{inner}])"
        elif kind == _K_DEQUE:
            s = f"CustomNode(deque[{data!r}], [{inner}])"
        elif kind == _K_STRUCTSEQ:
            s = f"CustomNode(structseq[{data.__name__}], [{inner}])"
        else:
            s = f"CustomNode({ctype.__name__}[{data}], [{inner}])"
        stack.append(s)
    return stack[0] if stack else "*"


class PyTreeDef:
    """The structure of a pytree: everything but its leaves.

    Made by :func:`tree_flatten` / :func:`tree_structure`; equal structures compare equal and
    hash alike, so a treedef can key a cache.

    >>> treedef = tree_structure({"a": (1, 2), "b": None})
    >>> treedef
    PyTreeDef({'a': (*, *), 'b': None})
    >>> treedef.num_leaves, treedef.unflatten([3, 4])
    (2, {'a': (3, 4), 'b': None})
    """

    __slots__ = ("_spec", "_unflatten_spec")

    def __init__(self, spec: optree.PyTreeSpec):
        self._spec = spec
        self._unflatten_spec: optree.PyTreeSpec | None = None

    @property
    def num_leaves(self) -> int:
        return self._spec.num_leaves

    @property
    def num_nodes(self) -> int:
        return self._spec.num_nodes

    def unflatten(self, leaves: Iterable[Any]) -> Any:
        """Rebuild the pytree with ``leaves`` in place of this structure's leaves."""
        if not isinstance(leaves, (list, tuple)):
            leaves = list(leaves)
        n = self._spec.num_leaves
        if len(leaves) != n:
            few = "few" if len(leaves) < n else "many"
            raise ValueError(f"Too {few} leaves for PyTreeDef; expected {n}, got {len(leaves)}")
        spec = self._unflatten_spec
        if spec is None:
            spec = self._unflatten_spec = _sorted_dict_spec(self._spec)
        return spec.unflatten(leaves)

    def flatten_up_to(self, tree: Any) -> list[Any]:
        """The subtrees of ``tree`` found where this structure has leaves.

        >>> tree_structure((1, 2)).flatten_up_to(([1, 2], {"a": 3}))
        [[1, 2], {'a': 3}]
        """
        try:
            return self._spec.flatten_up_to(tree)
        except ValueError as e:
            msg = _explain_prefix_error(self._dummy(), tree, None, "treedef")
            raise ValueError(f"Tree does not match the structure {self!r}:\n  {msg or e}") from None

    def _dummy(self) -> Any:
        return self.unflatten([_PLACEHOLDER] * self.num_leaves)

    def children(self) -> list[PyTreeDef]:
        """The structures of the root node's children."""
        return [PyTreeDef(c) for c in self._spec.children()]

    def compose(self, inner: PyTreeDef) -> PyTreeDef:
        """The structure with ``inner`` put in place of each leaf of this one."""
        return PyTreeDef(self._spec.compose(inner._spec))

    def node_data(self) -> tuple[type, Any] | None:
        """``(type, metadata)`` of the root node, or None for a leaf."""
        kind, _arity, data, _entries, ctype = _spec_nodes(self._spec)[-1][:5]
        if kind == _K_LEAF:
            return None
        if kind == _K_CUSTOM:
            return ctype, data
        if kind in (_K_DICT, _K_FROZENDICT):
            return self._spec.type, list(data)
        if kind == _K_ORDEREDDICT:
            return self._spec.type, tuple(data)
        if kind == _K_DEFAULTDICT:
            return self._spec.type, (data[0], tuple(data[1]))
        if kind == _K_DEQUE:
            return self._spec.type, data
        return self._spec.type, None

    def from_iterable_tree(self, xs: Any) -> Any:
        """Build a pytree of this structure from nested iterables of children.

        >>> tree_structure((1, [2, 3])).from_iterable_tree([7, (8, 9)])
        (7, [8, 9])
        """
        return build_tree(self, xs)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PyTreeDef):
            return NotImplemented
        return self._spec == other._spec

    def __hash__(self) -> int:
        return hash(self._spec)

    def __repr__(self) -> str:
        try:
            body = _render_spec(self._spec)
        except Exception:  # unknown optree pickled form: fall back to optree's text
            body = repr(self._spec)
            body = body[body.index("(") + 1 : body.rindex(")")].split(", namespace=")[0]
        return f"PyTreeDef({body})"

    __str__ = __repr__

    def __reduce__(self):
        return (PyTreeDef, (self._spec,))


class _Placeholder:
    def __repr__(self) -> str:
        return "*"


_PLACEHOLDER = _Placeholder()


# --------------------------------------------------------------------------------------------
# Flattening


@functools.lru_cache(maxsize=4096)
def _keys_sort(spec: optree.PyTreeSpec) -> optree.PyTreeSpec:
    """``spec`` once every dict and defaultdict in it has keys that sort, as JAX requires.

    optree falls back to ordering keys of types that do not compare (``{1: a, "y": b}``) by
    type name or insertion order; JAX refuses them, since the leaf order would then depend on
    more than the set of keys. Cached by structure: a jit's arguments reflatten every call.
    """
    for node in _spec_nodes(spec):
        if node[0] in (_K_DICT, _K_DEFAULTDICT):
            keys = _dict_keys_of(node[0], node[2])
            try:
                sorted(keys)
            except TypeError as e:
                # JAX's classes: ValueError for a dict, Python's TypeError for a defaultdict.
                kind = "dict" if node[0] == _K_DICT else "defaultdict"
                raise (ValueError if node[0] == _K_DICT else TypeError)(
                    "Comparator raised exception while sorting pytree dictionary keys: the keys "
                    f"{keys} of a {kind} of {len(keys)} entries do not sort ({e})."
                ) from None
    return spec


def _check_keys(spec: optree.PyTreeSpec) -> None:
    try:
        _keys_sort(spec)
    except TypeError:  # a custom node's unhashable metadata (or a defaultdict's unsortable
        _keys_sort.__wrapped__(spec)  # keys, which this raises again): check uncached


def _flatten(tree: Any, is_leaf) -> tuple[list[Any], optree.PyTreeSpec]:
    leaves, spec = optree.tree_flatten(tree, is_leaf, **_OPTS)
    _check_keys(spec)
    return leaves, spec


def tree_flatten(
    tree: Any, is_leaf: Callable[[Any], bool] | None = None
) -> tuple[list[Any], PyTreeDef]:
    """Split a pytree into its leaves (left to right) and its structure.

    >>> tree_flatten([1, (2, None), {"b": 3, "a": 4}])
    ([1, 2, 4, 3], PyTreeDef([*, (*, None), {'a': *, 'b': *}]))
    """
    leaves, spec = _flatten(tree, is_leaf)
    return leaves, PyTreeDef(spec)


def tree_unflatten(treedef: PyTreeDef, leaves: Iterable[Any]) -> Any:
    """Inverse of :func:`tree_flatten`.

    >>> leaves, treedef = tree_flatten((1, [2]))
    >>> tree_unflatten(treedef, ["x", "y"])
    ('x', ['y'])
    """
    return treedef.unflatten(leaves)


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list[Any]:
    """The leaves of a pytree, left to right.

    >>> tree_leaves({"b": (1, None), "a": 2})
    [2, 1]
    """
    return _flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The structure of a pytree.

    >>> tree_structure((1, {"a": 2}))
    PyTreeDef((*, {'a': *}))
    """
    return PyTreeDef(_flatten(tree, is_leaf)[1])


def tree_map(
    f: Callable[..., Any],
    tree: Any,
    *rest: Any,
    is_leaf: Callable[[Any], bool] | None = None,
) -> Any:
    """Apply ``f`` leafwise; the result has the structure of ``tree``.

    Every tree in ``rest`` must have ``tree``'s structure as a prefix: where ``tree`` has a leaf,
    ``f`` receives the whole corresponding subtree of the others.

    >>> tree_map(lambda x, y: x + y, (1, {"a": 2}), (10, {"a": 20}))
    (11, {'a': 22})
    """
    leaves, spec = _flatten(tree, is_leaf)
    treedef = PyTreeDef(spec)
    if not rest:
        return treedef.unflatten([f(x) for x in leaves])
    columns = [leaves]
    for i, other in enumerate(rest):
        columns.append(_flatten_up_to(spec, tree, other, is_leaf, "tree_map", i))
    return treedef.unflatten([f(*xs) for xs in zip(*columns)])


def _flatten_up_to(spec, tree, other, is_leaf, who: str, i: int) -> list[Any]:
    try:
        return spec.flatten_up_to(other)
    except ValueError as e:
        msg = _explain_prefix_error(tree, other, is_leaf, "tree") or str(e)
        raise ValueError(
            f"{who}: the structure of the first tree must be a prefix of every other tree, but "
            f"it is not a prefix of rest[{i}]:\n  {msg}"
        ) from None


def _flatten_with_keys(tree: Any, is_leaf) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
    accessors, leaves, spec = optree.tree_flatten_with_accessor(tree, is_leaf, **_OPTS)
    _check_keys(spec)
    paths = [tuple(_entry_to_key(e) for e in acc) for acc in accessors]
    return list(zip(paths, leaves)), PyTreeDef(spec)


def tree_flatten_with_path(
    tree: Any, is_leaf: Callable[[Any], bool] | None = None
) -> tuple[list[tuple[KeyPath, Any]], PyTreeDef]:
    """Like :func:`tree_flatten`, with each leaf paired with its key path.

    >>> pairs, _ = tree_flatten_with_path({"a": [1, 2]})
    >>> [(keystr(p), x) for p, x in pairs]
    [("['a'][0]", 1), ("['a'][1]", 2)]
    """
    return _flatten_with_keys(tree, is_leaf)


def tree_leaves_with_path(
    tree: Any, is_leaf: Callable[[Any], bool] | None = None
) -> list[tuple[KeyPath, Any]]:
    """The ``(key path, leaf)`` pairs of a pytree.

    >>> tree_leaves_with_path((5,))
    [((SequenceKey(idx=0),), 5)]
    """
    return _flatten_with_keys(tree, is_leaf)[0]


def tree_map_with_path(
    f: Callable[..., Any],
    tree: Any,
    *rest: Any,
    is_leaf: Callable[[Any], bool] | None = None,
) -> Any:
    """Like :func:`tree_map`, with ``f(key_path, leaf, *others)``.

    >>> tree_map_with_path(lambda p, x: keystr(p), {"a": 1, "b": (2,)})
    {'a': "['a']", 'b': ("['b'][0]",)}
    """
    pairs, treedef = _flatten_with_keys(tree, is_leaf)
    columns = [[x for _, x in pairs]]
    for i, other in enumerate(rest):
        columns.append(_flatten_up_to(treedef._spec, tree, other, is_leaf, "tree_map_with_path", i))
    paths = [p for p, _ in pairs]
    return treedef.unflatten([f(p, *xs) for p, *xs in zip(paths, *columns)])


_NO_INIT = object()


def tree_reduce(
    function: Callable[[T, Any], T],
    tree: Any,
    initializer: Any = _NO_INIT,
    is_leaf: Callable[[Any], bool] | None = None,
) -> T:
    """Fold ``function`` over the leaves, left to right.

    >>> tree_reduce(lambda a, b: a + b, [1, (2, 3)])
    6
    """
    leaves = tree_leaves(tree, is_leaf)
    if initializer is _NO_INIT:
        return functools.reduce(function, leaves)
    return functools.reduce(function, leaves, initializer)


def tree_reduce_associative(
    operation: Callable[[T, T], T],
    tree: Any,
    *,
    identity: Any = _NO_INIT,
    is_leaf: Callable[[Any], bool] | None = None,
) -> T:
    """Reduce the leaves with an associative ``operation`` as a balanced binary tree.

    >>> tree_reduce_associative(lambda a, b: f"({a}{b})", list("abcd"))
    '((ab)(cd))'
    """
    leaves = tree_leaves(tree, is_leaf)
    if not leaves:
        if identity is _NO_INIT:
            raise TypeError("tree_reduce_associative: an empty tree needs an `identity`.")
        return identity

    def reduce(xs):
        if len(xs) == 1:
            return xs[0]
        mid = len(xs) // 2
        return operation(reduce(xs[:mid]), reduce(xs[mid:]))

    return reduce(leaves)


def tree_all(tree: Any, *, is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True when every leaf is truthy.

    >>> tree_all([True, (1, None)]), tree_all({"a": 0})
    (True, False)
    """
    return all(tree_leaves(tree, is_leaf))


def tree_transpose(outer_treedef: PyTreeDef, inner_treedef: PyTreeDef | None, pytree: Any) -> Any:
    """Turn an outer tree of inner trees into an inner tree of outer trees.

    ``inner_treedef`` may be None: it is then read from the first outer leaf.

    >>> tree_transpose(tree_structure([0, 0]), tree_structure((0, 0)), [(1, 2), (3, 4)])
    ([1, 3], [2, 4])
    """
    if inner_treedef is None:
        firsts = outer_treedef.flatten_up_to(pytree)
        if not firsts:
            raise ValueError("tree_transpose: inner_treedef=None needs an outer tree with leaves.")
        inner_treedef = tree_structure(firsts[0])
    leaves, treedef = tree_flatten(pytree)
    expected = outer_treedef.compose(inner_treedef)
    if treedef != expected:
        raise TypeError(
            f"tree_transpose: the tree has structure\n    {treedef}\nbut the outer and inner "
            f"structures compose to\n    {expected}"
        )
    n_inner = inner_treedef.num_leaves
    rows = [leaves[i : i + n_inner] for i in range(0, len(leaves), n_inner)]
    columns = [outer_treedef.unflatten(col) for col in zip(*rows)] if rows else []
    if not rows:
        columns = [outer_treedef.unflatten([]) for _ in range(n_inner)]
    return inner_treedef.unflatten(columns)


def tree_broadcast(
    prefix_tree: Any, full_tree: Any, is_leaf: Callable[[Any], bool] | None = None
) -> Any:
    """Copy each leaf of ``prefix_tree`` over the matching subtree of ``full_tree``.

    >>> tree_broadcast([1, 2], [(0, 0), {"a": 0}])
    [(1, 1), {'a': 2}]
    """
    leaves = broadcast_prefix(prefix_tree, full_tree, is_leaf)
    return tree_structure(full_tree).unflatten(leaves)


def all_leaves(iterable: Iterable[Any], is_leaf: Callable[[Any], bool] | None = None) -> bool:
    """True when every element is a leaf (None is not: it is an empty node).

    >>> all_leaves([1, "a"]), all_leaves([1, (2,)]), all_leaves([None])
    (True, False, False)
    """
    return all(optree.tree_is_leaf(x, is_leaf, **_OPTS) for x in iterable)


def treedef_is_leaf(treedef: PyTreeDef) -> bool:
    """True for a structure of a single node: a leaf, or an empty container such as None.

    >>> treedef_is_leaf(tree_structure(1)), treedef_is_leaf(tree_structure((1,)))
    (True, False)
    """
    return treedef.num_nodes == 1


def treedef_children(treedef: PyTreeDef) -> list[PyTreeDef]:
    """The structures of the root's children.

    >>> treedef_children(tree_structure((1, [2, 3])))
    [PyTreeDef(*), PyTreeDef([*, *])]
    """
    return treedef.children()


def treedef_tuple(treedefs: Iterable[PyTreeDef]) -> PyTreeDef:
    """The structure of a tuple whose children have the given structures.

    >>> treedef_tuple([tree_structure(1), tree_structure([1, 2])])
    PyTreeDef((*, [*, *]))
    """
    specs = [t._spec for t in treedefs]
    return PyTreeDef(optree.treespec_tuple(specs, **_OPTS))


def build_tree(treedef: PyTreeDef, xs: Any) -> Any:
    """Build a pytree of structure ``treedef`` from nested iterables of children: at each node of
    ``treedef`` the matching part of ``xs`` lists the node's children in flattening order.

    >>> build_tree(tree_structure({"a": 1, "b": (2, 3)}), [10, [20, 30]])
    {'a': 10, 'b': (20, 30)}
    """
    return _build(treedef._spec, xs)


def _build(spec: optree.PyTreeSpec, xs: Any) -> Any:
    if spec.kind == PyTreeKind.LEAF:
        return xs
    children = spec.children()
    xs = list(xs)
    if len(xs) != len(children):
        raise ValueError(
            f"build_tree: a node of {PyTreeDef(spec)} has {len(children)} children, "
            f"but {len(xs)} were given"
        )
    built = [_build(c, x) for c, x in zip(children, xs)]
    return _sorted_dict_spec(spec.one_level()).unflatten(built)


# --------------------------------------------------------------------------------------------
# Registration


def _register(
    nodetype: type,
    flatten: Callable[[Any], tuple],
    unflatten: Callable[[Any, Iterable[Any]], Any],
) -> None:
    optree.register_pytree_node(
        nodetype, flatten, unflatten, path_entry_type=_NodeEntry, namespace=NAMESPACE
    )


def _keyed_flatten(flatten_with_keys: Callable[[Any], tuple[Iterable[tuple], Any]]):
    def flatten(x):
        pairs, aux = flatten_with_keys(x)
        pairs = list(pairs)
        return [c for _, c in pairs], aux, [k for k, _ in pairs]

    return flatten


def register_pytree_node(
    nodetype: type[T],
    flatten_func: Callable[[T], tuple[Iterable[Any], Any]],
    unflatten_func: Callable[[Any, Iterable[Any]], T],
    flatten_with_keys_func: Callable[[T], tuple[Iterable[tuple[KeyEntry, Any]], Any]] | None = None,
) -> None:
    """Make ``nodetype`` a pytree node.

    ``flatten_func(x) -> (children, aux_data)``, ``unflatten_func(aux_data, children) -> x``;
    ``aux_data`` must be hashable and comparable. Children get :class:`FlattenedIndexKey` paths
    unless ``flatten_with_keys_func(x) -> (((key, child), ...), aux_data)`` is given.

    >>> class Pair:
    ...     def __init__(self, a, b):
    ...         self.a, self.b = a, b
    >>> register_pytree_node(Pair, lambda p: ((p.a, p.b), None), lambda _, c: Pair(*c))
    >>> tree_leaves([Pair(1, 2)])
    [1, 2]
    """
    if flatten_with_keys_func is not None:
        _register(nodetype, _keyed_flatten(flatten_with_keys_func), unflatten_func)
    else:
        _register(nodetype, flatten_func, unflatten_func)


def register_pytree_with_keys(
    nodetype: type[T],
    flatten_with_keys: Callable[[T], tuple[Iterable[tuple[KeyEntry, Any]], Any]],
    unflatten_func: Callable[[Any, Iterable[Any]], T],
    flatten_func: Callable[[T], tuple[Iterable[Any], Any]] | None = None,
) -> None:
    """Make ``nodetype`` a pytree node whose children have the keys that
    ``flatten_with_keys(x) -> (((key, child), ...), aux_data)`` gives them.

    >>> class Box:
    ...     def __init__(self, v):
    ...         self.v = v
    >>> register_pytree_with_keys(
    ...     Box, lambda b: (((GetAttrKey("v"), b.v),), None), lambda _, c: Box(*c)
    ... )
    >>> keystr(tree_leaves_with_path(Box(1))[0][0])
    '.v'
    """
    del flatten_func  # the keyed flatten gives the same children, and optree takes one function
    _register(nodetype, _keyed_flatten(flatten_with_keys), unflatten_func)


def register_pytree_node_class(cls: Typ) -> Typ:
    """Class decorator: register a class with ``tree_flatten`` and classmethod
    ``tree_unflatten(aux_data, children)``.

    >>> @register_pytree_node_class
    ... class Wrap:
    ...     def __init__(self, x):
    ...         self.x = x
    ...     def tree_flatten(self):
    ...         return (self.x,), None
    ...     @classmethod
    ...     def tree_unflatten(cls, aux, children):
    ...         return cls(*children)
    >>> tree_leaves(Wrap(3))
    [3]
    """
    _register(cls, operator.methodcaller("tree_flatten"), cls.tree_unflatten)
    return cls


def register_pytree_with_keys_class(cls: Typ) -> Typ:
    """Class decorator: register a class with ``tree_flatten_with_keys`` (returning
    ``(((key, child), ...), aux_data)``) and classmethod ``tree_unflatten``."""
    _register(
        cls, _keyed_flatten(operator.methodcaller("tree_flatten_with_keys")), cls.tree_unflatten
    )
    return cls


def register_static(cls: Typ) -> Typ:
    """Register a hashable class as a node with no children: its instances are kept in the
    structure (compared by equality) and never become leaves.

    >>> @register_static
    ... class Tag:
    ...     def __eq__(self, other):
    ...         return isinstance(other, Tag)
    ...     def __hash__(self):
    ...         return 0
    >>> tree_leaves([Tag(), 1])
    [1]
    """
    _register(cls, lambda x: ((), x), lambda x, _: x)
    return cls


def register_dataclass(
    nodetype: Typ | None = None,
    data_fields: Sequence[str] | None = None,
    meta_fields: Sequence[str] | None = None,
    drop_fields: Sequence[str] = (),
) -> Any:
    """Register a dataclass-like type: ``data_fields`` are children, ``meta_fields`` are static
    metadata (hashable), ``drop_fields`` are left out and must have defaults.

    With neither list given, ``nodetype`` must be a dataclass: fields with
    ``metadata={"static": True}`` (see :func:`static`) are metadata, the others data. Usable as
    a plain decorator, or called with only the field lists to get one.

    >>> @register_dataclass
    ... @dataclasses.dataclass
    ... class Point:
    ...     x: float
    ...     y: float
    ...     label: str = static(default="p")
    >>> tree_flatten(Point(1.0, 2.0))
    ([1.0, 2.0], PyTreeDef(CustomNode(Point[('p',)], [*, *])))
    """
    if nodetype is None:
        return functools.partial(
            register_dataclass,
            data_fields=data_fields,
            meta_fields=meta_fields,
            drop_fields=drop_fields,
        )
    if (data_fields is None) != (meta_fields is None):
        raise TypeError(
            "register_dataclass: give both data_fields and meta_fields, or neither; got "
            f"data_fields={data_fields!r}, meta_fields={meta_fields!r}."
        )
    is_dc = dataclasses.is_dataclass(nodetype)
    if data_fields is None:
        if not is_dc:
            raise TypeError(
                f"register_dataclass: {nodetype!r} is not a dataclass, so data_fields and "
                "meta_fields must be given."
            )
        fields = [f for f in dataclasses.fields(nodetype) if f.name not in set(drop_fields)]
        no_init = [f.name for f in fields if not f.init]
        if no_init:
            raise ValueError(
                f"register_dataclass: fields {no_init} of {nodetype.__name__} have init=False, "
                "so unflattening cannot set them; list them in drop_fields."
            )
        meta_fields = [f.name for f in fields if f.metadata.get("static", False)]
        data_fields = [f.name for f in fields if not f.metadata.get("static", False)]
    else:
        data_fields, meta_fields = list(data_fields), list(meta_fields)
        if is_dc:
            init = {f.name for f in dataclasses.fields(nodetype) if f.init}
            given = set(data_fields) | set(meta_fields) | set(drop_fields)
            missing, extra = init - given, given - init
            if missing or extra:
                raise ValueError(
                    f"register_dataclass: data_fields, meta_fields and drop_fields of "
                    f"{nodetype.__name__} must together name exactly its fields with init=True; "
                    f"missing: {sorted(missing)}, unexpected: {sorted(extra)}."
                )
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    keys = tuple(GetAttrKey(n) for n in data_fields)

    def flatten(x):
        return (
            [getattr(x, n) for n in data_fields],
            tuple(getattr(x, n) for n in meta_fields),
            keys,
        )

    def unflatten(meta, data):
        return nodetype(**dict(zip(data_fields, data)), **dict(zip(meta_fields, meta)))

    _register(nodetype, flatten, unflatten)
    return nodetype


def static(**kwargs: Any) -> Any:
    """A ``dataclasses.field`` marked as static metadata for :func:`register_dataclass`.

    >>> static(default=1).metadata["static"]
    True
    """
    metadata = dict(kwargs.pop("metadata", None) or {})
    metadata["static"] = True
    return dataclasses.field(metadata=metadata, **kwargs)


# --------------------------------------------------------------------------------------------
# Partial


class _StaticCallable:
    """Holds an inner ``functools.partial`` so that :class:`Partial` keeps it (and its bound
    arguments) as static metadata instead of merging it into its own arguments."""

    __slots__ = ("fun",)

    def __init__(self, fun: Callable[..., Any]):
        self.fun = fun

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fun(*args, **kwargs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _StaticCallable) and self.fun is other.fun

    def __hash__(self) -> int:
        return hash(id(self.fun))

    def __repr__(self) -> str:
        return repr(self.fun)


class Partial(functools.partial):
    """``functools.partial`` that is a pytree: the bound arguments are its children and the
    function is static, so a Partial can be passed to and returned from transformed functions.

    >>> add = Partial(lambda x, y: x + y, 1)
    >>> tree_leaves(add), add(2)
    ([1], 3)
    """

    def __new__(cls, func: Callable[..., Any], /, *args: Any, **kwargs: Any):
        if isinstance(func, functools.partial):
            func = _StaticCallable(func)
        return super().__new__(cls, func, *args, **kwargs)


register_pytree_node(
    Partial,
    lambda p: ((p.args, p.keywords), p.func),
    lambda func, children: Partial(func, *children[0], **children[1]),
)


# Prefix matching lives in its own module, which builds on the functions above (hence the import
# at the end); its names are re-exported here.
from spmd._src.tree_util_prefix import (  # noqa: E402
    _explain_prefix_error,
    _is_node,  # noqa: F401  (tree_util_registry reads tu._is_node)
    broadcast_prefix,
    flatten_axes,
)
