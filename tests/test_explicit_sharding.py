"""Explicit sharding along the lines of JAX's tutorial (tests/golden_gen/explicit_sharding_gen.py):
every line the program says equals what JAX 0.10 says."""

from __future__ import annotations

import types

import numpy as np
import pytest
from golden_compare import load_golden_family

import spmd
import spmd.numpy as jnp
from spmd.sharding import AxisType, NamedSharding, reshard
from spmd.sharding import PartitionSpec as P

gen, GOLDEN = load_golden_family("explicit_sharding", "lines")


def test_lines_match_jax():
    lines = []
    ns = types.SimpleNamespace(jax=spmd, jnp=jnp, np=np, P=P, AxisType=AxisType, reshard=reshard)
    gen.program(ns, lambda *a: lines.append(" ".join(str(x) for x in a)))
    assert lines == GOLDEN


def test_shape_dtype_struct_sharding_types_make_jaxpr_and_jit():
    # As JAX 0.10's: a ShapeDtypeStruct's sharding (a PartitionSpec resolved on the mesh in
    # context when made) types the argument make_jaxpr and jit trace it as (f32[8@X,4@Y]).
    with pytest.raises(TypeError, match=r"ShapeDtypeStruct of shape \(8, 4\).*needs a mesh"):
        spmd.ShapeDtypeStruct((8, 4), jnp.float32, sharding=P("X", "Y"))
    mesh = spmd.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
    want = (
        "{ lambda ; a:f32[8@X,4@Y]. let\n    b:f32[8@X,4@Y] = sin a\n"
        "    c:f32[8@X,4@Y] = mul b 2.0:f32[]\n  in (c,) }"
    )
    f = lambda x: jnp.sin(x) * 2  # noqa: E731
    named = spmd.ShapeDtypeStruct(
        (8, 4), jnp.float32, sharding=spmd.NamedSharding(mesh, P("X", "Y"))
    )
    assert str(spmd.make_jaxpr(f)(named)) == want
    with spmd.set_mesh(mesh):
        spec = spmd.ShapeDtypeStruct((8, 4), jnp.float32, sharding=P("X", "Y"))
        assert spec.sharding == spmd.NamedSharding(mesh, P("X", "Y"))
        assert str(spmd.make_jaxpr(f)(spec)) == want
        assert str(spmd.jit(f).trace(spec).jaxpr) == want
        # Without a sharding, the argument is unsharded.
        plain = spmd.ShapeDtypeStruct((8, 4), jnp.float32)
        assert "a:f32[8,4]." in str(spmd.make_jaxpr(f)(plain))


def test_typeof_repr_and_its_sharding_carry_the_explicit_axes_only():
    # repr as JAX's (the tutorial prints f"{jax.typeof(y) = }"); the type's sharding names the
    # Explicit mesh axes only: inside auto_axes the array is still sharded over X, its type not.
    mesh = spmd.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
    with spmd.set_mesh(mesh):
        a = reshard(np.arange(8.0, dtype=np.float32), P("X"))
        assert repr(spmd.typeof(a)) == "ShapedArray(float32[8@X])"
        assert repr(spmd.typeof(1.0)) == "ShapedArray(float32[], weak_type=True)"
        assert str(spmd.typeof(1.0)) == "~float32[]"
        assert spmd.typeof(a).sharding.spec == P("X")
        seen = {}

        def g(x):
            seen["concrete"], seen["type"] = x.sharding.spec, spmd.typeof(x).sharding.spec
            seen["repr"] = repr(spmd.typeof(x))
            return x

        spmd.sharding.auto_axes(g, out_sharding=P("X"))(a)
        assert seen == {"concrete": P("X"), "type": P(None), "repr": "ShapedArray(float32[8])"}
    mixed = spmd.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Auto, AxisType.Explicit))
    b = spmd.device_put(np.ones((4, 4)), NamedSharding(mixed, P("X", "Y")))
    assert spmd.typeof(b).sharding.spec == P(None, "Y") and b.sharding.spec == P("X", "Y")
    assert repr(spmd.typeof(b)) == "ShapedArray(float32[4,4@Y])"


