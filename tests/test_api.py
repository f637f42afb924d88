"""jit, make_jaxpr and eval_shape: caching, static arguments, pytrees, lowering, and the
errors for bad input (one test per case)."""

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd._src import core
from spmd._src.array import Array
from spmd.errors import ConcretizationTypeError, TracerBoolConversionError


def arr(*shape, dtype=np.float32):
    return Array(np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape))


def test_jit_traces_once_per_signature():
    count = []

    @spmd.jit
    def f(x, y):
        count.append(1)
        return jnp.sin(x) * y

    x = arr(2, 3)
    f(x, 2.0)
    f(x + 1, 3.0)
    assert len(count) == 1
    f(arr(3, 3), 2.0)  # new shape
    f(x, 2)  # weak int instead of weak float
    f(x, np.float32(2))  # strong float
    assert len(count) == 4
    assert f._cache_size() == 4


def test_jit_equals_eager():
    def f(x, y):
        return jnp.tanh(x * y + 1.0) - lax.reduce_sum(x, (0,))

    x, y = arr(4, 3) / 10, arr(3) / 5
    np.testing.assert_array_equal(np.asarray(spmd.jit(f)(x, y)), np.asarray(f(x, y)))


def test_static_argnums_and_argnames():
    f = spmd.jit(lambda x, n: x * n, static_argnums=1)
    assert f(arr(3), 2).tolist() == [0.0, 2.0, 4.0]
    # A static argument given by position is also static by name, and vice versa.
    assert f(arr(3), n=3).tolist() == [0.0, 3.0, 6.0]
    g = spmd.jit(lambda x, scale: x * scale, static_argnames="scale")
    assert g(arr(3), scale=2.0).tolist() == [0.0, 2.0, 4.0]
    assert g(arr(3), 2.0).tolist() == [0.0, 2.0, 4.0]


def test_static_argument_controls_python_control_flow():
    @spmd.jit
    def inner(x):
        return x

    f = spmd.jit(lambda x, flag: x + 1 if flag else x - 1, static_argnums=(1,))
    assert f(arr(2), True).tolist() == [1.0, 2.0]
    assert f(arr(2), False).tolist() == [-1.0, 0.0]
    assert inner(arr(2)).tolist() == [0.0, 1.0]


def test_pytrees_in_and_out():
    @spmd.jit
    def f(d, t):
        return {"sum": d["a"] + t[0], "pair": (t[1], None)}

    out = f({"a": arr(2)}, (arr(2), 3.0))
    assert set(out) == {"sum", "pair"}
    assert out["sum"].tolist() == [0.0, 2.0]
    assert out["pair"][1] is None
    assert out["pair"][0].weak_type


def test_weak_types_survive_jit():
    out = spmd.jit(lambda: (1.0, 2))()
    assert repr(out[0]) == "Array(1., dtype=float32, weak_type=True)"
    assert repr(out[1]) == "Array(2, dtype=int32, weak_type=True)"


def test_closures_over_arrays_become_constants():
    c = arr(3)
    f = spmd.jit(lambda x: x + c)
    assert f(arr(2, 3)).tolist() == [[0, 2, 4], [3, 5, 7]]
    text = str(spmd.make_jaxpr(lambda x: x + c)(arr(2, 3)))
    assert text.startswith("{ lambda a:f32[3]; b:f32[2,3]. let")


def test_nested_jit_and_closure_over_outer_tracer():
    @spmd.jit
    def outer(x):
        y = x * 2.0
        inner = spmd.jit(lambda z: z + y)  # closes over a tracer of the outer trace
        return inner(x)

    assert outer(arr(3)).tolist() == [0.0, 3.0, 6.0]
    assert outer(arr(3) + 1).tolist() == [3.0, 6.0, 9.0]


def test_lower_and_compile():
    f = spmd.jit(lambda x: jnp.sin(x) + 1.0)
    lowered = f.lower(arr(2))
    assert "sin" in lowered.as_text()
    compiled = lowered.compile()
    np.testing.assert_array_equal(np.asarray(compiled(arr(2))), np.asarray(f(arr(2))))
    assert "def _program" in compiled.as_text()
    with pytest.raises(TypeError, match=r"compiled with float32\[2\] and called with float32\[3\]"):
        compiled(arr(3))
    assert f.trace(arr(2)).jaxpr.out_avals[0].str_short() == "f32[2]"


