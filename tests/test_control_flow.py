"""Control flow: lax.cond/switch, scan, while_loop, fori_loop, map (spmd/_src/lax/control_flow).

Values are checked against Python loops over NumPy, eager against jit, vmap against a loop over
the examples, derivatives against central finite differences in float64; a few programs against
values and printed jaxprs recorded from JAX 0.10.2; and the errors JAX raises.
"""

from __future__ import annotations

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd._src.core import JaxprEqn


def _eqns(closed) -> list[JaxprEqn]:
    return list(closed.jaxpr.eqns)


def _prims(closed) -> list[str]:
    return [e.primitive.name for e in closed.jaxpr.eqns]


def _fd(f, x, eps=1e-6):
    """Central finite differences of scalar ``f`` at float64 array ``x``."""
    x = np.asarray(x, np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[i] = eps
        g[i] = (float(f(x + d)) - float(f(x - d))) / (2 * eps)
    return g


def _close(a, b, tol=1e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


# ---------------------------------------------------------------------------------------------
# cond and switch


def test_cond_selects_branch_eager_and_jit():
    def f(p, x, y):
        return lax.cond(p, lambda a, b: a + b, lambda a, b: a - 2.0 * b, x, y)

    x, y = np.float32(1.5), np.arange(3, dtype=np.float32)
    for p in (True, False):
        want = x + y if p else x - 2 * y
        _close(f(p, x, y), want)
        _close(spmd.jit(f)(p, x, y), want)


def test_cond_numeric_predicate_means_nonzero():
    f = lambda p, x: lax.cond(p, lambda a: a, lambda a: 2 * a, x)  # noqa: E731
    x = jnp.ones(3)
    _close(f(0.0, x), 2 * np.ones(3))
    _close(f(2, x), np.ones(3))
    _close(spmd.jit(f)(jnp.float32(-0.5), x), np.ones(3))


def test_cond_pytrees_closures_and_passthrough():
    c = np.arange(3, dtype=np.float32)

    def f(p, x, z):
        return lax.cond(
            p,
            lambda d: {"a": d["u"] + c, "b": (d["v"], d["u"] * z)},
            lambda d: {"a": d["u"] - z, "b": (d["v"], d["u"])},
            {"u": x, "v": x * 3},
        )

    x, z = np.ones(3, np.float32), np.float32(2.0)
    for p in (True, False):
        out = f(p, x, z)
        _close(out["a"], x + c if p else x - z)
        _close(out["b"][0], 3 * x)
        _close(out["b"][1], x * z if p else x)
        jout = spmd.jit(f)(p, x, z)
        _close(jout["a"], out["a"])


def test_cond_constants_are_operands_and_passthrough_pruned():
    c = np.arange(3, dtype=np.float32)
    closed = spmd.make_jaxpr(lambda p, x: lax.cond(p, lambda a: (a + c, a), lambda a: (a, a), x))(
        True, np.ones(3, np.float32)
    )
    (eqn,) = [e for e in _eqns(closed) if e.primitive.name == "cond"]
    # Operands: index, the hoisted constant, x; the passed-through output is not an output.
    assert len(eqn.invars) == 3 and len(eqn.outvars) == 1
    assert len(closed.jaxpr.constvars) == 1
    # Branch 0 is the false branch.
    false_branch, true_branch = eqn.params["branches"]
    assert not false_branch.eqns and [e.primitive.name for e in true_branch.eqns] == ["add"]


def test_cond_output_weak_type_is_the_false_branch():
    # JAX 0.10: the result type is branch 0's (the false branch).
    assert not lax.cond(True, lambda: 1.0, lambda: jnp.float32(2)).weak_type
    assert lax.cond(True, lambda: jnp.float32(2), lambda: 1.0).weak_type


def test_switch_clamps_index():
    branches = [lambda a: a, lambda a: 2 * a, lambda a: -a]
    x = jnp.arange(3.0)
    for i, want in [(-4, x), (0, x), (1, 2 * x), (2, -x), (9, -x)]:
        _close(lax.switch(i, branches, x), want)
        _close(spmd.jit(lambda i, x: lax.switch(i, branches, x))(i, x), want)


def test_switch_single_branch_is_a_call():
    closed = spmd.make_jaxpr(lambda i, x: lax.switch(i, [lambda a: a * 2], x))(1, 1.0)
    assert _prims(closed) == ["mul"]


def test_cond_traced_predicate_under_jit():
    f = spmd.jit(lambda x: lax.cond(x.sum() > 0, jnp.sin, jnp.cos, x))
    x = np.array([0.5, -0.25], np.float32)
    _close(f(x), np.sin(x))
    _close(f(-x), np.cos(-x))


def test_cond_branch_type_mismatch():
    with pytest.raises(TypeError) as e:
        lax.cond(True, lambda x: x, lambda x: x.astype(jnp.int32), 1.0)
    msg = str(e.value)
    assert msg.startswith("cond branches must have equal output types but they differ.")
    assert (
        "The output of true_fun has type float32[] but the corresponding output of false_fun "
        "has type int32[], so the dtypes do not match." in msg
    )
    assert "Revise true_fun and/or false_fun so that all output types match." in msg


def test_cond_branch_shape_mismatch_names_path():
    with pytest.raises(TypeError, match=r"output of true_fun at path \['b'\] has type f"):
        lax.cond(True, lambda x: {"b": x}, lambda x: {"b": x[:2]}, jnp.ones(3))


def test_cond_branch_structure_mismatch():
    with pytest.raises(TypeError) as e:
        lax.cond(True, lambda x: (x, x), lambda x: x, 1.0)
    assert "cond branch outputs must have the same pytree structure, but they differ" in str(
        e.value
    )
    assert (
        "true_fun output is a <class 'tuple'> but false_fun output is a pytree leaf, so their "
        "Python types differ." in str(e.value)
    )


def test_cond_branches_must_agree_on_shardings_in_types():
    # On an Explicit mesh a result's sharding is part of its type (JAX 0.10; the explicit-sharding
    # tutorial): branches returning f32[8@X] and f32[8@Y] (or f32[8]) differ, eager and in jit.
    from spmd.sharding import AxisType, reshard
    from spmd.sharding import PartitionSpec as P

    mesh = spmd.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
    with spmd.set_mesh(mesh):
        s = reshard(jnp.arange(8.0), P("X"))
        with pytest.raises(TypeError, match=r"output of true_fun has type float32\[8@X\] but the "
                                            r"corresponding output of false_fun has type "
                                            r"float32\[8@Y\]\.\n"):  # fmt: skip
            lax.cond(True, lambda: s, lambda: reshard(s, P("Y")))
        with pytest.raises(TypeError, match=r"float32\[8@X\] .* false_fun has type float32\[8\]"):
            spmd.jit(lambda p, x: lax.cond(p, lambda: x, lambda: reshard(x, P())))(True, s)
        with pytest.raises(TypeError, match=r"branch 0 has type float32\[8@X\] .* branch2 has "):
            lax.switch(1, [lambda x: x, lambda x: x * 2, lambda x: reshard(x, P("Y"))], s)
        out = spmd.jit(lambda p, x: lax.cond(p, lambda: x, lambda: x + 1))(False, s)
        assert str(spmd.typeof(out)) == "float32[8@X]"
        np.testing.assert_array_equal(np.asarray(out), np.arange(8.0) + 1)


def test_switch_branch_type_mismatch_names_branches():
    with pytest.raises(TypeError, match="The output of branch 0 has type float32.*branch1"):
        lax.switch(1, [lambda x: x, lambda x: x.astype(jnp.int32)], 1.0)


def test_cond_predicate_must_be_scalar():
    with pytest.raises(TypeError, match=r"Pred must be a scalar, got \[1. 1.\] of shape \(2,\)"):
        lax.cond(jnp.ones(2), lambda x: x, lambda x: x, 1.0)


def test_cond_predicate_none():
    with pytest.raises(TypeError, match="cond predicate is None"):
        lax.cond(None, lambda x: x, lambda x: x, 1.0)


def test_cond_branches_must_be_callable():
    with pytest.raises(TypeError, match="true_fun and false_fun arguments should be callable"):
        lax.cond(True, 1.0, lambda x: x, 1.0)


def test_python_control_flow_in_a_branch_names_the_argument():
    with pytest.raises(spmd.errors.TracerBoolConversionError, match="argument x for|argument x\\."):
        lax.cond(True, lambda x: x if x > 0 else -x, lambda x: x, 1.0)
    with pytest.raises(spmd.errors.TracerBoolConversionError, match=r"argument x\['a'\]"):
        lax.scan(lambda c, x: (c if x["a"] > 0 else c, x), 1.0, {"a": jnp.ones(3)})


def test_switch_index_must_be_integer():
    with pytest.raises(TypeError, match="Index type must be an integer, got 1.0 as float32"):
        lax.switch(1.0, [lambda x: x], 1.0)


def test_switch_index_must_be_scalar():
    with pytest.raises(TypeError, match="Branch index must be scalar"):
        lax.switch(np.zeros(2, np.int32), [lambda x: x], 1.0)


def test_switch_needs_branches():
    with pytest.raises(ValueError, match="Empty branch sequence"):
        lax.switch(0, [], 1.0)


# ---------------------------------------------------------------------------------------------
# scan


def _np_scan(f, c, xs, reverse=False):
    ys = [None] * len(xs)
    order = range(len(xs))[::-1] if reverse else range(len(xs))
    for i in order:
        c, ys[i] = f(c, xs[i])
    return c, np.stack(ys)


def test_scan_over_xs_sharded_along_the_scanned_dimension_is_refused():
    # As JAX 0.10 (explicit sharding): each x is a slice of the scanned dimension, which must be
    # unsharded on Explicit mesh axes; ValueError naming the spec, eager, in jit, under vmap.
    from spmd.sharding import AxisType, reshard
    from spmd.sharding import PartitionSpec as P

    mesh = spmd.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
    with spmd.set_mesh(mesh):
        a = reshard(jnp.arange(32.0).reshape(8, 4), P("X", "Y"))
        with pytest.raises(ValueError, match=r"0th dimension of all xs should be replicated\. "
                                             r"Got P\('X', 'Y'\) for xs leaf 0 of type "
                                             r"f32\[8@X,4@Y\]"):  # fmt: skip
            lax.scan(lambda c, x: (c, x), 0.0, a)
        with pytest.raises(ValueError, match=r"Got P\('X', 'Y'\)"):
            spmd.jit(lambda a: lax.map(lambda r: r * 2, a))(a)
        with pytest.raises(ValueError, match=r"Got P\('Y',\)"):
            spmd.vmap(lambda r: lax.scan(lambda c, x: (c + x, x), 0.0, r)[0])(a)
        b = reshard(a, P(None, "Y"))
        ys = lax.scan(lambda c, x: (c, x * 2), 0.0, b)[1]
        assert str(spmd.typeof(ys)) == "float32[8,4@Y]"
        np.testing.assert_array_equal(np.asarray(ys), 2 * np.arange(32.0).reshape(8, 4))


@pytest.mark.parametrize("reverse", [False, True])
def test_scan_matches_python_loop(reverse):
    xs = np.arange(12, dtype=np.float32).reshape(4, 3) / 4

    def body(c, x):
        return c * 0.5 + x, c.sum() + x

    want_c, want_ys = _np_scan(body, np.ones(3, np.float32), xs, reverse)
    for fn in (lax.scan, spmd.jit(lax.scan, static_argnums=(0, 3, 4))):
        c, ys = fn(body, jnp.ones(3), xs, None, reverse)
        _close(c, want_c)
        _close(ys, want_ys)


def test_scan_pytrees():
    # Oracle: JAX 0.10.2.
    def f(c, x):
        a, b = c
        return (a + x["u"], b * 2), {"o": a * x["v"], "p": b}

    init = (jnp.zeros(2), jnp.float32(1))
    xs = {
        "u": np.arange(6, dtype=np.float32).reshape(3, 2),
        "v": np.arange(3, dtype=np.float32)[:, None] * np.ones((3, 2), np.float32),
    }
    (a, b), ys = lax.scan(f, init, xs)
    _close(a, [6.0, 9.0])
    _close(b, 8.0)
    _close(ys["o"], [[0, 0], [0, 1], [4, 8]])
    _close(ys["p"], [1, 2, 4])


def test_scan_without_xs_and_unroll():
    c, ys = lax.scan(lambda c, _: (c * 2, c), 1.0, None, length=5, unroll=2)
    _close(c, 32.0)
    _close(ys, [1, 2, 4, 8, 16])
    c2, _ = lax.scan(lambda c, _: (c * 2, c), 1.0, None, length=5, unroll=True)
    _close(c2, 32.0)


def test_scan_zero_length():
    c, ys = lax.scan(lambda c, x: (c + x, c), jnp.float32(3), jnp.zeros((0,)))
    assert float(c) == 3.0 and ys.shape == (0,)


def test_scan_weak_carry():
    # Oracle: a weak initial carry keeps the body's output type (strong here, weak there).
    c, ys = lax.scan(lambda c, x: (c + x, c), 0, jnp.arange(4))
    assert not c.weak_type and ys.weak_type
    assert int(c) == 6 and ys.tolist() == [0, 0, 1, 3]
    c, _ = lax.scan(lambda c, x: (c * 2, c * x), 0.0, jnp.ones(4))
    assert c.weak_type


def test_scan_weak_int_carry_promotes_to_float():
    c, _ = lax.scan(lambda c, x: (c + x, None), 0, jnp.arange(3.0))
    assert c.dtype == np.float32 and float(c) == 3.0


def test_scan_passthrough_carry_is_a_constant():
    closed = spmd.make_jaxpr(lambda xs: lax.scan(lambda c, x: (c, x * c), 1.5, xs))(jnp.ones(3))
    (eqn,) = _eqns(closed)
    assert eqn.params["num_carry"] == 0 and eqn.params["num_consts"] == 1
    c, ys = lax.scan(lambda c, x: (c, x * c), 1.5, jnp.ones(3))
    assert float(c) == 1.5
    _close(ys, [1.5] * 3)


def test_scan_carry_type_mismatch():
    with pytest.raises(TypeError) as e:
        lax.scan(lambda c, x: (c.astype(jnp.int32), x), 1.0, jnp.ones(3))
    msg = str(e.value)
    assert msg.startswith(
        "scan body function carry input and carry output must have equal types, but they differ"
    )
    assert (
        "The input carry c has type float32[] but the corresponding output carry component has "
        "type int32[], so the dtypes do not match." in msg
    )


def test_scan_carry_type_mismatch_names_paths():
    with pytest.raises(TypeError) as e:
        lax.scan(
            lambda carry, x: ({"a": carry["a"], "b": carry["b"].astype(jnp.int32)}, x),
            {"a": 1.0, "b": jnp.ones(2)},
            jnp.ones(3),
        )
    assert "The input carry component carry['b'] has type float32[2] but" in str(e.value)


def test_scan_carry_structure_mismatch():
    with pytest.raises(TypeError) as e:
        lax.scan(lambda c, x: ((c, c), x), (1.0, 2.0, 3.0), jnp.ones(3))
    assert "carry input and carry output must have the same pytree structure" in str(e.value)
    assert (
        "The input carry c is a tuple of length 3 but the corresponding component of the carry "
        "output is a tuple of length 2, so the lengths do not match." in str(e.value)
    )


def test_scan_body_must_return_pair():
    with pytest.raises(TypeError, match="scan body output must be a pair, got float32"):
        lax.scan(lambda c, x: c, 1.0, jnp.ones(3))


def test_scan_different_lengths():
    with pytest.raises(ValueError, match="scan got values with different leading axis sizes: 3, 4"):
        lax.scan(lambda c, x: (c, x), 1.0, [jnp.ones(3), jnp.ones(4)])


def test_scan_needs_something_to_scan():
    with pytest.raises(ValueError, match="scan got no values to scan over and `length` not"):
        lax.scan(lambda c, x: (c, x), 1.0, None)


def test_scan_length_disagrees():
    with pytest.raises(ValueError, match=r"`length` argument of 4 which disagrees.*\[3\]"):
        lax.scan(lambda c, x: (c, x), 1.0, jnp.ones(3), length=4)


def test_scan_xs_without_leading_axis():
    with pytest.raises(ValueError, match="scan got value with no leading axis to scan over: 2.0"):
        lax.scan(lambda c, x: (c, x), 1.0, 2.0)


def test_scan_negative_unroll():
    with pytest.raises(ValueError, match="`unroll` must be a `bool` or a non-negative `int`"):
        lax.scan(lambda c, x: (c, x), 1.0, jnp.ones(3), unroll=-1)


# ---------------------------------------------------------------------------------------------
# while_loop, fori_loop, map


def test_while_loop_matches_python():
    def f(x, lim, k):
        return lax.while_loop(lambda c: c[0] < lim, lambda c: (c[0] + 1, c[1] * k), (0, x))

    for fn in (f, spmd.jit(f)):
        n, v = fn(1.0, 5, 1.5)
        assert int(n) == 5
        _close(v, 1.5**5)
    # Oracle: the weak types of JAX 0.10.2.
    n, v = f(1.0, 5, 1.5)
    assert n.weak_type and v.weak_type
    assert lax.while_loop(lambda c: c < 10, lambda c: c * 2.0, 1.0).weak_type
    assert not lax.while_loop(lambda c: c < 10, lambda c: c * jnp.float32(2), 1.0).weak_type


def test_while_loop_cond_must_return_bool_scalar():
    with pytest.raises(TypeError, match=r"cond_fun must return a boolean scalar, but got output"):
        lax.while_loop(lambda c: c, lambda c: c + 1, 1.0)


def test_while_loop_cond_must_return_one_value():
    with pytest.raises(TypeError, match="cond_fun must return a boolean scalar, but got pytree"):
        lax.while_loop(lambda c: (c > 0, c > 0), lambda c: c, 1.0)


def test_while_loop_carry_mismatch():
    with pytest.raises(TypeError, match="while_loop body function carry input and carry output"):
        lax.while_loop(lambda c: c > 0, lambda c: c.astype(jnp.int32), 1.0)


def test_fori_loop_static_bounds_is_a_scan():
    f = lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2.0 + i, x)  # noqa: E731
    assert _prims(spmd.make_jaxpr(f)(1.0)) == ["scan"]
    _close(f(1.0), ((1 * 2 + 0) * 2 + 1) * 2 + 2)
    _close(lax.fori_loop(5, 2, lambda i, c: c + 1, 0), 0)


def test_fori_loop_dynamic_bounds_is_a_while():
    f = lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 2.0, x)  # noqa: E731
    assert _prims(spmd.make_jaxpr(f)(1.0, 3)) == ["while"]
    _close(spmd.jit(f)(1.0, 3), 8.0)
    _close(spmd.jit(f)(1.0, 0), 1.0)


