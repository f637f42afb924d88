"""Mutable array references (``spmd.new_ref``, ``spmd.Ref``): the type, the value and their
primitives, as JAX 0.10's ``jax.ref``.

A ``Ref`` owns a NumPy buffer that ``r[idx] = v`` overwrites in place. Its type is
``AbstractRef`` (printed ``Ref{f32[3]}``): a ``ShapedArray`` subclass, so code that reads a
type's shape and dtype works on it unchanged. Six primitives act on refs:

- ``new_ref x`` / ``empty_ref[ty]``: a new ref holding a copy of ``x`` (zeros for empty_ref);
- ``get``: ``c:f32[3] <- a[...]``, a copy of the indexed part;
- ``swap``: ``d:f32[3], a[...] <- a[...], c`` (the old value out, ``c`` in); its result unused,
  ``a[...] <- c``, which is what ``r[idx] = v`` stages;
- ``addupdate``: ``a[...] += c``;
- ``freeze a``: the final value (the ref is not read again); ``free_ref a``: drop it.

The index is static (ints and slices in the ``indexer`` parameter, printed as JAX prints it:
``a[0]``, ``a[1:]``, ``a[:,0]``) except for traced or array indices, which are operands after
the ref (and the value). ``r[idx] += v`` is a get, an add and a swap, as in JAX.

Inside ``jit`` a ``Ref`` argument enters the compiled program as the object itself, so the
program's writes land in the caller's ref, as JAX's jitted call updates it in place; every ref
primitive is effectful, so none is dropped or moved as dead code.

Under differentiation a ref made inside the function (``new_ref``) is a JVP tracer whose tangent
is a ``_TangentCell``: the tangent of its contents as a plain value, updated functionally
(``.at[idx].set``) by the tangents of swap and addupdate, so linearization and transposition see
only ordinary array operations. Under ``vmap`` a batched ref carries its batch dimension first
and every index gets a leading full slice.

>>> from spmd._src.lax import refs
>>> r = refs.new_ref(np.arange(3.0, dtype=np.float32))
>>> r[1:] = np.ones(2, np.float32)
>>> r
Ref([0., 1., 1.], dtype=float32)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spmd._src import core, dtypes
from spmd._src import core_printing as cp
from spmd._src.core import ShapedArray, Tracer
from spmd._src.interpreters import ad, batching
from spmd._src.lax.elementwise.conversion import convert_element_type
from spmd._src.lax.rules import bdim_to, moveaxis
from spmd._src.lax.shape import broadcast_in_dim, iota

# ---------------------------------------------------------------------------------------------
# The type and the value


class AbstractRef(ShapedArray):
    """The type of a mutable reference to an array of ``shape`` and ``dtype``: ``Ref{f32[3]}``
    in jaxprs, ``Ref{float32[3]}`` from ``spmd.typeof``."""

    __slots__ = ()

    @property
    def inner_aval(self) -> ShapedArray:
        """The type of the values the ref holds."""
        return ShapedArray.update(self)  # (a plain ShapedArray with every field of this one)

    def update(self, **changes: Any) -> AbstractRef:
        return ref_aval(ShapedArray.update(self, **changes))

    def __eq__(self, other: object) -> bool:
        return type(other) is AbstractRef and self.inner_aval == other.inner_aval

    def __hash__(self) -> int:
        return hash((AbstractRef, self.shape, self.dtype, self.weak_type, self.vma))

    def str_short(self, short_dtypes: bool = True) -> str:
        return "Ref{" + self.inner_aval.str_short(short_dtypes) + "}"

    def __str__(self) -> str:
        return self.str_short(False)

    __repr__ = __str__


def ref_aval(aval: ShapedArray) -> AbstractRef:
    """The type of a ref holding values of type ``aval`` (every field of ``aval`` kept)."""
    out = object.__new__(AbstractRef)
    for name in ShapedArray.__slots__:
        setattr(out, name, getattr(aval, name))
    return out


class Ref:
    """A mutable array reference (``spmd.new_ref(x)``): ``r[idx]`` reads, ``r[idx] = v``
    writes in place, ``spmd.freeze(r)`` gives the final value."""

    # ``weak_type``: the ref's type's, fixed when it is made (reads give values of that type);
    # ``_buf_weak``: what the repr shows, as JAX's: strong after a write, the type's after a
    # read.
    __slots__ = ("_buf", "weak_type", "_buf_weak", "__weakref__")
    __array_priority__ = 1000

    def __init__(self, buf: np.ndarray, weak_type: bool = False) -> None:
        self._buf = buf
        self.weak_type = self._buf_weak = weak_type

    @property
    def aval(self) -> AbstractRef:
        b = self._buf
        return AbstractRef(b.shape, b.dtype, self.weak_type)

    @property
    def shape(self) -> tuple[int, ...]:
        return self._buf.shape

    @property
    def dtype(self) -> np.dtype:
        return self._buf.dtype

    @property
    def ndim(self) -> int:
        return self._buf.ndim

    @property
    def size(self) -> int:
        return self._buf.size

    def __len__(self) -> int:
        if not self._buf.ndim:
            raise TypeError("len() of unsized object")
        return self._buf.shape[0]

    def unsafe_buffer_pointer(self) -> int:
        """The address of the ref's buffer: writes (also a jit's through the ref) go into this
        buffer, so the address stays the same for the ref's life."""
        return self._buf.__array_interface__["data"][0]

    def __getitem__(self, idx: Any) -> Any:
        return ref_get(self, idx)

    def __setitem__(self, idx: Any, value: Any) -> None:
        ref_set(self, idx, value)

    def __repr__(self) -> str:
        # An Array's text with its name replaced (continuation lines keep the Array's
        # indentation, as JAX's Ref prints).
        return "Ref" + repr(core.make_concrete(self._buf, self._buf_weak))[len("Array") :]

    __str__ = __repr__

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other


