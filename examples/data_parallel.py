"""Data-parallel training of the digits MLP over 8 virtual devices, three ways.

Each step splits the batch over the devices; every device computes the gradient of its shard,
and the devices average their gradients (a ``pmean`` over the device axis) before the update.
With equal shards the average of the shard losses is the loss of the whole batch, so the
data-parallel runs follow the single-device run's loss curve (to float rounding):

- single device: ``jit(value_and_grad)`` on the whole batch;
- ``pmap``: parameters replicated, the batch reshaped to (devices, batch/devices, ...);
- ``shard_map`` over a 1-D mesh: the batch sharded ``P("d")``, parameters replicated ``P()``.

Run: ``python examples/data_parallel.py`` (``--epochs``, ``--no-progress``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mlp_digits as mlp  # noqa: E402  (the model, its loss and the data loading)

import spmd as jax  # noqa: E402
import spmd.numpy as jnp  # noqa: E402
from spmd import lax  # noqa: E402

N_DEVICES = 8


def sgd(params, grads, lr):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


def single_device_step(lr):
    @jax.jit
    def step(params, x, labels):
        loss, grads = jax.value_and_grad(mlp.loss_fn)(params, x, labels)
        return sgd(params, grads, lr), loss

    return step


def pmap_step(lr):
    def step(params, x, labels):
        loss, grads = jax.value_and_grad(mlp.loss_fn)(params, x, labels)
        # The mean over devices of the shard gradients: the gradient of the whole batch.
        grads = lax.pmean(grads, "devices")
        return sgd(params, grads, lr), lax.pmean(loss, "devices")

    return jax.pmap(step, axis_name="devices")


def shard_map_step(lr, mesh):
    def step(params, x, labels):
        loss, grads = jax.value_and_grad(mlp.loss_fn)(params, x, labels)
        grads = lax.pmean(grads, "d")
        return sgd(params, grads, lr), lax.pmean(loss, "d")

    sharded = jax.shard_map(
        step,
        mesh=mesh,
        in_specs=(jax.P(), jax.P("d"), jax.P("d")),
        out_specs=(jax.P(), jax.P()),
    )
    return jax.jit(sharded)


def batches(x, y, batch_size, epoch, seed):
    order = np.random.default_rng(seed + epoch).permutation(len(x))
    for i in range(0, len(x) - batch_size + 1, batch_size):
        idx = order[i : i + batch_size]
        yield x[idx], y[idx]


def train(
    epochs: int = 10, batch_size: int = 64, lr: float = 0.1, seed: int = 0, progress: bool = True
) -> dict:
    """Train three ways from the same initial parameters; returns their loss curves (the mean
    loss of each epoch) and test accuracies."""
    (x_train, y_train), (x_test, y_test) = mlp.load_data(seed)
    params0 = mlp.init_params(jax.random.PRNGKey(seed))
    mesh = jax.make_mesh((N_DEVICES,), ("d",))
    runs = {}
    for name in ("single device", "pmap", "shard_map"):
        params = params0
        if name == "pmap":
            params = jax.tree.map(lambda p: jnp.broadcast_to(p, (N_DEVICES, *p.shape)), params0)
            step = pmap_step(lr)
        elif name == "shard_map":
            step = shard_map_step(lr, mesh)
        else:
            step = single_device_step(lr)
        curve = []
        with mlp._progress_bar(progress, epochs) as bar:
            for epoch in range(epochs):
                losses = []
                for xb, yb in batches(x_train, y_train, batch_size, epoch, seed):
                    if name == "pmap":
                        xb = xb.reshape(N_DEVICES, -1, xb.shape[-1])
                        yb = yb.reshape(N_DEVICES, -1)
                    params, loss = step(params, xb, yb)
                    losses.append(float(loss[0] if name == "pmap" else loss))
                curve.append(float(np.mean(losses)))
                bar.advance(epoch + 1, curve[-1])
        final = jax.tree.map(lambda p: p[0], params) if name == "pmap" else params
        acc = float(mlp.accuracy(final, x_test, y_test))
        runs[name] = {"losses": curve, "test_accuracy": acc}
        if progress:
            print(f"{name:>13}: final loss {curve[-1]:.4f}, test accuracy {acc:.2%}")
    return runs


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    runs = train(epochs=args.epochs, progress=not args.no_progress)
    base = np.array(runs["single device"]["losses"])
    for name in ("pmap", "shard_map"):
        gap = float(np.max(np.abs(np.array(runs[name]["losses"]) - base) / base))
        print(f"{name} vs single device: largest relative difference of the loss curves {gap:.1e}")
    return runs


if __name__ == "__main__":
    main()
