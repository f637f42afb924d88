"""Products of ``spmd.numpy``: ``dot``, ``vdot``, ``matmul`` (and the ``@`` operator),
``vecdot``, ``matvec``, ``vecmat``, ``tensordot``, ``inner``, ``outer``, ``kron``, ``cross``, 1-D
``convolve``/``correlate``, and ``matrix_transpose``. ``einsum`` is in ``einsum``.

Every product lowers to one ``dot_general`` (plus squeezes and transposes), which gets the
operands in their own dtypes and the promoted dtype as ``preferred_element_type``, as in JAX.

>>> jnp.arange(6).reshape(2, 3) @ jnp.arange(3)
Array([ 5, 14], dtype=int32)
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np
from spmd._src import api, core, dtypes
from spmd._src.lax import convolution as lax_conv
from spmd._src.lax import dot as lax_dot
from spmd._src.lax import elementwise as lax
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.sharding import _reshard_sharding, apply_out_sharding
from spmd._src.numpy import util
from spmd._src.numpy.util import with_out_sharding
from spmd._src.util import canonicalize_axis, prod

# ---------------------------------------------------------------------------------------------
# Helpers


def _result_type(args: Sequence[Any], preferred_element_type: Any, fn: str):
    """(dtype, weak) of a product: the promoted type, or ``preferred_element_type``."""
    if preferred_element_type is None:
        return dtypes.result_type(*args, return_weak_type_flag=True)
    return lax_dot.canonicalize_preferred(preferred_element_type), False


def _finish(x: Any, dt: np.dtype, weak: bool) -> Any:
    # The dot_general result has the right dtype; only the weak type may need a conversion.
    if x.dtype != dt or x.weak_type != weak:
        return lax.convert_element_type(x, dt, weak_type=weak)
    return x


def _ravel(x: Any) -> Any:
    if x.ndim == 1:
        return x
    return lax_shape.reshape(x, (prod(x.shape),))


def _conj(x: Any) -> Any:
    return lax.conj(x) if dtypes.issubdtype(x.dtype, np.complexfloating) else x


def _typestr(x: Any) -> str:
    return core.ShapedArray(x.shape, x.dtype).str_short(short_dtypes=False)


def _out_sharding(out_sharding, a, b, contract, name: str):
    # Checked (Explicit axes only, dimensions that divide) and named after the jnp function.
    if out_sharding is None:
        return None
    return _reshard_sharding(out_sharding, a.ndim + b.ndim - 2 * len(contract[0]), name)


def _dot_general(a, b, contract, batch, precision, preferred, out_sharding=None):
    return lax_dot.dot_general(
        a,
        b,
        (contract, batch),
        precision=precision,
        preferred_element_type=preferred,
        out_sharding=out_sharding,
    )


# ---------------------------------------------------------------------------------------------
# dot, vdot, matmul, vecdot


@with_out_sharding("jnp.dot", inner=True)
def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """NumPy's ``dot``: a product over the last axis of ``a`` and the second-to-last of ``b``
    (the last, for 1-D ``b``); a scalar operand multiplies elementwise.

    >>> jnp.dot(jnp.ones((2, 3)), jnp.ones(3))
    Array([3., 3.], dtype=float32)
    """
    return _dot_as("jnp.dot", a, b, precision, preferred_element_type, out_sharding)


def _dot_as(name, a, b, precision, preferred_element_type, out_sharding):
    util.check_arraylike(name[4:], a, b)
    dt, weak = _result_type((a, b), preferred_element_type, name[4:])
    a, b = util.to_array(a), util.to_array(b)
    if a.ndim == 0 or b.ndim == 0:
        contract: tuple = ((), ())
    elif b.ndim == 1:
        contract = ((a.ndim - 1,), (0,))
    else:
        contract = ((a.ndim - 1,), (b.ndim - 2,))
    out = lax_dot.dot_general(
        a,
        b,
        (contract, ((), ())),
        precision=precision,
        preferred_element_type=dt,
        out_sharding=_out_sharding(out_sharding, a, b, contract, name),
    )
    return _finish(out, dt, weak)


def vdot(a, b, *, precision=None, preferred_element_type=None):
    """Dot product of the flattened operands, conjugating ``a`` when complex.

    >>> jnp.vdot(jnp.array([1 + 2j, 3j]), jnp.array([1 + 0j, 1j]))
    Array(4.-2.j, dtype=complex64)
    """
    util.check_arraylike("vdot", a, b)
    a, b = util.to_array(a), util.to_array(b)
    a = _conj(a)
    return dot(
        _ravel(a), _ravel(b), precision=precision, preferred_element_type=preferred_element_type
    )


def _broadcast_contract(fn, a, b, a_mat, b_mat, precision, dt, weak):
    """Contract the last axis of ``a`` with ``b``'s last (``b_mat`` False) or second-to-last
    (``b_mat`` True) axis, broadcasting the leading (batch) axes as matmul does.

    ``a`` is ``(*batch_a, [M], K)`` and ``b`` is ``(*batch_b, K, [N])``. Batch axes of equal
    size become ``dot_general`` batch axes; a size-1 axis facing a larger one is squeezed out,
    and the other operand's axis becomes a free axis; the result is transposed into order.
    """
    a_batch = a.shape[: a.ndim - 1 - a_mat]
    b_batch = b.shape[: b.ndim - 1 - b_mat]
    nb = max(len(a_batch), len(b_batch))
    a_pad = (None,) * (nb - len(a_batch)) + tuple(a_batch)
    b_pad = (None,) * (nb - len(b_batch)) + tuple(b_batch)
    a_squeeze, b_squeeze, both_squeeze = [], [], []
    a_bdims, b_bdims = [], []
    out_batch, out_a, out_b = [], [], []  # result positions of each kind of dot_general axis
    ia = ib = 0  # next axis of a / b (before squeezing)
    for i, (sa, sb) in enumerate(zip(a_pad, b_pad)):
        if sa is None:
            out_b.append(i)
            ib += 1
        elif sb is None:
            out_a.append(i)
            ia += 1
        elif sa == 1 and sb == 1:
            a_squeeze.append(ia)
            b_squeeze.append(ib)
            both_squeeze.append(i)
            ia += 1
            ib += 1
        elif sa == 1:
            a_squeeze.append(ia)
            out_b.append(i)
            ia += 1
            ib += 1
        elif sb == 1:
            b_squeeze.append(ib)
            out_a.append(i)
            ia += 1
            ib += 1
        elif sa == sb:
            a_bdims.append(ia - len(a_squeeze))
            b_bdims.append(ib - len(b_squeeze))
            out_batch.append(i)
            ia += 1
            ib += 1
        else:
            if fn == "matmul":
                raise ValueError(
                    f"Incompatible types for matmul arguments: {_typestr(a)} and {_typestr(b)}"
                )
            raise ValueError(
                f"{fn}: incompatible batch shapes for broadcasting: {tuple(a_batch)} and "
                f"{tuple(b_batch)} (operand shapes {a.shape} and {b.shape})."
            )
    if a_mat:
        out_a.append(nb)
    if b_mat:
        out_b.append(nb + a_mat)
    perm = tuple(int(p) for p in np.argsort(out_batch + out_a + out_b))
    a = lax_shape.squeeze(a, a_squeeze)
    b = lax_shape.squeeze(b, b_squeeze)
    out = lax_dot.dot_general(
        a,
        b,
        (((a.ndim - 1,), (b.ndim - 1 - b_mat,)), (tuple(a_bdims), tuple(b_bdims))),
        precision=precision,
        preferred_element_type=dt,
    )
    out = lax_shape.transpose(out, perm)
    if both_squeeze:
        out = lax_shape.expand_dims(out, both_squeeze)
    return _finish(out, dt, weak)


@with_out_sharding("jnp.matmul", inner=True)
def matmul(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """Matrix product with NumPy's broadcasting of leading axes (the ``@`` operator).

    1-D operands are vectors: a leading one is a row, a trailing one a column, and its axis
    is dropped from the result.

    >>> (jnp.ones((5, 2, 3)) @ jnp.ones((3, 4))).shape
    (5, 2, 4)
    """
    util.check_arraylike("matmul", a, b)
    for i, x in enumerate((a, b)):
        if np.ndim(x) < 1:
            raise ValueError(
                f"matmul input operand {i} must have ndim at least 1, but it has ndim {np.ndim(x)}"
            )
    if out_sharding is not None and np.ndim(a) == np.ndim(b) == 2:
        # A matrix product is dot's: the contraction itself takes the sharding.
        return _dot_as(
            "jnp.matmul", a, b, precision, preferred_element_type, out_sharding
        )  # fmt: skip
    dt, weak = _result_type((a, b), preferred_element_type, "matmul")
    a, b = util.to_array(a), util.to_array(b)
    out = _broadcast_contract("matmul", a, b, a.ndim > 1, b.ndim > 1, precision, dt, weak)
    return apply_out_sharding(out, out_sharding, "jnp.matmul")


def vecdot(x1, x2, /, *, axis: int = -1, precision=None, preferred_element_type=None):
    """Vector dot product along ``axis`` (``x1`` conjugated), broadcasting the other axes.

    >>> jnp.vecdot(jnp.ones((2, 3)), jnp.arange(3.0))
    Array([3., 3.], dtype=float32)
    """
    util.check_arraylike("vecdot", x1, x2)
    dt, weak = _result_type((x1, x2), preferred_element_type, "vecdot")
    x1, x2 = util.to_array(x1), util.to_array(x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError(
            f"vecdot requires operands of at least one dimension, got shapes {x1.shape} and "
            f"{x2.shape}."
        )
    a1 = canonicalize_axis(axis, x1.ndim, fn="vecdot")
    a2 = canonicalize_axis(axis, x2.ndim, fn="vecdot")
    if x1.shape[a1] != x2.shape[a2]:
        raise ValueError(f"axes must match; got shapes {x1.shape} and {x2.shape} with axis={axis}")
    x1 = _moveaxis_last(_conj(x1), a1)
    x2 = _moveaxis_last(x2, a2)
    return _broadcast_contract("vecdot", x1, x2, False, False, precision, dt, weak)


def _moveaxis_last(x, axis: int):
    perm = tuple(i for i in range(x.ndim) if i != axis) + (axis,)
    return lax_shape.transpose(x, perm)


def matvec(x1, x2, /):
    """Batched matrix-vector product: ``x1`` is ``(..., M, N)``, ``x2`` is ``(..., N)``.

    >>> jnp.matvec(jnp.ones((2, 3)), jnp.ones(3))
    Array([3., 3.], dtype=float32)
    """
    util.check_arraylike("matvec", x1, x2)
    x1, x2 = util.to_array(x1), util.to_array(x2)
    if x1.ndim < 2 or x2.ndim < 1:
        raise ValueError(
            f"matvec requires x1 of at least 2 and x2 of at least 1 dimensions, got shapes "
            f"{x1.shape} and {x2.shape}."
        )
    return _matvec_jit(x1, x2)


def _matvec(x1, x2):
    dt, weak = _result_type((x1, x2), None, "matvec")
    return _broadcast_contract("matvec", x1, x2, True, False, None, dt, weak)


def _vecmat(x1, x2):
    dt, weak = _result_type((x1, x2), None, "vecmat")
    return _broadcast_contract("vecmat", _conj(x1), x2, False, True, None, dt, weak)


_matvec.__name__ = "matvec"
_vecmat.__name__ = "vecmat"
_matvec_jit = api.jit(_matvec)
_vecmat_jit = api.jit(_vecmat)


def vecmat(x1, x2, /):
    """Batched vector-matrix product: ``conj(x1)`` of shape ``(..., M)`` times ``x2`` of
    shape ``(..., M, N)``.

    >>> jnp.vecmat(jnp.ones(2), jnp.ones((2, 3)))
    Array([2., 2., 2.], dtype=float32)
    """
    util.check_arraylike("vecmat", x1, x2)
    x1, x2 = util.to_array(x1), util.to_array(x2)
    if x1.ndim < 1 or x2.ndim < 2:
        raise ValueError(
            f"vecmat requires x1 of at least 1 and x2 of at least 2 dimensions, got shapes "
            f"{x1.shape} and {x2.shape}."
        )
    return _vecmat_jit(x1, x2)


# ---------------------------------------------------------------------------------------------
# tensordot, inner, outer, kron, matrix_transpose


def _axes_list(ax: Any, ndim: int) -> list[int]:
    if isinstance(ax, (list, tuple)) or (hasattr(ax, "ndim") and np.ndim(ax) == 1):
        return [canonicalize_axis(operator.index(i), ndim, fn="tensordot") for i in ax]
    return [canonicalize_axis(operator.index(ax), ndim, fn="tensordot")]


@with_out_sharding("jnp.tensordot", inner=True)
def tensordot(a, b, axes=2, *, precision=None, preferred_element_type=None, out_sharding=None):
    """Sum of products over the given axes: the last ``axes`` of ``a`` with the first ``axes``
    of ``b`` (an int), or the axes listed in the pair ``(a_axes, b_axes)``.

    >>> jnp.tensordot(jnp.ones((2, 3, 4)), jnp.ones((3, 4, 5))).shape
    (2, 5)
    """
    util.check_arraylike("tensordot", a, b)
    dt, weak = _result_type((a, b), preferred_element_type, "tensordot")
    a, b = util.to_array(a), util.to_array(b)
    if type(axes) is int or isinstance(axes, (np.integer,)):
        n = operator.index(axes)
        if n > min(a.ndim, b.ndim):
            raise TypeError(
                f"Number of tensordot axes (axes {n}) exceeds input ranks ({a.shape} and {b.shape})"
            )
        if n < 0:
            raise ValueError(f"tensordot: axes must be non-negative, got {n}.")
        ca, cb = tuple(range(a.ndim - n, a.ndim)), tuple(range(n))
    elif isinstance(axes, (list, tuple)) and len(axes) == 2:
        la, lb = _axes_list(axes[0], a.ndim), _axes_list(axes[1], b.ndim)
        if len(la) != len(lb):
            raise TypeError(
                f"tensordot requires axes lists to have equal length, got {la} and {lb}."
            )
        ca, cb = tuple(la), tuple(lb)
    else:
        raise TypeError(
            "tensordot axes argument must be an int, a pair of ints, or a pair of lists/tuples "
            f"of ints, got {axes!r}."
        )
    out = lax_dot.dot_general(
        a,
        b,
        ((ca, cb), ((), ())),
        precision=precision,
        preferred_element_type=dt,
        out_sharding=_out_sharding(out_sharding, a, b, (ca, cb), "jnp.tensordot"),
    )
    return _finish(out, dt, weak)


def inner(a, b, *, precision=None, preferred_element_type=None):
    """Sum of products over the last axes of ``a`` and ``b`` (a scalar operand multiplies).

    >>> jnp.inner(jnp.ones((2, 3)), jnp.ones((4, 3))).shape
    (2, 4)
    """
    util.check_arraylike("inner", a, b)
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        dt, weak = _result_type((a, b), preferred_element_type, "inner")
        x, y = util.promote_dtypes(a, b)
        out = lax.mul(x, y)
        return _finish(out, dt, weak) if preferred_element_type is not None else out
    return tensordot(
        a,
        b,
        (-1, -1),
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


def outer(a, b, out=None):
    """Outer product of the flattened operands: ``result[i, j] = a.ravel()[i] *
    b.ravel()[j]``.

    >>> jnp.outer(jnp.arange(2), jnp.arange(3))
    Array([[0, 0, 0],
           [0, 1, 2]], dtype=int32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.outer is not supported.")
    util.check_arraylike("outer", a, b)
    a, b = util.promote_dtypes(a, b)
    a = _ravel(a)
    a = lax_shape.broadcast_in_dim(a, (a.shape[0], 1), (0,))
    b = _ravel(b)
    b = lax_shape.broadcast_in_dim(b, (1, b.shape[0]), (1,))
    return lax.mul(a, b)


def _kron(a, b):
    a, b = util.promote_dtypes(a, b)
    if a.ndim < b.ndim:
        a = lax_shape.expand_dims(a, range(b.ndim - a.ndim))
    elif b.ndim < a.ndim:
        b = lax_shape.expand_dims(b, range(a.ndim - b.ndim))
    a2 = lax_shape.expand_dims(a, range(1, 2 * a.ndim, 2))
    b2 = lax_shape.expand_dims(b, range(0, 2 * b.ndim, 2))
    out_shape = tuple(int(x) * int(y) for x, y in zip(a.shape, b.shape))
    return lax_shape.reshape(lax.mul(a2, b2), out_shape)


_kron.__name__ = "kron"  # the name the inner jit prints with, as in JAX
_kron_jit = api.jit(_kron)


def kron(a, b):
    """Kronecker product: block ``(i, j)`` of the result is ``a[i, j] * b``.

    >>> jnp.kron(jnp.eye(2), jnp.ones((2, 2))).shape
    (4, 4)
    """
    util.check_arraylike("kron", a, b)
    return _kron_jit(a, b)


def matrix_transpose(x, /):
    """Swap the last two axes.

    >>> jnp.matrix_transpose(jnp.ones((5, 2, 3))).shape
    (5, 3, 2)
    """
    util.check_arraylike("matrix_transpose", x)
    x = util.to_array(x)
    if x.ndim < 2:
        raise ValueError(
            f"x must be at least two-dimensional for matrix_transpose; got ndim={x.ndim}"
        )
    perm = (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2)
    return lax_shape.transpose(x, perm)


# ---------------------------------------------------------------------------------------------
# convolve, correlate


def _flip(y):
    return lax_shape.rev(y, (0,))


_flip_jit = api.jit(_flip)


def _conv(x, y, mode, op, precision, preferred_element_type):
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if preferred_element_type is None:
        x, y = util.promote_dtypes_inexact(x, y)
    else:
        x, y = util.promote_dtypes(x, y)
    if x.shape[0] == 0 or y.shape[0] == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {x.shape} and {y.shape}.")
    reverse = False
    if op == "correlate":
        y = _conj(y)
        if x.shape[0] < y.shape[0]:
            x, y = y, x
            reverse = True
    else:
        if x.shape[0] < y.shape[0]:
            x, y = y, x
        y = _flip_jit(y)
    m = y.shape[0]
    if mode == "valid":
        padding = ((0, 0),)
    elif mode == "same":
        padding = ((m // 2, m - m // 2 - 1),)
    elif mode == "full":
        padding = ((m - 1, m - 1),)
    else:
        raise ValueError(f"{op}: mode must be one of ['full', 'same', 'valid'], got {mode!r}.")
    x3 = lax_shape.broadcast_in_dim(x, (1, 1, x.shape[0]), (2,))
    y3 = lax_shape.broadcast_in_dim(y, (1, 1, m), (2,))
    out = lax_conv.conv_general_dilated(
        x3,
        y3,
        (1,),
        padding,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )
    if reverse:
        out = lax_shape.rev(out, (2,))
    return lax_shape.squeeze(out, (0, 1))


_conv_jit = api.jit(_conv, static_argnums=(2, 3, 4, 5))


def _convolve(a, v, mode, precision, preferred_element_type):
    return _conv_jit(a, v, mode, "convolve", precision, preferred_element_type)


def _correlate(a, v, mode, precision, preferred_element_type):
    return _conv_jit(a, v, mode, "correlate", precision, preferred_element_type)


_convolve.__name__ = "convolve"
_correlate.__name__ = "correlate"
_convolve_jit = api.jit(_convolve, static_argnums=(2, 3, 4))
_correlate_jit = api.jit(_correlate, static_argnums=(2, 3, 4))


def _conv_args(op, a, v, precision, preferred_element_type):
    util.check_arraylike(op, a, v)
    precision = lax_dot.canonicalize_precision(precision, op)
    pref = lax_dot.canonicalize_preferred(preferred_element_type)
    return util.to_array(a), util.to_array(v), precision, pref


def convolve(a, v, mode: str = "full", *, precision=None, preferred_element_type=None):
    """1-D discrete convolution, ``mode`` ``'full'``, ``'same'`` or ``'valid'``; integer
    inputs are computed in floating point (as in NumPy's default), unless
    ``preferred_element_type`` is given.

    >>> jnp.convolve(jnp.array([1.0, 2.0, 3.0]), jnp.array([0.0, 1.0, 0.5]))
    Array([0. , 1. , 2.5, 4. , 1.5], dtype=float32)
    """
    a, v, precision, pref = _conv_args("convolve", a, v, precision, preferred_element_type)
    return _convolve_jit(a, v, mode, precision, pref)


def correlate(a, v, mode: str = "valid", *, precision=None, preferred_element_type=None):
    """1-D cross-correlation (``v`` conjugated when complex), ``mode`` ``'valid'``,
    ``'same'`` or ``'full'``.

    >>> jnp.correlate(jnp.array([1.0, 2.0, 3.0]), jnp.array([0.0, 1.0]))
    Array([2., 3.], dtype=float32)
    """
    a, v, precision, pref = _conv_args("correlate", a, v, precision, preferred_element_type)
    return _correlate_jit(a, v, mode, precision, pref)


# ---------------------------------------------------------------------------------------------
# cross


def _take(x, i: int):
    """``x[..., i]`` (slice + squeeze)."""
    last = x.ndim - 1
    start = (0,) * last + (i,)
    limit = (*x.shape[:last], i + 1)
    return lax_shape.squeeze(lax_shape.slice(x, start, limit), (last,))


def _cross(a, b, axisa, axisb, axisc):
    a, b = util.promote_dtypes(a, b)
    na, nb = a.shape[axisa], b.shape[axisb]
    a = _moveaxis_last(a, axisa)
    b = _moveaxis_last(b, axisb)
    a, b = util.promote_shapes("cross", a, b)
    if na == 2 and nb == 2:
        # Only the z component: a0 * b1 - a1 * b0.
        left = _bmul(_take(a, 0), _take(b, 1))
        return _bsub(left, _bmul(_take(a, 1), _take(b, 0)))
    zero = core.make_concrete(np.zeros((), a.dtype), False)
    a0, a1 = _take(a, 0), _take(a, 1)
    a2 = _take(a, 2) if na == 3 else zero
    b0, b1 = _take(b, 0), _take(b, 1)
    b2 = _take(b, 2) if nb == 3 else zero
    c = [
        _bsub(_bmul(a1, b2), _bmul(a2, b1)),
        _bsub(_bmul(a2, b0), _bmul(a0, b2)),
        _bsub(_bmul(a0, b1), _bmul(a1, b0)),
    ]
    shape = np.broadcast_shapes(*(x.shape for x in c))
    c = [lax_shape.broadcast_in_dim(x, (1, *shape), tuple(range(1, len(shape) + 1))) for x in c]
    out = lax_shape.concatenate(c, 0)
    axisc = canonicalize_axis(axisc, out.ndim, fn="cross")
    perm = list(range(1, out.ndim))
    perm.insert(axisc, 0)
    return lax_shape.transpose(out, tuple(perm))


_cross.__name__ = "cross"
_cross_jit = api.jit(_cross, static_argnums=(2, 3, 4))


def cross(a, b, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis: int | None = None):
    """Cross product of 2- or 3-vectors along the given axes (2-vectors have z = 0; two
    2-vectors give the scalar z component).

    >>> jnp.cross(jnp.array([1.0, 0.0, 0.0]), jnp.array([0.0, 1.0, 0.0]))
    Array([0., 0., 1.], dtype=float32)
    """
    util.check_arraylike("cross", a, b)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = util.to_array(a), util.to_array(b)
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(
            f"cross: operands must be arrays of vectors, got shapes {a.shape} and {b.shape}."
        )
    axisa = canonicalize_axis(axisa, a.ndim, fn="cross")
    axisb = canonicalize_axis(axisb, b.ndim, fn="cross")
    na, nb = a.shape[axisa], b.shape[axisb]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError(
            "Dimension must be either 2 or 3 for cross product, got vectors of length "
            f"{na} and {nb}."
        )
    return _cross_jit(a, b, axisa, axisb, axisc)


def _bcast(x, y):
    return util.promote_shapes("cross", x, y)


def _bmul(x, y):
    x, y = _bcast(x, y)
    return lax.mul(*_same_shape(x, y))


def _bsub(x, y):
    x, y = _bcast(x, y)
    return lax.sub(*_same_shape(x, y))


def _same_shape(x, y):
    if x.ndim == 0 or y.ndim == 0 or x.shape == y.shape:
        return x, y
    shape = np.broadcast_shapes(x.shape, y.shape)
    dims = tuple(range(len(shape)))
    return (
        lax_shape.broadcast_in_dim(x, shape, dims),
        lax_shape.broadcast_in_dim(y, shape, dims),
    )


__all__ = [
    "convolve",
    "correlate",
    "cross",
    "dot",
    "inner",
    "kron",
    "matmul",
    "matrix_transpose",
    "matvec",
    "outer",
    "tensordot",
    "vdot",
    "vecdot",
    "vecmat",
]
