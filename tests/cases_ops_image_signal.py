"""Golden cases for ``jax.ops`` (segment reductions), ``jax.image`` (resize,
scale_and_translate) and ``jax.scipy.signal`` (convolutions, detrend, stft/istft/csd/welch):
one list, run by JAX and by spmd.

Each case is a name, a maker ``make(jnp, lax) -> fn`` and a tuple of NumPy arguments. A maker
reaches the module under test with ``mod(jnp, "ops")`` (``jax.ops`` or ``spmd.ops``, by the
package ``jnp`` belongs to). ``tests/golden_gen/ops_image_signal_gen.py`` (under real JAX)
records every output leaf of ``fn(*args)`` and ``jax.jit(fn)(*args)``, the gradient of the
case's loss (a weighted sum of the float outputs) for cases with ``grad`` argnums, or the
exception class JAX raises, into ``tests/golden/ops_image_signal.json``;
``tests/test_ops_image_signal.py`` (no JAX) runs the cases with spmd and compares. The ``Case``
record, ``flatten`` and the loss are those of ``cases_linalg_more``. Inputs are deterministic.
"""

from __future__ import annotations

import importlib

import ml_dtypes
import numpy as np
from cases_linalg_more import Case, flatten, weighted_sum  # noqa: F401 -- shared with the test

CASES: list[Case] = []

# Cases whose floats need a looser relative tolerance than the test's default (half floats, and
# kernels summed in another order over values that cancel).
TOL: dict[str, float] = {}


def case(name: str, make, *args, tol: float | None = None, **kw) -> None:
    if any(c.name == name for c in CASES):
        raise ValueError(f"duplicate case name {name!r}")
    if tol is not None:
        TOL[name] = tol
    CASES.append(Case(name, make, tuple(args), **kw))


def mod(jnp, path: str):
    """``jax.<path>`` or ``spmd.<path>``: the package of ``jnp``'s."""
    return importlib.import_module(f"{jnp.__name__.split('.')[0]}.{path}")


def F(path: str, name: str, *pre, **kw):
    """Maker of ``<package>.<path>.<name>(*pre, *args, **kw)``."""
    return lambda jnp, lax: lambda *a: getattr(mod(jnp, path), name)(*pre, *a, **kw)


def OPS(name, **kw):
    return F("ops", name, **kw)


def IMG(name, **kw):
    return F("image", name, **kw)


def ST(shape, spatial_dims, method, **kw):
    """Maker of ``scale_and_translate(x, shape, spatial_dims, scale, translation, method)``
    with the image, scale and translation as arguments."""
    return lambda jnp, lax: (
        lambda x, s, t: mod(jnp, "image").scale_and_translate(
            x, shape, spatial_dims, s, t, method, **kw
        )
    )


def SIG(name, **kw):
    return F("scipy.signal", name, **kw)


def SIGW(name, **kw):
    """Maker of ``<package>.scipy.signal.<name>(x, window=w, **kw)``: the window an argument."""
    return lambda jnp, lax: lambda x, w: getattr(mod(jnp, "scipy.signal"), name)(x, window=w, **kw)


f32 = np.float32
bf16 = ml_dtypes.bfloat16

# ---------------------------------------------------------------------------------------------
# jax.ops: segment_sum / max / min / prod

D6 = np.array([1.0, -2.0, 3.5, 0.25, 4.0, -1.5], f32)
D6T = np.array([1.0, 1.0, 2.0, 3.0, 4.0, 5.0], f32)  # a tie in segment 0
IDS = np.array([0, 0, 1, 3, 5, 2], np.int32)  # 5 is past num_segments=4: dropped
IDS_NEG = np.array([0, -1, 1, 3, 5, 2], np.int32)  # -1 too (not counted from the end)
IDS_SORTED = np.array([0, 0, 1, 1, 1, 3], np.int32)
D62 = np.arange(12, dtype=f32).reshape(6, 2) / 4 - 1
I6 = np.array([3, -7, 2, 9, 0, 5], np.int32)
B6 = np.array([True, False, True, True, False, True])

