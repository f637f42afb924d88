"""The rest of NumPy's API on spmd arrays: constants and dtype utilities, inspecting values,
triangles, diagonals and traces of matrices, ``jnp.where``/``select``/``nonzero``, selecting
along an axis (``compress``, ``extract``, ``choose``, ``diff``), index conversion, and whole-array
comparisons (``isclose``, ``allclose``, ``array_equal``).

Each function checks its arguments first (raising the error class JAX raises, with a message that
names the function and the offending shape or axis), promotes dtypes by JAX's rules (weak types
included), then calls lax wrappers, so a traced program holds the primitives JAX's would. Where
JAX 0.10 wraps a function in an inner ``jit`` (``jnp.where`` is ``jit[name=_where]``), this module
does too, so printed jaxprs read the same.

>>> jnp.where(jnp.array([True, False]), jnp.array([1, 2]), jnp.array([3, 4]))
Array([1, 4], dtype=int32)
"""

from __future__ import annotations

import builtins
import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from spmd._src import dtypes, key_arrays
from spmd._src.array import Array
from spmd._src.core import Tracer
from spmd._src.errors import ConcretizationTypeError
from spmd._src.key_arrays import over_key_data
from spmd._src.lax import copies as lax_copies
from spmd._src.lax import elementwise as lax
from spmd._src.lax import padding as lax_padding
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.numpy import ufuncs
from spmd._src.numpy.array_constructors import asarray  # spmd._src.random reads it here too
from spmd._src.numpy.creation import (
    _offset_mask,
    arange,  # noqa: F401  (alias: spmd._src.random reads jnp.arange from this module)
    zeros,  # spmd._src.random reads jnp.zeros from this module too
)
from spmd._src.numpy.rearranging import _take_static
from spmd._src.numpy.shape_ops import (
    atleast_1d,
    broadcast_shapes,
    broadcast_to,
    concatenate,
    moveaxis,  # noqa: F401  (alias: spmd._src.random reads jnp.moveaxis from this module)
    ravel,
)
from spmd._src.numpy.util import (
    _as_dtype,
    _axis,
    _bool,
    _canonical_shape,
    _concrete_int,
    _dtype_arg,
    _full,
    _int32,
    _named_jit,
    _ndim_of,
    _scalar,
    _shape_of,
    _value_dtype,
    check_arraylike,
    convert,
    promote_dtypes,
    promote_dtypes_inexact,
    to_array,
)
from spmd._src.util import prod

# ---------------------------------------------------------------------------------------------
# Constants and dtype utilities (re-exported as jnp.*)

pi = np.pi
e = np.e
euler_gamma = np.euler_gamma
inf = np.inf
nan = np.nan
newaxis = None

dtype = np.dtype
iinfo = dtypes.iinfo
finfo = dtypes.finfo
issubdtype = dtypes.issubdtype
isdtype = dtypes.isdtype
promote_types = dtypes.promote_types


def result_type(*args: Any) -> np.dtype:
    """The dtype JAX's promotion rules give for ``args`` (arrays, scalars or dtypes).

    >>> jnp.result_type(jnp.int8, 1.0)
    dtype('float32')
    """
    return dtypes.result_type(*args)


def can_cast(from_: Any, to: Any, casting: str = "safe") -> bool:
    """Whether NumPy's ``casting`` rule allows a cast from ``from_`` to ``to``."""
    return bool(np.can_cast(_as_dtype(from_), _as_dtype(to), casting=casting))


# ---------------------------------------------------------------------------------------------
# Inspecting values


def shape(a: Any) -> tuple[int, ...]:
    """The shape of an array or array-like (``jnp.shape(1.0) == ()``)."""
    return _shape_of(a)


def ndim(a: Any) -> int:
    """The number of dimensions of an array or array-like."""
    return _ndim_of(a)


def size(a: Any, axis: int | None = None) -> int:
    """The number of elements of ``a`` (along ``axis`` when given)."""
    s = _shape_of(a)
    if axis is None:
        return prod(s)
    return s[_axis(axis, len(s), "size")]


def isscalar(element: Any) -> bool:
    """True for scalars and 0-d arrays (not for lists), as ``jnp.isscalar``."""
    if hasattr(element, "__jax_array__"):
        element = element.__jax_array__()
    if dtypes.is_python_scalar(element) or isinstance(element, np.generic):
        return True
    if isinstance(element, (np.ndarray, Array, Tracer)):
        return element.ndim == 0
    return False


