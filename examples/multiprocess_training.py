"""Data-parallel training of the digits MLP over several processes, as a JAX multi-process job.

Run it as one process, then as a job of two (each with half of the eight devices):

    python examples/multiprocess_training.py
    spmd run -n 2 --devices 4 examples/multiprocess_training.py

Every process loads the same data set and takes, from each batch, the rows of its own devices
(``jax.make_array_from_process_local_data``); the parameters are replicated over all devices.
One jitted ``shard_map`` step computes each device's gradient and averages them over the mesh
axis (``pmean``), which spans the processes: the average travels between them through MPI. The
last line, a hash of the trained parameters, is the same in both runs: the job of two processes
computes the one-process run's bits.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mlp_digits as mlp  # noqa: E402  (the model, its loss and the data loading)

import spmd as jax  # noqa: E402
from spmd import lax  # noqa: E402
from spmd.experimental import multihost_utils  # noqa: E402
from spmd.sharding import NamedSharding  # noqa: E402
from spmd.sharding import PartitionSpec as P  # noqa: E402


def make_step(mesh, lr):
    def step(params, x, labels):
        loss, grads = jax.value_and_grad(mlp.loss_fn)(params, x, labels)
        grads = lax.pmean(grads, "d")  # over every device of every process
        new = jax.tree.map(lambda p, g: p - lr * g, params, grads)
        return new, lax.pmean(loss, "d")

    return jax.jit(
        jax.shard_map(step, mesh=mesh, in_specs=(P(), P("d"), P("d")), out_specs=(P(), P()))
    )


def main(argv: list[str] | None = None) -> str:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args(argv)

    rank, n_procs = jax.process_index(), jax.process_count()
    mesh = jax.make_mesh((jax.device_count(),), ("d",))
    rows = NamedSharding(mesh, P("d"))
    (x_train, y_train), (x_test, y_test) = mlp.load_data(0)
    params = jax.device_put(mlp.init_params(jax.random.PRNGKey(0)), NamedSharding(mesh, P()))
    step = make_step(mesh, lr=0.1)
    # This process's rows of each batch: those of its devices (the mesh lists the processes'
    # devices in order, so a contiguous block).
    per = args.batch_size // n_procs
    mine = slice(rank * per, (rank + 1) * per)
    if rank == 0:
        print(f"{n_procs} process(es) x {jax.local_device_count()} devices; batch of "
              f"{args.batch_size}, {per} rows per process")  # fmt: skip
    for epoch in range(args.epochs):
        order = np.random.default_rng(epoch).permutation(len(x_train))
        losses = []
        for i in range(0, len(x_train) - args.batch_size + 1, args.batch_size):
            idx = order[i : i + args.batch_size][mine]
            xb = jax.make_array_from_process_local_data(rows, x_train[idx])
            yb = jax.make_array_from_process_local_data(rows, y_train[idx])
            params, loss = step(params, xb, yb)
            losses.append(float(loss))  # replicated: every process holds it
        if rank == 0:
            print(f"epoch {epoch + 1}: mean loss {np.mean(losses):.6f}", flush=True)
    final = jax.tree.map(np.asarray, params)  # replicated: every process holds it all
    acc = float(mlp.accuracy(final, x_test, y_test))
    digest = hashlib.sha256(
        b"".join(np.ascontiguousarray(p).tobytes() for p in jax.tree.leaves(final))
    ).hexdigest()[:16]
    multihost_utils.assert_equal(digest.encode() and np.frombuffer(digest.encode(), np.uint8))
    if rank == 0:
        print(f"test accuracy {acc:.2%}; parameters' hash {digest}", flush=True)
    return digest


if __name__ == "__main__":
    main()
