"""The functions of ``spmd.numpy.linalg`` (re-exported there, not into ``spmd.numpy``): norms,
``multi_dot``, the array-API spellings of ``matmul``/``tensordot``/``outer``/``cross``, and the
wrappers of the decompositions and solvers, whose primitives live in ``spmd._src.lax.linalg``.

>>> jnp.linalg.norm(jnp.array([3.0, 4.0]))
Array(5., dtype=float32)
"""

from __future__ import annotations

import operator
from typing import Any, NamedTuple

import numpy as np
from spmd._src import api, core, dtypes
from spmd._src.custom_derivatives import custom_jvp
from spmd._src.lax import elementwise as lax
from spmd._src.lax import linalg as lax_linalg
from spmd._src.lax import reductions as lax_red
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.dot import Precision
from spmd._src.numpy import creation, lax_numpy, reductions, shape_ops, ufuncs, util
from spmd._src.numpy.einsum import _LETTERS, einsum
from spmd._src.numpy.products import _conj, cross, matmul, outer, tensordot
from spmd._src.util import canonicalize_axis, prod

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


# ---------------------------------------------------------------------------------------------
# The rest of jnp.linalg, composed from the primitives: diagonal and trace of the last two axes,
# eig and eigvals, cond, pinv, lstsq, matrix_rank, matrix_power, tensorinv and tensorsolve.


def _eps(dt) -> float:
    return float(np.finfo(_real_dtype(np.dtype(dt))).eps)


def _to_real_array(x, dt):
    """``x`` (a tolerance) as an array of the real dtype ``dt``."""
    return util.convert(util.to_array(x), _real_dtype(np.dtype(dt)))


def _last(x, i: int):
    """``x[..., i]`` for a static ``i``."""
    i = i % x.shape[-1]
    return lax_shape.squeeze(lax_shape.slice_in_dim(x, i, i + 1, axis=x.ndim - 1), (x.ndim - 1,))


def _mH(x):
    return _conj(shape_ops.swapaxes(x, -1, -2))


def _check_tolerance_shape(fn: str, name: str, tol, values_shape) -> None:
    # The tolerance applies to each matrix: it broadcasts against the batch dimensions.
    try:
        np.broadcast_shapes((*np.shape(tol), 1), values_shape)
    except ValueError:
        raise TypeError(
            f"{fn}: {name} of shape {np.shape(tol)} does not broadcast against the batch of "
            f"{values_shape[:-1]} matrices (singular values of shape {values_shape})."
        ) from None


def diagonal(x, /, *, offset: int = 0):
    """The ``offset``-th diagonals of (a batch of) matrices in the last two axes.

    >>> jnp.linalg.diagonal(jnp.arange(6).reshape(2, 3), offset=1)
    Array([1, 5], dtype=int32)
    """
    util.check_arraylike("jnp.linalg.diagonal", x)
    x = util.to_array(x)
    if x.ndim < 2:
        raise ValueError(
            "jnp.linalg.diagonal requires an array of at least two dimensions; got x.shape="
            f"{x.shape}."
        )
    try:
        offset = operator.index(offset)
    except TypeError:
        raise TypeError(
            f"jnp.linalg.diagonal: offset must be an integer, got {offset!r}."
        ) from None
    return lax_numpy.diagonal(x, offset, -2, -1)


def trace(x, /, *, offset: int = 0, dtype=None):
    """Sum of the ``offset``-th diagonals of (a batch of) matrices in the last two axes; ints
    and bools sum in (at least) the default int, as ``jnp.sum`` does.

    >>> jnp.linalg.trace(jnp.arange(9).reshape(3, 3), offset=-1)
    Array(10, dtype=int32)
    """
    util.check_arraylike("jnp.linalg.trace", x)
    x = util.to_array(x)
    if x.ndim < 2:
        raise ValueError(
            f"jnp.linalg.trace: x must have at least 2 dimensions (axis -2 is out of bounds for "
            f"array of dimension {x.ndim}); got x.shape={x.shape}."
        )
    if isinstance(offset, bool) or not (
        util.is_arraylike(offset)
        and util.ndim(offset) == 0
        and dtypes.issubdtype(util._value_dtype(offset), np.integer)
    ):
        # JAX's ValueError: the offset may be traced, but it must be a scalar integer.
        raise ValueError(f"jnp.linalg.trace: offset must be a scalar integer; got {offset!r}.")
    return lax_numpy.trace(x, offset, -2, -1, dtype)


