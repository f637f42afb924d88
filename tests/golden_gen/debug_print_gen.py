"""Record JAX 0.10's ``jax.debug.print``/``jax.debug.callback``: their jaxprs and what they print.

Run with the JAX oracle. The programs live here (functions of a namespace ``ns`` holding ``jax``,
``jnp`` and ``np``) so tests/test_debug_print.py runs the same ones without importing JAX.
Recorded per case: ``make_jaxpr``'s text, the lines printed by an eager call and by a jitted call
(sorted: JAX runs unordered callbacks without operands first), or the class of the error raised
when tracing.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path


def _prints(ns):
    def f(x):
        ns.jax.debug.print("a {} {}", x, "hi")
        ns.jax.debug.print("b {a} {n}", a=x, n=3)
        ns.jax.debug.print("c no placeholders")
        ns.jax.debug.print("d {x}", x={"k": x})
        ns.jax.debug.print("e {:.2f} {!r}", x[0], x[1])
        return x * 2

    return f


def _vmap_nested(ns):
    # vmap unrolls a print per index, an inner vmap first: here over a's rows (the inner map),
    # then its columns; the unbatched y goes to every print as it is.
    def f(x, y):
        ns.jax.debug.print("n {} {}", x, y)
        return x

    g = ns.jax.vmap(ns.jax.vmap(f, in_axes=(0, None)), in_axes=(1, None))
    return lambda x: g(x[:, None] + 3 * x[None, :2], 5.0)


CASES = {
    "prints": _prints,
    "two_call_form": lambda ns: lambda x: ns.jax.debug.print(ordered=True)("t {}", x + 1),
    "callback": lambda ns: lambda x: ns.jax.debug.callback(lambda *a: print("cb", *a), x, 2),
    "callback_kwargs": lambda ns: (
        lambda x: ns.jax.debug.callback(
            lambda a, b: print("kw", isinstance(a, ns.jax.Array), a, b), x, b={"w": x}
        )
    ),
    "vmap_print": lambda ns: ns.jax.vmap(lambda x: ns.jax.debug.print("v {}", x)),
    "vmap_nested": _vmap_nested,
    "vmap_callback": lambda ns: ns.jax.vmap(
        lambda x: ns.jax.debug.callback(lambda a: print("cb", a), x), axis_name="i"
    ),
    "bad_index": lambda ns: lambda x: ns.jax.debug.print("{} {}", x),
    "bad_key": lambda ns: lambda x: ns.jax.debug.print("{a}", x),
    "bad_brace": lambda ns: lambda x: ns.jax.debug.print("{", x),
}


def run_case(ns, name: str, x) -> dict:
    f = CASES[name](ns)
    rec: dict = {}
    try:
        rec["jaxpr"] = str(ns.jax.make_jaxpr(f)(x))
    except Exception as e:  # noqa: BLE001 - the error is the golden value
        return {"error": type(e).__name__}
    for mode, g in (("eager", f), ("jit", ns.jax.jit(f))):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            g(x)
        lines = out.getvalue().splitlines()
        rec[mode] = lines if mode == "eager" else sorted(lines)
    return rec


def main() -> None:
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    import types

    import jax
    import jax.numpy as jnp
    import numpy as np

    ns = types.SimpleNamespace(jax=jax, jnp=jnp, np=np)
    x = jnp.arange(3.0) / 3
    out = {name: run_case(ns, name, x) for name in CASES}
    path = Path(__file__).resolve().parent.parent / "golden" / "debug_print.json"
    path.write_text(json.dumps({"jax": jax.__version__, "cases": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
