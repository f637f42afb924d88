# Seed 004's "Comparing the three approaches" (cells 17-21): one layer written with jit, with
# sharding constraints and with shard_map, at the seed's sizes, with the import swapped. The
# mesh's axis is given as Auto: JAX 0.10's make_mesh defaults to Explicit, the seed's JAX to Auto.
from functools import partial

import numpy as np

import spmd as jax
import spmd.numpy as jnp
from spmd import shard_map
from spmd.sharding import PartitionSpec as P


@jax.jit
def layer(x, weights, bias):
    return jax.nn.sigmoid(x @ weights + bias)


rng = np.random.default_rng(0)

x = rng.normal(size=(32,))
weights = rng.normal(size=(32, 4))
bias = rng.normal(size=(4,))

out = layer(x, weights, bias)
print(repr(out))
print(out.sharding)

mesh = jax.make_mesh((8,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
sharding = jax.sharding.NamedSharding(mesh, P("x"))

x_sharded = jax.device_put(x, sharding)
weights_sharded = jax.device_put(weights, sharding)
print(x_sharded.sharding.spec, weights_sharded.sharding.spec)

out = layer(x_sharded, weights_sharded, bias)
print(repr(out))
print(out.sharding)


@jax.jit
def layer_auto(x, weights, bias):
    x = jax.lax.with_sharding_constraint(x, sharding)
    weights = jax.lax.with_sharding_constraint(weights, sharding)
    return layer(x, weights, bias)


out = layer_auto(x, weights, bias)  # pass in unsharded inputs
print(repr(out))
print(out.sharding)


@jax.jit
@partial(shard_map, mesh=mesh, in_specs=(P("x"), P("x", None), P(None)), out_specs=P(None))
def layer_sharded(x, weights, bias):
    return jax.nn.sigmoid(jax.lax.psum(x @ weights, "x") + bias)


out = layer_sharded(x, weights, bias)
print(repr(out))
print(out.sharding)
print(jnp.allclose(out, layer(x, weights, bias), atol=1e-6))
