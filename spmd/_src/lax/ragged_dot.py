"""``ragged_dot`` and ``ragged_dot_general``: matrix products over groups of consecutive rows,
the building block of mixture-of-experts layers.

Two forms (no batch dimensions), as JAX's own rules produce them:

- *ragged non-contracting*: lhs ``[m, k]`` ragged along ``m``, rhs ``[g, k, n]`` grouped along
  ``g``: rows of group ``i`` (``group_sizes[i]`` consecutive rows) are multiplied by
  ``rhs[i]``; rows past ``sum(group_sizes)`` give zeros. Result ``[m, n]``.
- *ragged contracting*: lhs ``[m, k]`` ragged along the contracted ``m``, rhs ``[m, n]``:
  ``out[i] = lhs[rows_i].T @ rhs[rows_i]``. Result ``[g, k, n]`` (the cotangent of the first
  form's rhs).

Either operand's dimensions may come in any order (``RaggedDotDimensionNumbers`` says which is
which); the kernel puts them in the order above and loops over the groups.
"""

from __future__ import annotations

import dataclasses
import operator
from collections.abc import Sequence

import numpy as np

from spmd._src import core, dtypes
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching
from spmd._src.lax import dot_algorithms
from spmd._src.lax.dot import canonicalize_precision, canonicalize_preferred, contraction_dtype
from spmd._src.lax.rules import defjvp


@dataclasses.dataclass(frozen=True)
class RaggedDotDimensionNumbers:
    """Which dimensions of a ``ragged_dot_general`` do what: ``dot_dimension_numbers`` as for
    ``dot_general`` (``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``), the
    lhs's ragged dimension, and the rhs's group dimension (empty when the ragged dimension is
    contracted)."""

    dot_dimension_numbers: tuple
    lhs_ragged_dimensions: Sequence[int]
    rhs_group_dimensions: Sequence[int]

    def __post_init__(self) -> None:
        (lc, rc), (lb, rb) = self.dot_dimension_numbers
        dn = ((_ints(lc), _ints(rc)), (_ints(lb), _ints(rb)))
        object.__setattr__(self, "dot_dimension_numbers", dn)
        object.__setattr__(self, "lhs_ragged_dimensions", _ints(self.lhs_ragged_dimensions))
        object.__setattr__(self, "rhs_group_dimensions", _ints(self.rhs_group_dimensions))


def _ints(xs) -> tuple[int, ...]:
    return tuple(operator.index(x) for x in xs)


_DEFAULT = RaggedDotDimensionNumbers((((1,), (1,)), ((), ())), (0,), (0,))


# ---------------------------------------------------------------------------------------------
# The two forms, as dimension positions


def _layout(lhs_ndim: int, rhs_ndim: int, dn: RaggedDotDimensionNumbers, name: str):
    """``("noncontracting", (m, k), (g, k, n))`` or ``("contracting", (m, k), (m, n))``: the
    positions of each role in lhs and rhs; NotImplementedError for other forms."""
    (lc, rc), (lb, rb) = dn.dot_dimension_numbers
    (lr,) = dn.lhs_ragged_dimensions if len(dn.lhs_ragged_dimensions) == 1 else (None,)
    if lb or rb or lr is None or len(lc) != 1 or len(rc) != 1 or lhs_ndim != 2:
        raise NotImplementedError(
            f"{name}: only one ragged and one contracting dimension of a 2-D lhs without batch "
            f"dimensions are implemented, got {dn}"
        )
    k = 1 - lr
    if lc == (k,) and len(dn.rhs_group_dimensions) == 1 and rhs_ndim == 3:
        (g,) = dn.rhs_group_dimensions
        (rk,) = rc
        if g != rk:
            (n,) = {0, 1, 2} - {g, rk}
            return "noncontracting", (lr, k), (g, rk, n)
    if lc == (lr,) and not dn.rhs_group_dimensions and rhs_ndim == 2:
        (rm,) = rc
        return "contracting", (lr, k), (rm, 1 - rm)
    raise NotImplementedError(
        f"{name}: the ragged dimension must be lhs's free or contracted dimension (with a rhs "
        f"group dimension only in the first case), got {dn} for operands of rank {lhs_ndim} and "
        f"{rhs_ndim}"
    )