class EigResult(NamedTuple):
    """``jnp.linalg.eig``'s result: ``eigenvalues`` and the right ``eigenvectors`` (columns)."""

    eigenvalues: Any
    eigenvectors: Any


def _eig_input(fn: str, a):
    util.check_arraylike(fn, a)
    a = util.promote_dtypes_inexact(a)[0]
    lax_linalg._eig_check(core.get_aval(a), fn)
    return a


def eig(a):
    """Eigenvalues and right eigenvectors of (a batch of) general square matrices, as complex
    arrays: ``a @ v == v * w``. The eigenvalues come in no particular order; each eigenvector
    has unit norm and its largest component real. Returns ``EigResult(eigenvalues,
    eigenvectors)``. Not differentiable (use ``eigvals`` for the eigenvalues' derivatives).

    >>> jnp.linalg.eig(jnp.array([[2.0, 0.0], [0.0, 3.0]])).eigenvalues
    Array([2.+0.j, 3.+0.j], dtype=complex64)
    """
    a = _eig_input("jnp.linalg.eig", a)
    w, v = lax_linalg.eig(a, compute_left_eigenvectors=False)
    return EigResult(w, v)


def eigvals(a):
    """Eigenvalues of (a batch of) general square matrices, complex, in no particular order.

    >>> jnp.linalg.eigvals(jnp.array([[0.0, 1.0], [-1.0, 0.0]]))
    Array([0.+1.j, 0.-1.j], dtype=complex64)
    """
    a = _eig_input("jnp.linalg.eigvals", a)
    [w] = lax_linalg.eig(a, compute_left_eigenvectors=False, compute_right_eigenvectors=False)
    return w


_COND_NORM_ORDERS = (1, -1, np.inf, -np.inf, "fro", "nuc")


def cond(x, p=None):
    """Condition number of (a batch of) matrices in the norm ``p``: None or 2 (the ratio of
    the largest to the smallest singular value), -2 (its inverse), or for square matrices
    1, -1, inf, -inf, 'fro', 'nuc' (``norm(x, p) * norm(inv(x), p)``, inf where ``x`` is
    singular without NaN entries).

    >>> jnp.linalg.cond(jnp.array([[1.0, 0.0], [0.0, 4.0]]))
    Array(4., dtype=float32)
    """
    util.check_arraylike("cond", x)
    x = util.promote_dtypes_inexact(x)[0]
    if x.ndim < 2:
        raise ValueError(f"jnp.linalg.cond: input array must be at least 2D; got x.shape={x.shape}")
    if x.size == 0:
        raise ValueError(f"jnp.linalg.cond: input array must not be empty; got x.shape={x.shape}")
    if p is None or p == 2:
        s = _svdvals_jit(x)
        return ufuncs.true_divide(_last(s, 0), _last(s, -1))
    if p == -2:
        s = _svdvals_jit(x)
        r = ufuncs.true_divide(_last(s, -1), _last(s, 0))
    else:
        if x.shape[-1] != x.shape[-2]:
            raise ValueError(
                f"jnp.linalg.cond: for p={p!r}, array must be square; got x.shape={x.shape}"
            )
        if p not in _COND_NORM_ORDERS:
            raise ValueError(
                f"jnp.linalg.cond: invalid order p={p!r} for a matrix norm; use None, 2, -2, 1, "
                "-1, inf, -inf, 'fro' or 'nuc'."
            )
        axes = (-2, -1)
        r = ufuncs.multiply(norm(x, p, axes), norm(inv(x), p, axes))
    # A singular matrix: inv's infinities and NaNs make the product NaN; its condition number
    # is inf (a NaN that comes from a NaN entry stays NaN).
    clean = ufuncs.logical_not(reductions.any(ufuncs.isnan(x), axis=(-2, -1)))
    return lax_numpy.where(ufuncs.logical_and(ufuncs.isnan(r), clean), np.inf, r)


