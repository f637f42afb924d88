"""Reductions with a user computation: ``lax.reduce`` (primitive ``reduce``) and the generic
``reduce_window`` primitive, for computations that are not one of the monoids spmd has a
primitive for.

The computation is traced once on scalars to a jaxpr of (accumulators..., elements...) ->
accumulators. The reduction folds it over the reduced elements from the init values, in
row-major order, as XLA's CPU reduction does; the fold runs over all results at once (the
jaxpr is batched over them). The fold in lax operations is also the forward-mode rule (with
the computation's jvp), so derivatives of any order and their transposes come for free.

>>> lax.reduce(jnp.arange(6.0).reshape(2, 3), 0.0, lambda a, b: a + 2 * b, (1,))
Array([ 6., 24.], dtype=float32)
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src import tree_util as tu
from spmd._src.core import ClosedJaxpr, ShapedArray
from spmd._src.interpreters import ad, batching
from spmd._src.interpreters import partial_eval as pe


def _lax():
    # At call time: control_flow.common imports lax modules that import this one.
    from spmd._src.lax import reductions, shape
    from spmd._src.lax.control_flow import common

    return shape, reductions, common


# ---------------------------------------------------------------------------------------------
# Tracing the computation and folding it


def trace_computation(name: str, computation: Callable, init_avals, init_tree) -> ClosedJaxpr:
    """``computation(acc_tree, x_tree) -> acc_tree`` traced on scalars of the init values'
    types, as a jaxpr of the flat (accumulators, elements)."""
    scalars = [ShapedArray((), a.dtype, False) for a in init_avals]
    box = []

    def flat(*leaves):
        n = len(leaves) // 2
        a = tu.tree_unflatten(init_tree, list(leaves[:n]))
        b = tu.tree_unflatten(init_tree, list(leaves[n:]))
        out_leaves, out_tree = tu.tree_flatten(computation(a, b))
        box.append(out_tree)
        return out_leaves

    closed = pe.trace_to_jaxpr(flat, scalars + scalars, pe.DebugInfo(name, name, None))
    if box[0] != init_tree or [(a.shape, a.dtype) for a in closed.out_avals] != [
        ((), a.dtype) for a in scalars
    ]:
        raise TypeError(
            f"{name}: the computation must return one scalar of each init value's type, "
            f"{[a.str_short() for a in scalars]}, got {[a.str_short() for a in closed.out_avals]}"
        )
    return closed


def _numpy_fold(jaxpr: ClosedJaxpr, columns: list[list[np.ndarray]], inits, m: int, valid=None):
    """``columns[r][i]``: operand i's elements (M of them) at reduction step r; returns the
    M results of each accumulator. ``valid[r]`` (M bools): where step r has an element (not
    padding or a dilation hole, which XLA skips rather than folds in)."""
    accs = [np.full((m,), np.asarray(v), a.dtype) for v, a in zip(inits, jaxpr.out_avals)]
    if not columns or m == 0:
        return accs
    body = core.jaxpr_as_numpy_fn(_batched(jaxpr, m))
    for r, col in enumerate(columns):
        with np.errstate(all="ignore"):
            new = [np.asarray(o, a.dtype) for o, a in zip(body(*accs, *col), accs)]
        accs = new if valid is None else [np.where(valid[r], o, a) for o, a in zip(new, accs)]
    return accs


def _batched(jaxpr: ClosedJaxpr, m: int) -> ClosedJaxpr:
    _, _, common = _lax()
    n = len(jaxpr.in_avals)
    return common.batch_jaxpr_at0(jaxpr, batching.AxisData(None, m), [True] * n, [True] * (n // 2))


def _lax_fold_jvp(jaxpr: ClosedJaxpr, columns, tcolumns, inits, m: int, valid=None):
    """The fold in lax operations of the computation's jvp: (primal results, tangents). Each
    entry of ``columns``/``tcolumns`` holds M-vectors (operands' values and tangents);
    ``valid`` as in ``_numpy_fold``."""
    from spmd._src.lax.elementwise import selection

    shape, _, common = _lax()
    n = len(inits)
    floats = [common.is_float(a) for a in jaxpr.in_avals]
    jvp, out_nz = common.jvp_jaxpr(jaxpr, floats, instantiate=floats[:n])
    body = _batched_jvp(jvp, m, len(jvp.in_avals), len(jvp.out_avals))
    accs = [shape.broadcast(v, (m,)) for v in inits]
    taccs = [shape.full((m,), 0, a.dtype) for a, f in zip(jaxpr.out_avals, floats[:n]) if f]
    for r, (col, tcol) in enumerate(zip(columns, tcolumns)):
        xt = [t for t, f in zip(tcol, floats[n:]) if f]
        outs = core.eval_jaxpr(body.jaxpr, body.consts, *accs, *col, *taccs, *xt)
        if valid is None:
            accs, taccs = outs[:n], outs[n:]
            continue
        if not valid[r].any():
            continue  # this step is padding for every result
        if not valid[r].all():
            keep = np.asarray(valid[r])
            outs = [selection.select(keep, o, a) for o, a in zip(outs, accs + taccs)]
        accs, taccs = outs[:n], outs[n:]
    it = iter(taccs)
    return accs, [next(it) if nz else None for nz in out_nz]


def _batched_jvp(jvp: ClosedJaxpr, m: int, n_in: int, n_out: int) -> ClosedJaxpr:
    _, _, common = _lax()
    return common.batch_jaxpr_at0(jvp, batching.AxisData(None, m), [True] * n_in, [True] * n_out)


# ---------------------------------------------------------------------------------------------
# reduce


def _static_init(x) -> Any:
    """A known scalar's value, or None (traced, or not a scalar)."""
    if isinstance(x, core.Tracer) or np.ndim(x) != 0:
        return None
    return np.asarray(x)


def _monoid(computation: Callable, init) -> Callable | None:
    """The reduce_* primitive's wrapper for ``computation`` with ``init`` as its identity (the
    identity in the init value's own dtype, as JAX checks it), or None."""
    from spmd._src.lax.elementwise import arithmetic as ar
    from spmd._src.lax.elementwise import bitwise as bw
    from spmd._src.lax.reductions import _identity

    _, red, _ = _lax()
    v = _static_init(init)
    if v is None:
        return None
    dt = dtypes.dtype(init, canonicalize=True)
    v = v.astype(dt)
    if computation is ar.add:
        return red.reduce_sum if v == 0 else None
    if computation is ar.mul:
        return red.reduce_prod if v == 1 else None
    if computation is ar.max:
        return red.reduce_max if v == _identity("max", dt) else None
    if computation is ar.min:
        return red.reduce_min if v == _identity("min", dt) else None
    if dt.kind not in "biu":
        return None
    if computation is bw.bitwise_or:
        return red.reduce_or if v == np.zeros((), dt) else None
    if computation is bw.bitwise_and:
        return red.reduce_and if v == ~np.zeros((), dt) else None
    return None


def reduce(operands: Any, init_values: Any, computation: Callable, dimensions: Sequence[int]):
    """Reduce ``operands`` over ``dimensions`` with ``computation`` from ``init_values``.

    ``operands`` and ``init_values`` are pytrees of one structure (arrays of one shape, and
    scalars); ``computation(acc, x)`` combines two such pytrees of scalars. ``lax.add``,
    ``mul``, ``max``, ``min``, ``bitwise_or`` and ``bitwise_and`` with their identities as the
    init value become ``reduce_sum`` and the other reduction primitives.

    >>> lax.reduce(jnp.arange(6).reshape(2, 3), 0, lax.add, (0,))
    Array([3, 5, 7], dtype=int32)
    """
    flat_ops, op_tree = tu.tree_flatten(operands)
    flat_inits, init_tree = tu.tree_flatten(init_values)
    if op_tree != init_tree:
        raise ValueError(
            f"Operands must have the same tree structure as init_values: {op_tree} vs. {init_tree}"
        )
    dims = tuple(operator.index(d) for d in dimensions)
    if len(flat_ops) == 1:
        fn = _monoid(computation, flat_inits[0])
        if fn is not None:
            # A bare array even for a one-leaf pytree of operands, as in JAX.
            return fn(flat_ops[0], dims)
    from spmd._src.lax.elementwise.conversion import convert_element_type

    inits = [
        i if isinstance(i, core.Tracer) else convert_element_type(i, dtypes.dtype(i, True))
        for i in flat_inits
    ]
    init_avals = [core.get_aval(i) for i in inits]
    _check_inits([core.get_aval(o) for o in flat_ops], init_avals)
    jaxpr = trace_computation("reduce", computation, init_avals, init_tree)
    outs = reduce_p.bind(*flat_ops, *inits, computation=computation, jaxpr=jaxpr, dimensions=dims)
    return tu.tree_unflatten(op_tree, outs)


def _aval_str(a) -> str:
    weak = ", weak_type=True" if a.weak_type else ""
    return f"ShapedArray({a.dtype.name}[{','.join(map(str, a.shape))}]{weak})"


def _check_inits(ops, inits) -> None:
    if any(o.dtype != i.dtype for o, i in zip(ops, inits)):
        raise TypeError(
            "reduce operand dtypes should match corresponding initial value dtypes, got "
            f"operands=[{', '.join(map(_aval_str, ops))}] and "
            f"initial_values=[{', '.join(map(_aval_str, inits))}]"
        )
    if any(i.shape != () for i in inits):
        raise TypeError(
            f"reduce: initial values must be scalars, got {[i.str_short() for i in inits]}"
        )


def _reduce_shapes(avals, dimensions):
    n = len(avals) // 2
    ops, inits = avals[:n], avals[n:]
    shape = ops[0].shape
    if any(a.shape != shape for a in ops):
        raise ValueError(f"reduce: operands must have the same shape, got {[a.shape for a in ops]}")
    for d in dimensions:
        if not 0 <= d < len(shape):
            raise ValueError(
                f"reduce: dimensions {dimensions} out of range for operands of shape {shape}"
            )
    if len(set(dimensions)) != len(dimensions):
        raise ValueError(f"reduce: duplicate value in dimensions {dimensions}")
    _check_inits(ops, inits)
    return ops, inits, tuple(d for k, d in enumerate(shape) if k not in dimensions)


def _reduce_abstract_eval(*avals, computation, jaxpr, dimensions):
    ops, inits, out_shape = _reduce_shapes(avals, dimensions)
    return [ShapedArray(out_shape, i.dtype, o.weak_type) for o, i in zip(ops, inits)]


def _to_rows(x, dimensions):
    """``x`` as (M kept elements, R reduced elements), reduced ones in row-major order."""
    nd = np.ndim(x)
    kept = [k for k in range(nd) if k not in dimensions]
    perm = kept + list(dimensions)
    shp = np.shape(x)
    m = int(np.prod([shp[k] for k in kept], dtype=np.int64))
    r = int(np.prod([shp[k] for k in dimensions], dtype=np.int64))
    return perm, m, r


def _reduce_impl(*args, computation, jaxpr, dimensions):
    n = len(args) // 2
    ops, inits = [np.asarray(a) for a in args[:n]], args[n:]
    perm, m, r = _to_rows(ops[0], dimensions)
    rows = [np.transpose(o, perm).reshape(m, r) for o in ops]
    out_shape = tuple(d for k, d in enumerate(ops[0].shape) if k not in dimensions)
    accs = _numpy_fold(jaxpr, [[x[:, j] for x in rows] for j in range(r)], inits, m)
    return [a.reshape(out_shape) for a in accs]


def _reduce_vmap(axis_data, vals, dims, *, computation, jaxpr, dimensions):
    n = len(vals) // 2
    if any(d is not None for d in dims[n:]):
        raise NotImplementedError("reduce: batched init values are not supported under vmap")
    from spmd._src.lax.rules import bdim_at_front

    ops = [bdim_at_front(v, d, axis_data.size) for v, d in zip(vals[:n], dims[:n])]
    new_dims = tuple(d + 1 for d in dimensions)
    outs = reduce_p.bind(*ops, *vals[n:], computation=computation, jaxpr=jaxpr, dimensions=new_dims)
    return outs, [0] * n


def _reduce_jvp(primals, tangents, primal_out, *, computation, jaxpr, dimensions):
    shape, _, _ = _lax()
    n = len(primals) // 2
    ops, inits = primals[:n], primals[n:]
    ts = [ad.instantiate(t) for t in tangents[:n]]
    perm, m, r = _to_rows(ops[0], dimensions)
    rows = [shape.reshape(shape.transpose(o, perm), (m, r)) for o in ops]
    trows = [shape.reshape(shape.transpose(t, perm), (m, r)) for t in ts]

    def col(x, j):
        return shape.reshape(shape.slice_in_dim(x, j, j + 1, 1, 1), (m,))

    cols = [[col(x, j) for x in rows] for j in range(r)]
    tcols = [[col(t, j) for t in trows] for j in range(r)]
    out_shape = tuple(d for k, d in enumerate(np.shape(ops[0])) if k not in dimensions)
    _, taccs = _lax_fold_jvp(jaxpr, cols, tcols, inits, m)
    return [
        ad.Zero(ad.tangent_aval(core.get_aval(o))) if t is None else shape.reshape(t, out_shape)
        for o, t in zip(primal_out, taccs)
    ]


reduce_p = core.Primitive("reduce")
reduce_p.multiple_results = True
reduce_p.def_impl(_reduce_impl)
reduce_p.def_abstract_eval(_reduce_abstract_eval)
batching.primitive_batchers[reduce_p] = _reduce_vmap
ad.primitive_jvps[reduce_p] = _reduce_jvp


# ---------------------------------------------------------------------------------------------
# reduce_window with any computation


def _wr():
    from spmd._src.lax import windowed_reductions

    return windowed_reductions


def generic_reduce_window(
    operand,
    init_value,
    computation,
    window_dimensions,
    window_strides,
    padding,
    base_dilation=None,
    window_dilation=None,
):
    """``lax.reduce_window`` for a computation that is no monoid of spmd's (the wrapper)."""
    flat_ops, op_tree = tu.tree_flatten(operand)
    flat_inits, init_tree = tu.tree_flatten(init_value)
    if op_tree != init_tree:
        raise ValueError(
            f"Operands must have the same tree structure as init_values: {op_tree} vs. {init_tree}"
        )
    from spmd._src.lax.elementwise.conversion import convert_element_type

    inits = [
        i if isinstance(i, core.Tracer) else convert_element_type(i, dtypes.dtype(i, True))
        for i in flat_inits
    ]
    op_avals = [core.get_aval(o) for o in flat_ops]
    init_avals = [core.get_aval(i) for i in inits]
    if any(o.dtype != i.dtype for o, i in zip(op_avals, init_avals)):
        raise TypeError(
            "reduce_window got inconsistent dtypes for operands and init_values: got operand "
            f"dtypes {[o.dtype for o in op_avals]} and init_value dtypes "
            f"{[i.dtype for i in init_avals]}."
        )
    params = _wr()._window_params(
        "reduce_window",
        np.shape(flat_ops[0]),
        window_dimensions,
        window_strides,
        padding,
        base_dilation,
        window_dilation,
    )
    jaxpr = trace_computation("reduce_window", computation, init_avals, init_tree)
    jaxpr, consts = _lax()[2].hoist_consts(jaxpr)
    if consts:
        raise NotImplementedError("reduce_window: the computation closes over arrays")
    outs = reduce_window_p.bind(*flat_ops, *inits, jaxpr=jaxpr, consts=(), **params)
    return tu.tree_unflatten(op_tree, outs)


def _reduce_window_abstract_eval(*avals, jaxpr, consts, **params):
    n = len(avals) // 2
    ops, inits = avals[:n], avals[n:]
    if any(a.shape != ops[0].shape for a in ops):
        raise ValueError(
            f"reduce_window: operands must have the same shape, got {[a.shape for a in ops]}"
        )
    _check_inits(ops, inits)
    _wr()._check_params("reduce_window", ops[0].shape, **params)
    shape = _wr()._out_shape(ops[0].shape, **params)
    return [ShapedArray(shape, i.dtype, o.weak_type) for o, i in zip(ops, inits)]


def _reduce_window_impl(*args, jaxpr, consts, **params):
    n = len(args) // 2
    ops, inits = [np.asarray(a) for a in args[:n]], [np.asarray(i) for i in args[n:]]
    views = [_wr()._windows(o, i, **params) for o, i in zip(ops, inits)]
    nd = ops[0].ndim
    out_shape = views[0].shape[:nd]
    m = int(np.prod(out_shape, dtype=np.int64))
    r = int(np.prod(params["window_dimensions"], dtype=np.int64))
    rows = [v.reshape(m, r) for v in views]
    valid = _valid(ops[0].shape, params).reshape(m, r).T
    accs = _numpy_fold(jaxpr, [[x[:, j] for x in rows] for j in range(r)], inits, m, valid)
    return [a.reshape(out_shape) for a in accs]


def _valid(shape, params) -> np.ndarray:
    """(out shape..., window...) bools: which window positions hold an operand element."""
    return _wr()._windows(np.ones(shape, bool), np.array(False), **params)


def _reduce_window_vmap(axis_data, vals, dims, *, jaxpr, consts, **params):
    n = len(vals) // 2
    if any(d is not None for d in dims[n:]):
        raise NotImplementedError("reduce_window: batched init values are not supported")
    from spmd._src.lax.rules import bdim_at_front

    ops = [bdim_at_front(v, d, axis_data.size) for v, d in zip(vals[:n], dims[:n])]
    new = dict(params)
    for k, one in (
        ("window_dimensions", 1),
        ("window_strides", 1),
        ("padding", (0, 0)),
        ("base_dilation", 1),
        ("window_dilation", 1),
    ):
        new[k] = (one, *params[k])
    outs = reduce_window_p.bind(*ops, *vals[n:], jaxpr=jaxpr, consts=consts, **new)
    return outs, [0] * n


def _reduce_window_jvp(primals, tangents, primal_out, *, jaxpr, consts, **params):
    shape = _lax()[0]
    from spmd._src.lax.elementwise.common import _const

    n = len(primals) // 2
    ops, inits = primals[:n], primals[n:]
    ts = [ad.instantiate(t) for t in tangents[:n]]
    out_shape = tuple(core.get_aval(primal_out[0]).shape)
    m = int(np.prod(out_shape, dtype=np.int64))
    # Each window offset's strided slice, flattened: one fold step (padding holds the init
    # value and a zero tangent).
    wins = [_wr()._window_slices(o, i, **params) for o, i in zip(ops, inits)]
    twins = [_wr()._window_slices(t, _const(t, 0), **params) for t in ts]
    cols = [[shape.reshape(w[j], (m,)) for w in wins] for j in range(len(wins[0]))]
    tcols = [[shape.reshape(w[j], (m,)) for w in twins] for j in range(len(twins[0]))]
    r = len(cols)
    valid = _valid(tuple(np.shape(ops[0])), params).reshape(m, r).T
    _, taccs = _lax_fold_jvp(jaxpr, cols, tcols, inits, m, valid)
    return [
        ad.Zero(ad.tangent_aval(core.get_aval(o))) if t is None else shape.reshape(t, out_shape)
        for o, t in zip(primal_out, taccs)
    ]


reduce_window_p = core.Primitive("reduce_window")
reduce_window_p.multiple_results = True
reduce_window_p.def_impl(_reduce_window_impl)
reduce_window_p.def_abstract_eval(_reduce_window_abstract_eval)
batching.primitive_batchers[reduce_window_p] = _reduce_window_vmap
ad.primitive_jvps[reduce_window_p] = _reduce_window_jvp


__all__ = ["reduce", "reduce_p", "reduce_window_p"]
