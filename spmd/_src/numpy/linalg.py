"""Products and contractions of ``spmd.numpy`` (``dot``, ``matmul`` and the ``@`` operator,
``einsum``, ``tensordot``, ...), 1-D ``convolve``/``correlate``, and the ``spmd.numpy.linalg``
functions (``norm`` and friends).

Every product lowers to one ``dot_general`` (plus squeezes and transposes), which gets the
operands in their own dtypes and the promoted dtype as ``preferred_element_type``, as in JAX.

>>> jnp.arange(6).reshape(2, 3) @ jnp.arange(3)
Array([ 5, 14], dtype=int32)
"""

from __future__ import annotations

import operator
import string
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
from spmd._src import api, core, dtypes
from spmd._src.lax import convolution as lax_conv
from spmd._src.lax import dot as lax_dot
from spmd._src.lax import elementwise as lax
from spmd._src.lax import linalg as lax_linalg
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.numpy import util
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


def _dot_general(a, b, contract, batch, precision, preferred):
    return lax_dot.dot_general(
        a, b, (contract, batch), precision=precision, preferred_element_type=preferred
    )


# ---------------------------------------------------------------------------------------------
# dot, vdot, matmul, vecdot


def dot(a, b, *, precision=None, preferred_element_type=None, out_sharding=None):
    """NumPy's ``dot``: a product over the last axis of ``a`` and the second-to-last of ``b``
    (the last, for 1-D ``b``); a scalar operand multiplies elementwise.

    >>> jnp.dot(jnp.ones((2, 3)), jnp.ones(3))
    Array([3., 3.], dtype=float32)
    """
    util.check_arraylike("dot", a, b)
    dt, weak = _result_type((a, b), preferred_element_type, "dot")
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
        out_sharding=out_sharding,
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
    dt, weak = _result_type((a, b), preferred_element_type, "matmul")
    a, b = util.to_array(a), util.to_array(b)
    return _broadcast_contract("matmul", a, b, a.ndim > 1, b.ndim > 1, precision, dt, weak)


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
        out_sharding=out_sharding,
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
# einsum


_LETTERS = string.ascii_letters


def _parse_interleaved(args: Sequence[Any]):
    ops, terms = [], []
    args = list(args)
    out_term = None
    if len(args) % 2 == 1:
        out_term = args.pop()
    for i in range(0, len(args), 2):
        ops.append(args[i])
        terms.append(args[i + 1])

    def term_str(t):
        s = ""
        for v in t:
            if v is Ellipsis:
                s += "..."
            else:
                k = operator.index(v)
                if not 0 <= k < len(_LETTERS):
                    raise ValueError(
                        f"einsum: subscript {k} is out of range; subscripts must be integers in "
                        f"[0, {len(_LETTERS)})."
                    )
                s += _LETTERS[k]
        return s

    spec = ",".join(term_str(t) for t in terms)
    if out_term is not None:
        spec += "->" + term_str(out_term)
    return spec, ops


