"""Tensor contraction: ``dot_general`` (and its wrappers ``dot`` and ``batch_matmul``), and the
``Precision`` enum that contractions and convolutions accept.

``dot_general`` contracts the given dimension pairs of its operands, maps the batch dimension
pairs, and lays the result out as XLA does: batch dimensions, then the free dimensions of the
left operand, then those of the right operand.

>>> from spmd import lax
>>> x = jnp.arange(6.0).reshape(2, 3)
>>> lax.dot_general(x, x, (((1,), (1,)), ((), ())))
Array([[ 5., 14.],
       [14., 50.]], dtype=float32)
"""

from __future__ import annotations

import enum
import functools
import operator
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src.config import config
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching, reduction_states, sharding_rules
from spmd._src.lax import dot_algorithms
from spmd._src.lax.elementwise.conversion import _convert_impl, convert_element_type
from spmd._src.lax.random_bits import fma32
from spmd._src.lax.rules import defjvp
from spmd._src.lax.shape import broadcast_in_dim, transpose
from spmd._src.lax.sharding import _reshard_sharding
from spmd._src.sharding import PartitionSpec as P
from spmd._src.util import prod

# ---------------------------------------------------------------------------------------------
# Precision


class Precision(enum.Enum):
    """Precision of a contraction on accelerators (accepted and recorded; on CPU every level
    computes the same way).

    >>> Precision("highest")
    Precision.HIGHEST
    """

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value: Any) -> Precision | None:
        # JAX's spellings are exact (Precision("HIGHEST") is refused); None is the default level.
        if value is None:
            return cls.DEFAULT
        if isinstance(value, str):
            return _PRECISION_NAMES.get(value)
        return None

    def __repr__(self) -> str:
        return f"Precision.{self.name}"

    def __str__(self) -> str:
        return self.name


# The string spellings JAX accepts, by the level they mean.
_PRECISION_NAMES = {
    "default": Precision.DEFAULT,
    "fastest": Precision.DEFAULT,
    "bfloat16": Precision.DEFAULT,
    "high": Precision.HIGH,
    "bfloat16_3x": Precision.HIGH,
    "tensorfloat32": Precision.HIGH,
    "highest": Precision.HIGHEST,
    "float32": Precision.HIGHEST,
}


def _one_precision(p: Any, fn: str) -> Precision:
    if isinstance(p, Precision):
        return p
    if isinstance(p, str):
        level = _PRECISION_NAMES.get(p)  # case matters, as in JAX
        if level is not None:
            return level
    raise ValueError(
        f"{fn}: precision must be None, a lax.Precision, one of the strings "
        f"{sorted(_PRECISION_NAMES)} or a pair of these, a lax.DotAlgorithm, or a "
        f"lax.DotAlgorithmPreset or its name, got {p!r}."
    )


def canonicalize_precision(precision: Any, fn: str = "dot_general") -> Any:
    """``None``, a pair of ``Precision`` (one for each operand), or a dot algorithm (a preset
    also by its exact name), as recorded in jaxprs."""
    if precision is None:
        # JAX's jax_default_matmul_precision stands in for a missing precision (and is recorded).
        default = config.jax_default_matmul_precision
        return None if default is None else canonicalize_precision(default, fn)
    if dot_algorithms.is_algorithm(precision):
        return precision
    if isinstance(precision, str) and precision in dot_algorithms.DotAlgorithmPreset.__members__:
        return dot_algorithms.DotAlgorithmPreset[precision]
    if isinstance(precision, (list, tuple)):
        if len(precision) != 2:
            raise ValueError(
                f"{fn}: precision given as a sequence must have 2 entries (one per operand), "
                f"got {precision!r}."
            )
        # Each entry must be a level (JAX refuses None in a pair, even (None, None)).
        return tuple(_one_precision(p, fn) for p in precision)
    p = _one_precision(precision, fn)
    return (p, p)


def canonicalize_preferred(preferred_element_type: Any) -> np.dtype | None:
    if preferred_element_type is None:
        return None
    dtypes.check_user_dtype_supported(preferred_element_type, "preferred_element_type")
    return dtypes.canonicalize_dtype(dtypes.dtype(preferred_element_type))


# ---------------------------------------------------------------------------------------------
# Result dtypes shared with convolution


def _bit_width(dt: np.dtype) -> int:
    if dt == np.bool_:
        return 1
    if dtypes.issubdtype(dt, np.integer):
        return int(dtypes.iinfo(dt).bits)
    if dtypes.issubdtype(dt, np.floating):
        return int(dtypes.finfo(dt).bits)
    return dt.itemsize * 8


def _precision_rank(dt: np.dtype) -> tuple:
    """XLA's order of element types for a contraction of mixed types: complex above real, then
    the wider exponent range, then more mantissa bits, then more bits, then signed."""
    real = np.dtype(np.float64 if dt == np.complex128 else np.float32) if dt.kind == "c" else dt
    is_float = dtypes.issubdtype(real, np.floating)
    if is_float:
        fi = dtypes.finfo(real)
        maxexp, nmant = int(fi.maxexp), int(fi.nmant)
    else:
        maxexp = nmant = -1
    return (
        dt.kind == "c",
        maxexp,
        nmant,
        _bit_width(real),
        not dtypes.issubdtype(real, np.unsignedinteger),
    )


