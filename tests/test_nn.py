"""spmd.nn (activations, softmax family, logsumexp, one_hot, standardize), spmd.scipy.special,
and spmd.nn.initializers, against values from JAX 0.10.2 (hard-coded below)."""

from __future__ import annotations

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
import spmd.scipy.special as special
from spmd import nn, random
from spmd.nn import initializers

# fmt: off
VALUES = {'relu': [0.0, 0.0, 0.0, 0.5, 3.0, 6.0],
          'relu6': [0.0, 0.0, 0.0, 0.5, 3.0, 6.0],
          'gelu': [-0.045402348, -0.154286, 0.0, 0.345714, 2.9963627, 6.0],
          'sigmoid': [0.11920292, 0.37754068, 0.5, 0.62245935, 0.95257413, 0.99752742],
          'silu': [-0.23840584, -0.18877034, 0.0, 0.31122968, 2.8577223, 5.9851646],
          'softplus': [0.126928, 0.47407699, 0.69314718, 0.97407699, 3.0485873, 6.0024757],
          'soft_sign': [-0.66666669, -0.33333334, 0.0, 0.33333334, 0.75, 0.85714287],
          'log_sigmoid': [-2.1269281,
                          -0.97407699,
                          -0.69314718,
                          -0.47407699,
                          -0.048587352,
                          -0.0024756852],
          'elu': [-0.86466473, -0.39346933, 0.0, 0.5, 3.0, 6.0],
          'leaky_relu': [-0.02, -0.0049999999, 0.0, 0.5, 3.0, 6.0],
          'celu': [-0.86466473, -0.39346933, 0.0, 0.5, 3.0, 6.0],
          'selu': [-1.5201665, -0.69175822, 0.0, 0.52535051, 3.1521029, 6.3042059],
          'hard_tanh': [-1.0, -0.5, 0.0, 0.5, 1.0, 1.0],
          'hard_sigmoid': [0.16666667, 0.41666669, 0.5, 0.58333337, 1.0, 1.0],
          'hard_silu': [-0.33333334, -0.20833334, 0.0, 0.29166669, 3.0, 6.0],
          'softmax': [0.00031701504,
                      0.0014207629,
                      0.0023424421,
                      0.0038620338,
                      0.047049202,
                      0.94500852],
          'log_softmax': [-8.0565615,
                          -6.5565615,
                          -6.0565615,
                          -5.5565615,
                          -3.0565615,
                          -0.056561358],
          'standardize': [-1.2065003,
                          -0.63500017,
                          -0.44450012,
                          -0.25400007,
                          0.6985001,
                          1.8415003],
          'mish': [-0.25250146, -0.22074378, 0.0, 0.37524524, 2.9865355, 5.999927],
          'squareplus': [0.41421354, 0.78077638, 1.0, 1.2807764, 3.3027756, 6.1622777],
          'sparse_plus': [0.0, 0.0625, 0.25, 0.5625, 3.0, 6.0],
          'sparse_sigmoid': [0.0, 0.25, 0.5, 0.75, 1.0, 1.0],
          'gelu_exact': [-0.045500267, -0.15426877, 0.0, 0.34573123, 2.9959502, 6.0]}
GRADS = {'relu': [0.0, 0.0, 0.0, 1.0, 1.0, 1.0],
         'relu6': [0.0, 0.0, 0.0, 1.0, 1.0, 0.0],
         'gelu': [-0.086099342, 0.13263011, 0.5, 0.86736995, 1.0115839, 1.0],
         'sigmoid': [0.10499358, 0.23500371, 0.25, 0.23500371, 0.045176655, 0.0024664658],
         'silu': [-0.090784244, 0.26003882, 0.5, 0.73996121, 1.0881041, 1.0123262],
         'softplus': [0.11920291, 0.37754068, 0.5, 0.62245935, 0.95257413, 0.9975273],
         'elu': [0.13533527, 0.60653067, 1.0, 1.0, 1.0, 1.0],
         'leaky_relu': [0.0099999998, 0.0099999998, 1.0, 1.0, 1.0, 1.0],
         'celu': [0.13533527, 0.60653067, 1.0, 1.0, 1.0, 1.0],
         'selu': [0.23793285, 1.0663412, 1.7580993, 1.050701, 1.050701, 1.050701],
         'hard_tanh': [0.0, 1.0, 1.0, 1.0, 0.0, 0.0],
         'hard_sigmoid': [0.16666667, 0.16666667, 0.16666667, 0.16666667, 0.0, 0.0],
         'mish': [-0.10835509, 0.28951067, 0.60000002, 0.88642442, 1.0211061, 1.0001334]}
