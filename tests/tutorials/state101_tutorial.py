"""The code cells of JAX's "Stateful computations" page (docs/101/state.md), as one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd and records what
each prints or shows: printed text captured from stdout (``CELL.out``), values, jaxpr texts
and error classes (``CELL``). Besides the page's cells, the program tries each rule of its
"Ref restrictions" list and its out-of-bounds remark, and uses a ref after ``freeze``.
"""

import importlib

from record import run_cell

KNOWN: dict[str, tuple[object, str]] = {}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")

    def run(cell, fn, tol=None):
        return run_cell(rec, cell, fn, tol)

    # -- The problem with untraceable state
    class Counter:
        """A simple counter."""

        def __init__(self):
            self.n = 0

        def count(self) -> int:
            """Increments the counter and returns the new value."""
            self.n += 1
            return self.n

    def count_three():
        counter = Counter()
        for _ in range(3):
            print(counter.count())

    run("counter.python", count_three)
    counter = Counter()
    rec("counter.jaxpr", str(jax.jit(counter.count).trace().jaxpr))
    # Under jit the compiled counter returns 1 on every call, as the page says.
    counted = jax.jit(Counter().count)
    rec("counter.jit_calls", [counted(), counted(), counted()])

    # -- Threading state through pure functions
    class CounterV2:
        def count(self, n):
            return n + 1, n + 1

        def reset(self):
            return 0

    counter = CounterV2()

    def count_v2():
        state = counter.reset()
        for _ in range(3):
            value, state = counter.count(state)
            print(value)

    run("counterv2.python", count_v2)
    rec("counterv2.jaxpr", str(jax.jit(counter.count).trace(0).jaxpr))

    def update(params, opt_state, batch):
        """One training step: consume state, produce new state."""
        grads = jax.grad(loss_fn)(params, batch)
        new_params, new_opt_state = optimizer_step(params, grads, opt_state)
        return new_params, new_opt_state

    def loss_fn(params, batch):
        x, y = batch
        return jnp.mean((params["w"] * x + params["b"] - y) ** 2)

    def optimizer_step(params, grads, opt_state, lr=0.1, decay=0.9):
        new_opt_state = jax.tree.map(lambda m, g: decay * m + g, opt_state, grads)
        new_params = jax.tree.map(lambda p, m: p - lr * m, params, new_opt_state)
        return new_params, new_opt_state

    params = {"w": jnp.float32(1.0), "b": jnp.float32(0.0)}
    opt_state = jax.tree.map(jnp.zeros_like, params)
    batch = (jnp.array([1.0, 2.0, 3.0]), jnp.array([3.0, 5.0, 7.0]))

    def train():
        nonlocal params, opt_state
        for _ in range(100):
            params, opt_state = update(params, opt_state, batch)
        print(jax.tree.map(lambda x: round(float(x), 2), params))

    run("train.print", train)
    rec("train.params", [params, opt_state], tol=1e-4)

    # -- Refs: mutable arrays
    x_ref = jax.new_ref(jnp.zeros(3))

    @jax.jit
    def f():
        x_ref[1] += 1.0

    def ref_jit():
        print(x_ref)
        f()
        f()
        print(x_ref)

    run("refs.jit_update", ref_jit)
    rec("refs.typeof", str(jax.typeof(x_ref)))

    def g(x):
        x_ref = jax.new_ref(0.0)
        x_ref[...] = jnp.sin(x)
        return x_ref[...]

    run("refs.grad", lambda: print(jax.grad(g)(1.0)))
    rec("refs.grad.value", jax.grad(g)(1.0))

    x_ref = jax.new_ref(1.0)
    run("refs.sin_of_ref", lambda: jnp.sin(x_ref))

    x_ref = jax.new_ref(jnp.arange(12.0).reshape(3, 4))
    row = x_ref[0]
    x_ref[1] = row
    val = x_ref[1, 2]
    x_ref[2, 3] = val
    col = x_ref[:, 1]
    x_ref[0, :3] = col
    vals = x_ref[jnp.array([0, 0, 1]), jnp.array([1, 2, 3])]
    x_ref[jnp.array([1, 2, 1]), jnp.array([0, 0, 1])] = vals
    rec("refs.indexing", [row, val, col, vals, x_ref[...]])

    # Out-of-bounds indices known in advance are errors (an Array's reads clamp).
    def oob_read():
        return x_ref[5]

    def oob_write():
        x_ref[0, 7] = 1.0

    run("refs.oob_read", oob_read)
    run("refs.oob_write", oob_write)
    rec("refs.array_clamps", jnp.arange(12.0).reshape(3, 4)[5])

    final = jax.freeze(x_ref)
    rec("refs.freeze", final)
    # The page says a frozen ref is invalid; JAX 0.10.2 still reads it (the record is 0.10.2's).
    run("refs.after_freeze", lambda: x_ref[...])

    # -- Refs and purity
    def normalize(x):
        acc = jax.new_ref(0.0)
        acc[...] = jnp.sum(x)
        return x / acc[...]

    rec("purity.grad_normalize", jax.grad(lambda x: normalize(x).sum())(jnp.arange(1.0, 4.0)))

    def scale_into(x, out_ref):
        out_ref[...] = 2.0 * x

    xs = jnp.arange(3.0)
    out_ref = jax.new_ref(jnp.zeros(3))

    def vmap_into():
        jax.vmap(scale_into)(xs, out_ref)
        print(out_ref[...])
        return out_ref[...]

    run("purity.vmap_ref_arg", vmap_into)

    r = jax.new_ref(0.0)

    def write_shared(x):
        r[...] = x

    run("purity.vmap_closed_ref", lambda: jax.vmap(write_shared)(jnp.arange(3.0)))
    rec("purity.vmap_closed_ref.unchanged", r[...])

    # -- Ref restrictions, one by one
    a_ref = jax.new_ref(jnp.ones(2))
    run("rules.return_from_jit", lambda: jax.jit(lambda: jax.new_ref(jnp.zeros(2)))())
    run("rules.return_arg_from_jit", lambda: jax.jit(lambda r: r)(a_ref))

    def scan_returns_ref():
        def body(c, _):
            return c, jax.new_ref(c)

        return jax.lax.scan(body, 0.0, None, length=2)

    run("rules.return_from_scan", scan_returns_ref)

    def twice(r1, r2):
        r1[...] += 1.0
        r2[...] += 1.0

    run("rules.same_ref_twice", lambda: jax.jit(twice)(a_ref, a_ref))

    def arg_and_capture(r1):
        r1[...] += 1.0
        a_ref[...] += 1.0

    run("rules.arg_and_capture", lambda: jax.jit(arg_and_capture)(a_ref))
    b_ref = jax.new_ref(jnp.ones(2))
    run("rules.distinct_refs", lambda: jax.jit(twice)(a_ref, b_ref))
    rec("rules.distinct_refs.values", [a_ref[...], b_ref[...]])

    # JAX 0.10.2 refuses these two with internal errors (KeyError, AssertionError) where spmd
    # says why (ValueError, TypeError): the record is whether they are refused.
    def refused(cell, fn):
        try:
            fn()
        except Exception:  # noqa: BLE001 -- any class: see above
            return rec(cell, True)
        rec(cell, False)

    refused("rules.freeze_outer", lambda: jax.jit(lambda: jax.freeze(b_ref))())
    refused("rules.freeze_arg", lambda: jax.jit(jax.freeze)(b_ref))

    def freeze_in_body():
        r = jax.new_ref(0.0)
        return jax.lax.scan(lambda c, _: (c, jax.freeze(r)), 0.0, None, length=2)

    refused("rules.freeze_in_body", lambda: jax.jit(freeze_in_body)())
    refused("rules.ref_of_ref", lambda: jax.new_ref(jax.new_ref(0.0)))
    # Frozen where it was made, under jit, is fine.
    rec("rules.freeze_inner", jax.jit(lambda: jax.freeze(jax.new_ref(jnp.ones(2))))())