def _hmm(a, b):
    # pinv (and its derivative) and lstsq multiply at HIGHEST precision, as JAX's, whatever
    # jax_default_matmul_precision says.
    return matmul(a, b, precision=Precision.HIGHEST)


def _pinv_body(a, rtol, hermitian: bool):
    rtol = lax_shape.expand_dims(rtol, (rtol.ndim,))
    if hermitian:
        v, w = lax_linalg.eigh(a)
        mag = ufuncs.absolute(w)
        cutoff = ufuncs.multiply(rtol, reductions.max(mag, axis=-1, keepdims=True))
        w = lax_numpy.where(ufuncs.greater(mag, cutoff), w, np.inf)
        w = util.convert(w, a.dtype)
        out = _hmm(v, ufuncs.true_divide(_mH(v), lax_shape.expand_dims(w, (w.ndim,))))
    else:
        u, s, vh = lax_linalg.svd(a, full_matrices=False)
        cutoff = ufuncs.multiply(rtol, lax_shape.slice_in_dim(s, 0, 1, axis=s.ndim - 1))
        # Singular values at or below the cutoff count as zero: dividing by inf drops them.
        s = lax_numpy.where(ufuncs.greater(s, cutoff), s, np.inf)
        s = util.convert(s, a.dtype)
        out = _hmm(_mH(vh), ufuncs.true_divide(_mH(u), lax_shape.expand_dims(s, (s.ndim,))))
    return util.convert(out, a.dtype)


_pinv_body.__name__ = "_pinv"
_pinv = custom_jvp(_pinv_body, nondiff_argnums=(2,))


@_pinv.defjvp
def _pinv_jvp(hermitian, primals, tangents):
    # The derivative of the pseudo-inverse where the rank does not change (Golub and Pereyra):
    # dP = -P dA P + P P^H dA^H (I - A P) + (I - P A) dA^H P^H P; rtol has no derivative.
    a, rtol = primals
    da = tangents[0]
    p = _pinv(a, rtol, hermitian)
    da_h = _mH(da)
    p_h = _mH(p)
    m, n = a.shape[-2:]
    i_m = creation.eye(m, dtype=a.dtype)
    i_n = creation.eye(n, dtype=a.dtype)
    term1 = ufuncs.negative(_hmm(_hmm(p, da), p))
    term2 = _hmm(_hmm(p, p_h), _hmm(da_h, ufuncs.subtract(i_m, _hmm(a, p))))
    term3 = _hmm(ufuncs.subtract(i_n, _hmm(p, a)), _hmm(da_h, _hmm(p_h, p)))
    return p, ufuncs.add(ufuncs.add(term1, term2), term3)


def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None):
    """Moore-Penrose pseudo-inverse of (a batch of) matrices, from the SVD (or, when
    ``hermitian``, the eigendecomposition): singular values at or below ``rtol`` times the
    largest count as zero. ``rtol`` defaults to ``10 * max(m, n) * eps``; ``rcond`` is its
    older name.

    >>> jnp.linalg.pinv(jnp.array([[2.0, 0.0], [0.0, 0.0]]))
    Array([[0.5, 0. ],
           [0. , 0. ]], dtype=float32)
    """
    util.check_arraylike("jnp.linalg.pinv", a)
    if rcond is not None:
        if rtol is not None:
            raise ValueError("jnp.linalg.pinv: only one of rtol and rcond may be specified.")
        rtol = rcond
    a = util.promote_dtypes_inexact(a)[0]
    if a.ndim < 2:
        raise ValueError(
            f"jnp.linalg.pinv: a must have at least 2 dimensions; got a.shape={a.shape}."
        )
    *batch, m, n = a.shape
    if hermitian and m != n:
        raise TypeError(
            f"jnp.linalg.pinv: hermitian=True needs (a batch of) square matrices; got a.shape="
            f"{a.shape}."
        )
    if m == 0 or n == 0:
        return creation.zeros((*batch, n, m), a.dtype)
    real = _real_dtype(a.dtype)
    if rtol is None:
        # Rounded as a float32 product, as JAX computes it.
        rtol = np.asarray(10.0 * max(m, n), real) * np.asarray(_eps(real), real)
    rtol = _to_real_array(rtol, real)
    _check_tolerance_shape("jnp.linalg.pinv", "rtol", rtol, (*batch, min(m, n)))
    if hermitian:
        # The result is the pseudo-inverse of the Hermitian part (what eigh reads); symmetrizing
        # here also gives the derivative JAX's has: along the Hermitian part of the tangent.
        a = lax_linalg._symmetrize(a)
    return _pinv(a, rtol, bool(hermitian))


