"""``lax.pad``: low, high and interior padding with a scalar value (negative edges crop)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from spmd._src import core
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.lax.rules import bdim_at_front, deflinear
from spmd._src.lax.shape import (
    _bool_scalar,
    _elementwise,
    _int_param,
    _reduce_sum,
    _resized_sharding_explicit,
    _zero_scalar,
    broadcast_in_dim,
    full,
    slice_p,
)
from spmd._src.lax.utils import standard_primitive


def pad(operand, padding_value, padding_config: Sequence[tuple[int, int, int]]):
    """Pad with ``padding_value``: (low, high, interior) per dimension; negative low/high
    remove elements."""
    cfg = tuple(tuple(_int_param(v) for v in c) for c in padding_config)
    return pad_p.bind(operand, padding_value, padding_config=cfg)


def _pad_shape(x, pv, *, padding_config):
    if pv.shape != ():
        raise TypeError(f"pad: padding_value must be a scalar, got shape {pv.shape}.")
    if len(padding_config) != x.ndim:
        raise TypeError(
            f"pad: padding_config {padding_config} must have one (low, high, interior) triple "
            f"per operand dimension (shape {x.shape})."
        )
    out = []
    for d, (lo, hi, interior) in zip(x.shape, padding_config):
        if interior < 0:
            raise TypeError(f"pad: interior padding must be non-negative, got {padding_config}")
        size = lo + hi + d + max(d - 1, 0) * interior
        if size < 0:
            raise TypeError(
                f"pad: dimension of size {d} padded by {(lo, hi, interior)} is negative"
            )
        out.append(int(size))
    return tuple(out)


def _pad_dtype(x, pv, *, padding_config):
    if x.dtype != pv.dtype:
        raise TypeError(
            f"pad: operand and padding value must have the same dtype, got {x.dtype.name} and "
            f"{pv.dtype.name}."
        )
    return x.dtype


def _pad_impl(x, pv, *, padding_config):
    # Interior padding first (into a bigger buffer), then the edges, cropping negative pads.
    shape = []
    for d, (_, _, interior) in zip(x.shape, padding_config):
        shape.append(d + max(d - 1, 0) * interior)
    buf = np.full(shape, pv, dtype=x.dtype)
    buf[tuple(np.s_[:: (i + 1)] for (_, _, i) in padding_config)] = x
    widths = [(max(lo, 0), max(hi, 0)) for lo, hi, _ in padding_config]
    out = np.pad(buf, widths, constant_values=pv) if any(w != (0, 0) for w in widths) else buf
    crop = tuple(
        np.s_[-min(lo, 0) : out.shape[i] + min(hi, 0)]
        for i, (lo, hi, _) in enumerate(padding_config)
    )
    return out[crop]


pad_p = standard_primitive(
    "pad", _pad_shape, _pad_dtype, _pad_impl, weak_type_rule=lambda x, pv, **_: x.weak_type
)


def _pad_vmap(axis_data, vals, dims, *, padding_config):
    (x, pv), (xd, pvd) = vals, dims
    if xd is None:
        x, xd = bdim_at_front(x, None, axis_data.size), 0
    cfg = (*padding_config[:xd], (0, 0, 0), *padding_config[xd:])
    if pvd is None:
        return pad_p.bind(x, pv, padding_config=cfg), xd
    # One padding value per batch element: pad with zeros, then select the padding value
    # wherever a mask padded the same way says the element is padding.
    el = _elementwise()
    padded = pad_p.bind(x, _zero_scalar(core.get_aval(x).dtype), padding_config=cfg)
    mask = pad_p.bind(full(np.shape(x), True, np.bool_), _bool_scalar(False), padding_config=cfg)
    fill = broadcast_in_dim(pv, np.shape(padded), (xd,))
    return el.select_n(mask, fill, padded), xd


def _pad_transpose(ct, x, pv, *, padding_config):
    lo, hi, interior = zip(*padding_config) if padding_config else ((), (), ())
    dtype = core.get_aval(ct).dtype

    def operand_ct():
        # Remove the edge padding (a negative pad; negative edges become zeros), then keep
        # every (interior + 1)-th element. (Parameters as NumPy integers and an unconditional
        # slice, as JAX emits them.)
        cfg = list(zip(np.negative(lo), np.negative(hi), np.zeros_like(interior)))
        unpadded = pad(ct, _zero_scalar(dtype), cfg)
        n = tuple(np.shape(unpadded))
        return slice_p.bind(
            unpadded,
            start_indices=tuple(np.zeros_like(lo)),
            limit_indices=n,
            strides=tuple(np.add(interior, 1)),
        )

    x_ct = operand_ct() if ad.is_undefined_primal(x) or ad.is_undefined_primal(pv) else None
    pv_ct = None
    if ad.is_undefined_primal(pv):
        # Everything not read back into the operand was padding.
        el = _elementwise()
        total = _reduce_sum(ct, range(np.ndim(ct)))
        pv_ct = el.sub(total, _reduce_sum(x_ct, range(np.ndim(x_ct))))
    return [x_ct if ad.is_undefined_primal(x) else None, pv_ct]


batching.primitive_batchers[pad_p] = _pad_vmap


def _pad_sharding(specs, avals, *, padding_config):
    return tuple(specs[0])


def _pad_sharding_explicit(specs, avals, *, padding_config):
    out = _pad_shape(avals[0], avals[1], padding_config=padding_config)
    return _resized_sharding_explicit("padding", specs, avals, out)


sharding_rules.sharding_rules[pad_p] = _pad_sharding
sharding_rules.backward_rules[pad_p] = sharding_rules.backward_same
sharding_rules.explicit_rules[pad_p] = _pad_sharding_explicit
deflinear(pad_p, _pad_transpose)


__all__ = ["pad", "pad_p"]