def test_broadcasted_iota_places_its_result_on_out_sharding():
    # It ignored out_sharding: JAX 0.10 gives int32[8@X,4] sharded P('X', None), eager and jit.
    mesh = spmd.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
    want = np.repeat(np.arange(8, dtype=np.int32)[:, None], 4, axis=1)
    with spmd.set_mesh(mesh):
        f = lambda: spmd.lax.broadcasted_iota(jnp.int32, (8, 4), 0, out_sharding=P("X"))  # noqa: E731
        for out in (f(), spmd.jit(f)()):
            assert str(spmd.typeof(out)) == "int32[8@X,4]"
            assert out.sharding == NamedSharding(mesh, P("X", None))
            np.testing.assert_array_equal(np.asarray(out), want)
        assert "a:i32[8@X,4] = iota" in str(spmd.make_jaxpr(f)())
        plain = spmd.lax.broadcasted_iota(jnp.int32, (8, 4), 0)
        assert str(spmd.typeof(plain)) == "int32[8,4]"
    with pytest.raises(ValueError, match=r"lax.broadcasted_iota out_sharding: a PartitionSpec"):
        f()


@pytest.mark.parametrize(
    ("shape", "spec", "new", "want"),
    [
        ((1, 8), (None, "X"), (8,), "float32[8@X]"),  # a singleton goes: was refused
        ((8,), ("X",), (1, 1, 8), "float32[1,1,8@X]"),
        ((1, 2, 1, 4), (None, "X", None, "Y"), (2, 4), "float32[2@X,4@Y]"),
        ((2, 1, 4), ("X", None, None), (8,), "float32[8@X]"),
        # A merge still needs its sharded dimensions first, singletons included (as JAX 0.10).
        ((1, 2, 4), (None, "X", None), (8,), None),
        ((2, 1, 4), ("X", None, "Y"), (8,), None),
    ],
)
def test_reshape_types_on_explicit_axes(shape, spec, new, want):
    mesh = spmd.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
    x = np.arange(float(np.prod(shape)), dtype=np.float32).reshape(shape)
    with spmd.set_mesh(mesh):
        a = reshard(x, P(*spec))
        if want is None:
            with pytest.raises(
                spmd.errors.ShardingTypeError, match="This reshape is not supported"
            ):
                a.reshape(new)
            return
        out = a.reshape(new)
        assert str(spmd.typeof(out)) == want
        assert str(spmd.typeof(spmd.jit(lambda a: a.reshape(new))(a))) == want
        np.testing.assert_array_equal(np.asarray(out), x.reshape(new))


def test_tile_refuses_a_sharded_dimension_it_repeats():
    # As JAX 0.10: the repeated dimension would need gathering; spmd returned it replicated.
    mesh = spmd.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
    with spmd.set_mesh(mesh):
        v = reshard(np.arange(8.0, dtype=np.float32), P("X"))
        a = reshard(np.arange(32.0, dtype=np.float32).reshape(8, 4), P("X"))
        msg = r"sharded on dimension 0 when the tiling is non-trivial\. Got input type: "
        with pytest.raises(spmd.errors.ShardingTypeError, match=msg + r"float32\[8@X\] with reps"):
            jnp.tile(v, 2)
        with pytest.raises(spmd.errors.ShardingTypeError, match=msg + r"float32\[8@X,4\]"):
            spmd.jit(lambda a: jnp.tile(a, (2, 1)))(a)
        out = jnp.tile(a, (1, 2))
        assert str(spmd.typeof(out)) == "float32[8@X,8]"
        np.testing.assert_array_equal(np.asarray(out), np.tile(np.asarray(a), (1, 2)))
        assert str(spmd.typeof(jnp.tile(v, (2, 1)))) == "float32[2,8@X]"


