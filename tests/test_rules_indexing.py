"""Batching, JVP and transpose rules of the indexing primitives (``spmd/_src/lax/indexing/``):
dynamic_slice, dynamic_update_slice, gather and the scatter family.

vmap is checked against a per-slice loop stacked with ``np.stack`` (batched and unbatched
operands, indices and updates, several ``in_axes``); jvp against central finite differences and
vjp against jvp (``<ct, J t> == <J^T ct, t>``), in float64. Values marked "JAX" were computed
with JAX 0.10.2.
"""

from __future__ import annotations

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax

# ---------------------------------------------------------------------------------------------
# Helpers


def _leaves(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _take(a, axis, i):
    return jnp.asarray(a if axis is None else np.take(a, i, axis=axis))


def check_vmap(f, args, in_axes):
    """``spmd.vmap(f)`` equals ``f`` applied slice by slice, stacked with ``np.stack``."""
    args = [np.asarray(a) for a in args]
    n = next(a.shape[ax] for a, ax in zip(args, in_axes) if ax is not None)
    got = _leaves(spmd.vmap(f, in_axes=tuple(in_axes))(*map(jnp.asarray, args)))
    per = [_leaves(f(*[_take(a, ax, i) for a, ax in zip(args, in_axes)])) for i in range(n)]
    for k, g in enumerate(got):
        want = np.stack([np.asarray(p[k]) for p in per])
        g = np.asarray(g)
        assert g.dtype == want.dtype, (g.dtype, want.dtype)
        np.testing.assert_array_equal(g, want)


def check_derivs(f, args, seed=0, eps=1e-6, tol=1e-7):
    """jvp against central differences, and vjp against jvp, at float64 ``args``."""
    rng = np.random.RandomState(seed)
    args = [np.asarray(a, np.float64) for a in args]
    ts = [rng.standard_normal(a.shape) for a in args]
    _, tangent = spmd.jvp(f, args, ts)
    plus = f(*[jnp.asarray(a + eps * t) for a, t in zip(args, ts)])
    minus = f(*[jnp.asarray(a - eps * t) for a, t in zip(args, ts)])
    fd = (np.asarray(plus) - np.asarray(minus)) / (2 * eps)
    tangent = np.asarray(tangent)
    np.testing.assert_allclose(tangent, fd, rtol=tol, atol=tol)
    out, pullback = spmd.vjp(f, *args)
    ct = rng.standard_normal(np.shape(out))
    ct_in = pullback(ct)
    lhs = float(np.sum(ct * tangent))
    rhs = sum(float(np.sum(np.asarray(c) * t)) for c, t in zip(ct_in, ts))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-9, atol=1e-9)


R = np.random.RandomState(7)
X = R.standard_normal((3, 5, 4)).astype(np.float32)  # a batch of 3 (5, 4) operands
I3 = np.array([4, -1, 2], np.int32)  # a batch of start indices (with negative and clamped)
U = R.standard_normal((3, 2, 4)).astype(np.float32)

# (operand axis, index axis, update axis): None = unbatched.
COMBOS3 = [(0, None, None), (None, 0, None), (None, None, 0), (1, 0, None), (0, 0, 1), (2, 0, 2)]


def _batched(x, ax, unbatched):
    return unbatched if ax is None else np.moveaxis(x, 0, ax)


# ---------------------------------------------------------------------------------------------
# dynamic_slice and dynamic_update_slice under vmap


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0), (1, 0), (2, 0)], ids=str)
def test_vmap_dynamic_slice(in_axes):
    x = _batched(X, in_axes[0], X[0])
    i = I3 if in_axes[1] is not None else np.int32(3)
    check_vmap(lambda a, s: lax.dynamic_slice(a, (s, 1), (2, 3)), [x, i], in_axes)
    check_vmap(lambda a, s: lax.dynamic_slice(a, (0, s), (5, 2)), [x, i], in_axes)


def test_vmap_dynamic_slice_batched_and_constant_starts():
    # One start batched, the other a traced unbatched scalar.
    f = spmd.vmap(lambda a, s, t: lax.dynamic_slice(a, (s, t), (2, 2)), in_axes=(0, 0, None))
    got = f(X, I3, np.int32(1))
    starts = [min(max(s + 5 if s < 0 else s, 0), 3) for s in I3]  # wrapped, then clamped
    want = np.stack([X[k][s : s + 2, 1:3] for k, s in enumerate(starts)])
    np.testing.assert_array_equal(got, want)


