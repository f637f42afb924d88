"""What JAX multi-process programs do, run as jobs of 1, 2 and 4 processes
(``tests/multiprocess/more.py``): typed PRNG keys on meshes spanning processes, host-local <->
global arrays, the examples of JAX's multi-process docs, Explicit meshes, placements made from
host values (out_shardings, in_shardings, constraints), and the device_put / pickle /
device_get / process_allgather rules and errors of JAX's multi-controller model.

The numeric results must have the same bytes in every run; what each rank sees is checked
against values worked out by hand (and, for host-local <-> global arrays, JAX 0.10's outputs
for the same calls in a job of two processes)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_multiprocess import HERE, lines, needs_mpi, run_job

V = np.arange(64, dtype=np.float32).reshape(8, 8)
SPECS = {"P('x',)": ("x",), "P('x', 'y')": ("x", "y"), "P(None, 'y')": (None, "y"),
         "P()": (), "P('y', 'x')": ("y", "x")}  # fmt: skip


def local_part(spec, rank, n):
    """Process ``rank``'s part of V on the (2, 4) mesh ('x', 'y') of devices 4i + j: the box
    its devices' blocks span, by hand."""
    ids = range(rank * 8 // n, (rank + 1) * 8 // n)
    coords = [{"x": i // 4, "y": i % 4} for i in ids]
    size = {"x": 2, "y": 4}
    idx = []
    for d in range(2):
        axis = spec[d] if d < len(spec) else None
        if axis is None:
            idx.append(slice(None))
            continue
        blocks = {c[axis] for c in coords}
        step = 8 // size[axis]
        idx.append(slice(min(blocks) * step, (max(blocks) + 1) * step))
    return V[tuple(idx)]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = {}
    for n, devices in [(1, 8), (2, 4), (4, 2)]:
        d = tmp_path_factory.mktemp(f"more{n}")
        printed = lines(run_job(n, devices, HERE / "more.py", str(d)))
        ranks = [json.loads((d / f"rank{r}.json").read_text()) for r in range(n)]
        out[n] = (printed, ranks)
    return out


@needs_mpi
def test_results_have_one_process_bits(runs):
    one = runs[1][0]
    assert len(one) == 41
    assert runs[2][0] == one
    assert runs[4][0] == one


@needs_mpi
@pytest.mark.parametrize("n", [2, 4])
def test_typed_keys_on_a_mesh_spanning_processes(runs, n):
    for r, out in enumerate(runs[n][1]):
        assert out["key_type"] == ["PRNGKeyArray", "key<fry>", [8], "P('x',)"]
        assert out["key_typeof"] == "key<fry>[8@x]"
        k = 8 // n
        assert out["key_shards"] == [[i, i, "key<fry>"] for i in range(r * k, (r + 1) * k)]
        assert out["key_addressable"] is False
        # jit's out_shardings over every process's devices gives keys over a GlobalArray.
        assert out["key_jit_out"] == ["PRNGKeyArray", "GlobalArray", "key<fry>[8]", "P('x',)"]
        assert out["key_wrap"] == "P('x',)"
        assert out["block_until_ready"] == ["GlobalArray", "PRNGKeyArray"]


@needs_mpi
@pytest.mark.parametrize("n", [2, 4])
def test_placements_from_host_values_span_processes(runs, n):
    for out in runs[n][1]:
        for how, got in out["placed_from_host"].items():
            assert got == ["GlobalArray", "P('x',)"], how
        # JAX's jit returns every result on the arguments' mesh, constants too.
        assert out["jit_mixed"] == [["GlobalArray", "P()"], ["GlobalArray", "P('x', 'y')"],
                                    ["GlobalArray", "P()"], ["GlobalArray", "P()"]]  # fmt: skip
    for how, got in runs[1][1][0]["placed_from_host"].items():
        assert got == ["Array", "P('x',)"], how


@needs_mpi
@pytest.mark.parametrize("n", [2, 4])
def test_host_local_and_global_arrays(runs, n):
    for r, out in enumerate(runs[n][1]):
        for name, spec in SPECS.items():
            kind, addressable, shape, pspec, mesh, value, gshape, gspec = out["g2h"][name]
            want = local_part(spec, r, n)
            assert [kind, addressable, pspec, gshape, gspec] == ["Array", True, name, [8, 8], name]
            assert shape == list(want.shape) and value == want.tolist(), (name, r)
            assert mesh == ([1, 4] if n == 2 else [1, 2])
        # JAX's docstring example: each process's rows, in process order.
        length, value = out["h2g_docstring"]
        assert length == [8 * n]
        assert value == np.concatenate([np.arange(8) * (p + 1) for p in range(n)]).tolist()
        assert out["h2g_tree"] == [[4, 4], []]
        assert out["h2g_keys"] == ["PRNGKeyArray", [8 // n], [8]]
        assert out["h2g_none"][0] == "ValueError" and "PartitionSpec()" in out["h2g_none"][1]
        assert out["h2g_prefix"][0] == "ValueError"
        assert "pytree prefix of the inputs" in out["h2g_prefix"][1]
        assert out["h2g_indivisible"][0] == "IndivisibleError"
        assert "input of shape (3, 3)" in out["h2g_indivisible"][1]
        kind, msg = out["h2g_not_contiguous"]
        assert kind == "ValueError" and f"the devices of process {r} do not form a" in msg
        assert out["h2g_rank"] == [
            "ValueError",
            "host_local_array_to_global_array: the PartitionSpec P('x', 'y') has 2 entries, "
            "more than the rank 1 of its input",
        ]


@needs_mpi
@pytest.mark.parametrize("n", [1, 2, 4])
def test_the_examples_of_jax_multiprocess_docs(runs, n):
    for out in runs[n][1]:
        # pmap over every device of the job: each process gets its own devices' part.
        assert out["pmap_psum"] == [
            "Array",
            [8.0] * (8 // n),
            f"NamedSharding(mesh=Mesh('i': {8 // n}, axis_types=(Auto,)), spec=P('i',), "
            "memory_kind=device)",
        ]
        kind, addressable, loss = out["docs_loss"]
        assert (kind, addressable) == (("Array", True) if n == 1 else ("GlobalArray", False))
        assert loss == pytest.approx(0.4905625581741333, abs=0)
        if n > 1:
            kind, msg = out["local_data_wrong"]
            assert kind == "ValueError"
            assert "In dimension 0, the process data has 3 elements; this process addresses " \
                f"{16 // n} elements" in msg  # fmt: skip
            assert out["local_data_uneven"][0] == "IndivisibleError"
        # Scalars are stacked, with tiled or not (in one process a tiled scalar stays one).
        stacked = [float(2 * p + 1) for p in range(n)]
        assert out["allgather_scalars"] == [stacked, 0 if n == 1 else list(range(n))]


@needs_mpi
@pytest.mark.parametrize("n", [1, 2, 4])
def test_explicit_meshes_across_processes(runs, n):
    for out in runs[n][1]:
        assert out["explicit"] == [
            "float32[8@x,8@y]",
            {"in": "float32[8@x,8@y]", "mul": "float32[8@x,8@y]", "sum": "float32[8@x]"},
            "float32[8@x,8@y]",
            "float32[8@x]",
        ]
        kind = "Array" if n == 1 else "GlobalArray"
        assert out["explicit_reshard"] == [kind, "float32[8@y,8]", "float32[8,8@x]"]
        assert out["explicit_more"] == ["float32[8@x,8]", "float32[8@x,8]", "float32[8@x,4@y]"]
        assert out["explicit_matmul"] == [
            "ShardingTypeError",
            "dot_general requires contracting dimensions to have consistent sharding, got "
            "('y',) and ('x',).",
        ]


@needs_mpi
@pytest.mark.parametrize("n", [2, 4])
def test_device_put_pickle_and_device_get_rules(runs, n):
    for out in runs[n][1]:
        kind, msg = out["put_differs"]
        assert kind == "AssertionError"
        assert "passed to device_put is not the same on each process" in msg
        assert f"processes {list(range(1, n))} passed values that differ" in msg
        assert out["put_to_device"][0] == "ValueError"
        assert "the first must be a fully addressable Array" in out["put_to_device"][1]
        assert out["put_to_local_sharding"][0] == "NotImplementedError"
        assert "onto this process's devices only" in out["put_to_local_sharding"][1]
        assert out["put_committed"][0] == "ValueError"
        assert "cannot be moved onto devices of other processes" in out["put_committed"][1]
        for name in ("pickle_spread", "device_get_spread"):
            assert out[name][0] == "RuntimeError" and "process_allgather" in out[name][1]
        assert out["allgather_untiled"][0] == "ValueError"
        assert "only supports tiled=True" in out["allgather_untiled"][1]
        assert out["eager_committed"][0] == "ValueError"
        assert out["eager_committed"][1].startswith("Received incompatible devices for add")
        assert out["repr_spread"] == ["Array(shape=(8, 8), dtype=float32)"] * 2
        assert out["jit_token"] == ["GlobalArray", "Token"]
        assert out["pickle_replicated"] is True
        assert out["device_get_replicated"] == "ndarray"


@needs_mpi
@pytest.mark.parametrize("n", [1, 2, 4])
def test_gathering_keys_is_refused_as_in_jax(runs, n):
    for out in runs[n][1]:
        assert out["allgather_key"] == [
            "TypeError",
            "process_allgather: JAX array with PRNGKey dtype cannot be converted to a NumPy "
            "array. Use jax.random.key_data(arr) if you wish to extract the underlying integer "
            "array.",
        ]