def _parse_einsum(spec: str, shapes: Sequence[tuple[int, ...]]):
    """Input labels per operand and output labels, with ellipses replaced by fresh letters."""
    spec = spec.replace(" ", "")
    explicit = "->" in spec
    if explicit:
        ins, out = spec.split("->", 1)
        if "->" in out:
            raise ValueError("einsum: subscripts may contain '->' only once.")
    else:
        ins, out = spec, None
    terms = ins.split(",")
    if len(terms) != len(shapes):
        raise ValueError(
            f"Number of einsum subscripts, {len(terms)}, must be equal to the number of "
            f"operands, {len(shapes)}."
        )
    for t in (*terms, out or ""):
        for c in t.replace("...", ""):
            if c not in _LETTERS:
                raise ValueError(f"Character '{c}' is not a valid symbol.")
    used = set(ins.replace("...", "").replace(",", "")) | set((out or "").replace("...", ""))
    fresh = [c for c in _LETTERS if c not in used]
    n_ell = 0
    for t, s in zip(terms, shapes):
        if "..." in t:
            n_ell = max(n_ell, len(s) - (len(t) - 3))
    ell = "".join(fresh[:n_ell])
    labels = []
    for i, (t, s) in enumerate(zip(terms, shapes)):
        if "..." in t:
            k = len(s) - (len(t) - 3)
            if k < 0:
                raise ValueError(
                    f"Einstein sum subscript '{t}' does not contain the correct number of "
                    f"indices for operand {i}."
                )
            t = t.replace("...", ell[n_ell - k :] if k else "")
        if len(t) != len(s):
            raise ValueError(
                f"Einstein sum subscript '{t}' does not contain the correct number of indices "
                f"for operand {i}."
            )
        labels.append(t)
    counts = Counter("".join(labels))
    if out is None:
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ell))
    else:
        out = out.replace("...", ell) if "..." in out else out
        for c in out:
            if out.count(c) > 1:
                raise ValueError(f"Output character '{c}' appeared more than once in the output.")
            if c not in counts:
                raise ValueError(f"Output character '{c}' did not appear in the input")
    sizes: dict[str, int] = {}
    for i, (t, s) in enumerate(zip(labels, shapes)):
        for c, d in zip(t, s):
            prev = sizes.get(c)
            if prev is None or prev == 1:
                sizes[c] = d
            elif d != 1 and d != prev:
                raise ValueError(
                    f"Size of label '{c}' for operand {i} ({d}) does not match previous terms "
                    f"({prev})."
                )
    return labels, out, sizes


def einsum(
    subscripts,
    /,
    *operands,
    out=None,
    optimize="auto",
    precision=None,
    preferred_element_type=None,
    out_sharding=None,
):
    """Einstein summation: ``jnp.einsum('ij,jk->ik', a, b)`` is ``a @ b``.

    Accepts ``...`` and the interleaved form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``. Operands
    are contracted two at a time, each pair by one ``dot_general``; repeated labels take
    diagonals and labels of one operand only are summed first.

    >>> jnp.einsum("ij,ij->i", jnp.ones((2, 3)), jnp.ones((2, 3)))
    Array([3., 3.], dtype=float32)
    """
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    if isinstance(subscripts, str):
        spec, ops = subscripts, list(operands)
    else:
        spec, ops = _parse_interleaved((subscripts, *operands))
    util.check_arraylike("einsum", *ops)
    ops = [util.to_array(x) for x in ops]
    labels, out_labels, _ = _parse_einsum(spec, [x.shape for x in ops])
    dt, weak = _result_type(ops, preferred_element_type, "einsum")
    env = _EinsumEnv(dt, precision)
    terms = list(zip(ops, labels))
    if len(terms) == 1:
        x, names = terms[0]
        x, names = env.single(x, names, out_labels)
        terms = [(x, names)]
    if len(terms) > 1:
        sizes = {}
        for x, names in terms:
            for c, d in zip(names, x.shape):
                sizes[c] = max(sizes.get(c, 1), d)
        for i, j in _contraction_path(labels, sizes, out_labels):
            # As in JAX (after opt_einsum), the later operand is the left one.
            rhs, lhs = terms[i], terms[j]
            rest = [t for k, t in enumerate(terms) if k not in (i, j)]
            keep = set(out_labels).union(*(set(n) for _, n in rest))
            if rest:
                # An intermediate keeps its labels in order of appearance, left operand first.
                result = "".join(dict.fromkeys(c for c in lhs[1] + rhs[1] if c in keep))
            else:
                result = out_labels
            terms = [*rest, env.pair(lhs, rhs, keep, result)]
    x, names = terms[0]
    if names != out_labels:
        x = lax_shape.transpose(x, tuple(names.index(c) for c in out_labels))
    return _finish(x, dt, weak)


