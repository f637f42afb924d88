"""More float kernels that compute as XLA on CPU: ``exp``, ``tan`` and ``pow``, bit for bit.

Companions of ``spmd._src.lax.random_bits``' ``xla_log``/``xla_erf_inv`` kernels, for
``spmd.random``'s transformed distributions (Cauchy, log-normal, Pareto, Weibull, ...):

- ``xla_exp``: XLA's CPU code generator emits its own float32 ``exp``: a Cephes-style
  reduction ``x = n ln2 + a`` (``ln2`` in two parts, fused multiply-adds), a degree-5
  polynomial, and a result scaled by ``2**n`` whose denormals are flushed to zero. (A lone
  ``exp`` of 3, 5, 6 or 7 elements, or such a tail after whole vectors of 8, is the C library's
  ``expf`` instead; samplers' exps are fused with their draws and never take that path.)
- ``xla_tan`` and ``xla_pow``: XLA's CPU code calls the C library's ``tanf``/``powf`` element by
  element, so these call the same functions (from a NumPy ufunc loop whose data pointer is the C
  function, made through NumPy's C API with ctypes); where the C library cannot be
  loaded they round NumPy's float64 results. XLA runs with denormals flushed, so ``pow``'s
  denormal operands and results are zeros (``tanf`` returns a tiny operand untouched).

float16 and bfloat16 go through float32 (as XLA does); float64 uses NumPy.

>>> xla_exp(np.float32(1.0))
Array(2.7182817, dtype=float32)
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

import numpy as np

from spmd._src import core
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad
from spmd._src.interpreters.ad import Zero
from spmd._src.lax import elementwise as _ew
from spmd._src.lax import random_bits as _rb
from spmd._src.lax import shape as _shape
from spmd._src.lax.rules import defbroadcasting, defjvp2
from spmd._src.lax.utils import broadcasting_shape, check_dtype_kind, float_dtypes

_F32 = np.float32
_c = _rb._c

# ---------------------------------------------------------------------------------------------
# NumPy kernels

_LOG2E = _F32(1.44269504088896341)
_LN2_HI = _F32(0.693359375)  # exact times any |n| <= 127
_LN2_LO = _F32(-2.12194440e-4)
_EXP_POLY = tuple(
    _F32(v)
    for v in (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
              1.6666665459e-1, 5.0000001201e-1)
)  # fmt: skip


def exp_f32(x) -> np.ndarray:
    """XLA CPU's float32 ``exp``: ``2**n * p(a)`` for ``x = n ln2 + a``, with the input clamped
    to [-87.8, 88.8] and ``n`` to [-127, 127] (large inputs overflow to inf; results below the
    smallest normal flush to 0)."""
    fma = _rb.fma32
    x = np.asarray(x, _F32)
    with np.errstate(all="ignore"):
        xc = np.minimum(np.maximum(x, _F32(-87.8)), _F32(88.8))
        n = np.floor(fma(xc, _LOG2E, _F32(0.5)))
        n = np.minimum(np.maximum(n, _F32(-127)), _F32(127))
        a = fma(-_LN2_LO, n, xc - _LN2_HI * n)
        p = fma(a, _EXP_POLY[0], _EXP_POLY[1])
        for coef in _EXP_POLY[2:]:
            p = fma(p, a, coef)
        p = _F32(1) + fma(p, a * a, a)
        scale = ((n.astype(np.int32) + 127).astype(np.uint32) << np.uint32(23)).view(_F32)
        out = (p * scale).astype(_F32)
    # NaN passes through the clamps (np.minimum/np.maximum propagate it), as in XLA.
    return np.where(np.abs(out) < np.finfo(_F32).tiny, _F32(0), out)


@functools.cache
def _libm():
    name = ctypes.util.find_library("m")
    try:
        return ctypes.CDLL(name) if name else None
    except OSError:  # pragma: no cover - no loadable C math library
        return None


# NumPy's ufunc C API (a stable ABI: the slots' numbers never change): slot 1 makes a ufunc
# from C loops; slots 6 and 14 are its generic loops that call a ``float f(float)`` and a
# ``float f(float, float)`` stored as the loop's data pointer, once per element.
_UFUNC_FROM_FUNC_AND_DATA, _LOOP_F_F, _LOOP_FF_F = 1, 6, 14
_NPY_FLOAT = 11


@functools.cache
def _libm_ufunc(name: str, nargs: int):
    """The C library's float32 function ``name`` as a NumPy ufunc (``ff->f`` or ``f->f``), and the
    ctypes buffers it points into (kept alive with it in the cache): NumPy's
    generic loop calls that very C function on every element, so the results are the
    per-element calls' bit for bit, without a Python call per element. None when the C library
    or NumPy's ufunc C API cannot be reached (then :func:`_libm_f32` loops in Python)."""
    lib = _libm()
    try:
        try:
            from numpy._core import _multiarray_umath as umath
        except ImportError:  # pragma: no cover - NumPy 1.x
            from numpy.core import _multiarray_umath as umath
        # A private prototype: setting argtypes on ctypes.pythonapi's would change it for all.
        proto = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)
        get_pointer = proto(("PyCapsule_GetPointer", ctypes.pythonapi))
        api = ctypes.cast(get_pointer(umath._UFUNC_API, None), ctypes.POINTER(ctypes.c_void_p))
        fn = ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
    except (AttributeError, ImportError, TypeError, ValueError):  # pragma: no cover
        return None
    make = ctypes.PYFUNCTYPE(
        ctypes.py_object, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int,
        ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int,
    )(api[_UFUNC_FROM_FUNC_AND_DATA])  # fmt: skip
    # The ufunc keeps these pointers, not copies: the buffers live as long as the cache entry.
    loops = (ctypes.c_void_p * 1)(api[_LOOP_F_F if nargs == 1 else _LOOP_FF_F])
    data = (ctypes.c_void_p * 1)(fn)
    types = ctypes.create_string_buffer(bytes([_NPY_FLOAT] * (nargs + 1)), nargs + 1)
    uname, doc = ctypes.create_string_buffer(name.encode()), ctypes.create_string_buffer(b"")
    ufunc = make(ctypes.addressof(loops), ctypes.addressof(data), types, 1, nargs, 1, -1,
                 uname, doc, 0)  # fmt: skip
    return ufunc, (loops, data, types, uname, doc)