for red in ("sum", "max", "min", "prod"):
    g = (0,) if red != "prod" else None
    case(f"segment_{red}", OPS(f"segment_{red}", num_segments=4), D6, IDS, grad=g)
    case(f"segment_{red}_7", OPS(f"segment_{red}", num_segments=7), D6, IDS)  # empty segments
    case(f"segment_{red}_neg_ids", OPS(f"segment_{red}", num_segments=4), D6, IDS_NEG)
    case(f"segment_{red}_clip", OPS(f"segment_{red}", num_segments=4, mode="clip"), D6, IDS_NEG)
    case(f"segment_{red}_2d", OPS(f"segment_{red}", num_segments=5), D62, IDS, grad=g)
    case(f"segment_{red}_int32", OPS(f"segment_{red}", num_segments=7), I6, IDS)
    case(
        f"segment_{red}_bucket",
        OPS(f"segment_{red}", num_segments=6, bucket_size=4),
        D6,
        IDS,
        grad=g,
    )
    case(
        f"segment_{red}_sorted",
        OPS(f"segment_{red}", num_segments=4, indices_are_sorted=True),
        D6,
        IDS_SORTED,
    )
    case(f"segment_{red}_none", OPS(f"segment_{red}"), D6, IDS, jit=False)
    case(f"segment_{red}_zero", OPS(f"segment_{red}", num_segments=0), D62, IDS)
case("segment_max_ties", OPS("segment_max", num_segments=4), D6T, IDS, grad=(0,))
case("segment_min_ties", OPS("segment_min", num_segments=4), D6T, IDS, grad=(0,))
case("segment_prod_unique", OPS("segment_prod", num_segments=7, unique_indices=True),
     D6, np.array([0, 1, 2, 3, 4, 6], np.int32), grad=(0,))  # fmt: skip
case("segment_sum_pib", OPS("segment_sum", num_segments=4, mode="promise_in_bounds"),
     D6, IDS_SORTED)  # fmt: skip
case("segment_sum_int8_wraps", OPS("segment_sum", num_segments=4),
     (np.arange(6) * 50).astype(np.int8), IDS)  # fmt: skip
case("segment_sum_uint_ids", OPS("segment_sum", num_segments=4), D6, IDS.astype(np.uint8))
case("segment_sum_complex", OPS("segment_sum", num_segments=4), D6 * (1 + 2j), IDS, grad=(0,))
case("segment_max_uint8", OPS("segment_max", num_segments=7), np.arange(6, dtype=np.uint8), IDS)
case("segment_min_uint8", OPS("segment_min", num_segments=7), np.arange(6, dtype=np.uint8), IDS)
case("segment_max_bool", OPS("segment_max", num_segments=7), B6, IDS)
case("segment_min_bool", OPS("segment_min", num_segments=7), B6, IDS)
case("segment_max_f16", OPS("segment_max", num_segments=7), D6.astype(np.float16), IDS)
case("segment_max_nan", OPS("segment_max", num_segments=2),
     np.array([np.nan, 1.0, 2.0], f32), np.array([0, 0, 1], np.int32))  # fmt: skip
case("segment_sum_empty_data", OPS("segment_sum", num_segments=2),
     np.zeros((0, 3), f32), np.zeros(0, np.int32))  # fmt: skip
# Bad input
case("segment_sum_float_ids", OPS("segment_sum", num_segments=4), D6, IDS.astype(f32),
     error="TypeError", match="segment_sum.*integer.*float32")  # fmt: skip
case("segment_sum_length_mismatch", OPS("segment_sum", num_segments=4), D6[:5], IDS,
     error="ValueError", match=r"segment_sum.*\(6,\).*\(5,\)")  # fmt: skip
