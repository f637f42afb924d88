"""A job of two processes with four devices each: spmd (MPI) next to JAX (gloo) and NumPy.

Cases, each a jitted call on arrays sharded over all eight devices (every process holding its
four devices' blocks), timed per call on every rank (best / median; rank 0's numbers shown):

- psum: ``shard_map`` of ``lax.psum`` over the device axis on f32[8, 65536] (256 KiB a device);
- all_gather: ``shard_map`` of a tiled ``all_gather`` of the same;
- dp step: one data-parallel SGD step of the digits MLP of ``examples/mlp_digits.py`` shape
  (64-128-128-10, batch 64, gradients averaged with ``pmean``), as in
  ``examples/multiprocess_training.py``.

NumPy floor: the same arithmetic on the whole arrays in one process (``np.sum`` of the eight
blocks; ``np.concatenate``; the step written out in NumPy is left out: the data-parallel example
compares the bits instead). JAX runs as two processes of the interpreter given by
``--jax-python PATH`` or ``SPMD_BENCH_JAX_PYTHON`` with ``jax.distributed.initialize`` over
loopback and ``jax_cpu_collectives_implementation='gloo'``; spmd runs under ``spmd run -n 2
--devices 4``. This file is also the worker (``--worker spmd|jax``); it must stay importable
without spmd and without JAX.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SAMPLES = 15


def _time(fn, samples):
    fn()  # compile, warm up
    ts = []
    for _ in range(samples):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return [ts[0] * 1e3, ts[len(ts) // 2] * 1e3]


def worker(kind: str, out: str, rank: int, port: str, samples: int) -> None:
    import numpy as np

    if kind == "jax":
        import jax

        jax.config.update("jax_cpu_collectives_implementation", "gloo")
        jax.distributed.initialize(f"127.0.0.1:{port}", num_processes=2, process_id=rank)
        import jax.numpy as jnp
        from jax import lax
    else:
        import spmd as jax
        import spmd.numpy as jnp
        from spmd import lax
    P = jax.sharding.PartitionSpec
    NamedSharding = jax.sharding.NamedSharding
    Auto = jax.sharding.AxisType.Auto
    me = jax.process_index()
    mesh = jax.make_mesh((8,), ("d",), axis_types=(Auto,))
    rows = NamedSharding(mesh, P("d"))
    local = np.random.default_rng(me).standard_normal((4, 65536)).astype(np.float32)
    x = jax.make_array_from_process_local_data(rows, local)
    psum = jax.jit(jax.shard_map(lambda b: lax.psum(b, "d"), mesh=mesh, in_specs=P("d"),
                                 out_specs=P()))  # fmt: skip
    # (all_gather's result varies over the axis by type; its values do not.)
    gather = jax.jit(jax.shard_map(lambda b: lax.all_gather(b, "d", tiled=True), mesh=mesh,
                                   in_specs=P("d"), out_specs=P(), check_vma=False))  # fmt: skip

    sizes = (64, 128, 128, 10)
    rng = np.random.default_rng(0)
    params = [
        (rng.standard_normal((a, b)).astype(np.float32) * 0.1, np.zeros(b, np.float32))
        for a, b in zip(sizes[:-1], sizes[1:])
    ]
    params = jax.device_put(params, NamedSharding(mesh, P()))
    xb = jax.make_array_from_process_local_data(
        rows, rng.standard_normal((32, 64)).astype(np.float32)
    )
    yb = jax.make_array_from_process_local_data(rows, rng.integers(0, 10, 32).astype(np.int32))

    def loss_fn(ps, x, y):
        h = x
        for w, b in ps[:-1]:
            h = jax.nn.relu(h @ w + b)
        logits = h @ ps[-1][0] + ps[-1][1]
        return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))

    def step(ps, x, y):
        loss, g = jax.value_and_grad(loss_fn)(ps, x, y)
        g = lax.pmean(g, "d")
        return jax.tree.map(lambda p, d: p - 0.1 * d, ps, g), lax.pmean(loss, "d")

    dp = jax.jit(jax.shard_map(step, mesh=mesh, in_specs=(P(), P("d"), P("d")),
                               out_specs=(P(), P())))  # fmt: skip
    res = {
        "psum": _time(lambda: psum(x).block_until_ready(), samples),
        "all_gather": _time(lambda: gather(x).block_until_ready(), samples),
        "dp step": _time(lambda: dp(params, xb, yb)[1].block_until_ready(), samples),
    }
    if me == 0:
        Path(out).write_text(json.dumps(res))


def numpy_floor(samples: int) -> dict:
    import numpy as np

    blocks = np.random.default_rng(0).standard_normal((8, 65536)).astype(np.float32)
    return {
        "psum": _time(lambda: np.sum(blocks, axis=0), samples),
        "all_gather": _time(lambda: np.concatenate(list(blocks)), samples),
        "dp step": None,
    }


def _free_port() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return str(s.getsockname()[1])


def run_jax(python: str, samples: int) -> dict | None:
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=4"}
    port = _free_port()
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp, "jax.json"))
        procs = [
            subprocess.Popen(
                [
                    python,
                    __file__,
                    "--worker",
                    "jax",
                    "--out",
                    out,
                    "--rank",
                    str(r),
                    "--port",
                    port,
                    "--samples",
                    str(samples),
                ],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )  # fmt: skip
            for r in range(2)
        ]
        errs = [p.communicate(timeout=600)[1] for p in procs]
        if any(p.returncode for p in procs):
            print("JAX workers failed:", errs[0][-2000:], errs[1][-2000:])
            return None
        return json.loads(Path(out).read_text())


def run_spmd(samples: int) -> dict | None:
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "SPMD_NUM_DEVICES")}
    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp, "spmd.json"))
        cmd = [sys.executable, "-m", "spmd", "run", "-n", "2", "--devices", "4", __file__,
               "--worker", "spmd", "--out", out, "--samples", str(samples)]  # fmt: skip
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd=ROOT)
        if p.returncode:
            print("spmd job failed:", p.stderr[-3000:])
            return None
        return json.loads(Path(out).read_text())


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jax-python", default=None)
    ap.add_argument("--samples", type=int, default=SAMPLES)
    ap.add_argument("--worker", choices=("spmd", "jax"))
    ap.add_argument("--out")
    ap.add_argument("--rank", type=int, default=0)
    ap.add_argument("--port", default="0")
    args, _ = ap.parse_known_args(argv)
    if args.worker:
        worker(args.worker, args.out, args.rank, args.port, args.samples)
        return
    sys.path.insert(0, str(HERE))
    from _common import find_jax_python

    jax_python, why = find_jax_python(args.jax_python)
    results = {"NumPy": numpy_floor(args.samples), "spmd": run_spmd(args.samples)}
    results["JAX"] = run_jax(jax_python, args.samples) if jax_python else None
    from rich.console import Console
    from rich.table import Table

    table = Table(title="2 processes x 4 devices; per call, ms (best / median), rank 0")
    for col in ("case", "NumPy", "spmd", "JAX", "spmd/JAX"):
        table.add_column(col, justify="right" if col != "case" else "left")

    def cell(r, case):
        v = (r or {}).get(case)
        return "-" if v is None else f"{v[0]:.3f} / {v[1]:.3f}"

    for case in ("psum", "all_gather", "dp step"):
        s, j = (results["spmd"] or {}).get(case), (results["JAX"] or {}).get(case)
        ratio = f"{s[0] / j[0]:.2f}x" if s and j else "-"
        table.add_row(case, cell(results["NumPy"], case), cell(results["spmd"], case),
                      cell(results["JAX"], case), ratio)  # fmt: skip
    Console().print(table)
    print(f"JAX: {jax_python or 'not found'} ({why}); spmd: MPI (MPICH), JAX: gloo over loopback")


if __name__ == "__main__":
    main()