def _contraction_path(labels: list[str], sizes: dict[str, int], out: str) -> list[tuple]:
    """The order of pairwise contractions, as positions in the shrinking operand list (each
    result is appended at the end).

    Up to 5 operands every order is searched for the fewest multiply-adds (ties go to the
    first order found); beyond that, each step takes the pair with the smallest result.
    """

    def step(terms, i, j):
        rest = [t for k, t in enumerate(terms) if k not in (i, j)]
        keep = set(out).union(*(set(t) for t in rest))
        lhs, rhs = terms[j], terms[i]
        new = "".join(dict.fromkeys(c for c in lhs + rhs if c in keep))
        union = set(lhs) | set(rhs)
        factor = 2 if union - set(new) else 1
        return [*rest, new], factor * prod(sizes[c] for c in union), prod(sizes[c] for c in new)

    n = len(labels)
    if n <= 5:
        best: list = [None, None]

        def search(terms, cost, path):
            if best[0] is not None and cost >= best[0]:
                return
            if len(terms) == 1:
                best[0], best[1] = cost, path
                return
            for i in range(len(terms)):
                for j in range(i + 1, len(terms)):
                    new_terms, c, _ = step(terms, i, j)
                    search(new_terms, cost + c, [*path, (i, j)])

        search(list(labels), 0, [])
        return best[1]
    terms, path = list(labels), []
    while len(terms) > 1:
        cands = []
        for i in range(len(terms)):
            for j in range(i + 1, len(terms)):
                new_terms, c, size = step(terms, i, j)
                cands.append((size, c, i, j, new_terms))
        size, c, i, j, terms = min(cands, key=lambda t: t[:4])
        path.append((i, j))
    return path


class _EinsumEnv:
    """The steps of an einsum contraction, in the accumulation dtype ``dt``."""

    def __init__(self, dt: np.dtype, precision: Any) -> None:
        self.dt = dt
        self.precision = precision

    def sum(self, x, axes):
        if dtypes.promote_types(x.dtype, self.dt) != x.dtype:
            x = lax.convert_element_type(x, self.dt)
        if x.dtype == np.bool_:
            return lax_red.reduce_or(x, axes)
        return lax_red.reduce_sum(x, axes)

    def sum_uniques(self, x, names, uniques):
        if uniques:
            x = self.sum(x, tuple(names.index(c) for c in uniques))
            names = "".join(c for c in names if c not in uniques)
        return x, names

    def sum_repeats(self, x, names, keep):
        for c, n in Counter(names).items():
            if n < 2:
                continue
            axes = [i for i, d in enumerate(names) if d == c]
            sub = tuple(x.shape[a] for a in axes)
            iotas = [lax_shape.broadcasted_iota(np.uint32, sub, k) for k in range(len(axes))]
            mask = lax.eq(iotas[0], iotas[1])
            for k in range(2, len(axes)):
                mask = lax.bitwise_and(mask, lax.eq(iotas[k - 1], iotas[k]))
            if x.ndim > len(axes):
                mask = lax_shape.broadcast_in_dim(mask, x.shape, tuple(axes))
            zeros = lax_shape.full(x.shape, 0, x.dtype)
            x = lax.select_n(mask, zeros, x)
            if c in keep:
                x = self.sum(x, tuple(axes[:-1]))
                drop = set(axes[:-1])
            else:
                x = self.sum(x, tuple(axes))
                drop = set(axes)
            names = "".join(d for i, d in enumerate(names) if i not in drop)
        return x, names

    def single(self, x, names, out_labels):
        counts = Counter(names)
        uniques = [c for c in sorted(counts) if counts[c] == 1 and c not in out_labels]
        x, names = self.sum_uniques(x, names, uniques)
        return self.sum_repeats(x, names, out_labels)

    @staticmethod
    def _filter_singletons(x, names, other, other_names):
        # A size-1 axis facing a larger axis of the same label broadcasts: drop it.
        drop = [
            i
            for i, c in enumerate(names)
            if x.shape[i] == 1 and c in other_names and other.shape[other_names.index(c)] != 1
        ]
        if drop:
            x = lax_shape.squeeze(x, drop)
            names = "".join(c for i, c in enumerate(names) if i not in drop)
        return x, names

    def pair(self, lhs_term, rhs_term, keep, final):
        (lhs, ln), (rhs, rn) = lhs_term, rhs_term
        lhs, ln = self._filter_singletons(lhs, ln, rhs, rn)
        rhs, rn = self._filter_singletons(rhs, rn, lhs, ln)
        lc, rc = Counter(ln), Counter(rn)
        contracted = sorted((set(ln) | set(rn)) - keep)
        lhs, ln = self.sum_uniques(lhs, ln, [c for c in contracted if lc[c] == 1 and not rc[c]])
        rhs, rn = self.sum_uniques(rhs, rn, [c for c in contracted if rc[c] == 1 and not lc[c]])
        lhs, ln = self.sum_repeats(lhs, ln, keep | set(rn))
        rhs, rn = self.sum_repeats(rhs, rn, keep | set(ln))
        contracted = [c for c in contracted if c in ln and c in rn]
        both = set(ln) & set(rn)
        batch = [c for c in final if c in both and c not in contracted]
        deleted = set(batch) | set(contracted)
        lfree = "".join(c for c in ln if c not in deleted)
        rfree = "".join(c for c in rn if c not in deleted)
        bstr = "".join(batch)
        l_contract = tuple(ln.index(c) for c in contracted)
        r_contract = tuple(rn.index(c) for c in contracted)
        l_batch = tuple(ln.index(c) for c in batch)
        r_batch = tuple(rn.index(c) for c in batch)
        # Of the two operand orders, prefer one whose result needs no transpose.
        if bstr + rfree + lfree == final:
            out = _dot_general(
                rhs, lhs, (r_contract, l_contract), (r_batch, l_batch), self.precision, self.dt
            )
            return out, bstr + rfree + lfree
        out = _dot_general(
            lhs, rhs, (l_contract, r_contract), (l_batch, r_batch), self.precision, self.dt
        )
        names = bstr + lfree + rfree
        if names != final:
            out = lax_shape.transpose(out, tuple(names.index(c) for c in final))
            names = final
        return out, names


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


