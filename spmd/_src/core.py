"""The core: abstract values, primitives, traces and tracers, and the jaxpr IR.

Tracing is stackless: the trace that interprets primitives is a context value
(``trace_ctx.trace``), not a level on a global stack. ``Primitive.bind`` hands the primitive to
the current trace; a trace that wraps another (jvp over eval, batching over jaxpr building) sets
its parent as current while it binds the primitives it emits. A value that belongs to a different
trace than the current one is, to the current trace, a constant.

>>> from spmd._src.core import ShapedArray
>>> ShapedArray((8, 3), np.dtype("float32")).str_short()
'f32[8,3]'
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from spmd._src import dtypes
from spmd._src import pretty_printer as pp
from spmd._src.errors import (
    ConcretizationTypeError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
)

# ---------------------------------------------------------------------------------------------
# Abstract values


class ShapedArray:
    """The abstract value of an array: shape, dtype and whether the dtype is weak.

    A weak dtype comes from a Python scalar and gives way to the other operand's dtype in
    promotion (``f32[] * 2`` stays f32).
    """

    __slots__ = ("shape", "dtype", "weak_type")
    array_abstraction_level = 1

    def __init__(self, shape: tuple[int, ...], dtype: Any, weak_type: bool = False) -> None:
        self.shape = shape if type(shape) is tuple else tuple(shape)
        self.dtype = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
        self.weak_type = weak_type is True or bool(weak_type)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def update(self, shape=None, dtype=None, weak_type=None) -> ShapedArray:
        return ShapedArray(
            self.shape if shape is None else shape,
            self.dtype if dtype is None else dtype,
            self.weak_type if weak_type is None else weak_type,
        )

    def strip_weak_type(self) -> ShapedArray:
        return self.update(weak_type=False) if self.weak_type else self

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is ShapedArray
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.weak_type == other.weak_type
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type))

    def str_short(self, short_dtypes: bool = True) -> str:
        name = dtypes.short_dtype_name(self.dtype) if short_dtypes else self.dtype.name
        return f"{name}[{','.join(str(d) for d in self.shape)}]"

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short(False)}{weak})"

    __str__ = str_short


def raise_to_shaped(aval: ShapedArray) -> ShapedArray:
    return aval


def get_aval(x: Any) -> ShapedArray:
    """The abstract value of a concrete value or tracer."""
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval
    if isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic):
        return ShapedArray((), dtypes.dtype(x, canonicalize=True), dtypes.is_weakly_typed(x))
    if isinstance(x, (np.ndarray, np.generic)):
        return ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype), False)
    raise TypeError(f"Value {x!r} of type {type(x)} is not a valid JAX type")


def valid_jaxtype(x: Any) -> bool:
    try:
        get_aval(x)
    except TypeError:
        return False
    return True


# ---------------------------------------------------------------------------------------------
# Primitives


class Primitive:
    """A named operation. Each interpreter keeps its own table of rules for it."""

    __slots__ = (
        "name",
        "multiple_results",
        "effectful",
        "fresh_outputs",
        "impl",
        "abstract_eval",
        "__weakref__",
    )

    def __init__(self, name: str, multiple_results: bool = False, effectful: bool = False) -> None:
        self.name = name
        self.multiple_results = multiple_results
        # Effectful primitives (debug callbacks) are kept by dead-code elimination.
        self.effectful = effectful
        # The kernel always returns newly allocated arrays, never views of its operands: a
        # compiled program may then reuse its results' buffers once they are dead.
        self.fresh_outputs = False
        self.impl: Callable | None = None
        self.abstract_eval: Callable | None = None

    def bind(self, *args: Any, **params: Any) -> Any:
        return trace_ctx.trace.process_primitive(self, args, params)

    def def_impl(self, impl: Callable) -> Callable:
        """Register the NumPy implementation: takes and returns NumPy arrays."""
        self.impl = impl
        return impl

    def def_abstract_eval(self, rule: Callable) -> Callable:
        """Register the shape/dtype rule: avals in, aval (or list of avals) out."""
        self.abstract_eval = rule
        return rule

    def __repr__(self) -> str:
        return self.name


# ---------------------------------------------------------------------------------------------
# Traces and tracers


class Trace:
    """An interpretation of primitives. Subclasses implement ``process_primitive``."""

    __slots__ = ("__weakref__",)

    def process_primitive(self, prim: Primitive, args: Sequence[Any], params: dict) -> Any:
        raise NotImplementedError

    def describe_tracer(self, tracer: Tracer) -> str:
        """Why a tracer has no concrete value (used in concretization errors)."""
        return ""


class EvalTrace(Trace):
    """Executes primitives on concrete values (eager mode)."""

    __slots__ = ()

    def process_primitive(self, prim, args, params):
        return _eager_apply(prim, args, params)


def _missing_eager_apply(prim, args, params):
    raise RuntimeError("spmd._src.dispatch has not been imported")


_eager_apply: Callable = _missing_eager_apply


def set_eager_apply(fn: Callable) -> None:
    """Install the eager executor (owned by the dispatch layer, which knows ``Array``)."""
    global _eager_apply
    _eager_apply = fn


def _numpy_concrete(value: np.ndarray, weak_type: bool) -> Any:
    return value


make_concrete: Callable[[np.ndarray, bool], Any] = _numpy_concrete


def set_make_concrete(fn: Callable[[np.ndarray, bool], Any]) -> None:
    """Install the constructor of concrete arrays (``Array``, owned by a higher layer), so that
    lower layers can make constants that keep their weak type."""
    global make_concrete
    make_concrete = fn


def _missing_compiler(closed):
    raise RuntimeError("spmd._src.dispatch has not been imported")


jaxpr_as_numpy_fn: Callable[[Any], Callable[..., list]] = _missing_compiler


def set_jaxpr_compiler(fn: Callable[[Any], Callable[..., list]]) -> None:
    """Install the compiler of closed jaxprs to functions on NumPy values (owned by the
    dispatch layer), so that higher-order primitives' NumPy kernels can run their bodies."""
    global jaxpr_as_numpy_fn
    jaxpr_as_numpy_fn = fn


