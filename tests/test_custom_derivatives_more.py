"""More of ``custom_jvp`` and ``custom_vjp`` against JAX 0.10.2: ``nondiff_argnames``, how
``SymbolicZero`` prints and how rules may return it, and programs probed side by side with JAX
(pytrees, integer inputs, closures, nesting, vmap, linearize, jacfwd/jacrev, error cases).
Expected values and error texts come from running JAX 0.10.2 (hard-coded here)."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd.custom_derivatives import SymbolicZero
from spmd.errors import UnexpectedTracerError


def _close(a, b, tol=1e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=tol, atol=tol)


# ---------------------------------------------------------------------------------------------
# nondiff_argnames


def _jvp_times(**kw):
    @partial(spmd.custom_jvp, **kw)
    def f(x, n):
        return x * n

    @f.defjvp
    def f_jvp(n, primals, tangents):
        # The rule's tangent is 10x the true one, so the tests see that the rule ran.
        return f(primals[0], n), tangents[0] * n * 10

    return f


def _vjp_times(**kw):
    @partial(spmd.custom_vjp, **kw)
    def v(x, n):
        return x * n

    v.defvjp(lambda x, n: (v(x, n), x), lambda n, r, g: (g * n * 10 + r,))
    return v


def test_custom_jvp_nondiff_argnames_resolve_to_positions():
    f = _jvp_times(nondiff_argnames=("n",))
    assert f.nondiff_argnums == (1,)
    assert float(f(2.0, 3)) == 6.0 and float(f(2.0, n=3)) == 6.0
    p, t = spmd.jvp(lambda x: f(x, 3), (2.0,), (1.0,))
    assert (float(p), float(t)) == (6.0, 30.0)
    assert float(spmd.grad(f)(2.0, 3)) == 30.0
    assert float(spmd.grad(lambda x: f(x, n=3))(2.0)) == 30.0
    assert float(spmd.jit(spmd.grad(f), static_argnums=1)(2.0, 3)) == 30.0
    _close(spmd.vmap(spmd.grad(f), (0, None))(jnp.arange(3.0), 3), [30.0, 30.0, 30.0])


def test_custom_vjp_nondiff_argnames_resolve_to_positions():
    v = _vjp_times(nondiff_argnames=("n",))
    assert v.nondiff_argnums == (1,)
    assert float(v(2.0, n=3)) == 6.0
    assert float(spmd.grad(v)(2.0, 3)) == 32.0
    assert float(spmd.grad(lambda x: v(x, n=3))(2.0)) == 32.0
    assert float(spmd.jit(spmd.grad(v), static_argnums=1)(2.0, 3)) == 32.0
    _close(spmd.vmap(spmd.grad(v), (0, None))(jnp.arange(3.0), 3), [30.0, 31.0, 32.0])
    (ct,) = spmd.vjp(lambda x: v(x, 3), 2.0)[1](1.0)
    assert float(ct) == 32.0


def test_nondiff_argnames_union_with_argnums_is_sorted():
    # JAX merges the two into one sorted tuple: the rule gets a's value, then n's.
    @partial(spmd.custom_jvp, nondiff_argnums=(0,), nondiff_argnames=("n",))
    def g(a, x, n):
        return x * n * a

    @g.defjvp
    def g_jvp(a, n, p, t):
        return g(a, p[0], n), t[0] * n * a * 10

    assert g.nondiff_argnums == (0, 2)
    assert float(spmd.grad(g, 1)(2.0, 3.0, 4)) == 80.0

    # nondiff_argnums given out of order are sorted too.
    @partial(spmd.custom_jvp, nondiff_argnums=(2, 0))
    def o(a, x, b):
        return x * a - b

    seen = []

    @o.defjvp
    def o_jvp(u, v, p, t):
        seen.append((float(u), float(v)))
        return o(u, p[0], v), t[0]

    assert o.nondiff_argnums == (0, 2)
    p, t = spmd.jvp(lambda x: o(1.0, x, 2.0), (1.0,), (1.0,))
    assert (float(p), float(t)) == (-1.0, 1.0) and seen == [(1.0, 2.0)]


@pytest.mark.parametrize("make", [_jvp_times, _vjp_times])
def test_nondiff_argnames_forms_and_unknown_names(make):
    # A bare string is one name; repeats collapse; names JAX cannot place are ignored.
    assert make(nondiff_argnames="n").nondiff_argnums == (1,)
    assert make(nondiff_argnames=["n", "n"]).nondiff_argnums == (1,)
    assert make(nondiff_argnames=("zz",)).nondiff_argnums == ()

    def kwo(x, *, n=2):
        return x * n

    cls = spmd.custom_jvp if make is _jvp_times else spmd.custom_vjp
    assert cls(kwo, nondiff_argnames=("n",)).nondiff_argnums == ()


@pytest.mark.parametrize("cls", [spmd.custom_jvp, spmd.custom_vjp])
def test_nondiff_argnames_bad_input(cls):
    with pytest.raises(TypeError, match="argument is not a string: 1"):
        cls(lambda x, n: x * n, nondiff_argnames=(1,))
    # JAX asserts that names can be resolved through the signature.
    with pytest.raises(AssertionError, match="max"):
        cls(max, nondiff_argnames=("n",))


def test_custom_jvp_traced_nondiff_argument_has_zero_derivative():
    # JAX stops the gradient of a traced nondiff argument of a custom_jvp function.
    f = _jvp_times(nondiff_argnames=("n",))
    assert float(spmd.grad(lambda n: f(2.0, n))(3.0)) == 0.0
    assert float(spmd.jit(lambda n: f(2.0, n))(3.0)) == 6.0
    _close(spmd.vmap(lambda n: f(2.0, n))(jnp.arange(3.0)), [0.0, 2.0, 4.0])
    p, t = spmd.vmap(lambda n: spmd.jvp(lambda x: f(x, n), (2.0,), (1.0,)))(jnp.arange(3.0))
    _close(p, [0.0, 2.0, 4.0])
    _close(t, [0.0, 10.0, 20.0])


@pytest.mark.parametrize("transform", [spmd.grad, spmd.jit])
def test_custom_vjp_traced_nondiff_argument_is_refused(transform):
    v = _vjp_times(nondiff_argnames=("n",))
    with pytest.raises(UnexpectedTracerError, match="custom_vjp function v: argument 1"):
        transform(lambda n: v(2.0, n))(3.0)


@pytest.mark.parametrize("make,what", [(_jvp_times, "custom_jvp"), (_vjp_times, "custom_vjp")])
def test_unresolvable_call_arguments(make, what):
    fn = make()
    name = "f" if what == "custom_jvp" else "v"
    msg = (
        f"The input arguments to the {what}-decorated function {name} could not be resolved "
        "to positional-only arguments. Binding failed with the error:\n"
        "missing a required argument: 'n'"
    )
    with pytest.raises(TypeError) as e:
        fn(2.0, m=3)
    assert str(e.value) == msg


def test_keyword_only_parameters():
    def kwo(x, *, n=2.0):
        return x * n

    f = spmd.custom_jvp(kwo)
    f.defjvp(lambda p, t: (f(p[0]), t[0] * 7.0))
    # Left at its default, a keyword-only parameter is fine (the function's default applies).
    assert float(f(1.0)) == 2.0
    assert float(spmd.grad(f)(1.0)) == 7.0
    with pytest.raises(TypeError) as e:
        f(1.0, n=3.0)
    assert str(e.value).endswith(
        "Binding failed with the error:\n"
        "The following keyword arguments could not be resolved to positions: n"
    )


# ---------------------------------------------------------------------------------------------
# SymbolicZero: printing, attributes, and rules that return it


def test_symbolic_zero_prints_its_class_name_and_reads_its_type():
    from spmd._src import core

    sz = SymbolicZero(core.get_aval(jnp.zeros((2, 3))))
    assert repr(sz) == "SymbolicZero" and str(sz) == "SymbolicZero"
    assert (sz.shape, sz.dtype, sz.ndim, sz.size, sz.weak_type) == ((2, 3), np.float32, 2, 6, False)
    with pytest.raises(AttributeError, match="'ShapedArray' object has no attribute 'foo'"):
        sz.foo  # noqa: B018
    assert SymbolicZero.from_primal_value(jnp.ones(3)).aval == core.ShapedArray((3,), np.float32)
    assert SymbolicZero.from_primal_value(jnp.ones(3, int)).dtype == spmd.dtypes.float0


def test_rule_sees_symbolic_zero_printed_as_jax_does():
    f = spmd.custom_jvp(lambda x, y: x * y)
    seen = []

    def f_jvp(p, t):
        seen.append((repr(t[1]), type(t[1]).__name__))
        return f(*p), t[1]

    f.defjvp(f_jvp, symbolic_zeros=True)
    p, t = spmd.jvp(lambda x: f(x, 2.0), (3.0,), (1.0,))
    assert seen == [("SymbolicZero", "SymbolicZero")]
    # The returned zero keeps y's weak type, as JAX's does.
    assert float(t) == 0.0 and t.weak_type and t.dtype == np.float32


def _returns_symbolic_zero(symbolic_zeros):
    g = spmd.custom_jvp(lambda x: x * 2)
    g.defjvp(
        lambda p, t: (g(*p), SymbolicZero.from_primal_value(p[0])),
        symbolic_zeros=symbolic_zeros,
    )
    return g


@pytest.mark.parametrize("symbolic_zeros", [True, False])
def test_symbolic_zero_tangent_output_keeps_weak_type(symbolic_zeros):
    g = _returns_symbolic_zero(symbolic_zeros)
    for run in [lambda x: spmd.jvp(g, (x,), (1.0,)), spmd.jit(lambda x: spmd.jvp(g, (x,), (1.0,)))]:
        p, t = run(3.0)
        assert float(p) == 6.0 and p.weak_type
        assert float(t) == 0.0 and t.weak_type and t.dtype == np.float32
    # A strongly typed primal gives a strong zero.
    _, t = spmd.jvp(g, (jnp.float32(3.0),), (jnp.float32(1.0),))
    assert not t.weak_type
    _, t = spmd.vmap(lambda x: spmd.jvp(g, (x,), (1.0,)))(jnp.ones(2))
    _close(t, [0.0, 0.0])
    _close(spmd.jacfwd(g)(jnp.ones(2)), np.zeros((2, 2)))


def test_symbolic_zero_output_under_grad_needs_symbolic_zeros():
    assert float(spmd.grad(_returns_symbolic_zero(True))(3.0)) == 0.0
    g = _returns_symbolic_zero(False)
    msg = (
        "Argument 'SymbolicZero' of type '<class 'spmd._src.custom_derivatives.common."
        "SymbolicZero'>' is not a valid JAX type"
    )
    for run in [
        lambda: spmd.grad(g)(3.0),
        lambda: spmd.jit(spmd.grad(g))(3.0),
        lambda: spmd.linearize(g, 3.0),
        lambda: spmd.vmap(spmd.grad(g))(jnp.ones(2)),
        lambda: spmd.jacrev(g)(jnp.ones(2)),
    ]:
        with pytest.raises(TypeError) as e:
            run()
        assert str(e.value) == msg


def test_jvp_of_constant_function_has_weak_zero_tangent():
    # zeros for weakly typed tangents stay weak (JAX: Array(0., weak_type=True)).
    _, t = spmd.jvp(lambda x: 2.0, (1.0,), (1.0,))
    assert t.weak_type and float(t) == 0.0
    _, t = spmd.jit(lambda x: spmd.jvp(spmd.lax.stop_gradient, (x,), (1.0,)))(1.0)
    assert t.weak_type and float(t) == 0.0


# ---------------------------------------------------------------------------------------------
# defvjp(optimize_remat=...) and defjvps


def _sin2_remat():
    @spmd.custom_vjp
    def orm(x):
        return jnp.sin(x) * 2

    orm.defvjp(lambda x: (orm(x), jnp.cos(x)), lambda r, g: (r * g * 3,), optimize_remat=True)
    return orm


def test_custom_vjp_optimize_remat():
    orm = _sin2_remat()
    assert orm.optimize_remat is True and spmd.custom_vjp(jnp.sin).optimize_remat is False
    want = 3 * np.cos(np.float32(1.0))
    _close(spmd.grad(orm)(1.0), want)
    _close(spmd.jit(spmd.grad(orm))(1.0), want)
    _close(spmd.grad(spmd.checkpoint(orm))(1.0), want)
    _close(spmd.vmap(spmd.grad(orm))(jnp.arange(3.0)), 3 * np.cos(np.arange(3.0)))
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        spmd.jvp(orm, (1.0,), (1.0,))
    with pytest.raises(NotImplementedError, match="symbolic_zeros"):
        orm.defvjp(lambda x: (x, None), lambda r, g: (g,), symbolic_zeros=True, optimize_remat=True)


def test_defjvps_with_one_function_per_argument():
    f = spmd.custom_jvp(lambda x, y: x * y)
    f.defjvps(lambda xd, ans, x, y: xd * y * 10, lambda yd, ans, x, y: yd * x * 100)
    gx, gy = spmd.grad(f, (0, 1))(2.0, 3.0)
    assert (float(gx), float(gy)) == (30.0, 200.0)
    _, t = spmd.jvp(lambda x: f(x, 3.0), (2.0,), (1.0,))
    assert float(t) == 30.0
    g = spmd.custom_jvp(lambda x, y: x * y)
    g.defjvps(None, lambda yd, ans, x, y: yd * x)
    gx, gy = spmd.grad(g, (0, 1))(2.0, 3.0)
    assert (float(gx), float(gy)) == (0.0, 2.0)


@pytest.mark.parametrize("n", [1, 3])
def test_defjvps_count_must_match_arguments(n):
    f = spmd.custom_jvp(lambda x, y: x * y)
    f.defjvps(*[lambda t, ans, x, y: t] * n)
    with pytest.raises(ValueError, match=f"got {n} jvp functions .* called with 2 arguments"):
        spmd.grad(f, (0, 1))(2.0, 3.0)


# ---------------------------------------------------------------------------------------------
# custom_vjp: what bwd and fwd may return


def _times2_vjp(bwd, fwd=lambda x: (x * 2.0, None)):
    f = spmd.custom_vjp(lambda x: x * 2.0)
    f.defvjp(fwd, bwd)
    return f


@pytest.mark.parametrize(
    "ct,dtype,weak",
    [
        (lambda: jnp.ones((), jnp.int32), np.int32, False),
        (lambda: jnp.ones((), jnp.float16), np.float16, False),
        (lambda: np.ones((), np.float64), np.float32, False),  # canonicalized, as under jit
        (lambda: 3.0, np.float32, True),
        (lambda: 3, np.int32, True),
    ],
)
def test_bwd_cotangent_keeps_its_dtype(ct, dtype, weak):
    # JAX does not cast what bwd returns to the input's dtype (jit(grad) gives these dtypes).
    f = _times2_vjp(lambda r, g: (ct(),))
    for run in [
        lambda: spmd.grad(f)(1.0),
        lambda: spmd.grad(f)(jnp.float32(1.0)),
        lambda: spmd.jit(spmd.grad(f))(1.0),
        lambda: spmd.vjp(f, 1.0)[1](1.0)[0],
    ]:
        g = run()
        assert g.dtype == dtype and g.weak_type == weak
        assert float(g) == float(ct())
    g = spmd.vmap(spmd.grad(f))(jnp.ones(2))
    assert g.dtype == dtype and g.shape == (2,)


def test_bwd_output_errors():
    ok_fwd = lambda x, y: (x * y, (x, y))  # noqa: E731

    def grad_with(bwd):
        f = spmd.custom_vjp(lambda x, y: x * y)
        f.defvjp(ok_fwd, bwd)
        return spmd.grad(f)(2.0, 3.0)

    structure = "Custom VJP bwd rule must produce an output with the same container"
    for bwd in [lambda r, g: g, lambda r, g: (g,), lambda r, g: (g, g, g), lambda r, g: None]:
        with pytest.raises(TypeError, match=structure):
            grad_with(bwd)
    with pytest.raises(ValueError, match=r"at output\[0\] .* float32\[2\] .* float32\[\]"):
        grad_with(lambda r, g: (jnp.ones(2), g))
    # A list of the right length is taken as the tuple; None is a zero cotangent.
    assert float(grad_with(lambda r, g: [g * r[1], g])) == 3.0
    assert float(grad_with(lambda r, g: (None, g))) == 0.0


@pytest.mark.parametrize("res", ["s", len])
def test_fwd_residual_must_be_an_array(res):
    f = _times2_vjp(lambda r, g: (g,), fwd=lambda x: (x * 2.0, res))
    with pytest.raises(TypeError, match="is not a valid JAX type: custom VJP fwd rule <lambda>"):
        spmd.grad(f)(1.0)


# ---------------------------------------------------------------------------------------------
# custom_jvp: what the rule's tangent output may be


def _int_output(tangent):
    f = spmd.custom_jvp(lambda x: (x * 2).astype(jnp.int32))
    f.defjvp(lambda p, t: (f(p[0]), tangent(t)))
    return f


def test_int_output_needs_a_float0_tangent():
    x = jnp.float32(1.5)
    f = _int_output(lambda t: np.zeros((), spmd.dtypes.float0))
    p, t = spmd.jvp(f, (x,), (x,))
    assert int(p) == 3 and t.dtype == spmd.dtypes.float0
    assert float(spmd.grad(lambda x: f(x).astype(jnp.float32) + x)(x)) == 1.0
    # JAX refuses any other zero (int, bool, Python 0, or the float tangent).
    for tangent, got in [
        (lambda t: jnp.zeros((), jnp.int32), "int32[]"),
        (lambda t: np.zeros((), bool), "bool[]"),
        (lambda t: 0, "int32[]"),
        (lambda t: t[0], "float32[]"),
    ]:
        g = _int_output(tangent)
        msg = (
            "Custom JVP rule must produce primal and tangent outputs with corresponding shapes "
            f"and dtypes. Expected float0[] (tangent type of int32[]) but got {got}."
        )
        for run in [
            lambda g=g: spmd.jvp(g, (x,), (x,)),
            lambda g=g: spmd.jit(lambda x: spmd.jvp(g, (x,), (x,)))(x),
            lambda g=g: spmd.grad(lambda x: g(x).astype(jnp.float32) + x)(x),
        ]:
            with pytest.raises(TypeError) as e:
                run()
            assert str(e.value) == msg


def test_python_scalar_tangent_output_stays_weak():
    f = spmd.custom_jvp(lambda x: x * 2)
    f.defjvp(lambda p, t: (f(p[0]), 2.0))
    x = jnp.float32(1.0)
    _, t = spmd.jit(lambda x: spmd.jvp(f, (x,), (x,)))(x)
    assert t.dtype == np.float32 and t.weak_type and float(t) == 2.0
    # A constant tangent does not depend on the input: its gradient is zero (as in JAX).
    assert float(spmd.grad(f)(x)) == 0.0
    g = spmd.custom_jvp(lambda x: x * 2)
    g.defjvp(lambda p, t: (g(p[0]), 0.0))
    with pytest.raises(TypeError, match=r"Expected float16\[\] .* but got float32\[\]"):
        spmd.jvp(g, (jnp.float16(1.0),), (jnp.float16(1.0),))


@pytest.mark.parametrize("cls", [spmd.custom_jvp, spmd.custom_vjp])
def test_nondiff_argnums_past_the_arguments(cls):
    f = cls(lambda x, y: x * y, nondiff_argnums=(5,))
    if cls is spmd.custom_jvp:
        f.defjvp(lambda *a: (a[-2][0], a[-1][0]))
    else:
        f.defvjp(lambda *a: (1.0, None), lambda *a: (1.0,))
    # JAX indexes the arguments with it, eagerly as under transformations.
    for run in [lambda: f(1.0, 2.0), lambda: spmd.jit(f)(1.0, 2.0)]:
        with pytest.raises(IndexError, match="nondiff_argnums=\\(5,\\) refers to argument 5"):
            run()


def _grad_dict_arg(bwd_out):
    f = spmd.custom_vjp(lambda d: d["a"] * d["b"][0])
    f.defvjp(lambda d: (f(d), d), lambda r, g: (bwd_out(g, r),))
    g = spmd.grad(f)({"a": 1.0, "b": (2.0, 3.0)})
    return float(g["a"]), float(g["b"][0]), float(g["b"][1])


def test_bwd_output_may_be_a_prefix_of_the_argument_structure():
    # None zeroes a whole subtree; a leaf applies to each leaf of its subtree (as in JAX).
    assert _grad_dict_arg(lambda g, r: {"a": g * r["b"][0], "b": None}) == (2.0, 0.0, 0.0)
    assert _grad_dict_arg(lambda g, r: {"a": g, "b": g}) == (1.0, 1.0, 1.0)
    assert _grad_dict_arg(lambda g, r: {"a": None, "b": (g, None)}) == (0.0, 1.0, 0.0)
    assert _grad_dict_arg(lambda g, r: None) == (0.0, 0.0, 0.0)
    for bad in [lambda g, r: {"a": g}, lambda g, r: {"a": (g,), "b": (g, g)}]:
        with pytest.raises(TypeError, match="same container \\(pytree\\) structure"):
            _grad_dict_arg(bad)
    with pytest.raises(ValueError, match=r"output\[0\]\['b'\]\[0\] .* shapes do not match"):
        _grad_dict_arg(lambda g, r: {"a": g, "b": jnp.ones(2)})


# ---------------------------------------------------------------------------------------------
# Stacked decorators


def test_stacked_custom_jvp_of_custom_vjp_reaches_inner_rules():
    @spmd.custom_jvp
    @spmd.custom_vjp
    def f(x):
        return jnp.sin(x)

    # defvjp is not custom_jvp's: it reaches the wrapped custom_vjp (as in JAX).
    f.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda r, g: (r * g * 10,))
    f.defjvp(lambda p, t: (f(p[0]), t[0] * 3.0))
    assert float(spmd.grad(f)(1.0)) == 3.0
    assert float(spmd.jvp(f, (1.0,), (1.0,))[1]) == 3.0

    @spmd.custom_vjp
    @spmd.custom_jvp
    def g(x):
        return jnp.sin(x)

    g.defjvp(lambda p, t: (g(p[0]), t[0] * 3.0))
    g.defvjp(lambda x: (jnp.sin(x), jnp.cos(x)), lambda r, ct: (r * ct * 10,))
    _close(spmd.grad(g)(1.0), 10 * np.cos(1.0))
    with pytest.raises(TypeError, match="can't apply forward-mode autodiff"):
        spmd.jvp(g, (1.0,), (1.0,))
    with pytest.raises(AttributeError, match="defnothing"):
        f.defnothing  # noqa: B018
    with pytest.raises(AttributeError, match="'custom_jvp' object has no attribute 'nope'"):
        f.nope  # noqa: B018


# ---------------------------------------------------------------------------------------------
# Argument checks done eagerly, names, falsy nondiff_argnums


@pytest.mark.parametrize("cls", [spmd.custom_jvp, spmd.custom_vjp])
def test_non_array_arguments_are_refused_eagerly(cls):
    f = cls(lambda x: x)
    if cls is spmd.custom_jvp:
        f.defjvp(lambda p, t: (p[0], t[0]))
    else:
        f.defvjp(lambda x: (x, None), lambda r, g: (g,))
    for bad, shown in [("a", "'a'"), ((1.0, "b"), "'b'")]:
        with pytest.raises(TypeError, match=f"Argument {shown} of type <class 'str'> is not a"):
            f(bad)
    # Pytrees of arrays and None are fine.
    assert f(None) is None
    assert float(f([1.0])[0]) == 1.0


def test_partial_is_named_by_its_function():
    def mul(x, y):
        return x * y

    f = spmd.custom_jvp(partial(mul, 2.0))
    f.defjvp(lambda p, t: (f(*p), t[0]))
    with pytest.raises(TypeError) as e:
        f(y=1.0)
    assert str(e.value).startswith("The input arguments to the custom_jvp-decorated function mul ")
    assert str(e.value).endswith("could not be resolved to positions: y")


@pytest.mark.parametrize("nums", [None, 0, ()])
def test_falsy_nondiff_argnums_are_none(nums):
    # JAX skips a falsy nondiff_argnums (even 0).
    assert spmd.custom_jvp(lambda x, y: x, nondiff_argnums=nums).nondiff_argnums == ()
    assert spmd.custom_vjp(lambda x, y: x, nondiff_argnums=nums).nondiff_argnums == ()


def test_nondiff_argnames_with_defaults_jit_static_argnames_and_scan():
    @partial(spmd.custom_jvp, nondiff_argnames=("n",))
    def f(x, n=2):
        return x * n

    f.defjvp(lambda n, p, t: (f(p[0], n), t[0] * n * 10))

    @partial(spmd.custom_vjp, nondiff_argnames=("n",))
    def v(x, n=2):
        return x * n

    v.defvjp(lambda x, n: (v(x, n), None), lambda n, r, g: (g * n * 10,))
    # Values from JAX 0.10.2.
    assert float(spmd.jit(f, static_argnames="n")(2.0, n=3)) == 6.0
    for h in (f, v):
        assert float(spmd.grad(h)(2.0)) == 20.0
        assert float(spmd.jit(spmd.grad(h), static_argnames="n")(2.0, n=3)) == 30.0
    _close(spmd.vmap(lambda x: spmd.grad(f)(x, n=4))(jnp.ones(2)), [40.0, 40.0])
    assert float(spmd.grad(spmd.checkpoint(lambda x: v(x, 3)))(2.0)) == 30.0
    scan = lambda x: spmd.lax.scan(lambda c, _: (v(c, n=3), None), x, None, length=2)[0]  # noqa: E731
    assert float(spmd.grad(scan)(2.0)) == 900.0
