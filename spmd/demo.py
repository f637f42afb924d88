"""A short tour of spmd, printed to the terminal: ``python -m spmd.demo`` (or ``make demo``).

Each section is a function below, listed in ``SECTIONS``; its docstring's first line is the
heading. The code a section shows is run as in an interactive session (``>>>`` prompts, the repr
of each expression printed), each section in a namespace of its own, so sections neither depend
on nor disturb one another. To add one, write a function like those below and list it.
"""

from __future__ import annotations

import ast
import textwrap
import time
from collections.abc import Callable

import numpy as np

import spmd as jax
import spmd.numpy as jnp
from spmd import lax

# ---------------------------------------------------------------------------------------------
# Presentation


def _heading(title: str) -> None:
    try:
        from rich.console import Console  # lazy: only the headings use rich
    except ImportError:
        print(f"\n== {title} ==")
        return
    Console(highlight=False).rule(f"[bold]{title}", align="left")


def _namespace() -> dict:
    """A fresh namespace with the usual imports, for one section's session."""
    return {"jax": jax, "jnp": jnp, "lax": lax, "np": np}


def session(code: str, ns: dict) -> None:
    """Run ``code`` as if typed at the interactive prompt: echo each statement after ``>>>``
    (continuation lines after ``...``), print the repr of each expression's value, and echo
    comment lines as they are."""
    code = textwrap.dedent(code).strip("\n")
    lines = code.splitlines()
    done = 0  # lines [0, done) have been echoed
    for node in ast.parse(code).body:
        start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])]) - 1
        for line in lines[done:start]:
            if line.strip():
                print(line)
        done = node.end_lineno
        first, *rest = lines[start:done]
        print(">>> " + first)
        for line in rest:
            print("... " + line)
        if isinstance(node, ast.Expr):
            value = eval(compile(ast.Expression(node.value), "<demo>", "eval"), ns)
            if value is not None:
                print(repr(value))
        else:
            exec(compile(ast.Module([node], type_ignores=[]), "<demo>", "exec"), ns)


def _best_seconds(fn: Callable[[], object], calls: int = 200) -> float:
    """The fastest of ``calls`` timed calls of ``fn()``."""
    best = float("inf")
    for _ in range(calls):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


# ---------------------------------------------------------------------------------------------
# Sections


def arrays() -> None:
    """Arrays"""
    session(
        """
        x = jnp.arange(3)
        x
        x * 2 + 1
        jnp.ones((2, 3))
        jnp.linspace(0.0, 1.0, 5)
        x.dtype, x.shape
        """,
        _namespace(),
    )


def type_promotion() -> None:
    """Type promotion and weak types"""
    session(
        """
        # A Python scalar is weakly typed: it takes the dtype of the array it meets.
        h = jnp.ones(3, dtype=jnp.float16)
        h + 1.0
        # A NumPy or spmd scalar has a dtype of its own, and promotion follows JAX's lattice.
        h + jnp.float32(1.0)
        jnp.ones(2, dtype=jnp.uint8) + jnp.ones(2, dtype=jnp.int8)
        # Integers meeting a Python float become float32, and the result stays weak.
        jnp.ones(2, dtype=jnp.int8) + 1.5
        jnp.add(1.0, 2)
        """,
        _namespace(),
    )


def jit_compilation() -> None:
    """jit: trace once, then run the compiled program"""
    ns = _namespace()
    session(
        """
        def step(x):
            return jnp.maximum(x, 0.0) * 2.0 + 1.0

        fast_step = jax.jit(step)
        x = jnp.arange(-2.0, 2.0)
        """,
        ns,
    )
    step, fast_step, x = ns["step"], ns["fast_step"], ns["x"]
    t0 = time.perf_counter()
    fast_step(x)
    first = time.perf_counter() - t0
    cached = _best_seconds(lambda: fast_step(x))
    eager = _best_seconds(lambda: step(x))
    print(f"first call of fast_step: {first * 1e3:8.2f} ms  (traces step, compiles the program)")
    print(f"later calls (cached):    {cached * 1e6:8.1f} µs")
    print(f"step(x) without jit:     {eager * 1e6:8.1f} µs  (one dispatch per operation)")
    session("fast_step(x)", ns)


def jaxprs() -> None:
    """make_jaxpr: the program jit compiles"""
    session(
        """
        def f(x, y):
            return jnp.sin(x) * y + 1.0

        # The weakly typed 2.0 is converted to x's float32; the 1.0 stays a literal.
        print(jax.make_jaxpr(f)(jnp.ones(3), 2.0))
        """,
        _namespace(),
    )