def is_ref(x: Any) -> bool:
    """Whether ``x`` is a ref or a traced one (also a batched or differentiated ref, whose
    tracer's type is the plain array type of one batch element)."""
    if type(x) is Ref:
        return True
    if not isinstance(x, Tracer):
        return False
    if type(x.aval) is AbstractRef:
        return True
    inner = getattr(x, "val", None)  # a BatchTracer's value
    if inner is None:
        inner = getattr(x, "primal", None)  # a JVPTracer's
    return inner is not None and is_ref(inner)


# ---------------------------------------------------------------------------------------------
# Indexers: NumPy-style indices as a static part (the parameter) and traced operands

_FULL = "full"


def _static_int(i: Any) -> int | None:
    """The value of a static integer index (a Python or NumPy int, or a concrete int scalar
    array); None for anything else."""
    if isinstance(i, (bool, np.bool_)):
        return None
    if isinstance(i, (int, np.integer)):
        return int(i)
    if (
        not isinstance(i, Tracer)
        and hasattr(i, "_value")
        and getattr(i, "shape", None) == ()
        and dtypes.issubdtype(i.dtype, np.integer)
    ):
        return int(np.asarray(i._value))
    return None


def parse_index(shape: tuple[int, ...], idx: Any, fn: str) -> tuple[tuple, list]:
    """(indexer, dynamic operands) of ``idx`` on a ref of ``shape``. The indexer has one entry
    per dimension: ``("int", i)``, ``("slice", start, size, step)`` or ``("dyn",)`` for the
    next operand (a traced or array index)."""
    if idx is None:
        idx = ()
    if not isinstance(idx, tuple):
        idx = (idx,)
    if sum(i is Ellipsis for i in idx) > 1:
        raise IndexError(f"{fn}: an index can only have a single ellipsis ('...'), got {idx}")
    if Ellipsis in [i for i in idx if not isinstance(i, (Tracer, np.ndarray))]:
        k = [j for j, i in enumerate(idx) if i is Ellipsis][0]
        fill = len(shape) - (len(idx) - 1)
        idx = idx[:k] + (slice(None),) * max(fill, 0) + idx[k + 1 :]
    if len(idx) > len(shape):
        raise ValueError(f"{fn}: {len(idx)} indices for a Ref of rank {len(shape)} (shape {shape})")
    idx = idx + (slice(None),) * (len(shape) - len(idx))
    entries, operands = [], []
    for i, d in zip(idx, shape):
        s = _static_int(i)
        if s is not None:
            if not -d <= s < d:
                raise ValueError(f"{fn}: index {s} is out of bounds for a dimension of size {d}")
            entries.append(("int", s))
        elif isinstance(i, slice):
            start, stop, step = i.indices(d)
            if step < 1:
                raise ValueError(f"{fn}: slice {i} has step {step}; only positive steps work")
            entries.append(("slice", start, len(range(start, stop, step)), step))
        elif isinstance(i, Tracer) or hasattr(i, "_value") or isinstance(i, np.ndarray):
            a = core.get_aval(i)
            if not dtypes.issubdtype(a.dtype, np.integer):
                raise TypeError(
                    f"{fn}: indices must be integers, got an index of type {a.str_short()}"
                )
            entries.append(("dyn",))
            operands.append(i)
        else:
            raise TypeError(f"{fn}: index {i!r} of type {type(i).__name__} is not an integer, "
                            "a slice, an ellipsis or an integer array")  # fmt: skip
    return tuple(entries), operands


