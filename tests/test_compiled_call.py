"""Calling ``jit(f).trace(...).lower().compile()`` as JAX 0.10.2 does (docs/201/aot.md): the
dynamic arguments only, typed as traced (weak types aside), anything else a TypeError naming
the argument and its types; ``memory_analysis()``, ``cost_analysis()`` of an unsharded
program, ``as_text``'s dialects and ``compile``'s options."""

from __future__ import annotations

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp

I32 = spmd.ShapeDtypeStruct((), np.int32)


def f(x, y):
    return 2 * x + y


def test_static_arguments_are_fixed_at_trace():
    c = spmd.jit(f, static_argnums=0).trace(7, 8).lower().compile()
    assert repr(c(5)) == "Array(19, dtype=int32, weak_type=True)"
    c = spmd.jit(f, static_argnames="y").trace(I32, y=1).lower().compile()
    assert repr(c(jnp.int32(5))) == "Array(11, dtype=int32)"


def test_weak_types_follow_the_compiled_types():
    strong = spmd.jit(f).trace(I32, I32).lower().compile()
    assert repr(strong(3, 4)) == "Array(10, dtype=int32)"
    weak = spmd.jit(f).trace(3, 4).lower().compile()
    assert repr(weak(jnp.int32(3), np.int32(4))) == "Array(10, dtype=int32, weak_type=True)"


def test_mismatched_types_name_each_argument():
    c = spmd.jit(f).trace(I32, I32).lower().compile()
    with pytest.raises(TypeError) as e:
        c(jnp.arange(3), 4)
    assert "Argument 'x' compiled with int32[] and called with int32[3]" in str(e.value)
    assert "Argument 'y'" not in str(e.value)
    with pytest.raises(TypeError, match=r"Argument 'y' compiled with int32\[\] and called "
                       r"with float32\[\]"):  # fmt: skip
        c(3, 4.0)
    h = spmd.jit(lambda d: d["a"] + 1).trace({"a": I32}).lower().compile()
    with pytest.raises(TypeError, match=r"Argument 'd\['a'\]' compiled with int32\[\]"):
        h({"a": jnp.arange(2)})


@pytest.mark.parametrize(
    "args, kwargs", [((3,), {}), ((3, 4, 5), {}), (([3], 4), {}), ((), {"x": 3, "y": 4})]
)
def test_other_pytree_structures_raise(args, kwargs):
    c = spmd.jit(f).trace(I32, I32).lower().compile()
    with pytest.raises(TypeError, match=r"f compiled with input pytree does not match"):
        c(*args, **kwargs)


@pytest.mark.parametrize("transform", ["vmap", "jit", "grad"])
def test_transformations_of_a_compiled_function_raise(transform):
    z = jnp.ones((3, 2))
    g = spmd.jit(lambda x: (x @ jnp.ones(2)).sum()).trace(z).lower().compile()
    fn = {"vmap": spmd.vmap(g), "jit": spmd.jit(g), "grad": spmd.grad(g)}[transform]
    arg = jnp.ones((4, 3, 2)) if transform == "vmap" else z
    with pytest.raises(TypeError, match="Cannot apply JAX transformations.*Tracer type"):
        fn(arg)
    assert float(g(z)) == 6.0


def test_memory_analysis():
    stats = spmd.jit(f).trace(3, 4).lower().compile().memory_analysis()
    assert (stats.argument_size_in_bytes, stats.output_size_in_bytes) == (8, 4)
    assert stats.temp_size_in_bytes == 4  # 2 * x before the add
    assert stats.alias_size_in_bytes == 0 and stats.generated_code_size_in_bytes == 0
    # Peak intermediates, not their sum: a chain frees each value after its one use.
    chain = spmd.jit(lambda x: jnp.sin(jnp.cos(jnp.exp(x))) + 1).trace(jnp.ones(8))
    assert chain.lower().compile().memory_analysis().temp_size_in_bytes == 64


def test_memory_analysis_is_per_device_when_sharded():
    mesh = spmd.make_mesh((8,), ("x",))
    x = spmd.device_put(jnp.ones((16, 4)), spmd.sharding.NamedSharding(mesh, spmd.P("x")))
    stats = spmd.jit(lambda x: x * 2 + 1).trace(x).lower().compile().memory_analysis()
    assert (stats.argument_size_in_bytes, stats.output_size_in_bytes) == (32, 32)


def test_cost_analysis_of_an_unsharded_program():
    cost = spmd.jit(f).trace(3, 4).lower().compile().cost_analysis()
    assert cost["flops"] == 2.0 and cost["flops mul"] == 1.0
    cost = spmd.jit(jnp.dot).trace(jnp.ones((2, 3)), jnp.ones((3, 4))).lower().compile()
    assert cost.cost_analysis()["flops"] == 2 * 2 * 3 * 4


def test_as_text_dialects_and_compile_options():
    lowered = spmd.jit(f).trace(3, 4).lower()
    assert lowered.as_text("stablehlo") == lowered.as_text("hlo") == lowered.as_text()
    assert lowered.as_text(debug_info=True) == lowered.as_text()
    with pytest.raises(ValueError, match="Lowered.as_text: unknown dialect: mhlo"):
        lowered.as_text("mhlo")
    assert int(lowered.compile(compiler_options={"xla_cpu_enable_fast_math": True})(3, 4)) == 10
    with pytest.raises(AttributeError, match="Lowered.compile: compiler_options must be a dict"):
        lowered.compile(compiler_options=[1])
