"""spmd.ad_checkpoint against JAX 0.10.2 (expected texts and values recorded from JAX runs of
the same programs): checkpoint_name, print_saved_residuals (JAX's text, source locations
``file:line:col (function)``), the name and offloading policies, how remat saves values (the
forward program rounds them with reduce_precision, saved residuals come first), the VJP
function as a pytree of its residuals, and checkpoint's trace cache."""

from __future__ import annotations

import contextlib
import io

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd.ad_checkpoint import checkpoint_name, print_saved_residuals, saved_residuals

cp = spmd.checkpoint_policies
HERE = __file__


def printed(f, *args) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        print_saved_residuals(f, *args)
    return buf.getvalue()


def line_of(fun, offset: int) -> int:
    return fun.__code__.co_firstlineno + offset


def test_checkpoint_name_is_the_name_primitive():
    assert str(spmd.make_jaxpr(lambda x: checkpoint_name(x * 2, "a"))(1.0)) == (
        "{ lambda ; a:f32[]. let\n    b:f32[] = mul a 2.0:f32[]\n"
        "    c:f32[] = name[name=a] b\n  in (c,) }"
    )
    # Identity under vmap and jvp (the tangent passes unnamed), and on pytrees.
    np.testing.assert_array_equal(spmd.vmap(lambda x: checkpoint_name(x, "v"))(jnp.ones(3)), 1)
    assert [float(v) for v in spmd.jvp(lambda x: checkpoint_name(x * 2, "v"), (1.0,), (1.0,))] == [
        2.0,
        2.0,
    ]
    out = checkpoint_name({"a": jnp.ones(2), "b": 3.0}, "t")
    np.testing.assert_array_equal(out["a"], 1)


def _g(W, x):
    y = jnp.dot(W, x)
    return jnp.sin(y)


def _f(W1, W2, x):
    x = _g(W1, x)
    x = _g(W2, x)
    return x


def test_print_saved_residuals_text_and_locations():
    W1, W2, x = jnp.ones((5, 4)), jnp.ones((6, 5)), jnp.ones(4)
    sin = f"{HERE}:{line_of(_g, 2)}:11 (_g)"
    assert printed(_f, W1, W2, x) == (
        "f32[5,4] from the argument W1\n"
        "f32[6,5] from the argument W2\n"
        "f32[4] from the argument x\n"
        f"f32[5] output of sin from {sin}\n"
        f"f32[5] output of cos from {sin}\n"
        f"f32[6] output of cos from {sin}\n"
    )
    # A checkpointed stage keeps only its inputs; a dot policy its dots.
    f2 = lambda W1, W2, x: spmd.checkpoint(_g)(W2, spmd.checkpoint(_g)(W1, x))  # noqa: E731
    assert printed(f2, W1, W2, x).splitlines()[3:] == [f"f32[5] output of sin from {sin}"]
    f3 = spmd.checkpoint(_f, policy=cp.dots_with_no_batch_dims_saveable)
    dot = f"{HERE}:{line_of(_g, 1)}:8 (_g)"
    assert printed(f3, W1, W2, x).splitlines()[3:] == [
        f"f32[5] output of dot_general from {dot}",
        f"f32[6] output of dot_general from {dot}",
    ]
    # saved_residuals: the same as (type, text) pairs.
    res = saved_residuals(_f, W1, W2, x)
    assert [a.shape for a, _ in res] == [(5, 4), (6, 5), (4,), (5,), (5,), (6,)]


def _named(W1, W2, x):
    x = checkpoint_name(_g(W1, x), name="a")
    x = checkpoint_name(_g(W2, x), name="b")
    return x * x


ARGS = (jnp.ones((5, 4)), jnp.ones((6, 5)), jnp.ones(4))


