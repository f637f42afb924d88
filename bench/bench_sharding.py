"""Sharded arrays and jit's automatic parallelism in spmd, next to JAX on 8 CPU devices and NumPy.

Two groups of cases, each timed per call (``block_until_ready`` on the result):

- big: a float32 (4096, 4096) array (64 MiB) on a (2, 4) mesh ("x", "y") with ``P("x", "y")``:
  ``device_put`` of it from a NumPy array and from an unsharded Array (in JAX: from device 0);
  ``jit(lambda x: 2 * jnp.sin(x) + 1)`` and ``jit(lambda x: x.sum(axis=0))`` (seed 004's
  ``f_elementwise`` and ``f_contract``) on the sharded array and on the same values unsharded.
  NumPy floor: ``np.copy``, ``2 * np.sin(x) + 1``, ``x.sum(axis=0)``.
- layer: seed 004's "Comparing the three approaches" at the seed's sizes (x f32[32], weights
  f32[32,4], bias f32[4]; the seed draws float64 NumPy arrays and passes them as they are) on an
  (8,) mesh: ``jit(sigmoid(x @ w + b))`` on the NumPy inputs; on x and w placed with ``P("x")``
  and bias a NumPy array (the seed's cell 19), and the same with x and w unsharded Arrays; on
  three Arrays, x and w placed with ``P("x")`` and bias with ``P()``, and three unsharded
  Arrays; the same layer with ``with_sharding_constraint`` on x and w inside jit; and the layer
  as ``jit(shard_map(...))`` with a ``psum``. NumPy floor: the same arithmetic on float32 arrays.

Mesh axes are Auto in both libraries (JAX 0.10's make_mesh defaults to Explicit; spmd's, like
the seed's JAX, to Auto).

Targets: (1) every case no slower than JAX (spmd best / JAX best at most 1.0); (2) in spmd, jit
over sharded inputs within 1.2x of the same jit over unsharded inputs (both best times; the pairs
are in ``SHARDED_VS_UNSHARDED``).

JAX runs in a subprocess (this file with ``--worker jax``) under ``--jax-python PATH`` or
``SPMD_BENCH_JAX_PYTHON`` with 8 host devices; rounds alternate JAX, spmd and NumPy.
``--profile`` prints a pyinstrument profile of every spmd case. This file must stay importable
without spmd (the JAX worker does not have it).
"""

from __future__ import annotations

import argparse
import json

from bench_pmap import (
    add_common_options,
    check_sums,
    compare,
    fmt_ratio,
    fmt_time,
    measure_cases,
    ready,
    summarize,
)

N_DEV = 8
BIG_SHAPE = (4096, 4096)
LAYER_IN, LAYER_OUT = 32, 4

# (group, case) in table order.
CASES = [
    ("big", "device_put from NumPy"),
    ("big", "device_put from unsharded Array"),
    ("big", "jit(2*sin(x)+1), sharded in"),
    ("big", "jit(2*sin(x)+1), unsharded in"),
    ("big", "jit(x.sum(axis=0)), sharded in"),
    ("big", "jit(x.sum(axis=0)), unsharded in"),
    ("layer", "layer (jit), NumPy in"),
    ("layer", "layer (jit), sharded x, w"),
    ("layer", "layer (jit), unsharded x, w"),
    ("layer", "layer (jit), sharded Arrays"),
    ("layer", "layer (jit), unsharded Arrays"),
    ("layer", "layer_auto (constraints)"),
    ("layer", "layer_sharded (shard_map)"),
]

# Target (2): (sharded case, the same jit on unsharded inputs) pairs, timed in spmd.
SHARDED_VS_UNSHARDED = [
    ("jit(2*sin(x)+1), sharded in", "jit(2*sin(x)+1), unsharded in"),
    ("jit(x.sum(axis=0)), sharded in", "jit(x.sum(axis=0)), unsharded in"),
    ("layer (jit), sharded x, w", "layer (jit), unsharded x, w"),
    ("layer (jit), sharded Arrays", "layer (jit), unsharded Arrays"),
]
LIMIT_VS_JAX = 1.0
LIMIT_SHARDED = 1.2


def load(lib: str):
    """(jax, jnp, lax, shard_map, P, NamedSharding, AxisType) for ``lib`` in ("spmd", "jax")."""
    if lib == "jax":
        import jax
        import jax.numpy as jnp
        from jax import lax, shard_map
        from jax.sharding import AxisType, NamedSharding, PartitionSpec
    elif lib == "spmd":
        import spmd as jax
        import spmd.numpy as jnp
        from spmd import lax, shard_map
        from spmd.sharding import AxisType, NamedSharding, PartitionSpec
    else:
        raise ValueError(f"load: unknown library {lib!r}")
    if jax.device_count() < N_DEV:
        raise RuntimeError(f"{lib} sees {jax.device_count()} devices, the benchmark needs {N_DEV}")
    return jax, jnp, lax, shard_map, PartitionSpec, NamedSharding, AxisType