def iscomplexobj(x: Any) -> bool:
    """True if ``x`` has a complex dtype."""
    if x is None:
        return False
    return dtypes.issubdtype(_value_dtype(x), np.complexfloating)


def isrealobj(x: Any) -> bool:
    """True unless ``x`` has a complex dtype."""
    return not iscomplexobj(x)


# ---------------------------------------------------------------------------------------------
# Matrices: tril, triu, diagonal, diag, trace (eye and tri are in creation)


def _tri_select(m, k, lower):
    n_, m_ = m.shape[-2:]
    mask = _offset_mask(n_, m_, k if lower else k - 1, lax.ge)
    if m.ndim > 2:
        mask = lax_shape.broadcast_in_dim(mask, m.shape, (m.ndim - 2, m.ndim - 1))
    zeros_ = _full(m.shape, 0, m.dtype)
    return lax.select_n(mask, zeros_, m) if lower else lax.select_n(mask, m, zeros_)


_tril_jit = _named_jit("tril", lambda m, k: _tri_select(m, k, True), ("k",))
_triu_jit = _named_jit("triu", lambda m, k: _tri_select(m, k, False), ("k",))


def tril(m: Any, k: int = 0) -> Any:
    """``m`` with the elements above the ``k``-th diagonal zeroed (on the last two axes)."""
    check_arraylike("tril", m)
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError("Argument to jax.numpy.tril must be at least 2D")
    return _tril_jit(m, k=operator.index(k))


def triu(m: Any, k: int = 0) -> Any:
    """``m`` with the elements below the ``k``-th diagonal zeroed (on the last two axes)."""
    check_arraylike("triu", m)
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError("Argument to jax.numpy.triu must be at least 2D")
    return _triu_jit(m, k=operator.index(k))


def _diagonal_body(a, offset, axis1, axis2):
    nd = a.ndim
    rest = [i for i in range(nd) if i not in (axis1, axis2)]
    perm = (*rest, axis1, axis2)
    a = lax_shape.transpose(a, perm)
    *batch, n, m = a.shape
    batch = tuple(batch)
    if offset >= 0:
        m2 = builtins.max(m - offset, 0)
        a = lax_shape.slice_in_dim(a, builtins.min(offset, m), m, axis=nd - 1)
        n2 = n
    else:
        n2 = builtins.max(n + offset, 0)
        a = lax_shape.slice_in_dim(a, builtins.min(-offset, n), n, axis=nd - 2)
        m2 = m
    d = builtins.max(builtins.min(n2, m2), 0)
    if d == 0:
        return _full(batch + (0,), 0, a.dtype, a.weak_type)
    # The diagonal of a (d, m2) block, read as a flat vector, is every (m2 + 1)-th element:
    # static slices and a reshape, no gather.
    a = lax_shape.slice_in_dim(a, 0, d, axis=nd - 2)
    flat = lax_shape.reshape(a, batch + (d * m2,))
    return lax_shape.slice_in_dim(flat, 0, (d - 1) * (m2 + 1) + 1, m2 + 1, axis=nd - 2)


_diagonal_jit = _named_jit("diagonal", _diagonal_body, ("offset", "axis1", "axis2"))


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """The ``offset``-th diagonal of the 2-D slices of ``a`` over ``axis1`` and ``axis2``
    (as the last axis of the result).

    >>> jnp.diagonal(jnp.arange(6).reshape(2, 3), 1)
    Array([1, 5], dtype=int32)
    """
    check_arraylike("diagonal", a)
    a = asarray(a)
    if a.ndim < 2:
        raise ValueError("diagonal requires an array of at least two dimensions.")
    ax1 = _axis(axis1, a.ndim, "diagonal", "axis1")
    ax2 = _axis(axis2, a.ndim, "diagonal", "axis2")
    if ax1 == ax2:
        raise TypeError(
            f"diagonal: axis1 and axis2 must be different, got axis1={axis1}, axis2={axis2} for "
            f"shape {tuple(a.shape)}."
        )
    return _diagonal_jit(a, offset=operator.index(offset), axis1=ax1, axis2=ax2)


