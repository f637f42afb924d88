"""The code of JAX's "Ahead-of-time lowering and compilation" page (docs/201/aot.md), as one
program.

``program(jax, rec)`` runs the page's doctest blocks in order with ``jax`` being JAX or spmd and
records what each shows: a value's repr where the page shows one (so weak types count), a
jaxpr's text, an analysis's numbers, an error's class and the lines naming the mismatched
arguments. The cells the page marks ``+SKIP`` run too (they raise the errors the page shows).

Added: the compiled function under jit and grad besides vmap, calls with another pytree
structure (more or fewer arguments, keyword arguments where it was traced with positional
ones), ``compile(compiler_options=...)``, and ``as_text``'s dialects.
"""

from __future__ import annotations

import importlib

import numpy as np

_HLO = (
    "spmd lowers to no compiler's language: as_text() shows the jaxpr (or the partitioned "
    "shard_map body when arguments are sharded), not StableHLO (docs/DESIGN.md)"
)
KNOWN: dict[str, tuple[object, str]] = {
    "lowered.as_text": (None, _HLO),
    "static.as_text": (None, _HLO),
    "memory.temp": (
        4,
        "spmd runs one NumPy call per equation, so 2 * x is a buffer of its own before the "
        "add; XLA fuses the two into one loop and needs none",
    ),
}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one page, block after block
    jnp = importlib.import_module(jax.__name__ + ".numpy")

    def note(cell, fn, lines=False):
        """Record ``fn()``'s repr, or its error's class (``lines``: and the message's lines
        that name an argument)."""
        try:
            rec(cell, repr(fn()))
        except Exception as e:  # noqa: BLE001 -- the class is the recorded value
            rec(cell, e)
            if lines:
                rec(
                    cell + ".lines",
                    [ln for ln in str(e).splitlines() if ln.startswith("Argument '")],
                )

    def f(x, y):
        return 2 * x + y

    x, y = 3, 4

    traced = jax.jit(f).trace(x, y)
    rec("traced.jaxpr", str(traced.jaxpr))
    lowered = traced.lower()
    rec("lowered.as_text", lowered.as_text())
    compiled = lowered.compile()
    rec("cost_analysis.flops", compiled.cost_analysis()["flops"])
    note("compiled", lambda: compiled(x, y))

    stats = compiled.memory_analysis()
    rec("memory", [stats.argument_size_in_bytes, stats.output_size_in_bytes])
    rec("memory.temp", stats.temp_size_in_bytes)

    i32 = jax.ShapeDtypeStruct((), "int32")
    rec("eval_shape", str(jax.jit(f).eval_shape(i32, i32)))
    rec("eval_shape.unjitted", str(jax.eval_shape(f, i32, i32)))

    i32_scalar = jax.ShapeDtypeStruct((), jnp.dtype("int32"))
    note("shape_dtype", lambda: jax.jit(f).trace(i32_scalar, i32_scalar).lower().compile()(x, y))

    x_1d = y_1d = jnp.arange(3)
    note(
        "mismatch.shape",
        lambda: jax.jit(f).trace(i32_scalar, i32_scalar).lower().compile()(x_1d, y_1d),
        lines=True,
    )
    x_f = y_f = jnp.float32(72.0)
    note(
        "mismatch.dtype",
        lambda: jax.jit(f).trace(i32_scalar, i32_scalar).lower().compile()(x_f, y_f),
        lines=True,
    )

    # -- Tracing with static arguments
    lowered_with_x = jax.jit(f, static_argnums=0).trace(7, 8).lower()
    rec("static.as_text", lowered_with_x.as_text())
    note("static.compiled", lambda: lowered_with_x.compile()(5))
    note("static.abstract", lambda: jax.jit(f, static_argnums=0).trace(i32_scalar, i32_scalar))
    note(
        "static.concrete",
        lambda: jax.jit(f, static_argnums=0).trace(10, i32_scalar).lower().compile()(5),
    )

    # -- AOT-compiled functions cannot be transformed
    def g(x):
        assert x.shape == (3, 2)
        return x @ jnp.ones(2)

    def make_z(*shape):
        return jnp.arange(np.prod(shape)).reshape(shape)

    z, zs = make_z(3, 2), make_z(4, 3, 2)
    g_jit = jax.jit(g)
    g_aot = jax.jit(g).trace(z).lower().compile()
    rec("vmap.jit", jax.vmap(g_jit)(zs))
    note("vmap.aot", lambda: jax.vmap(g_aot)(zs))
    # Beyond the page: jit and grad of the compiled function, and the function called plainly.
    note("jit.aot", lambda: jax.jit(g_aot)(z))
    zf = z.astype(jnp.float32)
    g_aot_f = jax.jit(g).trace(zf).lower().compile()
    note("grad.aot", lambda: jax.grad(lambda z: g_aot_f(z).sum())(zf))
    rec("aot.call", g_aot(z))

    # -- Beyond the page: other pytree structures, compiler options, dialects
    compiled = jax.jit(f).trace(i32_scalar, i32_scalar).lower().compile()
    note("pytree.fewer", lambda: compiled(3))
    note("pytree.more", lambda: compiled(3, 4, 5))
    note("pytree.list", lambda: compiled([3], 4))
    note("pytree.kwargs", lambda: compiled(x=3, y=4))
    note("python_scalar.dtype", lambda: compiled(3.0, 4), lines=True)

    def h(d):
        return d["a"] + 1

    compiled_h = jax.jit(h).trace({"a": i32_scalar}).lower().compile()
    note("pytree.leaf_path", lambda: compiled_h({"a": jnp.arange(2)}), lines=True)
    note("pytree.keys", lambda: compiled_h({"b": 1}))
    note("compiler_options", lambda: lowered.compile(compiler_options={})(x, y))
    note("compiler_options.list", lambda: lowered.compile(compiler_options=[1]))
    rec("as_text.dialects", [type(lowered.as_text(d)).__name__ for d in ("stablehlo", "hlo")])
    note("as_text.bad_dialect", lambda: lowered.as_text("mhlo"))