def _check(lhs, rhs, group_sizes, dn, name):
    form, lpos, rpos = _layout(lhs.ndim, rhs.ndim, dn, name)
    if not dtypes.issubdtype(group_sizes.dtype, np.integer):
        raise TypeError(f"{name}: group_sizes must be integers, got {group_sizes.dtype.name}")
    if group_sizes.ndim != 1:
        raise TypeError(f"{name}: group_sizes must be 1-D, got shape {group_sizes.shape}")
    k_l = lhs.shape[lpos[1] if form == "noncontracting" else lpos[0]]
    k_r = rhs.shape[rpos[1] if form == "noncontracting" else rpos[0]]
    if k_l != k_r:
        raise TypeError(
            f"{name}: contracting dimensions must have the same size, got lhs shape "
            f"{lhs.shape} and rhs shape {rhs.shape} ({k_l} != {k_r})"
        )
    if form == "noncontracting" and rhs.shape[rpos[0]] != group_sizes.shape[0]:
        raise TypeError(
            f"{name}: expected rhs group dimension size to be {group_sizes.shape[0]} (the "
            f"length of group_sizes), got {rhs.shape[rpos[0]]} in rhs shape {rhs.shape}"
        )
    return form, lpos, rpos


# ---------------------------------------------------------------------------------------------
# ragged_dot_general


def ragged_dot_general(
    lhs,
    rhs,
    group_sizes,
    ragged_dot_dimension_numbers: RaggedDotDimensionNumbers,
    precision=None,
    preferred_element_type=None,
    group_offset=None,
    out_sharding=None,
):
    """A ``dot_general`` over groups of consecutive entries of lhs's ragged dimension (see
    the module docstring for the two forms).

    >>> lhs, rhs = jnp.ones((5, 2)), jnp.ones((2, 2, 3))
    >>> lax.ragged_dot(lhs, rhs, jnp.array([2, 2], jnp.int32))[:, 0]
    Array([2., 2., 2., 2., 0.], dtype=float32)
    """
    if group_offset is not None:
        raise NotImplementedError("ragged_dot_general: group_offset is not implemented")
    if not isinstance(ragged_dot_dimension_numbers, RaggedDotDimensionNumbers):
        raise TypeError(
            "ragged_dot_general: ragged_dot_dimension_numbers must be a "
            f"RaggedDotDimensionNumbers, got {type(ragged_dot_dimension_numbers).__name__}"
        )
    return ragged_dot_general_p.bind(
        lhs,
        rhs,
        group_sizes,
        ragged_dot_dimension_numbers=ragged_dot_dimension_numbers,
        precision=canonicalize_precision(precision, "ragged_dot_general"),
        preferred_element_type=canonicalize_preferred(preferred_element_type),
        group_offset=None,
        out_sharding=out_sharding,
    )


def ragged_dot(
    lhs,
    rhs,
    group_sizes,
    precision=None,
    preferred_element_type=None,
    group_offset=None,
    out_sharding=None,
):
    """Rows of ``lhs`` ``[m, k]`` in consecutive groups of ``group_sizes`` ``[g]``, group
    ``i`` multiplied by ``rhs[i]`` (``rhs``: ``[g, k, n]``); rows past the groups give zeros.

    >>> lhs, rhs = jnp.ones((3, 2)), jnp.arange(12.0).reshape(2, 2, 3)
    >>> lax.ragged_dot(lhs, rhs, jnp.array([1, 2], jnp.int32))
    Array([[ 3.,  5.,  7.],
           [15., 17., 19.],
           [15., 17., 19.]], dtype=float32)
    """
    return ragged_dot_general(
        lhs, rhs, group_sizes, _DEFAULT, precision, preferred_element_type, group_offset,
        out_sharding,
    )  # fmt: skip