def _diag_body(v, k):
    if v.ndim == 2:
        return diagonal(v, k)
    n = v.shape[0] + builtins.abs(k)
    v = lax_padding.pad(v, _scalar(0, v.dtype), ((builtins.max(0, -k), builtins.max(0, k), 0),))
    mask = _offset_mask(n, n, k, lax.eq)
    col = lax_shape.broadcast_in_dim(v, (n, 1), (0,))
    return where(mask, col, _scalar(0, v.dtype))


_diag_jit = _named_jit("_diag", _diag_body, ("k",))


def diag(v: Any, k: int = 0) -> Any:
    """The ``k``-th diagonal of a 2-D array, or a 2-D array with 1-D ``v`` on its diagonal.

    >>> jnp.diag(jnp.array([1, 2]))
    Array([[1, 0],
           [0, 2]], dtype=int32)
    """
    check_arraylike("diag", v)
    v = asarray(v)
    if v.ndim not in (1, 2):
        raise ValueError("diag input must be 1d or 2d")
    return _diag_jit(v, k=operator.index(k))


def diagflat(v: Any, k: int = 0) -> Any:
    """A 2-D array with the flattened ``v`` on its ``k``-th diagonal."""
    check_arraylike("diagflat", v)
    return diag(ravel(v), k)


def _sum_dtype(dt: np.dtype) -> np.dtype:
    # What jnp.sum accumulates in: small ints and bool widen to the default int (unsigned to
    # the default uint); everything else sums in its own dtype.
    if dt == _bool:
        return dtypes.default_int_dtype()
    if dtypes.issubdtype(dt, np.unsignedinteger) and dt.itemsize < 4:
        return dtypes.default_uint_dtype()
    if dtypes.issubdtype(dt, np.signedinteger) and dt.itemsize < 4:
        return dtypes.default_int_dtype()
    return dt


def _trace_body(a, offset=0, *, axis1, axis2, dtype):
    nd = a.ndim
    rest = [i for i in range(nd) if i not in (axis1, axis2)]
    a = lax_shape.transpose(a, (*rest, axis1, axis2))
    n, m = a.shape[-2:]
    mask = _offset_mask(n, m, offset, lax.eq)
    a = where(mask, a, _full(a.shape, 0, a.dtype))
    out_dt = _sum_dtype(a.dtype) if dtype is None else dtype
    a = convert(a, dtypes.reduction_accum_dtype(out_dt))
    out = lax_red.reduce_sum(a, (nd - 2, nd - 1))
    return convert(out, out_dt)


# An offset left at its default is closed over (a literal), as in JAX; one that is given is an
# operand of the inner jit.
_trace_jit = _named_jit("trace", _trace_body, ("axis1", "axis2", "dtype"))


