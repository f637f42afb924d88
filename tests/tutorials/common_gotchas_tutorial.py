"""The code cells of JAX's "JAX - The Sharp Bits" page (docs/notebooks/Common_Gotchas_in_JAX.md),
as one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd and records what
each prints or shows (values, printed text captured from stdout, error classes, and the first
line of the messages the page shows).

Besides the current page's cells, the program keeps the cells earlier versions of the page had
and later moved to other tutorials: the random-number cells (keys, split) and the control-flow
cells (Python control flow under grad and jit, static_argnums, the tracer errors, lax.cond /
while_loop / fori_loop). The page's NaN-checker and 64-bit sections run with the flags turned
on and restored as the page says; the miscellaneous divergences (unsafe casts, subnormals) and
a few type-promotion cases close it.
"""

from __future__ import annotations

import contextlib
import importlib
import io

import numpy as np

KNOWN: dict[str, tuple[object, str]] = {}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    lax, random, jit, make_jaxpr = jax.lax, jax.random, jax.jit, jax.make_jaxpr
    grad = jax.grad

    def run(cell, fn, message=False, out=True, notice=False):
        """Run a cell; record its printed text (``cell.out``, when it prints) and its value or
        error class (``cell.message``: an error's first line, where the page shows it)."""
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            try:
                result = fn()
            except Exception as e:  # noqa: BLE001 -- the class is the recorded value
                result = e
                if message:
                    rec(cell + ".message", str(e).splitlines()[0])
        if buf.getvalue() and out:
            rec(cell + ".out", buf.getvalue())
        if notice:  # the NaN-checker's word that it runs a jitted function again, op by op
            rec(cell + ".notice", "Calling the de-optimized version." in buf.getvalue())
        rec(cell, result)
        return result

    # -- Pure functions
    def impure_print_side_effect(x):
        print("Executing function")  # This is a side-effect
        return x

    run("pure.print_side_effect", lambda: [
        jit(impure_print_side_effect)(4.0),
        jit(impure_print_side_effect)(5.0),
        jit(impure_print_side_effect)(jnp.array([5.0])),
    ])  # fmt: skip

    g = 0.0

    def impure_uses_globals(x):
        return x + g

    first = jit(impure_uses_globals)(4.0)
    g = 10.0  # Update the global
    second = jit(impure_uses_globals)(5.0)
    third = jit(impure_uses_globals)(jnp.array([4.0]))
    rec("pure.uses_globals", [first, second, third])

    saved = []

    def impure_saves_global(x):
        saved.append(x)
        return x

    rec("pure.saves_global", jit(impure_saves_global)(4.0))
    rec("pure.saves_global.saved", str(saved[0]))

    def pure_uses_internal_state(x):
        state = dict(even=0, odd=0)
        for i in range(10):
            state["even" if i % 2 == 0 else "odd"] += x
        return state["even"] + state["odd"]

    rec("pure.internal_state", jit(pure_uses_internal_state)(5.0))

    array = jnp.arange(10)
    rec("iter.fori_loop", lax.fori_loop(0, 10, lambda i, x: x + array[i], 0))
    iterator = iter(range(10))
    rec("iter.fori_loop_next", lax.fori_loop(0, 10, lambda i, x: x + next(iterator), 0))

    def func11(arr, extra):
        ones = jnp.ones(arr.shape)

        def body(carry, aelems):
            ae1, ae2 = aelems
            return (carry + ae1 * ae2 + extra, carry)

        return lax.scan(body, 0.0, (arr, ones))

    run("iter.scan_jaxpr", lambda: str(make_jaxpr(func11)(jnp.arange(16), 5.0)))
    run("iter.scan_iter", lambda: make_jaxpr(func11)(iter(range(16)), 5.0))
    array_operand = jnp.array([0.0])
    run("iter.cond", lambda: lax.cond(True, lambda x: x + 1, lambda x: x - 1, array_operand))
    iter_operand = iter(range(10))
    run("iter.cond_iter", lambda: lax.cond(
        True, lambda x: next(x) + 1, lambda x: next(x) - 1, iter_operand))  # fmt: skip

    # -- In-place updates
    jax_array = jnp.zeros((3, 3), dtype=jnp.float32)

    def set_in_place():
        jax_array[1, :] = 1.0

    run("update.in_place", set_in_place)
    updated_array = jax_array.at[1, :].set(1.0)
    rec("update.at_set", updated_array)
    rec("update.original", jax_array)
    jax_array = jnp.ones((5, 6))
    rec("update.at_add", jax_array.at[::2, 3:].add(7.0))

    # -- Out-of-bounds indexing
    run("oob.numpy", lambda: np.arange(10)[11], message=True)
    rec("oob.clamped", jnp.arange(10)[11])
    rec("oob.at_get", jnp.arange(10.0).at[11].get())
    rec("oob.at_get_fill", jnp.arange(10.0).at[11].get(mode="fill", fill_value=jnp.nan))
    rec("oob.update_skipped", jnp.arange(10).at[11].set(0))
    rec("oob.nanargmin", jnp.nanargmin(jnp.array([jnp.nan, jnp.nan])))
    rec("oob.nanargmax", jnp.nanargmax(jnp.array([[1.0, jnp.nan], [jnp.nan, jnp.nan]]), axis=1))

    # -- Non-array inputs: NumPy vs. JAX
    rec("nonarray.numpy", np.sum([1, 2, 3]))
    run("nonarray.jnp_sum", lambda: jnp.sum([1, 2, 3]), message=True)

    def permissive_sum(x):
        return jnp.sum(jnp.array(x))

    x = list(range(10))
    rec("nonarray.permissive", permissive_sum(x))
    rec("nonarray.permissive_jaxpr", str(make_jaxpr(permissive_sum)(x)))
    rec("nonarray.explicit", jnp.sum(jnp.array(x)))
    run("nonarray.jnp_exp_tuple", lambda: jnp.exp((1.0, 2.0)), message=True)

    # -- Random numbers (the page's earlier cells)
    key = random.PRNGKey(0)
    rec("random.key", key)
    rec("random.normal_same", [random.normal(key, shape=(1,)), random.normal(key, shape=(1,))])
    key, subkey = random.split(key)
    rec("random.split", [key, subkey, random.normal(subkey, shape=(1,))])
    key, subkey = random.split(key)
    rec("random.split_again", [key, subkey, random.normal(subkey, shape=(1,))])
    key, *subkeys = random.split(key, 4)
    rec("random.split4", [random.normal(subkey, shape=(1,)) for subkey in subkeys])
    rec("random.typed_key", str(random.key(0)))

    # -- Control flow (the page's earlier cells): Python control flow + autodiff
    def f(x):
        if x < 3:
            return 3.0 * x**2
        else:
            return -4 * x

    rec("cf.grad", [grad(f)(2.0), grad(f)(4.0)])

    @jit
    def f(x):
        for i in range(3):  # noqa: B007 -- the page's code
            x = 2 * x
        return x

    rec("cf.jit_for", f(3))

    @jit
    def g(x):  # noqa: F811 -- the page reuses the name
        y = 0.0
        for i in range(x.shape[0]):
            y = y + x[i]
        return y

    rec("cf.jit_shape_loop", g(jnp.array([1.0, 2.0, 3.0])))

    @jit
    def f(x):
        if x < 3:
            return 3.0 * x**2
        else:
            return -4 * x

    run("cf.jit_if", lambda: f(2), message=True)

    def f(x):
        if x < 3:
            return 3.0 * x**2
        else:
            return -4 * x

    f = jit(f, static_argnums=(0,))
    rec("cf.static_if", f(2.0))

    def f(x, n):
        y = 0.0
        for i in range(n):
            y = y + x[i]
        return y

    f = jit(f, static_argnums=(1,))
    rec("cf.static_loop", f(jnp.array([2.0, 3.0, 4.0]), 2))

    def example_fun(length, val):
        return jnp.ones((length,)) * val

    rec("cf.shape_eager", example_fun(5, 4))
    bad_example_jit = jit(example_fun)
    run("cf.shape_jit", lambda: bad_example_jit(10, 4), message=True)
    good_example_jit = jit(example_fun, static_argnums=(0,))
    rec("cf.shape_static", [good_example_jit(10, 4), good_example_jit(5, 4)])

    @jit
    def f(x):
        print(x)
        y = 2 * x
        print(y)
        return y

    run("cf.print_tracers", lambda: f(2))
    run("cf.int_of_tracer", lambda: jit(lambda x: int(x))(1), message=True)
    run("cf.float_of_tracer", lambda: jit(lambda x: float(x))(1.0), message=True)
    run("cf.index_of_tracer", lambda: jit(lambda x, i: x[[0, 1][i]])(jnp.ones(2), 1),
        message=True)  # fmt: skip
    run("cf.array_of_tracer", lambda: jit(lambda x: np.asarray(x))(1.0), message=True)
    run("cf.range_of_tracer", lambda: jit(lambda n: jnp.arange(n))(3), message=True)
    run("cf.while_python", lambda: jit(lambda x: [x := x + 1 for _ in range(2)][-1])(1))

    operand = jnp.array([0.0])
    rec("cf.cond", [
        lax.cond(True, lambda x: x + 1, lambda x: x - 1, operand),
        lax.cond(False, lambda x: x + 1, lambda x: x - 1, operand),
    ])  # fmt: skip
    rec("cf.while_loop", lax.while_loop(lambda x: x < 10, lambda x: x + 1, 0))
    rec("cf.fori_loop", lax.fori_loop(0, 10, lambda i, x: x + i, 0))
    run("cf.while_grad", lambda: grad(lambda x: lax.while_loop(lambda c: c < 10, lambda c: c * 2,
                                                               x))(1.0))  # fmt: skip
    rec("cf.fori_grad", grad(lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2, x))(1.0))
    rec("cf.logical_and", jit(lambda x: jnp.logical_and(x > 0, x < 3))(jnp.arange(5)))
    run("cf.and_tracers", lambda: jit(lambda x: (x > 0) and (x < 3))(1), message=True)

    # -- Dynamic shapes
    def nansum(x):
        mask = ~jnp.isnan(x)  # boolean mask selecting non-nan values
        x_without_nans = x[mask]
        return x_without_nans.sum()

    x = jnp.array([1, 2, jnp.nan, 3, 4])
    rec("dynamic.eager", nansum(x))
    run("dynamic.jit", lambda: jax.jit(nansum)(x), message=True)

    @jax.jit
    def nansum_2(x):
        mask = ~jnp.isnan(x)  # boolean mask selecting non-nan values
        return jnp.where(mask, x, 0).sum()

    rec("dynamic.where", nansum_2(x))
    run("dynamic.nonzero_jit", lambda: jax.jit(jnp.nonzero)(x))
    rec("dynamic.nonzero_size", jax.jit(lambda x: jnp.nonzero(x, size=6, fill_value=-1))(x))

    # -- NaNs: the NaN-checker, on and then off again
    jax.config.update("jax_debug_nans", True)
    # (JAX prints a notice each time a jitted function's output holds a NaN and it runs the
    # function again op by op, jnp's own jitted functions included: recorded for f only.)
    run("nans.divide", lambda: jnp.divide(0.0, 0.0), message=True, out=False)

    @jit
    def f(x, y):
        a = x * y
        b = (x + y) / (x - y)
        c = a + 2
        return a + b * c

    x = jnp.array([2.0, 0.0])
    y = jnp.array([3.0, 0.0])
    run("nans.jit", lambda: f(x, y), message=True, out=False, notice=True)
    run("nans.inf_ok", lambda: jnp.divide(1.0, 0.0))
    jax.config.update("jax_debug_nans", False)
    rec("nans.off", f(x, y))

    # -- Double (64bit) precision
    x = random.uniform(random.key(0), (8,), dtype=jnp.float64)
    rec("x64.off", [str(x.dtype), x])
    jax.config.update("jax_enable_x64", True)
    x = random.uniform(random.key(0), (8,), dtype=jnp.float64)
    rec("x64.on", [str(x.dtype), x])
    rec("x64.defaults", [str(jnp.arange(3).dtype), str(jnp.array(1.0).dtype),
                         str((jnp.ones(2, jnp.float32) + 1.0).dtype)])  # fmt: skip
    jax.config.update("jax_enable_x64", False)
    rec("x64.restored", [str(jnp.arange(3).dtype), str(jnp.array(1.0).dtype)])

    # -- Miscellaneous divergences from NumPy
    rec("misc.unsafe_cast_numpy", np.arange(254.0, 258.0).astype("uint8"))
    rec("misc.unsafe_cast", jnp.arange(254.0, 258.0).astype("uint8"))
    subnormal = jnp.float32(1e-45)
    rec("misc.subnormal", subnormal)
    rec("misc.subnormal_plus_0", subnormal + 0)

    # -- Type promotion (the page points to its own page; a few of its cases)
    i8, u8 = jnp.int8(1), jnp.uint8(1)
    rec("promote", [str(v.dtype) for v in [
        i8 + u8, i8 + 1, i8 + 1.0, jnp.bfloat16(1) + jnp.float16(1), u8 + jnp.int32(1),
        jnp.float16(1) + jnp.int64(1), jnp.ones(2, jnp.int32) + np.float64(1),
        jnp.ones(2) + np.ones(2), jnp.uint32(1) + jnp.int32(1), jnp.complex64(1) + 1.0,
    ]])  # fmt: skip
    rec("promote.weak", [str(jax.typeof(v)) for v in [jnp.asarray(1), i8 + 1, jnp.asarray(1.0)]])