def _ragged_dot_abstract_eval(lhs, rhs, group_sizes, *, ragged_dot_dimension_numbers, precision,
                              preferred_element_type, **_):  # fmt: skip
    name = "ragged_dot_general"
    form, lpos, rpos = _check(lhs, rhs, group_sizes, ragged_dot_dimension_numbers, name)
    dt = contraction_dtype(name, lhs.dtype, rhs.dtype, preferred_element_type)
    if form == "noncontracting":
        shape = (lhs.shape[lpos[0]], rhs.shape[rpos[2]])
    else:
        shape = (group_sizes.shape[0], lhs.shape[lpos[1]], rhs.shape[rpos[1]])
    return ShapedArray(shape, dt, lhs.weak_type and rhs.weak_type)


def _bounds(group_sizes: np.ndarray, m: int) -> list[tuple[int, int]]:
    # Consecutive groups, clipped to the m rows there are (negative sizes count as empty).
    ends = np.minimum(np.cumsum(np.maximum(group_sizes.astype(np.int64), 0)), m)
    starts = np.concatenate([[0], ends[:-1]])
    return [(int(s), int(e)) for s, e in zip(starts, ends)]


def _ragged_dot_impl(lhs, rhs, group_sizes, *, ragged_dot_dimension_numbers,
                     preferred_element_type, precision=None, **_):  # fmt: skip
    dn = ragged_dot_dimension_numbers
    if dot_algorithms.is_algorithm(precision):
        # Operands converted to the algorithm's types, as dot_general's (dot_algorithms).
        out = contraction_dtype("ragged_dot_general", lhs.dtype, rhs.dtype, preferred_element_type)
        return dot_algorithms.apply_algorithm(precision, lhs, rhs, out, lambda a, b, acc: (
            _ragged_dot_impl(a, b, group_sizes, ragged_dot_dimension_numbers=dn,
                             preferred_element_type=acc)))  # fmt: skip
    form, lpos, rpos = _layout(lhs.ndim, rhs.ndim, dn, "ragged_dot_general")
    dt = contraction_dtype("ragged_dot_general", lhs.dtype, rhs.dtype, preferred_element_type)
    a = np.transpose(lhs, lpos).astype(dt, copy=False)  # [m, k]
    b = np.transpose(rhs, rpos).astype(dt, copy=False)  # [g, k, n] or [m, n]
    bounds = _bounds(np.asarray(group_sizes), a.shape[0])
    if form == "noncontracting":
        out = np.zeros((a.shape[0], b.shape[2]), dt)
        for i, (s, e) in enumerate(bounds):
            if e > s:
                np.matmul(a[s:e], b[i], out=out[s:e])
        return out
    out = np.zeros((len(bounds), a.shape[1], b.shape[1]), dt)
    for i, (s, e) in enumerate(bounds):
        if e > s:
            np.matmul(a[s:e].T, b[s:e], out=out[i])
    return out


def _ragged_dot_jvp_lhs(t, lhs, rhs, group_sizes, **params):
    return ragged_dot_general_p.bind(t, rhs, group_sizes, **params)


def _ragged_dot_jvp_rhs(t, lhs, rhs, group_sizes, **params):
    return ragged_dot_general_p.bind(lhs, t, group_sizes, **params)


def _bind(lhs, rhs, group_sizes, dn, params):
    return ragged_dot_general_p.bind(
        lhs, rhs, group_sizes, **dict(params, ragged_dot_dimension_numbers=dn)
    )


def _to_layout(x, roles_now: Sequence[int], dtype):
    """``x`` (laid out in canonical role order) transposed so role ``j`` sits at position
    ``roles_now[j]``, cast to ``dtype``."""
    from spmd._src.lax.elementwise import convert_element_type
    from spmd._src.lax.shape import transpose

    perm = tuple(int(i) for i in np.argsort(roles_now))
    if perm != tuple(range(len(perm))):
        x = transpose(x, perm)
    return x if x.dtype == dtype else convert_element_type(x, dtype)


