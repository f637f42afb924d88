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

import enum
import itertools
import threading
from collections.abc import Callable, Sequence
from contextlib import contextmanager
from typing import Any

import numpy as np

from spmd._src import dtypes, source_info
from spmd._src.errors import (
    ConcretizationTypeError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
)

# ---------------------------------------------------------------------------------------------
# Abstract values


class Vma(frozenset):
    """The mesh axes a value varies over (its varying manual axes), remembering the order to
    print them in: the mesh's. Equal to (and hashed as) the plain frozenset of the names."""

    __slots__ = ("order",)

    def __new__(cls, names: Sequence[Any]) -> Vma:
        names = tuple(dict.fromkeys(names))
        self = super().__new__(cls, names)
        self.order = names
        return self

    def __reduce__(self):
        return (Vma, (self.order,))


_NO_VMA: frozenset = frozenset()


def vma_str(vma: frozenset) -> str:
    """``{V:x}`` / ``{V:(x,y)}`` for a non-empty vma, in mesh order (``''`` for none)."""
    if not vma:
        return ""
    names = getattr(vma, "order", None) or sorted(vma, key=str)
    return "{V:" + (str(names[0]) if len(names) == 1 else f"({','.join(map(str, names))})") + "}"


class MemorySpace(enum.Enum):
    """Where an array lives (``jax.memory.Space``): device memory, host memory (a sharding's
    ``pinned_host`` kind), or either (``Any``, a type only traced programs give). Part of an
    array's type; ``Device`` prints as nothing, the others as ``f32<host>[8]``."""

    Device = enum.auto()
    Host = enum.auto()
    Any = enum.auto()

    def __repr__(self) -> str:
        return f"MemorySpace.{self.name}"

    __str__ = __repr__
    # Identity hashing: cheaper than Enum's (which hashes the name), and avals hash it.
    __hash__ = object.__hash__


DEVICE_SPACE = MemorySpace.Device
HOST = MemorySpace.Host


def mem_kind_to_space(kind: str | None) -> MemorySpace:
    """A sharding's memory kind as a memory space: ``pinned_host`` is the host's; the others
    (``device``, ``unpinned_host``) are typed as device memory, as in JAX."""
    return MemorySpace.Host if kind == "pinned_host" else DEVICE_SPACE


def mem_space_to_kind(space: MemorySpace, who: str = "device_put") -> str:
    """The memory kind a memory space places an array in (AssertionError for ``Any``, which
    names no memory: JAX's class)."""
    if space is DEVICE_SPACE:
        return "device"
    if space is MemorySpace.Host:
        return "pinned_host"
    raise AssertionError(
        f"{who}: {space!r} names no memory an array can be placed in (it is a type for traced "
        "values only); use jax.memory.Space.Device or jax.memory.Space.Host."
    )


