# Seed 001 (vmap against pmap), cell by cell at the notebook's sizes, with the import swapped.
# Cells that display a value print its repr; %timeit cells are timed to stderr.
import sys
import time

import spmd as jax
import spmd.numpy as jnp
from spmd import random


def timeit(label, fn, number=3):
    fn()
    t = time.perf_counter()
    for _ in range(number):
        fn()
    print(f"{label}: {(time.perf_counter() - t) / number * 1e3:.2f} ms per loop", file=sys.stderr)


def dot(v: jax.Array, u: jax.Array):
    return jnp.vdot(v, u)


print(repr(dot(jnp.ones(shape=(3,)), jnp.ones(shape=(3,)))))

# Compare vmap and pmap
arr = random.normal(random.PRNGKey(42), shape=(20_000_000, 3))
v = arr[:10_000_000, :]
u = arr[10_000_000:, :]
print((v.shape, u.shape))

dot_vmap = jax.vmap(dot)
res = dot_vmap(v, u)
print(res.shape)

dot_pmap = jax.pmap(dot)
try:
    res = dot_pmap(v, u)
except ValueError as e:
    print(f"\N{CROSS MARK}\N{POLICE CARS REVOLVING LIGHT}{e}".splitlines()[0])

v_parallel = v.reshape(jax.local_device_count(), -1, 3)
u_parallel = u.reshape(jax.local_device_count(), -1, 3)
print((v_parallel.shape, u_parallel.shape))
res = dot_pmap(v_parallel, u_parallel)
print(res.shape)
dot_parallel = jax.pmap(jax.vmap(dot))
res = dot_parallel(v_parallel, u_parallel)
print(res.shape)
print(isinstance(res, jax.Array), len(res.sharding.device_set))
timeit("pmap(vmap(dot))", lambda: dot_parallel(v_parallel, u_parallel).block_until_ready())
# The values agree with one dot over all rows, device by device.
print(f"{float(jnp.sum(res)):.2f} {float(jnp.sum(res_v := dot_vmap(v, u))):.2f}")
print(bool(jnp.allclose(res.reshape(-1)[:1000], res_v[:1000])))


def dot(v1, v2):
    return jnp.vdot(v1, v2)


rng_key = random.PRNGKey(42)
vs = random.normal(rng_key, shape=(16, 3))
v1s = vs[:8, :]
v2s = vs[8:, :]
print(repr(jax.vmap(dot)(v1s, v2s)))
print(repr(jax.pmap(dot)(v1s, v2s)))
dot_v = jax.jit(jax.vmap(dot))
x = dot_v(v1s, v2s)
dot_pjo = jax.jit(jax.pmap(dot))
x = dot_pjo(v1s, v2s)
dot_pji = jax.pmap(jax.jit(dot))
x = dot_pji(v1s, v2s)
dot_p = jax.pmap(dot)
x = dot_p(v1s, v2s)
for name, fn in (("dot_v", dot_v), ("dot_pjo", dot_pjo), ("dot_pji", dot_pji), ("dot_p", dot_p)):
    timeit(name, lambda fn=fn: fn(v1s, v2s).block_until_ready(), number=100)
print(jax.make_jaxpr(dot_v)(v1s, v2s))