@pytest.mark.parametrize(
    "policy, names",
    [
        (cp.save_only_these_names("a"), ["a"]),
        (cp.save_only_these_names("a", "b"), ["a", "b"]),
        (cp.save_any_names_but_these("a"), ["b"]),
        # JAX's: the sin result 'a' names is saveable, and reported by its name.
        (cp.save_anything_except_these_names("a"), ["a", "b"]),
        (cp.nothing_saveable, []),
    ],
)
def test_name_policies_save_the_named_values(policy, names):
    f = spmd.checkpoint(_named, policy=policy)
    got = [ln.split(" from ")[0] for ln in printed(f, *ARGS).splitlines() if "named" in ln]
    assert got == [f"f32[{5 if n == 'a' else 6}] named '{n}'" for n in names]
    want = spmd.grad(lambda *a: _named(*a).sum(), argnums=(0, 1, 2))(*ARGS)
    got_g = spmd.grad(lambda *a: f(*a).sum(), argnums=(0, 1, 2))(*ARGS)
    for a, b in zip(got_g, want):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_offload_policies_move_residuals_to_host():
    pol = cp.save_and_offload_only_these_names(
        names_which_can_be_saved=[],
        names_which_can_be_offloaded=["a"],
        offload_src="device",
        offload_dst="pinned_host",
    )
    f = spmd.checkpoint(_named, policy=pol)
    assert printed(f, *ARGS).splitlines()[3:] == ["f32<host>[5] output of device_put from "]
    dots = cp.offload_dot_with_no_batch_dims("device", "pinned_host")
    g = spmd.checkpoint(lambda W, x: jnp.sin(W @ x), policy=dots)
    assert printed(g, jnp.ones((2, 3)), jnp.ones(3)) == (
        "f32[2,3] from the argument W\nf32[3] from the argument x\n"
        "f32<host>[2] output of device_put from \n"
    )
    grad = spmd.grad(lambda W, x: g(W, x).sum())(jnp.ones((2, 3)), jnp.ones(3))
    np.testing.assert_allclose(grad, np.full((2, 3), -0.9899925), rtol=1e-6)
    # The jaxpr moves the value to host memory right where it is made, back before use.
    text = str(spmd.make_jaxpr(spmd.grad(lambda *a: f(*a).sum()))(*ARGS))
    assert "f32<host>[5] = device_put[\n      copy_semantics=(ArrayCopySemantics.ALWAYS_COPY,)\n" \
        "      devices=(MemorySpace.Host,)" in text  # fmt: skip
    assert "devices=(MemorySpace.Device,)" in text


def test_policy_errors():
    with pytest.raises(ValueError, match="should not intersect"):
        cp.save_and_offload_only_these_names(
            names_which_can_be_saved=["a"],
            names_which_can_be_offloaded=["a"],
            offload_src="device",
            offload_dst="pinned_host",
        )
    bad = cp.save_from_both_policies(
        cp.offload_dot_with_no_batch_dims("device", "pinned_host"), cp.nothing_saveable
    )
    f = spmd.checkpoint(lambda W, x: jnp.sin(W @ x).sum(), policy=bad)
    with pytest.raises(ValueError, match="return value of the policies should be a boolean"):
        spmd.grad(f)(jnp.ones((2, 3)), jnp.ones(3))


def test_saved_values_are_rounded_where_made_and_passed_first():
    # As JAX 0.10.2's make_jaxpr(vjp) of a dot-saving checkpoint: reduce_precision after each
    # saved dot, the forward pass goes on with the rounded value; the residuals come after
    # the inputs, in forward order.
    f = spmd.checkpoint(
        lambda W, x: jnp.sin(jnp.dot(W, jnp.sin(jnp.dot(W, x)))), policy=cp.dots_saveable
    )
    fwd = spmd.make_jaxpr(lambda *a: spmd.vjp(f, *a))(jnp.ones((3, 3)), jnp.ones(3)).jaxpr
    lines = [ln.strip() for ln in str(fwd).splitlines()]
    assert "d:f32[3] = reduce_precision[exponent_bits=8 mantissa_bits=23] c" in lines
    assert "e:f32[3] = sin d" in lines
    assert lines[-1] == "in (h, a, b, d, g) }"


def test_vjp_function_is_a_pytree_of_residuals():
    # Eager: scalar residuals are leaves (cos of each stage), the Python float input is not.
    _, f_vjp = spmd.vjp(lambda x: jnp.sin(jnp.sin(jnp.sin(x))), 3.0)
    leaves, tree = spmd.tree_util.tree_flatten(f_vjp)
    np.testing.assert_allclose(
        [float(v) for v in leaves], [-0.9899925, 0.99005908, 0.99012482], rtol=1e-6
    )
    rebuilt = spmd.tree_util.tree_unflatten(tree, [jnp.float32(1.0)] * 3)
    assert float(rebuilt(1.0)[0]) == 1.0  # the product of the new residuals
    # Array inputs the backward pass needs come first, in argument order.
    _, f_vjp = spmd.vjp(lambda W, x: jnp.sin(W @ x), jnp.ones((2, 3)), jnp.ones(3))
    assert [v.shape for v in spmd.tree_util.tree_leaves(f_vjp)] == [(2, 3), (3,), (2,)]
    # It passes through jit as an argument.
    ct = spmd.jit(lambda fv, c: fv(c))(f_vjp, jnp.ones(2))
    assert [c.shape for c in ct] == [(2, 3), (3,)]


_scale = 2.0


