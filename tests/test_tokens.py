"""Tokens (``lax.create_token``, ``lax.after_all``) against JAX 0.10.2
(``tests/golden/tokens.json``, written by ``tests/golden_gen/tokens_gen.py`` from
``tests/cases_tokens.py``; no JAX here): the values computed next to tokens eagerly, under jit
and grad, their jaxprs, and the TypeError for a non-token.
"""

from __future__ import annotations

import numpy as np
from cases_tokens import CASES, JAXPR_CASES
from golden_compare import golden_family_tests, load_golden

import spmd
import spmd.numpy as jnp
from spmd import lax

GOLDEN = load_golden("tokens")
# Values, gradients, errors and jaxprs against the golden records (bound to test_* names so
# pytest collects them here).
FAMILY = golden_family_tests(CASES, GOLDEN, jnp, lax, JAXPR_CASES)
test_values, test_grad, test_errors = FAMILY.values, FAMILY.grad, FAMILY.errors
test_jaxpr, test_every_case_has_a_golden = FAMILY.jaxpr, FAMILY.every_case_has_a_golden


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
