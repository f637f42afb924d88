"""spmd across processes: jobs of 2 and 4 MPI processes started by ``spmd run``.

The programs under ``tests/multiprocess/`` run as real MPI jobs (MPICH and mpi4py, from the
test extras). The claims checked: a run over processes gives the bits of a run in one process
(DESIGN.md, "Numerics"); each process sees its own devices and shards; a failing rank, ranks
making different collective calls, and a rank that never arrives all end the job with an error
naming what happened, never a hang.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from spmd._src import launcher, multiprocess
from spmd._src.backends import Communicator, SingleProcess, check_calls
from spmd._src.interpreters.batching import Span

HERE = Path(__file__).resolve().parent / "multiprocess"

needs_mpi = pytest.mark.skipif(
    launcher.find_mpiexec() is None, reason="needs MPI: pip install 'spmd[mpi]'"
)


def run_job(n, devices, script, *args, timeout=None, wait=180):
    cmd = [sys.executable, "-m", "spmd", "run", "-n", str(n), "--devices", str(devices)]
    if timeout is not None:
        cmd += ["--timeout", str(timeout)]
    env = {k: v for k, v in os.environ.items() if k not in ("XLA_FLAGS", "SPMD_NUM_DEVICES")}
    return subprocess.run(
        [*cmd, str(script), *args], capture_output=True, text=True, timeout=wait, env=env
    )


def lines(proc) -> list[str]:
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.splitlines()


@needs_mpi
def test_runs_over_processes_give_one_process_bits():
    program = HERE / "bitwise.py"
    one = lines(run_job(1, 8, program, "--partition"))
    two = lines(run_job(2, 4, program))
    four = lines(run_job(4, 2, program))
    assert len(one) == 48
    assert two == one
    assert four == one
    # The executable specification (each body interpreted device by device, every device's
    # operand sent to every process at each collective) gives the same bits as the batched
    # path the jobs above took.
    assert lines(run_job(2, 4, program, "--reference")) == one
    # shard_map, placement and eager elementwise work do not depend on the partition mode: the
    # default one-process run (the batched body over all devices) gives the same bits too.
    default = dict(ln.split(" ", 1) for ln in lines(run_job(1, 8, program)))
    same = ("put_", "shard_map_", "while", "eager_", "pmap_")
    for ln in two:
        name, rest = ln.split(" ", 1)
        if name.startswith(same):
            assert default[name] == rest, name


@needs_mpi
def test_the_multiprocess_example_trains_to_the_same_bits():
    example = HERE.parent.parent / "examples" / "multiprocess_training.py"
    one = lines(run_job(1, 8, example, "--epochs", "1"))
    two = lines(run_job(2, 4, example, "--epochs", "1"))
    assert one[0].startswith("1 process(es) x 8 devices") and two[0].startswith("2 process(es)")
    assert one[1:] == two[1:]
    assert "parameters' hash" in two[-1]


@needs_mpi
def test_devices_stopping_at_their_own_iterations_print_as_in_one_process():
    program = HERE / "prints.py"
    one = sorted(lines(run_job(1, 8, program)))
    two = sorted(lines(run_job(2, 4, program)))
    # Devices 0..7 take 1, 2, 3, 1, 2, 3, 1, 2 steps: 15 prints, then the result.
    assert len(one) == 16 and one[-1].startswith("result ")
    assert two == one


class _Dev:
    def __init__(self, i: int, per: int) -> None:
        self.id, self.process_index = i, i // per


def _layout_of(shape, procs, rank, order=None):
    n = int(np.prod(shape))
    devs = [_Dev(i, n // procs) for i in range(n)]
    order = range(n) if order is None else order
    grid = np.empty(n, dtype=object)
    grid[:] = [devs[i] for i in order]
    mesh = SimpleNamespace(axis_names=("x", "y")[: len(shape)], devices=grid.reshape(shape))
    return multiprocess._find_layout(mesh, SimpleNamespace(size=procs, rank=rank))


def test_each_process_finds_its_slice_of_every_axis():
    where, spans = _layout_of((2, 4), 2, 1)
    assert where == {"first": {"x": 1, "y": 0}, "count": {"x": 1, "y": 4}}
    assert spans["x"] == Span(2, 1, (0, 1), ((0, 1),)) and spans["y"] is None
    # Four processes of two devices on a 2x4 mesh: a 2x2 grid of boxes; the peers along an
    # axis are the processes holding the same slice of the other axis.
    where, spans = _layout_of((2, 4), 4, 1)
    assert where == {"first": {"x": 0, "y": 2}, "count": {"x": 1, "y": 2}}
    assert spans == {
        "x": Span(2, 0, (1, 3), ((0, 2), (1, 3))),
        "y": Span(4, 2, (0, 1), ((0, 1), (2, 3))),
    }
    where, spans = _layout_of((4, 2), 2, 0)
    assert where["count"] == {"x": 2, "y": 2}
    assert spans == {"x": Span(4, 0, (0, 1), ((0, 1),)), "y": None}


def test_meshes_without_a_box_per_process_take_the_reference_path():
    # Interleaved processes; a process without devices in the mesh; boxes of two shapes.
    assert _layout_of((8,), 2, 0, order=[0, 4, 1, 5, 2, 6, 3, 7]) is None
    assert _layout_of((4,), 4, 0, order=None) is not None
    mesh = SimpleNamespace(axis_names=("x",), devices=np.array([_Dev(i, 4) for i in range(4)]))
    assert multiprocess._find_layout(mesh, SimpleNamespace(size=2, rank=0)) is None
    uneven = [_Dev(i, 1) for i in range(3)]
    uneven[2].process_index = 1
    mesh = SimpleNamespace(axis_names=("x",), devices=np.array(uneven, dtype=object))
    assert multiprocess._find_layout(mesh, SimpleNamespace(size=2, rank=0)) is None


def test_peer_gather_joins_the_slices_in_axis_order():
    import spmd
    from spmd._src.lax.parallel.processes import peer_gather

    # A job of one process: the one slice is the whole axis, under vmap and jit too.
    x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    one = Span(3, 0, (0,))
    np.testing.assert_array_equal(peer_gather(x, 1, one, "t"), x)
    out = spmd.jit(spmd.vmap(lambda v: peer_gather(v, 0, one, "t"), in_axes=2))(x)
    np.testing.assert_array_equal(out, np.moveaxis(x, 2, 0))
    # Two peers: the result's dimension is the whole axis (traced, not run: it takes a job).
    two = Span(6, 3, (1, 0))
    text = str(spmd.make_jaxpr(lambda v: peer_gather(v, 1, two, "t"))(x))
    assert "f32[2,6,4] = peer_gather[dim=1 groups=((1, 0),) peers=(1, 0) what=t]" in text, text


def test_allgather_array_stacks_and_refuses_shapes_that_differ():
    class Two(Communicator):
        size = 2

        def _allgather(self, obj, what):
            # The other rank passes a float32[3] (or, for the data, the same array).
            if what == "array":
                return [obj, obj]
            return [obj, (what, ((3,), np.dtype(np.float32)))]

    x = np.arange(3, dtype=np.float32)
    np.testing.assert_array_equal(Two().allgather_array(x, "t"), np.stack([x, x]))
    assert SingleProcess().allgather_array(np.float32(2), "t").shape == (1,)
    with pytest.raises(ValueError, match=r"(?s)psum.*rank 0: float64\[2\].*rank 1: float32\[3\]"):
        Two().allgather_array(np.zeros(2), "psum")


def test_a_groups_mismatch_names_the_jobs_ranks():
    with pytest.raises(RuntimeError, match="(?s)rank 1: psum.*rank 3: all_gather"):
        check_calls(["psum", "all_gather"], (1, 3))
    # A group of the whole job in rank order is the job's communicator itself.
    one = SingleProcess()
    assert one.group(((0,),)) is one


@needs_mpi
def test_a_mesh_of_three_processes(tmp_path):
    lines(run_job(3, 1, HERE / "three.py", str(tmp_path)))
    for r in range(3):
        got = json.loads((tmp_path / f"rank{r}.json").read_text())
        assert got == {"shape": [6], "gathered": [0.0, 0.0, 1.0, 1.0, 2.0, 2.0], "psum": [3.0, 3.0]}


@needs_mpi
def test_each_process_sees_its_devices_and_shards(tmp_path):
    lines(run_job(2, 4, HERE / "api.py", str(tmp_path)))
    got = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]
    value = np.arange(32, dtype=np.float32).reshape(4, 8)
    for r, out in enumerate(got):
        assert out["count"] == 2
        assert out["devices"] == list(range(8))
        assert out["device_procs"] == [0] * 4 + [1] * 4
        assert out["local"] == list(range(4 * r, 4 * r + 4))
        assert out["initialized"] is True
        assert out["second_initialize"] == "distributed.initialize should only be called once."
        assert out["type"] == "GlobalArray" and out["isinstance"] is True
        assert out["fully_addressable"] is False
        # Process r holds rows 2r:2r+2, split over its four devices' columns.
        assert out["shards"] == [[4 * r + k, [[2 * r, 2 * r + 2], [2 * k, 2 * k + 2]]]
                                 for k in range(4)]  # fmt: skip
        assert out["shard_data"] == [value[2 * r : 2 * r + 2, 0:2].tolist()]
        assert "process_allgather" in out["asarray_error"]
        assert out["covered"] is True and out["gathered"] is True
        assert out["from_local"] == [[4, 8], [[0.0] * 8] * 2 + [[1.0] * 8] * 2]
        assert out["from_callback"] is True
        assert out["sum"] == float(value.sum() * 2)
        assert out["allgather"] == [[0, 10], [1, 11]]
        assert out["allgather_tiled"] == [0, 10, 1, 11]
        assert out["broadcast"] == ["float32", 8.0]
        assert "processes [1] hold values that differ" in out["assert_equal"]
        assert out["assert_equal"].startswith("ranks differ:")
        assert "got 2: processes [0, 1] of 2" in out["two_sources"]
        # (Host values gather in their canonical dtype, as in JAX: float64 data as float32.)
        assert "process 0: float32[2]\n  process 1: float32[3]" in out["shape_mismatch"]
        assert out["live_devices"] == list(range(8))
        assert out["preemption"] is False
        assert out["local_mesh"] == [[4 * r + k for k in range(4)]]


FAIL = HERE / "failures.py"


@needs_mpi
def test_an_exception_on_one_rank_ends_the_job_with_its_traceback():
    proc = run_job(2, 2, FAIL, "raise", timeout=60)
    assert proc.returncode != 0
    assert "[spmd rank 1 of 2] Traceback" in proc.stderr
    assert "ValueError: rank 1 fails here" in proc.stderr
    assert "done" not in proc.stdout


@needs_mpi
def test_mismatched_collectives_name_each_ranks_call():
    proc = run_job(2, 2, FAIL, "mismatch", timeout=60)
    assert proc.returncode != 0
    assert "Mismatched collectives" in proc.stderr
    assert "rank 0: sync_global_devices('a')" in proc.stderr
    assert "rank 1: process_allgather" in proc.stderr


@needs_mpi
def test_a_rank_that_never_arrives_times_out():
    proc = run_job(2, 2, FAIL, "late", timeout=2)
    assert proc.returncode != 0
    assert "TimeoutError: sync_global_devices('end'): rank 0 of 2 waited" in proc.stderr


@needs_mpi
def test_hosts_are_passed_to_mpi():
    # Over machines MPI starts the processes by ssh; on this one, localhost needs none.
    cmd = [sys.executable, "-m", "spmd", "run", "-n", "2", "--devices", "2",
           "--hosts", "localhost:2", str(HERE / "failures.py"), "ok"]  # fmt: skip
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    # (The two ranks' lines may interleave in the pipe: count, do not parse.)
    assert proc.stdout.count("done") == 2


@needs_mpi
def test_processes_must_have_as_many_devices():
    proc = run_job(2, 2, FAIL, "devices", timeout=60)
    assert proc.returncode != 0
    assert "rank 0: 2, rank 1: 3" in proc.stderr


# ---------------------------------------------------------------------------------------------
# The launcher and the one-process forms (no MPI job)


def _args(*argv):
    p = launcher._parser()
    return p.parse_args(["run", *argv])


def test_launcher_command_lines(monkeypatch):
    monkeypatch.setattr(launcher, "find_mpiexec", lambda: "/opt/mpi/bin/mpiexec")
    cmd, env = launcher.run_command(_args("-n", "3", "--devices", "2", "prog.py", "--lr", "1"))
    assert cmd == ["/opt/mpi/bin/mpiexec", "-n", "3", sys.executable, "prog.py", "--lr", "1"]
    assert env["SPMD_NUM_DEVICES"] == "2"
    cmd, _ = launcher.run_command(_args("-n", "2", "--hosts", "a:1,b:1", "prog.py"))
    assert cmd == [
        "/opt/mpi/bin/mpiexec",
        "-hosts",
        "a:1,b:1",
        "-n",
        "2",
        sys.executable,
        "prog.py",
    ]
    cmd, env = launcher.run_command(_args("--timeout", "5", "prog.py"))
    assert cmd == [sys.executable, "prog.py"]  # one process: no MPI needed
    assert env["SPMD_COLLECTIVE_TIMEOUT"] == "5.0"
    monkeypatch.setattr(launcher, "find_mpiexec", lambda: None)
    with pytest.raises(SystemExit, match="pip install 'spmd\\[mpi\\]'"):
        launcher.run_command(_args("-n", "2", "prog.py"))


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run", "-n", "0", "p.py"], "-n must be at least 1, got 0"),
        (["run", "--devices", "0", "p.py"], "--devices must be at least 1, got 0"),
        (["run", "-n", "2"], "give a script"),
    ],
)
def test_launcher_rejects_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as e:
        launcher.main(argv)
    assert e.value.code == 2
    assert message in capsys.readouterr().err


def test_launcher_runs_one_process(tmp_path):
    script = tmp_path / "p.py"
    script.write_text("import sys, os; print(os.environ['SPMD_NUM_DEVICES'], sys.argv[1:])")
    proc = subprocess.run(
        [sys.executable, "-m", "spmd", "run", "--devices", "3", str(script), "a", "b"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.stdout.strip() == "3 ['a', 'b']"


def test_one_process_forms_of_failure_tools(monkeypatch):
    import spmd
    from spmd._src import distributed
    from spmd.experimental import multihost_utils as mhu

    # As JAX's in one process: no preemption notices, live_devices needs initialize().
    assert mhu.reached_preemption_sync_point(3) is False
    monkeypatch.setattr(distributed, "_initialized", False)
    with pytest.raises(RuntimeError, match="Distributed JAX not initialized."):
        with mhu.live_devices(spmd.devices()):
            pass
    assert issubclass(mhu.ProcessFailureError, Exception)
    mesh = spmd.make_mesh((2, 4), ("x", "y"))
    assert mesh.local_mesh.devices.shape == (2, 4)


def test_initialize_checks_the_job(monkeypatch):
    from spmd._src import distributed

    monkeypatch.setattr(distributed, "_initialized", False)
    with pytest.raises(ValueError, match="num_processes=2, but this process was launched as one"):
        distributed.initialize(num_processes=2)
    with pytest.raises(ValueError, match="process_id=1, but MPI gave this process rank 0 of 1"):
        distributed.initialize(process_id=1)
    distributed.initialize("localhost:1234", num_processes=1, process_id=0)
    assert distributed.is_initialized()
    with pytest.raises(RuntimeError, match="should only be called once"):
        distributed.initialize()
    distributed.shutdown()
    assert not distributed.is_initialized()
