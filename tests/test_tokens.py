"""Tokens (``lax.create_token``, ``lax.after_all``) against JAX 0.10.2
(``tests/golden/tokens.json``, written by ``tests/golden_gen/tokens_gen.py`` from
``tests/cases_tokens.py``; no JAX here): the values computed next to tokens eagerly, under jit
and grad, their jaxprs, and the TypeError for a non-token.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from cases_lax_more import weighted_sum
from cases_tokens import CASES, JAXPR_CASES
from golden_compare import to_spmd
from test_dot_algorithms import _compare, _error_class

import spmd
import spmd.numpy as jnp
from spmd import lax

GOLDEN = json.loads((Path(__file__).parent / "golden" / "tokens.json").read_text())["cases"]


def _args(case):
    return [to_spmd(a) for a in case.args]


@pytest.mark.parametrize(
    "case,mode",
    [
        pytest.param(c, m, id=f"{c.name}-{m}")
        for c in CASES
        if not c.error
        for m in ("eager", "jit")
    ],
)
def test_values(case, mode):
    fn = case.make(jnp, lax)
    golden = GOLDEN[case.name]
    out = (spmd.jit(fn) if mode == "jit" else fn)(*_args(case))
    _compare(out, golden.get(mode, golden["eager"]), "value")


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES if c.grad])
def test_grad(case):
    fn = case.make(jnp, lax)
    g = spmd.grad(lambda *a: weighted_sum(jnp, fn(*a)), argnums=case.grad)
    _compare(tuple(g(*_args(case))), GOLDEN[case.name]["grad"], "gradient")


@pytest.mark.parametrize(
    "case,mode",
    [pytest.param(c, m, id=f"{c.name}-{m}") for c in CASES if c.error for m in ("eager", "jit")],
)
def test_errors(case, mode):
    assert GOLDEN[case.name]["error"] == case.error
    fn = case.make(jnp, lax)
    if mode == "jit":
        fn = spmd.jit(fn)
    with pytest.raises(_error_class(case.error)) as info:
        fn(*_args(case))
    assert re.search(case.match, str(info.value)), str(info.value)


@pytest.mark.parametrize("name", JAXPR_CASES)
def test_jaxpr(name):
    case = next(c for c in CASES if c.name == name)
    got = str(spmd.make_jaxpr(case.make(jnp, lax))(*_args(case)))
    assert got == GOLDEN[name]["jaxpr"]


def test_every_case_has_a_golden():
    assert sorted(c.name for c in CASES) == sorted(GOLDEN)


def test_token_objects():
    t = lax.create_token()
    assert type(t).__name__ == "Token" and t.block_until_ready() is t
    assert type(lax.after_all(t, lax.create_token(np.ones(2)))) is type(t)
    assert str(spmd.make_jaxpr(lambda t: lax.after_all(t))(t)) == (
        "{ lambda ; a:Tok. let b:Tok = after_all a in (b,) }"  # as JAX 0.10.2 prints it
    )
    # A token passed into jit is a Tok argument; one returned comes back as a bool[] Array.
    out = spmd.jit(lambda t: lax.after_all(t, lax.create_token()))(t)
    assert np.asarray(out).shape == () and lax.create_token_p.name == "create_token"


def test_docstring_examples():
    import doctest

    from spmd._src.lax import tokens

    result = doctest.testmod(tokens, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0 and result.failed == 0
