"""Golden cases for ``jnp.fft`` and ``lax.fft``: one table, run by JAX and by spmd.

Each case is a name, a maker ``make(jnp, lax) -> fn`` and arguments built with plain NumPy
(deterministic values, no random numbers). The same table serves
``tests/golden_gen/fft_gen.py`` (run under real JAX; it writes ``tests/golden/fft.json``) and
``tests/test_fft.py`` (no JAX: it runs the cases with ``spmd`` and compares).

- ``CASES``: forward values (``fn(*args)``), eager and under jit.
- ``GRAD_CASES``: ``grad`` of real-valued losses (weighted sums of ``|f|^2`` and of the real and
  imaginary parts) of one argument.
- ``JVP_CASES``: ``jvp(fn, (x,), (t,))``.
- ``ERROR_CASES``: calls that raise; ``match`` lists substrings spmd's message must contain
  (JAX's own messages differ; only its exception class is recorded).
- ``JAXPR_CASES``: names of ``CASES`` whose ``make_jaxpr`` text must equal JAX's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    make: Callable[[Any, Any], Callable]
    args: tuple
    match: tuple[str, ...] = ()

    def build(self, jnp, lax) -> tuple[Callable, tuple]:
        return self.make(jnp, lax), self.args


CASES: list[Case] = []
GRAD_CASES: list[Case] = []
JVP_CASES: list[Case] = []
ERROR_CASES: list[Case] = []


def _add(table: list[Case], name: str, make, *args, match=()) -> None:
    if any(c.name == name for c in table):
        raise ValueError(f"duplicate case name {name!r}")
    table.append(Case(name, make, tuple(args), tuple(match)))


# ---------------------------------------------------------------------------------------------
# Inputs


def real(shape, seed: int = 0) -> np.ndarray:
    i = np.arange(int(np.prod(shape)), dtype=np.float64)
    v = 2.0 * np.sin(0.7 * i + 0.3 + seed) + 0.25 * np.cos(1.9 * i + seed)
    return v.reshape(shape).astype(np.float32)


def cplx(shape, seed: int = 0) -> np.ndarray:
    return (real(shape, seed) + 1j * real(shape, seed + 7)).astype(np.complex64)


def ints(shape) -> np.ndarray:
    i = np.arange(int(np.prod(shape)))
    return ((i * 5) % 11 - 5).reshape(shape).astype(np.int32)


INPUTS = {"float32": real, "complex64": cplx, "int32": lambda s, seed=0: ints(s)}

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fftn", "ifftn", "rfftn", "irfftn"]
TWO_D = ["fft2", "ifft2", "rfft2", "irfft2"]
REAL_ONLY = {"rfft", "ihfft", "rfftn", "rfft2"}  # complex input is an error
NORMS = ["backward", "ortho", "forward"]


def _dtypes(fn: str) -> list[str]:
    return ["float32", "int32"] if fn in REAL_ONLY else ["float32", "complex64", "int32"]


def _main_input(fn: str, shape, seed: int = 0) -> np.ndarray:
    return real(shape, seed) if fn in REAL_ONLY else cplx(shape, seed)


# ---------------------------------------------------------------------------------------------
# Forward values

for _fn in ONE_D:
    for _dt in _dtypes(_fn):
        for _s in [(7,), (8,), (3, 5)]:
            _add(CASES, f"{_fn} {_dt}{_s}", lambda jnp, lax, f=_fn: getattr(jnp.fft, f),
                 INPUTS[_dt](_s))  # fmt: skip
    for _axis in (-1, 0):
        for _n in (None, 3, 9):
            _add(CASES, f"{_fn} (4,6) axis={_axis} n={_n}",
                 lambda jnp, lax, f=_fn, a=_axis, n=_n: lambda x: getattr(jnp.fft, f)(x, n, a),
                 _main_input(_fn, (4, 6)))  # fmt: skip
    for _norm in NORMS:
        for _s, _n in [((5,), None), ((3, 6), 5), ((2, 7), 8)]:
            _add(CASES, f"{_fn} {_s} n={_n} norm={_norm}",
                 lambda jnp, lax, f=_fn, n=_n, nm=_norm: lambda x: getattr(jnp.fft, f)(
                     x, n=n, norm=nm),
                 _main_input(_fn, _s, 1))  # fmt: skip

_ND_VARIANTS = [
    (None, None),
    (None, (0, 2)),
    ((5, 3), (0, 2)),
    ((2, 6), (2, 0)),
    (None, (-1, 0)),
    ((4,), (1,)),
    ((3, 3), None),
    ((2, 3, 7), None),
    (None, (1,)),
    (None, ()),
]
for _fn in N_D:
    for _dt in _dtypes(_fn):
        _add(CASES, f"{_fn} {_dt}(3,4,5)", lambda jnp, lax, f=_fn: getattr(jnp.fft, f),
             INPUTS[_dt]((3, 4, 5)))  # fmt: skip
    for _sz, _ax in _ND_VARIANTS:
        _add(CASES, f"{_fn} (3,4,5) s={_sz} axes={_ax}",
             lambda jnp, lax, f=_fn, s=_sz, a=_ax: lambda x: getattr(jnp.fft, f)(x, s, a),
             _main_input(_fn, (3, 4, 5)))  # fmt: skip
    for _norm in NORMS:
        _add(CASES, f"{_fn} (3,6) s=(4,5) norm={_norm}",
             lambda jnp, lax, f=_fn, nm=_norm: lambda x: getattr(jnp.fft, f)(
                 x, s=(4, 5), norm=nm),
             _main_input(_fn, (3, 6), 2))  # fmt: skip

for _fn in TWO_D:
    for _dt in _dtypes(_fn):
        _add(CASES, f"{_fn} {_dt}(2,3,4)", lambda jnp, lax, f=_fn: getattr(jnp.fft, f),
             INPUTS[_dt]((2, 3, 4)))  # fmt: skip
    for _sz, _ax in [((5, 3), (-2, -1)), (None, (0, 2)), ((2, 6), (2, 0)), ((3, 4), (1, 0))]:
        for _norm in (None, "ortho"):
            _add(CASES, f"{_fn} (2,3,4) s={_sz} axes={_ax} norm={_norm}",
                 lambda jnp, lax, f=_fn, s=_sz, a=_ax, nm=_norm: lambda x: getattr(jnp.fft, f)(
                     x, s, a, nm),
                 _main_input(_fn, (2, 3, 4), 3))  # fmt: skip

# Edge shapes: 0-d, empty arrays, one point, a single-frequency inverse.
_add(CASES, "fftn 0-d", lambda jnp, lax: jnp.fft.fftn, np.float32(1.5))
_add(CASES, "fft (0,4)", lambda jnp, lax: jnp.fft.fft, np.zeros((0, 4), np.float32))
_add(CASES, "fft (2,0) n=3", lambda jnp, lax: lambda x: jnp.fft.fft(x, n=3),
     np.zeros((2, 0), np.float32))  # fmt: skip
_add(CASES, "irfft n=1", lambda jnp, lax: lambda x: jnp.fft.irfft(x, n=1), cplx((3, 4)))
_add(CASES, "irfft one frequency", lambda jnp, lax: jnp.fft.irfft, cplx((2, 1)))
_add(CASES, "rfft length 1", lambda jnp, lax: jnp.fft.rfft, real((3, 1)))
_add(CASES, "fft bool", lambda jnp, lax: jnp.fft.fft, np.array([True, False, True]))
_add(CASES, "fft float16", lambda jnp, lax: jnp.fft.fft, np.arange(5, dtype=np.float16))
_add(CASES, "hfft float16", lambda jnp, lax: jnp.fft.hfft, np.arange(5, dtype=np.float16))
_add(CASES, "irfft uint8", lambda jnp, lax: jnp.fft.irfft, np.arange(5, dtype=np.uint8))

# Round trips.
_add(CASES, "irfft(rfft) odd", lambda jnp, lax: lambda x: jnp.fft.irfft(jnp.fft.rfft(x), 7),
     real((2, 7)))  # fmt: skip
_add(CASES, "ifftn(fftn)", lambda jnp, lax: lambda x: jnp.fft.ifftn(jnp.fft.fftn(x)),
     cplx((3, 4, 5)))  # fmt: skip

# lax.fft directly.
for _typ, _lengths, _shape in [
    ("FFT", (6,), (2, 6)),
    ("IFFT", (3, 5), (2, 3, 5)),
    ("RFFT", (6,), (2, 6)),
    ("RFFT", (3, 5), (2, 3, 5)),
    ("IRFFT", (6,), (2, 4)),
    ("IRFFT", (7,), (2, 4)),
    ("IRFFT", (3, 5), (2, 3, 3)),
    ("FFT", (2, 3, 4), (2, 3, 4)),
]:
    _x = real(_shape) if _typ == "RFFT" else cplx(_shape)
    _add(CASES, f"lax.fft {_typ} {_lengths}",
         lambda jnp, lax, t=_typ, n=_lengths: lambda x: lax.fft(x, getattr(lax.FftType, t), n),
         _x)  # fmt: skip
_add(CASES, "lax.fft 'fft' on int32", lambda jnp, lax: lambda x: lax.fft(x, "fft", (5,)),
     ints((2, 5)))  # fmt: skip
_add(CASES, "lax.fft 'rfft' on int32", lambda jnp, lax: lambda x: lax.fft(x, "rfft", (5,)),
     ints((2, 5)))  # fmt: skip
_add(CASES, "lax.fft 'irfft' on float32", lambda jnp, lax: lambda x: lax.fft(x, "IRFFT", (4,)),
     real((2, 3)))  # fmt: skip

# Frequencies and shifts.
for _n in (1, 2, 5, 8):
    for _d in (1.0, 0.1):
        _add(CASES, f"fftfreq n={_n} d={_d}",
             lambda jnp, lax, n=_n, d=_d: lambda: jnp.fft.fftfreq(n, d))  # fmt: skip
        _add(CASES, f"rfftfreq n={_n} d={_d}",
             lambda jnp, lax, n=_n, d=_d: lambda: jnp.fft.rfftfreq(n, d))  # fmt: skip
for _dtn in ("float16", "int32", "complex64"):
    for _f in ("fftfreq", "rfftfreq"):
        _add(
            CASES,
            f"{_f} n=5 dtype={_dtn}",
            lambda jnp, lax, f=_f, t=_dtn: lambda: getattr(jnp.fft, f)(5, dtype=getattr(jnp, t)),
        )
_add(CASES, "fftfreq traced d", lambda jnp, lax: lambda d: jnp.fft.fftfreq(4, d),
     np.float32(0.5))  # fmt: skip
_add(CASES, "rfftfreq traced d", lambda jnp, lax: lambda d: jnp.fft.rfftfreq(6, d),
     np.float32(0.25))  # fmt: skip
_add(CASES, "fftfreq n=0", lambda jnp, lax: lambda: jnp.fft.fftfreq(0))
for _f in ("fftshift", "ifftshift"):
    for _s, _ax in [((5,), None), ((6,), None), ((3, 4), None), ((3, 4), 0), ((3, 4), -1),
                    ((3, 4), (1,)), ((2, 3, 5), (2, 0))]:  # fmt: skip
        _add(
            CASES,
            f"{_f} {_s} axes={_ax}",
            lambda jnp, lax, f=_f, a=_ax: lambda x: getattr(jnp.fft, f)(x, a),
            real(_s),
        )
    _add(CASES, f"{_f} 0-d", lambda jnp, lax, f=_f: getattr(jnp.fft, f), np.float32(2.0))


# ---------------------------------------------------------------------------------------------
# Gradients of real losses, and jvps


def weights(shape, seed: int) -> np.ndarray:
    return (1.0 + 0.5 * real(shape, seed)).astype(np.float32)


def _abs2_loss(jnp, f):
    def loss(x):
        y = f(x)
        return jnp.sum(weights(y.shape, 3) * (y * jnp.conj(y)).real)

    return loss


def _parts_loss(jnp, f):
    def loss(x):
        y = f(x)
        if jnp.iscomplexobj(y):
            return jnp.sum(weights(y.shape, 4) * y.real + weights(y.shape, 5) * y.imag)
        return jnp.sum(weights(y.shape, 4) * y)

    return loss


_GRAD_FNS = [
    ("fft", {}),
    ("fft", {"n": 5, "norm": "ortho"}),
    ("ifft", {"n": 9}),
    ("ifft", {"norm": "forward", "axis": 0}),
    ("rfft", {}),
    ("rfft", {"n": 9}),
    ("rfft", {"n": 5, "axis": 0, "norm": "forward"}),
    ("irfft", {}),
    ("irfft", {"n": 7}),
    ("irfft", {"n": 4, "norm": "ortho"}),
    ("hfft", {}),
    ("hfft", {"n": 9, "norm": "ortho"}),
    ("ihfft", {}),
    ("ihfft", {"n": 7}),
    ("fftn", {"s": (3, 5), "axes": (1, 0)}),
    ("ifftn", {"norm": "ortho"}),
    ("rfftn", {}),
    ("rfftn", {"s": (5, 3), "axes": (1, 0)}),
    ("irfftn", {}),
    ("irfftn", {"s": (4, 5)}),
    ("irfftn", {"s": (3, 7), "axes": (1, 0)}),
    ("rfft2", {"norm": "ortho"}),
    ("irfft2", {"s": (4, 6), "norm": "forward"}),
    ("fft2", {"s": (3, 3)}),
]
for _fn, _kw in _GRAD_FNS:
    _dts = ["float32"] if _fn in REAL_ONLY else ["float32", "complex64"]
    for _dt in _dts:
        for _lname, _loss in [("abs2", _abs2_loss), ("parts", _parts_loss)]:
            _add(GRAD_CASES, f"{_lname} {_fn} {_kw} {_dt}",
                 lambda jnp, lax, f=_fn, kw=_kw, L=_loss: L(
                     jnp, lambda x: getattr(jnp.fft, f)(x, **kw)),
                 INPUTS[_dt]((4, 6), 2))  # fmt: skip
_add(GRAD_CASES, "parts lax.fft IRFFT (3,5)",
     lambda jnp, lax: _parts_loss(jnp, lambda x: lax.fft(x, "irfft", (3, 5))),
     cplx((2, 3, 3), 1))  # fmt: skip
_add(GRAD_CASES, "parts lax.fft RFFT (3,4)",
     lambda jnp, lax: _parts_loss(jnp, lambda x: lax.fft(x, "rfft", (3, 4))),
     real((2, 3, 4), 1))  # fmt: skip

for _fn, _kw in [("fft", {}), ("ifft", {"n": 5}), ("rfft", {"norm": "ortho"}), ("irfft", {}),
                 ("hfft", {"n": 5}), ("ihfft", {}), ("rfftn", {"axes": (0, 1)}),
                 ("irfftn", {"s": (4, 4)}), ("fft2", {"norm": "forward"})]:  # fmt: skip
    _x = _main_input(_fn, (3, 4), 4)
    _t = _main_input(_fn, (3, 4), 9)
    _add(
        JVP_CASES,
        f"jvp {_fn} {_kw}",
        lambda jnp, lax, f=_fn, kw=_kw: lambda x: getattr(jnp.fft, f)(x, **kw),
        _x,
        _t,
    )


# ---------------------------------------------------------------------------------------------
# Errors

_X = real((3, 4))
_C = cplx((3, 4))
for _fn in ONE_D + N_D + TWO_D:
    _add(ERROR_CASES, f"{_fn} norm='bad'",
         lambda jnp, lax, f=_fn: lambda x: getattr(jnp.fft, f)(x, norm="bad"), _X,
         match=(f"jnp.fft.{_fn}", "norm", "'bad'"))  # fmt: skip
for _fn in ONE_D:
    for _n in (0, -2):
        _add(ERROR_CASES, f"{_fn} n={_n}",
             lambda jnp, lax, f=_fn, n=_n: lambda x: getattr(jnp.fft, f)(x, n=n), _X,
             match=(f"jnp.fft.{_fn}", f"n={_n}", "positive"))  # fmt: skip
    _add(ERROR_CASES, f"{_fn} axis=2",
         lambda jnp, lax, f=_fn: lambda x: getattr(jnp.fft, f)(x, axis=2), _X,
         match=(f"jnp.fft.{_fn}", "axis 2", "dimension 2"))  # fmt: skip
    _add(ERROR_CASES, f"{_fn} axis=-3",
         lambda jnp, lax, f=_fn: lambda x: getattr(jnp.fft, f)(x, axis=-3), _X,
         match=(f"jnp.fft.{_fn}", "axis -3", "dimension 2"))  # fmt: skip
    _add(
        ERROR_CASES,
        f"{_fn} n=2.0",
        lambda jnp, lax, f=_fn: lambda x: getattr(jnp.fft, f)(x, n=2.0),
        _X,
    )
for _fn in ("fftn", "rfftn", "irfftn"):
    _add(ERROR_CASES, f"{_fn} s=(0, 2)",
         lambda jnp, lax, f=_fn: lambda x: getattr(jnp.fft, f)(x, s=(0, 2)), _X,
         match=(f"jnp.fft.{_fn}", "s=(0, 2)", "positive"))  # fmt: skip
    _add(ERROR_CASES, f"{_fn} axes=(0, 5)",
         lambda jnp, lax, f=_fn: lambda x: getattr(jnp.fft, f)(x, axes=(0, 5)), _X,
         match=(f"jnp.fft.{_fn}", "axis 5", "dimension 2"))  # fmt: skip
    _add(ERROR_CASES, f"{_fn} axes=(0, 0)",
         lambda jnp, lax, f=_fn: lambda x: getattr(jnp.fft, f)(x, axes=(0, 0)), _X,
         match=(f"jnp.fft.{_fn}", "repeated", "(0, 0)"))  # fmt: skip
    _add(ERROR_CASES, f"{_fn} s and axes lengths",
         lambda jnp, lax, f=_fn: lambda x: getattr(jnp.fft, f)(x, s=(2, 3), axes=(0,)), _X,
         match=(f"jnp.fft.{_fn}", "s=(2, 3)", "axes=(0,)"))  # fmt: skip
    _add(ERROR_CASES, f"{_fn} s longer than ndim",
         lambda jnp, lax, f=_fn: lambda x: getattr(jnp.fft, f)(x, s=(2, 2, 2)), _X,
         match=(f"jnp.fft.{_fn}", "s=(2, 2, 2)", "2 dimensions"))  # fmt: skip
_add(ERROR_CASES, "fft2 on 1-d", lambda jnp, lax: jnp.fft.fft2, real((3,)),
     match=("jnp.fft.fft2", "axis -2", "dimension 1"))  # fmt: skip
_add(ERROR_CASES, "fft on 0-d", lambda jnp, lax: jnp.fft.fft, np.float32(1.0),
     match=("jnp.fft.fft", "axis -1", "dimension 0"))  # fmt: skip
_add(ERROR_CASES, "rfft complex", lambda jnp, lax: jnp.fft.rfft, _C,
     match=("jnp.fft.rfft", "complex64"))  # fmt: skip
_add(ERROR_CASES, "ihfft complex", lambda jnp, lax: jnp.fft.ihfft, _C,
     match=("jnp.fft.ihfft", "complex64"))  # fmt: skip
_add(ERROR_CASES, "rfft float16", lambda jnp, lax: jnp.fft.rfft, _X.astype(np.float16),
     match=("jnp.fft.rfft", "float16"))  # fmt: skip
_add(ERROR_CASES, "lax.fft RFFT complex", lambda jnp, lax: lambda x: lax.fft(x, "rfft", (4,)), _C,
     match=("RFFT", "complex64"))  # fmt: skip
_add(ERROR_CASES, "fft list input", lambda jnp, lax: lambda: jnp.fft.fft([1.0, 2.0]),
     match=("jnp.fft.fft",))  # fmt: skip
_add(ERROR_CASES, "lax.fft unknown type", lambda jnp, lax: lambda x: lax.fft(x, "foo", (4,)),
     _C, match=("'foo'",))  # fmt: skip
_add(ERROR_CASES, "lax.fft int type", lambda jnp, lax: lambda x: lax.fft(x, 0, (4,)), _C,
     match=("fft_type",))  # fmt: skip
_add(ERROR_CASES, "lax.fft lengths mismatch", lambda jnp, lax: lambda x: lax.fft(x, "fft", (5,)),
     _C, match=("(3, 4)", "(5,)"))  # fmt: skip
_add(ERROR_CASES, "lax.fft too many lengths",
     lambda jnp, lax: lambda x: lax.fft(x, "fft", (1, 3, 4)), _C,
     match=("(3, 4)", "(1, 3, 4)"))  # fmt: skip
_add(ERROR_CASES, "lax.fft IRFFT leading mismatch",
     lambda jnp, lax: lambda x: lax.fft(x, "irfft", (5, 6)), _C,
     match=("IRFFT", "(3, 4)", "(5, 6)"))  # fmt: skip
_add(ERROR_CASES, "fftfreq list n", lambda jnp, lax: lambda: jnp.fft.fftfreq([4]),
     match=("jnp.fft.fftfreq", "[4]"))  # fmt: skip
_add(ERROR_CASES, "rfftfreq list n", lambda jnp, lax: lambda: jnp.fft.rfftfreq([4]),
     match=("jnp.fft.rfftfreq", "[4]"))  # fmt: skip
_add(ERROR_CASES, "fftshift axes=3", lambda jnp, lax: lambda x: jnp.fft.fftshift(x, axes=3), _X,
     match=("jnp.fft.fftshift", "axis 3", "dimension 2"))  # fmt: skip
_add(ERROR_CASES, "ifftshift axes=(0, -3)",
     lambda jnp, lax: lambda x: jnp.fft.ifftshift(x, axes=(0, -3)), _X,
     match=("jnp.fft.ifftshift", "axis -3", "dimension 2"))  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Jaxprs that print as JAX's. (fftfreq is left out: JAX's jnp.remainder is an inner jit, which
# spmd's is not, and that is jnp.remainder's business.)

JAXPR_CASES: list[str] = [c.name for c in CASES if not c.name.startswith("fftfreq")]
