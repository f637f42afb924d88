"""``spmd.vmap``'s front end: in_axes/out_axes/axis_size/kwargs, composition with jit and
itself, values that stay unbatched, and one test per bad input (error class and message as
JAX 0.10 gives them; messages were taken from JAX and are hard-coded here).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp

X = np.arange(12, dtype=np.float32).reshape(3, 4)
Y = np.array([0.5, 1.0, 1.5, 2.0], np.float32)

# Tests known to fail: name -> reason (strict xfails: remove the entry when it passes).
KNOWN_FAILURES: dict[str, str] = {}


def _known(fn):
    reason = KNOWN_FAILURES.get(fn.__name__)
    return pytest.mark.xfail(reason=reason, strict=True)(fn) if reason else fn


def _jaxpr(fn, *args) -> str:
    # JAX prints the batching rule's NumPy ints as np.int64(k): compare without that artifact.
    return re.sub(r"np\.int64\((-?\d+)\)", r"\1", str(spmd.make_jaxpr(fn)(*args)))


def f2(x, y):
    return x.sum() + y.sum()


# ---------------------------------------------------------------------------------------------
# Bad input: one test per case


def test_inconsistent_sizes_lists_every_argument():
    with pytest.raises(ValueError) as e:
        spmd.vmap(f2)(jnp.ones((2, 3)), jnp.ones((3,)))
    assert str(e.value) == (
        "vmap got inconsistent sizes for array axes to be mapped:\n"
        "  * one axis had size 2: axis 0 of argument x of type float32[2,3];\n"
        "  * one axis had size 3: axis 0 of argument y of type float32[3]"
    )


def test_inconsistent_sizes_names_pytree_paths():
    with pytest.raises(ValueError) as e:
        spmd.vmap(lambda d: d["a"])({"a": jnp.ones((2, 3)), "b": jnp.ones((3,))})
    assert str(e.value) == (
        "vmap got inconsistent sizes for array axes to be mapped:\n"
        "  * one axis had size 2: axis 0 of argument d['a'] of type float32[2,3];\n"
        "  * one axis had size 3: axis 0 of argument d['b'] of type float32[3]"
    )


def test_inconsistent_sizes_with_axis_size():
    with pytest.raises(ValueError) as e:
        spmd.vmap(f2, in_axes=(0, None), axis_size=4)(jnp.ones((2, 3)), jnp.ones((3,)))
    assert str(e.value) == (
        "vmap got inconsistent sizes for array axes to be mapped:\n"
        "  * the `axis_size` argument was 4;\n"
        "  * one axis had size 2: axis 0 of argument x of type float32[2,3]"
    )


@_known
def test_inconsistent_sizes_summarises_the_majority():
    with pytest.raises(ValueError) as e:
        spmd.vmap(lambda a, b, c: a)(jnp.ones((2, 3)), jnp.ones((3,)), jnp.ones((2,)))
    assert str(e.value) == (
        "vmap got inconsistent sizes for array axes to be mapped:\n"
        "  * most axes (2 of them) had size 2, e.g. axis 0 of argument a of type float32[2,3];\n"
        "  * one axis had size 3: axis 0 of argument b of type float32[3]"
    )


def test_in_axes_beyond_rank():
    msg = (
        "vmap was requested to map its argument along axis 2, which implies that its rank "
        "should be at least 3, but is only 2"
    )
    with pytest.raises(ValueError, match=re.escape(msg)) as e:
        spmd.vmap(f2, in_axes=(2, 0))(jnp.ones((2, 3)), jnp.ones((3,)))
    assert "(2, 3)" in str(e.value)


def test_negative_in_axes_beyond_rank():
    msg = (
        "vmap was requested to map its argument along axis -2, which implies that its rank "
        "should be at least 2, but is only 1"
    )
    with pytest.raises(ValueError, match=re.escape(msg)):
        spmd.vmap(f2, in_axes=(0, -2))(jnp.ones((3, 3)), jnp.ones((3,)))


def test_in_axes_tuple_length_mismatch():
    with pytest.raises(ValueError) as e:
        spmd.vmap(f2, in_axes=(0, 0, 0))(jnp.ones((2, 3)), jnp.ones((2,)))
    assert str(e.value) == (
        "vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
        "positional arguments passed to the function, but got len(in_axes)=3, len(args)=2"
    )


def test_in_axes_list_is_a_tuple():
    # A list is read as the tuple of per-argument axes (so a short one is a mismatch).
    with pytest.raises(ValueError, match=re.escape("len(in_axes)=1, len(args)=2")):
        spmd.vmap(f2, in_axes=[0])(jnp.ones((2, 3)), jnp.ones((2,)))


def test_in_axes_not_a_tree_prefix():
    with pytest.raises(
        ValueError,
        match=re.escape("vmap in_axes specification must be a tree prefix of the corresponding"),
    ):
        spmd.vmap(lambda d: d["a"], in_axes=({"a": 0, "c": 0},))(
            {"a": jnp.ones((2, 3)), "b": jnp.ones((2,))}
        )


def test_in_axes_not_an_int():
    with pytest.raises(TypeError, match=re.escape("vmap in_axes must be an int, None, or")):
        spmd.vmap(f2, in_axes=(0.5, 0))(jnp.ones((2, 3)), jnp.ones((2,)))


def test_out_axes_not_a_tree_prefix():
    with pytest.raises(
        ValueError,
        match=re.escape("vmap out_axes specification must be a tree prefix of the corresponding"),
    ):
        spmd.vmap(lambda a: (a, a), out_axes=(0, 0, 0))(jnp.ones((2, 3)))


def test_out_axes_beyond_rank():
    with pytest.raises(ValueError, match="3"):
        spmd.vmap(lambda a: a, out_axes=3)(jnp.ones((2, 3)))


def test_out_axes_none_for_a_mapped_output():
    # JAX: "at vmap out_axes, got axis spec None but output was batched on axis 0".
    with pytest.raises(ValueError, match="out_axes"):
        spmd.vmap(lambda a: a, out_axes=None)(jnp.ones((2, 3)))


def test_no_mapped_argument_and_no_axis_size():
    with pytest.raises(
        ValueError, match=re.escape("vmap must have at least one non-None value in in_axes")
    ):
        spmd.vmap(f2, in_axes=None)(jnp.ones((2, 3)), jnp.ones((3,)))


def test_not_callable():
    with pytest.raises(TypeError):
        spmd.vmap(3)


# ---------------------------------------------------------------------------------------------
# in_axes / out_axes / axis_size / kwargs


def test_in_axes_int_and_out_axes_int():
    out = spmd.vmap(lambda a: a * 2 + a[0], in_axes=1, out_axes=1)(X)
    want = np.stack([X[:, j] * 2 + X[0, j] for j in range(4)], axis=1)
    np.testing.assert_array_equal(np.asarray(out), want)


def test_in_axes_none_broadcasts_an_argument():
    out = spmd.vmap(lambda a, b: a * b, in_axes=(0, None))(X, Y)
    np.testing.assert_array_equal(np.asarray(out), X * Y)


def test_negative_in_axes_and_out_axes():
    out = spmd.vmap(lambda a, b: a * b[:3], in_axes=(-1, None), out_axes=-1)(X, Y)
    want = np.stack([X[:, j] * Y[:3] for j in range(4)], axis=-1)
    np.testing.assert_array_equal(np.asarray(out), want)


def test_in_axes_pytree_prefix():
    params = {"w": Y, "b": np.float32(1.0)}
    out = spmd.vmap(lambda p, x: x * p["w"] + p["b"], in_axes=({"w": None, "b": None}, 0))(
        params, X
    )
    np.testing.assert_array_equal(np.asarray(out), X * Y + 1)
    # A leaf of in_axes applies to a whole subtree.
    out = spmd.vmap(lambda t: t[0] - t[1], in_axes=(1,))((X, X * 2))
    np.testing.assert_array_equal(np.asarray(out), (X - 2 * X).T)


def test_out_axes_pytree_prefix():
    a, b = spmd.vmap(lambda x, y: (x * 2, jnp.sin(y)), in_axes=(0, None), out_axes=(1, None))(X, Y)
    assert a.shape == (4, 3) and b.shape == (4,)
    np.testing.assert_array_equal(np.asarray(a), (X * 2).T)
    out = spmd.vmap(lambda x: {"s": x.sum(), "x": x}, out_axes={"s": 0, "x": 1})(X)
    assert out["s"].shape == (3,) and out["x"].shape == (4, 3)


def test_unbatched_output_is_broadcast_for_out_axes_0():
    out = spmd.vmap(lambda x, y: jnp.cos(y), in_axes=(0, None))(X, Y)
    np.testing.assert_allclose(np.asarray(out), np.broadcast_to(np.cos(Y), (3, 4)), rtol=1e-6)


def test_axis_size_without_mapped_arguments():
    out = spmd.vmap(lambda y: y + 1.0, in_axes=None, axis_size=2)(Y)
    assert out.shape == (2, 4)
    np.testing.assert_array_equal(np.asarray(out), np.broadcast_to(Y + 1, (2, 4)))


def test_kwargs_are_mapped_over_axis_0():
    out = spmd.vmap(lambda x, scale: x * scale, in_axes=(0,))(X, scale=np.float32([1, 2, 3]))
    np.testing.assert_array_equal(np.asarray(out), X * np.float32([1, 2, 3])[:, None])


def test_nested_vmap_is_an_outer_product():
    out = spmd.vmap(spmd.vmap(lambda a, b: a * b, (None, 0)), (0, None))(Y, Y[:3])
    np.testing.assert_array_equal(np.asarray(out), np.outer(Y, Y[:3]))


def test_vmap_of_jit_and_jit_of_vmap():
    f = lambda a, b: jnp.tanh(a @ b)  # noqa: E731
    want = np.tanh(X @ Y)
    for g in (spmd.vmap(spmd.jit(f), (0, None)), spmd.jit(spmd.vmap(f, (0, None)))):
        np.testing.assert_allclose(np.asarray(g(X, Y)), want, rtol=1e-6)


def test_output_structure_is_kept():
    out = spmd.vmap(lambda x: [x, {"n": x.sum()}])(X)
    assert isinstance(out, list) and isinstance(out[1], dict)
    np.testing.assert_array_equal(np.asarray(out[1]["n"]), X.sum(1))


# ---------------------------------------------------------------------------------------------
# Values that do not depend on the mapped axis stay unbatched (jaxprs as JAX 0.10 prints them)


def test_unbatched_branch_is_computed_once():
    got = _jaxpr(spmd.vmap(lambda a, b: a + jnp.sin(b), in_axes=(0, None)), X, Y)
    assert got == (
        "{ lambda ; a:f32[3,4] b:f32[4]. let\n"
        "    c:f32[4] = sin b\n"
        "    d:f32[1,4] = broadcast_in_dim[broadcast_dimensions=(1,)] c\n"
        "    e:f32[3,4] = add a d\n"
        "  in (e,) }"
    )


def test_unbatched_output_with_out_axes_none_is_not_broadcast():
    got = _jaxpr(
        spmd.vmap(lambda a, b: (a * 2, jnp.sin(b)), in_axes=(0, None), out_axes=(0, None)), X, Y
    )
    assert got == (
        "{ lambda ; a:f32[3,4] b:f32[4]. let\n"
        "    c:f32[3,4] = mul a 2.0:f32[]\n"
        "    d:f32[4] = sin b\n"
        "  in (c, d) }"
    )


def test_unbatched_reduction_and_scalar():
    got = _jaxpr(spmd.vmap(lambda a, b: a * 3.0 + b.sum(), in_axes=(0, None)), X, Y)
    assert got == (
        "{ lambda ; a:f32[3,4] b:f32[4]. let\n"
        "    c:f32[3,4] = mul a 3.0:f32[]\n"
        "    d:f32[] = reduce_sum[axes=(0,) out_sharding=None] b\n"
        "    e:f32[3,4] = add c d\n"
        "  in (e,) }"
    )


def test_unbatched_output_broadcast_at_the_end():
    got = _jaxpr(spmd.vmap(lambda b: b + 1.0, in_axes=None, axis_size=2), Y)
    assert got == (
        "{ lambda ; a:f32[4]. let\n"
        "    b:f32[4] = add a 1.0:f32[]\n"
        "    c:f32[2,4] = broadcast_in_dim[broadcast_dimensions=(1,)] b\n"
        "  in (c,) }"
    )


def test_in_axes_1_needs_no_transpose():
    got = _jaxpr(spmd.vmap(lambda a: a * 2, in_axes=1, out_axes=1), X)
    assert got == "{ lambda ; a:f32[3,4]. let b:f32[3,4] = mul a 2.0:f32[] in (b,) }"


def test_negative_axes_jaxpr():
    got = _jaxpr(spmd.vmap(lambda a, b: a * b, in_axes=(-2, None), out_axes=-1), X, Y)
    assert got == (
        "{ lambda ; a:f32[3,4] b:f32[4]. let\n"
        "    c:f32[1,4] = broadcast_in_dim[broadcast_dimensions=(1,)] b\n"
        "    d:f32[3,4] = mul a c\n"
        "    e:f32[4,3] = transpose[permutation=(1, 0)] d\n"
        "  in (e,) }"
    )


def test_jit_of_vmap_jaxpr():
    got = _jaxpr(spmd.jit(spmd.vmap(lambda a, b: a * b, in_axes=(0, None))), X, Y)
    assert got == (
        "{ lambda ; a:f32[3,4] b:f32[4]. let\n"
        "    c:f32[3,4] = jit[\n"
        "      name=<lambda>\n"
        "      jaxpr={ lambda ; a:f32[3,4] b:f32[4]. let\n"
        "          d:f32[1,4] = broadcast_in_dim[broadcast_dimensions=(1,)] b\n"
        "          c:f32[3,4] = mul a d\n"
        "        in (c,) }\n"
        "    ] a b\n"
        "  in (c,) }"
    )


def test_vmap_of_jit_jaxpr():
    got = _jaxpr(spmd.vmap(spmd.jit(lambda a, b: a @ b), in_axes=(0, None)), X, Y)
    assert got == (
        "{ lambda ; a:f32[3,4] b:f32[4]. let\n"
        "    c:f32[3] = jit[\n"
        "      name=<lambda>\n"
        "      jaxpr={ lambda ; a:f32[3,4] b:f32[4]. let\n"
        "          c:f32[3] = dot_general[\n"
        "            dimension_numbers=(([1], [0]), ([], []))\n"
        "            preferred_element_type=float32\n"
        "          ] a b\n"
        "        in (c,) }\n"
        "    ] a b\n"
        "  in (c,) }"
    )


@_known
def test_nested_vmap_jaxpr():
    got = _jaxpr(spmd.vmap(spmd.vmap(lambda a, b: a * b, (None, 0)), (0, None)), Y, Y)
    assert got == (
        "{ lambda ; a:f32[4] b:f32[4]. let\n"
        "    c:f32[1,4] = broadcast_in_dim[broadcast_dimensions=(1,)] b\n"
        "    d:f32[4,1] = broadcast_in_dim[broadcast_dimensions=(0,)] a\n"
        "    e:f32[4,4] = mul d c\n"
        "  in (e,) }"
    )
    # Values from JAX 0.10: an unbatched operand is broadcast first even when it is the left
    # one, and a batched per-example scalar is given its trailing dimension after.
    got = _jaxpr(spmd.vmap(spmd.vmap(lambda a, b: a + b * 2, (0, None)), (None, 0)), Y, Y)
    assert got == (
        "{ lambda ; a:f32[4] b:f32[4]. let\n"
        "    c:f32[4] = mul b 2.0:f32[]\n"
        "    d:f32[1,4] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n"
        "    e:f32[4,1] = broadcast_in_dim[broadcast_dimensions=(0,)] c\n"
        "    f:f32[4,4] = add d e\n"
        "  in (f,) }"
    )


def test_known_failures_name_tests():
    stale = [k for k in KNOWN_FAILURES if not callable(globals().get(k))]
    assert not stale, f"KNOWN_FAILURES names no test: {stale}"
