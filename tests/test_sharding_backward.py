"""Shardings pulled back from a constraint onto an unplaced argument, against JAX 0.10.

The sweep (tests/golden_gen/sharding_backward_gen.py, recorded into
tests/golden/sharding_backward.json) constrains one function of an uncommitted input and returns
``x + 1`` too: its sharding is what propagation gave ``x``, walking backward from the constraint
through elementwise ops, transposes, reshapes, reductions, a contraction, broadcasts, slices and
a concatenation. Both results' specs must equal JAX's, and their values the unconstrained
program's.
"""

import importlib.util
import json
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest
from golden_compare import check_cases, known_failure_params

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd.sharding import AxisType, NamedSharding, UnevenShardingWarning
from spmd.sharding import PartitionSpec as P

_HERE = Path(__file__).parent
sys.path.insert(0, str(_HERE / "golden_gen"))
_spec = importlib.util.spec_from_file_location(
    "sharding_backward_gen", _HERE / "golden_gen" / "sharding_backward_gen.py"
)
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

GOLDEN = json.loads((_HERE / "golden" / "sharding_backward.json").read_text())

# Cases whose shardings do not (yet) equal JAX's: name -> reason. Run as strict xfails.
KNOWN_FAILURES: dict[str, str] = {}

_MESHES = {
    mk: spmd.make_mesh(shape, names, axis_types=(AxisType.Auto,) * len(names))
    for mk, (shape, names) in gen.MESHES.items()
}
(_X,) = gen.inputs(np, [gen.SHAPE])


def _check(name, mk, prog, spec):
    want = GOLDEN[name]
    ns = types.SimpleNamespace(jax=spmd, jnp=jnp, lax=lax, NamedSharding=NamedSharding, P=P)
    ns.mesh = _MESHES[mk]
    with warnings.catch_warnings():
        # Some constraints split a dimension its shards do not divide, on purpose (JAX keeps
        # the axes that divide it): the warning saying so is not what is tested here.
        warnings.simplefilter("ignore", UnevenShardingWarning)
        a, b = spmd.jit(gen.program(ns, prog, spec))(jnp.asarray(_X))
    got = {
        "constrained": gen.spec_json(a.sharding, NamedSharding),
        "x": gen.spec_json(b.sharding, NamedSharding),
    }
    assert got == want, f"{got} != JAX's {want}"
    ref = gen.PROGRAMS[prog][0](ns, jnp.asarray(_X))
    np.testing.assert_array_equal(np.asarray(a), np.asarray(ref))
    np.testing.assert_array_equal(np.asarray(b), _X + 1)


_GROUPS: dict = {}
for _c in gen.cases():
    if _c[0] not in KNOWN_FAILURES:
        _GROUPS.setdefault(f"{_c[1]}:{_c[2]}", []).append(_c)


@pytest.mark.parametrize("group", sorted(_GROUPS))
def test_backward_shardings_match_jax(group):
    check_cases(_GROUPS[group], _check)


if KNOWN_FAILURES:

    @pytest.mark.parametrize("case", known_failure_params(gen.cases(), KNOWN_FAILURES))
    def test_known_failures(case):
        _check(*case)