def matrix_rank(M, rtol=None, *, hermitian: bool = False, tol=None):
    """Rank of (a batch of) matrices: the number of singular values above a threshold. By
    default the threshold is ``max(s) * max(m, n) * eps``; a given ``rtol`` (or ``tol``) is
    used as the threshold itself, as in JAX. For fewer than 2 dimensions: 1 if any entry is
    nonzero, else 0.

    >>> jnp.linalg.matrix_rank(jnp.array([[1.0, 2.0], [2.0, 4.0]]))
    Array(1, dtype=int32)
    """
    util.check_arraylike("jnp.linalg.matrix_rank", M)
    if tol is not None:
        if rtol is not None:
            raise ValueError("jnp.linalg.matrix_rank: only one of tol or rtol may be specified.")
        rtol = tol
    M = util.promote_dtypes_inexact(M)[0]
    if M.ndim < 2:
        nonzero = ufuncs.not_equal(M, 0)
        return util.convert(reductions.any(nonzero), np.int32)
    *batch, m, n = M.shape
    if hermitian:
        if m != n:
            raise TypeError(
                f"jnp.linalg.matrix_rank: hermitian=True needs (a batch of) square matrices; got "
                f"M.shape={M.shape}."
            )
        s = ufuncs.absolute(lax_linalg.eigh(M)[1])
    else:
        s = lax_linalg.svd(M, full_matrices=False, compute_uv=False)
    if rtol is None:
        if m == 0 or n == 0:
            raise ValueError(
                "jnp.linalg.matrix_rank: the default tolerance needs the largest singular value, "
                f"which empty matrices do not have; got M.shape={M.shape}."
            )
        size = np.asarray(max(m, n), s.dtype)
        thr = ufuncs.multiply(ufuncs.multiply(reductions.max(s, axis=-1), size), _eps(s.dtype))
    else:
        thr = util.to_array(rtol)
        _check_tolerance_shape("jnp.linalg.matrix_rank", "rtol", thr, s.shape)
    thr = lax_shape.expand_dims(thr, (thr.ndim,))
    return reductions.sum(ufuncs.greater(s, thr), axis=-1)


