"""JAX's tutorials run unchanged (``import spmd as jax``) and record what JAX 0.10.2 recorded,
cell by cell: each program on 8 devices in a process of its own, and the multi-controller page's
programs as an MPI job of two processes of 4 devices.

The programs are tests/tutorials/*_tutorial.py; tests/golden_gen/tutorials_gen.py recorded JAX's
run of the same programs (tests/golden/tutorials/NAME.json and tutorials_multiprocess.json).
Ints, bools, dtypes, shapes, shardings, texts and error classes compare exactly, floats at JAX's
tolerance for their dtype (a cell may record a looser one: losses after a matmul chain).
Deliberate or open differences are listed in the program's ``KNOWN`` with the reason, and
checked: spmd must record exactly the value listed there.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_multiprocess import lines, needs_mpi, run_job

TESTS = Path(__file__).resolve().parent
TUTORIALS = TESTS / "tutorials"
sys.path.insert(0, str(TUTORIALS))
from record import differences  # noqa: E402

GOLDEN_DIR = TESTS / "golden" / "tutorials"
# Single-process programs; the multi-controller one runs as an MPI job below.
PROGRAMS = sorted(
    n for n in (p.name.removesuffix("_tutorial.py") for p in TUTORIALS.glob("*_tutorial.py"))
    if n != "multi_controller"
)  # fmt: skip
GOLDEN_MP = json.loads((TESTS / "golden" / "tutorials_multiprocess.json").read_text())


def _program(name: str):
    spec = importlib.util.spec_from_file_location(name, TUTORIALS / f"{name}_tutorial.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(name: str, tmp: Path) -> dict:
    out = tmp / f"{name}.json"
    cmd = [sys.executable, str(TUTORIALS / "run.py"), "spmd", name, str(out)]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(out.read_text())


def _compare(got: dict, want: dict, known: dict) -> list[str]:
    assert sorted(got) == sorted(want), sorted(set(got) ^ set(want))
    failures = []
    for cell, rec in want.items():
        if cell in known:
            listed = known[cell][0]
            if listed is not None and got[cell]["value"] != listed:
                failures.append(f"{cell}: {got[cell]['value']} (listed as {listed})")
            if not differences(got[cell]["value"], rec["value"], rec.get("tol")):
                failures.append(f"{cell}: listed as a difference but now agrees with JAX")
            continue
        failures += differences(got[cell]["value"], rec["value"], rec.get("tol"), cell)
    return failures


@pytest.mark.parametrize("name", PROGRAMS)
def test_tutorial(name, tmp_path):
    """Every cell of the program records what JAX's run recorded, but for the cells its
    ``KNOWN`` lists (cell -> (what spmd records, why it differs)), which must record exactly
    the listed value (None: any value that differs from JAX's)."""
    golden = json.loads((GOLDEN_DIR / f"{name}.json").read_text())
    known = getattr(_program(name), "KNOWN", {})
    assert set(known) <= set(golden["cells"]), sorted(set(known) - set(golden["cells"]))
    failures = _compare(_run(name, tmp_path), golden["cells"], known)
    assert not failures, "\n".join(failures)


def test_every_program_has_a_golden_record():
    assert PROGRAMS == sorted(p.stem for p in GOLDEN_DIR.glob("*.json"))


@needs_mpi
def test_multi_controller_tutorial(tmp_path):
    program = TUTORIALS / "multi_controller_tutorial.py"
    lines(run_job(2, 4, program, "spmd", str(tmp_path)))
    failures = []
    for r in range(2):
        got = json.loads((tmp_path / f"rank{r}.json").read_text())
        want = GOLDEN_MP[f"rank{r}"]
        assert sorted(got) == sorted(want)
        for cell, rec in want.items():
            failures += differences(got[cell]["value"], rec["value"], rec.get("tol"), f"{r}:{cell}")
    assert not failures, "\n".join(failures)


def test_differences_is_strict():
    f32 = {"dtype": "float32", "shape": [2], "values": [1.0, 2.0], "sharding": [{"x": 2}, ["x"]]}
    assert not differences(dict(f32, values=[1.0, 2.0000005]), f32)
    assert differences(dict(f32, values=[1.0, 2.001]), f32)
    assert differences(dict(f32, sharding=[{"x": 2}, []]), f32)
    assert differences(dict(f32, dtype="float64"), f32)
    assert differences({"error": "TypeError"}, {"error": "ValueError"})
    assert differences("float32[3]", "float32[3]{V:i}")


# What the tutorials found, each at its smallest.


def test_operands_on_other_devices_or_order_are_refused():
    import numpy as np

    import spmd
    from spmd.sharding import Mesh, NamedSharding
    from spmd.sharding import PartitionSpec as P

    devs = spmd.devices()
    x = np.arange(8.0, dtype=np.float32)
    a = spmd.device_put(x, NamedSharding(Mesh(devs[:4], "x"), P("x")))
    b = spmd.device_put(x, NamedSharding(Mesh(devs[4:], "x"), P("x")))
    with pytest.raises(ValueError, match=r"incompatible devices.*argument 0 of add with shape "
                                         r"f32\[8\] and device ids \[0, 1, 2, 3\].*argument 1 "
                                         r"of add .*device ids \[4, 5, 6, 7\]"):  # fmt: skip
        a + b
    order = [devs[i] for i in [0, 1, 2, 3, 6, 7, 4, 5]]
    c = spmd.device_put(x, NamedSharding(Mesh(devs, "x"), P("x")))
    d = spmd.device_put(x, NamedSharding(Mesh(order, "x"), P("x")))
    with pytest.raises(ValueError, match=r"device ids \[0, 1, 2, 3, 6, 7, 4, 5\]"):
        c * d
    # The same devices in the same order (another mesh shape over them) and uncommitted
    # operands are fine.
    e = spmd.device_put(x.reshape(4, 2), NamedSharding(Mesh(np.array(devs).reshape(4, 2),
                                                            ("a", "b")), P("a", "b")))  # fmt: skip
    assert float((c.reshape(4, 2) + e).sum()) == 56.0
    assert float((c + spmd.numpy.ones(8)).sum()) == 36.0
    # jit too compares the device order, as JAX's does.
    with pytest.raises(ValueError, match=r"incompatible devices for jitted computation.*"
                                         r"device ids \[0, 1, 2, 3, 6, 7, 4, 5\]"):  # fmt: skip
        spmd.jit(lambda u, v: u + v)(c, d)
    assert float(spmd.jit(lambda u, v: u + v)(c, c).sum()) == 56.0


@pytest.mark.parametrize("loop", ["scan", "fori_loop", "while_loop"])
def test_loop_carry_gaining_variance_in_shard_map_is_a_type_error(loop):
    import spmd
    import spmd.numpy as jnp
    from spmd.sharding import PartitionSpec as P

    mesh = spmd.make_mesh((2,), ("i",))
    swap = {
        "scan": lambda x, y: spmd.lax.scan(lambda c, _: ((c[1], c[0]), None), (x, y), None, 2)[0],
        "fori_loop": lambda x, y: spmd.lax.fori_loop(0, 2, lambda i, c: (c[1], c[0]), (x, y)),
        "while_loop": lambda x, y: spmd.lax.while_loop(
            lambda c: c[2] < 2, lambda c: (c[1], c[0], c[2] + 1), (x, y, 0)
        )[:2],
    }[loop]
    f = spmd.shard_map(swap, mesh=mesh, in_specs=(P("i"), P()), out_specs=P("i"))
    what = "while_loop" if loop == "while_loop" else "scan"
    with pytest.raises(TypeError, match=rf"{what} body function carry input and carry output "
                                        r"must have equal types.*invariant over mesh axes "
                                        r"\('i',\) on input but varies"):  # fmt: skip
        f(jnp.arange(6.0), jnp.arange(3.0))
    # With the initial carry cast to varying, as JAX asks, it runs.
    fixed = spmd.shard_map(
        lambda x, y: swap(x, spmd.lax.pcast(y, "i", to="varying")),
        mesh=mesh, in_specs=(P("i"), P()), out_specs=P("i"),
    )  # fmt: skip
    out = fixed(jnp.arange(6.0), jnp.arange(3.0))
    assert [float(v) for v in out[0]] == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_mesh_takes_axis_types_by_position():
    import spmd
    from spmd.sharding import AxisType, Mesh

    m = Mesh(spmd.devices()[:2], ("s",), (AxisType.Explicit,))
    assert m.axis_types == (AxisType.Explicit,)


def test_complex_values_are_recorded_and_compared():
    import numpy as np
    from record import encode

    z = encode(np.array([1.5 - 2j, np.nan + 1j], np.complex64))
    assert z["values"] == ["(1.5-2j)", "(nan+1j)"]
    json.dumps(z)  # JSON has no complex numbers
    assert not differences(dict(z, values=["(1.5000001-2j)", "(nan+1j)"]), z)
    assert differences(dict(z, values=["(1.5+2j)", "(nan+1j)"]), z)
