"""custom_jvp and custom_vjp differentiated outside jit, as JAX's: the rules run on the primal
values and the function is not traced first (found by the "Custom derivative rules" tutorial,
tests/tutorials/custom_derivatives_tutorial.py). So Python control flow on concrete primals
works in the function and its rules under grad and jvp, and the function and its rules each
run once, in JAX's order."""

from __future__ import annotations

import pytest

import spmd
import spmd.numpy as jnp
from spmd._src.errors import TracerBoolConversionError, UnexpectedTracerError


def _branchy_jvp():
    @spmd.custom_jvp
    def f(x):
        if x > 0:
            return jnp.sin(x)
        return jnp.cos(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,), (t,) = primals, tangents
        return f(x), (2 * t if x > 0 else 3 * t)

    return f


def test_custom_jvp_python_control_flow_under_grad_and_jvp():
    f = _branchy_jvp()
    assert float(spmd.grad(f)(1.0)) == 2.0
    assert float(spmd.grad(f)(-1.0)) == 3.0
    y, t = spmd.jvp(f, (-1.0,), (2.0,))
    assert float(t) == 6.0 and abs(float(y) - 0.5403023) < 1e-6
    # Traced values still cannot steer Python control flow (JAX's error too).
    with pytest.raises(TracerBoolConversionError):
        spmd.jit(spmd.grad(f))(1.0)


def test_custom_vjp_python_control_flow_under_grad():
    @spmd.custom_vjp
    def f(x):
        return jnp.sin(x) if x > 0 else jnp.cos(x)

    def f_fwd(x):
        return f(x), (x > 0, x)

    def f_bwd(res, g):
        pos, x = res
        return ((jnp.cos(x) if pos else -jnp.sin(x)) * g,)

    f.defvjp(f_fwd, f_bwd)
    assert abs(float(spmd.grad(f)(1.0)) - 0.5403023) < 1e-6
    assert abs(float(spmd.grad(f)(-1.0)) - 0.84147096) < 1e-6


def test_rules_and_function_run_once_in_jax_order():
    calls: list[str] = []

    @spmd.custom_jvp
    def f(x):
        calls.append("f")
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        calls.append("f_jvp")
        return f(primals[0]), jnp.cos(primals[0]) * tangents[0]

    spmd.jvp(f, (3.0,), (1.0,))
    assert calls == ["f_jvp", "f"]
    calls.clear()
    spmd.grad(f)(3.0)
    assert calls == ["f_jvp", "f"]
    calls.clear()
    spmd.grad(spmd.grad(f))(3.0)
    assert calls == ["f_jvp", "f_jvp", "f"]

    @spmd.custom_vjp
    def g(x):
        calls.append("g")
        return jnp.sin(x)

    def g_fwd(x):
        calls.append("g_fwd")
        return g(x), jnp.cos(x)

    def g_bwd(cos_x, ct):
        calls.append("g_bwd")
        return (cos_x * ct,)

    g.defvjp(g_fwd, g_bwd)
    calls.clear()
    assert abs(float(spmd.grad(g)(3.0)) + 0.9899925) < 1e-6
    assert calls == ["g_fwd", "g", "g_bwd"]
    # Forward mode runs fwd, then refuses (JAX's TypeError and words).
    calls.clear()
    with pytest.raises(TypeError, match=r"can't apply forward-mode autodiff \(jvp\) to a "
                                        r"custom_vjp function\."):  # fmt: skip
        spmd.jvp(g, (3.0,), (1.0,))
    assert calls == ["g_fwd", "g"]


def test_defjvps_rule_prints_as_jvp():
    @spmd.custom_jvp
    def f(x):
        return jnp.sin(x)

    f.defjvps(lambda t, ans, x: jnp.cos(x) * t)
    assert "jvp=jvp\n" in str(spmd.make_jaxpr(f)(1.0))


@pytest.mark.parametrize("kind", ["custom_jvp", "custom_vjp"])
@pytest.mark.parametrize("how", ["grad", "jit_grad", "jvp"])
def test_closing_over_a_differentiated_value(kind, how):
    def outer(c):
        if kind == "custom_jvp":
            g = spmd.custom_jvp(lambda x: x * c)
            g.defjvps(lambda t, ans, x: t * c)
        else:
            g = spmd.custom_vjp(lambda x: x * c)
            g.defvjp(lambda x: (x * c, None), lambda res, ct: (ct * c,))
        return g(3.0)

    run = {
        "grad": lambda: spmd.grad(outer)(2.0),
        # Under jit the closed-over JVP tracer reached the jit's trace as a constant.
        "jit_grad": lambda: spmd.jit(spmd.grad(outer))(2.0),
        "jvp": lambda: spmd.jvp(outer, (2.0,), (1.0,)),
    }[how]
    with pytest.raises(UnexpectedTracerError, match=f"The {kind} function <lambda> closes over"):
        run()


def test_rule_whose_primal_output_reads_the_tangents():
    f = spmd.custom_jvp(lambda x: jnp.sin(x))
    f.defjvp(lambda p, t: (jnp.sin(p[0]) + t[0], t[0]))
    # Linearization refuses it (JAX's ValueError and words); forward mode runs it as written.
    for run in (lambda: spmd.grad(f)(1.0), lambda: spmd.jit(spmd.grad(f))(1.0)):
        with pytest.raises(ValueError, match="Linearization failed to produce known values"):
            run()
    y, t = spmd.jvp(f, (1.0,), (1.0,))
    assert abs(float(y) - 1.841471) < 1e-6 and float(t) == 1.0
