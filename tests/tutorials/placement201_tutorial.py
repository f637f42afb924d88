"""The code cells of JAX's "Data placement" page (docs/201/placement.md), as one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd (8 CPU devices)
and records what each prints or shows: values with their sharding, a mesh's or a sharding's
text, whether an array is committed, and error classes.

Left out or shrunk: ``jax.config.update('jax_num_cpu_devices', 8)`` (the runner gives both
backends 8 devices); the pipeline's microbatches are 8x8 (the page's 256x256 does not change
what the cell shows). Added: the "Notes" section's claims run (``device_put`` with no target
leaves the result uncommitted, ``donate=True``, ``np.asarray`` back to the host).
"""

from __future__ import annotations

import importlib

import numpy as np
import record

# The page prints meshes and shardings, whose text shows JAX 0.10's Explicit make_mesh default
# (spmd's is Auto: docs/DESIGN.md).
SPMD_CONFIG = {"spmd_default_axis_types": "explicit"}
KNOWN: dict[str, tuple[object, str]] = {}


def program(jax, rec) -> None:  # noqa: PLR0915 -- one tutorial, cell after cell
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    NamedSharding = jax.sharding.NamedSharding

    def note(cell, fn):
        return record.note(rec, cell, fn)

    full = jax.make_mesh((8,), ("x",))
    rec("full", repr(full))

    mesh_a = jax.make_mesh((4,), ("x",), devices=full.devices[:4])
    mesh_b = jax.make_mesh((4,), ("x",), devices=full.devices[4:])
    m0 = jax.make_mesh((1,), ("x",), devices=full.devices[:1])
    m1 = jax.make_mesh((1,), ("x",), devices=full.devices[1:2])
    rec("submeshes", [repr(m) for m in (mesh_a, mesh_b, m0, m1)])

    # -- Default placement, and commitment
    x = jnp.arange(4.0)
    rec("default.committed", x.committed)
    rec("default.sharding", str(x.sharding))

    data = np.arange(8.0)
    xa = jax.device_put(data, NamedSharding(mesh_a, jax.P("x")))
    rec("xa.committed", xa.committed)
    rec("xa.mesh", xa.sharding.mesh == mesh_a)
    rec("xa", xa)
    rec("xa.devices", sorted(d.id for d in xa.devices()))

    a = jax.device_put(1.0, NamedSharding(m0, jax.P()))
    b = jax.device_put(2.0, NamedSharding(m1, jax.P()))
    note("a+b", lambda: a + b)

    c = jnp.float32(3.0)
    rec("a+c.sharding", str((a + c).sharding))
    rec("a+c", a + c)
    rec("a+c.committed", (a + c).committed)

    # -- Moving data between meshes
    xb = jax.device_put(xa, NamedSharding(mesh_b, jax.P("x")))
    rec("xb.mesh", xb.sharding.mesh == mesh_b)
    rec("xb", xb)
    rec("xb.devices", sorted(d.id for d in xb.devices()))

    mesh_rev = jax.make_mesh((8,), ("x",), devices=full.devices[::-1])
    x = jax.device_put(np.arange(8.0), NamedSharding(full, jax.P("x")))
    y = jax.device_put(x, NamedSharding(mesh_rev, jax.P("x")))

    def data_by_device(arr):
        return [float(s.data[0]) for s in sorted(arr.addressable_shards, key=lambda s: s.device.id)]

    rec("data_by_device.x", data_by_device(x))
    rec("data_by_device.y", data_by_device(y))
    rec("rev.mesh_equal", x.sharding.mesh == y.sharding.mesh)
    note("rev.x+y", lambda: x + y)

    @jax.jit
    def f(x):
        return jax.device_put(x, NamedSharding(mesh_b, jax.P("x")))

    note("jit_cross_mesh", lambda: f(xa))

    # Beyond the page: a layout change within the array's own mesh is allowed under jit.
    @jax.jit
    def g(x):
        return jax.device_put(x, NamedSharding(mesh_a, jax.P()))

    note("jit_same_mesh", lambda: g(xa))

    stage_meshes = [
        jax.make_mesh((2,), ("x",), devices=full.devices[2 * i : 2 * i + 2]) for i in range(4)
    ]

    @jax.jit
    def stage(x):
        return jnp.sin(x) + 1.0

    microbatches = [np.full((8, 8), float(i)) for i in range(8)]
    results = []
    for mb in microbatches:
        for m in stage_meshes:
            mb = jax.device_put(mb, NamedSharding(m, jax.P("x")))
            mb = stage(mb)
        results.append(mb)
    rec("pipeline.mesh", results[-1].sharding.mesh == stage_meshes[-1])
    rec("pipeline.last", results[-1])
    rec("pipeline.devices", sorted(d.id for d in results[-1].devices()))
    rec("pipeline.first", results[0])

    # -- Notes
    z = jax.device_put(xa)
    rec("notes.put_no_target.committed", z.committed)
    rec("notes.put_no_target", z)
    w = jax.device_put(np.arange(3.0))
    rec("notes.put_host.committed", w.committed)
    src = jax.device_put(np.arange(4.0), NamedSharding(mesh_a, jax.P("x")))
    moved = jax.device_put(src, NamedSharding(mesh_b, jax.P("x")), donate=True)
    rec("notes.donate", moved)
    rec("notes.donate.mesh", moved.sharding.mesh == mesh_b)
    host = np.asarray(xb)
    rec("notes.asarray", [type(host).__name__, host])
