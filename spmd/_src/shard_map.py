"""shard_map: a per-device (SPMD) body run over a mesh of devices.

``shard_map(f, mesh=mesh, in_specs=P('x'), out_specs=P())`` splits each argument into one block
per device (``in_specs`` say which array dimension each mesh axis splits), runs ``f`` on the
blocks, and puts the per-device results back together (``out_specs``). Inside ``f`` the mesh
axes are bound names for collectives.

In one process the body runs once over the stacked blocks of all devices: each manual mesh axis
is a named batch dimension (one ``BatchTrace`` per axis, the first mesh axis outermost), so the
whole thing is vmap over the mesh axes -- one NumPy call per primitive for all devices. Inputs
are views of the global buffers (reshape/transpose); an input whose spec does not mention an
axis stays unbatched over it and is computed with once. Collectives are the batching rules of
their primitives (``spmd._src.lax.parallel``). The global program (views, batched body,
assembly of the outputs) is traced once per body and layout and compiled.

``shard_map_reference`` (module ``shard_map_reference``) is the executable specification: a loop
over every device that slices the inputs, interprets the body device by device in lockstep, does
each collective by hand, and writes the output blocks. Tests compare the two.

With ``check_vma`` (the default) the body is typed as in JAX: each value carries the mesh axes
it varies over (``{V:x}`` in printed jaxprs), ``pvary`` casts are inserted where values of
different types meet, and psum is ``psum_invariant``; out_specs that claim replication the
body does not establish are rejected (``shard_map_check``). Autodiff differentiates the body:
the jvp, linearization and transpose of a shard_map are shard_maps (``shard_map_autodiff``).

>>> mesh = spmd.make_mesh((8,), ("x",))
>>> f = shard_map(lambda x: lax.psum(x.sum(), "x"), mesh=mesh, in_specs=P("x"), out_specs=P())
>>> f(jnp.arange(32))
Array(496, dtype=int32)
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

# The replication check and the reference loop live in their own modules; their public names are
# re-exported here.
from spmd._src import core, dispatch, shard_map_autodiff, shard_map_unreduced, tracer_printing
from spmd._src import tree_util as tu
from spmd._src.array import Array
from spmd._src.config import config
from spmd._src.core import ClosedJaxpr, ShapedArray, Tracer
from spmd._src.interpreters import batching, sharding_rules
from spmd._src.interpreters import partial_eval as pe
from spmd._src.lax import parallel
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.rules import moveaxis
from spmd._src.mesh import AxisType, Mesh, get_mesh
from spmd._src.shard_map_check import (
    _BodyContext,
    _check_vma,
    _MeshAxisEnv,
    _spec_vma,
    _type_body,
    infer_vma,
    register_body_trace,
)
from spmd._src.shard_map_reference import block_text, shard_map_reference
from spmd._src.sharding import NamedSharding, P, PartitionSpec, spec_axes
from spmd._src.util import LRU, prod

# ---------------------------------------------------------------------------------------------
# Layout helpers


def _manual_axes(mesh: Mesh, manual: Any) -> tuple:
    """The manual axes in mesh order (the order of the nested traces, first outermost)."""
    return tuple(a for a in mesh.axis_names if a in manual)


def _spec_entries(spec: PartitionSpec, ndim: int) -> list[tuple]:
    parts = list(spec) + [None] * (ndim - len(spec))
    return [spec_axes(e) for e in parts[:ndim]]


def _global_shape(pd: Sequence[int], spec: PartitionSpec, sizes: dict) -> tuple:
    return tuple(
        d * prod(sizes[a] for a in axes) for d, axes in zip(pd, _spec_entries(spec, len(pd)))
    )


def _device_shape(shape: Sequence[int], spec: PartitionSpec, sizes: dict) -> tuple:
    return tuple(
        d // prod(sizes[a] for a in axes) for d, axes in zip(shape, _spec_entries(spec, len(shape)))
    )


def _split_input(x: Any, spec: PartitionSpec, sizes: dict, manual: tuple) -> tuple[Any, set]:
    """A view of global ``x`` with one leading dimension per mesh axis its spec names (in mesh
    order), followed by the per-device dimensions."""
    shape = tuple(np.shape(x))
    new_shape: list[int] = []
    axis_pos: dict = {}
    rest: list[int] = []
    for d, axes in zip(shape, _spec_entries(spec, len(shape))):
        for a in axes:
            axis_pos[a] = len(new_shape)
            new_shape.append(sizes[a])
        rest.append(len(new_shape))
        new_shape.append(d // prod(sizes[a] for a in axes))
    v = lax_shape.reshape(x, tuple(new_shape))
    present = [a for a in manual if a in axis_pos]
    v = lax_shape.transpose(v, tuple(axis_pos[a] for a in present) + tuple(rest))
    return v, set(present)


def _assemble(v: Any, present: list, spec: PartitionSpec, sizes: dict, manual: tuple) -> Any:
    """The global output from ``v``: leading dimensions for the ``present`` axes (mesh order),
    then the per-device result. Axes the spec names but the value does not vary over are
    broadcast (a stride-0 view)."""
    nd = np.ndim(v) - len(present)
    entries = _spec_entries(spec, nd)
    named = {a for axes in entries for a in axes}
    target = [a for a in manual if a in named]
    pd = tuple(np.shape(v))[len(present) :]
    if present != target:
        shape = tuple(sizes[a] for a in target) + pd
        dims = tuple(target.index(a) for a in present) + tuple(range(len(target), len(target) + nd))
        v = lax_shape.broadcast_in_dim(v, shape, dims)
    t = len(target)
    perm: list[int] = []
    out_shape: list[int] = []
    for j, axes in enumerate(entries):
        perm.extend(target.index(a) for a in axes)
        perm.append(t + j)
        out_shape.append(pd[j] * prod(sizes[a] for a in axes))
    v = lax_shape.transpose(v, tuple(perm))
    return lax_shape.reshape(v, tuple(out_shape))


# ---------------------------------------------------------------------------------------------
# The global program: views, the body batched over each manual axis, assembly


def run_batched(
    jaxpr: ClosedJaxpr, mesh: Mesh, axes: Sequence[Any], mentioned: Sequence[set], args: list
) -> tuple[list, list]:
    """The body once for the devices of ``axes`` (``AxisData``, in mesh order: one nested map
    per axis, the first outermost). Input ``i`` carries a leading dimension for each axis in
    ``mentioned[i]`` (mesh order); each result comes back with a leading dimension for each
    axis it varies over (mesh order), and the list of those axes."""
    level_dims: dict[int, list] = {}

    def run(level: int, vals: Sequence[Any]) -> list:
        if level == len(axes):
            return core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *vals)
        a = axes[level].name
        in_dims = [0 if a in m else None for m in mentioned]
        outs, dims = batching.batch_fun(lambda *t: run(level + 1, t), axes[level], vals, in_dims)
        level_dims[level] = dims
        return outs

    with _MeshAxisEnv(mesh, tuple(axis.name for axis in axes)):
        outs = run(0, list(args))
    results, presents = [], []
    for i, o in enumerate(outs):
        v, present, c = o, [], 0
        for level, axis in enumerate(axes):
            d = level_dims[level][i]
            if d is not None:
                v = moveaxis(v, c + d, c)
                present.append(axis.name)
                c += 1
        results.append(v)
        presents.append(present)
    return results, presents


_programs: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def global_program(
    jaxpr: ClosedJaxpr, mesh: Mesh, in_specs: tuple, out_specs: tuple, manual: tuple
) -> ClosedJaxpr:
    """The shard_map as one jaxpr on global arrays (cached per body, mesh and specs)."""
    per_body = _programs.setdefault(jaxpr, {})
    key = (mesh, tuple(in_specs), tuple(out_specs), manual)
    hit = per_body.get(key)
    if hit is not None:
        return hit
    sizes = dict(mesh.shape)
    in_avals = [
        ShapedArray(_global_shape(a.shape, s, sizes), a.dtype, a.weak_type)
        for a, s in zip(jaxpr.in_avals, in_specs)
    ]

    def fn(*xs):
        args, mentioned = [], []
        for x, spec in zip(xs, in_specs):
            v, present = _split_input(x, spec, sizes, manual)
            args.append(v)
            mentioned.append(present)
        axes = [batching.AxisData(a, sizes[a], per_device=True) for a in manual]
        outs, presents = run_batched(jaxpr, mesh, axes, mentioned, args)
        results = []
        for i, (v, present, spec) in enumerate(zip(outs, presents, out_specs)):
            named = {a for e in spec for a in spec_axes(e)}
            stray = [a for a in present if a not in named]
            if stray:
                raise ValueError(
                    f"shard_map: output {i} varies over mesh axis {stray[0]!r}, but its "
                    f"out_specs entry {spec} does not name {stray[0]!r}: it claims the value "
                    f"is the same on every device along that axis. Name the axis in out_specs "
                    f"or reduce over it (e.g. lax.psum(..., {stray[0]!r}))."
                )
            results.append(_assemble(v, present, spec, sizes, manual))
        return results

    prog = pe.trace_to_jaxpr(fn, in_avals)
    if len(per_body) < 32:
        per_body[key] = prog
    return prog


# ---------------------------------------------------------------------------------------------
# The primitive


def _params_manual(params: dict) -> tuple:
    return _manual_axes(params["mesh"], params["newly_manual_axes"])


def _program_of(params: dict) -> ClosedJaxpr:
    return global_program(
        params["jaxpr"],
        params["mesh"],
        params["in_specs"],
        params["out_specs"],
        _params_manual(params),
    )


class _Mode(threading.local):
    def __init__(self) -> None:
        self.reference = False


_mode = _Mode()


class reference_mode:
    """Inside ``with reference_mode():`` shard_map (and pmap) run the reference loop."""

    def __enter__(self) -> None:
        self.prev = _mode.reference
        _mode.reference = True

    def __exit__(self, *exc) -> None:
        _mode.reference = self.prev


def _shard_map_impl(*args, **params):
    if _mode.reference:
        return shard_map_reference(params, args)
    fn = core.jaxpr_as_numpy_fn(_program_of(params))
    return fn(*args)


def _shard_map_compile(**params):
    fn = core.jaxpr_as_numpy_fn(_program_of(params))

    def run(*args):
        if _mode.reference:
            return shard_map_reference(params, args)
        return fn(*args)

    return run


def _shard_map_abstract_eval(
    *avals, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes, context_mesh=False
):
    sizes = dict(mesh.shape)
    return [
        ShapedArray(_global_shape(a.shape, s, sizes), a.dtype, a.weak_type)
        for a, s in zip(jaxpr.out_avals, out_specs)
    ]


def _insert_none(spec: PartitionSpec, d: int) -> PartitionSpec:
    # Spelled as JAX's: the new dimension's None is kept even when it ends the spec.
    parts = list(spec) + [None] * max(0, d - len(spec))
    parts.insert(d, None)
    return P(*parts)


def _shard_map_vmap(axis_data, vals, dims, **params):
    jaxpr = params["jaxpr"]
    mesh = params["mesh"]
    manual = _params_manual(params)
    # A vmapped dimension is a per-device dimension no mesh axis splits.
    in_specs = tuple(
        s if d is None else _insert_none(s, d) for s, d in zip(params["in_specs"], dims)
    )
    with _MeshAxisEnv(mesh, manual):
        body, out_dims = batching.batch_jaxpr(jaxpr, axis_data, dims)
    out_specs = tuple(
        s if d is None else _insert_none(s, d) for s, d in zip(params["out_specs"], out_dims)
    )
    check_vma = params["check_vma"]
    with _BodyContext(mesh, manual, check_vma):
        body = _type_body(body, mesh, manual, in_specs, out_specs, check_vma)
    new = dict(params, jaxpr=body, in_specs=in_specs, out_specs=out_specs)
    return shard_map_p.bind(*vals, **new), list(out_dims)


def _shard_map_sharding(specs, avals, *, mesh, out_specs, jaxpr, **params):
    manual = set(_params_manual(dict(params, mesh=mesh)))
    if specs is None or manual >= set(mesh.axis_names):
        body = jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr
        if sharding_rules.has_constraints(body):
            # Only for the observers inside (inspect_array_sharding): in a body over the whole
            # mesh each value is one device's block, unsplit (JAX reports P() too).
            whole = [NamedSharding(mesh, P())] * len(body.invars)
            sharding_rules.propagate_jaxpr(body, whole, _top=False)
        if all(t == AxisType.Explicit for t in mesh.axis_types):
            # Results typed on Explicit axes: spelled as their types, one entry per dimension
            # (JAX 0.10's jit; an eager call over the whole mesh keeps out_specs' spelling).
            return [
                NamedSharding(mesh, P(*s._normalized(v.aval.ndim)))
                for s, v in zip(out_specs, body.outvars)
            ]
        return [NamedSharding(mesh, s) for s in out_specs]
    # Over part of the mesh: the manual axes are placed by out_specs; the other axes' shardings
    # flow through the body, as propagation gives them (JAX carries them through).
    auto_in = []
    for sp in specs:
        if sp is None:
            auto_in.append(None)
            continue
        entries = [[a for a in spec_axes(e) if a not in manual] for e in sp]
        auto_in.append(NamedSharding(mesh, P(*[sharding_rules.as_entry(e) for e in entries])))
    body = jaxpr.jaxpr if isinstance(jaxpr, ClosedJaxpr) else jaxpr
    body_outs = sharding_rules.propagate_jaxpr(body, auto_in, _top=False)
    explicit = all(t == AxisType.Explicit for t in mesh.axis_types)
    outs = []
    for s, b, v in zip(out_specs, body_outs, body.outvars):
        nd = v.aval.ndim
        have = s._normalized(nd)
        auto = b.spec._normalized(nd) if isinstance(b, NamedSharding) else (None,) * nd
        spec = [
            sharding_rules.as_entry([*spec_axes(h), *[a for a in spec_axes(t) if a not in manual]])
            for h, t in zip(have, auto)
        ]
        if not explicit:
            while spec and spec[-1] is None:
                spec.pop()
        outs.append(NamedSharding(mesh, P(*spec)))
    return outs


class _AxisNames:
    """Prints a set of mesh axis names as ``frozenset({'x', 'y'})`` in mesh order (JAX's
    order is the set's hash order, which varies between runs)."""

    def __init__(self, names: tuple) -> None:
        self.names = names

    def __str__(self) -> str:
        return "frozenset({" + ", ".join(repr(a) for a in self.names) + "})"


def _shard_map_pp(params: dict) -> list:
    manual = _AxisNames(_params_manual(params))
    params = dict(params, newly_manual_axes=manual)
    if params.pop("context_mesh", False):
        params["mesh"] = params["mesh"].abstract_mesh
    return sorted(params.items())


shard_map_p = core.Primitive("shard_map", multiple_results=True)
shard_map_p.def_impl(_shard_map_impl)
shard_map_p.def_abstract_eval(_shard_map_abstract_eval)
batching.primitive_batchers[shard_map_p] = _shard_map_vmap
shard_map_autodiff.register(shard_map_p)
dispatch.compile_rules[shard_map_p] = _shard_map_compile
sharding_rules.sharding_rules[shard_map_p] = _shard_map_sharding
sharding_rules.sets_sharding.add(shard_map_p)
sharding_rules.wants_operand_specs.add(shard_map_p)
core.pp_param_rules[shard_map_p] = _shard_map_pp


# ---------------------------------------------------------------------------------------------
# The public function


class _InferSpecs:
    def __repr__(self) -> str:
        return "Infer"


Infer = _InferSpecs()


def _is_spec_leaf(x: Any) -> bool:
    return x is None or isinstance(x, PartitionSpec)


def _fun_name(f: Callable) -> str:
    return getattr(f, "__name__", None) or type(f).__name__


def _arg_paths(f: Callable, args: tuple) -> list[str]:
    import inspect

    try:
        params = [
            p.name
            for p in inspect.signature(f).parameters.values()
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        ]
    except (TypeError, ValueError):
        params = []
    out = []
    for i, a in enumerate(args):
        bound = f" (bound to {_fun_name(f)}'s parameter '{params[i]}')" if i < len(params) else ""
        for p, _ in tu.tree_flatten_with_path(a)[0]:
            out.append(f"args[{i}]{tu.keystr(p)}" + ("" if p else bound))
    return out


def _flat_specs(specs: Any, tree_value: Any, what: str, fun_name: str) -> list:
    try:
        flat = tu.broadcast_prefix(specs, tree_value, is_leaf=_is_spec_leaf)
    except ValueError as e:
        raise ValueError(
            f"shard_map applied to the function '{fun_name}': {what} must be a pytree prefix "
            f"of the {'arguments' if what == 'in_specs' else 'outputs'} (a PartitionSpec, "
            f"None, or a tuple/list/dict of those): {e}"
        ) from None
    out = []
    for s in flat:
        if s is None:
            s = P()
        if not isinstance(s, PartitionSpec):
            raise TypeError(
                f"shard_map applied to the function '{fun_name}': {what} entries must be "
                f"PartitionSpecs, got {type(s).__name__} {s!r}"
            )
        out.append(s)
    return out


def _check_spec(
    spec: PartitionSpec,
    shape: tuple,
    what: str,
    path: str,
    mesh: Mesh,
    manual: tuple,
    fun_name: str,
    dtype,
) -> None:
    ty = f"{np.dtype(dtype).name}[{','.join(map(str, shape))}]"
    # in_specs name the argument ("in_specs for args[0] (bound to ...)"); out_specs index into
    # the output tree ("out_specs[1]"), or are the whole tree (path "").
    where = f"{what}{path}" if what == "out_specs" else f"{what} for {path}"
    noun = "input" if what == "in_specs" else "output"
    item = f"{noun} {path}" if path else noun
    used: dict = {}
    for i, e in enumerate(spec):
        for a in spec_axes(e):
            if a not in manual:
                kind = "manual" if a in mesh.shape else "mesh"
                raise ValueError(
                    f"shard_map {what} must refer only to {kind} axes "
                    f"{tuple(a for a in manual) if kind == 'manual' else mesh.axis_names}, but "
                    f"{where} is {spec}, which refers to {a!r}"
                    + ("" if a in mesh.shape else f" (the mesh has axes {dict(mesh.shape)})")
                    + "."
                )
            if a in used:
                raise ValueError(
                    f"shard_map {where} is {spec}, which uses mesh axis {a!r} for both "
                    f"dimension {used[a]} and dimension {i}; each mesh axis may split one "
                    "dimension."
                )
            used[a] = i
    if len(spec) > len(shape):
        raise ValueError(
            f"shard_map applied to the function '{fun_name}' was given an {what} entry which "
            f"is too long to be compatible with the corresponding {noun} value: {where} "
            f"is {spec} which has length {len(spec)}, but the {item} has shape {ty}, "
            f"which has rank {len(shape)} (and {len(shape)} < {len(spec)}). For scalars use "
            "P()."
        )
    if what == "in_specs":
        for i, (d, axes) in enumerate(zip(shape, _spec_entries(spec, len(shape)))):
            n = prod(mesh.shape[a] for a in axes)
            if d % n:
                lower, upper = (d // n) * n, -(-d // n) * n
                near = " and ".join(str(x) for x in sorted({lower, upper}) if x > 0)
                raise ValueError(
                    f"shard_map applied to the function '{fun_name}' was given argument arrays "
                    f"with axis sizes that are not evenly divisible by the corresponding mesh "
                    f"axis sizes: the argument {path} of shape {ty} has in_specs {spec}, which "
                    f"maps array axis {i} (of size {d}) to mesh axes {axes} (of total size "
                    f"{n}), but {n} does not evenly divide {d}; the nearest sizes it divides "
                    f"are {near}."
                )


_trace_cache = LRU(256)


def _spec_key(specs: Any) -> tuple:
    leaves, tree = tu.tree_flatten(specs, is_leaf=_is_spec_leaf)
    return (tuple(leaves), tree)


class _Traced:
    __slots__ = ("jaxpr", "out_tree", "out_specs", "in_specs", "consts")

    def __init__(self, jaxpr, out_tree, out_specs, in_specs, consts) -> None:
        self.jaxpr, self.out_tree, self.out_specs = jaxpr, out_tree, out_specs
        self.in_specs, self.consts = in_specs, consts


def _trace_body(f, mesh, manual, check_vma, in_tree, leaves, specs, out_specs, paths):
    fun_name = _fun_name(f)
    sizes = dict(mesh.shape)
    pd_avals = []
    for x, s, p in zip(leaves, specs, paths):
        a = core.get_aval(x)
        _check_spec(s, a.shape, "in_specs", p, mesh, manual, fun_name, a.dtype)
        pd_avals.append(ShapedArray(_device_shape(a.shape, s, sizes), a.dtype, a.weak_type))
    box = []
    # An eager call (its arguments known): print(x) in the body shows each device's block.
    eager = core.trace_ctx.trace is core.eval_trace and not _has_tracers(leaves)
    body_traces = []

    def flat_fun(*flat):
        if check_vma:  # jax.typeof(x) in the body shows the axes x varies over
            checked = frozenset(manual) | parallel._vma_ctx.axes
            in_vmas = [_spec_vma(s, manual) for s in specs]
            register_body_trace(core.trace_ctx.trace, in_vmas, mesh.axis_names, checked)
        if eager:
            trace = core.trace_ctx.trace
            tracer_printing.body_values[id(trace)] = block_text(trace, mesh, specs, leaves)
            body_traces.append(id(trace))
        out = f(*tu.tree_unflatten(in_tree, flat))
        out_leaves, out_tree = tu.tree_flatten(out)
        box.append(out_tree)  # (not ``out``: its tracers die with the trace, leak_check)
        return out_leaves

    try:
        with _BodyContext(mesh, manual, check_vma):
            debug = pe.DebugInfo("shard_map", fun_name, paths)
            closed = pe.trace_to_jaxpr(flat_fun, pd_avals, debug)
    finally:
        for t in body_traces:
            tracer_printing.body_values.pop(t, None)
    out_tree = box[0]
    dummy = tu.tree_unflatten(out_tree, [0] * out_tree.num_leaves)
    if callable(out_specs):
        # The caller (pmap) builds the specs from the output tree.
        out_flat = out_specs(out_tree)
    else:
        out_flat = _flat_specs(out_specs, dummy, "out_specs", fun_name)
    out_paths = [tu.keystr(p) for p, _ in tu.tree_flatten_with_path(dummy)[0]]
    for s, a, p in zip(out_flat, closed.out_avals, out_paths):
        _check_spec(s, a.shape, "out_specs", p, mesh, manual, fun_name, a.dtype)
    consts: list = []
    if closed.consts:
        # Values the body closes over (arrays, tracers of an enclosing trace) become leading
        # replicated operands, as in JAX.
        j, consts = pe.convert_constvars_jaxpr(closed)
        closed = ClosedJaxpr(j, [])
    in_specs = tuple([P()] * len(consts) + list(specs))
    with _BodyContext(mesh, manual, check_vma):
        closed = _type_body(closed, mesh, manual, in_specs, out_flat, check_vma, strict=True)
    if check_vma:
        outs = [a.aval.vma for a in closed.jaxpr.outvars]
        _check_vma(outs, out_flat, out_paths, manual, mesh, fun_name)
    return _Traced(closed, out_tree, tuple(out_flat), in_specs, consts)


def _has_tracers(xs) -> bool:
    return any(isinstance(x, Tracer) for x in xs)


def _infer_in_specs(leaves, mesh, manual) -> list:
    """in_specs from the arguments: an Array's sharding, or (under jit and other traces) the
    sharding in a traced value's type, on the Explicit axes of ``mesh``."""
    out = []
    for x in leaves:
        s = getattr(x, "_sharding", None) if type(x) is Array else None
        if isinstance(x, Tracer):
            s = sharding_rules.type_sharding(x)
            same = isinstance(s, NamedSharding) and (
                s.mesh.axis_names == mesh.axis_names and s.mesh.axis_sizes == mesh.axis_sizes
            )
            s = s if same else None
        if isinstance(s, NamedSharding) and (s.mesh == mesh or isinstance(x, Tracer)):
            parts = [tuple(a for a in spec_axes(e) if a in manual) or None for e in s.spec]
            out.append(P(*parts))
        else:
            out.append(P())
    return out


def _check_typed_inputs(leaves, specs, paths, mesh: Mesh, fun_name: str) -> None:
    """On a mesh whose axes are all Explicit, a shard_map over all of them takes its arguments
    as their types shard them (JAX 0.10: it does not reshard): in_specs must say the same."""
    from spmd._src.placement import typeof  # (placement imports jit, which imports this)

    def spelled(entries: Sequence[tuple]) -> PartitionSpec:
        return P(*[None if not e else e[0] if len(e) == 1 else e for e in entries])

    for x, spec, path in zip(leaves, specs, paths):
        t = typeof(x)
        ndim = len(t.shape)
        want = _spec_entries(spec, ndim)
        s = t.sharding
        have = _spec_entries(s.spec, ndim) if isinstance(s, NamedSharding) else [()] * ndim
        if list(want) != list(have):
            raise ValueError(
                f"in_specs passed to shard_map: {spelled(want)} does not match the specs of the "
                f"input: {spelled(have)} for arg: {t}. shard_map applied to the function "
                f"'{fun_name}' takes its argument {path} as its type shards it, on a mesh whose "
                f"axes are all Explicit ({dict(mesh.shape)}): omit in_specs to take the specs "
                f"from the arguments, or spmd.reshard the argument to {spelled(want)} first."
            )


def _prepare(f, mesh, in_specs, out_specs, axis_names, check_vma, leaves, in_tree, paths):
    """Check the arguments against the specs and trace the body (cached): (traced, mesh,
    manual axes)."""
    fun_name = _fun_name(f)
    m = mesh if mesh is not None else get_mesh()
    if m is None:
        raise ValueError(
            f"shard_map applied to the function '{fun_name}' needs a mesh: pass mesh=... or "
            "set one with spmd.set_mesh(mesh) / `with spmd.sharding.use_mesh(mesh):`."
        )
    if not isinstance(m, Mesh):
        raise TypeError(f"shard_map: mesh must be a Mesh, got {type(m).__name__}")
    if axis_names:
        bad = [a for a in axis_names if a not in m.shape]
        if bad:
            raise ValueError(
                f"shard_map: axis_names {sorted(map(str, axis_names))} must be axes of the mesh "
                f"{dict(m.shape)}; {bad[0]!r} is not."
            )
        manual = _manual_axes(m, set(axis_names))
    else:
        manual = tuple(m.axis_names)
    if in_specs is Infer or in_specs is None:
        specs = _infer_in_specs(leaves, m, manual)
    else:
        specs = _flat_specs(
            in_specs, in_tree.unflatten([0] * in_tree.num_leaves), "in_specs", fun_name
        )
    if (
        in_specs is not Infer
        and in_specs is not None
        and set(manual) == set(m.axis_names)
        and all(t == AxisType.Explicit for t in m.axis_types)
    ):
        _check_typed_inputs(leaves, specs, paths, m, fun_name)
    try:
        key = (
            f,
            m,
            manual,
            bool(check_vma),
            in_tree,
            tuple(core.get_aval(x) for x in leaves),
            tuple(specs),
            out_specs if callable(out_specs) else _spec_key(out_specs),
            core.trace_ctx.axis_env,
            parallel._vma_ctx.axes,
            config.trace_context(),
        )
        hash(key)
    except TypeError:
        key = None
    traced = _trace_cache.get(key) if key is not None else None
    if traced is None:
        traced = _trace_body(f, m, manual, check_vma, in_tree, leaves, specs, out_specs, paths)
        if key is not None and not _has_tracers(traced.consts):
            _trace_cache[key] = traced
    return traced, m, manual


def _bind(traced, m, manual, check_vma, leaves, context_mesh: bool = False) -> list:
    # context_mesh: the mesh came from set_mesh/use_mesh, not mesh=; a printed jaxpr shows it
    # as its abstract mesh, as JAX's does (the parameter is there only when true).
    return shard_map_p.bind(
        *traced.consts,
        *leaves,
        jaxpr=traced.jaxpr,
        mesh=m,
        in_specs=traced.in_specs,
        out_specs=traced.out_specs,
        check_vma=bool(check_vma),
        newly_manual_axes=frozenset(manual),
        **({"context_mesh": True} if context_mesh else {}),
    )


class Executable:
    """A traced shard_map ready to run eagerly on Arrays of one signature: the compiled global
    program and the results' shardings (the fast path of eager calls)."""

    __slots__ = (
        "traced",
        "run",
        "shardings",
        "weak",
        "consts",
        "params",
        "by_placement",
        "observed",
    )

    def __init__(self, traced: _Traced, mesh: Mesh, manual: tuple, check_vma: bool) -> None:
        self.traced = traced
        self.params = dict(
            jaxpr=traced.jaxpr,
            mesh=mesh,
            in_specs=traced.in_specs,
            out_specs=traced.out_specs,
            check_vma=bool(check_vma),
            newly_manual_axes=frozenset(manual),
        )
        self.run = _shard_map_compile(**self.params)
        self.shardings = [NamedSharding(mesh, s) for s in traced.out_specs]
        # Over part of the mesh, the results' shardings depend on the arguments' (the other
        # axes flow through the body): worked out per placement of the arguments.
        self.by_placement: dict | None = None if set(manual) >= set(mesh.axis_names) else {}
        body = traced.jaxpr.jaxpr if isinstance(traced.jaxpr, ClosedJaxpr) else traced.jaxpr
        # Observers in the body (inspect_array_sharding) hear their shardings on each eager
        # call, as in JAX (under jit: once per placement).
        self.observed = sharding_rules.has_constraints(body)
        self.weak = [a.weak_type for a in traced.jaxpr.out_avals]
        self.consts = [c._value if type(c) is Array else c for c in traced.consts]

    def _shardings(self, leaves: Sequence[Array]) -> list:
        if self.by_placement is None:
            return self.shardings
        key = tuple([x._sharding for x in leaves])
        got = self.by_placement.get(key)
        if got is None:
            shs = [None] * len(self.consts) + list(key)
            avals = [core.get_aval(c) for c in self.consts] + [x.aval for x in leaves]
            got = sharding_rules.propagate(shard_map_p, shs, avals, self.params)
            if len(self.by_placement) >= 64:
                self.by_placement.clear()
            self.by_placement[key] = got
        return got

    def __call__(self, leaves: Sequence[Array]) -> Any:
        if self.observed:
            if self.by_placement is None:
                _shard_map_sharding(None, [], **self.params)
            else:
                self.by_placement.clear()  # _shardings propagates again: the observers run
        outs = self.run(*self.consts, *[x._value for x in leaves])
        res = [
            Array(o if type(o) is np.ndarray else np.asarray(o), w, s)
            for o, w, s in zip(outs, self.weak, self._shardings(leaves))
        ]
        return self.traced.out_tree.unflatten(res)


def array_signature(args: tuple) -> tuple | None:
    """The types of positional Array arguments (None if any argument is something else)."""
    try:
        sig = tuple([(x._value.shape, x._value.dtype, x.weak_type) for x in args])
    except AttributeError:
        return None
    for x in args:
        if type(x) is not Array:
            return None
    return sig


def _shard_map_call(f, mesh, in_specs, out_specs, axis_names, check_vma, args, fast=None):
    eager = core.trace_ctx.trace is core.eval_trace
    if fast is not None and eager:
        sig = array_signature(args)
        if sig is not None:
            key = (sig, get_mesh() if mesh is None else mesh, core.trace_ctx.axis_env,
                   parallel._vma_ctx.axes, config.trace_context())  # fmt: skip
            exe = fast.get(key)
            if exe is not None:
                return exe(args)
    leaves, in_tree = tu.tree_flatten(args)
    paths = _arg_paths(f, args)
    traced, m, manual = _prepare(
        f, mesh, in_specs, out_specs, axis_names, check_vma, leaves, in_tree, paths
    )
    if fast is not None and eager and sig is not None and not _has_tracers(traced.consts):
        if len(fast) >= 64:
            fast.clear()
        fast[key] = exe = Executable(traced, m, manual, check_vma)
        return exe(args)
    outs = _bind(traced, m, manual, check_vma, leaves, context_mesh=mesh is None)
    return tu.tree_unflatten(traced.out_tree, outs)


def shard_map(
    f: Callable | None = None,
    /,
    *,
    out_specs: Any,
    in_specs: Any = Infer,
    mesh: Mesh | None = None,
    axis_names: Any = frozenset(),
    check_vma: bool = True,
) -> Callable:
    """Map ``f`` over the devices of ``mesh``: each device runs ``f`` on its blocks of the
    arguments (``in_specs``), and the results are put together by ``out_specs``.

    ``mesh`` defaults to the mesh in context; ``in_specs`` default to the arguments' own
    shardings; ``axis_names`` (default: all) are the mesh axes that are manual inside ``f``.
    With ``check_vma`` (the default) out_specs that claim replication over an axis the value
    varies over raise before anything runs.

    >>> mesh = spmd.make_mesh((4,), ("x",))
    >>> shard_map(lambda x: 2 * x, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(jnp.arange(4))
    Array([0, 2, 4, 6], dtype=int32)
    """
    if f is None:
        return functools.partial(
            shard_map,
            out_specs=out_specs,
            in_specs=in_specs,
            mesh=mesh,
            axis_names=axis_names,
            check_vma=check_vma,
        )
    if not callable(f):
        raise TypeError(f"shard_map: expected a function as the first argument, got {f!r}")

    fast: dict = {}
    # Unreduced out_specs: the body's values are summed at the boundary, then typed {U:X}.
    body, body_out_specs, retag = shard_map_unreduced.split(f, out_specs)

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        if kwargs:
            raise TypeError(
                f"shard_map applied to the function '{_fun_name(f)}' got keyword arguments "
                f"{sorted(kwargs)}; pass arguments positionally (in_specs match them)."
            )
        outs = _shard_map_call(
            body, mesh, in_specs, body_out_specs, axis_names, check_vma, args, fast
        )
        return outs if retag is None else retag(outs, mesh if mesh is not None else get_mesh())

    return wrapped


def smap(
    f: Callable | None = None,
    /,
    *,
    in_axes: Any = Infer,
    out_axes: Any,
    axis_name: Any,
) -> Callable:
    """shard_map over one axis of the mesh in context, specs given vmap-style: ``in_axes`` /
    ``out_axes`` say which dimension of each argument / result that axis splits (None:
    replicated). The body sees blocks, not squeezed slices.

    >>> with spmd.sharding.use_mesh(spmd.make_mesh((4,), ("x",))):
    ...     smap(lambda x: 2 * x, in_axes=0, out_axes=0, axis_name="x")(jnp.arange(8))
    Array([ 0,  2,  4,  6,  8, 10, 12, 14], dtype=int32)
    """
    if f is None:
        return functools.partial(smap, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name)

    def to_spec(ax):
        if ax is None:
            return P()
        if isinstance(ax, int) and ax >= 0:
            return P(*([None] * ax + [axis_name]))
        raise ValueError(f"smap: axes must be None or non-negative ints, got {ax!r}")

    def convert(tree):
        return tu.tree_map(to_spec, tree, is_leaf=lambda x: x is None)

    @functools.wraps(f)
    def wrapped(*args):
        ins = Infer if in_axes is Infer else convert(in_axes)
        if isinstance(in_axes, int):
            ins = to_spec(in_axes)
        outs = (
            to_spec(out_axes)
            if isinstance(out_axes, int) or out_axes is None
            else convert(out_axes)
        )
        return _shard_map_call(f, None, ins, outs, frozenset({axis_name}), True, args)

    return wrapped


__all__ = [
    "Infer",
    "global_program",
    "infer_vma",
    "reference_mode",
    "shard_map",
    "shard_map_p",
    "shard_map_reference",
    "smap",
]
