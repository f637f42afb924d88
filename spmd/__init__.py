"""spmd: JAX's SPMD programming model in Python on NumPy (``import spmd as jax``).

This module re-exports the public API; the implementation lives in ``spmd._src``.
"""

from spmd._src import dispatch as _dispatch  # noqa: F401  (installs the eager executor)
from spmd._src.api import ShapeDtypeStruct, jit
from spmd._src.api_misc import (
    clear_caches,
    default_matmul_precision,
    effects_barrier,
    ensure_compile_time_eval,
    live_arrays,
    named_call,
    named_scope,
    print_environment_info,
)
from spmd._src.api_trace import eval_shape, make_jaxpr
from spmd._src.array import PublicArray as Array
from spmd._src.array import Shard
from spmd._src.autodiff import (
    grad,
    hessian,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    linearize,
    value_and_grad,
    vjp,
)
from spmd._src.config import (
    check_tracer_leaks,
    checking_leaks,
    config,
    debug_infs,
    debug_key_reuse,
    debug_nans,
    default_device,
    default_prng_impl,
    disable_jit,
    enable_checks,
    enable_custom_prng,
    enable_x64,
    explain_cache_misses,
    log_compiles,
    no_execution,
    no_tracing,
    numpy_dtype_promotion,
    numpy_rank_promotion,
    softmax_custom_jvp,
    threefry_partitionable,
    transfer_guard,
    transfer_guard_device_to_device,
    transfer_guard_device_to_host,
    transfer_guard_host_to_device,
)
from spmd._src.custom_derivatives import (
    checkpoint,
    checkpoint_policies,
    custom_jvp,
    custom_vjp,
    remat,
)
from spmd._src.custom_derivatives.gradient import closure_convert, custom_gradient
from spmd._src.devices import CpuDevice as Device
from spmd._src.devices import (
    default_backend,
    device_count,
    devices,
    host_count,
    host_id,
    host_ids,
    local_device_count,
    local_devices,
    process_count,
    process_index,
    process_indices,
)
from spmd._src.dtypes import float0
from spmd._src.fwd_and_bwd import fwd_and_bwd
from spmd._src.lax.pure_callback import pure_callback
from spmd._src.lax.sharding import reshard
from spmd._src.linear_transpose import linear_transpose
from spmd._src.mesh import make_mesh, set_mesh
from spmd._src.numpy import array_methods as _array_methods
from spmd._src.placement import (
    block_until_ready,
    copy_to_host_async,
    device_get,
    device_put,
    make_array_from_callback,
    make_array_from_process_local_data,
    make_array_from_single_device_arrays,
    typeof,
)
from spmd._src.pmap import pmap
from spmd._src.refs import Ref, empty_ref, free_ref, freeze, new_ref
from spmd._src.shard_map import shard_map, smap
from spmd._src.sharding import NamedSharding, PartitionSpec
from spmd._src.sharding import PartitionSpec as P
from spmd._src.vmap import vmap

_array_methods.install()

from spmd import (  # noqa: E402
    ad,
    custom_batching,
    custom_derivatives,
    debug,
    distributed,
    dlpack,
    dtypes,
    errors,
    experimental,
    image,
    lax,
    memory,
    nn,  # noqa: E402
    numpy,
    ops,
    profiler,
    random,
    ref,
    scipy,  # jax.scipy.special works after a bare `import jax`
    sharding,
    stages,
    tree,
    tree_util,
    typing,  # noqa: F401  (jax.typing after a bare `import jax`; kept out of __all__: a star
    # import must not shadow the standard library's typing)
)
from spmd.version import __version__  # noqa: E402

__version_info__ = tuple(int(p) for p in __version__.split("."))

__all__ = [
    "Ref",
    "empty_ref",
    "free_ref",
    "freeze",
    "new_ref",
    "ref",
    "memory",
    "block_until_ready",
    "clear_caches",
    "default_matmul_precision",
    "effects_barrier",
    "ensure_compile_time_eval",
    "float0",
    "fwd_and_bwd",
    "live_arrays",
    "named_call",
    "named_scope",
    "print_environment_info",
    "Device",
    "Shard",
    "copy_to_host_async",
    "distributed",
    "dlpack",
    "host_count",
    "host_id",
    "host_ids",
    "make_array_from_process_local_data",
    "process_indices",
    "experimental",
    "image",
    "ops",
    "profiler",
    "stages",
    "pure_callback",
    "NamedSharding",
    "P",
    "PartitionSpec",
    "debug",
    "default_backend",
    "device_count",
    "device_get",
    "device_put",
    "devices",
    "local_device_count",
    "local_devices",
    "make_array_from_callback",
    "make_array_from_single_device_arrays",
    "make_mesh",
    "pmap",
    "shard_map",
    "smap",
    "nn",
    "process_count",
    "process_index",
    "reshard",
    "set_mesh",
    "sharding",
    "typeof",
    "Array",
    "ShapeDtypeStruct",
    "config",
    "debug_infs",
    "debug_nans",
    "default_device",
    "disable_jit",
    "enable_x64",
    "threefry_partitionable",
    "numpy_dtype_promotion",
    "numpy_rank_promotion",
    "check_tracer_leaks",
    "checking_leaks",
    "debug_key_reuse",
    "default_prng_impl",
    "enable_checks",
    "enable_custom_prng",
    "explain_cache_misses",
    "log_compiles",
    "no_execution",
    "no_tracing",
    "softmax_custom_jvp",
    "transfer_guard",
    "transfer_guard_device_to_device",
    "transfer_guard_device_to_host",
    "transfer_guard_host_to_device",
    "checkpoint",
    "checkpoint_policies",
    "closure_convert",
    "custom_gradient",
    "ad",
    "custom_batching",
    "custom_derivatives",
    "custom_jvp",
    "custom_vjp",
    "remat",
    "dtypes",
    "errors",
    "eval_shape",
    "grad",
    "hessian",
    "jacfwd",
    "jacobian",
    "jacrev",
    "jvp",
    "linear_transpose",
    "linearize",
    "value_and_grad",
    "vjp",
    "vmap",
    "jit",
    "lax",
    "make_jaxpr",
    "numpy",
    "random",
    "scipy",
    "tree",
    "tree_util",
]

# Names JAX has removed, with what to use instead (JAX 0.10 raises AttributeError saying so).
_REMOVED = {
    "device_put_replicated": "jax.device_put_replicated is deprecated; use jax.device_put "
    "instead (spmd.device_put(x, NamedSharding(mesh, P())) replicates x over a mesh's devices)",
    "device_put_sharded": "jax.device_put_sharded is deprecated; use jax.device_put instead "
    "(spmd.device_put(jnp.stack(xs), NamedSharding(mesh, P('x'))) puts one block per device)",
}


def __getattr__(name: str):
    if name in _REMOVED:
        raise AttributeError(
            _REMOVED[name] + ". See https://docs.jax.dev/en/latest/migrate_pmap.html"
            "#drop-in-replacements for a drop-in replacement."
        )
    raise AttributeError(f"module 'spmd' has no attribute {name!r}")
