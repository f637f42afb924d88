"""Record JAX 0.10's view of ``lax.ragged_all_to_all`` into ``tests/golden/ragged_all_to_all.json``
(read by ``tests/test_ragged_all_to_all.py``).

Run with real JAX on 8 CPU devices::

    XLA_FLAGS=--xla_force_host_platform_device_count=8 /path/to/jax/python \\
        tests/golden_gen/ragged_all_to_all_gen.py

JAX's CPU backend cannot run this collective (XLA:CPU has no ``ragged-all-to-all`` thunk: it
fails when compiling), so what is recorded from JAX is what it can do without running it: the
printed jaxprs (shard_map on 1-D meshes of 2/4/8 devices and on a 2x4 mesh over one axis, a
mapped function with ``axis_env``, its positional vmap, jvp) and the error class of each bad
input (at trace time, or when compiling). The results are those of ``loop`` below, which
follows the pseudocode of JAX's docstring line by line (senders send entry ``i`` to device
``i // slices_per_device``; receivers write at ``all_to_all(output_offsets)``), on inputs
``case_inputs`` regenerates from a seed; they are stored so a change to either shows.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / "golden" / "ragged_all_to_all.json"


# ---------------------------------------------------------------------------------------------
# Inputs and the documented semantics (NumPy only: the test imports these)


def groups_of(n_dev: int, axis: str, mesh: tuple | None) -> list[list[int]]:
    """The devices (numbered in mesh order) that exchange together: all of them on a 1-D mesh;
    on a 2-D mesh ('x', 'y'), those sharing the other coordinate."""
    if mesh is None:
        return [list(range(n_dev))]
    nx, ny = mesh
    if axis == "y":
        return [[x * ny + y for y in range(ny)] for x in range(nx)]
    return [[x * ny + y for x in range(nx)] for y in range(ny)]


def case_inputs(groups, slices: int, trail: tuple, dtype: str, seed: int) -> list[np.ndarray]:
    """Per-device inputs stacked along a leading device dimension: operand (n, N, *trail),
    output (n, M, *trail) filled with values that must survive where nothing lands, and the
    four (n, K) index arrays, consistent within each group (ragged sizes, zeros included, with
    gaps between slices on both sides)."""
    rng = np.random.default_rng(seed)
    n_dev = sum(len(g) for g in groups)
    m = len(groups[0])
    k = m * slices
    ss = rng.integers(0, 4, (n_dev, k))
    ss[rng.random((n_dev, k)) < 0.25] = 0
    io = np.zeros((n_dev, k), np.int64)
    for d in range(n_dev):
        at = 0
        for e in rng.permutation(k):  # slices packed in a random order, with gaps
            at += int(rng.integers(0, 2))
            io[d, e] = at
            at += ss[d, e]
    oo = np.zeros((n_dev, k), np.int64)
    rs = np.zeros((n_dev, k), np.int64)
    for grp in groups:
        for q, dst in enumerate(grp):
            at = int(rng.integers(0, 2))
            for p, src in enumerate(grp):
                for t in range(slices):
                    size = ss[src, q * slices + t]
                    oo[src, q * slices + t] = at
                    rs[dst, p * slices + t] = size
                    at += size + int(rng.integers(0, 2))
    n_rows = int((io + ss).max()) + 1
    m_rows = int(max((oo + ss).max(), 1)) + 1
    operand = _values(rng, (n_dev, n_rows) + trail, dtype)
    output = _values(rng, (n_dev, m_rows) + trail, dtype)
    return [operand, output] + [a.astype(np.int32) for a in (io, ss, oo, rs)]


def _values(rng, shape, dtype: str) -> np.ndarray:
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype.startswith("int"):
        return rng.integers(-100, 100, shape).astype(dtype)
    v = rng.standard_normal(shape).astype(np.float32)
    if dtype == "bfloat16":
        import ml_dtypes

        return v.astype(ml_dtypes.bfloat16)
    return v.astype(dtype)


def loop(operand, output, input_offsets, send_sizes, output_offsets, recv_sizes, groups):
    """JAX's docstring pseudocode, per device: send entry i to member i // slices_per_device;
    receive into ``output`` at ``all_to_all(output_offsets, tiled=True)``."""
    result = np.array(output, copy=True)
    for grp in groups:
        m = len(grp)
        spd = input_offsets.shape[1] // m
        sent = {}  # (sender, receiver) -> the slices in order
        for src in grp:
            for i in range(m * spd):
                a, n = int(input_offsets[src, i]), int(send_sizes[src, i])
                sent.setdefault((src, grp[i // spd]), []).append(operand[src, a : a + n])
        for dst in grp:
            q = grp.index(dst)
            # all_to_all(output_offsets, 0, 0, tiled=True): block q of each member, in order.
            offsets_ = np.concatenate([output_offsets[s, q * spd : (q + 1) * spd] for s in grp])
            for i in range(m * spd):
                src = grp[i // spd]
                data = sent[(src, dst)][i % spd]
                o, n = int(offsets_[i]), int(recv_sizes[dst, i])
                assert n == len(data)
                result[dst, o : o + n] = data
    return result


# ---------------------------------------------------------------------------------------------
# The cases


def cases() -> list[dict]:
    out = []
    seed = 0
    specs = [
        # (devices or mesh, axis, slices per device pair, trailing shape, dtype)
        (2, "x", 1, (), "float32"),
        (2, "x", 2, (3,), "int32"),
        (4, "x", 1, (2,), "float32"),
        (4, "x", 3, (), "bool"),
        (8, "x", 1, (2, 2), "bfloat16"),
        (8, "x", 2, (), "int32"),
        ((2, 4), "y", 1, (2,), "float32"),
        ((2, 4), "x", 2, (), "int32"),
    ]
    for devs, axis, slices, trail, dt in specs:
        seed += 1
        mesh = list(devs) if isinstance(devs, tuple) else None
        n_dev = int(np.prod(devs))
        out.append({"name": f"{'x'.join(map(str, mesh or [devs]))}_{axis}_s{slices}_{dt}",
                    "mesh": mesh, "n": n_dev, "axis": axis, "slices": slices,
                    "trail": list(trail), "dtype": dt, "seed": seed})  # fmt: skip
    return out


def group_cases() -> list[dict]:
    """axis_index_groups over a 1-D axis of n devices (JAX batches them nowhere; recorded
    here: the jaxpr of the mapped function under ``axis_env``)."""
    return [
        {"name": "groups_4_pairs", "n": 4, "groups": [[0, 2], [3, 1]], "slices": 1,
         "trail": [2], "dtype": "float32", "seed": 101},
        {"name": "groups_8_quads", "n": 8, "groups": [[7, 1, 2, 0], [3, 4, 6, 5]], "slices": 2,
         "trail": [], "dtype": "int32", "seed": 102},
    ]  # fmt: skip


def global_args(xs: list[np.ndarray]) -> list[np.ndarray]:
    """The per-device stacks as shard_map's global arguments (devices along dimension 0)."""
    return [x.reshape((x.shape[0] * x.shape[1],) + x.shape[2:]) for x in xs]