def _numpy_index(indexer: tuple, shape: tuple[int, ...], dyn: list) -> tuple:
    """The NumPy index of ``indexer`` with the dynamic operands' values; traced-index values
    are clamped into range (as a compiled dynamic slice clamps them)."""
    out, it = [], iter(dyn)
    for e, d in zip(indexer, shape):
        if e[0] == "int":
            out.append(e[1])
        elif e[0] == "slice":
            out.append(slice(e[1], e[1] + e[2] * e[3], e[3]))
        else:
            v = np.asarray(next(it))
            v = np.clip(np.where(v < 0, v + d, v), 0, d - 1)
            out.append(int(v) if v.ndim == 0 else v)
    return tuple(out)


def indexed_shape(indexer: tuple, shape: tuple[int, ...], dyn_shapes: list) -> tuple:
    """The shape of the indexed part: NumPy's indexing rules on a zero-strided stand-in (no
    memory), with zeros for the dynamic operands."""
    dyn = [np.zeros(s, np.intp) for s in dyn_shapes]
    stand_in = np.broadcast_to(np.zeros((), np.int8), shape)
    return stand_in[_numpy_index(indexer, shape, dyn)].shape


def _check_value(fn: str, ref: ShapedArray, val: ShapedArray, shape: tuple) -> None:
    if val.shape != shape:
        raise ValueError(
            f"{fn}: the value has shape {val.shape}, but the indexed part of the "
            f"{ref_aval(ref).str_short(False)} has shape {shape} (ref shape {ref.shape}); "
            "values are not broadcast"
        )
    if val.dtype != ref.dtype:
        raise ValueError(
            f"{fn}: the value has dtype {val.dtype.name}, but the "
            f"{ref_aval(ref).str_short(False)} holds {ref.dtype.name}"
        )


def _pp_indexer(indexer: tuple, shape: tuple, dyn: list, ctx: core.PPContext) -> str:
    full = all(e[0] == "slice" and e[1] == 0 and e[2] == d and e[3] == 1
               for e, d in zip(indexer, shape))  # fmt: skip
    if full:
        return "..."
    parts, it = [], iter(dyn)
    for e, d in zip(indexer, shape):
        if e[0] == "int":
            parts.append(str(e[1]))
        elif e[0] == "slice":
            # As JAX prints a slice: start and start + size, each left out at its default.
            start, stop = e[1], e[1] + e[2]
            parts.append(f"{start or ''}:{stop if stop != d else ''}")
        else:
            parts.append(cp.pp_var(next(it), ctx, print_shape=False))
    return ",".join(parts)


# ---------------------------------------------------------------------------------------------
# new_ref


def new_ref(init_val: Any, *, memory_space: Any = None, kind: str | None = None) -> Any:
    """A new mutable reference holding a copy of ``init_val`` (an array or scalar)."""
    if is_ref(init_val):
        raise TypeError("new_ref: the initial value is already a Ref; pass an array")
    if not core.valid_jaxtype(init_val):
        raise TypeError(
            f"new_ref: the initial value of type {type(init_val).__name__} is not an array "
            "or a scalar"
        )
    return new_ref_p.bind(init_val, kind=kind, memory_space=memory_space)


class _NewRefPrimitive(core.Primitive):
    """``new_ref``: under vmap a new ref is batched even when its initial value is not (as in
    JAX), so that a later write of a batched value finds room. The batching interpreter runs
    no rule for a primitive without batched operands, so this is done at bind, which also
    catches the new_refs of a jaxpr that vmap reinterprets (a jit's, a scan body's)."""

    __slots__ = ()

    def bind(self, x: Any, **params: Any) -> Any:
        trace = core.trace_ctx.trace
        if isinstance(trace, batching.BatchTrace) and trace.to_batch_info(x)[1] is None:
            a = core.get_aval(x)
            # (JAX's rule passes NumPy ints as the dimensions, and its jaxpr prints them so.)
            dims = tuple(np.int64(i) for i in range(1, a.ndim + 1))
            with core.set_current_trace(trace.parent_trace):
                x = broadcast_in_dim(x, (trace.axis_data.size, *a.shape), dims)
            x = batching.BatchTracer(trace, x, 0)
        return super().bind(x, **params)


def _new_ref_impl(x, *, kind, memory_space):
    return Ref(np.array(x, copy=True))


def _new_ref_abstract_eval(x, *, kind, memory_space):
    return ref_aval(x)


def _new_ref_vmap(axis_data, vals, dims, *, kind, memory_space):
    (x,), (d,) = vals, dims
    return new_ref_p.bind(_move_to_front(x, d), kind=kind, memory_space=memory_space), 0