eval_trace = EvalTrace()


class _TraceContext(threading.local):
    def __init__(self) -> None:
        self.trace: Trace = eval_trace
        # Named axes bound by enclosing maps: a tuple of (name, size) pairs, innermost last.
        self.axis_env: tuple[tuple[Any, int], ...] = ()


trace_ctx = _TraceContext()


@contextmanager
def set_current_trace(trace: Trace):
    prev = trace_ctx.trace
    trace_ctx.trace = trace
    try:
        yield trace
    finally:
        trace_ctx.trace = prev


@contextmanager
def extend_axis_env(name: Any, size: int):
    prev = trace_ctx.axis_env
    trace_ctx.axis_env = prev + ((name, size),)
    try:
        yield
    finally:
        trace_ctx.axis_env = prev


def is_eval_trace_current() -> bool:
    return trace_ctx.trace is eval_trace


class Tracer:
    """A value inside a transformation: an abstract value plus whatever its trace tracks.

    Operators and array methods are installed by ``spmd._src.numpy.array_methods`` (the numpy
    layer sits above the core).
    """

    __slots__ = ("_trace", "__weakref__")
    __array_priority__ = 1000

    @property
    def aval(self) -> ShapedArray:
        raise NotImplementedError

    @property
    def shape(self) -> tuple[int, ...]:
        return self.aval.shape

    @property
    def dtype(self) -> np.dtype:
        return self.aval.dtype

    @property
    def ndim(self) -> int:
        return self.aval.ndim

    @property
    def size(self) -> int:
        return self.aval.size

    @property
    def weak_type(self) -> bool:
        return self.aval.weak_type

    def __len__(self) -> int:
        if not self.aval.shape:
            raise TypeError("len() of unsized object")
        return self.aval.shape[0]

    def _concretization_message(self, what: str) -> str:
        why = self._trace.describe_tracer(self)
        return (
            f"Abstract tracer value encountered where concrete value is expected: "
            f"traced array with shape {self.aval.str_short()}.\nThe problem arose with "
            f"the `{what}` function. {why}\n"
            "Python control flow on traced values is not possible: mark the argument static "
            "(static_argnums/static_argnames in jit) or use lax.cond, lax.select, jnp.where, "
            "lax.while_loop or lax.fori_loop instead."
        )

    def __bool__(self):
        raise TracerBoolConversionError(self._concretization_message("bool"))

    def __int__(self):
        raise ConcretizationTypeError(self._concretization_message("int"))

    def __float__(self):
        raise ConcretizationTypeError(self._concretization_message("float"))

    def __complex__(self):
        raise ConcretizationTypeError(self._concretization_message("complex"))

    def __index__(self):
        raise TracerIntegerConversionError(self._concretization_message("__index__"))

    def __array__(self, dtype=None, copy=None):
        raise TracerArrayConversionError(
            f"The numpy.ndarray conversion method __array__() was called on traced array "
            f"with shape {self.aval.str_short()}. {self._trace.describe_tracer(self)}\n"
            "Use spmd.numpy functions instead of numpy functions on traced values."
        )

    def __hash__(self):
        raise TypeError(f"unhashable type: {type(self).__name__} (traced arrays are not hashable)")

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __repr__(self) -> str:
        return f"Traced<{self.aval.str_short()}>with<{type(self._trace).__name__}>"

    def __reduce__(self):
        raise TypeError("traced arrays cannot be pickled")