def test_eval_shape():
    out = spmd.eval_shape(
        lambda x: lax.reduce_sum(x, (0,)), spmd.ShapeDtypeStruct((4, 3), np.float32)
    )
    assert out == spmd.ShapeDtypeStruct((3,), np.float32)
    out = spmd.jit(lambda x, y: (x, y)).eval_shape(arr(2), 1.0)
    assert out[1] == spmd.ShapeDtypeStruct((), np.float32, weak_type=True)


def test_make_jaxpr_static_argnums():
    text = str(spmd.make_jaxpr(lambda x, n: x * n, static_argnums=1)(arr(2), 3))
    assert text == "{ lambda ; a:f32[2]. let b:f32[2] = mul a 3.0:f32[] in (b,) }"


def test_disable_jit_runs_python():
    seen = []

    def f(x):
        seen.append(type(x))
        return x

    spmd.config.update("jax_disable_jit", True)
    try:
        spmd.jit(f)(arr(2))
    finally:
        spmd.config.update("jax_disable_jit", False)
    assert seen == [Array]


def test_jit_cache_is_bounded():
    f = spmd.jit(lambda x: x + 1)
    for n in range(1, 6):
        f(arr(n))
    assert f._cache_size() == 5
    f._cache.maxsize = 3
    f(arr(7))
    assert f._cache_size() == 3


def test_jit_as_decorator_with_options():
    @spmd.jit(static_argnums=(1,))
    def f(x, n):
        return x * n

    assert f(arr(2), 4).tolist() == [0.0, 4.0]


# --- bad input: one test per case ------------------------------------------------------------


def test_error_str_argument_names_the_path():
    with pytest.raises(TypeError, match="at path x") as e:
        spmd.jit(lambda x: x)("a")
    assert "static_argnums" in str(e.value)
    with pytest.raises(TypeError, match=r"path d\['k'\]"):
        spmd.jit(lambda d: d)({"k": "a"})


def test_error_unhashable_static_argument():
    with pytest.raises(ValueError, match="non-hashable static arguments") as e:
        spmd.jit(lambda x, n: x, static_argnums=1)(arr(2), [1, 2])
    assert "list" in str(e.value)


def test_error_static_argnums_out_of_range():
    with pytest.raises(ValueError, match="static_argnums=\\(3,\\) refers to argument 3") as e:
        spmd.jit(lambda x: x, static_argnums=3)
    assert "takes only 1 positional argument" in str(e.value)


def test_error_static_argnames_unknown():
    with pytest.raises(ValueError, match="'nope'"):
        spmd.jit(lambda x: x, static_argnames="nope")


def test_error_tracer_in_if_names_the_argument():
    def f(x, y):
        if y * 2 > 0:
            return x
        return -x

    with pytest.raises(TracerBoolConversionError) as e:
        spmd.jit(f)(1.0, 2.0)
    msg = str(e.value)
    assert "depends on the value of the argument y" in msg
    assert "static_argnums" in msg and "lax.cond" in msg
    assert isinstance(e.value, ConcretizationTypeError) and isinstance(e.value, TypeError)


def test_error_tracer_in_if_names_star_args_as_jax_does():
    def f(x, *rest, **kw):
        if rest[0] > 0 and kw["k"] > 0:
            return x
        return -x

    with pytest.raises(TracerBoolConversionError, match=r"argument rest\[0\]\."):
        spmd.jit(f)(1.0, 2.0, k=3.0)
    with pytest.raises(TracerBoolConversionError, match=r"argument kw\['k'\]\."):
        spmd.jit(f, static_argnums=1)(1.0, 2.0, k=3.0)


def test_error_tracer_in_if_names_pytree_path():
    def f(d):
        return d["a"] if d["b"] > 0 else d["a"]

    with pytest.raises(TracerBoolConversionError, match=r"argument d\['b'\]"):
        spmd.jit(f)({"a": 1.0, "b": 2.0})