def test_fori_loop_dynamic_bounds_refuse_unroll():
    with pytest.raises(ValueError, match="Can only use `unroll` in `fori_loop` if the loop bounds"):
        spmd.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c, 1.0, unroll=2))(3)


def test_fori_loop_bound_types_must_agree():
    with pytest.raises(TypeError, match="lower and upper arguments to fori_loop must have equal"):
        lax.fori_loop(np.int8(0), np.int32(3), lambda i, c: c, 1.0)


@pytest.mark.parametrize("batch_size", [None, 2, 3, 8])
def test_map(batch_size):
    xs = {"a": np.arange(15, dtype=np.float32).reshape(5, 3), "b": np.arange(5.0, dtype=np.float32)}

    def f(d):
        return d["a"].sum() * d["b"], d["a"] * 2

    s, m = lax.map(f, xs, batch_size=batch_size)
    _close(s, xs["a"].sum(1) * xs["b"])
    _close(m, xs["a"] * 2)


@pytest.fixture
def no_jit():
    old = spmd.config.jax_disable_jit
    spmd.config.update("jax_disable_jit", True)
    try:
        yield
    finally:
        spmd.config.update("jax_disable_jit", old)


def test_disable_jit_runs_bodies_in_python(no_jit):
    calls = []

    def body(c, x):
        calls.append(1)
        return c + x, c

    c, ys = lax.scan(body, 0, jnp.arange(4), reverse=True)
    assert len(calls) == 4 and int(c) == 6 and ys.tolist() == [6, 5, 3, 0]
    assert int(lax.while_loop(lambda x: x < 10, lambda x: 2 * x, 1)) == 16
    assert float(lax.cond(False, lambda x: x + 1, lambda x: x - 1, 1.0)) == 0.0
    assert float(lax.switch(7, [lambda x: x + 1, lambda x: x - 1], 1.0)) == 0.0
    # A traced predicate still needs the primitive.
    f = spmd.vmap(lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x))
    _close(f(jnp.array([1.0, 3.0, 20.0])), [16, 12, 20])


