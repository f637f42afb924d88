"""Convolutions built on ``conv_general_dilated``: the transposed (fractionally strided)
convolution, patch extraction, the unshared (locally connected) convolution, and the shape
helpers that go with them.

None of these is a primitive of its own: each is one or two ``conv_general_dilated`` calls
(plus an einsum for the unshared case), so jit, vmap, autodiff and sharding come from that
primitive's rules.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Union

import numpy as np

from spmd._src import dtypes
from spmd._src.lax.convolution import (
    ConvDimensionNumbers,
    _dilate,
    _ints,
    conv_dimension_numbers,
    conv_general_dilated,
    padtype_to_pads,
)
from spmd._src.lax.shape import rev

# What ``dimension_numbers`` may be: None (NCHW/OIHW/NCHW order), ConvDimensionNumbers, or
# three layout strings such as ("NHWC", "HWIO", "NHWC").
ConvGeneralDilatedDimensionNumbers = Union[tuple[str, str, str], ConvDimensionNumbers, None]  # noqa: UP007 (a runtime alias, as in JAX)


# ---------------------------------------------------------------------------------------------
# Shapes


def conv_shape_tuple(lhs_shape, rhs_shape, strides, pads, batch_group_count: int = 1) -> tuple:
    """Result shape of a convolution in NCHW/OIHW order with explicit ``pads`` ((low, high)
    per spatial dimension, or a padding string).

    >>> lax.conv_shape_tuple((2, 3, 10, 10), (4, 3, 3, 3), (1, 1), [(1, 1), (1, 1)])
    (2, 4, 10, 10)
    """
    lhs_shape, rhs_shape = tuple(lhs_shape), tuple(rhs_shape)
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError(
            f"conv_shape_tuple: expected {len(lhs_shape) - 2} (low, high) padding pairs for "
            f"lhs shape {lhs_shape}, got {len(pads)}."
        )
    padded = [n + lo + hi for n, (lo, hi) in zip(lhs_shape[2:], pads)]
    spatial = [max(0, (p - k) // s + 1) for p, k, s in zip(padded, rhs_shape[2:], strides)]
    return (lhs_shape[0] // batch_group_count, rhs_shape[0], *spatial)


def conv_general_permutations(dimension_numbers) -> tuple[tuple[int, ...], ...]:
    """For layout strings ``(lhs, rhs, out)``, the permutations taking each operand to
    NCHW/OIHW/NCHW order (the ``ConvDimensionNumbers`` specs).

    >>> lax.conv_general_permutations(("NHWC", "HWIO", "NHWC"))
    ((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    """
    lhs, rhs, out = dimension_numbers
    n = len(lhs)
    dn = conv_dimension_numbers((0,) * n, (0,) * n, (lhs, rhs, out))
    return tuple(tuple(s) for s in dn)


def _permute(shape, spec) -> tuple:
    return tuple(shape[i] for i in spec)


def _unpermute(shape, spec) -> tuple:
    out = [0] * len(shape)
    for i, d in zip(spec, shape):
        out[i] = d
    return tuple(out)


def conv_general_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    """Result shape of ``conv_general_dilated`` (no dilation) in the output's layout.

    >>> lax.conv_general_shape_tuple((2, 10, 10, 3), (3, 3, 3, 4), (1, 1), "SAME",
    ...                              ("NHWC", "HWIO", "NHWC"))
    (2, 10, 10, 4)
    """
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lhs = _permute(tuple(lhs_shape), dn.lhs_spec)
    rhs = _permute(tuple(rhs_shape), dn.rhs_spec)
    out = conv_shape_tuple(lhs, rhs, window_strides, padding)
    return _unpermute(out, dn.out_spec)


def conv_transpose_shape_tuple(lhs_shape, rhs_shape, window_strides, padding, dimension_numbers):
    """Result shape of ``conv_transpose`` with string ``padding`` ('SAME': each spatial size
    times its stride; 'VALID': plus ``max(kernel - stride, 0)``) in the output's layout.

    >>> lax.conv_transpose_shape_tuple((2, 10, 10, 3), (3, 3, 3, 4), (2, 2), "SAME",
    ...                                ("NHWC", "HWIO", "NHWC"))
    (2, 20, 20, 4)
    """
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lhs = _permute(tuple(lhs_shape), dn.lhs_spec)
    rhs = _permute(tuple(rhs_shape), dn.rhs_spec)
    kind = padding.upper() if isinstance(padding, str) else None
    if kind not in ("SAME", "VALID"):
        raise ValueError(
            f"conv_transpose_shape_tuple: padding must be 'SAME' or 'VALID', got {padding!r}."
        )
    spatial = []
    for n, k, s in zip(lhs[2:], rhs[2:], window_strides):
        spatial.append(n * s if kind == "SAME" else n * s + max(k - s, 0))
    return _unpermute((lhs[0], rhs[0], *spatial), dn.out_spec)


# ---------------------------------------------------------------------------------------------
# conv_transpose


def _transpose_pads(kind: str, k: int, s: int) -> tuple[int, int]:
    """Padding of the lhs-dilated convolution that ``conv_transpose`` runs, for a kernel of
    dilated size ``k`` and stride ``s``: 'VALID' gives ``n*s + max(k - s, 0)`` outputs,
    'SAME' ``n*s``, with the kernel's first tap on the first input when the stride exceeds
    the kernel's reach and centred otherwise."""
    if kind == "VALID":
        return k - 1, k - 1 + max(s - k, 0)
    total = s + k - 2
    lo = k - 1 if s > k - 1 else (total + 1) // 2
    return lo, total - lo


def _default_transpose_dnums(ndim: int) -> tuple[str, str, str]:
    # Channels last with a spatial..IO kernel, as flax's and TensorFlow's transposed
    # convolutions lay them out (the letters only name the spatial dimensions).
    spatial = "HWDEFGJKLMPQRSTUVXYZAB"[: ndim - 2]
    return ("N" + spatial + "C", spatial + "IO", "N" + spatial + "C")


def conv_transpose(
    lhs,
    rhs,
    strides: Sequence[int],
    padding,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers=None,
    transpose_kernel: bool = False,
    precision=None,
    preferred_element_type=None,
    use_consistent_padding: bool = False,
):
    """N-dimensional transposed ("fractionally strided") convolution: the input dilated by
    ``strides``, then an ordinary convolution.

    ``padding`` is 'SAME' (``n * stride`` outputs per dimension), 'VALID'
    (``n * stride + max(k - stride, 0)``) or (low, high) pairs given to the dilated
    convolution as they are; with ``use_consistent_padding`` pairs are the padding of the
    forward convolution this one transposes (``dilation * (k - 1) - p`` is applied, PyTorch's
    convention). ``dimension_numbers`` defaults to channels last (``NHWC``/``HWIO``/``NHWC``
    for two spatial dimensions). The kernel is not flipped unless ``transpose_kernel``, which
    also swaps its I and O dimensions (TensorFlow's ``Conv2DTranspose``: the exact gradient
    of the forward convolution).

    >>> x, k = jnp.ones((1, 5, 5, 4)), jnp.ones((3, 3, 4, 6))
    >>> lax.conv_transpose(x, k, (2, 2), "SAME").shape
    (1, 10, 10, 6)
    """
    lhs_shape, rhs_shape = np.shape(lhs), np.shape(rhs)
    ndim = len(lhs_shape)
    if ndim < 2:
        raise TypeError(f"conv_transpose: lhs must have rank at least 2, got shape {lhs_shape}.")
    if dimension_numbers is None:
        dimension_numbers = _default_transpose_dnums(ndim)
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    nsp = ndim - 2
    strides = _ints(strides)
    if len(strides) != nsp:
        raise TypeError(
            f"conv_transpose: strides must have {nsp} entries for lhs shape {lhs_shape}, got "
            f"{strides}."
        )
    rhs_dilation = (1,) * nsp if rhs_dilation is None else _ints(rhs_dilation)
    k_sp = [rhs_shape[d] for d in dn.rhs_spec[2:]]
    k_eff = [_dilate(k, r) for k, r in zip(k_sp, rhs_dilation)]
    if isinstance(padding, str):
        kind = padding.upper()
        if kind not in ("SAME", "VALID"):
            raise ValueError(
                f"conv_transpose: padding must be 'SAME', 'VALID' or (low, high) pairs, got "
                f"{padding!r}."
            )
        if use_consistent_padding:
            # The forward convolution's own SAME/VALID padding, converted as for pairs below;
            # the high side then takes whatever the size conv_transpose_shape_tuple gives
            # still lacks (when the stride exceeds the kernel, the forward padding is zero).
            in_sp = [lhs_shape[d] for d in dn.lhs_spec[2:]]
            fwd = padtype_to_pads([n * s for n, s in zip(in_sp, strides)], k_eff, strides, kind)
            pads = []
            for n, s, k, (flo, fhi) in zip(in_sp, strides, k_eff, fwd):
                lo, hi = k - 1 - flo, k - 1 - fhi
                want = n * s + (max(k - s, 0) if kind == "VALID" else 0)
                pads.append((lo, hi + want - (_dilate(n, s) + lo + hi - k + 1)))
        else:
            pads = [_transpose_pads(kind, k, s) for k, s in zip(k_eff, strides)]
    else:
        try:
            pads = [(operator.index(lo), operator.index(hi)) for lo, hi in padding]
        except (TypeError, ValueError):
            raise TypeError(
                "conv_transpose: padding must be a string or a sequence of (low, high) integer "
                f"pairs, got {padding!r}."
            ) from None
        if use_consistent_padding:
            pads = [(k - 1 - lo, k - 1 - hi) for k, (lo, hi) in zip(k_eff, pads)]
    if transpose_kernel:
        rhs = rev(rhs, tuple(dn.rhs_spec[2:]))
        o, i = dn.rhs_spec[0], dn.rhs_spec[1]
        dn = ConvDimensionNumbers(dn.lhs_spec, (i, o, *dn.rhs_spec[2:]), dn.out_spec)
    return conv_general_dilated(
        lhs,
        rhs,
        (1,) * nsp,
        pads,
        lhs_dilation=strides,
        rhs_dilation=rhs_dilation,
        dimension_numbers=dn,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


# ---------------------------------------------------------------------------------------------
# Patches and the unshared convolution


def _patch_kernel(n_channels: int, filter_shape: tuple, rhs_spec, dtype):
    """The 0/1 kernel whose grouped convolution copies each window out: output feature
    ``c * P + p`` (``P`` window positions, ``p`` in row-major order over ``filter_shape``)
    takes input channel ``c`` at window position ``p``. Built with lax operations, as JAX
    traces it (its jaxpr shows the same equations)."""
    from spmd._src.lax.elementwise import add, convert_element_type, eq
    from spmd._src.lax.shape import broadcast_in_dim, broadcasted_iota, reshape, transpose

    positions = math.prod(filter_shape)
    square = (positions, positions)
    rows = add(broadcasted_iota(np.int32, square, 0), np.int32(0))
    eye = convert_element_type(eq(rows, broadcasted_iota(np.int32, square, 1)), dtype)
    k = broadcast_in_dim(eye, (n_channels, positions, positions), (1, 2))
    k = reshape(k, (n_channels * positions, 1, *filter_shape))  # (O, I=1, *filter) order
    return transpose(k, tuple(int(i) for i in np.argsort(rhs_spec)))


def _patch_args(name, lhs_shape, filter_shape, window_strides, dimension_numbers):
    ndim = len(lhs_shape)
    filter_shape = _ints(filter_shape)
    if len(filter_shape) != ndim - 2:
        raise TypeError(
            f"{name}: filter_shape must have {ndim - 2} entries for lhs shape "
            f"{tuple(lhs_shape)}, got {filter_shape}."
        )
    rhs_shape = (1, 1, *filter_shape)
    if dimension_numbers is not None and not isinstance(dimension_numbers, ConvDimensionNumbers):
        # Layout strings: the kernel's shape in its own layout, for the spec parser.
        _, rhs_str, _ = dimension_numbers
        spatial = iter(filter_shape)
        rhs_shape = tuple(1 if c in "OI" else next(spatial) for c in rhs_str)
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    return filter_shape, dn, _ints(window_strides)


def conv_general_dilated_patches(
    lhs,
    filter_shape: Sequence[int],
    window_strides: Sequence[int],
    padding,
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers=None,
    precision=None,
    preferred_element_type=None,
):
    """The patches ``conv_general_dilated`` would multiply a kernel of spatial shape
    ``filter_shape`` with: the feature dimension of the result holds each window flattened,
    channel-major (``C * prod(filter_shape)`` features, window positions in the kernel
    layout's spatial order).

    >>> x = jnp.arange(2 * 3 * 5 * 4.0).reshape(2, 3, 5, 4)
    >>> lax.conv_general_dilated_patches(x, (2, 2), (1, 1), "VALID").shape
    (2, 12, 4, 3)
    """
    lhs_shape = np.shape(lhs)
    filter_shape, dn, window_strides = _patch_args(
        "conv_general_dilated_patches", lhs_shape, filter_shape, window_strides, dimension_numbers
    )
    n_channels = lhs_shape[dn.lhs_spec[1]]
    kernel = _patch_kernel(n_channels, filter_shape, dn.rhs_spec, dtypes.dtype(lhs))
    return conv_general_dilated(
        lhs,
        kernel,
        window_strides,
        padding,
        lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation,
        dimension_numbers=dn,
        feature_group_count=n_channels,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


def conv_general_dilated_local(
    lhs,
    rhs,
    window_strides: Sequence[int],
    padding,
    filter_shape: Sequence[int],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers=None,
    precision=None,
):
    """Unshared ("locally connected") convolution: a separate kernel at every output
    position. ``rhs``'s spatial dimensions are the output's; its I dimension holds the input
    channels and the window positions flattened channel-major (as
    ``conv_general_dilated_patches`` lays them out).

    >>> x = jnp.ones((1, 2, 5, 5))
    >>> w = jnp.ones((3, 2 * 3 * 3, 3, 3))  # O, C*window, output H, output W
    >>> lax.conv_general_dilated_local(x, w, (1, 1), "VALID", (3, 3)).shape
    (1, 3, 3, 3)
    """
    from spmd._src.numpy.einsum import einsum  # lazy: jnp's einsum plans the contraction

    lhs_shape, rhs_shape = np.shape(lhs), np.shape(rhs)
    filter_shape, dn, window_strides = _patch_args(
        "conv_general_dilated_local", lhs_shape, filter_shape, window_strides, dimension_numbers
    )
    if len(rhs_shape) != len(lhs_shape):
        raise TypeError(
            f"conv_general_dilated_local: rhs must have rank {len(lhs_shape)} like lhs "
            f"{tuple(lhs_shape)}, got shape {tuple(rhs_shape)}."
        )
    patches = conv_general_dilated_patches(
        lhs,
        filter_shape,
        window_strides,
        padding,
        lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation,
        dimension_numbers=dn,
        precision=precision,
    )
    n_in = lhs_shape[dn.lhs_spec[1]] * math.prod(filter_shape)
    if rhs_shape[dn.rhs_spec[1]] != n_in:
        raise TypeError(
            f"conv_general_dilated_local: rhs's input feature dimension must be input channels "
            f"x prod(filter_shape) = {n_in}, got rhs shape {tuple(rhs_shape)}."
        )
    # Subscripts: the patches in the output layout, the kernel in its own, matched by role.
    letters = "abcdefghijklmnopqrstuvwxyz"
    nsp = len(lhs_shape) - 2
    n, f, o, sp = "N", "F", "O", letters[:nsp]
    pat = [""] * len(lhs_shape)
    for role, d in zip([n, f, *sp], dn.out_spec):
        pat[d] = role
    ker = [""] * len(lhs_shape)
    for role, d in zip([o, f, *sp], dn.rhs_spec):
        ker[d] = role
    res = [""] * len(lhs_shape)
    for role, d in zip([n, o, *sp], dn.out_spec):
        res[d] = role
    spec = f"{''.join(pat)},{''.join(ker)}->{''.join(res)}"
    return einsum(spec, patches, rhs, precision=precision)


__all__ = [
    "ConvGeneralDilatedDimensionNumbers",
    "conv_general_dilated_local",
    "conv_general_dilated_patches",
    "conv_general_permutations",
    "conv_general_shape_tuple",
    "conv_shape_tuple",
    "conv_transpose",
    "conv_transpose_shape_tuple",
]
