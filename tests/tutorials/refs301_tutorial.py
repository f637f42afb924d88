"""The code cells of JAX's "Autodiff with refs" page (docs/301/refs.md: refs under grad,
plumbing refs through custom_vjp, ``VJP.with_refs`` with gradient refs, ``jax.ad.DontWant``,
microbatch gradient accumulation, a ``foreach`` loop over refs), as one program:
``program(jax, rec)`` (see tests/tutorials/record.py).

Left out: the section "Differentiating with respect to Ref arguments" (four cells): JAX 0.10.2's
``vjp`` of a function of a Ref raises ValueError ("Expected cotangent type Ref{float32[]} but
got float32[]") where the page shows gradients. A Ref is recorded as its value (``ref[...]``;
its text where the page prints an int32 Ref), an error as its class, a jaxpr as its text.
"""

from __future__ import annotations

import importlib

from record import note

_DENSE = (
    "spmd's backward pass of a slice builds the dense one-hot cotangent and adds it into the "
    "gradient ref (same values); JAX's transpose rules add into the ref's touched entries only"
)
# cell -> (what spmd records, None for any value unlike JAX's; why it differs from JAX 0.10.2).
KNOWN: dict[str, tuple[object, str]] = {
    "take.jaxpr": (None, _DENSE),
    "highpass.vjp_jaxpr": (None, _DENSE),
}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    # (jax.ad: a namespace of JAX's package, a module of spmd's)
    ad = getattr(jax, "ad", None) or importlib.import_module(jax.__name__ + ".ad")
    scan = jax.lax.scan

    # -- Refs and automatic differentiation
    @jax.jit
    def pure(x):
        ref = jax.new_ref(x)
        ref[...] = ref[...] + ref[...]
        return ref[...]

    rec("pure", jax.grad(pure)(3.0))  # 2.0

    # error under jax.grad: writes a differentiated value into a plumbing ref
    def bad(x, some_plumbing_ref):
        y = x + x
        some_plumbing_ref[...] += y
        return y

    # fine
    def good(x, some_plumbing_ref):
        y = x + x
        some_plumbing_ref[...] += jax.lax.stop_gradient(y)
        return y

    note(rec, "plumbing.bad", lambda: jax.grad(bad)(1.0, jax.new_ref(0.0)))
    plumbing = jax.new_ref(0.0)
    rec("plumbing.good", [jax.grad(good)(1.0, plumbing), plumbing[...]])
    note(rec, "grad_of_ref", lambda: jax.grad(lambda r: r[...] ** 2)(jax.new_ref(1.0)))

    # First, define the helper `stash_grads`:
    @jax.custom_vjp
    def stash_grads(grads_ref, x):
        return x

    def stash_grads_fwd(grads_ref, x):
        return x, grads_ref

    def stash_grads_bwd(grads_ref, g):
        grads_ref[...] = g
        return None, g

    stash_grads.defvjp(stash_grads_fwd, stash_grads_bwd)

    # Now, use `stash_grads` to stash intermediate gradients:
    def f(x, grads_ref):
        x = stash_grads(grads_ref, x)
        x = jnp.sin(x)
        return x

    grads_ref = jax.new_ref(0.0)
    jax.grad(f)(1.0, grads_ref)
    rec("stash", grads_ref[...])  # Ref(0.54), the gradient at the stash point: cos(1.)
    jax.jit(jax.grad(f))(2.0, grads_ref)  # (beyond the page: under jit)
    rec("stash.jit", grads_ref[...])

    # -- Gradient refs for value arguments
    _, sin_vjp = jax.vjp(jnp.sin, 1.0)
    (x_bar,) = sin_vjp(1.0)  # the usual way: gradient returned as a value
    rec("sin.x_bar", x_bar)  # 0.54

    grad_ref = jax.new_ref(0.0)
    _, sin_vjp = jax.vjp(jnp.sin, 1.0)
    rec("sin.with_refs.returns", repr(sin_vjp.with_refs(grad_ref)(1.0)))
    rec("sin.grad_ref", grad_ref[...])  # Ref(0.54)
    rec("ad.names", [repr(ad.GradValue()), repr(ad.DontWant()), repr(ad.GradRef()),
                     repr(ad.DidntWant())])  # fmt: skip

    @jax.jit
    def take(x, i):
        return x[i]

    x = jnp.arange(10.0)

    _, take_vjp = jax.vjp(take, x, 3)
    x_bar, _ = take_vjp(1.0)
    rec("take.x_bar", x_bar)  # [0., 0., 0., 1., 0., 0., 0., 0., 0., 0.]

    grad_ref = jax.new_ref(jnp.zeros(10))

    for i in [3, 5, 3]:
        _, take_vjp = jax.vjp(take, x, i)
        out = take_vjp.with_refs(grad_ref, ad.GradValue())(1.0)  # no gradient ref for i
        rec("take.with_refs.returns", repr(out[0]))

    rec("take.grad_ref", grad_ref[...])  # Ref([0., 0., 0., 2., 0., 1., 0., 0., 0., 0.])

    @jax.make_jaxpr
    def take_vjp_jaxpr():
        _, take_vjp = jax.vjp(take, x, 3)
        take_vjp.with_refs(grad_ref, ad.GradValue())(1.0)

    rec("take.jaxpr", str(take_vjp_jaxpr()))

    # -- DontWant: skipping unneeded gradients
    def predict(W, x):
        return W @ x

    W = jnp.ones((4, 4))
    x = jnp.ones(4)

    _, f_vjp = jax.vjp(predict, W, x)
    W_bar, x_bar = f_vjp.with_refs(ad.GradValue(), ad.DontWant())(jnp.ones(4))
    rec("dontwant.W_bar0", W_bar[0])  # [1., 1., 1., 1.]
    rec("dontwant.x_bar", repr(x_bar))  # DidntWant()

    _, f_vjp = jax.vjp(predict, W, x)
    both = jax.make_jaxpr(lambda: f_vjp(jnp.ones(4)))()
    only_W = jax.make_jaxpr(lambda: f_vjp.with_refs(ad.GradValue(), ad.DontWant())(jnp.ones(4)))()

    rec("dontwant.dots", [str(both).count("dot_general"), str(only_W).count("dot_general")])

    # -- Example: gradient accumulation over microbatches
    NUM_LAYERS = 3
    NUM_MUBATCHES = 5
    MUBATCH_SIZE = 7

    def mubatch_loss(Ws, xs):
        # inner loop over layers
        act, _ = jax.lax.scan(lambda x, W: (jnp.dot(x, W), None), xs, Ws)
        return jnp.mean(act)

    def process_batch(Ws, xs_batch):
        grad_acc = jax.new_ref(jnp.zeros_like(Ws))

        def process_mubatch(_, xs):
            loss, f_vjp = jax.vjp(lambda Ws: mubatch_loss(Ws, xs), Ws)
            f_vjp.with_refs(grad_acc)(jnp.ones_like(loss))  # accumulate in-place
            return (), loss

        xs_mubatches = xs_batch.reshape(NUM_MUBATCHES, MUBATCH_SIZE, -1)
        # outer loop over microbatches
        (), losses = jax.lax.scan(process_mubatch, (), xs_mubatches)
        return jax.freeze(grad_acc), losses

    Ws = jnp.ones((NUM_LAYERS, 4, 4))
    xs_batch = jnp.ones((NUM_MUBATCHES * MUBATCH_SIZE, 4))
    grads, losses = process_batch(Ws, xs_batch)
    rec("mubatch", [grads, losses])

    xs_mubatches = xs_batch.reshape(NUM_MUBATCHES, MUBATCH_SIZE, -1)
    grads_expected = jax.grad(lambda Ws: sum(mubatch_loss(Ws, xs) for xs in xs_mubatches))(Ws)
    rec("mubatch.allclose", bool(jnp.allclose(grads, grads_expected, atol=1e-3, rtol=1e-3)))

    # -- foreach, a new way to write scan
    def foreach(*args):
        def decorator(body):
            return scan(lambda _, elts: (None, body(*elts)), None, args)[1]

        return decorator

    r = jax.new_ref(0)
    xs = jnp.arange(10)

    @foreach(xs)
    def ys(x):
        r[...] += x
        return x * 2

    rec("foreach.r", str(r))  # Ref(45, dtype=int32)
    rec("foreach.ys", ys)  # [ 0  2  4  6  8 10 12 14 16 18]

    def highpass(xs, alpha=0.9):
        xs_ref = jax.new_ref(xs)
        y_ref = jax.new_ref(0.0)

        @foreach(jnp.arange(1, len(xs)))
        def ys(n):
            y_ref[...] = alpha * (y_ref[...] + xs_ref[n] - xs_ref[n - 1])
            return y_ref[...]

        return ys

    def highpass_scan(xs, alpha=0.9):
        def step(y, x_and_prev):
            x, x_prev = x_and_prev
            y = alpha * (y + x - x_prev)
            return y, y

        return scan(step, 0.0, (xs[1:], xs[:-1]))[1]

    xs = jnp.sin(jnp.arange(8.0)) + jnp.arange(8.0) / 4

    def loss(f):
        return lambda xs: jnp.sum(f(xs) ** 2)

    rec("highpass.allclose", bool(jnp.allclose(highpass(xs), highpass_scan(xs))))
    rec(
        "highpass.grad.allclose",
        bool(jnp.allclose(jax.grad(loss(highpass))(xs), jax.grad(loss(highpass_scan))(xs))),
    )
    rec("highpass.grad", jax.grad(loss(highpass))(xs))  # (beyond the page: the values)

    ys, highpass_vjp = jax.vjp(highpass, xs)
    rec("highpass.vjp_jaxpr", str(jax.make_jaxpr(highpass_vjp)(jnp.ones_like(ys))))
