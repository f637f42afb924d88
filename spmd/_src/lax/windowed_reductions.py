"""Reductions over sliding windows: ``reduce_window`` and its primitives ``reduce_window_sum``,
``reduce_window_max``, ``reduce_window_min`` (pooling), and ``reduce_window`` for any other
computation.

A window is ``window_dimensions`` elements of the operand, spread ``window_dilation`` apart; the
operand is first dilated (``base_dilation - 1`` init values between neighbours) and padded
with the init value; windows start every ``window_strides`` elements.

>>> from spmd import lax
>>> lax.reduce_window(jnp.arange(5.0), 0.0, lax.add, (2,), (1,), "VALID")
Array([1., 3., 5., 7.], dtype=float32)
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes, tree_util
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.lax import padding as lax_padding
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.convolution import padtype_to_pads
from spmd._src.lax.elementwise import arithmetic, bitwise, selection
from spmd._src.lax.elementwise.common import _const
from spmd._src.lax.rules import deflinear
from spmd._src.lax.utils import any_dtype, check_dtype_kind, numeric

# ---------------------------------------------------------------------------------------------
# Shapes and parameters


def _dilate(n: int, d: int) -> int:
    return 0 if n == 0 else 1 + d * (n - 1)


def _out_shape(shape, window_dimensions, window_strides, padding, base_dilation, window_dilation):
    out = []
    for n, k, s, (lo, hi), bd, wd in zip(
        shape, window_dimensions, window_strides, padding, base_dilation, window_dilation
    ):
        size, win = _dilate(n, bd) + lo + hi, _dilate(k, wd)
        out.append(0 if size < win else (size - win) // s + 1)
    return tuple(out)


def _check_params(
    name, shape, window_dimensions, window_strides, padding, base_dilation, window_dilation
):
    nd = len(shape)
    if len(window_dimensions) != nd:
        raise TypeError(
            f"{name} got the wrong number of window_dimensions for operand: got operand shape "
            f"{tuple(shape)} with window_dimensions {tuple(window_dimensions)}."
        )
    for what, v in (
        ("window_strides", window_strides),
        ("base_dilation", base_dilation),
        ("window_dilation", window_dilation),
    ):
        if len(v) != nd:
            raise TypeError(
                f"{name} got inconsistent {what} and window_dimensions: got {what} {tuple(v)} "
                f"and window_dimensions {tuple(window_dimensions)}."
            )
    if len(padding) != nd:
        raise ValueError(
            f"{name} got the wrong number of padding pairs: got {len(padding)} for operand "
            f"shape {tuple(shape)} with window_dimensions {tuple(window_dimensions)}."
        )
    for what, v in (
        ("window_dimensions", window_dimensions),
        ("window_strides", window_strides),
        ("base_dilation", base_dilation),
        ("window_dilation", window_dilation),
    ):
        if any(d < 1 for d in v):
            raise TypeError(
                f"{name} {what} must have every element be strictly positive, got {tuple(v)}."
            )
    for n, (lo, hi), bd in zip(shape, padding, base_dilation):
        if _dilate(n, bd) + lo + hi < 0:
            raise TypeError(
                f"{name}: padding {tuple(padding)} makes a dimension of size {n} (base dilation "
                f"{bd}) negative for an operand of shape {tuple(shape)}."
            )


def _ints(name: str, what: str, xs) -> tuple[int, ...]:
    try:
        return tuple(operator.index(x) for x in xs)
    except TypeError:
        raise TypeError(f"{name}: {what} must be a sequence of integers, got {xs!r}.") from None


def _window_params(
    name, operand_shape, window_dimensions, window_strides, padding, base_dilation, window_dilation
) -> dict:
    """The primitives' parameters: ints, explicit (low, high) pads, dilations filled in."""
    nd = len(operand_shape)
    window_dimensions = _ints(name, "window_dimensions", window_dimensions)
    window_strides = _ints(name, "window_strides", window_strides)
    base_dilation = (
        (1,) * nd if base_dilation is None else _ints(name, "base_dilation", base_dilation)
    )
    window_dilation = (
        (1,) * nd if window_dilation is None else _ints(name, "window_dilation", window_dilation)
    )
    if isinstance(padding, str):
        _check_params(
            name,
            operand_shape,
            window_dimensions,
            window_strides,
            ((0, 0),) * nd,
            base_dilation,
            window_dilation,
        )
        # 'SAME' keeps ceil(n / stride) windows of the dilated operand and the dilated window.
        padding = padtype_to_pads(
            [_dilate(n, d) for n, d in zip(operand_shape, base_dilation)],
            [_dilate(k, d) for k, d in zip(window_dimensions, window_dilation)],
            window_strides,
            padding,
        )
    try:
        padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name}: padding must be 'SAME', 'VALID' or a sequence of (low, high) integer "
            f"pairs, got {padding!r}."
        ) from None
    params = dict(
        window_dimensions=window_dimensions,
        window_strides=window_strides,
        padding=padding,
        base_dilation=base_dilation,
        window_dilation=window_dilation,
    )
    _check_params(name, operand_shape, **params)
    return params