case("segment_sum_2d_ids", OPS("segment_sum", num_segments=4), D62, IDS.reshape(3, 2),
     error="ValueError", match=r"segment_sum.*\(3, 2\)")  # fmt: skip
case("segment_sum_bool", OPS("segment_sum", num_segments=4), B6, IDS,
     error="TypeError", match="segment_sum.*bool")  # fmt: skip
case("segment_prod_bool", OPS("segment_prod", num_segments=4), B6, IDS,
     error="TypeError", match="segment_prod.*bool")  # fmt: skip
case("segment_sum_negative_count", OPS("segment_sum", num_segments=-1), D6, IDS,
     error="ValueError", match="segment_sum.*non-negative.*-1")  # fmt: skip
case("segment_sum_float_count", OPS("segment_sum", num_segments=4.0), D6, IDS,
     error="TypeError", match="float")  # fmt: skip
case("segment_sum_bucket_zero", OPS("segment_sum", num_segments=4, bucket_size=0), D6, IDS,
     error="ZeroDivisionError", match="")  # fmt: skip
case("segment_sum_bucket_negative", OPS("segment_sum", num_segments=4, bucket_size=-2), D6,
     IDS, error="TypeError", match="segment_sum.*bucket_size.*-2")  # fmt: skip
case("segment_sum_bad_mode", OPS("segment_sum", num_segments=4, mode="wrap"), D6, IDS,
     error="ValueError", match="wrap")  # fmt: skip

# ---------------------------------------------------------------------------------------------
# jax.image: resize, scale_and_translate

IMG34 = (np.arange(12, dtype=f32).reshape(3, 4) ** 1.5 / 4 - 1).astype(f32)
IMG567 = np.sin(np.arange(5 * 6 * 7, dtype=f32) * 0.37).reshape(5, 6, 7).astype(f32)
METHODS = ["nearest", "linear", "cubic", "lanczos3", "lanczos5", "cubic-pytorch", "area"]

for m in METHODS:
    g = None if m == "nearest" else (0,)
    case(f"resize_{m}_up", IMG("resize", shape=(5, 7), method=m), IMG34, grad=g)
    case(f"resize_{m}_down", IMG("resize", shape=(5, 3, 4), method=m), IMG567, grad=g)
    case(f"resize_{m}_mixed", IMG("resize", shape=(5, 9, 3), method=m), IMG567)
    if m != "nearest":
        case(f"resize_{m}_down_no_aa",
             IMG("resize", shape=(5, 4, 2), method=m, antialias=False), IMG567)  # fmt: skip
for alias in ["bilinear", "trilinear", "triangle", "bicubic", "tricubic", "bicubic-pytorch"]:
    case(f"resize_alias_{alias}", IMG("resize", shape=(4, 6), method=alias), IMG34)
case("resize_int", IMG("resize", shape=(5, 7), method="linear"), np.arange(12).reshape(3, 4))
case("resize_int_nearest", IMG("resize", shape=(5, 7), method="nearest"),
     np.arange(12, dtype=np.int32).reshape(3, 4))  # fmt: skip
case("resize_uint8_cubic", IMG("resize", shape=(5, 7), method="cubic"),
     (np.arange(12) * 20).astype(np.uint8).reshape(3, 4))  # fmt: skip
case("resize_bool", IMG("resize", shape=(5, 7), method="linear"), IMG34 > 0.5)
case("resize_bool_nearest", IMG("resize", shape=(5, 7), method="nearest"), IMG34 > 0.5)
case("resize_complex", IMG("resize", shape=(5, 7), method="lanczos3"), IMG34 * (1 - 0.5j),
     grad=(0,))  # fmt: skip
case("resize_f16", IMG("resize", shape=(5, 7), method="linear"), IMG34.astype(np.float16),
     tol=2e-3)  # fmt: skip
