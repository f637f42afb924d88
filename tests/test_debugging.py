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


# Values that do not vary over the map. JAX 0.10 (the oracle): pmap and shard_map under jit
# print once per device; vmap, with or without axis_name, prints once.


def test_unvarying_print_once_per_device_under_pmap(capsys):
    spmd.pmap(lambda x: (spmd.debug.print("hi {}", 1.0), spmd.debug.print("c"), x)[2])(
        jnp.arange(4.0)
    )
    # Each print runs on every device (in device order) before the next one.
    assert lines(capsys) == ["hi 1.0"] * 4 + ["c"] * 4


def test_unvarying_print_once_per_device_under_shard_map_2d(capsys):
    mesh = spmd.make_mesh((2, 4), ("x", "y"))

    def body(a, b):
        spmd.debug.print("s {} {}", 2, b)
        return a

    f = spmd.shard_map(
        body, mesh=mesh, in_specs=(spmd.P(("x", "y")), spmd.P()), out_specs=spmd.P(("x", "y"))
    )
    f(jnp.arange(8.0), jnp.float32(7))
    assert lines(capsys) == ["s 2 7.0"] * 8


def test_unvarying_print_once_under_vmap(capsys):
    spmd.vmap(lambda x: (spmd.debug.print("c {}", 1.0), x)[1])(jnp.arange(3.0))
    spmd.vmap(lambda x: (spmd.debug.print("n"), x)[1], axis_name="i")(jnp.arange(3.0))
    spmd.vmap(lambda x, y: (spmd.debug.print("y {}", y), x)[1], in_axes=(0, None))(
        jnp.arange(3.0), 5.0
    )
    # Inside pmap, an unvarying print in a vmap happens once per device, not per vmap index.
    spmd.pmap(spmd.vmap(lambda x: (spmd.debug.print("vp"), x)[1]))(jnp.arange(8.0).reshape(4, 2))
    assert lines(capsys) == ["c 1.0", "n", "y 5.0"] + ["vp"] * 4


def test_print_in_nested_pmap_runs_row_major(capsys):
    lax = spmd.lax

    def inner(x):
        spmd.debug.print("{} {} {}", lax.axis_index("i"), lax.axis_index("j"), x)
        spmd.debug.print("same")
        return x

    f = spmd.pmap(spmd.pmap(inner, axis_name="j"), axis_name="i")
    f(jnp.arange(8.0).reshape(2, 4))
    want = [f"{d // 4} {d % 4} {float(d)}" for d in range(8)] + ["same"] * 8
    assert lines(capsys) == want
    # A vmap outside a pmap is the outer map: its index is major.
    spmd.vmap(spmd.pmap(lambda x: (spmd.debug.print("{}", x), x)[1]))(jnp.arange(6.0).reshape(3, 2))
    assert lines(capsys) == [str(float(i)) for i in range(6)]


def test_unvarying_print_per_device_at_run_time_under_jit(capsys):
    f = spmd.jit(spmd.pmap(lambda x: (spmd.debug.print("jp"), x)[1]))
    g = spmd.pmap(lambda x: (spmd.jit(lambda: spmd.debug.print("ji"))(), x)[1])
    mesh = spmd.make_mesh((2, 4), ("x", "y"))
    h = spmd.jit(
        spmd.shard_map(
            lambda a: (spmd.debug.print("sj"), a)[1],
            mesh=mesh,
            in_specs=spmd.P("x", "y"),
            out_specs=spmd.P("x", "y"),
        )
    )
    f(jnp.arange(3.0))
    f(jnp.arange(3.0))
    g(jnp.arange(2.0))
    h(jnp.zeros((2, 4)))
    assert lines(capsys) == ["jp"] * 6 + ["ji"] * 2 + ["sj"] * 8


def test_callback_with_unbatched_argument_under_pmap():
    seen = []

    def f(x, y):
        spmd.debug.callback(lambda a, b: seen.append((float(a), float(b))), x, y)
        spmd.debug.callback(lambda b: seen.append(float(b)), y)
        return x

    spmd.pmap(f, in_axes=(0, None))(jnp.arange(4.0), 5.0)
    assert seen == [(0.0, 5.0), (1.0, 5.0), (2.0, 5.0), (3.0, 5.0)] + [5.0] * 4


