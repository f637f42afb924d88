"""The code cells of JAX's "Just-in-time compilation" page (docs/201/jit.md), as one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd and records what
each prints or shows: values, a jaxpr's text, error classes, and (where the page is about how
often jit traces) how many times a function's Python body ran.

Left out or shrunk: the ``%timeit`` / ``%time`` cells (their functions run once, and the
program records their values); the arrays are smaller (10 elements for the SELU's million,
4x4 for the 1000x1000 matmul). The cache-miss explanations ``jax_explain_cache_misses`` logs
are recorded as their gist (a function never seen, or the argument types that changed), as
the wording and source locations are JAX's own. Added: the page's ``python`` (not run) blocks
on buffer donation, run: what is deleted after a call, what using a donated array raises,
keyword arguments (JAX 0.10.2 donates them too, where the page says it does not), a pytree
argument donated whole, and the warning for a donation no output can use.
"""

from __future__ import annotations

import importlib
import logging
import warnings
from functools import partial

import numpy as np
import record

KNOWN: dict[str, tuple[object, str]] = {}


class _Log(logging.Handler):
    """Collects the messages of every logger (JAX's and spmd's propagate to the root)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def _gist(message: str) -> object:
    """A cache-miss explanation as "never seen", or the lines naming what changed."""
    if "never seen function" in message:
        return "never seen"
    return [ln.strip() for ln in message.splitlines() if ln.strip().startswith("* ")]


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    random = jax.random

    def note(cell, fn):
        return record.note(rec, cell, fn)

    # -- What compilation buys you
    def selu(x, alpha=1.67, lambda_=1.05):
        return lambda_ * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

    x = jnp.arange(-5, 5)
    rec("selu", selu(x).block_until_ready())
    selu_jit = jax.jit(selu)
    rec("selu_jit", selu_jit(x).block_until_ready())

    # -- What the compiled function captures
    def log2_if_rank_2(x):
        if x.ndim == 2:
            return jnp.log(x) / jnp.log(2.0)
        else:
            return x

    rec("captures.jaxpr", str(jax.jit(log2_if_rank_2).trace(jnp.array([1, 2, 3])).jaxpr))
    # Beyond the page: a rank-2 input takes the other branch.
    rec("captures.rank2", jax.jit(log2_if_rank_2)(jnp.array([[1.0, 2.0], [4.0, 8.0]])))

    # Beyond the page: what it names for impure functions, jax.check_tracer_leaks.
    leaked = []

    def impure(x):
        leaked.append(x)  # a side effect keeps the tracer
        return x + 1

    def leaky():
        with jax.check_tracer_leaks():
            return jax.jit(impure)(1.0)

    note("check_tracer_leaks", leaky)
    note("check_tracer_leaks.off", lambda: jax.jit(impure)(1.0))
    note("check_tracer_leaks.pure", lambda: jax.check_tracer_leaks()(jax.jit(jnp.sin))(0.0))

    # -- Why can't we just jit everything?
    def f(x):
        if x > 0:
            return x
        else:
            return 2 * x

    note("jit_f", lambda: jax.jit(f)(10))

    def g(x, n):
        i = 0
        while i < n:
            i += 1
        return x + i

    note("jit_g", lambda: jax.jit(g)(10, 20))

    @jax.jit
    def loop_body(prev_i):
        return prev_i + 1

    def g_inner_jitted(x, n):
        i = 0
        while i < n:
            i = loop_body(i)
        return x + i

    rec("g_inner_jitted", g_inner_jitted(10, 20))

    # -- Marking arguments as static
    f_jit_correct = jax.jit(f, static_argnums=0)
    rec("f_jit_correct", f_jit_correct(10))
    g_jit_correct = jax.jit(g, static_argnames=["n"])
    rec("g_jit_correct", g_jit_correct(10, 20))

    @jax.jit(static_argnames=["n"])
    def g_jit_decorated(x, n):
        i = 0
        while i < n:
            i += 1
        return x + i

    rec("g_jit_decorated", g_jit_decorated(10, 20))
    # Beyond the page: a static argument must be hashable.
    note("static_unhashable", lambda: jax.jit(f, static_argnums=0)(np.arange(3)))

    # -- JIT and caching (the timed loops run once each, counting the body's traces)
    traces = []

    def unjitted_loop_body(prev_i):
        traces.append(1)
        return prev_i + 1

    def g_inner_jitted_partial(x, n):
        i = 0
        while i < n:
            # Don't do this! A fresh `partial` has a different hash each time,
            # so this recompiles on every iteration.
            i = jax.jit(partial(unjitted_loop_body))(i)
        return x + i

    def g_inner_jitted_lambda(x, n):
        i = 0
        while i < n:
            # Don't do this either! Same problem: a fresh lambda every iteration.
            i = jax.jit(lambda x: unjitted_loop_body(x))(i)
        return x + i

    def g_inner_jitted_normal(x, n):
        i = 0
        while i < n:
            # This is OK: `jax.jit` sees the same function object each time,
            # and finds the cached executable.
            i = jax.jit(unjitted_loop_body)(i)
        return x + i

    for name, fn in [
        ("partial", g_inner_jitted_partial),
        ("lambda", g_inner_jitted_lambda),
        ("normal", g_inner_jitted_normal),
    ]:
        traces.clear()
        rec(f"caching.{name}", fn(10, 5).block_until_ready())
        rec(f"caching.{name}.traces", len(traces))

    log = _Log()
    logging.getLogger().addHandler(log)
    try:
        jax.config.update("jax_explain_cache_misses", True)

        @jax.jit
        def double(x):
            return 2 * x

        _ = double(jnp.arange(3))  # cache miss: never seen this function before
        _ = double(jnp.arange(3))  # cache hit: silent
        _ = double(jnp.arange(3.0))  # cache miss: x's JAX type changed
        rec("explain_cache_misses", [_gist(m) for m in log.messages if "CACHE MISS" in m])
        rec("explain_cache_misses.value", _)
    finally:
        jax.config.update("jax_explain_cache_misses", False)
        logging.getLogger().removeHandler(log)

    # Beyond the page: jax_log_compiles (a line per compilation: the function named in each)
    # and jax.clear_caches (the next call traces again).
    log = _Log()
    logging.getLogger().addHandler(log)
    try:
        jax.config.update("jax_log_compiles", True)
        traces.clear()
        counted = jax.jit(unjitted_loop_body)
        counted(jnp.arange(3))
        counted(jnp.arange(3))
        counted(jnp.arange(3.0))
        mine = [m for m in log.messages if "jit(unjitted_loop_body)" in m]
        rec("log_compiles", [m.split(" with ")[0] for m in mine if m.startswith("Compiling")])
    finally:
        jax.config.update("jax_log_compiles", False)
        logging.getLogger().removeHandler(log)
    counted(jnp.arange(3))
    jax.clear_caches()
    counted(jnp.arange(3))
    rec("clear_caches.traces", len(traces))

    # -- Using jit with methods
    class CustomClass:
        def __init__(self, x, mul: bool):
            self.x = x
            self.mul = mul

        @jax.jit  # <---- How to do this correctly?
        def calc(self, y):
            if self.mul:
                return self.x * y
            return y

    c = CustomClass(2, True)
    note("methods.naive", lambda: c.calc(3))

    # Strategy 1: a jitted helper function
    class CustomClass:  # noqa: F811 -- the page redefines it
        def __init__(self, x, mul: bool):
            self.x = x
            self.mul = mul

        def calc(self, y):
            return _calc(self.mul, self.x, y)

    @jax.jit(static_argnums=0)
    def _calc(mul, x, y):
        if mul:
            return x * y
        return y

    c = CustomClass(2, True)
    rec("methods.helper", c.calc(3))

    # Strategy 2: marking `self` as static
    class CustomClass:  # noqa: F811 -- the page redefines it
        def __init__(self, x: float, mul: bool):
            self.x = x
            self.mul = mul

        # WARNING: broken, as we'll see below. Don't copy & paste!
        @jax.jit(static_argnums=0)
        def calc(self, y):
            if self.mul:
                return self.x * y
            return y

    c = CustomClass(2, True)
    rec("methods.static_self", c.calc(3))
    c.mul = False
    rec("methods.static_self.stale", c.calc(3))  # the cache does not know mul changed

    class CustomClass:  # noqa: F811 -- the page redefines it
        def __init__(self, x: float, mul: bool):
            self.x = x
            self.mul = mul

        @jax.jit(static_argnums=0)
        def calc(self, y):
            if self.mul:
                return self.x * y
            return y

        def __hash__(self):
            return hash((self.x, self.mul))

        def __eq__(self, other):
            return isinstance(other, CustomClass) and (self.x, self.mul) == (other.x, other.mul)

    # Beyond the page: with __hash__ and __eq__, objects that differ miss the cache.
    rec("methods.hashed", [CustomClass(2, True).calc(3), CustomClass(2, False).calc(3)])

    # Strategy 3: registering the class as a pytree
    tree_util = jax.tree_util

    class CustomClass:  # noqa: F811 -- the page redefines it
        def __init__(self, x, mul: bool):
            self.x = x
            self.mul = mul

        @jax.jit
        def calc(self, y):
            if self.mul:
                return self.x * y
            return y

        def _tree_flatten(self):
            children = (self.x,)  # arrays / dynamic values
            aux_data = {"mul": self.mul}  # static values
            return (children, aux_data)

        @classmethod
        def _tree_unflatten(cls, aux_data, children):
            return cls(*children, **aux_data)

    tree_util.register_pytree_node(
        CustomClass, CustomClass._tree_flatten, CustomClass._tree_unflatten
    )

    c = CustomClass(2, True)
    rec("methods.pytree", c.calc(3))
    c.mul = False  # mutation is detected
    rec("methods.pytree.mutated", c.calc(3))
    c = CustomClass(jnp.array(2), True)  # non-hashable x is supported
    rec("methods.pytree.array", c.calc(3))

    # -- In-place updates with refs
    @jax.jit
    def sin_inplace(x_ref):
        x_ref[...] = jnp.sin(x_ref[...])

    x_ref = jax.new_ref(jnp.arange(3.0))
    before = x_ref.unsafe_buffer_pointer()
    rec("refs.before", str(x_ref))
    sin_inplace(x_ref)
    rec(
        "refs.after", x_ref[...]
    )  # (its text has sin(1) to the last digit: XLA's and NumPy's differ)
    rec("refs.same_buffer", x_ref.unsafe_buffer_pointer() == before)
    rec("refs.pointer_type", type(before).__name__)

    # -- Buffer donation (the page's blocks, run)
    def add(x, y):
        return x + y

    x = jax.device_put(np.ones((2, 3)))
    y = jax.device_put(np.ones((2, 3)))
    z = jax.jit(add, donate_argnums=(1,))(x, y)
    rec("donation.z", z)
    rec("donation.deleted", [x.is_deleted(), y.is_deleted(), z.is_deleted()])
    note("donation.reuse", lambda: y + 1)

    def update_fn(params, state):
        return params * 2, state + 1

    params, state = jnp.ones(3), jnp.zeros(3)
    new = jax.jit(update_fn, donate_argnums=(0, 1))(params=params, state=state)
    rec("donation.kwargs", [new, params.is_deleted(), state.is_deleted()])
    params, state = jnp.ones(3), jnp.zeros(3)
    new = jax.jit(update_fn, donate_argnums=(0, 1))(params, state)
    rec("donation.positional", [new, params.is_deleted(), state.is_deleted()])

    def add_ones(xs):
        return [x + 1 for x in xs]

    xs = [jax.device_put(np.ones((2, 3))), jax.device_put(np.ones((3, 4)))]
    z = jax.jit(add_ones, donate_argnums=0)(xs)
    rec("donation.pytree", [z, [x.is_deleted() for x in xs]])

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        w = jnp.ones((2, 3))
        out = jax.jit(lambda w: w.sum(), donate_argnums=0)(w)
    rec("donation.unusable", [out, w.is_deleted()])
    rec(
        "donation.unusable.warning",
        [
            type(m.message).__name__
            for m in caught
            if "Some donated buffers were not usable" in str(m.message)
        ],
    )

    # -- Asynchronous dispatch
    x = random.uniform(random.key(0), (4, 4))
    rec("async.dot", jnp.dot(x, x) + 3.0)
    rec("async.block", jnp.dot(x, x).block_until_ready())
