"""Golden cases for tokens (``lax.create_token``, ``lax.after_all``): one list, run by JAX
(``tests/golden_gen/tokens_gen.py``) and by spmd (``tests/test_tokens.py``), in the format of
``tests/cases_dot_algorithms.py``. Outputs are arrays computed next to the tokens (a token has
no value to record); the jaxprs show the tokens.
"""

from __future__ import annotations

import numpy as np
from cases_family import case_adder, top_module
from cases_lax_more import Case

CASES: list[Case] = []
JAXPR_CASES: list[str] = []

case = case_adder(CASES, JAXPR_CASES)


X = np.linspace(-1.0, 1.0, 5).astype(np.float32)


def _joined(jnp, lax):
    def fn(x):
        t = lax.after_all(lax.create_token(), lax.create_token(x))
        lax.after_all(t)
        return x * 2.0

    return fn


case("tokens_joined", _joined, X, grad=(0,), jaxpr=True)
case(
    "after_all_of_none",
    lambda jnp, lax: lambda x: (lax.after_all(), x + 1.0)[1],
    X,
    jaxpr=True,
)
case(
    "tokens_under_vmap",
    lambda jnp, lax: lambda x: top_module(lax).vmap(lambda v: (lax.create_token(), v * v)[1])(x),
    X,
)
case(
    "after_all_of_an_array",
    lambda jnp, lax: lambda x: lax.after_all(lax.create_token(), x),
    X,
    error="TypeError",
    match=r"^Arguments to after_all must be tokens \(after_all: argument 1 of 2 is f32\[5\]\)",
)
