"""spmd.debug.print and spmd.debug.callback: eager, under jit, and once per device in device
order inside vmap, pmap and shard_map (JAX gives no order; spmd promises device order)."""

import numpy as np

import spmd
import spmd.numpy as jnp


def lines(capsys):
    return capsys.readouterr().out.splitlines()


def test_print_eager_and_jit(capsys):
    spmd.debug.print("x={x}", x=jnp.arange(3.0))
    spmd.jit(lambda x: spmd.debug.print("jit {} {y}", x, y=x * 2))(jnp.float32(1.5))
    assert lines(capsys) == ["x=[0. 1. 2.]", "jit 1.5 3.0"]


def test_print_runs_each_time_a_jitted_program_runs(capsys):
    f = spmd.jit(lambda x: (spmd.debug.print("run {}", x), x + 1)[1])
    f(1)
    f(2)
    assert lines(capsys) == ["run 1", "run 2"]


def test_print_per_element_under_vmap(capsys):
    spmd.vmap(lambda x: spmd.debug.print("v {}", x))(jnp.arange(3))
    assert lines(capsys) == ["v 0", "v 1", "v 2"]


def test_print_per_device_in_device_order_under_pmap(capsys):
    spmd.pmap(lambda x: spmd.debug.print("p {}", x))(jnp.arange(4))
    assert lines(capsys) == [f"p {i}" for i in range(4)]


def test_print_per_device_in_mesh_order_under_shard_map(capsys):
    mesh = spmd.make_mesh((2, 4), ("x", "y"))

    def body(a):
        spmd.debug.print("{} {} {}", spmd.lax.axis_index("x"), spmd.lax.axis_index("y"), a)
        return a

    f = spmd.shard_map(body, mesh=mesh, in_specs=spmd.P(("x", "y")), out_specs=spmd.P(("x", "y")))
    f(jnp.arange(8))
    spmd.jit(f)(jnp.arange(8))
    want = [f"{d // 4} {d % 4} [{d}]" for d in range(8)]
    assert lines(capsys) == want + want


def test_print_inside_control_flow_and_grad(capsys):
    spmd.jit(lambda x: spmd.lax.cond(x > 0, lambda: spmd.debug.print("pos {}", x), lambda: None))(
        1.0
    )
    g = spmd.grad(lambda x: (spmd.debug.print("g {}", x), x * x)[1])(3.0)
    assert float(g) == 6.0
    assert lines(capsys) == ["pos 1.0", "g 3.0"]


def test_callback_gets_values():
    seen = []
    spmd.jit(lambda x: spmd.debug.callback(lambda a, b=None: seen.append((a, b)), x, b=x + 1))(
        jnp.arange(2)
    )
    ((a, b),) = seen
    np.testing.assert_array_equal(np.asarray(a), [0, 1])
    np.testing.assert_array_equal(np.asarray(b), [1, 2])
