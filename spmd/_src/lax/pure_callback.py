"""``pure_callback``: call a Python function that computes values for a running program.

The function must be pure: a call whose results are unused is dropped (the primitive is not
effectful), and the result types are declared up front (``result_shape_dtypes``). It receives
Arrays and returns values of the declared shapes; a wrong shape, dtype or number of results
raises ``JaxRuntimeError`` when it runs, as JAX's does, and so does an exception the function
raises.

Under vmap the ``vmap_method`` says how: ``sequential`` (and ``sequential_unrolled``) loops
over the batch with a scan, calling the function once per element; ``expand_dims`` calls it
once with the batch axis in front of the batched arguments and a size-1 axis in front of the
others; ``broadcast_all`` broadcasts the others to the batch size; ``legacy_vectorized``
leaves them as they are. Without a method, vmap raises. Differentiation raises (JAX: use
custom_jvp around the callback). Over device axes (pmap, shard_map) the function runs once per
device, sequentially.

>>> spmd.jit(lambda x: spmd.pure_callback(np.sin, spmd.ShapeDtypeStruct((), np.float32), x))(
...     1.0)  # doctest: +SKIP
Array(0.84147096, dtype=float32)
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src import tree_util as tu
from spmd._src.errors import JaxRuntimeError
from spmd._src.interpreters import ad, batching

_logger = logging.getLogger(__name__)
_VMAP_METHODS = ["sequential", "sequential_unrolled", "expand_dims", "broadcast_all"]
_VMAP_METHODS += ["legacy_vectorized", None]


class _FlatCallback:
    """The user's function on flat lists of values (a hashable parameter, equal when it is the
    same function with the same argument structure; printed as JAX prints its own)."""

    __slots__ = ("callback_func", "in_tree")

    def __init__(self, callback_func: Callable, in_tree) -> None:
        self.callback_func, self.in_tree = callback_func, in_tree

    def __call__(self, *flat: Any) -> list[Any]:
        args, kwargs = tu.tree_unflatten(self.in_tree, list(flat))
        return tu.tree_leaves(self.callback_func(*args, **kwargs))

    def __eq__(self, other) -> bool:
        return (
            isinstance(other, _FlatCallback)
            and self.callback_func is other.callback_func
            and self.in_tree == other.in_tree
        )

    def __hash__(self) -> int:
        return hash((id(self.callback_func), self.in_tree))

    def __repr__(self) -> str:
        return f"_FlatCallback(callback_func={self.callback_func!r}, in_tree={self.in_tree})"


def pure_callback(
    callback: Callable[..., Any],
    result_shape_dtypes: Any,
    *args: Any,
    sharding: Any = None,
    vmap_method: str | None = None,
    **kwargs: Any,
) -> Any:
    """``callback(*args, **kwargs)`` computed in Python when the program runs, with results of
    the shapes and dtypes in ``result_shape_dtypes`` (a pytree of objects with ``shape`` and
    ``dtype``, e.g. ShapeDtypeStructs)."""
    if vmap_method not in _VMAP_METHODS:
        raise ValueError(
            f"vmap_method must be on of the allowed methods {_VMAP_METHODS}, but got: {vmap_method}"
        )
    flat_args, in_tree = tu.tree_flatten((args, kwargs))
    res_leaves, res_tree = tu.tree_flatten(result_shape_dtypes)
    result_avals = tuple(
        core.ShapedArray(tuple(r.shape), dtypes.canonicalize_dtype(r.dtype)) for r in res_leaves
    )
    outs = pure_callback_p.bind(
        *flat_args,
        callback=_FlatCallback(callback, in_tree),
        result_avals=result_avals,
        sharding=sharding,
        vmap_method=vmap_method,
    )
    return tu.tree_unflatten(res_tree, outs)


def _impl(*args, callback, result_avals, sharding, vmap_method):
    return run_callback("pure_callback", callback, args, result_avals)


def run_callback(what: str, callback, args, result_avals) -> list[Any]:
    """Call ``callback`` on concrete arrays and check its results against ``result_avals``
    (shared with io_callback; ``what`` names the caller in errors)."""
    vals = [core.make_concrete(np.asarray(a), False) for a in args]
    outs = call_host(what, callback, vals)
    if len(outs) != len(result_avals):
        raise JaxRuntimeError(
            f"{what}: Mismatched number of outputs from callback. Expected: "
            f"{len(result_avals)}, Actual: {len(outs)}"
        )
    results = []
    for i, (o, aval) in enumerate(zip(outs, result_avals)):
        o = np.asarray(o)
        if o.shape != aval.shape:
            raise JaxRuntimeError(
                f"{what}: Incorrect output shape for return value #{i}: Expected: "
                f"{aval.shape}, Actual: {o.shape}"
            )
        # A Python float (float64) is a float32 result when 64-bit types are off, as in JAX.
        if dtypes.canonicalize_dtype(o.dtype) != aval.dtype:
            raise JaxRuntimeError(
                f"{what}: Incorrect output dtype for return value #{i}: Expected: "
                f"{aval.dtype.name}, Actual: {o.dtype.name}"
            )
        results.append(o.astype(aval.dtype, copy=False))
    return results


def call_host(what: str, fn: Callable, args: Sequence[Any]) -> Any:
    """``fn(*args)`` for a running program: an exception it raises is logged and becomes the
    program's ``JaxRuntimeError`` (its text ends with the callback's traceback), as a failing
    host callback stops a JAX program."""
    try:
        return fn(*args)
    except Exception as e:
        _logger.error("spmd.%s failed", what, exc_info=True)
        trace = "".join(traceback.format_exception(e))
        raise JaxRuntimeError(f"INTERNAL: CpuCallback error calling callback: {trace}") from e


def _abstract_eval(*avals, callback, result_avals, sharding, vmap_method):
    return list(result_avals)


def _vmap_rule(axis_data, vals, dims, *, callback, result_avals, sharding, vmap_method):
    from spmd._src.lax.rules import bdim_at_front  # lazy: rules imports the lax layer

    size = axis_data.size
    params = dict(callback=callback, sharding=sharding, vmap_method=vmap_method)
    if axis_data.per_device or vmap_method in ("sequential", "sequential_unrolled"):
        return _sequential(vals, dims, size, result_avals, params), [0] * len(result_avals)
    if vmap_method is None:
        raise NotImplementedError(
            "vmap is only supported for the pure_callback primitive when vmap_method is one of "
            "'sequential', 'sequential_unrolled', 'expand_dims', 'broadcast_all', or "
            "'legacy_vectorized'. Got vmap_method=None."
        )
    from spmd._src.lax.shape import expand_dims  # lazy: as above

    moved = []
    for v, d in zip(vals, dims):
        if d is not None or vmap_method == "broadcast_all":
            moved.append(bdim_at_front(v, d, size))
        elif vmap_method == "expand_dims":
            moved.append(expand_dims(v, (0,)))
        else:  # legacy_vectorized: unbatched arguments as they are
            moved.append(v)
    avals = tuple(a.update(shape=(size, *a.shape)) for a in result_avals)
    outs = pure_callback_p.bind(*moved, result_avals=avals, **params)
    return outs, [0] * len(outs)


def _sequential(vals, dims, size, result_avals, params, prim=None):
    """One call per batch element, in a scan over the batched arguments (the others are
    constants of its body); ``prim`` is pure_callback's unless given (io_callback's)."""
    from spmd._src.lax.control_flow.scan import scan  # lazy: control flow imports this layer
    from spmd._src.lax.rules import bdim_at_front

    prim = pure_callback_p if prim is None else prim
    batched = [bdim_at_front(v, d, size) for v, d in zip(vals, dims) if d is not None]

    def body(carry, xs):
        it = iter(xs)
        ins = [next(it) if d is not None else v for v, d in zip(vals, dims)]
        return carry, prim.bind(*ins, result_avals=result_avals, **params)

    unroll = params.get("vmap_method") == "sequential_unrolled"
    _, ys = scan(body, (), batched, length=size, unroll=unroll or 1)
    return list(ys)


def _joint_jvp(primals, tangents, **params):
    raise ValueError(
        "Pure callbacks do not support JVP. Please use `jax.custom_jvp` to use callbacks while "
        "taking gradients."
    )


pure_callback_p = core.Primitive("pure_callback", multiple_results=True)
pure_callback_p.def_impl(_impl)
pure_callback_p.def_abstract_eval(_abstract_eval)
batching.primitive_batchers[pure_callback_p] = _vmap_rule
ad.primitive_joint_jvps[pure_callback_p] = _joint_jvp

__all__ = ["pure_callback"]