def _libm_f32(name: str, nargs: int, fallback, vectorized: bool = True):
    """The C library's float32 function ``name`` over broadcast NumPy arrays: through a ufunc
    whose loop calls it (``vectorized``), else one ctypes call per element (the reference the
    tests hold the ufunc to); NumPy's float64 results rounded when there is no C library."""

    def kernel(*args):
        args = np.broadcast_arrays(*(np.asarray(a, _F32) for a in args))
        lib = _libm()
        if lib is None:
            with np.errstate(all="ignore"):
                return fallback(*(a.astype(np.float64) for a in args)).astype(_F32)
        made = _libm_ufunc(name, nargs) if vectorized else None
        if made is not None:
            with np.errstate(all="ignore"):
                return np.asarray(made[0](*args), _F32)
        fn = getattr(lib, name)
        fn.restype = ctypes.c_float
        fn.argtypes = [ctypes.c_float] * nargs
        flat = [a.ravel().tolist() for a in args]
        out = np.fromiter(map(fn, *flat), _F32, count=args[0].size)
        return out.reshape(args[0].shape)

    return kernel


def _ftz(x: np.ndarray) -> np.ndarray:
    """Denormals as (signed) zeros: XLA's CPU code runs with the processor flushing denormal
    operands and results (DAZ and FTZ)."""
    x = np.asarray(x, _F32)
    with np.errstate(invalid="ignore"):  # inf * 0 is computed, then not selected
        return np.where(np.abs(x) < np.finfo(_F32).tiny, x * _F32(0), x).astype(_F32)


tan_f32 = _libm_f32("tanf", 1, np.tan)
_powf = _libm_f32("powf", 2, np.power)
# The per-element ctypes calls: the executable spec of the two kernels above.
tan_f32_reference = _libm_f32("tanf", 1, np.tan, vectorized=False)
_powf_reference = _libm_f32("powf", 2, np.power, vectorized=False)


def pow_f32(x, y, _powf=_powf) -> np.ndarray:
    """The C library's ``powf`` as XLA's code calls it: denormal operands read as zero and a
    denormal result flushed to zero."""
    return _ftz(_powf(_ftz(x), _ftz(y)))


def pow_f32_reference(x, y) -> np.ndarray:
    """:func:`pow_f32` through one ctypes call per element (the spec of the ufunc path)."""
    return pow_f32(x, y, _powf_reference)


# ---------------------------------------------------------------------------------------------
# xla_exp


def xla_exp(x):
    """``e**x``, computed as XLA CPU computes it (bit-exact in float32)."""
    return xla_exp_p.bind(x)


xla_exp_p = _rb._xla_unop("xla_exp", exp_f32, np.exp)
defjvp2(xla_exp_p, lambda g, ans, x: _ew.mul(g, ans))


# ---------------------------------------------------------------------------------------------
# xla_tan


def xla_tan(x):
    """The tangent, computed as XLA CPU computes it (the C library's ``tanf``)."""
    return xla_tan_p.bind(x)


xla_tan_p = _rb._xla_unop("xla_tan", tan_f32, np.tan)
defjvp2(xla_tan_p, lambda g, ans, x: _ew.mul(g, _ew.add(_rb._const(x, 1), _ew.square(ans))))


# ---------------------------------------------------------------------------------------------
# xla_pow


def xla_pow(x, y):
    """``x ** y`` for float ``x`` and ``y`` of one dtype, computed as XLA CPU computes it (the C
    library's ``powf``). Operands broadcast like lax's n-ary elementwise operations."""
    return xla_pow_p.bind(x, y)


