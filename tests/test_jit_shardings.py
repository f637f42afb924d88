"""jit's placement arguments against JAX 0.10.2 (8 CPU devices, Auto axes unless said): in/out
shardings as Sharding objects, bare P with a mesh in context, pytree prefixes, None, memory
kinds; with_sharding_constraint, reshard and device_put inside jit; uneven shapes; bad input.

Expected shardings and error classes were read from the oracle (jax.jit / jax.device_put /
jax.lax.with_sharding_constraint / jax.reshard on the same programs). Where spmd differs on
purpose, the test says so:

- bare P with no mesh: the error classes are JAX's (RuntimeError for jit and constraints,
  ValueError for device_put and reshard);
- a constraint on a dimension its shards do not divide: JAX replicates that dimension silently
  under jit (jax#26946); spmd gives the same result sharding and warns (UnevenShardingWarning),
  or raises ('raise'), or keeps the sharding with padded shards ('pad');
- reshard on Auto axes raises ValueError as in JAX, except on meshes whose Auto types are spmd's
  default (JAX 0.10 would have made them Explicit), so JAX programs run unchanged.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd._src.sharding import UnevenShardingWarning
from spmd.sharding import AxisType, IndivisibleError, NamedSharding, SingleDeviceSharding
from spmd.sharding import PartitionSpec as P

AUTO2 = (AxisType.Auto,) * 2
M = spmd.make_mesh((2, 4), ("x", "y"), axis_types=AUTO2)
M42 = spmd.make_mesh((4, 2), ("x", "y"), axis_types=AUTO2)
M8 = spmd.make_mesh((8,), ("x",), axis_types=(AxisType.Auto,))
ME = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
M4A = spmd.make_mesh((4,), ("x",), axis_types=(AxisType.Auto,), devices=spmd.devices()[:4])
M4B = spmd.make_mesh((4,), ("x",), axis_types=(AxisType.Auto,), devices=spmd.devices()[4:])
S = NamedSharding(M, P("x", "y"))
X = np.arange(32.0, dtype=np.float32).reshape(4, 8)


def xs():
    return spmd.device_put(jnp.asarray(X), S)


def specs(tree):
    return spmd.tree.map(lambda a: a.sharding.spec, tree)


def probed(fn):
    """``fn`` with a probe that records whether the program ran (errors must come first)."""
    work: list = []

    @functools.wraps(fn)  # keeps fn's parameter names, which the errors quote
    def g(*args):
        spmd.debug.callback(lambda: work.append(1))
        return fn(*args)

    return g, work


@pytest.fixture
def uneven_mode():
    def set_mode(mode):
        spmd.config.update("spmd_uneven", mode)

    yield set_mode
    spmd.config.update("spmd_uneven", "warn")


# --- in_shardings / out_shardings -------------------------------------------------------------


def test_sharding_objects():
    f = spmd.jit(lambda a: a * 2, in_shardings=S, out_shardings=NamedSharding(M, P("y")))
    out = f(jnp.asarray(X))
    assert out.sharding == NamedSharding(M, P("y"))
    np.testing.assert_array_equal(np.asarray(out), X * 2)
    assert spmd.jit(lambda a: a * 2, in_shardings=S)(jnp.asarray(X)).sharding == S


def test_bare_specs_resolve_against_the_mesh_in_context_at_call_time():
    f = spmd.jit(lambda a: a * 2, in_shardings=P("x"), out_shardings=P(None, "y"))
    x = jnp.asarray(X)  # (made under set_mesh it would be committed there, replicated)
    with spmd.set_mesh(M):
        assert f(x).sharding == NamedSharding(M, P(None, "y"))
        # As JAX's: an array committed elsewhere is not moved to in_shardings.
        with pytest.raises(ValueError, match="Sharding passed to jit does not match"):
            f(jnp.asarray(X))
    g = spmd.jit(lambda a: a * 2, out_shardings=P("x"))
    with spmd.sharding.use_mesh(M42):
        assert g(x).sharding == NamedSharding(M42, P("x"))


def test_out_shardings_pytree_prefix_and_none_leaves():
    def g(a, b):
        return {"s": a + 1, "t": (b * 2, b * 3)}

    out = spmd.jit(g, out_shardings={"s": S, "t": NamedSharding(M, P("y"))})(X, X)
    assert specs(out) == {"s": P("x", "y"), "t": (P("y"), P("y"))}
    # None leaves: whatever propagation gives; unplaced values are replicated on the mesh.
    out = spmd.jit(g, out_shardings={"s": S, "t": None})(X, X)
    assert out["t"][0].sharding == NamedSharding(M, P()) and out["s"].sharding == S


def test_in_shardings_pytree_prefixes():
    def g(a, b):
        return {"s": a + 1, "t": (b * 2, b * 3)}

    assert specs(spmd.jit(g, in_shardings=(S, None))(X, X)) == {"s": P("x", "y"), "t": (P(), P())}
    assert specs(spmd.jit(g, in_shardings=S)(X, X))["t"] == (P("x", "y"), P("x", "y"))
    assert specs(spmd.jit(g, in_shardings=[S, S])(X, X))["t"] == (P("x", "y"), P("x", "y"))
    h = spmd.jit(lambda d: d["a"] + d["b"], in_shardings=({"a": S, "b": None},))
    assert h({"a": X, "b": X}).sharding == S


def test_none_keeps_the_arguments_sharding():
    assert spmd.jit(lambda a: a * 2, in_shardings=None)(xs()).sharding == S
    assert spmd.jit(lambda a: a * 2, in_shardings=(None,))(xs()).sharding == S
    assert spmd.jit(lambda a: a * 2, out_shardings=None)(xs()).sharding == S


def test_equivalent_in_sharding_is_accepted():
    x = spmd.device_put(jnp.asarray(X), NamedSharding(M, P("x")))
    out = spmd.jit(lambda a: a, in_shardings=NamedSharding(M, P("x", None)))(x)
    assert out.sharding.spec in (P("x"), P("x", None))


def test_memory_kinds():
    host = S.with_memory_kind("pinned_host")
    out = spmd.jit(lambda a: a * 2, out_shardings=host)(xs())
    assert out.sharding == host
    xh = spmd.device_put(jnp.asarray(X), host)
    assert spmd.jit(lambda a: a * 2)(xh).sharding == host
    assert spmd.jit(lambda a: spmd.device_put(a * 2, host))(xs()).sharding == host
    back = spmd.jit(lambda a: spmd.device_put(a, S.with_memory_kind("device")) * 2)(xh)
    assert back.sharding == S


def test_result_shardings_of_unplaced_values():
    # JAX: results no input sharding reaches are replicated on the arguments' mesh, or live on
    # the one device the arguments are committed to.
    out = spmd.jit(lambda a, b: (a + 1, b * 2, jnp.ones(3)))(xs(), X)
    assert [o.sharding for o in out] == [S, NamedSharding(M, P()), NamedSharding(M, P())]
    x1 = spmd.device_put(jnp.asarray(X), spmd.devices()[1])
    out = spmd.jit(lambda a: (a * 2, jnp.ones(2)))(x1)
    assert [o.sharding for o in out] == [SingleDeviceSharding(spmd.devices()[1])] * 2


# --- with_sharding_constraint, reshard, device_put inside jit ---------------------------------


def test_constraint_forms():
    s_y = NamedSharding(M, P("y"))
    assert spmd.jit(lambda a: lax.with_sharding_constraint(a * 2, s_y))(X).sharding == s_y
    assert lax.with_sharding_constraint(jnp.asarray(X), s_y).sharding == s_y
    with spmd.set_mesh(M):
        f = spmd.jit(lambda a: lax.with_sharding_constraint(a * 2, P("y")))
        assert f(X).sharding == s_y

        def tree(a):
            return lax.with_sharding_constraint((a, {"k": a}), (P("x"), {"k": P("y")}))

        assert specs(spmd.jit(tree)(X)) == (P("x"), {"k": P("y")})

        def prefix(a):
            return lax.with_sharding_constraint((a, {"k": a}), (P("x"), P("y")))

        assert specs(spmd.jit(prefix)(X)) == (P("x"), {"k": P("y")})
        # None with a mesh in context: replicated there (JAX 0.10 gives P()).
        out = spmd.jit(lambda a: lax.with_sharding_constraint(a, None))(xs())
        assert out.sharding == NamedSharding(M, P())


def test_arguments_the_program_never_reads_do_not_commit_its_results():
    # JAX prunes unused arguments: a program of constants runs uncommitted on the default
    # device, however its (unread) arguments are placed; read ones commit every result.
    for spec in (P("x"), P(None, None), P()):
        a = spmd.device_put(X, NamedSharding(M, spec))
        out = spmd.jit(lambda v: jnp.zeros(v.shape) + 1.0)(a)
        assert isinstance(out.sharding, SingleDeviceSharding) and not out.committed
        used, const = spmd.jit(lambda v: (v * 2, jnp.ones(3)))(a)
        assert used.sharding == NamedSharding(M, spec) and used.committed
        assert const.sharding == NamedSharding(M, P()) and const.committed
    # An unread argument on other devices is not an incompatible-devices error either.
    other = spmd.device_put(X, spmd.devices()[3])
    out = spmd.jit(lambda v, w: v + 1)(xs(), other)
    assert out.sharding == S


def test_device_put_inside_jit_places_the_result_on_auto_axes():
    # A deliberate difference: JAX 0.10 keeps the operand's sharding here (the requested one is
    # dropped silently); spmd applies it as a constraint, as device_put does outside jit.
    s_y = NamedSharding(M, P(None, "y"))
    out = spmd.jit(lambda a: spmd.device_put(a, s_y) * 2)(xs())
    assert out.sharding == s_y
    np.testing.assert_array_equal(np.asarray(out), X * 2)
    assert spmd.jit(lambda a: spmd.device_put(a, NamedSharding(M, P())))(xs()).sharding.spec == P()


def test_reshard_on_explicit_axes_writes_full_rank_specs():
    x = spmd.device_put(jnp.asarray(X), NamedSharding(ME, P("x", "y")))
    assert spmd.reshard(x, NamedSharding(ME, P("y"))).sharding.spec == P("y", None)
    f = spmd.jit(lambda a: spmd.reshard(a * 2, NamedSharding(ME, P("y"))))
    assert f(x).sharding.spec == P("y", None)
    with spmd.set_mesh(ME):
        out = spmd.jit(lambda a: spmd.reshard((a, a), (P("y"), P(None, "x"))))(x)
        assert specs(out) == (P("y", None), P(None, "x"))
        assert spmd.jit(lambda a: spmd.device_put(a * 2, P("y")))(x).sharding.spec == P("y", None)


def test_reshard_on_default_typed_mesh_runs_as_in_jax():
    m = spmd.make_mesh((2, 4), ("x", "y"))  # spmd's default Auto types; JAX's are Explicit
    out = spmd.jit(lambda a: spmd.reshard(a, NamedSharding(m, P("y"))))(X)
    assert out.sharding.spec == P("y")
    np.testing.assert_array_equal(np.asarray(out), X)


# --- uneven shapes ----------------------------------------------------------------------------


def test_uneven_device_put_names_dimension_sizes_axes_and_nearest():
    with pytest.raises(IndivisibleError) as e:
        spmd.device_put(jnp.zeros((3, 8)), S)
    msg = str(e.value)
    assert "axis 0 is partitioned 2 times" in msg and "dimension size is 3" in msg
    assert "mesh axes ('x',)" in msg and "{'x': 2, 'y': 4}" in msg and "2 and 4" in msg


def test_uneven_out_shardings_raise_before_work():
    f, work = probed(lambda a: a * 2)
    with pytest.raises(IndivisibleError, match=r"out_shardings for output \(f32\[6\]\).*size is 6"):
        spmd.jit(f, out_shardings=NamedSharding(M8, P("x")))(jnp.arange(6.0))
    assert not work


def test_uneven_in_shardings_raise():
    with pytest.raises(IndivisibleError, match="in_shardings for argument a .*partitioned 8"):
        spmd.jit(lambda a: a, in_shardings=NamedSharding(M8, P("x")))(jnp.arange(6.0))


def test_uneven_constraint_eagerly_raises():
    with pytest.raises(IndivisibleError, match="with_sharding_constraint: .*dimension size is 6"):
        lax.with_sharding_constraint(jnp.arange(6.0), NamedSharding(M8, P("x")))


def test_uneven_constraint_under_jit_warns_and_replicates_as_jax():
    f = spmd.jit(lambda a: lax.with_sharding_constraint(a * 2, NamedSharding(M8, P("x"))))
    with pytest.warns(UnevenShardingWarning, match=r"dimension 0 of size 6 into 8 shards"):
        out = f(jnp.arange(6.0))
    assert out.sharding == NamedSharding(M8, P())  # JAX 0.10's result
    np.testing.assert_array_equal(np.asarray(out), np.arange(6.0) * 2)
    g = spmd.jit(lambda a: lax.with_sharding_constraint(a * 2, S))
    with pytest.warns(UnevenShardingWarning, match="nearest sizes that divide: 2 and 4"):
        assert g(jnp.zeros((3, 8))).sharding == NamedSharding(M, P(None, "y"))


def test_uneven_constraint_keeps_the_leading_axes_that_divide():
    # JAX 0.10 under jit keeps the longest run of leading axes whose shards divide the size
    # (read from the oracle); spmd does the same, and says so in its warning.
    cases = [
        ((4, 32), P(("x", "y")), P("x")),
        ((4, 32), P(("y", "x")), P("y")),
        ((6, 8), P(("x", "y")), P("x")),
        ((2, 8), P(("y", "x")), P()),
        ((12, 8), P(("y", "x")), P("y")),
        ((6, 8), P("y"), P()),
    ]
    for shape, spec, want in cases:
        f = spmd.jit(lambda a, s=spec: lax.with_sharding_constraint(a * 2, NamedSharding(M, s)))
        with pytest.warns(UnevenShardingWarning, match="keep only the leading mesh axes"):
            assert f(jnp.ones(shape)).sharding.spec == want, (shape, spec)


def test_uneven_constraint_raise_mode(uneven_mode):
    uneven_mode("raise")
    f = spmd.jit(lambda a: lax.with_sharding_constraint(a, NamedSharding(M8, P("x"))))
    with pytest.raises(IndivisibleError, match="dimension size is 10"):
        f(jnp.arange(10.0))


def test_uneven_pad_mode_keeps_sharding_with_padded_shards(uneven_mode):
    uneven_mode("pad")
    s = NamedSharding(M8, P("x"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = spmd.jit(lambda a: lax.with_sharding_constraint(a * 2, s))(jnp.arange(10.0))
    assert out.sharding == s
    np.testing.assert_array_equal(np.asarray(out), np.arange(10.0) * 2)
    # Each of the 8 shards has ceil(10/8) = 2 slots; the last shards hold fewer elements.
    assert s.shard_shape((10,)) == (2,)
    idx = [(sh.index[0].start, sh.index[0].stop) for sh in out.addressable_shards]
    assert idx == [(0, 2), (2, 4), (4, 6), (6, 8), (8, 10), (10, 10), (10, 10), (10, 10)]
    assert [np.asarray(sh.data).tolist() for sh in out.addressable_shards][4] == [16.0, 18.0]
    x = spmd.device_put(jnp.arange(6.0), s)
    assert x.sharding == s and x.addressable_shards[5].data.shape == (1,)
    y = spmd.jit(lambda a: a + 1, out_shardings=s)(jnp.arange(6.0))
    assert y.sharding == s


def test_uneven_device_put_inside_jit_raises():
    with pytest.raises(IndivisibleError, match="device_put: .*dimension size is 6"):
        spmd.jit(lambda a: spmd.device_put(a, NamedSharding(M8, P("x"))))(jnp.arange(6.0))


def test_uneven_reshard_raises():
    me8 = spmd.make_mesh((8,), ("x",), axis_types=(AxisType.Explicit,))
    with pytest.raises(IndivisibleError, match="reshard: .*dimension size is 6"):
        spmd.jit(lambda a: spmd.reshard(a, NamedSharding(me8, P("x"))))(jnp.arange(6.0))


# --- bad input, one test each -----------------------------------------------------------------


def test_error_in_shardings_on_another_mesh_than_the_argument():
    f, work = probed(lambda a: a * 2)
    with pytest.raises(ValueError) as e:
        spmd.jit(f, in_shardings=NamedSharding(M42, P("x")))(xs())
    msg = str(e.value)
    assert "does not match the sharding on the respective arg" in msg and "argument a" in msg
    assert "Mesh('x': 4, 'y': 2" in msg and "Mesh('x': 2, 'y': 4" in msg
    assert not work


def test_error_out_shardings_on_other_devices_than_the_arguments():
    x = spmd.device_put(jnp.arange(8.0), NamedSharding(M4A, P("x")))
    f, work = probed(lambda a: a * 2)
    with pytest.raises(ValueError) as e:
        spmd.jit(f, out_shardings=NamedSharding(M4B, P("x")))(x)
    msg = str(e.value)
    assert "incompatible devices" in msg and "argument a" in msg
    assert "devices [0, 1, 2, 3]" in msg and "devices [4, 5, 6, 7]" in msg
    assert not work


M4R = spmd.make_mesh((4,), ("x",), axis_types=(AxisType.Auto,), devices=spmd.devices()[:4][::-1])


@pytest.mark.parametrize(
    ("put", "names"),
    [
        (lambda a: spmd.device_put(a, NamedSharding(M4B, P("x"))), "device_put inside jit"),
        (lambda a: lax.with_sharding_constraint(a, NamedSharding(M4B, P())), "sharding_constraint"),
        (lambda a: spmd.device_put(a, NamedSharding(M4R, P("x"))), "devices [3, 2, 1, 0]"),
        (lambda a: spmd.device_put(a, NamedSharding(M8, P("x"))), "devices [0, 1, 2, 3, 4, 5, 6"),
        (  # in a nested program: a scan's body
            lambda a: lax.scan(
                lambda c, _: (spmd.device_put(c, NamedSharding(M4B, P("x"))), None), a, length=2
            )[0],
            "device_put inside jit",
        ),
    ],
)
def test_error_placement_inside_jit_on_other_devices_than_the_arguments(put, names):
    # The placement page (docs/201/placement.md): a compiled program runs on one mesh; a
    # device_put to another mesh (other devices, or the same in another order) inside jit is
    # JAX's ValueError, not a transfer.
    xa = spmd.device_put(jnp.arange(8.0), NamedSharding(M4A, P("x")))
    f, work = probed(put)
    with pytest.raises(ValueError) as e:
        spmd.jit(f)(xa)
    msg = str(e.value)
    assert "incompatible devices" in msg and "argument a of <lambda>" in msg and names in msg
    assert "device ids [0, 1, 2, 3]" in msg and not work


def test_placement_inside_jit_on_the_arguments_devices_or_from_uncommitted_ones():
    xa = spmd.device_put(jnp.arange(8.0), NamedSharding(M4A, P("x")))
    out = spmd.jit(lambda a: spmd.device_put(a, NamedSharding(M4A, P())))(xa)
    assert out.sharding == NamedSharding(M4A, P())
    # Uncommitted arguments follow the placement; a device target inside jit is not checked.
    out = spmd.jit(lambda a: spmd.device_put(a, NamedSharding(M4B, P("x"))))(np.arange(8.0))
    assert out.sharding == NamedSharding(M4B, P("x"))
    np.testing.assert_array_equal(out, np.arange(8.0))
    spmd.jit(lambda a: spmd.device_put(a, spmd.devices()[5]))(xa)


def test_error_two_placements_inside_jit_on_different_meshes():
    def two(a):
        return spmd.device_put(a, NamedSharding(M4A, P())), spmd.device_put(
            a, NamedSharding(M4B, P())
        )

    with pytest.raises(ValueError, match=r"device_put inside jit with device ids \[0, 1, 2, 3\]"):
        spmd.jit(two)(np.arange(8.0))
    one = lambda a: spmd.device_put(a, NamedSharding(M4B, P()))  # noqa: E731
    with pytest.raises(ValueError, match=r"explicit output sharding \(out_shardings for output\)"):
        spmd.jit(one, out_shardings=NamedSharding(M4A, P()))(np.arange(8.0))


def test_error_out_shardings_tree_mismatch():
    def g(a, b):
        return {"s": a + 1, "t": (b * 2, b * 3)}

    f, work = probed(g)
    with pytest.raises(ValueError) as e:
        spmd.jit(f, out_shardings={"s": S, "u": S})(X, X)
    msg = str(e.value)
    assert "PyTreeDef({'s': *, 'u': *})" in msg and "PyTreeDef({'s': *, 't': (*, *)})" in msg
    assert "only in the prefix: ['u']" in msg
    assert not work


def test_error_in_shardings_tree_mismatch():
    with pytest.raises(ValueError, match="3 entries for 2 positional arguments"):
        spmd.jit(lambda a, b: a + b, in_shardings=(S, S, S))(X, X)


def test_error_in_shardings_with_keyword_arguments():
    with pytest.raises(ValueError, match="keyword argument b was passed"):
        spmd.jit(lambda a, b: a + b, in_shardings=(S, S))(X, b=X)


def test_error_in_shardings_memory_kind_differs_from_argument():
    with pytest.raises(ValueError, match="memory kind pinned_host, but the argument is in device"):
        spmd.jit(lambda a: a, in_shardings=S.with_memory_kind("pinned_host"))(xs())


def test_error_constraint_names_absent_axis():
    f, work = probed(lambda a: lax.with_sharding_constraint(a, P("z")))
    with spmd.set_mesh(M), pytest.raises(ValueError) as e:
        spmd.jit(f)(xs())
    assert "Resource axis: z of P('z',) is not found in mesh: ('x', 'y')" in str(e.value)
    assert not work


def test_error_constraint_tree_mismatch():
    with spmd.set_mesh(M), pytest.raises(ValueError, match=r"PyTreeDef\(\(\*, \*, \*\)\)"):
        lax.with_sharding_constraint((X, X), (P("x"), P("y"), P()))


def test_error_constraint_none_without_mesh():
    with pytest.raises(ValueError, match="got sharding None"):
        lax.with_sharding_constraint(jnp.asarray(X), None)


def test_error_incompatible_devices_between_arguments():
    a = spmd.device_put(jnp.arange(8.0), NamedSharding(M4A, P("x")))
    b = spmd.device_put(jnp.arange(8.0), NamedSharding(M4B, P("x")))
    f, work = probed(lambda u, v: u + v)
    with pytest.raises(ValueError) as e:
        spmd.jit(f)(a, b)
    msg = str(e.value)
    assert "argument u of" in msg and "argument v of" in msg
    assert "device ids [0, 1, 2, 3]" in msg and "device ids [4, 5, 6, 7]" in msg
    assert not work


def test_error_bare_spec_without_mesh_classes():
    with pytest.raises(RuntimeError, match="in_shardings: a PartitionSpec"):
        spmd.jit(lambda a: a, in_shardings=P("x"))(X)
    with pytest.raises(RuntimeError, match="out_shardings: a PartitionSpec"):
        spmd.jit(lambda a: a, out_shardings=P("x"))(X)
    with pytest.raises(RuntimeError, match="with_sharding_constraint: a PartitionSpec"):
        spmd.jit(lambda a: lax.with_sharding_constraint(a, P("x")))(X)
    with pytest.raises(ValueError, match="reshard: a PartitionSpec"):
        spmd.reshard(jnp.asarray(X), P("x"))


def test_error_reshard_on_auto_axes():
    with pytest.raises(ValueError, match="axis 'y' is of type AxisType.Auto"):
        spmd.reshard(jnp.asarray(X), NamedSharding(M, P("y")))


def test_unconstrained_dimensions_never_leak_into_result_specs():
    UNCONSTRAINED = P.UNCONSTRAINED
    with spmd.set_mesh(M):
        f = spmd.jit(lambda a: lax.with_sharding_constraint(a, P(UNCONSTRAINED, "y")))
        spec = f(xs()).sharding.spec
    # JAX keeps the operand's entry (P('x', 'y')); spmd does once propagation hands constraint
    # rules the operand's spec, and replicates that dimension until then.
    assert spec[1] == "y" and UNCONSTRAINED not in spec


def test_spmd_uneven_option_is_validated():
    with pytest.raises(ValueError, match="spmd_uneven"):
        spmd.config.update("spmd_uneven", "replicate")


def test_jit_retraces_under_a_different_context_mesh():
    # Bare PartitionSpecs in the body resolve against the context mesh when traced: a program
    # traced under one mesh must not be reused under another (fast and slow call paths).
    f = spmd.jit(lambda x: lax.with_sharding_constraint(x * 2, P("x")))
    m1, m2 = spmd.make_mesh((8,), ("x",)), spmd.make_mesh((2, 4), ("x", "y"))
    x = np.arange(8.0, dtype=np.float32)
    for call in (lambda: f(x), lambda: f(x=x)):
        with spmd.sharding.use_mesh(m1):
            assert call().sharding.mesh == m1
        with spmd.sharding.use_mesh(m2):
            assert call().sharding.mesh == m2


_OUT_SHARDING_FNS = {
    "zeros": lambda s: jnp.zeros((8, 4), out_sharding=s),
    "ones_like": lambda s: jnp.ones_like(np.ones((8, 4), np.float32), out_sharding=s),
    "full": lambda s: jnp.full((8, 4), 2.0, out_sharding=s),
    "arange": lambda s: jnp.arange(8.0, out_sharding=s),
    "asarray": lambda s: jnp.asarray(np.ones((8, 4), np.float32), out_sharding=s),
    "dot": lambda s: jnp.dot(np.ones((8, 3), np.float32), np.ones((3, 4)), out_sharding=s),
    "matmul": lambda s: spmd.jit(lambda a: jnp.matmul(a, a.T, out_sharding=s))(np.ones((8, 8))),
    "einsum": lambda s: jnp.einsum("ij,jk->ik", np.ones((8, 3)), np.ones((3, 4)), out_sharding=s),
    "reshape": lambda s: jnp.reshape(np.ones((4, 8)), (8, 4), out_sharding=s),
    "ravel": lambda s: jnp.ravel(np.ones((4, 2)), out_sharding=s),
    "broadcast_to": lambda s: jnp.broadcast_to(np.ones(4), (8, 4), out_sharding=s),
    "repeat": lambda s: jnp.repeat(np.ones(4), 2, out_sharding=s),
    "bincount": lambda s: jnp.bincount(np.arange(8), length=8, out_sharding=s),
}


@pytest.mark.parametrize("name", sorted(_OUT_SHARDING_FNS))
def test_out_sharding_of_jnp_functions_is_applied(name):
    # spmd's default mesh (JAX 0.10 would make its axes Explicit): the result is placed.
    mesh = spmd.make_mesh((2, 4), ("x", "y"))
    out = _OUT_SHARDING_FNS[name](NamedSharding(mesh, P("x")))
    assert out.sharding == NamedSharding(mesh, P("x"))


@pytest.mark.parametrize("name", sorted(_OUT_SHARDING_FNS))
def test_out_sharding_on_auto_axes_raises_as_in_jax(name):
    mesh = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    with pytest.raises(ValueError, match=rf"jnp\.{name}: .*cannot name mesh axes of type Auto"):
        _OUT_SHARDING_FNS[name](NamedSharding(mesh, P("x")))


def test_public_names():
    import spmd.errors

    assert spmd.sharding.reshard is spmd.reshard
    with pytest.warns(spmd.sharding.UnevenShardingWarning):
        mesh = spmd.make_mesh((8,), ("x",))
        spmd.jit(lambda v: lax.with_sharding_constraint(v, NamedSharding(mesh, P("x"))))(
            np.ones(6, np.float32)
        )
    assert spmd.errors.UnevenShardingWarning is spmd.sharding.UnevenShardingWarning
    assert issubclass(spmd.errors.ShardingTypeError, Exception)


def test_eager_sharding_error_comes_before_the_kernel_runs(monkeypatch):
    from spmd._src.lax.dot import dot_general_p

    mesh = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    a = spmd.device_put(np.ones((8, 16), np.float32), NamedSharding(mesh, P(None, "y")))
    b = spmd.device_put(np.ones((16, 4), np.float32), NamedSharding(mesh, P("y", None)))
    ran = []
    impl = dot_general_p.impl
    monkeypatch.setattr(dot_general_p, "impl", lambda *a, **k: ran.append(1) or impl(*a, **k))
    with pytest.raises(spmd.errors.ShardingTypeError, match="Contracting dimensions are sharded"):
        a @ b
    assert ran == []


def test_explicit_sharding_errors_come_when_tracing():
    # As in JAX, where the shardings are in the types: make_jaxpr and jit(...).trace raise.
    mesh = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    a = spmd.device_put(np.ones((8, 16), np.float32), NamedSharding(mesh, P(None, "y")))
    b = spmd.device_put(np.ones((16, 4), np.float32), NamedSharding(mesh, P("y", None)))
    f = lambda x, y: x @ y  # noqa: E731
    with pytest.raises(spmd.errors.ShardingTypeError, match="Contracting dimensions"):
        spmd.make_jaxpr(f)(a, b)
    with pytest.raises(spmd.errors.ShardingTypeError, match="Contracting dimensions"):
        spmd.jit(f).trace(a, b)
