# Seed 003 (a pmap tutorial), the cells it shows, with the import swapped; the convolution
# cell's body is cut from the seed and written here as the tutorial it follows writes it.
import numpy as np

import spmd as jax
import spmd.numpy as jnp
from spmd import pmap

n_devices = jax.local_device_count()
xs = np.arange(5 * n_devices).reshape(-1, 5)
w = np.array([2.0, 3.0, 4.0])  # for convolving over the given metric
ws = np.stack([w] * n_devices)  # duplicating the same convolution kernel on 8 cores
print(repr((xs, ws)))


def convolve(w, x):
    output = []
    for i in range(1, len(x) - 1):
        output.append(jnp.dot(x[i - 1 : i + 2], w))
    return jnp.array(output)


print(repr(pmap(convolve)(ws, xs)))
print(repr(pmap(convolve, in_axes=(None, 0))(w, xs)))


# Data-parallel training: value_and_grad on each device's batch, gradients averaged with pmean.
def loss(params, x, y):
    w, b = params
    return jnp.mean((x @ w + b - y) ** 2)


def update(params, x, y):
    value, grads = jax.value_and_grad(loss)(params, x, y)
    grads = jax.lax.pmean(grads, axis_name="batch")
    value = jax.lax.pmean(value, axis_name="batch")
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * g, params, grads), value


step = pmap(update, axis_name="batch", in_axes=(None, 0, 0), out_axes=(None, None))
rng = np.random.default_rng(0)
xb = rng.normal(size=(n_devices, 16, 3)).astype(np.float32)
yb = (xb @ np.array([1.0, -2.0, 0.5], np.float32) + 0.3).astype(np.float32)
params = (jnp.zeros(3), jnp.zeros(()))
for i in range(5):
    params, value = step(params, xb, yb)
    print(i, f"{float(value):.6f}")
print(repr(params))