def test_repeat_along_a_sharded_axis_needs_out_sharding():
    # As JAX 0.10: ValueError asking for out_sharding (spmd kept the axis's sharding); given
    # one, the repeat works on the whole axis and lands there, eager and in jit.
    mesh = spmd.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    with spmd.set_mesh(mesh):
        a = reshard(x, P("X"))
        ask = r"Please pass sharding to `jnp.repeat` via `out_sharding` parameter\. \(jnp.repeat "
        with pytest.raises(ValueError, match=ask + r"along axis 0 of float32\[8@X,4\]"):
            jnp.repeat(a, 2, axis=0)
        with pytest.raises(ValueError, match=ask + r"along axis 0 of float32\[32@X\]"):
            spmd.jit(lambda a: jnp.repeat(a, 2))(a)
        out = jnp.repeat(a, 2, axis=1)  # an unsharded axis: no question
        assert str(spmd.typeof(out)) == "float32[8@X,8]"
        np.testing.assert_array_equal(np.asarray(out), np.repeat(x, 2, axis=1))
        reps = jnp.array([1, 2] * 4)
        for f in (
            lambda a: jnp.repeat(a, 2, axis=0, out_sharding=P("X")),
            lambda a: jnp.repeat(a[:, 0], reps, total_repeat_length=12, out_sharding=P("X")),
        ):
            for out in (f(a), spmd.jit(f)(a)):
                assert out.sharding.spec[0] == "X"
        np.testing.assert_array_equal(np.asarray(f(a)), np.repeat(x[:, 0], [1, 2] * 4))


def test_indexing_ops_take_out_sharding():
    # JAX's way round indexing a sharded dimension: .at[...].get/set/...(out_sharding=); spmd
    # ignored it in get and refused the keyword in the updates.
    mesh = spmd.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    with spmd.set_mesh(mesh):
        a = reshard(x, P("X", "Y"))
        with pytest.raises(spmd.errors.ShardingTypeError):
            a[0]
        for f in (
            lambda a: a.at[0].get(out_sharding=P("Y")),
            spmd.jit(lambda a: a.at[0].get(out_sharding=P("Y"))),
        ):
            out = f(a)
            assert str(spmd.typeof(out)) == "float32[4@Y]"
            np.testing.assert_array_equal(np.asarray(out), x[0])
        want = {"set": 1.0, "add": x[0] + 1, "subtract": x[0] - 1, "multiply": x[0], "divide": x[0],
                "power": x[0], "min": np.minimum(x[0], 1), "max": np.maximum(x[0], 1)}  # fmt: skip
        for method, row in want.items():
            out = getattr(a.at[0], method)(1.0, out_sharding=P("X", "Y"))
            assert str(spmd.typeof(out)) == "float32[8@X,4@Y]", method
            np.testing.assert_allclose(np.asarray(out)[0], row, err_msg=method)
            np.testing.assert_array_equal(np.asarray(out)[1:], x[1:])
        out = spmd.jit(lambda a: a.at[0].set(reshard(np.ones(4, np.float32), P("Y")),
                                             out_sharding=P("X")))(a)  # fmt: skip
        assert str(spmd.typeof(out)) == "float32[8@X,4]"
        assert out.sharding.spec == P("X", None)
        # Without a mesh in types, out_sharding still places the result.
        np.testing.assert_array_equal(np.asarray(jnp.arange(4.0).at[1].get(out_sharding=None)), 1.0)


def test_vjp_cotangent_must_have_the_output_sharding_in_its_type():
    # As JAX 0.10: the VJP function's argument is typed like the output (f32[8@X] wants an
    # f32[8@X] cotangent); jacrev builds its basis so; grad's scalar seed is unaffected.
    mesh = spmd.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
    with spmd.set_mesh(mesh):
        v = reshard(np.arange(8.0, dtype=np.float32), P("X"))
        _, pullback = spmd.vjp(jnp.sin, v)
        msg = (r"unexpected JAX type \(e\.g\. shape/dtype\) for argument to VJP function: got "
               r"float32\[8\], but expected float32\[8@X\] because the corresponding output of "
               r"the differentiated function had JAX type float32\[8@X\]")  # fmt: skip
        with pytest.raises(ValueError, match=msg):
            pullback(jnp.ones(8))
        with pytest.raises(ValueError, match=msg):
            spmd.jit(pullback)(jnp.ones(8))
        with pytest.raises(ValueError, match=r"got float32\[8@Y\], but expected float32\[8@X\]"):
            pullback(reshard(jnp.ones(8), P("Y")))
        with pytest.raises(ValueError, match=r"got float32\[4@Y\], but expected float32\[4\]"):
            spmd.vjp(jnp.sin, jnp.ones(4))[1](reshard(jnp.ones(4), P("Y")))
        (ct,) = pullback(reshard(jnp.ones(8), P("X")))
        assert str(spmd.typeof(ct)) == "float32[8@X]"
        np.testing.assert_allclose(np.asarray(ct), np.cos(np.arange(8.0)), rtol=1e-6)
        jac = spmd.jacrev(jnp.sin)(v)
        assert str(spmd.typeof(jac)) == "float32[8,8@X]"
        np.testing.assert_allclose(np.asarray(jac), np.diag(np.cos(np.arange(8.0))), rtol=1e-6)
        assert str(spmd.typeof(spmd.grad(lambda x: jnp.sin(x).sum())(v))) == "float32[8@X]"