def _identity(kind: str, dtype: np.dtype):
    """The init value a monoid's padding and holes take."""
    dtype = np.dtype(dtype)
    if kind == "sum":
        return np.zeros((), dtype)
    big = kind == "min"
    if dtype == np.bool_:
        return np.array(big)
    if dtypes.issubdtype(dtype, np.integer):
        info = dtypes.iinfo(dtype)
        return np.array(info.max if big else info.min, dtype)
    return np.array(np.inf if big else -np.inf, dtype)


def _windows(
    x: np.ndarray,
    init,
    *,
    window_dimensions,
    window_strides,
    padding,
    base_dilation,
    window_dilation,
) -> np.ndarray:
    """A strided view (out shape..., window shape...) of the dilated, padded ``x``."""
    nd = x.ndim
    if any(d > 1 for d in base_dilation):
        full = np.full(tuple(_dilate(n, d) for n, d in zip(x.shape, base_dilation)), init, x.dtype)
        full[tuple(slice(None, None, d) for d in base_dilation)] = x
        x = full
    pos = [(max(lo, 0), max(hi, 0)) for lo, hi in padding]
    if any(p != (0, 0) for p in pos):
        x = np.pad(x, pos, constant_values=init)
    x = x[tuple(slice(max(-lo, 0), x.shape[i] - max(-hi, 0)) for i, (lo, hi) in enumerate(padding))]
    out = _out_shape(
        x.shape, window_dimensions, window_strides, ((0, 0),) * nd, (1,) * nd, window_dilation
    )
    win = tuple(_dilate(k, d) for k, d in zip(window_dimensions, window_dilation))
    if 0 in out:
        return np.zeros(out + tuple(window_dimensions), x.dtype)
    views = np.lib.stride_tricks.sliding_window_view(x, win)
    return views[
        tuple(slice(None, s * (m - 1) + 1, s) for s, m in zip(window_strides, out))
        + tuple(slice(None, None, d) for d in window_dilation)
    ]


def _monoid_impl(kind: str, ufunc: np.ufunc):
    def impl(x, **params):
        x = np.asarray(x)
        init = _identity(kind, x.dtype)
        views = _windows(x, init, **params)
        axes = tuple(range(x.ndim, 2 * x.ndim))
        with np.errstate(all="ignore"):
            if views.size == 0:
                return np.full(views.shape[: x.ndim], init, x.dtype)
            return np.ascontiguousarray(ufunc.reduce(views, axis=axes, dtype=x.dtype))

    return impl


def _monoid_abstract_eval(name: str, accepted: frozenset):
    def rule(x, **params):
        check_dtype_kind(name, accepted, x)
        _check_params(name, x.shape, **params)
        return ShapedArray(_out_shape(x.shape, **params), x.dtype, x.weak_type)

    return rule


def _monoid_vmap(prim: core.Primitive):
    """The batch dimension gets a window of one element, stride one, no padding."""

    def rule(axis_data, vals, dims, **params):
        (x,), (d,) = vals, dims
        new = {k: list(v) for k, v in params.items()}
        for k, one in (
            ("window_dimensions", 1),
            ("window_strides", 1),
            ("padding", (0, 0)),
            ("base_dilation", 1),
            ("window_dilation", 1),
        ):
            new[k].insert(d, one)
        return prim.bind(x, **{k: tuple(v) for k, v in new.items()}), d

    return rule


def _monoid_sharding(specs, avals, **params):
    # A dimension keeps its sharding only where every window is the element itself.
    (spec,), (aval,) = specs, avals
    spec = spec or (None,) * aval.ndim
    trivial = zip(
        params["window_dimensions"],
        params["window_strides"],
        params["padding"],
        params["base_dilation"],
        params["window_dilation"],
    )
    return tuple(
        s if (k, st, p, bd, wd) == (1, 1, (0, 0), 1, 1) else None
        for s, (k, st, p, bd, wd) in zip(spec, trivial)
    )


def _monoid_primitive(kind: str, ufunc: np.ufunc, accepted: frozenset) -> core.Primitive:
    name = f"reduce_window_{kind}"
    prim = core.Primitive(name)
    prim.def_impl(_monoid_impl(kind, ufunc))
    prim.def_abstract_eval(_monoid_abstract_eval(name, accepted))
    batching.primitive_batchers[prim] = _monoid_vmap(prim)
    sharding_rules.sharding_rules[prim] = _monoid_sharding
    return prim


