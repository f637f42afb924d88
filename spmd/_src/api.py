"""User-facing transformations: jit (make_jaxpr and eval_shape are in api_trace).

>>> import spmd, spmd.numpy as jnp
>>> spmd.jit(lambda x: 2 * x + 1)(jnp.arange(3))
Array([1, 3, 5], dtype=int32)
"""

from __future__ import annotations

import functools
import inspect
import operator
import weakref
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from spmd._src import compile_log, core, debug_floats, dispatch, dtypes, key_arrays, memory_spaces
from spmd._src import devices as _devices
from spmd._src import donation as _donation
from spmd._src import multiprocess as _multiprocess
from spmd._src import profiler as _profiler
from spmd._src import refs as _refs
from spmd._src import tree_util as tu
from spmd._src.array import Array, Donated
from spmd._src.config import config
from spmd._src.core import ClosedJaxpr, ShapedArray, Tracer
from spmd._src.global_array import GlobalArray
from spmd._src.interpreters import partial_eval as pe
from spmd._src.interpreters import sharding_rules
from spmd._src.interpreters.batching import BatchTracer
from spmd._src.jit_placement import check_arg_devices as _check_arg_devices
from spmd._src.jit_placement import check_explicit as _check_explicit
from spmd._src.jit_placement import check_inner_devices as _check_inner_devices
from spmd._src.jit_placement import check_out_devices as _check_out_devices
from spmd._src.jit_placement import described_arg as _described_arg
from spmd._src.jit_placement import fill_unplaced as _fill_unplaced
from spmd._src.jit_placement import in_typed_memory as _in_typed_memory
from spmd._src.jit_placement import named_like_first_input as _named_like_first_input
from spmd._src.jit_placement import placement_name as _placement_name
from spmd._src.jit_placement import sharding_leaves as _sharding_leaves
from spmd._src.jit_placement import space_key as _space_key
from spmd._src.jit_placement import type_shardings as _type_shardings
from spmd._src.jit_placement import typed_key as _typed_key
from spmd._src.lax import tokens
from spmd._src.lax.refs import Ref, is_ref, ref_aval
from spmd._src.lowering import Compiled as Compiled  # the stages live in lowering
from spmd._src.lowering import Lowered, Traced, run_partitioned
from spmd._src.mesh import get_mesh, traced_context_mesh
from spmd._src.shape_dtype_struct import ShapeDtypeStruct
from spmd._src.sharding import (
    IndivisibleError,
    NamedSharding,
    Sharding,
    equivalent,
    uneven_dims,
    uneven_message,
)
from spmd._src.util import LRU

# ---------------------------------------------------------------------------------------------
# Abstracting arguments


def _out_shape(a: ShapedArray) -> Any:
    """eval_shape's description of a result of type ``a``: a ShapeDtypeStruct, or for a token
    its type itself (``AbstractToken()``), as in JAX."""
    if type(a) is tokens.AbstractToken:
        return a
    return ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type)


def _abstractify(x: Any, path: str, fun_name: str) -> ShapedArray:
    t = type(x)
    if t is Array:
        return x.aval  # (with its memory space: f32<host>[8])
    aval = getattr(x, "aval", None)
    if aval is not None:
        # (A batched ref's tracer has the plain type of one example: its program takes a Ref.)
        return aval if t is not BatchTracer or not is_ref(x) else ref_aval(aval)
    try:
        return core.get_aval(x)
    except TypeError:
        pass
    raise TypeError(
        f"Error interpreting argument to {fun_name} as an abstract array. The problematic "
        f"value is of type {type(x)} and was passed to the function at path {path}.\n"
        "This typically means that a jit-wrapped function was called with a non-array "
        "argument, and this argument was not marked as static using the static_argnums or "
        "static_argnames parameters of spmd.jit."
    )


def _leaf_paths(
    args: tuple, kwargs: dict, arg_names: Sequence[str], sig: inspect.Signature | None = None
) -> list[str]:
    """Readable names of the flattened leaves of (args, kwargs): ``x``, ``y['w']``, ...; with
    the function's signature, as JAX names them, the arguments ``*rest`` and ``**kw`` take
    are ``rest[0]`` and ``kw['k']``."""
    params = sig.parameters.values() if sig is not None else ()
    varargs = next((p.name for p in params if p.kind == p.VAR_POSITIONAL), None)
    varkw = next((p.name for p in params if p.kind == p.VAR_KEYWORD), None)
    named = {p.name for p in params}
    paths = []
    for i, a in enumerate(args):
        n = len(arg_names)
        base = arg_names[i] if i < n else f"{varargs}[{i - n}]" if varargs else f"args[{i}]"
        for p, _ in tu.tree_flatten_with_path(a)[0]:
            paths.append(base + tu.keystr(p))
    for k in sorted(kwargs):
        base = f"{varkw}[{k!r}]" if varkw and k not in named else k
        for p, _ in tu.tree_flatten_with_path(kwargs[k])[0]:
            paths.append(base + tu.keystr(p))
    return paths