def pytrees() -> None:
    """Pytrees: nested containers of arrays"""
    session(
        """
        params = {"w": jnp.ones((2, 2)), "b": jnp.zeros(2)}
        jax.tree_util.tree_structure(params)
        jax.tree.map(lambda p: p.shape, params)

        # Transformations take and return pytrees.
        @jax.jit
        def sgd(params, grads):
            return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads)

        sgd(params, params)
        """,
        _namespace(),
    )


def dot_products() -> None:
    """Dot products"""
    session(
        """
        a = jnp.arange(3.0)
        b = jnp.array([4.0, 5.0, 6.0])
        jnp.dot(a, b)
        a @ b
        m = jnp.arange(6.0).reshape(2, 3)
        m @ b
        """,
        _namespace(),
    )


def vmap_and_grad() -> None:
    """vmap and grad: per-example gradients, Jacobians, batched programs"""
    session(
        """
        def loss(w, x, y):
            return (jnp.dot(x, w) - y) ** 2

        w = jnp.array([1.0, -1.0, 0.5])
        xs = jnp.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        ys = jnp.array([0.0, 1.0])
        # grad differentiates with respect to the first argument ...
        jax.grad(loss)(w, xs[0], ys[0])
        # ... and vmap maps that over the examples: one gradient per example, in one call.
        per_example = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))
        per_example(w, xs, ys)
        # jacobian: every partial derivative of a function from vectors to vectors.
        jax.jacobian(lambda x: x * jnp.sum(x))(jnp.array([1.0, 2.0]))

        # vmap rewrites the program: a dot of vectors becomes one batched dot_general.
        def dot(v1, v2):
            return jnp.dot(v1, v2)

        v1s, v2s = jnp.ones((4, 3)), jnp.ones((4, 3))
        print(jax.make_jaxpr(jax.vmap(dot))(v1s, v2s))
        """,
        _namespace(),
    )


def sharded_arrays() -> None:
    """Devices and sharded arrays: 8 virtual CPU devices, a mesh, and a picture"""
    session(
        """
        jax.devices()
        mesh = jax.make_mesh((2, 4), ("x", "y"))
        sharding = jax.NamedSharding(mesh, jax.P("x", "y"))
        x = jax.device_put(jnp.arange(32.0).reshape(4, 8), sharding)
        x.sharding
        jax.debug.visualize_array_sharding(x)
        # Each device holds a view of its block; an operation keeps the layout,
        x.addressable_shards[5].index
        (2 * jnp.sin(x) + 1).sharding == x.sharding
        # and a reduction drops the reduced dimension's mesh axis.
        jax.debug.visualize_array_sharding(x.sum(axis=0))
        """,
        _namespace(),
    )


def collectives() -> None:
    """shard_map and pmap: one program over all devices, with collectives"""
    session(
        """
        mesh = jax.make_mesh((8,), ("i",))
        # Each device sums its shard; psum adds the partial sums over the mesh axis.
        total = jax.shard_map(lambda b: jax.lax.psum(b.sum(), "i"), mesh=mesh,
                              in_specs=jax.P("i"), out_specs=jax.P())
        total(jnp.arange(32))
        # pmap maps over the leading axis, one slice per device.
        jax.pmap(lambda v: jax.lax.all_gather(v, "i"), axis_name="i")(jnp.arange(4))
        """,
        _namespace(),
    )


def automatic_parallelism() -> None:
    """Automatic parallelism: jit places results and inserts collectives"""
    session(
        """
        mesh = jax.make_mesh((2, 4), ("x", "y"))
        x = jax.device_put(jnp.ones((8, 16)), jax.NamedSharding(mesh, jax.P("x", "y")))
        w = jax.device_put(jnp.ones((16, 4)), jax.NamedSharding(mesh, jax.P("y", None)))
        layer = jax.jit(lambda x, w: jax.nn.relu(x @ w))
        # The contraction is split over 'y' on both sides: the result is sharded like x's rows,
        layer(x, w).sharding.spec
        # and the partitioned program sums the partial products, saying why.
        print(layer.lower(x, w).as_text())
        layer.lower(x, w).compile().cost_analysis()
        """,
        _namespace(),
    )


# The tour, in order. Multi-process runs are still to come, at the end.
SECTIONS: list[Callable[[], None]] = [
    arrays,
    type_promotion,
    jit_compilation,
    jaxprs,
    pytrees,
    dot_products,
    vmap_and_grad,
    sharded_arrays,
    collectives,
    automatic_parallelism,
]


def main() -> None:
    """Print the tour."""
    print(
        f"spmd {jax.__version__}: JAX's API on NumPy.  import spmd as jax; import spmd.numpy as jnp"
    )
    for section in SECTIONS:
        print()
        _heading(section.__doc__.splitlines()[0])
        section()


if __name__ == "__main__":
    main()
