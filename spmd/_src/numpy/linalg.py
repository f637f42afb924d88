"""The functions of ``spmd.numpy.linalg`` (re-exported there, not into ``spmd.numpy``): norms,
``multi_dot``, the array-API spellings of ``matmul``/``tensordot``/``outer``/``cross``, and the
wrappers of the decompositions and solvers, whose primitives live in ``spmd._src.lax.linalg``.

>>> jnp.linalg.norm(jnp.array([3.0, 4.0]))
Array(5., dtype=float32)
"""

from __future__ import annotations

import numpy as np
from spmd._src import api, core, dtypes
from spmd._src.lax import elementwise as lax
from spmd._src.lax import linalg as lax_linalg
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.numpy import util
from spmd._src.numpy.einsum import _LETTERS, einsum
from spmd._src.numpy.products import _conj, cross, matmul, outer, tensordot
from spmd._src.util import canonicalize_axis

# ---------------------------------------------------------------------------------------------
# Norms, multi_dot and the array-API spellings of the products


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
    "cholesky",
    "det",
    "eigh",
    "eigvalsh",
    "inv",
    "linalg_cross",
    "linalg_matmul",
    "linalg_outer",
    "linalg_tensordot",
    "matrix_norm",
    "multi_dot",
    "norm",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "vector_norm",
]
