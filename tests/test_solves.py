"""``lax.custom_linear_solve`` and ``lax.custom_root`` against JAX 0.10.2: the cases of
``tests/golden_gen/solves_gen.py`` (values, gradients, jvps, vmaps and their jitted versions,
errors) run on spmd and compared with ``tests/golden/solves.json``, which that script writes
with real JAX. The rules of ``linear_solve_p`` (a primitive taking functions, so not in
the primitive sweep) are checked here too."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from golden_compare import compare_leaf

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd._src import program_passes

sys.path.insert(0, str(Path(__file__).parent / "golden_gen"))
from solves_gen import CASES, ERRORS, JAXPRS, flatten  # noqa: E402

GOLDEN = json.loads((Path(__file__).parent / "golden" / "solves.json").read_text())["cases"]
# Iterative solves and LU in float32: a few ulps apart from XLA's order of operations.
TOL = {"float32": 2e-5}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_matches_jax(name):
    tree, leaves = flatten(CASES[name](spmd, jnp, lax))
    want = GOLDEN[name]
    assert tree == want["tree"]
    errs = []
    for i, (rec, got) in enumerate(zip(want["leaves"], leaves, strict=True)):
        errs += compare_leaf(rec, got, TOL, f"{name} leaf {i}")
    assert not errs, "\n".join(errs)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_error_matches_jax(name):
    cls, thunk = ERRORS[name]
    want = GOLDEN[name]
    assert want["error"] == cls
    with pytest.raises(getattr(__import__("builtins"), cls)) as info:
        thunk(spmd, jnp, lax)
    assert str(info.value).split("\n")[0] == want["message"]


@pytest.mark.parametrize("name", sorted(JAXPRS))
def test_jaxpr_text_matches_jax(name):
    assert str(JAXPRS[name](spmd, jnp, lax)) == GOLDEN[name]["jaxpr"]


# ---------------------------------------------------------------------------------------------
# The primitive's rules, one at a time


def _solve(s, b, **kw):
    return lax.custom_linear_solve(lambda x: s * x, b, lambda mv, y: y / s, **kw)


def test_one_primitive_with_four_jaxprs():
    j = spmd.make_jaxpr(lambda s, b: _solve(s, b, transpose_solve=lambda vm, y: y / s))(
        jnp.array(2.0), jnp.ones(3)
    )
    (eqn,) = [e for e in j.jaxpr.eqns if e.primitive.name == "custom_linear_solve"]
    lengths, jaxprs = eqn.params["const_lengths"], eqn.params["jaxprs"]
    assert tuple(lengths) == (1, 1, 1, 1)
    assert lengths._fields == ("matvec", "vecmat", "solve", "transpose_solve")
    assert all(x is not None for x in jaxprs)
    # Without transpose_solve (and not symmetric) there is no vecmat either, as in JAX.
    j = spmd.make_jaxpr(_solve)(jnp.array(2.0), jnp.ones(3))
    (eqn,) = [e for e in j.jaxpr.eqns if e.primitive.name == "custom_linear_solve"]
    assert eqn.params["jaxprs"].vecmat is None and eqn.params["jaxprs"].transpose_solve is None


def test_jvp_never_differentiates_solve():
    # solve is deliberately wrong in its derivative (stop_gradient): x' still comes from the
    # implicit rule x' = solve(b' - A' x).
    def f(s, b):
        return lax.custom_linear_solve(
            lambda x: s * x, b, lambda mv, y: y / lax.stop_gradient(s), symmetric=True
        )

    _, t = spmd.jvp(f, (jnp.array(2.0), jnp.ones(2)), (jnp.array(1.0), jnp.zeros(2)))
    np.testing.assert_allclose(np.asarray(t), [-0.25, -0.25])


def test_transpose_swaps_operator_and_solves():
    # transpose_solve differs from solve (a non-symmetric diagonal-free operator): the
    # cotangent must be A^-T w, not A^-1 w.
    A = jnp.array([[2.0, 1.0], [0.0, 4.0]])
    w = jnp.array([1.0, 1.0])

    def f(b):
        return lax.custom_linear_solve(
            lambda x: A @ x,
            b,
            lambda mv, y: jnp.linalg.solve(A, y),
            lambda vm, y: jnp.linalg.solve(A.T, y),
        )

    g = spmd.grad(lambda b: jnp.sum(f(b) * w))(jnp.ones(2))
    np.testing.assert_allclose(np.asarray(g), np.linalg.solve(np.asarray(A).T, [1.0, 1.0]))
    # linear_transpose goes through the same rule.
    (ct,) = spmd.linear_transpose(f, jnp.ones(2))(w)
    np.testing.assert_allclose(np.asarray(ct), np.asarray(g), rtol=1e-6)


def test_vmap_in_axes_not_zero():
    # Batch dimensions at 1 are moved to the front by the rule.
    bs = jnp.arange(6.0).reshape(3, 2)
    out = spmd.vmap(lambda b: _solve(jnp.array(2.0), b), in_axes=1, out_axes=1)(bs)
    np.testing.assert_allclose(np.asarray(out), np.asarray(bs) / 2)
    ss = jnp.array([1.0, 2.0])
    out = spmd.vmap(lambda s: _solve(s, jnp.ones(3)))(ss)
    np.testing.assert_allclose(np.asarray(out), [[1.0] * 3, [0.5] * 3])


def test_jit_compiles_and_inlines_solve_only():
    # matvec is never run by the primitive: a matvec that would fail at run time is fine.
    calls = []

    def solve(mv, y):
        calls.append(1)
        return y * 0.5

    f = spmd.jit(lambda b: lax.custom_linear_solve(lambda x: 2.0 * x, b, solve))
    np.testing.assert_allclose(np.asarray(f(jnp.ones(2))), [0.5, 0.5])
    np.testing.assert_allclose(np.asarray(f(jnp.ones(2) * 4)), [2.0, 2.0])
    assert len(calls) == 1  # traced once, then the compiled program runs


def test_jit_inlines_the_solve_with_its_own_constants():
    # matvec, solve and transpose_solve close over different arrays: the inlined solve must
    # read its own constants among the primitive's operands.
    scale, inv, inv_t = jnp.array([2.0, 4.0]), jnp.array([0.5, 0.25]), jnp.array([10.0, 20.0])

    def f(b):
        return lax.custom_linear_solve(
            lambda x: scale * x, b, lambda mv, y: y * inv, lambda vm, y: y * inv_t
        )

    closed = spmd.make_jaxpr(f)(jnp.ones(2))
    inlined, _ = program_passes.inline_calls(closed.jaxpr, list(closed.consts))
    assert [e.primitive.name for e in inlined.eqns] == ["mul"]
    np.testing.assert_allclose(np.asarray(spmd.jit(f)(jnp.array([4.0, 8.0]))), [2.0, 2.0])
    g = spmd.jit(spmd.grad(lambda b: jnp.sum(f(b))))(jnp.ones(2))
    np.testing.assert_allclose(np.asarray(g), [10.0, 20.0])


def test_has_aux_tangent_is_zero():
    out, t = spmd.jvp(
        lambda b: _solve(jnp.array(2.0), b, symmetric=True)[0], (jnp.ones(2),), (jnp.ones(2),)
    )
    np.testing.assert_allclose(np.asarray(t), [0.5, 0.5])
    (x, aux), (tx, taux) = spmd.jvp(
        lambda b: lax.custom_linear_solve(
            lambda x: 2 * x, b, lambda mv, y: (y / 2, jnp.sum(y)), has_aux=True
        ),
        (jnp.ones(2),),
        (jnp.ones(2),),
    )
    assert float(aux) == 2.0 and float(taux) == 0.0


def test_custom_root_is_a_custom_jvp_call():
    newton = lambda f, x: lax.fori_loop(0, 5, lambda i, x: x - f(x) / 2.0, x)  # noqa: E731
    j = spmd.make_jaxpr(
        lambda a: lax.custom_root(lambda x: x - a, 1.0, newton, lambda g, y: y / g(1.0))
    )(2.0)
    (eqn,) = j.jaxpr.eqns
    assert eqn.primitive.name == "custom_jvp_call"
    assert eqn.params["name"] == "_custom_root"
    assert str(eqn.params["jvp"]) == "_root_jvp"
