"""The code cells of JAX's "Control flow and logical operators with jit" page
(docs/201/control-flow.md), as one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd and records what
each prints or shows (a printed value, or a cell's last expression) and the class of the
error of each cell the page marks as raising. Beyond the cells, the program checks the page's
claims that have no cell of their own, each marked "claim": lax.select, lax.switch,
jnp.where, jnp.piecewise and jnp.select branch as described; while_loop is forward-mode
differentiable only, fori_loop with static bounds and scan in both modes; scan's and
fori_loop's ``unroll`` change nothing in the values; grad alone runs Python control flow.
"""

from __future__ import annotations

import importlib

from record import note

KNOWN: dict[str, tuple[object, str]] = {}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one page, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    jit = jax.jit

    @jit
    def f(x):
        if x < 3:
            return 3.0 * x**2
        else:
            return -4 * x

    # This will fail!
    note(rec, "if.jit", lambda: f(2))

    @jit
    def g(x):
        return (x < 3) and (x > 0)

    # This will fail!
    note(rec, "and.jit", lambda: g(2))

    def f(x):  # noqa: F811 -- the page defines f again
        if x < 3:
            return 3.0 * x**2
        else:
            return -4 * x

    f = jit(f, static_argnames="x")
    rec("static.if", f(2.0))
    rec("static.if.text", str(f(2.0)))

    def f(x, n):
        y = 0.0
        for i in range(n):
            y = y + x[i]
        return y

    f = jit(f, static_argnames="n")
    rec("static.loop", f(jnp.array([2.0, 3.0, 4.0]), 2))
    rec("static.loop.repr", repr(f(jnp.array([2.0, 3.0, 4.0]), 2)))

    # -- Shapes that depend on argument values
    def example_fun(length, val):
        return jnp.ones((length,)) * val

    # works fine without jit
    rec("shape.eager", example_fun(5, 4))
    rec("shape.eager.text", str(example_fun(5, 4)))

    bad_example_jit = jit(example_fun)
    # this will fail:
    note(rec, "shape.jit", lambda: bad_example_jit(10, 4))

    # static_argnames tells JAX to recompile when these arguments change:
    good_example_jit = jit(example_fun, static_argnames="length")
    # first compile
    rec("shape.static.10", good_example_jit(10, 4))
    # recompiles
    rec("shape.static.5", good_example_jit(5, 4))
    rec("shape.static.text", str(good_example_jit(5, 4)))

    # -- Structured control flow primitives: cond
    lax = jax.lax

    operand = jnp.array([0.0])
    rec("cond.true", lax.cond(True, lambda x: x + 1, lambda x: x - 1, operand))
    rec("cond.false", lax.cond(False, lambda x: x + 1, lambda x: x - 1, operand))
    rec("cond.text", str(lax.cond(False, lambda x: x + 1, lambda x: x - 1, operand)))
    # claim: the predicate can be a traced value.
    h = jit(lambda p, x: lax.cond(p, lambda x: x + 1, lambda x: x - 1, x))
    rec("claim.cond.traced", [h(True, operand), h(jnp.array(False), operand)])
    # claim: select, switch, where, piecewise and select on dynamic predicates.
    xs = jnp.array([-2.0, -0.5, 0.5, 2.0])
    rec("claim.lax.select", lax.select(xs > 0, xs, -xs))
    branches = [lambda x: x * 10, lambda x: x + 100, lambda x: -x]
    rec("claim.switch", [lax.switch(i, branches, 3.0) for i in (-1, 0, 1, 2, 5)])
    rec("claim.switch.jit", jit(lambda i: lax.switch(i, branches, 3.0))(1))
    rec("claim.where", jnp.where(xs > 0, xs, 0.0))
    rec("claim.piecewise", jnp.piecewise(xs, [xs < -1, xs > 1], [lambda x: x * 10, 7.0, -1.0]))
    rec("claim.piecewise.jit", jit(lambda x: jnp.piecewise(x, [x < 0], [jnp.sin, jnp.cos]))(xs))
    rec("claim.np_select", jnp.select([xs < -1, xs < 1], [xs * 10, xs * 100], default=-1.0))

    # -- while_loop
    init_val = 0
    cond_fun = lambda x: x < 10  # noqa: E731 -- the page's cell
    body_fun = lambda x: x + 1  # noqa: E731
    rec("while", lax.while_loop(cond_fun, body_fun, init_val))
    rec("while.repr", repr(lax.while_loop(cond_fun, body_fun, init_val)))
    # claim: forward-mode differentiable only.
    grow = lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)  # noqa: E731
    rec("claim.while.jvp", jax.jvp(grow, (1.5,), (1.0,)))
    note(rec, "claim.while.grad", lambda: jax.grad(grow)(1.5))

    # -- fori_loop
    init_val = 0
    start = 0
    stop = 10
    body_fun = lambda i, x: x + i  # noqa: E731
    rec("fori", lax.fori_loop(start, stop, body_fun, init_val))
    rec("fori.repr", repr(lax.fori_loop(start, stop, body_fun, init_val)))
    # claim: reverse-mode differentiable with static bounds, not with traced ones.
    power = lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0)  # noqa: E731
    rec("claim.fori.grad", jax.grad(power)(2.0))
    rec("claim.fori.unroll", lax.fori_loop(0, 10, lambda i, c: c + i * 1.5, 0.0, unroll=3))
    traced = lambda x, n: lax.fori_loop(0, n, lambda i, c: c * x, 1.0)  # noqa: E731
    rec("claim.fori.traced.jvp", jax.jvp(lambda x: traced(x, 3), (2.0,), (1.0,)))
    note(rec, "claim.fori.traced.grad", lambda: jit(jax.grad(traced))(2.0, 3))

    # -- scan
    def cumsum_step(carry, x):
        new_carry = carry + x
        return new_carry, new_carry  # (next state, this step's output)

    final, cumulative = lax.scan(cumsum_step, 0.0, jnp.arange(1.0, 5.0))
    rec("scan.final", final)
    rec("scan.cumulative", cumulative)
    rec("scan.text", [str(final), str(cumulative)])
    # claim: unroll changes nothing in the values; scan differentiates in both modes.
    for unroll in (2, True):
        rec(f"claim.scan.unroll.{unroll}",
            lax.scan(cumsum_step, 0.0, jnp.arange(1.0, 5.0), unroll=unroll))  # fmt: skip

    def total(x):
        return lax.scan(lambda c, x: (c * x, c), 1.0, x)[0]

    rec("claim.scan.grad", jax.grad(total)(jnp.arange(1.0, 5.0)))
    ones = jnp.ones(4)
    rec("claim.scan.jvp", jax.jvp(total, (jnp.arange(1.0, 5.0),), (ones,)))

    # -- Logical operators
    def python_check_positive_even(x):
        is_even = x % 2 == 0
        # `and` short-circuits, so when `is_even` is `False`, `x > 0` is not evaluated.
        return is_even and (x > 0)

    @jit
    def jax_check_positive_even(x):
        is_even = x % 2 == 0
        # `logical_and` does not short-circuit, so `x > 0` is always evaluated.
        return jnp.logical_and(is_even, x > 0)

    rec("logical.python", python_check_positive_even(24))
    rec("logical.jax", jax_check_positive_even(24))
    rec("logical.text", [str(python_check_positive_even(24)), str(jax_check_positive_even(24))])

    x = jnp.array([-1, 2, 5])
    rec("logical.array", jax_check_positive_even(x))
    rec("logical.array.text", str(jax_check_positive_even(x)))

    note(rec, "logical.python.array", lambda: python_check_positive_even(x))
    # claim: the bitwise operators work under jit too.
    bitwise = jit(lambda x: ((x % 2 == 0) & (x > 0)) | ~(x < 5))
    rec("claim.bitwise", bitwise(x))
    rec("claim.logical_or_not", [jnp.logical_or(x > 0, x < -0), jnp.logical_not(x > 0)])

    # -- Python control flow without jit: grad traces with concrete values.
    def relu_ish(x):
        if x < 3:
            return 3.0 * x**2
        return -4 * x

    rec("claim.grad.python_if", [jax.grad(relu_ish)(2.0), jax.grad(relu_ish)(4.0)])
    note(rec, "claim.vmap.python_if", lambda: jax.vmap(relu_ish)(jnp.array([2.0, 4.0])))
