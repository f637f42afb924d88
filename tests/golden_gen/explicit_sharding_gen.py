"""Record what JAX 0.10 says along the lines of its explicit-sharding tutorial: ``typeof`` of
arrays and of values inside jit, grad and vmap, the errors of ambiguous contractions, and
``out_sharding=`` on jnp, einsum and random functions, with an Explicit 2x4 mesh set.

Run with the JAX oracle. ``program(ns, say)`` is shared with tests/test_explicit_sharding.py
(``ns`` holds ``jax``, ``jnp``, ``np``, ``P``, ``AxisType``, ``reshard``); recorded: the lines it
says, in order.
"""

from __future__ import annotations

import json
import os
from pathlib import Path


def program(ns, say) -> None:
    jax, jnp, np, P = ns.jax, ns.jnp, ns.np, ns.P
    mesh = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(ns.AxisType.Explicit,) * 2)
    with jax.set_mesh(mesh):
        replicated = np.arange(8).reshape(4, 2)
        sharded = jax.device_put(replicated, P("X", None))
        say(jax.typeof(replicated), jax.typeof(sharded))
        arg0 = jax.device_put(np.arange(4).reshape(4, 1), P("X", None))
        arg1 = jax.device_put(np.arange(8).reshape(1, 8), P(None, "Y"))

        @jax.jit
        def add_arrays(x, y):
            ans = x + y
            say("inside", jax.typeof(x), jax.typeof(y), jax.typeof(ans))
            return ans

        say("result", jax.typeof(add_arrays(arg0, arg1)))
        some_x = jax.device_put(np.arange(16).reshape(4, 4), P("X", None))
        some_y = jax.device_put(np.arange(16).reshape(4, 4), P(None, "X"))
        try:
            some_x @ some_y
        except Exception as e:  # noqa: BLE001 - the class is the golden value
            say("error", type(e).__name__)
        say(jax.typeof(jnp.matmul(some_x, some_y, out_sharding=P("X", None))))
        say(jax.typeof(ns.reshard(some_y, P(None, None))))

        @jax.jit
        def f(x, y):
            z = jnp.einsum("ij,jk->ik", x, y, out_sharding=P("X", None))
            w = z.reshape(16)
            say("einsum", jax.typeof(z), "reshape", jax.typeof(w))
            say("slices", jax.typeof(x[:2]), jax.typeof(x.T), jax.typeof(x.sum(0)))
            say("like", jax.typeof(jnp.zeros_like(x)), jax.typeof(jnp.full_like(x, 2)))
            say("concat", jax.typeof(jnp.concatenate([x, x], axis=1)))
            return w

        f(some_x, some_y)
        say(jax.typeof(jnp.zeros((8, 4), out_sharding=P("X", "Y"))))
        key = jax.random.key(0)
        say(jax.typeof(jax.random.normal(key, (8, 4), out_sharding=P("X"))))
        say(jax.typeof(jax.random.randint(key, (8, 4), 0, 5, out_sharding=P(None, "Y"))))

        @jax.jit
        def h(x):
            say("under grad", jax.typeof(x))
            return (x * x).sum()

        xf = jax.device_put(np.ones((4, 4), np.float32), P("X", None))
        say(jax.typeof(jax.grad(h)(xf)), jax.typeof(jax.vmap(lambda r: r * 2)(xf)))

        # Control flow: a scan's carry and slices, a cond's operands, typed inside.
        w = jax.device_put(np.ones((3, 8, 4), np.float32), P(None, "X", "Y"))

        def body(c, wi):
            out = c * wi
            say("scan", jax.typeof(c), jax.typeof(wi), jax.typeof(out))
            return out, out.sum(0)

        @jax.jit
        def loop(c0, w):
            c, ys = jax.lax.scan(body, c0, w)
            say("after scan", jax.typeof(c), jax.typeof(ys))
            r = jax.lax.cond(
                c.sum() > 0, lambda c: (say("cond", jax.typeof(c)), c * 2)[1], lambda c: c, c
            )
            return r

        say("loop", jax.typeof(loop(jax.device_put(np.ones((8, 4), np.float32), P("X", "Y")), w)))
        try:
            loop(jax.device_put(np.ones((8, 4), np.float32), P("X", None)), w)
        except TypeError as e:
            say("carry", str(e).split("\n")[2])

        # fori_loop and while_loop bodies, and a fori carry retyped by its body.
        @jax.jit
        def loops(x):
            def fbody(i, c):
                say("fori", jax.typeof(c))
                return c * 2

            r = jax.lax.fori_loop(0, 3, fbody, x)
            return jax.lax.while_loop(
                lambda c: (say("while cond", jax.typeof(c)), c.sum() < 100)[1], lambda c: c + 1, r
            )

        xs = jax.device_put(np.ones((8, 4), np.float32), P("X", "Y"))
        say("loops", jax.typeof(loops(xs)))
        try:
            jax.jit(lambda x: jax.lax.fori_loop(0, 3, lambda i, c: ns.reshard(c, P("X", None)), x))(
                xs
            )
        except TypeError as e:
            say("fori carry", str(e).split("\n")[2])

        # Results computed from closed-over placed arrays alone (the argument unused or
        # unplaced, or none) have those arrays' types and are placed so.
        say("closed", jax.typeof(jax.jit(lambda x: xs * 2)(1.0)))
        say("closed none", jax.jit(lambda: xs.sum())().sharding.spec)
        say("closed used", jax.jit(lambda x: xs.T * x)(2.0).sharding.spec)
        say("closed unused", jax.jit(lambda x: xs + 1)(arg0).sharding.spec)
        # Results of unplaced arguments are replicated on the mesh in context.
        say("unplaced", jax.jit(lambda x: x * 2)(np.ones((8, 4), np.float32)).sharding.spec)
        say("unplaced type", jax.typeof(jax.jit(lambda x: x.sum(0))(np.ones((8, 4)))))
    auto = jax.make_mesh((2, 4), ("X", "Y"), axis_types=(ns.AxisType.Auto,) * 2)
    with jax.set_mesh(auto):
        out = jax.jit(lambda x: x * 2)(np.ones((8, 4), np.float32))
        say("auto unplaced", out.sharding.spec, out.sharding.mesh.axis_types)


def main() -> None:
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    import types

    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import AxisType, reshard
    from jax.sharding import PartitionSpec as P

    lines = []
    ns = types.SimpleNamespace(jax=jax, jnp=jnp, np=np, P=P, AxisType=AxisType, reshard=reshard)
    program(ns, lambda *a: lines.append(" ".join(str(x) for x in a)))
    path = Path(__file__).resolve().parent.parent / "golden" / "explicit_sharding.json"
    path.write_text(json.dumps({"jax": jax.__version__, "lines": lines}, indent=1) + "\n")


if __name__ == "__main__":
    main()
