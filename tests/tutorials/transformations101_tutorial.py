"""The code cells of JAX's "Transformations: grad and vmap" page (docs/101/transformations.md), as
one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd and records what
each prints or shows: values (with their sharding), the text ``print`` writes where the page
shows it (an f-string of an array, a tracer printed inside ``vmap``, a jaxpr), types as text and
errors as their class. Nothing is left out; the finite-difference check of the bias gradient is
compared loosely (a float32 difference quotient over ``eps = 1e-4`` amplifies the last-ulp
differences of the two loss values a thousandfold).
"""

from __future__ import annotations

import contextlib
import importlib
import io

KNOWN: dict[str, tuple[object, str]] = {}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    check_grads = importlib.import_module(jax.__name__ + ".test_util").check_grads

    def printed(cell, fn):
        """Run ``fn``; record what it prints (as text) and its value or error class."""
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            try:
                value = fn()
            except Exception as e:  # noqa: BLE001 -- the class is the recorded value
                value = e
        rec(cell + ".out", buf.getvalue())
        rec(cell, value)
        return value

    # -- Automatic differentiation with jax.grad
    grad_tanh = jax.grad(jnp.tanh)
    rec("grad.tanh", grad_tanh(2.0))

    f = lambda x: x**3 + 2 * x**2 - 3 * x + 1  # noqa: E731 -- the page's lambda

    dfdx = jax.grad(f)
    d2fdx = jax.grad(dfdx)
    d3fdx = jax.grad(d2fdx)
    rec("grad.higher", [dfdx(1.0), d2fdx(1.0), d3fdx(1.0)])

    # -- Differentiating with respect to different arguments
    def sigmoid(x):
        return 0.5 * (jnp.tanh(x / 2) + 1)

    def predict(W, b, inputs):
        return sigmoid(jnp.dot(inputs, W) + b)

    inputs = jnp.array([[0.52, 1.12, 0.77],
                        [0.88, -1.08, 0.15],
                        [0.52, 0.06, -1.30],
                        [0.74, -2.49, 1.39]])  # fmt: skip
    targets = jnp.array([True, True, False, True])
    W = jnp.array([0.1, 0.4, -0.3])
    b = 0.5

    def loss(W, b):
        preds = predict(W, b, inputs)
        label_probs = preds * targets + (1 - preds) * (1 - targets)
        return -jnp.sum(jnp.log(label_probs))

    W_grad = jax.grad(loss, argnums=0)(W, b)
    rec("argnums.0", W_grad)
    W_grad = jax.grad(loss)(W, b)
    rec("argnums.default", W_grad)
    b_grad = jax.grad(loss, 1)(W, b)
    rec("argnums.1", b_grad)
    rec("argnums.1.repr", f"{b_grad=}".split("(")[0])  # the f-string's `name=Array`
    W_grad, b_grad = jax.grad(loss, (0, 1))(W, b)
    rec("argnums.both", [W_grad, b_grad])

    # -- value_and_grad and auxiliary outputs
    loss_value, Wb_grad = jax.value_and_grad(loss, (0, 1))(W, b)
    rec("value_and_grad", [loss_value, Wb_grad])

    def loss_and_preds(W, b):
        preds = predict(W, b, inputs)
        label_probs = preds * targets + (1 - preds) * (1 - targets)
        return -jnp.sum(jnp.log(label_probs)), preds

    W_grad, preds = jax.grad(loss_and_preds, has_aux=True)(W, b)
    rec("has_aux", [W_grad, preds])

    # -- Checking derivatives numerically
    eps = 1e-4
    b_grad_numerical = (loss(W, b + eps / 2.0) - loss(W, b - eps / 2.0)) / eps
    rec("numerical.b_grad_numerical", b_grad_numerical, tol=1e-2)
    rec("numerical.b_grad_autodiff", jax.grad(loss, 1)(W, b))
    printed("numerical.check_grads", lambda: check_grads(loss, (W, b), order=2))

    # -- Automatic vectorization with jax.vmap
    x = jnp.arange(5.0)
    w = jnp.array([2.0, 3.0, 4.0])

    def convolve(x, w):
        output = []
        for i in range(1, len(x) - 1):
            output.append(jnp.dot(x[i - 1 : i + 2], w))
        return jnp.array(output)

    rec("vmap.convolve", convolve(x, w))
    xs = jnp.stack([x, x])
    ws = jnp.stack([w, w])

    def manually_batched_convolve(xs, ws):
        output = []
        for i in range(xs.shape[0]):
            output.append(convolve(xs[i], ws[i]))
        return jnp.stack(output)

    rec("vmap.manual", manually_batched_convolve(xs, ws))
    auto_batch_convolve = jax.vmap(convolve)
    rec("vmap.auto", auto_batch_convolve(xs, ws))

    # -- Choosing which axes to map with in_axes and out_axes
    auto_batch_convolve_v2 = jax.vmap(convolve, in_axes=1, out_axes=1)
    xst = jnp.transpose(xs)
    wst = jnp.transpose(ws)
    rec("vmap.axes_1", auto_batch_convolve_v2(xst, wst))
    batch_convolve_v3 = jax.vmap(convolve, in_axes=[0, None])
    rec("vmap.in_axes_none", batch_convolve_v3(xs, w))

    # -- Composing vmap
    def dist(x, y):
        return jnp.sqrt(jnp.sum((x - y) ** 2))

    def all_pairs(f):
        return jax.vmap(jax.vmap(f, in_axes=(None, 0)), in_axes=(0, None))

    points = jnp.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    rec("compose.all_pairs", all_pairs(dist)(points, points))

    def example_loss(W, b, x, y):
        pred = predict(W, b, x)
        label_prob = pred * y + (1 - pred) * (1 - y)
        return -jnp.log(label_prob)

    per_example_grads = jax.vmap(jax.grad(example_loss, (0, 1)), in_axes=(None, None, 0, 0))
    W_grads, b_grads = per_example_grads(W, b, inputs, targets)
    rec("compose.per_example_grads", [W_grads, b_grads])

    # -- How transformations work: tracing
    def f(x):
        print("x =", x)
        print("jax.typeof(x) =", jax.typeof(x))
        return x * 2

    printed("tracing.vmap_print", lambda: jax.vmap(f)(jnp.arange(3)))

    def g(x):
        return jnp.sin(x) * 2.0

    rec("tracing.jaxpr.g", str(jax.jit(g).trace(1.0).jaxpr))
    rec("tracing.jaxpr.convolve", str(jax.jit(convolve).trace(x, w).jaxpr))
    rec("tracing.jaxpr.vmap", str(jax.jit(jax.vmap(convolve)).trace(xs, ws).jaxpr))
    rec("tracing.jaxpr.manual", str(jax.jit(manually_batched_convolve).trace(xs, ws).jaxpr))

    # -- Consequence 2: traced code can't always specialize on data values
    printed("specialize.val", lambda: jax.vmap(lambda x: print(x.val))(jnp.arange(3.0)))

    def absolute(x):
        if x > 0:  # needs one answer, but x stands for a whole batch of values
            return x
        else:
            return -x

    err = printed("specialize.if", lambda: jax.vmap(absolute)(jnp.arange(-2.0, 3.0)))
    rec("specialize.if.is_type_error", isinstance(err, TypeError))
    rec("specialize.if.is_concretization", isinstance(err, jax.errors.ConcretizationTypeError))

    def absolute(x):  # noqa: F811 -- the page redefines it
        return jnp.where(x > 0, x, -x)

    rec("specialize.where", jax.vmap(absolute)(jnp.arange(-2.0, 3.0)))

    # -- grad works with Python control flow
    def f(x):  # noqa: F811 -- the page redefines it
        if x < 3:
            return 3.0 * x**2
        else:
            return -4.0 * x

    rec("control_flow.grad", [jax.grad(f)(2.0), jax.grad(f)(4.0)])

    def sqrt_newton(a):
        x = a
        while abs(x * x - a) > 1e-6:  # data-dependent loop
            x = 0.5 * (x + a / x)
        return x

    rec("control_flow.sqrt_newton", sqrt_newton(2.0))
    rec("control_flow.grad_sqrt_newton", jax.grad(sqrt_newton)(2.0))
    # The page's remark that jit and vmap of the branching grad fail again.
    printed("control_flow.jit_grad", lambda: jax.jit(jax.grad(f))(2.0))
    printed("control_flow.vmap_grad", lambda: jax.vmap(jax.grad(f))(jnp.array([2.0, 4.0])))

    # -- Where jit fits in
    @jax.jit
    def sum_sq(x):
        return jnp.sum(x**2)

    rec("jit.sum_sq", sum_sq(jnp.arange(3.0)))