SOFTMAX_JAC = [[0.22868994, -0.18697107, -0.041718885],
               [-0.18697107, 0.2492083, -0.062237266],
               [-0.041718885, -0.062237266, 0.10395615]]
LOG_SOFTMAX_JAC = [[0.64597958, -0.52813637, -0.11784316],
                   [-0.35402039, 0.47186363, -0.11784316],
                   [-0.35402039, -0.52813637, 0.88215685]]
SOFTMAX_WHERE = [[0.17649087, 0.0, 0.34375727, 0.47975191],
                 [0.17649084, 0.0, 0.34375718, 0.47975191],
                 [0.17649084, 0.0, 0.34375727, 0.47975186]]
SOFTMAX_WHERE_GRAD = [[0.051372349, 0.0, 0.3292312, 0.61939645],
                      [0.051372364, 0.0, 0.32923114, 0.61939657],
                      [0.051372394, 0.0, 0.32923132, 0.61939645]]
LSE_B = [1.6390676, 2.9724011, 4.3057346]
LSE_SIGN = [2.4898801, -1.0]
STD_WHERE = [[-1.3362677, -0.5345071, 0.26725352, 1.0690141],
             [-1.3362675, -0.53450692, 0.26725331, 1.0690142],
             [-1.3362674, -0.53450716, 0.26725358, 1.0690137]]
# fmt: on

X = jnp.array([-2.0, -0.5, 0.0, 0.5, 3.0, 6.0])
M = jnp.arange(12.0).reshape(3, 4) / 3
W = jnp.array([[True, False, True, True]] * 3)


def _close(a, b, tol=2e-6):
    np.testing.assert_allclose(np.asarray(a, np.float64), np.asarray(b, np.float64), tol, tol)


@pytest.mark.parametrize("name", sorted(VALUES))
def test_values_match_jax(name):
    if name == "gelu_exact":
        got = nn.gelu(X, approximate=False)
    else:
        got = getattr(nn, name)(X)
    assert got.dtype == np.float32
    _close(got, VALUES[name])


@pytest.mark.parametrize("name", sorted(GRADS))
def test_gradients_match_jax(name):
    _close(spmd.vmap(spmd.grad(getattr(nn, name)))(X), GRADS[name])


def test_relu_derivative_at_zero_is_zero():
    assert float(spmd.grad(nn.relu)(0.0)) == 0.0
    assert [float(spmd.grad(nn.relu6)(v)) for v in (0.0, 6.0, 3.0)] == [0.0, 0.0, 1.0]
    text = str(spmd.make_jaxpr(nn.relu)(jnp.ones(3)))
    assert "custom_jvp_call[" in text and "name=relu" in text and "jvp=jvp" in text


def test_softplus_is_stable_with_half_gradient_at_zero():
    _close(nn.softplus(jnp.array([100.0, -100.0, 1000.0])), [100.0, 3.7200760e-44, 1000.0])
    assert float(spmd.grad(nn.softplus)(0.0)) == 0.5
    _close(nn.log_sigmoid(jnp.array([-100.0, 100.0])), [-100.0, 0.0])


def test_aliases():
    assert nn.swish is nn.silu and nn.hard_swish is nn.hard_silu
    _close(nn.tanh(X), np.tanh(np.asarray(X)))


@pytest.mark.parametrize(
    "name", ["relu", "gelu", "sigmoid", "silu", "softplus", "elu", "selu", "softmax",
             "log_softmax", "standardize", "hard_tanh", "mish", "logsumexp"]
)  # fmt: skip
def test_low_precision_stays_low_precision(name):
    for dt in (jnp.bfloat16, jnp.float16):
        out = getattr(nn, name)(X.astype(dt))
        assert out.dtype == dt
        ref = getattr(nn, name)(X)
        _close(out.astype(jnp.float32), ref, 0.06)