def test_disable_jit_zero_length_scan(no_jit):
    with pytest.raises(ValueError, match="zero-length scan is not supported in disable_jit"):
        lax.scan(lambda c, x: (c, x), 0.0, jnp.zeros(0))


def test_scan_forwarded_xs_are_arrays():
    _, ys = lax.scan(lambda c, x: (c, x), 0.0, np.arange(3.0, dtype=np.float32))
    assert isinstance(ys, spmd.Array) and ys.tolist() == [0.0, 1.0, 2.0]


# ---------------------------------------------------------------------------------------------
# vmap


def test_vmap_cond_batched_predicate_is_a_select():
    f = lambda p, x: lax.cond(p, lambda a: a + 1, lambda a: jnp.sin(a) * 2, x)  # noqa: E731
    ps = np.array([True, False, True])
    xs = np.arange(6, dtype=np.float32).reshape(3, 2)
    got = spmd.vmap(f)(ps, xs)
    _close(got, np.stack([f(p, x) for p, x in zip(ps, xs)]))
    assert "cond" not in _prims(spmd.make_jaxpr(spmd.vmap(f))(ps, xs))


def test_vmap_cond_unbatched_predicate_stays_a_cond():
    f = spmd.vmap(lambda p, x: lax.cond(p, lambda a: a + 1, lambda a: a * 2, x), in_axes=(None, 1))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    _close(f(True, x), (x + 1).T)
    _close(f(False, x), (x * 2).T)
    prims = _prims(spmd.make_jaxpr(f)(True, x))
    assert "cond" in prims and "select_n" not in prims


