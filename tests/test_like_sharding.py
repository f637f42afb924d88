"""Where eager results made next to placed arrays land, against JAX 0.10.2: the ``*_like``
functions keep a committed operand's sharding (so ``tree.map(jnp.zeros_like, params)`` gives
moments sharded like the parameters), ``device=`` places a new array, ``out_sharding=`` and
``device=`` exclude each other (tests/golden/like_sharding.json; cases in
tests/cases_like_sharding.py). Bad input: JAX's error class, spmd's message."""

import json
from pathlib import Path

import numpy as np
import pytest
from cases_like_sharding import make_env, run

import spmd
import spmd.numpy as jnp
from spmd.sharding import IndivisibleError, NamedSharding
from spmd.sharding import PartitionSpec as P

GOLDEN = json.loads((Path(__file__).parent / "golden" / "like_sharding.json").read_text())

# JAX's tolerances (tests/golden_compare.py); ints and bools compare exactly.
TOL = {"float32": 1e-6, "float16": 1e-3, "bfloat16": 1e-2}

# Where JAX fails inside its own code (an assert, an index out of range: a spec longer than the
# new shape), spmd raises ValueError naming the function and the sizes.
JAX_INTERNAL = {"AssertionError": "ValueError", "IndexError": "ValueError"}

# Differences that are not the like-functions' own (each case fails until they are mended).
_JIT_EXPLICIT = (
    "JAX refuses a jit whose constant has an Explicit sharding with no mesh in context "
    "('Please enter your jit into a mesh context'); spmd runs it"
)
KNOWN = {
    **{f"{f}:jit:xe": _JIT_EXPLICIT for f in ("zeros_like", "ones_like", "full_like")},
    "empty_like:jit:xe": _JIT_EXPLICIT,
}


@pytest.fixture(scope="module")
def results():
    return run(spmd)


def _params():
    return [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN[n])) if n in KNOWN else n
        for n in sorted(GOLDEN)
    ]


@pytest.mark.parametrize("name", _params())
def test_matches_jax(name, results):
    want, got = GOLDEN[name], results[name]
    if "error" in want:
        assert "error" in got, f"JAX raised {want['error']}, spmd gave {got}"
        cls = JAX_INTERNAL.get(want["error"], want["error"])
        assert cls in got["classes"], (want["error"], got)
        return
    assert "error" not in got, got.get("message")
    assert {k: v for k, v in got.items() if k != "value"} == {
        k: v for k, v in want.items() if k != "value"
    }
    tol = TOL.get(want["dtype"])
    if tol is None:
        assert got["value"] == want["value"]
    else:
        np.testing.assert_allclose(got["value"], want["value"], rtol=tol, atol=tol)


def test_every_case_recorded():
    from cases_like_sharding import CASES

    assert sorted(CASES) == sorted(GOLDEN)


# --- the optimizer's pattern, and the like-functions under transformations ------------------


@pytest.fixture(scope="module")
def env():
    return make_env(spmd)


def test_moments_sharded_like_params(env):
    params = {"w": env["xa"], "b": env["xa1"], "s": env["xd"]}
    moments = spmd.tree.map(jnp.zeros_like, params)
    for k in params:
        assert moments[k].sharding == params[k].sharding
        assert moments[k].committed
    # the update keeps them there
    m = spmd.tree.map(lambda m, p: 0.9 * m + 0.1 * p, moments, params)
    assert m["w"].sharding == params["w"].sharding


def test_like_of_traced_operand_is_unplaced_under_jit(env):
    # Inside jit the operand is a tracer: the result is jit's (as JAX's: Auto axes are not in
    # the type, so the constant is replicated where jit puts it).
    out = spmd.jit(lambda a: jnp.zeros_like(a) + 1)(env["xa"])
    np.testing.assert_array_equal(out, np.ones((8, 4), np.float32))


def test_grad_through_like_keeps_working(env):
    g = spmd.grad(lambda a: (jnp.ones_like(a) * a).sum())(env["xa"])
    np.testing.assert_array_equal(g, np.ones((8, 4), np.float32))


def test_copy_method_keeps_placement(env):
    c = env["xd"].copy()
    assert c.sharding == env["xd"].sharding and c.committed
    u = jnp.arange(3.0).copy()
    assert not u.committed


# --- bad input: JAX's class, a message naming the function, the argument and the sizes -------


def test_error_device_and_out_sharding(env):
    with pytest.raises(
        ValueError, match=r"jnp\.zeros_like: only one of `device` or `out_sharding`"
    ):
        jnp.zeros_like(env["xa"], device=env["dev3"], out_sharding=P())


def test_error_device_and_out_sharding_creation(env):
    with pytest.raises(ValueError, match=r"jnp\.arange: only one of `device` or `out_sharding`"):
        jnp.arange(8, device=env["dev3"], out_sharding=P())


def test_error_out_sharding_rank_for_new_shape(env):
    s = NamedSharding(env["expl"], P("x", "y"))
    with pytest.raises(ValueError, match=r"jnp\.ones_like: out_sharding .* shape \(32,\).*rank"):
        jnp.ones_like(env["xe"], shape=(32,), out_sharding=s)


def test_error_out_sharding_indivisible_for_new_shape(env):
    s = NamedSharding(env["expl"], P("y"))
    with pytest.raises(IndivisibleError, match=r"jnp\.full_like: .*partitioned 4 times.*6"):
        jnp.full_like(env["xe"], 1.0, shape=(6, 4), out_sharding=s)


def test_error_device_rank_for_new_shape(env):
    s = NamedSharding(env["auto"], P("x", "y"))
    with pytest.raises(
        ValueError, match=r"jnp\.zeros_like: device=.* 2 entries, more than the 1 dim.*\(32,\)"
    ):
        jnp.zeros_like(env["xa"], shape=(32,), device=s)


def test_error_device_indivisible(env):
    s = NamedSharding(env["auto"], P("y"))
    with pytest.raises(IndivisibleError, match=r"jnp\.zeros: .*partitioned 4 times.*6"):
        jnp.zeros((6,), device=s)


def test_error_device_not_a_device():
    with pytest.raises(TypeError, match=r"jnp\.ones: device must be a Device or a Sharding"):
        jnp.ones(3, device="cpu")


def test_error_asarray_committed_elsewhere(env):
    with pytest.raises(
        ValueError,
        match=r"jnp\.asarray: the argument of shape \(8, 4\) is committed to devices "
        r"\[0, 1, 2, 3, 4, 5, 6, 7\], but device= names devices \[3\]",
    ):
        jnp.asarray(env["xa"], device=env["dev3"])


def test_error_astype_committed_elsewhere(env):
    with pytest.raises(ValueError, match=r"jnp\.astype: .*committed to devices \[3\].*\[5\]"):
        jnp.astype(env["xd"], jnp.int32, device=spmd.devices()[5])


def test_error_empty_like_takes_no_out_sharding(env):
    with pytest.raises(
        TypeError, match=r"empty_like\(\) got an unexpected keyword argument .out_sharding"
    ):
        jnp.empty_like(env["xe"], out_sharding=P())


def test_error_operands_committed_to_different_devices(env):
    other = spmd.device_put(np.ones((8, 4), np.float32), spmd.devices()[5])
    with pytest.raises(
        ValueError,
        match=r"(?i)incompatible devices.* of add.* shape f32\[8,4\].*device ids \[3\].*"
        r"add.* shape f32\[8,4\].*device ids \[5\]",
    ):
        env["xd"] + other


def test_error_to_device_stream():
    with pytest.raises(NotImplementedError, match="to_device: stream"):
        jnp.ones(3).to_device(spmd.devices()[2], stream=1)
