# Seed 002 (the lax.psum_scatter documentation's examples), with the import swapped.
import numpy as np

import spmd as jax

x = np.arange(16).reshape(4, 4)
print(x)
y = jax.pmap(lambda x: jax.lax.psum_scatter(x, "i"), axis_name="i")(x)
print(y)
y = jax.pmap(lambda x: jax.lax.psum_scatter(x, "i", tiled=True), axis_name="i")(x)
print(y)


def f(x):
    return jax.lax.psum_scatter(x, "i", axis_index_groups=[[0, 2], [3, 1]], tiled=True)


y = jax.pmap(f, axis_name="i")(x)
print(y)
