"""Record JAX's results for ``lax.custom_linear_solve`` and ``lax.custom_root`` into
``tests/golden/solves.json`` (read by ``tests/test_solves.py``, which runs the same cases on spmd).

Run with real JAX (not spmd), on CPU: ``/path/to/jax/python tests/golden_gen/solves_gen.py``.

A case is a function of ``(jax, jnp, lax)`` returning a dict of results (values, gradients,
jvps, vmaps, jitted versions); every leaf is recorded as its dtype, weak type, shape and values.
An error case records the exception class and the first line of its message.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(TESTS))
sys.path.insert(0, str(TESTS / "golden_gen"))

OUT = TESTS / "golden" / "solves.json"

A0 = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.5, 1.0, 5.0]], np.float32)
SPD = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 1.0], [0.5, 1.0, 5.0]], np.float32)
B0 = np.array([1.0, 2.0, 3.0], np.float32)
W = np.array([1.0, -2.0, 0.5], np.float32)


def flatten(out, path: str = "") -> tuple[str, list]:
    """A structure string and the leaves of nested dicts, tuples and lists."""
    if isinstance(out, dict):
        parts, leaves = [], []
        for k in sorted(out):
            t, ls = flatten(out[k])
            parts.append(f"{k}:{t}")
            leaves += ls
        return "{" + ",".join(parts) + "}", leaves
    if isinstance(out, (tuple, list)):
        parts, leaves = [], []
        for x in out:
            t, ls = flatten(x)
            parts.append(t)
            leaves += ls
        return "(" + ",".join(parts) + ")", leaves
    return "*", [out]


# ---------------------------------------------------------------------------------------------
# custom_linear_solve


def ls_matrix(jax, jnp, lax):
    """A dense non-symmetric operator closed over; solve and transpose_solve by LU."""
    A, b, w = jnp.asarray(A0), jnp.asarray(B0), jnp.asarray(W)

    def f(A, b):
        return lax.custom_linear_solve(
            lambda x: A @ x,
            b,
            lambda mv, y: jnp.linalg.solve(A, y),
            lambda vm, y: jnp.linalg.solve(A.T, y),
        )

    def loss(A, b):
        return jnp.sum(f(A, b) * w)

    g = jax.grad(loss, (0, 1))
    As = jnp.stack([A, A.T + 1.0])
    return {
        "value": f(A, b),
        "jit": jax.jit(f)(A, b),
        "grad": g(A, b),
        "jit_grad": jax.jit(g)(A, b),
        "jvp": jax.jvp(f, (A, b), (jnp.full_like(A, 0.1), jnp.ones(3))),
        "vmap_b": jax.vmap(f, (None, 0))(A, jnp.stack([b, 2 * b])),
        "vmap_A": jax.vmap(f, (0, None))(As, b),
        "vmap_grad": jax.vmap(g, (0, None))(As, b),
        "fwd_over_rev": jax.jacfwd(jax.grad(loss, 1), 0)(A, b),
    }


def ls_cg(jax, jnp, lax):
    """Conjugate gradients (a fori_loop) on a symmetric positive definite operator."""
    M, b, w = jnp.asarray(SPD), jnp.asarray(B0), jnp.asarray(W)

    def cg(mv, y):
        def body(i, st):
            x, r, p, rs = st
            ap = mv(p)
            alpha = rs / jnp.vdot(p, ap)
            x, r = x + alpha * p, r - alpha * ap
            rs2 = jnp.vdot(r, r)
            return x, r, r + rs2 / rs * p, rs2

        return lax.fori_loop(0, 3, body, (jnp.zeros_like(y), y, y, jnp.vdot(y, y)))[0]

    def f(M, b):
        return lax.custom_linear_solve(lambda x: M @ x, b, cg, symmetric=True)

    def loss(M, b):
        return jnp.sum(f(M, b) * w)

    g = jax.grad(loss, (0, 1))
    return {
        "value": f(M, b),
        "jit": jax.jit(f)(M, b),
        "grad": g(M, b),
        "jit_grad": jax.jit(g)(M, b),
        "vmap_b": jax.vmap(f, (None, 0))(M, jnp.stack([b, b[::-1]])),
        "vmap_grad_b": jax.vmap(g, (None, 0))(M, jnp.stack([b, b[::-1]])),
    }


def ls_pytree(jax, jnp, lax):
    """b a pytree; a diagonal operator whose scales are differentiated."""
    b = (jnp.asarray(B0), {"u": jnp.array(2.0)})

    def f(d, e, b):
        return lax.custom_linear_solve(
            lambda x: (d * x[0], {"u": e * x[1]["u"]}),
            b,
            lambda mv, y: (y[0] / d, {"u": y[1]["u"] / e}),
            symmetric=True,
        )

    def loss(d, e, b):
        x = f(d, e, b)
        return jnp.sum(x[0] * jnp.asarray(W)) + 3.0 * x[1]["u"]

    d, e = jnp.array([2.0, 4.0, 8.0]), jnp.array(0.5)
    return {
        "value": f(d, e, b),
        "jit": jax.jit(f)(d, e, b),
        "grad": jax.grad(loss, (0, 1, 2))(d, e, b),
        "jvp": jax.jvp(lambda d: f(d, e, b), (d,), (jnp.ones(3),)),
        "vmap_e": jax.vmap(lambda e: f(d, e, b))(jnp.array([0.5, 2.0])),
    }


def ls_scalar(jax, jnp, lax):
    """Python scalars: the weak type of b carries to x."""

    def f(b):
        return lax.custom_linear_solve(lambda x: 2.0 * x, b, lambda mv, y: y / 2.0, symmetric=True)

    return {
        "value": f(3.0),
        "jit": jax.jit(f)(3.0),
        "grad": jax.grad(f)(3.0),
        "jvp": jax.jvp(f, (3.0,), (1.0,)),
    }


def ls_has_aux(jax, jnp, lax):
    """solve returns (x, aux): aux is not differentiated, and batched when it depends on b."""
    s = jnp.array(4.0)

    def f(s, b):
        return lax.custom_linear_solve(
            lambda x: s * x, b, lambda mv, y: (y / s, jnp.sum(y)), symmetric=True, has_aux=True
        )

    b = jnp.asarray(B0)
    return {
        "value": f(s, b),
        "jit": jax.jit(f)(s, b),
        "grad": jax.grad(lambda s, b: jnp.sum(f(s, b)[0] * jnp.asarray(W)), (0, 1))(s, b),
        "jvp": jax.jvp(f, (s, b), (jnp.array(1.0), jnp.ones(3))),
        "vmap": jax.vmap(f, (None, 0))(s, jnp.stack([b, -b])),
    }


def ls_transpose_solve_aux(jax, jnp, lax):
    """has_aux with a transpose_solve that returns (x, aux) too."""

    def f(b):
        return lax.custom_linear_solve(
            lambda x: 2.0 * x,
            b,
            lambda mv, y: (y / 2.0, jnp.sum(y)),
            lambda vm, y: (y / 2.0, jnp.sum(y)),
            has_aux=True,
        )

    b = jnp.asarray(B0)
    return {"grad": jax.grad(lambda b: jnp.sum(f(b)[0] * jnp.asarray(W)))(b)}


def ls_second_order(jax, jnp, lax):
    """Reverse over reverse and a Hessian: the transposed solve is differentiated in turn."""
    A, b = jnp.asarray(A0), jnp.asarray(B0)

    def f(A, b):
        return lax.custom_linear_solve(
            lambda x: A @ x,
            b,
            lambda mv, y: jnp.linalg.solve(A, y),
            lambda vm, y: jnp.linalg.solve(A.T, y),
        )

    def loss(A, b):
        return jnp.sum(f(A, b) ** 2)

    return {
        "rev_rev": jax.grad(lambda A: jnp.sum(jax.grad(loss, 1)(A, b) ** 2))(A),
        "hessian_b": jax.hessian(loss, 1)(A, b),
    }


def ls_aux_unbatched(jax, jnp, lax):
    """An aux output that does not depend on the mapped axis comes out of vmap unbatched."""

    def h(s, b):
        return lax.custom_linear_solve(
            lambda x: s * x, b, lambda mv, y: (y / s, s * 2), symmetric=True, has_aux=True
        )

    b, bs = jnp.asarray(B0), jnp.stack([jnp.asarray(B0), -jnp.asarray(B0)])
    s = jnp.array(2.0)
    return {
        "vmap": jax.vmap(h, (None, 0))(s, bs),
        "vmap_grad": jax.vmap(jax.grad(lambda s, b: h(s, b)[0].sum()), (None, 0))(s, bs),
        "jit_vmap_jacfwd": jax.jit(jax.vmap(jax.jacfwd(lambda s, b: h(s, b)[0]), (0, None)))(
            jnp.array([2.0, 3.0]), b
        ),
    }


# ---------------------------------------------------------------------------------------------
# custom_root


def _newton(jax, lax):
    def solve(f, x0):
        return lax.fori_loop(0, 20, lambda i, x: x - f(x) / jax.grad(f)(x), x0)

    return solve


def root_cbrt(jax, jnp, lax):
    """The cube root of a parameter by Newton's method (never differentiated)."""
    newton = _newton(jax, lax)

    def r(a):
        return lax.custom_root(lambda x: x**3 - a, 1.0, newton, lambda g, y: y / g(1.0))

    a = jnp.array([1.0, 8.0, 27.0])
    return {
        "value": r(2.0),
        "jit": jax.jit(r)(2.0),
        "grad": jax.grad(r)(2.0),
        "jit_grad": jax.jit(jax.grad(r))(2.0),
        "jvp": jax.jvp(r, (2.0,), (1.0,)),
        "vmap": jax.vmap(r)(a),
        "vmap_grad": jax.vmap(jax.grad(r))(a),
    }


