"""The code cells of JAX's "The Autodiff Cookbook", as one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd and records what
each cell prints or shows: values (``print(x)`` of an array records the array), shapes, the
booleans the checks print, the outcome of the cells that only assert (None when they pass, or
the error's class), and, where a cell shows an array as its last expression or prints a pytree
of arrays, that text with its numbers masked (``weak_type`` and the structure must agree; the
numbers are compared as values).

Left out or shrunk: the timing lines (``%timeit``); the Hessian-vector product example's
(30, 40) arrays are (5, 6) (its dense Hessian has (5*6)**2 entries instead of (30*40)**2) and
the matrix-Jacobian examples push 16 vectors instead of 128. The finite-difference estimates
subtract float32 losses 1e-4 apart, so they are compared at 1e-2. Beyond the page (marked):
``linearize``, per-example gradients, ``jax.hessian`` and the error ``grad`` raises for a
complex output without ``holomorphic=True``.
"""

from __future__ import annotations

import importlib
import re

from record import note

KNOWN: dict[str, tuple[object, str]] = {}


def _masked(x) -> str:
    """``str(x)`` (or ``repr``) with its numbers masked and no whitespace: what a printed value
    shows but its digits (and the padding NumPy sizes by them)."""
    masked = re.sub(r"-?\d+\.\d*(?:e[+-]?\d+)?(?:[+-]\d*\.?\d*(?:e[+-]?\d+)?j)?", "#", x)
    return re.sub(r"\s+", "", masked)


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    test_util = importlib.import_module(jax.__name__ + ".test_util")
    grad, jit, vmap, random = jax.grad, jax.jit, jax.vmap, jax.random
    jvp, vjp, jacfwd, jacrev = jax.jvp, jax.vjp, jax.jacfwd, jax.jacrev
    value_and_grad = jax.value_and_grad

    def passes(cell, fn):
        """Record None if ``fn()`` runs (its asserts hold), else the error's class."""
        note(rec, cell, lambda: fn() and None)

    key = random.key(0)

    # -- Starting with grad
    grad_tanh = grad(jnp.tanh)
    rec("grad.tanh", grad_tanh(2.0))
    rec("grad.tanh2", grad(grad(jnp.tanh))(2.0))
    rec("grad.tanh3", grad(grad(grad(jnp.tanh)))(2.0))

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

    W_grad = grad(loss, argnums=0)(W, b)
    rec("argnums.W_grad0", W_grad)
    W_grad = grad(loss)(W, b)
    rec("argnums.W_grad", W_grad)
    b_grad = grad(loss, 1)(W, b)
    rec("argnums.b_grad", b_grad)
    W_grad, b_grad = grad(loss, (0, 1))(W, b)
    rec("argnums.tuple", [W_grad, b_grad])

    # -- Differentiating with respect to nested lists, tuples, and dicts
    def loss2(params_dict):
        preds = predict(params_dict["W"], params_dict["b"], inputs)
        label_probs = preds * targets + (1 - preds) * (1 - targets)
        return -jnp.sum(jnp.log(label_probs))

    g2 = grad(loss2)({"W": W, "b": b})
    rec("containers.grad", g2)
    rec("containers.grad.text", _masked(str(g2)))

    # -- value_and_grad
    loss_value, Wb_grad = value_and_grad(loss, (0, 1))(W, b)
    rec("value_and_grad.value", loss_value)
    rec("value_and_grad.loss", loss(W, b))
    rec("value_and_grad.grad", list(Wb_grad))

    # -- Checking against numerical differences
    eps = 1e-4
    b_grad_numerical = (loss(W, b + eps / 2.0) - loss(W, b - eps / 2.0)) / eps
    rec("numerical.b_numerical", b_grad_numerical, tol=1e-2)
    rec("numerical.b_autodiff", grad(loss, 1)(W, b))
    key, subkey = random.split(key)
    vec = random.normal(subkey, W.shape)
    unitvec = vec / jnp.sqrt(jnp.vdot(vec, vec))
    W_grad_numerical = (loss(W + eps / 2.0 * unitvec, b) - loss(W - eps / 2.0 * unitvec, b)) / eps
    rec("numerical.W_numerical", W_grad_numerical, tol=1e-2)
    rec("numerical.W_autodiff", jnp.vdot(grad(loss)(W, b), unitvec))

    check_grads = test_util.check_grads
    passes("numerical.check_grads", lambda: check_grads(loss, (W, b), order=2))

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
    # Beyond the page: jax.hessian agrees.
    rec("hessian.builtin", jax.hessian(f)(W))

    # -- JVPs
    f = lambda W: predict(W, b, inputs)  # noqa: E731
    key, subkey = random.split(key)
    v = random.normal(subkey, W.shape)
    y, u = jvp(f, (W,), (v,))
    rec("jvp.y", y)
    rec("jvp.u", u)
    # Beyond the page: linearize gives the same pushforward.
    y_lin, f_jvp = jax.linearize(f, W)
    rec("linearize.y", y_lin)
    rec("linearize.u", f_jvp(v))

    # -- VJPs
    y, vjp_fun = vjp(f, W)
    key, subkey = random.split(key)
    u = random.normal(subkey, y.shape)
    v = vjp_fun(u)
    rec("vjp.v", list(v))

    def vgrad(f, x):
        y, vjp_fn = vjp(f, x)
        return vjp_fn(jnp.ones(y.shape))[0]

    rec("vjp.vgrad", vgrad(lambda x: 3 * x**2, jnp.ones((2, 2))))

    # -- Hessian-vector products
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
    rec("hvp.fwd_rev", ans1, tol=1e-5)

    def hvp_revfwd(f, primals, tangents):
        g = lambda primals: jvp(f, primals, tangents)[1]  # noqa: E731
        return grad(g)(primals)

    def hvp_revrev(f, primals, tangents):
        (x,) = primals
        (v,) = tangents
        return grad(lambda x: jnp.vdot(grad(f)(x), v))(x)

    # The page times these; the program records their values.
    rec("hvp.rev_fwd", list(hvp_revfwd(f, (X,), (V,))), tol=1e-5)
    rec("hvp.rev_rev", hvp_revrev(f, (X,), (V,)), tol=1e-5)

    # -- Jacobian-Matrix and Matrix-Jacobian products
    f = lambda W: predict(W, b, inputs)  # noqa: E731

    def loop_mjp(f, x, M):
        y, vjp_fun = vjp(f, x)
        return jnp.vstack([vjp_fun(mi) for mi in M])

    def vmap_mjp(f, x, M):
        y, vjp_fun = vjp(f, x)
        (outs,) = vmap(vjp_fun)(M)
        return outs

    key = random.key(0)
    num_covecs = 16
    U = random.normal(key, (num_covecs, *y.shape))
    # The page's loop stacks the tuples vjp_fun returns: JAX 0.10's vstack refuses them (a
    # TypeError), and the cell stops there. The program records that, and the vmapped product
    # and its agreement with a loop over vjp_fun(mi)[0].
    note(rec, "mjp.loop", lambda: loop_mjp(f, W, M=U))
    vmap_vs = vmap_mjp(f, W, M=U)
    rec("mjp.vmap", vmap_vs)
    loop_vs = jnp.vstack([vjp(f, W)[1](mi)[0] for mi in U])
    rec("mjp.allclose", jnp.allclose(loop_vs, vmap_vs))

    def loop_jmp(f, W, M):
        return jnp.vstack([jvp(f, (W,), (mi,))[1] for mi in M])

    def vmap_jmp(f, W, M):
        _jvp = lambda s: jvp(f, (W,), (s,))[1]  # noqa: E731
        return vmap(_jvp)(M)

    num_vecs = 16
    S = random.normal(key, (num_vecs, *W.shape))
    loop_vs = loop_jmp(f, W, M=S)
    vmap_vs = vmap_jmp(f, W, M=S)
    rec("jmp.vmap", vmap_vs)
    rec("jmp.allclose", jnp.allclose(loop_vs, vmap_vs))

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

    rec("our_jac.rev", jnp.allclose(builtin_jacrev(f)(W), our_jacrev(f)(W)))
    rec("our_jac.fwd", jnp.allclose(builtin_jacfwd(f)(W), our_jacfwd(f)(W)))
    rec("our_jac.rev_value", our_jacrev(f)(W))

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

    # -- Complex numbers and differentiation
    def check_jvp(seed):
        key = random.key(seed)
        key, subkey = random.split(key)
        a, b, c, d = random.uniform(subkey, (4,))

        def fun(z):
            x, y = jnp.real(z), jnp.imag(z)
            return u(x, y) + v(x, y) * 1j

        def u(x, y):
            return a * x + b * y

        def v(x, y):
            return c * x + d * y

        key, subkey = random.split(key)
        x, y = random.uniform(subkey, (2,))
        z = x + y * 1j
        key, subkey = random.split(key)
        c, d = random.uniform(subkey, (2,))
        z_dot = c + d * 1j
        _, ans = jvp(fun, (z,), (z_dot,))
        expected = (
            grad(u, 0)(x, y) * c
            + grad(u, 1)(x, y) * d
            + grad(v, 0)(x, y) * c * 1j
            + grad(v, 1)(x, y) * d * 1j
        )
        rec(f"complex.jvp_check{seed}", jnp.allclose(ans, expected))
        rec(f"complex.jvp_ans{seed}", ans)

    check_jvp(0)
    check_jvp(1)
    check_jvp(2)

    def check_vjp(seed):
        key = random.key(seed)
        key, subkey = random.split(key)
        a, b, c, d = random.uniform(subkey, (4,))

        def fun(z):
            x, y = jnp.real(z), jnp.imag(z)
            return u(x, y) + v(x, y) * 1j

        def u(x, y):
            return a * x + b * y

        def v(x, y):
            return c * x + d * y

        key, subkey = random.split(key)
        x, y = random.uniform(subkey, (2,))
        z = x + y * 1j
        key, subkey = random.split(key)
        c, d = random.uniform(subkey, (2,))
        z_bar = jnp.array(c + d * 1j)
        _, fun_vjp = vjp(fun, z)
        (ans,) = fun_vjp(z_bar)
        expected = (
            grad(u, 0)(x, y) * c
            + grad(v, 0)(x, y) * (-d)
            + grad(u, 1)(x, y) * c * (-1j)
            + grad(v, 1)(x, y) * (-d) * (-1j)
        )
        assert jnp.allclose(ans, expected, atol=1e-5, rtol=1e-5)
        rec(f"complex.vjp_ans{seed}", ans)
        return True

    for seed in (0, 1, 2):
        passes(f"complex.vjp_check{seed}", lambda seed=seed: check_vjp(seed))

    def shown(cell, x):
        """A cell's last expression: its value and its repr with the numbers masked."""
        rec(cell, x)
        rec(cell + ".repr", _masked(repr(x)))

    def f(z):
        x, y = jnp.real(z), jnp.imag(z)
        return x**2 + y**2

    z = 3.0 + 4j
    shown("complex.grad_real_out", grad(f)(z))

    def f(z):
        return jnp.sin(z)

    z = 3.0 + 4j
    shown("complex.holomorphic_sin", grad(f, holomorphic=True)(z))
    # Beyond the page: without the promise, grad refuses a complex output (JAX's TypeError).
    note(rec, "complex.not_promised", lambda: grad(f)(z))

    def f(z):
        return jnp.conjugate(z)

    z = 3.0 + 4j
    shown("complex.holomorphic_conj", grad(f, holomorphic=True)(z))

    A = jnp.array([[5.0, 2.0 + 3j, 5j], [2.0 - 3j, 7.0, 1.0 + 7j], [-5j, 1.0 - 7j, 12.0]])

    def f(X):
        L = jnp.linalg.cholesky(X)
        return jnp.sum((L - jnp.sin(L)) ** 2)

    shown("complex.cholesky", grad(f, holomorphic=True)(A))

    # -- Beyond the page: per-example gradients (vmap of grad over a batch).
    def example_loss(W, b, x, t):
        p = predict(W, b, x)
        return -jnp.log(p * t + (1 - p) * (1 - t))

    per_example = vmap(grad(example_loss), in_axes=(None, None, 0, 0))(W, b, inputs, targets)
    rec("per_example.grads", per_example)
    rec("per_example.sum_is_grad", jnp.allclose(per_example.sum(0), grad(loss)(W, b)))