def test_vmap_dynamic_slice_values_jax():
    # JAX: vmap(lambda x, i: lax.dynamic_slice(x, (i,), (2,)))(arange(12.).reshape(3, 4),
    #                                                        [-1, 3, 1])
    got = spmd.vmap(lambda x, i: lax.dynamic_slice(x, (i,), (2,)))(
        jnp.arange(12.0).reshape(3, 4), jnp.array([-1, 3, 1])
    )
    np.testing.assert_array_equal(got, [[2.0, 3.0], [6.0, 7.0], [9.0, 10.0]])


def test_vmap_dynamic_slice_jaxpr_like_jax():
    # JAX 0.10 batches dynamic_slice as a clamped gather, with NumPy-integer dimension numbers.
    text = str(
        spmd.make_jaxpr(spmd.vmap(lambda x: lax.dynamic_slice(x, (1,), (2,))))(jnp.zeros((3, 4)))
    )
    assert (
        "dimension_numbers=GatherDimensionNumbers(offset_dims=(0, np.int64(1)), "
        "collapsed_slice_dims=(), start_index_map=(np.int64(1),), operand_batching_dims=(), "
        "start_indices_batching_dims=())"
    ) in text
    assert "mode=GatherScatterMode.CLIP" in text and "slice_sizes=(3, 2)" in text


@pytest.mark.parametrize("in_axes", COMBOS3, ids=str)
def test_vmap_dynamic_update_slice(in_axes):
    x = _batched(X, in_axes[0], X[0])
    i = I3 if in_axes[1] is not None else np.int32(4)
    u = _batched(U, in_axes[2], U[0])
    check_vmap(lambda a, s, v: lax.dynamic_update_slice(a, v, (s, 0)), [x, i, u], in_axes)


def test_vmap_dynamic_update_slice_values_jax():
    # JAX: vmap(dus, (1, 0, None))(arange(12.).reshape(4, 3), [-1, 3, 1], [7., 8.])
    got = spmd.vmap(lambda x, i, u: lax.dynamic_update_slice(x, u, (i,)), (1, 0, None))(
        jnp.arange(12.0).reshape(4, 3), jnp.array([-1, 3, 1]), jnp.array([7.0, 8.0])
    )
    np.testing.assert_array_equal(
        got, [[0.0, 3.0, 7.0, 8.0], [1.0, 4.0, 7.0, 8.0], [2.0, 7.0, 8.0, 11.0]]
    )


# ---------------------------------------------------------------------------------------------
# gather under vmap (through jnp indexing and lax.gather)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0), (1, 0), (2, 0)], ids=str)
def test_vmap_scalar_index(in_axes):
    x = _batched(X, in_axes[0], X[0])
    i = I3 if in_axes[1] is not None else np.int32(-2)
    check_vmap(lambda a, s: a[s], [x, i], in_axes)
    check_vmap(lambda a, s: a[1:, s], [x, i], in_axes)


def test_vmap_x_i_values_jax():
    # JAX: vmap(lambda x, i: x[i])(arange(12.).reshape(3, 4), [0, 2, 1])
    got = spmd.vmap(lambda x, i: x[i])(jnp.arange(12.0).reshape(3, 4), jnp.array([0, 2, 1]))
    np.testing.assert_array_equal(got, [0.0, 6.0, 9.0])


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0), (1, 1), (2, 0)], ids=str)
def test_vmap_array_index(in_axes):
    idx = np.array([[0, 4, 4], [2, 1, 0], [3, 3, -1]], np.int32)
    x = _batched(X, in_axes[0], X[0])
    i = idx if in_axes[1] == 0 else (idx.T.copy() if in_axes[1] == 1 else idx[0])
    check_vmap(lambda a, j: a[j], [x, i], in_axes)
    check_vmap(lambda a, j: a[j, 1:3], [x, i], in_axes)
    check_vmap(lambda a, j: a[:, j[:2]], [x, i], in_axes)
    check_vmap(lambda a, j: a.at[j].get(mode="fill", fill_value=-1.0), [x, i + 2], in_axes)


@pytest.mark.parametrize("in_axes", [(0, None), (None, 0), (0, 0), (1, 2)], ids=str)
def test_vmap_take_along_axis(in_axes):
    idx = R.randint(0, 4, size=(3, 5, 2)).astype(np.int32)
    x = _batched(X, in_axes[0], X[0])
    i = idx[0] if in_axes[1] is None else np.moveaxis(idx, 0, in_axes[1])
    # take_along_axis is a gather with batching dimensions: under vmap they gain one more.
    check_vmap(lambda a, j: jnp.take_along_axis(a, j, axis=1), [x, i], in_axes)