def trace(
    a: Any,
    offset: Any = 0,
    axis1: int = 0,
    axis2: int = 1,
    dtype: Any = None,
    out: None = None,
) -> Any:
    """The sum along the ``offset``-th diagonal over ``axis1`` and ``axis2``.

    >>> jnp.trace(jnp.arange(4).reshape(2, 2))
    Array(3, dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.trace is not supported.")
    check_arraylike("trace", a, offset)
    a = asarray(a)
    ax1 = _axis(axis1, a.ndim, "trace", "axis1")
    ax2 = _axis(axis2, a.ndim, "trace", "axis2")
    if ax1 == ax2:
        raise ValueError(f"trace: axis1 and axis2 must be different, got {axis1} and {axis2}.")
    dt = None if dtype is None else _dtype_arg(dtype, "trace")
    if type(offset) is int and offset == 0:
        return _trace_jit(a, axis1=ax1, axis2=ax2, dtype=dt)
    return _trace_jit(a, offset, axis1=ax1, axis2=ax2, dtype=dt)


# ---------------------------------------------------------------------------------------------
# where, select, nonzero


_where_jit = ufuncs._where_jit


@over_key_data("jnp.where", key_arrays.at(1, 2))
def where(
    condition: Any,
    x: Any = None,
    y: Any = None,
    /,
    *,
    size: int | None = None,
    fill_value: Any = None,
) -> Any:
    """``x`` where ``condition`` holds, else ``y`` (broadcast together, dtypes promoted).

    With only ``condition``, the indices of its nonzero elements (``nonzero``): concrete
    inputs only, unless a static ``size`` is given.

    >>> jnp.where(jnp.array([True, False]), 1.0, 0)
    Array([1., 0.], dtype=float32)
    """
    if x is None and y is None:
        check_arraylike("where", condition)
        return nonzero(condition, size=size, fill_value=fill_value)
    if x is None or y is None:
        pos = 1 if x is None else 2
        raise TypeError(
            f"where requires ndarray or scalar arguments, got {type(None)} at position {pos}."
        )
    if size is not None or fill_value is not None:
        raise ValueError(
            "size and fill_value arguments cannot be used in three-term where function."
        )
    check_arraylike("where", condition, x, y)
    return _where_jit(condition, x, y)


def _fill_values(fill_value: Any, nd: int) -> list:
    if fill_value is None:
        return [0] * nd
    if isinstance(fill_value, (tuple, list)):
        if len(fill_value) != nd:
            raise ValueError(
                f"nonzero: fill_value must be a scalar or a tuple of length {nd}; got "
                f"{fill_value!r}"
            )
        return list(fill_value)
    if _ndim_of(fill_value) != 0:
        raise ValueError(f"nonzero: fill_value must be a scalar or a tuple of length {nd}")
    return [fill_value] * nd


def nonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> tuple:
    """The indices of the nonzero elements of ``a``, one array per axis.

    The number of results depends on the values, so a traced ``a`` needs a static ``size``:
    the result is then truncated, or padded with ``fill_value`` (default 0).

    >>> jnp.nonzero(jnp.array([0, 3, 0, 5]))
    (Array([1, 3], dtype=int32),)
    """
    check_arraylike("nonzero", a)
    nd = _ndim_of(a)
    if nd == 0:
        raise ValueError(
            "Calling nonzero on 0d arrays is not allowed. Use jnp.atleast_1d(scalar).nonzero() "
            "instead."
        )
    if size is not None:
        size = _concrete_int(size, "nonzero", "size")
    fills = _fill_values(fill_value, nd)
    if not isinstance(a, Tracer):
        idx = np.nonzero(np.asarray(a))
        if size is None:
            return tuple(Array(i.astype(_int32)) for i in idx)
        out = []
        for i, f in zip(idx, fills):
            i = i[:size]
            fv = np.asarray(f).astype(_int32) if not isinstance(f, Tracer) else None
            if fv is None:
                raise ConcretizationTypeError(
                    f._concretization_message("jnp.nonzero") + "\nfill_value must be concrete."
                )
            i = np.concatenate([i, np.full(size - len(i), fv)]).astype(_int32)
            out.append(Array(i))
        return tuple(out)
    if size is None:
        raise ConcretizationTypeError(
            a._concretization_message("jnp.nonzero")
            + "\nThe size argument of jnp.nonzero must be statically specified to use "
            "jnp.nonzero within JAX transformations."
        )
    return _nonzero_traced(a, size, fills)


def _nonzero_traced(a: Any, size: int, fills: list) -> tuple:
    shp = tuple(a.shape)
    n = prod(shp)
    mask = a if a.dtype == _bool else lax.ne(a, _scalar(0, a.dtype))
    flat = convert(lax_shape.reshape(mask, (n,)), _int32)
    counts = lax_red.cumsum(flat, 0) if n else flat
    pos = lax_shape.iota(_int32, size)
    # Result j is the flat index of the (j+1)-th nonzero: the number of elements whose running
    # count of nonzeros is still <= j. A count of n means "no such element": fill.
    before = lax.le(
        lax_shape.broadcast_in_dim(counts, (size, n), (1,)),
        lax_shape.broadcast_in_dim(pos, (size, n), (0,)),
    )
    flat_idx = lax_red.reduce_sum(convert(before, _int32), (1,))
    valid = lax.lt(flat_idx, _scalar(n, _int32))
    out = []
    stride = n
    for d, f in zip(shp, fills):
        stride //= builtins.max(d, 1)
        coord = lax.rem(
            lax.div(flat_idx, _scalar(builtins.max(stride, 1), _int32)),
            _scalar(builtins.max(d, 1), _int32),
        )
        out.append(lax.select_n(valid, broadcast_to(convert(f, _int32), (size,)), coord))
    return tuple(out)


def flatnonzero(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The indices of the nonzero elements of the flattened ``a``."""
    check_arraylike("flatnonzero", a)
    return nonzero(ravel(a), size=size, fill_value=fill_value)[0]


