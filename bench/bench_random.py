"""spmd.random's samplers next to jax.random's: 100k float32 samples per call, eager and jitted.

Every sampler is called with a fixed key and fixed parameters (``make_cases``), eagerly
(``sampler(key, ...)``) and as ``jit(lambda key: sampler(key, ...))`` called again with the same
key, so only the cached path is timed. The table shows best / median milliseconds per call and
spmd/JAX ratios of the bests; spmd's results are also compared with JAX's (a digest of the
output bits per case, eager and jitted: spmd.random is meant to match JAX 0.10.2 bit for bit),
and a mismatch is flagged in the table. Note that JAX's own jitted samples can differ from its
eager ones in the last bits (XLA rewrites the larger fused program: gamma at a < 1, loggamma,
beta, t), and spmd computes what JAX's eager kernels compute, so "jit differs" there is XLA's.

JAX runs in a subprocess (this file with ``--worker jax``) under the interpreter given by
``--jax-python PATH`` or ``SPMD_BENCH_JAX_PYTHON``, else the current one if it can import jax.
``--only gamma,poisson5`` times a subset; ``--profile NAME`` prints a cProfile of the jitted
spmd call and the time per primitive of its compiled program instead of timing. This file must
stay importable without spmd: libraries are imported where they are used.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import time

from _common import ENV_JAX_PYTHON, find_jax_python, instrumented_program

N = 100_000


def make_cases(random, jnp):
    """name -> function of a key returning ~N samples (float32 unless the sampler is integer)."""
    f32 = jnp.float32
    n = N
    logits = jnp.linspace(-1.0, 1.0, 10, dtype=f32)
    p = jnp.ones(1000, f32) / 1000
    alpha4 = jnp.array([0.5, 1.0, 2.0, 4.0], f32)
    return {
        "bits": lambda k: random.bits(k, (n,)),
        "uniform": lambda k: random.uniform(k, (n,), f32),
        "normal": lambda k: random.normal(k, (n,), f32),
        "randint": lambda k: random.randint(k, (n,), 0, 100),
        "bernoulli": lambda k: random.bernoulli(k, 0.3, (n,)),
        "exponential": lambda k: random.exponential(k, (n,), f32),
        "laplace": lambda k: random.laplace(k, (n,), f32),
        "logistic": lambda k: random.logistic(k, (n,), f32),
        "gumbel": lambda k: random.gumbel(k, (n,), f32),
        "lognormal": lambda k: random.lognormal(k, 0.5, (n,), f32),
        "cauchy": lambda k: random.cauchy(k, (n,), f32),
        "weibull_min": lambda k: random.weibull_min(k, 1.0, 1.5, (n,), f32),
        "pareto": lambda k: random.pareto(k, 3.0, (n,), f32),
        "truncated_normal": lambda k: random.truncated_normal(k, -1.0, 2.0, (n,), f32),
        "gamma": lambda k: random.gamma(k, 2.0, (n,), f32),
        "gamma0.5": lambda k: random.gamma(k, 0.5, (n,), f32),
        "loggamma": lambda k: random.loggamma(k, 2.0, (n,), f32),
        "beta": lambda k: random.beta(k, 2.0, 3.0, (n,), f32),
        "dirichlet": lambda k: random.dirichlet(k, alpha4, (n // 4,), f32),
        "chisquare": lambda k: random.chisquare(k, 3.0, (n,), f32),
        "t": lambda k: random.t(k, 5.0, (n,), f32),
        "poisson5": lambda k: random.poisson(k, 5.0, (n,)),
        "poisson50": lambda k: random.poisson(k, 50.0, (n,)),
        "binomial": lambda k: random.binomial(k, 20.0, 0.3, (n,), f32),
        "categorical": lambda k: random.categorical(k, logits, shape=(n,)),
        "permutation": lambda k: random.permutation(k, n),
        "choice": lambda k: random.choice(k, 1000, (n,)),
        "choice_p": lambda k: random.choice(k, 1000, (n,), p=p),
    }


def _checksum(np, x) -> str:
    """A digest of the output's bits, to compare spmd's samples with JAX's."""
    import hashlib

    a = np.ascontiguousarray(np.asarray(x))
    return f"{a.dtype.name}{list(a.shape)}:{hashlib.sha1(a.tobytes()).hexdigest()[:12]}"


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def _time(fn, repeat: int, min_time: float, clock: str = "wall") -> list[float]:
    """Milliseconds per call of ``fn()``, ``repeat`` samples of at least ``min_time`` s each
    (one call when a call is slower than that); the first call is not timed. ``clock="cpu"``
    counts the process's CPU time (all its threads: JAX's thread pool too), which a busy
    machine inflates less than elapsed time."""
    now = CLOCKS[clock]
    fn()
    out = []
    for _ in range(repeat):
        number, start = 0, now()
        while True:
            fn()
            number += 1
            elapsed = now() - start
            if elapsed >= min_time:
                break
        out.append(elapsed / number * 1e3)
    return out


def _lib(lib: str):
    if lib == "jax":
        import jax
        import jax.numpy as jnp
        import jax.random as random
    else:
        import spmd as jax
        import spmd.numpy as jnp
        import spmd.random as random
    return jax, jnp, random


