"""``nn.dot_product_attention`` and the ``nn``/``jnp`` functions rewritten as JAX 0.10 writes
them (standardize, logsumexp, logmeanexp, identity, glu, elu, clip, square) against results
recorded from JAX (``tests/golden/nn_more.json``, written by ``tests/golden_gen/nn_more_gen.py``
from the cases of ``tests/cases_nn_more.py``; JAX is not needed here).

Each case runs eagerly and under ``spmd.jit``, and its gradient where it has ``grad`` argnums:
dtypes, weak types and shapes exact, integers and bools exact, floats within JAX's default
tolerances (loosened per case). Error cases raise JAX's builtin exception class with a message
that names the function and the sizes. ``vmap`` of attention is checked against a loop.
"""

from __future__ import annotations

import builtins
import json
import re
from pathlib import Path

import numpy as np
import pytest
from cases_nn_more import CASES, DPA, Q4, K, Q, V, loss, smooth
from cases_numpy import flatten
from golden_compare import compare, to_spmd

import spmd
import spmd.numpy as jnp
from spmd import lax, nn

GOLDEN = json.loads((Path(__file__).parent / "golden" / "nn_more.json").read_text())["cases"]


def _params():
    out = []
    for c in CASES:
        modes = ["eager"] if c.error else ["eager"] + ["jit"] * c.jit + ["grad"] * bool(c.grad)
        out += [pytest.param(c, m, id=f"{c.name}-{m}") for m in modes]
    return out


@pytest.mark.parametrize("case,mode", _params())
def test_case(case, mode):
    golden = GOLDEN.get(case.name)
    assert golden is not None, f"no golden for {case.name}: run tests/golden_gen/nn_more_gen.py"
    fn, args = case.build(nn, jnp, lax)
    args = [to_spmd(a) for a in args]
    if "error" in golden:
        with pytest.raises(getattr(builtins, golden["error"])) as info:
            fn(*args)
        if case.match:
            assert re.search(case.match, str(info.value)), str(info.value)
        return
    if mode == "grad":
        out = spmd.grad(lambda *a: loss(jnp, fn(*a)), argnums=case.grad)(*args)
        expected = golden["grad"]
    else:
        out = spmd.jit(fn)(*args) if mode == "jit" else fn(*args)
        expected = golden["jit"] if mode == "jit" and "jit" in golden else golden["eager"]
    tree, leaves = flatten(out)
    errs = compare(expected, tree, leaves, case.tol)
    assert not errs, f"{case.name} ({mode}):\n  " + "\n  ".join(errs)


def test_goldens_match_cases():
    names = {c.name for c in CASES}
    assert names == set(GOLDEN), (
        f"regenerate goldens: missing {sorted(names - set(GOLDEN))}, "
        f"stale {sorted(set(GOLDEN) - names)}"
    )


def test_error_cases_declare_the_class_jax_raises():
    for c in CASES:
        assert (c.error is None) == ("error" not in GOLDEN[c.name]), c.name
        if c.error:
            assert GOLDEN[c.name]["error"] == c.error, c.name


# ---------------------------------------------------------------------------------------------
# dot_product_attention under vmap and jit (no goldens needed: a loop is the reference)


def test_attention_vmap_over_a_leading_axis_is_a_loop():
    qs = np.stack([Q4, Q4[::-1] * 0.5])
    out = spmd.vmap(lambda q: nn.dot_product_attention(q, K, V, is_causal=True))(qs)
    for i in range(2):
        want = nn.dot_product_attention(qs[i], K, V, is_causal=True)
        np.testing.assert_allclose(np.asarray(out[i]), np.asarray(want), rtol=1e-6, atol=1e-7)


def test_attention_vmap_of_bias_and_lengths():
    bias = smooth((3, 2, 2, 3, 4), 2.0)
    lens = np.array([[1, 4], [2, 2], [4, 3]], np.int32)

    def f(b, kl):
        return nn.dot_product_attention(Q, K, V, b, key_value_seq_lengths=kl)

    out = spmd.vmap(f)(bias, lens)
    for i in range(3):
        np.testing.assert_allclose(
            np.asarray(out[i]), np.asarray(f(bias[i], lens[i])), rtol=1e-6, atol=1e-7
        )


def test_attention_grad_under_vmap_matches_a_loop():
    qs = np.stack([Q, Q * -0.7])

    def g(q):
        return spmd.grad(lambda q: loss(jnp, nn.dot_product_attention(q, K, V)))(q)

    out = spmd.vmap(g)(qs)
    for i in range(2):
        np.testing.assert_allclose(np.asarray(out[i]), np.asarray(g(qs[i])), rtol=1e-5, atol=1e-6)


def test_attention_grouped_query_equals_repeated_heads():
    # Query head k * G + g attends with key/value head k: repeating each key/value head G times
    # gives ordinary multi-head attention with the same result.
    out = nn.dot_product_attention(Q4, K, V)
    rep = nn.dot_product_attention(Q4, np.repeat(K, 2, axis=2), np.repeat(V, 2, axis=2))
    np.testing.assert_allclose(np.asarray(out), np.asarray(rep), rtol=1e-6, atol=1e-7)


def test_attention_jit_traces_once_per_structure():
    f = spmd.jit(lambda q, k, v: nn.dot_product_attention(q, k, v, is_causal=True))
    np.testing.assert_allclose(
        np.asarray(f(Q, K, V)),
        np.asarray(nn.dot_product_attention(Q, K, V, is_causal=True)),
        rtol=1e-6,
        atol=1e-7,
    )
    text = str(spmd.make_jaxpr(f)(Q, K, V))
    assert "dot_general" in text and "exp" in text


def test_attention_matches_a_numpy_reference():
    # softmax(q k^T / sqrt(H)) v per batch and head, in float64.
    q, k, v = (np.asarray(a, np.float64) for a in (Q, K, V))
    logits = np.einsum("btnh,bsnh->bnts", q, k) / np.sqrt(q.shape[-1])
    p = np.exp(logits - logits.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    want = np.einsum("bnts,bsnh->btnh", p, v)
    got = nn.dot_product_attention(Q, K, V)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)


def test_attention_is_exported():
    assert nn.dot_product_attention.__name__ == DPA
