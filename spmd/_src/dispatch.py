"""Execution: eager application of primitives, and compiling jaxprs to Python callables.

Eager mode binds each primitive on concrete values: abstract evaluation checks the operands and
gives the result type (so bad input raises before any work), then the NumPy impl runs.

``jit`` executes a jaxpr through ``compile_jaxpr``, which writes the jaxpr out as the source of
one Python function (one line per equation, each calling the primitive's NumPy kernel with its
parameters already bound) and ``exec``s it once. A call then costs the kernels and little else:
no per-call walk over a dict of variables.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from spmd._src import core, debug_floats, dtypes, memory_spaces
from spmd._src import program_passes as passes
from spmd._src.array import Array
from spmd._src.core import ClosedJaxpr, Jaxpr, Literal, ShapedArray, Tracer
from spmd._src.errors import UnexpectedTracerError
from spmd._src.global_array import GlobalArray
from spmd._src.interpreters import ad, batching, sharding_rules
from spmd._src.interpreters import partial_eval as pe
from spmd._src.interpreters.ad import Zero
from spmd._src.lax import callback
from spmd._src.lax.refs import Ref
from spmd._src.lax.utils import PrintedAs
from spmd._src.mesh import _ctx as _mesh_ctx
from spmd._src.mesh import traced_context_mesh
from spmd._src.sharding import NamedSharding, P

# ---------------------------------------------------------------------------------------------
# Eager


def _aval_and_value(x: Any) -> tuple[ShapedArray, np.ndarray]:
    t = type(x)
    if t is Array:
        v = x._value
        return ShapedArray(v.shape, v.dtype, x.weak_type), v
    if isinstance(x, Tracer):
        raise UnexpectedTracerError(
            f"Encountered an unexpected tracer: {x!r}. A function transformed by spmd leaked a "
            "traced intermediate value (for example by storing it in a global or a closure "
            "that outlives the transformation), and it is now used outside that "
            "transformation."
        )
    if t is Ref:  # a mutable reference: its kernels take (and write) the object itself
        return x.aval, x
    aval = core.get_aval(x)
    v = np.asarray(x)
    if v.dtype != aval.dtype:
        v = v.astype(aval.dtype)
    return aval, v


def _as_result(out: Any, aval: ShapedArray) -> Array:
    if type(out) is not np.ndarray or out.dtype != aval.dtype:
        if type(out) is Ref:  # new_ref's result is the new reference itself
            out.weak_type = out._buf_weak = aval.weak_type
            return out
        out = np.asarray(out, dtype=aval.dtype)
    return Array(out, aval.weak_type)


# NumPy warns on overflow, division by zero and invalid values; XLA computes inf and NaN
# silently, and so does spmd. Kernels run with NumPy's error state set to ignore. Setting
# NumPy's context variable directly costs a fraction of entering ``np.errstate`` (which matters
# on the eager path, once per operation); where NumPy's internals differ, use errstate.
try:
    from numpy._core import _ufunc_config as _ufc
    from numpy._core import umath as _umath

    _EXTOBJ = _ufc._extobj_contextvar
    _IGNORE = _umath._make_extobj(all="ignore")
except (ImportError, AttributeError):  # pragma: no cover - older or newer NumPy
    _EXTOBJ = None


def run_quietly(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """Call ``fn`` with NumPy floating-point warnings off."""
    if _EXTOBJ is None:
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    token = _EXTOBJ.set(_IGNORE)
    try:
        return fn(*args, **kwargs)
    finally:
        _EXTOBJ.reset(token)


# Abstract evaluation results of eager operations, keyed by primitive, parameters and operand
# types. Invalid input raises on the miss and is never stored, so errors still come before any
# work. Bounded crudely: cleared when full.
_aval_cache: dict = {}
_AVAL_CACHE_SIZE = 8192


def _eager_out_aval(prim: core.Primitive, sig: tuple, params: dict) -> Any:
    try:
        key = (prim, sig, tuple(params.items()))
        out = _aval_cache.get(key)
    except TypeError:  # unhashable parameters: no caching
        key, out = None, None
    if out is None:
        out = prim.abstract_eval(*[ShapedArray(*s) for s in sig], **params)
        if key is not None:
            if len(_aval_cache) >= _AVAL_CACHE_SIZE:
                _aval_cache.clear()
            _aval_cache[key] = out
    return out


# Per call jaxpr (by id, the jaxpr kept alive beside its answer; bounded): whether running it
# places a result though no operand is placed (a shard_map or constraint inside: a jit bound
# eagerly by grad or vmap must place its results as the jit call does).
_places: dict[int, tuple[Any, bool]] = {}


def _call_places(prim: core.Primitive, params: dict) -> bool:
    inner = sharding_rules.call_jaxprs[prim](core.JaxprEqn([], [], prim, params))
    hit = _places.get(id(inner))
    if hit is None or hit[0] is not inner:
        if len(_places) >= 256:
            _places.clear()
        hit = _places[id(inner)] = (inner, sharding_rules.has_constraints(inner))
    return hit[1]


def apply_primitive(prim: core.Primitive, args: Sequence[Any], params: dict) -> Any:
    sig, vals = [], []
    sharded = False
    for x in args:
        if type(x) is Array:
            v = x._value
            sig.append((v.shape, v.dtype, x.weak_type))
            sharded = sharded or x._sharding is not None
        else:
            if type(x) is GlobalArray:
                return _global_apply(prim, args, params)
            a, v = _aval_and_value(x)
            sig.append((a.shape, a.dtype, a.weak_type))
        vals.append(v)
    if sharded:
        _check_devices(prim, args, sig)
    out_aval = _eager_out_aval(prim, tuple(sig), params)
    # Result shardings are decided before the kernel runs: a sharding error (an ambiguous
    # contraction on an Explicit mesh) comes before any work.
    out_s = None
    if (
        sharded
        or prim in sharding_rules.sets_sharding
        or prim in sharding_rules.observers
        or sharding_rules.given_sharding(prim, params) is not None
        or (prim in sharding_rules.call_jaxprs and _call_places(prim, params))
    ):
        shardings = [x._sharding if type(x) is Array else None for x in args]
        avals = [ShapedArray(*s) for s in sig]
        out_s = sharding_rules.propagate(prim, shardings, avals, params)
        if sharded:  # operands in host memory keep their results there (or mix: an error)
            out_s = memory_spaces.eager_shardings(prim, params, args, sig, out_aval, out_s)
    if _mesh_ctx.stack:  # a mesh in context: the result lands on it (see _on_context_mesh)
        out_s = _on_context_mesh(prim, args, sig, out_aval, out_s)
    out = run_quietly(prim.impl, *vals, **params)
    if prim.multiple_results:
        outs = [_as_result(o, a) for o, a in zip(out, out_aval, strict=True)]
    else:
        outs = _as_result(out, out_aval)
    if debug_floats.enabled:
        debug_floats.check(prim, outs, args, params)
    if out_s is None and prim.multiple_results:
        memory_spaces.place_unplaced(outs, out_aval)
    if out_s is not None:
        # In one process the data is the global buffer: the result is computed as if unsharded
        # and carries the sharding the propagation rule gives (as JAX's result would have).
        for o, s in zip(outs, out_s) if prim.multiple_results else [(outs, out_s)]:
            o._sharding = s
            o._committed = True
        if _spans_processes(out_s if prim.multiple_results else [out_s]):
            # A result placed over the devices of several processes (an out_sharding, a
            # sharding constraint): every process computed it whole; each keeps its blocks.
            return _globalize(outs) if not prim.multiple_results else [_globalize(o) for o in outs]
    return outs


def _on_context_mesh(prim: core.Primitive, args: Sequence[Any], sig: list, out_aval, out_s):
    """Under ``set_mesh``/``use_mesh`` JAX runs an eager operation as a jit on the mesh in
    context: a result that no operand's sharding places (all operands uncommitted, or none)
    lands on that mesh, replicated and committed; operands committed to other devices, or
    typed on another mesh's Explicit axes, are a ValueError. The spec is spelled as JAX's:
    P() on Auto meshes and from host values only, one None per dimension on Explicit meshes
    from arrays or nothing (its types' spelling).
    One process only: a mesh over several processes keeps the default placement."""
    from spmd._src import devices  # (devices imports nothing of dispatch)

    mesh = traced_context_mesh()
    if mesh is None or devices.process_count() > 1:
        return out_s
    ids = None
    for i, x in enumerate(args):
        s = x._sharding if type(x) is Array else None
        if s is None or getattr(s, "mesh", None) is mesh:
            continue
        m = getattr(s, "mesh", None)
        if m is not None and any(t.name == "Explicit" for t in m.axis_types):
            # Its type names another mesh's axes. (Only the axes: auto_axes and explicit_axes
            # retype the mesh in context and cast their operands to it.)
            if (m.axis_names, m.axis_sizes) != (mesh.axis_names, mesh.axis_sizes):
                from spmd._src.placement import typeof  # lazy: placement sits above dispatch

                raise ValueError(
                    f"For primitive {prim.name}, context mesh {mesh.abstract_mesh} should match "
                    f"the aval mesh {m.abstract_mesh} for shape {typeof(x)} (argument {i})."
                )
        ids = ids or [d.id for d in mesh.devices.flat]
        have = [d.id for d in s._device_list()]
        if sorted(have) != sorted(ids):
            raise ValueError(
                f"Received incompatible devices for jitted computation. Got argument {i} of "
                f"{prim.name} with shape {ShapedArray(*sig[i]).str_short()} and device ids "
                f"{have} on platform CPU, but the mesh in context ({mesh}) has device ids "
                f"{ids} on platform CPU."
            )
    avals = out_aval if prim.multiple_results else [out_aval]
    given = out_s if prim.multiple_results else [out_s]
    if given is None:
        given = [None] * len(avals)
    if all(isinstance(g, NamedSharding) for g in given):
        return out_s
    explicit = any(t.name == "Explicit" for t in mesh.axis_types)
    spelled = explicit and (not args or any(type(x) is Array for x in args))
    placed = [
        g if isinstance(g, NamedSharding)
        else NamedSharding(mesh, P(*(None,) * a.ndim) if spelled else P())
        for g, a in zip(given, avals)
    ]  # fmt: skip
    return placed if prim.multiple_results else placed[0]


def on_context_mesh(x: Array) -> Array:
    """A new array made from a host value (jnp.array, jnp.asarray) eagerly under a mesh in
    context: placed on that mesh, replicated and committed (P()), as JAX's; else ``x``."""
    from spmd._src import devices  # (devices imports nothing of dispatch)

    if type(x) is not Array or x._sharding is not None or not _mesh_ctx.stack:
        return x
    mesh = traced_context_mesh()
    if mesh is None or devices.process_count() > 1 or not core.is_eval_trace_current():
        return x
    return Array(x._value, x.weak_type, NamedSharding(mesh, P()))


def _check_devices(prim: core.Primitive, args: Sequence[Any], sig: list) -> None:
    """JAX runs an eager operation as a jit of it: operands committed to different devices, or
    to the same devices in another order (another device assignment), are a ValueError (the
    "When explicit shardings disagree" cells of JAX's distributed-arrays tutorial)."""
    first = None
    for i, x in enumerate(args):
        s = x._sharding if type(x) is Array else None
        if s is None:
            continue
        if first is None:
            first = (i, s)
            continue
        f = first[1]
        # (The common cases, one sharding or one mesh, need no device lists.)
        if s is f or getattr(s, "mesh", None) is getattr(f, "mesh", 0):
            continue
        fids, ids = [d.id for d in f._device_list()], [d.id for d in s._device_list()]
        if ids != fids:
            j = first[0]
            raise ValueError(
                f"Received incompatible devices for jitted computation. Got argument "
                f"{j} of {prim.name} with shape {ShapedArray(*sig[j]).str_short()} and "
                f"device ids {fids} on platform CPU and argument {i} of {prim.name} with "
                f"shape {ShapedArray(*sig[i]).str_short()} and device ids {ids} on "
                f"platform CPU."
            )


def _spans_processes(shardings) -> bool:
    from spmd._src import devices  # (devices imports nothing of dispatch)

    return devices.process_count() > 1 and any(
        s is not None and not s.is_fully_addressable for s in shardings
    )


def _globalize(x):
    from spmd._src import multiprocess  # lazy: multiprocess runs programs (above us)

    return multiprocess.globalize(x)


def _no_global_apply(prim, args, params):
    raise RuntimeError("spmd._src.multiprocess has not been imported")


_global_apply: Callable = _no_global_apply


def set_global_apply(fn: Callable) -> None:
    """Install the executor of operations on Arrays that span processes (owned by
    ``multiprocess``, which knows the partitioner)."""
    global _global_apply
    _global_apply = fn


core.set_eager_apply(apply_primitive)
core.set_make_concrete(lambda value, weak_type: Array(value, weak_type))


# ---------------------------------------------------------------------------------------------
# Compiling jaxprs

# prim -> (params -> callable on NumPy values). Without a rule, the impl with params bound.
compile_rules: dict[core.Primitive, Callable[..., Callable]] = {}
# prim -> (params -> ClosedJaxpr) for calls the compiler splices into their caller.
inline_rules = passes.inline_rules


def _kernel(prim: core.Primitive, params: dict) -> Callable:
    rule = compile_rules.get(prim)
    if rule is not None:
        return rule(**params)
    if not params:
        return prim.impl
    return functools.partial(prim.impl, **params)


def _eqn_kernel(eqn: core.JaxprEqn) -> Callable:
    typed = eqn.primitive.typed_impl
    if typed is not None and eqn.primitive not in compile_rules:
        return typed([a.aval for a in eqn.invars], **eqn.params)
    return _kernel(eqn.primitive, eqn.params)


def compile_jaxpr(jaxpr: Jaxpr, consts: Sequence[Any] = ()) -> Callable[..., list]:
    """Write ``jaxpr`` as a Python function of its invars returning the list of outvars.

    Consts are bound into the function; every value is a NumPy array. Equations whose results
    are never used are dropped, and each intermediate is deleted after its last use, so large
    programs (a training step) do not hold every intermediate buffer until they return.
    """
    jaxpr, consts = passes.inline_calls(jaxpr, list(consts))
    jaxpr = passes.schedule_in_place(passes.fuse_transposed_dots(pe.dce_jaxpr(jaxpr)))
    ns: dict[str, Any] = {}
    names: dict[int, str] = {}
    lines: list[str] = []

    def bind_value(prefix: str, value: Any) -> str:
        name = f"{prefix}{len(ns)}"
        ns[name] = value
        return name

    def read(a) -> str:
        if type(a) is Literal:
            return bind_value("l", np.asarray(a.val, dtype=a.aval.dtype))
        return names[id(a)]

    # The index of the last equation reading each variable (outputs are read at the end).
    last_use: dict[int, int] = {}
    for i, eqn in enumerate(jaxpr.eqns):
        for a in eqn.invars:
            if type(a) is not Literal:
                last_use[id(a)] = i
    for a in jaxpr.outvars:
        if type(a) is not Literal:
            last_use[id(a)] = len(jaxpr.eqns)

    reusable = passes.reusable_buffers(jaxpr, last_use)

    for v, c in zip(jaxpr.constvars, consts, strict=True):
        # (A Ref the program closes over enters as itself: its writes must reach it.)
        c = c._value if type(c) is Array else c if type(c) is Ref else np.asarray(c)
        names[id(v)] = bind_value("c", c)
    params = []
    for i, v in enumerate(jaxpr.invars):
        names[id(v)] = f"a{i}"
        params.append(f"a{i}")
    const_ids = {id(v) for v in jaxpr.constvars}
    counter = 0
    for i, eqn in enumerate(jaxpr.eqns):
        fn = bind_value("f", _eqn_kernel(eqn))
        ins = ", ".join(read(a) for a in eqn.invars)
        outs = []
        for v in eqn.outvars:
            names[id(v)] = f"v{counter}"
            outs.append(f"v{counter}")
            counter += 1
        if eqn.primitive.multiple_results:
            lhs = ", ".join(outs) + ("," if len(outs) == 1 else "")
            lines.append(f"    {lhs or '_'} = {fn}({ins})")
        elif i in reusable:
            lines.append(f"    {outs[0]} = {fn}({ins}, out={names[reusable[i]]})")
        else:
            lines.append(f"    {outs[0]} = {fn}({ins})")
        dead = {
            names[id(a)]
            for a in eqn.invars
            if type(a) is not Literal and last_use.get(id(a)) == i and id(a) not in const_ids
        }
        dead.update(o for v, o in zip(eqn.outvars, outs) if id(v) not in last_use)
        if dead:
            lines.append(f"    del {', '.join(sorted(dead))}")
    ret = ", ".join(read(a) for a in jaxpr.outvars)
    body = "\n".join(lines) if lines else "    pass"
    src = f"def _program({', '.join(params)}):\n{body}\n    return [{ret}]\n"
    if _EXTOBJ is None:
        exec(compile(src, "<spmd.jit>", "exec"), ns)
        program = ns["_program"]

        def _compiled(*args):
            return run_quietly(program, *args)

    else:
        # One quiet region per call, not per kernel, set in the program itself (as
        # run_quietly does): a small jitted function is called often, and a wrapper's frame
        # costs.
        ns["_extobj"], ns["_ignore"] = _EXTOBJ, _IGNORE
        quiet = "\n".join("    " + line for line in f"{body}\n    return [{ret}]".split("\n"))
        exec(
            compile(
                f"def _program({', '.join(params)}):\n    _token = _extobj.set(_ignore)\n"
                f"    try:\n{quiet}\n    finally:\n        _extobj.reset(_token)\n",
                "<spmd.jit>",
                "exec",
            ),
            ns,
        )
        _compiled = ns["_program"]
    _compiled.__spmd_source__ = src
    # The equations in the order of the source's lines (one assignment each), for profilers.
    _compiled.__spmd_eqns__ = tuple(jaxpr.eqns)
    return _compiled


_compiled_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def compiled_for(closed: ClosedJaxpr) -> Callable[..., list]:
    """The compiled callable of a closed jaxpr, kept as long as the jaxpr lives."""
    fn = _compiled_cache.get(closed)
    if fn is None:
        fn = _compiled_cache[closed] = compile_jaxpr(closed.jaxpr, closed.consts)
    return fn


core.set_jaxpr_compiler(compiled_for)


# ---------------------------------------------------------------------------------------------
# The jit primitive: a call of a closed jaxpr (consts hoisted into operands when staged).


jit_p = core.Primitive("jit", multiple_results=True)


def _jit_impl(*args, jaxpr: ClosedJaxpr, name: str, **_):
    vals = [x._value if type(x) is Array else x if type(x) is Ref else np.asarray(x) for x in args]
    return compiled_for(jaxpr)(*vals)


def _jit_abstract_eval(*avals, jaxpr: ClosedJaxpr, name: str, **_):
    return jaxpr.out_avals


def _jit_compile(*, jaxpr: ClosedJaxpr, name: str, **_):
    return compile_jaxpr(jaxpr.jaxpr, jaxpr.consts)


# An operand or result a jit's in_shardings/out_shardings leave unplaced, as JAX prints it.
UNSPECIFIED = PrintedAs("UnspecifiedValue")


def _jit_pp(params: dict) -> list[tuple[str, Any]]:
    # ``ctx_mesh``: the mesh set_mesh/use_mesh put in context when the call was traced (JAX
    # prints it; absent otherwise). ``in_shardings``/``out_shardings``: those the jit was given,
    # one per operand/result (staged calls only carry them for printing, as JAX prints them).
    out = [("name", params["name"])]
    if params.get("ctx_mesh") is not None:
        out.append(("ctx_mesh", params["ctx_mesh"]))
    if params.get("in_shardings") is not None:
        out.append(("in_shardings", params["in_shardings"]))
    out.append(("jaxpr", params["jaxpr"]))
    if params.get("out_shardings") is not None:
        out.append(("out_shardings", params["out_shardings"]))
    return out


def _mesh_param(params: dict) -> dict:
    """The ``ctx_mesh`` parameter of a call, for the calls derived from it."""
    m = params.get("ctx_mesh")
    return {} if m is None else {"ctx_mesh": m}


def _jit_batch_rule(axis_data, vals, dims, *, jaxpr: ClosedJaxpr, name: str, **params):
    params = _mesh_param(params)  # (in/out_shardings are of the unbatched operands)
    batched, out_dims = batching.batch_jaxpr(jaxpr, axis_data, dims)
    outs = jit_p.bind(*vals, jaxpr=batched, name=name, **params)
    return outs, out_dims


def _jit_jvp(primals, tangents, *, jaxpr: ClosedJaxpr, name: str, **params):
    # A jit of the forward-mode program, as JAX keeps it: under linearize it is split into a
    # known jit (primal outputs and residuals) and a linear one (_jit_partial_eval), which
    # transposes into a jit of its own (_jit_transpose).
    from spmd._src.lax.control_flow import common  # lazy: control flow imports dispatch

    params = _mesh_param(params)  # (in/out_shardings are of the primal call's values)
    nonzeros = [
        type(t) is not Zero and common.is_float(core.get_aval(x)) for x, t in zip(primals, tangents)
    ]
    if not any(nonzeros):
        outs = jit_p.bind(*primals, jaxpr=jaxpr, name=name, **params)
        return outs, [Zero(ad.tangent_aval(a)) for a in jaxpr.out_avals]
    jvp, out_nz = common.jvp_jaxpr(jaxpr, nonzeros)
    nz_t = [t for t, nz in zip(tangents, nonzeros) if nz]
    outs = jit_p.bind(*primals, *nz_t, jaxpr=jvp, name=name, **params)
    n = len(jaxpr.out_avals)
    t_it = iter(outs[n:])
    t_out = [
        next(t_it) if nz else Zero(ad.tangent_aval(a)) for a, nz in zip(jaxpr.out_avals, out_nz)
    ]
    return outs[:n], t_out


_transposed_cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _jit_transpose(cts, *args, jaxpr: ClosedJaxpr, name: str, **params):
    # A jit of the transposed program: it takes the known operands (residuals) and the
    # nonzero cotangents, and returns the cotangents of the linear operands.
    linear = [ad.is_undefined_primal(a) for a in args]
    known = [a for a, lin in zip(args, linear) if not lin]
    nz_cts = [c for c in cts if type(c) is not Zero]
    ct_nz = [type(c) is not Zero for c in cts]

    def transposed(*vals):
        res, ct_vals = iter(vals[: len(known)]), iter(vals[len(known) :])
        full = [a if lin else next(res) for a, lin in zip(args, linear)]
        cts_in = [next(ct_vals) if nz else c for c, nz in zip(cts, ct_nz)]
        got = ad.backward_pass(jaxpr.jaxpr, jaxpr.consts, cts_in, full)
        return [
            ad.instantiate(Zero(a.aval) if g is None else g)
            for g, a, lin in zip(got, args, linear)
            if lin
        ]

    in_avals = [core.get_aval(a) for a in known] + [core.get_aval(c) for c in nz_cts]
    # One transposed program per (program, linear operands, nonzero cotangents, types), so an
    # eager grad compiles it once.
    key = (tuple(linear), tuple(ct_nz), tuple(in_avals))
    cache = _transposed_cache.setdefault(jaxpr, {})
    closed = cache.get(key)
    if closed is None:
        if len(cache) >= 16:
            cache.pop(next(iter(cache)))
        closed = cache[key] = pe.trace_to_jaxpr(transposed, in_avals)
    outs = iter(jit_p.bind(*known, *nz_cts, jaxpr=closed, name=name, **params))
    return [next(outs) if lin else None for lin in linear]


# inner ClosedJaxpr (weakly) -> {unknown inputs: split}: calls of one program with the same
# unknown inputs share their known and unknown programs (the same objects, as JAX's do, so
# they compile once and print once).
_jit_splits: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_JIT_SPLITS_PER_PROGRAM = 16


def _jit_split(closed: ClosedJaxpr, unknowns_in: tuple):
    """(known, unknown, out_unknowns, known_fwd, residuals) for a call of ``closed``. Each of
    its known outputs and residuals is the index of the known input it forwards, or None
    for an output of the known program (which returns only those)."""
    cache = _jit_splits.get(closed)
    if cache is None:
        cache = _jit_splits[closed] = {}
    hit = cache.get(unknowns_in)
    if hit is not None:
        return hit
    known, unknown, out_unknowns, n_res = pe.partial_eval_jaxpr(closed, list(unknowns_in))
    n_known_out = len(known.out_avals) - n_res
    inner_in = {id(v): i for i, v in enumerate(known.jaxpr.invars)}
    fwd = [inner_in.get(id(r)) if type(r) is core.Var else None for r in known.jaxpr.outvars]
    if any(i is not None for i in fwd):
        kj = known.jaxpr
        outvars = [o for o, i in zip(kj.outvars, fwd) if i is None]
        known = ClosedJaxpr(
            Jaxpr(kj.constvars, kj.invars, outvars, kj.eqns, kj.debug_info), known.consts
        )
    if len(cache) >= _JIT_SPLITS_PER_PROGRAM:
        cache.pop(next(iter(cache)))
    hit = (known, unknown, out_unknowns, fwd[:n_known_out], fwd[n_known_out:])
    cache[unknowns_in] = hit
    return hit


def _jit_partial_eval(eqn, unknowns_in):
    # Split a call into a known call (its known outputs and the residuals the rest needs)
    # and an unknown call (taking the residuals and the unknown inputs). A known output or
    # residual that is a known operand is not returned by the known call, as JAX's
    # linearization of jit does: the equations after it read the operand, and the unknown
    # call takes it directly. The known call stays even when it returns nothing.
    known, unknown, out_unknowns, known_fwd, residuals = _jit_split(
        eqn.params["jaxpr"], tuple(unknowns_in)
    )
    name = eqn.params["name"]
    k_in = [a for a, u in zip(eqn.invars, unknowns_in) if not u]
    u_in = [a for a, u in zip(eqn.invars, unknowns_in) if u]
    k_out = [v for v, u in zip(eqn.outvars, out_unknowns) if not u]
    forwarded = {id(v): k_in[i] for v, i in zip(k_out, known_fwd) if i is not None}
    k_out = [v for v, i in zip(k_out, known_fwd) if i is None]
    res_atoms, kept = [], []
    res_avals = iter(known.out_avals[len(k_out) :])
    for i in residuals:
        if i is not None:
            res_atoms.append(k_in[i])
        else:
            v = core.Var(next(res_avals))
            res_atoms.append(v)
            kept.append(v)
    u_out = [v for v, u in zip(eqn.outvars, out_unknowns) if u]
    mesh = _mesh_param(eqn.params)
    known_eqn = core.JaxprEqn(k_in, k_out + kept, jit_p, dict(jaxpr=known, name=name, **mesh))
    unknown_eqn = core.JaxprEqn(
        res_atoms + u_in, u_out, jit_p, dict(jaxpr=unknown, name=name, **mesh)
    )
    return [known_eqn], [unknown_eqn], u_out, forwarded


def _jit_dce(used_outputs, eqn):
    # A call reads only what its live outputs need: the inner program is pruned to match.
    inner = eqn.params["jaxpr"]
    _, used_in = pe.dce_jaxpr_inputs(inner.jaxpr, used_outputs)
    if all(used_in) and all(used_outputs):
        return used_in, eqn
    params = dict(eqn.params, jaxpr=pe.prune_closed_jaxpr(inner, used_in, used_outputs))
    for k, used in (("in_shardings", used_in), ("out_shardings", used_outputs)):
        if params.get(k) is not None:  # one per live operand/result
            params[k] = tuple(s for s, u in zip(params[k], used) if u)
    invars = [a for a, u in zip(eqn.invars, used_in) if u]
    outvars = [v for v, u in zip(eqn.outvars, used_outputs) if u]
    return used_in, core.JaxprEqn(invars, outvars, jit_p, params)


def _jit_mask(active, ins, *, jaxpr: ClosedJaxpr, name: str, **params):
    # Callbacks in a call under a per-device mask see it (passed in as the first operand).
    from spmd._src.lax.control_flow import common  # lazy: control flow imports dispatch

    params = _mesh_param(params)
    return jit_p.bind(active, *ins, jaxpr=common.masked_effects(jaxpr), name=name, **params)


jit_p.def_impl(_jit_impl)
ad.primitive_transposes[jit_p] = _jit_transpose
pe.partial_eval_rules[jit_p] = _jit_partial_eval
pe.dce_rules[jit_p] = _jit_dce
callback.mask_rules[jit_p] = _jit_mask
core.pp_alias_primitives.add(jit_p)
batching.primitive_batchers[jit_p] = _jit_batch_rule
sharding_rules.call_jaxprs[jit_p] = lambda eqn: eqn.params["jaxpr"].jaxpr
ad.primitive_joint_jvps[jit_p] = _jit_jvp
jit_p.def_abstract_eval(_jit_abstract_eval)
compile_rules[jit_p] = _jit_compile
passes.inline_rules[jit_p] = lambda *, jaxpr, **_: jaxpr
core.pp_param_rules[jit_p] = _jit_pp


def canonical_value(x: Any) -> np.ndarray:
    """A NumPy value with the canonical dtype for an argument of a jitted function."""
    if type(x) is Array:
        return x._value
    if type(x) is Ref:  # passed as itself, so the program's writes update it in place
        return x
    v = np.asarray(x)
    d = dtypes.canonicalize_dtype(v.dtype)
    return v if v.dtype == d else v.astype(d)
