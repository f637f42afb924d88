"""Configuration options, read as attributes and set with ``update``.

Options use JAX's names where JAX has the same option (``jax_enable_x64``, ...) and an ``spmd_``
prefix for spmd's own. Options that JAX reads from the environment are read from the same
environment variables here, once, when this module is imported.

>>> from spmd import config
>>> config.update("jax_enable_x64", True)
>>> config.jax_enable_x64
True
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from typing import Any


def _env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return raw.strip().lower() in ("1", "true", "yes", "on", "t", "y")


class _Option:
    __slots__ = ("name", "value", "validate", "help", "on_change")

    def __init__(self, name, value, validate, help, on_change=None):
        self.name, self.value, self.validate, self.help = name, value, validate, help
        self.on_change = on_change


def _is_bool(v: Any) -> bool:
    return isinstance(v, bool)


def _choice(*choices: str) -> Callable[[Any], bool]:
    return lambda v: v in choices


# Options that change what a traced program is; jit's cache key includes their values.
_TRACE_OPTIONS = (
    "jax_enable_x64",
    "jax_numpy_rank_promotion",
    "jax_numpy_dtype_promotion",
    "jax_threefry_partitionable",
    "jax_default_matmul_precision",
    "jax_random_seed_offset",
    "jax_high_dynamic_range_gumbel",
)


class Config:
    """The option registry. Unknown names raise ``AttributeError`` (as JAX does)."""

    def __init__(self) -> None:
        object.__setattr__(self, "_options", {})

    def define(self, name, default, validate, help, on_change=None):
        self._options[name] = _Option(name, default, validate, help, on_change)
        # Values live as instance attributes too: reading an option is a plain attribute
        # lookup (it happens on every jit call and promotion).
        self.__dict__[name] = default
        self.__dict__.pop("_trace_context", None)

    def trace_context(self) -> tuple:
        """The values of the options that change how a function traces (part of jit's key)."""
        tc = self.__dict__.get("_trace_context")
        if tc is None:
            o = self._options
            tc = tuple(o[n].value for n in _TRACE_OPTIONS if n in o)
            object.__setattr__(self, "_trace_context", tc)
        return tc

    def update(self, name: str, value: Any) -> None:
        """Set option ``name`` to ``value``; raises for unknown names and invalid values."""
        opt = self._options.get(name)
        if opt is None:
            raise AttributeError(f"Unrecognized config option: {name}")
        if not opt.validate(value):
            raise ValueError(f"config.update({name!r}, {value!r}): invalid value. {opt.help}")
        opt.value = value
        self.__dict__[name] = value
        self.__dict__.pop("_trace_context", None)
        if opt.on_change is not None:
            opt.on_change(value)

    def read(self, name: str) -> Any:
        return self._options[name].value

    def __getattr__(self, name: str) -> Any:
        try:
            return self._options[name].value
        except KeyError:
            raise AttributeError(f"Unrecognized config option: {name}") from None

    def __setattr__(self, name, value):
        raise AttributeError("use config.update(name, value) to change an option")

    def values(self) -> dict[str, Any]:
        return {k: o.value for k, o in self._options.items()}


config = Config()

config.define(
    "jax_enable_x64",
    _env_bool("JAX_ENABLE_X64", False),
    _is_bool,
    "Enable 64-bit types (int64, float64); when off they are canonicalized to 32 bits.",
)
config.define(
    "jax_threefry_partitionable",
    _env_bool("JAX_THREEFRY_PARTITIONABLE", True),
    _is_bool,
    "Use the partitionable threefry random-bits layout (JAX's default since 0.5).",
)
config.define(
    "jax_num_cpu_devices",
    int(os.environ.get("JAX_NUM_CPU_DEVICES", "-1")),
    lambda v: isinstance(v, int) and (v == -1 or v > 0),
    "Number of virtual CPU devices; must be set before the devices are first used.",
)
# The values JAX's jax_default_matmul_precision accepts, exactly spelt (XLA's precision names
# and the dot algorithm presets; not 'fastest', not a lax.Precision or preset object).
MATMUL_PRECISIONS = [
    "default",
    "high",
    "highest",
    "bfloat16",
    "tensorfloat32",
    "float32",
    "ANY_F8_ANY_F8_F32",
    "ANY_F8_ANY_F8_F32_FAST_ACCUM",
    "ANY_F8_ANY_F8_ANY",
    "ANY_F8_ANY_F8_ANY_FAST_ACCUM",
    "F16_F16_F16",
    "F16_F16_F32",
    "BF16_BF16_BF16",
    "BF16_BF16_F32",
    "BF16_BF16_F32_X3",
    "BF16_BF16_F32_X6",
    "BF16_BF16_F32_X9",
    "TF32_TF32_F32",
    "TF32_TF32_F32_X3",
    "F32_F32_F32",
    "F64_F64_F64",
]
config.define(
    "jax_default_matmul_precision",
    os.environ.get("JAX_DEFAULT_MATMUL_PRECISION"),
    lambda v: v is None or (isinstance(v, str) and v in MATMUL_PRECISIONS),
    f"The precision of dots that give none: None or one of {MATMUL_PRECISIONS}.",
)
config.define(
    "jax_disable_jit",
    _env_bool("JAX_DISABLE_JIT", False),
    _is_bool,
    "Run jitted functions eagerly (op by op).",
)


@contextlib.contextmanager
def disable_jit(disable: bool = True) -> Iterator[None]:
    """Inside the block, jitted functions and control flow run eagerly, op by op (Python
    side effects and prints happen on every call, and values can be inspected).

    >>> with disable_jit():
    ...     f(x)  # f's Python body runs with concrete arrays
    """
    before = config.jax_disable_jit
    config.update("jax_disable_jit", bool(disable))
    try:
        yield
    finally:
        config.update("jax_disable_jit", before)


config.define(
    "jax_numpy_rank_promotion",
    os.environ.get("JAX_NUMPY_RANK_PROMOTION", "allow"),
    _choice("allow", "warn", "raise"),
    "What to do when binary operations broadcast arrays of different rank.",
)
config.define(
    "jax_numpy_dtype_promotion",
    os.environ.get("JAX_NUMPY_DTYPE_PROMOTION", "standard"),
    _choice("standard", "strict"),
    "'strict' disallows implicit promotion between different dtypes.",
)
config.define(
    "jax_platforms",
    os.environ.get("JAX_PLATFORMS", "cpu"),
    lambda v: v is None or isinstance(v, str),
    "Accepted for compatibility; spmd only has CPU devices.",
)
config.define(
    "jax_debug_nans",
    _env_bool("JAX_DEBUG_NANS", False),
    _is_bool,
    "Raise FloatingPointError when an operation produces a NaN.",
)
config.define(
    "spmd_default_axis_types",
    os.environ.get("SPMD_DEFAULT_AXIS_TYPES", "auto"),
    lambda v: v in ("auto", "explicit"),
    "Default axis types of make_mesh: 'auto' (the seeds' semantics) or 'explicit' (JAX 0.10's).",
)
config.define(
    "spmd_jit_cache_size",
    int(os.environ.get("SPMD_JIT_CACHE_SIZE", "4096")),
    lambda v: isinstance(v, int) and v > 0,
    "Maximum number of traced programs kept per jitted function.",
)
config.define(
    "spmd_uneven",
    os.environ.get("SPMD_UNEVEN", "warn"),
    _choice("warn", "raise", "pad"),
    "A sharding constraint on a dimension its shards do not divide (JAX silently keeps only the "
    "leading mesh axes that divide it, under jit): 'warn' does the same with an "
    "UnevenShardingWarning, 'raise' raises "
    "IndivisibleError, 'pad' keeps the sharding and lays each shard out padded to ceil(d/n) "
    "(device_put, in/out_shardings and constraints then accept uneven dimensions everywhere).",
)
config.define(
    "spmd_cpu_threads",
    int(os.environ.get("SPMD_CPU_THREADS", "0")),
    lambda v: isinstance(v, int) and v >= 0,
    "Threads a large reduction (16 MiB or more) runs on: each reduces pieces of the outermost "
    "axis, cut by the shape alone, so values do not depend on this setting; 0: one per CPU this "
    "process may run on, 1: no threads.",
)
config.define(
    "spmd_partition",
    os.environ.get("SPMD_PARTITION", "auto"),
    _choice("auto", "always"),
    "'always': every jit over sharded arguments runs partitioned (one shard_map body with the "
    "collectives its rules insert); 'auto': in one process jit computes on the global data.",
)
config.define(
    "jax_debug_infs",
    _env_bool("JAX_DEBUG_INFS", False),
    _is_bool,
    "Raise FloatingPointError when an operation produces an inf.",
)


def _is_default_device(v: Any) -> bool:
    # A device (anything with a platform, as spmd's CpuDevice), a platform name, or None.
    return v is None or v == "cpu" or hasattr(v, "platform")


config.define(
    "jax_default_device",
    None,
    _is_default_device,
    "The device new uncommitted arrays are placed on: a device, 'cpu' or None (the first device).",
)


# ---------------------------------------------------------------------------------------------
# Options as context managers (jax.enable_x64(True), ...)

_NO_DEFAULT = object()


def _check_enum(choices: tuple[str, ...]) -> Callable[[Any], Any]:
    def check(v: Any) -> Any:
        if v not in choices:
            raise ValueError(
                f"new enum value must be in {list(choices)}, got {v} of type {type(v)}."
            )
        return v

    return check


def _check_dtype_promotion(v: Any) -> Any:
    if v not in ("standard", "strict"):
        raise ValueError(f"{v!r} is not a valid NumpyDtypePromotion")
    return v


def _check_default_device(v: Any) -> Any:
    if not (v is None or isinstance(v, str) or hasattr(v, "platform")):
        raise ValueError(
            "jax.default_device must be passed either a Device object (e.g. "
            "`jax.devices('cpu')[0]`) or a platform name string like 'cpu' or 'gpu', got: "
            f"{v!r}"
        )
    if isinstance(v, str) and v != "cpu":
        raise ValueError(f"jax.default_device: unknown platform {v!r}; spmd has only 'cpu'")
    return v


class State:
    """An option usable as a context manager (or decorator) that sets it for a block and
    restores it on the way out, exceptions included: ``with spmd.enable_x64(True): ...``.
    ``value`` is the option's current value.

    Bool options take any value as its truth (as JAX's do); ``None`` means the value set
    outside every such block."""

    __slots__ = ("name", "short", "check", "is_bool", "_outer")

    def __init__(self, name: str, check: Callable[[Any], Any] | None = None, is_bool=False):
        self.name, self.short, self.check, self.is_bool = name, name[4:], check, is_bool
        self._outer: list[Any] = []  # values saved by the blocks now open, outermost first

    @property
    def value(self) -> Any:
        return config.read(self.name)

    def __call__(self, new_val: Any = _NO_DEFAULT) -> _StateContext:
        if new_val is _NO_DEFAULT and self.is_bool:
            new_val = True  # JAX's bool options: ``with jax.check_tracer_leaks():`` turns it on
        if new_val is _NO_DEFAULT:
            raise TypeError(
                f"Context manager for {self.short} config option requires an argument "
                "representing the new value for the config option."
            )
        if self.is_bool and new_val is not None:
            new_val = bool(new_val)
        elif self.check is not None:
            new_val = self.check(new_val)
        return _StateContext(self, new_val)

    def __repr__(self) -> str:
        return f"State({self.name}={self.value!r})"


class _StateContext(contextlib.ContextDecorator):
    def __init__(self, state: State, new_val: Any) -> None:
        self.state, self.new_val = state, new_val
        self._saved: list[Any] = []

    def __enter__(self) -> None:
        st = self.state
        before = config.read(st.name)
        new = self.new_val
        if new is None and st.is_bool:
            new = st._outer[0] if st._outer else before
        st._outer.append(before)
        self._saved.append(before)
        config.update(st.name, new)

    def __exit__(self, *exc: Any) -> None:
        st = self.state
        st._outer.pop()
        config.update(st.name, self._saved.pop())


enable_x64 = State("jax_enable_x64", is_bool=True)
threefry_partitionable = State("jax_threefry_partitionable", is_bool=True)
debug_nans = State("jax_debug_nans", is_bool=True)
debug_infs = State("jax_debug_infs", is_bool=True)
numpy_rank_promotion = State("jax_numpy_rank_promotion", _check_enum(("allow", "warn", "raise")))
numpy_dtype_promotion = State("jax_numpy_dtype_promotion", _check_dtype_promotion)
default_device = State("jax_default_device", _check_default_device)


# ---------------------------------------------------------------------------------------------
# JAX's other options. A program that sets one must run unchanged, so every name JAX 0.10 has
# and a JAX program is likely to set is known here: some act, a few are refused when set away
# from their default (spmd does not implement what they ask for), and the rest concern machinery
# spmd does not have (XLA's compiler and caches, accelerators), so they are kept and do nothing.

config.define(
    "jax_log_compiles",
    _env_bool("JAX_LOG_COMPILES", False),
    _is_bool,
    "Log a line (logger 'spmd', WARNING) each time jit traces and compiles a function.",
)
config.define(
    "jax_check_tracer_leaks",
    _env_bool("JAX_CHECK_TRACER_LEAKS", False),
    _is_bool,
    "Raise when a tracer outlives the trace that made it (jit, make_jaxpr, control-flow "
    "bodies): spmd._src.leak_check. Slow (a garbage collection per trace): for debugging.",
)
config.define(
    "jax_explain_cache_misses",
    _env_bool("JAX_EXPLAIN_CACHE_MISSES", False),
    _is_bool,
    "Log why jit traces again: the arguments whose types differ from the closest cached call.",
)
config.define(
    "jax_no_tracing",
    False,
    _is_bool,
    "Raise RuntimeError when jit would trace a function (every call must hit its cache).",
)
config.define(
    "jax_high_dynamic_range_gumbel",
    False,
    _is_bool,
    "random.gumbel's default mode: 'high' (more dynamic range in the tails) instead of 'low'.",
)
config.define(
    "jax_random_seed_offset",
    0,
    lambda v: isinstance(v, int),
    "An integer added to every seed given to random.key and random.PRNGKey.",
)


def _set_logging_level(level: str) -> None:
    import logging

    logging.getLogger("spmd").setLevel(level.upper())


config.define(
    "jax_logging_level",
    os.environ.get("JAX_LOGGING_LEVEL", "NOTSET"),
    lambda v: (
        isinstance(v, str)
        and v.upper() in ("NOTSET", "DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
    ),
    "Level of the 'spmd' logger: NOTSET, DEBUG, INFO, WARNING, ERROR or CRITICAL.",
    _set_logging_level,
)
config.define(
    "jax_platform_name",
    os.environ.get("JAX_PLATFORM_NAME", ""),
    _choice("", "cpu"),
    "The default platform: '' or 'cpu' (spmd has CPU devices only).",
)
config.define(
    "jax_default_prng_impl",
    os.environ.get("JAX_DEFAULT_PRNG_IMPL", "threefry2x32"),
    _choice("threefry2x32", "rbg", "unsafe_rbg"),
    "The PRNG implementation of new keys: 'threefry2x32' (JAX's default), 'rbg' or 'unsafe_rbg'.",
)


# Refused away from their default: what they would turn on is not implemented.
def _refuse_other_than(name: str, accepted: tuple, what: str) -> Callable[[Any], bool]:
    def check(v: Any) -> bool:
        if any(v is a or (isinstance(a, str) and v == a) for a in accepted):
            return True
        raise NotImplementedError(
            f"config.update({name!r}, {v!r}): spmd does not implement {what}; accepted: "
            f"{', '.join(map(repr, accepted))}"
        )

    return check


for _name, _accepted, _what in [
    ("jax_debug_key_reuse", (False,), "PRNG key reuse checking"),
    ("jax_enable_custom_prng", (False,), "custom PRNG implementations"),
    ("jax_no_execution", (False,), "refusing execution"),
    ("jax_transfer_guard", (None, "allow"), "transfer guards"),
    ("jax_transfer_guard_host_to_device", (None, "allow"), "transfer guards"),
    ("jax_transfer_guard_device_to_device", (None, "allow"), "transfer guards"),
    ("jax_transfer_guard_device_to_host", (None, "allow"), "transfer guards"),
]:
    config.define(
        _name,
        _accepted[0],
        _refuse_other_than(_name, _accepted, _what),
        f"spmd does not implement {_what}: only {' or '.join(map(repr, _accepted))}.",
    )

# Kept and without effect, with the reason.
_NO_EFFECT = {
    "spmd has no XLA compiler, so no compilation cache or compiler settings": (
        ("jax_compilation_cache_dir", None),
        ("jax_enable_compilation_cache", True),
        ("jax_persistent_cache_min_compile_time_secs", 1.0),
        ("jax_persistent_cache_min_entry_size_bytes", 0),
        ("jax_persistent_cache_enable_xla_caches", "xla_gpu_per_fusion_autotune_cache_dir"),
        ("jax_compilation_cache_max_size", -1),
        ("jax_raise_persistent_cache_errors", False),
        ("jax_optimization_level", "UNKNOWN"),
        ("jax_memory_fitting_level", "UNKNOWN"),
        ("jax_exec_time_optimization_effort", 0.0),
        ("jax_memory_fitting_effort", 0.0),
        ("jax_disable_most_optimizations", False),
        ("jax_dump_ir_to", ""),
        ("jax_dump_ir_modes", "stablehlo"),
        ("jax_include_debug_info_in_dumps", True),
        ("jax_use_shardy_partitioner", True),
        ("jax_compiler_enable_remat_pass", True),
        ("jax_cpu_enable_async_dispatch", True),
        ("jax_enable_pgle", False),
        ("jax_pgle_profiling_runs", 3),
        ("jax_cpu_collectives_implementation", "gloo"),
    ),
    "spmd's tracebacks and printing are its own": (
        ("jax_traceback_filtering", "auto"),
        ("jax_include_full_tracebacks_in_locations", True),
        ("jax_traceback_in_locations_limit", 10),
        ("jax_pprint_use_color", True),
        ("jax_tracer_error_num_traceback_frames", 5),
    ),
    "spmd runs on CPUs only": (
        ("jax_cuda_visible_devices", "all"),
        ("jax_rocm_visible_devices", "all"),
        ("jax_use_magma", "auto"),
        ("jax_threefry_gpu_kernel_lowering", False),
        ("jax_pallas_verbose_errors", False),
        ("jax_ragged_dot_use_ragged_dot_instruction", True),
    ),
    "it changes how JAX stages programs, not their values": (
        ("jax_softmax_custom_jvp", False),
        ("jax_enable_checks", False),
        ("jax_use_simplified_jaxpr_constants", False),
        # JAX's experimental remat implementation (docs/301/remat.md turns it on): the same
        # values and saved residuals as its classic checkpoint.
        ("jax_remat3", False),
    ),
}
for _reason, _opts in _NO_EFFECT.items():
    for _name, _default in _opts:
        config.define(_name, _default, lambda v: True, f"Accepted without effect: {_reason}.")


log_compiles = State("jax_log_compiles", is_bool=True)
explain_cache_misses = State("jax_explain_cache_misses", is_bool=True)
no_tracing = State("jax_no_tracing", is_bool=True)
no_execution = State("jax_no_execution", is_bool=True)
check_tracer_leaks = State("jax_check_tracer_leaks", is_bool=True)
debug_key_reuse = State("jax_debug_key_reuse", is_bool=True)
enable_checks = State("jax_enable_checks", is_bool=True)
softmax_custom_jvp = State("jax_softmax_custom_jvp", is_bool=True)
enable_custom_prng = State("jax_enable_custom_prng", is_bool=True)
default_prng_impl = State(
    "jax_default_prng_impl", _check_enum(("threefry2x32", "rbg", "unsafe_rbg"))
)
transfer_guard_host_to_device = State("jax_transfer_guard_host_to_device")
transfer_guard_device_to_device = State("jax_transfer_guard_device_to_device")
transfer_guard_device_to_host = State("jax_transfer_guard_device_to_host")


@contextlib.contextmanager
def checking_leaks() -> Iterator[None]:
    """Check for leaked tracers inside the block (``jax_check_tracer_leaks``)."""
    with check_tracer_leaks(True):
        yield


@contextlib.contextmanager
def transfer_guard(new_val: str) -> Iterator[None]:
    """A transfer guard for all three directions inside the block ('allow' only in spmd)."""
    with contextlib.ExitStack() as stack:
        for st in (
            transfer_guard_host_to_device,
            transfer_guard_device_to_device,
            transfer_guard_device_to_host,
        ):
            stack.enter_context(st(new_val))
        yield
