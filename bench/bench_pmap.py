"""pmap and shard_map in spmd, next to JAX on 8 CPU devices and plain NumPy.

Two groups of cases, each timed per call (``block_until_ready`` on the result):

- seed: seed 001's ``pmap(vmap(dot))`` with ``dot = jnp.vdot`` on two float32 arrays of shape
  (8, 1_250_000, 3), and ``jit`` of it; once with inputs made by ``jnp.asarray`` (as the seed
  makes them: in JAX they sit on device 0 and every call spreads them over the 8 devices) and
  once with inputs already placed one block per device (``device_put`` with
  ``NamedSharding(mesh, P("x"))``). NumPy floor: ``np.einsum("dnk,dnk->dn", a, b)``.
- dispatch: tiny inputs, where what is timed is the per-call machinery: ``pmap(lambda x: x + 1)``
  on f32[8,3], its ``jit``, the seed's ``pmap(dot)``, ``jit(pmap(dot))`` and ``pmap(jit(dot))`` on
  two f32[8,3], and ``shard_map`` of a ``psum`` body over an (8,) mesh on f32[8], eager and
  jitted. NumPy floor: the same arithmetic on the stacked array.

Targets (spmd time / JAX time, best of all samples): seed cases at most 1.0 (no slower than
JAX), dispatch cases at most 0.2 (at least 5x faster).

JAX runs in a subprocess (this file with ``--worker jax``) under the interpreter given by
``--jax-python PATH`` or ``SPMD_BENCH_JAX_PYTHON`` (else the current one if it has jax), with
``XLA_FLAGS=--xla_force_host_platform_device_count=8`` added to its environment. Rounds alternate
JAX, spmd and NumPy. ``--profile`` prints a pyinstrument profile of every spmd case.

bench_collectives.py imports the timing and worker helpers from here. This file must stay
importable without spmd (the JAX worker does not have it): libraries are imported where used.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import timeit

from _common import ENV_JAX_PYTHON, find_jax_python

N_DEV = 8
SEED_SHAPE = (N_DEV, 1_250_000, 3)
TINY_SHAPE = (N_DEV, 3)

# spmd best time / JAX best time at most this, for every case of the group.
TARGETS = {"seed": 1.0, "dispatch": 0.2}

# (group, case) in table order. NumPy times the same floor for the cases of one row group that
# differ only in how spmd/JAX are called (jit or not, input placement).
CASES = [
    ("seed", "pmap(vmap(dot))"),
    ("seed", "jit(pmap(vmap(dot)))"),
    ("seed", "pmap(vmap(dot)), sharded in"),
    ("seed", "jit(pmap(vmap(dot))), sharded in"),
    ("dispatch", "pmap(x+1) f32[8,3]"),
    ("dispatch", "jit(pmap(x+1)) f32[8,3]"),
    ("dispatch", "pmap(dot) 2x f32[8,3]"),
    ("dispatch", "jit(pmap(dot)) 2x f32[8,3]"),
    ("dispatch", "pmap(jit(dot)) 2x f32[8,3]"),
    ("dispatch", "shard_map(psum) f32[8]"),
    ("dispatch", "jit(shard_map(psum)) f32[8]"),
]


# ---------------------------------------------------------------------------------------------
# Shared with bench_collectives.py: libraries, timing, the JAX subprocess


def load(lib: str):
    """(jax, jnp, lax, shard_map, P, NamedSharding, mesh over 8 devices named "x", version)
    for ``lib`` in ("spmd", "jax")."""
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
        raise RuntimeError(
            f"{lib} sees {jax.device_count()} devices, the benchmark needs {N_DEV} (for JAX set "
            f"XLA_FLAGS=--xla_force_host_platform_device_count={N_DEV})"
        )
    # JAX 0.10's make_mesh defaults to Explicit axes; the cases here are written for Auto.
    mesh = jax.make_mesh((N_DEV,), ("x",), axis_types=(AxisType.Auto,))
    return jax, jnp, lax, shard_map, PartitionSpec, NamedSharding, mesh, jax.__version__


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def time_call(
    fn, repeat: int, min_time: float, clock: str = "wall", budget: float = 1.5
) -> list[float]:
    """Seconds per call of ``fn()``, one sample per repeat, timeit style: after one untimed
    call (tracing, caches), the loop count is raised until one repeat takes ``min_time``.
    Sampling stops early once the samples took ``budget`` seconds (slow cases: JAX's
    all_gather of 16 MiB per device takes over a second a call).

    ``clock="cpu"`` counts the process's CPU time (all its threads) instead of elapsed time."""
    timer = timeit.Timer(fn, timer=CLOCKS[clock])
    fn()
    number = 1
    while True:
        t = timer.timeit(number)
        if t >= min_time:
            break
        # Aim a little past min_time so the next try usually ends the search.
        number = max(number * 2, int(number * 1.2 * min_time / max(t, 1e-9)))
    # The search's last try is a valid sample too: slow cases then cost repeat calls, not more.
    samples, spent = [t / number], t
    while len(samples) < repeat and spent < budget:
        t = timer.timeit(number)
        samples.append(t / number)
        spent += t
    return samples


