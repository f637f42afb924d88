"""One training step of a multilayer perceptron in spmd, next to JAX and hand-written NumPy.

The model is a 784-512-512-10 ReLU network on a float32 batch of 1024, the loss a softmax
cross-entropy against one-hot labels, the update plain SGD. The spmd and JAX step is the same
program, ``jax.jit`` of ``value_and_grad`` followed by the update of the parameter pytree (a
list of ``{"W", "b"}`` dicts). The NumPy step writes the same math out by hand (``np.matmul``
forward and backward, float32 throughout): it is the floor spmd, which runs every primitive as
a NumPy kernel, can hope to reach.

Targets: the spmd step within 1.2x of the NumPy step, and no slower than JAX's. When a target is
not met (or with ``--profile``), the spmd step is profiled: time per primitive of its jaxpr, and
with ``--profile`` the functions cProfile finds most expensive.

Each library is timed in a process of its own (this file with ``--worker LIB``), in rounds that
alternate the libraries; JAX runs under the interpreter given by ``--jax-python PATH`` or
``SPMD_BENCH_JAX_PYTHON``, else the current one if it can import jax. ``--threads 1`` limits
BLAS and XLA to one thread each: on a busy machine multithreaded BLAS waits on descheduled
threads and its times mean little. This file must stay importable without spmd: libraries are
imported where they are used.
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

SIZES = (784, 512, 512, 10)
BATCH = 1024
LR = 0.01
from _common import ENV_JAX_PYTHON, find_jax_python, instrumented_program  # noqa: E402

# spmd step time / other step time at most this.
TARGETS = {"numpy": 1.2, "jax": 1.0}


# ---------------------------------------------------------------------------------------------
# The problem, the same numbers for every library


def make_inputs():
    """Parameters (a list of ``{"W", "b"}`` dicts), a batch of inputs and one-hot labels, as
    float32 NumPy arrays drawn from a fixed seed."""
    import numpy as np

    rng = np.random.default_rng(0)
    params = []
    for n_in, n_out in zip(SIZES[:-1], SIZES[1:]):
        w = rng.standard_normal((n_in, n_out)) * np.sqrt(2.0 / n_in)
        b = rng.standard_normal(n_out) * 0.01
        params.append({"W": w.astype(np.float32), "b": b.astype(np.float32)})
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    labels = rng.integers(0, SIZES[-1], BATCH)
    y = np.eye(SIZES[-1], dtype=np.float32)[labels]
    return params, x, y


def make_jax_step(jax, jnp):
    """The training step written against a JAX-like module pair (spmd or JAX), not jitted."""

    def loss_fn(params, x, y):
        *hidden, last = params
        for layer in hidden:
            x = jax.nn.relu(x @ layer["W"] + layer["b"])
        logits = x @ last["W"] + last["b"]
        return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(logits), axis=-1))

    def step(params, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        params = jax.tree_util.tree_map(lambda p, g: p - LR * g, params, grads)
        return params, loss

    return step


def numpy_step(params, x, y):
    """The same step by hand: forward, backward and update with np.matmul, float32."""
    import numpy as np

    # Forward, keeping what the backward pass needs.
    acts, pre = [x], []
    h = x
    for layer in params[:-1]:
        z = h @ layer["W"] + layer["b"]
        pre.append(z)
        h = np.maximum(z, np.float32(0))
        acts.append(h)
    logits = h @ params[-1]["W"] + params[-1]["b"]
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    loss = -(y * log_probs).sum(axis=-1).mean()

    # Backward: d loss / d logits = (softmax - y) / batch.
    dz = (np.exp(log_probs) - y) * np.float32(1.0 / len(x))
    new = [None] * len(params)
    for i in range(len(params) - 1, -1, -1):
        layer = params[i]
        dw = acts[i].T @ dz
        db = dz.sum(axis=0)
        if i > 0:
            dz = (dz @ layer["W"].T) * (pre[i - 1] > 0)
        new[i] = {"W": layer["W"] - np.float32(LR) * dw, "b": layer["b"] - np.float32(LR) * db}
    return new, loss


# ---------------------------------------------------------------------------------------------
# Timing


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def time_call(fn, repeat: int, min_time: float, clock: str = "wall") -> list[float]:
    """Milliseconds per call of ``fn()``, one sample per repeat, timeit style: the loop count
    is raised until one repeat takes ``min_time`` seconds (first call not timed).

    ``clock="cpu"`` counts the process's CPU time instead of elapsed time: with one thread per
    library, time spent waiting for a core on a busy machine is then left out."""
    timer = timeit.Timer(fn, timer=CLOCKS[clock])
    fn()
    number = 1
    while True:
        t = timer.timeit(number)
        if t >= min_time:
            break
        number = max(number * 2, int(number * 1.2 * min_time / max(t, 1e-9)))
    return [timer.timeit(number) / number * 1e3 for _ in range(repeat)]


def _setup(lib: str):
    """(step callable on ready inputs, inputs, library version, ops in the step's jaxpr)."""
    import numpy as np

    params, x, y = make_inputs()
    if lib == "numpy":
        return (lambda: numpy_step(params, x, y)), np.__version__, None
    if lib == "jax":
        import jax
        import jax.numpy as jnp
    elif lib == "spmd":
        import spmd as jax
        import spmd.numpy as jnp
    else:
        raise ValueError(f"measure: unknown library {lib!r}")
    step = make_jax_step(jax, jnp)
    params_d = jax.tree_util.tree_map(jnp.asarray, params)
    x_d, y_d = jnp.asarray(x), jnp.asarray(y)
    ops = len(jax.make_jaxpr(step)(params_d, x_d, y_d).eqns)
    step_jit = jax.jit(step)

    def run():
        # JAX dispatches asynchronously: wait, so both sides time finished work.
        out = step_jit(params_d, x_d, y_d)
        return jax.tree_util.tree_map(lambda a: a.block_until_ready(), out)

    return run, jax.__version__, ops


def measure(lib: str, repeat: int, min_time: float, clock: str = "wall") -> dict:
    """Time one step in ``lib`` ("spmd", "jax" or "numpy"); also return the step's loss and
    new parameters' checksum, so the libraries can be checked to compute the same thing."""
    import numpy as np

    run, version, ops = _setup(lib)
    new_params, loss = run()
    ms = time_call(run, repeat, min_time, clock)
    leaves = [np.asarray(p[k]) for p in new_params for k in ("W", "b")]
    return {
        "lib": lib,
        "version": version,
        "ops": ops,
        "ms": ms,
        # Counted after the timings, in the steady state they reached.
        "faults": page_faults_per_call(run),
        "loss": float(loss),
        "checksum": [float(np.abs(a).sum(dtype=np.float64)) for a in leaves],
    }


def page_faults_per_call(fn, calls: int = 10) -> float | None:
    """Minor page faults per call of ``fn()``: memory the step takes fresh from the operating
    system each time instead of reusing (None where getrusage is missing)."""
    try:
        import resource
    except ImportError:  # Windows
        return None
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(calls):
        fn()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / calls


def merge_rounds(rounds: list[dict]) -> dict:
    out = dict(rounds[0])
    out["ms"] = [s for r in rounds for s in r["ms"]]
    # Each round's best, to pair libraries round by round (see ``paired_ratios``).
    out["round_best"] = [min(r["ms"]) for r in rounds]
    return out


def paired_ratios(a: dict, b: dict) -> list[float]:
    """a's best over b's best, round by round. The machine's speed drifts (on a shared VM, by
    tens of percent over minutes); libraries timed in the same round saw about the same
    machine, so these ratios vary less than the bests over all rounds do."""
    return [x / y for x, y in zip(a.get("round_best", ()), b.get("round_best", ()))]


# ---------------------------------------------------------------------------------------------
# Workers: each library runs in a process of its own


def thread_env(threads: int | None) -> dict[str, str]:
    """Environment limiting BLAS (NumPy, so spmd) and XLA (JAX) to ``threads`` threads; empty
    for no limit. Set before the worker starts, as the libraries read it once, at import."""
    if not threads:
        return {}
    n = str(threads)
    env = {v: n for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    if threads == 1:
        env["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    return env


def run_worker(
    python: str, lib: str, repeat: int, min_time: float, threads: int | None, clock: str
) -> dict:
    """``measure(lib, ...)`` in a fresh process: no library's thread pool or caches outlive
    its turn, and thread limits apply from the start."""
    env = dict(os.environ, **thread_env(threads))
    env.setdefault("JAX_PLATFORMS", "cpu")  # no accelerator probing: its warnings are noise
    cmd = [python, os.path.abspath(__file__), "--worker", lib]
    cmd += ["--repeat", str(repeat), "--min-time", str(min_time), "--clock", clock]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise RuntimeError(
            f"the {lib} worker ({python}) failed with exit code {proc.returncode}:\n{proc.stderr}"
        )
    # The result is the last line; JAX may print warnings before it.
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------------------
# Profile of the spmd step


def profile_by_primitive(
    calls: int = 10, top: int = 15, clock: str = "wall", warmup: int = 20
) -> list[tuple[str, float, int]]:
    """Time each line of the program jit compiles for the spmd step (from spmd's dispatch
    internals: its generated source, one kernel call per line, after the compiler's rewrites and
    buffer reuse); print and return the primitives (with their operand shapes) that take the
    most time per step."""
    import numpy as np

    import spmd as jax
    import spmd.numpy as jnp
    from spmd._src import dispatch

    params, x, y = make_inputs()
    closed = jax.make_jaxpr(make_jax_step(jax, jnp))(params, x, y)
    program = dispatch.compile_jaxpr(closed.jaxpr, closed.consts)
    now = CLOCKS[clock]
    run, spent, eqns = instrumented_program(program, now)
    n = len(eqns)
    args = [np.asarray(a) for a in jax.tree_util.tree_leaves((params, x, y))]

    def once():
        return run(*args)

    # Warm up as the timings do: they measure the steady state (BLAS buffers, the allocator
    # settled), so the profile should too.
    for _ in range(warmup):
        dispatch.run_quietly(once)
    spent[:] = [0.0] * n
    for _ in range(calls):
        dispatch.run_quietly(once)
    totals: dict[str, list] = {}
    for eqn, dt in zip(eqns, spent):
        shapes = " ".join(f"{np.dtype(a.aval.dtype).name}{list(a.aval.shape)}" for a in eqn.invars)
        params_s = ""
        if eqn.primitive.name == "dot_general":
            (lc, rc), _ = eqn.params["dimension_numbers"]
            params_s = f"[contract {list(lc)}x{list(rc)}]"
        elif eqn.primitive.name in ("transpose", "convert_element_type"):
            params_s = "[" + ",".join(f"{k}={v}" for k, v in eqn.params.items()) + "]"
        entry = totals.setdefault(f"{eqn.primitive.name}{params_s} {shapes}", [0.0, 0])
        entry[0] += dt
        entry[1] += 1
    rows = sorted(((k, v[0] / calls * 1e3, v[1]) for k, v in totals.items()), key=lambda r: -r[1])
    total = sum(r[1] for r in rows)
    print(
        f"spmd step, time per primitive of its compiled program (ms per step; {n} kernel "
        f"calls, {total:.1f} ms):"
    )
    for name, ms, count in rows[:top]:
        print(f"  {ms:7.2f} ms {ms / total:5.1%}  x{count:<2d} {name}")
    return rows


def profile_cprofile(calls: int = 5, top: int = 20) -> None:
    """cProfile of ``calls`` jitted spmd steps, sorted by time spent in each function."""
    import cProfile
    import pstats

    run, _, _ = _setup("spmd")
    run()
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(calls):
        run()
    prof.disable()
    print(f"cProfile of {calls} jitted spmd steps (by time in the function itself):")
    pstats.Stats(prof, stream=sys.stdout).sort_stats("tottime").print_stats(top)


# ---------------------------------------------------------------------------------------------
# Report


def _best(r: dict) -> float:
    return min(r["ms"])


def report(results: dict, jax_note: str) -> list[str]:
    """Print the table and one line per target; return the target lines."""
    from rich.console import Console
    from rich.table import Table

    spmd_r, np_r, jax_r = results["spmd"], results["numpy"], results.get("jax")
    print(
        f"MLP {'-'.join(map(str, SIZES))}, batch {BATCH}, float32: one jitted SGD step "
        f"(value_and_grad + update), ms (best / median of {len(spmd_r['ms'])} samples)"
    )
    table = Table()
    for col in ("library", "ms per step", "spmd / this", "ops in jaxpr", "page faults", "loss"):
        table.add_column(col, justify="left" if col == "library" else "right")
    for r in (np_r, spmd_r, jax_r):
        if r is None:
            continue
        ms = f"{_best(r):.2f} / {statistics.median(r['ms']):.2f}"
        ratio = f"{_best(spmd_r) / _best(r):.2f}x"
        ops = "-" if r["ops"] is None else str(r["ops"])
        faults = "-" if r.get("faults") is None else f"{r['faults']:.0f}"
        table.add_row(f"{r['lib']} {r['version']}", ms, ratio, ops, faults, f"{r['loss']:.6f}")
    Console(width=120).print(table)
    print(f"JAX: {jax_note}")
    print("page faults: minor page faults per step (memory taken fresh from the OS, not reused)")

    # The libraries must agree on what they computed, or the timings mean nothing.
    for r in (jax_r, spmd_r):
        if r is None:
            continue
        rel = max(abs(a - b) / max(abs(b), 1e-30) for a, b in zip(r["checksum"], np_r["checksum"]))
        print(
            f"{r['lib']} vs NumPy: loss {r['loss']:.6f} vs {np_r['loss']:.6f}; "
            f"new parameters' abs-sums agree to {rel:.1e} (relative)"
        )

    lines = []
    for other, what in (
        ("numpy", "within 1.2x of hand-written NumPy"),
        ("jax", "no slower than JAX"),
    ):
        r = results.get(other)
        if r is None:
            lines.append(f"target: spmd step {what}: skipped (JAX not installed)")
            continue
        ratio = _best(spmd_r) / _best(r)
        status = "MET" if ratio <= TARGETS[other] else "NOT MET"
        lines.append(
            f"target: spmd step {what}: {status} (spmd/{other} {ratio:.2f}x, limit "
            f"{TARGETS[other]}x; best {_best(spmd_r):.2f} vs {_best(r):.2f} ms)"
        )
    for other in ("numpy", "jax"):
        pairs = paired_ratios(spmd_r, results[other]) if results.get(other) else []
        if len(pairs) > 1:
            print(
                f"round by round, spmd/{other}: median {statistics.median(pairs):.2f}x, "
                f"{min(pairs):.2f}x to {max(pairs):.2f}x over {len(pairs)} rounds"
            )
    for line in lines:
        print(line)
    return lines


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jax-python", help=f"interpreter with JAX (or set {ENV_JAX_PYTHON})")
    parser.add_argument("--rounds", type=int, default=3, help="rounds over all libraries")
    parser.add_argument("--repeat", type=int, default=5, help="timed repeats per round")
    parser.add_argument(
        "--min-time", type=float, default=0.25, help="seconds per repeat (sets the loop count)"
    )
    parser.add_argument(
        "--profile", action="store_true", help="always profile the spmd step (also cProfile)"
    )
    parser.add_argument(
        "--threads",
        type=int,
        help="limit BLAS and XLA to this many threads (1 gives steady numbers on a busy machine)",
    )
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="what to time: elapsed time, or CPU time (meaningful with --threads 1)",
    )
    parser.add_argument(
        "--worker", choices=["jax", "spmd", "numpy", "profile"], help=argparse.SUPPRESS
    )
    args, _ = parser.parse_known_args(argv)

    if args.worker == "profile":
        profile_by_primitive(clock=args.clock)
        if args.profile:
            print()
            profile_cprofile()
        return
    if args.worker:
        print(json.dumps(measure(args.worker, args.repeat, args.min_time, args.clock)))
        return

    python, how = find_jax_python(args.jax_python)
    # Rounds alternate the libraries, so a burst of load from elsewhere on the machine hits one
    # round of each rather than all of one library.
    rounds: dict[str, list] = {"jax": [], "spmd": [], "numpy": []}
    for _ in range(args.rounds):
        for lib in ("jax", "spmd", "numpy"):
            exe = python if lib == "jax" else sys.executable
            if exe is not None:
                rounds[lib].append(
                    run_worker(exe, lib, args.repeat, args.min_time, args.threads, args.clock)
                )
    results = {lib: merge_rounds(r) if r else None for lib, r in rounds.items()}
    if python is None:
        jax_note = "not installed (skipped)"
    else:
        jax_note = f"{results['jax']['version']} ({python}, from {how})"
    limit = f"{args.threads} thread(s) per library" if args.threads else "no thread limit"
    jax_note += f"; {limit}; {args.clock} clock"
    if args.clock == "cpu" and args.threads != 1:
        jax_note += " (CPU time of several threads: spinning threads count too)"
    lines = report(results, jax_note)
    if args.profile or any("NOT MET" in line for line in lines):
        # In a worker too, under the same thread limit as the timings.
        print(flush=True)
        cmd = [sys.executable, os.path.abspath(__file__), "--worker", "profile"]
        cmd += ["--clock", args.clock] + (["--profile"] if args.profile else [])
        env = dict(os.environ, **thread_env(args.threads))
        # The profile keeps every value of the step alive, so glibc's allocator never settles
        # and each kernel would pay for fresh pages; keep freed memory mapped instead, so the
        # kernels are measured as in the steady state the timings reach.
        env.setdefault("MALLOC_TRIM_THRESHOLD_", str(1 << 30))
        env.setdefault("MALLOC_MMAP_THRESHOLD_", str(1 << 30))
        subprocess.run(cmd, env=env, check=True)


if __name__ == "__main__":
    main()