def contraction_dtype(
    name: str, lhs: np.dtype, rhs: np.dtype, preferred: np.dtype | None, check_width: bool = True
):
    """The result dtype of ``dot_general`` on operands of dtypes ``lhs`` and ``rhs``
    (``check_width=False``: a dot algorithm is given, and an integer result may narrow)."""
    if lhs == rhs:
        result = lhs
    else:
        lr, rr = _precision_rank(lhs), _precision_rank(rhs)
        if lr == rr:
            raise TypeError(f"{name} argument type error: {lhs.name}, {rhs.name}")
        result = lhs if lr > rr else rhs
    if preferred is None or preferred == result:
        return result
    # A preferred type may widen an integer or bool result, never narrow it (XLA's rule;
    # floating results may be requested in any type).
    narrower = _bit_width(preferred) < _bit_width(result)
    if check_width and not dtypes.issubdtype(result, np.floating) and narrower:
        raise TypeError(
            "`preferred_element_type` must not be narrower than the original type, got "
            f"preferred_element_type of {preferred.name} for result type of {result.name}."
        )
    return preferred


def compute_dtype(in_dtype: np.dtype, out_dtype: np.dtype) -> np.dtype:
    """The dtype NumPy contracts in: XLA on CPU computes 16-bit floats in float32 and rounds;
    integers accumulate (and wrap) in the integer result type."""
    if in_dtype.kind == "c" or out_dtype.kind == "c":
        wide = np.complex128 in (in_dtype, out_dtype) or np.float64 in (in_dtype, out_dtype)
        return np.dtype(np.complex128 if wide else np.complex64)
    if dtypes.issubdtype(in_dtype, np.floating) or dtypes.issubdtype(out_dtype, np.floating):
        wide = np.float64 in (in_dtype, out_dtype)
        return np.dtype(np.float64 if wide else np.float32)
    if out_dtype == np.bool_:
        return np.dtype(np.bool_)
    return out_dtype


def to_result(x: np.ndarray, out_dtype: np.dtype) -> np.ndarray:
    if x.dtype == out_dtype:
        return x
    return np.asarray(_convert_impl(x, new_dtype=out_dtype, weak_type=False, sharding=None))


def _all_weak(*avals: ShapedArray) -> bool:
    return all(a.weak_type for a in avals)


# ---------------------------------------------------------------------------------------------
# dot_general


def _dims(x: Any, what: str) -> tuple[int, ...]:
    try:
        return tuple(operator.index(d) for d in x)
    except TypeError:
        raise TypeError(f"dot_general: {what} must be a sequence of integers, got {x!r}.") from None


def canonicalize_dimension_numbers(dimension_numbers: Any) -> tuple:
    """``((lhs_contract, rhs_contract), (lhs_batch, rhs_batch))`` as hashable tuples."""
    try:
        (lc, rc), (lb, rb) = dimension_numbers
    except (TypeError, ValueError):
        raise TypeError(
            "dot_general: dimension_numbers must be ((lhs_contracting, rhs_contracting), "
            f"(lhs_batch, rhs_batch)), got {dimension_numbers!r}."
        ) from None
    return (
        (_dims(lc, "lhs_contracting"), _dims(rc, "rhs_contracting")),
        (_dims(lb, "lhs_batch"), _dims(rb, "rhs_batch")),
    )


def dot_general(
    lhs,
    rhs,
    dimension_numbers,
    precision=None,
    preferred_element_type=None,
    *,
    out_sharding=None,
):
    """Contract ``lhs`` and ``rhs`` over ``dimension_numbers``
    ``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``.

    The result has the batch dimensions, then the remaining dimensions of ``lhs``, then those
    of ``rhs``. ``preferred_element_type`` sets the result (accumulation) dtype.

    >>> x, y = jnp.ones((2, 3, 4)), jnp.ones((2, 4, 5))
    >>> lax.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))).shape
    (2, 3, 5)
    """
    dimension_numbers = canonicalize_dimension_numbers(dimension_numbers)
    if out_sharding is not None:
        # A NamedSharding whose axes are Explicit (JAX's ValueError otherwise): the result's
        # sharding in types, which an ambiguous contraction needs.
        (lc, _), (lb, _) = dimension_numbers
        ndim = np.ndim(lhs) + np.ndim(rhs) - 2 * len(lc) - len(lb)
        out_sharding = _reshard_sharding(out_sharding, ndim, "dot_general")
    return dot_general_p.bind(
        lhs,
        rhs,
        dimension_numbers=dimension_numbers,
        precision=canonicalize_precision(precision),
        preferred_element_type=canonicalize_preferred(preferred_element_type),
        out_sharding=out_sharding,
    )


def _check_dims(side: str, dims_b, dims_c, rank: int) -> None:
    if any(not 0 <= d < rank for d in (*dims_b, *dims_c)):
        raise TypeError(
            f"dot_general requires {side} dimension numbers to be nonnegative and less than the "
            f"number of axes of the {side} value, got {side}_batch of {dims_b} and "
            f"{side}_contracting of {dims_c} for {side} of rank {rank}"
        )


