"""The code cells of JAX's "Custom derivative rules" page (custom_jvp and custom_vjp), as one
program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd and records what
each cell prints: values (``print(x)`` of an array records the array), the text the rules'
side effects print (``called f!``), the jaxpr ``make_jaxpr`` shows, the message of the error
the page prints, and, where a cell prints a pytree of arrays (a namedtuple, a dict), its text
with the numbers masked (the structure and the ``weak_type`` flags must agree; the numbers are
compared as values).

Left out or changed: the two plotting cells record the arrays they plot instead; the ``pdb``
session of the debugging example is a plain block (not a cell): the program calls ``grad`` of
``foo`` with a ``debug_bwd`` that records what the page's session prints (``x`` and ``g``)
instead of stopping in the debugger.
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

KNOWN: dict[str, tuple[object, str]] = {}

Point = namedtuple("Point", ["x", "y"])


def _masked(x) -> str:
    """``str(x)`` with its numbers masked: what a printed pytree shows but its digits."""
    return re.sub(r"-?\d+\.\d*(?:e[+-]?\d+)?", "#", str(x))


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    custom_jvp, custom_vjp = jax.custom_jvp, jax.custom_vjp
    jvp, vjp, grad, jit, vmap = jax.jvp, jax.vjp, jax.grad, jax.jit, jax.vmap
    make_jaxpr = jax.make_jaxpr
    while_loop = jax.lax.while_loop

    def printed(cell, fn):
        """Record what ``fn()`` prints (and return its value)."""
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            value = fn()
        rec(cell, buf.getvalue())
        return value

    # -- Summary: custom JVPs
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

    rec("summary.jvp.f", f(2.0, 3.0))
    y, y_dot = jvp(f, (2.0, 3.0), (1.0, 0.0))
    rec("summary.jvp.y", y)
    rec("summary.jvp.y_dot", y_dot)
    rec("summary.jvp.grad", grad(f)(2.0, 3.0))
    rec("summary.jvp.jaxpr", str(make_jaxpr(f)(2.0, 3.0)))

    @custom_jvp
    def f(x, y):
        return jnp.sin(x) * y

    f.defjvps(
        lambda x_dot, primal_out, x, y: jnp.cos(x) * x_dot * y,
        lambda y_dot, primal_out, x, y: jnp.sin(x) * y_dot,
    )
    rec("summary.defjvps.f", f(2.0, 3.0))
    y, y_dot = jvp(f, (2.0, 3.0), (1.0, 0.0))
    rec("summary.defjvps.y", y)
    rec("summary.defjvps.y_dot", y_dot)
    rec("summary.defjvps.grad", grad(f)(2.0, 3.0))

    # -- Summary: custom VJPs
    @custom_vjp
    def f(x, y):
        return jnp.sin(x) * y

    def f_fwd(x, y):
        return f(x, y), (jnp.cos(x), jnp.sin(x), y)

    def f_bwd(res, g):
        cos_x, sin_x, y = res
        return (cos_x * g * y, sin_x * g)

    f.defvjp(f_fwd, f_bwd)
    rec("summary.vjp.grad", grad(f)(2.0, 3.0))
    rec("summary.vjp.jaxpr", str(make_jaxpr(f)(2.0, 3.0)))

    # -- Numerical stability
    def log1pexp(x):
        return jnp.log(1.0 + jnp.exp(x))

    rec("stability.value", log1pexp(3.0))
    rec("stability.jit", jit(log1pexp)(3.0))
    rec("stability.jit_grad", jit(grad(log1pexp))(3.0))
    rec("stability.vmap", vmap(jit(grad(log1pexp)))(jnp.arange(3.0)))
    rec("stability.grad_100", grad(log1pexp)(100.0))
    rec("stability.jaxpr", str(make_jaxpr(grad(log1pexp))(100.0)))

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

    rec("stability.custom.grad_100", grad(log1pexp)(100.0))
    rec("stability.custom.jit", jit(log1pexp)(3.0))
    rec("stability.custom.jit_grad", jit(grad(log1pexp))(3.0))
    rec("stability.custom.vmap", vmap(jit(grad(log1pexp)))(jnp.arange(3.0)))
    # Beyond the page: the jaxpr of the custom rule's gradient.
    rec("stability.custom.jaxpr", str(make_jaxpr(grad(log1pexp))(100.0)))

    @custom_jvp
    def log1pexp(x):
        return jnp.log(1.0 + jnp.exp(x))

    log1pexp.defjvps(lambda t, ans, x: (1 - 1 / (1 + jnp.exp(x))) * t)
    rec("stability.defjvps.grad_100", grad(log1pexp)(100.0))
    rec("stability.defjvps.jit", jit(log1pexp)(3.0))
    rec("stability.defjvps.jit_grad", jit(grad(log1pexp))(3.0))
    rec("stability.defjvps.vmap", vmap(jit(grad(log1pexp)))(jnp.arange(3.0)))
    rec("stability.defjvps.jaxpr", str(make_jaxpr(grad(log1pexp))(100.0)))

    # -- Enforcing a differentiation convention
    def f(x):
        return x / (1 + jnp.sqrt(x))

    rec("convention.nan", grad(f)(0.0))

    @custom_jvp
    def f(x):
        return x / (1 + jnp.sqrt(x))

    @f.defjvp
    def f_jvp(primals, tangents):
        (x,) = primals
        (x_dot,) = tangents
        ans = f(x)
        ans_dot = ((jnp.sqrt(x) + 2) / (2 * (jnp.sqrt(x) + 1) ** 2)) * x_dot
        return ans, ans_dot

    rec("convention.custom", grad(f)(0.0))

    @custom_jvp
    def f(x):
        return x / (1 + jnp.sqrt(x))

    f.defjvps(lambda t, ans, x: ((jnp.sqrt(x) + 2) / (2 * (jnp.sqrt(x) + 1) ** 2)) * t)
    rec("convention.defjvps", grad(f)(0.0))

    # -- Gradient clipping
    @custom_vjp
    def clip_gradient(lo, hi, x):
        return x  # identity function

    def clip_gradient_fwd(lo, hi, x):
        return x, (lo, hi)  # save bounds as residuals

    def clip_gradient_bwd(res, g):
        lo, hi = res
        return (None, None, jnp.clip(g, lo, hi))

    clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)

    t = jnp.linspace(0, 10, 40)  # the page plots 1000 points
    rec("clip.sin", jnp.sin(t))
    rec("clip.grad_sin", vmap(grad(jnp.sin))(t))

    def clip_sin(x):
        x = clip_gradient(-0.75, 0.75, x)
        return jnp.sin(x)

    rec("clip.clip_sin", clip_sin(t))
    rec("clip.grad_clip_sin", vmap(grad(clip_sin))(t))
    # Beyond the page: the clipped gradient under jit, and the rule's jaxpr.
    rec("clip.jit_grad_clip_sin", jit(vmap(grad(clip_sin)))(t))
    rec("clip.jaxpr", str(make_jaxpr(grad(clip_sin))(2.0)))

    # -- Implicit function differentiation of iterative implementations
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
    # Beyond the page: reverse mode through the while_loop is refused (ValueError in JAX).
    note(rec, "fixed_point.grad_while_loop", lambda: grad(newton_sqrt)(2.0))

    @partial(custom_vjp, nondiff_argnums=(0,))
    def fixed_point(f, a, x_guess):
        def cond_fun(carry):
            x_prev, x = carry
            return jnp.abs(x_prev - x) > 1e-6

        def body_fun(carry):
            _, x = carry
            return x, f(a, x)

        _, x_star = while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))
        return x_star

    def fixed_point_fwd(f, a, x_init):
        x_star = fixed_point(f, a, x_init)
        return x_star, (a, x_star)

    def fixed_point_rev(f, res, x_star_bar):
        a, x_star = res
        _, vjp_a = vjp(lambda a: f(a, x_star), a)
        (a_bar,) = vjp_a(fixed_point(partial(rev_iter, f), (a, x_star, x_star_bar), x_star_bar))
        return a_bar, jnp.zeros_like(x_star)

    def rev_iter(f, packed, u):
        a, x_star, x_star_bar = packed
        _, vjp_x = vjp(lambda x: f(a, x), x_star)
        return x_star_bar + vjp_x(u)[0]

    fixed_point.defvjp(fixed_point_fwd, fixed_point_rev)

    rec("fixed_point.custom.newton_sqrt", newton_sqrt(2.0))
    rec("fixed_point.custom.grad", grad(newton_sqrt)(2.0))
    rec("fixed_point.custom.grad_grad", grad(grad(newton_sqrt))(2.0))
    rec("fixed_point.sqrt.grad", grad(jnp.sqrt)(2.0))
    rec("fixed_point.sqrt.grad_grad", grad(grad(jnp.sqrt))(2.0))
    # Beyond the page: the rule under jit and vmap.
    rec("fixed_point.custom.jit_vmap_grad",
        jit(vmap(grad(newton_sqrt)))(jnp.array([1.0, 2.0, 3.0, 4.0])))  # fmt: skip

    # -- Basic usage: custom_jvp
    @custom_jvp
    def f(x):
        return jnp.sin(x)

    def f_jvp(primals, tangents):
        (x,) = primals
        (t,) = tangents
        return f(x), jnp.cos(x) * t

    f.defjvp(f_jvp)
    rec("jvp_basic.f", f(3.0))
    y, y_dot = jvp(f, (3.0,), (1.0,))
    rec("jvp_basic.y", y)
    rec("jvp_basic.y_dot", y_dot)
    rec("jvp_basic.grad", grad(f)(3.0))
    rec("jvp_basic.grad_grad", grad(grad(f))(3.0))

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

    rec("jvp_multi.grad", grad(f)(2.0, 3.0))

    @custom_jvp
    def f(x):
        return jnp.sin(x)

    f.defjvps(lambda t, ans, x: jnp.cos(x) * t)
    rec("jvp_defjvps.grad", grad(f)(3.0))

    @custom_jvp
    def f(x, y):
        return x**2 * y

    f.defjvps(
        lambda x_dot, primal_out, x, y: 2 * x * y * x_dot,
        lambda y_dot, primal_out, x, y: x**2 * y_dot,
    )
    rec("jvp_defjvps_multi.grad", grad(f)(2.0, 3.0))
    rec("jvp_defjvps_multi.grad0", grad(f, 0)(2.0, 3.0))
    rec("jvp_defjvps_multi.grad1", grad(f, 1)(2.0, 3.0))

    @custom_jvp
    def f(x, y):
        return x**2 * y

    f.defjvps(lambda x_dot, primal_out, x, y: 2 * x * y * x_dot, None)
    rec("jvp_defjvps_none.grad", grad(f)(2.0, 3.0))
    rec("jvp_defjvps_none.grad0", grad(f, 0)(2.0, 3.0))
    rec("jvp_defjvps_none.grad1", grad(f, 1)(2.0, 3.0))
    # Beyond the page: keyword arguments and defaults map onto positions.
    rec("jvp_defjvps_none.kwargs", grad(f)(2.0, y=3.0))

    @custom_jvp
    def g(x, y=3.0):
        return x**2 * y

    g.defjvps(lambda x_dot, primal_out, x, y: 2 * x * y * x_dot, None)
    rec("jvp_defaults.grad", grad(g)(2.0))

    @custom_jvp
    def f(x):
        print("called f!")
        return jnp.sin(x)

    @f.defjvp
    def f_jvp(primals, tangents):
        print("called f_jvp!")
        (x,) = primals
        (t,) = tangents
        return f(x), jnp.cos(x) * t

    rec("jvp_calls.f", printed("jvp_calls.f.printed", lambda: f(3.0)))
    rec("jvp_calls.vmap", printed("jvp_calls.vmap.printed", lambda: vmap(f)(jnp.arange(3.0))))
    rec("jvp_calls.jit", printed("jvp_calls.jit.printed", lambda: jit(f)(3.0)))
    y_dot = printed("jvp_calls.jvp.printed", lambda: jvp(f, (3.0,), (1.0,))[1])
    rec("jvp_calls.jvp", y_dot)
    rec("jvp_calls.grad", printed("jvp_calls.grad.printed", lambda: grad(f)(3.0)))
    rec("jvp_calls.grad_grad", printed("jvp_calls.grad_grad.printed", lambda: grad(grad(f))(3.0)))

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

    rec("jvp_control_flow.pos", grad(f)(1.0))
    rec("jvp_control_flow.neg", grad(f)(-1.0))
    # Beyond the page: under jit the Python `if` on a tracer is refused.
    note(rec, "jvp_control_flow.jit", lambda: jit(f)(1.0))

    # -- Basic usage: custom_vjp
    @custom_vjp
    def f(x):
        return jnp.sin(x)

    def f_fwd(x):
        return f(x), jnp.cos(x)

    def f_bwd(cos_x, y_bar):
        return (cos_x * y_bar,)

    f.defvjp(f_fwd, f_bwd)
    rec("vjp_basic.f", f(3.0))
    rec("vjp_basic.grad", grad(f)(3.0))

    @custom_vjp
    def f(x, y):
        return jnp.sin(x) * y

    def f_fwd(x, y):
        return f(x, y), (jnp.cos(x), jnp.sin(x), y)

    def f_bwd(res, g):
        cos_x, sin_x, y = res
        return (cos_x * g * y, sin_x * g)

    f.defvjp(f_fwd, f_bwd)
    rec("vjp_multi.grad", grad(f)(2.0, 3.0))
    # Beyond the page: keyword arguments map onto positions.
    rec("vjp_multi.kwargs", grad(f)(2.0, y=3.0))

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
    rec("vjp_calls.f", printed("vjp_calls.f.printed", lambda: f(3.0)))
    rec("vjp_calls.grad", printed("vjp_calls.grad.printed", lambda: grad(f)(3.0)))
    y, f_vjp = printed("vjp_calls.vjp.printed", lambda: vjp(f, 3.0))
    rec("vjp_calls.vjp", y)
    rec("vjp_calls.f_vjp", printed("vjp_calls.f_vjp.printed", lambda: f_vjp(1.0)))

    def forward_mode():
        try:
            jvp(f, (3.0,), (1.0,))
        except TypeError as e:
            print("ERROR! {}".format(e))  # noqa: UP032 -- the page's code

    printed("vjp_calls.jvp_error", forward_mode)

    # -- Python debugging: debug_bwd records what the page's pdb session shows
    @custom_vjp
    def debug(x):
        return x  # acts like identity

    def debug_fwd(x):
        return x, x

    def debug_bwd(x, g):
        rec("debug.x", x)
        rec("debug.g", g)
        return (g,)

    debug.defvjp(debug_fwd, debug_bwd)

    def foo(x):
        y = x**2
        y = debug(y)  # insert pdb in corresponding backward pass step
        return jnp.sin(y)

    rec("debug.grad", grad(foo)(3.0))

    # -- Pytrees: custom_jvp
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
    rec("pytree_jvp.f", f(pt))
    rec("pytree_jvp.f.text", _masked(f(pt)))
    rec("pytree_jvp.grad", list(grad(fun)(pt)))
    rec("pytree_jvp.grad.text", _masked(grad(fun)(pt)))

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

    pt = Point(1.0, 2.0)
    rec("pytree_vjp.f", f(pt))
    rec("pytree_vjp.f.text", _masked(f(pt)))
    rec("pytree_vjp.grad", list(grad(fun)(pt)))
    rec("pytree_vjp.grad.text", _masked(grad(fun)(pt)))

    # -- custom_jvp with nondiff_argnums
    @partial(custom_jvp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    @app.defjvp
    def app_jvp(f, primals, tangents):
        (x,) = primals
        (x_dot,) = tangents
        return f(x), 2.0 * x_dot

    rec("nondiff_jvp.app", app(lambda x: x**3, 3.0))
    rec("nondiff_jvp.grad", grad(app, 1)(lambda x: x**3, 3.0))

    @partial(custom_jvp, nondiff_argnums=(0, 2))
    def app2(f, x, g):
        return f(g(x))

    @app2.defjvp
    def app2_jvp(f, g, primals, tangents):
        (x,) = primals
        (x_dot,) = tangents
        return f(g(x)), 3.0 * x_dot

    rec("nondiff_jvp.app2", app2(lambda x: x**3, 3.0, lambda y: 5 * y))
    rec("nondiff_jvp.app2_grad", grad(app2, 1)(lambda x: x**3, 3.0, lambda y: 5 * y))

    # -- custom_vjp with nondiff_argnums
    @partial(custom_vjp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    def app_fwd(f, x):
        return f(x), x

    def app_bwd(f, x, g):
        return (5 * g,)

    app.defvjp(app_fwd, app_bwd)
    rec("nondiff_vjp.app", app(lambda x: x**2, 4.0))
    rec("nondiff_vjp.grad", grad(app, 1)(lambda x: x**2, 4.0))
    # Beyond the page: a traced value given where nondiff_argnums names an argument is refused.
    note(rec, "nondiff_vjp.tracer", lambda: jit(lambda x: app(x, 4.0))(2.0))

    # -- Beyond the page: the error cases the page names.
    # A JVP rule whose tangent output is not linear in the input tangent cannot be transposed.
    @custom_jvp
    def h(x):
        return jnp.sin(x)

    h.defjvps(lambda t, ans, x: jnp.cos(x) * t**2)
    rec("errors.nonlinear_jvp", jvp(h, (3.0,), (2.0,))[1])
    note(rec, "errors.nonlinear_grad", lambda: grad(h)(3.0))

    # A bwd rule giving back the wrong number of cotangents.
    @custom_vjp
    def k(x, y):
        return x * y

    k.defvjp(lambda x, y: (x * y, (x, y)), lambda res, g: (res[1] * g,))
    note(rec, "errors.bwd_arity", lambda: grad(k)(2.0, 3.0))

    # A JVP rule whose primal and tangent outputs disagree in structure.
    @custom_jvp
    def m(x):
        return jnp.sin(x)

    m.defjvp(lambda primals, tangents: (jnp.sin(primals[0]), (tangents[0], tangents[0])))
    note(rec, "errors.jvp_structure", lambda: jvp(m, (3.0,), (1.0,)))

    # -- Beyond the page: closures, and the programs the transformations make.
    def closing(kind, c):
        if kind == "jvp":
            g = custom_jvp(lambda x: jnp.sin(x) * c)
            g.defjvps(lambda t, ans, x: jnp.cos(x) * c * t)
        else:
            g = custom_vjp(lambda x: jnp.sin(x) * c)
            g.defvjp(lambda x: (jnp.sin(x) * c, jnp.cos(x)), lambda cos_x, ct: (cos_x * c * ct,))
        return g

    for kind in ("jvp", "vjp"):
        # Closing over a value a transformation other than differentiation traces is fine.
        rec(f"closure.{kind}.jit", jit(lambda c, k=kind: grad(closing(k, c))(1.0))(2.0))
        rec(f"closure.{kind}.vmap",
            vmap(lambda c, k=kind: grad(closing(k, c))(1.0))(jnp.arange(3.0)))  # fmt: skip
        # Closing over a value being differentiated is refused (UnexpectedTracerError).
        note(rec, f"closure.{kind}.grad", lambda k=kind: grad(lambda c: closing(k, c)(1.0))(2.0))

    @custom_jvp
    def s(x):
        return jnp.sin(x)

    s.defjvps(lambda t, ans, x: jnp.cos(x) * t)
    rec("jaxpr.jvp", str(make_jaxpr(lambda x, t: jvp(s, (x,), (t,)))(1.0, 1.0)))
    rec("jaxpr.vmap", str(make_jaxpr(vmap(s))(jnp.arange(3.0))))
    rec("jaxpr.jit_grad", str(make_jaxpr(jit(grad(s)))(1.0)))
    rec("jaxpr.linearize", str(make_jaxpr(lambda x: jax.linearize(s, x)[1](1.0))(1.0)))
    rec("jaxpr.grad_newton_sqrt", str(make_jaxpr(grad(newton_sqrt))(2.0)))
    rec("jaxpr.grad_clip_vmap", str(make_jaxpr(vmap(grad(clip_sin)))(jnp.arange(3.0))))
    y, f_lin = jax.linearize(s, 1.0)
    rec("linearize.s", [y, f_lin(2.0)])