def root_two_params(jax, jnp, lax):
    """f closes over two parameters; the gradient reaches both."""
    newton = _newton(jax, lax)

    def r(a, k):
        return lax.custom_root(
            lambda x: k * jnp.sinh(x) - a, jnp.array(0.5), newton, lambda g, y: y / g(1.0)
        )

    g = jax.grad(r, (0, 1))
    return {
        "value": r(jnp.array(3.0), jnp.array(2.0)),
        "grad": g(jnp.array(3.0), jnp.array(2.0)),
        "vmap_grad": jax.vmap(g, (0, None))(jnp.array([1.0, 3.0]), jnp.array(2.0)),
    }


def root_second_order(jax, jnp, lax):
    """The derivative rule is itself differentiable (tangent_solve runs on traced values)."""
    newton = _newton(jax, lax)

    def r(a):
        return lax.custom_root(lambda x: x**3 - a, 1.0, newton, lambda g, y: y / g(1.0))

    k = jnp.array(3)  # an integer constant closed over by f carries no derivative

    def r_int(a):
        return lax.custom_root(lambda x: x**k - a, 1.0, newton, lambda g, y: y / g(1.0))

    return {
        "grad_grad": jax.grad(jax.grad(r))(2.0),
        "jacfwd_grad": jax.jacfwd(jax.grad(r))(2.0),
        "int_const_grad": jax.grad(r_int)(2.0),
    }