case("resize_bf16", IMG("resize", shape=(5, 7), method="lanczos3"), IMG34.astype(bf16), tol=2e-2)
case("resize_same_shape", IMG("resize", shape=(3, 4), method="cubic"), IMG34)
case("resize_same_shape_int", IMG("resize", shape=(3, 4), method="linear"),
     np.arange(12, dtype=np.int32).reshape(3, 4))  # fmt: skip
case("resize_to_empty", IMG("resize", shape=(0, 7), method="linear"), IMG34)
case("resize_nearest_down_odd", IMG("resize", shape=(2, 3), method="nearest"), IMG34)
case("resize_enum", lambda jnp, lax: lambda x: mod(jnp, "image").resize(
    x, (5, 7), mod(jnp, "image").ResizeMethod.LANCZOS5), IMG34)  # fmt: skip

ST_PARAMS = [((1.5, 0.7), (0.3, -1.0)), ((0.4, 2.0), (1.0, 0.5)), ((2.0, 0.5), (-3.0, 2.0))]
for m in METHODS[1:]:
    for k, (sc, tr) in enumerate(ST_PARAMS):
        for aa in (True, False):
            case(
                f"scale_translate_{m}_{k}_{'aa' if aa else 'no_aa'}",
                ST((5, 8, 9), (1, 2), m, antialias=aa),
                IMG567,
                np.array(sc, f32),
                np.array(tr, f32),
                grad=(0, 1, 2) if k == 0 else None,
            )
case("scale_translate_one_dim",
     ST((5, 4), (0,), "linear"),
     IMG34, np.array([1.5], f32), np.array([0.0], f32), grad=(0, 1, 2))  # fmt: skip
case("scale_translate_shape_of_non_spatial_ignored",
     ST((5, 7), (0,), "linear"),
     IMG34, np.array([1.5], f32), np.array([0.0], f32))  # fmt: skip
case("scale_translate_negative_dims",
     ST((5, 7), (-2, -1), "cubic"),
     IMG34, np.array([1.5, 1.7], f32), np.array([0.25, 0.0], f32))  # fmt: skip
case("scale_translate_int_image",
     ST((5, 7), (0, 1), "linear"),
     np.arange(12, dtype=np.int32).reshape(3, 4), np.array([1.5, 1.7], f32),
     np.array([0.0, 0.0], f32))  # fmt: skip
case("scale_translate_far_outside_pytorch",
     ST((3, 4), (0,), "cubic-pytorch",
         antialias=False),
     np.eye(4, dtype=f32), np.array([0.5], f32), np.array([-3.0], f32))  # fmt: skip
# Bad input
case("resize_wrong_rank", IMG("resize", shape=(5,), method="linear"), IMG34,
     error="ValueError", match=r"resize.*\(5,\).*\(3, 4\)")  # fmt: skip
case("resize_unknown_method", IMG("resize", shape=(5, 7), method="foo"), IMG34,
     error="ValueError", match="foo")  # fmt: skip
case("resize_method_not_a_name", IMG("resize", shape=(5, 7), method=3), IMG34,
     error="AssertionError", match="resize.*method.*3")  # fmt: skip
case("scale_translate_nearest",
     ST((5, 7), (0, 1), "nearest"),
     IMG34, np.array([1.5, 1.7], f32), np.array([0.0, 0.0], f32),
     error="ValueError", match="Nearest")  # fmt: skip
case("scale_translate_scale_length",
     ST((5, 7), (0, 1), "linear"),
     IMG34, np.array([1.5], f32), np.array([0.0, 0.0], f32),
     error="AssertionError", match=r"scale_and_translate.*scale.*\(2,\).*\(1,\)")  # fmt: skip
case("scale_translate_wrong_rank",
     ST((5,), (0,), "linear"),
     IMG34, np.array([1.5], f32), np.array([0.0], f32),
     error="ValueError", match=r"scale_and_translate.*\(5,\).*\(3, 4\)")  # fmt: skip

