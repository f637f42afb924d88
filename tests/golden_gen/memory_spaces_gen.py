"""Record JAX 0.10's memory spaces in types: ``typeof`` of arrays in ``pinned_host`` memory
(``float32<host>[8]``), jaxprs whose types carry ``<host>`` (through elementwise ops, reductions,
vmap, scan, cond, jit, grad), ``device_put`` inside a trace as the ``device_put`` primitive (to a
sharding with another memory kind, or to a ``jax.memory.Space``), the ``in_shardings`` and
``out_shardings`` jit equations print, and the shardings and values of jitted and eager results.

Run with the JAX oracle (8 host devices). The programs live here, as functions of a namespace
``ns`` (``jax``, ``jnp``, ``P``, ``NamedSharding``, ``Space``) and the mesh, so
tests/test_memory_spaces.py runs the same ones without importing JAX. A case is (the arguments,
each named by how it is placed, the program, and the mesh's axis type if not Auto). Each of
make_jaxpr, jit and the eager call records its text / types, shardings and values, or the class
of the error it raises.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np


def _kind(ns, mesh, kind):
    return ns.NamedSharding(mesh, ns.P("x"), memory_kind=kind)


def make_arg(ns, mesh, how: str):
    """An f32[8] argument (f32[2,8] for the ``2d`` ones) placed as ``how`` says."""
    shape = (2, 8) if how.endswith("2d") else (8,)
    x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    how = how.removesuffix("_2d")
    if how == "numpy":
        return x
    if how == "space_host":
        return ns.jax.device_put(x, ns.Space.Host)
    spec = ns.P(None, "x") if len(shape) == 2 else ns.P("x")
    return ns.jax.device_put(x, ns.NamedSharding(mesh, spec, memory_kind=how))


def _put(target):
    return lambda ns, m: lambda a: ns.jax.device_put(a, target(ns, m))


def _vmap_dynamic_slice(ns, m):
    slice2 = lambda a, i: ns.jax.lax.dynamic_slice(a, (i,), (2,))  # noqa: E731
    return lambda a: ns.jax.vmap(lambda i: slice2(a, i))(ns.jnp.arange(3))


def _scan_xs(ns, m):
    return lambda a: ns.jax.lax.scan(lambda c, y: (c + y, y * 2), np.float32(0), a)


def _scan_carry(ns, m):
    return lambda a: ns.jax.lax.scan(lambda c, _: (c * 2, None), a, None, length=2)[0]


def _cond(ns, m):
    return lambda a: ns.jax.lax.cond(True, lambda v: v * 2, lambda v: v + 1, a)


def _grad_put(ns, m):
    # (On an array placed on a mesh JAX's grad seeds with a reshard; on one device it does not.)
    return ns.jax.grad(lambda a: ns.jnp.sum(ns.jax.device_put(a, ns.Space.Device) * 2))


def _while(ns, m):
    body = lambda c: (c[0] + 1, c[1] * 2)  # noqa: E731
    return lambda a: ns.jax.lax.while_loop(lambda c: c[0] < 3, body, (0, a))


def _fori(ns, m):
    return lambda a: ns.jax.lax.fori_loop(0, 3, lambda i, c: c * 2, a)


def _jvp(ns, m):
    return lambda a: ns.jax.jvp(lambda v: v * 2, (a,), (a,))


def _jit_out(kinds):
    def make(ns, m):
        outs = tuple(None if k is None else _kind(ns, m, k) for k in kinds)
        f = ns.jax.jit(lambda a: (a * 2, a + 1), out_shardings=outs)
        return lambda a: f(a)

    return make


def _tree(ns, m):
    return lambda a: ns.jax.device_put({"p": a, "q": a * 2}, ns.Space.Host)


def _tree_prefix(ns, m):
    return lambda a: ns.jax.device_put((a, a * 2), (ns.Space.Host, _kind(ns, m, "pinned_host")))


H, D = ("pinned_host",), ("device",)
CASES = {
    # Types of arrays in host memory, kept by the operations on them.
    "mul": (H, lambda ns, m: lambda a: a * 2),
    "sin": (H, lambda ns, m: ns.jnp.sin),
    "sum": (H, lambda ns, m: ns.jnp.sum),
    "reshape": (H, lambda ns, m: lambda a: a.reshape(2, 4)),
    "dot": (H, lambda ns, m: lambda a: a @ a),
    "host_plus_host": (H + H, lambda ns, m: lambda a, b: a * b + 1),
    "host_plus_scalar": (H + D, lambda ns, m: lambda a, b: a + ns.jnp.sum(b)),
    "host_plus_device": (H + D, lambda ns, m: lambda a, b: a + b),
    "host_plus_constant": (H, lambda ns, m: lambda a: a + ns.jnp.arange(8.0)),
    "unpinned": (("unpinned_host",), lambda ns, m: lambda a: a * 2),
    # Indexing: a gather's indices are operands too (an error, as in JAX); a scatter's result
    # is where its operand is.
    "index": (H, lambda ns, m: lambda a: a[3]),
    "dynamic_slice": (H, lambda ns, m: lambda a: ns.jax.lax.dynamic_slice(a, (2,), (2,))),
    "gather_indices_on_device": (H, lambda ns, m: lambda a: a[ns.jnp.array([1, 2])]),
    "scatter": (H, lambda ns, m: lambda a: a.at[ns.jnp.array([1, 2])].set(5.0)),
    "vmap_dynamic_slice": (H, _vmap_dynamic_slice),
    "single_device_host": (("space_host",), lambda ns, m: lambda a: a * 2),
    # device_put inside a trace: the device_put primitive.
    "put_to_device": (H, _put(lambda ns, m: _kind(ns, m, "device"))),
    "put_to_host": (D, _put(lambda ns, m: _kind(ns, m, "pinned_host"))),
    "put_host_to_host": (H, _put(lambda ns, m: _kind(ns, m, "pinned_host"))),
    "put_unpinned": (H, _put(lambda ns, m: _kind(ns, m, "unpinned_host"))),
    "put_plain_sharding": (H, _put(lambda ns, m: ns.NamedSharding(m, ns.P("x")))),
    "put_space_host": (("numpy",), _put(lambda ns, m: ns.Space.Host)),
    "put_space_host_from_placed": (D, _put(lambda ns, m: ns.Space.Host)),
    "put_space_device": (("space_host",), _put(lambda ns, m: ns.Space.Device)),
    "put_space_any": (("numpy",), _put(lambda ns, m: ns.Space.Any)),
    "put_tree": (D, _tree),
    "put_tree_prefix": (D, _tree_prefix),
    # Transformations.
    "vmap": (("pinned_host_2d",), lambda ns, m: ns.jax.vmap(lambda a: a * 2)),
    "vmap_put": (
        ("device_2d",),
        lambda ns, m: ns.jax.vmap(lambda a: ns.jax.device_put(a, ns.Space.Host)),
    ),
    "scan_xs": (H, _scan_xs),
    "scan_carry": (H, _scan_carry),
    "cond": (H, _cond),
    "nested_jit": (H, lambda ns, m: ns.jax.jit(lambda a: a * 2)),
    "grad_through_put": (("space_host",), _grad_put),
    "grad_of_host_result": (H, lambda ns, m: ns.jax.grad(lambda a: ns.jnp.sum(a * a))),
    # jit's in_shardings and out_shardings in memory kinds.
    "jit_out_host": (D, _jit_out(("pinned_host", "pinned_host"))),
    "jit_out_device_and_host": (D, _jit_out(("device", "pinned_host"))),
    "jit_out_host_and_unspecified": (D, _jit_out(("pinned_host", None))),
    "jit_out_unpinned": (D, _jit_out(("unpinned_host", "device"))),
    "jit_in_host": (
        H,
        lambda ns, m: ns.jax.jit(lambda a: a * 2, in_shardings=_kind(ns, m, "pinned_host")),
    ),
    # On a mesh with Explicit axes: the type has both, f32<host>[8@x].
    "explicit_mul": (H, lambda ns, m: lambda a: a * 2, "Explicit"),
    "explicit_put_to_device": (H, _put(lambda ns, m: _kind(ns, m, "device")), "Explicit"),
    "explicit_put_to_host": (D, _put(lambda ns, m: _kind(ns, m, "pinned_host")), "Explicit"),
    "explicit_while": (H, _while, "Explicit"),
    "explicit_fori": (H, _fori, "Explicit"),
    "explicit_jvp": (H, _jvp, "Explicit"),
    "explicit_astype": (H, lambda ns, m: lambda a: a.astype(np.int32), "Explicit"),
    "explicit_concatenate": (H, lambda ns, m: lambda a: ns.jnp.concatenate([a, a]), "Explicit"),
    "jit_in_host_device_arg": (
        D,
        lambda ns, m: ns.jax.jit(lambda a: a * 2, in_shardings=_kind(ns, m, "pinned_host")),
    ),
}


def _outs(ns, out):
    leaves = ns.jax.tree.leaves(out)
    return {
        "types": [str(ns.jax.typeof(o)) for o in leaves],
        "shardings": [repr(o.sharding) for o in leaves],
        "values": [np.asarray(o).tolist() for o in leaves],
    }


def _attempt(fn):
    try:
        return fn()
    except Exception as e:  # noqa: BLE001 - the error is the golden value
        return {"error": type(e).__name__}


def run_case(ns, name: str) -> dict:
    """The arguments' types; make_jaxpr's text; the jitted and the eager results' types,
    shardings and values (each, or the class of the error it raises)."""
    hows, make, *axis_type = CASES[name]
    axis_type = getattr(ns.AxisType, axis_type[0] if axis_type else "Auto")
    mesh = ns.jax.make_mesh((8,), ("x",), axis_types=(axis_type,))
    args = [make_arg(ns, mesh, h) for h in hows]
    f = make(ns, mesh)
    return {
        "arg_types": [str(ns.jax.typeof(a)) for a in args],
        "jaxpr": _attempt(lambda: str(ns.jax.make_jaxpr(f)(*args))),
        "jit": _attempt(lambda: _outs(ns, ns.jax.jit(f)(*args))),
        "eager": _attempt(lambda: _outs(ns, f(*args))),
    }


def run_structs(ns) -> dict:
    """ShapeDtypeStruct with a sharding in host memory: its type, a jaxpr traced from it, and
    eval_shape's result."""
    mesh = ns.jax.make_mesh((8,), ("x",), axis_types=(ns.AxisType.Auto,))
    sds = ns.jax.ShapeDtypeStruct((8,), np.float32, sharding=_kind(ns, mesh, "pinned_host"))
    return {
        "repr": repr(sds),
        "typeof": str(ns.jax.typeof(sds)),
        "jaxpr": str(ns.jax.make_jaxpr(lambda a: a * 2)(sds)),
        "eval_shape": repr(ns.jax.eval_shape(lambda a: a * 2, sds)),
    }


def main() -> None:
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    import types

    import jax
    import jax.numpy as jnp
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    ns = types.SimpleNamespace(
        jax=jax, jnp=jnp, P=P, NamedSharding=NamedSharding, AxisType=AxisType,
        Space=jax.memory.Space,
    )  # fmt: skip
    out = {name: run_case(ns, name) for name in CASES}
    path = Path(__file__).resolve().parent.parent / "golden" / "memory_spaces.json"
    doc = {"jax": jax.__version__, "cases": out, "structs": run_structs(ns)}
    path.write_text(json.dumps(doc, indent=1) + "\n")


if __name__ == "__main__":
    main()