def _fun_name(fun: Callable) -> str:
    return getattr(fun, "__name__", None) or type(fun).__name__


def _positional_names(fun: Callable) -> tuple[list[str], inspect.Signature | None]:
    try:
        sig = inspect.signature(fun)
    except (TypeError, ValueError):
        return [], None
    names = [
        p.name
        for p in sig.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return names, sig


# ---------------------------------------------------------------------------------------------
# jit


class _CacheEntry:
    __slots__ = (
        "jaxpr",
        "staged",
        "staged_args",
        "staged_refs",
        "compiled",
        "out_tree",
        "out_weak",
        "single_leaf",
        "token_outs",
        "constrained",
        "in_tree",
        "out_shardings",
        "unused",
        "last_placed",
        "typed",
        "ctx_mesh",
        "spaces",
    )

    def __init__(self, jaxpr: ClosedJaxpr, out_tree, in_tree=None, typed=None) -> None:
        self.jaxpr = jaxpr
        # The arguments' shardings in types it was traced for (Explicit mesh axes; None: none
        # had one): arguments typed otherwise trace again, as in JAX.
        self.typed = typed
        # The arguments' memory spaces, when one is in host memory (as _space_key gives them).
        spaces = tuple(a.memory_space for a in jaxpr.in_avals)
        self.spaces = spaces if core.MemorySpace.Host in spaces else None
        self.out_tree = out_tree
        self.in_tree = in_tree
        # Programs with sharding constraints, or closing over arrays with shardings in their
        # types (Explicit mesh axes), give their results shardings even when their inputs have
        # none (such calls take the general path, which places results).
        self.constrained = sharding_rules.has_constraints(jaxpr.jaxpr) or any(
            v.sharding is not None for v in jaxpr.jaxpr.constvars
        )
        # The mesh set_mesh/use_mesh put in context when it was traced (entries are cached per
        # context mesh): results nothing else places are replicated on it, as in JAX.
        self.ctx_mesh = traced_context_mesh()
        if self.ctx_mesh is not None:
            self.constrained = True
        # Input shardings -> output shardings, filled as calls come (see _attach_out_shardings).
        self.out_shardings: dict = {}
        # The argument shardings of the last placed call on the fast path, with its result
        # shardings.
        self.last_placed: tuple | None = None
        self.out_weak = [a.weak_type for a in jaxpr.out_avals]
        # Results that are tokens (bool placeholders in the program) come back as Tokens; a
        # program with some takes _results' general path.
        self.token_outs = tokens.token_positions(jaxpr.out_avals)
        self.single_leaf = (
            tu.treedef_is_leaf(out_tree) and out_tree.num_leaves == 1 and not self.token_outs
        )
        # Positions of the arguments the program never reads. As in JAX (which prunes them),
        # their placement does not commit the results: a program of constants runs uncommitted.
        _, used = pe.dce_jaxpr_inputs(jaxpr.jaxpr)
        self.unused = frozenset(i for i, u in enumerate(used) if not u)
        if any(isinstance(c, Tracer) for c in jaxpr.consts):
            # Closed over values of an enclosing trace: staged, they become leading operands
            # (the enclosing trace must see them); such a program is never compiled or cached.
            j, _ = pe.convert_constvars_jaxpr(jaxpr)
            self.staged = ClosedJaxpr(j, [])
            self.staged_args = list(jaxpr.consts)
            self.compiled = None
        else:
            self.staged = jaxpr
            self.staged_args = []
            self.compiled = dispatch.compile_jaxpr(jaxpr.jaxpr, jaxpr.consts)
        # Refs the program closes over: staged, they become trailing operands (as JAX stages
        # them; compiled, they stay constants of the program, which writes into them).
        self.staged_refs = [c for c in self.staged.consts if type(c) is Ref]
        if self.staged_refs:
            self.staged = _refs.refs_as_trailing_args(self.staged)


def _check_static_argnums(static_argnums, n_pos: int | None, fun_name: str) -> tuple[int, ...]:
    out = []
    for i in static_argnums:
        i = operator.index(i)
        if n_pos is not None:
            if not -n_pos <= i < n_pos:
                raise ValueError(
                    f"jit({fun_name}): static_argnums={tuple(static_argnums)} refers to "
                    f"argument {i}, but {fun_name} takes only {n_pos} positional "
                    f"argument{'s' if n_pos != 1 else ''}."
                )
            i %= n_pos
        out.append(i)
    return tuple(sorted(set(out)))


def _ensure_tuple(x) -> tuple:
    if x is None:
        return ()
    if isinstance(x, (int, str)):
        return (x,)
    return tuple(x)


# fun -> {jit options -> traces}: as in JAX, jit(f) built again for the same function with the
# same options finds f's traces (a function run under jit(f)(x) twice is traced once).
_TRACES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _traces_of(fun: Callable, options: tuple) -> LRU:
    """The trace cache jit objects of ``fun`` with these ``options`` share (a cache of their
    own for functions that take no weak reference, or options that do not hash)."""
    try:
        per_fun = _TRACES.setdefault(fun, {})
        return per_fun.setdefault(options, LRU(config.spmd_jit_cache_size))
    except TypeError:
        return LRU(config.spmd_jit_cache_size)


class JitWrapped:
    """The result of ``jit(fun)``: call it, or ``.lower(*args)``/``.trace(*args)`` it."""

    def __init__(
        self,
        fun: Callable,
        static_argnums=None,
        static_argnames=None,
        donate_argnums=None,
        donate_argnames=None,
        in_shardings=None,
        out_shardings=None,
        keep_unused: bool = False,
        inline: bool = False,
    ) -> None:
        if not callable(fun):
            raise TypeError(f"jit: expected a function as the first argument, got {fun!r}")
        self.fun = fun
        self.__name__ = _fun_name(fun)
        self.__wrapped__ = fun
        functools.update_wrapper(self, fun, updated=())
        pos_names, sig = _positional_names(fun)
        has_varargs = sig is not None and any(
            p.kind == p.VAR_POSITIONAL for p in sig.parameters.values()
        )
        n_pos = None if (sig is None or has_varargs) else len(pos_names)
        static_argnums = _ensure_tuple(static_argnums)
        static_argnames = _ensure_tuple(static_argnames)
        # As in JAX, naming a static argument by position also makes its name static and
        # vice versa, so it can be passed either way.
        names = set(static_argnames)
        nums = set(_check_static_argnums(static_argnums, n_pos, self.__name__))
        if sig is not None:
            for n in static_argnames:
                if n in pos_names:
                    nums.add(pos_names.index(n))
                elif n not in sig.parameters and not any(
                    p.kind == p.VAR_KEYWORD for p in sig.parameters.values()
                ):
                    raise ValueError(
                        f"jit({self.__name__}): static_argnames={static_argnames} names "
                        f"{n!r}, which is not a parameter of {self.__name__}{sig}"
                    )
            for i in nums:
                if i < len(pos_names):
                    names.add(pos_names[i])
        self._pos_names = pos_names
        self._sig = sig
        self._static_argnums = tuple(sorted(nums))
        self._static_argnames = frozenset(names)
        self._donate_argnums = _ensure_tuple(donate_argnums)
        self._donated = _donation.donated_args(self._donate_argnums, donate_argnames, pos_names)
        self._donation_warned: set = set()  # argument types whose unusable donations were told
        self.in_shardings = in_shardings
        self.out_shardings = out_shardings
        self._has_placements = in_shardings is not None or out_shardings is not None
        self._in_specs: dict = {}  # (entry, mesh in context) -> in_shardings per leaf
        self._cache = _traces_of(fun, (self._static_argnums, self._static_argnames,
                                       self._donate_argnums, donate_argnames, in_shardings,
                                       out_shardings, keep_unused, inline))  # fmt: skip
        # Entries for calls with positional Array arguments only, keyed by their types.
        self._fast: dict = {}
        self._fast_ok = not self._static_argnums

    # -- argument handling -----------------------------------------------------------------
    def _split(self, args: tuple, kwargs: dict):
        static_nums = self._static_argnums
        if static_nums:
            statics = []
            dyn = []
            for i, a in enumerate(args):
                if i in static_nums:
                    statics.append((i, a))
                else:
                    dyn.append(a)
            dyn_args = tuple(dyn)
        else:
            statics, dyn_args = [], args
        if kwargs:
            dyn_kwargs = {}
            for k, v in kwargs.items():
                if k in self._static_argnames:
                    statics.append((k, v))
                else:
                    dyn_kwargs[k] = v
        else:
            dyn_kwargs = kwargs
        static_key = tuple(statics)
        if static_key:
            try:
                hash(static_key)
            except TypeError as e:
                bad = next(v for _, v in statics if not isinstance(v, Hashable) or _unhashable(v))
                raise ValueError(
                    f"jit({self.__name__}): non-hashable static arguments are not supported. "
                    f"A static argument of type {type(bad)} ({bad!r}) could not be hashed: "
                    f"{e}. Pass a tuple instead of a list, or make the argument non-static."
                ) from None
        return dyn_args, dyn_kwargs, static_key

    def _dyn_names(self) -> list[str]:
        return [n for i, n in enumerate(self._pos_names) if i not in self._static_argnums]

    def _get_entry(self, args: tuple, kwargs: dict):
        dyn_args, dyn_kwargs, static_key = self._split(args, kwargs)
        leaves, treedef = tu.tree_flatten((dyn_args, dyn_kwargs))
        try:
            sig = tuple(
                (x._value.shape, x._value.dtype, x.weak_type)
                if type(x) is Array and x._sharding is None
                else _aval_key(x)
                for x in leaves
            )
        except TypeError:
            sig = None
        if any(type(x) is Ref for x in leaves):
            _refs.check_distinct_refs(
                leaves,
                lambda: _leaf_paths(dyn_args, dyn_kwargs, self._dyn_names(), self._sig),
                self.__name__,
                "jit",
            )
        if sig is None:
            paths = _leaf_paths(dyn_args, dyn_kwargs, self._dyn_names(), self._sig)
            for x, p in zip(leaves, paths):
                _abstractify(x, p, f"jit({self.__name__})")
        # The axis environment is part of the key: a body that uses a named axis (inside pmap,
        # shard_map, vmap(axis_name=)) traces differently for different axis sizes.
        # So is the context mesh: bare PartitionSpecs in the body resolve against it.
        key = (treedef, sig, static_key, config.trace_context(), core.trace_ctx.axis_env,
               get_mesh(), _typed_key(_type_shardings(leaves)))  # fmt: skip
        entry = self._cache.get(key)
        if entry is None:
            entry = self._trace(args, kwargs, dyn_args, dyn_kwargs, leaves, treedef)
            if entry.compiled is not None:
                self._cache[key] = entry
        if entry.staged_refs:  # (on every call: the cache keys a ref argument by its type)
            _refs.check_not_closed_over(
                leaves,
                entry.staged_refs,
                lambda: _leaf_paths(dyn_args, dyn_kwargs, self._dyn_names(), self._sig),
                self.__name__,
                "jit",
            )
        return entry, leaves

    def _trace(self, args, kwargs, dyn_args, dyn_kwargs, leaves, treedef) -> _CacheEntry:
        paths = _leaf_paths(dyn_args, dyn_kwargs, self._dyn_names(), self._sig)
        in_avals = [_abstractify(x, p, f"jit({self.__name__})") for x, p in zip(leaves, paths)]
        if compile_log.any_enabled():
            compile_log.on_trace(
                self.__name__, self.fun, treedef, paths, in_avals, self._cache.values
            )
        static_nums = self._static_argnums
        fun = self.fun
        out_tree_box = []

        def flat_fun(*flat):
            a, kw = tu.tree_unflatten(treedef, flat)
            full_args = list(a)
            for i in static_nums:
                if i < len(args):
                    full_args.insert(i, args[i])
            full_kwargs = dict(kw)
            for k, v in kwargs.items():
                if k in self._static_argnames:
                    full_kwargs[k] = v
            out = fun(*full_args, **full_kwargs)
            out_leaves, out_tree = tu.tree_flatten(out)
            out_tree_box.append(out_tree)
            _refs.check_results(out_leaves, flat, paths, self.__name__, "jit")
            for i, o in enumerate(out_leaves):
                if not core.valid_jaxtype(o):
                    raise TypeError(
                        f"jit({self.__name__}): output {i} of the function is of type "
                        f"{type(o)}, which is not a valid array type."
                    )
            return out_leaves

        debug = pe.DebugInfo("jit", self.__name__, paths)
        types = _type_shardings(leaves)
        closed = pe.trace_to_jaxpr(flat_fun, in_avals, debug, types)
        _refs.check_freezes(closed.jaxpr, self.__name__, "jit")
        _check_explicit(closed, leaves)
        return _CacheEntry(closed, out_tree_box[0], treedef, _typed_key(types))

    # -- calling ---------------------------------------------------------------------------
    def _fast_args(self, args: tuple) -> tuple | None:
        """One pass over positional Array, NumPy array and Python scalar arguments: (the key of
        their program, their values, whether a value still needs converting, whether an Array
        is placed); None for other arguments. The pytree structure is then a flat tuple, so
        the argument types alone key the program and no flattening is needed. The three kinds
        key differently (an Array's weak type, None, a scalar's type)."""
        sig, vals = [], []
        convert = placed = False
        for x in args:
            t = type(x)
            if t is Array:
                v = x._value
                sig.append((v.shape, v.dtype, x.weak_type))
                vals.append(v)
                if x._sharding is not None:
                    placed = True
                continue
            if t is np.ndarray:
                sig.append((x.shape, x.dtype, None))
            elif t is float or t is int or t is bool or t is complex:
                sig.append(t)
            else:
                return None
            vals.append(x)
            convert = True
        key = (tuple(sig), config.trace_context(), core.trace_ctx.axis_env, get_mesh())
        return key, vals, convert, placed

    def __call__(self, *args, **kwargs):
        if config.jax_disable_jit:
            return self.fun(*args, **kwargs)
        if _profiler.recording and core.trace_ctx.trace is core.eval_trace:
            return _profiler.record_jit_call(self, args, kwargs)
        if debug_floats.enabled and not debug_floats.busy() and core.is_eval_trace_current():
            return debug_floats.call_jit(self, self.fun, self.__name__, args, kwargs)
        fast = None if kwargs or not self._fast_ok else self._fast_args(args)
        fast_key = None if fast is None else fast[0]
        hit = self._fast.get(fast_key) if fast_key is not None else None
        if (
            hit is not None
            and fast[3]
            and (
                _typed_key(_type_shardings(args)) != hit[0].typed
                or _space_key(args) != hit[0].spaces
            )
        ):
            hit = None  # placed arguments typed otherwise (Explicit axes, memory): trace again
        if (
            hit is not None
            and not self._has_placements
            and not hit[0].constrained
            and core.trace_ctx.trace is core.eval_trace
        ):
            # The common eager call: a compiled program for these types, and result shardings
            # (if any argument is placed) already propagated for these argument shardings.
            entry, vals = hit[0], fast[1]
            out_s = None
            if fast[3]:
                in_s = _arg_shardings(entry, args)
                last = entry.last_placed
                # (Tuples compare item by item, identical items first: the same shardings as
                # the last call's cost no hashing.)
                if last is not None and last[0] == in_s:
                    out_s = last[1]
                else:
                    out_s = entry.out_shardings.get(in_s) if any(in_s) else None
                    if out_s is None and any(in_s):
                        out_s = _MISS
                    else:
                        entry.last_placed = (in_s, out_s)
                if config.spmd_partition == "always":
                    out_s = _MISS
            if out_s is not _MISS:
                if fast[2]:
                    vals = [v if c is _VALUE or c is _AS_IS else c(v) for v, c in zip(vals, hit[1])]
                try:
                    return _results(entry, entry.compiled(*vals), out_s)
                except RuntimeError:
                    _refuse_donated(args)
                    raise
        if hit is not None:
            entry, convert = hit
            leaves = args
        else:
            entry, leaves = self._get_entry(args, kwargs)
            convert = None
            if fast_key is not None and entry.compiled is not None:
                if len(self._fast) >= self._cache.maxsize:
                    self._fast.clear()
                self._fast[fast_key] = (entry, _converters(args))
        if core.trace_ctx.trace is core.eval_trace:
            if _multiprocess.spans_processes(leaves):
                return _multiprocess.call_jit(self, entry, leaves, kwargs)
            in_s = _arg_shardings(entry, leaves)
            # (Shardings are objects without __bool__ or __len__: any() is "one is not None".)
            placed = self._has_placements or entry.constrained or any(in_s)
            # Placements are decided (and checked) before any work is done.
            if placed:
                leaves, out_s = self._placements(entry, leaves, kwargs, in_s)
                # in_shardings or out_shardings over the devices of several processes: the
                # program runs on every process, as one with such arguments does.
                if _devices.process_count() > 1 and (
                    _multiprocess.spans_processes(leaves) or _multiprocess.spanning(out_s)
                ):
                    return _multiprocess.call_jit(self, entry, leaves, kwargs)
                if config.spmd_partition == "always":
                    parts = run_partitioned(entry, leaves, out_s, self.__name__)
                    if parts is not None:
                        for i in entry.token_outs:
                            parts[i] = tokens.Token()
                        return entry.out_tree.unflatten(parts)
            if convert is not None and leaves is args:
                # A fast-path hit whose arguments in_shardings did not replace: each argument's
                # conversion was decided when the entry was stored.
                vals = [
                    x._value if c is _VALUE else x if c is _AS_IS else c(x)
                    for x, c in zip(args, convert)
                ]
            else:
                vals = [x._value if type(x) is Array else _canonical(x) for x in leaves]
            try:
                return _results(entry, entry.compiled(*vals), out_s if placed else None)
            except RuntimeError:  # (a new trace stopped at the donated array's type)
                _refuse_donated(leaves)
                raise
        mesh = traced_context_mesh()
        out_leaves = dispatch.jit_p.bind(
            *entry.staged_args,
            *leaves,
            *entry.staged_refs,
            jaxpr=entry.staged,
            name=self.__name__,
            **({} if mesh is None else {"ctx_mesh": mesh}),
            **self._staged_placements(entry),
        )
        return entry.out_tree.unflatten(out_leaves)

    def _staged_placements(self, entry) -> dict:
        """A staged call's in_shardings/out_shardings, one per operand/result (UnspecifiedValue
        where none is given), as JAX's jit equations print them; {} if the jit has none."""
        out = {}
        if self.in_shardings is not None:
            given = _sharding_leaves(self.in_shardings, entry.in_tree, "in_shardings", self)
            n_const, n_ref = len(entry.staged_args), len(entry.staged_refs)
            given = [dispatch.UNSPECIFIED] * n_const + list(given) + [dispatch.UNSPECIFIED] * n_ref
            out["in_shardings"] = tuple(dispatch.UNSPECIFIED if s is None else s for s in given)
        if self.out_shardings is not None:
            given = _sharding_leaves(self.out_shardings, entry.out_tree, "out_shardings", self)
            out["out_shardings"] = tuple(dispatch.UNSPECIFIED if s is None else s for s in given)
        return out

    # -- placements (in_shardings, out_shardings, argument devices) -------------------------
    def _arg_paths(self, entry) -> list[str]:
        a, kw = tu.tree_unflatten(entry.in_tree, [0] * entry.in_tree.num_leaves)
        return _leaf_paths(a, kw, self._dyn_names(), self._sig)

    def _out_paths(self, entry) -> list[str]:
        n = entry.out_tree.num_leaves
        tree = tu.tree_unflatten(entry.out_tree, list(range(n)))
        return ["output" + tu.keystr(p) for p, _ in tu.tree_flatten_with_path(tree)[0]]

    def _placements(self, entry, leaves, kwargs, in_s=None):
        """Place the arguments as in_shardings asks, check that they share devices, and give
        every result its sharding: (placed leaves, result shardings). ``in_s``: the leaves'
        shardings, if the caller has them."""
        if self.in_shardings is not None:
            dyn_kwargs = [k for k in kwargs if k not in self._static_argnames]
            if dyn_kwargs:
                raise ValueError(
                    f"jit({self.__name__}): in_shardings applies to positional arguments only, "
                    f"but keyword argument{'s' if len(dyn_kwargs) > 1 else ''} "
                    f"{', '.join(dyn_kwargs)} {'were' if len(dyn_kwargs) > 1 else 'was'} passed "
                    "(JAX: pjit does not support kwargs when in_shardings is specified)."
                )
            ikey = (entry, get_mesh())
            specs = self._in_specs.get(ikey)
            if specs is None:
                specs = _sharding_leaves(self.in_shardings, entry.in_tree, "in_shardings", self)
                if len(self._in_specs) >= 64:
                    self._in_specs.clear()
                self._in_specs[ikey] = specs
            leaves = [
                x if sp is None else self._place_arg(x, sp, i, entry)
                for i, (x, sp) in enumerate(zip(leaves, specs))
            ]
            in_s = None  # the placed leaves have their own
        if in_s is None:
            in_s = _arg_shardings(entry, leaves)
        key = (in_s, get_mesh()) if self.out_shardings is not None else in_s
        # Propagation walks the whole program: do it (and the device checks) once per input
        # placement, not per call.
        outs = entry.out_shardings.get(key)
        if outs is None:
            arg_devices = _check_arg_devices(self.__name__, lambda: self._arg_paths(entry),
                                             entry.jaxpr.in_avals, in_s)  # fmt: skip
            outs = sharding_rules.propagate_jaxpr(entry.jaxpr.jaxpr, in_s)
            wanted = [None] * len(outs)
            if self.out_shardings is not None:
                wanted = _sharding_leaves(self.out_shardings, entry.out_tree, "out_shardings", self)
                if arg_devices is not None:
                    _check_out_devices(self.__name__, self._arg_paths(entry),
                                       self._out_paths(entry), entry.jaxpr.in_avals, wanted,
                                       arg_devices)  # fmt: skip
                outs = [w if w is not None else o for w, o in zip(wanted, outs)]
            _check_inner_devices(
                entry.jaxpr.jaxpr,
                lambda: _described_arg(
                    self.__name__, self._arg_paths(entry), entry.jaxpr.in_avals, arg_devices
                ),  # fmt: skip
                lambda: [(p, w) for p, w in zip(self._out_paths(entry), wanted) if w is not None],
            )
            outs = _fill_unplaced(outs, in_s, wanted, entry)
            outs = _in_typed_memory(outs, entry.jaxpr.out_avals, wanted, self.__name__)
            outs = _named_like_first_input(
                outs, in_s, entry.jaxpr.in_avals, entry.jaxpr.out_avals, wanted
            )
            paths = None
            for i, (sh, aval) in enumerate(zip(outs, entry.jaxpr.out_avals)):
                if isinstance(sh, NamedSharding):
                    bad = uneven_dims(sh, aval.shape)
                    if bad and config.spmd_uneven != "pad":
                        paths = paths or self._out_paths(entry)
                        src = "out_shardings" if wanted[i] is not None else "the result sharding"
                        raise IndivisibleError(
                            f"jit({self.__name__}): {src} for {paths[i]} "
                            f"({aval.str_short()}): {uneven_message(sh, aval.shape, bad)}"
                        )
            if len(entry.out_shardings) < 64:
                entry.out_shardings[key] = outs
        return leaves, outs

    def _place_arg(self, x, sharding: Sharding, i: int, entry):
        if type(x) is Array and x._sharding is not None and x._sharding == sharding:
            return x  # already placed (and checked) there: the common case, kept cheap
        from spmd._src.placement import device_put  # lazy: placement sits beside api

        aval = _abstractify(x, "", self.__name__)

        def who() -> str:  # names the argument; built only when raising
            return f"jit({self.__name__}) in_shardings for argument {self._arg_paths(entry)[i]}"

        if isinstance(sharding, NamedSharding):
            bad = uneven_dims(sharding, aval.shape) if len(sharding.spec) <= aval.ndim else []
            if bad and config.spmd_uneven != "pad":
                raise IndivisibleError(
                    f"{who()} ({aval.str_short()}): {uneven_message(sharding, aval.shape, bad)}"
                )
        have = x._sharding if type(x) is Array else None
        if have is not None:
            if equivalent(have, sharding, aval.ndim):
                return x
            if have.memory_kind != sharding.memory_kind:
                raise ValueError(
                    f"Memory kinds passed to jit do not match the memory kind of the argument: "
                    f"{who()} ({aval.str_short()}) asks for memory kind "
                    f"{sharding.memory_kind}, but the argument is in {have.memory_kind} ({have})."
                )
            meshes = ""
            if isinstance(sharding, NamedSharding) and isinstance(have, NamedSharding):
                if sharding.mesh != have.mesh:
                    meshes = (
                        f" The in_shardings {_placement_name(sharding)} is not the argument's "
                        f"{_placement_name(have)}."
                    )
            raise ValueError(
                f"Sharding passed to jit does not match the sharding on the respective arg: "
                f"{who()} ({aval.str_short()}) is {sharding}, but the argument is committed to "
                f"{have}.{meshes} device_put the argument first, or drop its in_shardings."
            )
        if sharding.memory_kind != "device":
            raise ValueError(
                f"Memory kinds passed to jit do not match the memory kind of the argument: "
                f"{who()} ({aval.str_short()}) asks for memory kind {sharding.memory_kind}, "
                "but the argument is in device memory; device_put it there first."
            )
        return device_put(x, sharding)

    def trace(self, *args, **kwargs) -> Traced:
        entry, leaves = self._get_entry(args, kwargs)
        return Traced(self, entry, leaves, (args, kwargs))

    def lower(self, *args, **kwargs) -> Lowered:
        return self.trace(*args, **kwargs).lower()

    def eval_shape(self, *args, **kwargs):
        args, kwargs = key_arrays.abstract_keys_in((args, kwargs), ShapeDtypeStruct)
        entry, _ = self._get_entry(args, kwargs)
        out = tu.tree_unflatten(entry.out_tree, [_out_shape(a) for a in entry.jaxpr.out_avals])
        return key_arrays.abstract_keys_out(out, ShapeDtypeStruct)

    def clear_cache(self) -> None:
        self._cache.clear()
        self._fast.clear()
        self._in_specs.clear()

    def _cache_size(self) -> int:
        return len(self._cache)

    def __get__(self, obj, objtype=None):
        # Supports jit as a method decorator: bind self like a plain function would.
        if obj is None:
            return self
        return functools.partial(self, obj)

    def __repr__(self) -> str:
        return f"<jitted function {self.__name__}>"


def _unhashable(v) -> bool:
    try:
        hash(v)
    except TypeError:
        return True
    return False


def _aval_key(x: Any) -> tuple:
    if isinstance(x, (Tracer, ShapeDtypeStruct, Array)):
        a = x.aval
        if type(x) is BatchTracer and is_ref(x):  # (as in _abstractify)
            return (Ref, a.shape, a.dtype, a.weak_type)
        if a.memory_space is not core.DEVICE_SPACE:  # f32<host>[8] is another type
            return (a.shape, a.dtype, a.weak_type, a.memory_space)
        return (a.shape, a.dtype, a.weak_type)
    a = core.get_aval(x)
    if type(x) is Ref:  # a ref's program is not an array's of the same shape
        return (Ref, a.shape, a.dtype, a.weak_type)
    return (a.shape, a.dtype, a.weak_type)


def _canonical(x: Any) -> np.ndarray:
    if isinstance(x, ShapeDtypeStruct):
        raise TypeError("a ShapeDtypeStruct cannot be passed to a compiled function; use .lower")
    return dispatch.canonical_value(x)


# How a fast-path argument becomes a program input (see _converters).
def _arg_shardings(entry, leaves) -> tuple:
    """The shardings of a call's arguments; None for an argument the program never reads."""
    if entry.unused:
        return tuple(
            [
                x._sharding if type(x) in _PLACED and i not in entry.unused else None
                for i, x in enumerate(leaves)
            ]
        )
    return tuple([x._sharding if type(x) in _PLACED else None for x in leaves])


_PLACED = (Array, GlobalArray)  # (an Array over several processes' devices is placed too)


def _results(entry, outs: list, out_s: list | None = None):
    """A compiled program's NumPy results as the jitted function's output: Arrays (with the
    shardings ``out_s`` gives, where not None) in the output's tree."""
    if entry.single_leaf:
        o = outs[0]
        out = Array(o if type(o) is np.ndarray else np.asarray(o), entry.out_weak[0])
        if out_s is not None and out_s[0] is not None:
            out._sharding = out_s[0]
            out._committed = True
        elif out_s is None:
            memory_spaces.place_unplaced([out], entry.jaxpr.out_avals)
        return out
    leaves = [
        Array(o if type(o) is np.ndarray else np.asarray(o), w)
        for o, w in zip(outs, entry.out_weak)
    ]
    if out_s is not None:
        for o, sh in zip(leaves, out_s):
            if sh is not None:
                o._sharding = sh
                o._committed = True
    else:  # no argument placed: results typed in host memory are there all the same
        memory_spaces.place_unplaced(leaves, entry.jaxpr.out_avals)
    if entry.token_outs:
        for i in entry.token_outs:
            leaves[i] = tokens.Token()
    return entry.out_tree.unflatten(leaves)


_MISS = object()  # not found: the call takes the general path
_VALUE = "value"  # an Array: its NumPy value
_AS_IS = "as is"  # a NumPy array already of its canonical dtype


def _converters(args: tuple) -> tuple:
    """Per positional argument of a fast-path call: _VALUE, _AS_IS, or a function giving the
    program input, decided once per entry (the dtypes are part of the fast key, and x64 of the
    trace context): the same values ``_canonical`` gives, without deciding per call."""
    out = []
    for x in args:
        if type(x) is Array:
            out.append(_VALUE)
        elif type(x) is np.ndarray:
            d = dtypes.canonicalize_dtype(x.dtype)
            out.append(_AS_IS if d == x.dtype else operator.methodcaller("astype", d))
        else:  # a Python scalar: converted as the slow path does
            out.append(_canonical)
    return tuple(out)


def _refuse_donated(leaves) -> None:
    """A compiled program run on an array a jit call donated: JAX's executable refuses the
    donated buffer with ValueError (a new trace, or an eager use, raises RuntimeError)."""
    for i, x in enumerate(leaves):
        if type(x) is Array and type(x._value) is Donated:
            raise ValueError(
                f"INVALID_ARGUMENT: Invalid buffer passed to Execute() as argument {i} to "
                "replica 0: INVALID_ARGUMENT: Buffer has been deleted or donated."
            ) from None


class _DonatingJit(JitWrapped):
    """``jit`` with donated arguments: eager calls delete the donated Arrays a result can
    reuse (donation.py); traced calls (inside another transformation) donate nothing."""

    def __call__(self, *args, **kwargs):
        if config.jax_disable_jit or core.trace_ctx.trace is not core.eval_trace:
            return JitWrapped.__call__(self, *args, **kwargs)
        call = lambda: JitWrapped.__call__(self, *args, **kwargs)  # noqa: E731
        return _donation.donating_call(self, args, kwargs, call)


def jit(
    fun: Callable | None = None,
    *,
    static_argnums: int | Iterable[int] | None = None,
    static_argnames: str | Iterable[str] | None = None,
    donate_argnums: int | Iterable[int] | None = None,
    donate_argnames: str | Iterable[str] | None = None,
    in_shardings=None,
    out_shardings=None,
    keep_unused: bool = False,
    device=None,
    backend=None,
    inline: bool = False,
    abstracted_axes=None,
    compiler_options=None,
) -> Any:
    """Compile ``fun``: trace once per argument structure and types, then run the program.

    >>> f = jit(lambda x, n: x * n, static_argnums=1)
    >>> f(jnp.arange(3), 2)
    Array([0, 2, 4], dtype=int32)
    """
    kw = dict(
        static_argnums=static_argnums,
        static_argnames=static_argnames,
        donate_argnums=donate_argnums,
        donate_argnames=donate_argnames,
        in_shardings=in_shardings,
        out_shardings=out_shardings,
        keep_unused=keep_unused,
        inline=inline,
    )
    # Donating jits are their own class, so other calls pay nothing for donation.
    donates = _ensure_tuple(donate_argnums) or _ensure_tuple(donate_argnames)
    cls = _DonatingJit if donates else JitWrapped
    if fun is None:
        return lambda f: cls(f, **kw)
    return cls(fun, **kw)