def test_error_tracer_to_int_and_numpy():
    with pytest.raises(TypeError, match="__index__"):
        spmd.jit(lambda x: list(range(x)))(3)
    with pytest.raises(TypeError, match="__array__"):
        spmd.jit(lambda x: np.sin(x))(arr(2))


def test_error_mismatched_shapes_binary_op():
    with pytest.raises(
        TypeError, match=r"add got incompatible shapes for broadcasting: \(3,\), \(4,\)"
    ):
        jnp.add(arr(3), arr(4))
    with pytest.raises(ValueError, match=r"\(2, 3\), \(4,\)"):
        jnp.add(arr(2, 3), arr(4))
    with pytest.raises(TypeError, match="lax.add requires arguments to have the same dtypes"):
        lax.add(arr(3), arr(3, dtype=np.int32))


def test_error_output_not_an_array():
    with pytest.raises(TypeError, match="output 0"):
        spmd.jit(lambda x: "s")(arr(2))


def test_compiled_programs_reuse_dead_buffers_but_never_live_views():
    x = Array(np.arange(64 * 128, dtype=np.float32).reshape(64, 128) / 1000)

    def chain(a):
        return jnp.tanh(a * 2.0 + 1.0) - 3.0

    f = spmd.jit(chain)
    np.testing.assert_allclose(np.asarray(f(x)), np.asarray(chain(x)), rtol=1e-6)
    assert "out=" in f.lower(x).compile().as_text()

    def view_alive(a):
        b = a * 2.0
        t = b.T  # a view of b's buffer, read after b's last direct use
        c = b + 1.0
        return c, t * 3.0

    g = spmd.jit(view_alive)
    got, want = g(x), view_alive(x)
    for o, w in zip(got, want):
        np.testing.assert_array_equal(np.asarray(o), np.asarray(w))
    # The input buffer is the caller's: never written.
    before = np.asarray(x).copy()
    spmd.jit(lambda a: a + 1.0)(x)
    np.testing.assert_array_equal(np.asarray(x), before)


def test_buffer_reuse_never_overwrites_an_operand_another_operand_shares():
    # select_n's kernel takes out= but works in several passes: writing into one case's buffer
    # while the other case is that same buffer (stop_gradient returns its operand) used to
    # clobber it. vmap of a cond with a batched predicate builds exactly this select.
    x = np.linspace(-3, 3, 64 * 128, dtype=np.float32).reshape(64, 128)
    p = (np.arange(64 * 128) % 3 == 0).reshape(64, 128)

    def f(p, x):
        y = x * 2.0
        return lax.select(p, y, lax.stop_gradient(y))

    np.testing.assert_array_equal(np.asarray(spmd.jit(f)(p, x)), x * 2.0)

    def g(on, x):
        return lax.cond(on, lambda v: v * 2.0 + 1.0, lambda v: v - 1.0, x)

    on = np.arange(8) % 2 == 0
    xs = x.reshape(8, 1024)
    want = np.where(on[:, None], xs * 2.0 + 1.0, xs - 1.0)
    np.testing.assert_array_equal(np.asarray(spmd.jit(spmd.vmap(g))(on, xs)), want)


def _compiled_eqns(f, *args):
    from spmd._src import dispatch

    closed = spmd.make_jaxpr(f)(*args)
    return dispatch.compile_jaxpr(closed.jaxpr, closed.consts)