# ---------------------------------------------------------------------------------------------
# jax.scipy.signal: convolutions and detrend

X5 = np.array([1.0, 2, 3, 2, 1], f32)
Y3 = np.array([1.0, 3, -2], f32)
A34 = np.arange(12, dtype=f32).reshape(3, 4) / 2 - 1
B22 = np.array([[1.0, 2], [0, -1]], f32)
B33 = np.array([[1.0, 2, 3], [0, -1, 4], [2, 2, 1]], f32)
A45 = np.arange(20, dtype=f32).reshape(4, 5) ** 1.2 / 5
B24 = np.array([[1.0, 2, 3, 5], [0, -1, 4, 1]], f32)

for m in ("full", "same", "valid"):
    for fn in ("convolve", "correlate"):
        case(f"{fn}_{m}", SIG(fn, mode=m), X5, Y3, grad=(0, 1))
        case(f"{fn}_{m}_swapped", SIG(fn, mode=m), Y3, X5)
        case(f"{fn}_{m}_2d", SIG(fn, mode=m), A34, B22, grad=(0, 1))
        case(f"{fn}_{m}_fft", SIG(fn, mode=m, method="fft"), A45, B24, grad=(0, 1))
        case(f"{fn}_{m}_direct", SIG(fn, mode=m, method="direct"), A45, B33)
        case(f"{fn}_{m}_complex", SIG(fn, mode=m), X5 * (1 + 2j), Y3 * (1 - 1j), grad=(0, 1))
    for fn in ("convolve2d", "correlate2d"):
        case(f"{fn}_{m}", SIG(fn, mode=m), A34, B22, grad=(0, 1))
        case(f"{fn}_{m}_odd", SIG(fn, mode=m), A45, B33)
        case(f"{fn}_{m}_wide", SIG(fn, mode=m), A45, B24)
        case(f"{fn}_{m}_swapped", SIG(fn, mode=m), B22, A34)
        case(f"{fn}_{m}_complex", SIG(fn, mode=m), A34 * 1j + 1, B22 * (1 - 1j))
    case(f"fftconvolve_{m}", SIG("fftconvolve", mode=m), A45, B24, grad=(0, 1))
    case(f"fftconvolve_{m}_1d", SIG("fftconvolve", mode=m), X5, Y3)
    case(f"fftconvolve_{m}_axes", SIG("fftconvolve", mode=m, axes=1), A45[:2], B24)
case("convolve_int", SIG("convolve"), X5.astype(np.int32), Y3.astype(np.int32))
case("convolve_bool", SIG("convolve"), X5 > 1, Y3 > 0)
case("convolve_f16", SIG("convolve"), X5.astype(np.float16), Y3.astype(np.float16), tol=2e-3)
case("convolve_scalar", SIG("convolve"), f32(2.0), f32(-3.0))
case("correlate_int_mixed", SIG("correlate"), X5.astype(np.int8), Y3)
case("fftconvolve_int", SIG("fftconvolve"), X5.astype(np.int32), Y3.astype(np.int32))
case("fftconvolve_complex", SIG("fftconvolve"), X5 * 1j, Y3 + 0.5j, grad=(0, 1))
case("fftconvolve_axes_list", SIG("fftconvolve", axes=[-1]), A45[:2], B24)
case("fftconvolve_no_axes", SIG("fftconvolve", axes=()), A34, A34 * 2)

# Linear detrending leaves residuals that cancel from the data's size: rounding noise of the
# data's magnitude (JAX fits by lstsq, spmd in closed form), so a looser tolerance.
DT = 1e-4
case("detrend", SIG("detrend"), np.array([1.0, 4, 8, 8, 9], f32), grad=(0,), tol=DT)
case("detrend_constant", SIG("detrend", type="constant"), np.array([1.0, 4, 8, 8, 9], f32),
     grad=(0,))  # fmt: skip