def root_vector(jax, jnp, lax):
    """A pytree unknown: Newton with a Jacobian solve, and a tangent_solve by the same."""
    M = jnp.array([[3.0, 1.0], [1.0, 2.0]])

    def jac(g, v):
        return jax.jacobian(lambda u: g({"u": u})["u"])(v)

    def solve(f, x0):
        def step(i, x):
            return {"u": x["u"] - jnp.linalg.solve(jac(f, x["u"]), f(x)["u"])}

        return lax.fori_loop(0, 30, step, x0)

    def rv(c):
        f = lambda x: {"u": M @ x["u"] + jnp.sin(x["u"]) - c}  # noqa: E731
        ts = lambda g, y: {"u": jnp.linalg.solve(jac(g, jnp.zeros(2)), y["u"])}  # noqa: E731
        return lax.custom_root(f, {"u": jnp.zeros(2)}, solve, ts)["u"]

    c = jnp.array([1.0, 2.0])
    return {
        "value": rv(c),
        "jit": jax.jit(rv)(c),
        "jacrev": jax.jacrev(rv)(c),
        "jacfwd": jax.jacfwd(rv)(c),
    }


def root_batched_guess(jax, jnp, lax):
    """vmap over the initial guess alone: the root is batched, its derivative too."""
    newton = _newton(jax, lax)

    def r(a, x0):
        return lax.custom_root(lambda x: x**3 - a, x0, newton, lambda g, y: y / g(1.0))

    x0 = jnp.array([1.0, 3.0])
    return {
        "vmap": jax.vmap(r, (None, 0))(8.0, x0),
        "vmap_grad": jax.vmap(jax.grad(r), (None, 0))(8.0, x0),
        "grad_x0": jax.grad(r, 1)(8.0, 1.0),
    }