def concrete_or_error(force: Callable | None, val: Any, context: str = "") -> Any:
    """``force(val)`` for a concrete value; for a tracer, a ConcretizationTypeError that says
    what needed the concrete value (``context``) and why the tracer has none."""
    if isinstance(val, Tracer):
        why = val._trace.describe_tracer(val)
        raise ConcretizationTypeError(
            f"Abstract tracer value encountered where concrete value is expected: traced array "
            f"with shape {val.aval.str_short()}.\n{context}\n{why}"
        )
    return val if force is None else force(val)


# ---------------------------------------------------------------------------------------------
# The jaxpr IR


class Var:
    """A variable of a jaxpr; identity is the object itself (names are given when printing)."""

    __slots__ = ("aval", "suffix")

    def __init__(self, aval: ShapedArray, suffix: str = "") -> None:
        self.aval = aval
        self.suffix = suffix

    def __repr__(self) -> str:
        return f"Var(id={id(self)}):{self.aval.str_short()}"


class Literal:
    """A scalar constant written inline in a jaxpr (``2.0:f32[]``)."""

    __slots__ = ("val", "aval")

    def __init__(self, val: Any, aval: ShapedArray) -> None:
        self.val = val
        self.aval = aval

    def __repr__(self) -> str:
        return f"{_literal_str(self.val)}:{self.aval.str_short()}"


def _literal_str(val: Any) -> str:
    # As JAX prints literals: through the Python scalar (float32 1/3 is 0.3333333432674408).
    v = np.asarray(val)[()]
    kind = v.dtype.kind
    if kind == "b":
        return str(bool(v))
    if kind in "iu":
        return str(int(v))
    if kind == "c":
        return str(complex(v))
    return str(float(v))


Atom = Var | Literal


class JaxprEqn:
    __slots__ = ("invars", "outvars", "primitive", "params")

    def __init__(self, invars, outvars, primitive: Primitive, params: dict) -> None:
        self.invars = list(invars)
        self.outvars = list(outvars)
        self.primitive = primitive
        self.params = params

    def replace(self, **kw) -> JaxprEqn:
        new = JaxprEqn(self.invars, self.outvars, self.primitive, self.params)
        for k, v in kw.items():
            setattr(new, k, v)
        return new

    def __repr__(self) -> str:
        return pp_eqn(self, PPContext()).format()


class Jaxpr:
    """A first-order program: constvars and invars, equations, outvars (atoms)."""

    __slots__ = ("constvars", "invars", "outvars", "eqns", "debug_info")

    def __init__(self, constvars, invars, outvars, eqns, debug_info=None) -> None:
        self.constvars = list(constvars)
        self.invars = list(invars)
        self.outvars = list(outvars)
        self.eqns = list(eqns)
        self.debug_info = debug_info

    @property
    def in_avals(self) -> list[ShapedArray]:
        return [v.aval for v in self.invars]

    @property
    def out_avals(self) -> list[ShapedArray]:
        return [v.aval for v in self.outvars]

    def pretty_print(self, width: int = 80) -> str:
        return pp_toplevel_jaxpr(self).format(width)

    def __str__(self) -> str:
        return self.pretty_print()

    __repr__ = __str__