def summarize(samples: list[float]) -> dict[str, float]:
    # Best is what targets compare: on a shared machine, noise only ever adds time.
    return {"best": min(samples), "median": statistics.median(samples)}


def checksum(x) -> float:
    """A float64 sum of a result, to see that every library computed the same thing."""
    import numpy as np

    return float(np.asarray(x, dtype=np.float64).sum())


def run_worker(script: str, python: str, args: list[str]) -> dict:
    """Run ``script --worker jax ARGS`` under ``python`` with 8 host devices; its last line of
    output, parsed as JSON."""
    env = dict(os.environ)
    env.setdefault("JAX_PLATFORMS", "cpu")  # no accelerator probing: its warnings are noise
    flag = f"--xla_force_host_platform_device_count={N_DEV}"
    if "xla_force_host_platform_device_count" not in env.get("XLA_FLAGS", ""):
        env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " " + flag).strip()
    cmd = [python, os.path.abspath(script), "--worker", "jax", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise RuntimeError(
            f"the JAX worker ({python}) failed with exit code {proc.returncode}:\n{proc.stderr}"
        )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def merge_rounds(rounds: list[dict]) -> dict:
    """One result per library from several rounds: the samples of each case pooled."""
    out = dict(rounds[0])
    out["times"] = {k: [s for r in rounds for s in r["times"][k]] for k in rounds[0]["times"]}
    return out


def profile_calls(label: str, fn, seconds: float = 1.0) -> None:
    """Print a pyinstrument profile of repeated ``fn()`` calls (about ``seconds`` long)."""
    try:
        from pyinstrument import Profiler
    except ImportError:
        print("--profile needs pyinstrument")
        return
    fn()
    start = time.perf_counter()
    fn()
    n = max(1, int(seconds / max(time.perf_counter() - start, 1e-6)))
    prof = Profiler(interval=0.0002)
    prof.start()
    for _ in range(n):
        fn()
    prof.stop()
    print(f"--- profile: spmd {label} ({n} calls) ---")
    print(prof.output_text(unicode=False, color=False, show_all=False))


def ready(f, *args):
    """The timed statement: ``f(*args)``, waited for (JAX dispatches asynchronously)."""
    return lambda: f(*args).block_until_ready()


def jax_note(python: str | None, how: str, results: dict) -> str:
    """Which JAX ran, and how loaded the machine was (times on a busy machine mean less)."""
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    where = f"{os.cpu_count()} cores, load average {load}"
    if python is None:
        return f"not found (skipped); {where}"
    return f"{results['jax']['version']} ({python}, from {how}); {where}"


def fmt_ratio(r: float) -> str:
    return f"{r:.3f}x" if r >= 0.01 else f"{r:.1e}x"


def fmt_time(seconds: float, unit: str) -> str:
    scale = {"ms": 1e3, "µs": 1e6}[unit]
    return f"{seconds * scale:.2f}" if seconds * scale < 100 else f"{seconds * scale:.1f}"


# ---------------------------------------------------------------------------------------------
# The cases


def seed_inputs():
    """Two float32 arrays of shape (8, 1_250_000, 3) from a fixed seed (the same in every
    process), as seed 001 reshapes its 10_000_000 x 3 vectors."""
    import numpy as np

    rng = np.random.default_rng(42)
    return [rng.standard_normal(SEED_SHAPE, dtype=np.float32) for _ in range(2)]


def tiny_inputs():
    import numpy as np

    rng = np.random.default_rng(0)
    return [rng.standard_normal(TINY_SHAPE).astype(np.float32) for _ in range(2)] + [
        rng.standard_normal(N_DEV).astype(np.float32)
    ]


def build(lib: str, groups: set[str]) -> tuple[dict, str]:
    """{case: zero-argument callable returning a ready result} for ``lib``, and its version."""
    import numpy as np

    out = {}
    if lib == "numpy":
        if "seed" in groups:
            a, b = seed_inputs()
            fn = lambda: np.einsum("dnk,dnk->dn", a, b)  # noqa: E731
            for g, case in CASES:
                if g == "seed":
                    out[case] = fn
        if "dispatch" in groups:
            x, y, v = tiny_inputs()
            plus = lambda: x + np.float32(1)  # noqa: E731
            dot = lambda: np.einsum("dk,dk->d", x, y)  # noqa: E731
            psum = lambda: v.reshape(N_DEV, 1).sum(0)  # noqa: E731
            floors = {"x+1": plus, "dot": dot, "psum": psum}
            for g, case in CASES:
                if g == "dispatch":
                    out[case] = next(f for k, f in floors.items() if f"({k})" in case)
        return out, np.__version__

    jax, jnp, lax, shard_map, P, NamedSharding, mesh, version = load(lib)

    def dot(v, u):
        return jnp.vdot(v, u)

    if "seed" in groups:
        a, b = seed_inputs()
        sharded = NamedSharding(mesh, P("x"))
        host = (jnp.asarray(a), jnp.asarray(b))
        placed = (jax.device_put(a, sharded), jax.device_put(b, sharded))
        del a, b
        dot_parallel = jax.pmap(jax.vmap(dot))
        dot_parallel_jit = jax.jit(dot_parallel)
        out["pmap(vmap(dot))"] = ready(dot_parallel, *host)
        out["jit(pmap(vmap(dot)))"] = ready(dot_parallel_jit, *host)
        out["pmap(vmap(dot)), sharded in"] = ready(dot_parallel, *placed)
        out["jit(pmap(vmap(dot))), sharded in"] = ready(dot_parallel_jit, *placed)
    if "dispatch" in groups:
        x, y, v = (jnp.asarray(t) for t in tiny_inputs())
        plus = jax.pmap(lambda x: x + 1)
        psum = shard_map(lambda x: lax.psum(x, "x"), mesh=mesh, in_specs=P("x"), out_specs=P())
        out["pmap(x+1) f32[8,3]"] = ready(plus, x)
        out["jit(pmap(x+1)) f32[8,3]"] = ready(jax.jit(plus), x)
        out["pmap(dot) 2x f32[8,3]"] = ready(jax.pmap(dot), x, y)
        out["jit(pmap(dot)) 2x f32[8,3]"] = ready(jax.jit(jax.pmap(dot)), x, y)
        out["pmap(jit(dot)) 2x f32[8,3]"] = ready(jax.pmap(jax.jit(dot)), x, y)
        out["shard_map(psum) f32[8]"] = ready(psum, v)
        out["jit(shard_map(psum)) f32[8]"] = ready(jax.jit(psum), v)
    return out, version


def measure_cases(build, cases, fast: str, lib, groups, repeat, min_time, clock) -> dict:
    """Per-call samples (seconds) of every case of ``groups`` in ``lib``, and checksums. Cases
    of group ``fast`` are timed in loops of ``min_time``; the others take milliseconds, and one
    call per sample is plenty."""
    fns, version = build(lib, groups)
    times, sums, done = {}, {}, {}
    for g, case in cases:
        if g not in groups:
            continue
        fn = fns[case]
        if id(fn) not in done:  # NumPy's floor is one function for several cases
            t = time_call(fn, repeat, min_time if g == fast else 0.0, clock)
            done[id(fn)] = (t, checksum(fn()))
        times[case], sums[case] = done[id(fn)]
    return {"lib": lib, "version": version, "times": times, "checksums": sums}


def measure(lib: str, groups: set[str], repeat: int, min_time: float, clock: str) -> dict:
    return measure_cases(build, CASES, "dispatch", lib, groups, repeat, min_time, clock)


# ---------------------------------------------------------------------------------------------
# Report


def report(results: dict, note: str, groups: set[str]) -> list[str]:
    """Print one table per group and one line per target; return the target lines."""
    from rich.console import Console
    from rich.table import Table

    spmd_r, jax_r, np_r = results["spmd"], results.get("jax"), results["numpy"]
    console = Console(width=130)
    lines = []
    for group, unit, title in (
        ("seed", "ms", "seed 001: pmap(vmap(vdot)) on 2x f32[8,1250000,3]"),
        ("dispatch", "µs", "pmap / shard_map dispatch on tiny inputs"),
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
        ratios = {}
        for g, case in CASES:
            if g != group:
                continue
            s = summarize(spmd_r["times"][case])
            n = summarize(np_r["times"][case])
            row = [case, _pair(n, unit), _pair(s, unit)]
            if jax_r is not None:
                j = summarize(jax_r["times"][case])
                ratios[case] = s["best"] / j["best"]
                row += [_pair(j, unit), fmt_ratio(ratios[case])]
            row.append(f"{s['best'] / n['best']:.2f}x")
            table.add_row(*row)
        console.print(table)
        if jax_r is None:
            lines.append(f"target ({group}): JAX not found: skipped")
            continue
        worst = max(ratios, key=ratios.get)
        limit = TARGETS[group]
        failing = [c for c, r in ratios.items() if r > limit]
        what = (
            "spmd no slower than JAX"
            if group == "seed"
            else f"spmd at least {1 / limit:.0f}x faster than JAX per call"
        )
        status = "MET" if ratios[worst] <= limit else "NOT MET"
        lines.append(
            f"target ({group}): {what}: {status} (worst spmd/JAX {ratios[worst]:.3f}x at "
            f"{worst!r}, limit {limit}x"
            + (f"; over the limit: {', '.join(failing)})" if failing else ")")
        )
    print(f"spmd {spmd_r['version']}, NumPy {np_r['version']}, JAX: {note}")
    if jax_r is not None:
        check_sums(spmd_r["checksums"], jax_r["checksums"])
    for line in lines:
        print(line)
    return lines


def _pair(r: dict[str, float], unit: str) -> str:
    return f"{fmt_time(r['best'], unit)} / {fmt_time(r['median'], unit)}"


def check_sums(spmd_sums: dict, jax_sums: dict, rtol: float = 1e-3) -> None:
    """Warn when spmd and JAX results differ (the cases would not be measuring one thing)."""
    for case, s in spmd_sums.items():
        j = jax_sums.get(case)
        if j is not None and abs(s - j) > rtol * max(1.0, abs(j)):
            print(f"WARNING: {case}: spmd result sums to {s!r}, JAX's to {j!r}")


def add_common_options(parser: argparse.ArgumentParser, rounds: int, repeat: int) -> None:
    parser.add_argument("--jax-python", help=f"interpreter with JAX (or set {ENV_JAX_PYTHON})")
    parser.add_argument("--rounds", type=int, default=rounds, help="rounds over all libraries")
    parser.add_argument(
        "--repeat", type=int, default=repeat, help="timed samples per case and round"
    )
    parser.add_argument(
        "--min-time", type=float, default=0.02, help="seconds per sample for fast cases"
    )
    parser.add_argument(
        "--clock", choices=sorted(CLOCKS), default="wall", help="elapsed or process CPU time"
    )
    parser.add_argument("--profile", action="store_true", help="pyinstrument the spmd cases")
    parser.add_argument("--worker", choices=["jax", "spmd", "numpy"], help=argparse.SUPPRESS)


def compare(file, args, groups, measure, report, build, cases) -> None:
    """Rounds alternating JAX (in a process of its own, run from ``file``), spmd and NumPy over
    the chosen case ``groups``; then the report, and with ``--profile`` spmd's profiles."""
    python, how = find_jax_python(args.jax_python)
    if python is None:
        print("JAX not found: skipped")
    worker_args = ["--repeat", str(args.repeat), "--min-time", str(args.min_time)]
    worker_args += ["--clock", args.clock, "--group", args.group]
    rounds: dict[str, list] = {"jax": [], "spmd": [], "numpy": []}
    for _ in range(args.rounds):
        # JAX first and in its own process: its thread pool is gone when spmd is timed.
        if python is not None:
            rounds["jax"].append(run_worker(file, python, worker_args))
        rounds["spmd"].append(measure("spmd", groups, args.repeat, args.min_time, args.clock))
        rounds["numpy"].append(measure("numpy", groups, args.repeat, args.min_time, args.clock))
    results = {lib: merge_rounds(r) if r else None for lib, r in rounds.items()}
    results["samples"] = args.rounds * args.repeat
    report(results, jax_note(python, how, results), groups)
    if args.profile:
        fns, _ = build("spmd", groups)
        for g, case in cases:
            if g in groups:
                profile_calls(case, fns[case])
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_common_options(parser, rounds=3, repeat=5)
    parser.add_argument(
        "--group", choices=["seed", "dispatch", "all"], default="all", help="cases to run"
    )
    args, _ = parser.parse_known_args(argv)
    groups = {"seed", "dispatch"} if args.group == "all" else {args.group}

    if args.worker:
        res = measure(args.worker, groups, args.repeat, args.min_time, args.clock)
        print(json.dumps(res))
        return

    compare(__file__, args, groups, measure, report, build, CASES)


if __name__ == "__main__":
    main()
