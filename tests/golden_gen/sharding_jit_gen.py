"""Record JAX 0.10's result shardings of jit'd programs over sharded inputs.

Run with the JAX oracle (8 host devices). The cases (programs, meshes, input specs) live here so
tests/test_sharding_propagation.py drives spmd through exactly the same sweep: importing this
module does not import JAX. Each program is written against a namespace ``ns`` holding ``jax``,
``jnp``, ``lax``, ``NamedSharding``, ``P`` and the case's ``mesh``, so both sides run it.

Recorded per case: the result's spec (as JAX prints it: entries None, a name, or a list of
names; None when the result has no NamedSharding), for Explicit meshes ``str(jax.typeof(out))``,
and when JAX raises, the error's class name and message.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from pathlib import Path

MESHES = {"8": ((8,), ("x",)), "2x4": ((2, 4), ("x", "y")), "4x2": ((4, 2), ("x", "y"))}


def dim_entries(names):
    """Every way to shard one dimension: None, one axis, or an ordered tuple of axes."""
    out = [None, *names]
    out += [t for t in itertools.permutations(names, 2)]
    return out


def specs_for(ndim, names):
    """Every spec of ``ndim`` entries that uses each mesh axis at most once."""
    out = []
    for combo in itertools.product(dim_entries(names), repeat=ndim):
        used = [a for e in combo for a in ((e,) if isinstance(e, str) else (e or ()))]
        if len(used) == len(set(used)):
            out.append(combo)
    return out


def _idx(ns):
    return ns.jnp.array([3, 0, 7, 1, 1, 5, 2, 6])


# name -> (program(ns) -> callable, input shapes). Shapes divide by 8 wherever a sweep may
# shard them.
S = (8, 16)
UNARY = {
    "sin": (lambda ns: lambda x: ns.jnp.sin(x), [S]),
    "poly": (lambda ns: lambda x: 2 * ns.jnp.sin(x) + 1, [S]),
    "mul_self": (lambda ns: lambda x: x * x, [S]),
    "add_row": (lambda ns: lambda x: x + ns.jnp.arange(16.0), [S]),
    "add_col": (lambda ns: lambda x: x + ns.jnp.arange(8.0)[:, None], [S]),
    "sum0": (lambda ns: lambda x: x.sum(axis=0), [S]),
    "sum1": (lambda ns: lambda x: x.sum(axis=1), [S]),
    "sum_all": (lambda ns: lambda x: x.sum(), [S]),
    "max0": (lambda ns: lambda x: x.max(axis=0), [S]),
    "max1": (lambda ns: lambda x: x.max(axis=1), [S]),
    "sum0_keepdims": (lambda ns: lambda x: x.sum(axis=0, keepdims=True), [S]),
    "transpose": (lambda ns: lambda x: x.T, [S]),
    "transpose_sin": (lambda ns: lambda x: ns.jnp.sin(x).T, [S]),
    "reshape_flat": (lambda ns: lambda x: x.reshape(128), [S]),
    "reshape_split_minor": (lambda ns: lambda x: x.reshape(8, 2, 8), [S]),
    "reshape_split_major": (lambda ns: lambda x: x.reshape(2, 4, 16), [S]),
    "reshape_merge_split": (lambda ns: lambda x: x.reshape(16, 8), [S]),
    "slice_rows": (lambda ns: lambda x: x[2:6], [S]),
    "slice_cols_stride": (lambda ns: lambda x: x[:, ::2], [S]),
    "index_row": (lambda ns: lambda x: x[0], [S]),
    "index_col": (lambda ns: lambda x: x[:, 3], [S]),
    "concat0": (lambda ns: lambda x: ns.jnp.concatenate([x, x], axis=0), [S]),
    "concat1": (lambda ns: lambda x: ns.jnp.concatenate([x, 2 * x], axis=1), [S]),
    "pad": (lambda ns: lambda x: ns.jnp.pad(x, ((1, 1), (0, 8))), [S]),
    "broadcast_lead": (lambda ns: lambda x: ns.jnp.broadcast_to(x, (4, 8, 16)), [S]),
    "expand_dims": (lambda ns: lambda x: x[None], [S]),
    "gather_rows": (lambda ns: lambda x: x[_idx(ns)], [S]),
    "gather_cols": (lambda ns: lambda x: x[:, _idx(ns)], [S]),
    "cumsum0": (lambda ns: lambda x: ns.jnp.cumsum(x, axis=0), [S]),
    "cumsum1": (lambda ns: lambda x: ns.jnp.cumsum(x, axis=1), [S]),
    "sort0": (lambda ns: lambda x: ns.jnp.sort(x, axis=0), [S]),
    "sort1": (lambda ns: lambda x: ns.jnp.sort(x, axis=1), [S]),
    "argmax0": (lambda ns: lambda x: ns.jnp.argmax(x, axis=0), [S]),
    "argmax1": (lambda ns: lambda x: ns.jnp.argmax(x, axis=1), [S]),
    "where": (lambda ns: lambda x: ns.jnp.where(x > 3, x, 0.0), [S]),
    "random_add": (
        lambda ns: lambda x: x + ns.jax.random.normal(ns.jax.random.key(0), x.shape),
        [S],
    ),
    "constraint_yx": (
        lambda ns: (
            lambda x: ns.jnp.sin(
                ns.lax.with_sharding_constraint(2 * x, ns.NamedSharding(ns.mesh, ns.P(*_last2(ns))))
            )
        ),
        [S],
    ),
    "constraint_replicated": (
        lambda ns: (
            lambda x: ns.lax.with_sharding_constraint(x + 1, ns.NamedSharding(ns.mesh, ns.P()))
        ),
        [S],
    ),
}


# Further primitives (Auto axes only): clamp, dynamic slicing, scatter, top_k, control flow,
# flips, argsort, stack/split/tile, dtype conversion.
MORE = {
    "clamp": (lambda ns: lambda x: ns.lax.clamp(-1.0, x, 1.0), [S]),
    "dynamic_slice": (lambda ns: lambda x: ns.lax.dynamic_slice(x, (2, 0), (4, 16)), [S]),
    "dynamic_update_slice": (
        lambda ns: lambda x: ns.lax.dynamic_update_slice(x, ns.jnp.ones((2, 16)), (1, 0)),
        [S],
    ),
    "scatter_add_rows": (lambda ns: lambda x: x.at[_idx(ns)].add(1.0), [S]),
    "top_k": (lambda ns: lambda x: ns.lax.top_k(x, 4)[0], [S]),
    "cond": (
        lambda ns: lambda x: ns.lax.cond(x.sum() > 0, lambda a: a * 2, lambda a: a - 1, x),
        [S],
    ),
    "fori_loop": (lambda ns: lambda x: ns.lax.fori_loop(0, 3, lambda i, a: a * 2 + 1, x), [S]),
    "scan_rows": (
        lambda ns: lambda x: ns.lax.scan(lambda c, r: (c + r, c), ns.jnp.zeros(16), x)[1],
        [S],
    ),
    "flip0": (lambda ns: lambda x: ns.jnp.flip(x, 0), [S]),
    "argsort1": (lambda ns: lambda x: ns.jnp.argsort(x, axis=1), [S]),
    "stack": (lambda ns: lambda x: ns.jnp.stack([x, 2 * x]), [S]),
    "split1": (lambda ns: lambda x: ns.jnp.split(x, 2, axis=1)[1], [S]),
    "tile": (lambda ns: lambda x: ns.jnp.tile(x, (2, 1)), [S]),
    "astype_int": (lambda ns: lambda x: x.astype(ns.jnp.int32), [S]),
}


def _smap(ns, body, in_spec, out_spec):
    """``shard_map(body)`` over the whole mesh, specs given as tuples of entries."""
    return ns.jax.shard_map(body, mesh=ns.mesh, in_specs=ns.P(*in_spec), out_specs=ns.P(*out_spec))


def _first(ns):
    return ns.mesh.axis_names[0]


def _last(ns):
    return ns.mesh.axis_names[-1]


# Collectives inside a nested shard_map, and nested jits with and without a constraint (Auto
# axes only): what the enclosing jit's result is sharded as.
NESTED = {
    "smap_psum": (
        lambda ns: _smap(ns, lambda a: ns.lax.psum(a, _first(ns)), (_first(ns),), ()),
        [S],
    ),
    "smap_rows": (
        lambda ns: lambda x: _smap(ns, lambda a: a * 2, (_first(ns),), (_first(ns),))(x) + 1,
        [S],
    ),
    "smap_all_gather": (
        lambda ns: _smap(
            ns, lambda a: ns.lax.all_gather(a, _first(ns), tiled=True), (_first(ns),), ()
        ),
        [S],
    ),
    "smap_psum_scatter": (
        lambda ns: _smap(
            ns,
            lambda a: ns.lax.psum_scatter(a, _first(ns), scatter_dimension=0, tiled=True),
            (),
            (_first(ns),),
        ),
        [S],
    ),
    "smap_psum_cols": (
        lambda ns: _smap(ns, lambda a: ns.lax.psum(a, _last(ns)), (None, _last(ns)), ()),
        [S],
    ),
    "nested_jit": (
        lambda ns: lambda x: ns.jax.jit(lambda y: y * 2 + 1)(x).sum(axis=0),
        [S],
    ),
    "nested_jit_constraint": (
        lambda ns: (
            lambda x: (
                3
                * ns.jax.jit(
                    lambda y: ns.lax.with_sharding_constraint(
                        y + 1, ns.NamedSharding(ns.mesh, ns.P(*_last2(ns)))
                    )
                )(x)
            )
        ),
        [S],
    ),
}


def _doubled_custom_vjp(ns):
    @ns.jax.custom_vjp
    def f(a):
        return a * 2

    f.defvjp(lambda a: (a * 2, None), lambda _, g: (g * 2,))
    return f


# Functions JAX writes as custom_jvp/custom_vjp calls or checkpoints (Auto axes only): the
# result sharding is the one of their primal program.
CALLS = {
    "nn_relu": (lambda ns: lambda x: ns.jax.nn.relu(x * 2), [S]),
    "nn_softplus": (lambda ns: lambda x: ns.jax.nn.softplus(x), [S]),
    "nn_softmax_rows": (lambda ns: lambda x: ns.jax.nn.softmax(x, axis=-1), [S]),
    "checkpoint": (lambda ns: ns.jax.checkpoint(lambda x: ns.jnp.sin(x) * 2), [S]),
    "custom_vjp": (lambda ns: _doubled_custom_vjp(ns), [S]),
}


def _spd(ns, x):
    """A well-conditioned symmetric positive definite batch of matrices built from ``x``."""
    return x @ ns.jnp.swapaxes(x, -1, -2) / 64 + 4 * ns.jnp.eye(x.shape[-1])


# Batched linear algebra (the batch dimension keeps its sharding), a bitcast, and a convolution
# (batch and spatial dimensions keep theirs), Auto axes only. The convolution runs on the (8,)
# mesh only: its 4-D input has too many specs on the 2-D meshes.
B = (8, 4, 4)
OPS = {
    "inv": (lambda ns: lambda x: ns.jnp.linalg.inv(_spd(ns, x)), [B]),
    "det": (lambda ns: lambda x: ns.jnp.linalg.det(_spd(ns, x)), [B]),
    "cholesky": (lambda ns: lambda x: ns.jnp.linalg.cholesky(_spd(ns, x)), [B]),
    "eigvalsh": (lambda ns: lambda x: ns.jnp.linalg.eigh(_spd(ns, x))[0], [B]),
    "qr_r": (lambda ns: lambda x: ns.jnp.linalg.qr(_spd(ns, x))[1], [B]),
    "svdvals": (lambda ns: lambda x: ns.jnp.linalg.svd(_spd(ns, x), compute_uv=False), [B]),
    "bitcast_i32": (lambda ns: lambda x: ns.lax.bitcast_convert_type(x, ns.jnp.int32), [S]),
}
CONV = {
    "conv_nchw": (
        lambda ns: lambda x: ns.lax.conv(x, ns.jnp.ones((4, 2, 3, 3)) / 9, (1, 1), "SAME"),
        [(8, 2, 8, 8)],
    ),
}


def _last2(ns):
    names = ns.mesh.axis_names
    return (names[-1], names[0]) if len(names) == 2 else (None, names[0])


BINARY = {
    "add": (lambda ns: lambda x, y: x + y, [S, S]),
    "where_xy": (lambda ns: lambda x, y: ns.jnp.where(x > y, x, y), [S, S]),
}

MATMUL = {
    "matmul": (lambda ns: lambda x, y: x @ y, [(8, 16), (16, 24)]),
    "einsum_nt": (lambda ns: lambda x, y: ns.jnp.einsum("ik,jk->ij", x, y), [(8, 16), (24, 16)]),
    "dot_general_batch": (
        lambda ns: lambda x, y: ns.lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
        [(8, 8, 16), (8, 16, 24)],
    ),
    # The larger operand's sharding wins a conflict (lhs on a tie): lhs larger, and equal.
    "matmul_tall": (lambda ns: lambda x, y: x @ y, [(24, 16), (16, 8)]),
    "matmul_square": (lambda ns: lambda x, y: x @ y, [(16, 16), (16, 16)]),
    "dot_general_batch_tall": (
        lambda ns: lambda x, y: ns.lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))),
        [(8, 24, 16), (8, 16, 8)],
    ),
}

PROGRAMS = {**UNARY, **BINARY, **MATMUL, **MORE, **NESTED, **CALLS, **OPS, **CONV}


def cases():
    """(name, mesh key, axis type 'auto'|'explicit', program name, input specs)."""
    out = []
    for mk, (_, names) in MESHES.items():
        for prog in MATMUL:
            shapes = PROGRAMS[prog][1]
            for specs in itertools.product(*[specs_for(len(s), names) for s in shapes]):
                out.append((f"auto:{mk}:{prog}:{_key(specs)}", mk, "auto", prog, list(specs)))
        for prog in UNARY:
            for spec in specs_for(2, names):
                out.append((f"auto:{mk}:{prog}:{_key([spec])}", mk, "auto", prog, [spec]))
        for prog in BINARY:
            for specs in itertools.product(specs_for(2, names), repeat=2):
                out.append((f"auto:{mk}:{prog}:{_key(specs)}", mk, "auto", prog, list(specs)))
        for prog in (*MORE, *NESTED, *CALLS):
            for spec in specs_for(2, names):
                out.append((f"auto:{mk}:{prog}:{_key([spec])}", mk, "auto", prog, [spec]))
        sizes = dict(zip(names, MESHES[mk][0]))
        for prog, (_, shapes) in {**OPS, **(CONV if mk == "8" else {})}.items():
            for spec in specs_for(len(shapes[0]), names):
                if _divides(spec, shapes[0], sizes):
                    out.append((f"auto:{mk}:{prog}:{_key([spec])}", mk, "auto", prog, [spec]))
    # Explicit axes: the sharding-in-types rules, including the errors they raise.
    for mk in ("8", "2x4"):
        names = MESHES[mk][1]
        for prog in ("matmul", "einsum_nt"):
            for specs in itertools.product(*[specs_for(2, names)] * 2):
                out.append((f"explicit:{mk}:{prog}:{_key(specs)}", mk, "explicit", prog, specs))
        for prog in UNARY:
            if prog.startswith(("random", "constraint")):
                continue
            for spec in specs_for(2, names):
                out.append((f"explicit:{mk}:{prog}:{_key([spec])}", mk, "explicit", prog, [spec]))
        for specs in itertools.product(specs_for(2, names), repeat=2):
            out.append((f"explicit:{mk}:add:{_key(specs)}", mk, "explicit", "add", list(specs)))
    return out


def _divides(spec, shape, sizes) -> bool:
    """Whether every dimension's shard count divides its size (device_put would raise)."""
    for e, d in zip(spec, shape):
        n = 1
        for a in (e,) if isinstance(e, str) else (e or ()):
            n *= sizes[a]
        if d % n:
            return False
    return True