case("detrend_int", SIG("detrend"), np.array([1, 4, 8, 8, 9], np.int32), tol=DT)
case("detrend_breakpoints", SIG("detrend", bp=[3, 5]),
     np.array([1.0, 4, 8, 8, 9, 3, 2, 0], f32), grad=(0,), tol=DT)  # fmt: skip
case("detrend_breakpoint_scalar", SIG("detrend", bp=2), np.array([1.0, 4, 8, 8, 9], f32), tol=DT)
case("detrend_breakpoint_at_end", SIG("detrend", bp=5), X5, tol=DT)
# (its gradient, the loss's weights less their own linear fit, cancels too)
case("detrend_axis0", SIG("detrend", axis=0), A45**2 / 10, grad=(0,), tol=1e-3)
case("detrend_constant_axis0", SIG("detrend", axis=0, type="constant"), A45)
case("detrend_complex", SIG("detrend"), X5 * (1 + 1j) + np.arange(5, dtype=f32) * 1j, tol=DT)
# Bad input
case("convolve_bad_mode", SIG("convolve", mode="foo"), X5, Y3,
     error="ValueError", match="mode must be one of")  # fmt: skip
case("convolve_bad_method", SIG("convolve", method="foo"), X5, Y3,
     error="ValueError", match="method='foo'")  # fmt: skip
case("convolve_rank_mismatch", SIG("convolve"), X5, A34,
     error="ValueError", match=r"convolve.*same number of dim.*\(5,\).*\(3, 4\)")  # fmt: skip
case("convolve_valid_mixed", SIG("convolve", mode="valid"), np.ones((3, 2), f32),
     np.ones((2, 3), f32), error="ValueError", match=r"convolve.*\(3, 2\).*\(2, 3\)")  # fmt: skip
case("convolve_empty", SIG("convolve"), np.zeros(0, f32), Y3,
     error="ValueError", match=r"convolve.*zero-size.*\(0,\)")  # fmt: skip
case("convolve2d_1d", SIG("convolve2d"), X5, Y3,
     error="ValueError", match=r"convolve2d.*2-dimensional.*\(5,\)")  # fmt: skip
case("convolve2d_boundary", SIG("convolve2d", boundary="wrap"), A34, B22,
     error="NotImplementedError", match="boundary='fill'")  # fmt: skip
case("correlate2d_fillvalue", SIG("correlate2d", fillvalue=1), A34, B22,
     error="NotImplementedError", match="fillvalue=0")  # fmt: skip
case("fftconvolve_axes_mismatch", SIG("fftconvolve", axes=1), np.ones((2, 5), f32),
     np.ones((3, 3), f32), error="ValueError",
     match=r"fftconvolve.*mapped axes.*\(2, 5\).*\(3, 3\)")  # fmt: skip
case("fftconvolve_rank_mismatch", SIG("fftconvolve"), X5, A34,
     error="ValueError", match=r"fftconvolve.*dimensionality.*\(5,\)")  # fmt: skip
case("detrend_bad_type", SIG("detrend", type="l"), X5,
     error="ValueError", match="Trend type.*'l'")  # fmt: skip
case("detrend_breakpoint_past_end", SIG("detrend", bp=7), X5,
     error="ValueError", match=r"detrend.*Breakpoints.*\[7\].*5")  # fmt: skip
case("detrend_breakpoint_negative", SIG("detrend", bp=-1), X5,
     error="ValueError", match=r"detrend.*Breakpoints.*-1")  # fmt: skip
case("detrend_overwrite", SIG("detrend", overwrite_data=True), X5,
     error="NotImplementedError", match="overwrite_data")  # fmt: skip

# ---------------------------------------------------------------------------------------------
# jax.scipy.signal: stft, istft, csd, welch

T40 = (np.sin(np.arange(40) * 0.7) + 0.1 * np.arange(40)).astype(f32)
U40 = np.cos(np.arange(40) * 0.3).astype(f32)
S3 = np.stack([T40, U40, T40 * U40])