# ---------------------------------------------------------------------------------------------
# spmd.numpy.linalg (re-exported there; not in this module's __all__)


def _norm(x, ord, axis, keepdims):
    x = util.promote_dtypes_inexact(x)[0]
    nd = x.ndim
    flat = axis is None
    axes = tuple(range(nd)) if axis is None else axis
    if flat and ord is None:
        return _fro(x, axes, keepdims)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes, keepdims)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims)
    raise ValueError(
        f"Improper number of axes for norm: axis={axes}. Pass one axis to compute a "
        "vector-norm, or two axes to compute a matrix-norm."
    )


_norm.__name__ = "norm"
_norm_jit = api.jit(_norm, static_argnums=(1, 2, 3))


def _keep(x, axes, keepdims):
    return lax_shape.expand_dims(x, sorted(axes)) if keepdims else x


def _sum(x, axes, keepdims, upcast=True):
    """``jnp.sum``: 16-bit floats accumulate in float32 (as XLA on CPU) and round back."""
    acc = dtypes.reduction_accum_dtype(x.dtype) if upcast else x.dtype
    dt = x.dtype
    if acc != dt:
        x = lax.convert_element_type(x, acc)
    r = _keep(lax_red.reduce_sum(x, axes), axes, keepdims)
    return lax.convert_element_type(r, dt) if acc != dt else r


def _max0(x, axes, keepdims):
    """``jnp.max(..., initial=0)``."""
    r = lax_red.reduce_max(x, axes)
    return _keep(lax.max(_zero(r), r), axes, keepdims)


def _min(x, axes, keepdims):
    return _keep(lax_red.reduce_min(x, axes), axes, keepdims)


def _abs_sq(x):
    if dtypes.issubdtype(x.dtype, np.complexfloating):
        return lax.real(lax.mul(x, lax.conj(x)))
    return lax.mul(x, x)


def _fro(x, axes, keepdims):
    return lax.sqrt(_sum(_abs_sq(x), axes, keepdims))


def _zero(x):
    return core.make_concrete(np.zeros((), x.dtype), False)