def _new_ref_jvp_inline(x, **params):
    # Staged before JVPTrace's own handling, which would leave a ref made from a constant
    # untracked: every ref made under differentiation carries a tangent cell, so a later write
    # of a differentiated value into it is seen.
    trace = core.trace_ctx.trace
    p, t = trace.to_primal_tangent(x)
    with core.set_current_trace(trace.parent_trace):
        r = new_ref_p.bind(p, **params)
        forward = trace.tangent_trace is trace.parent_trace and not ad.linearizing_joint.get()
        if forward and _inexact(p):
            # Forward mode (jvp): the tangent is a ref of its own, written beside the primal
            # (as JAX's jvp jaxpr shows it). Linearization (grad, and the jvp a loop's rule
            # traces for it) keeps it as a value, which transposes as any other.
            return ad.JVPTracer(
                trace, r, _TangentCell(None, new_ref_p.bind(ad.instantiate(t), **params))
            )
    return ad.JVPTracer(trace, r, _TangentCell(t))


new_ref_p = _NewRefPrimitive("new_ref", effectful=True)
new_ref_p.def_impl(_new_ref_impl)
new_ref_p.def_abstract_eval(_new_ref_abstract_eval)
batching.primitive_batchers[new_ref_p] = _new_ref_vmap
ad.call_inline_rules[new_ref_p] = _new_ref_jvp_inline


# ---------------------------------------------------------------------------------------------
# empty_ref


def empty_ref(ty: Any, memory_space: Any = None) -> Any:
    """A new mutable reference of type ``ty`` (a ShapeDtypeStruct or array type) whose
    contents are not set. As in JAX it exists only in traced programs (jit, make_jaxpr)."""
    if not hasattr(ty, "shape") or not hasattr(ty, "dtype"):
        raise TypeError(f"empty_ref: ty must have a shape and a dtype, got {type(ty).__name__}")
    aval = ShapedArray(tuple(ty.shape), dtypes.canonicalize_dtype(np.dtype(ty.dtype)))
    return empty_ref_p.bind(ty=aval, memory_space=memory_space)


def _empty_ref_impl(*, ty, memory_space):
    # JAX has no eager rule for it either.
    raise NotImplementedError("Evaluation rule for 'empty_ref' not implemented (use it in jit)")


def _empty_ref_kernel(avals, *, ty, memory_space):
    # Compiled programs (jit) take their kernel from here: a zero-filled buffer.
    return lambda: Ref(np.zeros(ty.shape, ty.dtype))


def _empty_ref_abstract_eval(*, ty, memory_space):
    return ref_aval(ty)


def _empty_ref_jvp_inline(**params):
    trace = core.trace_ctx.trace
    with core.set_current_trace(trace.parent_trace):
        r = empty_ref_p.bind(**params)
    return ad.JVPTracer(trace, r, _TangentCell(ad.Zero(ad.tangent_aval(params["ty"]))))


def _empty_ref_pp(params: dict) -> list[tuple[str, Any]]:
    return [("memory_space", params["memory_space"]), ("ty", params["ty"].str_short(False))]


class _EmptyRefPrimitive(core.Primitive):
    """``empty_ref``: batched under vmap, as new_ref is (see _NewRefPrimitive)."""

    __slots__ = ()

    def bind(self, *, ty: ShapedArray, memory_space: Any) -> Any:
        trace = core.trace_ctx.trace
        if isinstance(trace, batching.BatchTrace):
            big = ty.update(shape=(trace.axis_data.size, *ty.shape))
            with core.set_current_trace(trace.parent_trace):
                r = self.bind(ty=big, memory_space=memory_space)
            return batching.BatchTracer(trace, r, 0)
        return super().bind(ty=ty, memory_space=memory_space)


empty_ref_p = _EmptyRefPrimitive("empty_ref", effectful=True)
empty_ref_p.def_impl(_empty_ref_impl)
empty_ref_p.def_abstract_eval(_empty_ref_abstract_eval)
empty_ref_p.typed_impl = _empty_ref_kernel
ad.call_inline_rules[empty_ref_p] = _empty_ref_jvp_inline
core.pp_param_rules[empty_ref_p] = _empty_ref_pp


# ---------------------------------------------------------------------------------------------
# get


def ref_get(ref: Any, idx: Any = None) -> Any:
    """``ref[idx]``: a copy of the indexed part of ``ref`` (``None`` or ``()``: all of it)."""
    _check_ref("get", ref)
    indexer, dyn = parse_index(ref.shape, idx, "get")
    return get_p.bind(ref, *dyn, indexer=indexer)