def root_has_aux(jax, jnp, lax):
    """solve returns (root, aux): aux gets a zero derivative."""
    newton = _newton(jax, lax)

    def ra(a):
        return lax.custom_root(
            lambda x: x**3 - a,
            1.0,
            lambda f, x0: (newton(f, x0), x0 * a),
            lambda g, y: y / g(1.0),
            has_aux=True,
        )

    return {
        "value": ra(2.0),
        "jit": jax.jit(ra)(2.0),
        "grad": jax.grad(lambda a: ra(a)[0] + ra(a)[1])(2.0),
        "jvp": jax.jvp(ra, (2.0,), (1.0,)),
        "vmap": jax.vmap(ra)(jnp.array([1.0, 8.0])),
    }


CASES = {
    f.__name__: f
    for f in [
        ls_matrix,
        ls_cg,
        ls_pytree,
        ls_scalar,
        ls_has_aux,
        ls_transpose_solve_aux,
        ls_second_order,
        ls_aux_unbatched,
        root_cbrt,
        root_two_params,
        root_second_order,
        root_batched_guess,
        root_vector,
        root_has_aux,
    ]
}


# ---------------------------------------------------------------------------------------------
# Errors: name -> (expected class name, thunk of (jax, jnp, lax))


def _b(jnp):
    return jnp.array([1.0, 2.0])


ERRORS = {
    "ls_solve_shape": (
        "ValueError",
        lambda jax, jnp, lax: lax.custom_linear_solve(
            lambda x: 2.0 * x, _b(jnp), lambda mv, y: y[:1]
        ),
    ),
    "ls_matvec_shape": (
        "ValueError",
        lambda jax, jnp, lax: lax.custom_linear_solve(lambda x: x[:1], _b(jnp), lambda mv, y: y),
    ),
    "ls_matvec_tuple": (
        "ValueError",
        lambda jax, jnp, lax: lax.custom_linear_solve(lambda x: (x, x), _b(jnp), lambda mv, y: y),
    ),
    "ls_transpose_solve_shape": (
        "ValueError",
        lambda jax, jnp, lax: lax.custom_linear_solve(
            lambda x: 2.0 * x, _b(jnp), lambda mv, y: y, lambda vm, y: y[:1]
        ),
    ),
    "ls_aux_not_pair": (
        "ValueError",
        lambda jax, jnp, lax: lax.custom_linear_solve(
            lambda x: 2.0 * x, _b(jnp), lambda mv, y: y / 2, has_aux=True
        ),
    ),
    "ls_grad_without_transpose_solve": (
        "TypeError",
        lambda jax, jnp, lax: jax.grad(
            lambda b: jnp.sum(lax.custom_linear_solve(lambda x: 2.0 * x, b, lambda mv, y: y / 2.0))
        )(_b(jnp)),
    ),
    "ls_b_not_an_array": (
        "TypeError",
        lambda jax, jnp, lax: lax.custom_linear_solve(lambda x: x, "abc", lambda mv, y: y),
    ),
    "root_guess_not_an_array": (
        "TypeError",
        lambda jax, jnp, lax: lax.custom_root(lambda x: x, "abc", lambda f, x: x, lambda g, y: y),
    ),
    "root_solve_tree": (
        "TypeError",
        lambda jax, jnp, lax: lax.custom_root(
            lambda x: x, 1.0, lambda f, x: (x, x), lambda g, y: y
        ),
    ),
    "root_f_tree": (
        "TypeError",
        lambda jax, jnp, lax: lax.custom_root(
            lambda x: (x, x), 1.0, lambda f, x: x, lambda g, y: y
        ),
    ),
    "root_tangent_solve_tree": (
        "TypeError",
        lambda jax, jnp, lax: jax.grad(
            lambda a: lax.custom_root(lambda x: x - a, 1.0, lambda f, x: x, lambda g, y: (y, y))
        )(1.0),
    ),
    "root_tangent_solve_tree_no_grad": (
        "TypeError",
        lambda jax, jnp, lax: lax.custom_root(
            lambda x: x - 1.0, 1.0, lambda f, x: x, lambda g, y: (y, y)
        ),
    ),
    "root_tangent_solve_shape": (
        "TypeError",
        lambda jax, jnp, lax: jax.grad(
            lambda a: lax.custom_root(
                lambda x: x - a, 1.0, lambda f, x: x, lambda g, y: jnp.ones(2)
            )
        )(1.0),
    ),
}


