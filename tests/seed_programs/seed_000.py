# Seed 000 (jax.pmap and jax.lax.all_gather), cell by cell, with the import swapped.
# Understand jax.lax.pmap
import os

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=8"
import numpy as np

import spmd as jax

# jax.pmap + jax.lax.all_gather
x = np.arange(4)


def f(x):
    return jax.lax.all_gather(x, "i")


def g(x):
    return jax.lax.all_gather(x, "i") + x


fy = jax.pmap(f, axis_name="i")(x)
print("-" * 80)
print(fy)

gy = jax.pmap(g, axis_name="i")(x)
print("-" * 80)
print(gy)

# jax.lax.all_gather(..., axis_index_groups=)
x = np.arange(16).reshape(4, 4)
print("x", "-" * 80)
print(x)


def f(x):
    return jax.lax.all_gather(x, "i") + x


def g(x):
    return jax.lax.all_gather(x, "i", axis_index_groups=[[0, 2], [3, 1]]) + x


fy = jax.pmap(f, axis_name="i")(x)
print("fy", "-" * 80)
print(fy)

gy = jax.pmap(g, axis_name="i")(x)
print("gy", "-" * 80)
print(gy)