def _get_impl(ref, *dyn, indexer):
    ref._buf_weak = ref.weak_type  # (JAX's eager ref shows its type again once read)
    return np.array(ref._buf[_numpy_index(indexer, ref._buf.shape, dyn)])


def _get_abstract_eval(ref, *dyn, indexer):
    shape = indexed_shape(indexer, ref.shape, [a.shape for a in dyn])
    return ShapedArray(shape, ref.dtype, ref.weak_type)


def _get_jvp(primals, tangents, primal_out, *, indexer):
    cell = _tangent_cell(tangents[0], "get")
    if cell is not None and cell.ref is not None:
        return get_p.bind(cell.ref, *primals[1:], indexer=indexer)
    if cell is None or type(cell.value) is ad.Zero:
        return ad.Zero(ad.tangent_aval(core.get_aval(primal_out)))
    return cell.value[_traced_index(indexer, primals[0].shape, primals[1:])]


def _get_vmap(axis_data, vals, dims, *, indexer):
    ref, dyn = vals[0], vals[1:]
    indexer, dyn, out_dim = _batch_index(indexer, dims[0], dyn, dims[1:], axis_data.size, "get")
    return get_p.bind(ref, *dyn, indexer=indexer), out_dim


def _get_pp(eqn: core.JaxprEqn, ctx: core.PPContext):
    ref, dyn = eqn.invars[0], eqn.invars[1:]
    out = cp.pp_var(eqn.outvars[0], ctx)
    idx = _pp_indexer(eqn.params["indexer"], ref.aval.shape, dyn, ctx)
    return cp.pp.text(f"{out} <- {cp.pp_var(ref, ctx, False)}[{idx}]")


get_p = core.Primitive("get", effectful=True)
get_p.def_impl(_get_impl)
get_p.def_abstract_eval(_get_abstract_eval)
get_p.fresh_outputs = True
ad.primitive_jvps[get_p] = _get_jvp
batching.primitive_batchers[get_p] = _get_vmap
cp.pp_eqn_rules[get_p] = _get_pp


# ---------------------------------------------------------------------------------------------
# swap (and set: a swap whose old value is not used)


def ref_swap(ref: Any, idx: Any, value: Any, _function_name: str = "swap") -> Any:
    """Write ``value`` into ``ref[idx]`` and return what was there."""
    _check_ref(_function_name, ref)
    _check_write_under_vmap(ref, _function_name)
    indexer, dyn = parse_index(ref.shape, idx, _function_name)
    out = swap_p.bind(ref, _as_value(value, _function_name), *dyn, indexer=indexer)
    _written(ref)
    return out


def ref_set(ref: Any, idx: Any, value: Any) -> None:
    """``ref[idx] = value`` (shape and dtype must be those of ``ref[idx]``)."""
    ref_swap(ref, idx, value)


def _swap_impl(ref, val, *dyn, indexer):
    i = _numpy_index(indexer, ref._buf.shape, dyn)
    old = np.array(ref._buf[i])
    ref._buf[i] = val
    ref._buf_weak = False  # (values are written strong; the ref's type stays)
    return old


def _swap_abstract_eval(ref, val, *dyn, indexer):
    shape = indexed_shape(indexer, ref.shape, [a.shape for a in dyn])
    _check_value("swap", ref, val, shape)
    return ShapedArray(shape, ref.dtype)


def _swap_jvp(primals, tangents, primal_out, *, indexer):
    cell, val_t = _tangent_cell(tangents[0], "swap"), tangents[1]
    out_t = ad.Zero(ad.tangent_aval(core.get_aval(primal_out)))
    if cell is None:
        _check_undifferentiated_write(primals[0], val_t, "swap")
        return out_t
    if cell.ref is not None:
        return swap_p.bind(cell.ref, ad.instantiate(val_t), *primals[2:], indexer=indexer)
    idx = _traced_index(indexer, primals[0].shape, primals[2:])
    if type(cell.value) is not ad.Zero:
        out_t = cell.value[idx]
    elif type(val_t) is ad.Zero:
        return out_t
    cell.value = ad.instantiate(cell.value).at[idx].set(ad.instantiate(val_t))
    return out_t


def _swap_vmap(axis_data, vals, dims, *, indexer):
    ref, val, dyn = vals[0], vals[1], vals[2:]
    if dims[0] is None:
        raise _unbatched_write(ref, "swap")
    size = axis_data.size
    indexer, dyn, out_dim = _batch_index(indexer, dims[0], dyn, dims[2:], size, "swap")
    val = bdim_to(val, dims[1], out_dim, size)
    return swap_p.bind(ref, val, *dyn, indexer=indexer), out_dim