class ClosedJaxpr:
    """A jaxpr together with the values of its constvars."""

    __slots__ = ("jaxpr", "consts", "__weakref__")

    def __init__(self, jaxpr: Jaxpr, consts: Sequence[Any]) -> None:
        assert len(jaxpr.constvars) == len(consts)
        self.jaxpr = jaxpr
        self.consts = list(consts)

    @property
    def in_avals(self) -> list[ShapedArray]:
        return self.jaxpr.in_avals

    @property
    def out_avals(self) -> list[ShapedArray]:
        return self.jaxpr.out_avals

    @property
    def eqns(self) -> list[JaxprEqn]:
        return self.jaxpr.eqns

    def pretty_print(self, width: int = 80) -> str:
        return self.jaxpr.pretty_print(width)

    def __str__(self) -> str:
        return self.pretty_print()

    __repr__ = __str__


def eval_jaxpr(jaxpr: Jaxpr, consts: Sequence[Any], *args: Any) -> list[Any]:
    """Interpret ``jaxpr`` by binding each equation's primitive under the current trace.

    This is the reference interpreter (and how transformations see inside a jaxpr); ``jit``
    executes a compiled form instead.
    """
    env: dict[Var, Any] = {}

    def read(a):
        if type(a) is Literal:
            # A weak literal stays weak (a NumPy value would make the result strong).
            return make_concrete(a.val, True) if a.aval.weak_type else a.val
        return env[a]

    for v, x in zip(jaxpr.constvars, consts, strict=True):
        env[v] = x
    for v, x in zip(jaxpr.invars, args, strict=True):
        env[v] = x
    for eqn in jaxpr.eqns:
        ins = [read(a) for a in eqn.invars]
        outs = eqn.primitive.bind(*ins, **eqn.params)
        if not eqn.primitive.multiple_results:
            outs = [outs]
        for v, x in zip(eqn.outvars, outs, strict=True):
            env[v] = x
    return [read(a) for a in jaxpr.outvars]


def jaxpr_as_fun(closed: ClosedJaxpr) -> Callable[..., list[Any]]:
    return lambda *args: eval_jaxpr(closed.jaxpr, closed.consts, *args)


# ---------------------------------------------------------------------------------------------
# Type checking


class JaxprTypeError(TypeError):
    pass


def check_jaxpr(jaxpr: Jaxpr) -> None:
    """Check that every variable is defined once before use and every equation's declared
    output types are what its primitive's abstract evaluation gives."""
    defined: set[int] = set()

    def define(v: Var, where: str) -> None:
        if id(v) in defined:
            raise JaxprTypeError(f"variable {v} defined twice ({where})")
        defined.add(id(v))

    def read(a, where: str) -> ShapedArray:
        if type(a) is Literal:
            return a.aval
        if id(a) not in defined:
            raise JaxprTypeError(f"variable {a} used before definition ({where})")
        return a.aval

    for v in jaxpr.constvars:
        define(v, "constvar")
    for v in jaxpr.invars:
        define(v, "invar")
    for i, eqn in enumerate(jaxpr.eqns):
        where = f"equation {i}: {eqn.primitive.name}"
        in_avals = [read(a, where) for a in eqn.invars]
        out = eqn.primitive.abstract_eval(*in_avals, **eqn.params)
        outs = out if eqn.primitive.multiple_results else [out]
        if len(outs) != len(eqn.outvars):
            raise JaxprTypeError(f"{where}: {len(outs)} results, {len(eqn.outvars)} outvars")
        for v, a in zip(eqn.outvars, outs):
            if not typematch(v.aval, a):
                raise JaxprTypeError(
                    f"{where}: outvar has type {v.aval.str_short()}, primitive gives "
                    f"{a.str_short()}"
                )
            define(v, where)
        for p in eqn.params.values():
            if isinstance(p, ClosedJaxpr):
                check_jaxpr(p.jaxpr)
            elif isinstance(p, Jaxpr):
                check_jaxpr(p)
    for a in jaxpr.outvars:
        read(a, "outvars")


def typematch(a: ShapedArray, b: ShapedArray) -> bool:
    """Equal up to weak type (weak types only steer promotion, not layout)."""
    return a.shape == b.shape and a.dtype == b.dtype


# ---------------------------------------------------------------------------------------------
# Printing, in make_jaxpr's text format


