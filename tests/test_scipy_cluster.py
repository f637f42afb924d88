"""spmd.scipy.cluster.vq.vq against values printed by JAX 0.10.2 (codes int32, distances
float32; NaN observations are not rejected, like JAX's)."""

import numpy as np
import pytest

import spmd
import spmd.scipy.cluster.vq
from spmd.scipy.cluster.vq import vq

OBS = np.array([[1.0, 2.0], [3.0, 1.0], [0.0, 0.0], [5, 5]], np.float32)
CB = np.array([[0.0, 0.0], [3.0, 2.0]], np.float32)
DIST = [2.0, 1.0, 0.0, 3.6055512]


def _check(out, code, dist):
    assert out[0].dtype == np.int32 and out[1].dtype == np.float32
    np.testing.assert_array_equal(np.asarray(out[0]), code)
    np.testing.assert_allclose(np.asarray(out[1]), dist, rtol=1e-6)


def test_vq_values_jit_vmap():
    _check(vq(OBS, CB), [1, 1, 0, 1], DIST)
    _check(spmd.jit(vq)(OBS, CB), [1, 1, 0, 1], DIST)
    _check(vq(OBS[:, 0], CB[:, 0]), [0, 1, 0, 1], [1, 0, 0, 2])
    _check(vq(OBS.astype(int), CB.astype(int)), [1, 1, 0, 1], DIST)
    _check(vq(np.array([[1.0, 1.0]]), np.array([[0.0, 0.0], [2.0, 2.0]])), [0], [1.4142135])
    _check(vq(OBS, CB[:, :1]), [0, 1, 0, 1], [2.236068, 2.0, 0.0, 2.828427])  # broadcasts
    nan = OBS.copy()
    nan[0, 0] = np.nan
    _check(vq(nan, CB), [0, 1, 0, 1], [np.nan, 1.0, 0.0, 3.6055512])
    c, d = spmd.vmap(vq, in_axes=(0, None))(np.stack([OBS, OBS]), CB)
    assert c.shape == (2, 4) and np.asarray(c)[1].tolist() == [1, 1, 0, 1]


def test_vq_grad():
    g = spmd.grad(lambda o: vq(o, CB)[1].sum())(OBS)
    want = [[-1, 0], [0, -1], [np.nan, np.nan], [0.5547002, 0.8320503]]
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-6)


def test_vq_rank_mismatch():
    with pytest.raises(ValueError, match="same rank"):
        vq(OBS[None], CB)
