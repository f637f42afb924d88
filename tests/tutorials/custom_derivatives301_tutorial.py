"""The code cells of JAX's 301 page "Custom derivative rules with hijax primitives"
(docs/301/custom-derivatives.md) that run under JAX 0.10.2, as one program.

``program(jax, rec)`` runs them in order with ``jax`` being JAX or spmd and records what each
prints or shows (values, the jaxpr a cell shows as its text).

Left out: every cell that defines or uses a ``HiPrim`` subclass (the page's subject) and the
``custom_vjp.defvjp_with_logs`` cell. JAX 0.10.2 has neither: ``from jax.experimental.hijax
import HiPrim`` raises ImportError there (its hijax module has ``VJPHiPrimitive``, with other
methods), and ``custom_vjp`` has no ``defvjp_with_logs``. What remains is the page's plain
JAX code: ``log1pexp`` and its unstable gradient, ``x / (1 + sqrt(x))`` at 0, the values the
clipping example plots for ``sin`` (on 50 points instead of 1000; the clipped ones need a
HiPrim), the ``while_loop`` fixed point (``newton_sqrt``, jit of vmap), and the reference
derivatives of ``jnp.sqrt``; beyond the cells, the error reverse mode raises through the
``while_loop`` (which the page states) and the forward-mode derivative through it.
"""

from __future__ import annotations

import importlib

from record import note

KNOWN: dict[str, tuple[object, str]] = {}


def program(jax, rec) -> None:
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    jit, grad, vmap = jax.jit, jax.grad, jax.vmap
    while_loop = jax.lax.while_loop

    # -- Example: Numerical stability
    def log1pexp(x):
        return jnp.log(1.0 + jnp.exp(x))

    rec("log1pexp", log1pexp(3.0))
    rec("log1pexp.jit", jit(log1pexp)(3.0))
    rec("log1pexp.jit_grad", jit(grad(log1pexp))(3.0))
    rec("log1pexp.vmap_jit_grad", vmap(jit(grad(log1pexp)))(jnp.arange(3.0)))
    rec("log1pexp.grad_100", grad(log1pexp)(100.0))
    rec("log1pexp.grad_jaxpr", str(jit(grad(log1pexp)).trace(100.0).jaxpr))

    # -- Example: Enforcing a differentiation convention
    def f(x):
        return x / (1 + jnp.sqrt(x))

    rec("convention.grad_0", grad(f)(0.0))

    # -- Example: Gradient clipping (the values the page plots)
    t = jnp.linspace(0, 10, 50)
    rec("clipping.sin", jnp.sin(t))
    rec("clipping.grad_sin", vmap(grad(jnp.sin))(t))

    # -- Example: Implicit function differentiation of iterative implementations
    def fixed_point(f, a, x_guess):
        def cond_fun(carry):
            x_prev, x = carry
            return jnp.abs(x_prev - x) > 1e-6

        def body_fun(carry):
            _, x = carry
            return x, f(a, x)

        _, x_star = while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))
        return x_star

    def newton_sqrt(a):
        update = lambda a, x: 0.5 * (x + a / x)  # noqa: E731 -- the page's code
        return fixed_point(update, a, a)

    rec("fixed_point.newton_sqrt", newton_sqrt(2.0))
    rec("fixed_point.jit_vmap", jit(vmap(newton_sqrt))(jnp.array([1.0, 2.0, 3.0, 4.0])))
    # Beyond the cells, what the page says of this fixed point: reverse mode refuses the
    # while_loop (JAX's ValueError); forward mode goes through it.
    note(rec, "fixed_point.grad_while_loop", lambda: grad(newton_sqrt)(2.0))
    rec("fixed_point.jvp_while_loop", list(jax.jvp(newton_sqrt, (2.0,), (1.0,))))
    rec("fixed_point.sqrt_grad", grad(jnp.sqrt)(2.0))
    rec("fixed_point.sqrt_grad2", grad(grad(jnp.sqrt))(2.0))
