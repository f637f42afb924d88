"""``lax.associative_scan``, ``lax.reduce_window``, ``lax.reduce`` and the small lax helpers
against results recorded from JAX 0.10 (``tests/golden/lax_more.json``, written by
``tests/golden_gen/lax_more_gen.py`` from the cases of ``tests/cases_lax_more.py``; JAX is not
needed here).

Each case runs eagerly and under ``spmd.jit``: dtypes, weak types and shapes must be exact,
integers and bools exact, float32 within ``RTOL``. Gradients of a weighted sum are compared the
same way. Error cases raise the builtin exception class JAX raises, with a message naming the
function, the argument and the sizes. ``vmap`` is checked against a loop over examples.
"""

from __future__ import annotations

import numpy as np
import pytest
from cases_lax_more import CASES
from golden_compare import golden_family_tests, load_golden

import spmd
import spmd.numpy as jnp
from spmd import lax

GOLDEN = load_golden("lax_more")

RTOL = 2e-6  # float32: sums in another order round differently

# Values, gradients, errors and jaxprs against the golden records (bound to test_* names so
# pytest collects them here).
FAMILY = golden_family_tests(CASES, GOLDEN, jnp, lax, rtol=RTOL, jit_grad=True)
test_values, test_grad, test_errors = FAMILY.values, FAMILY.grad, FAMILY.errors
test_every_case_has_a_golden = FAMILY.every_case_has_a_golden


# ---------------------------------------------------------------------------------------------
# vmap against a loop over the examples

_XB = np.cos(np.arange(3 * 4 * 6, dtype=np.float32)).reshape(3, 4, 6)

VMAP_CASES = {
    "associative_scan_add": (lambda x: lax.associative_scan(lax.add, x), _XB, 0),
    "associative_scan_max_rev_axis1": (
        lambda x: lax.associative_scan(lax.max, x, reverse=True, axis=1),
        _XB,
        2,
    ),
    "reduce_window_max_same": (
        lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 3), (2, 1), "SAME"),
        _XB,
        1,
    ),
    "reduce_window_sum_dilated": (
        lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 2), ((1, 0), (0, 1)), (1, 2)),
        _XB,
        2,
    ),
    "reduce_window_min_grad": (
        spmd.grad(lambda x: (lax.reduce_window(x, np.inf, lax.min, (3,), (1,), "SAME") ** 2).sum()),
        _XB[0],
        0,
    ),
    "reduce_generic": (
        lambda x: lax.reduce(x, np.float32(0), lambda a, b: a + b + a * b, (1,)),
        _XB * 0.1,
        2,
    ),
    "reduce_generic_grad": (
        spmd.grad(lambda x: lax.reduce(x, np.float32(1), lambda a, b: a * b + 0.5, (0,)).sum()),
        _XB,
        1,
    ),
    "associative_scan_grad": (
        spmd.grad(lambda x: (lax.associative_scan(lax.mul, x) * x).sum()),
        _XB,
        1,
    ),
    # The new convolutions see a batch of NWC inputs (the mapped axis in the middle).
    "conv_transpose": (
        lambda x: lax.conv_transpose(
            x[None],
            _XB[0, :3, :2].reshape(3, 2, 1),
            (2,),
            "SAME",
            dimension_numbers=("NWC", "WIO", "NWC"),
        ),
        _XB[:, :, :2],
        1,
    ),  # fmt: skip
    "patches": (
        lambda x: lax.conv_general_dilated_patches(
            x[None], (2,), (1,), "VALID", dimension_numbers=("NWC", "WIO", "NWC")
        ),
        _XB,
        1,
    ),
    "local": (
        lambda x: lax.conv_general_dilated_local(
            x[None],
            np.cos(np.arange(80, dtype=np.float32)).reshape(2, 8, 5),
            (1,),
            "VALID",
            (2,),
            dimension_numbers=("NCW", "OIW", "NCW"),
        ),
        _XB,
        0,
    ),  # fmt: skip
    "approx_max_k": (lambda x: lax.approx_max_k(x, 2)[0], _XB, 1),
    "approx_min_k_dim0_indices": (lambda x: lax.approx_min_k(x, 2, 0)[1], _XB, 2),
    "mulhi": (
        lambda x: lax.mulhi(x, np.int32(-(2**31) + 12345)),
        (np.arange(3 * 4 * 6, dtype=np.int32).reshape(3, 4, 6) - 30) * 9_000_001,
        1,
    ),
}