def big_input():
    import numpy as np

    return np.random.default_rng(4).standard_normal(BIG_SHAPE, dtype=np.float32)


def layer_inputs():
    """The seed's draws, in its order: float64 NumPy arrays."""
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.normal(size=(LAYER_IN,))
    weights = rng.normal(size=(LAYER_IN, LAYER_OUT))
    bias = rng.normal(size=(LAYER_OUT,))
    return x, weights, bias


def build(lib: str, groups: set[str]) -> tuple[dict, str]:
    """{case: zero-argument callable returning a ready result} for ``lib``, and its version."""
    import numpy as np

    out = {}
    if lib == "numpy":
        if "big" in groups:
            a = big_input()
            out["device_put from NumPy"] = lambda: np.copy(a)
            out["device_put from unsharded Array"] = out["device_put from NumPy"]
            out["jit(2*sin(x)+1), sharded in"] = lambda: 2 * np.sin(a) + np.float32(1)
            out["jit(2*sin(x)+1), unsharded in"] = out["jit(2*sin(x)+1), sharded in"]
            out["jit(x.sum(axis=0)), sharded in"] = lambda: a.sum(axis=0)
            out["jit(x.sum(axis=0)), unsharded in"] = out["jit(x.sum(axis=0)), sharded in"]
        if "layer" in groups:
            x, w, b = (t.astype(np.float32) for t in layer_inputs())

            def layer():
                return 1 / (1 + np.exp(-(x @ w + b)))

            for g, case in CASES:
                if g == "layer":
                    out[case] = layer
        return out, np.__version__

    jax, jnp, lax, shard_map, P, NamedSharding, AxisType = load(lib)
    if "big" in groups:
        a = big_input()
        mesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
        sharding = NamedSharding(mesh, P("x", "y"))
        unsharded = jnp.asarray(a)
        sharded = jax.device_put(a, sharding)
        f_elementwise = jax.jit(lambda x: 2 * jnp.sin(x) + 1)
        f_contract = jax.jit(lambda x: x.sum(axis=0))
        out["device_put from NumPy"] = ready(jax.device_put, a, sharding)
        out["device_put from unsharded Array"] = ready(jax.device_put, unsharded, sharding)
        out["jit(2*sin(x)+1), sharded in"] = ready(f_elementwise, sharded)
        out["jit(2*sin(x)+1), unsharded in"] = ready(f_elementwise, unsharded)
        out["jit(x.sum(axis=0)), sharded in"] = ready(f_contract, sharded)
        out["jit(x.sum(axis=0)), unsharded in"] = ready(f_contract, unsharded)
    if "layer" in groups:
        x, weights, bias = layer_inputs()
        mesh = jax.make_mesh((N_DEV,), ("x",), axis_types=(AxisType.Auto,))
        sharding = NamedSharding(mesh, P("x"))

        # The seed's three approaches, as its cells 17, 20 and 21 write them.
        @jax.jit
        def layer(x, weights, bias):
            return jax.nn.sigmoid(x @ weights + bias)

        @jax.jit
        def layer_auto(x, weights, bias):
            x = lax.with_sharding_constraint(x, sharding)
            weights = lax.with_sharding_constraint(weights, sharding)
            return layer(x, weights, bias)

        def body(x, weights, bias):
            return jax.nn.sigmoid(lax.psum(x @ weights, "x") + bias)

        layer_sharded = jax.jit(
            shard_map(body, mesh=mesh, in_specs=(P("x"), P("x", None), P(None)), out_specs=P(None))
        )
        x_sharded = jax.device_put(x, sharding)
        weights_sharded = jax.device_put(weights, sharding)
        bias_replicated = jax.device_put(bias, NamedSharding(mesh, P()))
        x_arr, weights_arr, bias_arr = jnp.asarray(x), jnp.asarray(weights), jnp.asarray(bias)
        out["layer (jit), NumPy in"] = ready(layer, x, weights, bias)
        # The seed's cell 19 (bias stays a NumPy array), and the same with x, w unsharded.
        out["layer (jit), sharded x, w"] = ready(layer, x_sharded, weights_sharded, bias)
        out["layer (jit), unsharded x, w"] = ready(layer, x_arr, weights_arr, bias)
        # Every argument an Array: bias replicated over the mesh, or all three unsharded.
        out["layer (jit), sharded Arrays"] = ready(
            layer, x_sharded, weights_sharded, bias_replicated
        )
        out["layer (jit), unsharded Arrays"] = ready(layer, x_arr, weights_arr, bias_arr)
        out["layer_auto (constraints)"] = ready(layer_auto, x, weights, bias)
        out["layer_sharded (shard_map)"] = ready(layer_sharded, x, weights, bias)
    return out, jax.__version__