def test_dtypes_of_integer_and_python_inputs():
    ints = jnp.array([-2, 0, 3])
    assert nn.relu(ints).dtype == np.int32
    assert nn.hard_tanh(ints).dtype == np.int32
    r6 = nn.relu6(ints)
    assert r6.dtype == np.float32 and r6.weak_type
    for f in (nn.gelu, nn.softplus, nn.soft_sign, nn.log_sigmoid, nn.softmax, nn.logsumexp):
        out = f(ints)
        assert out.dtype == np.float32 and not out.weak_type, f.__name__
    with pytest.raises(TypeError, match="logistic does not accept dtype int32"):
        nn.sigmoid(ints)
    assert nn.relu(1.5).weak_type and nn.sigmoid(1.5).weak_type
    assert not nn.gelu(1.5).weak_type


def test_softmax_jacobians_match_jax():
    v = jnp.array([0.1, 0.5, -1.0])
    _close(spmd.jacrev(nn.softmax)(v), SOFTMAX_JAC)
    _close(spmd.jacfwd(nn.softmax)(v), SOFTMAX_JAC)
    _close(spmd.jacrev(nn.log_softmax)(v), LOG_SOFTMAX_JAC)


def test_softmax_axes_where_and_infinities():
    s = np.exp(np.asarray(M)) / np.exp(np.asarray(M)).sum(0)
    _close(nn.softmax(M, axis=0), s)
    _close(nn.softmax(M, axis=None).sum(), 1.0)
    _close(nn.softmax(M, axis=(0, 1)), nn.softmax(M, axis=None))
    _close(nn.softmax(M, where=W), SOFTMAX_WHERE)
    _close(spmd.grad(lambda m: (nn.softmax(m, where=W) * m).sum())(M), SOFTMAX_WHERE_GRAD)
    ls = nn.log_softmax(M, where=W)
    assert np.isneginf(np.asarray(ls)[:, 1]).all()
    _close(np.asarray(ls)[:, [0, 2, 3]], np.log(np.asarray(SOFTMAX_WHERE)[:, [0, 2, 3]]))
    _close(nn.softmax(jnp.array([-jnp.inf, 0.0, 1.0])), [0.0, 0.26894143, 0.7310586])
    assert np.isnan(np.asarray(nn.softmax(jnp.array([-jnp.inf, -jnp.inf])))).all()


def test_logsumexp():
    m = np.asarray(M, np.float64)
    _close(nn.logsumexp(M, axis=1), np.log(np.exp(m).sum(1)))
    assert nn.logsumexp(M, axis=1, keepdims=True).shape == (3, 1)
    assert nn.logsumexp(M, keepdims=True).shape == (1, 1)
    _close(nn.logsumexp(M, axis=(0, 1)), np.log(np.exp(m).sum()))
    _close(nn.logsumexp(M, axis=1, b=jnp.array([1.0, 2.0, 0.0, 0.5])), LSE_B)
    assert np.isnan(float(nn.logsumexp(jnp.array([1.0, 2.0]), b=jnp.array([1.0, -2.0]))))
    _close(
        nn.logsumexp(jnp.array([1.0, 2.0]), b=jnp.array([1.0, -2.0]), return_sign=True), LSE_SIGN
    )
    assert float(nn.logsumexp(jnp.array([-jnp.inf, -jnp.inf]))) == -np.inf
    assert float(nn.logsumexp(jnp.array([jnp.inf, 1.0]))) == np.inf
    _close(nn.logsumexp(jnp.array([1000.0, 1000.0])), 1000.6931472)
    _close(nn.logsumexp(M, axis=1, where=W), np.log(np.exp(m[:, [0, 2, 3]]).sum(1)))
    _close(spmd.grad(nn.logsumexp)(jnp.array([-jnp.inf, 0.0, 1.0])), [0.0, 0.26894143, 0.7310586])
    assert nn.logsumexp(jnp.array([1, 2])).dtype == np.float32
    assert special.logsumexp is nn.logsumexp


def test_standardize():
    m = np.asarray(M, np.float64)
    want = (m - m.mean(-1, keepdims=True)) / np.sqrt(m.var(-1, keepdims=True) + 1e-5)
    _close(nn.standardize(M), want, 1e-5)
    _close(nn.standardize(M, axis=0), (m - m.mean(0)) / np.sqrt(m.var(0) + 1e-5), 1e-5)
    _close(nn.standardize(M, mean=1.0, variance=2.0), (m - 1) / np.sqrt(2 + 1e-5), 1e-5)
    _close(nn.standardize(M, where=W), STD_WHERE, 1e-5)
    _close(nn.standardize(M, epsilon=0.1), (m - m.mean(-1, keepdims=True)) / np.sqrt(
        m.var(-1, keepdims=True) + 0.1), 1e-5)  # fmt: skip


