"""The public ``spmd.custom_derivatives`` module (``jax.custom_derivatives``): its names, programs
written against it (symbolic zeros in custom_jvp and custom_vjp rules), ``linear_call`` and its
rules, ``zero_from_primal``, ``custom_vjp_primal_tree_values``; and ``spmd.typing``. Expected
values come from JAX 0.10.2 (hard-coded) or from the math."""

from __future__ import annotations

import numpy as np

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
