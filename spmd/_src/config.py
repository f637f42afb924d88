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
config.define(
    "jax_default_matmul_precision",
    os.environ.get("JAX_DEFAULT_MATMUL_PRECISION"),
    lambda v: v is None or isinstance(v, str),
    "Accepted for compatibility; NumPy computes in the operand precision.",
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
