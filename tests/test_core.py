"""The core: abstract values, the jaxpr IR, its printer, interpreter and type checker."""

import numpy as np
import pytest

import spmd
from spmd import lax
from spmd._src import core
from spmd._src import pretty_printer as pp
from spmd._src.core import ClosedJaxpr, Jaxpr, JaxprEqn, Literal, ShapedArray, Var


def f32(*shape):
    return np.ones(shape, np.float32)


def test_shaped_array_basics():
    a = ShapedArray((8, 3), np.float32)
    assert a.str_short() == "f32[8,3]"
    assert a.ndim == 2 and a.size == 24
    assert a == ShapedArray((8, 3), np.dtype("float32"))
    assert a != ShapedArray((8, 3), np.float32, weak_type=True)
    assert hash(a) == hash(ShapedArray([8, 3], "float32"))
    assert ShapedArray((), np.bool_).str_short() == "bool[]"
    assert ShapedArray((2,), spmd.numpy.bfloat16).str_short() == "bf16[2]"
    # str() is JAX's text of a type: the dtype's full name, ~ marking a weak type.
    assert str(a) == "float32[8,3]"
    assert str(ShapedArray((), np.float32, weak_type=True)) == "~float32[]"


def test_get_aval_of_python_scalars_is_weak():
    assert core.get_aval(1.0) == ShapedArray((), np.float32, weak_type=True)
    assert core.get_aval(3) == ShapedArray((), np.int32, weak_type=True)
    assert core.get_aval(True) == ShapedArray((), np.bool_, weak_type=False)
    assert core.get_aval(np.float64(1)) == ShapedArray((), np.float32)
    with pytest.raises(TypeError, match="not a valid JAX type"):
        core.get_aval("a")


def test_var_names_follow_jax_sequence():
    ctx = core.PPContext()
    names = [ctx.fresh() for _ in range(30)]
    assert names[:3] == ["a", "b", "c"]
    assert names[25:30] == ["z", "ba", "bb", "bc", "bd"]


def test_pretty_printer_groups_fit_or_break():
    doc = pp.group(
        pp.concat(
            [
                pp.text("f["),
                pp.nest(2, pp.concat([pp.brk(""), pp.text("a=1")])),
                pp.brk(""),
                pp.text("]"),
            ]
        )
    )
    assert pp.format_doc(doc, 80) == "f[a=1]"
    assert pp.format_doc(doc, 4) == "f[\n  a=1\n]"


def test_make_jaxpr_text_matches_jax_format():
    # Text recorded from jax.make_jaxpr in JAX 0.10.2.
    text = str(spmd.make_jaxpr(lambda x: x * 2.0)(1.0))
    assert text == "{ lambda ; a:f32[]. let b:f32[] = mul a 2.0:f32[] in (b,) }"


def test_long_argument_lists_wrap_like_jax():
    expected_head = (
        "{ lambda ; a:f32[] b:f32[] c:f32[] d:f32[] e:f32[] f:f32[] g:f32[] h:f32[] i:f32[]\n"
        "    j:f32[] k:f32[] l:f32[] m:f32[] n:f32[] o:f32[] p:f32[] q:f32[] r:f32[] s:f32[]\n"
        "    t:f32[] u:f32[] v:f32[] w:f32[] x:f32[] y:f32[] z:f32[] ba:f32[] bb:f32[] bc:f32[]\n"
        "    bd:f32[]. let\n"
        "    be:f32[] = add 0.0:f32[] a\n"
    )
    text = str(spmd.make_jaxpr(lambda *a: sum(a))(*([1.0] * 30)))
    assert text.startswith(expected_head)
    assert text.endswith("    ch:f32[] = add cg bd\n  in (ch,) }")