class ShapedArray:
    """The abstract value of an array: shape, dtype, whether the dtype is weak, and (inside a
    shard_map body with check_vma) the mesh axes the value varies over (``vma``).

    A weak dtype comes from a Python scalar and gives way to the other operand's dtype in
    promotion (``f32[] * 2`` stays f32). ``vma`` is part of the type (equality and hash), as in
    JAX: it is empty everywhere but in shard_map bodies, so caches keyed on avals outside
    bodies are unaffected, and inside them a body traced for other varying axes is another
    program (its pvary casts differ). ``memory_space`` (``MemorySpace.Device`` but for arrays
    in host memory) is part of the type too, as in JAX.
    """

    __slots__ = ("shape", "dtype", "weak_type", "vma", "memory_space")
    array_abstraction_level = 1

    def __init__(
        self,
        shape: tuple[int, ...],
        dtype: Any,
        weak_type: bool = False,
        vma: frozenset = _NO_VMA,
        memory_space: MemorySpace = DEVICE_SPACE,
    ) -> None:
        self.shape = shape if type(shape) is tuple else tuple(shape)
        self.dtype = dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)
        self.weak_type = weak_type is True or bool(weak_type)
        self.vma = vma
        self.memory_space = memory_space

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for d in self.shape:
            n *= d
        return n

    def update(
        self, shape=None, dtype=None, weak_type=None, vma=None, memory_space=None
    ) -> ShapedArray:
        return ShapedArray(
            self.shape if shape is None else shape,
            self.dtype if dtype is None else dtype,
            self.weak_type if weak_type is None else weak_type,
            self.vma if vma is None else vma,
            self.memory_space if memory_space is None else memory_space,
        )

    def strip_weak_type(self) -> ShapedArray:
        return self.update(weak_type=False) if self.weak_type else self

    def __eq__(self, other: object) -> bool:
        return (
            type(other) is ShapedArray
            and self.shape == other.shape
            and self.dtype == other.dtype
            and self.weak_type == other.weak_type
            and self.vma == other.vma
            and self.memory_space is other.memory_space
        )

    def __hash__(self) -> int:
        return hash((self.shape, self.dtype, self.weak_type, self.vma, self.memory_space))

    def str_short(self, short_dtypes: bool = True) -> str:
        if short_dtypes:
            name = dtypes.short_dtype_name(self.dtype)
        else:  # NumPy names float0 (a structured dtype) 'void'; JAX prints float0
            name = "float0" if self.dtype == dtypes.float0 else self.dtype.name
        if self.memory_space is not DEVICE_SPACE:  # f32<host>[8], as JAX prints it
            name += f"<{self.memory_space.name.lower()}>"
        return f"{name}[{','.join(str(d) for d in self.shape)}]{vma_str(self.vma)}"

    def __repr__(self) -> str:
        weak = ", weak_type=True" if self.weak_type else ""
        return f"ShapedArray({self.str_short(False)}{weak})"

    def __str__(self) -> str:
        # JAX's text of a type: the dtype's full name, and ~ for a weak one (~float32[]).
        return ("~" if self.weak_type else "") + self.str_short(False)


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
        "takes_out",
        "impl",
        "typed_impl",
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
        # The (single-result, elementwise) kernel accepts ``out=``, a dead operand's buffer of
        # the result's shape and dtype, and writes its result there, as NumPy's ufuncs do. It
        # must then also return fresh memory whenever it does not use ``out``.
        self.takes_out = False
        self.impl: Callable | None = None
        # Optional: (operand avals, **params) -> a NumPy kernel specialised to those operand
        # types. A compiled program asks once per equation, where ``impl`` would work out the
        # same plan on every call.
        self.typed_impl: Callable | None = None
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

    def _shape_text(self) -> str:
        # JAX's errors name the type with long dtype names: "traced array with shape int32[]".
        return f"traced array with shape {self.aval.str_short(short_dtypes=False)}"

    def _concretization_message(self, what: str) -> str:
        why = self._trace.describe_tracer(self)
        return (
            f"Abstract tracer value encountered where concrete value is expected: "
            f"{self._shape_text()}\nThe problem arose with "
            f"the `{what}` function. {why}\n"
            "Python control flow on traced values is not possible: mark the argument static "
            "(static_argnums/static_argnames in jit) or use lax.cond, lax.select, jnp.where, "
            "lax.while_loop or lax.fori_loop instead."
        )

    def __bool__(self):
        raise TracerBoolConversionError(
            f"Attempted boolean conversion of {self._shape_text()}.\n"
            + self._concretization_message("bool").split("\n", 1)[1]
        )

    def __int__(self):
        raise ConcretizationTypeError(self._concretization_message("int"))

    def __float__(self):
        raise ConcretizationTypeError(self._concretization_message("float"))

    def __complex__(self):
        raise ConcretizationTypeError(self._concretization_message("complex"))

    def __index__(self):
        raise TracerIntegerConversionError(
            f"The __index__() method was called on {self._shape_text()}\n"
            + self._concretization_message("__index__").split("\n", 1)[1]
        )

    def __array__(self, dtype=None, copy=None):
        raise TracerArrayConversionError(
            f"The numpy.ndarray conversion method __array__() was called on "
            f"{self._shape_text()}\n{self._trace.describe_tracer(self)}\n"
            "Use spmd.numpy functions instead of numpy functions on traced values."
        )

    def __hash__(self):
        raise TypeError(f"unhashable type: {type(self).__name__} (traced arrays are not hashable)")

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __repr__(self) -> str:
        from spmd._src.tracer_printing import tracer_repr  # lazy: it reads the interpreters

        return tracer_repr(self)

    def __reduce__(self):
        raise TypeError("traced arrays cannot be pickled")


def concrete_or_error(force: Callable | None, val: Any, context: str = "") -> Any:
    """``force(val)`` for a concrete value; for a tracer, a ConcretizationTypeError that says
    what needed the concrete value (``context``) and why the tracer has none."""
    if isinstance(val, Tracer):
        why = val._trace.describe_tracer(val)
        raise ConcretizationTypeError(
            f"Abstract tracer value encountered where concrete value is expected: "
            f"{val._shape_text()}\n{context}\n{why}"
        )
    return val if force is None else force(val)


# ---------------------------------------------------------------------------------------------
# The jaxpr IR


class Var:
    """A variable of a jaxpr; identity is the object itself (names are given when printing)."""

    # ``sharding``: on meshes with Explicit axes, the sharding in the variable's type (set
    # while tracing, printed ``f32[8@x,4]``); None otherwise.
    __slots__ = ("aval", "suffix", "sharding")

    def __init__(self, aval: ShapedArray, suffix: str = "", sharding: Any = None) -> None:
        self.aval = aval
        self.suffix = suffix
        self.sharding = sharding

    def __repr__(self) -> str:
        return f"Var(id={id(self)}):{self.aval.str_short()}"


