"""spmd.numpy and spmd.lax against results recorded from JAX (``tests/golden/numpy.json``).

Each case of ``tests/cases_numpy.py`` runs eagerly and under ``spmd.jit``; dtype, weak type and
shape must be exact, integers and bools exact, floats within a tolerance by dtype (JAX's
defaults, loosened per case for transcendental functions). Regenerate the goldens with
``/path/to/jax/python tests/gen_golden.py`` after changing the cases.
"""

from __future__ import annotations

import builtins
import json
from pathlib import Path

import pytest
from cases_numpy import CASES, flatten
from golden_compare import compare, to_spmd

import spmd
import spmd.numpy as jnp
from spmd import lax

GOLDEN = json.loads((Path(__file__).parent / "golden" / "numpy.json").read_text())["cases"]

# Cases whose spmd result is known to be wrong: name (both modes) or "name/eager", "name/jit"
# -> reason. They are strict xfails, so a fix shows up as a failure until it is removed here.
KNOWN_FAILURES: dict[str, str] = {}


def _params():
    out = []
    for c in CASES:
        for mode in ("eager", "jit"):
            if mode == "jit" and (not c.jit or c.error):
                continue
            reason = KNOWN_FAILURES.get(c.name) or KNOWN_FAILURES.get(f"{c.name}/{mode}")
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            out.append(pytest.param(c, mode, id=f"{c.name}-{mode}", marks=marks))
    return out


@pytest.mark.parametrize("case,mode", _params())
def test_case(case, mode):
    if case.name not in GOLDEN:
        pytest.fail(f"no golden for {case.name}: regenerate with tests/gen_golden.py")
    golden = GOLDEN[case.name]
    fn, args = case.build(jnp, lax)
    args = [to_spmd(a) for a in args]
    if "error" in golden:
        with pytest.raises(getattr(builtins, golden["error"], Exception)):
            fn(*args)
        return
    expected = golden["jit"] if mode == "jit" and "jit" in golden else golden["eager"]
    out = spmd.jit(fn)(*args) if mode == "jit" else fn(*args)
    tree, leaves = flatten(out)
    errs = compare(expected, tree, leaves, case.tol)
    assert not errs, f"{case.name} ({mode}):\n  " + "\n  ".join(errs)


def test_goldens_match_cases():
    """Every case has a golden and every golden a case (else regenerate the goldens)."""
    names = {c.name for c in CASES}
    assert not names - set(GOLDEN), f"cases without goldens: {sorted(names - set(GOLDEN))}"
    assert not set(GOLDEN) - names, f"stale goldens: {sorted(set(GOLDEN) - names)}"


def test_known_failures_are_cases():
    names = {c.name for c in CASES}
    stale = [k for k in KNOWN_FAILURES if k.split("/")[0] not in names]
    assert not stale, f"KNOWN_FAILURES names no case: {stale}"
