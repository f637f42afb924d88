"""Autodiff, and its compositions with vmap and jit, against JAX (``tests/golden/ad.json``).

Each case of ``tests/cases_ad.py`` runs eagerly and under ``spmd.jit``; dtypes, weak types and
shapes must be exact, floats within ``cases_ad.TOL`` (or the case's own tolerance). Regenerate
the goldens with ``/path/to/jax/python tests/golden_gen/ad_gen.py`` after changing the cases.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cases_ad import CASE_TOL, CASES, TOL
from cases_numpy import flatten
from golden_compare import compare, to_spmd

import spmd
import spmd.numpy as jnp
from spmd import lax

GOLDEN = json.loads((Path(__file__).parent / "golden" / "ad.json").read_text())["cases"]

# Cases known to fail: name (both modes) or "name/eager", "name/jit" -> reason. Strict xfails:
# a fix shows up as a failure until its entry is removed.
KNOWN_FAILURES: dict[str, str] = {}


def _params():
    out = []
    for name in CASES:
        for mode in ("eager", "jit"):
            reason = KNOWN_FAILURES.get(name) or KNOWN_FAILURES.get(f"{name}/{mode}")
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            out.append(pytest.param(name, mode, id=f"{name}-{mode}", marks=marks))
    return out


@pytest.mark.parametrize("name,mode", _params())
def test_case(name, mode):
    if name not in GOLDEN:
        pytest.fail(f"no golden for {name}: regenerate with tests/golden_gen/ad_gen.py")
    fn, args = CASES[name](spmd, jnp, lax)
    args = [to_spmd(a) for a in args]
    golden = GOLDEN[name]
    expected = golden["jit"] if mode == "jit" and "jit" in golden else golden["eager"]
    out = spmd.jit(fn)(*args) if mode == "jit" else fn(*args)
    tree, leaves = flatten(out)
    errs = compare(expected, tree, leaves, {**TOL, **CASE_TOL.get(name, {})})
    assert not errs, f"{name} ({mode}):\n  " + "\n  ".join(errs)


def test_goldens_match_cases():
    assert set(CASES) == set(GOLDEN), (
        f"regenerate goldens: missing {sorted(set(CASES) - set(GOLDEN))}, "
        f"stale {sorted(set(GOLDEN) - set(CASES))}"
    )


def test_known_failures_are_cases():
    stale = [k for k in KNOWN_FAILURES if k.split("/")[0] not in CASES]
    assert not stale, f"KNOWN_FAILURES names no case: {stale}"