def _vector_norm(x, ord, axes, keepdims):
    if ord is None or ord == 2:
        return _fro(x, axes, keepdims)
    if isinstance(ord, str):
        raise ValueError(f"Invalid order '{ord}' for vector norm.")
    if ord == 0:
        nz = lax.ne(x, _zero(x))
        nz = lax.convert_element_type(nz, np.int32)
        nz = lax.convert_element_type(nz, _real_dtype(x.dtype))
        return _sum(nz, axes, keepdims, upcast=False)
    ax = lax.abs(x)
    if ord == np.inf:
        return _max0(ax, axes, keepdims)
    if ord == -np.inf:
        return _min(ax, axes, keepdims)
    if ord == 1:
        return _sum(ax, axes, keepdims)
    p = core.make_concrete(np.asarray(ord, ax.dtype), False)
    inv = core.make_concrete(np.asarray(1.0 / ord, ax.dtype), False)
    return lax.pow(_sum(lax.pow(ax, p), axes, keepdims), inv)


def _matrix_norm(x, ord, axes, keepdims):
    row, col = axes
    if row == col:
        raise ValueError(f"norm: duplicate axes given, got axis={axes}.")
    if ord is None or ord == "fro":
        return _fro(x, axes, keepdims)
    if ord in (1, -1, np.inf, -np.inf):
        if ord in (np.inf, -np.inf):
            row, col = col, row
        # Sum |x| over `row`, then the max (or min) over `col` of what is left.
        s = _sum(lax.abs(x), (row,), keepdims)
        c = col - 1 if col > row and not keepdims else col
        return _max0(s, (c,), keepdims) if ord > 0 else _min(s, (c,), keepdims)
    if ord in (2, -2, "nuc"):
        y = lax_shape.transpose(x, (*(i for i in range(x.ndim) if i not in axes), row, col))
        sv = _svdvals_jit(y)
        last = (sv.ndim - 1,)
        if ord == 2:
            r = _max0(sv, last, False)
        elif ord == -2:
            r = _min(sv, last, False)
        else:
            r = _sum(sv, last, False)
        return _keep(r, axes, keepdims)
    raise ValueError(f"Invalid order '{ord}' for matrix norm.")


def norm(x, ord=None, axis=None, keepdims: bool = False):
    """Vector or matrix norm.

    ``axis`` None: the 2-norm of the flattened array when ``ord`` is None, else a vector
    norm (1-D) or matrix norm (2-D). ``ord`` for vectors: None/2, 1, inf, -inf, 0 or any
    p; for matrices: None/'fro', 'nuc', 1, -1, 2, -2, inf, -inf.

    >>> jnp.linalg.norm(jnp.array([3.0, 4.0]))
    Array(5., dtype=float32)
    """
    util.check_arraylike("jnp.linalg.norm", x)
    x = util.to_array(x)
    if axis is not None:
        if isinstance(axis, (list, tuple)):
            axis = tuple(canonicalize_axis(a, x.ndim, fn="norm") for a in axis)
        else:
            axis = (canonicalize_axis(axis, x.ndim, fn="norm"),)
    if isinstance(ord, (float, np.floating)) and float(ord).is_integer():
        ord = int(ord) if np.isfinite(ord) else float(ord)
    return _norm_jit(x, ord, axis, bool(keepdims))


def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2):
    """Vector norm over ``axis`` (all axes, flattened, when None).

    >>> jnp.linalg.vector_norm(jnp.ones((2, 2)), ord=1)
    Array(4., dtype=float32)
    """
    util.check_arraylike("jnp.linalg.vector_norm", x)
    x = util.promote_dtypes_inexact(x)[0]
    if axis is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axis, (list, tuple)):
        axes = tuple(canonicalize_axis(a, x.ndim, fn="vector_norm") for a in axis)
    else:
        axes = (canonicalize_axis(axis, x.ndim, fn="vector_norm"),)
    return _vector_norm(x, ord, axes, bool(keepdims))