# Per-device control flow: each device runs only its own branch and its own loop iterations,
# so prints happen only there (sets of lines recorded from JAX 0.10 on the same programs;
# devices run concurrently in JAX, so only the set of lines is compared).
def _branchy_body(a):
    lax = spmd.lax
    i, j = lax.axis_index("x"), lax.axis_index("y")

    def inner_t(v):
        spmd.debug.print("inner true i={i} j={j}", i=i, j=j)
        return v + 1

    def t(v):
        spmd.debug.print("outer true i={i} j={j}", i=i, j=j)
        return lax.cond(j > 1, inner_t, lambda v: v, v)

    def f(v):
        def loop(c):
            spmd.debug.print("loop i={i} j={j} c={c}", i=i, j=j, c=c)
            return c + 1

        return v + lax.while_loop(lambda c: c < j, loop, 0)

    return lax.cond(i == 0, t, f, a)


def test_prints_only_on_devices_that_run_the_branch_or_iteration(capsys):
    from spmd.sharding import PartitionSpec as P

    mesh = spmd.make_mesh((2, 4), ("x", "y"))
    f = spmd.shard_map(_branchy_body, mesh=mesh, in_specs=P("x", "y"), out_specs=P("x", "y"))
    want = {f"outer true i=0 j={j}" for j in range(4)}
    want |= {"inner true i=0 j=2", "inner true i=0 j=3"}
    want |= {f"loop i=1 j={j} c={c}" for j in range(4) for c in range(j)}
    for run in (f, spmd.jit(f)):
        out = run(jnp.zeros((2, 4), jnp.int32))
        got = lines(capsys)
        assert sorted(got) == sorted(want) and len(got) == len(want)
        np.testing.assert_array_equal(np.asarray(out), [[0, 0, 1, 1], [0, 1, 2, 3]])


def test_prints_only_where_taken_under_pmap_but_everywhere_under_vmap(capsys):
    def body(a):
        def t(v):
            spmd.debug.print("true {v}", v=v)
            return v

        return spmd.lax.cond(a[0] > 1, t, lambda v: v, a)

    x = jnp.arange(4.0).reshape(4, 1)
    spmd.pmap(body)(x)
    assert sorted(lines(capsys)) == ["true [2.]", "true [3.]"]
    # vmap is not per device: like JAX, both branches run on the whole batch and print.
    spmd.vmap(body)(x)
    assert lines(capsys) == [f"true [{i}.]" for i in range(4)]


def test_prints_in_a_jitted_helper_follow_the_branch(capsys):
    from spmd.sharding import PartitionSpec as P

    @spmd.jit
    def helper(v, i):
        spmd.debug.print("helper i={i}", i=i)
        return v * 2

    def body(a):
        i = spmd.lax.axis_index("x")
        return spmd.lax.cond(i % 2 == 0, lambda v: helper(v, i), lambda v: v, a)

    mesh = spmd.make_mesh((4,), ("x",), devices=spmd.devices()[:4])
    f = spmd.jit(spmd.shard_map(body, mesh=mesh, in_specs=P("x"), out_specs=P("x")))
    out = f(jnp.arange(4.0))
    assert lines(capsys) == ["helper i=0", "helper i=2"]
    np.testing.assert_array_equal(np.asarray(out), [0.0, 1.0, 4.0, 3.0])


def test_callback_that_raises_eagerly_or_in_a_program():
    # jax 0.10.2: eager debug.callback raises the callback's own exception; in a jitted program
    # it stops the program with JaxRuntimeError.
    import pytest

    from spmd.errors import JaxRuntimeError

    def boom(x):
        raise ValueError("callback failed")

    with pytest.raises(ValueError, match="callback failed"):
        spmd.debug.callback(boom, jnp.ones(2))
    with pytest.raises(JaxRuntimeError, match="callback failed"):
        spmd.jit(lambda x: spmd.debug.callback(boom, x))(jnp.ones(2))
        spmd.effects_barrier()