@pytest.mark.parametrize("name", sorted(VMAP_CASES))
def test_vmap_matches_loop(name):
    fn, x, ax = VMAP_CASES[name]
    want = np.stack([np.asarray(fn(np.take(x, i, axis=ax))) for i in range(x.shape[ax])])
    for mapped in (spmd.vmap(fn, in_axes=ax), spmd.jit(spmd.vmap(fn, in_axes=ax))):
        np.testing.assert_allclose(np.asarray(mapped(x)), want, rtol=1e-6, atol=1e-6)


# ---------------------------------------------------------------------------------------------
# reduce_window_max/min forward mode: the tangent of the element XLA's select_and_gather_add
# picks (values recorded from JAX 0.10.2): the first extremum of each window in row-major
# order; a NaN is taken and then given up for the next element.

_TIES = np.array([[1, 3, 3, 0], [3, 2, 3, 3], [0, 3, 1, 3]], np.float32)
_TAN = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
_NAN = _TIES.copy()
_NAN[1, 1] = np.nan


@pytest.mark.parametrize(
    "x,kind,kw,want",
    [
        (_TIES, "max", {}, [[2, 2, 3], [5, 7, 7]]),
        (-_TIES, "min", {}, [[2, 2, 3], [5, 7, 7]]),
        (_NAN, "max", {}, [[6, 7, 3], [10, 7, 7]]),
        (_TIES, "max", {"base_dilation": (2, 1)}, [[2, 2, 3], [5, 7, 7], [5, 7, 7], [10, 10, 12]]),
        (_TIES, "max", {"window_dilation": (1, 2)}, [[3, 2], [5, 8]]),
    ],
)
def test_reduce_window_chooser_jvp(x, kind, kw, want):
    op, init = (lax.max, -np.inf) if kind == "max" else (lax.min, np.inf)

    def f(x):
        return lax.reduce_window(x, init, op, (2, 2), (1, 1), "VALID", **kw)

    for fn in (f, spmd.jit(f)):
        _, t = spmd.jvp(fn, (x,), (_TAN,))
        np.testing.assert_array_equal(np.asarray(t), np.array(want, np.float32))


def test_reduce_window_max_grad_with_nan():
    # JAX's select_and_scatter_add walks the windows the same way.
    g = spmd.grad(lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 2), (1, 1), "VALID").sum())
    np.testing.assert_array_equal(
        np.asarray(g(_NAN)), np.array([[0, 0, 1, 0], [0, 1, 3, 0], [0, 1, 0, 0]], np.float32)
    )


def test_reduce_window_jaxpr_names_the_primitive():
    text = str(spmd.make_jaxpr(lambda x: lax.reduce_window(x, 0.0, lax.add, (2, 2), (1, 1),
                                                           "SAME"))(_TIES))  # fmt: skip
    assert "reduce_window_sum[" in text and "padding=((0, 1), (0, 1))" in text


# ---------------------------------------------------------------------------------------------
# ragged_dot beyond JAX: vmap of any layout, second derivatives, and the ragged-contracting
# form's derivatives, each against a dense formulation (a 0/1 group mask and plain products)

_RL = np.cos(np.arange(28, dtype=np.float32) * 0.7).reshape(7, 4)
_RR = np.sin(np.arange(60, dtype=np.float32) * 0.45).reshape(3, 4, 5)
_RB = np.cos(np.arange(35, dtype=np.float32) * 0.33).reshape(7, 5)
_GS = np.array([2, 0, 4], np.int32)


def _group_mask(gs, m):
    """mask[i, r] = 1 where row r is in group i (consecutive groups, clipped to m rows)."""
    ends = jnp.cumsum(gs)
    rows = jnp.arange(m)
    return ((rows >= (ends - gs)[:, None]) & (rows < ends[:, None])).astype(np.float32)


