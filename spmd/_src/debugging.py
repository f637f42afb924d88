"""Pictures of shardings: which device holds which block of an array.

``visualize_array_sharding(x)`` prints the same boxes as JAX for 1-D and 2-D arrays (a cell per
shard, labelled with the devices holding it, sized by the shard's extent), and beyond JAX draws
arrays of any rank as one 2-D picture of the last two dimensions per shard of the leading
dimensions, with the memory kind noted when it is not ``device``. ``sharding_text`` returns the
picture as plain text (what tests compare).

>>> print(sharding_text((8,), NamedSharding(make_mesh((8,), ("x",)), P("x"))))  # doctest: +SKIP
"""

from __future__ import annotations

import copy
import functools
import io
import logging
import string
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core
from spmd._src.array import Array
from spmd._src.lax import callback as _cb
from spmd._src.lax.inspect_sharding import inspect_sharding
from spmd._src.lax.pure_callback import call_host
from spmd._src.sharding import Sharding

_logger = logging.getLogger(__name__)


def _shard_grid(shape: tuple[int, ...], sharding: Sharding):
    """Per 2-D block (row, col): the device ids holding it and its relative extent."""
    cells: dict[tuple[int, int], set[int]] = {}
    extent: dict[tuple[int, int], tuple[float | None, float]] = {}
    for d, idx in sharding.devices_indices_map(shape).items():
        starts, sizes = [], []
        for n, s in zip(shape, idx):
            lo = 0 if s.start is None else s.start
            hi = n if s.stop is None else s.stop
            size = hi - lo
            starts.append(lo // size if size else 0)
            sizes.append(size)
        if len(shape) == 2:
            key = (starts[0], starts[1])
            extent[key] = (sizes[0] / shape[0], sizes[1] / shape[1])
        else:
            key = (0, starts[0])
            extent[key] = (None, sizes[0] / shape[0])
        cells.setdefault(key, set()).add(d.id)
    return cells, extent


def _render_2d(shape, sharding, *, scale: float, min_width: int, max_width: int) -> str:
    import rich.align
    import rich.box
    import rich.console
    import rich.padding
    import rich.table

    base_height = int(10 * scale)
    aspect = (shape[1] if len(shape) == 2 else 1) / shape[0]
    base_width = int(base_height * aspect)
    # Terminal cells are about 2.5 times as tall as they are wide.
    width_per_height = 2.5
    kind = next(iter(sharding.device_set)).platform.upper()
    cells, extent = _shard_grid(tuple(shape), sharding)
    rows = max(r for r, _ in cells) + 1
    cols = max(c for _, c in cells) + 1
    table = rich.table.Table(
        show_header=False,
        show_lines=True,
        padding=0,
        highlight=True,
        pad_edge=False,
        box=rich.box.SQUARE,
    )
    for i in range(rows):
        row = []
        for j in range(cols):
            label = f"{kind} " + ",".join(str(k) for k in sorted(cells[i, j]))
            h_frac, w_frac = extent[i, j]
            width = min(max(int(w_frac * base_width * width_per_height), min_width), max_width)
            height = 1 if h_frac is None else int(h_frac * base_height)
            left, extra = divmod(width - len(label) - 2, 2)
            top, extra_v = divmod(height - 2, 2)
            pad = (max(top, 0), max(left + extra, 0), max(top + extra_v, 0), max(left, 0))
            row.append(
                rich.padding.Padding(rich.align.Align(label, "center", vertical="middle"), pad)
            )
        table.add_row(*row)
    buf = io.StringIO()
    console = rich.console.Console(
        width=max_width, file=buf, color_system=None, force_terminal=False, highlight=False
    )
    console.print(table, end="\n\n")
    return buf.getvalue()


def sharding_text(
    shape: Sequence[int],
    sharding: Sharding,
    *,
    scale: float = 1.0,
    min_width: int = 9,
    max_width: int = 80,
) -> str:
    """The picture of ``sharding`` over an array of ``shape``, as plain text."""
    shape = tuple(shape)
    memory = getattr(sharding, "memory_kind", "device")
    note = f"memory kind: {memory}\n" if memory != "device" else ""
    if len(shape) in (1, 2):
        return note + _render_2d(
            shape, sharding, scale=scale, min_width=min_width, max_width=max_width
        )
    if len(shape) == 0:
        kind = next(iter(sharding.device_set)).platform.upper()
        ids = ",".join(str(d.id) for d in sorted(sharding.device_set, key=lambda d: d.id))
        return note + f"{kind} {ids}  (scalar)\n\n"
    # Beyond JAX: one picture of the last two dimensions per block of the leading ones.
    lead = shape[:-2]
    blocks: dict[tuple, dict] = {}
    for d, idx in sharding.devices_indices_map(shape).items():
        key = tuple(
            (0 if s.start is None else s.start, n if s.stop is None else s.stop)
            for s, n in zip(idx[:-2], lead)
        )
        blocks.setdefault(key, {})[d] = idx[-2:]
    out = [note]
    for key in sorted(blocks):
        sub = _SubSharding(blocks[key], sharding)
        header = ", ".join(f"{lo}:{hi}" for lo, hi in key)
        out.append(f"[{header}, :, :]\n")
        out.append(
            _render_2d(shape[-2:], sub, scale=scale, min_width=min_width, max_width=max_width)
        )
    return "".join(out)


class _SubSharding:
    """The devices_indices_map restricted to one block of the leading dimensions."""

    def __init__(self, mapping: dict, parent: Sharding) -> None:
        self._map = mapping
        self.device_set = set(mapping)
        self.memory_kind = getattr(parent, "memory_kind", "device")

    def devices_indices_map(self, shape):
        return self._map


def visualize_sharding(
    shape: Sequence[int],
    sharding: Sharding,
    *,
    use_color: bool = True,
    scale: float = 1.0,
    min_width: int = 9,
    max_width: int = 80,
    color_map: Any = None,
) -> None:
    """Print the picture of ``sharding`` over an array of ``shape``."""
    print(
        sharding_text(shape, sharding, scale=scale, min_width=min_width, max_width=max_width),
        end="",
    )


def visualize_array_sharding(arr: Any, **kwargs: Any) -> None:
    """Print which device holds which part of ``arr``.

    >>> visualize_array_sharding(jnp.arange(8.0))  # doctest: +SKIP

    Inside jit it prints the sharding propagation gives ``arr``, once per input placement (see
    ``inspect_array_sharding``).
    """
    if isinstance(arr, core.Tracer):
        shape = arr.aval.shape
        inspect_array_sharding(arr, callback=lambda s: visualize_sharding(shape, s, **kwargs))
        return
    if not isinstance(arr, Array):
        arr = Array(arr)
    visualize_sharding(arr.shape, arr.sharding, **kwargs)


def inspect_array_sharding(value: Any, *, callback: Callable[[Sharding], None]) -> None:
    """Call ``callback`` with the sharding of each array in ``value``: at once for concrete
    arrays; for values inside jit, with the sharding jit's propagation gives them, once per
    input placement (when JAX would compile), not each time the program runs.

    >>> spmd.debug.inspect_array_sharding(jnp.arange(4.0), callback=print)  # doctest: +SKIP
    SingleDeviceSharding(device=CpuDevice(id=0), memory_kind=device)
    """
    from spmd._src import tree_util as tu

    name = repr(callback)  # printed in jaxprs as JAX prints it
    for leaf in tu.tree_leaves(value):
        if isinstance(leaf, core.Tracer):
            inspect_sharding(leaf, callback, name)
        else:
            callback(leaf.sharding if isinstance(leaf, Array) else Array(leaf).sharding)


def callback(
    fn: Callable[..., Any],
    *args: Any,
    ordered: bool = False,
    partitioned: bool = False,
    **kwargs: Any,
) -> None:
    """Call ``fn(*args, **kwargs)`` with the values the program computes (as Arrays), when it
    runs: eagerly at once, under jit each time the program runs. Inside pmap and shard_map: once
    per device, in device order (row-major over nested maps and mesh axes), even when the values
    are the same on every device. Inside vmap: once per mapped element when an argument is
    batched, once when none is (as JAX). ``ordered`` and ``partitioned`` are accepted; calls
    always run in program order, on the global values.

    >>> spmd.debug.callback(print, jnp.arange(2))  # doctest: +SKIP
    [0 1]
    """
    from spmd._src import tree_util as tu

    leaves, treedef = tu.tree_flatten((args, kwargs))
    # Called at once (no jit around it), ``fn``'s exception is the caller's; in a program it
    # stops the program with JaxRuntimeError, as in JAX.
    staged = _in_program()

    def _flat_callback(*vals):
        a, kw = tu.tree_unflatten(treedef, [_as_array(v) for v in vals])
        if staged:
            call_host("debug.callback", lambda: fn(*a, **kw), ())
        else:
            fn(*a, **kw)

    # JAX's jaxprs show its own wrapper's name here.
    _flat_callback.__qualname__ = "debug_callback.<locals>._debug_callback.<locals>._flat_callback"
    shown = _cb.Shown(
        [("callback", _flat_callback), ("effect", "Debug"), ("partitioned", partitioned)]
    )
    name = getattr(fn, "__name__", "callback")
    _cb.debug_callback(_flat_callback, *leaves, name=name, shown=shown)


def _in_program() -> bool:
    """Whether values are being traced into a program (a jit, make_jaxpr, a loop body) rather
    than computed at once (eagerly, or under eager vmap/jvp)."""
    from spmd._src.interpreters import partial_eval as pe

    trace = core.trace_ctx.trace
    while trace is not None:
        if isinstance(trace, pe.JaxprTrace):
            return True
        trace = getattr(trace, "parent_trace", None)
    return False


def _as_array(v: Any) -> Any:
    # Callbacks get Arrays, as in JAX (a container's repr shows ``Array(...)``).
    return v if isinstance(v, Array) else Array(np.asarray(v))


def _is_static(leaf: Any) -> bool:
    """A leaf debug.print formats as it is instead of passing it through the program."""
    return not isinstance(leaf, (Array, core.Tracer, np.ndarray, np.generic, int, float, complex))


class _AnyField:
    """Stands for an argument while the format string is checked: accepts any format spec."""

    def __format__(self, spec: str) -> str:
        return ""

    def __getattr__(self, name: str) -> _AnyField:
        return self

    def __getitem__(self, key: Any) -> _AnyField:
        return self


def debug_print(
    fmt: str | None = None,
    *args: Any,
    ordered: bool = False,
    partitioned: bool = False,
    skip_format_check: bool = False,
    _use_logging: bool = False,
    **kwargs: Any,
) -> Callable[..., None] | None:
    """``print(fmt.format(*args, **kwargs))`` with the values the program computes (see
    ``callback`` for when and how often), with NumPy's print options of the time it is traced.
    Without ``fmt`` it returns the printing function (``spmd.debug.print(ordered=True)("x =
    {}", x)``). A format string that does not fit the arguments raises when traced, as
    ``str.format`` would.

    >>> spmd.debug.print("x = {x}", x=jnp.arange(3))  # doctest: +SKIP
    x = [0 1 2]
    """
    options = dict(
        ordered=ordered,
        partitioned=partitioned,
        skip_format_check=skip_format_check,
        _use_logging=_use_logging,
    )
    if fmt is None:
        if args or kwargs:
            raise TypeError(
                "debug.print: the format string comes first; got no format string but "
                f"{len(args)} positional and {len(kwargs)} keyword argument(s)"
            )
        return functools.partial(debug_print, **options)
    if not isinstance(fmt, str):
        raise TypeError(f"debug.print: the format string must be a str, got {type(fmt).__name__}")
    _print(fmt, args, kwargs, stacklevel=2, **options)
    return None


def log(
    fmt: str | None = None,
    *args: Any,
    ordered: bool = False,
    partitioned: bool = False,
    skip_format_check: bool = False,
    **kwargs: Any,
) -> Callable[..., None] | None:
    """``debug.print`` through Python's ``logging``: an INFO record of the logger
    ``spmd._src.debugging`` carrying the caller's file and line, emitted when the values are
    known.

    >>> spmd.debug.log("loss = {}", loss)  # doctest: +SKIP
    """
    options = dict(ordered=ordered, partitioned=partitioned, skip_format_check=skip_format_check)
    if fmt is None:
        return debug_print(None, *args, _use_logging=True, **options, **kwargs)
    _print(fmt, args, kwargs, stacklevel=2, _use_logging=True, **options)
    return None


def _print(
    fmt: str,
    args: tuple,
    kwargs: dict,
    *,
    stacklevel: int,
    ordered: bool,
    partitioned: bool,
    skip_format_check: bool,
    _use_logging: bool,
) -> None:
    from spmd._src import tree_util as tu

    if not skip_format_check:
        # Raises what str.format raises (IndexError, KeyError, ValueError) before any work.
        fmt.format(*[_AnyField()] * len(args), **{k: _AnyField() for k in kwargs})
    fields = [f for _, f, _, _ in string.Formatter().parse(fmt) if f is not None]
    leaves, treedef = tu.tree_flatten((args, kwargs))
    static = tuple((i, v) for i, v in enumerate(leaves) if _is_static(v))
    fixed = dict(static)
    dynamic = [v for i, v in enumerate(leaves) if i not in fixed]
    printoptions = tuple(np.get_printoptions().items())
    record = None
    if _use_logging:
        caller = sys._getframe(stacklevel)
        record = _logger.makeRecord(
            _logger.name, logging.INFO, caller.f_code.co_filename, caller.f_lineno, "", (), None,
            func=caller.f_code.co_name,
        )  # fmt: skip

    def run(*vals):
        it = iter(vals)
        full = [fixed[i] if i in fixed else _as_array(next(it)) for i in range(len(leaves))]
        a, kw = tu.tree_unflatten(treedef, full)
        with np.printoptions(**dict(printoptions)):
            text = fmt.format(*a, **kw)
        if record is None:
            # One write per line: the lines of processes sharing a terminal or a pipe (a job
            # under MPI, unbuffered) stay whole.
            sys.stdout.write(text + "\n")
        elif _logger.isEnabledFor(logging.INFO):
            out = copy.copy(record)
            out.msg, out.created = text, time.time()
            _logger.handle(out)

    shown = _cb.Shown(
        [
            ("fmt", fmt),
            ("has_placeholders", bool(fields)),
            ("in_tree", treedef),
            ("logging_record", record),
            ("np_printoptions", printoptions),
            ("ordered", ordered),
            ("partitioned", partitioned),
            ("static_args", static),
        ]
    )
    _cb.debug_callback(run, *dynamic, name="print", shown=shown, primitive="debug_print")


__all__ = [
    "callback",
    "debug_print",
    "log",
    "inspect_array_sharding",
    "sharding_text",
    "visualize_array_sharding",
    "visualize_sharding",
]