class PPContext:
    """Names variables a, b, ..., z, ba, bb, ... in the order they are first printed."""

    __slots__ = ("names", "counter", "shared", "unused")

    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.counter = itertools.count()
        # Equation results nothing reads print as `_` (and take no name), as in JAX.
        self.unused: set[int] = set()
        # id(jaxpr) -> the name it is printed under when hoisted into a `let` (see below).
        self.shared: dict[int, str] = {}

    def fresh(self) -> str:
        n = next(self.counter)
        s = ""
        while True:
            s = chr(ord("a") + n % 26) + s
            n //= 26
            if n == 0:
                break
        return s

    def name(self, v: Var) -> str:
        s = self.names.get(id(v))
        if s is None:
            s = "_" if id(v) in self.unused else self.fresh() + v.suffix
            self.names[id(v)] = s
        return s

    def alias(self, v: Var, name: str) -> None:
        self.names.setdefault(id(v), name)


def pp_var(v: Atom, ctx: PPContext, print_shape: bool = True) -> str:
    if type(v) is Literal:
        return repr(v)
    s = ctx.name(v)
    return f"{s}:{v.aval.str_short()}" if print_shape else s


def pp_vars(vs: Sequence[Atom], ctx: PPContext, separator: str = "", shapes=True) -> pp.Doc:
    return pp.nest(
        2,
        pp.group(
            pp.join(
                pp.text(separator) + pp.group(pp.brk()),
                [pp.text(pp_var(v, ctx, shapes)) for v in vs],
            )
        ),
    )


# Per-primitive parameter printing: a function (params) -> list of (key, value) pairs to show.
# The default shows every parameter, sorted by name, as JAX does.
pp_param_rules: dict[Primitive, Callable[[dict], list[tuple[str, Any]]]] = {}


def _pp_value(v: Any, ctx: PPContext) -> pp.Doc:
    if isinstance(v, (ClosedJaxpr, Jaxpr)):
        j = v.jaxpr if isinstance(v, ClosedJaxpr) else v
        name = ctx.shared.get(id(j))
        return pp.text(name) if name is not None else pp_jaxpr(j, ctx)
    if isinstance(v, np.dtype):
        return pp.text(v.name)
    if isinstance(v, type) and issubclass(v, np.generic):
        return pp.text(np.dtype(v).name)
    if isinstance(v, tuple) and v and all(isinstance(x, (ClosedJaxpr, Jaxpr)) for x in v):
        # A tuple of jaxprs (cond's branches) prints one jaxpr per line, as JAX does.
        items = pp.concat([pp.concat([pp.hardline(), _pp_value(x, ctx)]) for x in v])
        return pp.concat([pp.text("("), pp.nest(2, items), pp.hardline(), pp.text(")")])
    return pp.text(str(v))


def pp_kv_pairs(pairs: list[tuple[str, Any]], ctx: PPContext) -> pp.Doc:
    if not pairs:
        return pp.nil()
    items = [pp.text(f"{k}=") + _pp_value(v, ctx) for k, v in pairs]
    return pp.group(
        pp.nest(2, pp.concat([pp.text("["), pp.brk(""), pp.join(pp.brk(), items)]))
        + pp.brk("")
        + pp.text("]")
    )


# Call-like primitives whose inner jaxpr prints with the outer names (JAX does this for jit).
pp_alias_primitives: set[Primitive] = set()


def _alias_inner(eqn: JaxprEqn, ctx: PPContext) -> None:
    # Inner jaxprs of calls print with the names of the outer operands and results they
    # stand for, so the text reads as one program.
    if eqn.primitive not in pp_alias_primitives:
        return
    for p in eqn.params.values():
        inner = p.jaxpr if isinstance(p, ClosedJaxpr) else p if isinstance(p, Jaxpr) else None
        if inner is None or len(inner.invars) != len(eqn.invars) or id(inner) in ctx.shared:
            continue
        used: set[str] = set()
        for iv, ov in zip(inner.invars, eqn.invars):
            # An outer variable passed twice names only its first inner binder.
            name = ctx.names.get(id(ov)) if type(ov) is Var else None
            if name is not None and name not in used:
                ctx.alias(iv, name)
                used.add(name)
        if len(inner.outvars) == len(eqn.outvars):
            bound = {id(v) for v in inner.invars} | {id(v) for v in inner.constvars}
            for iv, ov in zip(inner.outvars, eqn.outvars):
                if type(iv) is Var and id(iv) not in bound and id(ov) in ctx.names:
                    ctx.alias(iv, ctx.names[id(ov)])


