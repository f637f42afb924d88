"""The code cells of JAX's "Pytrees" page (docs/101/pytrees.md), as one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd and records what
each prints or shows: printed text captured from stdout (``CELL.out``), values and error
classes (``CELL``). The page's first cell prints an ``object()``, whose text holds an address:
the program prints its type instead. The MLP cells draw their NumPy initial values from a
seeded generator (the page's ``np.random`` is unseeded); the loss after 100 steps of float32
SGD records at a looser tolerance. The page's ``vmap`` in_axes examples (plain code blocks) run
on a small function, and the functions the page names without a cell (``jax.tree.reduce``,
``jax.tree.structure``, ``tree_map_with_path``, ``jax.tree.transpose``, the method-based
registration) each get a line.
"""

import collections
import functools
import importlib
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from record import run_cell

KNOWN: dict[str, tuple[object, str]] = {}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")

    def run(cell, fn, tol=None):
        return run_cell(rec, cell, fn, tol)

    # -- What is a pytree?
    example_trees = [
        [1, "a", object()],
        (1, (2, 3), ()),
        [1, {"k1": 2, "k2": (3, 4)}, 5],
        {"a": 2, "b": (2, 3)},
        jnp.array([1, 2, 3]),
    ]

    def hide(t):  # an object()'s text holds its address: show its type instead
        return jax.tree.map(lambda v: "<object>" if type(v) is object else v, t)

    def print_leaves():
        for pytree in example_trees:
            leaves = jax.tree.leaves(pytree)
            print(f"{repr(hide(pytree)):<45} has {len(leaves)} leaves: {hide(leaves)}")

    run("what.leaves", print_leaves)

    params = {"W": jnp.zeros((2, 3)), "b": jnp.zeros(3)}

    def flatten_cell():
        leaves, treedef = jax.tree.flatten(params)
        print(leaves)
        print(treedef)
        print(jax.tree.unflatten(treedef, leaves))
        return [leaves, str(treedef), jax.tree.unflatten(treedef, leaves)]

    run("what.flatten", flatten_cell)

    # -- Common pytree functions
    list_of_lists = [[1, 2, 3], [1, 2], [1, 2, 3, 4]]
    rec("functions.map", jax.tree.map(lambda x: x * 2, list_of_lists))
    another_list_of_lists = list_of_lists
    rec("functions.map2", jax.tree.map(lambda x, y: x + y, list_of_lists, another_list_of_lists))
    # The page names these without a cell.
    rec("functions.reduce", jax.tree.reduce(lambda a, b: a + b, list_of_lists))
    rec("functions.structure", str(jax.tree.structure(list_of_lists)))
    run("functions.map_mismatch", lambda: jax.tree.map(lambda x, y: x + y, [1, 2], [1, 2, 3]))

    # -- Pytrees and JAX transformations
    def loss(params, x):
        pred = jnp.dot(x, params["W"]) + params["b"]
        return jnp.sum(pred**2)

    params = {"W": jnp.ones(3), "b": 0.5}
    x = jnp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    grads = jax.grad(loss)(params, x)
    rec("transform.grad_dict", grads)
    # The gradient of the Python float 0.5 is weakly typed, as the float was.
    rec("transform.grad_dict.types", jax.tree.map(lambda g: str(jax.typeof(g)), grads))

    rng = np.random.default_rng(0)  # the page's np.random, seeded so both runs agree

    def init_mlp_params(layer_widths):
        params = []
        for n_in, n_out in zip(layer_widths[:-1], layer_widths[1:]):
            params.append(
                dict(
                    weights=rng.normal(size=(n_in, n_out)) * np.sqrt(2 / n_in),
                    biases=np.ones(shape=(n_out,)),
                )
            )
        return params

    params = init_mlp_params([1, 128, 128, 1])
    rec("mlp.shapes", jax.tree.map(lambda x: x.shape, params))

    def forward(params, x):
        *hidden, last = params
        for layer in hidden:
            x = jax.nn.relu(x @ layer["weights"] + layer["biases"])
        return x @ last["weights"] + last["biases"]

    def loss_fn(params, x, y):
        return jnp.mean((forward(params, x) - y) ** 2)

    LEARNING_RATE = 0.0001

    def update(params, x, y):
        grads = jax.grad(loss_fn)(params, x, y)
        return jax.tree.map(lambda p, g: p - LEARNING_RATE * g, params, grads)

    x = rng.normal(size=(128, 1))
    y = x**2
    rec("mlp.loss0", loss_fn(params, x, y), tol=1e-5)
    for _ in range(100):
        params = update(params, x, y)
    rec("mlp.loss", loss_fn(params, x, y), tol=1e-4)
    rec("mlp.params_types", jax.tree.map(lambda p: str(jax.typeof(p)), params))

    # The page's in_axes pytrees (plain code blocks), on a function of (array, dict).
    def f(a, d):
        return a * d["k1"] + d["k2"]

    a, d = jnp.arange(6.0).reshape(3, 2), {"k1": jnp.ones((3, 2)), "k2": jnp.arange(2.0)}
    rec("vmap.in_axes_dict", jax.vmap(f, in_axes=(0, {"k1": 0, "k2": None}))(a, d))
    d0 = {"k1": jnp.ones((3, 2)), "k2": jnp.arange(3.0)[:, None]}
    rec("vmap.in_axes_prefix", jax.vmap(f, in_axes=(0, 0))(a, d0))
    rec("vmap.in_axes_leaf", jax.vmap(f, in_axes=0)(a, d0))
    run("vmap.in_axes_bad", lambda: jax.vmap(f, in_axes=(0, {"k1": 0}))(a, d))

    # -- Explicit key paths
    ATuple = collections.namedtuple("ATuple", ("name",))
    tree = [1, {"k1": 2, "k2": (3, 4)}, ATuple("foo")]

    def key_paths():
        flattened, _ = jax.tree_util.tree_flatten_with_path(tree)
        for key_path, value in flattened:
            print(f"Value of tree{jax.tree_util.keystr(key_path)}: {value}")

    run("paths.keystr", key_paths)
    rec(
        "paths.map_with_path",
        jax.tree_util.tree_map_with_path(lambda p, v: f"{jax.tree_util.keystr(p)}={v}", tree),
    )

    # -- Custom pytree nodes
    class Special:
        def __init__(self, x, y):
            self.x = x
            self.y = y

    leaves = jax.tree.leaves([Special(0, 1), Special(2, 4)])
    rec("custom.unregistered_leaves", [type(v).__name__ for v in leaves])
    run("custom.unregistered_map", lambda: jax.tree.map(lambda x: x + 1, [Special(0, 1)]))

    from_tree_util = importlib.import_module(jax.__name__ + ".tree_util")
    register_pytree_node = from_tree_util.register_pytree_node

    class RegisteredSpecial(Special):
        def __repr__(self):
            return f"RegisteredSpecial(x={self.x}, y={self.y})"

    def special_flatten(v):
        children = (v.x, v.y)
        aux_data = None
        return children, aux_data

    def special_unflatten(aux_data, children):
        return RegisteredSpecial(*children)

    register_pytree_node(RegisteredSpecial, special_flatten, special_unflatten)
    mapped = jax.tree.map(lambda x: x + 1, [RegisteredSpecial(0, 1), RegisteredSpecial(2, 4)])
    rec("custom.registered_map", [repr(mapped), jax.tree.leaves(mapped)])
    g = jax.grad(lambda s: s.x**2 + s.y)(RegisteredSpecial(3.0, 4.0))
    rec("custom.grad", [repr(g), type(g).__name__, g.x, g.y])

    class MyOtherContainer(NamedTuple):
        name: str
        a: Any
        b: Any

    rec(
        "custom.namedtuple_leaves",
        jax.tree.leaves([MyOtherContainer("Alice", 1, 2), MyOtherContainer("Bob", 4, 5)]),
    )

    # -- Registering dataclasses
    @functools.partial(
        jax.tree_util.register_dataclass, data_fields=["a", "b"], meta_fields=["name"]
    )
    @dataclass
    class MyDataclassContainer:
        name: str
        a: Any
        b: Any

    rec(
        "dataclass.leaves",
        jax.tree.leaves([
            MyDataclassContainer("apple", 5.3, 1.2),
            MyDataclassContainer("banana", jnp.zeros(4), -1.0),
        ]),
    )  # fmt: skip
    # The meta field rides in the treedef: a jit retraces for another name, not another value.
    traces = []

    @jax.jit
    def scaled(c):
        traces.append(c.name)
        return MyDataclassContainer(c.name, c.a * 2, c.b)

    out = [scaled(MyDataclassContainer("apple", 1.0, 2.0)) for _ in range(2)]
    out.append(scaled(MyDataclassContainer("apple", 3.0, 2.0)))
    out.append(scaled(MyDataclassContainer("pear", 3.0, 2.0)))
    rec("dataclass.jit", [[o.name, o.a, o.b] for o in out] + [traces])

    # The method-based registration the page mentions.
    @jax.tree_util.register_pytree_node_class
    class Pair:
        def __init__(self, first, second):
            self.first, self.second = first, second

        def tree_flatten(self):
            return (self.first, self.second), None

        @classmethod
        def tree_unflatten(cls, aux_data, children):
            return cls(*children)

    p = jax.tree.map(lambda v: v * 10, Pair(1, jnp.arange(2)))
    rec("custom.register_class", [type(p).__name__, p.first, p.second])

    # -- Common pytree gotchas
    a_tree = [jnp.zeros((2, 3)), jnp.zeros((3, 4))]
    shapes = jax.tree.map(lambda x: x.shape, a_tree)
    rec("gotchas.shapes", shapes)
    rec("gotchas.ones_of_shapes", jax.tree.map(jnp.ones, shapes))
    rec("gotchas.none_leaves", jax.tree.leaves([None, None, None]))
    rec("gotchas.none_is_leaf", jax.tree.leaves([None, None, None], is_leaf=lambda x: x is None))
    run("gotchas.unsortable_keys", lambda: jax.tree.map(lambda x: x + 1, {1: 7, "y": 42}))
    od = collections.OrderedDict([("y", 1), ("a", 2)])
    rec("gotchas.ordered_dict", jax.tree.leaves(jax.tree.map(lambda x: x + 1, od)))

    # -- Common pytree patterns
    def tree_transpose(list_of_trees):
        """Converts a list of trees of identical structure into a single tree of lists."""
        return jax.tree.map(lambda *xs: list(xs), *list_of_trees)

    episode_steps = [dict(t=1, obs=3), dict(t=2, obs=4)]
    rec("patterns.transpose", tree_transpose(episode_steps))
    outer = jax.tree.structure([0, 0])
    inner = jax.tree.structure(dict(t=0, obs=0))
    rec("patterns.tree_transpose", jax.tree.transpose(outer, inner, episode_steps))