def lstsq(a, b, rcond=None, *, numpy_resid: bool = False):
    """Least-squares solution ``x`` of ``a @ x = b`` (``a`` 2-D, ``b`` 1-D or 2-D), from the
    SVD. Returns ``(x, resid, rank, s)``: residual sums of squares per column of ``b`` (always,
    unless ``numpy_resid``, which gives NumPy's empty residuals for rank-deficient or wide
    ``a``; that needs a concrete rank, so not under ``jit``), the rank, and the singular values.
    Singular values below ``rcond`` times the largest count as zero (default
    ``eps * max(m, n)``; a negative ``rcond`` means ``eps``).

    >>> x, resid, rank, s = jnp.linalg.lstsq(jnp.array([[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]]),
    ...                                      jnp.array([1.0, 2.0, 3.0]))
    >>> x, resid, rank
    (Array([1., 1.], dtype=float32), Array([9.], dtype=float32), Array(2, dtype=int32))
    """
    util.check_arraylike("jnp.linalg.lstsq", a, b)
    a, b = util.promote_dtypes_inexact(a, b)
    if a.ndim >= 1 and b.ndim >= 1 and a.shape[0] != b.shape[0]:
        raise ValueError(
            "jnp.linalg.lstsq: leading dimensions of input arrays must match; got a.shape="
            f"{a.shape}, b.shape={b.shape}."
        )
    if a.ndim != 2:
        raise TypeError(
            f"jnp.linalg.lstsq: {a.ndim}-dimensional array given for a of shape {a.shape}. "
            "Array must be two-dimensional."
        )
    if b.ndim not in (1, 2):
        raise TypeError(
            f"jnp.linalg.lstsq: {b.ndim}-dimensional array given for b of shape {b.shape}. "
            "Array must be one or two-dimensional."
        )
    m, n = a.shape
    real = _real_dtype(a.dtype)
    b2 = b if b.ndim == 2 else lax_shape.expand_dims(b, (1,))
    if a.size == 0:
        s = creation.zeros((0,), a.dtype)
        rank = util.convert(0, np.int32)
        x = creation.zeros((n, b2.shape[1]), a.dtype)
    else:
        eps = _eps(real)
        if rcond is None:
            rc = eps * max(m, n)
        else:
            rc = lax_numpy.where(ufuncs.less(rcond, 0), eps, rcond)
        u, s, vh = lax_linalg.svd(a, full_matrices=False)
        keep = ufuncs.greater_equal(s, ufuncs.multiply(util.convert(rc, real), _last(s, 0)))
        rank = reductions.sum(keep)
        safe = util.convert(lax_numpy.where(keep, s, 1), a.dtype)
        s_inv = lax_numpy.where(keep, ufuncs.true_divide(1, safe), 0)
        u_h_b = _hmm(_mH(u), b2)
        x = _hmm(_mH(vh), ufuncs.multiply(lax_shape.expand_dims(s_inv, (1,)), u_h_b))
    # NumPy leaves the residuals empty where they are not unique; JAX always computes them
    # (a traced rank cannot choose a shape), unless asked for NumPy's behaviour.
    if numpy_resid and (rank < n or m <= n):
        resid = creation.zeros((0,), real)
    else:
        r = _norm(ufuncs.subtract(b2, _hmm(a, x)), None, (0,), False)
        resid = ufuncs.multiply(r, r)
    if b.ndim == 1:
        x = shape_ops.ravel(x)
    return x, resid, rank, s


def matrix_power(a, n: int):
    """``a`` (a batch of square matrices) to the integer power ``n``, by repeated squaring;
    ``n == 0`` gives identities of ``a``'s dtype and a negative ``n`` powers the inverse.

    >>> jnp.linalg.matrix_power(jnp.array([[1, 1], [0, 1]]), 3)
    Array([[1, 3],
           [0, 1]], dtype=int32)
    """
    util.check_arraylike("jnp.linalg.matrix_power", a)
    arr = util.to_array(a)
    if arr.ndim < 2:
        raise TypeError(
            f"jnp.linalg.matrix_power: {arr.ndim}-dimensional array given. Array must be at "
            f"least two-dimensional; got a.shape={arr.shape}."
        )
    if arr.shape[-1] != arr.shape[-2]:
        raise TypeError(
            "jnp.linalg.matrix_power: the last 2 dimensions of the array must be square; got "
            f"a.shape={arr.shape}."
        )
    try:
        hash(n)
    except TypeError:
        # JAX's n is a static (hashed) argument of its jit: arrays are refused with ValueError.
        raise ValueError(
            f"jnp.linalg.matrix_power: the exponent n must be a static Python integer, got a "
            f"value of type {type(n).__name__}."
        ) from None
    try:
        n = operator.index(n)
    except TypeError:
        raise TypeError(
            f"jnp.linalg.matrix_power: exponent must be an integer, got {n!r}."
        ) from None
    return _matrix_power_jit(arr, n)