WINDOWS = ["hann", "hamming", "blackman", "boxcar", "bartlett", "triang", "flattop", "cosine",
           "parzen", "bohman", "nuttall", "blackmanharris", "barthann", "tukey", "rect", "han",
           ("tukey", 0.25), ("kaiser", 4.0), ("gaussian", 2.0)]  # fmt: skip
for w in WINDOWS:
    label = w if isinstance(w, str) else f"{w[0]}_{w[1]}"
    case(f"stft_window_{label}", SIG("stft", nperseg=8, window=w), T40)
case("stft", SIG("stft", nperseg=8), T40, grad=(0,))
case("stft_default", SIG("stft"), T40)
case("stft_options", SIG("stft", fs=2.0, nperseg=10, noverlap=3, nfft=16, boundary=None,
                         padded=False), T40, grad=(0,))  # fmt: skip
for b in ("even", "odd", "constant", "zeros", None):
    case(f"stft_boundary_{b}", SIG("stft", nperseg=12, boundary=b), T40)
case("stft_not_padded", SIG("stft", nperseg=12, padded=False), T40)
case("stft_twosided", SIG("stft", nperseg=8, return_onesided=False), T40)
case("stft_complex", SIG("stft", nperseg=8), T40 + 1j * U40, grad=(0,))
case("stft_detrend_linear", SIG("stft", nperseg=8, detrend="linear"), T40, grad=(0,))
case("stft_detrend_constant", SIG("stft", nperseg=8, detrend="constant"), T40)
case("stft_axis0", SIG("stft", nperseg=8, axis=0), S3.T.copy())
case("stft_batch", SIG("stft", nperseg=8), S3)
case("stft_int", SIG("stft", nperseg=8), np.arange(20, dtype=np.int32))
case("stft_window_array", SIGW("stft", nperseg=6), T40, np.hanning(6).astype(f32))
case("stft_nperseg_past_length", SIG("stft", nperseg=16), T40[:10])
case("stft_odd_nfft", SIG("stft", nperseg=9, nfft=11), T40)

case("welch", SIG("welch", nperseg=16), T40, grad=(0,))
case("welch_default", SIG("welch"), T40)
case("welch_spectrum_median", SIG("welch", nperseg=16, scaling="spectrum", detrend="linear",
                                  average="median"), T40, grad=(0,))  # fmt: skip
case("welch_axis0", SIG("welch", nperseg=8, axis=0), S3.T.copy())
case("welch_odd", SIG("welch", nperseg=9, nfft=11), T40)
case("welch_no_detrend", SIG("welch", nperseg=9, detrend=False), T40)
case("welch_callable_detrend", SIG("welch", nperseg=9, detrend=lambda s: s - s[..., :1]), T40)
case("welch_twosided", SIG("welch", nperseg=8, return_onesided=False), T40)
case("welch_fs", SIG("welch", fs=100.0, nperseg=8, noverlap=2), S3, grad=(0,))
case("welch_hamming", SIG("welch", nperseg=8, window="hamming"), T40)
case("csd", SIG("csd", nperseg=8), T40, U40, grad=(0, 1))
case("csd_y_none", SIG("csd", y=None, nperseg=8), T40)
case("csd_unequal_lengths", SIG("csd", nperseg=8), T40, U40[:30])
case("csd_median", SIG("csd", nperseg=8, average="median"), T40, U40)
case("csd_complex", SIG("csd", nperseg=8), T40, U40 * 1j)
case("csd_one_segment", SIG("csd", nperseg=40), T40, U40)
case("csd_batch_broadcast", SIG("csd", nperseg=8), S3, U40[None])