def test_vmap_switch_batched_index():
    # Oracle: JAX 0.10.2 gives [0, 2, -2, -3].
    f = spmd.vmap(lambda i, x: lax.switch(i, [lambda a: a, lambda a: a * 2, lambda a: -a], x))
    _close(f(np.array([0, 1, 2, 5], np.int32), np.arange(4.0, dtype=np.float32)), [0, 2, -2, -3])


def test_vmap_scan_in_axes_1():
    f = lambda xs: lax.scan(lambda c, x: (c + x, c * x), 0.0, xs)  # noqa: E731
    xs = np.arange(12, dtype=np.float32).reshape(4, 3)
    c, ys = spmd.vmap(f, in_axes=1)(xs)
    for j in range(3):
        cj, ysj = f(xs[:, j])
        _close(c[j], cj)
        _close(ys[j], ysj)
    # Oracle: JAX 0.10.2.
    _close(c, [18, 22, 26])
    _close(ys, [[0, 0, 18, 81], [0, 4, 35, 120], [0, 10, 56, 165]])


def test_vmap_scan_batched_const_makes_carry_batched():
    # The carry starts unbatched and becomes batched through a batched constant.
    def f(k):
        return lax.scan(lambda c, x: (c * k + x, c), jnp.ones(2), jnp.ones((3, 2)))

    ks = np.array([0.5, 2.0, -1.0], np.float32)
    c, ys = spmd.vmap(f)(ks)
    for i, k in enumerate(ks):
        ci, ysi = f(k)
        _close(c[i], ci)
        _close(ys[i], ysi)