def test_constvars_and_nested_jit_print_like_jax():
    c = np.arange(3.0)

    def f(x):
        return spmd.jit(lambda y: y * 3.0)(x) + c

    expected = (
        "{ lambda a:f32[3]; b:f32[4,3]. let\n"
        "    c:f32[4,3] = jit[\n"
        "      name=<lambda>\n"
        "      jaxpr={ lambda ; b:f32[4,3]. let c:f32[4,3] = mul b 3.0:f32[] in (c,) }\n"
        "    ] b\n"
        "    d:f32[1,3] = broadcast_in_dim[broadcast_dimensions=(1,)] a\n"
        "    e:f32[4,3] = add c d\n"
        "  in (e,) }"
    )
    assert str(spmd.make_jaxpr(f)(f32(4, 3))) == expected


def test_eval_jaxpr_matches_direct_evaluation():
    def f(x, y):
        return lax.sin(x) * y + 1.0, lax.reduce_sum(x, (0,))

    x, y = np.arange(6, dtype=np.float32).reshape(2, 3), np.float32(2)
    closed = spmd.make_jaxpr(f)(x, y)
    out = core.eval_jaxpr(closed.jaxpr, closed.consts, x, y)
    want = f(x, y)
    for o, w in zip(out, want):
        np.testing.assert_array_equal(np.asarray(o), np.asarray(w))


def test_check_jaxpr_accepts_traced_programs_and_rejects_bad_ones():
    closed = spmd.make_jaxpr(lambda x: lax.sin(x) + 1.0)(f32(3))
    core.check_jaxpr(closed.jaxpr)

    a = Var(ShapedArray((3,), np.float32))
    b = Var(ShapedArray((4,), np.float32))  # wrong declared type
    eqn = JaxprEqn([a], [b], lax.sin_p, {})
    with pytest.raises(core.JaxprTypeError, match="outvar has type f32\\[4\\]"):
        core.check_jaxpr(Jaxpr([], [a], [b], [eqn]))

    undefined = Var(ShapedArray((3,), np.float32))
    eqn = JaxprEqn([undefined], [Var(ShapedArray((3,), np.float32))], lax.sin_p, {})
    with pytest.raises(core.JaxprTypeError, match="used before definition"):
        core.check_jaxpr(Jaxpr([], [a], [], [eqn]))


def test_literal_repr():
    assert repr(Literal(np.float32(2), ShapedArray((), np.float32))) == "2.0:f32[]"
    assert repr(Literal(np.bool_(True), ShapedArray((), np.bool_))) == "True:bool[]"
    assert repr(Literal(np.int32(0), ShapedArray((), np.int32))) == "0:i32[]"


def test_closed_jaxpr_avals():
    closed = spmd.make_jaxpr(lambda x: (x, lax.reduce_sum(x, (0,))))(f32(2, 3))
    assert isinstance(closed, ClosedJaxpr)
    assert [a.str_short() for a in closed.in_avals] == ["f32[2,3]"]
    assert [a.str_short() for a in closed.out_avals] == ["f32[2,3]", "f32[3]"]


def test_current_trace_is_a_context_value():
    assert core.trace_ctx.trace is core.eval_trace
    seen = []

    def f(x):
        seen.append(core.trace_ctx.trace)
        return x

    spmd.make_jaxpr(f)(1.0)
    assert seen[0] is not core.eval_trace
    assert core.trace_ctx.trace is core.eval_trace


def test_shared_inner_jaxprs_are_hoisted_like_jax():
    # Text recorded from JAX 0.10.2: a jaxpr used twice is printed once, as a `let`.
    where = spmd.numpy.where
    expected = (
        "let _where = { lambda ; a:bool[3] b:f32[3] c:f32[]. let\n"
        "    d:f32[] = convert_element_type[new_dtype=float32 weak_type=False] c\n"
        "    e:f32[3] = broadcast_in_dim d\n"
        "    f:f32[3] = select_n a e b\n"
        "  in (f,) } in\n"
        "{ lambda ; g:f32[3]. let\n"
        "    h:bool[3] = gt g 0.0:f32[]\n"
        "    i:f32[3] = jit[name=_where jaxpr=_where] h g 1.0:f32[]\n"
        "    j:bool[3] = gt g 1.0:f32[]\n"
        "    k:f32[3] = jit[name=_where jaxpr=_where] j g 2.0:f32[]\n"
        "  in (i, k) }"
    )
    text = str(spmd.make_jaxpr(lambda x: (where(x > 0, x, 1.0), where(x > 1, x, 2.0)))(f32(3)))
    assert text == expected