def bits(a) -> dict:
    a = np.asarray(a)
    if a.dtype.name == "bfloat16":
        raw = a.view(np.uint16)
    elif a.dtype == np.float32:
        raw = a.view(np.uint32)
    else:
        raw = a
    return {"dtype": a.dtype.name, "shape": list(a.shape), "bits": raw.ravel().tolist()}


# ---------------------------------------------------------------------------------------------
# Recording


def _jaxpr(jax, fn, args) -> str:
    from jaxpr_gen import mesh_order_manual_axes

    return mesh_order_manual_axes(str(jax.make_jaxpr(fn)(*args)))


def smap(jax, lax, P, mesh, axis, check_vma=True):
    names = tuple(mesh.axis_names)
    spec = P(names if len(names) > 1 else names[0])
    return jax.shard_map(lambda *a: lax.ragged_all_to_all(*a, axis_name=axis), mesh=mesh,
                         in_specs=(spec,) * 6, out_specs=spec, check_vma=check_vma)  # fmt: skip


def main() -> None:
    import sys

    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import jax
    import jax.numpy as jnp
    from jax import lax
    from jax.sharding import AxisType
    from jax.sharding import PartitionSpec as P

    golden: dict = {"jax_version": jax.__version__, "cases": [], "groups": [], "jaxprs": {}}

    def mesh_for(c):
        shape = tuple(c["mesh"]) if c["mesh"] else (c["n"],)
        names = ("x", "y")[: len(shape)]
        return jax.make_mesh(shape, names, axis_types=(AxisType.Auto,) * len(shape),
                             devices=jax.devices()[: c["n"]])  # fmt: skip

    for c in cases():
        groups = groups_of(c["n"], c["axis"], tuple(c["mesh"]) if c["mesh"] else None)
        xs = case_inputs(groups, c["slices"], tuple(c["trail"]), c["dtype"], c["seed"])
        f = smap(jax, lax, P, mesh_for(c), c["axis"])
        args = [jnp.asarray(a) for a in global_args(xs)]
        jaxpr = _jaxpr(jax, f, args)
        try:  # JAX's CPU backend cannot run it; record that it still cannot.
            jax.jit(f).lower(*args).compile()
            runs = "compiled"
        except Exception as e:  # noqa: BLE001
            runs = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
        golden["cases"].append({**c, "jaxpr": jaxpr, "jax_cpu": runs,
                                "out": bits(loop(*xs, groups))})  # fmt: skip
    for c in group_cases():
        groups = c["groups"]
        xs = case_inputs(groups, c["slices"], tuple(c["trail"]), c["dtype"], c["seed"])

        def g(*a, groups=groups):
            return lax.ragged_all_to_all(*a, axis_name="i", axis_index_groups=groups)

        per_dev = [jnp.asarray(x[0]) for x in xs]
        text = str(jax.make_jaxpr(g, axis_env=[("i", c["n"])])(*per_dev))
        golden["groups"].append({**c, "jaxpr": text, "out": bits(loop(*xs, groups))})

    golden["jaxprs"] = record_jaxprs(jax, jnp, lax, P, mesh_for)
    golden["errors"] = record_errors(jax, jnp, lax, P, mesh_for)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(golden, indent=1) + "\n")
    print(f"wrote {OUT}: {len(golden['cases'])} cases, {len(golden['groups'])} with groups, "
          f"{len(golden['jaxprs'])} jaxprs, {len(golden['errors'])} errors")  # fmt: skip