def argwhere(a: Any, *, size: int | None = None, fill_value: Any = None) -> Any:
    """The indices of the nonzero elements of ``a``, one row per element.

    >>> jnp.argwhere(jnp.array([[0, 1], [2, 0]]))
    Array([[0, 1],
           [1, 0]], dtype=int32)
    """
    check_arraylike("argwhere", a)
    nd = _ndim_of(a)
    idx = nonzero(atleast_1d(a) if nd == 0 else a, size=size, fill_value=fill_value)
    if nd == 0:
        return zeros((idx[0].shape[0], 0), _int32)
    return lax_copies.stack(list(idx), 1)


def _select_operands(args, kwargs) -> list:
    """select's choices and default: the arrays its result takes elements from."""
    choices = list(args[1]) if len(args) > 1 else list(kwargs.get("choicelist", ()))
    default = args[2] if len(args) > 2 else kwargs.get("default", 0)
    return [*choices, default]


@over_key_data("jnp.select", _select_operands)
def select(condlist: Sequence[Any], choicelist: Sequence[Any], default: Any = 0) -> Any:
    """The element of ``choicelist[i]`` for the first ``condlist[i]`` that holds, else
    ``default``.

    >>> x = jnp.arange(4)
    >>> jnp.select([x < 1, x > 2], [x, -x], 9)
    Array([ 0,  9,  9, -3], dtype=int32)
    """
    condlist, choicelist = list(condlist), list(choicelist)
    if len(condlist) != len(choicelist):
        raise ValueError(
            f"condlist must have length equal to choicelist ({len(condlist)} vs {len(choicelist)})"
        )
    if not condlist:
        raise ValueError("condlist must be non-empty")
    check_arraylike("select", *condlist, *choicelist, default)
    choices = promote_dtypes(default, *choicelist)
    shp = broadcast_shapes(*(_shape_of(x) for x in condlist + choices))
    conds = [_full(shp, False, _bool)]
    for c in condlist:
        c = asarray(c)
        if c.dtype != _bool:
            c = convert(c, _bool)
        conds.append(broadcast_to(c, shp))
    which = lax_red.argmax(lax_copies.stack(conds, 0), 0, _int32)
    return lax.select_n(which, *(broadcast_to(c, shp) for c in choices))


def diff(a: Any, n: int = 1, axis: int = -1, prepend: Any = None, append: Any = None) -> Any:
    """The ``n``-th discrete difference along ``axis`` (bools: ``!=``).

    >>> jnp.diff(jnp.array([1, 4, 9]))
    Array([3, 5], dtype=int32)
    """
    check_arraylike("diff", a)
    n = _concrete_int(n, "diff", "n")
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if np.ndim(a) == 0:
        raise ValueError(f"diff requires input that is at least one dimensional; got {a}")
    # A jit named diff with static n and axis; prepend and append are keyword operands (so
    # flattened append first), as JAX's.
    return _diff_jit(a, n, axis, prepend=prepend, append=append)


def _diff_body(a, n, axis, prepend, append):
    a = asarray(a)
    if n == 0:
        return a
    ax = _axis(axis, a.ndim, "diff")
    parts = []
    for extra in (prepend, append):
        if extra is None:
            parts.append(None)
            continue
        check_arraylike("diff", extra)
        e_ = asarray(extra)
        if e_.ndim == 0:
            shp = list(a.shape)
            shp[ax] = 1
            e_ = broadcast_to(e_, tuple(shp))
        parts.append(e_)
    if parts[0] is not None or parts[1] is not None:
        a = concatenate([p for p in (parts[0], a, parts[1]) if p is not None], ax)
    op = ufuncs.not_equal if a.dtype == _bool else ufuncs.subtract
    for _ in range(n):
        m = a.shape[ax]
        # Basic-index slices (strides None), as JAX's a[1:] - a[:-1].
        lo, hi = [0] * a.ndim, list(a.shape)
        lo[ax], hi[ax] = 1, m
        upper = lax_shape.slice(a, tuple(lo), tuple(hi))
        lo[ax], hi[ax] = 0, m - 1
        a = op(upper, lax_shape.slice(a, tuple(lo), tuple(hi)))
    return a


_diff_jit = _named_jit("diff", _diff_body, ("n", "axis"))