def test_compiled_programs_splice_calls_into_the_caller():
    # jit, custom_jvp (nn.relu) and checkpoint are calls of an inner program: the compiled
    # caller runs their equations itself (fresh variables per call site, the same inner
    # program called twice), with the inner consts, pass-through and literal results.
    x = Array(np.linspace(-3, 3, 64 * 128, dtype=np.float32).reshape(64, 128))
    table = np.arange(128, dtype=np.float32)
    inner = spmd.jit(lambda a: jnp.sin(a) * 2.0 + table)
    passthrough = spmd.jit(lambda a: (a, 1.0))

    def f(a):
        b = inner(a) + inner(a + 1.0)
        c, one = passthrough(spmd.nn.relu(b))
        return spmd.checkpoint(lambda t: t * 3.0)(c) + one, spmd.jit(spmd.nn.relu)(a)

    program = _compiled_eqns(f, x)
    names = {e.primitive.name for e in program.__spmd_eqns__}
    assert not names & {"jit", "custom_jvp_call", "checkpoint", "remat"}, names
    got = program(np.asarray(x))
    with spmd.disable_jit():
        want = f(x)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(w), rtol=1e-6)
    # Gradients through the spliced custom_jvp still use its rule (relu'(0) = 0).
    z = Array(np.zeros((64, 128), np.float32))
    g = spmd.jit(spmd.grad(lambda a: spmd.nn.relu(a).sum()))(z)
    np.testing.assert_array_equal(np.asarray(g), 0.0)


def test_readers_move_ahead_so_relu_overwrites_its_input():
    # relu(z) and the mask z > 0 both read z, the mask second in program order: the compiler
    # computes the mask first and relu writes over z. Values are those of the program order.
    x = np.linspace(-3, 3, 64 * 128, dtype=np.float32).reshape(64, 128)
    x[0, :3] = [np.nan, -0.0, 0.0]

    def f(a):
        z = a * 2.0
        return spmd.nn.relu(z), z > 0, z * 3.0

    program = _compiled_eqns(f, x)
    # One assignment line per equation, in the order of the equations.
    calls = [ln for ln in program.__spmd_source__.splitlines()[1:] if " = " in ln]
    prims = [e.primitive.name for e in program.__spmd_eqns__]
    assert prims.index("gt") < prims.index("max")
    assert "out=" in calls[prims.index("max")]
    got = program(x)
    with np.errstate(invalid="ignore"):
        want = [np.maximum(x * 2, 0), x * 2 > 0, x * 2 * 3]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.view(np.uint8), w.view(np.uint8))
    # No move when a later reader needs a value computed after relu.

    def g(a):
        z = a * 2.0
        r = spmd.nn.relu(z)
        return r, z + r  # reads z and relu's result: cannot run before relu

    program = _compiled_eqns(g, x)
    got = program(x)
    with np.errstate(invalid="ignore"):
        r = np.maximum(x * 2, 0)
    np.testing.assert_array_equal(got[1].view(np.uint32), (x * 2 + r).view(np.uint32))


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize("op", ["max", "min"])
def test_compiled_max_min_against_a_scalar_equal_numpy_bit_for_bit(op, dtype):
    # Compiled max/min spread a rank-0 operand into a row (NumPy's faster loop): the values,
    # NaNs and signed zeros included, must stay those of the ufunc on the scalar, with the
    # scalar on either side and with the result written into a dead buffer.
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((64, 512)) * 4).astype(dtype)
    if np.dtype(dtype).kind == "f":
        a[0, :4] = [np.nan, -0.0, 0.0, -np.inf]
    ufunc, lax_op = {"max": (np.maximum, lax.max), "min": (np.minimum, lax.min)}[op]
    s = dtype(0)
    cases = [
        (lambda x: lax_op(x, s), lambda x: ufunc(x, s)),
        (lambda x: lax_op(s, x), lambda x: ufunc(s, x)),
        (lambda x: lax_op(x * 2, s), lambda x: ufunc(x * dtype(2), s)),  # writes into x * 2
    ]
    # A transposed operand (not contiguous: rows of its last dimension) and a shape whose size
    # no wide row divides (rows of its last dimension again).
    cases += [
        (lambda x: lax_op(x.T, s), lambda x: ufunc(x.T, s)),
        (lambda x: lax_op(x[:50, :300], s), lambda x: ufunc(x[:50, :300], s)),
    ]
    for f, ref in cases:
        got = np.asarray(spmd.jit(f)(Array(a)))
        want = ref(a)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got.view(f"u{got.itemsize}"), want.view(f"u{got.itemsize}"))
    lowered = spmd.jit(cases[2][0]).lower(Array(a)).compile().as_text()
    assert "out=" in lowered
    # The row kernel is the one compiled programs use here (a bare ufunc is the fallback).
    big, scalar = core.ShapedArray(a.shape, np.dtype(dtype)), core.ShapedArray((), np.dtype(dtype))
    prim = {"max": lax.max_p, "min": lax.min_p}[op]
    assert prim.typed_impl([big, scalar]) is not ufunc
    assert prim.typed_impl([big, big]) is ufunc


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.float16])
def test_compiled_select_n_equals_where_bit_for_bit_in_place_or_not(dtype):
    # select_n on large operands multiplies the cases' bits by the predicate; compiled, it
    # writes into whichever dead case the program offers. Either way the bits must be
    # np.where's: NaNs, infinities and signed zeros included, broadcast zero on either side.
    rng = np.random.default_rng(1)
    a = (rng.standard_normal((64, 512)) * 4).astype(dtype)
    b = (rng.standard_normal((64, 512)) * 4).astype(dtype)
    if np.dtype(dtype).kind == "f":
        a[0, :4] = [np.nan, -0.0, np.inf, -np.inf]
        b[0, :4] = [-0.0, np.nan, 0.0, np.inf]
    m = rng.standard_normal((64, 512)) > 0
    z = np.zeros((), dtype)
    cases = [
        (lambda m, a, b: lax.select_n(m, a, b), lambda m, a, b: np.where(m, b, a)),
        # The dead operand is a fresh value of the program: on_false, then on_true.
        (lambda m, a, b: lax.select_n(m, a * 1, b), lambda m, a, b: np.where(m, b, a * 1)),
        (lambda m, a, b: lax.select_n(m, a, b * 1), lambda m, a, b: np.where(m, b * 1, a)),
        (
            lambda m, a, b: lax.select_n(m, jnp.zeros_like(a), b * 1),
            lambda m, a, b: np.where(m, b * 1, z),
        ),
        (
            lambda m, a, b: lax.select_n(m, a * 1, jnp.zeros_like(b)),
            lambda m, a, b: np.where(m, z, a * 1),
        ),
        # The transpose's case: on_true is broadcast zero, nothing to write into.
        (lambda m, a, b: lax.select_n(m, a, jnp.zeros_like(b)), lambda m, a, b: np.where(m, z, a)),
        (lambda m, a, b: lax.select_n(m.T, a.T, b.T), lambda m, a, b: np.where(m.T, b.T, a.T)),
    ]
    u = f"u{np.dtype(dtype).itemsize}"
    for i, (f, ref) in enumerate(cases):
        want = ref(m, a, b)
        for fn in (f, spmd.jit(f)):
            got = np.asarray(fn(Array(m), Array(a), Array(b)))
            assert got.dtype == want.dtype
            np.testing.assert_array_equal(got.view(u), want.view(u), err_msg=f"case {i}")
    text = spmd.jit(cases[1][0]).lower(Array(m), Array(a), Array(b)).compile().as_text()
    assert ", out=" in text, text  # select_n writes into a * 1


