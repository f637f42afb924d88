"""The sweep, once more: every primitive over devices gives each device the bits it gets alone.

In one process a shard_map body runs once over the stacked blocks of all devices (each
primitive's batching rule over the device axis); a process of a multi-process job runs the same
body on its own devices only, with the reference loop (one device at a time). Both must give
every device the same bits (DESIGN.md, "Numerics"), so, for a sample of each primitive's sweep
calls, the body ``fn`` is run over a mesh of ``BATCH`` devices both ways and compared exactly:
no tolerance. Operands vary over the devices all together, or one at a time (the others
replicated). Known exceptions are listed, with why, in ``KNOWN_FAILURES``; a listed check that
passes fails, so the list only shrinks.
"""

from __future__ import annotations

import numpy as np
import pytest
from golden_compare import to_spmd
from sweep_cases import ENTRIES
from test_sweep_rules import BATCH, PRIMS, _leaves, _outcome, _same, _sample, _slices

import spmd
from spmd._src.shard_map import reference_mode

P = spmd.sharding.PartitionSpec

# Sweep calls per primitive.
SAMPLE = 3

# Primitives with nothing to compare over devices (each entry says why).
NO_DEVICE_CHECK: dict[str, str] = {
    "ragged_all_to_all": "a collective whose size operands must agree across the devices of its "
    "own axis: per-device permutations of them are no valid input (tests/"
    "test_ragged_all_to_all.py compares it with the reference loop)",
}

KNOWN_FAILURES: dict[str, str] = {}


def _mesh():
    return spmd.make_mesh((BATCH,), ("d",), devices=spmd.devices()[:BATCH])


def device_errors(name: str, cfg) -> list[str]:
    errs = []
    n = len(cfg.args)
    slices = [_slices(name, cfg, i, a) for i, a in enumerate(cfg.args)]
    variants = [tuple(range(n))] + ([(i,) for i in range(n)] if n > 1 else [])
    mesh = _mesh()
    for varying in variants:
        tag = f"{name}:{cfg.label} varying={list(varying)}"
        try:
            args = [
                to_spmd(np.stack(slices[i])) if i in varying else to_spmd(np.asarray(a))
                for i, a in enumerate(cfg.args)
            ]
            specs = tuple(P("d") if i in varying else P() for i in range(n))

            def body(*xs, varying=varying):
                ins = [x[0] if i in varying else x for i, x in enumerate(xs)]
                return [spmd.numpy.expand_dims(o, 0) for o in _leaves(cfg.fn(*ins))]

            f = spmd.shard_map(body, mesh=mesh, in_specs=specs, out_specs=P("d"), check_vma=False)
            got = [np.asarray(o) for o in f(*args)]
            with reference_mode():
                want = [np.asarray(o) for o in f(*args)]
            for j, (g, w) in enumerate(zip(got, want)):
                msg = _same(g, w, None)
                if msg:
                    msg = msg.replace("per-slice loop", "one device at a time")
                    errs.append(f"{tag}: result {j}: {msg}")
        except Exception as e:  # noqa: BLE001 -- report every call, not just the first
            errs.append(f"{tag}: raised {type(e).__name__}: {e}")
    return errs


DEVICE_NAMES = sorted(n for n in PRIMS if n in ENTRIES and n not in NO_DEVICE_CHECK)


@pytest.mark.parametrize("name", DEVICE_NAMES)
def test_devices(name):
    errors = []
    for cfg in _sample(ENTRIES[name], SAMPLE):
        errors += device_errors(name, cfg)
    _outcome(f"devices:{name}", errors, KNOWN_FAILURES)


@pytest.mark.parametrize("transposed", [False, True])
def test_products_of_realistic_size_per_device(transposed):
    # The sweep's products are small; at this size OpenBLAS multiplies 64 rows folded together
    # with other kernels (other bits) than 8 rows alone, so the device axis must stay a batch
    # dimension of the product.
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 128)).astype(np.float32)
    w = rng.standard_normal((128, 128)).astype(np.float32)
    mesh = spmd.make_mesh((8,), ("d",))
    f = spmd.shard_map(
        (lambda b, m: b @ m.T) if transposed else (lambda b, m: b @ m),
        mesh=mesh,
        in_specs=(P("d"), P()),
        out_specs=P("d"),
    )
    got = np.asarray(f(x, w))
    with reference_mode():
        want = np.asarray(f(x, w))
    assert got.tobytes() == want.tobytes()