def test_vmap_spmd_axis_name_must_agree_with_the_mapped_dimensions_type():
    mesh = spmd.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
    with spmd.set_mesh(mesh):
        a = reshard(np.arange(32.0, dtype=np.float32).reshape(8, 4), P("X", "Y"))
        twice = lambda r: r * 2  # noqa: E731
        with pytest.raises(ValueError, match=r"Only one of spmd_axis_name or arrays sharded on "
                                             r"`Explicit` mesh axis type is allowed\. Got "
                                             r"spmd_axis_name=\('X',\) and arrays sharded on "
                                             r"explicit_mesh_axis=\('Y',\)"):  # fmt: skip
            spmd.vmap(twice, in_axes=1, spmd_axis_name="X")(a)
        with pytest.raises(ValueError, match=r"spmd_axis_name=\('X', 'Y'\) .*=\('X',\)"):
            spmd.vmap(twice, spmd_axis_name=("X", "Y"))(a)
        # The same axes, or a mapped dimension unsharded in its type, are fine (as JAX).
        assert str(spmd.typeof(spmd.vmap(twice, spmd_axis_name="X")(a))) == "float32[8@X,4@Y]"
        b = reshard(a, P(None, "Y"))
        assert str(spmd.typeof(spmd.vmap(twice, spmd_axis_name="Y")(b))) == "float32[8,4@Y]"


def test_indexing_a_sharded_dimension_is_refused_as_in_jax():
    # JAX 0.10: an Array indexed at once goes through a gather, which has no rule for a
    # dimension sharded on Explicit axes (a traced static slice is a slice, typed by its rule);
    # scatters likewise; dynamic_slice keeps only axes that divide the slice.
    mesh = spmd.make_mesh((2, 4), ("X", "Y"), axis_types=(AxisType.Explicit,) * 2)
    x = np.arange(32.0, dtype=np.float32).reshape(8, 4)
    err = spmd.errors.ShardingTypeError
    with spmd.set_mesh(mesh):
        a = reshard(x, P("X", "Y"))
        get = r"Use `\.at\[\.\.\.\]\.get\(out_sharding=\)` to provide output PartitionSpec"
        where = r".*operand=float32\[8@X,4@Y\], indexed along dimension 0, which is sharded"
        with pytest.raises(err, match=get + where + r" over \('X',\)"):
            a[2:6]
        with pytest.raises(err, match=get):
            spmd.jit(lambda a: a[jnp.array([0, 1])])(a)
        out = spmd.jit(lambda a: a[2:6])(a)
        assert str(spmd.typeof(out)) == "float32[4@X,4@Y]"
        np.testing.assert_array_equal(np.asarray(out), x[2:6])
        b = reshard(x, P(None, "Y"))
        assert str(spmd.typeof(b[2:6])) == "float32[4,4@Y]" and str(spmd.typeof(b[0])) == (
            "float32[4@Y]"
        )
        with pytest.raises(err, match=r"Use `\.at\[\.\.\.\]\.set/add/mul/\.\.\.\(out_sharding=\)`"):
            b.at[:, 0].set(1.0)
        with pytest.raises(err, match=r"\.set/add/mul"):
            spmd.jit(lambda a: a.at[2:6].set(1.0))(a)
        np.testing.assert_array_equal(np.asarray(b.at[0].set(-1.0))[0], -1.0)
        with pytest.raises(err, match=r"dynamic_slice on sharded dims where out dim \(1\) is not "
                                      r"divisible by mesh axes \(2\)"):  # fmt: skip
            spmd.jit(lambda a, i: a[i])(a, 1)
        g = spmd.grad(lambda a: spmd.lax.dynamic_slice(a, (0, 0), (4, 4)).sum())(a)
        assert str(spmd.typeof(g)) == "float32[8@X,4@Y]"
