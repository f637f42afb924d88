"""Tests of spmd.tree_util / spmd.tree. Expected strings were read off JAX 0.10."""

from __future__ import annotations

import collections
import dataclasses
import functools
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

import spmd.tree as jtree
import spmd.tree_util as tu
from spmd._src.tree_util import broadcast_prefix, flatten_axes

Point = collections.namedtuple("Point", ["x", "y"])


def f3(*args, **kwargs):
    return args, kwargs


class Node:
    """Registered without keys."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def __eq__(self, other):
        return type(other) is Node and (self.a, self.b) == (other.a, other.b)

    def __repr__(self):
        return f"Node({self.a!r}, {self.b!r})"


tu.register_pytree_node(Node, lambda n: ((n.a, n.b), "meta"), lambda aux, ch: Node(*ch))


class Keyed:
    """Registered with keys."""

    def __init__(self, a, b):
        self.a, self.b = a, b


tu.register_pytree_with_keys(
    Keyed,
    lambda k: (((tu.GetAttrKey("a"), k.a), (tu.DictKey("bb"), k.b)), None),
    lambda aux, ch: Keyed(*ch),
)


@tu.register_dataclass
@dataclasses.dataclass
class Params:
    w: object
    b: object
    name: str = jtree.static(default="layer")


@tu.register_static
class Tag:
    def __init__(self, v):
        self.v = v

    def __hash__(self):
        return hash(self.v)

    def __eq__(self, other):
        return isinstance(other, Tag) and other.v == self.v

    def __repr__(self):
        return f"Tag({self.v})"


@tu.register_pytree_node_class
class Wrapped:
    def __init__(self, x):
        self.x = x

    def tree_flatten(self):
        return (self.x,), "w"

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


@tu.register_pytree_with_keys_class
class KeyedClass:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def tree_flatten_with_keys(self):
        return ((tu.GetAttrKey("x"), self.x), (tu.GetAttrKey("y"), self.y)), None

    @classmethod
    def tree_unflatten(cls, aux, children):
        return cls(*children)


# ---------------------------------------------------------------------------------------------
# flatten / unflatten / repr


@pytest.mark.parametrize(
    "tree, leaves, text",
    [
        (1, [1], "PyTreeDef(*)"),
        (None, [], "PyTreeDef(None)"),
        ((), [], "PyTreeDef(())"),
        ([], [], "PyTreeDef([])"),
        ({}, [], "PyTreeDef({})"),
        (((),), [], "PyTreeDef(((),))"),
        ((1,), [1], "PyTreeDef((*,))"),
        ((1, {"a": 2}), [1, 2], "PyTreeDef((*, {'a': *}))"),
        ([1, None, (2, 3)], [1, 2, 3], "PyTreeDef([*, None, (*, *)])"),
        ({"b": 1, "a": (2,), "c": None}, [2, 1], "PyTreeDef({'a': (*,), 'b': *, 'c': None})"),
        (Point(1, 2), [1, 2], "PyTreeDef(CustomNode(namedtuple[Point], [*, *]))"),
        (Point(None, [1]), [1], "PyTreeDef(CustomNode(namedtuple[Point], [None, [*]]))"),
        (
            collections.OrderedDict([("b", 1), ("a", 2)]),
            [1, 2],
            "PyTreeDef(CustomNode(OrderedDict[('b', 'a')], [*, *]))",
        ),
        (
            collections.defaultdict(list, {"b": 1, "a": 2}),
            [2, 1],
            "PyTreeDef(CustomNode(defaultdict[(<class 'list'>, ('a', 'b'))], [*, *]))",
        ),
        (
            Node(1, Node(2, 3)),
            [1, 2, 3],
            "PyTreeDef(CustomNode(Node[meta], [*, CustomNode(Node[meta], [*, *])]))",
        ),
        (Params(1, 2), [1, 2], "PyTreeDef(CustomNode(Params[('layer',)], [*, *]))"),
        ([Tag(1), 2], [2], "PyTreeDef([CustomNode(Tag[Tag(1)], []), *])"),
    ],
)
def test_flatten_matches_jax(tree, leaves, text):
    got_leaves, treedef = tu.tree_flatten(tree)
    assert got_leaves == leaves
    assert repr(treedef) == text
    assert str(treedef) == text
    assert treedef.num_leaves == len(leaves)
    assert tu.tree_leaves(tree) == leaves
    assert tu.tree_structure(tree) == treedef
    assert tu.tree_unflatten(treedef, leaves) == tree


def test_num_nodes():
    assert tu.tree_structure([1, None, (2, 3)]).num_nodes == 6
    assert tu.tree_structure(None).num_nodes == 1
    assert tu.tree_structure(Point(1, 2)).num_nodes == 3


def test_none_is_an_empty_subtree():
    assert tu.tree_leaves([None, None]) == []
    assert tu.tree_map(lambda x: x + 1, (None, 1)) == (None, 2)
    assert tu.tree_leaves([None, 1], is_leaf=lambda x: x is None) == [None, 1]
    assert tu.tree_map(lambda x: 0, [None, 1], is_leaf=lambda x: x is None) == [0, 0]


def test_dicts_flatten_and_rebuild_in_sorted_key_order():
    tree = {"b": 1, "a": 2, "c": {"z": 3, "y": 4}}
    assert tu.tree_leaves(tree) == [2, 1, 4, 3]
    out = tu.tree_map(lambda x: x, tree)
    assert list(out) == ["a", "b", "c"] and list(out["c"]) == ["y", "z"]
    leaves, treedef = tu.tree_flatten(tree)
    assert repr(tu.tree_unflatten(treedef, leaves)) == "{'a': 2, 'b': 1, 'c': {'y': 4, 'z': 3}}"
    assert tu.tree_structure({"b": 1, "a": 2}) == tu.tree_structure({"a": 5, "b": 6})
    # OrderedDict keeps its own order, as in JAX.
    od = collections.OrderedDict([("b", 1), ("a", 2)])
    assert list(tu.tree_map(lambda x: x, od)) == ["b", "a"]


@pytest.mark.parametrize(
    "flatten",
    [tu.tree_leaves, tu.tree_flatten, tu.tree_structure, tu.tree_flatten_with_path,
     functools.partial(tu.tree_map, lambda x: x + 1)],
)  # fmt: skip
def test_dict_keys_that_do_not_sort_are_refused(flatten):
    # JAX sorts a dict's keys to order its leaves; keys that do not compare are an error (optree
    # alone would order them by type name), at any depth.
    with pytest.raises(ValueError, match=r"sorting pytree dictionary keys: the keys \[1, 'y'\] "
                                         r"of a dict of 2 entries do not sort"):  # fmt: skip
        flatten({1: 7, "y": 42})
    with pytest.raises(ValueError, match=r"the keys \[2, 'a'\]"):
        flatten([0, {"k": {2: 1, "a": 2}}])
    with pytest.raises(TypeError, match=r"keys \[2, 'a'\] of a defaultdict"):
        flatten(collections.defaultdict(int, {2: 1, "a": 2}))
    # Keys that sort, and an OrderedDict's (kept in insertion order), are fine.
    assert tu.tree_leaves({2: "a", 1: "b", 1.5: "c"}) == ["b", "c", "a"]
    assert tu.tree_leaves(collections.OrderedDict({2: 1, "a": 2})) == [1, 2]
    flatten(collections.OrderedDict({2: 1, "a": 2}))


def test_dict_keys_are_checked_under_jit_too():
    import spmd

    with pytest.raises(ValueError, match="sorting pytree dictionary keys"):
        spmd.jit(lambda d: d)({1: 7.0, "y": 42.0})


def test_structure_equality_and_hash():
    assert tu.tree_structure((1, 2)) == tu.tree_structure((3, 4))
    assert hash(tu.tree_structure((1, 2))) == hash(tu.tree_structure((3, 4)))
    assert tu.tree_structure((1, 2)) != tu.tree_structure([1, 2])
    assert tu.tree_structure((1, None)) != tu.tree_structure((1, 2))
    assert tu.tree_structure([Tag(1), 2]) == tu.tree_structure([Tag(1), 3])
    assert tu.tree_structure([Tag(1), 2]) != tu.tree_structure([Tag(2), 3])
    assert tu.tree_structure(Params(1, 2, "a")) != tu.tree_structure(Params(1, 2, "b"))
    assert isinstance(tu.tree_structure(1), tu.PyTreeDef)
    assert tu.tree_structure(1) != "*"


def test_unflatten_errors_and_iterables():
    treedef = tu.tree_structure((1, (2, 3)))
    with pytest.raises(ValueError, match="Too few leaves for PyTreeDef; expected 3, got 2"):
        tu.tree_unflatten(treedef, [1, 2])
    with pytest.raises(ValueError, match="Too many leaves"):
        tu.tree_unflatten(treedef, [1, 2, 3, 4])
    assert tu.tree_unflatten(treedef, iter("abc")) == ("a", ("b", "c"))


def test_treedef_methods():
    treedef = tu.tree_structure([1, (2, 3)])
    assert treedef.flatten_up_to([[1], (2, {"a": 3})]) == [[1], 2, {"a": 3}]
    assert (
        repr(treedef.compose(tu.tree_structure((1, 2)))) == "PyTreeDef([(*, *), ((*, *), (*, *))])"
    )
    assert treedef.from_iterable_tree([7, (8, 9)]) == [7, (8, 9)]
    assert tu.build_tree(tu.tree_structure({"a": 1, "b": (2, 3)}), [10, [20, 30]]) == {
        "a": 10,
        "b": (20, 30),
    }
    assert treedef.children() == [tu.tree_structure(1), tu.tree_structure((1, 1))]
    assert tu.tree_structure((1, 2)).node_data() == (tuple, None)
    assert tu.tree_structure({"b": 1, "a": 2}).node_data() == (dict, ["a", "b"])
    assert tu.tree_structure(1).node_data() is None
    assert tu.tree_structure(None).node_data() == (type(None), None)
    assert tu.tree_structure(Point(1, 2)).node_data() == (Point, None)
    assert tu.tree_structure(Node(1, 2)).node_data() == (Node, "meta")
    back = pickle.loads(pickle.dumps(tu.tree_structure({"a": (1, 2)})))
    assert back == tu.tree_structure({"a": (1, 2)})


def test_flatten_up_to_error_names_the_path():
    with pytest.raises(ValueError, match=r"treedef\[1\].*list.*leaf of type int"):
        tu.tree_structure((1, [2])).flatten_up_to((1, 2))


def test_treedef_helpers():
    assert tu.treedef_is_leaf(tu.tree_structure(1))
    assert tu.treedef_is_leaf(tu.tree_structure(None))  # one node, as in JAX
    assert not tu.treedef_is_leaf(tu.tree_structure((1,)))
    children = tu.treedef_children(tu.tree_structure((1, [2, 3])))
    assert repr(children) == "[PyTreeDef(*), PyTreeDef([*, *])]"
    tup = tu.treedef_tuple([tu.tree_structure(1), tu.tree_structure([1, 2])])
    assert repr(tup) == "PyTreeDef((*, [*, *]))"
    assert tu.all_leaves([1, "a", 2.0])
    assert not tu.all_leaves([1, None])
    assert not tu.all_leaves([1, (2,)])


# ---------------------------------------------------------------------------------------------
# custom nodes


def test_custom_nodes_roundtrip():
    for tree in [Node(1, Node(2, 3)), Params(1, [2, 3], "x"), [Tag(1), 2]]:
        leaves, treedef = tu.tree_flatten(tree)
        assert tu.tree_unflatten(treedef, leaves) == tree
    w = tu.tree_map(lambda x: x * 2, Wrapped(4))
    assert isinstance(w, Wrapped) and w.x == 8
    assert repr(tu.tree_structure(Wrapped(1))) == "PyTreeDef(CustomNode(Wrapped[w], [*]))"
    k = tu.tree_map(lambda x: -x, KeyedClass(1, {"z": 2}))
    assert (k.x, k.y) == (-1, {"z": -2})


def test_register_twice_raises():
    with pytest.raises(ValueError):
        tu.register_pytree_node(Node, lambda n: ((), None), lambda a, c: Node(0, 0))


def test_register_dataclass_forms():
    @functools.partial(tu.register_dataclass, data_fields=["x"], meta_fields=["y"])
    @dataclasses.dataclass
    class Explicit:
        x: int
        y: int

    assert repr(tu.tree_flatten(Explicit(1, 2))) == (
        "([1], PyTreeDef(CustomNode(Explicit[(2,)], [*])))"
    )

    @tu.register_dataclass(data_fields=["x"], meta_fields=[], drop_fields=["y"])
    @dataclasses.dataclass
    class Dropped:
        x: int
        y: int = 3

    leaves, treedef = tu.tree_flatten(Dropped(1, 7))
    assert leaves == [1] and tu.tree_unflatten(treedef, leaves) == Dropped(1, 3)

    class Plain:
        def __init__(self, a, b):
            self.a, self.b = a, b

    tu.register_dataclass(Plain, data_fields=["a"], meta_fields=["b"])
    pairs, treedef = tu.tree_flatten_with_path(Plain(1, 2))
    assert pairs == [((tu.GetAttrKey("a"),), 1)]
    assert repr(treedef) == "PyTreeDef(CustomNode(Plain[(2,)], [*]))"


def test_register_dataclass_errors():
    @dataclasses.dataclass
    class Two:
        x: int
        y: int

    with pytest.raises(ValueError, match=r"missing: \['y'\]"):
        tu.register_dataclass(Two, data_fields=["x"], meta_fields=[])
    with pytest.raises(TypeError, match="both"):
        tu.register_dataclass(Two, data_fields=["x"])

    class NotADataclass:
        pass

    with pytest.raises(TypeError, match="not a dataclass"):
        tu.register_dataclass(NotADataclass)


def test_partial():
    p = tu.Partial(f3, 1, k=2)
    assert repr(p).startswith("Partial(<function f3")
    assert tu.tree_leaves(p) == [1, 2]
    assert repr(tu.tree_structure(p)).startswith("PyTreeDef(CustomNode(Partial[<function f3 at")
    assert repr(tu.tree_structure(p)).endswith("[(*,), {'k': *}]))")
    doubled = tu.tree_map(lambda x: x * 10, p)
    assert isinstance(doubled, tu.Partial) and doubled(0) == ((10, 0), {"k": 20})
    # A Partial of a partial keeps the inner one (and its arguments) static, as in JAX.
    pp = tu.Partial(tu.Partial(f3, 1), 2)
    assert pp(3) == ((1, 2, 3), {}) and tu.tree_leaves(pp) == [2]
    assert tu.tree_structure(pp) != tu.tree_structure(tu.Partial(tu.Partial(f3, 5), 2))
    assert tu.tree_structure(tu.Partial(f3, 1)) == tu.tree_structure(tu.Partial(f3, 2))


# ---------------------------------------------------------------------------------------------
# key paths


def test_key_types():
    assert repr(tu.SequenceKey(1)) == "SequenceKey(idx=1)"
    assert repr(tu.DictKey("a")) == "DictKey(key='a')"
    assert repr(tu.GetAttrKey("x")) == "GetAttrKey(name='x')"
    assert repr(tu.FlattenedIndexKey(2)) == "FlattenedIndexKey(key=2)"
    assert [str(k) for k in (tu.SequenceKey(1), tu.DictKey("a"), tu.DictKey(1))] == [
        "[1]",
        "['a']",
        "[1]",
    ]
    assert str(tu.GetAttrKey("x")) == ".x"
    assert str(tu.FlattenedIndexKey(2)) == "[<flat index 2>]"
    assert tu.SequenceKey(1) == tu.SequenceKey(1) and tu.DictKey("a") != tu.GetAttrKey("a")
    assert {tu.SequenceKey(1): 1}[tu.SequenceKey(1)] == 1
    assert tu.SequenceKey(3).idx == 3 and tu.DictKey("k").key == "k"
    match tu.GetAttrKey("w"):
        case tu.GetAttrKey(name):
            assert name == "w"


def test_paths_and_keystr_match_jax():
    tree = {"params": [{"w": 1, "b": 2}, Point(3, None)], "step": (4,)}
    pairs = tu.tree_leaves_with_path(tree)
    assert [tu.keystr(p) for p, _ in pairs] == [
        "['params'][0]['b']",
        "['params'][0]['w']",
        "['params'][1].x",
        "['step'][0]",
    ]
    assert [tu.keystr(p, simple=True, separator="/") for p, _ in pairs] == [
        "params/0/b",
        "params/0/w",
        "params/1/x",
        "step/0",
    ]
    assert [x for _, x in pairs] == [2, 1, 3, 4]
    assert pairs[2][0] == (tu.DictKey("params"), tu.SequenceKey(1), tu.GetAttrKey("x"))
    assert tu.keystr((tu.DictKey("a"), tu.SequenceKey(0)), separator="/") == "['a']/[0]"
    assert tu.keystr((tu.DictKey("a"), tu.SequenceKey(0)), simple=True) == "a0"
    assert tu.keystr(()) == ""


@pytest.mark.parametrize(
    "tree, paths",
    [
        (
            Node(1, Node(2, 3)),
            [
                "[<flat index 0>]",
                "[<flat index 1>][<flat index 0>]",
                "[<flat index 1>][<flat index 1>]",
            ],
        ),
        (Keyed(1, (2, 3)), [".a", "['bb'][0]", "['bb'][1]"]),
        (Params(1, [2]), [".w", ".b[0]"]),
        (KeyedClass(1, {"z": 2}), [".x", ".y['z']"]),
        (collections.OrderedDict([("b", 1), ("a", 2)]), ["['b']", "['a']"]),
        (tu.Partial(f3, 1, k=2), ["[<flat index 0>][0]", "[<flat index 1>]['k']"]),
        (5, [""]),
        (None, []),
    ],
)
def test_custom_node_paths_match_jax(tree, paths):
    pairs, treedef = tu.tree_flatten_with_path(tree)
    assert [tu.keystr(p) for p, _ in pairs] == paths
    assert treedef == tu.tree_structure(tree)


def test_tree_map_with_path():
    out = tu.tree_map_with_path(
        lambda p, x, y: (tu.keystr(p), x + y),
        {"a": 1, "b": Point(2, 3)},
        {"a": 10, "b": Point(20, 30)},
    )
    assert out == {"a": ("['a']", 11), "b": Point(("['b'].x", 22), ("['b'].y", 33))}
    assert jtree.map_with_path(lambda p, x: len(p), [[1]]) == [[2]]


# ---------------------------------------------------------------------------------------------
# tree_map over several trees, reduce, transpose


def test_tree_map_several_trees():
    assert tu.tree_map(lambda x, y: x + y, (1, {"a": 2}), (10, {"a": 20})) == (11, {"a": 22})
    # The first tree is a prefix of the others: its leaves see whole subtrees.
    assert tu.tree_map(lambda x, y: (x, y), (1, [2]), ([3, 4], [5])) == ((1, [3, 4]), [(2, 5)])
    assert tu.tree_map(lambda x, y: (x, y), (1, None), (3, None)) == ((1, 3), None)


@pytest.mark.parametrize(
    "first, other, pattern",
    [
        ((1, 2), (1, 2, 3), r"key path tree: .*tuple with 2 children.*tuple with 3 children"),
        ({"a": 1}, {"b": 1}, r"only in the prefix: \['a'\]; only in the full tree: \['b'\]"),
        ([1, [2]], [1, (2,)], r"key path tree\[1\]: .*list node.*tuple node"),
        ((1, None), (3, 4), r"key path tree\[1\]: .*None.*leaf of type int"),
        ({"x": Point(1, (2,))}, {"x": Point(1, 2)}, r"key path tree\['x'\]\.y: "),
    ],
)
def test_tree_map_mismatch_errors(first, other, pattern):
    with pytest.raises(ValueError, match=r"tree_map: .*rest\[0\]") as info:
        tu.tree_map(lambda a, b: a, first, other)
    assert info.match(pattern)


def test_tree_map_error_names_which_tree():
    with pytest.raises(ValueError, match=r"rest\[1\]"):
        tu.tree_map(lambda a, b, c: a, [1], [2], (3,))


def test_tree_map_does_not_hide_errors_from_f():
    def boom(x, y):
        raise ValueError("from f")

    with pytest.raises(ValueError, match="^from f$"):
        tu.tree_map(boom, (1,), (2,))


def test_reduce_all():
    assert tu.tree_reduce(lambda a, b: a + b, [1, (2, 3)]) == 6
    assert tu.tree_reduce(lambda a, b: a + b, [], 5) == 5
    with pytest.raises(TypeError):
        tu.tree_reduce(lambda a, b: a + b, [])
    assert tu.tree_all([True, (1, None)]) and tu.tree_all([]) and not tu.tree_all([0])
    assert tu.tree_all([[0]], is_leaf=lambda x: isinstance(x, list))
    assert jtree.reduce_associative(lambda a, b: f"({a}{b})", list("abcde")) == "((ab)(c(de)))"
    assert jtree.reduce_associative(lambda a, b: a, [], identity=0) == 0


def test_transpose():
    outer, inner = tu.tree_structure([0, 0]), tu.tree_structure((0, 0))
    assert tu.tree_transpose(outer, inner, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    three = tu.tree_structure([0, 0, 0])
    assert tu.tree_transpose(three, None, [{"a": 1, "b": 2}] * 3) == {
        "a": [1, 1, 1],
        "b": [2, 2, 2],
    }
    with pytest.raises(TypeError):
        tu.tree_transpose(outer, inner, [(1, 2), (3, 4, 5)])


# ---------------------------------------------------------------------------------------------
# prefixes: broadcast_prefix, flatten_axes, tree.broadcast


def test_broadcast_prefix():
    is_none = lambda x: x is None
    assert broadcast_prefix((0, None), ([1, 2], {"a": 3}), is_leaf=is_none) == [0, 0, None]
    assert broadcast_prefix((1, None), ((1, 2), None)) == [1, 1]
    assert broadcast_prefix(7, {"a": (1, 2), "b": None}) == [7, 7]
    assert broadcast_prefix({"a": 1, "b": 2}, {"b": [0, 0], "a": 0}) == [1, 2, 2]


def test_broadcast_prefix_errors_name_the_key_path():
    with pytest.raises(ValueError, match=r"key path prefix_tree: .*2 children.*3 children"):
        broadcast_prefix((1, 2), ((1, 2), (3, 4), 5))
    with pytest.raises(ValueError, match=r"only in the full tree: \['c'\]"):
        broadcast_prefix({"a": 1}, {"a": {"b": 2}, "c": 3})
    # None is an empty subtree unless is_leaf says otherwise, and the message says so.
    with pytest.raises(ValueError, match=r"prefix_tree\[1\]: .*None \(an empty subtree"):
        broadcast_prefix((1, None), ((1, 2), (3, 4)))
    with pytest.raises(ValueError, match=r"prefix_tree\[0\]\['k'\]"):
        broadcast_prefix([{"k": (1, 2)}], [{"k": (1, 2, 3)}])


def test_tree_broadcast():
    assert jtree.broadcast([1, (2,)], [(1, 2), ((3, 4),)]) == [(1, 1), ((2, 2),)]
    assert jtree.broadcast(1, {"a": (1, 2)}) == {"a": (1, 1)}


def test_flatten_axes():
    treedef = tu.tree_structure(((1, 2), {"a": 3}))
    assert flatten_axes("vmap in_axes", treedef, (0, None)) == [0, 0, None]
    assert flatten_axes("vmap in_axes", treedef, 0) == [0, 0, 0]
    assert flatten_axes("vmap in_axes", treedef, None) == [None, None, None]
    assert flatten_axes("vmap in_axes", treedef, ((0, 1), {"a": None})) == [0, 1, None]
    # Subtrees that hold no leaves (None values) take no axes.
    assert flatten_axes("vmap in_axes", tu.tree_structure((1, None)), (0, 1)) == [0]


def test_flatten_axes_errors():
    treedef = tu.tree_structure(((1, 2), {"a": 3}))
    with pytest.raises(ValueError, match=r"vmap in_axes specification must be a tree prefix"):
        flatten_axes("vmap in_axes", treedef, (0, 1, 2))
    with pytest.raises(ValueError, match=r"key path vmap in_axes\[1\]: .*\['b'\]"):
        flatten_axes("vmap in_axes", treedef, ((0, 1), {"b": 0}))
    with pytest.raises(ValueError, match="one entry per positional argument"):
        flatten_axes("vmap in_axes", treedef, [0, 1], tupled_args=True)
    kw_treedef = tu.tree_structure(((1, 2), {"k": 3}))
    with pytest.raises(ValueError, match=r"key path in_axes: .*3 children.*2 children"):
        flatten_axes("in_axes", kw_treedef, ((0, 1, 2), {"k": 0}), kws=True)


# ---------------------------------------------------------------------------------------------
# spmd.tree names and property tests


def test_tree_module_names():
    assert jtree.map(lambda x: x + 1, {"a": 1}) == {"a": 2}
    assert jtree.leaves([1, [2]]) == [1, 2]
    assert repr(jtree.structure((1,))) == "PyTreeDef((*,))"
    assert jtree.reduce(max, [1, 5, 2]) == 5
    assert jtree.all([1, 2])
    leaves, treedef = jtree.flatten({"a": 1})
    assert jtree.unflatten(treedef, leaves) == {"a": 1}
    assert jtree.transpose(jtree.structure([0, 0]), None, [(1, 2), (3, 4)]) == ([1, 3], [2, 4])
    assert jtree.leaves_with_path([5]) == [((tu.SequenceKey(0),), 5)]
    assert jtree.flatten_with_path([5])[1] == jtree.structure([5])
    for name in tu.__all__:
        assert hasattr(tu, name)
    for name in jtree.__all__:
        assert hasattr(jtree, name)


leaf = st.one_of(st.integers(), st.text(max_size=3), st.floats(allow_nan=False))
trees = st.recursive(
    st.one_of(leaf, st.none()),
    lambda kids: st.one_of(
        st.lists(kids, max_size=4),
        st.lists(kids, max_size=4).map(tuple),
        st.dictionaries(st.text(max_size=3), kids, max_size=4),
        st.tuples(kids, kids).map(lambda t: Point(*t)),
        st.tuples(kids, kids).map(lambda t: Node(*t)),
    ),
    max_leaves=20,
)


@given(trees)
def test_roundtrip_property(tree):
    leaves, treedef = tu.tree_flatten(tree)
    assert tu.tree_unflatten(treedef, leaves) == tree
    assert treedef.num_leaves == len(leaves)
    assert all(x is not None for x in leaves)
    pairs = tu.tree_leaves_with_path(tree)
    assert [x for _, x in pairs] == leaves
    assert tu.tree_map(lambda x: x, tree) == tree
    assert tu.tree_structure(tu.tree_map(lambda x: 0, tree)) == treedef
    assert broadcast_prefix(tree, tree) == leaves
    assert broadcast_prefix(1, tree) == [1] * len(leaves)