def _ragged_dot_transpose(ct, lhs, rhs, group_sizes, *, ragged_dot_dimension_numbers, **params):
    dn = ragged_dot_dimension_numbers
    lhs_aval = lhs.aval if ad.is_undefined_primal(lhs) else core.get_aval(lhs)
    rhs_aval = rhs.aval if ad.is_undefined_primal(rhs) else core.get_aval(rhs)
    form, lpos, rpos = _layout(lhs_aval.ndim, rhs_aval.ndim, dn, "ragged_dot_general")
    params = dict(params, preferred_element_type=None)
    ct_lhs = ct_rhs = None
    if form == "noncontracting":
        # ct [m, n]. lhs: ct's n against rhs's n, group by group -> [m, k].
        # rhs: lhs's rows against ct's rows, the ragged dimension contracted -> [g, k, n].
        if ad.is_undefined_primal(lhs):
            d = RaggedDotDimensionNumbers((((1,), (rpos[2],)), ((), ())), (0,), (rpos[0],))
            ct_lhs = _to_layout(_bind(ct, rhs, group_sizes, d, params), lpos, lhs_aval.dtype)
        if ad.is_undefined_primal(rhs):
            d = RaggedDotDimensionNumbers((((lpos[0],), (0,)), ((), ())), (lpos[0],), ())
            ct_rhs = _to_layout(_bind(lhs, ct, group_sizes, d, params), rpos, rhs_aval.dtype)
    else:
        # ct [g, k, n]. lhs [m, k]: rhs's rows (ragged) against ct's n, per group.
        # rhs [m, n]: lhs's rows (ragged) against ct's k, per group.
        if ad.is_undefined_primal(lhs):
            d = RaggedDotDimensionNumbers((((rpos[1],), (2,)), ((), ())), (rpos[0],), (0,))
            ct_lhs = _to_layout(_bind(rhs, ct, group_sizes, d, params), lpos, lhs_aval.dtype)
        if ad.is_undefined_primal(rhs):
            d = RaggedDotDimensionNumbers((((lpos[1],), (1,)), ((), ())), (lpos[0],), (0,))
            ct_rhs = _to_layout(_bind(lhs, ct, group_sizes, d, params), rpos, rhs_aval.dtype)
    return [ct_lhs, ct_rhs, None]


def _ragged_dot_vmap(axis_data, vals, dims, **params):
    # Groups index rows, so examples cannot share one call: one call per example, stacked.
    # (JAX has no batching rule beyond a few layouts; this one takes any.)
    from spmd._src.lax.copies import stack
    from spmd._src.lax.shape import index_in_dim

    def example(x, d, i):
        return x if d is batching.not_mapped else index_in_dim(x, i, d, keepdims=False)

    outs = [
        ragged_dot_general_p.bind(*(example(x, d, i) for x, d in zip(vals, dims)), **params)
        for i in range(axis_data.size)
    ]
    return stack(outs), 0


ragged_dot_general_p = core.Primitive("ragged_dot_general")
ragged_dot_general_p.def_impl(_ragged_dot_impl)
ragged_dot_general_p.def_abstract_eval(_ragged_dot_abstract_eval)
ragged_dot_general_p.fresh_outputs = True
defjvp(ragged_dot_general_p, _ragged_dot_jvp_lhs, _ragged_dot_jvp_rhs, None)
ad.primitive_transposes[ragged_dot_general_p] = _ragged_dot_transpose
batching.primitive_batchers[ragged_dot_general_p] = _ragged_dot_vmap


__all__ = [
    "RaggedDotDimensionNumbers",
    "ragged_dot",
    "ragged_dot_general",
    "ragged_dot_general_p",
]
