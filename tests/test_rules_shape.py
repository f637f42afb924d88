"""Batching, JVP and transpose rules of the shape primitives (``spmd/_src/lax/shape.py``).

vmap is checked against a per-slice loop stacked with ``np.stack``; jvp against central finite
differences and vjp against jvp (``<ct, J t> == <J^T ct, t>``), in float64. Values marked
"JAX" were computed with JAX 0.10.2.
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


def check_vmap(f, args, in_axes, out_axes=0):
    """``spmd.vmap(f)`` equals ``f`` applied slice by slice, stacked with ``np.stack``."""
    args = [np.asarray(a) for a in args]
    n = next(a.shape[ax] for a, ax in zip(args, in_axes) if ax is not None)
    got = _leaves(spmd.vmap(f, in_axes=tuple(in_axes), out_axes=out_axes)(*map(jnp.asarray, args)))
    per = [_leaves(f(*[_take(a, ax, i) for a, ax in zip(args, in_axes)])) for i in range(n)]
    assert len(got) == len(per[0])
    for k, g in enumerate(got):
        want = np.stack([np.asarray(p[k]) for p in per], axis=out_axes)
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
    fd = [
        (np.asarray(p) - np.asarray(m)) / (2 * eps) for p, m in zip(_leaves(plus), _leaves(minus))
    ]
    tangent = [np.asarray(t) for t in _leaves(tangent)]
    for t, d in zip(tangent, fd, strict=True):
        np.testing.assert_allclose(t, d, rtol=tol, atol=tol)
    out, pullback = spmd.vjp(f, *args)
    cts = [rng.standard_normal(np.shape(o)) for o in _leaves(out)]
    ct_in = pullback(cts if isinstance(out, (list, tuple)) else cts[0])
    lhs = sum(float(np.sum(c * t)) for c, t in zip(cts, tangent))
    rhs = sum(float(np.sum(np.asarray(c) * t)) for c, t in zip(ct_in, ts))
    np.testing.assert_allclose(lhs, rhs, rtol=1e-9, atol=1e-9)
    for c, a in zip(ct_in, args):
        assert np.shape(c) == a.shape


R = np.random.RandomState(42)
X234 = R.standard_normal((2, 3, 4)).astype(np.float32)
X34 = R.standard_normal((3, 4)).astype(np.float32)
V4 = R.standard_normal(4).astype(np.float32)

# ---------------------------------------------------------------------------------------------
# vmap


@pytest.mark.parametrize("ax", [0, 1, 2])
def test_vmap_broadcast_in_dim(ax):
    x = np.moveaxis(R.standard_normal((3, 2, 1)).astype(np.float32), 0, ax)  # slices (2, 1)
    check_vmap(lambda a: lax.broadcast_in_dim(a, (2, 5, 4), (0, 2)), [x], [ax])


@pytest.mark.parametrize("ax", [0, 1, 2])
def test_vmap_broadcast_in_dim_rank_change(ax):
    x = np.moveaxis(R.standard_normal((5, 3, 4)).astype(np.float32), 0, ax)  # slices (3, 4)
    check_vmap(lambda a: lax.broadcast_in_dim(a, (2, 3, 4), (1, 2)), [x], [ax])


@pytest.mark.parametrize("ax", [0, 1, 2])
@pytest.mark.parametrize("dims", [None, (1, 0)])
def test_vmap_reshape(ax, dims):
    x = np.moveaxis(X234, 0, ax)  # per-slice operands are (3, 4)
    check_vmap(lambda a: lax.reshape(a, (2, 6), dims), [x], [ax])


@pytest.mark.parametrize("ax", [0, 1, 2, 3])
def test_vmap_transpose(ax):
    x = R.standard_normal((2, 3, 4, 5)).astype(np.float32)
    check_vmap(lambda a: lax.transpose(a, (2, 0, 1)), [x], [ax])


@pytest.mark.parametrize("ax", [0, 1, 2])
def test_vmap_squeeze(ax):
    x = np.moveaxis(R.standard_normal((3, 1, 4)).astype(np.float32), 0, ax)
    check_vmap(lambda a: lax.squeeze(a, (0,)), [x], [ax])  # slices (1, 4)


@pytest.mark.parametrize("ax", [0, 1, 2])
def test_vmap_rev(ax):
    check_vmap(lambda a: lax.rev(a, (0, 1)), [X234], [ax])


@pytest.mark.parametrize("ax", [0, 1, 2])
@pytest.mark.parametrize("strides", [None, (2, 3)])
def test_vmap_slice(ax, strides):
    x = np.moveaxis(R.standard_normal((3, 5, 7)).astype(np.float32), 0, ax)
    # Per-slice operands are 2-D whatever the batch axis: slice both of their dimensions.
    check_vmap(lambda a: lax.slice(a, (1, 0), (a.shape[0], a.shape[1] - 1), strides), [x], [ax])


@pytest.mark.parametrize(
    "in_axes", [(0, None), (1, None), (None, 0), (0, 0), (1, 0)], ids=lambda v: str(v)
)
def test_vmap_pad(in_axes):
    x = np.moveaxis(R.standard_normal((3, 4, 5)).astype(np.float32), 0, in_axes[0] or 0)
    if in_axes[0] is None:
        x = X34
    pv = np.float32([1.5, -2.0, 7.0]) if in_axes[1] == 0 else np.float32(9.0)
    cfg = ((1, -1, 1), (0, 2, 0))
    check_vmap(lambda a, p: lax.pad(a, p, cfg), [x, pv], in_axes)


@pytest.mark.parametrize("in_axes", [(0, 0), (1, None), (None, 1), (0, 1)], ids=str)
def test_vmap_concatenate(in_axes):
    a = np.moveaxis(R.standard_normal((3, 2, 4)).astype(np.float32), 0, in_axes[0] or 0)
    b = R.standard_normal((2, 5)).astype(np.float32)
    if in_axes[1] is not None:
        b = np.moveaxis(R.standard_normal((3, 2, 5)).astype(np.float32), 0, in_axes[1])
    if in_axes[0] is None:
        a = R.standard_normal((2, 4)).astype(np.float32)
    check_vmap(lambda u, w: lax.concatenate([u, w, u], 1), [a, b], in_axes)


@pytest.mark.parametrize("in_axes", [(0, None), (1, 0), (None, 1)], ids=str)
def test_vmap_stack(in_axes):
    # Batched operands have 3 slices of shape (4,); unbatched ones are of shape (4,).
    a, b = [V4 if ax is None else (X34 if ax == 0 else X34.T.copy()) for ax in in_axes]
    check_vmap(lambda u, w: lax.stack([u, w], 1 if u.ndim > 1 else 0), [a, b], in_axes)
    check_vmap(lambda u, w: lax.stack([u, w, u], 1), [a, b], in_axes)


@pytest.mark.parametrize("ax", [0, 1, 2])
@pytest.mark.parametrize("axis", [0, 1])
def test_vmap_split(ax, axis):
    x = R.standard_normal((3, 4, 6)).astype(np.float32)
    x = np.moveaxis(x, 0, ax)
    check_vmap(lambda a: lax.split(a, (1, 2, a.shape[axis] - 3), axis), [x], [ax])


@pytest.mark.parametrize("ax", [0, 1, 2])
def test_vmap_tile(ax):
    check_vmap(lambda a: lax.tile(a, (2, 3)), [X234], [ax])


def test_vmap_iota_needs_no_rule():
    # iota has no operands, so it is never batched: it stays a constant of the program.
    check_vmap(lambda a: a + lax.iota(np.float32, 4), [X34], [0])
    jaxpr = spmd.make_jaxpr(spmd.vmap(lambda a: a + lax.iota(np.float32, 4)))(X34)
    assert "iota[dimension=0 dtype=float32 shape=(4,)" in str(jaxpr)


@pytest.mark.parametrize("ax", [0, 1])
def test_vmap_lax_helpers(ax):
    x = X34 if ax == 0 else X34.T.copy()
    check_vmap(lambda a: lax.expand_dims(a, (0, 2)), [x], [ax])
    check_vmap(lambda a: lax.slice_in_dim(a, 1, -1, 2, axis=0), [x], [ax])
    check_vmap(lambda a: lax.index_in_dim(a, -1, 0, keepdims=False), [x], [ax])
    check_vmap(lambda a: lax.full_like(a, 2.0) * a, [x], [ax])
    # A batched fill value broadcasts per batch element.
    check_vmap(lambda s: lax.full((2, 3), s), [V4], [0])


@pytest.mark.parametrize("ax", [0, 1])
def test_vmap_jnp_functions(ax):
    x = X34 if ax == 0 else X34.T.copy()
    check_vmap(lambda a: jnp.concatenate([a, 2 * a, a[:1]]), [x], [ax])
    check_vmap(lambda a: jnp.stack([a, -a], axis=1), [x], [ax])
    check_vmap(lambda a: jnp.pad(a, (2, 1), constant_values=3.0), [x], [ax])
    check_vmap(lambda a: jnp.pad(a, 1, mode="edge"), [x], [ax])
    check_vmap(lambda a: jnp.roll(a, -1), [x], [ax])
    check_vmap(lambda a: jnp.tile(a, (2, 1)), [x], [ax])
    check_vmap(lambda a: jnp.repeat(a, 2), [x], [ax])
    check_vmap(lambda a: jnp.split(a, 2), [x], [ax])
    check_vmap(lambda a: jnp.reshape(a, (2, 2)), [x], [ax])
    check_vmap(lambda a: a.reshape(2, 2).T, [x], [ax])
    check_vmap(lambda a: a[::-1][None, 1:3], [x], [ax])


def test_vmap_out_axes():
    check_vmap(lambda a: lax.transpose(a, (1, 0)), [X234], [0], out_axes=1)
    check_vmap(lambda a: lax.pad(a, np.float32(0), ((1, 1, 1), (0, 0, 0))), [X234], [2], 2)


def test_vmap_values_jax():
    # JAX: vmap(lambda a: lax.pad(a, p, ((1, 0, 1),)))(arange(12).reshape(3, 4), [0, 1, 2]).
    x = jnp.arange(12.0).reshape(3, 4)
    got = spmd.vmap(lambda a, p: lax.pad(a, p, ((1, 0, 1),)))(x, jnp.arange(3.0))
    want = [
        [0.0, 0.0, 0.0, 1.0, 0.0, 2.0, 0.0, 3.0],
        [1.0, 4.0, 1.0, 5.0, 1.0, 6.0, 1.0, 7.0],
        [2.0, 8.0, 2.0, 9.0, 2.0, 10.0, 2.0, 11.0],
    ]
    np.testing.assert_array_equal(got, want)
    got = spmd.vmap(lambda a: jnp.split(a, 2), in_axes=1)(x.T)
    np.testing.assert_array_equal(got[1], [[2.0, 3.0], [6.0, 7.0], [10.0, 11.0]])


# ---------------------------------------------------------------------------------------------
# jvp and vjp


def test_derivs_broadcast_in_dim(x64):
    check_derivs(lambda x: lax.broadcast_in_dim(x, (2, 3, 4), (0, 2)), [np.ones((2, 1))])
    check_derivs(lambda x: lax.broadcast_in_dim(x, (5, 3, 1), (1, 2)), [np.ones((1, 1))])
    check_derivs(lambda x: lax.broadcast_in_dim(x, (3,), ()), [np.float64(2.0)])


def test_derivs_reshape_transpose_squeeze_rev(x64):
    x = R.standard_normal((2, 3, 4))
    check_derivs(lambda a: lax.reshape(a, (4, 6)), [x])
    check_derivs(lambda a: lax.reshape(a, (4, 6), (2, 0, 1)), [x])
    check_derivs(lambda a: lax.transpose(a, (2, 0, 1)), [x])
    check_derivs(lambda a: lax.squeeze(a, (0, 2)), [x[:1, :, :1]])
    check_derivs(lambda a: lax.rev(a, (0, 2)), [x])
    check_derivs(lambda a: lax.expand_dims(a, (0, 3)), [x])


@pytest.mark.parametrize(
    "start,limit,strides",
    [
        ((0, 1), (3, 5), None),
        ((1, 0), (3, 5), (2, 3)),
        ((0, 0), (3, 5), (1, 1)),
        ((2, 4), (2, 5), (1, 2)),
    ],
)
def test_derivs_slice(x64, start, limit, strides):
    check_derivs(lambda a: lax.slice(a, start, limit, strides), [R.standard_normal((3, 5))])


@pytest.mark.parametrize(
    "cfg", [((1, 2, 0), (0, 0, 0)), ((1, -1, 1), (-2, 3, 2)), ((-1, -1, 0), (0, 0, 3))], ids=str
)
def test_derivs_pad(x64, cfg):
    x = R.standard_normal((3, 4))
    check_derivs(lambda a, p: lax.pad(a, p, cfg), [x, np.float64(0.5)])
    check_derivs(lambda a: lax.pad(a, np.float64(2.0), cfg), [x])
    check_derivs(lambda p: lax.pad(x, p, cfg), [np.float64(2.0)])


def test_grad_pad_values_jax():
    # JAX: grad(lambda a, p: lax.pad(a, p, ((1, -1, 1),)).sum(), (0, 1))(arange(4.), 2.)
    ga, gp = spmd.grad(lambda a, p: lax.pad(a, p, ((1, -1, 1),)).sum(), (0, 1))(
        jnp.arange(4.0), 2.0
    )
    np.testing.assert_array_equal(ga, [1.0, 1.0, 1.0, 0.0])
    assert float(gp) == 4.0


def test_derivs_concatenate_stack_split_tile(x64):
    a, b = R.standard_normal((2, 3)), R.standard_normal((2, 1))
    check_derivs(lambda u, w: lax.concatenate([u, w, u], 1), [a, b])
    check_derivs(lambda u: lax.concatenate([u, b], 1), [a])  # one operand constant
    check_derivs(lambda u, w: lax.stack([u, w, u], 1), [a, 2 * a])
    check_derivs(lambda u: lax.stack([a, u], 2), [a])
    check_derivs(lambda u: lax.split(u, (1, 2), 1), [a])
    # Unused pieces get symbolic zero cotangents.
    check_derivs(lambda u: lax.split(u, (1, 2), 1)[1], [a])
    check_derivs(lambda u: lax.tile(u, (2, 3)), [a])


def test_derivs_full(x64):
    check_derivs(lambda s: lax.full((2, 3), s), [np.float64(1.5)])
    check_derivs(lambda x: lax.full_like(x, 3.0) + x, [R.standard_normal(3)])


def test_derivs_jnp_functions(x64):
    x = R.standard_normal((3, 4))
    check_derivs(lambda a: jnp.concatenate([a, 2 * a], axis=1), [x])
    check_derivs(lambda a: jnp.stack([a, a * a]), [x])
    check_derivs(lambda a: jnp.pad(a, ((1, 0), (2, 3)), constant_values=1.0), [x])
    check_derivs(lambda a: jnp.pad(a, 2, mode="reflect"), [x])
    check_derivs(lambda a: jnp.roll(a, (1, -2), (0, 1)), [x])
    check_derivs(lambda a: jnp.tile(a, (2, 1, 2)), [x])
    check_derivs(lambda a: jnp.repeat(a, 3, axis=1), [x])
    check_derivs(lambda a: jnp.split(a, [1, 3], axis=1), [x])
    check_derivs(lambda a: a.T.reshape(2, 6)[:, ::-2], [x])


def test_grad_slice_sum():
    g = spmd.grad(lambda x: x[1:3].sum())(jnp.arange(5.0))
    np.testing.assert_array_equal(g, [0.0, 1.0, 1.0, 0.0, 0.0])
    g = spmd.grad(lambda x: x[::2].sum())(jnp.arange(5.0))
    np.testing.assert_array_equal(g, [1.0, 0.0, 1.0, 0.0, 1.0])


def test_grad_slice_jaxpr_like_jax():
    # JAX 0.10 prints the transpose of a slice as a pad with NumPy-integer high padding.
    text = str(spmd.make_jaxpr(spmd.grad(lambda x: x[1:3].sum()))(jnp.arange(4.0)))
    assert "pad[padding_config=((1, np.int64(1), 0),)] " in text
    text = str(spmd.make_jaxpr(spmd.grad(lambda x: x[::2].sum()))(jnp.arange(4.0)))
    assert "pad[padding_config=((0, np.int64(1), np.int64(1)),)] " in text


def test_vmap_of_grad_and_grad_of_vmap(x64):
    x = R.standard_normal((3, 4))

    def f(a):
        return (jnp.pad(a[1:], 1) * jnp.concatenate([a, a])[:5]).sum()

    per_example = spmd.vmap(spmd.grad(f))(x)
    loop = np.stack([np.asarray(spmd.grad(f)(x[i])) for i in range(3)])
    np.testing.assert_allclose(per_example, loop, rtol=1e-12)
    g = spmd.grad(lambda a: spmd.vmap(f)(a).sum())(x)
    np.testing.assert_allclose(g, loop, rtol=1e-12)