def _broadcast(x, shape):
    xs = tuple(np.shape(x))
    if xs == shape:
        return x
    return _shape.broadcast_in_dim(x, shape, tuple(range(len(shape) - len(xs), len(shape))))


def _xla_pow_abstract_eval(x, y):
    check_dtype_kind("xla_pow", float_dtypes, x, y)
    if x.dtype != y.dtype:
        raise TypeError(
            f"xla_pow requires arguments to have the same dtypes, got {x.dtype.name}, "
            f"{y.dtype.name}"
        )
    shape = broadcasting_shape("xla_pow", x.shape, y.shape)
    return ShapedArray(shape, x.dtype, x.weak_type and y.weak_type)


def _xla_pow_impl(x, y):
    shape = np.broadcast_shapes(np.shape(x), np.shape(y))
    return np.broadcast_to(_rb._via_f32(pow_f32, np.power)(x, y), shape).copy()


def _pow_jvp(primals, tangents, primal_out):
    x, y = primals
    shape = tuple(np.shape(primal_out))
    xb, yb = _broadcast(x, shape), _broadcast(y, shape)
    terms = []
    if type(tangents[0]) is not Zero:  # y * x ** (y - 1)
        d = _ew.mul(yb, xla_pow(xb, _ew.sub(yb, _rb._const(yb, 1))))
        terms.append(_ew.mul(_broadcast(tangents[0], shape), d))
    if type(tangents[1]) is not Zero:  # log(x) * x ** y
        d = _ew.mul(_ew.log(xb), primal_out)
        terms.append(_ew.mul(_broadcast(tangents[1], shape), d))
    if not terms:
        return Zero(ad.tangent_aval(core.get_aval(primal_out)))
    return terms[0] if len(terms) == 1 else _ew.add(*terms)


xla_pow_p = core.Primitive("xla_pow")
xla_pow_p.def_impl(_xla_pow_impl)
xla_pow_p.def_abstract_eval(_xla_pow_abstract_eval)
defbroadcasting(xla_pow_p)
ad.primitive_jvps[xla_pow_p] = _pow_jvp

# ---------------------------------------------------------------------------------------------
# xla_fma16


def fma_f16(a, b, c) -> np.ndarray:
    """``a * b + c`` rounded once to float16 (the product is exact in float64; the sum is
    exact unless the exponents are far apart, and then the rounding error decides a tie)."""
    p = np.multiply(a, b, dtype=np.float64)
    c = np.asarray(c, np.float64)
    r = p + c
    with np.errstate(all="ignore"):
        bb = r - p
        err = (p - (r - bb)) + (c - bb)  # p + c == r + err exactly (TwoSum)
        out = np.asarray(r.astype(np.float16))
        d = r - out.astype(np.float64)
        toward = np.nextafter(out, np.where(d > 0, np.float16(np.inf), np.float16(-np.inf)))
        tie = (d != 0) & (2 * d == toward.astype(np.float64) - out.astype(np.float64))
        # On a tie that r only reached by rounding, the exact sum lies on err's side of it.
        fix = tie & (err != 0)
    out = np.where(fix & ((err > 0) == (d > 0)), toward, out)
    return np.asarray(out, np.float16)


def xla_fma16(a, b, c):
    """``a * b + c`` for float16 operands of one shape, rounded once: XLA CPU's code on a
    processor with AVX512-FP16 computes float16 natively, and LLVM fuses a multiply feeding an
    add into a float16 FMA (elsewhere float16 is computed in float32, rounded per operation)."""
    return xla_fma16_p.bind(a, b, c)


def _xla_fma16_abstract_eval(a, b, c):
    f16 = np.dtype(np.float16)
    if not a.dtype == b.dtype == c.dtype == f16:
        raise TypeError(
            f"xla_fma16 requires float16 arguments, got {a.dtype.name}, {b.dtype.name}, "
            f"{c.dtype.name}"
        )
    shape = broadcasting_shape("xla_fma16", a.shape, b.shape, c.shape)
    return ShapedArray(shape, f16, a.weak_type and b.weak_type and c.weak_type)


def _xla_fma16_impl(a, b, c):
    shape = np.broadcast_shapes(np.shape(a), np.shape(b), np.shape(c))
    return np.broadcast_to(fma_f16(a, b, c), shape).copy()


xla_fma16_p = core.Primitive("xla_fma16")
xla_fma16_p.def_impl(_xla_fma16_impl)
xla_fma16_p.def_abstract_eval(_xla_fma16_abstract_eval)
defbroadcasting(xla_fma16_p)
ad.primitive_jvps[xla_fma16_p] = ad.primitive_jvps[_rb.xla_fma_p]


__all__ = [
    "exp_f32",
    "fma_f16",
    "pow_f32",
    "tan_f32",
    "xla_exp",
    "xla_exp_p",
    "xla_fma16",
    "xla_fma16_p",
    "xla_pow",
    "xla_pow_p",
    "xla_tan",
    "xla_tan_p",
]
