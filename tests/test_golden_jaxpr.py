"""``spmd.make_jaxpr`` prints exactly what ``jax.make_jaxpr`` prints (``tests/golden/jaxpr.json``).

The programs are in ``tests/cases_jaxpr.py``; regenerate the goldens with
``/path/to/jax/python tests/gen_golden.py`` after changing them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cases_jaxpr import CASES

import spmd
import spmd.numpy as jnp
from spmd import lax

GOLDEN = json.loads((Path(__file__).parent / "golden" / "jaxpr.json").read_text())["cases"]

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


def test_goldens_match_cases():
    assert set(CASES) == set(GOLDEN), (
        f"regenerate goldens: missing {sorted(set(CASES) - set(GOLDEN))}, "
        f"stale {sorted(set(GOLDEN) - set(CASES))}"
    )