def test_vmap_while_batched_predicate():
    f = lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)  # noqa: E731
    xs = np.array([1.0, 3.0, 20.0], np.float32)
    _close(spmd.vmap(f)(xs), [16, 12, 20])
    _close(spmd.jit(spmd.vmap(f))(xs), [16, 12, 20])


def test_vmap_fori_loop_batched_bound():
    f = lambda n, x: lax.fori_loop(0, n, lambda i, c: c + i * x, 0.0)  # noqa: E731
    ns = np.array([0, 3, 5], np.int32)
    x = np.float32(2.0)
    _close(spmd.vmap(f, in_axes=(0, None))(ns, x), [f(int(n), x) for n in ns])


def test_vmap_while_unbatched_predicate_batched_carry():
    def f(x):
        return lax.while_loop(lambda c: c[0] < 4, lambda c: (c[0] + 1, c[1] * 2 + x), (0, x))[1]

    xs = np.array([1.0, -2.0], np.float32)
    _close(spmd.vmap(f)(xs), [f(x) for x in xs])


def test_vmap_while_each_example_stops_at_its_own_predicate():
    # Values from JAX 0.10.2: the second carry stops doubling when the first reaches x.
    def f(x):
        return lax.while_loop(lambda c: c[0] < x, lambda c: (c[0] + 1.0, c[1] * 2.0), (0.0, 1.0))

    xs = np.array([1.0, 2.5, 0.0], np.float32)
    for g in (spmd.vmap(f), spmd.jit(spmd.vmap(f))):
        a, b = g(xs)
        _close(a, [1, 3, 0])
        _close(b, [2, 8, 1])


def test_vmap_while_batched_predicate_stays_in_cond():
    # As in JAX: the predicate is batched (bool[3]), the body has no select.
    f = spmd.vmap(lambda x: lax.while_loop(lambda c: c < x, lambda c: c + 1.0, 0.0))
    (eqn,) = [
        e for e in _eqns(spmd.make_jaxpr(f)(np.ones(3, np.float32))) if e.primitive.name == "while"
    ]
    assert eqn.params["cond_jaxpr"].out_avals[0].shape == (3,)
    assert [e.primitive.name for e in eqn.params["body_jaxpr"].jaxpr.eqns] == ["add"]


def test_vmap_of_vmap_while_unbatched_predicate_of_rank_one():
    # The outer vmap batches a carry the (already batched) predicate does not read: the new
    # batch dimension goes after the predicate's. Values from JAX 0.10.2.
    xs = np.array([1.0, 2.5, 0.0], np.float32)

    def inner(y):
        def f(x):
            return lax.while_loop(lambda c: c[0] < x, lambda c: (c[0] + 1.0, c[1] * y), (0.0, 1.0))

        return spmd.vmap(f)(xs)

    for g in (spmd.vmap(inner), spmd.jit(spmd.vmap(inner))):
        a, b = g(np.array([1.0, 2.0], np.float32))
        _close(a, [[1, 3, 0], [1, 3, 0]])
        _close(b, [[1, 1, 1], [2, 8, 1]])