def test_jit_built_again_for_a_function_finds_its_traces():
    # JAX keys traces by the function: jit(f)(4.) then jit(f)(5.) trace f once, and read a
    # global as it was then (the Sharp Bits page's impure functions).
    traced = []
    g = [0.0]

    def f(x):
        traced.append(x.shape)
        return x + g[0]

    assert float(spmd.jit(f)(4.0)) == 4.0
    g[0] = 10.0
    assert float(spmd.jit(f)(5.0)) == 5.0  # the cached trace, with the old global
    assert [float(v) for v in spmd.jit(f)(spmd.numpy.array([4.0]))] == [14.0]
    assert traced == [(), (1,)]
    # Other options are another trace; clear_caches forgets them all.
    spmd.jit(f, donate_argnums=0)(5.0)
    spmd.clear_caches()
    spmd.jit(f)(5.0)
    assert traced == [(), (1,), (), ()]


def test_donated_arguments_are_deleted_when_a_result_reuses_them():
    # JAX 0.10.2 on CPU: a donated Array is deleted when a result of its shape and element
    # size can take its buffer (one result per donation; by position, by name, inside
    # pytrees, sharded too); otherwise it stays valid, with a warning once per argument types.
    import warnings

    jnp = spmd.numpy

    def donated(f, *args, **kw):
        f(*args, **kw)
        return [a.is_deleted() for a in args] + [v.is_deleted() for v in kw.values()]

    assert donated(spmd.jit(lambda a: a, donate_argnums=0), jnp.arange(8.0)) == [True]
    assert donated(spmd.jit(lambda a: a.astype(jnp.int32), donate_argnums=0), jnp.ones(8))
    assert donated(spmd.jit(lambda a: a * 2, donate_argnames="a"), a=jnp.ones(8)) == [True]
    two = spmd.jit(lambda a, b: (a * 2, a * 3), donate_argnums=0)
    assert donated(two, jnp.ones(8), jnp.ones(8)) == [True, False]
    tree = {"k": jnp.ones(8)}
    spmd.jit(lambda d: {"k": d["k"] * 2}, donate_argnums=0)(tree)
    assert tree["k"].is_deleted()
    mesh = spmd.make_mesh((8,), ("x",))
    s = spmd.sharding.NamedSharding(mesh, spmd.sharding.PartitionSpec("x"))
    assert donated(spmd.jit(lambda a: a * 2, donate_argnums=0), spmd.device_put(jnp.ones(8), s))
    # Not reusable: kept, with JAX's warning (once for these argument types).
    f = spmd.jit(lambda a, b: a * b, donate_argnums=(0, 1))
    with pytest.warns(UserWarning, match=r"Some donated buffers were not usable: float32\[8\]"):
        assert donated(f, jnp.ones(8), jnp.ones(8)) == [True, False]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert donated(f, jnp.ones(8), jnp.ones(8)) == [True, False]
    with pytest.warns(UserWarning, match="not usable"):
        assert donated(spmd.jit(lambda a: a.sum(), donate_argnums=0), jnp.ones(8)) == [False]
    # A donated array used again, or twice in one call, is refused (the classes: the next test).
    g = spmd.jit(lambda a: a + 1, donate_argnums=0)
    x = jnp.ones(8)
    g(x)
    with pytest.raises(ValueError, match=r"Buffer has been deleted or donated"):
        g(x)
    y = jnp.ones(8)
    with pytest.raises(ValueError, match=r"donated array f32\[8\] is passed twice"):
        spmd.jit(lambda a, b: a + b, donate_argnums=(0, 1))(y, y)
    assert not y.is_deleted()
    # NumPy arguments and Python scalars are copied in: nothing to delete.
    assert float(g(2.0)) == 3.0 and g(np.ones(8)).shape == (8,)