def test_vmap_gather_with_operand_batching_dims():
    dn = lax.GatherDimensionNumbers(
        offset_dims=(1,),
        collapsed_slice_dims=(1,),
        start_index_map=(1,),
        operand_batching_dims=(0,),
        start_indices_batching_dims=(0,),
    )
    idx = R.randint(0, 5, size=(3, 5, 1)).astype(np.int32)  # per slice (5, 1)
    f = lambda a, j: lax.gather(a, j, dn, (1, 1, 4), mode="clip")  # noqa: E731
    x = R.standard_normal((3, 5, 5, 4)).astype(np.float32)
    for in_axes in [(0, None), (None, 0), (0, 0), (3, 1)]:
        xa = _batched(x, in_axes[0], x[0])
        ia = idx[0] if in_axes[1] is None else np.moveaxis(idx, 0, in_axes[1])
        check_vmap(f, [xa, ia], in_axes)


# ---------------------------------------------------------------------------------------------
# scatters under vmap


SCATTERS = {
    "set": lambda a, j, v: a.at[j].set(v),
    "add": lambda a, j, v: a.at[j].add(v),
    "mul": lambda a, j, v: a.at[j].multiply(v),
    "min": lambda a, j, v: a.at[j].min(v),
    "max": lambda a, j, v: a.at[j].max(v),
    "sub": lambda a, j, v: lax.scatter_sub(
        a, j[:, None], v, lax.ScatterDimensionNumbers((1,), (0,), (0,))
    ),
    "apply": lambda a, j, v: a.at[j].apply(lambda e: e * 2 + 1),
    "set_clip": lambda a, j, v: a.at[j].set(v, mode="clip"),
}


@pytest.mark.parametrize("in_axes", COMBOS3, ids=str)
@pytest.mark.parametrize("kind", list(SCATTERS))
def test_vmap_scatter(kind, in_axes):
    idx = np.array([[0, 4, 1], [2, 2, 9], [3, 0, 3]], np.int32)  # repeats, out of bounds
    x = _batched(X, in_axes[0], X[0])
    i = idx if in_axes[1] is not None else idx[1]
    u = R.standard_normal((3, 3, 4)).astype(np.float32)
    u = _batched(u, in_axes[2], u[0])
    if kind == "set":
        # Repeated indices pick an unspecified winner; keep them unique for "set".
        i = np.array([[0, 4, 1], [2, 3, 9], [3, 0, 1]], np.int32)
        i = i if in_axes[1] is not None else i[1]
    check_vmap(SCATTERS[kind], [x, i, u], in_axes)


def test_vmap_at_set_values_jax():
    # JAX: vmap(lambda a, i, u: a.at[i].set(u))(arange(12.).reshape(3, 4), [0, 2, 1],
    #                                            [0., 1., 2.])
    got = spmd.vmap(lambda a, i, u: a.at[i].set(u))(
        jnp.arange(12.0).reshape(3, 4), jnp.array([0, 2, 1]), jnp.arange(3.0)
    )
    np.testing.assert_array_equal(
        got, [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 1.0, 7.0], [8.0, 2.0, 10.0, 11.0]]
    )


# ---------------------------------------------------------------------------------------------
# jvp and vjp


def test_derivs_dynamic_slice(x64):
    x = R.standard_normal((5, 4))
    for s in (0, 2, 4, -1):
        check_derivs(lambda a, s=s: lax.dynamic_slice(a, (s, 1), (3, 2)), [x])
    check_derivs(lambda a: lax.dynamic_slice_in_dim(a, jnp.array(3), 2, axis=1), [x])


def test_derivs_dynamic_update_slice(x64):
    x, u = R.standard_normal((5, 4)), R.standard_normal((2, 3))
    for s in (0, 4, -2):
        check_derivs(lambda a, v, s=s: lax.dynamic_update_slice(a, v, (s, 1)), [x, u])
        check_derivs(lambda a, s=s: lax.dynamic_update_slice(a, jnp.asarray(u), (s, 1)), [x])
        check_derivs(lambda v, s=s: lax.dynamic_update_slice(jnp.asarray(x), v, (s, 1)), [u])