def _dot_general_shape(lhs, rhs, *, dimension_numbers, **_):
    (lc, rc), (lb, rb) = dimension_numbers
    _check_dims("lhs", lb, lc, lhs.ndim)
    _check_dims("rhs", rb, rc, rhs.ndim)
    if len(lb) != len(rb):
        raise TypeError(
            "dot_general requires equal numbers of lhs_batch and rhs_batch dimensions, got "
            f"lhs_batch {lb} and rhs_batch {rb}."
        )
    for side, b, c in (("lhs", lb, lc), ("rhs", rb, rc)):
        if len(set(c)) != len(c):
            raise TypeError(
                f"dot_general requires {side} contracting dimensions to be distinct, got "
                f"{side}_contracting {c}."
            )
        if len(set(b)) != len(b):
            raise TypeError(
                f"dot_general requires {side} batch dimensions to be distinct, got "
                f"{side}_batch {b}."
            )
        if set(b) & set(c):
            raise TypeError(
                f"dot_general requires {side} batch dimensions to be disjoint from contracting "
                f"dimensions, got {side}_batch {b} and {side}_contracting {c}."
            )
    lb_shape = tuple(lhs.shape[d] for d in lb)
    rb_shape = tuple(rhs.shape[d] for d in rb)
    if lb_shape != rb_shape:
        raise TypeError(
            "dot_general requires lhs batch dimensions and rhs batch dimensions to have the "
            f"same shape, got {lb_shape} and {rb_shape}."
        )
    lc_shape = tuple(lhs.shape[d] for d in lc)
    rc_shape = tuple(rhs.shape[d] for d in rc)
    if lc_shape != rc_shape:
        raise TypeError(
            "dot_general requires contracting dimensions to have the same shape, got "
            f"{lc_shape} and {rc_shape}."
        )
    lfree = tuple(d for i, d in enumerate(lhs.shape) if i not in lb and i not in lc)
    rfree = tuple(d for i, d in enumerate(rhs.shape) if i not in rb and i not in rc)
    return lb_shape + lfree + rfree


def _dot_general_abstract_eval(
    lhs, rhs, *, dimension_numbers, precision, preferred_element_type, out_sharding
):
    shape = _dot_general_shape(lhs, rhs, dimension_numbers=dimension_numbers)
    algorithm = dot_algorithms.is_algorithm(precision)
    dt = contraction_dtype(
        "dot_general", lhs.dtype, rhs.dtype, preferred_element_type, check_width=not algorithm
    )
    return ShapedArray(shape, dt, _all_weak(lhs, rhs))


# ---------------------------------------------------------------------------------------------
# XLA's CPU summation orders
#
# A float contraction's value depends on the order of its additions and on whether products
# are rounded before they are added. JAX 0.10 on CPU (measured against jaxlib 0.10.2 on an
# AVX-512 x86 machine; scratch probes in the session notes) computes a real float32 or float64
# ``dot_general`` of K > 1 as follows, where S is the element count of an operand:
#
# * vector dots (no free dimensions, batched or not) become multiply + reduce:
#   - S < 4096 and K <= 32: one loop per output element, acc = fma(a[k], b[k], acc) in order
#     from 0. For K in 5..8 LLVM vectorizes that loop across the output elements and the
#     vector body rounds each product (acc = acc + a[k] * b[k]); which leading outputs take the
#     vector body depends on the output count and dtype (``_vector_prefix``).
#   - S < 4096 and K > 32: products rounded, then a reduction tree: windows of 32 (the
#     padding split front floor / back ceil) summed in order, recursively over the windows.
#   - S >= 4096: YNNPACK: products rounded, element k summed in order into lane k % L
#     (L = 16 float32 / 8 float64: one AVX-512 vector), then the lanes folded in halves.
#     Measured exact for K <= 5 L; longer rows are blocked in a way not reproduced here.
#     With the contraction the major dimension of both operands, the products are summed in
#     order instead (measured for K <= 4).
# * matrix products and matrix-vector products (Eigen or YNNPACK GEMM/GEMV, whose blocking
#   depends on the shapes): NumPy/BLAS (not reproduced).

_XLA_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_YNN_MIN_SIZE = 4096  # operand elements from which a multiply + reduce runs in YNNPACK
_YNN_LANES = {np.dtype(np.float32): 16, np.dtype(np.float64): 8}
_WINDOW = 32  # XLA's reduction tree window