def reduce_window_shape_tuple(
    operand_shape,
    window_dimensions,
    window_strides,
    padding,
    base_dilation=None,
    window_dilation=None,
) -> tuple[int, ...]:
    """The shape of a windowed reduction's result (explicit (low, high) padding). A negative
    size (stax's -1 for "any batch") gives 0, as JAX's arithmetic does."""
    operand_shape = tuple(max(int(d), 0) for d in operand_shape)
    params = _window_params(
        "reduce_window_shape_tuple",
        operand_shape,
        window_dimensions,
        window_strides,
        padding,
        base_dilation,
        window_dilation,
    )
    return _out_shape(operand_shape, **params)


def _bind_window(prim, operand, window_dimensions, window_strides, padding, base_dilation,
                 window_dilation):  # fmt: skip
    """``prim`` bound on ``operand`` with the window parameters checked and canonicalized."""
    params = _window_params(
        "reduce_window", np.shape(operand), window_dimensions, window_strides, padding,
        base_dilation, window_dilation,
    )  # fmt: skip
    return prim.bind(operand, **params)


# ---------------------------------------------------------------------------------------------
# reduce_window_sum


def reduce_window_sum(
    operand, window_dimensions, window_strides, padding, base_dilation=None, window_dilation=None
):
    """Sum over each window (zero padding).

    >>> reduce_window_sum(jnp.arange(4.0), (2,), (2,), "VALID")
    Array([1., 5.], dtype=float32)
    """
    return _bind_window(
        reduce_window_sum_p, operand, window_dimensions, window_strides, padding, base_dilation,
        window_dilation,
    )  # fmt: skip


reduce_window_sum_p = _monoid_primitive("sum", np.add, numeric)


def _reduce_window_sum_transpose(
    ct, x, *, window_dimensions, window_strides, padding, base_dilation, window_dilation
):
    # Operand element i sits at p = i * base_dilation + low pad; output o's window covers
    # p = o * stride + k * window_dilation. So the cotangent of i sums ct[o] over those (o, k):
    # ct spread out by the stride (interior zeros), padded so that window k' = K - 1 - k of a
    # window sum with stride base_dilation lands on it (the window is all ones: its flip is
    # itself), and read at every operand element.
    in_shape = x.aval.shape
    cfg = []
    for n, m, k, s, (lo, _), bd, wd in zip(
        in_shape,
        ct.shape,
        window_dimensions,
        window_strides,
        padding,
        base_dilation,
        window_dilation,
    ):
        new_lo = (k - 1) * wd - lo
        need = _dilate(n, bd) + (k - 1) * wd if n else 0
        new_hi = need - new_lo - _dilate(m, s)
        cfg.append((new_lo, new_hi, s - 1))
    nd = len(in_shape)
    if 0 in in_shape:
        return [lax_shape.full(in_shape, 0, ct.dtype)]
    padded = lax_padding.pad(ct, _const(ct, 0), cfg)
    out = reduce_window_sum_p.bind(
        padded,
        window_dimensions=window_dimensions,
        window_strides=base_dilation,
        padding=((0, 0),) * nd,
        base_dilation=(1,) * nd,
        window_dilation=window_dilation,
    )
    return [out]


deflinear(reduce_window_sum_p, _reduce_window_sum_transpose)


# ---------------------------------------------------------------------------------------------
# reduce_window_max and reduce_window_min


def reduce_window_max(
    operand, window_dimensions, window_strides, padding, base_dilation=None, window_dilation=None
):
    """Maximum over each window (padding and dilation holes are -inf, or the dtype's min)."""
    return _bind_window(
        reduce_window_max_p, operand, window_dimensions, window_strides, padding, base_dilation,
        window_dilation,
    )  # fmt: skip


def reduce_window_min(
    operand, window_dimensions, window_strides, padding, base_dilation=None, window_dilation=None
):
    """Minimum over each window (padding and dilation holes are inf, or the dtype's max)."""
    return _bind_window(
        reduce_window_min_p, operand, window_dimensions, window_strides, padding, base_dilation,
        window_dilation,
    )  # fmt: skip


reduce_window_max_p = _monoid_primitive("max", np.maximum, any_dtype)
reduce_window_min_p = _monoid_primitive("min", np.minimum, any_dtype)