def _stft_np(x, nperseg=8, **kw):
    """A fixed STFT input for istft cases (computed here with NumPy, the same on both sides)."""
    n = nperseg
    win = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)
    step = n - kw.get("noverlap", n // 2)
    xp = np.concatenate([np.zeros(n // 2), x, np.zeros(n // 2)])
    xp = np.concatenate([xp, np.zeros((-(len(xp) - n) % step) % n)])
    frames = np.stack([xp[i : i + n] for i in range(0, len(xp) - n + 1, step)])
    spec = np.fft.rfft(frames * win, n=kw.get("nfft", n)) / win.sum()
    return spec.T.astype(np.complex64)


Z8 = _stft_np(T40.astype(np.float64))
case("istft", SIG("istft", nperseg=8), Z8, grad=(0,))
case("istft_default", SIG("istft"), Z8)
case("istft_no_boundary", SIG("istft", boundary=False), Z8)
case("istft_fs_overlap", SIG("istft", fs=2.0, nperseg=10, noverlap=6),
     _stft_np(T40.astype(np.float64), 10, noverlap=6))  # fmt: skip
case("istft_nfft", SIG("istft", nperseg=8, nfft=12), _stft_np(T40.astype(np.float64), 8, nfft=12))
case("istft_twosided", SIG("istft", input_onesided=False),
     np.concatenate([Z8, np.conj(Z8[-2:0:-1])], 0))  # fmt: skip
case("istft_axes", SIG("istft", time_axis=1, freq_axis=0),
     np.stack([Z8, Z8 * 2, Z8 * 1j], -1))  # fmt: skip
case("istft_batch", SIG("istft"), np.stack([Z8, Z8 * 2]))
case("istft_window_boxcar", SIG("istft", window="boxcar"), Z8)

# Bad input
case("stft_unknown_window", SIG("stft", nperseg=8, window="foo"), T40,
     error="ValueError", match="foo")  # fmt: skip
case("stft_nfft_small", SIG("stft", nperseg=8, nfft=4), T40,
     error="ValueError", match="nfft must be greater than or equal to nperseg")  # fmt: skip
case("stft_noverlap_big", SIG("stft", nperseg=8, noverlap=8), T40,
     error="ValueError", match="noverlap must be less than nperseg")  # fmt: skip
case("stft_nperseg_zero", SIG("stft", nperseg=0), T40,
     error="ValueError", match="nperseg must be a positive integer")  # fmt: skip
case("stft_window_2d", SIGW("stft", nperseg=8), T40, np.ones((2, 6), f32),
     error="ValueError", match=r"stft.*1-D.*\(2, 6\)")  # fmt: skip
case("stft_window_length", SIGW("stft", nperseg=8), T40, np.ones(6, f32),
     error="ValueError", match=r"stft.*nperseg.*length of window.*8 vs 6")  # fmt: skip
case("stft_unknown_boundary", SIG("stft", nperseg=8, boundary="foo"), T40,
     error="ValueError", match="boundary option 'foo'")  # fmt: skip
case("welch_bad_scaling", SIG("welch", nperseg=8, scaling="foo"), T40,
     error="ValueError", match="Unknown scaling: foo")  # fmt: skip
case("welch_bad_average", SIG("welch", nperseg=8, average="foo"), T40,
     error="ValueError", match="average must be.*foo")  # fmt: skip
case("csd_rank_mismatch", SIG("csd", nperseg=8), S3, U40,
     error="ValueError", match=r"csd.*same rank.*\(3, 40\).*\(40,\)")  # fmt: skip
case("istft_1d", SIG("istft"), T40.astype(np.complex64),
     error="ValueError", match=r"at least 2d.*\(40,\)")  # fmt: skip
case("istft_same_axes", SIG("istft", time_axis=0, freq_axis=0), Z8,
     error="ValueError", match="differing time and frequency axes")  # fmt: skip
case("istft_window_length", SIG("istft", window=np.ones(6, f32)), Z8,
     error="ValueError", match="window must have length of 8")  # fmt: skip