def small_inputs(np_mod=np):
    """Per-device inputs of the docstring's example (2 devices), as (2, ...) stacks."""
    return [
        np.array([[1.0, 2.0, 2.0], [3.0, 4.0, 0.0]], np.float32),
        np.zeros((2, 4), np.float32),
        np.array([[0, 1], [0, 1]], np.int32),
        np.array([[1, 2], [1, 1]], np.int32),
        np.array([[0, 0], [1, 2]], np.int32),
        np.array([[1, 1], [2, 1]], np.int32),
    ]


def jaxpr_cases():
    """name -> make(jax, lax, P, mesh_for) -> (fn, args): programs whose printed jaxpr spmd
    must reproduce."""
    xs = small_inputs()
    per_dev = [x[0] for x in xs]
    c2 = {"mesh": None, "n": 2}

    def mapped(jax, lax, P, mesh_for):
        f = lambda *a: lax.ragged_all_to_all(*a, axis_name="x")  # noqa: E731
        return jax.make_jaxpr(f, axis_env=[("x", 2)]), per_dev

    def mapped_two_axes(jax, lax, P, mesh_for):
        f = lambda *a: lax.ragged_all_to_all(*a, axis_name=("x", "y"))  # noqa: E731
        args = [per_dev[0], per_dev[1]] + [np.zeros(4, np.int32)] * 4
        return jax.make_jaxpr(f, axis_env=[("x", 2), ("y", 2)]), args

    def vmapped(jax, lax, P, mesh_for):
        f = lambda *a: lax.ragged_all_to_all(*a, axis_name="x")  # noqa: E731
        return jax.make_jaxpr(jax.vmap(f), axis_env=[("x", 2)]), xs

    def vmapped_axis1(jax, lax, P, mesh_for):
        f = lambda *a: lax.ragged_all_to_all(*a, axis_name="x")  # noqa: E731
        ys = [x.T.copy() if x.ndim == 2 and i >= 2 else x for i, x in enumerate(xs)]
        return jax.make_jaxpr(jax.vmap(f, in_axes=(0, 0, 1, 1, 1, 1)), axis_env=[("x", 2)]), ys

    def jitted(jax, lax, P, mesh_for):
        return jax.make_jaxpr(jax.jit(smap(jax, lax, P, mesh_for(c2), "x"))), global_args(xs)

    def unchecked(jax, lax, P, mesh_for):
        return jax.make_jaxpr(smap(jax, lax, P, mesh_for(c2), "x", check_vma=False)), (
            global_args(xs)
        )

    def jvp(jax, lax, P, mesh_for):
        f = smap(jax, lax, P, mesh_for(c2), "x")
        g = global_args(xs)

        def fn(a, b, *rest):
            return jax.jvp(lambda u, v: f(u, v, *rest), (a, b), (a, b))

        return jax.make_jaxpr(fn), g

    return {
        "mapped": mapped,
        "mapped_two_axes": mapped_two_axes,
        "vmapped": vmapped,
        "vmapped_axis1": vmapped_axis1,
        "jit_shard_map": jitted,
        "shard_map_unchecked": unchecked,
        "jvp_shard_map": jvp,
    }


