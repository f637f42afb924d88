"""The code cells of JAX's "JAX Memories and Host Offloading" tutorial, as one program.

``program(jax, rec)`` runs the cells in order with ``jax`` being JAX or spmd (8 CPU devices;
the page's mesh is one device) and records what each cell prints: shardings as their text,
memory kinds, the arrays jit returns (with their sharding and memory kind), the gradients of
the scanned, rematerialized layers under the offloading policy.

Left out or shrunk: the page has no GPU/TPU-only cell (its offloading runs on CPU too, where
host and device memory are one: JAX's CPU client names ``device``, ``pinned_host`` and
``unpinned_host`` memories), no ``compute_on`` cell, and its profiling section has no code.
The scanned layers are 2 x (8 x 16) instead of 10 x (256 x 1024) (the values do not depend on
the sizes). On CPU, JAX 0.10.2 keeps the gradients of the host-placed parameters in host
memory, so the page's ``allclose`` of a device and a host array is a ValueError there (the
page ran on an accelerator and printed True): the program records that, and the comparison
with the gradient moved to the device.
Beyond the page: the memory kinds of the results and the residuals the offloading policy
saves (``print_saved_residuals``: what is offloaded to host memory).
"""

from __future__ import annotations

import contextlib
import importlib
import io

import numpy as np
from record import note

KNOWN: dict[str, tuple[object, str]] = {}


def program(jax, rec) -> None:
    jnp = importlib.import_module(jax.__name__ + ".numpy")
    ad_checkpoint = importlib.import_module(jax.__name__ + ".ad_checkpoint")
    Mesh, NamedSharding = jax.sharding.Mesh, jax.sharding.NamedSharding
    P = jax.sharding.PartitionSpec

    def kind(x):
        return x.sharding.memory_kind

    # -- NamedSharding and Memory Kinds
    mesh = Mesh(np.array(jax.devices()[0]).reshape(1, 1), ("x", "y"))
    s_dev = NamedSharding(mesh, P("x", "y"), memory_kind="device")
    s_host = s_dev.with_memory_kind("pinned_host")
    rec("kinds.s_dev", str(s_dev))
    rec("kinds.s_host", str(s_host))
    rec("kinds.unpinned", str(s_dev.with_memory_kind("unpinned_host")))

    # -- Data Placement with device_put
    arr = jnp.arange(8.0).reshape(2, 4)
    arr_host = jax.device_put(arr, s_host)
    arr_dev = jax.device_put(arr, s_dev)
    rec("device_put.host_kind", arr_host.sharding.memory_kind)
    rec("device_put.dev_kind", arr_dev.sharding.memory_kind)
    rec("device_put.host", arr_host)
    arr_unpinned = jax.device_put(arr, s_dev.with_memory_kind("unpinned_host"))
    rec("device_put.unpinned_kind", kind(arr_unpinned))

    # -- Device Output Sharding
    f = jax.jit(lambda x: x, out_shardings=s_dev)
    out_dev = f(arr_host)
    rec("h2d.out", out_dev)
    rec("h2d.kind", kind(out_dev))

    def add_func(x):  # Move data to device and add one
        x = jax.device_put(x, s_dev)
        return x + 1

    f = jax.jit(add_func, out_shardings=s_dev)
    out_dev = f(arr_host)
    rec("h2d_add.out", out_dev)
    rec("h2d_add.kind", kind(out_dev))

    # -- Host Output Sharding (the page's cell jits to s_dev; its text says host memory)
    f = jax.jit(lambda x: x, out_shardings=s_dev)
    out_host = f(arr_host)
    rec("d2h.out", out_host)
    rec("d2h.kind", kind(out_host))
    out_host = jax.jit(lambda x: x, out_shardings=s_host)(arr_dev)
    rec("d2h.to_host.out", out_host)
    rec("d2h.to_host.kind", kind(out_host))

    # -- Activation Offloading: checkpoint names
    checkpoint_name = ad_checkpoint.checkpoint_name

    def layer(x, w):
        w1, w2 = w
        x = checkpoint_name(x, "x")
        y = x @ w1
        return y @ w2, None

    # -- Checkpoint policies
    cp = jax.checkpoint_policies
    policy = cp.save_and_offload_only_these_names(
        names_which_can_be_saved=[],
        names_which_can_be_offloaded=["x"],
        offload_src="device",
        offload_dst="pinned_host",
    )

    def scanned(w, x):
        remat_layer = jax.remat(layer, policy=policy, prevent_cse=False)
        result = jax.lax.scan(remat_layer, x, w)[0]
        return jnp.sum(result)

    input = jnp.ones((8, 8), dtype=jnp.float32) * 0.001  # noqa: A001 -- the page's name
    w1 = jnp.ones((2, 8, 16), dtype=jnp.float32) * 0.001
    w2 = jnp.ones((2, 16, 8), dtype=jnp.float32) * 0.001

    f = jax.jit(jax.grad(scanned))
    result_activation = f((w1, w2), input)
    rec("activation.sample", result_activation[0][0, 0, :5])
    rec("activation.grads", result_activation)

    # Beyond the page: which residuals the policy keeps, and where.
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        ad_checkpoint.print_saved_residuals(
            jax.remat(layer, policy=policy, prevent_cse=False), input, (w1[0], w2[0])
        )
    rec("activation.saved_residuals", buf.getvalue())

    # -- Parameter offloading
    def hybrid_layer(x, w):
        w1, w2 = jax.tree.map(lambda x: jax.device_put(x, s_dev), w)
        x = checkpoint_name(x, "x")
        y = x @ w1
        return y @ w2, None

    def hybrid_scanned(w, x):
        remat_layer = jax.remat(hybrid_layer, policy=policy, prevent_cse=False)
        result = jax.lax.scan(remat_layer, x, w)[0]
        return jnp.sum(result)

    wh1 = jax.device_put(w1, s_host)
    wh2 = jax.device_put(w2, s_host)
    rec("params.wh1_kind", kind(wh1))

    f = jax.jit(jax.grad(hybrid_scanned))
    result_both = f((wh1, wh2), input)
    rec("params.grads_kind", [kind(result_both[0]), kind(result_both[1])])

    def match():
        are_close = jnp.allclose(result_activation[0], result_both[0], rtol=1e-5, atol=1e-5)
        return f"Results match within tolerance: {are_close}"

    # JAX 0.10.2 on CPU: the gradients of the host-placed parameters are typed in host memory,
    # and allclose refuses operands of two memories (ValueError); the page ran on an
    # accelerator, where it printed True.
    note(rec, "params.are_close", match)
    are_close = jnp.allclose(
        result_activation[0], jax.device_put(result_both[0], s_dev), rtol=1e-5, atol=1e-5
    )
    rec("params.are_close_on_device", f"Results match within tolerance: {are_close}")
    rec("params.grads", result_both)