def _key(specs):
    def ent(e):
        if e is None:
            return "_"
        return e if isinstance(e, str) else "(" + ",".join(e) + ")"

    return "|".join(",".join(ent(e) for e in s) for s in specs)


def spec_json(sharding, named_cls):
    if not isinstance(sharding, named_cls):
        return None
    return [list(e) if isinstance(e, tuple) else e for e in sharding.spec]


def inputs(np, shapes):
    """Deterministic float inputs for the given shapes (distinct values, no ties in sorts)."""
    out = []
    for k, shape in enumerate(shapes):
        n = int(np.prod(shape))
        out.append(((np.arange(n) * 7 + 3 * k) % 31).astype(np.float32).reshape(shape) - 11.0)
    return out


def main() -> None:
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    import types

    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax import lax
    from jax.sharding import AxisType, NamedSharding
    from jax.sharding import PartitionSpec as P

    meshes = {}
    for mk, (shape, names) in MESHES.items():
        for kind, t in (("auto", AxisType.Auto), ("explicit", AxisType.Explicit)):
            meshes[mk, kind] = jax.make_mesh(shape, names, axis_types=(t,) * len(names))
    jitted = {}
    out = {}
    for n, (name, mk, kind, prog, specs) in enumerate(cases()):
        if n % 500 == 0:
            print(f"case {n}", file=sys.stderr, flush=True)
        mesh = meshes[mk, kind]
        ns = types.SimpleNamespace(jax=jax, jnp=jnp, lax=lax, NamedSharding=NamedSharding, P=P)
        ns.mesh = mesh
        key = (prog, mk, kind)
        if key not in jitted:
            jitted[key] = jax.jit(PROGRAMS[prog][0](ns))
        args = [
            jax.device_put(a, NamedSharding(mesh, P(*s)))
            for a, s in zip(inputs(np, PROGRAMS[prog][1]), specs)
        ]
        rec = {}
        try:
            r = jitted[key](*args)
        except Exception as e:  # noqa: BLE001 - the error itself is the golden value
            rec["error"] = [type(e).__name__, str(e).split("\n")[0]]
        else:
            rec["spec"] = spec_json(r.sharding, NamedSharding)
            if kind == "explicit":
                rec["type"] = str(jax.typeof(r))
        out[name] = rec
    path = Path(__file__).resolve().parent.parent / "golden" / "sharding_jit.json"
    path.write_text(json.dumps(out, indent=0, sort_keys=True) + "\n")
    print(f"wrote {len(out)} cases to {path}")


if __name__ == "__main__":
    sys.exit(main())
