"""Eager operations on sharded arrays whose result shardings are compared with JAX's.

Each case: (name, mesh key from cases_sharding.MESHES, input shape, input spec, op name). The op
names map to functions in OPS, written against a `jnp` module so both sides run them.
"""

OPS = {
    "sin": lambda jnp, x: jnp.sin(x),
    "add_scalar": lambda jnp, x: x + 1.0,
    "mul_self": lambda jnp, x: x * x,
    "poly": lambda jnp, x: 2 * jnp.sin(x) + 1,
    "sum0": lambda jnp, x: x.sum(axis=0),
    "sum1": lambda jnp, x: x.sum(axis=1),
    "sum_all": lambda jnp, x: x.sum(),
    "max0": lambda jnp, x: x.max(axis=0),
    "min1": lambda jnp, x: x.min(axis=1),
    "argmax1": lambda jnp, x: jnp.argmax(x, axis=1),
    "exp_then_sum0": lambda jnp, x: jnp.exp(x).sum(axis=0),
}

CASES = []
for _spec in [("x", "y"), ("y", "x"), ("x",), (None, "y"), (("x", "y"),), ()]:
    for _op in OPS:
        _shape = (8, 8)
        CASES.append((f"2x4:{_spec}:{_op}", "2x4", _shape, _spec, _op))
for _spec in [("x",), ()]:
    for _op in ["sin", "poly", "sum0", "sum_all"]:
        CASES.append((f"8:{_spec}:{_op}", "8", (16,), _spec, _op))