def test_duplicate_operands_get_distinct_inner_names():
    text = str(spmd.make_jaxpr(lambda x: spmd.jit(lambda a, b: a + b)(x, x))(f32(2)))
    assert "{ lambda ; a:f32[2] c:f32[2]. let b:f32[2] = add a c in (b,) }" in text


def test_unused_results_print_as_underscore_like_jax():
    def f(x):
        a, _ = spmd.numpy.split(x, 2)
        return a * 2

    text = str(spmd.make_jaxpr(f)(f32(4)))
    assert "b:f32[2] _:f32[2] = split" in text and "c:f32[2] = mul b 2.0:f32[]" in text


def test_tracers_print_as_jax():
    # jax 0.10.2, print(x) inside each transformation (the External callbacks and Sharp Bits
    # pages print traced values).
    import spmd.numpy as jnp

    seen = []

    def p(x):
        seen.append(str(x))
        return x

    spmd.jit(p)(1)
    spmd.jit(p)(jnp.ones((2, 3), jnp.bfloat16))
    spmd.jit(p)(spmd.random.key(0))
    spmd.vmap(p, in_axes=1)(jnp.ones((2, 3)))
    spmd.grad(lambda x: p(x).sum())(jnp.ones(2))
    spmd.jvp(p, (1.0,), (1.0,))
    spmd.jit(spmd.grad(p))(1.0)
    assert seen == [
        "JitTracer(~int32[])",
        "JitTracer(bfloat16[2,3])",
        "JitTracer(key<fry>[])",
        "VmapTracer(aval=float32[2], batched=float32[2,3])",
        "GradTracer(primal=[1. 1.], typeof(tangent)=f32[2])",
        "JVPTracer(primal=1.0, tangent=1.0)",
        "GradTracer(primal=JitTracer(~float32[]), typeof(tangent)=f32[])",
    ]
    # A tracer leaked out of its jit still prints its type.
    leaked = []
    spmd.jit(lambda x: leaked.append(x) or x)(4.0)
    assert repr(leaked[0]) == "JitTracer(~float32[])"


@pytest.mark.parametrize(
    "fn, error, first_line",
    [
        (lambda x: int(x), "ConcretizationTypeError",
         "Abstract tracer value encountered where concrete value is expected: traced array "
         "with shape int32[]"),
        (lambda x: bool(x), "TracerBoolConversionError",
         "Attempted boolean conversion of traced array with shape int32[]."),
        (lambda x: [1, 2][x], "TracerIntegerConversionError",
         "The __index__() method was called on traced array with shape int32[]"),
        (lambda x: np.asarray(x), "TracerArrayConversionError",
         "The numpy.ndarray conversion method __array__() was called on traced array with "
         "shape int32[]"),
        (lambda x: spmd.numpy.ones((x,)), "TypeError",
         "Shapes must be 1D sequences of concrete values of integer type, got "
         "(JitTracer(~int32[]),)."),
    ],
)  # fmt: skip
def test_tracer_errors_first_line_is_jaxs(fn, error, first_line):
    # jax 0.10.2: the first line of each message names the type with long dtype names; what
    # follows says where the value came from.
    with pytest.raises(Exception) as info:
        spmd.jit(fn)(1)
    assert type(info.value).__name__ == error
    lines = str(info.value).splitlines()
    assert lines[0] == first_line
    assert "argument x" in "\n".join(lines[1:]) or "ones" in lines[1]
