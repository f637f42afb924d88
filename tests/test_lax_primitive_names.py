"""The primitives ``spmd.lax`` exports under JAX's ``*_p`` names are the ones programs bind."""

from __future__ import annotations

import numpy as np

import spmd
from spmd import lax
from spmd.sharding import NamedSharding
from spmd.sharding import PartitionSpec as P


def _prims(f, *args):
    # The primitives bound, looking inside jit equations (lax.fft is a jitted function).
    def walk(jaxpr):
        for e in jaxpr.eqns:
            if e.primitive.name == "jit":
                yield from walk(e.params["jaxpr"].jaxpr)
            else:
                yield e.primitive

    return list(walk(spmd.make_jaxpr(f)(*args).jaxpr))


def test_fft_p():
    f = lambda x: lax.fft(x, lax.FftType.FFT, (8,))  # noqa: E731
    assert _prims(f, np.ones(8, np.complex64)) == [lax.fft_p]


def test_sharding_constraint_p():
    mesh = spmd.make_mesh((8,), ("x",))
    f = lambda x: lax.with_sharding_constraint(x, NamedSharding(mesh, P("x")))  # noqa: E731
    assert _prims(f, np.ones(8, np.float32)) == [lax.sharding_constraint_p]


def test_after_all_p():
    assert _prims(lambda: lax.after_all(lax.create_token(), lax.create_token())) == [
        lax.create_token_p,
        lax.create_token_p,
        lax.after_all_p,
    ]
