"""Collectives over 8 devices in spmd, next to JAX on 8 CPU devices, plain NumPy, and this
machine's memcpy bandwidth measured in the same run.

Each collective is the body of ``jit(shard_map(body, mesh, in_specs=P("x"), out_specs=...))``
over an (8,) mesh, applied to a float32 vector of 8 blocks of 1 KiB, 1 MiB or 16 MiB (the
per-device size), placed one block per device:

- psum: ``lax.psum(x, "x")``, out_specs ``P()``;
- all_gather: ``lax.all_gather(x, "x", tiled=True)``, out_specs ``P()`` (``check_vma=False``:
  the result is the same on every device). Its value is the global input itself, so spmd can
  return a view and move nothing; JAX writes the gathered vector on every device;
- psum_scatter: ``lax.psum_scatter(x, "x", tiled=True)``, out_specs ``P("x")``;
- all_to_all: ``lax.all_to_all(x, "x", 0, 0, tiled=True)``, out_specs ``P("x")``;
- ppermute: ``lax.ppermute(x, "x", [(i, (i + 1) % 8)])``, out_specs ``P("x")``.

NumPy floor: the same value computed on the stacked (8, n) array in one or two NumPy calls
(``sum(0)``, a reshape, ``swapaxes(0, 1).copy()``, ``np.roll``).

Bandwidth: GB/s = (bytes per device x 8 devices) / (seconds per call) / 1e9, i.e. the size of
the global input over the time of one call. memcpy: ``np.copyto(dst, src)`` of two preallocated
buffers of that same global size, bytes / seconds / 1e9 (each byte read once and written once).
A collective at memcpy bandwidth takes as long as copying its whole input once.

Target: at 16 MiB per device, every collective in spmd at least half of memcpy bandwidth.
JAX runs in a subprocess, as in bench_pmap.py (whose helpers this file uses).
"""

from __future__ import annotations

import argparse
import functools
import json

from _common import find_jax_python
from bench_pmap import (
    N_DEV,
    add_common_options,
    checksum,
    fmt_ratio,
    jax_note,
    load,
    merge_rounds,
    profile_calls,
    ready,
    run_worker,
    summarize,
    time_call,
)

SIZES = {"1 KiB": 1 << 10, "1 MiB": 1 << 20, "16 MiB": 16 << 20}  # bytes per device
COLLECTIVES = ["psum", "all_gather", "psum_scatter", "all_to_all", "ppermute"]
TARGET_SIZE = "16 MiB"
TARGET_FRACTION = 0.5  # of memcpy bandwidth
PERM = [(i, (i + 1) % N_DEV) for i in range(N_DEV)]


def make_input(nbytes: int):
    """The global float32 input, 8 blocks of ``nbytes`` each, from a fixed seed."""
    import numpy as np

    rng = np.random.default_rng(1)
    return rng.standard_normal(N_DEV * nbytes // 4, dtype=np.float32)


def bodies(lax):
    """{collective: (body, out_specs partition, check_vma)} written against ``lax``."""
    return {
        "psum": (lambda x: lax.psum(x, "x"), (), True),
        "all_gather": (lambda x: lax.all_gather(x, "x", tiled=True), (), False),
        "psum_scatter": (lambda x: lax.psum_scatter(x, "x", tiled=True), ("x",), True),
        "all_to_all": (lambda x: lax.all_to_all(x, "x", 0, 0, tiled=True), ("x",), True),
        "ppermute": (lambda x: lax.ppermute(x, "x", PERM), ("x",), True),
    }


def numpy_floors(x):
    """{collective: callable} computing the same global value with NumPy on ``x``."""
    import numpy as np

    x2 = x.reshape(N_DEV, -1)
    blocks = x.reshape(N_DEV, N_DEV, -1)
    return {
        "psum": lambda: x2.sum(0),
        "all_gather": lambda: x2.reshape(-1),
        "psum_scatter": lambda: x2.sum(0),
        "all_to_all": lambda: blocks.swapaxes(0, 1).copy().reshape(-1),
        "ppermute": lambda: np.roll(x2, 1, axis=0).reshape(-1),
    }


def build(lib: str, sizes: list[str]) -> tuple[dict, str]:
    """{(size, collective): zero-argument callable returning a ready result}, and version."""
    import numpy as np

    out = {}
    if lib == "numpy":
        for size in sizes:
            for name, fn in numpy_floors(make_input(SIZES[size])).items():
                out[size, name] = fn
        return out, np.__version__
    jax, jnp, lax, shard_map, P, NamedSharding, mesh, version = load(lib)
    sharded = NamedSharding(mesh, P("x"))
    fns = {}
    for name, (body, spec, check) in bodies(lax).items():
        f = shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P(*spec), check_vma=check)
        fns[name] = jax.jit(f)
    for size in sizes:
        x = jax.device_put(make_input(SIZES[size]), sharded)
        for name, f in fns.items():
            out[size, name] = ready(f, x)
    return out, version


def _key(size: str, name: str) -> str:
    return f"{size} {name}"


def measure(lib: str, sizes: list[str], repeat: int, min_time: float, clock: str) -> dict:
    """Per-call samples (seconds) of every collective at every size in ``lib``."""
    fns, version = build(lib, sizes)
    times, sums = {}, {}
    for (size, name), fn in fns.items():
        times[_key(size, name)] = time_call(fn, repeat, min_time, clock)
        sums[_key(size, name)] = checksum(fn())
    return {"lib": lib, "version": version, "times": times, "checksums": sums}