def test_jvp_of_vmap_while_batched_predicate():
    # Values from JAX 0.10.2.
    xs = np.array([1.0, 2.5, 0.0], np.float32)

    def f(x):
        g = lambda y: lax.while_loop(lambda c: c < x, lambda c: c * y + 1.0, 0.1)  # noqa: E731
        return spmd.jvp(g, (x,), (1.0,))

    p, t = spmd.vmap(f)(xs)
    _close(p, [1.1, 4.125, 0.1])
    _close(t, [0.1, 1.5, 0.0])


def test_while_predicate_must_lead_the_carries():
    cond = spmd.make_jaxpr(lambda c: lax.broadcast(c.sum() < 1.0, (3,)))(np.zeros(2, np.float32))
    body = spmd.make_jaxpr(lambda c: c + 1.0)(np.zeros(2, np.float32))
    with pytest.raises(TypeError, match="leading dimensions"):
        lax.while_p.bind(
            np.zeros(2, np.float32),
            cond_jaxpr=cond,
            body_jaxpr=body,
            cond_nconsts=0,
            body_nconsts=0,
        )


# ---------------------------------------------------------------------------------------------
# Autodiff (float64, against finite differences)


def test_grad_cond_and_switch(x64):
    def f(x):
        return lax.cond(x.sum() > 0, lambda a: jnp.sin(a).sum() * x[0], lambda a: (a**2).sum(), x)

    for x in (np.array([0.3, 0.7]), np.array([-0.3, -0.1])):
        _close(spmd.grad(f)(x), _fd(f, x))
        _close(spmd.jit(spmd.grad(f))(x), _fd(f, x))

    def g(x, i):
        return lax.switch(i, [lambda a: a**3, lambda a: jnp.exp(a), lambda a: a * 2.0], x)

    for i in range(3):
        _close(spmd.grad(g)(0.4, i), _fd(lambda v, i=i: g(v, i), 0.4))


def test_grad_through_closed_over_value(x64):
    def f(x, z):
        return lax.cond(x > 0, lambda a: a * z**2, lambda a: a + z, x)

    _close(spmd.grad(f, argnums=1)(1.5, 0.5), 2 * 1.5 * 0.5)
    _close(spmd.grad(f, argnums=1)(-1.5, 0.5), 1.0)


def test_grad_scan_consts_init_xs(x64):
    def f(w, c0, xs):
        c, ys = lax.scan(lambda c, x: (jnp.tanh(c * w + x), c * x), c0, xs)
        return c + jnp.sum(ys**2)

    w, c0, xs = 0.7, 0.2, np.array([0.1, -0.4, 0.3, 0.9])
    gw, gc, gx = spmd.grad(f, argnums=(0, 1, 2))(w, c0, xs)
    _close(gw, _fd(lambda v: f(v, c0, xs), w))
    _close(gc, _fd(lambda v: f(w, v, xs), c0))
    _close(gx, _fd(lambda v: f(w, c0, v), xs))


def test_grad_scan_reverse_and_pytree(x64):
    def f(p):
        def body(c, x):
            return {"h": c["h"] * p["a"] + x}, c["h"] * p["b"]

        c, ys = lax.scan(body, {"h": 1.0}, jnp.arange(3.0), reverse=True)
        return c["h"] + ys.sum()

    p = {"a": 0.5, "b": -1.25}
    g = spmd.grad(f)(p)
    _close(g["a"], _fd(lambda v: f({"a": v, "b": p["b"]}), 0.5))
    _close(g["b"], _fd(lambda v: f({"a": p["a"], "b": v}), -1.25))


def test_grad_fori_loop_static_bounds(x64):
    f = lambda x: lax.fori_loop(0, 3, lambda i, c: c * x + i, 1.0)  # noqa: E731
    _close(spmd.grad(f)(2.0), _fd(f, 2.0))


def test_grad_cond_inside_scan(x64):
    def f(xs):
        def body(c, x):
            c = lax.cond(x > 1, lambda a: a * x, lambda a: a + x, c)
            return c, c

        return lax.scan(body, 1.0, xs)[0]

    xs = np.array([0.5, 1.5, 0.25, 2.5])
    _close(spmd.grad(f)(xs), _fd(f, xs))
    # Oracle: JAX 0.10.2 gives [6, 6, 6, 4] in float32.
    _close(spmd.grad(f)(np.arange(4.0)), [6, 6, 6, 4])


def test_jit_vmap_grad_scan(x64):
    def loss(w, xs):
        c, ys = lax.scan(lambda c, x: (jnp.tanh(c * w + x), c * c), 0.5, xs)
        return c + ys.sum()

    ws, xs = np.array([0.1, 0.5, -0.3]), np.arange(4.0) / 4
    got = spmd.jit(spmd.vmap(spmd.grad(loss), in_axes=(0, None)))(ws, xs)
    _close(got, [_fd(lambda v: loss(v, xs), w) for w in ws])
    # Oracle: JAX 0.10.2 (float32) gives [0.5691453, 1.267259, 0.1480272].
    _close(got, [0.5691453, 1.267259, 0.1480272], tol=1e-5)


