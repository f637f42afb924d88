"""XLA's general ``scatter`` and its combiners (``scatter_add``, ``-sub``, ``-mul``, ``-min``,
``-max``, and ``scatter_apply``), with the batching, JVP and transpose rules they share."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core, dtypes, memory_spaces
from spmd._src.core import ShapedArray
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.interpreters import partial_eval as pe
from spmd._src.lax import elementwise as lax_elem
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.indexing.common import (
    GatherDimensionNumbers,
    GatherScatterMode,
    ScatterDimensionNumbers,
    _canonical_dnums,
    _check_dims,
    _in_bounds,
    _ints,
    _is_int_dtype,
    _window_index,
    _window_starts,
    check_batching_dims,
)
from spmd._src.lax.indexing.gathering import _shift, gather
from spmd._src.lax.rules import bdim_at_front, defjvp
from spmd._src.util import prod

# ---------------------------------------------------------------------------------------------
# scatter


@functools.cache
def _combiner_jaxpr(prim: core.Primitive, dtype: np.dtype) -> core.Jaxpr:
    # The scalar update computation JAX records in scatter's ``update_jaxpr`` parameter.
    aval = ShapedArray((), dtype)
    x, y, out = core.Var(aval), core.Var(aval), core.Var(aval)
    return core.Jaxpr([], [x, y], [out], [core.JaxprEqn([x, y], [out], prim, {})])


def _scatter_shape_check(fn, operand, indices, updates, dn: ScatterDimensionNumbers) -> None:
    if not _is_int_dtype(indices.dtype):
        raise TypeError(f"{fn}: indices must have an integer type, got {indices.dtype.name}.")
    if indices.ndim < 1:
        raise TypeError(f"{fn}: indices must have rank at least 1, got shape {indices.shape}.")
    if updates.dtype != operand.dtype:
        raise TypeError(
            f"{fn}: operand and updates must have the same dtype, got {operand.dtype.name} and "
            f"{updates.dtype.name}."
        )
    batch_shape = indices.shape[:-1]
    if len(dn.scatter_dims_to_operand_dims) != indices.shape[-1]:
        raise TypeError(
            f"{fn}: scatter_dims_to_operand_dims {dn.scatter_dims_to_operand_dims} must have one "
            f"entry per element of an index vector (indices shape {indices.shape})."
        )
    _check_dims(fn, "update_window_dims", dn.update_window_dims, updates.ndim, sorted_=True)
    _check_dims(fn, "inserted_window_dims", dn.inserted_window_dims, operand.ndim, sorted_=True)
    _check_dims(fn, "operand_batching_dims", dn.operand_batching_dims, operand.ndim, sorted_=True)
    _check_dims(fn, "scatter_dims_to_operand_dims", dn.scatter_dims_to_operand_dims, operand.ndim)
    _check_dims(
        fn, "scatter_indices_batching_dims", dn.scatter_indices_batching_dims, len(batch_shape)
    )
    if set(dn.inserted_window_dims) & set(dn.operand_batching_dims):
        raise TypeError(
            f"{fn}: inserted_window_dims {dn.inserted_window_dims} and operand_batching_dims "
            f"{dn.operand_batching_dims} must be disjoint."
        )
    check_batching_dims(
        fn,
        operand.shape,
        batch_shape,
        dn.operand_batching_dims,
        dn.scatter_indices_batching_dims,
        "scatter_indices_batching_dims",
    )
    window_dims = [
        d
        for d in range(operand.ndim)
        if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims
    ]
    if len(window_dims) != len(dn.update_window_dims):
        raise TypeError(
            f"{fn}: update_window_dims {dn.update_window_dims} must have one entry per operand "
            f"dimension not inserted or batched ({len(window_dims)} for operand shape "
            f"{operand.shape})."
        )
    scatter_dims = [i for i in range(updates.ndim) if i not in dn.update_window_dims]
    if tuple(updates.shape[i] for i in scatter_dims) != batch_shape:
        raise TypeError(
            f"{fn}: the update scatter dimensions {tuple(scatter_dims)} of updates shape "
            f"{updates.shape} must match the indices batch shape {batch_shape}."
        )
    for d, u in zip(window_dims, dn.update_window_dims):
        if updates.shape[u] > operand.shape[d]:
            raise TypeError(
                f"{fn}: update window dimension {u} (size {updates.shape[u]}) is larger than "
                f"operand dimension {d} (size {operand.shape[d]}); updates shape "
                f"{updates.shape}, operand shape {operand.shape}."
            )


def _scatter_impl_for(combine: Callable | None):
    def impl(operand, indices, updates, *, dimension_numbers, mode, update_jaxpr, **_):
        dn = dimension_numbers
        out = np.array(operand, copy=True)
        batch_shape = indices.shape[:-1]
        nb = len(batch_shape)
        window_dims = [
            d
            for d in range(operand.ndim)
            if d not in dn.inserted_window_dims and d not in dn.operand_batching_dims
        ]
        scatter_dims = [i for i in range(updates.ndim) if i not in dn.update_window_dims]
        upd = np.transpose(updates, scatter_dims + list(dn.update_window_dims))
        if upd.size == 0:
            return out
        sizes = [1] * operand.ndim
        for d, u in zip(window_dims, dn.update_window_dims):
            sizes[d] = updates.shape[u]
        starts = _window_starts(
            operand.shape,
            indices,
            dn.scatter_dims_to_operand_dims,
            dn.operand_batching_dims,
            dn.scatter_indices_batching_dims,
        )
        clamp = mode is GatherScatterMode.CLIP
        index = _window_index(starts, sizes, window_dims, operand.shape, batch_shape, clamp)
        full = batch_shape + upd.shape[nb:]
        index = [np.broadcast_to(i, full) for i in index]
        if not clamp:
            # Windows that do not fit are dropped whole (XLA's semantics).
            ok = _in_bounds(
                starts, dn.scatter_dims_to_operand_dims, sizes, operand.shape, batch_shape
            )
            if not ok.all():
                ok = np.broadcast_to(ok, batch_shape)
                index = [i[ok] for i in index]
                upd = upd[ok]
        if update_jaxpr is not None and combine is None:
            # scatter_apply: each write applies the function once more.
            counts = np.zeros(operand.shape, np.int64)
            np.add.at(counts, tuple(index), 1)
            for r in range(int(counts.max(initial=0))):
                hit = counts > r
                out[hit] = _apply_update_jaxpr(update_jaxpr, out[hit])
        elif combine is None:
            out[tuple(index)] = upd
        else:
            # Values of exactly the index shape, contiguous: NumPy 2.x's ufunc.at misreads
            # broadcast or strided values in some layouts.
            with np.errstate(all="ignore"):  # XLA overflows silently (to inf or by wrapping)
                combine.at(out, tuple(index), np.asarray(upd, order="C"))
        return out

    return impl


# prim -> the lax primitive of its scalar update computation (None for plain scatter).
_COMBINERS: dict[core.Primitive, core.Primitive | None] = {}


def _scatter_primitive(name, combine, combiner_prim, numeric_only):
    prim = core.Primitive(name)

    def abstract_eval(operand, indices, updates, *, dimension_numbers, **_):
        if numeric_only and operand.dtype == np.bool_:
            raise TypeError(f"{name} does not accept dtype bool.")
        _scatter_shape_check(name, operand, indices, updates, dimension_numbers)
        # The result is where the operand is (host memory too), whatever the indices' and
        # updates' memory: JAX's scatter rule.
        space = operand.memory_space
        return ShapedArray(operand.shape, operand.dtype, operand.weak_type, memory_space=space)

    prim.def_abstract_eval(abstract_eval)
    memory_spaces.own_rule.add(prim)
    prim.def_impl(_scatter_impl_for(combine))
    _COMBINERS[prim] = combiner_prim
    return prim


scatter_p = _scatter_primitive("scatter", None, None, False)
scatter_add_p = _scatter_primitive("scatter-add", np.add, lax_elem.add_p, True)
scatter_sub_p = _scatter_primitive("scatter-sub", np.subtract, lax_elem.sub_p, True)
scatter_mul_p = _scatter_primitive("scatter-mul", np.multiply, lax_elem.mul_p, True)
scatter_min_p = _scatter_primitive("scatter-min", np.minimum, lax_elem.min_p, False)
scatter_max_p = _scatter_primitive("scatter-max", np.maximum, lax_elem.max_p, False)


def _bind_scatter(
    prim,
    operand,
    scatter_indices,
    updates,
    dimension_numbers,
    *,
    indices_are_sorted,
    unique_indices,
    mode,
):
    dn = _canonical_dnums(dimension_numbers, ScatterDimensionNumbers)
    parsed = GatherScatterMode.from_any(mode)
    combiner = _COMBINERS[prim]
    jaxpr = None
    if combiner is not None:
        jaxpr = _combiner_jaxpr(combiner, core.get_aval(operand).dtype)
    return prim.bind(
        operand,
        scatter_indices,
        updates,
        dimension_numbers=dn,
        indices_are_sorted=bool(indices_are_sorted),
        unique_indices=bool(unique_indices),
        mode=parsed,
        update_jaxpr=jaxpr,
        update_consts=(),
    )


def _scatter_wrapper(prim, verb: str):
    def fn(
        operand,
        scatter_indices,
        updates,
        dimension_numbers: ScatterDimensionNumbers,
        *,
        indices_are_sorted: bool = False,
        unique_indices: bool = False,
        mode: str | GatherScatterMode | None = None,
    ):
        return _bind_scatter(
            prim,
            operand,
            scatter_indices,
            updates,
            dimension_numbers,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=mode,
        )

    fn.__doc__ = (
        f"XLA's scatter that {verb}: each window of ``updates`` goes to ``operand`` at the "
        "start given by its index vector (the last dimension of ``scatter_indices``). "
        "Out-of-bounds windows are dropped unless ``mode='clip'``."
    )
    return fn


scatter = _scatter_wrapper(scatter_p, "overwrites (the last write wins for repeated indices)")
scatter.__name__ = "scatter"
scatter_add = _scatter_wrapper(scatter_add_p, "adds (repeated indices accumulate)")
scatter_add.__name__ = "scatter_add"
scatter_sub = _scatter_wrapper(scatter_sub_p, "subtracts (repeated indices accumulate)")
scatter_sub.__name__ = "scatter_sub"
scatter_mul = _scatter_wrapper(scatter_mul_p, "multiplies (repeated indices accumulate)")
scatter_mul.__name__ = "scatter_mul"
scatter_min = _scatter_wrapper(scatter_min_p, "takes the minimum")
scatter_min.__name__ = "scatter_min"
scatter_max = _scatter_wrapper(scatter_max_p, "takes the maximum")
scatter_max.__name__ = "scatter_max"


def scatter_apply(
    operand,
    scatter_indices,
    func: Callable,
    dimension_numbers: ScatterDimensionNumbers,
    *,
    update_shape: Sequence[int] = (),
    indices_are_sorted: bool = False,
    unique_indices: bool = False,
    mode: str | GatherScatterMode | None = None,
):
    """Apply the scalar function ``func`` to the elements of ``operand`` that a scatter with
    updates of ``update_shape`` would write (once per write: repeated indices apply it again).

    ``func`` is traced on a scalar and recorded as the scatter's ``update_jaxpr``.
    """
    aval = core.get_aval(operand)
    scalar = ShapedArray((), aval.dtype)
    closed = pe.trace_to_jaxpr(lambda x, _: [func(x)], [scalar, scalar])
    out = closed.out_avals[0]
    if out.shape != () or out.dtype != aval.dtype:
        raise TypeError(
            f"scatter_apply: func must map a {scalar.str_short()} scalar to a scalar of the same "
            f"type, got {out.str_short()}."
        )
    updates = lax_shape.full(_ints(update_shape), 0, aval.dtype)
    if closed.consts:
        # func closes over arrays (or traced values), which cannot be parameters: apply it to
        # the whole operand and select the written elements (each once).
        touched = scatter(
            lax_shape.full(aval.shape, False),
            scatter_indices,
            lax_shape.full(_ints(update_shape), True),
            dimension_numbers,
            indices_are_sorted=indices_are_sorted,
            unique_indices=unique_indices,
            mode=mode,
        )
        return lax_elem.select_n(touched, operand, func(operand))
    return scatter_p.bind(
        operand,
        scatter_indices,
        updates,
        dimension_numbers=_canonical_dnums(dimension_numbers, ScatterDimensionNumbers),
        indices_are_sorted=bool(indices_are_sorted),
        unique_indices=bool(unique_indices),
        mode=GatherScatterMode.from_any(mode),
        update_jaxpr=closed.jaxpr,
        update_consts=(),
    )


def _apply_update_jaxpr(jaxpr: core.Jaxpr, values: np.ndarray) -> np.ndarray:
    # The scalar computation, run on a vector of operand elements (its primitives are
    # elementwise on scalars, so they broadcast).
    with core.set_current_trace(core.eval_trace):
        (out,) = core.eval_jaxpr(jaxpr, [], values, np.zeros_like(values))
    return np.asarray(out, values.dtype)


# ---------------------------------------------------------------------------------------------
# scatter: batching, JVP and transpose rules (shared by the scatter family)


def _inverse_gather(operand, indices, dn: ScatterDimensionNumbers, updates_shape, **kwargs):
    """The gather reading back, for every update, the operand window a scatter with ``dn``
    writes it to (the transpose of scatter-add in its updates)."""
    gather_dn = GatherDimensionNumbers(
        offset_dims=dn.update_window_dims,
        collapsed_slice_dims=dn.inserted_window_dims,
        start_index_map=dn.scatter_dims_to_operand_dims,
        operand_batching_dims=dn.operand_batching_dims,
        start_indices_batching_dims=dn.scatter_indices_batching_dims,
    )
    window = iter(dn.update_window_dims)
    collapsed = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    sizes = [1 if d in collapsed else updates_shape[next(window)] for d in range(np.ndim(operand))]
    return gather(operand, indices, gather_dn, sizes, **kwargs)


def _scatter_vmap(prim, axis_data, vals, dims, *, dimension_numbers, **params):
    (x, idx, u), (xd, idd, ud) = vals, dims
    dn = dimension_numbers
    size = axis_data.size
    # The operand (and updates) get the batch dimension in front, broadcast when unbatched:
    # every batch element writes into its own copy.
    x = bdim_at_front(x, xd, size)
    u = bdim_at_front(u, ud, size)
    if idd is None:
        # Shared indices: the batch dimension is one more (whole) window dimension.
        new_dn = ScatterDimensionNumbers(
            update_window_dims=(0, *_shift(dn.update_window_dims)),
            inserted_window_dims=_shift(dn.inserted_window_dims),
            scatter_dims_to_operand_dims=_shift(dn.scatter_dims_to_operand_dims),
            operand_batching_dims=_shift(dn.operand_batching_dims),
            scatter_indices_batching_dims=dn.scatter_indices_batching_dims,
        )
    else:
        # Batched indices: pair the batch dimensions of operand and indices.
        idx = bdim_at_front(idx, idd, size)
        new_dn = ScatterDimensionNumbers(
            update_window_dims=_shift(dn.update_window_dims),
            inserted_window_dims=_shift(dn.inserted_window_dims),
            scatter_dims_to_operand_dims=_shift(dn.scatter_dims_to_operand_dims),
            operand_batching_dims=(0, *_shift(dn.operand_batching_dims)),
            scatter_indices_batching_dims=(0, *_shift(dn.scatter_indices_batching_dims)),
        )
    return prim.bind(x, idx, u, dimension_numbers=new_dn, **params), 0


def _scatter_params(params) -> dict[str, Any]:
    # Keyword arguments of the scatter wrappers taken from a scatter equation's parameters.
    return dict(
        indices_are_sorted=params["indices_are_sorted"],
        unique_indices=params["unique_indices"],
        mode=params["mode"],
    )


def _scatter_addsub_jvp(prim, primals, tangents, primal_out, *, dimension_numbers, **params):
    # Linear in operand and updates jointly.
    gx, _, gu = tangents
    if type(gx) is ad.Zero and type(gu) is ad.Zero:
        return ad.Zero.from_value(primal_out)
    gx, gu = ad.instantiate(gx), ad.instantiate(gu)
    return prim.bind(gx, primals[1], gu, dimension_numbers=dimension_numbers, **params)


def _scatter_addsub_transpose(prim, ct, x, idx, u, *, dimension_numbers, **params):
    x_ct = ct if ad.is_undefined_primal(x) else None
    u_ct = None
    if ad.is_undefined_primal(u):
        # Each update receives the cotangent of the window it was added to (dropped updates
        # read 0 with the fill mode).
        u_ct = _inverse_gather(
            ct, idx, dimension_numbers, u.aval.shape, mode=params["mode"], fill_value=0
        )
        if prim is scatter_sub_p:
            u_ct = lax_elem.neg(u_ct)
    return [x_ct, None, u_ct]


def _scatter_mul_jvp_updates(g, x, idx, u, *, dimension_numbers, **params):
    if not params["unique_indices"]:
        raise NotImplementedError(
            "scatter_mul: the derivative with respect to the updates is only implemented with "
            "unique_indices=True (as in JAX): with repeated indices each update's derivative "
            "is the product of the others."
        )
    spread = scatter_add(
        lax_shape.full(np.shape(x), 0, core.get_aval(g).dtype),
        idx,
        g,
        dimension_numbers,
        **_scatter_params(params),
    )
    return lax_elem.mul(x, spread)


def _scatter_mul_transpose(ct, x, idx, u, *, dimension_numbers, **params):
    x_ct = u_ct = None
    if ad.is_undefined_primal(x):
        # Linear in the operand: each element is scaled by the product of its updates.
        x_ct = scatter_mul(ct, idx, u, dimension_numbers, **_scatter_params(params))
    if ad.is_undefined_primal(u):
        if not params["unique_indices"]:
            raise NotImplementedError(
                "scatter_mul: the transpose with respect to the updates is only implemented "
                "with unique_indices=True (as in JAX)."
            )
        u_ct = _inverse_gather(
            lax_elem.mul(ct, x),
            idx,
            dimension_numbers,
            u.aval.shape,
            mode=params["mode"],
            fill_value=0,
        )
    return [x_ct, None, u_ct]


def _select(pred, on_true, on_false):
    return lax_elem.select_n(pred, on_false, on_true)


def _zeros_like(x, dtype=None):
    a = core.get_aval(x)
    return lax_shape.full(a.shape, 0, a.dtype if dtype is None else dtype)


def _scatter_extremal_jvp(primals, tangents, primal_out, *, dimension_numbers, **params):
    """Tangent of scatter-min/-max. Where several values tie for the extremum of an output
    element (updates, or updates and the operand's original value), the tangent is the
    average of theirs, as JAX does."""
    x, idx, u = primals
    gx, _, gu = tangents
    if type(gx) is ad.Zero and type(gu) is ad.Zero:
        return ad.Zero.from_value(primal_out)
    gx, gu = ad.instantiate(gx), ad.instantiate(gu)
    dn = dimension_numbers
    kw = _scatter_params(params)
    u_shape = np.shape(u)
    fill = dict(mode=kw["mode"], fill_value=0)

    def back(v):  # the value of each update's window in v
        return _inverse_gather(v, idx, dn, u_shape, **fill)

    def count(v):  # per update: the sum of v over the updates landing on its element
        return back(scatter_add(_zeros_like(x), idx, v, dn, **kw))

    el = lax_elem
    one_u, zero_u = lax_shape.full(u_shape, 1, core.get_aval(u).dtype), _zeros_like(u)
    target = back(primal_out)
    won = el.eq(u, target)  # this update is (one of) the extremum
    kept = el.eq(back(x), target)  # the original value is (one of) the extremum
    num_won = count(_select(won, one_u, zero_u))
    num_refs = count(one_u)
    # Ties share the tangent: 1 / (number of extremal values). Both counts are >= 1 wherever
    # they are used; the maxima keep NaN cases and dropped updates from dividing by zero.
    ties = el.max(el.add(num_won, _select(kept, one_u, zero_u)), one_u)
    share = el.div(one_u, ties)
    u_coef = _select(won, share, zero_u)
    x_coef = el.div(el.sub(_select(kept, share, zero_u), one_u), el.max(num_refs, one_u))
    # Each update's window: remove the operand's share of the tangent (x_coef - 1 in total
    # over the num_refs updates there) and add the updates' shares.
    t_updates = el.add(el.mul(back(gx), x_coef), el.mul(gu, u_coef))
    return scatter_add(gx, idx, t_updates, dn, **kw)


def _scatter_jvp(primals, tangents, primal_out, *, dimension_numbers, update_jaxpr, **params):
    if update_jaxpr is not None:
        raise NotImplementedError(
            "scatter_apply: differentiation is not implemented (nor in JAX); apply the "
            "function to the whole operand and select the written elements instead."
        )
    x, idx, u = primals
    gx, _, gu = tangents
    if type(gx) is ad.Zero and type(gu) is ad.Zero:
        return ad.Zero.from_value(primal_out)
    gx, gu = ad.instantiate(gx), ad.instantiate(gu)
    dn = dimension_numbers
    kw = _scatter_params(params)
    if params["unique_indices"]:
        # No update overwrites another: the tangent is the same scatter of the tangents.
        return scatter(gx, idx, gu, dn, **kw)
    # With repeated indices one update wins each element. Find which: scatter distinct
    # positive ids (one per update window), read back the id that landed under each update,
    # and keep the tangents of the winners (and of the operand elements nothing wrote to).
    # The same kernel runs the primal scatter, so the winners are the same.
    ids_shape = list(np.shape(u))
    for d in dn.update_window_dims:
        ids_shape[d] = 1
    n = prod(ids_shape)
    id_dtype = dtypes.canonicalize_dtype(np.uint32 if n < 2**32 - 1 else np.uint64)
    ids = lax_elem.add(
        lax_shape.reshape(lax_shape.iota(id_dtype, n), ids_shape),
        lax_shape.full(np.shape(u), 1, id_dtype),
    )
    scattered = scatter(lax_shape.full(np.shape(x), 0, id_dtype), idx, ids, dn, **kw)
    landed = _inverse_gather(scattered, idx, dn, np.shape(u))
    untouched = lax_elem.eq(scattered, _zeros_like(scattered))
    won = lax_elem.eq(ids, landed)
    gx = _select(untouched, gx, _zeros_like(gx))
    gu = _select(won, gu, _zeros_like(gu))
    return scatter_add(gx, idx, gu, dn, **kw)


def _scatter_transpose(ct, x, idx, u, *, dimension_numbers, update_jaxpr, **params):
    if not params["unique_indices"]:
        # The JVP of a scatter with possibly repeated indices is a scatter-add (above), so
        # only unique-index scatters are ever transposed.
        raise NotImplementedError(
            "scatter: the transpose is only implemented with unique_indices=True (as in JAX)."
        )
    u_shape = u.aval.shape if ad.is_undefined_primal(u) else np.shape(u)
    x_ct = u_ct = None
    kw = _scatter_params(params)
    if ad.is_undefined_primal(x):
        # Overwritten elements of the operand get no cotangent.
        zeros = lax_shape.full(u_shape, 0, core.get_aval(ct).dtype)
        x_ct = scatter(ct, idx, zeros, dimension_numbers, **kw)
    if ad.is_undefined_primal(u):
        u_ct = _inverse_gather(ct, idx, dimension_numbers, u_shape, mode=kw["mode"], fill_value=0)
    return [x_ct, None, u_ct]


_SCATTERS = (scatter_p, scatter_add_p, scatter_sub_p, scatter_mul_p, scatter_min_p, scatter_max_p)
for _prim in _SCATTERS:
    batching.primitive_batchers[_prim] = functools.partial(_scatter_vmap, _prim)
    # The result is the operand updated in place: it keeps the operand's sharding.
    sharding_rules.sharding_rules[_prim] = sharding_rules.unary_rule
ad.primitive_jvps[scatter_p] = _scatter_jvp
ad.primitive_transposes[scatter_p] = _scatter_transpose
for _prim in (scatter_add_p, scatter_sub_p):
    ad.primitive_jvps[_prim] = functools.partial(_scatter_addsub_jvp, _prim)
    ad.primitive_transposes[_prim] = functools.partial(_scatter_addsub_transpose, _prim)
defjvp(
    scatter_mul_p,
    lambda g, x, idx, u, **params: scatter_mul_p.bind(g, idx, u, **params),
    None,
    _scatter_mul_jvp_updates,
)
ad.primitive_transposes[scatter_mul_p] = _scatter_mul_transpose
ad.primitive_jvps[scatter_min_p] = _scatter_extremal_jvp
ad.primitive_jvps[scatter_max_p] = _scatter_extremal_jvp
del _prim


__all__ = [
    "scatter",
    "scatter_add",
    "scatter_add_p",
    "scatter_apply",
    "scatter_max",
    "scatter_max_p",
    "scatter_min",
    "scatter_min_p",
    "scatter_mul",
    "scatter_mul_p",
    "scatter_p",
    "scatter_sub",
    "scatter_sub_p",
]
