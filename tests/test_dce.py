"""Dead-code elimination inside higher-order primitives (partial_eval.dce_rules): a scan's dead
carries and unused stacked outputs, a call's unused inputs and outputs."""

from __future__ import annotations

import numpy as np

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd._src import core
from spmd._src.interpreters import partial_eval as pe
from spmd.sharding import NamedSharding, SingleDeviceSharding
from spmd.sharding import PartitionSpec as P


def _scan_eqn(jaxpr):
    (eqn,) = [e for e in jaxpr.eqns if e.primitive.name == "scan"]
    return eqn


def test_scan_drops_dead_carries_and_outputs():
    def f(x):
        # carry a feeds only itself and is never returned; carry b feeds the returned ys.
        def body(c, r):
            a, b = c
            return (a * 2 + r, b + r), (b, a)

        (_, _), (ys_b, _) = lax.scan(body, (jnp.zeros(3), jnp.ones(3)), x)
        return ys_b

    x = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    closed = spmd.make_jaxpr(f)(x)
    before = _scan_eqn(closed.jaxpr)
    assert before.params["num_carry"] == 2 and len(before.outvars) == 4
    dced, used = pe.dce_jaxpr_inputs(closed.jaxpr)
    after = _scan_eqn(dced)
    assert after.params["num_carry"] == 1 and len(after.outvars) == 2  # carry b and its ys
    assert used == [True]
    got = core.eval_jaxpr(dced, closed.consts, x)[0]
    np.testing.assert_array_equal(np.asarray(got), np.asarray(f(x)))
    # The compiled program is pruned the same way, and computes the same values.
    np.testing.assert_array_equal(np.asarray(spmd.jit(f)(x)), np.asarray(f(x)))


def test_live_carry_keeps_what_it_reads():
    # b's update reads a, so a stays although no output uses it directly.
    def f(x):
        def body(c, r):
            a, b = c
            return (a + r, b + a), b

        return lax.scan(body, (jnp.zeros(3), jnp.zeros(3)), x)[1]

    x = np.ones((4, 3), np.float32)
    closed = spmd.make_jaxpr(f)(x)
    dced, _ = pe.dce_jaxpr_inputs(closed.jaxpr)
    assert _scan_eqn(dced).params["num_carry"] == 2
    np.testing.assert_array_equal(np.asarray(spmd.jit(f)(x)), [[0] * 3, [0] * 3, [1] * 3, [3] * 3])


def test_call_drops_unused_inputs_and_outputs():
    inner = spmd.jit(lambda a, b: (a * 2, b + 1))
    closed = spmd.make_jaxpr(lambda x, y: inner(x, y)[0])(1.0, 2.0)
    dced, used = pe.dce_jaxpr_inputs(closed.jaxpr)
    (call,) = dced.eqns
    assert len(call.invars) == 1 and len(call.outvars) == 1
    assert len(call.params["jaxpr"].jaxpr.invars) == 1
    assert used == [True, False]


def test_argument_read_only_by_a_dead_carry_does_not_commit():
    # As in JAX 0.10: the scan's carry (the only reader of x) is dead, so x is pruned and
    # the program of constants runs uncommitted.
    mesh = spmd.make_mesh((2, 4), ("x", "y"))
    x = spmd.device_put(np.ones((8, 16), np.float32), NamedSharding(mesh, P(None, None)))
    f = spmd.jit(lambda x: lax.scan(lambda c, r: (c + r, jnp.zeros(16)), jnp.zeros(16), x)[1])
    out = f(x)
    assert isinstance(out.sharding, SingleDeviceSharding) and not out.committed
    g = spmd.jit(lambda x: lax.scan(lambda c, r: (c + r, c * r), jnp.zeros(16), x)[1])
    assert g(x).sharding == NamedSharding(mesh, P(None, None))