def _xla_order(lhs, rhs, lt, rt, lc, rc, lb, rb, b, m, n, k) -> np.ndarray | None:
    """``dot_general`` in XLA's CPU order, laid out (batch, lhs free, rhs free); ``None`` where
    that order is not reproduced."""
    if m != 1 or n != 1:
        return None
    dt = lhs.dtype
    lv, rv = lt.reshape(b, k), rt.reshape(b, k)
    row_major = _row_major(lhs, lc, lb), _row_major(rhs, rc, rb)
    if b * k >= _YNN_MIN_SIZE:
        if any(row_major):
            lanes = _YNN_LANES[dt]
            return (
                _by_rows(lambda a, c: _lane_sum(a * c, lanes), lv, rv) if k <= 5 * lanes else None
            )
        # The products laid out contraction-major: summed in order (measured for K <= 4).
        return _window_sum(lv * rv) if k <= 4 else None
    if k > _WINDOW:
        return _window_sum(lv * rv)
    out = _fma_chain(lv, rv)
    if 5 <= k <= 8 and all(row_major):
        # The loop runs over the output's last (non-unit) batch dimension innermost.
        sizes = [lhs.shape[d] for d in lb if lhs.shape[d] != 1]
        count = sizes[-1] if sizes else 1
        nv = _vector_prefix(dt, k, count)
        if nv:
            lm, rm = lv.reshape(-1, count, k)[:, :nv], rv.reshape(-1, count, k)[:, :nv]
            acc = np.zeros(lm.shape[:-1], dt)
            for i in range(k):
                acc = acc + lm[..., i] * rm[..., i]
            out.reshape(-1, count)[:, :nv] = acc
    return out


# Rows per block of a blocked multiply + reduce: its products and partial sums stay in cache.
_ROW_BLOCK = 16384


def _by_rows(fn, lv: np.ndarray, rv: np.ndarray) -> np.ndarray:
    """``fn(lv, rv)`` (rows, K) -> (rows,), block of rows by block of rows."""
    rows = lv.shape[0]
    if rows <= _ROW_BLOCK:
        return fn(lv, rv)
    out = np.empty(rows, lv.dtype)
    for s in range(0, rows, _ROW_BLOCK):
        out[s : s + _ROW_BLOCK] = fn(lv[s : s + _ROW_BLOCK], rv[s : s + _ROW_BLOCK])
    return out


def _row_major(x: np.ndarray, c, bd) -> bool:
    """Whether ``x``'s dimensions, size-1 free ones aside, are its batch dimensions then its
    contracting dimensions, each in order (the layout in which XLA vectorizes the short
    multiply + reduce loop across output elements)."""
    dims = [d for d in range(x.ndim) if d in c or d in bd or x.shape[d] != 1]
    return dims == [*bd, *c] and list(bd) == sorted(bd) and list(c) == sorted(c)


def _vector_prefix(dt: np.dtype, k: int, count: int) -> int:
    """How many leading outputs of a short (K in 5..8) multiply + reduce loop of ``count``
    outputs LLVM runs in its vector body (products rounded): trip counts below 16 are
    vectorized only when the vector width divides them; above, all but a scalar remainder."""
    if dt == np.float32:
        if count < 16:
            return count if count in (4, 8) else 0
        step = 8 if k <= 6 and count >= 40 else 4
    else:
        if count < 16:
            return count if count % 4 == 0 else 0
        step = 4 if k <= 6 else 2
    return count - count % step


def _lane_sum(p: np.ndarray, lanes: int) -> np.ndarray:
    """Sum ``p`` (rows, K) over its last axis as YNNPACK does: ``lanes`` running sums (element
    k into lane k % lanes), folded in halves (lane i + lane i + h)."""
    k = p.shape[-1]
    if k <= lanes:
        # One element per lane: fold the columns, missing lanes being zeros.
        acc: list = [p[:, i] for i in range(k)] + [None] * (lanes - k)
        while len(acc) > 1:
            h = len(acc) // 2
            acc = [x if y is None else y if x is None else x + y for x, y in zip(acc[:h], acc[h:])]
        out = acc[0]
    else:
        # Whole vectors of lanes at a time, the tail into the first lanes.
        full = k // lanes
        acc = p[:, :lanes].copy()
        for c in range(1, full):
            acc += p[:, c * lanes : (c + 1) * lanes]
        if k % lanes:
            acc[:, : k % lanes] += p[:, full * lanes :]
        while acc.shape[1] > 1:
            h = acc.shape[1] // 2
            acc = acc[:, :h] + acc[:, h:]
        out = acc[:, 0]
    # The sums start from +0, so a sum of -0 products is +0.
    return out + p.dtype.type(0)


