"""Applying Python functions over arrays: ``jnp.vectorize`` (with NumPy's generalized-ufunc
signatures), ``apply_along_axis``, ``apply_over_axes``, ``piecewise`` and ``fromfunction``.

Each traces the user's function on the core (unbatched) shapes and lets ``vmap`` add the loop
axes, as JAX does: the function sees scalars (or core-shaped arrays), and the result works under
``jit``, ``grad`` and ``vmap`` whenever the function does.

>>> jnp.vectorize(lambda a, b: a @ b, signature="(n),(n)->()")(jnp.ones((2, 3)), jnp.ones(3))
Array([3., 3.], dtype=float32)
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from spmd._src import tree_util
from spmd._src.lax import elementwise as lax
from spmd._src.numpy.array_constructors import asarray
from spmd._src.numpy.creation import arange
from spmd._src.numpy.shape_ops import broadcast_shapes, broadcast_to, expand_dims, reshape
from spmd._src.numpy.util import (
    _axis,
    _canonical_shape,
    _dtype_arg,
    _full,
    check_arraylike,
    convert,
)
from spmd._src.vmap import vmap

# ---------------------------------------------------------------------------------------------
# vectorize

_DIM = r"\w+"
_CORE = rf"\((?:{_DIM}(?:,{_DIM})*)?\)"
_CORES = rf"{_CORE}(?:,{_CORE})*"
_SIGNATURE = re.compile(rf"^{_CORES}->{_CORES}$")


def _parse_signature(signature: str) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """Core dimension names of each input and output of a signature like ``(m,n),(n)->(m)``."""
    if not isinstance(signature, str):
        raise TypeError(f"vectorize: signature must be a string, got {signature!r}")
    sig = re.sub(r"\s+", "", signature)
    if not _SIGNATURE.match(sig):
        raise ValueError(f"vectorize: not a valid gufunc signature: {signature!r}")
    ins, outs = sig.split("->")

    def groups(s: str) -> list[tuple[str, ...]]:
        return [tuple(re.findall(_DIM, g)) for g in re.findall(_CORE, s)]

    return groups(ins), groups(outs)


def _record_size(sizes: dict, name: str, size: int, where: str) -> None:
    prev = sizes.setdefault(name, size)
    if prev != size:
        raise ValueError(
            f"inconsistent size for core dimension {name!r}: {size} here, {prev} earlier{where}"
        )


def vectorize(pyfunc: Callable, *, excluded: Any = frozenset(), signature: str | None = None):
    """``pyfunc`` turned into a function that broadcasts over leading (loop) axes, by ``vmap``.

    Without ``signature``, ``pyfunc`` is called on scalars; with a generalized-ufunc signature
    such as ``"(m,n),(n)->(m)"`` it is called on arrays of the core shapes and the remaining
    leading axes broadcast. Positions (ints) or keyword names (strs) in ``excluded`` are passed
    through unchanged.

    >>> jnp.vectorize(lambda x, y: x * y + 1)(jnp.arange(3), jnp.arange(2)[:, None])
    Array([[1, 1, 1],
           [1, 2, 3]], dtype=int32)
    """
    excluded = frozenset(excluded)
    if any(not isinstance(e, (int, str)) for e in excluded):
        raise TypeError(
            "jnp.vectorize can only exclude integer or string arguments, but "
            f"excluded={set(excluded)}"
        )
    if any(isinstance(e, int) and e < 0 for e in excluded):
        raise ValueError(f"jnp.vectorize: excluded={set(excluded)} contains negative numbers")
    parsed = None if signature is None else _parse_signature(signature)

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        return _vectorized_call(pyfunc, excluded, signature, parsed, args, kwargs)

    return wrapped


def _vectorized_call(pyfunc, excluded, signature, parsed, args, kwargs):
    name = getattr(pyfunc, "__name__", type(pyfunc).__name__)
    where = f" (in the jnp.vectorize of {name} with signature={signature!r})"
    dyn_pos = [i for i in range(len(args)) if i not in excluded]
    static_kw = {k: v for k, v in kwargs.items() if k in excluded}
    dyn_kw = [k for k in kwargs if k not in excluded]
    if dyn_kw and parsed is not None:
        raise TypeError(
            f"keyword argument(s) {dyn_kw} of a vectorized function with a signature must be "
            f"listed in excluded{where}"
        )
    # Keyword arguments not excluded broadcast like the positional ones (as in NumPy).
    dyn = [asarray(args[i]) for i in dyn_pos] + [asarray(kwargs[k]) for k in dyn_kw]
    n_pos = len(dyn_pos)

    def call(*vals):
        full = list(args)
        for i, v in zip(dyn_pos, vals[:n_pos]):
            full[i] = v
        return pyfunc(*full, **static_kw, **dict(zip(dyn_kw, vals[n_pos:])))

    if parsed is None:
        in_core: list[tuple[str, ...]] = [()] * len(dyn)
        out_core = None
    else:
        in_core, out_core = parsed
        if len(in_core) != len(dyn):
            raise TypeError(
                f"wrong number of positional arguments: expected {len(in_core)}, got "
                f"{len(dyn)}{where}"
            )
    sizes: dict[str, int] = {}
    loop_shapes = []
    for a, core in zip(dyn, in_core):
        if a.ndim < len(core):
            raise ValueError(
                f"input with shape {tuple(a.shape)} does not have enough dimensions for all core "
                f"dimensions {core}{where}"
            )
        k = a.ndim - len(core)
        for dim_name, d in zip(core, a.shape[k:]):
            _record_size(sizes, dim_name, d, where)
        loop_shapes.append(tuple(a.shape[:k]))
    loop = broadcast_shapes(*loop_shapes)

    def core_fn(*vals):
        out = call(*vals)
        if out_core is None:
            return out
        if len(out_core) == 1:
            outs = (out,)
        elif not isinstance(out, tuple):
            raise TypeError(
                f"output must be a tuple when multiple outputs are expected, got: {out!r}{where}"
            )
        elif len(out) != len(out_core):
            raise TypeError(
                f"wrong number of output arguments: expected {len(out_core)}, got {len(out)}{where}"
            )
        else:
            outs = out
        checked = []
        for o, core in zip(outs, out_core):
            o = asarray(o)
            if o.ndim != len(core):
                raise ValueError(
                    f"output shape {tuple(o.shape)} does not match core dimensions {core}{where}"
                )
            for dim_name, d in zip(core, o.shape):
                _record_size(sizes, dim_name, d, where)
            checked.append(o)
        return checked[0] if len(out_core) == 1 else tuple(checked)

    # Loop axes of size 1 need no vmap: they are dropped from the operands and put back on the
    # results. An operand that is size 1 along a longer loop axis is passed unmapped (None)
    # there, so it is never materialized at the broadcast size.
    nloop = len(loop)
    big = [k for k in range(nloop) if loop[k] != 1]
    operands, mapped = [], []
    for a, ls in zip(dyn, loop_shapes):
        padded = (1,) * (nloop - len(ls)) + ls
        keep = [k for k in big if padded[k] != 1]
        shape = tuple(padded[k] for k in keep) + tuple(a.shape[len(ls) :])
        operands.append(a if shape == tuple(a.shape) else reshape(a, shape))
        mapped.append(set(keep))
    f = core_fn
    for k in reversed(big):
        f = vmap(f, in_axes=tuple(0 if k in m else None for m in mapped))
    out = f(*operands)
    if len(big) != nloop:
        out = tree_util.tree_map(lambda o: reshape(o, loop + tuple(o.shape[len(big) :])), out)
    return out


# ---------------------------------------------------------------------------------------------
# apply_along_axis, apply_over_axes


def apply_along_axis(func1d: Callable, axis: int, arr: Any, *args: Any, **kwargs: Any) -> Any:
    """``func1d(v, *args, **kwargs)`` on each 1-D slice ``v`` of ``arr`` along ``axis``; the
    result's axes from ``func1d`` take the place of ``axis``.

    >>> jnp.apply_along_axis(jnp.sum, 1, jnp.arange(6).reshape(2, 3))
    Array([ 3, 12], dtype=int32)
    """
    check_arraylike("apply_along_axis", arr)
    a = asarray(arr)
    axis = _axis(axis, a.ndim, "apply_along_axis")

    def f(v):
        return func1d(v, *args, **kwargs)

    for _ in range(a.ndim - axis - 1):
        f = vmap(f, in_axes=-1, out_axes=-1)
    for _ in range(axis):
        f = vmap(f, in_axes=0, out_axes=0)
    return f(a)


def apply_over_axes(func: Callable, a: Any, axes: Sequence[int]) -> Any:
    """``func(a, axis)`` applied for each axis of ``axes`` in turn, each result feeding the next;
    a result with one dimension fewer gets the axis back (size 1), so ``a.ndim`` is kept.

    >>> jnp.apply_over_axes(jnp.sum, jnp.arange(6).reshape(2, 3), [0, 1])
    Array([[15]], dtype=int32)
    """
    check_arraylike("apply_over_axes", a)
    x = asarray(a)
    try:
        axes = list(axes)
    except TypeError:
        raise TypeError(
            f"apply_over_axes: axes must be a sequence of ints, got {axes!r}; pass [{axes!r}] "
            "for a single axis"
        ) from None
    for axis in axes:
        b = asarray(func(x, axis))
        if b.ndim == x.ndim:
            x = b
        elif b.ndim == x.ndim - 1:
            x = expand_dims(b, axis)
        else:
            raise ValueError(
                f"apply_over_axes: function is not returning an array of the correct shape: "
                f"func(a, {axis}) with a of shape {tuple(x.shape)} returned shape "
                f"{tuple(b.shape)}; expected {x.ndim} or {x.ndim - 1} dimensions"
            )
    return x


# ---------------------------------------------------------------------------------------------
# piecewise


def piecewise(x: Any, condlist: Any, funclist: Any, *args: Any, **kw: Any) -> Any:
    """``funclist[i]`` evaluated where ``condlist[i]`` holds (a later condition wins over an
    earlier one); an extra last entry of ``funclist`` is the default elsewhere (else 0).

    Functions are called on each element (a scalar), as with ``vmap``; non-callable entries are
    constants. Results are cast to ``x``'s dtype.

    >>> x = jnp.array([-2.0, 0.5, 3.0])
    >>> jnp.piecewise(x, [x < 0, x > 1], [lambda v: -v, lambda v: v * 10, 7.0])
    Array([ 2.,  7., 30.], dtype=float32)
    """
    check_arraylike("piecewise", x)
    xa = asarray(x)
    try:
        nc = len(condlist)
    except TypeError:
        raise TypeError(
            "piecewise: condlist must be a sequence of boolean arrays (one per function), got "
            f"{type(condlist).__name__} {condlist!r}"
        ) from None
    funcs = list(funclist)
    nf = len(funcs)
    if nf == nc + 1:
        default = funcs.pop()
    elif nf == nc:
        default = 0
    else:
        raise ValueError(
            f"piecewise: with {nc} condition(s), either {nc} or {nc + 1} functions are expected; "
            f"got {nf}"
        )
    shape, dt = tuple(xa.shape), xa.dtype
    index = None
    for k in range(nc):
        c = asarray(condlist[k])
        c = convert(c, np.bool_) if c.dtype != np.bool_ else c
        if tuple(c.shape) != shape:
            try:
                c = broadcast_to(c, shape)
            except ValueError:
                raise ValueError(
                    f"piecewise: condlist[{k}] of shape {tuple(c.shape)} does not broadcast to "
                    f"the shape of x, {shape}"
                ) from None
        # Branch 0 is the default; condition k selects branch k + 1.
        prev = _full(shape, 0, np.int32) if index is None else index
        index = lax.select_n(c, prev, _full(shape, k + 1, np.int32))
    flat = reshape(xa, (xa.size,))
    branches = []
    for k, f in enumerate([default, *funcs]):
        label = "default" if k == 0 else f"funclist[{k - 1}]"
        if callable(f):
            out = asarray(vmap(lambda v, f=f: f(v, *args, **kw))(flat))
            if tuple(out.shape) != (xa.size,):
                raise ValueError(
                    f"piecewise: {label} must return a scalar for each element of x, got results "
                    f"of shape {tuple(out.shape[1:])}"
                )
            out = reshape(out, shape)
        else:
            out = asarray(f)
            if out.ndim:
                raise ValueError(
                    f"piecewise: {label} is neither callable nor a scalar (shape "
                    f"{tuple(out.shape)})"
                )
            out = broadcast_to(out, shape)
        branches.append(convert(out, dt))
    if index is None:
        return branches[0]
    return lax.select_n(index, *branches)


# ---------------------------------------------------------------------------------------------
# fromfunction


def fromfunction(function: Callable, shape: Any, *, dtype: Any = float, **kwargs: Any) -> Any:
    """``function(i, j, ...)`` over the index grid of ``shape``: the function is called on
    scalar indices of ``dtype`` (by nested ``vmap``); ``kwargs`` are passed through.

    >>> jnp.fromfunction(lambda i, j: i + 2 * j, (2, 3), dtype=int)
    Array([[0, 2, 4],
           [1, 3, 5]], dtype=int32)
    """
    if not callable(function):
        raise TypeError(f"fromfunction: function must be callable, got {function!r}")
    dims = _canonical_shape(shape, "fromfunction")
    if any(d < 0 for d in dims):
        raise ValueError(f"fromfunction: shape must be non-negative, got {dims}")
    dt = _dtype_arg(dtype, "fromfunction")
    n = len(dims)

    def f(*idx):
        return function(*idx, **kwargs)

    for i in reversed(range(n)):
        f = vmap(f, in_axes=tuple(0 if j == i else None for j in range(n)))
    return f(*[arange(d, dtype=dt) for d in dims])


__all__ = [
    "apply_along_axis",
    "apply_over_axes",
    "fromfunction",
    "piecewise",
    "vectorize",
]