def record_jaxprs(jax, jnp, lax, P, mesh_for) -> dict:
    from jaxpr_gen import mesh_order_manual_axes

    out = {}
    for name, make in jaxpr_cases().items():
        mk, args = make(jax, lax, P, mesh_for)
        out[name] = mesh_order_manual_axes(str(mk(*[jnp.asarray(a) for a in args])))
    return out


def error_cases():
    """name -> (axis_name, per-device argument shapes/dtypes): bad inputs, each run under
    shard_map on 2 devices (JAX raises at trace time or when compiling)."""
    f32, i32 = "float32", "int32"
    ok = [((3,), f32), ((4,), f32)] + [((2,), i32)] * 4
    cases = {
        "float_offsets": ("x", ok[:2] + [((2,), f32)] + ok[3:]),
        "rank2_sizes": ("x", ok[:3] + [((2, 1), i32)] + ok[4:]),
        "mismatched_lengths": ("x", ok[:3] + [((3,), i32)] + ok[4:]),
        "unknown_axis": ("y", ok),
    }
    return cases


def record_errors(jax, jnp, lax, P, mesh_for) -> dict:
    out = {}
    mesh = mesh_for({"mesh": None, "n": 2})
    for name, (axis, specs) in error_cases().items():
        args = [jnp.zeros((2 * s[0],) + s[1:], d) for s, d in specs]
        f = smap(jax, lax, P, mesh, axis)
        try:
            jax.jit(f).lower(*args).compile()
            got = "no error"
        except Exception as e:  # noqa: BLE001
            # Past JAX's checks, XLA:CPU's missing thunk: JAX found nothing wrong.
            unimplemented = "UNIMPLEMENTED" in str(e)
            got = "no error (UNIMPLEMENTED on CPU)" if unimplemented else type(e).__name__
        out[name] = got
    try:
        lax.ragged_all_to_all(*[jnp.asarray(x[0]) for x in small_inputs()], axis_name="x")
        out["outside_map"] = "no error"
    except Exception as e:  # noqa: BLE001
        out["outside_map"] = type(e).__name__
    return out


if __name__ == "__main__":
    main()