def measure_memcpy(sizes: list[str], repeat: int, min_time: float, clock: str) -> dict:
    """Per-call samples (seconds) of ``np.copyto`` between preallocated buffers of the global
    input's size, per size."""
    import numpy as np

    times = {}
    for size in sizes:
        src = make_input(SIZES[size])
        dst = np.empty_like(src)
        np.copyto(dst, src)  # touch every page of dst before timing
        times[size] = time_call(functools.partial(np.copyto, dst, src), repeat, min_time, clock)
    return {"times": times}


def gbps(size: str, seconds: float) -> float:
    return N_DEV * SIZES[size] / seconds / 1e9


def _us(seconds: float) -> str:
    us = seconds * 1e6
    return f"{us:.1f}" if us < 1000 else f"{us:.0f}"


def report(results: dict, note: str, sizes: list[str]) -> list[str]:
    """Print the table and the target lines; return the target lines."""
    from rich.console import Console
    from rich.table import Table

    spmd_r, jax_r, np_r, mc = (results[k] for k in ("spmd", "jax", "numpy", "memcpy"))
    console = Console(width=150)
    table = Table(
        title="Collectives over 8 devices under jit(shard_map), float32; µs per call (best / "
        f"median of up to {results['samples']} samples); GB/s = 8 x bytes per device / best time",
        title_justify="left",
    )
    cols = ["per device", "collective", "NumPy µs", "spmd µs", "JAX µs", "spmd/JAX"]
    cols += ["spmd GB/s", "JAX GB/s", "memcpy GB/s", "spmd/memcpy"]
    if jax_r is None:
        cols = [c for c in cols if "JAX" not in c]
    for col in cols:
        table.add_column(col, justify="left" if col in ("per device", "collective") else "right")
    lines = []
    for size in sizes:
        m = summarize(mc["times"][size])
        m_bw = gbps(size, m["best"])
        for i, name in enumerate(COLLECTIVES):
            k = _key(size, name)
            s, n = summarize(spmd_r["times"][k]), summarize(np_r["times"][k])
            row = [size if i == 0 else "", name, _pair(n), _pair(s)]
            s_bw = gbps(size, s["best"])
            if jax_r is not None:
                j = summarize(jax_r["times"][k])
                row += [_pair(j), fmt_ratio(s["best"] / j["best"])]
            row.append(f"{s_bw:.2f}")
            if jax_r is not None:
                row.append(f"{gbps(size, j['best']):.2f}")
            row += [f"{m_bw:.2f}" if i == 0 else "", f"{s_bw / m_bw:.2f}"]
            table.add_row(*row, end_section=i == len(COLLECTIVES) - 1)
            if size == TARGET_SIZE:
                ok = s_bw >= TARGET_FRACTION * m_bw
                lines.append(
                    f"target: {name} at {size} per device at least {TARGET_FRACTION} of memcpy: "
                    f"{'MET' if ok else 'NOT MET'} ({s_bw:.2f} GB/s = {s_bw / m_bw:.2f} x "
                    f"memcpy {m_bw:.2f} GB/s)"
                )
    console.print(table)
    print(f"spmd {spmd_r['version']}, NumPy {np_r['version']}, JAX: {note}")
    if jax_r is not None:
        for k, v in spmd_r["checksums"].items():
            j = jax_r["checksums"][k]
            if abs(v - j) > 1e-3 * max(1.0, abs(j)):
                print(f"WARNING: {k}: spmd result sums to {v!r}, JAX's to {j!r}")
    if TARGET_SIZE not in sizes:
        lines.append(f"target: not checked ({TARGET_SIZE} not run)")
    for line in lines:
        print(line)
    return lines


def _pair(r: dict[str, float]) -> str:
    return f"{_us(r['best'])} / {_us(r['median'])}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_options(parser, rounds=3, repeat=3)
    parser.add_argument(
        "--sizes", default=",".join(SIZES), help=f"comma-separated, of {', '.join(SIZES)}"
    )
    args, _ = parser.parse_known_args(argv)
    sizes = [s.strip() for s in args.sizes.split(",")]
    bad = [s for s in sizes if s not in SIZES]
    if bad:
        raise SystemExit(f"bench_collectives: unknown sizes {bad}; have {list(SIZES)}")

    if args.worker:
        print(json.dumps(measure(args.worker, sizes, args.repeat, args.min_time, args.clock)))
        return

    python, how = find_jax_python(args.jax_python)
    if python is None:
        print("JAX not found: skipped")
    worker_args = ["--repeat", str(args.repeat), "--min-time", str(args.min_time)]
    worker_args += ["--clock", args.clock, "--sizes", ",".join(sizes)]
    rounds: dict[str, list] = {"jax": [], "spmd": [], "numpy": [], "memcpy": []}
    for _ in range(args.rounds):
        # JAX first and in its own process: its thread pool is gone when spmd is timed.
        if python is not None:
            rounds["jax"].append(run_worker(__file__, python, worker_args))
        rounds["memcpy"].append(measure_memcpy(sizes, args.repeat, args.min_time, args.clock))
        rounds["spmd"].append(measure("spmd", sizes, args.repeat, args.min_time, args.clock))
        rounds["numpy"].append(measure("numpy", sizes, args.repeat, args.min_time, args.clock))
    results = {lib: merge_rounds(r) if r else None for lib, r in rounds.items()}
    results["samples"] = args.rounds * args.repeat
    report(results, jax_note(python, how, results), sizes)
    if args.profile:
        fns, _ = build("spmd", sizes)
        for (size, name), fn in fns.items():
            profile_calls(f"{name} at {size} per device", fn)


if __name__ == "__main__":
    main()