def _window_slices(
    x, init, *, window_dimensions, window_strides, padding, base_dilation, window_dilation
) -> list:
    """For each window offset, in row-major order, the output-shaped strided slice of the
    dilated, padded ``x`` (lax operations: differentiable and batchable)."""
    cfg = [(lo, hi, bd - 1) for (lo, hi), bd in zip(padding, base_dilation)]
    if any(c != (0, 0, 0) for c in cfg):
        x = lax_padding.pad(x, init, cfg)
    out = _out_shape(
        x.shape,
        window_dimensions,
        window_strides,
        ((0, 0),) * x.ndim,
        (1,) * x.ndim,
        window_dilation,
    )
    slices = []
    for offset in itertools.product(*(range(k) for k in window_dimensions)):
        start = tuple(o * d for o, d in zip(offset, window_dilation))
        limit = tuple(
            b + (m - 1) * s + 1 if m else b for b, m, s in zip(start, out, window_strides)
        )
        slices.append(lax_shape.slice(x, start, limit, window_strides))
    return slices


def _chooser_jvp(kind: str):
    # XLA's select_and_gather_add (JAX's rule) walks each window in row-major order and moves
    # to the next element unless the one it holds is >= it (<= for min): the first extremum
    # wins, and a NaN is taken and then left for the next element. The same walk over the
    # window's strided slices gives the same tangent (padding carries a zero tangent).
    keep_op = bitwise.ge if kind == "max" else bitwise.le

    def rule(primals, tangents, primal_out, **params):
        (x,), (t,) = primals, tangents
        t = ad.instantiate(t)
        xs = _window_slices(x, _const(x, _identity(kind, x.dtype)), **params)
        ts = _window_slices(t, _const(t, 0), **params)
        val, tan = xs[0], ts[0]
        for xk, tk in zip(xs[1:], ts[1:]):
            keep = keep_op(val, xk)
            val = selection.select(keep, val, xk)
            tan = selection.select(keep, tan, tk)
        return tan

    return rule


ad.primitive_jvps[reduce_window_max_p] = _chooser_jvp("max")
ad.primitive_jvps[reduce_window_min_p] = _chooser_jvp("min")


# ---------------------------------------------------------------------------------------------
# reduce_window: the monoids JAX recognises go to their primitives


def _is_identity(init, kind: str) -> bool:
    """Whether ``init`` is a known scalar equal to the monoid's identity in its own dtype (as
    JAX tests it: a traced init value makes the generic reduction)."""
    if isinstance(init, core.Tracer) or np.ndim(init) != 0:
        return False
    dt = dtypes.dtype(init, canonicalize=True)
    return bool(np.asarray(init).astype(dt) == _identity(kind, dt))


def reduce_window(
    operand,
    init_value,
    computation: Callable,
    window_dimensions: Sequence[int],
    window_strides: Sequence[int],
    padding: Any,
    base_dilation=None,
    window_dilation=None,
):
    """Reduce each window of ``operand`` with ``computation`` (a binary function of scalars)
    starting from ``init_value``. ``operand`` and ``init_value`` may be pytrees of one
    structure (``computation`` then combines such pytrees). Padding and dilation holes are not
    folded in (as XLA's CPU kernel skips them; for a monoid that is folding in its identity).

    ``padding`` is ``'SAME'``, ``'VALID'`` or one (low, high) pair per dimension. ``lax.add``
    with 0, ``lax.max`` with -inf (the dtype's min) and ``lax.min`` with inf (its max) become
    ``reduce_window_sum``/``_max``/``_min``.

    >>> lax.reduce_window(jnp.arange(6.0).reshape(2, 3), -jnp.inf, lax.max, (2, 2), (1, 1),
    ...                   "VALID")
    Array([[4., 5.]], dtype=float32)
    """
    monoids = {
        arithmetic.add: ("sum", reduce_window_sum),
        arithmetic.max: ("max", reduce_window_max),
        arithmetic.min: ("min", reduce_window_min),
    }
    single = tree_util.treedef_is_leaf(tree_util.tree_structure(operand))
    hit = monoids.get(computation) if single else None
    if hit is not None:
        kind, fn = hit
        if _is_identity(init_value, kind):
            return fn(
                operand, window_dimensions, window_strides, padding, base_dilation, window_dilation
            )
    return _generic_reduce_window(
        operand,
        init_value,
        computation,
        window_dimensions,
        window_strides,
        padding,
        base_dilation,
        window_dilation,
    )


def _generic_reduce_window(*args):
    from spmd._src.lax.generic_reductions import generic_reduce_window

    return generic_reduce_window(*args)


__all__ = [
    "reduce_window",
    "reduce_window_max_p",
    "reduce_window_min_p",
    "reduce_window_shape_tuple",
    "reduce_window_sum_p",
]
