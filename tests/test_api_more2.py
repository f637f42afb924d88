"""Transformation-related API of JAX 0.10 added after test_api_more.py: custom_batching
(custom_vmap, sequential_vmap), experimental.io_callback and the config context managers.

Expected values and messages were produced by JAX 0.10.2 (/work/jaxenv/bin/python) running the
same expressions with ``import jax, jax.numpy as jnp``; each is hard-coded next to its test.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd.custom_batching import custom_vmap, sequential_vmap

_LIN_ERR = "Linearization failed to produce known values for all output primals"


def _check(got, want, dtype="float32", weak=None, rtol=1e-6):
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=1e-7)
    if weak is not None:
        assert got.weak_type == weak


# ---------------------------------------------------------------------------------------------
# custom_vmap


def _make_f(log=None):
    # f computes sin(x) + y; its rule computes cos(x) + y, so which one ran shows in the values.
    @custom_vmap
    def f(x, y):
        return jnp.sin(x) + y

    @f.def_vmap
    def rule(axis_size, in_batched, xs, ys):
        if log is not None:
            log.append((axis_size, in_batched))
        return jnp.cos(xs) + ys, any(in_batched)

    return f


X = np.arange(3.0, dtype=np.float32)


def test_custom_vmap_eager_calls_function():
    log = []
    f = _make_f(log)
    # jax: f(1.0, 2.0) -> 2.841471 (the function; the rule does not run)
    _check(f(1.0, 2.0), 2.841471, weak=True)
    _check(f(x=1.0, y=2.0), 2.841471)
    assert log == []


def test_custom_vmap_rule_under_vmap_and_jit():
    log = []
    f = _make_f(log)
    # jax: vmap(f)(x, x) -> [1., 1.5403023, 1.5838531]; rule saw (3, [True, True])
    _check(spmd.vmap(f)(X, X), [1.0, 1.5403023, 1.5838531])
    assert log == [(3, [True, True])]
    # jax: vmap(f, (0, None))(x, 2.0) -> [3., 2.5403023, 1.5838531]; rule saw [True, False]
    _check(spmd.vmap(f, (0, None))(X, 2.0), [3.0, 2.5403023, 1.5838531])
    assert log[-1] == (3, [True, False])
    _check(spmd.jit(spmd.vmap(f))(X, X), [1.0, 1.5403023, 1.5838531])
    # in_axes=1 moves the batch axis in front before the rule sees it.
    # jax: vmap(f, (1, None))(ones((2, 3)), 1.0) -> 1.5403023 everywhere, shape (3, 2)
    out = spmd.vmap(f, (1, None))(jnp.ones((2, 3)), 1.0)
    _check(out, np.full((3, 2), 1.5403023))


def test_custom_vmap_nothing_batched_runs_function_once():
    log = []

    @custom_vmap
    def h(x, y):
        return x * y

    @h.def_vmap
    def rule(axis_size, in_batched, x, y):
        log.append(in_batched)
        return x * y, False

    # jax: vmap(h, (None, None), axis_size=3)(2., 3.) -> [6., 6., 6.], the rule not called
    _check(spmd.vmap(h, (None, None), axis_size=3)(2.0, 3.0), [6.0, 6.0, 6.0])
    assert log == []


def test_custom_vmap_nested_vmap():
    f = _make_f()
    # jax: vmap(vmap(f))(ones((2, 3)), ones((2, 3))) -> cos(1) + 1 everywhere
    _check(spmd.vmap(spmd.vmap(f))(jnp.ones((2, 3)), jnp.ones((2, 3))), np.full((2, 3), 1.5403023))
    # jax: vmap(vmap(f), (1, 0), out_axes=1)(arange(6.).reshape(2, 3), ones((3, 2)))
    out = spmd.vmap(spmd.vmap(f), (1, 0), out_axes=1)(
        jnp.arange(6.0).reshape(2, 3), jnp.ones((3, 2))
    )
    _check(out, [[2.0, 1.5403023, 0.5838531], [0.0100075, 0.3463564, 1.2836622]], rtol=2e-6)


def test_custom_vmap_pytree_arguments_and_outputs():
    seen = []

    @custom_vmap
    def g(p):
        return {"a": p[0] * 2, "b": p[1]}

    @g.def_vmap
    def rule(axis_size, in_batched, p):
        seen.append(in_batched)
        (ab, bb) = in_batched[0]
        return {"a": p[0] * 3, "b": p[1]}, {"a": ab, "b": bb}

    # jax: vmap(g, in_axes=((0, None),))((x, 1.0)) -> {'a': [0., 3., 6.], 'b': [1., 1., 1.]}
    out = spmd.vmap(g, in_axes=((0, None),))((X, 1.0))
    assert seen == [[(True, False)]]
    _check(out["a"], [0.0, 3.0, 6.0])
    _check(out["b"], [1.0, 1.0, 1.0], weak=True)


def test_custom_vmap_make_jaxpr_prints_as_jax():
    f = _make_f()

    def rule(axis_size, in_batched, xs, ys):
        return jnp.cos(xs) + ys, any(in_batched)

    f.def_vmap(rule)
    want = """{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = custom_vmap_call[
      call={ lambda ; d:f32[] e:f32[]. let
          f:f32[] = sin d
          g:f32[] = add f e
        in (g,) }
      in_tree=PyTreeDef(([], (*, *)))
      out_tree=PyTreeDef(*)
      rule=<function test_custom_vmap_make_jaxpr_prints_as_jax.<locals>.rule at 0xXXXXXXXXXXXX>
    ] a b
  in (c,) }"""
    assert str(spmd.make_jaxpr(f)(1.0, 2.0)) == want
    # Under vmap the rule's own operations are traced in its place.
    want = "{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = cos a; d:f32[3] = add c b in (d,) }"
    assert str(spmd.make_jaxpr(spmd.vmap(f))(X, X)) == want


def test_custom_vmap_closure_hoisted_and_jitted():
    def outer(a):
        @custom_vmap
        def g(b):
            return a * b

        @g.def_vmap
        def rule(n, ib, b):
            return a * b * 10, ib[0]

        return g(jnp.ones(3) * 2.0)

    # jax: jit(outer)(1.5) -> [3., 3., 3.]; the closed-over value is a leading operand
    _check(spmd.jit(outer)(1.5), [3.0, 3.0, 3.0])
    assert "in_tree=PyTreeDef(([*], (*,)))" in str(spmd.make_jaxpr(outer)(1.5))
    # jax: jvp(outer, (1.5,), (1.0,)) -> ([3., 3., 3.], [2., 2., 2.])
    p, t = spmd.jvp(outer, (1.5,), (1.0,))
    _check(p, [3.0, 3.0, 3.0])
    _check(t, [2.0, 2.0, 2.0])
    # A batched closed-over value cannot reach the rule (JAX: AssertionError as well).
    with pytest.raises(AssertionError, match="closes over a value that is batched"):
        spmd.vmap(outer)(X)


def test_custom_vmap_vmap_of_jit_with_closed_over_tracer():
    f = _make_f()

    def g(c, a):
        return f(a * c, c)

    # jax: vmap(jit(g), (None, 0))(2.0, x) -> [3., 1.5838531, 1.3463564]
    _check(spmd.vmap(spmd.jit(g), (None, 0))(2.0, X), [3.0, 1.5838531, 1.3463564])
    # jax: vmap(jit(g), (0, 0))(x, x) -> [1., 1.5403023, 1.3463564]
    _check(spmd.vmap(spmd.jit(g), (0, 0))(X, X), [1.0, 1.5403023, 1.3463564])


def test_custom_vmap_jvp_differentiates_function_and_rule():
    f = _make_f()
    # jax: jvp(f, (1., 2.), (1., 1.)) -> (2.841471, 1.5403023): the function's derivative
    p, t = spmd.jvp(f, (1.0, 2.0), (1.0, 1.0))
    _check(p, 2.841471, weak=True)
    _check(t, 1.5403023, weak=True)
    # jax: jacfwd(f)(1., 2.) -> -0.84147096: the rule's derivative (jacfwd vmaps the jvp)
    _check(spmd.jacfwd(f)(1.0, 2.0), -0.84147096, weak=True)
    # Under vmap the jvp runs the rule's jvp: tangent -sin(x) + 1.
    ones = jnp.ones(3)
    want_t = [1.0, 0.15852904, 0.09070259]
    for fn in (
        lambda: spmd.vmap(lambda a, b: spmd.jvp(f, (a, b), (jnp.ones_like(a), jnp.ones_like(b))))(
            X, X
        ),
        lambda: spmd.jvp(spmd.vmap(f), (X, X), (ones, ones)),
        lambda: spmd.jit(spmd.vmap(lambda a: spmd.jvp(f, (a, 2.0), (1.0, 1.0))))(X),
    ):
        p, t = fn()
        _check(t, want_t, rtol=2e-6)
    # jax: vmap(lambda t: jvp(f, (1., 2.), (t, 1.)))(x) -> primal 2.5403023, tangent
    # [1., 0.15852904, -0.6829419]: batched tangents of unbatched primals
    p, t = spmd.vmap(lambda s: spmd.jvp(f, (1.0, 2.0), (s, 1.0)))(X)
    _check(p, [2.5403023] * 3, weak=True)
    _check(t, [1.0, 0.15852904, -0.6829419], rtol=2e-6)
    # jax: jvp(f, (1., 2), (1., float0 zero)) -> (2.841471, 0.5403023)
    p, t = spmd.jvp(f, (1.0, 2), (1.0, np.zeros((), spmd.dtypes.float0)))
    _check(t, 0.5403023, weak=True)


def test_custom_vmap_jvp_make_jaxpr():
    f = _make_f()
    text = str(spmd.make_jaxpr(lambda a, b: spmd.jvp(f, (a, b), (1.0, 1.0)))(1.0, 2.0))
    assert "c:f32[] d:f32[] = custom_vmap_call[" in text
    assert "in_tree=PyTreeDef((([], (*, *)), ([], (*, *))))" in text
    assert "out_tree=PyTreeDef((*, *))" in text
    assert "rule=<function custom_vmap_jvp.<locals>.jvp_of_rule_rule at 0xXXXXXXXXXXXX>" in text
    assert "] a b 1.0:f32[] 1.0:f32[]" in text


def test_custom_vmap_reverse_mode_raises_as_jax():
    f = _make_f()
    for fn in (
        lambda: spmd.grad(f)(1.0, 2.0),
        lambda: spmd.grad(lambda y: f(1.0, y))(2.0),
        lambda: spmd.vjp(f, 1.0, 2.0),
        lambda: spmd.linearize(f, 1.0, 2.0),
        lambda: spmd.vmap(spmd.grad(f))(X, X),
    ):
        with pytest.raises(ValueError, match=_LIN_ERR):
            fn()
    # grad of vmap: the rule runs first, and its operations are differentiable.
    # jax: grad(lambda x: vmap(f)(x, x).sum())(x) -> [1., 0.15852904, 0.09070259]
    g = spmd.grad(lambda a: spmd.vmap(f)(a, a).sum())(X)
    _check(g, [1.0, 0.15852904, 0.09070259], rtol=2e-6)


def test_custom_vmap_runs_function_per_device():
    f = _make_f()
    # jax: pmap(lambda a: f(a, a))(arange(2.)) -> [0., 1.841471]: the function, not the rule
    _check(spmd.pmap(lambda a: f(a, a))(jnp.arange(2.0)), [0.0, 1.841471])


def test_custom_vmap_inside_scan_cond_remat_and_shard_map():
    f = _make_f()
    # jax: vmap over a scan whose body calls f: the rule runs on the batched body
    out = spmd.vmap(
        lambda a: spmd.lax.scan(lambda c, y: (c + f(y, a), None), 0.0, jnp.arange(2.0))[0]
    )(X)
    _check(out, [1.5403023, 3.5403023, 5.5403023])
    out = spmd.vmap(
        lambda a: spmd.lax.scan(lambda c, y: (c + f(a, y), None), 0.0, jnp.arange(2.0))[0]
    )(X)
    _check(out, [3.0, 2.0806046, 0.16770628], rtol=1e-5)
    # jax: vmap of cond with a batched predicate -> [2., 1., 0.5838531]
    out = spmd.vmap(lambda p, a: spmd.lax.cond(p, lambda a: f(a, 1.0), lambda a: a, a))(
        jnp.array([True, False, True]), X
    )
    _check(out, [2.0, 1.0, 0.5838531], rtol=2e-6)
    _check(spmd.vmap(spmd.checkpoint(lambda a: f(a, 1.0)))(X), [2.0, 1.5403023, 0.5838531])
    # shard_map: each device runs the function on its block (no batch for the rule)
    n = spmd.device_count()
    mesh = spmd.make_mesh((n,), ("i",))
    sm = spmd.shard_map(lambda a: f(a, a), mesh=mesh, in_specs=spmd.P("i"), out_specs=spmd.P("i"))
    a = jnp.arange(float(n))
    _check(spmd.jit(sm)(a), np.sin(np.arange(n, dtype=np.float32)) + np.arange(n), rtol=2e-6)


def test_custom_vmap_errors():
    # jax: AttributeError, whether or not a transformation is active
    msg = "No batching rule defined for custom_vmap function <lambda> using def_vmap."
    with pytest.raises(AttributeError, match=re.escape(msg)):
        custom_vmap(lambda x: x)(1.0)
    with pytest.raises(AttributeError, match=re.escape(msg)):
        spmd.vmap(custom_vmap(lambda x: x))(X)

    def with_rule(rule):
        h = custom_vmap(lambda x: x * 2)
        h.def_vmap(rule)
        return h

    def bad_spec(n, ib, x):
        return x * 3, (True,)

    msg = (
        "structure of output value and output batching specification returned by custom vmap "
        "rule (bad_spec) do not match.\nOutput values: PyTreeDef(*)\nBatching spec: "
        "PyTreeDef((*,))"
    )
    with pytest.raises(ValueError, match=re.escape(msg)):
        spmd.vmap(with_rule(bad_spec))(X)

    def bad_tree(n, ib, x):
        return (x * 3, x), (True, True)

    msg = (
        "structure of output returned by custom vmap rule (bad_tree) does not match that of "
        "original custom-vmapped function.\nOriginal output: PyTreeDef(*)\nRule output: "
        "PyTreeDef((*, *))"
    )
    with pytest.raises(ValueError, match=re.escape(msg)):
        spmd.vmap(with_rule(bad_tree))(X)
    # jax: ValueError (too many values to unpack) for a rule not returning a pair
    with pytest.raises(ValueError, match=r"must return a pair"):
        spmd.vmap(with_rule(lambda n, ib, x: x))(X)
    # jax: IndexError from deep inside; here a ValueError naming the output and sizes
    with pytest.raises(ValueError, match=r"output #0 is batched, but its shape \(\) does not"):
        spmd.vmap(with_rule(lambda n, ib, x: (x[0] * 3, True)))(X)
    # An output the rule declares unbatched is broadcast by vmap (JAX does the same).
    out = spmd.vmap(with_rule(lambda n, ib, x: (x * 3, False)))(X)
    _check(out, np.tile([0.0, 3.0, 6.0], (3, 1)))


def test_custom_vmap_decorator_keeps_function_name():
    f = _make_f()
    assert f.__name__ == "f"

    def rule(n, ib, x):
        return x, ib[0]

    assert custom_vmap(lambda x: x).def_vmap(rule) is rule


# ---------------------------------------------------------------------------------------------
# sequential_vmap


def test_sequential_vmap_calls_per_element():
    calls = []

    def body(x, y):
        calls.append(np.shape(x))
        return x * y

    s = sequential_vmap(body)
    # jax: vmap(s)(x, x) -> [0., 1., 4.]; vmap(s, (0, None))(x, 2.) -> [0., 2., 4.]
    _check(spmd.vmap(s)(X, X), [0.0, 1.0, 4.0])
    _check(spmd.vmap(s, (0, None))(X, 2.0), [0.0, 2.0, 4.0])
    _check(spmd.jit(spmd.vmap(s))(X, X), [0.0, 1.0, 4.0])
    # The body only ever sees one element.
    assert set(calls) == {()}
    # jax: vmap(vmap(s))(ones((2, 3)), ones((2, 3))) -> ones
    _check(spmd.vmap(spmd.vmap(s))(jnp.ones((2, 3)), jnp.ones((2, 3))), np.ones((2, 3)))
    # jax: vmap(sequential_vmap(lambda i, v: v[i]), (0, None))(array([2, 0]), x) -> [2., 0.]
    _check(spmd.vmap(sequential_vmap(lambda i, v: v[i]), (0, None))(jnp.array([2, 0]), X), [2, 0])


def test_sequential_vmap_jaxpr_and_jvp():
    s = sequential_vmap(lambda a: a + 1)
    want = """{ lambda ; a:f32[3]. let
    b:f32[3] = scan[
      jaxpr={ lambda ; c:f32[]. let
          d:f32[] = custom_vmap_call[
            call={ lambda ; e:f32[]. let f:f32[] = add e 1.0:f32[] in (f,) }
            in_tree=PyTreeDef(([], (*,)))
            out_tree=PyTreeDef(*)
            rule=<function sequential_vmap.<locals>.rule at 0xXXXXXXXXXXXX>
          ] c
        in (d,) }
      length=3
      num_carry=0
      num_consts=0
      reverse=False
      unroll=1
    ] a
  in (b,) }"""
    assert str(spmd.make_jaxpr(spmd.vmap(s))(X)) == want
    # jax: jvp(sequential_vmap(lambda x, y: x * y), (1., 2.), (1., 1.)) -> (2., 3.)
    p, t = spmd.jvp(sequential_vmap(lambda x, y: x * y), (1.0, 2.0), (1.0, 1.0))
    _check(p, 2.0, weak=True)
    _check(t, 3.0, weak=True)
    # jax: jvp(vmap(sequential_vmap(sin)), (x,), (ones(3),)) -> (sin x, cos x)
    p, t = spmd.jvp(spmd.vmap(sequential_vmap(jnp.sin)), (X,), (jnp.ones(3),))
    _check(p, np.sin(X), rtol=2e-6)
    _check(t, np.cos(X), rtol=2e-6)
    # jax: grad of a vmapped sequential_vmap raises the linearization ValueError
    with pytest.raises(ValueError, match=_LIN_ERR):
        spmd.grad(lambda a: spmd.vmap(sequential_vmap(jnp.sin))(a).sum())(X)


# ---------------------------------------------------------------------------------------------
# experimental.io_callback

from spmd.experimental import io_callback  # noqa: E402

_SDS = spmd.ShapeDtypeStruct((), np.float32)


def _logging_cb(log):
    def cb(x):
        log.append(float(np.asarray(x)))
        return np.asarray(x) * 2

    return cb


def test_io_callback_eager_jit_and_kwargs():
    log = []
    cb = _logging_cb(log)
    # jax: io_callback(cb, sds, 1.0) -> Array(2.), jit -> Array(4.) for 2.0
    _check(io_callback(cb, _SDS, 1.0), 2.0)
    f = spmd.jit(lambda x: io_callback(cb, _SDS, x))
    _check(f(2.0), 4.0)
    _check(f(2.0), 4.0)
    assert log == [1.0, 2.0, 2.0]
    # jax: io_callback(lambda x, y: x + y, sds, 1.0, y=2.0) -> 3.; None results -> None
    _check(io_callback(lambda x, y: x + y, _SDS, 1.0, y=2.0), 3.0)
    assert io_callback(lambda x: None, None, 1.0) is None
    out = io_callback(lambda x: (x, {"a": x}), (_SDS, {"a": _SDS}), 1.0)
    _check(out[0], 1.0)
    _check(out[1]["a"], 1.0)
    # jax: eval_shape does not call it
    assert spmd.eval_shape(lambda x: io_callback(cb, _SDS, x), 1.0).shape == ()
    assert len(log) == 3


def test_io_callback_not_dead_code():
    log = []
    cb = _logging_cb(log)

    def dead(x):
        io_callback(cb, _SDS, x)
        return x + 1

    # jax: jit(dead)(3.0) -> 4.0, the callback called with 3.0 (ordered or not)
    _check(spmd.jit(dead)(3.0), 4.0, weak=True)
    assert log == [3.0]
    text = str(spmd.make_jaxpr(dead)(1.0))
    assert "_:f32[] = io_callback[" in text
    # Inside a jit differentiated with respect to something else, the call is kept too.
    # jax: grad(lambda x: jit(lambda y: (io_callback(cb, None, 2.0), y * 2)[1])(x))(1.0): the
    # callback runs (with 2.0) and then fails for returning a result when none was declared.
    log.clear()
    with pytest.raises(spmd.errors.JaxRuntimeError, match="Mismatched number of outputs"):
        spmd.grad(lambda x: spmd.jit(lambda y: (io_callback(cb, None, 2.0), y * 2)[1])(x))(1.0)
    assert log == [2.0]


def test_io_callback_ordered_calls_in_program_order():
    order = []

    def rec(i):
        def f(x):
            order.append(i)

        return f

    def prog(x):
        for i in range(5):
            io_callback(rec(i), None, x, ordered=True)
        return x

    spmd.jit(prog)(1.0)
    assert order == [0, 1, 2, 3, 4]
    # jax: jit(scan with c + io_callback(cb, sds, x, ordered=True))(arange(3.)) -> 6.
    log = []
    cb = _logging_cb(log)
    out = spmd.jit(
        lambda xs: spmd.lax.scan(
            lambda c, x: (c + io_callback(cb, _SDS, x, ordered=True), None), 0.0, xs
        )[0]
    )(jnp.arange(3.0))
    _check(out, 6.0)
    assert log == [0.0, 1.0, 2.0]


def test_io_callback_make_jaxpr_prints_as_jax():
    def cb(x):
        return x

    text = str(spmd.make_jaxpr(lambda x: io_callback(cb, _SDS, x, ordered=True))(1.0))
    want = """{ lambda ; a:f32[]. let
    b:f32[] = io_callback[
      callback=_FlatCallback(callback_func=<function test_io_callback_make_jaxpr_prints_as_jax.<locals>.cb at 0xXXXXXXXXXXXX>, in_tree=PyTreeDef(((*,), {})))
      ordered=True
      result_avals=(ShapedArray(float32[]),)
      sharding=None
    ] a
  in (b,) }"""  # noqa: E501
    assert text == want


def test_io_callback_vmap():
    log = []
    cb = _logging_cb(log)
    # jax: vmap(lambda x: io_callback(cb, sds, x))(arange(3.)) -> [0., 2., 4.], one call each
    _check(spmd.vmap(lambda x: io_callback(cb, _SDS, x))(jnp.arange(3.0)), [0.0, 2.0, 4.0])
    assert log == [0.0, 1.0, 2.0]
    text = str(spmd.make_jaxpr(spmd.vmap(lambda x: io_callback(cb, _SDS, x)))(jnp.arange(3.0)))
    assert text.startswith("{ lambda ; a:f32[3]. let\n    b:f32[3] = scan[")
    # Unbatched arguments: one call (jax: the same), ordered or not.
    log.clear()
    for ordered in (False, True):
        out = spmd.vmap(lambda x, o=ordered: x + io_callback(cb, _SDS, 1.0, ordered=o))(
            jnp.arange(4.0)
        )
        _check(out, [2.0, 3.0, 4.0, 5.0])
    assert log == [1.0, 1.0]
    # jax: ValueError for an ordered call with batched arguments
    with pytest.raises(ValueError, match=re.escape("Cannot `vmap` ordered IO callback.")):
        spmd.vmap(lambda x: io_callback(cb, _SDS, x, ordered=True))(jnp.arange(3.0))
    # jax: vmap of cond / while_loop with a batched predicate and io_callback inside raise
    with pytest.raises(NotImplementedError, match="IO effect not supported in vmap-of-cond."):
        spmd.vmap(
            lambda p, x: spmd.lax.cond(p, lambda x: io_callback(cb, _SDS, x), lambda x: x, x)
        )(jnp.array([True, False, True]), jnp.arange(3.0))
    with pytest.raises(Exception, match="Unordered IO effects not supported in while_loop"):
        spmd.vmap(
            lambda x: spmd.lax.while_loop(
                lambda c: c < 3, lambda c: c + io_callback(lambda v: np.float32(1), _SDS, c), x
            )
        )(jnp.arange(3.0))


def test_io_callback_per_device():
    log = []
    cb = _logging_cb(log)
    n = min(spmd.device_count(), 4)
    # jax: pmap(lambda x: io_callback(cb, sds, x, ordered=True))(arange(4.)) -> [0, 2, 4, 6],
    # called once per device in device order; an unvarying argument: still once per device
    out = spmd.pmap(lambda x: io_callback(cb, _SDS, x, ordered=True))(jnp.arange(float(n)))
    _check(out, 2.0 * np.arange(n))
    assert log == list(map(float, range(n)))
    log.clear()
    spmd.pmap(lambda x: x + io_callback(cb, _SDS, 1.0))(jnp.arange(float(n)))
    assert log == [1.0] * n


def test_io_callback_errors():
    cb = _logging_cb([])
    # jax: ValueError "IO callbacks do not support JVP." for grad and jvp, and for a call on
    # a value being differentiated even when its result is unused
    for fn in (
        lambda: spmd.grad(lambda x: io_callback(cb, _SDS, x))(1.0),
        lambda: spmd.jvp(lambda x: io_callback(cb, _SDS, x), (1.0,), (1.0,)),
        lambda: spmd.grad(lambda x: (io_callback(cb, None, x), x * 2)[1])(1.0),
    ):
        with pytest.raises(ValueError, match=re.escape("IO callbacks do not support JVP.")):
            fn()
    # jax: a call on constants only is fine: grad(lambda x: io_callback(cb, sds, 2.0) * x)(1.)
    _check(spmd.grad(lambda x: io_callback(cb, _SDS, 2.0) * x)(1.0), 4.0, weak=True)
    # jax: JaxRuntimeError for results of the wrong shape or dtype
    with pytest.raises(spmd.errors.JaxRuntimeError, match=r"Expected: \(\), Actual: \(2,\)"):
        io_callback(lambda x: np.ones(2, np.float32), _SDS, 1.0)
    with pytest.raises(spmd.errors.JaxRuntimeError, match="Expected: float32, Actual: int32"):
        spmd.jit(lambda x: io_callback(lambda x: np.ones((), np.int32), _SDS, x))(1.0)
    # jax: TypeError naming the position of an argument that is not an array
    msg = (
        "Error interpreting argument to io_callback as a JAX value. The problematic value is "
        "of type <class 'str'> and was passed to io_callback at position 0."
    )
    with pytest.raises(TypeError, match=re.escape(msg)):
        io_callback(cb, _SDS, "a")


# ---------------------------------------------------------------------------------------------
# Config options as context managers

_RANK_DOC = "https://docs.jax.dev/en/latest/rank_promotion_warning.html"


def test_enable_x64_context_nests_and_restores():
    # jax: float64 inside, float32 in a nested enable_x64(False), float64 again, then float32
    assert spmd.enable_x64.value is False
    with spmd.enable_x64(True):
        assert jnp.ones(3).dtype == np.float64
        assert spmd.config.jax_enable_x64 is True
        with spmd.enable_x64(False):
            assert jnp.ones(3).dtype == np.float32
        assert jnp.ones(3).dtype == np.float64
    assert jnp.ones(3).dtype == np.float32
    # Restored on the way out of an exception too.
    with pytest.raises(KeyError):
        with spmd.enable_x64(True):
            raise KeyError
    assert spmd.config.jax_enable_x64 is False
    # jax: a decorator as well; truthy values are True; None is the value outside every block
    assert spmd.enable_x64(True)(lambda: jnp.ones(1).dtype)() == np.float64
    with spmd.enable_x64(3):
        assert spmd.config.jax_enable_x64 is True
        with spmd.enable_x64(None):
            assert spmd.config.jax_enable_x64 is False
    with spmd.enable_x64(None):
        assert spmd.config.jax_enable_x64 is False
    # jit retraces per value: the same function gives both dtypes.
    f = spmd.jit(lambda x: x * 1.5)
    with spmd.enable_x64(True):
        assert f(np.float64(1.0)).dtype == np.float64
    assert f(np.float64(1.0)).dtype == np.float32


def test_rank_promotion_context():
    a, b = jnp.ones(3), jnp.ones((2, 3))
    msg = (
        "Operands could not be broadcast together for add on shapes (3,) (2, 3) and with the "
        f"config option jax_numpy_rank_promotion='raise'. For more information, see {_RANK_DOC}."
    )
    with spmd.numpy_rank_promotion("raise"):
        assert spmd.numpy_rank_promotion.value == "raise"
        with pytest.raises(ValueError, match=re.escape(msg)):
            a + b
        with spmd.numpy_rank_promotion("allow"):
            assert (a + b).shape == (2, 3)
    msg = (
        "Following NumPy automatic rank promotion for add on shapes (3,) (2, 3). Set the "
        "jax_numpy_rank_promotion config option to 'allow' to disable this warning; for more "
        f"information, see {_RANK_DOC}."
    )
    with spmd.numpy_rank_promotion("warn"):
        with pytest.warns(UserWarning, match=re.escape(msg)):
            a + b
    assert spmd.config.jax_numpy_rank_promotion == "allow"
    assert (a + b).shape == (2, 3)
    # jax: ValueError when the context manager is made, TypeError without a value
    msg = "new enum value must be in ['allow', 'warn', 'raise'], got bad of type <class 'str'>."
    with pytest.raises(ValueError, match=re.escape(msg)):
        spmd.numpy_rank_promotion("bad")
    msg = (
        "Context manager for numpy_rank_promotion config option requires an argument "
        "representing the new value for the config option."
    )
    with pytest.raises(TypeError, match=re.escape(msg)):
        spmd.numpy_rank_promotion()


def test_dtype_promotion_context():
    i, f = jnp.ones(3, jnp.int32), jnp.ones(3, jnp.float32)
    with spmd.numpy_dtype_promotion("strict"):
        # jax: TypePromotionError for int32 + float32 and for int32 + a Python float
        with pytest.raises(spmd.dtypes.TypePromotionError):
            i + f
        with pytest.raises(spmd.dtypes.TypePromotionError):
            i + 1.0
        assert (f + f).dtype == np.float32
    assert (i + f).dtype == np.float32
    with pytest.raises(ValueError, match=re.escape("'x' is not a valid NumpyDtypePromotion")):
        spmd.numpy_dtype_promotion("x")


def test_default_device_context():
    d = spmd.devices()
    assert spmd.default_device.value is None
    with spmd.default_device(d[3]):
        assert spmd.config.jax_default_device is d[3]
        a = jnp.ones(2)
        # jax: new arrays, jit results of uncommitted inputs, device_put and random values are
        # on the default device, uncommitted; a committed input keeps its device
        assert a.devices() == {d[3]} and not a.committed
        assert spmd.jit(lambda x: x + 1)(1.0).devices() == {d[3]}
        assert spmd.device_put(1.0).devices() == {d[3]}
        assert spmd.random.normal(spmd.random.key(0), (2,)).devices() == {d[3]}
        committed = spmd.device_put(jnp.ones(2), d[1])
        assert spmd.jit(lambda x: x + 1)(committed).devices() == {d[1]}
    # jax: an array made inside stays there; results made outside are on the first device
    assert a.devices() == {d[3]}
    assert (a + 1).devices() == {d[0]}
    with spmd.default_device("cpu"):
        assert jnp.ones(2).devices() == {d[0]}
    msg = (
        "jax.default_device must be passed either a Device object (e.g. "
        "`jax.devices('cpu')[0]`) or a platform name string like 'cpu' or 'gpu', got: 3"
    )
    with pytest.raises(ValueError, match=re.escape(msg)):
        spmd.default_device(3)
    assert spmd.config.jax_default_device is None


# ---------------------------------------------------------------------------------------------
# jax_debug_nans / jax_debug_infs


def _nan_error(where, kind="nan"):
    return pytest.raises(
        FloatingPointError, match=re.escape(f"invalid value ({kind}) encountered in {where}")
    )


def test_debug_nans_eager_and_jit():
    neg = jnp.array([1.0, -1.0])
    # Off: NaNs flow silently.
    assert np.isnan(np.asarray(jnp.log(neg))).any()
    with spmd.debug_nans(True):
        assert spmd.debug_nans.value is True
        # jax: each message below, FloatingPointError
        with _nan_error("log"):
            jnp.log(neg)
        with _nan_error("div"):
            jnp.zeros(2) / jnp.zeros(2)
        with _nan_error("div"):
            jnp.mean(jnp.zeros(0))
        # Eagerly, a NaN that where() then drops still raises (jax: the same)
        with _nan_error("log"):
            jnp.where(neg > 0, jnp.log(neg), 0.0)
        # Under jit only the results are checked; then the function runs op by op.
        _check(spmd.jit(lambda x: jnp.where(x > 0, jnp.log(x), 0.0))(neg), [0.0, 0.0])
        with _nan_error("log"):
            spmd.jit(lambda x: jnp.log(x) * 2)(-jnp.ones(2))
        with _nan_error("log"):
            spmd.jit(lambda x: {"a": x, "b": jnp.log(x)})(-1.0)
        with _nan_error("sqrt"):
            spmd.jit(lambda x: spmd.jit(jnp.sqrt)(x) + 1)(-1.0)
        with _nan_error("log"):
            spmd.grad(jnp.log)(-1.0)
        with _nan_error("log"):
            spmd.vmap(jnp.log)(neg)
        with _nan_error("scan"):
            spmd.lax.scan(lambda c, x: (c + jnp.log(x), None), 0.0, neg)
        with _nan_error("mul"):
            jnp.sqrt(jnp.array(-1 + 0j)) * jnp.inf
        msg = "Invalid value (nan) encountered in sharded computation."
        with pytest.raises(FloatingPointError, match=re.escape(msg)):
            spmd.pmap(jnp.log)(-jnp.ones(1))
        # An inf is not a NaN: jax: grad(sqrt)(0.) -> inf
        assert np.isinf(np.asarray(spmd.grad(jnp.sqrt)(0.0)))
        # Integer results are never checked.
        assert jnp.arange(3).dtype == np.int32
        # Restored on an exception.
        with pytest.raises(KeyError):
            with spmd.debug_nans(False):
                raise KeyError
        assert spmd.config.jax_debug_nans is True
    assert spmd.config.jax_debug_nans is False
    assert np.isnan(np.asarray(spmd.jit(jnp.log)(-1.0)))


def test_debug_nans_says_it_runs_the_jitted_function_again(capsys):
    # jax 0.10.2 prints, before the de-optimized run: "Invalid nan value encountered in the
    # output of a jax.jit function. Calling the de-optimized version."
    with spmd.debug_nans(True), _nan_error("div"):
        spmd.jit(lambda x, y: (x + y) / (x - y))(jnp.zeros(2), jnp.zeros(2))
    assert capsys.readouterr().out == (
        "Invalid nan value encountered in the output of a spmd.jit function. Calling the "
        "de-optimized version.\n"
    )
    with spmd.debug_infs(True), _nan_error("div", "inf"):
        spmd.jit(lambda x: x / 0)(jnp.ones(2))
    assert "Invalid inf value" in capsys.readouterr().out


def test_debug_infs():
    with spmd.debug_infs(True):
        assert spmd.config.jax_debug_infs is True
        # jax: inf raises, NaN does not (it is debug_nans' business)
        with _nan_error("log", "inf"):
            jnp.log(0.0)
        with _nan_error("div", "inf"):
            spmd.jit(lambda x: x / 0)(jnp.ones(2))
        assert np.isnan(np.asarray(jnp.log(-1.0)))
    assert np.isinf(np.asarray(jnp.log(0.0)))
    # jax: config.update works as well
    spmd.config.update("jax_debug_infs", True)
    try:
        with _nan_error("log", "inf"):
            jnp.log(0.0)
    finally:
        spmd.config.update("jax_debug_infs", False)
    assert np.isinf(np.asarray(jnp.log(0.0)))