def test_derivs_gather(x64):
    x = R.standard_normal((5, 4))
    idx = jnp.array([[0, 4, 0], [2, 2, -1]])
    check_derivs(lambda a: a[idx], [x])
    check_derivs(lambda a: a[idx, 1:3], [x])
    check_derivs(lambda a: a[:, jnp.array([3, 3])], [x])
    check_derivs(
        lambda a: jnp.take_along_axis(a, jnp.array([[0, 0], [3, 1]] * 2 + [[1, 1]]), 1), [x]
    )
    # Out-of-bounds windows read the (constant) fill value: tangent and cotangent 0 there.
    check_derivs(lambda a: a.at[jnp.array([0, 7])].get(mode="fill", fill_value=2.0), [x])
    check_derivs(lambda a: a.at[jnp.array([0, 7])].get(mode="clip"), [x])


def test_grad_gather_accumulates_jax():
    # JAX: grad(lambda x: x[jnp.array([0, 0, 2])].sum())(arange(4.)) == [2, 0, 1, 0]
    g = spmd.grad(lambda x: x[jnp.array([0, 0, 2])].sum())(jnp.arange(4.0))
    np.testing.assert_array_equal(g, [2.0, 0.0, 1.0, 0.0])
    # JAX: fill mode drops the out-of-bounds read; clip mode reads (and gets) element 2.
    x = jnp.array([1.0, 5.0, 3.0])
    g = spmd.grad(lambda x: x.at[jnp.array([0, 5])].get(mode="fill", fill_value=-1.0).sum())(x)
    np.testing.assert_array_equal(g, [1.0, 0.0, 0.0])
    g = spmd.grad(lambda x: x.at[jnp.array([0, 5])].get(mode="clip").sum())(x)
    np.testing.assert_array_equal(g, [1.0, 0.0, 1.0])


IDX_UNIQUE = jnp.array([3, 0, 1])
IDX_REPEAT = jnp.array([3, 0, 3, 1, 0])


@pytest.mark.parametrize("idx", [IDX_UNIQUE, IDX_REPEAT], ids=["unique", "repeated"])
@pytest.mark.parametrize("kind", ["set", "add", "sub"])
def test_derivs_scatter_linear(x64, kind, idx):
    x = R.standard_normal((5, 2))
    u = R.standard_normal((idx.shape[0], 2))
    fns = {
        "set": lambda a, v: a.at[idx].set(v),
        "add": lambda a, v: a.at[idx].add(v),
        "sub": lambda a, v: lax.scatter_sub(
            a, idx[:, None], v, lax.ScatterDimensionNumbers((1,), (0,), (0,))
        ),
    }
    f = fns[kind]
    check_derivs(f, [x, u])
    check_derivs(lambda a: f(a, jnp.asarray(u)), [x])
    check_derivs(lambda v: f(jnp.asarray(x), v), [u])


def test_derivs_scatter_unique_flag(x64):
    x, u = R.standard_normal(5), R.standard_normal(3)
    f = lambda a, v: a.at[IDX_UNIQUE].set(v, unique_indices=True)  # noqa: E731
    check_derivs(f, [x, u])
    g = lambda a, v: a.at[IDX_UNIQUE].multiply(v, unique_indices=True)  # noqa: E731
    check_derivs(g, [x, u])


def test_derivs_scatter_mul_operand(x64):
    # The operand derivative is exact with repeated indices (the updates' needs uniqueness).
    u = jnp.asarray(R.standard_normal((5, 2)))
    check_derivs(lambda a: a.at[IDX_REPEAT].multiply(u), [R.standard_normal((5, 2))])


@pytest.mark.parametrize("kind", ["min", "max"])
def test_derivs_scatter_extremal(x64, kind):
    # No ties: the derivative is that of whichever value is extremal.
    x = np.array([0.0, 3.0, -2.0, 5.0, 1.0])
    u = np.array([1.0, -1.5, 4.0, 2.5, 0.5, -3.0])
    idx = jnp.array([0, 1, 3, 3, 1, 2])
    f = (lambda a, v: a.at[idx].min(v)) if kind == "min" else (lambda a, v: a.at[idx].max(v))
    check_derivs(f, [x, u])


def test_scatter_extremal_ties_jax():
    x = jnp.array([1.0, 5.0, 3.0])
    u = jnp.array([1.0, 0.5, 5.0, 7.0])
    i = jnp.array([0, 0, 1, 2])
    tx, tu = jnp.array([10.0, 20.0, 30.0]), jnp.array([100.0, 200.0, 300.0, 400.0])
    # JAX: tied values share the tangent equally (operand and update 0 at element 0; operand
    # and update 2 at element 1).
    _, t = spmd.jvp(lambda a, v: a.at[i].max(v), (x, u), (tx, tu))
    np.testing.assert_array_equal(t, [55.0, 160.0, 400.0])
    _, t = spmd.jvp(lambda a, v: a.at[i].min(v), (x, u), (tx, tu))
    np.testing.assert_array_equal(t, [200.0, 160.0, 30.0])
    w = jnp.array([1.0, 2.0, 3.0])
    ga, gv = spmd.grad(lambda a, v: (a.at[i].max(v) * w).sum(), (0, 1))(x, u)
    np.testing.assert_array_equal(ga, [0.5, 1.0, 0.0])
    np.testing.assert_array_equal(gv, [0.5, 0.0, 1.0, 3.0])