def _matrix_power_body(arr, n):
    if n == 0:
        return shape_ops.broadcast_to(creation.eye(arr.shape[-1], dtype=arr.dtype), arr.shape)
    if n < 0:
        arr = inv(arr)
        n = -n
    # Small powers directly ((a @ a) @ a for 3), as JAX's.
    if n == 1:
        return arr
    if n == 2:
        return matmul(arr, arr)
    if n == 3:
        return matmul(matmul(arr, arr), arr)
    # Square z through a^1, a^2, a^4, ... and multiply in those of n's binary digits.
    result = z = None
    while n > 0:
        z = arr if z is None else matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


# A jit with a static n, printed as `jit[name=matrix_power]` as JAX's.
_matrix_power_jit = util._named_jit("matrix_power", _matrix_power_body, ("n",))


def tensorinv(a, ind: int = 2):
    """Inverse of the tensor ``a`` for ``tensordot`` over its first ``ind`` axes: the result
    has shape ``a.shape[ind:] + a.shape[:ind]`` (the two products of sizes must agree).

    >>> jnp.linalg.tensorinv(2 * jnp.eye(4).reshape(4, 2, 2), ind=1).shape
    (2, 2, 4)
    """
    util.check_arraylike("tensorinv", a)
    arr = util.to_array(a)
    try:
        ind = operator.index(ind)
    except TypeError:
        raise TypeError(f"jnp.linalg.tensorinv: ind must be an integer, got {ind!r}.") from None
    if ind <= 0:
        raise ValueError(f"jnp.linalg.tensorinv: ind must be a positive integer; got ind={ind}.")
    first, rest = arr.shape[:ind], arr.shape[ind:]
    rows, cols = prod(first), prod(rest)
    if rows != cols:
        raise ValueError(
            "jnp.linalg.tensorinv is only possible when the product of the first `ind` "
            f"dimensions ({rows}) equals that of the remaining dimensions ({cols}); got "
            f"a.shape={arr.shape} with ind={ind}."
        )
    out = inv(shape_ops.reshape(arr, (rows, cols)))
    return shape_ops.reshape(out, (*rest, *first))


def tensorsolve(a, b, axes: tuple[int, ...] | None = None):
    """``x`` with ``tensordot(a, x, x.ndim) == b``: ``a``'s leading axes match ``b``'s shape
    and its others are ``x``'s. ``axes`` are moved to the end of ``a`` first (in increasing
    order, as JAX moves them).

    >>> jnp.linalg.tensorsolve(2 * jnp.eye(4).reshape(2, 2, 4), jnp.ones((2, 2)))
    Array([0.5, 0.5, 0.5, 0.5], dtype=float32)
    """
    util.check_arraylike("tensorsolve", a, b)
    a, b = util.promote_dtypes_inexact(a, b)
    if axes is not None:
        moved = util._axes_tuple(axes, a.ndim, "jnp.linalg.tensorsolve")
        rest = [i for i in range(a.ndim) if i not in moved]
        a = lax_shape.transpose(a, (*rest, *sorted(moved)))
    if a.shape[: b.ndim] != b.shape:
        raise ValueError(
            "jnp.linalg.tensorsolve: after moving axes to the end, the leading shape of a must "
            f"match the shape of b; got a.shape={a.shape}, b.shape={b.shape}."
        )
    out_shape = a.shape[b.ndim :]
    if b.size != prod(out_shape):
        raise ValueError(
            "jnp.linalg.tensorsolve: input arrays must have prod(a.shape[:b.ndim]) == "
            f"prod(a.shape[b.ndim:]); got a.shape={a.shape}, b.ndim={b.ndim}."
        )
    x = solve(shape_ops.reshape(a, (b.size, b.size)), shape_ops.ravel(b))
    return shape_ops.reshape(x, out_shape)


__all__ = [
    "EigResult",
    "cholesky",
    "cond",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "inv",
    "linalg_cross",
    "linalg_matmul",
    "linalg_outer",
    "linalg_tensordot",
    "lstsq",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "trace",
    "vector_norm",
]