def _uses_global(x):
    return jnp.sin(x) * _scale


def test_checkpoint_traces_once_per_argument_types():
    # As JAX's trace cache: a global redefined after the first trace is not seen again.
    global _scale
    f = spmd.checkpoint(_uses_global)
    g1 = spmd.grad(f)(1.0)
    _scale = 3.0
    try:
        assert float(spmd.grad(f)(1.0)) == float(g1)
        assert float(spmd.grad(spmd.checkpoint(lambda x: _uses_global(x)))(1.0)) != float(g1)
        # New argument types trace anew.
        np.testing.assert_allclose(spmd.grad(lambda v: f(v).sum())(jnp.ones(2)), 3 * np.cos(1.0))
    finally:
        _scale = 2.0


def test_saved_values_keep_their_locations_after_grad_traced_the_checkpoint():
    # grad traces (and caches) the checkpointed body without locations; the residual report
    # made afterwards still names where the saved value was made, as JAX's.
    pol = cp.save_and_offload_only_these_names(
        names_which_can_be_saved=["y"],
        names_which_can_be_offloaded=["z"],
        offload_src="device",
        offload_dst="pinned_host",
    )

    def f(x):
        y = checkpoint_name(jnp.sin(x), "y")
        z = checkpoint_name(jnp.sin(y), "z")
        return jnp.sum(jnp.sin(z))

    fc = spmd.checkpoint(f, policy=pol)
    spmd.grad(fc)(jnp.arange(4.0))
    assert printed(fc, jnp.arange(4.0)).splitlines() == [
        "f32[4] from the argument x",
        f"f32[4] named 'y' from {HERE}:{line_of(f, 1)}:12 (test_saved_values_keep_their_"
        "locations_after_grad_traced_the_checkpoint.<locals>.f)",
        "f32<host>[4] output of device_put from ",
    ]


def test_arguments_of_star_args_and_star_star_kwargs_are_named_by_them():
    # JAX's names: rest[i] counts from the first argument *rest takes; kw['k'] for **kw.
    def f(x, *rest, **kw):
        return jnp.sin(x) * rest[0] * rest[1]["a"] * kw["k"]

    found = [src for _, src in saved_residuals(f, 1.0, 2.0, {"a": 3.0}, k=4.0)]
    assert [s for s in found if s.startswith("from the argument")] == [
        "from the argument rest[0]",
        "from the argument rest[1]['a']",
        "from the argument kw['k']",
    ]


def _scanned(w, x):
    return spmd.lax.scan(lambda c, wi: (jnp.sin(wi @ c), None), x, w)[0].sum()


def test_residuals_of_a_scan_are_located_at_the_scan():
    # Also after grad of the same program ran once (its linearization is cached without
    # locations): JAX's "output of scan from file:line:col (function)".
    w, x = jnp.ones((3, 4, 4)), jnp.ones(4)
    spmd.grad(_scanned)(w, x)
    at = f"{HERE}:{line_of(_scanned, 1)}:11 (_scanned)"
    assert printed(_scanned, w, x).splitlines()[1:] == [
        f"f32[3,4] output of scan from {at}",
        f"f32[3,4] output of scan from {at}",
    ]


def test_nested_checkpoint_keeps_its_primal_part_as_one_equation():
    # JAX 0.10.2's forward program of a checkpoint inside a differentiated checkpoint.
    inner = spmd.checkpoint(lambda z: jnp.sin(jnp.sin(z)))
    outer = spmd.checkpoint(lambda y: jnp.sin(inner(y)))
    f = lambda x: jnp.sin(outer(x))  # noqa: E731
    assert str(spmd.make_jaxpr(lambda x: spmd.vjp(f, x))(3.0).jaxpr) == (
        "{ lambda ; a:f32[]. let\n"
        "    b:f32[] = remat2[\n"
        "      differentiated=False\n"
        "      jaxpr={ lambda ; c:f32[]. let d:f32[] = sin c; e:f32[] = sin d in (e,) }\n"
        "      policy=None\n"
        "      prevent_cse=True\n"
        "    ] a\n"
        "    f:f32[] = sin b\n"
        "    g:f32[] = sin f\n"
        "    h:f32[] = cos f\n"
        "  in (g, a, h) }"
    )
    np.testing.assert_allclose(spmd.grad(f)(3.0), -0.96095115, rtol=1e-6)


def test_docstring_examples():
    import doctest

    from spmd._src import ad_checkpoint

    flags = doctest.ELLIPSIS
    result = doctest.testmod(ad_checkpoint, extraglobs={"jnp": jnp}, optionflags=flags)
    assert result.attempted > 0 and result.failed == 0
