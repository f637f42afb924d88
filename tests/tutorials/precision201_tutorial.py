"""The code of JAX's "Matmul precision" page (docs/201/precision.md), as one program.

``program(jax, rec)`` runs the page's snippets in order with ``jax`` being JAX or spmd and
records what they show: the dots' values and dtypes, the gradient's jaxpr text, the errors
CPU gives for algorithms it lacks (the page: a compile-time error, not a silent fallback),
the ``Precision`` aliases and what ``jax_default_matmul_precision`` holds and does, set
scoped, process-wide and from the environment (a child process of the same Python).

The page leaves ``x`` and ``f`` undefined: here ``x`` is a 4x4 float32 matrix of values that
bfloat16 cannot hold and ``f`` a matrix product. Where the page's example needs an algorithm
CPU lacks (``F16_F16_F32``), the program also runs the same point with one CPU has
(``F16_F16_F16``), marked "cpu".
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys

from record import note

KNOWN: dict[str, tuple[object, str]] = {}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one page, snippet after snippet
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    lax = jax.lax

    def jaxpr_text(fn, *args):
        return str(jax.make_jaxpr(fn)(*args))

    x = jnp.arange(16.0, dtype=jnp.float32).reshape(4, 4) / 7

    # -- Dot algorithms: saying exactly what you want
    note(rec, "algo.f32", lambda: jnp.dot(x, x, precision="F32_F32_F32"))
    note(rec, "algo.bf16", lambda: jnp.dot(x, x, precision="BF16_BF16_F32"))
    note(rec, "algo.tf32", lambda: jnp.dot(x, x, precision=lax.DotAlgorithmPreset.TF32_TF32_F32))
    rec("algo.presets", [str(p) for p in lax.DotAlgorithmPreset])
    rec("algo.preset_repr", repr(lax.DotAlgorithmPreset.BF16_BF16_F32))
    # Each preset on CPU: its result, or the error of one CPU does not provide.
    for p in lax.DotAlgorithmPreset:
        note(rec, f"algo.cpu.{p}", lambda p=p: jnp.dot(x, x, precision=p))
    note(
        rec, "algo.jaxpr", lambda: jaxpr_text(lambda x: jnp.dot(x, x, precision="BF16_BF16_F32"), x)
    )

    # Output type matches the inputs; preferred_element_type keeps the accumulator's.
    x16 = jnp.ones((4, 4), jnp.float16)
    note(rec, "dtype.f16", lambda: jnp.dot(x16, x16, precision="F16_F16_F32"))
    note(rec, "dtype.f16.pet", lambda: jnp.dot(x16, x16, precision="F16_F16_F32",
                                               preferred_element_type=jnp.float32))  # fmt: skip
    note(rec, "dtype.f16.cpu", lambda: jnp.dot(x16, x16, precision="F16_F16_F16"))
    note(rec, "dtype.f16.pet.cpu", lambda: jnp.dot(x16, x16, precision="F16_F16_F16",
                                                   preferred_element_type=jnp.float32))  # fmt: skip
    note(rec, "dtype.bf16_on_f32", lambda: jnp.dot(x, x, precision="BF16_BF16_F32").dtype.name)

    # Autodiff carries the same algorithm through to the backward pass.
    def loss(x, w):
        return jnp.sum(jnp.dot(x, w, precision="BF16_BF16_F32"))

    xs, w = jnp.ones((4, 8)), jnp.ones((8, 2))
    rec("grad.jaxpr", str(jax.jit(jax.grad(loss, argnums=1)).trace(xs, w).jaxpr))
    rec("grad", jax.grad(loss, argnums=1)(xs, w))

    # Support is platform-dependent: the page quotes CPU's error.
    try:
        jnp.dot(x, x, precision="F16_F16_F32")
    except ValueError as e:
        rec("unsupported.message", str(e))
    else:
        rec("unsupported.message", "no error")

    # A fully custom algorithm (CPU has none of them).
    custom = lax.DotAlgorithm(
        lhs_precision_type=jnp.float32, rhs_precision_type=jnp.float32,
        accumulation_type=jnp.float32,
    )  # fmt: skip
    note(rec, "custom", lambda: jnp.dot(x, x, precision=custom))
    rec("custom.fields", [custom.lhs_component_count, custom.num_primitive_operations,
                          custom.allow_imprecise_accumulation])  # fmt: skip

    # -- Precision: the classic three levels
    aliases = ["default", "fastest", None, "high", "bfloat16_3x", "tensorfloat32", "highest",
               "float32"]  # fmt: skip
    rec("levels", [repr(lax.Precision(a)) for a in aliases])
    rec("levels.str", [str(p) for p in lax.Precision])
    for a in aliases:
        note(rec, f"levels.dot.{a}", lambda a=a: jnp.dot(x, x, precision=a))
    rec("highest", jnp.dot(x, x, precision="highest"))
    note(rec, "highest.jaxpr", lambda: jaxpr_text(lambda x: jnp.dot(x, x, precision="highest"), x))

    # -- Setting a default globally
    def f(x):
        return x @ x

    with jax.default_matmul_precision("highest"):
        result = f(x)
        rec("scoped.option", jax.config.jax_default_matmul_precision)
        rec("scoped.jaxpr", jaxpr_text(f, x))
    rec("scoped", result)
    rec("scoped.after", jax.config.jax_default_matmul_precision)
    rec("scoped.jaxpr_after", jaxpr_text(f, x))
    with jax.default_matmul_precision("F16_F16_F32"):
        note(rec, "scoped.unsupported", lambda: f(x))
    note(rec, "scoped.bad", lambda: jax.default_matmul_precision("bogus").__enter__())

    jax.config.update("jax_default_matmul_precision", "BF16_BF16_F32_X3")
    rec("global.option", jax.config.jax_default_matmul_precision)
    rec("global", f(x))
    rec("global.jaxpr", jaxpr_text(f, x))
    # A precision given explicitly wins over the default.
    rec("global.explicit", jaxpr_text(lambda x: jnp.dot(x, x, precision="highest"), x))
    note(rec, "global.bad", lambda: jax.config.update("jax_default_matmul_precision", "bogus"))
    rec("global.kept", jax.config.jax_default_matmul_precision)
    jax.config.update("jax_default_matmul_precision", None)

    # JAX_DEFAULT_MATMUL_PRECISION=highest python train.py
    child = (
        f"import {jax.__name__} as jax; import {jax.__name__}.numpy as jnp; "
        "print(jax.config.jax_default_matmul_precision); "
        "print(jax.make_jaxpr(lambda x: x @ x)(jnp.ones((2, 2))))"
    )
    env = {**os.environ, "JAX_DEFAULT_MATMUL_PRECISION": "highest"}
    run = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True,
                         text=True, timeout=300, check=True)  # fmt: skip
    rec("env", run.stdout)