def _window_sum(p: np.ndarray) -> np.ndarray:
    """Sum ``p`` over its last axis as XLA's reduction tree does: zero-padded windows of 32
    (padding split front floor / back ceil), each summed in order from 0, recursively."""
    while True:
        k = p.shape[-1]
        if k <= _WINDOW:
            acc = np.zeros(p.shape[:-1], p.dtype)
            for i in range(k):
                acc = acc + p[..., i]
            return acc
        w = -(-k // _WINDOW)
        pad = w * _WINDOW - k
        padded = np.zeros(p.shape[:-1] + (w * _WINDOW,), p.dtype)
        padded[..., pad // 2 : pad // 2 + k] = p
        p = padded.reshape(p.shape[:-1] + (w, _WINDOW))
        acc = np.zeros(p.shape[:-1], p.dtype)
        for i in range(_WINDOW):
            acc = acc + p[..., i]
        p = acc


def _fma_chain(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``acc = fma(a[..., k], b[..., k], acc)`` over the last axis in order, from 0 (operands
    broadcast against each other)."""
    shape = np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    acc = np.zeros(shape, a.dtype)
    fma = fma32 if a.dtype == np.float32 else _fma64
    for i in range(a.shape[-1]):
        acc = fma(a[..., i], b[..., i], acc)
    return acc


_SPLITTER = 134217729.0  # 2**27 + 1: Veltkamp's split of a float64 into two 26-bit halves


def _two_sum(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = x + y
    t = s - x
    return s, (x - (s - t)) + (y - t)


def _fma64(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Correctly rounded float64 ``a * b + c`` (Boldo and Melquiond's emulation): the exact
    product as a pair (Dekker), the exact sum of its high part and ``c`` as a pair, the two
    low parts added with rounding to odd, and one final rounding. Overflowing products and
    non-finite values fall back to ``a * b + c``; results in the subnormal range may be off."""
    ph = a * b
    ca, cb = _SPLITTER * a, _SPLITTER * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    pl = ((ah * bh - ph) + ah * bl + al * bh) + al * bl
    sh, sl = _two_sum(c, ph)
    v, ve = _two_sum(sl, pl)
    inexact_even = (ve != 0) & ((v.view(np.uint64) & np.uint64(1)) == 0)
    if inexact_even.any():
        v = np.where(inexact_even, np.nextafter(v, np.where(ve > 0, np.inf, -np.inf)), v)
    out = sh + v
    bad = ~np.isfinite(out) | ~np.isfinite(pl)
    if bad.any():
        out = np.where(bad, ph + c, out)
    return out


def _dot_general_impl(
    lhs, rhs, *, dimension_numbers, precision, preferred_element_type, out_sharding
):
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    run = _plan_with(lhs.shape, rhs.shape, lhs.dtype, rhs.dtype, dimension_numbers, precision,
                     preferred_element_type)  # fmt: skip
    return run(lhs, rhs)


def _plan_with(lshape, rshape, ldt, rdt, dimension_numbers, precision, preferred_element_type):
    """``_plan``, or with a dot algorithm its conversions around ``_plan`` (dot_algorithms)."""
    if not dot_algorithms.is_algorithm(precision):
        return _plan(lshape, rshape, ldt, rdt, dimension_numbers, preferred_element_type)
    out = contraction_dtype("dot_general", ldt, rdt, preferred_element_type, check_width=False)
    return dot_algorithms.algorithm_plan(
        lshape, rshape, ldt, rdt, dimension_numbers, precision, out, _plan
    )


@functools.lru_cache(maxsize=512)
def _plan(lshape, rshape, ldt, rdt, dimension_numbers, preferred_element_type):
    """The kernel of one ``dot_general`` signature, with the dtypes, permutations, reshapes and
    BLAS branch decided once: a small jitted layer calls it every step. (``_xla_order`` still
    works out its own regime per call.)"""
    out_dtype = contraction_dtype("dot_general", ldt, rdt, preferred_element_type)
    # Mixed operand types are first converted to the result type (as JAX lowers them).
    mixed = ldt != rdt
    in_dtype = out_dtype if mixed else ldt
    cdt = compute_dtype(in_dtype, out_dtype)
    # XLA's order is reproduced for float32/float64 contractions computed in their own type.
    xla_order = in_dtype == out_dtype == cdt
    (lc, rc), (lb, rb) = dimension_numbers
    lfree = [d for d in range(len(lshape)) if d not in lb and d not in lc]
    rfree = [d for d in range(len(rshape)) if d not in rb and d not in rc]
    batch_shape = tuple(lshape[d] for d in lb)
    b, m, n = prod(batch_shape), prod(lshape[d] for d in lfree), prod(rshape[d] for d in rfree)
    k = prod(lshape[d] for d in lc)
    out_shape = batch_shape + tuple(lshape[d] for d in lfree) + tuple(rshape[d] for d in rfree)
    lperm, rperm = (*lb, *lfree, *lc), (*rb, *rc, *rfree)
    # (_xla_order reproduces XLA's order for vector dots only: one output per batch element.)
    try_xla = xla_order and cdt in _XLA_FLOATS and k > 1 and b * m * n > 0 and m == n == 1
    if lb:
        lsh, rsh, mul = (b, m, k), (b, k, n), np.matmul
    else:
        # Matrix-vector and outer products: np.dot keeps these on BLAS too.
        lsh, rsh, mul = (m, k), (k, n), np.dot if (m == 1 or n == 1 or k == 1) else np.matmul

    if not mixed and not try_xla and ldt == rdt == cdt == out_dtype:
        # The common case (a small jitted layer calls it every step): no conversions, and
        # transposes only where the layout needs them.
        lp = None if lperm == tuple(range(len(lshape))) else lperm
        rp = None if rperm == tuple(range(len(rshape))) else rperm

        def run_plain(lhs, rhs):
            if lp is not None:
                lhs = lhs.transpose(lp)
            if rp is not None:
                rhs = rhs.transpose(rp)
            return mul(lhs.reshape(lsh), rhs.reshape(rsh)).reshape(out_shape)

        return run_plain

    def run(lhs, rhs):
        if mixed:
            lhs, rhs = to_result(lhs, out_dtype), to_result(rhs, out_dtype)
        lhs, rhs = lhs.astype(cdt, copy=False), rhs.astype(cdt, copy=False)
        lt, rt = np.transpose(lhs, lperm), np.transpose(rhs, rperm)
        if try_xla:
            with np.errstate(all="ignore"):
                out = _xla_order(lhs, rhs, lt, rt, lc, rc, lb, rb, b, m, n, k)
            if out is not None:
                return to_result(out.reshape(out_shape), out_dtype)
        out = mul(lt.reshape(lsh), rt.reshape(rsh))
        return to_result(np.asarray(out).reshape(out_shape), out_dtype)

    return run


def _pp_dims(dims: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(d) for d in dims) + "]"


def _dot_general_pp(params: dict) -> list[tuple[str, Any]]:
    # JAX prints the dimension numbers with lists and leaves out parameters that are None.
    (lc, rc), (lb, rb) = params["dimension_numbers"]
    dn = f"(({_pp_dims(lc)}, {_pp_dims(rc)}), ({_pp_dims(lb)}, {_pp_dims(rb)}))"
    out: list[tuple[str, Any]] = [("dimension_numbers", dn)]
    # (JAX does not print out_sharding: the result's type shows it.)
    for k in ("precision", "preferred_element_type"):
        if params.get(k) is not None:
            out.append((k, params[k]))
    return out


def _shift_past(dims: tuple[int, ...], bdim: int) -> tuple[int, ...]:
    """Operand dimension numbers once a batch dimension is inserted at ``bdim``."""
    return tuple(d + (d >= bdim) for d in dims)


def _dot_general_vmap(
    axis_data, vals, dims, *, dimension_numbers, precision, preferred_element_type, out_sharding
):
    # No operand is moved: the mapped dimensions are renumbered in place. Both batched: the
    # mapped dimension becomes the first dot_general batch dimension (so the result has it in
    # front). One batched: it is a free dimension of that operand, and lands where the
    # result lays out that operand's free dimensions (lhs's after the batch dimensions,
    # rhs's after lhs's).
    (lhs, rhs), (ld, rd) = vals, dims
    (lc, rc), (lb, rb) = dimension_numbers
    if getattr(axis_data, "per_device", False) and (ld is None) != (rd is None):
        # Over devices (shard_map, pmap) the unbatched operand is broadcast (a stride-0 view)
        # so that the device axis is a batch dimension: one BLAS call per device, on that
        # device's rows, as a device alone (or another process holding it) computes them.
        # Folded into one larger product, BLAS may pick other kernels, and other bits.
        if ld is None:
            lhs, ld = broadcast_in_dim(lhs, (axis_data.size, *np.shape(lhs)),
                                       tuple(range(1, np.ndim(lhs) + 1))), 0  # fmt: skip
        else:
            rhs, rd = broadcast_in_dim(rhs, (axis_data.size, *np.shape(rhs)),
                                       tuple(range(1, np.ndim(rhs) + 1))), 0  # fmt: skip
    if ld is not None and rd is not None:
        lc, lb = _shift_past(lc, ld), (ld, *_shift_past(lb, ld))
        rc, rb = _shift_past(rc, rd), (rd, *_shift_past(rb, rd))
        out_dim = 0
    elif ld is not None:
        lc, lb = _shift_past(lc, ld), _shift_past(lb, ld)
        free = [i for i in range(np.ndim(lhs)) if i not in lc and i not in lb]
        out_dim = len(lb) + free.index(ld)
    else:
        rc, rb = _shift_past(rc, rd), _shift_past(rb, rd)
        n_lhs_free = np.ndim(lhs) - len(lc) - len(lb)
        free = [i for i in range(np.ndim(rhs)) if i not in rc and i not in rb]
        out_dim = len(rb) + n_lhs_free + free.index(rd)
    out = dot_general_p.bind(
        lhs,
        rhs,
        dimension_numbers=((lc, rc), (lb, rb)),
        precision=precision,
        preferred_element_type=preferred_element_type,
        out_sharding=out_sharding,
    )
    return out, out_dim


def _dot_general_jvp_lhs(t, lhs, rhs, **params):
    return dot_general_p.bind(t, rhs, **params)


def _dot_general_jvp_rhs(t, lhs, rhs, **params):
    return dot_general_p.bind(lhs, t, **params)


def _dot_general_ct(ct, y, x, xc, yc, xb, yb, x_is_lhs, precision, preferred):
    """The cotangent of operand ``x`` (an undefined primal) of ``dot_general`` given the other
    operand ``y``: ``ct`` contracted with ``y`` over ``y``'s free dimensions (batch dimensions
    stay batch), then transposed into ``x``'s layout. On Explicit mesh axes the product is
    asked for ``x``'s sharding in that layout (its contraction may be ambiguous otherwise),
    as JAX's transpose does."""
    x_aval = x.aval
    nb = len(xb)
    x_free = [i for i in range(x_aval.ndim) if i not in xc and i not in xb]
    y_free = [i for i in range(np.ndim(y)) if i not in yc and i not in yb]
    # ct is laid out (batch, lhs free, rhs free).
    first = nb + len(x_free) if x_is_lhs else nb
    ct_y_free = tuple(range(first, first + len(y_free)))
    dn = ((ct_y_free, tuple(y_free)), (tuple(range(nb)), tuple(yb)))
    if not x_is_lhs and precision is not None and not dot_algorithms.is_algorithm(precision):
        precision = (precision[1], precision[0])  # (an algorithm applies to both operands)
    # res is laid out (batch, x's free dims, y's contracting dims in increasing order); the
    # last group matches x's contracting dims pairwise.
    src = list(xb) + x_free + [xc[yc.index(d)] for d in sorted(yc)]
    out_sharding = None
    if x.sharding is not None:
        # A reduced operand's cotangent is unreduced: the contraction stops before its sum.
        ct_sharding = reduction_states.cotangent_sharding(x.sharding)
        spec = ct_sharding.spec
        out_sharding = ct_sharding.with_spec(
            P(*(spec._normalized(x_aval.ndim)[i] for i in src),
              unreduced=spec.unreduced, reduced=spec.reduced)
        )  # fmt: skip
    res = dot_general_p.bind(
        ct,
        y,
        dimension_numbers=dn,
        precision=precision,
        preferred_element_type=preferred,
        out_sharding=out_sharding,
    )
    res = transpose(res, tuple(src.index(i) for i in range(x_aval.ndim)))
    if res.dtype != x_aval.dtype:
        res = convert_element_type(res, x_aval.dtype)
    return res


def _dot_general_transpose(
    ct, lhs, rhs, *, dimension_numbers, precision, preferred_element_type, out_sharding
):
    (lc, rc), (lb, rb) = dimension_numbers
    if ad.is_undefined_primal(lhs) and ad.is_undefined_primal(rhs):
        raise NotImplementedError("dot_general transpose: both operands are linear inputs.")
    if ad.is_undefined_primal(lhs):
        ct_lhs = _dot_general_ct(
            ct, rhs, lhs, lc, rc, lb, rb, True, precision, preferred_element_type
        )
        return [ct_lhs, None]
    ct_rhs = _dot_general_ct(ct, lhs, rhs, rc, lc, rb, lb, False, precision, preferred_element_type)
    return [None, ct_rhs]


dot_general_p = core.Primitive("dot_general")
dot_general_p.def_abstract_eval(_dot_general_abstract_eval)
dot_general_p.def_impl(_dot_general_impl)
dot_general_p.fresh_outputs = True  # a matmul result (possibly reshaped) is a new buffer


# Compiled programs plan each dot_general once, from its operand types, not once per call.
def _typed_impl(avals, *, dimension_numbers, precision, preferred_element_type, **_):
    shapes, types = (a.shape for a in avals), (a.dtype for a in avals)
    return _plan_with(*shapes, *types, dimension_numbers, precision, preferred_element_type)


dot_general_p.typed_impl = _typed_impl
core.pp_param_rules[dot_general_p] = _dot_general_pp
batching.primitive_batchers[dot_general_p] = _dot_general_vmap
defjvp(dot_general_p, _dot_general_jvp_lhs, _dot_general_jvp_rhs)
ad.primitive_transposes[dot_general_p] = _dot_general_transpose


def _dot_general_factors(specs, avals, dimension_numbers):
    (lc, rc), (lb, rb) = dimension_numbers
    ls = specs[0] or (None,) * avals[0].ndim
    rs = specs[1] or (None,) * avals[1].ndim
    lfree = [i for i in range(avals[0].ndim) if i not in lc and i not in lb]
    rfree = [i for i in range(avals[1].ndim) if i not in rc and i not in rb]
    return ls, rs, lfree, rfree


def _dot_general_sharding(specs, avals, *, dimension_numbers, **params):
    # One factor per batch, free and contracting dimension, each sharded as its operands agree
    # (sharding_rules.merge_entries). A mesh axis wanted by two factors goes to the first of:
    # the larger operand's free dimensions, batch, the other operand's free dimensions,
    # contracting (the lhs counts as the larger on a tie). This is what XLA's propagation picks
    # on the golden sweeps: it prefers the sharding of the operand with more elements.
    # Contracting factors keep the axes they win (their partial sums are reduced over them)
    # but do not appear in the result.
    if params.get("out_sharding") is not None:
        return _out_sharding_spec(params["out_sharding"], avals, dimension_numbers)
    (lc, rc), (lb, rb) = dimension_numbers
    ls, rs, lfree, rfree = _dot_general_factors(specs, avals, dimension_numbers)
    merge = sharding_rules.merge_entries
    batch = [merge([ls[a], rs[b]]) for a, b in zip(lb, rb)]
    free = [ls[i] for i in lfree] + [rs[j] for j in rfree]
    contract = [merge([ls[a], rs[b]]) for a, b in zip(lc, rc)]
    factors = batch + free + contract
    nb, nl, nr = len(batch), len(lfree), len(rfree)
    batch_i = list(range(nb))
    lhs_i, rhs_i = list(range(nb, nb + nl)), list(range(nb + nl, nb + nl + nr))
    if prod(avals[1].shape) > prod(avals[0].shape):
        order = rhs_i + batch_i + lhs_i
    else:
        order = lhs_i + batch_i + rhs_i
    order += list(range(nb + nl + nr, len(factors)))
    order = [order.index(f) for f in range(len(factors))]
    out = sharding_rules.resolve_conflicts(factors, order, by_size=False)
    return tuple(out[: nb + nl + nr])


def _out_sharding_spec(out_sharding, avals, dimension_numbers) -> tuple:
    (lc, _), (lb, _) = dimension_numbers
    return out_sharding.spec._normalized(avals[0].ndim + avals[1].ndim - 2 * len(lc) - len(lb))


def _dot_general_sharding_explicit(specs, avals, *, dimension_numbers, **params):
    # Sharding in types: batch dimensions agree, contracting dimensions are unsharded on at
    # least one side (otherwise the result's sharding is ambiguous: out_sharding= decides).
    if params.get("out_sharding") is not None:
        return _out_sharding_spec(params["out_sharding"], avals, dimension_numbers)
    (lc, rc), (lb, rb) = dimension_numbers
    ls, rs, lfree, rfree = _dot_general_factors(specs, avals, dimension_numbers)
    lbs, rbs = tuple(ls[i] for i in lb), tuple(rs[i] for i in rb)
    if lbs != rbs:
        raise sharding_rules.ShardingTypeError(
            "dot_general requires lhs batch dimensions and rhs batch dimensions to have the "
            f"consistent sharding, got {lbs} and {rbs}."
        )
    lcs, rcs = tuple(ls[i] for i in lc), tuple(rs[i] for i in rc)
    if any(e is not None for e in lcs) and any(e is not None for e in rcs):
        if lcs == rcs:
            raise sharding_rules.ShardingTypeError(
                "Contracting dimensions are sharded and it is ambiguous how the output should "
                "be sharded. Please specify the output sharding via the `out_sharding` "
                f"parameter. Got lhs_contracting_spec={lcs} and rhs_contracting_spec={rcs} "
                f"(dot_general of lhs {sharding_rules.type_str(avals[0], specs[0])} and rhs "
                f"{sharding_rules.type_str(avals[1], specs[1])})"
            )
        raise sharding_rules.ShardingTypeError(
            "dot_general requires contracting dimensions to have consistent sharding, got "
            f"{lcs} and {rcs}."
        )
    return lbs + tuple(ls[i] for i in lfree) + tuple(rs[j] for j in rfree)


sharding_rules.sharding_rules[dot_general_p] = _dot_general_sharding


def _dot_general_backward(want, in_avals, out_aval, *, dimension_numbers, **_):
    # The result is (batch, lhs free, rhs free): each operand takes the wanted axes of its
    # batch and free dimensions; contracting dimensions are left free.
    (lc, rc), (lb, rb) = dimension_numbers
    lhs, rhs = in_avals
    lfree = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rfree = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    nb, nl = len(lb), len(lfree)
    ls, rs = [None] * lhs.ndim, [None] * rhs.ndim
    for k, (a, b) in enumerate(zip(lb, rb)):
        ls[a] = rs[b] = want[k]
    for k, d in enumerate(lfree):
        ls[d] = want[nb + k]
    for k, d in enumerate(rfree):
        rs[d] = want[nb + nl + k]
    return [tuple(ls), tuple(rs)]


sharding_rules.backward_rules[dot_general_p] = _dot_general_backward
sharding_rules.explicit_rules[dot_general_p] = _dot_general_sharding_explicit


# ---------------------------------------------------------------------------------------------
# dot, batch_matmul


def dot(
    lhs,
    rhs,
    *,
    dimension_numbers=None,
    precision=None,
    preferred_element_type=None,
    out_sharding=None,
):
    """Vector/matrix product of operands of rank 1 or 2 (or ``dot_general`` when
    ``dimension_numbers`` is given).

    >>> lax.dot(jnp.ones((2, 3)), jnp.ones(3))
    Array([3., 3.], dtype=float32)
    """
    if dimension_numbers is not None:
        return dot_general(
            lhs,
            rhs,
            dimension_numbers,
            precision,
            preferred_element_type,
            out_sharding=out_sharding,
        )
    ls, rs = np.shape(lhs), np.shape(rhs)
    if len(ls) in (1, 2) and len(rs) in (1, 2) and ls[-1] == rs[0]:
        dn = (((len(ls) - 1,), (0,)), ((), ()))
        return dot_general(
            lhs, rhs, dn, precision, preferred_element_type, out_sharding=out_sharding
        )
    raise ValueError(
        "lax.dot: dimension_numbers must be specified when not performing simple un-batched "
        "matrix-matrix, matrix-vector, or vector-vector products; got "
        f"lhs_shape={tuple(ls)} rhs_shape={tuple(rs)}"
    )


def batch_matmul(lhs, rhs, precision=None):
    """Matrix product over the last two dimensions, mapped over equal leading (batch)
    dimensions.

    >>> lax.batch_matmul(jnp.ones((4, 2, 3)), jnp.ones((4, 3, 5))).shape
    (4, 2, 5)
    """
    ln, rn = np.ndim(lhs), np.ndim(rhs)
    if ln != rn:
        raise ValueError(f"Arguments to batch_matmul must have same ndim, got {ln}, {rn}")
    if ln < 2:
        raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {ln}, {rn}")
    batch = tuple(range(ln - 2))
    return dot_general(lhs, rhs, (((ln - 1,), (ln - 2,)), (batch, batch)), precision)


__all__ = [
    "Precision",
    "batch_matmul",
    "dot",
    "dot_general",
    "dot_general_p",
]