def compress(
    condition: Any,
    a: Any,
    axis: int | None = None,
    *,
    size: int | None = None,
    fill_value: Any = 0,
    out: None = None,
) -> Any:
    """The slices of ``a`` along ``axis`` where the (concrete, 1-D) ``condition`` holds.

    >>> jnp.compress(np.array([1, 0, 1]), jnp.arange(3))
    Array([0, 2], dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.compress is not supported.")
    check_arraylike("compress", condition, a)
    if isinstance(condition, Tracer):
        raise ConcretizationTypeError(
            condition._concretization_message("jnp.compress")
            + "\ncompress: the condition must be concrete."
        )
    cond = np.asarray(condition)
    if cond.ndim != 1:
        raise ValueError("condition must be a 1D array")
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    ax = _axis(axis, a.ndim, "compress")
    n = a.shape[ax]
    if len(cond) > n and cond[n:].any():
        raise ValueError("condition contains entries that are out of bounds")
    idx = np.nonzero(cond[:n])[0]
    if size is None:
        return _take_static(a, idx, ax)
    size = _concrete_int(size, "compress", "size")
    out_ = _take_static(a, idx[:size], ax)
    if len(idx) < size:
        shp = list(a.shape)
        shp[ax] = size - len(idx)
        fill = broadcast_to(convert(fill_value, a.dtype, a.weak_type), tuple(shp))
        out_ = lax_shape.concatenate([out_, fill], ax)
    return out_


def extract(condition: Any, arr: Any, *, size: int | None = None, fill_value: Any = 0) -> Any:
    """The elements of ``arr`` where the (concrete) ``condition`` holds, flattened."""
    check_arraylike("extract", condition, arr)
    if isinstance(condition, Tracer):
        raise ConcretizationTypeError(
            condition._concretization_message("jnp.extract")
            + "\nextract: the condition must be concrete."
        )
    return compress(np.ravel(np.asarray(condition)), ravel(arr), size=size, fill_value=fill_value)


def choose(a: Any, choices: Sequence[Any], out: None = None, mode: str = "raise") -> Any:
    """``choices[a[i]][i]`` elementwise (all broadcast together); ``mode='raise'`` needs
    concrete indices, 'wrap' and 'clip' do not.

    >>> jnp.choose(jnp.array([1, 0]), [jnp.array([1, 2]), jnp.array([3, 4])])
    Array([3, 2], dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.choose is not supported.")
    choices = list(choices)
    check_arraylike("choose", a, *choices)
    if not choices:
        raise ValueError("choose: choices must be a non-empty sequence")
    if not dtypes.issubdtype(_value_dtype(a), np.integer):
        raise ValueError("`a` array must be integer typed")
    n = len(choices)
    if mode == "raise":
        if isinstance(a, Tracer):
            raise ConcretizationTypeError(
                a._concretization_message("jnp.choose")
                + "\nThe error occurred because jnp.choose was jit-compiled with mode='raise'. "
                "Use mode='wrap' or mode='clip' instead."
            )
        v = np.asarray(a)
        if v.size and ((v < 0).any() or (v >= n).any()):
            raise ValueError("invalid entry in choice array")
    elif mode == "wrap":
        a = ufuncs.remainder(a, n)
    elif mode == "clip":
        a = ufuncs.clip(a, 0, n - 1)
    else:
        raise ValueError(f"invalid mode: {mode!r}; expected 'raise', 'wrap' or 'clip'")
    choices = promote_dtypes(*choices)
    a = convert(a, _int32)
    shp = broadcast_shapes(_shape_of(a), *(_shape_of(c) for c in choices))
    return lax.select_n(broadcast_to(a, shp), *(broadcast_to(c, shp) for c in choices))


# ---------------------------------------------------------------------------------------------
# Index conversion


def ravel_multi_index(
    multi_index: Sequence[Any], dims: Sequence[int], mode: str = "raise", order: str = "C"
) -> Any:
    """The flat index of each coordinate tuple in an array of shape ``dims``
    (``mode``: 'raise' needs concrete indices, 'wrap' or 'clip' do not).

    >>> jnp.ravel_multi_index((jnp.array([1]), jnp.array([2])), (3, 4))
    Array([6], dtype=int32)
    """
    dims_t = _canonical_shape(dims, "ravel_multi_index")
    multi_index = list(multi_index)
    if len(multi_index) != len(dims_t):
        raise ValueError(
            f"ravel_multi_index: multi_index has {len(multi_index)} entries but dims has "
            f"{len(dims_t)} ({dims_t})."
        )
    if order not in ("C", "F"):
        raise ValueError(f"ravel_multi_index: order must be 'C' or 'F', got {order!r}")
    check_arraylike("ravel_multi_index", *multi_index)
    for i in multi_index:
        if not dtypes.issubdtype(_value_dtype(i), np.integer):
            raise TypeError("only int indices permitted")
    if mode == "raise":
        for i in multi_index:
            if isinstance(i, Tracer):
                raise ConcretizationTypeError(
                    i._concretization_message("jnp.ravel_multi_index")
                    + "\nThe error occurred because ravel_multi_index was jit-compiled with "
                    "mode='raise'. Use mode='wrap' or mode='clip' instead."
                )
        for i, d in zip(multi_index, dims_t):
            v = np.asarray(i)
            if v.size and ((v < 0).any() or (v >= d).any()):
                raise ValueError("invalid entry in coordinates array")
    elif mode == "clip":
        multi_index = [ufuncs.clip(i, 0, d - 1) for i, d in zip(multi_index, dims_t)]
    elif mode == "wrap":
        multi_index = [ufuncs.remainder(i, d) for i, d in zip(multi_index, dims_t)]
    else:
        raise ValueError(f"invalid mode={mode!r}. Expected 'raise', 'wrap' or 'clip'")
    strides = []
    acc = 1
    order_dims = range(len(dims_t) - 1, -1, -1) if order == "C" else range(len(dims_t))
    strides = [0] * len(dims_t)
    for i in order_dims:
        strides[i] = acc
        acc *= dims_t[i]
    result = 0
    for i, s in zip(multi_index, strides):
        result = ufuncs.add(result, ufuncs.multiply(i, s))
    return to_array(result)


def unravel_index(indices: Any, shape: Sequence[int]) -> tuple:
    """The coordinates in an array of ``shape`` of each flat index (negative indices count
    from the end; out-of-range ones are clipped).

    >>> jnp.unravel_index(5, (3, 4))
    (Array(1, dtype=int32, weak_type=True), Array(1, dtype=int32, weak_type=True))
    """
    check_arraylike("unravel_index", indices)
    if not dtypes.issubdtype(_value_dtype(indices), np.integer):
        raise TypeError("only int indices permitted")
    shp = _canonical_shape(shape, "unravel_index")
    total = prod(shp)
    idx = to_array(indices)
    if total == 0:
        raise ValueError(f"unravel_index: cannot unravel into an empty shape {shp}")
    idx = ufuncs.where_(ufuncs.less(idx, 0), ufuncs.add(idx, total), idx)
    idx = ufuncs.clip(idx, 0, total - 1)
    # Non-negative from here on, so truncating division is floor division.
    weak = dtypes.is_weakly_typed(idx)
    out = []
    for d in reversed(shp):
        d_c = _scalar(d, idx.dtype, weak)
        out.append(lax.rem(idx, d_c))
        idx = lax.div(idx, d_c)
    return tuple(reversed(out))


# ---------------------------------------------------------------------------------------------
# Comparisons of whole arrays


def _isclose_body(a, b, rtol, atol, equal_nan):
    a, b = promote_dtypes_inexact(a, b)
    real = dtypes.finfo(a.dtype).dtype if dtypes.is_complex(a.dtype) else a.dtype
    rtol = convert(rtol, real)
    atol = convert(atol, real)
    a_nan = lax.ne(a, a)
    b_nan = lax.ne(b, b)
    both_nan = ufuncs.logical_and(a_nan, b_nan)
    finite_b = ufuncs.isfinite(b)
    diff = lax.abs(lax.sub(a, b))
    tol = lax.add(atol, lax.mul(rtol, lax.abs(b)))
    close = lax.le(*_same_rank(diff, tol))
    out = ufuncs.logical_or(lax.eq(*_same_rank(a, b)), ufuncs.logical_and(finite_b, close))
    if equal_nan:
        out = ufuncs.logical_or(out, both_nan)
    return out


def _same_rank(x, y):
    if np.shape(x) == np.shape(y) or not np.shape(x) or not np.shape(y):
        return x, y
    shp = broadcast_shapes(np.shape(x), np.shape(y))
    return broadcast_to(x, shp), broadcast_to(y, shp)


# Tolerances left at their defaults are closed over (literals), as in JAX.
_isclose_jit = _named_jit(
    "isclose",
    lambda a, b, rtol=1e-05, atol=1e-08, *, equal_nan: _isclose_body(a, b, rtol, atol, equal_nan),
    ("equal_nan",),
)


def isclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    """Elementwise ``|a - b| <= atol + rtol * |b|`` (infinities close only to themselves; NaN
    close to NaN only with ``equal_nan``).

    >>> jnp.isclose(jnp.array([1.0, 1.1]), 1.0)
    Array([ True, False], dtype=bool)
    """
    check_arraylike("isclose", a, b, rtol, atol)
    a, b = _broadcast_pair("isclose", a, b)
    if _default_tolerances(rtol, atol):
        return _isclose_jit(a, b, equal_nan=bool(equal_nan))
    return _isclose_jit(a, b, rtol, atol, equal_nan=bool(equal_nan))


def _default_tolerances(rtol: Any, atol: Any) -> bool:
    # Python-scalar defaults are closed over by the inner jit (as in JAX); anything else is
    # passed to it as an operand.
    return (
        dtypes.is_python_scalar(rtol)
        and dtypes.is_python_scalar(atol)
        and rtol == 1e-05
        and atol == 1e-08
    )


def _broadcast_pair(fn: str, a: Any, b: Any):
    sa, sb = _shape_of(a), _shape_of(b)
    if sa == sb or not sa or not sb:
        return a, b
    try:
        shp = broadcast_shapes(sa, sb)
    except ValueError:
        raise ValueError(f"{fn}: incompatible shapes for broadcasting: {sa}, {sb}") from None
    return broadcast_to(a, shp), broadcast_to(b, shp)


def _allclose_body(a, b, rtol=1e-05, atol=1e-08, *, equal_nan):
    close = _isclose_jit(a, b, rtol, atol, equal_nan=equal_nan)
    return lax_red.reduce_and(close, tuple(range(close.ndim)))


_allclose_jit = _named_jit("allclose", _allclose_body, ("equal_nan",))


def allclose(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: bool = False) -> Any:
    """True if ``isclose(a, b, rtol, atol)`` holds everywhere (a bool array, as JAX)."""
    check_arraylike("allclose", a, b, rtol, atol)
    a, b = _broadcast_pair("allclose", a, b)
    if _default_tolerances(rtol, atol):
        return _allclose_jit(a, b, equal_nan=bool(equal_nan))
    return _allclose_jit(a, b, rtol, atol, equal_nan=bool(equal_nan))


def array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> Any:
    """True if the arrays have the same shape and elements (False for different shapes)."""
    check_arraylike("array_equal", a1, a2)
    if _shape_of(a1) != _shape_of(a2):
        return Array(np.asarray(False))
    a1, a2 = promote_dtypes(a1, a2)
    eq = lax.eq(a1, a2)
    if equal_nan:
        eq = ufuncs.logical_or(eq, ufuncs.logical_and(lax.ne(a1, a1), lax.ne(a2, a2)))
    return lax_red.reduce_and(eq, tuple(range(eq.ndim)))


def array_equiv(a1: Any, a2: Any) -> Any:
    """True if the arrays are equal after broadcasting against each other."""
    check_arraylike("array_equiv", a1, a2)
    try:
        shp = broadcast_shapes(_shape_of(a1), _shape_of(a2))
    except ValueError:
        return Array(np.asarray(False))
    a1, a2 = promote_dtypes(a1, a2)
    a1, a2 = broadcast_to(a1, shp), broadcast_to(a2, shp)
    eq = lax.eq(a1, a2)
    return lax_red.reduce_and(eq, tuple(range(eq.ndim)))


__all__ = [
    "allclose",
    "argwhere",
    "array_equal",
    "array_equiv",
    "can_cast",
    "choose",
    "compress",
    "diag",
    "diagflat",
    "diagonal",
    "diff",
    "dtype",
    "e",
    "euler_gamma",
    "extract",
    "finfo",
    "flatnonzero",
    "iinfo",
    "inf",
    "isclose",
    "iscomplexobj",
    "isdtype",
    "isrealobj",
    "isscalar",
    "issubdtype",
    "nan",
    "ndim",
    "newaxis",
    "nonzero",
    "pi",
    "promote_types",
    "ravel_multi_index",
    "result_type",
    "select",
    "shape",
    "size",
    "trace",
    "tril",
    "triu",
    "unravel_index",
    "where",
]