def test_a_donated_array_used_again_is_refused_with_jaxs_classes():
    # JAX 0.10.2: a program already compiled for the donated array's types refuses its buffer
    # with ValueError (PJRT's INVALID_ARGUMENT), pytree leaves and non-donating jits too; a new
    # trace, an eager operation, or an array deleted by delete() raise RuntimeError.
    jnp = spmd.numpy
    deleted = r"Array has been deleted with shape=float32\[3\]"
    donated = r"INVALID_ARGUMENT: .* argument 0 to replica 0: .*deleted or donated"
    step = spmd.jit(lambda d, q: ({"a": d["a"] * 2}, q), donate_argnums=0)
    plus = spmd.jit(lambda a: a + 1)
    d = {"a": jnp.ones(3)}
    plus(d["a"])
    step(d, jnp.ones(3))
    assert d["a"].is_deleted()
    with pytest.raises(ValueError, match=donated):
        step(d, jnp.ones(3))
    with pytest.raises(ValueError, match=donated):
        plus(d["a"])
    with pytest.raises(RuntimeError, match=deleted):
        spmd.jit(lambda a: a * 3)(d["a"])  # a new trace
    with pytest.raises(RuntimeError, match=deleted):
        d["a"] + 1
    x = jnp.ones(3)
    plus(x)
    x.delete()
    with pytest.raises(RuntimeError, match=deleted):
        plus(x)
