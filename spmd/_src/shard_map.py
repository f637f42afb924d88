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

``shard_map_reference`` is the executable specification: a loop over every device that slices
the inputs, interprets the body device by device in lockstep, does each collective by hand, and
writes the output blocks. Tests compare the two.

>>> mesh = spmd.make_mesh((8,), ("x",))
>>> f = shard_map(lambda x: lax.psum(x.sum(), "x"), mesh=mesh, in_specs=P("x"), out_specs=P())
>>> f(jnp.arange(32))
Array(496, dtype=int32)
"""

from __future__ import annotations

import functools
import itertools
import threading
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core, dispatch
from spmd._src import tree_util as tu
from spmd._src.array import Array
from spmd._src.config import config
from spmd._src.core import ClosedJaxpr, ShapedArray, Tracer
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.interpreters import partial_eval as pe
from spmd._src.lax import parallel
from spmd._src.lax import shape as lax_shape
from spmd._src.lax.rules import moveaxis
from spmd._src.mesh import Mesh, get_mesh
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


class _MeshAxisEnv:
    """Binds the manual axes as names (for collectives and their abstract evaluation)."""

    def __init__(self, mesh: Mesh, manual: tuple) -> None:
        self.env = tuple((a, mesh.shape[a]) for a in manual)

    def __enter__(self) -> None:
        self.prev = core.trace_ctx.axis_env
        core.trace_ctx.axis_env = self.prev + self.env

    def __exit__(self, *exc) -> None:
        core.trace_ctx.axis_env = self.prev


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
        level_dims: dict[int, list] = {}

        def run(level: int, vals: Sequence[Any]) -> list:
            if level == len(manual):
                return core.eval_jaxpr(jaxpr.jaxpr, jaxpr.consts, *vals)
            a = manual[level]
            in_dims = [0 if a in m else None for m in mentioned]
            outs, dims = batching.batch_fun(
                lambda *t: run(level + 1, t), batching.AxisData(a, sizes[a]), vals, in_dims
            )
            level_dims[level] = dims
            return outs

        with _MeshAxisEnv(mesh, manual):
            outs = run(0, args)
        results = []
        for i, (o, spec) in enumerate(zip(outs, out_specs)):
            v, present, c = o, [], 0
            for level, a in enumerate(manual):
                d = level_dims[level][i]
                if d is not None:
                    v = moveaxis(v, c + d, c)
                    present.append(a)
                    c += 1
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
    *avals, jaxpr, mesh, in_specs, out_specs, check_vma, newly_manual_axes
):
    sizes = dict(mesh.shape)
    return [
        ShapedArray(_global_shape(a.shape, s, sizes), a.dtype, a.weak_type)
        for a, s in zip(jaxpr.out_avals, out_specs)
    ]


def _insert_none(spec: PartitionSpec, d: int) -> PartitionSpec:
    parts = list(spec) + [None] * max(0, d - len(spec))
    parts.insert(d, None)
    while parts and parts[-1] is None:
        parts.pop()
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
    new = dict(params, jaxpr=body, in_specs=in_specs, out_specs=out_specs)
    return shard_map_p.bind(*vals, **new), list(out_dims)


def _shard_map_inline(*args, **params):
    # Autodiff sees the global program: each inner primitive (collectives in their stacked,
    # global form included) is differentiated by its own rule, so gradients are those of the
    # function shard_map computes on global arrays.
    prog = _program_of(params)
    return core.eval_jaxpr(prog.jaxpr, prog.consts, *args)


def _shard_map_sharding(specs, avals, *, mesh, out_specs, **_):
    return [NamedSharding(mesh, s) for s in out_specs]


shard_map_p = core.Primitive("shard_map", multiple_results=True)
shard_map_p.def_impl(_shard_map_impl)
shard_map_p.def_abstract_eval(_shard_map_abstract_eval)
batching.primitive_batchers[shard_map_p] = _shard_map_vmap
ad.call_inline_rules[shard_map_p] = _shard_map_inline
dispatch.compile_rules[shard_map_p] = _shard_map_compile
sharding_rules.sharding_rules[shard_map_p] = _shard_map_sharding
sharding_rules.sets_sharding.add(shard_map_p)


# ---------------------------------------------------------------------------------------------
# Replication checking: the mesh axes each value varies over (JAX's varying manual axes)


def _union(sets) -> frozenset:
    out: frozenset = frozenset()
    for s in sets:
        out = out | s
    return out


def _call_jaxpr(eqn: core.JaxprEqn) -> core.Jaxpr | None:
    for v in eqn.params.values():
        j = v.jaxpr if isinstance(v, ClosedJaxpr) else v if isinstance(v, core.Jaxpr) else None
        if (
            j is not None
            and len(j.invars) == len(eqn.invars)
            and len(j.outvars) == len(eqn.outvars)
        ):
            return j
    return None


def _jaxpr_of(v: Any) -> core.Jaxpr:
    return v.jaxpr if isinstance(v, ClosedJaxpr) else v


def infer_vma(jaxpr: core.Jaxpr, in_vmas: Sequence[frozenset]) -> list[frozenset]:
    """The mesh axes each output of ``jaxpr`` may vary over, given its inputs'."""
    env: dict[int, frozenset] = {id(v): frozenset(s) for v, s in zip(jaxpr.invars, in_vmas)}

    def read(a) -> frozenset:
        return frozenset() if type(a) is core.Literal else env.get(id(a), frozenset())

    for eqn in jaxpr.eqns:
        ins = [read(a) for a in eqn.invars]
        outs = _eqn_vma(eqn, ins)
        for v, s in zip(eqn.outvars, outs):
            env[id(v)] = s
    return [read(a) for a in jaxpr.outvars]