def _swap_pp(eqn: core.JaxprEqn, ctx: core.PPContext):
    ref, val, dyn = eqn.invars[0], eqn.invars[1], eqn.invars[2:]
    out = eqn.outvars[0]
    r = cp.pp_var(ref, ctx, False)
    place = f"{r}[{_pp_indexer(eqn.params['indexer'], ref.aval.shape, dyn, ctx)}]"
    v = cp.pp_var(val, ctx, False)
    if id(out) in ctx.unused:  # a set: the old value is not read (as JAX prints it)
        return cp.pp.text(f"{place} <- {v}")
    return cp.pp.text(f"{cp.pp_var(out, ctx)}, {place} <- {place}, {v}")


swap_p = core.Primitive("swap", effectful=True)
swap_p.def_impl(_swap_impl)
swap_p.def_abstract_eval(_swap_abstract_eval)
swap_p.fresh_outputs = True
ad.primitive_jvps[swap_p] = _swap_jvp
batching.primitive_batchers[swap_p] = _swap_vmap
cp.pp_eqn_rules[swap_p] = _swap_pp


# ---------------------------------------------------------------------------------------------
# addupdate


def ref_addupdate(ref: Any, idx: Any, x: Any) -> None:
    """``ref[idx] += x`` as one operation (``r[idx] += x`` is a get, an add and a swap)."""
    _check_ref("addupdate", ref)
    _check_write_under_vmap(ref, "addupdate")
    indexer, dyn = parse_index(ref.shape, idx, "addupdate")
    addupdate_p.bind(ref, _as_value(x, "addupdate"), *dyn, indexer=indexer)
    _written(ref)


def _addupdate_impl(ref, val, *dyn, indexer):
    # np.add.at adds once per occurrence of a repeated array index (a scatter-add).
    np.add.at(ref._buf, _numpy_index(indexer, ref._buf.shape, dyn), val)
    ref._buf_weak = False
    return []


def _addupdate_abstract_eval(ref, val, *dyn, indexer):
    shape = indexed_shape(indexer, ref.shape, [a.shape for a in dyn])
    _check_value("addupdate", ref, val, shape)
    return []


def _addupdate_jvp(primals, tangents, primal_out, *, indexer):
    cell, val_t = _tangent_cell(tangents[0], "addupdate"), tangents[1]
    if cell is None:
        _check_undifferentiated_write(primals[0], val_t, "addupdate")
    elif cell.ref is not None:
        addupdate_p.bind(cell.ref, ad.instantiate(val_t), *primals[2:], indexer=indexer)
    elif type(val_t) is not ad.Zero:
        idx = _traced_index(indexer, primals[0].shape, primals[2:])
        cell.value = ad.instantiate(cell.value).at[idx].add(val_t)
    return []


def _addupdate_vmap(axis_data, vals, dims, *, indexer):
    ref, val, dyn = vals[0], vals[1], vals[2:]
    if dims[0] is None:
        raise _unbatched_write(ref, "addupdate")
    size = axis_data.size
    indexer, dyn, out_dim = _batch_index(indexer, dims[0], dyn, dims[2:], size, "addupdate")
    addupdate_p.bind(ref, bdim_to(val, dims[1], out_dim, size), *dyn, indexer=indexer)
    return [], []


def _addupdate_pp(eqn: core.JaxprEqn, ctx: core.PPContext):
    ref, val, dyn = eqn.invars[0], eqn.invars[1], eqn.invars[2:]
    idx = _pp_indexer(eqn.params["indexer"], ref.aval.shape, dyn, ctx)
    return cp.pp.text(f"{cp.pp_var(ref, ctx, False)}[{idx}] += {cp.pp_var(val, ctx, False)}")


addupdate_p = core.Primitive("addupdate", multiple_results=True, effectful=True)
addupdate_p.def_impl(_addupdate_impl)
addupdate_p.def_abstract_eval(_addupdate_abstract_eval)
ad.primitive_jvps[addupdate_p] = _addupdate_jvp
batching.primitive_batchers[addupdate_p] = _addupdate_vmap
cp.pp_eqn_rules[addupdate_p] = _addupdate_pp


# ---------------------------------------------------------------------------------------------
# freeze and free_ref


def freeze(ref: Any) -> Any:
    """The final value of ``ref`` (which should not be used after). Anything else is given
    back as it is, as JAX's freeze does."""
    if not is_ref(ref):
        return ref
    return freeze_p.bind(ref)


def _freeze_impl(ref):
    # A copy: an eager ref stays usable after freeze (as JAX's does).
    return np.array(ref._buf)


def _freeze_abstract_eval(ref):
    return ShapedArray(ref.shape, ref.dtype, ref.weak_type)


