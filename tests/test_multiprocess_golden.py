"""spmd's multi-process semantics against JAX's: tests/multiprocess/semantics.py run as a job of
two processes of 4 devices, record by record against JAX's two-process run of the same program
(tests/golden/multiprocess.json, from tests/golden_gen/multiprocess_gen.py).

Ints, dtypes, shapes, shardings and error classes compare exactly, floats to 1e-6. One
deliberate difference: JAX numbers the CPU devices of process p from p * 2048, spmd
consecutively (as JAX numbers TPU and GPU devices), so device ids compare by their position in
``jax.devices()``.
"""

from __future__ import annotations

import json

import pytest
from test_multiprocess import HERE, lines, needs_mpi, run_job

GOLDEN = json.loads((HERE.parent / "golden" / "multiprocess.json").read_text())
# Records holding device ids: where, inside each, the ids are.
ID_RECORDS = {"devices", "local_devices", "local_data", "local_data_1d", "callback"}


def _positions(rec: dict) -> dict:
    """The record with each device id replaced by its position in jax.devices()."""
    pos = {d: i for i, (d, _) in enumerate(rec["devices"])}
    out = dict(rec)
    out["devices"] = [[pos[d], p] for d, p in rec["devices"]]
    out["local_devices"] = [pos[d] for d in rec["local_devices"]]
    out["local_data"] = rec["local_data"][:3] + [
        [[pos[s[0]], *s[1:]] for s in rec["local_data"][3]]
    ]
    out["local_data_1d"] = rec["local_data_1d"][:2] + [
        [[pos[s[0]], *s[1:]] for s in rec["local_data_1d"][2]]
    ]
    out["callback"] = [[[pos[s[0]], *s[1:]] for s in rec["callback"][0]], rec["callback"][1]]
    return out


def _differences(got, want, path="") -> list[str]:
    if isinstance(want, float) and not isinstance(got, bool) and isinstance(got, (int, float)):
        return [] if abs(got - want) <= 1e-6 * (1 + abs(want)) else [f"{path}: {got} != {want}"]
    if isinstance(want, list) and isinstance(got, list):
        if len(got) != len(want):
            return [f"{path}: {len(got)} items != {len(want)}: {str(got)[:300]}"]
        return [
            d for i, (g, w) in enumerate(zip(got, want)) for d in _differences(g, w, f"{path}[{i}]")
        ]
    return [] if got == want else [f"{path}: {str(got)[:300]} != {str(want)[:300]}"]


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    out = tmp_path_factory.mktemp("semantics")
    lines(run_job(2, 4, HERE / "semantics.py", "spmd", str(out)))
    return {r: json.loads((out / f"rank{r}.json").read_text()) for r in range(2)}


@needs_mpi
def test_every_record_is_compared(records):
    for r in range(2):
        assert sorted(records[r]) == sorted(GOLDEN[f"rank{r}"])


@needs_mpi
@pytest.mark.parametrize("name", sorted(GOLDEN["rank0"]))
def test_matches_jax(records, name):
    for r in range(2):
        got, want = _positions(records[r]), _positions(GOLDEN[f"rank{r}"])
        assert not _differences(got[name], want[name], f"rank {r}: {name}")