def test_one_hot():
    out = nn.one_hot(jnp.array([0, 2, 5, -1]), 3)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])
    x = jnp.array([[0, 2], [1, 1]])
    np.testing.assert_array_equal(nn.one_hot(x, 3, axis=0), np.moveaxis(np.eye(3)[x], -1, 0))
    np.testing.assert_array_equal(nn.one_hot(x, 3, axis=1), np.moveaxis(np.eye(3)[x], -1, 1))
    assert nn.one_hot(jnp.array([0, 2]), 3, dtype=jnp.int32).dtype == np.int32
    assert nn.one_hot(jnp.array([0, 2]), 3, dtype=jnp.bfloat16).dtype == jnp.bfloat16
    np.testing.assert_array_equal(nn.one_hot(jnp.array([0.0, 2.5]), 3), [[1, 0, 0], [0, 0, 0]])
    want = [[0, 0, 0, 1], [0, 1, 0, 0]]
    np.testing.assert_array_equal(spmd.jit(lambda v: nn.one_hot(v, 4))(jnp.array([3, 1])), want)
    np.testing.assert_array_equal(spmd.vmap(lambda v: nn.one_hot(v, 4))(jnp.array([3, 1])), want)


def test_one_hot_traced_num_classes_raises():
    with pytest.raises(TypeError, match="num_classes"):
        spmd.jit(lambda n: nn.one_hot(jnp.array([0]), n))(3)


def test_one_hot_bad_axis_raises():
    with pytest.raises(ValueError, match="axis 3"):
        nn.one_hot(jnp.array([0, 1]), 3, axis=3)


def test_glu():
    x = np.asarray(M)
    _close(nn.glu(M), x[:, :2] / (1 + np.exp(-x[:, 2:])))
    _close(nn.glu(jnp.arange(8.0).reshape(4, 2), axis=0), [[0.0, 0.99330715],
                                                           [1.9950547, 2.9972675]])  # fmt: skip


def test_glu_odd_size_raises():
    with pytest.raises(AssertionError, match="divisible by 2"):
        nn.glu(jnp.arange(3.0))


def test_softmax_bad_axis_raises():
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        nn.softmax(M, axis=2)


def test_scipy_special():
    x = jnp.array([0.0, 0.2, 0.5, 0.9])
    _close(special.erf(x), [0.0, 0.22270259, 0.5204999, 0.79690820])
    _close(special.erfc(x), [1.0, 0.7772974, 0.47950012, 0.20309180])
    _close(special.erfinv(x), [0.0, 0.17914346, 0.47693628, 1.1630871], 1e-5)
    _close(special.expit(x), 1 / (1 + np.exp(-np.asarray(x))))
    _close(special.logit(jnp.array([0.2, 0.5])), [-1.3862944, 0.0])
    assert float(spmd.grad(special.logit)(0.0)) == np.inf
    _close(special.gammaln(jnp.array([0.5, 3.0])), [0.5723649, 0.6931472])
    assert special.erf(jnp.array([1, 2])).dtype == np.float32
    y = jnp.array([0.0, 1.0, 2.0, 3.0])
    _close(special.xlogy(x, y), [0.0, 0.0, 0.5 * np.log(2), 0.9 * np.log(3)])
    _close(special.xlog1py(x, y), np.asarray(x) * np.log1p(np.asarray(y)))
    assert float(special.xlogy(0.0, 0.0)) == 0.0
    gx, gy = spmd.grad(special.xlogy, (0, 1))(0.5, 2.0)
    _close(gx, np.log(2.0))
    _close(gy, 0.25)


# ---------------------------------------------------------------------------------------------
# Initializers: the same bits as JAX for the same key (float32 bits as uint32, bf16 as uint16)