def _freeze_jvp(primals, tangents, primal_out):
    cell = _tangent_cell(tangents[0], "freeze")
    if cell is None:
        return ad.Zero(ad.tangent_aval(core.get_aval(primal_out)))
    return cell.value if cell.ref is None else freeze_p.bind(cell.ref)


def _freeze_vmap(axis_data, vals, dims):
    return freeze_p.bind(vals[0]), dims[0]


freeze_p = core.Primitive("freeze", effectful=True)
freeze_p.def_impl(_freeze_impl)
freeze_p.def_abstract_eval(_freeze_abstract_eval)
freeze_p.fresh_outputs = True
ad.primitive_jvps[freeze_p] = _freeze_jvp
batching.primitive_batchers[freeze_p] = _freeze_vmap


def free_ref(ref: Any) -> None:
    """Drop ``ref`` (it should not be used after)."""
    _check_ref("free_ref", ref)
    free_ref_p.bind(ref)


free_ref_p = core.Primitive("free_ref", multiple_results=True, effectful=True)
free_ref_p.def_impl(lambda ref: [])
free_ref_p.def_abstract_eval(lambda ref: [])


def _free_ref_jvp(primals, tangents, primal_out):
    cell = _tangent_cell(tangents[0], "free_ref")
    if cell is not None and cell.ref is not None:
        free_ref_p.bind(cell.ref)
    return []


ad.primitive_jvps[free_ref_p] = _free_ref_jvp
batching.primitive_batchers[free_ref_p] = lambda axis_data, vals, dims: (
    free_ref_p.bind(vals[0]),
    [],
)


# ---------------------------------------------------------------------------------------------
# Helpers of the rules


class _TangentCell:
    """The tangent of a ref under differentiation. Under linearization (grad, vjp): the
    tangent of its current contents as a value of the tangent trace (or a symbolic Zero),
    replaced by each write. Under jvp: ``ref``, a tangent ref the tangent rules read and
    write as the primal ones do theirs."""

    __slots__ = ("value", "ref")

    def __init__(self, value: Any, ref: Any = None) -> None:
        self.value = value
        self.ref = ref


def _inexact(x: Any) -> bool:
    return dtypes.issubdtype(core.get_aval(x).dtype, np.inexact)


def _tangent_cell(t: Any, fn: str) -> _TangentCell | None:
    """The tangent cell of a ref operand; None for a ref no tangent is kept for (made outside
    the differentiated function)."""
    if type(t) is _TangentCell:
        return t
    if type(t) is ad.Zero:
        return None
    # A ref made outside a loop, branch or call is differentiated through it by rewriting the
    # primitive to carry the ref's value (refs_discharge); where that rewrite does not apply
    # (a while_loop whose condition reads the ref) the rules see a plain tangent, and a silent
    # zero would be a wrong derivative.
    raise NotImplementedError(
        f"{fn}: cannot differentiate a Ref made outside the loop or branch that uses it here "
        "(a while_loop whose condition reads a Ref); create the Ref inside, or pass its value "
        "through the loop carry"
    )


def _written(ref: Any) -> None:
    """In a traced program a ref once written reads as strongly typed (as JAX's: the values
    written are strong); the tracer's type says so from here on, and so does the variable a
    program being traced (a loop body) reads a ref it closes over from. An eager Ref keeps
    its own type."""
    consts = getattr(core.trace_ctx.trace, "const_ids", None)
    var = consts.get(id(ref)) if consts else None
    if var is not None and type(var.aval) is AbstractRef and var.aval.weak_type:
        var.aval = var.aval.update(weak_type=False)
    while isinstance(ref, Tracer):
        aval = getattr(ref, "_aval", None)  # a jaxpr tracer holds its type
        if type(aval) is AbstractRef:
            if aval.weak_type:
                ref._aval = aval.update(weak_type=False)
                var = ref._var  # (equations read their operands' types off their variables)
                var.aval = var.aval.update(weak_type=False)
            return
        ref = getattr(ref, "primal", getattr(ref, "val", None))  # a JVP or batch tracer's


def _check_undifferentiated_write(ref: Any, val_t: Any, fn: str) -> None:
    # A ref made outside the differentiated function keeps no tangent: writing a value that
    # has one would lose it (JAX raises a bare Exception here too).
    if type(val_t) is not ad.Zero:
        raise Exception(  # noqa: TRY002
            f"{fn} under differentiation: a differentiated value written into the "
            f"{ref_aval(core.get_aval(ref)).str_short(False)}, which is not differentiated (it "
            "was made outside the differentiated function); create it inside, or pass its "
            "value as a differentiated argument"
        )