# ---------------------------------------------------------------------------------------------
# make_jaxpr text: name -> thunk of (jax, jnp, lax) giving the closed jaxpr


def _scaled(lax, s):
    return lambda b: lax.custom_linear_solve(
        lambda x: s * x, b, lambda mv, y: y / s, lambda vm, y: y / s
    )


JAXPRS = {
    "jaxpr_transpose_solve": lambda jax, jnp, lax: jax.make_jaxpr(lambda s, b: _scaled(lax, s)(b))(
        jnp.array(3.0), jnp.ones(2)
    ),
    "jaxpr_jvp": lambda jax, jnp, lax: jax.make_jaxpr(
        lambda s, b: jax.jvp(lambda s, b: _scaled(lax, s)(b), (s, b), (1.0, jnp.ones(2)))
    )(jnp.array(3.0), jnp.ones(2)),
    "jaxpr_vmap": lambda jax, jnp, lax: jax.make_jaxpr(
        jax.vmap(lambda s, b: _scaled(lax, s)(b), (0, None))
    )(jnp.ones(3), jnp.ones(2)),
    "jaxpr_has_aux": lambda jax, jnp, lax: jax.make_jaxpr(
        lambda b: lax.custom_linear_solve(
            lambda x: 2.0 * x, b, lambda mv, y: (y / 2.0, y.sum()), has_aux=True
        )
    )(jnp.ones(2)),
    "jaxpr_symmetric": lambda jax, jnp, lax: jax.make_jaxpr(
        lambda b: lax.custom_linear_solve(
            lambda x: 2.0 * x, b, lambda mv, y: y / 2.0, symmetric=True
        )
    )(jnp.ones(2)),
    # custom_root's operands: f's constants, solve's (in order of use), f's and tangent_solve's.
    "jaxpr_root": lambda jax, jnp, lax: jax.make_jaxpr(
        lambda a: lax.custom_root(
            lambda x: x * x - a,
            1.0,
            lambda f, x0: lax.while_loop(
                lambda x: jnp.abs(f(x)) > 1e-6, lambda x: x - f(x) / (2 * x), x0
            ),
            lambda g, y: y / g(1.0),
        )
    )(2.0),
    "jaxpr_root_consts": lambda jax, jnp, lax: jax.make_jaxpr(
        lambda a, b, c: lax.custom_root(
            lambda x: x - a, 1.0, lambda f, x: x * b + f(x), lambda g, y: y * c
        )
    )(1.0, 3.0, 4.0),
}


def main() -> None:
    import jax
    import jax.numpy as jnp
    from jax import lax
    from numpy_gen import record_leaf, write_golden

    golden, problems = {}, []
    for name, case in CASES.items():
        tree, leaves = flatten(case(jax, jnp, lax))
        golden[name] = {"tree": tree, "leaves": [record_leaf(x) for x in leaves]}
    for name, (cls, thunk) in ERRORS.items():
        try:
            thunk(jax, jnp, lax)
        except Exception as e:  # noqa: BLE001 -- the class is the golden result
            golden[name] = {"error": type(e).__name__, "message": str(e).split("\n")[0]}
            if type(e).__name__ != cls:
                problems.append(f"{name}: raised {type(e).__name__}: {e}")
            continue
        problems.append(f"{name}: expected {cls}, got a result")
    for name, thunk in JAXPRS.items():
        golden[name] = {"jaxpr": str(thunk(jax, jnp, lax))}
    write_golden(OUT, golden, jax.__version__, problems)


if __name__ == "__main__":
    main()