def test_hessian_of_scan(x64):
    f = lambda x: lax.scan(lambda c, _: (jnp.sin(c) * x, None), x, None, length=3)[0]  # noqa: E731
    # Oracle: JAX 0.10.2 (float32) gives 3.544919.
    _close(spmd.hessian(f)(0.7), 3.544919, tol=1e-5)
    _close(spmd.hessian(f)(0.7), _fd(spmd.grad(f), 0.7), tol=1e-5)


def test_jvp_while_loop(x64):
    f = lambda x: lax.while_loop(  # noqa: E731
        lambda c: c[0] < 4, lambda c: (c[0] + 1, c[1] * x), (0, 1.0)
    )[1]
    y, t = spmd.jvp(f, (2.0,), (1.0,))
    _close(y, 16.0)
    _close(t, 32.0)
    _close(spmd.jacfwd(f)(1.5), 4 * 1.5**3)


def test_jvp_while_tangent_keeps_weak_type():
    # Oracle: JAX 0.10.2 gives weak primal and tangent here.
    f = lambda x: lax.while_loop(  # noqa: E731
        lambda c: c[0] < 4, lambda c: (c[0] + 1, c[1] * x), (0, 1.0)
    )[1]
    y, t = spmd.jvp(f, (2.0,), (1.0,))
    assert y.weak_type and t.weak_type


def test_jvp_cond_keeps_weak_types():
    # Oracle: JAX 0.10.2 gives weak primal outputs and tangent.
    f = lambda x: lax.cond(x > 0, lambda a: (a * 2, 1), lambda a: (a * 3, 2), x)  # noqa: E731
    (y, n), (t, _) = spmd.jvp(f, (1.0,), (1.0,))
    assert y.weak_type and n.weak_type and t.weak_type
    assert float(y) == 2.0 and float(t) == 2.0 and int(n) == 1


def test_linearize_while_loop_works():
    # Forward passes of reverse mode work; only the transpose is refused.
    f = lambda x: lax.fori_loop(0, jnp.int32(3), lambda i, c: c * x, 1.0)  # noqa: E731
    y, f_jvp = spmd.linearize(f, 2.0)
    _close(y, 8.0)
    _close(f_jvp(1.0), 12.0)


def test_grad_while_loop_is_refused():
    msg = (
        "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
        "dynamic start/stop values. Try using lax.scan, or using fori_loop with static "
        "start/stop."
    )
    with pytest.raises(ValueError) as e:
        spmd.grad(lambda x: lax.while_loop(lambda c: c < 10, lambda c: c * x, 1.0))(2.0)
    assert str(e.value) == msg
    with pytest.raises(ValueError, match="Reverse-mode differentiation does not work"):
        f = spmd.jit(lambda x, n: lax.fori_loop(0, n, lambda i, c: c * x, 1.0))
        spmd.grad(f)(2.0, 3)


def test_grad_ignores_while_on_the_primal_path(x64):
    def g(x):
        n = lax.while_loop(lambda c: c < 10, lambda c: c + 1, 0)
        return x * n

    _close(spmd.grad(g)(2.0), 10.0)


def test_grad_vmap_cond_batched_predicate(x64):
    f = lambda x: lax.cond(x > 0, lambda a: a**2, lambda a: -3 * a, x)  # noqa: E731
    xs = np.array([-1.0, 0.5, 2.0])
    _close(spmd.vmap(spmd.grad(f))(xs), [-3, 1, 4])
    _close(spmd.grad(lambda v: spmd.vmap(f)(v).sum())(xs), [-3, 1, 4])


def test_linear_scan_transpose_drops_zero_cotangents():
    # Only the carry is differentiated: the ys' cotangents are zero and drop out of the
    # transposed body (no stacked zeros, no unused residuals).
    def f(w, xs):
        return lax.scan(lambda c, x: (c * jnp.sin(w), x * c), 1.0, xs)[0]

    closed = spmd.make_jaxpr(spmd.grad(f))(2.0, jnp.ones(3))
    scans = [e for e in _eqns(closed) if e.primitive.name == "scan"]
    assert len(scans) == 2
    fwd, bwd = scans
    assert bwd.params["reverse"] and len(bwd.invars) == 5  # cos w, sin w, 2 carries, 1 residual
    # The loop-invariant residuals (sin w, cos w) are computed once, outside the loops.
    assert _prims(closed)[:2] == ["sin", "cos"]


# ---------------------------------------------------------------------------------------------
# Printed jaxprs (JAX 0.10.2)


JAXPR_SWITCH = """\
{ lambda ; a:i32[] b:f32[3]. let
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] a
    d:i32[] = clamp 0:i32[] c 2:i32[]
    e:f32[3] = cond[
      branches=(
        { lambda ; f:f32[3]. let  in (f,) }
        { lambda ; g:f32[3]. let h:f32[3] = mul g 2.0:f32[] in (h,) }
        { lambda ; i:f32[3]. let j:f32[3] = sin i in (j,) }
      )
    ] d b
  in (e,) }"""

JAXPR_SCAN = """\
{ lambda ; a:f32[] b:f32[4] c:f32[]. let
    d:f32[] e:f32[4] = scan[
      jaxpr={ lambda ; f:f32[] g:f32[] h:f32[]. let
          i:f32[] = convert_element_type[new_dtype=float32 weak_type=False] f
          j:f32[] = mul h i
          k:f32[] = convert_element_type[new_dtype=float32 weak_type=False] g
          l:f32[] = add k j
          m:f32[] = convert_element_type[new_dtype=float32 weak_type=False] g
          n:f32[] = mul m h
        in (l, n) }
      length=4
      num_carry=1
      num_consts=1
      reverse=True
      unroll=2
    ] c a b
  in (d, e) }"""

