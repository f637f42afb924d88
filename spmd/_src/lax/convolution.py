"""Convolution: ``conv_general_dilated`` (strides, padding, input and kernel dilation, layouts,
feature and batch groups) and its wrappers ``conv`` and ``conv_with_general_padding``.

The NumPy kernel puts the operands in (batch, feature, spatial...) layout, dilates and pads the
input, takes strided sliding windows (views, no copies) and contracts them with the kernel in one
``tensordot`` per group.

>>> from spmd import lax
>>> x = jnp.arange(5.0).reshape(1, 1, 5)
>>> lax.conv_general_dilated(x, jnp.ones((1, 1, 2)), (1,), "VALID")
Array([[[1., 3., 5., 7.]]], dtype=float32)
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from spmd._src import core, dtypes
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.lax.dot import (
    canonicalize_precision,
    canonicalize_preferred,
    compute_dtype,
    to_result,
)
from spmd._src.lax.elementwise.conversion import convert_element_type
from spmd._src.lax.rules import defjvp
from spmd._src.lax.shape import reshape, rev


class ConvDimensionNumbers(NamedTuple):
    """Where the batch, feature and spatial dimensions are in each operand and the result.

    ``lhs_spec``: (batch, feature, spatial...) dimensions of the input; ``rhs_spec``: (output
    feature, input feature, spatial...) dimensions of the kernel; ``out_spec``: (batch, feature,
    spatial...) dimensions of the result.
    """

    lhs_spec: Sequence[int]
    rhs_spec: Sequence[int]
    out_spec: Sequence[int]


def _ints(xs: Sequence[Any]) -> tuple[int, ...]:
    return tuple(operator.index(x) for x in xs)


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """``ConvDimensionNumbers`` from ``None`` (NCHW/OIHW/NCHW order), a
    ``ConvDimensionNumbers``, or three layout strings such as ``('NHWC', 'HWIO', 'NHWC')``.

    >>> lax.conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 8), ("NHWC", "HWIO", "NHWC"))
    ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
    """
    lhs_shape, rhs_shape = tuple(lhs_shape), tuple(rhs_shape)
    if len(lhs_shape) != len(rhs_shape):
        raise TypeError(
            f"convolution requires lhs and rhs ndim to be equal, got {len(lhs_shape)} and "
            f"{len(rhs_shape)}."
        )
    if dimension_numbers is None:
        iota = tuple(range(len(lhs_shape)))
        return ConvDimensionNumbers(iota, iota, iota)
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return dimension_numbers
    if not isinstance(dimension_numbers, (list, tuple)):
        raise TypeError(
            "convolution dimension_numbers must be tuple/list or None, got "
            f"{type(dimension_numbers)}."
        )
    if len(dimension_numbers) != 3:
        raise TypeError(
            "convolution dimension_numbers list/tuple must be length 3, got "
            f"{len(dimension_numbers)}."
        )
    if not all(isinstance(s, str) for s in dimension_numbers):
        raise TypeError(
            "convolution dimension_numbers elements must be strings, got "
            f"{tuple(type(s) for s in dimension_numbers)}."
        )
    lhs_str, rhs_str, out_str = dimension_numbers
    for i, s in enumerate(dimension_numbers):
        if len(s) != len(lhs_shape):
            raise TypeError(
                f"convolution dimension_numbers[{i}] must have len equal to the ndim of lhs and "
                f"rhs, got {len(s)} for lhs and rhs shapes {lhs_shape} and {rhs_shape}."
            )
    for i, (s, chars) in enumerate(((lhs_str, "NC"), (rhs_str, "OI"), (out_str, "NC"))):
        if any(s.count(c) != 1 for c in chars):
            raise TypeError(
                f"convolution dimension_numbers[{i}] must contain the characters "
                f"'{chars[0]}' and '{chars[1]}' exactly once, got {s}."
            )
        if len(set(s)) != len(s):
            raise TypeError(
                f"convolution dimension_numbers[{i}] cannot have duplicate characters, got {s}."
            )
    spatial = [c for c in rhs_str if c not in "OI"]
    if set(spatial) != set(lhs_str) - set("NC") or set(spatial) != set(out_str) - set("NC"):
        raise TypeError(
            "convolution dimension_numbers elements must each have the same set of spatial "
            f"characters, got {tuple(dimension_numbers)}."
        )
    # Spatial dimensions are matched by letter and taken in the kernel's order.
    return ConvDimensionNumbers(
        (lhs_str.index("N"), lhs_str.index("C"), *(lhs_str.index(c) for c in spatial)),
        (rhs_str.index("O"), rhs_str.index("I"), *(rhs_str.index(c) for c in spatial)),
        (out_str.index("N"), out_str.index("C"), *(out_str.index(c) for c in spatial)),
    )


def padtype_to_pads(in_shape, window_shape, window_strides, padding: str) -> list[tuple[int, int]]:
    """Explicit (low, high) padding for ``'SAME'``, ``'SAME_LOWER'`` or ``'VALID'``.

    >>> lax.padtype_to_pads((10,), (4,), (1,), "SAME")
    [(1, 2)]
    """
    kind = padding.upper() if isinstance(padding, str) else padding
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    if kind not in ("SAME", "SAME_LOWER"):
        raise RuntimeError(
            f"Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got {padding}."
        )
    pads = []
    for n, k, s in zip(in_shape, window_shape, window_strides):
        out = -(-n // s)
        total = max(0, (out - 1) * s + k - n)
        small, big = total // 2, total - total // 2
        pads.append((small, big) if kind == "SAME" else (big, small))
    return pads


def _dilate(n: int, d: int) -> int:
    return 0 if n == 0 else 1 + d * (n - 1)


def conv_general_dilated(
    lhs,
    rhs,
    window_strides: Sequence[int],
    padding,
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers=None,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision=None,
    preferred_element_type=None,
    out_sharding=None,
):
    """General n-dimensional convolution (cross-correlation, as in XLA: the kernel is not
    flipped).

    ``padding`` is ``'SAME'``, ``'SAME_LOWER'``, ``'VALID'`` or a (low, high) pair per spatial
    dimension; ``lhs_dilation`` > 1 gives a transposed convolution; ``dimension_numbers`` is
    ``None``, a ``ConvDimensionNumbers`` or layout strings like ``('NHWC', 'HWIO', 'NHWC')``.

    >>> x, k = jnp.ones((1, 3, 8, 8)), jnp.ones((4, 3, 3, 3))
    >>> lax.conv_general_dilated(x, k, (1, 1), "SAME").shape
    (1, 4, 8, 8)
    """
    lhs_shape, rhs_shape = np.shape(lhs), np.shape(rhs)
    dnums = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    nsp = len(lhs_shape) - 2
    lhs_dilation = (1,) * nsp if lhs_dilation is None else _ints(lhs_dilation)
    rhs_dilation = (1,) * nsp if rhs_dilation is None else _ints(rhs_dilation)
    window_strides = _ints(window_strides)
    if isinstance(padding, str):
        if any(d != 1 for d in lhs_dilation):
            raise ValueError(
                "String padding is not implemented for transposed convolution using this op. "
                "Please either exactly specify the required padding or use conv_transpose."
            )
        if any(s <= 0 for s in window_strides):  # checked here too: the pads divide by them
            raise ValueError(
                f"conv_general_dilated window_strides must be positive, got {window_strides}."
            )
        in_sp = [lhs_shape[d] for d in dnums.lhs_spec[2:]]
        k_sp = [_dilate(rhs_shape[d], r) for d, r in zip(dnums.rhs_spec[2:], rhs_dilation)]
        padding = padtype_to_pads(in_sp, k_sp, window_strides, padding)
    try:
        padding = tuple((operator.index(lo), operator.index(hi)) for lo, hi in padding)
    except (TypeError, ValueError):
        raise TypeError(
            "conv_general_dilated: padding must be a string or a sequence of (low, high) "
            f"integer pairs, got {padding!r}."
        ) from None
    dnums = ConvDimensionNumbers(*(tuple(s) for s in dnums))
    return conv_general_dilated_p.bind(
        lhs,
        rhs,
        window_strides=window_strides,
        padding=padding,
        lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation,
        dimension_numbers=dnums,
        feature_group_count=operator.index(feature_group_count),
        batch_group_count=operator.index(batch_group_count),
        precision=canonicalize_precision(precision, "conv_general_dilated"),
        preferred_element_type=canonicalize_preferred(preferred_element_type),
        out_sharding=out_sharding,
    )


def conv(
    lhs,
    rhs,
    window_strides: Sequence[int],
    padding: str,
    precision=None,
    preferred_element_type=None,
):
    """Convolution in NCHW/OIHW layout without dilation.

    >>> lax.conv(jnp.ones((1, 1, 5)), jnp.ones((1, 1, 3)), (1,), "VALID")
    Array([[[3., 3., 3.]]], dtype=float32)
    """
    return conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


def conv_with_general_padding(
    lhs,
    rhs,
    window_strides,
    padding,
    lhs_dilation,
    rhs_dilation,
    precision=None,
    preferred_element_type=None,
):
    """Convolution in NCHW/OIHW layout with explicit padding and dilations."""
    return conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


# ---------------------------------------------------------------------------------------------
# Rules


def _check_preferred(in_dtype: np.dtype, preferred: np.dtype) -> None:
    # Integer inputs may accumulate in any float; otherwise the kinds must agree, signed stays
    # signed, and the accumulator may not be narrower than the inputs.
    int_to_float = dtypes.issubdtype(in_dtype, np.integer) and dtypes.issubdtype(
        preferred, np.floating
    )
    if not int_to_float:
        for kind in (np.integer, np.floating, np.complexfloating):
            if dtypes.issubdtype(in_dtype, kind) and not dtypes.issubdtype(preferred, kind):
                raise TypeError(
                    "Input type is incompatible with `preferred_element_type`. The compatible "
                    "combinations of (input_type, preferred_element_type) are (integral, "
                    "integral), (integral, floating), (floating, floating), (complex, complex), "
                    f"got ({in_dtype.name}, {preferred.name})."
                )
        if dtypes.issubdtype(in_dtype, np.signedinteger) and not dtypes.issubdtype(
            preferred, np.signedinteger
        ):
            raise TypeError(
                "`preferred_element_type` must have the same signedness as the original type, "
                f"got {preferred.name} for {in_dtype.name}."
            )
    if preferred.itemsize < in_dtype.itemsize:
        raise TypeError(
            "`preferred_element_type` must not be narrower than the original type, got "
            f"preferred_element_type of {preferred.name} for input type {in_dtype.name}."
        )


def _conv_dtype(lhs, rhs, preferred):
    if lhs.dtype != rhs.dtype:
        raise TypeError(
            "lax.conv_general_dilated requires arguments to have the same dtypes, got "
            f"{lhs.dtype.name}, {rhs.dtype.name}."
        )
    if preferred is None:
        return lhs.dtype
    _check_preferred(lhs.dtype, preferred)
    return preferred


def _conv_shape(
    lhs,
    rhs,
    *,
    window_strides,
    padding,
    lhs_dilation,
    rhs_dilation,
    dimension_numbers,
    feature_group_count,
    batch_group_count,
):
    name = "conv_general_dilated"
    if lhs.ndim != rhs.ndim:
        raise TypeError(
            f"convolution requires lhs and rhs ndim to be equal, got {lhs.ndim} and {rhs.ndim}."
        )
    lspec, rspec, ospec = dimension_numbers
    for i, spec in enumerate(dimension_numbers):
        if sorted(spec) != list(range(lhs.ndim)):
            raise TypeError(
                f"{name}: dimension_numbers[{i}] {tuple(spec)} is not a permutation of the "
                f"{lhs.ndim} dimensions of operands of shapes {lhs.shape} and {rhs.shape}."
            )
    nsp = lhs.ndim - 2
    if len(window_strides) != nsp:
        raise ValueError(
            f"{name} window and window_strides must have the same number of dimensions, but "
            f"got {nsp} and {len(window_strides)}"
        )
    if any(s <= 0 for s in window_strides):
        raise ValueError(f"{name} window_strides must be positive, got {window_strides}.")
    if len(padding) != nsp:
        raise TypeError(
            f"Wrong number of explicit pads for convolution: expected {nsp}, got {len(padding)}."
        )
    for what, dil in (("lhs_dilation", lhs_dilation), ("rhs_dilation", rhs_dilation)):
        if len(dil) != nsp:
            raise ValueError(
                f"{name} {what} must have one entry per spatial dimension ({nsp}), got {dil}."
            )
        if any(d <= 0 for d in dil):
            raise TypeError(f"All dilations must be positive, got {dil}.")
    g, b = feature_group_count, batch_group_count
    if g < 1 or b < 1:
        raise ValueError(
            f"{name} feature_group_count and batch_group_count must be positive integers, got "
            f"{g} and {b}."
        )
    if g > 1 and b > 1:
        raise ValueError(
            f"At most one of batch_group_count and feature_group_count may be > 1, got "
            f"batch_group_count={b} and feature_group_count={g}"
        )
    n, c = lhs.shape[lspec[0]], lhs.shape[lspec[1]]
    o, i = rhs.shape[rspec[0]], rhs.shape[rspec[1]]
    if c % g:
        raise ValueError(
            f"{name} feature_group_count must divide lhs feature dimension size, but {g} does "
            f"not divide {c}."
        )
    if c // g != i:
        raise ValueError(
            f"{name} lhs feature dimension size divided by feature_group_count must equal the "
            f"rhs input feature dimension size, but {c} // {g} != {i}."
        )
    if o % g:
        raise ValueError(
            f"{name} rhs output feature dimension size must be a multiple of "
            f"feature_group_count, but {o} is not a multiple of {g}."
        )
    if n % b:
        raise ValueError(
            f"{name} batch_group_count must divide lhs batch dimension size, but {b} does not "
            f"divide {n}."
        )
    if o % b:
        raise ValueError(
            f"{name} rhs output feature dimension size must be a multiple of batch_group_count, "
            f"but {o} is not a multiple of {b}."
        )
    ordered = [n // b, o]
    for k in range(nsp):
        size = _dilate(lhs.shape[lspec[2 + k]], lhs_dilation[k]) + sum(padding[k])
        win = _dilate(rhs.shape[rspec[2 + k]], rhs_dilation[k])
        ordered.append(max(0, (size - win) // window_strides[k] + 1) if size >= win else 0)
    out = [0] * lhs.ndim
    for pos, d in zip(ospec, ordered):
        out[pos] = d
    return tuple(out)


def _conv_abstract_eval(lhs, rhs, *, precision, preferred_element_type, out_sharding, **params):
    shape = _conv_shape(lhs, rhs, **params)
    dt = _conv_dtype(lhs, rhs, preferred_element_type)
    return ShapedArray(shape, dt, lhs.weak_type and rhs.weak_type)


def _conv_impl(
    lhs,
    rhs,
    *,
    window_strides,
    padding,
    lhs_dilation,
    rhs_dilation,
    dimension_numbers,
    feature_group_count,
    batch_group_count,
    precision,
    preferred_element_type,
    out_sharding,
):
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    out_dtype = preferred_element_type or lhs.dtype
    cdt = compute_dtype(lhs.dtype, out_dtype)
    if cdt == np.bool_:
        cdt = np.dtype(np.int32)  # count matches, then test for any
    lspec, rspec, ospec = dimension_numbers
    x = np.transpose(lhs, lspec).astype(cdt, copy=False)  # (N, C, spatial...)
    w = np.transpose(rhs, rspec).astype(cdt, copy=False)  # (O, I, spatial...)
    nsp = x.ndim - 2
    sp = tuple(range(2, 2 + nsp))
    # Dilate the input: insert (d - 1) zeros between neighbours.
    if any(d > 1 for d in lhs_dilation):
        shape = x.shape[:2] + tuple(_dilate(n, d) for n, d in zip(x.shape[2:], lhs_dilation))
        y = np.zeros(shape, cdt)
        y[(slice(None), slice(None), *(slice(None, None, d) for d in lhs_dilation))] = x
        x = y
    # Pad (negative padding crops).
    pos = [(0, 0), (0, 0)] + [(max(lo, 0), max(hi, 0)) for lo, hi in padding]
    if any(p != (0, 0) for p in pos):
        x = np.pad(x, pos)
    crop = [slice(None), slice(None)] + [
        slice(max(-lo, 0), x.shape[2 + k] - max(-hi, 0)) for k, (lo, hi) in enumerate(padding)
    ]
    x = x[tuple(crop)]
    win = tuple(_dilate(k, d) for k, d in zip(w.shape[2:], rhs_dilation))
    n, c = x.shape[:2]
    o = w.shape[0]
    g, b = feature_group_count, batch_group_count
    out_sp = tuple(
        max(0, (x.shape[2 + k] - win[k]) // window_strides[k] + 1)
        if x.shape[2 + k] >= win[k]
        else 0
        for k in range(nsp)
    )
    ordered_shape = (n // b, o, *out_sp)
    if 0 in ordered_shape or 0 in x.shape[1:2] or 0 in w.shape[1:]:
        res = np.zeros(ordered_shape, cdt)
    else:
        # Drop trailing input that no window reaches.
        used = (slice(0, s * (m - 1) + k) for s, m, k in zip(window_strides, out_sp, win))
        x = x[(slice(None), slice(None), *used)]
        # (N, C, out spatial..., window...) as a strided view of x.
        views = np.lib.stride_tricks.sliding_window_view(x, win, axis=sp)
        views = views[
            (slice(None), slice(None))
            + tuple(slice(None, None, s) for s in window_strides)
            + tuple(slice(None, None, d) for d in rhs_dilation)
        ]
        win_axes = tuple(range(2 + nsp, 2 + 2 * nsp))
        with np.errstate(all="ignore"):
            if g == 1 and b == 1:
                res = np.tensordot(views, w, axes=((1, *win_axes), (1, *sp)))
                res = np.moveaxis(res, -1, 1)  # (N, out spatial..., O) -> (N, O, ...)
            elif g > 1:
                cg, og = c // g, o // g
                parts = [
                    np.tensordot(
                        views[:, k * cg : (k + 1) * cg],
                        w[k * og : (k + 1) * og],
                        axes=((1, *win_axes), (1, *sp)),
                    )
                    for k in range(g)
                ]
                res = np.moveaxis(np.concatenate(parts, axis=-1), -1, 1)
            else:
                # Batch group k of the input (batch rows k*nb:(k+1)*nb) meets output features
                # k*ob:(k+1)*ob of the kernel.
                nb, ob = n // b, o // b
                parts = [
                    np.tensordot(
                        views[k * nb : (k + 1) * nb],
                        w[k * ob : (k + 1) * ob],
                        axes=((1, *win_axes), (1, *sp)),
                    )
                    for k in range(b)
                ]
                res = np.moveaxis(np.concatenate(parts, axis=-1), -1, 1)
    if lhs.dtype == np.bool_ and out_dtype == np.bool_:
        res = res != 0
    res = np.transpose(res, np.argsort(ospec))
    return to_result(np.ascontiguousarray(res), np.dtype(out_dtype))


# ---------------------------------------------------------------------------------------------
# Batching: the mapped dimension is folded into a dimension of the convolution itself (the
# input's batch dimension, the kernel's output features, or feature/batch groups) and split
# out of the result again.


def _fold_in(x, bdim: int, dim: int, group: int):
    """``x`` without its mapped dimension ``bdim`` (size B), which is folded into dimension
    ``dim`` (numbered without ``bdim``; size ``group * r``) in the order (group, B, r)."""
    nd = np.ndim(x)
    b = x.shape[bdim]
    perm = [i for i in range(nd) if i != bdim]
    perm.insert(dim, bdim)
    rest = [x.shape[i] for i in range(nd) if i != bdim]
    if group == 1:
        return reshape(x, (*rest[:dim], b * rest[dim], *rest[dim + 1 :]), perm)
    # (B, group, r) at dim, then swap B behind the group, then merge the three.
    r = rest[dim] // group
    x = reshape(x, (*rest[:dim], b, group, r, *rest[dim + 1 :]), perm)
    swap = list(range(nd + 1))
    swap[dim], swap[dim + 1] = dim + 1, dim
    return reshape(x, (*rest[:dim], group * b * r, *rest[dim + 1 :]), swap)


def _split_out(x, dim: int, group: int, b: int):
    """Undo ``_fold_in`` on a result: dimension ``dim``, ordered (group, B, r), becomes B at
    ``dim`` followed by (group, r) at ``dim + 1``."""
    shape = x.shape
    r = shape[dim] // (group * b)
    if group == 1:
        return reshape(x, (*shape[:dim], b, r, *shape[dim + 1 :]))
    x = reshape(x, (*shape[:dim], group, b, r, *shape[dim + 1 :]))
    swap = list(range(len(shape) + 2))
    swap[dim], swap[dim + 1] = dim + 1, dim
    return reshape(x, (*shape[:dim], b, group * r, *shape[dim + 1 :]), swap)


def _conv_vmap(axis_data, vals, dims, **params):
    (lhs, rhs), (ld, rd) = vals, dims
    lspec, rspec, ospec = params["dimension_numbers"]
    fgc, bgc = params["feature_group_count"], params["batch_group_count"]
    b = axis_data.size
    if ld is not None and rd is not None:
        if bgc > 1:
            # Each mapped pair brings its own batch groups: N -> (B, groups, n), O likewise.
            lhs = _fold_in(lhs, ld, lspec[0], 1)
            rhs = _fold_in(rhs, rd, rspec[0], 1)
            out = conv_general_dilated_p.bind(lhs, rhs, **{**params, "batch_group_count": bgc * b})
            return _split_out(out, ospec[1], 1, b), ospec[1]
        # Each mapped pair becomes its own feature group(s): C -> (B, C), O -> (B, O).
        lhs = _fold_in(lhs, ld, lspec[1], 1)
        rhs = _fold_in(rhs, rd, rspec[0], 1)
        out = conv_general_dilated_p.bind(lhs, rhs, **{**params, "feature_group_count": fgc * b})
        return _split_out(out, ospec[1], 1, b), ospec[1]
    if ld is not None:
        # More images: N -> (batch groups, B, n); the result's N is (B, n).
        lhs = _fold_in(lhs, ld, lspec[0], bgc)
        out = conv_general_dilated_p.bind(lhs, rhs, **params)
        return _split_out(out, ospec[0], 1, b), ospec[0]
    # More output features: O -> (groups, B, o), so each group keeps its own kernels.
    group = max(fgc, bgc)
    rhs = _fold_in(rhs, rd, rspec[0], group)
    out = conv_general_dilated_p.bind(lhs, rhs, **params)
    return _split_out(out, ospec[1], group, b), ospec[1]


# ---------------------------------------------------------------------------------------------
# Autodiff: bilinear; each transpose is again a convolution.


def _conv_jvp_lhs(t, lhs, rhs, **params):
    return conv_general_dilated_p.bind(t, rhs, **params)


def _conv_jvp_rhs(t, lhs, rhs, **params):
    return conv_general_dilated_p.bind(lhs, t, **params)


def _move_group(x, src: int, dst: int, group: int):
    """Split dimension ``src`` into (group, r) and fold the group into dimension ``dst`` as
    its major part."""
    shape = list(x.shape)
    split = (*shape[:src], group, shape[src] // group, *shape[src + 1 :])
    x = reshape(x, split)
    perm = [i for i in range(len(split)) if i != src]
    perm.insert(dst, src)
    out = list(shape)
    out[src] //= group
    out[dst] *= group
    return reshape(x, out, perm)


def _cast(x, dtype):
    return x if x.dtype == dtype else convert_element_type(x, dtype)


def _common_dtype(ct, other):
    # The cotangent has the result type (``preferred_element_type``); compute in it.
    if other.dtype != ct.dtype:
        other = convert_element_type(other, ct.dtype)
    return other


def _conv_transpose_lhs(ct, rhs, lhs_aval, params):
    lspec, rspec, ospec = params["dimension_numbers"]
    fgc, bgc = params["feature_group_count"], params["batch_group_count"]
    strides, pads = params["window_strides"], params["padding"]
    ldil, rdil = params["lhs_dilation"], params["rhs_dilation"]
    # Input position p (of the dilated, padded input) met kernel tap k at output o when
    # p = o * stride + k * rdil: the cotangent is the stride-dilated ct correlated with the
    # flipped kernel, read back at the positions of the (dilated) input elements.
    new_pads = []
    for i in range(len(strides)):
        n_in = lhs_aval.shape[lspec[2 + i]]
        n_out = ct.shape[ospec[2 + i]]
        k = _dilate(rhs.shape[rspec[2 + i]], rdil[i])
        lo = k - 1 - pads[i][0]
        hi = (n_in - 1) * ldil[i] + 1 + pads[i][0] - _dilate(n_out, strides[i])
        new_pads.append((lo, hi))
    w = _common_dtype(ct, rhs)
    groups = max(fgc, bgc)
    if groups > 1:
        # Kernel output features (group, o) -> the group moves to the input features, which
        # become the transposed kernel's output features.
        w = _move_group(w, rspec[0], rspec[1], groups)
    w = rev(w, tuple(rspec[2:]))
    out = conv_general_dilated_p.bind(
        ct,
        w,
        window_strides=ldil,
        padding=tuple(new_pads),
        lhs_dilation=strides,
        rhs_dilation=rdil,
        dimension_numbers=ConvDimensionNumbers(
            tuple(ospec), (rspec[1], rspec[0], *rspec[2:]), tuple(lspec)
        ),
        feature_group_count=groups,
        batch_group_count=1,
        precision=params["precision"],
        preferred_element_type=params["preferred_element_type"],
        out_sharding=None,
    )
    if bgc > 1:
        # Result features are (batch group, c): the group goes back to the batch dimension.
        out = _move_group(out, lspec[1], lspec[0], bgc)
    return out


def _conv_transpose_rhs(ct, lhs, rhs_aval, params):
    lspec, rspec, ospec = params["dimension_numbers"]
    fgc, bgc = params["feature_group_count"], params["batch_group_count"]
    strides, pads = params["window_strides"], params["padding"]
    ldil, rdil = params["lhs_dilation"], params["rhs_dilation"]
    # Kernel tap k met input position o * stride + k * rdil: a convolution of the input
    # (features and batch exchanged) with ct as kernel, strided by rdil and dilated by stride.
    new_pads = []
    for i in range(len(strides)):
        n_in = _dilate(lhs.shape[lspec[2 + i]], ldil[i])
        n_out = ct.shape[ospec[2 + i]]
        k = rhs_aval.shape[rspec[2 + i]]
        lo = pads[i][0]
        hi = (k - 1) * rdil[i] + _dilate(n_out, strides[i]) - n_in - lo
        new_pads.append((lo, hi))
    # Feature groups pair input channel groups with output feature groups: batch groups here,
    # and the other way round.
    return conv_general_dilated_p.bind(
        _common_dtype(ct, lhs),
        ct,
        window_strides=rdil,
        padding=tuple(new_pads),
        lhs_dilation=ldil,
        rhs_dilation=strides,
        dimension_numbers=ConvDimensionNumbers(
            (lspec[1], lspec[0], *lspec[2:]),
            (ospec[1], ospec[0], *ospec[2:]),
            (rspec[1], rspec[0], *rspec[2:]),
        ),
        feature_group_count=bgc,
        batch_group_count=fgc,
        precision=params["precision"],
        preferred_element_type=params["preferred_element_type"],
        out_sharding=None,
    )


def _conv_transpose(ct, lhs, rhs, **params):
    if ad.is_undefined_primal(lhs) and ad.is_undefined_primal(rhs):
        raise NotImplementedError(
            "conv_general_dilated transpose: both operands are linear inputs."
        )
    if ad.is_undefined_primal(lhs):
        ct_lhs = _conv_transpose_lhs(ct, rhs, lhs.aval, params)
        return [_cast(ct_lhs, lhs.aval.dtype), None]
    ct_rhs = _conv_transpose_rhs(ct, lhs, rhs.aval, params)
    return [None, _cast(ct_rhs, rhs.aval.dtype)]


conv_general_dilated_p = core.Primitive("conv_general_dilated")
conv_general_dilated_p.def_abstract_eval(_conv_abstract_eval)
conv_general_dilated_p.def_impl(_conv_impl)
batching.primitive_batchers[conv_general_dilated_p] = _conv_vmap
defjvp(conv_general_dilated_p, _conv_jvp_lhs, _conv_jvp_rhs)
ad.primitive_transposes[conv_general_dilated_p] = _conv_transpose


def _conv_sharding(specs, avals, *, dimension_numbers, batch_group_count, **params):
    # The result's batch and spatial dimensions keep the input's sharding, its feature
    # dimension the kernel's output-feature sharding (as JAX propagates them).
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    ls, rs = (s or (None,) * a.ndim for s, a in zip(specs, avals))
    out = [None] * len(out_spec)
    if batch_group_count == 1:
        out[out_spec[0]] = ls[lhs_spec[0]]
    out[out_spec[1]] = rs[rhs_spec[0]]
    for i, d in enumerate(out_spec[2:]):
        out[d] = ls[lhs_spec[2 + i]]
    return tuple(out)


sharding_rules.sharding_rules[conv_general_dilated_p] = _conv_sharding


__all__ = [
    "ConvDimensionNumbers",
    "conv",
    "conv_dimension_numbers",
    "conv_general_dilated",
    "conv_general_dilated_p",
    "conv_with_general_padding",
    "padtype_to_pads",
]
