"""Per-call overhead of spmd next to JAX and plain NumPy, on arrays small enough that the
kernels cost almost nothing and what is measured is dispatch.

Three cases, each on float32 arrays of shapes (), (8,) and (100,):

- eager: ``jnp.add(x, y)`` outside any transformation;
- jit: a jitted function of 10 elementwise primitives (counted with ``make_jaxpr``), called
  with the same argument types every time, so only the cached path is timed;
- NumPy: ``np.add`` and the same 10-op function on NumPy arrays, the floor for both.

JAX lives in its own virtualenv, so its side runs in a subprocess (this file, run with
``--worker jax``) under the interpreter given by ``--jax-python PATH`` or the environment
variable ``SPMD_BENCH_JAX_PYTHON``; without either, the current interpreter is used when it can
``import jax``. Run ``python bench/bench_dispatch.py --help`` for the options.

This file must stay importable without spmd (the JAX worker does not have it): the libraries
are imported inside the functions that use them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import timeit

SHAPES: list[tuple[int, ...]] = [(), (8,), (100,)]
from _common import ENV_JAX_PYTHON, find_jax_python  # noqa: E402

# The targets: spmd time / JAX time at most this, for every shape.
TARGETS = {"eager": 1.0, "jit": 1.5}


def make_f10(ns):
    """The jit case: 10 elementwise primitives written against a NumPy-like namespace ``ns``."""

    def f10(x, y):
        a = ns.sin(x) * y  # sin, mul
        b = ns.cos(a) + x  # cos, add
        c = ns.exp(-b) - y  # neg, exp, sub
        d = ns.tanh(c) * 2.0  # tanh, mul
        return d + 1.0  # add

    return f10


# ---------------------------------------------------------------------------------------------
# Timing


def time_call(fn, repeat: int, min_time: float) -> list[float]:
    """Microseconds per call of ``fn()``, one sample per repeat, timeit style.

    The loop count is raised until one repeat takes ``min_time`` seconds; then ``repeat``
    repeats are timed (with the garbage collector off, as ``timeit`` does).
    """
    timer = timeit.Timer(fn)
    fn()  # warm up: first-call work (tracing, caches) is not what is measured
    number = 1
    while True:
        t = timer.timeit(number)
        if t >= min_time:
            break
        # Aim a little past min_time so the next try usually ends the search.
        number = max(number * 2, int(number * 1.2 * min_time / max(t, 1e-9)))
    return [timer.timeit(number) / number * 1e6 for _ in range(repeat)]


def summarize(samples: list[float]) -> dict[str, float]:
    # Best is the figure compared against the targets: on a shared machine, noise only ever
    # adds time. The median shows how noisy the run was.
    return {"best": min(samples), "median": statistics.median(samples)}


def merge_rounds(rounds: list[dict]) -> dict:
    """One result per library from several rounds: the samples of each case pooled."""
    out = dict(rounds[0])
    for case in ("eager", "jit"):
        out[case] = {k: [s for r in rounds for s in r[case][k]] for k in rounds[0][case]}
    return out


def _shape_str(shape: tuple[int, ...]) -> str:
    return f"f32[{','.join(map(str, shape))}]"


def _bound(ready, fn, x, y):
    """The timed statement: ``ready(fn(x, y))``, the same closure for every library."""
    return lambda: ready(fn(x, y))


def measure(lib: str, repeat: int, min_time: float) -> dict:
    """Time the eager and jit cases in ``lib`` ("spmd", "jax" or "numpy"): per-call samples
    in microseconds, by case and shape."""
    import numpy as np

    if lib == "numpy":
        ns, asarray, jit, make_jaxpr, version = np, np.asarray, None, None, np.__version__

        def ready(x):
            return x
    else:
        if lib == "jax":
            import jax
            import jax.numpy as jnp
        elif lib == "spmd":
            import spmd as jax
            import spmd.numpy as jnp
        else:
            raise ValueError(f"measure: unknown library {lib!r}")
        ns, asarray, jit, make_jaxpr = jnp, jnp.asarray, jax.jit, jax.make_jaxpr
        version = jax.__version__

        def ready(x):
            # JAX dispatches asynchronously; waiting makes both sides measure finished work.
            return x.block_until_ready()

    rng = np.random.default_rng(0)
    f10 = make_f10(ns)
    f10_jit = jit(f10) if jit is not None else f10
    out: dict = {"lib": lib, "version": version, "eager": {}, "jit": {}, "ops": None}
    for shape in SHAPES:
        key = _shape_str(shape)
        x = asarray(rng.standard_normal(shape).astype(np.float32))
        y = asarray(rng.standard_normal(shape).astype(np.float32))
        out["eager"][key] = time_call(_bound(ready, ns.add, x, y), repeat, min_time)
        out["jit"][key] = time_call(_bound(ready, f10_jit, x, y), repeat, min_time)
        if make_jaxpr is not None and out["ops"] is None:
            out["ops"] = len(make_jaxpr(f10)(x, y).eqns)
    return out


# ---------------------------------------------------------------------------------------------
# The JAX side, in a subprocess


def run_jax_worker(python: str, repeat: int, min_time: float) -> dict:
    env = dict(os.environ)
    env.setdefault("JAX_PLATFORMS", "cpu")  # no accelerator probing: its warnings are noise
    cmd = [
        python,
        os.path.abspath(__file__),
        "--worker",
        "jax",
        "--repeat",
        str(repeat),
        "--min-time",
        str(min_time),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise RuntimeError(
            f"the JAX worker ({python}) failed with exit code {proc.returncode}:\n{proc.stderr}"
        )
    # The result is the last line; JAX may print warnings before it.
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------------
# Report


def _fmt_us(r: dict[str, float]) -> str:
    return f"{r['best']:.2f} / {r['median']:.2f}"


def _ratio(a: dict[str, float], b: dict[str, float]) -> float:
    return a["best"] / b["best"]


def report(results: dict[str, dict | None], jax_note: str) -> list[str]:
    """Print the table and one line per target; return the target lines."""
    from rich.console import Console
    from rich.table import Table

    spmd_r, jax_r, np_r = results["spmd"], results.get("jax"), results["numpy"]
    console = Console(width=120)
    ops = f"{spmd_r['ops']} ops in spmd" + (f", {jax_r['ops']} in JAX" if jax_r else "")
    table = Table(
        title=f"Per-call time, µs (best / median of {results['samples']} samples); "
        f"jit function: {ops}",
        title_justify="left",
    )
    cols = ("case", "NumPy", "spmd", "JAX", "spmd/JAX", "spmd/NumPy")
    if jax_r is None:
        cols = ("case", "NumPy", "spmd", "spmd/NumPy")
    for col in cols:
        table.add_column(col, justify="left" if col == "case" else "right")
    for case, label in (("eager", "eager jnp.add"), ("jit", "jit 10-op call")):
        for shape in SHAPES:
            key = _shape_str(shape)
            s = summarize(spmd_r[case][key])
            n = summarize(np_r[case][key])
            row = [f"{label} {key}", _fmt_us(n), _fmt_us(s)]
            if jax_r is not None:
                j = summarize(jax_r[case][key])
                row += [_fmt_us(j), f"{_ratio(s, j):.2f}x"]
            row.append(f"{_ratio(s, n):.1f}x")
            table.add_row(*row)
    console.print(table)
    print(f"spmd {spmd_r['version']}, NumPy {np_r['version']}, JAX: {jax_note}")

    lines = []
    if jax_r is None:
        lines.append("targets: JAX not installed: skipped (spmd vs NumPy only)")
    else:
        for case, limit, what in (
            ("eager", TARGETS["eager"], "eager dispatch no slower than JAX"),
            ("jit", TARGETS["jit"], f"jit call overhead within {TARGETS['jit']}x of JAX"),
        ):
            best_s = {k: min(v) for k, v in spmd_r[case].items()}
            best_j = {k: min(v) for k, v in jax_r[case].items()}
            worst_key = max(best_s, key=lambda k: best_s[k] / best_j[k])
            worst = best_s[worst_key] / best_j[worst_key]
            status = "MET" if worst <= limit else "NOT MET"
            detail = ", ".join(f"{k}: {best_s[k]:.1f} vs {best_j[k]:.1f} µs" for k in best_s)
            lines.append(
                f"target: {what}: {status} (worst spmd/JAX {worst:.2f}x at {worst_key}, "
                f"limit {limit}x; spmd vs JAX best: {detail})"
            )
    for line in lines:
        print(line)
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jax-python", help=f"interpreter with JAX (or set {ENV_JAX_PYTHON})")
    parser.add_argument("--rounds", type=int, default=3, help="rounds over all libraries")
    parser.add_argument("--repeat", type=int, default=5, help="timed repeats per case and round")
    parser.add_argument(
        "--min-time", type=float, default=0.02, help="seconds per repeat (sets the loop count)"
    )
    parser.add_argument("--worker", choices=["jax", "spmd", "numpy"], help=argparse.SUPPRESS)
    args, _ = parser.parse_known_args(argv)

    if args.worker:
        print(json.dumps(measure(args.worker, args.repeat, args.min_time)))
        return

    python, how = find_jax_python(args.jax_python)
    if python is None:
        print("JAX not installed: skipped")
        jax_note = "not installed (skipped)"
    # Rounds alternate the libraries, so a burst of load from elsewhere on the machine hits
    # one round of each rather than all of one library.
    rounds: dict[str, list] = {"jax": [], "spmd": [], "numpy": []}
    for _ in range(args.rounds):
        if python is not None:
            # JAX first and in its own process: its thread pool is gone when spmd is timed.
            rounds["jax"].append(run_jax_worker(python, args.repeat, args.min_time))
        rounds["spmd"].append(measure("spmd", args.repeat, args.min_time))
        rounds["numpy"].append(measure("numpy", args.repeat, args.min_time))
    results = {lib: merge_rounds(r) if r else None for lib, r in rounds.items()}
    results["samples"] = args.rounds * args.repeat
    if python is not None:
        jax_note = f"{results['jax']['version']} ({python}, from {how})"
    report(results, jax_note)


if __name__ == "__main__":
    main()
