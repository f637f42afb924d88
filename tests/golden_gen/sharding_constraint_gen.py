"""Record JAX 0.10's ``lax.with_sharding_constraint`` as ``make_jaxpr`` prints it (the
``context_mesh`` parameter; a sharding given as a PartitionSpec on the abstract mesh), the
shardings it places (jitted and eager), and its errors on Explicit meshes.

Run with the JAX oracle (8 host devices). The programs live here, as functions of a namespace
``ns`` (``jax``, ``P``, ``NamedSharding``, ``AxisType``), so tests/test_sharding_constraint.py
runs the same ones without importing JAX. A case is (mesh axis types, the mesh context:
``set_mesh``, the legacy ``with mesh:``, or none; the spec the argument is placed with, or None
for an unplaced one; the program, given ``ns`` and the mesh).
"""

from __future__ import annotations

import contextlib
import json
import os
import warnings
from pathlib import Path

import numpy as np


def _wsc(spec):
    """A program constraining its argument to ``spec(ns, mesh)``."""
    return lambda ns, mesh: lambda x: ns.jax.lax.with_sharding_constraint(x, spec(ns, mesh))


def _nested_jit(ns, mesh):
    inner = ns.jax.jit(lambda y: ns.jax.lax.with_sharding_constraint(y * 2, ns.P("x")))
    return lambda x: inner(x) + 1


def _vmapped(ns, mesh):
    f = lambda y: ns.jax.lax.with_sharding_constraint(y, ns.P(None, ns.P.UNCONSTRAINED))  # noqa: E731
    return ns.jax.vmap(f, in_axes=1)


def _pytree(ns, mesh):
    specs = {"a": ns.P("x"), "b": ns.NamedSharding(mesh, ns.P(None, "y"))}
    return lambda x: ns.jax.lax.with_sharding_constraint({"a": x, "b": x * 2}, specs)


A, E = "Auto", "Explicit"
CASES = {
    "spec": ((A, A), "set_mesh", None, _wsc(lambda ns, m: ns.P("x"))),
    "spec_two_axes": ((A, A), "set_mesh", None, _wsc(lambda ns, m: ns.P("x", "y"))),
    "spec_after_op": (
        (A, A),
        "set_mesh",
        None,
        lambda ns, m: lambda x: ns.jax.lax.with_sharding_constraint(x * 2, ns.P(None, "y")),
    ),
    "none_is_replicated": ((A, A), "set_mesh", None, _wsc(lambda ns, m: None)),
    "unconstrained": (
        (A, A),
        "set_mesh",
        ("x", None),
        _wsc(lambda ns, m: ns.P(ns.P.UNCONSTRAINED, "y")),
    ),
    "named": ((A, A), "set_mesh", None, _wsc(lambda ns, m: ns.NamedSharding(m, ns.P("x", "y")))),
    "named_without_context": (
        (A, A),
        "none",
        None,
        _wsc(lambda ns, m: ns.NamedSharding(m, ns.P("x"))),
    ),
    "spec_legacy_with_mesh": ((A, A), "legacy", None, _wsc(lambda ns, m: ns.P("x"))),
    "pytree": ((A, A), "set_mesh", None, _pytree),
    "nested_jit": ((A, A), "set_mesh", None, _nested_jit),
    "vmapped": ((A, A), "set_mesh", ("x", "y"), _vmapped),
    "explicit_match": ((E, E), "set_mesh", ("x", None), _wsc(lambda ns, m: ns.P("x"))),
    "explicit_named_match": (
        (E, E),
        "set_mesh",
        ("x", "y"),
        _wsc(lambda ns, m: ns.NamedSharding(m, ns.P("x", "y"))),
    ),
    "explicit_mismatch": ((E, E), "set_mesh", ("x", None), _wsc(lambda ns, m: ns.P("y"))),
    "explicit_unplaced": ((E, E), "set_mesh", None, _wsc(lambda ns, m: ns.P("x"))),
    "mixed_auto_axis": ((E, A), "set_mesh", ("x", None), _wsc(lambda ns, m: ns.P(None, "y"))),
    "mixed_names_explicit": ((E, A), "set_mesh", ("x", None), _wsc(lambda ns, m: ns.P("x", "y"))),
}


def _context(ns, kind: str, mesh):
    if kind == "set_mesh":
        return ns.jax.set_mesh(mesh)
    if kind == "legacy":
        return mesh
    return contextlib.nullcontext()


def run_case(ns, name: str) -> dict:
    """``make_jaxpr``'s text, the types and shardings of the jitted and the eager results (or
    the class of the error raised when tracing)."""
    types, context, placed, make = CASES[name]
    axis_types = tuple(getattr(ns.AxisType, t) for t in types)
    mesh = ns.jax.make_mesh((4, 2), ("x", "y"), axis_types=axis_types)
    shape = (8, 2, 4) if name == "vmapped" else (8, 4)
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # JAX's, on ``with mesh:``
        with _context(ns, context, mesh):
            if placed is not None:
                x = ns.jax.device_put(x, ns.NamedSharding(mesh, ns.P(*placed)))
            f = make(ns, mesh)
            try:
                rec = {"jaxpr": str(ns.jax.make_jaxpr(f)(x))}
            except Exception as e:  # noqa: BLE001 - the error is the golden value
                return {"error": type(e).__name__}
            outs = ns.jax.tree.leaves(ns.jax.jit(f)(x))
            rec["types"] = [str(ns.jax.typeof(o)) for o in outs]
            rec["shardings"] = [repr(o.sharding) for o in outs]
            rec["eager_shardings"] = [repr(o.sharding) for o in ns.jax.tree.leaves(f(x))]
    return rec


def main() -> None:
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    import types

    import jax
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    ns = types.SimpleNamespace(jax=jax, P=P, NamedSharding=NamedSharding, AxisType=AxisType)
    out = {name: run_case(ns, name) for name in CASES}
    path = Path(__file__).resolve().parent.parent / "golden" / "sharding_constraint.json"
    path.write_text(json.dumps({"jax": jax.__version__, "cases": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