def matrix_norm(x, /, *, keepdims: bool = False, ord="fro"):
    """Matrix norm over the last two axes.

    >>> jnp.linalg.matrix_norm(jnp.ones((2, 2)))
    Array(2., dtype=float32)
    """
    util.check_arraylike("jnp.linalg.matrix_norm", x)
    return norm(x, ord=ord, axis=(-2, -1), keepdims=keepdims)


def linalg_matmul(x1, x2, /, *, precision=None, preferred_element_type=None):
    """``jnp.linalg.matmul``: the ``@`` product."""
    return matmul(x1, x2, precision=precision, preferred_element_type=preferred_element_type)


def linalg_tensordot(x1, x2, /, *, axes=2, precision=None, preferred_element_type=None):
    """``jnp.linalg.tensordot``: ``tensordot`` with keyword-only ``axes``."""
    return tensordot(
        x1, x2, axes, precision=precision, preferred_element_type=preferred_element_type
    )


def linalg_outer(x1, x2, /):
    """``jnp.linalg.outer``: outer product of two 1-D arrays."""
    util.check_arraylike("jnp.linalg.outer", x1, x2)
    if np.ndim(x1) != 1 or np.ndim(x2) != 1:
        raise ValueError(
            f"Input arrays must be one-dimensional, but they are x1.ndim={np.ndim(x1)} and "
            f"x2.ndim={np.ndim(x2)}"
        )
    return outer(x1, x2)


def linalg_cross(x1, x2, /, *, axis=-1):
    """``jnp.linalg.cross``: cross product of 3-vectors along ``axis``."""
    util.check_arraylike("jnp.linalg.cross", x1, x2)
    if np.shape(x1)[axis] != 3 or np.shape(x2)[axis] != 3:
        raise ValueError(
            "Both input arrays must be (arrays of) 3-dimensional vectors, but they have "
            f"x1.shape[axis]={np.shape(x1)[axis]} and x2.shape[axis]={np.shape(x2)[axis]}."
        )
    return cross(x1, x2, axis=axis)


def multi_dot(arrays, *, precision=None):
    """Product of a chain of matrices (first may be 1-D, last may be 1-D), left to right.

    >>> jnp.linalg.multi_dot([jnp.ones(2), jnp.ones((2, 3)), jnp.ones(3)])
    Array(6., dtype=float32)
    """
    arrays = list(arrays)
    if len(arrays) < 2:
        raise ValueError(f"multi_dot requires at least two arrays, got {len(arrays)}.")
    util.check_arraylike("multi_dot", *arrays)
    arrays = [util.to_array(x) for x in arrays]
    if arrays[0].ndim not in (1, 2) or arrays[-1].ndim not in (1, 2):
        raise ValueError("multi_dot: the first and last arrays must be 1-D or 2-D.")
    if any(x.ndim != 2 for x in arrays[1:-1]):
        raise ValueError("multi_dot: the arrays between the first and last must be 2-D.")
    # One einsum over the chain, so the contraction order is chosen by size.
    letters = _LETTERS[: len(arrays) + 1]
    terms = [letters[i : i + 2] for i in range(len(arrays))]
    if arrays[0].ndim == 1:
        terms[0] = terms[0][1:]
    if arrays[-1].ndim == 1:
        terms[-1] = terms[-1][:1]
    out = terms[0][:-1] + terms[-1][1:]
    return einsum(",".join(terms) + "->" + out, *arrays, precision=precision)


# ---------------------------------------------------------------------------------------------
# Decompositions and solvers: the primitives live in lax (spmd._src.lax.linalg); these wrappers
# check and promote their arguments.


def _inexact_matrix(fn: str, x, *, square: bool = True):
    util.check_arraylike(fn, x)
    x = util.promote_dtypes_inexact(x)[0]
    if x.ndim < 2:
        raise ValueError(f"{fn}: argument must have at least 2 dimensions, got shape {x.shape}.")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{fn}: argument must be a batch of square matrices, got shape {x.shape}.")
    return x


_real_dtype = lax_linalg._real_dtype


def _svdvals(x):
    return lax_linalg.svd(x, full_matrices=True, compute_uv=False)