def test_scatter_set_repeated_jax():
    x = jnp.array([1.0, 5.0, 3.0])
    u, tx, tu = (
        jnp.array([1.0, 0.5, 5.0]),
        jnp.array([10.0, 20.0, 30.0]),
        jnp.array([1.0, 2.0, 3.0]),
    )
    h = lambda a, v: a.at[jnp.array([0, 0, 2])].set(v)  # noqa: E731
    # JAX: only the winning update (the last, here) carries its tangent.
    _, t = spmd.jvp(h, (x, u), (tx, tu * 100))
    np.testing.assert_array_equal(t, [200.0, 20.0, 300.0])
    ga, gu = spmd.grad(lambda a, v: (h(a, v) * jnp.array([1.0, 2.0, 3.0])).sum(), (0, 1))(x, u)
    np.testing.assert_array_equal(ga, [0.0, 2.0, 0.0])
    np.testing.assert_array_equal(gu, [0.0, 1.0, 3.0])


def test_grad_at_set_wrt_operand_and_value():
    # JAX: grad(lambda x, v: x.at[1].set(v).sum(), (0, 1))(arange(4.), 2.)
    gx, gv = spmd.grad(lambda x, v: x.at[1].set(v).sum(), (0, 1))(jnp.arange(4.0), 2.0)
    np.testing.assert_array_equal(gx, [1.0, 0.0, 1.0, 1.0])
    assert float(gv) == 1.0
    # Out-of-bounds updates are dropped: no gradient flows to them.
    gx, gv = spmd.grad(lambda x, v: (x.at[jnp.array([0, 5])].set(v) * 2).sum(), (0, 1))(
        jnp.array([1.0, 5.0, 3.0]), jnp.array([1.0, 0.5])
    )
    np.testing.assert_array_equal(gx, [0.0, 2.0, 2.0])
    np.testing.assert_array_equal(gv, [2.0, 0.0])


def test_grad_scatter_mul_unique_jax():
    x, u = jnp.array([1.0, 5.0, 3.0]), jnp.array([1.0, 0.5])
    m = lambda a, v: a.at[jnp.array([0, 2])].multiply(v, unique_indices=True)  # noqa: E731
    ga, gu = spmd.grad(lambda a, v: (m(a, v) * jnp.array([1.0, 2.0, 3.0])).sum(), (0, 1))(x, u)
    np.testing.assert_array_equal(ga, [1.0, 2.0, 1.5])
    np.testing.assert_array_equal(gu, [1.0, 9.0])


def test_scatter_mul_repeated_updates_derivative_raises():
    # As in JAX: with possibly repeated indices, the updates' derivative is not implemented.
    f = lambda v: jnp.ones(3).at[jnp.array([0, 0])].multiply(v).sum()  # noqa: E731
    with pytest.raises(NotImplementedError, match="scatter_mul.*unique_indices=True"):
        spmd.grad(f)(jnp.array([2.0, 3.0]))


def test_scatter_apply_derivative_raises():
    f = lambda x: x.at[jnp.array([0, 1])].apply(lambda e: e * 2).sum()  # noqa: E731
    with pytest.raises(NotImplementedError, match="scatter_apply"):
        spmd.grad(f)(jnp.ones(3))


def test_vmap_of_grad_of_indexing(x64):
    x = R.standard_normal((3, 5))
    i = jnp.array([4, 0, 2])

    def f(a, j):
        return a[j] * a[jnp.array([1, 1])].sum() + a.at[j].add(a[0]).sum() ** 2

    per = spmd.vmap(spmd.grad(f))(x, i)
    loop = np.stack([np.asarray(spmd.grad(f)(x[k], i[k])) for k in range(3)])
    np.testing.assert_allclose(per, loop, rtol=1e-12)
    g = spmd.grad(lambda a: spmd.vmap(f)(a, i).sum())(x)
    np.testing.assert_allclose(g, loop, rtol=1e-12)
