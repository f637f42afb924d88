"""``jax_check_tracer_leaks`` as JAX 0.10.2's (docs/201/jit.md): a tracer kept past the trace
that made it (jit, make_jaxpr, a control-flow body) raises Exception there, naming the
function; a program's own equations may hold tracers (a custom_jvp rule closing over a traced
argument). Bool options as context managers turn on without an argument, as JAX's do."""

from __future__ import annotations

import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd._src.config import config


def _leaky(kept):
    def leak(x):
        kept.append(x * 2)
        return x + 1

    return leak


@pytest.mark.parametrize(
    "how, run",
    [
        ("jit", lambda f: spmd.jit(f)(1.0)),
        ("make_jaxpr", lambda f: spmd.make_jaxpr(f)(1.0)),
        ("scan", lambda f: lax.scan(lambda c, _: (f(c), None), 0.0, None, length=2)),
    ],
)
def test_a_kept_tracer_raises_where_it_leaked(how, run):
    kept = []
    with spmd.check_tracer_leaks(), pytest.raises(Exception, match="Leaked trace") as e:
        run(_leaky(kept))
    assert f"for {how}" in str(e.value) and "float32[]" in str(e.value)
    kept.clear()
    run(_leaky(kept))  # off again outside the block: no check
    assert len(kept) >= 1


def test_no_leak_no_error_and_the_program_runs():
    with spmd.check_tracer_leaks():
        assert float(spmd.jit(lambda x: jnp.sin(x) * 2)(0.0)) == 0.0
        # Tracers an equation's rule closes over belong to the program, not to a side effect.
        f = spmd.custom_jvp(lambda x, n: x * n, nondiff_argnums=(1,))
        f.defjvp(lambda n, p, t: (p[0] * n, t[0] * n))
        assert float(spmd.jit(lambda n: f(2.0, n))(3.0)) == 6.0
        y, vjp = spmd.vjp(spmd.jit(lambda x: jnp.sin(x) ** 2), 1.0)
        assert vjp(1.0)[0].shape == ()


def test_bool_options_turn_on_without_an_argument():
    assert not config.jax_check_tracer_leaks and not config.jax_debug_nans
    with spmd.check_tracer_leaks():
        assert config.jax_check_tracer_leaks
    with spmd.debug_nans():
        assert config.jax_debug_nans
    assert not config.jax_check_tracer_leaks and not config.jax_debug_nans
    with pytest.raises(TypeError, match="numpy_rank_promotion config option requires an arg"):
        spmd.numpy_rank_promotion()
