"""The code cells of JAX's 301 page "Custom JVPs or VJPs with custom_jvp and custom_vjp"
(docs/301/custom-jvp-vjp.md), as one program: ``program(jax, rec)`` (see
tests/tutorials/record.py).

What a cell prints is recorded: values, the text the rules' side effects print (``called
f!``), a jaxpr as its text, an error as its class (and whether its message says what the page
shows), a printed pytree of arrays as its text with the numbers masked (structure and
``weak_type`` flags compared exactly) and as values. The plotting cells record the arrays they
plot (on 50 points instead of 1000); the ``pdb`` session is a plain block of the page (not a
cell): the program's ``debug_bwd`` records what the session prints (``x`` and ``g``) instead
of stopping in the debugger.
"""

# ruff: noqa: F811 -- the page redefines its functions (f, f_jvp, ...) cell after cell
from __future__ import annotations

import contextlib
import importlib
import io
import re
from collections import namedtuple
from functools import partial

from record import note

# cell -> (what spmd records, None for any value unlike JAX's; why it differs from JAX 0.10.2).
KNOWN: dict[str, tuple[object, str]] = {}

Point = namedtuple("Point", ["x", "y"])


def _masked(x) -> str:
    """``str(x)`` with its numbers masked: what a printed pytree shows but its digits."""
    return re.sub(r"-?\d+\.\d*(?:e[+-]?\d+)?", "#", str(x))


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    custom_jvp, custom_vjp = jax.custom_jvp, jax.custom_vjp
    jvp, vjp, grad, jit, vmap = jax.jvp, jax.vjp, jax.grad, jax.jit, jax.vmap

    def printed(cell, fn):
        """Record what ``fn()`` prints (and return its value)."""
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            value = fn()
        rec(cell, buf.getvalue())
        return value

    def error(cell, fn, *words):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 -- the class is the recorded value
            rec(cell, e)
            rec(cell + ".message", [bool(re.search(w, str(e))) for w in words])
        else:
            rec(cell, "no error")

    # -- TL;DR: Custom JVPs with jax.custom_jvp
    @custom_jvp
    def f(x, y):
        return jnp.sin(x) * y

    @f.defjvp
    def f_jvp(primals, tangents):
        x, y = primals
        x_dot, y_dot = tangents
        primal_out = f(x, y)
        tangent_out = jnp.cos(x) * x_dot * y + jnp.sin(x) * y_dot
        return primal_out, tangent_out

    y, y_dot = jvp(f, (2.0, 3.0), (1.0, 0.0))
    rec("tldr.jvp", [f(2.0, 3.0), y, y_dot, grad(f)(2.0, 3.0)])

    # Equivalent alternative using the defjvps convenience wrapper
    @custom_jvp
    def f(x, y):
        return jnp.sin(x) * y

    f.defjvps(
        lambda x_dot, primal_out, x, y: jnp.cos(x) * x_dot * y,
        lambda y_dot, primal_out, x, y: jnp.sin(x) * y_dot,
    )
    y, y_dot = jvp(f, (2.0, 3.0), (1.0, 0.0))
    rec("tldr.defjvps", [f(2.0, 3.0), y, y_dot, grad(f)(2.0, 3.0)])

    # -- TL;DR: Custom VJPs with jax.custom_vjp
    @custom_vjp
    def f(x, y):
        return jnp.sin(x) * y

    def f_fwd(x, y):
        # Returns primal output and residuals to be used in backward pass by f_bwd.
        return f(x, y), (jnp.cos(x), jnp.sin(x), y)

    def f_bwd(res, g):
        cos_x, sin_x, y = res  # Gets residuals computed in f_fwd
        return (cos_x * g * y, sin_x * g)

    f.defvjp(f_fwd, f_bwd)
    rec("tldr.vjp", grad(f)(2.0, 3.0))

    # -- Example: Numerical stability
    def log1pexp(x):
        return jnp.log(1.0 + jnp.exp(x))

    rec("stability.value", log1pexp(3.0))
    rec("stability.transforms", [jit(log1pexp)(3.0), jit(grad(log1pexp))(3.0),
                                 vmap(jit(grad(log1pexp)))(jnp.arange(3.0))])  # fmt: skip
    rec("stability.grad100", grad(log1pexp)(100.0))  # nan
    rec("stability.jaxpr", str(jit(grad(log1pexp)).trace(100.0).jaxpr))

    @custom_jvp
    def log1pexp(x):
        return jnp.log(1.0 + jnp.exp(x))

    @log1pexp.defjvp
    def log1pexp_jvp(primals, tangents):
        (x,) = primals
        (x_dot,) = tangents
        ans = log1pexp(x)
        ans_dot = (1 - 1 / (1 + jnp.exp(x))) * x_dot
        return ans, ans_dot

    rec("stability.custom.grad100", grad(log1pexp)(100.0))
    rec("stability.custom.transforms", [jit(log1pexp)(3.0), jit(grad(log1pexp))(3.0),
                                        vmap(jit(grad(log1pexp)))(jnp.arange(3.0))])  # fmt: skip

    @custom_jvp
    def log1pexp(x):
        return jnp.log(1.0 + jnp.exp(x))

    log1pexp.defjvps(lambda t, ans, x: (1 - 1 / (1 + jnp.exp(x))) * t)
    rec("stability.defjvps", [grad(log1pexp)(100.0), jit(log1pexp)(3.0),
                              jit(grad(log1pexp))(3.0),
                              vmap(jit(grad(log1pexp)))(jnp.arange(3.0))])  # fmt: skip

    # -- Example: Gradient clipping
    @custom_vjp
    def clip_gradient(lo, hi, x):
        return x  # identity function

    def clip_gradient_fwd(lo, hi, x):
        return x, (lo, hi)  # save bounds as residuals

    def clip_gradient_bwd(res, g):
        lo, hi = res
        return (None, None, jnp.clip(g, lo, hi))  # use None to indicate zero cotangents

    clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)

    t = jnp.linspace(0, 10, 50)
    rec("clip.plot_sin", [jnp.sin(t), vmap(grad(jnp.sin))(t)])

    def clip_sin(x):
        x = clip_gradient(-0.75, 0.75, x)
        return jnp.sin(x)

    rec("clip.plot_clip_sin", [clip_sin(t), vmap(grad(clip_sin))(t)])

    # -- Use jax.custom_jvp to define forward-mode (and, indirectly, reverse-mode) rules
    @custom_jvp
    def f(x):
        return jnp.sin(x)

    def f_jvp(primals, tangents):
        (x,) = primals
        (t,) = tangents
        return f(x), jnp.cos(x) * t

    f.defjvp(f_jvp)
    y, y_dot = jvp(f, (3.0,), (1.0,))
    rec("basic.jvp", [f(3.0), y, y_dot])
    rec("basic.grad", [grad(f)(3.0), grad(grad(f))(3.0)])

    @custom_jvp
    def f(x, y):
        return x**2 * y

    @f.defjvp
    def f_jvp(primals, tangents):
        x, y = primals
        x_dot, y_dot = tangents
        primal_out = f(x, y)
        tangent_out = 2 * x * y * x_dot + x**2 * y_dot
        return primal_out, tangent_out

    rec("basic.multi", grad(f)(2.0, 3.0))

    @custom_jvp
    def f(x):
        return jnp.sin(x)

    f.defjvps(lambda t, ans, x: jnp.cos(x) * t)
    rec("basic.defjvps", grad(f)(3.0))

    @custom_jvp
    def f(x, y):
        return x**2 * y

    f.defjvps(
        lambda x_dot, primal_out, x, y: 2 * x * y * x_dot,
        lambda y_dot, primal_out, x, y: x**2 * y_dot,
    )
    rec("basic.defjvps_multi", [grad(f)(2.0, 3.0), grad(f, 0)(2.0, 3.0), grad(f, 1)(2.0, 3.0)])

    @custom_jvp
    def f(x, y):
        return x**2 * y

    f.defjvps(lambda x_dot, primal_out, x, y: 2 * x * y * x_dot, None)
    rec("basic.defjvps_none", [grad(f)(2.0, 3.0), grad(f, 0)(2.0, 3.0), grad(f, 1)(2.0, 3.0)])

    @custom_jvp
    def f(x):
        print("called f!")  # a harmless side-effect
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        print("called f_jvp!")  # a harmless side-effect
        (x,) = primals
        (t,) = tangents
        return f(x), jnp.cos(x) * t

    rec("effects.f", printed("effects.f.printed", lambda: f(3.0)))
    rec("effects.vmap", printed("effects.vmap.printed", lambda: vmap(f)(jnp.arange(3.0))))
    rec("effects.jit", printed("effects.jit.printed", lambda: jit(f)(3.0)))
    rec("effects.jvp", printed("effects.jvp.printed", lambda: jvp(f, (3.0,), (1.0,))[1]))
    rec("effects.grad", printed("effects.grad.printed", lambda: grad(f)(3.0)))
    rec("effects.grad_grad", printed("effects.grad_grad.printed", lambda: grad(grad(f))(3.0)))

    @custom_jvp
    def f(x):
        if x > 0:
            return jnp.sin(x)
        else:
            return jnp.cos(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,) = primals
        (x_dot,) = tangents
        ans = f(x)
        if x > 0:
            return ans, 2 * x_dot
        else:
            return ans, 3 * x_dot

    rec("control_flow", [grad(f)(1.0), grad(f)(-1.0)])

    # -- Use jax.custom_vjp to define custom reverse-mode-only rules
    @custom_vjp
    def f(x):
        return jnp.sin(x)

    def f_fwd(x):
        return f(x), jnp.cos(x)

    def f_bwd(cos_x, y_bar):
        return (cos_x * y_bar,)

    f.defvjp(f_fwd, f_bwd)
    rec("vjp.basic", [f(3.0), grad(f)(3.0)])

    @custom_vjp
    def f(x, y):
        return jnp.sin(x) * y

    def f_fwd(x, y):
        return f(x, y), (jnp.cos(x), jnp.sin(x), y)

    def f_bwd(res, g):
        cos_x, sin_x, y = res
        return (cos_x * g * y, sin_x * g)

    f.defvjp(f_fwd, f_bwd)
    rec("vjp.multi", grad(f)(2.0, 3.0))

    @custom_vjp
    def f(x):
        print("called f!")
        return jnp.sin(x)

    def f_fwd(x):
        print("called f_fwd!")
        return f(x), jnp.cos(x)

    def f_bwd(cos_x, y_bar):
        print("called f_bwd!")
        return (cos_x * y_bar,)

    f.defvjp(f_fwd, f_bwd)
    rec("vjp.effects.f", printed("vjp.effects.f.printed", lambda: f(3.0)))
    rec("vjp.effects.grad", printed("vjp.effects.grad.printed", lambda: grad(f)(3.0)))
    y, f_vjp = printed("vjp.effects.vjp.printed", lambda: vjp(f, 3.0))
    rec("vjp.effects.vjp", y)
    rec("vjp.effects.f_vjp", printed("vjp.effects.f_vjp.printed", lambda: f_vjp(1.0)))
    error("vjp.effects.jvp", lambda: jvp(f, (3.0,), (1.0,)),
          "can't apply forward-mode autodiff \\(jvp\\) to a custom_vjp function")  # fmt: skip

    @custom_vjp
    def debug(x):
        return x  # acts like identity

    def debug_fwd(x):
        return x, x

    def debug_bwd(x, g):
        rec("pdb.x", x)  # (the page stops in pdb here: `p x`, `p g`)
        rec("pdb.g", g)
        return (g,)

    debug.defvjp(debug_fwd, debug_bwd)

    def foo(x):
        y = x**2
        y = debug(y)  # insert pdb in corresponding backward pass step
        return jnp.sin(y)

    rec("pdb.grad", jax.grad(foo)(3.0))

    # -- custom_vjp functions can't be forward-differentiated
    error("no_fwd.clip", lambda: jvp(lambda x: clip_gradient(-1.0, 1.0, x), (3.0,), (1.0,)),
          "custom_vjp")  # fmt: skip
    # (beyond the page: what it says composes)
    note(rec, "no_fwd.hessian", lambda: jax.hessian(lambda x: clip_sin(x) ** 2)(1.0))
    note(rec, "no_fwd.jacfwd", lambda: jax.jacfwd(clip_sin)(1.0))

    # -- Working with list / tuple / dict containers (and other pytrees)
    @custom_jvp
    def f(pt):
        x, y = pt.x, pt.y
        return {"a": x**2, "b": (jnp.sin(x), jnp.cos(y))}

    @f.defjvp
    def f_jvp(primals, tangents):
        (pt,) = primals
        (pt_dot,) = tangents
        ans = f(pt)
        ans_dot = {
            "a": 2 * pt.x * pt_dot.x,
            "b": (jnp.cos(pt.x) * pt_dot.x, -jnp.sin(pt.y) * pt_dot.y),
        }
        return ans, ans_dot

    def fun(pt):
        dct = f(pt)
        return dct["a"] + dct["b"][0]

    pt = Point(1.0, 2.0)
    rec("pytree.jvp.f", [_masked(f(pt)), f(pt)])
    g = grad(fun)(pt)
    rec("pytree.jvp.grad", [_masked(g), list(g)])

    @custom_vjp
    def f(pt):
        x, y = pt.x, pt.y
        return {"a": x**2, "b": (jnp.sin(x), jnp.cos(y))}

    def f_fwd(pt):
        return f(pt), pt

    def f_bwd(pt, g):
        a_bar, (b0_bar, b1_bar) = g["a"], g["b"]
        x_bar = 2 * pt.x * a_bar + jnp.cos(pt.x) * b0_bar
        y_bar = -jnp.sin(pt.y) * b1_bar
        return (Point(x_bar, y_bar),)

    f.defvjp(f_fwd, f_bwd)

    def fun(pt):
        dct = f(pt)
        return dct["a"] + dct["b"][0]

    rec("pytree.vjp.f", [_masked(f(pt)), f(pt)])
    g = grad(fun)(pt)
    rec("pytree.vjp.grad", [_masked(g), list(g)])

    # -- custom_jvp with nondiff_argnums
    @partial(custom_jvp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    @app.defjvp
    def app_jvp(f, primals, tangents):
        (x,) = primals
        (x_dot,) = tangents
        return f(x), 2.0 * x_dot

    rec("nondiff.jvp.app", [app(lambda x: x**3, 3.0), grad(app, 1)(lambda x: x**3, 3.0)])

    @partial(custom_jvp, nondiff_argnums=(0, 2))
    def app2(f, x, g):
        return f(g(x))

    @app2.defjvp
    def app2_jvp(f, g, primals, tangents):
        (x,) = primals
        (x_dot,) = tangents
        return f(g(x)), 3.0 * x_dot

    rec("nondiff.jvp.app2", [app2(lambda x: x**3, 3.0, lambda y: 5 * y),
                             grad(app2, 1)(lambda x: x**3, 3.0, lambda y: 5 * y)])  # fmt: skip

    # -- custom_vjp with nondiff_argnums
    @partial(custom_vjp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    def app_fwd(f, x):
        return f(x), x

    def app_bwd(f, x, g):
        return (5 * g,)

    app.defvjp(app_fwd, app_bwd)
    rec("nondiff.vjp.app", [app(lambda x: x**2, 4.0), grad(app, 1)(lambda x: x**2, 4.0)])
    # (beyond the page: a Tracer in a nondiff argument is an error)
    note(rec, "nondiff.tracer", lambda: jit(lambda x: app(x, 4.0))(2.0))