def _check_ref(fn: str, ref: Any) -> None:
    if not is_ref(ref):
        what = core.get_aval(ref).str_short() if core.valid_jaxtype(ref) else type(ref).__name__
        raise TypeError(f"{fn}: expected a Ref, got {what}")


def _as_value(x: Any, fn: str) -> Any:
    if is_ref(x):
        raise TypeError(f"{fn}: the value written into a Ref cannot be a Ref; freeze it first")
    if not core.valid_jaxtype(x):
        raise TypeError(f"{fn}: the value of type {type(x).__name__} is not an array or scalar")
    a = core.get_aval(x)
    if a.weak_type:
        # A weakly typed value is stored at its own dtype, made strong first (as JAX does: a
        # traced one shows the conversion in the jaxpr; a Python scalar folds into a literal).
        x = convert_element_type(x, a.dtype, weak_type=False)
    return x


def _traced_index(indexer: tuple, shape: tuple, dyn) -> tuple:
    """The NumPy-style index of ``indexer`` with traced operands, for the tangent value."""
    out, it = [], iter(dyn)
    for e in indexer:
        if e[0] == "int":
            out.append(e[1])
        elif e[0] == "slice":
            out.append(slice(e[1], e[1] + e[2] * e[3], e[3]))
        else:
            out.append(next(it))
    return tuple(out)


def _move_to_front(x: Any, d: int) -> Any:
    return moveaxis(x, d, 0)


def _batch_index(indexer: tuple, ref_dim, dyn, dyn_dims, size: int, fn: str):
    """(indexer, operands, result batch dimension) of an access to a ref batched at
    ``ref_dim`` (or not, None) with index operands batched at ``dyn_dims``. The batch
    dimension of the ref is indexed whole; a batched traced index becomes an array index
    (one position per example), and then the ref's batch dimension is indexed by an iota
    beside it, so NumPy's rules for array indices place the result's batch dimension."""
    if any(core.get_aval(x).shape for x, d in zip(dyn, dyn_dims) if d is None) or any(
        np.ndim(x) > 1 for x, d in zip(dyn, dyn_dims) if d is not None
    ):
        raise NotImplementedError(f"vmap of a Ref {fn} at an array index is not supported")
    if all(d is None for d in dyn_dims):
        if ref_dim is None:
            raise NotImplementedError(f"vmap of a Ref {fn} with nothing batched")  # unreached
        entries = list(indexer)
        entries.insert(ref_dim, ("slice", 0, size, 1))
        # Only ints and scalar indices besides: the result keeps the sliced dimensions in order.
        out_dim = sum(e[0] == "slice" for e in entries[:ref_dim])
        return tuple(entries), list(dyn), out_dim
    dyn = [x if d is None else moveaxis(x, d, 0) for x, d in zip(dyn, dyn_dims)]
    entries = list(indexer)
    if ref_dim is not None:
        at = sum(e[0] == "dyn" for e in entries[:ref_dim])
        dyn.insert(at, iota(np.dtype(np.int32), size))
        entries.insert(ref_dim, ("dyn",))
    # With an array index, ints and scalar indices are array indices too (NumPy): adjacent,
    # their common dimension stays in place; apart, it goes first.
    adv = [i for i, e in enumerate(entries) if e[0] != "slice"]
    contiguous = adv == list(range(adv[0], adv[-1] + 1))
    out_dim = sum(e[0] == "slice" for e in entries[: adv[0]]) if contiguous else 0
    return tuple(entries), dyn, out_dim


def _unbatched_write(ref: Any, fn: str) -> Exception:
    # JAX raises a bare Exception here too.
    return Exception(
        f"{fn} under vmap: a write into the unbatched {core.get_aval(ref).str_short(False)} "
        "would happen once for every batch element; pass the Ref to the vmapped function as "
        "a batched argument, or create it inside"
    )


def _check_write_under_vmap(ref: Any, fn: str) -> None:
    """Refuse a write into a ref that vmap does not batch (one the function closes over or
    gets with in_axes=None), whether or not the value written is batched, as JAX does."""
    trace = core.trace_ctx.trace
    if isinstance(trace, batching.BatchTrace) and trace.to_batch_info(ref)[1] is None:
        raise _unbatched_write(ref, fn)


__all__ = [
    "AbstractRef",
    "Ref",
    "addupdate_p",
    "empty_ref",
    "empty_ref_p",
    "free_ref",
    "free_ref_p",
    "freeze",
    "freeze_p",
    "get_p",
    "is_ref",
    "new_ref",
    "new_ref_p",
    "ref_addupdate",
    "ref_get",
    "ref_set",
    "ref_swap",
    "swap_p",
]