class Literal:
    """A scalar constant written inline in a jaxpr (``2.0:f32[]``)."""

    __slots__ = ("val", "aval", "text")

    def __init__(self, val: Any, aval: ShapedArray, text: str | None = None) -> None:
        self.val = val
        self.aval = aval
        # How the value prints, when not as its dtype's value: a Python float passed as it
        # is to a call (a jit's operand) prints as Python writes it (0.2, not 0.2000000029...).
        self.text = text

    def __repr__(self) -> str:
        text = self.text if self.text is not None else _literal_str(self.val)
        return f"{text}:{self.aval.str_short()}"


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
    if v.dtype.names is not None:  # float0, the tangent type of integers: NumPy's (b'',)
        return str(v)
    return str(float(v))


Atom = Var | Literal


class JaxprEqn:
    # source_info: where user code made the equation ("file.py:line:col (function)"), kept only
    # while spmd._src.source_info records it (print_saved_residuals); None elsewhere.
    __slots__ = ("invars", "outvars", "primitive", "params", "source_info")

    def __init__(
        self, invars, outvars, primitive: Primitive, params: dict, source_info: str | None = None
    ) -> None:
        self.invars = list(invars)
        self.outvars = list(outvars)
        self.primitive = primitive
        self.params = params
        self.source_info = source_info

    def replace(self, **kw) -> JaxprEqn:
        new = JaxprEqn(self.invars, self.outvars, self.primitive, self.params, self.source_info)
        for k, v in kw.items():
            setattr(new, k, v)
        return new

    def __repr__(self) -> str:
        from spmd._src.core_printing import pp_eqn  # lazy: the printer is built on the IR

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
        from spmd._src.core_printing import pp_toplevel_jaxpr  # lazy: built on the IR

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


def with_literal_text(x: Any, text: str | None) -> Any:
    """``x``, a weak concrete scalar standing for a Python float, set to print as ``text`` (as
    Python writes the float) when a trace stages it as a literal, as JAX prints a Python float
    that reaches a primitive unconverted."""
    if text is not None:
        try:
            x._py_text = text
        except AttributeError:  # a NumPy value, before the Array layer is installed
            pass
    return x


def python_float_scalar(x: Any, value: Any) -> Any:
    """``x``, made from the Python scalar ``value``: when ``value`` is a float and ``x`` a weak
    scalar of its default dtype (no conversion happened), ``x`` prints as ``value`` does."""
    if (
        type(value) is float
        and getattr(x, "weak_type", False)
        and x.dtype == dtypes.default_float_dtype()
    ):
        return with_literal_text(x, repr(value))
    return x


def literal_operand(a: Literal) -> Any:
    """The value an interpreter binds for the literal ``a``: a weak literal stays weak (a NumPy
    value would make the result strong), and one written as a Python float keeps its text, so
    staging it again (a jit's linearization) prints it as JAX does (``1e-05``)."""
    if not a.aval.weak_type:
        return a.val
    return with_literal_text(make_concrete(a.val, True), a.text)


def eval_jaxpr(
    jaxpr: Jaxpr, consts: Sequence[Any], *args: Any, rebind: Callable | None = None
) -> list[Any]:
    """Interpret ``jaxpr`` by binding each equation's primitive under the current trace
    (``rebind(eqn, operands)`` binds instead, where given).

    This is the reference interpreter (and how transformations see inside a jaxpr); ``jit``
    executes a compiled form instead.
    """
    env: dict[Var, Any] = {}

    def read(a):
        return literal_operand(a) if type(a) is Literal else env[a]

    for v, x in zip(jaxpr.constvars, consts, strict=True):
        env[v] = x
    for v, x in zip(jaxpr.invars, args, strict=True):
        env[v] = x
    for eqn in jaxpr.eqns:
        ins = [read(a) for a in eqn.invars]
        if source_info.depth():
            # Recording locations: what binding this equation makes is located where it was.
            with source_info.at(eqn.source_info):
                if rebind is None:
                    outs = eqn.primitive.bind(*ins, **eqn.params)
                else:
                    outs = rebind(eqn, ins)
        elif rebind is None:
            outs = eqn.primitive.bind(*ins, **eqn.params)
        else:
            outs = rebind(eqn, ins)
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


# Per-primitive parameter printing: a function (params) -> list of (key, value) pairs to show.
# The default shows every parameter, sorted by name, as JAX does.
pp_param_rules: dict[Primitive, Callable[[dict], list[tuple[str, Any]]]] = {}

# Call-like primitives whose inner jaxpr prints with the outer names (JAX does this for jit).
pp_alias_primitives: set[Primitive] = set()


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