def _eqn_vma(eqn: core.JaxprEqn, ins: list[frozenset]) -> list[frozenset]:
    prim, params, n_out = eqn.primitive, eqn.params, len(eqn.outvars)
    rule = parallel.vma_rules.get(prim)
    if rule is not None:
        return [frozenset(rule(params, set(_union(ins))))] * n_out
    name = prim.name
    if name == "cond" and "branches" in params:
        outs = [ins[0]] * n_out
        for br in params["branches"]:
            got = infer_vma(_jaxpr_of(br), ins[1:])
            outs = [o | g for o, g in zip(outs, got)]
        return outs
    if name == "scan" and "num_carry" in params:
        nc, nk = params["num_consts"], params["num_carry"]
        consts, carry, xs = ins[:nc], ins[nc : nc + nk], ins[nc + nk :]
        body = _jaxpr_of(params["jaxpr"])
        while True:
            got = infer_vma(body, consts + carry + xs)
            new = [c | g for c, g in zip(carry, got[:nk])]
            if new == carry:
                return got[:nk] + got[nk:]
            carry = new
    if name == "while" and "body_jaxpr" in params:
        cn, bn = params["cond_nconsts"], params["body_nconsts"]
        cconsts, bconsts, carry = ins[:cn], ins[cn : cn + bn], ins[cn + bn :]
        body, cond = _jaxpr_of(params["body_jaxpr"]), _jaxpr_of(params["cond_jaxpr"])
        while True:
            pred = infer_vma(cond, cconsts + carry)[0]
            got = infer_vma(body, bconsts + carry)
            # A predicate that varies makes the trip count, hence every carry, vary.
            new = [c | g | pred for c, g in zip(carry, got)]
            if new == carry:
                return carry
            carry = new
    inner = _call_jaxpr(eqn)
    if inner is not None:
        return infer_vma(inner, ins)
    return [_union(ins)] * n_out


