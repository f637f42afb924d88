"""ragged_all_to_all: all_to_all of ragged slices (each a run of rows of a device's operand).

Parameters as in JAX: the axis names as a tuple, the groups as a tuple of tuples or None. On
top of JAX: the collective runs under ``vmap(axis_name=...)`` and with ``axis_index_groups``
everywhere (JAX rejects both when batching), a vmap of unbatched offsets broadcasts them, the
offsets and sizes are checked before any row moves, and the result is typed as varying over the
named axes (JAX types it like ``output``, though every device receives different rows).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src.core import ShapedArray
from spmd._src.errors import JaxRuntimeError
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.lax import elementwise as lax_elem
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.parallel import processes
from spmd._src.lax.parallel._common import (
    _check_groups,
    _check_positions,
    _describe,
    _flat_devices,
    _is_pos,
    _named,
    _names,
    _npos,
    _sizes,
    _unbound_impl,
    _unflat_devices,
)
from spmd._src.lax.parallel.axes import pvary_p
from spmd._src.lax.parallel.movement import all_to_all_p
from spmd._src.lax.rules import bdim_to, moveaxis
from spmd._src.util import prod

__all__ = ["ragged_all_to_all", "ragged_all_to_all_p"]

_FN = "ragged_all_to_all"
_INDEX_ARGS = ("input_offsets", "send_sizes", "output_offsets", "recv_sizes")


def ragged_all_to_all(
    operand: Any,
    output: Any,
    input_offsets: Any,
    send_sizes: Any,
    output_offsets: Any,
    recv_sizes: Any,
    *,
    axis_name: Any,
    axis_index_groups: Any = None,
) -> Any:
    """Send ragged slices of rows between the devices of ``axis_name``.

    With ``K`` entries in each of the four index arrays and ``n`` devices (per group with
    ``axis_index_groups``), ``s = K // n`` slices go from each device to each device: entry
    ``e`` of device ``i`` sends ``operand[input_offsets[e] : input_offsets[e] + send_sizes[e]]``
    to device ``e // s``, which writes the rows into its copy of ``output`` starting at row
    ``output_offsets[e]`` -- offsets given by the sender. The receiver's ``recv_sizes[i * s +
    t]`` must equal the sender's ``send_sizes[j * s + t]`` (``j`` the receiver). Rows of
    ``output`` that receive nothing keep their values.

    >>> f = lambda *a: lax.ragged_all_to_all(*a, axis_name="i")
    >>> operand = jnp.array([[1, 2, 2], [3, 4, 0]])
    >>> output = jnp.zeros((2, 4), jnp.int32)
    >>> offsets = jnp.array([[0, 1], [0, 1]])
    >>> send = jnp.array([[1, 2], [1, 1]])
    >>> out_offsets = jnp.array([[0, 0], [1, 2]])
    >>> recv = jnp.array([[1, 1], [2, 1]])
    >>> spmd.vmap(f, axis_name="i")(operand, output, offsets, send, out_offsets, recv)
    Array([[1, 3, 0, 0],
           [2, 2, 4, 0]], dtype=int32)
    """
    args = (operand, output, input_offsets, send_sizes, output_offsets, recv_sizes)
    names = _names(axis_name)
    if not core.trace_ctx.axis_env and not any(isinstance(a, core.Tracer) for a in args):
        raise RuntimeError(
            f"{_FN} over axis {_describe(names)} must run inside a map that binds the axis "
            "(spmd.shard_map, spmd.pmap, or spmd.vmap with axis_name); no axis is bound here."
        )
    n = prod(_sizes(names, _FN))
    groups = _check_groups(axis_index_groups, names, n, _FN, equal=True)
    m = n if groups is None else len(groups[0])
    _check_avals([core.get_aval(a) for a in args], names, m, groups is not None)
    return ragged_all_to_all_p.bind(*args, axis_name=names, axis_index_groups=groups)


def _check_avals(avals: list, names: tuple, m: int | None, grouped: bool) -> None:
    """The checks that need no values (per-device shapes and dtypes)."""
    op, out, *idx = avals
    count = f" ({m} devices{' per group' if grouped else ''})" if m is not None else ""
    axis = f"axis {_describe(names)}{count}"
    for arg, a in zip(_INDEX_ARGS, idx):
        if not dtypes.issubdtype(a.dtype, np.integer):
            raise ValueError(
                f"{_FN}: {arg} must be an array of integers, got dtype {a.dtype} (shape "
                f"{a.shape}) over {axis}."
            )
        if len(a.shape) != 1 or a.shape[0] < 1:
            raise ValueError(
                f"{_FN}: {arg} must have rank 1 and at least one entry (one per slice), got "
                f"shape {a.shape} over {axis}."
            )
    lengths = {arg: a.shape[0] for arg, a in zip(_INDEX_ARGS, idx)}
    if len(set(lengths.values())) > 1:
        # XLA's verifier rejects this when compiling JAX's program: JaxRuntimeError there too.
        raise JaxRuntimeError(
            f"{_FN}: input_offsets, send_sizes, output_offsets and recv_sizes must have the "
            f"same length (one entry per slice), got lengths {lengths} over {axis}."
        )
    k = idx[0].shape[0]
    if m is not None and k % m:
        raise ValueError(
            f"{_FN}: the {k} entries of input_offsets, send_sizes, output_offsets and "
            f"recv_sizes must be divisible by the number of devices of {axis}: the same number "
            "of slices goes to each device."
        )
    if op.ndim < 1 or out.ndim < 1 or op.shape[1:] != out.shape[1:]:
        raise ValueError(
            f"{_FN}: operand and output must have rank at least 1 and the same shape after "
            f"their leading (ragged) dimension, got operand shape {op.shape} and output shape "
            f"{out.shape} over {axis}."
        )
    if op.dtype != out.dtype:
        raise TypeError(
            f"{_FN}: operand and output must have the same dtype, got operand {op.dtype} and "
            f"output {out.dtype} over {axis}."
        )


def _group_size(entries: tuple, aval: ShapedArray, groups) -> int | None:
    """The devices per group; None where the names are not bound (sharding propagation
    evaluates a shard_map body's types outside its axes)."""
    if groups is not None:
        return len(groups[0])
    bound = dict(core.trace_ctx.axis_env)
    if any(n not in bound for n in _named(entries)):
        return None
    k = _npos(entries)
    return prod(aval.shape[:k]) * prod(_sizes(_named(entries), _FN))


def _ragged_abstract_eval(
    operand, output, input_offsets, send_sizes, output_offsets, recv_sizes, *, axis_name,
    axis_index_groups,
):  # fmt: skip
    entries = _names(axis_name)
    avals = (operand, output, input_offsets, send_sizes, output_offsets, recv_sizes)
    k = _check_positions(entries, output, _FN)
    lead = output.shape[:k]
    if any(a.shape[:k] != lead or a.ndim < k for a in avals):
        raise TypeError(
            f"{_FN}: positional device dimensions {entries} must lead every operand, got shapes "
            f"{[a.shape for a in avals]}"
        )
    per_device = [ShapedArray(a.shape[k:], a.dtype) for a in avals]
    m = _group_size(entries, output, axis_index_groups)
    _check_avals(per_device, _named(entries) or entries, m, axis_index_groups is not None)
    return ShapedArray(output.shape, output.dtype, False)


def _plan(idx: list[np.ndarray], n_rows: int, m_rows: int, groups) -> list[tuple]:
    """Every nonempty transfer as ``(sender, first row, receiver, first output row, rows)``
    after checking them all (devices numbered along the collective's combined axis)."""
    io, ss, oo, rs = idx
    n_dev, k = ss.shape
    g = np.arange(n_dev)[None] if groups is None else np.asarray(groups, np.int64)
    m = g.shape[1]
    s = k // m
    pos = np.arange(m)
    t = np.arange(s)
    snd = np.broadcast_to(g[:, :, None, None], (g.shape[0], m, m, s))
    rcv = np.broadcast_to(g[:, None, :, None], snd.shape)
    e_snd = np.broadcast_to(pos[None, None, :, None] * s + t, snd.shape)  # the sender's entry
    e_rcv = np.broadcast_to(pos[None, :, None, None] * s + t, snd.shape)  # the receiver's
    size, start, dest = ss[snd, e_snd], io[snd, e_snd], oo[snd, e_snd]
    want = rs[rcv, e_rcv]

    def fail(bad, msg):
        i = tuple(np.argwhere(bad)[0])
        a, b, ea, eb = int(snd[i]), int(rcv[i]), int(e_snd[i]), int(e_rcv[i])
        raise ValueError(f"{_FN}: " + msg(a, b, ea, eb, i) + " (devices numbered along the "
                         "collective's axes; checked before any row moved).")  # fmt: skip

    for arr, arg in ((size, "send_sizes"), (start, "input_offsets"), (dest, "output_offsets")):
        if (arr < 0).any():
            fail(arr < 0, lambda a, b, ea, eb, i, arr=arr, arg=arg: (
                f"{arg}[{ea}] of device {a} is {int(arr[i])}, negative"))  # fmt: skip
    if (start + size > n_rows).any():
        fail(start + size > n_rows, lambda a, b, ea, eb, i: (
            f"device {a} sends send_sizes[{ea}]={int(size[i])} rows from input_offsets[{ea}]="
            f"{int(start[i])}, past the end of its operand ({n_rows} rows)"))  # fmt: skip
    if (dest + size > m_rows).any():
        fail(dest + size > m_rows, lambda a, b, ea, eb, i: (
            f"device {a} sends send_sizes[{ea}]={int(size[i])} rows to device {b} at "
            f"output_offsets[{ea}]={int(dest[i])}, which overflow the output ({m_rows} rows)"
        ))  # fmt: skip
    if (want != size).any():
        fail(want != size, lambda a, b, ea, eb, i: (
            f"device {b} expects recv_sizes[{eb}]={int(want[i])} rows from device {a}, which "
            f"sends send_sizes[{ea}]={int(size[i])}"))  # fmt: skip
    live = size > 0
    cols = (snd[live], start[live], rcv[live], dest[live], size[live])
    order = np.lexsort((e_snd[live], cols[0]))  # sender by sender, in entry order
    return [tuple(int(c[j]) for c in cols) for j in order]


def _ragged_impl(
    operand, output, input_offsets, send_sizes, output_offsets, recv_sizes, *, axis_name,
    axis_index_groups,
):  # fmt: skip
    entries = _names(axis_name)
    _unbound_impl(_FN, entries)
    src, _ = _flat_devices(np.asarray(operand), entries)
    dst, shape = _flat_devices(np.asarray(output), entries)
    idx = [
        _flat_devices(np.asarray(a), entries)[0].astype(np.int64)
        for a in (input_offsets, send_sizes, output_offsets, recv_sizes)
    ]
    moves = _plan(idx, src.shape[1], dst.shape[1], axis_index_groups)
    out = dst.copy()
    for a, i0, b, o0, c in moves:
        out[b, o0 : o0 + c] = src[a, i0 : i0 + c]
    return _unflat_devices(out, entries, shape)


def _ragged_vmap_rule(axis_data, vals, dims, *, axis_name, axis_index_groups):
    entries = _names(axis_name)
    name, size = axis_data.name, axis_data.size
    if name is not None and name in entries:
        # This trace's axis: its devices become the front positional dimension of every operand.
        span = axis_data.span
        if span is None:
            vals = [bdim_to(v, d, 0, size) for v, d in zip(vals, dims)]
        else:
            # The axis lies in several processes: every operand over the whole of it.
            what = f"ragged_all_to_all over {name!r}"
            vals = [
                bdim_to(v, None, 0, span.total)
                if d is None
                else processes.peer_gather(moveaxis(v, d, 0), 0, span, what)
                for v, d in zip(vals, dims)
            ]
        new = tuple(0 if e == name else e + 1 if _is_pos(e) else e for e in entries)
        out = ragged_all_to_all_p.bind(*vals, axis_name=new, axis_index_groups=axis_index_groups)
        if span is not None:
            out = processes.local_slice(out, 0, span, size)
        return out, 0
    if all(d is None for d in dims):
        out = ragged_all_to_all_p.bind(
            *vals, axis_name=axis_name, axis_index_groups=axis_index_groups
        )
        return out, None
    # Another axis: its examples become more slices of one exchange (as JAX batches it). Per
    # device, the examples' operands and outputs are stacked into one, and slice (e, b) --
    # entry e of example b -- is entry e * size + b, shifted by b operands / outputs.
    k = _npos(entries)
    operand, output = (bdim_to(v, d, k, size) for v, d in zip(vals[:2], dims[:2]))
    idx = []
    for v, d in zip(vals[2:], dims[2:]):
        if d is None:
            shp = tuple(np.shape(v))
            v = lax_shape.broadcast_in_dim(v, shp + (size,), tuple(range(len(shp))))
        else:
            v = bdim_to(v, d, k + 1, size)
        idx.append(v)
    n_rows, m_rows = np.shape(operand)[k + 1], np.shape(output)[k + 1]
    ones = (1,) * (k + 1)
    for j, rows in ((0, n_rows), (2, m_rows)):
        step = lax_shape.iota(dtypes.dtype(idx[j]), size)
        step = lax_shape.broadcast_in_dim(step, ones + (size,), (k + 1,))
        idx[j] = idx[j] + step * rows

    def merge(x):
        s = tuple(np.shape(x))
        return lax_shape.reshape(x, s[:k] + (s[k] * s[k + 1],) + s[k + 2 :])

    ins = [merge(x) for x in (operand, output, *idx)]
    out = ragged_all_to_all_p.bind(*ins, axis_name=axis_name, axis_index_groups=axis_index_groups)
    s = tuple(np.shape(out))
    return lax_shape.reshape(out, s[:k] + (size, m_rows) + s[k + 1 :]), k


def _ragged_jvp(primals, tangents, primal_out, *, axis_name, axis_index_groups):
    d_operand, d_output = tangents[:2]
    if type(d_operand) is ad.Zero and type(d_output) is ad.Zero:
        return ad.Zero.from_value(primal_out)
    return ragged_all_to_all_p.bind(
        ad.instantiate(d_operand),
        ad.instantiate(d_output),
        *primals[2:],
        axis_name=axis_name,
        axis_index_groups=axis_index_groups,
    )


def _exchange(x, entries, groups):
    """``all_to_all(x, axis, 0, 0, tiled=True)``: entry block j goes to device j."""
    return all_to_all_p.bind(
        x, axis_index_groups=groups, axis_name=entries, concat_axis=0, split_axis=0, tiled=True
    )


def _ragged_transpose(
    ct, operand, output, input_offsets, send_sizes, output_offsets, recv_sizes, *, axis_name,
    axis_index_groups,
):  # fmt: skip
    lin_op, lin_out = ad.is_undefined_primal(operand), ad.is_undefined_primal(output)
    if type(ct) is ad.Zero:
        return [
            ad.Zero(operand.aval) if lin_op else None,
            ad.Zero(output.aval) if lin_out else None,
        ] + [None] * 4
    from spmd._src.lax.rules import zeros_like_aval

    entries = _names(axis_name)
    k = _npos(entries)
    # Where each slice this device received came from, as the receiver sees it.
    dest = _exchange(output_offsets, entries, axis_index_groups)
    op_ct = None
    if lin_op:
        # The cotangent of a sent row is that of the row it landed on: the exchange run back
        # (receivers send, each at the sender's input offset) into zeros.
        op_aval = operand.aval
        zero = zeros_like_aval(ad.tangent_aval(op_aval).update(weak_type=False))
        vma = getattr(op_aval, "vma", None)
        if vma:
            zero = pvary_p.bind(zero, axes=tuple(getattr(vma, "order", vma)))
        starts = _exchange(input_offsets, entries, axis_index_groups)
        op_ct = ragged_all_to_all_p.bind(
            ct, zero, dest, recv_sizes, starts, send_sizes,
            axis_name=axis_name, axis_index_groups=axis_index_groups,
        )  # fmt: skip
    out_ct = None
    if lin_out:
        # Rows overwritten by a received slice do not reach the result. (A mask from every
        # slice's row range: correct also for empty slices and slices that touch.)
        from spmd._src.lax import reductions

        rows = np.shape(ct)[k]
        lead = tuple(np.shape(dest))[:k]
        full = lead + (rows, np.shape(dest)[k])
        it = dtypes.dtype(dest)
        pos = lax_shape.broadcasted_iota(it, full, k)
        lo = lax_shape.broadcast_in_dim(dest, full, tuple(range(k)) + (k + 1,))
        size = lax_elem.convert_element_type(recv_sizes, it)
        hi = lax_elem.add(lo, lax_shape.broadcast_in_dim(size, full, tuple(range(k)) + (k + 1,)))
        hit = lax_elem.bitwise_and(lax_elem.ge(pos, lo), lax_elem.lt(pos, hi))
        hit = reductions.reduce_or(hit, (k + 1,))
        hit = lax_shape.broadcast_in_dim(hit, np.shape(ct), tuple(range(k + 1)))
        zeros = lax_shape.full(np.shape(ct), 0, dtypes.dtype(ct))
        out_ct = lax_elem.select(hit, zeros, ct)
    return [op_ct, out_ct] + [None] * 4


def _ragged_sharding_rule(specs, avals, **params):
    # The result is laid out like ``output``, with its ragged (row) dimension whole.
    out = avals[1]
    spec = list(specs[1] or (None,) * out.ndim)
    k = _npos(_names(params["axis_name"]))
    if k < len(spec):
        spec[k] = None
    return tuple(spec)


ragged_all_to_all_p = core.Primitive("ragged_all_to_all")
ragged_all_to_all_p.def_impl(_ragged_impl)
ragged_all_to_all_p.def_abstract_eval(_ragged_abstract_eval)
ad.primitive_jvps[ragged_all_to_all_p] = _ragged_jvp
ad.primitive_transposes[ragged_all_to_all_p] = _ragged_transpose
batching.primitive_batchers[ragged_all_to_all_p] = _ragged_vmap_rule
batching.axis_name_params[ragged_all_to_all_p] = lambda p: _named(_names(p["axis_name"]))
sharding_rules.sharding_rules[ragged_all_to_all_p] = _ragged_sharding_rule