def pp_eqn(eqn: JaxprEqn, ctx: PPContext) -> pp.Doc:
    lhs = pp_vars(eqn.outvars, ctx)
    _alias_inner(eqn, ctx)
    rule = pp_param_rules.get(eqn.primitive)
    pairs = rule(eqn.params) if rule else sorted(eqn.params.items())
    rhs = [pp.text(eqn.primitive.name), pp_kv_pairs(pairs, ctx), pp.text(" ")]
    rhs.append(pp_vars(eqn.invars, ctx, shapes=False))
    if not eqn.outvars:
        return pp.concat(rhs)
    return pp.concat([lhs, pp.text(" = "), *rhs])


def _mark_unused(jaxpr: Jaxpr, ctx: PPContext) -> None:
    used = {id(a) for e in jaxpr.eqns for a in e.invars if type(a) is Var}
    used.update(id(a) for a in jaxpr.outvars if type(a) is Var)
    ctx.unused.update(id(v) for e in jaxpr.eqns for v in e.outvars if id(v) not in used)


def pp_jaxpr(jaxpr: Jaxpr, ctx: PPContext) -> pp.Doc:
    constvars = pp_vars(jaxpr.constvars, ctx)
    invars = pp_vars(jaxpr.invars, ctx)
    eqns = pp.join(pp.brk(), [pp_eqn(e, ctx) for e in jaxpr.eqns])
    outs = pp.concat(
        [
            pp.text("("),
            pp_vars(jaxpr.outvars, ctx, separator=",", shapes=False),
            pp.text(",)" if len(jaxpr.outvars) == 1 else ")"),
        ]
    )
    return pp.group(
        pp.nest(
            2,
            pp.concat(
                [
                    pp.text("{ lambda "),
                    constvars,
                    pp.text("; "),
                    invars,
                    pp.text(". let"),
                    pp.nest(2, pp.brk() + eqns),
                    pp.brk(),
                    pp.text("in "),
                    outs,
                ]
            ),
        )
        + pp.text(" }")
    )


def _jaxprs_in_params(params: dict) -> list[Jaxpr]:
    out = []
    for v in params.values():
        vs = v if isinstance(v, tuple) else (v,)
        for x in vs:
            if isinstance(x, ClosedJaxpr):
                out.append(x.jaxpr)
            elif isinstance(x, Jaxpr):
                out.append(x)
    return out


def pp_toplevel_jaxpr(top: Jaxpr) -> pp.Doc:
    """Print ``top``, hoisting inner jaxprs that are used more than once (or are long) into
    ``let name = { ... } in`` bindings before it, as JAX 0.10 does."""
    counts: dict[int, int] = {}
    objs: dict[int, Jaxpr] = {}
    names: dict[int, str] = {}
    queue = [top]
    while queue:
        j = queue.pop(0)
        objs[id(j)] = j
        counts[id(j)] = counts.get(id(j), 0) + (2 if j is not top and len(j.eqns) > 10 else 1)
        for eqn in j.eqns:
            inner = _jaxprs_in_params(eqn.params)
            queue.extend(inner)
            name = eqn.params.get("name")
            if isinstance(name, str):
                for sub in inner:
                    names.setdefault(id(sub), name.strip("<>"))
    ctx = PPContext()
    taken: dict[str, int] = {}
    shared = []
    for jid, c in counts.items():
        if c == 1 or objs[jid] is top:
            continue
        name = names.get(jid, "jaxpr")
        n = taken.get(name, 0)
        taken[name] = n + 1
        if n:
            name = f"{name}{n}"
            taken[name] = taken.get(name, 0) + 1
        ctx.shared[jid] = name
        shared.append(jid)
    docs = []
    for jid in shared:
        # A hoisted jaxpr prints in full at its binding, not as a reference to itself.
        name = ctx.shared.pop(jid)
        docs.append(
            pp.concat([pp.text(f"let {name} = "), pp_jaxpr(objs[jid], ctx), pp.text(" in")])
        )
        ctx.shared[jid] = name
    # Only the top-level program's unused results print as `_` (inner ones keep names).
    _mark_unused(top, ctx)
    docs.append(pp_jaxpr(top, ctx))
    return pp.join(pp.hardline(), docs) if len(docs) > 1 else docs[0]
