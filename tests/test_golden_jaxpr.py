"""``spmd.make_jaxpr`` prints exactly what ``jax.make_jaxpr`` prints.

Two sets of programs, each with its goldens: ``tests/cases_jaxpr.py`` -> ``tests/golden/jaxpr.json``
and ``tests/cases_jaxpr_nn.py`` (square, clip, nn, attention) -> ``tests/golden/jaxpr_nn.json``;
regenerate them with ``/path/to/jax/python tests/gen_golden.py`` after changing the cases.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cases_jaxpr import CASES as BASE_CASES
from cases_jaxpr_nn import CASES as NN_CASES

import spmd
import spmd.numpy as jnp
from spmd import lax

_GOLDEN_DIR = Path(__file__).parent / "golden"
# Case set -> (its cases, its goldens).
SETS = {
    "jaxpr": (BASE_CASES, json.loads((_GOLDEN_DIR / "jaxpr.json").read_text())["cases"]),
    "jaxpr_nn": (NN_CASES, json.loads((_GOLDEN_DIR / "jaxpr_nn.json").read_text())["cases"]),
}
assert not set(BASE_CASES) & set(NN_CASES), "case names must differ between the two sets"
CASES = {**BASE_CASES, **NN_CASES}
GOLDEN = {**SETS["jaxpr"][1], **SETS["jaxpr_nn"][1]}


# Programs whose printed jaxpr is known to differ: name -> reason (strict xfails).
KNOWN_FAILURES: dict[str, str] = {
    # Not shard_map's: JAX 0.10's grad seeds the output cotangent with `reshard 1.0:f32[]`
    # before broadcasting it (sharding in types); spmd.grad (autodiff.py) broadcasts the
    # literal directly. The shard_map equations print the same (see the _vjp case).
    "shard_map_psum_matmul_grad": "grad's seed prints without JAX's `reshard` equation",
}


def _params():
    out = []
    for name in CASES:
        reason = KNOWN_FAILURES.get(name)
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        out.append(pytest.param(name, id=name, marks=marks))
    return out


_NP_INT = re.compile(r"np\.int64\((-?\d+)\)")


def _plain_ints(text: str) -> str:
    # JAX's rules compute some parameters as NumPy integers (``np.int64(1)`` in the text)
    # and others as Python ones, by accident of implementation; the spelling is not compared,
    # nor the line breaks its longer lines get.
    text = _NP_INT.sub(r"\1", text)
    return re.sub(r"\[\n\s+", "[", re.sub(r"\n\s+\]", "]", text))


@pytest.mark.parametrize("name", _params())
def test_jaxpr_text(name):
    fn, args = CASES[name](spmd, jnp, lax)
    got, want = _plain_ints(str(spmd.make_jaxpr(fn)(*args))), _plain_ints(GOLDEN[name])
    assert got == want, f"spmd:\n{got}\n\nJAX:\n{want}"


@pytest.mark.parametrize("name", list(SETS))
def test_goldens_match_cases(name):
    cases, golden = SETS[name]
    assert set(cases) == set(golden), (
        f"regenerate {name}.json: missing {sorted(set(cases) - set(golden))}, "
        f"stale {sorted(set(golden) - set(cases))}"
    )


def test_known_failures_are_cases():
    assert not set(KNOWN_FAILURES) - set(CASES), sorted(set(KNOWN_FAILURES) - set(CASES))
