"""The code cells of JAX's "Debugging runtime values" page (docs/201/debugging.md), as one
program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd and records what
each prints (stdout captured after ``effects_barrier``), logs (the messages of the callbacks'
``logging.warning``), returns, and raises (an error's class and its message's first line).

Changed from the page: the NaN-checker cell's ``traceback.format_exc(limit=2)`` is recorded as
the error's class and message (the traceback's frames are JAX's own); the ``jax_disable_jit``
block (``python``, not run on the page) runs without its ``breakpoint()``: the program records
which branch the now-concrete ``jnp.isnan(y)`` takes. Added: Python's ``print`` of a tracer
records the kind of value it shows (a tracer's text is JAX's own), and ``jax_debug_infs`` runs
on the page's description.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import logging

KNOWN: dict[str, tuple[object, str]] = {}


_NOTICE = "Calling the de-optimized version."


def _parsed(line: str) -> object:
    """A printed line; one that ends in a number as [text, number], so that numbers compare
    at their dtype's tolerance (XLA's sin(1.0) and NumPy's differ in the last bit)."""
    head, _, last = line.rpartition(" ")
    try:
        return [head, int(last) if last.lstrip("-").isdigit() else float(last)]
    except ValueError:
        return line


class _Log(logging.Handler):
    """Collects the messages of every logger (the root's, which ``logging.warning`` uses)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")

    def run(cell, fn, logs=False, unordered=False, notice=False):
        """Run a cell; record its printed lines (``cell.out``; sorted, with ``unordered``), its
        logged messages (``cell.log``, with ``logs``), and its value or error (class and first
        line). The NaN-checker's notices are left out of the lines (JAX prints one for each
        jitted function inside jax.numpy's too); with ``notice``, whether there was one."""
        buf, log = io.StringIO(), _Log()
        if logs:
            logging.getLogger().addHandler(log)
        try:
            with contextlib.redirect_stdout(buf):
                try:
                    result = fn()
                    jax.effects_barrier()
                except Exception as e:  # noqa: BLE001 -- the class is the recorded value
                    result = e
                    rec(cell + ".message", str(e).splitlines()[0])
        finally:
            logging.getLogger().removeHandler(log)
        lines = buf.getvalue().splitlines()
        if notice:  # the NaN-checker's word that it runs a jitted function again, op by op
            rec(cell + ".notice", any(_NOTICE in ln for ln in lines))
        lines = [ln for ln in lines if _NOTICE not in ln]
        rec(cell + ".out", [_parsed(ln) for ln in (sorted(lines) if unordered else lines)])
        if logs:
            rec(cell + ".log", log.messages)
        rec(cell, result)
        return result

    # -- jax.debug.print for simple inspection
    @jax.jit
    def f(x):
        print("print(x) ->", type(x).__name__.endswith("Tracer"), x.shape, x.dtype)
        y = jnp.sin(x)
        print("print(y) ->", type(y).__name__.endswith("Tracer"), y.shape, y.dtype)
        return y

    run("print", lambda: f(2.0))

    @jax.jit
    def f(x):  # noqa: F811 -- the page redefines it
        jax.debug.print("jax.debug.print(x) -> {x}", x=x)
        y = jnp.sin(x)
        jax.debug.print("jax.debug.print(y) -> {y}", y=y)
        return y

    run("debug_print.jit", lambda: f(2.0))

    def f(x):  # noqa: F811 -- the page redefines it
        jax.debug.print("jax.debug.print(x) -> {}", x)
        y = jnp.sin(x)
        jax.debug.print("jax.debug.print(y) -> {}", y)
        return y

    xs = jnp.arange(3.0)
    run("debug_print.vmap", lambda: jax.vmap(f)(xs))
    # (Sorted: unordered prints in a loop body come in the order XLA schedules them; JAX
    # 0.10.2 prints each step's y before its x.)
    run("debug_print.lax_map", lambda: jax.lax.map(f, xs), unordered=True)

    def f(x):  # noqa: F811 -- the page redefines it
        jax.debug.print("jax.debug.print(x) -> {}", x)
        return x**2

    run("debug_print.grad", lambda: jax.grad(f)(1.0))
    # Beyond the page: the same under jit (the page: "consistent if you apply jit").
    run("debug_print.jit_grad", lambda: jax.jit(jax.grad(f))(1.0))

    @jax.jit
    def f(x, y):  # noqa: F811 -- the page redefines it
        jax.debug.print("jax.debug.print(x) -> {}", x, ordered=True)
        jax.debug.print("jax.debug.print(y) -> {}", y, ordered=True)
        return x + y

    run("debug_print.ordered", lambda: f(1, 2))

    # -- Sharp bits of jax.debug.print
    @jax.custom_vjp
    def print_grad(x):
        return x

    def print_grad_fwd(x):
        return x, None

    def print_grad_bwd(_, x_grad):
        jax.debug.print("x_grad: {}", x_grad)
        return (x_grad,)

    print_grad.defvjp(print_grad_fwd, print_grad_bwd)

    def f(x):  # noqa: F811 -- the page redefines it
        x = print_grad(x)
        return x * 2.0

    run("print_grad", lambda: jax.grad(f)(1.0))

    @jax.jit
    def f(x):  # noqa: F811 -- the page redefines it
        jax.debug.print("x: {}", x)
        return x

    run("effects_barrier", lambda: f(2.0).block_until_ready())

    # -- jax.debug.callback for more control during debugging
    def log_value(x):
        logging.warning(f"Logged value: {x}")  # noqa: G004 -- the page's code

    @jax.jit
    def f(x):  # noqa: F811 -- the page redefines it
        jax.debug.callback(log_value, x)
        return x

    run("callback.jit", lambda: f(1.0), logs=True)
    x = jnp.arange(5.0)
    run("callback.vmap", lambda: jax.vmap(f)(x), logs=True)
    run("callback.grad", lambda: jax.grad(f)(1.0), logs=True)

    # -- jax_debug_nans
    jax.config.update("jax_debug_nans", True)

    def f(x):  # noqa: F811 -- the page redefines it
        w = 3 * jnp.square(x)
        return jnp.log(-w)

    run("debug_nans.eager", lambda: f(5.0))
    run("debug_nans.jit", lambda: jax.jit(f)(5.0), notice=True)

    def off():
        with jax.debug_nans(False):
            print(jax.jit(f)(5.0))

    run("debug_nans.scoped_off", off)
    jax.config.update("jax_debug_nans", False)  # back off for the rest of this page
    run("debug_nans.off", lambda: jax.jit(f)(5.0))

    # -- jax_debug_infs (beyond the page: as it describes it)
    def g(x):
        return jnp.log(x) * 2.0

    with jax.debug_infs(True):
        run("debug_infs.eager", lambda: g(0.0))
        run("debug_infs.jit", lambda: jax.jit(g)(0.0), notice=True)
        run("debug_infs.finite", lambda: jax.jit(g)(1.0), notice=True)

    # -- jax_disable_jit (the page's block, without its breakpoint)
    jax.config.update("jax_disable_jit", True)

    def f(x):  # noqa: F811 -- the page redefines it
        y = jnp.log(x)
        if jnp.isnan(y):
            print("would enter pdb, y =", y)
        return y

    try:
        run("disable_jit", lambda: jax.jit(f)(-2.0))
    finally:
        jax.config.update("jax_disable_jit", False)
    run("disable_jit.off", lambda: jax.jit(f)(-2.0))

    def h(x):
        print("h sees a", "tracer" if type(x).__name__.endswith("Tracer") else "value")
        return x

    with jax.disable_jit():
        run("disable_jit.context", lambda: jax.jit(h)(1.0))
    run("disable_jit.context_off", lambda: jax.jit(h)(1.0))