def _check_vma(
    closed: ClosedJaxpr, in_vmas, out_specs, out_paths, manual, mesh, fun_name: str
) -> None:
    outs = infer_vma(closed.jaxpr, in_vmas)
    for vma, spec, path in zip(outs, out_specs, out_paths):
        named = {a for e in spec for a in spec_axes(e)}
        stray = [a for a in manual if a in vma and a not in named]
        if stray:
            a = stray[0]
            raise ValueError(
                f"shard_map applied to the function '{fun_name}' was given out_specs which "
                f"claim replication the body does not establish: out_specs{path} is {spec}, "
                f"which claims the output is the same on every device along mesh axis {a!r} "
                f"(the mesh has shape {dict(mesh.shape)}), but the value varies over it"
                + (f" (it varies over {sorted(map(str, vma))})" if len(vma) > 1 else "")
                + f". Name {a!r} in that out_specs entry, reduce over the axis (lax.psum, "
                f"lax.pmean, ...), or pass check_vma=False if the values are equal anyway."
            )


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
    used: dict = {}
    for i, e in enumerate(spec):
        for a in spec_axes(e):
            if a not in manual:
                kind = "manual" if a in mesh.shape else "mesh"
                raise ValueError(
                    f"shard_map {what} must refer only to {kind} axes "
                    f"{tuple(a for a in manual) if kind == 'manual' else mesh.axis_names}, but "
                    f"{what}{path} is {spec}, which refers to {a!r}"
                    + ("" if a in mesh.shape else f" (the mesh has axes {dict(mesh.shape)})")
                    + "."
                )
            if a in used:
                raise ValueError(
                    f"shard_map {what}{path} is {spec}, which uses mesh axis {a!r} for both "
                    f"dimension {used[a]} and dimension {i}; each mesh axis may split one "
                    "dimension."
                )
            used[a] = i
    if len(spec) > len(shape):
        noun = "input" if what == "in_specs" else "output"
        raise ValueError(
            f"shard_map applied to the function '{fun_name}' was given an {what} entry which "
            f"is too long to be compatible with the corresponding {noun} value: {what}{path} "
            f"is {spec} which has length {len(spec)}, but the {noun} {path} has shape {ty}, "
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

    def flat_fun(*flat):
        out = f(*tu.tree_unflatten(in_tree, flat))
        out_leaves, out_tree = tu.tree_flatten(out)
        box.append((out_tree, out))
        return out_leaves

    with _MeshAxisEnv(mesh, manual), parallel.vma_checked_axes(manual if check_vma else ()):
        closed = pe.trace_to_jaxpr(flat_fun, pd_avals, pe.DebugInfo("shard_map", fun_name, paths))
    out_tree, out = box[0]
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
    if any(isinstance(c, Tracer) for c in closed.consts):
        # Values of an enclosing trace the body closes over become replicated operands.
        j, consts = pe.convert_constvars_jaxpr(closed)
        closed = ClosedJaxpr(j, [])
    in_specs = tuple([P()] * len(consts) + list(specs))
    if check_vma:
        in_vmas = [frozenset()] * len(consts) + [
            frozenset(a for e in s for a in spec_axes(e)) for s in specs
        ]
        _check_vma(closed, in_vmas, out_flat, out_paths, manual, mesh, fun_name)
    return _Traced(closed, out_tree, tuple(out_flat), in_specs, consts)


def _infer_in_specs(leaves, mesh, manual) -> list:
    out = []
    for x in leaves:
        s = getattr(x, "_sharding", None) if type(x) is Array else None
        if isinstance(s, NamedSharding) and s.mesh == mesh:
            parts = [tuple(a for a in spec_axes(e) if a in manual) or None for e in s.spec]
            out.append(P(*parts))
        else:
            out.append(P())
    return out


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
        if key is not None and not traced.consts:
            _trace_cache[key] = traced
    return traced, m, manual


def _bind(traced, m, manual, check_vma, leaves) -> list:
    return shard_map_p.bind(
        *traced.consts,
        *leaves,
        jaxpr=traced.jaxpr,
        mesh=m,
        in_specs=traced.in_specs,
        out_specs=traced.out_specs,
        check_vma=bool(check_vma),
        newly_manual_axes=frozenset(manual),
    )


class Executable:
    """A traced shard_map ready to run eagerly on Arrays of one signature: the compiled global
    program and the results' shardings (the fast path of eager calls)."""

    __slots__ = ("traced", "run", "shardings", "weak")

    def __init__(self, traced: _Traced, mesh: Mesh, manual: tuple, check_vma: bool) -> None:
        self.traced = traced
        self.run = _shard_map_compile(
            jaxpr=traced.jaxpr,
            mesh=mesh,
            in_specs=traced.in_specs,
            out_specs=traced.out_specs,
            check_vma=bool(check_vma),
            newly_manual_axes=frozenset(manual),
        )
        self.shardings = [NamedSharding(mesh, s) for s in traced.out_specs]
        self.weak = [a.weak_type for a in traced.jaxpr.out_avals]

    def __call__(self, leaves: Sequence[Array]) -> Any:
        outs = self.run(*[x._value for x in leaves])
        res = [
            Array(o if type(o) is np.ndarray else np.asarray(o), w, s)
            for o, w, s in zip(outs, self.weak, self.shardings)
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
    if fast is not None and eager and sig is not None and not traced.consts:
        if len(fast) >= 64:
            fast.clear()
        fast[key] = exe = Executable(traced, m, manual, check_vma)
        return exe(args)
    outs = _bind(traced, m, manual, check_vma, leaves)
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

    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        if kwargs:
            raise TypeError(
                f"shard_map applied to the function '{_fun_name(f)}' got keyword arguments "
                f"{sorted(kwargs)}; pass arguments positionally (in_specs match them)."
            )
        return _shard_map_call(f, mesh, in_specs, out_specs, axis_names, check_vma, args, fast)

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


# ---------------------------------------------------------------------------------------------
# The reference: a loop over devices, collectives by hand


def shard_map_reference(params: dict, args: Sequence[Any]) -> list[np.ndarray]:
    """Run a shard_map equation (its ``params``) on global NumPy ``args`` device by device.

    Each device gets its blocks of the inputs; the body is interpreted for all devices in
    lockstep, equation by equation: ordinary primitives run per device with their NumPy
    kernels, collectives combine the devices' values with plain loops (written here, sharing
    nothing with the batched path), and calls (jit) are entered. The output blocks of every
    device are written into the global results; devices an output is replicated over must
    agree bit for bit.
    """
    closed: ClosedJaxpr = params["jaxpr"]
    mesh: Mesh = params["mesh"]
    manual = _params_manual(params)
    sizes = dict(mesh.shape)
    coords = [dict(zip(manual, c)) for c in itertools.product(*(range(sizes[a]) for a in manual))]
    per_device_args = []
    for c in coords:
        blocks = []
        for x, spec in zip(args, params["in_specs"]):
            x = np.asarray(x)
            blocks.append(x[_block_index(x.shape, spec, sizes, c)])
        per_device_args.append(blocks)
    with np.errstate(all="ignore"):  # as the kernels run elsewhere: inf and nan, silently
        outs = _ref_eval(closed.jaxpr, closed.consts, per_device_args, coords, sizes)
    results = []
    for i, (spec, aval) in enumerate(zip(params["out_specs"], closed.out_avals)):
        gshape = _global_shape(aval.shape, spec, sizes)
        out = np.empty(gshape, dtype=aval.dtype)
        written: dict = {}
        for dev, c in enumerate(coords):
            block = np.asarray(outs[dev][i], dtype=aval.dtype)
            idx = _block_index(gshape, spec, sizes, c)
            key = tuple((s.start, s.stop) for s in idx)
            if key in written:
                if block.tobytes() != written[key]:
                    raise ValueError(
                        f"shard_map reference: output {i} differs between devices along an "
                        f"axis its out_specs {spec} replicate (device {c})."
                    )
                continue
            written[key] = block.tobytes()
            out[idx] = block
        results.append(out)
    return results


def _block_index(shape, spec, sizes, coord) -> tuple:
    idx = []
    for d, axes in zip(shape, _spec_entries(spec, len(shape))):
        n, k = 1, 0
        for a in axes:
            k = k * sizes[a] + coord[a]
            n *= sizes[a]
        step = d // n
        idx.append(slice(k * step, (k + 1) * step))
    return tuple(idx)


def _ref_eval(jaxpr: core.Jaxpr, consts, per_device_args, coords, sizes) -> list[list]:
    n = len(coords)
    envs = [dict() for _ in range(n)]
    for env, dev_args in zip(envs, per_device_args):
        for v, c in zip(jaxpr.constvars, consts):
            env[id(v)] = np.asarray(c._value if type(c) is Array else c)
        for v, x in zip(jaxpr.invars, dev_args):
            env[id(v)] = np.asarray(x)

    def read(env, a):
        if type(a) is core.Literal:
            return np.asarray(a.val, dtype=a.aval.dtype)
        return env[id(a)]

    for eqn in jaxpr.eqns:
        ins = [[read(env, a) for a in eqn.invars] for env in envs]
        prim = eqn.primitive
        if prim in _REF_COLLECTIVES:
            outs = _ref_collective(eqn, [i[0] if i else None for i in ins], coords, sizes)
            outs = [[o] for o in outs]
        elif any(batching.refers_to_axis(prim, eqn.params, a) for a in coords[0]):
            outs = _ref_higher_order(eqn, ins, coords, sizes)
        else:
            outs = []
            for dev_ins in ins:
                o = prim.impl(*dev_ins, **eqn.params)
                outs.append(list(o) if prim.multiple_results else [o])
        for env, o in zip(envs, outs):
            for v, x in zip(eqn.outvars, o):
                env[id(v)] = np.asarray(x, dtype=v.aval.dtype)
    return [[read(env, a) for a in jaxpr.outvars] for env in envs]


def _ref_run(closed, ins, coords, sizes):
    j = closed.jaxpr if isinstance(closed, ClosedJaxpr) else closed
    consts = closed.consts if isinstance(closed, ClosedJaxpr) else []
    return _ref_eval(j, consts, ins, coords, sizes)


def _ref_higher_order(eqn, ins, coords, sizes) -> list[list]:
    """Equations whose inner jaxprs use the mesh axes, run in lockstep over the devices the
    way the batched program runs them: every branch of a cond (each device keeps its own),
    loops until no device continues (finished devices keep their carry)."""
    prim, p, n = eqn.primitive, eqn.params, len(coords)
    if prim.name == "cond" and "branches" in p:
        per_branch = [_ref_run(b, [i[1:] for i in ins], coords, sizes) for b in p["branches"]]
        last = len(p["branches"]) - 1
        return [per_branch[min(max(int(ins[d][0]), 0), last)][d] for d in range(n)]
    if prim.name == "while" and "body_jaxpr" in p:
        cn, bn = p["cond_nconsts"], p["body_nconsts"]
        cc = [i[:cn] for i in ins]
        bc = [i[cn : cn + bn] for i in ins]
        carry = [i[cn + bn :] for i in ins]
        while True:
            preds = _ref_run(p["cond_jaxpr"], [c + k for c, k in zip(cc, carry)], coords, sizes)
            go = [bool(q[0]) for q in preds]
            if not any(go):
                return carry
            new = _ref_run(p["body_jaxpr"], [b + k for b, k in zip(bc, carry)], coords, sizes)
            carry = [new[d] if go[d] else carry[d] for d in range(n)]
    if prim.name == "scan" and "num_carry" in p:
        nc, nk, length = p["num_consts"], p["num_carry"], p["length"]
        consts = [i[:nc] for i in ins]
        carry = [i[nc : nc + nk] for i in ins]
        xs = [i[nc + nk :] for i in ins]
        ys: list[list] = [[None] * length for _ in range(n)]
        order = range(length - 1, -1, -1) if p["reverse"] else range(length)
        for t in order:
            step = [c + k + [x[t] for x in xx] for c, k, xx in zip(consts, carry, xs)]
            outs = _ref_run(p["jaxpr"], step, coords, sizes)
            carry = [o[:nk] for o in outs]
            for d in range(n):
                ys[d][t] = outs[d][nk:]
        stacked = [
            [np.stack([ys[d][t][j] for t in range(length)]) for j in range(len(ys[d][0]))]
            if length
            else []
            for d in range(n)
        ]
        return [carry[d] + stacked[d] for d in range(n)]
    inner = _call_jaxpr(eqn) if prim is not shard_map_p else None
    if inner is not None:
        consts = next(
            (v.consts for v in p.values() if isinstance(v, ClosedJaxpr) and v.jaxpr is inner), []
        )
        return _ref_eval(inner, consts, ins, coords, sizes)
    raise NotImplementedError(
        f"shard_map reference: collectives inside '{prim.name}' are not supported"
    )


def _ref_participants(entries, lead_shape, dev, coords, sizes):
    """For device ``dev``: the devices of its collective, as (combined index, member device,
    local index) triples, and the combined index of each of its own local positions."""
    names = [e for e in entries if type(e) is not int]
    me = coords[dev]
    members = [q for q, c in enumerate(coords) if all(c[a] == me[a] for a in me if a not in names)]
    local = list(itertools.product(*(range(s) for s in lead_shape)))
    table = []
    for q in members:
        for loc in local:
            idx = 0
            for e in entries:
                if type(e) is int:
                    idx = idx * lead_shape[e] + loc[e]
                else:
                    idx = idx * sizes[e] + coords[q][e]
            table.append((idx, q, loc))
    table.sort()
    return table


def _ref_collective(eqn, vals, coords, sizes) -> list:
    prim, p = eqn.primitive, eqn.params
    if prim is parallel.axis_index_p:
        return [np.asarray(c[p["axis_name"]], dtype=np.int32) for c in coords]
    key = "axes" if "axes" in p else "axis_name"
    entries = p[key] if isinstance(p[key], tuple) else (p[key],)
    k = sum(1 for e in entries if type(e) is int)
    outs = []
    for dev in range(len(coords)):
        lead = vals[dev].shape[:k]
        table = _ref_participants(entries, lead, dev, coords, sizes)
        virt = [vals[q][loc] for _, q, loc in table]  # by combined index
        groups = p.get("axis_index_groups")
        if groups is None:
            groups = [list(range(len(virt)))]
        mine = {}
        for idx, q, loc in table:
            if q == dev:
                mine[loc] = idx
        results = {}
        for loc, idx in mine.items():
            grp = next(g for g in groups if idx in g)
            results[loc] = _ref_one(prim, p, virt, list(grp), idx, vals[dev].dtype)
        varying = prim not in (parallel.pbroadcast_p,) and (
            p.get("axis_index_groups") is not None
            or prim in (parallel.reduce_scatter_p, parallel.all_to_all_p, parallel.ppermute_p)
        )
        if k == 0:
            outs.append(results[()])
        elif varying:
            first = results[next(iter(results))]
            out = np.empty(tuple(lead) + np.shape(first), dtype=first.dtype)
            for loc, r in results.items():
                out[loc] = r
            outs.append(out)
        else:
            outs.append(results[next(iter(results))])
    return outs


def _ref_sum(vals, dtype):
    # Left fold; bfloat16 accumulates in float32 and rounds once (as XLA's CPU all-reduce).
    acc_dtype = np.float32 if np.dtype(dtype).name == "bfloat16" else dtype
    acc = np.array(vals[0], dtype=acc_dtype)
    for v in vals[1:]:
        acc = np.asarray(acc + np.asarray(v, acc_dtype), dtype=acc_dtype)
    return acc.astype(dtype)


def _ref_one(prim, p, virt, grp, me, dtype):
    pos = grp.index(me)
    if prim in (parallel.psum_p, parallel.psum_invariant_p):
        return _ref_sum([virt[i] for i in grp], dtype)
    if prim in (parallel.pmax_p, parallel.pmin_p):
        op = np.maximum if prim is parallel.pmax_p else np.minimum
        acc = np.array(virt[grp[0]], dtype=dtype)
        for i in grp[1:]:
            acc = np.asarray(op(acc, virt[i]), dtype=dtype)
        return acc
    if prim is parallel.pvary_p:
        return virt[me]
    if prim in (parallel.all_gather_p, parallel.all_gather_invariant_p):
        parts = [virt[i] for i in grp]
        a = p["all_gather_dimension"]
        return np.concatenate(parts, axis=a) if p["tiled"] else np.stack(parts, axis=a)
    if prim is parallel.reduce_scatter_p:
        total = _ref_sum([virt[i] for i in grp], dtype)
        sd = p["scatter_dimension"]
        block = np.split(total, len(grp), axis=sd)[pos]
        return block if p["tiled"] else np.squeeze(block, sd)
    if prim is parallel.all_to_all_p:
        parts = [np.split(virt[i], len(grp), axis=p["split_axis"])[pos] for i in grp]
        return np.concatenate(parts, axis=p["concat_axis"])
    if prim is parallel.ppermute_p:
        for s, d in p["perm"]:
            if d == me:
                return virt[s]
        return np.zeros_like(virt[me])
    if prim is parallel.pbroadcast_p:
        return virt[p["source"]]
    raise NotImplementedError(f"shard_map reference: no rule for {prim.name}")


_REF_COLLECTIVES = frozenset(parallel.vma_rules)


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