def _dense_ragged_dot(a, b, gs):
    return jnp.einsum("gm,mk,gkn->mn", _group_mask(gs, a.shape[0]), a, b)


def _dense_contracting(a, b, gs):
    return jnp.einsum("gm,mk,mn->gkn", _group_mask(gs, a.shape[0]), a, b)


def test_ragged_dot_matches_dense_reference():
    for gs in (_GS, np.array([5, 0, 5], np.int32), np.array([0, 0, 0], np.int32)):
        np.testing.assert_allclose(
            lax.ragged_dot(_RL, _RR, gs), _dense_ragged_dot(_RL, _RR, gs), rtol=1e-5, atol=1e-6
        )


@pytest.mark.parametrize("in_axes", [(0, None, None), (None, 1, None), (0, 0, 0), (1, None, 0)])
def test_ragged_dot_vmap_matches_loop(in_axes):
    args = [_RL, _RR, _GS]
    batched = [np.stack([a, a * 2 + 1, a[::-1]], ax) if ax is not None else a
               for a, ax in zip(args, in_axes)]  # fmt: skip
    batched[2] = batched[2].astype(np.int32)
    if in_axes[2] is not None:
        batched[2] = np.stack([_GS, np.array([1, 5, 1], np.int32), _GS[::-1].copy()], 0)

    def one(i):
        return [np.take(b, i, ax) if ax is not None else b for b, ax in zip(batched, in_axes)]

    want = np.stack([np.asarray(lax.ragged_dot(*one(i))) for i in range(3)])
    for f in (spmd.vmap(lax.ragged_dot, in_axes), spmd.jit(spmd.vmap(lax.ragged_dot, in_axes))):
        np.testing.assert_allclose(np.asarray(f(*batched)), want, rtol=1e-6, atol=1e-6)


def test_ragged_dot_second_derivatives_match_dense():
    def loss(f):
        return lambda a, b: (f(a, b, _GS) ** 2 * _RB).sum()

    for argnums in (0, 1):
        got = spmd.hessian(loss(lax.ragged_dot), argnums)(_RL, _RR)
        want = spmd.hessian(loss(_dense_ragged_dot), argnums)(_RL, _RR)
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-4, atol=1e-4)


def test_ragged_dot_general_contracting_grads_match_dense():
    dn = lax.RaggedDotDimensionNumbers((((0,), (0,)), ((), ())), (0,), ())
    w = np.cos(np.arange(60, dtype=np.float32)).reshape(3, 4, 5)

    def loss(f):
        return lambda a, b: (f(a, b) ** 2 * w).sum()

    ragged = loss(lambda a, b: lax.ragged_dot_general(a, b, _GS, dn))
    dense = loss(lambda a, b: _dense_contracting(a, b, _GS))
    np.testing.assert_allclose(ragged(_RL, _RB), dense(_RL, _RB), rtol=1e-5)
    got = spmd.jit(spmd.grad(ragged, (0, 1)))(_RL, _RB)
    want = spmd.grad(dense, (0, 1))(_RL, _RB)
    for g, d in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), np.asarray(d), rtol=1e-5, atol=1e-5)


def test_ragged_dot_refuses_what_is_not_implemented():
    with pytest.raises(NotImplementedError, match="group_offset"):
        lax.ragged_dot(_RL, _RR, _GS, group_offset=np.array([1], np.int32))
    batch = lax.RaggedDotDimensionNumbers((((2,), (1,)), ((0,), (0,))), (1,), (0,))
    with pytest.raises(NotImplementedError, match="without batch dimensions"):
        lax.ragged_dot_general(_RL[None], _RR, _GS, batch)


def test_reduce_window_shape_tuple_of_any_batch_is_zero():
    # stax's pooled shapes use -1 for "any batch": JAX 0.10.2 gives (0, 2, 2, 3), no error.
    shape = lax.reduce_window_shape_tuple((-1, 4, 4, 3), (1, 2, 2, 1), (1, 2, 2, 1), [(0, 0)] * 4)
    assert shape == (0, 2, 2, 3)