JAXPR_WHILE = """\
{ lambda ; a:f32[] b:i32[] c:f32[]. let
    d:i32[] e:f32[] = while[
      body_jaxpr={ lambda ; f:f32[] g:i32[] h:f32[]. let
          i:i32[] = add g 1:i32[]
          j:f32[] = mul h f
        in (i, j) }
      body_nconsts=1
      cond_jaxpr={ lambda ; k:i32[] l:i32[] m:f32[]. let
          n:bool[] = lt l k
        in (n,) }
      cond_nconsts=1
    ] b c 0:i32[] a
  in (d, e) }"""


def test_jaxpr_switch():
    g = lambda i, x: lax.switch(i, [lambda a: a, lambda a: a * 2, jnp.sin], x)  # noqa: E731
    assert str(spmd.make_jaxpr(g)(1, jnp.ones(3))) == JAXPR_SWITCH


def test_jaxpr_scan():
    def s(x, xs, z):
        return lax.scan(lambda c, x: (c + x * z, c * x), x, xs, reverse=True, unroll=2)

    assert str(spmd.make_jaxpr(s)(1.0, jnp.ones(4), 2.0)) == JAXPR_SCAN


def test_jaxpr_while():
    def w(x, lim, k):
        return lax.while_loop(lambda c: c[0] < lim, lambda c: (c[0] + 1, c[1] * k), (0, x))

    assert str(spmd.make_jaxpr(w)(1.0, 5, 1.5)) == JAXPR_WHILE


JAXPR_FORI = """\
{ lambda ; a:f32[] b:i32[]. let
    _:i32[] _:i32[] c:f32[] = while[
      body_jaxpr={ lambda ; d:i32[] e:i32[] f:f32[]. let
          g:i32[] = add d 1:i32[]
          h:f32[] = mul f 2.0:f32[]
        in (g, e, h) }
      body_nconsts=0
      cond_jaxpr={ lambda ; i:i32[] j:i32[] k:f32[]. let
          l:bool[] = lt i j
        in (l,) }
      cond_nconsts=0
    ] 0:i32[] b a
  in (c,) }"""


def test_jaxpr_fori_loop_dynamic():
    f = lambda x, n: lax.fori_loop(0, n, lambda i, c: c * 2.0, x)  # noqa: E731
    assert str(spmd.make_jaxpr(f)(1.0, 3)) == JAXPR_FORI


def test_jaxpr_params_as_jax_shows_them():
    s = lambda x, xs: lax.scan(lambda c, x: (c + x, c * x), x, xs)  # noqa: E731
    (eqn,) = _eqns(spmd.make_jaxpr(s)(1.0, jnp.ones(4)))
    assert sorted(eqn.params) == ["jaxpr", "length", "num_carry", "num_consts", "reverse", "unroll"]
    w = lambda x: lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)  # noqa: E731
    (eqn,) = _eqns(spmd.make_jaxpr(w)(1.0))
    assert sorted(eqn.params) == ["body_jaxpr", "body_nconsts", "cond_jaxpr", "cond_nconsts"]
    text = str(spmd.make_jaxpr(w)(1.0))
    assert "body_nconsts=0" in text and "cond_nconsts=0" in text


def test_grad_of_batched_cond_and_switch_ignores_branches_not_taken():
    # Values from JAX 0.10. Under vmap with a batched predicate every branch runs on every
    # example; sqrt's slope at 0 (inf) must not reach the examples that take the other branch
    # (0 * inf would make it NaN), and log's at 0 neither.
    def f(x):
        return jnp.sum(spmd.vmap(lambda p, v: lax.cond(p, jnp.sqrt, lambda v: v * 2, v))(x > 0, x))

    np.testing.assert_array_equal(
        np.asarray(spmd.grad(f)(jnp.array([0.0, 4.0, -1.0]))), [2.0, 0.25, 2.0]
    )

    def g(x):
        branches = [jnp.sqrt, jnp.log, lambda v: v * 2]
        per = spmd.vmap(lambda i, v: lax.switch(i, branches, v))
        return jnp.sum(per(jnp.array([0, 1, 2]), x))

    np.testing.assert_array_equal(
        np.asarray(spmd.grad(g)(jnp.array([4.0, 0.0, 0.0]))), [0.25, np.inf, 2.0]
    )


def test_scan_partial_eval_stacks_constant_xs_and_forwards_traced_xs():
    # As JAX: a residual that is an xs element is the xs array itself when that is traced,
    # but is stacked by the known scan when it is a constant (a closed-over array).
    from spmd._src.interpreters import partial_eval as pe

    closed = spmd.make_jaxpr(lambda c, xs: lax.scan(lambda c, a: (c * a, c), c, xs)[0])(
        np.float32(1.0), np.ones(3, np.float32)
    )
    for constant, n_stacked in ((None, 0), ([False, True], 1)):
        known, unknown, _, _ = pe.partial_eval_jaxpr(closed, [True, False], constant)
        scans = [e for e in known.jaxpr.eqns if e.primitive.name == "scan"]
        assert sum(len(e.outvars) for e in scans) == n_stacked
        assert len(unknown.jaxpr.invars) == 2  # the residual (xs or its stack), the carry
