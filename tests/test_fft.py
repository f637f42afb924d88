"""``jnp.fft`` and ``lax.fft`` against JAX 0.10.2's results (``tests/golden/fft.json``, written by
``tests/golden_gen/fft_gen.py`` from the cases of ``tests/cases_fft.py``; no JAX needed here):
values eagerly and under ``spmd.jit``, gradients of real losses, jvps, jaxpr text and error
classes; then, without goldens, ``vmap`` against per-example loops, derivatives against finite
differences (``check_grads``) and the sharding rule.
"""

from __future__ import annotations

import builtins
import json
from pathlib import Path

import numpy as np
import pytest
from cases_fft import CASES, ERROR_CASES, GRAD_CASES, JAXPR_CASES, JVP_CASES, cplx, real

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd._src.lax import fft as lax_fft
from spmd.sharding import AxisType, NamedSharding
from spmd.sharding import PartitionSpec as P
from spmd.test_util import check_grads

GOLDEN = json.loads((Path(__file__).parent / "golden" / "fft.json").read_text())

# XLA's single-precision FFT kernels and spmd's (double precision, rounded once) differ by a few
# float32 ulps of the largest output, since every output mixes every input: relative 1e-5, with
# the absolute tolerance scaled by the output's magnitude (small outputs are cancellations).
TOL = {"float32": 1e-5, "complex64": 1e-5, "float16": 2e-3, "bfloat16": 2e-2}


def _decode(rec: dict) -> np.ndarray:
    def floats(vs):
        return np.array([float(v) for v in vs], np.float64)

    if "re" in rec:
        out = floats(rec["re"]) + 1j * floats(rec["im"])
    else:
        out = np.array(rec["values"], np.float64 if rec["dtype"].startswith(("f", "b")) else None)
    return out.reshape(rec["shape"])


def assert_matches(got, rec: dict, where: str) -> None:
    """``got`` has the golden dtype, shape and weak type exactly, and its values within TOL."""
    a = np.asarray(got)
    assert a.dtype.name == rec["dtype"], f"{where}: dtype {a.dtype.name}, JAX {rec['dtype']}"
    assert list(a.shape) == rec["shape"], f"{where}: shape {a.shape}, JAX {tuple(rec['shape'])}"
    weak = bool(getattr(got, "weak_type", False))
    assert weak == rec["weak_type"], f"{where}: weak_type {weak}, JAX {rec['weak_type']}"
    want = _decode(rec)
    if a.dtype.kind in "iub":
        np.testing.assert_array_equal(a, want, err_msg=where)
        return
    tol = TOL[a.dtype.name]
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    got64 = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
    np.testing.assert_allclose(got64, want, rtol=tol, atol=tol * scale, err_msg=where)


def _spmd_args(args):
    return [jnp.asarray(a) if isinstance(a, (np.ndarray, np.generic)) else a for a in args]


_BY_NAME = {c.name: c for c in CASES}


# ---------------------------------------------------------------------------------------------
# Against JAX's values


def test_golden_covers_the_cases():
    assert sorted(GOLDEN["forward"]) == sorted(_BY_NAME)
    assert sorted(GOLDEN["grad"]) == sorted(c.name for c in GRAD_CASES)
    assert sorted(GOLDEN["jvp"]) == sorted(c.name for c in JVP_CASES)
    assert sorted(GOLDEN["errors"]) == sorted(c.name for c in ERROR_CASES)


@pytest.mark.parametrize("name", sorted(_BY_NAME))
def test_values_eager_and_jit(name):
    fn, args = _BY_NAME[name].build(jnp, lax)
    want = GOLDEN["forward"][name]
    args = _spmd_args(args)
    assert_matches(fn(*args), want["eager"], f"{name} eager")
    assert_matches(spmd.jit(fn)(*args), want.get("jit", want["eager"]), f"{name} jit")


@pytest.mark.parametrize("name", JAXPR_CASES)
def test_jaxpr_prints_as_jax(name):
    fn, args = _BY_NAME[name].build(jnp, lax)
    got = str(spmd.make_jaxpr(fn)(*_spmd_args(args)))
    assert got == GOLDEN["forward"][name]["jaxpr"]


@pytest.mark.parametrize("case", GRAD_CASES, ids=lambda c: c.name)
def test_grad_of_real_loss(case):
    loss, args = case.build(jnp, lax)
    want = GOLDEN["grad"][case.name]["grad"]
    assert_matches(spmd.grad(loss)(*_spmd_args(args)), want, f"{case.name} grad")
    assert_matches(spmd.jit(spmd.grad(loss))(*_spmd_args(args)), want, f"{case.name} jit(grad)")