# fmt: off
INIT_BITS = {'glorot_uniform': ('key', (3, 4), None,
                    [1062482940, 1063443260, 3198090894, 3178078429, 1040483258, 3206450920,
                     3199463788, 1051959958, 1055519180, 3206279702, 1063653695, 3210806918]),
 'glorot_normal': ('key', (3, 4), None,
                   [1063419529, 1065705554, 3196085504, 3174744690, 1037112361, 3205363764,
                    3197274150, 1049772800, 1053026004, 3205161708, 1066088961, 3212990988]),
 'he_normal': ('prng', (3, 4), None,
               [3167580029, 1054028208, 1048966818, 1040925150, 3185640012, 1044687586,
                3214692201, 1059706729, 1055623043, 1061914196, 3199076109, 1065112926]),
 'he_uniform': ('prng', (2, 3), None,
                [3173004049, 1059025448, 1053702321, 1045983310, 3190756174, 1050168092]),
 'lecun_normal_bf16': ('key', (3, 4), 'bfloat16',
                       [15986, 15840, 48927, 48900, 16048, 48846, 48338, 16285, 48702, 16154,
                        49019, 15761]),
 'lecun_uniform_4d': ('key', (2, 1, 2, 3), None,
                      [1061584751, 1062483048, 3197417920, 3177072622, 1039657339, 3205779792,
                       3198702146, 1051199618, 1054528966, 3205619633, 1062679892,
                       3209854456]),
 'normal': ('key', (5,), None, [1062187709, 1065459184, 3193831447, 3173057058, 1035227436]),
 'uniform': ('prng', (5,), None, [1048197156, 1051592496, 1050526712, 1049599680, 1046919908]),
 'truncated_normal': ('key', (5,), None,
                      [1054355786, 1055885422, 3201905514, 3194835066, 3183597643]),
 'vs_geo_uniform': ('key', (4, 5), None,
                    [1058869359, 1059580149, 3194707146, 3174031883, 1036265974, 3203053444,
                     3196399559, 1048900972, 1051535366, 3202799987, 1059735905, 3206974985,
                     1044678900, 1034941952, 1057755258, 1058567468, 1055553388, 1050562732,
                     1012743950, 3206920502]),
 'vs_axes': ('prng', (2, 1, 2, 2), None,
             [3164861749, 1051270827, 1045830816, 1037982645, 3182665315, 1042092467,
              3212995034, 1057542980])}
ORTHO = [[0.83379459, -0.040397521, -0.25450924, -0.48824149],
 [0.5419113, 0.065734819, 0.20781927, 0.81167865],
 [0.08726231, -0.57483506, 0.78528929, -0.21276894]]
# fmt: on

INITS = {
    "glorot_uniform": initializers.glorot_uniform(),
    "glorot_normal": initializers.glorot_normal(),
    "he_normal": initializers.he_normal(),
    "he_uniform": initializers.he_uniform(),
    "lecun_normal_bf16": initializers.lecun_normal(),
    "lecun_uniform_4d": initializers.lecun_uniform(),
    "normal": initializers.normal(0.5),
    "uniform": initializers.uniform(0.5),
    "truncated_normal": initializers.truncated_normal(1.0, lower=-1.0, upper=0.5),
    "vs_geo_uniform": initializers.variance_scaling(0.7, "fan_geo_avg", "uniform"),
    "vs_axes": initializers.variance_scaling(
        1.0, "fan_in", "normal", in_axis=0, out_axis=(1, 2), batch_axis=3
    ),
}


@pytest.mark.parametrize("name", sorted(INIT_BITS))
def test_initializers_bit_exact_with_jax(name):
    kind, shape, dtype, want = INIT_BITS[name]
    key = random.key(0) if kind == "key" else random.PRNGKey(42)
    out = INITS[name](key, shape) if dtype is None else INITS[name](key, shape, jnp.dtype(dtype))
    a = np.asarray(out)
    assert a.shape == shape
    assert a.dtype == (np.float32 if dtype is None else jnp.dtype(dtype))
    view = a.view(np.uint16 if a.dtype.itemsize == 2 else np.uint32).ravel().tolist()
    assert view == want


def test_initializer_aliases_and_jit():
    assert initializers.xavier_uniform is initializers.glorot_uniform
    assert initializers.kaiming_normal is initializers.he_normal
    key = random.key(0)
    eager = initializers.he_normal()(key, (3, 3))
    np.testing.assert_array_equal(
        spmd.jit(lambda k: initializers.he_normal()(k, (3, 3)))(key), eager
    )