def measure(
    lib: str, only: list[str] | None, repeat: int, min_time: float, clock: str = "wall"
) -> dict:
    """Per case: eager and jit samples (ms per call) and the output's checksum."""
    import numpy as np

    jax, jnp, random = _lib(lib)
    key = random.PRNGKey(0)
    out: dict = {"lib": lib, "version": jax.__version__, "cases": {}}
    for name, fn in make_cases(random, jnp).items():
        if only and name not in only:
            continue
        jitted = jax.jit(fn)
        res = {"checksum": _checksum(np, fn(key))}
        for mode, f in (("eager", fn), ("jit", jitted)):
            res[mode] = _time(lambda f=f: jax.block_until_ready(f(key)), repeat, min_time, clock)
        res["checksum_jit"] = _checksum(np, jitted(key))
        out["cases"][name] = res
    return out


def run_worker(python: str, lib: str, args) -> dict:
    env = dict(os.environ)
    env.setdefault("JAX_PLATFORMS", "cpu")
    cmd = [python, os.path.abspath(__file__), "--worker", lib, "--repeat", str(args.repeat)]
    cmd += ["--min-time", str(args.min_time), "--clock", args.clock]
    cmd += ["--only", args.only] if args.only else []
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"the {lib} worker ({python}) failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------------
# Profile of one spmd case


def profile(name: str, calls: int = 3, top: int = 25) -> None:
    """cProfile of the jitted spmd call, then the time per primitive of its compiled program
    (one kernel call per line of the program's generated source, timed line by line)."""
    import cProfile
    import pstats

    import numpy as np

    jax, jnp, random = _lib("spmd")
    from spmd._src import dispatch

    fn = make_cases(random, jnp)[name]
    key = random.PRNGKey(0)
    jitted = jax.jit(fn)
    jitted(key)
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        jitted(key)
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(top)

    closed = jax.make_jaxpr(fn)(key)
    program = dispatch.compile_jaxpr(closed.jaxpr, closed.consts)
    run, spent, eqns = instrumented_program(program, time.perf_counter)
    args = [np.asarray(key)]  # a raw uint32 key: the program's one argument
    for _ in range(calls):
        dispatch.run_quietly(lambda: run(*args))
    rows = sorted(zip(spent, eqns), key=lambda r: -r[0])
    print(
        f"{name}: time per primitive of the compiled program (ms per call, {len(eqns)} kernel "
        "calls)"
    )
    for dt, eqn in rows[:top]:
        shapes = " ".join(f"{np.dtype(a.aval.dtype).name}{list(a.aval.shape)}" for a in eqn.invars)
        print(f"  {dt / calls * 1e3:8.2f} ms  {eqn.primitive.name} {shapes}")


# ---------------------------------------------------------------------------------------------
# Report


def report(spmd_r: dict, jax_r: dict | None, jax_note: str) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=f"ms per call for {N} samples (best / median); spmd/JAX of the bests",
        title_justify="left",
    )
    cols = ["sampler", "spmd eager", "spmd jit"]
    if jax_r:
        cols += ["JAX eager", "JAX jit", "eager ratio", "jit ratio", "bits"]
    for col in cols:
        table.add_column(col, justify="left" if col in ("sampler", "bits") else "right")

    def fmt(s):
        return f"{min(s):.2f} / {statistics.median(s):.2f}"

    for name, s in spmd_r["cases"].items():
        row = [name, fmt(s["eager"]), fmt(s["jit"])]
        j = jax_r["cases"].get(name) if jax_r else None
        if j is not None:
            row += [fmt(j["eager"]), fmt(j["jit"])]
            row += [f"{min(s['eager']) / min(j['eager']):.2f}x"]
            row += [f"{min(s['jit']) / min(j['jit']):.2f}x"]
            same = [s[c] == j[c] for c in ("checksum", "checksum_jit")]
            row.append({(True, True): "same", (False, False): "DIFFER"}.get(tuple(same), None))
            if row[-1] is None:
                row[-1] = "jit differs" if same[0] else "eager differs"
        table.add_row(*row)
    Console(width=140).print(table)
    print(f"spmd {spmd_r['version']}; JAX: {jax_note}; cores: {os.cpu_count()}, "
          f"load average: {os.getloadavg()[0]:.1f}")  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jax-python", help=f"interpreter with JAX (or set {ENV_JAX_PYTHON})")
    parser.add_argument("--repeat", type=int, default=3, help="timed samples per case")
    parser.add_argument("--min-time", type=float, default=0.05, help="seconds per sample")
    parser.add_argument("--only", help="comma-separated case names (default: all)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall", help="what to time")
    parser.add_argument("--no-jax", action="store_true", help="time spmd only")
    parser.add_argument("--profile", metavar="NAME", help="profile one spmd case, no timing")
    parser.add_argument("--worker", choices=["jax", "spmd"], help=argparse.SUPPRESS)
    args, _ = parser.parse_known_args(argv)
    only = args.only.split(",") if args.only else None

    if args.worker:
        print(json.dumps(measure(args.worker, only, args.repeat, args.min_time, args.clock)))
        return
    if args.profile:
        profile(args.profile)
        return
    python, how = find_jax_python(args.jax_python)
    jax_r, jax_note = None, "not installed (skipped)"
    if args.no_jax:
        python, jax_note = None, "skipped (--no-jax)"
    if python is not None:
        jax_r = run_worker(python, "jax", args)
        jax_note = f"{jax_r['version']} ({python}, from {how})"
    spmd_r = measure("spmd", only, args.repeat, args.min_time, args.clock)
    report(spmd_r, jax_r, f"{jax_note}; clock: {args.clock}")


if __name__ == "__main__":
    main()