@pytest.mark.parametrize("case", JVP_CASES, ids=lambda c: c.name)
def test_jvp(case):
    fn, (x, t) = case.build(jnp, lax)
    want = GOLDEN["jvp"][case.name]
    primal, tangent = spmd.jvp(fn, (jnp.asarray(x),), (jnp.asarray(t),))
    assert_matches(primal, want["primal"], f"{case.name} primal")
    assert_matches(tangent, want["tangent"], f"{case.name} tangent")


@pytest.mark.parametrize("case", ERROR_CASES, ids=lambda c: c.name)
def test_errors(case):
    fn, args = case.build(jnp, lax)
    cls = getattr(builtins, GOLDEN["errors"][case.name]["error"])
    with pytest.raises(cls) as info:
        fn(*_spmd_args(args))
    for part in case.match:
        assert part in str(info.value), f"{part!r} not in the message: {info.value}"


# ---------------------------------------------------------------------------------------------
# vmap against per-example loops

_VMAP = [
    ("fft", lambda x: jnp.fft.fft(x), "c", (3, 4, 5)),
    ("ifft n=7 axis=0", lambda x: jnp.fft.ifft(x, n=7, axis=0), "c", (3, 4, 5)),
    ("rfft", lambda x: jnp.fft.rfft(x, norm="ortho"), "r", (3, 4, 6)),
    ("irfft n=5", lambda x: jnp.fft.irfft(x, n=5), "c", (3, 4, 3)),
    ("hfft", lambda x: jnp.fft.hfft(x, axis=0), "c", (3, 4, 5)),
    ("ihfft", lambda x: jnp.fft.ihfft(x), "r", (3, 4, 5)),
    ("fftn", lambda x: jnp.fft.fftn(x), "r", (3, 4, 5)),
    ("rfftn axes=(1,0)", lambda x: jnp.fft.rfftn(x, axes=(1, 0)), "r", (3, 4, 5)),
    ("irfft2 s", lambda x: jnp.fft.irfft2(x, s=(3, 6)), "c", (3, 4, 5)),
    ("fftshift", lambda x: jnp.fft.fftshift(x), "r", (3, 4, 5)),
    ("lax IRFFT (4,6)", lambda x: lax.fft(x, "irfft", (4, 6)), "c", (4, 4, 4)),
]


def _batch(kind, shape):
    return real(shape, 3) if kind == "r" else cplx(shape, 3)


@pytest.mark.parametrize("in_axis", [0, 1, -1])
@pytest.mark.parametrize("name,fn,kind,shape", _VMAP, ids=[v[0] for v in _VMAP])
def test_vmap_matches_loop(name, fn, kind, shape, in_axis):
    xs = _batch(kind, shape)
    want = np.stack([np.asarray(fn(jnp.asarray(x))) for x in np.moveaxis(xs, in_axis, 0)])
    xs = jnp.asarray(xs)
    for got in (spmd.vmap(fn, in_axes=in_axis)(xs), spmd.jit(spmd.vmap(fn, in_axes=in_axis))(xs)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name,fn,kind,shape", _VMAP[:9], ids=[v[0] for v in _VMAP[:9]])
def test_vmap_of_grad_matches_loop(name, fn, kind, shape):
    # The transpose rules under batching (their constants broadcast against batched values).
    def loss(x):
        y = fn(x)
        return jnp.sum((y * jnp.conj(y)).real * (1.0 + jnp.arange(y.size).reshape(y.shape)))

    xs = _batch(kind, shape)
    want = np.stack([np.asarray(spmd.grad(loss)(jnp.asarray(x))) for x in xs])
    got = spmd.vmap(spmd.grad(loss))(jnp.asarray(xs))
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-4)


# ---------------------------------------------------------------------------------------------
# Derivatives against finite differences (float64)

_GRADS = [
    ("fft", {}, "c"),
    ("fft", {"n": 5, "norm": "ortho"}, "r"),
    ("ifft", {"n": 7, "axis": 0}, "c"),
    ("rfft", {}, "r"),
    ("rfft", {"n": 5, "norm": "forward"}, "r"),
    ("irfft", {}, "c"),
    ("irfft", {"n": 7}, "c"),
    ("hfft", {"n": 6}, "c"),
    ("ihfft", {"norm": "ortho"}, "r"),
    ("fftn", {"axes": (1, 0)}, "c"),
    ("rfftn", {"s": (3, 5)}, "r"),
    ("irfftn", {"s": (4, 5)}, "c"),
    ("irfft2", {"norm": "ortho"}, "c"),
]