_svdvals.__name__ = "svd"  # JAX's norm calls a jitted svd
_svdvals_jit = api.jit(_svdvals)


def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False):
    """Singular value decomposition ``a = u @ diag(s) @ vh`` of (a batch of) matrices.

    >>> jnp.linalg.svd(jnp.eye(2), compute_uv=False)
    Array([1., 1.], dtype=float32)
    """
    x = _inexact_matrix("svd", a, square=False)
    return lax_linalg.svd(x, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))


def svdvals(x, /):
    """Singular values, in descending order."""
    return svd(x, compute_uv=False)


def det(a):
    """Determinant of (a batch of) square matrices.

    >>> jnp.linalg.det(jnp.array([[1.0, 2.0], [3.0, 4.0]]))
    Array(-2., dtype=float32)
    """
    return lax_linalg.det(_inexact_matrix("det", a))


def inv(a):
    """Inverse of (a batch of) square matrices."""
    return lax_linalg.inv(_inexact_matrix("inv", a))


def slogdet(a):
    """(sign, log|det|) of (a batch of) square matrices."""
    return lax_linalg.slogdet(_inexact_matrix("slogdet", a))


def solve(a, b):
    """Solve ``a @ x = b`` for ``x`` (``b`` a vector, or a batch of matrices).

    >>> jnp.linalg.solve(jnp.array([[2.0, 0.0], [0.0, 4.0]]), jnp.array([2.0, 4.0]))
    Array([1., 1.], dtype=float32)
    """
    util.check_arraylike("solve", a, b)
    a, b = util.promote_dtypes_inexact(a, b)
    a = _inexact_matrix("solve", a)
    if b.ndim == a.ndim - 1:
        if b.shape != a.shape[:-1]:
            raise ValueError(f"solve: b of shape {b.shape} does not match a of shape {a.shape}.")
    elif b.ndim == a.ndim:
        if b.shape[:-2] != a.shape[:-2] or b.shape[-2] != a.shape[-1]:
            raise ValueError(f"solve: b of shape {b.shape} does not match a of shape {a.shape}.")
    else:
        raise ValueError(
            f"solve: b must have ndim {a.ndim - 1} or {a.ndim} for a of shape {a.shape}, got "
            f"shape {b.shape}."
        )
    return lax_linalg.solve(a, b)


def eigh(a, UPLO: str | None = None, symmetrize_input: bool = True):
    """Eigenvalues (ascending) and eigenvectors of (a batch of) Hermitian matrices.

    Returns ``(eigenvalues, eigenvectors)``.
    """
    x = _inexact_matrix("eigh", a)
    lower = UPLO is None or UPLO == "L"
    v, w = lax_linalg.eigh(x, lower=lower, symmetrize_input=symmetrize_input)
    return w, v


def eigvalsh(a, UPLO: str | None = "L"):
    """Eigenvalues (ascending) of (a batch of) Hermitian matrices."""
    return eigh(a, UPLO)[0]


def cholesky(a, *, upper: bool = False):
    """Cholesky factor of (a batch of) positive-definite matrices (lower unless ``upper``),
    of the Hermitian part ``(a + a^H) / 2`` as in JAX.

    >>> jnp.linalg.cholesky(jnp.array([[4.0, 0.0], [0.0, 9.0]]))
    Array([[2., 0.],
           [0., 3.]], dtype=float32)
    """
    x = _inexact_matrix("cholesky", a)
    low = lax_linalg.cholesky(x)
    if upper:
        return lax_shape.transpose(_conj(low), (*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))
    return low


def qr(a, mode: str = "reduced"):
    """QR decomposition; ``mode`` ``'reduced'``, ``'complete'`` or ``'r'``."""
    x = _inexact_matrix("qr", a, square=False)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"Unsupported QR decomposition mode '{mode}'")
    q, r = lax_linalg.qr(x, full_matrices=mode == "complete")
    return r if mode == "r" else (q, r)


__all__ = [
    "convolve",
    "correlate",
    "cross",
    "dot",
    "einsum",
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
