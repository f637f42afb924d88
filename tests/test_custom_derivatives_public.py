"""The public ``spmd.custom_derivatives`` module (``jax.custom_derivatives``): its names, programs
written against it (symbolic zeros in custom_jvp and custom_vjp rules), ``linear_call`` and its
rules, ``zero_from_primal``, ``custom_vjp_primal_tree_values``; and ``spmd.typing``. Expected
values come from JAX 0.10.2 (hard-coded) or from the math."""

from __future__ import annotations

import numpy as np
import pytest

import spmd
import spmd.custom_derivatives as cd
import spmd.numpy as jnp
from spmd.custom_derivatives import (
    CustomVJPPrimal,
    SymbolicZero,
    custom_jvp,
    custom_vjp,
)


def _close(a, b, tol=1e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


# ---------------------------------------------------------------------------------------------
# The module's names


def test_public_names_are_the_implementations():
    from spmd._src import custom_derivatives as impl

    assert cd.custom_jvp is spmd.custom_jvp and cd.custom_vjp is spmd.custom_vjp
    assert cd.custom_gradient is spmd.custom_gradient
    assert cd.closure_convert is spmd.closure_convert
    assert cd.SymbolicZero is impl.SymbolicZero
    assert cd.CustomVJPPrimal is impl.CustomVJPPrimal
    assert cd.custom_jvp_call_p.name == "custom_jvp_call"
    assert cd.custom_vjp_call_p.name == "custom_vjp_call"
    for name in cd.__all__:
        assert getattr(cd, name) is not None


# ---------------------------------------------------------------------------------------------
# Programs using symbolic zeros, as in JAX's documentation


def _symbolic_jvp_fn(seen):
    @custom_jvp
    def f(x, y):
        return x * y

    def f_jvp(primals, tangents):
        x, y = primals
        tx, ty = tangents
        seen.append((isinstance(tx, SymbolicZero), isinstance(ty, SymbolicZero)))
        out = 0.0
        if not isinstance(tx, SymbolicZero):
            out = out + tx * y
        if not isinstance(ty, SymbolicZero):
            out = out + x * ty
        return f(x, y), out

    f.defjvp(f_jvp, symbolic_zeros=True)
    return f


def test_custom_jvp_symbolic_zeros_from_public_module():
    seen = []
    f = _symbolic_jvp_fn(seen)
    _close(spmd.grad(f)(2.0, 3.0), 3.0)
    assert seen[-1] == (False, True)
    out, t = spmd.jvp(lambda x: f(x, 3.0), (2.0,), (1.0,))
    _close(out, 6.0)
    _close(t, 3.0)
    assert seen[-1] == (False, True)
    out, t = spmd.jvp(f, (2.0, 3.0), (1.0, 1.0))
    _close(t, 5.0)
    assert seen[-1] == (False, False)
    _close(spmd.jit(spmd.grad(f, 1))(2.0, 3.0), 2.0)
    assert seen[-1] == (True, False)


def test_custom_vjp_symbolic_zeros_fwd_gets_custom_vjp_primals():
    seen = []

    @custom_vjp
    def g(x, y):
        return jnp.sin(x) * y

    def g_fwd(x, y):
        seen.append((type(x), x.perturbed, y.perturbed))
        return g(x.value, y.value), (x.value, y.value)

    def g_bwd(res, ct):
        x, y = res
        return jnp.cos(x) * y * ct, jnp.sin(x) * ct

    g.defvjp(g_fwd, g_bwd, symbolic_zeros=True)
    _close(spmd.grad(g)(1.0, 2.0), 1.0806046)  # JAX 0.10.2
    assert seen[-1] == (CustomVJPPrimal, True, False)
    _close(spmd.grad(g, 1)(1.0, 2.0), 0.84147096, tol=1e-6)
    assert seen[-1] == (CustomVJPPrimal, False, True)


def test_custom_vjp_symbolic_zero_cotangents():
    seen = []

    @custom_vjp
    def h(x, y):
        return x * y, x + y

    def h_fwd(x, y):
        return h(x.value, y.value), (x.value, y.value)

    def h_bwd(res, cts):
        a, b = cts
        seen.append((isinstance(a, SymbolicZero), isinstance(b, SymbolicZero)))
        x, y = res
        ga = jnp.zeros(()) if isinstance(a, SymbolicZero) else a
        gb = jnp.zeros(()) if isinstance(b, SymbolicZero) else b
        return ga * y + gb, ga * x + gb

    h.defvjp(h_fwd, h_bwd, symbolic_zeros=True)
    _close(spmd.grad(lambda x: h(x, 3.0)[0])(2.0), 3.0)
    assert seen[-1] == (False, True)
    _close(spmd.grad(lambda x: h(x, 3.0)[1])(2.0), 1.0)
    assert seen[-1] == (True, False)


# ---------------------------------------------------------------------------------------------
# linear_call


def _div(r, x):
    return x / r


def _div_t(r, t):
    return t / r


def div_add(x, denom):
    return x + cd.linear_call(_div, _div_t, denom, x)


def _transpose(f, x_example):
    def transposed(y):
        (x,) = spmd.linear_transpose(f, x_example)(y)
        return x

    return transposed


def custom_id(x):
    # A "linear" function whose transpose is deliberately something else: reverse mode must
    # call the user's transpose, and its transpose must call the function again.
    return cd.linear_call(lambda _, x: x, lambda _, t: 7.0, (), x)


def test_linear_call_documented_examples():
    _close(div_add(9.0, 3.0), 12.0)
    _close(_transpose(lambda x: div_add(x, 3.0), 1.0)(18.0), 24.0)
    _close(_transpose(lambda x: x + x / 3.0, 1.0)(18.0), 24.0)
    _close(custom_id(1.0), 1.0)
    _close(_transpose(custom_id, 1.0)(1.0), 7.0)
    _close(_transpose(_transpose(custom_id, 1.0), 1.0)(1.0), 1.0)
    _close(_transpose(_transpose(_transpose(custom_id, 1.0), 1.0), 1.0)(1.0), 7.0)


def test_linear_call_autodiff_values():
    _close(spmd.jit(div_add)(9.0, 3.0), 12.0)
    _close(spmd.grad(div_add)(9.0, 3.0), 4.0 / 3.0)
    _close(spmd.jit(spmd.grad(div_add))(9.0, 3.0), 4.0 / 3.0)
    out, t = spmd.jvp(lambda x: div_add(x, 3.0), (9.0,), (1.0,))
    _close(out, 12.0)
    _close(t, 4.0 / 3.0)
    _, f_lin = spmd.linearize(lambda x: div_add(x, 3.0), 9.0)
    _close(f_lin(1.0), 4.0 / 3.0)
    _, f_vjp = spmd.vjp(lambda x: div_add(x, 3.0), 9.0)
    _close(f_vjp(1.0)[0], 4.0 / 3.0)
    # The transpose (here deliberately twice the true one) is what reverse mode uses.
    lc = lambda r, x: cd.linear_call(lambda r, x: x * r, lambda r, c: 2 * c * r, r, x)  # noqa: E731
    r = jnp.arange(1.0, 4.0)
    _close(spmd.grad(lambda x: lc(r, x).sum())(jnp.ones(3)), 2 * np.arange(1.0, 4.0))
    _close(spmd.jacrev(lambda x: lc(r, x))(jnp.ones(3)), np.diag([2.0, 4.0, 6.0]))
    _close(spmd.jacfwd(lambda x: lc(r, x))(jnp.ones(3)), np.diag([1.0, 2.0, 3.0]))
    sq = lambda x: cd.linear_call(lambda r, x: x * r, lambda r, c: c * r, 3.0, x) ** 2  # noqa: E731
    _close(spmd.hessian(sq)(2.0), 18.0)


def test_linear_call_pytrees_and_several_outputs():
    def fun(r, x):
        return {"a": x[0] * r["s"], "b": x[1]}

    def fun_t(r, c):
        return c["a"] * r["s"], c["b"]

    out = cd.linear_call(fun, fun_t, {"s": 2.0}, (1.0, jnp.ones(2)))
    _close(out["a"], 2.0)
    _close(out["b"], [1.0, 1.0])
    f = lambda x: cd.linear_call(fun, fun_t, {"s": 2.0}, x)  # noqa: E731
    ((ca, cb),) = spmd.linear_transpose(f, (1.0, jnp.ones(2)))({"a": 3.0, "b": jnp.arange(2.0)})
    _close(ca, 6.0)
    _close(cb, [0.0, 1.0])
    # Two outputs, one of them unused: its zero cotangent reaches the transpose as zeros.
    g = lambda r, x: (x * r, x + x)  # noqa: E731
    gt = lambda r, c: c[0] * r + 2 * c[1]  # noqa: E731
    _close(spmd.grad(lambda x: cd.linear_call(g, gt, 3.0, x)[0])(1.0), 3.0)
    _close(spmd.jit(spmd.grad(lambda x: sum(cd.linear_call(g, gt, 3.0, x))))(1.0), 5.0)
    # Integer linear arguments (JAX 0.10.2: 6 and (1,)).
    _close(cd.linear_call(lambda r, x: x * 2, lambda r, c: c * 2, (), jnp.int32(3)), 6)
    ident = lambda x: cd.linear_call(lambda r, x: x, lambda r, c: c, (), x)  # noqa: E731
    (ct,) = spmd.linear_transpose(ident, 1)(1)
    assert int(ct) == 1 and ct.dtype == np.int32


def test_linear_call_closed_over_values():
    w = jnp.arange(3.0)
    f = lambda x: cd.linear_call(lambda r, x: x * w, lambda r, c: c * w * 2, (), x)  # noqa: E731
    _close(f(jnp.ones(3)), [0.0, 1.0, 2.0])
    _close(spmd.grad(lambda x: f(x).sum())(jnp.ones(3)), [0.0, 2.0, 4.0])
    # A transpose of a scalar cotangent, closing over w.
    h = lambda x: cd.linear_call(lambda r, x: (x * w).sum(), lambda r, c: c * w * 2, (), x)  # noqa: E731
    _close(spmd.grad(h)(jnp.ones(3)), [0.0, 2.0, 4.0])


# make_jaxpr texts of JAX 0.10.2.

_DIV_ADD_JAXPR = """\
{ lambda ; a:f32[] b:f32[]. let
    c:f32[] = linear_call[
      callee={ lambda ; d:f32[] e:f32[]. let f:f32[] = div e d in (f,) }
      num_callee_consts=0
      num_res=1
      transpose_thunk=<function _memoize.<locals>.memoized at 0xXXXXXXXXXXXX>
    ] b a
    g:f32[] = add a c
  in (g,) }"""

_TRANSPOSE_JAXPR = """\
{ lambda ; a:f32[]. let
    b:f32[] = linear_call[
      callee={ lambda ; c:f32[] d:f32[]. let e:f32[] = div d c in (e,) }
      num_callee_consts=0
      num_res=1
      transpose_thunk=<function _linear_call_transpose_rule.<locals>.new_transpose_thunk \
at 0xXXXXXXXXXXXX>
    ] 3.0:f32[] a
    f:f32[] = add_any a b
  in (f,) }"""

_JVP_JAXPR = """\
let jaxpr = { lambda ; a:f32[] b:f32[]. let c:f32[] = div b a in (c,) } in
{ lambda ; d:f32[]. let
    e:f32[] = linear_call[
      callee=jaxpr
      num_callee_consts=0
      num_res=1
      transpose_thunk=<function _memoize.<locals>.memoized at 0xXXXXXXXXXXXX>
    ] 3.0:f32[] d
    f:f32[] = linear_call[
      callee=jaxpr
      num_callee_consts=0
      num_res=1
      transpose_thunk=<function _memoize.<locals>.memoized at 0xXXXXXXXXXXXX>
    ] 3.0:f32[] d
    g:f32[] = add d e
    h:f32[] = add d f
  in (g, h) }"""

_GRAD_TWO_OUTPUTS_JAXPR = """\
{ lambda ; a:f32[]. let
    _:f32[] _:f32[] = linear_call[
      callee={ lambda ; b:f32[] c:f32[]. let
          d:f32[] = mul c b
          e:f32[] = add c c
        in (d, e) }
      num_callee_consts=0
      num_res=1
      transpose_thunk=<function _memoize.<locals>.memoized at 0xXXXXXXXXXXXX>
    ] 3.0:f32[] a
    f:f32[] = linear_call[
      callee={ lambda ; g:f32[] h:f32[] i:f32[]. let
          j:f32[] = mul h g
          k:f32[] = mul 2.0:f32[] i
          l:f32[] = add j k
        in (l,) }
      num_callee_consts=0
      num_res=1
      transpose_thunk=<function _linear_call_transpose_rule.<locals>.new_transpose_thunk \
at 0xXXXXXXXXXXXX>
    ] 3.0:f32[] 1.0:f32[] 0.0:f32[]
  in (f,) }"""

_CLOSURE_JAXPR = """\
{ lambda a:f32[3]; b:f32[3]. let
    c:f32[3] = linear_call[
      callee={ lambda ; d:f32[3] e:f32[3]. let f:f32[3] = mul e d in (f,) }
      num_callee_consts=1
      num_res=0
      transpose_thunk=<function _memoize.<locals>.memoized at 0xXXXXXXXXXXXX>
    ] a b
  in (c,) }"""


def test_linear_call_jaxprs_print_as_jax():
    assert str(spmd.make_jaxpr(div_add)(9.0, 3.0)) == _DIV_ADD_JAXPR
    text = str(spmd.make_jaxpr(_transpose(lambda x: div_add(x, 3.0), 1.0))(18.0))
    assert text == _TRANSPOSE_JAXPR
    jvp = lambda x: spmd.jvp(lambda x: div_add(x, 3.0), (x,), (x,))  # noqa: E731
    assert str(spmd.make_jaxpr(jvp)(9.0)) == _JVP_JAXPR
    g = lambda r, x: (x * r, x + x)  # noqa: E731
    gt = lambda r, c: c[0] * r + 2 * c[1]  # noqa: E731
    grad_fn = spmd.grad(lambda x: cd.linear_call(g, gt, 3.0, x)[0])
    assert str(spmd.make_jaxpr(grad_fn)(1.0)) == _GRAD_TWO_OUTPUTS_JAXPR
    w = jnp.arange(3.0)
    f = lambda x: cd.linear_call(lambda r, x: x * w, lambda r, c: c * w, (), x)  # noqa: E731
    assert str(spmd.make_jaxpr(f)(jnp.ones(3))) == _CLOSURE_JAXPR


def test_linear_call_errors():
    f = lambda r, x: x * r  # noqa: E731
    with pytest.raises(TypeError, match="linear_call: fun must be callable"):
        cd.linear_call(1, f, 1.0, 1.0)
    with pytest.raises(TypeError, match="linear_call: fun_transpose must be callable"):
        cd.linear_call(f, 3, 2.0, 1.0)
    with pytest.raises(TypeError, match=r"Argument 'a' of type <class 'str'> is not a valid JAX"):
        cd.linear_call(f, f, 2.0, "a")
    with pytest.raises(TypeError, match=r"Argument 'a' of type <class 'str'> is not a valid JAX"):
        cd.linear_call(f, f, "a", 1.0)
    with pytest.raises(TypeError, match="missing 2 required positional arguments"):
        cd.linear_call(f, f)
    # The transpose's output must be shaped like linear_args (checked when it is used).
    bad_tree = lambda x: cd.linear_call(f, lambda r, c: (c, c), 3.0, x)  # noqa: E731
    _close(bad_tree(1.0), 3.0)
    with pytest.raises(TypeError, match=r"pytree structure of linear_args.*\(\*, \*\)"):
        spmd.linear_transpose(bad_tree, 1.0)(1.0)
    bad_shape = lambda x: cd.linear_call(f, lambda r, c: jnp.ones(3), 2.0, x)  # noqa: E731
    with pytest.raises(ValueError, match=r"float32\[3\] for a linear argument of type float32\[\]"):
        spmd.linear_transpose(bad_shape, 1.0)(1.0)
    # Not differentiable in its residuals, nor in values fun closes over (JAX: AssertionError).
    with pytest.raises(AssertionError, match="an element of residual_args is being differentiated"):
        spmd.grad(div_add, 1)(9.0, 3.0)
    with pytest.raises(AssertionError, match="an element of residual_args"):
        spmd.jvp(div_add, (9.0, 3.0), (1.0, 0.0))
    closes = lambda y: cd.linear_call(lambda r, x: x * y, lambda r, c: c * y, (), 2.0)  # noqa: E731
    with pytest.raises(AssertionError, match="a value that fun closes over"):
        spmd.grad(closes)(1.0)


# Under vmap (JAX 0.10.2 has no batching rule for linear_call; spmd's is checked against the
# math): the batched transpose is the user's transpose per example.


def _lc2(r, x):
    return cd.linear_call(lambda r, x: x * r, lambda r, c: 2 * c * r, r, x)


def test_linear_call_vmap():
    r, x = jnp.arange(1.0, 4.0), jnp.arange(3.0) + 10
    rn, xn = np.arange(1.0, 4.0), np.arange(3.0) + 10
    _close(spmd.vmap(_lc2)(r, x), rn * xn)
    _close(spmd.vmap(_lc2, (None, 0))(2.0, x), 2 * xn)
    _close(spmd.vmap(_lc2, (0, None))(r, 5.0), 5 * rn)
    R, X = jnp.arange(6.0).reshape(2, 3), jnp.ones((2, 3))
    _close(spmd.vmap(_lc2, (1, 1))(R, X), np.arange(6.0).reshape(2, 3).T)
    # Reverse mode through the batched call, and vmap of reverse mode.
    _close(spmd.grad(lambda x: spmd.vmap(_lc2)(r, x).sum())(x), 2 * rn)
    _close(spmd.grad(lambda x: spmd.vmap(_lc2, (0, None))(r, x).sum())(5.0), 12.0)
    _close(spmd.grad(lambda X: spmd.vmap(_lc2, (1, 1))(R, X).sum())(X), 2 * np.asarray(R))
    _close(spmd.vmap(spmd.grad(lambda x, r: _lc2(r, x)))(x, r), 2 * rn)
    _close(spmd.vmap(spmd.grad(lambda x, r: _lc2(r, x)), (None, 0))(1.0, r), 2 * rn)
    _close(spmd.jit(spmd.vmap(spmd.grad(lambda x, r: _lc2(r, x))))(x, r), 2 * rn)
    # vmap of the transpose and of the transpose of the transpose.
    lt = lambda r: spmd.linear_transpose(lambda x: _lc2(r, x), 1.0)  # noqa: E731
    _close(spmd.vmap(lambda r, c: lt(r)(c)[0])(r, x), 2 * rn * xn)
    ltt = lambda r, c: spmd.linear_transpose(lambda y: lt(r)(y)[0], 1.0)(c)[0]  # noqa: E731
    _close(spmd.vmap(ltt)(r, x), rn * xn)


def test_linear_call_vmap_closing_over_batched_values():
    w, x = jnp.arange(3.0), jnp.arange(3.0) + 10

    def g(w, x):
        return cd.linear_call(lambda r, x: x * w, lambda r, c: c * w * 3, (), x)

    _close(spmd.vmap(g)(w, x), np.arange(3.0) * (np.arange(3.0) + 10))
    # The transpose is used after the map is over: its batched closure was unbatched in time.
    _close(spmd.grad(lambda x: spmd.vmap(g)(w, x).sum())(x), 3 * np.arange(3.0))
    # A transpose that fails fails when it is used, as unbatched.
    bad = lambda x: cd.linear_call(lambda r, x: x * r, lambda r, c: (c, c), 2.0, x)  # noqa: E731
    _close(spmd.vmap(bad)(x), 2 * (np.arange(3.0) + 10))
    with pytest.raises(TypeError, match="pytree structure of linear_args"):
        spmd.grad(lambda x: spmd.vmap(bad)(x).sum())(x)


# ---------------------------------------------------------------------------------------------
# zero_from_primal and custom_vjp_primal_tree_values


def test_zero_from_primal_concrete():
    z = cd.zero_from_primal(jnp.ones((2, 2), jnp.float16))
    assert z.dtype == np.float16 and z.shape == (2, 2) and not z.weak_type
    assert not np.any(np.asarray(z))
    z = cd.zero_from_primal(1.0)  # JAX 0.10.2: Array(0., dtype=float32, weak_type=True)
    assert z.dtype == np.float32 and z.weak_type and float(z) == 0.0
    z = cd.zero_from_primal(1j)
    assert z.dtype == np.complex64 and z.weak_type
    with spmd.enable_x64(True):
        z = cd.zero_from_primal(1.0)
        assert z.dtype == np.float64 and z.weak_type
    # Integers and booleans have float0 tangents.
    for x in (jnp.arange(3), True, 2, jnp.int8(1)):
        z = cd.zero_from_primal(x)
        assert z.dtype == spmd.dtypes.float0 and z.shape == np.shape(x)
    out = cd.zero_from_primal([1.0, None, (jnp.ones(2),)])
    assert out[1] is None and float(out[0]) == 0.0 and out[2][0].shape == (2,)
    assert str(spmd.make_jaxpr(cd.zero_from_primal)(1.0)) == (
        "{ lambda ; a:f32[]. let  in (0.0:f32[],) }"
    )
    _close(spmd.vmap(cd.zero_from_primal)(jnp.arange(3.0)), [0.0, 0.0, 0.0])
    _close(spmd.grad(lambda x: cd.zero_from_primal(x * x) + x)(2.0), 1.0)
    with pytest.raises(TypeError, match=r"Argument 'a' of type <class 'str'> is not a valid JAX"):
        cd.zero_from_primal("a")


def test_zero_from_primal_symbolic():
    out = cd.zero_from_primal({"a": jnp.arange(3), "b": 2.0}, symbolic_zeros=True)
    assert isinstance(out["a"], SymbolicZero) and isinstance(out["b"], SymbolicZero)
    assert out["a"].shape == (3,) and out["a"].dtype == spmd.dtypes.float0
    assert out["b"].shape == () and out["b"].dtype == np.float32 and out["b"].aval.weak_type
    # Rules defined with symbolic_zeros=True may return them: a jvp rule whose tangent is zero.
    f = custom_jvp(lambda x: 2.0 * x)
    rule = lambda p, t: (f(*p), cd.zero_from_primal(p[0], symbolic_zeros=True))  # noqa: E731
    f.defjvp(rule, symbolic_zeros=True)
    assert float(spmd.grad(f)(3.0)) == 0.0
    out, t = spmd.jvp(f, (3.0,), (1.0,))
    assert float(out) == 6.0 and float(t) == 0.0


def test_custom_vjp_primal_tree_values():
    tree = {"a": CustomVJPPrimal(1.0, True), "b": [CustomVJPPrimal(jnp.ones(2), False)]}
    out = cd.custom_vjp_primal_tree_values(tree)
    assert out["a"] == 1.0 and out["b"][0].shape == (2,)
    with pytest.raises(TypeError, match="unexpected leaf type <class 'float'>"):
        cd.custom_vjp_primal_tree_values({"a": 1.0})

    # In a fwd rule with symbolic zeros, over pytree arguments.
    @custom_vjp
    def f(d):
        return d["x"] * d["y"]

    def f_fwd(d):
        assert isinstance(d["x"], CustomVJPPrimal) and d["x"].perturbed
        vals = cd.custom_vjp_primal_tree_values(d)
        return f(vals), vals

    def f_bwd(vals, ct):
        return ({"x": ct * vals["y"], "y": ct * vals["x"]},)

    f.defvjp(f_fwd, f_bwd, symbolic_zeros=True)
    g = spmd.grad(f)({"x": 2.0, "y": 5.0})
    _close(g["x"], 5.0)
    _close(g["y"], 2.0)


# ---------------------------------------------------------------------------------------------
# spmd.typing


def test_typing_array_like():
    import typing

    from spmd.typing import ArrayLike

    # JAX 0.10.2's members: its Array, np.ndarray, np.bool, np.number and the Python scalars.
    assert set(typing.get_args(ArrayLike)) == {
        spmd.Array, np.ndarray, np.bool_, np.number, bool, int, float, complex
    }  # fmt: skip
    for v in (jnp.ones(2), np.ones(2), np.float32(1), np.bool_(True), True, 1, 1.0, 1j):
        assert isinstance(v, ArrayLike), v
    for v in ("a", [1.0], None, (1,)):
        assert not isinstance(v, ArrayLike), v
    seen = []
    spmd.jit(lambda x: seen.append(isinstance(x, ArrayLike)) or x)(1.0)
    assert seen == [False]  # tracers are not ArrayLike instances, as in JAX

    def f(x: ArrayLike) -> spmd.Array:
        return jnp.asarray(x) + 1

    _close(f(np.float32(1)), 2.0)


def test_typing_dtype_like():
    import typing

    from spmd.typing import DTypeLike

    args = typing.get_args(DTypeLike)
    assert str in args and np.dtype in args and type[typing.Any] in args
    supports = [a for a in args if a not in (str, np.dtype, type[typing.Any])]
    (sd,) = supports
    # The protocol of objects with a dtype: arrays and ShapeDtypeStructs have one.
    assert isinstance(jnp.ones(2), sd) and isinstance(spmd.ShapeDtypeStruct((2,), np.int8), sd)
    assert not isinstance(3, sd)
    assert isinstance("float32", DTypeLike)
    with pytest.raises(TypeError, match="parameterized generic"):
        isinstance(np.float32, DTypeLike)  # as JAX's: type[Any] cannot be checked


def test_reachable_after_bare_import():
    import subprocess
    import sys

    code = (
        "import spmd as jax\n"
        "assert jax.custom_derivatives.linear_call is not None\n"
        "assert jax.custom_derivatives.custom_jvp is jax.custom_jvp\n"
        "assert isinstance(1.0, jax.typing.ArrayLike)\n"
        "assert 'typing' not in jax.__all__  # a star import must not shadow the stdlib's\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
