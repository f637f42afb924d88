"""The code cells of JAX's 301 page "The Autodiff Cookbook with JVP and VJP" (docs/301/cookbook.md),
as one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd and records what
each cell prints or shows: printed arrays and shapes, the booleans the checks print, the
outcome of the cells that only assert (None when they pass, or the error's class), and a
cell's last expression as its value and its repr with the numbers masked.

Left out or shrunk: the ``%timeit`` lines (the functions they time are run once and their
values recorded); the Hessian-vector product's (30, 40) arrays are (5, 6) (its dense Hessian
has (5*6)**2 entries instead of (30*40)**2), and the matrix-Jacobian products push 16 vectors
instead of 128.
"""

from __future__ import annotations

import importlib
import re

from record import note

KNOWN: dict[str, tuple[object, str]] = {}


def _masked(x) -> str:
    """``repr(x)`` with its numbers masked and no whitespace: what a shown value shows but its
    digits (and the padding NumPy sizes by them)."""
    masked = re.sub(r"-?\d+\.\d*(?:e[+-]?\d+)?(?:[+-]\d*\.?\d*(?:e[+-]?\d+)?j)?", "#", x)
    return re.sub(r"\s+", "", masked)


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    grad, jit, vmap, random, lax = jax.grad, jax.jit, jax.vmap, jax.random, jax.lax
    jvp, vjp, jacfwd, jacrev = jax.jvp, jax.vjp, jax.jacfwd, jax.jacrev
    linearize, linear_transpose = jax.linearize, jax.linear_transpose

    def passes(cell, fn):
        """Record None if ``fn()`` runs (its asserts hold), else the error's class."""
        note(rec, cell, lambda: fn() and None)

    def shown(cell, x):
        """A cell's last expression: its value and its repr with the numbers masked."""
        rec(cell, x)
        rec(cell + ".repr", _masked(repr(x)))

    key = random.key(0)

    # -- Setup: a running example
    def sigmoid(x):
        return 0.5 * (jnp.tanh(x / 2) + 1)

    def predict(W, b, inputs):
        return sigmoid(jnp.dot(inputs, W) + b)

    inputs = jnp.array(
        [[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30], [0.74, -2.49, 1.39]]
    )
    targets = jnp.array([True, True, False, True])

    def loss(W, b):
        preds = predict(W, b, inputs)
        label_probs = preds * targets + (1 - preds) * (1 - targets)
        return -jnp.sum(jnp.log(label_probs))

    key, W_key, b_key = random.split(key, 3)
    W = random.normal(W_key, (3,))
    b = random.normal(b_key, ())
    rec("setup.W", W)
    rec("setup.b", b)
    rec("setup.loss", loss(W, b))  # (not printed by the page: the example's loss)

    # -- Jacobians and Hessians using jacfwd and jacrev
    f = lambda W: predict(W, b, inputs)  # noqa: E731 -- the page's code
    J = jacfwd(f)(W)
    rec("jac.jacfwd.shape", J.shape)
    rec("jac.jacfwd", J)
    J = jacrev(f)(W)
    rec("jac.jacrev.shape", J.shape)
    rec("jac.jacrev", J)

    def predict_dict(params, inputs):
        return predict(params["W"], params["b"], inputs)

    J_dict = jacrev(predict_dict)({"W": W, "b": b}, inputs)
    rec("jac.dict.keys", list(J_dict))
    for k, v in J_dict.items():
        rec(f"jac.dict.{k}", v)

    def hessian(f):
        return jacfwd(jacrev(f))

    H = hessian(f)(W)
    rec("hessian.shape", H.shape)
    rec("hessian", H)

    # -- Stopping gradients
    def value_fn(theta, state):
        return jnp.dot(theta, state)

    def td_loss(theta, s_prev, r, s):
        v_prev = value_fn(theta, s_prev)
        target = r + value_fn(theta, s)
        return -0.5 * (lax.stop_gradient(target) - v_prev) ** 2

    theta = jnp.array([0.1, -0.1, 0.0])
    s_prev, r, s = jnp.array([1.0, 2.0, -1.0]), 1.0, jnp.array([2.0, 1.0, 0.0])
    rec("stop_gradient.td", grad(td_loss)(theta, s_prev, r, s))

    def straight_through_round(x):
        return x + lax.stop_gradient(jnp.round(x) - x)

    rec("stop_gradient.round", straight_through_round(1.7))
    rec("stop_gradient.round_grad", grad(straight_through_round)(1.7))

    # -- JVPs
    f = lambda W: predict(W, b, inputs)  # noqa: E731
    key, subkey = random.split(key)
    v = random.normal(subkey, W.shape)
    y, u = jvp(f, (W,), (v,))
    rec("jvp.y", y)  # (the cell prints nothing: its values)
    rec("jvp.u", u)

    # -- VJPs
    y, vjp_fun = vjp(f, W)
    key, subkey = random.split(key)
    u = random.normal(subkey, y.shape)
    v = vjp_fun(u)
    rec("vjp.v", list(v))  # (the cell prints nothing: its value)

    # -- jax.linearize: one forward pass, many JVPs
    f = lambda W: predict(W, b, inputs)  # noqa: E731
    y, f_jvp = linearize(f, W)
    rec("linearize.y", y)
    key, k1, k2 = random.split(key, 3)
    v1, v2 = random.normal(k1, W.shape), random.normal(k2, W.shape)
    rec("linearize.v1", f_jvp(v1))
    rec("linearize.v2", f_jvp(v2))

    f_vjp = linear_transpose(f_jvp, W)
    y2, f_vjp_ref = vjp(f, W)
    u = jnp.ones_like(y)
    rec("linear_transpose.allclose", jnp.allclose(f_vjp(u)[0], f_vjp_ref(u)[0]))
    rec("linear_transpose.value", f_vjp(u)[0])  # (not printed: the transposed map's value)

    # -- Vector-valued gradients with VJPs
    def vgrad(f, x):
        y, vjp_fn = vjp(f, x)
        return vjp_fn(jnp.ones(y.shape))[0]

    rec("vgrad", vgrad(lambda x: 3 * x**2, jnp.ones((2, 2))))

    # -- Hessian-vector products using both forward- and reverse-mode
    def hvp(f, primals, tangents):
        return jvp(grad(f), primals, tangents)[1]

    def f(X):
        return jnp.sum(jnp.tanh(X) ** 2)

    key, subkey1, subkey2 = random.split(key, 3)
    X = random.normal(subkey1, (5, 6))
    V = random.normal(subkey2, (5, 6))
    ans1 = hvp(f, (X,), (V,))
    ans2 = jnp.tensordot(hessian(f)(X), V, 2)
    rec("hvp.allclose", jnp.allclose(ans1, ans2, 1e-4, 1e-4))

    def hvp_revfwd(f, primals, tangents):
        g = lambda primals: jvp(f, primals, tangents)[1]  # noqa: E731
        return grad(g)(primals)

    def hvp_revrev(f, primals, tangents):
        (x,) = primals
        (v,) = tangents
        return grad(lambda x: jnp.vdot(grad(f)(x), v))(x)

    # The page times these four; the program records their values once.
    rec("hvp.fwd_rev", hvp(f, (X,), (V,)), tol=1e-5)
    rec("hvp.rev_fwd", list(hvp_revfwd(f, (X,), (V,))), tol=1e-5)
    rec("hvp.rev_rev", hvp_revrev(f, (X,), (V,)), tol=1e-5)
    rec("hvp.dense", jnp.tensordot(hessian(f)(X), V, 2), tol=1e-5)

    # -- Jacobian-Matrix and Matrix-Jacobian products
    f = lambda W: predict(W, b, inputs)  # noqa: E731

    def loop_mjp(f, x, M):
        y, vjp_fun = vjp(f, x)
        return jnp.vstack([jnp.asarray(vjp_fun(mi)) for mi in M])

    def vmap_mjp(f, x, M):
        y, vjp_fun = vjp(f, x)
        (outs,) = vmap(vjp_fun)(M)
        return outs

    key = random.key(0)
    num_covecs = 16
    U = random.normal(key, (num_covecs, *y.shape))

    def mjp_cell():
        loop_vs = loop_mjp(f, W, M=U)
        vmap_vs = vmap_mjp(f, W, M=U)
        rec("mjp.loop", loop_vs)
        rec("mjp.vmap", vmap_vs)
        assert jnp.allclose(loop_vs, vmap_vs), "Vmap and non-vmapped MJPs should be identical"
        return True

    passes("mjp.assert", mjp_cell)

    def loop_jmp(f, W, M):
        return jnp.vstack([jvp(f, (W,), (mi,))[1] for mi in M])

    def vmap_jmp(f, W, M):
        _jvp = lambda s: jvp(f, (W,), (s,))[1]  # noqa: E731
        return vmap(_jvp)(M)

    num_vecs = 16
    S = random.normal(key, (num_vecs, *W.shape))

    def jmp_cell():
        loop_vs = loop_jmp(f, W, M=S)
        vmap_vs = vmap_jmp(f, W, M=S)
        rec("jmp.loop", loop_vs)
        rec("jmp.vmap", vmap_vs)
        assert jnp.allclose(loop_vs, vmap_vs), "Vmap and non-vmapped JMPs should be identical"
        return True

    passes("jmp.assert", jmp_cell)

    # -- The implementation of jacfwd and jacrev
    builtin_jacrev, builtin_jacfwd = jacrev, jacfwd

    def our_jacrev(f):
        def jacfun(x):
            y, vjp_fun = vjp(f, x)
            (J,) = vmap(vjp_fun, in_axes=0)(jnp.eye(len(y)))
            return J

        return jacfun

    def our_jacfwd(f):
        def jacfun(x):
            _jvp = lambda s: jvp(f, (x,), (s,))[1]  # noqa: E731
            Jt = vmap(_jvp, in_axes=1)(jnp.eye(len(x)))
            return jnp.transpose(Jt)

        return jacfun

    def jacrev_cell():
        assert jnp.allclose(builtin_jacrev(f)(W), our_jacrev(f)(W)), "Incorrect reverse-mode"
        return True

    def jacfwd_cell():
        assert jnp.allclose(builtin_jacfwd(f)(W), our_jacfwd(f)(W)), "Incorrect forward-mode"
        return True

    passes("our_jacrev", jacrev_cell)
    passes("our_jacfwd", jacfwd_cell)
    rec("our_jacrev.value", our_jacrev(f)(W))
    rec("our_jacfwd.value", our_jacfwd(f)(W))

    def f(x):
        try:
            if x < 3:
                return 2 * x**3
            else:
                raise ValueError
        except ValueError:
            return jnp.pi * x

    y, f_vjp = vjp(f, 4.0)
    rec("jit_vjp", jit(f_vjp)(1.0))

    # -- Complex numbers: the unambiguous part, JVPs and VJPs
    def u(x, y):
        return x**2 + jnp.sin(y)

    def v(x, y):
        return x * y

    def fun(z):  # not holomorphic!
        x, y = jnp.real(z), jnp.imag(z)
        return u(x, y) + v(x, y) * 1j

    z = 1.5 + 0.5j
    x, y = jnp.real(z), jnp.imag(z)
    J = jnp.array([[grad(u, 0)(x, y), grad(u, 1)(x, y)], [grad(v, 0)(x, y), grad(v, 1)(x, y)]])
    t = 0.7 - 0.3j
    _, t_out = jvp(fun, (z,), (t,))
    t_pair = J @ jnp.array([jnp.real(t), jnp.imag(t)])
    rec("complex.jvp_pair", jnp.allclose(t_out, t_pair[0] + t_pair[1] * 1j))
    rec("complex.J", J)  # (not printed: the real Jacobian and the JVP)
    rec("complex.t_out", t_out)

    w = -0.2 + 1.1j
    _, fun_vjp = vjp(fun, z)
    (w_out,) = fun_vjp(w)
    rec("complex.vjp_bilinear", jnp.allclose(jnp.real(w * t_out), jnp.real(w_out * t)))
    rec(
        "complex.vjp_sesquilinear",
        jnp.allclose(jnp.real(jnp.conj(w) * t_out), jnp.real(jnp.conj(w_out) * t)),
    )
    rec("complex.w_out", w_out)

    _, t_out = jvp(jnp.sin, (z,), (t,))
    _, sin_vjp = vjp(jnp.sin, z)
    (w_out,) = sin_vjp(w)
    rec("complex.sin_jvp", jnp.allclose(t_out, jnp.cos(z) * t))
    rec("complex.sin_vjp", jnp.allclose(w_out, jnp.cos(z) * w))

    # -- grad at complex inputs: mind the conjugate
    def f(z):
        x, y = jnp.real(z), jnp.imag(z)
        return x**2 + y**2

    rec("complex.grad_abs2", grad(f)(3.0 + 4j))

    z = 3.0 + 4j
    for _ in range(100):
        z = z - 0.05 * jnp.conj(grad(f)(z))
    rec("complex.descent_conj", f(z))
    z = 3.0 + 4j
    for _ in range(100):
        z = z - 0.05 * grad(f)(z)
    rec("complex.descent_plain", f(z), tol=1e-5)

    # -- Relation to Wirtinger derivatives
    z = 1.5 + 0.5j
    fx = J[0, 0] + J[1, 0] * 1j
    fy = J[0, 1] + J[1, 1] * 1j
    dfdz = 0.5 * (fx - 1j * fy)
    dfdzbar = 0.5 * (fx + 1j * fy)
    _, t_out = jvp(fun, (z,), (t,))
    rec("complex.wirtinger", jnp.allclose(t_out, dfdz * t + dfdzbar * jnp.conj(t)))
    rec("complex.wirtinger_parts", [dfdz, dfdzbar])

    # -- Holomorphic functions and grad(f, holomorphic=True)
    rec("complex.holomorphic_sin", grad(jnp.sin, holomorphic=True)(3.0 + 4j))
    rec("complex.cos", jnp.cos(3.0 + 4j))
    # (The page says grad refuses a complex output without the promise.)
    note(rec, "complex.not_promised", lambda: grad(jnp.sin)(3.0 + 4j))

    def f(z):
        return jnp.conjugate(z)

    shown("complex.holomorphic_conj", grad(f, holomorphic=True)(3.0 + 4j))

    A = jnp.array([[5.0, 2.0 + 3j, 5j], [2.0 - 3j, 7.0, 1.0 + 7j], [-5j, 1.0 - 7j, 12.0]])

    def f(X):
        L = jnp.linalg.cholesky(X)
        return jnp.sum((L - jnp.sin(L)) ** 2)

    g = grad(f, holomorphic=True)(A)
    rec("complex.cholesky", g, tol=1e-4)
    rec("complex.cholesky.repr", _masked(repr(g)))
