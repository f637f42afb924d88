"""The code cells of JAX's "Pseudorandom numbers" page (docs/101/random.md), as one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd and records what
each prints or shows: printed text captured from stdout (``CELL.out``) and values (``CELL``).
The page's plain code block (a chain of splits) runs for three steps; the note's legacy keys
(``PRNGKey``, ``key_data``, ``wrap_key_data``), the other implementations the page names (the
``impl`` argument, the ``jax_default_prng_impl`` option) and a few of the samplers it lists
(uniform, categorical, permutation) each get a cell.
"""

import importlib

import numpy as np
from record import run_cell

KNOWN: dict[str, tuple[object, str]] = {}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    random = jax.random

    def run(cell, fn, tol=None):
        return run_cell(rec, cell, fn, tol)

    # -- Why not a global generator?
    def numpy_global():
        np.random.seed(0)
        print(np.random.uniform())
        print(np.random.uniform())

    run("numpy.global", numpy_global)

    def numpy_order():
        np.random.seed(0)

        def bar():
            return np.random.uniform()

        def baz():
            return np.random.uniform()

        def foo():
            return bar() + 2 * baz()

        print(foo())

    run("numpy.order", numpy_order)

    # -- Keys are values
    key = random.key(42)
    rec("key.repr", repr(key))
    rec("key.data", random.key_data(key))
    run("key.typeof", lambda: print(jax.typeof(key)))
    rec("key.shape", [key.shape, key.ndim, str(key.dtype)])

    def same_key():
        print(random.normal(key))
        print(random.normal(key))
        return [random.normal(key), random.normal(key)]

    run("key.normal_twice", same_key)

    # -- Deriving new keys
    def split_pair():
        key = random.key(42)
        key, subkey = random.split(key)
        print(random.normal(subkey))
        return [random.key_data(key), random.key_data(subkey)]

    run("derive.split", split_pair)
    key = random.key(42)
    subkeys = random.split(key, num=4)
    rec("derive.split4", [float(random.normal(k)) for k in subkeys])
    rec("derive.split4.keys", [repr(subkeys), random.key_data(subkeys)])

    def fold_in_loop():
        key = random.key(42)
        for step in range(3):
            step_key = random.fold_in(key, step)
            print(f"step {step}: {random.normal(step_key)}")

    run("derive.fold_in", fold_in_loop)

    # The page's chain of splits (a plain code block), for three steps.
    key = random.key(42)
    chain = []
    for _ in range(3):
        key, subkey = random.split(key)
        chain.append(random.key_data(subkey))
    rec("derive.chain", chain)

    # -- No sequential equivalence
    def sequential():
        key = random.key(42)
        subkeys = random.split(key, 3)
        print("individually:", np.stack([random.normal(k) for k in subkeys]))
        key = random.key(42)
        print("all at once: ", random.normal(key, shape=(3,)))

    run("sequence.print", sequential)
    subkeys = random.split(random.key(42), 3)
    rec("sequence.vmap", jax.vmap(random.normal)(subkeys))
    rec(
        "sequence.vmap_equals_loop",
        bool(
            jnp.all(
                jax.vmap(random.normal)(subkeys) == jnp.stack([random.normal(k) for k in subkeys])
            )
        ),
    )

    # Keys pass through jit like any array.
    rec("sequence.jit_split", repr(jax.jit(lambda k: random.split(k))(random.key(42))))

    # -- The note: legacy uint32 keys, and converting at boundaries
    old = random.PRNGKey(42)
    rec("note.prngkey", old)
    rec("note.prngkey.normal", random.normal(old))
    data = random.key_data(random.key(42))
    rec("note.key_data", data)
    wrapped = random.wrap_key_data(data)
    rec("note.wrap_key_data", [repr(wrapped), random.normal(wrapped)])
    rec("note.arith_on_old", old + 1)
    run("note.arith_on_typed", lambda: random.key(42) + 1)

    # -- Design and implementations
    for impl in ["threefry2x32", "rbg", "unsafe_rbg"]:
        k = random.key(42, impl=impl)
        rec(f"impl.{impl}", [str(jax.typeof(k)), random.key_data(k)])
        rec(f"impl.{impl}.samples", [random.normal(k, (3,)), random.key_data(random.split(k))])
        rec(f"impl.{impl}.vmap", jax.vmap(random.normal)(random.split(k, 2)))
    jax.config.update("jax_default_prng_impl", "rbg")
    rec("impl.default_rbg", str(jax.typeof(random.key(0))))
    jax.config.update("jax_default_prng_impl", "threefry2x32")
    rec("impl.default_back", str(jax.typeof(random.key(0))))

    # A few of the samplers the page lists.
    key = random.key(7)
    k1, k2, k3 = random.split(key, 3)
    rec("samplers.uniform", random.uniform(k1, (4,), minval=-1.0, maxval=1.0))
    rec(
        "samplers.categorical",
        random.categorical(k2, jnp.log(jnp.array([0.1, 0.2, 0.7])), shape=(6,)),
    )
    rec("samplers.permutation", random.permutation(k3, 8))