@pytest.mark.parametrize("fn,kw,kind", _GRADS, ids=[f"{f} {kw}" for f, kw, _ in _GRADS])
def test_check_grads(fn, kw, kind, x64):
    x = _batch(kind, (3, 4)).astype(np.complex128 if kind == "c" else np.float64)
    f = lambda v: getattr(jnp.fft, fn)(v, **kw)  # noqa: E731
    check_grads(f, (x,), order=2, modes=("fwd", "rev"))
    check_grads(spmd.jit(f), (x,), order=1, modes=("fwd", "rev"))


def test_x64_dtypes(x64):
    x = np.ones((2, 6))
    assert jnp.fft.fft(x).dtype == np.complex128
    assert jnp.fft.rfft(x).dtype == np.complex128
    assert jnp.fft.irfft(x).dtype == np.float64
    assert jnp.fft.fft(x.astype(np.float32)).dtype == np.complex64
    assert jnp.fft.irfft(np.ones(3, np.int64)).dtype == np.float64
    assert jnp.fft.fftfreq(4).dtype == np.float64
    np.testing.assert_allclose(np.asarray(jnp.fft.rfft(np.arange(6.0))), np.fft.rfft(np.arange(6)))


# ---------------------------------------------------------------------------------------------
# lax.fft's spellings and the sharding rule


def test_fft_type():
    assert [(t.name, int(t)) for t in lax.FftType] == [
        ("FFT", 0), ("IFFT", 1), ("RFFT", 2), ("IRFFT", 3)
    ]  # fmt: skip
    x = cplx((2, 4))
    for spelling in ("ifft", "IFFT", lax.FftType.IFFT):
        np.testing.assert_allclose(
            np.asarray(lax.fft(x, spelling, [4])), np.fft.ifft(x), rtol=1e-6, atol=1e-6
        )


def test_fft_primitive_rules_are_registered():
    from spmd._src.interpreters import ad, batching, sharding_rules

    p = lax_fft.fft_p
    assert p in batching.primitive_batchers and p in ad.primitive_jvps
    assert p in ad.primitive_transposes and p in sharding_rules.sharding_rules


# JAX 0.10.2 on a 2x4 mesh, operand f32[4,8,8] (converted to complex where the type asks).
_AUTO = [
    ("FFT", (8,), P("x", None, "y")),
    ("FFT", (8, 8), P("x", None, "y")),
    ("RFFT", (8,), P("x")),
    ("IRFFT", (14,), P("x")),
    ("IRFFT", (15,), P("x")),
]


@pytest.mark.parametrize("typ,lengths,want", _AUTO)
def test_sharding_auto(typ, lengths, want):
    mesh = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    x = spmd.device_put(real((4, 8, 8)), NamedSharding(mesh, P("x", None, "y")))

    def f(v):
        return lax.fft(v if typ == "RFFT" else v.astype(jnp.complex64), typ, lengths)

    for out in (f(x), spmd.jit(f)(x)):
        assert out.sharding.spec == want
    ref = f(jnp.asarray(real((4, 8, 8))))
    np.testing.assert_array_equal(np.asarray(spmd.jit(f)(x)), np.asarray(ref))


_EXPLICIT = [
    (("x", "y"), lambda x: jnp.fft.fft(x), "complex64[4@x,8@y,8]"),
    (("x", "y"), lambda x: jnp.fft.fft2(x), "complex64[4@x,8@y,8]"),
    (("x", "y"), jnp.fft.rfft, "complex64[4@x,8@y,5]"),
    (("x", "y"), jnp.fft.irfft, "float32[4@x,8@y,14]"),
    (("x", None, "y"), lambda x: jnp.fft.fft(x), "complex64[4@x,8,8@y]"),
    (("x", None, "y"), jnp.fft.rfft, ValueError),
    (("x", None, "y"), jnp.fft.irfft, ValueError),
]


@pytest.mark.parametrize("spec,fn,want", _EXPLICIT)
def test_sharding_explicit(spec, fn, want):
    mesh = spmd.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    x = spmd.device_put(real((4, 8, 8)), NamedSharding(mesh, P(*spec)))
    with spmd.set_mesh(mesh):
        if want is ValueError:
            # A transformed dimension whose new size the shards do not divide (as in JAX).
            with pytest.raises(ValueError, match="does not split evenly in 4 shards"):
                fn(x)
            return
        assert str(spmd.typeof(fn(x))) == want
