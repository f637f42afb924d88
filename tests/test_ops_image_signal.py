"""spmd.ops (segment reductions), spmd.image (resize, scale_and_translate) and
spmd.scipy.signal (convolutions, detrend, stft/istft/csd/welch) against results recorded from
JAX 0.10 (``tests/golden/ops_image_signal.json``, written by
``tests/golden_gen/ops_image_signal_gen.py`` from the cases of
``tests/cases_ops_image_signal.py``; JAX is not needed here).

Each case runs eagerly and under ``spmd.jit``: dtypes, weak types and shapes must be exact,
integers and bools exact, floats within ``RTOL`` (relative, plus ``RTOL`` times the output's
largest magnitude: resampling weights and FFTs sum in another order), or the case's own
tolerance (half floats). Gradients of the case's loss are compared the same way. Error cases
raise the builtin exception class JAX raises, with a message naming the function and the sizes.
``vmap`` is checked against a loop over examples.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from cases_ops_image_signal import CASES, IDS, IMG567, S3, TOL, Z8, flatten
from golden_compare import (
    assert_raises_like_jax,
    assert_vmap_matches_loop,
    case_grad,
    mode_params,
    to_spmd,
)
from test_linalg_more import _check_leaf

import spmd
import spmd.image
import spmd.numpy as jnp
import spmd.ops
import spmd.scipy.signal
from spmd import lax
from spmd.errors import ConcretizationTypeError

GOLDEN = json.loads((Path(__file__).parent / "golden" / "ops_image_signal.json").read_text())[
    "cases"
]

RTOL = 1e-5


@pytest.fixture(autouse=True)
def _quiet():
    # Complex input to a one-sided estimate and nperseg past the input's length warn, as SciPy.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


def _compare(out, golden: dict, rtol: float, what: str) -> None:
    tree, leaves = flatten(out)
    assert tree == golden["tree"], f"{what}: structure {tree}, expected {golden['tree']}"
    assert len(leaves) == len(golden["leaves"])
    for i, (g, r) in enumerate(zip(leaves, golden["leaves"])):
        _check_leaf(g, r, f"{what} leaf {i}", rtol)


@pytest.mark.parametrize("case,mode", mode_params(CASES, lambda c: not c.error))
def test_values(case, mode):
    fn, args = case.build(jnp, lax)
    args = [to_spmd(a) for a in args]
    out = (spmd.jit(fn) if mode == "jit" else fn)(*args)
    golden = GOLDEN[case.name]
    _compare(out, golden.get(mode, golden["eager"]), TOL.get(case.name, RTOL), mode)


@pytest.mark.parametrize(
    "case,mode", mode_params(CASES, lambda c: c.grad is not None, ("eager", "jit"))
)
def test_grad(case, mode):
    got = case_grad(case, mode, jnp, lax)
    _compare(got, GOLDEN[case.name]["grad"], TOL.get(case.name, RTOL), "gradient")


@pytest.mark.parametrize("case,mode", mode_params(CASES, lambda c: c.error, ("eager", "jit")))
def test_errors(case, mode):
    assert_raises_like_jax(case, GOLDEN[case.name], mode, jnp, lax)


def test_every_case_has_a_golden():
    assert sorted(c.name for c in CASES) == sorted(GOLDEN)


# ---------------------------------------------------------------------------------------------
# vmap: against a loop over the examples

D36 = np.cos(np.arange(18, dtype=np.float32)).reshape(3, 6)
T3 = S3.astype(np.float32)
VMAP_CASES = {
    "segment_sum": (lambda d: spmd.ops.segment_sum(d, IDS, 4), (D36,), 0),
    "segment_max": (lambda d: spmd.ops.segment_max(d, IDS, 7), (D36,), 0),
    "segment_min_ids": (
        lambda d, i: spmd.ops.segment_min(d, i, 4),
        (D36, np.stack([IDS, IDS[::-1], IDS * 0])),
        0,
    ),
    "segment_prod_bucket": (lambda d: spmd.ops.segment_prod(d, IDS, 6, bucket_size=4), (D36,), 0),
    "resize": (lambda x: spmd.image.resize(x, (4, 9), "lanczos3"), (IMG567[:3],), 0),
    "resize_nearest": (lambda x: spmd.image.resize(x, (4, 9), "nearest"), (IMG567[:3],), 0),
    "scale_and_translate": (
        lambda x, s: spmd.image.scale_and_translate(
            x, (8, 9), (0, 1), s, np.array([0.5, -1.0], np.float32), "cubic"
        ),
        (IMG567[:3], np.array([[1.5, 0.7], [0.5, 2.0], [1.0, 1.0]], np.float32)),
        0,
    ),
    "convolve": (lambda x: spmd.scipy.signal.convolve(x, x[:3], mode="same"), (D36,), 0),
    "correlate2d": (lambda x: spmd.scipy.signal.correlate2d(x, x[:2, :2]), (IMG567[:3],), 0),
    "fftconvolve": (lambda x: spmd.scipy.signal.fftconvolve(x, x[::-1]), (D36,), 0),
    "detrend": (lambda x: spmd.scipy.signal.detrend(x, bp=[2]), (D36,), 0),
    "stft": (lambda x: spmd.scipy.signal.stft(x, nperseg=8)[2], (T3,), 0),
    "welch": (lambda x: spmd.scipy.signal.welch(x, nperseg=8)[1], (T3.T.copy(),), 1),
    "csd": (lambda x, y: spmd.scipy.signal.csd(x, y, nperseg=8)[1], (T3, T3[::-1].copy()), 0),
    "istft": (lambda z: spmd.scipy.signal.istft(z)[1], (np.stack([Z8, Z8 * 2, Z8 * 1j]),), 0),
    "grad_resize": (
        spmd.grad(lambda x: (spmd.image.resize(x, (4, 9), "cubic") ** 2).sum()),
        (IMG567[:3],),
        0,
    ),
    "grad_welch": (spmd.grad(lambda x: spmd.scipy.signal.welch(x, nperseg=8)[1].sum()), (T3,), 0),
}


@pytest.mark.parametrize("name", sorted(VMAP_CASES))
def test_vmap_matches_loop(name):
    fn, args, in_axes = VMAP_CASES[name]
    assert_vmap_matches_loop(fn, args, in_axes, flatten, name)


# ---------------------------------------------------------------------------------------------
# Behaviour beyond recorded values


def test_num_segments_none_needs_concrete_ids():
    f = spmd.jit(lambda d, i: spmd.ops.segment_sum(d, i))
    with pytest.raises(ConcretizationTypeError, match="num_segments"):
        f(D36[0], IDS)
    g = spmd.jit(lambda d, n: spmd.ops.segment_sum(d, IDS, n))
    with pytest.raises(ConcretizationTypeError, match="num_segments"):
        g(D36[0], 4)
    # A concrete num_segments array is taken as its value.
    out = spmd.ops.segment_sum(D36[0], IDS, jnp.array(4))
    assert out.shape == (4,)


def test_empty_ids_without_num_segments():
    with pytest.raises(ValueError, match=r"segment_sum.*num_segments=None.*\(0,\)"):
        spmd.ops.segment_sum(np.zeros((0, 3), np.float32), np.zeros(0, np.int32))


def test_segment_prod_gradient_needs_unique_indices():
    # As JAX: with repeated ids each factor's derivative is the product of the others.
    with pytest.raises(NotImplementedError, match="unique_indices"):
        spmd.grad(lambda d: spmd.ops.segment_prod(d, IDS, 4).sum())(D36[0])


def test_resize_shape_must_be_concrete():
    with pytest.raises(TypeError):
        spmd.jit(lambda x, n: spmd.image.resize(x, (n, 4), "linear"))(D36[:, :4], 5)


def test_resize_method_from_string():
    rm = spmd.image.ResizeMethod
    assert rm.from_string("bicubic-pytorch") is rm.CUBIC_PYTORCH
    assert [m.name for m in rm] == [
        "NEAREST", "LINEAR", "LANCZOS3", "LANCZOS5", "CUBIC", "CUBIC_PYTORCH", "AREA",
    ]  # fmt: skip
    with pytest.raises(ValueError, match='Unknown resize method "NEAREST"'):
        rm.from_string("NEAREST")  # names are lower case, as JAX's


def test_istft_inverts_stft_with_no_overlap():
    # JAX 0.10.2's istft reads noverlap=0 as "the default" (nperseg // 2); here 0 is 0, as in
    # SciPy, so the boxcar STFT without overlap inverts exactly.
    x = S3[0]
    _, _, z = spmd.scipy.signal.stft(x, nperseg=8, window="boxcar", noverlap=0)
    _, back = spmd.scipy.signal.istft(z, window="boxcar", noverlap=0)
    np.testing.assert_allclose(np.asarray(back), x, rtol=1e-5, atol=1e-5)


def test_istft_odd_nperseg_round_trip():
    # An odd nperseg is one past the one-sided default: the inverse FFT is odd-length (SciPy's
    # rule; JAX 0.10.2 raises a shape error here).
    x = S3[1]
    _, _, z = spmd.scipy.signal.stft(x, nperseg=9)
    _, back = spmd.scipy.signal.istft(z, nperseg=9)
    np.testing.assert_allclose(np.asarray(back)[:40], x, rtol=1e-5, atol=1e-5)


def test_welch_of_traced_fs_and_window():
    # fs and an array window may be traced: only lengths are shapes.
    f = spmd.jit(lambda x, fs, w: spmd.scipy.signal.welch(x, fs=fs, window=w))
    win = np.hanning(8).astype(np.float32)
    freqs, p = f(S3[0], 4.0, win)
    want_f, want_p = spmd.scipy.signal.welch(S3[0], fs=4.0, window=win)
    np.testing.assert_allclose(np.asarray(freqs), np.asarray(want_f), rtol=1e-6)
    np.testing.assert_allclose(np.asarray(p), np.asarray(want_p), rtol=1e-5)


def test_windows_match_scipy_at_other_lengths():
    # The golden cases make windows of length 8; odd and tiny lengths against SciPy (where it
    # is installed), and a window only SciPy makes goes to it.
    scipy_signal = pytest.importorskip("scipy.signal")
    from spmd._src.scipy.signal_windows import _WINDOWS, get_window

    for name, (_, _, needs_params) in _WINDOWS.items():
        w = (name, 3.0) if needs_params else name
        for n in (1, 2, 7, 16):
            np.testing.assert_allclose(
                get_window(w, n), scipy_signal.get_window(w, n), atol=1e-12, err_msg=f"{w} {n}"
            )
    np.testing.assert_allclose(
        get_window(("exponential", None, 2.0), 9),
        scipy_signal.get_window(("exponential", None, 2.0), 9),
    )
    with pytest.raises(ValueError, match="needs one or more parameters"):
        get_window("kaiser", 8)
