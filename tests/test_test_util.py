"""``spmd.test_util.check_grads``: it passes on correct derivatives and catches wrong JVP and
transpose rules, in the mode and order where they are wrong."""

from __future__ import annotations

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd._src import core
from spmd._src.interpreters import ad
from spmd.test_util import check_grads, check_jvp, check_vjp

X = np.array([0.3, -1.2, 0.8], np.float32)


def _prim(name, impl, jvp=None, transpose=None):
    p = core.Primitive(name)
    p.def_impl(impl)
    p.def_abstract_eval(lambda x: x)
    if jvp is not None:
        ad.primitive_jvps[p] = jvp
    if transpose is not None:
        ad.primitive_transposes[p] = transpose
    return p


def _cleanup(p):
    ad.primitive_jvps.pop(p, None)
    ad.primitive_transposes.pop(p, None)


def test_correct_derivatives_pass():
    check_grads(jnp.sin, (0.5,), order=2)
    check_grads(lambda x: jnp.sum(jnp.tanh(x) * x), (X,), order=2)
    check_grads(lambda x, y: (x * y, jnp.exp(x)), (X, X[::-1].copy()), order=1)
    check_grads(lambda p: p["w"] @ p["x"], ({"w": X, "x": X * 2},), order=2)


def test_third_order_in_float64(x64):
    check_grads(lambda x: jnp.sum(jnp.sin(x) ** 3), (X.astype(np.float64),), order=3)


def test_wrong_jvp_fails_in_forward_mode():
    # The tangent is 3% too large.
    p = _prim("tu_wrong_jvp", np.sin, jvp=lambda ps, ts, out: ts[0] * lax.cos(ps[0]) * 1.03)
    try:
        with pytest.raises(AssertionError, match="JVP of order 1"):
            check_grads(p.bind, (X,), order=1, modes=("fwd",))
    finally:
        _cleanup(p)


def test_wrong_transpose_fails_only_in_reverse_mode():
    # scale by 2 with a transpose that scales by 3.
    p = _prim("tu_wrong_transpose", lambda x: x * 2)
    ad.primitive_jvps[p] = lambda ps, ts, out: p.bind(ad.instantiate(ts[0]))
    ad.primitive_transposes[p] = lambda ct, x: [ct * 3]
    try:
        check_grads(p.bind, (X,), order=1, modes=("fwd",))
        with pytest.raises(AssertionError, match="VJP of order 1 cotangent projection"):
            check_grads(p.bind, (X,), order=1, modes=("rev",))
    finally:
        _cleanup(p)


def test_second_order_error_is_reported_at_order_2():
    # sin with a JVP rule that is right at first order but takes cos(x) as a constant (its
    # primal value, outside the trace), so the derivative of the tangent is wrongly zero.
    def const_cos(x):
        while isinstance(x, ad.JVPTracer):
            x = x.primal
        return np.cos(np.asarray(x))

    def jvp(ps, ts, out):
        return ts[0] * const_cos(ps[0])

    p = _prim("tu_wrong_second_order", np.sin, jvp=jvp)
    try:
        check_grads(p.bind, (X,), order=1, modes=("fwd",))
        with pytest.raises(AssertionError, match="JVP of order 2"):
            check_grads(p.bind, (X,), order=2, modes=("fwd",))
    finally:
        _cleanup(p)


def test_tolerances_can_be_loosened():
    p = _prim("tu_slightly_off", np.sin, jvp=lambda ps, ts, out: ts[0] * lax.cos(ps[0]) * 1.03)
    try:
        check_grads(p.bind, (X,), order=1, modes=("fwd",), atol=0.5, rtol=0.5)
        check_grads(p.bind, (X,), order=1, modes=("fwd",), atol={np.float32: 0.5},
                    rtol={"float32": 0.5})  # fmt: skip
    finally:
        _cleanup(p)


def test_check_jvp_and_check_vjp_directly():
    check_jvp(jnp.cos, lambda a, t: spmd.jvp(jnp.cos, a, t), (X,))
    check_vjp(jnp.cos, lambda *a: spmd.vjp(jnp.cos, *a), (X,))


def test_unknown_mode():
    with pytest.raises(ValueError, match="modes"):
        check_grads(jnp.sin, (X,), order=1, modes=("forward",))