def test_initializer_statistics():
    key = random.key(1)
    w = np.asarray(initializers.he_normal()(key, (256, 256)), np.float64)
    assert abs(w.std() / np.sqrt(2 / 256) - 1) < 0.05 and abs(w.mean()) < 0.01
    assert np.abs(w).max() <= 2 * np.sqrt(2 / 256) / 0.87962566103423978 + 1e-6  # truncated
    u = np.asarray(initializers.glorot_uniform()(key, (100, 300)), np.float64)
    limit = np.sqrt(6 / (100 + 300))
    assert np.abs(u).max() <= limit and abs(u.std() / (limit / np.sqrt(3)) - 1) < 0.03
    n = np.asarray(initializers.lecun_normal(batch_axis=0)(key, (4, 64, 32)), np.float64)
    assert abs(n.std() / np.sqrt(1 / 64) - 1) < 0.05


def test_constant_zeros_ones():
    key = random.key(0)
    np.testing.assert_array_equal(initializers.zeros(key, (2, 3)), np.zeros((2, 3), np.float32))
    assert initializers.ones(key, (2,), jnp.bfloat16).dtype == jnp.bfloat16
    np.testing.assert_array_equal(initializers.constant(-7)(key, (2,)), [-7.0, -7.0])
    assert initializers.constant(3, jnp.int32)(key, (2,)).dtype == np.int32


def test_orthogonal():
    key = random.key(0)
    q = np.asarray(initializers.orthogonal()(key, (3, 4)), np.float64)
    _close(q, ORTHO, 1e-5)  # JAX's values up to the QR's rounding
    _close(q @ q.T, np.eye(3), 1e-5)
    qt = np.asarray(initializers.orthogonal()(key, (4, 3)))
    _close(qt, np.asarray(ORTHO).T, 1e-5)
    q3 = np.asarray(initializers.orthogonal(scale=2.0, column_axis=0)(key, (2, 3, 4)))
    flat = np.moveaxis(q3, 0, -1).reshape(12, 2)
    _close(flat.T @ flat, 4 * np.eye(2), 1e-5)


def test_variance_scaling_bad_mode_raises():
    with pytest.raises(ValueError, match="invalid mode for variance scaling initializer: bad"):
        initializers.variance_scaling(1.0, "bad", "normal")(random.key(0), (2, 3))


def test_variance_scaling_bad_distribution_raises():
    with pytest.raises(ValueError, match="invalid distribution for variance scaling"):
        initializers.variance_scaling(1.0, "fan_in", "bad")(random.key(0), (2, 3))


def test_variance_scaling_1d_raises():
    with pytest.raises(ValueError, match="1-dimensional weights tensor with default in_axis"):
        initializers.glorot_uniform()(random.key(0), (3,))


@pytest.mark.parametrize("fn", ["logaddexp", "logaddexp2"])
def test_logaddexp_gradients_at_ties_and_infinities_equal_jax(fn):
    # Values from JAX 0.10: jnp.logaddexp/logaddexp2 carry JAX's custom JVP (the slope split
    # evenly at a tie; +inf replaced by 0 so that no inf - inf appears).
    f = getattr(jnp, fn)
    cases = {
        (-np.inf, 0.0): (0.0, 1.0),
        (np.inf, 0.0): (1.0, 1.0),
        (1.0, 1.0): (0.5, 0.5),
        (np.inf, np.inf): (1.0, 1.0),
        (-np.inf, -np.inf): (np.nan, np.nan),
        (np.nan, 1.0): (np.nan, np.nan),
    }
    for (a, b), want in cases.items():
        got = spmd.grad(f, argnums=(0, 1))(a, b)
        np.testing.assert_array_equal([float(g) for g in got], want, err_msg=f"{fn}{(a, b)}")
        assert all(g.weak_type for g in got)


def test_softplus_slope_at_infinities():
    # JAX 0.10 gives 0 at -inf and 1 at +inf (spmd gave 1 at -inf: -inf was replaced by 0).
    assert float(spmd.grad(nn.softplus)(-np.inf)) == 0.0
    assert float(spmd.grad(nn.softplus)(np.inf)) == 1.0


def test_log1mexp_slope_is_finite_at_the_ends():
    # Values from JAX 0.10: the slope 1/expm1(x) is a custom JVP, so the where's branches do
    # not turn the edges into NaN.
    got = [float(spmd.grad(nn.log1mexp)(np.float32(v))) for v in (-np.inf, 0.0, -0.0, 1.0)]
    assert got[:3] == [-1.0, np.inf, -np.inf]
    np.testing.assert_allclose(got[3], 1 / np.expm1(1.0), rtol=1e-6)
