"""lax.ragged_all_to_all against JAX 0.10.2 (``tests/golden/ragged_all_to_all.json``, recorded
by ``tests/golden_gen/ragged_all_to_all_gen.py``).

JAX's CPU backend cannot run this collective, so the goldens hold JAX's printed jaxprs and error
classes, and results from the generator's NumPy loop (JAX's docstring pseudocode). spmd must give
those results under shard_map (eager, jit, and the per-device reference loop), pmap and
vmap(axis_name=...), with axis_index_groups too (which JAX cannot batch).
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

import spmd
import spmd.numpy as jnp
from spmd import lax
from spmd._src.shard_map import reference_mode
from spmd.sharding import NamedSharding
from spmd.sharding import PartitionSpec as P

_HERE = Path(__file__).parent
G = json.loads((_HERE / "golden" / "ragged_all_to_all.json").read_text())
sys.path.insert(0, str(_HERE / "golden_gen"))
_spec = importlib.util.spec_from_file_location(
    "ragged_all_to_all_gen", _HERE / "golden_gen" / "ragged_all_to_all_gen.py"
)
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)


def _want(out: dict) -> np.ndarray:
    dt = np.dtype(out["dtype"]) if out["dtype"] != "bfloat16" else jnp.bfloat16
    raw = np.asarray(out["bits"])
    if out["dtype"] == "bfloat16":
        raw = raw.astype(np.uint16).view(dt)
    elif out["dtype"] == "float32":
        raw = raw.astype(np.uint32).view(np.float32)
    else:
        raw = raw.astype(dt)
    return raw.reshape(out["shape"])


def _same(got, want) -> bool:
    got, want = np.asarray(got), np.asarray(want)
    return got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes()


_NP_INT = re.compile(r"np\.int64\((-?\d+)\)")


def _plain(text: str) -> str:
    # As test_golden_jaxpr: line breaks inside long equations are not compared.
    text = _NP_INT.sub(r"\1", text)
    return re.sub(r"\[\n\s+", "[", re.sub(r"\n\s+\]", "]", text))


def _mesh(shape, n):
    names = ("x", "y")[: len(shape)]
    return spmd.make_mesh(tuple(shape), names, devices=spmd.devices()[:n])


def _mesh_for(c):
    return _mesh(tuple(c["mesh"]) if c["mesh"] else (c["n"],), c["n"])


def _inputs(c):
    groups = c.get("groups") or gen.groups_of(
        c["n"], c.get("axis", "i"), tuple(c["mesh"]) if c.get("mesh") else None
    )
    xs = gen.case_inputs(groups, c["slices"], tuple(c["trail"]), c["dtype"], c["seed"])
    if c["dtype"] == "bfloat16":
        xs[:2] = [x.astype(jnp.bfloat16) for x in xs[:2]]
    return groups, xs


def _ragged(axis, groups=None):
    return lambda *a: lax.ragged_all_to_all(*a, axis_name=axis, axis_index_groups=groups)


# ---------------------------------------------------------------------------------------------
# Results and jaxprs on 1-D and 2-D meshes


@pytest.mark.parametrize("case", G["cases"], ids=[c["name"] for c in G["cases"]])
def test_shard_map_against_loop(case):
    groups, xs = _inputs(case)
    want = _want(case["out"])
    assert _same(gen.loop(*xs, groups), want)  # the generator's loop still gives the golden
    f = gen.smap(spmd, lax, P, _mesh_for(case), case["axis"])
    args = gen.global_args(xs)
    flat = want.reshape((-1,) + want.shape[2:])
    assert _same(f(*args), flat)
    assert _same(spmd.jit(f)(*args), flat)
    with reference_mode():
        assert _same(f(*args), flat)
    got = _plain(str(spmd.make_jaxpr(f)(*args)))
    assert got == _plain(case["jaxpr"]), f"spmd:\n{got}\n\nJAX:\n{case['jaxpr']}"
    assert case["jax_cpu"].startswith("JaxRuntimeError: UNIMPLEMENTED")


@pytest.mark.parametrize("case", G["groups"], ids=[c["name"] for c in G["groups"]])
def test_axis_index_groups(case):
    groups, xs = _inputs(case)
    want = _want(case["out"])
    n = case["n"]
    f = _ragged("i", groups)
    assert _same(spmd.vmap(f, axis_name="i")(*xs), want)
    assert _same(spmd.pmap(f, axis_name="i")(*xs), want)
    sm = spmd.shard_map(_ragged("x", groups), mesh=_mesh((n,), n), in_specs=(P("x"),) * 6,
                        out_specs=P("x"))  # fmt: skip
    args = gen.global_args(xs)
    flat = want.reshape((-1,) + want.shape[2:])
    assert _same(sm(*args), flat)
    assert _same(spmd.jit(sm)(*args), flat)
    with reference_mode():
        assert _same(sm(*args), flat)
    per_dev = [x[0] for x in xs]
    got = str(spmd.make_jaxpr(f, axis_env=[("i", n)])(*per_dev))
    assert _plain(got) == _plain(case["jaxpr"]), f"spmd:\n{got}\n\nJAX:\n{case['jaxpr']}"


def _spmd_mesh_for(c):
    return _mesh(tuple(c["mesh"]) if c["mesh"] else (c["n"],), c["n"])


@pytest.mark.parametrize("name", sorted(G["jaxprs"]))
def test_jaxpr_text(name):
    make, args = gen.jaxpr_cases()[name](spmd, lax, P, _spmd_mesh_for)
    got = _plain(str(make(*[jnp.asarray(a) for a in args])))
    want = _plain(G["jaxprs"][name])
    if name == "jit_shard_map":  # JAX names the jit after the shard_map body's lambda
        got = re.sub(r"name=\S+", "name=<lambda>", got, count=1)
    assert got == want, f"spmd:\n{got}\n\nJAX:\n{want}"


def test_goldens_cover_the_cases():
    assert set(G["jaxprs"]) == set(gen.jaxpr_cases())
    assert [c["name"] for c in G["cases"]] == [c["name"] for c in gen.cases()]


def test_docstring_runs():
    import doctest

    from spmd._src.lax.parallel import ragged

    globs = {"jnp": jnp, "lax": lax, "spmd": spmd}
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(ragged, extraglobs=globs, optionflags=flags, verbose=False)
    assert result.failed == 0 and result.attempted > 0


def test_docstring_example():
    xs = [jnp.asarray(x) for x in gen.small_inputs()]
    got = spmd.vmap(_ragged("i"), axis_name="i")(*xs)
    np.testing.assert_array_equal(got, [[1, 3, 0, 0], [2, 2, 4, 0]])


# ---------------------------------------------------------------------------------------------
# vmap: the collective's own axis (named), and a positional batch around it


def test_positional_vmap_against_loop():
    # A batch of 3 exchanges (different sizes each) inside a shard_map over 4 devices: each
    # example exchanges as if alone. Unbatched offsets (which JAX cannot batch) broadcast.
    groups = [list(range(4))]
    exs = [gen.case_inputs(groups, 2, (2,), "float32", 200 + b) for b in range(3)]
    n_rows = max(e[0].shape[1] for e in exs)
    m_rows = max(e[1].shape[1] for e in exs)
    pad = lambda x, r: np.pad(x, [(0, 0), (0, r - x.shape[1])] + [(0, 0)] * (x.ndim - 2))  # noqa
    exs = [[pad(e[0], n_rows), pad(e[1], m_rows), *e[2:]] for e in exs]
    want = np.stack([gen.loop(*e, groups) for e in exs], 1)  # (device, example, ...)
    stack = [np.stack([e[i] for e in exs], 1) for i in range(6)]  # (device, example, ...)
    flat = want.reshape((-1,) + want.shape[2:])
    mesh = _mesh((4,), 4)
    body = spmd.vmap(_ragged("x"))  # each device's block: (example, ...)
    sm = spmd.shard_map(body, mesh=mesh, in_specs=(P("x"),) * 6, out_specs=P("x"))
    assert _same(sm(*gen.global_args(stack)), flat)
    with reference_mode():
        assert _same(sm(*gen.global_args(stack)), flat)
    # The same offsets for every example: batched operand and output only.
    body = spmd.vmap(_ragged("x"), in_axes=(0, 0, None, None, None, None))
    sm = spmd.shard_map(body, mesh=mesh, in_specs=(P("x"),) * 6, out_specs=P("x"))
    out0 = np.stack([exs[0][1]] * 3, 1)
    want = np.stack([gen.loop(stack[0][:, b], *exs[0][1:], groups) for b in range(3)], 1)
    args = gen.global_args([stack[0], out0]) + gen.global_args(exs[0][2:])
    assert _same(sm(*args), want.reshape((-1,) + want.shape[2:]))


def test_named_vmap_over_one_axis_of_two():
    # vmap(axis_name='i') outside, vmap(axis_name='j') inside; the collective over 'i' only:
    # the 'j' examples are separate exchanges among the 'i' devices.
    groups = [list(range(2))]
    exs = [gen.case_inputs(groups, 1, (), "int32", 300 + b) for b in range(3)]
    rows = [max(e[i].shape[1] for e in exs) for i in (0, 1)]
    exs = [[np.pad(e[0], [(0, 0), (0, rows[0] - e[0].shape[1])]),
            np.pad(e[1], [(0, 0), (0, rows[1] - e[1].shape[1])]), *e[2:]] for e in exs]  # fmt: skip
    want = np.stack([gen.loop(*e, groups) for e in exs], 1)
    stack = [np.stack([e[i] for e in exs], 1) for i in range(6)]
    f = spmd.vmap(spmd.vmap(_ragged("i"), axis_name="j", in_axes=0), axis_name="i")
    assert _same(f(*stack), want)
    # Over both axes at once: one exchange among the 2 x 3 virtual devices ('i' major).
    six = [list(range(6))]
    e6 = gen.case_inputs(six, 1, (), "int32", 400)
    want6 = gen.loop(*e6, six).reshape((2, 3) + gen.loop(*e6, six).shape[1:])
    g = spmd.vmap(spmd.vmap(_ragged(("i", "j")), axis_name="j"), axis_name="i")
    assert _same(g(*[x.reshape((2, 3) + x.shape[1:]) for x in e6]), want6)


# ---------------------------------------------------------------------------------------------
# Derivatives (JAX differentiates it: linear in operand and output)


def _adjoint_case(seed, empty_at_start=False):
    groups = [list(range(4))]
    xs = gen.case_inputs(groups, 1, (2,), "float32", seed)
    if empty_at_start:
        # Receiver 0: an empty slice from device 0 placed where device 1's slice starts (JAX's
        # own transpose loses that slice's start there).
        xs[3][0, 0] = 0
        xs[5][0, 0] = 0
        xs[4][0, 0] = xs[4][1, 0]
        assert xs[3][1, 0] > 0  # device 1 does send rows to device 0
    return groups, xs


@pytest.mark.parametrize("empty_at_start", [False, True])
def test_grad_and_jvp(empty_at_start):
    groups, xs = _adjoint_case(500, empty_at_start)
    mesh = _mesh((4,), 4)
    sm = gen.smap(spmd, lax, P, mesh, "x")
    args = gen.global_args(xs)
    rng = np.random.default_rng(1)
    op, out = args[:2]
    ct = rng.standard_normal(out.shape).astype(np.float32)
    dop = rng.standard_normal(op.shape).astype(np.float32)
    dout = rng.standard_normal(out.shape).astype(np.float32)
    _, vjp = spmd.vjp(lambda a, b: sm(a, b, *args[2:]), op, out)
    g_op, g_out = vjp(jnp.asarray(ct))
    # Linear in (operand, output): <R(dop, dout), ct> == <dop, g_op> + <dout, g_out>.
    lin = np.asarray(sm(dop, dout, *args[2:]))
    np.testing.assert_allclose(np.vdot(lin, ct), np.vdot(dop, g_op) + np.vdot(dout, g_out),
                               rtol=1e-5)  # fmt: skip
    # Exactly: g_out is ct where nothing landed, g_op gathers ct at the rows each row went to.
    landed = gen.loop(np.ones_like(xs[0]), np.zeros_like(xs[1]), *xs[2:], groups) != 0
    np.testing.assert_array_equal(g_out, np.where(landed.reshape(ct.shape), 0, ct))
    idx = np.arange(op.shape[0], dtype=np.float32).reshape(xs[0].shape[:2])
    where = gen.loop(np.broadcast_to(idx[..., None], xs[0].shape) + 1, np.zeros_like(xs[1]),
                     *xs[2:], groups).reshape(ct.shape)[:, 0]  # fmt: skip
    want_op = np.zeros_like(op)
    for r, src in enumerate(where):
        if src:
            want_op[int(src) - 1] = ct[r]
    np.testing.assert_array_equal(g_op, want_op)
    _, tan = spmd.jvp(lambda a, b: sm(a, b, *args[2:]), (op, out), (dop, dout))
    assert _same(tan, lin)
    with reference_mode():
        g2 = vjp(jnp.asarray(ct))
    assert all(_same(a, b) for a, b in zip(g2, (g_op, g_out)))


def test_grad_with_groups_under_vmap():
    groups = [[0, 2], [3, 1]]
    xs = gen.case_inputs(groups, 2, (), "float32", 600)
    f = spmd.vmap(_ragged("i", groups), axis_name="i")
    loss = lambda a, b: (f(a, b, *xs[2:]) * w).sum()  # noqa: E731
    w = np.random.default_rng(2).standard_normal(xs[1].shape).astype(np.float32)
    g_op, g_out = spmd.grad(loss, argnums=(0, 1))(xs[0], xs[1])
    lin = gen.loop(xs[0], xs[1], *xs[2:], groups)
    np.testing.assert_allclose((lin * w).sum(), np.vdot(xs[0], g_op) + np.vdot(xs[1], g_out),
                               rtol=1e-5)  # fmt: skip


def test_result_varies_over_the_axis():
    # Each device receives different rows even when ``output`` is replicated: out_specs that
    # claim the result is replicated are refused (JAX types it as replicated and accepts).
    xs = gen.small_inputs()
    args = gen.global_args(xs)
    sm = spmd.shard_map(_ragged("x"), mesh=_mesh((2,), 2),
                        in_specs=(P("x"), P(), P("x"), P("x"), P("x"), P("x")),
                        out_specs=P())  # fmt: skip
    with pytest.raises(ValueError, match="varies"):
        sm(args[0], xs[1][0], *args[2:])


def test_auto_axis_keeps_the_trailing_sharding():
    # shard_map manual over 'x' only: the rows move over 'x'; the trailing dimension, split over
    # the automatic axis 'y', stays split (the ragged row dimension is whole per device).
    groups = [[0, 1]]
    xs = gen.case_inputs(groups, 1, (4,), "float32", 7)
    want = gen.loop(*xs, groups)
    mesh = _mesh((2, 2), 4)
    args = gen.global_args(xs)
    op, out = (spmd.device_put(a, NamedSharding(mesh, P("x", "y"))) for a in args[:2])
    f = spmd.shard_map(_ragged("x"), mesh=mesh, in_specs=(P("x"),) * 6, out_specs=P("x"),
                       axis_names={"x"})  # fmt: skip
    for run in (f, spmd.jit(f)):
        got = run(op, out, *args[2:])
        assert _same(got, want.reshape(got.shape))
        assert got.sharding.spec == P("x", "y")


# ---------------------------------------------------------------------------------------------
# Bad input: JAX's error class, a message naming the function, the argument, the axis and the
# sizes; raised when tracing (make_jaxpr), before anything runs.


def _bad(axis, specs, **kw):
    args = [np.zeros((2 * s[0],) + tuple(s[1:]), d) for s, d in specs]
    sm = spmd.shard_map(_ragged(axis, kw.get("groups")), mesh=_mesh((2,), 2),
                        in_specs=(P("x"),) * 6, out_specs=P("x"))  # fmt: skip
    return lambda: spmd.make_jaxpr(sm)(*args)


def _class(name):
    return {"ValueError": ValueError, "NameError": NameError, "RuntimeError": RuntimeError,
            "JaxRuntimeError": spmd.errors.JaxRuntimeError}[name]  # fmt: skip


def test_error_classes_are_jaxs():
    assert G["errors"] == {
        "float_offsets": "ValueError",
        "rank2_sizes": "ValueError",
        "mismatched_lengths": "JaxRuntimeError",
        "unknown_axis": "NameError",
        "outside_map": "RuntimeError",
    }


def test_error_float_offsets():
    axis, specs = gen.error_cases()["float_offsets"]
    with pytest.raises(_class(G["errors"]["float_offsets"]),
                       match=r"ragged_all_to_all: input_offsets .*float32.*axis 'x'"):  # fmt: skip
        _bad(axis, specs)()


def test_error_rank2_sizes():
    axis, specs = gen.error_cases()["rank2_sizes"]
    msg = r"ragged_all_to_all: send_sizes .*rank 1.*\(2, 1\).*axis 'x'"
    with pytest.raises(_class(G["errors"]["rank2_sizes"]), match=msg):
        _bad(axis, specs)()


def test_error_mismatched_lengths():
    axis, specs = gen.error_cases()["mismatched_lengths"]
    msg = r"ragged_all_to_all: .*same length.*'send_sizes': 3.*axis 'x'"
    with pytest.raises(_class(G["errors"]["mismatched_lengths"]), match=msg):
        _bad(axis, specs)()


def test_error_unknown_axis():
    axis, specs = gen.error_cases()["unknown_axis"]
    msg = r"unbound axis name: y\. ragged_all_to_all over axis 'y'.*'x' \(size 2\)"
    with pytest.raises(_class(G["errors"]["unknown_axis"]), match=msg):
        _bad(axis, specs)()


def test_error_outside_map():
    xs = [jnp.asarray(x[0]) for x in gen.small_inputs()]
    with pytest.raises(RuntimeError, match="ragged_all_to_all over axis 'x' must run inside"):
        lax.ragged_all_to_all(*xs, axis_name="x")


_OK = [((3,), "float32"), ((4,), "float32")] + [((2,), "int32")] * 4


def test_error_length_not_divisible():
    specs = _OK[:2] + [((3,), "int32")] * 4
    with pytest.raises(ValueError, match=r"ragged_all_to_all: the 3 entries .*axis 'x' \(2 dev"):
        _bad("x", specs)()


def test_error_operand_output_shapes():
    specs = [((3, 2), "float32"), ((4, 3), "float32")] + _OK[2:]
    with pytest.raises(ValueError, match=r"operand shape \(3, 2\) and output shape \(4, 3\)"):
        _bad("x", specs)()


def test_error_operand_output_dtypes():
    specs = [((3,), "float32"), ((4,), "int32")] + _OK[2:]
    with pytest.raises(TypeError, match=r"ragged_all_to_all: .*operand float32 and output int32"):
        _bad("x", specs)()


def test_error_bad_groups():
    with pytest.raises(ValueError, match=r"ragged_all_to_all: axis_index_groups .*miss"):
        _bad("x", _OK, groups=[[0]])()


def _run_small(**changes):
    xs = [x.copy() for x in gen.small_inputs()]
    for (i, dev, e), v in changes.get("set", {}).items():
        xs[i][dev, e] = v
    return spmd.vmap(_ragged("i"), axis_name="i")(*xs)


def test_error_sizes_overflow_output():
    # Device 1 sends 1 row to device 1 at output row 3 ... of 4 rows: fine; at row 4: too far.
    _run_small(set={(4, 1, 1): 3})
    with pytest.raises(ValueError, match=r"ragged_all_to_all: device 1 sends send_sizes\[1\]=1 "
                       r"rows to device 1 at output_offsets\[1\]=4, .*\(4 rows\)"):  # fmt: skip
        _run_small(set={(4, 1, 1): 4})


def test_error_sizes_overflow_operand():
    msg = r"device 0 sends send_sizes\[1\]=2 rows from input_offsets\[1\]=2, past the end "
    with pytest.raises(ValueError, match=msg + r"of its operand \(3 rows\)"):
        _run_small(set={(2, 0, 1): 2})


def test_error_recv_sizes_disagree():
    with pytest.raises(ValueError, match=r"device 1 expects recv_sizes\[0\]=1 rows from device "
                       r"0, which sends send_sizes\[1\]=2"):  # fmt: skip
        _run_small(set={(5, 1, 0): 1})


def test_error_negative_offset():
    with pytest.raises(ValueError, match=r"input_offsets\[0\] of device 1 is -1, negative"):
        _run_small(set={(2, 1, 0): -1})


def test_data_errors_are_checked_before_any_row_moves():
    # The kernel checks every transfer first (the message says so); under jit too, and the
    # compiled program still runs good input afterwards.
    xs = gen.small_inputs()
    f = spmd.jit(spmd.vmap(_ragged("i"), axis_name="i"))
    bad = [x.copy() for x in xs]
    bad[4][1, 1] = 4
    with pytest.raises(ValueError, match="checked before any row moved"):
        f(*bad)
    np.testing.assert_array_equal(f(*xs), [[1, 3, 0, 0], [2, 2, 4, 0]])