def measure(lib: str, groups: set[str], repeat: int, min_time: float, clock: str) -> dict:
    return measure_cases(build, CASES, "layer", lib, groups, repeat, min_time, clock)


def report(results: dict, note: str, groups: set[str]) -> list[str]:
    """Print one table per group and one line per target; return the target lines."""
    from rich.console import Console
    from rich.table import Table

    spmd_r, jax_r, np_r = results["spmd"], results.get("jax"), results["numpy"]
    best = {lib: {c: min(t) for c, t in r["times"].items()} for lib, r in results.items()
            if isinstance(r, dict) and "times" in r}  # fmt: skip
    console = Console(width=130)
    for group, unit, title in (
        ("big", "ms", "f32[4096,4096] on a (2,4) mesh, P('x','y')"),
        ("layer", "µs", "seed 004's layer (x f32[32], w f32[32,4], b f32[4]) on an (8,) mesh"),
    ):
        if group not in groups:
            continue
        table = Table(
            title=f"{title}; per call, {unit} (best / median of up to {results['samples']} "
            "samples)",
            title_justify="left",
        )
        cols = ["case", "NumPy", "spmd", "JAX", "spmd/JAX", "spmd/NumPy"]
        if jax_r is None:
            cols = ["case", "NumPy", "spmd", "spmd/NumPy"]
        for col in cols:
            table.add_column(col, justify="left" if col == "case" else "right")
        for g, case in CASES:
            if g != group:
                continue
            s = summarize(spmd_r["times"][case])
            n = summarize(np_r["times"][case])
            row = [case, _pair(n, unit), _pair(s, unit)]
            if jax_r is not None:
                j = summarize(jax_r["times"][case])
                row += [_pair(j, unit), fmt_ratio(s["best"] / j["best"])]
            row.append(f"{s['best'] / n['best']:.2f}x")
            table.add_row(*row)
        console.print(table)

    lines = []
    cases = [c for g, c in CASES if g in groups]
    if jax_r is None:
        lines.append("target (no workload slower than JAX): JAX not found: skipped")
    else:
        ratios = {c: best["spmd"][c] / best["jax"][c] for c in cases}
        worst = max(ratios, key=ratios.get)
        failing = [f"{c} ({ratios[c]:.2f}x)" for c in cases if ratios[c] > LIMIT_VS_JAX]
        status = "MET" if not failing else "NOT MET"
        lines.append(
            f"target (no workload slower than JAX): {status} (worst spmd/JAX "
            f"{ratios[worst]:.3f}x at {worst!r}, limit {LIMIT_VS_JAX}x"
            + (f"; over the limit: {', '.join(failing)})" if failing else ")")
        )
    pairs = [(s, u) for s, u in SHARDED_VS_UNSHARDED if s in cases]
    if pairs:
        ratios = {s: best["spmd"][s] / best["spmd"][u] for s, u in pairs}
        failing = [s for s in ratios if ratios[s] > LIMIT_SHARDED]
        status = "MET" if not failing else "NOT MET"
        detail = ", ".join(f"{s}: {r:.2f}x" for s, r in ratios.items())
        lines.append(
            f"target (spmd jit sharded in / unsharded in at most {LIMIT_SHARDED}x): {status} "
            f"({detail})"
        )
    print(f"spmd {spmd_r['version']}, NumPy {np_r['version']}, JAX: {note}")
    if jax_r is not None:
        check_sums(spmd_r["checksums"], jax_r["checksums"])
    for line in lines:
        print(line)
    return lines


def _pair(r: dict[str, float], unit: str) -> str:
    return f"{fmt_time(r['best'], unit)} / {fmt_time(r['median'], unit)}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_options(parser, rounds=3, repeat=5)
    parser.add_argument(
        "--group", choices=["big", "layer", "all"], default="all", help="cases to run"
    )
    args, _ = parser.parse_known_args(argv)
    groups = {"big", "layer"} if args.group == "all" else {args.group}

    if args.worker:
        res = measure(args.worker, groups, args.repeat, args.min_time, args.clock)
        print(json.dumps(res))
        return

    compare(__file__, args, groups, measure, report, build, CASES)


if __name__ == "__main__":
    main()
