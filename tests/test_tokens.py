"""Tokens (``lax.create_token``, ``lax.after_all``) against JAX 0.10.2
(``tests/golden/tokens.json``, written by ``tests/golden_gen/tokens_gen.py`` from
``tests/cases_tokens.py``; no JAX here): the values computed next to tokens eagerly, under jit
and grad, their jaxprs, and the TypeError for a non-token.
"""

from __future__ import annotations

import types

import numpy as np
import pytest
from cases_tokens import CASES, JAXPR_CASES
from golden_compare import golden_family_tests, load_golden, load_golden_family

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
    assert type(t).__name__ == "Token" and t.block_until_ready() is None
    assert type(lax.after_all(t, lax.create_token(np.ones(2)))) is type(t)
    assert str(spmd.make_jaxpr(lambda t: lax.after_all(t))(t)) == (
        "{ lambda ; a:Tok. let b:Tok = after_all a in (b,) }"  # as JAX 0.10.2 prints it
    )
    # A token passed into jit is a Tok argument; one returned comes back as a new Token.
    out = spmd.jit(lambda t: lax.after_all(t, lax.create_token()))(t)
    assert type(out) is type(t) and out is not t and lax.create_token_p.name == "create_token"


OBJECTS_GEN, OBJECTS = load_golden_family("tokens", "objects")


@pytest.mark.parametrize("name", sorted(OBJECTS))
def test_objects_match_jax(name):
    # Tokens outside programs, as JAX's: jit gives results that are tokens back as Token objects
    # (not bool Arrays), takes them back as arguments, and eval_shape/typeof/device_put/tree_util
    # treat them as JAX does.
    ns = types.SimpleNamespace(jax=spmd, lax=lax, jnp=jnp, np=np)
    assert OBJECTS_GEN.objects(ns)[name] == OBJECTS[name]


def test_docstring_examples():
    import doctest

    from spmd._src.lax import tokens

    result = doctest.testmod(tokens, optionflags=doctest.ELLIPSIS, verbose=False)
    assert result.attempted > 0 and result.failed == 0


def test_token_results_of_a_partitioned_run():
    # With spmd_partition='always' a jit over sharded arguments runs per device; its token
    # results are Tokens too.
    mesh = spmd.make_mesh((2,), ("x",))
    x = spmd.device_put(jnp.arange(4.0), spmd.sharding.NamedSharding(mesh, spmd.P("x")))
    spmd.config.update("spmd_partition", "always")
    try:
        t, y = spmd.jit(lambda x: (lax.create_token(), x * 2))(x)
    finally:
        spmd.config.update("spmd_partition", "auto")
    assert type(t).__name__ == "Token" and y.sharding == x.sharding
    np.testing.assert_array_equal(np.asarray(y), [0.0, 2.0, 4.0, 6.0])
